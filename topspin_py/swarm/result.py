"""The merged report of a swarm: each job's counts, the first error with its trail, the totals
and the coverage estimate (coverage.py); the summary the CLI prints, the JSON, the exit status.

Exit status: 0 no job found an error, 1 a job found one (its trail is written beside the
model), 2 a job failed (pan did not report: killed, out of memory, a worker lost) and none
found an error, 130 interrupted (Ctrl-C) with no error found.  A swarm stopped by its time
budget has the exit status of what it found: a swarm is never a proof, stopped or not.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from topspin_py.swarm.coverage import Coverage

# A job's status: it finished, its pan was interrupted (time budget, first error elsewhere,
# Ctrl-C: its counts are pan's statistics then), it never started, or it failed.
DONE, INTERRUPTED, NOT_STARTED, FAILED = "done", "interrupted", "not started", "failed"


@dataclass
class JobOutcome:
    index: int
    variant: str                    # the compile variant: "default", "T_REVERSE", "P_RAND+T_RAND"
    pan_args: list[str]             # every argument pan was run with
    status: str                     # DONE, INTERRUPTED, NOT_STARTED or FAILED
    worker: str | None = None       # the worker that ran it (its address)
    states_stored: int = 0
    states_matched: int = 0
    transitions: int = 0
    depth: int = 0                  # depth reached
    depth_limit_hit: bool = False
    errors: int = 0
    error_messages: list[str] = field(default_factory=list)
    hash_factor: float | None = None
    bits_per_state: int | None = None
    memory_mb: float = 0.0
    elapsed_s: float = 0.0          # pan's search time (the job's wall time if pan said none)
    failure: str | None = None      # FAILED: why


@dataclass
class SwarmResult:
    model: str
    strategy: str                   # "none": plain swarm
    exactness: str | None
    group_order: int
    seed: int
    cluster: str                    # "local cluster, 2 workers" or the scheduler's address
    variants: list[str]             # the compile variants built, in the jobs' order
    compile_flags: list[str]        # the -D flags common to every variant
    jobs: list[JobOutcome]
    coverage: Coverage
    stopped: str | None = None      # None, "error found", "time budget" or "interrupted"
    time_budget_s: float | None = None
    first_error: str | None = None  # pan's first error line, of the job whose trail is kept
    error_job: int | None = None
    trail: str | None = None
    replay_command: str | None = None
    trail_notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    def count(self, status: str) -> int:
        return sum(job.status == status for job in self.jobs)

    @property
    def errors(self) -> int:
        """How many jobs found errors."""
        return sum(job.errors > 0 for job in self.jobs)

    @property
    def exit_status(self) -> int:
        if self.errors:
            return 1
        if self.stopped == "interrupted":
            return 130
        return 2 if self.count(FAILED) else 0

    def to_dict(self) -> dict:
        data = asdict(self)
        data.update(errors=self.errors, jobs_planned=len(self.jobs), jobs_done=self.count(DONE),
                    jobs_interrupted=self.count(INTERRUPTED), jobs_not_started=self.count(NOT_STARTED),
                    jobs_failed=self.count(FAILED), exit_status=self.exit_status)
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def summary(self) -> str:
        strategy = ("none (plain swarm)" if self.strategy == "none"
                    else f"{self.strategy} ({self.exactness}), group order {self.group_order:,}")
        status = ", ".join(f"{n} {name}" for name in (DONE, INTERRUPTED, NOT_STARTED, FAILED)
                           if (n := self.count(name)))
        lines = [
            f"{'model:':16}{self.model}",
            f"{'strategy:':16}{strategy}",
            f"{'swarm:':16}{len(self.jobs)} jobs ({status}) on {self.cluster}, seed {self.seed}",
            f"{'variants:':16}{', '.join(self.variants)} (with {' '.join(self.compile_flags)})",
            "jobs:",
        ]
        for job in self.jobs:
            lines.append(f"  {job.index:3} {job.variant:22} {' '.join(job.pan_args):40} " + _job_line(job))
        cov = self.coverage
        lines += [
            f"{'states stored:':16}{cov.states_sum:,} in all, {cov.states_max:,} by the largest job",
            f"{'coverage:':16}about {cov.states_estimate:,} distinct states (an estimate, between "
            f"{cov.states_max:,} and {cov.states_sum:,}; estimated state space {cov.space_estimate:,})",
            f"{'depth reached:':16}{max((job.depth for job in self.jobs), default=0):,}",
            f"{'errors:':16}{self.errors} job(s) found errors"
            + (f"; first: job {self.error_job}: {self.first_error}" if self.first_error else ""),
        ]
        if self.trail:
            lines.append(f"{'trail:':16}{self.trail}")
            lines.append(f"{'replay:':16}{self.replay_command}")
        lines += [f"{'trail note:':16}{text}" for text in self.trail_notes]
        if self.stopped:
            lines.append(f"{'stopped:':16}{_stopped_words(self)}")
        lines.append(f"{'search:':16}bitstate: approximate, \"no errors\" is not a proof")
        lines.append(f"{'time:':16}{self.wall_s:.2f} s in all")
        lines += [f"{'warning:':16}{text}" for text in self.warnings]
        for job in self.jobs:
            if job.status == FAILED:
                lines.append(f"{'job failed:':16}{job.index}: {job.failure}")
        return "\n".join(lines)


def _job_line(job: JobOutcome) -> str:
    if job.status in (NOT_STARTED, FAILED):
        return job.status
    text = f"{job.states_stored:>11,} states, depth {job.depth:,}"
    if job.hash_factor is not None:
        text += f", hash factor {job.hash_factor:.3g}"
    text += f", {job.elapsed_s:.2f} s"
    if job.errors:
        text += ", ERROR"
    if job.status == INTERRUPTED:
        text += " (interrupted)"
    elif job.depth_limit_hit:
        text += " (depth limit)"
    return text


def _stopped_words(result: SwarmResult) -> str:
    left = (f"{result.count(INTERRUPTED)} job(s) interrupted (their counts so far are included), "
            f"{result.count(NOT_STARTED)} not started")
    if result.stopped == "time budget":
        return f"the time budget of {result.time_budget_s:g} s ran out: {left}"
    if result.stopped == "error found":
        return f"at the first error found: {left}"
    return f"interrupted: {left}"
