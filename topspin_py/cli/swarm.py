"""``topspin-py swarm``: diversified bitstate runs on a dask cluster (topspin_py/swarm/)."""

from __future__ import annotations

import argparse
import shlex
import sys

from topspin_py import strategies
from topspin_py.cli.common import (
    NO_CACHE_HELP,
    add_define_option,
    seconds,
    to_stderr,
    with_strategies,
    wrapped,
)
from topspin_py.pan.flags import DEFAULT_OPTIMISATION, OPTIMISATION_LEVELS


def add(commands) -> None:
    parser = commands.add_parser(
        "swarm", allow_abbrev=False, help="swarm verification: many diversified bitstate runs on a dask cluster",
        description=wrapped(
            "Plan N diversified bitstate runs of pan on MODEL (compile variants -DT_REVERSE, -DP_RAND, "
            "-DT_RAND, -DP_REVERSE and run-time hash functions -hN, bits per state -kN, seeds -RSN, "
            "depth limits -mN), build each variant once with the same symmetry reduction as verify, run "
            "the jobs on a dask.distributed cluster (a LocalCluster of worker processes, or the one at "
            "--scheduler) and merge their reports: the first error with its trail (beside MODEL, as "
            "verify writes it), each job's states and depth, the total and a coverage estimate. The swarm "
            "stops at the first error. A bitstate search is approximate: \"no errors\" is not a proof."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=with_strategies("exit status: 0 no job found an error, 1 a job found one (its trail is "
                                "written next to MODEL), 2 bad input, a tool failure or a failed job, "
                                "130 interrupted"))
    parser.add_argument("model", metavar="MODEL", help="the Promela model")
    parser.add_argument("--jobs", type=int, default=8, metavar="N", help="how many runs of pan (default: %(default)s)")
    parser.add_argument("--time-budget", dest="time_budget", metavar="T",
                        help="stop the swarm after T (seconds, or with a unit: 90s, 10m, 2h) and report "
                             "what it has: running jobs report their statistics so far")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="the dask scheduler of your cluster, e.g. tcp://host:8786 (default: a local "
                             "cluster on this machine)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="the local cluster's worker processes (default: one per core, at most one per job)")
    parser.add_argument("--strategy", choices=strategies.choices(), default=strategies.AUTO, metavar="NAME",
                        help="symmetry reduction strategy, as for verify; none: a plain swarm (default: %(default)s)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="the seed of the plan (default: a random one, which the report gives)")
    add_define_option(parser, "for spin's preprocessor and for gcc (-DBITSTATE is added; repeatable)")
    parser.add_argument("--pan", dest="pan_args", action="append", default=[], metavar="ARG",
                        help="run-time arguments for every pan job, e.g. --pan -w20 (the swarm then does not "
                             "vary what you set: -h, -k, -RS, -m)")
    parser.add_argument("--spin", dest="spin_args", action="append", default=[], metavar="ARG",
                        help="spin's own options for spin -a, as for verify (repeatable)")
    parser.add_argument("--safety", action="store_true",
                        help="search for safety violations only, even if the model has accept labels")
    parser.add_argument("--no-cache", action="store_true", help=NO_CACHE_HELP)
    parser.add_argument("--gcc-opt", dest="optimisation", default=DEFAULT_OPTIMISATION, choices=OPTIMISATION_LEVELS,
                        metavar="LEVEL", help="gcc's optimisation level for pan.c (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object on stdout")
    parser.add_argument("--progress", action="store_true",
                        help="show the live progress line even when stderr is not a terminal")
    noise = parser.add_mutually_exclusive_group()
    noise.add_argument("--quiet", action="store_true", help="no progress or notes on stderr")
    noise.add_argument("--verbose", action="store_true", help="show the spin and gcc commands and the decisions")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from topspin_py.errors import UsageError
    from topspin_py.swarm.display import SwarmDisplay
    from topspin_py.swarm.run import SwarmOptions, swarm

    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: a swarm needs at least one job")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: the local cluster needs at least one worker")
    if args.workers is not None and args.scheduler is not None:
        raise UsageError("--workers sizes the local cluster; with --scheduler your cluster has its own workers")
    budget = None if args.time_budget is None else seconds(args.time_budget, "--time-budget")
    live = not args.quiet and (args.progress or sys.stderr.isatty())
    display = SwarmDisplay(sys.stderr) if live else None
    notes = None if args.quiet else (display.note if display is not None else to_stderr(None))
    options = SwarmOptions(
        jobs=args.jobs, time_budget_s=budget, scheduler=args.scheduler, local_workers=args.workers,
        strategy=args.strategy, defines=tuple(args.defines),
        pan_args=tuple(word for value in args.pan_args for word in shlex.split(value)),
        spin_args=tuple(word for value in args.spin_args for word in shlex.split(value)),
        seed=args.seed, safety=args.safety, optimisation=args.optimisation, use_cache=not args.no_cache,
        on_progress=display.progress if display is not None else None, on_note=notes,
        on_detail=notes if args.verbose else None, on_stage=display.stage if display is not None else None)
    try:
        result = swarm(args.model, options)
    finally:
        if display is not None:
            display.finish()
    print(result.to_json() if args.json else result.summary())
    return result.exit_status
