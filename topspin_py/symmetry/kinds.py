"""The vocabulary of the symmetry stage: the kinds of values, the slots that hold them and the
points a permutation moves, as small frozen classes.

- A **Kind** is what a slot holds, or what a reading of a value expects: a pid (possibly with
  an offset K, where v denotes pid v + K), a channel id, plain data, a value of a scalar
  domain; and, as contexts of a reading only, a condition or output.
- A **slot** is where a value lives: a global, a local of a proctype, a field of a typedef, a
  field of a channel's messages, the index of an array, the counter of a loop over ids inside
  its body, or ``_pid`` itself.  Type inference puts slots into classes; every slot of a class
  holds values of one kind.
- A **Point** is what a permutation moves: a pid, a static channel's id, or a value of a
  scalar domain.  Points are named tuples ``(kind, value)``: the order of the points, the
  colours of the diagram and the cycles printed are those of the tuples.

A kind prints as it is written in the rejections' internals (``pid``, ``pid-1``,
``scalar:NAME``); the rejections themselves name kinds in words (validity/alpha.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple, Union


@dataclass(frozen=True, slots=True)
class Kind:
    """What a slot holds or a reading expects.  ``domain`` is set for a scalar domain's values
    only, ``offset`` for pids only (K: the value v denotes pid v + K).  Kinds have no order:
    where one of several is chosen, it is the first by its text (``key=str``)."""

    name: Literal["pid", "chan", "data", "scalar", "truth", "output"]
    domain: str | None = None
    offset: int = 0

    def __str__(self) -> str:
        if self.name == "scalar":
            return f"scalar:{self.domain}"
        if self.name == "pid" and self.offset:
            return f"pid{-self.offset:+d}"
        return self.name


PID, CHAN, DATA = Kind("pid"), Kind("chan"), Kind("data")
# The contexts of a reading besides the kinds: a condition, an output (printf and the like).
TRUTH, OUTPUT = Kind("truth"), Kind("output")


def scalar_kind(domain: str) -> Kind:
    """The kind of the slots that hold the values of scalar domain ``domain``."""
    return Kind("scalar", domain=domain)


def domain_of(kind: Kind | None) -> str | None:
    """The scalar domain a kind made by :func:`scalar_kind` holds, None for any other kind."""
    return kind.domain if kind is not None else None


def shifted(offset: int) -> Kind:
    """The kind (and context) of pids with offset K, whose value v denotes pid v + K."""
    return Kind("pid", offset=offset)


def offset_of(kind: Kind) -> int | None:
    """K for a kind of pids (0 for plain pids), None for a kind that holds no pids."""
    return kind.offset if kind.name == "pid" else None


# ---------------------------------------------------------------------------------- slots
@dataclass(frozen=True, slots=True)
class GlobalSlot:
    """A global variable (and SPIN's ``_last``)."""

    name: str


@dataclass(frozen=True, slots=True)
class LocalSlot:
    """A local variable or parameter of a proctype (or of init)."""

    owner: str
    name: str


@dataclass(frozen=True, slots=True)
class FieldSlot:
    """A field of a typedef, in every variable of that type."""

    typedef: str
    name: str


@dataclass(frozen=True, slots=True)
class MessageSlot:
    """Field ``field`` (from 0) of the messages of the channels ``channel`` holds (None: a
    channel the layout cannot trace to a variable, whose fields hold data)."""

    channel: Slot | None
    field: int


@dataclass(frozen=True, slots=True)
class IndexSlot:
    """The index of an array: its class is the array's own, apart from its elements'."""

    array: Slot


@dataclass(frozen=True, slots=True)
class CounterSlot:
    """The counter of a loop over ids, inside the loop's body (symmetry/loops.py): a pid
    there, whatever it holds elsewhere.  ``node`` is the id() of the loop's statement."""

    owner: str | None
    name: str
    node: int


@dataclass(frozen=True, slots=True)
class SelfPidSlot:
    """The pseudo-slot of ``_pid``: a pid by definition."""


Slot = Union[GlobalSlot, LocalSlot, FieldSlot, MessageSlot, IndexSlot, CounterSlot, SelfPidSlot]

SELF_PID = SelfPidSlot()
LAST_SLOT = GlobalSlot("_last")  # SPIN's `_last`: the pid of the process that moved last


def variable_slot(owner: str | None, name: str) -> GlobalSlot | LocalSlot:
    """The slot of a variable declared in ``owner`` (None: a global)."""
    return LocalSlot(owner, name) if owner is not None else GlobalSlot(name)


def slot_name(slot: Slot) -> str:
    """A slot in words, for the explanations."""
    match slot:
        case GlobalSlot(name):
            return f"global '{name}'"
        case LocalSlot(owner, name):
            return f"local '{name}' of {owner}"
        case FieldSlot(typedef, name):
            return f"field '{name}' of typedef {typedef}"
        case IndexSlot(array):
            return f"the index of {slot_name(array)}"
        case CounterSlot(_owner, name, _node):
            return f"the counter '{name}' inside its loop"
        case MessageSlot(channel, field):
            of = slot_name(channel) if channel is not None else "a channel"
            return f"field {field + 1} of the messages of {of}"
        case SelfPidSlot():
            return "_pid"


# --------------------------------------------------------------------------------- points
class Point(NamedTuple):
    """A point a permutation moves: ``("pid", p)``, ``("chan", id)`` or ``("val", (domain,
    v))``.  A named tuple, so that points sort, compare and print as the tuples they were."""

    kind: Literal["pid", "chan", "val"]
    value: int | tuple[str, int]

    @property
    def pid(self) -> int:
        assert self.kind == "pid" and isinstance(self.value, int)
        return self.value

    @property
    def chan(self) -> int:
        assert self.kind == "chan" and isinstance(self.value, int)
        return self.value

    @property
    def domain_value(self) -> tuple[str, int]:
        assert self.kind == "val" and isinstance(self.value, tuple)
        return self.value


def pid_point(pid: int) -> Point:
    return Point("pid", pid)


def chan_point(chan_id: int) -> Point:
    return Point("chan", chan_id)


def value_point(domain: str, value: int) -> Point:
    return Point("val", (domain, value))
