"""Proctype copies merged into one proctype: copies that differ only in their name and in
constants that act as ids are one family.

Generated and hand-written models often spell N interchangeable processes as N proctypes
``P_0``, ``P_1``, ... whose bodies are equal except at constants that name the copy (BEEM writes
every model this way: ``choosing[0] = 1`` in ``P_0``, ``choosing[1] = 1`` in ``P_1``).
Processes of different proctypes are never permuted, so such a model has a trivial group.  This
module rewrites such a family into ONE proctype whose differing constants become expressions of
``_pid``, each of which every instance evaluates to exactly the constant its own copy had:

* a constant that is ``pid + d`` in every copy (the same d) becomes ``(_pid + d)``;
* one that is ``(pid + e) % n`` in every copy, n the number of copies (a ring: the last copy's
  ``fork[0]``), becomes ``((_pid + e) % n)``;
* a constant directly in the arguments of a receive or a poll (where it is matched, not
  evaluated) is wrapped in ``eval(...)``.

The pids do not change: the copies of ``active`` proctypes must have consecutive pids (no other
``active`` proctype or ``init`` declared between them) and become one ``active [n]`` proctype
where the first was; the copies started by ``run`` in ``init`` keep their ``run`` statements, in
the same order, naming the merged proctype.  Each instance of the rewritten program therefore
executes what its copy executed, with the same pid, and the state graphs are isomorphic (they
differ only in pan's proctype numbers ``_t``); plain SPIN's state counts of the two programs are
equal (tests/promela/test_copies.py).  The symmetry analysis then decides, on the rewritten program,
whether the ids are used symmetrically: ``k <= j`` in bakery becomes an order comparison on a
pid, which validity refuses with its own reason.

A family is left alone, with a one-line reason at file:line (``Copies.refusals``, which the
symmetry analysis reports), when the rewrite cannot keep the program the same: a constant that
is no such function of the pid, or one where an expression is not allowed (an array size, a
channel capacity, the bounds of ``for``/``select``), a remote reference or a dynamic ``run``
naming a copy, copies started outside one atomic sequence of ``init`` (a process that ends
before the next ``run`` frees its pid, so the pids would depend on the path).

spin is given the rewritten program (``Model.spin_text``), as for the ref/public desugaring,
and verify leaves it beside the model as ``m.desugared.pml``, for the trails.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..errors import SourcePos
from . import ast

INIT = ":init:"


@dataclass(frozen=True)
class Family:
    """Proctypes merged into ``name``: ``members`` in pid order, the copy of pid ``pids[i]``
    being ``members[i]``."""

    name: str
    members: tuple[str, ...]
    pids: tuple[int, ...]
    rewritten: int          # how many constants became expressions of _pid
    pos: SourcePos | None = None

    def describe(self) -> str:
        where = f"{self.pos}: " if self.pos is not None else ""
        return (f"{where}proctypes {', '.join(self.members)} (pids {', '.join(map(str, self.pids))}) "
                f"merged into '{self.name}', {self.rewritten} constant(s) written as expressions of _pid")


@dataclass(frozen=True)
class Refusal:
    """Proctypes that are copies of one another up to constants, left alone, and why."""

    members: tuple[str, ...]
    reason: str
    pos: SourcePos | None = None

    def describe(self) -> str:
        where = f"{self.pos}: " if self.pos is not None else ""
        names = ", ".join(f"'{m}'" for m in self.members)
        return f"{where}proctypes {names} are copies up to constants but are not merged: {self.reason}"


@dataclass(frozen=True)
class Copies:
    """What the merging did: the families merged and those refused."""

    families: list[Family] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)


# Set TOPSPIN_NO_COPIES=1 to check the program as written (to compare, or to find a fault).
_DISABLE = "TOPSPIN_NO_COPIES"


def merge_copies(expanded: ast.Spec, processes, dynamic_runs: list) -> tuple[ast.Spec, Copies]:
    """``expanded`` (a plain spec, inline calls expanded) with every family of copies merged,
    and what was done.  ``processes``: the Model's process instances (model.process_instances);
    ``dynamic_runs``: the runs whose pids cannot be told before the search."""
    copies = Copies()
    if os.environ.get(_DISABLE):
        return expanded, copies
    proctypes = [u for u in expanded.units if isinstance(u, ast.Proctype)]
    shapes: dict[object, list[ast.Proctype]] = {}
    for proctype in proctypes:
        shapes.setdefault(_shape_of_proctype(proctype), []).append(proctype)
    candidates = [group for group in shapes.values() if len(group) > 1]
    if not candidates:
        return expanded, copies
    taken = _names_in_use(expanded)
    spec = expanded
    for group in candidates:
        names = tuple(p.name for p in group)
        if not any(p.proctype in names for p in processes) and not any(
                r.proctype in names for r in dynamic_runs):
            continue   # never started: nothing to merge, nothing to say
        reason, pids = _instances(spec, group, processes, dynamic_runs)
        if reason is None:
            reason = _referred_remotely(spec, set(names))
        if reason is not None:
            copies.refusals.append(Refusal(names, reason[1], reason[0] or group[0].pos))
            continue
        order = sorted(range(len(group)), key=lambda i: pids[i])
        members = [group[i] for i in order]
        member_pids = [pids[i] for i in order]
        merger = _Merger(member_pids)
        body = merger.merge([m.body for m in members], forbidden=None, receive_arg=False)
        params = merger.merge([m.params for m in members], forbidden="a parameter's declaration",
                              receive_arg=False)
        if merger.refusal is not None:
            copies.refusals.append(Refusal(names, merger.refusal[1], merger.refusal[0] or group[0].pos))
            continue
        name = _family_name([m.name for m in members], taken)
        taken.add(name)
        spec = _rewrite(spec, members, name, body, params)
        copies.families.append(Family(name, tuple(m.name for m in members), tuple(member_pids),
                                      merger.rewritten, members[0].pos))
    return spec, copies


# ---------------------------------------------------------------------------- which are copies

def _shape(value) -> object:
    """A hashable picture of ``value`` with every constant's value blanked out (positions are
    not part of it): two proctypes with the same shape differ at most in constants."""
    if isinstance(value, ast.Const):
        return ("Const",)
    if isinstance(value, ast.Node):
        return (type(value).__name__, *(_shape(getattr(value, name)) for name in value.field_names))
    if isinstance(value, list):
        return tuple(_shape(v) for v in value)
    return value


def _shape_of_proctype(proctype: ast.Proctype) -> object:
    # `active` counts and priorities are compared as written, constants included.
    return (_shape(proctype.params), _shape(proctype.body), _exact(proctype.active),
            _exact(proctype.priority), _exact(proctype.provided), proctype.deterministic)


def _exact(value) -> object:
    if isinstance(value, ast.Const):
        return ("Const", value.value)
    if isinstance(value, ast.Node):
        return (type(value).__name__, *(_exact(getattr(value, name)) for name in value.field_names))
    if isinstance(value, list):
        return tuple(_exact(v) for v in value)
    return value


# ---------------------------------------------------------------------------- pids

def _instances(spec: ast.Spec, group: list[ast.Proctype], processes, dynamic_runs
               ) -> tuple[tuple[SourcePos | None, str] | None, list[int]]:
    """The pid of each copy's one process, or why the copies' pids cannot be kept."""
    names = {p.name for p in group}
    dynamic = [r for r in dynamic_runs if r.proctype in names]
    if dynamic:
        return (dynamic[0].pos, f"'{dynamic[0].proctype}' is started by a run whose pid is not known "
                                "before the search"), []
    pids = []
    for proctype in group:
        instances = [p for p in processes if p.proctype == proctype.name]
        if len(instances) != 1:
            return (proctype.pos, f"'{proctype.name}' has {len(instances)} processes, not one"), []
        pids.append(instances[0].pid)
    origins = {p.origin for p in processes if p.proctype in names}
    if origins == {"active"}:
        ordered = sorted(pids)
        if ordered != list(range(ordered[0], ordered[0] + len(ordered))):
            return (group[0].pos, "other processes are declared between the active copies, so one "
                                  "`active [n]` proctype would renumber them"), []
        return None, pids
    if origins != {"run"}:
        return (group[0].pos, "some copies are active and some started by run"), []
    reason = _runs_in_one_atomic(spec, names, processes)
    return (reason, []) if reason is not None else (None, pids)


def _runs_in_one_atomic(spec: ast.Spec, names: set[str], processes) -> tuple[SourcePos | None, str] | None:
    """Why the pids of the copies started by ``run`` could depend on the path, or None.

    pan frees the pid of a process that ends when it is the last one, and a later ``run``
    takes it.  The copies' pids are fixed when init's first run and all the runs up to the
    last copy's execute in one atomic sequence with nothing that can block between them (runs
    and assignments only), and no active process has a pid above init's (one that ended
    before the sequence would free its pid)."""
    init_pid = next((p.pid for p in processes if p.origin == "init"), None)
    if init_pid is None or any(p.origin == "active" and p.pid > init_pid for p in processes):
        return None, "an active process declared after init could end and free its pid before the runs"
    init = next(u for u in spec.units if isinstance(u, ast.Init))
    runs = [n for n in init.body.walk() if isinstance(n, ast.Run)]
    last = max(i for i, r in enumerate(runs) if r.proctype in names)
    for sequence in init.body.walk():
        if not isinstance(sequence, ast.Atomic):
            continue
        steps = sequence.body.steps
        inside = [n for n in sequence.body.walk() if isinstance(n, ast.Run)]
        if not inside or inside[0] is not runs[0] or not any(r is runs[last] for r in inside):
            continue
        for step in steps:
            run = _run_statement(step)
            if run is runs[last]:
                return None
            if run is None and not isinstance(step, ast.Assign):
                break
        return step.pos or sequence.pos, ("the copies' runs are not in one atomic sequence of runs "
                                          "and assignments, so a process that ends between them "
                                          "would change their pids")
    return runs[0].pos, ("the copies are not started in one atomic sequence of init that starts "
                         "init's first process: a process that ends between two runs frees its "
                         "pid, so the copies' pids would depend on the path")


def _run_statement(step) -> ast.Run | None:
    if isinstance(step, ast.ExprStmt) and isinstance(step.expr, ast.Run):
        return step.expr
    if isinstance(step, ast.Assign) and isinstance(step.value, ast.Run):
        return step.value
    return None


def _referred_remotely(spec: ast.Spec, names: set[str]) -> tuple[SourcePos | None, str] | None:
    for node in spec.walk():
        if isinstance(node, (ast.RemoteLabel, ast.RemoteVar)) and node.proctype in names:
            return node.pos, (f"'{node.proctype}' is referred to remotely ({node.proctype}@ or "
                              f"{node.proctype}:), which names the proctype")
    for node in spec.walk():
        if isinstance(node, ast.Ltl) and node.formula is None and any(
                re.search(rf"\b{re.escape(n)}\b", node.text or "") for n in names):
            return node.pos, "an ltl formula names a copy"
    return None


# ---------------------------------------------------------------------------- the rewrite

# Places where spin wants a constant, not an expression (and the words for the reason).
_CONSTANT_PLACES = {
    (ast.VarDecl, "size"): "an array size", (ast.VarDecl, "bits"): "a bit width",
    (ast.ChanInit, "capacity"): "a channel capacity", (ast.Run, "priority"): "a run priority",
    (ast.Select, "lo"): "a select bound", (ast.Select, "hi"): "a select bound",
    (ast.ForRange, "lo"): "a for bound", (ast.ForRange, "hi"): "a for bound",
}


class _Merger:
    """Walks the copies' bodies side by side, keeping the first copy's nodes and writing each
    constant that differs as an expression of _pid."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.rewritten = 0
        self.refusal: tuple[SourcePos | None, str] | None = None

    def merge(self, values: list, forbidden: str | None, receive_arg: bool):
        first = values[0]
        if isinstance(first, ast.Const):
            if all(v.value == first.value for v in values):
                return first
            if self.refusal is not None:
                return first
            if forbidden is not None:
                self.refusal = (first.pos, f"the constant of {forbidden} differs between the copies "
                                           f"({self._values(values)})")
                return first
            expr = self.expression([v.value for v in values], first.pos)
            if expr is None:
                return first
            self.rewritten += 1
            return ast.Eval(expr=expr, pos=first.pos) if receive_arg else expr
        if isinstance(first, list):
            return [self.merge([v[i] for v in values], forbidden, receive_arg) for i in range(len(first))]
        if not isinstance(first, ast.Node):
            return first
        changes = {}
        for name in first.field_names:
            child = getattr(first, name)
            if not isinstance(child, (ast.Node, list)):
                continue
            where = forbidden or _CONSTANT_PLACES.get((type(first), name))
            if isinstance(first, (ast.Receive, ast.Poll)) and name == "args" and isinstance(child, list):
                merged = [self._receive_arg([getattr(v, name)[i] for v in values], where)
                          for i in range(len(child))]
            else:
                merged = self.merge([getattr(v, name) for v in values], where, False)
            if merged is not child and not (isinstance(child, list) and all(
                    a is b for a, b in zip(merged, child))):
                changes[name] = merged
        return ast.replace(first, **changes) if changes else first

    def _receive_arg(self, values: list, forbidden: str | None):
        if isinstance(values[0], ast.Const):
            return self.merge(values, forbidden, receive_arg=True)
        # Deeper in a receive's argument (`-1`), a value is matched but cannot be an
        # expression, unless inside eval().
        inner = forbidden if isinstance(values[0], ast.Eval) else (forbidden or "a receive's argument")
        return self.merge(values, inner, False)

    def expression(self, values: list[int], pos) -> ast.Expr | None:
        """An expression of _pid that every copy evaluates to its own constant, or None (and
        the refusal) when there is none of the forms understood."""
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            self.refusal = (pos, f"the copies differ in a constant that is not a number ({self._values(values)})")
            return None
        d = values[0] - self.pids[0]
        if all(v - p == d for v, p in zip(values, self.pids)):
            return _plus(ast.VarRef(name="_pid", pos=pos), d, pos)
        n = len(values)
        e = (values[0] - self.pids[0]) % n
        if all(0 <= v < n and (p + e) % n == v for v, p in zip(values, self.pids)):
            inner = _plus(ast.VarRef(name="_pid", pos=pos), e, pos)
            return ast.BinOp(op="%", left=inner, right=ast.Const(value=n, pos=pos), pos=pos)
        self.refusal = (pos, f"a constant differs between the copies ({self._values(values)}) and is "
                             f"neither k + c nor (k + c) % {n} of the copy's index k")
        return None

    def _values(self, values) -> str:
        return ", ".join(str(getattr(v, "value", v)) for v in values)


def _plus(pid: ast.Expr, d: int, pos) -> ast.Expr:
    if d == 0:
        return pid
    return ast.BinOp(op="+" if d > 0 else "-", left=pid, right=ast.Const(value=abs(d), pos=pos), pos=pos)


def _rewrite(spec: ast.Spec, members: list[ast.Proctype], name: str, body, params) -> ast.Spec:
    """``spec`` with the copies replaced by one proctype ``name`` where the first copy was
    declared, and every run of a copy running ``name``."""
    member_names = {m.name for m in members}
    first = min(spec.units.index(m) for m in members)
    merged: ast.Proctype = ast.replace(spec.units[first], name=name, body=body, params=params)
    if merged.active is not None:
        merged = ast.replace(merged, active=ast.Const(value=len(members), pos=merged.active.pos))
    units = []
    for i, unit in enumerate(spec.units):
        if i == first:
            units.append(merged)
        elif not (isinstance(unit, ast.Proctype) and unit.name in member_names):
            units.append(_renaming_runs(unit, member_names, name))
    return ast.replace(spec, units=units)


def _renaming_runs(node, names: set[str], name: str):
    if isinstance(node, ast.Run) and node.proctype in names:
        return ast.replace(ast.map_children(node, lambda c: _renaming_runs(c, names, name)), proctype=name)
    if not isinstance(node, ast.Node):
        return node
    return ast.map_children(node, lambda c: _renaming_runs(c, names, name))


def _names_in_use(spec: ast.Spec) -> set[str]:
    """Every identifier of the program (a new proctype name must be none of them)."""
    names: set[str] = {"_pid", "_nr_pr", "_last", "np_", "init", "never"}
    for node in spec.walk():
        for attr in ("name", "label", "proctype"):
            value = getattr(node, attr, None)
            if isinstance(value, str):
                names.add(value)
        if isinstance(node, ast.MtypeDecl):
            names.update(node.names)
    return names


def _family_name(members: list[str], taken: set[str]) -> str:
    """The common prefix of the copies' names without its trailing digits and underscores
    (P_0, P_1 -> P; phil_0, phil_1 -> phil), or that prefix with a suffix when it is taken."""
    prefix = os.path.commonprefix(members).rstrip("0123456789_")
    base = prefix if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", prefix or "") else members[0] + "_copies"
    chosen, suffix = base, 0
    while chosen in taken:
        suffix += 1
        chosen = f"{base}_copies" if suffix == 1 else f"{base}_copies{suffix}"
    return chosen
