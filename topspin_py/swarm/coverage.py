"""What the jobs' counts say about the states a swarm covered.

The union of the states the jobs reached is not observable: pan counts the states it stores,
it does not list them.  What is certain, for a bitstate search, is that each state a job
stored is one it reached (pan stores a state once, when its bits were not all set), so

    the largest job's count  <=  the states the swarm reached  (up to nothing)
    the sum of the counts    >=  the states the jobs stored together (they overlap)

Between the two we give an estimate, from two assumptions that are only approximately true:

1. A job loses a new state when all k bits the state hashes to are already set.  With m bits
   (the hash factor pan prints times the states stored) and x states stored, k bits each,
   that happens with probability p(x) = (1 - e^(-kx/m))^k.  Before its j-th store a job
   meets p/(1-p) such states on average, so it dropped about L = integral over 0..n of
   p(x)/(1-p(x)) dx states it had reached (at most the matches pan counted).  The job reached
   at least n + L states: the size of the state space is estimated as R = max over the jobs of
   n + L (never below the largest count).  The subtrees below the dropped states are not in
   it: R is low when the bit arrays were full.
2. The jobs are independent random samples of the R states (what the swarm's diversification
   aims at).  Samples of sizes n_1 ... n_N then cover R * (1 - prod(1 - n_i / R)) states on
   average: the estimate.

With a hash factor above 100 a job loses almost nothing, R is its count, and the estimate says
that the swarm covered what one job did; with full bit arrays it grows with the jobs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

_STEPS = 256   # of the numerical integral of p/(1-p)


@dataclass(frozen=True)
class JobCounts:
    """The counts of one job that the estimate needs (from its pan report)."""

    stored: int
    matched: int
    hash_factor: float | None   # None: pan printed none (no bitstate, or no states)
    bits_per_state: int | None


@dataclass(frozen=True)
class Coverage:
    states_max: int            # the largest job's count: the swarm reached at least these
    states_sum: int            # the jobs' counts added: they stored no more than these together
    states_estimate: int       # the estimate of the module doc
    space_estimate: int        # R: the estimated number of reachable states (module doc, 1)
    lost_estimate: int         # the states the best-covered job dropped to hash collisions (1)


def dropped(counts: JobCounts) -> float:
    """L of the module doc: the new states a job met and took for stored ones."""
    n, k = counts.stored, counts.bits_per_state or 3
    if n <= 0 or counts.hash_factor is None or not math.isfinite(counts.hash_factor):
        return 0.0
    m = counts.hash_factor * n
    total = 0.0
    for step in range(_STEPS):
        x = (step + 0.5) * n / _STEPS
        p = (1.0 - math.exp(-k * x / m)) ** k
        total += (p / (1.0 - p) if p < 1.0 else math.inf) * n / _STEPS
    return min(total, float(counts.matched))


def estimate(jobs: list[JobCounts]) -> Coverage:
    counted = [job for job in jobs if job.stored > 0]
    if not counted:
        return Coverage(0, 0, 0, 0, 0)
    states_max = max(job.stored for job in counted)
    states_sum = sum(job.stored for job in counted)
    reached = [(job.stored + dropped(job), job) for job in counted]
    space, best = max(reached, key=lambda pair: pair[0])
    space = max(space, float(states_max))
    missed = 1.0
    for job in counted:
        missed *= 1.0 - job.stored / space
    union = space * (1.0 - missed)
    union = min(max(union, states_max), states_sum)
    return Coverage(states_max, states_sum, round(union), round(space), round(space - best.stored))
