"""SPIN's parallel searches with symmetry reduction: multi-core depth-first
(-DNCORE=N) and parallel breadth-first (-DBFS_PAR).

Every worker of a multi-core pan is a forked process with its own `now` and its own copy of
the canonicaliser's buffers; it canonicalises before it stores in the shared hash table and
hands the actual state to the next worker, which stores it the same way.  So the reduced
counts of a full search (-DNOREDUCE: pan's partial order reduction depends on the search
order, which the hand-offs change) are those of one core.  -DBFS_PAR's workers store and
partition states with calls in pan.p, which the splice wraps where pan.c includes it.

The references: the same verify on one core (and for BFS_PAR, -DBFS on one core), the orbit
oracle of the state graph (tests/support/statespace.py), and plain SPIN for the verdicts.  pan's
multi-core cycle search is refused, and the reason is shown to hold: plain pan -DNCORE=2 -a
finds lasso_ring's acceptance cycle, which a reduced nested search on the other core, closing
cycles only on its seed state itself, would miss.  Speed is measured by make bench, not here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import families
import pytest
from conftest import MODELS
from differential import group_in_force
from matrix import MatrixModel, bfs_orbits
from modelgen import run_spin
from replay import replay
from statespace import count_orbits, explore

from topspin_py.errors import UsageError
from topspin_py.verify import VerifyOptions, verify


def _model(tmp_path: Path, name: str, text: str | None = None) -> Path:
    path = tmp_path / name
    if text is None:
        shutil.copy(MODELS / name, path)
    else:
        path.write_text(text)
    return path


def _verify(path: Path, *defines: str, pan=(), strategy: str = "auto"):
    return verify(path, VerifyOptions(strategy=strategy, defines=defines, pan_args=("-w18", *pan),
                                      optimisation="-O0"))


def test_multi_core_stores_one_state_per_orbit(tmp_path):
    path = _model(tmp_path, "peterson4.pml", families.peterson(4))
    one = _verify(path, "SAFETY", "NOREDUCE", "NCORE=1")
    two = _verify(path, "SAFETY", "NOREDUCE", "NCORE=2")
    assert one.group_order == two.group_order == 24
    assert "Multi-Core (NCORE=2 -z20)" in two.search_modes
    assert (two.states_stored, two.transitions, two.errors) == (one.states_stored, one.transitions, 0)
    group = group_in_force(path, [], [])
    space = explore(path, tmp_path / "oracle", pan_args=("-m100000",), group=group)
    assert two.states_stored == count_orbits(space, [group.alpha(g) for g in group.perm_group.generate()]).count


def test_multi_core_finds_the_error_and_its_trail_replays(tmp_path):
    # Which worker meets the error first depends on the timing: worker 0 writes
    # model.pml.trail, worker N model.pml.cpuN_trail, a whole path from the initial state
    # with pan's -DFULL_TRAIL (pan's report names neither: "cpuN: pan: wrote trailfile").
    path = _model(tmp_path, "pan_options.pml")
    plain = run_spin(path, defines=("-DBUG",), flags=("-DNCORE=2",), opt="-O0")
    result = _verify(path, "BUG", "NCORE=2", "FULL_TRAIL")
    assert plain.errors and result.errors and result.group_order == 6
    assert result.error_messages[0].startswith("pan:1: assertion violated")
    assert result.trail in (str(tmp_path / "pan_options.pml.trail"), str(tmp_path / "pan_options.pml.cpu1_trail"))
    shown = replay(tmp_path, "pan_options.pml", Path(result.trail), ["-DBUG"])
    # pan's multi-core trail ends in the state where assert(in_cs == 1) fails: two users inside
    assert shown.steps is not None and "in_cs = 2" in shown.final_state, shown.stdout[-1500:]


def test_multi_core_cycle_search_is_refused_with_its_reason(tmp_path):
    path = _model(tmp_path, "lasso_ring.pml")
    # plain pan's multi-core nested search finds the cycle through its seed state itself ...
    assert run_spin(path, flags=("-DNCORE=2",), pan=("-a",), opt="-O0").errors == 1
    # ... which a reduced one may meet only permuted: refused before anything is built
    with pytest.raises(UsageError, match="closes a cycle only on its seed state itself"):
        _verify(path, "NCORE=2", pan=("-a",))
    safety = _verify(path, "NCORE=2", "NOREDUCE", "SAFETY", pan=(), strategy="auto")
    assert safety.errors == 0 and safety.group_order == 3


@pytest.mark.parametrize("extra", [(), ("BFS_SEP_HASH",)], ids=["shared", "sep-hash"])
def test_parallel_breadth_first_stores_one_state_per_orbit(tmp_path, extra):
    # -DNO_HC: BFS_PAR's pan.h would turn on hash compaction (approximate) by default
    path = _model(tmp_path, "peterson3.pml", families.peterson(3))
    single = _verify(path, "SAFETY", "NOREDUCE", "BFS")
    parallel = _verify(path, "SAFETY", "NOREDUCE", "BFS_PAR", "NO_HC", *extra, pan=("-u2",))
    assert "Multi-Core (using 2 cores)" in parallel.search_modes and parallel.breadth_first
    assert not parallel.approximate and parallel.group_order == 6
    assert parallel.states_stored == single.states_stored
    assert parallel.states_stored == bfs_orbits(MatrixModel("peterson3", path), tmp_path / "oracle")


def test_parallel_breadth_first_is_approximate_by_default_and_finds_errors(tmp_path):
    path = _model(tmp_path, "pan_options.pml")
    result = _verify(path, "BUG", "BFS_PAR", pan=("-u2",))
    assert result.approximate   # pan.h: hash compaction unless -DNO_HC
    assert result.errors and result.error_messages[0].startswith("pan:1: assertion violated")
    # its trail is named after pan's pid: the replay command gives it with -k
    assert result.trail is not None and "-k" in (result.replay_command or "")
    shown = replay(tmp_path, "pan_options.pml", Path(result.trail), ["-DBUG"])
    assert shown.steps is not None


def test_parallel_breadth_first_cycle_search_is_refused(tmp_path):
    path = _model(tmp_path, "lasso_ring.pml")
    with pytest.raises(UsageError, match="-DBFS_PAR with a cycle search"):
        _verify(path, "BFS_PAR", pan=("-a",))
    # a safety search with the ltl claim: pan is built without -DSAFETY, and BFS_PAR's pan.h
    # then turns on its bounded cycle search, which keeps a hash-table pointer in the state
    with pytest.raises(UsageError, match="-DBFS_PAR without -DSAFETY"):
        verify(path, VerifyOptions(defines=("BFS_PAR",), safety=True, optimisation="-O0"))


def test_a_multi_core_report_is_read(tmp_path):
    # pan -DNCORE=2 as it prints when worker 1 meets the error and worker 0 stops before its
    # statistics (taken from a run of tests/support/families.py's peterson(3, 1) with -z1): the report
    # has no block, the trail has no name in it.  The model could print all of these lines:
    # the error stands on the trail pan wrote, found on disk; its counts are unknown.
    from topspin_py.pan.output import parse_pan_output
    from topspin_py.pan.search import read_report
    output = ("cpu1: pan:1: assertion violated (inCR==1) (at depth 10)\n"
              "cpu1: pan: wrote p31.pml.cpu1_rst\n"
              "cpu1: pan: wrote trailfile\n"
              "cpu1: stop - uerror\n\n"
              "cpu0: elapsed time 0.15 seconds (13 states visited)\n")
    text_only = parse_pan_output(output)
    assert not text_only.has_summary and text_only.errors is None
    assert text_only.error_lines == ["pan:1: assertion violated (inCR==1) (at depth 10)"]
    assert text_only.trail_unnamed and text_only.trail_files == []
    assert read_report(output, tmp_path, "p31.pml", []).errors is None   # no trail on disk
    (tmp_path / "p31.pml.cpu1_trail").write_text("0:0:0\n")
    (tmp_path / "p31.pml.cpu1_rst").write_bytes(b"")
    report = read_report(output, tmp_path, "p31.pml", [])
    assert not report.has_summary and report.errors == 1 and report.stopped_early
    assert report.trail_files == ["p31.pml.cpu1_trail"]
