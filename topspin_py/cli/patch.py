"""``topspin-py patch``: the canonicaliser spliced into a pan.c that spin -a wrote (pan/provenance.py)."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from topspin_py.cli.common import (
    EXIT_OK,
    add_build_options,
    described,
    spin_words,
    warn_about,
    with_strategies,
    wrapped,
)
from topspin_py.pan.flags import DEFAULT_OPTIMISATION


def add(commands) -> None:
    parser = commands.add_parser(
        "patch", allow_abbrev=False, help="splice the canonicaliser into an existing pan.c",
        description=wrapped("Patch PAN_C (written by spin -a from MODEL, pan.h beside it) in place, "
                             "keeping the original as PAN_C.orig; the canonicaliser goes beside it. "
                             "PAN_C must be what spin -a makes of MODEL with the -D defines and spin "
                             "options given here: patch runs spin -a itself and compares what it writes "
                             "with PAN_C and the pan.h, pan.m, pan.b, pan.t and pan.p beside it (file "
                             "names and line numbers aside); when they differ (other defines or options, "
                             "the model edited since, another claim), nothing is patched, and the first "
                             "line that differs is named. The symmetry respects the claims compiled "
                             "into PAN_C: a never claim given to spin with -N FILE is read again from "
                             "FILE (relative to PAN_C's directory, or as --spin '-N FILE')."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=with_strategies(
            "Rerunnable, as in a Makefile: a PAN_C fresh from spin -a replaces an older "
            "PAN_C.orig; a PAN_C patched before (by patch or generate) is patched again from "
            "PAN_C.orig. For a model that uses the ref/public extension, spin reads the program "
            "`topspin-py desugar MODEL` prints; a model's proctype copies may be merged, as "
            "generate and desugar write them: patch recognises either. In a directory generate "
            "wrote, a PAN_C that differs is explained by generate's record (what changed since). "
            "The build line has the -D defines pan's sources test; a macro only the model "
            "uses (-DN=3) is expanded by spin and left out.", with_none=False))
    parser.add_argument("pan_c", type=Path, metavar="PAN_C")
    parser.add_argument("--model", type=Path, required=True, metavar="MODEL",
                        help="the model spin -a was given (or, for a desugared or merged program, "
                             "the model topspin-py wrote it from)")
    add_build_options(parser, "an option spin -a had, to be given again: -o1 ... -o5, -N FILE, "
                               "-f FORMULA, -F FILE, -E-IDIR (repeatable)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from topspin_py.errors import UsageError
    from topspin_py.pan import own_build
    from topspin_py.pan.flags import parse_define, parse_spin_args
    from topspin_py.pan.provenance import prove
    from topspin_py.pan.spin_output import SPIN_OUTPUTS
    from topspin_py.pan.splice import SYM_MACRO
    from topspin_py.pipeline import canonicalise, own_build_symmetry
    from topspin_py.reduce import GENERATED_C, GENERATED_H, defines_the_reduction_needs

    pan_c: Path = args.pan_c
    backup = own_build.backup_of(pan_c)
    if not pan_c.is_file() or not (pan_c.parent / "pan.h").is_file():
        raise UsageError(f"{pan_c} (and pan.h beside it) not found", hint="run spin -a MODEL first")
    if pan_c.name != "pan.c":
        raise UsageError("the file must be SPIN's pan.c (pan.c #includes pan.h by that name)")
    if not args.model.is_file():
        raise UsageError(f"model file not found: {args.model}", hint="give the model spin -a was given")
    defines = [parse_define(define) for define in args.defines]
    spin_options = parse_spin_args(spin_words(args), command="patch")
    start = own_build.plan_patch(pan_c, (GENERATED_C, GENERATED_H))
    # The group is valid for the program pan.c was made from: prove that it is MODEL's as
    # read with these defines and options (and the claims pan.c holds, which may not be in
    # MODEL: spin -a -N).
    proven = prove(pan_c.parent, start.original, args.model, defines, spin_options,
                   backup.name if start.repatch else pan_c.name)
    print(proven.claims_line)
    print(f"checked: {', '.join(SPIN_OUTPUTS)} are what `{proven.command}` writes "
          "(file names and line numbers aside)")
    model = proven.model
    group, choice = own_build_symmetry(args.model, model, defines, args.strategy)
    needed = defines_the_reduction_needs(model, defines)
    for_gcc, model_only = own_build.build_defines(
        defines, own_build.pan_sources(pan_c.parent, start.original))
    if start.repatch:
        print(f"{pan_c} was patched before: patching SPIN's pan.c ({backup.name}) again")
    elif start.replaces_backup:
        print(f"{pan_c} is new from spin -a: it replaces the older {backup.name}")
    own_build.write_patch_sources(pan_c, start)
    flags = [f"-D{define}" for define in (*for_gcc, *needed)]
    canonicalise(pan_c.parent, group, choice.name, flags, choice.reason)
    print(f"patched {pan_c} (original in {backup}); group order {group.order}, strategy {described(choice)}")
    warn_about(choice.name)
    if note := own_build.model_only_note(model_only):
        print(f"note: {note}")
    where = "" if pan_c.parent == Path(".") else f"cd {shlex.quote(str(pan_c.parent))} && "
    print(f"build: {where}gcc {DEFAULT_OPTIMISATION} {' '.join(flags + ['-D' + SYM_MACRO])} -o pan pan.c")
    return EXIT_OK
