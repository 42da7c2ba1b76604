"""What the commands share: the exit statuses, the options several commands take (-D, spin's
words, --no-cache), help text wrapped to the terminal, and notes on stderr."""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys

from topspin_py import strategies
from topspin_py.pan.progress import ProgressDisplay

EXIT_OK, EXIT_ERRORS_FOUND, EXIT_FAILURE, EXIT_INTERRUPTED = 0, 1, 2, 130
NO_CACHE_HELP = ("compile pan, neither reusing nor keeping a build of the same sources in the build "
                 "cache ($XDG_CACHE_HOME/topspin-py/builds, ~/.cache/topspin-py when unset)")
# --check-symmetry without a budget: symcheck.DEFAULT_BUDGET, written out here so that the
# command line answers --help without importing the toolchain (tests/commands/test_cli.py
# checks that the two agree)
CHECK_BUDGET = 200_000


def add_define_option(parser, use: str) -> None:
    """-D NAME[=VAL] (also -DNAME, as with gcc), collected in args.defines."""
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VAL]",
                        help=f"define a macro {use}")


def add_build_options(parser, spin_help: str) -> None:
    """The options generate and patch share: how spin -a is run, and how pan will be built."""
    parser.add_argument("--strategy", choices=strategies.choices(with_none=False),
                        default=strategies.AUTO, metavar="NAME",
                        help="canonicalisation strategy, listed below (default: %(default)s)")
    add_define_option(parser, "for spin's preprocessor and for the build of pan (repeatable)")
    parser.add_argument("--spin", dest="spin_args", action="append", default=[], metavar="ARG",
                        help=spin_help)


def spin_words(args: argparse.Namespace) -> list[str]:
    return [word for value in args.spin_args for word in shlex.split(value)]


def seconds(text: str, option: str) -> float:
    """``90``, ``90s``, ``10m``, ``2h``: a positive time in seconds."""
    from topspin_py.errors import UsageError

    units = {"s": 1, "m": 60, "h": 3600}
    number, unit = (text[:-1], units[text[-1]]) if text[-1:] in units else (text, 1)
    try:
        seconds = float(number) * unit
    except ValueError:
        seconds = float("nan")
    if not (seconds > 0 and seconds < float("inf")):
        raise UsageError(f"bad time for {option}: '{text}'", hint="give seconds, or 90s, 10m, 2h")
    return seconds


def described(choice) -> str:
    """``segmented (exact), chosen by auto: ...``: a strategy as generate and patch print it."""
    text = f"{choice.name} ({strategies.exactness(choice.name)})"
    return text + (f", chosen by auto: {choice.reason}" if choice.reason else "")


def warn_about(strategy: str) -> None:
    """An approximate or complete strategy's warning, on stderr."""
    if text := strategies.warning(strategy):
        print(f"topspin-py: warning: {text}", file=sys.stderr)


def help_width() -> int:
    """The width argparse wraps help to."""
    return max(shutil.get_terminal_size().columns - 2, 40)


def wrapped(text: str) -> str:
    """A paragraph wrapped as argparse wraps help, for a parser whose epilog is raw."""
    import textwrap

    return textwrap.fill(text, help_width())


def with_strategies(text: str, with_none: bool = True) -> str:
    """An epilog: its paragraph wrapped, then the strategies one a line (strategies.help_listing)."""
    return wrapped(text) + "\n\n" + strategies.help_listing(with_none, help_width())


def to_stderr(display: ProgressDisplay | None):
    def write(text: str) -> None:
        if display is not None:
            display.note(text)  # not over the updating status line
        else:
            print(text, file=sys.stderr)
    return write


def budget(text: str) -> int:
    """--check-symmetry's BUDGET: a number of states, at least 1 (10000, 1e6, 200k)."""
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:].lower(), 1)
    try:
        value = float(text[:-1] if scale > 1 else text) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of states") from None
    if value < 1 or value != int(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of states (a whole number, at least 1)")
    return int(value)
