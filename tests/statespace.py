"""State-space oracles for symmetry reduction, independent of the product's C code.

Why
---
The canonicaliser that topspin-py splices into pan.c is C generated from templates; a bug in
it, in the layout it is generated from, or in symmetry detection shows up as a wrong number of
stored states, which no published count covers for most models.  These helpers compute the
right number another way: let plain SPIN enumerate the *unreduced* state space, read every
state vector it stored, apply the symmetry group to those vectors in Python, and count orbits.
Nothing here uses the product's templates, runtime or generated C; it uses the product's
Python front end only for what the oracle is *about* (the Model, the detected Group, and the
StateLayout's verdicts on which fields hold pids and channel ids).

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
lands there and not beside the model; for a model written with the ref/public extension of
seed 003 its desugared program goes there instead, and spin runs with ``-o1``, as verify runs
it, while the StateSpace keeps the extended Model, whose group is the declared one.)  With
``-a`` the nested search dumps the states it stores too, with ``_a_t & 1`` set; they are
folded into the first search's (:func:`svd_records`).

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
``vsize``, ``Mask``, ``proc_offset`` and ``q_offset`` (and notes it if a later dump of the same
size disagrees: a model whose layout depends on the path taken is refused).  At exit it writes
them to ``oracle_layout.txt`` with, for every struct field we need (named as pan.h names it,
from the StateLayout), the bytes and bits it occupies in its struct: the field is set to all
ones in a zeroed struct and the non-zero bytes are printed.  That works for bitfields too
(``_pid``, ``bool``), whose ``offsetof`` C does not allow.  pan is run twice: once with ``-p1``
to learn the largest ``vsize``, then with ``-p<vsize>``; a record of a state with a smaller
``vsize`` (before ``init`` has run every process) is zero beyond its end.

A state's identity is its *stored bytes*: the bytes of the largest layout that ``Mask`` does
not drop.  :func:`explore` checks that the records are pairwise distinct on those bytes and
that there are as many as pan reports stored, so the projection loses and invents nothing.

The group action (:class:`GroupAction`)
---------------------------------------
An element (pid map P, channel map C; ``Group.alpha``) maps a state to its image:

1. the process of pid p moves to the slot of pid P[p] (slot = pid + BASE, the struct's whole
   ``sizeof``), its ``_pid`` renamed like any pid (step 3): the destination's own, slot - BASE,
   unless a receive into ``_pid`` gave the process another; the queue of channel c moves
   to the place of channel C[c], keeping the destination's ``_t``; a global that a channel
   declaration names (``chan link1 = ...``) moves with its channel, as locals move with their
   process;
2. in every array indexed by pid (globals, and the locals of each process as it now sits),
   element i moves to element P[i]; in an array indexed by pid with an offset k (element i
   belongs to pid i + k: ``flag[_pid - 1]``), element i moves to element P[i + k] - k when
   i + k is a pid, and stays otherwise;
3. every field that holds a pid has a value v in 0..npids-1 replaced by P[v], every field that
   holds a channel id a value c in 1..nchans by C[c]; message fields only in the first
   ``Qlen`` slots of their queue.  A field holding pids with an offset k (its value v names
   pid v + k) has v replaced by P[v + k] - k when v + k is a pid, and kept otherwise (255,
   "nobody").  A field that holds the values of a scalar domain D (types.Domain) has a value
   v of D replaced by its image under the element (``Alpha.value``), any other value kept;
4. the parameters the group keeps in their slots (``Alpha.slot_constants``: each process's are
   constants of its slot) are, in the image, the destination slot's own bytes, unrenamed.

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
from itertools import product
from operator import itemgetter
from pathlib import Path
from typing import Iterable, Sequence

from topspin_py.layout.statevector import StateLayout, ValueField, read_layout, renamed
from topspin_py.pan import toolchain
from topspin_py.promela import Model, load_model
from topspin_py.symmetry.types import CHAN, PID, TypeInfo, domain_of, infer_types
from topspin_py.symmetry.validity import Alpha

LAYOUT_FILE = "oracle_layout.txt"
PROBE_FILE = "oracle_pan.c"
PAN_TIMEOUT_S = 600

# What pan prints at the end of a search (pan.c's wrapup()).
_STORED = re.compile(r"^\s*([\d.e+]+) states, stored", re.M)
_VISITED = re.compile(r"^\s*[\d.e+]+ states, stored \(([\d.e+]+) visited\)", re.M)  # with -a
_ERRORS = re.compile(r"errors: (\d+)")
_DEPTH_LIMIT = "max search depth too small"


class OracleError(Exception):
    """The oracle cannot give an answer for this model (not: the product is wrong)."""


if sys.byteorder != "little":  # Bits reads values as x86 stores them
    raise OracleError("the state-space oracle reads state vectors as little-endian")


# ------------------------------------------------------------------------------ field bits
@dataclass(frozen=True)
class Bits:
    """The bytes and bits one C lvalue occupies, relative to the start of its struct:
    ``(byte offset, bit mask)`` pairs in increasing offset (x86: little-endian, bitfields
    allocated from the low bit)."""

    masks: tuple[tuple[int, int], ...]

    @property
    def start(self) -> int:
        return self.masks[0][0]

    @property
    def size(self) -> int:
        return self.masks[-1][0] - self.start + 1

    @property
    def whole_bytes(self) -> bool:
        """A plain (non-bitfield) object: contiguous bytes, every bit used."""
        return (all(mask == 0xFF for _, mask in self.masks)
                and [offset for offset, _ in self.masks] == list(range(self.start, self.start + self.size)))

    @property
    def one_byte(self) -> bool:
        """A plain one-byte object (uchar: pid, chan, byte, mtype), for the fast path."""
        return self.masks == ((self.start, 0xFF),)

    @cached_property
    def _mask_and_shift(self) -> tuple[int, int]:
        mask = 0
        for offset, bits in self.masks:
            mask |= bits << (8 * (offset - self.start))
        return mask, (mask & -mask).bit_length() - 1

    def read(self, vector: bytes | bytearray, base: int) -> int:
        """The unsigned value of the field of the struct at ``base``."""
        mask, shift = self._mask_and_shift
        word = int.from_bytes(vector[base + self.start:base + self.start + self.size], "little")
        return (word & mask) >> shift

    def write(self, vector: bytearray, base: int, value: int) -> None:
        mask, shift = self._mask_and_shift
        lo, hi = base + self.start, base + self.start + self.size
        word = int.from_bytes(vector[lo:hi], "little")
        word = (word & ~mask) | ((value << shift) & mask)
        vector[lo:hi] = word.to_bytes(self.size, "little")


# ------------------------------------------------------------------------------ the probe
@dataclass(frozen=True)
class Probe:
    """One field to locate: ``struct`` (``State``, ``P0``, ``Q3``) and a C lvalue below it
    (``turn[1]``, ``contents[0].fld1``, ``_pid``)."""

    struct: str
    lvalue: str
    bitfield: bool


# store_state() (-DBFS) counts a new state with these lines, and there the oracle dumps it as
# new_state() does under -DSVDUMP.
_BFS_STORED = "\t#endif\n\t\t\t{\tstatic long sdone = (long) 0; long ndone;\n\t\t\t\tnstates++;\n"
_BFS_DUMP = ("#ifdef SVDUMP\n\t\t\t\tif (vprefix > 0 && write(svfd, (uchar *) &now, vprefix) != vprefix)\n"
             "\t\t\t\t{\tfprintf(efd, \"writing %s.svd failed\\n\", PanSource); wrapup();\n\t\t\t\t}\n#endif\n")

_PROBE_C = r"""/* State-space oracle probe (tests/statespace.py): pan.c unchanged, plus a wrapper of
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
		if (proc_offset[i] != oracle_proc[i]) return 0;
	for (i = 0; i < oracle_nr_qs; i++)
		if (q_offset[i] != oracle_queue[i]) return 0;
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
	for (i = 0; i < oracle_nr_pr; i++) oracle_proc[i] = proc_offset[i];
	for (i = 0; i < oracle_nr_qs; i++) oracle_queue[i] = q_offset[i];
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

static void
oracle_bits(FILE *out, int index, const void *object, size_t size)
{	const uchar *bytes = (const uchar *) object;
	size_t i;
	fprintf(out, "field %d", index);
	for (i = 0; i < size; i++)
		if (bytes[i]) fprintf(out, " %lu:%u", (unsigned long) i, (unsigned) bytes[i]);
	fprintf(out, "\n");
}

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
	fprintf(out, "vsize %lu\nconsistent %d\nmask ", (unsigned long) oracle_vsize, oracle_consistent);
	for (i = 0; i < (int) oracle_vsize; i++) fputc('0' + oracle_mask[i], out);
	fprintf(out, "\n");
	for (i = 0; i < oracle_nr_pr; i++) fprintf(out, "proc %d %d\n", i, oracle_proc[i]);
	for (i = 0; i < oracle_nr_qs; i++) fprintf(out, "queue %d %d\n", i + 1, oracle_queue[i]);
	oracle_fields(out);
	fclose(out);
}

__attribute__((constructor)) static void
oracle_register(void)
{	atexit(oracle_report);
}
"""


def _probe_statements(probes: Sequence[Probe], sizes: Iterable[str]) -> str:
    lines = []
    for name in sizes:
        lines.append(f'\tfprintf(out, "size {name} %lu\\n", (unsigned long) sizeof({name}));')
    for index, probe in enumerate(probes):
        fill = (f"x.{probe.lvalue} = ~0;" if probe.bitfield
                else f"memset(&x.{probe.lvalue}, 0xff, sizeof(x.{probe.lvalue}));")
        lines.append(f"\t{{\t{probe.struct} x;\n\t\tmemset(&x, 0, sizeof x);\n\t\t{fill}\n"
                     f"\t\toracle_bits(out, {index}, &x, sizeof x);\n\t}}")
    return "\n".join(lines)


_VSZ = Probe("State", "_vsz", False)
_NR_PR = Probe("State", "_nr_pr", False)   # how many processes run (masked out, in the dump)
_NR_QS = Probe("State", "_nr_qs", False)   # how many channels exist (masked out, in the dump)
_A_T = Probe("State", "_a_t", False)       # & 1: in the nested (acceptance-cycle) search


@dataclass(frozen=True)
class PanLayout:
    """What the probe reports: the largest state's size, the bytes pan stores, where each
    process slot and queue begins, struct sizes, and the bits of each probed field."""

    vsize: int
    stored: tuple[int, ...]  # byte indices Mask keeps, increasing
    proc_offset: dict[int, int]  # slot -> offset in now
    queue_offset: dict[int, int]  # channel id -> offset in now
    sizes: dict[str, int]
    fields: dict[Probe, Bits]


def _read_pan_layout(text: str, probes: Sequence[Probe]) -> PanLayout:
    vsize, consistent, mask = 0, False, ""
    procs, queues, sizes, bits = {}, {}, {}, {}
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        if word == "vsize":
            vsize = int(rest)
        elif word == "consistent":
            consistent = rest == "1"
        elif word == "mask":
            mask = rest
        elif word == "proc":
            slot, offset = map(int, rest.split())
            procs[slot] = offset
        elif word == "queue":
            channel, offset = map(int, rest.split())
            queues[channel] = offset
        elif word == "size":
            name, size = rest.split()
            sizes[name] = int(size)
        elif word == "field":
            index, *pairs = rest.split()
            masks = tuple((int(o), int(m)) for o, m in (pair.split(":") for pair in pairs))
            if not masks:
                raise OracleError(f"the probe found no bytes for {probes[int(index)]}")
            bits[probes[int(index)]] = Bits(masks)
    if not consistent:
        raise OracleError("pan's layout (offsets or Mask) differs between states of the same size")
    if vsize == 0 or len(mask) != vsize:
        raise OracleError("the probe reported no state vector (did pan dump any state?)")
    stored = tuple(i for i, m in enumerate(mask) if m == "0")
    return PanLayout(vsize, stored, procs, queues, sizes, bits)


# ------------------------------------------------------------------------------ the state space
@dataclass
class StateSpace:
    """The unreduced state space of a model, as plain pan stored it."""

    model: Model
    layout: StateLayout
    pan: PanLayout
    records: list[bytes]  # one raw state vector per stored state, pan.vsize bytes each
    pan_stored: int  # pan's own "states, stored"
    flags: tuple[str, ...]
    pan_args: tuple[str, ...]
    _keys: dict[bytes, int] | None = field(default=None, repr=False)

    def process_counts(self) -> set[int]:
        """The values of ``_nr_pr`` (processes running, the claim's included) that stored
        states have."""
        bits = self.pan.fields[_NR_PR]
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
            reading: tuple[Model, TypeInfo] | None = None) -> StateSpace:
    """Run plain SPIN on ``model_path`` in ``workdir`` (gcc ``flags`` plus -DSVDUMP, pan
    ``pan_args``, spin ``defines`` such as ``N=3``) and read back every stored state.

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
        # program as written: tests/test_copies.py).
        local.write_text(model.spin_text)
        if model.extended is not None:
            spin_args.append("-o1")
    else:
        shutil.copyfile(model_path, local)
    _run(["spin", *(f"-D{d}" for d in defines), *spin_args, "-a", local.name], workdir)
    if "-DBFS" in flags:
        pan_c = workdir / "pan.c"
        text = pan_c.read_text(encoding="latin-1")
        if text.count(_BFS_STORED) != 1:
            raise OracleError(f"pan.c's store_state() is not as expected ({_BFS_STORED!r})")
        pan_c.write_text(text.replace(_BFS_STORED, _BFS_STORED + _BFS_DUMP), encoding="latin-1")
    # The Model as this pan checks it: whether its pan.m resets dead locals decides whether a
    # permutation may move what 0 names in a local (the same question verify asks).
    model = toolchain.as_checked_by(model, workdir)
    # Which fields hold pids, channel ids and domain values: the reading of the symmetry
    # under test (Group.model and Group.types: the search's model, as verify reads it), or,
    # without one, the model with every claim.
    read_model, types = reading if reading is not None else (model, infer_types(model))
    layout = read_layout(workdir, read_model, types, flags=list(flags))
    probes = _probes(layout)
    sizes = sorted({p.struct for p in layout.processes} | {c.struct for c in layout.channels})
    probe_c = _PROBE_C.replace("@FIELDS@", _probe_statements(probes, sizes))
    (workdir / PROBE_FILE).write_text(probe_c.replace("@LAYOUT_FILE@", LAYOUT_FILE))
    _run(["gcc", "-O0", "-w", *flags, "-DSVDUMP", "-Wl,--wrap=write", "-o", "pan", PROBE_FILE], workdir)

    _run_pan(workdir, ["-p1", *pan_args], allow_errors)  # learns the largest vsize
    vsize = _read_pan_layout((workdir / LAYOUT_FILE).read_text(), probes).vsize
    output = _run_pan(workdir, [f"-p{vsize}", *pan_args], allow_errors)
    pan = _read_pan_layout((workdir / LAYOUT_FILE).read_text(), probes)
    if pan.vsize != vsize:
        raise OracleError(f"the largest vsize changed between two identical runs ({vsize}, {pan.vsize})")
    dump = (workdir / f"{local.name}.svd").read_bytes()
    if len(dump) % vsize:
        raise OracleError(f"{local.name}.svd holds {len(dump)} bytes, not a multiple of {vsize}")
    records, nested = svd_records(dump, pan)
    _check_zero_beyond_end(records, pan.fields.get(_VSZ))
    space = StateSpace(model, layout, pan, records, _stored_count(output), tuple(flags), tuple(pan_args))
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
    return space


def svd_records(dump: bytes, pan: PanLayout) -> tuple[list[bytes], int]:
    """The distinct states of an SVDUMP file, in the order pan first stored them, and how many
    records the nested search wrote.  With ``-a`` the nested (acceptance-cycle) search writes
    the states it stores with ``_a_t`` bit 1 set, and the first search then writes again the
    ones it reaches later: pan reports them as "N states, stored (M visited)", N not quite the
    number of distinct states (the nested search's copies hash apart, ``_a_t |= 16|32``, but
    some share an entry and count as "shadow" states).  The states are the records with
    ``_a_t`` cleared, without repeats."""
    a_t, vsize = pan.fields[_A_T], pan.vsize
    records: dict[bytes, bytes] = {}
    nested = 0
    stored = pan.stored
    for i in range(0, len(dump), vsize):
        record = dump[i:i + vsize]
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


# ------------------------------------------------------------------------------ which fields
def _probes(layout: StateLayout) -> list[Probe]:
    """Every field the group action reads or writes, as pan.h names it, and ``_vsz``,
    ``_nr_pr``, ``_nr_qs`` and ``_a_t``."""
    probes = ([_VSZ] if layout.header.state.has("_vsz") else []) + [_NR_PR, _NR_QS, _A_T]
    for struct in sorted({p.struct for p in layout.processes}):
        probes.append(Probe(struct, "_pid", layout.struct(struct).field("_pid").is_bitfield))
    for struct in sorted({c.struct for c in layout.channels}):
        for name in ("Qlen", "_t"):
            probes.append(Probe(struct, name, layout.struct(struct).field(name).is_bitfield))
        for f in layout.channel_types[struct].message:
            probes.extend(_element_probes(struct, f))
    for f in layout.state_fields:
        probes.extend(_element_probes("State", f))
    for chan in _global_channel_names(layout).values():
        probes.append(Probe("State", chan, False))
    for struct, fields in _local_fields(layout).items():
        for f in fields:
            probes.extend(_element_probes(struct, f))
    return list(dict.fromkeys(probes))


def _element_probes(struct: str, f: ValueField) -> list[Probe]:
    return [Probe(struct, lvalue, f.bitfield and f.array is None) for lvalue in f.lvalues("")]


def _local_fields(layout: StateLayout) -> dict[str, tuple[ValueField, ...]]:
    """The locals that matter, by process struct."""
    return {layout.proctypes[p.proctype].struct: layout.proctypes[p.proctype].fields
            for p in layout.processes}


def _global_channel_names(layout: StateLayout) -> dict[int, str]:
    """Channel id -> the State member its declaration initialises (``link1``, ``q[2]``)."""
    names = {}
    for chan in layout.channels:
        ctype = layout.channel_types[chan.struct]
        if chan.owner_pid is None and ctype.declared_in == "State":
            names[chan.id] = ctype.member
    return names


# ------------------------------------------------------------------------------ the action
@dataclass(frozen=True)
class _Rename:
    """Replace a pid (or channel id) held at ``bits`` of the struct at ``base``; for a message
    field, only when slot ``slot`` of its queue (``Qlen`` at ``qlen``) holds a message."""

    bits: Bits
    base: int
    kind: str
    qlen: tuple[Bits, int] | None = None
    slot: int = 0
    offset: int = 0  # pids with an offset: the value v names pid v + offset


@dataclass(frozen=True)
class _ElementImage:
    """One group element, compiled to operations on a state vector.  Renames of plain bytes
    (nearly all: pan stores pids and channel ids as uchar) take a lookup table; bitfields and
    wider integers take the general path."""

    gather: itemgetter  # image[i] = vector[source[i]]: moves of slots, queues and elements
    kept: tuple[tuple[Bits, int], ...]  # bits (not whole bytes) that stay in place: a queue's _t
    byte_renames: tuple[tuple[int, bytes], ...]  # (position, table)
    message_renames: tuple[tuple[int, int, int, bytes], ...]  # (position, Qlen position, slot, table)
    other_renames: tuple[_Rename, ...]
    tables: dict[tuple[str, int], bytes]  # (PID, offset), (CHAN, 0) -> image of every byte value

    def apply(self, vector: bytes) -> bytearray:
        image = bytearray(self.gather(vector))
        for bits, base in self.kept:
            bits.write(image, base, bits.read(vector, base))
        for position, table in self.byte_renames:
            image[position] = table[image[position]]
        for position, qlen, slot, table in self.message_renames:
            if slot < image[qlen]:
                image[position] = table[image[position]]
        for rename in self.other_renames:
            if rename.qlen is not None and rename.slot >= rename.qlen[0].read(image, rename.qlen[1]):
                continue
            value = rename.bits.read(image, rename.base)
            if value < 256:
                rename.bits.write(image, rename.base, self.tables[rename.kind, rename.offset][value])
        return image

    @staticmethod
    def build(source: list[int], kept, renames: Sequence[_Rename], P: tuple[int, ...],
              C: tuple[int, ...], values: dict[str, bytes] | None = None) -> "_ElementImage":
        tables = {(CHAN, 0): bytes(C[v] if 1 <= v < len(C) else v for v in range(256))}
        for k in {0} | {r.offset for r in renames if r.kind == PID}:
            # v names pid v + k; a value that names no pid stays
            tables[PID, k] = bytes((P[v + k] - k) % 256 if 0 <= v + k < len(P) else v for v in range(256))
        for r in renames:
            domain = domain_of(r.kind)
            if domain is not None:
                # the values of a domain the element does not move stay
                tables[r.kind, 0] = (values or {}).get(domain, bytes(range(256)))
        plain, messages, other = [], [], []
        for r in renames:
            position = r.base + r.bits.start
            if r.bits.one_byte and r.qlen is None:
                plain.append((position, tables[r.kind, r.offset]))
            elif r.bits.one_byte and r.qlen[0].one_byte:
                messages.append((position, r.qlen[1] + r.qlen[0].start, r.slot, tables[r.kind, r.offset]))
            else:
                other.append(r)
        return _ElementImage(itemgetter(*source), tuple(kept), tuple(plain), tuple(messages),
                             tuple(other), tables)


class GroupAction:
    """The group action of module docstring's "The group action" on the states of ``space``."""

    def __init__(self, space: StateSpace) -> None:
        self.space = space
        self.layout = space.layout
        self.pan = space.pan
        self.n_pids = max((p.pid for p in self.layout.processes), default=-1) + 1
        self.n_chans = max((c.id for c in self.layout.channels), default=0)
        self._fields = {(probe.struct, probe.lvalue): bits for probe, bits in self.pan.fields.items()}
        self._compiled: dict[Alpha, _ElementImage] = {}

    # -------------------------------------------------------------- public
    def image(self, vector: bytes, alpha: Alpha) -> bytearray:
        if alpha not in self._compiled:
            self._compiled[alpha] = self._compile(alpha)
        return self._compiled[alpha].apply(vector)

    def image_key(self, vector: bytes, alpha: Alpha) -> bytes:
        return self.space.key(self.image(vector, alpha))

    # -------------------------------------------------------------- compiling an element
    def _bits(self, struct: str, lvalue: str) -> Bits:
        try:
            return self._fields[struct, lvalue]
        except KeyError:
            raise OracleError(f"no probe for {struct}.{lvalue}") from None

    def _slot(self, pid: int) -> tuple[str, int]:
        """The struct and the offset in ``now`` of the process of ``pid``."""
        process = self.layout.process(pid)
        if process.slot not in self.pan.proc_offset:
            raise OracleError(f"pan never had a process in slot {process.slot} (pid {pid})")
        return process.struct, self.pan.proc_offset[process.slot]

    def _queue(self, channel: int) -> tuple[str, int]:
        struct = self.layout.channel(channel).struct
        if channel not in self.pan.queue_offset:
            raise OracleError(f"pan never created channel {channel}")
        return struct, self.pan.queue_offset[channel]

    def _compile(self, alpha: Alpha) -> _ElementImage:
        P = tuple(alpha.pid(p) for p in range(self.n_pids))
        C = (0,) + tuple(alpha.chan(c) for c in range(1, self.n_chans + 1))
        source = list(range(self.pan.vsize))
        kept: list[tuple[Bits, int]] = []
        # 1. processes, queues and channel-named globals move
        moves = []
        for process in self.layout.processes:
            (struct, origin), (target_struct, target) = self._slot(process.pid), self._slot(P[process.pid])
            if struct != target_struct:
                raise OracleError(f"the element maps pid {process.pid} ({struct}) to pid "
                                  f"{P[process.pid]} ({target_struct}): no state-vector image")
            moves.append((target, origin, self.pan.sizes[struct], None))   # _pid: renamed
        for chan in self.layout.channels:
            (struct, origin), (target_struct, target) = self._queue(chan.id), self._queue(C[chan.id])
            if self._queue_shape(struct) != self._queue_shape(target_struct):
                raise OracleError(f"the element maps channel {chan.id} to channel {C[chan.id]}, "
                                  "whose queue has another shape")
            moves.append((target, origin, self.pan.sizes[struct], self._bits(target_struct, "_t")))
        names = _global_channel_names(self.layout)
        for chan_id, member in names.items():
            if C[chan_id] != chan_id and C[chan_id] in names:
                moves.append((self._bits("State", names[C[chan_id]]).start,
                              self._bits("State", member).start, self._bits("State", member).size, None))
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
        values = {domain: bytes(alpha.value(domain, v) for v in range(256))
                  for domain in {d for (d, _v), _image in alpha.values}}
        return _ElementImage.build(source, kept, renames, P, C, values)

    def _slot_constants(self, alpha: Alpha) -> set[int]:
        """The positions in ``now`` of the bytes of the parameters kept in their slots."""
        kept = dict(alpha.slot_constants)
        positions: set[int] = set()
        for process in self.layout.processes:
            for name in kept.get(process.proctype, ()):
                struct, offset = self._slot(process.pid)
                bits = self._bits(struct, name)
                if not bits.whole_bytes:
                    raise OracleError(f"{struct}.{name}: a slot constant that is not whole bytes")
                positions.update(range(offset + bits.start, offset + bits.start + bits.size))
        return positions

    def _queue_shape(self, struct: str) -> tuple:
        """What must agree for a queue to move into another's place: its size, and where its
        length and its pid and channel message fields are."""
        fields = [(f.holds, self._bits(struct, lvalue))
                  for f in self.layout.channel_types[struct].value_fields for lvalue in f.lvalues("")]
        return self.pan.sizes[struct], self._bits(struct, "Qlen"), fields

    def _array_moves(self, P: tuple[int, ...]) -> list:
        moves = []
        # A global channel array holds its own channels' ids for ever: its channels move (step
        # 1 of image_key moves their names with them), never its elements as those of an array
        # indexed by pid.
        static = {member.split("[")[0] for member in _global_channel_names(self.layout).values()}
        places = [("State", 0, f) for f in self.layout.state_fields if f.pid_indexed and f.path[0].name not in static]
        for process in self.layout.processes:
            struct, offset = self._slot(process.pid)
            places += [(struct, offset, f) for f in self.layout.proctypes[process.proctype].fields
                       if f.pid_indexed]
        for struct, base, f in places:
            outer = [range(m.length) for m in f.path[:-1] if m.length is not None]
            length = f.array.length
            k = f.index_offset  # element i belongs to pid i + k
            for indices in product(*outer):
                for i in range(length):
                    j = P[i + k] - k if 0 <= i + k < len(P) else i
                    if not 0 <= j < length:
                        raise OracleError(f"{struct}.{f.name} has {length} elements but the element "
                                          f"moves pid {i} to {j}")
                    if j != i:
                        origin = self._bits(struct, f.lvalue("", (*indices, i)))
                        target = self._bits(struct, f.lvalue("", (*indices, j)))
                        if not (origin.whole_bytes and target.whole_bytes):
                            raise OracleError(f"{struct}.{f.name}: array elements are not whole bytes")
                        moves.append((base + target.start, base + origin.start, origin.size, None))
        return moves

    @cached_property
    def _renames(self) -> list[_Rename]:
        """The places in an image that hold pids and channel ids (the same for every element:
        processes and queues only trade places with others of their shape)."""
        renames = []
        for f in self.layout.state_fields:
            if renamed(f.holds):
                renames += [_Rename(self._bits("State", lv), 0, f.holds, offset=f.offset) for lv in f.lvalues("")]
        for process in self.layout.processes:
            struct, offset = self._slot(process.pid)
            renames.append(_Rename(self._bits(struct, "_pid"), offset, PID))
            for f in self.layout.proctypes[process.proctype].fields:
                if renamed(f.holds):
                    renames += [_Rename(self._bits(struct, lv), offset, f.holds, offset=f.offset)
                                for lv in f.lvalues("")]
        for chan in self.layout.channels:
            struct, offset = self._queue(chan.id)
            qlen = (self._bits(struct, "Qlen"), offset)
            for f in self.layout.channel_types[struct].value_fields:
                for slot in range(f.path[0].length):
                    renames.append(_Rename(self._bits(struct, f.lvalue("", (slot,))), offset,
                                           f.holds, qlen, slot, f.offset))
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
            pids = space.pan.fields[_NR_PR].read(record, 0) - base
            chans = space.pan.fields[_NR_QS].read(record, 0)
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

