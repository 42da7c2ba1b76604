"""The SPIN user's own workflow: generate and patch in a Makefile loop, the build line they
print, pan's report saying whether symmetry reduction is on, read-only directories, and
regress in CI (default strategy, a missing model, a per-entry time limit).

Every count comes from real spin, gcc and pan; the expected numbers are reasoned out below
and checked against what `topspin-py verify` reduces to.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from topspin_py.pan.output import parse_pan_output

# N users share a resource that at most CAP may hold.  A user is idle, holding (after the
# atomic step) or releasing (in[_pid] cleared, count not yet decremented); count is the number
# of users not idle, so a state is the users' local states with at most CAP not idle.
#   N=3, CAP=2: 3^3 - 2^3 = 19 states; up to the order of the users (S3), the multisets of size
#               3 over {idle, holding, releasing} with at least one idle: 10 - 4 = 6.
#   N=4, CAP=3: 3^4 - 2^4 = 65 states; reduced by S4: 15 - 5 = 10.
SHARED = """\
#ifndef CAP
#define CAP 2
#endif
byte count;
bool in[N];
active [N] proctype User() {
	do
	:: atomic { count < CAP -> count++; in[_pid] = true };
	   in[_pid] = false;
	   count--
	od
}
"""
OWN_N = "#define N 3\n" + SHARED          # N defined by the model itself
GIVEN_N = SHARED                           # N given on the command line: -DN=3
REDUCED_N3, PLAIN_N3, REDUCED_N4_CAP3 = 6, 19, 10

# Four counters climbing on their own: 256^4 states; in bitstate mode (8 MB) pan runs for
# minutes, far past any time limit below.
SLOW = """\
byte a, b, c, d;
active proctype P() {
	do
	:: a < 255 -> a++
	:: b < 255 -> b++
	:: c < 255 -> c++
	:: d < 255 -> d++
	:: else -> break
	od
}
"""


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "topspin_py.cli", *args], capture_output=True,
                          text=True, cwd=cwd)


def build_line(stdout: str) -> str:
    lines = [line.removeprefix("build: ") for line in stdout.splitlines() if line.startswith("build: ")]
    assert len(lines) == 1, stdout
    return lines[0]


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
    return done


def run_pan(directory: Path):
    done = subprocess.run(["./pan"], cwd=directory, capture_output=True, text=True, timeout=120)
    report = parse_pan_output(done.stdout)
    assert report.has_summary and report.errors == 0, done.stdout
    return report


def verified_states(model: Path, *defines: str) -> int:
    """What `topspin-py verify` stores (its default strategy), for the same defines."""
    done = cli("verify", str(model), "--json", "--quiet", "--gcc-opt", "-O0", *defines)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["states_stored"]


# ------------------------------------------------------------------- the build line, as printed

@pytest.mark.parametrize("source,defines", [(OWN_N, []), (GIVEN_N, ["-DN=3"])],
                         ids=["define-in-model", "define-on-command-line"])
def test_the_build_line_generate_prints_compiles_as_printed(tmp_path, source, defines):
    # pan.c names a parameter N (r_ck(uchar *which, int N, ...)): -DN=3 handed to gcc is a
    # syntax error there.  spin has expanded the model's N already, so the line leaves it out.
    model = tmp_path / "shared.pml"
    model.write_text(source)
    out = tmp_path / "my build"     # a blank in the path: the printed line quotes it
    done = cli("generate", str(model), "-o", str(out), "-DNOREDUCE", *defines)
    assert done.returncode == 0, done.stderr
    line = build_line(done.stdout)
    assert "-DNOREDUCE" in line and "-DTOPSPIN_SYM" in line and "-DN=" not in line
    if defines:
        assert "not passed to gcc: -DN=3" in done.stdout
    shell(line, cwd=tmp_path)
    report = run_pan(out)
    assert report.symmetry == "on" and report.symmetry_group_order == 6
    assert report.states_stored == REDUCED_N3 == verified_states(model, "-DNOREDUCE", *defines)


def test_generate_writes_its_own_directory_again_and_refuses_a_foreign_one(tmp_path):
    model = tmp_path / "shared.pml"
    model.write_text(OWN_N)
    out = tmp_path / "build"
    assert cli("generate", str(model), "-o", str(out), "-DNOREDUCE").returncode == 0
    (out / "Makefile").write_text("# the user's\n")
    # The model changes; generate runs again over its own directory.
    model.write_text(OWN_N.replace("#define N 3", "#define N 4").replace("#define CAP 2", "#define CAP 3"))
    again = cli("generate", str(model), "-o", str(out), "-DNOREDUCE")
    assert again.returncode == 0, again.stderr
    assert (out / "Makefile").read_text() == "# the user's\n"
    shell(build_line(again.stdout), cwd=tmp_path)
    assert run_pan(out).states_stored == REDUCED_N4_CAP3

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "pan.c").write_text("/* the user's own */\n")
    refused = cli("generate", str(model), "-o", str(foreign))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "did not write it" in refused.stderr and "--force" in refused.stderr
    assert (foreign / "pan.c").read_text() == "/* the user's own */\n"
    (foreign / "notes.txt").write_text("mine")
    forced = cli("generate", str(model), "-o", str(foreign), "-DNOREDUCE", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "topspin-py: symmetry reduction splice" in (foreign / "pan.c").read_text()
    assert (foreign / "notes.txt").read_text() == "mine"


# ------------------------------------------------------------------------ a Makefile loop

def test_patch_in_a_makefile_loop(tmp_path):
    # spin -a; patch; gcc; pan -- then the model's parameters change and the same recipe runs
    # again (patch sees a fresh pan.c beside its old pan.c.orig), and once more without spin -a
    # (patch sees its own output and patches pan.c.orig again, to the same text).  Each pan
    # stores the reduced count verify stores.
    model = tmp_path / "shared.pml"
    model.write_text(GIVEN_N)
    rounds = [(["-DN=3"], REDUCED_N3), (["-DN=4", "-DCAP=3"], REDUCED_N4_CAP3)]
    for defines, expected in rounds:
        shell(f"spin {' '.join(defines)} -a shared.pml", cwd=tmp_path)
        spin_pan_c = (tmp_path / "pan.c").read_text(encoding="latin-1")
        done = cli("patch", "pan.c", "--model", "shared.pml", "-DNOREDUCE", *defines, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "pan.c.orig").read_text(encoding="latin-1") == spin_pan_c
        shell(build_line(done.stdout), cwd=tmp_path)
        assert run_pan(tmp_path).states_stored == expected == verified_states(model, "-DNOREDUCE", *defines)
    assert "it replaces the older pan.c.orig" in done.stdout
    patched = (tmp_path / "pan.c").read_text(encoding="latin-1")
    again = cli("patch", "pan.c", "--model", "shared.pml", "-DNOREDUCE", "-DN=4", "-DCAP=3", cwd=tmp_path)
    assert again.returncode == 0 and "was patched before" in again.stdout, again.stderr
    assert (tmp_path / "pan.c.orig").read_text(encoding="latin-1") == spin_pan_c
    assert (tmp_path / "pan.c").read_text(encoding="latin-1") == patched
    assert build_line(again.stdout) == build_line(done.stdout)


def test_patch_refuses_a_patched_pan_c_without_its_original(tmp_path):
    (tmp_path / "shared.pml").write_text(OWN_N)
    shell("spin -a shared.pml", cwd=tmp_path)
    assert cli("patch", "pan.c", "--model", "shared.pml", cwd=tmp_path).returncode == 0
    (tmp_path / "pan.c.orig").unlink()
    done = cli("patch", "pan.c", "--model", "shared.pml", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "patched already" in done.stderr and "spin -a" in done.stderr


# ------------------------------------------------------------- pan's report: on or off

def test_pans_report_says_whether_symmetry_reduction_is_on(tmp_path):
    model = tmp_path / "shared.pml"
    model.write_text(OWN_N)
    out = tmp_path / "build"
    assert cli("generate", str(model), "-o", str(out), "-DNOREDUCE").returncode == 0
    shell("gcc -O1 -DNOREDUCE -o pan pan.c", cwd=out)
    off = run_pan(out)
    assert off.symmetry == "off" and off.symmetry_group_order is None
    assert off.states_stored == PLAIN_N3       # plain SPIN's count, and the report says so
    shell("gcc -O1 -DNOREDUCE -DTOPSPIN_SYM -o pan pan.c", cwd=out)
    on = run_pan(out)
    assert (on.symmetry, on.symmetry_group_order, on.symmetry_strategy) == ("on", 6, "refine")
    assert on.states_stored == REDUCED_N3
    text = subprocess.run(["./pan"], cwd=out, capture_output=True, text=True).stdout
    assert "(Spin Version 6.5.2 -- 6 December 2019)\ntopspin-py: symmetry reduction on, group order 6, " \
           "strategy refine\n" in text
    # A pan.c spin wrote (no splice) has no such line.
    shell("spin -a shared.pml && gcc -O1 -DNOREDUCE -o pan pan.c", cwd=tmp_path)
    assert run_pan(tmp_path).symmetry is None


# ------------------------------------------------------------------ directories not writable

def unwritable(tmp_path: Path, name: str) -> Path:
    """A path under which nothing can be written: a read-only folder when we are not root;
    as root (who writes into read-only folders), a path under a regular file."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o555)
        return folder / name
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    return blocker / name


def test_generate_into_a_directory_it_cannot_write(tmp_path):
    model = tmp_path / "shared.pml"
    model.write_text(OWN_N)
    done = cli("generate", str(model), "-o", str(unwritable(tmp_path, "build")))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "error: cannot write into" in done.stderr


def test_regress_update_of_a_baseline_it_cannot_write(tmp_path):
    model = tmp_path / "shared.pml"
    model.write_text(OWN_N)
    baseline = unwritable(tmp_path, "baseline.json")
    done = cli("regress", str(baseline), "--update", "--model", str(model))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "error: cannot write the baseline" in done.stderr
    if os.geteuid() != 0:
        # a read-only baseline file in a writable folder is left alone too
        writable = tmp_path / "ci"
        writable.mkdir()
        (writable / "baseline.json").write_text('{"topspin-py baseline": 1, "entries": []}\n')
        (writable / "baseline.json").chmod(0o444)
        done = cli("regress", str(writable / "baseline.json"), "--update", "--model", str(model))
        assert done.returncode == 2 and "read-only" in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------------------------- regress

def test_regress_records_the_strategy_verify_uses(tmp_path):
    model = tmp_path / "shared.pml"
    model.write_text(OWN_N)
    baseline = tmp_path / "baseline.json"
    done = cli("regress", str(baseline), "--update", "--model", str(model), "-DNOREDUCE")
    assert done.returncode == 0, done.stderr
    [entry] = json.loads(baseline.read_text())["entries"]
    assert entry["strategy"] == "auto" and entry["group_order"] == 6
    assert entry["states_stored"] == REDUCED_N3 == verified_states(model, "-DNOREDUCE")


def write_baseline(path: Path, entries: list[dict]) -> None:
    path.write_text(json.dumps({"topspin-py baseline": 1, "entries": entries}))


def entry(model: str, states: int, **more) -> dict:
    return {"model": model, "strategy": "auto", "defines": ["NOREDUCE"], "pan_args": [],
            "states_stored": states, "transitions": 16, "errors": 0, **more}


def test_regress_goes_on_past_a_missing_model(tmp_path):
    # Two entries: a model that is gone (listed first), and one whose count changed (7
    # recorded, 6 found).  Both are reported; the missing model makes the exit status 2.
    (tmp_path / "shared.pml").write_text(OWN_N)
    baseline = tmp_path / "baseline.json"
    write_baseline(baseline, [entry("gone.pml", 6), entry("shared.pml", 7)])
    done = cli("regress", str(baseline))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "gone.pml --strategy auto -DNOREDUCE: model not found" in done.stdout
    assert "shared.pml --strategy auto -DNOREDUCE: states_stored was 7, now 6" in done.stdout
    assert "shared.pml --strategy auto -DNOREDUCE: 6 states, 16 transitions, 0 errors" in done.stderr
    # --update refreshes the others and keeps the missing one's entry as it was
    done = cli("regress", str(baseline), "--update")
    assert done.returncode == 2 and "model not found" in done.stdout
    entries = {e["model"]: e for e in json.loads(baseline.read_text())["entries"]}
    assert entries["gone.pml"] == entry("gone.pml", 6)
    assert entries["shared.pml"]["states_stored"] == 6


def test_regress_stops_an_entry_past_its_time_limit(tmp_path):
    (tmp_path / "slow.pml").write_text(SLOW)
    (tmp_path / "shared.pml").write_text(OWN_N)
    baseline = tmp_path / "baseline.json"
    slow = {"model": "slow.pml", "strategy": "none", "defines": ["BITSTATE"],
            "pan_args": ["-w26", "-m3000"], "states_stored": 1, "transitions": 1, "errors": 0,
            "timeout": 2}
    write_baseline(baseline, [slow, entry("shared.pml", 6)])
    done = cli("regress", str(baseline))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "slow.pml --strategy none -DBITSTATE --pan -w26 --pan -m3000: timed out: still running " \
           "after the time limit of 2 s" in done.stdout
    assert "shared.pml --strategy auto -DNOREDUCE: 6 states" in done.stderr   # no limit of its own
    assert "change" not in done.stdout
    # --timeout is the limit of the entries without one of their own
    del slow["timeout"]
    write_baseline(baseline, [slow])
    done = cli("regress", str(baseline), "--timeout", "1")
    assert done.returncode == 2 and "after the time limit of 1 s" in done.stdout
    bad = cli("regress", str(baseline), "--timeout", "soon")
    assert bad.returncode == 2 and "bad time limit" in bad.stderr
