"""The front end: preprocessing, parsing, positions, the printer and the Model's numbering.

The Model's pids, channel ids and mtype values are checked against real pan: the test writes
assertions of what the Model says into the model itself and runs the verifier.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO
from model_files import pan_errors, write
from narrow import the

from topspin_py.errors import ModelError, PreprocessorError, PromelaSyntaxError
from topspin_py.promela import ast, build_model, load_model, parse_file, parse_text, print_spec
from topspin_py.promela.model import INIT
from topspin_py.promela.printer import print_expr

# ------------------------------------------------------------------------ syntax errors

def test_syntax_error_points_at_the_offending_token(tmp_path):
    path = write(tmp_path, """\
        byte x;
        active proctype P() {
            x = 1;
            x = = 2
        }
        """)
    with pytest.raises(PromelaSyntaxError) as info:
        parse_file(path)
    err = info.value
    assert err.pos is not None
    assert (err.pos.file, err.pos.line, err.pos.column) == (str(path), 4, 9)
    rendered = err.render()
    assert rendered.startswith(f"{path}:4:9: error: syntax error: unexpected '='")
    assert "x = = 2" in rendered  # the offending line is shown


def test_error_in_an_ltl_formula_points_into_the_formula():
    text = "bool p, q;\nactive proctype P() { p = 1 }\n\tltl f { [](p -> (q & <> p)) }\n"
    with pytest.raises(PromelaSyntaxError) as info:
        parse_text(text, "m.pml")
    assert str(info.value.pos) == "m.pml:3:23"  # at the `<>` under `&`
    spec = parse_text(text.replace("& <>", "&&"), "m.pml")
    # `q && p`, inside its parentheses (as with test_positions_are_where_constructs_start)
    formula = the(ast.LtlUnary, the(ast.Ltl, spec.units[2]).formula)
    assert str(the(ast.LtlBinary, formula.arg).right.pos) == "m.pml:3:19"


def test_error_in_an_included_file_names_that_file(tmp_path):
    write(tmp_path, "byte y;\nbyte z z;\n", "defs.h")
    path = write(tmp_path, '#include "defs.h"\nactive proctype P() { y++ }\n')
    with pytest.raises(PromelaSyntaxError) as info:
        parse_file(path)
    assert info.value.pos is not None
    assert info.value.pos.file.endswith("defs.h")
    assert info.value.pos.line == 2


def test_preprocessor_error_has_a_position(tmp_path):
    path = write(tmp_path, 'byte x;\n#include "missing.h"\n')
    with pytest.raises(PreprocessorError) as info:
        parse_file(path)
    assert info.value.pos is not None
    assert info.value.pos.line == 2
    assert "missing.h" in info.value.message


# ------------------------------------------------------------------------ bytes that are not text
# spin reads a model as bytes: what its lexer skips (comments, strings, c_code) may hold any
# byte, and cpp drops NUL bytes (with a warning); elsewhere a byte that is not ASCII is a
# syntax error.  Each case asks spin first.

def spin_on_bytes(tmp_path: Path, data: bytes, name: str = "bytes.pml") -> tuple[Path, bool, bytes]:
    """``data`` written to ``name``; whether ``spin -a`` accepts it (writes pan.c), and what it
    printed."""
    path = tmp_path / name
    path.write_bytes(data)
    proc = subprocess.run(["spin", "-a", name], cwd=tmp_path, capture_output=True)
    return path, proc.returncode == 0 and (tmp_path / "pan.c").is_file(), proc.stdout + proc.stderr


def test_bytes_that_are_not_utf8_in_comments_strings_and_c_code_as_spin_accepts_them(tmp_path):
    path, accepted, said = spin_on_bytes(
        tmp_path, b"/* caf\xe9, na\xefve */ byte x; // \xff\xfe\n"
                  b"active proctype P() {\n"
                  b"    x = 1;  /* \xe0 la ligne */\n"
                  b"    printf(\"d\xe9j\xe0 vu\\n\");\n"
                  b"    c_code { /* \xa9 */ now.x = 2; }\n"
                  b"}\n")
    assert accepted, said
    spec = parse_file(path)
    body = the(ast.Proctype, spec.units[1]).body
    # the string keeps one U+FFFD for each byte that is not UTF-8
    printf = body.steps[1]
    assert isinstance(printf, ast.Printf) and printf.fmt == '"d\ufffdj\ufffd vu\\n"', printf
    text = print_spec(spec)
    assert parse_text(text, "printed") == spec


def test_a_nul_byte_is_dropped_as_spin_drops_it(tmp_path):
    path, accepted, said = spin_on_bytes(tmp_path, b"byte x;\x00\nactive proctype P() { x\x00 = 1 }\n")
    assert accepted, said
    assert parse_file(path) == parse_text("byte x;\nactive proctype P() { x = 1 }\n")


@pytest.mark.parametrize("data, line, column, byte", [
    (b"byte x\xe9;\nactive proctype P() { x = 1 }\n", 1, 7, 0xE9),              # in a name
    (b"byte x;\nactive proctype P() { x = 1 }\nltl p { [] (x \xe9 1) }\n", 3, 15, 0xE9),
    (b"\xff\xfeb\x00y\x00t\x00e\x00 \x00x\x00;\x00\n\x00", 1, 1, 0xFF),            # UTF-16
    (b"\x7fELF\x02\x01\x01\nbyte x;\n", 1, 1, 0x7F),                                 # binary
])
def test_a_byte_that_is_not_promela_text_is_named_where_it_is(tmp_path, data, line, column, byte):
    path, accepted, said = spin_on_bytes(tmp_path, data)
    assert not accepted and b"Error: syntax error" in said, said
    with pytest.raises(PromelaSyntaxError) as info:
        parse_file(path)
    err = info.value
    assert err.pos is not None
    assert (err.pos.file, err.pos.line, err.pos.column) == (str(path), line, column)
    assert err.message == f"syntax error: byte 0x{byte:02X}, which is not Promela text"
    assert err.hint is not None
    assert "is this a Promela model?" in err.hint
    # what the terminal gets: no byte of the file that is not printable text
    assert all(c.isprintable() or c in "\n\t" for c in err.render())


@pytest.mark.parametrize("name", ["caf\u00e9.pml", os.fsdecode(b"caf\xe9.pml")])
def test_a_file_name_that_is_not_ascii_is_named_as_given(tmp_path, name):
    # gcc writes the name's bytes as octal escapes in its line markers: they must come back
    # as the same name (a UTF-8 name, and bytes that are not UTF-8, as Python's paths hold them)
    path = tmp_path / name
    path.write_bytes(b"byte x;\nactive proctype P() { x = = 1 }\n")
    with pytest.raises(PromelaSyntaxError) as info:
        parse_file(path)
    assert info.value.pos is not None
    assert (info.value.pos.file, info.value.pos.line) == (str(path), 2)
    assert "x = = 1" in info.value.render()   # the line is found in the file so named


BINARY_CASES = {
    # an executable: cpp passes it (dropping its NUL bytes), the parser stops at its first byte
    "executable": (Path(shutil.which("true") or "/bin/true").read_bytes(), r"1:1",
                   "syntax error: byte 0x7F, which is not Promela text"),
    # bytes that make cpp fail: the error is cpp's, the hint says the file is not text
    "cpp fails": (b"\x7fELF\x00\x01\x02\n#if \xff\x00\n\x00\x02\x03\n#endif\n", r"2:5",
                  "preprocessor: token"),
}


@pytest.mark.parametrize("case", sorted(BINARY_CASES))
@pytest.mark.parametrize("command", ["verify", "detect", "generate"])
def test_a_binary_file_is_refused_clearly_by_every_command(tmp_path, case, command):
    data, where, message = BINARY_CASES[case]
    path, accepted, said = spin_on_bytes(tmp_path, data, "model.pml")
    assert not accepted, said
    options = ["-o", str(tmp_path / "out")] if command == "generate" else []
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "topspin_py.cli", command, str(path), *options],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"{path}:{where}: error: {message}"), proc.stderr
    assert re.search(r"^hint: .*is it a Promela model\?|^hint: is this a Promela model\?",
                     proc.stderr, re.M), proc.stderr
    assert all(c.isprintable() or c in "\n\t" for c in proc.stderr)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("statement, column", [
    ("_pid = 1", 2), ("_pid++", 2), ("_nr_pr = 2", 2), ("q?_nr_pr", 4), ("q?1, _last", 7),
    ("for (_pid : 0 .. 1) { skip }", 7), ("select (_pid : 0 .. 1)", 10),
])
def test_writes_to_variables_spin_maintains_are_refused(tmp_path, statement, column):
    # spin -a refuses the assignments; it compiles the receives into writes to pan's own
    # bookkeeping.  (A receive into _pid is accepted: test_differential.py.)
    path = write(tmp_path, f"chan q = [1] of {{ byte, pid }};\nactive proctype P() {{\n\t{statement}\n}}\n")
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert info.value.pos is not None
    assert (info.value.pos.line, info.value.pos.column) == (3, column)
    assert "read-only variable _" in info.value.message or "read-only variable np_" in info.value.message


def test_receives_that_match_or_take_the_own_pid_are_accepted(tmp_path):
    path = write(tmp_path, "chan q = [1] of { pid };\nactive proctype P() {\n"
                           "\tq!_pid; q?eval(_pid); q!_pid; q?_; q!_pid; q?_pid\n}\n")
    assert pan_errors(tmp_path, path) == 0
    model = load_model(path)
    assert [None if r.pos is None else r.pos.line for r in model.receives_into_pid()] == [3]


# ------------------------------------------------------------------------ the language

def test_macros_with_arguments_conditionals_and_defines(tmp_path):
    path = write(tmp_path, """\
        #define SQUARE(a) ((a) * (a))
        #ifdef BIG
        #define N 4
        #else
        #define N 2
        #endif
        byte v[SQUARE(N)];
        """)
    small = build_model(parse_file(path))
    big = build_model(parse_file(path, ["BIG"]))
    small_v, big_v = small.global_named("v"), big.global_named("v")
    assert small_v is not None and big_v is not None
    assert small_v.size == 4
    assert big_v.size == 16


def test_implied_semicolons_as_in_spin6():
    spec = parse_text(textwrap.dedent("""\
        byte cnt, request
        active proctype server() {
            do
            :: (request != 0) ->
                cnt = request
                (cnt == 0)
                request = 0
            od
        }
        active proctype other() {
            { cnt++ }
            unless { cnt == 3 }
        }
        """))
    server = the(ast.Proctype, spec.units[1])
    option = the(ast.Do, server.body.steps[0]).options[0]
    assert [type(s).__name__ for s in option.steps] == ["ExprStmt", "Assign", "ExprStmt", "Assign"]
    assert isinstance(the(ast.Proctype, spec.units[2]).body.steps[0], ast.Unless)


def test_contextual_keywords_stay_names_elsewhere():
    spec = parse_text(textwrap.dedent("""\
        byte U, X, a;
        proctype client(chan in) { in?U; X = U }
        active proctype Q() { a++; U++ }
        ltl safe { [] (a U (a > 1)) }
        """))
    assert the(ast.Proctype, spec.units[1]).params[0].vars[0].name == "in"
    formula = the(ast.Ltl, spec.units[3]).formula
    assert formula == ast.LtlUnary(op="[]", arg=ast.LtlBinary(
        op="U", left=ast.VarRef(name="a"),
        right=ast.BinOp(op=">", left=ast.VarRef(name="a"), right=ast.Const(value=1))))


def test_remote_references_and_conditional_expressions():
    spec = parse_text(textwrap.dedent("""\
        byte a[2];
        active [2] proctype P() { byte x; cs: x = (x > 0 -> a[1] : x) }
        ltl mutex { [] !(P[0]@cs && P[1]:x > 0) }
        """))
    body = the(ast.Labeled, the(ast.Proctype, spec.units[1]).body.steps[1])
    value = the(ast.Assign, body.stmt).value
    assert isinstance(value, ast.CondExpr)
    assert value.then == ast.VarRef(name="a", index=ast.Const(value=1))
    atoms = [n for n in the(ast.Node, the(ast.Ltl, spec.units[2]).formula).walk()
             if isinstance(n, (ast.RemoteLabel, ast.RemoteVar))]
    assert atoms == [ast.RemoteLabel(proctype="P", index=ast.Const(value=0), label="cs"),
                     ast.RemoteVar(proctype="P", index=ast.Const(value=1), var=ast.VarRef(name="x"))]


def test_message_forms():
    spec = parse_text(textwrap.dedent("""\
        mtype = { req, ack };
        chan c = [2] of { mtype, byte };
        active proctype P() {
            byte v;
            c!req(3); c!!ack, 4;
            c?req(v); c??eval(v), _; c?<ack, v>; c?[req, 3] -> c?-1, v
        }
        """))
    steps = the(ast.Proctype, spec.units[2]).body.steps
    assert steps[1] == ast.Send(chan=ast.VarRef(name="c"), args=[ast.VarRef(name="req"), ast.Const(value=3)],
                                sorted=False)
    assert the(ast.Send, steps[2]).sorted is True
    receive = the(ast.Receive, steps[4])
    assert receive.random and isinstance(receive.args[0], ast.Eval)
    assert the(ast.Receive, steps[5]).keep is True
    assert isinstance(the(ast.ExprStmt, steps[6]).expr, ast.Poll)
    assert the(ast.Receive, steps[7]).args[0] == ast.Const(value=-1)


def test_c_code_blocks_are_kept_opaque():
    spec = parse_text(textwrap.dedent("""\
        c_decl { typedef struct { int a; } S; }
        c_state "int counter" "Global"
        active proctype P() {
            c_code [now.x > 0] { if (1) { now.x--; } };
            c_expr { now.x == 0 } -> skip
        }
        """))
    decl = the(ast.CCode, spec.units[0])
    assert decl.kind == "c_decl" and "typedef struct { int a; } S;" in decl.text
    steps = the(ast.Proctype, spec.units[2]).body.steps
    code = the(ast.CCode, steps[0])
    assert code.guard == "now.x > 0" and "now.x--;" in code.text
    assert isinstance(the(ast.ExprStmt, steps[1]).expr, ast.CExpr)


def test_positions_are_where_constructs_start():
    spec = parse_text("active proctype P() {\n  byte x;\n  if\n  :: (x + 1) * 2 > 3 -> x++\n  fi\n}", "m.pml")
    if_stmt = the(ast.If, the(ast.Proctype, spec.units[0]).body.steps[1])
    assert str(if_stmt.pos) == "m.pml:3:3"  # at `if`
    guard = the(ast.BinOp, the(ast.ExprStmt, if_stmt.options[0].steps[0]).expr)  # ((x + 1) * 2) > 3
    assert str(guard.pos) == "m.pml:4:6" and str(guard.left.pos) == "m.pml:4:6"  # at `(`
    assert str(the(ast.BinOp, guard.left).left.pos) == "m.pml:4:7"  # x + 1, inside the parentheses
    assert str(guard.right.pos) == "m.pml:4:20"


def test_builder_keeps_the_terminals_lark_would_keep():
    # The parsers keep every token, for the positions of the keywords and punctuation that
    # start a construct; the builder drops these itself (parser._KEPT_TERMINALS).
    from lark import Lark
    from lark.grammar import Terminal

    from topspin_py.promela import parser

    kept = set()
    for grammar in (parser._grammar(), parser._grammar() + "\n" + parser._grammar("ltl_expressions.lark")):
        standard = Lark(grammar, start=["start", "ltl_formula"], parser="earley", maybe_placeholders=False)
        kept |= {s.name for rule in standard.rules for s in rule.expansion
                  if isinstance(s, Terminal) and not s.filter_out}
    assert kept == parser._KEPT_TERMINALS


def test_binary_operators_nest_by_precedence_and_to_the_left():
    spec = parse_text("byte a, b, c, d;\nactive proctype P() { a = a - b - c * d << 1 == b || c && !d | a }")
    value = the(ast.Assign, the(ast.Proctype, spec.units[1]).body.steps[0]).value
    assert print_expr(value) == "(((((a - b) - (c * d)) << 1) == b) || (c && (!(d) | a)))"


# ------------------------------------------------------------------------ as spin 6.5.2 reads it
# Each case is run through real spin -a first: what it accepts we must parse (to the structure
# the case states), what it rejects we must reject.

def spin_accepts(tmp_path: Path, text: str) -> tuple[bool, str]:
    """Whether ``spin -a`` accepts ``text`` (it writes pan.c), and what it printed."""
    path = write(tmp_path, text, "spin_case.pml")
    proc = subprocess.run(["spin", "-a", path.name], cwd=tmp_path, capture_output=True, text=True)
    accepted = proc.returncode == 0 and (tmp_path / "pan.c").is_file()
    return accepted, proc.stdout + proc.stderr


def kinds(steps) -> list[str]:
    return [type(s).__name__ for s in steps]


# A `}` ends a statement: spin's lexer inserts a `;` after it unless the next token is one of
# proctype, init, never, `::`, fi, od, `}`, unless, `;`, `->` or the end (spinlex.c, yylex).
@pytest.mark.parametrize("body, steps", [
    ("atomic { x = 1 } x = 2", ["Atomic", "Assign"]),
    ("L: atomic { x = 1 } goto L", ["Labeled", "Goto"]),
    ("d_step { x = 1 } (x > 0) -> x = 2", ["DStep", "ExprStmt", "Assign"]),
    ("{ x = 1 } !(x > 3)", ["Block", "ExprStmt"]),
    ("{ x = 1 } -(x) < 3", ["Block", "ExprStmt"]),
    ("{ x = 1 } unless { x == 2 } x = 3", ["Unless", "Assign"]),
    ("for (i : 0 .. 2) { x++ } x--", ["ForRange", "IncDec"]),
    ("if :: x == 0 -> { x = 1 } :: else fi; x = 2", ["If", "Assign"]),
    ("do :: { x++ } break od", ["Do"]),
    ("atomic { x = 1 }\n  /* a comment */ x = 2", ["Atomic", "Assign"]),
])
def test_a_closing_brace_ends_a_statement_as_in_spin(tmp_path, body, steps):
    text = f"byte x, i;\nactive proctype P() {{\n  {body}\n}}\n"
    accepted, output = spin_accepts(tmp_path, text)
    assert accepted, output
    spec = parse_text(text)
    assert kinds(the(ast.Proctype, spec.units[1]).body.steps) == steps
    assert parse_text(print_spec(spec)) == spec


def test_a_closing_brace_between_declarations_at_the_top_level(tmp_path):
    text = "mtype = { a, b } typedef T { byte f } T t byte y\nactive proctype P() { y = a } init { t.f = b }"
    accepted, output = spin_accepts(tmp_path, text)
    assert accepted, output
    assert kinds(parse_text(text).units) == ["MtypeDecl", "TypeDef", "Decl", "Decl", "Proctype", "Init"]


def test_a_closing_brace_before_a_comma_is_an_error_as_in_spin(tmp_path):
    # The `;` spin inserts after the `}` of the first channel's fields cuts the declaration.
    text = "chan a = [1] of { byte }, b = [1] of { byte };\nactive proctype P() { a!1 }\n"
    accepted, output = spin_accepts(tmp_path, text)
    assert not accepted and "spin_case.pml:1, Error: syntax error" in output
    with pytest.raises(PromelaSyntaxError) as info:
        parse_text(text, "m.pml")
    assert str(info.value.pos) == "m.pml:1:25"
    assert "unexpected ','" in info.value.message


@pytest.mark.parametrize("option, steps", [
    ("else x = 1", ["Else", "Assign"]),
    ("else (x == 0)", ["Else", "ExprStmt"]),
    ("else -> x = 1", ["Else", "Assign"]),
])
def test_else_ends_a_statement_as_in_spin(tmp_path, option, steps):
    # After `else` spin inserts a `;` unless `;`, `->` or `fi` follows.
    text = f"byte x;\nactive proctype P() {{ if :: x > 0 :: {option} fi }}\n"
    accepted, output = spin_accepts(tmp_path, text)
    assert accepted, output
    if_stmt = the(ast.If, the(ast.Proctype, parse_text(text).units[1]).body.steps[0])
    assert kinds(if_stmt.options[1].steps) == steps


def test_a_named_never_claim_keeps_its_name(tmp_path):
    text = ("byte x;\nactive proctype P() { x++ }\n"
            "never small { do :: x < 3 :: x >= 3 -> break od }\n"
            "never big { do :: x > 3 -> break :: else od }\n")
    accepted, output = spin_accepts(tmp_path, text)
    assert accepted, output
    spec = parse_text(text)
    assert [the(ast.Never, u).name for u in spec.units[2:]] == ["small", "big"]
    printed = print_spec(spec)
    assert "never small {" in printed and parse_text(printed) == spec
    # pan -N big checks only that claim: only it constrains the search.
    model = build_model(spec)
    assert [u.name for u in model.keeping_claim("big").never_claims] == ["big"]


def test_receive_arguments_nest_as_spin_reads_them(tmp_path):
    # spin.y's rargs: `a(b, c)`, `(a, b, c)`, `a, (b, c)` and `a(b(c))` all receive a, b, c.
    forms = ["(a, b, c)", "a(b, c)", "a, (b, c)", "a(b(c))", "((a, b, c))"]
    text = ("chan q = [4] of { byte, byte, byte };\nactive proctype P() { byte a, b, c;\n"
            + "".join(f"  q!1, 2, 3; q?{form};\n" for form in forms) + "  q!1, 2, 3; q?[1(2, 3)]\n}\n")
    accepted, output = spin_accepts(tmp_path, text)
    assert accepted, output
    steps = the(ast.Proctype, parse_text(text).units[1]).body.steps[1:]
    names = [ast.VarRef(name=n) for n in "abc"]
    receives = [s for s in steps if isinstance(s, ast.Receive)]
    assert len(receives) == len(forms) and all(r.args == names for r in receives)
    assert the(ast.Poll, the(ast.ExprStmt, steps[-1]).expr).args == [ast.Const(value=v) for v in (1, 2, 3)]


@pytest.mark.parametrize("body", [
    "x = 1; L: }",          # a label with no statement labels a skip (spin.y, `NAME ':'`)
    "L: ; x = 2 }",
])
def test_a_label_without_a_statement(tmp_path, body):
    text = f"byte x;\nactive proctype P() {{ {body}\n"
    accepted, output = spin_accepts(tmp_path, text)
    assert accepted, output
    spec = parse_text(text)
    label = next(s for s in the(ast.Proctype, spec.units[1]).body.steps if isinstance(s, ast.Labeled))
    assert label == ast.Labeled(label="L", stmt=ast.Skip())
    assert parse_text(print_spec(spec)) == spec


def test_a_for_body_on_the_next_line(tmp_path):
    # The newline after `)` implies a `;`, which spin.y's for_post allows before the `{`.
    text = "byte x;\nactive proctype P() { byte i;\n  for (i : 0 .. 2)\n  { x++ }\n}\n"
    accepted, output = spin_accepts(tmp_path, text)
    assert accepted, output
    assert kinds(the(ast.Proctype, parse_text(text).units[1]).body.steps) == ["Decl", "ForRange"]


LTL_CASES = {
    "implies": "a -> b -> c",          # IMPLIES and EQUIV: one level, to the left
    "equiv_implies": "a <-> b -> c",
    "implies_equiv": "a -> b <-> c",
    "until": "a U b U c",               # UNTIL, WEAK_UNTIL, RELEASE: one level, to the left
    "weak_release": "a W b V c",
    "strong": "a stronguntil b",
    "r_is_a_name": "a U R",            # R is no operator to spin
    "prefix": "[] a U b",
    "and_until": "a && b U c || a",
    "not_eq": "! a == b",               # Promela's `!` binds tighter than `==`
    "words": "always (a implies eventually b) equivalent c",
}


def test_ltl_formulas_read_as_spin_reads_them(tmp_path):
    # spin prints each formula as it parsed it; our printer parenthesises every operation, so
    # spin prints the same for our text exactly when our AST has spin's structure.
    original = "bool a, b, c, R;\nactive proctype P() { a = 1; b = 1; c = 1 }\n" + "".join(
        f"ltl {name} {{ {formula} }}\n" for name, formula in LTL_CASES.items())
    accepted, spin_original = spin_accepts(tmp_path, original)
    assert accepted, spin_original
    printed = print_spec(parse_text(original))
    accepted, spin_printed = spin_accepts(tmp_path, printed)
    assert accepted, spin_printed

    def formulas(output):
        return sorted(line for line in output.splitlines() if line.startswith("ltl "))
    assert len(formulas(spin_original)) == len(LTL_CASES)
    assert formulas(spin_printed) == formulas(spin_original)


# ------------------------------------------------------------------------ printer

ROUND_TRIP = """\
#define N 3
mtype = { a, b };
mtype:fruit = { apple, pear };
typedef rec { byte f[2]; chan c; mtype:fruit kind };
rec r[N];
unsigned u : 3 = 5;
hidden byte h;
chan q[2] = [1] of { mtype, rec, mtype:fruit };
inline bump(v, k) { v[k] = v[k] + 1 }
active [N] proctype P(byte id) priority 2 provided (h == 0) {
    byte i; bit flag = 1;
    xr q[0];
    end: do
    :: atomic { i < N -> bump(r[0].f, 1) }
    :: d_step { i = (i + 1) % N; u = ~u & 7 }
    :: for (i : 0 .. N - 1) { printf("%d\\n", i) }
    :: select (i : 1 .. 3); break
    :: q[0]?a, _, apple -> goto end
    :: q[1]!b, r[0], pear
    :: i > 0 && !flag || enabled(_pid) && pc_value(0) > 0 -> skip
    :: len(q[0]) > 0 && nempty(q[1]) || empty(q[0]) && nfull(q[0]) && !full(q[1]) -> else
    :: timeout -> assert(_nr_pr > 0 && _last >= 0)
    :: run P(1) priority 3
    od unless { h > 100 }
}
init { byte j; for (j in r) { printm(a) } }
never { do :: skip :: P[1]@end -> break od }
notrace { do :: q[0]!a od }
ltl prop { [] (h == 0 -> <> (P[0]:i > 0)) && X !(h != 0 U h == 0) }
"""


def test_printer_round_trip_gives_an_equal_ast():
    spec = parse_text(ROUND_TRIP.replace("#define N 3\n", "").replace("N", "3"))
    printed = print_spec(spec)
    assert parse_text(printed) == spec
    assert print_spec(parse_text(printed)) == printed  # printing is stable


def test_ast_equality_ignores_positions_but_not_content():
    one = parse_text("byte x;\nactive proctype P() { x++ }")
    two = parse_text("byte x;\n\n\nactive proctype P()\n{\n    x++\n}")
    three = parse_text("byte x;\nactive proctype P() { x-- }")
    assert one == two
    assert one != three


# ------------------------------------------------------------------------ the Model

def test_pids_channel_ids_and_mtype_values_agree_with_pan(tmp_path):
    source = """\
        mtype = { red, green };
        mtype = { blue };
        mtype:fruit = { apple, pear };
        chan g2 = [1] of { byte };
        chan g1[2] = [1] of { byte };
        chan g3 = [1] of { byte };
        active [2] proctype A() { chan own = [1] of { byte }; CHECK_A; end: false }
        proctype W(chan c) { chan own = [1] of { byte }; CHECK_W; end: false }
        init { byte i; chan mine = [1] of { byte };
               CHECK_INIT;
               atomic { run W(g3); for (i : 1 .. 2) { run W(g1[i - 1]) } } }
        active proctype B() { CHECK_B; end: false }
        """
    # Every process blocks at its end: a process that terminates frees its pid for the next
    # `run` (B ending before init's runs would hand pid 3 to a W).
    model = build_model(parse_file(write(tmp_path, source.replace("CHECK_A", "skip")
                                         .replace("CHECK_W", "skip").replace("CHECK_INIT", "skip")
                                         .replace("CHECK_B", "skip"))))
    assert [(p.pid, p.proctype) for p in model.processes] == [
        (0, "A"), (1, "A"), (2, INIT), (3, "B"), (4, "W"), (5, "W"), (6, "W")]
    chan = {c.name: c.id for c in model.channels}

    def own(pid):
        return next(c.id for c in model.channels if c.owner_pid == pid)

    mt = model.mtypes
    check_a = " || ".join(f"(_pid == {p} && own == {own(p)})" for p in (0, 1))
    check_w = " || ".join(f"(_pid == {p} && own == {own(p)} && c == {chan[n]})"
                          for p, n in ((4, "g3"), (5, "g1[0]"), (6, "g1[1]")))
    check_init = (f"assert(_pid == 2 && mine == {own(2)} && g2 == {chan['g2']} && g3 == {chan['g3']}"
                  f" && red == {mt['red']} && green == {mt['green']} && blue == {mt['blue']}"
                  f" && apple == {mt['apple']} && pear == {mt['pear']})")
    checked = (source.replace("CHECK_A", f"assert({check_a})").replace("CHECK_W", f"assert({check_w})")
               .replace("CHECK_INIT", check_init).replace("CHECK_B", "assert(_pid == 3)"))
    assert pan_errors(tmp_path, write(tmp_path, checked, "checked.pml")) == 0
    # The check can fail: a wrong pid for B is caught by pan.
    wrong = checked.replace("assert(_pid == 3)", "assert(_pid == 4)")
    assert pan_errors(tmp_path, write(tmp_path, wrong, "wrong.pml")) == 1


def test_runs_under_control_flow_are_dynamic(tmp_path):
    # (a loop that constants and init's own variables decide is unrolled: tests/promela/test_init_runs.py)
    model = load_model(write(tmp_path, """\
        byte n = 2;
        proctype W() { skip }
        init { byte i; run W(); do :: i < n -> run W(); i++ :: else -> break od }
        """))
    assert [p.proctype for p in model.processes] == [INIT, "W"]
    assert len(model.dynamic_runs) == 1


def test_inline_expansion_substitutes_arguments(tmp_path):
    model = load_model(write(tmp_path, """\
        byte a[3];
        inline setk(arr, k, v) { arr[k] = v }
        active proctype P() { setk(a, 2, 7) }
        """))
    body = model.proctypes["P"].body.steps[0]
    assert isinstance(body, ast.Block)
    assert body.body.steps[0] == ast.Assign(target=ast.VarRef(name="a", index=ast.Const(value=2)),
                                            value=ast.Const(value=7))
    # The spec as written keeps the call.
    written = next(u for u in model.spec.units if isinstance(u, ast.Proctype))
    assert isinstance(written.body.steps[0], ast.InlineCall)
