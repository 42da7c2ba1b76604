"""verify(): the pipeline end to end, with real spin, gcc and pan."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from topspin_py.errors import ModelError, ToolchainError, TopspinError, UsageError
from topspin_py.result import JSON_REQUIRED_KEYS
from topspin_py.verify import VerifyOptions, verify

from conftest import MODELS
from small_models import ASSERTION, COUNTER


LTL = """
byte x;
active [2] proctype Inc() { do :: x < 5 -> x++ :: x >= 5 -> break od }
ltl reaches_five { <> (x == 5) }
"""


def write(tmp_path: Path, text: str, name: str = "m.pml") -> Path:
    model = tmp_path / name
    model.write_text(text)
    return model


# --- published baselines (SPIN 6.5.2, -DNOREDUCE; see shared/corpus/README.md) ---------------

def test_peterson3_baseline(corpus):
    result = verify(corpus / "topspin" / "peterson3.p", VerifyOptions(strategy="none", defines=("NOREDUCE",)))
    assert result.states_stored == 2636
    assert result.errors == 0 and result.complete
    assert (result.strategy, result.group_order) == ("none", 1)


def test_email3_baseline_needs_a_deeper_search(corpus):
    notes = []
    result = verify(corpus / "topspin" / "email3.p",
                    VerifyOptions(strategy="none", defines=("NOREDUCE",), on_note=notes.append))
    assert result.states_stored == 23256
    assert result.complete and result.errors == 0
    # email3 is deeper than pan's default -m10000 (depth 17024): verify reran with -m100000.
    assert result.depth_limit == 100000 and result.depth > 10000
    assert any("rerunning with -m100000" in note for note in notes)


def test_hajek_assertion_violation_and_trail(corpus, tmp_path):
    # A copy: the trail goes next to the model, and the shared corpus is not ours to write in.
    model = tmp_path / "hajek.pml"
    shutil.copyfile(corpus / "spin-examples" / "hajek.pml", model)
    result = verify(model)
    assert result.errors >= 1 and result.exit_status == 1
    assert any("assertion violated" in message for message in result.error_messages)
    assert result.trail == str(tmp_path / "hajek.pml.trail")
    assert Path(result.trail).is_file()
    assert result.replay_command == f"spin -t -p {model}"
    replay = subprocess.run(["spin", "-t", "-p", model.name], cwd=tmp_path,
                            capture_output=True, text=True)
    assert "assertion violated" in replay.stdout


# --- depth limit -----------------------------------------------------------------------------

def test_depth_limit_rerun_completes_the_search(tmp_path):
    # Counter to N: one run of states (n, loop head), (n, after the guard) for n < N, then for
    # n = N the loop head, the end state, and the state after the process died: 2N+3 states,
    # depth 2N+2.  N = 20000 is 40002 steps deep: too deep for -m10000, fine for -m100000.
    n = 20000
    result = verify(write(tmp_path, COUNTER.replace("{N}", str(n))))
    assert result.complete and result.incomplete_reason is None
    assert result.states_stored == 2 * n + 3
    assert result.transitions == 2 * n + 3 and result.states_matched == 0
    assert result.depth == 2 * n + 2
    assert result.depth_limit == 100000 and result.pan_args == ["-m100000"]


def test_depth_limit_cap_reports_incomplete(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "20000")),
                    VerifyOptions(max_depth_limit=10000))
    assert not result.complete
    assert "depth limit -m10000" in result.incomplete_reason
    assert result.states_stored < 2 * 20000 + 3
    assert result.to_dict()["complete"] is False


def test_user_depth_limit_is_the_starting_point(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "20000")),
                    VerifyOptions(pan_args=("-m50000",)))
    assert result.complete and result.depth_limit == 50000 and result.states_stored == 40003


def test_depth_limit_as_error_with_b_is_not_rerun(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "20000")), VerifyOptions(pan_args=("-b",)))
    assert result.errors == 1 and not result.complete
    assert result.depth_limit == 10000
    assert "-b" in result.incomplete_reason


# --- errors and trails -----------------------------------------------------------------------

def test_error_keeps_trail_beside_model(tmp_path):
    model = write(tmp_path, ASSERTION)
    result = verify(model)
    assert result.errors == 1 and result.exit_status == 1
    assert not result.complete and "first error" in result.incomplete_reason
    assert result.trail == str(tmp_path / "m.pml.trail") and Path(result.trail).is_file()
    assert result.error_messages[0].startswith("pan:1: assertion violated (x!=2)")


def test_existing_trail_is_not_overwritten(tmp_path):
    model = write(tmp_path, ASSERTION)
    users_trail = tmp_path / "m.pml.trail"
    users_trail.write_text("the user's own trail\n")
    first = verify(model)
    second = verify(model)
    assert users_trail.read_text() == "the user's own trail\n"
    assert first.trail == str(tmp_path / "m.pml1.trail")
    assert second.trail == str(tmp_path / "m.pml2.trail")
    assert first.replay_command == f"spin -t1 -p {model}"
    # spin -tN reads m.pmlN.trail: the numbered trail replays.
    replay = subprocess.run(["spin", "-t2", "-p", "m.pml"], cwd=tmp_path, capture_output=True, text=True)
    assert "assertion violated" in replay.stdout


def test_force_overwrites_the_trail(tmp_path):
    model = write(tmp_path, ASSERTION)
    (tmp_path / "m.pml.trail").write_text("old\n")
    result = verify(model, VerifyOptions(force=True))
    assert result.trail == str(tmp_path / "m.pml.trail")
    assert (tmp_path / "m.pml.trail").read_text() != "old\n"


def test_no_error_no_trail(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "5")))
    assert result.errors == 0 and result.trail is None and result.trails == []
    assert result.exit_status == 0
    assert list(tmp_path.iterdir()) == [tmp_path / "m.pml"]  # nothing left beside the model


# --- compile flags ---------------------------------------------------------------------------

def test_safety_added_without_claim(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(defines=("NOREDUCE",)))
    assert result.compile_flags == ["-DSAFETY", "-DNOREDUCE"]
    assert result.defines == ["NOREDUCE"]


def test_safety_not_added_with_ltl(tmp_path):
    details = []
    result = verify(write(tmp_path, LTL), VerifyOptions(pan_args=("-a",), on_detail=details.append))
    assert "-DSAFETY" not in result.compile_flags
    # the nested DFS ran: pan printed "23 states, stored (46 visited)"
    assert (result.states_stored, result.states_visited, result.transitions) == (23, 46, 101)
    assert any("never claim or ltl" in line for line in details)
    assert any(line.startswith("$ ") and "gcc" in line for line in details)


def test_safety_not_added_for_cycle_search(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(pan_args=("-l",),
                                                                                 defines=("NP",)))
    assert "-DSAFETY" not in result.compile_flags and result.complete


def test_defines_reach_spin_and_pan_options_reach_gcc(tmp_path):
    # N is for the model; NOREDUCE for pan.  Given to gcc, -DN=3 would break pan.c.
    model = write(tmp_path, "active [N] proctype P() { assert(_pid < N) }\n")
    details = []
    result = verify(model, VerifyOptions(defines=("N=3", "NOREDUCE"), on_detail=details.append))
    assert result.errors == 0 and result.complete
    assert result.defines == ["N=3", "NOREDUCE"]
    assert result.compile_flags == ["-DSAFETY", "-DNOREDUCE"]
    assert any(line.startswith("$ ") and "spin -DN=3 -DNOREDUCE -a" in line for line in details)
    assert any("model only" in line and "-DN=3" in line for line in details)


def test_bitstate_is_marked_approximate(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(defines=("BITSTATE",)))
    assert result.complete and result.approximate and result.states_stored == 13
    assert "approximate" in result.summary()
    exact = verify(write(tmp_path, COUNTER.replace("{N}", "5")))
    assert not exact.approximate


# --- explained failures ----------------------------------------------------------------------

def test_vectorsz_too_small(tmp_path):
    model = write(tmp_path, "byte big[2000];\nactive proctype A() { big[0] = 1; big[1999] = big[0] }\n")
    with pytest.raises(ToolchainError) as caught:
        verify(model)
    assert "-DVECTORSZ=2048" in caught.value.hint
    assert not (tmp_path / "m.pml.trail").exists()  # pan's "error" here is no verdict
    result = verify(model, VerifyOptions(defines=("VECTORSZ=2048",)))
    assert result.complete and result.errors == 0 and result.state_vector_bytes == 2012


def test_out_of_memory(tmp_path):
    with pytest.raises(ToolchainError) as caught:
        verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(defines=("MEMLIM=1",)))
    err = caught.value
    assert "out of memory" in err.message
    assert "-DMEMLIM" in err.hint and "-DCOLLAPSE" in err.hint and "-DBITSTATE" in err.hint
    assert "reached -DMEMLIM bound" in err.detail


# --- bad input -------------------------------------------------------------------------------

def test_spin_rejection_names_the_users_file(tmp_path, monkeypatch):
    # The front end accepts this (it does not resolve names); spin does not.
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "active proctype A() {\n\tbyte x;\n\tx = y\n}\n", name="undeclared.pml")
    with pytest.raises(ModelError) as caught:
        verify("undeclared.pml")
    err = caught.value
    # spin's position is where its parser stood: at the '}' after `x = y`, on line 4.
    assert (err.pos.file, err.pos.line) == ("undeclared.pml", 4)
    assert "undeclared variable: y" in err.message
    assert "spin: undeclared.pml:4, Error: undeclared variable: y" in err.detail
    assert str(tmp_path) not in err.render()


def test_syntax_error_has_position(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "active proctype A() {\n\tbyte x;\n\tx = = 3\n}\n", name="bad.pml")
    with pytest.raises(TopspinError) as caught:
        verify("bad.pml")
    assert caught.value.pos.file == "bad.pml" and caught.value.pos.line == 3


def test_bad_define(tmp_path):
    with pytest.raises(UsageError):
        verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(defines=("X=(1+2)",)))


def test_unknown_strategy(tmp_path):
    with pytest.raises(UsageError):
        verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(strategy="fast"))


def test_missing_model(tmp_path):
    with pytest.raises(UsageError):
        verify(tmp_path / "nope.pml")


def test_bad_pan_argument(tmp_path):
    with pytest.raises(UsageError) as caught:
        verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(pan_args=("-Z",)))
    assert "saw option -Z" in caught.value.detail


# --- --keep, progress, Result ----------------------------------------------------------------

def test_keep_dir(tmp_path):
    keep = tmp_path / "kept"
    verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(keep_dir=keep))
    for name in ("pan.c", "pan.h", "pan", "pan.out", "spin.out", "commands.txt"):
        assert (keep / name).is_file(), name
    assert "states, stored" in (keep / "pan.out").read_text()
    assert "gcc -O2 -DSAFETY -o pan pan.c" in (keep / "commands.txt").read_text()
    with pytest.raises(UsageError):  # not empty any more: refused, nothing overwritten
        verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(keep_dir=keep))



def test_keep_dir_given_relative_to_the_working_directory(tmp_path, monkeypatch):
    # pan runs with the kept directory as its working directory: a relative DIR once made
    # verify look for DIR/DIR/pan ("cannot run pan: No such file or directory: 'kept/pan'").
    model = write(tmp_path, COUNTER.replace("{N}", "2"))
    monkeypatch.chdir(tmp_path)
    result = verify(model, VerifyOptions(strategy="none", keep_dir=Path("kept")))
    assert result.states_stored == 7 and (tmp_path / "kept" / "pan").is_file()

@pytest.mark.slow
def test_progress_reports(tmp_path):
    # 33^4 = 1,185,921 states without POR (4 processes, 33 local states each): one report at 10^6.
    model = write(tmp_path, "byte x[4];\nactive [4] proctype P() { byte v; select(v : 0..15); "
                            "x[_pid] = v; end: x[_pid] == 255 }\n")
    seen = []
    result = verify(model, VerifyOptions(defines=("NOREDUCE",), on_progress=seen.append))
    assert result.states_stored == 33 ** 4
    assert [p.states for p in seen] == [1e6]
    assert seen[0].elapsed_s > 0 and seen[0].memory_mb > 100


def test_result_json(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "5")))
    data = json.loads(result.to_json())
    assert set(JSON_REQUIRED_KEYS) <= set(data)
    assert data["states_stored"] == 13 and data["group_order"] == 1 and data["trail"] is None
    assert "pan_output" not in data
    assert "13" in result.summary() and "complete" in result.summary()


@pytest.mark.parametrize("pan_args,order,errors", [
    (("-a", "-N", "safe"), 2, 0),      # [] (incs <= 1) names no process: the swap stays
    (("-a",), 2, 0),                   # pan checks the first claim, `safe`, by default
    (("-a", "-Nnostarve"), 1, 1),      # names user[0]@cs: no symmetry, and the violation found
])
def test_only_the_claim_pan_checks_restricts_the_group(pan_args, order, errors):
    result = verify(MODELS / "ltl.pml", VerifyOptions(pan_args=pan_args, save_trails=False))
    assert (result.group_order, result.errors) == (order, errors)
    assert result.complete or errors   # pan stops at the first error


def test_compare_runs_plain_spin_too(corpus):
    # mutex5: 113 states unreduced (shared/corpus/README.md), 12 orbits (published).
    result = verify(corpus / "topspin/mutex5.p",
                    VerifyOptions(defines=("SAFETY", "NOREDUCE"), compare=True, save_trails=False))
    assert (result.states_stored, result.plain.states_stored) == (12, 113)
    assert result.plain.errors == result.errors == 0 and result.plain.complete
    assert result.reduction == 113 / 12
    data = json.loads(result.to_json())
    assert data["plain"]["states_stored"] == 113 and data["reduction"] == 113 / 12
    assert "reduction:" in result.summary()
