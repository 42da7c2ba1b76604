"""Random symmetric and nearly symmetric models, verified every way.

Why
---
A canonicaliser or a detector can be right on every model someone wrote by hand and wrong on
a combination nobody wrote: a pid kept in a local and used as an index, a queue of pids beside
a lock, states inside an atomic sequence, one process singled out by a literal.  hypothesis
draws such models (tests/support/randommodels.py) and, for each one:

* ``detect`` does not crash, and every element of the group it finds maps what the model's
  defects single out onto itself (a pid in a guard, an initial value, a run argument, a
  constant expression, a plain variable or a remote reference naming a pid, a monitor's option
  for one process, a pid-indexed array too short for some pids, a copy's channel id):
  detection must not permute what the text tells apart;
* plain SPIN and every registered strategy agree on the verdict and on the kind of the first
  error (tests/support/differential.py);
* without partial order reduction, every generator of the group maps plain pan's graph of
  stored states, moves and errors onto itself (the transition oracle, tests/support/transitions.py),
  models with errors included: pan goes on past them (``-c0``);
* in a safety search without partial order reduction and without errors, every exact strategy
  stores the orbit oracle's count, and every generator that fixes the initial state maps
  reachable states to reachable states (tests/support/statespace.py);
* with partial order reduction, verdicts agree and exact strategies store no more than plain
  SPIN.

tests/support/randomchecks.py runs these checks; the defects are placed so that each guards an error
only a path of the process it names reaches (tests/support/randommodels.py), so that an analysis that
overlooks one is caught by the verdicts or the transition oracle (tests/oracles/test_planted_bugs.py
plants two such bugs and shows it).

Liveness searches have a test of their own: a model with an ``accept_here`` label is searched
for acceptance cycles (pan -a), one with a ``progress_here`` label for non-progress cycles
(-DNP, pan -l).  Most of them find a cycle, so they mostly compare verdicts, which is why they
do not share examples with the safety searches, which feed the orbit oracle.  The oracle does
not count liveness searches: pan's nested search dumps the states of its second pass too
(``884 states, stored (1255 visited)``: 1,255 records); explore() folds them into one record
per state (statespace.svd_records), but pan's "stored" count then is not a count of states to
hold a reduced search to.

A trivial group (a model whose asymmetry leaves nothing to permute, or an ``active`` model
whose local ``pid`` variable pins pid 0) is run with plain SPIN and one strategy only: every
strategy falls back to the same plain pipeline, and one run shows that it does.

The examples are derandomized (the same every run, so CI is reproducible) and few: each costs
a gcc -O0 build per strategy, and the transition oracle two more builds.  ``pytest
--hypothesis-show-statistics`` shows how they split into symmetric and nearly symmetric models,
erroneous and trivial-group ones, and which constructs they hold.  A soak run draws fresh
models, as many per test as ``TOPSPIN_SOAK`` says (hypothesis prints the seed and the model of
a failure), and prints how many models it checked, how many had a non-trivial group and how
many disagreed with plain SPIN or failed an oracle:

    TOPSPIN_SOAK=200 pytest tests/oracles/test_random_models.py

With ``TOPSPIN_SOAK_FAILURES=dir``, every model that fails a check is also written there, with
its search and what the checks said (hypothesis goes on to shrink it).
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from randomchecks import CHECKS, TRANSITIONS, VERDICTS, examine, features, search
from randommodels import ModelSpec, model_specs

SOAK = int(os.environ.get("TOPSPIN_SOAK", "0"))
# What a soak run saw, over every test of the module (printed when the module is done).
TALLY: Counter = Counter()


def examples(count: int) -> settings:
    """CI's few derandomized examples, or a soak run's many fresh ones."""
    return settings(max_examples=SOAK or count, deadline=None, derandomize=not SOAK, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


# Symmetric and nearly symmetric models, and searches with partial order reduction, get
# examples of their own, so that a change of hypothesis' derandomized draws cannot leave one
# kind out.
@pytest.mark.parametrize("nearly_symmetric", [False, True], ids=["symmetric", "nearly-symmetric"])
@examples(5)
@given(data=st.data())
def test_random_model_safety(nearly_symmetric: bool, data):
    spec = data.draw(model_specs(nearly_symmetric=nearly_symmetric, liveness=False), label="spec")
    with tempfile.TemporaryDirectory(prefix="random-model-") as workdir:
        check_model(spec, False, Path(workdir))


@examples(3)
@given(spec=model_specs(liveness=False, partial_order=True))
def test_random_model_safety_with_partial_order_reduction(spec: ModelSpec):
    with tempfile.TemporaryDirectory(prefix="random-model-") as workdir:
        check_model(spec, True, Path(workdir))


@examples(4)
@given(spec=model_specs(liveness=True), partial_order=st.sampled_from([False, False, True]))
def test_random_model_liveness(spec: ModelSpec, partial_order: bool):
    with tempfile.TemporaryDirectory(prefix="random-model-") as workdir:
        check_model(spec, partial_order, Path(workdir))


def check_model(spec: ModelSpec, partial_order: bool, workdir: Path) -> None:
    note(spec.source())
    found = examine(spec, partial_order, workdir)
    note(found.comparison.describe())
    plain, order = found.comparison.plain, found.group.order

    event("symmetric" if not spec.nearly_symmetric else "nearly symmetric")
    event("trivial group" if order == 1 else "nontrivial group")
    event("errors" if plain.errors else "no errors")
    event("POR" if partial_order else "NOREDUCE")
    defines, pan_args = search(spec, partial_order)
    event(f"search: {' '.join((*defines, *pan_args))}")
    for tag in features(spec):
        event(tag)
    for name in found.ran:
        if name != VERDICTS:
            event(f"check: {name}")

    if found.failures and os.environ.get("TOPSPIN_SOAK_FAILURES"):
        keep = Path(os.environ["TOPSPIN_SOAK_FAILURES"])
        keep.mkdir(parents=True, exist_ok=True)
        name = f"failure-{len(list(keep.glob('*.pml'))):03d}"
        (keep / f"{name}.pml").write_text(found.source)
        (keep / f"{name}.txt").write_text(f"{' '.join((*defines, *pan_args))}\n{found.report()}\n")
    seen = {"models": True, "nontrivial group": order > 1, "nearly symmetric": spec.nearly_symmetric,
            "with errors": bool(plain.errors), "transition oracle": TRANSITIONS in found.ran,
            **{f"failed: {name}": name in found.failures for name in CHECKS}}
    TALLY.update({key: int(value) for key, value in seen.items()})
    assert not found.failures, found.report()


@pytest.fixture(scope="module", autouse=True)
def soak_figure(request):
    """After a soak run, the figure that tells how much it tried: models, non-trivial groups, failures."""
    yield
    if SOAK and TALLY["models"]:
        failed = ", ".join(f"{name} {TALLY[f'failed: {name}']}" for name in CHECKS)
        line = (f"soak: {TALLY['models']} random models, {TALLY['nontrivial group']} with a non-trivial "
                f"group, {TALLY['nearly symmetric']} nearly symmetric, {TALLY['with errors']} with errors, "
                f"{TALLY['transition oracle']} through the transition oracle; "
                f"disagreements with plain SPIN: {TALLY['failed: verdicts']}; failures by check: {failed}")
        capture = request.config.pluginmanager.get_plugin("capturemanager")
        with capture.global_and_fixture_disabled():
            print("\n" + line)
