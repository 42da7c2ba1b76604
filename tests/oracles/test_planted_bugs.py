"""Planted bugs in the symmetry analysis, and the tests that catch them.

Why
---
A test suite that passes says little unless it can fail.  Here two soundness bugs (a place where
a pid is meant, overlooked) are planted in the product's validity check
(``topspin_py.symmetry.validity.Checker``) with pytest's monkeypatch, and each is shown to be
caught twice, by checks that do not trust the analysis:

1. *Ignores constant folding*: only literal pids are renamed, so a pid written as constant
   arithmetic (``st[N - 2]``, ``2 - 1``) or as an mtype name is left as it is, and a
   permutation that moves it passes the text comparison.
2. *Forgets remote-reference indices*: the index of ``P[1]@cs`` / ``P[1]:x`` is not renamed, so
   a claim or an assertion about process 1 passes for any permutation.

(a) On a small hand-written model whose error only a path of process 1 reaches (plain SPIN
finds it), the buggy ``detect`` returns a generator that moves process 1, and the transition
oracle (tests/support/transitions.py) rejects it: the graph of plain pan's stored states, moves and
errors is not mapped onto itself.  Without the bug, detection fixes process 1 and its group
passes the oracle.

(b) The random model generator (tests/support/randommodels.py) catches it: a derandomized search over
nearly symmetric models finds one on which, with the bug planted, the checks of
tests/support/randomchecks.py that trust neither the analysis nor the generator (plain SPIN's verdict
against every strategy's, and the transition oracle) fail; without the bug the same model
passes every check.  To keep the search cheap, a drawn model is examined (verified every way,
about ten seconds) only when the bug changes the group ``detect`` finds: on the others the
bug has no effect to catch.

The bugs are planted in this process only.  Detection here runs in this process, and verify
(differential.verify_every_way) in worker processes forked from it, which inherit the patch.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pytest
from conftest import MODELS
from differential import error_kind, group_in_force
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample
from modelgen import copy_model
from randomchecks import INDEPENDENT, Examination, examine
from randommodels import ModelSpec, model_specs
from test_symmetry_check import plant_values_read_as_integers
from transitions import explore_transitions, format_violations, transition_violations

from topspin_py.promela import ast, load_model
from topspin_py.symmetry.detect import Group, detect
from topspin_py.symmetry.inference import infer_types
from topspin_py.symmetry.kinds import PID, GlobalSlot
from topspin_py.symmetry.validity import Checker
from topspin_py.verify import VerifyOptions, verify

FLAGS = ("-DSAFETY", "-DNOREDUCE")
PAN_ARGS = ("-m10000",)


def plant_ignoring_constant_folding(monkeypatch) -> None:
    """Folded constants are not renamed: only literal ``Const`` nodes are."""
    original = Checker.constant

    def without_folding(self, node, value, context, alpha):
        return original(self, node, value, context, alpha) if isinstance(node, ast.Const) else node

    monkeypatch.setattr(Checker, "constant", without_folding)


def plant_forgetting_remote_indices(monkeypatch) -> None:
    """The index of a remote reference is left as it is."""
    monkeypatch.setattr(Checker, "remote_index", lambda self, e, owner, alpha: e.index)


BUGS = {
    "ignores constant folding": plant_ignoring_constant_folding,
    "forgets remote-reference indices": plant_forgetting_remote_indices,
}


# ------------------------------------------------------------------------------ (a) by hand
# Three workers flip st[_pid] between 0 and 1; a monitor asserts that worker 1 is not at 1.
# Worker 1 is named only as N - 2, with N = 3: the assertion fails exactly in the states where
# st[1] == 1, which only worker 1's own move reaches.  Workers 0 and 2 may be swapped.
FOLDED_PID = """
#define N 3
byte st[N];

active [N] proctype worker()
{
end:
	do
	:: d_step { st[_pid] == 0 -> st[_pid] = 1 }
	:: d_step { st[_pid] == 1 -> st[_pid] = 0 }
	od
}

active proctype monitor() { assert(st[N - 2] != 1) }
"""

# Three workers; between its guard and its reset a worker rests at `cs`.  The error is
# reported when worker 1 (the literal in the remote reference) is at cs: in the claim, the
# claim ends ("end state in claim reached"); in the monitor, its assertion fails.  Only worker
# 1's own move takes it to cs; workers 0 and 2 may be swapped.
REMOTE_WORKERS = """
byte st[3];

active [3] proctype worker()
{
end:
	do
	:: d_step { st[_pid] == 0 -> st[_pid] = 1 }
	:: st[_pid] == 1 -> cs: st[_pid] = 0
	od
}
"""
REMOTE_IN_CLAIM = REMOTE_WORKERS + "\nnever { do :: worker[1]@cs -> break :: else od }\n"
REMOTE_IN_ASSERTION = REMOTE_WORKERS + "\nactive proctype monitor() { assert(!worker[1]@cs) }\n"

HAND_WRITTEN = [
    pytest.param("ignores constant folding", FOLDED_PID, "assertion violated", id="folded-pid"),
    pytest.param("forgets remote-reference indices", REMOTE_IN_CLAIM, "end state in claim reached",
                 id="remote-label-in-claim"),
    pytest.param("forgets remote-reference indices", REMOTE_IN_ASSERTION, "assertion violated",
                 id="remote-label-in-assertion"),
]


def moves_worker_1(group: Group) -> list:
    return [g for g in group.generators if g.pid(1) != 1]


@pytest.mark.parametrize("bug, source, error", HAND_WRITTEN)
def test_transition_oracle_rejects_what_a_planted_bug_accepts(tmp_path, monkeypatch, bug, source, error):
    path = tmp_path / "model.pml"
    path.write_text(source)
    plain = verify(path, VerifyOptions(strategy="none", defines=("SAFETY", "NOREDUCE"), pan_args=PAN_ARGS,
                                       save_trails=False))
    assert error_kind(plain) == error, plain.error_messages

    sound = detect(load_model(path))
    assert sound.order == 2 and not moves_worker_1(sound)   # (worker:0 worker:2)
    BUGS[bug](monkeypatch)
    buggy = detect(load_model(path))
    wrong = moves_worker_1(buggy)
    assert buggy.order == 6 and wrong

    graph = explore_transitions(path, tmp_path / "oracle", FLAGS, PAN_ARGS, roots=buggy.generators, group=buggy)
    reported = graph.with_label(error)
    assert reported
    if error == "assertion violated":
        # reported only where st[1] == 1, which only worker 1 writes (st[_pid]); the claim's
        # end is reported one move later, once worker 1 may have left cs
        assert graph.names is not None
        assert {graph.names.values(graph.vectors[n])["st[1]"] for n in reported} == {1}
    for generator in wrong:
        assert transition_violations(graph, generator, limit=1), \
            f"the oracle accepts {buggy.cycles(generator)}, which moves worker 1"
    for generator in sound.generators:
        assert transition_violations(graph, generator) == [], \
            format_violations(transition_violations(graph, generator))


# ------------------------------------------------------------------------------ (b) at random
SEARCH = settings(derandomize=True, database=None, deadline=None, max_examples=1000,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
MAX_EXAMINED = 12   # models examined (verified every way) before the search gives up


@pytest.mark.parametrize("bug", list(BUGS))
def test_random_models_catch_a_planted_bug(monkeypatch, bug):
    examined: list[str] = []
    caught_on: dict[ModelSpec, Examination] = {}

    def caught(spec: ModelSpec) -> bool:
        with tempfile.TemporaryDirectory(prefix="planted-") as workdir:
            path = Path(workdir) / "model.pml"
            path.write_text(spec.source())
            with monkeypatch.context() as patch:
                BUGS[bug](patch)
                buggy = detect(load_model(path)).order
            if buggy == detect(load_model(path)).order or len(examined) >= MAX_EXAMINED:
                return False
            examined.append(spec.describe())
            with monkeypatch.context() as patch:
                BUGS[bug](patch)
                found = examine(spec, False, Path(workdir))
            if found.caught_by(INDEPENDENT):
                caught_on[spec] = found
            return spec in caught_on

    # The draws are cheap (two detections each) until one is examined.
    try:
        spec = find(model_specs(nearly_symmetric=True, liveness=False), caught, settings=SEARCH)
    except NoSuchExample:
        pytest.fail("no random model caught the bug; examined:\n" + "\n".join(examined))

    buggy = caught_on[spec]
    assert buggy.caught_by(INDEPENDENT), buggy.report()
    with tempfile.TemporaryDirectory(prefix="planted-") as workdir:
        sound = examine(spec, False, Path(workdir))
    assert not sound.failures, sound.report()
    assert sound.group.order < buggy.group.order


# ------------------------------------------------------------------------------ (c) at the seams
# Two bugs where the analysis and the C meet (the two of them also in test_symmetry_check, where
# --check-symmetry catches them): values the C holds differently from the analysis, and a
# second reading of the model by the layout.  The transition oracle reads pan's state vector
# through its own join (tests/support/oracle_layout.py), in the C's width and signedness.
SEAM_FLAGS = ("-DSAFETY", "-DNOREDUCE")


def test_transition_oracle_rejects_a_pid_the_c_holds_wrapped_around(tmp_path, monkeypatch):
    # offset_wraps.pml: x = _pid - 5 in a byte holds 251 and 252; a swap of the P that leaves x
    # as it is takes a state from which P 0's write is reachable for one from which it is not
    path = copy_model(MODELS / "soundness/offset_wraps.pml", tmp_path)
    assert detect(load_model(path)).order == 1
    plant_values_read_as_integers(monkeypatch)
    buggy = detect(load_model(path))
    assert buggy.order == 2
    graph = explore_transitions(path, tmp_path / "oracle", SEAM_FLAGS, roots=buggy.generators, group=buggy)
    assert graph.with_label("assertion violated")
    for generator in buggy.generators:
        assert transition_violations(graph, generator, limit=1), \
            f"the oracle accepts {buggy.cycles(generator)}, which the byte x cannot follow"


def test_transition_oracle_rejects_the_action_of_a_second_reading(tmp_path):
    # ltl_other_formula.pml, searched for its claim tame: the group (the swap of the P) is the
    # model's when v is data.  A layout that read the model again with both formulas would take
    # v for a pid and rename it: the action the C would apply is the group's generators with the
    # second reading's types, and that action is no automorphism of plain pan's state graph.
    path = copy_model(MODELS / "soundness/ltl_other_formula.pml", tmp_path)
    pan_args = ("-N", "tame")
    group = group_in_force(path, ("SAFETY", "NOREDUCE"), pan_args)
    assert group.order == 2
    sound = explore_transitions(path, tmp_path / "sound", SEAM_FLAGS, pan_args, roots=group.generators,
                                group=group)
    assert sound.with_label("assertion violated")
    assert all(transition_violations(sound, g) == [] for g in group.generators)

    again = dataclasses.replace(group, types=infer_types(load_model(path)))
    v = GlobalSlot("v")
    assert group.types.kind(v) != PID and again.types.kind(v) == PID
    graph = explore_transitions(path, tmp_path / "planted", SEAM_FLAGS, pan_args, roots=again.generators,
                                group=again)
    for generator in again.generators:
        assert transition_violations(graph, generator, limit=1), \
            f"the oracle accepts {again.cycles(generator)} renaming v"
