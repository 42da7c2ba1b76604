"""Oracles for symmetry reduction that do not trust the product's C.

Plain SPIN enumerates the unreduced state space of a small model and dumps every stored state
vector (-DSVDUMP); tests/support/statespace.py applies the detected group to those vectors in Python.

* Orbit oracle: an exact strategy must store exactly one state per orbit, so its
  ``states_stored`` must equal the number of orbits of the reachable states.  Every strategy of
  the registry whose exactness is "exact" is checked, so strategies added later are covered.
  A complete strategy stores at least one state per orbit and no more than plain SPIN.
  The orbit counts are themselves checked against the published ones where there are some
  (shared/corpus/README.md: TopSPIN's papers and thesis, [BDLM07] for the Peterson family),
  and the dumps against the published unreduced counts.
* Closure oracle: a symmetry maps reachable states to reachable states, so every generator
  ``detect`` returns must keep the reachable set closed.  Planted wrong generators show that
  the oracle notices when it is not.
* Transition oracle (tests/support/transitions.py): a symmetry maps pan's graph of stored states onto
  itself, moves onto moves and errors onto errors of the same kind.  Every generator passes it
  on every model above (every element, for the small groups); planted generators show that it
  catches what the closure oracle cannot see (a move or an assertion only one process has,
  with the reachable states still closed) and what it can.
* Independence from the product's reading of the state vector: the oracles locate pids
  through their own join of pan's state vector with the model (tests/support/oracle_layout.py), not
  the StateLayout the canonicaliser is generated from; a bug planted in that layout moves the
  reduced count away from the orbit count, which stays where it was.

Both runs of a model use the same compile flags (-DSAFETY -DNOREDUCE; the oracle adds only
-DSVDUMP, which changes nothing but the dump) and the same pan arguments.
"""

from __future__ import annotations

import dataclasses
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import families
import pytest
from conftest import MODELS
from oracle_layout import Declarations, LayoutMismatch
from statespace import GroupAction, OracleError, StateSpace, closure_violations, count_orbits, explore
from transitions import (
    ACCEPTING,
    ASSERTION,
    INVALID_END,
    TransitionGraph,
    edit_pan,
    explore_transitions,
    format_violations,
    transition_violations,
)

from topspin_py.codegen.invariants import symmetric_blocks
from topspin_py.codegen.render import STRATEGIES, CodegenError
from topspin_py.errors import ModelError, SourcePos
from topspin_py.layout import statevector
from topspin_py.pan.splice import SYM_MACRO
from topspin_py.promela import load_model
from topspin_py.symmetry.detect import Group, acting_on_states, detect, group_from_generators
from topspin_py.symmetry.kinds import FieldSlot, GlobalSlot, LocalSlot, MessageSlot
from topspin_py.symmetry.validity import Alpha
from topspin_py.verify import VerifyOptions, verify

DEFINES = ("SAFETY", "NOREDUCE")
FLAGS = tuple(f"-D{define}" for define in DEFINES)
EXACT_STRATEGIES = [name for name, strategy in STRATEGIES.items() if strategy.exactness == "exact"]
COMPLETE_STRATEGIES = [name for name, strategy in STRATEGIES.items() if strategy.exactness == "complete"]


@dataclass(frozen=True)
class Case:
    """A small model with a nontrivial group.  ``corpus`` is a path in the shared corpus,
    ``family`` builds the source, or ``own`` is a path in tests/models; ``orbits`` and
    ``states`` are published counts (reduced and unreduced), None where nothing is published
    (for our own models: the counts of their headers, from plain spin)."""

    name: str
    corpus: str | None = None
    family: Callable[[], str] | None = None
    own: str | None = None
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
    # The clients' S4 only: the servers' swap is no symmetry (test_load_balancer_server_swap...).
    Case("loadbalancer", corpus="topspin/loadbalancer.p", pan_args=("-m100000",), states=200850, slow=True),
]

# Models written with the ref/public extension ([DG01], tests/models/extension/): explore
# gives spin their desugared program with -o1, as verify does, and their group is the one they
# declare (detect on the extended Model), each instance with its public variables and mailboxes.
# The orbit oracle runs on them in test_differential.py; here the closure and transition
# oracles.  token_relay's assertion fails (the differential test finds it with every
# strategy): with -A the whole state space.  Unreduced counts: the models' headers.
EXTENDED = [
    Case("ref_token", own="extension/ref_token.pml", states=5012),
    Case("clientserver_ext", own="extension/clientserver_ext.pml", states=6393),
    Case("token_relay-A", own="extension/token_relay.pml", pan_args=("-A",), states=238),
]


# ------------------------------------------------------------------------------ fixtures
@dataclass
class Explored:
    path: Path
    space: StateSpace
    group: Group
    orbits: int | None = None
    graph: TransitionGraph | None = None


class _Cache:
    """Each model is explored once per module: several tests look at the same state space."""

    def __init__(self, tmp_path_factory) -> None:
        self.tmp = tmp_path_factory
        self.explored: dict[str, Explored] = {}

    def get(self, case: Case, request) -> Explored:
        if case.name not in self.explored:
            path = self.model_path(case, request)
            # the group under test is detect's, on the model as this pan checks it
            space = explore(path, self.tmp.mktemp(f"oracle-{case.name}"), FLAGS, case.pan_args, group=detect)
            assert space.group is not None  # detect's
            self.explored[case.name] = Explored(path, space, space.group)
        return self.explored[case.name]

    def model_path(self, case: Case, request) -> Path:
        if case.corpus is not None:
            return request.getfixturevalue("corpus") / case.corpus
        if case.own is not None:
            return MODELS / case.own
        path = self.tmp.mktemp(f"model-{case.name}") / f"{case.name}.pml"
        assert case.family is not None, f"{case.name}: no corpus path, own model or family"
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
@pytest.mark.parametrize("case", [c.param() for c in CASES + EXTENDED])
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


@pytest.mark.parametrize("strategy", COMPLETE_STRATEGIES)
@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_complete_strategy_stores_at_least_one_state_per_orbit(cache, request, case, strategy):
    explored = cache.get(case, request)
    assert explored.group.order > 1
    options = VerifyOptions(strategy=strategy, defines=DEFINES, pan_args=case.pan_args, save_trails=False)
    try:
        result = verify(explored.path, options)
    except CodegenError as error:
        # Made for products of full symmetric groups on blocks, it refuses the other groups.
        assert STRATEGIES[strategy].symmetric_trees_only, error
        group = acting_on_states(explored.group)
        n_pids = max(p.pid for p in group.points if p.kind == "pid") + 1
        assert symmetric_blocks(group, n_pids) is None, error
        return
    assert result.complete and result.errors == 0
    assert result.strategy == strategy and result.group_order == explored.group.order
    assert [f for f in result.compile_flags if f != f"-D{SYM_MACRO}"] == list(FLAGS)
    assert orbit_count(explored) <= result.states_stored <= explored.space.pan_stored


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


@pytest.mark.parametrize("case", [c.param() for c in CASES + EXTENDED])
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


@pytest.mark.parametrize("proctype,mailbox", [("client", "cliChan"), ("server", "serChan")])
def test_closure_oracle_catches_instances_swapped_without_their_public_mailboxes(cache, request,
                                                                                  proctype, mailbox):
    """clientserver_ext: `public chan` makes one mailbox per instance (the desugared global
    array cliChan[2], serChan[2]), and the declared swap of two instances exchanges their
    mailboxes too ([DG01] section 2.2).  A swap built by hand that leaves the mailboxes where they
    are is no symmetry: an instance would read the other's mailbox, and the refs naming it
    (a server's `cli`, a client's `serv_id`, the ref in each request) would name the instance
    whose mailbox the messages are not in."""
    explored = cache.get(next(c for c in EXTENDED if c.name == "clientserver_ext"), request)
    space, group = explored.space, explored.group
    first, second = [p.pid for p in space.model.processes if p.proctype == proctype]
    chans = {c.name: c.id for c in space.model.channels}
    boxes = chans[f"{mailbox}[0]"], chans[f"{mailbox}[1]"]
    declared = next(g for g in group.generators if g.pid(first) == second)
    assert (declared.chan(boxes[0]), declared.chan(boxes[1])) == (boxes[1], boxes[0])
    assert closure_violations(space, declared) == []
    planted = Alpha.of({first: second, second: first}, {})
    assert closure_violations(space, planted, limit=10)


def test_load_balancer_server_swap_is_not_a_symmetry(cache, request):
    """TopSPIN's group of loadbalancer.p is S4 x S2, the servers' swap included.  The swap maps
    the balancer's option `len(servers0)<=len(servers1) -> servers0!msg,link` onto the other
    one, but the balancer is stored between the guard and the send, and the canonicaliser
    leaves its program counter where it is: the image of such a state has the balancer bound
    to send to the other server, which no run reaches.  detect leaves the swap out."""
    explored = cache.get(next(c for c in CASES if c.name == "loadbalancer"), request)
    model = explored.space.model
    servers = [p.pid for p in model.processes if p.proctype == "server"]
    chans = {c.name: c.id for c in model.channels}
    swap = Alpha.of({servers[0]: servers[1], servers[1]: servers[0]},
                    {chans["servers0"]: chans["servers1"], chans["servers1"]: chans["servers0"]})
    assert closure_violations(explored.space, swap, limit=10)
    assert all(g.pid(servers[0]) == servers[0] for g in explored.group.generators)
    assert explored.group.order == 24


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
    space = explore(path, tmp_path / "work", FLAGS, group=detect)
    assert space.group is not None
    assert space.group.order == 1
    with pytest.raises(ModelError):
        group_from_generators(space.model, [("(1 2)", SourcePos(str(path), 1))])
    planted = Alpha.of({1: 2, 2: 1}, {})
    violations = closure_violations(space, planted)
    # st == [_, done, s] is reachable for s in {idle, busy}; its image [_, s, done] is not
    assert len(violations) == 2
    identity = Alpha.of({}, {})
    assert closure_violations(space, identity) == []


# ------------------------------------------------------------------------------ transition oracle
# tests/support/transitions.py: plain pan records every move and every error; a symmetry must map its
# graph of stored states (nodes, moves, error kinds, accepting/progress labels) onto itself.  The graph
# is explored from every image of the initial state under the detected generators (the
# "initial state" section of its docstring), so spin-peterson's swap is checked too.
def transition_graph(cache: _Cache, case: Case, request) -> TransitionGraph:
    explored = cache.get(case, request)
    if explored.graph is None:
        workdir = cache.tmp.mktemp(f"transitions-{case.name}")
        explored.graph = explore_transitions(explored.path, workdir, FLAGS, case.pan_args,
                                             roots=explored.group.generators, group=explored.group)
    return explored.graph


@pytest.mark.parametrize("case", [c.param() for c in CASES + EXTENDED])
def test_transition_graph_closed_under_detected_generators(cache, request, case):
    explored = cache.get(case, request)
    graph = transition_graph(cache, case, request)
    # the graph holds every state plain pan stores (explore_transitions checks that its own
    # run from the initial state stores exactly those), and more where a generator moves the
    # initial state: peterson.pml's swap, whose image of it is a second root
    stored = set(graph.index)
    assert stored >= set(explored.space.keys)
    assert graph.roots[0] == graph.node(explored.space.records[0])
    assert len(graph.roots) == 1 + len(EXPECTED_TO_MOVE_THE_INITIAL_STATE.get(case.name, ()))
    assert graph.edges
    broken = {explored.group.cycles(g): format_violations(transition_violations(graph, g, limit=5))
              for g in explored.group.generators}
    assert broken == {name: "" for name in broken}


# Groups small enough to check every element: the elements that stabilise the processes init
# has started so far act on the stored states of start-up, where generators rarely apply.
SMALL_GROUPS = ["mutex5", "peterson3", "spin-peterson", "hypercube-by-neighbour3", "spin-manna_pnueli"]


@pytest.mark.parametrize("case", [c.param() for c in CASES if c.name in SMALL_GROUPS])
def test_transition_graph_closed_under_every_element(cache, request, case):
    explored = cache.get(case, request)
    graph = transition_graph(cache, case, request)
    elements = [explored.group.alpha(e) for e in explored.group.perm_group.generate()]
    assert len(elements) == explored.group.order
    broken = {explored.group.cycles(g): format_violations(transition_violations(graph, g, limit=5))
              for g in elements}
    assert broken == {name: "" for name in broken}


# Worker 1 has a shortcut from 0 to 2 and only worker 2's assertion fails (when its x is 1).
# Both workers still reach every value, so the reachable states are closed under swapping them:
# x[1] and x[2] each take 0, 1, 2 in every combination, both workers always at the top of
# their loop (the assertion returns there).  The swap is no symmetry: it maps worker 1's
# shortcut onto a move worker 2 cannot make, and states where worker 2's assertion fails onto
# states where nothing fails.
SHORTCUT = """
byte x[3];

proctype worker()
{
  do
  :: d_step { x[_pid] < 2 -> x[_pid]++ }
  :: d_step { x[_pid] == 2 -> x[_pid] = 0 }
  :: d_step { _pid == 1 && x[_pid] == 0 -> x[_pid] = 2 }
  :: assert(_pid != 2 || x[_pid] != 1)
  od
}

init { atomic { run worker(); run worker() } }
"""


def test_transition_oracle_catches_a_swap_the_closure_oracle_misses(tmp_path):
    path = tmp_path / "shortcut.pml"
    path.write_text(SHORTCUT)
    graph = explore_transitions(path, tmp_path / "work", FLAGS, group=detect)
    assert graph.space.group is not None
    assert graph.space.group.order == 1
    with pytest.raises(ModelError):
        group_from_generators(graph.space.model, [("(1 2)", SourcePos(str(path), 1))])
    swap = Alpha.of({1: 2, 2: 1}, {})
    assert closure_violations(graph.space, swap) == []
    assert len(graph.space.keys) == 9 + 1   # the 9 values of (x[1], x[2]), and init's first state

    def x(node):
        assert graph.names is not None
        return (graph.names.values(graph.vectors[node])["x[1]"],
                graph.names.values(graph.vectors[node])["x[2]"])

    # worker 2's assertion fails where x[2] == 1, whatever x[1]
    assert sorted(x(n) for n in graph.with_label(ASSERTION)) == [(0, 1), (1, 1), (2, 1)]

    violations = transition_violations(graph, swap)
    by_kind = {kind: [v for v in violations if v.kind == kind] for kind in ("node", "label", "edge")}
    # labels differ where exactly one of x[1], x[2] is 1: (1, 0), (1, 2), (0, 1), (2, 1)
    assert sorted(x(v.source) for v in by_kind["label"]) == [(0, 1), (1, 0), (1, 2), (2, 1)]
    # the shortcut x[1]: 0 -> 2, with x[2] = 0, 1, 2
    assert sorted((x(v.source), x(v.target)) for v in by_kind["edge"]) == [
        ((0, 0), (2, 0)), ((0, 1), (2, 1)), ((0, 2), (2, 2))]
    assert by_kind["node"] == []
    assert transition_violations(graph, Alpha.of({}, {})) == []


def test_transition_oracle_catches_swap_broken_by_pid_literal(tmp_path):
    path = tmp_path / "pid_literal.pml"
    path.write_text(PID_LITERAL)
    graph = explore_transitions(path, tmp_path / "work", FLAGS, group=detect)
    swap = Alpha.of({1: 2, 2: 1}, {})
    violations = transition_violations(graph, swap)

    def st(node):
        assert graph.names is not None
        return tuple(graph.names.values(graph.vectors[node])[f"st[{i}]"] for i in (1, 2))

    idle, busy, done = 3, 2, 1   # mtype values: SPIN numbers them from the last declared
    # the states with st[1] == done are the closure oracle's two
    assert sorted(st(v.source) for v in violations if v.kind == "node") == [(done, busy), (done, idle)]
    # moves into them (worker 1's busy -> done) and between them (worker 2 on its own)
    assert sorted((st(v.source), st(v.target)) for v in violations if v.kind == "edge") == sorted([
        ((busy, busy), (done, busy)), ((busy, idle), (done, idle)),
        ((done, busy), (done, idle)), ((done, idle), (done, busy))])
    assert [v for v in violations if v.kind == "label"] == []


def test_transition_oracle_catches_clients_swapped_without_their_channels(cache, request):
    case = next(c for c in CASES if c.name == "email3")
    graph = transition_graph(cache, case, request)
    planted = Alpha.of({1: 2, 2: 1}, {})
    assert transition_violations(graph, planted, limit=10)


# Where the probe puts errors: an assertion against the state its move starts from (here x is
# 1 there, 5 inside the d_step where it fails), an invalid end state against the blocked state
# (x == 2), though pan reports it one level up (depth--; uerror; depth++).
ERROR_PLACES = """
byte x;

active proctype p()
{
  x = 1;
  d_step { x = 5; assert(x == 2) }
  x = 2;
  (x == 3)
}
"""


def test_transition_oracle_puts_errors_on_the_right_states(tmp_path):
    path = tmp_path / "errors.pml"
    path.write_text(ERROR_PLACES)
    graph = explore_transitions(path, tmp_path / "work", FLAGS)

    def x(node):
        assert graph.names is not None
        return graph.names.values(graph.vectors[node])["x"]

    assert sorted(x(n) for n in range(len(graph.vectors))) == [0, 1, 2, 5]
    assert [x(n) for n in graph.with_label(ASSERTION)] == [1]
    assert [x(n) for n in graph.with_label(INVALID_END)] == [2]
    assert sorted((x(s), x(t)) for s, t in graph.edges) == [(0, 1), (1, 5), (5, 2)]


# A never claim: the graph is the product, the claim moves too, and its accepting states are
# labels.  `[]<> (inside == 0)` is symmetric in the two users; `[]<> (st[1] == 0)` is not.
def claim_model(formula: str) -> str:
    return f"""
byte inside;
byte st[3];

proctype user()
{{
  do
  :: atomic {{ st[_pid] == 0 -> st[_pid] = 1; inside++ }}
  :: atomic {{ st[_pid] == 1 -> st[_pid] = 0; inside-- }}
  od
}}

init {{ atomic {{ run user(); run user() }} }}

ltl p {{ {formula} }}
"""


def test_transition_oracle_on_a_product_with_a_never_claim(tmp_path):
    path = tmp_path / "claim.pml"
    path.write_text(claim_model("[]<> (inside == 0)"))
    group = detect(load_model(path))
    assert group.order == 2
    graph = explore_transitions(path, tmp_path / "work", ("-DNOREDUCE",), ("-a",), roots=group.generators,
                                group=group)
    assert graph.with_label(ACCEPTING)
    assert graph.space.layout.base == 1
    assert all(transition_violations(graph, g) == [] for g in group.generators)

    asymmetric = tmp_path / "asymmetric.pml"
    asymmetric.write_text(claim_model("[]<> (st[1] == 0)"))
    assert detect(load_model(asymmetric)).order == 1
    graph = explore_transitions(asymmetric, tmp_path / "work2", ("-DNOREDUCE",), ("-a",), group=detect)
    swap = Alpha.of({1: 2, 2: 1}, {})
    assert transition_violations(graph, swap)


def test_transition_probe_refuses_a_pan_c_it_does_not_recognise(tmp_path):
    path = tmp_path / "errors.pml"
    path.write_text(ERROR_PLACES)
    subprocess.run(["spin", "-a", path.name], cwd=tmp_path, check=True, capture_output=True)
    text = (tmp_path / "pan.c").read_text()
    edited = edit_pan(text)
    assert edited.count("oracle_down();") == edited.count("oracle_store();") == 1
    assert edited.count("oracle_uerror(str);") == 1
    with pytest.raises(OracleError, match="Down: label"):
        edit_pan(text.replace("\nDown:\n", "\nDown:\nDown:\n"))
    with pytest.raises(OracleError, match="dfs_uerror"):
        edit_pan(text.replace("if (unwinding) return;", "if (unwinding) { return; }"))


# ------------------------------------------------------------------------------ independence from the layout
# The oracles read pan's state vector through their own join (tests/support/oracle_layout.py), never
# through the product's StateLayout (topspin_py/layout), from which the canonicaliser is
# generated.  Were they to share it, a wrong layout would make the product and the oracle apply
# the same wrong action, and the orbit count would agree with the wrong reduced count.  Here a
# layout with a planted bug makes the canonicaliser leave a place holding pids unrenamed, and
# the orbit count, computed with the bug in place, does not move.
#
# The tokens' owner is a global holding pids; each P's `seen` a local holding the pid of the
# owner it saw, which it may hand the token back to.  Pids 1..3 (init is 0): S3.  Counts
# measured: plain SPIN 109 states, 23 orbits; with the owner left out of the layout the
# enumerate canonicaliser stores 29 states, with `seen` read as data 25.
OWNER = """
pid owner = 255;
proctype P()
{
	pid seen = 255;
	do
	:: atomic { owner == 255 -> owner = _pid }
	:: atomic { owner == _pid -> owner = 255 }
	:: atomic { owner != 255 && owner != _pid && seen == 255 -> seen = owner }
	:: atomic { seen != 255 && owner == 255 -> owner = seen; seen = 255 }
	od
}
init { atomic { run P(); run P(); run P() } }
"""


def plant_in_layout(monkeypatch, slot: tuple) -> None:
    """The product's layout without the places of ``slot``: left out of what the canonicaliser
    renames (a global), or read as data (a local)."""
    real = statevector.build_layout

    def planted(*args):
        layout = real(*args)
        keep = lambda fields: tuple(f for f in fields if f.source != slot)  # noqa: E731
        proctypes = {name: dataclasses.replace(p, fields=keep(p.fields)) for name, p in layout.proctypes.items()}
        return dataclasses.replace(layout, globals=keep(layout.globals), proctypes=proctypes)

    monkeypatch.setattr(statevector, "build_layout", planted)


@pytest.mark.parametrize("slot, planted_count", [(GlobalSlot("owner"), 29), (LocalSlot("P", "seen"), 25)],
                         ids=["global-left-out", "local-read-as-data"])
def test_a_bug_planted_in_the_products_layout_moves_the_reduced_count_not_the_orbit_count(
        tmp_path, monkeypatch, slot, planted_count):
    path = tmp_path / "owner.pml"
    path.write_text(OWNER)
    options = VerifyOptions(strategy="enumerate", defines=DEFINES, save_trails=False)
    space = explore(path, tmp_path / "sound", FLAGS, group=detect)
    group = space.group
    assert group is not None
    elements = [group.alpha(e) for e in group.perm_group.generate()]
    orbits = count_orbits(space, elements).count
    assert (len(space.records), group.order, orbits) == (109, 6, 23)
    assert verify(path, options).states_stored == orbits

    plant_in_layout(monkeypatch, slot)
    layout = statevector.read_layout(tmp_path / "sound", group.model, group.types, list(FLAGS))
    assert slot not in {f.source for f in (*layout.globals, *layout.pid_indexed)} | {
        f.source for p in layout.proctypes.values() for f in p.fields}
    reduced = verify(path, options)
    assert reduced.complete and reduced.errors == 0 and reduced.group_order == 6
    assert reduced.states_stored == planted_count != orbits
    # the oracle, run again with the planted layout in force, reads the state vector as before
    again = explore(path, tmp_path / "planted", FLAGS, group=detect)
    assert count_orbits(again, elements).count == orbits
    graph = explore_transitions(path, tmp_path / "graph", FLAGS, roots=group.generators, group=group)
    assert all(transition_violations(graph, g) == [] for g in group.generators)


def test_values_are_read_as_the_c_holds_them(tmp_path):
    """offset_short.pml: a short holding `_pid - 5` reads -5, -4, -3 (9: nobody), and the
    orbit oracle renames it as pid v + 5, as the canonicaliser does: 44 orbits of plain SPIN's
    200 states under S3, the count every exact strategy stores."""
    space = explore(MODELS / "offset_short.pml", tmp_path / "work", ("-DNOREDUCE",), group=detect)
    assert space.group is not None
    assert space.group.order == 6 and len(space.records) == 200
    x = space.pan.bits("State", (("x", None),))
    assert x.signed and x.size == 2
    assert {x.read(record, 0) for record in space.records} == {9, -5, -4, -3}
    assert count_orbits(space, [space.group.alpha(e) for e in space.group.perm_group.generate()]).count == 44


# Every kind of place the oracle's join finds, on pan's own structs: a global, a hidden global
# (SPIN keeps `h` out of the state vector: only written), an array of a typedef and its fields,
# a local of a nested block (`_4_2_y` in pan.h), a global channel array whose elements get a
# queue type each and hold their ids in State, a typedef inside a message (one fldN per
# scalar), and a local channel of each process (one queue type for all three).
KINDS = """
typedef Rec { pid who; short lid; byte vals[2] };
mtype = { req, ack };
pid owner = 255;
hidden byte h;
Rec recs[3];
chan box[3] = [2] of { mtype, Rec, short };
active [3] proctype P()
{
	chan reply = [1] of { pid };
	byte c;
	{ short y = _pid - 5; (y != 0) -> c = 1 };
	recs[_pid].who = _pid;
	recs[_pid].lid = _pid - 5;
	box[_pid]!req, recs[_pid], _pid - 5;
	owner = _pid; h = owner
}
"""


def test_the_oracles_join_finds_every_kind_of_place(tmp_path):
    path = tmp_path / "kinds.pml"
    path.write_text(KINDS)
    space = explore(path, tmp_path / "work", FLAGS, group=detect)
    layout, pan = space.layout, space.pan
    assert [(p.steps, p.slot) for p in layout.places["State"]] == [
        ((("owner", None),), GlobalSlot("owner")), ((("box", 3),), GlobalSlot("box")),
        ((("recs", 3),), GlobalSlot("recs")), ((("recs", 3), ("who", None)), FieldSlot("Rec", "who")),
        ((("recs", 3), ("lid", None)), FieldSlot("Rec", "lid")), ((("recs", 3), ("vals", 2)), FieldSlot("Rec", "vals"))]
    assert "h" in space.header.file_scope and not pan.has("State", (("h", None),))
    assert [(p.steps, p.slot) for p in layout.places["P0"]] == [
        ((("c", None),), LocalSlot("P", "c")), ((("reply", None),), LocalSlot("P", "reply")),
        ((("_4_2_y", None),), LocalSlot("P", "y"))]
    y = pan.bits("P0", (("_4_2_y", None),))
    assert y.signed and y.size == 2 and not pan.bits("P0", (("c", None),)).signed
    # the elements of recs follow each other by the size of a Rec
    who = [pan.bits("State", (("recs", 3), ("who", None)), (i,)).start for i in range(3)]
    assert who[1] - who[0] == who[2] - who[1] == pan.element("State", (("recs", 3),), (0,))[1]
    message = (MessageSlot(GlobalSlot("box"), 0), FieldSlot("Rec", "who"), FieldSlot("Rec", "lid"),
               FieldSlot("Rec", "vals"), FieldSlot("Rec", "vals"), MessageSlot(GlobalSlot("box"), 2))
    assert [(c.id, c.name, c.member, c.messages) for c in layout.channels[:3]] == [
        (i + 1, f"box[{i}]", ((("box", 3),), (i,)), message) for i in range(3)]
    assert len({c.struct for c in layout.channels[:3]}) == 3
    assert [(c.id, c.owner_pid, c.struct, c.messages) for c in layout.channels[3:]] == [
        (4 + i, i, layout.channels[3].struct, (MessageSlot(LocalSlot("P", "reply"), 0),)) for i in range(3)]
    # every State member that holds a channel of box holds its id, in every stored state
    assert {tuple(pan.bits("State", *c.member).read(r, 0) for c in layout.channels[:3] if c.member is not None)
            for r in space.records[1:]} == {(1, 2, 3)}
    # a model that does not fit pan's state vector is refused, not guessed at
    other = tmp_path / "other.pml"
    other.write_text(KINDS.replace("chan box[3]", "chan box[2]").replace("box[_pid]", "box[_pid % 2]"))
    with pytest.raises(LayoutMismatch, match=r"pan gives .P\(0\).reply. the id 4, the model 3"):
        Declarations(space.header, pan, space.creations, load_model(other))
