"""``topspin-py verify``: spin -a, the symmetry, gcc and pan, and pan's verdict (verify.py)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from topspin_py import strategies
from topspin_py.cli.common import (
    CHECK_BUDGET,
    NO_CACHE_HELP,
    add_define_option,
    budget,
    help_width,
    to_stderr,
)
from topspin_py.pan.flags import DEFAULT_OPTIMISATION, OPTIMISATION_LEVELS
from topspin_py.pan.progress import ProgressDisplay


def add(commands) -> None:
    verify_parser = commands.add_parser(
        "verify", allow_abbrev=False, help="verify a Promela model with SPIN",
        usage="%(prog)s [options] [SPIN-OPTIONS -run] [PAN-OPTIONS] MODEL [PAN-OPTIONS]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run spin -a, gcc and pan on MODEL and report pan's verdict.\n\n"
                    "pan's options are written as for spin -run or pan, before or after MODEL:\n"
                    "  topspin-py verify m.pml -a -N safe -m100000 -c0 -w26 -DNOREDUCE\n"
                    "  topspin-py verify -o3 -f '![] p' -run -a -DNOREDUCE m.pml\n"
                    "with spin -run's defaults: -l compiles with -DNP, -i with -DREACH, a model with\n"
                    "accept labels is searched with -a, -DNP with -l; spin -run's shorthands -safety,\n"
                    "-noreduce, -bfs, -bitstate, -collapse, -hc, -noclaim, -np, -permuted become -D\n"
                    "flags, -ltl NAME is -N NAME, -O0...-O3 is --gcc-opt. Words before -run are spin's\n"
                    "own options: -o1...-o5, -f FORMULA, -F FILE (a never claim from an LTL formula),\n"
                    "-N FILE (a never claim in a file of its own; the symmetry detection sees either\n"
                    "claim), -E-IDIR (an include directory for the preprocessor); -o1...-o5, -F and\n"
                    "-E-I also work without -run, and any of them with --spin.\n"
                    "Without -run, -f is pan's weak fairness, as after -run.\n"
                    "-N: spin's -N FILE before -run, pan's -N NAME (check the model's claim NAME)\n"
                    "after it; with no -run, -N claim.pml (no claim's name: not an identifier) is\n"
                    "spin's, -N p1 pan's, and an identifier that names a file here too is refused\n"
                    "(write --spin '-N p1' for the file, -ltl p1 for the claim).\n"
                    "Arguments pan would drop or read otherwise are refused (-abc, -m without a\n"
                    "number, a word after the options, -N twice, a -D that neither the model nor\n"
                    "pan uses, ...).\n"
                    "pan is compiled with $CC (default gcc) and $CFLAGS, as make does.\n\n"
                    "Depth limit: your -mN is used as given; if pan reaches it, the search is\n"
                    "reported incomplete, as pan does. Without -m, the first run is spin -run's\n"
                    "(pan's default -m10000), and an error it finds is the one reported, with its\n"
                    "trail. Only if it reached the limit without an error does the limit grow, 10x\n"
                    "at a time up to -m10000000; those runs stop the moment they reach the limit\n"
                    "(pan -b), so besides the first run only the reported one searches in full.\n\n"
                    "Trails: pan's own names beside MODEL (MODEL.trail; MODEL1.trail, ... with -e or\n"
                    "-cN), replacing those of an earlier run as pan does (the summary says so); pan\n"
                    "-i/-I leaves one trail, the shortest. If MODEL's directory is read-only, the\n"
                    "trail stays in --keep DIR or goes to a new directory under $TMPDIR.",
        epilog="A model with accept labels (in a proctype, a never claim, or an ltl formula's\n"
               "translation) is searched for acceptance cycles (pan -a), -DNP for non-progress\n"
               "cycles (pan -l), as spin -run does; --safety, -a/-l, -DSAFETY, -DBFS or\n"
               "-DNOCLAIM choose otherwise.\n"
               "exit status: 0 no errors, 1 errors found (a trail is written next to MODEL),\n"
               "2 failure or bad input, or --compare or --cross-check found verdicts that differ\n\n"
               + strategies.help_listing(width=help_width()))
    verify_parser.add_argument("model", metavar="MODEL", help="the Promela model (.pml, .p, ...)")
    verify_parser.add_argument("--strategy", choices=strategies.choices(), default=strategies.AUTO,
                               metavar="NAME",
                               help="symmetry reduction strategy, listed below (default: %(default)s)")
    verify_parser.add_argument("--json", action="store_true",
                               help="print the result as one JSON object on stdout")
    add_define_option(verify_parser, "for spin's preprocessor and for gcc "
                                      "(-DNOREDUCE, -DVECTORSZ=4096, -DN=3; repeatable)")
    verify_parser.add_argument("--pan", dest="pan_args", action="append", default=[], metavar="ARG",
                               help="run-time arguments for pan, e.g. --pan -m100000 or "
                                    "--pan '-c0 -w26' (repeatable; the same as writing them "
                                    "directly)")
    verify_parser.add_argument("--spin", dest="spin_args", action="append", default=[], metavar="ARG",
                               help="spin's own options for spin -a, e.g. --spin -o3 or "
                                    "--spin \"-f '![] p'\" (repeatable)")
    verify_parser.add_argument("--keep", type=Path, metavar="DIR",
                               help="keep pan.c, pan.h, the pan binary and pan's output in DIR "
                                    "(a new or empty directory)")
    # Trails replace earlier ones as pan's do: --force, which allowed that, is now the default.
    verify_parser.add_argument("--force", action="store_true", help=argparse.SUPPRESS)
    verify_parser.add_argument("--compare", action="store_true",
                               help="also verify without reduction and report the reduction "
                                    "(states, time, memory); verdicts that differ are a failure "
                                    "(exit status 2)")
    verify_parser.add_argument("--cross-check", dest="cross_check", action="store_true",
                               help="also verify with partial order reduction switched the other "
                                    "way (-DNOREDUCE added, or taken away if given) and compare "
                                    "the verdicts; verdicts that differ are a failure (exit "
                                    "status 2)")
    verify_parser.add_argument("--check-symmetry", dest="check_symmetry", type=budget, metavar="BUDGET",
                               help="also check the reduction on this model without trusting the "
                                    "symmetry analysis: breadth-first searches of plain pan and of the "
                                    "reduced pan (no partial order reduction), compared depth by depth "
                                    "up to BUDGET states (--check-symmetry alone: "
                                    f"{CHECK_BUDGET:,}); a difference is shown with a trail to a state "
                                    "and is exit status 2, agreement is a check to that depth, not a proof")
    verify_parser.add_argument("--safety", action="store_true",
                               help="search for safety violations only, even if the model has "
                                    "accept labels (default: pan -a then, as spin -run)")
    verify_parser.add_argument("--no-cache", action="store_true", help=NO_CACHE_HELP)
    verify_parser.add_argument("--gcc-opt", dest="optimisation", default=DEFAULT_OPTIMISATION,
                               choices=OPTIMISATION_LEVELS, metavar="LEVEL",
                               help="gcc's optimisation level for pan.c: -O0 compiles a large "
                                    "pan.c several times faster, for a slower search; -O2 "
                                    "the other way (default: %(default)s, as spin -run)")
    noise = verify_parser.add_mutually_exclusive_group()
    noise.add_argument("--quiet", action="store_true", help="no progress or notes on stderr")
    noise.add_argument("--verbose", action="store_true",
                       help="show the spin, gcc and pan commands and the flag decisions")
    verify_parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from topspin_py.verify import VerifyOptions, verify

    display = None if args.quiet else ProgressDisplay(sys.stderr)
    pan_args = tuple(word for value in args.pan_args for word in shlex.split(value))
    spin_args = tuple(word for value in args.spin_args for word in shlex.split(value))
    options = VerifyOptions(
        strategy=args.strategy, defines=tuple(args.defines), pan_args=pan_args, spin_args=spin_args,
        keep_dir=args.keep, on_progress=display, compare=args.compare, cross_check=args.cross_check,
        safety=args.safety, optimisation=args.optimisation, check_symmetry=args.check_symmetry,
        use_cache=not args.no_cache, started=args.started,
        on_note=None if args.quiet else to_stderr(display),
        on_detail=to_stderr(display) if args.verbose else None,
        on_stage=display.stage if display is not None else None, partial_on_interrupt=True)
    try:
        result = verify(args.model, options)
    finally:
        if display is not None:
            display.finish()
    if args.json:
        print(result.to_json())
    else:
        print(result.summary())
    if args.quiet:
        # A "no errors" that is not a proof is said even under --quiet (else it is a note).
        for text in filter(None, [strategies.warning(result.strategy)]):
            print(f"topspin-py: warning: {text}", file=sys.stderr)
    if result.disagreement is not None:
        print(f"{args.model}: error: {result.disagreement}", file=sys.stderr)
    if result.por_disagreement is not None:
        print(f"{args.model}: error: --cross-check: {result.por_disagreement}", file=sys.stderr)
    if result.por_missed_by_spin is not None:
        print(f"{args.model}: warning: --cross-check: {result.por_missed_by_spin}", file=sys.stderr)
    if result.interrupted:
        print("topspin-py: interrupted: " + (
            "pan stopped, and the statistics shown are those it had so far" if not result.complete
            else "the plain run of --compare did not finish, so there is no comparison" if args.compare
            else "the run of --cross-check did not finish, so there is no cross-check" if args.cross_check
            else "the search had finished, its result is above"),
            file=sys.stderr)
    return result.exit_status
