"""``topspin-py swarm``: diversified bitstate runs on a dask.distributed cluster.

Everything here is real: spin, gcc, pan, and dask clusters of worker processes.  The cluster
test starts its own scheduler and two workers as separate processes (``dask scheduler``,
``dask worker``), as a user starts a cluster, and gives the swarm only the scheduler's address;
there, topspin-py cannot be imported and neither spin nor gcc is on the PATH, as the README
says a worker needs none of them.

* the deep rare bug of tests/models/deep_lock.pml: one bitstate run with -w13 (symmetry on,
  pan's default order) misses it; the swarm finds it on the two-worker cluster, and its trail
  replays with ``spin -t`` to the assertion violation;
* every compile variant (-DT_REVERSE, -DP_RAND, -DT_RAND, -DP_REVERSE and their combinations)
  with the canonicaliser spliced in stores exactly one state per orbit when the bit array is
  big enough (Peterson 3: 494 orbits, -DNOREDUCE), so the variants change the order of the
  search and nothing else;
* the time budget stops running jobs (their pan reports its statistics so far) and leaves
  queued ones unstarted;
* the plan is deterministic in its seed and leaves alone what the user set;
* bad input: exit status 2, a message, no traceback.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import MODELS, REPO
from families import peterson

DASK = Path(sys.executable).parent / "dask"
DEEP_LOCK = MODELS / "deep_lock.pml"


def topspin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "topspin_py.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def no_traceback(run: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in run.stderr, run.stderr


# ------------------------------------------------------------------------------- the cluster


@pytest.fixture
def dask_cluster(tmp_path):
    """A dask scheduler and two dask workers, each a process of its own on localhost; yields
    the scheduler's address.  Stopped (SIGTERM, then SIGKILL) whatever the test did."""
    from distributed import Client

    scheduler_file = tmp_path / "scheduler.json"
    log = (tmp_path / "dask.log").open("w")
    started: list[subprocess.Popen] = []
    # The scheduler and the workers are as bare as the README says they may be: topspin-py
    # cannot be imported there (a sitecustomize on their PYTHONPATH blocks it, in the nanny's
    # worker process too) and their PATH has neither spin nor gcc.
    bare = tmp_path / "bare"
    (bare / "bin").mkdir(parents=True)
    (bare / "sitecustomize.py").write_text('import sys\nsys.modules["topspin_py"] = None\n')
    bare_env = {**os.environ, "PATH": str(bare / "bin"), "PYTHONPATH": str(bare)}

    def start(*args: str, env: dict[str, str] | None = None) -> None:
        started.append(subprocess.Popen([str(DASK), *args], stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, cwd=tmp_path, start_new_session=True,
                                        env=env))

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(scheduler_file), env=bare_env)
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            assert started[0].poll() is None, (tmp_path / "dask.log").read_text()
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        for _ in range(2):
            start("worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                  "--local-directory", str(tmp_path / "workers"), env=bare_env)
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
            workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
            # The workers really are bare (asked of the worker processes themselves).
            for what in (client.run(importlib.util.find_spec, "topspin_py"),
                         client.run(shutil.which, "spin"), client.run(shutil.which, "gcc")):
                assert set(what) == set(workers) and set(what.values()) == {None}, what
        assert len(workers) == 2
        yield address, workers
    finally:
        for process in reversed(started):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        log.close()


def test_one_bitstate_run_misses_the_deep_bug(tmp_path):
    """The single run the swarm competes with: pan's defaults, -w13, the same symmetry."""
    model = tmp_path / DEEP_LOCK.name
    shutil.copy(DEEP_LOCK, model)
    run = topspin("verify", model.name, "-DBITSTATE", "--pan", "-w13", "--json", cwd=tmp_path)
    no_traceback(run)
    result = json.loads(run.stdout)
    assert run.returncode == 0, run.stderr
    assert result["errors"] == 0 and result["group_order"] == 6
    assert result["states_stored"] > 1000      # it searched, and its bit array filled up
    assert not (tmp_path / (model.name + ".trail")).exists()


def test_swarm_on_a_two_worker_cluster_finds_the_deep_bug(tmp_path, dask_cluster):
    address, workers = dask_cluster
    model = tmp_path / DEEP_LOCK.name
    shutil.copy(DEEP_LOCK, model)
    run = topspin("swarm", model.name, "--jobs", "4", "--pan", "-w13", "--seed", "1",
                  "--scheduler", address, "--json", cwd=tmp_path)
    no_traceback(run)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr      # errors found
    result = json.loads(run.stdout)
    assert result["strategy"] == "refine" and result["group_order"] == 6
    assert result["cluster"].startswith(f"the cluster at {address} (2 workers")
    jobs = result["jobs"]
    assert len(jobs) == 4 and result["jobs_failed"] == 0
    # Job 0 is the single run above (pan's defaults, the default build): it misses the bug.
    assert jobs[0]["variant"] == "default" and "-w13" in jobs[0]["pan_args"]
    if jobs[0]["status"] == "done":
        assert jobs[0]["errors"] == 0
    assert result["errors"] >= 1
    finder = jobs[result["error_job"]]
    assert finder["variant"] != "default" and finder["errors"] == 1
    assert "assertion violated (level<30)" in result["first_error"]
    # The jobs ran on the two worker processes, nowhere else.
    ran_on = {job["worker"] for job in jobs if job["status"] != "not started"}
    assert ran_on <= set(workers) and len(ran_on) == 2
    # The trail, beside the model under pan's name, replays with real spin to the violation.
    trail = tmp_path / (model.name + ".trail")
    assert result["trail"] == model.name + ".trail" and trail.is_file()
    assert result["replay_command"].endswith(f"-t -p {model.name}")
    replay = subprocess.run(["spin", "-t", "-p", model.name], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert "assertion violated" in replay.stdout, replay.stdout[-2000:]
    assert "level = 30" in replay.stdout
    # Counts and the coverage estimate are consistent with each other.
    coverage = result["coverage"]
    counted = [job["states_stored"] for job in jobs if job["status"] in ("done", "interrupted")]
    assert coverage["states_sum"] == sum(counted) and coverage["states_max"] == max(counted)
    assert coverage["states_max"] <= coverage["states_estimate"] <= coverage["states_sum"]


# ---------------------------------------------------------------------- a local cluster's runs


def test_every_variant_with_the_splice_stores_one_state_per_orbit(tmp_path):
    """Peterson 3 has 494 orbits (-DSAFETY -DNOREDUCE; bench/results/reduction.md).  With a bit
    array of 2^22 bits no state is lost (hash factor > 8000), so each of the eight builds
    stores all of them, in its own order, whatever its hash function and seed."""
    model = tmp_path / "peterson3.pml"
    model.write_text(peterson(3))
    run = topspin("swarm", model.name, "--jobs", "8", "--workers", "2", "--pan", "-w22", "--seed", "7",
                  "-DNOREDUCE", "--gcc-opt", "-O0", "--json", cwd=tmp_path)
    no_traceback(run)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["variants"] == ["default", "T_REVERSE", "P_RAND", "T_RAND", "P_REVERSE", "P_RAND+T_RAND",
                                  "P_REVERSE+T_REVERSE", "T_RAND+T_REVERSE"]
    assert result["cluster"] == "a local cluster of 2 worker processes"
    assert [job["status"] for job in result["jobs"]] == ["done"] * 8
    assert [job["states_stored"] for job in result["jobs"]] == [494] * 8
    assert len({" ".join(job["pan_args"]) for job in result["jobs"]}) == 8   # diversified
    # Every job found the same 494 states: the estimate says the swarm covered what one did.
    assert result["coverage"]["states_estimate"] == 494 and result["coverage"]["states_sum"] == 8 * 494
    assert result["errors"] == 0 and result["trail"] is None


def test_plain_swarm_reaches_the_unreduced_states(tmp_path):
    """--strategy none: plain SPIN's pan in every job (Peterson 3: 2,636 states unreduced)."""
    model = tmp_path / "peterson3.pml"
    model.write_text(peterson(3))
    run = topspin("swarm", model.name, "--strategy", "none", "--jobs", "2", "--workers", "1", "--pan", "-w22",
                  "--seed", "3", "-DNOREDUCE", "--gcc-opt", "-O0", "--json", cwd=tmp_path)
    no_traceback(run)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["strategy"] == "none" and result["group_order"] == 1
    assert [job["states_stored"] for job in result["jobs"]] == [2636, 2636]


def test_time_budget_stops_the_swarm_with_what_it_has(tmp_path):
    """Peterson 7 unreduced is far beyond a few seconds of pan (plain SPIN does not finish it
    in minutes): with one worker and a 4 s budget the running job is interrupted and reports
    its statistics so far, the others never start, and the report says so."""
    model = tmp_path / "peterson7.pml"
    model.write_text(peterson(7))
    run = topspin("swarm", model.name, "--strategy", "none", "--jobs", "3", "--workers", "1", "--pan", "-w26",
                  "--time-budget", "4s", "--seed", "5", "-DNOREDUCE", "--gcc-opt", "-O0", "--json", cwd=tmp_path)
    no_traceback(run)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["stopped"] == "time budget" and result["time_budget_s"] == 4
    statuses = sorted(job["status"] for job in result["jobs"])
    assert statuses == ["interrupted", "not started", "not started"], result["jobs"]
    interrupted = next(job for job in result["jobs"] if job["status"] == "interrupted")
    assert interrupted["states_stored"] > 0 and interrupted["errors"] == 0
    assert result["coverage"]["states_max"] == interrupted["states_stored"]


def test_ctrl_c_stops_the_swarm_with_what_it_has(tmp_path):
    """Ctrl-C at the terminal reaches the whole process group, the local cluster's workers
    included: they ignore it, stop their pan through the swarm's stop event, and the report
    comes out with exit status 130.  The signal is sent once the jobs are submitted."""
    model = tmp_path / "peterson7.pml"
    model.write_text(peterson(7))
    process = subprocess.Popen(
        [sys.executable, "-m", "topspin_py.cli", "swarm", model.name, "--strategy", "none", "--jobs", "3",
         "--workers", "2", "--pan", "-w26", "--seed", "5", "-DNOREDUCE", "--gcc-opt", "-O0", "--progress", "--json"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stderr is not None  # stderr=PIPE
        seen = b""
        while b"swarm: 0/3 jobs done" not in seen:
            chunk = os.read(process.stderr.fileno(), 4096)
            assert chunk, seen.decode(errors="replace")
            seen += chunk
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert b"Traceback" not in seen + err, (seen + err).decode(errors="replace")
    assert process.returncode == 130, (seen + err).decode(errors="replace")
    result = json.loads(out)
    assert result["stopped"] == "interrupted" and result["jobs_failed"] == 0
    assert {job["status"] for job in result["jobs"]} <= {"interrupted", "not started", "done"}


def test_summary_names_each_job_and_the_estimate(tmp_path):
    model = tmp_path / DEEP_LOCK.name
    shutil.copy(DEEP_LOCK, model)
    run = topspin("swarm", model.name, "--jobs", "2", "--workers", "1", "--pan", "-w13", "--seed", "1",
                  "--gcc-opt", "-O0", cwd=tmp_path)
    no_traceback(run)
    assert run.returncode == 1, run.stderr   # job 1 (-DT_REVERSE) finds the bug
    out = run.stdout
    assert "strategy:       refine (exact), group order 6" in out
    assert "2 jobs (" in out and "seed 1" in out
    assert "coverage:       about " in out and "(an estimate, between " in out
    assert "first: job 1: pan:1: assertion violated (level<30)" in out
    assert f"replay:         spin -DBITSTATE -t -p {model.name}" in out
    assert '"no errors" is not a proof' in out


# ------------------------------------------------------------------------------------ the plan


def test_plan_is_deterministic_and_keeps_what_the_user_set():
    from topspin_py.swarm.plan import VARIANTS, plan_jobs

    first = plan_jobs(10, seed=42)
    assert first == plan_jobs(10, seed=42) and first != plan_jobs(10, seed=43)
    assert first[0].variant == VARIANTS[0] and first[0].pan_args == ("-h0", "-k3", "-m10000")
    assert [job.variant for job in first[:8]] == list(VARIANTS) and first[8].variant == VARIANTS[0]
    assert all(any(arg.startswith("-RS") for arg in job.pan_args) for job in first[1:])
    kept = plan_jobs(5, seed=42, user_pan_args=("-w20", "-k2", "-m500"))
    for job in kept:
        assert not any(arg.startswith(("-k", "-m", "-w")) for arg in job.pan_args), job


def test_coverage_estimate_between_its_bounds():
    from topspin_py.swarm.coverage import JobCounts, estimate

    roomy = estimate([JobCounts(1000, 3000, 4000.0, 3)] * 4)      # nothing lost: one job saw it all
    assert (roomy.states_max, roomy.states_estimate, roomy.states_sum) == (1000, 1000, 4000)
    full = estimate([JobCounts(1000, 3000, 2.0, 3), JobCounts(900, 3000, 2.2, 2)])
    assert full.space_estimate > 1000 and 1000 < full.states_estimate < 1900


# ---------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("args, message", [
    (["missing.pml"], "model file not found: missing.pml"),
    ([DEEP_LOCK, "--jobs", "0"], "--jobs 0: a swarm needs at least one job"),
    ([DEEP_LOCK, "--time-budget", "soon"], "bad time for --time-budget: 'soon'"),
    ([DEEP_LOCK, "-DBFS"], "-DBFS is not for a swarm"),
    ([DEEP_LOCK, "-DCOLLAPSE"], "-DCOLLAPSE is not for a swarm"),
    ([DEEP_LOCK, "--scheduler", "nonsense"], "bad scheduler address 'nonsense'"),
    ([DEEP_LOCK, "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"], "--workers sizes the local cluster"),
])
def test_bad_input_exit_2_no_traceback(tmp_path, args, message):
    run = topspin("swarm", *map(str, args), cwd=tmp_path)
    no_traceback(run)
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert run.stdout == ""


def test_repository_layout():
    """The worker's module imports the standard library only (workers need no topspin-py)."""
    source = (REPO / "topspin_py" / "swarm" / "worker.py").read_text()
    imports = [line.split()[1] for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert set(imports) <= {"__future__", "os", "signal", "socket", "subprocess", "tempfile", "time", "pathlib"}
