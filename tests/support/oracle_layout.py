"""The state-space oracles' own reading of pan's state vector: where each Promela variable,
process, queue and message field sits in ``now``, and how wide and how signed it is.

Why
---
The product joins the model with pan.h in topspin_py/layout (the StateLayout), and its
canonicaliser is generated from that join.  An oracle that located pids through the same join
would apply the same wrong action as the product wherever the join is wrong, and its orbit count
would agree with the wrong reduced count.  This module makes the join again, from pan's own
description of the state vector and the model's declarations, sharing no code with
topspin_py/layout; what the symmetry under test reads into each place (a pid, a channel id, a
domain value, an array indexed by pid) is then the group's own TypeInfo, asked by the slot of
each place (tests/support/statespace.py, :class:`GroupAction`).

Where the facts come from
-------------------------
* The structs: pan.h, preprocessed with gcc and the verifier's -D/-U flags (``#ifdef HAS_LAST``,
  ``BASE`` and the claim structs depend on them) and parsed whole with pycparser
  (:func:`read_pan_h`): ``State``, one ``Pk`` per proctype and claim, one ``Qk`` per channel
  declaration (an array of channels has one per element), the user structs of typedefs (by
  tag), and the variables pan.h declares at file scope (SPIN's hidden globals, outside
  ``now``).  Only names, nesting, array lengths, which members are bit-fields or pointers and
  which are integers at all (a c_state member of a c_decl type is never read) are taken from
  the text.
* Where each member is, its width and its signedness: gcc, through the probe that
  tests/support/statespace.py compiles with pan.c.  For every scalar member (array indices 0) the
  probe sets the member to all ones in a zeroed struct and prints the bytes and bits that
  changed (bit-fields included, whose ``offsetof`` C refuses), and whether the member then
  compares below 0: ``short`` and ``int`` are signed, ``uchar`` and ``unsigned x : N`` are not.
  For every array member it prints the bytes of element 0, whose size is the stride.
* Which ``Pk`` each slot of ``now`` holds and which ``Qk`` each channel: the probe reads them
  from pan's running state at the largest state vector (each process's ``_t``, each queue's
  ``_t``), with pan's ``procname[]`` (``_t`` k is struct ``Pk`` and proctype ``procname[k]``)
  and ``BASE`` (process pid p lives in slot p + BASE; slot 0 is the claim when BASE is 1).
* Which static channel has which id: pan.c creates the global channels in ``iniglobals()``
  (``now.q[1] = addqueue(calling_pid, k, rv)``) and each process's local channels in
  ``addproc()`` (``((Pk *)pptr(h))->r = addqueue(...)``), and addqueue hands out ids in the
  order of the calls: the globals' in text order, then each process's, in the order of the
  slots.  :func:`read_creations` reads those calls; the ids they give must be the model's
  (Model.channels), and the queue type each call names must be the ``_t`` pan's running queue
  of that id has.
* The model's declarations (topspin_py.promela.Model: globals, locals by proctype, typedefs,
  processes with pids, static channels with ids and owners): what the oracle is about.  A
  local declared in a nested block is ``_6_3_y`` in pan.h (SPIN's scope prefix); a message
  field of a typedef type is one ``fldN`` per scalar of the typedef, in declaration order
  (arrays element by element, typedefs inside typedefs flattened too).

Every model variable must be a member of ``State`` or of its proctype's ``Pk``, or a hidden
global; every process a slot of its proctype's struct; every static channel a creation with the
model's id: a mismatch is an OracleError (the oracle cannot read the state), never a guess.
Members of ``State`` that hold no model variable are pan's own (``_nr_pr``, ``_vsz`` ...; of
them only ``_last``, the pid of the last process that moved, holds a pid: LAST_SLOT) or
embedded C's.  Processes and queues pan creates beyond the model's (a run the model cannot
follow) are listed apart (``unnumbered_processes``, ``unnumbered``), after the model's ids.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from functools import cached_property
from itertools import product
from pathlib import Path
from typing import Iterator, Sequence

from pycparser import c_ast, c_parser

from topspin_py.promela import Model, ast
from topspin_py.promela.model import INIT, plain_type
from topspin_py.symmetry.kinds import LAST_SLOT, FieldSlot, GlobalSlot, LocalSlot, MessageSlot, Slot, slot_name

# Members of every Pk that are pan's own: the pid, the proctype, the program counter.
PK_HEADER = frozenset({"_pid", "_t", "_p", "_priority"})
# Members the probe never touches: pan's process and channel area and pointers into memory.
UNPROBED = frozenset({"sv", "_ids_"})
# Type names whose objects are plain integers (pan.c typedefs uchar, ushort, uint, ulong).
_INTEGER_WORDS = frozenset({"char", "short", "int", "long", "signed", "unsigned", "uchar", "ushort", "uint",
                            "ulong", "_Bool"})
_PRELUDE_TYPES = ("uchar", "ushort", "uint", "ulong", "FILE")


class OracleError(Exception):
    """The oracle cannot give an answer for this model (not: the product is wrong)."""


class LayoutMismatch(OracleError):
    """pan's state vector and the model do not fit together as this module reads them."""


Step = tuple[str, "int | None"]  # a member name and, when it is an array, its length


def lvalue(steps: Sequence[Step], indices: Sequence[int] | None = None) -> str:
    """``recs[2].who``: the C spelling of ``steps`` with one index per array step (0 when
    ``indices`` is None)."""
    parts, rest = [], list(indices) if indices is not None else None
    for name, length in steps:
        if length is None:
            parts.append(name)
        else:
            parts.append(f"{name}[{rest.pop(0) if rest is not None else 0}]")
    return ".".join(parts)


def array_ranges(steps: Sequence[Step]) -> list[range]:
    return [range(length) for _, length in steps if length is not None]


# ------------------------------------------------------------------------------ pan.h
@dataclass(frozen=True)
class CMember:
    """A member of a struct of pan.h: its type words (``uchar``, ``unsigned``, ``short``,
    ``struct Rec``; ``struct`` for the anonymous struct of a queue's messages), array lengths
    (None where pan.h's length is no constant: c_state memory), bit-field width, whether it is a
    pointer, and the members of an anonymous struct."""

    name: str
    type_words: tuple[str, ...]
    dims: tuple[int | None, ...] = ()
    bits: int | None = None
    pointer: bool = False
    members: tuple["CMember", ...] = ()

    @property
    def tag(self) -> str | None:
        if len(self.type_words) == 2 and self.type_words[0] == "struct":
            return self.type_words[1]
        return None

    @property
    def integer(self) -> bool:
        return not self.pointer and bool(self.type_words) and set(self.type_words) <= _INTEGER_WORDS


@dataclass(frozen=True)
class PanHeader:
    """The structs of pan.h under one set of flags: ``State``, ``Pk``, ``Qk`` by name, user
    structs by tag; and the variables declared at file scope (the hidden globals)."""

    structs: dict[str, tuple[CMember, ...]]
    file_scope: frozenset[str]

    def members(self, struct: str) -> tuple[CMember, ...]:
        try:
            return self.structs[struct]
        except KeyError:
            raise LayoutMismatch(f"pan.h has no struct {struct}") from None

    def member(self, struct: str, name: str) -> CMember | None:
        return next((m for m in self.members(struct) if m.name == name), None)


def read_pan_h(workdir: Path, flags: Sequence[str]) -> PanHeader:
    """pan.h in ``workdir`` as gcc preprocesses it under the -D/-U ``flags``, parsed with
    pycparser.  A type name pan.h uses but does not declare (``FILE``, a c_decl type in a
    c_state member) is declared ``int`` for the parse: such members are never probed."""
    macros = [f for f in flags if f.startswith(("-D", "-U"))]
    done = subprocess.run(["gcc", "-E", "-P", "-x", "c", *macros, "pan.h"], cwd=workdir, capture_output=True,
                          text=True, errors="replace")
    if done.returncode != 0:
        raise LayoutMismatch(f"gcc -E rejects pan.h:\n{done.stderr}")
    # c_state members have the model's c_decl types (``Coord pos;``), which pan.h does not declare
    declared = list(dict.fromkeys([*_PRELUDE_TYPES, *_undeclared_types(done.stdout)]))
    for _ in range(50):
        prelude = "".join(f"typedef int {name};\n" for name in declared)
        try:
            tree = c_parser.CParser().parse(prelude + done.stdout, "pan.h")
            break
        except c_parser.ParseError as error:
            unknown = _unknown_type(str(error), done.stdout, prelude.count("\n"))
            if unknown is None or unknown in declared:
                raise LayoutMismatch(f"pycparser cannot parse pan.h: {error}") from None
            declared.append(unknown)
    else:
        raise LayoutMismatch("pycparser cannot parse pan.h: too many undeclared type names")
    structs: dict[str, tuple[CMember, ...]] = {}
    file_scope = set()
    for ext in tree.ext:
        node = ext.type.type if isinstance(ext.type, c_ast.TypeDecl) else ext.type
        if isinstance(node, c_ast.Struct) and node.decls is not None:
            members = tuple(_member(d) for d in node.decls if isinstance(d, c_ast.Decl))
            if node.name is not None:
                structs[node.name] = members
            if isinstance(ext, c_ast.Typedef):
                structs[ext.name] = members
        elif (isinstance(ext, c_ast.Decl) and ext.name is not None and "extern" not in ext.storage
              and not isinstance(ext.type, c_ast.FuncDecl)):
            file_scope.add(ext.name)
    return PanHeader(structs, frozenset(file_scope))


_C_WORDS = frozenset("""
    void char short int long float double signed unsigned _Bool _Complex struct union enum const volatile
    restrict static extern register auto typedef inline return sizeof if else for while do switch case
    default break continue goto
""".split())


def _undeclared_types(text: str) -> list[str]:
    """Names that start a declaration (``Coord pos;`` after ``{`` or ``;``) but that neither C
    nor a typedef of the text declares."""
    typedefs = set(re.findall(r"\btypedef\b[^;{]*?(\w+)\s*;", text))
    typedefs |= set(re.findall(r"}\s*(\w+)\s*;", text))
    starts = re.findall(r"(?<=[{;])\s*([A-Za-z_]\w*)[\s*]+[A-Za-z_]\w*\s*[;\[]", text)
    return [name for name in dict.fromkeys(starts) if name not in _C_WORDS and name not in typedefs]


def _unknown_type(message: str, text: str, shift: int) -> str | None:
    """The identifier just before where pycparser stopped (``FILE`` in ``usage(FILE *)``)."""
    where = re.match(r"[^:]*:(\d+):(\d+)", message)
    if where is None:
        return None
    line, column = int(where.group(1)) - shift, int(where.group(2))
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return None
    before = re.findall(r"[A-Za-z_]\w*", lines[line - 1][:column - 1])
    return before[-1] if before else None


def _member(decl: c_ast.Decl) -> CMember:
    node, dims, pointer = decl.type, [], False
    while isinstance(node, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        if isinstance(node, c_ast.ArrayDecl):
            dims.append(_constant(node.dim))
        else:
            pointer = True
        node = node.type
    inner = node.type if isinstance(node, c_ast.TypeDecl) else node
    members: tuple[CMember, ...] = ()
    if isinstance(inner, c_ast.Struct):
        words: tuple[str, ...] = ("struct", inner.name) if inner.name else ("struct",)
        if inner.name is None and inner.decls is not None:
            members = tuple(_member(d) for d in inner.decls if isinstance(d, c_ast.Decl))
    elif isinstance(inner, c_ast.IdentifierType):
        words = tuple(inner.names)
    else:
        words = (type(inner).__name__,)
    bits = _constant(decl.bitsize) if decl.bitsize is not None else None
    return CMember(decl.name, words, tuple(dims), bits, pointer, members)


def _constant(node) -> int | None:
    if isinstance(node, c_ast.Constant) and node.type == "int":
        return int(node.value.rstrip("uUlL"), 0)
    if isinstance(node, c_ast.BinaryOp):
        left, right = _constant(node.left), _constant(node.right)
        if left is not None and right is not None and node.op in "+-*":
            return {"+": left + right, "-": left - right, "*": left * right}[node.op]
    return None


# ------------------------------------------------------------------------------ pan.c
@dataclass(frozen=True)
class Creation:
    """``now.q[1] = addqueue(calling_pid, 3, 0)`` (struct ``State``) or ``((P0 *)pptr(h))->r =
    addqueue(...)`` (struct ``P0``): where the new channel's id is stored, and its queue type."""

    struct: str
    member: str
    qtype: int


_GLOBAL_CREATION = re.compile(r"^\s*now\.([\w.\[\]]+) = addqueue\(calling_pid, (\d+), \d+\);$", re.M)
_LOCAL_CREATION = re.compile(r"^\s*\(\((P\d+) \*\)pptr\(h\)\)->([\w.\[\]]+) = addqueue\(calling_pid, (\d+), \d+\);$",
                             re.M)
_ANY_CREATION = re.compile(r"= addqueue\(")


def read_creations(pan_c: str) -> tuple[tuple[Creation, ...], dict[str, tuple[Creation, ...]]]:
    """The global channels pan.c creates, in the order ``iniglobals()`` creates them, and each
    proctype struct's local channels, in the order ``addproc()`` creates them."""
    globals_ = _body(pan_c, "iniglobals(int calling_pid)")
    procs = _body(pan_c, "addproc(int calling_pid, int priority, int n")
    made = [Creation("State", m.group(1), int(m.group(2))) for m in _GLOBAL_CREATION.finditer(globals_)]
    local: dict[str, list[Creation]] = {}
    for m in _LOCAL_CREATION.finditer(procs):
        local.setdefault(m.group(1), []).append(Creation(m.group(1), m.group(2), int(m.group(3))))
    found = len(made) + sum(len(c) for c in local.values())
    calls = len(_ANY_CREATION.findall(pan_c))
    if calls != found:
        raise LayoutMismatch(f"pan.c calls addqueue {calls} times, of which {found} in iniglobals() or "
                             "addproc() as the oracle reads them")
    return tuple(made), {struct: tuple(c) for struct, c in local.items()}


def _body(text: str, head: str) -> str:
    """The text of the function whose definition starts a line with ``head``."""
    start = text.find(f"\n{head}")
    if start < 0:
        raise LayoutMismatch(f"pan.c has no function {head}")
    end = text.find("\n}\n", start)
    return text[start:end]


# ------------------------------------------------------------------------------ the probe
@dataclass(frozen=True)
class Leaf:
    """A scalar member below struct ``struct`` (``contents[0].fld1``: steps ``contents`` with
    its length, then ``fld1``); ``element`` marks the probe of the whole element 0 of the array
    that ``steps`` ends with, which gives its stride."""

    struct: str
    steps: tuple[Step, ...]
    bitfield: bool = False
    element: bool = False

    @property
    def text(self) -> str:
        return lvalue(self.steps)


def leaves(header: PanHeader, struct: str) -> Iterator[Leaf]:
    """Every scalar member of ``struct`` and every array in it, nested structs walked through;
    pointers, pan's process area and members of types pan.h does not declare left out."""
    yield from _walk(header, struct, header.members(struct), ())


def _walk(header: PanHeader, struct: str, members: Sequence[CMember], prefix: tuple[Step, ...]) -> Iterator[Leaf]:
    for m in members:
        if m.pointer or m.name in UNPROBED or len(m.dims) > 1 or None in m.dims:
            continue
        steps = prefix + ((m.name, m.dims[0] if m.dims else None),)
        if m.dims:
            yield Leaf(struct, steps, element=True)
        if m.members:
            yield from _walk(header, struct, m.members, steps)
        elif m.tag is not None and m.tag in header.structs:
            yield from _walk(header, struct, header.structs[m.tag], steps)
        elif m.integer:
            yield Leaf(struct, steps, bitfield=m.bits is not None)


def probe_statements(probes: Sequence[Leaf], sizes: Sequence[str]) -> str:
    """C statements that print, for each probe, its bytes and bits in its struct and whether it
    is signed (``leaf N S OFFSET:MASK ...``), and the size of each struct in ``sizes``."""
    lines = [f'\tfprintf(out, "size {name} %lu\\n", (unsigned long) sizeof({name}));' for name in sizes]
    for index, probe in enumerate(probes):
        target = f"x.{probe.text}"
        if probe.bitfield:
            fill = f"{target} = ~0;"
        else:
            fill = f"memset(&{target}, 0xff, sizeof({target}));"
        signed = "0" if probe.element else f"({target} < 0)"
        lines.append(f"\t{{\tstatic {probe.struct} x;\n\t\tmemset(&x, 0, sizeof x);\n\t\t{fill}\n"
                     f"\t\toracle_bits(out, {index}, {signed}, &x, sizeof x);\n\t}}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Bits:
    """The bytes and bits one C object occupies, relative to the start of its struct:
    ``(byte offset, bit mask)`` pairs in increasing offset (x86: little-endian, bit-fields
    allocated from the low bit), and whether C reads it as signed (two's complement)."""

    masks: tuple[tuple[int, int], ...]
    signed: bool = False

    @property
    def start(self) -> int:
        return self.masks[0][0]

    @property
    def size(self) -> int:
        return self.masks[-1][0] - self.start + 1

    @property
    def whole_bytes(self) -> bool:
        """A plain (non-bit-field) object: contiguous bytes, every bit used."""
        return (all(mask == 0xFF for _, mask in self.masks)
                and [offset for offset, _ in self.masks] == list(range(self.start, self.start + self.size)))

    @property
    def one_byte(self) -> bool:
        """A plain unsigned one-byte object (uchar: pid, chan, byte, mtype), for the fast path."""
        return self.masks == ((self.start, 0xFF),) and not self.signed

    def shifted(self, by: int) -> "Bits":
        return Bits(tuple((offset + by, mask) for offset, mask in self.masks), self.signed)

    @cached_property
    def _mask_shift_width(self) -> tuple[int, int, int]:
        mask = 0
        for offset, bits in self.masks:
            mask |= bits << (8 * (offset - self.start))
        shift = (mask & -mask).bit_length() - 1
        return mask, shift, bin(mask).count("1")

    def read(self, vector: bytes | bytearray, base: int) -> int:
        """The value of the object in the struct at ``base``, as C reads it."""
        mask, shift, width = self._mask_shift_width
        word = int.from_bytes(vector[base + self.start:base + self.start + self.size], "little")
        value = (word & mask) >> shift
        if self.signed and value >> (width - 1):
            value -= 1 << width
        return value

    def write(self, vector: bytearray, base: int, value: int) -> None:
        """Store ``value`` as C would: in the object's width, wrapping around."""
        mask, shift, width = self._mask_shift_width
        lo, hi = base + self.start, base + self.start + self.size
        word = int.from_bytes(vector[lo:hi], "little")
        word = (word & ~mask) | (((value & ((1 << width) - 1)) << shift) & mask)
        vector[lo:hi] = word.to_bytes(self.size, "little")


@dataclass(frozen=True)
class VectorLayout:
    """What pan and gcc say of the state vector: the largest state's size and the bytes pan
    stores of it, where each process slot and queue begins and which struct it is (its
    ``_t``), ``BASE``, ``procname[]``, struct sizes, and the bits of every probed member."""

    vsize: int
    stored: tuple[int, ...]  # byte indices Mask keeps, increasing
    base: int
    procnames: tuple[str, ...]
    proc_offset: dict[int, int]  # slot -> offset in now
    proc_type: dict[int, int]  # slot -> k of its Pk
    queue_offset: dict[int, int]  # channel id -> offset in now
    queue_type: dict[int, int]  # channel id -> k of its Qk
    sizes: dict[str, int]
    probed: dict[tuple[str, tuple[Step, ...], bool], Bits]  # (struct, steps, element) -> bits at indices 0

    def has(self, struct: str, steps: tuple[Step, ...]) -> bool:
        return (struct, steps, False) in self.probed

    def bits(self, struct: str, steps: tuple[Step, ...], indices: Sequence[int] = ()) -> Bits:
        """The bits of the scalar ``steps`` below ``struct`` at array ``indices`` (one per
        array step): element 0's, moved by the stride of each array."""
        leaf = self.probed.get((struct, steps, False))
        if leaf is None:
            raise LayoutMismatch(f"the probe did not locate {struct}.{lvalue(steps)}")
        return leaf.shifted(self._shift(struct, steps, indices))

    def element(self, struct: str, steps: tuple[Step, ...], indices: Sequence[int]) -> tuple[int, int]:
        """(start, size) of the element ``indices`` of the array ``steps`` ends with."""
        first = self.probed.get((struct, steps, True))
        if first is None:
            raise LayoutMismatch(f"the probe did not locate the elements of {struct}.{lvalue(steps)}")
        return first.start + self._shift(struct, steps, indices), first.size

    def _shift(self, struct: str, steps: tuple[Step, ...], indices: Sequence[int]) -> int:
        shift, rest = 0, list(indices)
        for depth, (_, length) in enumerate(steps):
            if length is None:
                continue
            i = rest.pop(0) if rest else 0
            if not 0 <= i < length:
                raise LayoutMismatch(f"index {i} out of {struct}.{lvalue(steps)}")
            if i:
                shift += i * self.probed[struct, steps[:depth + 1], True].size
        return shift

    def state(self, name: str) -> Bits | None:
        """A scalar member of State by name (``_nr_pr``, ``_vsz``), None when State lacks it."""
        return self.probed.get(("State", ((name, None),), False))

    def struct_of_slot(self, slot: int) -> str:
        return f"P{self.proc_type[slot]}"


PROBE_REPORT = r"""
static void
oracle_bits(FILE *out, int index, int is_signed, const void *object, size_t size)
{	const uchar *bytes = (const uchar *) object;
	size_t i;
	fprintf(out, "leaf %d %d", index, is_signed);
	for (i = 0; i < size; i++)
		if (bytes[i]) fprintf(out, " %lu:%u", (unsigned long) i, (unsigned) bytes[i]);
	fprintf(out, "\n");
}
"""


def read_vector_layout(text: str, probes: Sequence[Leaf]) -> VectorLayout:
    """The probe's report (tests/support/statespace.py's _PROBE_C) as a VectorLayout."""
    values: dict[str, str] = {}
    procs: dict[int, tuple[int, int]] = {}
    queues: dict[int, tuple[int, int]] = {}
    names: dict[int, str] = {}
    sizes: dict[str, int] = {}
    probed: dict[tuple[str, tuple[Step, ...], bool], Bits] = {}
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("vsize", "consistent", "mask", "base"):
            values[word] = rest
        elif word == "proc":
            slot, offset, kind = map(int, rest.split())
            procs[slot] = (offset, kind)
        elif word == "queue":
            channel, offset, kind = map(int, rest.split())
            queues[channel] = (offset, kind)
        elif word == "procname":
            k, _, name = rest.partition(" ")
            names[int(k)] = name
        elif word == "size":
            name, size = rest.split()
            sizes[name] = int(size)
        elif word == "leaf":
            index, is_signed, *pairs = rest.split()
            probe = probes[int(index)]
            masks = tuple((int(o), int(m)) for o, m in (pair.split(":") for pair in pairs))
            if not masks:
                raise LayoutMismatch(f"the probe found no bytes for {probe.struct}.{probe.text}")
            probed[probe.struct, probe.steps, probe.element] = Bits(masks, is_signed == "1")
    if values.get("consistent") != "1":
        raise LayoutMismatch("pan's layout (offsets, types or Mask) differs between states of the same size")
    vsize, mask = int(values.get("vsize", "0")), values.get("mask", "")
    if vsize == 0 or len(mask) != vsize:
        raise LayoutMismatch("the probe reported no state vector (did pan dump any state?)")
    return VectorLayout(
        vsize=vsize, stored=tuple(i for i, m in enumerate(mask) if m == "0"), base=int(values["base"]),
        procnames=tuple(names[k] for k in sorted(names)),
        proc_offset={s: o for s, (o, _) in procs.items()}, proc_type={s: k for s, (_, k) in procs.items()},
        queue_offset={c: o for c, (o, _) in queues.items()}, queue_type={c: k for c, (_, k) in queues.items()},
        sizes=sizes, probed=probed)


# ------------------------------------------------------------------------------ the join with the model
@dataclass(frozen=True)
class Process:
    """A process of the model: pid ``pid`` lives in slot ``slot`` of ``now``, a ``struct``."""

    pid: int
    proctype: str
    struct: str
    slot: int


@dataclass(frozen=True)
class Channel:
    """A static channel of the model: id ``id``, a queue ``struct`` (``Qk``); ``variable`` is
    the TypeInfo slot of the channel variable its declaration initialises, and, for a global
    one, ``member`` the steps and indices of that variable's place in State, which holds the id
    for ever.  ``messages`` are the TypeInfo slots of ``contents[i].fldN``, in N order."""

    id: int
    name: str
    struct: str
    owner_pid: int | None
    variable: Slot
    member: tuple[tuple[Step, ...], tuple[int, ...]] | None
    messages: tuple[Slot, ...]


@dataclass(frozen=True)
class Place:
    """A member of ``struct`` that holds a Promela variable, a typedef's field or the last
    mover's pid, with the TypeInfo slot of what it holds (``GlobalSlot(x)``, ``("local",
    proctype, x)``, ``FieldSlot(typedef, x)``; LAST_SLOT).  ``scalar``: not a struct; a place
    whose last step is an array is the array itself."""

    struct: str
    steps: tuple[Step, ...]
    slot: Slot
    scalar: bool

    @property
    def is_array(self) -> bool:
        return self.steps[-1][1] is not None


_CHANNEL_NAME = re.compile(r"^(?:(?P<proctype>.+)\((?P<pid>\d+)\)\.)?(?P<var>\w+)(?:\[(?P<index>\d+)\])?$")


class Declarations:
    """The join of pan's state vector with the model's declarations (module docstring)."""

    def __init__(self, header: PanHeader, vector: VectorLayout,
                 creations: tuple[tuple[Creation, ...], dict[str, tuple[Creation, ...]]], model: Model) -> None:
        self.header, self.vector, self.model = header, vector, model
        self.base = vector.base
        self.proctype_structs = self._proctype_structs()
        self.processes = self._processes()
        self.places = self._places()
        self.channels = self._channels(*creations)

    # -------------------------------------------------------------- processes
    def _proctype_structs(self) -> dict[str, str]:
        """Proctype name (INIT for init) -> its Pk, by procname[]."""
        wanted = set(self.model.proctypes) | ({INIT} if self.model.init is not None else set())
        structs = {name: f"P{k}" for k, name in enumerate(self.vector.procnames) if name in wanted}
        missing = wanted - set(structs)
        if missing:
            raise LayoutMismatch(f"pan's procname[] lacks proctype(s) {', '.join(sorted(missing))}")
        return structs

    def _processes(self) -> tuple[Process, ...]:
        found = []
        for process in self.model.processes:
            slot = process.pid + self.base
            struct = self.proctype_structs[process.proctype]
            if slot not in self.vector.proc_type:
                raise LayoutMismatch(f"pan never had a process in slot {slot} (pid {process.pid})")
            if self.vector.struct_of_slot(slot) != struct:
                held = self.vector.procnames[self.vector.proc_type[slot]]
                raise LayoutMismatch(f"the model's pid {process.pid} is a {process.proctype}, but pan's slot {slot} "
                                     f"holds a {held}")
            found.append(Process(process.pid, process.proctype, struct, slot))
        return tuple(found)

    @property
    def claims(self) -> list[tuple[int, str]]:
        """(slot, name) of the slots of ``now`` that hold a claim (never claim, ltl, np_)."""
        ours = set(self.proctype_structs.values())
        return [(slot, self.vector.procnames[k]) for slot, k in sorted(self.vector.proc_type.items())
                if f"P{k}" not in ours]

    @cached_property
    def unnumbered_processes(self) -> tuple[Process, ...]:
        """Processes pan holds that the model does not number (started by a run it cannot
        follow): no element moves them, but their locals are renamed like any."""
        ours = {p.slot for p in self.processes}
        by_struct = {struct: name for name, struct in self.proctype_structs.items()}
        return tuple(Process(slot - self.base, by_struct[f"P{k}"], f"P{k}", slot)
                     for slot, k in sorted(self.vector.proc_type.items())
                     if slot not in ours and f"P{k}" in by_struct)

    def process(self, pid: int) -> Process:
        for p in self.processes:
            if p.pid == pid:
                return p
        raise KeyError(pid)

    # -------------------------------------------------------------- variables
    def _places(self) -> dict[str, tuple[Place, ...]]:
        """struct -> the places of Promela data in it (State, each proctype's Pk)."""
        places: dict[str, list[Place]] = {"State": []}
        names = {v.name for v in self.model.globals}
        for m in self.header.members("State"):
            if m.name in names:
                places["State"] += self._member_places("State", m, (), GlobalSlot(m.name))
            elif m.name == "_last":
                places["State"] += self._member_places("State", m, (), LAST_SLOT)
        in_state = {m.name for m in self.header.members("State")}
        for var in self.model.globals:
            if var.name not in in_state and var.name not in self.header.file_scope:
                raise LayoutMismatch(f"global '{var.name}' is neither a member of State nor hidden in pan.h")
        for proctype, struct in self.proctype_structs.items():
            variables = {v.name for v in self.model.locals.get(proctype, [])}
            found: list[Place] = []
            held = set()
            for m in self.header.members(struct):
                name = None if m.name in PK_HEADER else _promela_name(m.name, variables)
                if name is not None:
                    held.add(name)
                    found += self._member_places(struct, m, (), LocalSlot(proctype, name))
            if variables - held:
                raise LayoutMismatch(f"{struct} ({proctype}) has no member for local(s) "
                                     f"{', '.join(sorted(variables - held))}")
            places[struct] = found
        return {struct: tuple(p) for struct, p in places.items()}

    def _member_places(self, struct: str, m: CMember, prefix: tuple[Step, ...], slot: Slot) -> list[Place]:
        if m.pointer or len(m.dims) > 1 or None in m.dims:
            return []  # not a Promela variable's shape (c_state memory)
        steps = prefix + ((m.name, m.dims[0] if m.dims else None),)
        tag = m.tag
        if tag is None:
            return [Place(struct, steps, slot, True)] if m.integer else []
        found = [Place(struct, steps, slot, False)]
        for sub in self._typedef_members(tag):
            found += self._member_places(struct, sub, steps, FieldSlot(tag, sub.name))
        return found

    def _typedef_members(self, tag: str) -> tuple[CMember, ...]:
        """The members of typedef ``tag``'s struct, which must be the typedef's fields, in order."""
        typedef = self.model.typedefs.get(tag)
        if typedef is None:
            raise LayoutMismatch(f"pan.h has a member of type struct {tag}, which the model does not declare")
        members = self.header.members(tag)
        declared = [v.name for decl in typedef.fields for v in decl.vars]
        if [m.name for m in members] != declared:
            raise LayoutMismatch(f"struct {tag} of pan.h has members {[m.name for m in members]}, "
                                 f"the typedef declares {declared}")
        return members

    # -------------------------------------------------------------- channels
    def _channels(self, global_creations: tuple[Creation, ...],
                  local_creations: dict[str, tuple[Creation, ...]]) -> tuple[Channel, ...]:
        """The model's static channels, each checked against the id and the queue type pan gives
        it; then the queues pan creates for processes the model does not number (started by a
        run the model cannot follow), which no element moves (their contents are renamed)."""
        # The ids pan hands out: the global creations in order, then each process's, slot by slot.
        ids: dict[tuple[str, int | None, str], tuple[int, int]] = {}  # (struct, owner pid, member) -> (id, qtype)
        for creation in global_creations:
            ids["State", None, creation.member] = (len(ids) + 1, creation.qtype)
        for slot in sorted(self.vector.proc_type):
            struct = self.vector.struct_of_slot(slot)
            for creation in local_creations.get(struct, ()):
                ids[struct, slot - self.base, creation.member] = (len(ids) + 1, creation.qtype)
        channels = []
        for chan in self.model.channels:
            match = _CHANNEL_NAME.match(chan.name)
            if match is None:
                raise LayoutMismatch(f"cannot read the channel name '{chan.name}'")
            var, index = match.group("var"), match.group("index")
            proctype = match.group("proctype") if chan.owner_pid is not None else None
            key = self._creation_key(proctype, chan.owner_pid, var, index)
            created = ids.pop(key, None)
            if created is None:
                raise LayoutMismatch(f"pan.c creates no channel in {key[0]}.{key[2]} for '{chan.name}'")
            if created[0] != chan.id:
                raise LayoutMismatch(f"pan gives '{chan.name}' the id {created[0]}, the model {chan.id}")
            channels.append(self._channel(chan.id, chan.name, created[1], proctype, chan.owner_pid, var, index,
                                          chan.fields))
        last = max((c.id for c in channels), default=0)
        self.unnumbered: tuple[Channel, ...] = ()
        extra = []
        for (struct, owner, member), (channel_id, qtype) in sorted(ids.items(), key=lambda item: item[1]):
            proctype = next((name for name, s in self.proctype_structs.items() if s == struct), None)
            step = re.fullmatch(r"(\w+)(?:\[(\d+)\])?", member)
            var = _promela_name(step.group(1), {v.name for v in self.model.locals.get(proctype, [])}) \
                if step is not None and proctype is not None else None
            declared = next((v for v in self.model.locals.get(proctype, []) if v.name == var
                             and isinstance(v.init, ast.ChanInit)), None) \
                if var is not None and proctype is not None else None
            if channel_id <= last or owner is None or declared is None:
                raise LayoutMismatch(f"pan creates the channel {struct}.{member} (id {channel_id}), which the model "
                                     "does not number (a channel inside a typedef?)")
            assert step is not None and var is not None  # declared was found by them
            assert isinstance(declared.init, ast.ChanInit)  # found as one
            extra.append(self._channel(channel_id, f"{proctype}({owner}).{member}", qtype, proctype, owner, var,
                                       step.group(2), [plain_type(f) for f in declared.init.fields]))
        self.unnumbered = tuple(extra)
        return tuple(channels)

    def _creation_key(self, proctype: str | None, owner: int | None, var: str,
                      index: str | None) -> tuple[str, int | None, str]:
        struct = "State" if proctype is None else self.proctype_structs[proctype]
        c_name = var if proctype is None else self._c_name(struct, var)
        return struct, owner, c_name if index is None else f"{c_name}[{index}]"

    def _channel(self, channel_id: int, name: str, qtype: int, proctype: str | None, owner: int | None,
                 var: str, index: str | None, fields: Sequence[ast.TypeName]) -> Channel:
        if self.vector.queue_type.get(channel_id) != qtype:
            raise LayoutMismatch(f"pan.c creates '{name}' as a Q{qtype}, but pan's running queue {channel_id} "
                                 f"is a Q{self.vector.queue_type.get(channel_id)}")
        qstruct = f"Q{qtype}"
        variable = GlobalSlot(var) if proctype is None else LocalSlot(proctype, var)
        place = None
        if proctype is None:
            c_member = self.header.member("State", var)
            length = c_member.dims[0] if c_member is not None and c_member.dims else None
            place = (((var, length),), () if index is None else (int(index),))
        return Channel(channel_id, name, qstruct, owner, variable, place,
                       self._message_slots(qstruct, variable, fields))

    def _c_name(self, struct: str, var: str) -> str:
        for m in self.header.members(struct):
            if m.name not in PK_HEADER and _promela_name(m.name, {var}) == var:
                return m.name
        raise LayoutMismatch(f"{struct} has no member for the channel variable '{var}'")

    def _message_slots(self, qstruct: str, variable: Slot, fields: Sequence[ast.TypeName]) -> tuple[Slot, ...]:
        slots: list[Slot] = []
        for i, ftype in enumerate(fields):
            if ftype.name in self.model.typedefs:
                slots += self._flattened(ftype.name)
            else:
                slots.append(MessageSlot(variable, i))
        contents = self.header.member(qstruct, "contents")
        found = len(contents.members) if contents is not None else 0
        if found != len(slots):
            raise LayoutMismatch(f"{qstruct} has {found} message fields, the declaration of "
                                 f"{slot_name(variable)} gives {len(slots)}")
        return tuple(slots)

    def _flattened(self, tag: str) -> list[Slot]:
        """A typedef in a message: one fldN per scalar, in declaration order."""
        slots: list[Slot] = []
        for m in self._typedef_members(tag):
            count = m.dims[0] if m.dims else 1
            for _ in range(count or 0):
                slots += self._flattened(m.tag) if m.tag is not None else [FieldSlot(tag, m.name)]
        return slots

    def channel(self, channel_id: int) -> Channel:
        for c in self.channels:
            if c.id == channel_id:
                return c
        raise KeyError(channel_id)

    @cached_property
    def capacity(self) -> dict[str, int]:
        """Qk -> the length of its contents[] (1 for a rendezvous channel)."""
        result = {}
        for chan in (*self.channels, *self.unnumbered):
            contents = self.header.member(chan.struct, "contents")
            length = contents.dims[0] if contents is not None and contents.dims else 0
            assert length is not None, f"{chan.struct}.contents has no constant length"
            result[chan.struct] = length
        return result


def _promela_name(c_name: str, names: set[str]) -> str | None:
    """The Promela name behind a member of a Pk: itself, or the name behind SPIN's prefix for a
    variable of a nested block (``_6_3_y`` for ``y``)."""
    if c_name in names:
        return c_name
    scoped = re.fullmatch(r"(?:_\d+)+_([A-Za-z_]\w*)", c_name)
    if scoped is not None and scoped.group(1) in names:
        return scoped.group(1)
    return None


def every_index(steps: Sequence[Step]) -> Iterator[tuple[int, ...]]:
    return product(*array_ranges(steps))
