"""The typed rewrite of the program under a candidate alpha: the first part of the check
([DM08] section 7.3.1).

``alpha(P)`` is the program with every expression read in a *context*: PID (a pid is meant: an
index of an array indexed by pid, a remote reference, ``enabled``, a comparison with a pid, a
pid field), CHAN, DATA, TRUTH (a condition: a value is compared with 0) or OUTPUT (a printf
argument: no effect on the state).  In a PID context a constant (after folding ``#define``,
mtype names and arithmetic: ``2 - 1``, ``N - 1``) is renamed to its image, a value of kind PID
is left to the canonicaliser, an expression of ``_pid`` and constants is evaluated for every
process and must commute with alpha; **anything else is not understood, and alpha is rejected**
if it moves what that place could name.  A place whose values are pids with an offset K
(symmetry/inference: ``x = _pid - K``, ``flag[_pid - 1]``) is a context of its own, written
``pid-K``: there a constant c is renamed to alpha(c + K) - K when c + K is a pid (255, "nobody",
stays 255), an expression of ``_pid`` and constants must give alpha(v + K) - K for the image
process, and a plain pid or another offset does not fit (a rejection).  The same holds for
channels and for the values of a scalar domain (symmetry/inference: alpha permutes them too,
``Alpha.value``; a comparison with a constant by order, ``x < 3``, must keep the values it holds
for together, and a value read as a condition keeps 0), and in a DATA context a pid, channel or
domain value is a rejection too (a permutation does not commute with ``x + 1`` or ``x < y``).  A
proctype's parameters that are constants of their slots (none written, every process started
before the search) may be renamed among themselves when the run arguments of each process's
image are the permuted images of its own (``param_permutation``: a hypercube node's ``out1``,
``out2`` under a swap of dimensions); the text is then read with the renaming, and the
canonicaliser keeps each slot's own.  So a flow that type inference missed costs symmetry, never
soundness.  Every node kind is dispatched explicitly (``match`` ending in ``assert_never``).
"""

from __future__ import annotations

import operator
import re
from typing import TYPE_CHECKING, assert_never, cast

from ...promela import ast
from ...promela.constants import constant_value
from ...promela.printer import print_expr
from ..inference import PID_BUILTINS
from ..kinds import (
    CHAN,
    DATA,
    OUTPUT,
    PID,
    TRUTH,
    FieldSlot,
    GlobalSlot,
    Kind,
    LocalSlot,
    MessageSlot,
    Slot,
    domain_of,
    offset_of,
    variable_slot,
)
from .alpha import Alpha, Invalid, Rejection, Token, Tokenizer
from .facts import ModelFacts
from .normal_form import SHORT_CIRCUIT

_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
# Names SPIN defines that hold no pid (``_`` is the write-only wildcard of receives).
_DATA_NAMES = frozenset({"_nr_pr", "timeout", "np_", "_"})


class Rewrite(ModelFacts):
    """The typed rewrite of the program under a candidate alpha (module docstring), statement by
    statement and expression by expression, with the kinds of the values read.  Needs reject and
    consistent (ShapeChecks, shape.py)."""

    if TYPE_CHECKING:
        def reject(self, alpha, reason: str, node, pids: bool = False, chans: bool = False,
                   proctype: str | None = None, pid_zero: bool = False, zero_names: int = 0,
                   values: tuple[str | None, ...] = (), value_zero: str | None = None) -> None: ...

        def consistent(self, kind: Kind, context: Kind, node, alpha) -> None: ...

    # ------------------------------------------------------------------ declarations and formulas
    def typedef(self, typedef: ast.TypeDef, alpha):
        fields = [self.decl(decl, None, alpha, typedef=typedef.name) for decl in typedef.fields]
        return rebuilt(typedef, fields=fields)

    def decl(self, decl: ast.Decl, owner: str | None, alpha, typedef: str | None = None):
        new_vars = []
        for var in decl.vars:
            if typedef is not None:
                slot: Slot = FieldSlot(typedef, var.name)
            else:
                slot = variable_slot(owner, var.name)
            init = var.init
            if init is not None and not isinstance(init, ast.ChanInit):
                init = self.expr(init, owner, self.slot_kind(slot), alpha)
            new_vars.append(rebuilt(var, init=init))
        return rebuilt(decl, vars=new_vars)

    def formula(self, node, alpha):
        """An ltl formula: its operators, down to the expressions that are its atoms."""
        match node:
            case ast.LtlUnary():
                return rebuilt(node, arg=self.formula(node.arg, alpha))
            case ast.LtlBinary():
                return rebuilt(node, left=self.formula(node.left, alpha), right=self.formula(node.right, alpha))
            case _:
                return self.expr(node, None, TRUTH, alpha)

    # ------------------------------------------------------------------ applying alpha: statements
    def sequence(self, seq: ast.Sequence, owner: str | None, alpha) -> ast.Sequence:
        steps = [self.stmt(s, owner, alpha) for s in seq.steps]
        return seq if _same_items(steps, seq.steps) else ast.replace(seq, steps=steps)

    def body(self, node, owner, alpha):
        """The statement or sequence ``node`` (the parts of ``unless``)."""
        if isinstance(node, ast.Sequence):
            return self.sequence(node, owner, alpha)
        return self.stmt(node, owner, alpha)

    def stmt(self, node: ast.Stmt, owner: str | None, alpha):
        """``node`` with alpha applied (alpha None: only the masking of static runs)."""
        match node:
            case ast.Decl():
                return self.decl(node, owner, alpha)
            case ast.Labeled():
                return rebuilt(node, stmt=self.stmt(node.stmt, owner, alpha))
            case ast.Unless():
                return rebuilt(node, stmt=self.body(node.stmt, owner, alpha),
                               escape=self.body(node.escape, owner, alpha))
            case ast.Assign():
                kind = self.lvalue_kind(node.target, owner)
                value = node.value
                if isinstance(value, ast.Run) and id(value) in self.static_runs:
                    value = ast.Const(value="static-run")
                else:
                    value = self.expr(value, owner, kind, alpha)
                target = self.expr(node.target, owner, kind, alpha)
                return rebuilt(node, target=target, value=value)
            case ast.IncDec():
                return rebuilt(node, target=self.expr(node.target, owner, DATA, alpha))
            case ast.Send():
                if node.sorted and isinstance(alpha, Alpha):
                    self.check_sorted_send(node, owner, alpha)
                return rebuilt(node, chan=self.expr(node.chan, owner, CHAN, alpha),
                               args=self.message_args(node.chan, node.args, owner, alpha))
            case ast.Receive():
                return rebuilt(node, chan=self.expr(node.chan, owner, CHAN, alpha),
                               args=self.message_args(node.chan, node.args, owner, alpha))
            case ast.If() | ast.Do():
                return rebuilt(node, options=[self.sequence(o, owner, alpha) for o in node.options])
            case ast.Atomic() | ast.DStep() | ast.Block():
                return rebuilt(node, body=self.sequence(node.body, owner, alpha))
            case ast.ForRange():
                return rebuilt(node, var=self.expr(node.var, owner, DATA, alpha),
                               lo=self.expr(node.lo, owner, DATA, alpha), hi=self.expr(node.hi, owner, DATA, alpha),
                               body=self.sequence(node.body, owner, alpha))
            case ast.ForIn():
                array = node.array
                if isinstance(array, ast.VarRef) and array.index is None and array.field is None:
                    var, _slot = self.resolve.variable(array.name, owner)
                    if var is not None and var.owner is None and array.name in self.static_channel_vars:
                        array = self.channel_ref(array, owner, OUTPUT, alpha)
                else:
                    array = self.expr(array, owner, OUTPUT, alpha)
                return rebuilt(node, var=self.expr(node.var, owner, DATA, alpha), array=array,
                               body=self.sequence(node.body, owner, alpha))
            case ast.Select():
                return rebuilt(node, var=self.expr(node.var, owner, DATA, alpha),
                               lo=self.expr(node.lo, owner, DATA, alpha), hi=self.expr(node.hi, owner, DATA, alpha))
            case ast.Printf():
                # Output only, not part of the state; but its arguments are evaluated (a bad
                # array index is an error), so their places are checked.
                for arg in node.args:
                    self.expr(arg, owner, OUTPUT, alpha)
                return node
            case ast.Printm():
                self.expr(node.arg, owner, OUTPUT, alpha)
                return node
            case ast.Assert():
                return rebuilt(node, expr=self.expr(node.expr, owner, TRUTH, alpha))
            case ast.ExprStmt():
                if isinstance(node.expr, ast.Run):
                    if id(node.expr) in self.static_runs:
                        return ast.ExprStmt(expr=ast.Const(value="static-run"))
                    return rebuilt(node, expr=self.expr(node.expr, owner, OUTPUT, alpha))
                return rebuilt(node, expr=self.expr(node.expr, owner, TRUTH, alpha))
            case ast.XrXs():
                return rebuilt(node, vars=[self.expr(v, owner, CHAN, alpha) for v in node.vars])
            case ast.Break() | ast.Goto() | ast.Else() | ast.Skip():
                return node
            case ast.InlineCall() | ast.CCode():
                if alpha is not None:
                    self.reject(alpha, "embedded C or an unexpanded inline cannot be checked for symmetry",
                                node, pids=True, chans=True, values=(None,))
                return node
            case _:
                assert_never(node)

    def lvalue_kind(self, target, owner) -> Kind:
        if isinstance(target, ast.VarRef) and target.name in self.static_channel_vars \
                and self.resolve.variable(target.name, owner)[1] == GlobalSlot(target.name):
            return CHAN
        return self.slot_kind(self.resolve.slot(target, owner))

    def check_sorted_send(self, node, owner, alpha) -> None:
        """`!!` keeps messages sorted by value: renaming pids or channels reorders them."""
        chan_slot = self.resolve.slot(node.chan, owner)
        for i, _arg in enumerate(node.args):
            kind = self.types.kind(MessageSlot(chan_slot, i)) if chan_slot is not None else DATA
            if kind != DATA:
                held = "pid" if kind == PID else "channel" if kind == CHAN else "scalar domain's value"
                self.reject(alpha, f"a sorted send (!!) orders messages by the value of a {held}, "
                                   "which a permutation changes",
                            node, pids=kind == PID, chans=kind == CHAN,
                            values=(domain_of(kind),) if domain_of(kind) is not None else ())

    def message_args(self, chan_ref, args, owner, alpha):
        chan_slot = self.resolve.slot(chan_ref, owner)
        result = []
        for i, arg in enumerate(args):
            kind = self.slot_kind(MessageSlot(chan_slot, i)) if chan_slot is not None else DATA
            result.append(self.expr(arg, owner, kind, alpha))
        return result

    # ------------------------------------------------------------------ applying alpha: expressions
    def expr(self, e: ast.Expr | None, owner: str | None, context: Kind, alpha):
        """``e`` with alpha applied, read in a ``context`` (PID, CHAN, DATA, TRUTH, OUTPUT)."""
        if alpha is None or e is None:
            return e
        match e:
            case ast.Const():
                return self.constant(e, e.value, context, alpha)
            case ast.VarRef():
                return self.varref(e, owner, context, alpha)
            case ast.BinOp():
                return self.binop(e, owner, context, alpha)
            case ast.UnOp():
                value = self.fold(e)
                if value is not None:
                    return self.constant(e, value, context, alpha)
                if self.pid_computed(e):
                    self.check_pid_expression(e, owner, context, alpha)
                    return e
                self.consistent(DATA, context, e, alpha)
                inner = TRUTH if e.op == "!" else DATA
                return rebuilt(e, operand=self.expr(e.operand, owner, inner, alpha))
            case ast.CondExpr():
                value = self.fold(e)
                if value is not None:
                    return self.constant(e, value, context, alpha)
                return rebuilt(e, cond=self.expr(e.cond, owner, TRUTH, alpha),
                               then=self.expr(e.then, owner, context, alpha),
                               other=self.expr(e.other, owner, context, alpha))
            case ast.ChanFn():
                self.consistent(DATA, context, e, alpha)
                return rebuilt(e, chan=self.expr(e.chan, owner, CHAN, alpha))
            case ast.Builtin():
                self.consistent(DATA, context, e, alpha)
                args = [self.expr(a, owner, PID if i == 0 and e.fn in PID_BUILTINS else DATA, alpha)
                        for i, a in enumerate(e.args)]
                if e.fn not in PID_BUILTINS:
                    self.reject(alpha, f"'{e.fn}' is not known to the symmetry analysis", e, pids=True, chans=True,
                                values=(None,))
                return rebuilt(e, args=args)
            case ast.Run():
                self.consistent(PID, context, e, alpha)
                params = [v for v in self.model.locals.get(e.proctype, []) if v.is_param]
                args = [self.expr(a, owner, self.slot_kind(LocalSlot(e.proctype, p.name)), alpha)
                        for a, p in zip(e.args, params)]
                return rebuilt(e, args=args)
            case ast.Poll():
                self.consistent(DATA, context, e, alpha)
                return rebuilt(e, chan=self.expr(e.chan, owner, CHAN, alpha),
                               args=self.message_args(e.chan, e.args, owner, alpha))
            case ast.RemoteLabel():
                self.consistent(DATA, context, e, alpha)
                return rebuilt(e, index=self.remote_index(e, owner, alpha))
            case ast.RemoteVar():
                kind = self.slot_kind(self.resolve.slot(e, None))
                self.consistent(kind, context, e, alpha)
                index = self.remote_index(e, owner, alpha)
                return rebuilt(e, index=index, var=self.varref(e.var, e.proctype, kind, alpha))
            case ast.CExpr():
                self.reject(alpha, "embedded C (c_expr) cannot be checked for symmetry", e, pids=True, chans=True,
                            values=(None,))
                return e
            case ast.Eval():
                return rebuilt(e, expr=self.expr(e.expr, owner, context, alpha))
            case _:
                assert_never(e)

    def binop(self, e: ast.BinOp, owner, context, alpha):
        value = self.fold(e)
        if value is not None:
            return self.constant(e, value, context, alpha)
        if isinstance(alpha, Tokenizer) and self.pid_computed(e) and e.op not in ("==", "!="):
            self.check_pid_expression(e, owner, context, alpha)  # (recorded, not checked)
            return e
        if self.pid_computed(e) and e.op not in ("==", "!="):
            self.check_pid_expression(e, owner, context, alpha)
            return e
        self.consistent(DATA, context, e, alpha)  # the result of an operator is data
        if e.op in _ORDER and (ordered := self.ordered_with_constant(e, owner)) is not None:
            # `x < 3` with x of a scalar domain: the same for the image when alpha keeps the
            # domain's values below 3 together (x itself is left to the canonicaliser).
            domain, holds = ordered
            self.check_kept_together(alpha, domain, holds, e)
            return e
        if e.op in ("==", "!="):
            # A comparison is read in the kind of its operands: `_pid == 1` compares pids,
            # so the literal is renamed ([DM08]'s pid context).
            # A side computed from _pid alone (`_pid - 1`) fits pids of any offset: it takes the
            # other side's (and is evaluated per process there).
            kinds = {self.kind_of(x, owner) for x in (e.left, e.right) if not self.pid_computed(x)}
            pidish = sorted((k for k in kinds if k is not None and offset_of(k) is not None), key=str)
            computed = any(self.pid_computed(x) for x in (e.left, e.right))
            scalar = sorted((k for k in kinds if k is not None and domain_of(k) is not None), key=str)
            side = pidish[0] if pidish else PID if computed else CHAN if CHAN in kinds \
                else scalar[0] if scalar else DATA
        elif e.op in SHORT_CIRCUIT:
            side = TRUTH
        else:
            side = DATA
        return rebuilt(e, left=self.expr(e.left, owner, side, alpha), right=self.expr(e.right, owner, side, alpha))

    def constant(self, node, value, context: Kind, alpha):
        """A constant (folded) read in ``context``: a pid, a channel id or a value of a scalar
        domain is renamed."""
        self.check_held(node, value, context, alpha)
        offset = offset_of(context)
        if offset and value + offset in self.pids:
            if isinstance(alpha, Tokenizer):
                return ast.Const(value=_token_value(alpha.pid(value + offset)), pos=getattr(node, "pos", None))
            image = alpha.pid(value + offset) - offset
        elif context == PID and value in self.pids:
            image = alpha.pid(value)
        elif context == CHAN and value in self.chan_ids:
            image = alpha.chan(value)
        elif (domain := domain_of(context)) is not None and value in self.domain_values[domain]:
            if isinstance(alpha, Tokenizer):
                return ast.Const(value=_token_value(alpha.value(domain, value)), pos=getattr(node, "pos", None))
            image = alpha.value(domain, value)
        else:
            return node
        if image == value:
            return node
        return ast.Const(value=image, pos=getattr(node, "pos", None))

    def check_held(self, node, value: int, context: Kind, alpha, process: int | None = None) -> None:
        """A value (a constant, or an expression of _pid for ``process``) read where pids with
        offset K or channel ids are meant, as the C holds it: every place of that kind stores it
        wrapped into its type, compares it as an int, and the canonicaliser renames what it
        reads back only when that is a pid (or channel) again.  When a place's type does not
        hold the value, the C's reading and this analysis's may name different points: those
        it could name stay where they are."""
        offset = offset_of(context)
        kind = PID if offset is not None else CHAN if context == CHAN else None
        if kind is None or alpha is None or isinstance(alpha, Tokenizer):
            return
        offset = offset or 0
        places = [place for place in self.value_places if place.kind == kind and place.offset == offset]
        unheld = [place for place in places if not place.holds(value)]
        if not unheld:
            return
        points = self.pids if kind == PID else self.chan_ids
        named = {v + offset for v in (value, *(place.stored(value) for place in unheld))} & points
        moved = [point for point in sorted(named)
                 if (alpha.pid(point) if kind == PID else alpha.chan(point)) != point]
        if moved:
            place = unheld[0]
            whose = f" for pid {process}" if process is not None else ""
            raise Invalid(Rejection(
                f"'{print_expr(node)}' is {value}{whose}, which '{place.name}' ({place.ctype}, {place.smallest} .. "
                f"{place.largest}) holds as {place.stored(value)}: the C and this analysis may read different "
                f"{'pids' if kind == PID else 'channels'} in it, so {'pid' if kind == PID else 'channel'} "
                f"{moved[0]} cannot move", getattr(node, "pos", None)))

    def ordered_with_constant(self, e: ast.BinOp, owner) -> tuple[str, frozenset[int]] | None:
        """For ``x < c`` (or ``<=``, ``>``, ``>=``, either way round) with x a variable of a
        scalar domain and c a constant: the domain, and which of its values make it hold."""
        for var, other, flipped in ((e.left, e.right, False), (e.right, e.left, True)):
            if not isinstance(var, ast.VarRef):
                continue
            domain = domain_of(self.kind_of(var, owner))
            bound = self.fold(other) if not isinstance(other, ast.Const) else other.value
            if bound is None and isinstance(other, ast.VarRef):
                bound = constant_value(other, self.constants)
            if domain is None or bound is None:
                continue
            op = _FLIPPED[e.op] if flipped else e.op
            return domain, frozenset(v for v in self.domain_values[domain] if _ORDER[op](v, bound))
        return None

    def check_kept_together(self, alpha, domain: str, values: frozenset[int], node) -> None:
        """Reject alpha unless it maps ``values`` of ``domain`` onto themselves."""
        if alpha is None or isinstance(alpha, Tokenizer):
            return
        if {alpha.value(domain, v) for v in values} != values:
            shown = ", ".join(map(str, sorted(values)))
            raise Invalid(Rejection(f"'{print_expr(node)}' holds for the values {shown} of '{domain}' "
                                    "only, which the permutation does not keep together",
                                    getattr(node, "pos", None)))

    def fold(self, e) -> int | None:
        if isinstance(e, (ast.BinOp, ast.UnOp, ast.CondExpr)):
            if self._pid_shape(e)[0]:
                return None  # reads _pid: evaluated per process instead
            return constant_value(e, self.constants)
        return None

    def varref(self, ref: ast.VarRef, owner: str | None, context: Kind, alpha):
        name = ref.name
        if name == "_pid" and ref.index is None and ref.field is None:
            if owner is not None:
                self.check_pid_expression(ref, owner, context, alpha)
            return ref
        var, _slot = self.resolve.variable(name, owner)
        if var is not None and var.is_param and owner in self.slot_constants and isinstance(alpha, Alpha):
            renamed = self.renamings.get((alpha, owner), {}).get(name)
            if renamed is not None:
                self.consistent(self.slot_kind(self.resolve.slot(ref, owner)), context, ref, alpha)
                return rebuilt(ref, name=renamed)
        masks = self.parameter_masks.get(owner, {}) if owner is not None else {}
        if var is not None and isinstance(alpha, Tokenizer) and name in masks:
            # For the regions: a renaming of these parameters maps the text onto itself.
            return rebuilt(ref, name=masks[name])
        if var is None:
            if ref.index is None and ref.field is None:
                value = self.mtypes.get(name, {"true": 1, "false": 0}.get(name))
                if value is not None:
                    return self.constant(ref, value, context, alpha)
            if name == "_last":
                self.consistent(PID, context, ref, alpha)
                return ref
            if name in _DATA_NAMES:
                if name != "_":
                    self.consistent(DATA, context, ref, alpha)
                return ref
            self.reject(alpha, f"'{name}' is not known to the symmetry analysis", ref, pids=True, chans=True,
                        values=(None,))
            return ref
        if var.owner is None and name in self.static_channel_vars:
            return self.channel_ref(ref, owner, context, alpha)
        if var.owner is None and name in self.constants and ref.index is None and ref.field is None:
            return self.constant(ref, self.constants[name], context, alpha)
        kind = self.slot_kind(self.resolve.slot(ref, owner))
        self.consistent(kind, context, ref, alpha)
        index = ref.index
        if index is not None:
            index = self.index(self.resolve.array_slot(ref, owner), index, owner, alpha)
        field = ref.field
        if field is not None:
            field = self.field_ref(var, ref, owner, alpha)
        return rebuilt(ref, index=index, field=field)

    def index(self, array_slot, index, owner, alpha):
        """An array index, read in the kind of the array's index class."""
        context = self.index_context(array_slot) if array_slot is not None else DATA
        if context == CHAN:
            self.reject(alpha, f"'{print_expr(index)}' indexes an array by channel ids, which the "
                               "canonicaliser does not permute", index, chans=True)
        return self.expr(index, owner, context, alpha)

    def field_ref(self, var, ref: ast.VarRef, owner, alpha):
        """The field chain below ``ref`` with its indices read in their arrays' index kinds."""
        chain = list(self.resolve.field_path(var, ref))
        new_inner = None
        for inner, slot in reversed(chain):
            index = self.index(slot, inner.index, owner, alpha) if inner.index is not None else None
            new_inner = rebuilt(inner, index=index, field=new_inner if new_inner is not None else inner.field)
        return new_inner

    def remote_index(self, e, owner, alpha):
        """The index of ``P[i]@l`` / ``P[i]:x``: the pid of a process of P."""
        if e.index is None:
            if len(self.instances.get(e.proctype, [])) > 1:
                self.reject(alpha, f"'{print_expr(e)}' names a process of '{e.proctype}' without an index",
                            e, proctype=e.proctype)
            return None
        return self.expr(e.index, owner, PID, alpha)

    def channel_ref(self, ref: ast.VarRef, owner, context, alpha):
        """A global declared as a channel (``chan q = ...``, ``chan q[3] = ...``): its value is
        its own channel's id for ever (unless written, see check_channels), so naming it names
        that channel, and alpha renames the name.  An array of them indexed by pid (a mailbox
        per process, ``box[_pid]``; [DG01]'s public channels, ``c[_pid - K]``) is constant
        too: its channels must move with the pids that index them, so that ``c[i]`` names in
        the image the channel alpha makes of the one it named."""
        self.consistent(CHAN, context, ref, alpha)
        members = [c for n, c in self.channel_by_name.items()
                   if n == ref.name or n.startswith(ref.name + "[")]
        if ref.index is not None and self.types.index_kind(GlobalSlot(ref.name)) == PID:
            if isinstance(alpha, Alpha):
                self._channels_follow_their_index(alpha, ref)
            return rebuilt(ref, index=self.expr(ref.index, owner, self.index_context(GlobalSlot(ref.name)), alpha))
        if ref.index is None:
            name = ref.name
        else:
            value = constant_value(ref.index, self.mtypes)
            if value is None:
                if isinstance(alpha, Alpha) and any(alpha.chan(c.id) != c.id for c in members):
                    raise Invalid(Rejection(f"channel array '{ref.name}' is indexed by a computed "
                                            "value, so its channels cannot be permuted", ref.pos))
                return rebuilt(ref, index=self.expr(ref.index, owner, DATA, alpha))
            name = f"{ref.name}[{value}]"
        chan = self.channel_by_name.get(name)
        if chan is None:
            return ref  # out of bounds: the same error for every image
        if isinstance(alpha, Tokenizer):
            return ast.VarRef(name=_token_name(alpha.chan(chan.id)), pos=ref.pos)
        image = alpha.chan(chan.id)
        if image == chan.id:
            return ref
        return _ref_from_name(self.channel_by_id[image].name, ref.pos)

    def _channels_follow_their_index(self, alpha: Alpha, ref: ast.VarRef) -> None:
        """Element i of the channel array ``ref.name`` indexed by pid - K belongs to pid i + K:
        alpha must take its channel to element alpha(i + K) - K's, and fix those of the
        elements that belong to no process."""
        offset = self.types.index_offset(GlobalSlot(ref.name))
        for name, chan in self.channel_by_name.items():
            if not name.startswith(ref.name + "["):
                continue
            i = int(name[len(ref.name) + 1:-1])
            pid = i + offset
            image = alpha.pid(pid) if pid in self.pids else pid
            target = self.channel_by_name.get(f"{ref.name}[{image - offset}]")
            if target is None or alpha.chan(chan.id) != target.id:
                raise Invalid(Rejection(
                    f"channel array '{ref.name}' is indexed by pid{f' - {offset}' if offset else ''}, "
                    f"so {name} belongs to pid {pid} and must move with it, to "
                    f"{target.name if target is not None else f'an element for pid {image}, which it has not'}",
                    ref.pos))

    # ------------------------------------------------------------------ kinds of values
    def kind_of(self, e, owner) -> Kind | None:
        """The kind of the value of ``e`` (None for a constant, which takes the kind of what
        it is compared with), cached per node and owner: comparisons ask once per candidate."""
        key = (id(e), owner)
        cached = self.expression_kinds.get(key)
        if cached is None or cached[0] is not e:
            cached = self.expression_kinds[key] = (e, self._kind_of(e, owner))
        return cached[1]

    def _kind_of(self, e, owner) -> Kind | None:
        if isinstance(e, ast.Const) or self.fold(e) is not None:
            return None
        if isinstance(e, ast.VarRef):
            if e.name == "_pid" and e.index is None and e.field is None:
                return PID
            var, _slot = self.resolve.variable(e.name, owner)
            if var is not None and var.owner is None and e.name in self.constants \
                    and e.index is None and e.field is None:
                return None
            if var is None:
                if e.name in self.mtypes or e.name in ("true", "false"):
                    return None
                return PID if e.name == "_last" else DATA
            if var.owner is None and e.name in self.static_channel_vars:
                return CHAN
            return self.slot_kind(self.resolve.slot(e, owner))
        if isinstance(e, ast.RemoteVar):
            return self.slot_kind(self.resolve.slot(e, None))
        if isinstance(e, ast.Run):
            return PID
        if self.pid_computed(e):
            return PID
        if isinstance(e, ast.CondExpr):
            kinds = {self.kind_of(e.then, owner), self.kind_of(e.other, owner)} - {None}
            pidish = sorted((k for k in kinds if k is not None and offset_of(k) is not None), key=str)
            return pidish[0] if pidish else CHAN if CHAN in kinds else DATA if kinds else None
        if isinstance(e, ast.Eval):
            return self.kind_of(e.expr, owner)
        return DATA

    def pid_computed(self, e) -> bool:
        """Whether ``e`` is computed from ``_pid`` and constants alone (``1 - _pid``): the type
        inference's uses_pid and is_pid_constant, cached per node (the checker asks for every
        expression of every candidate) and found from the children's answers, not by a walk per
        node."""
        uses, constant = self._pid_shape(e)
        return uses and constant

    def _pid_shape(self, e) -> tuple[bool, bool]:
        """(uses_pid(e), is_pid_constant(e)), mtype names counting as constants"""
        cached = self.pid_expressions.get(id(e))
        if cached is not None and cached[0] is e:
            return cached[1]
        if isinstance(e, ast.VarRef):
            if e.name == "_pid" or id(e) in self.copy_refs:
                uses, constant = True, e.index is None and e.field is None
            else:
                uses = False
                constant = e.index is None and e.field is None \
                    and (e.name in self.constants or e.name in ("true", "false")) \
                    and self.resolve.variable(e.name, None)[0] is None
        else:
            uses = False
            constant = isinstance(e, (ast.Const, ast.BinOp, ast.UnOp, ast.CondExpr))
        for child in e.children():
            child_uses, child_constant = self._pid_shape(child)
            uses = uses or child_uses
            constant = constant and child_constant
        self.pid_expressions[id(e)] = (e, (uses, constant))
        return uses, constant


    def check_pid_expression(self, e, owner, context, alpha) -> None:
        """An expression of ``_pid`` and constants, evaluated for every process of ``owner``:
        a pid result must commute with alpha, a condition must keep its truth, any other
        result must be invariant."""
        if isinstance(alpha, Tokenizer):
            if owner is not None and context != OUTPUT and not isinstance(e, ast.VarRef):
                alpha.pid_expressions.append((e, owner, context))
            return
        if context == OUTPUT or owner is None:
            return
        if context == CHAN:
            self.reject(alpha, f"'{print_expr(e)}' is computed from _pid but stands where a channel "
                               "id is meant", e, pids=True, chans=True)
            return
        for p in self.instances.get(owner, []):
            q = alpha.pid(p)
            if q == p and offset_of(context) is None:
                continue  # the same value: data and conditions are unchanged
            # (a process that stays must still name the image of what it names: for
            # `(_pid + 1) % 3` and the swap of pids 1 and 2, pid 0 names pid 1 and must name 2)
            value_p = constant_value(e, self.process_names(owner, p))
            value_q = constant_value(e, self.process_names(owner, q))
            if value_p is None or value_q is None:
                raise Invalid(Rejection(f"'{print_expr(e)}' cannot be evaluated for each process", e.pos))
            offset = offset_of(context)
            if offset is not None:
                self.check_held(e, value_p, context, alpha, p)
                self.check_held(e, value_q, context, alpha, q)
                # pids with offset K: v names pid v + K (plain pids: K = 0)
                named = value_p + offset
                expected = alpha.pid(named) - offset if named in self.pids else value_p
                if value_q != expected and named in self.pids:
                    raise Invalid(Rejection(
                        f"'{print_expr(e)}' names pid {named} for pid {p}, so it must name pid "
                        f"{alpha.pid(named)} for pid {q}, the image of pid {p}, but it names pid "
                        f"{value_q + offset} there", e.pos))
                same = value_q == expected
            elif context == TRUTH:
                same = bool(value_q) == bool(value_p)
            else:
                same = value_q == value_p
            if not same:
                raise Invalid(Rejection(
                    f"'{print_expr(e)}' is {value_p} for pid {p} but {value_q} for pid {q}, "
                    f"which the permutation does not match", e.pos))


# The Tokenizer's program holds a Token where a pid, a channel or a scalar value was: in a
# constant's value, or as the name of a channel.  Only occurrence_regions and the normal forms
# read that program, and they tell the Tokens apart with isinstance (normal_form.py); the
# casts say where a Token stands in for an int or a name.
def _token_value(token: Token) -> int:
    return cast(int, token)


def _token_name(token: Token) -> str:
    return cast(str, token)


def _same_items(new: list, old: list) -> bool:
    return len(new) == len(old) and all(map(operator.is_, new, old))


def rebuilt(node, **changes):
    """``node`` with the given fields changed, or ``node`` itself when every new value is the
    old one (a list: item by item): alpha leaves most of a program alone, and the program's
    own nodes have known normal forms (Checker.normal_forms)."""
    for name, value in changes.items():
        old = getattr(node, name)
        if value is old:
            continue
        if type(value) is list and type(old) is list and _same_items(value, old):
            continue
        return ast.replace(node, **changes)
    return node


def _ref_from_name(name: str, pos) -> ast.VarRef:
    match = re.fullmatch(r"(\w+)(?:\[(\d+)\])?", name)
    assert match is not None, name
    index = ast.Const(value=int(match.group(2))) if match.group(2) is not None else None
    return ast.VarRef(name=match.group(1), index=index, pos=pos)
