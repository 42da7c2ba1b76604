"""The whole pipeline as one function: ``verify(model, options) -> Result``.

    model.pml -> promela (syntax check) -> spin -a -> the search the model asks for
              -> symmetry detection (for the claim and labels that search checks)
              -> flags -> layout, codegen, splice -> gcc -> pan (rerun on depth limit) -> Result

Policies decided here (each documented where it is applied):

* the search: what the model asks for, with spin -run's defaults (pan.flags.choose_search):
  an accept label anywhere (an ltl formula's translation included) adds pan -a, -DNP adds -l,
  unless the user chose (--pan -a/-l, --safety, -DSAFETY, -DBFS, -DNOCLAIM).  The Result says
  which claim pan checked and how, and carries pan's warnings.
* depth limit: when pan says ``max search depth too small`` we rerun with a 10x larger -m, up
  to ``VerifyOptions.max_depth_limit``; a search still cut short is reported ``complete: false``.
* trails: pan's trail is copied next to the model, as SPIN itself leaves it, but an existing
  file is never overwritten unless ``force``: the trail then goes to the first free
  ``model.pmlN.trail``, the name ``spin -tN`` reads.
* pan failures the user can fix by recompiling (out of memory, VECTORSZ too small) become
  ToolchainErrors whose hint names the flag to pass.
* --compare: a plain run too; when the verdicts differ, ``Result.disagreement`` says how and
  the exit status is 2 (result.py).
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
from typing import Callable, Iterator

from topspin_py.codegen.render import STRATEGIES as CANONICALISERS
from topspin_py.errors import ToolchainError, UsageError
from topspin_py.pan import flags as panflags
from topspin_py.pan import toolchain
from topspin_py.pan.claims import accept_labels
from topspin_py.pan.output import PanReport, parse_pan_output
from topspin_py.pan.progress import Progress, ProgressWatcher
from topspin_py.pan.splice import SYM_MACRO
from topspin_py.promela import load_model
from topspin_py.promela.model import Model
from topspin_py.reduce import GENERATED_C, choose_strategy, defines_the_reduction_needs, reduce_in
from topspin_py.result import PlainRun, Result, replay_command
from topspin_py.symmetry.detect import detect

# "auto" picks the fastest exact strategy the group allows (reduce.choose_strategy).
STRATEGIES = ("auto", *CANONICALISERS, "none")
DEFAULT_MAX_DEPTH_LIMIT = 10_000_000   # -m10^7: a DFS stack of about 460 MB


@dataclass
class VerifyOptions:
    strategy: str = "auto"
    defines: tuple[str, ...] = ()        # NAME or NAME=VALUE, for spin's cpp and for gcc
    pan_args: tuple[str, ...] = ()       # run-time arguments of pan, e.g. ("-m100000", "-c0")
    keep_dir: Path | None = None         # keep pan.c, pan.h, the binary and pan's output here
    force: bool = False                  # overwrite an existing trail file next to the model
    save_trails: bool = True             # copy pan's trail next to the model (regress does not)
    max_depth_limit: int = DEFAULT_MAX_DEPTH_LIMIT
    on_progress: Callable[[Progress], None] | None = None   # pan's periodic progress reports
    on_note: Callable[[str], None] | None = None     # things the user should know (reruns, warnings)
    on_detail: Callable[[str], None] | None = None   # --verbose: the exact commands and decisions
    on_stage: Callable[[str, int | None], None] | None = None   # a stage starts: its name, and
                                                               # pan's pid for the pan stage
    compare: bool = False                # also run plain SPIN and report the reduction
    safety: bool = False                 # a safety search even if the model has accept labels
    optimisation: str = "-O2"            # gcc's -O level for pan.c
    partial_on_interrupt: bool = False   # Ctrl-C during pan: return its statistics so far as an
                                         # interrupted Result, not KeyboardInterrupt (the CLI)


def verify(model_path: str | Path, options: VerifyOptions | None = None) -> Result:
    """Verify a Promela model with SPIN; raises TopspinError for anything that is not a verdict."""
    options = options or VerifyOptions()
    started = time.monotonic()
    note = options.on_note or (lambda text: None)
    detail = options.on_detail or (lambda text: None)
    stage: Callable[[str, int | None], None] = options.on_stage or (lambda name, pid: None)
    commands: list[str] = []   # what we ran, for --verbose and for --keep's commands.txt

    def ran(command: list[str]) -> None:
        commands.append(shlex.join(command))
        detail("$ " + commands[-1])

    if options.strategy not in STRATEGIES:
        raise UsageError(f"unknown strategy '{options.strategy}'",
                         hint=f"available: {', '.join(STRATEGIES)}")
    if options.optimisation not in toolchain.OPTIMISATION_LEVELS:
        raise UsageError(f"unknown optimisation level '{options.optimisation}'",
                         hint=f"one of {', '.join(toolchain.OPTIMISATION_LEVELS)}")
    model = Path(model_path)
    if not model.is_file():
        raise UsageError(f"model file not found: {model}")
    defines = [panflags.parse_define(define) for define in options.defines]
    pan_args = list(options.pan_args)

    stage("reading the model", None)
    loaded = _load_model(model, defines)
    tools = toolchain.find_toolchain()
    for warning in tools.warnings:
        note(warning)

    with _work_directory(options.keep_dir) as workdir:
        ran(toolchain.spin_command(tools, model, defines))
        stage("spin -a: translating the model into pan.c", None)
        spin_output = toolchain.generate_pan(tools, model, str(model), defines, workdir)
        # What the model asks pan to check, as spin -run decides it: this needs spin's ltl
        # translations, and it decides which claim and labels constrain the symmetry.
        choice = panflags.choose_search(pan_args, defines, accept_labels(loaded, workdir), options.safety)
        (note if choice.notable else detail)(choice.reason)
        pan_args = list(choice.pan_args)
        group = None
        strategy = "none"
        symmetry_notes: list[str] = []   # why the group is smaller than it looks (the summary)
        searched = model_as_searched(loaded, defines, pan_args)
        if options.strategy != "none":
            refuse_with_symmetry(pan_args, defines)
            stage("finding the symmetry", None)
            # Only the claim pan checks constrains the symmetry (-N name, -DNOCLAIM), and
            # accept or progress labels only a cycle search.
            group = detect(searched)
            symmetry_notes += group.reasons
            # One line per reason, with every permutation it rules out.
            left_out: dict[str, list[str]] = {}
            for alpha, rejection in (*group.rejected, *group.left_out):
                left_out.setdefault(str(rejection), []).append(group.cycles(alpha))
            symmetry_notes += [f"not permuted {', '.join(cycles)}: {reason}"
                               for reason, cycles in left_out.items()]
            for reason in symmetry_notes:   # the summary shows them too: stderr with --verbose
                detail(f"symmetry: {reason}")
            strategy = choose_strategy(options.strategy, group)
            if strategy != "none":
                needed = defines_the_reduction_needs(loaded, defines)
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
        detail(compile_flags.safety_reason)
        if compile_flags.model_only:
            detail("for the model only (pan's sources do not test them): "
                   + " ".join(f"-D{define}" for define in compile_flags.model_only))
        flags = list(compile_flags.flags)
        if strategy != "none":
            assert group is not None  # a strategy other than none is only chosen for a group
            reduce_in(workdir, loaded, group, strategy, flags)
            flags.append("-D" + SYM_MACRO)
            detail(f"symmetry: group of order {group.order}, strategy {strategy} "
                   f"({CANONICALISERS[strategy].exactness}), canonicaliser in {GENERATED_C}")
        ran(toolchain.compile_command(tools, flags, options.optimisation))
        stage(f"gcc {options.optimisation}: compiling pan.c", None)
        binary = toolchain.compile_pan(tools, flags, workdir, options.optimisation)

        search = _search(binary, pan_args, workdir, model, options, note, ran)
        if strategy != "none":
            _check_claim_checked(search.report, loaded, searched)
            _check_reduction_on(search.report, group)
        trails = _save_trails(search.report, workdir, model, options.force) if options.save_trails else []
        if options.keep_dir is not None:
            (workdir / "spin.out").write_text(spin_output)
            (workdir / "pan.out").write_text(search.output)
            (workdir / "commands.txt").write_text("\n".join(commands) + "\n")

    replay = replay_command(str(model), defines, trails[0][1]) if trails else None
    result = _result(model, strategy, search, [str(path) for path, _ in trails], replay,
                     defines, flags, tools.spin_version, time.monotonic() - started)
    result.group_order = group.order if group is not None and strategy != "none" else 1
    result.symmetry_notes = symmetry_notes
    result.exact = strategy == "none" or CANONICALISERS[strategy].exactness == "exact"
    result.claim = _claim_description(search.report.claim, loaded)
    result.search = _SEARCH_KINDS[search.report.cycle_search]
    if options.compare and strategy != "none" and not result.interrupted:
        note("running plain SPIN (--strategy none) for the comparison")
        try:
            plain = verify(model, dataclasses.replace(options, strategy="none", compare=False, keep_dir=None,
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
    return result


_SEARCH_KINDS = {None: "safety", "acceptance": "acceptance cycles, -a",
                 "non-progress": "non-progress cycles, -l"}


def _claim_description(claim: str | None, model: Model) -> str | None:
    """The claim pan reports it checked, for the user: ``ltl p1``, ``never claim never_0``."""
    if claim is None:
        return None
    if claim == ":np_:":
        return "non-progress claim (-DNP)"
    return f"ltl {claim}" if claim in _ltl_names(model) else f"never claim {claim}"


def _ltl_names(model: Model) -> list[str]:
    """The ltl formulas' names as spin gives them: an unnamed one is ltl_0, ltl_1, ..."""
    names, unnamed = [], 0
    for unit in model.ltl:
        if unit.name is None:
            names.append(f"ltl_{unnamed}")
            unnamed += 1
        else:
            names.append(unit.name)
    return names


def _check_reduction_on(report: PanReport, group) -> None:
    """pan says in its report whether the canonicaliser was compiled in: a reduced run whose
    pan says otherwise was not the run we meant (a stale binary, a lost -D)."""
    if report.symmetry != "on" or report.symmetry_group_order != group.order:
        said = "nothing" if report.symmetry is None else (
            f"symmetry reduction {report.symmetry}, group order {report.symmetry_group_order}")
        raise ToolchainError(f"pan was meant to reduce by a group of order {group.order}, but its "
                             f"report says {said}", hint=_INTERNAL_HINT)


def _check_claim_checked(report: PanReport, model: Model, searched: Model) -> None:
    """The symmetry was restricted to the claims ``searched`` keeps of ``model``'s: pan must
    have checked one of them, or the reduction may be unsound.  A never claim's name is not in
    our AST: any kept never claim stands for a claim pan names that is no ltl formula."""
    claim = report.claim
    if claim is None or claim == ":np_:":
        return   # no claim, or pan's own non-progress claim: no claim of the model checked
    if len(searched.ltl) == len(model.ltl) and len(searched.never_claims) == len(model.never_claims):
        return   # every claim kept
    names = _ltl_names(model)
    if claim in names:
        kept = {id(unit) for unit in searched.ltl}
        checked_is_kept = any(id(unit) in kept for unit, name in zip(model.ltl, names) if name == claim)
    else:
        checked_is_kept = bool(searched.never_claims)
    if not checked_is_kept:
        kept_names = [n for u, n in zip(model.ltl, names) if any(u is k for k in searched.ltl)]
        kept_names += ["a never claim"] * bool(searched.never_claims)
        raise ToolchainError(f"pan checked the claim {claim}, but the symmetry was restricted to "
                             f"{', '.join(kept_names) or 'a search without a claim'}",
                             hint=_INTERNAL_HINT)


_INTERNAL_HINT = ("this is a topspin-py bug: please report the model; --strategy none verifies "
                  "without symmetry reduction")


def model_as_searched(model: Model, defines: list[str], pan_args: list[str]) -> Model:
    """The model as the search sees it, for detection: only the claim pan checks (-N name,
    -DNOCLAIM), and no accept or progress labels unless pan looks for cycles."""
    searched = model.keeping_claim(panflags.claim_in_force(defines, pan_args))
    if any(panflags.define_name(d.removeprefix("-D")) == "BFS" for d in defines):
        searched = searched.for_breadth_first_search()
    return searched if panflags.cycle_search(pan_args) else searched.for_safety_search()


def refuse_with_symmetry(pan_args: list[str], defines: list[str]) -> None:
    """Options whose meaning a permutation of processes would change."""
    if "-f" in pan_args:
        raise UsageError("weak fairness (-f) counts steps per process slot, which symmetry "
                         "reduction permutes: the result would be unsound",
                         hint="use --strategy none with -f")
    for define in defines:
        name = define.split("=", 1)[0]
        if name in ("BFS_PAR", "TRIX") or (name == "NCORE" and define.split("=", 1)[1:] not in ([], ["1"])):
            raise UsageError(f"-D{name} is not supported with symmetry reduction",
                             hint="use --strategy none")
    names = {define.split("=", 1)[0] for define in defines}
    if {"BFS", "BITSTATE"} <= names and "NOREDUCE" not in names:
        raise UsageError("-DBFS -DBITSTATE with partial order reduction compares raw states, "
                         "not their canonical forms", hint="add -DNOREDUCE")


def _load_model(model: Path, defines: list[str]):
    """Parse the model with our own front end, so syntax errors point into the user's file.
    The Model feeds the symmetry stage (not used yet with --strategy none)."""
    return load_model(model, defines=tuple(defines))


@contextlib.contextmanager
def _work_directory(keep_dir: Path | None) -> Iterator[Path]:
    """A temporary directory, or --keep DIR.  DIR must be new or empty: we never mix our files
    with the user's, nor overwrite theirs."""
    if keep_dir is None:
        with tempfile.TemporaryDirectory(prefix="topspin-") as name:
            yield Path(name)
        return
    keep_dir = Path(keep_dir).absolute()   # pan runs with it as its working directory
    if keep_dir.exists() and (not keep_dir.is_dir() or any(keep_dir.iterdir())):
        raise UsageError(f"--keep directory '{keep_dir}' exists and is not empty",
                         hint="give a new or empty directory; nothing in it is overwritten")
    keep_dir.mkdir(parents=True, exist_ok=True)
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


def _search(binary: Path, pan_args: list[str], workdir: Path, model: Path,
            options: VerifyOptions, note, ran) -> _Search:
    """Run pan; rerun with a 10x deeper -m while the depth limit cuts the search short
    (unless the user's -b makes that limit an error, or the cap is reached)."""
    limit = panflags.depth_limit(pan_args)
    args = list(pan_args)
    previous: _Search | None = None
    while True:
        for stale in workdir.glob("*.trail"):   # a trail must come from the run we report
            stale.unlink()
        ran(["./pan", *args])
        watcher = ProgressWatcher(options.on_progress) if options.on_progress else None
        run = toolchain.run_pan(binary, args, workdir, watcher.feed if watcher else None,
                                functools.partial(options.on_stage, "pan: searching")
                                if options.on_stage else None)
        # pan names the model by the absolute path spin was given; show the user's path.
        output = run.output.replace(str(model.resolve()), str(model))
        report = parse_pan_output(output)
        if run.interrupted:
            if not options.partial_on_interrupt or not report.has_summary:
                raise KeyboardInterrupt   # (pan died before it could report: nothing to show)
            # (pan may have finished just before the signal: then its report is complete)
            reason = _INTERRUPTED if report.interrupted else _incomplete_reason(report, args, options)
            return _Search(report, output, args, run.wall_s, reason, interrupted=True)
        if previous is not None and report.out_of_memory:
            # The deeper stack did not fit: the truncated search is the best answer we have.
            return _Search(previous.report, previous.output, previous.args, previous.wall_s,
                           f"the depth limit -m{panflags.depth_limit(previous.args)} was too small, "
                           f"and pan ran out of memory with -m{limit}")
        _raise_on_pan_failure(run.returncode, output, report, args)
        outcome = _Search(report, output, args, run.wall_s,
                          _incomplete_reason(report, args, options))
        deeper = min(limit * 10, options.max_depth_limit)
        if (not report.depth_limit_hit or panflags.depth_limit_is_an_error(args)
                or deeper <= limit):
            return outcome
        note(f"pan: depth limit -m{limit} too small (search incomplete); rerunning with -m{deeper}")
        previous = outcome
        limit = deeper
        args = panflags.with_depth_limit(pan_args, limit)


def _incomplete_reason(report: PanReport, args: list[str], options: VerifyOptions) -> str | None:
    limit = panflags.depth_limit(args)
    if report.depth_limit_hit and panflags.depth_limit_is_an_error(args):
        return f"pan reached the depth limit -m{limit}, an error under -b"
    if report.depth_limit_hit:
        return (f"the depth limit -m{limit} was too small (reruns stop at -m{options.max_depth_limit}); "
                f"pass a larger one with --pan -mN")
    if report.time_limit_hit:
        return "pan's time limit (-Q) was reached"
    if report.stopped_early and report.errors:
        return "pan stopped at the first error (--pan -c0 searches on past errors)"
    if report.stopped_early:
        return "pan stopped before exploring every state"
    return None


def _raise_on_pan_failure(returncode: int, output: str, report: PanReport, args: list[str]) -> None:
    """Turn the ways pan can fail (rather than give a verdict) into errors that say what to do."""
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
    if not report.has_summary:
        output = output.strip()
        if returncode < 0:
            raise ToolchainError(f"pan was killed by signal {-returncode}",
                                 detail=output[-2000:] or None)
        raise UsageError(f"pan did not run a search (arguments: {shlex.join(args) or 'none'})",
                         detail="\n".join(output.splitlines()[:8]) or None,
                         hint="check the --pan arguments; pan's own list is `./pan -?` "
                              "(use --keep DIR to get the binary)")


def _save_trails(report: PanReport, workdir: Path, model: Path, force: bool) -> list[tuple[Path, int | None]]:
    """Copy each trail pan wrote to beside the model; returns (path, N for ``spin -tN``)."""
    saved: list[tuple[Path, int | None]] = []
    taken: set[Path] = set()
    for name in report.trail_files:
        source = workdir / name
        if not source.is_file():
            continue
        target, number = _trail_target(model, name, force, taken)
        taken.add(target)
        try:
            shutil.copyfile(source, target)
        except OSError as err:
            raise ToolchainError(f"cannot write the trail file {target}: {err}",
                                 hint="--keep DIR keeps the trail in DIR instead") from err
        saved.append((target, number))
    return saved


def _trail_target(model: Path, pan_name: str, force: bool, taken: set[Path]) -> tuple[Path, int | None]:
    """Where a trail goes: pan's own name next to the model (``m.pml.trail``, or ``m.pml3.trail``
    from -e/-cN) if free or ``force``; else the first free ``m.pmlN.trail``.  Both are what
    ``spin -t`` / ``spin -tN`` read."""
    match = re.fullmatch(re.escape(model.name) + r"(\d*)\.trail", pan_name)
    number = int(match.group(1)) if match and match.group(1) else None
    preferred = model.with_name(pan_name)
    if preferred not in taken and (force or not preferred.exists()):
        return preferred, number
    number = 1
    while True:
        candidate = model.with_name(f"{model.name}{number}.trail")
        if candidate not in taken and not candidate.exists():
            return candidate, number
        number += 1


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
