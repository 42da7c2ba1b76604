"""The storage-mode matrix: storage modes x strategies x models, each cell a real
``verify`` (spin, gcc, pan), checked against plain SPIN in the same mode, against the
default hash table, and against the orbit oracle of the breadth-first graph.

The modes
---------
``default`` (pan's hash table), ``COLLAPSE``, ``MA`` (``-DMA=N``, N the state vector's size),
``NOCOMP``: exact storage.  pan stores exactly the states it reaches, whatever their
representation, so under the same strategy every exact mode stores the same states and
explores the same transitions as the default, up to the first error too: the counts must be
equal (in a nested search, the states visited: -DMA reports them as "stored").  (``-DNOCOMP``
voids ``-a`` and ``-l``: pan refuses it for cycle searches, with or without symmetry.)

Where pan itself refuses a mode for a model (``#error cannot use BFS on models with variables
declared hidden``), every cell of that mode must be refused the same way.  A model that
receives into ``_pid`` needs its ``_pid`` bytes stored, which ``-DCOLLAPSE``
and ``-DMA`` leave out: verify refuses those two modes for it with the reason
(reduce.defines_the_reduction_needs), and so does the matrix's cell.

``BITSTATE`` and ``HC4``: approximate storage (a state whose hash collides with a stored
one's is taken for it): at most the default's counts.

``BFS``: breadth-first, which stores the states inside atomic sequences too (init's atomic
start-up included), so its counts are its own; it implies a safety search.  Built with
``-DNOREDUCE``, an exact strategy stores one state per orbit of the breadth-first graph:
the orbit oracle of that graph (tests/support/statespace.py, ``-DBFS``), in which a state before init
has started every process is mapped only by the elements that map the existing processes to
existing ones, as the reduction maps it; a complete strategy stores at least that many, and
at most plain SPIN's; an approximate one at most plain SPIN's.

Every cell
----------
* its verdict (errors or none) is plain SPIN's in the same mode (an approximate strategy may
  miss an error, never silently);
* a trail it writes replays with real ``spin -t``: an assertion violation is reported again,
  and a cycle (``-a``, ``-l``) is a real lasso, ending in the very state (by values) its cycle
  starts from (tests/support/replay.py);
* partial order reduction: the default cell of each model runs ``verify --cross-check``
  (again with ``-DNOREDUCE``), whose verdicts must agree.

Speed: pan gets ``-w16`` (``-w20`` for the bitstate array) instead of its 2^24-slot table,
which it would allocate for each of a few hundred tiny runs, and gcc compiles with ``-O0``.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import shutil
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from differential import error_kind, group_in_force
from replay import lasso_is_real, replay
from statespace import count_orbits, explore

from topspin_py.codegen.render import STRATEGIES, CodegenError
from topspin_py.errors import ToolchainError, UsageError
from topspin_py.pan.flags import PanOptions
from topspin_py.result import Result
from topspin_py.verify import VerifyOptions, verify

MODES = ("default", "COLLAPSE", "MA", "NOCOMP", "BITSTATE", "HC4", "BFS")
EXACT_MODES = ("default", "COLLAPSE", "MA", "NOCOMP")
APPROXIMATE_MODES = ("BITSTATE", "HC4")
STRATEGY_NAMES = tuple(STRATEGIES)
PAN_REFUSES = "pan refuses the mode: "   # a Cell.refused that pan.h's #error gave


@dataclass(frozen=True)
class MatrixModel:
    """One model of the matrix and the search it asks for."""

    id: str
    path: Path
    defines: tuple[str, ...] = ()   # for spin's preprocessor (NAME or NAME=VALUE)
    flags: tuple[str, ...] = ()     # build modes the search needs (NP for -l)
    pan: tuple[str, ...] = ()       # pan's arguments (-a, -l, -N name)

    @property
    def cycles(self) -> bool:
        return PanOptions.parse(self.pan).cycle_search


@dataclass
class Cell:
    strategy: str                   # "none": plain SPIN
    mode: str
    result: Result | None = None
    refused: str | None = None      # the strategy refused the group (CodegenError)
    replay: str | None = None       # what the replay of its trail showed: None, "ok" or a problem
    notes: list[str] = field(default_factory=list)

    def row(self) -> str:
        if self.refused:
            return f"{self.strategy:14} {self.mode:9} refused"
        r = self.result
        assert r is not None
        return (f"{self.strategy:14} {self.mode:9} states={r.states_stored} transitions={r.transitions} "
                f"errors={r.errors} kind={error_kind(r)!r} replay={self.replay}")


def mode_defines(mode: str, vector_bytes: int) -> tuple[str, ...]:
    """The -D flags of a mode (``vector_bytes``: the state vector's size, for -DMA)."""
    if mode == "default":
        return ()
    if mode == "MA":
        return (f"MA={max(vector_bytes, 8)}",)
    if mode == "BFS":
        return ("BFS", "NOREDUCE")
    return (mode,)


def applies(model: MatrixModel, mode: str) -> bool:
    """pan refuses -DNOCOMP with -a and -l (``use of -DNOCOMP voids -l and -a``)."""
    return not (mode == "NOCOMP" and model.cycles)


def _pan_args(model: MatrixModel, mode: str) -> tuple[str, ...]:
    size = "-w20" if mode == "BITSTATE" else "-w16"
    # BFS implies a safety search: pan's -a and -l do not exist there
    pan = tuple(arg for arg in model.pan if not (mode == "BFS" and arg in ("-a", "-l")))
    return (*pan, size)


def run_cell(job) -> Cell:
    """One verify of the matrix, in its own directory (trails are written beside the model)."""
    model, strategy, mode, vector_bytes, workdir, cross_check = job
    cell = Cell(strategy, mode)
    here = Path(workdir) / f"{strategy}-{mode}"
    here.mkdir(parents=True, exist_ok=True)
    local = here / model.path.name
    shutil.copyfile(model.path, local)
    # BFS implies a safety search, which pan cannot combine with the non-progress claim
    flags = [f.removeprefix("-D") for f in model.flags if not (mode == "BFS" and f.removeprefix("-D") == "NP")]
    defines = (*model.defines, *flags, *mode_defines(mode, vector_bytes))
    options = VerifyOptions(strategy=strategy, defines=defines, pan_args=_pan_args(model, mode),
                            optimisation="-O0", cross_check=cross_check,
                            safety=mode == "BFS" or not model.cycles, on_note=cell.notes.append)
    try:
        cell.result = verify(local, options)
    except CodegenError as error:
        if strategy == "none" or not STRATEGIES[strategy].symmetric_trees_only:
            raise
        cell.refused = str(error)
        return cell
    except UsageError as error:
        # a model that receives into _pid needs its _pid bytes stored: not with COLLAPSE or MA
        if strategy == "none" or mode not in ("COLLAPSE", "MA") or "receives into _pid" not in str(error):
            raise
        cell.refused = str(error)
        return cell
    except ToolchainError as error:
        # pan itself refuses the mode for this model (pan.h's #error: BFS with hidden variables)
        refusal = re.search(r"pan\.h:\d+:\d+: error: #error (.*)", error.detail or "")
        if refusal is None:
            raise
        cell.refused = f"{PAN_REFUSES}{refusal.group(1)}"
        return cell
    if cell.result.errors:
        cell.replay = _check_trail(here, local.name, cell.result, model.defines)
    return cell


def _check_trail(here: Path, name: str, result: Result, defines: Sequence[str]) -> str:
    """Replay the cell's first trail with spin -t; "ok" or what went wrong."""
    if not result.trail:
        return "no trail"
    spin_args = [f"-D{d}" for d in defines]
    kind = error_kind(result)
    if kind in ("acceptance cycle", "non-progress cycle"):
        real, why = lasso_is_real(here, name, Path(result.trail), spin_args)
        return "ok" if real else f"no real lasso: {why}"
    shown = replay(here, name, Path(result.trail), spin_args)
    if shown.steps is None:
        return "spin -t did not replay the trail:\n" + shown.stdout[-1500:]
    if kind == "assertion violated" and "assertion violated" not in shown.stdout:
        return "spin -t replayed no assertion violation:\n" + shown.stdout[-1500:]
    return "ok"


def run_matrix(model: MatrixModel, workdir: Path, strategies: Sequence[str] = STRATEGY_NAMES,
               modes: Sequence[str] = MODES, cross_check: str | None = "refine") -> dict[tuple[str, str], Cell]:
    """Every cell of ``model``: plain SPIN and each strategy, in each mode that applies, side
    by side (one worker per CPU); ``cross_check``: the strategy whose default cell also runs
    with partial order reduction switched (verify --cross-check)."""
    first = run_cell((model, "none", "default", 0, workdir / "probe", False))
    assert first.result is not None
    vector = first.result.state_vector_bytes
    jobs = [(model, strategy, mode, vector, workdir, strategy == cross_check and mode == "default")
            for strategy in ("none", *strategies) for mode in modes if applies(model, mode)]
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        outcomes = list(pool.map(_in_worker, jobs))
    failures = [f"{job[1]} {job[2]}:\n{outcome}" for job, outcome in zip(jobs, outcomes) if isinstance(outcome, str)]
    if failures:
        raise AssertionError("\n".join(failures))
    return {(cell.strategy, cell.mode): cell for cell in outcomes if isinstance(cell, Cell)}


def _in_worker(job) -> Cell | str:
    try:
        return run_cell(job)
    except Exception:  # reported, with its traceback, by the caller
        return traceback.format_exc()


def bfs_orbits(model: MatrixModel, workdir: Path) -> int:
    """The orbit oracle of the breadth-first graph (-DBFS -DNOREDUCE) under the group verify
    uses for it: its own detection, for a safety search of the breadth-first pan."""
    flags = ["-DBFS", "-DNOREDUCE", *(f for f in model.flags if f.removeprefix("-D") != "NP")]
    pan = [arg for arg in model.pan if arg not in ("-a", "-l")]
    group = group_in_force(model.path, [*model.defines, "BFS"], pan)
    space = explore(model.path, workdir, flags, pan, model.defines, group=group)
    elements = [group.alpha(g) for g in group.perm_group.generate()]
    return count_orbits(space, elements, existing_only=True).count


def describe(cells: dict[tuple[str, str], Cell]) -> str:
    return "\n".join(cell.row() for cell in cells.values())


def _counts(result: Result) -> tuple[int, int]:
    """States and transitions as an exact mode must reproduce them.  In a nested search (-a,
    -l) pan reports "N states, stored (M visited)", M counting the nested search's visits too,
    except under -DMA, whose automaton stores the nested search's copies as states of their
    own and reports M alone as "states, stored": M is what every exact mode agrees on."""
    seen = result.states_visited if result.states_visited is not None else result.states_stored
    return seen, result.transitions


def check(model: MatrixModel, cells: dict[tuple[str, str], Cell], workdir: Path) -> list[str]:
    """Every rule of the module docstring; the problems found (empty: the matrix agrees).
    The BFS orbit oracle runs (in ``workdir``) when a complete BFS cell needs it."""
    problems: list[str] = []
    oracle: list[int] = []

    def bfs_oracle() -> int:
        if not oracle:
            oracle.append(bfs_orbits(model, workdir))
        return oracle[0]

    def fail(cell: Cell, what: str) -> None:
        problems.append(f"{model.id} {cell.strategy} {cell.mode}: {what}")

    for (strategy, mode), cell in cells.items():
        if cell.refused:
            plain_refusal = cells["none", mode].refused
            if cell.refused.startswith(PAN_REFUSES):
                if cell.refused != plain_refusal:
                    fail(cell, f"{cell.refused}, but plain SPIN's pan {plain_refusal or 'does not'}")
            elif strategy == "none" or not (STRATEGIES[strategy].symmetric_trees_only
                                            or "receives into _pid" in cell.refused):
                fail(cell, f"refused: {cell.refused}")
            continue
        result = cell.result
        assert result is not None
        plain = cells["none", mode].result
        if plain is None:
            fail(cell, f"ran, where plain SPIN's pan refuses the mode: {cells['none', mode].refused}")
            continue
        exactness = None if strategy == "none" else STRATEGIES[strategy].exactness
        # verdicts
        if bool(result.errors) != bool(plain.errors):
            if not (exactness == "approximate" and plain.errors and not result.errors and cell.notes):
                fail(cell, f"{result.errors} errors, plain SPIN {plain.errors}")
        if result.errors and cell.replay != "ok":
            fail(cell, f"trail: {cell.replay}")
        if result.cross_check is not None and result.por_disagreement is not None:
            fail(cell, f"--cross-check: {result.por_disagreement}")
        default = cells[strategy, "default"].result
        if default is None:
            # refused by the default cell's group, but not by this mode's (a breadth-first pan
            # stores states inside atomic sequences: its group may be smaller, even trivial)
            continue
        if mode in EXACT_MODES and _counts(result) != _counts(default):
            # the same search, step by step: equal up to the first error too
            fail(cell, f"counts {_counts(result)}, the default hash table's {_counts(default)}")
        if result.errors or plain.errors or strategy == "none":
            continue   # pan stops at the first error: other counts are compared on complete searches
        if mode in APPROXIMATE_MODES and result.states_stored > default.states_stored:
            fail(cell, f"{result.states_stored} states, more than the default's {default.states_stored}")
        if mode == "BFS":
            orbits = bfs_oracle()
            if exactness == "exact" and result.states_stored != orbits:
                fail(cell, f"{result.states_stored} states, the BFS orbit oracle {orbits}")
            if exactness == "complete" and not orbits <= result.states_stored <= plain.states_stored:
                fail(cell, f"{result.states_stored} states, not between the BFS orbit oracle "
                           f"{orbits} and plain SPIN's {plain.states_stored}")
            if exactness == "approximate" and result.states_stored > plain.states_stored:
                fail(cell, f"{result.states_stored} states, more than plain SPIN's {plain.states_stored}")
    # the cross-check ran on every model
    if not any(cell.result is not None and cell.result.cross_check is not None for cell in cells.values()):
        problems.append(f"{model.id}: no cell ran --cross-check")
    return problems


def main(argv: Sequence[str]) -> int:
    """``python tests/support/matrix.py [--full] [ID ...]``: run the matrix of test_matrix.py's models
    (CI_MODELS, with --full FULL_MODELS too; or those named) and print every cell."""
    import tempfile
    import time

    from test_matrix import CI_MODELS, FULL_MODELS

    models = CI_MODELS + (FULL_MODELS if "--full" in argv else [])
    named = [word for word in argv if not word.startswith("--")]
    if named:
        models = [model for model in CI_MODELS + FULL_MODELS if model.id in named]
    total = failed = 0
    for model in models:
        if not model.path.is_file():
            print(f"== {model.id}: skipped, {model.path} not found")
            continue
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="topspin-matrix-") as name:
            cells = run_matrix(model, Path(name))
            problems = check(model, cells, Path(name) / "oracle")
        ran = [cell for cell in cells.values() if cell.result is not None]
        total += len(ran)
        failed += len(problems)
        print(f"== {model.id}: {len(ran)} runs ({len(cells) - len(ran)} refused), "
              f"{'all agree' if not problems else f'{len(problems)} problems'}, "
              f"{time.monotonic() - started:.0f} s")
        print(describe(cells))
        print("\n".join(problems))
    print(f"== {total} runs, {failed} problems")
    return 1 if failed else 0


if __name__ == "__main__":
    import sys
    tests = Path(__file__).resolve().parent.parent
    # the helpers (support/), conftest's paths (tests/) and test_matrix's models (oracles/)
    sys.path[:0] = [str(tests / "support"), str(tests), str(tests / "oracles")]
    raise SystemExit(main(sys.argv[1:]))
