"""``--check-symmetry`` over every corpus model with a non-trivial group (topspin_py/symcheck.py).

The models: the symmetry corpus (../shared/corpus/topspin, spin-examples) and every model of the
wider corpus whose group acting on states is not trivial in the corpus benchmark's run
(bench/results/corpus_symmetry.json: BEEM, SPIN's examples).  Each is prepared as verify
prepares it (spin -a, the search, the group, the strategy, the splice), and the orbits of the
states plain pan meets within the deepest depth limit that keeps it under ``BUDGET`` states must
be exactly the forms the reduced search stores within that limit: no difference may show.
(verify's own search is not run.)  ``TOPSPIN_CHECK_BUDGET=<n>`` checks more states.

Everything skips cleanly when the corpus is absent.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS, REPO, corpus_files

from topspin_py import symcheck
from topspin_py.pipeline import canonicalise
from topspin_py.verify import VerifyOptions, prepare

BUDGET = int(os.environ.get("TOPSPIN_CHECK_BUDGET", "5000"))
RECORDED = REPO / "bench" / "results" / "corpus_symmetry.json"


def _cases() -> list[str]:
    """Corpus-relative paths of the models to check."""
    if not CORPUS.is_dir():
        return []
    paths = [str(path.relative_to(CORPUS)) for path in corpus_files()]
    rows = json.loads(RECORDED.read_text())["rows"]
    paths += [row["path"] for row in rows if (row.get("acting_order") or 1) > 1 and row["path"] not in paths]
    return paths


CASES = _cases()


def check(path: Path, workdir: Path, defines: tuple[str, ...] = ("SAFETY",)) -> symcheck.SymmetryCheck | None:
    """The check of ``path``'s reduction as verify would make it; None for a trivial group."""
    workdir.mkdir()
    options = VerifyOptions(defines=defines, optimisation="-O0", safety=True)
    build = prepare(path, options, workdir)
    if build.strategy == "none":
        return None
    assert build.group is not None
    canonicalise(workdir, build.group, build.strategy, list(build.compile_flags), build.strategy_reason)
    return symcheck.check_symmetry(build, workdir, BUDGET, "-O0", ran=lambda command: None, note=lambda text: None)


# The symmetry corpus's models whose safety search has no symmetry (their reasons: README's
# detection section; leader.pml's processes terminate while init starts them).
TRIVIAL = {"spin-examples/leader.pml", "topspin/reordered_int.p", "topspin/soil3.p"}


@pytest.mark.parametrize("relative", CASES)
def test_the_check_agrees_on_a_corpus_model(corpus, relative, tmp_path):
    # a copy of the model's folder (its #includes beside it): a difference leaves a trail there
    folder = tmp_path / "model"
    shutil.copytree((corpus / relative).parent, folder)
    checked = check(folder / Path(relative).name, tmp_path / "work")
    assert (checked is None) == (relative in TRIVIAL)
    if checked is None:
        return
    assert checked.agrees, f"{relative}: {checked.describe()}\n{checked.as_json()}"
    assert checked.depth >= 0 and checked.plain_states >= checked.orbits == checked.reduced_states


def test_there_are_corpus_models_to_check(corpus):
    assert len(CASES) >= 50
