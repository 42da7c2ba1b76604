"""Scalar domains: the data classes that act as ids, Murphi's scalarsets found in the text (see
the package docstring), and the scalarsets a model declares (pragmas.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ...errors import ModelError
from ...promela import ast
from ...promela.model import Model, plain_type
from ...promela.printer import print_expr
from ..kinds import PID, FieldSlot, GlobalSlot, IndexSlot, LocalSlot, MessageSlot, Slot, scalar_kind
from .slots import slot_variable
from .typeinfo import Domain, TypeInfo

# The types of the variables of a scalar domain.
_DOMAIN_TYPES = frozenset({"byte", "short", "int", "mtype"})


class ScalarDomains:
    """The part of the inference (unify._Inference) that finds the scalar domains, from what its
    walk collected: the classes (parent, find, union), the constants that flow into each slot
    (constants_in), the slots given other values (opaque), the uses in arithmetic (arith) and
    in comparisons by order with a constant (ordered)."""

    model: Model
    parent: dict
    constants_in: dict
    opaque: list[tuple[Slot, ast.Node]]
    arith: list[tuple[Slot | None, ast.Node, str]]
    ordered: set[int]
    scalarsets: dict[str, tuple[Slot, tuple[int, ...]]]

    if TYPE_CHECKING:
        def find(self, slot): ...

        def union(self, a, b) -> None: ...

        def field_slot(self, chan_slot, index: int): ...

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
                for i, ftype in enumerate(plain_type(f) for f in var.init.fields):
                    if ftype.name == "mtype" and ftype.subtype == subtype:
                        yield self.field_slot(slot, i)
        for var in self.model.globals:
            yield from of(var, GlobalSlot(var.name))
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                yield from of(var, LocalSlot(owner, var.name))
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                field_type = plain_type(decl.type)
                if field_type.name == "mtype" and field_type.subtype == subtype:
                    raise ModelError(f"a field of typedef '{typedef.name}' has the type of the scalarset "
                                     f"'{subtype}', which topspin-py does not permute inside a typedef yet",
                                     decl.pos, hint="declare it as a variable of its own")


    def find_domains(self, info: TypeInfo) -> None:
        """The data classes that act as ids: scalar domains (the package docstring).  A class of
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
            if isinstance(slot, (IndexSlot, FieldSlot)):
                return None, "indexes an array or is a field of a typedef"
            if isinstance(slot, (GlobalSlot, LocalSlot)):
                var = slot_variable(self.model, slot)
                if var is None or var.size is not None or var.type.name not in _DOMAIN_TYPES:
                    return None, "is not a scalar variable of an integer type"
                if var.visibility == "hidden":
                    return None, "is hidden (kept out of the state vector, where nothing renames it)"
            elif not isinstance(slot, MessageSlot):
                return None, "is not a variable or a message field"
        return None
