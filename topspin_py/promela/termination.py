"""Whether a process can terminate: whether control can reach the end of its body.

SPIN removes a terminated process only from the highest pid down, so a process that can end
constrains both which runs the front end numbers statically and which permutations the symmetry
analysis may use.  The test is conservative: it says True unless the body visibly cannot end.
"""

from __future__ import annotations

from . import ast
from .constants import constant_value


def can_terminate(body: ast.Sequence) -> bool:
    """Whether control can reach the end of a process body (conservatively: True unless the
    body visibly ends in a loop without exit, a goto, or a blocking `false`)."""
    return _falls_through(body)


def _falls_through(node) -> bool:
    if isinstance(node, ast.Sequence):
        return not node.steps or _falls_through(node.steps[-1])
    if isinstance(node, ast.Labeled):
        return _falls_through(node.stmt)
    if isinstance(node, (ast.Atomic, ast.DStep, ast.Block)):
        return _falls_through(node.body)
    if isinstance(node, ast.Goto):
        return False
    if isinstance(node, ast.Do):
        return any(_has_break(option) for option in node.options)
    if isinstance(node, ast.If):
        return any(_falls_through(option) for option in node.options)
    if isinstance(node, ast.Unless):
        return _falls_through(node.stmt) or _falls_through(node.escape)
    if isinstance(node, ast.ExprStmt):
        value = constant_value(node.expr)
        return value != 0
    return True


def _has_break(node) -> bool:
    """A break that leaves the loop whose option ``node`` is (not one of an inner loop)."""
    if isinstance(node, ast.Break):
        return True
    if isinstance(node, ast.Do):
        return False
    return any(_has_break(child) for child in node.children())
