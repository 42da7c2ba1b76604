"""``topspin-py regress``: state counts and verdicts recomputed against a recorded baseline."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from topspin_py import strategies
from topspin_py.cli.common import (
    EXIT_ERRORS_FOUND,
    EXIT_FAILURE,
    EXIT_OK,
    NO_CACHE_HELP,
    add_define_option,
    with_strategies,
    wrapped,
)


def add(commands) -> None:
    regress_parser = commands.add_parser(
        "regress", allow_abbrev=False, help="check state counts against a baseline (for CI)",
        description=wrapped("Recompute the state counts, transitions and verdicts of the runs listed in "
                             "BASELINE (JSON) and fail when one changed. With --update, add or refresh "
                             "an entry (--model ...) or all entries. An entry that cannot be run (its "
                             "model is missing, it fails, it exceeds --timeout) is reported, and the "
                             "others are still run."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=with_strategies("exit status: 0 all counts as recorded, 1 a count or verdict changed, "
                                "2 an entry could not be run, or another failure"))
    regress_parser.add_argument("baseline", type=Path, metavar="BASELINE", help="the baseline JSON file")
    regress_parser.add_argument("--update", action="store_true",
                                help="write the current counts into BASELINE (created if missing)")
    regress_parser.add_argument("--model", type=Path, metavar="MODEL",
                                help="with --update: the model of the entry to add or refresh")
    regress_parser.add_argument("--strategy", choices=strategies.choices(), default=None, metavar="NAME",
                                help="with --model: the strategy, listed below (default: auto, as for "
                                     "verify)")
    add_define_option(regress_parser, "for the run of the entry given with --model (repeatable)")
    regress_parser.add_argument("--pan", dest="pan_args", action="append", default=[], metavar="ARG",
                                help="with --model: a pan argument of the run (repeatable)")
    regress_parser.add_argument("--timeout", metavar="SECONDS",
                                help="the time each entry may take (spin, gcc and pan); one that "
                                     "takes longer is stopped and reported (default: no limit)")
    regress_parser.add_argument("--no-cache", action="store_true", help=NO_CACHE_HELP)
    regress_parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from topspin_py import regress
    from topspin_py.errors import UsageError

    def show(key, values) -> None:
        print(f"{key.label()}: {values['states_stored']} states, {values['transitions']} "
              f"transitions, {values['errors']} errors", file=sys.stderr)

    def show_problem(problem) -> None:
        print(f"{problem.key.label()}: error: {problem.message}", file=sys.stderr)

    single = args.model is not None or args.defines or args.pan_args or args.strategy is not None
    if single and not (args.update and args.model is not None):
        raise UsageError("--model, --strategy, -D and --pan describe an entry for --update",
                         hint="use `topspin-py regress BASELINE --update --model MODEL [...]`")
    time_limit = None if args.timeout is None else regress.parse_time_limit(args.timeout)
    if args.update:
        key = None
        if args.model is not None:
            pan_args = tuple(word for value in args.pan_args for word in shlex.split(value))
            key = regress.RunKey(regress.relative_model(args.baseline, args.model),
                                 args.strategy or regress.DEFAULT_STRATEGY, tuple(args.defines), pan_args)
        outcome = regress.update(args.baseline, key, on_entry=show, on_problem=show_problem,
                                 time_limit=time_limit, use_cache=not args.no_cache)
        print(f"{args.baseline}: {len(outcome.entries)} entries")
    else:
        outcome = regress.check(args.baseline, on_entry=show, on_problem=show_problem,
                                time_limit=time_limit, use_cache=not args.no_cache)
        if outcome.changes:
            print(f"{args.baseline}: {len(outcome.changes)} change(s):\n" + regress.describe(outcome.changes))
        elif not outcome.problems:
            print(f"{args.baseline}: all entries as recorded")
    if outcome.problems:
        print(f"{args.baseline}: {len(outcome.problems)} entr{'y' if len(outcome.problems) == 1 else 'ies'} "
              f"could not be run:\n" + "\n".join(f"{p.key.label()}: {p.message}" for p in outcome.problems))
        return EXIT_FAILURE
    return EXIT_ERRORS_FOUND if outcome.changes else EXIT_OK
