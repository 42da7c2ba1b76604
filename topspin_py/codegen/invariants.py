"""What the `refine` canonicaliser reads of a state to tell processes and channels apart.

Every point the group moves (a pid, a channel id) gets a key that no group element changes
when it carries the point along: key(g(s), g(p)) == key(s, p).  The search
(templates/_search.c.j2) then only follows the elements that put the least keys first, and the
fewer ties, the fewer images it builds.  The keys are made in three steps, each decided here
in Python and spelt in templates/_keys.c.j2:

1. Own data.  A process's slot and a channel's queue, read as machine words with every byte
   that a permutation renames or moves masked out: ``_pid``, fields holding pids or channel
   ids, arrays indexed by pid, a queue's type number (it stays with the place).  A process
   also takes in its own element of every global data array indexed by pid (``flag[_pid]``).
   The masks are built once, by setting those fields to all ones in a zeroed struct, so C
   decides the bit layout of bitfields, not us.
2. Fixed places.  A global that holds a pid or channel id (not in an array indexed by pid) is
   a place no element moves; the point it names takes in the place's number, as a multiset.
   That is the marker of Bošnački et al. [BDLM07] (Def. 4): its local data, its entries of
   arrays indexed by it, and where the state names it.
3. Refinement.  A value that names a point from inside another point (a local ``pid peer``, a
   message field, an element of an array indexed by pid) is a relation: the owner takes in
   the target's key and the target the owner's (Gibson-Robinson and Lowe [GRL19], Defs. 36-40:
   the equitable refinement of the colouring, one round of 1-dimensional Weisfeiler-Leman at a
   time).  A fixed number of rounds keeps the keys equivariant.

Points the group fixes get a constant key of their own.

Where no relation exists and no channel moves (Peterson, mutex), two processes with the same
marker are interchangeable: the transposition swaps equal slots and equal array elements and
no place names either of them ([BDLM07], Prop. 2).  Then `ts_same_marker` decides a tie by
comparing the masked bytes themselves, instead of building the swapped image.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..layout.statevector import ChannelSlot, Member, ProcessSlot, StateLayout, ValueField
from ..symmetry.detect import Group
from ..symmetry.kinds import CHAN, PID, GlobalSlot, domain_of
from .places import MASK, STATE, Place, Step, at, elements_at, member, places_of
from .trees import flat_blocks, symmetric_trees
from .variables import Variables

# Rounds of refinement; each costs one pass over the relations.  Two rounds separate a
# process by what the processes it names hold, and by who names those.
REFINE_ROUNDS = 2


@dataclass(frozen=True)
class Relation:
    """A value naming a point from inside another one: point ``owner`` holds ``value`` (the
    place it is read from, or a constant pid; a pid, or a channel id when ``kind`` is ``"C"``)
    at a place numbered ``label``; ``guard`` is the slot of the process that must run for the
    place to exist (None: it always does); ``data``, if any, is the place of a value that goes
    with it (the element of a local data array indexed by pid);
    ``index``, for an element of a local array indexed by pid, is the pid it belongs to (the
    markers strategies tell such an element, which moves with its index, from a place of its
    owner).  ``offset``: the place holds pids with that offset (value v names pid v + offset);
    _places.c.j2's ``point_value`` spells the pid it names."""

    owner: int
    value: Place | int
    kind: str
    label: int
    guard: int | None
    data: Place | None = None
    index: int | None = None
    offset: int = 0


@dataclass(frozen=True, kw_only=True)
class Keys(Variables):
    """_keys.c.j2's variables (key_context)."""

    key_structs: list[dict]
    key_processes: list[dict]
    key_channels: list[dict]
    key_arrays: list[dict]
    places: list[dict]
    relations: list[Relation]
    message_relations: list[dict]
    refine_rounds: int
    cheap_swaps: bool


def key_context(layout: StateLayout, moved_processes: list[ProcessSlot],
                moved_channels: list[ChannelSlot], static_names: set[str],
                constant_members: dict[str, set[str]] | None = None) -> Keys:
    """The variables of _keys.c.j2 for ``layout``; ``constant_members``: by struct, the
    parameters that are constants of their slots (masked: another slot holds its own)."""
    labels = _Labels()
    structs: dict[str, list[dict]] = {}  # struct -> its masked places in `m` (_keys.c.j2 sets them)
    processes = []
    for proc in moved_processes:
        if proc.struct not in structs:
            structs[proc.struct] = [_all(member(MASK, "_pid"))] + [
                mask for f in layout.proctypes[proc.proctype].fields for mask in _masks(f)] + [
                _all(member(MASK, name)) for name in sorted((constant_members or {}).get(proc.struct, ()))]
        processes.append({"pid": proc.pid, "slot": proc.slot, "struct": proc.struct})
    channels = []
    for chan in moved_channels:
        ctype = layout.channel_types[chan.struct]
        if chan.struct not in structs:
            structs[chan.struct] = [_all(member(MASK, "_t"))] + [
                {"how": "messages", "capacity": ctype.capacity, "field": f.path[-1].name}
                for f in ctype.value_fields]
        channels.append({"id": chan.id, "struct": chan.struct})

    holding = {f.path[0].name for f in layout.globals if f.holds in (PID, CHAN)}
    key_arrays = [{"path": f.path[0].name, "length": f.path[0].length, "offset": f.index_offset}
                  for f in layout.globals
                  if f.pid_indexed and f.in_state_vector and f.holds not in (PID, CHAN)
                  and f.path[0].name not in holding and len(f.path) == 1]
    indexed = {f.path[0].name: f.index_offset for f in layout.globals if f.pid_indexed}
    n_pids = max((p.pid for p in layout.processes), default=-1) + 1
    places = []
    relations: list[Relation] = []
    for f in layout.state_fields:
        if f.holds not in (PID, CHAN):
            continue
        if isinstance(f.source, GlobalSlot) and f.source.name in static_names:
            continue  # a static channel's own id: never renamed, so it marks nothing
        if f.path[0].name in indexed:
            # An array indexed by pid that holds pids or channel ids: element q names a point
            # from inside process q (q + k, indexed with an offset k).
            label = labels.new()
            k = indexed[f.path[0].name]
            for q in range(f.path[0].length or 0):
                if k and not 0 <= q + k < n_pids:
                    continue  # the element of no process: no group element moves it
                for place in elements_at(f, q, STATE):
                    relations.append(Relation(q + k, place, _kind(f), label, None, offset=f.offset))
            continue
        for place in places_of(f, STATE):
            places.append({"place": place, "kind": _kind(f), "label": labels.new(), "offset": f.offset})

    # A relation's label names the field, never the instance: processes (channels) that a
    # group element maps to one another have the same labels.
    for proc in layout.processes:
        running = proc.slot
        for f in layout.proctypes[proc.proctype].fields:
            if domain_of(f.holds) is not None:
                continue  # a value of a scalar domain names no process or channel (masked above)
            if not f.pid_indexed:
                relations.extend(Relation(proc.pid, place, _kind(f),
                                          labels.named(proc.struct, place.path), running,
                                          offset=f.offset)
                                 for place in places_of(f, STATE, proc))
                continue
            # Element j of a local array indexed by pid relates its process to pid j (j + k,
            # indexed with an offset k), with the element's value; holding a pid or channel id,
            # to that point as well.
            k = f.index_offset
            for j in range((f.path[0].length or 0) if len(f.path) == 1 else 0):
                if k and not 0 <= j + k < n_pids:
                    continue  # the element of no process: no group element moves it
                element = at(STATE, (Step(f.path[0].name, j),), proc)
                label = labels.named(proc.struct, f.path[0].name)
                if f.holds in (PID, CHAN):
                    relations.append(Relation(proc.pid, j + k, "P", label, running, index=j + k))
                    relations.append(Relation(proc.pid, element, _kind(f),
                                              labels.named(proc.struct, f.path[0].name, "value"), running,
                                              index=j + k, offset=f.offset))
                else:
                    relations.append(Relation(proc.pid, j + k, "P", label, running, element,
                                              index=j + k))
    message_relations = [
        {"id": chan.id, "struct": chan.struct, "capacity": layout.channel_types[chan.struct].capacity,
         "field": f.path[-1].name, "kind": _kind(f), "label": labels.named("message", f.path[-1].name),
         "offset": f.offset}
        for chan in layout.channels for f in layout.channel_types[chan.struct].value_fields
        if f.holds in (PID, CHAN)]
    return Keys(
        key_structs=[{"struct": s, "masks": masks} for s, masks in structs.items()],
        key_processes=processes,
        key_channels=channels,
        key_arrays=key_arrays,
        places=places,
        relations=relations,
        message_relations=message_relations,
        refine_rounds=REFINE_ROUNDS if relations or message_relations else 0,
        # [BDLM07], Prop. 2: ties are decided by comparing markers (see the module's docstring).
        # Not when a slot holds values of a scalar domain: masked, they would compare equal,
        # yet swapping the processes leaves them where they are.
        cheap_swaps=not relations and not message_relations and not moved_channels
        and not any(domain_of(f.holds) is not None for p in moved_processes
                    for f in layout.proctypes[p.proctype].fields),
    )


class _Labels:
    """Numbers for places and relations, distinct within one canonicaliser."""

    def __init__(self) -> None:
        self.count = 0
        self.by_name: dict[tuple[str, ...], int] = {}

    def new(self) -> int:
        self.count += 1
        return self.count

    def named(self, *name: str) -> int:
        """The same number for the same name."""
        if name not in self.by_name:
            self.by_name[name] = self.new()
        return self.by_name[name]


def _kind(f: ValueField) -> str:
    return "P" if f.holds == PID else "C"


def _masks(f: ValueField) -> list[dict]:
    """The places of ``f`` in the mask struct ``m`` that _keys.c.j2 sets to all ones: each
    element, or (``whole``) the whole array of a pid-indexed one, whose elements move between
    processes."""
    if f.array is not None and f.pid_indexed:
        whole = ValueField(f.struct, f.path[:-1] + (Member(f.path[-1].name),), f.holds, False,
                           False, f.ctype, f.source)
        return [{"how": "whole", "place": place} for place in places_of(whole, MASK)]
    return [_all(place) for place in places_of(f, MASK)]


def _all(place: Place) -> dict:
    return {"how": "all", "place": place}


def symmetric_blocks(group: Group, n_pids: int) -> list[list[tuple[int, ...]]] | None:
    """The group as a direct product of full symmetric groups, each permuting k blocks of C
    points (a process and the channels that go with it) block by block; None when it is not
    one.  Each factor is a list of its blocks, each block its lead pid first.

    Then sorting the blocks by key gives the canonical order directly, and a tie is harmless
    when the tied processes are interchangeable: every order of the blocks is an element of
    the group, and the transpositions of interchangeable blocks fix the state."""
    return flat_blocks(symmetric_trees(group, n_pids))
