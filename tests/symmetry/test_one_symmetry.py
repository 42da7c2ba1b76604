"""One symmetry, carried whole from detection to the C.

Symmetry detection reads the model as the search checks it (reduce.search_context: the claim
pan checks, accept labels only for a cycle search) and infers its types once; the group it
returns carries that model and those types (symmetry.detect.Group), and the layout, the
canonicaliser, the lasso's second canonicaliser, generate and patch read them from there.
A stage that inferred the types again, on another copy of the model, could rename in the C
what the validity check read as data (tests/models/soundness/ltl_other_formula.pml is the
model where that gave a wrong "no errors").
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MODELS

from topspin_py.cli import main
from topspin_py.symmetry import inference as types_module
from topspin_py.verify import VerifyOptions, verify


@pytest.fixture
def inferences(monkeypatch) -> list[int]:
    """Every call of types.infer_types from now on, wherever the module that makes it imported
    it from: the ids of the models it was asked about."""
    calls: list[int] = []
    real = types_module.infer_types
    # Every module that calls it is imported first: one imported later (detection is imported
    # lazily) would bind the counter of the test that imported it, and keep it after that
    # test's monkeypatch is undone.
    importlib.import_module("topspin_py.symmetry.detect")

    def counted(model):
        calls.append(id(model))
        return real(model)
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("topspin_py") and getattr(module, "infer_types", None) is real:
            monkeypatch.setattr(module, "infer_types", counted)
    return calls


def test_type_inference_runs_once_per_verify(tmp_path, inferences):
    # sorted gives no group element, so the cycle pan closes up to a rotation is unrolled with
    # a second canonicaliser (refine's): it too is written from the group's own types.
    shutil.copy(MODELS / "lasso_ring.pml", tmp_path / "lasso_ring.pml")
    result = verify(tmp_path / "lasso_ring.pml", VerifyOptions(strategy="sorted", pan_args=("-a",),
                                                               optimisation="-O0", compare=True))
    assert result.group_order == 3 and result.errors == 1
    [lasso] = result.lassos
    assert lasso["outcome"] == "unrolled"
    assert result.plain is not None   # --compare's plain run infers nothing
    assert len(inferences) == 1


def test_type_inference_runs_once_per_generate_and_patch(tmp_path, inferences):
    model = tmp_path / "lasso_ring.pml"
    shutil.copy(MODELS / "lasso_ring.pml", model)
    assert main(["generate", str(model), "-o", str(tmp_path / "gen")]) == 0
    assert len(inferences) == 1
    inferences.clear()
    own = tmp_path / "own"
    own.mkdir()
    subprocess.run(["spin", "-a", str(model)], cwd=own, check=True, capture_output=True)
    assert main(["patch", str(own / "pan.c"), "--model", str(model)]) == 0
    assert len(inferences) == 1


def test_the_canonicaliser_renames_what_detection_read_as_pids_only(tmp_path):
    # With the search of `tame`, v is data (the other formula, which ties it to owner and so
    # to the pids, is not checked): the canonicaliser the verify writes leaves v alone, and so finds plain
    # SPIN's assertion violation.
    name = "ltl_other_formula.pml"
    shutil.copy(MODELS / "soundness" / name, tmp_path / name)
    keep = tmp_path / "keep"
    result = verify(tmp_path / name, VerifyOptions(defines=("SAFETY", "NOREDUCE"), pan_args=("-N", "tame"),
                                                   keep_dir=keep, optimisation="-O0"))
    assert result.group_order == 2 and result.errors == 1
    canonicaliser = (keep / "topspin_sym.c").read_text()
    assert "ts_dst->owner = ts_pid(P, ts_dst->owner)" in canonicaliser   # owner = _pid: a pid
    assert "ts_dst->v " not in canonicaliser and "ts_orig.v," not in canonicaliser


def test_a_claim_named_that_the_model_lacks_is_refused_before_spin_runs_gcc(tmp_path, capsys):
    name = "ltl_other_formula.pml"
    shutil.copy(MODELS / "soundness" / name, tmp_path / name)
    status = main(["verify", "--keep", str(tmp_path / "keep"), str(tmp_path / name), "-N", "tmae"])
    err = capsys.readouterr().err
    assert status == 2
    assert "no claim named 'tmae'" in err and "tame, watched" in err
    assert not (tmp_path / "keep" / "pan").exists()   # nothing was compiled
    assert main(["detect", "-N", "tmae", str(tmp_path / name)]) == 2


def test_detect_reads_the_search_of_one_claim(tmp_path, capsys):
    name = "ltl_other_formula.pml"
    shutil.copy(MODELS / "soundness" / name, tmp_path / name)
    assert main(["detect", str(tmp_path / name)]) == 0
    assert "group order: 1" in capsys.readouterr().out   # watched ties v to the pids
    assert main(["detect", "-N", "tame", str(tmp_path / name)]) == 0
    assert "group order: 2" in capsys.readouterr().out


def _claims_of(path: Path) -> list[str]:
    from topspin_py.promela import load_model

    return [name for _, name in load_model(path).claim_names()]


def test_claim_names_are_pans_and_stay_when_claims_are_left_out(tmp_path):
    # spin numbers unnamed claims among all of them: never_0, ltl_0 ..., never claims first.
    model = tmp_path / "m.pml"
    model.write_text("byte x;\nactive proctype P() { x = 1 }\n"
                     "ltl { [] (x != 5) }\nnever { do :: x == 2 -> break :: else od }\n"
                     "never two { do :: x == 3 -> break :: else od }\nltl { [] (x != 6) }\n")
    assert _claims_of(model) == ["never_0", "two", "ltl_0", "ltl_1"]
    from topspin_py.promela import load_model

    kept = load_model(model).keeping_claim("ltl_1")
    assert kept.checked_claim_names() == ("ltl_1",) and kept.checked_ltl_names() == ("ltl_1",)
    assert kept.claims_left_out == ("never_0", "two", "ltl_0")
    assert [unit.text for unit in kept.ltl] == ["[] (x != 6)"]
