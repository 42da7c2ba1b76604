"""What a model declares for topspin-py in comments, which spin ignores.

``/* topspin: scalarset dim */`` declares the mtype subtype ``dim`` (``mtype:dim = { ... }``) a
scalarset, as Murphi's and Rumur's ``scalarset`` types are: its values are interchangeable, a
variable of the type only stores them, passes them on and compares them with ``==`` and ``!=``.
The symmetry analysis then treats every variable, parameter and message field of type
``mtype:dim`` as one scalar domain with all the subtype's values (symmetry/inference/), refuses
the model where the text uses them otherwise, and permutes the values together with the
processes and channels where the program allows it.

The comments are read from the model's own file, as written (cpp removes them before spin's
parser, and ours, see the text).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import SourcePos

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_SCALARSET = re.compile(r"\btopspin\s*:\s*scalarset\s+([A-Za-z_][A-Za-z0-9_]*)")


def scalarset_pragmas(path: str | Path) -> dict[str, SourcePos]:
    """The mtype subtypes declared scalarsets in the comments of the file at ``path``, each
    with where."""
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return {}
    found: dict[str, SourcePos] = {}
    for comment in _COMMENT.finditer(text):
        for match in _SCALARSET.finditer(comment.group(0)):
            start = comment.start() + match.start()
            line = text.count("\n", 0, start) + 1
            column = start - (text.rfind("\n", 0, start) + 1) + 1
            found.setdefault(match.group(1), SourcePos(str(path), line, column))
    return found
