"""Time per transition: what canonicalising costs, beside plain SPIN's cost of a transition.

Every successor pan generates is canonicalised before pan looks it up, so a strategy's cost
shows best as pan's search time divided by the transitions it made.  For Peterson
N = 3..9 and e-mail N = 3..7 (tests/support/families.py) this runs ``auto`` and every registered
strategy (``topspin_py.codegen.render.STRATEGIES``, read when the benchmark runs), and plain
SPIN on Peterson 5 (1,557,370 states) as the yardstick, all in one run with -DSAFETY -DNOREDUCE
(bench/runner.py).  It writes bench/results/per_transition.md and per_transition.json.

A run is skipped, with the reason in the report, when the two previous sizes of the same family
and strategy predict too many states or too long a search (bench/scaling.py's rule, with this
module's caps), or the same strategy failed at a smaller size.  Peterson 9 and e-mail 7 take
minutes and gigabytes: they run only with ``--big``, which also raises the caps.

TopSPIN's figures are not measured here: they are quoted from an earlier paired run (TopSPIN's
pan and ours in turn) and from shared/notes/topspin-baseline.md (same machine kind, SPIN 6.5.2,
same flags) in a table of their own.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from bench import runner
from bench.records import Record
from bench.scaling import RESULTS, _fill, _short, _why_skip, families, group_order
from topspin_py.codegen.render import STRATEGIES

PLAIN = "none"
AUTO = "auto"
PAN_ARGS = ("-m3000000",)          # deep enough for Peterson 9 (1,181,357) and e-mail 7 (1,849,372)
YARDSTICK = ("peterson", 5)        # plain SPIN's cost of a transition is measured here
RESOLUTION_S = 0.01                # pan's timer
TOO_SHORT_S = 0.1                  # below this, the time per transition is mostly the timer's


@dataclass(frozen=True)
class Caps:
    """When a run is skipped or stopped."""

    state_cap: float = 5_000_000   # predicted states stored
    time_cap: float = 120.0        # predicted seconds of search
    budget_s: float = 300.0        # wall-clock budget of a run that starts (bench/runner.py)


NORMAL = Caps()
BIG = Caps(state_cap=20_000_000, time_cap=900.0, budget_s=1800.0)


@dataclass(frozen=True)
class Family:
    key: str
    title: str
    sizes: tuple[int, ...]          # what runs by default
    big_sizes: tuple[int, ...]      # what --big adds


FAMILIES = [
    Family("peterson", "Peterson's filter lock ([BDLM07] Fig. 3), N processes, group S_N",
           (3, 4, 5, 6, 7, 8), (9,)),
    Family("email", "E-mail system (TopSPIN's email<N>.p), N clients and a mailer, group S_N",
           (3, 4, 5, 6), (7,)),
]
SOURCES = {"peterson": families.peterson, "email": families.email}

# TopSPIN 2.2's figures, measured elsewhere (not in this run).  "paired run": its best strategy
# `exactmarkers`, the whole pan process's time, our pan and TopSPIN's in turn on this machine;
# per transition as that run gives it.  topspin-baseline.md (section 3): pan's own "elapsed
# time" (10 ms resolution).  (family, N): [(source, strategy, states, transitions, seconds,
# µs per transition, note)]; None where the source gives no figure.
TOPSPIN: dict[tuple[str, int], list[tuple[str, str, int, int | None, float, float | None, str]]] = {
    ("peterson", 5): [("baseline", "exactmarkers", 17_321, 86_602, 0.02, None, "")],
    ("peterson", 6): [("baseline", "exactmarkers", 89_850, 539_096, 0.14, None, "")],
    ("peterson", 7): [("paired run", "exactmarkers", 442_481, None, 1.23, 0.40, "whole pan process"),
                      ("baseline", "exactmarkers", 442_481, 3_097_362, 1.59, None, "")],
    ("peterson", 8): [("paired run", "exactmarkers", 2_094_907, None, 6.9, None, "whole pan process")],
    ("peterson", 9): [("paired run", "exactmarkers", 9_619_054, None, 69.9, 0.81,
                       "whole pan process, 1.7 GB")],
    ("email", 3): [("baseline", "enumerate", 3_902, 11_951, 0.02, None, "")],
    ("email", 4): [("baseline", "enumerate", 36_255, 141_453, 0.54, None, "")],
}
# Plain SPIN on Peterson 5 (1,557,370 states, 7,786,847 transitions) where each source measured
# it: the paired run gives 0.21 µs per transition; the baseline's pan search took 2.42 s.
PLAIN_US = {"paired run": 0.21, "baseline": 2.42 / 7_786_847 * 1e6}
# The targets set for auto: its time per transition over plain SPIN's on Peterson 5 at most
# this, and a search time at most this (Peterson 8 and 9: half TopSPIN's; e-mail 6: a fifth of
# segmented's 65 s when the targets were set).
TARGET_RATIO = {("peterson", 7): 1.5, ("peterson", 9): 2.0}
TARGET_TIME_S = {("peterson", 8): (6.9 / 2, "half TopSPIN's 6.9 s"),
                 ("peterson", 9): (69.9 / 2, "half TopSPIN's 69.9 s"),
                 ("email", 6): (65 / 5, "a fifth of 65 s")}


def strategies() -> list[str]:
    """auto, then every registered strategy in registry order."""
    return [AUTO, *STRATEGIES]


def per_transition_us(r: Record) -> float | None:
    """pan's search time per transition, in µs (None: no run, or no transition)."""
    if r.status != "ok" or not r.transitions or r.search_s is None:
        return None
    return max(r.search_s, RESOLUTION_S) / r.transitions * 1e6


def measure(selected: list[Family], caps: Caps, big: bool, max_n: int | None = None,
            only: list[str] | None = None, log=print) -> list[Record]:
    """The yardstick first (plain SPIN, Peterson 5), then every size and strategy (``only``:
    just these)."""
    records: list[Record] = []

    def run(family: str, n: int, strategy: str, history: list[Record]) -> Record:
        source = SOURCES[family](n)
        record = Record(family, n, f"N = {n}", strategy, "skipped", detected_order=group_order(source))
        reason = _why_skip(history, n, caps.state_cap, caps.time_cap)
        if reason is None:
            record.load_avg = round(os.getloadavg()[0], 2)
            _fill(record, runner.run(source, strategy, PAN_ARGS, caps.budget_s))
        else:
            record.reason = reason
        records.append(record)
        log(_line(record))
        return record

    run(*YARDSTICK, PLAIN, [])
    for family in selected:
        sizes = [n for n in (*family.sizes, *(family.big_sizes if big else ()))
                 if max_n is None or n <= max_n]
        for n in sizes:
            for strategy in [s for s in strategies() if not only or s in only]:
                history = [r for r in records if r.family == family.key and r.strategy == strategy]
                run(family.key, n, strategy, history)
    return records


def _line(r: Record) -> str:
    head = f"{r.family:9s} N={r.n:<2d} {r.strategy:15s}"
    if r.status != "ok":
        return f"{head} {r.status}: {r.reason}"
    us = per_transition_us(r) or 0.0
    return (f"{head} {r.states:>11,d} states {r.transitions:>12,d} transitions {r.search_s:8.2f} s "
            f"{us:7.3f} µs/transition {r.reason}")


# ---------------------------------------------------------------------------------- reports


def yardstick(records: list[Record]) -> Record | None:
    return next((r for r in records if r.strategy == PLAIN and (r.family, r.n) == YARDSTICK
                 and r.status == "ok"), None)


def _cell(r: Record | None, plain_us: float | None) -> str:
    if r is None:
        return "-"
    if r.status == "skipped":
        return r.reason
    if r.status == "failed":
        return f"**failed**: {r.reason}"
    us = per_transition_us(r)
    if us is None:
        return f"{r.states:,} / 0 transitions / {r.search_s:.2f} s"
    assert r.search_s is not None          # per_transition_us gave a figure
    ratio = f", {us / plain_us:.2f}x" if plain_us else ""
    short = " (short: timer)" if r.search_s < TOO_SHORT_S else ""
    ran_as = r.extra.get("used_strategy")
    picked = f" [{ran_as}]" if r.strategy == AUTO and ran_as else ""
    notes = [note for note in r.reason.split("; ") if note and not note.startswith("ran as ")] \
        if r.strategy == AUTO else [r.reason] if r.reason else []
    return (f"{r.states:,} / {r.transitions:,} / {r.search_s:.2f} s / "
            f"**{us:.3f} µs**{ratio}{short}{picked}" + (f" ({'; '.join(notes)})" if notes else ""))


def _targets(records: list[Record], plain_us: float | None) -> list[str]:
    """The targets set for auto, beside this run's figures."""
    auto = {(r.family, r.n): r for r in records if r.strategy == AUTO and r.status == "ok"}
    lines = ["| model | auto: µs per transition | over plain SPIN's (this run) | target | "
             "auto: search time | target |", "|---|---|---|---|---|---|"]
    for key in sorted(set(TARGET_RATIO) | set(TARGET_TIME_S)):
        r = auto.get(key)
        us = per_transition_us(r) if r is not None else None
        ratio = f"{us / plain_us:.2f}x" if us is not None and plain_us else "-"
        want_ratio = f"at most {TARGET_RATIO[key]:g}x" if key in TARGET_RATIO else "-"
        want_time = (f"at most {TARGET_TIME_S[key][0]:.2f} s ({TARGET_TIME_S[key][1]})"
                     if key in TARGET_TIME_S else "-")
        lines.append(f"| {key[0]} {key[1]} | {f'{us:.3f}' if us is not None else 'not run'} | {ratio} | "
                     f"{want_ratio} | {f'{r.search_s:.2f} s' if r is not None else 'not run'} | {want_time} |")
    return lines


def markdown(records: list[Record], elapsed_s: float, caps: Caps, big: bool, command: str) -> str:
    names = strategies()
    plain = yardstick(records)
    plain_us = per_transition_us(plain) if plain is not None else None
    loads = [r.load_avg for r in records if r.load_avg is not None]
    labels = {name: f"{name} ({STRATEGIES[name].exactness})" for name in STRATEGIES}
    labels[AUTO] = "auto"
    yard = f"{YARDSTICK[0].capitalize()} {YARDSTICK[1]}"
    lines = [
        "# Time per transition",
        "",
        f"Generated by `{command}` (bench/transitions.py) "
        f"in one run of {elapsed_s / 60:.1f} minutes on this machine ({os.cpu_count()} CPUs; "
        + (f"1-minute load average {min(loads):.1f} to {max(loads):.1f} as the runs started"
           if loads else "no run was made") + "). SPIN 6.5.2, gcc -O2, `-DSAFETY -DNOREDUCE`, "
        f"`pan {' '.join(PAN_ARGS)}`; one run each, so times are indicative and counts exact.",
        "",
        "* Cells: **states stored / transitions / pan's search time / time per transition** "
        f"(search time over transitions), then that time over plain SPIN's on {yard} measured "
        "in this run. pan's timer has 10 ms resolution: a search under "
        f"{TOO_SHORT_S:g} s is marked \"short\" and its time per transition says little.",
        "* `auto` shows in brackets the strategy it chose.",
        f"* A run is skipped when the two previous sizes predict more than {_short(caps.state_cap)} states "
        f"or more than {caps.time_cap:g} s of search, or the same strategy failed at a smaller N; "
        f"a run that starts has {caps.budget_s:g} s."
        + ("" if big else " Peterson 9 and e-mail 7 need `--big`."),
        "",
        f"## The yardstick: plain SPIN on {yard}",
        "",
    ]
    if plain is not None and plain_us is not None:
        lines.append(f"{plain.states:,} states, {plain.transitions:,} transitions, {plain.search_s:.2f} s "
                     f"of search: **{plain_us:.3f} µs per transition** (the paired run measured "
                     f"{PLAIN_US['paired run']:g} µs).")
    else:
        tried = next((r for r in records if r.strategy == PLAIN), None)
        lines.append("Not measured in this run" + (f": {_cell(tried, None)}" if tried else "")
                     + "; ratios are left out.")
    lines += ["", "## auto against its targets", "", *_targets(records, plain_us)]
    for family in FAMILIES:
        rows = [r for r in records if r.family == family.key and r.strategy != PLAIN]
        if not rows:
            continue
        lines += ["", f"## {family.title}", "",
                  "| N | \\|G\\| | " + " | ".join(labels.get(s, s) for s in names) + " |",
                  "|---" * (len(names) + 2) + "|"]
        for n in sorted({r.n for r in rows}):
            at = {r.strategy: r for r in rows if r.n == n}
            order = next((r.detected_order for r in at.values() if r.detected_order), None)
            lines.append(f"| {n} | {f'{order:,}' if order else '-'} | "
                         + " | ".join(_cell(at.get(s), plain_us) for s in names) + " |")
    lines += ["", "## TopSPIN, for reference (measured elsewhere, not in this run)", "",
              "TopSPIN 2.2 built from `afd/symmetrytools`, SPIN 6.5.2, `-DSAFETY -DNOREDUCE`, on a "
              "machine of the same kind. \"paired run\": its best strategy, `exactmarkers`, timed as "
              "the whole pan process, alternating with ours in one run; plain SPIN on Peterson 5 "
              f"cost {PLAIN_US['paired run']:g} µs per transition there. \"baseline\": "
              "shared/notes/topspin-baseline.md, section 3, pan's own search time (10 ms "
              f"resolution); its plain SPIN on Peterson 5 searched 2.42 s, {PLAIN_US['baseline']:.3f} µs "
              "per transition. Times per transition are quoted where the source gives them, else "
              "computed from its time and transitions; where it gives no transitions, this run's "
              "count of an exact strategy on the same model is used (every exact strategy stores "
              "one state per orbit, and a state has as many successors as any state of its orbit: "
              "the count is the same), marked *.",
              "",
              "| model | source | TopSPIN strategy | states | transitions | time (s) | µs per transition "
              "| over the source's plain SPIN on Peterson 5 | note |",
              "|---|---|---|---|---|---|---|---|---|"]
    exact_transitions = {(r.family, r.n): r.transitions for r in records
                         if r.status == "ok" and r.complete and r.strategy in STRATEGIES
                         and STRATEGIES[r.strategy].exactness == "exact" and r.extra.get("used_strategy") == r.strategy}
    for (name, n), entries in TOPSPIN.items():
        for source, strategy, states, transitions, seconds, us, note in entries:
            shown = f"{transitions:,}" if transitions else "-"
            if transitions is None and (name, n) in exact_transitions:
                transitions = exact_transitions[name, n]
                shown = f"{transitions:,}*"
            if us is None and transitions:
                us = max(seconds, RESOLUTION_S) / transitions * 1e6
            lines.append(f"| {name} {n} | {source} | {strategy} | {states:,} | {shown} | {seconds:g} | "
                         f"{f'{us:.3f}' if us is not None else '-'} | "
                         f"{f'{us / PLAIN_US[source]:.1f}x' if us is not None else '-'} | {note} |")
    return "\n".join(lines) + "\n"


def save(records: list[Record], elapsed_s: float, caps: Caps, big: bool, command: str) -> list[Path]:
    RESULTS.mkdir(parents=True, exist_ok=True)
    data = RESULTS / "per_transition.json"
    data.write_text(json.dumps({"command": command, "elapsed_s": round(elapsed_s, 1), "big": big,
                                "caps": asdict(caps), "strategies": strategies(),
                                "records": [asdict(r) for r in records]}, indent=1) + "\n")
    report = RESULTS / "per_transition.md"
    report.write_text(markdown(records, elapsed_s, caps, big, command))
    return [report, data]


def run(selected: list[Family] | None = None, big: bool = False, max_n: int | None = None,
        caps: Caps | None = None, only: list[str] | None = None) -> list[Path]:
    selected = selected or FAMILIES
    caps = caps or (BIG if big else NORMAL)
    command = " ".join(["python -m bench transitions",
                        *(f"--family {f.key}" for f in selected if len(selected) < len(FAMILIES)),
                        *(f"--strategy {name}" for name in only or []),
                        *([f"--max-n {max_n}"] if max_n is not None else []), *(["--big"] if big else []),
                        *([f"--budget {caps.budget_s:g}"] if caps.budget_s != (BIG if big else NORMAL).budget_s
                          else [])])
    started = time.monotonic()
    records = measure(selected, caps, big, max_n, only)
    return save(records, time.monotonic() - started, caps, big, command)
