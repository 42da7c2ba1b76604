"""``verify --cross-check``: the same search with and without partial order reduction, verdicts
compared.

The reference is plain SPIN: each case runs spin, gcc and pan itself, with pan's default
partial order reduction and with -DNOREDUCE, and the reduced tool's two runs must have the
same verdicts (errors or none, and the kind of the first error) as plain SPIN's.  The models
are our own, small (tests/models), with and without errors, with and without symmetry.
A disagreement cannot be produced by a sound pipeline, so the way it is reported is checked on
Results made up for it (what the exit status and the summary must be follows from the rule in
result.py's module doc, not from a run).
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import MODELS
from modelgen import have_toolchain, run_spin
from test_cli import topspin

from topspin_py.result import PorRun, Result, error_kind

pytestmark = pytest.mark.skipif(not have_toolchain(), reason="spin and gcc are needed")

# model, pan's arguments, the group order it must be reduced by (the models' headers reason it)
CASES = [
    ("deadlock.pml", (), 1),                                   # an invalid end state, no symmetry
    ("ltl_symmetric.pml", ("-a", "-N", "progress"), 6),        # an acceptance cycle, full S3
    ("ltl_process1.pml", ("-a", "-N", "one_safe"), 2),         # no error, the stabiliser of 1
]


def _first_kind(pan_output: str) -> str | None:
    first = re.search(r"^pan:\d+: .*$", pan_output, re.M)
    return error_kind(first.group(0)) if first else None


@pytest.mark.parametrize("name,pan,order", CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("user_noreduce", [False, True], ids=["por", "noreduce"])
def test_cross_check_agrees_with_plain_spin(tmp_path, name, pan, order, user_noreduce):
    shutil.copy(MODELS / name, tmp_path / name)
    with_por = run_spin(MODELS / name, pan=pan, opt="-O0")
    without_por = run_spin(MODELS / name, pan=pan, flags=("-DNOREDUCE",), opt="-O0")
    # The run the user asked for comes first; --cross-check switches -DNOREDUCE the other way.
    given, other = (without_por, with_por) if user_noreduce else (with_por, without_por)
    args = ["verify", "--cross-check", "--json", "--quiet", "-O0",
            *(["-DNOREDUCE"] if user_noreduce else []), name, *pan]
    run = topspin(*args, cwd=tmp_path)
    assert run.returncode == (1 if given.errors else 0), run.stdout + run.stderr
    result = json.loads(run.stdout)
    assert result["group_order"] == order
    assert result["partial_order_reduction"] is not user_noreduce
    crossed = result["cross_check"]
    assert crossed["partial_order_reduction"] is user_noreduce
    assert ("NOREDUCE" in crossed["defines"]) is not user_noreduce
    assert bool(result["errors"]) == bool(given.errors)
    assert bool(crossed["errors"]) == bool(other.errors)
    first = result["error_messages"][0] if result["error_messages"] else None
    assert error_kind(first) == _first_kind(given.output)
    assert error_kind(crossed["first_error"]) == _first_kind(other.output)
    assert result["por_disagreement"] is None and result["por_first_errors_differ"] is None
    # Only the reported run writes a trail, as pan would.
    assert sorted(p.name for p in tmp_path.glob("*.trail")) == ([f"{name}.trail"] if given.errors else [])


def test_cross_check_in_the_summary(tmp_path):
    shutil.copy(MODELS / "ltl_symmetric.pml", tmp_path / "m.pml")
    run = topspin("verify", "--cross-check", "--quiet", "-O0", "m.pml", "-a", "-N", "progress", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(r"^cross-check:\s+without partial order reduction \(-DNOREDUCE\): 2 states, "
                     r"2 transitions, 1 errors \(first: acceptance cycle\)", run.stdout, re.M), run.stdout
    assert re.search(r"^cross-check:\s+verdicts agree, with and without partial order reduction$",
                     run.stdout, re.M), run.stdout


def test_cross_check_refuses_bfs_bitstate_before_any_work(tmp_path):
    # -DBFS -DBITSTATE with symmetry needs -DNOREDUCE (refusals.refuse_with_symmetry): the run
    # with partial order reduction cannot be made, and the user hears so before anything runs.
    shutil.copy(MODELS / "ltl_process1.pml", tmp_path / "m.pml")
    run = topspin("verify", "--cross-check", "-DBFS", "-DBITSTATE", "-DNOREDUCE", "m.pml",
                  "-N", "one_safe", cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "--cross-check: -DBFS -DBITSTATE with symmetry reduction needs -DNOREDUCE" in run.stderr
    assert "Traceback" not in run.stderr and not list(tmp_path.glob("*.trail"))


def test_cross_check_names_spins_por_where_spin_warns_it_is_not_compatible(tmp_path):
    # tests/models/por_remote_ref.pml: SPIN's own partial order reduction misses the assertion
    # violation (plain pan: errors 0, with gcc's "#warning p.o. reduction not compatible with
    # remote varrefs (use -DNOREDUCE)"), and verify turns it off.  --cross-check runs it on
    # once more to compare: the verdicts differ, and the message says that SPIN's reduction,
    # as SPIN warns, is the cause, not the symmetry reduction.
    name = "por_remote_ref.pml"
    shutil.copy(MODELS / name, tmp_path / name)
    assert run_spin(MODELS / name, opt="-O0").errors == 0
    assert run_spin(MODELS / name, flags=("-DNOREDUCE",), opt="-O0").errors == 1
    run = topspin("verify", "--cross-check", "--json", "-O0", name, cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr   # errors found, by the run without POR
    result = json.loads(run.stdout)
    assert result["group_order"] == 2 and result["errors"] == 1 and not result["partial_order_reduction"]
    crossed = result["cross_check"]
    assert crossed["partial_order_reduction"] and crossed["errors"] == 0 and "NOREDUCE" not in crossed["defines"]
    assert result["por_disagreement"] is None
    explained = result["por_missed_by_spin"]
    warning = "p.o. reduction not compatible with remote varrefs (use -DNOREDUCE)"
    assert "SPIN's partial order reduction is not compatible with this model" in explained and warning in explained
    assert "topspin-py bug" not in run.stderr and "SPIN's partial order reduction" in run.stderr
    summary = topspin("verify", "--cross-check", "--quiet", "-O0", name, cwd=tmp_path)
    assert summary.returncode == 1 and "POR VERDICTS DIFFER" not in summary.stdout
    assert re.search(r"^cross-check:\s+verdicts differ because of SPIN: .*" + re.escape(warning),
                     summary.stdout, re.M), summary.stdout


def _made_up(errors: int, other_errors: int, first: str | None, other_first: str | None) -> Result:
    result = Result(model="m.pml", strategy="refine", group_order=6, states_stored=10,
                    states_matched=0, transitions=10, atomic_steps=0, depth=3, errors=errors,
                    complete=True, incomplete_reason=None, approximate=False, elapsed_s=0.0,
                    memory_mb=0.0, trail=None, error_messages=[first] if first else [])
    result.cross_check = PorRun(partial_order_reduction=False, defines=["NOREDUCE"], states_stored=12,
                                transitions=12, errors=other_errors, first_error=other_first,
                                complete=True, incomplete_reason=None, elapsed_s=0.0)
    return result


def test_verdicts_that_differ_are_a_failure():
    # Errors with POR, none without: one of the two searches is wrong, so neither "errors"
    # (1) nor "no errors" (0) may be reported: 2, as --compare does.
    result = _made_up(1, 0, "pan:1: assertion violated (x) (at depth 3)", None)
    assert result.exit_status == 2
    assert result.por_disagreement is not None
    assert result.por_disagreement.startswith(
        "the verdicts differ (strategy refine, group order 6): the search with partial order "
        "reduction found 1 error(s), the search without partial order reduction (-DNOREDUCE) found none")
    assert re.search(r"^POR VERDICTS DIFFER: the verdicts differ", result.summary(), re.M)
    assert json.loads(result.to_json())["por_disagreement"] == result.por_disagreement
    # The other way round too.
    assert _made_up(0, 2, None, "pan:1: invalid end state (at depth 4)").exit_status == 2


def test_first_errors_of_different_kinds_still_mean_errors():
    # pan stops at the first error it meets, and the two searches meet them in different
    # orders: both say "errors found", so 1, with the difference shown.
    result = _made_up(1, 1, "pan:1: assertion violated (x) (at depth 3)",
                      "pan:1: invalid end state (at depth 4)")
    assert result.exit_status == 1 and result.por_disagreement is None
    assert result.por_first_errors_differ is not None
    assert result.por_first_errors_differ.startswith(
        "the first errors differ in kind: 'assertion violated' with partial order reduction, "
        "'invalid end state' without partial order reduction (-DNOREDUCE)")
    assert "verdicts agree, but the first errors differ in kind" in result.summary()


def test_error_kind():
    assert error_kind("pan:1: assertion violated (x!=2) (at depth 5)") == "assertion violated"
    assert error_kind("pan:1: acceptance cycle (at depth 3)") == "acceptance cycle"
    assert error_kind("pan:1: invalid end state (at depth 23)") == "invalid end state"
    assert error_kind(None) is None
