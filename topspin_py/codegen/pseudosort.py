"""What the `pseudosort` canonicaliser compares and exchanges (the pseudo-sort of
Derepas and Gastin [DG01], section 4.1, Fig. 3), for templates/pseudosort.c.j2.

The group must be a direct product of trees of symmetric groups (codegen/trees.py): a
proctype's instances permuted in every way (with the channels that go with them), or servers
with their own clients.  Fig. 3 sorts the instances of each proctype by their *tuples* with a
classical sort whose exchange ``Exch_i(k, l)`` swaps two instances and renames every reference
to them; a node of a tree here is such an instance, or a server with its clients.

* The tuple of a process is its parameters and locals in the order the model declares them
  (pan.h orders them by type instead), then its program counter ``_p``: the paper's
  ``_state`` comes last.  In a model written with the ref/public extension its public
  variables and channels are in the tuple where they are declared (their elements of the
  desugared global arrays; a channel by its queue), as in [DG01]; in a plain model the
  process's elements of the global arrays indexed by pid come after its locals.  A ref
  compares as in the paper, where undefined is 0 and instance i is i + 1: ``_undef_ref``
  (255) first, then the instances in order.  A node's tuple is that of every process of its subtree, and
  the queues of its channels, in a fixed order.
* Beyond the paper: a local that holds a pid or a channel id and names a point of its own
  subtree (a client's own mailbox, in a model without the extension) compares by that point's
  place in the subtree, before every other value.  In the paper such a self-reference cannot
  occur (public channels are reached through ``_lid``, never stored); compared raw, it would
  keep every pair of instances in pid order, and pseudo-sort would reduce nothing.
* An exchange applies the transposition of two sibling subtrees, point by point, to the state:
  it moves the processes, their channels and their entries of pid-indexed arrays, and renames
  every value that names them (templates/_apply.c.j2).
* The sort is insertion sort by adjacent exchanges, one tree after the other in the order of
  their proctypes' first instances ([DG01] Fig. 3 sorts "each type of process" in turn, the
  clients before the servers in its section 4.2), each tree bottom up (the children of its
  deepest nodes first, so blocks are ordered by their sorted contents): its loops are bounded
  by the number of nodes alone, so it ends even though an exchange may reorder tuples it has
  already passed (renaming changes them: the result may be unsorted, and some orbits hold no
  sorted state at all, [DG01] section 4.1).

Every exchange is an element of the group, so the result is in the state's orbit: the
reduction is complete (at least one state per orbit), and it depends on the declaration order
([DG01], Fig. 6).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from ..layout.panh import CField
from ..layout.statevector import StateLayout, promela_name
from ..promela import ast
from ..promela.model import Model
from ..symmetry.detect import Group
from ..symmetry.kinds import CHAN, PID, Kind
from .trees import Node, breadth_first
from .variables import Variables


@dataclass(frozen=True, kw_only=True)
class PseudosortTables(Variables):
    """pseudosort.c.j2's variables beyond _apply.c.j2's and the node tables
    (pseudosort_context)."""

    compared_structs: list[dict]
    point_struct: dict[int, str]
    channel_struct: dict[int, str]
    subtree: list[list[int]]
    subtree_size: int
    sort_order: list[int]


def pseudosort_context(group: Group, layout: StateLayout, roots: list[Node], n_pids: int,
                       global_arrays: list[dict]) -> PseudosortTables:
    """The variables of pseudosort.c.j2 beyond _apply.c.j2's and markers.py's node tables."""
    model = group.model
    structs: dict[str, dict] = {}
    for process in layout.processes:
        if process.struct in structs:
            continue
        struct = layout.struct(process.struct)
        held = {f.path[0].name: (f.holds, f.offset) for f in layout.proctypes[process.proctype].fields
                if f.holds in (PID, CHAN) and len(f.path) == 1}
        fields = []
        for name, public in _declared(model, process.proctype):
            if public is not None:
                fields.append(public)
                continue
            cfield = next((f for f in struct.fields if promela_name(f.name, {name}) == name), None)
            if cfield is not None:  # hidden locals are not in the state vector
                fields.extend(_compared(cfield, *held.get(cfield.name, (None, 0))))
        structs[process.struct] = {"struct": process.struct, "fields": fields,
                                   "arrays": [] if model.refs is not None else global_arrays}
    subtree = [_subtree_points(node) for node in breadth_first(roots)]
    return PseudosortTables(
        compared_structs=list(structs.values()),
        point_struct={p.pid: p.struct for p in layout.processes},
        channel_struct={c.id: c.struct for c in layout.channels},
        subtree=subtree,
        subtree_size=max(len(points) for points in subtree),
        sort_order=sort_order(roots),
    )


def sort_order(roots: list[Node]) -> list[int]:
    """The nodes (numbered as breadth_first numbers them) whose children pseudo-sort orders, in
    the order it orders them: tree by tree as the roots come, deepest level first within a
    tree, breadth-first order within a level."""
    nodes = breadth_first(roots)
    tree = {id(root): t for t, root in enumerate(roots)}
    level = {id(root): 0 for root in roots}
    for node in nodes:
        for child in node.children:
            tree[id(child)], level[id(child)] = tree[id(node)], level[id(node)] + 1
    inner = [n for n, node in enumerate(nodes) if len(node.children) > 1]
    return sorted(inner, key=lambda n: (tree[id(nodes[n])], -level[id(nodes[n])], n))


def _declared(model: Model, proctype: str) -> list[tuple[str, dict | None]]:
    """A proctype's parameters and locals in the order the model declares them, each with None,
    or, for a public variable or channel of the ref/public extension, how its element of the
    desugared global array is compared ([DG01]'s tuple holds it where it is declared)."""
    if model.refs is None or model.extended is None:
        return [(v.name, None) for v in model.locals.get(proctype, [])]
    sort = model.refs.proctypes.get(proctype)
    publics = {a.declared: a for a in model.refs.public_arrays if a.owner == proctype}
    unit = next((u for u in model.extended.units if isinstance(u, ast.Proctype) and u.name == proctype), None)
    if unit is None:
        return [(v.name, None) for v in model.locals.get(proctype, [])]
    found: list[tuple[str, dict | None]] = []
    for node in [*unit.params, *unit.body.walk()]:
        if not isinstance(node, ast.Decl):
            continue
        for var in node.vars:
            array = publics.get(var.name) if node.visibility == "public" else None
            if array is None:
                found.append((var.name, None))
            else:
                found.append((var.name, {"name": var.name, "indices": (), "bytes": False, "holds": None,
                                         "public": array.name, "chan": array.is_chan,
                                         "offset": sort.first_pid if sort is not None else 0}))
    return found


def _compared(cfield: CField, holds: Kind | None, offset: int) -> list[dict]:
    """How one local is compared, element by element: as a value, as a pid or channel id
    (``holds``, ``offset``: relative to the subtrees compared), or as bytes (a typedef's
    struct)."""
    if cfield.struct_tag is not None or None in cfield.dims:
        return [{"name": cfield.name, "indices": (), "bytes": True, "holds": None, "offset": 0, "public": None,
                 "chan": False}]
    # (the template reads the kind's name: "pid" or "chan")
    held = holds.name if holds is not None else None
    return [{"name": cfield.name, "indices": indices, "bytes": False, "holds": held, "offset": offset,
             "public": None, "chan": False}
            for indices in product(*(range(length or 0) for length in cfield.dims))]


def _subtree_points(node: Node) -> list[int]:
    """A node's points and its descendants', the node's own first, then each child's subtree
    in order: sibling subtrees have the same shape, so their lists pair point by point."""
    points = list(node.points)
    for child in node.children:
        points.extend(_subtree_points(child))
    return points
