"""What verify refuses, and what it checks pan did: options whose meaning symmetry reduction
would change, claims pan would not check, models whose printing could pass for pan's report, and
a reduced pan whose report says it was not the run we meant.  Each refusal says why and what to
do instead; none is silent.
"""

from __future__ import annotations

from pathlib import Path

from topspin_py.errors import ToolchainError, UsageError
from topspin_py.pan import flags as panflags
from topspin_py.pan import toolchain
from topspin_py.pan.output import PanReport
from topspin_py.promela import ast
from topspin_py.promela.model import Model


def spin_por_incompatibilities(tools: toolchain.Toolchain, defines: list[str], pan: panflags.PanOptions,
                                workdir: Path) -> list[str]:
    """SPIN's own words, in the pan.c of ``workdir``, that its partial order reduction is not
    compatible with the model (flags.por_incompatibilities): the #warning and #error lines
    that the preprocessor reaches with the search's flags, -DNOREDUCE taken away (whether the
    user gave it or not, so that --cross-check can say why the verdicts differ).  One run of
    the preprocessor, not of the compiler."""
    with_por = [define for define in defines if panflags.define_name(define) != "NOREDUCE"]
    sources = [path.read_text(errors="replace") for path in workdir.glob("pan.[chbmpt]")]
    pan_h = (workdir / "pan.h").read_text(errors="replace")
    flags = panflags.choose_compile_flags(with_por, pan, panflags.pan_h_declares_claim(pan_h),
                                          panflags.pan_option_names(sources)).flags
    return panflags.por_incompatibilities(toolchain.preprocessor_diagnostics(tools, flags, workdir))


def refuse_printing_with_several_processes(defines: list[str], model: Model) -> None:
    """pan's report is read from its own block at the end of its output, which a model's
    printing cannot follow (pan/output.py) -- in a pan of one process.  The workers of a pan of
    several processes print whenever they flush, so a model that can print (printf under
    -DPRINTF, embedded C code) could put a report of its own after pan's, or in place of one
    pan never printed."""
    if not panflags.several_processes(defines):
        return
    if any(panflags.define_name(define) == "PRINTF" for define in defines):
        raise UsageError("-DPRINTF with a search of several processes (-DNCORE, -DBFS_PAR) is not "
                         "supported: the model's printing and pan's report reach the output from "
                         "several processes at once, and the report could not be told from the "
                         "model's text", hint="drop -DPRINTF, or verify with one process")
    if any(isinstance(node, (ast.CCode, ast.CExpr, ast.CState))
           for unit in model.expanded.units for node in unit.walk()):
        raise UsageError("a model with embedded C code (c_code, c_expr, c_decl, ...) is not supported "
                         "with a search of several processes (-DNCORE, -DBFS_PAR): the C code may "
                         "print, and its text and pan's report reach the output from several processes "
                         "at once, so the report could not be told from it",
                         hint="verify with one process (without -DNCORE or -DBFS_PAR)")


def por_switched(defines: list[str]) -> list[str]:
    """``defines`` with partial order reduction switched the other way: -DNOREDUCE taken away
    if given, else added."""
    without = [define for define in defines if panflags.define_name(define) != "NOREDUCE"]
    return without if len(without) < len(defines) else [*defines, "NOREDUCE"]


def refuse_a_claim_pan_would_not_check(spin_options: panflags.SpinOptions, defines: list[str]) -> None:
    """spin's -f, -F or -N FILE adds a never claim for pan to check; -DNOCLAIM leaves every
    claim out, and -DNP (or pan -l, which adds it) checks the non-progress claim in its place:
    the claim asked for would go unchecked without a word."""
    given = (spin_options.formula_args[0] if spin_options.formula_args
             else "-N FILE" if spin_options.claim_file is not None else None)
    names = {panflags.define_name(define) for define in defines}
    for name, why in (("NOCLAIM", "leaves every claim out"),
                      ("NP", "checks pan's non-progress claim in place of the never claim")):
        if given is not None and name in names:
            raise UsageError(f"spin {given} adds a never claim for pan to check, and -D{name} {why}",
                             hint=f"drop -D{name}" + (" (and -l)" if name == "NP" else "") + f", or {given}")


def check_reduction_on(report: PanReport, group) -> None:
    """pan says in its report whether the canonicaliser was compiled in: a reduced run whose
    pan says otherwise was not the run we meant (a stale binary, a lost -D).  (A multi-core pan
    that stopped at an error before its report says nothing: its errors stand.)"""
    if not report.has_summary and report.errors:
        return
    if report.symmetry != "on" or report.symmetry_group_order != group.order:
        said = "nothing" if report.symmetry is None else (
            f"symmetry reduction {report.symmetry}, group order {report.symmetry_group_order}")
        raise ToolchainError(f"pan was meant to reduce by a group of order {group.order}, but its "
                             f"report says {said}", hint=INTERNAL_HINT)


def check_claim_checked(report: PanReport, context: Model) -> None:
    """The symmetry was found for the claims the search ``context`` keeps: pan must have
    checked one of them (or none), or the reduction may be unsound."""
    claim = report.claim
    if claim is None or claim == ":np_:":
        return   # no claim, or pan's own non-progress claim: no claim of the model checked
    kept = context.checked_claim_names()
    if claim not in kept:
        raise ToolchainError(f"pan checked the claim {claim}, but the symmetry was restricted to "
                             f"{', '.join(kept) or 'a search without a claim'}",
                             hint=INTERNAL_HINT)


INTERNAL_HINT = ("this is a topspin-py bug: please report the model; --strategy none verifies "
                  "without symmetry reduction")


def refuse_with_symmetry(pan: panflags.PanOptions, defines: list[str]) -> None:
    """Options whose meaning a permutation of processes would change."""
    if pan.fairness:
        raise UsageError("weak fairness (-f) counts steps per process slot, which symmetry "
                         "reduction permutes: the result would be unsound",
                         hint="use --strategy none with -f")
    for define in defines:
        name = define.split("=", 1)[0]
        if name == "TRIX":
            # pan keeps each process and channel in a vector of its own, which the
            # canonicaliser (written for one state vector, `now`) does not see
            raise UsageError("-DTRIX is not supported with symmetry reduction: it keeps every "
                             "process and channel in a vector of its own, and the canonicaliser "
                             "works on the one state vector pan otherwise keeps",
                             hint="use --strategy none")
        if name == "BFS_PAR" and pan.cycle_search:
            raise UsageError("-DBFS_PAR with a cycle search (-a, -l) is not supported with symmetry "
                             "reduction (only its safety search is, with -DSAFETY)",
                             hint="use --safety -DSAFETY, or --strategy none")
        if name == "NCORE" and pan.cycle_search and define.split("=", 1)[1:] not in ([], ["1"]):
            # pan's multi-core liveness search hands each accepting state to the next core,
            # whose nested search ends a cycle only on that very seed state (the first search's
            # stack is on another core); a reduced nested search may meet only a permutation of
            # the seed, whose canonical form it stored already, and so miss the cycle
            # (tests/models/lasso_ring.pml: plain pan -DNCORE=2 -a finds it, a reduced one not).
            raise UsageError("-DNCORE>1 with a cycle search (-a, -l) is not supported with symmetry "
                             "reduction: pan's multi-core nested search closes a cycle only on its "
                             "seed state itself, and the reduced search may reach only a permutation "
                             "of it, missing the cycle", hint="use -DNCORE=1, --safety, or --strategy none")
    names = {define.split("=", 1)[0] for define in defines}
    if "BCS" in names:
        # pan's bounded context switching keeps the running process and the switch count in
        # the search stack, not in the state: matching a canonical state drops paths that
        # reach the state's orbit with other counts, and errors within the bound go unseen
        # (lock3 with -DBCS -L1: plain pan finds the assertion violation, a reduced pan none).
        raise UsageError("-DBCS (bounded context switching) is not supported with symmetry "
                         "reduction: the bound counts switches between process slots along the "
                         "search path, which canonical states merge, so errors within the bound "
                         "could be missed", hint="use --strategy none")
    if panflags.breadth_first(defines) and "BITSTATE" in names and "NOREDUCE" not in names:
        raise UsageError("-DBFS -DBITSTATE with partial order reduction compares raw states, "
                         "not their canonical forms", hint="add -DNOREDUCE")
