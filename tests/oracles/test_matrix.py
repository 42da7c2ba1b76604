"""The storage-mode matrix: storage modes (default, -DCOLLAPSE, -DMA=N, -DNOCOMP,
-DBITSTATE, -DHC4, -DBFS) x every registered strategy x own and corpus models, each cell a
real verify checked against plain SPIN in the same mode, the default hash table, the orbit
oracle of the breadth-first graph, and real ``spin -t`` replays of its trails; the default
cell of each model runs ``verify --cross-check`` (partial order reduction on and off).  The
rules are in tests/support/matrix.py.

``make test`` runs CI_MODELS: an assertion violation under S3 with init's atomic start-up
(which a breadth-first pan stores), an acceptance cycle under C3 (every lasso unrolled, three
strategies refusing the group), and a corpus model without errors (skipped cleanly when the
corpus is absent).  TOPSPIN_FULL_MATRIX=1 adds FULL_MODELS: every search of our LTL and
lasso models, non-progress cycles, and the corpus's symmetric models up to about 25,000
plain states (several minutes).  ``python tests/support/matrix.py [--full]`` prints the cells.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import CORPUS, MODELS
from matrix import APPROXIMATE_MODES, EXACT_MODES, MODES, MatrixModel, check, describe, run_matrix

CI_MODELS = [
    MatrixModel("pan_options-BUG", MODELS / "pan_options.pml", defines=("BUG",)),
    MatrixModel("lasso_ring-a", MODELS / "lasso_ring.pml", pan=("-a",)),
    MatrixModel("peterson3", CORPUS / "topspin" / "peterson3.p"),
]

FULL_MODELS = [
    MatrixModel("pan_options", MODELS / "pan_options.pml"),
    MatrixModel("pan_options-live", MODELS / "pan_options.pml", defines=("LTL",), pan=("-a", "-N", "live")),
    MatrixModel("pan_options-np", MODELS / "pan_options.pml", defines=("NOPROGRESS",), flags=("NP",), pan=("-l",)),
    MatrixModel("lasso_ring-l", MODELS / "lasso_ring.pml", defines=("NOLTL",), flags=("NP",), pan=("-l",)),
    MatrixModel("lasso_options-a", MODELS / "lasso_options.pml", pan=("-a",)),
    MatrixModel("ltl_symmetric-progress", MODELS / "ltl_symmetric.pml", pan=("-a", "-N", "progress")),
    MatrixModel("ltl_symmetric-release", MODELS / "ltl_symmetric.pml", pan=("-a", "-N", "release")),
    MatrixModel("ltl_process1-progress", MODELS / "ltl_process1.pml", pan=("-a", "-N", "one_progress")),
    MatrixModel("ltl_process1-safe", MODELS / "ltl_process1.pml", pan=("-a", "-N", "one_safe")),
    MatrixModel("ring_token", MODELS / "ring_token.pml"),
    MatrixModel("pairs", MODELS / "pairs.pml"),
    MatrixModel("mutex5", CORPUS / "topspin" / "mutex5.p"),
    MatrixModel("ring", CORPUS / "topspin" / "ring.p"),
    MatrixModel("peterson4", CORPUS / "topspin" / "peterson4.p"),
    MatrixModel("email3", CORPUS / "topspin" / "email3.p"),
    MatrixModel("3d", CORPUS / "topspin" / "3d.p"),
    MatrixModel("resall-5-5", CORPUS / "topspin" / "resall-5-5.p"),
    MatrixModel("peterson", CORPUS / "spin-examples" / "peterson.pml"),
]

FULL = os.environ.get("TOPSPIN_FULL_MATRIX") == "1"


def _params():
    params = [pytest.param(model, id=model.id) for model in CI_MODELS]
    params += [pytest.param(model, id=model.id, marks=pytest.mark.skipif(
        not FULL, reason="the full matrix: TOPSPIN_FULL_MATRIX=1")) for model in FULL_MODELS]
    return params


@pytest.mark.parametrize("model", _params())
def test_matrix(model: MatrixModel, tmp_path: Path):
    if not model.path.is_file():
        pytest.skip(f"corpus model not found: {model.path}")
    cells = run_matrix(model, tmp_path)
    problems = check(model, cells, tmp_path / "oracle")
    assert not problems, "\n".join(problems) + "\n\n" + describe(cells)
    # the matrix is what it says: every strategy and plain SPIN, in every mode that applies
    ran = {(strategy, mode) for strategy, mode in cells}
    modes = [mode for mode in MODES if not (mode == "NOCOMP" and model.cycles)]
    assert {mode for _, mode in ran} == set(modes)
    assert any(cell.result is not None and cell.result.group_order > 1 for cell in cells.values())
    # every error cell replayed its trail with spin -t (check() holds them to "ok")
    errors = [cell for cell in cells.values() if cell.result is not None and cell.result.errors]
    assert all(cell.replay == "ok" for cell in errors)


def test_the_modes_are_classified():
    assert set(EXACT_MODES) | set(APPROXIMATE_MODES) | {"BFS"} == set(MODES)
