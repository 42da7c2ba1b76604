"""-DREACH with pan -i: the shortest error trail under symmetry reduction.

-DREACH makes pan search a state again when it reaches it by a shorter path; under reduction
the depth it keeps is that of the canonical form's hash entry, so a state is searched again
when any state of its orbit is reached by a shorter path.  Every symmetry maps the initial
state to itself and errors to errors (the group respects the program text), so symmetric
states are at the same distance from the initial state, and the shortest error in the
quotient is as short as plain SPIN's: without partial order reduction (whose ample sets
depend on the search order) pan -i must end with a trail of plain pan's shortest depth,
after fewer improvements (one per orbit).  The reference is plain spin + gcc + pan, whose last
"pan: reducing search depth to N" line gives its shortest error's depth (N - 1).  pan -I
(approximate even without reduction) is only required to find the error and write a trail
that replays.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import families
import pytest
from conftest import MODELS
from modelgen import run_spin
from replay import replay

from topspin_py.verify import VerifyOptions, verify

CASES = {
    "peterson3-1room": ("peterson.pml", families.peterson(3, 1), ()),   # mutual exclusion fails
    "pan_options-BUG": ("pan_options.pml", None, ("BUG",)),
}


def _model(tmp_path: Path, case: str) -> tuple[Path, tuple[str, ...]]:
    name, text, defines = CASES[case]
    path = tmp_path / name
    if text is None:
        shutil.copy(MODELS / name, path)
    else:
        path.write_text(text)
    return path, defines


def _plain_shortest(path: Path, defines) -> int:
    plain = run_spin(path, defines=[f"-D{d}" for d in defines], flags=("-DREACH", "-DNOREDUCE"),
                     pan=("-i",), opt="-O0")
    reductions = re.findall(r"^pan: reducing search depth to (\d+)$", plain.output, re.M)
    assert plain.errors and reductions, plain.output[-1500:]
    return int(reductions[-1]) - 1


@pytest.mark.parametrize("case", CASES)
def test_shortest_trail_is_as_short_as_plain_spins(tmp_path, case):
    path, defines = _model(tmp_path, case)
    shortest = _plain_shortest(path, defines)
    result = verify(path, VerifyOptions(defines=(*defines, "NOREDUCE"), pan_args=("-i",), optimisation="-O0"))
    assert result.group_order > 1 and "-DREACH" in result.compile_flags
    assert result.errors and result.trail_depth == shortest
    assert result.trail is not None
    shown = replay(tmp_path, path.name, Path(result.trail), [f"-D{d}" for d in defines])
    assert "assertion violated" in shown.stdout
    assert shown.steps == shortest + 1   # spin counts the steps from depth 0


def test_approximate_shortening_finds_the_error(tmp_path):
    path, defines = _model(tmp_path, "peterson3-1room")
    result = verify(path, VerifyOptions(defines=defines, pan_args=("-I",), optimisation="-O0"))
    assert result.errors and result.trail_depth is not None
    assert result.trail is not None
    shown = replay(tmp_path, path.name, Path(result.trail), [])
    assert "assertion violated" in shown.stdout
