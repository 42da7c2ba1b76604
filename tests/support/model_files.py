"""Models written by a test into its temporary folder, and plain SPIN's verdict on one: the
helpers that the unit tests of the front end and of detection share."""

from __future__ import annotations

import re
import subprocess
import textwrap
from collections.abc import Sequence
from pathlib import Path


def write(tmp_path: Path, text: str, name: str = "m.pml") -> Path:
    """``text`` (dedented) as ``tmp_path/name``."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def pan_errors(tmp_path: Path, model: Path) -> int:
    """Run plain spin + gcc + pan on ``model`` (in ``tmp_path``); the number of errors pan
    reports.  The oracle of the soundness checks: it reads nothing of topspin-py."""
    subprocess.run(["spin", "-a", model.name], cwd=tmp_path, check=True, capture_output=True)
    return built_pan_errors(tmp_path)


def built_pan_errors(directory: Path, flags: Sequence[str] = ()) -> int:
    """Compile the pan.c in ``directory`` with ``flags`` and run pan; the number of errors it
    reports."""
    subprocess.run(["gcc", "-w", "-O1", *flags, "-o", "pan", "pan.c"], cwd=directory, check=True)
    out = subprocess.run(["./pan"], cwd=directory, capture_output=True, text=True).stdout
    found = re.search(r"errors: (\d+)", out)
    assert found is not None, out
    return int(found.group(1))
