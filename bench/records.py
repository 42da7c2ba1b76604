"""What the benchmark reports share: a model family, one run's record, and the names of the
strategies that are run (plain SPIN first).

Kept apart from bench/scaling.py, which runs the measurements, so that bench/plots.py and the
other reports can read records without importing the runner (bench/plots.py and
bench/scaling.py used to import each other).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from topspin_py.codegen.registry import STRATEGIES

PLAIN = "none"                  # verify's name for plain SPIN
TIME_FLOOR = 0.01               # pan's timer resolution; plots put 0.00 s here


@dataclass(frozen=True)
class Family:
    key: str                            # file names and lookups
    title: str
    n_meaning: str                      # what N counts
    sizes: tuple[int, ...]
    source: Callable[[int], str]
    config: Callable[[int], str]        # the configuration N stands for, in the family's terms
    notes: str = ""


@dataclass
class Record:
    family: str
    n: int
    config: str
    strategy: str
    status: str                       # "ok", "skipped" or "failed"
    reason: str = ""                  # why skipped or failed; for "ok", what to know
    group_order: int | None = None
    states: int | None = None
    transitions: int | None = None
    search_s: float | None = None     # pan's search time
    wall_s: float | None = None       # the whole run: detect, spin, gcc and pan
    memory_mb: float | None = None
    complete: bool | None = None
    exact: bool | None = None
    load_avg: float | None = None     # the machine's 1-minute load average as the run started
    detected_order: int | None = None  # |G| that `detect` finds for this size, run or not
    extra: dict = field(default_factory=dict)


def ok_states(r: Record) -> int:
    """An "ok" record's states stored (every run that gave a Result has them)."""
    assert r.states is not None, r
    return r.states


def ok_search_s(r: Record) -> float:
    """An "ok" record's pan search time (every run that gave a Result has it)."""
    assert r.search_s is not None, r
    return r.search_s


def strategies() -> list[str]:
    """Plain SPIN first, then every registered strategy, in registry order."""
    return [PLAIN, *STRATEGIES]


def label(strategy: str) -> str:
    return "plain SPIN" if strategy == PLAIN else strategy
