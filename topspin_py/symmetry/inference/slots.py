"""Slots: where values live.  The resolver that maps a variable reference to its slot, and
what the statements of a model write."""

from __future__ import annotations

from typing import Iterable

from ...promela import ast
from ...promela.model import INIT, Model, Variable, plain_type
from ..kinds import LAST_SLOT, SELF_PID, FieldSlot, GlobalSlot, LocalSlot, Slot


class SlotResolver:
    """Maps variable references to slots, given the proctype whose code is being read."""

    def __init__(self, model: Model, bound: dict | None = None) -> None:
        self.model = model
        # References to the counter of a loop over ids, inside its body (loops.py): a slot of
        # their own, id(VarRef) -> slot.
        self.bound = bound or {}
        self.globals = {v.name: v for v in model.globals}
        self.locals = {owner: {v.name: v for v in vars_} for owner, vars_ in model.locals.items()}

    def variable(self, name: str, owner: str | None) -> tuple[Variable, Slot] | tuple[None, None]:
        if owner is not None and name in self.locals.get(owner, {}):
            return self.locals[owner][name], LocalSlot(owner, name)
        if name in self.globals:
            return self.globals[name], GlobalSlot(name)
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
            return SELF_PID
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
        """Each field reference below ``ref`` with the slot it denotes (a FieldSlot), outermost
        first."""
        typename = var.type.name
        inner = ref.field
        while inner is not None:
            slot = FieldSlot(typename, inner.name)
            yield inner, slot
            typedef = self.model.typedefs.get(typename)
            if typedef is not None:
                decl = next((d for d in typedef.fields for v in d.vars if v.name == inner.name), None)
                typename = plain_type(decl.type).name if decl is not None else typename
            inner = inner.field


def written_names(body: ast.Sequence) -> set[str]:
    """The names of the variables that ``body`` writes (assigns, changes, receives into, runs
    a loop with)."""
    return {target.name for target in ast.writes_in(body) if isinstance(target, ast.VarRef)}


def slot_variable(model: Model, slot: Slot) -> Variable | None:
    """The Variable a global or local slot is, else None (a message field, an array element)."""
    if isinstance(slot, GlobalSlot):
        return model.global_named(slot.name)
    if isinstance(slot, LocalSlot):
        return model.local_named(slot.owner, slot.name)
    return None


def written_targets(node: ast.Node) -> list:
    """What the statement ``node`` may write (Node.writes()), and, in a receive, the ``x`` of
    each ``eval(x)`` too: more than is written, never less (an eval writes nothing; counting it
    keeps x from being taken for a constant)."""
    evaluated = [a.expr for a in node.args if isinstance(a, ast.Eval)] if isinstance(node, ast.Receive) else []
    return [*node.writes(), *evaluated]


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
