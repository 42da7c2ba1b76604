"""The ref/public extension of Derepas and Gastin [DG01]: its syntax and its rules.

Syntax: ``ref P x``, ``public`` declarations in a proctype, ``P[r].x``, ``anyRef(P)``, ``_lid``
and ``_undef_ref`` parse into the extension's nodes, print back to text that parses to an equal
AST, and leave plain Promela as it was (a variable may still be called ``ref``; ``P[1]:x`` is
still a remote reference and ``a[i].f`` a field).

Rules ([DG01] section 2.3, Fig. 2): each forbidden form of Fig. 2 is refused at its position
with the rule it breaks, each allowed form passes.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import cast

import pytest
from conftest import REPO
from narrow import the

from topspin_py.promela import ast, parse_text, print_spec
from topspin_py.promela.printer import print_expr

# ----------------------------------------------------------------------------------- syntax

EVERY_CONSTRUCT = """\
mtype = { req, ack };
typedef Pair { ref client c; byte v }
ref server last = _undef_ref;
ref client owners[2];
chan log = [2] of { mtype, ref client };
active [3] proctype client() {
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
    (cur != _undef_ref && _lid == client[cur].partner) -> busy = 1
}
proctype watcher(ref server s) {
    server[s].busy == 0
}
init {
    ref server first = anyRef(server);
    run watcher(first)
}
"""


def _body(spec, proctype):
    return next(u for u in spec.units if isinstance(u, ast.Proctype) and u.name == proctype).body.steps


def _ext(node: ast.Extension) -> ast.Expr:
    """An expression of the extension where the parser puts it, in a field typed Expr (see
    _ast.cfg: the types are those of the desugared program the analyses see)."""
    return cast(ast.Expr, node)


def test_every_construct_parses_into_the_extension_nodes():
    spec = parse_text(EVERY_CONSTRUCT)
    assert the(ast.TypeDef, spec.units[1]).fields[0].type == ast.RefType(proctype="client")
    assert the(ast.Decl, spec.units[2]).type == ast.RefType(proctype="server")
    assert the(ast.Decl, spec.units[2]).vars[0].init == ast.UndefRef()
    assert the(ast.Decl, spec.units[3]).vars[0].size == ast.Const(value=2)
    assert the(ast.ChanInit, the(ast.Decl, spec.units[4]).vars[0].init).fields == [
        ast.TypeName(name="mtype"), ast.RefType(proctype="client")]
    watcher = next(u for u in spec.units if isinstance(u, ast.Proctype) and u.name == "watcher")
    assert watcher.params[0].type == ast.RefType(proctype="server")
    client = next(u for u in spec.units if isinstance(u, ast.Proctype) and u.name == "client")
    steps = client.body.steps
    public_chan, public_ref = the(ast.Decl, steps[1]), the(ast.Decl, steps[3])
    assert public_chan.visibility == "public" and isinstance(public_chan.vars[0].init, ast.ChanInit)
    assert public_ref.visibility == "public" and public_ref.type == ast.RefType(proctype="server")
    assert steps[4] == ast.Assign(target=ast.VarRef(name="serv_id"), value=_ext(ast.AnyRef(proctype="server")))
    assert steps[5] == ast.Send(
        chan=_ext(ast.PublicAccess(proctype="server", ref=ast.VarRef(name="serv_id"),
                                   var=ast.VarRef(name="queue"))),
        args=[ast.VarRef(name="req"), _ext(ast.Lid())], sorted=False)
    # nested: the ref is itself a public ref of another instance
    assert the(ast.Assign, steps[8]).target == ast.PublicAccess(
        proctype="client",
        ref=_ext(ast.PublicAccess(proctype="server", ref=ast.VarRef(name="partner"), var=ast.VarRef(name="cur"))),
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
    assert [v.name for v in the(ast.Decl, spec.units[2]).vars] == ["ref", "public", "anyRef"]
    steps = the(ast.Proctype, spec.units[3]).body.steps
    assert steps[1] == ast.Assign(target=ast.VarRef(name="ref"), value=ast.Const(value=1))
    assert the(ast.Assign, steps[3]).target == ast.VarRef(name="a", index=ast.VarRef(name="ref"),
                                         field=ast.VarRef(name="f"))
    assert not any(isinstance(n, (ast.PublicAccess, ast.AnyRef, ast.Lid, ast.UndefRef, ast.RefType))
                   for n in spec.walk())
    atom = the(ast.BinOp, the(ast.LtlUnary, the(ast.Ltl, spec.units[4]).formula).arg).left
    assert atom == ast.RemoteVar(proctype="P", index=ast.Const(value=0), var=ast.VarRef(name="x"))
    assert parse_text(print_spec(spec)) == spec


def test_a_ref_to_something_that_is_not_a_proctype_is_a_syntax_error():
    from topspin_py.errors import PromelaSyntaxError

    with pytest.raises(PromelaSyntaxError) as err:
        parse_text("active proctype P() { ref Q x; skip }", "m.pml")
    assert str(err.value.pos).startswith("m.pml:1:")


# ----------------------------------------------------------------------------------- rules

# The declarations of [DG01] Fig. 2; the statement under test goes inside proctype client.
FIG2 = """\
ref client cli;
int n;
chan q = [2] of {ref client};
ref server ser;
active [2] proctype server() { skip }
active [3] proctype client() {
    {stmt}
}
"""


def _check(stmt: str):
    from topspin_py.promela import build_model

    return build_model(parse_text(FIG2.replace("{stmt}", stmt), "m.pml"))


@pytest.mark.parametrize("stmt", ["cli==_lid", "cli=_lid", "cli=_undef_ref", "q!_lid",
                                  "q!anyRef(client)", "ser=anyRef(server)",
                                  # and more that the rules allow
                                  "q?cli", "cli != _undef_ref -> skip", "q?eval(_lid)",
                                  "cli = (n > 0 -> _lid : _undef_ref)"])
def test_the_forms_fig2_allows_pass(stmt):
    model = _check(stmt)
    assert model.refs is not None and model.extended is not None


# The forbidden forms of [DG01] Fig. 2, then others of its section 2.3 and of our own: the
# column, and the words of the message.  Line 7 is the statement's line.
FORBIDDEN = [
    ("cli==n", 5, "'(cli == n)' compares a ref of client with a value that is not a ref", "compared only"),
    ("cli=1", 9, "'cli = 1' gives the constant 1 to a ref of client", "assigned, initialised"),
    ("cli<_lid", 5, "'(cli < _lid)' orders refs with <", "compared only"),
    ("q!3", 7, "field 1 of 'q!3' gives the constant 3 to a ref of client", "assigned, initialised"),
    ("q!ser", 7, "field 1 of 'q!ser' gives a ref of server to a ref of client", "assigned, initialised"),
    ("ser==cli", 5, "'(ser == cli)' compares a ref of server with a ref of client", "compared only"),
    ("cli==1", 5, "'(cli == 1)' compares a ref of client with the constant 1", "compared only"),
    ("n = cli", 9, "'n = cli' puts a ref of client into a value that is not a ref", "no arithmetic"),
    ("cli + 1 > 0", 5, "'(cli + 1)' does arithmetic (+) on a ref", "no arithmetic"),
    ("cli++", 5, "'cli++' does arithmetic on a ref", "no arithmetic"),
    ("byte a[3]; a[cli] = 1", 18, "a ref indexes an array ('cli')", "indexes no array"),
    ("n = _pid", 9, "_pid in proctype client", "never with _pid"),
    ("q?n", 7, "field 1 of 'q?n' receives a ref of client into a value that is not a ref", "no arithmetic"),
    ("q?ser", 7, "field 1 of 'q?ser' receives a ref of client into a ref of server", "assigned"),
    ("ser = _lid", 11, "'ser = _lid' gives a ref of client to a ref of server", "assigned"),
    ("server[ser].x = 1", 17, "server has no public variable 'x'", "P[r].x through a ref"),
    ("client[ser].x = 1", 12, "'client[ser].x' reaches client's public variable through a ref of server",
     "P[r].x through a ref"),
    ("cli -> skip", 5, "a ref used as a truth value ('cli')", "truth test"),
    ("q?1", 7, "field 1 of 'q?1' matches a ref field against the constant 1", "compared only"),
]


@pytest.mark.parametrize("stmt, column, message, rule", FORBIDDEN, ids=[f[0] for f in FORBIDDEN])
def test_the_forms_the_rules_forbid_are_refused_at_their_position(stmt, column, message, rule):
    from topspin_py.promela.extension import ExtensionError

    with pytest.raises(ExtensionError) as err:
        _check(stmt)
    assert str(err.value.pos) == f"m.pml:7:{column}"
    assert err.value.message.startswith(message)
    assert rule in err.value.rule


PROCTYPE_RULES = [
    # run of a proctype that refs refer to
    ("active [2] proctype S() { ref S me = _lid; skip }\ninit { run S() }", "m.pml:2:8",
     "run S: its processes must all be `active [N]`"),
    # a referred proctype that is not active
    ("proctype S() { skip }\nactive proctype C() { ref S s; skip }", "m.pml:1:1",
     "proctype S is referred to by refs"),
    ("active [255] proctype S() { skip }\nactive proctype C() { ref S s; skip }", "m.pml:1:1",
     "proctype S has 255 instances"),
    ("active [2] proctype S() { public byte a[3]; skip }", "m.pml:1:39", "public array 'a'"),
    ("active [2] proctype S() { public byte v; skip }\nactive proctype C() { byte x = v }", "m.pml:2:32",
     "'v' is public in S"),
    ("active [2] proctype S() { byte x = _lid }\nactive proctype C(ref S s) { skip }", "m.pml:2:19",
     "a ref parameter of the active proctype C"),
    ("active [2] proctype S() { skip }\ninit { byte x = _lid }", "m.pml:2:17", "_lid outside a proctype"),
    ("active [2] proctype S() { public byte v = _nr_pr; skip }", "m.pml:1:43",
     "the initialiser of public 'v' is not a constant"),
    ("active [0] proctype S() { skip }\nactive proctype C() { ref S s; skip }", "m.pml:1:1",
     "proctype S is referred to by refs but has no instances"),
    ("chan q = [1] of { ref S };\nactive [2] proctype S() { q!!_lid }", "m.pml:2:27",
     "'q!!_lid' is a sorted send (!!)"),
    ("active [2] proctype S() { public byte v; skip }\nltl p { [] (S[0]:v == 0) }", "m.pml:2:13",
     "'S[0]:v' reads a public variable as a remote reference"),
    ("active [2] proctype S() { ref S r; d_step { r = anyRef(S) } }", "m.pml:1:49",
     "anyRef inside d_step"),
    ("active [2] proctype S() { skip }\nproctype W(byte x) { skip }\ninit { ref S s = anyRef(S); run W(s) }",
     "m.pml:3:35", "argument 'x' of 'run W' puts a ref of S into a value that is not a ref"),
]


@pytest.mark.parametrize("text, where, message", PROCTYPE_RULES)
def test_processes_of_referred_proctypes_are_active_and_use_lid(text, where, message):
    from topspin_py.promela import build_model
    from topspin_py.promela.extension import ExtensionError

    with pytest.raises(ExtensionError) as err:
        build_model(parse_text(text, "m.pml"))
    assert str(err.value.pos) == where
    assert err.value.message.startswith(message)


def test_a_broken_rule_is_reported_by_the_cli_with_exit_status_2(tmp_path):
    model = tmp_path / "m.pml"
    model.write_text(FIG2.replace("{stmt}", "cli=1"))
    done = subprocess.run([sys.executable, "-m", "topspin_py.cli", "detect", str(model)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"{model}:7:9: error: 'cli = 1' gives the constant 1 to a ref of client" in done.stderr
    assert "rule: a ref of P is assigned" in done.stderr and "hint: use a ref of client" in done.stderr
