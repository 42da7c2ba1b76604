"""The rules of the ref/public extension (Derepas and Gastin [DG01], section 2.3 and Fig. 2;
references: docs/references.md).

A ``ref P`` holds the position of an instance of proctype P among P's instances, or no instance
(``_undef_ref``).  Permuting P's instances renames every ref to P, so a program may look at a
ref only in ways that renaming cannot change ([DG01], Lemma 1):

* a ref of P is assigned, initialised, sent, received and passed only from a ref of P, ``_lid``
  (inside P), ``_undef_ref`` or ``anyRef(P)``;
* it is compared only with ``==`` and ``!=`` against the same;
* it takes part in no arithmetic, ordering or truth test, indexes no array, and never flows
  into a variable (or message field, or parameter) that is not a ref;
* the public variables of P are reached as ``P[r].x`` through a ref ``r`` of P;
* the processes of such proctypes name themselves with ``_lid``, never with ``_pid``, and are
  all ``active [N]`` (a ``run`` would give them pids the desugaring cannot know).

``check_extension`` checks these on the AST with inline calls expanded, and raises an
``ExtensionError`` at the first place that breaks one: its position, the rule, and what to do.
``Scopes`` (what each name is: ref, public, channel with which fields) is shared with
desugar.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ModelError, SourcePos
from . import ast

UNDEF_REF = 255  # the value of _undef_ref in the desugared program (desugar.py)

# The rules, as the messages name them.
RULE_ASSIGN = ("a ref of P is assigned, initialised, sent, received and passed only from a ref "
               "of P, _lid (inside P), _undef_ref or anyRef(P)")
RULE_COMPARE = ("a ref is compared only with == or != against a ref of the same proctype, "
                "_lid (inside it) or _undef_ref")
RULE_OPAQUE = ("a ref takes part in no arithmetic, ordering or truth test, and flows into no "
               "variable, message field or parameter that is not a ref")
RULE_INDEX = "a ref indexes no array (a public variable of P is reached as P[r].x)"
RULE_PUBLIC = ("a public variable of P is written x inside P, and P[r].x through a ref r of P "
               "elsewhere")
RULE_PID = ("the processes of a proctype that holds refs, has public variables or is referred "
            "to by refs name themselves with _lid, never with _pid")
RULE_INSTANCES = ("the processes of a proctype that is referred to by refs, has public "
                  "variables or uses _lid are all `active [N]`, with N < 255")

_ORDERING = frozenset({"<", "<=", ">", ">="})
_PREDEFINED = frozenset({"_nr_pr", "_last", "np_", "_", "_priority", "true", "false", "else",
                         "timeout"})


class ExtensionError(ModelError):
    """A program that breaks a rule of the ref/public extension."""

    def __init__(self, message: str, pos: SourcePos | None, rule: str, hint: str | None = None):
        super().__init__(f"{message} (rule: {rule})", pos, hint=hint)
        self.rule = rule


# ---------------------------------------------------------------------------- what names are

@dataclass(frozen=True)
class Symbol:
    """A declared variable, parameter or typedef field, as the rules see it."""

    name: str
    type: ast.TypeName | ast.RefType
    array: bool
    public: bool
    owner: str | None          # its proctype (":init:" for init), None for a global or a field
    chan_fields: list | None   # the message fields of a channel it is initialised with
    is_param: bool
    decl: ast.Decl
    var: ast.VarDecl

    @property
    def ref_to(self) -> str | None:
        return self.type.proctype if isinstance(self.type, ast.RefType) else None


@dataclass
class Scopes:
    """The declarations of a program that uses the extension (inline calls expanded)."""

    globals: dict[str, Symbol] = field(default_factory=dict)
    locals: dict[str, dict[str, Symbol]] = field(default_factory=dict)   # proctype -> name -> symbol
    typedefs: dict[str, dict[str, Symbol]] = field(default_factory=dict)
    proctypes: dict[str, ast.Proctype] = field(default_factory=dict)
    mtypes: frozenset[str] = frozenset()

    def lookup(self, name: str, proctype: str | None) -> Symbol | None:
        if proctype is not None and name in self.locals.get(proctype, {}):
            return self.locals[proctype][name]
        return self.globals.get(name)

    def public(self, proctype: str, name: str) -> Symbol | None:
        symbol = self.locals.get(proctype, {}).get(name)
        return symbol if symbol is not None and symbol.public else None

    def publics(self, proctype: str) -> list[Symbol]:
        return [s for s in self.locals.get(proctype, {}).values() if s.public]


INIT = ":init:"


def collect_scopes(spec: ast.Spec) -> Scopes:
    scopes = Scopes()
    mtypes: set[str] = set()
    for unit in spec.units:
        if isinstance(unit, ast.MtypeDecl):
            mtypes.update(unit.names)
        elif isinstance(unit, ast.TypeDef):
            scopes.typedefs[unit.name] = {v.name: _symbol(d, v, None) for d in unit.fields for v in d.vars}
        elif isinstance(unit, ast.Decl):
            for var in unit.vars:
                scopes.globals[var.name] = _symbol(unit, var, None)
        elif isinstance(unit, ast.Proctype):
            scopes.proctypes[unit.name] = unit
            table = scopes.locals.setdefault(unit.name, {})
            for decl in unit.params:
                for var in decl.vars:
                    table[var.name] = _symbol(decl, var, unit.name, is_param=True)
            for node in unit.body.walk():
                if isinstance(node, ast.Decl):
                    for var in node.vars:
                        table[var.name] = _symbol(node, var, unit.name)
        elif isinstance(unit, ast.Init):
            table = scopes.locals.setdefault(INIT, {})
            for node in unit.body.walk():
                if isinstance(node, ast.Decl):
                    for var in node.vars:
                        table[var.name] = _symbol(node, var, INIT)
    scopes.mtypes = frozenset(mtypes)
    return scopes


def _symbol(decl: ast.Decl, var: ast.VarDecl, owner: str | None, is_param: bool = False) -> Symbol:
    fields = var.init.fields if isinstance(var.init, ast.ChanInit) else None
    return Symbol(var.name, decl.type, var.size is not None, decl.visibility == "public", owner,
                  fields, is_param, decl, var)


def uses_extension(spec: ast.Spec) -> bool:
    """Whether ``spec`` uses any construct of the extension."""
    for node in spec.walk():
        if isinstance(node, (ast.RefType, ast.PublicAccess, ast.AnyRef, ast.Lid, ast.UndefRef)):
            return True
        if isinstance(node, ast.Decl) and node.visibility == "public":
            return True
    return False


def referred_proctypes(spec: ast.Spec) -> set[str]:
    """The proctypes whose instances the program refers to: by ``ref P``, ``anyRef(P)``,
    ``P[r].x``, or by having public variables or using ``_lid`` (their instances are numbered
    from 0, and desugar.py needs their pids)."""
    referred = set()
    for unit in spec.units:
        for node in unit.walk():
            if isinstance(node, (ast.RefType, ast.AnyRef, ast.PublicAccess)):
                referred.add(node.proctype)
        if isinstance(unit, ast.Proctype) and any(
                isinstance(n, ast.Lid) or (isinstance(n, ast.Decl) and n.visibility == "public")
                for n in unit.walk()):
            referred.add(unit.name)
    return referred


# ---------------------------------------------------------------------------- the kinds of values

@dataclass(frozen=True)
class _Ref:
    proctype: str


class _Undef:
    """The value of ``_undef_ref``."""


class _Plain:
    """A value that is not a ref."""


UNDEF, PLAIN = _Undef(), _Plain()
_Kind = _Ref | _Undef | _Plain


def _refish(kind: _Kind) -> bool:
    return kind is UNDEF or isinstance(kind, _Ref)


def _describe(kind: _Kind) -> str:
    if isinstance(kind, _Ref):
        return f"a ref of {kind.proctype}"
    return "_undef_ref" if kind is UNDEF else "a value that is not a ref"


def _text(node) -> str:
    from .printer import print_expr, print_stmt

    try:
        return print_expr(node)
    except TypeError:
        return print_stmt(node).strip()


# ---------------------------------------------------------------------------- the checker

def check_extension(spec: ast.Spec, active_counts: dict[str, int | None]) -> Scopes:
    """Check the rules on ``spec`` (inline calls expanded); ``active_counts``: each
    proctype's ``active [N]`` (None: not active).  Returns the scopes for desugar.py."""
    scopes = collect_scopes(spec)
    checker = _Checker(scopes, referred_proctypes(spec))
    checker.check_declarations(spec, active_counts)
    for unit in spec.units:
        if isinstance(unit, ast.Proctype):
            checker.proctype = unit.name
            for decl in unit.params:
                checker.decl(decl)
            checker.stmt(unit.body)
            for extra in (unit.active, unit.priority, unit.provided):
                if extra is not None:
                    checker.expr(extra)
        elif isinstance(unit, ast.Init):
            checker.proctype = INIT
            checker.stmt(unit.body)
        elif isinstance(unit, (ast.Never, ast.Trace)):
            checker.proctype = None
            checker.stmt(unit.body)
        elif isinstance(unit, ast.Ltl) and unit.formula is not None:
            checker.proctype = None
            for atom in _ltl_atoms(unit.formula):
                checker.truth(atom)
        elif isinstance(unit, ast.Decl):
            checker.proctype = None
            checker.decl(unit)
    return scopes


def _ltl_atoms(formula):
    if isinstance(formula, ast.LtlUnary):
        yield from _ltl_atoms(formula.arg)
    elif isinstance(formula, ast.LtlBinary):
        yield from _ltl_atoms(formula.left)
        yield from _ltl_atoms(formula.right)
    else:
        yield formula


class _Checker:
    def __init__(self, scopes: Scopes, referred: set[str]) -> None:
        self.scopes = scopes
        self.referred = referred
        self.proctype: str | None = None
        # The proctypes whose processes must not use _pid (RULE_PID).
        self.no_pid = set(referred) | {
            name for name, table in scopes.locals.items()
            if any(s.ref_to is not None for s in table.values())}
        publics: dict[str, list[str]] = {}
        for name, table in scopes.locals.items():
            for symbol in table.values():
                if symbol.public:
                    publics.setdefault(symbol.name, []).append(name)
        self.public_owners = publics
        # Channels with ref fields exist: then a channel held in a variable (whose message
        # fields are not known where it is used) could carry refs past the rules.
        self.ref_channels = any(
            s.chan_fields is not None and any(isinstance(f, ast.RefType) for f in s.chan_fields)
            for table in (scopes.globals, *scopes.locals.values()) for s in table.values())

    # ------------------------------------------------------------------ declarations
    def check_declarations(self, spec: ast.Spec, active_counts: dict[str, int | None]) -> None:
        for name in sorted(self.referred):
            if name not in self.scopes.proctypes:
                raise ExtensionError(f"'{name}' is not a proctype", None, RULE_INSTANCES)
            count = active_counts.get(name)
            proctype = self.scopes.proctypes[name]
            if count is None:
                raise ExtensionError(
                    f"proctype {name} is referred to by refs (or has public variables or uses "
                    "_lid) but is not `active [N]`", proctype.pos, RULE_INSTANCES,
                    hint=f"declare it `active [N] proctype {name}(...)`")
            if count == 0:
                raise ExtensionError(f"proctype {name} is referred to by refs but has no instances",
                                     proctype.pos, RULE_INSTANCES, hint="declare `active [N]` with N >= 1")
            if count >= UNDEF_REF:
                raise ExtensionError(
                    f"proctype {name} has {count} instances; refs are bytes and {UNDEF_REF} is "
                    "_undef_ref", proctype.pos, RULE_INSTANCES,
                    hint=f"at most {UNDEF_REF - 1} instances")
        for unit in spec.units:
            if isinstance(unit, ast.TypeDef):
                for decl in unit.fields:
                    if decl.visibility == "public":
                        raise ExtensionError("a typedef field cannot be public", decl.pos, RULE_PUBLIC,
                                             hint="declare a public variable of the typedef's type "
                                                  "in the proctype instead")
            elif isinstance(unit, ast.Decl) and unit.visibility == "public":
                raise ExtensionError("a global variable cannot be public", unit.pos, RULE_PUBLIC,
                                     hint="declare it `public` inside the proctype that owns it")
            elif isinstance(unit, ast.Init):
                for node in unit.body.walk():
                    if isinstance(node, ast.Decl) and node.visibility == "public":
                        raise ExtensionError("init cannot have public variables", node.pos, RULE_PUBLIC)
            elif isinstance(unit, ast.Proctype):
                for decl in unit.params:
                    if decl.visibility == "public":
                        raise ExtensionError("a parameter cannot be public", decl.pos, RULE_PUBLIC)
                    if isinstance(decl.type, ast.RefType) and unit.active is not None:
                        raise ExtensionError(
                            f"a ref parameter of the active proctype {unit.name} starts as 0, "
                            "which is an instance, not _undef_ref", decl.pos, RULE_ASSIGN,
                            hint="declare it as a local `ref P x` (it starts as _undef_ref)")
                for node in unit.body.walk():
                    if isinstance(node, ast.Decl) and node.visibility == "public":
                        for var in node.vars:
                            if var.size is not None:
                                raise ExtensionError(
                                    f"public array '{var.name}': public arrays are not supported",
                                    var.pos or node.pos, RULE_PUBLIC,
                                    hint="use a public variable of a typedef that holds the array")
                            clash = self.scopes.globals.get(var.name)
                            if clash is not None:
                                raise ExtensionError(
                                    f"public variable '{var.name}' of {unit.name} has the name of a "
                                    f"global variable", var.pos or node.pos, RULE_PUBLIC,
                                    hint="rename one of them: the public variable becomes a global array")
        for symbol in self._every_symbol():
            if symbol.ref_to is not None and symbol.ref_to not in self.scopes.proctypes:
                raise ExtensionError(f"'{symbol.ref_to}' is not a proctype", symbol.decl.pos, RULE_ASSIGN)
            if (self.ref_channels and isinstance(symbol.type, ast.TypeName) and symbol.type.name == "chan"
                    and not isinstance(symbol.var.init, ast.ChanInit)):
                raise ExtensionError(
                    f"'{symbol.name}' holds a channel whose message fields are not declared "
                    "where it is used, in a model whose channels carry refs",
                    symbol.var.pos or symbol.decl.pos, RULE_ASSIGN,
                    hint="use the channels by their own names (global, local or public chan)")

    def _every_symbol(self):
        yield from self.scopes.globals.values()
        for table in (*self.scopes.locals.values(), *self.scopes.typedefs.values()):
            yield from table.values()

    def decl(self, decl: ast.Decl) -> None:
        for var in decl.vars:
            if var.size is not None:
                self.plain(var.size, "an array size")
            if var.init is None or isinstance(var.init, ast.ChanInit):
                continue
            target = _Ref(decl.type.proctype) if isinstance(decl.type, ast.RefType) else PLAIN
            self.flow(target, var.init, f"the initialiser of '{var.name}'", var.init)

    # ------------------------------------------------------------------ statements
    def stmt(self, node) -> None:
        if isinstance(node, ast.Sequence):
            for step in node.steps:
                self.stmt(step)
        elif isinstance(node, ast.Decl):
            self.decl(node)
        elif isinstance(node, ast.Labeled):
            self.stmt(node.stmt)
        elif isinstance(node, ast.Unless):
            self.stmt(node.stmt)
            self.stmt(node.escape)
        elif isinstance(node, (ast.If, ast.Do)):
            for option in node.options:
                self.stmt(option)
        elif isinstance(node, (ast.Atomic, ast.DStep, ast.Block)):
            self.stmt(node.body)
        elif isinstance(node, ast.Assign):
            self.flow(self.expr(node.target), node.value, f"'{_text(node)}'", node)
        elif isinstance(node, ast.IncDec):
            if _refish(self.expr(node.target)):
                raise ExtensionError(f"'{_text(node)}' does arithmetic on a ref", node.pos, RULE_OPAQUE)
        elif isinstance(node, (ast.Send, ast.Receive)):
            self.message(node)
        elif isinstance(node, (ast.ForRange, ast.Select)):
            self.plain(node.var, "a loop variable")
            self.plain(node.lo, "a bound")
            self.plain(node.hi, "a bound")
            if isinstance(node, ast.ForRange):
                self.stmt(node.body)
        elif isinstance(node, ast.ForIn):
            self.plain(node.var, "a loop variable (it takes the array's indices)")
            self.expr(node.array)
            self.stmt(node.body)
        elif isinstance(node, ast.Printf):
            for arg in node.args:
                self.expr(arg)   # printing looks at no state: a ref may be printed
        elif isinstance(node, ast.Printm):
            self.plain(node.arg, "printm's argument")
        elif isinstance(node, ast.Assert):
            self.truth(node.expr)
        elif isinstance(node, ast.ExprStmt):
            self.truth(node.expr)
        elif isinstance(node, ast.XrXs):
            for var in node.vars:
                self.expr(var)
        elif isinstance(node, (ast.Break, ast.Goto, ast.Else, ast.Skip, ast.CCode, ast.InlineCall)):
            pass
        else:
            raise TypeError(f"extension check: unknown statement {type(node).__name__}")

    def message(self, node: ast.Send | ast.Receive) -> None:
        """A send or receive: each argument against its message field."""
        self.expr(node.chan)
        fields = self.chan_fields(node.chan)
        if (isinstance(node, ast.Send) and node.sorted and fields is not None
                and any(isinstance(f, ast.RefType) for f in fields)):
            raise ExtensionError(f"'{_text(node)}' is a sorted send (!!) on a channel with ref fields: "
                                 "it orders the messages by the refs' values", node.pos, RULE_OPAQUE,
                                 hint="use ! (a FIFO send)")
        for i, arg in enumerate(node.args):
            field_type = fields[i] if fields is not None and i < len(fields) else None
            target = _Ref(field_type.proctype) if isinstance(field_type, ast.RefType) else PLAIN
            where = f"field {i + 1} of '{_text(node)}'"
            if isinstance(node, ast.Send):
                if fields is None and _refish(self.expr(arg)):
                    raise ExtensionError(
                        f"'{_text(node)}' sends a ref on a channel whose message fields are not "
                        "known here", arg.pos or node.pos, RULE_ASSIGN,
                        hint="send refs only on channels declared with a `ref P` field")
                self.flow(target, arg, where, node)
                continue
            # a receive: a variable is assigned the field; a constant or eval() is matched
            if isinstance(arg, ast.Const):
                if isinstance(target, _Ref):
                    raise ExtensionError(f"{where} matches a ref field against the constant {arg.value}",
                                         arg.pos or node.pos, RULE_COMPARE)
            elif isinstance(arg, ast.Eval):
                self.compare("==", target, self.expr(arg.expr), arg, node)
            elif isinstance(arg, ast.VarRef) and arg.name == "_":
                pass
            else:
                got = self.expr(arg)
                if isinstance(target, _Ref) and got != target:
                    raise ExtensionError(
                        f"{where} receives {_describe(target)} into {_describe(got)} "
                        f"('{_text(arg)}')", arg.pos or node.pos,
                        RULE_OPAQUE if got is PLAIN else RULE_ASSIGN,
                        hint=f"receive it into a `ref {target.proctype}` variable")
                if target is PLAIN and _refish(got):
                    raise ExtensionError(
                        f"{where} receives a field that is not a ref into the ref '{_text(arg)}'",
                        arg.pos or node.pos, RULE_ASSIGN,
                        hint="declare the message field as `ref P`")

    def chan_fields(self, chan) -> list | None:
        """The message fields of the channel ``chan`` names, if its declaration gives them."""
        if isinstance(chan, ast.PublicAccess):
            symbol = self.scopes.public(chan.proctype, chan.var.name)
        elif isinstance(chan, ast.VarRef):
            symbol = self.scopes.lookup(chan.name, self.proctype)
        else:
            return None
        return symbol.chan_fields if symbol is not None else None

    # ------------------------------------------------------------------ values
    def flow(self, target: _Kind, value, where: str, node) -> None:
        """``value`` is stored where ``target`` is expected (an assignment, an initialiser, a
        message field, a parameter)."""
        got = self.expr(value)
        pos = getattr(value, "pos", None) or node.pos
        if isinstance(target, _Ref):
            if got == target or got is UNDEF:
                return
            if isinstance(value, ast.Const):
                message = f"{where} gives the constant {value.value} to a ref of {target.proctype}"
            else:
                message = f"{where} gives {_describe(got)} to a ref of {target.proctype}"
            raise ExtensionError(message, pos, RULE_ASSIGN,
                                 hint=f"use a ref of {target.proctype}, _undef_ref, "
                                      f"anyRef({target.proctype})"
                                      + (" or _lid" if self.proctype == target.proctype else ""))
        if _refish(got):
            raise ExtensionError(f"{where} puts {_describe(got)} into a value that is not a ref",
                                 pos, RULE_OPAQUE, hint="declare the variable or field as `ref P`")

    def plain(self, node, what: str) -> None:
        if node is not None and _refish(self.expr(node)):
            raise ExtensionError(f"a ref used as {what} ('{_text(node)}')", node.pos, RULE_OPAQUE)

    def truth(self, node) -> None:
        if _refish(self.expr(node)):
            raise ExtensionError(f"a ref used as a truth value ('{_text(node)}')", node.pos, RULE_OPAQUE,
                                 hint="compare it: r != _undef_ref")

    def compare(self, op: str, left: _Kind, right: _Kind, node, stmt=None) -> None:
        if not (_refish(left) or _refish(right)):
            return
        pos = node.pos or (stmt.pos if stmt is not None else None)
        if op in _ORDERING:
            raise ExtensionError(f"'{_text(node)}' orders refs with {op}", pos, RULE_COMPARE,
                                 hint="refs are compared only with == and !=")
        if op not in ("==", "!="):
            raise ExtensionError(f"'{_text(node)}' applies {op} to a ref", pos, RULE_OPAQUE)
        if left is UNDEF or right is UNDEF or left == right:
            return
        if isinstance(left, _Ref) and isinstance(right, _Ref):
            raise ExtensionError(f"'{_text(node)}' compares a ref of {left.proctype} with a ref of "
                                 f"{right.proctype}", pos, RULE_COMPARE)
        ref = left if isinstance(left, _Ref) else right
        assert isinstance(ref, _Ref)   # one side is a ref, and the other is not one
        other = (node.right if isinstance(left, _Ref) else node.left) if isinstance(node, ast.BinOp) else None
        if isinstance(other, ast.Const):
            raise ExtensionError(f"'{_text(node)}' compares a ref of {ref.proctype} with the "
                                 f"constant {other.value}", pos, RULE_COMPARE)
        raise ExtensionError(f"'{_text(node)}' compares a ref of {ref.proctype} with a value that "
                             "is not a ref", pos, RULE_COMPARE)

    def expr(self, e) -> _Kind:
        """The kind of ``e``'s value, checking the rules inside it."""
        if isinstance(e, ast.Const):
            return PLAIN
        if isinstance(e, ast.VarRef):
            return self.variable(e, self.scopes.lookup(e.name, self.proctype), e.name)
        if isinstance(e, ast.PublicAccess):
            ref = self.expr(e.ref)
            if ref != _Ref(e.proctype):
                raise ExtensionError(f"'{_text(e)}' reaches {e.proctype}'s public variable through "
                                     f"{_describe(ref)}", e.ref.pos or e.pos, RULE_PUBLIC,
                                     hint=f"index {e.proctype} with a ref of {e.proctype}")
            symbol = self.scopes.public(e.proctype, e.var.name)
            if symbol is None:
                raise ExtensionError(f"{e.proctype} has no public variable '{e.var.name}'",
                                     e.var.pos or e.pos, RULE_PUBLIC,
                                     hint=f"declare it `public` in proctype {e.proctype}")
            return self.variable(e.var, symbol, e.var.name)
        if isinstance(e, ast.AnyRef):
            if e.proctype not in self.scopes.proctypes:
                raise ExtensionError(f"anyRef({e.proctype}): '{e.proctype}' is not a proctype",
                                     e.pos, RULE_ASSIGN)
            return _Ref(e.proctype)
        if isinstance(e, ast.Lid):
            if self.proctype is None or self.proctype == INIT:
                raise ExtensionError("_lid outside a proctype", e.pos, RULE_ASSIGN,
                                     hint="_lid is the instance number of the proctype it is used in")
            return _Ref(self.proctype)
        if isinstance(e, ast.UndefRef):
            return UNDEF
        if isinstance(e, ast.BinOp):
            left, right = self.expr(e.left), self.expr(e.right)
            if e.op in ("==", "!=") or e.op in _ORDERING:
                self.compare(e.op, left, right, e)
            elif _refish(left) or _refish(right):
                raise ExtensionError(f"'{_text(e)}' does arithmetic ({e.op}) on a ref", e.pos, RULE_OPAQUE)
            return PLAIN
        if isinstance(e, ast.UnOp):
            if _refish(self.expr(e.operand)):
                raise ExtensionError(f"'{_text(e)}' applies {e.op} to a ref", e.pos, RULE_OPAQUE)
            return PLAIN
        if isinstance(e, ast.CondExpr):
            self.truth(e.cond)
            then, other = self.expr(e.then), self.expr(e.other)
            if _refish(then) or _refish(other):
                kinds = {k for k in (then, other) if k is not UNDEF}
                if len(kinds) > 1 or PLAIN in kinds:
                    raise ExtensionError(f"'{_text(e)}' mixes {_describe(then)} and {_describe(other)}",
                                         e.pos, RULE_ASSIGN)
                return then if then is not UNDEF else other
            return PLAIN
        if isinstance(e, ast.ChanFn):
            self.expr(e.chan)
            return PLAIN
        if isinstance(e, ast.Builtin):
            for arg in e.args:
                self.plain(arg, f"the argument of {e.fn}")
            return PLAIN
        if isinstance(e, ast.Run):
            self.run(e)
            return PLAIN
        if isinstance(e, ast.Poll):
            self.expr(e.chan)
            fields = self.chan_fields(e.chan)
            for i, arg in enumerate(e.args):
                field_type = fields[i] if fields is not None and i < len(fields) else None
                target = _Ref(field_type.proctype) if isinstance(field_type, ast.RefType) else PLAIN
                value = arg.expr if isinstance(arg, ast.Eval) else arg
                if isinstance(value, ast.VarRef) and value.name == "_":
                    continue
                self.compare("==", target, self.expr(value), value, e)
                if target is PLAIN and _refish(self.expr(value)):
                    raise ExtensionError(f"'{_text(e)}' matches a field that is not a ref against a ref",
                                         value.pos or e.pos, RULE_COMPARE)
            return PLAIN
        if isinstance(e, (ast.RemoteLabel, ast.RemoteVar)):
            if e.index is not None:
                self.plain(e.index, "a pid")
            if isinstance(e, ast.RemoteVar) and self.scopes.public(e.proctype, e.var.name) is not None:
                raise ExtensionError(f"'{_text(e)}' reads a public variable as a remote reference",
                                     e.pos, RULE_PUBLIC,
                                     hint=f"reach it as {e.proctype}[r].{e.var.name} through a ref r")
            if isinstance(e, ast.RemoteVar):
                symbol = self.scopes.locals.get(e.proctype, {}).get(e.var.name)
                if symbol is not None and symbol.ref_to is not None:
                    return _Ref(symbol.ref_to)
            return PLAIN
        if isinstance(e, ast.CExpr):
            return PLAIN
        if isinstance(e, ast.Eval):
            return self.expr(e.expr)
        raise TypeError(f"extension check: unknown expression {type(e).__name__}")

    def variable(self, ref: ast.VarRef, symbol: Symbol | None, name: str) -> _Kind:
        """The kind of a use of a variable (its index and fields checked)."""
        if ref.index is not None:
            self.index(ref.index)
        if symbol is None:
            if name == "_pid":
                if self.proctype in self.no_pid:
                    raise ExtensionError(
                        f"_pid in proctype {self.proctype}", ref.pos, RULE_PID,
                        hint="use _lid, the instance's number among its proctype's instances")
                return PLAIN
            owners = self.public_owners.get(name)
            if owners and name not in _PREDEFINED and name not in self.scopes.mtypes:
                raise ExtensionError(
                    f"'{name}' is public in {', '.join(owners)}: outside it, it is reached "
                    f"through a ref", ref.pos, RULE_PUBLIC, hint=f"write {owners[0]}[r].{name}")
            return PLAIN   # an mtype name, a predefined variable, or one spin will refuse
        if isinstance(symbol.type, ast.TypeName) and symbol.type.name == "chan":
            return PLAIN
        if ref.field is not None:
            typedef = self.scopes.typedefs.get(symbol.type.name) \
                if isinstance(symbol.type, ast.TypeName) else None
            inner = typedef.get(ref.field.name) if typedef is not None else None
            return self.variable(ref.field, inner, ref.field.name) if inner is not None else PLAIN
        if symbol.ref_to is not None:
            return _Ref(symbol.ref_to)
        return PLAIN

    def index(self, index) -> None:
        kind = self.expr(index)
        if _refish(kind):
            raise ExtensionError(f"a ref indexes an array ('{_text(index)}')", index.pos, RULE_INDEX,
                                 hint="make the array's elements public variables of the proctype, "
                                      "reached as P[r].x")

    def run(self, e: ast.Run) -> None:
        if e.proctype in self.referred:
            raise ExtensionError(f"run {e.proctype}: its processes must all be `active [N]`",
                                 e.pos, RULE_INSTANCES,
                                 hint=f"declare `active [N] proctype {e.proctype}` instead of running it")
        proctype = self.scopes.proctypes.get(e.proctype)
        params = [(d, v) for d in proctype.params for v in d.vars] if proctype is not None else []
        for i, arg in enumerate(e.args):
            target: _Kind = PLAIN
            param_type = params[i][0].type if i < len(params) else None
            if isinstance(param_type, ast.RefType):
                target = _Ref(param_type.proctype)
            name = params[i][1].name if i < len(params) else str(i + 1)
            self.flow(target, arg, f"argument '{name}' of 'run {e.proctype}'", e)
