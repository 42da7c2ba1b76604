"""Places of a state as data: which state, which process slot, which members with which
array indices.  The templates spell them in C (templates/_places.c.j2); Python only decides
which places there are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..layout.statevector import Member, ProcessSlot, ValueField, element_indices

# The states a place lies in: the image being built, the original state, and a mask struct
# (the keys' masks).  templates/_places.c.j2 names each in C.
IMAGE, STATE, MASK = "image", "state", "mask"


@dataclass(frozen=True)
class Step:
    """One member of a place's path, with its index when the member is an array element."""

    name: str
    index: int | None = None


@dataclass(frozen=True)
class Place:
    """A scalar (or a whole array) of ``base``'s state: of its global part, or, with ``slot``,
    of the process in that slot, whose struct is ``struct``."""

    base: str
    steps: tuple[Step, ...]
    struct: str | None = None
    slot: int | None = None

    @property
    def path(self) -> str:
        """The member path as text, indices included (``recs[0].who``): a name for the place
        within its struct, the same for every slot of that struct."""
        return ".".join(s.name if s.index is None else f"{s.name}[{s.index}]" for s in self.steps)


def steps(path: Sequence[Member], indices: Sequence[int]) -> tuple[Step, ...]:
    """The steps of ``path`` with one index per array member, in order."""
    rest = list(indices)
    return tuple(Step(m.name, None if m.length is None else rest.pop(0)) for m in path)


def places_of(f: ValueField, base: str, proc: ProcessSlot | None = None) -> list[Place]:
    """Every element of ``f`` in ``base``'s state (in ``proc``'s slot when given)."""
    return [at(base, steps(f.path, combo), proc) for combo in f.elements()]


def elements_at(f: ValueField, q: int, base: str) -> list[Place]:
    """The scalars of element ``q`` of the array ``f``'s first member (indexed by pid)."""
    first = (Step(f.path[0].name, q),)
    return [at(base, first + steps(f.path[1:], combo)) for combo in element_indices(f.path[1:])]


def at(base: str, path: Iterable[Step], proc: ProcessSlot | None = None) -> Place:
    """The place ``path`` of ``base``'s state, in ``proc``'s slot when given."""
    if proc is None:
        return Place(base, tuple(path))
    return Place(base, tuple(path), proc.struct, proc.slot)


def member(base: str, name: str, proc: ProcessSlot | None = None) -> Place:
    """A plain member ``name`` (``_pid``, ``_t``)."""
    return at(base, (Step(name),), proc)
