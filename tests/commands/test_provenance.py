"""patch proves that the pan.c it is given is what spin -a makes of the model with the defines
and options it is given (topspin_py/pan/provenance.py), and generate records what it generated
a directory from (topspin_py/pan/inputs.py).

A pan.c from another program than the one whose symmetry patch detects can be reduced by a
group that is no symmetry of its program: tests/models/provenance/define_bug.pml is such a
program, whose error plain pan finds and a pan reduced by the other program's group misses.
Each way a pan.c can come from another program (a define spin had, another value, the model
edited since, a claim file edited since, an option spin had) is refused here, with exit status
2 and a message naming the cause; a pan.c that is the model's, wherever the model and spin
were, is patched, and the reduced pan finds the error plain pan finds.

Every count comes from real spin, gcc and pan.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import MODELS

PROVENANCE = MODELS / "provenance"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "topspin_py.cli", *args], capture_output=True,
                          text=True, cwd=cwd)


def spin(cwd: Path, *args: str) -> None:
    done = subprocess.run(["spin", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def pan(directory: Path, flags: list[str]) -> tuple[int, int]:
    """Compile pan.c in ``directory`` with ``flags`` and run pan: (errors, states stored)."""
    subprocess.run(["gcc", "-O1", "-w", *flags, "-o", "pan", "pan.c"], cwd=directory, check=True)
    out = subprocess.run(["./pan"], cwd=directory, capture_output=True, text=True, timeout=120).stdout
    errors, stored = re.search(r"errors: (\d+)", out), re.search(r"(\d+) states, stored", out)
    assert errors and stored, out
    return int(errors[1]), int(stored[1])


def refused(done: subprocess.CompletedProcess, at_a_file: bool = True) -> str:
    """A refusal: exit status 2, a `file: error:` message (``at_a_file``; a bad command line
    is `error:` alone), no traceback; its stderr."""
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert re.match(r"\S+: error: " if at_a_file else "error: ", done.stderr), done.stderr
    return done.stderr


def untouched(directory: Path, pan_c: str) -> None:
    """Nothing was patched: pan.c is spin's, and there is no backup and no canonicaliser."""
    assert (directory / "pan.c").read_text(encoding="latin-1") == pan_c
    assert not (directory / "pan.c.orig").exists() and not (directory / "topspin_sym.c").exists()


def model_copy(tmp_path: Path, name: str, as_name: str = "m.pml") -> Path:
    target = tmp_path / as_name
    shutil.copy(PROVENANCE / name, target)
    return target


# ------------------------------------------------------------------ the wrong group: refused

def test_a_define_spin_had_and_patch_lacks(tmp_path):
    # spin -DBUG -a, then patch without -DBUG: the group of the program without BUG (the swap
    # of P:0 and P:1) is no symmetry of pan.c's program, whose error plain pan finds.
    model_copy(tmp_path, "define_bug.pml")
    spin(tmp_path, "-DBUG", "-a", "m.pml")
    pan_c = (tmp_path / "pan.c").read_text(encoding="latin-1")
    assert pan(tmp_path, ["-DNOREDUCE"]) == (1, 8)
    err = refused(cli("patch", "pan.c", "--model", "m.pml", "-DNOREDUCE", cwd=tmp_path))
    assert err.startswith("pan.m:33: error: pan.c was made from another program than "
                          "`spin -DNOREDUCE -a m.pml`: they differ first at the statement "
                          "`assert(((_pid!=0)||(count!=1)))` (m.pml:19),"), err
    assert "spin writes instead: " in err and "[assert((count!=0))]" in err
    assert "it was made with -DBUG: pan.c is what `spin -DNOREDUCE -DBUG -a m.pml` writes" in err
    untouched(tmp_path, pan_c)
    # With -DBUG patch reads the program pan.c holds, and its group is trivial.
    done = cli("patch", "pan.c", "--model", "m.pml", "-DNOREDUCE", "-DBUG", cwd=tmp_path)
    assert "m.pml: the symmetry group is trivial" in refused(done, False)
    assert "checked: pan.c, pan.h, pan.m, pan.b, pan.t, pan.p are what `spin -DNOREDUCE -DBUG -a m.pml` " \
           "writes" in done.stdout


def test_a_model_edited_after_spin_a(tmp_path):
    # The model had the asymmetric check when spin -a ran, and was made symmetric since:
    # patch would take the new program's group for pan.c's.
    model = tmp_path / "m.pml"
    text = (PROVENANCE / "define_bug.pml").read_text()
    model.write_text("#define BUG\n" + text)
    spin(tmp_path, "-a", "m.pml")
    pan_c = (tmp_path / "pan.c").read_text(encoding="latin-1")
    assert pan(tmp_path, ["-DNOREDUCE"]) == (1, 8)
    model.write_text(text)
    written = (tmp_path / "pan.h").stat().st_mtime
    os.utime(model, (written + 10, written + 10))
    err = refused(cli("patch", "pan.c", "--model", "m.pml", "-DNOREDUCE", cwd=tmp_path))
    assert "pan.c was made from another program than `spin -DNOREDUCE -a m.pml`" in err
    assert "m.pml was modified after spin -a wrote pan.h" in err
    untouched(tmp_path, pan_c)


def test_another_value_of_a_define(tmp_path):
    model_copy(tmp_path, "counter.pml")
    spin(tmp_path, "-DN=3", "-a", "m.pml")
    pan_c = (tmp_path / "pan.c").read_text(encoding="latin-1")
    err = refused(cli("patch", "pan.c", "--model", "m.pml", "-DN=2", cwd=tmp_path))
    assert "pan.c was made from another program than `spin -DN=2 -a m.pml`" in err
    assert "patch was given -DN=2, which the model uses: was spin -a given another value?" in err
    untouched(tmp_path, pan_c)


def test_a_spin_option_spin_had_and_patch_lacks(tmp_path):
    # spin -o3 (no statement merging) writes another pan.m for counter.pml; given the same
    # option, patch takes the pan.c, and the reduced pan finds plain pan's error.
    model_copy(tmp_path, "counter.pml")
    spin(tmp_path, "-DN=3", "-o3", "-a", "m.pml")
    pan_c = (tmp_path / "pan.c").read_text(encoding="latin-1")
    err = refused(cli("patch", "pan.c", "--model", "m.pml", "-DN=3", cwd=tmp_path))
    assert "it was made with spin's -o3: pan.c is what `spin -DN=3 -o3 -a m.pml` writes" in err
    untouched(tmp_path, pan_c)
    done = cli("patch", "pan.c", "--model", "m.pml", "-DN=3", "--spin", "-o3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "are what `spin -DN=3 -o3 -a m.pml` writes" in done.stdout and "group order 6," in done.stdout
    assert pan(tmp_path, ["-DNOREDUCE", "-DTOPSPIN_SYM"])[0] == pan(tmp_path, ["-DNOREDUCE"])[0] == 1


def test_spin_options_patch_cannot_reproduce_are_refused(tmp_path):
    model_copy(tmp_path, "counter.pml")
    spin(tmp_path, "-DN=3", "-a", "m.pml")
    err = refused(cli("patch", "pan.c", "--model", "m.pml", "-DN=3", "--spin", "-m", cwd=tmp_path), False)
    assert "spin option '-m' is not supported by patch" in err
    err = refused(cli("patch", "pan.c", "--model", "m.pml", "-DN=3", "--spin", "-o6", cwd=tmp_path), False)
    assert "spin -o6 (the old rules for priority tags) is not supported" in err


# ------------------------------------------------------------------------------ claim files

def test_a_claim_file_edited_after_spin_a(tmp_path):
    model_copy(tmp_path, "define_bug.pml")
    claim = model_copy(tmp_path, "count_claim.pml", "claim.pml")
    spin(tmp_path, "-a", "-N", "claim.pml", "m.pml")
    pan_c = (tmp_path / "pan.c").read_text(encoding="latin-1")
    claim.write_text(claim.read_text().replace("count == 2", "count == 1"))
    written = (tmp_path / "pan.h").stat().st_mtime
    os.utime(claim, (written + 10, written + 10))
    err = refused(cli("patch", "pan.c", "--model", "m.pml", cwd=tmp_path))
    assert err.startswith("pan.c: error: pan.c checks a claim that m.pml does not hold: never_0 (from claim.pml)")
    assert "gives other claims (the file changed since?)" in err
    assert "claim.pml was modified after spin -a wrote pan.h" in err
    untouched(tmp_path, pan_c)


def test_a_claim_file_with_a_define_spin_had_and_patch_lacks(tmp_path):
    # The claim file is found and gives pan.c's claims; what differs is the define.
    model_copy(tmp_path, "define_bug.pml")
    model_copy(tmp_path, "count_claim.pml", "claim.pml")
    spin(tmp_path, "-DBUG", "-a", "-N", "claim.pml", "m.pml")
    pan_c = (tmp_path / "pan.c").read_text(encoding="latin-1")
    err = refused(cli("patch", "pan.c", "--model", "m.pml", cwd=tmp_path))
    assert "pan.c was made from another program than `spin -a -N claim.pml m.pml`" in err
    assert "it was made with -DBUG" in err
    untouched(tmp_path, pan_c)


def test_a_claim_file_found_again_or_named(tmp_path):
    # The claim holds for both processes alike: the swap stays (order 2), and the reduced pan
    # finds the violation plain pan finds.
    model_copy(tmp_path, "define_bug.pml")
    model_copy(tmp_path, "count_claim.pml", "claim.pml")
    spin(tmp_path, "-a", "-N", "claim.pml", "m.pml")
    assert pan(tmp_path, [])[0] == 1
    done = cli("patch", "pan.c", "--model", "m.pml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "claims: never_0 (with the never claim of claim.pml, checked against pan.c)" in done.stdout
    assert "are what `spin -a -N claim.pml m.pml` writes" in done.stdout and "group order 2," in done.stdout
    assert pan(tmp_path, ["-DTOPSPIN_SYM"])[0] == 1
    done = cli("patch", "pan.c", "--model", "m.pml", "--spin", "-N claim.pml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "are what `spin -N claim.pml -a m.pml` writes" in done.stdout and "group order 2," in done.stdout


def test_an_ltl_formula_given_with_spin_f(tmp_path):
    model_copy(tmp_path, "counter.pml")
    formula = "<>(count == 3)"
    spin(tmp_path, "-DN=3", "-f", formula, "-a", "m.pml")
    err = refused(cli("patch", "pan.c", "--model", "m.pml", "-DN=3", cwd=tmp_path))
    assert "checks a claim that m.pml does not hold" in err and "spin -f or -F" in err
    done = cli("patch", "pan.c", "--model", "m.pml", "-DN=3", "--spin", f"-f '{formula}'", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "group order 6," in done.stdout


# ------------------------------------------------------------------ what matches: patched

def test_the_control_everything_matches(tmp_path):
    model_copy(tmp_path, "counter.pml")
    spin(tmp_path, "-DN=3", "-a", "m.pml")
    assert pan(tmp_path, ["-DNOREDUCE"])[0] == 1
    done = cli("patch", "pan.c", "--model", "m.pml", "-DN=3", "-DNOREDUCE", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "checked: pan.c, pan.h, pan.m, pan.b, pan.t, pan.p are what `spin -DN=3 -DNOREDUCE -a m.pml` " \
           "writes (file names and line numbers aside)" in done.stdout
    assert "group order 6," in done.stdout
    assert pan(tmp_path, ["-DNOREDUCE", "-DTOPSPIN_SYM"])[0] == 1


def test_file_names_and_line_numbers_are_not_the_program(tmp_path):
    # The model copied elsewhere (a blank in the path), with a comment and blank lines added
    # (every line number moves), spin run from another directory on a relative path: the
    # same program, so patch takes the pan.c with the original model.
    original = model_copy(tmp_path, "counter.pml")
    elsewhere = tmp_path / "other place"
    elsewhere.mkdir()
    (elsewhere / "copy.pml").write_text("/* a copy */\n\n\n" + original.read_text().replace("\n\t", "\n\n\t"))
    build = tmp_path / "build dir"
    build.mkdir()
    spin(build, "-DN=3", "-a", "../other place/copy.pml")
    done = cli("patch", "pan.c", "--model", str(original), "-DN=3", cwd=build)
    assert done.returncode == 0, done.stderr
    assert "group order 6," in done.stdout
    assert pan(build, ["-DTOPSPIN_SYM"])[0] == 1


# ------------------------------------------------------------------ generate's record

def test_generate_records_what_it_generated_from(tmp_path):
    model = model_copy(tmp_path, "counter.pml")
    out = tmp_path / "build"
    done = cli("generate", str(model), "-o", str(out), "-DN=3", "--spin", "-o3")
    assert done.returncode == 0, done.stderr
    record = json.loads((out / ".topspin-py-generate").read_text())
    inputs = record["inputs"]
    assert inputs["model"] == str(model) and inputs["defines"] == ["N=3"] and inputs["spin options"] == ["-o3"]
    assert re.fullmatch(r"[0-9a-f]{64}", inputs["files"][str(model)])
    assert re.fullmatch(r"[0-9a-f]{64}", inputs["preprocessed program"])
    assert inputs["spin version"] == "6.5.2" and record["strategy"] == "refine" and record["topspin-py"]
    # SPIN's pan.c is kept, as patch keeps it: generate's directory can be patched again.
    assert "topspin-py" not in (out / "pan.c.orig").read_text(encoding="latin-1")


def test_generate_again_says_what_changed(tmp_path):
    model = model_copy(tmp_path, "counter.pml")
    out = tmp_path / "build"
    assert cli("generate", str(model), "-o", str(out), "-DN=3").returncode == 0
    again = cli("generate", str(model), "-o", str(out), "-DN=3")
    assert again.returncode == 0 and "generated before" not in again.stdout, again.stderr
    model.write_text(model.read_text().replace("mine = 1", "mine = 2"))
    again = cli("generate", str(model), "-o", str(out), "-DN=4")
    assert again.returncode == 0, again.stderr
    assert (f"note: {out} was generated before by `topspin-py generate {model} -o {out} -DN=3`; since then "
            f"{model} was edited; the -D defines were -DN=3, now -DN=4") in again.stdout


def test_patch_of_a_directory_generate_wrote(tmp_path):
    # Up to date: patched again from generate's pan.c.orig.  Stale: refused, and generate's
    # record says what changed since.
    model = model_copy(tmp_path, "counter.pml")
    out = tmp_path / "build"
    assert cli("generate", str(model), "-o", str(out), "-DN=3").returncode == 0
    done = cli("patch", str(out / "pan.c"), "--model", str(model), "-DN=3")
    assert done.returncode == 0, done.stderr
    assert "was patched before: patching SPIN's pan.c (pan.c.orig) again" in done.stdout
    model.write_text(model.read_text().replace("mine = 1", "mine = 2"))
    err = refused(cli("patch", str(out / "pan.c"), "--model", str(model), "-DN=3"))
    assert f"{out} was written by `topspin-py generate {model} -o {out} -DN=3`; since then {model} was edited" in err
    assert f"hint: write {out} again for the model as it is now, with `topspin-py generate {model} -o {out} " \
           "-DN=3`" in err


def test_patch_knows_the_programs_generate_gives_spin(tmp_path):
    # generate gives spin the program with proctype copies merged, or the desugared program
    # of the ref/public extension (with -o1): patch recognises generate's pan.c as either.
    for model, what in ((MODELS / "copies_active.pml", "with its proctype copies merged"),
                        (MODELS / "extension" / "ref_token.pml", "the desugared program of")):
        out = tmp_path / model.stem
        assert cli("generate", str(model), "-o", str(out)).returncode == 0
        done = cli("patch", str(out / "pan.c"), "--model", str(model))
        assert done.returncode == 0, done.stderr
        assert what in done.stdout and "group order 6," in done.stdout
