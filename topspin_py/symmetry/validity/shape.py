"""The checks of a candidate against the shape of the state, and the rejections.

The third part of the check, the state's shape: arrays indexed by pid cover every moved pid (a
bad index must be bad for the image too; with offset K, element p - K of every moved p) and are
not inside a typedef (the canonicaliser does not permute those); every place holding pids or
channel ids is wide enough for every moved value (p - K for an offset K, never below 0);
processes that can terminate are never moved (SPIN removes them in reverse pid order); pid 0 is
never moved when a local variable holds pids (SPIN resets dead locals to 0; pid K for a local
holding pids with offset K), unless the pan.m spin wrote resets none (``spin -o1``, as for the
desugared ref/public extension: ``Model.resets_dead_locals``) or not that local
(``Model.dead_resets``); a global declared as a channel (``chan q = ...``), whose references are
renamed in the text and whose value is never renamed, is never written when its channels move;
arrays indexed by channel ids are not permuted by the canonicaliser, so channels do not move
when there is one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...promela import ast
from ...promela.constants import constant_value
from ...promela.model import INIT
from ...promela.printer import print_expr
from ..kinds import (
    CHAN,
    OUTPUT,
    PID,
    TRUTH,
    GlobalSlot,
    Kind,
    LocalSlot,
    Point,
    chan_point,
    domain_of,
    offset_of,
    pid_point,
)
from .alpha import Alpha, Invalid, Rejection, Tokenizer, context_name, kind_name
from .facts import ModelFacts, ValuePlace, owner_of
from .normal_form import normal


class ShapeChecks(ModelFacts):
    """The checks of a candidate that do not read the program text statement by statement: the
    processes and channels it moves and the state's shape (check_processes, check_channels,
    check_state_shape), the points no valid candidate moves (fixed_points), and the rejections
    every part raises (reject, consistent).  Needs expr (Rewrite, rewrite.py), to map the run
    arguments of a process."""

    if TYPE_CHECKING:
        def expr(self, e: ast.Expr | None, owner: str | None, context: Kind, alpha): ...

    # ------------------------------------------------------------------ processes, channels, the state
    def check_processes(self, alpha: Alpha) -> None:
        by_pid = {p.pid: p for p in self.model.processes}
        for a, b in alpha.pids:
            if a not in by_pid or b not in by_pid:
                raise Invalid(Rejection(f"pid {a if a not in by_pid else b} is not a process of the model"))
            pa, pb = by_pid[a], by_pid[b]
            if pa.proctype != pb.proctype:
                raise Invalid(Rejection(f"pid {a} ({pa.proctype}) and pid {b} ({pb.proctype}) "
                                        "run different proctypes", pa.pos))
            priority_a = getattr(pa.node, "priority", None)
            priority_b = getattr(pb.node, "priority", None)
            if normal(priority_a) != normal(priority_b):
                raise Invalid(Rejection(f"pids {a} and {b} are run with different priorities", pb.pos))
            if pa.proctype in self.terminating:
                body = self.model.proctypes.get(pa.proctype)
                raise Invalid(Rejection(
                    f"processes of '{pa.proctype}' can terminate, and SPIN removes terminated "
                    f"processes in reverse pid order, which no permutation of them respects",
                    body.pos if body is not None else pa.pos))
            if pa.proctype in self.slot_constants:
                continue  # its parameters: param_permutation, below
            params = [v for v in self.model.locals.get(pa.proctype, []) if v.is_param]
            for param, arg_a, arg_b in zip(params, pa.args, pb.args):
                kind = self.slot_kind(LocalSlot(pa.proctype, param.name))
                mapped = self.expr(arg_a, INIT, kind, alpha)
                if normal(mapped) != normal(arg_b):
                    if self.param_permutation(alpha, pa.proctype) is not None:
                        self.wants_slot_constants.add(pa.proctype)
                    raise Invalid(Rejection(
                        f"run arguments differ: pid {a} gets {param.name} = {print_expr(arg_a)}, "
                        f"pid {b} gets {print_expr(arg_b)}", pb.pos))
        for proctype in self.slot_constants:
            renaming = self.param_permutation(alpha, proctype)
            if renaming is None:
                raise Invalid(Rejection(
                    f"the run arguments of the processes of '{proctype}' are not those of their images "
                    "under any renaming of its parameters", self.model.proctypes[proctype].pos))
            self.renamings[alpha, proctype] = renaming
        resets = self.model.dead_resets
        for var, offset in self.pid_locals if self.model.resets_dead_locals else ():
            if resets is not None and (var.owner, var.name) not in resets:
                continue  # the pan spin wrote never resets this one
            if alpha.pid(offset) != offset and offset in self.pids:
                held = "pids" if offset == 0 else f"pids with offset {offset}"
                raise Invalid(Rejection(
                    f"pid {offset} would move, but the local '{var.name}' holds {held} and SPIN "
                    f"resets dead local variables to 0, which is also pid {offset}", var.pos))
        for domain, var, why in self.zero_locals:
            self.reject(alpha, f"the value 0 of '{domain}' would move, but the local '{var.name}' "
                               f"holds its values and {why}", var, value_zero=domain)

    def param_permutation(self, alpha: Alpha, proctype: str) -> dict[str, str] | None:
        """A renaming tau of the constant parameters of ``proctype`` (_constant_parameters)
        under which every process p's arguments, mapped by alpha, are the arguments of alpha(p):
        parameter tau(x) of alpha(p) gets the image of what x of p gets (the others the same).
        A hypercube node's `out0`, `out1`, `out2` under a swap of two dimensions.  The identity
        where it fits; None when no renaming does."""
        constant = self.constant_params.get(proctype)
        if not constant:
            return None
        params = [v for v in self.model.locals.get(proctype, []) if v.is_param]
        index = {v.name: i for i, v in enumerate(params)}
        by_pid = {p.pid: p for p in self.model.processes}
        candidates: dict[str, set[str]] = {}
        for p in self.model.processes_of(proctype):
            image = by_pid.get(alpha.pid(p.pid))
            if image is None or image.proctype != proctype:
                return None
            for param in params:
                kind = self.slot_kind(LocalSlot(proctype, param.name))
                try:
                    mapped = normal(self.expr(p.args[index[param.name]], INIT, kind, alpha))
                except Invalid:
                    return None
                fits = {other.name for other in (constant if param in constant else [param])
                        if other.type == param.type and self.slot_kind(LocalSlot(proctype, other.name)) == kind
                        and normal(image.args[index[other.name]]) == mapped}
                candidates[param.name] = candidates.get(param.name, fits) & fits
        if all(name in fits for name, fits in candidates.items()):
            return {}
        renaming: dict[str, str] = {}
        while len(renaming) < len(candidates):
            name = next((n for n, fits in candidates.items() if n not in renaming and len(fits) == 1), None)
            if name is None:
                return None  # none fits, or a choice this greedy matching does not make
            target = next(iter(candidates[name]))
            renaming[name] = target
            for other, fits in candidates.items():
                if other != name:
                    fits.discard(target)
        return {a: b for a, b in renaming.items() if a != b}

    def check_channels(self, alpha: Alpha) -> None:
        by_id = self.channel_by_id
        for a, b in alpha.chans:
            ca, cb = by_id.get(a), by_id.get(b)
            if ca is None or cb is None:
                raise Invalid(Rejection(f"channel {a if ca is None else b} is not a static channel"))
            if ca.owner_pid is not None or cb.owner_pid is not None:
                # A local channel belongs to its process: it moves with it and only with it.
                if ca.owner_pid is None or cb.owner_pid is None or alpha.pid(ca.owner_pid) != cb.owner_pid \
                        or ca.name.split(".", 1)[1] != cb.name.split(".", 1)[1]:
                    raise Invalid(Rejection(f"local channel {ca.name} must move with its process", ca.pos))
            if (ca.capacity, [str(f) for f in ca.fields]) != (cb.capacity, [str(f) for f in cb.fields]):
                raise Invalid(Rejection(f"channels {ca.name} and {cb.name} have different types", ca.pos))
            for chan in (ca, cb):
                var_name = chan.name.split("[", 1)[0]
                if chan.owner_pid is None and var_name in self.written_static_channels:
                    raise Invalid(Rejection(
                        f"'{var_name}' is declared as a channel and also assigned, so it does not "
                        f"always name channel {chan.name}; its channels cannot move",
                        self.written_static_channels[var_name]))
        for proc in self.model.processes:
            owned = [c for c in self.model.channels if c.owner_pid == proc.pid]
            for chan in owned:
                image = alpha.chan(chan.id)
                target = by_id[image]
                if target.owner_pid != alpha.pid(proc.pid):
                    raise Invalid(Rejection(f"local channel {chan.name} must move with its process", chan.pos))

    def check_state_shape(self, alpha: Alpha) -> None:
        moved_pids = [p for p, _ in alpha.pids]
        moved_chans = [c for c, _ in alpha.chans]
        if moved_pids:
            for array in self.pid_arrays:
                if array.in_typedef:
                    raise Invalid(Rejection(
                        f"'{array.name}' is an array inside a typedef indexed by pid, which the "
                        "canonicaliser does not permute", array.pos, limit=True))
                # With an offset K, an index held in the state is a byte, so it names a pid of
                # K or more; a pid below K is named only by `_pid - K` in its own process, where
                # it is out of bounds: so must its image be.
                _keep_below_offset(alpha, array.offset, array.name, array.pos)
                # An index naming a moved pid must be out of bounds exactly when its image is.
                images = dict(alpha.pids)
                bounds = range(array.offset, array.offset + array.size)
                outside = [p for p in moved_pids if p >= array.offset and p not in bounds
                           and images[p] in bounds]
                if outside and array.offset == 0:
                    raise Invalid(Rejection(
                        f"'{array.name}' is indexed by pid but has {array.size} elements, so pid "
                        f"{max(outside)} is out of its bounds while its image may not be", array.pos))
                if outside:
                    raise Invalid(Rejection(
                        f"'{array.name}' is indexed by pid - {array.offset} but has {array.size} "
                        f"elements, so pid {outside[0]} (index {outside[0] - array.offset}) is out of "
                        "its bounds while its image may not be", array.pos))
        for place in self.value_places:
            moved = moved_pids if place.kind == PID else moved_chans
            if place.kind == PID and place.offset:
                # A byte holding pid - K names pids of K or more only: those below stay below.
                _keep_below_offset(alpha, place.offset, place.name, place.pos)
            # Values as the C holds them: pid p is held as p - K wrapped into the place's type,
            # and the canonicaliser renames what it reads back only when that is a pid again.
            # A moved pid or channel whose value does not fit would stay as it is.  (A place of
            # offset K holds the values of pids below K only where an expression of _pid or a
            # constant puts them there: check_held rejects those it does not hold.)
            for point in moved:
                if place.kind == PID and point < place.offset:
                    continue
                if not place.holds(point - place.offset):
                    raise Invalid(Rejection(_unheld(place, point), place.pos))
        for loop in self.types.loops if moved_pids else ():
            # The counter of a loop over ids is a pid inside the body (loops.py): the values
            # it walks must name a set of pids that alpha maps onto itself.
            if self.types.kind(loop.slot) != PID:
                continue
            offset = self.types.offset(loop.slot)
            walked = {v + offset for v in range(loop.lo, loop.hi + 1)} & self.pids
            for p in sorted(walked):
                if alpha.pid(p) not in walked:
                    raise Invalid(Rejection(
                        f"the loop over '{loop.counter}' walks pids {loop.lo + offset} .. "
                        f"{loop.hi + offset}, and the permutation takes pid {p} in it to pid "
                        f"{alpha.pid(p)} outside it", loop.pos))
        for name, kind, pos in self.structured_messages:
            if (moved_pids if kind == PID else moved_chans):
                raise Invalid(Rejection(
                    f"the messages of '{name}' carry a typedef holding "
                    f"{'pids' if kind == PID else 'channel ids'}, which the canonicaliser does not "
                    "rename inside a message", pos, limit=True))
        if moved_chans and self.chan_indexed:
            name, pos = self.chan_indexed[0]
            raise Invalid(Rejection(f"'{name}' is indexed by channel ids, and the canonicaliser "
                                    "does not permute such arrays", pos, limit=True))

    def fixed_points(self) -> set[Point]:
        """Pids and channels that no valid permutation moves, whatever else it does (each is a
        rejection of check_processes, check_channels, check_state_shape or channel_ref that
        depends on the point alone): the pid a dead local is reset to, the channels of a
        channel variable the program writes, every channel when an array is indexed by channel
        ids, and the channels of an array indexed by a computed value that is no pid.  The
        static channel diagram colours each alone, so nauty does not propose permutations that
        only a search would weed out.  (Processes that can terminate are left to the check,
        whose rejection of nauty's candidates is the reason detect reports for them.)"""
        fixed: set[Point] = set()
        for place in self.value_places:   # (check_state_shape's rule of the C type)
            values, point = (self.pids, pid_point) if place.kind == PID else (self.chan_ids, chan_point)
            fixed |= {point(value) for value in values
                      if value >= place.offset and not place.holds(value - place.offset)}
        if self.model.resets_dead_locals:
            resets = self.model.dead_resets  # the same rule as check_processes
            fixed |= {pid_point(offset) for var, offset in self.pid_locals
                      if offset in self.pids and (resets is None or (var.owner, var.name) in resets)}
        static = [c for c in self.model.channels if c.owner_pid is None]
        if self.chan_indexed:
            fixed |= {chan_point(c.id) for c in self.model.channels}
        for chan in static:
            if chan.name.split("[", 1)[0] in self.written_static_channels:
                fixed.add(chan_point(chan.id))
        computed: set[str] = set()
        for unit in self.model.expanded.units:
            owner = owner_of(unit)
            for node in unit.walk():
                if isinstance(node, ast.VarRef) and node.index is not None and node.name in self.static_channel_vars \
                        and node.name not in computed \
                        and self.types.index_kind(GlobalSlot(node.name)) != PID \
                        and constant_value(node.index, self.mtypes) is None:
                    var, _slot = self.resolve.variable(node.name, owner)
                    if var is not None and var.owner is None:
                        computed.add(node.name)
        fixed |= {chan_point(c.id) for c in static if c.name.split("[", 1)[0] in computed}
        return fixed

    # ------------------------------------------------------------------ rejections
    def reject(self, alpha, reason: str, node, pids: bool = False, chans: bool = False,
               proctype: str | None = None, pid_zero: bool = False, zero_names: int = 0,
               values: tuple[str | None, ...] = (), value_zero: str | None = None) -> None:
        """Reject ``alpha`` if it moves what the place at ``node`` could name: any pid
        (``pids``), a process of ``proctype``, any channel (``chans``), the pid that 0 names
        (``pid_zero``: pid ``zero_names``, 0 unless the place holds pids with an offset), a value
        of a scalar domain in ``values`` (None: of any), or 0 of domain ``value_zero``."""
        if alpha is None or isinstance(alpha, Tokenizer):
            return
        moves = (pids and alpha.moves_pids()) or (chans and alpha.moves_chans()) \
            or (proctype is not None and any(alpha.pid(p) != p for p in self.instances.get(proctype, []))) \
            or (pid_zero and zero_names in self.pids and alpha.pid(zero_names) != zero_names) \
            or any(alpha.moves_values(domain) for domain in values) \
            or (value_zero is not None and alpha.value(value_zero, 0) != 0)
        if moves:
            raise Invalid(Rejection(reason, getattr(node, "pos", None)))

    def consistent(self, kind: Kind, context: Kind, node, alpha) -> None:
        """A value of ``kind`` read in ``context``: reject alpha where the two disagree."""
        if context == OUTPUT or kind == context:
            return
        if context == TRUTH:
            offset = offset_of(kind)
            if offset is not None:
                self.reject(alpha, f"'{print_expr(node)}' {kind_name(kind)} and is used as a condition, "
                                   f"which compares it with 0, pid {offset}", node, pid_zero=True,
                            zero_names=offset)
            if (domain := domain_of(kind)) is not None:
                self.reject(alpha, f"'{print_expr(node)}' {kind_name(kind)} and is used as a condition, "
                                   "which compares it with 0", node, value_zero=domain)
            return
        involved = {kind, context}
        self.reject(alpha, f"'{print_expr(node)}' {kind_name(kind)} but stands where "
                           f"{context_name(context)} is meant", node,
                    pids=any(offset_of(k) is not None for k in involved), chans=CHAN in involved,
                    values=tuple(d for k in involved if (d := domain_of(k)) is not None))


def _unheld(place: ValuePlace, point: int) -> str:
    """Why ``point`` (a pid or channel id) cannot move: ``place`` does not hold its value."""
    what = "pid" if place.kind == PID else "channel"
    held = f"pids with offset {place.offset}" if place.offset else f"{what} ids" if place.kind == CHAN else "pids"
    value = point - place.offset
    shown = f"{place.stored(value)}, not {value}" if place.stored(value) != value else str(value)
    return (f"'{place.name}' holds {held} in a {place.ctype} ({place.smallest} .. {place.largest}), which "
            f"stores {what} {point} as {shown}: the canonicaliser would not rename it")


def _keep_below_offset(alpha: Alpha, offset: int, name: str, pos) -> None:
    """A place of offset K never names a pid below K: alpha must keep those pids below K,
    and the others at K or more."""
    for p, image in alpha.pids:
        if (p < offset) != (image < offset):
            raise Invalid(Rejection(
                f"'{name}' holds pids with offset {offset}, which names no pid below {offset}, "
                f"but pid {p} would become pid {image}", pos))
