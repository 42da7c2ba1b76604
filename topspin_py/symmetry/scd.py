"""The static channel diagram ([DM08] Def. 11) and its automorphisms, computed by nauty.

Vertices are the processes (pids) and the static channels.  Edges are labelled, through a
small vertex per edge, so that nauty keeps the labels apart:

* ``send``/``recv``: a proctype names a global channel in a send or a receive;
* ``param:NAME``: a process got the channel as its parameter NAME in a `run`;
* ``own:NAME``: a process owns the channel declared as its local NAME.

Colours, which may only split vertices that no valid symmetry maps to each other:

* a process: its proctype and the data arguments of its `run`;
* a channel: its capacity and field types.

Occurrences in the program text (Checker.occurrence_regions) add a vertex per region (an if/do
option that names pids or channels) coloured by its shape, with an edge to each point named in
it, labelled by the place where it is named.  A valid permutation maps regions to regions of the
same shape, so these vertices cost no valid symmetry, while they split pids that the text treats
differently (priority levels written into an array, a process named in a claim, the neighbours
of a hypercube node); nauty's group is then usually valid as it stands.
"""

from __future__ import annotations

from dataclasses import dataclass

import pynauty

from ..promela import ast
from ..promela.model import Model
from ..promela.printer import print_expr
from .inference import TypeInfo
from .kinds import CHAN, PID, GlobalSlot, LocalSlot, Point, chan_point, pid_point, value_point
from .validity import Checker
from .validity.facts import parameter_labels


@dataclass
class Diagram:
    """The coloured graph, and which vertex stands for which pid or channel."""

    points: list[Point]  # vertex i (i < len(points)) is a point (symmetry/kinds.py)
    edges: list[tuple[int, int, str]]  # between any vertices, points first
    colours: list[tuple]  # one per vertex: the points, then the regions

    def automorphism_generators(self) -> list[dict[Point, Point]]:
        """Generators of the diagram's automorphism group, restricted to pids and channels."""
        # Each labelled edge a -> b becomes a path through vertices coloured by its label: one
        # vertex when a and b have different colours, coloured by the label and both colours
        # in order (so no automorphism can reverse the edge), else a tail and a head vertex,
        # which keep its direction.  (An undirected graph: nauty's directed mode hangs on some
        # of our graphs.  One vertex instead of two makes nauty ten times faster on the routing
        # tables of a hypercube.)
        # Between two differently coloured classes, one (label, direction) needs no vertex at
        # all: an automorphism keeps colours, so it maps a plain edge between an X and a Y
        # vertex to another such edge, and a plain edge can only stand for that one label.  The
        # most frequent label of each pair of colours goes plain; nauty's time grows with the
        # square of the vertex count (dense mode), and the regions of the 5-cube's routing
        # table (2,560 options naming two pids and a channel) go from four vertices to two.
        n_points = len(self.points)
        n_vertices = len(self.colours)
        labels = sorted({label for _, _, label in self.edges})
        adjacency: dict[int, list[int]] = {v: [] for v in range(n_vertices)}
        colour_of = list(self.colours)

        def new_vertex(colour) -> int:
            adjacency[len(colour_of)] = []
            colour_of.append(colour)
            return len(colour_of) - 1

        colour_names = [repr(colour) for colour in self.colours]  # comparable, unlike colours

        def colour_pair(a: int, b: int) -> tuple:
            return tuple(sorted((colour_names[a], colour_names[b])))

        def oriented(a: int, b: int, label: str) -> tuple:
            return (label, colour_names[a], colour_names[b])

        counts: dict[tuple, dict[tuple, int]] = {}
        for a, b, label in self.edges:
            if self.colours[a] != self.colours[b]:
                per_pair = counts.setdefault(colour_pair(a, b), {})
                per_pair[oriented(a, b, label)] = per_pair.get(oriented(a, b, label), 0) + 1
        plain = {pair: max(per_pair, key=lambda kind: (per_pair[kind], kind))
                 for pair, per_pair in counts.items()}

        for a, b, label in self.edges:
            number = labels.index(label)
            if self.colours[a] != self.colours[b]:
                if plain[colour_pair(a, b)] == oriented(a, b, label):
                    adjacency[a].append(b)
                    continue
                middle = new_vertex(("edge", number, self.colours[a], self.colours[b]))
                adjacency[a].append(middle)
                adjacency[middle].append(b)
            else:
                tail, head = new_vertex(("edge", number, "tail")), new_vertex(("edge", number, "head"))
                adjacency[a].append(tail)
                adjacency[tail].append(head)
                adjacency[head].append(b)
        n = len(colour_of)
        classes: dict[tuple, set[int]] = {}
        for v, colour in enumerate(colour_of):
            classes.setdefault(colour, set()).add(v)
        partition = [classes[c] for c in sorted(classes, key=repr)]
        graph = pynauty.Graph(n, directed=False, adjacency_dict=adjacency, vertex_coloring=partition)
        generators, _, _, _, _ = pynauty.autgrp(graph)
        result = []
        for images in generators:
            mapping = {self.points[v]: self.points[images[v]] for v in range(n_points)}
            if any(a != b for a, b in mapping.items()):
                result.append(mapping)
        return result


def build_diagram(model: Model, types: TypeInfo, checker: Checker, regions: bool = True) -> Diagram:
    """The diagram of ``model``; without ``regions``, only its processes and channels (the
    candidates detect explains when the program text rules them out)."""
    points = diagram_points(model, types)
    index = {point: i for i, point in enumerate(points)}
    channel_by_name = {c.name: c for c in model.channels if c.owner_pid is None}
    edges: set[tuple[int, int, str]] = set()

    # The channels each proctype's text sends to and receives from, read once per proctype.
    uses: dict[str, set[tuple[str, int]]] = {}  # (direction, channel id)
    for proc in model.processes:
        if proc.proctype in uses:
            continue
        if proc.proctype in model.proctypes:
            body = model.proctypes[proc.proctype].body
        else:
            assert model.init is not None  # the one process of no proctype is init's
            body = model.init.body
        found = uses[proc.proctype] = set()
        for node in body.walk():
            if isinstance(node, (ast.Send, ast.Receive, ast.Poll)):
                chan = _static_channel(node.chan, channel_by_name, proc.proctype, checker)
                if chan is not None:
                    found.add(("recv" if isinstance(node, (ast.Receive, ast.Poll)) else "send", chan.id))

    for proc in model.processes:
        me = index[pid_point(proc.pid)]
        params = [v for v in model.locals.get(proc.proctype, []) if v.is_param]
        labels = parameter_labels(model, proc.proctype, checker.constant_params)
        for param, arg in zip(params, proc.args):
            chan = _static_channel(arg, channel_by_name)
            if chan is not None:
                edges.add((me, index[chan_point(chan.id)], labels[param.name]))
        for chan in model.channels:
            if chan.owner_pid == proc.pid:
                edges.add((me, index[chan_point(chan.id)], "own:" + chan.name.split(".", 1)[1]))
        for direction, chan_id in uses[proc.proctype]:
            there = index[chan_point(chan_id)]
            edges.add((there, me, direction) if direction == "recv" else (me, there, direction))

    # A channel array indexed by pid (`link[_pid]`, with an offset K `link[_pid - K]`): element
    # i belongs to pid i + K and must move with it (Checker._channels_follow_their_index).
    pids = {p.pid for p in model.processes}
    for var in model.globals:
        if not isinstance(var.init, ast.ChanInit) or var.size is None \
                or types.index_kind(GlobalSlot(var.name)) != PID:
            continue
        offset = types.index_offset(GlobalSlot(var.name))
        for name, chan in channel_by_name.items():
            if name.startswith(var.name + "[") and int(name[len(var.name) + 1:-1]) + offset in pids:
                owner = int(name[len(var.name) + 1:-1]) + offset
                edges.add((index[pid_point(owner)], index[chan_point(chan.id)], "indexed:" + var.name))

    colours: list[tuple] = []
    fixed = checker.fixed_points() if regions else set()
    for point in points:
        kind, value = point
        base: tuple
        if point in fixed:
            colours.append(("fixed", kind, value))  # no valid permutation moves it
            continue
        if kind == "val":
            colours.append(("val", point.domain_value[0]))
            continue
        if kind == "pid":
            proc = model.processes[point.pid]
            params = [v for v in model.locals.get(proc.proctype, []) if v.is_param]
            # (a parameter that holds the process's own pid - K tells no process apart)
            data_args = tuple(print_expr(a) for a, p in zip(proc.args, params)
                              if types.kind(LocalSlot(proc.proctype, p.name)) != CHAN
                              and LocalSlot(proc.proctype, p.name) not in types.id_parameters)
            base = ("pid", proc.proctype, data_args)
        else:
            chan = next(c for c in model.channels if c.id == point.chan)
            base = ("chan", chan.capacity, tuple(str(f) for f in chan.fields))
        colours.append(base)
    for shape, incidences in (checker.occurrence_regions() if regions else []):
        region = len(colours)
        colours.append(("region", shape))
        for point, place in incidences:
            edges.add((region, index[point], "at:" + place))
    # Expressions of _pid evaluated per process (`fork[(_pid + 1) % N]`): an edge from each
    # process to the pid its value names, a vertex per value that names none (see
    # Checker._function_tables); valid permutations commute with them.
    for number, (_key, rows) in enumerate(checker.pid_functions if regions else []):
        label = f"fn:{number}"
        values: dict = {}
        for p, (what, target) in rows:
            if what == "pid":
                edges.add((index[pid_point(p)], index[pid_point(target)], label))
            else:
                if target not in values:
                    values[target] = len(colours)
                    colours.append(("fn-value", number, repr(target)))
                edges.add((index[pid_point(p)], values[target], label))
    return Diagram(points, sorted(edges), colours)


def diagram_points(model: Model, types: TypeInfo) -> list[Point]:
    """The points a permutation moves: the pids, the static channels' ids and each value of
    each scalar domain, in that order."""
    return ([pid_point(p.pid) for p in model.processes] + [chan_point(c.id) for c in model.channels]
            + [value_point(name, v) for name, domain in sorted(types.domains.items()) for v in domain.values])


def _static_channel(ref, channel_by_name, owner=None, checker=None):
    """The global static channel a reference names, if it names one."""
    if not isinstance(ref, ast.VarRef) or ref.field is not None:
        return None
    if owner is not None and checker is not None:
        var, _ = checker.resolve.variable(ref.name, owner)
        if var is None or var.owner is not None:
            return None  # a local or parameter: not a global channel name
    if ref.index is None:
        return channel_by_name.get(ref.name)
    if isinstance(ref.index, ast.Const):
        return channel_by_name.get(f"{ref.name}[{ref.index.value}]")
    return None
