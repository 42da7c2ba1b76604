"""``verify --check-symmetry[=BUDGET]``: a check of the reduction on the user's own model that
does not trust the symmetry analysis.

Two breadth-first searches in real pan, with partial order reduction off, from one spliced
pan.c (c_runtime/topspin_observe.c):

* the plain pan stores actual states, as SPIN's does, and writes the canonical form of each
  new state with its depth;
* the reduced pan stores canonical forms, as the reduced search does, and writes each new one.

When the group acts on the state graph as automorphisms that fix the initial state (what the
validity check claims) and the canonicaliser gives one form per orbit, an orbit's states all
lie at the same breadth-first depth, and the reduced search meets each orbit at that depth: so
the canonical forms plain pan meets at depth d are exactly those the reduced pan stores at
depth d, depth by depth.  A difference is an orbit the reduced search misses at its depth (or
stores at another), which is where a wrong symmetry loses states: it is reported with a state
plain pan reaches there and a trail to it that ``spin -t`` replays.  Agreement is reported as
what it is: agreement to a depth and a number of states, not a proof.

What is compared: the states a depth-first pan stores.  A state inside an atomic sequence or
a rendezvous handshake is one a depth-first search passes through without storing; both pans
store it as it is and neither writes it (a breadth-first search stores it, but the group was
found for the search the user runs).  The canonicaliser is the user's strategy when it is
exact, else refine's (an approximate one gives an orbit several forms, which would differ
for no fault of the group).  BUDGET bounds the states plain pan writes: the search stops at the
first state of a new depth once BUDGET are written, and the depths before it are complete.
"""

from __future__ import annotations

import shlex
import shutil
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from topspin_py import strategies
from topspin_py.errors import ToolchainError
from topspin_py.pan import flags as panflags
from topspin_py.pan import processes, toolchain
from topspin_py.pan.splice import OBSERVE_MACRO, SYM_MACRO

DEFAULT_BUDGET = 200_000
CHECK_DIR = "symmetry-check"
RECORDS = {"plain": "plain.states", "reduced": "reduced.states"}
TRAIL_SUFFIX = ".symmetry.trail"   # beside the model: model.pml.symmetry.trail
# Defines that choose another search or storage than the check's full-state breadth-first one.
_SEARCH_DEFINES = frozenset({"BFS", "BFS_PAR", "NCORE", "BITSTATE", "MA", "COLLAPSE", "HC", "HC0", "HC1", "HC2",
                             "HC3", "HC4", "NP", "REACH", "NOREDUCE", "SYNC", "SDUMP", "SVDUMP", "BCS"})


@dataclass(frozen=True)
class Difference:
    """The first depth where the two searches differ, and a state that shows it."""

    depth: int
    missing: int            # canonical forms plain pan meets at this depth, the reduced pan not
    extra: int              # stored by the reduced pan at this depth, met by plain pan elsewhere
    trail: str | None       # a trail to a state of the difference
    replay: str | None      # the spin command that replays it
    state: str | None       # that state as spin prints it at the end of the replay
    from_plain: bool        # the trail is plain pan's (a missing orbit) or the reduced pan's


@dataclass(frozen=True)
class SymmetryCheck:
    """What ``--check-symmetry`` found (module docstring)."""

    budget: int
    depth: int              # depths 0 .. depth were compared (-1: none)
    complete: bool          # plain pan's search ended within the budget: every depth compared
    plain_states: int       # states plain pan met at those depths
    orbits: int             # their distinct canonical forms
    reduced_states: int     # states the reduced pan stored at those depths
    strategy: str           # whose canonicaliser
    seconds: float
    difference: Difference | None = None

    @property
    def agrees(self) -> bool:
        return self.difference is None

    def as_json(self) -> dict:
        return {"summary": self.describe(), "budget": self.budget, "depth": self.depth, "complete": self.complete,
                "plain_states": self.plain_states, "orbits": self.orbits,
                "reduced_states": self.reduced_states, "strategy": self.strategy,
                "seconds": round(self.seconds, 3), "agrees": self.agrees,
                "difference": None if self.difference is None else {
                    "depth": self.difference.depth, "missing": self.difference.missing,
                    "extra": self.difference.extra, "trail": self.difference.trail,
                    "replay": self.difference.replay, "state": self.difference.state,
                    "trail_of": "plain" if self.difference.from_plain else "reduced"}}

    def describe(self) -> str:
        reach = (f"every state ({self.plain_states:,}, depth {self.depth})" if self.complete
                 else f"to depth {self.depth}, {self.plain_states:,} states (budget {self.budget:,})")
        if self.difference is None:
            return (f"no difference: breadth-first {reach}, {self.orbits:,} orbits met by plain pan = "
                    f"{self.reduced_states:,} states stored reduced ({self.strategy}); a check, not a proof")
        d = self.difference
        what = (f"{d.missing} orbit(s) plain pan meets at depth {d.depth} are not stored by the reduced "
                f"search there" if d.missing else
                f"the reduced search stores {d.extra} state(s) at depth {d.depth} that plain pan meets at "
                f"another depth")
        return f"DIFFERENCE: {what} (breadth-first {reach}): the symmetry is not one of the model's"


def check_symmetry(build, workdir: Path, budget: int, optimisation: str, ran, note) -> SymmetryCheck:
    """Run the check for the verify ``build`` (verify.PanBuild, its pan.c spliced in
    ``workdir``), and say what it found (module docstring)."""
    from topspin_py.reduce import GENERATED_C, write_canonicaliser

    started = time.monotonic()
    group = build.group
    assert group is not None and build.strategy != "none"
    strategy = build.strategy if strategies.exactness(build.strategy) == "exact" else "refine"
    if strategy != build.strategy:
        note(f"--check-symmetry: {build.strategy} gives an orbit more than one form; the check uses "
             f"refine's canonicaliser, with the same group")
    directory = workdir / CHECK_DIR
    directory.mkdir()
    for path in workdir.glob("pan.[chbmpt]"):
        shutil.copy(path, directory / path.name)
    flags = _check_flags(build.compile_flags)
    write_canonicaliser(directory, group, strategy, flags, GENERATED_C)
    binaries = {}
    for name, macros in (("plain", []), ("reduced", [f"-D{SYM_MACRO}"])):
        command = toolchain.compile_command(build.tools, [*flags, *macros], optimisation, f"pan_{name}")
        ran(command)
        binaries[name] = toolchain.compile_pan(build.tools, [*flags, *macros], directory, optimisation,
                                               f"pan_{name}")
    args = _pan_args(build.pan_args, budget)
    depths: dict[str, dict[int, set[bytes]]] = {}
    complete: dict[str, int | None] = {}
    for name, binary in binaries.items():
        _run(binary, args, directory, {"TOPSPIN_OBSERVE_FILE": RECORDS[name],
                                       "TOPSPIN_OBSERVE_BUDGET": str(budget)}, ran)
        depths[name], stopped_at = _read_records(directory / RECORDS[name])
        # stopped at the first state of depth m: every depth before it is complete
        complete[name] = None if stopped_at is None else stopped_at - 1
    plain, reduced = depths["plain"], depths["reduced"]
    # A search that ended wrote every depth: compare as deep as either went.
    deepest = max(max(plain, default=-1), max(reduced, default=-1))
    last = min(deepest if through is None else through for through in complete.values())
    difference = None
    for depth in range(last + 1):
        missing = plain.get(depth, set()) - reduced.get(depth, set())
        extra = reduced.get(depth, set()) - plain.get(depth, set())
        if missing or extra:
            difference = _show_difference(build, directory, binaries, args, depth, missing, extra, ran)
            break
    compared = range(last + 1)
    return SymmetryCheck(
        budget=budget, depth=last, complete=all(through is None for through in complete.values()),
        plain_states=_count(directory, "plain", last), orbits=sum(len(plain.get(d, ())) for d in compared),
        reduced_states=sum(len(reduced.get(d, ())) for d in compared), strategy=strategy,
        seconds=time.monotonic() - started, difference=difference)


def _check_flags(compile_flags: list[str]) -> list[str]:
    """The build's -D flags without those that choose a search or a storage, plus the check's
    breadth-first full-state search without partial order reduction."""
    kept = [flag for flag in compile_flags
            if not (flag.startswith("-D") and panflags.define_name(flag[2:]) in _SEARCH_DEFINES)
            and flag not in (f"-D{SYM_MACRO}",)]
    return [*kept, "-DBFS", "-DNOREDUCE", f"-D{OBSERVE_MACRO}"]


def _pan_args(pan_args: list[str], budget: int) -> list[str]:
    """The search's claim (-N) and memory options, on past errors (-c0: an error is no reason
    to stop comparing), no report of unreached code, and a depth limit the budget cannot reach
    (each depth of a breadth-first search holds at least one new state)."""
    kept = []
    words = list(pan_args)
    while words:
        word = words.pop(0)
        if word == "-N" and words:
            kept += [word, words.pop(0)]
        elif word.startswith(("-N", "-w")):
            kept.append(word)
    return [*kept, "-c0", "-n", f"-m{budget + 10}"]


def _run(binary: Path, args: list[str], directory: Path, env: dict[str, str], ran) -> str:
    ran(["env", *(f"{k}={v}" for k, v in env.items()), f"./{binary.name}", *args])
    completed = processes.run_captured([str(binary), *args], directory, env=env)
    output = completed.stdout + completed.stderr
    if completed.returncode < 0 or "out of memory" in output:
        raise ToolchainError(f"the symmetry check's {binary.name} did not finish "
                             f"(exit status {completed.returncode})", detail=output[-2000:] or None,
                             hint="give a smaller budget: --check-symmetry=BUDGET")
    return output


def _read_records(path: Path) -> tuple[dict[int, set[bytes]], int | None]:
    """depth -> the state vectors (canonical forms) written at that depth, and the depth the
    budget stopped the search at (None: it searched everything)."""
    found: dict[int, set[bytes]] = {}
    data = path.read_bytes() if path.is_file() else b""
    at = 0
    while at < len(data):
        depth, size = struct.unpack_from("=ii", data, at)
        at += 8
        if depth < 0:
            return found, size   # the mark of a stop: the depth the search stopped at
        found.setdefault(depth, set()).add(data[at:at + size])
        at += size
    return found, None


def _count(directory: Path, name: str, last: int) -> int:
    """How many records ``name`` wrote at depths up to ``last`` (repeats included)."""
    data = (directory / RECORDS[name]).read_bytes()
    at = count = 0
    while at < len(data):
        depth, size = struct.unpack_from("=ii", data, at)
        if depth < 0:
            break
        at += 8 + size
        count += depth <= last
    return count


def _show_difference(build, directory: Path, binaries: dict[str, Path], args: list[str], depth: int,
                     missing: set[bytes], extra: set[bytes], ran) -> Difference:
    """A state of the difference, by a trail to it: the pan that met it runs again and reports
    an error when it writes it (pan writes the trail)."""
    from_plain = bool(missing)
    target = min(missing or extra)
    binary = binaries["plain" if from_plain else "reduced"]
    for old in directory.glob("*.trail"):
        old.unlink()
    _run(binary, [word for word in args if word != "-c0"] + ["-c1"], directory,
         {"TOPSPIN_OBSERVE_FILE": "target.states", "TOPSPIN_OBSERVE_TARGET": target.hex()}, ran)
    trails = sorted(directory.glob("*.trail"))
    if not trails:
        return Difference(depth, len(missing), len(extra), None, None, None, from_plain)
    kept = build.model.with_name(build.model.name + TRAIL_SUFFIX)
    program = build.desugared or build.model
    try:
        shutil.copyfile(trails[0], kept)
    except OSError:
        kept = trails[0]
    replay = shlex.join(["spin", *build.replay_args, "-k", str(kept), "-t", "-p", str(program)])
    return Difference(depth, len(missing), len(extra), str(kept), replay,
                      _final_state(build, directory, trails[0]), from_plain)


def _final_state(build, directory: Path, trail: Path) -> str | None:
    """The state at the end of the trail, as ``spin -t -g -l`` prints it."""
    command = [build.tools.spin, *build.replay_args, "-k", str(trail), "-t", "-g", "-l", str(build.source.resolve())]
    try:
        completed = processes.run_captured(command, directory)
    except OSError:
        return None
    shown = str(build.desugared or build.model)
    lines = completed.stdout.replace(str(build.source.resolve()), shown).splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("#processes")), None)
    if start is None:
        return None
    return "\n".join(line.rstrip() for line in lines[start:] if "processes created" not in line)
