"""Genuine lassos under symmetry reduction: a cycle pan closes only up to a
permutation is unrolled into a real cycle, which real ``spin -t`` replays back to the very
state (by values: channels, globals, every process's place and locals, the claim's place)
the cycle starts from.

The models are our own (tests/models/lasso_*.pml): a token ring whose liveness property
fails because the token may go round for ever, which the reduced search closes after one hop
(the state with the token at the next node is a rotation of the first).  Plain SPIN must find
the same kind of error; the unrolled trail must be real (tests/support/replay.py), and the trail as
pan wrote it (its steps without the ones added) must not be: that is what the unrolling is
for.  The rotations form a cyclic group of order 3, whose elements other than the identity
have order 3, so an unrolled cycle is three copies of pan's.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import MODELS
from modelgen import run_spin
from replay import CYCLE_MARK, first_steps, lasso_is_real, replay, steps

from topspin_py.result import error_kind
from topspin_py.verify import VerifyOptions, verify

# model, spin's defines, pan's compile flags, pan's arguments
CASES = {
    "ring-a": ("lasso_ring.pml", (), (), ("-a",)),
    "ring-l": ("lasso_ring.pml", ("-DNOLTL",), ("-DNP",), ("-l",)),
    "options-a": ("lasso_options.pml", (), (), ("-a",)),   # the mapped steps are other options
}


def _verify(tmp_path: Path, name: str, defines, flags, pan, strategy: str = "auto", extra=()):
    shutil.copy(MODELS / name, tmp_path / name)
    return verify(tmp_path / name, VerifyOptions(
        strategy=strategy, defines=tuple(d.removeprefix("-D") for d in (*defines, *flags, *extra)),
        pan_args=tuple(pan), optimisation="-O0"))


def _check_real_lasso(tmp_path: Path, name: str, result, defines) -> None:
    assert result.errors == 1 and result.trail is not None
    [lasso] = result.lassos
    trail = Path(result.trail)
    real, why = lasso_is_real(tmp_path, name, trail, defines)
    assert real, why
    if lasso["outcome"] == "unrolled":
        # What pan wrote (the trail without the steps added) is no real lasso.
        text = trail.read_text()
        original = tmp_path / "original.trail"
        original.write_text(first_steps(text, len(steps(text)) - lasso["steps_added"]))
        cut = replay(tmp_path, name, original, defines)
        whole = replay(tmp_path, name, trail, defines)
        assert cut.final_state != whole.final_state


@pytest.mark.parametrize("case", CASES)
def test_lasso_replays_as_a_real_cycle(tmp_path, case):
    name, defines, flags, pan = CASES[case]
    plain = run_spin(MODELS / name, defines=defines, flags=flags, pan=pan, opt="-O0")
    assert plain.errors == 1
    result = _verify(tmp_path, name, defines, flags, pan)
    assert result.group_order == 3 and result.strategy == "refine"
    first = re.search(r"^pan:\d+: .*$", plain.output, re.M)
    assert first and error_kind(result.error_messages[0]) == error_kind(first.group(0))
    [lasso] = result.lassos
    assert lasso["outcome"] == "unrolled" and lasso["copies"] == 3, lasso
    _check_real_lasso(tmp_path, name, result, defines)
    # pan's own cycle is one of the three copies: two more were added
    text = Path(result.trail).read_text()
    in_cycle = len(steps(text[text.index(CYCLE_MARK):]))
    assert lasso["steps_added"] == 2 * (in_cycle - lasso["steps_added"])


@pytest.mark.parametrize("strategy", ["sorted", "localsearch"])
def test_strategies_without_elements_get_a_second_pan(tmp_path, strategy):
    # sorted and localsearch do not record the element they apply: a pan with refine's
    # canonicaliser finds it.
    result = _verify(tmp_path, "lasso_ring.pml", (), (), ("-a",), strategy)
    [lasso] = result.lassos
    assert lasso["outcome"] == "unrolled" and lasso["copies"] == 3, lasso
    _check_real_lasso(tmp_path, "lasso_ring.pml", result, ())


def test_minimised_automaton_marks_the_cycle_where_it_does_not_start(tmp_path):
    # pan -DMA cannot tell where on its stack the state it matched lies, and marks the start
    # of the trail as the cycle's start: the mark is moved to the state that is symmetric to
    # the end, then the cycle is unrolled.
    result = _verify(tmp_path, "lasso_ring.pml", (), ("-DMA=40",), ("-a",))
    [lasso] = result.lassos
    assert lasso["outcome"] == "unrolled" and lasso["moved_mark"], lasso
    _check_real_lasso(tmp_path, "lasso_ring.pml", result, ())


def test_a_cycle_that_closes_is_left_as_it_is(tmp_path):
    # ltl_symmetric's cycle: a client idles for ever at its loop head, a self-loop.
    result = _verify(tmp_path, "ltl_symmetric.pml", (), (), ("-a", "-N", "progress"))
    assert result.group_order == 6
    [lasso] = result.lassos
    assert lasso["outcome"] == "closed" and lasso["steps_added"] == 0
    _check_real_lasso(tmp_path, "ltl_symmetric.pml", result, ())


def test_the_summary_and_json_say_what_became_of_the_cycle(tmp_path):
    result = _verify(tmp_path, "lasso_ring.pml", (), (), ("-a",))
    assert "lasso:" in result.summary() and "unrolled into 3 copies" in result.summary()
    assert result.to_dict()["lassos"][0]["outcome"] == "unrolled"


def test_a_trail_that_is_no_cycle_up_to_symmetry_is_never_made_one(tmp_path):
    # pan's own trail cut short after every step of its cycle: the unrolling either finds
    # where such a path does close up to a symmetry (and then spin -t replays a real lasso)
    # or fails and leaves the trail as it was; it never appends steps to a path that does
    # not close.
    from topspin_py.pan import lasso as lassos

    keep = tmp_path / "keep"
    shutil.copy(MODELS / "lasso_ring.pml", tmp_path / "lasso_ring.pml")
    result = verify(tmp_path / "lasso_ring.pml", VerifyOptions(pan_args=("-a",), optimisation="-O0",
                                                                keep_dir=keep))
    [done] = result.lassos
    assert result.trail is not None
    text = Path(result.trail).read_text()
    original = first_steps(text, len(steps(text)) - done["steps_added"])
    in_cycle = len(steps(original[original.index(CYCLE_MARK):]))
    shutil.copy(MODELS / "lasso_ring.pml", keep / "lasso_ring.pml")   # for spin -t
    outcomes = set()
    for cut in range(1, in_cycle):
        trail = keep / "cut.trail"
        trail.write_text(first_steps(original, len(steps(original)) - in_cycle + cut))
        before = trail.read_text()
        outcome = lassos.unroll(keep / "pan", result.pan_args, keep, trail)
        outcomes.add(outcome.outcome)
        if outcome.outcome == "failed":
            assert trail.read_text() == before
        else:
            real, why = lasso_is_real(keep, "lasso_ring.pml", trail)
            assert real, f"cut after {cut} cycle steps: {why}"
    assert "failed" in outcomes


def test_what_the_model_prints_cannot_pass_for_the_unrolling(tmp_path):
    # Under -DPRINTF the model's printf statements print as the reduced pan executes the
    # trail's steps to unroll it; its answer goes to a file of its own (TOPSPIN_LASSO_OUT),
    # so a model printing its lines ("closed": leave the trail as it is) changes nothing.
    original = (MODELS / "lasso_ring.pml").read_text()
    text = original.replace("\t   link[(_pid + 1) % N]!_pid\n\tod",
                            '\t   printf("topspin-lasso: closed\\ntopspin-lasso: step 0 0\\n");\n'
                            "\t   link[(_pid + 1) % N]!_pid\n\tod")
    assert text != original
    (tmp_path / "lasso_ring.pml").write_text(text)
    result = verify(tmp_path / "lasso_ring.pml", VerifyOptions(defines=("PRINTF",), pan_args=("-a",),
                                                                optimisation="-O0"))
    assert result.group_order == 3
    [lasso] = result.lassos
    assert lasso["outcome"] == "unrolled" and lasso["copies"] == 3, lasso
    _check_real_lasso(tmp_path, "lasso_ring.pml", result, ())
