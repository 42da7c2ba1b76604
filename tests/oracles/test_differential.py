"""Differential tests: every model we have, plain SPIN against every registered strategy.
The checks are those of tests/support/differential.py: the same verdict and kind of first
error; exact strategies store the orbit oracle's count where the oracle runs, never more than
plain SPIN, and all the same; a trivial group falls back to plain SPIN's numbers.

Which runs
----------
* tests/models/*.pml and tests/models/extension/*.pml (models written with the ref/public
  extension of [DG01]: verify desugars them and runs spin -o1 on the desugared program, which
  is plain SPIN's reference here too, and the orbit oracle explores that program with the
  declared group): every ``expect:`` run of every model that verifies (tests/models/bad/ is
  refused by the front end and has no verdict).  Where a header gives the group's ``order``,
  the group in force must have it.  Only a group that is not trivial gives
  reduction something to do, and for most of these models the group is trivial (one process,
  processes run with different arguments, pids in arithmetic, embedded C, a claim naming a
  process...).  A trivial group makes every strategy run plain SPIN's own pipeline, which
  costs a gcc -O2 build per strategy and tells nothing new, so for those runs the test only
  checks that every strategy chooses the fallback, except on FALLBACK_SAMPLE, whose runs check
  the fallback itself on an invalid end state, an acceptance cycle and a clean model.  A run
  with weak fairness (pan -f) has no reduced verdict to compare: every strategy must refuse it,
  before it builds anything.
* the shared corpus: every model, with the flags chosen per model in CORPUS_RUNS.  The orbit
  oracle runs where plain SPIN stores at most ORACLE_MAX_STATES states under -DNOREDUCE and
  the group is small enough for Python to enumerate per orbit; the models that
  test_oracles.py already counts under -DNOREDUCE run here with partial order reduction
  instead, which nothing else combines with symmetry reduction on real models.
* models written while probing for such differences that showed a product bug or gap (a receive
  into _pid, processes started one by one, an accept label inside atomic), each with the
  numbers it showed before the fix;
* the checks themselves, on made-up results: a complete or approximate strategy (markers-exact,
  markers-approx, and any registered later) must meet its own contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import differential
import pytest
from conftest import MODELS, corpus_files
from differential import (
    STRATEGY_NAMES,
    Comparison,
    check_against_plain,
    group_in_force,
    orbit_count,
    run,
    verify_every_way,
)
from modelgen import HeaderError, read_header

from topspin_py.codegen.registry import Strategy
from topspin_py.errors import UsageError
from topspin_py.reduce import strategy_choice
from topspin_py.result import Result
from topspin_py.verify import VerifyOptions, verify

ORACLE_MAX_STATES = 100_000
ORACLE_MAX_ORDER = 1_000  # count_orbits applies every element to one state of each orbit
EXTENSION_MODELS = MODELS / "extension"   # written with the ref/public extension ([DG01])


# ------------------------------------------------------------------------------ tests/models
@dataclass(frozen=True)
class ModelRun:
    path: Path
    index: int               # which expect: line of the header
    defines: tuple[str, ...]  # the header's flags and defines, as verify takes them (no -D)
    pan_args: tuple[str, ...]
    order: int | None = None  # the header's order=, from reasoning written in its prose

    @property
    def id(self) -> str:
        return f"{self.path.stem}[{self.index}]"


def _model_runs() -> list[ModelRun]:
    runs = []
    for path in [*sorted(MODELS.glob("*.pml")), *sorted(EXTENSION_MODELS.glob("*.pml"))]:
        try:
            header = read_header(path)
        except HeaderError:
            continue  # test_models.py reports broken headers
        if header.error is not None:
            continue  # refused by the front end: no verdict to compare
        for index, header_run in enumerate(header.runs):
            words = (*header_run.flags, *header_run.defines)
            assert all(w.startswith("-D") for w in words), f"{path.name}: {words}"
            runs.append(ModelRun(path, index, tuple(w[2:] for w in words), header_run.pan, header_run.order))
    return runs


MODEL_RUNS = _model_runs()
# Trivial groups on which the fallback to plain SPIN is checked anyway: a deadlock (invalid end
# state), an acceptance cycle under -a, and a clean model whose processes get different
# arguments.
FALLBACK_SAMPLE = {"deadlock[0]", "accept[2]", "procs[0]"}


def assert_falls_back(group) -> None:
    """A trivial group: every strategy chooses plain SPIN's pipeline (no canonicaliser is
    built), which FALLBACK_SAMPLE checks by running it; a build per strategy would tell
    nothing new."""
    for strategy in ("auto", *STRATEGY_NAMES):
        assert strategy_choice(strategy, group).name == "none", strategy


def test_model_runs_are_found():
    assert len(MODEL_RUNS) >= 30
    assert FALLBACK_SAMPLE <= {run.id for run in MODEL_RUNS}


@pytest.mark.parametrize("model_run", MODEL_RUNS, ids=lambda r: r.id)
def test_own_model(model_run: ModelRun, tmp_path: Path):
    if "-f" in model_run.pan_args:
        for strategy in STRATEGY_NAMES:
            with pytest.raises(UsageError, match="weak fairness"):
                run(model_run.path, strategy, model_run.defines, model_run.pan_args)
        return
    group = group_in_force(model_run.path, model_run.defines, model_run.pan_args)
    if model_run.order is not None:
        assert group.order == model_run.order, (group.order, group.reasons)
    if group.order == 1 and model_run.id not in FALLBACK_SAMPLE:
        assert_falls_back(group)   # the runs themselves: on FALLBACK_SAMPLE
        return
    # -O0: these models are small (as in test_soundness_models); the corpus runs build at -O2.
    comparison = verify_every_way(model_run.path, model_run.defines, model_run.pan_args,
                                  optimisation="-O0")
    assert comparison.group_order == group.order
    orbits = None
    # The orbit oracle counts the orbits of the states plain SPIN stores.  With partial-order
    # reduction on, which states a search stores depends on its order, and a symmetry-reduced
    # search goes another way (clientserver_ext: 1,300 states stored by every exact strategy,
    # 1,328 orbits of plain SPIN's POR state space): the equality holds for full searches only.
    if group.order > 1 and not comparison.plain.errors and "NOREDUCE" in model_run.defines:
        orbits = orbit_count(comparison, tmp_path / "oracle")
    check_against_plain(comparison, orbits)


# The runs of our own models whose header gives a group that is not trivial, one per model
# (a full search, -DNOREDUCE, where there is one): the transition oracle checks the group.
SYMMETRIC_MODEL_RUNS = list({run.path: run for run in reversed(MODEL_RUNS)
                             if (run.order or 1) > 1 and "-f" not in run.pan_args
                             and ("NOREDUCE" in run.defines or not any(
                                 r.path == run.path and "NOREDUCE" in r.defines for r in MODEL_RUNS))}.values())


@pytest.mark.parametrize("model_run", SYMMETRIC_MODEL_RUNS, ids=lambda r: r.id)
def test_own_model_transitions(model_run: ModelRun, tmp_path: Path):
    """Every generator of the group verify uses maps plain pan's state graph onto itself,
    from every image of the initial state (tests/support/transitions.py): the group is a symmetry of
    the model's moves and errors, not only of its reachable states."""
    from transitions import explore_transitions, format_violations, group_violations

    group = group_in_force(model_run.path, model_run.defines, model_run.pan_args)
    assert group.order == model_run.order, (group.order, group.reasons)
    flags = [f"-D{define}" for define in model_run.defines]
    graph = explore_transitions(model_run.path, tmp_path / "oracle", flags, model_run.pan_args,
                                model_run.defines, roots=group.generators, group=group)
    assert graph.edges, "the oracle saw no move"
    broken = {group.cycles(g): v for g, v in group_violations(graph, group.generators).items() if v}
    assert not broken, "\n".join(f"{name}: {format_violations(v)}" for name, v in broken.items())


def test_extended_models_are_tested():
    """The models written with the ref/public extension are among the runs: their declared
    groups are not trivial (but typedef_message's, left out for a limit of the canonicaliser:
    test_declared_group), and token_relay's first run ends in an assertion violation that every
    strategy must find too."""
    extended = {run.id: run for run in MODEL_RUNS if run.path.parent == EXTENSION_MODELS}
    assert {"ref_token[0]", "clientserver_ext[0]", "token_relay[0]", "token_relay[1]",
            "typedef_message[0]"} <= set(extended)
    left_out = {"typedef_message[0]"}
    assert all(run.order == 1 if name in left_out else run.order is not None and run.order > 1
               for name, run in extended.items())
    relay = extended["token_relay[0]"]
    assert read_header(relay.path).runs[relay.index].counts["errors"] == 1


def test_own_models_with_symmetry_are_tested():
    """ltl.pml's mutual-exclusion claim keeps the swap of its two users; were its group trivial,
    test_own_model would test nothing but fallbacks on our own models."""
    ltl = next(r for r in MODEL_RUNS if r.id == "ltl[0]")
    assert ltl.pan_args == ("-a", "-N", "safe")
    assert group_in_force(ltl.path, ltl.defines, ltl.pan_args).order == 2


# ------------------------------------------------------------------------------ the corpus
POR = ()                         # partial order reduction on, pan's default
NOREDUCE = ("NOREDUCE",)


@dataclass(frozen=True)
class CorpusRun:
    model: str                   # path in the shared corpus
    defines: tuple[str, ...]
    pan_args: tuple[str, ...]
    oracle: bool                 # count orbits (plain count <= ORACLE_MAX_STATES, small group)
    why: str                     # why these flags, and why (not) the oracle
    has_error: bool = False      # shared/corpus/README.md: hajek.pml's assertion violation

    @property
    def id(self) -> str:
        return f"{self.model}{'-' + '-'.join(self.pan_args) if self.pan_args else ''}" \
               f"{'-NOREDUCE' if 'NOREDUCE' in self.defines else '-POR'}"


COVERED = "test_oracles counts its orbits under -DNOREDUCE; here with partial order reduction"
CORPUS_RUNS = [
    CorpusRun("topspin/mutex5.p", POR, (), False, COVERED),
    CorpusRun("topspin/peterson3.p", POR, (), False, COVERED),
    CorpusRun("topspin/peterson4.p", POR, ("-m100000",), False, COVERED),
    CorpusRun("topspin/petersonnoatomic/3.p", POR, ("-m100000",), False, COVERED),
    CorpusRun("topspin/email3.p", POR, ("-m100000",), False, COVERED),
    CorpusRun("spin-examples/peterson.pml", POR, (), False, COVERED),
    CorpusRun("spin-examples/manna_pnueli.pml", POR, (), False, COVERED),
    CorpusRun("topspin/email4.p", NOREDUCE, ("-m1000000",), False,
              "852,641 states, POR saves nothing; too many for the oracle"),
    CorpusRun("topspin/2s3cs.p", NOREDUCE, ("-m100000",), False,
              "103,105 states, just over the oracle's limit (test_reduction has its published 2,656)"),
    CorpusRun("topspin/loadbalancer.p", NOREDUCE, ("-m100000",), False,
              "200,850 states; test_reduction runs it with POR, as published"),
    CorpusRun("topspin/resall-5-5.p", NOREDUCE, ("-m100000",), False,
              "21,505 states, but |G| = 14,400 images per orbit take the oracle a minute"),
    CorpusRun("topspin/3d.p", NOREDUCE, ("-m100000",), True, "15,409 states, |G| = 8"),
    CorpusRun("topspin/ring.p", NOREDUCE, (), True, "1,190 states, |G| = 3"),
    CorpusRun("spin-examples/hajek.pml", NOREDUCE, (), False,
              "the assertion violation at depth 58 must survive reduction: verdicts only",
              has_error=True),
    CorpusRun("spin-examples/hajek.pml", NOREDUCE, ("-A",), True,
              "assertions off: the whole 45,857 states, to count its orbits"),
    CorpusRun("spin-examples/leader.pml", POR, (), False,
              "1,975,050 states under -DNOREDUCE, 12,057 with POR; its group is trivial"),
    CorpusRun("topspin/reordered_int.p", POR, (), False,
              "its group is trivial: P writes myArray[1], [2] and [3] by constant index"),
    CorpusRun("topspin/soil3.p", POR, (), False,
              "its group is trivial (an if whose options a swap of agents does not map onto its "
              "options); plain SPIN does not finish it within 6 minutes"),
]


def test_every_corpus_model_has_a_run(corpus):
    models = {str(p.relative_to(corpus)) for p in corpus_files()}
    assert models == {run.model for run in CORPUS_RUNS}


@pytest.mark.parametrize("corpus_run", CORPUS_RUNS, ids=lambda r: r.id)
def test_corpus_model(corpus, corpus_run: CorpusRun, tmp_path: Path):
    path = corpus / corpus_run.model
    group = group_in_force(path, corpus_run.defines, corpus_run.pan_args)
    if group.order == 1:
        assert_falls_back(group)
        return
    comparison = verify_every_way(path, corpus_run.defines, corpus_run.pan_args)
    assert comparison.group_order == group.order
    assert bool(comparison.plain.errors) == corpus_run.has_error, comparison.describe()
    orbits = None
    if corpus_run.oracle:
        assert "NOREDUCE" in corpus_run.defines and not comparison.plain.errors
        assert comparison.plain.states_stored <= ORACLE_MAX_STATES and group.order <= ORACLE_MAX_ORDER
        orbits = orbit_count(comparison, tmp_path / "oracle")
    check_against_plain(comparison, orbits)


# ------------------------------------------------------------------------------ found here
# A receive into _pid.  SPIN's simulator refuses it ("Error: illegal assignment to _pid"), but
# spin -a compiles `q?give(_pid)` into `((P0 *)_this)->_pid = qrecv(...)`: the process takes
# the received pid as its own (and the poll q?[give(_pid)] matches any pid).  pan's compression
# drops _pid from the states it stores (Mask), so plain SPIN takes states that differ only in a
# process's _pid for one: 104 states, 112 with -DNOCOMP.  TopSPIN's ring (in?0,_pid, which
# receives the own pid back) is the reason not to refuse the receive.  topspin-py used to
# permute such states as if _pid were the slot's own: 40 states stored where the swap has 55
# orbits on plain SPIN's 104.  Now _pid is renamed like any pid, the reduced build keeps _pid
# (-DNOCOMP, added by verify; the generated C refuses to compile without it), and the orbit
# oracle of the -DNOCOMP state space holds.
RECEIVE_INTO_PID = """
mtype = { ask, give };
chan q = [2] of { mtype, pid };
pid partner[3];
byte st[3];
proctype P()
{
	pid who;
end:	do
	:: atomic { st[_pid] == 0 && nfull(q) -> q!ask(_pid); st[_pid] = 1 }
	:: atomic { st[_pid] == 1 && q?[ask(who)] && who != _pid -> q?ask(who); partner[_pid] = who; st[_pid] = 2 }
	:: atomic { st[_pid] == 2 && nfull(q) -> q!give(partner[_pid]); st[_pid] = 3 }
	:: atomic { st[_pid] == 3 && q?[give(_pid)] -> q?give(_pid); partner[_pid] = 0; st[_pid] = 0 }
	od
}
init { atomic { run P(); run P() } }
"""


def test_receive_into_pid_is_reduced_exactly_with_pid_kept_in_the_states(tmp_path: Path):
    path = tmp_path / "receive_into_pid.pml"
    path.write_text(RECEIVE_INTO_PID)
    line = RECEIVE_INTO_PID.count("\n", 0, RECEIVE_INTO_PID.index("q?give(_pid)")) + 1
    group = group_in_force(path, NOREDUCE, ())
    assert group.order == 2
    assert any(reason.startswith(f"{path}:{line}:") and "receive into _pid" in reason
               for reason in group.reasons), group.reasons
    comparison = verify_every_way(path, (*NOREDUCE, "NOCOMP"), ())
    check_against_plain(comparison, orbit_count(comparison, tmp_path / "oracle"))
    # Without -DNOCOMP, verify adds it to the reduced builds.
    for strategy in STRATEGY_NAMES:
        result = verify(path, VerifyOptions(strategy=strategy, defines=NOREDUCE, save_trails=False))
        assert "-DNOCOMP" in result.compile_flags
        assert result.states_stored == comparison.reduced[strategy].states_stored


# init starts the copies one `run` at a time, not in an atomic block, so they move while init
# is still starting the others.  The canonicalisers used to leave a state in which some process
# the group moves does not exist yet as its own representative: the exact strategies stored 12
# states where the reachable states form 10 orbits (plain SPIN: 16).  Such a state is now
# reduced by the elements that map existing processes to existing ones (render.py,
# _start_up_chains), which is its orbit.
RUN_ONE_BY_ONE = """
byte st[4];
pid owner = 255;
proctype P()
{
end:	do
	:: atomic { st[_pid] == 0 && owner == 255 -> owner = _pid; st[_pid] = 1 }
	:: atomic { st[_pid] == 1 -> st[_pid] = 2 }
	:: atomic { st[_pid] == 2 && owner == _pid -> owner = 255; st[_pid] = 0 }
	od
}
init { run P(); run P(); run P() }
"""


def test_copies_started_one_by_one_are_reduced_exactly(tmp_path: Path):
    path = tmp_path / "run_one_by_one.pml"
    path.write_text(RUN_ONE_BY_ONE)
    comparison = verify_every_way(path, NOREDUCE, ())
    assert comparison.group_order == 6
    check_against_plain(comparison, orbit_count(comparison, tmp_path / "oracle"))


# An accept label inside an atomic sequence (found by tests/oracles/test_random_models.py before its
# generator learned to keep labels out of sequences).  spin warns "accept label inside atomic -
# is invisible", and indeed pan's nested search never starts from it: no stored state has a
# process at the label.  Plain pan still reports an acceptance cycle, at depth 13, because its
# first search reaches a state on its own stack right after the labelled statement ("state
# match on dfs stack", Schwoon & Esparza); reduced searches took other paths through the two
# copies' 43 orbits, never closed such a cycle, and reported no error.  A verdict that hangs
# on pan's search order cannot survive a reduction, which changes that order: for a cycle
# search, such a label leaves the group trivial (with the reason); a safety search, where the
# label plays no part, keeps the swap.
ACCEPT_INSIDE_ATOMIC = """
byte st[3];
chan r = [2] of { pid };
proctype P()
{
	pid who = 255;
	do
	:: atomic { st[_pid] == 0 && nfull(r) -> accept_here: r!_pid; st[_pid] = 1 }
	:: atomic { st[_pid] == 1 && who == 255 && nempty(r) -> r?who; st[_pid] = 2 }
	:: atomic { st[_pid] == 2 && who != 255 -> st[who] = 0; who = 255; st[_pid] = 0 }
	od
}
init { atomic { run P(); run P() } }
"""


def test_acceptance_cycle_through_a_label_inside_atomic(tmp_path: Path):
    path = tmp_path / "accept_inside_atomic.pml"
    path.write_text(ACCEPT_INSIDE_ATOMIC)
    assert group_in_force(path, NOREDUCE, ()).order == 2
    group = group_in_force(path, NOREDUCE, ("-a",))
    assert group.order == 1
    assert any("accept_here" in reason and "invisible" in reason for reason in group.reasons)
    comparison = verify_every_way(path, NOREDUCE, ("-a",))
    assert differential.error_kind(comparison.plain) == "acceptance cycle"
    check_against_plain(comparison)

# ------------------------------------------------------------------------------ the checks
# Only exact strategies are registered today; these runs of check_against_plain on made-up
# results show that a complete or approximate strategy registered later is held to its own
# contract, and that the checks fail when they should.
def _result(strategy: str, states: int, errors: int = 0, order: int = 6, transitions: int | None = None,
            message: str = "pan:1: assertion violated (x) (at depth 3)") -> Result:
    return Result(model="m.pml", strategy=strategy, group_order=order if strategy != "none" else 1,
                  states_stored=states, states_matched=0,
                  transitions=states if transitions is None else transitions, atomic_steps=0,
                  depth=3, errors=errors, complete=not errors, incomplete_reason=None,
                  approximate=False, elapsed_s=0.0, memory_mb=0.0, trail=None,
                  error_messages=[message] if errors else [])


def _comparison(plain: Result, **reduced: Result) -> Comparison:
    return Comparison(Path("m.pml"), (), (), plain, reduced, {name: [] for name in reduced})


@pytest.fixture
def registry(monkeypatch):
    """STRATEGIES with a complete and an approximate strategy besides the exact ones."""
    strategies = dict(differential.STRATEGIES)
    strategies["wide"] = Strategy("wide", "complete", "at least one state per orbit", "descent", "sorted.c.j2")
    strategies["lossy"] = Strategy("lossy", "approximate", "may lose states", "markers", "markers.c.j2")
    monkeypatch.setattr(differential, "STRATEGIES", strategies)
    return strategies


def test_check_holds_complete_strategies_between_orbits_and_plain(registry):
    check_against_plain(_comparison(_result("none", 100), wide=_result("wide", 30)), orbits=20)
    with pytest.raises(AssertionError):
        check_against_plain(_comparison(_result("none", 100), wide=_result("wide", 19)), orbits=20)
    with pytest.raises(AssertionError, match="verdicts differ"):
        check_against_plain(_comparison(_result("none", 100, errors=1), wide=_result("wide", 30)))


def test_check_lets_approximate_strategies_miss_errors_only_aloud(registry):
    plain = _result("none", 100, errors=1)
    silent = _comparison(plain, lossy=_result("lossy", 10))
    with pytest.raises(AssertionError, match="silently"):
        check_against_plain(silent)
    silent.notes["lossy"].append("hash compaction may have lost states")
    check_against_plain(silent)
    with pytest.raises(AssertionError, match="does not"):
        check_against_plain(_comparison(_result("none", 100), lossy=_result("lossy", 10, errors=1)))


def test_check_catches_exact_strategies_that_disagree_or_miss_the_oracle():
    exact = [name for name, s in differential.STRATEGIES.items() if s.exactness == "exact"]
    plain = _result("none", 100)
    with pytest.raises(AssertionError, match="orbit oracle"):
        check_against_plain(_comparison(plain, **{exact[0]: _result(exact[0], 21)}), orbits=20)
    if len(exact) > 1:
        with pytest.raises(AssertionError, match="disagree"):
            check_against_plain(_comparison(plain, **{exact[0]: _result(exact[0], 20),
                                                      exact[1]: _result(exact[1], 20, transitions=21)}))


def test_check_requires_the_fallback_to_give_plain_numbers():
    name = next(iter(differential.STRATEGIES))
    check_against_plain(_comparison(_result("none", 10), **{name: _result("none", 10)}))
    with pytest.raises(AssertionError, match="fell back"):
        check_against_plain(_comparison(_result("none", 10), **{name: _result("none", 9)}))
