"""What the `markers-exact` and `markers-approx` canonicalisers read of a state (the symmetry
markers of Bošnački et al. [BDLM07], section 5), for templates/markers.c.j2.

The group must be a direct product of trees of symmetric groups (codegen/trees.py): full
symmetric groups on blocks (a process and the channels that go with it), and wreath products
of them (a server with its channels and its clients).  A node of a tree plays the part of a
scalarset value p of [BDLM07].  Every place of the state that holds a pid or a channel id is
one of two kinds:

* a *fixed place*, which no group element moves: a global (``turn[k]``), a local of a process
  the group fixes (the e-mail system's mailer), a message of a channel the group fixes, an
  element of a global array indexed by pid at a pid the group fixes.  The point it names takes
  the place in its marker (Def. 4's vector s').  Places and their labels come from
  :func:`topspin_py.codegen.invariants.key_context`; the places in fixed processes and fixed
  channels, which it lists as relations, are added here with their owner mixed into the label,
  so that every fixed place has a label of its own.
* an *ss place*, inside a node: a local of a moved process, a message of a moved channel, an
  element of an array indexed by a moved pid.  Its value goes into the ``local`` of its node
  (Alg. 5.1): the rank of the marker class of the node it names among that node's siblings
  (mval), or the value itself when it names no moved point.

Elements of local data arrays indexed by pid in fixed processes are Def. 4's vector sn' of
the pid they are indexed by: they join its marker, with their owner in the label.

A node's marker is its own points' markers and the multiset of its children's; its local
likewise.  ``markers-exact`` sorts the children of every node by (marker, local, position),
from the top down, and applies the permutation that puts them in that order: it maps the tree
onto itself, so it is an element of the group, and the result is in the state's orbit (Prop.
1(2)): the reduction is complete; it is exact when equal markers mean interchangeable nodes
(Prop. 2: Peterson).  ``markers-approx`` first renames every value in an ss place that names a
node to the last of that node's (marker, local) class among its siblings (the mapping rho of
Alg. 5.1), which may take states of different orbits for one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..layout.statevector import ChannelSlot, ProcessSlot
from ..symmetry.kinds import chan_point
from .chain import c_point
from .invariants import Keys, Relation
from .places import Place
from .trees import Node, breadth_first
from .variables import Variables


@dataclass(frozen=True, kw_only=True)
class NodeTables(Variables):
    """The trees of symmetric groups as the tables of markers.c.j2 and pseudosort.c.j2
    (node_tables)."""

    nodes: list[dict]
    n_roots: int
    widest: int
    most_points: int
    point_node: list[int]
    point_member: list[int]


@dataclass(frozen=True, kw_only=True)
class MarkerTables(Variables):
    """markers.c.j2's variables beyond _apply.c.j2's and _keys.c.j2's (markers_context)."""

    marker_places: list[dict]
    marker_messages: list[dict]
    sn_entries: list[dict]
    local_terms: list[dict]
    local_messages: list[dict]
    trees: NodeTables


def markers_context(keys: Keys, roots: list[Node], n_pids: int, n_chans: int,
                    moved_processes: list[ProcessSlot], moved_channels: list[ChannelSlot]) -> MarkerTables:
    """The variables of markers.c.j2 beyond those of _apply.c.j2 and _keys.c.j2, from
    ``keys`` (:func:`key_context`'s result) and ``roots`` (:func:`symmetric_trees`'s)."""
    moved = {p.pid for p in moved_processes} | {c_point(chan_point(c.id), n_pids) for c in moved_channels}
    extra_places, sn_entries, local_terms = [], [], []
    for r in keys.relations:
        owner = r.owner
        owner_moved = owner in moved
        index_moved = r.index is not None and r.index in moved
        if not owner_moved and not index_moved:
            if _is_place(r):
                extra_places.append({"value": r.value, "offset": r.offset, "kind": r.kind,
                                     "guard": r.guard, "label": r.label, "mix": owner})
            continue
        if not owner_moved and r.data is not None:
            # A data element at a moved index of a fixed process's array indexed by pid: it is
            # the pid's own entry (Def. 4's sn').
            sn_entries.append({"point": r.index, "guard": r.guard,
                               "label": r.label, "mix": owner, "data": r.data})
            continue
        if not owner_moved and not _is_place(r):
            continue  # the index of a moved element, which is its block already
        # The node that holds the place: its owner's, or, in a fixed process's array indexed
        # by pid, its index's.
        local_terms.append({
            "point": owner if owner_moved else r.index, "value": r.value, "kind": r.kind,
            "offset": r.offset, "guard": r.guard, "place": _is_place(r),
            "label": r.label, "mix": r.data})
    moved_ids = {c.id for c in moved_channels}
    fixed_messages = [m for m in keys.message_relations if m["id"] not in moved_ids]
    local_messages = [m for m in keys.message_relations if m["id"] in moved_ids]
    return MarkerTables(
        marker_places=extra_places,
        marker_messages=fixed_messages,
        sn_entries=sn_entries,
        local_terms=local_terms,
        local_messages=local_messages,
        trees=node_tables(roots, n_pids + n_chans),
    )


def node_tables(roots: list[Node], n_points: int) -> NodeTables:
    """The trees as the tables of markers.c.j2: nodes numbered breadth first (the roots first,
    every parent before its children, the children of a node next to one another)."""
    nodes = breadth_first(roots)
    index = {id(node): n for n, node in enumerate(nodes)}
    first_child = [index[id(node.children[0])] if node.children else len(nodes) for node in nodes]
    tree_of = [0] * len(nodes)
    level_of = [0] * len(nodes)
    for n, node in enumerate(nodes):
        if n < len(roots):
            tree_of[n] = n
        for child in node.children:
            tree_of[index[id(child)]], level_of[index[id(child)]] = tree_of[n], level_of[n] + 1
    point_node = [-1] * n_points
    point_member = [-1] * n_points
    for n, node in enumerate(nodes):
        for m, point in enumerate(node.points):
            point_node[point], point_member[point] = n, m
    return NodeTables(
        nodes=[{"points": node.points, "children": len(node.children), "first_child": first,
                   "tree": tree, "level": level}
                  for node, first, tree, level in zip(nodes, first_child, tree_of, level_of)],
        n_roots=len(roots),
        widest=max(len(node.children) for node in nodes),
        most_points=max(1, max(len(node.points) for node in nodes)),
        point_node=point_node,
        point_member=point_member,
    )


def _is_place(r: Relation) -> bool:
    """Whether the relation's value is read from a place of the state (not an index)."""
    return isinstance(r.value, Place)

