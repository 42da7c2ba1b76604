"""Replaying trails with real ``spin -t``, and reading the states a replay ends in.

``spin -t -p -g -l`` replays a trail from the initial state and, when the trail ends, prints
the state it reached: every channel's contents (``queue 1 (link[0]): [2]``), every global
variable, and each process's place (``proc 2 (node:1) m.pml:8 (state 13)``) with its local
variables (``node(2):entered = 0``), the never claim's place too.  That dump, without the
step numbers spin puts in front of the process lines, is the state "by values".

A cycle's trail has a ``-1:-1:-1`` line before the first step of the cycle: the trail of the
lines above it (its prefix) replays to the state the cycle starts from, so a lasso is real
when the whole trail and its prefix end in the same dump.  ``spin -t`` itself prints
``<<<<<START OF CYCLE>>>>>`` where the cycle starts but never checks that it closes.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

CYCLE_MARK = "-1:-1:-1"
START_OF_CYCLE = "<<<<<START OF CYCLE>>>>>"
_ENDS = re.compile(r"^spin: trail ends after (\d+) steps$", re.M)
_STEP = re.compile(r"^\d+:-?\d+:-?\d+$")


@dataclass(frozen=True)
class Replay:
    stdout: str
    steps: int | None            # "spin: trail ends after N steps"
    final_state: tuple[str, ...]  # the dump after it, step numbers left out

    @property
    def cycle_started(self) -> bool:
        return START_OF_CYCLE in self.stdout


def replay(workdir: Path, model: str, trail: Path, spin_args: Sequence[str] = ()) -> Replay:
    """``spin [spin_args] -t -k trail -p -g -l model`` in ``workdir``."""
    run = subprocess.run(["spin", *spin_args, "-k", str(trail), "-t", "-p", "-g", "-l", model],
                         cwd=workdir, capture_output=True, text=True, timeout=300)
    ends = list(_ENDS.finditer(run.stdout))
    if not ends:
        return Replay(run.stdout + run.stderr, None, ())
    dump = []
    for line in run.stdout[ends[-1].end():].splitlines():
        line = line.strip()
        if not line or re.fullmatch(r"\d+ process(es)? created", line):
            continue
        dump.append(re.sub(r"^\d+:\s+", "", line))
    return Replay(run.stdout, int(ends[-1].group(1)), tuple(dump))


def steps(trail_text: str) -> list[str]:
    return [line for line in trail_text.splitlines() if _STEP.fullmatch(line.strip())]


def prefix(trail_text: str) -> str:
    """The trail's lines above its cycle mark: the path to the state the cycle starts from."""
    lines = trail_text.splitlines()
    return "\n".join(lines[:lines.index(CYCLE_MARK)]) + "\n"


def first_steps(trail_text: str, count: int) -> str:
    """The trail cut after its first ``count`` steps (its marks kept)."""
    out, seen = [], 0
    for line in trail_text.splitlines():
        if _STEP.fullmatch(line.strip()):
            if seen == count:
                break
            seen += 1
        out.append(line)
    return "\n".join(out) + "\n"


def lasso_is_real(workdir: Path, model: str, trail: Path, spin_args: Sequence[str] = ()) -> tuple[bool, str]:
    """Whether the cycle trail ``trail`` replays with spin -t to the very state (by values) its
    cycle starts from; the second value says what differs when not."""
    text = trail.read_text()
    if CYCLE_MARK not in text.splitlines():
        return False, "the trail has no cycle mark"
    whole = replay(workdir, model, trail, spin_args)
    head_file = trail.with_name(trail.name + ".prefix")
    head_file.write_text(prefix(text))
    head = replay(workdir, model, head_file, spin_args)
    if not whole.cycle_started:
        return False, "spin -t printed no START OF CYCLE:\n" + whole.stdout[-2000:]
    if whole.steps is None or head.steps is None:
        return False, "spin -t did not replay the trail to its end:\n" + whole.stdout[-2000:]
    if whole.final_state != head.final_state:
        return False, (f"the cycle starts in\n  {head.final_state}\nand ends in\n  {whole.final_state}")
    return True, ""
