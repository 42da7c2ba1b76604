"""Random symmetric and nearly symmetric models, verified every way (issue 5).

Why
---
A canonicaliser or a detector can be right on every model someone wrote by hand and wrong on
a combination nobody wrote: a pid kept in a local and used as an index, a queue of pids beside
a lock, states inside an atomic sequence, one process singled out by a literal.  hypothesis
draws such models (tests/randommodels.py) and, for each one:

* ``detect`` does not crash, and every element of the group it finds fixes the process the
  model's one asymmetry singles out (a pid literal, an initial value, a run argument, an
  assertion naming a pid): detection must not permute what the text tells apart;
* plain SPIN and every registered strategy agree on the verdict and on the kind of the first
  error (tests/differential.py);
* in a safety search without partial order reduction and without errors, every exact strategy
  stores the orbit oracle's count, and every generator that fixes the initial state maps
  reachable states to reachable states (tests/statespace.py);
* with partial order reduction, verdicts agree and exact strategies store no more than plain
  SPIN.

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
a gcc -O2 build per strategy.  ``pytest --hypothesis-show-statistics`` shows how they split
into symmetric, nearly symmetric, erroneous and trivial-group models.  A soak run draws fresh
models, as many per test as ``TOPSPIN_SOAK`` says (hypothesis prints the seed and the model of
a failure):

    TOPSPIN_SOAK=200 pytest tests/test_random_models.py
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from differential import STRATEGY_NAMES, check_against_plain, explore_plain, verify_every_way
from randommodels import ACCEPT, PROGRESS, ModelSpec, model_specs
from statespace import GroupAction, closure_violations, count_orbits
from topspin_py.promela import load_model
from topspin_py.symmetry.detect import detect

PAN_ARGS = ("-m100000",)   # deeper than any generated model; verify would rerun otherwise


SOAK = int(os.environ.get("TOPSPIN_SOAK", "0"))


def examples(count: int) -> settings:
    """CI's few derandomized examples, or a soak run's many fresh ones."""
    return settings(max_examples=SOAK or count, deadline=None, derandomize=not SOAK, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


# Symmetric and nearly symmetric models, and searches with partial order reduction, get
# examples of their own, so that a change of hypothesis' derandomized draws cannot leave one
# kind out.
@pytest.mark.parametrize("nearly_symmetric", [False, True], ids=["symmetric", "nearly-symmetric"])
@examples(4)
@given(data=st.data())
def test_random_model_safety(nearly_symmetric: bool, data):
    spec = data.draw(model_specs(nearly_symmetric=nearly_symmetric, liveness=False), label="spec")
    with tempfile.TemporaryDirectory(prefix="random-model-") as workdir:
        check_model(spec, False, Path(workdir))


@examples(3)
@given(spec=model_specs(liveness=False))
def test_random_model_safety_with_partial_order_reduction(spec: ModelSpec):
    with tempfile.TemporaryDirectory(prefix="random-model-") as workdir:
        check_model(spec, True, Path(workdir))


@examples(4)
@given(spec=model_specs(liveness=True), partial_order=st.sampled_from([False, False, True]))
def test_random_model_liveness(spec: ModelSpec, partial_order: bool):
    with tempfile.TemporaryDirectory(prefix="random-model-") as workdir:
        check_model(spec, partial_order, Path(workdir))


def search(spec: ModelSpec, partial_order: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """verify's defines and pan arguments for the kind of search the model's label asks for."""
    defines = () if partial_order else ("NOREDUCE",)
    if spec.liveness == ACCEPT:
        return defines, (*PAN_ARGS, "-a")
    if spec.liveness == PROGRESS:
        return (*defines, "NP"), (*PAN_ARGS, "-l")
    return defines, PAN_ARGS


def check_model(spec: ModelSpec, partial_order: bool, workdir: Path) -> None:
    source = spec.source()
    note(source)
    path = workdir / "model.pml"
    path.write_text(source)

    group = detect(load_model(path))
    fixed = spec.fixed_pid
    if fixed is not None:
        moving = [group.cycles(g) for g in group.generators if g.pid(fixed) != fixed]
        assert not moving, f"pid {fixed} is singled out by the text, yet {moving} move it"

    defines, pan_args = search(spec, partial_order)
    strategies = STRATEGY_NAMES if group.order > 1 else STRATEGY_NAMES[:1]
    comparison = verify_every_way(path, defines, pan_args, strategies)
    note(comparison.describe())
    assert comparison.group_order == group.order

    event("symmetric" if spec.asymmetry is None else "nearly symmetric")
    event("trivial group" if group.order == 1 else "nontrivial group")
    event("errors" if comparison.plain.errors else "no errors")
    event("POR" if partial_order else "NOREDUCE")
    event(f"search: {' '.join((*defines, *pan_args))}")

    orbits = None
    if group.order > 1 and spec.liveness is None and not partial_order and not comparison.plain.errors:
        space, oracle_group = explore_plain(comparison, workdir / "oracle")
        elements = [oracle_group.alpha(g) for g in oracle_group.perm_group.generate()]
        orbits = count_orbits(space, elements).count
        # A generator that fixes the initial state maps reachable states to reachable states
        # (test_oracles.py explains why the others need not).
        action = GroupAction(space)
        initial = space.records[0]
        for generator in oracle_group.generators:
            if space.key(action.image(initial, generator)) == space.key(initial):
                assert not closure_violations(space, generator, limit=1), \
                    f"{oracle_group.cycles(generator)} maps a reachable state to an unreachable one"
        event("orbit oracle")
    check_against_plain(comparison, orbits)
