"""The wheel is what users install: it must carry the grammar, templates/ and c_runtime/."""

from __future__ import annotations

import subprocess
import sys
import zipfile

from conftest import REPO


def test_wheel_ships_grammar_templates_and_c_runtime(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(REPO)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("topspin_py-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "topspin_py/promela/promela.lark" in names
    assert "topspin_py/templates/README.md" in names
    assert "topspin_py/c_runtime/README.md" in names
    assert any(name.endswith("entry_points.txt") for name in names)
