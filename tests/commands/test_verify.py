"""verify(): the pipeline end to end, with real spin, gcc and pan."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import MODELS
from modelgen import run_spin
from small_models import ASSERTION, COUNTER
from test_cli import topspin

from topspin_py.errors import ModelError, ToolchainError, TopspinError, UsageError
from topspin_py.pan.progress import Progress
from topspin_py.promela.model import FIRST_CLAIM
from topspin_py.result import JSON_REQUIRED_KEYS, PlainRun
from topspin_py.verify import VerifyOptions, verify

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
    notes: list[str] = []
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
    assert result.incomplete_reason is not None
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
    assert result.incomplete_reason is not None
    assert "-b" in result.incomplete_reason


# --- errors and trails -----------------------------------------------------------------------

def test_error_keeps_trail_beside_model(tmp_path):
    model = write(tmp_path, ASSERTION)
    result = verify(model)
    assert result.errors == 1 and result.exit_status == 1
    assert result.incomplete_reason is not None
    assert not result.complete and "first error" in result.incomplete_reason
    assert result.trail == str(tmp_path / "m.pml.trail") and Path(result.trail).is_file()
    assert result.error_messages[0].startswith("pan:1: assertion violated (x!=2)")


def test_trail_replaces_the_previous_one_as_pans_does(tmp_path):
    # pan (and so spin -run) writes m.pml.trail and replaces an existing one; so does verify,
    # and it says which trail it replaced.  No m.pmlN.trail accumulates beside it.
    model = write(tmp_path, ASSERTION)
    old_trail = tmp_path / "m.pml.trail"
    old_trail.write_text("an earlier run's trail\n")
    result = verify(model)
    assert result.trail == str(old_trail) and old_trail.read_text() != "an earlier run's trail\n"
    assert result.trail_notes == [f"replaced the previous {old_trail}"]
    assert result.replay_command == f"spin -t -p {model}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.pml", "m.pml.trail"]
    replay = subprocess.run(["spin", "-t", "-p", "m.pml"], cwd=tmp_path, capture_output=True, text=True)
    assert "assertion violated" in replay.stdout


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
    details: list[str] = []
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
    details: list[str] = []
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
    assert caught.value.hint is not None
    assert "-DVECTORSZ=2048" in caught.value.hint
    assert not (tmp_path / "m.pml.trail").exists()  # pan's "error" here is no verdict
    result = verify(model, VerifyOptions(defines=("VECTORSZ=2048",)))
    assert result.complete and result.errors == 0 and result.state_vector_bytes == 2012


def test_out_of_memory(tmp_path):
    with pytest.raises(ToolchainError) as caught:
        verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(defines=("MEMLIM=1",)))
    err = caught.value
    assert "out of memory" in err.message
    assert err.hint is not None and err.detail is not None
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
    assert err.pos is not None
    assert (err.pos.file, err.pos.line) == ("undeclared.pml", 4)
    assert "undeclared variable: y" in err.message
    assert err.detail is not None
    assert "spin: undeclared.pml:4, Error: undeclared variable: y" in err.detail
    assert str(tmp_path) not in err.render()


def test_syntax_error_has_position(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "active proctype A() {\n\tbyte x;\n\tx = = 3\n}\n", name="bad.pml")
    with pytest.raises(TopspinError) as caught:
        verify("bad.pml")
    assert caught.value.pos is not None
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
    # an option pan does not know: pan's own complaint (-Z, one of its multi-core workers'
    # options, verify refuses before pan runs: flags.check_pan_args)
    with pytest.raises(UsageError) as caught:
        verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(pan_args=("-y",)))
    assert caught.value.detail is not None
    assert "saw option -y" in caught.value.detail
    with pytest.raises(UsageError, match="workers a multi-core pan starts"):
        verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(pan_args=("-Z",)))


# --- --keep, progress, Result ----------------------------------------------------------------

def test_keep_dir(tmp_path):
    keep = tmp_path / "kept"
    verify(write(tmp_path, COUNTER.replace("{N}", "5")), VerifyOptions(keep_dir=keep))
    for name in ("pan.c", "pan.h", "pan", "pan.out", "spin.out", "commands.txt"):
        assert (keep / name).is_file(), name
    assert "states, stored" in (keep / "pan.out").read_text()
    assert "gcc -O1 -DSAFETY -o pan pan.c" in (keep / "commands.txt").read_text()
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
    seen: list[Progress] = []
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
    assert result.plain is not None
    assert (result.states_stored, result.plain.states_stored) == (12, 113)
    assert result.plain.errors == result.errors == 0 and result.plain.complete
    assert result.reduction == 113 / 12
    data = json.loads(result.to_json())
    assert data["plain"]["states_stored"] == 113 and data["reduction"] == 113 / 12
    assert "reduction:" in result.summary()


# --- the search the model asks for (spin -run's defaults) -------------------------------------

def _copy(path: Path, into: Path) -> Path:
    """A copy of a model, so that the trail verify leaves beside it stays out of the repository."""
    shutil.copyfile(path, into / path.name)
    return into / path.name


def test_ltl_liveness_is_searched_for_acceptance_cycles(tmp_path):
    # The reference: spin -a, gcc, pan -a (what spin -run runs) finds the acceptance cycle...
    model = _copy(MODELS / "ltl_liveness.pml", tmp_path)
    plain = run_spin(model, pan=("-a",), opt="-O0")
    assert plain.errors == 1 and "acceptance cycle" in plain.output
    # ... and a search without -a cannot (its header explains why), as pan warns.
    unchecked = run_spin(model, opt="-O0")
    assert unchecked.errors == 0 and "requires -a flag to fully verify" in unchecked.output
    notes: list[str] = []
    result = verify(model, VerifyOptions(on_note=notes.append))   # the default strategy
    assert (result.errors, result.exit_status) == (1, 1)
    assert any("acceptance cycle" in message for message in result.error_messages)
    assert "-a" in result.pan_args and "-DSAFETY" not in result.compile_flags
    assert (result.claim, result.search) == ("ltl both_busy", "acceptance cycles, -a")
    # The swap of the two processes survives the claim and the accept label: reduced.
    assert result.strategy == "refine" and result.group_order == 2
    assert any("pan -a" in note and "accept_init (ltl both_busy)" in note for note in notes)
    assert "claim:          ltl both_busy (acceptance cycles, -a)" in result.summary()


def test_safety_option_keeps_the_safety_search_and_shows_pans_warning(tmp_path):
    model = _copy(MODELS / "ltl_liveness.pml", tmp_path)
    result = verify(model, VerifyOptions(safety=True))
    assert result.errors == 0 and result.complete and "-a" not in result.pan_args
    assert (result.claim, result.search) == ("ltl both_busy", "safety")
    # The three orbits of the four states of the safety search (the header counts them).
    assert (result.group_order, result.states_stored) == (2, 3)
    assert result.warnings == ["warning: never claim + accept labels requires -a flag to fully verify"]
    assert "pan warning:    never claim + accept labels requires -a flag to fully verify" in result.summary()
    data = json.loads(result.to_json())
    assert (data["claim"], data["search"]) == ("ltl both_busy", "safety")
    assert data["warnings"] == result.warnings


def test_accept_label_in_a_proctype_asks_for_acceptance_cycles(tmp_path):
    # accept.pml's header: pan -a reports the cycle through accept_top, pan alone nothing.
    result = verify(_copy(MODELS / "accept.pml", tmp_path), VerifyOptions(strategy="none"))
    assert (result.errors, result.pan_args, result.claim) == (1, ["-a"], None)
    assert result.search == "acceptance cycles, -a"
    assert "claim:          none (acceptance cycles, -a)" in result.summary()


def test_a_safety_formula_asks_for_no_cycle_search(tmp_path):
    # [] (x < 3) translates into a claim whose only label is accept_all (spin's has_accept
    # ignores it): spin -run does not add -a, nor do we.
    model = write(tmp_path, "byte x;\nactive proctype P() { do :: x = (x + 1) % 3 od }\n"
                            "ltl bounded { [] (x < 3) }\n")
    result = verify(model, VerifyOptions(strategy="none"))
    assert result.pan_args == [] and (result.claim, result.search) == ("ltl bounded", "safety")
    assert result.errors == 0 and result.complete


@pytest.mark.parametrize("define,why", [
    ("SAFETY", "-DSAFETY"),
    ("BFS", "-DBFS"),
    ("NOCLAIM", "-DNOCLAIM"),
])
def test_defines_under_which_spin_run_adds_no_a(tmp_path, define, why):
    notes: list[str] = []
    result = verify(_copy(MODELS / "accept.pml", tmp_path),
                    VerifyOptions(strategy="none", defines=(define,), on_note=notes.append))
    assert result.errors == 0 and "-a" not in result.pan_args and result.search == "safety"
    assert any(why in note and "accept_top (proctype cycler)" in note for note in notes)


def test_np_adds_the_non_progress_search(tmp_path):
    # COUNTER has no progress label: it ends (no cycle at all), so no non-progress cycle.
    result = verify(write(tmp_path, COUNTER.replace("{N}", "5")),
                    VerifyOptions(strategy="none", defines=("NP",)))
    assert result.pan_args == ["-l"] and result.errors == 0 and result.complete
    assert (result.claim, result.search) == ("non-progress claim (-DNP)", "non-progress cycles, -l")


@pytest.mark.parametrize("options", [
    VerifyOptions(defines=("SAFETY",), pan_args=("-a",)),
    VerifyOptions(defines=("SAFETY",), pan_args=("-l",)),
    VerifyOptions(safety=True, pan_args=("-a",)),
])
def test_safety_and_a_cycle_search_together_are_refused(tmp_path, options):
    with pytest.raises(UsageError):
        verify(_copy(MODELS / "accept.pml", tmp_path), options)


# A never claim after an ltl formula: spin numbers never claims first, so pan checks the never
# claim by default (`defaults to -N never_0`), not the formula the file states first.  The
# claim names pid 1 (x == 1): only the swap of pids 0 and 2 respects it.
LTL_THEN_NEVER = """
byte x = 255;
active [3] proctype P() { end: do :: x = _pid od }
ltl bounded { [] (x != 7) }
never { do :: x == 1 -> break :: else od }
"""


def test_pans_default_claim_is_the_first_never_claim(tmp_path):
    model = write(tmp_path, LTL_THEN_NEVER)
    plain = run_spin(model, opt="-O0")
    assert plain.errors == 1 and "(never_0)" in plain.output    # the reference
    result = verify(model, VerifyOptions(save_trails=False))
    assert result.claim == "never claim never_0" and result.errors == 1
    assert result.group_order == 2


def test_a_group_restricted_to_another_claim_than_pans_is_an_error(tmp_path):
    # The guard behind the test above: pan's report names the claim it checked, and verify
    # refuses a reduction whose group was computed for another one (real pan output).
    from topspin_py.pan.output import parse_pan_output
    from topspin_py.pan.refusals import check_claim_checked
    from topspin_py.promela import load_model

    model = write(tmp_path, LTL_THEN_NEVER)
    report = parse_pan_output(run_spin(model, opt="-O0").output)
    assert report.claim == "never_0"
    loaded = load_model(model)
    check_claim_checked(report, loaded.keeping_claim(FIRST_CLAIM))   # agrees
    with pytest.raises(ToolchainError, match="pan checked the claim never_0"):
        check_claim_checked(report, loaded.keeping_claim("bounded"))


# --- --compare: verdicts that differ ---------------------------------------------------------

def _with_a_wrong_group(monkeypatch, generators_by_pid: list[list[int]]) -> None:
    """Make verify use a group the model does not have (every permutation of the pids listed):
    the way to get a real reduced run that misses an error, whatever the analysis does."""
    from sympy.combinatorics import Permutation, PermutationGroup

    import topspin_py.pipeline as pipeline_module
    from topspin_py.symmetry.kinds import pid_point

    real_find_symmetry = pipeline_module.find_symmetry

    def wrong(context):
        group = real_find_symmetry(context)
        index = {point: i for i, point in enumerate(group.points)}
        perms = []
        for cycle in generators_by_pid:
            image = list(range(len(group.points)))
            for a, b in zip(cycle, cycle[1:] + cycle[:1]):
                image[index[pid_point(a)]] = index[pid_point(b)]
            perms.append(Permutation(image))
        return dataclasses.replace(group, perm_group=PermutationGroup(perms))
    monkeypatch.setattr(pipeline_module, "find_symmetry", wrong)


def test_compare_reports_a_reduction_that_misses_an_error(tmp_path, monkeypatch):
    # The claim breaks at x == 1; with all of S3 on the pids the reduced search stores the
    # state after P:1's step as the one after P:0's and never sees x == 1 (checked here).
    model = write(tmp_path, LTL_THEN_NEVER)
    _with_a_wrong_group(monkeypatch, [[0, 1], [0, 1, 2]])
    result = verify(model, VerifyOptions(compare=True, save_trails=False))
    assert result.group_order == 6 and result.errors == 0
    assert result.plain is not None
    assert result.plain.errors == 1
    assert result.exit_status == 2
    assert result.disagreement is not None
    assert result.disagreement.startswith("the verdicts differ: plain SPIN found 1 error(s), "
                                          "the reduced search (strategy refine, group order 6) found none")
    assert "VERDICTS DIFFER:" in result.summary()
    assert json.loads(result.to_json())["disagreement"] == result.disagreement


def test_compare_decision_on_real_runs(tmp_path):
    # Real results of real runs, paired as --compare pairs them: the reduced acceptance-cycle
    # search of ltl_liveness.pml (errors) with plain runs with and without -a.
    model = _copy(MODELS / "ltl_liveness.pml", tmp_path)
    reduced = verify(model, VerifyOptions(compare=True, save_trails=False))
    assert reduced.plain is not None
    assert reduced.errors == 1 and reduced.plain.errors == 1     # both find the cycle
    assert (reduced.disagreement, reduced.exit_status) == (None, 1)
    safety = verify(model, VerifyOptions(strategy="none", safety=True, save_trails=False))
    reduced.plain = PlainRun(safety.states_stored, safety.transitions, safety.errors,
                             safety.complete, safety.elapsed_s, safety.memory_mb)
    assert reduced.exit_status == 2
    assert reduced.disagreement is not None
    assert reduced.disagreement.startswith("the verdicts differ: the reduced search (strategy "
                                           "refine, group order 2) found 1 error(s), plain "
                                           "SPIN found none")


@pytest.mark.parametrize("strategy,excused", [("sorted", False), ("markers-approx", True)])
def test_compare_excuses_a_missed_error_by_an_approximate_strategy_only(tmp_path, strategy, excused):
    # Real runs of ltl_liveness.pml paired as --compare pairs them: a reduced safety search
    # (no error: its claim fails only on a cycle) with a plain acceptance-cycle search (1 error).
    # A complete strategy (sorted) keeps at least one state of every orbit and misses none, so
    # the miss is a bug and nothing excuses it; an approximate one (markers-approx) may merge
    # orbits, and the message says so.
    model = _copy(MODELS / "ltl_liveness.pml", tmp_path)
    reduced = verify(model, VerifyOptions(strategy=strategy, safety=True, save_trails=False))
    assert (reduced.errors, reduced.complete, reduced.group_order) == (0, True, 2)
    cycles = verify(model, VerifyOptions(strategy="none", save_trails=False))
    assert cycles.errors == 1
    reduced.plain = PlainRun(cycles.states_stored, cycles.transitions, cycles.errors,
                             cycles.complete, cycles.elapsed_s, cycles.memory_mb)
    assert reduced.exit_status == 2
    assert reduced.disagreement is not None
    assert reduced.disagreement.startswith("the verdicts differ: plain SPIN found 1 error(s), the "
                                           f"reduced search (strategy {strategy}, group order 2) found none")
    assert ("approximate" in reduced.disagreement) == excused, reduced.disagreement


def test_a_reduced_run_whose_pan_does_not_say_so_is_refused():
    # pan prints "topspin-py: symmetry reduction on, group order N, ..." when the canonicaliser
    # is compiled in (splice.py); a report without it, or with another order, is not the run
    # verify meant, and must not be reported as a reduced result.
    from types import SimpleNamespace

    from topspin_py.errors import ToolchainError
    from topspin_py.pan.output import parse_pan_output
    from topspin_py.pan.refusals import check_reduction_on

    group = SimpleNamespace(order=6)
    plain = parse_pan_output("(Spin Version 6.5.2 -- 6 December 2019)\n")
    with pytest.raises(ToolchainError):
        check_reduction_on(plain, group)
    off = parse_pan_output("(Spin Version 6.5.2 -- 6 December 2019)\n"
                           "topspin-py: symmetry reduction off (pan.c built without -DTOPSPIN_SYM)\n")
    with pytest.raises(ToolchainError):
        check_reduction_on(off, group)
    other = parse_pan_output("(Spin Version 6.5.2 -- 6 December 2019)\n"
                             "topspin-py: symmetry reduction on, group order 2, strategy segmented\n")
    with pytest.raises(ToolchainError):
        check_reduction_on(other, group)
    on = parse_pan_output("(Spin Version 6.5.2 -- 6 December 2019)\n"
                          "topspin-py: symmetry reduction on, group order 6, strategy segmented\n")
    check_reduction_on(on, group)


# --- SPIN's own warnings, and its partial order reduction where SPIN says it is unsound -----

def _plain_pan(model: Path, directory: Path, *flags: str) -> tuple[str, int]:
    """spin -a, gcc (its stderr: SPIN's #warnings) and ./pan: the compiler's output and pan's
    errors, as a SPIN user gets them (spin -run compiles the same way, and warns the same)."""
    directory.mkdir()
    shutil.copyfile(model, directory / model.name)
    subprocess.run(["spin", "-a", model.name], cwd=directory, check=True, capture_output=True)
    gcc = subprocess.run(["gcc", "-O0", *flags, "-o", "pan", "pan.c"], cwd=directory, check=True,
                         capture_output=True, text=True)
    out = subprocess.run(["./pan"], cwd=directory, capture_output=True, text=True).stdout
    return gcc.stderr, int(out.split("errors: ", 1)[1].split()[0])


POR_WARNING = "p.o. reduction not compatible with remote varrefs (use -DNOREDUCE)"


def test_por_is_turned_off_where_spin_says_it_is_not_compatible(tmp_path):
    model = MODELS / "por_remote_ref.pml"
    # Plain SPIN misses the assertion violation with its default partial order reduction, and
    # only its compiler warning says why; -DNOREDUCE finds it.
    warned, missed = _plain_pan(model, tmp_path / "por")
    assert missed == 0 and f"#warning {POR_WARNING}" in warned
    _, found = _plain_pan(model, tmp_path / "noreduce", "-DNOREDUCE")
    assert found == 1
    # spin -run misses it too: SPIN itself warns (gcc's output, which spin -run passes on), and
    # searches with the reduction all the same.
    (tmp_path / "run").mkdir()
    shutil.copy(model, tmp_path / "run" / model.name)
    spin_run = subprocess.run(["spin", "-run", model.name], cwd=tmp_path / "run", capture_output=True,
                              text=True, timeout=600)
    out = spin_run.stdout + spin_run.stderr
    assert "errors: 0" in out and f"#warning {POR_WARNING}" in out and "+ Partial Order Reduction" in out
    plain = run_spin(model, flags=("-DNOREDUCE",), opt="-O0")
    notes: list[str] = []
    copy = shutil.copy(model, tmp_path / model.name)
    for strategy in ("auto", "none"):
        result = verify(copy, VerifyOptions(strategy=strategy, on_note=notes.append, optimisation="-O0"))
        assert result.errors == found and result.exit_status == 1
        assert not result.partial_order_reduction and "NOREDUCE" in result.defines
        assert result.por_turned_off and result.por_incompatible == [f"pan.c: #warning {POR_WARNING}"]
        assert result.group_order == (2 if strategy == "auto" else 1)
        assert any(POR_WARNING in warning and "turned off" in warning for warning in result.warnings)
        assert any(POR_WARNING in note and "turned off" in note for note in notes)
    assert result.states_stored == plain.states and result.transitions == plain.transitions
    # The user's -DNOREDUCE: nothing to turn off, but SPIN's words are still known.
    given = verify(copy, VerifyOptions(defines=("NOREDUCE",), optimisation="-O0"))
    assert given.errors == found and not given.por_turned_off and given.por_incompatible


def test_por_note_and_warning_reach_the_summary_and_json(tmp_path):
    shutil.copy(MODELS / "por_remote_ref.pml", tmp_path / "m.pml")
    run = topspin("verify", "--json", "-O0", "m.pml", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    result = json.loads(run.stdout)
    assert result["por_turned_off"] and any(POR_WARNING in warning for warning in result["warnings"])
    assert "partial order reduction turned off" in run.stderr and POR_WARNING in run.stderr
    summary = topspin("verify", "--quiet", "-O0", "m.pml", cwd=tmp_path).stdout
    assert "warning:        partial order reduction turned off" in summary and POR_WARNING in summary


def test_spins_compile_time_warnings_reach_the_user(tmp_path):
    # pan.c: "#warning -DREACH is voided by -DBITSTATE", which gcc prints and verify used to
    # throw away with the rest of gcc's output.
    model = write(tmp_path, COUNTER.replace("{N}", "5"))
    warned, _ = _plain_pan(model, tmp_path / "plain", "-DBITSTATE", "-DREACH")
    assert "#warning -DREACH is voided by -DBITSTATE" in warned
    run = topspin("verify", "--json", "-O0", "-DBITSTATE", "-DREACH", "m.pml", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "pan.c: #warning -DREACH is voided by -DBITSTATE" in json.loads(run.stdout)["warnings"]
    assert "gcc: pan.c: #warning -DREACH is voided by -DBITSTATE" in run.stderr
    summary = topspin("verify", "-O0", "-DBITSTATE", "-DREACH", "m.pml", cwd=tmp_path).stdout
    assert "pan warning:    pan.c: #warning -DREACH is voided by -DBITSTATE" in summary
