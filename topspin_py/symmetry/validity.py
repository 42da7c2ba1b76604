"""Validity of a candidate symmetry against the program text (seed 000, section 7.3.1).

A candidate ``alpha`` permutes pids and static channel ids.  It is *valid* when the program it
turns the model into is the same program: ``normal_form(alpha(P)) == normal_form(P)``, where
``alpha(P)`` renames every pid literal in a pid context and every static channel named in the
text, permutes the run statements (checked instance by instance), and ``normal_form`` sorts the
options of ``if``/``do`` and the operands of commutative operators.  Beyond the paper:

* a pid computed from ``_pid`` and constants (``1 - _pid``, ``(_pid + 1) % N``) must commute
  with ``alpha`` for every process of the proctype, which is checked by evaluating it;
* a data expression that depends on ``_pid`` (``_pid < 3``) must have the same value for a
  process and its image;
* processes that can terminate are never moved (SPIN removes them in reverse pid order);
* pid 0 is never moved when a local pid variable exists (SPIN resets dead locals to 0);
* pids named in a never claim, an ``ltl`` formula, ``P[k]@l``, ``P[k]:x``, ``enabled(k)``,
  ``pc_value(k)`` are literals in pid context like any other, so the claim restricts the group
  to the permutations that map it to itself.

``Checker.check(alpha)`` returns None when alpha is valid, or a ``Rejection`` that says why and
where.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from functools import cached_property

from ..errors import SourcePos
from ..promela import ast
from ..promela.model import INIT, Model, constant_value
from ..promela.printer import print_expr
from .types import CHAN, DATA, PID, TypeInfo

_COMMUTATIVE = {"+", "*", "&&", "||", "&", "|", "^", "==", "!="}
_ASSOCIATIVE = {"+", "*", "&&", "||", "&", "|", "^"}


@dataclass(frozen=True)
class Alpha:
    """A permutation of pids and of static channel ids (identity where not listed)."""

    pids: tuple[tuple[int, int], ...]
    chans: tuple[tuple[int, int], ...]

    @staticmethod
    def of(pids: dict[int, int], chans: dict[int, int]) -> "Alpha":
        return Alpha(tuple(sorted((a, b) for a, b in pids.items() if a != b)),
                     tuple(sorted((a, b) for a, b in chans.items() if a != b)))

    def pid(self, p: int) -> int:
        return self._pid_images.get(p, p)

    def chan(self, c: int) -> int:
        return self._chan_images.get(c, c)

    # The mappings as dicts, made once: the checker asks for the image of every pid literal.
    @cached_property
    def _pid_images(self) -> dict[int, int]:
        return dict(self.pids)

    @cached_property
    def _chan_images(self) -> dict[int, int]:
        return dict(self.chans)

    def is_identity(self) -> bool:
        return not self.pids and not self.chans


@dataclass
class Rejection:
    """Why a candidate is not valid, with the place in the model that shows it."""

    reason: str
    pos: SourcePos | None = None
    original: str | None = None  # the normalised text, before and after, for --explain
    permuted: str | None = None

    def __str__(self) -> str:
        return f"{self.pos}: {self.reason}" if self.pos else self.reason


class Token:
    """One occurrence of a pid or channel in the program text (see Tokenizer)."""

    __slots__ = ("point",)

    def __init__(self, point: tuple[str, int]) -> None:
        self.point = point

    def __repr__(self) -> str:
        return "<token>"


class Tokenizer:
    """Not a permutation: replaces every occurrence of a pid or channel in a pid or channel
    context by a fresh Token that remembers which point it stands for (occurrence_colours)."""

    def pid(self, p: int) -> Token:
        return Token(("pid", p))

    def chan(self, c: int) -> Token:
        return Token(("chan", c))

    def is_identity(self) -> bool:
        return False


class _Invalid(Exception):
    def __init__(self, rejection: Rejection) -> None:
        super().__init__(rejection.reason)
        self.rejection = rejection


class Checker:
    """Checks candidates against one model, with its inferred types."""

    def __init__(self, model: Model, types: TypeInfo) -> None:
        from .types import SlotResolver

        self.model = model
        self.types = types
        self.resolve = SlotResolver(model)
        self.pids = {p.pid for p in model.processes}
        self.instances: dict[str, list[int]] = {}
        for proc in model.processes:
            self.instances.setdefault(proc.proctype, []).append(proc.pid)
        self.channel_by_name = {c.name: c for c in model.channels if c.owner_pid is None}
        self.global_channel_arrays = {v.name for v in model.globals if isinstance(v.init, ast.ChanInit)}
        self.static_runs = {id(p.node) for p in model.processes if p.node is not None}
        self.pid_expressions: dict[int, tuple[object, tuple[bool, bool]]] = {}
        self.expression_kinds: dict[tuple[int, str | None], tuple[object, str]] = {}
        self.terminating = {name for name, p in model.proctypes.items() if can_terminate(p.body)}
        if model.init is not None and can_terminate(model.init.body):
            self.terminating.add(INIT)
        self.pid_locals = [
            v for owner, vars_ in model.locals.items() for v in vars_
            if types.kind(("local", owner, v.name)) == PID
        ]
        # The narrowest variable that holds pids: a pid above its range is truncated when
        # stored, which no permutation of pids respects.
        pid_vars = [v for v in model.globals if types.kind(("global", v.name)) == PID] + [
            v for owner, vars_ in model.locals.items() for v in vars_
            if types.kind(("local", owner, v.name)) == PID]
        self.narrowest_pid_var = min(pid_vars, key=_largest_value, default=None)
        init_body = self.stmt(model.init.body, INIT, None) if model.init is not None else None
        # Decided on the text as written: a permutation keeps distinct locations distinct.
        self.init_setup = bool(init_body and init_body.steps and isinstance(init_body.steps[0], (ast.Atomic, ast.DStep))
                               and _is_setup(init_body.steps[0].body))
        self.units = [u for u in model.expanded.units
                      if not isinstance(u, (ast.Inline, ast.MtypeDecl, ast.TypeDef, ast.CCode, ast.CState))]
        # id(node) -> (node, normal form) for the nodes of the program (see _normal)
        self.normal_forms: dict[int, tuple[object, str]] = {}
        self.original = [self.normal_unit(u, None) for u in self.units]

    # ------------------------------------------------------------------ the check
    def check(self, alpha: Alpha) -> Rejection | None:
        if alpha.is_identity():
            return None
        try:
            self.check_processes(alpha)
            self.check_channels(alpha)
            for unit, original in zip(self.units, self.original):
                permuted = self.normal_unit(unit, alpha)
                if permuted != original:
                    raise _Invalid(Rejection(f"the {_describe(unit)} is not mapped to itself",
                                             unit.pos, original, permuted))
        except _Invalid as invalid:
            return invalid.rejection
        return None

    def check_processes(self, alpha: Alpha) -> None:
        by_pid = {p.pid: p for p in self.model.processes}
        for a, b in alpha.pids:
            if a not in by_pid or b not in by_pid:
                raise _Invalid(Rejection(f"pid {a if a not in by_pid else b} is not a process of the model"))
            pa, pb = by_pid[a], by_pid[b]
            if pa.proctype != pb.proctype:
                raise _Invalid(Rejection(f"pid {a} ({pa.proctype}) and pid {b} ({pb.proctype}) run different proctypes", pa.pos))
            priority_a = getattr(pa.node, "priority", None)
            priority_b = getattr(pb.node, "priority", None)
            if _normal(priority_a) != _normal(priority_b):
                raise _Invalid(Rejection(f"pids {a} and {b} are run with different priorities", pb.pos))
            narrow = self.narrowest_pid_var
            if narrow is not None and max(a, b) > _largest_value(narrow):
                raise _Invalid(Rejection(
                    f"'{narrow.name}' holds pids but its type stops at {_largest_value(narrow)}, "
                    f"so pid {max(a, b)} would be truncated", narrow.pos))
            if pa.proctype in self.terminating:
                body = self.model.proctypes.get(pa.proctype)
                raise _Invalid(Rejection(
                    f"processes of '{pa.proctype}' can terminate, and SPIN removes terminated "
                    f"processes in reverse pid order, which no permutation of them respects",
                    body.pos if body is not None else pa.pos))
            params = [v for v in self.model.locals.get(pa.proctype, []) if v.is_param]
            for param, arg_a, arg_b in zip(params, pa.args, pb.args):
                kind = self.types.kind(("local", pa.proctype, param.name))
                mapped = self.expr(arg_a, INIT, kind, alpha)
                if _normal(mapped) != _normal(arg_b):
                    raise _Invalid(Rejection(
                        f"run arguments differ: pid {a} gets {param.name} = {print_expr(arg_a)}, "
                        f"pid {b} gets {print_expr(arg_b)}", pb.pos))
        if alpha.pid(0) != 0 and 0 in self.pids and self.pid_locals:
            var = self.pid_locals[0]
            raise _Invalid(Rejection(
                f"pid 0 would move, but the local '{var.name}' holds pids and SPIN resets dead "
                f"local variables to 0, which is also pid 0", var.pos))

    def check_channels(self, alpha: Alpha) -> None:
        by_id = {c.id: c for c in self.model.channels}
        for a, b in alpha.chans:
            ca, cb = by_id.get(a), by_id.get(b)
            if ca is None or cb is None:
                raise _Invalid(Rejection(f"channel {a if ca is None else b} is not a static channel"))
            if ca.owner_pid is not None or cb.owner_pid is not None:
                # A local channel belongs to its process: it moves with it and only with it.
                if ca.owner_pid is None or cb.owner_pid is None or alpha.pid(ca.owner_pid) != cb.owner_pid \
                        or ca.name.split(".", 1)[1] != cb.name.split(".", 1)[1]:
                    raise _Invalid(Rejection(f"local channel {ca.name} must move with its process", ca.pos))
            if (ca.capacity, [str(f) for f in ca.fields]) != (cb.capacity, [str(f) for f in cb.fields]):
                raise _Invalid(Rejection(f"channels {ca.name} and {cb.name} have different types", ca.pos))
        for proc in self.model.processes:
            owned = [c for c in self.model.channels if c.owner_pid == proc.pid]
            for chan in owned:
                image = alpha.chan(chan.id)
                target = by_id[image]
                if target.owner_pid != alpha.pid(proc.pid):
                    raise _Invalid(Rejection(f"local channel {chan.name} must move with its process", chan.pos))

    def occurrence_regions(self) -> list[tuple[tuple, list[tuple[tuple[str, int], str]]]]:
        """Where pids and channels occur in the text, for the static channel diagram.

        A region is the innermost if/do option (or set-up statement, or unit) around some
        occurrences.  For each region: its shape (the normal form with every pid and channel
        written '*'), and for each occurrence the point and the region's shape with that
        occurrence written '@'.  A valid permutation alpha maps the program to one with the same
        normal form, by a correspondence that maps options to options and occurrences of x to
        occurrences of alpha(x); so it maps regions to regions of the same shape, with the same
        incidences, and nauty may use them freely.
        """
        regions = []
        tokenizer = Tokenizer()
        # The tokenized units share their unchanged subtrees with the program, whose normal
        # forms are known; a region is normalised once, then once per token along the path
        # to that token only.
        known = dict(self.normal_forms)
        for number, unit in enumerate(self.units):
            try:
                tokenized = self.tokenize(unit, tokenizer)
            except _Invalid:
                continue  # the same for every point: contributes nothing
            for region, tokens, paths in _regions(tokenized):
                shape = _normal(region, known=known, remember=True)
                incidences = [(token.point, _normal(region, token, known=known, fresh=paths[token]))
                              for token in tokens]
                regions.append(((number, shape), incidences))
        return regions

    def tokenize(self, unit, tokenizer: Tokenizer):
        owner = INIT if isinstance(unit, ast.Init) else unit.name if isinstance(unit, ast.Proctype) else None
        if isinstance(unit, ast.Decl):
            return self.decl(unit, None, tokenizer)
        if isinstance(unit, ast.Ltl):
            return self.expr(unit.formula, None, DATA, tokenizer)
        body = self.stmt(unit.body, owner, tokenizer)
        if isinstance(unit, ast.Init) and self.init_setup:
            # The set-up statements are a set (see _normal_init): written as the options of an
            # `if`, each is a region of its own.
            setup = ast.If(options=[ast.Sequence(steps=[s]) for s in body.steps[0].body.steps])
            return ast.replace(body, steps=[setup] + body.steps[1:])
        return body

    # ------------------------------------------------------------------ normal forms
    def normal_unit(self, unit, alpha: Alpha | None) -> str:
        """The normal form of ``unit`` with alpha applied.  Subtrees that alpha leaves alone
        are the program's own nodes, whose normal forms are computed once, with alpha None."""

        def normal(node) -> str:
            return _normal(node, known=self.normal_forms, remember=alpha is None)

        owner = INIT if isinstance(unit, ast.Init) else unit.name if isinstance(unit, ast.Proctype) else None
        if isinstance(unit, ast.Decl):
            return normal(self.decl(unit, None, alpha))
        if isinstance(unit, ast.Ltl):
            return "ltl:" + normal(self.expr(unit.formula, None, DATA, alpha)) if unit.formula is not None else unit.text
        body = self.stmt(unit.body, owner, alpha)
        if isinstance(unit, ast.Init):
            return "Init:" + _normal_init(body, self.init_setup, normal)
        return type(unit).__name__ + ":" + normal(_rebuilt(unit, body=body))

    def decl(self, decl, owner, alpha):
        new_vars = []
        for var in decl.vars:
            slot = ("local", owner, var.name) if owner else ("global", var.name)
            init = var.init
            if init is not None and not isinstance(init, ast.ChanInit):
                init = self.expr(init, owner, self.types.kind(slot), alpha)
            new_vars.append(_rebuilt(var, init=init))
        return _rebuilt(decl, vars=new_vars)

    # ------------------------------------------------------------------ applying alpha
    def stmt(self, node, owner, alpha):
        """``node`` with alpha applied (alpha None: only the masking of static runs)."""
        if isinstance(node, ast.Sequence):
            steps = [self.stmt(s, owner, alpha) for s in node.steps]
            return node if _same_items(steps, node.steps) else ast.replace(node, steps=steps)
        if isinstance(node, ast.Decl):
            return self.decl(node, owner, alpha)
        if isinstance(node, ast.Assign):
            kind = self.types.kind(self.resolve.slot(node.target, owner))
            value = node.value
            if isinstance(value, ast.Run) and id(value) in self.static_runs:
                value = ast.Const(value="static-run")
            else:
                value = self.expr(value, owner, kind, alpha)
            target = self.expr(node.target, owner, kind, alpha)
            if target is node.target and value is node.value:
                return node
            return ast.replace(node, target=target, value=value)
        if isinstance(node, ast.ExprStmt):
            if isinstance(node.expr, ast.Run) and id(node.expr) in self.static_runs:
                return ast.ExprStmt(expr=ast.Const(value="static-run"))
            expr = self.expr(node.expr, owner, DATA, alpha)
            return node if expr is node.expr else ast.replace(node, expr=expr)
        if isinstance(node, (ast.Send, ast.Receive)):
            if isinstance(node, ast.Send) and node.sorted and isinstance(alpha, Alpha):
                self.check_sorted_send(node, owner)
            return _rebuilt(node, chan=self.expr(node.chan, owner, CHAN, alpha),
                            args=self.message_args(node.chan, node.args, owner, alpha))
        if isinstance(node, (ast.Printf, ast.Printm)):
            return node  # output only, not part of the state
        if isinstance(node, ast.Assert):
            return _rebuilt(node, expr=self.expr(node.expr, owner, DATA, alpha))
        changes = {}
        for name in node.field_names:
            value = getattr(node, name)
            if isinstance(value, ast.Node):
                changes[name] = self.child(value, owner, alpha)
            elif isinstance(value, list):
                changes[name] = [self.child(v, owner, alpha) if isinstance(v, ast.Node) else v for v in value]
        return _rebuilt(node, **changes)

    def child(self, node, owner, alpha):
        if isinstance(node, ast.STATEMENTS) or isinstance(node, ast.Sequence):
            return self.stmt(node, owner, alpha)
        return self.expr(node, owner, DATA, alpha)

    def check_sorted_send(self, node, owner) -> None:
        """`!!` keeps messages sorted by value: renaming pids or channels reorders them."""
        chan_slot = self.resolve.slot(node.chan, owner)
        for i, _arg in enumerate(node.args):
            kind = self.types.kind(("msg", chan_slot, i)) if chan_slot is not None else DATA
            if kind != DATA:
                raise _Invalid(Rejection("a sorted send (!!) orders messages by the value of a "
                                         f"{'pid' if kind == PID else 'channel'}, which a permutation changes",
                                         node.pos))

    def message_args(self, chan_ref, args, owner, alpha):
        chan_slot = self.resolve.slot(chan_ref, owner)
        result = []
        for i, arg in enumerate(args):
            kind = self.types.kind(("msg", chan_slot, i)) if chan_slot is not None else DATA
            if isinstance(arg, ast.Eval):
                result.append(_rebuilt(arg, expr=self.expr(arg.expr, owner, kind, alpha)))
            else:
                result.append(self.expr(arg, owner, kind, alpha))
        return result

    def expr(self, e, owner, context: str, alpha):
        """``e`` with alpha applied, read in a ``context`` of kind PID, CHAN or DATA."""
        if alpha is None or e is None:
            return e
        if isinstance(e, ast.Const):
            if context == PID and e.value in self.pids:
                return _rebuilt(e, value=alpha.pid(e.value))
            return e
        if isinstance(alpha, Tokenizer) and self.pid_computed(e) \
                and not isinstance(e, ast.VarRef) and not (isinstance(e, ast.BinOp) and e.op in ("==", "!=")):
            return e
        if isinstance(e, ast.VarRef):
            return self.varref(e, owner, context, alpha)
        if isinstance(e, ast.BinOp):
            if e.op in ("==", "!="):
                # A comparison is read in the kind of its operands: `_pid == 1` compares pids,
                # so the literal is renamed (the seed's pid context).
                kinds = {self.kind_of(e.left, owner), self.kind_of(e.right, owner)}
                side = PID if PID in kinds else CHAN if CHAN in kinds else DATA
            elif self.pid_computed(e) and owner is not None:
                self.check_pid_expression(e, owner, context, alpha)
                return e
            else:
                side = DATA
            left = self.expr(e.left, owner, side, alpha)
            right = self.expr(e.right, owner, side, alpha)
            if left is e.left and right is e.right:
                return e
            return ast.replace(e, left=left, right=right)
        if isinstance(e, ast.UnOp):
            if self.pid_computed(e) and owner is not None:
                self.check_pid_expression(e, owner, context, alpha)
                return e
            return _rebuilt(e, operand=self.expr(e.operand, owner, DATA, alpha))
        if isinstance(e, ast.CondExpr):
            return _rebuilt(e, cond=self.expr(e.cond, owner, DATA, alpha),
                            then=self.expr(e.then, owner, context, alpha),
                            other=self.expr(e.other, owner, context, alpha))
        if isinstance(e, (ast.RemoteLabel, ast.RemoteVar)):
            changes = {"index": self.expr(e.index, owner, PID, alpha)}
            if e.index is None and len(self.instances.get(e.proctype, [])) > 1 and not isinstance(alpha, Tokenizer):
                moved = any(alpha.pid(p) != p for p in self.instances[e.proctype])
                if moved:
                    raise _Invalid(Rejection(f"'{print_expr(e)}' names a process of '{e.proctype}' "
                                             "without an index", e.pos))
            if isinstance(e, ast.RemoteVar):
                slot = self.resolve.slot(e, None)
                changes["var"] = self.varref(e.var, e.proctype, self.types.kind(slot), alpha)
            return _rebuilt(e, **changes)
        if isinstance(e, ast.Builtin):
            kinds = [PID] if e.fn in ("enabled", "pc_value", "get_priority", "set_priority") else [DATA]
            args = [self.expr(a, owner, kinds[0] if i == 0 else DATA, alpha) for i, a in enumerate(e.args)]
            return _rebuilt(e, args=args)
        if isinstance(e, ast.ChanFn):
            return _rebuilt(e, chan=self.expr(e.chan, owner, CHAN, alpha))
        if isinstance(e, ast.Poll):
            return _rebuilt(e, chan=self.expr(e.chan, owner, CHAN, alpha),
                            args=self.message_args(e.chan, e.args, owner, alpha))
        if isinstance(e, ast.Run):
            params = [v for v in self.model.locals.get(e.proctype, []) if v.is_param]
            args = [self.expr(a, owner, self.types.kind(("local", e.proctype, p.name)), alpha)
                    for a, p in zip(e.args, params)]
            return _rebuilt(e, args=args)
        if isinstance(e, (ast.LtlUnary, ast.LtlBinary)):
            changes = {name: self.expr(getattr(e, name), owner, DATA, alpha)
                       for name in e.field_names if isinstance(getattr(e, name), ast.Node)}
            return _rebuilt(e, **changes)
        if isinstance(e, ast.CExpr) and not isinstance(alpha, Tokenizer):
            raise _Invalid(Rejection("embedded C (c_expr) cannot be checked for symmetry", e.pos))
        return e

    def varref(self, ref, owner, context, alpha):
        var, _slot = self.resolve.variable(ref.name, owner)
        if ref.name == "_pid" and context != PID and owner is not None:
            self.check_pid_expression(ref, owner, context, alpha)
        # A static global channel named in the text: rename it.
        if var is not None and var.owner is None and ref.name in self.global_channel_arrays and ref.field is None:
            return self.channel_ref(ref, owner, alpha)
        index = ref.index
        if index is not None:
            array_slot = self.resolve.slot(ast.VarRef(name=ref.name), owner)
            index_kind = self.types.index_kind(array_slot) if array_slot is not None else DATA
            index = self.expr(index, owner, index_kind, alpha)
        field = ref.field
        if field is not None:
            field = self.field_ref(field, alpha)
        if index is ref.index and field is ref.field:
            return ref
        return ast.replace(ref, index=index, field=field)

    def field_ref(self, ref, alpha):
        index = self.expr(ref.index, None, DATA, alpha) if ref.index is not None else None
        return _rebuilt(ref, index=index,
                        field=self.field_ref(ref.field, alpha) if ref.field is not None else None)

    def channel_ref(self, ref, owner, alpha):
        if ref.index is None:
            name = ref.name
        else:
            value = constant_value(ref.index, self.model.mtypes)
            if value is None:
                members = [c for n, c in self.channel_by_name.items() if n.startswith(ref.name + "[")]
                if not isinstance(alpha, Tokenizer) and any(alpha.chan(c.id) != c.id for c in members):
                    raise _Invalid(Rejection(f"channel array '{ref.name}' is indexed by a computed "
                                             "value, so its channels cannot be permuted", ref.pos))
                return _rebuilt(ref, index=self.expr(ref.index, owner, DATA, alpha))
            name = f"{ref.name}[{value}]"
        chan = self.channel_by_name.get(name)
        if chan is None:
            return ref
        if isinstance(alpha, Tokenizer):
            return ast.VarRef(name=alpha.chan(chan.id), pos=ref.pos)
        target = next(c for c in self.model.channels if c.id == alpha.chan(chan.id))
        return _ref_from_name(target.name, ref.pos)

    def kind_of(self, e, owner) -> str:
        """The kind of the value of ``e`` (a node of the program), cached per node and owner:
        comparisons ask for it once per candidate."""
        key = (id(e), owner)
        cached = self.expression_kinds.get(key)
        if cached is None or cached[0] is not e:
            cached = self.expression_kinds[key] = (e, self._kind_of(e, owner))
        return cached[1]

    def _kind_of(self, e, owner) -> str:
        if isinstance(e, (ast.VarRef, ast.RemoteVar)):
            if isinstance(e, ast.VarRef) and e.name in self.global_channel_arrays and self.resolve.variable(e.name, owner)[0] is not None \
                    and self.resolve.variable(e.name, owner)[0].owner is None:
                return CHAN
            return self.types.kind(self.resolve.slot(e, owner))
        if isinstance(e, ast.Run):
            return PID
        if self.pid_computed(e):
            return PID
        if isinstance(e, ast.CondExpr):
            kind = self.kind_of(e.then, owner)
            return kind if kind != DATA else self.kind_of(e.other, owner)
        return DATA

    def pid_computed(self, e) -> bool:
        """Whether ``e`` is computed from ``_pid`` and constants alone (``1 - _pid``): types.py's
        uses_pid and is_pid_constant, cached per node (the checker asks for every expression
        of every candidate) and found from the children's answers, not by a walk per node."""
        uses, constant = self._pid_shape(e)
        return uses and constant

    def _pid_shape(self, e) -> tuple[bool, bool]:
        """(uses_pid(e), is_pid_constant(e))"""
        cached = self.pid_expressions.get(id(e))
        if cached is not None and cached[0] is e:
            return cached[1]
        if isinstance(e, ast.VarRef) and e.name == "_pid":
            uses, constant = True, e.index is None
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
        a pid result must commute with alpha, any other result must be invariant."""
        if isinstance(alpha, Tokenizer):
            return
        instances = self.instances.get(owner, [])
        for p in instances:
            q = alpha.pid(p)
            if q == p:
                continue
            value_p = constant_value(e, {**self.model.mtypes, "_pid": p})
            value_q = constant_value(e, {**self.model.mtypes, "_pid": q})
            if value_p is None or value_q is None:
                raise _Invalid(Rejection(f"'{print_expr(e)}' cannot be evaluated for each process", e.pos))
            expected = alpha.pid(value_p) if context == PID and value_p in self.pids else value_p
            if value_q != expected:
                raise _Invalid(Rejection(
                    f"'{print_expr(e)}' is {value_p} for pid {p} but {value_q} for pid {q}, "
                    f"which the permutation does not match", e.pos))


_TYPE_MAX = {"bit": 1, "bool": 1, "byte": 255, "pid": 255, "short": 32767, "int": 2**31 - 1}


def _largest_value(var) -> int:
    if var.type.name == "unsigned" and var.bits is not None:
        return 2 ** var.bits - 1
    return _TYPE_MAX.get(var.type.name, 2**31 - 1)


def _describe(unit) -> str:
    if isinstance(unit, ast.Proctype):
        return f"proctype '{unit.name}'"
    if isinstance(unit, ast.Init):
        return "init process"
    if isinstance(unit, ast.Never):
        return "never claim"
    if isinstance(unit, ast.Ltl):
        return f"ltl formula '{unit.name}'" if unit.name else "ltl formula"
    if isinstance(unit, ast.Trace):
        return "trace assertion"
    return "declaration"


def _same_items(new: list, old: list) -> bool:
    return len(new) == len(old) and all(map(operator.is_, new, old))


def _rebuilt(node, **changes):
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
    index = ast.Const(value=int(match.group(2))) if match.group(2) is not None else None
    return ast.VarRef(name=match.group(1), index=index, pos=pos)



# ---------------------------------------------------------------------- normal form

def _normal(node, marked: Token | None = None, known: dict | None = None, remember: bool = False,
            fresh: frozenset = frozenset()) -> str:
    """A string that is equal for programs equal up to the order of if/do options and of the
    operands of commutative operators.  Tokens are written '@' (the ``marked`` one) or '*'.

    ``known`` maps id(node) to (node, its normal form) for nodes seen before, and
    ``remember`` adds the nodes normalised now.  A node keeps its entry only as long as it is
    the same object (the entry holds it, so its id is not reused), and a node's text does not
    depend on ``marked`` unless the marked token lies below it: the ids in ``fresh``, the
    path down to that token, are computed anew.
    """
    return _text(node, marked, known, remember, fresh)


def _text(node, marked, known, remember, fresh) -> str:
    """_normal's recursion (a module function, not a closure: a closure that calls itself
    is a reference cycle, left to the garbage collector after every call)."""
    if node is None:
        return "-"
    cls = type(node)
    if cls is list:
        return "[" + ",".join([_text(n, marked, known, remember, fresh) for n in node]) + "]"
    if cls is Token:
        return "@" if node is marked else "*"
    if not isinstance(node, ast.Node):
        return repr(node)
    key = id(node)
    if known is not None and key not in fresh:
        entry = known.get(key)
        if entry is not None and entry[0] is node:
            return entry[1]
    if cls is ast.If or cls is ast.Do:
        options = [_text(o, marked, known, remember, fresh) for o in node.options]
        result = cls.__name__ + "{" + "|".join(sorted(options)) + "}"
    elif cls is ast.BinOp and node.op in _COMMUTATIVE:
        operands = _flatten(node) if node.op in _ASSOCIATIVE else [node.left, node.right]
        texts = [_text(o, marked, known, remember, fresh) for o in operands]
        result = f"({node.op} " + " ".join(sorted(texts)) + ")"
    else:
        parts = [_text(getattr(node, name), marked, known, remember, fresh) for name in node.field_names]
        result = cls.__name__ + "(" + ",".join(parts) + ")"
    if remember and key not in fresh:
        known[key] = (node, result)
    return result


def _normal_init(body: ast.Sequence, has_setup: bool, normal=_normal) -> str:
    """The normal form of init's body.  Its leading set-up block, an atomic or d_step holding
    only runs and constant assignments to distinct constant locations, is a set: the block
    cannot block or be interleaved, its intermediate states lie on one path from the initial
    state (no other reachable state has init at those points, so no canonical form collides
    with them), and only the state it leaves behind is shared with the rest of the search."""
    steps = list(body.steps)
    head = steps[0] if steps else None
    if has_setup:
        block = "Setup{" + "|".join(sorted(normal(s) for s in head.body.steps)) + "}"
        return block + ";" + normal(steps[1:])
    return normal(body)


def _is_setup(body: ast.Sequence) -> bool:
    targets = set()
    for step in body.steps:
        if isinstance(step, ast.ExprStmt) and step.expr == ast.Const(value="static-run"):
            continue
        if isinstance(step, (ast.Skip, ast.Printf)):
            continue
        if isinstance(step, ast.Assign) and constant_value(step.value) is not None \
                and isinstance(step.target, ast.VarRef) and step.target.field is None \
                and (step.target.index is None or constant_value(step.target.index) is not None):
            key = _normal(step.target)
            if key in targets:
                return False
            targets.add(key)
            continue
        return False
    return True


def _regions(node) -> list[tuple[object, list[Token], dict[Token, frozenset[int]]]]:
    """The tokens of ``node`` grouped by region: the innermost if/do option around each
    token, or ``node`` itself for tokens outside every option; with each token, the ids of
    the nodes on the path from ``node`` down to it."""
    regions: dict[int, tuple[object, list[Token], dict]] = {}
    _find_regions(node, node, [], regions)
    return list(regions.values())


def _find_regions(n, region, path: list[int], regions: dict) -> None:
    if isinstance(n, Token):
        entry = regions.setdefault(id(region), (region, [], {}))
        entry[1].append(n)
        entry[2][n] = frozenset(path)
    elif isinstance(n, ast.Node):
        path.append(id(n))
        if isinstance(n, (ast.If, ast.Do)):
            for option in n.options:
                _find_regions(option, option, path, regions)
        else:
            for child in _child_values(n):
                _find_regions(child, region, path, regions)
        path.pop()


def _child_values(node):
    for name in node.field_names:
        value = getattr(node, name)
        if isinstance(value, list):
            yield from (v for v in value if isinstance(v, (ast.Node, Token)))
        elif isinstance(value, (ast.Node, Token)):
            yield value


def _flatten(node) -> list:
    result = []
    for side in (node.left, node.right):
        if isinstance(side, ast.BinOp) and side.op == node.op:
            result.extend(_flatten(side))
        else:
            result.append(side)
    return result


# ---------------------------------------------------------------------- termination

def can_terminate(body: ast.Sequence) -> bool:
    """Whether control can reach the end of a process body (conservatively: True unless the
    body visibly ends in a loop without exit, a goto, or a blocking `false`)."""
    return _falls_through(body)


def _falls_through(node) -> bool:
    if isinstance(node, ast.Sequence):
        return not node.steps or _falls_through(node.steps[-1])
    if isinstance(node, ast.Labeled):
        return _falls_through(node.stmt)
    if isinstance(node, (ast.Atomic, ast.DStep, ast.Block)):
        return _falls_through(node.body)
    if isinstance(node, ast.Goto):
        return False
    if isinstance(node, ast.Do):
        return any(_has_break(option) for option in node.options)
    if isinstance(node, ast.If):
        return any(_falls_through(option) for option in node.options)
    if isinstance(node, ast.Unless):
        return _falls_through(node.stmt) or _falls_through(node.escape)
    if isinstance(node, ast.ExprStmt):
        value = constant_value(node.expr)
        return value != 0
    return True


def _has_break(node) -> bool:
    """A break that leaves the loop whose option ``node`` is (not one of an inner loop)."""
    if isinstance(node, ast.Break):
        return True
    if isinstance(node, ast.Do):
        return False
    return any(_has_break(child) for child in node.children())
