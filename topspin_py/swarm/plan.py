"""Which jobs a swarm runs: each a compile variant of pan and the arguments of one run.

SPIN's swarm tool diversifies a search in two places, and so do we:

* how pan is compiled: the order in which the depth-first search tries the processes
  (-DP_REVERSE, -DP_RAND) and each process's transitions (-DT_REVERSE, -DT_RAND).  Each
  variant is one binary, built once however many jobs use it;
* how it is run: the hash function of the bit array (-hN picks one of pan's built-in
  polynomials), the number of bits set per state (-kN), the seed of P_RAND/T_RAND (-RSN) and
  the depth limit (-mN).

The first job is pan's own defaults (the default build, -h0 -k3, pan's seed): the single
bitstate run a user would make, so a swarm never covers less than that run.  The others come
from a random generator seeded with ``seed``: the same seed gives the same plan.

Only the options the user did not give are diversified: ``--pan -w20`` gives every job -w20,
``--pan -k2`` every job -k2.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from topspin_py.errors import UsageError
from topspin_py.pan.flags import DEFAULT_DEPTH_LIMIT


@dataclass(frozen=True)
class Variant:
    """A way of compiling pan: -D flags that change the order of the search, not what it stores."""

    defines: tuple[str, ...]

    @property
    def name(self) -> str:
        return "+".join(self.defines) or "default"

    @property
    def flags(self) -> tuple[str, ...]:
        return tuple(f"-D{define}" for define in self.defines)


# In the order jobs take them (job i: VARIANTS[i % 8]): the default first, then one change of
# order at a time, then combinations, as SPIN's swarm tool lists its compile options.  pan
# 6.5.2 knows each (its pan.c tests P_REVERSE, P_RAND, T_REVERSE and T_RAND).
VARIANTS = (
    Variant(()),
    Variant(("T_REVERSE",)),
    Variant(("P_RAND",)),
    Variant(("T_RAND",)),
    Variant(("P_REVERSE",)),
    Variant(("P_RAND", "T_RAND")),
    Variant(("P_REVERSE", "T_REVERSE")),
    Variant(("T_RAND", "T_REVERSE")),
)
# The run-time options the plan sets, by pan's letter: -h, -k, -RS, -m.
_HASH_FUNCTIONS = 100      # -hN takes N modulo the size of pan's table of polynomials
_BITS_PER_STATE = (1, 2, 3, 4)
_DEPTH_FACTORS = (1, 1, 2, 4)   # job's -m: the limit times one of these (most at the limit)


@dataclass(frozen=True)
class Job:
    """One run of pan in the swarm."""

    index: int
    variant: Variant
    pan_args: tuple[str, ...]   # the swarm's arguments for this job, after the user's


def plan_jobs(jobs: int, seed: int, user_pan_args: tuple[str, ...] | list[str] = ()) -> list[Job]:
    """``jobs`` diversified jobs (module doc).  Deterministic in ``seed``."""
    if jobs < 1:
        raise UsageError(f"a swarm needs at least one job (--jobs {jobs})")
    given = {_option(arg) for arg in user_pan_args} - {None}
    depth = _user_depth(user_pan_args)
    rng = random.Random(seed)
    planned = []
    for index in range(jobs):
        variant = VARIANTS[index % len(VARIANTS)]
        if index == 0:
            choices = {"h": "-h0", "k": "-k3", "m": f"-m{depth}", "RS": None}
        else:
            choices = {"h": f"-h{rng.randrange(_HASH_FUNCTIONS)}",
                       "k": f"-k{rng.choice(_BITS_PER_STATE)}",
                       "m": f"-m{depth * rng.choice(_DEPTH_FACTORS)}",
                       "RS": f"-RS{rng.randrange(1, 2**31 - 1)}"}
        args = tuple(arg for option, arg in choices.items() if arg is not None and option not in given)
        planned.append(Job(index, variant, args))
    return planned


def variants_of(jobs: list[Job]) -> list[Variant]:
    """The distinct compile variants the jobs use, in the order of their first job."""
    return list(dict.fromkeys(job.variant for job in jobs))


def _option(arg: str) -> str | None:
    """The option of the plan's that a user's pan argument sets: "h", "k", "m" or "RS"."""
    if arg.startswith("-RS"):
        return "RS"
    if arg[:2] in ("-h", "-k", "-m") and arg[2:].isdigit():
        return arg[1]
    return None


def _user_depth(pan_args) -> int:
    limits = [int(arg[2:]) for arg in pan_args if arg.startswith("-m") and arg[2:].isdigit()]
    return limits[-1] if limits else DEFAULT_DEPTH_LIMIT
