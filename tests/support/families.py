"""Generators of the Promela model families of the TopSPIN papers, and Table 2 of [DM08].

Each generator returns Promela source text.  The families are those of Donaldson and Miller,
"Automatic symmetry detection for Promela" [DM08] (docs/references.md), section 8.2: simple mutex, Peterson,
Peterson without atomicity, resource allocator, three-tiered architecture and hypercube, plus
the load balancer of its Fig. 6 and two families of TopSPIN's examples and test suite (the
load balancer of ``examples/loadbalancer.p`` and the e-mail system).

The models are written from the papers and from a study of TopSPIN's test models
(``afd/symmetrytools``, ``TestModels/SymmExtractorTests``); none is a copy.  Each keeps the
communication structure of the original (which process types exist, which static channels
each process sends and receives on, which literals are pids) and therefore its static channel
diagram and its symmetry.  Where ``tests/oracles/test_families.py`` can compare with a model of the
shared corpus, the unreduced state count is the same: the models have the same behaviour, not
only the same shape.

Pids are numbered as SPIN numbers them: ``init`` is 0 and the processes it runs are 1, 2, ...
in the order of their ``run`` statements.

``TABLE2`` lists every configuration of Table 2 with the group orders the paper printed and the
exact orders that the model structure gives; ``Config.source()`` builds the model.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field


def _join(lines, indent: str) -> str:
    """``lines`` one per line, each indented by ``indent``."""
    return "\n".join(indent + line for line in lines)


def _chans(names, capacity: int, fields: str) -> str:
    """Global channel declarations, one per name: ``chan name = [capacity] of {fields};``."""
    return "\n".join(f"chan {name} = [{capacity}] of {{{fields}}};" for name in names)


def _init(statements) -> str:
    """An ``init`` whose atomic block runs the processes (and sets up globals), as
    SymmExtractor requires."""
    return f"init {{\n  atomic {{\n{_join(statements, '    ')}\n  }}\n}}\n"


# ------------------------------------------------------------------------ mutual exclusion


def mutex(n: int) -> str:
    """Simple mutex with ``n`` users ([DM08] Fig. 3 for n = 5; [DM08] Table 2 "simple mutex").

    Each user cycles through N(on-critical), T(rying) and C(ritical), each step a ``d_step``,
    and enters C only when no user is in C.  No channels: Aut(SCD) is S_n, all valid.
    Unreduced: (n + 2) * 2^(n-1) + 1 states (113 for n = 5, as ``corpus/topspin/mutex5.p``).
    """
    if n < 1:
        raise ValueError("mutex needs at least one user")
    nobody_in_c = " && ".join(f"st[{j}] != C" for j in range(1, n + 1))
    return f"""mtype = {{N, T, C}};
mtype st[{n + 1}] = N;

proctype user()
{{
  do
  :: d_step {{ st[_pid] == N -> st[_pid] = T }}
  :: d_step {{ st[_pid] == T && ({nobody_in_c}) -> st[_pid] = C }}
  :: d_step {{ st[_pid] == C -> st[_pid] = N }}
  od
}}

""" + _init(["run user();"] * n)


def _peterson_rooms(n: int, rooms: int | None) -> int:
    if n < 2:
        raise ValueError("Peterson needs at least 2 processes")
    rooms = n - 1 if rooms is None else rooms
    if rooms < 1:
        raise ValueError("Peterson needs at least one waiting room")
    return rooms


def peterson(n: int, rooms: int | None = None) -> str:
    """Peterson's filter lock for ``n`` processes ([DM08] Table 2 "Peterson"; [BDLM07] Fig. 3).

    [DM08] bases it on the Peterson model of Bosnacki, Dams & Holenderski's SymmSpin [BDH02].

    A process climbs the waiting rooms 1..``rooms``: it announces its level in ``flag[_pid]``
    (a pid-indexed array), writes its pid in ``turn[k]`` (pid-valued) and checks, in one
    atomic step, that every other process is below it or that it is no longer the last to
    arrive.  ``rooms`` defaults to n - 1, the correct lock: 2,636 / 60,577 states for n = 3, 4
    as ``corpus/topspin/peterson3.p`` and ``peterson4.p``.  The models SymmExtractor ran for
    Table 2 (n = 3, 6, 9, 12) all have 2 rooms (``k < 3``); ``TABLE2`` builds them that way.
    The symmetry is S_n either way.
    """
    rooms = _peterson_rooms(n, rooms)
    others = " &&\n                 ".join(
        f"(_pid == {j} || flag[{j}] < k)" for j in range(1, n + 1))
    return f"""byte flag[{n + 1}] = 0;
pid turn[{rooms + 1}] = 0;
byte inCR = 0;

proctype user()
{{
  byte k;
  bool ok;

  do
  :: k = 1;
     do
     :: k <= {rooms} ->
        flag[_pid] = k;
        turn[k] = _pid;
again:  atomic {{
          ok = {others};
          if
          :: ok || turn[k] != _pid
          :: else -> goto again
          fi
        }};
        k++
     :: else -> break
     od;
     atomic {{ inCR++; assert(inCR == 1) }};
     inCR--;
     flag[_pid] = 0
  od
}}

""" + _init(["run user();"] * n)


def peterson_noatomic(n: int, rooms: int | None = None) -> str:
    """Peterson's filter lock without the atomic check ([DM08] Table 2 "Peterson without
    atomicity").

    As :func:`peterson`, but a process inspects the other processes' flags one at a time, in
    any order, marking each in its local pid-indexed array ``checked``; when all are checked
    (or one was found at or above its level) it clears the marks.  ``rooms`` defaults to
    n - 1; the Table 2 models have 2 rooms whatever n.  n = 3: 75,356 states, as
    ``corpus/topspin/petersonnoatomic/3.p``.
    """
    rooms = _peterson_rooms(n, rooms)
    pids = range(1, n + 1)
    all_checked = " && ".join(f"checked[{j}]" for j in pids)
    clear = [f":: checked[{j}] -> checked[{j}] = false" for j in pids] + [":: else -> break"]
    check = [f":: d_step {{ !checked[{j}] -> ok = ok && flag[{j}] < k; checked[{j}] = true }}"
             for j in pids]
    return f"""byte flag[{n + 1}] = 0;
pid turn[{rooms + 1}] = 0;
byte inCR = 0;

proctype user()
{{
  byte k;
  bool checked[{n + 1}] = false;
  bool ok = false;

  do
  :: k = 1;
     do
     :: k <= {rooms} ->
        flag[_pid] = k;
        turn[k] = _pid;
again:  atomic {{ ok = true; checked[_pid] = true }};
        do
        :: (!ok || {all_checked}) ->
           atomic {{
             do
{_join(clear, '             ')}
             od;
             break
           }}
{_join(check, '        ')}
        od;
        if
        :: atomic {{ ok || turn[k] != _pid -> ok = false }}
        :: atomic {{ else -> ok = false; goto again }}
        fi;
        k++
     :: else -> break
     od;
     atomic {{ inCR++; assert(inCR == 1) }};
     inCR--;
     flag[_pid] = 0
  od
}}

""" + _init(["run user();"] * n)


# ---------------------------------------------------------------------- resource allocator


def resource_allocator(*sizes: int) -> str:
    """Resource allocator with clients at priority levels ([DM08] Table 2, configuration
    a0-a1-...).

    ``resource_allocator(3, 4)`` is configuration 3-4: clients 1..3 at level 0, clients 4..7 at
    level 1.  See :func:`priority_resource_allocator` for the model.
    """
    if not sizes or min(sizes) < 1:
        raise ValueError("give the (positive) number of clients at each priority level")
    return priority_resource_allocator([level for level, a in enumerate(sizes) for _ in range(a)])


def alternating_resource_allocator(x: int) -> str:
    """Resource allocator "alternating x" of [DM08] Table 2: x clients, two priority levels.

    The levels alternate every two clients (1, 2 at level 0; 3, 4 at level 1; 5, 6 at level
    0, ...): that is [DM08]'s own example (alternating 10: clients 1, 2, 5, 6, 9, 10 at
    level 0) and SymmExtractor's ``resall-interleaved-*`` models, although [DM08]'s prose
    says "every three".
    """
    if x < 4 or x % 2:
        raise ValueError("alternating configurations have an even number (>= 4) of clients")
    return priority_resource_allocator([(i // 2) % 2 for i in range(x)])


def priority_resource_allocator(priorities) -> str:
    """Resource allocator whose client ``i`` (pid i, 1-based) has priority ``priorities[i-1]``.

    [DM08] section 8.2.1, after a partially symmetric example of Sistla & Godefroid (CAV
    2001, [DM08]'s reference [39]).  Client i talks to the allocator (pid n + 1) over its own channel
    ``link<i>``: request, confirmation, use the resource (``resource_user = _pid``), finished.
    The allocator waits for any request, then, from the highest level down, serves a
    requesting client of that level.  ``init`` sets the pid-indexed array ``priorities`` by
    literal assignments, so Aut(SCD) is S_n on the clients with their channels but only the
    permutations that keep each client's level are valid.  5-5 has 21,505 states, as
    ``corpus/topspin/resall-5-5.p``.
    """
    n, levels = len(priorities), max(priorities) + 1
    links = [f"link{i}" for i in range(1, n + 1)]
    anyone = " || ".join(f"{c}?[request]" for c in links)
    choose = [f":: priorities[{i}] == priority_level && {c}?[request] -> client_chan = {c}; break"
              for i, c in enumerate(links, 1)] + [":: else -> priority_level--"]
    setup = [f"priorities[{i}] = {p};" for i, p in enumerate(priorities, 1)]
    return f"""mtype = {{request, confirmation, finished}};
{_chans(links, 1, 'mtype')}
chan nullchan = [0] of {{mtype}};

pid resource_user = 0;
byte priorities[{n + 2}];
hidden byte priority_level;

proctype client(chan link)
{{
  do
  :: link!request;
     atomic {{ link?confirmation; resource_user = _pid; assert(priorities[_pid] < {levels}) }};
     atomic {{ resource_user = 0; link!finished }}
  od
}}

proctype allocator()
{{
  chan client_chan = nullchan;

  do
  :: atomic {{
       ({anyone});
       priority_level = {levels - 1};
       do
{_join(choose, '       ')}
       od;
       client_chan?request
     }};
     client_chan!confirmation;
     d_step {{ client_chan?finished; client_chan = nullchan }}
  od
}}

""" + _init([f"run client({c});" for c in links] + ["run allocator();"] + setup)


# -------------------------------------------------------------------------- client/server


def three_tiered(*clients: int, buffered: bool = False) -> str:
    """Three-tiered architecture: clients, servers, one database ([DM08] Table 2,
    a1-a2-...-ak).

    ``three_tiered(3, 3, 2)`` has k = 3 servers with 3, 3 and 2 clients.  A client sends a
    request (with its own input channel) to its server; the server queries the database (with
    its own input channel), waits for the result and answers the client on the channel it
    received.  Pids: database 1, servers 2..k+1, then the clients server by server.  The
    symmetry is the clients of each server, and servers with as many clients swapped together
    with them: Aut(SCD) = G = prod(a_i!) * prod(m_j!) (m_j: servers sharing a client count).

    ``buffered=False`` is the Table 2 family: every channel synchronous.  ``buffered=True`` is
    TopSPIN's reduction test model ``2s3cs.p``: client and server channels of capacity 1, the
    database's of capacity k; ``three_tiered(3, 3, buffered=True)`` has 103,105 states, as
    ``corpus/topspin/2s3cs.p``.
    """
    if not clients or min(clients) < 1:
        raise ValueError("give the (positive) number of clients of each server")
    k = len(clients)
    servers = range(1, k + 1)
    owner = [s for s in servers for _ in range(clients[s - 1])]
    small, db_capacity = (1, k) if buffered else (0, 0)
    runs = (["run database(db_link);"]
            + [f"run server(se{s}, se_link{s}, db_link);" for s in servers]
            + [f"run client(cl{i}, se_link{s});" for i, s in enumerate(owner, 1)])
    return f"""mtype = {{request, response, query, result}};

chan db_link = [{db_capacity}] of {{mtype, chan}};
{_chans((f"se_link{s}" for s in servers), small, 'mtype, chan')}
{_chans((f"se{s}" for s in servers), small, 'mtype')}
{_chans((f"cl{i}" for i in range(1, len(owner) + 1)), small, 'mtype')}
chan null = [0] of {{mtype}};

proctype client(chan in; chan link)
{{
  do
  :: link!request, in;
     in?response
  od
}}

proctype server(chan in; chan c_link; chan db)
{{
  chan current_client = null;
  do
  :: c_link?request, current_client;
     db!query, in;
     in?result;
     current_client!response;
     current_client = null
  od
}}

proctype database(chan link)
{{
  chan current_server = null;
  do
  :: link?query, current_server;
     current_server!result;
     current_server = null
  od
}}

""" + _init(runs)


def load_balancer(clients: int = 4, servers: int = 2) -> str:
    """TopSPIN's load balancer (``examples/loadbalancer.p``; ``corpus/topspin/loadbalancer.p``).

    ``clients`` clients send requests with their input channel to one load balancer, which
    forwards each to a server with a shortest queue; the server answers on the client's
    channel.  Pids: balancer 1, clients 2..c+1, servers after.  Symmetry S_c x S_s, each acting
    with the processes' channels (order 48 for 4 clients and 2 servers).  A server queue holds
    ceil(clients / servers) requests, which shortest-queue forwarding never exceeds (2 in the
    original).  4 clients, 2 servers: 200,850 states.
    """
    if clients < 1 or servers < 1:
        raise ValueError("a load balancer needs clients and servers")
    queues = [f"server{s}" for s in range(1, servers + 1)]
    inboxes = [f"client{i}" for i in range(1, clients + 1)]
    forward = [":: " + " && ".join([f"len({q}) <= len({r})" for r in queues if r != q] or ["true"])
               + f" -> {q}!msg, link" for q in queues]
    return f"""mtype = {{nullmsg, request, response}};

chan balancer_in = [{clients}] of {{mtype, chan}};
{_chans(queues, -(-clients // servers), 'mtype, chan')}
{_chans(inboxes, 1, 'mtype')}
chan null = [0] of {{mtype}};

proctype client(chan in)
{{
  do
  :: balancer_in!request, in;
     in?response
  od
}}

proctype balancer()
{{
  mtype msg = nullmsg;
  chan link = null;
  do
  :: balancer_in?msg, link;
     if
{_join(forward, '     ')}
     fi;
     msg = nullmsg;
     link = null
  od
}}

proctype server(chan in)
{{
  chan current_client = null;
  do
  :: in?request, current_client;
     current_client!response;
     current_client = null
  od
}}

""" + _init(["run balancer();"] + [f"run client({c});" for c in inboxes]
            + [f"run server({q});" for q in queues])


def load_balancer_fig6(servers: int = 3, clients=(2, 2, 2), blocked_client: int = 9,
                       queue: int = 3) -> str:
    """The load-balancing system of [DM08] Fig. 6 (its running example), in Promela.

    ``clients[b]`` clients use balancer b + 1.  A client sends its pid and input channel to its
    balancer; the balancer answers 0 (denied) to the blocked client, and forwards any other
    client's channel to a server with a shortest queue (``queue`` places), which sends 1 on
    it.  Every step is an atomic guarded command on a program counter ``pc``, as in
    Promela-Lite; Promela-Lite's ``null`` is the declared channel ``null``.  Pids: servers
    1..s, balancers s+1..s+b, then the clients balancer by balancer; ``blocked_client`` is a pid
    (0, init's pid, blocks nobody).  Fig. 6 itself (the defaults): |Aut(SCD)| = 288 (S3 x
    S2 wr S3), |H| = 24 and the largest valid subgroup has order 48 ([DM08] section 7.4).
    """
    if servers < 1 or not clients or min(clients) < 1:
        raise ValueError("a load balancer needs servers and clients")
    queues = [f"se{s}" for s in range(1, servers + 1)]
    balancers = [f"lb{b}" for b in range(1, len(clients) + 1)]
    owner = [lb for lb, c in zip(balancers, clients) for _ in range(c)]
    inboxes = [f"cl{i}" for i in range(1, len(owner) + 1)]
    forward = [":: atomic { " + " && ".join(
        ["pc == 3"] + [f"len({q}) <= len({r})" for r in queues if r != q] + [f"nfull({q})"])
        + f" -> {q}!client_link; pc = 4 }}" for q in queues]
    runs = ([f"run server({q}, null, 1);" for q in queues]
            + [f"run loadbalancer({lb}, null, 0, 1);" for lb in balancers]
            + [f"run client({c}, {lb}, -1, 1);" for c, lb in zip(inboxes, owner)])
    return f"""{_chans(queues, queue, 'chan')}
{_chans(balancers, 1, 'pid, chan')}
{_chans(inboxes, 1, 'int')}
chan null = [0] of {{int}};

pid blocked_client = {blocked_client};

proctype loadbalancer(chan in; chan client_link; pid client_id; int pc)
{{
  do
  :: atomic {{ pc == 1 && nempty(in) -> in?client_id, client_link; pc = 2 }}
  :: atomic {{ pc == 2 && client_id != blocked_client -> pc = 3 }}
  :: atomic {{ pc == 2 && client_id == blocked_client && nfull(client_link) ->
               client_link!0; pc = 4 }}
{_join(forward, '  ')}
  :: atomic {{ pc == 4 -> client_id = 0; client_link = null; pc = 1 }}
  od
}}

proctype server(chan in; chan client_link; int pc)
{{
  do
  :: atomic {{ pc == 1 && nempty(in) -> in?client_link; pc = 2 }}
  :: atomic {{ pc == 2 && nfull(client_link) -> client_link!1; pc = 3 }}
  :: atomic {{ pc == 3 -> client_link = null; pc = 1 }}
  od
}}

proctype client(chan in; chan lb; int response; int pc)
{{
  do
  :: atomic {{ pc == 1 && nfull(lb) -> lb!_pid, in; pc = 2 }}
  :: atomic {{ pc == 2 && nempty(in) -> in?response; pc = 3 }}
  :: atomic {{ pc == 3 -> response = -1; pc = 1 }}
  od
}}

""" + _init(runs)


def email(n: int, network: int = 2) -> str:
    """TopSPIN's e-mail system: ``n`` clients and a mailer (``corpus/topspin/email<n>.p``).

    A client either delivers a message waiting in its inbox (asserting it is the receiver) or
    sends a message to any client (itself included) through the mailer's ``network`` channel
    (``network`` places); the mailer looks the receiver's pid up (literal pid comparisons) and
    forwards the message to its inbox.  Clients start once all have initialised.  Pids: clients
    1..n, mailer n + 1.  Symmetry: S_n on the clients with their inboxes.  23,256 / 852,641
    states for n = 3 / 4.
    """
    if n < 1:
        raise ValueError("email needs at least one client")
    inboxes = [f"link{i}" for i in range(1, n + 1)]
    lookup = [f":: id == {i} -> link = {c}" for i, c in enumerate(inboxes, 1)]
    receivers = [f":: receiver = {i}" for i in range(1, n + 1)]
    return f"""byte initialised = 0;

{_chans(inboxes, 1, 'pid, pid')}
chan null = [0] of {{pid, pid}};
chan network = [{network}] of {{pid, pid}};

inline lookup(id, link)
{{
  if
{_join(lookup, '  ')}
  fi
}}

proctype client(chan in)
{{
  pid sender;
  pid receiver;
  chan out;

  d_step {{ out = network; initialised++ }};
wait:
  atomic {{
    initialised == {n} && (nempty(in) || nfull(out));
    if
    :: nempty(in) -> goto deliver
    :: empty(in) && nfull(out) -> goto send
    fi;
deliver:
    in?sender, receiver;
    assert(receiver == _pid);
    sender = 0;
    receiver = 0;
    goto wait;
send:
    if
{_join(receivers, '    ')}
    fi;
    d_step {{ sender = _pid; out!sender, receiver; sender = 0; receiver = 0 }};
    goto wait
  }}
}}

proctype mailer(chan in)
{{
  pid sender;
  pid receiver;
  chan deliverbox = null;

loop:
  atomic {{ in?sender, receiver; lookup(receiver, deliverbox) }};
  atomic {{
    deliverbox!sender, receiver;
    deliverbox = null;
    sender = 0;
    receiver = 0;
    goto loop
  }}
}}

""" + _init([f"run client({c});" for c in inboxes] + ["run mailer(network);"])


# ------------------------------------------------------------------------------- hypercube


def hypercube(m: int) -> str:
    """One packet routed through an ``m``-dimensional hypercube of nodes ([DM08] Table 2 "md").

    Node v (pid v + 1, 0 <= v < 2^m) reads its input channel ``link<v+1>`` and has one output
    per dimension d: the input of node v xor 2^d (``run`` arguments in dimension order).
    ``init`` injects the packet at any node and names it the destination; the node holding
    the packet at its destination picks a new one, and every node forwards the packet along a
    dimension in which it differs from the destination (a table written with pid literals:
    the simple routing algorithm [DM08] takes from Tanenbaum & van Steen).  TopSPIN's
    models put that table in an inline, which SPIN 6.5.2 refuses for 5d ("inline text too
    long": over 64 KB), so here it is written where the inline would expand.
    The geometric symmetry has order 2^m m! (= |Aut(SCD)|); SymmExtractor's strict validity
    kept only the 2^m translations, because permuting dimensions reorders ``run`` arguments.
    3d: 15,409 states, as ``corpus/topspin/3d.p``.
    """
    if m < 1:
        raise ValueError("a hypercube has at least one dimension")
    nodes = range(2 ** m)
    dims = range(m)
    destinations = [f":: _pid != {w + 1} -> dest = {w + 1}" for w in nodes]
    routes = [f":: _pid == {v + 1} && dest == {w + 1} -> if "
              + " ".join(f":: chosen_dimension = {d}" for d in dims if (v ^ w) >> d & 1) + " fi"
              for v in nodes for w in nodes if v != w]
    sends = [f":: chosen_dimension == {d} -> out{d}!packet" for d in dims]
    params = "; ".join(["chan in"] + [f"chan out{d}" for d in dims])
    runs = [f"run node({', '.join(f'link{u + 1}' for u in [v] + [v ^ 1 << d for d in dims])});"
            for v in nodes]
    inject = [f":: link{v + 1}!packet; dest = {v + 1}" for v in nodes]
    return f"""mtype = {{packet}};

{_chans((f"link{v + 1}" for v in nodes), 1, 'mtype')}
chan none = [0] of {{mtype}};  /* what `next` holds between two sends */

pid dest = 0;
pid current = 0;

inline choose_destination()
{{
  if
{_join(destinations, '  ')}
  fi
}}

proctype node({params})
{{
  byte chosen_dimension = {m + 1};

loop:
  atomic {{
    in?packet;
    current = _pid;
    if
    :: dest == _pid -> choose_destination()
    :: else -> skip
    fi
  }};
  atomic {{
    if
{_join(routes, '    ')}
    fi;
    assert(chosen_dimension < {m});
    if
{_join(sends, '    ')}
    fi;
    chosen_dimension = {m + 1};
    current = 0
  }};
  goto loop
}}

""" + _init(runs + ["if"] + inject + ["fi"])


def hypercube_by_neighbour(m: int) -> str:
    """The hypercube of :func:`hypercube` with the routing table written in neighbours instead
    of dimensions: the node holding the packet sends it straight to a neighbour one bit closer
    to the destination (``link<u+1>!packet``, a global channel), and has no parameters and no
    ``chosen_dimension``.  Moving a packet along the cube is then all the program says, and
    every symmetry of the cube (2^m translations times m! permutations of the dimensions,
    order 2^m m!) is a permutation of node pids and link channels that maps the program to
    itself: each routing option ``(v, w, u)`` goes to ``(g v, g w, g u)``, and a geometric g
    keeps u a neighbour of v one bit closer to w.  An option only chooses the link
    (``next = link<u+1>``, which cannot block inside the atomic sequence) and the send comes
    after the ``if``: a send inside the option could block there, leaving the node inside one
    option in a stored state, and the canonicaliser does not move program counters from one
    option to another, so such options could not be exchanged.  In :func:`hypercube` a dimension swap must
    also permute ``chosen_dimension``'s values and the parameters ``out0..``, which a group of
    pids and channels cannot do: there only the translations are symmetries.
    """
    if m < 1:
        raise ValueError("a hypercube has at least one dimension")
    nodes = range(2 ** m)
    destinations = [f":: _pid != {w + 1} -> dest = {w + 1}" for w in nodes]
    routes = [f":: _pid == {v + 1} && dest == {w + 1} -> next = link{(v ^ 1 << d) + 1}"
              for v in nodes for w in nodes if v != w for d in range(m) if (v ^ w) >> d & 1]
    runs = [f"run node(link{v + 1}, none);" for v in nodes]
    inject = [f":: link{v + 1}!packet; dest = {v + 1}" for v in nodes]
    return f"""mtype = {{packet}};

{_chans((f"link{v + 1}" for v in nodes), 1, 'mtype')}
chan none = [0] of {{mtype}};  /* what `next` holds between two sends */

pid dest = 0;
pid current = 0;

proctype node(chan in; chan next)  /* next: none, except while a packet is sent */
{{
loop:
  atomic {{
    in?packet;
    current = _pid;
    if
    :: dest == _pid ->
       if
{_join(destinations, '       ')}
       fi
    :: else -> skip
    fi
  }};
  atomic {{
    if
{_join(routes, '    ')}
    fi;
    next!packet;
    next = none;
    current = 0
  }};
  goto loop
}}

""" + _init(runs + ["if"] + inject + ["fi"])


def hypercube_by_dimension(m: int, scalarset: bool = False) -> str:
    """The hypercube of :func:`hypercube` where the program lets the dimensions be permuted:
    the routing table still names a dimension, a number 1 .. m held in ``chosen``, and node v
    still gets the inputs of its neighbours as the parameters ``out1`` .. ``outm`` (dimension
    order), but an option only chooses (``chosen = d``, then ``next = outd``), and the send
    comes after the ``if``s, so no node is stored inside an option.  Dimension 0 is not used:
    ``chosen`` is dead once ``next`` is set and SPIN resets it to 0 there, a value every
    permutation must then fix.  A symmetry of the cube with dimension permutation s maps
    ``chosen == d -> next = outd`` to ``chosen == s(d) -> next = out s(d)`` (the values of
    ``chosen`` renamed, the parameters ``out`` renamed with them: validity.param_permutation),
    and each routing option to another: the geometric group, 2^m m!.  With ``scalarset`` the
    dimensions are the values of ``mtype:dim``, declared a scalarset in a comment (Murphi's
    habit: pragmas.py), and ``chosen`` is of that type.
    """
    if m < 1:
        raise ValueError("a hypercube has at least one dimension")
    nodes = range(2 ** m)
    dims = range(1, m + 1)

    def dim(d: int) -> str:
        return f"d{d}" if scalarset else str(d)
    destinations = [f":: _pid != {w + 1} -> dest = {w + 1}" for w in nodes]
    routes = [f":: _pid == {v + 1} && dest == {w + 1} -> chosen = {dim(d + 1)}"
              for v in nodes for w in nodes if v != w for d in range(m) if (v ^ w) >> d & 1]
    outputs = [f":: chosen == {dim(d)} -> next = out{d}" for d in dims]
    declaration = (f"/* topspin: scalarset dim */\nmtype:dim = {{ {', '.join(dim(d) for d in dims)} }};\n"
                   if scalarset else "")
    params = "; ".join(["chan in"] + [f"chan out{d}" for d in dims])
    runs = [f"run node({', '.join(f'link{u + 1}' for u in [v] + [v ^ 1 << d for d in range(m)])});"
            for v in nodes]
    inject = [f":: link{v + 1}!packet; dest = {v + 1}" for v in nodes]
    return f"""mtype = {{packet}};
{declaration}
{_chans((f"link{v + 1}" for v in nodes), 1, 'mtype')}

pid dest = 0;
pid current = 0;

proctype node({params})
{{
  {"mtype:dim" if scalarset else "byte"} chosen;
  chan next;
loop:
  atomic {{
    in?packet;
    current = _pid;
    if
    :: dest == _pid ->
       if
{_join(destinations, '       ')}
       fi
    :: else -> skip
    fi
  }};
  atomic {{
    if
{_join(routes, '    ')}
    fi;
    if
{_join(outputs, '    ')}
    fi;
    next!packet;
    current = 0
  }};
  goto loop
}}

""" + _init(runs + ["if"] + inject + ["fi"])


GENERATORS: dict[str, Callable[..., str]] = {f.__name__: f for f in (
    mutex, peterson, peterson_noatomic, resource_allocator, alternating_resource_allocator,
    priority_resource_allocator, three_tiered, hypercube, hypercube_by_neighbour, hypercube_by_dimension,
    load_balancer, load_balancer_fig6,
    email)}


# ----------------------------------------------------------------------- Table 2 of [DM08]


@dataclass(frozen=True)
class Config:
    """A configuration of Table 2 of [DM08] (or another published example) and its groups.

    ``aut``, ``h`` and ``g`` are exact: |Aut(SCD(P))|; |H|, the group generated by the valid
    ones among saucy's generators; |G|, the largest valid subgroup.  ``aut`` and ``g`` follow
    from the model's structure, ``h`` from the table (it depends on saucy's generators).
    ``printed`` is the table's text for the three, with 'x10^' written 'e' and '=' meaning
    "equal to |Aut(SCD)|"; ``misprints`` names the columns whose print contradicts the
    structure, explained in ``note``.  ``full`` is the order of a larger symmetry group of the
    model than G, where one is known.  ``times`` are SymmExtractor's (saucy, find largest,
    optimised find largest) in seconds: ``math.inf`` for '>12 h', None for '-' and '='.
    """

    label: str
    family: str
    args: tuple
    aut: int
    h: int
    g: int
    printed: tuple[str, str, str]
    times: tuple[float, float, float | None] | None = None
    kwargs: dict = field(default_factory=dict, compare=False, hash=False)
    full: int | None = None
    misprints: tuple[str, ...] = ()
    note: str = ""

    def source(self) -> str:
        return GENERATORS[self.family](*self.args, **self.kwargs)


def printed_matches(exact: int, printed: str) -> bool:
    """Whether Table 2's ``printed`` (``"5040"``, ``"3.6e6"``) shows ``exact``: integers
    exactly, ``m.me<k>`` by ``exact``'s leading digits rounded or truncated (the table does
    both: it prints 12! as 4.8x10^8 and as 4.7x10^8)."""
    m = re.fullmatch(r"(\d)\.(\d+)e(\d+)", printed)
    if not m:
        return int(printed) == exact
    digits, exponent = len(m.group(2)) + 1, int(m.group(3))
    if len(str(exact)) != exponent + 1:
        return False
    lead = exact / 10 ** (exponent + 1 - digits)
    return int(m.group(1) + m.group(2)) in (math.floor(lead), round(lead))


def _fact(n: int) -> int:
    return math.factorial(n)


def _blocks(sizes) -> int:
    """Permutations within blocks of the given sizes (priority levels, clients of a server)."""
    return math.prod(_fact(a) for a in sizes)


_MUTEX40 = ("Table 2 prints 8.1x10^37; the model has no channels, so Aut(SCD) = G = S_40 of "
            "order 40! = 8.16x10^47: an exponent misprint (8.1 are 40!'s digits, truncated).")
_ALT14 = ("Table 2 prints |G| = 2.9x10^6, but alternating 14 has 8 clients at level 0 and 6 "
          "at level 1, so G = S_8 x S_6 of order 8!6! = 29,030,400 = 2.9x10^7: an exponent "
          "misprint (the other alternating rows are 6!4!, 6!6! and 8!8!).")
_CUBE = ("|G| is what SymmExtractor's strict validity kept, the 2^m translations; the "
         "geometric group (full = |Aut(SCD)| = 2^m m!) is a symmetry of the model too, lost "
         "only because permuting dimensions reorders run arguments.")


def _symmetric(label, family, n, printed, times, *, misprints=(), note="", **kwargs) -> Config:
    """A row whose Aut(SCD) = H = G = S_n; ``kwargs`` go to the generator."""
    order = _fact(n)
    return Config(f"{label} {n}", family, (n,), order, order, order, (printed, "=", "="),
                  (*times, None), kwargs=kwargs, misprints=misprints, note=note)


def _resall(sizes, h, printed, times) -> Config:
    return Config("resource allocator " + "-".join(map(str, sizes)), "resource_allocator",
                  tuple(sizes), _fact(sum(sizes)), h, _blocks(sizes), printed, times)


def _alternating(x, h, printed, times, **extra) -> Config:
    level0 = sum(1 for i in range(x) if (i // 2) % 2 == 0)
    return Config(f"resource allocator alternating {x}", "alternating_resource_allocator",
                  (x,), _fact(x), h, _blocks((level0, x - level0)), printed, times, **extra)


def _tiers(clients, printed, times) -> Config:
    order = _blocks(clients) * _blocks(Counter(clients).values())
    return Config("three-tiered " + "-".join(map(str, clients)), "three_tiered",
                  tuple(clients), order, order, order, (printed, "=", "="), (*times, None))


def _cube(m, printed, times) -> Config:
    geometric = 2 ** m * _fact(m)
    return Config(f"hypercube {m}d", "hypercube", (m,), geometric, 2, 2 ** m, printed, times,
                  full=geometric, note=_CUBE)


# The Peterson models SymmExtractor ran have 2 waiting rooms whatever n (see peterson()).
TABLE2: list[Config] = [
    _symmetric("simple mutex", "mutex", 5, "120", (0.03, 0.07)),
    _symmetric("simple mutex", "mutex", 10, "3.6e6", (0.03, 0.20)),
    _symmetric("simple mutex", "mutex", 20, "2.4e18", (0.03, 0.59)),
    _symmetric("simple mutex", "mutex", 40, "8.1e37", (0.03, 1.64), misprints=("aut",),
               note=_MUTEX40),
    _symmetric("Peterson", "peterson", 3, "6", (0.03, 0.06), rooms=2),
    _symmetric("Peterson", "peterson", 6, "720", (0.02, 0.16), rooms=2),
    _symmetric("Peterson", "peterson", 9, "362880", (0.04, 0.30), rooms=2),
    _symmetric("Peterson", "peterson", 12, "4.8e8", (0.03, 0.56), rooms=2),
    _symmetric("Peterson without atomicity", "peterson_noatomic", 3, "6", (0.03, 0.08),
               rooms=2),
    _symmetric("Peterson without atomicity", "peterson_noatomic", 6, "720", (0.08, 0.25),
               rooms=2),
    _symmetric("Peterson without atomicity", "peterson_noatomic", 9, "362880", (0.03, 0.52),
               rooms=2),
    _symmetric("Peterson without atomicity", "peterson_noatomic", 12, "4.8e8", (0.03, 0.89),
               rooms=2),
    _resall((3, 4), 144, ("5040", "144", "144"), (0.03, 1.52, None)),
    _resall((2, 2, 3), 24, ("5040", "24", "24"), (0.03, 5.24, None)),
    _resall((5, 5), 14400, ("3.6e6", "14400", "14400"), (0.05, 8.34, None)),
    _resall((3, 3, 4), 864, ("3.6e6", "864", "864"), (0.03, 114.49, None)),
    _alternating(10, 32, ("3.6e6", "32", "17280"), (0.03, 18.12, 8.5)),
    _alternating(12, 64, ("4.7e8", "64", "518400"), (0.04, 314.87, 33.59)),
    _alternating(14, 128, ("8.7e10", "128", "2.9e6"), (0.06, math.inf, 116.39),
                 misprints=("g",), note=_ALT14),
    _alternating(16, 256, ("2.1e13", "256", "1.6e9"), (0.05, math.inf, 543.87)),
    _tiers((3, 3, 2), "144", (0.04, 0.09)),
    _tiers((3, 3, 3), "1296", (0.05, 0.14)),
    _tiers((4, 4, 3), "6912", (0.05, 0.17)),
    _tiers((4, 4, 4), "82944", (0.05, 0.26)),
    _tiers((5, 5, 5, 5), "5.0e9", (0.07, 0.55)),
    _cube(2, ("8", "2", "4"), (0.04, 0.59, 0.84)),
    _cube(3, ("48", "2", "8"), (0.03, 2.50, 1.98)),
    _cube(4, ("384", "2", "16"), (0.04, 99.11, 26.73)),
    _cube(5, ("3840", "2", "32"), (0.08, 7171.57, 957.79)),
]

# The running example of [DM08] (Fig. 6, section 7.4): servers 1-3, balancers 4-6, clients 7-12,
# client 9 blocked.  Aut(SCD) = S_3 x (S_2 wr S_3); the valid generators give H of order 24
# and the coset search adds (4 6)(lb1 lb3)(7 11)(cl1 cl5)(8 12)(cl2 cl6).
FIG6 = Config("load balancer (Fig. 6)", "load_balancer_fig6", (), 288, 24, 48,
              ("288", "24", "48"))


# ------------------------------------------------------------ client/server of [DG01]


UNDEF_REF = 255  # _undef_ref in plain Promela: never a lid (0..n-1), never renamed


def _cs_check(n_clients: int, n_servers: int) -> None:
    if n_clients < 1 or n_servers < 1:
        raise ValueError("the client/server model needs at least one client and one server")
    if max(n_clients, n_servers) >= UNDEF_REF:
        raise ValueError(f"lids must stay below the undefined reference {UNDEF_REF}")


def _cs_order(ref: str, others: list[str], ref_first: bool) -> list[str]:
    return [ref, *others] if ref_first else [*others, ref]


def client_server(n_clients: int, n_servers: int, ref_first: bool = True,
                  server_ref_first: bool | None = None) -> str:
    """The client/server system of Derepas and Gastin [DG01] (Fig. 10, right column: the plain
    Promela its modified Spin generates), for ``n_clients`` clients and ``n_servers`` servers, desugared by hand.

    A client picks any server (``anyRef``), sends it ``req`` with its own lid, and waits: on
    ``ack`` it works, then sends ``rel`` and starts again; on ``nack`` it starts again.  A server
    acks a request when it is free (and becomes busy), nacks it when busy, and becomes free on
    ``rel``.  :func:`client_server_ext` is the same system in the extended syntax.

    Desugaring ([DG01] section 2.2 and Fig. 10): a ``ref`` is a ``byte`` holding a lid
    (0..n-1) or :data:`UNDEF_REF`, and ref variables start undefined; ``_lid`` is
    ``(_pid - K)``, K the pid of the proctype's first instance (clients 0.., servers
    n_clients..); the public channels ``cliChan``/``serChan`` are global channel arrays indexed
    by lid; ``anyRef(server)`` is an n_servers-way ``if``.

    The typos of Fig. 10 are fixed: ``serChan`` has one channel per server (Fig. 10 declares 3
    for 2 servers); its ref field references clients (it carries the requester's lid);
    ``cliChan`` gets the second field the servers send (``ack,_lid``: the server's ref) and the
    clients receive it into ``_``; the constants ``0`` sent in ref fields (``rel,0``,
    ``nack,0``) are ``_undef_ref``, which is what 0 means in [DG01]'s own 1-based encoding
    (section 3.2: 0 = undefined); ``_lid`` has its parentheses.

    ``ref_first`` puts the client's ``serv_id`` before its other locals ([DG01] section 4.2,
    Fig. 6 "ref first"), else after them; ``server_ref_first`` (default: as ``ref_first``)
    does the same for the server's ``cli``.  In this plain text the client has no other
    locals (its public channel is global), so only the server's declarations change: the
    order matters to a canonicaliser that sorts process tuples, not to plain SPIN's count.
    """
    _cs_check(n_clients, n_servers)
    server_ref_first = ref_first if server_ref_first is None else server_ref_first
    any_server = " ".join(f":: serv_id = {s}" for s in range(n_servers))
    client_locals = _cs_order(f"byte serv_id = {UNDEF_REF};", [], ref_first)
    server_locals = _cs_order(f"byte cli = {UNDEF_REF};", ["byte inUse;"], server_ref_first)
    return f"""mtype = {{ack, nack, rel, req}};

chan cliChan[{n_clients}] = [4] of {{mtype, byte}};  /* public chan of client: {{mtype, ref server}} */
chan serChan[{n_servers}] = [4] of {{mtype, byte}};  /* public chan of server: {{mtype, ref client}} */

#define _lid (_pid - 0)
active [{n_clients}] proctype client()
{{
{_join(client_locals, '  ')}
idle:
  if {any_server} fi;
  serChan[serv_id]!req(_lid);
  if
  :: cliChan[_lid]?ack, _ -> goto work
  :: cliChan[_lid]?nack, _ -> goto idle
  fi;
work:
  serChan[serv_id]!rel, {UNDEF_REF};
  goto idle
}}
#undef _lid

#define _lid (_pid - {n_clients})
active [{n_servers}] proctype server()
{{
{_join(server_locals, '  ')}
  do
  :: serChan[_lid]?req(cli) ->
     if
     :: inUse == 0 -> inUse = 1; cliChan[cli]!ack, _lid
     :: inUse == 1 -> cliChan[cli]!nack, {UNDEF_REF}
     fi
  :: serChan[_lid]?rel, _ -> inUse = 0
  od
}}
#undef _lid
"""


def client_server_ext(n_clients: int, n_servers: int, ref_first: bool = True,
                      server_ref_first: bool | None = None) -> str:
    """:func:`client_server` in the extended syntax of [DG01] (Fig. 10, left column, with the
    same typo fixes): ``ref``, ``public chan``, ``anyRef``, ``_lid``, ``P[r].c``,
    ``_undef_ref``.  Desugared as section 2.2 says, it is :func:`client_server`'s text (up to
    layout and comments): the two are written side by side on purpose.

    ``ref_first`` puts ``ref server serv_id`` before the client's ``public chan cliChan`` (as
    Fig. 10 does) or after it; ``server_ref_first`` (default: as ``ref_first``) puts
    ``ref client cli`` before or after the server's ``public chan serChan`` and ``inUse``
    (Fig. 10 declares it last).
    """
    _cs_check(n_clients, n_servers)
    server_ref_first = ref_first if server_ref_first is None else server_ref_first
    client_locals = _cs_order("ref server serv_id = _undef_ref;",
                              ["public chan cliChan = [4] of {mtype, ref server};"], ref_first)
    server_locals = _cs_order("ref client cli = _undef_ref;",
                              ["public chan serChan = [4] of {mtype, ref client};", "byte inUse;"],
                              server_ref_first)
    return f"""mtype = {{ack, nack, rel, req}};

active [{n_clients}] proctype client()
{{
{_join(client_locals, '  ')}
idle:
  serv_id = anyRef(server);
  server[serv_id].serChan!req(_lid);
  if
  :: cliChan?ack, _ -> goto work
  :: cliChan?nack, _ -> goto idle
  fi;
work:
  server[serv_id].serChan!rel, _undef_ref;
  goto idle
}}

active [{n_servers}] proctype server()
{{
{_join(server_locals, '  ')}
  do
  :: serChan?req(cli) ->
     if
     :: inUse == 0 -> inUse = 1; client[cli].cliChan!ack, _lid
     :: inUse == 1 -> client[cli].cliChan!nack, _undef_ref
     fi
  :: serChan?rel, _ -> inUse = 0
  od
}}
"""


GENERATORS.update({f.__name__: f for f in (client_server, client_server_ext)})
