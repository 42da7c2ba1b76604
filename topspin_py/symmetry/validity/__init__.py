"""Validity of a candidate symmetry against the program text ([DM08] section 7.3.1).

A candidate ``alpha`` permutes pids and static channel ids.  The canonicaliser applies it to a
state by moving each process to the slot of its image (program counter and locals with it),
moving each queue to the place of its image, permuting the elements of every array indexed by
pid, and renaming every value held in a place of kind PID or CHAN (symmetry/inference).  That
map is an automorphism of the state graph, and the reduction sound, when every transition of the
program commutes with it.  The check shows this on the text:

1. **Typed rewrite** (rewrite.py).  ``alpha(P)`` is the program with every expression read in
   the context of its place (a pid, a channel id, data, a condition, output): a constant is
   renamed where an id is meant, and what the check does not understand rejects alpha if it
   moves what that place could name.
2. **Same program** (normal_form.py, regions.py).  ``normal_form(alpha(P)) == normal_form(P)``,
   equal up to the order of the operands of commutative operators and of the options of an
   if/do that no stored state is inside.
3. **The state's shape** (shape.py).  What alpha moves is what the canonicaliser can move:
   arrays indexed by pid that cover the moved pids, places whose C type holds the moved values,
   processes that never terminate, locals that SPIN does not reset to a moved pid.

``Checker.check(alpha)`` returns None when alpha is valid, or a ``Rejection`` that says why and
where.

The modules:

* alpha.py: the permutations (Alpha), the Tokenizer that stands in for one, the contexts in
  which a value is read, and what a rejection says (Rejection, Difference);
* facts.py: what the check computes once per model (ModelFacts), and the labels of the
  parameters a permutation may rename among themselves (parameter_labels);
* shape.py: the checks of the processes, channels and state shape, and the rejections every
  part raises (ShapeChecks);
* rewrite.py: the typed rewrite of the program, statement by statement (Rewrite);
* regions.py: the normal form of each unit under alpha, where a unit and its image first
  differ, and where pids and channels occur, for the static channel diagram (Regions);
* normal_form.py: the normal forms of program text (NormalForms) and their comparison;
* checker.py: the Checker, composed from the parts (Regions, ShapeChecks, Rewrite on
  ModelFacts), and Checker.check.
"""

from .alpha import Alpha, Rejection
from .checker import Checker
from .facts import ValuePlace
from .normal_form import normal

__all__ = ["Alpha", "Checker", "Rejection", "ValuePlace", "normal"]
