"""Which data holds process ids and which holds channel ids (in the spirit of TopSPIN's Etch).

Every place that holds a value is a *slot*: a global variable, a local variable or parameter of
a proctype, a field of a typedef, a field of the messages of a channel class, or the index of an
array.  Slots that exchange values (assignment, comparison with ``==``/``!=``, parameter
passing, sending and receiving, a loop variable and the array it runs over) are unified; a class
of slots is

* ``PID`` when one of them is declared ``pid``, receives ``_pid`` or the value of ``run``, or
  stands where a pid is meant: the index of a remote reference ``P[i]@l``, ``P[i]:x`` and the
  argument of ``enabled``, ``pc_value``, ``get_priority`` and ``set_priority``;
* ``CHAN`` when one of them is declared ``chan``, or names the channel of a send, receive,
  poll or channel function;
* ``DATA`` otherwise.

A PID class may hold pids *with an offset* K (seed 003's local ids, issue 14; ``flag[_pid - 1]``
for pids 1..N, issue 15): its value v denotes pid v + K, and a value for which v + K is no pid
(255, "nobody") names nothing.  The offset comes from ``x = _pid - K`` (K a constant), from an
index ``a[_pid - K]``, from a comparison ``x == _pid - K`` or a message or argument
``_pid - K``, and spreads by unification like the kind; plain pids have offset 0.  A class that
gets two offsets (``flag[_pid - 1]`` and ``flag[_pid]``) is tainted.

An array whose index class is ``PID`` is indexed by pid (with its class's offset: element i
belongs to pid i + K).  A PID or CHAN slot used in arithmetic
or in an ordering (``<``, ``+``, ``++``, a loop counter ...) is *tainted*: a permutation does not
commute with such uses, so the symmetry analysis drops the symmetry and says why.  Expressions
that compute a pid from ``_pid`` and constants alone (``1 - _pid``, ``(_pid + 1) % N``) are not
taints: the validity check evaluates them for every process, in whatever offset their place
has (so they give a class no offset of their own).  A local that holds such an expression for
ever (``pid i = _pid; pid j = 1 - i``, never written again: pid_copies) is read like it, so
``1 - i`` is no taint either.  The counter of a loop that walks a range of ids at once inside a
d_step, with an order-independent body (loops.py), is a slot of its own inside the body (a
pid there) and data outside it; the loops refused say why in their counter's taint.

A DATA class that acts as ids is a *scalar domain* (find_domains), Murphi's scalarset found
in the text: its slots are scalar variables and message fields of integer types, every value
they are given is a constant or another of their own (no arithmetic, no `len`, no array index),
and they are compared with ``==``/``!=`` or by order with a constant only; at least two
constants flow into it.  Its values are those constants, and its kind is ``scalar:NAME``
(scalar_kind), NAME its first variable's.  A comment ``/* topspin: scalarset NAME */`` (the
model's pragmas.py) declares the mtype subtype NAME one: its variables, parameters and message
fields are one class with every value of the subtype, and a use that breaks the rules above
(an ordering included) is a ModelError at its place.

This inference only decides the kinds.  It need not be complete for soundness: validity.py
rewrites the program under each candidate permutation and rejects every place where the kind of
a value and the kind of its context disagree, so a flow this module misses costs symmetry, never
a wrong verdict.  Both walks dispatch over every node kind (``match`` with ``assert_never``), so
a construct added to the front end stops mypy until both say what it means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection, Iterable, assert_never

from ..errors import ModelError
from ..promela import ast
from ..promela.model import INIT, Model, Variable, constant_value
from ..promela.printer import print_expr
from .loops import find_loops

PID, CHAN, DATA = "pid", "chan", "data"
SCALAR = "scalar:"  # the prefix of a scalar domain's kind: "scalar:NAME" (scalar_kind)


def scalar_kind(domain: str) -> str:
    """The kind of the slots that hold the values of scalar domain ``domain``."""
    return SCALAR + domain


def domain_of(kind) -> str | None:
    """The scalar domain a kind made by :func:`scalar_kind` holds, None for any other kind."""
    return kind[len(SCALAR):] if isinstance(kind, str) and kind.startswith(SCALAR) else None

_ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">="}
_ORDER = {"<", "<=", ">", ">="}
_SELF_PID = ("self", "_pid")  # the pseudo-slot of `_pid`, a PID by definition
LAST_SLOT = ("global", "_last")  # SPIN's `_last`: the pid of the process that moved last
# Builtins whose first argument is a pid.
PID_BUILTINS = frozenset({"enabled", "pc_value", "get_priority", "set_priority"})

Slot = tuple


@dataclass
class Taint:
    """A PID or CHAN slot used where permutations do not commute with it."""

    slot: Slot
    node: ast.Node | None  # the offending expression or statement; None for a slot of both kinds
    why: str


@dataclass(frozen=True)
class Domain:
    """A scalar domain: a class of data slots whose values act as ids, like a scalarset of
    Murphi (module docstring).  ``values`` are the constants the program stores in its slots or
    compares them with; a permutation of the domain permutes them and fixes every other value."""

    name: str
    values: tuple[int, ...]
    slots: tuple[Slot, ...]       # the global and local variables and message fields of the class
    pos: object = None            # where its first variable is declared


@dataclass
class TypeInfo:
    """The result: the kind of every slot class, and what defeats the analysis."""

    kind_of_root: dict
    parent: dict
    taints: list[Taint] = field(default_factory=list)
    # slot -> kind, filled as asked: the validity check asks for the same slots once per
    # candidate (the classes are final once inference is done)
    known_kinds: dict = field(default_factory=dict, repr=False, compare=False)
    # root -> K, for the PID classes whose values are pids shifted by K (v denotes pid v + K)
    offset_of_root: dict = field(default_factory=dict)
    # parameter slot -> K, for the parameters taken to hold their process's pid - K
    # (id_parameters)
    id_parameters: dict = field(default_factory=dict)
    # proctype -> {local name: its initialiser}, for the locals that are copies of a value
    # computed from _pid (pid_copies): read like that value
    copies: dict = field(default_factory=dict)

    # the loops over ids whose counter is a pid inside their body only (loops.py)
    loops: list = field(default_factory=list)
    bound: dict = field(default_factory=dict)  # id(VarRef) -> its loop's slot
    # the scalar domains, by name (their roots have the kind scalar_kind(name)), and why the
    # data classes that hold several constants are not domains (class root -> (node, why))
    domains: dict[str, Domain] = field(default_factory=dict)
    not_domains: dict = field(default_factory=dict)

    def domain(self, slot: Slot | None) -> Domain | None:
        """The scalar domain whose values ``slot`` holds, if any."""
        name = domain_of(self.kind(slot))
        return self.domains.get(name) if name is not None else None

    def copy_names(self, owner: str | None) -> frozenset[str]:
        """The locals of ``owner`` that hold an expression of its _pid for ever (pid_copies)."""
        return frozenset(self.copies.get(owner, ())) if owner is not None else frozenset()

    def find(self, slot: Slot) -> Slot:
        while self.parent.get(slot, slot) != slot:
            slot = self.parent[slot]
        return slot

    def kind(self, slot: Slot | None) -> str:
        if slot is None:
            return DATA
        kind = self.known_kinds.get(slot)
        if kind is None:
            kind = PID if slot == _SELF_PID else self.kind_of_root.get(self.find(slot), DATA)
            self.known_kinds[slot] = kind
        return kind

    def index_kind(self, array_slot: Slot) -> str:
        # Keyed by the array itself: its elements may be unified with other slots, its index
        # class is its own.
        return self.kind(("index", array_slot))

    def offset(self, slot: Slot | None) -> int:
        """K for a PID slot whose value v denotes pid v + K (0 for plain pids and non-pids)."""
        if slot is None or slot == _SELF_PID or self.kind(slot) != PID:
            return 0
        return self.offset_of_root.get(self.find(slot), 0)

    def index_offset(self, array_slot: Slot) -> int:
        """K for an array indexed by pid with offset K: element i belongs to pid i + K."""
        return self.offset(("index", array_slot))


class SlotResolver:
    """Maps variable references to slots, given the proctype whose code is being read."""

    def __init__(self, model: Model, bound: dict | None = None) -> None:
        self.model = model
        # References to the counter of a loop over ids, inside its body (loops.py): a slot of
        # their own, id(VarRef) -> slot.
        self.bound = bound or {}
        self.globals = {v.name: v for v in model.globals}
        self.locals = {owner: {v.name: v for v in vars_} for owner, vars_ in model.locals.items()}

    def variable(self, name: str, owner: str | None):
        if owner is not None and name in self.locals.get(owner, {}):
            return self.locals[owner][name], ("local", owner, name)
        if name in self.globals:
            return self.globals[name], ("global", name)
        return None, None

    def slot(self, ref, owner: str | None) -> Slot | None:
        """The slot a VarRef (or remote variable) denotes; None for names that hold no data
        (mtype constants, true/false, builtins other than _pid and _last)."""
        if isinstance(ref, ast.RemoteVar):
            return self.slot(ref.var, ref.proctype)
        if not isinstance(ref, ast.VarRef):
            return None
        if id(ref) in self.bound:
            return self.bound[id(ref)]
        if ref.name == "_pid" and ref.field is None:
            return _SELF_PID
        if ref.name == "_last":
            return LAST_SLOT
        var, slot = self.variable(ref.name, owner)
        if var is None:
            return None
        for _inner, field_slot in self.field_path(var, ref):
            slot = field_slot  # the innermost field's, when ref names fields
        return slot

    def array_slot(self, ref: ast.VarRef, owner: str | None) -> Slot | None:
        """The slot of the variable itself (not of a field below it): its index class is the
        one ``ref.index`` belongs to."""
        var, slot = self.variable(ref.name, owner)
        return slot if var is not None else None

    def field_path(self, var, ref: ast.VarRef) -> Iterable[tuple[ast.VarRef, Slot]]:
        """Each field reference below ``ref`` with the slot it denotes (``("field", typedef,
        name)``), outermost first."""
        typename = var.type.name
        inner = ref.field
        while inner is not None:
            slot = ("field", typename, inner.name)
            yield inner, slot
            typedef = self.model.typedefs.get(typename)
            if typedef is not None:
                decl = next((d for d in typedef.fields for v in d.vars if v.name == inner.name), None)
                typename = decl.type.name if decl is not None else typename
            inner = inner.field

    def declared_kind(self, ref, owner: str | None) -> str | None:
        var, _ = self.variable(ref.name, owner) if isinstance(ref, ast.VarRef) else (None, None)
        if var is None:
            return None
        return {"pid": PID, "chan": CHAN}.get(var.type.name)


def infer_types(model: Model) -> TypeInfo:
    """Unify the slots of ``model`` and classify them.

    A parameter that the runs of init give each process's own pid shifted by a constant
    (id_parameters) is taken to hold that pid, with the offset: unless that makes its class
    tainted (it is used in arithmetic or an ordering, or meets plain pids), when it is left
    as data and the inference is made again without it."""
    candidates = id_parameters(model)
    while True:
        info = _Inference(model, candidates).run()
        spoiled = {slot for slot in candidates
                   if any(info.find(t.slot) == info.find(slot) for t in info.taints)}
        if not spoiled:
            info.id_parameters = {slot: offset for slot, (offset, _node) in candidates.items()}
            return info
        candidates = {slot: found for slot, found in candidates.items() if slot not in spoiled}


def id_parameters(model: Model) -> dict[Slot, tuple[int, ast.Node]]:
    """The parameters that act as ids: each instance of a proctype, all started by init's runs
    (numbered, Model.processes), gets its own pid minus one constant K as the parameter, and
    the proctype never writes it (``for (i : 0 .. N-1) { run P(i) }``).  Such a parameter
    holds pids with offset K, as ``byte id = _pid - K`` would.  Each with its K and an argument
    that shows it."""
    found: dict[Slot, tuple[int, ast.Node]] = {}
    for name, proctype in model.proctypes.items():
        instances = model.processes_of(name)
        if len(instances) < 2 or any(p.origin != "run" for p in instances):
            continue
        params = [v for v in model.locals.get(name, []) if v.is_param]
        written = _written_names(proctype.body)
        for j, param in enumerate(params):
            if param.name in written or param.type.name not in _ID_TYPES or param.size is not None:
                continue
            values = [constant_value(p.args[j], model.mtypes) if j < len(p.args) else None for p in instances]
            if any(v is None for v in values):
                continue
            shifts = {p.pid - v for p, v in zip(instances, values) if v is not None}
            if len(shifts) == 1:
                found[("local", name, param.name)] = (shifts.pop(), instances[0].args[j])
    return found


# The types of a parameter that can hold an id (a bit or a bool cannot hold two).
_ID_TYPES = frozenset({"byte", "short", "int", "pid", "unsigned"})
# The types of the variables of a scalar domain.
_DOMAIN_TYPES = frozenset({"byte", "short", "int", "mtype"})


def _written_names(body: ast.Sequence) -> set[str]:
    """The names of the variables that ``body`` writes (assigns, changes, receives into, runs
    a loop with)."""
    names: set[str] = set()
    for node in body.walk():
        targets: list = []
        if isinstance(node, (ast.Assign, ast.IncDec)):
            targets = [node.target]
        elif isinstance(node, ast.Receive):
            targets = [a for a in node.args if not isinstance(a, ast.Eval)]
        elif isinstance(node, (ast.ForRange, ast.ForIn, ast.Select)):
            targets = [node.var]
        names.update(t.name for t in targets if isinstance(t, ast.VarRef))
    return names


class _Inference:
    def __init__(self, model: Model, id_params: dict[Slot, tuple[int, ast.Node]] | None = None) -> None:
        self.model = model
        self.id_params = id_params or {}
        # init's runs that Model.processes numbers: their arguments flow instance by instance
        self.numbered_runs = {id(p.node) for p in model.processes if p.node is not None}
        self.loops = find_loops(model)
        self.resolve = SlotResolver(model, self.loops.bound)
        self.parent: dict = {}
        self.declared: dict = {}  # slot -> set of declared kinds
        self.pid_sources: set = set()
        # Slots that receive an expression computed from _pid and constants (`(_pid + 1) % N`):
        # pids, but of no particular offset (validity evaluates the expression per process in
        # whatever offset its place has), so `link[_pid - 1]` and `link[_pid % N]` agree.
        self.computed_sources: set = set()
        # (slot, K, node): the slot receives `_pid - K`, K != 0 (its class holds shifted pids)
        self.offset_sources: list[tuple[Slot, int, ast.Node]] = []
        self.arith: list[tuple[Slot | None, ast.Node, str]] = []
        self.copies = pid_copies(model)
        self.chan_fields: dict = {}  # chan slot -> set of message-field indices
        # For the scalar domains: the constants stored into or compared with each slot, the
        # slots given a value that is neither a constant nor another slot's (with where), and
        # the comparisons of a slot with a constant by order (`x < 3`), which a permutation of
        # a domain respects when it keeps the values below 3 together (validity.py).
        self.constants_in: dict = {}
        self.opaque: list[tuple[Slot, ast.Node]] = []
        self.ordered: set[int] = set()  # ids of the arith nodes that compare with a constant by order
        self.scalarsets: dict[str, tuple[Slot, tuple[int, ...]]] = {}

    # ------------------------------------------------------------------ union-find
    def find(self, slot):
        self.parent.setdefault(slot, slot)
        while self.parent[slot] != slot:
            self.parent[slot] = self.parent[self.parent[slot]]
            slot = self.parent[slot]
        return slot

    def union(self, a, b) -> None:
        if a is None or b is None:
            return
        if a == _SELF_PID or b == _SELF_PID:
            self.pid_sources.add(b if a == _SELF_PID else a)
            return
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def declare(self, slot, kind: str) -> None:
        self.declared.setdefault(slot, set()).add(kind)

    def field_slot(self, chan_slot, index: int):
        return ("msg", chan_slot, index)

    # ------------------------------------------------------------------ the walk
    def run(self) -> TypeInfo:
        self.declare(LAST_SLOT, PID)
        for var in self.model.globals:
            self.declare_var(var, ("global", var.name))
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                self.declare_var(var, ("local", owner, var.name))
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                for var in decl.vars:
                    kind = {"pid": PID, "chan": CHAN}.get(decl.type.name)
                    if kind:
                        self.declare(("field", typedef.name, var.name), kind)
        for proc in self.model.processes:
            if proc.origin == "run":
                params = [v for v in self.model.locals.get(proc.proctype, []) if v.is_param]
                for param, arg in zip(params, proc.args):
                    self.flow(("local", proc.proctype, param.name), arg, INIT)  # (init's runs)
        for slot, (offset, node) in self.id_params.items():
            if offset == 0:
                self.pid_sources.add(slot)
            else:
                self.offset_sources.append((slot, offset, node))
        for unit in self.model.expanded.units:
            self.unit(unit)
        self.propagate_channel_fields()
        self.scalarsets = self.declared_scalarsets()
        return self.classify()

    def declared_scalarsets(self) -> dict[str, tuple[Slot, tuple[int, ...]]]:
        """The scalarsets the model declares (pragmas.py): the variables, parameters and message
        fields of type ``mtype:NAME`` made one class, holding every value of the subtype.
        name -> (a slot of the class, the values)."""
        found = {}
        for name, pos in self.model.scalarsets.items():
            if name not in self.model.mtype_sets or name is None:
                raise ModelError(f"'{name}' is declared a scalarset, but the model declares no mtype:{name}",
                                 pos, hint=f"declare its values: mtype:{name} = {{ ... }}")
            values = tuple(sorted(self.model.mtypes[n] for n in self.model.mtype_sets[name]))
            slots = list(self.slots_of_type(name))
            if not slots:
                raise ModelError(f"no variable, parameter or message field has the type of the scalarset '{name}'",
                                 pos, hint=f"declare them `mtype:{name} x`")
            for slot in slots[1:]:
                self.union(slots[0], slot)
            self.constants_in.setdefault(slots[0], set()).update(values)
            found[name] = (slots[0], values)
        return found

    def slots_of_type(self, subtype: str) -> Iterable[Slot]:
        """The slots declared ``mtype:subtype``: variables and parameters (a typedef field is
        refused), and the fields of the channels whose messages have that type."""
        def of(var, slot):
            if var.type.name == "mtype" and var.type.subtype == subtype:
                yield slot
            if isinstance(var.init, ast.ChanInit):
                for i, ftype in enumerate(var.init.fields):
                    if ftype.name == "mtype" and ftype.subtype == subtype:
                        yield self.field_slot(slot, i)
        for var in self.model.globals:
            yield from of(var, ("global", var.name))
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                yield from of(var, ("local", owner, var.name))
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                if decl.type.name == "mtype" and decl.type.subtype == subtype:
                    raise ModelError(f"a field of typedef '{typedef.name}' has the type of the scalarset "
                                     f"'{subtype}', which topspin-py does not permute inside a typedef yet",
                                     decl.pos, hint="declare it as a variable of its own")

    def declare_var(self, var, slot) -> None:
        kind = {"pid": PID, "chan": CHAN}.get(var.type.name)
        if kind:
            self.declare(slot, kind)
        if var.init is not None and isinstance(var.init, ast.ChanInit):
            self.declare(slot, CHAN)
            self.channel_declaration(slot, var.init)
        elif var.init is not None:
            self.flow(slot, var.init, var.owner)
            copies = self.copy_names(var.owner)
            if isinstance(var.init, (ast.BinOp, ast.UnOp)) and not self.is_shift(var.init, var.owner) \
                    and uses_pid(var.init, copies) and is_pid_constant(var.init, copies):
                self.computed_sources.add(slot)

    def channel_declaration(self, slot, init: ast.ChanInit) -> None:
        for i, ftype in enumerate(init.fields):
            fkind = {"pid": PID, "chan": CHAN}.get(ftype.name)
            if fkind:
                self.declare(self.field_slot(slot, i), fkind)
            self.chan_fields.setdefault(slot, set()).add(i)

    def flow(self, target_slot, value, owner) -> None:
        """``value`` is stored in ``target_slot``."""
        source = self.value_slot(value, owner)
        self.union(target_slot, source)
        shifted = self.shifted(target_slot, value, owner)
        if target_slot is None or shifted:
            return
        constants = self.constants_of(value)
        if constants:
            self.constants_in.setdefault(target_slot, set()).update(constants)
        elif source is None and not isinstance(value, ast.Run) \
                and not (uses_pid(value, self.copy_names(owner)) and is_pid_constant(value, self.copy_names(owner))):
            self.opaque.append((target_slot, value))

    def constants_of(self, expr) -> set[int]:
        """The constants ``expr`` may give: its value when it is one (an mtype name, `2 - 1`),
        the constant branches of a conditional expression; empty otherwise."""
        value = constant_value(expr, self.model.mtypes)
        if value is not None:
            return {value}
        if isinstance(expr, ast.CondExpr):
            return self.constants_of(expr.then) | self.constants_of(expr.other)
        return set()

    def aliases(self, owner: str | None) -> frozenset[str]:
        """The locals of ``owner`` that hold its _pid itself (``pid i = _pid``)."""
        copies = self.copies.get(owner, {}) if owner is not None else {}
        return frozenset(name for name, init in copies.items() if pid_offset(init) == 0)

    def shifted(self, slot, expr, owner: str | None = None) -> bool:
        """When ``expr`` is ``_pid - K`` (K != 0), ``slot`` holds pids with offset K."""
        offset = pid_offset(expr, self.model.mtypes, self.aliases(owner))
        if slot is None or offset is None or offset == 0:
            return False
        self.offset_sources.append((slot, offset, expr))
        return True

    def value_slot(self, expr, owner):
        """The slot whose class the value of ``expr`` belongs to, when it is a plain copy;
        arithmetic on a slot records a taint candidate instead."""
        if isinstance(expr, (ast.VarRef, ast.RemoteVar)):
            return self.resolve.slot(expr, owner)
        if isinstance(expr, ast.Run):
            return _SELF_PID
        if isinstance(expr, ast.Eval):
            return self.value_slot(expr.expr, owner)
        if isinstance(expr, ast.CondExpr):
            a = self.value_slot(expr.then, owner)
            b = self.value_slot(expr.other, owner)
            self.union(a, b)
            return a or b
        return None

    def pid_meant(self, expr, owner) -> None:
        """``expr`` stands where a pid is meant: whatever holds its value holds pids."""
        slot = self.value_slot(expr, owner)
        if slot is not None:
            self.pid_sources.add(slot)

    # ------------------------------------------------------------------ units
    def unit(self, unit: ast.Unit) -> None:
        match unit:
            case ast.Proctype():
                self.sequence(unit.body, unit.name)
                if unit.provided is not None:
                    self.expr(unit.provided, unit.name)
                for expr in (unit.active, unit.priority):
                    if expr is not None:
                        self.expr(expr, None)
            case ast.Init():
                self.sequence(unit.body, INIT)
            case ast.Never() | ast.Trace():
                self.sequence(unit.body, None)
            case ast.Ltl():
                if unit.formula is not None:
                    self.formula(unit.formula)
            case ast.Decl():
                for var in unit.vars:
                    self.var_decl(var, None)
            case ast.TypeDef():
                for decl in unit.fields:
                    for var in decl.vars:
                        if var.init is not None and not isinstance(var.init, ast.ChanInit):
                            self.flow(("field", unit.name, var.name), var.init, None)
                            self.expr(var.init, None)
                        elif isinstance(var.init, ast.ChanInit):
                            slot = ("field", unit.name, var.name)
                            self.declare(slot, CHAN)
                            self.channel_declaration(slot, var.init)
            case ast.MtypeDecl() | ast.Inline() | ast.CCode() | ast.CState():
                pass  # no values (inlines are expanded; embedded C is refused by detection)
            case _:
                assert_never(unit)

    def var_decl(self, var: ast.VarDecl, owner: str | None) -> None:
        """The expressions inside a declaration (its flows are made by declare_var)."""
        for expr in (var.size, var.bits):
            if expr is not None:
                self.expr(expr, owner)
        if var.init is not None and not isinstance(var.init, ast.ChanInit):
            self.expr(var.init, owner)

    def formula(self, node) -> None:
        match node:
            case ast.LtlUnary():
                self.formula(node.arg)
            case ast.LtlBinary():
                self.formula(node.left)
                self.formula(node.right)
            case _:
                self.expr(node, None)

    # ------------------------------------------------------------------ statements
    def sequence(self, seq: ast.Sequence, owner: str | None) -> None:
        for step in seq.steps:
            self.stmt(step, owner)

    def stmt(self, node: ast.Stmt, owner: str | None) -> None:
        match node:
            case ast.Decl():
                for var in node.vars:
                    self.var_decl(var, owner)
            case ast.Labeled():
                self.stmt(node.stmt, owner)
            case ast.Unless():
                self.stmt_or_sequence(node.stmt, owner)
                self.stmt_or_sequence(node.escape, owner)
            case ast.Assign():
                target = self.resolve.slot(node.target, owner)
                self.flow(target, node.value, owner)
                if isinstance(node.value, (ast.BinOp, ast.UnOp)) and not self.is_shift(node.value, owner):
                    # The target holds the result of arithmetic: taint it if it is a pid or a
                    # channel, unless the expression is built from _pid and constants alone
                    # (`_pid - K` gives it an offset instead, see flow).
                    copies = self.copy_names(owner)
                    if not is_pid_constant(node.value, copies):
                        self.arith.append((target, node, "is assigned the result of arithmetic"))
                    elif uses_pid(node.value, copies):
                        self.computed_sources.add(target)
                self.expr(node.target, owner)
                self.expr(node.value, owner)
            case ast.IncDec():
                self.arith.append((self.resolve.slot(node.target, owner), node,
                                   self.loop_refusal(node, f"is changed by '{node.op}'")))
                self.expr(node.target, owner)
            case ast.Send() | ast.Receive():
                self.message(node.chan, node.args, owner)
                self.expr(node.chan, owner)
                for arg in node.args:
                    self.expr(arg, owner)
            case ast.If() | ast.Do():
                for option in node.options:
                    self.sequence(option, owner)
            case ast.Atomic() | ast.DStep() | ast.Block():
                self.sequence(node.body, owner)
            case ast.ForRange():
                var = self.resolve.slot(node.var, owner)
                if not any(loop.node is node for loop in self.loops.loops):
                    self.arith.append((var, node, self.loop_refusal(node, "is a loop counter")))
                for expr in (node.var, node.lo, node.hi):
                    self.expr(expr, owner)
                self.sequence(node.body, owner)
            case ast.ForIn():
                # The loop variable runs over the indices of the array, in increasing order.
                var = self.resolve.slot(node.var, owner)
                array = self.resolve.array_slot(node.array, owner) if isinstance(node.array, ast.VarRef) else None
                if array is not None:
                    self.union(("index", array), var)
                self.arith.append((var, node, "is a loop counter"))
                self.expr(node.var, owner)
                self.expr(node.array, owner)
                self.sequence(node.body, owner)
            case ast.Select():
                var = self.resolve.slot(node.var, owner)
                self.arith.append((var, node, "is a loop counter"))
                for expr in (node.var, node.lo, node.hi):
                    self.expr(expr, owner)
            case ast.Printf():
                for arg in node.args:
                    self.expr(arg, owner)
            case ast.Printm():
                self.expr(node.arg, owner)
            case ast.Assert() | ast.ExprStmt():
                self.expr(node.expr, owner)
            case ast.XrXs():
                for ref in node.vars:
                    self.declare_chan(self.resolve.slot(ref, owner))
                    self.expr(ref, owner)
            case ast.InlineCall():
                for arg in node.args:  # (expanded before analysis; a leftover call is inert)
                    self.expr(arg, owner)
            case ast.Break() | ast.Goto() | ast.Else() | ast.Skip() | ast.CCode():
                pass
            case _:
                assert_never(node)

    def stmt_or_sequence(self, node, owner) -> None:
        if isinstance(node, ast.Sequence):
            self.sequence(node, owner)
        else:
            self.stmt(node, owner)

    # ------------------------------------------------------------------ expressions
    def expr(self, e: ast.Expr, owner: str | None) -> None:
        """Constraints from ``e`` and everything below it."""
        match e:
            case ast.Const() | ast.CExpr():
                pass
            case ast.VarRef():
                self.varref(e, owner)
            case ast.BinOp():
                if e.op in ("==", "!="):
                    a = self.value_slot(e.left, owner)
                    b = self.value_slot(e.right, owner)
                    self.union(a, b)
                    for slot, other in ((a, e.right), (b, e.left)):
                        if slot is not None:
                            self.constants_in.setdefault(slot, set()).update(self.constants_of(other))
                    copies = self.copy_names(owner)
                    if a is None and not self.shifted(b, e.left, owner) and is_pid_constant(e.left, copies) \
                            and uses_pid(e.left, copies):
                        self.computed_sources.add(b)
                    if b is None and not self.shifted(a, e.right, owner) and is_pid_constant(e.right, copies) \
                            and uses_pid(e.right, copies):
                        self.computed_sources.add(a)
                elif e.op in _ARITH:
                    self.arith_operands(e, owner)
                self.expr(e.left, owner)
                self.expr(e.right, owner)
            case ast.UnOp():
                self.arith_operands(e, owner)
                self.expr(e.operand, owner)
            case ast.CondExpr():
                self.union(self.value_slot(e.then, owner), self.value_slot(e.other, owner))
                for part in (e.cond, e.then, e.other):
                    self.expr(part, owner)
            case ast.ChanFn():
                self.declare_chan(self.resolve.slot(e.chan, owner))
                self.expr(e.chan, owner)
            case ast.Builtin():
                if e.fn in PID_BUILTINS and e.args:
                    self.pid_meant(e.args[0], owner)
                for arg in e.args:
                    self.expr(arg, owner)
            case ast.Run():
                params = [v for v in self.model.locals.get(e.proctype, []) if v.is_param]
                if id(e) not in self.numbered_runs:
                    # (a numbered run's arguments flowed instance by instance, with the values
                    # of init's loop counters put in: `run P(i)` does not tie P's parameter to i)
                    for param, arg in zip(params, e.args):
                        self.flow(("local", e.proctype, param.name), arg, owner)
                for arg in e.args:
                    self.expr(arg, owner)
                if e.priority is not None:
                    self.expr(e.priority, owner)
            case ast.Poll():
                self.message(e.chan, e.args, owner)
                self.expr(e.chan, owner)
                for arg in e.args:
                    self.expr(arg, owner)
            case ast.RemoteLabel():
                if e.index is not None:
                    self.pid_meant(e.index, owner)
                    self.expr(e.index, owner)
            case ast.RemoteVar():
                if e.index is not None:
                    self.pid_meant(e.index, owner)
                    self.expr(e.index, owner)
                self.expr(e.var, e.proctype)
            case ast.Eval():
                self.expr(e.expr, owner)
            case _:
                assert_never(e)

    def varref(self, ref: ast.VarRef, owner: str | None) -> None:
        var, _slot = self.resolve.variable(ref.name, owner)
        if ref.index is not None:
            self.index(self.resolve.array_slot(ref, owner), ref.index, owner)
        if var is not None:
            for inner, slot in self.resolve.field_path(var, ref):
                if inner.index is not None:
                    self.index(slot, inner.index, owner)
        elif ref.field is not None:
            # A field of something that is not a variable (a remote process's struct): walk
            # the indices for their own constraints.
            inner = ref.field
            while inner is not None:
                if inner.index is not None:
                    self.expr(inner.index, owner)
                inner = inner.field

    def index(self, array_slot, index, owner) -> None:
        if array_slot is not None:
            index_slot = self.value_slot(index, owner)
            self.union(("index", array_slot), index_slot)
            copies = self.copy_names(owner)
            if index_slot is None and not self.shifted(("index", array_slot), index, owner) \
                    and uses_pid(index, copies) and is_pid_constant(index, copies):
                self.computed_sources.add(("index", array_slot))
        self.expr(index, owner)

    def is_shift(self, expr, owner: str | None = None) -> bool:
        offset = pid_offset(expr, self.model.mtypes, self.aliases(owner))
        return offset is not None and offset != 0

    def declare_chan(self, slot) -> None:
        if slot is not None:
            self.declare(slot, CHAN)

    def copy_names(self, owner: str | None) -> frozenset[str]:
        return frozenset(self.copies.get(owner, ())) if owner is not None else frozenset()

    def loop_refusal(self, node, why: str) -> str:
        """``why`` a pid is tainted at ``node``, with the reason loops.py did not accept the
        loop whose guard, increment or for statement ``node`` is."""
        refused = self.loops.refused.get(id(node))
        if refused is None:
            return why
        return f"is a loop counter, and {refused}"

    def arith_operands(self, expr, owner) -> None:
        # Arithmetic on _pid, or on a local that holds an expression of _pid for ever (`1 - i`
        # with `pid i = _pid`), is evaluated per process by the validity check: no taint.
        exempt = {_SELF_PID} | {("local", owner, name) for name in self.copy_names(owner)}
        if isinstance(expr, ast.BinOp) and expr.op in _ARITH:
            for side, other in ((expr.left, expr.right), (expr.right, expr.left)):
                slot = self.value_slot(side, owner)
                if slot is not None and slot not in exempt:
                    why = self.loop_refusal(expr, f"is used with '{expr.op}'")
                    self.arith.append((slot, expr, why))
                    if expr.op in _ORDER and constant_value(other, self.model.mtypes) is not None:
                        self.ordered.add(id(expr))  # (a domain allows it: find_domains)
        if isinstance(expr, ast.UnOp) and expr.op in ("-", "~"):
            slot = self.value_slot(expr.operand, owner)
            if slot is not None and slot not in exempt:
                self.arith.append((slot, expr, f"is used with '{expr.op}'"))

    def message(self, chan_ref, args, owner) -> None:
        chan_slot = self.resolve.slot(chan_ref, owner)
        if chan_slot is None:
            return
        self.declare(chan_slot, CHAN)
        for i, arg in enumerate(args):
            target = self.field_slot(chan_slot, i)
            self.chan_fields.setdefault(chan_slot, set()).add(i)
            self.flow(target, arg, owner)

    def propagate_channel_fields(self) -> None:
        """Channels in one class carry messages whose fields are unified position by position."""
        changed = True
        while changed:
            changed = False
            by_root: dict = {}
            for chan_slot, indices in self.chan_fields.items():
                by_root.setdefault(self.find(chan_slot), []).append((chan_slot, indices))
            for members in by_root.values():
                if len(members) < 2:
                    continue
                first = members[0][0]
                for chan_slot, indices in members[1:]:
                    for i in indices:
                        a, b = self.find(self.field_slot(first, i)), self.find(self.field_slot(chan_slot, i))
                        if a != b:
                            self.parent[a] = b
                            changed = True

    def classify(self) -> TypeInfo:
        kinds: dict = {}
        for slot, declared in self.declared.items():
            root = self.find(slot)
            for kind in declared:
                kinds.setdefault(root, set()).add(kind)
        for slot in self.pid_sources:
            if slot is not None:
                kinds.setdefault(self.find(slot), set()).add(PID)
        for slot in self.computed_sources:
            if slot is not None:
                kinds.setdefault(self.find(slot), set()).add(PID)
        # The offsets each class receives: 0 from plain pids, K from `_pid - K` (none from an
        # expression computed from _pid: it fits any).
        offsets: dict = {}
        plain_roots = {self.find(slot) for slot, declared in self.declared.items() if PID in declared}
        plain_roots |= {self.find(slot) for slot in self.pid_sources if slot is not None}
        for root in plain_roots:
            offsets.setdefault(root, {})[0] = None
        for slot, offset, node in self.offset_sources:
            root = self.find(slot)
            kinds.setdefault(root, set()).add(PID)
            offsets.setdefault(root, {}).setdefault(offset, node)
        kind_of_root: dict = {}
        offset_of_root: dict = {}
        info = TypeInfo(kind_of_root, self.parent, offset_of_root=offset_of_root, copies=self.copies,
                        loops=self.loops.loops, bound=self.loops.bound)
        for root, found in kinds.items():
            if PID in found and CHAN in found:
                kind_of_root[root] = CHAN
                info.taints.append(Taint(root, None, "holds both process ids and channels"))
            else:
                kind_of_root[root] = PID if PID in found else CHAN
            seen = offsets.get(root, {})
            if kind_of_root[root] == PID and len(seen) > 1:
                where = next((n for k, n in seen.items() if k != 0), None)
                names = ", ".join("0 (plain pids)" if k == 0 else str(k) for k in sorted(seen))
                info.taints.append(Taint(root, where, f"with different offsets ({names}): "
                                                     "no one renaming fits all its values"))
            elif kind_of_root[root] == PID and seen:
                offset_of_root[root] = next(iter(seen))
        for slot, node, why in self.arith:
            if slot is not None and info.kind(slot) in (PID, CHAN):
                info.taints.append(Taint(slot, node, why))
        self.find_domains(info)
        return info

    def find_domains(self, info: TypeInfo) -> None:
        """The data classes that act as ids: scalar domains (module docstring).  A class of
        variables and message fields of integer types holding at least two constants is one
        when every value it is given is a constant or another of its slots' and it is used in
        no arithmetic, no comparison by order but with a constant, and no array index."""
        members: dict = {}
        for slot in list(self.parent):
            members.setdefault(self.find(slot), []).append(slot)
        disqualified: dict = {}
        # A declared scalarset has no order at all (Murphi's rule): not even with a constant.
        declared_roots = {self.find(slot) for slot, _values in self.scalarsets.values()}
        for slot, node, why in self.arith:
            if slot is None:
                continue
            if id(node) not in self.ordered:
                disqualified.setdefault(self.find(slot), (node, why))
            elif self.find(slot) in declared_roots:
                disqualified.setdefault(self.find(slot), (node, "is compared by order"))
        for slot, node in self.opaque:
            disqualified.setdefault(self.find(slot), (node, f"is given '{print_expr(node)}', which is no constant"))
        values: dict = {}
        for slot, found in self.constants_in.items():
            values.setdefault(self.find(slot), set()).update(found)
        declared = {self.find(slot): name for name, (slot, _values) in self.scalarsets.items()}
        taken: set[str] = set(self.scalarsets)
        for root, constants in sorted(values.items(), key=lambda item: repr(item[0])):
            scalarset = declared.get(root)
            if scalarset is not None and root in info.kind_of_root:
                held = "pids" if info.kind_of_root[root] == PID else "channel ids"
                raise ModelError(f"the scalarset '{scalarset}' holds {held}", self.model.scalarsets[scalarset],
                                 hint="a scalarset's variables hold its values only")
            if root in info.kind_of_root or (len(constants) < 2 and scalarset is None):
                continue
            slots = sorted(members.get(root, [root]), key=repr)
            refusal = disqualified.get(root) or self.not_a_domain_slot(slots)
            if refusal is None and not all(0 <= v <= 255 for v in constants):
                refusal = (None, f"holds {', '.join(map(str, sorted(constants)))}, not all of them bytes")
            if refusal is not None and scalarset is not None:
                offending, why = refusal
                where = getattr(offending, "pos", None)
                raise ModelError(f"a variable of the scalarset '{scalarset}' {why}",
                                 where or self.model.scalarsets[scalarset],
                                 hint="a scalarset's values are only stored, passed on and compared with == "
                                      "and !=; declare the variable another type if it must do more")
            if refusal is not None:
                info.not_domains[root] = refusal
                continue
            variables = [v for v in (slot_variable(self.model, slot) for slot in slots) if v is not None]
            if scalarset is not None:
                name = scalarset
            else:
                name = variables[0].name if variables else "message"
                if name in taken or name in self.model.mtype_sets:
                    name = f"{variables[0].owner or 'global'}.{name}" if variables else f"message{len(taken)}"
            taken.add(name)
            info.domains[name] = Domain(name, tuple(sorted(constants)), tuple(slots),
                                        variables[0].pos if variables else None)
            info.kind_of_root[root] = scalar_kind(name)
        info.known_kinds.clear()  # (asked for above, before the domains had their kinds)

    def not_a_domain_slot(self, slots) -> tuple[ast.Node | None, str] | None:
        """Why a class with these slots cannot be a scalar domain, for its slots alone."""
        for slot in slots:
            if slot[0] in ("index", "field"):
                return None, "indexes an array or is a field of a typedef"
            if slot[0] in ("global", "local"):
                var = slot_variable(self.model, slot)
                if var is None or var.size is not None or var.type.name not in _DOMAIN_TYPES:
                    return None, "is not a scalar variable of an integer type"
                if var.visibility == "hidden":
                    return None, "is hidden (kept out of the state vector, where nothing renames it)"
            elif slot[0] != "msg":
                return None, "is not a variable or a message field"
        return None


def uses_pid(expr, copies: Collection[str] = ()) -> bool:
    """Whether ``expr`` reads ``_pid`` (or one of the locals named in ``copies``, which hold
    an expression of it: pid_copies)."""
    return any(isinstance(n, ast.VarRef) and (n.name == "_pid" or n.name in copies) for n in expr.walk())


def pid_offset(expr, names: dict[str, int] | None = None, aliases: Collection[str] = ()) -> int | None:
    """K when ``expr`` is ``_pid - K`` with K a constant (``names``: mtype names); 0 for
    ``_pid`` itself; else None.  ``aliases``: locals that hold ``_pid`` itself (pid_copies)."""
    if isinstance(expr, ast.VarRef) and (expr.name == "_pid" or expr.name in aliases) \
            and expr.index is None and expr.field is None:
        return 0
    if isinstance(expr, ast.BinOp) and expr.op == "-" and pid_offset(expr.left, names, aliases) == 0 \
            and not uses_pid(expr.right, aliases):
        return constant_value(expr.right, names)
    return None


def is_pid_constant(expr, copies: Collection[str] = ()) -> bool:
    """Built from ``_pid`` (and the locals named in ``copies``) and constants only (evaluable
    for each process)."""
    for node in expr.walk():
        if isinstance(node, ast.VarRef) and (node.name != "_pid" and node.name not in copies
                                             or node.index is not None or node.field is not None):
            return False
        if not isinstance(node, (ast.VarRef, ast.Const, ast.BinOp, ast.UnOp, ast.CondExpr)):
            return False
    return True


def slot_variable(model: Model, slot) -> Variable | None:
    """The Variable a global or local slot is, else None (a message field, an array element)."""
    if slot[0] == "global":
        return model.global_named(slot[1])
    if slot[0] == "local":
        return model.local_named(slot[1], slot[2])
    return None


def written_targets(node: ast.Node) -> list:
    """What the statement ``node`` may write: an assignment's or ``++``/``--``'s target, the
    arguments of a receive (an ``eval(x)`` counted as ``x``: more than is written, never
    less), a ``for``/``select`` loop's variable; [] for any other node."""
    if isinstance(node, (ast.Assign, ast.IncDec)):
        return [node.target]
    if isinstance(node, ast.Receive):
        return [a.expr if isinstance(a, ast.Eval) else a for a in node.args]
    if isinstance(node, (ast.ForRange, ast.ForIn, ast.Select)):
        return [node.var]
    return []


def written_variables(model: Model) -> set[tuple[str | None, str]]:
    """(owner, name) of every variable some statement writes, by name or through a remote
    reference (``P[1]:x = 0`` writes P's ``x``); the owner is the proctype, INIT, or None for
    a statement outside both (the name may still be a global's)."""
    written: set[tuple[str | None, str]] = set()
    for unit in model.expanded.units:
        owner = unit.name if isinstance(unit, ast.Proctype) else INIT if isinstance(unit, ast.Init) else None
        for node in unit.walk():
            for target in written_targets(node):
                if isinstance(target, ast.RemoteVar) and isinstance(target.var, ast.VarRef):
                    written.add((target.proctype, target.var.name))
                elif isinstance(target, ast.VarRef):
                    written.add((owner, target.name))
    return written


def pid_copies(model: Model) -> dict[str, dict[str, ast.Expr]]:
    """For each proctype, its locals that hold one expression of its ``_pid`` for ever: a
    scalar of a basic type (not a parameter) initialised with an expression of ``_pid``,
    constants and such locals declared before it (``pid i = _pid``, ``pid j = 1 - i``), that
    no statement writes (no assignment, ``++``/``--``, receive or loop into it, here or through
    a remote reference).  Such a local is read like its initialiser: ``1 - i`` is ``1 - _pid``,
    evaluated per process.  (SPIN may reset it to 0 where it is dead, but nothing reads it
    there.)  name -> initialiser with the earlier copies substituted."""
    written: dict[str | None, set[str]] = {}
    for owner, name in written_variables(model):
        written.setdefault(owner, set()).add(name)
    found: dict[str, dict[str, ast.Expr]] = {}
    for owner, vars_ in model.locals.items():
        copies: dict[str, ast.Expr] = {}
        names = [v.name for v in vars_]
        for var in vars_:
            if var.is_param or var.size is not None or var.bits is not None \
                    or var.type.name not in ("pid", "byte", "short", "int") \
                    or var.init is None or isinstance(var.init, ast.ChanInit) \
                    or var.name in written.get(owner, set()) or names.count(var.name) > 1:
                continue
            init = _substituted(var.init, copies)
            if uses_pid(init) and is_pid_constant(init) and all(
                    _fits(constant_value(init, {**model.mtypes, "_pid": proc.pid}), var.type.name)
                    for proc in model.processes if proc.proctype == owner):
                copies[var.name] = init
        if copies:
            found[owner] = copies
    return found


_RANGES = {"pid": (0, 255), "byte": (0, 255), "short": (-2**15, 2**15 - 1), "int": (-2**31, 2**31 - 1)}


def _fits(value: int | None, typename: str) -> bool:
    """Whether ``value`` is stored unchanged in a variable of type ``typename``."""
    low, high = _RANGES[typename]
    return value is not None and low <= value <= high


def _substituted(expr, copies: dict[str, ast.Expr]):
    """``expr`` with each plain reference to a name in ``copies`` replaced by its expression."""
    if isinstance(expr, ast.VarRef) and expr.name in copies and expr.index is None and expr.field is None:
        return copies[expr.name]
    if not isinstance(expr, ast.Node) or isinstance(expr, ast.RemoteVar):
        return expr
    changes = {}
    for name in expr.field_names:
        value = getattr(expr, name)
        if isinstance(value, ast.Node):
            changes[name] = _substituted(value, copies)
    return ast.replace(expr, **changes) if changes else expr
