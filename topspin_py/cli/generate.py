"""``topspin-py generate``: spin -a and the canonicaliser in a directory, for a build of one's own."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from topspin_py import __version__
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
from topspin_py.pan.inputs import RECORD


def add(commands) -> None:
    parser = commands.add_parser(
        "generate", allow_abbrev=False, help="write a symmetry-reduced pan.c for your own build",
        description=wrapped("Run spin -a on MODEL in DIR, detect its symmetry, and write the "
                             "canonicaliser (topspin_sym.c, topspin_sym.h) and the patched pan.c there "
                             "(SPIN's own as pan.c.orig); print the gcc line that builds pan."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=with_strategies(
            "DIR is marked as generate's own, with a record of what it was generated from "
            f"(DIR/{RECORD}: the model's path, a hash of the model and of every file it "
            "#includes and of the preprocessed program, the -D defines, spin's options, the "
            "strategy, the versions of topspin-py and spin). Running generate again (after the "
            "model changed) says what changed since and writes spin's pan.* and the "
            "canonicaliser there again; other files stay. `topspin-py patch DIR/pan.c --model "
            "MODEL` checks DIR against MODEL as it is now, and names what changed since the "
            "record when it differs. The build line has the -D defines pan's sources test; "
            "a macro only the model uses (-DN=3) is expanded by spin and left out.", with_none=False))
    parser.add_argument("model", metavar="MODEL", help="the Promela model")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="DIR",
                        help="a new or empty directory, or one generate wrote before")
    parser.add_argument("--force", action="store_true",
                        help="write into DIR even if it holds files generate did not write "
                             "(spin's pan.* there are replaced)")
    add_build_options(parser, "spin's own options for spin -a: -o1 ... -o5, -f FORMULA, -F FILE, "
                               "-E-IDIR (repeatable)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from topspin_py.pan import inputs, loading, own_build, toolchain
    from topspin_py.pan.flags import parse_define, parse_spin_args
    from topspin_py.pan.splice import SYM_MACRO
    from topspin_py.pipeline import canonicalise, load, own_build_symmetry, spin_a
    from topspin_py.reduce import GENERATED_C, GENERATED_H, defines_the_reduction_needs

    out: Path = args.output
    model_path = Path(args.model)
    defines = [parse_define(define) for define in args.defines]
    spin_options = parse_spin_args(spin_words(args), command="generate")
    tools = toolchain.find_toolchain()
    # The symmetry of the pan spin writes for the model (whether it resets dead locals),
    # found before anything is written to the output directory.
    loaded = load(tools, model_path, defines, spin_options)
    model = loading.check_with_spin(model_path, defines, loaded.model, spin_options.args, loaded.as_written)
    assert model is not None   # (check_with_spin returns the model it is given, as spin checks it)
    group, choice = own_build_symmetry(model_path, model, defines, args.strategy)
    recorded = inputs.read_record(out)
    now = inputs.spin_inputs(model_path, defines, spin_options, tools.spin_version)
    own_build.prepare_generate_dir(out, args.force, (GENERATED_C, GENERATED_H))
    # A model that uses the ref/public extension: spin reads its desugared program.
    source, _ = spin_a(loaded, out, claim_file=spin_options.claim_file)
    own_build.keep_spin_pan_c(out)
    for_gcc, model_only = own_build.build_defines(
        defines, own_build.pan_sources(out, (out / "pan.c").read_text(encoding="latin-1")))
    needed = defines_the_reduction_needs(model, defines)
    flags = [f"-D{define}" for define in (*for_gcc, *needed)]
    canonicalise(out, group, choice.name, flags, choice.reason)
    own_build.record_generate_dir(out, inputs.GenerateRecord(now, choice.name, __version__))
    if recorded is not None:
        changes = now.changes_since(recorded.inputs)
        if recorded.strategy != choice.name:
            changes.append(f"the strategy was {recorded.strategy}, now {choice.name}")
        if changes:
            print(f"note: {out} was generated before by `{recorded.command(out)}`; since then "
                  + "; ".join(changes))
    print(f"wrote {out / 'pan.c'} (patched; SPIN's in pan.c.orig), {out / GENERATED_C}, {out / GENERATED_H}")
    print(f"group order {group.order}, strategy {described(choice)}")
    warn_about(choice.name)
    if note := own_build.model_only_note(model_only):
        print(f"note: {note}")
    print(f"build: cd {shlex.quote(str(out))} && "
          f"gcc {DEFAULT_OPTIMISATION} {' '.join(flags + ['-D' + SYM_MACRO])} -o pan pan.c")
    if source != model_path:
        relative = source.relative_to(out)
        why = ("uses the ref/public extension" if model.extended is not None
               else "has proctype copies merged into one proctype (copies.py)")
        print(f"note: {model_path} {why}: spin was given its desugared program "
              f"{source}; replay a trail with `spin -k {model_path.name}.trail -p {relative}` in "
              f"{out}")
    return EXIT_OK
