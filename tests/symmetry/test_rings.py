"""Rings and arithmetic on ids: successors ``(_pid + 1) % N`` with or without a pid
offset, locals that copy an expression of ``_pid`` (``1 - i``), and loops that walk every id
inside a d_step.  The expected groups come from the reasoning in each test's comment; the
models of tests/models/ring_*.pml, pair_copies.pml and loop_all_ids.pml check the reduced
counts against the orbit oracle, and tests/models/soundness/ the errors."""

from __future__ import annotations

from pathlib import Path

from model_files import write

from topspin_py.promela import load_model
from topspin_py.symmetry.detect import detect, group_report
from topspin_py.symmetry.inference import infer_types
from topspin_py.symmetry.validity import Alpha, Checker

PHILOSOPHERS = """\
    #define N {n}
    bool fork[N];
    active [N] proctype phil() {{
    end: do
        :: atomic {{ !fork[_pid] -> fork[_pid] = true }};
           atomic {{ !fork[(_pid + 1) % N] -> fork[(_pid + 1) % N] = true }};
           fork[(_pid + 1) % N] = false;
           fork[_pid] = false
        od
    }}
    """


def checker_of(path: Path) -> Checker:
    model = load_model(path)
    return Checker(model, infer_types(model))


def test_a_rotation_of_the_ring_is_valid_and_a_reflection_is_not(tmp_path):
    # alpha((p + 1) % 5) = (alpha(p) + 1) % 5 for every p holds for p -> p + 2, not for the
    # reflection p -> -p (it takes each right neighbour to the left one) nor for a swap.
    checker = checker_of(write(tmp_path, PHILOSOPHERS.format(n=5)))
    rotation = Alpha.of({p: (p + 2) % 5 for p in range(5)}, {})
    reflection = Alpha.of({p: (-p) % 5 for p in range(5)}, {})
    swap = Alpha.of({1: 2, 2: 1}, {})
    assert checker.check(rotation) is None
    assert checker.check(reflection) is not None
    rejection = checker.check(swap)
    assert rejection is not None and "(_pid + 1) % 5" in rejection.reason


def test_a_large_ring_is_found_without_a_search(tmp_path):
    # Before, the diagram proposed S_12 and the search for its valid subgroup stopped after
    # 10 s with the trivial group.  The successor is now drawn in the diagram, nauty proposes
    # the rotations, and every candidate is valid: no candidate is rejected, so no search.
    group = detect(load_model(write(tmp_path, PHILOSOPHERS.format(n=12))))
    assert group.order == 12
    assert group_report(group)["structure"] == "C12"
    assert group.largest and not group.rejected
    assert not any("stopped" in reason for reason in group.reasons)


def test_a_ring_after_another_process_with_the_offset_written_out(tmp_path):
    # The monitor is pid 0, the nodes pids 1 .. 4; the successor of pid p is (p - 1 + 1) % 4
    # + 1: the four rotations of pids 1 .. 4, the monitor fixed.
    path = write(tmp_path, """\
        #define N 4
        #define K 1
        pid holder = 255;
        active proctype monitor() { end: holder == 0 }
        active [N] proctype node() {
        end: do
            :: atomic { holder == 255 -> holder = _pid }
            :: atomic { holder == _pid -> holder = (_pid - K + 1) % N + K }
            od
        }
        """)
    group = detect(load_model(path))
    assert group.order == 4
    assert [sorted(orbit) for orbit in group.orbits()] == [["node:1", "node:2", "node:3", "node:4"]]


def test_a_process_that_stays_must_still_name_the_image_of_what_it_names(tmp_path):
    # x names pid 1 for pid 0, and pids 1 and 2 themselves.  The swap of pids 1 and 2 keeps
    # pid 0, whose x must then name the image of pid 1, pid 2: the swap is not a symmetry
    # (the check used to skip the processes a permutation keeps).
    path = write(tmp_path, """\
        pid x[3];
        active [3] proctype P() {
        end: do
            :: x[_pid] = (_pid == 0) + (_pid != 0) * _pid
            od
        }
        """)
    rejection = checker_of(path).check(Alpha.of({1: 2, 2: 1}, {}))
    assert rejection is not None
    assert "names pid 1 for pid 0" in rejection.reason


PAIR = """\
    bool flag[2];
    pid turn;
    init {{ atomic {{ run user(); run user() }} }}
    proctype user() {{
        pid i = _pid;
        pid j = 3 - i;
    again:
        flag[i - 1] = true;
        turn = j;
        (flag[j - 1] == false || turn == i);
        flag[i - 1] = false;{extra}
        goto again
    }}
    """


def test_one_minus_a_copy_of_the_pid_is_the_other_process(tmp_path):
    # Users at pids 1 and 2 (init is pid 0): i is their pid, j = 3 - i the other's, and
    # neither is written again: the swap of the two users.
    group = detect(load_model(write(tmp_path, PAIR.format(extra=""))))
    assert group.order == 2


def test_a_copy_written_again_is_arithmetic_on_a_pid(tmp_path):
    # With `i = turn` somewhere, i no longer holds the process's own pid for ever: 3 - i is
    # arithmetic on a variable holding pids, which the analysis does not follow.
    group = detect(load_model(write(tmp_path, PAIR.format(extra="\n    i = turn;"))))
    assert group.order == 1
    assert any("local 'i'" in reason and "'-'" in reason for reason in group.reasons)


LOOP = """\
    #define N 3
    bool flag[N];
    pid last;
    byte n;
    active [N] proctype P() {{
        byte k;
        bool seen;
    end: do
        :: flag[_pid] = true;
           {open}
            k = 0;
            do
            :: k < N -> {body}; k++
            :: else -> break
            od;
            k = 0
           {close};
           seen = false;
           flag[_pid] = false
        od
    }}
    {claim}
    """


def loop_group(tmp_path, body: str, open_: str = "d_step {", close: str = "}", claim: str = ""):
    text = LOOP.format(open=open_, close=close, body=body, claim=claim)
    return detect(load_model(write(tmp_path, text)))


def test_a_loop_over_every_pid_in_a_d_step_keeps_the_symmetry(tmp_path):
    # `seen = true` when another flag is up: an idempotent update, the same for every order.
    group = loop_group(tmp_path, "if :: flag[k] && k != _pid -> seen = true :: else -> skip fi")
    assert group.order == 6


def test_a_loop_summing_over_every_pid_keeps_the_symmetry(tmp_path):
    group = loop_group(tmp_path, "if :: flag[k] -> n = n + 1 :: else -> skip fi")
    assert group.order == 6


def test_a_loop_outside_any_d_step_says_why(tmp_path):
    group = loop_group(tmp_path, "if :: flag[k] -> seen = true :: else -> skip fi", open_="", close="")
    assert group.order == 1
    assert any("loop counter" in r and "not inside a d_step" in r for r in group.reasons)


def test_a_loop_in_an_atomic_sequence_with_a_claim_says_why(tmp_path):
    # A claim steps after every statement of an atomic sequence: it could see the counter
    # naming a pid.
    group = loop_group(tmp_path, "if :: flag[k] -> seen = true :: else -> skip fi",
                       open_="atomic {", claim="ltl p { [] (n < 5) }")
    assert group.order == 1
    assert any("not inside a d_step" in r for r in group.reasons)


def test_a_loop_where_the_last_one_wins_says_why(tmp_path):
    # last = k keeps the last flag found: the highest pid, which depends on the order.
    group = loop_group(tmp_path, "if :: flag[k] -> last = k :: else -> skip fi")
    assert group.order == 1
    assert any("neither a constant nor a commutative update" in r for r in group.reasons)


def test_a_loop_updating_one_variable_in_two_ways_says_why(tmp_path):
    group = loop_group(tmp_path, "if :: flag[k] -> n = n + 1 :: else -> n = 0 fi")
    assert group.order == 1
    assert any("in two ways" in r for r in group.reasons)


def test_a_loop_reading_what_it_updates_says_why(tmp_path):
    group = loop_group(tmp_path, "if :: flag[k] && !seen -> seen = true; n = n + 1 :: else -> skip fi")
    assert group.order == 1
    assert any("reads 'seen'" in r for r in group.reasons)


def test_channels_that_no_permutation_may_move_are_not_proposed(tmp_path):
    # q is indexed by a data variable, so none of its 12 channels may move (validity rejects
    # any permutation that moves one).  The diagram colours each alone: nauty proposes the
    # swap of the two processes only, which is valid, instead of S_12 on the channels, whose
    # valid subgroup a search had to find (or give up on after 10 s).
    path = write(tmp_path, """\
        chan q[12] = [1] of { byte };
        byte k;
        active [2] proctype P() {
        end: do
            :: q[k]!1
            :: q[k]?_
            :: k = (k + 1) % 12
            od
        }
        """)
    group = detect(load_model(path))
    assert group.order == 2
    assert group.largest and not group.rejected


def test_a_loop_taking_the_largest_ticket_keeps_the_symmetry(tmp_path):
    # Bakery's maximum: `number[k] > n -> n = number[k]` (and the conditional-expression
    # form) give the largest ticket whatever the order of the walk.
    assert loop_group(tmp_path, "if :: flag[k] > n -> n = flag[k] :: else -> skip fi").order == 6
    assert loop_group(tmp_path, "n = (flag[k] > n -> flag[k] : n)").order == 6
    # An assignment of another value than the one compared is no maximum.
    group = loop_group(tmp_path, "if :: flag[k] > n -> n = flag[k] + 1 :: else -> skip fi")
    assert group.order == 1
    assert any("neither a constant nor a commutative update" in r for r in group.reasons)


def test_a_maximum_into_a_narrower_variable_says_why(tmp_path):
    # A short stored into a byte is truncated, and the largest of truncated values depends on
    # the order in which they come.  (wide is indexed by pid: each process sets its own.)
    text = LOOP.format(open="d_step {", close="}", claim="",
                       body="if :: wide[k] > n -> n = wide[k] :: else -> skip fi")
    text = text.replace("byte n;", "byte n;\nshort wide[N];")
    text = text.replace("flag[_pid] = true;", "flag[_pid] = true; wide[_pid] = 300;")
    group = detect(load_model(write(tmp_path, text)))
    assert group.order == 1
    assert any("maximum of 'wide[k]'" in r for r in group.reasons)
