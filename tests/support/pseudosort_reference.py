"""A pure-Python reference of the pseudo-sort of Derepas and Gastin [DG01] (Fig. 3), and the
exact canonical form it approximates, on abstract state vectors.

Why
---
[DG01] reduces a state by *pseudo-sorting* it: for each proctype in turn, sort the tuples of
its processes lexicographically with a classical sort whose exchange operation ``Exch_i(k, l)``
swaps the k-th and l-th tuples **and renames every reference to those processes** anywhere in
the vector.  The renaming can change the order of tuples already compared, so the result need
not be sorted (section 4.1), and it depends on the sort algorithm.  The product generates this
as C; this module is the oracle its unit tests compare with, written from the paper's text and
nothing else.

The abstract state
------------------
A :class:`Schema` lists the proctypes in declaration order (the order the sort visits them),
each with the width of its process tuple and which tuple positions are references to which
proctype; optionally a tuple of globals (message fields of non-public channels, global refs)
with its own reference positions.  A :class:`State` holds, per proctype, the list of its
process tuples (instance 0 first) and the globals tuple.  Everything the sort compares is in the
process tuples, in the order the comparison uses (for the paper: declared locals and public
variables in declaration order, then ``_state``).

Value encoding
--------------
A reference is a value naming an instance of its proctype, or "undefined":

* the paper (:data:`PAPER`): instances 1..n, undefined = 0;
* the product (:data:`PRODUCT`): instances are lids 0..n-1 (``_lid = _pid - K``), undefined
  = 255 (``_undef_ref``).

Renaming maps a reference value to the new position of the instance it names and leaves the
undefined value alone.  The lexicographic order compares raw values, so **the encoding changes
the result** where an undefined reference is compared with a defined one (0 is the least value,
255 the greatest): give the encoding the C uses.  :func:`convert` re-encodes a state.

The permutation action ([DG01] Def. 1, in the "moves to" convention)
-----------------------------------------------------------------------
``perm[t][k] = j``: the instance of type t at position k moves to position j, and every reference
to (t, k) becomes a reference to (t, j).  ``apply(apply(s, p), q) == apply(s, p then q)``.

The sort
--------
The paper says "a classical sorting algorithm, like quick sort" without fixing one, and the
result depends on it (tests/oracles/test_pseudosort_reference.py shows a state where two sorts
disagree).  :data:`SORTS` offers four, each of which performs a bounded number of comparisons
and exchanges whatever the renaming does (the paper's warning: a loop "until sorted" need not
terminate):

* ``insertion`` (the default): for i = 1..n-1, j = i; while j > 0 and tuple j-1 > tuple j:
  exchange j-1, j; j -= 1.  At most n(n-1)/2 exchanges.
* ``selection``: for i = 0..n-2, find the least tuple among positions i..n-1 (first one on ties)
  and exchange it with position i if it is not i.  At most n-1 exchanges.
* ``bubble``: n-1 passes over j = 0..n-2, exchanging j, j+1 when tuple j > tuple j+1.
* ``quicksort``: Lomuto partition of positions lo..hi around the tuple at hi (compared where
  it is, as it is at each comparison), then the two sides; every loop runs over fixed bounds.

The paper cites Knuth vol. 3, pp. 114-123: Algorithm Q (quicksort), which sorts subfiles of at
most M records (M about 9) by straight insertion at the end.  For the paper's n <= 5 that is
straight insertion of the whole file, i.e. ``insertion`` here (with adjacent exchanges in place
of Knuth's record moves, which the renaming requires); that is why it is the default.

Comparison is ``Compare_i(k, l)``: tuple k <= tuple l, read at the moment of comparison (after
every renaming so far).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations, product
from typing import Callable, Mapping, Sequence


@dataclass(frozen=True)
class Encoding:
    """How a reference value names an instance: instance k (0-based position) is ``base + k``;
    ``undef`` is the undefined reference, never renamed."""

    base: int
    undef: int

    def position(self, value: int) -> int | None:
        """The 0-based position a reference value names, None for the undefined reference."""
        return None if value == self.undef else value - self.base

    def value(self, position: int | None) -> int:
        return self.undef if position is None else self.base + position


PAPER = Encoding(base=1, undef=0)
PRODUCT = Encoding(base=0, undef=255)


@dataclass(frozen=True)
class ProcType:
    """One proctype: ``width`` values per process tuple; ``refs`` maps a tuple position to the
    name of the proctype its value references."""

    name: str
    width: int
    refs: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Schema:
    """The proctypes in declaration order (the order the sort visits them) and the reference
    positions of the globals tuple."""

    types: tuple[ProcType, ...]
    global_refs: Mapping[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [t.name for t in self.types]
        if len(set(names)) != len(names):
            raise ValueError(f"proctype names must be distinct: {names}")
        for owner, refs in [(t.name, t.refs) for t in self.types] + [("globals", self.global_refs)]:
            for position, target in refs.items():
                if target not in names:
                    raise ValueError(f"{owner}: position {position} references unknown proctype {target!r}")
        for t in self.types:
            if any(not 0 <= position < t.width for position in t.refs):
                raise ValueError(f"{t.name}: a reference position lies outside its width {t.width}")

    def index(self, name: str) -> int:
        return [t.name for t in self.types].index(name)


@dataclass(frozen=True)
class State:
    """Per proctype (schema order), the tuples of its processes, instance 0 first; and the
    globals tuple."""

    procs: tuple[tuple[tuple[int, ...], ...], ...]
    globals: tuple[int, ...] = ()

    def flat(self) -> tuple[int, ...]:
        """The whole vector: every tuple in order, then the globals (what "lexicographic
        minimum of the orbit" compares)."""
        return tuple(v for tuples in self.procs for tup in tuples for v in tup) + self.globals

    def __str__(self) -> str:
        return " || ".join(" | ".join(",".join(map(str, tup)) for tup in tuples)
                           for tuples in self.procs) + (f" ; {self.globals}" if self.globals else "")


def make_state(schema: Schema, procs: Sequence[Sequence[Sequence[int]]], globals_: Sequence[int] = ()) -> State:
    """A State from nested sequences, checked against the schema's widths."""
    if len(procs) != len(schema.types):
        raise ValueError(f"{len(procs)} proctype lists for {len(schema.types)} proctypes")
    for t, tuples in zip(schema.types, procs):
        for tup in tuples:
            if len(tup) != t.width:
                raise ValueError(f"{t.name}: tuple {tuple(tup)} is not of width {t.width}")
    return State(tuple(tuple(tuple(tup) for tup in tuples) for tuples in procs), tuple(globals_))


# ------------------------------------------------------------------------------ the action


def _rename(schema: Schema, state: State, target: int, mapping: Callable[[int], int], enc: Encoding) -> State:
    """Every reference to proctype ``target`` renamed: position k becomes ``mapping(k)``."""
    name = schema.types[target].name

    def fix(values: tuple[int, ...], refs: Mapping[int, str]) -> tuple[int, ...]:
        out = list(values)
        for position, to in refs.items():
            if to == name:
                k = enc.position(out[position])
                if k is not None:
                    out[position] = enc.value(mapping(k))
        return tuple(out)

    procs = tuple(tuple(fix(tup, t.refs) for tup in tuples) for t, tuples in zip(schema.types, state.procs))
    return State(procs, fix(state.globals, schema.global_refs))


def exchange(schema: Schema, state: State, target: int, k: int, m: int, enc: Encoding = PRODUCT) -> State:
    """[DG01]'s ``Exch_i(k, l)`` with l = ``m``: swap the k-th and m-th tuples of proctype ``target`` and
    rename every reference to them (k <-> m), wherever it is."""
    tuples = list(state.procs[target])
    tuples[k], tuples[m] = tuples[m], tuples[k]
    swapped = State(state.procs[:target] + (tuple(tuples),) + state.procs[target + 1:], state.globals)
    return _rename(schema, swapped, target, lambda p: m if p == k else k if p == m else p, enc)


def apply(schema: Schema, state: State, perm: Sequence[Sequence[int]], enc: Encoding = PRODUCT) -> State:
    """The image of ``state`` under ``perm`` (one permutation per proctype, ``perm[t][k]`` = the
    new position of instance k of type t): tuples move, references are renamed."""
    procs = []
    for t, tuples in enumerate(state.procs):
        moved: list[tuple[int, ...] | None] = [None] * len(tuples)
        for k, tup in enumerate(tuples):
            moved[perm[t][k]] = tup
        procs.append(tuple(moved))
    out = State(tuple(procs), state.globals)  # type: ignore[arg-type]
    for t in range(len(schema.types)):
        out = _rename(schema, out, t, perm[t].__getitem__, enc)
    return out


# ------------------------------------------------------------------------------ the sorts


class _Sorter:
    """The state being sorted, with the paper's two operations on proctype ``target``."""

    def __init__(self, schema: Schema, state: State, target: int, enc: Encoding):
        self.schema, self.state, self.target, self.enc = schema, state, target, enc
        self.exchanges = 0

    def n(self) -> int:
        return len(self.state.procs[self.target])

    def le(self, k: int, m: int) -> bool:
        """``Compare_i(k, m)``: tuple k <= tuple m, as they are now."""
        tuples = self.state.procs[self.target]
        return tuples[k] <= tuples[m]

    def exch(self, k: int, m: int) -> None:
        self.state = exchange(self.schema, self.state, self.target, k, m, self.enc)
        self.exchanges += 1


def _insertion(s: _Sorter) -> None:
    for i in range(1, s.n()):
        j = i
        while j > 0 and not s.le(j - 1, j):
            s.exch(j - 1, j)
            j -= 1


def _selection(s: _Sorter) -> None:
    n = s.n()
    for i in range(n - 1):
        least = i
        for j in range(i + 1, n):
            if not s.le(least, j):
                least = j
        if least != i:
            s.exch(i, least)


def _bubble(s: _Sorter) -> None:
    n = s.n()
    for _ in range(n - 1):
        for j in range(n - 1):
            if not s.le(j, j + 1):
                s.exch(j, j + 1)


def _quicksort(s: _Sorter) -> None:
    def sort(lo: int, hi: int) -> None:
        if lo >= hi:
            return
        i = lo
        for j in range(lo, hi):
            if s.le(j, hi):
                if i != j:
                    s.exch(i, j)
                i += 1
        if i != hi:
            s.exch(i, hi)
        sort(lo, i - 1)
        sort(i + 1, hi)

    sort(0, s.n() - 1)


SORTS: dict[str, Callable[[_Sorter], None]] = {
    "insertion": _insertion, "selection": _selection, "bubble": _bubble, "quicksort": _quicksort}


def pseudo_sort(schema: Schema, state: State, enc: Encoding = PRODUCT, algorithm: str = "insertion",
                types: Sequence[str] | None = None) -> State:
    """[DG01]'s ``pseudoSortStateVector()``: sort the tuples of each proctype in turn (schema
    order, or the names in ``types``) with the named sort (:data:`SORTS`), every exchange
    renaming references.  The result is in the orbit of ``state`` but need not be sorted."""
    sort = SORTS[algorithm]
    order = [t.name for t in schema.types] if types is None else list(types)
    for name in order:
        sorter = _Sorter(schema, state, schema.index(name), enc)
        sort(sorter)
        state = sorter.state
    return state


def is_sorted(state: State) -> bool:
    """Every proctype's tuples in non-decreasing lexicographic order."""
    return all(list(tuples) == sorted(tuples) for tuples in state.procs)


def group(schema: Schema, state: State) -> list[tuple[tuple[int, ...], ...]]:
    """Every element of S_n1 x S_n2 x ... (per proctype, its instance count in ``state``)."""
    return list(product(*(permutations(range(len(tuples))) for tuples in state.procs)))


def orbit(schema: Schema, state: State, enc: Encoding = PRODUCT) -> list[State]:
    """The images of ``state`` under every element of the group (with repetitions)."""
    return [apply(schema, state, perm, enc) for perm in group(schema, state)]


def orbit_minimum(schema: Schema, state: State, enc: Encoding = PRODUCT) -> State:
    """The exact canonical form: the image whose whole vector (:meth:`State.flat`) is least."""
    return min(orbit(schema, state, enc), key=State.flat)


def convert(schema: Schema, state: State, src: Encoding, dst: Encoding) -> State:
    """``state`` with every reference re-encoded from ``src`` to ``dst`` (non-reference values
    unchanged)."""
    out = state
    for t in range(len(schema.types)):
        # rename with the identity on positions, reading with src and writing with dst
        out = _recode(schema, out, t, src, dst)
    return out


def _recode(schema: Schema, state: State, target: int, src: Encoding, dst: Encoding) -> State:
    name = schema.types[target].name

    def fix(values: tuple[int, ...], refs: Mapping[int, str]) -> tuple[int, ...]:
        out = list(values)
        for position, to in refs.items():
            if to == name:
                out[position] = dst.value(src.position(out[position]))
        return tuple(out)

    procs = tuple(tuple(fix(tup, t.refs) for tup in tuples) for t, tuples in zip(schema.types, state.procs))
    return State(procs, fix(state.globals, schema.global_refs))
