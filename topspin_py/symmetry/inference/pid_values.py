"""Values computed from a process's own pid: expressions of ``_pid`` and constants
(``_pid - K``, ``(_pid + 1) % N``), the locals that hold one for ever (pid_copies), and the
parameters that init's runs give each process's own pid shifted by a constant (id_parameters)."""

from __future__ import annotations

from typing import Collection

from ...promela import ast
from ...promela.constants import constant_value
from ...promela.model import Model
from ..kinds import LocalSlot, Slot
from .slots import written_names, written_variables


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
        written = written_names(proctype.body)
        for j, param in enumerate(params):
            if param.name in written or param.type.name not in _ID_TYPES or param.size is not None:
                continue
            values = [constant_value(p.args[j], model.mtypes) if j < len(p.args) else None for p in instances]
            if any(v is None for v in values):
                continue
            shifts = {p.pid - v for p, v in zip(instances, values) if v is not None}
            if len(shifts) == 1:
                found[LocalSlot(name, param.name)] = (shifts.pop(), instances[0].args[j])
    return found


# The types of a parameter that can hold an id (a bit or a bool cannot hold two).
_ID_TYPES = frozenset({"byte", "short", "int", "pid", "unsigned"})


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
    return ast.map_children(expr, lambda child: _substituted(child, copies))
