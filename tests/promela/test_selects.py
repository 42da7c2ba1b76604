"""``select`` as spin compiles it (promela/selects.py): our front end writes a select out as an
``if`` of assignments exactly where spin's lexer does, which real spin tells: the loop it
writes otherwise tests ``name < upto`` in pan.t, the ``if`` it writes out does not."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from narrow import the

from topspin_py.promela import ast, load_model
from topspin_py.promela.lexer import spin_expands_select

# (declarations and statement, the select's variable, what spin's lexer does with it)
CASES = [
    ("byte j; select (j : 0 .. 2)", "j", True),
    ("byte j; select(j:0..2)", "j", True),
    ("byte j; select (j :\t0 ..  2 )", "j", True),
    ("byte j; select (j : 1 .. 33)", "j", True),          # 32 apart: the widest written out
    ("byte j; select (j : 1 .. 34)", "j", False),         # 33 apart: a loop
    ("byte j; select (j : 0 .. N - 1)", "j", False),      # an expression, even a constant one
    ("byte j; select (j : 0 .. N)", "j", True),           # N is 3 once preprocessed
    ("byte my_j; select (my_j : 0 .. 2)", "my_j", False),  # spin's lexer wants letters, digits
    ("byte j; select (j : blue .. red)", "j", False),     # mtype names (blue is 1)
    ("byte j; select (j : 2 .. 2)", "j", True),
]
PRELUDE = "#define N 3\nmtype = { red, green, blue }\n"


def _spin_counts_up(path: Path, name: str) -> bool:
    """Whether spin compiled the select into its counting loop (a test `name < upto`)."""
    subprocess.run(["spin", "-a", path.name], cwd=path.parent, check=True, capture_output=True)
    return f'"(({name}<' in (path.parent / "pan.t").read_text()


def _selects_left(path: Path) -> tuple[int, int]:
    """(selects, ifs) in the program our analyses read."""
    spec = load_model(path).expanded
    nodes = [n for unit in spec.units if not isinstance(unit, ast.Inline) for n in unit.walk()]
    return (sum(isinstance(n, ast.Select) for n in nodes), sum(isinstance(n, ast.If) for n in nodes))


@pytest.mark.parametrize("text,name,expands", CASES, ids=[c[0] for c in CASES])
def test_a_select_is_written_out_where_spin_writes_it_out(tmp_path: Path, text: str, name: str, expands: bool):
    path = tmp_path / "m.pml"
    path.write_text(PRELUDE + f"active proctype P() {{ {text} }}\n")
    assert _spin_counts_up(path, name) == (not expands)   # the case list agrees with spin
    selects, ifs = _selects_left(path)
    assert (selects, ifs) == ((0, 1) if expands else (1, 0))


def test_a_select_in_an_inline_body_counts(tmp_path: Path):
    """spin's lexer does not write out the selects of inline bodies (it reads them while
    inlining), so the expansion leaves them to count, in every call."""
    path = tmp_path / "m.pml"
    path.write_text("inline pick(x) { select (x : 0 .. 2) }\n"
                    "active proctype P() { byte j; pick(j); select (j : 0 .. 2) }\n")
    assert _spin_counts_up(path, "j")
    assert _selects_left(path) == (1, 1)   # the inline's select counts, P's own is an if


def test_the_written_out_select_assigns_every_value_once(tmp_path: Path):
    path = tmp_path / "m.pml"
    path.write_text("active proctype P() { byte j; select (j : 3 .. 5) }\n")
    (found,) = [n for n in load_model(path).expanded.walk() if isinstance(n, ast.If)]
    values = [the(ast.Const, the(ast.Assign, option.steps[0]).value).value for option in found.options]
    assert values == [3, 4, 5]
    assert all(len(option.steps) == 1 and isinstance(option.steps[0], ast.Assign) for option in found.options)


@pytest.mark.parametrize("text,expands", [
    ("select (j : 0 .. 2)", True), ("select\n(j : 0 .. 2)", True), ("select (j\n: 0 .. 2)", False),
    ("select (j : -1 .. 2)", False), ("select (j : 3 .. 1)", False), ("select (j : 0 .. 2 + 1)", False),
])
def test_spins_lexer_rules(text: str, expands: bool):
    assert spin_expands_select(text) == expands
