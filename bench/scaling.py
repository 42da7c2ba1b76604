"""States and time against N: six model families, several sizes each, with every registered
strategy and plain SPIN in the same run.

For each family and size the model is generated (tests/support/families.py) and verified with
`--strategy none` (plain SPIN) and with each strategy of ``topspin_py.codegen.render.STRATEGIES``
(whatever is registered when the benchmark runs), all with -DSAFETY -DNOREDUCE.  A run is
skipped, with the reason in the report, when

* the states it would store, extrapolated from the two previous sizes of the same family and
  strategy (geometric growth), exceed ``STATE_CAP``;
* its search time, extrapolated the same way, exceeds ``PREDICTED_TIME_CAP``;
* the same strategy failed or ran out of its budget on a smaller size of the family.

Every run that starts has a wall-clock budget (``RUN_BUDGET_S``, bench/runner.py).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))

import families  # noqa: E402  (the model generators live with the tests)

from bench import runner  # noqa: E402
from bench.records import PLAIN, TIME_FLOOR, Family, Record, label, ok_search_s, ok_states, strategies  # noqa: E402
from topspin_py.codegen.render import STRATEGIES  # noqa: E402
from topspin_py.errors import TopspinError  # noqa: E402
from topspin_py.promela import load_model  # noqa: E402
from topspin_py.symmetry.detect import detect  # noqa: E402

RESULTS = REPO / "bench" / "results"
PAN_ARGS = ("-m1000000",)       # verify reruns deeper if the search needs it
STATE_CAP = 5_000_000           # no run that would store more states than this
PREDICTED_TIME_CAP = 90.0       # seconds of search, extrapolated
RUN_BUDGET_S = 240.0            # wall-clock budget of one run (spin, gcc, pan)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


FAMILIES: list[Family] = [
    Family("peterson", "Peterson's filter lock", "processes", (2, 3, 4, 5, 6, 7), families.peterson,
           lambda n: f"{n} processes, {_plural(n - 1, 'room')}",
           notes="N - 1 waiting rooms; group S_N. TopSPIN's peterson3..7."),
    Family("mutex", "Simple mutex", "users", (3, 5, 8, 10, 12, 16, 20, 30, 40), families.mutex,
           lambda n: f"{n} users",
           notes="Unreduced (N + 2) 2^(N-1) + 1 states; group S_N (40! at N = 40)."),
    Family("email", "E-mail system", "clients", (2, 3, 4, 5, 6), families.email,
           lambda n: f"{n} clients, a mailer",
           notes="N clients and a mailer; group S_N. TopSPIN's email3, email4."),
    Family("load_balancer", "Load balancer", "clients", (2, 3, 4, 5, 6),
           lambda n: families.load_balancer(n, 2), lambda n: f"{n} clients, 2 servers",
           notes="N clients, one balancer, 2 servers; group S_N x S_2. TopSPIN's loadbalancer is N = 4."),
    Family("resource_allocator", "Resource allocator", "clients", (4, 6, 8, 10, 12, 14, 16),
           lambda n: families.resource_allocator(n // 2, n - n // 2),
           lambda n: f"{n // 2}-{n - n // 2}",
           notes="N clients in two priority levels of N/2 (configuration a-b of [DM08] Table 2); "
                 "group S_{N/2} x S_{N/2}. N = 10 is TopSPIN's resall-5-5."),
    Family("three_tiered", "Three-tiered architecture", "clients per server", (1, 2, 3, 4, 5),
           lambda n: families.three_tiered(n, n, buffered=True), lambda n: f"2 servers x {_plural(n, 'client')}",
           notes="A database, 2 servers with N clients each, buffered channels (TopSPIN's 2sNcs; "
                 "N = 3 is 2s3cs); group S_N wr S_2."),
]


def heading(strategy: str) -> str:
    """A column's heading: the strategy with its exactness (``markers-approx (approximate)``)."""
    return label(strategy) if strategy == PLAIN else f"{strategy} ({STRATEGIES[strategy].exactness})"


def _extrapolate(points: list[tuple[int, float]], n: int) -> float | None:
    """Geometric extrapolation to ``n`` from the last two (N, value) points."""
    if len(points) < 2:
        return None
    (n1, v1), (n2, v2) = points[-2], points[-1]
    if v1 <= 0 or v2 <= 0 or n2 == n1:
        return None
    return v2 * (v2 / v1) ** ((n - n2) / (n2 - n1))


def _why_skip(history: list[Record], n: int, state_cap: float = STATE_CAP,
              time_cap: float = PREDICTED_TIME_CAP) -> str | None:
    """The reason not to run size ``n``, from the same family and strategy at smaller sizes
    (``state_cap``, ``time_cap``: the caps on predicted states and seconds of search)."""
    for earlier in history:
        if earlier.status == "failed":
            return f"not run: failed at N = {earlier.n}"
        if earlier.status == "skipped":
            return f"not run (N = {earlier.n} was skipped)"
    done = [r for r in history if r.status == "ok"]
    states = _extrapolate([(r.n, ok_states(r)) for r in done], n)
    if states is not None and states > state_cap:
        return (f"not run: about {_short(states)} states expected (from N = {done[-2].n}, {done[-1].n}), "
                f"over the {_short(state_cap)} cap")
    if states is not None and ok_search_s(done[-1]) >= 0.5:
        # time per stored state, extrapolated the same way (it grows with the group for some strategies)
        per_state = _extrapolate([(r.n, max(ok_search_s(r), TIME_FLOOR) / ok_states(r)) for r in done], n)
        if per_state is not None and ok_search_s(done[-2]) < 0.05:
            per_state = ok_search_s(done[-1]) / ok_states(done[-1])   # too little signal: linear in states
        seconds = states * per_state if per_state is not None else None
        if seconds is not None and seconds > time_cap:
            return (f"not run: about {_duration(seconds)} of search expected (from N = {done[-2].n}, "
                    f"{done[-1].n}), over the {time_cap:g} s cap")
    return None


def _short(count: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if count >= scale:
            return f"{count / scale:.3g}{unit}"
    return f"{count:.0f}"


def _duration(seconds: float) -> str:
    if seconds >= 86400:
        return f"{seconds / 86400:.3g} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.3g} h"
    if seconds >= 120:
        return f"{seconds / 60:.3g} min"
    return f"{seconds:.3g} s"


def measure(selected: list[Family] | None = None, log=print) -> list[Record]:
    records: list[Record] = []
    for family in selected or FAMILIES:
        for n in family.sizes:
            source = family.source(n)
            order = group_order(source)
            for strategy in strategies():
                history = [r for r in records if r.family == family.key and r.strategy == strategy]
                record = Record(family.key, n, family.config(n), strategy, "skipped", detected_order=order)
                reason = _why_skip(history, n)
                if reason is None:
                    record.load_avg = round(os.getloadavg()[0], 2)
                    outcome = runner.run(source, strategy, PAN_ARGS, RUN_BUDGET_S)
                    _fill(record, outcome)
                else:
                    record.reason = reason
                records.append(record)
                log(_line(family, record))
    return records


def group_order(source: str) -> int | None:
    """The order of the group `detect` finds (parse and detect only, a fraction of a second)."""
    with tempfile.TemporaryDirectory(prefix="topspin-bench-") as work:
        path = Path(work) / "model.pml"
        path.write_text(source)
        try:
            return detect(load_model(path)).order
        except TopspinError:
            return None


def _fill(record: Record, outcome: runner.Outcome) -> None:
    record.wall_s = round(outcome.wall_s, 2)
    if not outcome.ok:
        assert outcome.failure is not None   # runner.run gives the reason when there is no Result
        record.status, record.reason = "failed", outcome.failure
        return
    result = outcome.result
    assert result is not None                # outcome.ok
    record.status = "ok"
    record.group_order = result.group_order
    record.states, record.transitions = result.states_stored, result.transitions
    record.search_s, record.memory_mb = result.elapsed_s, result.memory_mb
    record.complete, record.exact = result.complete, result.exact
    record.extra = {"depth": result.depth, "errors": result.errors,
                    "state_vector_bytes": result.state_vector_bytes, "used_strategy": result.strategy}
    notes = []
    if not result.complete:
        notes.append(f"incomplete: {result.incomplete_reason}")
    if result.errors:
        notes.append(f"{result.errors} error(s) found")
    if record.strategy != PLAIN and result.strategy != record.strategy:
        notes.append(f"ran as {result.strategy}")   # a trivial group: nothing to reduce
    record.reason = "; ".join(notes)


def _line(family: Family, r: Record) -> str:
    head = f"{family.key:18s} N={r.n:<3d} {label(r.strategy):11s}"
    if r.status != "ok":
        return f"{head} {r.status}: {r.reason}"
    return (f"{head} |G|={r.group_order:<12d} {r.states:>10,d} states {r.search_s:8.2f} s search "
            f"{r.wall_s:7.2f} s wall {r.memory_mb:8.1f} MB {r.reason}")


# ---------------------------------------------------------------------------------- reports


def save(records: list[Record], elapsed_s: float) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "scaling.json"
    path.write_text(json.dumps({"elapsed_s": round(elapsed_s, 1), "strategies": strategies(),
                                "records": [asdict(r) for r in records]}, indent=1) + "\n")
    return path


def load() -> tuple[list[Record], float]:
    data = json.loads((RESULTS / "scaling.json").read_text())
    return [Record(**r) for r in data["records"]], data["elapsed_s"]


def _load_line(records: list[Record]) -> str:
    loads = [r.load_avg for r in records if r.load_avg is not None]
    if not loads:
        return "* No run was made."
    return (f"* The machine has {os.cpu_count()} CPUs; its 1-minute load average as each run started "
            f"was {min(loads):.1f} to {max(loads):.1f} (median {sorted(loads)[len(loads) // 2]:.1f}). "
            "Runs are sequential, but other work may share the machine: times are indicative, "
            "counts exact.")


def _cell(r: Record) -> str:
    if r.status == "skipped":
        return r.reason
    if r.status == "failed":
        return f"**failed**: {r.reason}"
    text = f"{r.states:,} / {r.search_s:.2f} s"
    return text + (f" ({r.reason})" if r.reason else "")


def _mismatches(rows: list[Record]) -> list[str]:
    """Exact strategies must agree on the number of states (one per orbit)."""
    exact = {r.strategy: r.states for r in rows
             if r.status == "ok" and r.strategy != PLAIN and r.exact and r.complete
             and r.extra.get("used_strategy") == r.strategy}
    if len(set(exact.values())) > 1:
        return [", ".join(f"{s} {v:,}" for s, v in exact.items())]
    return []


def markdown(records: list[Record], elapsed_s: float) -> str:
    names = strategies()
    lines = [
        "# States and time against N",
        "",
        "Generated by `make bench` (bench/scaling.py) in one run of "
        f"{elapsed_s / 60:.1f} minutes on this machine (SPIN 6.5.2, gcc -O2, one run each).",
        "Every model is verified with `-DSAFETY -DNOREDUCE` and `pan -m1000000` (deeper if needed), "
        "by plain SPIN (`--strategy none`) and by every registered strategy: "
        + ", ".join(f"`{s}` ({STRATEGIES[s].exactness})" for s in names[1:] if s in STRATEGIES) + ". "
        "Exact: one state per orbit; complete: at least one (the count may be above the exact one); "
        "approximate: orbits may be merged (the count may be below; \"no errors\" is no proof). "
        "Time per transition: [per_transition.md](per_transition.md).",
        "",
        _load_line(records),
        "* Cells: **states stored / pan's search time** (10 ms resolution). Transitions, memory and "
        "the whole run's wall time (detect, spin, gcc, pan) are in the table at the end.",
        f"* A run is skipped when the two previous sizes predict more than {_short(STATE_CAP)} states "
        f"or more than {PREDICTED_TIME_CAP:g} s of search, or when the same strategy failed at a "
        f"smaller N; each run that starts has a {RUN_BUDGET_S:g} s budget.",
        "* Plots (log scale, one line per strategy): "
        + ", ".join(f"[{f.key}](scaling_{f.key}.png)" for f in _families(records))
        + "; all families: [states](scaling_states.png), [time](scaling_time.png).",
        "",
    ]
    for family in _families(records):
        rows = [r for r in records if r.family == family.key]
        lines += [f"## {family.title}", "", f"N = {family.n_meaning}. {family.notes}", "",
                  f"![{family.title}](scaling_{family.key}.png)", "",
                  "| N | configuration | \\|G\\| | " + " | ".join(heading(s) for s in names) + " | reduction |",
                  "|---" * (len(names) + 4) + "|"]
        warnings = []
        for n in sorted({r.n for r in rows}):
            at = {r.strategy: r for r in rows if r.n == n}
            order = next((r.detected_order for r in at.values() if r.detected_order), None)
            cells = [_cell(at[s]) if s in at else "-" for s in names]
            lines.append(f"| {n} | {next(iter(at.values())).config} | {_order(order)} | "
                         + " | ".join(cells) + f" | {_reduction(at)} |")
            warnings += [f"N = {n}: exact strategies disagree: {m}" for m in _mismatches(list(at.values()))]
        lines += [""] + [f"**{w}**" for w in warnings] + ([""] if warnings else [])
    lines += ["## Every run", "",
              "| family | N | strategy | \\|G\\| | states | transitions | search (s) | wall (s) | memory (MB) | note |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        if r.status == "ok":
            lines.append(f"| {r.family} | {r.n} | {label(r.strategy)} | {r.group_order} | {r.states:,} | "
                         f"{r.transitions:,} | {r.search_s:.2f} | {r.wall_s:.2f} | {r.memory_mb:.1f} | {r.reason} |")
        else:
            wall = f"{r.wall_s:.2f}" if r.wall_s is not None else "-"
            lines.append(f"| {r.family} | {r.n} | {label(r.strategy)} | - | - | - | - | {wall} | - | "
                         f"{r.status}: {r.reason} |")
    return "\n".join(lines) + "\n"


def _order(order: int | None) -> str:
    if order is None:
        return "-"
    if order < 10**9:
        return f"{order:,}"
    mantissa, exponent = f"{order:.2e}".split("e+")
    return f"{mantissa}e{int(exponent)}"


def _reduction(at: dict[str, Record]) -> str:
    """Plain states over the best reduced states, when both were measured (an approximate
    strategy's count may be below the orbit count: it is left out)."""
    plain = at.get(PLAIN)
    reduced = [ok_states(r) for s, r in at.items() if s != PLAIN and r.status == "ok" and r.complete
               and STRATEGIES.get(s) is not None and STRATEGIES[s].exactness != "approximate"]
    if plain is None or plain.status != "ok" or not reduced or not plain.complete:
        return "-"
    return f"{ok_states(plain) / min(reduced):,.1f}x"


def _families(records: list[Record]) -> list[Family]:
    keys = {r.family for r in records}
    return [f for f in FAMILIES if f.key in keys]


def report(records: list[Record], elapsed_s: float) -> list[Path]:
    from bench import plots

    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "scaling.md"
    out.write_text(markdown(records, elapsed_s))
    return [out, *plots.draw(records, _families(records), RESULTS)]


def run(selected: list[Family] | None = None) -> tuple[list[Record], list[Path]]:
    started = time.monotonic()
    records = measure(selected)
    elapsed = time.monotonic() - started
    return records, [save(records, elapsed), *report(records, elapsed)]
