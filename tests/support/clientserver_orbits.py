"""The lid symmetry of the client/server model of [DG01] (tests/support/families.py ``client_server``),
acting on the state vectors plain SPIN stored, independent of the product's detection and C.

Why
---
In the desugared model a reference is a lid (``_pid - K``), not a pid, and a public channel is
an element of a global channel array: the product's detection, which looks for pid symmetry,
need not see the symmetry the extended syntax declares (S_n on clients x S_m on servers).  This
module writes that action out by hand, so the exact number of orbits is known without trusting
any of the product's code: tests/support/statespace.py dumps the unreduced state vectors
(SVDUMP) and locates every field with pan's own layout (tests/support/oracle_layout.py); here,
for clients permuted by ``sigma`` and servers by ``tau`` (``sigma[i]`` = the new lid of client i):

* client i's slot (its ``_t``, ``_p`` and locals; ``_pid`` is not stored) moves to client
  ``sigma[i]``'s slot, its ``serv_id`` renamed by ``tau``; server j's slot moves to server
  ``tau[j]``'s, its ``cli`` renamed by ``sigma``;
* the queue of ``cliChan[i]`` (the public channel of client i) moves to ``cliChan[sigma[i]]``,
  the server reference in each message it holds renamed by ``tau``; ``serChan[j]`` to
  ``serChan[tau[j]]``, client references renamed by ``sigma``;
* a reference value 255 (``_undef_ref``) is never renamed; the globals (the channel ids held by
  ``cliChan[]``/``serChan[]``) stay, since queue contents move, not channel ids, and so does
  each queue's ``_t`` (spin gives every channel of an array its own queue type).

A state is read as a tuple (globals, client slots, client queues, server slots, server queues)
of the bytes pan stores; :func:`lid_view` checks that this reading is injective on the dumped
states (as many distinct tuples as pan stored), and :func:`orbit_count` that the action maps
reachable states to reachable states (else the model, or this action, is not symmetric).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import statespace as S

UNDEF = 255


@dataclass(frozen=True)
class _Part:
    """Where one process slot or queue lies in ``now``: the stored byte offsets (absolute) and,
    relative to the first of them, the positions holding references (with, for a queue, the
    message slot each belongs to)."""

    stored: tuple[int, ...]
    refs: tuple[tuple[int, int], ...]  # (index into the part's stored bytes, message slot or -1)
    qlen: int | None  # index of Qlen in the stored bytes, for a queue


@dataclass(frozen=True)
class LidView:
    space: S.StateSpace
    globals_: tuple[int, ...]
    clients: tuple[_Part, ...]
    client_queues: tuple[_Part, ...]
    servers: tuple[_Part, ...]
    server_queues: tuple[_Part, ...]

    def read(self, record: bytes):
        part = lambda p: tuple(record[i] for i in p.stored)  # noqa: E731
        return (tuple(record[i] for i in self.globals_),
                tuple(part(p) for p in self.clients), tuple(part(p) for p in self.client_queues),
                tuple(part(p) for p in self.servers), tuple(part(p) for p in self.server_queues))


def _part(space: S.StateSpace, struct: str, base: int, ref_steps: list[tuple[tuple, tuple, int]],
          qlen: bool) -> _Part:
    size = space.pan.sizes[struct]
    # A queue's _t (its type, one per channel of an array) stays with the place, not the contents.
    stays = {base + space.pan.bits(struct, (("_t", None),)).start} if qlen else set()
    stored = tuple(i for i in space.pan.stored if base <= i < base + size and i not in stays)
    refs = tuple((stored.index(base + space.pan.bits(struct, steps, indices).start), slot)
                 for steps, indices, slot in ref_steps)
    return _Part(stored, refs, stored.index(base + space.pan.bits(struct, (("Qlen", None),)).start) if qlen else None)


def lid_view(space: S.StateSpace, ref_fields: dict[str, str]) -> LidView:
    """The parts of ``space``'s states; ``ref_fields`` names each proctype's reference local
    (``{"client": "serv_id", "server": "cli"}``).  Channel message field 1 is the reference."""
    layout, pan = space.layout, space.pan
    procs: dict[str, list[_Part]] = {"client": [], "server": []}
    for p in sorted(layout.processes, key=lambda p: p.pid):
        ref = ((ref_fields[p.proctype], None),)
        procs[p.proctype].append(_part(space, p.struct, pan.proc_offset[p.slot], [(ref, (), -1)], False))
    queues: dict[str, list[_Part]] = {"cliChan": [], "serChan": []}
    for c in sorted(layout.channels, key=lambda c: c.id):
        name, index = c.name.rstrip("]").split("[")
        assert int(index) == len(queues[name]), "channels are created in lid order"
        slots = layout.capacity[c.struct]
        steps = (("contents", slots), ("fld1", None))
        queues[name].append(_part(space, c.struct, pan.queue_offset[c.id],
                                  [(steps, (k,), k) for k in range(slots)], True))
    taken = {i for parts in (*procs.values(), *queues.values()) for p in parts for i in p.stored}
    view = LidView(space, tuple(i for i in pan.stored if i not in taken), tuple(procs["client"]),
                   tuple(queues["cliChan"]), tuple(procs["server"]), tuple(queues["serChan"]))
    if len({view.read(r) for r in space.records}) != len(space.records):
        raise S.OracleError("reading states as parts is not injective")
    return view


def _renamed(values: tuple[int, ...], part: _Part, perm: tuple[int, ...]) -> tuple[int, ...]:
    out = list(values)
    for index, slot in part.refs:
        if slot >= 0 and slot >= values[part.qlen]:  # type: ignore[index]
            continue  # no message in this slot
        if out[index] != UNDEF:
            out[index] = perm[out[index]]
    return tuple(out)


def image(view: LidView, state, sigma: tuple[int, ...], tau: tuple[int, ...]):
    """The image of a read state: clients permuted by ``sigma``, servers by ``tau``."""
    glob, clients, cqueues, servers, squeues = state

    def moved(values, parts, perm, rename):
        out: list = [None] * len(values)
        for i, v in enumerate(values):
            out[perm[i]] = _renamed(v, parts[i], rename)
        return tuple(out)

    return (glob, moved(clients, view.clients, sigma, tau), moved(cqueues, view.client_queues, sigma, tau),
            moved(servers, view.servers, tau, sigma), moved(squeues, view.server_queues, tau, sigma))


def group(view: LidView) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    return [(s, t) for s in permutations(range(len(view.clients))) for t in permutations(range(len(view.servers)))]


def orbit_count(view: LidView) -> int:
    """The number of orbits of S_n x S_m on the reachable states; checks closure on the way."""
    states = {view.read(r) for r in view.space.records}
    elements = group(view)
    done: set = set()
    orbits = 0
    for s in states:
        if s in done:
            continue
        images = {image(view, s, sigma, tau) for sigma, tau in elements}
        if not images <= states:
            raise S.OracleError("an image of a reachable state is not reachable: the model is not symmetric")
        done |= images
        orbits += 1
    return orbits
