"""Constant folding: the value of an expression built from constants, as C computes it.

Every stage that must know a number the model fixes (an array bound, a run argument, a loop's
range, an index) folds it here, so that they all agree on what the program text means.
"""

from __future__ import annotations

from typing import cast

from . import ast

_BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: int(a / b) if b else None, "%": lambda a, b: a - b * int(a / b) if b else None,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "&": lambda a, b: a & b,
    "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "&&": lambda a, b: int(bool(a and b)),
    "||": lambda a, b: int(bool(a or b)), "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b), "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
}


def constant_value(expr, names: dict[str, int] | None = None) -> int | None:
    """The value of ``expr`` if it is built from constants and the given ``names`` (C semantics
    for division), else None."""
    names = names or {}
    if isinstance(expr, ast.Const):
        # A constant of the program is an int.  The symmetry check's rewritten programs also
        # hold placeholders where constants were (a static run's "static-run", detect.py's
        # blanked "#", the Tokenizer's Tokens), returned as they are: the callers that meet
        # them compare them with None or 0, or catch the TypeError of arithmetic on them.
        return cast(int, expr.value)
    if isinstance(expr, ast.VarRef) and expr.index is None and expr.field is None:
        if expr.name in ("true", "false"):
            return int(expr.name == "true")
        return names.get(expr.name)
    if isinstance(expr, ast.BinOp):
        left, right = constant_value(expr.left, names), constant_value(expr.right, names)
        if left is None or right is None:
            return None
        return _BINARY[expr.op](left, right)
    if isinstance(expr, ast.UnOp):
        value = constant_value(expr.operand, names)
        if value is None:
            return None
        return {"-": -value, "!": int(not value), "~": ~value}[expr.op]
    if isinstance(expr, ast.CondExpr):
        cond = constant_value(expr.cond, names)
        if cond is None:
            return None
        return constant_value(expr.then if cond else expr.other, names)
    return None
