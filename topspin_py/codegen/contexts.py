"""The variables each strategy's template reads, as typed values.

A family's code generator (render.FAMILIES) returns one of the four contexts at the end of this
module (ChainSearch, Descent, Markers, Pseudosort).  Each is made of parts: what every
strategy shares (Shared, with the Movements of _apply.c.j2), and, as the family needs them,
the keys (invariants.Keys), the swap table, the trees (markers.NodeTables) and the tables of
markers and pseudo-sort.  Every part is a frozen class whose fields are template variables;
``Variables.variables()`` (variables.py) flattens a context into the names the template
reads, each from one source.  The lists of items the templates loop over stay plain dicts and
places (places.py), written where they are made.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..layout.statevector import ChannelSlot, ProcessSlot
from .invariants import Keys
from .markers import MarkerTables, NodeTables
from .pseudosort import PseudosortTables
from .variables import Variables, optional


# ---------------------------------------------------------------------------------- parts
@dataclass(frozen=True, kw_only=True)
class Movements(Variables):
    """What a group element moves and renames (_apply.c.j2), and the scalar domains' tables."""

    pid_received: bool
    moved_processes: list[ProcessSlot]
    moved_channels: list[ChannelSlot]
    global_arrays: list[dict]
    global_values: list[dict]
    local_arrays: list[dict]
    local_values: list[dict]
    message_values: list[dict]
    domains: list[dict]
    slot_constants: list[dict]
    n_values: int


@dataclass(frozen=True, kw_only=True)
class Shared(Variables):
    """What every strategy's template reads."""

    order: int
    n_pids: int
    n_chans: int
    last_moved_slot: int
    last_moved_channel: int
    movements: Movements


@dataclass(frozen=True, kw_only=True)
class SwapTable(Variables):
    """The process swaps, as rows of images and a table by pair of pids (-1: none)."""

    swaps: list[tuple[int, ...]]
    swap_index: list[list[int]]


# ------------------------------------------------------------------------- one per family
@dataclass(frozen=True, kw_only=True)
class ChainSearch(Variables):
    """The chain family (enumerate, segmented, refine): _search.c.j2, with _keys.c.j2 and
    the swap table when ``keyed``."""

    shared: Shared
    chains: list[dict]
    start_up: list[int]
    start_up_channels: list[int]
    keyed: bool
    blocks: list[list[tuple[int, ...]]] | None
    keys: Keys | None = optional()
    swaps: SwapTable | None = optional()


@dataclass(frozen=True, kw_only=True)
class Minimising(Variables):
    """sorted's minimising set: its inverses, sorted's keys, the classes of interchangeable
    processes."""

    inverses: list[tuple[int, ...]]
    classes: list[list[int]]
    ties_fixed: bool
    swaps_move_channels: bool
    table: SwapTable
    keys: Keys


@dataclass(frozen=True, kw_only=True)
class Descent(Variables):
    """The descent family (sorted, localsearch): the elements it climbs by, or a minimising
    set."""

    shared: Shared
    elements: list[tuple[int, ...]]
    minimising: Minimising | None = optional()


@dataclass(frozen=True, kw_only=True)
class Markers(Variables):
    """The markers family (markers-exact, markers-approx)."""

    shared: Shared
    keys: Keys
    tables: MarkerTables
    approx: bool


@dataclass(frozen=True, kw_only=True)
class Pseudosort(Variables):
    """The pseudo-sort family."""

    shared: Shared
    trees: NodeTables
    tables: PseudosortTables


Context = ChainSearch | Descent | Markers | Pseudosort
