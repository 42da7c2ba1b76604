"""The ``topspin-py`` command.

One subcommand per pipeline stage that is usable alone (DESIGN.md): ``verify``, ``detect``,
``generate`` and ``patch`` (for users who run SPIN themselves), ``desugar`` (the plain Promela of
a model that uses the ref/public extension), ``regress`` for state-count baselines, and
``swarm`` (many diversified bitstate runs on a dask cluster, topspin_py/swarm/).  Each is a
module of this package (cli/verify.py, ...) with ``add(commands)``, which defines its options
and help, and ``run(args)``; what several share is in cli/common.py.  ``build_parser`` lists them.

Exit status: 0 no errors found, 1 pan found errors, 2 tool failure or bad input (a TopspinError
is printed with ``render()``, never as a traceback) or, for ``verify --compare``, reduced and plain
verdicts that differ, for ``verify --cross-check`` verdicts with and without partial order
reduction that differ (result.py), 130 interrupted (Ctrl-C; verify first shows pan's statistics
so far), 128+N terminated by signal N (SIGTERM, SIGHUP), after the temporary files are removed
and spin, gcc or pan stopped (pan/processes.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from topspin_py import __version__
from topspin_py.cli import desugar, detect, generate, patch, regress, swarm, verify
from topspin_py.cli.common import CHECK_BUDGET, EXIT_FAILURE, EXIT_INTERRUPTED
from topspin_py.errors import TopspinError
from topspin_py.pan.processes import Terminated, terminated_by_signals
from topspin_py.reporting import process_started
from topspin_py.spin_style import spin_style

# The stages (verify, detect, codegen: sympy, lark, jinja2, pycparser, about a second to
# import) are imported by the command that runs them, so that --version, --help and a usage
# error answer at once.


def main(argv: list[str] | None = None) -> int:
    # The run began when the command did: the process's start for the command itself, so that
    # the wall time reported counts Python's start and the imports; a call from Python, now.
    started = process_started() if argv is None else time.monotonic()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(_attach_option_values(spin_style(argv)))
        args.started = started
        with terminated_by_signals():
            return args.handler(args)
    except TopspinError as err:
        print(err.render(), file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("\ntopspin-py: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated as signalled:
        print(f"\ntopspin-py: {signalled}; temporary files removed", file=sys.stderr)
        return signalled.exit_status
    except BrokenPipeError:
        # stdout closed early (`topspin-py verify m.pml | head`): not an error of ours.
        # Point stdout at devnull so the interpreter's final flush does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILURE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="topspin-py", allow_abbrev=False,
        description="Symmetry reduction for the SPIN model checker.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    verify.add(commands)
    detect.add(commands)
    generate.add(commands)
    patch.add(commands)
    desugar.add(commands)
    regress.add(commands)
    swarm.add(commands)
    return parser


def _attach_option_values(argv: list[str]) -> list[str]:
    """``--pan -m100000`` -> ``--pan=-m100000``: argparse refuses a separate value that starts
    with '-' (it takes it for an option), but pan's arguments all do (and -O levels)."""
    attached: list[str] = []
    values = iter(argv)
    for word in values:
        if word == "--":
            attached.append(word)
            attached.extend(values)
            break
        if word in ("--pan", "--spin", "--gcc-opt"):
            value = next(values, None)
            attached.append(word if value is None else f"{word}={value}")
        elif word == "--check-symmetry":   # its BUDGET is optional, and only ever attached
            attached.append(f"{word}={CHECK_BUDGET}")
        else:
            attached.append(word)
    return attached

