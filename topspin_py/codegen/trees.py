"""The group as a direct product of *trees of symmetric groups*, for the markers strategies.

A tree here is the shape of an iterated wreath product: its leaves are processes (each with
the channels that go with it), its inner nodes are groups of them (a server with its clients,
and the server's own channels), and the group is every permutation that maps the tree onto
itself, any order of the children of every node.  A one-level tree is a full symmetric group
on blocks (Peterson, the e-mail system); two levels are S_a wr S_b (the servers of a
client/server system, each with its own clients), and so on.  For such a group, sorting the
children of every node by an invariant of their subtrees, from the top down, builds an element
of the group with nothing to search (templates/markers.c.j2).

How the tree is found, and why what is found is the group (checked, never assumed):

1. Points moved together by a generator are one component (structure.linked_orbits); the
   group must be the direct product of its components (the orders multiply).
2. In a component, the largest orbit of pids is the leaves.  The group must act faithfully on
   it (its order restricted to the leaves is the component's order), so an element is known by
   what it does to the leaves.
3. Levels, bottom up: while the group does not act on the current blocks as the full symmetric
   group, a minimal block system of that action groups them into the next level's blocks
   (none: not a tree).  Every level is then a block system of the group, so the group is a
   subgroup of the tree's automorphisms; their orders being equal makes it all of them.
4. Every other orbit of the component (servers, channels) hangs from one level: a bijection
   from that level's nodes onto the orbit that every generator respects.  It is built along
   the generators from one guess and dropped at the first contradiction, so what is kept
   commutes with the group, and the group moves these points with the nodes they hang from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import factorial, prod

from sympy.combinatorics import Permutation, PermutationGroup

from ..symmetry.detect import Group
from ..symmetry.structure import linked_orbits
from .chain import c_point


@dataclass
class Node:
    """A node of a tree: its own points (a leaf's pid first, then what hangs from it), as C
    points (chain.c_point), and its children, every order of which is in the group."""

    points: tuple[int, ...]
    children: list[Node] = field(default_factory=list)

    @property
    def depth(self) -> int:
        return 1 + max((child.depth for child in self.children), default=0)


def symmetric_trees(group: Group, n_pids: int) -> list[Node] | None:
    """One root per component (a node with no points whose children are the top blocks), or
    None when the group is not a direct product of trees of symmetric groups."""
    perm_group = group.perm_group
    if perm_group.order() == 1 or group.moves_values:
        return None  # (values of a scalar domain are no processes, nor hang from them)
    point_of = [c_point(point, n_pids) if point.kind != "val" else -1 for point in group.points]
    orbits = [sorted(o) for o in perm_group.orbits() if len(o) > 1]
    roots = []
    orders = []
    for points in linked_orbits(perm_group, orbits):
        component = [orbit for orbit in orbits if orbit[0] in points]
        pid_orbits = [o for o in component if group.points[o[0]].kind == "pid"]
        if not pid_orbits:
            return None
        leaves = max(pid_orbits, key=len)
        component_order = int(_restrict(perm_group, points).order())
        if int(_restrict(perm_group, leaves).order()) != component_order:
            return None  # the leaves do not tell every element apart
        levels = _levels(perm_group, leaves)
        if levels is None or _tree_order(levels) != component_order:
            return None
        hanging: list[list[tuple[int, ...]]] = [[() for _ in level] for level in levels]
        for orbit in component:
            if orbit is leaves:
                continue
            found = _hang(perm_group, levels, orbit)
            if found is None:
                return None
            level, points_of_nodes = found
            hanging[level] = [(*own, p) for own, p in zip(hanging[level], points_of_nodes)]
        roots.append(_build(levels, hanging, point_of))
        orders.append(component_order)
    if prod(orders) != perm_group.order():
        return None  # the components are not independent
    return roots


def _restrict(perm_group: PermutationGroup, points: list[int]) -> PermutationGroup:
    local = {p: i for i, p in enumerate(points)}
    gens = [Permutation([local[g(p)] for p in points]) for g in perm_group.generators]
    return PermutationGroup(gens or [Permutation(list(range(len(points))))])


def _levels(perm_group: PermutationGroup, leaves: list[int]) -> list[list[tuple[int, ...]]] | None:
    """The block systems on the leaves, bottom up: level 0 the leaves themselves, the last
    level the blocks the group permutes as a full symmetric group.  Each block is a tuple of
    leaves, each level sorted by least leaf."""
    levels: list[list[tuple[int, ...]]] = [[(p,) for p in leaves]]
    while True:
        blocks = levels[-1]
        where = {p: i for i, block in enumerate(blocks) for p in block}
        action = PermutationGroup([Permutation([where[g(block[0])] for block in blocks])
                                   for g in perm_group.generators])
        if int(action.order()) == factorial(len(blocks)):
            return levels
        if not action.is_transitive():
            return None
        systems = action.minimal_blocks()
        if not systems:
            return None
        system = systems[0]  # which block of the action each block lies in (by representative)
        merged: dict[int, list[int]] = {}
        for i, representative in enumerate(system):
            merged.setdefault(representative, []).extend(blocks[i])
        if len(merged) in (1, len(blocks)):
            return None  # a primitive group that is not symmetric: no tree
        levels.append(sorted(tuple(sorted(b)) for b in merged.values()))


def _tree_order(levels: list[list[tuple[int, ...]]]) -> int:
    """The order of the tree's automorphism group: every order of the top blocks, and of the
    children of each inner node."""
    order = factorial(len(levels[-1]))
    for lower, upper in zip(levels, levels[1:]):
        order *= factorial(len(lower) // len(upper)) ** len(upper)
    return order


def _hang(perm_group: PermutationGroup, levels: list[list[tuple[int, ...]]],
          orbit: list[int]) -> tuple[int, list[int]] | None:
    """The level whose nodes ``orbit``'s points hang from, one each, and the point of each node;
    None when no level has such a bijection that commutes with the group."""
    for level, blocks in enumerate(levels):
        if len(blocks) != len(orbit):
            continue
        where = {p: i for i, block in enumerate(blocks) for p in block}
        for guess in orbit:
            point_of_node: dict[int, int] = {0: guess}
            pending = [0]
            consistent = True
            while pending and consistent:
                node = pending.pop()
                for g in perm_group.generators:
                    image, target = where[g(blocks[node][0])], g(point_of_node[node])
                    if image not in point_of_node:
                        point_of_node[image] = target
                        pending.append(image)
                    elif point_of_node[image] != target:
                        consistent = False
                        break
            if consistent and sorted(point_of_node.values()) == sorted(orbit):
                return level, [point_of_node[i] for i in range(len(blocks))]
    return None


def _build(levels: list[list[tuple[int, ...]]], hanging: list[list[tuple[int, ...]]],
           point_of: list[int]) -> Node:
    nodes = [Node((point_of[block[0]], *(point_of[p] for p in own)))
             for block, own in zip(levels[0], hanging[0])]
    for lower, upper, own_points in zip(levels, levels[1:], hanging[1:]):
        first_leaf = {block[0]: node for block, node in zip(lower, nodes)}
        nodes = [Node(tuple(point_of[p] for p in own),
                      [first_leaf[leaf] for leaf in block if leaf in first_leaf])
                 for block, own in zip(upper, own_points)]
    return Node((), nodes)


def breadth_first(roots: list[Node]) -> list[Node]:
    """Every node, numbered as the templates number them: the roots first, then the children
    of each node in turn (a parent before its children, siblings next to one another)."""
    nodes = list(roots)
    for node in nodes:  # grows while it is walked
        nodes.extend(node.children)
    return nodes


def flat_blocks(roots: list[Node] | None) -> list[list[tuple[int, ...]]] | None:
    """The trees as factors of blocks when every tree has one level (each factor a full
    symmetric group on its blocks, each block a leaf's points); None otherwise."""
    if roots is None or any(root.depth != 2 for root in roots):
        return None
    return [[child.points for child in root.children] for root in roots]
