"""The Checker: one model's check of candidates, composed from its parts (the package docstring
says what each holds), and the check itself (Checker.check)."""

from __future__ import annotations

from ...promela import ast
from ...promela.model import INIT, Model
from ..inference import TypeInfo
from .alpha import Alpha, Difference, Invalid, Rejection
from .normal_form import NormalForms, is_setup
from .regions import Regions
from .rewrite import Rewrite
from .shape import ShapeChecks


class Checker(Regions, ShapeChecks, Rewrite):
    """Checks candidates against one model, with its inferred types.

    Composed from the parts of the check, each a class on ModelFacts (facts.py, the facts
    computed once): Regions (regions.py), ShapeChecks (shape.py) and Rewrite (rewrite.py).
    What a part needs from another it declares for mypy (under TYPE_CHECKING); this class
    adds the normal forms of the program's own text, and check."""

    def __init__(self, model: Model, types: TypeInfo) -> None:
        super().__init__(model, types)  # the facts (ModelFacts)
        self.forms = NormalForms(atomic_states_stored=model.atomic_states_stored, constants=self.constants)
        init_body = self.sequence(model.init.body, INIT, None) if model.init is not None else None
        # Decided on the text as written: a permutation keeps distinct locations distinct.
        self.init_setup = bool(init_body and init_body.steps and isinstance(init_body.steps[0], (ast.Atomic, ast.DStep))
                               and is_setup(init_body.steps[0].body, self._setup_send_target))
        # A global's initial value is part of the initial state only, which a symmetry need not
        # fix (normal_form.py): the declarations are compared without them.  Not a hidden
        # global's: pan keeps it out of the state vector, where the canonicaliser cannot rename
        # it, so it holds its initial value in every state, as a constant would.
        self.units = [_without_initial_values(u) if isinstance(u, ast.Decl) and u.visibility != "hidden" else u
                      for u in model.expanded.units if not isinstance(u, (ast.Inline, ast.MtypeDecl))]
        # id(node) -> (node, normal form) for the nodes of the program (see NormalForms)
        self.normal_forms = {}
        self.original = [self.normal_unit(u, None) for u in self.units]
        # Filled by occurrence_regions: the per-process tables of expressions of _pid.
        self.pid_functions = []

    # ------------------------------------------------------------------ the check
    def check(self, alpha: Alpha, explain: bool = True) -> Rejection | None:
        """None when alpha is valid, else why not.  ``explain``: find the first place where a
        unit and its image differ (it costs another rewrite: the subgroup search, which only
        needs the verdict, does without)."""
        if alpha.is_identity():
            return None
        try:
            self.check_processes(alpha)
            self.check_channels(alpha)
            self.check_state_shape(alpha)
            for unit, original in zip(self.units, self.original):
                permuted = self.normal_unit(unit, alpha)
                if permuted != original:
                    found = self.explain(unit, alpha) if explain else Difference("its text changes", unit.pos)
                    raise Invalid(Rejection(f"the {_describe(unit)} is not mapped to itself: {found.reason}",
                                            found.pos or unit.pos, found.before, found.after))
        except Invalid as invalid:
            return invalid.rejection
        return None


def _describe(unit) -> str:
    if isinstance(unit, ast.Proctype):
        return f"proctype '{unit.name}'"
    if isinstance(unit, ast.Init):
        return "init process"
    if isinstance(unit, ast.Never):
        return "never claim"
    if isinstance(unit, ast.Ltl):
        return f"ltl formula '{unit.name}'" if unit.name else "ltl formula"
    if isinstance(unit, ast.Trace):
        return "trace assertion"
    if isinstance(unit, ast.TypeDef):
        return f"typedef '{unit.name}'"
    return "declaration"


def _without_initial_values(decl: ast.Decl) -> ast.Decl:
    """A global declaration without the initial values of its variables; a channel's
    initialiser, which gives its shape (capacity and fields), stays."""
    if not any(v.init is not None and not isinstance(v.init, ast.ChanInit) for v in decl.vars):
        return decl
    return ast.replace(decl, vars=[v if isinstance(v.init, ast.ChanInit) else ast.replace(v, init=None)
                                   for v in decl.vars])
