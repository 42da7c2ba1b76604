"""topspin-py regress: baselines of state counts and verdicts, as a user's CI would keep them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO
from small_models import ASSERTION, COUNTER

CORPUS_BASELINE = REPO / "tests" / "baselines" / "corpus.json"


def regress(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "topspin_py.cli", "regress", *args],
                          capture_output=True, text=True, cwd=cwd)


def test_the_corpus_baseline_holds(corpus):
    # States are the published unreduced counts (shared/corpus/README.md), transitions those of
    # plain spin 6.5.2; hajek's entry guards its verdict (one assertion violation).
    proc = regress(str(CORPUS_BASELINE))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all entries as recorded" in proc.stdout


def test_update_creates_a_baseline_and_check_passes(tmp_path):
    (tmp_path / "counter.pml").write_text(COUNTER.replace("{N}", "5"))
    (tmp_path / "race.pml").write_text(ASSERTION)
    baseline = tmp_path / "ci" / "baseline.json"
    baseline.parent.mkdir()
    assert regress(str(baseline), "--update", "--model", str(tmp_path / "counter.pml"), "-DNOREDUCE").returncode == 0
    assert regress(str(baseline), "--update", "--model", str(tmp_path / "race.pml")).returncode == 0
    entries = json.loads(baseline.read_text())["entries"]
    by_model = {e["model"]: e for e in entries}
    assert set(by_model) == {"../counter.pml", "../race.pml"}
    assert by_model["../counter.pml"]["states_stored"] == 2 * 5 + 3  # a counter to 5: 2N+3 states
    assert by_model["../counter.pml"]["defines"] == ["NOREDUCE"]
    assert by_model["../race.pml"]["errors"] == 1
    assert not list(tmp_path.glob("*.trail"))  # regress leaves no trails beside the models
    assert regress(str(baseline)).returncode == 0


def test_a_changed_count_fails_with_a_readable_diff(tmp_path):
    (tmp_path / "counter.pml").write_text(COUNTER.replace("{N}", "5"))
    baseline = tmp_path / "baseline.json"
    regress(str(baseline), "--update", "--model", str(tmp_path / "counter.pml"))
    data = json.loads(baseline.read_text())
    data["entries"][0]["states_stored"] += 1
    baseline.write_text(json.dumps(data))
    proc = regress(str(baseline))
    assert proc.returncode == 1
    assert "counter.pml --strategy auto: states_stored was 14, now 13" in proc.stdout
    # --update alone refreshes every entry, and the baseline holds again.
    assert regress(str(baseline), "--update").returncode == 0
    assert regress(str(baseline)).returncode == 0


def test_usage_errors_exit_2_without_traceback(tmp_path):
    proc = regress(str(tmp_path / "missing.json"))
    assert proc.returncode == 2 and "baseline not found" in proc.stderr and "Traceback" not in proc.stderr
    proc = regress(str(tmp_path / "b.json"), "--model", "x.pml")
    assert proc.returncode == 2 and "--update" in proc.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    proc = regress(str(broken))
    assert proc.returncode == 2 and "broken.json:1:" in proc.stderr
