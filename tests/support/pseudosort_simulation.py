"""What a pseudo-sort reduction stores on the client/server model of [DG01], simulated in Python
over plain SPIN's state graph: the numbers the product's pseudo-sort splice should be compared
with, and the two readings of "reduce after each new state".

Why
---
[DG01] Prop. 1 builds the reduced system ``T' = {(s, f(s')) | (s, s') in T}``: the search
*continues from* the representative ``f(s')``.  A splice into pan's ``h_store`` stores ``f(s')``
but continues from ``s'`` itself (pan never sees the permuted vector).  Both are sound (every
orbit is met), but they store different numbers of states: the first set is order-independent
(the states reachable under T'), the second depends on the order of the depth-first search.

How
---
:func:`setup` gets the graph between stored states from tests/support/transitions.py (plain pan,
``-DSAFETY -DNOREDUCE``) and reads each state as its parts (tests/support/clientserver_orbits.py).
:func:`abstract` turns a state into process tuples for tests/support/pseudosort_reference.py, in a
declaration order:

* client: ``serv_id``, then its public channel ``cliChan`` (``Qlen`` and the four message
  slots, field by field), then ``_state`` ("ref first"); or channel, ``serv_id``, ``_state``
  ("ref last");
* server: ``cli``, ``serChan``, ``inUse``, ``_state`` ("ref first"), or ``serChan``,
  ``inUse``, ``cli``, ``_state`` ("ref last": Fig. 10's own order).

``_state`` is the byte holding ``_t`` and ``_p`` (``_t`` is the same for all processes of a
type, so it orders as ``_p``).  A reference in an empty message slot reads as 255, so the
renaming leaves it alone (spin keeps empty slots zero; :func:`concrete` puts the zero back).
The pseudo-sorted tuple is read back as a state, which must be reachable (the closure the
orbit oracle checks).
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import clientserver_orbits as O
import families as F
import pseudosort_reference as R
import transitions as T

UNDEF = 255


@dataclass
class Graph:
    graph: T.TransitionGraph
    view: O.LidView
    states: list  # node -> read state (clientserver_orbits.LidView.read)
    node: dict  # read state -> node

    @property
    def root(self) -> int:
        return self.graph.roots[0]

    def successors(self, node: int) -> list[int]:
        return sorted(self.graph.successors(node))


def setup(n_clients: int, n_servers: int, workdir: Path) -> Graph:
    workdir.mkdir(parents=True, exist_ok=True)
    model = workdir / "cs.pml"
    model.write_text(F.client_server(n_clients, n_servers))
    graph = T.explore_transitions(model, workdir / "work")
    view = O.lid_view(graph.space, {"client": "serv_id", "server": "cli"})
    states = [view.read(vector) for vector in graph.vectors]
    return Graph(graph, view, states, {s: i for i, s in enumerate(states)})


def _queue(part: O._Part, values, empty: int) -> list[int]:
    """A queue's stored bytes with the reference of every empty slot set to ``empty``."""
    out = list(values)
    for index, slot in part.refs:
        if slot >= values[part.qlen]:
            out[index] = empty
    return out


def schema(view: O.LidView, client_ref_first: bool, server_ref_first: bool) -> R.Schema:
    width = len(view.client_queues[0].stored)
    client_q = [i for i, _ in view.client_queues[0].refs]
    server_q = [i for i, _ in view.server_queues[0].refs]
    if client_ref_first:
        client = {0: "server", **{1 + i: "server" for i in client_q}}
    else:
        client = {width: "server", **{i: "server" for i in client_q}}
    if server_ref_first:
        server = {0: "client", **{1 + i: "client" for i in server_q}}
    else:
        server = {width + 1: "client", **{i: "client" for i in server_q}}
    return R.Schema((R.ProcType("client", width + 2, client), R.ProcType("server", width + 3, server)))


def abstract(view: O.LidView, state, client_ref_first: bool, server_ref_first: bool) -> R.State:
    glob, clients, client_queues, servers, server_queues = state
    ctuples = []
    for i, ((pc, serv_id), queue) in enumerate(zip(clients, client_queues)):
        q = _queue(view.client_queues[i], queue, UNDEF)
        ctuples.append(tuple([serv_id, *q, pc] if client_ref_first else [*q, serv_id, pc]))
    stuples = []
    for j, ((pc, cli, in_use), queue) in enumerate(zip(servers, server_queues)):
        q = _queue(view.server_queues[j], queue, UNDEF)
        stuples.append(tuple([cli, *q, in_use, pc] if server_ref_first else [*q, in_use, cli, pc]))
    return R.State((tuple(ctuples), tuple(stuples)), glob)


def concrete(view: O.LidView, state: R.State, client_ref_first: bool, server_ref_first: bool):
    ctuples, stuples = state.procs
    clients, client_queues, servers, server_queues = [], [], [], []
    for i, t in enumerate(ctuples):
        serv_id, q, pc = (t[0], t[1:-1], t[-1]) if client_ref_first else (t[-2], t[:-2], t[-1])
        clients.append((pc, serv_id))
        client_queues.append(tuple(_queue(view.client_queues[i], q, 0)))
    for j, t in enumerate(stuples):
        if server_ref_first:
            cli, q, in_use, pc = t[0], t[1:-2], t[-2], t[-1]
        else:
            q, in_use, cli, pc = t[:-3], t[-3], t[-2], t[-1]
        servers.append((pc, cli, in_use))
        server_queues.append(tuple(_queue(view.server_queues[j], q, 0)))
    return (state.globals, tuple(clients), tuple(client_queues), tuple(servers), tuple(server_queues))


def representatives(g: Graph, client_ref_first: bool, server_ref_first: bool,
                    algorithm: str = "insertion") -> list[int]:
    """node -> the node of its pseudo-sorted image (KeyError if the image is not reachable)."""
    sch = schema(g.view, client_ref_first, server_ref_first)
    out = []
    for state in g.states:
        a = abstract(g.view, state, client_ref_first, server_ref_first)
        if concrete(g.view, a, client_ref_first, server_ref_first) != state:
            raise AssertionError("abstract/concrete do not round-trip")
        out.append(g.node[concrete(g.view, R.pseudo_sort(sch, a, R.PRODUCT, algorithm),
                                   client_ref_first, server_ref_first)])
    return out


def store_rep_continue_state(g: Graph, f: Sequence[int], seed: int | None = None) -> set[int]:
    """Depth-first search storing f(t) and expanding t (the splice); successors in node order,
    or shuffled with ``seed``.  Returns the nodes stored."""
    rnd = None if seed is None else random.Random(seed)
    seen, stack = {f[g.root]}, [g.root]
    while stack:
        x = stack.pop()
        succ = g.successors(x)
        if rnd is not None:
            rnd.shuffle(succ)
        for y in succ:
            if f[y] not in seen:
                seen.add(f[y])
                stack.append(y)
    return seen


def continue_from_rep(g: Graph, f: Sequence[int]) -> set[int]:
    """The states reachable in [DG01]'s T' from f(initial) (order-independent): the nodes
    stored."""
    seen, stack = {f[g.root]}, [f[g.root]]
    while stack:
        x = stack.pop()
        for y in g.successors(x):
            if f[y] not in seen:
                seen.add(f[y])
                stack.append(f[y])
    return seen


def main(argv: Sequence[str]) -> None:
    """``python tests/support/pseudosort_simulation.py WORKDIR 2,2 [1,2 ...]``: the table."""
    workdir = Path(argv[0])
    for size in argv[1:]:
        c, s = map(int, size.split(","))
        g = setup(c, s, workdir / f"{c}c{s}s")
        print(f"{c} clients, {s} servers: {len(g.states)} states, orbits {O.orbit_count(g.view)}")
        for cf in (True, False):
            for sf in (True, False):
                for algorithm in R.SORTS:
                    f = representatives(g, cf, sf, algorithm)
                    spread = [len(store_rep_continue_state(g, f, seed)) for seed in range(30)]
                    splice = len(store_rep_continue_state(g, f))
                    print(f"  client ref {'first' if cf else 'last '} server ref {'first' if sf else 'last '} "
                          f"{algorithm:9}: continue from f(s) {len(continue_from_rep(g, f))}; store f(s), "
                          f"continue from s {splice} (30 random orders {min(spread)}..{max(spread)}); "
                          f"f(reachable) {len(set(f))}")


if __name__ == "__main__":
    main(sys.argv[1:])
