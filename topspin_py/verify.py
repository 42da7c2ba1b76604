"""The whole pipeline as one function: ``verify(model, options) -> Result``.

    model.pml -> promela (syntax check) -> spin -a -> the search the model asks for
              -> symmetry detection (for the claim and labels that search checks)
              -> flags -> layout, codegen, splice -> gcc -> pan (rerun on depth limit) -> Result

The stages up to gcc are ``prepare`` (-> ``PanBuild``) and ``compile_build``, which swarm uses
to build several variants of one pan (topspin_py/swarm/build.py).

Policies decided here (each documented where it is applied):

* the search: what the model asks for, with spin -run's defaults (pan.flags.choose_search):
  an accept label anywhere (an ltl formula's translation included) adds pan -a, -DNP adds -l,
  unless the user chose (--pan -a/-l, --safety, -DSAFETY, -DBFS, -DNOCLAIM).  The Result says
  which claim pan checked and how, and carries pan's warnings.
* depth limit (pan/search.py): the user's -mN is never changed: a search it cuts short is reported
  ``complete: false``, as pan reports it.  Without -m the first run is spin -run's (pan's default
  -m10000), and an error it finds is the one reported, with its trail, even if the limit cut
  the search short.  Only when it reached the limit without an error does the limit grow, 10x
  at a time up to ``VerifyOptions.max_depth_limit``; runs that may be thrown away are probes
  with pan's -b, which stop the moment they reach the limit, so besides the first run only the
  reported one searches in full (spin -run itself never reruns).
* trails: pan's own names beside the model (``m.pml.trail``; ``m.pml1.trail`` ... under -e or
  -cN, as ``spin -tN`` reads them), replacing an earlier run's as pan does; the summary names
  a trail it replaced.  pan -i/-I rewrites one trail, the shortest, whose depth is reported.
  A model directory we cannot write keeps the verdict: the trail stays in --keep DIR or goes
  to a new temporary directory, and the summary says where (or that it could not be kept).
* SPIN's conventions for flags (pan.flags): -l compiles with -DNP and -i with -DREACH, as
  spin -run does; spin's own -o1..-o5 pass to spin -a, and -f/-F's never claim is added to the
  model the symmetry detection reads, so the group respects it.
* pan's report: read from pan's own block at the end of its output, never from text the model
  can print (pan/output.py); its trails are the files pan wrote in the work directory under
  its names (pan/trails.py, pan/search.py read_report).  A report that pan's files or flags contradict (a
  trail but no errors; one process where pan was built for several) is a ToolchainError
  (pan/search.py check_report_is_pans), and so is a pan that stopped with an exit status other than 0 (pan
  exits with 0 after its report) or was killed by a signal, report or not.  A pan of several
  processes (-DNCORE>1, -DBFS_PAR), whose workers' output may land after pan's report, is
  refused for a model that can print (-DPRINTF, embedded C code).
* pan failures the user can fix by recompiling (out of memory, VECTORSZ too small) become
  ToolchainErrors whose hint names the flag to pass.
* --compare: a plain run too; when the verdicts differ, ``Result.disagreement`` says how and
  the exit status is 2 (result.py).
* SPIN's partial order reduction where SPIN says it is not compatible with the model (pan.c's
  "#warning p.o. reduction not compatible with remote varrefs (use -DNOREDUCE)", read from the
  preprocessor, not a compilation: pan/refusals.py spin_por_incompatibilities): "no errors" must mean no
  errors, so verify compiles with -DNOREDUCE and says so (a note, Result.warnings,
  por_turned_off).  SPIN's other #warnings that gcc gives reach the user too (a note,
  Result.warnings).
* --cross-check: the same search once more, same strategy, with partial order reduction
  switched the other way (-DNOREDUCE added, or taken away when given; kept on where verify
  turned it off for SPIN's warning: _cross_check); verdicts that differ on whether there are
  errors make the exit status 2 (result.py), unless SPIN's warning explains them.
* Ctrl-C while pan runs: pan prints its statistics so far (toolchain.run_pan); with
  ``partial_on_interrupt`` they become a Result marked ``interrupted`` (exit status 130), with
  no rerun and no plain run after it.  Otherwise, and for Ctrl-C at any other moment or
  SIGTERM, the exception goes on up through the work directory's clean-up.
* ``on_stage`` hears of each stage as it starts (the CLI shows it with the time it has run).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from topspin_py import strategies, symcheck
from topspin_py.codegen.registry import STRATEGIES as CANONICALISERS
from topspin_py.errors import UsageError
from topspin_py.pan import flags as panflags
from topspin_py.pan import lasso, loading, toolchain
from topspin_py.pan.build_cache import BuildCache
from topspin_py.pan.claims import accept_labels
from topspin_py.pan.claims import claims_from_file as claims_from_file_of
from topspin_py.pan.output import PanReport
from topspin_py.pan.progress import Progress
from topspin_py.pan.refusals import (
    check_claim_checked,
    check_reduction_on,
    por_switched,
    refuse_a_claim_pan_would_not_check,
    refuse_printing_with_several_processes,
    refuse_with_symmetry,
    spin_por_incompatibilities,
)
from topspin_py.pan.search import Search, run_search
from topspin_py.pan.splice import SYM_MACRO
from topspin_py.pan.trails import (
    SavedTrails,
    desugared_copy,
    in_current_directory,
    note_worker_trails,
    save_trails,
    trail_depth,
)
from topspin_py.promela.model import Model
from topspin_py.promela.preprocess import macros_used
from topspin_py.reduce import (
    GENERATED_C,
    defines_the_reduction_needs,
    find_symmetry,
    reduce_in,
    search_context,
    strategy_choice,
    write_canonicaliser,
)
from topspin_py.reporting import Reporter
from topspin_py.result import PlainRun, PorRun, Result, por_off_note

if TYPE_CHECKING:   # (detection is imported where a reduction is made: reduce.py)
    from topspin_py.symmetry.detect import Group

# "auto" picks the fastest exact strategy the group allows (reduce.strategy_choice).  The
# registry as imported; verify itself checks against topspin_py.strategies.choices(), which
# reads the registry when it is called.
STRATEGIES = tuple(strategies.choices())
DEFAULT_MAX_DEPTH_LIMIT = 10_000_000   # -m10^7: a DFS stack of about 460 MB


@dataclass
class VerifyOptions:
    strategy: str = "auto"
    defines: tuple[str, ...] = ()        # NAME or NAME=VALUE, for spin's cpp and for gcc
    pan_args: tuple[str, ...] = ()       # run-time arguments of pan, e.g. ("-m100000", "-c0")
    keep_dir: Path | None = None         # keep pan.c, pan.h, the binary and pan's output here
    spin_args: tuple[str, ...] = ()      # spin's own options for spin -a: -o3, -f FORMULA, -F FILE
    save_trails: bool = True             # copy pan's trail next to the model (regress does not)
    max_depth_limit: int = DEFAULT_MAX_DEPTH_LIMIT
    on_progress: Callable[[Progress], None] | None = None   # pan's periodic progress reports
    on_note: Callable[[str], None] | None = None     # things the user should know (reruns, warnings)
    on_detail: Callable[[str], None] | None = None   # --verbose: the exact commands and decisions
    on_stage: Callable[[str, int | None], None] | None = None   # a stage starts: its name, and
                                                               # pan's pid for the pan stage
    compare: bool = False                # also run plain SPIN and report the reduction
    cross_check: bool = False            # also run with POR switched the other way, compare verdicts
    safety: bool = False                 # a safety search even if the model has accept labels
    optimisation: str = panflags.DEFAULT_OPTIMISATION   # gcc's -O level for pan.c
    partial_on_interrupt: bool = False   # Ctrl-C during pan: return its statistics so far as an
                                         # interrupted Result, not KeyboardInterrupt (the CLI)
    check_symmetry: int | None = None    # --check-symmetry=BUDGET: compare the reduced search with
                                         # plain pan's up to BUDGET states (symcheck.py)
    keep_por: bool = False               # keep partial order reduction where SPIN says it is not
                                         # compatible with the model (--cross-check's other run)
    use_cache: bool = True               # reuse a pan built from the same sources (pan/build_cache.py)
    started: float | None = None         # when the run began, on time.monotonic()'s clock (the CLI:
                                         # its process's start, so the wall time counts Python's start
                                         # and imports); None: when verify is called


@dataclass
class _Request:
    """A verification asked for, checked and read before any work directory exists."""

    model: Path
    defines: list[str]
    pan_args: list[str]
    spin_options: panflags.SpinOptions
    tools: toolchain.Toolchain
    loaded: Model        # the model as the symmetry detection reads it (with -f's or -N's claim)
    as_written: Model    # the model as spin is given it (without that claim, which spin adds)
    claims_from_file: tuple[str, ...] = ()   # pan's names of the claims spin's -N FILE adds
    defines_used: frozenset[str] = frozenset()   # the names of the defines the program uses


@dataclass
class PanBuild:
    """What the pipeline decided before gcc, for one model and its options: spin -a's pan.* in
    the work directory, the search pan runs, the group and strategy, and the -D flags for gcc.
    verify compiles one pan from it; swarm compiles several variants (compile_build)."""

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
    pan_args: list[str]           # pan's arguments: the user's, and the -a/-l of the search
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


def verify(model_path: str | Path, options: VerifyOptions | None = None) -> Result:
    """Verify a Promela model with SPIN; raises TopspinError for anything that is not a verdict."""
    options = options or VerifyOptions()
    started = time.monotonic() if options.started is None else options.started
    reporter = Reporter.of(options)
    note = reporter.note
    request = _read(model_path, options, reporter)
    model = request.model
    with _work_directory(options.keep_dir) as workdir:
        build = _translate(request, workdir, options, reporter)
        group, strategy = build.group, build.strategy
        binary, flags = compile_build(build, workdir, reporter, optimisation=options.optimisation)
        search = run_search(binary, build.pan_args, workdir, build.source, build.desugared or model, reporter,
                            defines=options.defines, max_depth_limit=options.max_depth_limit,
                            on_progress=options.on_progress, partial_on_interrupt=options.partial_on_interrupt)
        note_worker_trails(search.report, build.defines, note)
        check_report(build, search.report)
        # pan -i/-I: the depth of the shortest error, from its trail as pan wrote it (before a
        # cycle in it is unrolled)
        first_trail = workdir / search.report.trail_files[0] if search.report.trail_files else None
        shortest = (trail_depth(first_trail) if first_trail is not None and first_trail.is_file()
                    and panflags.iterative(search.args) else None)
        lassos: list[lasso.Lasso] = []
        # (a run whose trails are not kept, --compare's or --cross-check's second, skips it)
        if (strategy != "none" and search.report.cycle_search and search.report.errors
                and not search.interrupted and options.save_trails):
            assert group is not None
            lassos = _unroll_lassos(binary, search, workdir, group, flags, build.tools,
                                    reporter.ran, reporter.stage, reporter.compile_warning, build.cache)
            for failed in (item for item in lassos if item.outcome == "failed"):
                note(f"lasso: {failed.describe()}")
        trails = (save_trails(search.report, workdir, model, options.keep_dir, build.replay_args,
                              (build.source, build.desugared) if build.desugared is not None else None)
                  if options.save_trails else SavedTrails([], None, []))
        checked, check_note = None, None
        if options.check_symmetry is not None and not search.interrupted:
            if strategy == "none":
                check_note = "nothing to check: no symmetry reduction in this run"
            else:
                reporter.stage("checking the symmetry against plain pan, breadth first", None)
                try:
                    checked = symcheck.check_symmetry(build, workdir, options.check_symmetry,
                                                      options.optimisation, reporter.ran, note).as_json()
                except symcheck.CheckUnavailable as unavailable:
                    check_note = f"not run: {unavailable}"
                    note(f"--check-symmetry: {check_note}")
        if options.keep_dir is not None:
            (workdir / "spin.out").write_text(build.spin_output)
            (workdir / "pan.out").write_text(search.output)
            (workdir / "commands.txt").write_text("\n".join(reporter.commands) + "\n")

    result = _result(model, strategy, search, [str(path) for path in trails.paths], trails.replay,
                     build.defines, flags, build.tools.spin_version, time.monotonic() - started)
    reporter.detail("stage times: " + reporter.stage_times(started, started + result.wall_s))
    result.trail_notes = trails.notes
    result.symmetry_check, result.symmetry_check_note = checked, check_note
    result.lassos = [item.as_json() for item in lassos]
    result.trail_depth = shortest
    result.build_cache = reporter.build_cache[0] if reporter.build_cache else None
    result.group_order = group.order if group is not None and strategy != "none" else 1
    result.symmetry_notes = build.symmetry_notes
    result.requested_strategy = options.strategy
    result.strategy_reason = build.strategy_reason
    result.exactness = strategies.exactness(strategy)
    result.exact = result.exactness in (None, "exact")
    result.por_incompatible = list(build.por_incompatible)
    result.por_turned_off = build.por_turned_off
    # Ours first (the strategy's warning, the partial order reduction we turned off), then
    # pan's, as it printed them, then SPIN's #warnings that gcc gave.
    result.warnings[:0] = [warning for warning in (strategies.warning(strategy), result.por_note) if warning]
    result.warnings += [text for text in reporter.compile_warnings if text not in result.warnings]
    result.claim = _claim_description(search.report.claim, build)
    result.search = _SEARCH_KINDS[search.report.cycle_search]
    if options.compare and strategy == "none" and not result.interrupted:
        # nothing reduced: this run is plain SPIN's, and there is no other to compare it with
        note(f"--compare: no reduction to compare ({build.strategy_reason or 'strategy none'}): "
             "this run is plain SPIN's")
    if options.compare and strategy != "none" and not result.interrupted:
        note("running plain SPIN (--strategy none) for the comparison")
        try:
            plain = verify(model, dataclasses.replace(options, strategy="none", compare=False, keep_dir=None,
                                                       started=None,
                                                       check_symmetry=None,
                                                       save_trails=False, on_progress=None,
                                                       partial_on_interrupt=False))
        except KeyboardInterrupt:
            if not options.partial_on_interrupt:
                raise
            note("--compare: the plain run was interrupted, so there is no comparison")
            result.interrupted = True   # the reduced search stays complete
            return result
        result.plain = PlainRun(plain.states_stored, plain.transitions, plain.errors, plain.complete,
                                plain.elapsed_s, plain.memory_mb)
    if options.cross_check and not result.interrupted:
        try:
            result.cross_check = _cross_check(model, options, note, result)
        except KeyboardInterrupt:
            if not options.partial_on_interrupt:
                raise
            note("--cross-check: the run with partial order reduction switched the other way was "
                 "interrupted, so there is no cross-check")
            result.interrupted = True
    return result


def prepare(model_path: str | Path, options: VerifyOptions, workdir: Path,
            reporter: Reporter | None = None) -> PanBuild:
    """verify's stages up to gcc, in ``workdir``: check the options, read the model, spin -a,
    choose the search, detect the group and the strategy, choose the flags for gcc (with
    verify's refusals).  ``compile_build`` then makes a pan of it (swarm: several)."""
    reporter = reporter or Reporter.of(options)
    return _translate(_read(model_path, options, reporter), workdir, options, reporter)


def compile_build(build: PanBuild, workdir: Path, reporter: Reporter, extra_flags: tuple[str, ...] = (),
                  optimisation: str = panflags.DEFAULT_OPTIMISATION) -> tuple[Path, list[str]]:
    """Splice the canonicaliser into the pan.c in ``workdir`` (unless the strategy is none) and
    compile it with the build's flags and ``extra_flags`` (-D flags that change how pan searches,
    not what it stores: swarm's -DT_RAND ...).  Returns the binary and every -D flag it had."""
    flags = [*build.compile_flags, *extra_flags]
    if build.strategy != "none":
        assert build.group is not None  # a strategy other than none is only chosen for a group
        reduce_in(workdir, build.group, build.strategy, flags, build.strategy_reason)
        flags.append("-D" + SYM_MACRO)
        reporter.detail(f"symmetry: group of order {build.group.order}, strategy {build.strategy} "
                        f"({CANONICALISERS[build.strategy].exactness}), canonicaliser in {GENERATED_C}"
                        + (f"; auto chose it: {build.strategy_reason}" if build.strategy_reason else ""))
    reporter.ran(toolchain.compile_command(build.tools, flags, optimisation))
    reporter.stage(f"gcc {optimisation}: compiling pan.c", None)
    return toolchain.compile_pan(build.tools, flags, workdir, optimisation, on_warning=reporter.compile_warning,
                                 cache=build.cache, on_cache=reporter.cache_event), flags


def check_report(build: PanBuild, report: PanReport) -> None:
    """A reduced pan must have checked a claim the symmetry respects, with the canonicaliser
    compiled in, as its report says; else the run was not the one meant (ToolchainError)."""
    if build.strategy != "none":
        check_claim_checked(report, build.context)
        check_reduction_on(report, build.group)


def _read(model_path: str | Path, options: VerifyOptions, reporter: Reporter) -> _Request:
    """Check the options and read the model, before any work directory is made."""
    note = reporter.note
    if options.strategy not in strategies.choices():
        raise UsageError(f"unknown strategy '{options.strategy}'",
                         hint=f"available: {', '.join(strategies.choices())}")
    if options.optimisation not in panflags.OPTIMISATION_LEVELS:
        raise UsageError(f"unknown optimisation level '{options.optimisation}'",
                         hint=f"one of {', '.join(panflags.OPTIMISATION_LEVELS)}")
    model = Path(model_path)
    if not model.is_file():
        raise UsageError(f"model file not found: {model}" if not model.exists()
                         else f"{model} is not a file", hint="give the Promela model's file")
    defines = [panflags.parse_define(define) for define in options.defines]
    if options.cross_check:
        _refuse_cross_check(options)
    pan_args = list(options.pan_args)
    if (replay := panflags.replay_arg(pan_args)) is not None:
        # A replay runs the model's statements, whose printing (-DPRINTF, c_code) may imitate
        # a report, and ends without pan's own: nothing to read a verdict from.
        raise UsageError(f"pan {replay} replays a trail instead of searching: verify runs searches",
                         hint="replay is spin's job: spin -t -p model.pml (spin -k FILE for another trail)")
    panflags.check_pan_args(pan_args, defines)
    spin_options = panflags.parse_spin_args(options.spin_args)
    for define, why in panflags.defines_pan_args_need(defines, pan_args):
        note(f"compiling with -D{define}: {why}")
        defines.append(define)
    refuse_a_claim_pan_would_not_check(spin_options, defines)

    tools = toolchain.find_toolchain()
    for warning in tools.warnings:
        note(warning)
    reporter.stage("reading the model", None)
    loaded, as_written, claim_text = loading.models_for_spin(tools, model, defines, spin_options)
    claim_file = spin_options.claim_file
    claims_from_file = claims_from_file_of(loaded, claim_file) if claim_file is not None else ()
    used = _defines_used(model, defines, spin_options.cpp_flags, claim_text, claim_file)
    return _Request(model, defines, pan_args, spin_options, tools, loaded, as_written, claims_from_file, used)


def _defines_used(model: Path, defines: list[str], cpp_flags: tuple[str, ...], claim_text: str | None,
                  claim_file: Path | None) -> frozenset[str]:
    """The names of ``defines`` that the program spin reads uses (the model, and the claim of
    -f or -N FILE, which spin preprocesses with it): a -D that neither it nor pan uses would be
    dropped without a word (_translate refuses it)."""
    if not defines:
        return frozenset()
    with tempfile.TemporaryDirectory(prefix="topspin-macros-") as name:
        program = (model if claim_text is None and claim_file is None
                   else loading.claim_wrapper(model, Path(name), claim_text, claim_file))
        used = macros_used(program, defines, cpp_flags)
    return frozenset(panflags.define_name(define) for define in defines) & used


def _translate(request: _Request, workdir: Path, options: VerifyOptions, reporter: Reporter) -> PanBuild:
    """spin -a in ``workdir``, the search the model asks for, the group and the strategy, and
    the flags for gcc."""
    note, detail, stage = reporter.note, reporter.detail, reporter.stage
    model, tools, spin_options = request.model, request.tools, request.spin_options
    defines = list(request.defines)
    # A model that uses the ref/public extension: spin reads its desugared program.
    source = toolchain.spin_source(model, request.as_written, workdir)
    desugared = desugared_copy(model) if source != model else None
    claim_file = spin_options.claim_file
    reporter.ran(toolchain.spin_command(tools, source, defines, claim_file, spin_options.args))
    stage("spin -a: translating the model into pan.c", None)
    spin_output = toolchain.generate_pan(tools, source, str(model) if desugared is None else str(source),
                                         defines, workdir, claim_file, spin_options.args)
    loaded = loading.as_checked_by(request.loaded, workdir)   # does this pan reset dead locals?
    # What the model asks pan to check, as spin -run decides it: this needs spin's ltl
    # translations, and it decides which claim and labels constrain the symmetry.
    choice = panflags.choose_search(request.pan_args, defines, accept_labels(loaded, workdir), options.safety)
    (note if choice.notable else detail)(choice.reason)
    pan_args = list(choice.pan_args)
    por_incompatible = spin_por_incompatibilities(tools, defines, pan_args, workdir)
    por_turned_off = False
    if por_incompatible and "NOREDUCE" not in {panflags.define_name(define) for define in defines}:
        if options.keep_por:
            note("partial order reduction kept on for the comparison, although SPIN says it is not "
                 "compatible with this model: " + "; ".join(por_incompatible))
        else:
            # "no errors" must mean no errors: SPIN's reduction would miss them here.
            note(por_off_note(por_incompatible))
            defines.append("NOREDUCE")
            por_turned_off = True
    group = None
    strategy = "none"
    strategy_reason: str | None = None   # why auto chose it, or why none was used
    symmetry_notes: list[str] = []   # why the group is smaller than it looks (the summary)
    context = search_context(loaded, defines, pan_args)
    if options.strategy != "none":
        refuse_with_symmetry(pan_args, defines)
        stage("finding the symmetry", None)
        # Only the claim pan checks constrains the symmetry (-N name, -DNOCLAIM), and
        # accept or progress labels only a cycle search.
        group = find_symmetry(context)
        symmetry_notes += group.reasons
        # One line per reason, with every permutation it rules out.
        left_out: dict[str, list[str]] = {}
        for alpha, rejection in (*group.rejected, *group.left_out):
            left_out.setdefault(str(rejection), []).append(group.cycles(alpha))
        symmetry_notes += [f"not permuted {', '.join(cycles)}: {reason}"
                           for reason, cycles in left_out.items()]
        for reason in symmetry_notes:   # the summary shows them too: stderr with --verbose
            detail(f"symmetry: {reason}")
        picked = strategy_choice(options.strategy, group)
        strategy, strategy_reason = picked.name, picked.reason
        if strategy_warning := strategies.warning(strategy):
            if strategies.exactness(strategy) == "approximate" and panflags.cycle_search(pan_args):
                # A cycle search closes a cycle on a state it takes for one on its stack,
                # which may be of another orbit.
                strategy_warning += "; in this cycle search, a cycle it reports may not exist"
            note(f"warning: {strategy_warning}")
        if strategy != "none":
            needed = defines_the_reduction_needs(context, defines)
            for define in needed:
                note(f"symmetry: compiling with -D{define}: the model receives into _pid, and pan "
                     "must keep _pid in the states it stores")
            defines += needed
        if options.strategy == "enumerate" and group.order == 1:
            note("symmetry: the group is trivial; verifying without reduction")

    pan_sources = {path.name: path.read_text(errors="replace") for path in workdir.glob("pan.[chbmpt]")}
    compile_flags = panflags.choose_compile_flags(
        defines, pan_args, panflags.pan_h_declares_claim(pan_sources["pan.h"]),
        panflags.pan_option_names(pan_sources.values()))
    refuse_printing_with_several_processes(defines, loaded)
    detail(compile_flags.safety_reason)
    unused = [define for define in compile_flags.model_only
              if panflags.define_name(define) not in request.defines_used]
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
    return PanBuild(model=model, tools=tools, context=context, source=source,
                    desugared=desugared, spin_output=spin_output, spin_options=spin_options,
                    pan_args=pan_args, defines=defines, group=group, strategy=strategy,
                    strategy_reason=strategy_reason, symmetry_notes=symmetry_notes,
                    compile_flags=list(compile_flags.flags), claims_from_file=request.claims_from_file,
                    por_incompatible=tuple(por_incompatible), por_turned_off=por_turned_off,
                    cache=BuildCache.default() if options.use_cache else None)


def _unroll_lassos(binary: Path, search: Search, workdir: Path, group: Group, flags: list[str],
                   tools, ran, stage, on_warning, cache: BuildCache | None) -> list[lasso.Lasso]:
    """Every trail of ``search`` that ends in a cycle, made a real lasso where pan closed the
    cycle only up to a symmetry (pan/lasso.py), before the trails are copied to the user.
    A canonicaliser that does not give its elements gets a second pan, with refine's."""
    lassos = []
    unrolling = binary
    for name in dict.fromkeys(search.report.trail_files):
        trail = workdir / name
        if not trail.is_file() or not lasso.has_cycle(trail):
            continue
        stage("unrolling the cycle into a lasso", None)
        ran(["env", *(f"{key}={value}" for key, value in lasso.environment(name).items()),
             f"./{unrolling.name}", *search.args])
        try:
            lassos.append(lasso.unroll(unrolling, search.args, workdir, trail))
            continue
        except lasso.NoElement:
            pass
        own = [flag for flag in flags if flag != "-D" + SYM_MACRO]
        write_canonicaliser(workdir, group, "refine", own, lasso.LASSO_CANONICALISER)
        lasso_flags = [*flags, f'-DTOPSPIN_SYM_FILE="{lasso.LASSO_CANONICALISER}"']
        ran(toolchain.compile_command(tools, lasso_flags, "-O0", lasso.LASSO_BINARY))
        unrolling = toolchain.compile_pan(tools, lasso_flags, workdir, "-O0", lasso.LASSO_BINARY, on_warning,
                                          cache=cache)
        ran(["env", *(f"{key}={value}" for key, value in lasso.environment(name).items()),
             f"./{unrolling.name}", *search.args])
        lassos.append(lasso.unroll(unrolling, search.args, workdir, trail))
    return lassos


def _refuse_cross_check(options: VerifyOptions) -> None:
    """Before any work: a cross-check whose second run would be refused (refuse_with_symmetry)."""
    names = {panflags.define_name(define) for define in por_switched(list(options.defines))}
    if (options.strategy != "none" and panflags.breadth_first(names) and "BITSTATE" in names
            and "NOREDUCE" not in names):
        raise UsageError("--cross-check: -DBFS -DBITSTATE with symmetry reduction needs -DNOREDUCE "
                         "(its proviso compares raw states), so there is no run with partial order "
                         "reduction to compare", hint="drop --cross-check, or -DBFS or -DBITSTATE")


def _cross_check(model: Path, options: VerifyOptions, note: Callable[[str], None], reported: Result) -> PorRun:
    """The search of ``options`` once more with partial order reduction switched the other way
    (por_switched).  Same strategy, claim and pan arguments; no trail (the reported run's
    stays), no --compare.  When the reported run had none because verify turned it off (SPIN
    says it is not compatible with the model), the other run keeps it, so that the comparison
    shows what SPIN's reduction would have given."""
    defines = list(options.defines)
    other = por_switched(defines)
    if reported.por_turned_off:
        other = [define for define in defines if panflags.define_name(define) != "NOREDUCE"]
    with_por = "NOREDUCE" not in {panflags.define_name(define) for define in other}
    note(f"--cross-check: verifying again {'without' if with_por else 'with'} -DNOREDUCE")
    run = verify(model, dataclasses.replace(options, defines=tuple(other), compare=False, cross_check=False,
                                            started=None,
                                            check_symmetry=None,
                                            keep_dir=None, save_trails=False, on_progress=None,
                                            partial_on_interrupt=False, keep_por=with_por))
    return PorRun(partial_order_reduction=run.partial_order_reduction, defines=run.defines,
                  states_stored=run.states_stored, transitions=run.transitions, errors=run.errors,
                  first_error=run.error_messages[0] if run.error_messages else None,
                  complete=run.complete, incomplete_reason=run.incomplete_reason,
                  elapsed_s=run.elapsed_s, por_incompatible=list(run.por_incompatible))


_SEARCH_KINDS = {None: "safety", "acceptance": "acceptance cycles, -a",
                 "non-progress": "non-progress cycles, -l"}


def _claim_description(claim: str | None, build: PanBuild) -> str | None:
    """The claim pan reports it checked, for the user: ``ltl p1``, ``never claim never_0``,
    ``never claim never_0 (spin -N claim.pml)``."""
    if claim is None:
        return None
    if claim == ":np_:":
        return "non-progress claim (-DNP)"
    if claim in build.context.checked_ltl_names():
        return f"ltl {claim}"
    if claim in build.claims_from_file:
        shown = build.spin_options.shown
        return f"never claim {claim} (spin -N {shown[shown.index('-N') + 1]})"
    return f"never claim {claim}"


@contextlib.contextmanager
def _work_directory(keep_dir: Path | None) -> Iterator[Path]:
    """A temporary directory, or --keep DIR.  DIR must be new or empty: we never mix our files
    with the user's, nor overwrite theirs."""
    if keep_dir is None:
        with tempfile.TemporaryDirectory(prefix="topspin-") as name:
            yield Path(name)
        return
    keep_dir = Path(keep_dir).absolute()   # pan runs with it as its working directory
    try:
        if keep_dir.exists() and (not keep_dir.is_dir() or any(keep_dir.iterdir())):
            raise UsageError(f"--keep directory '{keep_dir}' exists and is not empty",
                             hint="give a new or empty directory; nothing in it is overwritten")
        keep_dir.mkdir(parents=True, exist_ok=True)
        # spin, gcc and pan write here: find out now, not from a tool's odd complaint.
        tempfile.TemporaryFile(dir=keep_dir).close()
    except OSError as err:
        raise UsageError(f"--keep directory '{keep_dir}' cannot be written: {err.strerror or err}",
                         hint="give a directory you can write to") from err
    yield keep_dir


def _result(model: Path, strategy: str, search: Search, trails: list[str], replay: str | None,
            defines: list[str], compile_flags, spin_version: str, wall_s: float) -> Result:
    report = search.report
    return Result(
        model=str(model), strategy=strategy, group_order=1,
        states_stored=_int(report.states_stored), states_matched=_int(report.states_matched),
        transitions=_int(report.transitions), atomic_steps=_int(report.atomic_steps),
        depth=report.depth or 0, errors=report.errors or 0,
        complete=search.incomplete_reason is None, incomplete_reason=search.incomplete_reason,
        approximate=panflags.approximate_storage(compile_flags) is not None,
        elapsed_s=_search_seconds(report, search.wall_s), memory_mb=report.memory_mb or 0.0,
        trail=trails[0] if trails else None, trails=trails, replay_command=replay,
        error_messages=list(report.error_lines),
        states_visited=_optional_int(report.states_visited), counts_exact=report.counts_exact,
        state_vector_bytes=report.state_vector_bytes or 0,
        hash_conflicts=_optional_int(report.hash_conflicts),
        depth_limit=panflags.depth_limit(search.args), pan_args=list(search.args),
        compile_flags=list(compile_flags), defines=list(defines), spin_version=spin_version,
        wall_s=round(wall_s, 3), unreached=list(report.unreached), pan_output=search.output,
        warnings=list(report.warnings), interrupted=search.interrupted,
        search_modes=list(report.modes),
        partial_order_reduction="Partial Order Reduction" in report.modes,
        breadth_first="Breadth-First Search" in report.modes,
        storage=report.storage or "Full statespace", hash_factor=report.hash_factor,
        bits_per_state=report.bits_per_state, nominal_states=_optional_int(report.nominal_states),
    )


def _optional_int(value: float | None) -> int | None:
    return None if value is None else _int(value)


def _int(value: float | None) -> int:
    return int(round(value)) if value is not None else 0


def _search_seconds(report: PanReport, wall_s: float) -> float:
    """pan's own elapsed time; its wall time when pan's is absurd (an early abort prints
    ``elapsed time 1.72e+07 seconds``)."""
    if report.elapsed_s is None or report.elapsed_s > wall_s + 1.0:
        return round(wall_s, 3)
    return report.elapsed_s
