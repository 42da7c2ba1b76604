"""The package's import graph: the pipeline's stages import only earlier stages, and no module
imports itself round a cycle.

Every import counts: at the top of a module, inside a function (a lazy import is still a
dependency) and under ``TYPE_CHECKING`` (a type names what a module knows of another).  The
graph is read from the source with ``ast``, so the test needs nothing installed but Python.

The stages, earliest first (ARCHITECTURE.md describes each).  A module is in the stage of the
longest prefix of its name listed here; a module that no prefix names fails the test, so a new
module is placed on purpose.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "topspin_py"

STAGES: list[tuple[str, ...]] = [
    # what every stage may use: errors with positions, the package's files, the reporter
    ("topspin_py", "topspin_py.errors", "topspin_py.gcpause", "topspin_py.resources",
     "topspin_py.reporting"),
    # the front end: Promela text to Model
    ("topspin_py.promela",),
    # pan's and spin's options: the vocabulary the later stages read (layout reads pan.h under
    # them, codegen asks whether the search is breadth first)
    ("topspin_py.pan.flags",),
    # detection: Model to Group
    ("topspin_py.symmetry",),
    # pan.h to StateLayout
    ("topspin_py.layout",),
    # Group and StateLayout to C
    ("topspin_py.codegen",),
    # spin, the splice, gcc, pan and its report
    ("topspin_py.pan",),
    # the pipeline assembled: its stages once (pipeline), the symmetry's decisions and text
    # (reduce), results, strategies' labels
    ("topspin_py.strategies", "topspin_py.result", "topspin_py.spin_style", "topspin_py.reduce",
     "topspin_py.pipeline", "topspin_py.symcheck"),
    # the commands' engines
    ("topspin_py.verify", "topspin_py.regress"),
    ("topspin_py.swarm",),
    # the command line
    ("topspin_py.cli",),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``module`` imports, anywhere in its text."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # ``from pkg import mod`` imports the module pkg.mod; ``from mod import name``, mod
            names.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                         for alias in node.names)
    imported = set()
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            imported.add(name)
    return imported


@lru_cache(maxsize=None)
def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {module: _imported(module, path, modules) for module, path in modules.items()}


def stage_of(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for rank, prefixes in enumerate(STAGES):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), rank)
    return None if best is None else best[1]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_is_read() -> None:
    """The reader sees the imports it must (relative, lazy and type-only ones), or the tests
    below could pass on an empty graph."""
    graph = _graph()
    assert "topspin_py.promela.model" in graph["topspin_py.symmetry.detect"] or any(
        target.startswith("topspin_py.promela") for target in graph["topspin_py.symmetry.detect"])
    assert "topspin_py.verify" in graph["topspin_py.cli.verify"]          # a lazy import, in a function
    assert "topspin_py.promela.ast" in graph["topspin_py.promela.model"]   # ``from . import ast``
    assert "topspin_py.pan.toolchain" in graph["topspin_py.pan.claims"]
    assert sum(len(targets) for targets in graph.values()) > 200


def test_no_import_cycle() -> None:
    assert cycles(_graph()) == []


def test_the_cycle_finder_finds_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_module_has_a_stage() -> None:
    assert [module for module in _graph() if stage_of(module) is None] == []


@pytest.mark.parametrize("module", sorted(_graph()))
def test_imports_only_earlier_stages(module: str) -> None:
    """A stage may use its own modules and earlier stages', never a later one's."""
    rank = stage_of(module)
    assert rank is not None
    later = sorted(target for target in _graph()[module] if (stage_of(target) or 0) > rank)
    assert later == [], f"{module} (stage {rank}) imports later stages: {later}"
