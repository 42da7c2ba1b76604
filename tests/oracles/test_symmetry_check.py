"""``verify --check-symmetry``: the orbits of the states plain pan meets against the forms the
reduced pan stores, both depth first (topspin_py/symcheck.py), on real spin, gcc and pan.

It must agree where the symmetry is one of the model's, and it must catch the wrong "no errors"
of a wrong symmetry without trusting the analysis: two bugs are planted here at the seams the
analysis and the C share (values the C holds differently, a second reading of the model), each
of which makes the reduced search miss plain SPIN's error; the check reports a difference, with
a trail that spin -t replays to a state of it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import MODELS

from topspin_py.cli import main
from topspin_py.promela import load_model
from topspin_py.symmetry import validity
from topspin_py.symmetry.inference import infer_types
from topspin_py.verify import VerifyOptions, verify

SAFETY = ("SAFETY", "NOREDUCE")


def _verify(tmp_path: Path, relative: str, budget: int = 100_000, pan_args=(), defines=SAFETY, strategy="auto"):
    path = tmp_path / Path(relative).name
    shutil.copy(MODELS / relative, path)
    return verify(path, VerifyOptions(strategy=strategy, defines=defines, pan_args=tuple(pan_args),
                                      check_symmetry=budget, optimisation="-O0"))


@pytest.mark.parametrize("relative, pan_args, orbits", [
    ("offset_short.pml", (), 44),                      # S3 on pids below the offset, in a short
    # the swap of the two P, which are always at the same place, maps every state onto itself
    # (v, which tells them apart for the other formula, is data here): an orbit is a state
    ("soundness/ltl_other_formula.pml", ("-N", "tame"), "every state"),
    ("colours.pml", (), None),                         # data symmetry (S2 x S3)
])
def test_the_check_agrees_where_the_symmetry_is_the_models(tmp_path, relative, pan_args, orbits):
    result = _verify(tmp_path, relative, pan_args=pan_args)
    check = result.symmetry_check
    assert check is not None and check["agrees"], check
    assert check["complete"]
    # the orbits plain pan meets are the forms the reduced pan stores
    assert check["orbits"] == check["reduced_states"]
    assert check["plain_states"] >= check["orbits"]
    if orbits == "every state":
        assert check["orbits"] == check["plain_states"]
    elif orbits is not None:
        assert check["orbits"] == orbits
    assert result.exit_status in (0, 1)


def test_a_budget_checks_the_states_plain_pan_meets_within_it(tmp_path):
    whole = _verify(tmp_path, "offset_short.pml").symmetry_check
    (tmp_path / "cut").mkdir()
    cut = _verify(tmp_path / "cut", "offset_short.pml", budget=20).symmetry_check
    assert whole is not None and cut is not None
    assert not cut["complete"] and cut["agrees"]
    assert 0 <= cut["depth"] < whole["depth"]
    assert cut["plain_states"] < whole["plain_states"]
    # within the depth compared, the reduced search stored exactly the orbits plain pan met
    assert cut["orbits"] == cut["reduced_states"] < whole["reduced_states"]


def plant_values_read_as_integers(monkeypatch) -> None:
    """Every value held as the analysis computes it (the C's width and wrap-around ignored)."""
    monkeypatch.setattr(validity.ValuePlace, "holds", lambda self, value: True)
    monkeypatch.setattr(validity.Checker, "check_held", lambda self, *args, **kwargs: None)


def plant_a_second_reading(monkeypatch) -> None:
    """The layout reads the model again, with every claim, and infers its types anew."""
    import topspin_py.reduce as reduce_module

    real = reduce_module.read_layout

    def again(workdir, model, types, flags=()):
        return real(workdir, model, infer_types(load_model(model.path)), flags=flags)
    monkeypatch.setattr(reduce_module, "read_layout", again)


@pytest.mark.parametrize("plant, relative, pan_args", [
    (plant_values_read_as_integers, "soundness/offset_wraps.pml", ()),
    (plant_a_second_reading, "soundness/ltl_other_formula.pml", ("-N", "tame")),
])
def test_the_check_catches_a_planted_seam_bug(tmp_path, monkeypatch, plant, relative, pan_args):
    plain = _verify(tmp_path, relative, pan_args=pan_args, strategy="none")
    assert plain.errors > 0   # the error plain SPIN finds
    plant(monkeypatch)
    (tmp_path / "planted").mkdir()
    result = _verify(tmp_path / "planted", relative, pan_args=pan_args)
    assert result.group_order > 1 and result.errors == 0   # the wrong "no errors" the bug gives
    check = result.symmetry_check
    assert check is not None and not check["agrees"]
    assert result.exit_status == 2
    difference = check["difference"]
    assert difference["missing"] > 0 and difference["trail_of"] == "plain"
    assert difference["state"] and "#processes" in difference["state"]
    trail = Path(difference["trail"])
    assert trail.is_file() and trail.name == Path(relative).name + ".symmetry.trail"
    # spin -t replays it, to the state shown
    replayed = subprocess.run(["spin", "-DSAFETY", "-DNOREDUCE", "-k", str(trail), "-t", "-g", "-l",
                               trail.parent / Path(relative).name], capture_output=True, text=True,
                              cwd=trail.parent, timeout=60)
    assert "trail ends after" in replayed.stdout, replayed.stdout + replayed.stderr
    shown = [line.strip() for line in difference["state"].splitlines() if "=" in line]
    assert shown and all(line in replayed.stdout for line in shown)


def test_a_run_without_reduction_has_nothing_to_check(tmp_path):
    result = _verify(tmp_path, "soundness/offset_wraps.pml")   # its group is trivial
    assert result.group_order == 1 and result.symmetry_check is None
    assert "nothing to check" in result.summary()


def test_the_cli_takes_the_option_with_and_without_a_budget(tmp_path, capsys):
    shutil.copy(MODELS / "offset_short.pml", tmp_path / "m.pml")
    assert main(["verify", "--quiet", "--check-symmetry", "--gcc-opt", "-O0", str(tmp_path / "m.pml")]) == 0
    assert ("symmetry check: no difference: plain pan met every state (200); the reduced search (refine) "
            "stored exactly their 44 orbits") in capsys.readouterr().out
    assert main(["verify", "--quiet", "--json", "--check-symmetry=30", "--gcc-opt", "-O0",
                 str(tmp_path / "m.pml")]) == 0
    assert '"budget": 30' in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:   # argparse's own exit, status 2
        main(["verify", "--check-symmetry=lots", str(tmp_path / "m.pml")])
    assert refused.value.code == 2
    assert "not a number of states" in capsys.readouterr().err


def plant_a_layout_that_forgets_turn(monkeypatch) -> None:
    """The layout leaves out a global that holds pids (Peterson's turn[]): the canonicaliser
    moves the processes without renaming who has each turn."""
    import dataclasses

    import topspin_py.reduce as reduce_module

    real = reduce_module.read_layout

    def forgets(workdir, model, types, flags=()):
        layout = real(workdir, model, types, flags=flags)
        return dataclasses.replace(layout, globals=tuple(f for f in layout.globals if f.path[0].name != "turn"))
    monkeypatch.setattr(reduce_module, "read_layout", forgets)


def test_the_check_catches_a_planted_bug_in_a_model_too_large_for_the_transition_oracle(tmp_path, monkeypatch):
    # Peterson's mutual exclusion for 5 users (S5): plain pan's state space is far beyond what
    # the transition oracle can hold, while the check compares every state within the depth
    # limit that keeps plain pan under its budget.
    import families

    path = tmp_path / "peterson5.pml"
    path.write_text(families.peterson(5))
    options = VerifyOptions(defines=("SAFETY",), check_symmetry=20_000, optimisation="-O0", save_trails=False)
    sound = verify(path, options)
    assert sound.group_order == 120 and sound.symmetry_check is not None
    assert sound.symmetry_check["agrees"] and not sound.symmetry_check["complete"]
    plant_a_layout_that_forgets_turn(monkeypatch)
    planted = verify(path, options)
    check = planted.symmetry_check
    assert check is not None and not check["agrees"] and check["difference"]["missing"] > 0
    assert planted.exit_status == 2
    assert check["plain_states"] <= 20_000
