"""The claims spin compiles into pan.c, and the accept labels that decide pan's search.

``spin -a`` writes every never claim and ltl formula of the model into pan.c as a process type
of its own, and the ltl formulas' translations into ``_spin_nvr.tmp`` in its working
directory.  ``verify`` asks which accept labels the model has (spin's ``has_accept``), the ones
of the ltl translations included, to search for acceptance cycles as ``spin -run`` does.
"""

from __future__ import annotations

import re
from pathlib import Path

from topspin_py.promela import ast
from topspin_py.promela.model import Model

LTL_TRANSLATIONS = "_spin_nvr.tmp"   # spin -a's never claims for the model's ltl formulas

_NEVER_HEADER = re.compile(r"^never (\S+) \{", re.M)
_LABEL_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):", re.M)


# ------------------------------------------------------------------------------ accept labels

def is_accept_label(name: str) -> bool:
    """spin's has_accept test (flow.c, set_lab): ``accept_all`` ends a safety claim's
    violation; it asks for no cycle search."""
    return name.startswith("accept") and not name.startswith("accept_all")


def accept_labels(model: Model, spin_workdir: Path) -> list[str]:
    """The accept labels spin sees, each as ``label (where)``: the model's own (proctypes,
    init, never claims) and those of its ltl formulas' translations (``_spin_nvr.tmp``)."""
    found = []
    for unit in model.expanded.units:
        if isinstance(unit, (ast.Proctype, ast.Init, ast.Never, ast.Trace)):
            where = {ast.Proctype: f"proctype {getattr(unit, 'name', '')}", ast.Init: "init",
                     ast.Never: "never claim", ast.Trace: "trace"}[type(unit)]
            found += [f"{node.label} ({where})" for node in unit.walk()
                      if isinstance(node, ast.Labeled) and is_accept_label(node.label)]
    translations = spin_workdir / LTL_TRANSLATIONS
    if translations.is_file():
        for name, text in _never_blocks(translations.read_text(errors="replace")):
            found += [f"{label} (ltl {name})" for label in _LABEL_LINE.findall(text)
                      if is_accept_label(label)]
    return found


def _never_blocks(text: str) -> list[tuple[str, str]]:
    headers = list(_NEVER_HEADER.finditer(text))
    ends = [h.start() for h in headers[1:]] + [len(text)]
    return [(h.group(1), text[h.end():end]) for h, end in zip(headers, ends)]
