"""C canonicalisers from a Group and a StateLayout.

Python decides what moves and how values are renamed; the templates (templates/*.c.j2) spell
the C.  Every place is written with pan.h's own names (``now.x``, ``((P0 *)...)->y``,
``contents[i].fld1``), so the code survives SPIN's reordering of fields.

Strategies:

``enumerate`` (exact)
    apply every element of the group and keep the least image in byte order.
"""

from __future__ import annotations

from dataclasses import dataclass
from ..errors import TopspinError
from ..layout.statevector import CHAN, PID, StateLayout, ValueField
from ..resources import template_environment
from ..symmetry.detect import Group

# Beyond this many elements, enumeration is hopeless: a later strategy (segmented) is needed.
MAX_ENUMERATED_ELEMENTS = 50_000


@dataclass(frozen=True)
class Strategy:
    name: str
    exactness: str  # "exact" (one state per orbit), "complete" (at least one), "approximate"
    description: str


STRATEGIES = {
    "enumerate": Strategy("enumerate", "exact", "every group element, least image in byte order"),
}


class CodegenError(TopspinError):
    """The group or the layout is beyond what a strategy can generate code for."""


def render_canonicaliser(group: Group, layout: StateLayout, strategy: str = "enumerate") -> str:
    """C source defining ``void topspin_canonicalise(void)`` for ``group`` on ``layout``."""
    if strategy not in STRATEGIES:
        raise CodegenError(f"unknown strategy '{strategy}'", hint=f"available: {', '.join(STRATEGIES)}")
    order = group.order
    if order > MAX_ENUMERATED_ELEMENTS:
        raise CodegenError(f"the group has {order} elements, too many to enumerate",
                           hint=f"enumerate handles groups of up to {MAX_ENUMERATED_ELEMENTS} elements")
    _refuse_unsupported(layout)
    model = group.model
    # A global declared with a channel initialiser names a static channel: its value is that
    # channel's id for ever.  A permutation renames the references in the text, not the value.
    static_names = {v.name for v in model.globals if v.init is not None and type(v.init).__name__ == "ChanInit"}
    n_pids = max((p.pid for p in layout.processes), default=-1) + 1
    n_chans = max((c.id for c in layout.channels), default=0)
    pid_images, chan_images = [], []
    identity_first = sorted(group.perm_group.generate(), key=lambda g: not g.is_Identity)
    for element in identity_first:
        alpha = group.alpha(element)
        pid_images.append([alpha.pid(p) for p in range(n_pids)])
        chan_images.append([0] + [alpha.chan(c) for c in range(1, n_chans + 1)])
    moved_pids = {p for images in pid_images for p in range(n_pids) if images[p] != p}
    moved_chans = {c for images in chan_images for c in range(1, n_chans + 1) if images[c] != c}
    context = {
        "order": order,
        "n_pids": max(n_pids, 1),
        "n_chans": n_chans,
        "pid_images": pid_images if n_pids else [[0]] * len(pid_images),
        "chan_images": chan_images,
        "moved_processes": [p for p in layout.processes if p.pid in moved_pids],
        "moved_channels": [c for c in layout.channels if c.id in moved_chans],
        "global_arrays": [_array(f) for f in layout.globals if f.pid_indexed and f.in_state_vector],
        "global_values": [_value(f, lvalue) for f in layout.state_fields if f.holds in (PID, CHAN)
                          and not (f.source[0] == "global" and f.source[1] in static_names)
                          for lvalue in f.lvalues("ts_cand.")],
        "local_arrays": [
            {"lvalue": f"(({proc.struct} *) TS_PROC(&ts_cand, {proc.slot}))->{f.path[0].name}",
             "length": f.path[0].length}
            for proc in layout.processes
            for f in layout.proctypes[proc.proctype].fields if f.pid_indexed
        ],
        "local_values": [
            _value(f, lvalue)
            for proc in layout.processes
            for f in layout.proctypes[proc.proctype].fields if f.holds in (PID, CHAN)
            for lvalue in f.lvalues(f"(({proc.struct} *) TS_PROC(&ts_cand, {proc.slot}))->")
        ],
        "message_values": [
            {"id": chan.id, "struct": chan.struct, "capacity": layout.channel_types[chan.struct].capacity,
             "fields": [{"name": f.path[-1].name, **_mapping(f)} for f in layout.channel_types[chan.struct].value_fields]}
            for chan in layout.channels if layout.channel_types[chan.struct].value_fields
        ],
    }
    return template_environment().get_template("enumerate.c.j2").render(**context)


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


def _mapping(f: ValueField) -> dict:
    return {"map": "ts_pid" if f.holds == PID else "ts_chan", "kind_array": "P" if f.holds == PID else "C"}


def _value(f: ValueField, lvalue: str) -> dict:
    return {"lvalue": lvalue, **_mapping(f)}


def _array(f: ValueField) -> dict:
    if len(f.path) != 1:
        raise CodegenError(f"pid-indexed array {f.name} inside a structure is not supported yet")
    return {"path": f.path[0].name, "length": f.path[0].length}
