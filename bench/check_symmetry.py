"""What `verify --check-symmetry` costs beside a plain verify of the same model, in the same run:
bench/results/check_symmetry.md.

Three models with a group: Peterson 4 (S4), e-mail 3 (S3) and tests/models/colours.pml (data
symmetry, S2 x S3), each verified by `auto` with -DSAFETY, without and with the check (its
default budget), the two alternating, ROUNDS rounds; the table gives each one's median wall
time (the whole verify: spin -a, detection, gcc, pan, and for the check its two pans' builds
and searches), the ratio, and what the check compared.

    python -m bench check        (also part of `make bench`)
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.runner import report_preamble
from topspin_py.symcheck import DEFAULT_BUDGET
from topspin_py.verify import VerifyOptions, verify

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))
import families  # noqa: E402  (the model generators live with the tests)

RESULTS = Path(__file__).resolve().parent / "results"
ROUNDS = 3
CASES = [   # (label, model text)
    ("Peterson 4", lambda: families.peterson(4)),
    ("e-mail 3", lambda: families.email(3)),
    ("colours", lambda: (REPO / "tests" / "models" / "colours.pml").read_text()),
]


def _timed(path: Path, check: bool):
    started = time.monotonic()
    result = verify(path, VerifyOptions(defines=("SAFETY",), save_trails=False,
                                        check_symmetry=DEFAULT_BUDGET if check else None))
    return time.monotonic() - started, result


def run() -> Path:
    rows = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="topspin-check-bench-") as name:
        for label, text in CASES:
            path = Path(name) / f"{label.replace(' ', '_').replace('-', '').lower()}.pml"
            path.write_text(text())
            plain_times, checked_times, checked = [], [], None
            for _ in range(ROUNDS):
                seconds, _result = _timed(path, check=False)
                plain_times.append(seconds)
                seconds, checked = _timed(path, check=True)
                checked_times.append(seconds)
            assert checked is not None and checked.symmetry_check is not None and checked.symmetry_check["agrees"]
            rows.append((label, checked.group_order, checked.states_stored, statistics.median(plain_times),
                         statistics.median(checked_times), checked.symmetry_check))
    lines = [
        *report_preamble("The cost of `verify --check-symmetry`", __doc__, ROUNDS),
        "| model | \\|G\\| | states stored (verify) | verify | verify --check-symmetry | ratio | "
        "plain pan's states compared | orbits | every state |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, order, states, plain, checked, check in rows:
        lines.append(f"| {label} | {order:,} | {states:,} | {plain:.2f} s | {checked:.2f} s | {checked / plain:.2f} | "
                     f"{check['plain_states']:,} | {check['orbits']:,} | {'yes' if check['complete'] else 'no'} |")
    lines += ["", f"Benchmark wall time: {time.monotonic() - started:.0f} s.", ""]
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "check_symmetry.md"
    out.write_text("\n".join(lines))
    return out
