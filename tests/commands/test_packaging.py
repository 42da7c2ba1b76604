"""The wheel is what users install: it must carry the grammar, templates/ and c_runtime/."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest
from conftest import REPO

# `pip wheel REPO` builds in the repository itself (build/, topspin_py.egg-info): two builds at
# once would share those, so under pytest-xdist these tests run one after the other.
pytestmark = pytest.mark.xdist_group("wheel-build-in-repository")


def test_wheel_ships_grammar_templates_and_c_runtime(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(REPO)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("topspin_py-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "topspin_py/promela/promela.lark" in names
    assert "topspin_py/templates/README.md" in names
    assert "topspin_py/c_runtime/README.md" in names
    assert any(name.endswith("entry_points.txt") for name in names)
    # every module of the package: a subpackage missing from pyproject's list would be left out
    modules = sorted(str(path.relative_to(REPO)) for path in (REPO / "topspin_py").rglob("*.py"))
    assert len(modules) > 80 and [module for module in modules if module not in names] == []


def test_installed_wheel_verifies_a_model_outside_the_repository(tmp_path):
    # The README's `pip install` route: the wheel, installed on its own (here into a target
    # folder, its dependencies taken from the test's environment), verifies a model with its
    # own grammar, templates and C runtime, from a folder that is not the repository.
    import os

    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist"), str(REPO)], check=True, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("topspin_py-*.whl")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
                    str(wheel)], check=True, capture_output=True)
    work = tmp_path / "work"
    work.mkdir()
    # Three identical users of a lock: 3! orderings, and a reduced search needs fewer states.
    (work / "m.pml").write_text(
        "bool lock; byte inside;\n"
        "active [3] proctype user() {\n"
        "  do :: atomic { !lock -> lock = true }; inside++; assert(inside == 1); inside--; lock = false od\n"
        "}\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    where = subprocess.run([sys.executable, "-c", "import topspin_py, sys; print(topspin_py.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.strip().startswith(str(site)), where.stdout
    proc = subprocess.run([sys.executable, "-m", "topspin_py.cli", "verify", "--json", "m.pml"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    import json

    result = json.loads(proc.stdout)
    assert result["group_order"] == 6 and result["errors"] == 0 and result["complete"]
    plain = subprocess.run([sys.executable, "-m", "topspin_py.cli", "verify", "--json", "--strategy",
                            "none", "m.pml"], cwd=work, env=env, capture_output=True, text=True,
                           timeout=300)
    assert json.loads(plain.stdout)["states_stored"] > result["states_stored"]
