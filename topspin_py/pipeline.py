"""The pipeline's stages, assembled once, as small functions over values.

    load ──► spin_a ──► (the search pan runs: pan.flags) ──► context ──► symmetry
         ──► flags for gcc ──► canonicalise (layout, codegen, header, splice) ──► build (gcc)
         ──► search (pan, its report checked)

* ``load``: the model as spin -a reads it (with spin's -f/-F/-N claim): a ``Loaded``.
* ``spin_a``: spin -a in a work directory: pan.c, pan.h, ...
* the search context is ``reduce.search_context``: which claim and labels constrain the
  symmetry stays decided there, the one place that reads pan's options for it.
* ``symmetry``: context -> find_symmetry -> strategy_choice, the one place the group and the
  strategy are made (verify and swarm through ``prepare``, generate and patch through
  ``own_build_symmetry``).
* ``canonicalise``: the canonicaliser, its header and the splice into pan.c, the one place
  they are written (verify and swarm through ``build``, generate and patch directly).
* ``prepare`` is verify's sequence up to gcc (-> ``PanBuild``); ``build`` compiles one pan
  of it (swarm: one per variant); ``search`` runs pan under the depth-limit policy and checks
  that its report is the run that was meant.

verify.py checks verify's options, then runs prepare, build and search, and makes the
``Result``; swarm runs prepare once and build per variant; regress goes through verify.

reduce.py stays what these stages call for the symmetry's decisions and text: the search
context, auto's strategy, the defines a reduction needs, the canonicaliser's C and the header.
Keeping it apart keeps codegen's imports (sympy, jinja2) out of a run with --strategy none,
and this module to the order of the stages.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from topspin_py import strategies
from topspin_py.codegen.registry import STRATEGIES as CANONICALISERS
from topspin_py.errors import UsageError
from topspin_py.pan import flags as panflags
from topspin_py.pan import loading, toolchain
from topspin_py.pan.build_cache import BuildCache
from topspin_py.pan.claims import accept_labels
from topspin_py.pan.claims import claims_from_file as claims_from_file_of
from topspin_py.pan.output import PanReport
from topspin_py.pan.progress import Progress
from topspin_py.pan.refusals import (
    check_claim_checked,
    check_reduction_on,
    refuse_printing_with_several_processes,
    refuse_with_symmetry,
    spin_por_incompatibilities,
)
from topspin_py.pan.search import Search, run_search
from topspin_py.pan.splice import SYM_MACRO, SplicedPan, check_pan_p, splice_file
from topspin_py.pan.trails import desugared_copy, in_current_directory, note_worker_trails
from topspin_py.promela.model import Model
from topspin_py.promela.preprocess import macros_used
from topspin_py.reduce import (
    GENERATED_C,
    GENERATED_H,
    StrategyChoice,
    defines_the_reduction_needs,
    find_symmetry,
    header,
    search_context,
    strategy_choice,
    write_canonicaliser,
)
from topspin_py.reporting import Reporter
from topspin_py.result import por_off_note

if TYPE_CHECKING:   # (detection is imported where a reduction is made: reduce.py)
    from topspin_py.symmetry.detect import Group


# ------------------------------------------------------------------------------------ load

@dataclass(frozen=True)
class Loaded:
    """The model read as spin -a reads it, before any work directory exists."""

    path: Path                    # the model as the user gave it
    tools: toolchain.Toolchain
    defines: tuple[str, ...]      # the -D defines spin's preprocessor is given
    spin_options: panflags.SpinOptions
    model: Model         # the model as the symmetry detection reads it (with -f's or -N's claim)
    as_written: Model    # the model as spin is given it (without that claim, which spin adds)
    claim_text: str | None = None            # the never claim of -f or -F, translated
    claims_from_file: tuple[str, ...] = ()   # pan's names of the claims spin's -N FILE adds
    defines_used: frozenset[str] = frozenset()   # the names of the defines the program uses


def load(tools: toolchain.Toolchain, path: Path, defines: list[str], spin_options: panflags.SpinOptions,
         *, check_defines: bool = False) -> Loaded:
    """The model at ``path`` as spin -a reads it with ``defines`` and spin's options.
    ``check_defines``: also find which defines the program uses (verify refuses the others)."""
    model, as_written, claim_text = loading.models_for_spin(tools, path, defines, spin_options)
    claim_file = spin_options.claim_file
    claims_from_file = claims_from_file_of(model, claim_file) if claim_file is not None else ()
    used = (_defines_used(path, defines, spin_options.cpp_flags, claim_text, claim_file)
            if check_defines else frozenset())
    return Loaded(path, tools, tuple(defines), spin_options, model, as_written, claim_text,
                  claims_from_file, used)


def _defines_used(model: Path, defines: list[str], cpp_flags: tuple[str, ...], claim_text: str | None,
                  claim_file: Path | None) -> frozenset[str]:
    """The names of ``defines`` that the program spin reads uses (the model, and the claim of
    -f or -N FILE, which spin preprocesses with it): a -D that neither it nor pan uses would be
    dropped without a word (prepare refuses it)."""
    if not defines:
        return frozenset()
    with tempfile.TemporaryDirectory(prefix="topspin-macros-") as name:
        program = (model if claim_text is None and claim_file is None
                   else loading.claim_wrapper(model, Path(name), claim_text, claim_file))
        used = macros_used(program, defines, cpp_flags)
    return frozenset(panflags.define_name(define) for define in defines) & used


# ---------------------------------------------------------------------------------- spin -a

def spin_a(loaded: Loaded, workdir: Path, *, claim_file: Path | None,
           reporter: Reporter | None = None) -> tuple[Path, str]:
    """spin -a in ``workdir`` (with ``-N claim_file``): the file spin was given (the model, or
    the desugared or merged program written in ``workdir``) and spin's output."""
    model, tools, defines = loaded.path, loaded.tools, list(loaded.defines)
    spin_args = loaded.spin_options.args
    # A model that uses the ref/public extension: spin reads its desugared program.
    source = toolchain.spin_source(model, loaded.as_written, workdir)
    if reporter is not None:
        reporter.ran(toolchain.spin_command(tools, source, defines, claim_file, spin_args))
        reporter.stage("spin -a: translating the model into pan.c", None)
    output = toolchain.generate_pan(tools, source, str(model) if source == model else str(source),
                                    defines, workdir, claim_file, spin_args)
    return source, output


# -------------------------------------------------------------------------------- symmetry

def symmetry(context: Model, requested: str) -> tuple[Group, StrategyChoice]:
    """The group of the search ``context`` (reduce.search_context) and the strategy for it:
    ``requested``, or auto's choice with its reason, or none for the trivial group."""
    group = find_symmetry(context)
    return group, strategy_choice(requested, group)


def own_build_symmetry(model_path: Path, model: Model, defines: list[str],
                       requested: str) -> tuple[Group, StrategyChoice]:
    """generate's and patch's group and strategy, for a pan the user runs, possibly with -N:
    every claim stays valid, unless -DNOCLAIM.  A trivial group leaves nothing to generate,
    which is said plainly."""
    group, choice = symmetry(search_context(model, defines), requested)
    if choice.name == "none":
        raise UsageError(f"{model_path}: the symmetry group is trivial, there is nothing to generate",
                         hint="`topspin-py detect MODEL` says why")
    return group, choice


def canonicalise(workdir: Path, group: Group, strategy: str, flags: list[str],
                 reason: str | None = None) -> SplicedPan:
    """Write the canonicaliser for ``group`` beside the pan.c in ``workdir``, its header, and
    splice it in.  ``flags`` are the -D flags pan will be compiled with (they shape pan.h's
    structs); ``reason`` is why auto chose ``strategy``, for the header."""
    write_canonicaliser(workdir, group, strategy, flags, GENERATED_C, reason)
    (workdir / GENERATED_H).write_text(header(group, strategy, flags, reason))
    if (workdir / "pan.p").is_file():   # -DBFS_PAR's workers: wrapped where pan.c includes it
        check_pan_p((workdir / "pan.p").read_text(encoding="latin-1"))
    return splice_file(workdir / "pan.c", GENERATED_C)


# ---------------------------------------------------------------------- verify's stages to gcc

@dataclass
class PanBuild:
    """What the pipeline decided before gcc, for one model and its options: spin -a's pan.* in
    the work directory, the search pan runs, the group and strategy, and the -D flags for gcc.
    verify compiles one pan from it; swarm compiles several variants (build)."""

    model: Path                   # the model as the user gave it
    tools: toolchain.Toolchain
    # The model as this pan checks it, one search context: its dead-local resets, the claim
    # pan checks (the others left out), accept and progress labels only for a cycle search
    # (reduce.search_context).  Detection read it; the group carries it and its types on.
    context: Model
    source: Path                  # what spin -a was given (the model, or its desugared program)
    desugared: Path | None        # where the desugared copy goes beside the model, if any
    spin_output: str
    spin_options: panflags.SpinOptions
    pan: panflags.PanOptions      # pan's arguments: the user's, and the -a/-l of the search
    defines: list[str]            # the user's, and those the search and the reduction need
    group: Group | None           # None: --strategy none
    strategy: str                 # "none": plain SPIN
    strategy_reason: str | None   # why auto chose it, or why none was used
    symmetry_notes: list[str]     # why the group is smaller than it looks (the summary)
    compile_flags: list[str]      # the -D flags for gcc, without the reduction's own
    claims_from_file: tuple[str, ...] = ()   # pan's names of the claims of spin's -N FILE
    # SPIN's own words that its partial order reduction is not compatible with the model
    # (flags.por_incompatibilities), and whether verify added -DNOREDUCE for them.
    por_incompatible: tuple[str, ...] = ()
    por_turned_off: bool = False
    cache: BuildCache | None = None          # where builds are reused from (None: --no-cache)

    @property
    def pan_args(self) -> list[str]:
        """pan's command line, word for word."""
        return list(self.pan.args)

    @property
    def replay_args(self) -> list[str]:
        """spin -t needs what shapes the model and its claim, not -oN (ignored in simulations).
        spin -t -N FILE includes FILE from MODEL.nvr, which it writes beside the model: FILE is
        named as the user gave it when the model is in the current directory, else by its
        absolute path (replay_command names the model so too)."""
        words = [f"-D{define}" for define in self.defines]
        shown = iter(self.spin_options.shown)
        for word in shown:
            if word == "-N":
                given = next(shown)
                words += ["-N", given if in_current_directory(self.model) else str(self.spin_options.claim_file)]
            elif not re.fullmatch(r"-o\d", word):
                words.append(word)
        return words


def prepare(loaded: Loaded, pan: panflags.PanOptions, workdir: Path, reporter: Reporter, *, strategy: str,
            safety: bool = False, keep_por: bool = False, use_cache: bool = True) -> PanBuild:
    """spin -a in ``workdir``, the search the model asks for, the group and the strategy, and
    the flags for gcc, with verify's refusals."""
    note, detail, stage = reporter.note, reporter.detail, reporter.stage
    model, tools, spin_options = loaded.path, loaded.tools, loaded.spin_options
    defines = list(loaded.defines)
    source, spin_output = spin_a(loaded, workdir, claim_file=spin_options.claim_file, reporter=reporter)
    desugared = desugared_copy(model) if source != model else None
    checked = loading.as_checked_by(loaded.model, workdir)   # does this pan reset dead locals?
    # What the model asks pan to check, as spin -run decides it: this needs spin's ltl
    # translations, and it decides which claim and labels constrain the symmetry.
    choice = panflags.choose_search(pan, defines, accept_labels(checked, workdir), safety)
    (note if choice.notable else detail)(choice.reason)
    pan = choice.pan
    por_incompatible = spin_por_incompatibilities(tools, defines, pan, workdir)
    por_turned_off = False
    if por_incompatible and "NOREDUCE" not in {panflags.define_name(define) for define in defines}:
        if keep_por:
            note("partial order reduction kept on for the comparison, although SPIN says it is not "
                 "compatible with this model: " + "; ".join(por_incompatible))
        else:
            # "no errors" must mean no errors: SPIN's reduction would miss them here.
            note(por_off_note(por_incompatible))
            defines.append("NOREDUCE")
            por_turned_off = True
    group = None
    chosen, strategy_reason = "none", None   # the strategy, and why auto chose it or why none
    symmetry_notes: list[str] = []   # why the group is smaller than it looks (the summary)
    # Only the claim pan checks constrains the symmetry (-N name, -DNOCLAIM), and accept or
    # progress labels only a cycle search.
    context = search_context(checked, defines, pan)
    if strategy != "none":
        refuse_with_symmetry(pan, defines)
        stage("finding the symmetry", None)
        group, picked = symmetry(context, strategy)
        symmetry_notes = _symmetry_notes(group)
        for reason in symmetry_notes:   # the summary shows them too: stderr with --verbose
            detail(f"symmetry: {reason}")
        chosen, strategy_reason = picked.name, picked.reason
        if strategy_warning := strategies.warning(chosen):
            if strategies.exactness(chosen) == "approximate" and pan.cycle_search:
                # A cycle search closes a cycle on a state it takes for one on its stack,
                # which may be of another orbit.
                strategy_warning += "; in this cycle search, a cycle it reports may not exist"
            note(f"warning: {strategy_warning}")
        if chosen != "none":
            needed = defines_the_reduction_needs(context, defines)
            for define in needed:
                note(f"symmetry: compiling with -D{define}: the model receives into _pid, and pan "
                     "must keep _pid in the states it stores")
            defines += needed
        if strategy == "enumerate" and group.order == 1:
            note("symmetry: the group is trivial; verifying without reduction")
    compile_flags = _compile_flags(workdir, loaded, checked, defines, pan, chosen, reporter)
    return PanBuild(model=model, tools=tools, context=context, source=source,
                    desugared=desugared, spin_output=spin_output, spin_options=spin_options,
                    pan=pan, defines=defines, group=group, strategy=chosen,
                    strategy_reason=strategy_reason, symmetry_notes=symmetry_notes,
                    compile_flags=compile_flags, claims_from_file=loaded.claims_from_file,
                    por_incompatible=tuple(por_incompatible), por_turned_off=por_turned_off,
                    cache=BuildCache.default() if use_cache else None)


def _symmetry_notes(group: Group) -> list[str]:
    """Why the group is smaller than it looks: its reasons, then one line per reason a
    permutation was rejected or left out, with every permutation it rules out."""
    left_out: dict[str, list[str]] = {}
    for alpha, rejection in (*group.rejected, *group.left_out):
        left_out.setdefault(str(rejection), []).append(group.cycles(alpha))
    return [*group.reasons, *(f"not permuted {', '.join(cycles)}: {reason}"
                              for reason, cycles in left_out.items())]


def _compile_flags(workdir: Path, loaded: Loaded, checked: Model, defines: list[str], pan: panflags.PanOptions,
                   strategy: str, reporter: Reporter) -> list[str]:
    """The -D flags for gcc (pan.flags.choose_compile_flags), and the refusals they lead to."""
    detail = reporter.detail
    pan_sources = {path.name: path.read_text(errors="replace") for path in workdir.glob("pan.[chbmpt]")}
    compile_flags = panflags.choose_compile_flags(
        defines, pan, panflags.pan_h_declares_claim(pan_sources["pan.h"]),
        panflags.pan_option_names(pan_sources.values()))
    refuse_printing_with_several_processes(defines, checked)
    detail(compile_flags.safety_reason)
    unused = [define for define in compile_flags.model_only
              if panflags.define_name(define) not in loaded.defines_used]
    if unused:
        raise UsageError(f"{' '.join('-D' + define for define in unused)}: neither the model nor pan uses "
                         f"{'this name' if len(unused) == 1 else 'these names'}, so "
                         f"{'it' if len(unused) == 1 else 'they'} would change nothing",
                         hint="check the spelling: pan's options are the names pan.c tests (-DNOREDUCE, "
                              "-DSAFETY, -DBITSTATE, -DCOLLAPSE, ...), a macro for the model is one it uses")
    if compile_flags.model_only:
        detail("for the model only (pan's sources do not test them): "
               + " ".join(f"-D{define}" for define in compile_flags.model_only))
    if strategy != "none" and "-DBFS_PAR" in compile_flags.flags and "-DSAFETY" not in compile_flags.flags:
        # (the splice refuses it too, at compile time)
        raise UsageError("-DBFS_PAR without -DSAFETY is not supported with symmetry reduction: "
                         "its bounded cycle search keeps a pointer to the hash-table entry of "
                         "its target state in the state vector, where a canonical form puts "
                         "another state's", hint="add -DSAFETY (a safety search), or use --strategy none")
    return list(compile_flags.flags)


# ------------------------------------------------------------------------- gcc, and pan

def build(pan_build: PanBuild, workdir: Path, reporter: Reporter, extra_flags: tuple[str, ...] = (),
          optimisation: str = panflags.DEFAULT_OPTIMISATION) -> tuple[Path, list[str]]:
    """Splice the canonicaliser into the pan.c in ``workdir`` (unless the strategy is none) and
    compile it with the build's flags and ``extra_flags`` (-D flags that change how pan searches,
    not what it stores: swarm's -DT_RAND ...).  Returns the binary and every -D flag it had."""
    flags = [*pan_build.compile_flags, *extra_flags]
    if pan_build.strategy != "none":
        assert pan_build.group is not None  # a strategy other than none is only chosen for a group
        canonicalise(workdir, pan_build.group, pan_build.strategy, flags, pan_build.strategy_reason)
        flags.append("-D" + SYM_MACRO)
        reporter.detail(f"symmetry: group of order {pan_build.group.order}, strategy {pan_build.strategy} "
                        f"({CANONICALISERS[pan_build.strategy].exactness}), canonicaliser in {GENERATED_C}"
                        + (f"; auto chose it: {pan_build.strategy_reason}" if pan_build.strategy_reason else ""))
    reporter.ran(toolchain.compile_command(pan_build.tools, flags, optimisation))
    reporter.stage(f"gcc {optimisation}: compiling pan.c", None)
    return toolchain.compile_pan(pan_build.tools, flags, workdir, optimisation,
                                 on_warning=reporter.compile_warning,
                                 cache=pan_build.cache, on_cache=reporter.cache_event), flags


def search(pan_build: PanBuild, binary: Path, workdir: Path, reporter: Reporter, *,
           defines: list[str] | tuple[str, ...], max_depth_limit: int,
           on_progress: Callable[[Progress], None] | None = None,
           partial_on_interrupt: bool = False) -> Search:
    """pan under the depth-limit policy (pan/search.py), its report checked as the run meant:
    the workers' trails it names, the claim it checked, the canonicaliser compiled in."""
    result = run_search(binary, pan_build.pan, workdir, pan_build.source,
                        pan_build.desugared or pan_build.model, reporter, defines=defines,
                        max_depth_limit=max_depth_limit, on_progress=on_progress,
                        partial_on_interrupt=partial_on_interrupt)
    note_worker_trails(result.report, pan_build.defines, reporter.note)
    check_report(pan_build, result.report)
    return result


def check_report(pan_build: PanBuild, report: PanReport) -> None:
    """A reduced pan must have checked a claim the symmetry respects, with the canonicaliser
    compiled in, as its report says; else the run was not the one meant (ToolchainError)."""
    if pan_build.strategy != "none":
        check_claim_checked(report, pan_build.context)
        check_reduction_on(report, pan_build.group)
