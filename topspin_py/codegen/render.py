"""C canonicalisers from a Group and a StateLayout.

Python decides what moves and how values are renamed; the templates (templates/*.c.j2) spell
the C.  Every place is written with pan.h's own names (``now.x``, ``((P0 *)...)->y``,
``contents[i].fld1``), so the code survives SPIN's reordering of fields.

Strategies (each a template of its own; the exact ones walk the group through a stabiliser
chain, :mod:`topspin_py.codegen.chain`):

``enumerate`` (exact)
    apply every element of the group and keep the least image in byte order.
``segmented`` (exact; SymmSpin's strategy [BDH02], as [BDLM07] section 2 describes it)
    give each process a key that no permutation changes (its slot with pids and channel ids
    masked, its entries of data arrays indexed by pid, the global places that name it and the
    keys of the channels it names: templates/_keys.c.j2), and apply only the elements whose
    images have the least keys slot by slot; keep the least of those images.  Ties are few
    when processes are in different local states, so few elements are applied.

``refine`` (exact; what ``auto`` picks)
    segmented's keys refined by the keys of the points a process names and of those naming
    it (:mod:`topspin_py.codegen.invariants`).  A group that is a product of full symmetric
    groups on blocks is settled by sorting the blocks when the ties are interchangeable,
    otherwise, and for any other group, by segmented's search over the refined keys.

All three are exact on every state: while init is still starting the processes the group moves,
a state is reduced by the subgroup that maps existing processes and channels to existing ones
(a chain of its own per ``_nr_pr``, :func:`_start_up_chains`).

``markers-exact`` (complete) and ``markers-approx`` (approximate; [BDLM07], Alg. 5.1;
templates/markers.c.j2, :mod:`topspin_py.codegen.markers`)
    for a direct product of trees of symmetric groups only (full symmetric groups on blocks and
    wreath products of them, :mod:`.trees`): sort the children of every node by marker and by
    the markers their values name, top down, with no search; approx then renames the values
    inside nodes to their class, which may merge orbits.  While init is still starting the
    processes, a state is left as it is.
``sorted`` and ``localsearch`` (complete: at least one state per orbit; :mod:`.minimising`)
    descend from the state through a fixed set of elements, keeping every smaller image, to a
    state no element of the set improves.  sorted first orders the processes that the group
    permutes in every way by key (refine's keys, refined fully), and compares keys before
    bytes; localsearch climbs over the generators, their inverses and the process swaps in
    byte order.  Both leave the states of init's start-up as they are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import TopspinError
from ..layout.statevector import StateLayout, ValueField
from ..pan.flags import breadth_first
from ..resources import template_environment
from ..symmetry.detect import Group
from ..symmetry.kinds import CHAN, DATA, PID, GlobalSlot, domain_of
from .chain import point_numbering, process_swaps, setwise_stabiliser, stabiliser_chain, value_points
from .contexts import ChainSearch, Context, Descent, Keys, Markers, Minimising, Movements, Pseudosort, Shared, SwapTable
from .invariants import key_context, symmetric_blocks
from .markers import markers_context, node_tables
from .minimising import climbing_set, inverse_images, minimising_set, swap_classes
from .places import IMAGE, Place, member, places_of
from .pseudosort import pseudosort_context
from .registry import STRATEGIES, Strategy
from .trees import symmetric_trees

# Beyond this many elements, applying all of them to every state is hopeless (Peterson 7's 5040
# already take minutes); segmented applies only the few that tie.
MAX_ENUMERATED_ELEMENTS = 50_000


class CodegenError(TopspinError):
    """The group or the layout is beyond what a strategy can generate code for."""


@dataclass(frozen=True)
class Setting:
    """What every family's code generator reads: the group, the layout as the group acts on it
    (_as_the_group_acts), the numbers of pids and channel ids, and the template variables all
    strategies share (_apply.c.j2's: what an element moves and renames)."""

    group: Group
    layout: StateLayout
    n_pids: int
    n_chans: int
    shared: Shared


def render_canonicaliser(group: Group, layout: StateLayout, strategy: str = "enumerate") -> str:
    """C source defining ``void topspin_canonicalise(void)`` for ``group`` on ``layout``: the
    strategy's family (FAMILIES) makes its template's variables, and its template spells them."""
    if strategy not in STRATEGIES:
        raise CodegenError(f"unknown strategy '{strategy}'", hint=f"available: {', '.join(STRATEGIES)}")
    chosen = STRATEGIES[strategy]
    _refuse_unsupported(layout)
    n_pids = max(max((p.pid for p in layout.processes), default=-1) + 1, 1)
    n_chans = max((c.id for c in layout.channels), default=0)
    constants = _slot_constants(group, layout)
    layout = _as_the_group_acts(layout, constants, _moved_domains(group))
    movements = _movements(group, layout, n_pids, n_chans, constants)
    shared = Shared(order=group.order, n_pids=n_pids, n_chans=n_chans,
                    last_moved_slot=max((p.slot for p in movements.moved_processes), default=-1),
                    last_moved_channel=max((c.id for c in movements.moved_channels), default=0),
                    movements=movements)
    context = FAMILIES[chosen.family](chosen, Setting(group, layout, n_pids, n_chans, shared))
    return template_environment().get_template(chosen.template).render(
        strategy=chosen.name, exactness=chosen.exactness, **context.variables())


def _chain_search(strategy: Strategy, setting: Setting) -> ChainSearch:
    """The exact strategies: a search of the group's stabiliser chain (chain.py), one chain per
    state of init's start-up (_start_up_chains); with keys, only the elements whose images have
    the least keys slot by slot are applied (segmented's, or refine's refined ones), and swaps
    that fix the state prune the search."""
    group, layout, n_pids, n_chans = setting.group, setting.layout, setting.n_pids, setting.n_chans
    if strategy.keys is None and group.order > MAX_ENUMERATED_ELEMENTS:
        raise CodegenError(f"the group has {group.order} elements, too many to enumerate for every state",
                           hint=f"{strategy.name} handles groups of up to {MAX_ENUMERATED_ELEMENTS} elements; "
                                "use --strategy refine (or auto)")
    chains, start_up, start_up_channels = _start_up_chains(group, layout, n_pids, n_chans,
                                                           setting.shared.last_moved_slot)
    movements = setting.shared.movements
    keys, blocks, swaps = None, None, None
    if strategy.keys == "refined":
        keys = _key_context(group, layout, movements)
        blocks = symmetric_blocks(group, n_pids)
    elif strategy.keys == "segmented":
        keys = _segmented_keys(group, layout, movements)
    elif strategy.keys is not None:
        raise AssertionError(f"{strategy.name}: unknown keys {strategy.keys!r}")
    if strategy.keys is not None:
        swaps = _swaps(group, layout, n_pids, n_chans)
        # A swap prunes the search of a start-up chain only if it is in that chain's subgroup:
        # if it maps the existing points to existing points.
        for chain in chains:
            existing = chain["existing"]
            chain["swap_ok"] = [int(existing is None or all(row[q] in existing for q in existing))
                                for row in swaps.swaps]
    return ChainSearch(shared=setting.shared, chains=chains, start_up=start_up, start_up_channels=start_up_channels,
                       keyed=strategy.keys is not None, blocks=blocks, keys=keys, swaps=swaps)


def _symmetric_trees(strategy: Strategy, setting: Setting) -> list:
    """The trees of symmetric groups the group is a direct product of (trees.py), which the
    markers and pseudosort strategies need; any other group is refused."""
    group = setting.group
    roots = symmetric_trees(group, setting.n_pids)
    if roots is None:
        where = f"{group.model.path}: " if group.model.path else ""
        raise CodegenError(f"{where}the {strategy.name} strategy needs a group that is a direct product of "
                           f"full symmetric groups on blocks of processes (and their channels) or of "
                           f"wreath products of them; this group of order {group.order} is not one",
                           detail="its generators: " + ", ".join(group.cycles(a) for a in group.generators),
                           hint="use --strategy refine (exact for every group), or auto")
    return roots


def _pseudosort(strategy: Strategy, setting: Setting) -> Pseudosort:
    """The pseudo-sort of [DG01] (pseudosort.py).  No chain: while init starts the processes,
    a state is left as it is."""
    roots = _symmetric_trees(strategy, setting)
    return Pseudosort(shared=setting.shared, trees=node_tables(roots, setting.n_pids + setting.n_chans),
                      tables=pseudosort_context(setting.group, setting.layout, roots, setting.n_pids,
                                                setting.shared.movements.global_arrays))


def _markers(strategy: Strategy, setting: Setting) -> Markers:
    """The markers of [BDLM07] (markers.py), exact or, for an approximate strategy, with every
    value inside a block renamed to its class.  No chain: while init starts the processes, a
    state is left as it is."""
    roots = _symmetric_trees(strategy, setting)
    movements = setting.shared.movements
    # The markers are those of [BDLM07] (Def. 4), without refinement; no tie is decided by
    # comparing slots.
    keys = dataclasses.replace(_key_context(setting.group, setting.layout, movements),
                               refine_rounds=0, cheap_swaps=False)
    return Markers(shared=setting.shared, keys=keys,
                   tables=markers_context(keys, roots, setting.n_pids, setting.n_chans,
                                          movements.moved_processes, movements.moved_channels),
                   approx=strategy.exactness == "approximate")


def _descent(strategy: Strategy, setting: Setting) -> Descent:
    """The element sets of sorted.c.j2 and localsearch.c.j2 (minimising.py): ``climbing``, the
    generators, their inverses and the process swaps; ``minimising``, a minimising set, with
    sorted's keys and classes of interchangeable processes."""
    group, layout, n_pids, n_chans = setting.group, setting.layout, setting.n_pids, setting.n_chans
    table = _swaps(group, layout, n_pids, n_chans)
    swaps = {(x, y): table.swaps[row] for x, rows in enumerate(table.swap_index)
             for y, row in enumerate(rows) if row >= 0}
    if strategy.elements == "climbing":
        return Descent(shared=setting.shared, elements=climbing_set(group, n_pids, n_chans, swaps))
    if strategy.elements != "minimising":
        raise AssertionError(f"{strategy.name}: unknown elements {strategy.elements!r}")
    elements = minimising_set(group, stabiliser_chain(group, n_pids, n_chans), swaps)
    # Refined keys (invariants.py): on e-mail, clients tied on their own data differ by the
    # pids their messages carry.  No tie is decided by comparing markers (ts_same_marker).
    movements = setting.shared.movements
    keys = dataclasses.replace(_key_context(group, layout, movements), cheap_swaps=False)
    minimising = Minimising(inverses=inverse_images(elements), classes=swap_classes(swaps, n_pids),
                            ties_fixed=_keys_are_whole(movements, keys),
                            swaps_move_channels=any(images[q] != q for images in swaps.values()
                                                    for q in range(n_pids, n_pids + n_chans)),
                            table=table, keys=keys)
    return Descent(shared=setting.shared, elements=elements, minimising=minimising)


# The code generator of each family (registry.Strategy.family).
FAMILIES: dict[str, Callable[[Strategy, Setting], Context]] = {
    "chain": _chain_search,
    "descent": _descent,
    "markers": _markers,
    "pseudosort": _pseudosort,
}


def _keys_are_whole(movements: Movements, keys: Keys) -> bool:
    """Whether a process's key holds everything a group element can change about it: no
    channel moves, no process or message holds a pid or channel id, every array indexed by
    pid is data in the keys, and the only places holding pids are global places the keys
    record.  Then an element that keeps every key in place maps each process to one with the
    same slot, the same array entries and, as a global place names one process, to itself if
    any place names it: it fixes the state (up to a collision of the 64-bit keys, which could
    only cost reduction), and sorted.c.j2 need not apply it."""
    key_places = {place["place"].path for place in keys.places if place["kind"] == "P"}
    return (not movements.moved_channels and not movements.local_values
            and not movements.local_arrays and not movements.message_values
            and {a["path"] for a in movements.global_arrays} <= {a["path"] for a in keys.key_arrays}
            and all(v["rename"] == "pid" and v["place"].path in key_places
                    for v in movements.global_values))


def _start_up_chains(group: Group, layout: StateLayout, n_pids: int, n_chans: int,
                      last_moved_slot: int) -> tuple[list[dict], list[int], list[int]]:
    """The chains the search walks: the group's first, then one for each state of start-up.

    While init starts processes one `run` at a time, a state with ``_nr_pr == n`` has the
    processes of slots below n, the global channels and the local channels of those processes.
    Only the elements that map that set of points onto itself (its setwise stabiliser) map
    the state to a state; the orbit of the state is its orbit under that subgroup, so the
    search walks that subgroup's chain to stay exact.  Returns the chains (dicts for the
    template), and, by ``_nr_pr`` up to the last moved slot, the index of its chain (-1: none)
    and the ``_nr_qs`` it was made for (when the state has another, it is left unreduced).

    A depth-first pan never stores a state with a count of processes that init's atomic
    start-up passes through (Model.start_up_counts_never_stored): no chain is computed for it
    (each costs several Schreier-Sims runs, 30 s for the 40 counts of mutex 40).  A
    breadth-first pan stores those states, so with -DBFS every count gets its chain."""
    chains = [_chain_context(stabiliser_chain(group, n_pids, n_chans), "the group", None)]
    never_stored = set() if _breadth_first(layout) else {
        count + layout.base for count in group.model.start_up_counts_never_stored()}
    index_of: dict[frozenset, int] = {}
    start_up, start_up_channels = [], []
    slot_of = {p.pid: p.slot for p in layout.processes}
    moved = {i for g in group.perm_group.generators for i in range(group.perm_group.degree) if g(i) != i}
    for n in range(last_moved_slot + 1):
        if n in never_stored:
            start_up.append(-1)
            start_up_channels.append(-1)
            continue
        # Channel ids are given in order of creation: the globals', then each process's own.
        existing_chans = 0
        for chan in sorted(layout.channels, key=lambda c: c.id):
            if chan.id != existing_chans + 1 or (chan.owner_pid is not None
                                                 and slot_of.get(chan.owner_pid, n) >= n):
                break
            existing_chans = chan.id
        existing = frozenset(i for i in moved if (
            slot_of.get(group.points[i].pid, n) < n if group.points[i].kind == "pid"
            else True if group.points[i].kind == "val"   # (a value exists in every state)
            else group.points[i].chan <= existing_chans))
        if existing not in index_of:
            subgroup = setwise_stabiliser(group.perm_group, existing, moved)
            names = ", ".join(group.point_name(group.points[i]) for i in sorted(existing))
            chain = stabiliser_chain(dataclasses.replace(group, perm_group=subgroup), n_pids, n_chans)
            index_of[existing] = len(chains)
            when = f"only {names} exist" if names else "none exists"
            point_of = point_numbering(group, n_pids, n_chans)
            c_points = frozenset(point_of(i) for i in existing) | frozenset(
                point_of(i) for i in range(group.perm_group.degree) if i not in moved)
            chains.append(_chain_context(chain, f"start-up, while of the moved points {when}: "
                                                f"order {subgroup.order()}", c_points))
        start_up.append(index_of[existing])
        start_up_channels.append(existing_chans)
    return chains, start_up, start_up_channels


def _breadth_first(layout: StateLayout) -> bool:
    return breadth_first(flag for flag in layout.flags if flag.startswith("-D"))


def _chain_context(chain, description: str, existing: frozenset[int] | None) -> dict:
    """A chain for the template; ``existing``: the C points that exist in the states it is
    for (None: all of them)."""
    first, total = [], 0
    for level in chain.levels:
        first.append(total)
        total += len(level.transversal)
    return {"levels": chain.levels, "first": first, "description": description, "existing": existing}


def _swaps(group: Group, layout: StateLayout, n_pids: int, n_chans: int) -> SwapTable:
    """The swap elements of segmented's pruning, as a table by pair of pids (-1: none)."""
    swaps = process_swaps(group, n_pids, n_chans, {p.pid: p.channels for p in layout.processes})
    rows = sorted(set(swaps.values())) or [tuple(range(n_pids + n_chans + len(value_points(group, n_pids, n_chans))))]
    row_of = {images: i for i, images in enumerate(rows)}
    index = [[row_of[swaps[(x, y)]] if (x, y) in swaps else -1 for y in range(n_pids)]
             for x in range(n_pids)]
    return SwapTable(swaps=rows, swap_index=index)


def _static_channel_names(group: Group) -> set[str]:
    """Globals declared with a channel initialiser: each names its static channel for ever."""
    return {v.name for v in group.model.globals if v.init is not None and type(v.init).__name__ == "ChanInit"}


def _movements(group: Group, layout: StateLayout, n_pids: int, n_chans: int, constants: list[dict]) -> Movements:
    """What a group element moves and renames, for _apply.c.j2; ``constants``: the parameters
    each process keeps in its slot (_slot_constants)."""
    model = group.model
    # A receive into _pid gives a process a pid not its own: _pid is then renamed like any pid.
    pid_received = bool(model.receives_into_pid())
    # A global declared with a channel initialiser names a static channel: its value is that
    # channel's id for ever.  A permutation renames the references in the text, not the value.
    static_names = _static_channel_names(group)
    moved_pids: set[int] = set()
    moved_chans: set[int] = set()
    for generator in group.generators:
        moved_pids.update(p for p in range(n_pids) if generator.pid(p) != p)
        moved_chans.update(c for c in range(1, n_chans + 1) if generator.chan(c) != c)
    domains = _moved_domains(group)
    return Movements(
        pid_received=pid_received,
        moved_processes=[p for p in layout.processes if p.pid in moved_pids],
        moved_channels=[c for c in layout.channels if c.id in moved_chans],
        # A global channel array indexed by pid holds its own channels' ids for ever: its
        # channels move with the pids (symmetry/validity/, channel_ref), the array stays.
        global_arrays=[_array(f) for f in layout.globals if f.pid_indexed and f.in_state_vector
                          and not (isinstance(f.source, GlobalSlot) and f.source.name in static_names)],
        global_values=[_value(f, place, domains) for f in layout.state_fields if _renamed_here(f, domains)
                          and not (isinstance(f.source, GlobalSlot) and f.source.name in static_names)
                          for place in places_of(f, IMAGE)],
        local_arrays=[
            {"place": member(IMAGE, f.path[0].name, proc),
             "length": f.path[0].length, "slot": proc.slot, "offset": f.index_offset}
            for proc in layout.processes
            for f in layout.proctypes[proc.proctype].fields if f.pid_indexed
        ],
        local_values=[
            {"slot": proc.slot, "values": values}
            for proc in layout.processes
            for values in [[_value(f, place, domains) for f in layout.proctypes[proc.proctype].fields
                            if _renamed_here(f, domains)
                            for place in places_of(f, IMAGE, proc)]
                           + ([{"place": member(IMAGE, "_pid", proc),
                                "rename": "pid", "domain": None, "offset": 0}] if pid_received else [])]
            if values
        ],
        message_values=[
            {"id": chan.id, "struct": chan.struct, "capacity": layout.channel_types[chan.struct].capacity,
             "fields": [{"name": f.path[-1].name, **_mapping(f, domains)}
                        for f in layout.channel_types[chan.struct].value_fields if _renamed_here(f, domains)]}
            for chan in layout.channels
            if any(_renamed_here(f, domains) for f in layout.channel_types[chan.struct].value_fields)
        ],
        domains=_domain_tables(group, n_pids, n_chans),
        slot_constants=constants,
        n_values=len(value_points(group, n_pids, n_chans)),
    )


def _key_context(group: Group, layout: StateLayout, movements: Movements) -> Keys:
    """_keys.c.j2's variables (invariants.key_context) for the points the group moves."""
    constant_members: dict[str, set[str]] = {}
    for constant in movements.slot_constants:
        constant_members.setdefault(constant["struct"], set()).add(constant["member"])
    return key_context(layout, movements.moved_processes, movements.moved_channels,
                       _static_channel_names(group), constant_members)


def _segmented_keys(group: Group, layout: StateLayout, movements: Movements) -> Keys:
    """The keys of the segmented strategy ([BDH02], [BDLM07] section 2), spelt by _keys.c.j2
    (invariants.py): a process's slot with its pid and channel values masked, its own elements
    of the global data arrays indexed by pid, the global places that name it, and, after one
    round of refinement
    over the channel ids that processes hold only, the keys of the channels its fields name.
    A channel's key is its queue with pid and channel values masked, and takes in the keys of
    the processes that name it in that round.  Every such key is carried along by the group
    elements, which is all the search needs to stay exact; the other relations (pids held in
    slots and messages) are `refine`'s, and no tie is decided by comparing markers."""
    keys = _key_context(group, layout, movements)
    named_channels = [r for r in keys.relations if r.kind == "C" and r.index is None]
    return dataclasses.replace(keys, relations=named_channels, message_relations=[],
                               refine_rounds=1 if named_channels else 0, cheap_swaps=False)


def _refuse_unsupported(layout: StateLayout) -> None:
    for proctype in layout.proctypes.values():
        for f in proctype.fields:
            if f.pid_indexed and len(f.path) != 1:
                raise CodegenError(f"pid-indexed array {f.name} of {proctype.name} is inside a "
                                   "structure; the enumerate strategy does not permute those yet")
    for chan_type in layout.channel_types.values():
        for f in chan_type.value_fields:
            if len(f.path) != 2:
                raise CodegenError(f"message field {f.name} of {chan_type.struct} is a structure; "
                                   "the enumerate strategy renames only plain message fields")


def _mapping(f: ValueField, domains: Sequence[str] = ()) -> dict:
    """How _apply.c.j2 renames the values of ``f`` (its macro ``renamed`` spells it): as a
    pid, a channel id, a pid with an offset (``lid``, ``offset``: value v names pid v +
    offset), or a value of the ``domain``-th scalar domain the group moves."""
    domain = domain_of(f.holds)
    if domain is not None:
        return {"rename": "value", "domain": domains.index(domain), "offset": 0}
    if f.holds == PID and f.offset:
        return {"rename": "lid", "domain": None, "offset": f.offset}
    return {"rename": "pid" if f.holds == PID else "chan", "domain": None, "offset": 0}


def _value(f: ValueField, place: Place, domains: Sequence[str]) -> dict:
    return {"place": place, **_mapping(f, domains)}


def _renamed_here(f: ValueField, domains: Sequence[str]) -> bool:
    """Whether the canonicaliser renames the values of ``f``: pids, channel ids, and the values
    of the scalar domains the group moves."""
    domain = domain_of(f.holds)
    return f.holds in (PID, CHAN) if domain is None else domain in domains


def _moved_domains(group: Group) -> list[str]:
    """The scalar domains whose values the group moves, in a fixed order."""
    return sorted({d for g in group.generators for (d, _v), _image in g.values})


def _domain_tables(group: Group, n_pids: int, n_chans: int) -> list[dict]:
    """For each scalar domain the group moves (ts_val_K of _apply.c.j2): the C point of each of
    its values (by value, -1 for a value that is not one of them), the value of each of its
    points (from the first one, ``base``)."""
    numbers = value_points(group, n_pids, n_chans)
    tables = []
    for name in _moved_domains(group):
        points = sorted((q, point.domain_value[1]) for point, q in numbers.items()
                        if point.domain_value[0] == name)
        base = points[0][0]
        if [q for q, _v in points] != list(range(base, base + len(points))):
            raise AssertionError(f"the values of '{name}' are not consecutive C points")
        point_of_value = [-1] * 256
        for q, v in points:
            point_of_value[v] = q
        tables.append({"name": name, "base": base, "point_of_value": point_of_value,
                       "values": [v for _q, v in points]})
    return tables


def _slot_constants(group: Group, layout: StateLayout) -> list[dict]:
    """The parameters each process keeps in its slot (Group.slot_constants: its image gets
    the destination slot's own, _apply.c.j2): one entry per process and parameter."""
    return [{"slot": proc.slot, "struct": proc.struct, "member": name}
            for proc in layout.processes for name in group.slot_constants.get(proc.proctype, ())]


def _as_the_group_acts(layout: StateLayout, constants: list[dict], domains: list[str]) -> StateLayout:
    """``layout`` as the group acts on it: the slot constants left out of the places a
    permutation renames (the canonicaliser puts the destination slot's own values there
    instead) and of what the keys relate (a constant of its slot tells no state apart), and the
    places of a scalar domain the group does not move read as data (the keys must not mask
    them: a strategy may take two processes whose masked bytes agree for interchangeable)."""
    kept = {(c["struct"], c["member"]) for c in constants}

    def acted_on(f: ValueField) -> bool:
        domain = domain_of(f.holds)
        return (f.struct, f.path[0].name) not in kept and (domain is None or domain in domains or f.pid_indexed)

    def as_data(f: ValueField) -> ValueField:
        return f if acted_on(f) or domain_of(f.holds) is None else dataclasses.replace(f, holds=DATA)

    proctypes = {name: dataclasses.replace(proctype, fields=tuple(f for f in proctype.fields if acted_on(f)))
                 for name, proctype in layout.proctypes.items()}
    channel_types = {name: dataclasses.replace(ctype, message=tuple(map(as_data, ctype.message)))
                     for name, ctype in layout.channel_types.items()}
    globals_ = tuple(f for f in layout.globals if acted_on(f))
    return dataclasses.replace(layout, proctypes=proctypes, channel_types=channel_types, globals=globals_)


def _array(f: ValueField) -> dict:
    if len(f.path) != 1:
        raise CodegenError(f"pid-indexed array {f.name} inside a structure is not supported yet")
    return {"path": f.path[0].name, "length": f.path[0].length, "offset": f.index_offset}
