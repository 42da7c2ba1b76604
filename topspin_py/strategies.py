"""What the user is told about strategies: the choices, their exactness, and the warnings.

Everything here is read from the registry (``topspin_py.codegen.registry.STRATEGIES``) when it is
asked for, so a strategy registered later is listed, labelled and warned about with no change
here.  Exactness, as the registry states it:

``exact``
    one state per orbit: the counts are the quotient's, and "no errors" is a proof.
``complete``
    at least one state per orbit: "no errors" is still a proof, but the state count may be
    above the exact orbit count.
``approximate``
    states of different orbits may be merged: errors found are real, but "no errors" is not
    a proof.
"""

from __future__ import annotations

import textwrap

from topspin_py.codegen.registry import STRATEGIES

AUTO = "auto"
NONE = "none"
AUTO_DESCRIPTION = "the fastest exact strategy for the group (never an approximate one)"
NONE_DESCRIPTION = "no symmetry reduction: plain SPIN"

_WARNINGS = {
    "exact": None,
    "complete": "strategy {name} is complete, not exact: it stores at least one state per orbit, "
                "so its state count may be above the exact orbit count (the verdict is still sound)",
    "approximate": "strategy {name} is approximate: states of different orbits may have been "
                   "merged, so a \"no errors\" verdict is not a proof (errors it finds are real); "
                   "use an exact strategy (--strategy auto) for a proof",
}


def choices(with_none: bool = True) -> list[str]:
    """What ``--strategy`` accepts: auto, every registered strategy, and (unless a command has
    nothing to do without a reduction) none."""
    return [AUTO, *STRATEGIES, *([NONE] if with_none else [])]


def exactness(name: str) -> str | None:
    """"exact", "complete" or "approximate" for a registered strategy; None for none."""
    return None if name == NONE else STRATEGIES[name].exactness


def warning(name: str) -> str | None:
    """What the user must be told about a run with strategy ``name`` (None: nothing)."""
    label = exactness(name)
    if label is None:
        return None
    if label not in _WARNINGS:
        label = "approximate"   # a label this module does not know cannot be vouched for
    text = _WARNINGS[label]
    return None if text is None else text.format(name=name)


def help_listing(with_none: bool = True, width: int = 78) -> str:
    """``--help``'s list of strategies, one an entry: name, exactness, description."""
    rows = [(AUTO, "", AUTO_DESCRIPTION)]
    rows += [(name, strategy.exactness, strategy.description) for name, strategy in STRATEGIES.items()]
    if with_none:
        rows.append((NONE, "", NONE_DESCRIPTION))
    column = max(len(name) for name, _, _ in rows) + 4
    lines = ["strategies (--strategy NAME):"]
    for name, label, description in rows:
        lines += textwrap.wrap(f"{'(' + label + ') ' if label else ''}{description}", width,
                               initial_indent=f"  {name:{column - 2}}", subsequent_indent=" " * column)
    lines += textwrap.wrap("exact: one state per orbit; complete: at least one state per orbit (the count "
                           "may be above the exact one); approximate: states of different orbits may "
                           "be merged, so \"no errors\" is not a proof.", width)
    return "\n".join(lines)
