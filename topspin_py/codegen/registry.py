"""The registry of canonicalisers: each strategy's name, exactness and description.

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
    # Only for a group that is a direct product of trees of symmetric groups
    # (trees.symmetric_trees); any other group is refused with a CodegenError.
    symmetric_trees_only: bool = False
    # An approximate strategy whose canonical form is a function of this complete strategy's
    # (seed 001, Prop. 1(3): m(s) = rho(m_exact(s))).
    coarsens: str | None = None
    # Canonicalising a canonical form leaves it as it is (seed 003's pseudo-sort does not
    # promise it: its exchanges rename pids, which may reorder what it sorted).
    idempotent: bool = True


STRATEGIES = {
    "enumerate": Strategy("enumerate", "exact", "every group element, least image in byte order"),
    "segmented": Strategy("segmented", "exact", "processes ordered by their pid-free part, "
                          "every element that keeps that order, least image in byte order"),
    "refine": Strategy("refine", "exact", "processes ordered by invariants refined by the "
                       "points they name, search among ties only, pruned by swaps that fix the state"),
    "markers-exact": Strategy("markers-exact", "complete", "seed 001's markers: blocks sorted by "
                              "marker and by the markers their values name, no search",
                              symmetric_trees_only=True),
    "markers-approx": Strategy("markers-approx", "approximate", "markers-exact, then every value "
                               "inside a block names the last block of its class: may merge orbits",
                               symmetric_trees_only=True, coarsens="markers-exact"),
    "pseudosort": Strategy("pseudosort", "complete", "seed 003's pseudo-sort: the instances of "
                           "each proctype insertion-sorted by their tuples in declaration order, "
                           "exchanges renaming the pids they hold", symmetric_trees_only=True,
                           idempotent=False),
    "sorted": Strategy("sorted", "complete", "processes sorted by their pid-free part, then a "
                       "minimising set applied until no element gives a smaller image"),
    "localsearch": Strategy("localsearch", "complete", "hill-climbing: generators, their inverses "
                            "and process swaps applied until none gives a smaller image"),
}
