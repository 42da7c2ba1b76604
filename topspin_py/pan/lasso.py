"""Genuine lassos: a cycle pan closes only up to a symmetry, unrolled into a real cycle.

Under symmetry reduction pan stores one state per orbit, and the nested search of ``-a``
(or ``-l``) closes a cycle when it reaches a state whose canonical form is on its first
search's stack.  The trail it writes then runs from the cycle's first state s_k (the state
after the steps above the trail's ``-1:-1:-1`` line) to a state s_n = g(s_k), g a group
element -- symmetric to s_k, not s_k.  ``spin -t`` replays it without complaint (it does not
check that a cycle closes), but it is not a lasso.

g maps the model to itself, so the cycle's steps with every process slot p mapped to g(p)
lead from s_n = g(s_k) to g^2(s_k), and so on; after m copies of the cycle (m divides g's
order) the path is back at s_k.  The reduced pan does this itself
(c_runtime/topspin_lasso.c): run with ``TOPSPIN_LASSO=<trail>`` in its environment it
executes the trail instead of searching, finds g from its canonicaliser's elements (pi(s) is
the canonical form of s; g = pi_n^-1 pi_k), executes every mapped step and checks that it
reaches the image of the state the original step reached (a symmetry that reorders the
options of an ``if`` or ``do`` makes another transition of the process the image: that one
is taken), and writes the steps to append.  It checks at the end that the path is back at
s_k, as pan compares states (dead variables reset, as in the search).  It writes to the file
``TOPSPIN_LASSO_OUT`` names, not to stdout: the model's printf statements print there as
the steps execute (-DPRINTF), and could print lines like its own.

Only the chain strategies (enumerate, segmented, refine) record their elements; for the
others ``verify`` builds a second pan from the same pan.c with the refine canonicaliser
(exact for every group), whose canonical forms tell whether s_n is symmetric to s_k at all
(an approximate strategy may close a cycle on a state of another orbit: then there is
nothing to unroll, and the trail stays as pan wrote it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from topspin_py.pan import processes

LASSO_ENV = "TOPSPIN_LASSO"               # the trail the reduced pan unrolls instead of searching
LASSO_OUT_ENV = "TOPSPIN_LASSO_OUT"       # the file it writes its answer to (not stdout: the
LASSO_ANSWER = "topspin_lasso.out"        # model's printf statements print there, -DPRINTF)
LASSO_CANONICALISER = "topspin_lasso_sym.c"  # refine, for a strategy that gives no elements
LASSO_BINARY = "pan_lasso"
CYCLE_MARK = "-1:-1:-1"                   # pan's line before the first step of a cycle

_PREFIX = "topspin-lasso: "


@dataclass(frozen=True)
class Lasso:
    """What became of one trail's cycle."""

    trail: str                       # the trail's file name
    outcome: str                     # "closed" (pan's cycle ends where it starts), "unrolled",
                                     # or "failed" (the trail stays as pan wrote it)
    copies: int = 1                  # how many times the cycle's steps now appear
    steps_added: int = 0
    element: str | None = None       # g in cycle notation (pids, then channels c1, c2, ...)
    reason: str | None = None        # why it failed
    moved_mark: bool = False         # pan marked the cycle's start where its state is not
                                     # symmetric to the end (-DMA): the mark was moved

    def describe(self) -> str:
        moved = ("; pan marked its start where the state is not the one it closes on, the mark "
                 "was moved" if self.moved_mark else "")
        if self.outcome == "closed":
            return f"{self.trail}: the cycle ends in the state it starts from{moved}"
        if self.outcome == "unrolled":
            return (f"{self.trail}: the cycle closed up to the permutation {self.element}; "
                    f"unrolled into {self.copies} copies ({self.steps_added} steps added), "
                    f"it ends in the state it starts from{moved}")
        return (f"{self.trail}: the cycle closes only up to a permutation (its last state is "
                f"symmetric to its first, not equal), and could not be unrolled: {self.reason}")

    def as_json(self) -> dict:
        return {"trail": self.trail, "outcome": self.outcome, "copies": self.copies,
                "steps_added": self.steps_added, "element": self.element, "reason": self.reason,
                "moved_mark": self.moved_mark}


class NoElement(Exception):
    """The pan's canonicaliser does not give the elements it applies."""


def environment(trail: Path | str, answer: Path | str = LASSO_ANSWER) -> dict[str, str]:
    """What a reduced pan needs in its environment to unroll ``trail`` and write its answer
    to ``answer``."""
    return {LASSO_ENV: str(trail), LASSO_OUT_ENV: str(answer)}


def has_cycle(trail: Path) -> bool:
    try:
        return any(line.strip() == CYCLE_MARK for line in trail.read_text(errors="replace").splitlines())
    except OSError:
        return False


def unroll(binary: Path, pan_args: Sequence[str], workdir: Path, trail: Path,
           name: str | None = None) -> Lasso:
    """Unroll ``trail``'s cycle with the reduced pan ``binary`` (run with the search's
    arguments, which pick the claim), rewriting the trail when steps are added.  Raises
    NoElement when the binary's canonicaliser cannot say which element it applied."""
    shown = name or trail.name
    answer = workdir / LASSO_ANSWER
    answer.unlink(missing_ok=True)
    run = processes.run_captured([str(binary), *pan_args], workdir, env=environment(trail, answer))
    said = answer.read_text(errors="replace") if answer.is_file() else ""
    lines = [line[len(_PREFIX):] for line in said.splitlines() if line.startswith(_PREFIX)]
    if "no element" in lines:
        raise NoElement(shown)
    start = next((int(line.split()[1]) for line in lines if line.startswith("cycle-start ")), None)
    if start is not None:
        _move_cycle_mark(trail, start)
    if "closed" in lines:
        return Lasso(shown, "closed", moved_mark=start is not None)
    failed = next((line[len("failed "):] for line in lines if line.startswith("failed ")), None)
    if failed is not None:
        return Lasso(shown, "failed", reason=failed)
    unrolled = next((int(line.split()[1]) for line in lines if line.startswith("unrolled ")), None)
    element = next((line.split()[1:] for line in lines if line.startswith("element ")), None)
    steps = [tuple(int(word) for word in line.split()[1:3]) for line in lines if line.startswith("step ")]
    if unrolled is None or element is None or not steps:
        output = (run.stdout + run.stderr).strip()[-300:] or f"exit status {run.returncode}"
        return Lasso(shown, "failed", reason="pan did not say how: " + output)
    _append_steps(trail, steps)
    return Lasso(shown, "unrolled", copies=unrolled, steps_added=len(steps),
                 element=_cycles([int(word) for word in element]), moved_mark=start is not None)


def _move_cycle_mark(trail: Path, start: int) -> None:
    """Put the trail's ``-1:-1:-1`` line before its step ``start`` (counted from 0)."""
    lines = [line for line in trail.read_text(errors="replace").splitlines() if line.strip() != CYCLE_MARK]
    steps = [i for i, line in enumerate(lines) if re.fullmatch(r"\d+:-?\d+:-?\d+", line.strip())]
    at = steps[start] if start < len(steps) else len(lines)
    lines.insert(at, CYCLE_MARK)
    trail.write_text("\n".join(lines) + "\n")


def _append_steps(trail: Path, steps: list[tuple[int, ...]]) -> None:
    """Append ``steps`` (slot, transition id) to the trail, numbered on from its last step."""
    text = trail.read_text(errors="replace")
    depths = [int(m.group(1)) for m in re.finditer(r"^(\d+):-?\d+:-?\d+$", text, re.M)]
    depth = depths[-1] if depths else 0
    if not text.endswith("\n"):
        text += "\n"
    for slot, t_id in steps:
        depth += 1
        text += f"{depth}:{slot}:{t_id}\n"
    trail.write_text(text)


def _cycles(words: list[int]) -> str:
    """``n_pids g_0 g_1 ...`` (the images of pids 0..n-1, then of channel ids 1, 2, ...) in
    cycle notation: pids as numbers, channels as c1, c2, ..."""
    n_pids, images = words[0], words[1:]

    def name(point: int) -> str:
        return str(point) if point < n_pids else f"c{point - n_pids + 1}"

    seen: set[int] = set()
    cycles = []
    for start in range(len(images)):
        if start in seen:
            continue
        cycle, point = [], start
        while point not in seen:
            seen.add(point)
            cycle.append(name(point))
            point = images[point]
        if len(cycle) > 1:
            cycles.append("(" + " ".join(cycle) + ")")
    return "".join(cycles) or "()"
