"""Where a run tells what it does (verify, swarm): the notes and details for the user, the
stages for the progress display and their times for --verbose, the commands run (--keep's
commands.txt), SPIN's #warnings from gcc and what the build cache did; and when this process
started, so that the wall time reported is the whole of it."""

from __future__ import annotations

import dataclasses
import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol


class Callbacks(Protocol):
    """The callbacks a command gives a run (verify.VerifyOptions has them)."""

    on_note: Callable[[str], None] | None
    on_detail: Callable[[str], None] | None
    on_stage: Callable[[str, int | None], None] | None


@dataclass
class Reporter:
    """Where a run tells what it does: VerifyOptions' callbacks, and the commands it ran (for
    --verbose and for --keep's commands.txt)."""

    note: Callable[[str], None]
    detail: Callable[[str], None]
    on_stage: Callable[[str, int | None], None]
    commands: list[str] = dataclasses.field(default_factory=list)
    compile_warnings: list[str] = dataclasses.field(default_factory=list)   # SPIN's #warnings gcc gave
    build_cache: list[str] = dataclasses.field(default_factory=list)   # what the cache did, each build
    # each stage as it started: its name and time.monotonic() (--verbose prints how long each took)
    stages: list[tuple[str, float]] = dataclasses.field(default_factory=list)

    def stage(self, name: str, pid: int | None) -> None:
        """A stage starts (``pid``: pan's, for the pan stage)."""
        self.stages.append((name, time.monotonic()))
        self.on_stage(name, pid)

    def stage_times(self, started: float, ended: float) -> str:
        """How long each stage took, from the run's start to its end: what --verbose prints."""
        marks = [("starting", started), *self.stages, ("", ended)]
        return "; ".join(f"{name.split(':')[0]} {later - at:.2f} s"
                         for (name, at), (_, later) in zip(marks, marks[1:])) + f"; in all {ended - started:.2f} s"

    def cache_event(self, text: str) -> None:
        self.build_cache.append(text)
        self.detail(f"build cache: {text}")

    def compile_warning(self, text: str) -> None:
        """A #warning of pan's sources that gcc gave: shown once, and kept for the Result."""
        if text not in self.compile_warnings:
            self.compile_warnings.append(text)
            self.note(f"gcc: {text}")

    @classmethod
    def of(cls, options: Callbacks) -> Reporter:
        return cls(options.on_note or (lambda text: None), options.on_detail or (lambda text: None),
                   options.on_stage or (lambda name, pid: None))

    def ran(self, command: list[str]) -> None:
        self.commands.append(shlex.join(command))
        self.detail("$ " + self.commands[-1])


def process_started() -> float | None:
    """When this process started, on time.monotonic()'s clock, so that the wall time verify
    reports counts Python's start and the imports (Linux's /proc/self/stat; None elsewhere)."""
    try:
        after_name = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        age = (time.clock_gettime(time.CLOCK_BOOTTIME)
               - int(after_name[19]) / os.sysconf("SC_CLK_TCK"))   # field 22, starttime, in ticks
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return time.monotonic() - max(age, 0.0)
