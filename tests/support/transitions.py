"""Transition oracle for symmetry reduction: the detected group must map pan's stored state
*graph* onto itself, independent of the product's C code and of its reading of the state vector.

Why
---
The closure oracle of tests/support/statespace.py checks states only: a generator passes when it maps
the reachable states onto reachable states.  Reduction needs more.  pan explores one state of
each orbit and trusts that every other member has the permuted successors and the same
verdicts, so a permutation that keeps the reachable set but moves a transition (worker 1 alone
may jump from 0 to 2, both workers reach 2) or an error (only worker 2's step fails its
assertion) makes the reduced search unsound while the closure oracle stays green.  Here plain
pan records every move it makes and every error it reports, and each generator must map that
graph onto itself:

* nodes: the states pan stores (stored bytes identity, :meth:`StateSpace.key`), which are the
  states the canonicaliser sees;
* edges ``s -> t``: pan, expanding stored state ``s``, reaches stored state ``t`` (new or
  already stored), through states inside atomic sequences and d_steps, and with a never claim
  through the half-step between the program's move and the claim's (the graph is the product;
  the claim's slot is fixed by every element);
* labels: the error *kinds* pan reports (``assertion violated``, not the expression: the image
  of ``assert(x[1]==0)`` is ``assert(x[2]==0)``; ``invalid end state``; ``end state in claim
  reached``; ``ref to uninitialized chan``), against the stored state whose expansion met
  them, and ``accepting``/``progress`` (some process, the claim included, is at an accept or
  progress label).

For every element ``g`` checked and every node ``s`` it applies to (below), ``g s`` must be a
node with the same labels, and for every edge ``s -> t`` with ``g`` applying to both ends,
``g s -> g t`` must be an edge.  ``g`` is injective, so "into" is "onto" on these finite sets.

Why stored states only
----------------------
pan canonicalises the states it stores, nothing else: inside an atomic sequence it neither
stores nor matches, so what reduction needs is a symmetry of the graph between stored states.
A finer graph, with a node for every state inside an atomic sequence, asks too much: the
states there carry the program counter of the option an ``if`` took, and a valid group may map
the program onto itself only up to the order of such options.  hypercube_by_neighbour (tests/
support/families.py) is one: a translation of the cube maps ``:: _pid == 1 && dest == 2 -> link2!packet``
to another node's option, with another program counter, and the state between guard and send,
inside the atomic routing step, has no image pan visits; the stored states do.

Getting the graph out of pan
----------------------------
:func:`explore_transitions` first runs :func:`statespace.explore` (the model, the group under
test, pan's layout of ``now`` and the oracle's own join of it with the model's declarations,
tests/support/oracle_layout.py; the stored states), then builds its own copy of the same pan.c with
three calls added, each found by pattern and asserted to occur exactly once (:func:`edit_pan`):

* ``oracle_down()`` right after the ``Down:`` label of ``new_state()``, which every visit of a
  state passes (the initial state, and ``goto Down`` after each move, ``depth`` already
  incremented).  It writes ``depth``, ``now`` (the first ``vsize`` bytes of the largest layout,
  as SVDUMP does, with ``_a_t`` cleared: below) and whether a process is at an accept or
  progress state (``accpstate``/``progstate`` of each ``_t``, ``_p``).
* ``oracle_store()`` right after ``kk = (II == 1 || II == 2);``, the line after the store call
  (``h_store``, ``b_store`` or ``g_store``) in ``new_state()``: the state at ``depth`` went
  through the store, as new or as matched.  That includes a state inside an atomic sequence
  whose process blocks: pan then drops atomicity, goes back to ``AllOver:`` and stores it.
* ``oracle_uerror(str)`` at the top of ``dfs_uerror()``: ``depth`` and the message.

In Python the probe keeps the last state visited at each depth (the DFS stack).  When the state
at depth d is stored, the edge into it comes from the deepest stored state below d on the
stack.  An error belongs to the deepest stored state at or below its state: errors raised inside
a move (assertions, channel references) have ``depth`` of the state the move starts from;
``invalid end state`` and ``accept stutter`` are reported with ``depth`` decremented around the
call (``depth--; trpt--; uerror(...)``), so their state is one deeper; ``end state in claim
reached`` is raised at ``Down`` itself.  Acceptance and non-progress cycles are properties of
paths and of the order of the search, not of states: they are not labels.  Any other message is
refused (OracleError) rather than guessed at.

pan runs with ``-c0`` (go on after errors, write no trail), with the flags and arguments the
caller gives (``-DNOREDUCE``: partial order reduction would leave out moves), and is compiled
with -DSVDUMP and run with ``-p<vsize>``.  The states the probe saw pass the store must be the
states of the ``.svd`` dump, and the run from the initial state must store exactly the states
plain pan stored in :func:`statespace.explore`: the added calls change nothing else.  With
``-a`` the nested search (``now._a_t & 1``) stores its own copies of states and repeats moves
of the first search; with ``_a_t`` cleared they are the same nodes and edges (see
:func:`statespace.svd_records`).  ``-DBFS`` (another search routine) and ``-DNP`` are refused.

Every stored state is expanded once, with every process allowed to move, so the edges out of a
node do not depend on the order of the search, nor do the errors met inside atomic sequences
started from it (those are expanded at every visit).

Start-up
--------
While init starts processes (and when the last ones end), a state holds the processes of the
slots below ``_nr_pr`` and the channels up to ``_nr_qs``.  The group action of
:class:`statespace.GroupAction` describes a full state; on a smaller one it is meaningful for
exactly those elements that map the existing pids onto existing pids and the existing channels
onto existing channels (the setwise stabiliser the canonicaliser uses for those states).  An
element *applies* to a state when it does; a check skips the states (and edges with an end)
an element does not apply to.  Generators rarely stabilise a start-up set, so to cover stored
start-up states pass the elements of the stabilisers too (for a small group: every element).

The initial state
-----------------
A symmetry need not fix the initial state (spin-examples/peterson.pml: ``turn`` starts at 0, a
user's pid).  What reduction needs is a transition relation that commutes with the group on the
states the reduced search can meet, which are the images of reachable states.  Given
``roots``, :func:`explore_transitions` computes the orbit of the initial state under those
elements and runs pan once from each state of it (the probe copies the image into ``now`` at
the first ``Down``); the graph is the union.  An image of the initial state has the initial
state's layout (only values differ), so pan's offsets and Mask stay right.

Which action
------------
The images are those of :class:`statespace.GroupAction`: pan's state vector as the oracle reads
it (tests/support/oracle_layout.py: pan.h parsed, every member located and its signedness asked of gcc,
slots and queues by pan's own ``_t``, channel ids by pan.c's creations), never the product's
StateLayout, and what each place holds as the group under test reads it (``group``: its model
and TypeInfo).  A graph explored without a group can be described and walked, not mapped.  The
names that describe states (``x[1]``, ``P(pid 2).c``, ``chan 3 (q).contents[0].fld1``) come
from the same parse, values as C reads them (a short holding -5 shows -5).
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Iterable, Sequence

from oracle_layout import Bits, OracleError, every_index, leaves, lvalue
from statespace import _DEPTH_LIMIT, PAN_TIMEOUT_S, GroupAction, GroupSource, StateSpace, _run, explore, svd_records

from topspin_py.symmetry.validity import Alpha

EDITED_PAN = "oracle_pan_edges.c"  # the oracle's own edited copy of pan.c
EDGE_PROBE_FILE = "oracle_edges.c"
EDGE_BINARY = "pan_edges"
EVENTS_FILE = "oracle_events.bin"
SEED_FILE = "oracle_seed.bin"
NOT_APPLICABLE = -1  # the image of a state an element does not apply to (module docstring)
MAX_NAMED_FIELDS = 4000  # probes for describing states; beyond, bytes are shown by offset

# Labels (what pan says of a state).
ASSERTION = "assertion violated"
INVALID_END = "invalid end state"
ACCEPT_STUTTER = "accept stutter"
CLAIM_END = "end state in claim reached"
UNINITIALISED_CHAN = "ref to uninitialized chan"
ACCEPTING = "accepting"
PROGRESS = "progress"

# uerror messages: how they are labelled, and where the state is relative to `depth`.
_ERROR_KINDS: tuple[tuple[str, str | None, int], ...] = (
    ("assertion violated", ASSERTION, 0),     # spin_assert, inside a move (and Boundcheck)
    ("invalid end state", INVALID_END, 1),    # depth--; trpt--; uerror(...)
    ("accept stutter", ACCEPT_STUTTER, 1),    # likewise
    ("end state in claim reached", CLAIM_END, 0),  # at Down
    ("ref to uninitialized chan", UNINITIALISED_CHAN, 0),  # inside a move
    ("acceptance cycle", None, 0),            # a path, found in the order of the search
    ("non-progress cycle", None, 0),
)


# ------------------------------------------------------------------------------ the edit
_DOWN = re.compile(r"^Down:\n", re.M)
_STORE = re.compile(r"^\t+kk = \(II == 1 \|\| II == 2\);\n", re.M)
_UERROR = re.compile(r"^dfs_uerror\(char \*str\)\n\{[^}]*?\n\tif \(unwinding\) return;[^\n]*\n", re.M)


def edit_pan(text: str) -> str:
    """pan.c with the probe's three calls added (module docstring); OracleError when a
    pattern does not occur exactly once (another SPIN version, or an unexpected pan.c)."""
    for name, pattern in (("the Down: label", _DOWN), ("the store's verdict", _STORE),
                          ("dfs_uerror's opening", _UERROR)):
        found = len(pattern.findall(text))
        if found != 1:
            raise OracleError(f"pan.c has {found} matches of {name} ({pattern.pattern!r}), not 1")
    text = _DOWN.sub(lambda m: m.group(0) + "\toracle_down();\n", text)
    text = _STORE.sub(lambda m: m.group(0) + "\t\t\toracle_store();\n", text)
    text = _UERROR.sub(lambda m: m.group(0) + "\toracle_uerror(str);\n", text)
    return "void oracle_down(void);\nvoid oracle_store(void);\nvoid oracle_uerror(const char *);\n" + text


_EDGE_PROBE_C = r"""/* Transition oracle probe (tests/support/transitions.py): the oracle's copy of pan.c, with calls of
 * oracle_down() after the Down: label, of oracle_store() after the store in new_state(), and
 * of oracle_uerror() in dfs_uerror().  Events go to @EVENTS_FILE@: 'D' depth flags now[],
 * 'S' depth, 'E' depth length message. */
#include "@EDITED_PAN@"

#if defined(BFS) || defined(BFS_PAR) || defined(NP) || NCORE>1
	#error "the transition probe follows the sequential depth-first search only"
#endif

static FILE *oracle_events;
static uchar oracle_seed[ORACLE_VSIZE];
static int oracle_seeding;	/* 1: copy oracle_seed into now at the first visit */

static State oracle_now;

void
oracle_down(void)
{	int i, flags = 0;
	int d = (int) depth;
	if (oracle_seeding)
	{	oracle_seeding = 0;
		memcpy((uchar *) &now, oracle_seed, ORACLE_VSIZE);
	}
	if (vsize > ORACLE_VSIZE)
	{	fprintf(stderr, "oracle: vsize %lu exceeds %d\n", (unsigned long) vsize, ORACLE_VSIZE);
		exit(3);
	}
	for (i = 0; i < (int) now._nr_pr; i++)
	{	P0 *p = (P0 *) pptr(i);
		if (accpstate[p->_t][p->_p]) flags |= 1;
		if (progstate[p->_t][p->_p]) flags |= 2;
	}
	fputc('D', oracle_events);
	fwrite(&d, sizeof d, 1, oracle_events);
	fputc(flags, oracle_events);
	memcpy((uchar *) &oracle_now, (uchar *) &now, ORACLE_VSIZE);
	oracle_now._a_t = 0;	/* which search: the nested one repeats states of the first */
	fwrite((uchar *) &oracle_now, 1, ORACLE_VSIZE, oracle_events);
}

void
oracle_store(void)
{	int d = (int) depth;
	fputc('S', oracle_events);
	fwrite(&d, sizeof d, 1, oracle_events);
}

void
oracle_uerror(const char *message)
{	int d = (int) depth;
	unsigned short n = (unsigned short) strlen(message);
	if (n > 200) n = 200;
	fputc('E', oracle_events);
	fwrite(&d, sizeof d, 1, oracle_events);
	fwrite(&n, sizeof n, 1, oracle_events);
	fwrite(message, 1, n, oracle_events);
}

static void
oracle_finish(void)
{	if (oracle_events) fclose(oracle_events);
}

__attribute__((constructor)) static void
oracle_start(void)
{	const char *seed = getenv("ORACLE_SEED");
	oracle_events = fopen("@EVENTS_FILE@", "wb");
	if (!oracle_events) { perror("@EVENTS_FILE@"); exit(3); }
	setvbuf(oracle_events, NULL, _IOFBF, 1 << 20);
	if (seed && *seed)
	{	FILE *in = fopen(seed, "rb");
		if (!in || fread(oracle_seed, 1, ORACLE_VSIZE, in) != ORACLE_VSIZE)
		{	fprintf(stderr, "oracle: cannot read the seed %s\n", seed);
			exit(3);
		}
		fclose(in);
		oracle_seeding = 1;
	}
	atexit(oracle_finish);
}
"""


# ------------------------------------------------------------------------------ naming bytes
@dataclass(frozen=True)
class _Place:
    """A struct instance in ``now``: ``label`` names it (``user(pid 2)``, ``chan 3``, or ""
    for the globals), ``struct`` is its type, ``base`` its offset."""

    label: str
    struct: str
    base: int


@dataclass
class StateNames:
    """Names for the values in a state vector, to show what differs between two states:
    ``fields`` are (name, bits, offset of the struct) of every scalar the probe located,
    ``places`` the byte ranges of the process slots and queues, ``size`` where ``_vsz`` is (the
    state's own length: slots and queues past it do not exist yet)."""

    fields: list[tuple[str, Bits, int]]
    places: list[tuple[int, int, str]]
    size: Bits | None

    def values(self, vector: bytes) -> dict[str, int]:
        """Name -> value, for the fields inside the state (not past its ``_vsz``)."""
        end = self.size.read(vector, 0) if self.size is not None else len(vector)
        return {name: bits.read(vector, base) for name, bits, base in self.fields if base + bits.start < end}

    def diff(self, a: bytes, b: bytes) -> list[str]:
        """``name: value in a -> value in b`` for every value that differs, then unnamed bytes."""
        va, vb = self.values(a), self.values(b)
        lines = [f"{name}: {va.get(name, '-')} -> {vb.get(name, '-')}"
                 for name, _, _ in self.fields if va.get(name) != vb.get(name)]
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y and i not in self._named_bytes:
                where = next((label for start, end, label in self.places if start <= i < end), "globals")
                lines.append(f"byte {i} ({where}): {x} -> {y}")
        return lines

    def summary(self, vector: bytes) -> str:
        """The values of a state, without pan's bookkeeping (``_vsz``, ``_pid``, ``_t``)."""
        return ", ".join(f"{name}={value}" for name, value in self.values(vector).items()
                         if not re.search(r"(^|\.)_(?!p$)\w*$", name))

    @cached_property
    def _named_bytes(self) -> set[int]:
        return {base + offset for _, bits, base in self.fields for offset, _ in bits.masks}


def _places(space: StateSpace) -> list[_Place]:
    layout, pan = space.layout, space.pan
    places = [_Place("", "State", 0)]
    for process in (*layout.processes, *layout.unnumbered_processes):
        places.append(_Place(f"{process.proctype}(pid {process.pid})", process.struct, pan.proc_offset[process.slot]))
    for slot, name in layout.claims:
        places.append(_Place(f"claim {name}", pan.struct_of_slot(slot), pan.proc_offset[slot]))
    for chan in (*layout.channels, *layout.unnumbered):
        places.append(_Place(f"chan {chan.id} ({chan.name})", chan.struct, pan.queue_offset[chan.id]))
    return places


def _state_names(space: StateSpace) -> StateNames:
    """Every scalar of every struct in ``now`` (up to MAX_NAMED_FIELDS), by the oracle's own
    parse of pan.h and the probe's bits (tests/support/oracle_layout.py)."""
    fields: list[tuple[str, Bits, int]] = []
    spans: list[tuple[int, int, str]] = []
    for place in _places(space):
        if place.struct != "State":
            spans.append((place.base, place.base + space.pan.sizes[place.struct], place.label))
        for leaf in leaves(space.header, place.struct):
            if leaf.element or (place.struct == "State" and leaf.steps[0][0] == "_cnt"):
                continue
            for indices in every_index(leaf.steps):
                if len(fields) >= MAX_NAMED_FIELDS:
                    break
                name = lvalue(leaf.steps, indices)
                bits = space.pan.bits(place.struct, leaf.steps, indices)
                fields.append((f"{place.label}.{name}" if place.label else name, bits, place.base))
    return StateNames(fields, spans, space.pan.state("_vsz"))


# ------------------------------------------------------------------------------ the graph
@dataclass
class TransitionGraph:
    """The state graph plain pan explored (module docstring): ``vectors[i]`` is a raw vector of
    node i (``space.pan.vsize`` bytes), ``edges`` pairs of node indices, ``labels[i]`` what pan
    said of node i; ``roots`` the nodes pan started from."""

    space: StateSpace
    vectors: list[bytes] = field(default_factory=list)
    index: dict[bytes, int] = field(default_factory=dict)  # stored bytes -> node
    edges: set[tuple[int, int]] = field(default_factory=set)
    labels: list[set[str]] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)
    names: StateNames | None = None  # for describing states, once the probe has said where fields are
    moves: int = 0  # moves pan made between stored states (edges before removing duplicates)
    _action: GroupAction | None = field(default=None, repr=False)
    _successors: tuple[int, dict[int, list[int]]] | None = field(default=None, repr=False)

    @property
    def action(self) -> GroupAction:
        if self._action is None:
            self._action = GroupAction(self.space)
        return self._action

    def node(self, vector: bytes) -> int | None:
        return self.index.get(self.space.key(vector))

    def add_node(self, vector: bytes, flags: int) -> int:
        """The node of ``vector``, new if need be, with the accept (1) and progress (2) flags
        the probe saw."""
        key = self.space.key(vector)
        node = self.index.get(key)
        if node is None:
            node = self.index[key] = len(self.vectors)
            self.vectors.append(vector)
            self.labels.append(set())
        if flags & 1:
            self.labels[node].add(ACCEPTING)
        if flags & 2:
            self.labels[node].add(PROGRESS)
        return node

    def successors(self, node: int) -> list[int]:
        if self._successors is None or self._successors[0] != len(self.edges):
            table: dict[int, list[int]] = {}
            for a, b in self.edges:
                table.setdefault(a, []).append(b)
            self._successors = (len(self.edges), table)
        return self._successors[1].get(node, [])

    def with_label(self, label: str) -> list[int]:
        return [i for i, labels in enumerate(self.labels) if label in labels]

    # ------------------------------------------------------------- which states an element acts on
    def applies(self, alpha: Alpha, vector: bytes) -> bool:
        """Whether ``alpha`` maps the processes and channels that exist in ``vector`` onto
        themselves (module docstring: "Start-up")."""
        return _applies(self.space, alpha, vector)

    def image_nodes(self, alpha: Alpha) -> list[int | None]:
        """For each node: the node of its image, None when the image is not a node,
        NOT_APPLICABLE when ``alpha`` does not apply to it."""
        cache: dict[tuple[int, int], bool] = {}
        result: list[int | None] = []
        for vector in self.vectors:
            existing = _existing(self.space, vector)
            if existing not in cache:
                cache[existing] = _applies(self.space, alpha, vector)
            if not cache[existing]:
                result.append(NOT_APPLICABLE)
            else:
                result.append(self.index.get(self.space.key(self.action.image(vector, alpha))))
        return result

    # ------------------------------------------------------------- readable detail
    def describe_state(self, vector: bytes) -> str:
        assert self.names is not None, "no state names yet (explore_transitions sets them)"
        return self.names.summary(vector)

    def describe_change(self, a: bytes, b: bytes) -> str:
        assert self.names is not None, "no state names yet (explore_transitions sets them)"
        lines = self.names.diff(a, b)
        return "; ".join(lines) if lines else "(no named value differs)"


def explore_transitions(model_path: str | Path, workdir: str | Path,
                        flags: Sequence[str] = ("-DSAFETY", "-DNOREDUCE"), pan_args: Sequence[str] = (),
                        defines: Sequence[str] = (), roots: Sequence[Alpha] = (),
                        group: GroupSource = None) -> TransitionGraph:
    """Run plain SPIN on ``model_path`` in ``workdir`` and return the state graph it explores
    (module docstring); with ``roots``, from every image of the initial state under the group
    they generate, where they apply."""
    for flag in flags:
        if re.fullmatch(r"-D(BFS|BFS_PAR|NP|NCORE)(=.*)?", flag):
            raise OracleError(f"the transition oracle does not support {flag}")
    stops = [a for a in pan_args if a.startswith("-c") and a != "-c0"]
    if stops:
        raise OracleError(f"pan {stops[0]} stops at an error: the graph would be incomplete")
    workdir = Path(workdir)
    pan_args = tuple(pan_args) + (() if "-c0" in pan_args else ("-c0",))
    space = explore(model_path, workdir, flags, pan_args, defines, allow_errors=True, group=group)
    _build(workdir, space, flags)

    graph = TransitionGraph(space)
    initial = space.records[0]  # the first state pan stores is the initial state
    seeds = _orbit(space, initial, roots)
    dumped: set[bytes] = set()
    for number, seed in enumerate(seeds):
        stored = _run_edges(workdir, space, pan_args, graph, seed if number else None)
        if number == 0 and stored != set(space.keys):
            raise OracleError(f"the edited pan stored {len(stored)} states, plain pan "
                              f"{len(space.keys)}: the probe changed the search")
        dumped |= stored
        if graph.node(seed) not in graph.roots:
            raise OracleError("the probe never saw the state pan started from pass the store")
    if dumped != set(graph.index):
        raise OracleError(f"pan dumped {len(dumped)} stored states, the probe saw {len(graph.index)} "
                          "pass through the store")
    graph.names = _state_names(space)
    return graph


def _existing(space: StateSpace, vector: bytes) -> tuple[int, int]:
    """(_nr_pr, _nr_qs): the slots below the first and the channel ids up to the second exist."""
    nr_pr, nr_qs = space.pan.state("_nr_pr"), space.pan.state("_nr_qs")
    assert nr_pr is not None and nr_qs is not None  # State always has both
    return nr_pr.read(vector, 0), nr_qs.read(vector, 0)


def _applies(space: StateSpace, alpha: Alpha, vector: bytes) -> bool:
    nr_pr, nr_qs = _existing(space, vector)
    layout = space.layout
    for process in layout.processes:
        image = layout.process(alpha.pid(process.pid))
        if (process.slot < nr_pr) != (image.slot < nr_pr):
            return False
    for chan in layout.channels:
        if (chan.id <= nr_qs) != (alpha.chan(chan.id) <= nr_qs):
            return False
    return True


def _orbit(space: StateSpace, initial: bytes, elements: Sequence[Alpha]) -> list[bytes]:
    """The images of ``initial`` under the group ``elements`` generate (those that apply to
    it), ``initial`` first."""
    if not elements:
        return [initial]
    action = GroupAction(space)
    elements = [a for a in elements if _applies(space, a, initial)]
    found = {space.key(initial): initial}
    todo = [initial]
    while todo:
        vector = todo.pop()
        for alpha in elements:
            image = bytes(action.image(vector, alpha))
            if space.key(image) not in found:
                found[space.key(image)] = image
                todo.append(image)
    return list(found.values())


def _build(workdir: Path, space: StateSpace, flags: Sequence[str]) -> None:
    (workdir / EDITED_PAN).write_text(edit_pan((workdir / "pan.c").read_text()))
    probe_c = (_EDGE_PROBE_C.replace("@EDITED_PAN@", EDITED_PAN)
               .replace("@EVENTS_FILE@", EVENTS_FILE))
    (workdir / EDGE_PROBE_FILE).write_text(probe_c)
    _run(["gcc", "-O0", "-w", *flags, "-DSVDUMP", f"-DORACLE_VSIZE={space.pan.vsize}",
          "-o", EDGE_BINARY, EDGE_PROBE_FILE], workdir)


def _run_edges(workdir: Path, space: StateSpace, pan_args: Sequence[str], graph: TransitionGraph,
               seed: bytes | None) -> set[bytes]:
    """One run of the edited pan: adds its nodes, edges and error labels to ``graph`` and
    returns the stored bytes of the states it stored."""
    vsize = space.pan.vsize
    for stale in [*workdir.glob("*.svd"), workdir / EVENTS_FILE]:
        stale.unlink(missing_ok=True)
    env = dict(os.environ)
    env.pop("ORACLE_SEED", None)
    if seed is not None:
        (workdir / SEED_FILE).write_bytes(seed)
        env["ORACLE_SEED"] = SEED_FILE
    command = [f"./{EDGE_BINARY}", f"-p{vsize}", *pan_args]
    done = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=PAN_TIMEOUT_S, env=env)
    if done.returncode != 0:
        raise OracleError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    if _DEPTH_LIMIT in done.stdout:
        raise OracleError("pan hit its depth limit: the state graph is incomplete (pass a larger -m)")
    _read_events((workdir / EVENTS_FILE).read_bytes(), space, graph)
    dumps = list(workdir.glob("*.svd"))
    if len(dumps) != 1:
        raise OracleError(f"expected one .svd dump in {workdir}, found {len(dumps)}")
    records, _ = svd_records(dumps[0].read_bytes(), space.pan)
    return {space.key(record) for record in records}


def _read_events(data: bytes, space: StateSpace, graph: TransitionGraph) -> None:
    """Adds the stored states, the moves between them and the labels of one run to ``graph``."""
    vsize = space.pan.vsize
    stack: list[tuple[bytes, int]] = []  # the state last visited at each depth, and its flags
    stored: list[int | None] = []  # the node of the deepest stored state at each depth or below
    position, end = 0, len(data)
    while position < end:
        tag = data[position]
        (depth,) = struct.unpack_from("<i", data, position + 1)
        if tag == ord("D"):
            visit = (data[position + 6:position + 6 + vsize], data[position + 5])
            position += 6 + vsize
            if not 0 <= depth <= len(stack):
                raise OracleError(f"a visit at depth {depth} with no state at depth {depth - 1}")
            del stack[depth:], stored[depth:]
            stack.append(visit)
            stored.append(stored[-1] if stored else None)
        elif tag == ord("S"):
            position += 5
            if depth != len(stack) - 1:
                raise OracleError(f"pan stored a state at depth {depth}, the probe last saw depth {len(stack) - 1}")
            stored[depth] = node = graph.add_node(*stack[depth])
            source = stored[depth - 1] if depth > 0 else None
            if source is None:  # where the run started (again at depth 0 for a nested search)
                if node not in graph.roots:
                    graph.roots.append(node)
            else:
                graph.edges.add((source, node))
                graph.moves += 1
        elif tag == ord("E"):
            (length,) = struct.unpack_from("<H", data, position + 5)
            message = data[position + 7:position + 7 + length].decode(errors="replace")
            position += 7 + length
            label, offset = _error_kind(message)
            if label is None:
                continue
            at = stored[depth + offset] if 0 <= depth + offset < len(stored) else None
            if at is None:
                raise OracleError(f"pan reported {message!r} at depth {depth}, below no stored state")
            graph.labels[at].add(label)
        else:
            raise OracleError(f"the event file is corrupt at byte {position}")


def _error_kind(message: str) -> tuple[str | None, int]:
    for prefix, label, offset in _ERROR_KINDS:
        if message.startswith(prefix):
            return label, offset
    raise OracleError(f"pan reported an error the oracle does not know where to put: {message!r}")


# ------------------------------------------------------------------------------ the check
@dataclass(frozen=True)
class TransitionViolation:
    """Where ``alpha`` does not map the graph onto itself.  ``kind``: ``node`` (the image of a
    visited state is not visited), ``label`` (the image is labelled otherwise) or ``edge`` (the
    image of a move is not a move); ``source``/``target`` the nodes, ``detail`` readable text."""

    kind: str
    alpha: Alpha
    source: int
    target: int | None
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} ({_alpha_text(self.alpha)}): {self.detail}"


def transition_violations(graph: TransitionGraph, alpha: Alpha, limit: int | None = None) -> list[TransitionViolation]:
    """Every way ``alpha`` fails to map ``graph`` onto itself (at most ``limit``): nodes first,
    then labels, then edges.  An element with no image on states (one that maps a process onto
    a process of another proctype, or a channel onto one of another shape) is refused with
    OracleError by :class:`statespace.GroupAction`."""
    images = graph.image_nodes(alpha)
    found: list[TransitionViolation] = []

    def full() -> bool:
        return limit is not None and len(found) >= limit

    vectors, labels, action = graph.vectors, graph.labels, graph.action
    for node, image in enumerate(images):
        if image is None:
            vector = vectors[node]
            found.append(TransitionViolation("node", alpha, node, None, (
                f"state {node} [{_labels(labels[node])}] maps to a state pan never reaches; "
                f"state -> image: {graph.describe_change(vector, bytes(action.image(vector, alpha)))}")))
            if full():
                return found
    for node, image in enumerate(images):
        if image is not None and image != NOT_APPLICABLE and labels[image] != labels[node]:
            found.append(TransitionViolation("label", alpha, node, None, (
                f"state {node} [{_labels(labels[node])}] maps to state {image} [{_labels(labels[image])}]; "
                f"state -> image: {graph.describe_change(vectors[node], vectors[image])}; "
                f"state {node}: {graph.describe_state(vectors[node])}")))
            if full():
                return found
    for source, target in sorted(graph.edges):
        s, t = images[source], images[target]
        if s == NOT_APPLICABLE or t == NOT_APPLICABLE or (s, t) in graph.edges:
            continue
        detail = _edge_detail(graph, alpha, source, target, s, t)
        found.append(TransitionViolation("edge", alpha, source, target, detail))
        if full():
            return found
    return found


def _edge_detail(graph: TransitionGraph, alpha: Alpha, source: int, target: int, s, t) -> str:
    vectors = graph.vectors
    move = graph.describe_change(vectors[source], vectors[target])
    text = f"move {source} -> {target} ({move}) maps to "
    if s is None or t is None:
        missing = " and ".join(name for name, n in (("source", s), ("target", t)) if n is None)
        return text + f"a pair whose {missing} pan never reaches"
    image_move = graph.describe_change(vectors[s], vectors[t])
    successors = sorted(graph.successors(s))
    return (text + f"{s} -> {t} ({image_move}), which pan never makes; from {s} pan moves to "
            f"{successors[:8]}{' ...' if len(successors) > 8 else ''}; "
            f"state {source}: {graph.describe_state(vectors[source])}")


def _alpha_text(alpha: Alpha) -> str:
    pids = " ".join(f"{a}->{b}" for a, b in alpha.pids)
    chans = " ".join(f"{a}->{b}" for a, b in alpha.chans)
    return "; ".join(part for part in (pids and f"pids {pids}", chans and f"chans {chans}") if part) or "identity"


def _labels(labels: Iterable[str]) -> str:
    return ", ".join(sorted(labels)) or "no labels"


def group_violations(graph: TransitionGraph, elements: Iterable[Alpha],
                     limit: int = 10) -> dict[Alpha, list[TransitionViolation]]:
    """The violations of each element that has some (at most ``limit`` each)."""
    result = {}
    for alpha in elements:
        violations = transition_violations(graph, alpha, limit)
        if violations:
            result[alpha] = violations
    return result


def format_violations(violations: Sequence[TransitionViolation], shown: int = 5) -> str:
    lines = [str(v) for v in violations[:shown]]
    if len(violations) > shown:
        lines.append(f"... and {len(violations) - shown} more")
    return "\n".join(lines)
