"""The Promela AST.

As in pycparser, the node classes are generated from a compact description (``_NODES`` below)
instead of being written out by hand.  Every node is a dataclass whose fields are listed in the
description, plus ``pos`` (a ``SourcePos`` in the user's file, or None).  Positions are left out
of equality, so a model and its printed-and-reparsed copy compare equal.

Conventions: a name is a ``str``; an optional child is None when absent; a list field holds a
Python list.  Constants are folded to ``Const`` at parse time (``'a'`` becomes 97, ``-1``
becomes ``Const(-1)``), and the brace form of a message (``ch!a(b, c)``) is flattened to its
argument list, which is what spin does with it.
"""

from __future__ import annotations

from dataclasses import field, fields, make_dataclass
from typing import Any, Iterator

from ..errors import SourcePos

# name: fields (a trailing `*` marks a list; `?` an optional child; `~` a field left out of
# equality, like the positions: the original text of an LTL formula)
_NODES = """
# ---- top level
Spec: units*
Proctype: name params* body active? priority? provided? deterministic
Init: body priority?
Never: body
Trace: body negated
Ltl: name? text~ formula?
TypeDef: name fields*
MtypeDecl: names* subtype?
Inline: name params* body
CCode: kind guard? text
CState: kind args*

# ---- declarations
Decl: visibility? type vars*
TypeName: name subtype?
VarDecl: name size? bits? init?
ChanInit: capacity fields*

# ---- statements
Sequence: steps*
Labeled: label stmt
Unless: stmt escape
Assign: target value
IncDec: target op
Send: chan args* sorted
Receive: chan args* random keep
If: options*
Do: options*
Atomic: body
DStep: body
Block: body
ForRange: var lo hi body
ForIn: var array body
Select: var lo hi
Break:
Goto: label
Else:
Skip:
Printf: fmt args*
Printm: arg
Assert: expr
InlineCall: name args*
ExprStmt: expr
XrXs: kind vars*

# ---- expressions
Const: value
VarRef: name index? field?
BinOp: op left right
UnOp: op operand
CondExpr: cond then other
ChanFn: fn chan
Builtin: fn args*
Run: proctype args* priority?
Poll: chan args* random
RemoteLabel: proctype index? label
RemoteVar: proctype index? var
CExpr: guard? text
Eval: expr

# ---- LTL formulas (atoms are expressions)
LtlUnary: op arg
LtlBinary: op left right
"""


class Node:
    """Base class of every AST node."""

    pos: SourcePos | None

    # The names of the compared fields, in order (set per class below: dataclasses.fields()
    # is slow, and the symmetry analysis walks the tree many times).
    field_names: tuple[str, ...] = ()

    def children(self) -> Iterator["Node"]:
        """The direct child nodes, in field order (lists flattened)."""
        for name in self.field_names:
            value = getattr(self, name)
            if isinstance(value, Node):
                yield value
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, Node):
                        yield item

    def walk(self) -> Iterator["Node"]:
        """This node and every node below it, depth first, parents before children."""
        # An explicit stack, not nested generators: those cost every node its depth in
        # generator steps, and every analysis walks the whole program.
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            children = []
            for name in node.field_names:
                value = getattr(node, name)
                if isinstance(value, Node):
                    children.append(value)
                elif isinstance(value, list):
                    children.extend([item for item in value if isinstance(item, Node)])
            children.reverse()
            stack.extend(children)


def replace(node: Node, **changes: Any) -> Node:
    """A copy of ``node`` with the given fields changed, as ``dataclasses.replace``.

    dataclasses.replace checks its arguments against the fields and calls ``__init__``, which
    was most of the time of the symmetry analysis (it rewrites the whole program once per
    candidate).  Node classes have no ``__post_init__`` and no ``init=False`` fields, so
    copying the instance's attributes gives the same node.  The callers name fields in their
    text, so the check of the names is left to the tests.
    """
    new = object.__new__(type(node))
    new.__dict__.update(node.__dict__)
    new.__dict__.update(changes)
    return new


def _make_node_classes(description: str) -> dict[str, type]:
    classes: dict[str, type] = {}
    for line in description.strip().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, rest = line.partition(":")
        specs: list[tuple[str, Any, Any]] = []
        for item in rest.split():
            if item.endswith("*"):
                specs.append((item[:-1], list, field(default_factory=list)))
            elif item.endswith("?"):
                specs.append((item[:-1], Any, field(default=None)))
            elif item.endswith("~"):
                specs.append((item[:-1], Any, field(default=None, compare=False)))
            else:
                specs.append((item, Any, field(default=None)))
        specs.append(("pos", Any, field(default=None, compare=False, repr=False)))
        cls = make_dataclass(name.strip(), specs, bases=(Node,), eq=True)
        cls.__module__ = __name__
        cls.field_names = tuple(f.name for f in fields(cls) if f.compare)
        classes[cls.__name__] = cls
    return classes


_CLASSES = _make_node_classes(_NODES)
globals().update(_CLASSES)  # Spec, Proctype, ... are module attributes

# Statements that may stand in a sequence (used by the printer and the model builder).
STATEMENTS = tuple(_CLASSES[name] for name in (
    "Labeled", "Unless", "Assign", "IncDec", "Send", "Receive", "If", "Do", "Atomic", "DStep",
    "Block", "ForRange", "ForIn", "Select", "Break", "Goto", "Else", "Skip", "Printf", "Printm",
    "Assert", "InlineCall", "ExprStmt", "XrXs", "Decl", "CCode"))
