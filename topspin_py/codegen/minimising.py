"""The element sets of the complete strategies ``sorted`` and ``localsearch``.

Both strategies descend: starting from the state, they apply elements of a fixed set and keep
an image whenever it is smaller, until no element of the set improves (TopSPIN's minimising
sets and local search: Donaldson and Miller, FM 2006 [DM06b], docs/references.md).  Every
element applied is an element of the group, so the result is in the orbit of the state
(sound); it is a local minimum, not always the least image, so an orbit may keep several
representatives (complete, not exact).  Stopping only at a state no element improves makes the
result a fixed point: canonicalising it again changes nothing.

Elements are written as the images of every C point (:mod:`topspin_py.codegen.chain`).
"""

from __future__ import annotations

from sympy.combinatorics import Permutation, PermutationGroup

from ..symmetry.detect import Group
from .chain import Chain, c_images, point_numbering, value_points

Images = tuple[int, ...]


def swap_classes(swaps: dict[tuple[int, int], Images], n_pids: int) -> list[list[int]]:
    """The classes of processes any two of which some element swaps while fixing every other
    process (chain.process_swaps: being swappable is an equivalence), each in increasing pid
    order; classes of one process are left out.  The group holds every permutation of a
    class, so the sorted strategy may order its processes as it likes."""
    classes: list[list[int]] = []
    placed: set[int] = set()
    for x in range(n_pids):
        if x in placed:
            continue
        members = [x] + [y for y in range(x + 1, n_pids) if (x, y) in swaps]
        placed.update(members)
        if len(members) > 1:
            classes.append(members)
    return classes


def minimising_set(group: Group, chain: Chain, swaps: dict[tuple[int, int], Images]) -> list[Images]:
    """The sorted strategy's minimising set: every process swap (TopSPIN's set for a symmetric
    group, all transpositions of its columns); when the swaps do not generate the group
    (rings, products with channels that move on their own, ...), also every element of the
    chain's transversals, whose products spell the whole group."""
    elements = sorted(set(swaps.values()))
    if elements and _order(elements) == group.order:
        return elements
    identity = tuple(range(chain.n_points))
    return _distinct(elements + [t for level in chain.levels for t in level.transversal], identity)


def climbing_set(group: Group, n_pids: int, n_chans: int, swaps: dict[tuple[int, int], Images]) -> list[Images]:
    """The localsearch strategy's moves: the group's generators, their inverses and the
    process swaps."""
    point_of = point_numbering(group, n_pids, n_chans)
    identity = tuple(range(n_pids + n_chans + len(value_points(group, n_pids, n_chans))))
    generators = [c_images(g, point_of, identity) for g in group.perm_group.generators]
    inverses = [_inverse(g) for g in generators]
    return _distinct(generators + inverses + sorted(set(swaps.values())), identity)


def inverse_images(elements: list[Images]) -> list[Images]:
    """g^-1 for each g, for the key comparisons of sorted.c.j2."""
    return [_inverse(g) for g in elements]


def _order(elements: list[Images]) -> int:
    return PermutationGroup([Permutation(list(g)) for g in elements]).order()


def _distinct(elements: list[Images], identity: Images) -> list[Images]:
    """The elements in their first order, each once, without the identity."""
    return [g for g in dict.fromkeys(elements) if g != identity]


def _inverse(images: Images) -> Images:
    inverse = [0] * len(images)
    for q, image in enumerate(images):
        inverse[image] = q
    return tuple(inverse)

