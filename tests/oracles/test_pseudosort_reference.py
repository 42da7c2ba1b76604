"""The pseudo-sort reference (tests/support/pseudosort_reference.py) against the examples
that Derepas and Gastin [DG01] work through themselves.

Every expected vector below is copied from the seed text (/work/shared/seeds/003_*.txt,
sections 4.1 and 4.2, paper encoding: references 1-based, 0 = undefined) or derived by hand
from it, as the comments say; none comes from running the reference.
"""

from __future__ import annotations

import itertools

import pseudosort_reference as R
import pytest

# Section 4.1: active [3] proctype A { ref A r; public byte v; }, tuples (r, v, _state).
A = R.Schema((R.ProcType("A", 3, {0: "A"}),))
NON_SORTABLE = R.make_state(A, [[(3, 1, 1), (0, 3, 4), (1, 2, 1)]])

# Section 4.2: 3 clients and 3 servers, each with a reference to the other type and a public
# byte v; tuples (r, v, _state) ("ref first") or (v, r, _state) ("ref last").
REF_FIRST = R.Schema((R.ProcType("Client", 3, {0: "Server"}), R.ProcType("Server", 3, {0: "Client"})))
REF_LAST = R.Schema((R.ProcType("Client", 3, {1: "Server"}), R.ProcType("Server", 3, {1: "Client"})))
FIG4 = R.make_state(REF_FIRST, [[(2, 1, 2), (3, 2, 3), (1, 3, 4)], [(3, 4, 3), (1, 5, 2), (2, 6, 1)]])
FIG4_REF_LAST = R.make_state(REF_LAST, [[(1, 2, 2), (2, 3, 3), (3, 1, 4)], [(4, 3, 3), (5, 1, 2), (6, 2, 1)]])


def test_paper_exchanges_of_section_4_1():
    # "Swapping the first two processes gives the state 0,3,4|3,1,1|2,2,1 ... Now swapping the
    # last two processes yields the state 0,3,4|3,2,1|2,1,1".
    first = R.exchange(A, NON_SORTABLE, 0, 0, 1, R.PAPER)
    assert first.procs == (((0, 3, 4), (3, 1, 1), (2, 2, 1)),)
    assert R.exchange(A, first, 0, 1, 2, R.PAPER).procs == (((0, 3, 4), (3, 2, 1), (2, 1, 1)),)


def test_no_permutation_of_section_4_1_is_sorted():
    # "Therefore no permutations of the processes yield a sorted state vector."  By hand: a
    # sorted image needs the undefined reference (0) first, i.e. old process 2 at position 1;
    # the two images that put it there are 0,3,4|3,1,1|2,2,1 and 0,3,4|3,2,1|2,1,1, and in
    # both the second tuple (3,...) exceeds the third (2,...).
    images = R.orbit(A, NON_SORTABLE, R.PAPER)
    assert len({im.flat() for im in images}) == 6
    assert not any(R.is_sorted(im) for im in images)


def test_orbit_minimum_of_section_4_1():
    # The least image starts with 0 (the only undefined ref), then 3 (tuple 2 refs tuple 3
    # whatever the order); of the two images starting 0,3,4|3, the one with v = 1 next wins.
    assert R.orbit_minimum(A, NON_SORTABLE, R.PAPER).procs == (((0, 3, 4), (3, 1, 1), (2, 2, 1)),)


@pytest.mark.parametrize("algorithm", sorted(R.SORTS))
def test_pseudo_sort_terminates_on_the_non_sortable_state(algorithm: str):
    # Whatever the sort, the result is one of the images with 0 first (each sort puts the least
    # first tuple value first on its first pass), and it is not sorted (none is).
    result = R.pseudo_sort(A, NON_SORTABLE, R.PAPER, algorithm)
    assert result.procs in ((((0, 3, 4), (3, 1, 1), (2, 2, 1)),), (((0, 3, 4), (3, 2, 1), (2, 1, 1)),))
    assert not R.is_sorted(result)


def test_result_depends_on_the_sort():
    # Hand trace.  insertion: i=1: (0,3,4) < (3,1,1) -> exch 0,1 -> 0,3,4|3,1,1|2,2,1; i=2:
    # (3,1,1) > (2,2,1) -> exch 1,2 -> 0,3,4|3,2,1|2,1,1; (0,3,4) <= (3,2,1) stop.
    # bubble: pass 1: exch 0,1 -> 0,3,4|3,1,1|2,2,1, exch 1,2 -> 0,3,4|3,2,1|2,1,1; pass 2: j=0
    # fine, j=1: (3,2,1) > (2,1,1) -> exch 1,2 -> 0,3,4|3,1,1|2,2,1 (the renaming undoes it).
    assert R.pseudo_sort(A, NON_SORTABLE, R.PAPER, "insertion").procs == (((0, 3, 4), (3, 2, 1), (2, 1, 1)),)
    assert R.pseudo_sort(A, NON_SORTABLE, R.PAPER, "bubble").procs == (((0, 3, 4), (3, 1, 1), (2, 2, 1)),)
    # quicksort (Lomuto, pivot at 2 = (1,2,1)): j=0: (3,1,1) > pivot; j=1: (0,3,4) <= pivot ->
    # exch 0,1 -> 0,3,4|3,1,1|2,2,1 (i=1); pivot to 1: exch 1,2 -> 0,3,4|3,2,1|2,1,1.
    assert R.pseudo_sort(A, NON_SORTABLE, R.PAPER, "quicksort").procs == (((0, 3, 4), (3, 2, 1), (2, 1, 1)),)


@pytest.mark.parametrize("algorithm", sorted(R.SORTS))
def test_fig4_clients_and_servers_sort_to_the_simple_configuration(algorithm: str):
    # "Applying the sorting algorithm on the clients gives the state vector
    # 1,3,4|2,1,2|3,2,3||1,4,3|2,5,2|3,6,1 ... Now the state vector is also sorted according to
    # the server tuples."  Clients hold no client refs, so every sort gives the same clients.
    result = R.pseudo_sort(REF_FIRST, FIG4, R.PAPER, algorithm)
    assert result.procs == (((1, 3, 4), (2, 1, 2), (3, 2, 3)), ((1, 4, 3), (2, 5, 2), (3, 6, 1)))
    assert R.is_sorted(result)


@pytest.mark.parametrize("algorithm", sorted(R.SORTS))
def test_fig4_with_v_declared_first_is_already_sorted(algorithm: str):
    # "Then the state vector associated with the same configuration is
    # 1,2,2|2,3,3|3,1,4||4,3,3|5,1,2|6,2,1.  Since this vector is already sorted, no reduction
    # will occur."  It is the Fig. 4 state with each tuple's first two values swapped.
    assert [[(v, r, st) for r, v, st in tuples] for tuples in FIG4.procs] == [
        list(tuples) for tuples in FIG4_REF_LAST.procs]
    assert R.is_sorted(FIG4_REF_LAST)
    assert R.pseudo_sort(REF_LAST, FIG4_REF_LAST, R.PAPER, algorithm) == FIG4_REF_LAST


def test_proctypes_are_sorted_in_declaration_order():
    # Sorting the servers first instead: servers 3,4,3|1,5,2|2,6,1 sort to 1,5,2|2,6,1|3,4,3
    # (old server 2 -> 1, 3 -> 2, 1 -> 3), so client refs 2,3,1 become 1,2,3: clients
    # 1,1,2|2,2,3|3,3,4, already sorted.  Another representative than Fig. 4's.
    result = R.pseudo_sort(REF_FIRST, FIG4, R.PAPER, types=["Server", "Client"])
    assert result.procs == (((1, 1, 2), (2, 2, 3), (3, 3, 4)), ((1, 5, 2), (2, 6, 1), (3, 4, 3)))


def test_encodings_convert_both_ways():
    # Paper 1-based with 0 undefined <-> product 0-based lids with 255 undefined; only
    # reference positions change (v and _state are not references).
    product = R.convert(A, NON_SORTABLE, R.PAPER, R.PRODUCT)
    assert product.procs == (((2, 1, 1), (255, 3, 4), (0, 2, 1)),)
    assert R.convert(A, product, R.PRODUCT, R.PAPER) == NON_SORTABLE


def test_the_encoding_changes_the_order():
    # In the product's encoding the undefined reference (255) is the greatest value, so the
    # tuple with it sorts last, not first: 2,1,1 | 255,3,4 | 0,2,1 by insertion: i=1 fine
    # (2 < 255); i=2: 255 > 0 -> exch 1,2: tuples 2,1,1 | 0,2,1 | 255,3,4, refs 1<->2:
    # 1,1,1 | 0,2,1 | 255,3,4; then 1,1,1 > 0,2,1 -> exch 0,1: 0,2,1 | 1,1,1 | 255,3,4, refs
    # 0<->1: 1,2,1 | 0,1,1 | 255,3,4.
    product = R.convert(A, NON_SORTABLE, R.PAPER, R.PRODUCT)
    assert R.pseudo_sort(A, product, R.PRODUCT, "insertion").procs == (((1, 2, 1), (0, 1, 1), (255, 3, 4)),)


def test_action_is_a_group_action_and_exchange_is_a_transposition():
    # apply(apply(s, p), q) == apply(s, q o p), and Exch(k, l) is apply with the transposition.
    s = FIG4
    p = ((1, 2, 0), (2, 0, 1))
    q = ((0, 2, 1), (1, 0, 2))
    qp = tuple(tuple(qt[pt[k]] for k in range(3)) for pt, qt in zip(p, q))
    assert R.apply(REF_FIRST, R.apply(REF_FIRST, s, p, R.PAPER), q, R.PAPER) == R.apply(REF_FIRST, s, qp, R.PAPER)
    assert R.exchange(REF_FIRST, s, 1, 0, 2, R.PAPER) == R.apply(REF_FIRST, s, ((0, 1, 2), (2, 1, 0)), R.PAPER)


def test_global_references_are_renamed_and_undefined_is_kept():
    # A global tuple (a message field referencing A, then a non-reference): exchanging A's
    # instances 1 and 3 (positions 0 and 2) renames 1 -> 3; 0 (undefined) stays.
    schema = R.Schema(A.types, {0: "A"})
    s = R.make_state(schema, NON_SORTABLE.procs, (1, 1))
    assert R.exchange(schema, s, 0, 0, 2, R.PAPER).globals == (3, 1)
    s0 = R.make_state(schema, NON_SORTABLE.procs, (0, 1))
    assert R.exchange(schema, s0, 0, 0, 2, R.PAPER).globals == (0, 1)


def test_schema_rejects_nonsense():
    with pytest.raises(ValueError):
        R.Schema((R.ProcType("A", 2, {0: "B"}),))
    with pytest.raises(ValueError):
        R.Schema((R.ProcType("A", 2, {2: "A"}),))
    with pytest.raises(ValueError):
        R.make_state(A, [[(1, 2)]])


@pytest.mark.parametrize("algorithm", sorted(R.SORTS))
def test_pseudo_sort_stays_in_the_orbit_and_fixes_sorted_states(algorithm: str):
    # Every state of a small client/server schema (2 + 2 processes, tuples (ref, v), refs
    # 0-based or 255): the result is an image of the state (only exchanges are applied), and a
    # state already sorted on every proctype is left alone (each sort exchanges only tuples
    # out of order: by hand from the four loops).
    schema = R.Schema((R.ProcType("C", 2, {0: "S"}), R.ProcType("S", 2, {0: "C"})))
    values = [(r, v) for r in (0, 1, 255) for v in (0, 1)]
    for c0, c1, s0, s1 in itertools.product(values, repeat=4):
        state = R.make_state(schema, [[c0, c1], [s0, s1]])
        result = R.pseudo_sort(schema, state, R.PRODUCT, algorithm)
        assert result in R.orbit(schema, state, R.PRODUCT)
        if R.is_sorted(state):
            assert result == state
