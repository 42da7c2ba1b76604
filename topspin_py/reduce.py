"""The symmetry's decisions and text, for the stages pipeline.py assembles: the search context
(which claim and labels constrain the group), the group of a context, auto's strategy, the
defines a reduction needs, and the canonicaliser's C and header (the layout read from pan.h,
the code generated).  pipeline.canonicalise writes them and splices them into pan.c."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from topspin_py import strategies
from topspin_py.codegen.registry import STRATEGIES
from topspin_py.errors import UsageError
from topspin_py.layout.statevector import read_layout
from topspin_py.pan import flags as panflags
from topspin_py.pan.flags import breadth_first, define_name
from topspin_py.pan.own_build import GENERATED_BY_US
from topspin_py.pan.splice import SYM_MACRO
from topspin_py.promela.claim_in_force import ANY_CLAIM, FIRST_CLAIM, NO_CLAIM
from topspin_py.promela.model import Model
from topspin_py.resources import template_environment

if TYPE_CHECKING:
    from topspin_py.symmetry.detect import Group

# Detection and the code generators (sympy, jinja2: most of a second to import) are imported
# where a reduction is made, so that a run with --strategy none does not pay for them.

GENERATED_C = "topspin_sym.c"   # the canonicaliser, #included at the end of the spliced pan.c
GENERATED_H = "topspin_sym.h"   # what it is, for users who build pan themselves


@dataclass(frozen=True)
class StrategyChoice:
    """The strategy a run uses, and why, when the user did not name it (auto, a trivial group)."""

    name: str
    reason: str | None = None


def strategy_choice(requested: str, group: Group) -> StrategyChoice:
    """`auto`: the fastest exact strategy the group allows; `none` for the trivial group.

    That is `refine` for every group: it applies a subset of the elements that `segmented`
    applies (its keys tell apart every pair of processes segmented's do, and more), a group
    that is a product of full symmetric groups costs it one sort and one image when the ties
    are harmless, and it is exact for any group (bench/results/per_transition.md)."""
    if requested == "none":
        return StrategyChoice("none")
    if group.order == 1:
        return StrategyChoice("none", "the symmetry group is trivial: nothing to reduce")
    if requested == "auto":
        return StrategyChoice("refine", "exact for every group, and the fastest exact strategy "
                                        "where measured (bench/results/per_transition.md)")
    return StrategyChoice(requested)


def defines_the_reduction_needs(model: Model, defines: list[str]) -> list[str]:
    """Compile-time defines to add for the reduction to be sound: ``NOCOMP`` when the model
    receives into _pid (which gives a process a pid not its own) and pan would otherwise
    compress _pid out of the states it stores, taking states that differ in it for one.
    (The generated C refuses to compile without it.)"""
    receives = model.receives_into_pid()
    if not receives:
        return []
    names = {define_name(d) for d in defines}
    if names & {"COLLAPSE", "MA"}:
        raise UsageError(f"{receives[0].pos}: the model receives into _pid, which -DCOLLAPSE and "
                         "-DMA leave out of the states pan stores",
                         hint="drop -DCOLLAPSE/-DMA, or use --strategy none")
    if names & {"NOCOMP", "BITSTATE"} or any(name.startswith("HC") for name in names):
        return []
    return ["NOCOMP"]


def search_context(model: Model, defines: list[str],
                   pan: panflags.PanOptions | Sequence[str] | None = None) -> Model:
    """The model as the search sees it, the one reading every later stage uses: only the claim
    pan checks (-N name, -DNOCLAIM), states inside atomic sequences under -DBFS, and no accept
    or progress labels unless pan looks for cycles.  ``pan`` None: pan runs later, with
    arguments we do not know (generate, patch), so every claim and a cycle search are kept."""
    options = None if pan is None else panflags.PanOptions.of(pan)
    claim = (panflags.claim_in_force(defines, options) if options is not None
             else NO_CLAIM if any(define_name(d) == "NOCLAIM" for d in defines) else ANY_CLAIM)
    require_claim(model, claim)
    searched = model.keeping_claim(claim)
    if breadth_first(defines):
        searched = searched.for_breadth_first_search()
    if options is not None and not options.cycle_search:
        searched = searched.for_safety_search()
    return searched


def require_claim(model: Model, claim: str) -> None:
    """A claim asked for by name (pan -N NAME) must be one the model holds: pan would stop with
    "cannot find claim", or, when the model has none, ignore -N and check no claim at all."""
    if claim in (NO_CLAIM, FIRST_CLAIM, ANY_CLAIM):
        return
    names = [name for _, name in model.claim_names()]
    if claim not in names:
        held = f"its claims are {', '.join(names)}" if names else "it has no never claim or ltl formula"
        raise UsageError(f"-N {claim}: the model has no claim named '{claim}'; {held}",
                         hint="name one of its claims with -N (pan's names: an unnamed never claim is "
                              "never_0, an unnamed ltl formula ltl_0)" if names
                         else "drop -N, or add the claim to the model (spin's -N FILE adds a never "
                              "claim from a file)")


def find_symmetry(context: Model) -> Group:
    """The symmetry of the search ``context`` (search_context), as it acts on the states pan
    stores: the value the layout, the canonicaliser and the splice read, and nothing else."""
    from topspin_py.symmetry.detect import acting_on_states, detect

    return acting_on_states(detect(context))


def write_canonicaliser(workdir: Path, group: Group, strategy: str, flags: list[str], name: str,
                        reason: str | None = None) -> Path:
    """The canonicaliser for ``group`` as ``workdir/name``, for the pan.c (spin's, spliced or
    not) and pan.h in ``workdir``; ``flags`` are the -D flags pan will be compiled with (they
    shape pan.h's structs).  The layout is read with the group's own model and types, as the
    validity check read them.  A spliced pan.c
    compiled with ``-DTOPSPIN_SYM_FILE="name"`` uses it instead of its own (pan/lasso.py)."""
    from topspin_py.codegen.render import render_canonicaliser

    layout = read_layout(workdir, group.model, group.types, flags=flags)
    path = workdir / name
    path.write_text(_c_comment(group, strategy, reason) + render_canonicaliser(group, layout, strategy)
                    + _build_guard(group))
    return path


def _build_guard(group: Group) -> str:
    """What refuses a build the group is not valid for: a group found for a search that checks
    no claim (-DNOCLAIM) may break the claims it left out, which a pan built without
    -DNOCLAIM checks (generate and patch print the build line, but the user compiles)."""
    model = group.model
    if model.claim_in_force != NO_CLAIM or not model.claims_left_out:
        return ""
    return template_environment().get_template("canonicaliser_notes.c.j2").render(
        part="guard", claims=", ".join(model.claims_left_out))


def _strategy_lines(group: Group, strategy: str, reason: str | None) -> list[str]:
    """What the generated C says about its strategy: exactness, auto's reason, the warning."""
    info = STRATEGIES[strategy]
    lines = [f" * group order {group.order}; strategy {strategy} ({info.exactness}: {info.description})"]
    if reason:
        lines.append(f" * chosen by auto: {reason}")
    if text := strategies.warning(strategy):
        lines += textwrap.wrap(f"WARNING: {text}", 96, initial_indent=" * ", subsequent_indent=" *   ")
    return lines


def _c_comment(group: Group, strategy: str, reason: str | None) -> str:
    """A warning atop the canonicaliser of a strategy that is not exact, so that a reader of
    topspin_sym.c alone sees it (the template's own comment follows; exact: nothing)."""
    if strategies.warning(strategy) is None:
        return ""
    return template_environment().get_template("canonicaliser_notes.c.j2").render(
        part="warning", generated_by=GENERATED_BY_US, notes=_strategy_lines(group, strategy, reason))


def header(group: Group, strategy: str, flags: list[str], reason: str | None = None) -> str:
    """topspin_sym.h (templates/topspin_sym.h.j2): what the canonicaliser is, for users who
    build pan themselves."""
    return template_environment().get_template("topspin_sym.h.j2").render(
        generated_by=GENERATED_BY_US, notes=_strategy_lines(group, strategy, reason),
        generators=[group.cycles(a) for a in group.generators],
        build=f"gcc {panflags.DEFAULT_OPTIMISATION} {' '.join(flags + ['-D' + SYM_MACRO])} -o pan pan.c",
        generated_c=GENERATED_C, sym_macro=SYM_MACRO)
