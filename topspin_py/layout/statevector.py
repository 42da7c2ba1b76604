"""The StateLayout: where pids and channel ids sit in pan's state vector, by name.

This joins three things:

* pan.h and pan.c (:mod:`topspin_py.layout.panh`): the structs ``State``, ``Pk``, ``Qk`` and the
  typedef structs, as compiled under the verifier's flags, and which ``Qk`` each channel uses;
* the Model: globals, locals and parameters of each proctype, the process instances with their
  pids, the static channels with their ids and owners;
* the TypeInfo the symmetry analysis inferred (``Group.types``): which slots hold pids, which
  hold channel ids, which arrays are indexed by pid.

Everything is named, never offset: SPIN orders the fields of ``State`` and ``Pk`` by type class,
so generated C must say ``now.turn`` and ``((P0 *)pptr(slot))->peer``.  A place is a
:class:`ValueField`: a struct (``State``, ``P1``, ``Q3``) and a path of members from it
(``recs[2]`` then ``who``).  Its :meth:`ValueField.lvalues` spell every element in C.

Facts the layout checks and refuses to guess about: every variable of the Model must be a field
of ``State`` or of its proctype's ``Pk``, or a hidden global; every static channel must be
created by an ``addqueue`` call; the message fields of a channel must match the ``fldN`` of its
``Qk``.  A mismatch is a :class:`~topspin_py.layout.panh.LayoutError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Iterator, Sequence

from ..promela import ast
from ..promela.model import INIT, Model, plain_type
from ..symmetry.inference import TypeInfo
from ..symmetry.kinds import (
    CHAN,
    DATA,
    LAST_SLOT,
    PID,
    FieldSlot,
    GlobalSlot,
    Kind,
    LocalSlot,
    MessageSlot,
    Slot,
    domain_of,
    variable_slot,
)
from .panh import CField, CStruct, LayoutError, PanHeader, PanSource, QueueCreation, read_pan_c, read_pan_h

# Fields of State that are pan's own bookkeeping, not Promela globals (pan.h, struct State).
STATE_HEADER = frozenset({"_nr_pr", "_nr_qs", "_a_t", "_cnt", "_vsz", "_last", "_ctx", "_l_bnd",
                          "_l_sds", "_event", "sv", "_ids_"})
# The header bitfields of every Pk: _pid (== slot - BASE), _t (the proctype), _p (the pc).
PROC_HEADER = frozenset({"_pid", "_t", "_p", "_priority"})
# Kinds of Pk that are model processes (Btypes[] of pan.c); the others are claims, np_, ...
PROCESS_KINDS = ("proctype", "active", "init")
# SPIN renames a variable declared in a nested { } block: `y` becomes `_6_3_y` (CurScope).
_SCOPED = "_(?:\\d+_)+"
_MEMBER = re.compile(r"(?P<name>\w+)(?:\[(?P<index>\d+)\])?$")
_CHANNEL_NAME = re.compile(r"^(?:(?P<proctype>.+)\((?P<pid>\d+)\)\.)?(?P<var>\w+)(?:\[(?P<index>\d+)\])?$")


@dataclass(frozen=True)
class Member:
    """One step of a path: a struct member, with its array length when it is an array."""

    name: str
    length: int | None = None

    def __str__(self) -> str:
        return self.name if self.length is None else f"{self.name}[{self.length}]"


def element_indices(path: Sequence[Member]) -> Iterator[tuple[int, ...]]:
    """The index combinations of the elements of ``path``, one index per array member."""
    return product(*(range(m.length) for m in path if m.length is not None))


@dataclass(frozen=True)
class ValueField:
    """A place in a state-vector struct that matters to a permutation of pids and channels.

    ``holds`` says what its values are (``pid``, ``chan`` or ``data``); ``pid_indexed`` says
    that its last member is an array indexed by pid (its elements move with the pids).  An
    array path member stands for all its elements.  ``bitfield`` marks a C bitfield, whose
    address C cannot take.  ``source`` is the TypeInfo slot the verdict came from:
    ``GlobalSlot(x)``, ``LocalSlot(proctype, x)``, ``FieldSlot(typedef, x)`` or
    ``MessageSlot(channel slot, i)``.

    Pids with an offset (symmetry/inference/): when it holds pids, a value v names pid v + ``offset``
    (a value for which that is no pid, 255 "nobody", names nothing); when it is indexed by pid,
    element i belongs to pid i + ``index_offset``.  Both are 0 for plain pids."""

    struct: str
    path: tuple[Member, ...]
    holds: Kind
    pid_indexed: bool
    bitfield: bool
    ctype: str
    source: Slot
    in_state_vector: bool = True
    offset: int = 0
    index_offset: int = 0

    @property
    def name(self) -> str:
        """The path as text, arrays marked by their length: ``recs[2].who``."""
        return ".".join(str(m) for m in self.path)

    def elements(self) -> Iterator[tuple[int, ...]]:
        """The index combinations of every element, one index per array member, in order:
        ``(0,)``, ``(1,)`` for ``recs[2].who``."""
        return element_indices(self.path)

    @property
    def array(self) -> Member | None:
        """The last member when it is an array (the one a pid index applies to)."""
        return self.path[-1] if self.path[-1].length is not None else None


@dataclass(frozen=True)
class ProcType:
    """One ``Pk`` of pan.h: a proctype (or init), a claim, ``np_``, or the claim selector.

    ``number`` is ``k``, the value of ``_t``; ``kind`` is from pan.c's ``Btypes[]``
    (``proctype``, ``active``, ``init``, ``claim``, ``np``; ``selector`` for the extra struct
    SPIN adds when there are several claims).  ``fields`` are the locals and parameters that
    hold pids or channels or are indexed by pid."""

    name: str
    struct: str
    number: int
    kind: str
    fields: tuple[ValueField, ...] = ()


@dataclass(frozen=True)
class ProcessSlot:
    """A process instance of the Model: it lives at ``pptr(slot)`` with ``slot = pid + BASE``."""

    pid: int
    proctype: str
    struct: str
    slot: int
    channels: tuple[int, ...]  # ids of the channels it owns (its local channels)


@dataclass(frozen=True)
class ChannelType:
    """One ``Qk``: the messages of one channel declaration (an array of channels has one per
    element).  ``declared_in`` and ``member`` say where ``addqueue`` stores the new channel's id
    (``State`` and ``q[1]``, or ``P0`` and ``reply``); ``variable`` is that variable's TypeInfo
    slot.  ``message`` lists every ``contents[i].fldN`` (data fields included), in N order."""

    struct: str
    number: int
    capacity: int  # the length of contents[] (1 for a rendezvous channel)
    rendezvous: bool
    declared_in: str
    member: str
    variable: Slot | None
    message: tuple[ValueField, ...]

    @property
    def value_fields(self) -> tuple[ValueField, ...]:
        return tuple(f for f in self.message if renamed(f.holds))


@dataclass(frozen=True)
class ChannelSlot:
    """A static channel of the Model: id ``id`` lives at ``qptr(id - 1)`` as a ``struct``."""

    id: int
    name: str
    struct: str
    owner_pid: int | None
    owner_slot: int | None


@dataclass(frozen=True)
class StateLayout:
    """Where pids and channel ids are, in the names of pan.h, for one model and one set of
    compile flags."""

    spin_version: str
    flags: tuple[str, ...]
    base: int  # BASE: process `pid` is in slot pid + base; slot 0 is the claim when base == 1
    has_last: bool
    globals: tuple[ValueField, ...]  # struct State (hidden ones with in_state_vector False)
    last: ValueField | None  # now._last (a pid) when HAS_LAST
    hidden: tuple[str, ...]  # every global SPIN keeps out of State
    proctypes: dict[str, ProcType]  # Promela name (":init:" for init) -> its Pk
    claims: tuple[ProcType, ...]  # the other Pk: never claims / ltl, np_, claim selector
    processes: tuple[ProcessSlot, ...]
    channel_types: dict[str, ChannelType]  # "Qk" -> type
    channels: tuple[ChannelSlot, ...]
    foreign: tuple[tuple[str, str], ...]  # (struct, field) no model variable explains (c_state)
    header: PanHeader = field(repr=False, compare=False)

    @property
    def state_fields(self) -> tuple[ValueField, ...]:
        """The fields of ``now`` a permutation touches (``_last`` included)."""
        found = tuple(f for f in self.globals if f.in_state_vector)
        return found + ((self.last,) if self.last is not None else ())

    @property
    def pid_indexed(self) -> tuple[ValueField, ...]:
        """Every array indexed by pid: globals first, then locals by proctype."""
        fields = [f for f in self.globals if f.pid_indexed]
        for proctype in self.proctypes.values():
            fields.extend(f for f in proctype.fields if f.pid_indexed)
        return tuple(fields)

    def process(self, pid: int) -> ProcessSlot:
        for process in self.processes:
            if process.pid == pid:
                return process
        raise KeyError(pid)

    def channel(self, channel_id: int) -> ChannelSlot:
        for channel in self.channels:
            if channel.id == channel_id:
                return channel
        raise KeyError(channel_id)

    def struct(self, name: str) -> CStruct:
        """The parsed struct ``State``, ``Pk``, ``Qk`` or a typedef's struct tag."""
        header = self.header
        if name == "State":
            return header.state
        if re.fullmatch(r"P\d+", name):
            return header.procs[int(name[1:])]
        if re.fullmatch(r"Q\d+", name):
            return header.queues[int(name[1:])]
        return header.user_types[name]


# ------------------------------------------------------------------------------ entry points
def read_layout(workdir: str | Path, model: Model, types: TypeInfo,
                flags: Sequence[str] = (), gcc: str = "gcc") -> StateLayout:
    """The layout of the pan.h and pan.c that ``spin -a`` wrote into ``workdir`` for ``model``,
    as compiled with the gcc ``flags`` (the -D/-U ones matter: ``-DNOCLAIM``, ``-DNP``,
    ``-DSAFETY`` ... change the structs and BASE).  ``types`` is what the symmetry analysis
    inferred for ``model`` (Group.types): the layout renames exactly what the validity check
    read as pids, channel ids and domain values, never a reading of its own."""
    workdir = Path(workdir)
    header = read_pan_h(workdir / "pan.h", flags, gcc)
    source = read_pan_c(workdir / "pan.c")
    return build_layout(header, source, model, types)


def build_layout(header: PanHeader, source: PanSource, model: Model, types: TypeInfo) -> StateLayout:
    return _Join(header, source, model, types).run()


# ------------------------------------------------------------------------------ the join
class _Join:
    def __init__(self, header: PanHeader, source: PanSource, model: Model, types: TypeInfo) -> None:
        self.header = header
        self.source = source
        self.model = model
        self.types = types
        self.foreign: list[tuple[str, str]] = []

    def run(self) -> StateLayout:
        proctypes, claims = self.proc_structs()
        globals_, hidden = self.global_fields()
        last = None
        if self.header.state.has("_last"):
            c = self.header.state.field("_last")
            last = ValueField("State", (Member("_last"),), PID, False, c.is_bitfield, c.ctype, LAST_SLOT)
        channel_types = self.channel_types(proctypes)
        channels = self.channel_slots(proctypes, channel_types)
        processes = tuple(
            ProcessSlot(p.pid, p.proctype, proctypes[p.proctype].struct, p.pid + self.header.base,
                        tuple(c.id for c in channels if c.owner_pid == p.pid))
            for p in self.model.processes)
        return StateLayout(
            spin_version=self.header.spin_version, flags=self.header.flags, base=self.header.base,
            has_last=last is not None, globals=globals_, last=last, hidden=hidden,
            proctypes=proctypes, claims=claims, processes=processes, channel_types=channel_types,
            channels=channels, foreign=tuple(self.foreign), header=self.header)

    # -------------------------------------------------------------- Pk
    def proc_structs(self) -> tuple[dict[str, ProcType], tuple[ProcType, ...]]:
        names, kinds = self.source.procnames, self.source.btypes
        model_names = set(self.model.proctypes) | ({INIT} if self.model.init is not None else set())
        proctypes: dict[str, ProcType] = {}
        claims: list[ProcType] = []
        for k, struct in self.header.procs.items():
            if k >= len(names):
                claims.append(ProcType(struct.comment or f"P{k}", f"P{k}", k, "selector"))
                continue
            name, kind = names[k], kinds[k]
            if struct.comment is not None and struct.comment != name.strip(":") and struct.comment != name:
                raise LayoutError(f"pan.h names P{k} '{struct.comment}' but procname[{k}] in pan.c "
                                  f"is '{name}'")
            if kind in PROCESS_KINDS:
                if name not in model_names:
                    raise LayoutError(f"pan.h has a struct P{k} for proctype '{name}', "
                                      "which the model does not declare")
                proctypes[name] = ProcType(name, f"P{k}", k, kind, self.local_fields(name, struct))
            else:
                claims.append(ProcType(name, f"P{k}", k, kind))
        missing = model_names - set(proctypes)
        if missing:
            raise LayoutError(f"pan.h has no struct for proctype(s) {', '.join(sorted(missing))}")
        return proctypes, tuple(claims)

    def local_fields(self, proctype: str, struct: CStruct) -> tuple[ValueField, ...]:
        variables = self.model.locals.get(proctype, [])
        names = {v.name for v in variables}
        matched: dict[str, str] = {}  # C field name -> Promela variable name
        for cfield in struct.fields:
            if cfield.name in PROC_HEADER:
                continue
            name = promela_name(cfield.name, names)
            if name is None:
                self.foreign.append((struct.name, cfield.name))
            else:
                matched[cfield.name] = name
        missing = names - set(matched.values())
        if missing:
            raise LayoutError(f"struct {struct.name} ({proctype}) has no field for local "
                              f"variable(s) {', '.join(sorted(missing))}")
        found: list[ValueField] = []
        for cfield in struct.fields:
            if cfield.name in matched:
                slot = LocalSlot(proctype, matched[cfield.name])
                found.extend(self.value_fields(struct.name, cfield, slot, ()))
        return tuple(found)

    # -------------------------------------------------------------- State
    def global_fields(self) -> tuple[tuple[ValueField, ...], tuple[str, ...]]:
        state = self.header.state
        hidden = {h.name: h for h in self.header.hidden}
        names = {v.name for v in self.model.globals}
        found: list[ValueField] = []
        for cfield in state.fields:
            if cfield.name in names:
                found.extend(self.value_fields("State", cfield, GlobalSlot(cfield.name), ()))
            elif cfield.name not in STATE_HEADER:
                self.foreign.append(("State", cfield.name))
        for var in self.model.globals:
            if state.has(var.name):
                continue
            if var.name not in hidden:
                raise LayoutError(f"global variable '{var.name}' is neither a field of State "
                                  "nor a hidden variable in pan.h", var.pos)
            found.extend(self.value_fields("State", hidden[var.name], GlobalSlot(var.name), (),
                                           in_state_vector=False))
        return tuple(found), tuple(h.name for h in self.header.hidden)

    # -------------------------------------------------------------- one variable
    def value_fields(self, struct: str, cfield: CField, slot: Slot, prefix: tuple[Member, ...],
                     in_state_vector: bool = True) -> list[ValueField]:
        """The ValueFields of one C member that holds the values of ``slot``: itself when it
        holds pids or channels or is indexed by pid, and whatever a typedef struct holds."""
        if len(cfield.dims) > 1 or None in cfield.dims:
            return []  # not a Promela variable's shape (c_state memory)
        member = Member(cfield.name, cfield.dims[0] if cfield.dims else None)
        path = prefix + (member,)
        tag = cfield.struct_tag
        holds = DATA if tag is not None else self.types.kind(slot)
        pid_indexed = member.length is not None and self.types.index_kind(slot) == PID
        found = []
        if renamed(holds) or pid_indexed:
            found.append(ValueField(struct, path, holds, pid_indexed, cfield.is_bitfield,
                                    cfield.ctype, slot, in_state_vector,
                                    offset=self.types.offset(slot) if holds == PID else 0,
                                    index_offset=self.types.index_offset(slot) if pid_indexed else 0))
        if tag is not None:
            inner = self.user_type(tag)
            for sub in inner.fields:
                found.extend(self.value_fields(struct, sub, FieldSlot(tag, sub.name), path,
                                               in_state_vector))
        return found

    def user_type(self, tag: str) -> CStruct:
        if tag not in self.header.user_types:
            raise LayoutError(f"pan.h has no 'struct {tag}' (a typedef of the model)")
        return self.header.user_types[tag]

    # -------------------------------------------------------------- Qk
    def channel_types(self, proctypes: dict[str, ProcType]) -> dict[str, ChannelType]:
        by_struct = {p.struct: p for p in proctypes.values()}
        result: dict[str, ChannelType] = {}
        for creation in self.source.queue_creations:
            qname = f"Q{creation.qtype}"
            if creation.qtype not in self.header.queues:
                raise LayoutError(f"pan.c creates a channel of type {qname}, which pan.h lacks")
            qstruct = self.header.queues[creation.qtype]
            contents = qstruct.field("contents") if qstruct.has("contents") else None
            capacity = contents.dims[0] if contents is not None and contents.dims else 0
            assert capacity is not None  # pan.h gives contents[] a number for its length
            variable, init = self.channel_variable(creation, by_struct)
            message = self.message_fields(qname, contents, variable, init)
            result[qname] = ChannelType(qname, creation.qtype, capacity, creation.is_rv,
                                        creation.struct, creation.member, variable, message)
        return dict(sorted(result.items(), key=lambda item: item[1].number))

    def channel_variable(self, creation, by_struct) -> tuple[Slot | None, ast.ChanInit | None]:
        """The TypeInfo slot of the variable that ``creation`` assigns, and its initialiser."""
        steps = creation.member.split(".")
        first = _member_name(steps[0], creation)
        if creation.struct == "State":
            var = self.model.global_named(first)
            owner = None
        else:
            proctype = by_struct.get(creation.struct)
            if proctype is None:
                raise LayoutError(f"pan.c creates a channel in {creation.struct}, "
                                  "which is not a proctype's struct")
            owner = proctype.name
            variables = self.model.locals.get(owner, [])
            name = promela_name(first, {v.name for v in variables})
            candidates = [v for v in variables if v.name == name]
            # a name declared twice (in two blocks): the one with a channel initialiser
            var = next((v for v in candidates if isinstance(v.init, ast.ChanInit)),
                       candidates[0] if candidates else None)
        if var is None:
            raise LayoutError(f"pan.c creates a channel in {creation.struct}.{creation.member}, "
                              "which is no channel variable of the model")
        if len(steps) == 1:
            slot = variable_slot(owner, var.name)
            return slot, var.init if isinstance(var.init, ast.ChanInit) else None
        # a channel field of a typedef: now.rec.q, now.recs[1].inner.q
        holder = self.header.state if creation.struct == "State" else self.header.procs[int(creation.struct[1:])]
        tag: str | None = None
        for step in steps[:-1]:
            cfield = holder.field(_member_name(step, creation))
            tag = cfield.struct_tag
            if tag is None:
                raise LayoutError(f"pan.c creates a channel in {creation.struct}.{creation.member}, "
                                  f"but {step} is no struct")
            holder = self.user_type(tag)
        assert tag is not None  # two steps or more: the loop ran
        last = _member_name(steps[-1], creation)
        decl = _typedef_field(self.model.typedefs.get(tag), last)
        init = next((v.init for v in decl.vars if v.name == last), None) if decl is not None else None
        return FieldSlot(tag, last), init if isinstance(init, ast.ChanInit) else None

    def message_fields(self, qname: str, contents: CField | None, variable: Slot | None,
                       init: ast.ChanInit | None) -> tuple[ValueField, ...]:
        flds = contents.members if contents is not None else ()
        leaves: list[tuple[Slot, Kind]] = []  # (source slot, kind) per fldN
        for i, ftype in enumerate([plain_type(f) for f in init.fields] if init is not None else []):
            if ftype.name in self.model.typedefs:
                leaves.extend(self.typedef_leaves(ftype.name))
            else:
                field_slot = MessageSlot(variable, i)
                kind = self.types.kind(field_slot)
                if kind == DATA:
                    kind = {"pid": PID, "chan": CHAN}.get(ftype.name, DATA)
                leaves.append((field_slot, kind))
        if init is not None and len(leaves) != len(flds):
            raise LayoutError(f"{qname} has {len(flds)} message fields in pan.h, but the model's "
                              f"declaration gives {len(leaves)}")
        length = contents.dims[0] if contents is not None and contents.dims else None
        result = []
        for n, fld in enumerate(flds):
            slot, kind = leaves[n] if n < len(leaves) else (MessageSlot(variable, n), DATA)
            result.append(ValueField(qname, (Member("contents", length), Member(fld.name)), kind,
                                     False, fld.is_bitfield, fld.ctype, slot,
                                     offset=self.types.offset(slot) if kind == PID else 0))
        return tuple(result)

    def typedef_leaves(self, tag: str) -> Iterator[tuple[Slot, Kind]]:
        """A typedef in a message is flattened into one fldN per scalar, in declaration order."""
        for cfield in self.user_type(tag).fields:
            count = cfield.dims[0] if cfield.dims else 1
            assert count is not None  # a typedef's arrays have a number for their length in pan.h
            if cfield.struct_tag is not None:
                for _ in range(count):
                    yield from self.typedef_leaves(cfield.struct_tag)
                continue
            slot = FieldSlot(tag, cfield.name)
            for _ in range(count):
                yield slot, self.types.kind(slot)

    def channel_slots(self, proctypes, channel_types) -> tuple[ChannelSlot, ...]:
        by_place = {(t.declared_in, t.member): t for t in channel_types.values()}
        slots = []
        places: dict[tuple[str, int | None], list[str]] = {}
        for channel in self.model.channels:
            match = _CHANNEL_NAME.match(channel.name)
            if match is None:
                raise LayoutError(f"cannot read the channel name '{channel.name}'")
            index = match.group("index")
            if channel.owner_pid is None:
                struct, var = "State", match.group("var")
            else:
                proctype = proctypes[match.group("proctype")]
                struct = proctype.struct
                var = self.c_member_of_local(proctype, match.group("var"))
            member = var if index is None else f"{var}[{index}]"
            ctype = by_place.get((struct, member))
            if ctype is None:
                raise LayoutError(f"pan.c creates no channel for '{channel.name}' "
                                  f"(looked for {struct}.{member})", channel.pos)
            owner_slot = None if channel.owner_pid is None else channel.owner_pid + self.header.base
            slots.append(ChannelSlot(channel.id, channel.name, ctype.struct, channel.owner_pid, owner_slot))
            places.setdefault((struct, channel.owner_pid), []).append(member)
        self.check_creation_order(places, proctypes)
        return tuple(slots)

    def check_creation_order(self, places: dict[tuple[str, int | None], list[str]],
                             proctypes: dict[str, ProcType]) -> None:
        """Channel ids are handed out in creation order: the global channels in iniglobals(),
        then each process's local channels in addproc().  The Model numbers them the same way;
        pan.c's addqueue calls, in text order, must agree, or the ids would be wrong (a channel
        inside a typedef, for one, is created by pan but not numbered by the Model)."""
        created: dict[str, list[str]] = {}
        for creation in self.source.queue_creations:
            created.setdefault(creation.struct, []).append(creation.member)
        expected = [("State", places.get(("State", None), []))]
        expected += [(proctypes[p.proctype].struct, places.get((proctypes[p.proctype].struct, p.pid), []))
                     for p in self.model.processes]
        for struct, members in expected:
            if created.get(struct, []) != members:
                where = "global channels" if struct == "State" else f"local channels of {struct}"
                raise LayoutError(
                    f"pan.c creates the {where} as {created.get(struct, [])}, the model numbers "
                    f"{members}: channel ids would not match",
                    hint="channels declared inside a typedef are not supported")

    def c_member_of_local(self, proctype: ProcType, name: str) -> str:
        struct = self.header.procs[proctype.number]
        for cfield in struct.fields:
            if promela_name(cfield.name, {name}) == name:
                return cfield.name
        raise LayoutError(f"struct {struct.name} ({proctype.name}) has no field for '{name}'")


def renamed(holds: Kind) -> bool:
    """Whether a permutation renames the values of a place that ``holds`` these: pids, channel
    ids or the values of a scalar domain (types.scalar_kind)."""
    return holds in (PID, CHAN) or domain_of(holds) is not None


def promela_name(c_name: str, names: set[str]) -> str | None:
    """The Promela variable a field of a Pk holds: the same name, or the name behind SPIN's
    block-scope prefix (``_6_3_y`` for a ``y`` declared in a nested block)."""
    if c_name in names:
        return c_name
    rest = c_name
    while (prefix := re.match(r"_\d+(?=_)", rest)) is not None:
        rest = rest[prefix.end():]
        if rest[1:] in names:
            return rest[1:]
    return None


def _member_name(step: str, creation: QueueCreation) -> str:
    """``q`` of ``q`` or ``q[2]``, one step of the member path that ``creation`` assigns."""
    match = _MEMBER.match(step)
    if match is None:
        raise LayoutError(f"pan.c creates a channel in {creation.struct}.{creation.member}, "
                          f"whose member {step} is neither a name nor a name with a number index")
    return match.group("name")


def _typedef_field(typedef: ast.TypeDef | None, name: str):
    if typedef is None:
        return None
    return next((d for d in typedef.fields for v in d.vars if v.name == name), None)
