"""Reading a parsed AST in a test through the typed fields of ast.py."""

from __future__ import annotations

from typing import TypeVar

N = TypeVar("N")


def the(cls: type[N], node: object) -> N:
    """``node``, which the test knows to be a ``cls``: ``spec.units[1]`` is only a Unit to a
    type checker, ``steps[0]`` only a Stmt.  (An AssertionError when it is not one.)"""
    assert isinstance(node, cls), f"a {type(node).__name__}, not a {cls.__name__}: {node!r}"
    return node
