"""``topspin-py detect``: the symmetry group of a model, and why permutations were left out."""

from __future__ import annotations

import argparse
from pathlib import Path

from topspin_py.cli.common import (
    EXIT_OK,
    add_define_option,
)


def add(commands) -> None:
    detect_parser = commands.add_parser(
        "detect", allow_abbrev=False, help="find the symmetry of a Promela model",
        description="Find the largest group of process and channel permutations that is valid "
                    "for MODEL and its never claim or ltl formulas.")
    detect_parser.add_argument("model", metavar="MODEL", help="the Promela model")
    detect_parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    detect_parser.add_argument("--explain", action="store_true",
                               help="for each permutation that is rejected or left out because "
                                    "it changes the text, show that text before and after it")
    detect_parser.add_argument("--group", type=Path, metavar="FILE",
                               help="use the generators in FILE (one per line, disjoint cycles over "
                                    "pids and channel names) instead of detecting them")
    detect_parser.add_argument("-N", dest="claim", metavar="NAME",
                               help="the symmetry of a search that checks this claim only (pan -N NAME: "
                                    "an ltl formula's or never claim's name); by default every claim")
    add_define_option(detect_parser, "for spin's preprocessor (repeatable)")
    detect_parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import json

    from topspin_py.pan import loading
    from topspin_py.reduce import require_claim
    from topspin_py.symmetry.detect import acting_on_states, detect, group_from_generators, group_report
    from topspin_py.symmetry.userspec import read_group_file

    model = loading.load_model_checked(Path(args.model), args.defines)
    # The same check as verify's: a model spin rejects has no symmetry to speak of.
    model = loading.check_with_spin(Path(args.model), list(args.defines), model) or model
    if args.claim is not None:
        require_claim(model, args.claim)
        model = model.keeping_claim(args.claim)
    if args.group is not None:
        group = group_from_generators(model, read_group_file(args.group))
    else:
        group = detect(model)
    report = group_report(group, explain=args.explain)
    if args.json:
        print(json.dumps(report, indent=2))
        return EXIT_OK
    print(f"model: {args.model}")
    for family in model.copies.families if model.copies is not None else []:
        print(f"copies: {family.describe()}")   # the generators name the merged proctype
    print(f"group order: {report['order']}  ({report['structure']})")
    for generator in report["generators"]:
        print(f"  generator {generator}")
    for orbit in report["orbits"]:
        print(f"  orbit {{{', '.join(orbit)}}}")
    for reason in report["reasons"]:
        print(f"note: {reason}")
    if args.group is None:
        acting = acting_on_states(group)
        for reason in acting.reasons[len(group.reasons):]:
            print(f"note: {reason}")
    for heading, key, entries in (("rejected", "generator", report["rejected"]),
                                  ("not permuted", "permutation", report["left_out"])):
        for entry in entries:
            where = f"{entry['where']}: " if entry["where"] else ""
            print(f"{heading} {entry[key]}: {where}{entry['reason']}")
            if "before" in entry:
                _print_before_after(entry["before"], entry["after"])
    return EXIT_OK


def _print_before_after(before: str, after: str | None, most_lines: int = 30) -> None:
    """The text a permutation changes, as written and as the permutation makes it."""
    for label, text in (("before", before), ("after", after)):
        lines = (text or "(nothing)").splitlines()
        if len(lines) > most_lines:
            lines = lines[:most_lines] + [f"... ({len(lines) - most_lines} more lines)"]
        print(f"    {label}:")
        for line in lines:
            print(f"        {line}")
