"""SPIN's multi-core search (-DNCORE=2) with symmetry reduction against one core, in the same
run: bench/results/multicore.md.

Peterson 7 and e-mail 5 reduced by `auto` (refine), and Peterson 5 unreduced (plain pan's own
multi-core search, the yardstick), each with -DNCORE=1 and -DNCORE=2, -DSAFETY -DNOREDUCE
(without partial order reduction the counts of a full search do not depend on how the cores
share the work, so both must store the same states), pan -w21 (a multi-core pan cannot grow
its hash table) and -m1000000.  The rounds alternate one core and two, and the table gives
each configuration's fastest search time (pan's own "elapsed time") and the counts, which
must agree.

    python -m bench multicore            (also part of `make bench`)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from bench.runner import report_preamble
from topspin_py.verify import VerifyOptions, verify

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))
import families  # noqa: E402  (the model generators live with the tests)

RESULTS = Path(__file__).resolve().parent / "results"
ROUNDS = 3
CASES = [   # (label, model text, strategy)
    ("Peterson 7", lambda: families.peterson(7), "auto"),
    ("e-mail 5", lambda: families.email(5), "auto"),
    ("Peterson 5, unreduced", lambda: families.peterson(5), "none"),
]


def _one(path: Path, strategy: str, cores: int):
    return verify(path, VerifyOptions(strategy=strategy, defines=("SAFETY", "NOREDUCE", f"NCORE={cores}"),
                                      pan_args=("-w21", "-m1000000"), save_trails=False,
                                      optimisation="-O2"))


def run() -> Path:
    rows = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="topspin-multicore-") as name:
        for label, text, strategy in CASES:
            path = Path(name) / f"{label.split(',')[0].replace(' ', '_').lower()}.pml"
            path.write_text(text())
            runs: dict[int, list] = {1: [], 2: []}
            for _ in range(ROUNDS):
                for cores in (1, 2):
                    runs[cores].append(_one(path, strategy, cores))
            counts = {(r.states_stored, r.transitions) for rs in runs.values() for r in rs}
            assert len(counts) == 1, f"{label}: the counts differ between runs: {counts}"
            (states, transitions), = counts
            best = {cores: min(r.elapsed_s for r in rs) for cores, rs in runs.items()}
            rows.append((label, strategy, runs[1][0].group_order, states, transitions, best[1], best[2],
                         [r.elapsed_s for r in runs[1]], [r.elapsed_s for r in runs[2]]))
    lines = [
        *report_preamble("Multi-core search with symmetry reduction (-DNCORE=2 against one core)", __doc__),
        "| model | strategy | \\|G\\| | states | transitions | 1 core | 2 cores | 2 cores / 1 core | "
        "1 core, every round | 2 cores, every round |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, strategy, order, states, transitions, one, two, all_one, all_two in rows:
        lines.append(f"| {label} | {strategy} | {order:,} | {states:,} | {transitions:,} | {one:.2f} s | "
                     f"{two:.2f} s | {two / one:.2f} | {', '.join(f'{t:.2f}' for t in all_one)} | "
                     f"{', '.join(f'{t:.2f}' for t in all_two)} |")
    lines += ["", f"Benchmark wall time: {time.monotonic() - started:.0f} s.", ""]
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "multicore.md"
    out.write_text("\n".join(lines))
    return out
