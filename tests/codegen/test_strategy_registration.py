"""A strategy registered in one place runs everywhere the built-in ones do.

``topspin_py.codegen.registry.register`` is the only step: the new strategy is then a choice of
``--strategy``, its family renders it (render.FAMILIES), pan reports it by name, and the
differential, closure and cffi checks take it like any other.  The strategy here is refine's
family and template under another name, so every number it gives must be refine's: a
registration that lost the family's keys, or a template that still named refine, would show.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import MODELS
from differential import check_against_plain, orbit_count, verify_every_way
from test_canonicaliser import Case, build_space, violations

from topspin_py import strategies
from topspin_py.cli import main
from topspin_py.codegen.registry import STRATEGIES, Strategy, register

TWIN = Strategy("refine-twin", "exact", "refine's code generator under another name (a test's)",
                "chain", "refine.c.j2", keys="refined")


@pytest.fixture
def twin():
    register(TWIN)
    try:
        yield TWIN.name
    finally:
        del STRATEGIES[TWIN.name]


def test_register_refuses_a_name_taken(twin):
    for name in (twin, "refine", "auto", "none"):
        with pytest.raises(ValueError):
            register(Strategy(name, "exact", "", "chain", "refine.c.j2", keys="refined"))


def test_a_registered_strategy_is_a_choice_of_verify(twin, tmp_path, capsys):
    assert twin in strategies.choices()
    model = tmp_path / "ids_for.pml"
    shutil.copy(MODELS / "ids_for.pml", model)
    assert main(["verify", "--strategy", twin, "--gcc-opt", "-O0", "--json", "--quiet", str(model)]) == 0
    out = capsys.readouterr().out
    assert f'"strategy": "{twin}"' in out
    assert '"group_order": 6' in out


def test_a_registered_strategy_passes_the_differential_checks(twin, tmp_path):
    model = tmp_path / "ids_for.pml"
    shutil.copy(MODELS / "ids_for.pml", model)
    comparison = verify_every_way(model, strategies=(twin, "refine"), optimisation="-O0")
    assert comparison.reduced[twin].strategy == twin and comparison.reduced[twin].group_order == 6
    check_against_plain(comparison, orbit_count(comparison, tmp_path / "oracle"))
    ours, refine = comparison.reduced[twin], comparison.reduced["refine"]
    assert (ours.states_stored, ours.transitions) == (refine.states_stored, refine.transitions)


def test_a_registered_strategy_passes_the_closure_and_cffi_checks(twin, tmp_path):
    """The canonicaliser, called through cffi on every reachable state of a model written
    with the ref/public extension: in the orbit, idempotent, one form per orbit."""
    space = build_space(Case("ref-token", own="extension/ref_token.pml"), None, tmp_path, strategies=(twin,))
    found = violations(space, space.libraries[twin], "exact", None, True)
    assert not found.started and not found.all
