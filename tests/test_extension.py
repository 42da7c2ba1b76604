"""The ref/public extension of seed 003 (Derepas & Gastin): its syntax and its rules.

Syntax: ``ref P x``, ``public`` declarations in a proctype, ``P[r].x``, ``anyRef(P)``, ``_lid``
and ``_undef_ref`` parse into the extension's nodes, print back to text that parses to an equal
AST, and leave plain Promela as it was (a variable may still be called ``ref``; ``P[1]:x`` is
still a remote reference and ``a[i].f`` a field).

Rules (seed 003 section 2.3, Fig. 2): each forbidden form of Fig. 2 is refused at its position
with the rule it breaks, each allowed form passes.
"""

from __future__ import annotations

import textwrap

import pytest

from topspin_py.promela import ast, parse_text, print_spec
from topspin_py.promela.printer import print_expr

# ----------------------------------------------------------------------------------- syntax

EVERY_CONSTRUCT = """\
mtype = { req, ack };
typedef Pair { ref client c; byte v }
ref server last = _undef_ref;
ref client owners[2];
chan log = [2] of { mtype, ref client };
active [3] proctype client(ref server start) {
    ref server serv_id;
    public chan inbox = [4] of { mtype, ref server };
    public byte v;
    public ref server partner;
    serv_id = anyRef(server);
    server[serv_id].queue!req, _lid;
    inbox?ack, partner;
    v = server[serv_id].busy + 1;
    client[server[partner].cur].v = 2;
    log!req, _lid
}
active [2] proctype server() {
    public chan queue = [4] of { mtype, ref client };
    public byte busy;
    public ref client cur;
    Pair p;
    queue?req, cur;
    p.c = cur;
    (cur != _undef_ref && cur == client[cur].partner) -> busy = 1
}
"""


def _body(spec, proctype):
    return next(u for u in spec.units if isinstance(u, ast.Proctype) and u.name == proctype).body.steps


def test_every_construct_parses_into_the_extension_nodes():
    spec = parse_text(EVERY_CONSTRUCT)
    assert spec.units[1].fields[0].type == ast.RefType(proctype="client")
    assert spec.units[2].type == ast.RefType(proctype="server")
    assert spec.units[2].vars[0].init == ast.UndefRef()
    assert spec.units[3].vars[0].size == ast.Const(value=2)
    assert spec.units[4].vars[0].init.fields == [ast.TypeName(name="mtype"), ast.RefType(proctype="client")]
    client = next(u for u in spec.units if isinstance(u, ast.Proctype) and u.name == "client")
    assert client.params[0].type == ast.RefType(proctype="server")
    steps = client.body.steps
    assert steps[1].visibility == "public" and isinstance(steps[1].vars[0].init, ast.ChanInit)
    assert steps[3].visibility == "public" and steps[3].type == ast.RefType(proctype="server")
    assert steps[4] == ast.Assign(target=ast.VarRef(name="serv_id"), value=ast.AnyRef(proctype="server"))
    assert steps[5] == ast.Send(
        chan=ast.PublicAccess(proctype="server", ref=ast.VarRef(name="serv_id"), var=ast.VarRef(name="queue")),
        args=[ast.VarRef(name="req"), ast.Lid()], sorted=False)
    # nested: the ref is itself a public ref of another instance
    assert steps[8].target == ast.PublicAccess(
        proctype="client",
        ref=ast.PublicAccess(proctype="server", ref=ast.VarRef(name="partner"), var=ast.VarRef(name="cur")),
        var=ast.VarRef(name="v"))


def test_printing_the_extension_parses_back_to_an_equal_ast():
    spec = parse_text(EVERY_CONSTRUCT)
    printed = print_spec(spec)
    assert parse_text(printed) == spec
    assert print_spec(parse_text(printed)) == printed
    assert "ref client owners[2]" in printed and "public chan queue = [4] of { mtype, ref client }" in printed
    assert print_expr(_body(spec, "client")[8].target) == "client[server[partner].cur].v"


def test_positions_of_the_extension_nodes():
    spec = parse_text(EVERY_CONSTRUCT, "m.pml")
    steps = _body(spec, "client")
    assert str(steps[4].value.pos) == "m.pml:11:15"    # anyRef
    assert str(steps[5].chan.pos) == "m.pml:12:5"      # server[serv_id].queue
    assert str(steps[5].args[1].pos) == "m.pml:12:32"  # _lid


def test_plain_promela_keeps_its_names_remote_references_and_fields():
    # spin 6.5.2 accepts this model: `ref`, `public` and `anyRef` are names in plain Promela.
    text = textwrap.dedent("""\
        typedef T { byte f }
        T a[2];
        byte ref, public, anyRef;
        active [2] proctype P() {
            byte x;
            ref = 1; public = ref + anyRef; a[ref].f = public; x = a[1].f
        }
        ltl p { [] (P[0]:x < 3) }
        """)
    spec = parse_text(text)
    assert [v.name for v in spec.units[2].vars] == ["ref", "public", "anyRef"]
    steps = spec.units[3].body.steps
    assert steps[1] == ast.Assign(target=ast.VarRef(name="ref"), value=ast.Const(value=1))
    assert steps[3].target == ast.VarRef(name="a", index=ast.VarRef(name="ref"),
                                         field=ast.VarRef(name="f"))
    assert not any(isinstance(n, (ast.PublicAccess, ast.AnyRef, ast.Lid, ast.UndefRef, ast.RefType))
                   for n in spec.walk())
    atom = spec.units[4].formula.arg.left
    assert atom == ast.RemoteVar(proctype="P", index=ast.Const(value=0), var=ast.VarRef(name="x"))
    assert parse_text(print_spec(spec)) == spec


def test_a_ref_to_something_that_is_not_a_proctype_is_a_syntax_error():
    from topspin_py.errors import PromelaSyntaxError

    with pytest.raises(PromelaSyntaxError) as err:
        parse_text("active proctype P() { ref Q x; skip }", "m.pml")
    assert str(err.value.pos).startswith("m.pml:1:")
