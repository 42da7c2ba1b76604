"""The whole swarm as one function: ``swarm(model, options) -> SwarmResult``.

    plan the jobs (plan.py) -> verify's stages up to gcc, one pan per variant (build.py)
      -> the jobs on a dask cluster (cluster.py, worker.py) -> each pan report parsed as it
      arrives -> the first error's trail beside the model -> the merged report (result.py)

Policies decided here:

* the swarm stops at the first error a job reports (pan stops at its first error too, -c1):
  the other jobs are interrupted and report their statistics so far;
* the trail kept is that of the first job to report an error, written beside the model under
  pan's name as verify writes it (trails.save_trails: ``m.pml.trail``, replacing an earlier
  one; for a model that uses the ref/public extension, the desugared copy beside it), so that
  ``spin -t`` replays it;
* every job's report must say that the canonicaliser was compiled in (pipeline.check_report),
  and agree with the trails pan wrote (search.check_report_is_pans); a job whose pan ended
  with a status other than 0 (killed, or stopped before its report) has no report (pan's
  report is read from its own block at the end of its output, pan/output.py).
"""

from __future__ import annotations

import dataclasses
import os
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from topspin_py import strategies
from topspin_py.errors import UsageError
from topspin_py.pan import trails
from topspin_py.pan.flags import DEFAULT_OPTIMISATION
from topspin_py.pan.output import PanReport, parse_pan_output
from topspin_py.pan.search import check_report_is_pans
from topspin_py.pan.trails import save_trails
from topspin_py.pipeline import check_report
from topspin_py.reporting import Reporter
from topspin_py.swarm.build import bitstate_defines, build_binaries
from topspin_py.swarm.cluster import Finished, connect, run_jobs
from topspin_py.swarm.coverage import JobCounts, estimate
from topspin_py.swarm.plan import Job, plan_jobs, variants_of
from topspin_py.swarm.result import DONE, FAILED, INTERRUPTED, NOT_STARTED, JobOutcome, SwarmResult
from topspin_py.verify import VerifyOptions

DEFAULT_JOBS = 8


@dataclass(frozen=True)
class SwarmProgress:
    """How far a swarm is, for a live display."""

    jobs: int
    finished: int
    states: int         # stored, summed over the jobs finished
    errors: int         # jobs that found errors
    elapsed_s: float


@dataclass
class SwarmOptions:
    jobs: int = DEFAULT_JOBS
    time_budget_s: float | None = None   # then the swarm stops, with what it has
    scheduler: str | None = None         # a dask scheduler's address; None: a LocalCluster
    local_workers: int | None = None     # the LocalCluster's worker processes (default: one a core, at most one a job)
    strategy: str = "auto"
    defines: tuple[str, ...] = ()
    pan_args: tuple[str, ...] = ()       # for every job, before the swarm's own (plan.py)
    spin_args: tuple[str, ...] = ()
    seed: int | None = None              # of the plan; None: a random one, reported
    safety: bool = False
    optimisation: str = DEFAULT_OPTIMISATION
    use_cache: bool = True               # reuse the variants' builds (pan/build_cache.py)
    on_progress: Callable[[SwarmProgress], None] | None = None
    on_note: Callable[[str], None] | None = None
    on_detail: Callable[[str], None] | None = None
    on_stage: Callable[[str, int | None], None] | None = None


def swarm(model_path: str | Path, options: SwarmOptions | None = None) -> SwarmResult:
    options = options or SwarmOptions()
    started = time.monotonic()
    model = Path(model_path)
    if not model.is_file():   # (verify's own check, before a cluster is started for nothing)
        raise UsageError(f"model file not found: {model}" if not model.exists()
                         else f"{model} is not a file", hint="give the Promela model's file")
    if options.time_budget_s is not None and not options.time_budget_s > 0:
        raise UsageError(f"bad time budget {options.time_budget_s:g}", hint="give a positive number of seconds")
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    planned = plan_jobs(options.jobs, seed, options.pan_args)
    verify_options = VerifyOptions(strategy=options.strategy, defines=bitstate_defines(options.defines),
                                   pan_args=options.pan_args, spin_args=options.spin_args, safety=options.safety,
                                   save_trails=False, optimisation=options.optimisation, on_note=options.on_note,
                                   use_cache=options.use_cache,
                                   on_detail=options.on_detail, on_stage=options.on_stage)
    reporter = Reporter.of(verify_options)
    local_workers = options.local_workers or min(options.jobs, os.cpu_count() or 1)
    with tempfile.TemporaryDirectory(prefix="topspin-swarm-") as name:
        workdir = Path(name)
        outcomes: dict[int, JobOutcome] = {}
        first: list[tuple[Job, PanReport, dict]] = []   # the first job to report an error

        def progress() -> None:
            if options.on_progress is not None:
                done = [o for o in outcomes.values() if o.status != NOT_STARTED]
                options.on_progress(SwarmProgress(len(jobs), len(outcomes), sum(o.states_stored for o in done),
                                                  sum(o.errors > 0 for o in done), time.monotonic() - started))

        def finished(end: Finished) -> bool:
            outcome, report = _outcome(end, build.source, model)
            if report is not None and outcome.status != FAILED:
                check_report(build, report)
                check_report_is_pans(report, build.defines)
            outcomes[end.job.index] = outcome
            if outcome.errors and not first and end.payload is not None and report is not None:
                first.append((end.job, report, end.payload))
            progress()
            return outcome.errors > 0

        # The cluster first: a scheduler that cannot be reached is said before any work.
        reporter.stage("swarm: connecting to the cluster" if options.scheduler else "swarm: starting a local cluster",
                       None)
        with connect(options.scheduler, local_workers) as (client, cluster):
            reporter.detail(f"swarm: {len(planned)} jobs on {cluster}")
            built = build_binaries(model, verify_options, variants_of(planned), workdir, reporter)
            build = built.build
            jobs = [dataclasses.replace(job, pan_args=(*build.pan_args, *job.pan_args)) for job in planned]
            reporter.stage(f"swarm: running {len(jobs)} jobs", None)
            ends, stopped = run_jobs(client, jobs, built.binaries, options.time_budget_s, finished, progress)
        for end in ends:   # the ones cancelled after the grace period were never heard of
            if end.job.index not in outcomes:
                outcomes[end.job.index] = _outcome(end, build.source, model)[0]
        trail = replay = None
        trail_notes: list[str] = []
        if first:
            job, report, payload = first[0]
            trail_dir = workdir / "trail"
            trail_dir.mkdir()
            for trail_name, data in payload["trails"].items():
                (trail_dir / trail_name).write_bytes(data)
            saved = save_trails(report, trail_dir, model, None, build.replay_args,
                                (build.source, build.desugared) if build.desugared is not None else None)
            trail = str(saved.paths[0]) if saved.paths else None
            replay, trail_notes = saved.replay, saved.notes

    ordered = [outcomes[job.index] for job in jobs]
    default_flags = built.flags[planned[0].variant]
    result = SwarmResult(
        model=str(model), strategy=build.strategy, exactness=strategies.exactness(build.strategy),
        group_order=build.group.order if build.group is not None and build.strategy != "none" else 1,
        seed=seed, cluster=cluster, variants=[variant.name for variant in built.binaries],
        compile_flags=[flag for flag in default_flags if flag not in planned[0].variant.flags],
        jobs=ordered, coverage=estimate([_counts(o) for o in ordered if o.status in (DONE, INTERRUPTED)]),
        stopped=stopped, time_budget_s=options.time_budget_s,
        first_error=first[0][1].error_lines[0] if first and first[0][1].error_lines else None,
        error_job=first[0][0].index if first else None, trail=trail, replay_command=replay,
        trail_notes=trail_notes, wall_s=round(time.monotonic() - started, 3))
    if text := strategies.warning(build.strategy):
        result.warnings.append(text)
    cut = [o.index for o in ordered if o.depth_limit_hit]
    if cut:
        result.warnings.append(f"{len(cut)} job(s) reached their depth limit (-m): a larger --pan -mN "
                               "searches deeper")
    return result


def _outcome(end: Finished, source: Path, model: Path) -> tuple[JobOutcome, PanReport | None]:
    """A job's outcome from what its worker returned."""
    job = end.job
    outcome = JobOutcome(index=job.index, variant=job.variant.name, pan_args=list(job.pan_args), status=FAILED)
    payload = end.payload
    if payload is None:
        outcome.failure = end.failure
        return outcome, None
    outcome.worker = payload["worker"]
    if not payload["started"]:
        outcome.status = NOT_STARTED
        return outcome, None
    # pan names the model by the absolute path spin was given; show the user's path.
    output = payload["output"].replace(str(source.resolve()), str(model))
    report = parse_pan_output(output)
    # the trails pan wrote: the worker sends the files it found beside pan (pan/trails.py)
    report.trail_files = [name for name in report.trail_files if name in payload["trails"]
                          and trails.is_pan_trail_name(name, source.name, trails.trail_suffix(job.pan_args))]
    stopped_before_report = (payload["returncode"] or 0) != 0 and not payload["interrupted"]
    if not report.has_summary or stopped_before_report:
        # pan exits with status 0 after its report: after any other end, the report-like text
        # last in its output may be the model's imitation (pan/output.py)
        tail = " / ".join(output.strip().splitlines()[-3:]) or "no output"
        outcome.failure = (f"pan ended with status {payload['returncode']} without a report ({tail})"
                           if report.vectorsz_needed is None else
                           f"the state vector needs more than VECTORSZ bytes: pass -DVECTORSZ={report.vectorsz_needed}")
        return outcome, report
    outcome.status = INTERRUPTED if payload["interrupted"] and report.interrupted else DONE
    outcome.states_stored = _int(report.states_stored)
    outcome.states_matched = _int(report.states_matched)
    outcome.transitions = _int(report.transitions)
    outcome.depth = report.depth or 0
    outcome.depth_limit_hit = report.depth_limit_hit
    outcome.errors = report.errors or 0
    outcome.error_messages = list(report.error_lines)
    outcome.hash_factor = report.hash_factor
    outcome.bits_per_state = report.bits_per_state
    outcome.memory_mb = report.memory_mb or 0.0
    elapsed = report.elapsed_s
    outcome.elapsed_s = round(payload["wall_s"] if elapsed is None or elapsed > payload["wall_s"] + 1 else elapsed, 3)
    return outcome, report


def _counts(outcome: JobOutcome) -> JobCounts:
    return JobCounts(outcome.states_stored, outcome.states_matched, outcome.hash_factor, outcome.bits_per_state)


def _int(value: float | None) -> int:
    return int(round(value)) if value is not None else 0
