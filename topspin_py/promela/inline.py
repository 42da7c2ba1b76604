"""Expansion of ``inline`` definitions, as spin does it.

spin substitutes the text of each argument for the parameter name in the inline's body.  On the
AST that means: a reference to a parameter is replaced by the argument expression, keeping the
reference's own index and field (``x[i].f`` with argument ``a`` becomes ``a[i].f``).  The call
becomes a ``Block`` holding the substituted body; a block is a plain sequence to spin.
"""

from __future__ import annotations

import copy

from ..errors import ModelError
from . import ast

_MAX_DEPTH = 64  # spin rejects recursive inlines; we stop at a depth no real model reaches


def expand_inlines(spec: ast.Spec) -> ast.Spec:
    """``spec`` with every inline call expanded and the definitions kept.  The parts that hold
    no call are ``spec``'s own nodes (nothing changes an AST once it is built)."""
    inlines = {u.name: u for u in spec.units if isinstance(u, ast.Inline)}
    if not inlines:
        return spec
    return _Expander(inlines).node(spec, 0)


class _Expander:
    def __init__(self, inlines: dict[str, ast.Inline]) -> None:
        self.inlines = inlines

    def node(self, node, depth: int):
        if isinstance(node, ast.Inline):
            return node  # the definition stays as written
        if isinstance(node, ast.InlineCall) and node.name in self.inlines:
            return self.call(node, depth)
        return ast.map_children(node, lambda child: self.node(child, depth))

    def call(self, call, depth: int):
        definition = self.inlines[call.name]
        if depth >= _MAX_DEPTH:
            raise ModelError(f"inline '{call.name}' expands recursively", call.pos,
                             hint="spin does not allow recursive inline definitions")
        if len(call.args) != len(definition.params):
            raise ModelError(f"inline '{call.name}' takes {len(definition.params)} arguments, "
                             f"{len(call.args)} given", call.pos)
        bindings = dict(zip(definition.params, call.args))
        body = _substitute(definition.body, bindings)
        return ast.Block(body=self.node(body, depth + 1), pos=call.pos)


def _substitute(node, bindings: dict):
    if isinstance(node, ast.VarRef):
        inner = ast.replace(
            node,
            index=_substitute(node.index, bindings) if node.index is not None else None,
            field=node.field,  # a field name belongs to the typedef, not to the inline's scope
        )
        if node.name in bindings:
            return _bind(bindings[node.name], inner)
        return inner
    if not isinstance(node, ast.Node):
        return node
    changes = {}
    for name in node.field_names:
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            changes[name] = _substitute(value, bindings)
        elif isinstance(value, list):
            changes[name] = [_substitute(v, bindings) for v in value]
    if isinstance(node, (ast.Goto, ast.Labeled)) and node.label in bindings:
        arg = bindings[node.label]
        if isinstance(arg, ast.VarRef) and arg.index is None and arg.field is None:
            changes["label"] = arg.name
    return ast.replace(node, **changes) if changes else node


def _bind(argument, use: ast.VarRef):
    """The argument put where the parameter was used, with the use's index and field."""
    if use.index is None and use.field is None:
        return copy.deepcopy(argument)
    if not isinstance(argument, ast.VarRef) or argument.field is not None:
        raise ModelError("an inline parameter used as an array or a structure needs a variable "
                         "as its argument", use.pos)
    if use.index is not None and argument.index is not None:
        raise ModelError("an inline argument that is already indexed cannot be indexed again", use.pos)
    index = use.index if use.index is not None else argument.index
    return ast.VarRef(name=argument.name, index=index, field=use.field, pos=argument.pos)
