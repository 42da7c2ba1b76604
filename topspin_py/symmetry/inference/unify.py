"""The inference itself: a walk over the program that unifies the slots exchanging values and
collects what makes a class PID, CHAN, shifted or tainted (_Inference), and infer_types, which
classifies the classes and takes the id parameters out again when they spoil their class."""

from __future__ import annotations

from typing import assert_never

from ...promela import ast
from ...promela.constants import constant_value
from ...promela.model import INIT, Model, plain_type
from ..kinds import CHAN, LAST_SLOT, PID, SELF_PID, FieldSlot, GlobalSlot, IndexSlot, Kind, LocalSlot, MessageSlot, Slot
from ..loops import find_loops
from .domains import ScalarDomains
from .pid_values import id_parameters, is_pid_constant, pid_copies, pid_offset, uses_pid
from .slots import SlotResolver
from .typeinfo import PID_BUILTINS, Taint, TypeInfo

_ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">="}
_ORDER = {"<", "<=", ">", ">="}


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


class _Inference(ScalarDomains):
    """One inference over ``model``: the walk (run) collects the constraints, then classify turns
    them into a TypeInfo.  ``id_params``: the parameters taken to hold their process's pid - K.
    The scalar domains are found from the fields it collects (ScalarDomains, domains.py)."""

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
        # a domain respects when it keeps the values below 3 together (the validity check).
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
        if a == SELF_PID or b == SELF_PID:
            self.pid_sources.add(b if a == SELF_PID else a)
            return
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def declare(self, slot: Slot, kind: Kind) -> None:
        self.declared.setdefault(slot, set()).add(kind)

    def field_slot(self, chan_slot: Slot, index: int) -> MessageSlot:
        return MessageSlot(chan_slot, index)

    # ------------------------------------------------------------------ the walk
    def run(self) -> TypeInfo:
        self.declare(LAST_SLOT, PID)
        for var in self.model.globals:
            self.declare_var(var, GlobalSlot(var.name))
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                self.declare_var(var, LocalSlot(owner, var.name))
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                for field_var in decl.vars:
                    kind = {"pid": PID, "chan": CHAN}.get(plain_type(decl.type).name)
                    if kind:
                        self.declare(FieldSlot(typedef.name, field_var.name), kind)
        for proc in self.model.processes:
            if proc.origin == "run":
                params = [v for v in self.model.locals.get(proc.proctype, []) if v.is_param]
                for param, arg in zip(params, proc.args):
                    self.flow(LocalSlot(proc.proctype, param.name), arg, INIT)  # (init's runs)
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
            fkind = {"pid": PID, "chan": CHAN}.get(plain_type(ftype).name)
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
            return SELF_PID
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
                            self.flow(FieldSlot(unit.name, var.name), var.init, None)
                            self.expr(var.init, None)
                        elif isinstance(var.init, ast.ChanInit):
                            slot = FieldSlot(unit.name, var.name)
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
                counter = self.resolve.slot(node.var, owner)
                if not any(loop.node is node for loop in self.loops.loops):
                    self.arith.append((counter, node, self.loop_refusal(node, "is a loop counter")))
                for expr in (node.var, node.lo, node.hi):
                    self.expr(expr, owner)
                self.sequence(node.body, owner)
            case ast.ForIn():
                # The loop variable runs over the indices of the array, in increasing order.
                counter = self.resolve.slot(node.var, owner)
                array = self.resolve.array_slot(node.array, owner) if isinstance(node.array, ast.VarRef) else None
                if array is not None:
                    self.union(IndexSlot(array), counter)
                self.arith.append((counter, node, "is a loop counter"))
                self.expr(node.var, owner)
                self.expr(node.array, owner)
                self.sequence(node.body, owner)
            case ast.Select():
                counter = self.resolve.slot(node.var, owner)
                self.arith.append((counter, node, "is a loop counter"))
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
                        self.flow(LocalSlot(e.proctype, param.name), arg, owner)
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
            chain: ast.VarRef | None = ref.field
            while chain is not None:
                if chain.index is not None:
                    self.expr(chain.index, owner)
                chain = chain.field

    def index(self, array_slot, index, owner) -> None:
        if array_slot is not None:
            index_slot = self.value_slot(index, owner)
            self.union(IndexSlot(array_slot), index_slot)
            copies = self.copy_names(owner)
            if index_slot is None and not self.shifted(IndexSlot(array_slot), index, owner) \
                    and uses_pid(index, copies) and is_pid_constant(index, copies):
                self.computed_sources.add(IndexSlot(array_slot))
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
        exempt = {SELF_PID} | {LocalSlot(owner, name) for name in self.copy_names(owner)}
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
