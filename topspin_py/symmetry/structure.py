"""The structure of a symmetry group, in the terms a strategy chooser needs: a direct product of
factors, each a symmetric group, a wreath product S_s wr S_b, a cyclic or a dihedral group, or
just a group of some order on its points.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

from sympy.combinatorics import Permutation, PermutationGroup


@dataclass
class Factor:
    """One factor of a direct product: its kind and the points (by name) it moves."""

    kind: str  # "symmetric", "wreath", "cyclic", "dihedral", "other"
    name: str  # S3, S3 wr S2, C3, D4, "order 12"
    order: int
    points: list[str]


def factors(group, point_names: list[str]) -> tuple[list[Factor], bool]:
    """The factors of ``group`` (a sympy PermutationGroup on len(point_names) points), and
    whether the group is their direct product (False: it is a subgroup of the product)."""
    perm_group: PermutationGroup = group
    order = int(perm_group.order())
    if order == 1:
        return [], True
    moved_orbits = [sorted(o) for o in perm_group.orbits() if len(o) > 1]
    components = linked_orbits(perm_group, moved_orbits)
    result = []
    product = 1
    for component in components:
        restricted = _restrict(perm_group, component)
        sub_order = int(restricted.order())
        product *= sub_order
        result.append(_classify(restricted, sub_order, component, point_names))
    return result, product == order


def linked_orbits(group: PermutationGroup, orbits: list[list[int]]) -> list[list[int]]:
    """Orbits moved together by some generator are one component (a process and its channel)."""
    parent = list(range(len(orbits)))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    where = {p: i for i, orbit in enumerate(orbits) for p in orbit}
    for gen in group.generators:
        moved = sorted({find(where[p]) for p in range(gen.size) if gen(p) != p and p in where})
        for other in moved[1:]:
            parent[find(other)] = find(moved[0])
    components: dict[int, list[int]] = {}
    for i, orbit in enumerate(orbits):
        components.setdefault(find(i), []).extend(orbit)
    return [sorted(c) for c in components.values()]


def _restrict(group: PermutationGroup, points: list[int]) -> PermutationGroup:
    local = {p: i for i, p in enumerate(points)}
    gens = [Permutation([local[g(p)] for p in points]) for g in group.generators]
    return PermutationGroup(gens or [Permutation(list(range(len(points))))])


def _classify(group: PermutationGroup, order: int, points: list[int], names: list[str]) -> Factor:
    named = [names[p] for p in points]
    # The action on one orbit decides the shape when the others follow it (channels with
    # their processes).
    orbits = sorted((sorted(o) for o in group.orbits()), key=len, reverse=True)
    degree = len(orbits[0])
    main = _restrict(group, orbits[0]) if len(orbits) > 1 else group
    if int(main.order()) == order:
        if order == factorial(degree):
            return Factor("symmetric", f"S{degree}", order, named)
        if order == degree and main.is_cyclic:
            return Factor("cyclic", f"C{degree}", order, named)
        if order == 2 * degree and degree > 2 and main.is_transitive():
            return Factor("dihedral", f"D{degree}", order, named)
        for blocks in _block_systems(main):
            size = degree // blocks
            if order == factorial(size) ** blocks * factorial(blocks):
                return Factor("wreath", f"S{size} wr S{blocks}", order, named)
    return Factor("other", f"order {order}", order, named)


def _block_systems(group: PermutationGroup) -> list[int]:
    """Numbers of blocks of the group's minimal block systems (when transitive)."""
    if not group.is_transitive():
        return []
    counts = []
    for system in group.minimal_blocks():
        counts.append(len(set(system)))
    return counts
