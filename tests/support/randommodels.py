"""Random small Promela models with symmetry, and with defects that single out a process, for
property-based differential tests (tests/oracles/test_random_models.py).

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
be inside a command (:meth:`ModelSpec.state_bound`); keeping that bound small (with smaller
channels, fewer copies, atomic commands if need be) keeps pan's count at most a few 10^4, even
searched past its errors (pan -c0, as the transition oracle searches).  Some models violate
``assert(owner == _pid)`` (the racy section) or deadlock, so
verdicts are compared as well as counts; an optional ``end:`` label on the loop makes blocking
at the loop head a valid end state.

For liveness searches a model may carry a label in one command (:attr:`ModelSpec.liveness`):
``accept_here`` (checked with pan -a: acceptance cycles) or ``progress_here`` (-DNP, pan -l:
non-progress cycles).  That command is written as plain statements whatever the others are:
inside an atomic sequence or a d_step, spin calls the label invisible ("accept label inside
atomic - is invisible"), and pan sees it only where its first search happens to close a cycle
on its stack right after the labelled statement, which depends on the search order.  (It
cannot be a counter's command, which must stay atomic.)

A *nearly symmetric* model has one *defect* (sometimes two) that singles out a process, and a
*symmetric* model none.  The defects are of two families.

The first, :class:`Asymmetry`, changes the copies themselves: a pid in a guard, a different
initial value in one slot of ``st`` (or a lock that starts held), a process run with a
different argument, or an assertion naming one pid.

The second family are the constructs a symmetry analysis gets wrong when it forgets a place
where a pid is meant.  Each is placed so that it guards an error that only a path
of the process it names reaches: a permutation that moves that process maps states where the
error is reported onto states where it is not, which the transition oracle sees and a reduced
search may act on.

* :class:`Observer`: an assertion, a ``provided`` clause, a never claim or an ltl formula that
  watches one process ``K``: ``P[K]@here`` (K is inside a labelled command), ``P[K]:mark == 1``
  (K has done a marked command), ``st[K] == v``, ``st[base - 1] == v`` (a pid-indexed array
  read at a computed index, ``byte base = K + 1``), ``!enabled(K)`` (K is blocked; claims
  only, where SPIN allows ``enabled``), or a ``for (i in st)`` loop that checks ``st[K]``.
  An observer of *every* copy (``st[1] == v || st[2] == v``) is the benign, symmetric use.
* :class:`Watch`: a monitor with one ``do`` option per copy, ``st[p] == v``.  An option
  written as one d_step is benign; one written as a guard and an assertion
  (``st[K] == v -> assert(st[K] == v)``) has a stored state inside it, where the monitor's
  program counter says which copy it watches: mapping that option onto another copy's is
  wrong, because the canonicaliser does not move the monitor's program counter, and the
  assertion fails only when K moves in between.
* :class:`ShortArray`: ``bit seen[s]`` indexed by pid, read by ``assert(seen[_pid] == 0)``,
  shorter than the range of pids: only the copies with pid ``>= s`` index it out of bounds
  (pan's "invalid array index" assertion).  ``s`` covering every pid is the benign use.  It is
  read, not written: pan -c0, which the transition oracle runs, goes on past the error and
  would write out of bounds, into whatever lies beyond the array in the state vector.
* :class:`ChannelUse`: each copy owns a channel ``box``, and one copy's channel id is named:
  ``box != c``, compared by order (``box < c || box > c``), in arithmetic (``box + 1 != c + 1``)
  or as the index of a data array (``used[box] = 1`` after ``assert(used[c] == 0)``).

Wherever a defect names a pid or a channel id, it is *spelled* (:class:`Spelling`) as a
literal, a ``#define``, constant arithmetic (``2 - 1``), ``N - 3`` with ``#define N 4``, an
mtype name whose value is the pid, and perhaps held in a plain ``byte``, ``short`` or ``int``
global initialised to it (not declared ``pid``; ``_pid`` never flows into it).  A held pid is
the type inference's test: the variable holds a pid only because of where it is used, and the
canonicaliser must rename its value.  When it does, a permutation that moves the pid is a
symmetry of the transitions, which need not fix the initial state (the variable's value moves
with it), so only the text check sees a group that moves it; the analysis fixes such a pid
anyway, because it compares initial values.  A model may also keep its lock in a typedef
field (``lock.holder``), a benign change.

Every element of the detected group must map each set of :meth:`ModelSpec.singled_out` onto
itself (for most defects a single pid: it is fixed); the other copies may still be permuted.

Pids are SPIN's: with ``run`` from ``init``, init is pid 0 and the copies are 1..N in the order
of their ``run`` statements, the monitors after them; with ``active [N]`` the copies are
0..N-1 and the monitors, declared after them, follow.  Channel ids are pan's: the global
channels first, then each copy's ``box`` in pid order.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from math import prod

from hypothesis import strategies as st

NOBODY = 255            # the value of a pid variable that names no process
MAX_COUNT = 2           # count stays in 0..MAX_COUNT
MAX_LOCAL_STATES = 6
STATE_BOUND = 150_000   # on state_bound(), which overestimates: pan's counts stay below about 3 * 10^4
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
RESETTING_COMMANDS = (POKE_OWNER, RECEIVE_POKE, SERVE)  # write another copy's st

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

# How a constant the model names (a pid, a channel id) is spelled (see Spelling).
LITERAL = "literal"                        # 1
DEFINED = "defined"                        # ID1, with #define ID1 1 (a literal again after cpp)
ARITHMETIC = "arithmetic"                  # 2 - 1
DEFINED_ARITHMETIC = "defined arithmetic"  # N - 3, with #define N 4 (N: the size of st)
MTYPE_NAME = "mtype name"                  # m1, with mtype = { m2, m1 } (SPIN numbers from the last)
FORMS = (LITERAL, DEFINED, ARITHMETIC, DEFINED_ARITHMETIC, MTYPE_NAME)
HOLDER_TYPES = ("byte", "short", "int")    # a plain global holding the constant

# What an observer watches in process K (or in every copy, joined by || or &&).
AT_LABEL = "at label"              # P[K]@here<i>: K is inside the labelled (plain) command
MARKED = "marked"                  # P[K]:mark<i> == 1: K has done the marked command
IN_STATE = "in state"              # st[K] == v
COMPUTED_INDEX = "computed index"  # st[base<i> - 1] == v, with byte base<i> = K + 1 (one pid only)
BLOCKED = "blocked"                # !enabled(K) (claims only; needs -DNOREDUCE)
# Where the observation guards an error.
IN_COPIES = "in the copies"        # assert(!(X)) first in a command of P (atomic, not a d_step,
                                   # when X is a remote reference: spin refuses one in a d_step)
MONITOR = "monitor"                # proctype observer<i>() { assert(!(X)) }; every copy: an option each
PROVIDED = "provided"              # proctype observer<i>() provided (X) { assert(false) }
LOOP = "loop"                      # for (slot in st) { assert(slot != K || st[slot] != v) } in a d_step
NEVER = "never claim"              # never { do :: (X) -> break :: else od }: the claim ends; an option each
LTL = "ltl formula"                # ltl { [] !(X) }
CLAIMS = (NEVER, LTL)
WATCHING = {
    IN_COPIES: (MARKED, IN_STATE, COMPUTED_INDEX),   # spin: "cannot remote ref a label inside the same proctype"
    MONITOR: (AT_LABEL, MARKED, IN_STATE, COMPUTED_INDEX),
    PROVIDED: (IN_STATE, COMPUTED_INDEX),    # spin: "invalid PROVIDED clause" for remote references
    LOOP: (IN_STATE,),
    NEVER: (AT_LABEL, MARKED, IN_STATE, COMPUTED_INDEX, BLOCKED),
    LTL: (AT_LABEL, MARKED, IN_STATE, COMPUTED_INDEX, BLOCKED),
}
# An observer of every copy is benign: it keeps the group.  Where it joins its conditions with
# || or && (an ltl formula, a provided clause, an assertion in the copies), the analysis reads
# the operands in order unless each is a plain comparison with a literal index (evaluating
# ``P[1]:mark``, ``enabled(1)`` or ``st[N - 1]`` might fail, it assumes), and it does not fold
# mtype names in the text it compares with: there, benign observers watch the states, with
# pids written as literals (cpp's included), so that their groups stay non-trivial.
BENIGN = {IN_COPIES: (IN_STATE,), PROVIDED: (IN_STATE,), LTL: (IN_STATE,)}
BENIGN_FORMS = (LITERAL, DEFINED)

# How a copy's own channel id is named (ChannelUse).
NOT_ITS_ID = "box != c"
ORDERED = "box compared by order"
SHIFTED = "box in arithmetic"
INDEXED = "box indexes data"
CHANNEL_USES = (NOT_ITS_ID, ORDERED, SHIFTED, INDEXED)

# The defects a nearly symmetric model draws from (observers are the most varied, so drawn
# more often).
OBSERVER, WATCH, SHORT_ARRAY, CHANNEL = "observer", "watch", "short array", "channel"
DEFECT_KINDS = (*ASYMMETRY_KINDS, OBSERVER, OBSERVER, OBSERVER, WATCH, SHORT_ARRAY, CHANNEL)

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
class Spelling:
    """How the model writes a constant it names: ``form`` (FORMS) and, when ``held`` is a type
    name (HOLDER_TYPES), through a plain global of that type initialised to it."""

    form: str = LITERAL
    held: str | None = None

    def describe(self) -> str:
        return self.form + (f", held in {'an' if self.held == 'int' else 'a'} {self.held}" if self.held else "")


@dataclass(frozen=True)
class Asymmetry:
    """A defect of the copies: ``kind`` singles out pid ``pid``; ``command`` is the index of
    the command it changes (PID_GUARD, ARGUMENT, NAMED_ASSERT), ``value`` a local state
    (INITIAL_SLOT, NAMED_ASSERT); ``spelling`` how the pid is written (not for ARGUMENT, which
    does not write it)."""

    kind: str
    pid: int
    command: int = 0
    value: int = 1
    spelling: Spelling = Spelling()


@dataclass(frozen=True)
class Observer:
    """Watches ``what`` of the processes ``pids`` (one: a defect; every copy, joined by
    ``join``: benign) and guards an error with it, ``where``.  ``command`` is the command that
    carries the label (AT_LABEL) or the mark (MARKED), ``site`` the one whose first statement
    is the assertion (IN_COPIES), ``value`` a local state (IN_STATE, COMPUTED_INDEX, LOOP)."""

    what: str
    where: str
    pids: tuple[int, ...]
    spelling: Spelling = Spelling()
    join: str = "||"
    command: int = 0
    site: int = 0
    value: int = 1

    def describe(self) -> str:
        whom = f"pid {self.pids[0]}" if len(self.pids) == 1 else f"every copy ({self.join})"
        spelled = "" if self.what == COMPUTED_INDEX else f", {self.spelling.describe()}"
        return f"observer ({self.what}) of {whom}, {self.where}{spelled}"


@dataclass(frozen=True)
class Watch:
    """A monitor with one option per copy that waits for ``st[p] == value``; the options of
    ``located`` are a guard and an assertion (a stored state in between), the others a d_step."""

    value: int
    located: tuple[int, ...] = ()
    form: str = LITERAL

    def describe(self) -> str:
        return f"watch, located for {list(self.located)}" if self.located else "watch"


@dataclass(frozen=True)
class ShortArray:
    """``bit seen[size]``, indexed by pid, read by ``assert(seen[_pid] == 0)`` in command ``command``."""

    size: int
    command: int = 0


@dataclass(frozen=True)
class ChannelUse:
    """Each copy owns ``chan box``; command ``command`` names the id of copy ``pid``'s box in
    the way ``kind`` says (CHANNEL_USES), spelled with ``spelling``."""

    kind: str
    pid: int
    command: int = 0
    spelling: Spelling = Spelling()


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
    observers: tuple[Observer, ...] = ()
    watch: Watch | None = None
    short_array: ShortArray | None = None
    channel_use: ChannelUse | None = None
    lock_in_typedef: bool = False  # the lock is the field `holder` of a typedef

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

    @property
    def monitors(self) -> list[str]:
        """The proctypes of one process each, run (or declared) after the copies."""
        names = [f"observer{i}" for i, o in enumerate(self.observers) if o.where in (MONITOR, PROVIDED, LOOP)]
        return names + (["watch"] if self.watch is not None else [])

    def uses(self, kinds) -> bool:
        return any(c.kind in kinds for c in self.commands)

    @property
    def channels(self) -> list[str]:
        return [name for name in CHANNELS if any(c.channel == name for c in self.commands)]

    @property
    def has_lock(self) -> bool:
        return self.uses(LOCK_COMMANDS) or self._asymmetry_is(INITIAL_OWNER)

    def box_id(self, pid: int) -> int:
        """pan's id of the channel ``box`` of copy ``pid``: after the global channels, in pid order."""
        return len(self.channels) + self.pids.index(pid) + 1

    def singled_out(self) -> list[frozenset[int]]:
        """Sets of pids that the text tells apart from the other copies: every valid symmetry
        maps each onto itself (a single pid: fixes it)."""
        sets = []
        if self.asymmetry is not None:
            sets.append(frozenset({self.asymmetry.pid}))
        sets += [frozenset(o.pids) for o in self.observers if len(o.pids) == 1]
        if self.watch is not None:
            sets += [frozenset({p}) for p in self.watch.located]
        if self.short_array is not None:
            beyond = frozenset(p for p in self.pids if p >= self.short_array.size)
            if beyond:
                sets.append(beyond)
        if self.channel_use is not None:
            sets.append(frozenset({self.channel_use.pid}))
        return sets

    @property
    def nearly_symmetric(self) -> bool:
        return bool(self.singled_out())

    def constructs(self) -> list[str]:
        """What the model holds beyond the copies' loop, for hypothesis' statistics."""
        found = [f"asymmetry {self.asymmetry.kind} ({self.asymmetry.spelling.describe()})"] if self.asymmetry else []
        found += [o.describe() for o in self.observers]
        if self.watch is not None:
            found.append(self.watch.describe())
        if self.short_array is not None:
            found.append("short array" if self.short_array.size < self.array_size else "array covering every pid")
        if self.channel_use is not None:
            found.append(f"channel id {self.channel_use.kind} ({self.channel_use.spelling.describe()})")
        if self.lock_in_typedef:
            found.append("lock in a typedef")
        return found

    def _asymmetry_is(self, kind: str) -> bool:
        return self.asymmetry is not None and self.asymmetry.kind == kind

    def state_bound(self) -> int:
        """An upper bound on the reachable states: the product of the data domains and of the
        places a copy can be (its local state at the loop head, or inside a command: a d_step
        is one transition), the monitors' places and the claim's, plus a few states while init
        runs.  Generous: pan's counts stay far below it."""
        n = self.copies
        factors = []
        if self.has_lock:
            factors.append(n + 1)
        if self.uses(COUNTER_COMMANDS):
            factors.append(MAX_COUNT + 1)
        factors += [sum(n ** i for i in range(self.capacity + 1)) for _ in self.channels]
        if self.uses(WHO_COMMANDS):
            factors.append((n + 1) ** n)
        if self.uses(HEARD_COMMANDS):
            factors.append(2 ** n)   # heard[] marks at most the pid in who
        bits = sum(1 for o in self.observers if o.what == MARKED) \
            + (self.channel_use is not None and self.channel_use.kind == INDEXED)
        factors.append(2 ** (n * bits))
        plain_steps = atomic_steps = 0
        for index in range(len(self.commands)):
            _, effects, sequence, _ = self._command_parts(index, _Text(self))
            if sequence == PLAIN:
                plain_steps += len(effects)
            elif sequence == ATOMIC:
                atomic_steps += len(effects)
        # A copy is at the loop head in one of its local states, or inside a plain command,
        # whose local state is then the command's unless another copy resets it (st[owner] = 0,
        # st[who] = 0), or inside an atomic one (one copy at most).
        if self.uses(RESETTING_COMMANDS):
            factors.append(self.local_states ** n * (1 + plain_steps) ** n)
        else:
            factors.append((self.local_states + plain_steps) ** n)
        factors.append(1 + n * atomic_steps)
        factors.append(3 ** len(self.monitors))     # each monitor is before or after its one step, or gone ...
        if self.watch is not None:
            factors.append(1 + len(self.watch.located))   # ... or inside a located option
        if any(o.where in CLAIMS for o in self.observers):
            factors.append(4)
        return prod(factors) + n + 2

    # ---------------------------------------------------------------- the text
    def source(self) -> str:
        text = _Text(self)
        asym = self.asymmetry
        lines = [f"byte st[{self.array_size}];"]
        if self.has_lock:
            holder = text.spelled(asym.pid, asym.spelling) \
                if asym is not None and self._asymmetry_is(INITIAL_OWNER) else "NOBODY"
            if self.lock_in_typedef:
                lines += [f"typedef Lock {{ pid holder = {holder} }};", "Lock lock;"]
            else:
                lines.append(f"pid owner = {holder};")
        if self.uses(COUNTER_COMMANDS):
            lines.append("byte count;")
        lines += [f"chan {name} = [{self.capacity}] of {{ pid }};" for name in self.channels]
        if self.short_array is not None:
            lines.append(f"bit seen[{self.short_array.size}];")
        if self.channel_use is not None and self.channel_use.kind == INDEXED:
            lines.append(f"bit used[{self.box_id(self.pids[-1]) + 1}];")
        lines.append("")

        parameter = "byte k" if self._asymmetry_is(ARGUMENT) else ""
        active = "" if self.run_from_init else f"active [{self.copies}] "
        lines += [f"{active}proctype P({parameter})", "{"]
        if self.uses(WHO_COMMANDS):
            lines.append("\tpid who = NOBODY;")
        if self.uses(HEARD_COMMANDS):
            lines.append(f"\tbit heard[{self.array_size}];")
        lines += [f"\tbit mark{i};" for i, o in enumerate(self.observers) if o.what == MARKED]
        if self.channel_use is not None:
            lines.append("\tchan box = [1] of { byte };")
        if self.end_label:
            lines.append("end:")
        lines.append("\tdo")
        for index in range(len(self.commands)):
            guard, effects, sequence, labels = self._command_parts(index, text)
            effects[0] = "".join(f"{label}: " for label in labels) + effects[0]
            command_text = f"{' && '.join(guard)} -> {'; '.join(effects)}"
            if sequence != PLAIN:
                command_text = f"{sequence} {{ {command_text} }}"
            lines.append(f"\t:: {command_text}")
        lines += ["\tod", "}", ""]

        monitor_active = "" if self.run_from_init else "active "
        for i, observer in enumerate(self.observers):
            if observer.where in (MONITOR, PROVIDED, LOOP):
                lines += self._monitor(i, observer, text, monitor_active)
        if self.watch is not None:
            lines += self._watch(text, monitor_active)

        if self.run_from_init:
            setup = [f"st[{text.spelled(asym.pid, asym.spelling)}] = {asym.value}"] \
                if asym is not None and self._asymmetry_is(INITIAL_SLOT) else []
            for pid in self.pids:
                argument = ("1" if pid == asym.pid else "0") \
                    if asym is not None and self._asymmetry_is(ARGUMENT) else ""
                setup.append(f"run P({argument})")
            setup += [f"run {name}()" for name in self.monitors]
            lines.append(f"init {{ atomic {{ {'; '.join(setup)} }} }}")
        for i, observer in enumerate(self.observers):
            if observer.where == NEVER:
                ends = " ".join(f":: ({x}) -> break" for x in self._observations(i, observer, text))
                lines.append(f"never {{ do {ends} :: else od }}")
            elif observer.where == LTL:
                lines.append(f"ltl observed{i} {{ [] !({self._observed(i, observer, text)}) }}")
        lines = [f"/* generated by tests/support/randommodels.py: {self.describe()} */",
                 f"#define NOBODY {NOBODY}", *text.header(), ""] + lines
        if self.lock_in_typedef:
            lines = [re.sub(r"\bowner\b", "lock.holder", line) for line in lines]
        return "\n".join(lines) + "\n"

    def _command_parts(self, index: int, text: _Text) -> tuple[list[str], list[str], str, list[str]]:
        """Command ``index`` as written: its guard, its statements, how they are sequenced and
        the labels of its first statement."""
        command, asym = self.commands[index], self.asymmetry
        guard, effects, labels = command.guard(), command.effects(), []
        if asym is not None and asym.command == index:
            if asym.kind == PID_GUARD:
                guard.append(f"_pid == {text.spelled(asym.pid, asym.spelling)}")
            elif asym.kind == ARGUMENT:
                guard.append("k == 0")
            elif asym.kind == NAMED_ASSERT:
                effects.insert(0, f"assert(st[{text.spelled(asym.pid, asym.spelling)}] != {asym.value})")
        if self.short_array is not None and self.short_array.command == index:
            effects.insert(0, "assert(seen[_pid] == 0)")
        use = self.channel_use
        if use is not None and use.command == index:
            box = self.box_id(use.pid)
            if use.kind == NOT_ITS_ID:
                effects.insert(0, f"assert(box != {text.spelled(box, use.spelling, 'chan')})")
            elif use.kind == ORDERED:
                c = text.spelled(box, use.spelling, 'chan')
                effects.insert(0, f"assert(box < {c} || box > {c})")
            elif use.kind == SHIFTED:
                effects.insert(0, f"assert(box + 1 != {text.spelled(box + 1, use.spelling, 'chan')})")
            else:
                effects[0:0] = [f"assert(used[{text.spelled(box, use.spelling, 'chan')}] == 0)", "used[box] = 1"]
        for i, observer in enumerate(self.observers):
            if observer.what == MARKED and observer.command == index:
                effects.insert(0, f"mark{i} = 1")
            if observer.where == IN_COPIES and observer.site == index:
                effects.insert(0, f"assert(!({self._observed(i, observer, text)}))")
        sequence = self.sequence
        if sequence == PLAIN and command.kind in COUNTER_COMMANDS:
            sequence = ATOMIC   # a test and update split apart would let count wrap around
        if sequence == D_STEP and any(o.where == IN_COPIES and o.site == index and o.what == MARKED
                                      for o in self.observers):
            sequence = ATOMIC   # spin: "remote reference in d_step"
        if self.liveness is not None and self.liveness_command == index:
            labels.append(f"{self.liveness}_here")
            sequence = PLAIN    # a label inside atomic is invisible to pan
        for i, observer in enumerate(self.observers):
            if observer.what == AT_LABEL and observer.command == index:
                labels.append(f"here{i}")
                sequence = PLAIN   # no other process observes one inside an atomic sequence
        return guard, effects, sequence, labels

    def _observed(self, i: int, observer: Observer, text: _Text) -> str:
        """The condition observer ``i`` watches (X)."""
        def one(pid: int) -> str:
            if observer.what == COMPUTED_INDEX:
                return f"st[{text.variable(f'base{i}', 'byte', str(pid + 1))} - 1] == {observer.value}"
            k = text.spelled(pid, observer.spelling)
            if observer.what == AT_LABEL:
                return f"P[{k}]@here{i}"
            if observer.what == MARKED:
                return f"P[{k}]:mark{i} == 1"
            if observer.what == IN_STATE:
                return f"st[{k}] == {observer.value}"
            assert observer.what == BLOCKED, observer.what
            return f"!enabled({k})"
        parts = [one(pid) for pid in observer.pids]
        return f" {observer.join} ".join(f"({part})" if len(parts) > 1 else part for part in parts)

    def _observations(self, i: int, observer: Observer, text: _Text) -> list[str]:
        """What observer ``i`` watches, one condition per process it watches."""
        return [self._observed(i, dataclasses.replace(observer, pids=(pid,)), text) for pid in observer.pids]

    def _monitor(self, i: int, observer: Observer, text: _Text, active: str) -> list[str]:
        name = f"observer{i}"
        if observer.where == MONITOR:
            # Every copy: one option per copy, each one statement, so that options may be
            # exchanged (a join `||` of remote references is read in order: one may fail).
            checks = [f"assert(!({x}))" for x in self._observations(i, observer, text)]
            body = checks[0] if len(checks) == 1 else "if " + " ".join(f":: {c}" for c in checks) + " fi"
            return [f"{active}proctype {name}() {{ {body} }}", ""]
        if observer.where == PROVIDED:
            return [f"{active}proctype {name}() provided ({self._observed(i, observer, text)}) {{ assert(false) }}", ""]
        if len(observer.pids) == 1:
            check = f"slot != {text.spelled(observer.pids[0], observer.spelling)} || st[slot] != {observer.value}"
        else:
            check = f"st[slot] != {observer.value}"
        return [f"{active}proctype {name}() {{ byte slot; d_step {{ for (slot in st) {{ assert({check}) }} }} }}", ""]

    def _watch(self, text: _Text, active: str) -> list[str]:
        watch = self.watch
        assert watch is not None  # source() calls this only with a watch
        lines = [f"{active}proctype watch()", "{", "end:", "\tdo"]
        for pid in self.pids:
            p = text.spelled(pid, Spelling(watch.form))
            if pid in watch.located:
                lines.append(f"\t:: st[{p}] == {watch.value} -> assert(st[{p}] == {watch.value})")
            else:
                lines.append(f"\t:: d_step {{ st[{p}] == {watch.value} -> skip }}")
        return lines + ["\tod", "}", ""]

    def describe(self) -> str:
        style = "run from init" if self.run_from_init else "active"
        what = "symmetric" if not self.nearly_symmetric else \
            "nearly symmetric (singles out " + ", ".join(str(sorted(s)) for s in self.singled_out()) + ")"
        label = f", {self.liveness} label" if self.liveness else ""
        constructs = "; ".join(self.constructs())
        return f"{self.copies} copies ({style}), {what}{label}" + (f"; {constructs}" if constructs else "")


class _Text:
    """The declarations that spelled constants need, collected while a model is written."""

    def __init__(self, spec: ModelSpec) -> None:
        self.size = spec.array_size
        self.defines: dict[str, int] = {}
        self.mtypes = 0            # m1 .. m<mtypes> are declared
        self.globals: dict[str, str] = {}

    def constant(self, value: int, form: str) -> str:
        if form == LITERAL:
            return str(value)
        if form == DEFINED:
            self.defines[f"ID{value}"] = value
            return f"ID{value}"
        if form == ARITHMETIC:
            return f"{value + 1} - 1"
        if form == DEFINED_ARITHMETIC:
            self.defines["N"] = self.size
            if value == self.size:
                return "N"
            return f"N - {self.size - value}" if value < self.size else f"N + {value - self.size}"
        assert form == MTYPE_NAME, form
        assert value >= 1, "mtype values start at 1"
        self.mtypes = max(self.mtypes, value)
        return f"m{value}"

    def spelled(self, value: int, spelling: Spelling, role: str = "pid") -> str:
        """``value`` as ``spelling`` writes it; ``role`` names the variable that holds it
        (a pid and a channel id of the same value are held apart)."""
        text = self.constant(value, spelling.form)
        if spelling.held is None:
            return text
        return self.variable(f"{role}{value}", spelling.held, text)

    def variable(self, name: str, type_name: str, init: str) -> str:
        self.globals[name] = f"{type_name} {name} = {init};"
        return name

    def header(self) -> list[str]:
        lines = [f"#define {name} {value}" for name, value in sorted(self.defines.items())]
        if self.mtypes:
            # SPIN gives the last name 1, the one before it 2, ...: m<v> is v.
            lines.append("mtype = { " + ", ".join(f"m{v}" for v in range(self.mtypes, 0, -1)) + " };")
        return lines + list(self.globals.values())


# ------------------------------------------------------------------------------ strategies
def _possible_after(kinds) -> list[str]:
    return [*ALWAYS_POSSIBLE, *(k for k, needs in NEEDS.items() if any(n in kinds for n in needs))]


@st.composite
def model_specs(draw, nearly_symmetric: bool | None = None, liveness: bool | None = None,
                partial_order: bool = False) -> ModelSpec:
    """A ModelSpec within STATE_BOUND (fewer copies if need be).  ``nearly_symmetric``: True
    for one defect (sometimes two), False for none, None for either; ``liveness``: True for an
    accept or progress label, False for none, None for either; ``partial_order``: the model
    will be searched with partial order reduction, which pan refuses with enabled()."""
    # Two copies rarely leave a group once an asymmetry or the pid-0 rule has fixed one.
    copies = draw(st.sampled_from((3, 4, 3, 2)))
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
    defects = [draw(st.sampled_from(DEFECT_KINDS)) for _ in range(draw(st.sampled_from((1, 1, 1, 2))))] \
        if nearly_symmetric else []
    # At most one of each kind but observers (the spec has one slot for each); the rest observe.
    classic = next((kind for kind in defects if kind in ASYMMETRY_KINDS), None)
    defects = [OBSERVER if (kind in defects[:i] and kind != OBSERVER) or (kind in ASYMMETRY_KINDS and kind != classic)
               else kind for i, kind in enumerate(defects)]
    run_from_init = classic in RUN_STYLE_ONLY or draw(st.booleans())
    first = 1 if run_from_init else 0
    pids = list(range(first, first + copies))
    draws = _Draws(draw, pids, local_states, len(commands), labellable,
                   claims_allowed=label is None, enabled_allowed=not partial_order)

    asymmetry = None
    if classic is not None:
        pid = draw(st.sampled_from(pids))
        spelling = draws.spelling(pid, holdable=classic != INITIAL_OWNER)
        asymmetry = Asymmetry(classic, pid=pid, command=draw(st.integers(0, len(commands) - 1)),
                              value=draw(draws.values), spelling=spelling)
    observers = [draws.observer(single=True) for kind in defects if kind == OBSERVER]
    if len(observers) < 2 and draw(st.sampled_from((False, False, True))):
        observers.append(draws.observer(single=False))
    watch = None
    if WATCH in defects or draw(st.sampled_from((False, False, False, True))):
        located = (draw(st.sampled_from(pids)),) if WATCH in defects else ()
        watch = Watch(draw(draws.values), located, draws.form(min(pids)))
    short_array = None
    if SHORT_ARRAY in defects:
        short_array = ShortArray(draw(st.sampled_from([p for p in pids if p >= 1])),
                                 draw(st.integers(0, len(commands) - 1)))
    elif draw(st.sampled_from((False,) * 5 + (True,))):
        short_array = ShortArray(pids[-1] + 1, draw(st.integers(0, len(commands) - 1)))
    channel_use = None
    if CHANNEL in defects:
        channel_use = ChannelUse(draw(st.sampled_from(CHANNEL_USES)), draw(st.sampled_from(pids)),
                                 draw(st.integers(0, len(commands) - 1)), draws.spelling(1))
    lock_in_typedef = draw(st.sampled_from((False, False, True)))
    return _within_bound(ModelSpec(copies, run_from_init, local_states, commands, capacity, end_label,
                                   sequence, asymmetry, label, liveness_command, tuple(observers), watch,
                                   short_array, channel_use, lock_in_typedef))


class _Draws:
    """Draws the parts of a model that name its processes."""

    def __init__(self, draw, pids: list[int], local_states: int, commands: int, labellable: list[int],
                 claims_allowed: bool, enabled_allowed: bool) -> None:
        self.draw, self.pids, self.commands, self.labellable = draw, pids, commands, labellable
        self.values = st.integers(1, local_states - 1)
        self.claims_allowed, self.enabled_allowed = claims_allowed, enabled_allowed
        self.claimed = False   # one claim per model: pan checks one

    def form(self, smallest: int) -> str:
        form = self.draw(st.sampled_from(FORMS))
        return ARITHMETIC if form == MTYPE_NAME and smallest < 1 else form

    def spelling(self, value: int, holdable: bool = True) -> Spelling:
        held = self.draw(st.sampled_from(HOLDER_TYPES)) \
            if holdable and self.draw(st.sampled_from((False, False, True))) else None
        return Spelling(self.form(value), held)

    def observer(self, single: bool) -> Observer:
        draw = self.draw
        wheres = [w for w in WATCHING if w not in CLAIMS or (self.claims_allowed and not self.claimed)]
        where = draw(st.sampled_from(wheres))
        self.claimed = self.claimed or where in CLAIMS
        whats = [w for w in WATCHING[where] if (self.enabled_allowed or w != BLOCKED)
                 and (self.labellable or w != AT_LABEL)
                 and (single or (w != COMPUTED_INDEX and w in BENIGN.get(where, WATCHING[where])))]
        # Remote references twice as often: the places an analysis overlooks most.
        what = draw(st.sampled_from(whats + [w for w in whats if w in (AT_LABEL, MARKED)]))
        pids = (draw(st.sampled_from(self.pids)),) if single else tuple(self.pids)
        spelling = self.spelling(pids[0]) if single else \
            Spelling(self.draw(st.sampled_from(BENIGN_FORMS)) if where in BENIGN else self.form(min(pids)))
        command = draw(st.sampled_from(self.labellable if what == AT_LABEL else range(self.commands)))
        return Observer(what, where, pids, spelling, draw(st.sampled_from(("||", "&&"))), command,
                        draw(st.integers(0, self.commands - 1)), draw(self.values))


def _within_bound(spec: ModelSpec) -> ModelSpec:
    """``spec`` made smaller until it fits STATE_BOUND: channels of capacity 1, then down to
    three copies, then atomic commands instead of plain ones (labelled commands stay plain),
    then two copies.  Three copies keep a group once a defect has fixed one; two rarely do.
    The pids the defects name stay pids of copies (the last copy's pid for those beyond it)."""
    shrinks = [lambda s: dataclasses.replace(s, capacity=1) if s.capacity > 1 else None,
               lambda s: _fewer_copies(s) if s.copies > 3 else None,
               lambda s: dataclasses.replace(s, sequence=ATOMIC) if s.sequence == PLAIN else None,
               lambda s: _fewer_copies(s) if s.copies > 2 else None]
    for shrink in shrinks:
        while spec.state_bound() > STATE_BOUND:
            smaller = shrink(spec)
            if smaller is None:
                break
            spec = smaller
    return spec


def _fewer_copies(spec: ModelSpec) -> ModelSpec:
    last = spec.pids[-2]
    spec = dataclasses.replace(spec, copies=spec.copies - 1)
    asym = spec.asymmetry
    if asym is not None:
        spec = dataclasses.replace(spec, asymmetry=dataclasses.replace(asym, pid=min(asym.pid, last)))
    observers = tuple(dataclasses.replace(o, pids=(min(o.pids[0], last),))
                      if len(o.pids) == 1 else dataclasses.replace(o, pids=tuple(spec.pids))
                      for o in spec.observers)
    spec = dataclasses.replace(spec, observers=observers)
    if spec.watch is not None:
        located = tuple(sorted({min(p, last) for p in spec.watch.located}))
        spec = dataclasses.replace(spec, watch=dataclasses.replace(spec.watch, located=located))
    if spec.short_array is not None:
        size = spec.short_array.size   # beyond the last pid: benign; at or below: still short
        size = last + 1 if size > spec.pids[-1] else min(size, last)
        spec = dataclasses.replace(spec, short_array=dataclasses.replace(spec.short_array, size=size))
    if spec.channel_use is not None:
        spec = dataclasses.replace(spec, channel_use=dataclasses.replace(
            spec.channel_use, pid=min(spec.channel_use.pid, last)))
    return spec
