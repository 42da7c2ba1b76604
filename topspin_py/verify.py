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
* depth limit (_search): the user's -mN is never changed: a search it cuts short is reported
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
  its names (pan/trails.py, read_report).  A report that pan's files or flags contradict (a
  trail but no errors; one process where pan was built for several) is a ToolchainError
  (check_report_is_pans), and so is a pan that stopped with an exit status other than 0 (pan
  exits with 0 after its report) or was killed by a signal, report or not.  A pan of several
  processes (-DNCORE>1, -DBFS_PAR), whose workers' output may land after pan's report, is
  refused for a model that can print (-DPRINTF, embedded C code).
* pan failures the user can fix by recompiling (out of memory, VECTORSZ too small) become
  ToolchainErrors whose hint names the flag to pass.
* --compare: a plain run too; when the verdicts differ, ``Result.disagreement`` says how and
  the exit status is 2 (result.py).
* SPIN's partial order reduction where SPIN says it is not compatible with the model (pan.c's
  "#warning p.o. reduction not compatible with remote varrefs (use -DNOREDUCE)", read from the
  preprocessor, not a compilation: _spin_por_incompatibilities): "no errors" must mean no
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
import functools
import re
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from topspin_py import strategies
from topspin_py.codegen.registry import STRATEGIES as CANONICALISERS
from topspin_py.errors import ToolchainError, UsageError
from topspin_py.pan import flags as panflags
from topspin_py.pan import lasso, symcheck, toolchain, trails
from topspin_py.pan.build_cache import BuildCache
from topspin_py.pan.claims import accept_labels
from topspin_py.pan.claims import claims_from_file as claims_from_file_of
from topspin_py.pan.output import PanReport, parse_pan_output
from topspin_py.pan.progress import Progress, ProgressWatcher
from topspin_py.pan.splice import SYM_MACRO
from topspin_py.promela import ast
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
                                         # plain pan's up to BUDGET states (pan/symcheck.py)
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
        absolute path (_replay_command names the model so too)."""
        words = [f"-D{define}" for define in self.defines]
        shown = iter(self.spin_options.shown)
        for word in shown:
            if word == "-N":
                given = next(shown)
                words += ["-N", given if _in_current_directory(self.model) else str(self.spin_options.claim_file)]
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
        search = _search(binary, build.pan_args, workdir, build.source, build.desugared or model, options,
                         reporter)
        _note_worker_trails(search.report, build.defines, note)
        check_report(build, search.report)
        # pan -i/-I: the depth of the shortest error, from its trail as pan wrote it (before a
        # cycle in it is unrolled)
        first_trail = workdir / search.report.trail_files[0] if search.report.trail_files else None
        shortest = (_trail_depth(first_trail) if first_trail is not None and first_trail.is_file()
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
        _check_claim_checked(report, build.context)
        _check_reduction_on(report, build.group)


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
    _refuse_a_claim_pan_would_not_check(spin_options, defines)

    tools = toolchain.find_toolchain()
    for warning in tools.warnings:
        note(warning)
    reporter.stage("reading the model", None)
    loaded, as_written, claim_text = toolchain.models_for_spin(tools, model, defines, spin_options)
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
                   else toolchain.claim_wrapper(model, Path(name), claim_text, claim_file))
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
    desugared = _desugared_copy(model) if source != model else None
    claim_file = spin_options.claim_file
    reporter.ran(toolchain.spin_command(tools, source, defines, claim_file, spin_options.args))
    stage("spin -a: translating the model into pan.c", None)
    spin_output = toolchain.generate_pan(tools, source, str(model) if desugared is None else str(source),
                                         defines, workdir, claim_file, spin_options.args)
    loaded = toolchain.as_checked_by(request.loaded, workdir)   # does this pan reset dead locals?
    # What the model asks pan to check, as spin -run decides it: this needs spin's ltl
    # translations, and it decides which claim and labels constrain the symmetry.
    choice = panflags.choose_search(request.pan_args, defines, accept_labels(loaded, workdir), options.safety)
    (note if choice.notable else detail)(choice.reason)
    pan_args = list(choice.pan_args)
    por_incompatible = _spin_por_incompatibilities(tools, defines, pan_args, workdir)
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
    _refuse_printing_with_several_processes(defines, loaded)
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




def _spin_por_incompatibilities(tools: toolchain.Toolchain, defines: list[str], pan_args: list[str],
                                workdir: Path) -> list[str]:
    """SPIN's own words, in the pan.c of ``workdir``, that its partial order reduction is not
    compatible with the model (flags.por_incompatibilities): the #warning and #error lines
    that the preprocessor reaches with the search's flags, -DNOREDUCE taken away (whether the
    user gave it or not, so that --cross-check can say why the verdicts differ).  One run of
    the preprocessor, not of the compiler."""
    with_por = [define for define in defines if panflags.define_name(define) != "NOREDUCE"]
    sources = [path.read_text(errors="replace") for path in workdir.glob("pan.[chbmpt]")]
    pan_h = (workdir / "pan.h").read_text(errors="replace")
    flags = panflags.choose_compile_flags(with_por, pan_args, panflags.pan_h_declares_claim(pan_h),
                                          panflags.pan_option_names(sources)).flags
    return panflags.por_incompatibilities(toolchain.preprocessor_diagnostics(tools, flags, workdir))


def _refuse_printing_with_several_processes(defines: list[str], model: Model) -> None:
    """pan's report is read from its own block at the end of its output, which a model's
    printing cannot follow (pan/output.py) -- in a pan of one process.  The workers of a pan of
    several processes print whenever they flush, so a model that can print (printf under
    -DPRINTF, embedded C code) could put a report of its own after pan's, or in place of one
    pan never printed."""
    if not panflags.several_processes(defines):
        return
    if any(panflags.define_name(define) == "PRINTF" for define in defines):
        raise UsageError("-DPRINTF with a search of several processes (-DNCORE, -DBFS_PAR) is not "
                         "supported: the model's printing and pan's report reach the output from "
                         "several processes at once, and the report could not be told from the "
                         "model's text", hint="drop -DPRINTF, or verify with one process")
    if any(isinstance(node, (ast.CCode, ast.CExpr, ast.CState))
           for unit in model.expanded.units for node in unit.walk()):
        raise UsageError("a model with embedded C code (c_code, c_expr, c_decl, ...) is not supported "
                         "with a search of several processes (-DNCORE, -DBFS_PAR): the C code may "
                         "print, and its text and pan's report reach the output from several processes "
                         "at once, so the report could not be told from it",
                         hint="verify with one process (without -DNCORE or -DBFS_PAR)")


def _note_worker_trails(report: PanReport, defines: list[str], note) -> None:
    """A multi-core pan names no trail (read_report finds it on disk): worker 0's is
    model.pml.trail, worker N's model.pml.cpuN_trail, which starts where that worker took over."""
    if (report.trail_unnamed and any(".cpu" in name for name in report.trail_files)
            and not any(panflags.define_name(d) == "FULL_TRAIL" for d in defines)):
        note("pan -DNCORE: the trail was written by a worker other than the first, and starts "
             "where that worker took over (its first state is in the .rst file beside it): "
             "spin -t cannot replay it from the initial state; -DFULL_TRAIL makes pan write "
             "the whole path")


def _unroll_lassos(binary: Path, search: _Search, workdir: Path, group: Group, flags: list[str],
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


def _por_switched(defines: list[str]) -> list[str]:
    """``defines`` with partial order reduction switched the other way: -DNOREDUCE taken away
    if given, else added."""
    without = [define for define in defines if panflags.define_name(define) != "NOREDUCE"]
    return without if len(without) < len(defines) else [*defines, "NOREDUCE"]


def _refuse_a_claim_pan_would_not_check(spin_options: panflags.SpinOptions, defines: list[str]) -> None:
    """spin's -f, -F or -N FILE adds a never claim for pan to check; -DNOCLAIM leaves every
    claim out, and -DNP (or pan -l, which adds it) checks the non-progress claim in its place:
    the claim asked for would go unchecked without a word."""
    given = (spin_options.formula_args[0] if spin_options.formula_args
             else "-N FILE" if spin_options.claim_file is not None else None)
    names = {panflags.define_name(define) for define in defines}
    for name, why in (("NOCLAIM", "leaves every claim out"),
                      ("NP", "checks pan's non-progress claim in place of the never claim")):
        if given is not None and name in names:
            raise UsageError(f"spin {given} adds a never claim for pan to check, and -D{name} {why}",
                             hint=f"drop -D{name}" + (" (and -l)" if name == "NP" else "") + f", or {given}")


def _refuse_cross_check(options: VerifyOptions) -> None:
    """Before any work: a cross-check whose second run would be refused (refuse_with_symmetry)."""
    names = {panflags.define_name(define) for define in _por_switched(list(options.defines))}
    if (options.strategy != "none" and panflags.breadth_first(names) and "BITSTATE" in names
            and "NOREDUCE" not in names):
        raise UsageError("--cross-check: -DBFS -DBITSTATE with symmetry reduction needs -DNOREDUCE "
                         "(its proviso compares raw states), so there is no run with partial order "
                         "reduction to compare", hint="drop --cross-check, or -DBFS or -DBITSTATE")


def _cross_check(model: Path, options: VerifyOptions, note: Callable[[str], None], reported: Result) -> PorRun:
    """The search of ``options`` once more with partial order reduction switched the other way
    (_por_switched).  Same strategy, claim and pan arguments; no trail (the reported run's
    stays), no --compare.  When the reported run had none because verify turned it off (SPIN
    says it is not compatible with the model), the other run keeps it, so that the comparison
    shows what SPIN's reduction would have given."""
    defines = list(options.defines)
    other = _por_switched(defines)
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


def _check_reduction_on(report: PanReport, group) -> None:
    """pan says in its report whether the canonicaliser was compiled in: a reduced run whose
    pan says otherwise was not the run we meant (a stale binary, a lost -D).  (A multi-core pan
    that stopped at an error before its report says nothing: its errors stand.)"""
    if not report.has_summary and report.errors:
        return
    if report.symmetry != "on" or report.symmetry_group_order != group.order:
        said = "nothing" if report.symmetry is None else (
            f"symmetry reduction {report.symmetry}, group order {report.symmetry_group_order}")
        raise ToolchainError(f"pan was meant to reduce by a group of order {group.order}, but its "
                             f"report says {said}", hint=_INTERNAL_HINT)


def _check_claim_checked(report: PanReport, context: Model) -> None:
    """The symmetry was found for the claims the search ``context`` keeps: pan must have
    checked one of them (or none), or the reduction may be unsound."""
    claim = report.claim
    if claim is None or claim == ":np_:":
        return   # no claim, or pan's own non-progress claim: no claim of the model checked
    kept = context.checked_claim_names()
    if claim not in kept:
        raise ToolchainError(f"pan checked the claim {claim}, but the symmetry was restricted to "
                             f"{', '.join(kept) or 'a search without a claim'}",
                             hint=_INTERNAL_HINT)


_INTERNAL_HINT = ("this is a topspin-py bug: please report the model; --strategy none verifies "
                  "without symmetry reduction")


def refuse_with_symmetry(pan_args: list[str], defines: list[str]) -> None:
    """Options whose meaning a permutation of processes would change."""
    if "-f" in pan_args:
        raise UsageError("weak fairness (-f) counts steps per process slot, which symmetry "
                         "reduction permutes: the result would be unsound",
                         hint="use --strategy none with -f")
    for define in defines:
        name = define.split("=", 1)[0]
        if name == "TRIX":
            # pan keeps each process and channel in a vector of its own, which the
            # canonicaliser (written for one state vector, `now`) does not see
            raise UsageError("-DTRIX is not supported with symmetry reduction: it keeps every "
                             "process and channel in a vector of its own, and the canonicaliser "
                             "works on the one state vector pan otherwise keeps",
                             hint="use --strategy none")
        if name == "BFS_PAR" and panflags.cycle_search(pan_args):
            raise UsageError("-DBFS_PAR with a cycle search (-a, -l) is not supported with symmetry "
                             "reduction (only its safety search is, with -DSAFETY)",
                             hint="use --safety -DSAFETY, or --strategy none")
        if name == "NCORE" and panflags.cycle_search(pan_args) and define.split("=", 1)[1:] not in ([], ["1"]):
            # pan's multi-core liveness search hands each accepting state to the next core,
            # whose nested search ends a cycle only on that very seed state (the first search's
            # stack is on another core); a reduced nested search may meet only a permutation of
            # the seed, whose canonical form it stored already, and so miss the cycle
            # (tests/models/lasso_ring.pml: plain pan -DNCORE=2 -a finds it, a reduced one not).
            raise UsageError("-DNCORE>1 with a cycle search (-a, -l) is not supported with symmetry "
                             "reduction: pan's multi-core nested search closes a cycle only on its "
                             "seed state itself, and the reduced search may reach only a permutation "
                             "of it, missing the cycle", hint="use -DNCORE=1, --safety, or --strategy none")
    names = {define.split("=", 1)[0] for define in defines}
    if "BCS" in names:
        # pan's bounded context switching keeps the running process and the switch count in
        # the search stack, not in the state: matching a canonical state drops paths that
        # reach the state's orbit with other counts, and errors within the bound go unseen
        # (lock3 with -DBCS -L1: plain pan finds the assertion violation, a reduced pan none).
        raise UsageError("-DBCS (bounded context switching) is not supported with symmetry "
                         "reduction: the bound counts switches between process slots along the "
                         "search path, which canonical states merge, so errors within the bound "
                         "could be missed", hint="use --strategy none")
    if panflags.breadth_first(defines) and "BITSTATE" in names and "NOREDUCE" not in names:
        raise UsageError("-DBFS -DBITSTATE with partial order reduction compares raw states, "
                         "not their canonical forms", hint="add -DNOREDUCE")


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


@dataclass(frozen=True)
class _Search:
    """The pan run whose report we give the user."""

    report: PanReport
    output: str
    args: list[str]
    wall_s: float
    incomplete_reason: str | None   # None: the search is complete
    interrupted: bool = False       # Ctrl-C: the report holds pan's statistics so far


_INTERRUPTED = "interrupted: the counts are pan's statistics when it stopped"


def _search(binary: Path, pan_args: list[str], workdir: Path, source: Path, shown: Path,
            options: VerifyOptions, reporter: Reporter) -> _Search:
    """Run pan under the depth-limit policy (module doc, "depth limit").

    spin -run runs pan once, with pan's default -m10000, and leaves a search cut short by it
    to the user.  We do the same when the user chose the limit (-mN, or -b which makes the
    limit an error), and our first run is always that one, so that an error it finds is the
    one reported, with its trail.  When that run reached the limit without finding an error,
    the limit grows 10x at a time up to ``max_depth_limit``, without multiplying the run
    time: a run that may be thrown away is a probe with -b, which pan stops the moment it
    reaches the limit, so besides the first run only the reported one searches in full."""
    def attempt(args: list[str], deeper_than_default: bool = False) -> tuple[_Search, bool]:
        """One run of pan; the second value: pan ran out of memory with a depth limit we
        raised (``deeper_than_default``), which is not an error: a smaller one may fit."""
        # a trail must come from the run we report (a multi-core pan's workers write
        # model.pml.cpuN_trail and .cpuN_rst or .rst files too)
        for pattern in ("*.trail", "*.cpu*_trail", "*.rst", "*_rst"):
            for stale in workdir.glob(pattern):
                stale.unlink()
        reporter.ran(["./pan", *args])
        watcher = ProgressWatcher(options.on_progress) if options.on_progress else None
        run = toolchain.run_pan(binary, args, workdir, watcher.feed if watcher else None,
                                functools.partial(reporter.stage, "pan: searching"))
        # pan names the model by the absolute path spin was given; show the user's path (for
        # a desugared model, that of the desugared copy the trails are replayed with).
        output = run.output.replace(str(source.resolve()), str(shown))
        report = read_report(output, workdir, source.name, args)
        if run.interrupted:
            if not options.partial_on_interrupt or not report.has_summary:
                raise KeyboardInterrupt   # (pan died before it could report: nothing to show)
            # (pan may have finished just before the signal: then its report is complete)
            reason = (_INTERRUPTED if report.interrupted
                      else _incomplete_reason(report, args, "cap", options.max_depth_limit))
            raise _Interrupted(_Search(report, output, args, run.wall_s, reason, interrupted=True))
        if report.out_of_memory and deeper_than_default:
            return _Search(report, output, args, run.wall_s, None), True
        _raise_on_pan_failure(run.returncode, output, report, args)
        check_report_is_pans(report, options.defines)
        return _Search(report, output, args, run.wall_s, None), False

    try:
        return _depth_policy(attempt, pan_args, options, reporter.note)
    except _Interrupted as stopped:   # Ctrl-C: pan's statistics so far are the outcome
        return stopped.search


class _Interrupted(Exception):
    """Ctrl-C stopped a run of pan, whose partial report is the outcome (partial_on_interrupt)."""

    def __init__(self, search: _Search):
        super().__init__("interrupted")
        self.search = search


def _depth_policy(attempt, pan_args: list[str], options: VerifyOptions, note) -> _Search:
    """The runs of pan the depth-limit policy asks for (_search's doc), by ``attempt``."""
    def reported(search: _Search, reason: str | None, args: list[str] | None = None) -> _Search:
        return dataclasses.replace(search, args=search.args if args is None else args,
                                   incomplete_reason=reason)

    if panflags.explicit_depth_limit(pan_args) is not None or panflags.depth_limit_is_an_error(pan_args):
        search, _ = attempt(list(pan_args))
        return reported(search, _incomplete_reason(search.report, pan_args, "yours"))
    limit = panflags.DEFAULT_DEPTH_LIMIT
    cap = max(options.max_depth_limit, limit)
    args = list(pan_args)   # pan's default limit: as spin -run runs it
    first, _ = attempt(args)
    report = first.report
    if not report.depth_limit_hit or report.errors or limit >= cap:
        return reported(first, _incomplete_reason(report, args, "errors" if report.errors else "cap", cap))
    previous_limit, limit = limit, min(limit * 10, cap)
    note(f"pan: depth limit -m{previous_limit} too small (search incomplete, no error found); "
         f"rerunning with -m{limit}")
    stops_at_first_error = panflags.stops_at_first_error(pan_args)
    probe_base = panflags.stopping_at_first_error(pan_args)
    while limit < cap:
        args = panflags.with_depth_limit(probe_base, limit)
        probe, out_of_memory = attempt(args + ["-b"], limit > previous_limit)
        if out_of_memory:
            return _out_of_memory_fallback(attempt, first, pan_args, limit, previous_limit, cap)
        if not _stopped_by_depth_limit(probe.report):
            if stops_at_first_error:
                # Done: -b made no difference to a run that never reached the limit, so this
                # report is the one pan gives without it (or stopped at a real error).
                return reported(probe, _incomplete_reason(probe.report, args, "cap", cap), args)
            break
        previous_limit, limit = limit, min(limit * 10, cap)
        note(f"pan: depth limit -m{previous_limit} too small (search incomplete); rerunning with -m{limit}")
    args = panflags.with_depth_limit(pan_args, limit)
    search, out_of_memory = attempt(args, limit > previous_limit)
    if out_of_memory:
        return _out_of_memory_fallback(attempt, first, pan_args, limit, previous_limit, cap)
    why = "errors" if search.report.errors else "cap"
    return reported(search, _incomplete_reason(search.report, args, why, cap))


def _out_of_memory_fallback(attempt, first: _Search, pan_args: list[str], limit: int,
                            previous_limit: int, cap: int) -> _Search:
    """The deeper stack did not fit: the search at the last limit that did, cut short by it,
    is the best answer we have (the first run's, when that was at it)."""
    args = panflags.with_depth_limit(pan_args, previous_limit)
    search = first if first.args == args else attempt(args)[0]
    reason = _incomplete_reason(search.report, args, "errors" if search.report.errors else "cap", cap)
    if search.report.depth_limit_hit:
        reason = (f"the depth limit -m{previous_limit} was too small, and pan ran out of memory "
                  f"with -m{limit}")
    return dataclasses.replace(search, incomplete_reason=reason)


def _stopped_by_depth_limit(report: PanReport) -> bool:
    """A probe run with -b stopped because it reached the depth limit (not at a real error)."""
    return report.depth_limit_hit and any("depth limit reached" in line for line in report.error_lines)


def _incomplete_reason(report: PanReport, args: list[str], limit_from: str,
                       cap: int | None = None) -> str | None:
    """Why the search is incomplete, in words the user can act on; None: it is complete.
    ``limit_from``: "yours" (-m or -b given), "cap" (grown as far as allowed), "errors" (not
    grown: pan had found errors, which a deeper run must not replace)."""
    limit = panflags.depth_limit(args)
    if report.depth_limit_hit and panflags.depth_limit_is_an_error(args):
        return f"pan reached the depth limit -m{limit}, an error under -b"
    if report.depth_limit_hit and limit_from == "yours":
        return f"the depth limit -m{limit} was too small (given with -m; a larger -mN searches deeper)"
    if report.depth_limit_hit and limit_from == "errors":
        return (f"the depth limit -m{limit} was too small; not rerun deeper, to keep the errors "
                f"found (pass a larger -mN for a complete search)")
    if report.depth_limit_hit:
        return (f"the depth limit -m{limit} was too small (reruns stop at -m{cap}); "
                f"pass a larger one with -mN")
    if report.time_limit_hit:
        return "pan's time limit (-Q) was reached"
    counts = [arg for arg in args if arg.startswith("-c") and arg[2:].isdigit()]
    if report.stopped_early and report.errors and counts and counts[-1] != "-c1":
        return f"pan stopped at error {counts[-1][2:]} ({counts[-1]}; -c0 searches on past every error)"
    if report.stopped_early and report.errors:
        return "pan stopped at the first error (-c0 searches on past errors)"
    if report.stopped_early:
        return "pan stopped before exploring every state"
    return None


def _raise_on_pan_failure(returncode: int, output: str, report: PanReport, args: list[str]) -> None:
    """Turn the ways pan can fail (rather than give a verdict) into errors that say what to do."""
    if returncode < 0:
        # even after a report: a pan that died before printing its own may leave the model's
        # imitation of one last in its output (pan/output.py)
        raise ToolchainError(f"pan was killed by signal {-returncode}", detail=output.strip()[-2000:] or None)
    if returncode > 0 and report.has_summary:
        # pan exits with status 0 after its report (wrapup()); it stops with another status
        # only before one (pan_exit(1): "too many processes", a canonicaliser's refusal, ...),
        # so the report at the end of its output is the model's imitation
        raise ToolchainError(f"pan stopped with exit status {returncode} before its report; the report-like "
                             "text in its output is not pan's", detail=output.strip()[-2000:] or None)
    if report.vectorsz_needed is not None:
        suggested = (report.vectorsz_needed // 1024 + 1) * 1024
        raise ToolchainError(
            f"the state vector needs more than VECTORSZ bytes (pan: at least {report.vectorsz_needed})",
            hint=f"pass -DVECTORSZ={suggested} (any value >= {report.vectorsz_needed} works)")
    if report.out_of_memory:
        raise ToolchainError(
            "pan ran out of memory", detail="\n".join(report.memory_lines),
            hint="raise the limit with -DMEMLIM=<MB> if it is set too low, or compress states "
                 "with -DCOLLAPSE (exact) or -DHC4 / -DBITSTATE (approximate); a smaller hash "
                 "table (--pan -w20) also saves memory")
    if not report.has_summary and not report.errors:
        output = output.strip()
        raise UsageError(f"pan did not run a search (arguments: {shlex.join(args) or 'none'})",
                         detail="\n".join(output.splitlines()[:8]) or None,
                         hint="check the --pan arguments; pan's own list is `./pan -?` "
                              "(use --keep DIR to get the binary)")


def read_report(output: str, workdir: Path, model_name: str, pan_args: list[str]) -> PanReport:
    """pan's report (pan/output.py), its trails kept where they are pan's files in ``workdir``
    (pan/trails.py; ``model_name``: the base name of the model spin was given).  A multi-core
    pan whose worker met an error may stop before its first process prints the report: the
    trail it wrote is the evidence of the error, whose count is then unknown (one at least)."""
    report = parse_pan_output(output)
    report.trail_files = trails.written(report, workdir, model_name, pan_args)
    if not report.has_summary and report.trail_files:
        report.errors = max(len(report.error_lines), 1)
        report.stopped_early = True
    return report


def check_report_is_pans(report: PanReport, defines) -> None:
    """What the flags and pan's files say must agree with the report read as pan's, or pan's
    report cannot be told from text the model printed (ToolchainError)."""
    if not report.has_summary:
        return
    several = panflags.several_processes(defines) or report.several_processes
    if several and report.version_lines_before:
        # (the refusal in _translate keeps printing models away from such a pan)
        raise ToolchainError("pan searched with several processes, and its output has more than one "
                             "line that starts a report ('(Spin Version ...'): its workers' output may "
                             "land anywhere, so pan's report cannot be told from the others",
                             hint="verify with one process (without -DNCORE or -DBFS_PAR)")
    if several and not report.several_processes:
        raise ToolchainError("pan was built to search with several processes (-DNCORE, -DBFS_PAR), but "
                             "the report at the end of its output says it used one: it is not pan's",
                             hint="verify with one process (without -DNCORE or -DBFS_PAR)")
    if report.trail_files and not report.errors:
        raise ToolchainError(f"pan wrote the trail {report.trail_files[0]}, which it does only for an "
                             "error, but the report at the end of its output says there were none",
                             hint="--keep DIR keeps pan's output (pan.out) and the files it wrote")


@dataclass(frozen=True)
class SavedTrails:
    """The trails of the reported run, where the user finds them."""

    paths: list[Path]            # beside the model (pan's names), or where they went instead
    replay: str | None           # the spin command that replays the first one
    notes: list[str]             # a previous trail replaced; a trail that could not go beside the model


def _desugared_copy(model: Path) -> Path:
    """Where verify leaves the desugared program of a model that uses the ref/public extension,
    beside the model, as the trails: pan's report names its lines, and ``spin -t`` must replay
    the trails on the program pan was built from."""
    return model.with_name(model.stem + ".desugared.pml")


def save_trails(report: PanReport, workdir: Path, model: Path, keep_dir: Path | None,
                 spin_args: list[str], desugared: tuple[Path, Path] | None = None) -> SavedTrails:
    """Copy the trails pan wrote to beside the model under pan's own names, replacing older
    ones as pan does (``m.pml.trail``; ``m.pml1.trail``, ... after it under -e or -cN; pan -i
    and -I rewrite the one ``m.pml.trail``, the shortest being the last).  Where the model's
    directory cannot be written, the trail stays in --keep DIR, or goes to a directory of its
    own under the system's temporary directory; ``spin -k FILE`` replays it from there."""
    paths: list[Path] = []
    notes: list[str] = []
    replay = None
    program = model   # what spin replays the trails on
    if desugared is not None:
        # The model uses the ref/public extension: pan's report names lines of the desugared
        # program, and spin replays the trail on it (given with the trail's name, -k, since the
        # trail is named after the model): it goes beside the model, as the trails do.
        source, program = desugared
        try:
            shutil.copyfile(source, program)
        except OSError as err:
            program = _keep_elsewhere(source, keep_dir) or source
            notes.append(f"could not write {desugared[1]} ({err.strerror or err}); the desugared "
                         f"program is {program}")
    for name in dict.fromkeys(report.trail_files):   # pan -i names the same file each time
        source = workdir / name
        if not source.is_file():
            continue
        target = model.with_name(Path(name).name)
        existed = target.exists()
        try:
            shutil.copyfile(source, target)
        except OSError as err:
            moved = _keep_elsewhere(source, keep_dir)
            notes.append(f"could not write {target} ({err.strerror or err}); "
                         + (f"the trail is in {moved}" if moved else "the trail is lost"))
            if moved is not None:
                paths.append(moved)
                replay = replay or _replay_command(program, spin_args, ["-k", str(moved)])
            continue
        if existed:
            notes.append(f"replaced the previous {target}")
        paths.append(target)
        flag = _trail_flag(model, name)
        # spin -t finds model.pml.trail and model.pmlN.trail; another name (a -DBFS_PAR pan's
        # model.pml_pan_PID.trail) is given with -k
        flags = [flag] if program == model and flag is not None else ["-k", str(target)]
        replay = replay or _replay_command(program, spin_args, flags)
    stale = model.with_name(model.name + ".trail")
    if stale.exists() and not any(Path(name).name == stale.name for name in report.trail_files):
        # pan leaves it too, and spin -t would replay it: say it is not this run's.
        written = "wrote no trail" if not report.trail_files else "wrote other trails"
        notes.append(f"{stale} is an earlier run's: this run {written}")
    return SavedTrails(paths, replay, notes)


def _keep_elsewhere(source: Path, keep_dir: Path | None) -> Path | None:
    if keep_dir is not None:
        return source   # already in --keep DIR, which is kept
    try:
        directory = Path(tempfile.mkdtemp(prefix="topspin-trail-"))
        return Path(shutil.copy(source, directory / source.name))
    except OSError:
        return None


def _trail_flag(model: Path, pan_name: str) -> str | None:
    """spin's flag for the trail pan named ``pan_name``: -t for m.pml.trail, -tN for
    m.pmlN.trail; None for any other name."""
    match = re.fullmatch(re.escape(model.name) + r"(\d*)\.trail", Path(pan_name).name)
    if match is None:
        return None
    return f"-t{match.group(1)}" if match.group(1) else "-t"


def _replay_command(model: Path, spin_args: list[str], trail_flags: list[str]) -> str:
    """``spin [-DN=3 ...] [-f formula | -N FILE] -t -p model``: the options that shape the model
    and its claim, as the search had them, then the trail.  With -f, -F or -N, spin writes
    MODEL.nvr beside the model and includes the model from it by the name it was given, which
    only works from the model's own directory or for an absolute name: the model is named by
    its absolute path unless it is in the current directory."""
    adds_claim = any(word in ("-f", "-F", "-N") for word in spin_args)
    shown = model if not adds_claim or _in_current_directory(model) else model.resolve()
    return shlex.join(["spin", *spin_args, *trail_flags, "-p", str(shown)])


def _in_current_directory(path: Path) -> bool:
    return path.parent.resolve() == Path.cwd().resolve()


def _trail_depth(trail: Path) -> int | None:
    """The depth of the error a trail records: its step lines (``step:pid:transition``) count
    the states from depth 0, so one more than the depth pan reports with the error."""
    try:
        steps = sum(1 for line in trail.read_text(errors="replace").splitlines()
                    if line[:1].isdigit())
    except OSError:
        return None
    return steps - 1 if steps else None


def _result(model: Path, strategy: str, search: _Search, trails: list[str], replay: str | None,
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
