"""Oracles for symmetry reduction that do not trust the product's C (issues 4 and 5).

Plain SPIN enumerates the unreduced state space of a small model and dumps every stored state
vector (-DSVDUMP); tests/statespace.py applies the detected group to those vectors in Python.

* Orbit oracle: an exact strategy must store exactly one state per orbit, so its
  ``states_stored`` must equal the number of orbits of the reachable states.  Every strategy of
  the registry whose exactness is "exact" is checked, so strategies added later are covered.
  The orbit counts are themselves checked against the published ones where there are some
  (shared/corpus/README.md: TopSPIN's papers and thesis, seed 001 for the Peterson family),
  and the dumps against the published unreduced counts.
* Closure oracle: a symmetry maps reachable states to reachable states, so every generator
  ``detect`` returns must keep the reachable set closed.  Planted wrong generators show that
  the oracle notices when it is not.

Both runs of a model use the same compile flags (-DSAFETY -DNOREDUCE; the oracle adds only
-DSVDUMP, which changes nothing but the dump) and the same pan arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

import families
from statespace import GroupAction, StateSpace, closure_violations, count_orbits, explore
from topspin_py.codegen.render import STRATEGIES
from topspin_py.errors import ModelError, SourcePos
from topspin_py.pan.splice import SYM_MACRO
from topspin_py.promela import load_model
from topspin_py.symmetry.detect import Group, detect, group_from_generators
from topspin_py.symmetry.validity import Alpha
from topspin_py.verify import VerifyOptions, verify

DEFINES = ("SAFETY", "NOREDUCE")
FLAGS = tuple(f"-D{define}" for define in DEFINES)
EXACT_STRATEGIES = [name for name, strategy in STRATEGIES.items() if strategy.exactness == "exact"]


@dataclass(frozen=True)
class Case:
    """A small model with a nontrivial group.  ``corpus`` is a path in the shared corpus, or
    ``family`` builds the source; ``orbits`` and ``states`` are published counts (reduced and
    unreduced), None where nothing is published."""

    name: str
    corpus: str | None = None
    family: Callable[[], str] | None = None
    pan_args: tuple[str, ...] = ()
    orbits: int | None = None
    states: int | None = None
    slow: bool = False

    def param(self):
        return pytest.param(self, id=self.name, marks=[pytest.mark.slow] if self.slow else [])


CASES = [
    Case("mutex5", corpus="topspin/mutex5.p", orbits=12, states=113),
    Case("peterson3", corpus="topspin/peterson3.p", orbits=494, states=2636),
    Case("peterson4", corpus="topspin/peterson4.p", pan_args=("-m1000000",), orbits=3106, states=60577,
         slow=True),
    Case("petersonnoatomic3", corpus="topspin/petersonnoatomic/3.p", pan_args=("-m1000000",),
         orbits=12706, states=75356, slow=True),
    Case("email3", corpus="topspin/email3.p", pan_args=("-m100000",), orbits=3902, states=23256),
    Case("family-peterson3", family=lambda: families.peterson(3), orbits=494, states=2636),
    Case("family-peterson4", family=lambda: families.peterson(4), pan_args=("-m1000000",),
         orbits=3106, states=60577, slow=True),
    Case("spin-peterson", corpus="spin-examples/peterson.pml", states=55),
    # The cube's whole geometric group (order 48) acting on a program that allows it.
    Case("hypercube-by-neighbour3", family=lambda: families.hypercube_by_neighbour(3), states=113),
    Case("spin-manna_pnueli", corpus="spin-examples/manna_pnueli.pml", states=117),
]


# ------------------------------------------------------------------------------ fixtures
@dataclass
class Explored:
    path: Path
    space: StateSpace
    group: Group
    orbits: int | None = None


class _Cache:
    """Each model is explored once per module: several tests look at the same state space."""

    def __init__(self, tmp_path_factory) -> None:
        self.tmp = tmp_path_factory
        self.explored: dict[str, Explored] = {}

    def get(self, case: Case, request) -> Explored:
        if case.name not in self.explored:
            path = self.model_path(case, request)
            space = explore(path, self.tmp.mktemp(f"oracle-{case.name}"), FLAGS, case.pan_args)
            self.explored[case.name] = Explored(path, space, detect(space.model))
        return self.explored[case.name]

    def model_path(self, case: Case, request) -> Path:
        if case.corpus is not None:
            return request.getfixturevalue("corpus") / case.corpus
        path = self.tmp.mktemp(f"model-{case.name}") / f"{case.name}.pml"
        path.write_text(case.family())
        return path


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> _Cache:
    return _Cache(tmp_path_factory)


def orbit_count(explored: Explored) -> int:
    if explored.orbits is None:
        elements = [explored.group.alpha(element) for element in explored.group.perm_group.generate()]
        explored.orbits = count_orbits(explored.space, elements).count
    return explored.orbits


# ------------------------------------------------------------------------------ orbit oracle
@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_dump_holds_every_stored_state(cache, request, case):
    explored = cache.get(case, request)
    # explore() already checks the dump against pan's own count, record by record
    assert len(explored.space.records) == explored.space.pan_stored
    if case.states is not None:
        assert explored.space.pan_stored == case.states


@pytest.mark.parametrize("case", [c.param() for c in CASES if c.orbits is not None])
def test_orbit_count_is_the_published_reduced_count(cache, request, case):
    assert orbit_count(cache.get(case, request)) == case.orbits


@pytest.mark.parametrize("strategy", EXACT_STRATEGIES)
@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_exact_strategy_stores_one_state_per_orbit(cache, request, case, strategy):
    explored = cache.get(case, request)
    assert explored.group.order > 1
    result = verify(explored.path, VerifyOptions(strategy=strategy, defines=DEFINES,
                                                 pan_args=case.pan_args, save_trails=False))
    assert result.complete and result.errors == 0
    assert result.strategy == strategy and result.group_order == explored.group.order
    # the reduced search ran on the state space the oracle enumerated
    assert [f for f in result.compile_flags if f != f"-D{SYM_MACRO}"] == list(FLAGS)
    assert result.states_stored == orbit_count(explored)


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_no_stored_state_is_inside_inits_atomic_start_up(cache, request, case):
    # The canonicaliser computes no chain for the process counts that
    # Model.start_up_counts_never_stored names, and leaves such states unreduced: that the
    # depth-first pan never stores one is checked here on what it really stored.
    explored = cache.get(case, request)
    space = explored.space
    counts = space.process_counts()
    never = {k + space.layout.base for k in space.model.start_up_counts_never_stored()}
    assert not counts & never, f"states stored with _nr_pr in {sorted(counts & never)}"
    assert len(space.model.processes) + space.layout.base in counts


# ------------------------------------------------------------------------------ closure oracle
# What reduction needs is a symmetric transition relation: pan starts from the actual initial
# state and continues from actual states, so every orbit it visits holds a reachable state.
# The reachable set itself is closed under a generator only when the generator also fixes the
# initial state.  spin-examples/peterson.pml is the case where it does not: `bool turn` holds
# pids (`turn = _pid`) and starts at 0, the pid of one of the two swapped users, so the swap
# maps the initial state (turn == 0) to one with turn == 1, which is unreachable; the reduced
# count is still the orbit count (test_exact_strategy_stores_one_state_per_orbit).


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_reachable_states_closed_under_detected_generators(cache, request, case):
    explored = cache.get(case, request)
    space, group = explored.space, explored.group
    assert group.generators
    initial = space.records[0]   # the first state pan stores is the initial state
    action = GroupAction(space)
    fixing = [g for g in group.generators if space.key(action.image(initial, g)) == space.key(initial)]
    broken = {group.cycles(g): len(closure_violations(space, g, limit=10)) for g in fixing}
    assert broken == {name: 0 for name in broken}
    moving = {group.cycles(g) for g in group.generators} - set(broken)
    assert moving == EXPECTED_TO_MOVE_THE_INITIAL_STATE.get(case.name, set())


# The generators that move the initial state, by model (see above): only peterson.pml's swap.
EXPECTED_TO_MOVE_THE_INITIAL_STATE = {"spin-peterson": {"(user:0 user:1)"}}


def test_closure_oracle_catches_clients_swapped_without_their_channels(cache, request):
    """email3: swapping two clients is a symmetry only together with their inboxes (the
    detected generators are (client:1 client:2)(link1 link2) and the like).  A detector that
    forgot the channels would return the bare swap."""
    explored = cache.get(next(c for c in CASES if c.name == "email3"), request)
    planted = Alpha.of({1: 2, 2: 1}, {})
    with pytest.raises(ModelError):  # the product's own validity check refuses it too
        group_from_generators(explored.space.model, [("(client:1 client:2)", SourcePos("planted", 1))])
    assert closure_violations(explored.space, planted, limit=10)


# Worker 1 alone can reach `done`: the literal 1 in `_pid == 1` breaks the symmetry between
# the two workers, and detect rightly leaves them alone.  Each step is a d_step, so a worker's
# only local state is st[_pid]: worker 1 has idle, busy, done; worker 2 idle, busy.
PID_LITERAL = """
mtype = { idle, busy, done };
mtype st[3] = idle;

proctype worker()
{
  do
  :: d_step { st[_pid] == idle -> st[_pid] = busy }
  :: d_step { st[_pid] == busy && _pid == 1 -> st[_pid] = done }
  :: d_step { st[_pid] == busy -> st[_pid] = idle }
  od
}

init { atomic { run worker(); run worker() } }
"""


def test_closure_oracle_catches_swap_broken_by_pid_literal(tmp_path):
    path = tmp_path / "pid_literal.pml"
    path.write_text(PID_LITERAL)
    space = explore(path, tmp_path / "work", FLAGS)
    assert detect(load_model(path)).order == 1
    with pytest.raises(ModelError):
        group_from_generators(space.model, [("(1 2)", SourcePos(str(path), 1))])
    planted = Alpha.of({1: 2, 2: 1}, {})
    violations = closure_violations(space, planted)
    # st == [_, done, s] is reachable for s in {idle, busy}; its image [_, s, done] is not
    assert len(violations) == 2
    identity = Alpha.of({}, {})
    assert closure_violations(space, identity) == []
