"""What the `markers-exact` and `markers-approx` canonicalisers read of a state (seed 001,
section 5), for templates/markers.c.j2.

The group must be a direct product of full symmetric groups, each permuting blocks (a process
and the channels that go with it: :func:`topspin_py.codegen.invariants.symmetric_blocks`).  A
block plays the part of a scalarset value p of the paper.  Every place of the state that holds
a pid or a channel id is one of two kinds:

* a *fixed place*, which no group element moves: a global (``turn[k]``), a local of a process
  the group fixes (the e-mail system's mailer), a message of a channel the group fixes, an
  element of a global array indexed by pid at a pid the group fixes.  The point it names takes
  the place in its marker (Def. 4's vector s').  Places and their labels come from
  :func:`topspin_py.codegen.invariants.key_context`; the places in fixed processes and fixed
  channels, which it lists as relations, are added here with their owner mixed into the label,
  so that every fixed place has a label of its own.
* an *ss place*, inside a block: a local of a moved process, a message of a moved channel, an
  element of an array indexed by a moved pid.  Its value goes into the ``local`` of its block
  (Alg. 5.1): the rank of the marker class of the block it names (mval), or the value itself
  when it names no moved point.

Elements of local data arrays indexed by pid in fixed processes are Def. 4's vector sn' of
the pid they are indexed by: they join its marker, with their owner in the label.

``markers-exact`` sorts the blocks of each factor by (marker, local, position) and applies
that block permutation: the result is in the state's orbit (Prop. 1(2)), so the reduction is
complete; it is exact when equal markers mean interchangeable blocks (Prop. 2: Peterson).
``markers-approx`` then renames every value in an ss place that names a block to the last
block of that block's (marker, local) class (the mapping rho of Alg. 5.1), which may take
states of different orbits for one.
"""

from __future__ import annotations

from ..layout.statevector import ChannelSlot, ProcessSlot
from .chain import c_point
from .invariants import Relation


def markers_context(keys: dict, blocks: list[list[tuple[int, ...]]], n_pids: int, n_chans: int,
                    moved_processes: list[ProcessSlot], moved_channels: list[ChannelSlot]) -> dict:
    """The variables of markers.c.j2 beyond those of _apply.c.j2 and _keys.c.j2, from
    ``keys`` (:func:`key_context`'s result) and ``blocks`` (:func:`symmetric_blocks`'s)."""
    moved = {p.pid for p in moved_processes} | {c_point(("chan", c.id), n_pids) for c in moved_channels}
    extra_places, sn_entries, local_terms = [], [], []
    for r in keys["relations"]:
        owner = int(r.owner)
        owner_moved = owner in moved
        index_moved = r.index is not None and r.index in moved
        if not owner_moved and not index_moved:
            if _is_place(r):
                extra_places.append({"value": r.value, "kind": r.kind, "guard": r.guard,
                                     "label": f"ts_mix({r.label}, {owner})"})
            continue
        if not owner_moved and r.data is not None:
            # A data element at a moved index of a fixed process's array indexed by pid: it is
            # the pid's own entry (Def. 4's sn').
            sn_entries.append({"point": r.index, "guard": r.guard,
                               "label": f"ts_mix({r.label}, {owner})", "data": r.data})
            continue
        if not owner_moved and not _is_place(r):
            continue  # the index of a moved element, which is its block already
        # The block that holds the place: its owner's, or, in a fixed process's array indexed
        # by pid, its index's.
        local_terms.append({
            "point": owner if owner_moved else r.index, "value": r.value, "kind": r.kind,
            "guard": r.guard, "place": _is_place(r),
            "label": f"ts_mix({r.label}, {r.data})" if r.data else str(r.label)})
    moved_ids = {c.id for c in moved_channels}
    fixed_messages = [m for m in keys["message_relations"] if m["id"] not in moved_ids]
    local_messages = [m for m in keys["message_relations"] if m["id"] in moved_ids]
    point_factor = [-1] * (n_pids + n_chans)
    point_block = list(point_factor)
    point_member = list(point_factor)
    for f, factor in enumerate(blocks):
        for b, block in enumerate(factor):
            for m, point in enumerate(block):
                point_factor[point], point_block[point], point_member[point] = f, b, m
    return {
        "marker_places": extra_places,
        "marker_messages": fixed_messages,
        "sn_entries": sn_entries,
        "local_terms": local_terms,
        "local_messages": local_messages,
        "point_factor": point_factor,
        "point_block": point_block,
        "point_member": point_member,
    }


def _is_place(r: Relation) -> bool:
    """Whether the relation's value is read from a place of the state (not an index)."""
    return not r.value.isdigit()

