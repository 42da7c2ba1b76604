"""The whole pipeline as one function: ``verify(model, options) -> Result``.

    model.pml -> promela (syntax check) -> spin -a -> the search the model asks for
              -> symmetry detection (for the claim and labels that search checks)
              -> flags -> layout, codegen, splice -> gcc -> pan (rerun on depth limit) -> Result

The stages themselves are pipeline.py's (load, spin -a, the symmetry, the canonicaliser,
gcc, pan); verify checks its options, runs them, and makes the ``Result``.  ``prepare`` is
verify's stages up to gcc (-> ``pipeline.PanBuild``), which swarm uses to build several
variants of one pan (topspin_py/swarm/build.py).

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
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from topspin_py import pipeline, strategies, symcheck
from topspin_py.errors import UsageError
from topspin_py.pan import flags as panflags
from topspin_py.pan import lasso, toolchain
from topspin_py.pan.build_cache import BuildCache
from topspin_py.pan.output import PanReport
from topspin_py.pan.progress import Progress
from topspin_py.pan.refusals import por_switched, refuse_a_claim_pan_would_not_check
from topspin_py.pan.search import Search
from topspin_py.pan.splice import SYM_MACRO
from topspin_py.pan.trails import SavedTrails, save_trails, trail_depth
from topspin_py.reduce import write_canonicaliser
from topspin_py.reporting import Reporter
from topspin_py.result import PlainRun, PorRun, Result

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


def verify(model_path: str | Path, options: VerifyOptions | None = None) -> Result:
    """Verify a Promela model with SPIN; raises TopspinError for anything that is not a verdict."""
    options = options or VerifyOptions()
    started = time.monotonic() if options.started is None else options.started
    reporter = Reporter.of(options)
    note = reporter.note
    loaded, pan = _read(model_path, options, reporter)
    model = loaded.path
    with _work_directory(options.keep_dir) as workdir:
        build = _prepare(loaded, pan, workdir, options, reporter)
        group, strategy = build.group, build.strategy
        binary, flags = pipeline.build(build, workdir, reporter, optimisation=options.optimisation)
        search = pipeline.search(build, binary, workdir, reporter, defines=options.defines,
                                 max_depth_limit=options.max_depth_limit, on_progress=options.on_progress,
                                 partial_on_interrupt=options.partial_on_interrupt)
        # pan -i/-I: the depth of the shortest error, from its trail as pan wrote it (before a
        # cycle in it is unrolled)
        first_trail = workdir / search.report.trail_files[0] if search.report.trail_files else None
        shortest = (trail_depth(first_trail) if first_trail is not None and first_trail.is_file()
                    and search.pan.iterative else None)
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
            reporter: Reporter | None = None) -> pipeline.PanBuild:
    """verify's stages up to gcc, in ``workdir``: check the options, read the model, then
    pipeline.prepare (spin -a, the search, the group and the strategy, the flags for gcc, with
    verify's refusals).  ``pipeline.build`` then makes a pan of it (swarm: several)."""
    reporter = reporter or Reporter.of(options)
    loaded, pan = _read(model_path, options, reporter)
    return _prepare(loaded, pan, workdir, options, reporter)


def _prepare(loaded: pipeline.Loaded, pan: panflags.PanOptions, workdir: Path, options: VerifyOptions,
             reporter: Reporter) -> pipeline.PanBuild:
    return pipeline.prepare(loaded, pan, workdir, reporter, strategy=options.strategy,
                            safety=options.safety, keep_por=options.keep_por, use_cache=options.use_cache)


def _read(model_path: str | Path, options: VerifyOptions,
          reporter: Reporter) -> tuple[pipeline.Loaded, panflags.PanOptions]:
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
    pan = panflags.PanOptions.parse(options.pan_args)   # pan's arguments, read once
    if (replay := pan.replay) is not None:
        # A replay runs the model's statements, whose printing (-DPRINTF, c_code) may imitate
        # a report, and ends without pan's own: nothing to read a verdict from.
        raise UsageError(f"pan {replay} replays a trail instead of searching: verify runs searches",
                         hint="replay is spin's job: spin -t -p model.pml (spin -k FILE for another trail)")
    panflags.check_pan_args(pan, defines)
    spin_options = panflags.parse_spin_args(options.spin_args)
    for define, why in panflags.defines_pan_args_need(defines, pan):
        note(f"compiling with -D{define}: {why}")
        defines.append(define)
    refuse_a_claim_pan_would_not_check(spin_options, defines)

    tools = toolchain.find_toolchain()
    for warning in tools.warnings:
        note(warning)
    reporter.stage("reading the model", None)
    return pipeline.load(tools, model, defines, spin_options, check_defines=True), pan


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


def _claim_description(claim: str | None, build: pipeline.PanBuild) -> str | None:
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
        depth_limit=search.pan.depth_limit, pan_args=list(search.args),
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
