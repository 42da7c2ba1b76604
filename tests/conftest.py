"""Shared fixtures: where the shared corpus lives, and skipping cleanly without it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "tests" / "models"
# The corpus sits beside the checkout (../shared/corpus); TOPSPIN_CORPUS overrides it.
CORPUS = Path(os.environ.get("TOPSPIN_CORPUS", REPO.parent / "shared" / "corpus"))


# The symmetry corpus: models with replicated processes, small enough to verify in a test.
# The wider corpus beside it (spin-all/, beem/, spins-case-studies/: parse compatibility) has
# models of millions of states; tests that run pan on every model read only these folders.
SYMMETRY_CORPUS = ("topspin", "spin-examples")


def corpus_files() -> list[Path]:
    """Every Promela model of the symmetry corpus (empty when the corpus is absent)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for folder in SYMMETRY_CORPUS for p in (CORPUS / folder).rglob("*")
                  if p.suffix in (".p", ".pml"))


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session", autouse=True)
def _toolchain_present():
    # The tests that claim verification results run real spin, gcc and pan; `make test`
    # installs them, so their absence is a set-up error, not a reason to skip.
    missing = [tool for tool in ("spin", "gcc") if shutil.which(tool) is None]
    if missing:
        pytest.exit(f"missing tools: {', '.join(missing)} (run `make test`, which installs them)", 2)


# Modules whose tests share a module-scoped cache of state spaces, one per `case` parameter
# (test_canonicaliser's `spaces`, test_oracles' `cache`).  Under pytest-xdist (make test) each
# worker has its own cache: the tests of one case go to one worker, or each worker would
# build the same space again.
_CACHED_BY_CASE = ("test_canonicaliser", "test_oracles")


@pytest.hookimpl(tryfirst=True)   # before xdist reads the groups (its loadgroup scheduling)
def pytest_collection_modifyitems(config, items):
    for item in items:
        callspec = getattr(item, "callspec", None)
        if item.path.stem in _CACHED_BY_CASE and callspec is not None and "case" in callspec.params:
            case = callspec.params["case"]
            item.add_marker(pytest.mark.xdist_group(f"{item.path.stem}:{getattr(case, 'name', case)}"))
