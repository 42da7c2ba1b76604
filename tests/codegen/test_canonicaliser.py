"""The generated canonicalisers, called through cffi on every state of the real state space.

For each model, pan's unreduced search runs inside a harness library (tests/support/cbuild.py explains
how it is built) and writes down every state it stores, with the layout tables pan had then.
The same library, loaded with cffi, canonicalises those states with each registered strategy,
and an independent group action (also in cbuild.py, written from the StateLayout's names, not
from the templates) applies group elements.  The oracle for "is this a state of the model" is
the captured reachable set itself; orbits are its connected components under the group's
generators (closed under the group when the initial state is not fixed by it).

Checked, for every strategy of ``topspin_py.codegen.render.STRATEGIES``:

* rep(s) is in the orbit of s, for every reachable s;
* rep(rep(s)) == rep(s) for every strategy that says it is idempotent (all but [DG01]'s
  pseudo-sort), and rep(s) does not depend on the bytes of ``now`` beyond vsize;
* rep keeps every byte pan masks (header, ``_pid``, padding) and vsize;
* exact strategies: rep(g(s)) == rep(s) for random g, one representative per orbit, and the
  reduced search of the same library stores exactly one state per orbit;
* approximate strategies may take states of different orbits for one, so rep(s) need not be in
  the orbit of s, nor be a state at all: one that coarsens a complete strategy c
  (``Strategy.coarsens``) must give rep(s) == rep(c(s)) ([BDLM07], Prop. 1(3): a function of
  c's canonical form), and its reduced search stores at most plain SPIN's count;
* a strategy made for one kind of group only (``Strategy.symmetric_trees_only``) refuses the
  others, and only those, with a CodegenError.

A planted bug (one pid field left unrenamed in the generated C, or, in a model written with the
ref/public extension, one element of a public variable left with the wrong instance) must be
caught by these checks.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cbuild
import families
import pytest
from conftest import MODELS

from topspin_py.codegen.render import STRATEGIES, CodegenError
from topspin_py.codegen.trees import symmetric_trees
from topspin_py.verify import VerifyOptions, verify

SAFETY = ("SAFETY", "NOREDUCE")
PAN_ARGS = ["-m1000000"]
RANDOM_SAMPLES = 200     # states per model for the random-element checks
JUNK_SAMPLES = 2000      # states per context canonicalised again over a background of junk
SEED = 20240605

# States in which some process the group moves has not been started (the initial state, the
# states while init runs them one by one) are outside the group's domain: the canonicaliser
# leaves them as they are.  An early version moved their unset slots and corrupted the state;
# the checks below separate such states so that a regression is named plainly.
UNSTARTED = "a state in which not every process has been started"


@dataclass(frozen=True)
class Case:
    name: str
    corpus: str | None = None            # a path in the shared corpus
    source: str | None = None            # or generated Promela text (tests/support/families.py)
    own: str | None = None               # or a path in tests/models
    slow: bool = False


CASES = [
    Case("mutex5", corpus="topspin/mutex5.p"),
    Case("peterson3", corpus="topspin/peterson3.p"),
    Case("email3", corpus="topspin/email3.p"),
    Case("petersonnoatomic3", corpus="topspin/petersonnoatomic/3.p"),
    Case("2s3cs", corpus="topspin/2s3cs.p", slow=True),
    Case("resall-2-3", source=families.resource_allocator(2, 3)),
    Case("three-tiered-2-2", source=families.three_tiered(2, 2)),
    Case("hypercube3", source=families.hypercube(3), slow=True),
    Case("spin-peterson", corpus="spin-examples/peterson.pml"),       # active [2], 1 - _pid
    Case("manna-pnueli", corpus="spin-examples/manna_pnueli.pml"),    # client pids in globals
    # Written with the ref/public extension ([DG01]): cbuild.prepare gives spin the desugared
    # program (spin -o1) and the group is the declared one.  Three peers with a global ref
    # and a public byte (the global array turns[3]); two clients and two servers, whose refs
    # hold local ids (a client's serv_id names pid serv_id + 2) and whose public mailboxes
    # are the channel arrays cliChan[2] and serChan[2], a ref to a client in each request.
    Case("ref-token", own="extension/ref_token.pml"),
    Case("clientserver-ext-2-2", own="extension/clientserver_ext.pml"),
]


def _params(cases):
    return [pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.slow else []) for c in cases]


# ----------------------------------------------------------------------------- the state space


@dataclass
class Space:
    """A model's reachable states (as captured from pan), its orbits, and one harness library
    per strategy.  States are numbered across contexts: context k holds numbers
    ``first[k] .. first[k] + len(contexts[k].states) - 1``."""

    prepared: cbuild.Prepared
    contexts: list[cbuild.Context]
    pan_stored: int                         # pan's own count in the capture run
    libraries: dict[str, cbuild.Library]
    workdir: Path
    refused: dict[str, str] = field(default_factory=dict)   # strategy -> its CodegenError
    first: list[int] = field(default_factory=list)
    keys: list[list[bytes]] = field(default_factory=list)   # per context, the compared bytes
    number: dict[bytes, int] = field(default_factory=dict)  # key -> state number
    orbit: list[int] = field(default_factory=list)          # state number -> orbit number
    started: list[bool] = field(default_factory=list)       # every process has been started
    captured: int = 0                                       # states numbered 0 .. captured-1
    outside: int = 0                                        # states of their orbits pan never stored

    @property
    def oracle(self) -> cbuild.Library:
        """Any library: the group action is the same C in all of them."""
        return next(iter(self.libraries.values()))

    @property
    def n_orbits(self) -> int:
        return len(set(self.orbit))


def _model_path(case: Case, corpus_dir: Path | None, workdir: Path) -> Path:
    if case.corpus is not None:
        assert corpus_dir is not None, f"{case.name} needs the corpus"
        return corpus_dir / case.corpus
    if case.own is not None:
        return MODELS / case.own
    path = workdir / f"{case.name}.pml"
    assert case.source is not None, f"{case.name}: no corpus path, own model or source"
    path.write_text(case.source)
    return path


def _orbits(space: Space) -> None:
    """Orbits: the components of the reachable states under the group's generators, applied
    by the oracle action (union-find).  An image that pan never stored is added as a state of
    the orbit (``space.outside``), and its images in turn: when the initial state is not fixed
    by the group (``turn`` starts as 0, a pid, in Peterson's model), the reachable set is not
    closed under the group, but the orbits of its states are what a reduced search stores."""
    parent = list(range(len(space.number)))

    def find(i: int) -> int:
        root = i
        while parent[root] != root:
            root = parent[root]
        while parent[i] != root:
            parent[i], i = root, parent[i]
        return root

    prepared, oracle = space.prepared, space.oracle
    frontier = [(list(context.states), list(range(first, first + len(context.states))))
                for context, first in zip(space.contexts, space.first)]
    while any(states for states, _ in frontier):
        grown: list[tuple[list[bytes], list[int]]] = [([], []) for _ in space.contexts]
        for generator in prepared.group.perm_group.generators:
            images = prepared.images(generator)
            for context, (states, numbers), (new_states, new_numbers) in zip(space.contexts, frontier, grown):
                if not states:
                    continue
                moved = oracle.act(context, images, states)
                for n, state, key in zip(numbers, moved, oracle.keys(context, moved)):
                    m = space.number.get(key)
                    if m is None:
                        m = space.number[key] = len(parent)
                        parent.append(m)
                        space.outside += 1
                        new_states.append(state)
                        new_numbers.append(m)
                    a, b = find(n), find(m)
                    if a != b:
                        parent[a] = b
        frontier = grown
    roots: dict[int, int] = {}
    space.orbit = [roots.setdefault(find(i), len(roots)) for i in range(len(parent))]


def build_space(case: Case, corpus_dir: Path | None, workdir: Path,
                strategies=tuple(STRATEGIES)) -> Space:
    model = _model_path(case, corpus_dir, workdir)
    prepared = cbuild.prepare(model, workdir, SAFETY)
    assert prepared.group.order > 1, f"{case.name}: the test needs a model with symmetry"
    refused: dict[str, str] = {}

    def build(strategy: str) -> Path | None:
        try:
            return cbuild.build_library(prepared, strategy, workdir / strategy)
        except CodegenError as error:
            if not STRATEGIES[strategy].symmetric_trees_only:
                raise
            refused[strategy] = f"{error}; hint: {error.hint}"
            return None
    with ThreadPoolExecutor() as pool:   # gcc runs in parallel
        paths = dict(zip(strategies, pool.map(build, strategies)))
    libraries = {s: cbuild.Library(path) for s, path in paths.items() if path is not None}
    capture = workdir / "states.bin"
    output = cbuild.run_pan_in_library(next(iter(libraries.values())).path, PAN_ARGS, capture)
    space = Space(prepared, cbuild.read_capture(capture), cbuild.stored_states(output),
                  libraries, workdir, refused)
    last_slot = max(p.slot for p in prepared.layout.processes)
    for context in space.contexts:
        space.first.append(len(space.number))
        keys = space.oracle.keys(context, context.states)
        space.keys.append(keys)
        for key, state in zip(keys, context.states):
            space.number.setdefault(key, len(space.number))
            space.started.append(space.oracle.processes(state) > last_slot)
    space.captured = len(space.number)
    _orbits(space)
    return space


@pytest.fixture(scope="module")
def _built(tmp_path_factory):
    return {}, tmp_path_factory


@pytest.fixture
def spaces(_built, request):
    """``spaces(case)``: the Space of a model, built on first use and shared by the tests of
    this module.  Corpus models come through the ``corpus`` fixture (skipped without it)."""
    built, tmp_path_factory = _built

    def get(case: Case) -> Space:
        if case.name not in built:
            corpus_dir = request.getfixturevalue("corpus") if case.corpus else None
            built[case.name] = build_space(case, corpus_dir, tmp_path_factory.mktemp(case.name))
        return built[case.name]
    return get


# ----------------------------------------------------------------------------- the checks


@dataclass
class Found:
    """What the checks found: {check: [examples]}, for all reachable states and for those in
    which every process of the model has been started (see ``UNSTARTED``)."""

    all: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    started: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def note(self, check: str, what: str, started: bool) -> None:
        self.all[check].append(what)
        if started:
            self.started[check].append(what)

    @staticmethod
    def show(found: dict[str, list[str]]) -> dict[str, list[str]]:
        return {check: examples[:3] + [f"({len(examples)} in all)"] for check, examples in found.items()}


def violations(space: Space, library: cbuild.Library, exactness: str,
               coarsened: cbuild.Library | None = None, idempotent: bool = True) -> Found:
    """Every way ``library``'s canonicaliser breaks its contract on the reachable states: that
    of an exact, complete or approximate strategy (see the module's docstring); ``coarsened``:
    the library of the complete strategy an approximate one coarsens."""
    in_orbit = exactness != "approximate"     # an approximate rep may merge orbits
    found = Found()
    reps_of_orbit: dict[int, set[bytes]] = defaultdict(set)
    for number, (context, keys, first) in enumerate(zip(space.contexts, space.keys, space.first)):
        mask = int.from_bytes(context.mask, "little")
        reps, status = library.canonicalise_with_status(context, context.states)
        rep_keys = library.keys(context, reps)
        through = (library.keys(context, library.canonicalise(context, coarsened.canonicalise(context, context.states)))
                   if coarsened is not None else rep_keys)
        # Idempotence on each distinct canonical form; junk beyond vsize on a sample.
        distinct = {key: rep for key, rep in zip(rep_keys, reps)}
        again = dict(zip(distinct, library.keys(context, library.canonicalise(context, list(distinct.values())))))
        sample = range(0, len(context.states), max(1, len(context.states) // JUNK_SAMPLES))
        junk = dict(zip(sample, library.keys(context, library.canonicalise(
            context, [context.states[i] for i in sample], fill=0xA5))))
        for i, (state, rep, rep_key) in enumerate(zip(context.states, reps, rep_keys)):
            n = space.number[keys[i]]
            started = space.started[first + i]

            def note(check: str, what: str, number=number, context=context, i=i, started=started) -> None:
                found.note(check, f"context {number} (vsize {context.vsize}), state {i}: {what}", started)

            if status[i] & cbuild.VSIZE_CHANGED:
                note("vsize kept", "the canonicaliser changed vsize")
            if status[i] & cbuild.HEADER_CHANGED:
                note("header kept", "_nr_pr, _nr_qs, _a_t or _vsz changed")
            if int.from_bytes(rep, "little") & mask != int.from_bytes(state, "little") & mask:
                note("masked bytes kept", "a masked byte (header, _pid, padding) changed")
            m = space.number.get(rep_key)
            if not in_orbit:
                pass
            elif m is None:
                note("rep in orbit", "rep(s) is no state of any reachable orbit")
            elif space.orbit[m] != space.orbit[n]:
                note("rep in orbit", "rep(s) is in another orbit")
            if idempotent and again[rep_key] != rep_key:
                note("idempotent", "rep(rep(s)) != rep(s)")
            if through[i] != rep_key:
                note("rep(c(s)) == rep(s)", "rep(s) is not rep(c(s)) for the complete strategy c it coarsens")
            if i in junk and junk[i] != rep_key:
                note("only now[0..vsize)", "rep(s) depends on the bytes beyond vsize")
            reps_of_orbit[space.orbit[n]].add(rep_key)
    if exactness == "exact":
        started_orbit = {orbit: started for orbit, started in zip(space.orbit, space.started)}
        for orbit, forms in reps_of_orbit.items():
            if len(forms) > 1:
                found.note("one rep per orbit", f"orbit {orbit} has {len(forms)} canonical forms",
                           started_orbit[orbit])
        _random_elements(space, library, found)
    return found


def _random_elements(space: Space, library: cbuild.Library, found: Found) -> None:
    """rep(g(s)) == rep(s) for random reachable s and random g (g applied by the oracle)."""
    rng = random.Random(SEED)
    group = space.prepared.group.perm_group
    elements = list(group.generate()) if group.order() <= 10_000 else None
    generators = list(group.generators)
    for number, context in enumerate(space.contexts):
        share = max(1, RANDOM_SAMPLES * len(context.states) // sum(len(c.states) for c in space.contexts))
        picks = rng.sample(range(len(context.states)), min(share, len(context.states)))
        for i in picks:
            if elements is not None:
                g = rng.choice(elements)
            else:
                g = generators[0]
                for _ in range(30):
                    g = g * rng.choice(generators)
            state = context.states[i]
            moved = space.oracle.act(context, space.prepared.images(g), [state])
            rep, rep_moved = library.keys(context, library.canonicalise(context, [state, moved[0]]))
            if rep != rep_moved:
                found.note("rep(g(s)) == rep(s)", f"context {number}, state {i}, "
                           f"g = {space.prepared.group.cycles(space.prepared.group.alpha(g))}",
                           space.started[space.first[number] + i])


# ----------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("case", _params(CASES))
def test_capture_is_the_whole_state_space(spaces, case):
    space = spaces(case)
    total = sum(len(c.states) for c in space.contexts)
    assert total == space.captured == space.pan_stored, \
        "the harness must see each state pan stores exactly once"
    assert 1 < space.n_orbits < total
    # If the group fixes the initial state, it maps reachable states to reachable states:
    # then the oracle action must never leave the captured set.
    initial_context, initial = space.contexts[0], space.contexts[0].states[0]
    oracle, prepared = space.oracle, space.prepared
    key = oracle.keys(initial_context, [initial])
    if all(oracle.keys(initial_context, oracle.act(initial_context, prepared.images(g), [initial])) == key
           for g in prepared.group.perm_group.generators):
        assert space.outside == 0, f"{space.outside} images of reachable states are not reachable"


def _coarsened(space: Space, strategy: str) -> cbuild.Library | None:
    """The library of the complete strategy that ``strategy`` coarsens, if any."""
    companion = STRATEGIES[strategy].coarsens
    if companion is None:
        return None
    assert STRATEGIES[companion].exactness == "complete" and companion in space.libraries, companion
    return space.libraries[companion]


def refused(space: Space, strategy: str) -> bool:
    """Whether ``strategy`` refused the model's group; if it did, it must be a strategy that
    is made for products of trees of symmetric groups, and the group must not be one."""
    if strategy not in space.refused:
        return False
    assert STRATEGIES[strategy].symmetric_trees_only, space.refused[strategy]
    group = space.prepared.group
    assert symmetric_trees(group, space.prepared.n_pids) is None, \
        f"{strategy} refused a product of trees of symmetric groups: {space.refused[strategy]}"
    assert "refine" in space.refused[strategy]   # the message names the strategy to use instead
    return True


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("case", _params(CASES))
def test_canonical_forms_on_every_reachable_state(spaces, case, strategy):
    space = spaces(case)
    if refused(space, strategy):
        return
    found = violations(space, space.libraries[strategy], STRATEGIES[strategy].exactness,
                       _coarsened(space, strategy), STRATEGIES[strategy].idempotent)
    assert not found.started, Found.show(found.started)
    assert not found.all, f"only on {UNSTARTED}s: {Found.show(found.all)}"


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("case", _params(CASES))
def test_reduced_search_stores_one_state_per_orbit(spaces, case, strategy):
    space = spaces(case)
    if refused(space, strategy):
        return
    stored = cbuild.stored_states(cbuild.run_pan_in_library(space.libraries[strategy].path, PAN_ARGS))
    if STRATEGIES[strategy].exactness == "exact":
        assert stored == space.n_orbits
    elif STRATEGIES[strategy].exactness == "approximate":
        assert stored <= space.pan_stored
    else:
        assert space.n_orbits <= stored <= space.pan_stored


# ----------------------------------------------------------------------------- a planted bug


def _drop_renaming(lvalue: str):
    """A mutation of the generated C: delete the first statement that renames the pid in a
    place whose C text matches the regular expression ``lvalue`` (``ts_pid``, or ``ts_lid``
    for a pid with an offset: a ref's local id)."""
    pattern = re.compile(r"^.*(" + lvalue + r")\s*=\s*ts_[pl]id\(.*$\n?", re.M)

    def mutate(text: str) -> str:
        mutated, count = pattern.subn("", text, count=1)
        if count == 0:
            pytest.skip(f"this strategy's C renames no pid at {lvalue!r} with ts_pid() or ts_lid()")
        return mutated
    return mutate


def _drop_array_move(array: str):
    """A mutation of the generated C: the first element of the pid-indexed global ``array``
    that the element's image should move (``memcpy(&ts_dst->array[...], ...)``) stays where
    it is: a public variable left with the wrong instance."""
    pattern = re.compile(r"memcpy\(&ts_dst->" + array + r"\[[^;]*;")

    def mutate(text: str) -> str:
        mutated, count = pattern.subn(";", text, count=1)
        if count == 0:
            pytest.skip(f"this strategy's C moves no element of {array!r} with memcpy")
        return mutated
    return mutate


PLANTED = [
    # peterson3: turn[1] holds the pid of the last process to enter level 1.
    pytest.param(CASES[1], r"\bturn\[1\]", id="peterson3-turn1"),
    # email3: the receiver's pid in the messages of one channel (the first `fld1` renamed).
    # (A client's own `receiver` would not do: it is reset inside the same atomic sequence,
    # so it is 0 in every stored state and forgetting it changes nothing the checks could see.)
    pytest.param(CASES[2], r"\.fld1\b", id="email3-message-receiver"),
    # ref_token: the global ref holder, the peer that holds the token.
    pytest.param(CASES[-2], r"\bholder\b", id="ref-token-holder"),
    # clientserver_ext: a client's serv_id, a local id with offset 2 (ts_lid), and the ref to
    # the client in a request (the message field of serChan).
    pytest.param(CASES[-1], r"\bserv_id\b", id="clientserver-ext-serv_id"),
    pytest.param(CASES[-1], r"\.fld1\b", id="clientserver-ext-request-client"),
]


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("case,lvalue", PLANTED)
def test_a_forgotten_pid_renaming_is_caught(spaces, case, lvalue, strategy):
    space = spaces(case)
    if refused(space, strategy):
        return
    tag = re.sub(r"\W", "", lvalue)
    broken = cbuild.Library(cbuild.build_library(
        space.prepared, strategy, space.workdir / f"planted-{strategy}-{tag}", mutate=_drop_renaming(lvalue)))
    exactness = STRATEGIES[strategy].exactness
    found = violations(space, broken, exactness, _coarsened(space, strategy), STRATEGIES[strategy].idempotent)
    assert found.started, "the checks did not notice a canonicaliser that forgets to rename a pid"
    if exactness == "approximate":   # its rep need not be in the orbit
        assert "rep(c(s)) == rep(s)" in found.started
    else:
        assert "rep in orbit" in found.started


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_a_public_variable_left_with_the_wrong_instance_is_caught(spaces, strategy):
    """ref_token: a peer's public `turns` is the global turns[_lid]; a canonicaliser that moves
    the peers but leaves one element of turns behind gives a peer another's count."""
    space = spaces(next(c for c in CASES if c.name == "ref-token"))
    if refused(space, strategy):
        return
    broken = cbuild.Library(cbuild.build_library(
        space.prepared, strategy, space.workdir / f"planted-{strategy}-turns", mutate=_drop_array_move("turns")))
    exactness = STRATEGIES[strategy].exactness
    found = violations(space, broken, exactness, _coarsened(space, strategy), STRATEGIES[strategy].idempotent)
    assert found.started, "the checks did not notice a public variable left with the wrong instance"
    if exactness == "approximate":   # its rep need not be in the orbit
        assert "rep(c(s)) == rep(s)" in found.started
    else:
        assert "rep in orbit" in found.started


# ----------------------------------------------------------------------------- a wrong verdict


# init starts the users one at a time.  Until all three run, a state holds live and unborn
# users.  A canonicaliser that moved the unborn ones' slots (at proc_offset[] 0, the header)
# gave "init + user 1 at `x == 0`" and "init + user 1 at the assert" the same canonical form,
# took the second for visited and never found the assertion violation behind it.
ONE_BY_ONE = """byte x;
proctype user() {
  x == 0;
  assert(_nr_pr != 2);   /* fails when user 1 gets here before init has started user 2 */
  do :: x = 1 :: x = 0 od
}
init { run user(); run user(); run user() }
"""


def test_processes_started_one_by_one_keep_their_assertion_violation(tmp_path):
    model = tmp_path / "one_by_one.pml"
    model.write_text(ONE_BY_ONE)
    options: dict[str, Any] = dict(defines=SAFETY, pan_args=("-c0",), save_trails=False)
    plain = verify(model, VerifyOptions(strategy="none", **options))
    assert plain.complete and plain.errors >= 1
    for strategy in STRATEGIES:
        reduced = verify(model, VerifyOptions(strategy=strategy, **options))
        assert reduced.group_order == 1 or reduced.errors >= 1, \
            f"{strategy}: {reduced.states_stored} states, no error (plain SPIN: {plain.errors})"
