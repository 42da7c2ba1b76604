"""Desugaring the ref/public extension into plain Promela (Derepas and Gastin [DG01], Fig. 10;
references: docs/references.md).

The translation, with the typos of [DG01]'s Fig. 10 fixed:

* ``ref P x`` becomes ``byte x``, holding the instance's number among P's instances (0..N_P-1);
  ``_undef_ref`` is 255, which no instance has (extension.py refuses N_P >= 255).  Every ref
  variable, array of refs and typedef field of type ref without an initialiser starts as 255:
  in the formal model refs start undefined, and 0 would be instance 0.  (Message fields need
  nothing: a channel's slots hold what was sent.)
* ``_lid`` inside P becomes ``(_pid - K)``, K the pid of P's first instance (P's instances are
  ``active [N_P]``, so they are K..K+N_P-1; the numbers are the Model's own, model.py).
* ``public T v`` in P becomes the global array ``T v[N_P]`` (named ``P_v`` when ``v`` is
  taken elsewhere), declared before the first process; the owner's ``v`` becomes
  ``v[(_pid - K)]`` and ``P[r].v`` becomes ``v[r]``.  ``public chan c = [k] of {...}`` becomes
  the global ``chan c[N_P] = [k] of {...}``: one mailbox per instance.
* ``anyRef(P)`` makes the simple statement holding it an N_P-way choice (refused inside
  ``d_step``, where spin takes the first executable option of an ``if``):
  ``if :: stmt{anyRef:=0} :: ... :: stmt{anyRef:=N_P-1} fi`` (all combinations when it holds
  several).  This is [DG01]'s "N_P transitions".  When the statement is the guard of an
  ``if``/``do`` option, or a step of its own, the ``if`` has no state of its own in SPIN: its
  options' first statements are transitions out of the state the original statement left from,
  so the option is executable exactly when some choice makes the statement executable, and
  ``else`` sees the same set of executable transitions as the N_P transitions of the formal
  model.  The successor states are those of the N_P transitions.

The positions of the original nodes are kept (a node that replaces another takes its position),
so that later stages point into the user's file.  ``desugar`` also returns what the layout and
the canonicaliser need to know about refs (``RefKnowledge``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import cast

from . import ast
from .constants import constant_value
from .extension import (
    INIT,
    RULE_ASSIGN,
    RULE_PUBLIC,
    UNDEF_REF,
    ExtensionError,
    Scopes,
    Symbol,
    check_extension,
    referred_proctypes,
)

_BYTE = "byte"
_MOST_CHOICES = 4096   # anyRef combinations in one statement before we refuse


# ---------------------------------------------------------------------------- what is returned

@dataclass(frozen=True)
class ProctypeRefs:
    """A proctype referred to by refs: its instances have pids first_pid..first_pid+count-1,
    and a ref to one of them holds pid - first_pid."""

    proctype: str
    first_pid: int
    count: int


@dataclass(frozen=True)
class PublicArray:
    """A global array of the desugared program that holds a public variable or channel of
    ``owner``, indexed by the owner's instance number (lid)."""

    owner: str
    name: str        # the global array's name in the desugared program
    declared: str    # the public variable's name in the user's program
    is_chan: bool


@dataclass(frozen=True)
class RefPlace:
    """A place that holds a ref to an instance of ``proctype`` (0..N-1, or 255: undefined).

    ``kind`` says where:
      * "global": the global variable ``name`` (an array of refs when ``length`` is set);
      * "local": the local variable ``name`` of proctype ``owner`` (":init:" for init);
      * "param": the parameter ``name`` of proctype ``owner``;
      * "public": the public ref ``name`` of ``owner``, desugared to the global array ``name``
        indexed by the owner's lid (``length`` is N_owner);
      * "field": the field ``name`` of the typedef ``owner`` (every variable of that type
        holds one);
      * "message": field number ``field_index`` (0-based) of the messages of the channel
        ``name`` (a global channel, an array of channels, a public channel's global array,
        or the local channel ``name`` of proctype ``owner``).
    """

    kind: str
    proctype: str
    name: str
    owner: str | None = None
    length: int | None = None
    field_index: int | None = None
    pos: object = None


@dataclass(frozen=True)
class RefKnowledge:
    """What later stages need to know about the refs of a desugared program."""

    undef: int
    proctypes: dict[str, ProctypeRefs]
    public_arrays: list[PublicArray]
    places: list[RefPlace]

    def describe(self) -> list[str]:
        """The knowledge in words, a line each (the header ``topspin-py desugar`` prints)."""
        lines = [f"_undef_ref = {self.undef}"]
        for sort in self.proctypes.values():
            last = sort.first_pid + sort.count - 1
            lines.append(f"{sort.proctype}: pids {sort.first_pid}..{last}, "
                         f"_lid = (_pid - {sort.first_pid})")
        for array in self.public_arrays:
            what = "public chan" if array.is_chan else "public"
            lines.append(f"{array.name}[_lid of {array.owner}]: {what} {array.declared} of {array.owner}")
        for place in self.places:
            lines.append(f"ref {place.proctype}: {_where(place)}")
        return lines


@dataclass(frozen=True)
class Desugared:
    spec: ast.Spec             # plain Promela, inline calls expanded, inline definitions dropped
    knowledge: RefKnowledge


# ---------------------------------------------------------------------------- the translation

def desugar(expanded: ast.Spec, processes) -> Desugared:
    """The plain program of ``expanded`` (a spec with its inline calls expanded), after
    checking the extension's rules (extension.py).  ``processes``: the process instances the
    Model numbers (model.process_instances)."""
    active_counts: dict[str, int | None] = {}
    for unit in expanded.units:
        if isinstance(unit, ast.Proctype):
            active_counts[unit.name] = 0 if unit.active is not None else None
    first: dict[str, int] = {}
    for proc in processes:
        if proc.origin == "active":
            active_counts[proc.proctype] = (active_counts.get(proc.proctype) or 0) + 1
            first.setdefault(proc.proctype, proc.pid)
    scopes = check_extension(expanded, active_counts)
    referred = referred_proctypes(expanded)
    sorts = {name: ProctypeRefs(name, first[name], active_counts[name] or 0) for name in sorted(referred)}
    return _Desugarer(expanded, scopes, sorts).run()


class _Desugarer:
    def __init__(self, spec: ast.Spec, scopes: Scopes, sorts: dict[str, ProctypeRefs]) -> None:
        self.spec = spec
        self.scopes = scopes
        self.sorts = sorts
        self.proctype: str | None = None
        self.in_d_step = False
        self.public_names = self._public_names()
        self.places: list[RefPlace] = []

    # ------------------------------------------------------------------ names
    def _public_names(self) -> dict[tuple[str, str], str]:
        """The global name of each public variable: its own, unless that is taken."""
        taken: set[str] = set(self.scopes.globals) | set(self.scopes.typedefs) \
            | set(self.scopes.proctypes) | set(self.scopes.mtypes)
        owners: dict[str, list[str]] = {}
        for proctype, table in self.scopes.locals.items():
            for symbol in table.values():
                if symbol.public:
                    owners.setdefault(symbol.name, []).append(proctype)
                else:
                    taken.add(symbol.name)
        for unit in self.spec.units:
            if isinstance(unit, ast.Inline):
                taken.add(unit.name)
        names: dict[tuple[str, str], str] = {}
        for name, procs in sorted(owners.items()):
            for proctype in procs:
                chosen = name
                if chosen in taken or len(procs) > 1:
                    chosen = f"{proctype}_{name}"
                    suffix = 1
                    while chosen in taken:
                        chosen = f"{proctype}_{name}_{suffix}"
                        suffix += 1
                taken.add(chosen)
                names[(proctype, name)] = chosen
        return names

    def lid(self, pos) -> ast.BinOp:
        assert self.proctype in self.sorts   # extension.py: _lid only where P is referred
        return ast.BinOp(op="-", left=ast.VarRef(name="_pid", pos=pos),
                         right=ast.Const(value=self.sorts[self.proctype].first_pid, pos=pos), pos=pos)

    # ------------------------------------------------------------------ units
    def run(self) -> Desugared:
        units: list = []
        publics: list[ast.Decl] = []
        public_arrays: list[PublicArray] = []
        for proctype, sort in self.sorts.items():
            for symbol in self.scopes.publics(proctype):
                publics.append(self.public_global(symbol, sort, public_arrays))
        inserted = False
        for unit in self.spec.units:
            if not inserted and isinstance(unit, (ast.Proctype, ast.Init, ast.Never, ast.Trace, ast.Ltl)):
                units.extend(publics)
                inserted = True
            if isinstance(unit, ast.Inline):
                continue   # every call is expanded
            units.append(self.unit(unit))
        if not inserted:
            units.extend(publics)
        knowledge = RefKnowledge(UNDEF_REF, dict(self.sorts), public_arrays, self.places)
        return Desugared(ast.replace(self.spec, units=units), knowledge)

    def public_global(self, symbol: Symbol, sort: ProctypeRefs, arrays: list[PublicArray]) -> ast.Decl:
        name = self.public_names[(sort.proctype, symbol.name)]
        var = symbol.var
        init = var.init
        is_chan = isinstance(init, ast.ChanInit)
        if isinstance(init, ast.ChanInit):
            init = self.chan_init(init, name, None)
        elif init is not None:
            if not isinstance(init, (ast.Const, ast.UndefRef)) and not (
                    isinstance(init, ast.VarRef) and init.name in self.scopes.mtypes):
                raise ExtensionError(f"the initialiser of public '{symbol.name}' is not a constant: "
                                     "it becomes the initialiser of a global array", init.pos or var.pos,
                                     RULE_PUBLIC, hint="initialise it with a constant, or assign it "
                                                       "in the proctype's body")
            init = self.expr(init)
        elif symbol.ref_to is not None:
            init = ast.Const(value=UNDEF_REF, pos=var.pos)
        if symbol.ref_to is not None:
            self.places.append(RefPlace("public", symbol.ref_to, name, sort.proctype, sort.count, pos=var.pos))
        arrays.append(PublicArray(sort.proctype, name, symbol.name, is_chan))
        new_var = ast.replace(var, name=name, size=ast.Const(value=sort.count, pos=var.pos), init=init)
        return ast.replace(symbol.decl, visibility=None, type=self.type(symbol.decl.type), vars=[new_var])

    def unit(self, unit):
        if isinstance(unit, ast.TypeDef):
            fields = [self.decl(d, "field", unit.name) for d in unit.fields]
            return ast.replace(unit, fields=fields)
        if isinstance(unit, ast.Decl):
            self.proctype = None
            return self.decl(unit, "global", None)
        if isinstance(unit, ast.Proctype):
            self.proctype = unit.name
            params = [self.decl(d, "param", unit.name) for d in unit.params]
            return ast.replace(unit, params=params, body=self.sequence(unit.body),
                               priority=self.expr(unit.priority), provided=self.expr(unit.provided))
        if isinstance(unit, ast.Init):
            self.proctype = INIT
            return ast.replace(unit, body=self.sequence(unit.body))
        if isinstance(unit, (ast.Never, ast.Trace)):
            self.proctype = None
            return ast.replace(unit, body=self.sequence(unit.body))
        if isinstance(unit, ast.Ltl):
            self.proctype = None
            return ast.replace(unit, formula=self.expr(unit.formula)) if unit.formula is not None else unit
        return unit

    def type(self, type_):
        if isinstance(type_, ast.RefType):
            return ast.TypeName(name=_BYTE, pos=type_.pos)
        return type_

    def decl(self, decl: ast.Decl, kind: str, owner: str | None) -> ast.Decl:
        """A declaration other than a public one: refs become bytes that start undefined."""
        ref_to = decl.type.proctype if isinstance(decl.type, ast.RefType) else None
        new_vars = []
        for var in decl.vars:
            init = var.init
            if isinstance(init, ast.ChanInit):
                init = self.chan_init(init, var.name, owner if kind in ("local", "param") else None)
            elif init is not None:
                init = self.expr(init)
            elif ref_to is not None and kind != "param":
                init = ast.Const(value=UNDEF_REF, pos=var.pos)
            if ref_to is not None:
                length = _constant(var.size)
                self.places.append(RefPlace(kind, ref_to, var.name, owner, length, pos=var.pos))
            new_vars.append(ast.replace(var, init=init, size=self.expr(var.size), bits=self.expr(var.bits)))
        return ast.replace(decl, type=self.type(decl.type), vars=new_vars)

    def chan_init(self, init: ast.ChanInit, channel: str, owner: str | None) -> ast.ChanInit:
        for index, field_type in enumerate(init.fields):
            if isinstance(field_type, ast.RefType):
                self.places.append(RefPlace("message", field_type.proctype, channel, owner,
                                            field_index=index, pos=field_type.pos))
        return ast.replace(init, fields=[self.type(f) for f in init.fields])

    # ------------------------------------------------------------------ statements
    def sequence(self, seq: ast.Sequence) -> ast.Sequence:
        steps = []
        for step in seq.steps:
            steps.extend(self.step(step))
        return ast.replace(seq, steps=steps)

    def step(self, step) -> list:
        """The steps that replace ``step`` (a public declaration disappears; a local ref
        declaration initialised by anyRef becomes a declaration and a choice)."""
        if isinstance(step, ast.Decl):
            if step.visibility == "public":
                return []   # now a global array (run)
            if any(isinstance(n, ast.AnyRef) for v in step.vars if v.init is not None for n in _walk(v.init)):
                # `ref P r = anyRef(P)`: the declaration, then the choice, as one more step.
                plain = ast.replace(step, vars=[ast.replace(v, init=None) for v in step.vars])
                # (anyRef initialises a ref, with an expression.  The cast checks nothing: a
                # channel initialiser with an anyRef in its capacity comes through as before.)
                assigns = [ast.Assign(target=ast.VarRef(name=v.name, pos=v.pos),
                                      value=cast(ast.Expr, v.init), pos=v.pos)
                           for v in step.vars if v.init is not None]
                return [self.decl(plain, "local", self.proctype)] + [s for a in assigns for s in self.step(a)]
            return [self.decl(step, "local", self.proctype)]
        return [self.stmt(step)]

    def stmt(self, node):
        if isinstance(node, ast.Labeled):
            return ast.replace(node, stmt=self.stmt(node.stmt))
        if isinstance(node, ast.Unless):
            return ast.replace(node, stmt=self.stmt(node.stmt), escape=self.stmt(node.escape))
        if isinstance(node, (ast.If, ast.Do)):
            return ast.replace(node, options=[self.sequence(o) for o in node.options])
        if isinstance(node, ast.DStep):
            outer, self.in_d_step = self.in_d_step, True
            try:
                return ast.replace(node, body=self.sequence(node.body))
            finally:
                self.in_d_step = outer
        if isinstance(node, (ast.Atomic, ast.Block)):
            return ast.replace(node, body=self.sequence(node.body))
        if isinstance(node, (ast.ForRange, ast.ForIn)):
            header = [node.var, node.lo, node.hi] if isinstance(node, ast.ForRange) else [node.var, node.array]
            self.no_any_ref(header, node)
            changes = {name: self.expr(getattr(node, name)) for name in node.field_names if name != "body"}
            return ast.replace(node, body=self.sequence(node.body), **changes)
        choices = [n for n in _walk(node) if isinstance(n, ast.AnyRef)]
        if not choices:
            return self.simple(node)
        if self.in_d_step:
            # spin resolves the choices of an `if` inside d_step deterministically (the first
            # executable option): the N transitions of anyRef would be one.
            raise ExtensionError("anyRef inside d_step, where spin takes no nondeterministic choice",
                                 choices[0].pos, RULE_ASSIGN,
                                 hint="choose the ref before the d_step, or use atomic")
        counts = [self.sorts[c.proctype].count for c in choices]
        total = 1
        for count in counts:
            total *= count
        if total > _MOST_CHOICES:
            raise ExtensionError(f"this statement makes {total} choices of anyRef", node.pos, RULE_ASSIGN,
                                 hint="split it into statements with one anyRef each")
        options = []
        for values in itertools.product(*(range(c) for c in counts)):
            chosen = {id(c): v for c, v in zip(choices, values)}
            options.append(ast.Sequence(steps=[self.simple(node, chosen)], pos=node.pos))
        return ast.If(options=options, pos=node.pos)

    def no_any_ref(self, nodes, where) -> None:
        for node in nodes:
            for n in _walk(node):
                if isinstance(n, ast.AnyRef):
                    raise ExtensionError("anyRef in the header of a loop", n.pos, RULE_ASSIGN,
                                         hint="choose the ref in a statement before the loop")

    def simple(self, node, chosen: dict[int, int] | None = None):
        """A simple statement with its expressions desugared (each anyRef by its ``chosen``
        value)."""
        return self.expr(node, chosen or {})

    # ------------------------------------------------------------------ expressions
    def expr(self, e, chosen: dict[int, int] | None = None):
        """``e`` (an expression, or a simple statement's fields) desugared."""
        if e is None or not isinstance(e, ast.Node):
            return e
        chosen = chosen if chosen is not None else {}
        if isinstance(e, ast.Lid):
            return self.lid(e.pos)
        if isinstance(e, ast.UndefRef):
            return ast.Const(value=UNDEF_REF, pos=e.pos)
        if isinstance(e, ast.AnyRef):
            if id(e) not in chosen:
                raise ExtensionError("anyRef here cannot become a choice between statements", e.pos,
                                     RULE_ASSIGN, hint="use anyRef in a statement of a proctype or init")
            return ast.Const(value=chosen[id(e)], pos=e.pos)
        if isinstance(e, ast.PublicAccess):
            name = self.public_names[(e.proctype, e.var.name)]
            return ast.VarRef(name=name, index=self.expr(e.ref, chosen),
                              field=self.fields(e.var.field, chosen), pos=e.pos)
        if isinstance(e, ast.VarRef):
            field_ = self.fields(e.field, chosen)
            index = self.expr(e.index, chosen)
            symbol = self.scopes.lookup(e.name, self.proctype) if self.proctype is not None else None
            if symbol is not None and symbol.public and symbol.owner is not None:
                return ast.VarRef(name=self.public_names[(symbol.owner, e.name)], index=self.lid(e.pos),
                                  field=field_, pos=e.pos)
            if field_ is e.field and index is e.index:
                return e
            return ast.replace(e, index=index, field=field_)
        return ast.map_children(e, lambda child: self.expr(child, chosen))


    def fields(self, chain: ast.VarRef | None, chosen: dict[int, int]) -> ast.VarRef | None:
        """A chain of typedef fields (``.f[i].g``): the names are the typedef's, only the
        indices are expressions of the program."""
        if chain is None:
            return None
        index, rest = self.expr(chain.index, chosen), self.fields(chain.field, chosen)
        if index is chain.index and rest is chain.field:
            return chain
        return ast.replace(chain, index=index, field=rest)


def _where(place: RefPlace) -> str:
    array = f"[{place.length}]" if place.length is not None and place.kind != "public" else ""
    if place.kind == "global":
        return f"global {place.name}{array}"
    if place.kind in ("local", "param"):
        owner = "init" if place.owner == INIT else place.owner
        return f"{place.kind} {place.name}{array} of {owner}"
    if place.kind == "public":
        return f"public {place.name} of {place.owner} (global {place.name}[{place.length}])"
    if place.kind == "field":
        return f"field {place.name}{array} of typedef {place.owner}"
    local = f" (local to {place.owner})" if place.owner is not None else ""
    return f"message field {place.field_index} of channel {place.name}{local}"


def _walk(node):
    return node.walk() if isinstance(node, ast.Node) else iter(())


def _constant(expr) -> int | None:
    return constant_value(expr) if expr is not None else None
