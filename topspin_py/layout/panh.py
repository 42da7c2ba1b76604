"""Read the C side of the state vector: the structs of pan.h and the facts pan.c adds.

``spin -a`` writes the state vector's types into pan.h:

* ``typedef struct State {...} State;`` holds the header (``_nr_pr``, ``_vsz``, ``_last`` ...),
  the global variables by name, and ``sv[]`` where processes and channels live;
* ``typedef struct Pk { /* name */ ...} Pk;`` for each proctype, init, claim and ``np_``
  (``k`` is the ``_t`` value, the index into ``procname[]`` of pan.c);
* ``typedef struct Qk {...} Qk;`` for each channel declaration (an array of channels gets one
  per element), with the messages in ``contents[capacity].fldN``;
* ``struct T { /* user defined type */ ...};`` for each Promela typedef;
* ``/* hidden variable: */ uchar x;`` for the globals SPIN keeps out of the state vector.

Which of these are compiled depends on the verifier's ``-D`` flags (``#ifdef HAS_LAST``,
``#ifndef NOFAIR``, ``#ifdef VERI``/``BASE`` ...), so pan.h goes through ``gcc -E`` with those
flags first; comments are kept (``-C``) because the struct names and the hidden variables are
marked only by them.  The structs are then cut out of the preprocessed text and parsed with
pycparser.  Only the structs are parsed, not the whole header: prototypes and the types of
embedded C (``c_state "Coord pos"`` gives a field of a ``c_decl`` type) would otherwise need a
C library and the model's C declarations.

pan.c adds ``procname[]`` and ``Btypes[]`` (the name and kind of each ``Pk``) and the
``addqueue(calling_pid, k, is_rv)`` calls that create each channel with its ``Qk``.

Nothing here knows about Promela: :mod:`topspin_py.layout.statevector` joins these facts with
the Model.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast, c_parser

from ..errors import TopspinError

SPIN_BANNER = re.compile(r'#define SpinVersion\s+"Spin Version (\S+)')

# pan.c: enum btypes { NONE=0, N_CLAIM=1, I_PROC=2, A_PROC=3, P_PROC=4, E_TRACE=5, N_TRACE=6 };
BTYPE_NAMES = {0: "np", 1: "claim", 2: "init", 3: "active", 4: "proctype", 5: "trace", 6: "notrace"}

_C_TYPE_WORDS = frozenset("""
    void char short int long float double signed unsigned _Bool _Complex struct union enum
    const volatile restrict static extern register auto typedef inline
""".split())
# A declaration that starts with a name C does not know (``Coord pos;`` from c_state) needs a
# typedef before pycparser accepts it.
_DECL_START = re.compile(r"(?<=[{;])\s*([A-Za-z_]\w*)[\s*]+[A-Za-z_]\w*")
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_PROBE = "topspin_layout_probe_"
_PROBES = f"""
{_PROBE}base BASE ;
{_PROBE}vectorsz VECTORSZ ;
#ifdef HAS_LAST
{_PROBE}has_last 1 ;
#endif
#ifdef TRIX
{_PROBE}trix 1 ;
#endif
"""


class LayoutError(TopspinError):
    """pan.h or pan.c does not have the shape this SPIN version is known to produce, or does
    not match the model."""


@dataclass(frozen=True)
class CField:
    """One member of a C struct.

    ``ctype`` is the type without the array part, as pan.h spells it after preprocessing:
    ``unsigned char``, ``short``, ``unsigned`` (a bitfield), ``struct Rec``, or ``struct`` for
    the anonymous struct of a channel's messages (its members in ``members``).  ``dims`` are the
    array lengths, outermost first; an entry is None when the length is not a constant
    (``uchar c_state[sizeof(x)]``).  ``bits`` is the width of a bitfield."""

    name: str
    ctype: str
    dims: tuple[int | None, ...] = ()
    bits: int | None = None
    members: tuple["CField", ...] = ()

    @property
    def is_bitfield(self) -> bool:
        """C cannot take the address of a bitfield (no ``&``, no ``offsetof``, no ``sizeof``)."""
        return self.bits is not None

    @property
    def struct_tag(self) -> str | None:
        """``Rec`` for a field of type ``struct Rec``."""
        words = self.ctype.split()
        return words[1] if len(words) == 2 and words[0] == "struct" else None

    def member(self, name: str) -> "CField":
        for member in self.members:
            if member.name == name:
                return member
        raise KeyError(name)


@dataclass(frozen=True)
class CStruct:
    """A struct of pan.h: ``State``, ``P3``, ``Q2`` or a typedef's ``struct Rec``.  ``comment``
    is the text of the comment after the opening brace (the proctype's name for ``Pk``)."""

    name: str
    fields: tuple[CField, ...]
    comment: str | None = None

    def field(self, name: str) -> CField:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.name} has no field '{name}'")

    def has(self, name: str) -> bool:
        return any(f.name == name for f in self.fields)


@dataclass(frozen=True)
class PanHeader:
    """What pan.h says about the state vector, for one set of compile flags."""

    spin_version: str
    flags: tuple[str, ...]  # the -D/-U flags pan.h was preprocessed with
    base: int  # BASE: 1 when slot 0 holds a claim (never claim, ltl, or -DNP), else 0
    has_last: bool  # HAS_LAST: State has the pid-valued field `_last`
    trix: bool  # -DTRIX: processes and channels live outside State
    vectorsz: int | None
    state: CStruct
    procs: dict[int, CStruct]  # k -> Pk, in k order
    queues: dict[int, CStruct]  # k -> Qk (Q0 is the generic header), in k order
    user_types: dict[str, CStruct]  # struct tag (the Promela typedef's name) -> struct
    hidden: tuple[CField, ...]  # globals kept out of State


@dataclass(frozen=True)
class QueueCreation:
    """``<where>->member = addqueue(calling_pid, qtype, is_rv);`` in pan.c.

    ``struct`` is ``State`` for ``now.member`` (a global channel, created in iniglobals) or
    ``Pk`` for ``((Pk *)pptr(h))->member`` (a local channel, created in addproc).  ``member`` is
    the C path below it: ``q``, ``q[1]`` or ``rec.q`` (a channel field of a typedef)."""

    struct: str
    member: str
    qtype: int
    is_rv: bool


@dataclass(frozen=True)
class PanSource:
    """What pan.c adds: the name and kind of each ``Pk`` and the channel creations."""

    procnames: tuple[str, ...]  # procname[k]; ":np_:" for the non-progress claim
    btypes: tuple[str, ...]  # kind of Pk: "proctype", "active", "init", "claim", "np", ...
    queue_creations: tuple[QueueCreation, ...] = field(default=())


# ---------------------------------------------------------------------------------- pan.h
def read_pan_h(path: str | Path, flags=(), gcc: str = "gcc") -> PanHeader:
    """Parse the pan.h at ``path`` as it compiles under ``flags`` (the gcc flags of the
    verifier; only ``-D`` and ``-U`` matter)."""
    return parse_pan_h(Path(path).read_text(errors="replace"), flags, gcc)


def parse_pan_h(text: str, flags=(), gcc: str = "gcc") -> PanHeader:
    banner = SPIN_BANNER.search(text)
    if banner is None or "typedef struct State" not in text:
        raise LayoutError("this is not a pan.h written by spin -a (no SpinVersion or State)")
    macro_flags = tuple(f for f in flags if f.startswith(("-D", "-U")))
    expanded = preprocess(text + _PROBES, macro_flags, gcc)
    probes = dict(re.findall(rf"{_PROBE}(\w+)\s+(.*?)\s*;", expanded))
    base = _int(probes.get("base"), "BASE")
    vectorsz = _maybe_int(probes.get("vectorsz"))

    spans = _struct_spans(expanded)
    comments = {name: comment for name, _, comment in spans}
    source = "\n".join(_COMMENT.sub(" ", body) for _, body, _ in spans)
    hidden_decls = [_COMMENT.sub(" ", d) for d in re.findall(
        r"/\*\s*hidden variable:\s*\*/\s*([^;{}]*;)", expanded)]
    source += "\n" + "\n".join(hidden_decls)
    ast = _parse_c(source)

    structs: dict[str, CStruct] = {}
    hidden: list[CField] = []
    for ext in ast.ext:
        struct = _struct_of(ext)
        if struct is not None:
            name = ext.name if isinstance(ext, c_ast.Typedef) else struct.name
            structs[name] = CStruct(name, tuple(_fields(struct)), comments.get(name))
        elif isinstance(ext, c_ast.Decl) and ext.name is not None:
            hidden.append(_field(ext))
    if "State" not in structs:
        raise LayoutError("pan.h has no struct State after preprocessing")
    state = structs["State"]
    procs = _numbered(structs, "P")
    queues = _numbered(structs, "Q")
    user_types = {name: s for name, s in structs.items() if name not in ("State",)
                  and not re.fullmatch(r"[PQ]\d+", name)}
    return PanHeader(
        spin_version=banner.group(1), flags=macro_flags, base=base,
        has_last=state.has("_last") and "has_last" in probes, trix="trix" in probes,
        vectorsz=vectorsz, state=state, procs=procs, queues=queues, user_types=user_types,
        hidden=tuple(hidden))


def preprocess(text: str, flags=(), gcc: str = "gcc") -> str:
    """``gcc -E -P -C`` of ``text`` with ``flags``: conditionals resolved, comments kept."""
    command = [gcc, "-E", "-P", "-C", "-x", "c", *flags, "-"]
    try:
        done = subprocess.run(command, input=text, capture_output=True, text=True,
                              errors="replace")
    except OSError as err:
        raise LayoutError(f"cannot run {gcc} to preprocess pan.h: {err}") from err
    if done.returncode != 0:
        raise LayoutError("gcc -E rejects pan.h with these flags", detail=done.stderr.strip(),
                          hint="the same flags would stop gcc compiling pan.c")
    return done.stdout


_STRUCT_HEAD = re.compile(
    r"\btypedef\s+struct\s+(?P<typedef>P\d+|Q\d+|State)\s*\{"
    r"|\bstruct\s+(?P<tag>\w+)\s*\{(?=\s*/\*\s*user defined type\s*\*/)")
_LEADING_COMMENT = re.compile(r"\s*/\*\s*(.*?)\s*\*/", re.S)


def _struct_spans(text: str) -> list[tuple[str, str, str | None]]:
    """(name, definition text, comment after the opening brace) of each state-vector struct,
    in the order of the text.  The comment names the proctype of a ``Pk``."""
    spans = []
    for head in _STRUCT_HEAD.finditer(text):
        brace = head.end() - 1
        end = text.index(";", _matching_brace(text, brace)) + 1
        if head.group("typedef"):
            comment = _LEADING_COMMENT.match(text, brace + 1)
            spans.append((head.group("typedef"), text[head.start():end],
                          comment.group(1) if comment else None))
        else:
            spans.append((head.group("tag"), text[head.start():end], None))
    return spans


def _matching_brace(text: str, open_at: int) -> int:
    depth = 0
    i = open_at
    while i < len(text):
        c = text[i]
        if c == "/" and text.startswith("/*", i):
            i = text.index("*/", i) + 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise LayoutError("unbalanced braces in a struct of pan.h")


def _parse_c(source: str) -> c_ast.FileAST:
    unknown = sorted({m.group(1) for m in _DECL_START.finditer(source)} - _C_TYPE_WORDS)
    prelude = "".join(f"typedef int {name};\n" for name in unknown)
    try:
        return c_parser.CParser().parse(prelude + "\n" + source, "pan.h")
    except Exception as err:  # pycparser raises its own ParseError (and plain errors on odd input)
        raise LayoutError(f"cannot parse the structs of pan.h: {err}",
                          detail=source[:4000]) from err


def _struct_of(ext) -> c_ast.Struct | None:
    node = ext.type if isinstance(ext, (c_ast.Typedef, c_ast.Decl)) else None
    if isinstance(node, c_ast.TypeDecl):
        node = node.type
    if isinstance(node, c_ast.Struct) and node.decls is not None:
        return node
    return None


def _fields(struct: c_ast.Struct) -> list[CField]:
    return [_field(decl) for decl in struct.decls or () if isinstance(decl, c_ast.Decl)]


def _field(decl: c_ast.Decl) -> CField:
    node = decl.type
    dims: list[int | None] = []
    while isinstance(node, c_ast.ArrayDecl):
        dims.append(_constant(node.dim))
        node = node.type
    pointer = ""
    while isinstance(node, c_ast.PtrDecl):
        pointer += "*"
        node = node.type
    inner = node.type if isinstance(node, c_ast.TypeDecl) else node
    members: tuple[CField, ...] = ()
    if isinstance(inner, c_ast.Struct):
        ctype = f"struct {inner.name}" if inner.name else "struct"
        if inner.decls is not None and not inner.name:
            members = tuple(_fields(inner))
    elif isinstance(inner, c_ast.IdentifierType):
        ctype = " ".join(inner.names)
    else:
        ctype = type(inner).__name__
    bits = _constant(decl.bitsize) if decl.bitsize is not None else None
    return CField(decl.name, ctype + (" " + pointer if pointer else ""), tuple(dims), bits, members)


def _constant(node) -> int | None:
    """The value of a constant C expression (array lengths, bit widths), else None."""
    if isinstance(node, c_ast.Constant) and node.type == "int":
        return int(node.value.rstrip("uUlL"), 0)
    if isinstance(node, c_ast.BinaryOp):
        left, right = _constant(node.left), _constant(node.right)
        if left is None or right is None:
            return None
        ops = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
               "/": lambda a, b: a // b if b else None}
        return ops[node.op](left, right) if node.op in ops else None
    return None


def _numbered(structs: dict[str, CStruct], letter: str) -> dict[int, CStruct]:
    found = {int(name[1:]): s for name, s in structs.items() if re.fullmatch(rf"{letter}\d+", name)}
    return dict(sorted(found.items()))


def _int(text: str | None, what: str) -> int:
    value = _maybe_int(text)
    if value is None:
        raise LayoutError(f"pan.h does not define {what} as a number (got {text!r})")
    return value


def _maybe_int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip().strip("()").rstrip("uUlL"), 0)
    except ValueError:
        return None


# ---------------------------------------------------------------------------------- pan.c
_PROCNAME = re.compile(r"char \*procname\[\] = \{(?P<body>.*?)\};", re.S)
_BTYPES = re.compile(r"int Btypes\[\] = \{(?P<body>.*?)\};", re.S)
_ADDQUEUE = re.compile(
    r"(?:now\.|\(\((?P<proc>P\d+) \*\)pptr\(h\)\)->)(?P<member>[\w.\[\]]+)\s*=\s*"
    r"addqueue\(calling_pid,\s*(?P<qtype>\d+),\s*(?P<rv>\d+)\)")


def read_pan_c(path: str | Path) -> PanSource:
    return parse_pan_c(Path(path).read_text(errors="replace"))


def parse_pan_c(text: str) -> PanSource:
    names = _PROCNAME.search(text)
    types = _BTYPES.search(text)
    if names is None or types is None:
        raise LayoutError("pan.c has no procname[] or Btypes[] table")
    procnames = tuple(re.findall(r'"([^"]*)"', names.group("body")))
    btypes = tuple(BTYPE_NAMES.get(int(n), "unknown")
                   for n in re.findall(r"^\s*(\d+)", types.group("body"), re.M))
    if len(procnames) != len(btypes):
        raise LayoutError(f"pan.c lists {len(procnames)} process types in procname[] "
                          f"but {len(btypes)} in Btypes[]")
    creations = tuple(
        QueueCreation(m.group("proc") or "State", m.group("member"), int(m.group("qtype")),
                      m.group("rv") != "0")
        for m in _ADDQUEUE.finditer(text))
    return PanSource(procnames, btypes, creations)
