"""Random small Promela models with symmetry, and with one symmetry-breaking defect, for
property-based differential tests (tests/test_random_models.py, issue 5).

Why
---
The hand-written and corpus models exercise a few dozen shapes of symmetric program; a bug in
type inference, detection, the layout or a canonicaliser can hide in a combination none of
them has (a pid kept in a local and used as an index, a queue of pids next to a lock, a state
in the middle of an atomic sequence, a process that differs from its siblings in one literal).
A generator of many small models finds such combinations, and hypothesis shrinks a failing one
to a small example.

What is generated
-----------------
N copies of one proctype (``run`` from ``init``, or ``active [N]``) loop forever over guarded
commands on shared globals; in a model, every command is an ``atomic`` sequence, or every one
a ``d_step``, or every one plain statements that the other copies interleave with:

* ``byte st[]``: each copy's local state, indexed by ``_pid``, and also written through pid
  values held in ``owner`` or ``who`` (``st[owner] = 0``);
* ``pid owner``: a lock holding the pid of its holder (``NOBODY`` = 255 when free);
* ``byte count``: a bounded shared counter;
* ``chan q``, ``chan r`` ``of { pid }``: copies send their own pid and receive pids into a
  local ``pid who``, then act on the sender's slot; a copy that serves requests later also
  marks the requester in a local array indexed by pid, ``bit heard[]``.

A copy's life is a cycle through its local states made of *phases* (:data:`PHASES`: a critical
section, a racy one, a bounded resource, a notification, a request served later), plus up to
two extra commands between any two local states.  A command that waits for something comes
after the one that provides it, so that models run for a while before they block, if they do.
The state space is bounded by the product of small data domains and of the places a copy can
be inside a command (:meth:`ModelSpec.state_bound`); keeping that bound small (with fewer
copies if need be) keeps pan's count at most about 10^4.  Some models violate ``assert(owner == _pid)`` (the racy section) or deadlock, so
verdicts are compared as well as counts; an optional ``end:`` label on the loop makes blocking
at the loop head a valid end state.

For liveness searches a model may carry a label in one command (:attr:`ModelSpec.liveness`):
``accept_here`` (checked with pan -a: acceptance cycles) or ``progress_here`` (-DNP, pan -l:
non-progress cycles).  That command is written as plain statements whatever the others are:
inside an atomic sequence or a d_step, spin calls the label invisible ("accept label inside
atomic - is invisible"), and pan sees it only where its first search happens to close a cycle
on its stack right after the labelled statement, which depends on the search order.  (It
cannot be a counter's command, which must stay atomic.)

A *nearly symmetric* model adds exactly one :class:`Asymmetry`: a pid literal in a guard, a
different initial value in one slot of ``st`` (or a lock that starts held), a process run with
a different argument, or an assertion naming one pid.  That pid must be fixed by every element
of the detected group (:attr:`ModelSpec.fixed_pid`); the other copies may still be permuted.

Pids are SPIN's: with ``run`` from ``init``, init is pid 0 and the copies are 1..N in the order
of their ``run`` statements; with ``active [N]`` the copies are 0..N-1.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from math import prod

from hypothesis import strategies as st

NOBODY = 255            # the value of a pid variable that names no process
MAX_COUNT = 2           # count stays in 0..MAX_COUNT
MAX_LOCAL_STATES = 6
STATE_BOUND = 300_000   # on state_bound(), which overestimates: pan's counts stay below 10^4
CHANNELS = ("q", "r")

# Commands.  Every one is guarded by st[_pid] == a and ends with st[_pid] = b; in between, its
# own guard and effects ({c} is the command's channel):
STEP = "step"                   # nothing else
ACQUIRE = "acquire"             # owner == NOBODY -> owner = _pid
GRAB = "grab"                   # -> owner = _pid, without looking: may break mutual exclusion
RELEASE = "release"             # owner == _pid -> owner = NOBODY
CHECK = "check"                 # -> assert(owner == _pid)
POKE_OWNER = "poke_owner"       # owner != NOBODY && owner != _pid -> st[owner] = 0
COUNT_UP = "count_up"           # count < MAX_COUNT -> count++
COUNT_DOWN = "count_down"       # count > 0 -> count--
SEND = "send"                   # nfull(c) -> c!_pid
RECEIVE_POKE = "receive_poke"   # nempty(c) -> c?who; st[who] = 0; who = NOBODY
RECEIVE_KEEP = "receive_keep"   # who == NOBODY && nempty(c) -> c?who; heard[who] = 1
SERVE = "serve"                 # who != NOBODY -> st[who] = 0; heard[who] = 0; who = NOBODY

_GUARDS = {
    ACQUIRE: ["owner == NOBODY"],
    RELEASE: ["owner == _pid"],
    POKE_OWNER: ["owner != NOBODY", "owner != _pid"],
    COUNT_UP: [f"count < {MAX_COUNT}"],
    COUNT_DOWN: ["count > 0"],
    SEND: ["nfull({c})"],
    RECEIVE_POKE: ["nempty({c})"],
    RECEIVE_KEEP: ["who == NOBODY", "nempty({c})"],
    SERVE: ["who != NOBODY"],
}
_EFFECTS = {
    ACQUIRE: ["owner = _pid"],
    GRAB: ["owner = _pid"],
    RELEASE: ["owner = NOBODY"],
    CHECK: ["assert(owner == _pid)"],
    POKE_OWNER: ["st[owner] = 0"],
    COUNT_UP: ["count++"],
    COUNT_DOWN: ["count--"],
    SEND: ["{c}!_pid"],
    RECEIVE_POKE: ["{c}?who", "st[who] = 0", "who = NOBODY"],
    RECEIVE_KEEP: ["{c}?who", "heard[who] = 1"],
    SERVE: ["st[who] = 0", "heard[who] = 0", "who = NOBODY"],
}
LOCK_COMMANDS = (ACQUIRE, GRAB, RELEASE, CHECK, POKE_OWNER)
COUNTER_COMMANDS = (COUNT_UP, COUNT_DOWN)
CHANNEL_COMMANDS = (SEND, RECEIVE_POKE, RECEIVE_KEEP)
WHO_COMMANDS = (RECEIVE_POKE, RECEIVE_KEEP, SERVE)   # need the local `pid who`
HEARD_COMMANDS = (RECEIVE_KEEP, SERVE)                # need the local `bit heard[]`

# Phases: (kind, channel) through consecutive local states.
PHASES = {
    "think": ((STEP, None),),
    "critical section": ((ACQUIRE, None), (CHECK, None), (RELEASE, None)),
    "short critical section": ((ACQUIRE, None), (RELEASE, None)),
    "racy critical section": ((GRAB, None), (CHECK, None), (RELEASE, None)),
    "bounded resource": ((COUNT_UP, None), (COUNT_DOWN, None)),
    "notify": ((SEND, "q"), (RECEIVE_POKE, "q")),
    "request and serve": ((SEND, "r"), (RECEIVE_KEEP, "r"), (SERVE, None)),
}
# An extra command may be one that waits only if a phase provides what it waits for.
ALWAYS_POSSIBLE = (STEP, ACQUIRE, GRAB, COUNT_UP, SEND)
NEEDS = {
    RELEASE: (ACQUIRE, GRAB), CHECK: (ACQUIRE, GRAB), POKE_OWNER: (ACQUIRE, GRAB),
    COUNT_DOWN: (COUNT_UP,), RECEIVE_POKE: (SEND,), RECEIVE_KEEP: (SEND,), SERVE: (RECEIVE_KEEP,),
}

# Asymmetries
PID_GUARD = "pid_guard"          # one command also needs _pid == K
INITIAL_SLOT = "initial_slot"    # init sets st[K] = v before it runs the copies (run style)
INITIAL_OWNER = "initial_owner"  # pid owner = K: the lock starts held by K
ARGUMENT = "argument"            # copy K is run with argument 1, the others with 0 (run style);
                                 # one command also needs k == 0
NAMED_ASSERT = "named_assert"    # one command also asserts st[K] != v
ASYMMETRY_KINDS = (PID_GUARD, INITIAL_SLOT, INITIAL_OWNER, ARGUMENT, NAMED_ASSERT)
RUN_STYLE_ONLY = (INITIAL_SLOT, ARGUMENT)

# How a command is written: one atomic sequence (pan stores a state after each statement, but
# no other copy moves in between), one d_step (a single transition), or plain statements that
# other copies may interleave with.
ATOMIC, D_STEP, PLAIN = "atomic", "d_step", "plain"
SEQUENCES = (ATOMIC, D_STEP, PLAIN)

# Liveness labels, and the search that looks for cycles through (or around) them.
ACCEPT = "accept"          # pan -a: an acceptance cycle passes accept_here infinitely often
PROGRESS = "progress"      # -DNP, pan -l: a non-progress cycle never passes progress_here


@dataclass(frozen=True)
class Command:
    """One option of the loop: ``kind`` from local state ``a`` to ``b``, on ``channel``."""

    kind: str
    a: int
    b: int
    channel: str | None = None

    def guard(self) -> list[str]:
        return [f"st[_pid] == {self.a}", *(g.format(c=self.channel) for g in _GUARDS.get(self.kind, []))]

    def effects(self) -> list[str]:
        return [*(e.format(c=self.channel) for e in _EFFECTS.get(self.kind, [])), f"st[_pid] = {self.b}"]


@dataclass(frozen=True)
class Asymmetry:
    """The one defect of a nearly symmetric model: ``kind`` singles out pid ``pid``;
    ``command`` is the index of the command it changes (PID_GUARD, ARGUMENT, NAMED_ASSERT),
    ``value`` a local state (INITIAL_SLOT, NAMED_ASSERT)."""

    kind: str
    pid: int
    command: int = 0
    value: int = 1


@dataclass(frozen=True)
class ModelSpec:
    copies: int
    run_from_init: bool           # False: active [copies] proctype
    local_states: int             # st[_pid] ranges over 0..local_states-1
    commands: tuple[Command, ...]
    capacity: int                 # of each channel
    end_label: bool               # blocking at the loop head is a valid end state
    sequence: str                 # how each command is written: ATOMIC, D_STEP or PLAIN
    asymmetry: Asymmetry | None = None
    liveness: str | None = None   # ACCEPT or PROGRESS: a label in command liveness_command
    liveness_command: int = 0

    # ---------------------------------------------------------------- what the model has
    @property
    def pids(self) -> list[int]:
        """The copies' pids, in the order SPIN gives them."""
        first = 1 if self.run_from_init else 0
        return list(range(first, first + self.copies))

    @property
    def array_size(self) -> int:
        """Of the arrays indexed by pid: every pid up to the last copy's (init's too)."""
        return self.pids[-1] + 1

    def uses(self, kinds) -> bool:
        return any(c.kind in kinds for c in self.commands)

    @property
    def channels(self) -> list[str]:
        return [name for name in CHANNELS if any(c.channel == name for c in self.commands)]

    @property
    def has_lock(self) -> bool:
        return self.uses(LOCK_COMMANDS) or self._asymmetry_is(INITIAL_OWNER)

    @property
    def fixed_pid(self) -> int | None:
        """The pid the asymmetry singles out: no valid symmetry may move it."""
        return None if self.asymmetry is None else self.asymmetry.pid

    def _asymmetry_is(self, kind: str) -> bool:
        return self.asymmetry is not None and self.asymmetry.kind == kind

    def state_bound(self) -> int:
        """An upper bound on the reachable states: the product of the data domains, times the
        places a copy can be inside a command (a d_step is one transition), plus a few states
        while init runs.  Generous: pan's counts stay far below it."""
        n = self.copies
        factors = [self.local_states ** n]
        if self.has_lock:
            factors.append(n + 1)
        if self.uses(COUNTER_COMMANDS):
            factors.append(MAX_COUNT + 1)
        factors += [sum(n ** i for i in range(self.capacity + 1)) for _ in self.channels]
        if self.uses(WHO_COMMANDS):
            factors.append((n + 1) ** n)
        if self.uses(HEARD_COMMANDS):
            factors.append(2 ** n)   # heard[] marks at most the pid in who
        steps = sum(len(c.effects()) for c in self.commands)
        if self.sequence == PLAIN:
            factors.append((1 + steps) ** n)
        elif self.sequence == ATOMIC:
            factors.append(1 + n * steps)
        if self.liveness is not None and self.sequence != PLAIN:
            factors.append((1 + len(self.commands[self.liveness_command].effects())) ** n)
        return prod(factors) + n + 2

    # ---------------------------------------------------------------- the text
    def source(self) -> str:
        asym = self.asymmetry
        lines = [f"/* generated by tests/randommodels.py: {self.describe()} */",
                 f"#define NOBODY {NOBODY}", ""]
        lines.append(f"byte st[{self.array_size}];")
        if self.has_lock:
            lines.append(f"pid owner = {asym.pid if self._asymmetry_is(INITIAL_OWNER) else 'NOBODY'};")
        if self.uses(COUNTER_COMMANDS):
            lines.append("byte count;")
        lines += [f"chan {name} = [{self.capacity}] of {{ pid }};" for name in self.channels]
        lines.append("")

        parameter = "byte k" if self._asymmetry_is(ARGUMENT) else ""
        active = "" if self.run_from_init else f"active [{self.copies}] "
        lines += [f"{active}proctype P({parameter})", "{"]
        if self.uses(WHO_COMMANDS):
            lines.append("\tpid who = NOBODY;")
        if self.uses(HEARD_COMMANDS):
            lines.append(f"\tbit heard[{self.array_size}];")
        if self.end_label:
            lines.append("end:")
        lines.append("\tdo")
        for index, command in enumerate(self.commands):
            guard, effects = command.guard(), command.effects()
            if asym is not None and asym.command == index:
                if asym.kind == PID_GUARD:
                    guard.append(f"_pid == {asym.pid}")
                elif asym.kind == ARGUMENT:
                    guard.append("k == 0")
                elif asym.kind == NAMED_ASSERT:
                    effects.insert(0, f"assert(st[{asym.pid}] != {asym.value})")
            sequence = self.sequence
            if sequence == PLAIN and command.kind in COUNTER_COMMANDS:
                sequence = ATOMIC   # a test and update split apart would let count wrap around
            if self.liveness is not None and self.liveness_command == index:
                effects[0] = f"{self.liveness}_here: {effects[0]}"
                sequence = PLAIN
            command_text = f"{' && '.join(guard)} -> {'; '.join(effects)}"
            if sequence != PLAIN:
                command_text = f"{sequence} {{ {command_text} }}"
            lines.append(f"\t:: {command_text}")
        lines += ["\tod", "}", ""]

        if self.run_from_init:
            setup = [f"st[{asym.pid}] = {asym.value}"] if self._asymmetry_is(INITIAL_SLOT) else []
            for pid in self.pids:
                argument = ("1" if pid == asym.pid else "0") if self._asymmetry_is(ARGUMENT) else ""
                setup.append(f"run P({argument})")
            lines.append(f"init {{ atomic {{ {'; '.join(setup)} }} }}")
        return "\n".join(lines) + "\n"

    def describe(self) -> str:
        style = "run from init" if self.run_from_init else "active"
        what = "symmetric" if self.asymmetry is None else \
            f"nearly symmetric ({self.asymmetry.kind}, pid {self.asymmetry.pid})"
        label = f", {self.liveness} label" if self.liveness else ""
        return f"{self.copies} copies ({style}), {what}{label}"


# ------------------------------------------------------------------------------ strategies
def _possible_after(kinds) -> list[str]:
    return [*ALWAYS_POSSIBLE, *(k for k, needs in NEEDS.items() if any(n in kinds for n in needs))]


@st.composite
def model_specs(draw, nearly_symmetric: bool | None = None, liveness: bool | None = None) -> ModelSpec:
    """A ModelSpec within STATE_BOUND (fewer copies if need be).  ``nearly_symmetric``: True
    for exactly one asymmetry, False for none, None for either; ``liveness``: True for an
    accept or progress label, False for none, None for either."""
    # Two copies rarely leave a group once an asymmetry or the pid-0 rule has fixed one.
    copies = draw(st.sampled_from((3, 4, 2)))
    steps = list(PHASES[draw(st.sampled_from(sorted(PHASES)))])
    while len(steps) < 2 or (len(steps) < MAX_LOCAL_STATES - 1 and draw(st.booleans())):
        fitting = sorted(name for name, phase in PHASES.items()
                         if len(steps) + len(phase) <= MAX_LOCAL_STATES)
        steps += PHASES[draw(st.sampled_from(fitting))]
    local_states = len(steps)
    cycle = [Command(kind, a, (a + 1) % local_states, channel) for a, (kind, channel) in enumerate(steps)]
    kinds = [kind for kind, _ in steps]
    channels = sorted({channel for _, channel in steps if channel}) or ["q"]
    state = st.integers(0, local_states - 1)
    extras = draw(st.lists(st.tuples(st.sampled_from(_possible_after(kinds)), state, state,
                                     st.sampled_from(channels)), max_size=2))
    commands = (*cycle, *(Command(kind, a, b, channel if kind in CHANNEL_COMMANDS else None)
                          for kind, a, b, channel in extras))
    capacity = draw(st.integers(1, 2))
    end_label = draw(st.sampled_from((True, True, False)))   # mostly: fewer deadlocks, more counts
    sequence = draw(st.sampled_from(SEQUENCES))
    if liveness is None:
        liveness = draw(st.booleans())
    labellable = [i for i, c in enumerate(commands) if c.kind not in COUNTER_COMMANDS]
    label = draw(st.sampled_from([ACCEPT, PROGRESS])) if liveness and labellable else None
    liveness_command = draw(st.sampled_from(labellable)) if label else 0
    if nearly_symmetric is None:
        nearly_symmetric = draw(st.booleans())
    asymmetry = None
    if nearly_symmetric:
        kind = draw(st.sampled_from(ASYMMETRY_KINDS))
        run_from_init = kind in RUN_STYLE_ONLY or draw(st.booleans())
        first = 1 if run_from_init else 0
        asymmetry = Asymmetry(kind, pid=draw(st.integers(first, first + copies - 1)),
                              command=draw(st.integers(0, len(commands) - 1)),
                              value=draw(st.integers(1, local_states - 1)))
    else:
        run_from_init = draw(st.booleans())
    return _within_bound(ModelSpec(copies, run_from_init, local_states, commands, capacity,
                                   end_label, sequence, asymmetry, label, liveness_command))


def _within_bound(spec: ModelSpec) -> ModelSpec:
    """``spec`` with fewer copies (the asymmetry's pid kept valid) until it fits STATE_BOUND
    or has two copies."""
    while spec.state_bound() > STATE_BOUND and spec.copies > 2:
        copies = spec.copies - 1
        asym = spec.asymmetry
        if asym is not None:
            asym = dataclasses.replace(asym, pid=min(asym.pid, spec.pids[0] + copies - 1))
        spec = dataclasses.replace(spec, copies=copies, asymmetry=asym)
    return spec
