"""topspin-py generate and patch: the reduced pan for users who build it themselves."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from model_files import built_pan_errors


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "topspin_py.cli", *args], capture_output=True, text=True)


def build_and_run(directory: Path, flags: list[str], pan_args: Sequence[str] = ()) -> tuple[int, int]:
    subprocess.run(["gcc", "-O1", "-w", *flags, "-o", "pan", "pan.c"], cwd=directory, check=True)
    out = subprocess.run(["./pan", *pan_args], cwd=directory, capture_output=True, text=True).stdout
    stored, transitions = re.search(r"(\d+) states, stored", out), re.search(r"(\d+) transitions", out)
    assert stored and transitions, out
    return int(stored.group(1)), int(transitions.group(1))


def test_generate_writes_a_pan_that_stores_one_state_per_orbit(corpus, tmp_path):
    out = tmp_path / "build"
    proc = cli("generate", str(corpus / "topspin/email3.p"), "-o", str(out), "-DSAFETY", "-DNOREDUCE")
    assert proc.returncode == 0, proc.stderr
    assert "gcc -O1 -DSAFETY -DNOREDUCE -DTOPSPIN_SYM -o pan pan.c" in proc.stdout
    assert {"pan.c", "pan.h", "topspin_sym.c", "topspin_sym.h"} <= {p.name for p in out.iterdir()}
    assert build_and_run(out, ["-DSAFETY", "-DNOREDUCE", "-DTOPSPIN_SYM"], ["-m100000"]) == (3902, 11951)
    # Without the macro the patched pan.c is SPIN's own verifier.
    assert build_and_run(out, ["-DSAFETY", "-DNOREDUCE"], ["-m100000"]) == (23256, 71006)
    # It never writes into a directory that holds files it did not write.
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    again = cli("generate", str(corpus / "topspin/email3.p"), "-o", str(foreign))
    assert again.returncode == 2 and "generate did not write it" in again.stderr
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]


def test_patch_keeps_a_backup_and_patches_again(corpus, tmp_path):
    shutil.copy(corpus / "topspin/mutex5.p", tmp_path / "m.pml")
    subprocess.run(["spin", "-a", "m.pml"], cwd=tmp_path, check=True, capture_output=True)
    original = (tmp_path / "pan.c").read_text(encoding="latin-1")
    proc = cli("patch", str(tmp_path / "pan.c"), "--model", str(tmp_path / "m.pml"), "-DSAFETY")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "pan.c.orig").read_text(encoding="latin-1") == original
    assert build_and_run(tmp_path, ["-DSAFETY", "-DNOREDUCE", "-DTOPSPIN_SYM"]) == (12, 47)
    # Patched twice, it patches SPIN's pan.c again (pan.c.orig stays SPIN's).
    patched = (tmp_path / "pan.c").read_text(encoding="latin-1")
    again = cli("patch", str(tmp_path / "pan.c"), "--model", str(tmp_path / "m.pml"), "-DSAFETY")
    assert again.returncode == 0 and "was patched before" in again.stdout, again.stderr
    assert (tmp_path / "pan.c.orig").read_text(encoding="latin-1") == original
    assert (tmp_path / "pan.c").read_text(encoding="latin-1") == patched
    assert build_and_run(tmp_path, ["-DSAFETY", "-DNOREDUCE", "-DTOPSPIN_SYM"]) == (12, 47)


def test_breadth_first_builds_get_the_chains_of_inits_atomic_start_up(corpus, tmp_path):
    # A depth-first pan never stores a state inside init's atomic start-up, so the code
    # generated for one has no chain for those states and refuses a -DBFS build; generated
    # with -DBFS it reduces them too.  mutex5 starts its five users in one atomic block: a
    # breadth-first pan also stores the four states between two runs, each the only one of
    # its orbit (the users started so far are all in N), on top of the 12 orbits.
    model = corpus / "topspin/mutex5.p"
    depth_first = tmp_path / "dfs"
    assert cli("generate", str(model), "-o", str(depth_first), "-DSAFETY", "-DNOREDUCE").returncode == 0
    refused = subprocess.run(["gcc", "-w", "-DSAFETY", "-DNOREDUCE", "-DBFS", "-DTOPSPIN_SYM", "-o", "pan", "pan.c"],
                             cwd=depth_first, capture_output=True, text=True)
    assert refused.returncode != 0 and "generated for a depth-first search" in refused.stderr

    breadth_first = tmp_path / "bfs"
    proc = cli("generate", str(model), "-o", str(breadth_first), "-DSAFETY", "-DNOREDUCE", "-DBFS")
    assert proc.returncode == 0, proc.stderr
    plain_dfs, _ = build_and_run(breadth_first, ["-DSAFETY", "-DNOREDUCE"])
    plain_bfs, _ = build_and_run(breadth_first, ["-DSAFETY", "-DNOREDUCE", "-DBFS"])
    reduced_bfs, _ = build_and_run(breadth_first, ["-DSAFETY", "-DNOREDUCE", "-DBFS", "-DTOPSPIN_SYM"])
    assert plain_bfs - plain_dfs == 4
    assert reduced_bfs == 12 + (plain_bfs - plain_dfs)


# --- patch and a never claim given to spin with -N ---------------------------------------------

# Three identical processes, symmetric alone; the claim, in a file of its own, breaks when
# x == 1, which only P:1 sets.  Only the swap of P:0 and P:2 respects it (group order 2).
# With all of S3 the reduced search takes the state after P:1's step for the one after P:0's
# and never sees x == 1 (what patch did before it looked at pan.c's claims).
SYMMETRIC_MODEL = "byte x = 255;\nactive [3] proctype P() { end: do :: x = _pid od }\n"
CLAIM_ON_PID_1 = "never { do :: x == 1 -> break :: else od }\n"


def spin_with_separate_claim(directory: Path) -> None:
    (directory / "m.pml").write_text(SYMMETRIC_MODEL)
    (directory / "claim.pml").write_text(CLAIM_ON_PID_1)
    subprocess.run(["spin", "-a", "-N", "claim.pml", "m.pml"], cwd=directory, check=True,
                   capture_output=True)


def test_patch_restricts_the_group_to_a_claim_given_with_N(tmp_path):
    spin_with_separate_claim(tmp_path)
    assert built_pan_errors(tmp_path, []) == 1          # the reference: plain pan finds it
    proc = cli("patch", str(tmp_path / "pan.c"), "--model", str(tmp_path / "m.pml"))
    assert proc.returncode == 0, proc.stderr
    assert f"with the never claim of {tmp_path / 'claim.pml'}, checked against pan.c" in proc.stdout
    assert "group order 2," in proc.stdout
    assert built_pan_errors(tmp_path, ["-DTOPSPIN_SYM"]) == 1


@pytest.mark.parametrize("change,message", [
    ("remove", "its text was not found"),
    ("edit", "gives other claims"),
])
def test_patch_refuses_a_claim_it_cannot_check(tmp_path, change, message):
    spin_with_separate_claim(tmp_path)
    if change == "remove":
        (tmp_path / "claim.pml").unlink()
    else:
        (tmp_path / "claim.pml").write_text(CLAIM_ON_PID_1.replace("x == 1", "x == 2"))
    original = (tmp_path / "pan.c").read_text(encoding="latin-1")
    proc = cli("patch", str(tmp_path / "pan.c"), "--model", str(tmp_path / "m.pml"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "checks a claim that" in proc.stderr and "never_0 (from claim.pml)" in proc.stderr
    assert message in proc.stderr
    assert (tmp_path / "pan.c").read_text(encoding="latin-1") == original   # nothing patched
    assert not (tmp_path / "pan.c.orig").exists()


def test_patch_with_the_models_own_claim(tmp_path):
    # The claim inside the model: pan.c's claims are the model's, used as they are.
    (tmp_path / "m.pml").write_text(SYMMETRIC_MODEL + CLAIM_ON_PID_1)
    subprocess.run(["spin", "-a", "m.pml"], cwd=tmp_path, check=True, capture_output=True)
    proc = cli("patch", str(tmp_path / "pan.c"), "--model", str(tmp_path / "m.pml"))
    assert proc.returncode == 0, proc.stderr
    assert "claims: never_0\n" in proc.stdout and "group order 2," in proc.stdout
    assert built_pan_errors(tmp_path, ["-DTOPSPIN_SYM"]) == 1


def test_patch_under_noclaim_still_needs_the_claim_file(tmp_path):
    # pan built with -DNOCLAIM checks no claim, so the whole S3 is the group (plain pan without
    # the claim finds no error, nor does the reduced one).  But pan.c must still be shown to be
    # what spin -a writes for the model and the claim file: with the file gone, nothing can
    # show it (the claim comes first in pan's numbering, so every table differs from the
    # model's own), and patch refuses, as it refuses any pan.c it cannot reproduce.
    spin_with_separate_claim(tmp_path)
    claim = (tmp_path / "claim.pml").read_text()
    (tmp_path / "claim.pml").unlink()
    assert built_pan_errors(tmp_path, ["-DNOCLAIM"]) == 0
    proc = cli("patch", str(tmp_path / "pan.c"), "--model", str(tmp_path / "m.pml"), "-DNOCLAIM")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "its text was not found" in proc.stderr and "without -N" in proc.stderr
    (tmp_path / "claim.pml").write_text(claim)
    proc = cli("patch", str(tmp_path / "pan.c"), "--model", str(tmp_path / "m.pml"), "-DNOCLAIM")
    assert proc.returncode == 0, proc.stderr
    assert "claims: none checked (-DNOCLAIM)" in proc.stdout and "group order 6," in proc.stdout
    assert built_pan_errors(tmp_path, ["-DNOCLAIM", "-DTOPSPIN_SYM"]) == 0


def test_a_group_found_under_noclaim_refuses_a_build_that_checks_the_claim(tmp_path):
    # The claim is the model's own: under -DNOCLAIM the whole S3 is the group, which breaks the
    # claim (only P:1 sets x to 1).  A pan built without -DNOCLAIM checks the claim: the
    # reduced one would miss plain pan's violation, so the canonicaliser refuses that build.
    (tmp_path / "m.pml").write_text(SYMMETRIC_MODEL + CLAIM_ON_PID_1)
    subprocess.run(["spin", "-a", "m.pml"], cwd=tmp_path, check=True, capture_output=True)
    assert built_pan_errors(tmp_path, []) == 1
    proc = cli("patch", str(tmp_path / "pan.c"), "--model", str(tmp_path / "m.pml"), "-DNOCLAIM")
    assert proc.returncode == 0 and "group order 6," in proc.stdout, proc.stderr
    build = subprocess.run(["gcc", "-w", "-DTOPSPIN_SYM", "-o", "pan", "pan.c"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert build.returncode != 0 and "generated for a pan built with -DNOCLAIM" in build.stderr
    assert built_pan_errors(tmp_path, ["-DNOCLAIM", "-DTOPSPIN_SYM"]) == 0   # as plain pan under -DNOCLAIM
    assert built_pan_errors(tmp_path, []) == 1                               # SPIN's verifier, as spliced


def test_generate_puts_the_claim_of_spins_N_FILE_into_pan_c(tmp_path):
    # spin -N FILE adds the never claim in FILE; generate's pan.c must check it as plain
    # SPIN's does (with -DBUG two users can be in the critical section: the claim's end).
    models = Path(__file__).resolve().parents[1] / "models"
    model, claim = models / "pan_options.pml", models / "claims" / "mutual_exclusion.pml"
    plain = tmp_path / "plain"
    plain.mkdir()
    subprocess.run(["spin", "-a", "-DBUG", "-N", str(claim), str(model)], cwd=plain, check=True,
                   capture_output=True)
    expected = built_pan_errors(plain, ["-DBUG"])
    assert expected == 1
    out = tmp_path / "gen"
    proc = cli("generate", str(model), "-o", str(out), "-DBUG", "--spin", "-N", "--spin", str(claim))
    assert proc.returncode == 0, proc.stderr
    assert "never_0" in (out / "pan.c").read_text(encoding="latin-1")
    assert built_pan_errors(out, ["-DBUG", "-DTOPSPIN_SYM"]) == expected
