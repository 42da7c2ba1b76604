"""`refine`'s shortcut: the group as a direct product of full symmetric groups on blocks.

symmetric_blocks must say None for any group that is not such a product (a wrong "yes" would let
the canonicaliser sort blocks into an order no group element gives: a state outside its orbit).
The expected factors are read off each model's structure, not off the function's output: the
Peterson users are S_n alone; an e-mail client moves with its own link channel; the resource
allocator's two client levels are two factors; the three-tiered system's wreath product and the
hypercube's translations are not products of symmetric groups.
"""

from __future__ import annotations

from math import factorial
from pathlib import Path

import families
import pytest

from topspin_py.codegen.chain import c_point
from topspin_py.codegen.invariants import symmetric_blocks
from topspin_py.codegen.trees import symmetric_trees
from topspin_py.promela import load_model
from topspin_py.symmetry.detect import detect
from topspin_py.symmetry.kinds import chan_point, pid_point


def _blocks_of(source: str, tmp_path: Path):
    path = tmp_path / "model.pml"
    path.write_text(source)
    model = load_model(path)
    group = detect(model)
    return model, group, symmetric_blocks(group, len(model.processes))


def _named(model, blocks):
    """Each factor's blocks as (proctype:pid, channel names...)."""
    n_pids = len(model.processes)
    names = {c_point(pid_point(p.pid), n_pids): f"{p.proctype}:{p.pid}" for p in model.processes}
    names.update({c_point(chan_point(c.id), n_pids): c.name for c in model.channels})
    return [[tuple(names[point] for point in block) for block in factor] for factor in blocks]


def test_peterson_users_are_one_symmetric_factor(tmp_path):
    model, group, blocks = _blocks_of(families.peterson(4), tmp_path)
    assert _named(model, blocks) == [[("user:1",), ("user:2",), ("user:3",), ("user:4",)]]


def test_an_email_client_moves_with_its_link(tmp_path):
    model, group, blocks = _blocks_of(families.email(3), tmp_path)
    assert _named(model, blocks) == [[("client:1", "link1"), ("client:2", "link2"), ("client:3", "link3")]]


def test_two_levels_of_clients_are_two_factors(tmp_path):
    model, group, blocks = _blocks_of(families.resource_allocator(3, 2), tmp_path)
    assert blocks is not None and sorted(len(factor) for factor in blocks) == [2, 3]
    assert group.order == factorial(3) * factorial(2)


@pytest.mark.parametrize("label, source", [
    ("three-tiered 2-2: S2 wr S2", families.three_tiered(2, 2)),
    ("hypercube 3d: translations", families.hypercube(3)),
])
def test_groups_that_are_no_product_of_symmetric_groups_are_refused(label, source, tmp_path):
    model, group, blocks = _blocks_of(source, tmp_path)
    assert group.order > 1, label
    assert blocks is None, label


def _shape(model, node):
    """A tree as nested lists: a node's own points by name, then its children."""
    n_pids = len(model.processes)
    names = {c_point(pid_point(p.pid), n_pids): f"{p.proctype}:{p.pid}" for p in model.processes}
    names.update({c_point(chan_point(c.id), n_pids): c.name for c in model.channels})
    return [tuple(names[p] for p in node.points), [_shape(model, child) for child in node.children]]


def test_servers_with_their_clients_are_a_tree(tmp_path):
    # Three-tiered 2-2 (pids: database 1, servers 2 and 3, clients 4 and 5 of server 2, 6 and 7
    # of server 3): each server takes along its two channels and its clients, each client its
    # own channel; the clients of a server may be ordered in any way.  S2 wr S2, of order
    # 2! * 2!^2 = 8: not a product of symmetric groups on blocks, so refine's shortcut is off.
    path = tmp_path / "model.pml"
    path.write_text(families.three_tiered(2, 2))
    model = load_model(path)
    group = detect(model)
    roots = symmetric_trees(group, len(model.processes))
    assert group.order == 8 and roots is not None and len(roots) == 1
    assert _shape(model, roots[0]) == [(), [
        [("server:2", "se_link1", "se1"), [[("client:4", "cl1"), []], [("client:5", "cl2"), []]]],
        [("server:3", "se_link2", "se2"), [[("client:6", "cl3"), []], [("client:7", "cl4"), []]]],
    ]]
    assert symmetric_blocks(group, len(model.processes)) is None


def test_the_hypercube_is_no_tree(tmp_path):
    # Its 8 translations act regularly on the 8 nodes: a tree group on 8 leaves of order 8
    # would contain a transposition of two sibling leaves, which moves only 2 nodes.
    path = tmp_path / "model.pml"
    path.write_text(families.hypercube(3))
    model = load_model(path)
    assert symmetric_trees(detect(model), len(model.processes)) is None
