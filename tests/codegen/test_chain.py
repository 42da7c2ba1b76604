"""The stabiliser chain's companions: the swap elements segmented prunes with.

A swap of processes X and Y must be an element of the group that exchanges X and Y and fixes
every other process; a pair left without one is searched without pruning, which on a state
where n clients tie costs up to n! elements (resource allocator 6-6 spent 9 s on 386 states
while the swaps of groups over 100,000 elements were not looked for).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import families
import pytest
from sympy.combinatorics import Permutation

from topspin_py.codegen.chain import point_numbering, process_swaps
from topspin_py.promela import load_model
from topspin_py.symmetry.detect import detect


def _swaps_of(source: str, tmp_path: Path):
    path = tmp_path / "model.pml"
    path.write_text(source)
    model = load_model(path)
    group = detect(model)
    n_pids, n_chans = len(model.processes), len(model.channels)
    owned = {p.pid: tuple(c.id for c in model.channels if c.owner_pid == p.pid) for p in model.processes}
    return group, n_pids, process_swaps(group, n_pids, n_chans, owned)


def _as_group_element(group, n_pids: int, images: tuple[int, ...]) -> Permutation:
    n_chans = sum(1 for kind, _ in group.points if kind == "chan")
    point_of = point_numbering(group, n_pids, n_chans)   # (values of scalar domains after the channels)
    index = {point_of(i): i for i in range(len(group.points))}
    return Permutation([index[images[point_of(i)]] for i in range(len(group.points))])


@pytest.mark.parametrize("label, source, expected_pairs", [
    # S6 x S6 on clients whose channels are global run arguments: every pair within a level.
    ("resource allocator 6-6", families.resource_allocator(6, 6), 2 * 15),
    ("Peterson 5", families.peterson(5), 10),
    # S3 wr S2: clients swap within their server's block only.
    ("three-tiered 3-3", families.three_tiered(3, 3), 2 * 3),
    ("hypercube 3d (translations only)", families.hypercube(3), 0),
])
def test_every_swap_is_a_group_element_that_swaps_the_pair_alone(label, source, expected_pairs, tmp_path):
    group, n_pids, swaps = _swaps_of(source, tmp_path)
    for (x, y), images in swaps.items():
        assert images[x] == y and images[y] == x, f"{label}: the swap of {x}, {y} does not swap them"
        moved = [w for w in range(n_pids) if w not in (x, y) and images[w] != w]
        assert not moved, f"{label}: the swap of {x}, {y} also moves {moved}"
        assert group.perm_group.contains(_as_group_element(group, n_pids, images)), \
            f"{label}: the swap of {x}, {y} is not in the group"
    assert len(swaps) == 2 * expected_pairs


def test_swaps_are_found_in_groups_of_any_order(tmp_path):
    # 7! 7! = 25,401,600 elements: every two clients of a level are swapped, their channels
    # with them (a conjugate of the swaps with the level's first client).
    group, n_pids, swaps = _swaps_of(families.resource_allocator(7, 7), tmp_path)
    assert group.order == 25_401_600
    levels = [range(1, 8), range(8, 15)]
    for level in levels:
        for x, y in itertools.combinations(level, 2):
            assert (x, y) in swaps


@pytest.mark.parametrize("label, source", [
    ("three-tiered 3-3 (S3 wr S2)", families.three_tiered(3, 3)),
    ("resource allocator 2-2-3", families.resource_allocator(2, 2, 3)),
    ("hypercube 3d by neighbour (geometric, 48)", families.hypercube_by_neighbour(3)),
    ("email 4", families.email(4)),
])
def test_a_pair_gets_a_swap_exactly_when_the_group_has_one(label, source, tmp_path):
    # Checked against every element of the group: swaps are found by classes of processes and
    # conjugation, and pairs across classes are never searched.
    group, n_pids, swaps = _swaps_of(source, tmp_path)
    pid_points = [i for i, (kind, _) in enumerate(group.points) if kind == "pid"]
    swappable = set()
    for element in group.perm_group.generate():
        moved = [group.points[i][1] for i in pid_points if element(i) != i]
        if len(moved) == 2:
            swappable.add(tuple(sorted(moved)))
    assert {pair for pair in swaps if pair[0] < pair[1]} == swappable, label
