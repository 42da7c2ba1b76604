"""The ``topspin-py`` command.

One subcommand per pipeline stage that is usable alone (DESIGN.md): ``verify``, ``detect``,
``generate`` and ``patch`` (for users who run SPIN themselves), ``desugar`` (the plain Promela of
a model that uses the ref/public extension), ``regress`` for state-count baselines, and
``swarm`` (many diversified bitstate runs on a dask cluster, topspin_py/swarm/).  Each
has an ``_add_<name>`` function and a line in ``build_parser``.

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
import shlex
import shutil
import sys
import time
from pathlib import Path

from topspin_py import __version__, strategies
from topspin_py.errors import TopspinError
from topspin_py.pan.flags import DEFAULT_OPTIMISATION, OPTIMISATION_LEVELS
from topspin_py.pan.inputs import RECORD
from topspin_py.pan.processes import Terminated, terminated_by_signals
from topspin_py.pan.progress import ProgressDisplay
from topspin_py.reporting import process_started
from topspin_py.spin_style import spin_style

# The stages (verify, detect, codegen: sympy, lark, jinja2, pycparser, about a second to
# import) are imported by the command that runs them, so that --version, --help and a usage
# error answer at once.

EXIT_OK, EXIT_ERRORS_FOUND, EXIT_FAILURE, EXIT_INTERRUPTED = 0, 1, 2, 130
_NO_CACHE_HELP = ("compile pan, neither reusing nor keeping a build of the same sources in the build "
                  "cache ($XDG_CACHE_HOME/topspin-py/builds, ~/.cache/topspin-py when unset)")
_CHECK_BUDGET = 200_000   # --check-symmetry without a budget (pan/symcheck.py DEFAULT_BUDGET)


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
    _add_verify(commands)
    _add_detect(commands)
    _add_generate(commands)
    _add_patch(commands)
    _add_desugar(commands)
    _add_regress(commands)
    _add_swarm(commands)
    return parser


def _add_verify(commands) -> None:
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
               + strategies.help_listing(width=_help_width()))
    verify_parser.add_argument("model", metavar="MODEL", help="the Promela model (.pml, .p, ...)")
    verify_parser.add_argument("--strategy", choices=strategies.choices(), default=strategies.AUTO,
                               metavar="NAME",
                               help="symmetry reduction strategy, listed below (default: %(default)s)")
    verify_parser.add_argument("--json", action="store_true",
                               help="print the result as one JSON object on stdout")
    _add_define_option(verify_parser, "for spin's preprocessor and for gcc "
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
    verify_parser.add_argument("--check-symmetry", dest="check_symmetry", type=_budget, metavar="BUDGET",
                               help="also check the reduction on this model without trusting the "
                                    "symmetry analysis: breadth-first searches of plain pan and of the "
                                    "reduced pan (no partial order reduction), compared depth by depth "
                                    "up to BUDGET states (--check-symmetry alone: "
                                    f"{_CHECK_BUDGET:,}); a difference is shown with a trail to a state "
                                    "and is exit status 2, agreement is a check to that depth, not a proof")
    verify_parser.add_argument("--safety", action="store_true",
                               help="search for safety violations only, even if the model has "
                                    "accept labels (default: pan -a then, as spin -run)")
    verify_parser.add_argument("--no-cache", action="store_true", help=_NO_CACHE_HELP)
    verify_parser.add_argument("--gcc-opt", dest="optimisation", default=DEFAULT_OPTIMISATION,
                               choices=OPTIMISATION_LEVELS, metavar="LEVEL",
                               help="gcc's optimisation level for pan.c: -O0 compiles a large "
                                    "pan.c several times faster, for a slower search; -O2 "
                                    "the other way (default: %(default)s, as spin -run)")
    noise = verify_parser.add_mutually_exclusive_group()
    noise.add_argument("--quiet", action="store_true", help="no progress or notes on stderr")
    noise.add_argument("--verbose", action="store_true",
                       help="show the spin, gcc and pan commands and the flag decisions")
    verify_parser.set_defaults(handler=_run_verify)


def _run_verify(args: argparse.Namespace) -> int:
    from topspin_py.verify import VerifyOptions, verify

    display = None if args.quiet else ProgressDisplay(sys.stderr)
    pan_args = tuple(word for value in args.pan_args for word in shlex.split(value))
    spin_args = tuple(word for value in args.spin_args for word in shlex.split(value))
    options = VerifyOptions(
        strategy=args.strategy, defines=tuple(args.defines), pan_args=pan_args, spin_args=spin_args,
        keep_dir=args.keep, on_progress=display, compare=args.compare, cross_check=args.cross_check,
        safety=args.safety, optimisation=args.optimisation, check_symmetry=args.check_symmetry,
        use_cache=not args.no_cache, started=args.started,
        on_note=None if args.quiet else _to_stderr(display),
        on_detail=_to_stderr(display) if args.verbose else None,
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


def _add_detect(commands) -> None:
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
    _add_define_option(detect_parser, "for spin's preprocessor (repeatable)")
    detect_parser.set_defaults(handler=_run_detect)


def _run_detect(args: argparse.Namespace) -> int:
    import json

    from topspin_py.pan import toolchain
    from topspin_py.reduce import require_claim
    from topspin_py.symmetry.detect import acting_on_states, detect, group_from_generators, group_report
    from topspin_py.symmetry.userspec import read_group_file

    model = toolchain.load_model_checked(Path(args.model), args.defines)
    # The same check as verify's: a model spin rejects has no symmetry to speak of.
    model = toolchain.check_with_spin(Path(args.model), list(args.defines), model) or model
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


def _add_generate(commands) -> None:
    parser = commands.add_parser(
        "generate", allow_abbrev=False, help="write a symmetry-reduced pan.c for your own build",
        description=_wrapped("Run spin -a on MODEL in DIR, detect its symmetry, and write the "
                             "canonicaliser (topspin_sym.c, topspin_sym.h) and the patched pan.c there "
                             "(SPIN's own as pan.c.orig); print the gcc line that builds pan."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_with_strategies(
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
    _add_build_options(parser, "spin's own options for spin -a: -o1 ... -o5, -f FORMULA, -F FILE, "
                               "-E-IDIR (repeatable)")
    parser.set_defaults(handler=_run_generate)


def _add_define_option(parser, use: str) -> None:
    """-D NAME[=VAL] (also -DNAME, as with gcc), collected in args.defines."""
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VAL]",
                        help=f"define a macro {use}")


def _add_build_options(parser, spin_help: str) -> None:
    """The options generate and patch share: how spin -a is run, and how pan will be built."""
    parser.add_argument("--strategy", choices=strategies.choices(with_none=False),
                        default=strategies.AUTO, metavar="NAME",
                        help="canonicalisation strategy, listed below (default: %(default)s)")
    _add_define_option(parser, "for spin's preprocessor and for the build of pan (repeatable)")
    parser.add_argument("--spin", dest="spin_args", action="append", default=[], metavar="ARG",
                        help=spin_help)


def _spin_words(args: argparse.Namespace) -> list[str]:
    return [word for value in args.spin_args for word in shlex.split(value)]


def _run_generate(args: argparse.Namespace) -> int:
    from topspin_py.codegen import own_build
    from topspin_py.pan import inputs, toolchain
    from topspin_py.pan.flags import parse_define, parse_spin_args
    from topspin_py.pan.splice import SYM_MACRO
    from topspin_py.reduce import GENERATED_C, GENERATED_H, defines_the_reduction_needs, plan, reduce_in

    out: Path = args.output
    model_path = Path(args.model)
    defines = [parse_define(define) for define in args.defines]
    spin_options = parse_spin_args(_spin_words(args), command="generate")
    tools = toolchain.find_toolchain()
    # The symmetry of the pan spin writes for the model (whether it resets dead locals),
    # found before anything is written to the output directory.
    loaded, given, _ = toolchain.models_for_spin(tools, model_path, defines, spin_options)
    model = toolchain.check_with_spin(model_path, defines, loaded, spin_options.args, given)
    assert model is not None   # (check_with_spin returns the model it is given, as spin checks it)
    group, choice = plan(model_path, defines, args.strategy, model=model)
    recorded = inputs.read_record(out)
    now = inputs.spin_inputs(model_path, defines, spin_options, tools.spin_version)
    own_build.prepare_generate_dir(out, args.force, (GENERATED_C, GENERATED_H))
    # A model that uses the ref/public extension: spin reads its desugared program.
    source = toolchain.spin_source(model_path, given, out)
    toolchain.generate_pan(tools, source, str(model_path) if source == model_path else str(source),
                           defines, out, spin_args=spin_options.args)
    own_build.keep_spin_pan_c(out)
    for_gcc, model_only = own_build.build_defines(
        defines, own_build.pan_sources(out, (out / "pan.c").read_text(encoding="latin-1")))
    needed = defines_the_reduction_needs(model, defines)
    flags = [f"-D{define}" for define in (*for_gcc, *needed)]
    reduce_in(out, group, choice.name, flags, choice.reason)
    own_build.record_generate_dir(out, inputs.GenerateRecord(now, choice.name, __version__))
    if recorded is not None:
        changes = now.changes_since(recorded.inputs)
        if recorded.strategy != choice.name:
            changes.append(f"the strategy was {recorded.strategy}, now {choice.name}")
        if changes:
            print(f"note: {out} was generated before by `{recorded.command(out)}`; since then "
                  + "; ".join(changes))
    print(f"wrote {out / 'pan.c'} (patched; SPIN's in pan.c.orig), {out / GENERATED_C}, {out / GENERATED_H}")
    print(f"group order {group.order}, strategy {_described(choice)}")
    _warn_about(choice.name)
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


def _add_patch(commands) -> None:
    parser = commands.add_parser(
        "patch", allow_abbrev=False, help="splice the canonicaliser into an existing pan.c",
        description=_wrapped("Patch PAN_C (written by spin -a from MODEL, pan.h beside it) in place, "
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
        epilog=_with_strategies(
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
    _add_build_options(parser, "an option spin -a had, to be given again: -o1 ... -o5, -N FILE, "
                               "-f FORMULA, -F FILE, -E-IDIR (repeatable)")
    parser.set_defaults(handler=_run_patch)


def _run_patch(args: argparse.Namespace) -> int:
    from topspin_py.codegen import own_build
    from topspin_py.errors import UsageError
    from topspin_py.pan.flags import parse_define, parse_spin_args
    from topspin_py.pan.provenance import prove
    from topspin_py.pan.spin_output import SPIN_OUTPUTS
    from topspin_py.pan.splice import SYM_MACRO
    from topspin_py.reduce import GENERATED_C, GENERATED_H, defines_the_reduction_needs, plan, reduce_in

    pan_c: Path = args.pan_c
    backup = own_build.backup_of(pan_c)
    if not pan_c.is_file() or not (pan_c.parent / "pan.h").is_file():
        raise UsageError(f"{pan_c} (and pan.h beside it) not found", hint="run spin -a MODEL first")
    if pan_c.name != "pan.c":
        raise UsageError("the file must be SPIN's pan.c (pan.c #includes pan.h by that name)")
    if not args.model.is_file():
        raise UsageError(f"model file not found: {args.model}", hint="give the model spin -a was given")
    defines = [parse_define(define) for define in args.defines]
    spin_options = parse_spin_args(_spin_words(args), command="patch")
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
    group, choice = plan(args.model, defines, args.strategy, model=model)
    needed = defines_the_reduction_needs(model, defines)
    for_gcc, model_only = own_build.build_defines(
        defines, own_build.pan_sources(pan_c.parent, start.original))
    if start.repatch:
        print(f"{pan_c} was patched before: patching SPIN's pan.c ({backup.name}) again")
    elif start.replaces_backup:
        print(f"{pan_c} is new from spin -a: it replaces the older {backup.name}")
    own_build.write_patch_sources(pan_c, start)
    flags = [f"-D{define}" for define in (*for_gcc, *needed)]
    reduce_in(pan_c.parent, group, choice.name, flags, choice.reason)
    print(f"patched {pan_c} (original in {backup}); group order {group.order}, strategy {_described(choice)}")
    _warn_about(choice.name)
    if note := own_build.model_only_note(model_only):
        print(f"note: {note}")
    where = "" if pan_c.parent == Path(".") else f"cd {shlex.quote(str(pan_c.parent))} && "
    print(f"build: {where}gcc {DEFAULT_OPTIMISATION} {' '.join(flags + ['-D' + SYM_MACRO])} -o pan pan.c")
    return EXIT_OK


def _add_desugar(commands) -> None:
    parser = commands.add_parser(
        "desugar", allow_abbrev=False, help="print the plain Promela of a model that uses ref/public",
        description=_wrapped("Check MODEL against the rules of the ref/public extension (ref P, public, "
                             "P[r].x, anyRef(P), _lid, _undef_ref) and print its plain Promela "
                             "program, which spin -a accepts as it is: refs are bytes holding the "
                             "instance's number among its proctype's (255: _undef_ref), public "
                             "variables and channels global arrays indexed by it. A leading comment "
                             "says where the refs are. MODEL is preprocessed first, and its inline "
                             "calls expanded. A plain model is printed as parsed."))
    parser.add_argument("model", metavar="MODEL", help="the Promela model")
    _add_define_option(parser, "for spin's preprocessor (repeatable)")
    parser.set_defaults(handler=_run_desugar)


def _run_desugar(args: argparse.Namespace) -> int:
    from topspin_py.pan import toolchain
    from topspin_py.promela import print_spec

    model = toolchain.load_model_checked(Path(args.model), args.defines)
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
    lines = [f"desugared by topspin-py from {args.model} (the ref/public extension of seed 003)"]
    lines += model.refs.describe()
    print("/*\n" + "".join(f" * {line}\n" for line in lines) + " */\n")
    print(model.spin_text, end="")
    return EXIT_OK


def _add_regress(commands) -> None:
    regress_parser = commands.add_parser(
        "regress", allow_abbrev=False, help="check state counts against a baseline (for CI)",
        description=_wrapped("Recompute the state counts, transitions and verdicts of the runs listed in "
                             "BASELINE (JSON) and fail when one changed. With --update, add or refresh "
                             "an entry (--model ...) or all entries. An entry that cannot be run (its "
                             "model is missing, it fails, it exceeds --timeout) is reported, and the "
                             "others are still run."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_with_strategies("exit status: 0 all counts as recorded, 1 a count or verdict changed, "
                                "2 an entry could not be run, or another failure"))
    regress_parser.add_argument("baseline", type=Path, metavar="BASELINE", help="the baseline JSON file")
    regress_parser.add_argument("--update", action="store_true",
                                help="write the current counts into BASELINE (created if missing)")
    regress_parser.add_argument("--model", type=Path, metavar="MODEL",
                                help="with --update: the model of the entry to add or refresh")
    regress_parser.add_argument("--strategy", choices=strategies.choices(), default=None, metavar="NAME",
                                help="with --model: the strategy, listed below (default: auto, as for "
                                     "verify)")
    _add_define_option(regress_parser, "for the run of the entry given with --model (repeatable)")
    regress_parser.add_argument("--pan", dest="pan_args", action="append", default=[], metavar="ARG",
                                help="with --model: a pan argument of the run (repeatable)")
    regress_parser.add_argument("--timeout", metavar="SECONDS",
                                help="the time each entry may take (spin, gcc and pan); one that "
                                     "takes longer is stopped and reported (default: no limit)")
    regress_parser.add_argument("--no-cache", action="store_true", help=_NO_CACHE_HELP)
    regress_parser.set_defaults(handler=_run_regress)


def _run_regress(args: argparse.Namespace) -> int:
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


def _add_swarm(commands) -> None:
    parser = commands.add_parser(
        "swarm", allow_abbrev=False, help="swarm verification: many diversified bitstate runs on a dask cluster",
        description=_wrapped(
            "Plan N diversified bitstate runs of pan on MODEL (compile variants -DT_REVERSE, -DP_RAND, "
            "-DT_RAND, -DP_REVERSE and run-time hash functions -hN, bits per state -kN, seeds -RSN, "
            "depth limits -mN), build each variant once with the same symmetry reduction as verify, run "
            "the jobs on a dask.distributed cluster (a LocalCluster of worker processes, or the one at "
            "--scheduler) and merge their reports: the first error with its trail (beside MODEL, as "
            "verify writes it), each job's states and depth, the total and a coverage estimate. The swarm "
            "stops at the first error. A bitstate search is approximate: \"no errors\" is not a proof."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_with_strategies("exit status: 0 no job found an error, 1 a job found one (its trail is "
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
    _add_define_option(parser, "for spin's preprocessor and for gcc (-DBITSTATE is added; repeatable)")
    parser.add_argument("--pan", dest="pan_args", action="append", default=[], metavar="ARG",
                        help="run-time arguments for every pan job, e.g. --pan -w20 (the swarm then does not "
                             "vary what you set: -h, -k, -RS, -m)")
    parser.add_argument("--spin", dest="spin_args", action="append", default=[], metavar="ARG",
                        help="spin's own options for spin -a, as for verify (repeatable)")
    parser.add_argument("--safety", action="store_true",
                        help="search for safety violations only, even if the model has accept labels")
    parser.add_argument("--no-cache", action="store_true", help=_NO_CACHE_HELP)
    parser.add_argument("--gcc-opt", dest="optimisation", default=DEFAULT_OPTIMISATION, choices=OPTIMISATION_LEVELS,
                        metavar="LEVEL", help="gcc's optimisation level for pan.c (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object on stdout")
    parser.add_argument("--progress", action="store_true",
                        help="show the live progress line even when stderr is not a terminal")
    noise = parser.add_mutually_exclusive_group()
    noise.add_argument("--quiet", action="store_true", help="no progress or notes on stderr")
    noise.add_argument("--verbose", action="store_true", help="show the spin and gcc commands and the decisions")
    parser.set_defaults(handler=_run_swarm)


def _run_swarm(args: argparse.Namespace) -> int:
    from topspin_py.errors import UsageError
    from topspin_py.swarm.display import SwarmDisplay
    from topspin_py.swarm.run import SwarmOptions, swarm

    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: a swarm needs at least one job")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: the local cluster needs at least one worker")
    if args.workers is not None and args.scheduler is not None:
        raise UsageError("--workers sizes the local cluster; with --scheduler your cluster has its own workers")
    budget = None if args.time_budget is None else _seconds(args.time_budget, "--time-budget")
    live = not args.quiet and (args.progress or sys.stderr.isatty())
    display = SwarmDisplay(sys.stderr) if live else None
    notes = None if args.quiet else (display.note if display is not None else _to_stderr(None))
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


def _seconds(text: str, option: str) -> float:
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


def _described(choice) -> str:
    """``segmented (exact), chosen by auto: ...``: a strategy as generate and patch print it."""
    text = f"{choice.name} ({strategies.exactness(choice.name)})"
    return text + (f", chosen by auto: {choice.reason}" if choice.reason else "")


def _warn_about(strategy: str) -> None:
    """An approximate or complete strategy's warning, on stderr."""
    if text := strategies.warning(strategy):
        print(f"topspin-py: warning: {text}", file=sys.stderr)


def _help_width() -> int:
    """The width argparse wraps help to."""
    return max(shutil.get_terminal_size().columns - 2, 40)


def _wrapped(text: str) -> str:
    """A paragraph wrapped as argparse wraps help, for a parser whose epilog is raw."""
    import textwrap

    return textwrap.fill(text, _help_width())


def _with_strategies(text: str, with_none: bool = True) -> str:
    """An epilog: its paragraph wrapped, then the strategies one a line (strategies.help_listing)."""
    return _wrapped(text) + "\n\n" + strategies.help_listing(with_none, _help_width())


def _to_stderr(display: ProgressDisplay | None):
    def write(text: str) -> None:
        if display is not None:
            display.note(text)  # not over the updating status line
        else:
            print(text, file=sys.stderr)
    return write


def _budget(text: str) -> int:
    """--check-symmetry's BUDGET: a number of states, at least 1 (10000, 1e6, 200k)."""
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:].lower(), 1)
    try:
        value = float(text[:-1] if scale > 1 else text) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of states") from None
    if value < 1 or value != int(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of states (a whole number, at least 1)")
    return int(value)


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
            attached.append(f"{word}={_CHECK_BUDGET}")
        else:
            attached.append(word)
    return attached


if __name__ == "__main__":
    sys.exit(main())
