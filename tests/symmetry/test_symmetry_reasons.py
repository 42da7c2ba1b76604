"""Every reason the group shrinks is shown: no silent loss of symmetry.

The models in tests/models/reasons/ each have identical-looking processes that a sound analysis
must not permute, for one of the reasons a SPIN user meets: processes that terminate, a channel
filled by one process only, a claim that names one process, textual copies of a proctype
(SPIN's snoopy.pml style).  For each, ``verify`` must say why in its notes (file:line and the
reason) and ``detect --explain`` must show the text before and after the permutation where the
reason is a change of the text.  The expected texts come from reading the models (written out
below), not from the tool's output.

init_sends (tests/models/soundness/) is the case of "channels filled by init":
it is now a symmetry, checked there against plain SPIN; here only that detect finds it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import MODELS, REPO

REASONS = MODELS / "reasons"


def _cli(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "topspin_py.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def _notes(model: str) -> tuple[str, list[str]]:
    """verify's summary and its JSON ``symmetry_notes`` on a model of tests/models/reasons/."""
    proc = _cli("verify", "--gcc-opt=-O0", str(REASONS / model))
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    proc_json = _cli("verify", "--gcc-opt=-O0", "--json", str(REASONS / model))
    assert proc_json.returncode == proc.returncode, proc_json.stdout + proc_json.stderr
    notes = json.loads(proc_json.stdout)["symmetry_notes"]
    # The summary shows each reason on a line of its own (cut at 160 characters).
    summary = proc.stdout.splitlines()
    start = next(i for i, line in enumerate(summary) if line.startswith("symmetry:"))
    shown = [summary[start][16:]]
    for line in summary[start + 1:]:
        if not line.startswith(" " * 16):
            break
        shown.append(line[16:])
    for note in notes[:3]:
        assert any(note.startswith(line.removesuffix("...")) for line in shown), (note, proc.stdout)
    return proc.stdout, notes


def _explained(model: str) -> str:
    proc = _cli("detect", "--explain", str(REASONS / model))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_terminating_processes_say_why():
    stdout, notes = _notes("terminating.pml")
    # pids 0, 1, 2 of P: the model's line 4 declares them.
    assert "strategy:       none (group order 1)" in stdout
    assert len(notes) == 1, notes   # one reason, for every swap it rules out
    assert notes[0].startswith("not permuted (P:")
    assert f"{REASONS / 'terminating.pml'}:4:1: processes of 'P' can terminate" in notes[0]


def test_channel_filled_by_one_process_says_where():
    _, notes = _notes("filled_by_a_process.pml")
    # A (pid 0, line 4) sends into q[0] only; the servers are pids 2 and 3 (init is pid 1).
    assert (f"not permuted (q[0] q[1])(Server:2 Server:3): "
            f"{REASONS / 'filled_by_a_process.pml'}:4:23: the proctype 'A' is not mapped to "
            "itself: 'q[0]!7' would become 'q[1]!7'") in notes
    explained = _explained("filled_by_a_process.pml")
    assert "    before:\n        q[0]!7\n    after:\n        q[1]!7\n" in explained


def test_claim_that_names_one_process_says_how_its_text_changes():
    stdout, notes = _notes("claim_breaks.pml")
    # flag[1] fixes pid 1; pids 0 and 2 still swap.
    assert "(exact; group order 2)" in stdout
    assert any("the ltl formula 'p1' is not mapped to itself: '[]((flag[1] -> (cs == 1)))' would "
               "become '[]((flag[2] -> (cs == 1)))'" in note for note in notes), notes
    explained = _explained("claim_breaks.pml")
    assert ("    before:\n        ltl p1 { []((flag[1] -> (cs == 1))) }\n"
            "    after:\n        ltl p1 { []((flag[2] -> (cs == 1))) }\n") in explained


def test_textual_copies_are_named():
    _, notes = _notes("textual_copies.pml")
    assert any(note.startswith(f"{REASONS / 'textual_copies.pml'}:7:1: proctypes 'client0', "
                               "'client1' are copies of one another up to constants and the "
                               "globals they name") for note in notes), notes


@pytest.mark.parametrize("model", ["terminating.pml", "filled_by_a_process.pml",
                                   "claim_breaks.pml", "textual_copies.pml"])
def test_detect_gives_a_reason_whenever_look_alikes_stay_apart(model: str):
    out = _explained(model)
    assert "not permuted" in out or "rejected" in out or "note:" in out, out


def test_channels_filled_by_init_are_a_symmetry():
    proc = _cli("detect", str(MODELS / "soundness" / "init_sends.pml"))
    assert proc.returncode == 0, proc.stderr
    assert "group order: 2" in proc.stdout
    assert "generator (q[0] q[1])(Relay:1 Relay:2)" in proc.stdout


def test_permutations_of_rendezvous_channels_named_only_in_the_text_act_on_no_state(tmp_path):
    # rendezvous_names.pml: 24 valid permutations of four global rendezvous channels, none
    # of which changes a stored state.  verify reduces by the group acting on states (order
    # 1: plain SPIN's search) and says why; detect still reports the 24.
    model = REASONS / "rendezvous_names.pml"
    proc = _cli("detect", str(model))
    assert "group order: 24" in proc.stdout
    assert "note: the rendezvous channels e1, e2, f1, f2 are always empty" in proc.stdout
    stdout, notes = _notes("rendezvous_names.pml")
    assert "(group order 1)" in stdout
    assert any("its action on states order 1" in note for note in notes), notes
    # The same model with buffered channels: they hold messages, the group acts on states.
    buffered = tmp_path / "buffered.pml"
    buffered.write_text(model.read_text().replace("[0] of", "[1] of"))
    proc = _cli("verify", "--gcc-opt=-O0", "--json", "--compare", str(buffered))
    result = json.loads(proc.stdout)
    assert result["group_order"] == 24, proc.stderr
    assert result["states_stored"] < result["plain"]["states_stored"]


def test_rendezvous_channels_whose_ids_a_variable_holds_stay_in_the_group(tmp_path):
    # The same four channels, and a byte that holds one of their ids (and is read, or spin
    # would leave it out of the state): now a permutation of
    # them renames that byte's value, which is a change of state, so verify must reduce by
    # the whole group (the projection would drop the renaming and merge states it must not).
    model = tmp_path / "named.pml"
    model.write_text((REASONS / "rendezvous_names.pml").read_text()
                     + "byte b;\nactive proctype picker() {\n"
                       "  end: do :: b = e1 :: b = f1 :: b = e2 :: b = f2 :: assert(b != 200) od\n}\n")
    # -DNOREDUCE: plain SPIN stores b's five values (0 and the four ids), the reduction two.
    proc = _cli("verify", "--gcc-opt=-O0", "--json", "--compare", "-DNOREDUCE", str(model))
    result = json.loads(proc.stdout)
    assert result["group_order"] == 24, proc.stderr
    assert (result["plain"]["states_stored"], result["states_stored"]) == (5, 2)
    assert not any("rendezvous" in note for note in result["symmetry_notes"])
    assert result["errors"] == result["plain"]["errors"] == 0
    assert result["states_stored"] < result["plain"]["states_stored"]


# ------------------------------------------------------------------------------ offsets
SOUNDNESS = MODELS / "soundness"


def _detect_json(path) -> dict:
    proc = _cli("detect", "--json", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def _all_reasons(report: dict) -> list[str]:
    """Every reason of a detect report, each with its place in front when it has one."""
    found = list(report["reasons"])
    for entry in report["rejected"] + report["left_out"]:
        found.append(f"{entry['where']}: {entry['reason']}")
    return found


@pytest.mark.parametrize("model,where,words", [
    # flag[2] is indexed by `_pid - 1` (line 12) but declared with 2 elements (line 7): pid 3
    # has no element.
    ("offset_short_array.pml", "offset_short_array.pml:7:", ("pid - 1", "pid 3")),
    # `holder != 0` (line 13) names local id 0, pid 1: moving pid 1 changes the text.
    ("offset_constant.pml", "offset_constant.pml:13:", ("holder != 0", "holder != 1")),
    # flag[_pid - 1] (line 13) and flag[_pid] (line 14) index flag with offsets 1 and 0.
    ("offset_mixed.pml", "offset_mixed.pml:13:", ("different offsets",)),
    # holder + 1 (line 20) is arithmetic on a local id.
    ("offset_arith.pml", "offset_arith.pml:20:", ("holder", "'+'")),
])
def test_offsets_say_why(model: str, where: str, words: tuple[str, ...]):
    """Pids with an offset (`_pid - 1`) that a permutation cannot follow: the group shrinks
    and detect says where and why (the places come from reading the models)."""
    reasons = _all_reasons(_detect_json(SOUNDNESS / model))
    assert any(where in r and all(w in r for w in words) for r in reasons), reasons
