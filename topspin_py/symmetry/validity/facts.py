"""The facts about a model that the checker computes once, before any candidate: the constants,
the places that hold pids and channel ids with the values their C types hold, the arrays indexed
by pid or channel ids, the processes that can terminate, the constant parameters of a proctype
(which a permutation may rename among themselves), and so on (ModelFacts)."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import SourcePos
from ...promela import ast
from ...promela.constants import constant_value
from ...promela.model import INIT, Model, Variable, plain_type
from ...promela.termination import can_terminate
from ..inference import SlotResolver, TypeInfo, written_targets, written_variables
from ..kinds import CHAN, DATA, PID, FieldSlot, GlobalSlot, Kind, LocalSlot, MessageSlot, Slot, shifted
from .alpha import Alpha


@dataclass(frozen=True)
class PidIndexedArray:
    """An array whose index is a pid: its elements move with the pids."""

    name: str
    size: int
    in_typedef: bool
    pos: SourcePos | None
    offset: int = 0  # element i belongs to pid i + offset


@dataclass(frozen=True)
class ValuePlace:
    """A variable, typedef field or message field that holds pids or channel ids, with the
    values its C type holds (``smallest`` .. ``largest``: pan.h declares a byte ``uchar``, a
    short ``short``, ``unsigned x : 3`` a bit-field of 3 bits)."""

    name: str
    kind: Kind
    largest: int
    pos: SourcePos | None
    offset: int = 0  # a pid p is held as p - offset
    smallest: int = 0
    ctype: str = "byte"

    def holds(self, value: int) -> bool:
        return self.smallest <= value <= self.largest

    def stored(self, value: int) -> int:
        """``value`` as the C field holds it once assigned: wrapped around into its type."""
        return _wrapped(value, self.smallest, self.largest)


class ModelFacts:
    """The facts about one model, with its inferred types, that the checks read: the base of
    every part of the Checker (checker.py).  Provides the attributes set here, slot_kind,
    index_context and process_names; needs nothing from the other parts."""

    def __init__(self, model: Model, types: TypeInfo) -> None:
        self.model = model
        self.types = types
        self.resolve = SlotResolver(model, types.bound)
        self.mtypes = dict(model.mtypes)
        # Names with one value in every state: mtype names and globals holding data that
        # nothing writes (`byte x = 2`, a #define in disguise); constants fold through them.
        self.constants = {**self.mtypes, **self._unwritten_globals()}
        self.pids = {p.pid for p in model.processes}
        self.chan_ids = {c.id for c in model.channels}
        self.domain_values = {name: frozenset(d.values) for name, d in types.domains.items()}
        self.instances: dict[str, list[int]] = {}
        for proc in model.processes:
            self.instances.setdefault(proc.proctype, []).append(proc.pid)
        self.channel_by_name = {c.name: c for c in model.channels if c.owner_pid is None}
        self.channel_by_id = {c.id: c for c in model.channels}
        # Globals declared with a channel initialiser: their names are the channels' names.
        self.static_channel_vars = {v.name: v for v in model.globals if isinstance(v.init, ast.ChanInit)}
        self.static_runs = {id(p.node) for p in model.processes if p.node is not None}
        self.pid_expressions: dict[int, tuple[object, tuple[bool, bool]]] = {}
        # The references to locals that hold an expression of _pid for ever (pid_copies, symmetry/inference),
        # each read like that expression; and their values per pid.
        self.copy_refs = self._copy_references()
        self.copy_values: dict[tuple[str, int], dict[str, int]] = {}
        self.expression_kinds: dict[tuple[int, str | None], tuple[object, Kind | None]] = {}
        self.terminating = {name for name, p in model.proctypes.items() if can_terminate(p.body)}
        if model.init is not None and can_terminate(model.init.body):
            self.terminating.add(INIT)
        # Locals that hold pids, directly or in a typedef's field (SPIN resets dead locals).
        self.pid_locals = [
            (v, offset) for owner, vars_ in model.locals.items() for v in vars_
            for offset in sorted(({types.offset(LocalSlot(owner, v.name))}
                                  if types.kind(LocalSlot(owner, v.name)) == PID else set())
                                 | self._typedef_offsets(v.type.name, set()))
        ]
        self.zero_locals = self._domain_zero_locals()
        self.constant_params = self._constant_parameters()
        # The text of the regions (occurrence_regions) writes each constant parameter as its
        # type and how the text uses it (parameter_labels), which param_permutation keeps.
        self.parameter_masks = {name: {v.name: "$" + parameter_labels(model, name, self.constant_params)[v.name]
                                       for v in params}
                                for name, params in self.constant_params.items()}
        # The proctypes whose constant parameters are constants of their processes' slots:
        # the canonicaliser leaves them in each slot, and a permutation may rename them among
        # themselves (param_permutation).  Chosen by detection (detect.py): those whose
        # processes a candidate maps onto each other only under such a renaming
        # (wants_slot_constants).  (alpha, proctype) -> the renaming, as check_processes found it.
        self.slot_constants: frozenset[str] = frozenset()
        self.wants_slot_constants: set[str] = set()
        self.renamings: dict[tuple[Alpha, str], dict[str, str]] = {}
        self.pid_arrays = self._pid_indexed_arrays()
        self.chan_indexed = self._chan_indexed_arrays()
        self.value_places = self._value_places()
        self.structured_messages = self._structured_messages()
        self.written_static_channels = self._written_static_channels()

    # ------------------------------------------------------------------ facts about the model
    def _constant_parameters(self) -> dict[str, list[Variable]]:
        """The parameters that hold the same value in every state of their process: those of
        a proctype whose processes init's runs all start before the search (numbered), that no
        statement writes (here or through a remote reference).  Each process's are constants of
        its slot, which a permutation may rename among themselves (param_permutation)."""
        written = written_variables(self.model)
        found = {}
        for name in self.model.proctypes:
            instances = self.model.processes_of(name)
            if len(instances) < 2 or any(p.origin != "run" or p.node is None for p in instances) \
                    or any(len(p.args) != len(instances[0].args) for p in instances):
                continue
            params = [v for v in self.model.locals.get(name, []) if v.is_param and v.size is None
                      and (name, v.name) not in written]
            if len(params) >= 2:
                found[name] = params
        return found

    def _domain_zero_locals(self) -> list[tuple[str, Variable, str]]:
        """The locals of each scalar domain that get 0 whatever the permutation: one without an
        initialiser starts at 0 when its process is created, and SPIN resets a dead local to 0.
        (domain, variable, why), for the domains that hold 0."""
        found = []
        resets = self.model.dead_resets
        for name, domain in self.types.domains.items():
            if 0 not in domain.values:
                continue
            for slot in domain.slots:
                if not isinstance(slot, LocalSlot):
                    continue
                var = self.model.local_named(slot.owner, slot.name)
                if var is None:
                    continue
                if var.init is None and not var.is_param:
                    found.append((name, var, "a process starts with it 0"))
                elif self.model.resets_dead_locals and (resets is None or (var.owner, var.name) in resets):
                    found.append((name, var, "SPIN resets dead local variables to 0"))
        return found

    def _pid_indexed_arrays(self) -> list[PidIndexedArray]:
        found = []
        for var in self.model.globals:
            if var.size is not None and self.types.index_kind(GlobalSlot(var.name)) == PID:
                found.append(PidIndexedArray(var.name, var.size, False, var.pos,
                                             self.types.index_offset(GlobalSlot(var.name))))
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                if var.size is not None and self.types.index_kind(LocalSlot(owner, var.name)) == PID:
                    found.append(PidIndexedArray(f"{var.name} of {owner}", var.size, False, var.pos,
                                                 self.types.index_offset(LocalSlot(owner, var.name))))
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                for field_var in decl.vars:
                    if field_var.size is not None \
                            and self.types.index_kind(FieldSlot(typedef.name, field_var.name)) == PID:
                        size = constant_value(field_var.size, self.mtypes) or 0
                        found.append(PidIndexedArray(f"{typedef.name}.{field_var.name}", size, True,
                                                     field_var.pos))
        return found

    def _chan_indexed_arrays(self) -> list[tuple[str, SourcePos | None]]:
        found = []
        for var in self.model.globals:
            if var.size is not None and self.types.index_kind(GlobalSlot(var.name)) == CHAN:
                found.append((var.name, var.pos))
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                if var.size is not None and self.types.index_kind(LocalSlot(owner, var.name)) == CHAN:
                    found.append((f"{var.name} of {owner}", var.pos))
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                for field_var in decl.vars:
                    if field_var.size is not None \
                            and self.types.index_kind(FieldSlot(typedef.name, field_var.name)) == CHAN:
                        found.append((f"{typedef.name}.{field_var.name}", field_var.pos))
        return found

    def _value_places(self) -> list[ValuePlace]:
        """Every declared place whose values are pids or channel ids, with its type's range:
        a value outside it wraps around when stored, and the canonicaliser reads what is
        stored (templates/_apply.c.j2: ts_pid, ts_lid, ts_chan)."""
        places = []

        def add(name: str, slot: Slot, typename: str, bits: int | None, pos) -> None:
            kind = self.types.kind(slot)
            if kind in (PID, CHAN):
                smallest, largest = _value_range(typename, bits)
                ctype = f"unsigned : {bits}" if typename == "unsigned" and bits is not None else typename
                places.append(ValuePlace(name, kind, largest, pos, self.types.offset(slot), smallest, ctype))

        def add_channel(slot: Slot, init: ast.ChanInit, name: str, pos) -> None:
            for i, ftype in enumerate(init.fields):
                typename = plain_type(ftype).name
                if typename not in self.model.typedefs:
                    add(f"field {i + 1} of the messages of {name}", MessageSlot(slot, i), typename, None, pos)

        for var in self.model.globals:
            add(var.name, GlobalSlot(var.name), var.type.name, var.bits, var.pos)
            if isinstance(var.init, ast.ChanInit):
                add_channel(GlobalSlot(var.name), var.init, var.name, var.pos)
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                add(f"{var.name} of {owner}", LocalSlot(owner, var.name), var.type.name, var.bits, var.pos)
                if isinstance(var.init, ast.ChanInit):
                    add_channel(LocalSlot(owner, var.name), var.init, var.name, var.pos)
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                for field_var in decl.vars:
                    bits = constant_value(field_var.bits, self.mtypes) if field_var.bits is not None else None
                    add(f"{typedef.name}.{field_var.name}", FieldSlot(typedef.name, field_var.name),
                        plain_type(decl.type).name, bits, field_var.pos)
        return places

    def _unwritten_globals(self) -> dict[str, int]:
        """Scalar globals of a basic type holding data, with a constant initial value that fits
        the type, that no statement writes and no local shadows: name -> value."""
        written = {t.name for unit in self.model.expanded.units for node in unit.walk()
                   for t in written_targets(node) if isinstance(t, ast.VarRef)}
        local_names = {v.name for vars_ in self.model.locals.values() for v in vars_}
        found = {}
        for var in self.model.globals:
            if var.size is not None or var.name in written or var.name in local_names \
                    or var.type.name not in _TYPE_MAX and var.type.name != "unsigned" \
                    or var.type.name in ("pid", "chan") \
                    or self.types.kind(GlobalSlot(var.name)) != DATA:
                continue
            value = 0 if var.init is None else constant_value(var.init, self.mtypes)
            if value is not None and 0 <= value <= _largest_value(var.type.name, var.bits):
                found[var.name] = value
        return found

    def _structured_messages(self) -> list[tuple[str, Kind, SourcePos | None]]:
        """Channels whose messages have a typedef field holding pids or channel ids: the
        canonicaliser renames plain message fields only, so those values would stay as they
        are.  (name, kind, where) for each."""
        found = []
        declarations = [(v, v.init) for v in self.model.globals if isinstance(v.init, ast.ChanInit)]
        declarations += [(v, v.init) for vars_ in self.model.locals.values() for v in vars_
                         if isinstance(v.init, ast.ChanInit)]
        for var, init in declarations:
            for ftype in init.fields:
                kinds = self._typedef_kinds(plain_type(ftype).name, set())
                for kind in sorted(kinds, key=str):
                    found.append((var.name, kind, var.pos))
        return found

    def _typedef_kinds(self, name: str, seen: set[str]) -> set[Kind]:
        """The kinds (PID, CHAN) held anywhere inside typedef ``name`` (empty for a basic type)."""
        typedef = self.model.typedefs.get(name)
        if typedef is None or name in seen:
            return set()
        seen.add(name)
        kinds: set[Kind] = set()
        for decl in typedef.fields:
            for var in decl.vars:
                kind = self.types.kind(FieldSlot(name, var.name))
                if kind in (PID, CHAN):
                    kinds.add(kind)
            kinds |= self._typedef_kinds(plain_type(decl.type).name, seen)
        return kinds

    def _typedef_offsets(self, name: str, seen: set[str]) -> set[int]:
        """The offsets of the pids held anywhere inside typedef ``name``."""
        typedef = self.model.typedefs.get(name)
        if typedef is None or name in seen:
            return set()
        seen.add(name)
        offsets = set()
        for decl in typedef.fields:
            for var in decl.vars:
                if self.types.kind(FieldSlot(name, var.name)) == PID:
                    offsets.add(self.types.offset(FieldSlot(name, var.name)))
            offsets |= self._typedef_offsets(plain_type(decl.type).name, seen)
        return offsets

    def slot_kind(self, slot: Slot | None) -> Kind:
        """The kind of ``slot`` as a context: pids with an offset are ``shifted(K)``."""
        kind = self.types.kind(slot)
        return shifted(self.types.offset(slot)) if kind == PID else kind

    def index_context(self, array_slot: Slot) -> Kind:
        kind = self.types.index_kind(array_slot)
        return shifted(self.types.index_offset(array_slot)) if kind == PID else kind

    def _written_static_channels(self) -> dict[str, SourcePos | None]:
        """Globals declared as channels that the program writes: their value is then not
        their own channel's id for ever (the text renaming of their names assumes it is)."""
        written: dict[str, SourcePos | None] = {}
        names = set(self.static_channel_vars)
        if not names:
            return written
        for unit in self.model.expanded.units:
            for node in unit.walk():
                for target in node.writes():
                    if isinstance(target, ast.VarRef) and target.name in names and target.field is None:
                        owner_var, _ = self.resolve.variable(target.name, owner_of(unit))
                        if owner_var is not None and owner_var.owner is None:
                            written.setdefault(target.name, target.pos or node.pos)
        return written

    def _setup_send_target(self, send: ast.Send) -> str | None:
        """The channel a send in init's set-up block fills, when that send cannot block and
        commutes with the block's other statements: a constant message into a buffered global
        channel named by a constant, that nothing reassigns, while init is the only process
        that has run (no active proctypes), so every channel is still empty."""
        if any(p.origin == "active" for p in self.model.processes):
            return None
        chan = send.chan
        if not isinstance(chan, ast.VarRef) or chan.field is not None or send.sorted:
            return None
        var = self.static_channel_vars.get(chan.name)
        owner_var, _ = self.resolve.variable(chan.name, INIT)
        if var is None or owner_var is not var or chan.name in self.written_static_channels:
            return None
        if any(constant_value(arg) is None for arg in send.args):
            return None
        name = chan.name
        if chan.index is not None:
            index = constant_value(chan.index)
            if index is None:
                return None
            name = f"{chan.name}[{index}]"
        channel = next((c for c in self.model.channels if c.owner_pid is None and c.name == name), None)
        if channel is None or channel.capacity < 1:
            return None
        return f"chan {channel.id}"

    def _copy_references(self) -> set[int]:
        """The ids of the references, in its own proctype's text, to a local that holds an
        expression of _pid for ever (not those of remote references, which read another
        process's)."""
        found: set[int] = set()
        for unit in self.model.expanded.units:
            names = self.types.copy_names(owner_of(unit))
            stack: list[ast.Node] = [unit] if names else []
            while stack:  # (no recursive closure: detect leaves no reference cycles)
                node = stack.pop()
                if isinstance(node, ast.VarRef) and node.name in names and node.index is None \
                        and node.field is None:
                    found.add(id(node))
                stack.extend(child for child in node.children()
                             if not (isinstance(node, ast.RemoteVar) and child is node.var))
        return found

    def process_names(self, owner: str, p: int) -> dict[str, int]:
        """The names an expression of _pid in the text of ``owner`` reads, for process p: the
        constants, _pid, and the locals that copy an expression of it."""
        key = (owner, p)
        names = self.copy_values.get(key)
        if names is None:
            names = {**self.constants, "_pid": p}
            for name, init in self.types.copies.get(owner, {}).items():
                value = constant_value(init, names)
                if value is not None:
                    names[name] = value
            self.copy_values[key] = names
        return names


def parameter_labels(model: Model, proctype: str, constant_params: dict[str, list[Variable]]) -> dict[str, str]:
    """The label of the edge from a process to the channel it gets as each parameter (in the
    static channel diagram, scd.py): the parameter's name, except for parameters that a valid
    permutation may rename among themselves (``constant_params``, ModelFacts._constant_parameters;
    Checker.param_permutation): those of one type whose uses in the proctype's text look alike
    (the kinds of statement and operand each is used in) share a label, so that nauty proposes
    the renamings (a hypercube node's out0, out1 and out2)."""
    params = [v for v in model.locals.get(proctype, []) if v.is_param]
    labels = {v.name: f"param:{v.name}" for v in params}
    constant = constant_params.get(proctype, [])
    if not constant:
        return labels
    uses: dict[str, set[str]] = {v.name: set() for v in constant}
    body = model.proctypes[proctype].body
    for node in body.walk():
        for name in node.field_names:
            value = getattr(node, name)
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.VarRef) and child.name in uses:
                    uses[child.name].add(f"{type(node).__name__}.{name}")
    for var in constant:
        labels[var.name] = f"param:{var.type.name}:{','.join(sorted(uses[var.name]))}"
    return labels


def owner_of(unit) -> str | None:
    """The proctype whose text ``unit`` is (INIT for init's), None for any other unit."""
    if isinstance(unit, ast.Proctype):
        return unit.name
    if isinstance(unit, ast.Init):
        return INIT
    return None


_TYPE_MAX = {"bit": 1, "bool": 1, "byte": 255, "pid": 255, "chan": 255, "mtype": 255,
             "short": 32767, "int": 2**31 - 1}
_SIGNED = frozenset({"short", "int"})   # pan.h: short, int; the others unsigned char or bit-fields


def _largest_value(typename: str, bits: int | None) -> int:
    return _value_range(typename, bits)[1]


def _value_range(typename: str, bits: int | None) -> tuple[int, int]:
    """The values a variable of this Promela type holds in pan's state vector."""
    if typename == "unsigned" and bits is not None:
        return 0, 2 ** bits - 1
    largest = _TYPE_MAX.get(typename, 2**31 - 1)
    return (-largest - 1 if typename in _SIGNED or typename not in _TYPE_MAX else 0), largest


def _wrapped(value: int, smallest: int, largest: int) -> int:
    """``value`` assigned to a C integer of range smallest .. largest (two's complement)."""
    return (value - smallest) % (largest - smallest + 1) + smallest
