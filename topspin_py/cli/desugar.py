"""``topspin-py desugar``: the plain Promela of a model that uses the ref/public extension."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from topspin_py.cli.common import (
    EXIT_OK,
    add_define_option,
    wrapped,
)


def add(commands) -> None:
    parser = commands.add_parser(
        "desugar", allow_abbrev=False, help="print the plain Promela of a model that uses ref/public",
        description=wrapped("Check MODEL against the rules of the ref/public extension (ref P, public, "
                             "P[r].x, anyRef(P), _lid, _undef_ref) and print its plain Promela "
                             "program, which spin -a accepts as it is: refs are bytes holding the "
                             "instance's number among its proctype's (255: _undef_ref), public "
                             "variables and channels global arrays indexed by it. A leading comment "
                             "says where the refs are. MODEL is preprocessed first, and its inline "
                             "calls expanded. A plain model is printed as parsed."))
    parser.add_argument("model", metavar="MODEL", help="the Promela model")
    add_define_option(parser, "for spin's preprocessor (repeatable)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from topspin_py.pan import loading
    from topspin_py.promela import print_spec

    model = loading.load_model_checked(Path(args.model), args.defines)
    if model.refs is None and model.as_written is not None and model.copies is not None:
        lines = [f"rewritten by topspin-py from {args.model}: proctype copies merged (copies.py)"]
        lines += [family.describe() for family in model.copies.families]
        print("/*\n" + "".join(f" * {line}\n" for line in lines) + " */\n")
        print(model.spin_text, end="")
        return EXIT_OK
    if model.refs is None:
        print(f"topspin-py: {args.model} uses no ref/public extension: printed as parsed", file=sys.stderr)
        print(print_spec(model.spec), end="")
        return EXIT_OK
    lines = [f"desugared by topspin-py from {args.model} "
             "(the ref/public extension of Derepas and Gastin [DG01])"]
    lines += model.refs.describe()
    print("/*\n" + "".join(f" * {line}\n" for line in lines) + " */\n")
    print(model.spin_text, end="")
    return EXIT_OK
