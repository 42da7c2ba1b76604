"""The layout stage on real pan.h and pan.c files: every test runs spin -a on a model and reads
what it wrote, with the flags the verifier would be compiled with.

Expectations are reasoned out from each model (which variables hold pids, which hold channel
ids, which arrays are indexed by pid).  Every layout is also checked against the C compiler:
``compile_probe`` writes a C file that includes the real pan.h and assigns every field the
layout names (bitfields included), and statically asserts the length of every array it names;
gcc must accept it with the same -D flags.  One test goes further and runs pan with a c_code
report written from the layout: slots, channel ids and field values as pan itself sees them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import clvalues
import pytest
from conftest import MODELS

from topspin_py.layout import LayoutError, StateLayout, read_layout, read_pan_h
from topspin_py.pan import toolchain
from topspin_py.promela.model import load_model
from topspin_py.symmetry.inference import infer_types
from topspin_py.symmetry.kinds import CHAN, DATA, LAST_SLOT, PID, FieldSlot, LocalSlot

# A client/server model with everything the layout must find:
# * `holder` and `order[]` hold pids; `waiting[]` is indexed by pid; `journal[]` too, but it is
#   only ever written, so SPIN hides it (no field of State);
# * `last_client` is an `unsigned : 3` that holds a pid: a bitfield;
# * the typedef Req has a pid field, a chan field and a bool (a 1-bit field) -- as the global
#   `pending`, the local `r` of Server, and as the message of `records` (flattened into fld0..3);
# * `requests` carries a pid and a chan, each Client's local `answer` carries a pid;
# * the local `idle` is declared in a nested block, which SPIN renames (_6_2_idle);
# * the ltl block puts the claim in slot 0: BASE = 1.
MODEL = """
typedef Req { pid who; byte amount; chan reply; bool urgent };
mtype = { ask, done };
pid holder = 255;
byte waiting[4];
pid order[2];
byte journal[4];
bool busy;
unsigned last_client : 3 = 7;
Req pending;
chan requests = [2] of { mtype, pid, chan };
chan records = [1] of { Req };

proctype Client(chan server) {
  chan answer = [1] of { pid };
  pid granted = 255;
  bool mine;
  do
  :: server ! ask, _pid, answer;
     answer ? granted;
     waiting[_pid] = 1;
     journal[_pid] = 1;
     last_client = _pid;
     mine = (granted == _pid);
     busy = mine;
     server ! done, _pid, answer
  od
}

proctype Server() {
  pid who = 255; chan back; mtype m; Req r;
  do
  :: requests ? m, who, back ->
     if
     :: m == ask -> holder = who; order[0] = who; back ! who
     :: m == done -> holder = 255; waiting[who] = 0
     fi;
     r.who = who; r.reply = back; r.amount = 1; r.urgent = busy;
     records ! r; records ? pending
  :: waiting[who] > 0 && order[0] == who && last_client == who -> skip
  :: timeout -> { pid idle = holder; order[1] = idle }
  od
}

init {
  atomic { run Server(); run Client(requests); run Client(requests) }
}

ltl safe { [] (holder != 7) }
"""

# `_last` (the pid of the process that moved last) makes pan.h define HAS_LAST.
LAST = """
pid seen = 255;
active [2] proctype P() { do :: seen = _last :: seen == _pid -> seen = 255 od }
"""

# Nested typedefs: a pid two structs deep, in a local array of structs; a typedef in a message
# is flattened into one fldN per scalar (Inner = p, arr[0], arr[1]); local channel arrays.
NESTED = """
typedef Inner { pid p; byte arr[2] };
typedef Outer { Inner in; chan c; bool b };
chan ms = [2] of { Inner, pid };
Outer o;
active [2] proctype B() {
  chan mine[2] = [1] of { pid };
  Inner t; Outer outs[2];
  pid by_pid[2];
  ms ! t, _pid; ms ? t, _;
  o.in.p = _pid; o.c = mine[1];
  outs[1].in.p = t.p; outs[0].c = mine[0];
  by_pid[_pid] = _pid;
  mine[0] ! by_pid[1]; mine[0] ? by_pid[0];
  assert(o.in.p != 7 || outs[0].in.p != 7 || outs[1].c != mine[1] || o.b || outs[0].b)
}
"""

# A channel initialised inside a typedef: pan creates it, the Model does not number it.
CHAN_IN_TYPEDEF = """
typedef Box { chan q = [1] of { byte }; byte x };
chan first = [1] of { pid };
Box box;
active proctype A() { box.q ! 1; first ! _pid; box.x = len(first) }
"""


# Run by pan itself: init waits for both workers' messages, takes one, and then reports, from a c_code block that the
# test writes from the layout, what each named field holds (see test_pan_agrees_...).
RUNTIME = """
typedef Tag { pid who; chan via };
pid first = 255;
Tag tag;
chan hub = [2] of { pid, chan };
proctype Worker(chan to) {
  chan mine = [1] of { pid };
  pid me = 255;
  me = _pid; to ! me, mine; mine ? me
}
init {
  atomic { run Worker(hub); run Worker(hub) };
  full(hub);  /* both workers have sent */
  hub ? first, tag.via; tag.who = first;
  /* REPORT */
  skip
}
ltl safe { [] (first != 7) }
"""


# ------------------------------------------------------------------------------ helpers
def layout_of(tmp_path: Path, text: str, flags=(), name: str = "m.pml") -> StateLayout:
    model = tmp_path / name
    model.write_text(text)
    return layout_at(model, tmp_path, flags)


def layout_at(model: Path, workdir: Path, flags=()) -> StateLayout:
    tools = toolchain.find_toolchain()
    toolchain.generate_pan(tools, model, str(model), (), workdir)
    loaded = load_model(model)
    return read_layout(workdir, loaded, infer_types(loaded), flags=flags)


def found(fields) -> set[tuple]:
    """(struct, path, holds (the kind's text), pid-indexed) of each field, for set comparisons."""
    return {(f.struct, f.name, str(f.holds), f.pid_indexed) for f in fields}


def all_fields(layout: StateLayout) -> list:
    """Every field the layout names: globals (hidden ones too), _last, locals, messages."""
    fields = list(layout.globals) + ([layout.last] if layout.last is not None else [])
    for proctype in layout.proctypes.values():
        fields.extend(proctype.fields)
    for ctype in layout.channel_types.values():
        fields.extend(ctype.message)
    return fields


def compile_probe(tmp_path: Path, layout: StateLayout) -> None:
    """gcc must accept every name of the layout against the real pan.h: each element is
    assigned to itself (that works for bitfields too, which have no address), each array's
    length is asserted statically.  Hidden globals are plain C variables of pan.h."""
    structs = sorted({f.struct for f in all_fields(layout)} | {"State"}
                     | {p.struct for p in layout.processes} | {c.struct for c in layout.channels})
    params = ", ".join(f"{s} *{s}_" for s in structs)
    lines = ["#include <stdio.h>", '#include "pan.h"', f"void topspin_probe({params})", "{"]
    for f in all_fields(layout):
        prefix = f"{f.struct}_->" if f.in_state_vector else ""
        for lvalue in clvalues.lvalues(f, prefix):
            lines.append(f"\t{lvalue} = {lvalue};")
        for i, member in enumerate(f.path):
            if member.length is None:
                continue
            whole = _array_expression(f, i, prefix)
            lines.append(f"\t_Static_assert(sizeof({whole}) / sizeof({whole}[0]) == {member.length}, "
                         f'"{f.struct}.{f.name}");')
    lines.extend(f"\t(void) sizeof(*{s}_);" for s in structs)
    lines.append("}")
    (tmp_path / "probe.c").write_text("\n".join(lines) + "\n")
    command = ["gcc", "-fsyntax-only", "-Werror", *layout.flags, "probe.c"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + "\n" + "\n".join(lines)


def _array_expression(f, upto: int, prefix: str) -> str:
    """The C expression of the array at path position ``upto`` (earlier arrays at index 0)."""
    parts = []
    for member in f.path[:upto]:
        parts.append(member.name if member.length is None else f"{member.name}[0]")
    parts.append(f.path[upto].name)
    return prefix + ".".join(parts)


# ------------------------------------------------------------------------------ our models
def test_pid_and_channel_fields_of_a_client_server_model(tmp_path):
    layout = layout_of(tmp_path, MODEL)
    assert layout.base == 1  # the ltl claim sits in slot 0
    assert not layout.has_last and layout.last is None
    assert found(layout.state_fields) == {
        ("State", "holder", "pid", False),
        ("State", "order[2]", "pid", False),
        ("State", "waiting[4]", "data", True),
        ("State", "last_client", "pid", False),
        ("State", "requests", "chan", False),
        ("State", "records", "chan", False),
        ("State", "pending.who", "pid", False),
        ("State", "pending.reply", "chan", False),
    }
    assert found(layout.proctypes["Client"].fields) == {
        ("P0", "server", "chan", False), ("P0", "answer", "chan", False),
        ("P0", "granted", "pid", False)}
    assert found(layout.proctypes["Server"].fields) == {
        ("P1", "who", "pid", False), ("P1", "back", "chan", False),
        ("P1", "_6_2_idle", "pid", False),  # `idle`, renamed by its block scope
        ("P1", "r.who", "pid", False), ("P1", "r.reply", "chan", False),
        # an mtype compared with two message types only: a scalar domain (symmetry/inference/)
        ("P1", "m", "scalar:m", False)}
    assert layout.proctypes[":init:"].fields == ()
    idle = next(f for f in layout.proctypes["Server"].fields if f.name == "_6_2_idle")
    assert idle.source == LocalSlot("Server", "idle")
    compile_probe(tmp_path, layout)


def test_bitfields_are_flagged(tmp_path):
    layout = layout_of(tmp_path, MODEL)
    last_client = next(f for f in layout.globals if f.name == "last_client")
    assert last_client.bitfield and last_client.ctype == "unsigned"
    assert layout.header.state.field("last_client").bits == 3
    assert layout.header.state.field("busy").bits == 1  # a bool scalar is a 1-bit field
    assert not any(f.bitfield for f in layout.globals if f.name != "last_client")
    urgent = layout.channel_types[layout.channel(2).struct].message[3]
    assert urgent.bitfield and urgent.holds == DATA


def test_hidden_globals_are_not_in_the_state_vector(tmp_path):
    layout = layout_of(tmp_path, MODEL)
    assert layout.hidden == ("journal",)  # written, never read
    journal = next(f for f in layout.globals if f.name == "journal[4]")
    assert not journal.in_state_vector and journal.pid_indexed
    assert journal not in layout.state_fields
    assert not layout.header.state.has("journal")
    assert journal in layout.pid_indexed
    assert {f.name for f in layout.pid_indexed} == {"waiting[4]", "journal[4]"}


def test_process_slots_and_proctype_structs(tmp_path):
    layout = layout_of(tmp_path, MODEL)
    # P0.. in declaration order (init where it is declared), then the claim, then np_
    assert {n: p.struct for n, p in layout.proctypes.items()} == {
        "Client": "P0", "Server": "P1", ":init:": "P2"}
    assert [(c.name, c.struct, c.kind) for c in layout.claims] == [
        ("safe", "P3", "claim"), (":np_:", "P4", "np")]
    assert [(p.pid, p.proctype, p.struct, p.slot, p.channels) for p in layout.processes] == [
        (0, ":init:", "P2", 1, ()), (1, "Server", "P1", 2, ()),
        (2, "Client", "P0", 3, (3,)), (3, "Client", "P0", 4, (4,))]


def test_channel_types_and_message_kinds(tmp_path):
    layout = layout_of(tmp_path, MODEL)
    channels = {c.name: c for c in layout.channels}
    assert [(c.id, c.owner_pid, c.owner_slot) for c in layout.channels] == [
        (1, None, None), (2, None, None), (3, 2, 3), (4, 3, 4)]
    requests = layout.channel_types[channels["requests"].struct]
    assert (requests.declared_in, requests.member, requests.capacity) == ("State", "requests", 2)
    assert [(f.name, str(f.holds)) for f in requests.message] == [
        ("contents[2].fld0", "scalar:m"), ("contents[2].fld1", "pid"), ("contents[2].fld2", "chan")]
    records = layout.channel_types[channels["records"].struct]
    # the typedef Req is flattened: who, amount, reply, urgent
    assert [f.holds for f in records.message] == [PID, DATA, CHAN, DATA]
    assert records.message[0].source == FieldSlot("Req", "who")
    # both clients' `answer` channels share one Qk (one declaration)
    answer = {channels["Client(2).answer"].struct, channels["Client(3).answer"].struct}
    assert len(answer) == 1
    answer_type = layout.channel_types[answer.pop()]
    assert (answer_type.declared_in, answer_type.member) == ("P0", "answer")
    assert [f.holds for f in answer_type.message] == [PID]
    assert answer_type.variable == LocalSlot("Client", "answer")
    assert found(answer_type.value_fields) == {(answer_type.struct, "contents[1].fld0", "pid", False)}


def test_elements_give_every_index_combination(tmp_path):
    layout = layout_of(tmp_path, NESTED, flags=("-DSAFETY",))
    outs = next(f for f in layout.proctypes["B"].fields if f.name == "outs[2].in.p")
    assert list(outs.elements()) == [(0,), (1,)]
    assert clvalues.lvalues(outs, "((P0 *)pptr(1))->") == [
        "((P0 *)pptr(1))->outs[0].in.p", "((P0 *)pptr(1))->outs[1].in.p"]
    assert clvalues.lvalue(outs, "p->", ["i"]) == "p->outs[i].in.p"
    with pytest.raises(ValueError):
        clvalues.lvalue(outs, "p->", [])


def test_nested_typedefs_and_typedef_messages(tmp_path):
    layout = layout_of(tmp_path, NESTED, flags=("-DSAFETY",))
    assert layout.base == 0
    assert found(layout.state_fields) == {
        ("State", "ms", "chan", False), ("State", "o.in.p", "pid", False),
        ("State", "o.c", "chan", False)}
    assert found(layout.proctypes["B"].fields) == {
        ("P0", "mine[2]", "chan", False), ("P0", "t.p", "pid", False),
        ("P0", "outs[2].in.p", "pid", False), ("P0", "outs[2].c", "chan", False),
        ("P0", "by_pid[2]", "pid", True)}
    ms = layout.channel_types[layout.channel(1).struct]
    assert [str(f.holds) for f in ms.message] == ["pid", "data", "data", "pid"]  # p, arr[0..1], pid
    # each element of a channel array has its own Qk
    mine = [c for c in layout.channels if c.owner_pid == 0]
    assert [c.name for c in mine] == ["B(0).mine[0]", "B(0).mine[1]"]
    assert len({c.struct for c in mine}) == 2
    assert [layout.channel_types[c.struct].member for c in mine] == ["mine[0]", "mine[1]"]
    assert layout.process(1).channels == (4, 5)
    compile_probe(tmp_path, layout)


def test_last_is_a_pid_field(tmp_path):
    layout = layout_of(tmp_path, LAST, flags=("-DSAFETY", "-DNOREDUCE"))
    assert layout.has_last and layout.base == 0
    assert layout.last is not None and layout.last.holds == PID
    assert layout.last.source == LAST_SLOT and layout.last in layout.state_fields
    assert found(layout.state_fields) == {("State", "seen", "pid", False), ("State", "_last", "pid", False)}
    compile_probe(tmp_path, layout)


def test_base_follows_the_compile_flags(tmp_path):
    model = tmp_path / "m.pml"
    model.write_text(MODEL)
    assert layout_at(model, tmp_path).base == 1
    no_claim = layout_at(model, tmp_path, flags=("-DNOCLAIM", "-DSAFETY"))
    assert no_claim.base == 0
    assert [p.slot for p in no_claim.processes] == [0, 1, 2, 3]
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "m.pml").write_text(LAST)
    assert layout_at(plain / "m.pml", plain, flags=("-DSAFETY",)).base == 0
    assert layout_at(plain / "m.pml", plain, flags=("-DNP",)).base == 1  # np_ takes slot 0


def test_safety_drops_the_fairness_counters(tmp_path):
    model = tmp_path / "m.pml"
    model.write_text(LAST)
    layout_at(model, tmp_path)
    assert read_pan_h(tmp_path / "pan.h").state.has("_cnt")
    assert not read_pan_h(tmp_path / "pan.h", ["-DSAFETY"]).state.has("_cnt")


def test_several_claims_add_a_selector_struct(tmp_path):
    text = LAST + "ltl one { [] (seen != 7) }\nltl two { <> (seen == 1) }\n"
    layout = layout_of(tmp_path, text)
    assert [(c.name, c.struct, c.kind) for c in layout.claims] == [
        ("one", "P1", "claim"), ("two", "P2", "claim"), (":np_:", "P3", "np"),
        ("P4", "P4", "selector")]
    assert layout.base == 1
    assert [p.slot for p in layout.processes] == [1, 2]


@pytest.mark.parametrize("text", [
    CHAN_IN_TYPEDEF,
    "typedef Box { chan q = [1] of { byte }; byte x };\n"
    "active proctype A() { Box b; b.q ! 1; b.x = len(b.q) }\n",
], ids=["global", "local"])
def test_a_channel_inside_a_typedef_is_refused(tmp_path, text):
    # pan creates and numbers box.q / b.q; the Model does not, so channel ids would be off
    with pytest.raises(LayoutError, match="channel ids would not match"):
        layout_of(tmp_path, text, flags=("-DSAFETY",))


def test_embedded_c_fields_are_foreign(tmp_path):
    models = MODELS
    layout = layout_at(models / "ccode.pml", tmp_path, flags=("-DSAFETY",))
    assert ("State", "pos") in layout.foreign and ("P0", "seen") in layout.foreign
    assert layout.header.state.field("pos").ctype == "Coord"  # a c_decl type
    assert layout.globals == ()  # `n` is data


# ------------------------------------------------------------------------------ the corpus
def corpus_layout(corpus: Path, tmp_path: Path, name: str) -> StateLayout:
    layout = layout_at(corpus / "topspin" / name, tmp_path, flags=("-DSAFETY",))
    compile_probe(tmp_path, layout)
    return layout


def test_corpus_peterson3(corpus, tmp_path):
    layout = corpus_layout(corpus, tmp_path, "peterson3.p")
    assert layout.base == 0
    # flag[_pid] = k: indexed by pid, holds levels; turn[k] = _pid: holds pids, indexed by level
    assert found(layout.state_fields) == {
        ("State", "flag[4]", "data", True), ("State", "turn[3]", "pid", False)}
    assert layout.proctypes["user"].fields == ()
    assert [(p.pid, p.struct, p.slot) for p in layout.processes] == [
        (0, "P1", 0), (1, "P0", 1), (2, "P0", 2), (3, "P0", 3)]
    assert layout.channel_types == {} and layout.channels == ()


def test_corpus_email3(corpus, tmp_path):
    layout = corpus_layout(corpus, tmp_path, "email3.p")
    assert found(layout.state_fields) == {
        ("State", name, "chan", False) for name in ("link1", "link2", "link3", "null", "network")}
    assert found(layout.proctypes["client"].fields) == {
        ("P0", "sender", "pid", False), ("P0", "receiver", "pid", False),
        ("P0", "in", "chan", False), ("P0", "out", "chan", False)}
    assert found(layout.proctypes["mailer"].fields) == {
        ("P1", "sender", "pid", False), ("P1", "receiver", "pid", False),
        ("P1", "in", "chan", False), ("P1", "deliverbox", "chan", False)}
    for ctype in layout.channel_types.values():  # every channel carries { pid, pid }
        assert [f.holds for f in ctype.message] == [PID, PID]
    assert [c.name for c in layout.channels] == ["link1", "link2", "link3", "null", "network"]
    assert [layout.channel_types[c.struct].rendezvous for c in layout.channels] == [
        False, False, False, True, False]
    assert [(p.proctype, p.slot) for p in layout.processes] == [
        (":init:", 0), ("client", 1), ("client", 2), ("client", 3), ("mailer", 4)]


def test_corpus_loadbalancer(corpus, tmp_path):
    layout = corpus_layout(corpus, tmp_path, "loadbalancer.p")
    channels = ["load_balancer_in", "servers0", "servers1", "clients0", "clients1", "clients2",
                "clients3", "null"]
    assert found(layout.state_fields) == {("State", name, "chan", False) for name in channels}
    assert found(layout.proctypes["client"].fields) == {("P0", "in", "chan", False)}
    # msg, an mtype compared with constants only, is a scalar domain (symmetry/inference/)
    assert found(layout.proctypes["loadBalancer"].fields) == {("P1", "link", "chan", False),
                                                              ("P1", "msg", "scalar:msg", False)}
    assert found(layout.proctypes["server"].fields) == {
        ("P2", "in", "chan", False), ("P2", "current_client", "chan", False)}
    messages = {c.name: [str(f.holds) for f in layout.channel_types[c.struct].message]
                for c in layout.channels}
    assert messages == {name: ["scalar:msg", "chan"] if name in channels[:3] else ["data"]
                        for name in channels}
    assert [p.proctype for p in layout.processes] == [
        ":init:", "loadBalancer", "client", "client", "client", "client", "server", "server"]


def test_corpus_2s3cs(corpus, tmp_path):
    layout = corpus_layout(corpus, tmp_path, "2s3cs.p")
    links = ["database_link", "server0_link", "server1_link"]
    others = [f"clients{i}" for i in range(6)] + ["servers0", "servers1", "null"]
    assert found(layout.state_fields) == {("State", n, "chan", False) for n in links + others}
    assert found(layout.proctypes["client"].fields) == {
        ("P0", "in", "chan", False), ("P0", "link", "chan", False)}
    assert found(layout.proctypes["server"].fields) == {
        ("P1", n, "chan", False) for n in ("db_in", "c_link", "db_link", "current_client")}
    assert found(layout.proctypes["database"].fields) == {
        ("P2", "link", "chan", False), ("P2", "current_server", "chan", False)}
    messages = {c.name: [str(f.holds) for f in layout.channel_types[c.struct].message]
                for c in layout.channels}
    # the clients' and servers' message type: a scalar domain of the message fields (symmetry/inference/)
    assert messages == {**{n: ["data", "chan"] for n in links}, **{n: ["scalar:message"] for n in others}}
    assert [p.slot for p in layout.processes] == list(range(10))


# ------------------------------------------------------------------------------ pan itself
def report_code(layout: StateLayout) -> str:
    """A c_code block printing, through the layout's names only, each process's _pid and _t,
    each channel's _t and length, and every element of every field the layout names."""
    out = []

    def show(label: str, expression: str) -> None:
        out.append(f'printf("topspin: {label} %d\\n", (int) ({expression}));')

    for p in layout.processes:
        prefix = f"(({p.struct} *)pptr({p.slot}))->"
        show(f"pid{p.pid}._pid", prefix + "_pid")
        show(f"pid{p.pid}._t", prefix + "_t")
        for f in layout.proctypes[p.proctype].fields:
            for lvalue in clvalues.lvalues(f, prefix):
                show(f"pid{p.pid}.{lvalue[len(prefix):]}", lvalue)
    for f in layout.state_fields:
        for lvalue in clvalues.lvalues(f, "now."):
            show(lvalue, lvalue)
    for c in layout.channels:
        prefix = f"(({c.struct} *)qptr({c.id - 1}))->"
        show(f"chan{c.id}._t", prefix + "_t")
        show(f"chan{c.id}.Qlen", prefix + "Qlen")
        for f in layout.channel_types[c.struct].message:
            show(f"chan{c.id}.{clvalues.lvalue(f, '', [0])}", clvalues.lvalue(f, prefix, [0]))
    return "c_code { " + " ".join(out) + " };"


def test_pan_agrees_with_the_slots_and_channel_types(tmp_path):
    """Compile pan with a report written from the layout and run it: each process sits in
    slot pid + BASE with its proctype's _t, each channel id has its Qk's _t, and the fields
    named hold what the model put there."""
    layout = layout_of(tmp_path, RUNTIME)
    assert layout.base == 1
    model = tmp_path / "m.pml"
    model.write_text(RUNTIME.replace("/* REPORT */", report_code(layout)))
    reported = layout_at(model, tmp_path)
    assert found(all_fields(reported)) == found(all_fields(layout))  # c_code changes no struct
    tools = toolchain.find_toolchain()
    binary = toolchain.compile_pan(tools, ["-O0", "-DSAFETY"], tmp_path)
    output = toolchain.run_pan(binary, [], tmp_path).output
    reports = [line.split()[1:] for line in output.splitlines() if line.startswith("topspin: ")]
    assert reports, output
    runs: list[dict[str, int]] = [{}]
    for label, value in reports:  # pan may reach the report more than once (both orders)
        if label in runs[-1]:
            runs.append({})
        runs[-1][label] = int(value)
    hub = next(c for c in layout.channels if c.name == "hub")
    mine = {p.pid: p.channels[0] for p in layout.processes if p.proctype == "Worker"}
    assert set(mine) == {1, 2}
    for run in runs:
        for p in layout.processes:
            assert run[f"pid{p.pid}._pid"] == p.pid
            assert run[f"pid{p.pid}._t"] == layout.proctypes[p.proctype].number
        for c in layout.channels:
            assert run[f"chan{c.id}._t"] == layout.channel_types[c.struct].number
        first = run["now.first"]
        other = 3 - first
        assert first in mine
        assert run["now.tag.who"] == first and run["now.tag.via"] == mine[first]
        assert run["now.hub"] == hub.id
        for pid, channel in mine.items():
            assert run[f"pid{pid}.me"] == pid and run[f"pid{pid}.to"] == hub.id
            assert run[f"pid{pid}.mine"] == channel
        # the message still in hub is the other worker's (pid, channel)
        assert run[f"chan{hub.id}.Qlen"] == 1
        assert run[f"chan{hub.id}.contents[0].fld0"] == other
        assert run[f"chan{hub.id}.contents[0].fld1"] == mine[other]
    assert {run["now.first"] for run in runs} == {1, 2}
