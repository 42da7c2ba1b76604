"""``verify --check-symmetry[=BUDGET]``: a check of the reduction on the user's own model that
does not trust the symmetry analysis.

Two depth-first searches in real pan, with partial order reduction off, from one spliced pan.c
(c_runtime/topspin_observe.c):

* plain pan stores actual states, as SPIN's pan does, and writes the canonical form of each;
* the reduced pan makes the reduced search (the one verify runs, without partial order
  reduction) and writes every canonical form it stores.

When the group acts on the state graph as automorphisms (what the validity check claims) and
the canonicaliser gives one form per orbit, the reduced search stores exactly one form for each
orbit of reachable states: so the forms plain pan writes and the forms the reduced pan writes
must be the same set.  A form plain pan writes that the reduced search never stores is an orbit
a wrong symmetry lost: it is reported with a state plain pan reaches there and a trail to it
that ``spin -t`` replays.  Agreement is reported as what it is, not as a proof.

When plain pan's whole search stores more than BUDGET states, both searches are bounded by a
depth limit -m D and compiled with -DREACH, under which pan stores exactly the states within
D - 1 steps of the initial state (it searches again from a state it meets at a smaller depth
than before).  An orbit holds a state within D - 1 steps exactly when the reduced search stores
its form within D - 1 steps: along a shortest path s0, s1, ..., sk to a state of the orbit, the
reduced search holds at each depth i a state g(si) of si's orbit, whose successor g(si+1) is in
the next one (g is an automorphism), and it follows real paths only, so it meets no orbit
sooner.  (The group need not fix the initial state: SPIN's peterson.pml starts with turn = 0,
which the swap of the two users renames.)  D doubles from 4 while plain pan's search stays
within the budget; the check is to the last D within it.

The canonicaliser is the user's strategy when it is exact, else refine's (an approximate one
gives an orbit several forms, which would differ for no fault of the group).  Depth first, not
breadth first: pan's breadth-first search stores states inside atomic sequences and rendezvous
handshakes too, which the depth-first search the group was found for does not, and is not
breadth first in the strict sense when those block.
"""

from __future__ import annotations

import contextlib
import os
import re
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
from topspin_py.pan.output import parse_pan_output
from topspin_py.pan.splice import OBSERVE_MACRO, SYM_MACRO

DEFAULT_BUDGET = 200_000
CHECK_DIR = "symmetry-check"
RECORDS = {"plain": "plain.states", "reduced": "reduced.states"}
TRAIL_SUFFIX = ".symmetry.trail"   # beside the model: model.pml.symmetry.trail
# Defines that choose another search or storage than the check's full-state ones.
_SEARCH_DEFINES = frozenset({"BFS", "BFS_PAR", "NCORE", "BITSTATE", "MA", "COLLAPSE", "HC", "HC0", "HC1", "HC2",
                             "HC3", "HC4", "NP", "REACH", "NOREDUCE", "SYNC", "SDUMP", "SVDUMP", "BCS"})


class CheckUnavailable(Exception):
    """The check cannot give an answer on this model (SPIN refuses the pan it needs)."""


@dataclass(frozen=True)
class Difference:
    """Orbits the two searches disagree on, and a state that shows one."""

    missing: int            # forms plain pan writes that the reduced search never stores
    extra: int              # forms the reduced search stores that plain pan never writes
    depth: int | None       # the depth at which plain pan first stored the state shown (missing)
    trail: str | None       # a trail to that state
    replay: str | None      # the spin command that replays it
    state: str | None       # that state as spin prints it at the end of the replay
    from_plain: bool        # the trail is plain pan's (a missing orbit) or the reduced pan's


@dataclass(frozen=True)
class SymmetryCheck:
    """What ``--check-symmetry`` found (module docstring)."""

    budget: int
    depth: int              # every state within this many steps was compared (D - 1)
    complete: bool          # plain pan met every reachable state: no depth limit cut it
    plain_states: int       # states plain pan stored
    orbits: int             # their distinct canonical forms
    reduced_states: int     # states (forms) the reduced search stored
    strategy: str           # whose canonicaliser
    seconds: float
    difference: Difference | None = None

    @property
    def agrees(self) -> bool:
        return self.difference is None

    def as_json(self) -> dict:
        d = self.difference
        return {"summary": self.describe(), "budget": self.budget, "depth": self.depth,
                "complete": self.complete, "plain_states": self.plain_states, "orbits": self.orbits,
                "reduced_states": self.reduced_states, "strategy": self.strategy,
                "seconds": round(self.seconds, 3), "agrees": self.agrees,
                "difference": None if d is None else {
                    "missing": d.missing, "extra": d.extra, "depth": d.depth, "trail": d.trail,
                    "replay": d.replay, "state": d.state, "trail_of": "plain" if d.from_plain else "reduced"}}

    def describe(self) -> str:
        met = (f"plain pan met every state ({self.plain_states:,})" if self.complete
               else f"plain pan met every state within {self.depth} steps ({self.plain_states:,}; budget "
                    f"{self.budget:,})")
        if self.difference is None:
            return (f"no difference: {met}; the reduced search ({self.strategy}) stored exactly their "
                    f"{self.orbits:,} orbits; a check, not a proof")
        d = self.difference
        what = (f"{d.missing} orbit(s) of states plain pan meets are never stored by the reduced search "
                f"(the state shown: depth {d.depth})" if d.missing else
                f"the reduced search stores {d.extra} form(s) of no state plain pan meets")
        return f"DIFFERENCE: {what} ({met}): the symmetry is not one of the model's"


def check_symmetry(build, workdir: Path, budget: int, optimisation: str, ran, note) -> SymmetryCheck:
    """Run the check for the verify ``build`` (pipeline.PanBuild, its pan.c spliced in
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
    claim = _claim_args(build.pan_args)

    def pans(extra: list[str], suffix: str) -> dict[str, Path]:
        return {name: _compile(build, directory, [*flags, *extra, *macros], optimisation, f"pan_{name}{suffix}", ran)
                for name, macros in (("plain", []), ("reduced", [f"-D{SYM_MACRO}"]))}

    with _spin_refusals():
        write_canonicaliser(directory, group, strategy, flags, GENERATED_C)
        binaries = pans([], "")
    # Every state, when plain pan's whole search fits the budget.
    output = _search(binaries["plain"], claim, _DEPTH_LIMIT, directory, RECORDS["plain"], budget, ran)
    plain, stopped = _read_records(directory / RECORDS["plain"])
    report = parse_pan_output(output)
    complete = not stopped and not report.depth_limit_hit
    if complete:
        limit, plain_states = _DEPTH_LIMIT, int(report.states_stored or 0)
    else:   # else every state within the deepest depth limit whose search fits it (-DREACH)
        with _spin_refusals():
            binaries = pans(["-DREACH"], "_reach")
        plain, limit, plain_states = _plain_within_budget(binaries["plain"], claim, directory, budget, ran)
    _search(binaries["reduced"], claim, limit, directory, RECORDS["reduced"], None, ran)
    reduced, _ = _read_records(directory / RECORDS["reduced"])
    missing = {form: min(depths) for form, depths in plain.items() if form not in reduced}
    extra = set(reduced) - set(plain)
    difference = None
    if missing or extra:
        difference = _show_difference(build, directory, binaries, claim, limit, missing, extra, ran)
    return SymmetryCheck(
        budget=budget, depth=max((min(d) for d in plain.values()), default=0) if complete else limit - 1,
        complete=complete, plain_states=plain_states, orbits=len(plain), reduced_states=len(reduced),
        strategy=strategy, seconds=time.monotonic() - started, difference=difference)


# The depth limit of a search meant to meet every state: pan allocates a stack of -m frames.
_DEPTH_LIMIT = 1_000_000
_FIRST_LIMIT = 4    # the first depth limit of a search within a depth; it doubles


def _plain_within_budget(binary: Path, claim: list[str], directory: Path, budget: int,
                         ran) -> tuple[dict[bytes, list[int]], int, int]:
    """Plain pan's forms within the deepest limit -m D whose search (-DREACH) stores at most
    ``budget`` states, D doubling from 4, and how many states that search stored, as pan counts
    them.  The first limit is searched whatever the budget."""
    limit, kept = _FIRST_LIMIT, None
    while True:
        output = _search(binary, claim, limit, directory, RECORDS["plain"], budget if kept else None, ran)
        records, stopped = _read_records(directory / RECORDS["plain"])
        if stopped or limit >= _DEPTH_LIMIT:   # over the budget: the last limit within it stands
            assert kept is not None
            return kept
        kept = (records, limit, int(parse_pan_output(output).states_stored or 0))
        limit *= 2


@contextlib.contextmanager
def _spin_refusals():
    """SPIN's own #error in pan.h or pan.c for the check's flags (-DREACH, -DNOREDUCE with the
    user's own) becomes CheckUnavailable, with SPIN's words."""
    try:
        yield
    except ToolchainError as error:   # (LayoutError is one: pan.h read with gcc -E)
        refusal = re.search(r"#error\s+(.*)", error.detail or "")
        if refusal is None:
            raise
        raise CheckUnavailable(f"SPIN's pan refuses the search it needs: {refusal.group(1).strip()}") from None


def _compile(build, directory: Path, flags: list[str], optimisation: str, output: str, ran) -> Path:
    ran(toolchain.compile_command(build.tools, flags, optimisation, output))
    return toolchain.compile_pan(build.tools, flags, directory, optimisation, output, cache=build.cache)


def _check_flags(compile_flags: list[str]) -> list[str]:
    """The build's -D flags without those that choose a search or a storage, plus the check's
    full-state search without partial order reduction (module docstring)."""
    kept = [flag for flag in compile_flags
            if not (flag.startswith("-D") and panflags.define_name(flag[2:]) in _SEARCH_DEFINES)
            and flag != f"-D{SYM_MACRO}"]
    return [*kept, "-DNOREDUCE", f"-D{OBSERVE_MACRO}"]


def _claim_args(pan_args: list[str]) -> list[str]:
    """The claim the search checks (-N), which the group was found for."""
    kept = []
    words = list(pan_args)
    while words:
        word = words.pop(0)
        if word == "-N" and words:
            kept += [word, words.pop(0)]
        elif word.startswith("-N"):
            kept.append(word)
    return kept


def _run(binary: Path, args: list[str], directory: Path, env: dict[str, str], ran) -> str:
    ran(["env", *(f"{k}={v}" for k, v in env.items()), f"./{binary.name}", *args])
    completed = processes.run_captured([str(binary), *args], directory, env=env)
    output = completed.stdout + completed.stderr
    if completed.returncode != 0:
        raise ToolchainError(f"the symmetry check's {binary.name} did not finish "
                             f"(exit status {completed.returncode})", detail=output[-2000:] or None,
                             hint="give a smaller budget: --check-symmetry=BUDGET")
    return output


def _search(binary: Path, claim: list[str], limit: int, directory: Path, records: str, budget: int | None,
            ran) -> str:
    """One search to the depth limit ``limit``, on past errors, its forms written to ``records``."""
    env = {"TOPSPIN_OBSERVE_FILE": records}
    if budget is not None:
        env["TOPSPIN_OBSERVE_BUDGET"] = str(budget)
    return _run(binary, [*claim, "-c0", "-n", f"-m{limit}"], directory, env, ran)


def _read_records(path: Path) -> tuple[dict[bytes, list[int]], bool]:
    """Each form written, with the depths it was written at (one per state of its orbit that
    was stored, or stored again nearer the initial state), and whether a budget stopped the
    search."""
    forms: dict[bytes, list[int]] = {}
    data = path.read_bytes() if path.is_file() else b""
    at = 0
    while at < len(data):
        depth, size = struct.unpack_from("=ii", data, at)
        at += 8
        if depth < 0:
            return forms, True   # the mark of a stop
        forms.setdefault(data[at:at + size], []).append(depth)
        at += size
    return forms, False


def _show_difference(build, directory: Path, binaries: dict[str, Path], claim: list[str], limit: int,
                     missing: dict[bytes, int], extra: set[bytes], ran) -> Difference:
    """A state of the difference, by a trail to it: the pan that met it runs again, to the same
    depth limit, and reports an error when it writes it (pan writes its stack as the trail)."""
    from_plain = bool(missing)
    target = min(missing, key=lambda form: (missing[form], form)) if from_plain else min(extra)
    for old in directory.glob("*.trail"):
        old.unlink()
    _run(binaries["plain" if from_plain else "reduced"], [*claim, "-c1", "-n", f"-m{limit}"], directory,
         {"TOPSPIN_OBSERVE_FILE": os.devnull, "TOPSPIN_OBSERVE_TARGET": target.hex()}, ran)
    depth = missing.get(target)
    trails = sorted(directory.glob("*.trail"))
    if not trails:
        return Difference(len(missing), len(extra), depth, None, None, None, from_plain)
    kept = build.model.with_name(build.model.name + TRAIL_SUFFIX)
    program = build.desugared or build.model
    try:
        shutil.copyfile(trails[0], kept)
    except OSError:
        kept = trails[0]
    replay = shlex.join(["spin", *build.replay_args, "-k", str(kept), "-t", "-p", str(program)])
    return Difference(len(missing), len(extra), depth, str(kept), replay,
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
