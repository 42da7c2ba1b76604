"""Which data holds process ids and which holds channel ids (in the spirit of TopSPIN's Etch).

Every place that holds a value is a *slot*: a global variable, a local variable or parameter of
a proctype, a field of a typedef, a field of the messages of a channel class, or the index of an
array.  Slots that exchange values (assignment, comparison with ``==``/``!=``, parameter
passing, sending and receiving) are unified; a class of slots is

* ``PID`` when one of them is declared ``pid`` or receives ``_pid`` or the value of ``run``,
* ``CHAN`` when one of them is declared ``chan``,
* ``DATA`` otherwise.

An array whose index class is ``PID`` is indexed by pid.  A PID slot used in arithmetic or in
an ordering (``<``, ``+``, ``++`` ...) is *tainted*: a permutation of pids does not commute with
such uses, so the symmetry analysis drops pid symmetry and says why.  Expressions that compute
a pid from ``_pid`` and constants alone (``1 - _pid``, ``(_pid + 1) % N``) are not taints:
the validity check evaluates them for every process.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..promela import ast
from ..promela.model import INIT, Model

PID, CHAN, DATA = "pid", "chan", "data"

_ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">="}
_SELF_PID = ("self", "_pid")  # the pseudo-slot of `_pid`, a PID by definition
LAST_SLOT = ("global", "_last")  # SPIN's `_last`: the pid of the process that moved last


@dataclass
class Taint:
    """A PID slot used where pid permutations do not commute with it."""

    slot: tuple
    node: object  # the offending expression or statement (it has .pos)
    why: str


@dataclass
class TypeInfo:
    """The result: the kind of every slot class, and what defeats the analysis."""

    kind_of_root: dict
    parent: dict
    taints: list[Taint] = field(default_factory=list)
    # slot -> kind, filled as asked: the validity check asks for the same slots once per
    # candidate (the classes are final once inference is done)
    known_kinds: dict = field(default_factory=dict, repr=False, compare=False)

    def find(self, slot: tuple) -> tuple:
        while self.parent.get(slot, slot) != slot:
            slot = self.parent[slot]
        return slot

    def kind(self, slot: tuple | None) -> str:
        if slot is None:
            return DATA
        kind = self.known_kinds.get(slot)
        if kind is None:
            kind = PID if slot == _SELF_PID else self.kind_of_root.get(self.find(slot), DATA)
            self.known_kinds[slot] = kind
        return kind

    def index_kind(self, array_slot: tuple) -> str:
        # Keyed by the array itself: its elements may be unified with other slots, its index
        # class is its own.
        return self.kind(("index", array_slot))


class SlotResolver:
    """Maps variable references to slots, given the proctype whose code is being read."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.globals = {v.name: v for v in model.globals}
        self.locals = {owner: {v.name: v for v in vars_} for owner, vars_ in model.locals.items()}

    def variable(self, name: str, owner: str | None):
        if owner is not None and name in self.locals.get(owner, {}):
            return self.locals[owner][name], ("local", owner, name)
        if name in self.globals:
            return self.globals[name], ("global", name)
        return None, None

    def slot(self, ref, owner: str | None) -> tuple | None:
        """The slot a VarRef (or remote variable) denotes; None for names that hold no data
        (mtype constants, true/false, builtins other than _pid)."""
        if isinstance(ref, ast.RemoteVar):
            return self.slot(ref.var, ref.proctype)
        if not isinstance(ref, ast.VarRef):
            return None
        if ref.name == "_pid" and ref.field is None:
            return _SELF_PID
        if ref.name == "_last":
            return LAST_SLOT
        var, slot = self.variable(ref.name, owner)
        if var is None:
            return None
        typename = var.type.name
        inner = ref.field
        while inner is not None:
            slot = ("field", typename, inner.name)
            typedef = self.model.typedefs.get(typename)
            member = None
            if typedef is not None:
                member = next((v for d in typedef.fields for v in d.vars if v.name == inner.name), None)
                decl = next((d for d in typedef.fields if member in d.vars), None)
                typename = decl.type.name if decl is not None else typename
            inner = inner.field
        return slot

    def declared_kind(self, ref, owner: str | None) -> str | None:
        var, _ = self.variable(ref.name, owner) if isinstance(ref, ast.VarRef) else (None, None)
        if var is None:
            return None
        return {"pid": PID, "chan": CHAN}.get(var.type.name)


def infer_types(model: Model) -> TypeInfo:
    """Unify the slots of ``model`` and classify them."""
    return _Inference(model).run()


class _Inference:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.resolve = SlotResolver(model)
        self.parent: dict = {}
        self.declared: dict = {}  # slot -> set of declared kinds
        self.pid_sources: set = set()
        self.arith: list[tuple[tuple, object, str]] = []
        self.chan_fields: dict = {}  # chan slot -> list of message-field slots

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
                    self.flow(("local", proc.proctype, param.name), arg, None, proc)
        for unit in self.model.expanded.units:
            owner = self.owner_of(unit)
            if isinstance(unit, (ast.Proctype, ast.Init, ast.Never, ast.Trace)):
                for node in unit.body.walk():
                    self.statement(node, owner)
            elif isinstance(unit, ast.Ltl) and unit.formula is not None:
                for node in unit.formula.walk():
                    self.expression(node, None)
        self.propagate_channel_fields()
        return self.classify()

    @staticmethod
    def owner_of(unit) -> str | None:
        if isinstance(unit, ast.Proctype):
            return unit.name
        if isinstance(unit, ast.Init):
            return INIT
        return None

    def declare_var(self, var, slot) -> None:
        kind = {"pid": PID, "chan": CHAN}.get(var.type.name)
        if kind:
            self.declare(slot, kind)
        if var.init is not None and isinstance(var.init, ast.ChanInit):
            self.declare(slot, CHAN)
            for i, ftype in enumerate(var.init.fields):
                fkind = {"pid": PID, "chan": CHAN}.get(ftype.name)
                if fkind:
                    self.declare(self.field_slot(slot, i), fkind)
                self.chan_fields.setdefault(slot, set()).add(i)
        elif var.init is not None:
            self.flow(slot, var.init, var.owner, var)

    def flow(self, target_slot, value, owner, where) -> None:
        """``value`` is stored in ``target_slot``."""
        value_slot = self.value_slot(value, owner, where)
        self.union(target_slot, value_slot)

    def value_slot(self, expr, owner, where):
        """The slot whose class the value of ``expr`` belongs to, when it is a plain copy;
        arithmetic on a slot records a taint candidate instead."""
        if isinstance(expr, (ast.VarRef, ast.RemoteVar)):
            return self.resolve.slot(expr, owner)
        if isinstance(expr, ast.Run):
            return _SELF_PID
        if isinstance(expr, ast.CondExpr):
            a = self.value_slot(expr.then, owner, where)
            b = self.value_slot(expr.other, owner, where)
            self.union(a, b)
            return a or b
        return None

    def statement(self, node, owner) -> None:
        if isinstance(node, ast.Assign):
            self.flow(self.resolve.slot(node.target, owner), node.value, owner, node)
            self.arith_operands(node.value, owner)
            if isinstance(node.value, (ast.BinOp, ast.UnOp)):
                # The target holds the result of arithmetic: taint it if it is a pid, unless
                # the expression is built from _pid and constants alone.
                if not is_pid_constant(node.value):
                    self.arith.append((self.resolve.slot(node.target, owner), node, "is assigned the result of arithmetic"))
                else:
                    self.pid_sources.add(self.resolve.slot(node.target, owner))
        elif isinstance(node, ast.IncDec):
            self.arith.append((self.resolve.slot(node.target, owner), node, f"is changed by '{node.op}'"))
        elif isinstance(node, (ast.Send, ast.Receive)):
            self.message(node.chan, node.args, owner)
        elif isinstance(node, (ast.ForRange, ast.Select)):
            self.arith.append((self.resolve.slot(node.var, owner), node, "is a loop counter"))
        self.expression(node, owner)

    def expression(self, node, owner) -> None:
        """Constraints from ``node`` itself (the walk visits every node once)."""
        for expr in (node,):
            if isinstance(expr, ast.BinOp):
                if expr.op in ("==", "!="):
                    a = self.value_slot(expr.left, owner, expr)
                    b = self.value_slot(expr.right, owner, expr)
                    self.union(a, b)
                    if a is None and is_pid_constant(expr.left) and uses_pid(expr.left):
                        self.pid_sources.add(b)
                    if b is None and is_pid_constant(expr.right) and uses_pid(expr.right):
                        self.pid_sources.add(a)
                elif expr.op in _ARITH:
                    self.arith_operands(expr, owner)
            elif isinstance(expr, ast.VarRef) and expr.index is not None:
                array = self.resolve.slot(ast.VarRef(name=expr.name), owner)
                if array is not None:
                    index_slot = self.value_slot(expr.index, owner, expr)
                    self.union(("index", array), index_slot)
                    if index_slot is None and uses_pid(expr.index) and is_pid_constant(expr.index):
                        self.pid_sources.add(("index", array))
            elif isinstance(expr, ast.Poll):
                self.message(expr.chan, expr.args, owner)
            elif isinstance(expr, (ast.Builtin,)) and expr.fn in ("enabled", "pc_value", "get_priority"):
                for arg in expr.args:
                    slot = self.value_slot(arg, owner, expr)
                    if slot is not None:
                        self.pid_sources.add(slot)

    def arith_operands(self, expr, owner) -> None:
        if isinstance(expr, ast.BinOp) and expr.op in _ARITH:
            for side in (expr.left, expr.right):
                slot = self.value_slot(side, owner, expr)
                if slot is not None and slot != _SELF_PID:
                    self.arith.append((slot, expr, f"is used with '{expr.op}'"))
        if isinstance(expr, ast.UnOp) and expr.op in ("-", "~"):
            slot = self.value_slot(expr.operand, owner, expr)
            if slot is not None and slot != _SELF_PID:
                self.arith.append((slot, expr, f"is used with '{expr.op}'"))

    def message(self, chan_ref, args, owner) -> None:
        chan_slot = self.resolve.slot(chan_ref, owner)
        if chan_slot is None:
            return
        self.declare(chan_slot, CHAN)
        for i, arg in enumerate(args):
            target = self.field_slot(chan_slot, i)
            self.chan_fields.setdefault(chan_slot, set()).add(i)
            value = arg.expr if isinstance(arg, ast.Eval) else arg
            self.flow(target, value, owner, arg)

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
        kind_of_root = {}
        info = TypeInfo(kind_of_root, self.parent)
        for root, found in kinds.items():
            if PID in found and CHAN in found:
                kind_of_root[root] = CHAN
                info.taints.append(Taint(root, None, "holds both process ids and channels"))
            else:
                kind_of_root[root] = PID if PID in found else CHAN
        for slot, node, why in self.arith:
            if slot is not None and info.kind(slot) == PID:
                info.taints.append(Taint(slot, node, why))
        return info


def uses_pid(expr) -> bool:
    """Whether ``expr`` reads ``_pid``."""
    return any(isinstance(n, ast.VarRef) and n.name == "_pid" for n in expr.walk())


def is_pid_constant(expr) -> bool:
    """Built from ``_pid`` and constants only (evaluable for each process)."""
    for node in expr.walk():
        if isinstance(node, ast.VarRef) and (node.name != "_pid" or node.index is not None):
            return False
        if not isinstance(node, (ast.VarRef, ast.Const, ast.BinOp, ast.UnOp, ast.CondExpr)):
            return False
    return True
