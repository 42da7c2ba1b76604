"""SPIN's conventions: trails, pan's flags as SPIN users write them, spin's own
options and $CC/$CFLAGS, the depth limit, read-only directories.

The reference is plain SPIN: ``spin -run`` on a copy of the same model, its verdict, counts,
trail names and depths read from its own output with the regular expressions below (not with
the parser under test).  Every model is tiny: a verify run costs about two seconds.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MODELS, REPO
from small_models import ASSERTION, COUNTER

from topspin_py.verify import VerifyOptions, verify

# Two ltl formulas: `small` holds (x never exceeds 4), `below3` does not (x reaches 3).
# Two processes that can terminate: no symmetry (SPIN removes them in reverse pid order).
TWO_FORMULAS = """
byte x;
active [2] proctype Inc() { do :: x < 4 -> x++ :: x >= 3 -> break od }
ltl small { [] (x <= 4) }
ltl below3 { [] (x < 3) }
"""

# DFS takes `n++` first: it dives to the depth limit before it backtracks to the
# assertion at n == 5 (depth 11), and a search deep enough to reach n == 15000 meets the other
# assertion first (depth 30001).  pan -m10000 finds the shallow one after reaching its limit.
TWO_ASSERTIONS = """
short n;
active proctype P() {
	do
	:: n < 20000 -> n++
	:: n == 5 -> assert(false)
	:: n == 15000 -> assert(false)
	:: n >= 20000 -> break
	od
}
"""

# Errors at depths 41, then shorter: pan -i shortens the trail in several steps.
SHORTENING = """
byte x;
active proctype P() {
	do
	:: x < 30 -> x++
	:: x > 3 -> assert(x != 7 && x != 20)
	od
}
"""

# Three processes that toggle their own bit forever: symmetric (group order 6).
TOGGLES = """
byte c[3];
active [3] proctype P() { end: do :: c[_pid] = 1 - c[_pid] od }
"""

# Statement merging (spin's default, turned off by -o3) changes the counts.
MERGEABLE = """
byte g;
active [2] proctype P() { byte y; do :: y < 3 -> y++; y++; g++ :: else -> break od }
"""

NON_PROGRESS = """
byte x;
active proctype P() { do :: x < 3 -> x++; progress: skip :: x == 3 -> x = 3 od }
"""


def write(directory: Path, text: str, name: str = "m.pml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    model = directory / name
    model.write_text(text)
    return model


def topspin(*args, cwd: Path = REPO, env: dict | None = None, prefix=()) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ if env is None else env)
    environment["PYTHONPATH"] = str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")
    return subprocess.run([*prefix, sys.executable, "-m", "topspin_py.cli", *map(str, args)], cwd=cwd,
                          env=environment, capture_output=True, text=True, timeout=600)


def spin_run(text: str, directory: Path, *args: str) -> dict:
    """Plain ``spin [args] m.pml`` (args hold -run) in a directory of its own: the reference."""
    model = write(directory, text)
    run = subprocess.run(["spin", *args, model.name], cwd=directory, capture_output=True,
                         text=True, timeout=600)
    out = run.stdout + run.stderr
    summary = re.search(r"depth reached (\d+), errors: (\d+)", out)
    assert summary, out
    states = re.search(r"^\s*(\d+) states, stored", out, re.M)
    transitions = re.search(r"^\s*(\d+) transitions", out, re.M)
    assert states and transitions, out
    return {
        "output": out,
        "errors": int(summary.group(2)),
        "states": int(states.group(1)),
        "transitions": int(transitions.group(1)),
        "trails": sorted(p.name for p in directory.glob("*trail")),
        "depth_limit_hit": "max search depth too small" in out,
    }


def pan_commands(stderr: str) -> list[str]:
    """The pan runs --verbose shows, in order."""
    return re.findall(r"^\$ \./pan(.*)$", stderr, re.M)


# --- trails -------------------------------------------------------------------------------

def test_trail_is_pans_own_name_and_the_next_run_replaces_it(tmp_path):
    reference = spin_run(ASSERTION, tmp_path / "spin", "-run")
    assert reference["errors"] == 1 and reference["trails"] == ["m.pml.trail"]

    model = write(tmp_path / "ours", ASSERTION)
    first = topspin("verify", "m.pml", cwd=model.parent)
    second = topspin("verify", "m.pml", cwd=model.parent)
    assert (first.returncode, second.returncode) == (1, 1), second.stderr
    # One trail, pan's name, as spin -run leaves it; the second run replaced the first's.
    assert sorted(p.name for p in model.parent.glob("*trail")) == reference["trails"]
    assert "replaced" not in first.stdout
    assert re.search(r"^trail note:\s+replaced the previous m\.pml\.trail$", second.stdout, re.M)
    assert re.search(r"^replay:\s+spin -t -p m\.pml$", second.stdout, re.M)
    replay = subprocess.run(["spin", "-t", "-p", "m.pml"], cwd=model.parent, capture_output=True, text=True)
    assert "assertion violated" in replay.stdout
    # A run without an error leaves the trail, as pan does, and says it is an earlier run's.
    model.write_text(ASSERTION.replace("assert(x != 2)", "assert(x != 3)"))
    clean = topspin("verify", "m.pml", cwd=model.parent)
    assert clean.returncode == 0, clean.stderr
    assert re.search(r"^trail note:\s+m\.pml\.trail is an earlier run's", clean.stdout, re.M)


def test_iterative_shortening_leaves_one_trail_the_shortest(tmp_path):
    # spin -run -i (which compiles with -DREACH): pan says "reducing search depth to N" after
    # each shorter error, N = depth + 1; the last is the shortest error.
    reference = spin_run(SHORTENING, tmp_path / "spin", "-run", "-i")
    reductions = re.findall(r"reducing search depth to (\d+)", reference["output"])
    assert len(reductions) >= 2, reference["output"]   # several improvements, or the test proves nothing
    shortest = int(reductions[-1]) - 1
    at_depth = re.search(r"\(at depth (\d+)\)", reference["output"])
    assert at_depth, reference["output"]
    first = int(at_depth.group(1))
    assert shortest < first

    model = write(tmp_path / "ours", SHORTENING)
    result = verify(model, VerifyOptions(strategy="none", pan_args=("-i",)))
    assert "REACH" in result.defines
    assert [Path(t).name for t in result.trails] == ["m.pml.trail"]
    assert sorted(p.name for p in model.parent.glob("*trail")) == ["m.pml.trail"]
    assert result.trail_depth == shortest and result.errors == reference["errors"]
    summary = result.summary()
    assert re.search(rf"^shortest:\s+error at depth {shortest} ", summary, re.M)
    # The trail on disk is the shortest one: spin replays it in depth+1 steps.
    assert result.trail is not None
    steps = [line for line in Path(result.trail).read_text().splitlines() if line[:1].isdigit()]
    assert len(steps) == shortest + 1


# --- pan's flags as SPIN users write them ----------------------------------------------------

@pytest.mark.parametrize("form", [
    ["m.pml", "-a", "-N", "below3", "-m100000", "-c0", "-w20", "-DNOREDUCE"],
    ["-run", "-a", "-DNOREDUCE", "-ltl", "below3", "-m100000", "-c0", "-w20", "m.pml"],
    ["--pan", "-N", "below3", "m.pml", "--pan", "-a -c0", "-m100000", "-w20", "-D", "NOREDUCE"],
])
def test_pan_flags_as_spin_users_write_them(tmp_path, form):
    reference = spin_run(TWO_FORMULAS, tmp_path / "spin", "-run", "-a", "-DNOREDUCE", "-ltl", "below3",
                         "-m100000", "-c0", "-w20")
    assert reference["errors"] > 1   # -c0: pan went on past the first error
    model = write(tmp_path / "ours", TWO_FORMULAS)
    run = topspin("verify", "--strategy", "none", "--json", *form, cwd=model.parent)
    assert run.returncode == 1, run.stderr
    result = json.loads(run.stdout)
    assert result["claim"] == "ltl below3" and result["search"].startswith("acceptance")
    assert (result["states_stored"], result["transitions"], result["errors"]) == \
        (reference["states"], reference["transitions"], reference["errors"])
    assert result["depth_limit"] == 100000 and "NOREDUCE" in result["defines"]
    assert {"-a", "-c0", "-w20"} <= set(result["pan_args"])


def test_l_compiles_with_np_as_spin_run_does(tmp_path):
    reference = spin_run(NON_PROGRESS, tmp_path / "spin", "-run", "-l")
    assert reference["errors"] == 1   # x == 3 -> x = 3 loops without progress
    model = write(tmp_path / "ours", NON_PROGRESS)
    run = topspin("verify", "m.pml", "-l", "--json", cwd=model.parent)
    assert run.returncode == 1, run.stderr
    result = json.loads(run.stdout)
    assert "NP" in result["defines"] and result["claim"].startswith("non-progress")
    assert (result["states_stored"], result["errors"]) == (reference["states"], reference["errors"])


def test_unknown_spin_run_feature_is_refused_clearly(tmp_path):
    model = write(tmp_path, ASSERTION)
    run = topspin("verify", "-run", "-swarm4", "m.pml", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "-swarm4" in run.stderr and "not offer" in run.stderr
    assert not list(tmp_path.glob("*trail")) and model.is_file()


# --- spin's own options, $CC and $CFLAGS ---------------------------------------------------

def test_spin_generation_option_passes_through(tmp_path):
    merged = spin_run(MERGEABLE, tmp_path / "merged", "-run")
    unmerged = spin_run(MERGEABLE, tmp_path / "unmerged", "-o3", "-run")
    assert merged["states"] != unmerged["states"]   # -o3 must make a difference here
    model = write(tmp_path / "ours", MERGEABLE)
    for form in (["-o3", "-run", "m.pml"], ["m.pml", "-o3"], ["--spin", "-o3", "m.pml"]):
        run = topspin("verify", "--strategy", "none", "--json", *form, cwd=model.parent)
        assert run.returncode == 0, run.stderr
        result = json.loads(run.stdout)
        assert (result["states_stored"], result["transitions"]) == (unmerged["states"], unmerged["transitions"])


def test_include_directory_reaches_both_preprocessors(tmp_path):
    # spin -E-IDIR hands -IDIR to its preprocessor; our front end must read the same header.
    text = '#include "limit.h"\nbyte x;\nactive proctype P() { do :: x < LIMIT -> x++ :: else -> break od }\n'
    for side in ("spin", "ours"):
        (tmp_path / side / "headers").mkdir(parents=True)
        (tmp_path / side / "headers" / "limit.h").write_text("#define LIMIT 7\n")
    reference = spin_run(text, tmp_path / "spin", "-E-Iheaders", "-run")
    assert reference["states"] == 2 * 7 + 3   # the counter of small_models.COUNTER, to LIMIT
    model = write(tmp_path / "ours", text)
    run = topspin("verify", "m.pml", "-E-Iheaders", "--json", cwd=model.parent)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["states_stored"] == reference["states"]
    without = topspin("verify", "m.pml", cwd=model.parent)
    assert without.returncode == 2 and "limit.h" in without.stderr and "Traceback" not in without.stderr


def test_formula_claim_is_seen_by_the_symmetry(tmp_path):
    # The claim from -f names c[0]: swapping process 0 with another would not preserve it, so
    # the group must shrink to what fixes process 0, and the counts stay exact.  Without the
    # formula the three processes are interchangeable.
    formula = "<> (c[0] == 2)"   # never true: pan searches the whole product
    reference = spin_run(TOGGLES, tmp_path / "spin", "-f", formula, "-run")
    assert reference["errors"] == 0 and "never_0" in reference["output"]
    model = write(tmp_path / "ours", TOGGLES)
    plain = verify(model, VerifyOptions())
    assert plain.group_order == 6
    run = topspin("verify", "--spin", "-f", formula, "m.pml", "--json", cwd=model.parent)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["group_order"] == 2   # the CLI's --spin -f FORMULA: the same
    claimed = verify(model, VerifyOptions(spin_args=("-f", formula)))
    assert claimed.claim == "never claim never_0"
    assert claimed.group_order == 2   # only P:1 <-> P:2, which fixes c[0]
    assert claimed.errors == reference["errors"] == 0
    # Reduced by the swap of processes 1 and 2 only: the states with c[1] != c[2] pair up.
    assert claimed.states_stored < reference["states"]
    same = verify(model, VerifyOptions(strategy="none", spin_args=("-f", formula)))
    assert (same.states_stored, same.transitions) == (reference["states"], reference["transitions"])


def test_formula_claim_is_numbered_as_spin_numbers_it(tmp_path):
    # spin adds the -F claim after the model's own never claim (pan.t: never_0 is the model's,
    # never_1 the formula's) and pan checks never_0 by default: the symmetric claim, so all
    # three processes stay interchangeable.  With -N never_1 pan checks the formula's claim,
    # which names c[0]: the group must shrink to the swap of processes 1 and 2.
    # The formula comes from a file (-F), given relative to where verify runs.
    text = TOGGLES + "never { do :: c[0] + c[1] + c[2] < 4 od }\n"
    (tmp_path / "ours").mkdir()
    (tmp_path / "ours" / "f.ltl").write_text("<> (c[0] == 2)\n")
    plain = write(tmp_path / "spin", text)
    spin = subprocess.run(["spin", "-F", str(tmp_path / "ours" / "f.ltl"), "-a", plain.name],
                          cwd=plain.parent, capture_output=True, text=True)
    assert "defaults to -N never_0" in spin.stdout
    pan_t = (plain.parent / "pan.t").read_text()
    never_0 = re.search(r"/\* proctype \d+: never_0 \*/(.*?)(?=/\* proctype|\Z)", pan_t, re.S)
    assert never_0, pan_t
    model_claim = never_0.group(1)
    assert "c[0]+c[1]" in model_claim   # never_0 is the model's own claim
    model = write(tmp_path / "ours", text)
    default = json.loads(topspin("verify", "-F", "f.ltl", "m.pml", "--json", cwd=model.parent).stdout)
    assert default["claim"] == "never claim never_0" and default["group_order"] == 6
    chosen = topspin("verify", "-F", "f.ltl", "m.pml", "-N", "never_1", "--json", cwd=model.parent)
    assert chosen.returncode == 0, chosen.stderr
    result = json.loads(chosen.stdout)
    assert result["claim"] == "never claim never_1" and result["group_order"] == 2


# spin's -N FILE: tests/models/claim_file.pml and its never claim in a file of its own.
CLAIM_MODEL = MODELS / "claim_file.pml"
CLAIM_FILE = MODELS / "claims" / "user1_enters.pml"


def claim_file_copy(directory: Path) -> tuple[Path, Path]:
    """The model and claims/user1_enters.pml beside it, in ``directory``."""
    (directory / "claims").mkdir(parents=True)
    shutil.copyfile(CLAIM_MODEL, directory / "m.pml")
    shutil.copyfile(CLAIM_FILE, directory / "claims" / "c.pml")
    return directory / "m.pml", directory / "claims" / "c.pml"


def plain_spin_with_claim_file(directory: Path, *defines: str, pan=()) -> dict:
    """``spin -a -N claims/c.pml m.pml; gcc; ./pan``: the reference."""
    model, claim = claim_file_copy(directory)
    subprocess.run(["spin", *defines, "-a", "-N", "claims/c.pml", "m.pml"], cwd=directory, check=True,
                   capture_output=True)
    subprocess.run(["gcc", "-O0", "-o", "pan", "pan.c"], cwd=directory, check=True, capture_output=True)
    out = subprocess.run(["./pan", *pan], cwd=directory, capture_output=True, text=True).stdout
    errors = re.search(r"errors: (\d+)", out)
    assert errors, out
    return {"errors": int(errors.group(1)), "output": out}


@pytest.mark.parametrize("form", [
    ["-N", "claims/c.pml", "m.pml"],                 # spin's habit: spin -a -N claim.pml model.pml
    ["m.pml", "-N", "claims/c.pml"],
    ["-N", "claims/c.pml", "-run", "m.pml"],         # before -run: spin's own option
    ["--spin", "-N claims/c.pml", "m.pml"],
])
def test_claim_file_is_added_as_spin_adds_it(tmp_path, form):
    reference = plain_spin_with_claim_file(tmp_path / "spin")
    assert reference["errors"] == 1 and "end state in claim reached" in reference["output"]
    model, _ = claim_file_copy(tmp_path / "ours")
    alone = json.loads(topspin("verify", "--json", "m.pml", cwd=model.parent).stdout)
    assert alone["errors"] == 0 and alone["group_order"] == 6 and alone["claim"] is None
    run = topspin("verify", "--json", *form, cwd=model.parent)
    assert run.returncode == 1, run.stderr
    result = json.loads(run.stdout)
    # The claim names in_cs[1]: the group keeps only the swap of pids 0 and 2.
    assert result["group_order"] == 2 and result["errors"] == reference["errors"]
    assert result["claim"] == "never claim never_0 (spin -N claims/c.pml)"
    assert result["replay_command"] == "spin -N claims/c.pml -t -p m.pml"
    replay = subprocess.run(shlex.split(result["replay_command"]), cwd=model.parent, capture_output=True,
                            text=True, timeout=60)
    assert replay.returncode == 0 and "in_cs[1] = 1" in replay.stdout
    assert "(never_0:1) claims/c.pml" in replay.stdout   # the claim's steps, from its file


def test_claim_file_replays_from_another_directory(tmp_path):
    # spin writes m.pml.nvr beside the model and includes the model and the claim file from
    # it: from elsewhere, the replay names both by their absolute paths.
    model, claim = claim_file_copy(tmp_path / "sub")
    run = topspin("verify", "--json", "-N", "sub/claims/c.pml", "sub/m.pml", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    result = json.loads(run.stdout)
    assert result["replay_command"] == f"spin -N {claim} -t -p {model}"
    replay = subprocess.run(shlex.split(result["replay_command"]), cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert replay.returncode == 0 and "in_cs[1] = 1" in replay.stdout, replay.stdout + replay.stderr


def test_pan_N_name_selects_among_the_models_claims_and_the_files(tmp_path):
    # With -DOWN_LTL the model has `ltl mutex`, which holds; spin puts the file's never claim
    # (never_0) before it, and pan checks never_0 by default; -N mutex checks the formula.
    reference = plain_spin_with_claim_file(tmp_path / "spin", "-DOWN_LTL", pan=("-N", "mutex"))
    assert reference["errors"] == 0
    model, _ = claim_file_copy(tmp_path / "ours")
    default = json.loads(topspin("verify", "--json", "-DOWN_LTL", "-N", "claims/c.pml", "m.pml",
                                 cwd=model.parent).stdout)
    assert default["claim"] == "never claim never_0 (spin -N claims/c.pml)" and default["errors"] == 1
    for form in (["m.pml", "-N", "mutex"], ["-run", "-ltl", "mutex", "m.pml"]):
        run = topspin("verify", "--json", "-DOWN_LTL", "-N", "claims/c.pml", *form, cwd=model.parent)
        assert run.returncode == 0, run.stderr
        result = json.loads(run.stdout)
        # the formula names no process: the whole S3, whatever the file's claim says
        assert result["claim"] == "ltl mutex" and result["group_order"] == 6
        assert result["errors"] == reference["errors"]


def test_claim_file_is_kept_by_compare_and_cross_check(tmp_path):
    model, _ = claim_file_copy(tmp_path)
    run = topspin("verify", "--json", "--compare", "--cross-check", "-N", "claims/c.pml", "m.pml", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    result = json.loads(run.stdout)
    assert result["errors"] == 1 and result["plain"]["errors"] == 1 and result["cross_check"]["errors"] == 1


@pytest.mark.parametrize("form,message", [
    # an identifier that is also a file here: spin's file or pan's claim?
    (["-N", "c", "m.pml"], "names both a file here"),
    # after -run, -N is pan's -N NAME
    (["-run", "-N", "claims/c.pml", "m.pml"], "after -run, -N is pan's"),
    (["-N", "claims/missing.pml", "m.pml"], "claim file not found"),
    (["-N", "m.pml.nvr", "m.pml"], "claim file not found"),
    (["-N", "claims/c.pml", "-f", "[] true", "-run", "m.pml"], "spin would use only the formula's"),
    (["-N", "claims/empty.pml", "m.pml"], "holds no never claim"),
    (["m.pml", "-N"], "needs a claim name"),
    (["m.pml", "-ltl"], "needs a claim name"),
    (["-N", "nothere", "m.pml"], "no claim named 'nothere'"),
])
def test_ambiguous_or_wrong_N_is_refused_with_the_way_to_write_it(tmp_path, form, message):
    model, claim = claim_file_copy(tmp_path)
    shutil.copyfile(claim, tmp_path / "c")
    (tmp_path / "claims" / "empty.pml").write_text("/* nothing */\n")
    run = topspin("verify", *form, cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert message in run.stderr and "hint:" in run.stderr, run.stderr
    assert not list(tmp_path.glob("*trail"))


def test_cc_and_cflags_come_from_the_environment(tmp_path):
    compiler = shutil.which("clang") or shutil.which("cc")
    if compiler is None:
        pytest.skip("neither clang nor cc on PATH")
    reference = spin_run(COUNTER.replace("{N}", "5"), tmp_path / "spin", "-run")
    model = write(tmp_path / "ours", COUNTER.replace("{N}", "5"))
    env = dict(os.environ, CC=Path(compiler).name, CFLAGS="-g -fno-inline")
    run = topspin("verify", "--verbose", "--json", "m.pml", cwd=model.parent, env=env)
    assert run.returncode == 0, run.stderr
    assert re.search(rf"^\$ {Path(compiler).name} -O1 .* -g -fno-inline -o pan pan\.c$", run.stderr, re.M)
    assert json.loads(run.stdout)["states_stored"] == reference["states"]
    # pan's -D options must come through verify, which checks them against the reduction.
    refused = topspin("verify", "m.pml", cwd=model.parent, env=dict(env, CFLAGS="-DBFS_PAR"))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "CFLAGS" in refused.stderr and "-DBFS_PAR" in refused.stderr


# --- the depth limit --------------------------------------------------------------------------

def test_explicit_depth_limit_is_never_overridden(tmp_path):
    text = COUNTER.replace("{N}", "20000")   # 40002 steps deep
    reference = spin_run(text, tmp_path / "spin", "-run", "-m10000")
    assert reference["depth_limit_hit"]
    model = write(tmp_path / "ours", text)
    run = topspin("verify", "m.pml", "-m10000", "--json", "--verbose", cwd=model.parent)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert pan_commands(run.stderr) == [" -m10000"]   # one run, the user's limit
    assert result["depth_limit"] == 10000 and result["complete"] is False
    assert "-m10000" in result["incomplete_reason"]
    assert result["states_stored"] == reference["states"]


def test_depth_growth_keeps_the_error_the_first_run_found(tmp_path):
    # spin -run (pan's -m10000) reaches the limit, then finds the assertion at n == 5; a
    # deeper search would report the one at n == 15000 instead.  Ours must be spin's.
    reference = spin_run(TWO_ASSERTIONS, tmp_path / "spin", "-run")
    assert reference["depth_limit_hit"] and reference["errors"] == 1
    violated = re.search(r"assertion violated .*\(at depth (\d+)\)", reference["output"])
    assert violated, reference["output"]
    depth = int(violated.group(1))
    assert depth < 10000
    model = write(tmp_path / "ours", TWO_ASSERTIONS)
    result = verify(model, VerifyOptions(strategy="none"))
    assert result.errors == 1 and result.exit_status == 1
    assert re.search(rf"\(at depth {depth}\)", result.error_messages[0])
    assert result.depth_limit == 10000 and not result.complete
    assert result.incomplete_reason is not None and result.trail is not None
    assert "keep the errors found" in result.incomplete_reason
    steps = [line for line in Path(result.trail).read_text().splitlines() if line[:1].isdigit()]
    assert len(steps) == depth + 1


def test_depth_growth_does_not_multiply_the_run_time(tmp_path):
    # Counter (an int: a short would wrap) to 200000: 400002 steps deep, so -m10000 and
    # -m100000 are too small.  Only the first run (spin -run's) searches in full; the rerun at
    # -m100000 is a probe that pan stops the moment it reaches the limit (-b), and the
    # -m1000000 probe is the reported run.
    n = 200000
    model = write(tmp_path, COUNTER.replace("short n", "int n").replace("{N}", str(n)))
    run = topspin("verify", "m.pml", "--json", "--verbose", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert pan_commands(run.stderr) == ["", " -m100000 -b", " -m1000000 -b"]
    result = json.loads(run.stdout)
    assert result["complete"] and result["states_stored"] == 2 * n + 3
    assert result["pan_args"] == ["-m1000000"]   # -b made no difference to a run that fits
    assert model.is_file()


# --- read-only directories ------------------------------------------------------------------

def _without_write_permission() -> list[str]:
    """A command prefix under which a mode 0555 directory is read-only even for root."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot make a directory read-only")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def test_error_in_a_read_only_directory_keeps_the_verdict(tmp_path):
    prefix = _without_write_permission()
    model = write(tmp_path / "ro", ASSERTION)
    model.parent.chmod(0o555)
    try:
        run = topspin("verify", "m.pml", cwd=model.parent, prefix=prefix)
    finally:
        model.parent.chmod(0o755)
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert re.search(r"^errors:\s+1$", run.stdout, re.M)
    assert not list(model.parent.glob("*trail"))
    note = re.search(r"^trail note:\s+could not write .*m\.pml\.trail .*the trail is in (\S+)$", run.stdout, re.M)
    assert note, run.stdout
    trail = Path(note.group(1))
    try:
        assert re.search(rf"^replay:\s+spin -k {re.escape(str(trail))} -p m\.pml$", run.stdout, re.M)
        replay = subprocess.run(["spin", "-k", str(trail), "-p", "m.pml"], cwd=model.parent,
                                capture_output=True, text=True)
        assert "assertion violated" in replay.stdout
    finally:
        shutil.rmtree(trail.parent, ignore_errors=True)


def test_keep_in_a_read_only_directory_is_a_clear_error(tmp_path):
    prefix = _without_write_permission()
    write(tmp_path, ASSERTION)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        run = topspin("verify", "m.pml", "--keep", locked / "out", cwd=tmp_path, prefix=prefix)
    finally:
        locked.chmod(0o755)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert "--keep directory" in run.stderr and "cannot be written" in run.stderr
