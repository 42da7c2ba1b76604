"""Symmetry detection: group orders on the shared corpus, and the constructs that must shrink
the group (soundness) or that must still be found (generality)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from model_files import write

from topspin_py.errors import ModelError, UsageError
from topspin_py.promela import load_model
from topspin_py.symmetry.detect import detect, group_from_generators, group_report
from topspin_py.symmetry.kinds import GlobalSlot
from topspin_py.symmetry.userspec import read_group_file

# Orders required of detect (TopSPIN's published group sizes; the two SPIN examples are a swap
# of their two symmetric processes).
CORPUS_ORDERS = {
    "topspin/mutex5.p": 120,
    "topspin/peterson3.p": 6,
    "topspin/peterson4.p": 24,
    "topspin/petersonnoatomic/3.p": 6,
    "topspin/email3.p": 6,
    "topspin/email4.p": 24,
    "topspin/2s3cs.p": 72,
    # TopSPIN reports S4 x S2 (48): the servers' swap maps the balancer's two options
    # `len(servers0)<=len(servers1) -> servers0!msg,link` onto each other, and the balancer can
    # be stored between guard and send (the send blocks on a full queue).  The canonicaliser
    # keeps program counters, so the swap is not a symmetry of the state graph (the closure
    # and transition oracles find images that are not reachable): only the clients' S4 is.
    "topspin/loadbalancer.p": 24,
    "topspin/resall-5-5.p": 14400,
    "topspin/ring.p": 3,
    "spin-examples/peterson.pml": 2,
    "spin-examples/manna_pnueli.pml": 2,
}


@pytest.mark.parametrize("name", sorted(CORPUS_ORDERS))
def test_corpus_group_order(corpus, name):
    group = detect(load_model(corpus / name))
    assert group.order == CORPUS_ORDERS[name]
    assert group.largest


def test_structure_of_the_three_tiered_architecture(corpus):
    report = group_report(detect(load_model(corpus / "topspin/2s3cs.p")))
    assert report["structure"] == "S3 wr S2"
    report = group_report(detect(load_model(corpus / "topspin/resall-5-5.p")))
    assert report["structure"] == "S5 x S5"


def test_dynamic_process_creation_gives_the_trivial_group_and_says_where(corpus):
    group = detect(load_model(corpus / "spin-examples/leader.pml"))
    assert group.order == 1
    assert any("leader.pml:119" in reason for reason in group.reasons)



MUTEX = """\
    mtype = { idle, waiting, critical };
    mtype st[4] = idle;
    proctype user() {
        do
        :: st[_pid] == idle -> st[_pid] = waiting
        :: atomic { (st[_pid] == waiting && st[1] != critical && st[2] != critical
                     && st[3] != critical) -> st[_pid] = critical }
        :: st[_pid] == critical -> st[_pid] = idle
        od
    }
    init { atomic { run user(); run user(); run user() } }
    """


def test_full_symmetry_of_a_simple_mutex(tmp_path):
    assert detect(load_model(write(tmp_path, MUTEX))).order == 6


def test_a_claim_naming_a_process_fixes_it(tmp_path):
    model = MUTEX + "ltl p { [] (st[1] != critical) }\n"
    group = detect(load_model(write(tmp_path, model)))
    assert group.order == 2  # only the swap of pids 2 and 3 maps the formula to itself
    assert all(alpha.pid(1) == 1 for alpha in group.generators)


# The mutex above with its array indexed by `_pid - 1` (pids with an offset): element i belongs to pid
# i + 1, and the constant indices 0, 1, 2 name pids 1, 2, 3.
MUTEX_BY_LID = """\
    mtype = { idle, waiting, critical };
    mtype st[3] = idle;
    byte last = 255;
    proctype user() {
        do
        :: st[_pid - 1] == idle -> st[_pid - 1] = waiting
        :: atomic { (st[_pid - 1] == waiting && st[0] != critical && st[1] != critical
                     && st[2] != critical) -> st[_pid - 1] = critical; last = _pid - 1 }
        :: st[_pid - 1] == critical -> st[_pid - 1] = idle
        od
    }
    init { atomic { run user(); run user(); run user() } }
    """


def test_an_array_indexed_with_an_offset_keeps_the_symmetry(tmp_path):
    from topspin_py.symmetry.inference import infer_types

    model = load_model(write(tmp_path, MUTEX_BY_LID))
    types = infer_types(model)
    assert types.index_offset(GlobalSlot("st")) == 1
    assert types.offset(GlobalSlot("last")) == 1
    assert not types.taints
    assert detect(model).order == 6


def test_a_claim_naming_a_local_id_fixes_its_process(tmp_path):
    # st[0] is the state of pid 1: only pids 2 and 3 may swap.  `last != 255` names nobody.
    model = MUTEX_BY_LID + "ltl p { [] (st[0] != critical || last != 255) }\n"
    group = detect(load_model(write(tmp_path, model)))
    assert group.order == 2
    assert all(alpha.pid(1) == 1 for alpha in group.generators)


def test_a_local_id_in_arithmetic_drops_the_symmetry(tmp_path):
    path = write(tmp_path, MUTEX_BY_LID.replace("last = _pid - 1 }", "last = _pid - 1; last = last + 1 }"))
    group = detect(load_model(path))
    assert group.order == 1
    assert any("last" in reason and "arithmetic" in reason for reason in group.reasons)


def test_a_pid_used_in_arithmetic_drops_the_symmetry(tmp_path):
    path = write(tmp_path, MUTEX.replace("proctype user() {", "proctype user() {\n    pid next = _pid;\n    next++;"))
    group = detect(load_model(path))
    assert group.order == 1
    assert any(f"{path}:5" in reason and "next" in reason and "++" in reason for reason in group.reasons)


def test_terminating_processes_are_not_permuted(tmp_path):
    path = write(tmp_path, """\
        byte count;
        proctype worker() { count++ }
        init { atomic { run worker(); run worker() } }
        """)
    group = detect(load_model(path))
    assert group.order == 1
    assert any("terminate" in r.reason for _, r in group.rejected)


def test_rotation_of_a_ring_written_with_pid_arithmetic(tmp_path):
    # (_pid + 1) % 4 commutes with the rotations of the ring, not with its reflections or other
    # permutations: the valid group is the cyclic group of order 4, found below the diagram's S4.
    path = write(tmp_path, """\
        #define N 4
        byte tok[N] = 1;
        active [N] proctype node() {
            do
            :: atomic { tok[_pid] > 0 -> tok[_pid]--; tok[(_pid + 1) % N]++ }
            od
        }
        """)
    group = detect(load_model(path))
    assert group.order == 4
    assert group_report(group)["structure"] == "C4"


def test_two_process_swap_written_with_one_minus_pid(corpus):
    group = detect(load_model(corpus / "spin-examples/peterson.pml"))
    (alpha,) = group.generators
    assert alpha.pids == ((0, 1), (1, 0))


def test_pid_zero_is_not_moved_when_a_local_holds_pids(tmp_path):
    # SPIN resets dead locals to 0, which is also the pid of the first active process.
    path = write(tmp_path, """\
        pid last;
        active [3] proctype p() {
            pid seen;
            do
            :: seen = last; last = _pid; seen != _pid
            od
        }
        """)
    group = detect(load_model(path))
    assert group.order == 2
    assert all(alpha.pid(0) == 0 for alpha in group.generators)


def test_user_generators_are_validated(corpus, tmp_path):
    model = load_model(corpus / "topspin/resall-5-5.p")
    good = tmp_path / "good.grp"
    good.write_text("# the first two clients, with their links\n(1 2)(link1 link2)\n")
    assert group_from_generators(model, read_group_file(good)).order == 2
    bad = tmp_path / "bad.grp"
    bad.write_text("(1 6)(link1 link6)\n")  # clients 1 and 6 have different priorities
    with pytest.raises(ModelError) as info:
        group_from_generators(model, read_group_file(bad))
    assert info.value.pos is not None
    assert info.value.pos.line == 1
    unknown = tmp_path / "unknown.grp"
    unknown.write_text("(1 99)\n")
    with pytest.raises(UsageError):
        group_from_generators(model, read_group_file(unknown))


def test_detect_cli_json(corpus):
    proc = subprocess.run([sys.executable, "-m", "topspin_py.cli", "detect", "--json",
                           str(corpus / "topspin/email3.p")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["order"] == 6
    assert report["structure"] == "S3"
    assert set(report) >= {"order", "generators", "orbits", "structure", "rejected"}


def test_processes_run_with_different_priorities_are_not_swapped(tmp_path):
    path = write(tmp_path, MUTEX.replace("run user(); run user(); run user()",
                                         "run user() priority 2; run user(); run user()"))
    group = detect(load_model(path))
    assert group.order == 2
    assert all(alpha.pid(1) == 1 for alpha in group.generators)


def test_a_pid_truncated_by_a_narrow_variable_is_not_moved(tmp_path):
    # `turn` is a bool: pid 2 stored in it becomes 0, so pid 2 cannot trade places with pid 1.
    path = write(tmp_path, """\
        bool turn;
        proctype p() { do :: turn = _pid :: turn == _pid -> skip od }
        init { atomic { run p(); run p() } }
        """)
    group = detect(load_model(path))
    assert group.order == 1
    assert any("'turn'" in r.reason and "stores pid 2 as 0" in r.reason for _, r in group.left_out)


def test_sorted_sends_of_pids_are_not_permuted(tmp_path):
    path = write(tmp_path, """\
        chan q = [4] of { pid };
        proctype p() { do :: q!!_pid :: q?_ od }
        init { atomic { run p(); run p() } }
        """)
    group = detect(load_model(path))
    assert group.order == 1
    assert any("sorted send" in r.reason for _, r in group.rejected)


def test_lookalike_processes_that_are_not_permuted_are_explained(tmp_path):
    # A and B differ in a constant that is no function of their pids (1 and 2) that
    # promela/copies.py understands (x[2] in A, x[0] in B: neither pid + c nor (pid + c) % 2),
    # so they stay two proctypes.
    path = write(tmp_path, """\
        byte x[3];
        proctype A() { do :: x[2] = 1; x[2] = 0 od }
        proctype B() { do :: x[0] = 1; x[0] = 0 od }
        proctype C(byte id) { do :: x[id] = 1 od }
        init { atomic { run A(); run B(); run C(0); run C(1) } }
        """)
    group = detect(load_model(path))
    assert group.order == 1
    assert any(f"{path}:2" in r and "'A', 'B' are copies" in r for r in group.reasons)
    # C's id is its pid - 3 (a parameter that acts as an id moves with the pids):
    # the swap of the two C is explained where the text breaks it (B names x[0], the element
    # of C:3; and before that, SPIN could reset a dead id to 0, which names pid 3).
    assert any(alpha.pid(3) == 4 and r.pos is not None for alpha, r in group.left_out)
    # Given in the other order, the ids are no pid shifted by one constant: data, and said so.
    path = write(tmp_path, path.read_text().replace("run C(0); run C(1)", "run C(1); run C(0)"), "swapped.pml")
    group = detect(load_model(path))
    assert group.order == 1
    assert any(f"{path}:5" in r and "'id'" in r for r in group.reasons)


def test_lookalike_copies_whose_constants_are_their_ids_become_one_proctype(tmp_path):
    # The same A and B with x[0] in A (pid 1) and x[1] in B (pid 2): promela/copies.py merges
    # them into one proctype writing x[_pid - 1]; C's data parameter still keeps the group
    # trivial, and says so.
    path = write(tmp_path, """\
        byte x[2];
        proctype A() { do :: x[0] = 1; x[0] = 0 od }
        proctype B() { do :: x[1] = 1; x[1] = 0 od }
        proctype C(byte id) { do :: x[id] = 1 od }
        init { atomic { run A(); run B(); run C(0); run C(1) } }
        """)
    model = load_model(path)
    assert model.copies is not None
    assert [f.members for f in model.copies.families] == [("A", "B")]
    group = detect(model)
    assert group.order == 1
    assert any(f"{path}:5" in r and "'id'" in r for r in group.reasons)


# Table 2 of [DM08]: every configuration, generated by tests/support/families.py, must give the
# table's |G| (the exact values; see families.TABLE2 for the two misprints of the table).
import families  # noqa: E402


@pytest.mark.parametrize("config", families.TABLE2, ids=lambda c: c.label)
def test_table2_group_order(config, tmp_path):
    path = tmp_path / "model.pml"
    path.write_text(config.source())
    assert detect(load_model(path)).order == config.g


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_hypercube_geometric_group_where_the_program_allows_it(m, tmp_path):
    # Routing written in neighbours (families.hypercube_by_neighbour): every symmetry of the
    # m-cube, 2^m translations times m! dimension permutations, is valid.  Its soundness is
    # checked by the orbit and closure oracles (tests/oracles/test_oracles.py, m = 3).
    path = tmp_path / f"cube{m}.pml"
    path.write_text(families.hypercube_by_neighbour(m))
    group = detect(load_model(path))
    assert group.order == 2 ** m * math.factorial(m)
    assert group.largest and not group.rejected


@pytest.mark.parametrize("m", [2, 3])
def test_hypercube_with_dimension_numbers_keeps_the_translations(m, tmp_path):
    # families.hypercube (Table 2's model): a dimension swap would also have to permute the
    # values of chosen_dimension and the parameters out0.., which is not a permutation of pids
    # and channels.  The diagram's `param:outD` labels already keep dimensions apart, so only
    # the 2^m translations come out of nauty, all valid.
    path = tmp_path / f"cube{m}.pml"
    path.write_text(families.hypercube(m))
    group = detect(load_model(path))
    assert group.order == 2 ** m


def test_parsing_and_detection_leave_no_reference_cycles(corpus, tmp_path):
    # They run with the cyclic garbage collector paused (topspin_py/gcpause.py), which is
    # free only as long as what they drop is freed by reference counting alone.
    import gc

    path = tmp_path / "model.pml"
    path.write_text(families.hypercube(3))
    for model_path in (path, corpus / "topspin" / "email3.p"):
        detect(load_model(model_path))  # first use: the parser's tables, nauty, sympy
        gc.collect()
        gc.disable()
        try:
            model = load_model(model_path)
            assert gc.collect() == 0
            detect(model)
            assert gc.collect() == 0
        finally:
            gc.enable()
