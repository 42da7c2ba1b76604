"""State-space oracles for symmetry reduction, independent of the product's C code and of its
reading of the state vector.

Why
---
The canonicaliser that topspin-py splices into pan.c is C generated from templates; a bug in
it, in the layout it is generated from, or in symmetry detection shows up as a wrong number of
stored states, which no published count covers for most models.  These helpers compute the
right number another way: let plain SPIN enumerate the *unreduced* state space, read every
state vector it stored, apply the symmetry group to those vectors in Python, and count orbits.
Nothing here uses the product's templates, runtime or generated C, nor its join of the model
with pan.h (topspin_py/layout: the StateLayout the canonicaliser is generated from): where each
variable, process, queue and message field sits in ``now``, and how wide and how signed it is,
the oracle reads from pan and gcc itself (tests/support/oracle_layout.py).  It uses the product's Python
front end only for what the oracle is *about*: the Model (its declarations, processes and
channels) and the Group under test, whose TypeInfo says what each place holds (a pid, a channel
id, a value of a scalar domain, an array indexed by pid) and whose elements are applied.

Reading the state vectors: SVDUMP
---------------------------------
SPIN 6.5.2's pan.c, compiled with ``-DSVDUMP`` and run with ``-pN`` (pangen1.h), opens
``<PanSource>.svd`` -- the model path as ``spin -a`` was given it, plus ``.svd`` -- and, in
the depth-first search right after ``h_store`` reports a state new (``if (!kk)`` in
``new_state``), writes ``write(svfd, &now, N)``: the first N bytes of the *raw* state vector
``now``, whatever the compression flags.  Without ``-DVERBOSE`` there is no header: the file is
a sequence of N-byte records, one per stored state, in the order pan stored them.  Because the
dump is raw whatever pan stores, we compile with exactly the flags the reduced search uses,
plus ``-DSVDUMP``: the dump then lists the very state space the reduction explores.  (The model
is copied into the work directory and given to spin by its bare name, so that the ``.svd`` file
lands there and not beside the model; for a model written with the ref/public extension its
desugared program goes there instead, and spin runs with ``-o1``, as verify runs it, while the
StateSpace keeps the extended Model, whose group is the declared one.)  With ``-a`` the nested
search dumps the states it stores too, with ``_a_t & 1`` set; they are folded into the first
search's (:func:`svd_records`).

A breadth-first pan (``-DBFS``) stores states in ``store_state()``, which has no such dump:
for it the oracle adds one line to its copy of pan.c (:data:`_BFS_DUMP`), the same ``write``
right after ``store_state()`` counts a new state.  The BFS graph differs from the DFS one:
states inside atomic sequences are stored too (pan's ``nominal states`` are the others), so
its orbits are counted on its own records.

Where things are in ``now``: asking pan itself
----------------------------------------------
pan computes ``proc_offset[]``, ``q_offset[]`` and ``Mask[]`` (the bytes it drops before
storing: ``_nr_pr``, ``_nr_qs``, ``_a_t``, ``_cnt``, each process's ``_pid`` byte, alignment and
padding) at run time, in ``addproc``/``addqueue``, and ``vsize`` grows while ``init``'s ``run``
statements add processes and shrinks again on backtracking, so none of it can be read from
pan.h, and at exit it describes the initial state only.  We therefore compile pan.c, unchanged,
as one translation unit ``#include "pan.c"`` followed by a small probe (``_PROBE_C``), linked
with ``-Wl,--wrap=write``: every ``write()`` pan.c makes goes through our ``__wrap_write``, and
when it is the dump of ``now`` taken at the largest ``vsize`` so far, the probe snapshots
``vsize``, ``Mask``, ``proc_offset`` and ``q_offset``, and the ``_t`` of each process slot and
each queue there (which ``Pk`` and ``Qk`` they are), and notes it if a later dump of the same
size disagrees: a model whose layout depends on the path taken is refused.  At exit it writes
them to ``oracle_layout.txt`` with ``BASE``, pan's ``procname[]``, the size of every ``Pk`` and
``Qk``, and, for every scalar member of ``State``, of each ``Pk`` and of each ``Qk`` as the
oracle's own parse of pan.h names them (tests/support/oracle_layout.py; arrays at index 0, with the
bytes of element 0 for the stride), the bytes and bits it occupies in its struct and whether
it is signed: the member is set to all ones in a zeroed struct, the non-zero bytes are printed,
and the member is compared with 0.  That works for bit-fields too (``_pid``, ``bool``), whose
``offsetof`` C does not allow.  pan is run twice: once with ``-p1`` to learn the largest
``vsize``, then with ``-p<vsize>``; a record of a state with a smaller ``vsize`` (before
``init`` has run every process) is zero beyond its end.

A state's identity is its *stored bytes*: the bytes of the largest layout that ``Mask`` does
not drop.  :func:`explore` checks that the records are pairwise distinct on those bytes and
that there are as many as pan reports stored, so the projection loses and invents nothing.

The group action (:class:`GroupAction`)
---------------------------------------
The places come from the oracle's join (tests/support/oracle_layout.py: the globals in ``State``, each
process's locals in its slot, typedef fields below them, each queue's ``contents[i].fldN``
with the model's message fields, typedefs flattened); what each place holds is the reading of
the group under test (``Group.types``, asked by the place's slot: ``kind``, ``offset``,
``index_kind``, ``index_offset``); values are read and written as the C holds them, in the
member's width and signedness (a ``short`` holding -5 is -5, wrapping around on writes).  An
element (pid map P, channel map C, value maps; ``Group.alpha``) maps a state to its image:

1. the process of pid p moves to the slot of pid P[p] (slot = pid + BASE, the struct's whole
   ``sizeof``), its ``_pid`` renamed like any pid (step 3): the destination's own, slot - BASE,
   unless a receive into ``_pid`` gave the process another; the queue of channel c moves
   to the place of channel C[c], keeping the destination's ``_t``; a global that a channel
   declaration names (``chan link1 = ...``) moves with its channel, as locals move with their
   process;
2. in every array indexed by pid (globals, typedef fields, and the locals of each process as
   it now sits), element i moves to element P[i]; in an array indexed by pid with an offset k
   (element i belongs to pid i + k: ``flag[_pid - 1]``), element i moves to element
   P[i + k] - k when i + k is a pid, and stays otherwise;
3. every place that holds a pid has a value v in 0..npids-1 replaced by P[v], every place that
   holds a channel id a value c in 1..nchans by C[c]; message fields only in the first
   ``Qlen`` slots of their queue.  A place holding pids with an offset k (its value v names
   pid v + k) has v replaced by P[v + k] - k when v + k is a pid, and kept otherwise (255 in a
   byte, "nobody"; 9 in offset_short.pml's short).  A place that holds the values of a scalar
   domain D (types.Domain) has a value v of D replaced by its image under the element
   (``Alpha.value``), any other value kept;
4. the parameters the group keeps in their slots (``Alpha.slot_constants``: each process's are
   constants of its slot) are, in the image, the destination slot's own bytes, unrenamed.

Processes and queues pan holds that the model does not number (started by a run the model
cannot follow) do not move; their places are renamed like any.

Orbits
------
The canonical form of a state is the least image, over all group elements, of its stored bytes;
the number of distinct canonical forms of reachable states is the number of orbits, which an
exact reduction must store.  Every state of an orbit has the same set of images, hence the same
canonical form, so :func:`count_orbits` computes the images once per orbit (from its first
reachable member) and skips the orbit's other reachable members: the same count, |G| images
per orbit instead of per state.

Closure
-------
A valid symmetry maps reachable states to reachable states.  :func:`closure_violations` applies
one element to every reachable state and lists the images that are not reachable: a generator
that produces one is not a symmetry of the model (a detection bug, or a planted one).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence, Union

from oracle_layout import (
    PROBE_REPORT,
    Bits,
    Channel,
    Declarations,
    Leaf,
    OracleError,
    PanHeader,
    Place,
    Step,
    VectorLayout,
    every_index,
    leaves,
    probe_statements,
    read_creations,
    read_pan_h,
    read_vector_layout,
)

from topspin_py.pan import loading
from topspin_py.promela import Model, load_model
from topspin_py.symmetry.kinds import CHAN, PID, Kind, LocalSlot, Slot, domain_of
from topspin_py.symmetry.validity import Alpha

if TYPE_CHECKING:
    from topspin_py.symmetry.detect import Group

__all__ = ["Bits", "GroupAction", "OracleError", "StateSpace", "closure_violations", "count_orbits", "explore",
           "svd_records"]

LAYOUT_FILE = "oracle_layout.txt"
PROBE_FILE = "oracle_pan.c"
PAN_TIMEOUT_S = 600

# What pan prints at the end of a search (pan.c's wrapup()).
_STORED = re.compile(r"^\s*([\d.e+]+) states, stored", re.M)
_VISITED = re.compile(r"^\s*[\d.e+]+ states, stored \(([\d.e+]+) visited\)", re.M)  # with -a
_ERRORS = re.compile(r"errors: (\d+)")
_DEPTH_LIMIT = "max search depth too small"

if sys.byteorder != "little":  # Bits reads values as x86 stores them
    raise OracleError("the state-space oracle reads state vectors as little-endian")

# The group under test, or how to get it from the Model as the pan explore() built checks it
# (``detect``): the model's dead-variable resets and ltl claims are known only then.
GroupSource = Union["Group", Callable[[Model], "Group"], None]


# ------------------------------------------------------------------------------ the probe
# store_state() (-DBFS) counts a new state with these lines, and there the oracle dumps it as
# new_state() does under -DSVDUMP.
_BFS_STORED = "\t#endif\n\t\t\t{\tstatic long sdone = (long) 0; long ndone;\n\t\t\t\tnstates++;\n"
_BFS_DUMP = ("#ifdef SVDUMP\n\t\t\t\tif (vprefix > 0 && write(svfd, (uchar *) &now, vprefix) != vprefix)\n"
             "\t\t\t\t{\tfprintf(efd, \"writing %s.svd failed\\n\", PanSource); wrapup();\n\t\t\t\t}\n#endif\n")

_PROBE_C = r"""/* State-space oracle probe (tests/support/statespace.py): pan.c unchanged, plus a wrapper of
 * write() (linked with -Wl,--wrap=write) that notes pan's layout at its largest dumped state. */
#include "pan.c"

#if !defined(SVDUMP)
	#error "the oracle probe needs -DSVDUMP"
#endif

ssize_t __real_write(int fd, const void *buf, size_t n);

static ulong oracle_vsize;		/* the largest vsize of a dumped state */
static uchar oracle_mask[VECTORSZ];
static int oracle_nr_pr, oracle_nr_qs, oracle_consistent = 1;
static int oracle_proc[MAXPROC], oracle_queue[MAXQ];
static int oracle_ptype[MAXPROC], oracle_qtype[MAXQ];	/* the _t of each slot and queue */

static int
oracle_masked(ulong i)
{
#if !defined(NOCOMP) && !defined(HC)
	return Mask[i] != 0;
#else
	return 0;	/* pan stores every byte */
#endif
}

static int
oracle_same_layout(void)
{	int i;
	if (now._nr_pr != oracle_nr_pr || now._nr_qs != oracle_nr_qs)
		return 0;
	for (i = 0; i < oracle_nr_pr; i++)
		if (proc_offset[i] != oracle_proc[i] || ((P0 *) pptr(i))->_t != oracle_ptype[i]) return 0;
	for (i = 0; i < oracle_nr_qs; i++)
		if (q_offset[i] != oracle_queue[i] || ((Q0 *) qptr(i))->_t != oracle_qtype[i]) return 0;
	for (i = 0; i < (int) vsize; i++)
		if (oracle_masked(i) != oracle_mask[i]) return 0;
	return 1;
}

static void
oracle_snapshot(void)
{	int i;
	oracle_vsize = vsize;
	oracle_nr_pr = now._nr_pr;
	oracle_nr_qs = now._nr_qs;
	for (i = 0; i < oracle_nr_pr; i++)
	{	oracle_proc[i] = proc_offset[i];
		oracle_ptype[i] = ((P0 *) pptr(i))->_t;
	}
	for (i = 0; i < oracle_nr_qs; i++)
	{	oracle_queue[i] = q_offset[i];
		oracle_qtype[i] = ((Q0 *) qptr(i))->_t;
	}
	for (i = 0; i < (int) vsize; i++) oracle_mask[i] = (uchar) oracle_masked(i);
}

ssize_t
__wrap_write(int fd, const void *buf, size_t n)
{
	if (vprefix > 0 && fd == svfd && buf == (const void *) &now)
	{	if (vsize > oracle_vsize)
			oracle_snapshot();
		else if (vsize == oracle_vsize && !oracle_same_layout())
			oracle_consistent = 0;
	}
	return __real_write(fd, buf, n);
}
@BITS@
static void
oracle_fields(FILE *out)
{
@FIELDS@
}

static void
oracle_report(void)
{	FILE *out = fopen("@LAYOUT_FILE@", "w");
	int i;
	if (!out) return;
	fprintf(out, "vsize %lu\nconsistent %d\nbase %d\nmask ", (unsigned long) oracle_vsize, oracle_consistent,
		(int) BASE);
	for (i = 0; i < (int) oracle_vsize; i++) fputc('0' + oracle_mask[i], out);
	fprintf(out, "\n");
	for (i = 0; procname[i] != 0; i++) fprintf(out, "procname %d %s\n", i, procname[i]);
	for (i = 0; i < oracle_nr_pr; i++) fprintf(out, "proc %d %d %d\n", i, oracle_proc[i], oracle_ptype[i]);
	for (i = 0; i < oracle_nr_qs; i++) fprintf(out, "queue %d %d %d\n", i + 1, oracle_queue[i], oracle_qtype[i]);
	oracle_fields(out);
	fclose(out);
}

__attribute__((constructor)) static void
oracle_register(void)
{	atexit(oracle_report);
}
"""


def _probes(header: PanHeader) -> list[Leaf]:
    """Every scalar and array member of State, of each Pk and of each Qk (tests/support/oracle_layout.py)."""
    probes: list[Leaf] = []
    for struct in _vector_structs(header):
        probes.extend(leaves(header, struct))
    return probes


def _vector_structs(header: PanHeader) -> list[str]:
    """State, the Pk and the Qk of pan.h: the structs that make up ``now``."""
    return ["State"] + sorted((name for name in header.structs if re.fullmatch(r"[PQ]\d+", name)),
                              key=lambda name: (name[0], int(name[1:])))


# ------------------------------------------------------------------------------ the state space
@dataclass
class StateSpace:
    """The unreduced state space of a model, as plain pan stored it, and the group under test
    (None: no action; a caller with an action of its own, tests/support/clientserver_orbits.py)."""

    model: Model
    group: "Group | None"
    header: PanHeader = field(repr=False)
    creations: tuple = field(repr=False)  # oracle_layout.read_creations of pan.c
    pan: VectorLayout = field(repr=False)
    records: list[bytes] = field(repr=False)  # one raw state vector per stored state, pan.vsize bytes each
    pan_stored: int = 0  # pan's own "states, stored"
    flags: tuple[str, ...] = ()
    pan_args: tuple[str, ...] = ()
    _keys: dict[bytes, int] | None = field(default=None, repr=False)

    @cached_property
    def layout(self) -> Declarations:
        """The oracle's join of pan's state vector with the declarations of the group's model
        (of the explored model, without a group)."""
        return Declarations(self.header, self.pan, self.creations,
                            self.group.model if self.group is not None else self.model)

    def process_counts(self) -> set[int]:
        """The values of ``_nr_pr`` (processes running, the claim's included) that stored
        states have."""
        bits = self.pan.state("_nr_pr")
        assert bits is not None  # State always has _nr_pr
        return {bits.read(record, 0) for record in self.records}

    def key(self, vector: bytes | bytearray) -> bytes:
        """The bytes pan stores of ``vector``: its identity as a state."""
        return bytes(itemgetter(*self.pan.stored)(vector))

    @property
    def keys(self) -> dict[bytes, int]:
        """Stored bytes -> record index, for every reachable state."""
        if self._keys is None:
            self._keys = {self.key(record): i for i, record in enumerate(self.records)}
        return self._keys


def explore(model_path: str | Path, workdir: str | Path, flags: Sequence[str] = ("-DSAFETY", "-DNOREDUCE"),
            pan_args: Sequence[str] = (), defines: Sequence[str] = (), allow_errors: bool = False,
            group: GroupSource = None) -> StateSpace:
    """Run plain SPIN on ``model_path`` in ``workdir`` (gcc ``flags`` plus -DSVDUMP, pan
    ``pan_args``, spin ``defines`` such as ``N=3``) and read back every stored state.

    ``group`` is the group under test: its model and types are the reading the group action
    uses (module docstring), its elements are what the oracles apply.  Pass the Group, or a
    function that makes it from the Model as this pan checks it (``detect``, or ``lambda m:
    detect(search_context(m, ...))``); without one the space has no GroupAction.

    pan must report no error unless ``allow_errors``; then ``pan_args`` should hold ``-c0``,
    or pan stops at the first error and the state space is incomplete.  With ``-a`` the
    nested search dumps its own copies of states; :func:`svd_records` folds them in, and the
    dump must then hold as many records as pan reports "visited"."""
    model_path, workdir = Path(model_path), Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    model = load_model(model_path, tuple(defines))
    local = workdir / model_path.name
    spin_args: list[str] = []
    if model.spin_text is not None:
        # spin is given the program verify gives it (toolchain.spin_command), whose pan.h the
        # Model describes: a model written with the ref/public extension as desugared, with
        # -o1 (the Model stays the extended one: its refs, its group); proctype copies merged
        # into one proctype (topspin_py/promela/copies.py; its plain counts equal those of the
        # program as written: tests/promela/test_copies.py).
        local.write_text(model.spin_text)
        if model.extended is not None:
            spin_args.append("-o1")
    else:
        shutil.copyfile(model_path, local)
    _run(["spin", *(f"-D{d}" for d in defines), *spin_args, "-a", local.name], workdir)
    pan_c = workdir / "pan.c"
    text = pan_c.read_text(encoding="latin-1")
    if "-DBFS" in flags:
        if text.count(_BFS_STORED) != 1:
            raise OracleError(f"pan.c's store_state() is not as expected ({_BFS_STORED!r})")
        pan_c.write_text(text.replace(_BFS_STORED, _BFS_STORED + _BFS_DUMP), encoding="latin-1")
    # The Model as this pan checks it: whether its pan.m resets dead locals decides whether a
    # permutation may move what 0 names in a local (the same question verify asks).
    model = loading.as_checked_by(model, workdir)
    header = read_pan_h(workdir, flags)
    creations = read_creations(text)
    structs = _vector_structs(header)
    probes = _probes(header)
    probe_c = (_PROBE_C.replace("@BITS@", PROBE_REPORT).replace("@FIELDS@", probe_statements(probes, structs))
               .replace("@LAYOUT_FILE@", LAYOUT_FILE))
    (workdir / PROBE_FILE).write_text(probe_c)
    _run(["gcc", "-O0", "-w", *flags, "-DSVDUMP", "-Wl,--wrap=write", "-o", "pan", PROBE_FILE], workdir)

    _run_pan(workdir, ["-p1", *pan_args], allow_errors)  # learns the largest vsize
    vsize = read_vector_layout((workdir / LAYOUT_FILE).read_text(), probes).vsize
    output = _run_pan(workdir, [f"-p{vsize}", *pan_args], allow_errors)
    pan = read_vector_layout((workdir / LAYOUT_FILE).read_text(), probes)
    if pan.vsize != vsize:
        raise OracleError(f"the largest vsize changed between two identical runs ({vsize}, {pan.vsize})")
    # pan names the dump after PanSource, which spin does not always take verbatim from the file
    # name (accept.pml gives "_accept.pml"): the one .svd file the run left
    dumps = list(workdir.glob("*.svd"))
    if len(dumps) != 1:
        raise OracleError(f"expected one .svd dump in {workdir}, found {len(dumps)}")
    dump = dumps[0].read_bytes()
    if len(dump) % vsize:
        raise OracleError(f"{dumps[0].name} holds {len(dump)} bytes, not a multiple of {vsize}")
    records, nested = svd_records(dump, pan)
    _check_zero_beyond_end(records, pan.state("_vsz"))
    resolved = group(model) if callable(group) else group
    space = StateSpace(model, resolved, header, creations, pan, records, _stored_count(output), tuple(flags),
                       tuple(pan_args))
    dumped = len(dump) // vsize
    # pan dumps every state it stores, the nested search's copies too: "N states, stored
    # (M visited)" when some of those share a hash entry, else just "M states, stored".
    visited = _VISITED.search(output)
    if visited is not None and dumped != int(float(visited.group(1))):
        raise OracleError(f"pan visited {visited.group(1)} states, the dump holds {dumped} records")
    if visited is None and dumped != space.pan_stored:
        raise OracleError(f"pan stored {space.pan_stored} states, the dump holds {dumped} records")
    # Each copy the nested search stores is of a state the first search stored before it.
    if len(records) != dumped - nested:
        raise OracleError(f"the dump holds {dumped} records ({nested} from the nested search), of which "
                          f"{len(records)} differ in the bytes pan stores")
    if resolved is not None:
        _ = space.layout  # the join must hold for the model under test: refuse now, not at the first image
    return space


def svd_records(dump: bytes, pan: VectorLayout) -> tuple[list[bytes], int]:
    """The distinct states of an SVDUMP file, in the order pan first stored them, and how many
    records the nested search wrote.  With ``-a`` the nested (acceptance-cycle) search writes
    the states it stores with ``_a_t`` bit 1 set, and the first search then writes again the
    ones it reaches later: pan reports them as "N states, stored (M visited)", N not quite the
    number of distinct states (the nested search's copies hash apart, ``_a_t |= 16|32``, but
    some share an entry and count as "shadow" states).  The states are the records with
    ``_a_t`` cleared, without repeats."""
    a_t, vsize = pan.state("_a_t"), pan.vsize
    records: dict[bytes, bytes] = {}
    nested = 0
    stored = pan.stored
    for i in range(0, len(dump), vsize):
        record = dump[i:i + vsize]
        assert a_t is not None  # State always has _a_t
        if a_t.read(record, 0):
            nested += 1
            cleared = bytearray(record)
            a_t.write(cleared, 0, 0)
            record = bytes(cleared)
        records.setdefault(bytes(itemgetter(*stored)(record)), record)
    return list(records.values()), nested


def _check_zero_beyond_end(records: list[bytes], vsz: Bits | None) -> None:
    """A state smaller than the largest one (before init has run every process) must be all
    zeros past its own end (``now._vsz``), or its images would move stale bytes around."""
    if vsz is None:  # -DNOVSZ: pan keeps no size in the state
        return
    for record in records:
        end = vsz.read(record, 0)
        if record.count(0, end) != len(record) - end:
            raise OracleError(f"a dumped state of {end} bytes has non-zero bytes past its end")


def _run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=PAN_TIMEOUT_S)
    if done.returncode != 0:
        raise OracleError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def _run_pan(workdir: Path, args: list[str], allow_errors: bool = False) -> str:
    for stale in workdir.glob("*.svd"):
        stale.unlink()
    output = _run(["./pan", *args], workdir)
    if _DEPTH_LIMIT in output:
        raise OracleError("pan hit its depth limit: the state space is incomplete (pass a larger -m)")
    errors = _ERRORS.search(output)
    if errors is None or (int(errors.group(1)) != 0 and not allow_errors):
        raise OracleError(f"pan did not finish a clean search:\n{output}")
    return output


def _stored_count(output: str) -> int:
    match = _STORED.search(output)
    if match is None:
        raise OracleError(f"no 'states, stored' in pan's output:\n{output}")
    return int(float(match.group(1)))


# ------------------------------------------------------------------------------ the action
def renamed(kind: Kind) -> bool:
    """Whether an element renames the values of a place of this kind: pids, channel ids, the
    values of a scalar domain."""
    return kind in (PID, CHAN) or domain_of(kind) is not None


@dataclass(frozen=True)
class _Rename:
    """Replace the value held at ``bits`` of the struct at ``base`` (a pid with ``offset``, a
    channel id, a domain value: ``kind``); for a message field, only when slot ``slot`` of its
    queue (``Qlen`` at ``qlen``) holds a message."""

    bits: Bits
    base: int
    kind: Kind
    qlen: tuple[Bits, int] | None = None
    slot: int = 0
    offset: int = 0  # pids with an offset: the value v names pid v + offset


@dataclass(frozen=True)
class _ElementImage:
    """One group element, compiled to operations on a state vector.  Renames of plain unsigned
    bytes (nearly all: pan stores pids and channel ids as uchar) take a lookup table; bit-fields
    and wider or signed integers take the general path, with their values as C reads them."""

    gather: itemgetter  # image[i] = vector[source[i]]: moves of slots, queues and elements
    kept: tuple[tuple[Bits, int], ...]  # bits (not whole bytes) that stay in place: a queue's _t
    byte_renames: tuple[tuple[int, bytes], ...]  # (position, table)
    message_renames: tuple[tuple[int, int, int, bytes], ...]  # (position, Qlen position, slot, table)
    other_renames: tuple[tuple[_Rename, Callable[[int], int]], ...]

    def apply(self, vector: bytes) -> bytearray:
        image = bytearray(self.gather(vector))
        for bits, base in self.kept:
            bits.write(image, base, bits.read(vector, base))
        for position, table in self.byte_renames:
            image[position] = table[image[position]]
        for position, qlen, slot, table in self.message_renames:
            if slot < image[qlen]:
                image[position] = table[image[position]]
        for rename, function in self.other_renames:
            if rename.qlen is not None and rename.slot >= rename.qlen[0].read(image, rename.qlen[1]):
                continue
            value = rename.bits.read(image, rename.base)
            new = function(value)
            if new != value:
                rename.bits.write(image, rename.base, new)
        return image

    @staticmethod
    def build(source: list[int], kept, renames: Sequence[_Rename], alpha: Alpha, P: tuple[int, ...],
              C: tuple[int, ...]) -> "_ElementImage":
        functions: dict[tuple[Kind, int], Callable[[int], int]] = {}

        def function(kind: Kind, offset: int) -> Callable[[int], int]:
            if (kind, offset) not in functions:
                if kind == PID:
                    # v names pid v + offset; a value that names no pid stays
                    functions[kind, offset] = lambda v: P[v + offset] - offset if 0 <= v + offset < len(P) else v
                elif kind == CHAN:
                    functions[kind, offset] = lambda v: C[v] if 1 <= v < len(C) else v
                else:
                    domain = domain_of(kind)
                    assert domain is not None, kind  # a renamed kind: a scalar domain's
                    functions[kind, offset] = lambda v: alpha.value(domain, v)
            return functions[kind, offset]

        tables: dict[tuple[Kind, int], bytes] = {}

        def table(kind: Kind, offset: int) -> bytes:
            if (kind, offset) not in tables:
                f = function(kind, offset)
                tables[kind, offset] = bytes(f(v) & 0xFF for v in range(256))  # stored as C stores it
            return tables[kind, offset]

        plain, messages, other = [], [], []
        for r in renames:
            position = r.base + r.bits.start
            if r.bits.one_byte and r.qlen is None:
                plain.append((position, table(r.kind, r.offset)))
            elif r.bits.one_byte and r.qlen is not None and r.qlen[0].one_byte:
                messages.append((position, r.qlen[1] + r.qlen[0].start, r.slot, table(r.kind, r.offset)))
            else:
                other.append((r, function(r.kind, r.offset)))
        return _ElementImage(itemgetter(*source), tuple(kept), tuple(plain), tuple(messages), tuple(other))


class GroupAction:
    """The group action of the module docstring's "The group action" on the states of
    ``space``, read as ``space.group`` (its model's declarations, its types) says."""

    def __init__(self, space: StateSpace) -> None:
        if space.group is None:
            raise OracleError("the state space has no group under test: pass explore(group=...)")
        self.space = space
        self.pan = space.pan
        self.layout = space.layout
        self.types = space.group.types
        self.n_pids = max((p.pid for p in self.layout.processes), default=-1) + 1
        self.n_chans = max((c.id for c in self.layout.channels), default=0)
        self._compiled: dict[Alpha, _ElementImage] = {}

    # -------------------------------------------------------------- public
    def image(self, vector: bytes, alpha: Alpha) -> bytearray:
        if alpha not in self._compiled:
            self._compiled[alpha] = self._compile(alpha)
        return self._compiled[alpha].apply(vector)

    def image_key(self, vector: bytes, alpha: Alpha) -> bytes:
        return self.space.key(self.image(vector, alpha))

    # -------------------------------------------------------------- compiling an element
    def _compile(self, alpha: Alpha) -> _ElementImage:
        P = tuple(alpha.pid(p) for p in range(self.n_pids))
        C = (0,) + tuple(alpha.chan(c) for c in range(1, self.n_chans + 1))
        source = list(range(self.pan.vsize))
        kept: list[tuple[Bits, int]] = []
        # 1. processes, queues and channel-named globals move
        moves: list[tuple[int, int, int, Bits | None]] = []
        for process in self.layout.processes:
            target = self._process(P[process.pid])
            if process.struct != target.struct:
                raise OracleError(f"the element maps pid {process.pid} ({process.struct}) to pid "
                                  f"{target.pid} ({target.struct}): no state-vector image")
            moves.append((self.pan.proc_offset[target.slot], self.pan.proc_offset[process.slot],
                          self.pan.sizes[process.struct], None))   # _pid: renamed
        for chan in self.layout.channels:
            target = self._channel(C[chan.id])
            if self._queue_shape(chan) != self._queue_shape(target):
                raise OracleError(f"the element maps channel {chan.id} to channel {target.id}, "
                                  "whose queue has another shape")
            moves.append((self.pan.queue_offset[target.id], self.pan.queue_offset[chan.id],
                          self.pan.sizes[chan.struct], self.pan.bits(target.struct, (("_t", None),))))
            if chan.member is not None and target.id != chan.id:
                if target.member is None:
                    raise OracleError(f"the element maps the global channel {chan.name} to {target.name}, "
                                      "which no global names")
                origin = self.pan.bits("State", *chan.member)
                moves.append((self.pan.bits("State", *target.member).start, origin.start, origin.size, None))
        source = _moved(source, moves, kept)
        # 2. elements of arrays indexed by pid
        source = _moved(source, self._array_moves(P), kept)
        # 4. the slot constants: the destination's own bytes (and not renamed in 3.)
        constants = self._slot_constants(alpha)
        for position in constants:
            source[position] = position
        # 3. renaming of pid and channel values and of values of scalar domains, at their
        # places in the image
        renames = [r for r in self._renames if r.base + r.bits.start not in constants]
        return _ElementImage.build(source, kept, renames, alpha, P, C)

    def _process(self, pid: int):
        try:
            return self.layout.process(pid)
        except KeyError:
            raise OracleError(f"the element maps a process to pid {pid}, which the model does not start") from None

    def _channel(self, channel_id: int) -> Channel:
        try:
            return self.layout.channel(channel_id)
        except KeyError:
            raise OracleError(f"the element maps a channel to id {channel_id}, which the model does not "
                              "create") from None

    def _slot_constants(self, alpha: Alpha) -> set[int]:
        """The positions in ``now`` of the bytes of the parameters kept in their slots."""
        kept = dict(alpha.slot_constants)
        positions: set[int] = set()
        for process in self.layout.processes:
            names = set(kept.get(process.proctype, ()))
            offset = self.pan.proc_offset[process.slot]
            for place in self.layout.places[process.struct]:
                if place.scalar and isinstance(place.slot, LocalSlot) and place.slot.name in names:
                    for indices in every_index(place.steps):
                        bits = self.pan.bits(process.struct, place.steps, indices)
                        if not bits.whole_bytes:
                            raise OracleError(f"{process.struct}.{place.steps[0][0]}: a slot constant that "
                                              "is not whole bytes")
                        positions.update(range(offset + bits.start, offset + bits.start + bits.size))
        return positions

    def _queue_shape(self, chan: Channel) -> tuple:
        """What must agree for a queue to move into another's place: its size, where its length
        is, and where its message fields are with what each holds."""
        struct = chan.struct
        contents = self.space.header.member(struct, "contents")
        capacity = self.layout.capacity[struct]
        fields = []
        for m, slot in zip(contents.members if contents is not None else (), chan.messages):
            steps = (("contents", capacity), (m.name, None))
            fields.append((self.types.kind(slot), self._message_offset(slot), self.pan.bits(struct, steps)))
        return self.pan.sizes[struct], self.pan.bits(struct, (("Qlen", None),)), tuple(fields)

    def _message_offset(self, slot: Slot) -> int:
        return self.types.offset(slot) if self.types.kind(slot) == PID else 0

    def _bases(self) -> list[tuple[str, int, Sequence[Place]]]:
        """(struct, offset in now, places) of State and of every process slot pan holds."""
        found: list[tuple[str, int, Sequence[Place]]] = [("State", 0, self.layout.places["State"])]
        for process in (*self.layout.processes, *self.layout.unnumbered_processes):
            found.append((process.struct, self.pan.proc_offset[process.slot], self.layout.places[process.struct]))
        return found

    def _array_moves(self, P: tuple[int, ...]) -> list:
        moves = []
        # A global channel array holds its own channels' ids for ever: its channels move (step
        # 1 moves their names with them), never its elements as those of an array indexed by pid.
        static = {chan.variable for chan in self.layout.channels if chan.member is not None}
        for struct, base, places in self._bases():
            for place in places:
                if not place.is_array or self.types.index_kind(place.slot) != PID:
                    continue
                if struct == "State" and len(place.steps) == 1 and place.slot in static:
                    continue
                length = place.steps[-1][1]
                assert length is not None  # place.is_array
                k = self.types.index_offset(place.slot)  # element i belongs to pid i + k
                for outer in every_index(place.steps[:-1]):
                    for i in range(length):
                        j = P[i + k] - k if 0 <= i + k < len(P) else i
                        if not 0 <= j < length:
                            raise OracleError(f"{struct}.{place.steps[-1][0]} has {length} elements but the "
                                              f"element moves pid {i + k} to {j + k}")
                        if j != i:
                            start, size = self.pan.element(struct, place.steps, (*outer, i))
                            target, _ = self.pan.element(struct, place.steps, (*outer, j))
                            moves.append((base + target, base + start, size, None))
        return moves

    @cached_property
    def _renames(self) -> list[_Rename]:
        """The places in an image that hold pids, channel ids and domain values (the same for
        every element: processes and queues only trade places with others of their shape)."""
        renames = []
        for struct, base, places in self._bases():
            if struct != "State":
                renames.append(_Rename(self.pan.bits(struct, (("_pid", None),)), base, PID))
            for place in places:
                kind = self.types.kind(place.slot)
                if place.scalar and renamed(kind):
                    offset = self._message_offset(place.slot)
                    renames += [_Rename(self.pan.bits(struct, place.steps, indices), base, kind, offset=offset)
                                for indices in every_index(place.steps)]
        for chan in (*self.layout.channels, *self.layout.unnumbered):
            struct, base = chan.struct, self.pan.queue_offset[chan.id]
            qlen = (self.pan.bits(struct, (("Qlen", None),)), base)
            contents = self.space.header.member(struct, "contents")
            capacity = self.layout.capacity[struct]
            for m, slot in zip(contents.members if contents is not None else (), chan.messages):
                kind = self.types.kind(slot)
                if not renamed(kind):
                    continue
                steps: tuple[Step, ...] = (("contents", capacity), (m.name, None))
                for k in range(capacity):
                    renames.append(_Rename(self.pan.bits(struct, steps, (k,)), base, kind, qlen, k,
                                           self._message_offset(slot)))
        return renames


def _moved(source: list[int], moves, kept: list) -> list[int]:
    """``source`` after copying, for each ``(target, origin, size, stays)``, the bytes at
    ``origin`` to ``target``; the bits ``stays`` (a header field) keep the target's own."""
    result = list(source)
    for target, origin, size, stays in moves:
        result[target:target + size] = source[origin:origin + size]
        if stays is not None:
            if stays.whole_bytes:
                start = target + stays.start
                result[start:start + stays.size] = source[start:start + stays.size]
            else:
                kept.append((stays, target))
    return result


# ------------------------------------------------------------------------------ the oracles
@dataclass(frozen=True)
class Orbits:
    count: int
    canonical: frozenset[bytes]  # the least image of each orbit
    images_computed: int


def count_orbits(space: StateSpace, elements: Sequence[Alpha], existing_only: bool = False) -> Orbits:
    """The number of orbits of the group ``elements`` that meet the reachable states.

    ``existing_only``: a state in which some process or channel does not exist yet (init
    still starting them) is mapped only by the elements that map the existing ones to
    existing ones, as the reduction does (README: states before init has started every
    process); a breadth-first pan stores the states inside init's atomic start-up too."""
    action = GroupAction(space)
    done: set[bytes] = set()
    canonical = set()
    computed = 0
    n_pids = max((p.pid for p in space.layout.processes), default=-1) + 1
    n_chans = max((c.id for c in space.layout.channels), default=0)
    base = space.layout.base
    for record in space.records:
        if space.key(record) in done:
            continue
        applied = elements
        if existing_only:
            nr_pr, nr_qs = space.pan.state("_nr_pr"), space.pan.state("_nr_qs")
            assert nr_pr is not None and nr_qs is not None  # State always has both
            pids = nr_pr.read(record, 0) - base
            chans = nr_qs.read(record, 0)
            if pids < n_pids or chans < n_chans:
                applied = [alpha for alpha in elements
                           if all(alpha.pid(p) < pids for p in range(max(pids, 0)))
                           and all(alpha.chan(c) <= chans for c in range(1, chans + 1))]
        images = {action.image_key(record, alpha) for alpha in applied}
        computed += len(applied)
        canonical.add(min(images))
        done |= images
    return Orbits(len(canonical), frozenset(canonical), computed)


@dataclass(frozen=True)
class Violation:
    """A reachable state whose image under an element is not reachable."""

    state: bytes
    image: bytes


def closure_violations(space: StateSpace, alpha: Alpha, limit: int | None = None) -> list[Violation]:
    """The reachable states that ``alpha`` maps outside the reachable set (at most ``limit``)."""
    action = GroupAction(space)
    found = []
    reachable = space.keys
    for record in space.records:
        image = action.image(record, alpha)
        if space.key(image) not in reachable:
            found.append(Violation(bytes(record), bytes(image)))
            if limit is not None and len(found) >= limit:
                break
    return found

