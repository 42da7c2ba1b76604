"""C lvalues of layout fields, for the tests' own C (reference builds, probes).

The package itself spells C only in its templates (templates/_places.c.j2); its layout gives
a field's members and the index combinations of its elements.  Tests that write C of their
own spell it here.
"""

from __future__ import annotations

from collections.abc import Sequence

from topspin_py.layout.statevector import ValueField


def lvalue(f: ValueField, prefix: str, indices: Sequence[int | str] = ()) -> str:
    """The C lvalue of ``f`` below ``prefix`` (``now.``, ``((P0 *)pptr(3))->``), with one
    index (a number or a C expression) per array member."""
    rest = list(indices)
    wanted = sum(1 for m in f.path if m.length is not None)
    if len(rest) != wanted:
        raise ValueError(f"{f.name} takes {wanted} indices, got {len(rest)}")
    return prefix + ".".join(m.name if m.length is None else f"{m.name}[{rest.pop(0)}]" for m in f.path)


def lvalues(f: ValueField, prefix: str) -> list[str]:
    """Every element of ``f``, spelt out: ``now.recs[0].who``, ``now.recs[1].who``."""
    return [lvalue(f, prefix, combo) for combo in f.elements()]
