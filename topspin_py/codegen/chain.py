"""A stabiliser chain of the group, in the numbering the generated C uses.

The C canonicalisers walk the group as a tree instead of a flat list of its elements: with a
base b_1 .. b_k and transversals U_1 .. U_k (U_i maps b_i to every point of its orbit under the
pointwise stabiliser of b_1 .. b_(i-1)), every element h is a product t_1 t_2 ... t_k with
t_i in U_i, and h(b_i) = (t_1 ... t_(i-1))(t_i(b_i)) is fixed once the first i factors are
chosen.  The tables hold sum |U_i| permutations instead of |G| (Peterson 7: 28 instead of 5040);
the search composes the prefix products level by level, so each is computed once for all
elements below it (Sims' method; sympy's ``schreier_sims_incremental`` gives the base and strong
generators, Butler, *Fundamental Algorithms for Permutation Groups*, LNCS 559, ch. 9).

Points in C: pid ``p`` is point ``p`` (0 <= p < n_pids); channel id ``c`` (1-based) is point
``n_pids + c - 1``; the values of the scalar domains follow, in the group's order of points
(``n_pids + n_chans + k`` for the k-th: value_points).  The base lists the moved pids first, in
increasing order, then the moved channels and values: the segmented strategy orders images by
the processes' invariant parts taken in base order, which is then the order of process slots.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from sympy.combinatorics import Permutation, PermutationGroup
from sympy.combinatorics.util import _distribute_gens_by_base, _orbits_transversals_from_bsgs

from ..symmetry.detect import Group
from ..symmetry.kinds import Point, chan_point, pid_point


@dataclass(frozen=True)
class Level:
    """One level of the chain: the base point and its transversal, each element written as the
    images of every C point (``images[q]`` is where the element sends point ``q``)."""

    point: int
    is_pid: bool
    transversal: tuple[tuple[int, ...], ...]  # the identity first


@dataclass(frozen=True)
class Chain:
    n_pids: int
    n_chans: int
    levels: tuple[Level, ...]
    n_values: int = 0

    @property
    def n_points(self) -> int:
        return self.n_pids + self.n_chans + self.n_values

    @property
    def size(self) -> int:
        """The number of group elements the chain spells (the group order)."""
        size = 1
        for level in self.levels:
            size *= len(level.transversal)
        return size


def c_point(point: Point, n_pids: int, values: dict[Point, int] | None = None) -> int:
    """The C point of a pid, a channel or a value point (``values``: from value_points) (see
    the module's docstring)."""
    if point.kind == "val":
        assert values is not None, "a value point needs the numbering of value_points"
        return values[point]
    return point.pid if point.kind == "pid" else n_pids + point.chan - 1


def value_points(group: Group, n_pids: int, n_chans: int) -> dict[Point, int]:
    """The C point of each value point of ``group``: after the pids and channels, in order."""
    found = [point for point in group.points if point.kind == "val"]
    return {point: n_pids + n_chans + k for k, point in enumerate(found)}


def point_numbering(group: Group, n_pids: int, n_chans: int):
    """index in group.points -> C point."""
    values = value_points(group, n_pids, n_chans)
    numbers = [c_point(point, n_pids, values) for point in group.points]
    return numbers.__getitem__


def stabiliser_chain(group: Group, n_pids: int, n_chans: int) -> Chain:
    """The chain of ``group`` with base: moved pids in increasing order, then moved channels
    and values."""
    point_of = point_numbering(group, n_pids, n_chans)
    n_values = len(value_points(group, n_pids, n_chans))

    degree = group.perm_group.degree
    moved = [i for i in range(degree) if any(g(i) != i for g in group.perm_group.generators)]
    base_wanted = sorted(moved, key=point_of)
    if not base_wanted:
        return Chain(n_pids, n_chans, (), n_values)
    base, strong = group.perm_group.schreier_sims_incremental(base=base_wanted)
    distributed = _distribute_gens_by_base(base, strong)
    transversals = _orbits_transversals_from_bsgs(base, distributed, transversals_only=True)
    identity = tuple(range(n_pids + n_chans + n_values))
    levels = []
    for point, transversal in zip(base, transversals):
        if len(transversal) == 1:
            continue  # a redundant base point: its stabiliser is the whole subgroup
        elements = [c_images(transversal[x], point_of, identity)
                    for x in sorted(transversal, key=lambda x: not transversal[x].is_Identity)]
        levels.append(Level(point_of(point), group.points[point].kind == "pid", tuple(elements)))
    chain = Chain(n_pids, n_chans, tuple(levels), n_values)
    if chain.size != group.order:
        raise AssertionError(f"stabiliser chain spells {chain.size} elements, the group has {group.order}")
    return chain


def setwise_stabiliser(group: PermutationGroup, points: frozenset[int], moved: set[int]) -> PermutationGroup:
    """The elements of ``group`` that map ``points`` onto itself (a subset of ``moved``, the
    points the group moves), by sympy's backtrack search over a base that lists ``points``
    first: at each level, an image inside the set for a base point inside it, outside for
    one outside.  The pointwise stabilisers of the set and of the rest seed the search."""
    inside = set(points)
    rest = sorted(moved - inside)
    if not inside or not rest:
        return group
    base, strong = group.schreier_sims_incremental(base=sorted(inside) + rest)

    def test(level: int):
        point = base[level]
        return lambda words: (words[level](point) in inside) == (point in inside)

    seed = PermutationGroup(group.pointwise_stabilizer(sorted(inside)).generators
                            + group.pointwise_stabilizer(rest).generators)
    return group.subgroup_search(lambda g: all(g(p) in inside for p in inside), base=base,
                                 strong_gens=strong, tests=[test(i) for i in range(len(base))],
                                 init_subgroup=seed)


def c_images(element: Permutation, point_of, identity: tuple[int, ...]) -> tuple[int, ...]:
    """``element`` (on the group's point indices) as the images of all C points; ``point_of``
    maps an index to its C point, ``identity`` is the identity on all C points."""
    images = list(identity)
    for index in range(element.size):
        images[point_of(index)] = point_of(element(index))
    return tuple(images)


def process_swaps(group: Group, n_pids: int, n_chans: int,
                  owned: dict[int, tuple[int, ...]]) -> dict[tuple[int, int], tuple[int, ...]]:
    """For pairs of processes X, Y in one orbit: an element of the group that swaps them and
    fixes every other process, as C point images, for every pair that has one.

    The segmented search uses them to prune: when such an element also fixes the state, the
    images below a choice of X and below a choice of Y are the same, so only one is searched.

    Being swappable is an equivalence: from swaps s(A, X) and s(A, Y), the conjugate
    s(A, Y)^-1 s(A, X) s(A, Y) swaps X and Y and fixes every other process (and from s(A, X)
    and s(X, Y) one gets s(A, Y) the same way).  So the processes of an orbit fall into classes,
    each found by trying a process against one member of each class so far; every pair of a
    class then has a swap, by conjugation, and no pair across classes has one.  Whether A and
    Y can be swapped is asked of the group's action on pids (the transposition (A Y) is in it
    exactly when a swap exists), which costs one Schreier-Sims run for all pairs, after the
    likeliest swap, the transposition with the channels they own, was not in the group; a swap
    known to exist is then found by a search of the subgroup that fixes every other process."""
    index = {point: i for i, point in enumerate(group.points)}
    degree = group.perm_group.degree
    pid_points = [i for i, point in enumerate(group.points) if point.kind == "pid"]
    on_pids = {group.points[i].pid: k for k, i in enumerate(pid_points)}

    @functools.cache
    def pid_action() -> PermutationGroup:
        return PermutationGroup([Permutation([on_pids[group.points[g(i)].pid] for i in pid_points])
                                 for g in group.perm_group.generators])

    point_of = point_numbering(group, n_pids, n_chans)

    def swap(x: int, y: int) -> Permutation | None:
        element = _pure_swap(group, index, degree, x, y, owned)
        if element is not None:
            return element
        if not pid_action().contains(Permutation(on_pids[x], on_pids[y], size=len(pid_points))):
            return None
        others = [i for i in pid_points if group.points[i].pid not in (x, y)]
        fixing = group.perm_group.pointwise_stabilizer(others)
        return dict(fixing.orbit_transversal(index[pid_point(x)], pairs=True))[index[pid_point(y)]]

    identity = tuple(range(n_pids + n_chans + len(value_points(group, n_pids, n_chans))))
    swaps: dict[tuple[int, int], tuple[int, ...]] = {}

    def record(x: int, y: int, element: Permutation) -> None:
        swaps[(x, y)] = swaps[(y, x)] = c_images(element, point_of, identity)

    for orbit in group.perm_group.orbits():
        classes: list[tuple[int, dict[int, Permutation]]] = []  # a member, its swaps with the rest
        for y in sorted(group.points[i].pid for i in orbit if group.points[i].kind == "pid"):
            for anchor, with_anchor in classes:
                element = swap(anchor, y)
                if element is not None:
                    with_anchor[y] = element
                    record(anchor, y, element)
                    break
            else:
                classes.append((y, {}))
        for _anchor, with_anchor in classes:
            members = sorted(with_anchor)
            for a, x in enumerate(members):
                for y in members[a + 1:]:
                    # sympy multiplies left to right: (p * q)(i) = q(p(i)).  The conjugate of
                    # two pure swaps is the pure swap of X and Y.
                    record(x, y, ~with_anchor[y] * with_anchor[x] * with_anchor[y])
    return swaps


def _pure_swap(group: Group, index, degree: int, x: int, y: int, owned) -> Permutation | None:
    ours, theirs = owned.get(x, ()), owned.get(y, ())
    if len(ours) != len(theirs):
        return None
    cycles = [[index[pid_point(x)], index[pid_point(y)]]]
    for c, d in zip(ours, theirs):
        if chan_point(c) not in index or chan_point(d) not in index:
            return None
        cycles.append([index[chan_point(c)], index[chan_point(d)]])
    element = Permutation(cycles, size=degree)
    return element if group.perm_group.contains(element) else None
