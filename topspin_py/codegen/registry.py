"""The registry of canonicalisers: each strategy's name, exactness, description, the family of
code generators that writes it (render.FAMILIES) and its template.

A strategy is registered here and nowhere else: the command line's choices and help, the
renderer and the test suites (differential, closure, cffi) all read STRATEGIES.  A strategy of
an existing family is one entry (and a template, if it needs its own C); a new family is a
function in render.py's FAMILIES too (ARCHITECTURE.md, "Adding a strategy").

Kept apart from the code generators (render.py) so that what the command line lists and
checks (``--strategy``'s choices, ``--help``) is known without importing them: they bring
sympy and jinja2, which take a second to import.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Strategy:
    name: str
    exactness: str  # "exact" (one state per orbit), "complete" (at least one), "approximate"
    description: str
    # The code generator (a key of render.FAMILIES) and the template it renders (templates/).
    # "chain": a search of the group's stabiliser chain; "descent": a fixed set of elements
    # applied while one improves; "markers" and "pseudosort": sorts of trees of symmetric groups.
    family: str
    template: str
    # chain: which keys prune the search (None: none, every element is applied; "segmented";
    # "refined", invariants.py).  descent: which elements ("minimising" sets, or "climbing").
    keys: str | None = None
    elements: str | None = None
    # Only for a group that is a direct product of trees of symmetric groups
    # (trees.symmetric_trees); any other group is refused with a CodegenError.
    symmetric_trees_only: bool = False
    # An approximate strategy whose canonical form is a function of this complete strategy's
    # ([BDLM07], Prop. 1(3): m(s) = rho(m_exact(s))).  References: docs/references.md.
    coarsens: str | None = None
    # Canonicalising a canonical form leaves it as it is (the pseudo-sort of [DG01] does not
    # promise it: its exchanges rename pids, which may reorder what it sorted).
    idempotent: bool = True


STRATEGIES = {
    "enumerate": Strategy("enumerate", "exact", "every group element, least image in byte order",
                          "chain", "enumerate.c.j2"),
    "segmented": Strategy("segmented", "exact", "processes ordered by their pid-free part, "
                          "every element that keeps that order, least image in byte order",
                          "chain", "segmented.c.j2", keys="segmented"),
    "refine": Strategy("refine", "exact", "processes ordered by invariants refined by the "
                       "points they name, search among ties only, pruned by swaps that fix the state",
                       "chain", "refine.c.j2", keys="refined"),
    "markers-exact": Strategy("markers-exact", "complete", "the markers of [BDLM07]: blocks sorted by "
                              "marker and by the markers their values name, no search",
                              "markers", "markers.c.j2", symmetric_trees_only=True),
    "markers-approx": Strategy("markers-approx", "approximate", "markers-exact, then every value "
                               "inside a block names the last block of its class: may merge orbits",
                               "markers", "markers.c.j2", symmetric_trees_only=True, coarsens="markers-exact"),
    "pseudosort": Strategy("pseudosort", "complete", "the pseudo-sort of [DG01]: the instances of "
                           "each proctype insertion-sorted by their tuples in declaration order, "
                           "exchanges renaming the pids they hold", "pseudosort", "pseudosort.c.j2",
                           symmetric_trees_only=True, idempotent=False),
    "sorted": Strategy("sorted", "complete", "processes sorted by their pid-free part, then a "
                       "minimising set applied until no element gives a smaller image",
                       "descent", "sorted.c.j2", elements="minimising"),
    "localsearch": Strategy("localsearch", "complete", "hill-climbing: generators, their inverses "
                            "and process swaps applied until none gives a smaller image",
                            "descent", "localsearch.c.j2", elements="climbing"),
}


def register(strategy: Strategy) -> None:
    """Add a strategy (a plug-in, or a test's): it is then a choice of --strategy, rendered by
    its family, and run by the test suites that read STRATEGIES."""
    if strategy.name in STRATEGIES or strategy.name in ("auto", "none"):
        raise ValueError(f"a strategy named {strategy.name!r} exists")
    STRATEGIES[strategy.name] = strategy
