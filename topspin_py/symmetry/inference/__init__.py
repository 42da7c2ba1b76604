"""Which data holds process ids and which holds channel ids (in the spirit of TopSPIN's Etch).

Every place that holds a value is a *slot*: a global variable, a local variable or parameter of
a proctype, a field of a typedef, a field of the messages of a channel class, or the index of an
array.  Slots that exchange values (assignment, comparison with ``==``/``!=``, parameter
passing, sending and receiving, a loop variable and the array it runs over) are unified; a class
of slots is

* ``PID`` when one of them is declared ``pid``, receives ``_pid`` or the value of ``run``, or
  stands where a pid is meant: the index of a remote reference ``P[i]@l``, ``P[i]:x`` and the
  argument of ``enabled``, ``pc_value``, ``get_priority`` and ``set_priority``;
* ``CHAN`` when one of them is declared ``chan``, or names the channel of a send, receive,
  poll or channel function;
* ``DATA`` otherwise.

A PID class may hold pids *with an offset* K (the local ids ``_lid`` of a model written with
[DG01]'s ref/public extension; ``flag[_pid - 1]`` for pids 1..N): its value v denotes pid v + K,
and a value for which v + K is no pid (255, "nobody") names nothing.  The offset comes from
``x = _pid - K`` (K a constant), from an index ``a[_pid - K]``, from a comparison
``x == _pid - K`` or a message or argument ``_pid - K``, and spreads by unification like the
kind; plain pids have offset 0.  A class that gets two offsets (``flag[_pid - 1]`` and
``flag[_pid]``) is tainted.

An array whose index class is ``PID`` is indexed by pid (with its class's offset: element i
belongs to pid i + K).  A PID or CHAN slot used in arithmetic
or in an ordering (``<``, ``+``, ``++``, a loop counter ...) is *tainted*: a permutation does not
commute with such uses, so the symmetry analysis drops the symmetry and says why.  Expressions
that compute a pid from ``_pid`` and constants alone (``1 - _pid``, ``(_pid + 1) % N``) are not
taints: the validity check evaluates them for every process, in whatever offset their place
has (so they give a class no offset of their own).  A local that holds such an expression for
ever (``pid i = _pid; pid j = 1 - i``, never written again: pid_copies) is read like it, so
``1 - i`` is no taint either.  The counter of a loop that walks a range of ids at once inside a
d_step, with an order-independent body (loops.py), is a slot of its own inside the body (a
pid there) and data outside it; the loops refused say why in their counter's taint.

A DATA class that acts as ids is a *scalar domain* (find_domains), Murphi's scalarset found
in the text: its slots are scalar variables and message fields of integer types, every value
they are given is a constant or another of their own (no arithmetic, no `len`, no array index),
and they are compared with ``==``/``!=`` or by order with a constant only; at least two
constants flow into it.  Its values are those constants, and its kind is ``scalar:NAME``
(scalar_kind), NAME its first variable's.  A comment ``/* topspin: scalarset NAME */`` (the
model's pragmas.py) declares the mtype subtype NAME one: its variables, parameters and message
fields are one class with every value of the subtype, and a use that breaks the rules above
(an ordering included) is a ModelError at its place.

This inference only decides the kinds.  It need not be complete for soundness: the validity
check (symmetry/validity) rewrites the program under each candidate permutation and rejects
every place where the kind of a value and the kind of its context disagree, so a flow this
inference misses costs symmetry, never a wrong verdict.  Both walks dispatch over every node
kind (``match`` with ``assert_never``), so a construct added to the front end stops mypy until
both say what it means.

The modules:

* typeinfo.py: TypeInfo, the result (classes of slots, their kinds, offsets, taints, scalar
  domains), and the builtins whose argument is a pid; the kinds and slots themselves are the
  symmetry stage's vocabulary, symmetry/kinds.py;
* slots.py: SlotResolver (which slot a reference denotes) and what a model's statements write;
* pid_values.py: expressions of ``_pid`` and constants, the locals that copy one for ever
  (pid_copies) and the parameters that act as ids (id_parameters);
* unify.py: infer_types and the walk that unifies the slots and classifies their classes;
* domains.py: the scalar domains, found or declared.
"""

from .pid_values import pid_offset
from .slots import SlotResolver, slot_variable, written_targets, written_variables
from .typeinfo import PID_BUILTINS, Domain, Taint, TypeInfo
from .unify import infer_types

__all__ = ["PID_BUILTINS", "Domain", "SlotResolver", "Taint", "TypeInfo", "infer_types", "pid_offset", "slot_variable",
           "written_targets", "written_variables"]
