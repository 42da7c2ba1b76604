"""Data symmetry: permutations of the values of a scalar domain, with the processes
and channels.

A class of data variables and message fields that only stores constants and its own values and
compares them with ``==``/``!=`` (and with a constant by order) is a scalar domain
(symmetry/inference/); its values are points of the group like pids and channels, renamed in the
text by symmetry/validity/ and in the states by the canonicaliser (templates/_apply.c.j2) and by the
oracles (tests/support/statespace.py).  A hypercube whose routing table names dimensions (the model of
[DM08] Table 2) gets the geometric group 2^m m! where the program lets the dimensions be permuted: a
dimension swap renames the values of ``chosen`` and the parameters ``out1`` .. ``outm``
together (validity.param_permutation, slot constants).  ``/* topspin: scalarset dim */``
declares an mtype subtype a scalarset (promela/pragmas.py).

The expected groups come from the reasoning in each test; the counts from plain SPIN and the
orbit oracle (tests/models/colours.pml and soundness/colour_*.pml run through test_models,
test_differential and test_soundness_models as well)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import families
import pytest
from conftest import REPO
from differential import check_against_plain, group_in_force, orbit_count, verify_every_way
from model_files import write
from transitions import explore_transitions, format_violations, group_violations

from topspin_py.errors import ModelError
from topspin_py.promela import load_model
from topspin_py.symmetry.detect import detect
from topspin_py.symmetry.inference import infer_types
from topspin_py.symmetry.kinds import GlobalSlot, LocalSlot, MessageSlot
from topspin_py.symmetry.validity import Alpha, Checker


def checker_of(path: Path) -> Checker:
    model = load_model(path)
    return Checker(model, infer_types(model))


COLOURS = """\
    byte last;
    chan board = [2] of { byte };
    active [2] proctype painter() {
        byte c;
    end: do
        :: select (c : 1 .. 3); board!c; c = 0
        od
    }
    active proctype viewer() {
        byte seen;
    end: do
        :: board?seen -> CHECK last = seen; seen = 0
        od
    }
    """


# ------------------------------------------------------------------------------ domains
def test_a_class_that_only_stores_and_compares_constants_is_a_domain(tmp_path):
    types = infer_types(load_model(write(tmp_path, COLOURS.replace("CHECK", ""))))
    (domain,) = types.domains.values()
    assert domain.values == (0, 1, 2, 3)   # the select's 1..3 and the resets to 0
    assert set(domain.slots) == {GlobalSlot("last"), LocalSlot("painter", "c"), LocalSlot("viewer", "seen"),
                                 MessageSlot(GlobalSlot("board"), 0)}


@pytest.mark.parametrize("check,why", [
    ("assert(seen + 1 != 5);", "used with '+'"),
    ("last = seen + 1;", "assigned the result of arithmetic"),
    ("last = len(board);", "no constant"),
])
def test_a_class_used_otherwise_is_no_domain(tmp_path, check: str, why: str):
    types = infer_types(load_model(write(tmp_path, COLOURS.replace("CHECK", check))))
    assert not types.domains
    assert any(why in reason for _node, reason in types.not_domains.values()), types.not_domains


def test_the_colours_are_permuted_with_the_painters(tmp_path):
    group = detect(load_model(write(tmp_path, COLOURS.replace("CHECK", ""))))
    # S2 on the painters times S3 on the colours 1, 2, 3 (0 stays: the locals start at 0)
    assert group.order == 12
    assert sorted(group.point_name(group.points[i]) for orbit in group.perm_group.orbits()
                  if len(orbit) > 1 for i in orbit if group.points[i].kind == "val") == \
        ["last=1", "last=2", "last=3"]


# ------------------------------------------------------------------------------ validity
def value_swap(domain: str, a: int, b: int) -> Alpha:
    return Alpha.of({}, {}, {(domain, a): b, (domain, b): a})


@pytest.mark.parametrize("check,swap,valid", [
    ("assert(seen != 3);", (1, 2), True),
    ("assert(seen != 3);", (2, 3), False),            # names 3
    ("assert(seen < 3);", (1, 2), True),              # holds for 1, 2 (and 0): kept together
    ("assert(seen < 3);", (2, 3), False),
    ("assert(3 > seen);", (2, 3), False),             # the same, written the other way round
    ("assert(seen >= 2);", (2, 3), True),
    ("assert(seen >= 2);", (1, 2), False),
])
def test_a_value_named_or_compared_by_order_stays(tmp_path, check: str, swap, valid: bool):
    checker = checker_of(write(tmp_path, COLOURS.replace("CHECK", check)))
    rejection = checker.check(value_swap("last", *swap))
    assert (rejection is None) == valid, rejection


def test_zero_stays_where_a_local_starts_at_it(tmp_path):
    # c and seen have no initialiser: a process starts with 0 there, whatever the permutation
    checker = checker_of(write(tmp_path, COLOURS.replace("CHECK", "")))
    rejection = checker.check(value_swap("last", 0, 1))
    assert rejection is not None and "the value 0 of 'last' would move" in rejection.reason


def test_a_value_used_as_a_condition_keeps_zero(tmp_path):
    text = COLOURS.replace("byte c;", "byte c = 1;").replace("byte seen;", "byte seen = 1;")
    text = text.replace("c = 0", "c = 1").replace("seen = 0", "seen = 1").replace("CHECK", "assert(last);")
    checker = checker_of(write(tmp_path, text))
    assert checker.check(value_swap("last", 0, 2)) is not None   # `last` compares it with 0
    assert checker.check(value_swap("last", 2, 3)) is None


# ------------------------------------------------------------------------------ the hypercube
@pytest.mark.parametrize("m,order", [(2, 8), (3, 48)])
@pytest.mark.parametrize("scalarset", [False, True], ids=["byte", "scalarset"])
def test_the_hypercube_by_dimension_has_the_geometric_group(tmp_path, m: int, order: int, scalarset: bool):
    # 2^m translations times m! permutations of the dimensions
    path = write(tmp_path, families.hypercube_by_dimension(m, scalarset))
    group = detect(load_model(path))
    assert group.order == order
    assert group.moves_values
    assert group.slot_constants == {"node": ("in", *(f"out{d}" for d in range(1, m + 1)))}


def test_the_hypercube_by_dimension_is_reduced_to_its_orbits(tmp_path):
    """Every exact strategy stores the orbit oracle's count, the complete ones at least that;
    every generator maps plain pan's state graph onto itself."""
    path = write(tmp_path, families.hypercube_by_dimension(2, scalarset=True))
    comparison = verify_every_way(path, ("NOREDUCE", "SAFETY"), ())
    orbits = orbit_count(comparison, tmp_path / "oracle")
    assert comparison.group_order == 8 and comparison.plain.states_stored > orbits
    check_against_plain(comparison, orbits)
    group = group_in_force(path, ["NOREDUCE", "SAFETY"], [])
    graph = explore_transitions(path, tmp_path / "transitions", ["-DNOREDUCE", "-DSAFETY"], [],
                                roots=group.generators, group=group)
    broken = {group.cycles(g): v for g, v in group_violations(graph, group.generators).items() if v}
    assert not broken, "\n".join(f"{name}: {format_violations(v)}" for name, v in broken.items())


@pytest.mark.slow
def test_the_three_cube_by_dimension_is_reduced_to_its_orbits(tmp_path):
    path = write(tmp_path, families.hypercube_by_dimension(3))
    comparison = verify_every_way(path, ("NOREDUCE", "SAFETY"), ("-m1000000",))
    orbits = orbit_count(comparison, tmp_path / "oracle")
    assert comparison.group_order == 48
    check_against_plain(comparison, orbits)


def test_table_2s_hypercube_keeps_its_translations_and_says_why(corpus):
    """3d.p writes the send into each dimension's option (`chosen_dimension == 1 ->
    out1!packet`): a node can be stored there, blocked on the send, and a dimension swap would
    have to move it into another option.  And SPIN resets the dead chosen_dimension to 0,
    dimension 0's value.  So only the 2^3 translations are valid."""
    model = load_model(corpus / "topspin" / "3d.p")
    group = detect(model)
    assert group.order == 8 and not group.moves_values
    checker = Checker(model, infer_types(model))
    checker.slot_constants = frozenset({"node"})
    # the swap of dimensions 1 and 2: nodes 2 <-> 3 and 6 <-> 7 (pids 3 <-> 5, 4 <-> 6), their
    # links, and the values 1 and 2 of chosen_dimension
    swap = Alpha.of({3: 5, 5: 3, 4: 6, 6: 4}, {}, {("chosen_dimension", 1): 2, ("chosen_dimension", 2): 1})
    channels = {c.name: c.id for c in model.channels}
    swap = Alpha(swap.pids, tuple(sorted((channels[a], channels[b]) for a, b in (
        ("link3", "link5"), ("link5", "link3"), ("link4", "link6"), ("link6", "link4")))), swap.values)
    rejection = checker.check(swap)
    assert rejection is not None and rejection.pos is not None and rejection.pos.line in (105, 106, 107) \
        and "a process can be inside" in rejection.reason, rejection


# ------------------------------------------------------------------------------ scalarsets
def _detect_cli(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "topspin_py.cli", "detect", "--json", str(path)],
                          cwd=REPO, capture_output=True, text=True, timeout=120, check=False)


def test_a_declared_scalarset_is_one_domain_with_every_value(tmp_path):
    path = write(tmp_path, """\
        /* topspin: scalarset colour */
        mtype:colour = { red, green, blue };
        mtype:colour a = red, b = red;
        active proctype P() {
        end: do
            :: a = green
            :: b = blue
            :: a == b -> a = red
            od
        }
        """)
    types = infer_types(load_model(path))
    assert set(types.domains) == {"colour"}
    assert len(types.domains["colour"].values) == 3   # every value of the subtype
    # a and b are one class (one type), so they are permuted together
    assert types.find(GlobalSlot("a")) == types.find(GlobalSlot("b"))


@pytest.mark.parametrize("body,line,message", [
    ("x = x + 1", 7, "a variable of the scalarset 'dim' is assigned the result of arithmetic"),
    ("x < d2 -> skip", 7, "a variable of the scalarset 'dim' is compared by order"),
])
def test_a_scalarset_used_otherwise_is_an_error(tmp_path, body: str, line: int, message: str):
    path = write(tmp_path, f"""\
        /* topspin: scalarset dim */
        mtype:dim = {{ d1, d2, d3 }};
        mtype:dim x = d1;
        active proctype P() {{
            do
            :: x == d1 -> x = d2
            :: {body}
            od
        }}
        """)
    with pytest.raises(ModelError, match=message):
        detect(load_model(path))
    done = _detect_cli(path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"m.pml:{line}:" in done.stderr and message in done.stderr, done.stderr


def test_a_scalarset_of_no_subtype_is_an_error(tmp_path):
    path = write(tmp_path, """\
        /* topspin: scalarset dims */
        mtype:dim = { d1, d2 };
        mtype:dim x = d1;
        active proctype P() { x = d2 }
        """)
    done = _detect_cli(path)
    assert done.returncode == 2 and "m.pml:1:4:" in done.stderr and "no mtype:dims" in done.stderr, done.stderr


def test_the_detect_report_names_the_values(tmp_path):
    path = write(tmp_path, families.hypercube_by_dimension(2, scalarset=True))
    done = _detect_cli(path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["order"] == 8
    assert any("dim=d1" in g and "dim=d2" in g for g in report["generators"]), report["generators"]
