"""A guard against an AST node kind the symmetry analysis forgets: it dispatches over the AST's
node kinds with a ``match`` that ends in ``assert_never``, and mypy (which ``make test`` runs)
rejects a ``match`` that misses a kind.  Shown on a copy of topspin_py/ (with tests/ and
bench/, which mypy checks too) with one ``case`` taken out."""

from __future__ import annotations

import ast as pyast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO


def _copy_package(where: Path) -> Path:
    """topspin_py/, tests/ and bench/ (the trees the configuration names) and the mypy
    configuration, as mypy sees them in the repository."""
    for tree in ("topspin_py", "tests", "bench"):
        shutil.copytree(REPO / tree, where / tree, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", where / "pyproject.toml")
    return where


def _mypy(root: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    # The configuration ([tool.mypy] in pyproject.toml) names the trees: as `make test` runs it.
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache)], cwd=root,
                          capture_output=True, text=True, timeout=600)


def _without_case(source: str, cls: str, method: str, node_class: str) -> str:
    """``source`` without the ``case ast.<node_class>():`` branch of the ``match`` in
    ``cls.method`` (found with Python's own parser, so the lines it spans are exact)."""
    tree = pyast.parse(source)
    klass = next(n for n in tree.body if isinstance(n, pyast.ClassDef) and n.name == cls)
    function = next(n for n in klass.body if isinstance(n, pyast.FunctionDef) and n.name == method)
    cases = [case for match in pyast.walk(function) if isinstance(match, pyast.Match)
             for case in match.cases
             if isinstance(case.pattern, pyast.MatchClass)
             and pyast.unparse(case.pattern.cls) == f"ast.{node_class}"]
    assert len(cases) == 1, f"{cls}.{method} has {len(cases)} 'case ast.{node_class}()' branches"
    case = cases[0]
    first, last = case.pattern.lineno, case.body[-1].end_lineno
    assert last is not None
    lines = source.splitlines(keepends=True)
    del lines[first - 1:last]
    return "".join(lines)


def test_mypy_passes_on_the_unmodified_copy(tmp_path):
    run = _mypy(_copy_package(tmp_path / "copy"), tmp_path / "cache")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("Success: no issues found"), run.stdout


@pytest.mark.parametrize("module,cls,method,node_class", [
    # an expression kind the validity check would let through unread
    ("topspin_py/symmetry/validity/rewrite.py", "Rewrite", "expr", "CExpr"),
    # a statement kind the type inference would not look into
    ("topspin_py/symmetry/inference/unify.py", "_Inference", "stmt", "Printm"),
])
def test_mypy_rejects_a_match_over_node_kinds_that_misses_one(tmp_path, module, cls, method, node_class):
    root = _copy_package(tmp_path / "copy")
    path = root / module
    path.write_text(_without_case(path.read_text(), cls, method, node_class))
    run = _mypy(root, tmp_path / "cache")
    assert run.returncode == 1, run.stdout + run.stderr
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    # The one error: the node kind reaches assert_never, in the function that lost its case.
    assert len(errors) == 1, run.stdout
    assert errors[0].startswith(module + ":"), run.stdout
    assert '"assert_never"' in errors[0] and f'"{node_class}"' in errors[0], run.stdout
