"""``select`` statements as spin compiles them.

spin's lexer rewrites ``select (k : 1 .. 3)``, when both bounds are literal numbers at most 32
apart and the statement is not in an inline body, into ``if :: k = 1 :: k = 2 :: k = 3 fi``:
one option per value, each a single assignment, so no state is stored between the choice and
the assignment (lexer.spin_expands_select says exactly which texts).  Any other select becomes
a loop that counts ``k`` up from the lower bound, with a state after each step.

The analyses read the program as spin compiles it, so the Model's expanded program holds that
``if`` in place of each select spin writes out (a set of assignments, which a permutation of
the values maps onto itself when it maps the range onto itself), and a ``Select`` node only
where spin counts.  The program given back to spin keeps its selects: spin expands them
itself.
"""

from __future__ import annotations

from . import ast


def expand_selects(spec: ast.Spec) -> ast.Spec:
    """``spec`` with every select that spin's lexer writes out as an ``if`` written out so, in
    every unit but the inline definitions (spin leaves the selects of inline bodies to count).
    The parts that hold none are ``spec``'s own nodes."""
    expanded = ast.map_children(spec, _expanded)
    assert isinstance(expanded, ast.Spec)
    return expanded


def _expanded(node: ast.Node) -> ast.Node:
    if isinstance(node, ast.Inline):
        return node
    if isinstance(node, ast.Select) and node.expands:
        assert isinstance(node.lo, ast.Const) and isinstance(node.hi, ast.Const)  # the parser's
        lo, hi = node.lo.value, node.hi.value
        assert isinstance(lo, int) and isinstance(hi, int)  # numbers, as the parser folds them
        options = [ast.Sequence(steps=[ast.Assign(target=node.var, value=ast.Const(value=value, pos=node.pos),
                                                  pos=node.pos)], pos=node.pos)
                   for value in range(lo, hi + 1)]
        return ast.If(options=options, pos=node.pos)
    return ast.map_children(node, _expanded)
