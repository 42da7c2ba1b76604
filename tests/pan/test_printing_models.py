"""Models that print what pan prints (tests/models/printing/), against plain SPIN.

Under -DPRINTF a model's printf statements print to pan's output, and embedded C code
(``c_code { printf(...); }``) always does.  These models print every line topspin-py's
reader of that output reads (a whole report saying ``errors: 0``, the symmetry line, error
and trail lines, ``Interrupted``, out of memory, VECTORSZ, the depth limit, a warning, a
progress line) before pan's own report, with and without an error plain SPIN finds.  The
header syntax is tests/support/modelgen.py's.  For each ``expect:`` line:

* plain spin + gcc + pan give the header's counts, read from pan's own report at the end of
  its output (modelgen.run_spin), and the model's imitations do come before that report;
* ``topspin-py verify --strategy none`` gives plain pan's verdict and counts, exit status 1
  for errors (0 otherwise), pan's own error line and trail (beside the model, under pan's
  name), and nothing of the model's: no other trail, warning, or reason to call a complete
  search incomplete;
* the default strategy finds the header's group order; with a non-trivial group (the printf
  models: three identical processes) its verdict, counts and trail are those of the same
  reduced run without -DPRINTF, where the printf statements print nothing; with the trivial
  group of c_code, plain pan's.

And a model whose imitation is the last report in pan's output because pan stopped before
its own (``pan: error: too many processes``, exit status 1) is a tool failure, exit status 2;
pan's replay options (which run the model's statements and print no report) are refused.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MODELS, REPO
from modelgen import Run, copy_model, run_params, run_spin, verify_args

PRINTING = sorted((MODELS / "printing").glob("*.pml"))
RUNS = run_params(PRINTING)

# What each model prints before pan's report, pan's own lines of a few kinds among them.
IMITATIONS = ("(Spin Version 6.5.2 -- 6 December 2019)",
              "topspin-py: symmetry reduction on, group order 6, strategy refine",
              "State-vector 28 byte, depth reached 6, errors: 0",
              "pan:1: assertion violated fake (at depth 5)",
              "pan: wrote fake.trail", "Interrupted", "error: max search depth too small",
              "pan: out of memory", "Warning: Search not completed")


def _require(run: Run | None, header_error: str | None) -> Run:
    if header_error is not None:
        pytest.fail(header_error)
    assert run is not None
    return run


@functools.lru_cache(maxsize=None)
def _plain(path: Path, run: Run):
    return run_spin(path, flags=run.flags, defines=run.defines, pan=run.pan, opt="-O0")


def _verify(path: Path, run: Run, strategy: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, dict, Path]:
    """``topspin-py verify --json`` on a copy of the model in a directory of its own."""
    directory = tmp_path / strategy
    directory.mkdir(parents=True)
    copy = copy_model(path, directory)
    proc = subprocess.run([sys.executable, "-m", "topspin_py.cli", *verify_args(copy, run, strategy)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == (1 if run.counts["errors"] else 0), f"{proc.stdout}\n{proc.stderr}"
    return proc, json.loads(proc.stdout), copy


def _without_printf(run: Run) -> Run:
    return Run(flags=tuple(flag for flag in run.flags if flag != "-DPRINTF"), defines=run.defines,
               pan=run.pan, expect=run.expect, order=run.order)


def _assert_pans_outcome(result: dict, copy: Path, run: Run) -> None:
    """The verdict, the error line and the trail are pan's; nothing of the model's shows."""
    assert result["errors"] == run.counts["errors"]
    assert result["interrupted"] is False and result["warnings"] == []
    assert result["claim"] is None and result["search"] == "safety"
    left = sorted(path.name for path in copy.parent.iterdir() if path.name != "include")
    if run.counts["errors"]:
        # pan stops at its first error: incomplete for that reason, and no other
        assert result["complete"] is False
        assert result["incomplete_reason"].startswith("pan stopped at the first error")
        [message] = result["error_messages"]
        assert re.fullmatch(r"pan:1: assertion violated \(count<3\) \(at depth \d+\)", message)
        trail = copy.with_name(copy.name + ".trail")
        assert result["trail"] == str(trail) and result["trails"] == [str(trail)]
        assert re.fullmatch(r"(-?\d+:-?\d+:-?\d+\n)+", trail.read_text())   # pan's steps
        assert left == [copy.name, trail.name]
    else:
        assert result["complete"] is True and result["incomplete_reason"] is None
        assert result["error_messages"] == [] and result["trail"] is None and result["trails"] == []
        assert left == [copy.name]


@pytest.mark.parametrize("path,run,header_error", RUNS)
def test_plain_pan_prints_the_imitations_before_its_report(path: Path, run: Run | None, header_error: str | None):
    run = _require(run, header_error)
    plain = _plain(path, run)
    assert {key: plain.get(key) for key in run.counts} == run.counts
    before = plain.output[:plain.output.rindex("\n(Spin Version ")]
    assert all(line in before.splitlines() for line in IMITATIONS), before[-3000:]


@pytest.mark.parametrize("path,run,header_error", RUNS)
def test_verify_without_reduction_gives_pans_verdict(path: Path, run: Run | None, header_error: str | None,
                                                    tmp_path: Path):
    run = _require(run, header_error)
    _, result, copy = _verify(path, run, "none", tmp_path)
    assert result["strategy"] == "none" and result["group_order"] == 1
    assert (result["states_stored"], result["transitions"]) == (run.counts["states"], run.counts["transitions"])
    _assert_pans_outcome(result, copy, run)


@pytest.mark.parametrize("path,run,header_error", RUNS)
def test_verify_with_the_default_strategy_gives_pans_verdict(path: Path, run: Run | None, header_error: str | None,
                                                            tmp_path: Path):
    run = _require(run, header_error)
    _, result, copy = _verify(path, run, "auto", tmp_path)
    assert result["group_order"] == run.order
    _assert_pans_outcome(result, copy, run)
    if run.order == 1:
        assert result["strategy"] == "none"
        assert (result["states_stored"], result["transitions"]) == (run.counts["states"], run.counts["transitions"])
        return
    # The same reduced search where nothing is printed: the printf statements print only
    # under -DPRINTF (the reduced pan's report says its group order, which verify checks).
    assert result["strategy"] != "none"
    _, silent, _ = _verify(path, _without_printf(run), "auto", tmp_path / "silent")
    assert silent["strategy"] == result["strategy"] and silent["group_order"] == run.order
    for key in ("errors", "states_stored", "states_matched", "transitions", "depth", "complete",
                "error_messages"):
        assert result[key] == silent[key], key
    if not run.counts["errors"]:   # (the first error is met on the first path either way)
        assert result["states_stored"] < run.counts["states"]   # reduced


# Prints a report saying "errors: 0", then starts a seventh process: pan -f (weak fairness)
# keeps count of at most six (-DNFAIR=2), says "too many processes" and exits with status 1
# without its report.
TOO_MANY = """
proctype P() { end: false }
init {
	print_fake_report();
	atomic { run P(); run P(); run P(); run P(); run P(); run P(); run P() }
}
ltl always { [] true }
"""


def test_a_pan_that_stops_before_its_report_gives_no_verdict(tmp_path):
    shutil.copytree(MODELS / "printing" / "include", tmp_path / "include")
    model = tmp_path / "too_many.pml"
    model.write_text('#include "include/printf_report.h"\n' + TOO_MANY)
    plain = subprocess.run(["spin", "-a", model.name], cwd=tmp_path, capture_output=True, text=True)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    subprocess.run(["gcc", "-O0", "-w", "-DPRINTF", "-o", "pan", "pan.c"], cwd=tmp_path, check=True)
    pan = subprocess.run(["./pan", "-a", "-f"], cwd=tmp_path, capture_output=True, text=True)
    assert pan.returncode == 1 and "too many processes" in pan.stdout
    assert "errors: 0" in pan.stdout and pan.stdout.count("(Spin Version") == 1   # the model's
    proc = subprocess.run([sys.executable, "-m", "topspin_py.cli", "verify", str(model), "--strategy", "none",
                           "-DPRINTF", "--pan=-a", "--pan=-f", "--gcc-opt=-O0"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    assert "exit status 1 before its report" in proc.stderr


def test_a_replay_is_refused(tmp_path):
    # pan -r FILE replays a trail: the model prints its imitation, pan prints no report and
    # exits with 0, so the imitation is the last report in its output
    model = copy_model(MODELS / "printing" / "printf_error.pml", tmp_path)
    subprocess.run(["spin", "-a", model.name], cwd=tmp_path, capture_output=True, check=True)
    subprocess.run(["gcc", "-O0", "-w", "-DPRINTF", "-DSAFETY", "-o", "pan", "pan.c"], cwd=tmp_path, check=True)
    assert subprocess.run(["./pan"], cwd=tmp_path, capture_output=True).returncode == 0   # writes the trail
    replay = subprocess.run(["./pan", "-r", f"{model.name}.trail"], cwd=tmp_path, capture_output=True, text=True)
    last = replay.stdout[replay.stdout.rindex("(Spin Version"):]
    assert replay.returncode == 0 and "errors: 0" in last and "State-vector 28 byte" in last
    for args in (["--pan=-r", f"--pan={model}.trail"], ["--pan=-r1"], ["--pan=-C"], ["--pan=-S"], ["--pan=-P2"]):
        proc = subprocess.run([sys.executable, "-m", "topspin_py.cli", "verify", str(model), "--strategy", "none",
                               "-DPRINTF", "-DSAFETY", *args], cwd=REPO, capture_output=True, text=True)
        assert proc.returncode == 2 and "replays a trail" in proc.stderr, (args, proc.stdout, proc.stderr)
