"""The generated AST module is up to date with its description (topspin_py/promela/_ast.cfg)."""

from __future__ import annotations

import typing

import pytest

from topspin_py.errors import SourcePos
from topspin_py.promela import _ast_gen, ast


def test_ast_module_is_generated_from_the_description():
    assert _ast_gen.TARGET.read_text() == _ast_gen.generate(), (
        "topspin_py/promela/ast.py is out of date: run python -m topspin_py.promela._ast_gen")


def test_every_node_class_is_in_exactly_the_unions_its_groups_name():
    nodes = _ast_gen.read_config(_ast_gen.CONFIG.read_text())
    for group in _ast_gen.UNIONS:
        members = set(typing.get_args(getattr(ast, group)))
        assert members == {ast.CLASSES[n.name] for n in nodes if group in n.groups}, group
    grouped = {n.name for n in nodes if set(n.groups) & set(_ast_gen.UNIONS)}
    # Everything that is not in a union is a part of another node (Sequence, VarDecl, ...).
    assert set(ast.CLASSES) - grouped == {n.name for n in nodes if set(n.groups) <= {"Part", "Root"}}


def test_positions_are_left_out_of_equality():
    a = ast.BinOp(op="+", left=ast.Const(value=1), right=ast.VarRef(name="x"), pos=SourcePos("m.pml", 1, 3))
    b = ast.BinOp(op="+", left=ast.Const(value=1), right=ast.VarRef(name="x"), pos=SourcePos("m.pml", 2, 5))
    assert a == b and a.field_names == ("op", "left", "right")
    assert ast.Ltl(name="p", text="[] x", formula=None) == ast.Ltl(name="p", text="other", formula=None)


def test_writes_names_exactly_what_a_statement_changes():
    """Node.writes(), from _ast.cfg's `!` fields: the one definition of a write that the
    analyses read (a missed write would let a written variable pass for a constant)."""
    from topspin_py.promela.parser import parse_text

    spec = parse_text("""
        chan q = [1] of { byte, byte };
        byte a, b[2], c, d;
        active proctype P() {
          a = 1; b[a]++; c--;
          q?d, eval(a); q?<c, 3>; q??d, _;
          q!a, b[0]; q?[d, a]; printf("%d", c);
          for (d : 0 .. 1) { skip };
          select (a : 1 .. 2)
        }
        """, "m.pml")
    written = [(type(node).__name__, _text(w)) for node in spec.walk() for w in node.writes()]
    assert written == [("Assign", "a"), ("IncDec", "b[a]"), ("IncDec", "c"), ("Receive", "d"),
                       ("Receive", "c"), ("Receive", "d"), ("Receive", "_"), ("ForRange", "d"),
                       ("Select", "a")]
    assert [_text(w) for w in ast.writes_in(spec)] == [text for _, text in written]


def _text(expr) -> str:
    from topspin_py.promela.printer import print_expr

    return print_expr(expr)


def test_children_are_the_fields_typed_with_nodes():
    """_ast.cfg's types tell children (nodes) from attributes (str, int, bool): children(),
    walk() and map_children() visit the children only."""
    assert ast.Proctype.field_names == ("name", "params", "body", "active", "priority", "provided",
                                        "deterministic")
    assert ast.Proctype.child_fields == ("params", "body", "active", "priority", "provided")
    assert ast.Const.child_fields == () and ast.Ltl.child_fields == ("formula",)
    assert typing.get_type_hints(ast.Decl)["type"] == ast.TypeName | ast.RefType
    for line in ("X (Expr): a:str|Expr", "X (Expr): a:Nothing", "X (Expr): a", "X (Expr): a:str!"):
        with pytest.raises(ValueError):
            _ast_gen.read_config(line)
