"""What the `pseudosort` canonicaliser compares and exchanges (seed 003, section 4.1, Fig. 3),
for templates/pseudosort.c.j2.

The group must be a direct product of trees of symmetric groups (codegen/trees.py): a
proctype's instances permuted in every way (with the channels that go with them), or servers
with their own clients.  Fig. 3 sorts the instances of each proctype by their *tuples* with a
classical sort whose exchange ``Exch_i(k, l)`` swaps two instances and renames every reference
to them; a node of a tree here is such an instance, or a server with its clients.

* The tuple of a process is its locals and parameters in the order the model declares them
  (pan.h orders them by type instead), then its own elements of the global arrays indexed by
  pid (the desugared ``public`` variables of seed 003), then its program counter ``_p``: the
  paper's ``_state`` comes last.  A node's tuple is that of every process of its subtree, and
  the queues of its channels, in a fixed order.
* Beyond the paper: a local that holds a pid or a channel id and names a point of its own
  subtree (a client's own mailbox, in a model without the extension) compares by that point's
  place in the subtree, before every other value.  In the paper such a self-reference cannot
  occur (public channels are reached through ``_lid``, never stored); compared raw, it would
  keep every pair of instances in pid order, and pseudo-sort would reduce nothing.
* An exchange applies the transposition of two sibling subtrees, point by point, to the state:
  it moves the processes, their channels and their entries of pid-indexed arrays, and renames
  every value that names them (templates/_apply.c.j2).
* The sort is insertion sort by adjacent exchanges, bottom up (the children of the deepest
  nodes first): its loops are bounded by the number of nodes alone, so it ends even though an
  exchange may reorder tuples it has already passed (renaming changes them: the result may be
  unsorted, and some orbits hold no sorted state at all, seed 003 section 4.1).

Every exchange is an element of the group, so the result is in the state's orbit: the
reduction is complete (at least one state per orbit), and it depends on the declaration order
(seed 003, Fig. 6).
"""

from __future__ import annotations

from ..layout.panh import CField
from ..layout.statevector import CHAN, PID, StateLayout, promela_name
from ..symmetry.detect import Group
from .trees import Node, breadth_first


def pseudosort_context(group: Group, layout: StateLayout, roots: list[Node], n_pids: int,
                       global_arrays: list[dict]) -> dict:
    """The variables of pseudosort.c.j2 beyond _apply.c.j2's and markers.py's node tables."""
    model = group.model
    structs: dict[str, dict] = {}
    for process in layout.processes:
        if process.struct in structs:
            continue
        struct = layout.struct(process.struct)
        declared = [v.name for v in model.locals.get(process.proctype, [])]
        names = {f.path[0].name: f.holds for f in layout.proctypes[process.proctype].fields
                 if f.holds in (PID, CHAN) and len(f.path) == 1}
        fields = []
        for name in declared:
            cfield = next((f for f in struct.fields if promela_name(f.name, {name}) == name), None)
            if cfield is not None:  # hidden locals are not in the state vector
                fields.extend(_compared(cfield, names.get(cfield.name)))
        structs[process.struct] = {"struct": process.struct, "fields": fields}
    subtree = [_subtree_points(node) for node in breadth_first(roots)]
    return {
        "compared_structs": list(structs.values()),
        "compared_arrays": global_arrays,
        "point_struct": {p.pid: p.struct for p in layout.processes},
        "channel_struct": {c.id: c.struct for c in layout.channels},
        "subtree": subtree,
        "subtree_size": max(len(points) for points in subtree),
    }


def _compared(cfield: CField, holds: str | None) -> list[dict]:
    """How one local is compared, element by element: as a value, as a pid or channel id
    (``holds``: relative to the subtrees compared), or as bytes (a typedef's struct)."""
    if cfield.struct_tag is not None or None in cfield.dims:
        return [{"name": cfield.name, "bytes": True, "holds": None}]
    names = [cfield.name]
    for length in cfield.dims:
        names = [f"{name}[{i}]" for name in names for i in range(length or 0)]
    return [{"name": name, "bytes": False, "holds": holds} for name in names]


def _subtree_points(node: Node) -> list[int]:
    """A node's points and its descendants', the node's own first, then each child's subtree
    in order: sibling subtrees have the same shape, so their lists pair point by point."""
    points = list(node.points)
    for child in node.children:
        points.extend(_subtree_points(child))
    return points
