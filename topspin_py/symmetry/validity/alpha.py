"""The vocabulary of the check: the permutations it checks (Alpha), the Tokenizer that stands in
for one to find where pids and channels occur, the kinds and contexts in which a value is read,
and what a rejection says (Rejection, Difference)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ...errors import SourcePos
from ...promela import ast
from ..kinds import (
    CHAN,
    DATA,
    OUTPUT,
    PID,
    TRUTH,
    Kind,
    Point,
    chan_point,
    domain_of,
    offset_of,
    pid_point,
    value_point,
)

_CONTEXT_NAMES = {PID: "a pid", CHAN: "a channel id", DATA: "data", TRUTH: "a condition", OUTPUT: "output"}
_KIND_NAMES = {PID: "holds a pid", CHAN: "holds a channel id", DATA: "holds data"}


def kind_name(kind: Kind) -> str:
    """What a value of ``kind`` is, in a rejection: "holds a pid", "holds data" ..."""
    offset = offset_of(kind)
    if offset:
        return f"holds a pid with offset {offset}"
    if (domain := domain_of(kind)) is not None:
        return f"holds a value of '{domain}'"
    return _KIND_NAMES.get(kind, str(kind))


def context_name(context: Kind) -> str:
    """What is meant where a value is read in ``context``, in a rejection: "a pid", "data" ..."""
    offset = offset_of(context)
    if offset:
        return f"a pid with offset {offset}"
    if (domain := domain_of(context)) is not None:
        return f"a value of '{domain}'"
    return _CONTEXT_NAMES[context]


@dataclass(frozen=True)
class Alpha:
    """A permutation of pids, of static channel ids and of the values of each scalar domain
    (identity where not listed)."""

    pids: tuple[tuple[int, int], ...]
    chans: tuple[tuple[int, int], ...]
    values: tuple[tuple[tuple[str, int], int], ...] = ()  # ((domain, value), image)
    # How the group that alpha belongs to acts on states besides (detect.Group.slot_constants):
    # the parameters of these proctypes stay in their slots.  (proctype, parameter names)
    slot_constants: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @staticmethod
    def of(pids: dict[int, int], chans: dict[int, int], values: dict[tuple[str, int], int] | None = None) -> Alpha:
        return Alpha(tuple(sorted((a, b) for a, b in pids.items() if a != b)),
                     tuple(sorted((a, b) for a, b in chans.items() if a != b)),
                     tuple(sorted((a, b) for a, b in (values or {}).items() if a[1] != b)))

    def pid(self, p: int) -> int:
        return self._pid_images.get(p, p)

    def chan(self, c: int) -> int:
        return self._chan_images.get(c, c)

    def value(self, domain: str, v: int) -> int:
        return self._value_images.get((domain, v), v)

    def moves_values(self, domain: str | None = None) -> bool:
        """Whether alpha moves a value of ``domain`` (of any domain when None)."""
        return any(domain is None or d == domain for (d, _v), _image in self.values)

    @cached_property
    def _value_images(self) -> dict[tuple[str, int], int]:
        return dict(self.values)

    # The mappings as dicts, made once: the checker asks for the image of every pid literal.
    @cached_property
    def _pid_images(self) -> dict[int, int]:
        return dict(self.pids)

    @cached_property
    def _chan_images(self) -> dict[int, int]:
        return dict(self.chans)

    def is_identity(self) -> bool:
        return not self.pids and not self.chans and not self.values

    def moves_pids(self) -> bool:
        return bool(self.pids)

    def moves_chans(self) -> bool:
        return bool(self.chans)


@dataclass
class Rejection:
    """Why a candidate is not valid, with the place in the model that shows it."""

    reason: str
    pos: SourcePos | None = None
    original: str | None = None  # the normalised text, before and after, for --explain
    permuted: str | None = None
    # The permutation may well be the model's symmetry, but the canonicaliser cannot apply it
    # (a typedef inside a message, an array indexed by channel ids): a limit of topspin-py's,
    # not the model's (a declared group leaves it out rather than refuse the model).
    limit: bool = False

    def __str__(self) -> str:
        return f"{self.pos}: {self.reason}" if self.pos else self.reason


@dataclass(frozen=True)
class Difference:
    """Where a unit and its image first differ: the reason in words, the place, and the
    Promela text there before and after the permutation (for ``detect --explain``)."""

    reason: str
    pos: SourcePos | None
    before: str | None = None
    after: str | None = None


class Token:
    """One occurrence of a pid or channel in the program text (see Tokenizer)."""

    __slots__ = ("point",)

    def __init__(self, point: Point) -> None:
        self.point = point

    def __repr__(self) -> str:
        return "<token>"


class Tokenizer:
    """Not a permutation: replaces every occurrence of a pid or channel in a pid or channel
    context by a fresh Token that remembers which point it stands for (occurrence_regions).
    It rejects nothing: the regions it finds only colour the static channel diagram.  It also
    collects the expressions of ``_pid`` and constants that the check evaluates per process
    (``(_pid + 1) % N``), with their owner and context (Checker.pid_functions)."""

    def __init__(self) -> None:
        self.pid_expressions: list[tuple[ast.Expr, str, str]] = []

    def pid(self, p: int) -> Token:
        return Token(pid_point(p))

    def chan(self, c: int) -> Token:
        return Token(chan_point(c))

    def value(self, domain: str, v: int) -> Token:
        return Token(value_point(domain, v))

    def is_identity(self) -> bool:
        return False


AlphaLike = Alpha | Tokenizer


class Invalid(Exception):
    """Raised by any part of the check with the rejection of the candidate (Checker.check)."""

    def __init__(self, rejection: Rejection) -> None:
        super().__init__(rejection.reason)
        self.rejection = rejection
