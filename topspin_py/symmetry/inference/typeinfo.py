"""TypeInfo, the result of the inference: the classes of slots with their kinds (symmetry/kinds.py)
and offsets, the taints and the scalar domains."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...promela import ast
from ..kinds import DATA, PID, SELF_PID, IndexSlot, Kind, Slot, domain_of

# Builtins whose first argument is a pid.
PID_BUILTINS = frozenset({"enabled", "pc_value", "get_priority", "set_priority"})


@dataclass
class Taint:
    """A PID or CHAN slot used where permutations do not commute with it."""

    slot: Slot
    node: ast.Node | None  # the offending expression or statement; None for a slot of both kinds
    why: str


@dataclass(frozen=True)
class Domain:
    """A scalar domain: a class of data slots whose values act as ids, like a scalarset of
    Murphi (the package docstring).  ``values`` are the constants the program stores in its
    slots or compares them with; a permutation of the domain permutes them and fixes every
    other value."""

    name: str
    values: tuple[int, ...]
    slots: tuple[Slot, ...]       # the global and local variables and message fields of the class
    pos: object = None            # where its first variable is declared


@dataclass
class TypeInfo:
    """The result: the kind of every slot class, and what defeats the analysis."""

    kind_of_root: dict
    parent: dict
    taints: list[Taint] = field(default_factory=list)
    # slot -> kind, filled as asked: the validity check asks for the same slots once per
    # candidate (the classes are final once inference is done)
    known_kinds: dict = field(default_factory=dict, repr=False, compare=False)
    # root -> K, for the PID classes whose values are pids shifted by K (v denotes pid v + K)
    offset_of_root: dict = field(default_factory=dict)
    # parameter slot -> K, for the parameters taken to hold their process's pid - K
    # (id_parameters)
    id_parameters: dict = field(default_factory=dict)
    # proctype -> {local name: its initialiser}, for the locals that are copies of a value
    # computed from _pid (pid_copies): read like that value
    copies: dict = field(default_factory=dict)

    # the loops over ids whose counter is a pid inside their body only (loops.py)
    loops: list = field(default_factory=list)
    bound: dict = field(default_factory=dict)  # id(VarRef) -> its loop's slot
    # the scalar domains, by name (their roots have the kind scalar_kind(name)), and why the
    # data classes that hold several constants are not domains (class root -> (node, why))
    domains: dict[str, Domain] = field(default_factory=dict)
    not_domains: dict = field(default_factory=dict)

    def domain(self, slot: Slot | None) -> Domain | None:
        """The scalar domain whose values ``slot`` holds, if any."""
        name = domain_of(self.kind(slot))
        return self.domains.get(name) if name is not None else None

    def copy_names(self, owner: str | None) -> frozenset[str]:
        """The locals of ``owner`` that hold an expression of its _pid for ever (pid_copies)."""
        return frozenset(self.copies.get(owner, ())) if owner is not None else frozenset()

    def find(self, slot: Slot) -> Slot:
        while self.parent.get(slot, slot) != slot:
            slot = self.parent[slot]
        return slot

    def kind(self, slot: Slot | None) -> Kind:
        if slot is None:
            return DATA
        kind = self.known_kinds.get(slot)
        if kind is None:
            kind = PID if slot == SELF_PID else self.kind_of_root.get(self.find(slot), DATA)
            self.known_kinds[slot] = kind
        return kind

    def index_kind(self, array_slot: Slot) -> Kind:
        # Keyed by the array itself: its elements may be unified with other slots, its index
        # class is its own.
        return self.kind(IndexSlot(array_slot))

    def offset(self, slot: Slot | None) -> int:
        """K for a PID slot whose value v denotes pid v + K (0 for plain pids and non-pids)."""
        if slot is None or slot == SELF_PID or self.kind(slot) != PID:
            return 0
        return self.offset_of_root.get(self.find(slot), 0)

    def index_offset(self, array_slot: Slot) -> int:
        """K for an array indexed by pid with offset K: element i belongs to pid i + K."""
        return self.offset(IndexSlot(array_slot))
