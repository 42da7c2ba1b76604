"""The typed template contexts: a context flattens into the variables its template reads, each
from one source (codegen/variables.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from topspin_py.codegen.variables import Variables, optional


@dataclass(frozen=True, kw_only=True)
class _Part(Variables):
    swaps: list[int]


@dataclass(frozen=True, kw_only=True)
class _Context(Variables):
    keyed: bool
    part: _Part
    extra: _Part | None = optional()
    note: str | None = optional()


@dataclass(frozen=True, kw_only=True)
class _Twice(Variables):
    swaps: list[int]
    part: _Part


def test_parts_are_flattened_and_absent_optionals_give_no_variable():
    context = _Context(keyed=False, part=_Part(swaps=[1]))
    assert context.variables() == {"keyed": False, "swaps": [1]}
    assert _Context(keyed=True, part=_Part(swaps=[]), note="n").variables() == {"keyed": True, "swaps": [], "note": "n"}


def test_a_variable_given_twice_is_an_error():
    with pytest.raises(AssertionError, match="swaps is given twice"):
        _Twice(swaps=[0], part=_Part(swaps=[1])).variables()
    with pytest.raises(AssertionError, match="swaps is given twice"):
        _Context(keyed=True, part=_Part(swaps=[1]), extra=_Part(swaps=[2])).variables()
