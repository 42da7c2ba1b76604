"""Shared fixtures: where the shared corpus lives, and skipping cleanly without it.

The tests live in one folder per pipeline stage (promela/, symmetry/, layout/, codegen/, pan/),
with commands/, oracles/ and architecture/ beside them; the modules they share (families,
statespace, differential, ...) are in support/.  This file is the one root conftest of all of
them: its fixtures reach every folder, and it puts support/ on sys.path before any test module
is imported, so the helpers are imported by name (``import families``) from every folder.  The
paths below are the tests' one reference to where things are (``from conftest import MODELS``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
MODELS = TESTS / "models"
SUPPORT = TESTS / "support"
if str(SUPPORT) not in sys.path:
    sys.path.insert(0, str(SUPPORT))
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


# One build cache for the whole run, shared by its xdist workers (PYTEST_XDIST_TESTRUNUID is the
# run's), and never the user's: tests of one model with one set of flags compile pan once
# (topspin_py/pan/build_cache.py keys a build by everything gcc reads).  Set before any test
# runs, so that the commands the tests start inherit it too.  The cache's own tests set theirs.
def _run_cache_directory() -> Path:
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
    return Path(tempfile.gettempdir()) / f"topspin-py-test-cache-{run}"


os.environ["XDG_CACHE_HOME"] = str(_run_cache_directory())


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    # The corpus tests skip cleanly without ../shared/corpus; say how many did, in one line.
    # (a test parametrised over the corpus's models has an empty parameter set without it)
    if CORPUS.is_dir():
        return
    skipped = terminalreporter.stats.get("skipped", [])
    without_corpus = sum(1 for report in skipped
                         if any(reason in str(getattr(report, "longrepr", ""))
                                for reason in ("corpus not found", "corpus model not found", "empty parameter set")))
    terminalreporter.write_line(
        f"{without_corpus} tests skipped because the shared corpus is absent ({CORPUS}); "
        "set TOPSPIN_CORPUS to its folder to run them")
