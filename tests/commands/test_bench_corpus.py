"""bench/corpus_symmetry.py on three corpus models, the report written to tmp_path.

Expected values, none taken from the code under test:

* spin-examples/peterson.pml: `active [2]` with `turn = _pid` and `1 - _pid`, whose symmetry is
  the swap of the two pids (corpus README: order 2); plain SPIN stores 55 states with
  -DNOREDUCE (corpus README, SPIN 6.5.2); the reduced run stores one state per orbit, counted
  by the orbit oracle (tests/support/statespace.py) on plain SPIN's state space under the same flags.
* spin-all/Examples/hello.pml: `init` alone, one process: nothing to permute, order 1.
* beem/train-gate.1.pm: MANIFEST.tsv records that spin -a rejects it ("missing array index").
"""

from __future__ import annotations

import json
import sys

import pytest
import statespace as S
from conftest import CORPUS, REPO

sys.path.insert(0, str(REPO))

from bench import corpus_symmetry  # noqa: E402
from topspin_py.pan import (
    loading,  # noqa: E402
    )
from topspin_py.symmetry.detect import acting_on_states, detect  # noqa: E402

PETERSON, HELLO, REJECTED = "spin-examples/peterson.pml", "spin-all/Examples/hello.pml", "beem/train-gate.1.pm"


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    if not (CORPUS / "MANIFEST.tsv").is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    results = tmp_path_factory.mktemp("results")
    patch = pytest.MonkeyPatch()
    patch.setattr(corpus_symmetry, "RESULTS", results)
    try:
        written = corpus_symmetry.run(corpus=CORPUS, only=lambda p: p in (PETERSON, HELLO, REJECTED),
                                      log=lambda line: None)
    finally:
        patch.undo()
    data = json.loads((results / corpus_symmetry.NOW_JSON).read_text())
    return CORPUS, results, written, data, {row["path"]: row for row in data["rows"]}


def test_peterson_swap_and_its_reduction(measured, tmp_path):
    corpus, _, _, _, rows = measured
    row = rows[PETERSON]
    assert (row["status"], row["order"], row["acting_order"], row["structure"]) == ("ok", 2, 2, "S2")
    plain, reduced = row["plain"], row["reduced"]
    assert (plain["status"], plain["states"], plain["complete"], plain["group_order"]) == ("ok", 55, True, 1)
    # The orbit oracle: plain SPIN's states under the swap, with the bench's gcc and pan flags.
    model = loading.load_model_checked(corpus / PETERSON, ())
    group = acting_on_states(detect(model))
    flags = tuple(f"-D{d}" for d in corpus_symmetry.DEFINES if not d.startswith("MEMLIM"))
    space = S.explore(corpus / PETERSON, tmp_path / "explore", flags=flags, pan_args=("-E", "-A"), group=group)
    assert len(space.records) == 55
    orbits = S.count_orbits(space, [group.alpha(g) for g in group.perm_group.generate()]).count
    assert 55 / 2 <= orbits < 55
    assert (reduced["status"], reduced["states"], reduced["complete"]) == ("ok", orbits, True)
    assert reduced["group_order"] == 2


def test_trivial_and_rejected_rows(measured):
    _, _, _, _, rows = measured
    hello = rows[HELLO]
    assert (hello["status"], hello["order"], hello["acting_order"]) == ("ok", 1, 1)
    assert hello["reason"] == "no two processes of one proctype: nothing to permute"
    assert hello["plain"] is None and hello["reduced"] is None      # nothing to reduce: not run
    rejected = rows[REJECTED]
    assert rejected["status"] == "rejected" and rejected["order"] is None
    assert "missing array index" in rejected["reason"]


def test_report_with_and_without_before(measured, monkeypatch):
    _, results, written, data, _ = measured
    assert sorted(p.name for p in written) == ["corpus_symmetry.json", "corpus_symmetry.md"]
    report = (results / "corpus_symmetry.md").read_text()
    assert "| **all** | 3 | 1 | 1 / 2 |" in report
    assert f"| {PETERSON} | 2 | S2 |" in report
    assert "| 55 | " in report
    # An earlier commit where peterson had no group: both columns, side by side.
    before = json.loads(json.dumps(data))
    before["commit"] = "0000000"
    for row in before["rows"]:
        if row["path"] == PETERSON:
            row.update(order=1, acting_order=1, structure="trivial", plain=None, reduced=None)
    monkeypatch.setattr(corpus_symmetry, "RESULTS", results)
    corpus_symmetry.report(data, before)
    report = (results / "corpus_symmetry.md").read_text()
    assert "non-trivial, before (0000000)" in report
    assert "| **all** | 3 | 1 | 0 / 2 | 1 / 2 |" in report
    assert f"| {PETERSON} | 1 | 2 | S2 |" in report
