"""The checks a random model goes through (tests/oracles/test_random_models.py,
tests/oracles/test_planted_bugs.py).

Why a module of its own
-----------------------
The random tests assert that a model passes every check; the planted-bug tests assert that,
with a bug planted in the symmetry analysis, some model fails a check that does not trust the
analysis.  Both need the checks run one by one and their failures told apart, so
:func:`examine` records each failure under the name of the check instead of stopping at the
first.

The checks (:data:`CHECKS`)
---------------------------
* ``TEXT``: every element of the detected group maps each set of pids the text singles out
  (:meth:`randommodels.ModelSpec.singled_out`) onto itself.  This one trusts the generator's
  account of its own model, not SPIN.
* ``VERDICTS``: plain SPIN and every registered strategy agree on the verdict and on the kind of
  the first error (differential.check_verdicts).
* ``TRANSITIONS``: the transition oracle (tests/support/transitions.py): plain pan's graph of stored
  states, moves and errors, searched past errors (``-c0``), is mapped onto itself by every
  generator of the group verify used.  It runs where the oracle supports the search: without
  partial order reduction (which leaves out moves) and not under -DNP.
* ``COUNTS``: in a complete search, exact strategies store the orbit oracle's count, at most
  plain SPIN's, all the same (differential.check_counts); the orbit oracle counts orbits of
  plain pan's stored states, for safety searches without errors and without partial order
  reduction.
* ``CLOSURE``: there, every generator that fixes the initial state maps reachable states to
  reachable states (the closure oracle, tests/support/statespace.py).

``VERDICTS`` and ``TRANSITIONS`` do not depend on the generator's account nor on the group
being right: they are the checks that catch an unsound analysis on their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from differential import (
    STRATEGY_NAMES,
    Comparison,
    check_counts,
    check_verdicts,
    explore_graph,
    oracle_flags,
    verify_every_way,
)
from randommodels import ACCEPT, PROGRESS, ModelSpec
from statespace import GroupAction, closure_violations, count_orbits
from transitions import format_violations, transition_violations

from topspin_py.promela import load_model
from topspin_py.symmetry.detect import Group, detect

PAN_ARGS = ("-m100000",)   # deeper than any generated model; verify would rerun otherwise

TEXT, VERDICTS, TRANSITIONS, COUNTS, CLOSURE = "text", "verdicts", "transition oracle", "counts", "closure"
CHECKS = (TEXT, VERDICTS, TRANSITIONS, COUNTS, CLOSURE)
INDEPENDENT = (VERDICTS, TRANSITIONS)   # the checks that trust neither the analysis nor the generator


@dataclass
class Examination:
    """What the checks found for one model: ``failures`` maps a check to what it says, and
    ``ran`` lists the checks that ran."""

    spec: ModelSpec
    source: str
    group: Group
    comparison: Comparison
    ran: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)

    def caught_by(self, checks=INDEPENDENT) -> list[str]:
        return [name for name in checks if name in self.failures]

    def report(self) -> str:
        lines = [f"{name}: {text}" for name, text in self.failures.items()]
        return "\n".join([*lines, self.comparison.describe()])


def search(spec: ModelSpec, partial_order: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """verify's defines and pan arguments for the kind of search the model's label asks for."""
    defines = () if partial_order else ("NOREDUCE",)
    if spec.liveness == ACCEPT:
        return defines, (*PAN_ARGS, "-a")
    if spec.liveness == PROGRESS:
        return (*defines, "NP"), (*PAN_ARGS, "-l")
    return defines, PAN_ARGS


def examine(spec: ModelSpec, partial_order: bool, workdir: Path) -> Examination:
    """Writes the model to ``workdir``, verifies it every way and runs every check that
    applies (module docstring).  Detection runs in this process, and verify in processes
    forked from it, so a bug planted in this process (pytest's monkeypatch) is in force
    in both."""
    source = spec.source()
    path = workdir / "model.pml"
    path.write_text(source)
    group = detect(load_model(path))
    defines, pan_args = search(spec, partial_order)
    strategies = STRATEGY_NAMES if group.order > 1 else STRATEGY_NAMES[:1]
    # -O0: a random model is small, so gcc is most of a run's time (nothing here is timed)
    comparison = verify_every_way(path, defines, pan_args, strategies, optimisation="-O0")
    assert comparison.group_order == group.order, comparison.describe()
    found = Examination(spec, source, group, comparison)

    found.ran.append(TEXT)
    for pids in spec.singled_out():
        moving = [group.cycles(g) for g in group.generators if {g.pid(p) for p in pids} != pids]
        if moving:
            found.failures[TEXT] = f"the text singles out pids {sorted(pids)}, yet {moving} move them"

    _check(found, VERDICTS, lambda: check_verdicts(comparison))

    orbits = None
    if group.order > 1 and not partial_order and spec.liveness != PROGRESS:
        graph, oracle_group = explore_graph(comparison, workdir / "oracle")
        found.ran.append(TRANSITIONS)
        broken = {oracle_group.cycles(g): format_violations(transition_violations(graph, g, limit=3))
                  for g in oracle_group.generators}
        broken = {name: text for name, text in broken.items() if text}
        if broken:
            found.failures[TRANSITIONS] = "\n".join(f"{name}:\n{text}" for name, text in broken.items())
        if spec.liveness is None and not comparison.plain.errors:
            space = graph.space
            if oracle_flags(comparison) == comparison.plain.compile_flags:
                assert space.pan_stored == comparison.plain.states_stored, comparison.describe()
            elements = [oracle_group.alpha(g) for g in oracle_group.perm_group.generate()]
            orbits = count_orbits(space, elements).count
            # A generator that fixes the initial state maps reachable states to reachable states
            # (test_oracles.py explains why the others need not).
            found.ran.append(CLOSURE)
            action, initial = GroupAction(space), space.records[0]
            for generator in oracle_group.generators:
                if space.key(action.image(initial, generator)) == space.key(initial) \
                        and closure_violations(space, generator, limit=1):
                    found.failures[CLOSURE] = (f"{oracle_group.cycles(generator)} maps a reachable "
                                               "state to an unreachable one")
    _check(found, COUNTS, lambda: check_counts(comparison, orbits))
    return found


def _check(found: Examination, name: str, check) -> None:
    found.ran.append(name)
    try:
        check()
    except AssertionError as failure:
        found.failures[name] = str(failure)


def features(spec: ModelSpec) -> list[str]:
    """Coarse tags of what a model holds, for hypothesis' statistics (``event``)."""
    tags = []
    if spec.asymmetry is not None:
        tags += [f"asymmetry: {spec.asymmetry.kind}", f"spelled: {spec.asymmetry.spelling.form}"]
    for observer in spec.observers:
        kind = "defect" if len(observer.pids) == 1 else "benign"
        tags += [f"observer ({kind}): {observer.what}", f"observer in: {observer.where}",
                 f"spelled: {observer.spelling.form}"]
        if observer.spelling.held:
            tags.append("pid held in a plain variable")
    if spec.watch is not None:
        tags.append("watch, located option" if spec.watch.located else "watch, d_step options")
    if spec.short_array is not None:
        tags.append("short pid-indexed array" if spec.short_array.size < spec.array_size
                    else "pid-indexed array covering every pid")
    if spec.channel_use is not None:
        tags += [f"channel id: {spec.channel_use.kind}", f"spelled: {spec.channel_use.spelling.form}"]
    if spec.lock_in_typedef:
        tags.append("lock in a typedef")
    return tags
