"""init's loops with constant bounds, unrolled for numbering (promela/init_runs.py): the pids and
arguments the Model gives the processes they start are the ones pan gives them, and every form
that the text does not decide stays unnumbered, with the reason at its place."""

from __future__ import annotations

import re
import subprocess

import pytest
from conftest import MODELS
from model_files import pan_errors, write

from topspin_py.promela import load_model
from topspin_py.promela.model import INIT

# A P that blocks at its end, so that no pid is freed while init starts the others.
P = "proctype P(chan c; byte id) { end: false }\n"




LOOPS = {
    "for": """\
        #define N 3
        chan q[N] = [1] of { byte };
        PROCTYPE
        active proctype Q() { end: false }
        init { byte i; atomic { for (i : 0 .. N - 1) { run P(q[i], i + 4) } }; run P(q[0], i) }
        """,
    "do": """\
        #define N 3
        chan q[N] = [1] of { byte };
        PROCTYPE
        init { byte i = 1; byte k;
               do :: i <= N -> run P(q[i - 1], i); i++ :: else -> break od;
               k = i * 2;
               do :: k > 0 -> k = k - 2; run P(q[k % N], k) :: k == 0 -> break od }
        """,
    "leader-like": """\
        #define N 3
        byte I;
        byte Ini[N];
        chan q[N] = [1] of { byte };
        PROCTYPE
        init { byte proc;
               atomic { I = 1;
                        do :: I <= N -> if :: Ini[0] == 0 -> Ini[0] = I :: Ini[1] == 0 -> Ini[1] = I
                                           :: Ini[2] == 0 -> Ini[2] = I fi; I++
                           :: I > N -> break od;
                        proc = 1;
                        do :: proc <= N -> run P(q[proc % N], proc - 1); proc++
                           :: proc > N -> break od } }
        """,
}


@pytest.mark.parametrize("form", sorted(LOOPS))
def test_unrolled_loops_number_processes_as_pan_does(tmp_path, form):
    source = LOOPS[form]
    model = load_model(write(tmp_path, source.replace("PROCTYPE", P)))
    assert not model.dynamic_runs
    started = [p for p in model.processes if p.proctype == "P"]
    expected = {"for": [(q, 4 + q) for q in range(3)] + [(0, 3)],
                "do": [(0, 1), (1, 2), (2, 3), (6 % 3, 6), (4 % 3, 4), (2 % 3, 2), (0, 0)],
                "leader-like": [(1, 0), (2, 1), (0, 2)]}[form]
    # The arguments as the Model holds them: the channel q[k] and the constant id.
    assert [(p.args[0].index.value, p.args[1].value) for p in started] == expected
    assert all(p.args[0].name == "q" for p in started)
    chan = {c.name: c.id for c in model.channels}
    check = " || ".join(f"(_pid == {p.pid} && c == {chan[f'q[{p.args[0].index.value}]']} && id == {p.args[1].value})"
                        for p in started)
    checked = source.replace("PROCTYPE", P.replace("end: false", f"assert({check}); end: false"))
    assert pan_errors(tmp_path, write(tmp_path, checked, "checked.pml")) == 0
    # The check can fail: a numbering one off is caught by pan.
    wrong = check.replace(f"_pid == {started[-1].pid} ", f"_pid == {started[-1].pid + 1} ")
    off = source.replace("PROCTYPE", P.replace("end: false", f"assert({wrong}); end: false"))
    assert pan_errors(tmp_path, write(tmp_path, off, "wrong.pml")) == 1


UNDECIDED = {
    # the loop's body writes the counter: for (i : 0 .. 2) runs twice, not three times
    "counter written": ("init { byte i; for (i : 0 .. 2) { run P(q, i); i++ } }",
                        "the loop's body writes its counter 'i'"),
    # another process could change a global counter between two runs
    "global counter": ("byte g; init { for (g : 0 .. 2) { run P(q, g) } }",
                       "its counter is not a scalar local variable of init"),
    # both options are open when i is 2
    "overlapping options": ("init { byte i; do :: i < 3 -> run P(q, i); i++ :: i > 1 -> break od }",
                            "more than one option of the loop can be taken"),
    # how much the counter grows depends on a global
    "branch in the body": ("byte x; init { byte i; do :: i < 3 -> run P(q, i); "
                           "if :: x -> i++ :: else -> i = i + 2 fi :: else -> break od }",
                           "the body of the loop around it branches here"),
    # u cannot hold 4: spin's loop never ends
    "counter wraps": ("init { unsigned u : 2; for (u : 0 .. 3) { run P(q, u) } }",
                      "its counter 'u' cannot hold the value after the last one"),
    "unknown bound": ("byte n = 3; init { byte i; do :: i < n -> run P(q, i); i++ :: else -> break od }",
                      "the condition '(i < n)' is not decided"),
    "goto back": ("init { byte i; L: run P(q, i); i++; if :: i < 3 -> goto L :: else fi }",
                  "'goto L' can go back to before runs"),
    "if with runs": ("byte x; init { if :: x -> run P(q, 0) :: else -> skip fi }",
                     "which option of this 'if' is taken is not decided"),
    # T may end before the first P starts, and the P then get pids 1 and 2, not 2 and 3
    "a process that ends first": ("proctype T() { skip }\n"
                                  "init { byte i; run T(); for (i : 0 .. 1) { run P(q, i) } }",
                                  "a 'T' started here can terminate before the run"),
    # likewise once init leaves the atomic sequence, or blocks inside it
    "blocking in atomic": ("proctype T() { skip }\nbyte x;\n"
                           "init { byte i; atomic { run T(); x == 0; for (i : 0 .. 1) { run P(q, i) } } }",
                           "a 'T' started here can terminate before the run"),
}


@pytest.mark.parametrize("case", sorted(UNDECIDED))
def test_loops_the_text_does_not_decide_stay_unnumbered(tmp_path, case):
    text, why = UNDECIDED[case]
    model = load_model(write(tmp_path, "chan q = [1] of { byte };\n" + P + text))
    assert model.dynamic_runs
    assert [p.proctype for p in model.processes] in ([INIT], [INIT, "T"])  # no P numbered
    reason = model.unnumbered_why[id(model.dynamic_runs[0])]
    assert why in reason
    assert re.match(r".*m\.pml:\d+:\d+: ", reason)


def test_a_process_that_can_end_is_followed_by_runs_only_inside_one_atomic_sequence(tmp_path):
    # init stays inside its atomic sequence through the runs (a run does not block), so T
    # cannot end before the P start: P get pids 2..4, as pan's assertion confirms.
    source = """\
        proctype T() { skip }
        proctype P(byte id) { assert(_pid == id + 2); end: false }
        init { byte i; atomic { run T(); for (i : 0 .. 2) { run P(i) } } }
        """
    model = load_model(write(tmp_path, source))
    assert not model.dynamic_runs
    assert [(p.pid, p.proctype) for p in model.processes] == [(0, INIT), (1, "T"), (2, "P"), (3, "P"), (4, "P")]
    assert pan_errors(tmp_path, write(tmp_path, source, "checked.pml")) == 0
    # Outside the atomic sequence, T can end first and hand its pid to the first P: pan finds
    # the assertion violated, and the numbering gives up there.
    loose = source.replace("atomic { run T(); for (i : 0 .. 2) { run P(i) } }",
                           "run T(); for (i : 0 .. 2) { run P(i) }")
    assert pan_errors(tmp_path, write(tmp_path, loose, "loose.pml")) == 1
    model = load_model(write(tmp_path, loose, "loose.pml"))
    assert model.dynamic_runs and [p.proctype for p in model.processes] == [INIT, "T"]


def test_unnumbered_reason_reaches_detection(tmp_path):
    from topspin_py.symmetry.detect import detect

    model = load_model(write(tmp_path, "chan q = [1] of { byte };\n" + P + UNDECIDED["counter written"][0]))
    group = detect(model)
    assert group.order == 1
    assert any("cannot be numbered before the search" in r and "writes its counter 'i'" in r
               for r in group.reasons)


# ------------------------------------------------------------------------ parameters as ids
IDS = """\
    #define N 3
    bool want[N];
    proctype P(byte id; byte other) { end: do :: USE od }
    init { byte i; atomic { for (i : 0 .. N - 1) { run P(i, 7) } } }
    """


@pytest.mark.parametrize("use,offset", [
    ("want[id] = true; want[id] = false", 1),   # an index: id is pid - 1
    ("want[0] = (id == 2)", 1),                 # compared with a constant: still an id (renamed)
    ("want[(id + 1) % N] = true", None),        # arithmetic: not an id, left as data
    ("want[id] = (id < 2)", None),              # an ordering: likewise
    ("id = 0", None),                           # written: not an id
])
def test_a_parameter_that_gets_the_pid_shifted_by_a_constant_holds_pids(tmp_path, use, offset):
    from topspin_py.symmetry.inference import infer_types
    from topspin_py.symmetry.kinds import PID, LocalSlot

    model = load_model(write(tmp_path, IDS.replace("USE", use)))
    types = infer_types(model)
    slot = LocalSlot("P", "id")
    if offset is None:
        assert slot not in types.id_parameters and types.kind(slot) != PID
        assert not types.taints  # (the id left as data taints nothing)
    else:
        assert types.id_parameters[slot] == offset
        assert types.kind(slot) == PID and types.offset(slot) == offset
    # every P gets 7: no id
    assert LocalSlot("P", "other") not in types.id_parameters


def test_which_locals_pan_resets_decides_whether_pid_k_may_move(tmp_path):
    """An id with offset K reset to 0 where it is dead would name pid K whatever the
    permutation: pid K stays put when the pan spin wrote resets the id, and only then."""
    from topspin_py.pan import loading
    from topspin_py.symmetry.detect import detect

    models = MODELS
    source = (models / "ids_dead.pml").read_text()
    # The id read once, in a condition, and the loop written with `_pid - 1` instead (the same
    # values): spin resets the id after its last read.
    id_dead = source.replace("busy[id]", "busy[_pid - 1]").replace("go;\nend:", "go;\n\tbusy[id] == false;\nend:")
    assert "busy[id] == false" in id_dead
    for name, text, resets, order in (("kept.pml", source, {("Worker", "go")}, 6),
                                      ("reset.pml", id_dead, {("Worker", "go"), ("Worker", "id")}, 2)):
        workdir = tmp_path / name.removesuffix(".pml")
        workdir.mkdir()
        path = write(workdir, text, name)
        subprocess.run(["spin", "-a", name], cwd=workdir, check=True, capture_output=True)
        model = loading.as_checked_by(load_model(path), workdir)
        assert model.dead_resets == frozenset(resets)
        group = detect(model)
        assert group.order == order
        if order == 2:
            assert all(alpha.pid(1) == 1 for alpha in group.generators)
