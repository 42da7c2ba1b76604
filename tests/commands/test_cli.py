"""The topspin-py command, run as a user runs it: a separate process, real spin, gcc and pan."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import MODELS, REPO

from topspin_py.cli import _attach_option_values
from topspin_py.spin_style import spin_style as _spin_style

COUNTER = "short n;\nactive proctype Counter() {\n\tdo\n\t:: n < 5 -> n++\n\t:: else -> break\n\tod\n}\n"


def topspin(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "topspin_py.cli", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=600)


def relative(path: Path) -> str:
    return os.path.relpath(path, REPO)   # ../shared/corpus/..., as in the acceptance commands


# --- acceptance: the published baselines -----------------------------------------------------

def test_peterson3_json(corpus):
    run = topspin("verify", "--strategy", "none", "--json", "-DNOREDUCE",
                  relative(corpus / "topspin" / "peterson3.p"))
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)   # stdout is one JSON object and nothing else
    assert result["states_stored"] == 2636
    assert result["errors"] == 0 and result["complete"] is True
    assert (result["strategy"], result["group_order"]) == ("none", 1)


def test_email3_json(corpus):
    run = topspin("verify", "--strategy", "none", "--json", "-DNOREDUCE",
                  relative(corpus / "topspin" / "email3.p"))
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["states_stored"] == 23256 and result["complete"] is True
    assert "rerunning with -m100000" in run.stderr   # the depth-limit rerun is announced


def test_hajek_exit_status_and_trail(corpus, tmp_path):
    # A copy, so the trail lands in tmp_path and not in the shared corpus.
    model = tmp_path / "hajek.pml"
    shutil.copyfile(corpus / "spin-examples" / "hajek.pml", model)
    run = topspin("verify", "--strategy", "none", "--json", model)
    assert run.returncode == 1, run.stderr
    result = json.loads(run.stdout)
    assert result["errors"] >= 1
    assert result["trail"] == str(model) + ".trail" and Path(result["trail"]).is_file()
    replay = subprocess.run(["spin", "-t", "-p", "hajek.pml"], cwd=tmp_path, capture_output=True, text=True)
    assert "assertion violated" in replay.stdout


def test_hajek_summary(corpus, tmp_path):
    model = tmp_path / "hajek.pml"
    shutil.copyfile(corpus / "spin-examples" / "hajek.pml", model)
    run = topspin("verify", "hajek.pml", cwd=tmp_path)
    assert run.returncode == 1
    out = run.stdout
    assert re.search(r"^errors:\s+1$", out, re.M)
    assert re.search(r"^\s+pan:1: assertion violated \(din==\(\(prev_din\+1\)%8\)\)", out, re.M)
    assert re.search(r"^search:\s+INCOMPLETE: pan stopped at the first error", out, re.M)
    assert re.search(r"^trail:\s+hajek\.pml\.trail$", out, re.M)
    assert re.search(r"^replay:\s+spin -t -p hajek\.pml$", out, re.M)


# --- options ---------------------------------------------------------------------------------

@pytest.mark.parametrize("pan_option", [["--pan", "-m100000"], ["--pan=-m100000"]])
def test_pan_arguments_separate_or_attached(tmp_path, pan_option):
    model = tmp_path / "m.pml"
    model.write_text(COUNTER)
    run = topspin("verify", "--json", *pan_option, model)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["pan_args"] == ["-m100000"] and result["depth_limit"] == 100000


def test_pan_arguments_split_like_a_shell(tmp_path):
    model = tmp_path / "m.pml"
    model.write_text(COUNTER)
    result = json.loads(topspin("verify", "--json", "--pan", "-m20000 -c0", model).stdout)
    assert result["pan_args"] == ["-m20000", "-c0"]


@pytest.mark.parametrize("define", [["-DNOREDUCE"], ["-D", "NOREDUCE"]])
def test_define_attached_or_separate(tmp_path, define):
    model = tmp_path / "m.pml"
    model.write_text(COUNTER)
    result = json.loads(topspin("verify", "--json", *define, model).stdout)
    assert result["defines"] == ["NOREDUCE"] and "-DNOREDUCE" in result["compile_flags"]


def test_attach_option_values():
    assert _attach_option_values(["verify", "--pan", "-m10", "m.pml"]) == ["verify", "--pan=-m10", "m.pml"]
    assert _attach_option_values(["verify", "m.pml", "--", "--pan"]) == ["verify", "m.pml", "--", "--pan"]


def test_N_is_spins_claim_file_or_pans_claim_name(tmp_path, monkeypatch):
    # The rule (spin_style._claim_option): spin's -N FILE before -run, pan's -N NAME after it; with
    # no -run, a word that cannot be a claim's name is spin's file, an identifier pan's claim.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claim.pml").write_text("never { skip }\n")
    assert _spin_style(["verify", "-N", "claim.pml", "m.pml"]) == ["verify", "--spin=-N claim.pml", "m.pml"]
    assert _spin_style(["verify", "m.pml", "-N", "p1"]) == ["verify", "m.pml", "--pan=-N p1"]
    assert _spin_style(["verify", "-N", "claim.pml", "-run", "-N", "p1", "m.pml"]) == \
        ["verify", "--spin=-N claim.pml", "--pan=-N p1", "m.pml"]
    assert _spin_style(["verify", "-run", "-ltl", "p1", "m.pml"]) == ["verify", "--pan=-N p1", "m.pml"]
    assert _spin_style(["verify", "--spin", "-N", "claim.pml", "m.pml"]) == ["verify", "--spin=-N claim.pml", "m.pml"]
    assert _spin_style(["verify", "m.pml", "-Np1"]) == ["verify", "m.pml", "--pan=-Np1"]


def test_readable_summary(tmp_path):
    model = tmp_path / "m.pml"
    model.write_text(COUNTER)
    run = topspin("verify", model)
    assert run.returncode == 0
    for pattern in (r"^model:\s+\S*m\.pml$",
                    r"^strategy:\s+none \(group order 1\), chosen by auto: the symmetry group is trivial",
                    r"^states stored:\s+13$", r"^states matched:\s+0$", r"^transitions:\s+13$",
                    r"^depth reached:\s+12 \(limit -m10000\)$", r"^errors:\s+0$",
                    r"^search:\s+complete$", r"^memory:\s+\d+\.\d+ MB$", r"^time:"):
        assert re.search(pattern, run.stdout, re.M), pattern


def test_verbose_shows_commands(tmp_path):
    model = tmp_path / "m.pml"
    model.write_text(COUNTER)
    run = topspin("verify", "--verbose", "-DNOREDUCE", model)
    assert re.search(r"^\$ \S*gcc -O1 -DSAFETY -DNOREDUCE -o pan pan\.c$", run.stderr, re.M)
    assert "added -DSAFETY" in run.stderr
    assert re.search(r"^\$ \S*spin -DNOREDUCE -a ", run.stderr, re.M)


def test_keep_dir(tmp_path):
    model = tmp_path / "m.pml"
    model.write_text(COUNTER)
    run = topspin("verify", "--keep", tmp_path / "kept", model)
    assert run.returncode == 0
    assert {"pan.c", "pan.h", "pan", "pan.out"} <= {p.name for p in (tmp_path / "kept").iterdir()}
    again = topspin("verify", "--keep", tmp_path / "kept", model)
    assert again.returncode == 2 and "not empty" in again.stderr


# --- progress --------------------------------------------------------------------------------

PROGRESS_MODEL = ("byte x[4];\nactive [4] proctype P() { byte v; select(v : 0..15); "
                  "x[_pid] = v; end: x[_pid] == 255 }\n")


@pytest.mark.slow
def test_progress_lines_when_not_a_terminal(tmp_path):
    model = tmp_path / "p.pml"
    model.write_text(PROGRESS_MODEL)
    run = topspin("verify", "--json", "-DNOREDUCE", model)
    assert run.returncode == 0
    assert re.search(r"^pan: 1M states, \S+ transitions, depth \d+, \d+ MB, \S+ states/s, [\d.]+ s$",
                     run.stderr, re.M)
    assert "\r" not in run.stderr   # plain lines, not the terminal's updating line
    assert json.loads(run.stdout)["states_stored"] == 33 ** 4


@pytest.mark.slow
def test_quiet_suppresses_progress(tmp_path):
    model = tmp_path / "p.pml"
    model.write_text(PROGRESS_MODEL)
    run = topspin("verify", "--quiet", "--json", "-DNOREDUCE", model)
    assert run.returncode == 0 and run.stderr == ""


# --- failures: exit status 2, a message, no traceback ----------------------------------------

def test_syntax_error(tmp_path):
    (tmp_path / "bad.pml").write_text("active proctype A() {\n\tbyte x;\n\tx = = 3\n}\n")
    run = topspin("verify", "bad.pml", cwd=tmp_path)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and run.stdout == ""
    assert re.match(r"bad\.pml:3(:\d+)?: error: ", run.stderr)


def test_spin_rejection_shows_spins_message(tmp_path):
    # Our front end does not resolve names; spin rejects the undeclared y.
    (tmp_path / "undeclared.pml").write_text("active proctype A() {\n\tbyte x;\n\tx = y\n}\n")
    run = topspin("verify", "undeclared.pml", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("undeclared.pml:4: error: spin rejects the model: undeclared variable: y")
    assert "spin: undeclared.pml:4, Error: undeclared variable: y" in run.stderr
    assert str(tmp_path) not in run.stderr   # the user's path, not the absolute one spin saw


def test_vectorsz_failure_explained(tmp_path):
    (tmp_path / "v.pml").write_text("byte big[2000];\nactive proctype A() { big[0] = 1; big[1999] = big[0] }\n")
    run = topspin("verify", "v.pml", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "hint: pass -DVECTORSZ=2048" in run.stderr
    assert topspin("verify", "-DVECTORSZ=2048", "v.pml", cwd=tmp_path).returncode == 0


def test_memory_failure_explained(tmp_path):
    (tmp_path / "m.pml").write_text(COUNTER)
    run = topspin("verify", "-DMEMLIM=1", "m.pml", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "error: pan ran out of memory" in run.stderr
    assert "-DMEMLIM" in run.stderr and "-DCOLLAPSE" in run.stderr


@pytest.mark.parametrize("args", [
    ["verify", "missing.pml"],
    ["verify", "--strategy", "fast", "m.pml"],
    ["verify", "-DX=(1+2)", "m.pml"],
    ["verify", "--pan", "-Z", "m.pml"],
    ["frobnicate"],
    [],
])
def test_bad_usage_exit_status_2(tmp_path, args):
    (tmp_path / "m.pml").write_text(COUNTER)
    run = topspin(*args, cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stderr


# Arguments that pan would drop, or read otherwise than verify reads them: refused, each with the
# way to write it (the audit of verify's arguments; flags.check_pan_args and the CLI's rules).
@pytest.mark.parametrize("args,message", [
    (["m.pml", "-abc"], "pan reads only the letter after '-', so this is its -a"),
    (["m.pml", "-ix"], "so this is its -i"),
    (["m.pml", "-m"], "-m takes a number"),
    (["m.pml", "-cx"], "to pan this is -c0"),
    (["--pan", "-a more", "m.pml"], "pan stops reading its options"),
    (["m.pml", "-N", "2"], "-N2"),
    (["m.pml", "-N", "p1", "-ltl", "p2"], "pan checks one claim"),
    (["m.pml", "--pan", "-N"], "pan -N needs a claim name"),
    (["--pan=-N_x", "m.pml"], "write -N _x"),
    (["-DNOCLAIM", "m.pml", "-N", "p1"], "-DNOCLAIM leaves every claim out"),
    (["m.pml", "-u2"], "without -DBFS_PAR pan ignores it"),
    (["m.pml", "-z5"], "a single-core pan ignores it"),
    (["m.pml", "-M10"], "without -DBITSTATE pan ignores it"),
    (["-DNCORE=2", "m.pml", "-Q1"], "pan reads -Q as the pid"),
    (["--pan", "-B", "m.pml"], "workers a multi-core pan starts"),
    (["-run", "-UNOREDUCE", "m.pml"], "undefines a macro for gcc"),
    (["-DNOREDUC", "m.pml"], "neither the model nor pan uses this name"),
    (["-DNP", "m.pml", "-a"], "ignores -a"),
    (["-DNP", "--safety", "m.pml"], "--safety asks for a safety search, -DNP for non-progress cycles"),
    (["m.pml", "-RSx"], "-RS takes the seed"),
    (["m.pml", "-t"], "pan -t alone does nothing"),
    (["-DNOCLAIM", "--spin", "-f '<> (n > 9)'", "m.pml"], "-DNOCLAIM leaves every claim out"),
    (["--spin", "-f '<> (n > 9)'", "m.pml", "-l"], "checks pan's non-progress claim in place of the never claim"),
])
def test_arguments_pan_would_drop_or_misread_are_refused(tmp_path, args, message):
    (tmp_path / "m.pml").write_text(COUNTER)
    run = topspin("verify", *args, cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert message in run.stderr and "hint:" in run.stderr, run.stderr


def test_arguments_honoured_where_they_were_dropped(tmp_path):
    (tmp_path / "m.pml").write_text(COUNTER)
    # spin -run's -permuted, and -DPERMUTED for -p_permute (a pan without it exits at once)
    for words in (["-permuted"], ["-p_permute"]):
        run = topspin("verify", "--json", "m.pml", *words, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        assert "PERMUTED" in json.loads(run.stdout)["defines"]
    # A macro only the formula uses is used: spin preprocesses the claim with the model.
    run = topspin("verify", "--json", "-DLIMIT=9", "--spin", "-f '<> (n > LIMIT)'", "m.pml", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # --compare with nothing reduced: said, not skipped without a word
    run = topspin("verify", "--compare", "--strategy", "none", "m.pml", cwd=tmp_path)
    assert run.returncode == 0 and "--compare: no reduction to compare" in run.stderr, run.stderr
    # What pan itself drops, and says so, is a warning, not silence.
    run = topspin("verify", "--json", "m.pml", "-pfoo", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "invalid option '-pfoo' -- ignored" in json.loads(run.stdout)["warnings"]


@pytest.mark.slow
def test_interrupt_exits_cleanly(tmp_path):
    """Ctrl-C during a long search: no traceback, status 130, pan stopped."""
    import signal
    import time
    model = tmp_path / "long.pml"
    model.write_text("byte a, b, c;\n"
                     "active proctype A() { do :: a < 255 -> a++ :: a > 0 -> a-- od }\n"
                     "active proctype B() { do :: b < 255 -> b++ :: b > 0 -> b-- od }\n"
                     "active proctype C() { do :: c < 255 -> c++ :: c > 0 -> c-- od }\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    # A foreground job in a terminal gets SIGINT with its default action; a test run started
    # in the background (as `make test &`) inherits SIGINT ignored, which Python then keeps.
    process = subprocess.Popen([sys.executable, "-m", "topspin_py.cli", "verify", str(model)],
                               cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stderr is not None  # stderr=PIPE
    deadline = time.monotonic() + 60
    stderr = ""
    while "pan: 1M states" not in stderr and time.monotonic() < deadline:  # pan is running
        stderr += process.stderr.readline()
    os.killpg(process.pid, signal.SIGINT)   # as a terminal's Ctrl-C: the whole process group
    out, rest = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in stderr + rest and "interrupted" in rest


# --- what verify checks, and says it checked -------------------------------------------------

def test_liveness_ltl_found_as_spin_run_finds_it(tmp_path):
    # tests/models/ltl_liveness.pml: only an acceptance cycle violates its ltl formula
    # (spin -a; gcc; ./pan -a reports it: its header, checked by test_models.py).
    shutil.copy(MODELS / "ltl_liveness.pml", tmp_path / "live.pml")
    run = topspin("verify", "live.pml", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(r"^claim:\s+ltl both_busy \(acceptance cycles, -a\)$", run.stdout, re.M)
    assert re.search(r"^errors:\s+1$", run.stdout, re.M)
    assert "pan:1: acceptance cycle" in run.stdout
    assert "pan -a: searching for acceptance cycles, as spin -run does" in run.stderr


def test_safety_search_shows_pans_warning(tmp_path):
    shutil.copy(MODELS / "ltl_liveness.pml", tmp_path / "live.pml")
    run = topspin("verify", "--safety", "live.pml", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(r"^claim:\s+ltl both_busy \(safety\)$", run.stdout, re.M)
    assert re.search(r"^pan warning:\s+never claim \+ accept labels requires -a flag to fully verify$",
                     run.stdout, re.M)
    as_json = json.loads(topspin("verify", "--safety", "--json", "live.pml", cwd=tmp_path).stdout)
    assert as_json["warnings"] == ["warning: never claim + accept labels requires -a flag to fully verify"]
    assert (as_json["claim"], as_json["search"]) == ("ltl both_busy", "safety")


def test_compare_with_verdicts_that_differ_exits_2(tmp_path, monkeypatch, capsys):
    # A real reduced run that misses an error needs a group the model does not have: the
    # analysis' is replaced by all of S3 (in this process, so that main() uses it), while
    # spin, gcc and both pan runs are real.  The never claim breaks at x == 1, which P:1 sets.
    from sympy.combinatorics import Permutation, PermutationGroup

    import topspin_py.pipeline as pipeline_module
    from topspin_py.cli import main

    (tmp_path / "m.pml").write_text("byte x = 255;\nactive [3] proctype P() { end: do :: x = _pid od }\n"
                                    "never { do :: x == 1 -> break :: else od }\n")
    real_find_symmetry = pipeline_module.find_symmetry

    def whole_s3(context):
        group = real_find_symmetry(context)
        pids = [i for i, (kind, _) in enumerate(group.points) if kind == "pid"]
        swap, rotate = list(range(len(group.points))), list(range(len(group.points)))
        swap[pids[0]], swap[pids[1]] = pids[1], pids[0]
        rotate[pids[0]], rotate[pids[1]], rotate[pids[2]] = pids[1], pids[2], pids[0]
        return dataclasses.replace(group, perm_group=PermutationGroup([Permutation(swap), Permutation(rotate)]))
    monkeypatch.setattr(pipeline_module, "find_symmetry", whole_s3)
    status = main(["verify", "--compare", "--quiet", str(tmp_path / "m.pml")])
    out, err = capsys.readouterr()
    assert status == 2, out + err
    assert re.search(r"^errors:\s+0$", out, re.M) and "plain SPIN:" in out and "1 errors" in out
    assert ("error: the verdicts differ: plain SPIN found 1 error(s), the reduced search "
            "(strategy refine, group order 6) found none") in err
    assert "Traceback" not in err


# --- detect refuses what spin refuses --------------------------------------------------------

@pytest.mark.parametrize("name,content,where,message", [
    ("empty.pml", b"", "empty.pml:1", "spin rejects the model: syntax error"),
    ("comments.pml", b"/* nothing but comments */\n// and one more\n", "comments.pml:1",
     "spin rejects the model: syntax error"),
    ("undeclared.pml", b"active proctype A() {\n\tbyte x;\n\tx = y\n}\n", "undeclared.pml:4",
     "spin rejects the model: undeclared variable: y"),
    ("syntax.pml", b"active proctype A() {\n\tbyte x;\n\tx = = 3\n}\n", "syntax.pml:3:", "syntax error"),
    ("garbage.pml", bytes(range(256)) * 2, "garbage.pml:1:", "not Promela text"),
])
def test_detect_refuses_what_spin_refuses(tmp_path, name, content, where, message):
    (tmp_path / name).write_bytes(content)
    reference = subprocess.run(["spin", "-a", name], cwd=tmp_path, capture_output=True)
    assert not (tmp_path / "pan.c").exists()   # spin rejects each of them
    assert b"Error" in reference.stdout + reference.stderr
    for command in ("detect", "verify"):
        run = topspin(command, name, cwd=tmp_path)
        assert run.returncode == 2, f"{command}: {run.stdout}{run.stderr}"
        assert "Traceback" not in run.stderr and "group order" not in run.stdout
        assert run.stderr.startswith(where) and message in run.stderr, run.stderr
        assert "\x1b" not in run.stderr   # the garbage's control bytes are not echoed


def test_empty_model_hint(tmp_path):
    (tmp_path / "empty.pml").write_text("")
    run = topspin("detect", "empty.pml", cwd=tmp_path)
    assert "spin: empty.pml:1, Error: no runable process" in run.stderr
    assert "hint: a model needs at least one process" in run.stderr


def test_latin1_comment_is_accepted_as_spin_accepts_it(tmp_path):
    (tmp_path / "latin1.pml").write_bytes(b"/* caf\xe9, na\xefve */\nbyte x;\n"
                                          b"active [2] proctype P() { end: do :: x = 1; "
                                          b"printf(\"d\xe9j\xe0 vu\\n\") od }\n")
    reference = subprocess.run(["spin", "-a", "latin1.pml"], cwd=tmp_path, capture_output=True)
    assert reference.returncode == 0 and (tmp_path / "pan.c").exists()
    run = topspin("detect", "latin1.pml", cwd=tmp_path)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    # Both P's loop for ever writing the same constant: their swap is a symmetry.
    assert "group order: 2" in run.stdout
    assert topspin("verify", "latin1.pml", cwd=tmp_path).returncode == 0


def test_given_generators_refused_without_traceback_when_a_slot_holds_both_kinds(tmp_path):
    # x receives a pid and a channel id: the analysis cannot follow it, and says so at no
    # node (the taint is of the slot, not of one statement).  It once raised AttributeError.
    (tmp_path / "both.pml").write_text("chan c = [1] of {int};\nint x;\n"
                                       "active [2] proctype p() { x = _pid; x = c }\n")
    (tmp_path / "swap.txt").write_text("(0 1)\n")
    assert subprocess.run(["spin", "-a", "both.pml"], cwd=tmp_path, capture_output=True).returncode == 0
    run = topspin("detect", "both.pml", "--group", "swap.txt", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.startswith("error: the given symmetry cannot be checked: "), run.stderr
    assert "holds both process ids and channels" in run.stderr.splitlines()[0], run.stderr


# What the stages bring (about a second to import): the command line must not load them to
# answer --version, --help or a usage error.
_STAGE_LIBRARIES = ("sympy", "pynauty", "jinja2", "dask", "distributed", "cffi", "lark", "pycparser")


@pytest.mark.parametrize("words", [["--version"], ["--help"], ["verify", "--help"], ["swarm", "--help"],
                                   ["regress", "--help"], ["verify", "--no-such-option", "m.pml"]])
def test_help_version_and_usage_errors_import_no_stage(words):
    probe = ("import sys\nfrom topspin_py.cli import main\n"
             f"try:\n    main({words!r})\nexcept SystemExit:\n    pass\n"
             f"print(sorted({{name.split('.')[0] for name in sys.modules}} & {set(_STAGE_LIBRARIES)!r}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_the_wall_time_reported_is_the_run_of_the_command(tmp_path, capsys):
    """`time: ... in all` (JSON wall_s) counts the command from its process's start, so never
    more than the wall clock measured around it; a call of main() from Python counts from the
    call, not from the start of the process that makes it (here, a long-lived pytest worker)."""
    from topspin_py.cli import main

    model = tmp_path / "m.pml"
    model.write_text(COUNTER)
    started = time.monotonic()
    assert main(["verify", "--json", "--gcc-opt=-O0", "--no-cache", str(model)]) == 0
    measured = time.monotonic() - started
    assert 0 < json.loads(capsys.readouterr().out)["wall_s"] <= measured
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "topspin_py.cli", "verify", "--json", "--gcc-opt=-O0", "--no-cache",
                          str(model)], capture_output=True, text=True, cwd=tmp_path)
    measured = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    assert 0 < json.loads(run.stdout)["wall_s"] <= measured


def test_the_default_symmetry_check_budget_is_symchecks():
    """--check-symmetry without a value: the command line writes the budget out (so that --help
    needs no toolchain), and it must be the one symcheck.py uses when none is given."""
    from topspin_py.cli.common import CHECK_BUDGET
    from topspin_py.symcheck import DEFAULT_BUDGET

    assert CHECK_BUDGET == DEFAULT_BUDGET
    assert _attach_option_values(["verify", "--check-symmetry", "m.pml"])[1] == f"--check-symmetry={DEFAULT_BUDGET}"
