"""Proctype copies merged into one proctype (topspin_py/promela/copies.py: copies
that differ only in their name and in constants that act as ids are one family).

The merge rewrites the program spin checks, so its first obligation is to leave the program's
behaviour alone: plain SPIN must give the rewritten program exactly the counts (states,
transitions, errors) of the program as written, with and without partial order reduction,
on our own models and on BEEM's (which write every family this way).  The symmetry the
analysis then finds on the rewritten program is checked like any other: the reduced count
against the orbit oracle (tests/support/statespace.py; tests/oracles/test_differential.py does it for
tests/models/copies_*.pml), the transition oracle on the adversarial models
(tests/models/soundness/copies_*.pml, tests/oracles/test_soundness_models.py).  Here: the counts,
the rewrite itself, the refusals and their reasons, and the places where spin is given the
rewritten program (verify's trail replay, -f formulas that name a copy).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import MODELS, REPO
from modelgen import run_spin

from topspin_py.promela import load_model, print_spec
from topspin_py.symmetry.detect import detect

OWN = [MODELS / "copies_active.pml", MODELS / "copies_run.pml",
       MODELS / "soundness" / "copies_one_asymmetric.pml", MODELS / "soundness" / "copies_order.pml"]
# BEEM models (../shared/corpus/beem) whose copies are merged, small enough for a test; -E -c0
# makes pan search their whole state space past deadlocks and assertion violations.
BEEM = ["bakery.1.pm", "fischer.1.pm", "phils.1.pm", "telephony.1.pm", "driving_phils.1.pm",
        "msmie.1.pm", "reader_writer.1.pm", "at.1.pm"]
WHOLE = ("-E", "-c0", "-m1000000")


def _write(tmp_path: Path, text: str, name: str = "m.pml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def _counts(result) -> tuple:
    return (result.get("states"), result.get("transitions"), result.get("errors"))


def _assert_same_plain_counts(path: Path) -> None:
    model = load_model(path)
    assert model.copies is not None and model.copies.families, f"{path.name}: no copies merged"
    text = model.spin_text
    assert text is not None
    for flags in (["-DSAFETY", "-DNOREDUCE"], ["-DSAFETY"]):
        written = run_spin(path, flags=flags, pan=WHOLE, opt="-O0")
        merged = run_spin(text=text, flags=flags, pan=WHOLE, opt="-O0")
        assert _counts(merged) == _counts(written), (path.name, flags)


def _cli(*args: str, cwd: Path = REPO, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "topspin_py.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, check=False, env=_env())


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


# ------------------------------------------------------------------- the program is the same

@pytest.mark.parametrize("path", OWN, ids=lambda p: p.stem)
def test_plain_spin_counts_of_the_rewritten_own_models_are_those_as_written(path: Path):
    _assert_same_plain_counts(path)


@pytest.mark.parametrize("name", BEEM)
def test_plain_spin_counts_of_rewritten_beem_models_are_those_as_written(corpus, name: str):
    _assert_same_plain_counts(corpus / "beem" / name)


def test_pids_and_process_count_are_kept():
    for path in OWN:
        merged, written = load_model(path), load_model(path, merge=False)
        assert [p.pid for p in merged.processes] == [p.pid for p in written.processes]
        assert merged.copies is not None
        family = merged.copies.families[0]
        assert [merged.processes[pid].proctype for pid in family.pids] == [family.name] * len(family.pids)
        assert [written.processes[pid].proctype for pid in family.pids] == list(family.members)


# ------------------------------------------------------------------- the rewrite

def test_constants_become_expressions_of_pid(tmp_path: Path):
    # Active copies at pids 1..3 (init is pid 0): k is _pid - 1; a ring neighbour (k+1) % 3;
    # a constant matched by a receive is wrapped in eval().
    path = _write(tmp_path, """\
        byte x[3]; chan c = [3] of { byte };
        init { skip }
        active proctype R_0() { x[0] = 1; x[1] = 2; c!0; c?0 }
        active proctype R_1() { x[1] = 1; x[2] = 2; c!1; c?1 }
        active proctype R_2() { x[2] = 1; x[0] = 2; c!2; c?2 }
        """)
    model = load_model(path)
    assert model.copies is not None
    assert [(f.name, f.members, f.pids) for f in model.copies.families] == \
        [("R", ("R_0", "R_1", "R_2"), (1, 2, 3))]
    text = print_spec(model.spec)
    assert "active [3] proctype R()" in text
    assert "x[(_pid - 1)] = 1" in text
    assert "x[(_pid % 3)] = 2" in text   # (k + 1) % 3 is pid % 3 for pid = k + 1
    assert "c?eval((_pid - 1))" in text
    # init keeps pid 0, declared before the copies
    assert [p.proctype for p in model.processes] == [":init:", "R", "R", "R"]
    _assert_same_plain_counts(path)


def test_run_statements_run_the_merged_proctype(tmp_path: Path):
    path = _write(tmp_path, """\
        byte x[2];
        proctype P_0() { x[0]++ }
        proctype P_1() { x[1]++ }
        proctype P() { skip }
        init { atomic { run P_0(); run P_1() } }
        """)
    model = load_model(path)
    assert model.copies is not None
    family = model.copies.families[0]
    assert family.name == "P_copies"   # P is taken
    text = print_spec(model.spec)
    assert "run P_copies();\n" in text and "run P_0" not in text
    assert "x[(_pid - 1)]++" in text


# ------------------------------------------------------------------- refusals, with reasons

REFUSED = {
    "not_k_plus_c": ("""\
        byte w;
        active proctype S_1() { w = w + 5 }
        active proctype S_2() { w = w + 10 }
        active proctype S_3() { w = w + 20 }
        """, 2, "neither k + c nor (k + c) % 3"),
    "array_size": ("""\
        active proctype A_0() { byte b[2]; b[0] = 1 }
        active proctype A_1() { byte b[3]; b[0] = 1 }
        """, 1, "the constant of an array size differs"),
    "remote": ("""\
        byte x[2];
        active proctype P_0() { cs: x[0] = 1 }
        active proctype P_1() { cs: x[1] = 1 }
        ltl safe { [] !(P_0@cs && P_1@cs) }
        """, 4, "referred to remotely"),
    "runs_one_by_one": ("""\
        byte x[2];
        proctype P_0() { x[0] = 1 }
        proctype P_1() { x[1] = 1 }
        init { run P_0(); run P_1() }
        """, 4, "whose pid is not known before the search"),  # P_0 may end first (init_runs)
    "runs_with_a_guard_between": ("""\
        byte x[2];
        proctype P_0() { x[0] = 1 }
        proctype P_1() { x[1] = 1 }
        init { atomic { run P_0(); x[0] == 1; run P_1() } }
        """, 4, "whose pid is not known before the search"),  # the guard lets P_0 end first
    "active_between": ("""\
        byte x[2];
        active proctype P_0() { x[0] = 1 }
        active proctype Q() { skip }
        active proctype P_1() { x[1] = 1 }
        """, 2, "declared between the active copies"),
    "active_after_init": ("""\
        byte x[2];
        proctype P_0() { x[0] = 1 }
        proctype P_1() { x[1] = 1 }
        init { atomic { run P_0(); run P_1() } }
        active proctype Q() { skip }
        """, 2, "active process declared after init"),
    "dynamic_run": ("""\
        byte x[2];
        proctype P_0() { x[0] = 1 }
        proctype P_1() { x[1] = 1 }
        init { if :: run P_0() :: skip fi; run P_1() }
        """, 4, "whose pid is not known"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_copies_that_cannot_be_merged_are_left_alone_with_a_reason(case: str, tmp_path: Path):
    text, line, reason = REFUSED[case]
    path = _write(tmp_path, text)
    model = load_model(path)
    assert model.copies is not None
    assert not model.copies.families and model.spin_text is None
    [refusal] = model.copies.refusals
    assert reason in refusal.reason
    assert str(refusal.pos).startswith(f"{path}:{line}:"), refusal.pos
    # detect says it, in one line at file:line
    notes = [r for r in detect(model).reasons if "are copies up to constants but are not merged" in r]
    assert len(notes) == 1 and notes[0].startswith(f"{path}:{line}:") and reason in notes[0]
    assert "\n" not in notes[0]


def test_bakery_order_comparison_on_ids_stays_asymmetric_with_its_reason(corpus):
    path = corpus / "beem" / "bakery.1.pm"
    model = load_model(path)
    assert model.copies is not None
    assert [f.members for f in model.copies.families] == [("P_0", "P_1")]
    group = detect(model)
    assert group.order == 1
    # `0<=j` in P_0 and `1<=j` in P_1 are `_pid <= j`: an order comparison on a pid.
    assert any(r.startswith(f"{path}:28:") and "used with '<='" in r for r in group.reasons), group.reasons


def test_snoopy_copies_naming_different_channels_are_not_merged_and_say_why(corpus):
    path = corpus / "spins-case-studies" / "Tests" / "snoopy"
    model = load_model(path)
    assert model.spin_text is None
    reasons = detect(model).reasons
    for pair, name in ((("cpu0", "cpu1"), "fromcpu0"), (("cache0", "cache1"), "frombus0")):
        assert any(f"'{pair[0]}', '{pair[1]}' are copies" in r and f"'{name}' in '{pair[0]}'" in r
                   and "not merged" in r for r in reasons), reasons


# ------------------------------------------------------------------- reduced runs

@pytest.mark.parametrize("name,order", [("phils.1.pm", 4), ("msmie.1.pm", 12), ("mcs.2.pm", 2)])
def test_beem_reduced_count_is_the_orbit_count(corpus, name: str, order: int, tmp_path: Path):
    """The reduced search stores one state per orbit of plain SPIN's state space of the
    rewritten program (whose plain counts are the original's: above)."""
    from statespace import count_orbits, explore

    path = tmp_path / name
    path.write_text((corpus / "beem" / name).read_text())
    model = load_model(path)
    group = detect(model)
    assert group.order == order
    merged = tmp_path / "merged" / name
    merged.parent.mkdir()
    assert model.spin_text is not None
    merged.write_text(model.spin_text)
    flags, pan = ("-DSAFETY", "-DNOREDUCE"), ("-E",)
    space = explore(merged, tmp_path / "oracle", flags, pan, group=group)
    orbits = count_orbits(space, [group.alpha(g) for g in group.perm_group.generate()]).count
    proc = _cli("verify", "--json", "--strategy", "enumerate", *flags, "--pan", "-E", str(path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["states_stored"] == orbits


def test_verify_leaves_the_rewritten_program_and_its_trail_replays(tmp_path: Path):
    path = tmp_path / "asym.pml"
    path.write_text((MODELS / "soundness" / "copies_one_asymmetric.pml").read_text())
    proc = _cli("verify", "--json", "-DSAFETY", "-DNOREDUCE", str(path))
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["errors"] == 1
    program = tmp_path / "asym.desugared.pml"
    assert "active [4] proctype P()" in program.read_text()
    replay = subprocess.run(["spin", "-k", "asym.pml.trail", "-p", program.name], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60, check=False)
    assert "assertion violated" in replay.stdout, replay.stdout + replay.stderr


def test_a_formula_that_names_a_copy_keeps_the_copies_as_written(tmp_path: Path):
    path = _write(tmp_path, """\
        bool in[2];
        active proctype P_0() { do :: in[0] = 1; cs: in[0] = 0 od }
        active proctype P_1() { do :: in[1] = 1; cs: in[1] = 0 od }
        """)
    copies = load_model(path).copies
    assert copies is not None
    assert copies.families   # merged when nothing names a copy
    # spin -f gives the never claim of the formula itself: it accepts once both are at cs,
    # which happens, so plain SPIN reports an error (the claim is matched).
    proc = _cli("verify", "--json", "-f", "<> (P_0@cs && P_1@cs)", "-run", "-DNOREDUCE", str(path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["errors"] == 1
    # spin was given the file as written (its claim names P_0 and P_1): no rewritten copy
    assert not (tmp_path / "m.desugared.pml").exists()


def test_copies_that_are_never_started_are_neither_merged_nor_reported(tmp_path: Path):
    path = _write(tmp_path, """\
        byte x[2];
        proctype A_0() { x[0] = 1 }
        proctype A_1() { x[1] = 1 }
        init { skip }
        """)
    model = load_model(path)
    assert model.copies is not None
    assert not model.copies.families and not model.copies.refusals and model.spin_text is None


def test_detect_says_which_copies_it_merged():
    proc = _cli("detect", str(MODELS / "copies_active.pml"))
    assert proc.returncode == 0, proc.stderr
    assert "copies: " in proc.stdout and "proctypes P_0, P_1, P_2 (pids 0, 1, 2) merged into 'P'" in proc.stdout
    assert "group order: 6  (S3)" in proc.stdout
