"""bench/transitions.py on the smallest case: Peterson 3, with plain SPIN on Peterson 3 standing
in for the Peterson 5 yardstick (seconds instead of a minute), the report written to tmp_path.

Expected counts: plain SPIN's 2,636 states and 7,907 transitions for Peterson 3, and the 494
orbits with 1,481 transitions that every exact strategy stores (the published reduced count;
shared/notes/topspin-baseline.md, section 3, where TopSPIN's exact strategies agree)."""

from __future__ import annotations

import json
import re
import sys

from conftest import REPO

sys.path.insert(0, str(REPO))

from bench import transitions  # noqa: E402
from topspin_py.codegen.render import STRATEGIES  # noqa: E402


def test_peterson3_report(tmp_path, monkeypatch):
    monkeypatch.setattr(transitions, "RESULTS", tmp_path)
    monkeypatch.setattr(transitions, "YARDSTICK", ("peterson", 3))
    peterson = next(f for f in transitions.FAMILIES if f.key == "peterson")
    written = transitions.run([peterson], max_n=3, caps=transitions.Caps(budget_s=120))
    assert sorted(p.name for p in written) == ["per_transition.json", "per_transition.md"]
    assert all(p.parent == tmp_path for p in written)

    records = json.loads((tmp_path / "per_transition.json").read_text())["records"]
    by_strategy = {r["strategy"]: r for r in records}
    # plain SPIN, auto and every registered strategy, each once
    assert sorted(by_strategy) == sorted(["none", "auto", *STRATEGIES]) and len(records) == len(by_strategy)
    plain = by_strategy["none"]
    assert (plain["states"], plain["transitions"]) == (2636, 7907)
    for name, record in by_strategy.items():
        assert record["status"] == "ok", record
        if name == "auto" or STRATEGIES.get(name) is not None and STRATEGIES[name].exactness == "exact":
            assert (record["states"], record["transitions"]) == (494, 1481), name

    report = (tmp_path / "per_transition.md").read_text()
    assert "python -m bench transitions --family peterson --max-n 3" in report
    # every strategy's column is labelled with its exactness; auto names its pick
    for name, strategy in STRATEGIES.items():
        assert f"{name} ({strategy.exactness})" in report
    row = next(line for line in report.splitlines() if line.startswith("| 3 | 6 |"))
    assert re.search(r"494 / 1,481 / \d+\.\d\d s / \*\*\d+\.\d{3} µs\*\*, \d+\.\d\dx", row)
    assert f"[{by_strategy['auto']['extra']['used_strategy']}]" in row
    # TopSPIN's figures are apart and said to be measured elsewhere
    assert "## TopSPIN, for reference (measured elsewhere, not in this run)" in report
    assert "| peterson 9 | paired run | exactmarkers | 9,619,054 |" in report
