"""Differential verification: one model, plain SPIN and every registered strategy.

Why
---
Symmetry reduction must not change what SPIN says about a model: a reduced search that misses
an error, or reports one plain SPIN does not find, is unsound, whatever its state count.  The
published counts (test_reduction.py) and the orbit oracle (test_oracles.py) cover a handful of
models with one set of flags each; these helpers let any model be checked the same way, so that
tests/oracles/test_differential.py can run every model we have and tests/oracles/test_random_models.py every
model hypothesis makes up.

What is compared (:func:`check_against_plain`)
----------------------------------------------
``verify`` runs with ``--strategy none`` and with every strategy of
``topspin_py.codegen.render.STRATEGIES`` (so that a strategy registered later is tested without
editing the tests), with the same defines and pan arguments, and then:

* *verdict*: errors found or not, the same for plain SPIN and for every exact or complete
  strategy.  pan stops at the first error, so for an erroneous model only the verdict and the
  kind of the first error (assertion violated, invalid end state, acceptance cycle, ...) are
  compared, never counts.  The reduced search may meet a *different* error first (it skips
  paths through states symmetric to ones it has seen); when the kinds differ, plain SPIN is run
  again with its own first kind switched off (``-A``, ``-E``) and must then find the reduced
  search's kind: both errors are real.
* *counts*, when the search is complete: an exact strategy stores one state per orbit, so it
  equals the orbit oracle's count (tests/support/statespace.py) when one is given, is at most plain
  SPIN's count, and every exact strategy stores the same number of states and explores the
  same transitions (the search always continues from the actual state, so which states it
  reaches does not depend on how a strategy picks its representative).  A complete strategy
  stores at least one state per orbit: between the orbit count and plain SPIN's count.
* an approximate strategy may lose states, so it may miss an error, but then it must say so
  (a note); it cannot find an error plain SPIN does not (it only follows real transitions).
* *fallback*: for a trivial group every strategy runs plain SPIN (strategy "none", group order
  1) and gives plain SPIN's counts exactly.
* *refusal*: a strategy made for direct products of trees of symmetric groups (blocks and
  wreath products of them: ``Strategy.symmetric_trees_only``) refuses any other group with a
  CodegenError, before it
  builds anything; it may refuse no other group, and no other strategy may refuse.

Side by side
------------
Each ``verify`` is dominated by ``gcc -O2`` on pan.c (about 2 s), so a model costs one build per
strategy plus one.  :func:`verify_every_way` runs them in parallel, in forked worker processes
(one per CPU): threads would not do, because verify's front end keeps parser state in module-
level objects (the lark post-lexer, pycparser's parser) that two threads must not share.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from statespace import StateSpace, count_orbits, explore
from transitions import TransitionGraph, explore_transitions

from topspin_py.codegen.render import STRATEGIES, CodegenError
from topspin_py.codegen.trees import symmetric_trees
from topspin_py.pan.flags import PanOptions
from topspin_py.pan.splice import SYM_MACRO
from topspin_py.reduce import search_context
from topspin_py.result import Result
from topspin_py.symmetry.detect import Group, acting_on_states, detect
from topspin_py.verify import VerifyOptions, verify

STRATEGY_NAMES = tuple(STRATEGIES)
EXACT, COMPLETE, APPROXIMATE = "exact", "complete", "approximate"

# The pan switch that turns off the check behind each kind of first error.
_CHECK_OFF = {"assertion violated": "-A", "invalid end state": "-E"}
_PAN_PREFIX = re.compile(r"^pan:\d+:\s*")
_AT_DEPTH = re.compile(r"\s*\(at depth -?\d+\)\s*$")


@dataclass
class Comparison:
    """One model verified plainly and with every strategy, and what verify noted on the way."""

    path: Path
    defines: tuple[str, ...]
    pan_args: tuple[str, ...]
    plain: Result
    reduced: dict[str, Result]
    notes: dict[str, list[str]] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)   # strategy -> its CodegenError

    @property
    def group_order(self) -> int:
        orders = {result.group_order for result in self.reduced.values()}
        assert len(orders) == 1, f"the strategies used groups of different orders: {orders}"
        return orders.pop()

    def describe(self) -> str:
        rows = [f"{self.path.name} {' '.join(self.defines)} {' '.join(self.pan_args)}".rstrip()]
        for name, result in [("none", self.plain), *self.reduced.items()]:
            rows.append(f"  {name:10} strategy={result.strategy} |G|={result.group_order} "
                        f"states={result.states_stored} transitions={result.transitions} "
                        f"errors={result.errors} kind={error_kind(result)!r} complete={result.complete}")
        rows += [f"  {name:10} refused: {message}" for name, message in self.refused.items()]
        return "\n".join(rows)


def run(path: Path, strategy: str, defines: Sequence[str], pan_args: Sequence[str],
        notes: list[str] | None = None, optimisation: str = "-O2") -> Result:
    """verify with these options, keeping no trail (pan's trail stays in its temp directory).
    The pan arguments are pan's own: without -a or -l the search is a safety search
    (``--safety``), as pan makes it, and as group_in_force assumes.  ``optimisation`` is
    gcc's -O level (``--gcc-opt``): -O0 for small models, where compiling pan.c is most of the
    time and gcc -O0 compiles it about twice as fast."""
    return verify(path, VerifyOptions(strategy=strategy, defines=tuple(defines),
                                      pan_args=tuple(pan_args), save_trails=False,
                                      safety=not PanOptions.parse(pan_args).cycle_search, optimisation=optimisation,
                                      on_note=None if notes is None else notes.append))


def verify_every_way(path: Path, defines: Sequence[str] = (), pan_args: Sequence[str] = (),
                     strategies: Sequence[str] = STRATEGY_NAMES, optimisation: str = "-O2") -> Comparison:
    """``verify`` with ``--strategy none`` and with each of ``strategies``, side by side."""
    jobs = [(Path(path), name, tuple(defines), tuple(pan_args), optimisation)
            for name in ("none", *strategies)]
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        outcomes = list(pool.map(_verify_in_worker, jobs))
    failures = [f"verify --strategy {job[1]} raised:\n{failure}"
                for job, (_, _, failure) in zip(jobs, outcomes) if isinstance(failure, str)]
    if failures:
        raise AssertionError("\n".join(failures))
    (plain, _, _), *rest = outcomes
    assert plain is not None  # plain SPIN's run raised nothing: a failure was raised above
    refused = {name: f"{failure}; hint: {failure.hint}" for name, (_, _, failure) in zip(strategies, rest)
               if isinstance(failure, CodegenError)}
    if refused:
        check_refusals(refused, group_in_force(Path(path), defines, pan_args))
    reduced: dict[str, Result] = {}
    for name, (result, _, _) in zip(strategies, rest):
        if name not in refused:
            assert result is not None  # its run raised nothing: a failure was raised above
            reduced[name] = result
    noted = {name: strategy_notes for name, (_, strategy_notes, _) in zip(strategies, rest)}
    return Comparison(Path(path), tuple(defines), tuple(pan_args), plain, reduced, noted, refused)


def check_refusals(refused: dict[str, str], group: Group) -> None:
    """Only strategies made for products of full symmetric groups on blocks refuse a group, and
    only a group that is not one; the message names the strategy to use instead."""
    acting = acting_on_states(group)
    n_pids = max((p.pid for p in acting.points if p.kind == "pid"), default=0) + 1
    for name, message in refused.items():
        assert STRATEGIES[name].symmetric_trees_only, f"{name} refused the model: {message}"
        assert symmetric_trees(acting, n_pids) is None, \
            f"{name} refused a product of trees of symmetric groups: {message}"
        assert "refine" in message, message


def _verify_in_worker(job) -> tuple[Result | None, list[str], str | CodegenError | None]:
    """One verify in a worker process: its Result and notes, the CodegenError of a strategy
    that refuses the group (checked by the caller), or the traceback of anything else it
    raised (exceptions with keyword-only constructors do not survive pickling)."""
    path, strategy, defines, pan_args, optimisation = job
    notes: list[str] = []
    try:
        return run(path, strategy, defines, pan_args, notes, optimisation), notes, None
    except CodegenError as error:
        if strategy != "none" and STRATEGIES[strategy].symmetric_trees_only:
            return None, notes, error
        return None, notes, traceback.format_exc()
    except Exception:  # reported, with its traceback, by the caller
        return None, notes, traceback.format_exc()


def error_kind(result: Result) -> str | None:
    """What pan's first error was, without its depth or, for an assertion, its expression
    (``assertion violated``, ``invalid end state``, ``acceptance cycle``, ...); None if none."""
    if not result.errors:
        return None
    if not result.error_messages:
        return "error"
    text = _AT_DEPTH.sub("", _PAN_PREFIX.sub("", result.error_messages[0]))
    return "assertion violated" if text.startswith("assertion violated") else text


def group_in_force(path: Path, defines: Sequence[str], pan_args: Sequence[str]) -> Group:
    """The group verify uses: the model's, as the pan spin writes checks it (whether it resets
    dead locals), constrained only by the search pan will make."""
    from topspin_py.pan import loading
    from topspin_py.promela import load_model

    model = load_model(path, tuple(defines))
    checked = loading.check_with_spin(path, list(defines), model) or model
    return detect(search_context(checked, list(defines), list(pan_args)))


def oracle_flags(comparison: Comparison) -> list[str]:
    """The compile flags the reduced searches were built with, without the canonicaliser's
    macro: the oracles explore the state space the reduction explores."""
    reduced_flags = {tuple(f for f in result.compile_flags if f != f"-D{SYM_MACRO}")
                     for result in comparison.reduced.values() if result.strategy != "none"}
    assert len(reduced_flags) <= 1, reduced_flags
    # The reduced builds may add a define plain SPIN does without (-DNOCOMP for a model that
    # receives into _pid, reduce.defines_the_reduction_needs): the oracle explores theirs.
    return list(reduced_flags.pop()) if reduced_flags else comparison.plain.compile_flags


def explore_plain(comparison: Comparison, workdir: Path) -> tuple[StateSpace, Group]:
    """Plain SPIN's state space, dumped with the flags the reduced searches were compiled
    with, and the group verify used (tests/support/statespace.py)."""
    flags = oracle_flags(comparison)
    space = explore(comparison.path, workdir, flags, comparison.pan_args, comparison.defines,
                    group=lambda model: detect(search_context(model, list(comparison.defines),
                                                              list(comparison.pan_args))))
    if flags == comparison.plain.compile_flags:
        assert space.pan_stored == comparison.plain.states_stored
    group = space.group
    assert group is not None
    assert group.order == comparison.group_order
    return space, group


def explore_graph(comparison: Comparison, workdir: Path) -> tuple[TransitionGraph, Group]:
    """Plain SPIN's graph of stored states, moves and errors (tests/support/transitions.py), searched
    with the flags the reduced searches were compiled with and with ``-c0`` (on past errors),
    from every image of the initial state under the group verify used; and that group."""
    group = group_in_force(comparison.path, comparison.defines, comparison.pan_args)
    assert group.order == comparison.group_order
    graph = explore_transitions(comparison.path, workdir, oracle_flags(comparison), comparison.pan_args,
                                comparison.defines, roots=group.generators, group=group)
    return graph, group


def orbit_count(comparison: Comparison, workdir: Path) -> int:
    """The orbit oracle: the number of orbits of reachable states under the group verify used."""
    space, group = explore_plain(comparison, workdir)
    return count_orbits(space, [group.alpha(g) for g in group.perm_group.generate()]).count


# ------------------------------------------------------------------------------ the checks
def check_against_plain(comparison: Comparison, orbits: int | None = None) -> None:
    """Every check of the module docstring; ``orbits`` is the oracle's count, if known."""
    check_verdicts(comparison)
    check_counts(comparison, orbits)


def check_verdicts(comparison: Comparison) -> None:
    plain = comparison.plain
    context = comparison.describe()
    for name, result in comparison.reduced.items():
        if STRATEGIES[name].exactness == APPROXIMATE:
            assert not result.errors or plain.errors, f"{name} found an error plain SPIN does not\n{context}"
            if plain.errors and not result.errors:
                assert comparison.notes[name], f"{name} missed plain SPIN's error silently\n{context}"
            continue
        assert bool(result.errors) == bool(plain.errors), f"verdicts differ ({name})\n{context}"
        assert result.complete == plain.complete, f"{name}: complete differs\n{context}"
        if plain.errors:
            check_error_kind(comparison, name)


def check_error_kind(comparison: Comparison, name: str) -> None:
    """The reduced search's first error is of the kind plain SPIN reports first, or plain SPIN
    finds that kind too once its own first kind is switched off."""
    want, got = error_kind(comparison.plain), error_kind(comparison.reduced[name])
    if want == got:
        return
    context = comparison.describe()
    assert want in _CHECK_OFF, f"{name}: first error {got!r}, plain SPIN's {want!r}\n{context}"
    switch = _CHECK_OFF[want]
    again = run(comparison.path, "none", comparison.defines, (*comparison.pan_args, switch))
    assert error_kind(again) == got, (
        f"{name}: first error {got!r}, plain SPIN's {want!r}; with {switch} plain SPIN finds "
        f"{error_kind(again)!r}\n{context}")


def check_counts(comparison: Comparison, orbits: int | None = None) -> None:
    plain = comparison.plain
    context = comparison.describe()
    reducing = {}
    for name, result in comparison.reduced.items():
        if result.strategy == "none":
            check_fallback(comparison, name)
        else:
            reducing[name] = result
    if plain.errors:
        return  # pan stopped at the first error: the counts depend on where it was found
    assert plain.complete, context
    exact_counts = {}
    for name, result in reducing.items():
        assert result.complete, f"{name}: search incomplete\n{context}"
        exactness = STRATEGIES[name].exactness
        if exactness == EXACT:
            assert result.states_stored <= plain.states_stored, f"{name} stores more than plain\n{context}"
            if orbits is not None:
                assert result.states_stored == orbits, f"{name}: orbit oracle says {orbits}\n{context}"
            exact_counts[name] = (result.states_stored, result.transitions)
        elif exactness == COMPLETE and orbits is not None:
            assert orbits <= result.states_stored <= plain.states_stored, f"{name} ({orbits} orbits)\n{context}"
    assert len(set(exact_counts.values())) <= 1, f"exact strategies disagree: {exact_counts}\n{context}"


def check_fallback(comparison: Comparison, name: str) -> None:
    """A strategy that fell back to plain SPIN (trivial group) gives plain SPIN's numbers."""
    plain, result = comparison.plain, comparison.reduced[name]
    assert (result.strategy, result.group_order) == ("none", 1), comparison.describe()
    same = ("states_stored", "transitions", "states_matched", "errors", "depth")
    assert {k: getattr(result, k) for k in same} == {k: getattr(plain, k) for k in same}, \
        f"{name} fell back to plain SPIN but counts differ\n{comparison.describe()}"
