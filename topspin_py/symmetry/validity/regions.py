"""The program text as a whole: the normal form of each unit under a candidate (normal_unit),
where a unit and its image first differ (explain), and where pids and channels occur in the text,
for the static channel diagram (occurrence_regions, scd.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, assert_never

from ...promela import ast
from ...promela.constants import constant_value
from ...promela.model import INIT
from ...promela.printer import print_formula
from ..kinds import CHAN, OUTPUT, TRUTH, Kind, Point, offset_of, pid_point
from .alpha import Alpha, Difference, Invalid, Rejection, Tokenizer
from .facts import ModelFacts
from .normal_form import PLAIN, NormalForms, first_difference, normal, normal_init, shown
from .rewrite import rebuilt


class Regions(ModelFacts):
    """The units of the program, normalised and tokenized.  Needs the typed rewrite (Rewrite,
    rewrite.py) and the normal forms of the program's own text, which Checker.__init__ sets
    (checker.py)."""

    forms: NormalForms  # how this model's text is normalised
    units: list  # the units compared, globals without their initial values
    normal_forms: dict  # id(node) -> (node, normal form) for the nodes of the program (NormalForms)
    init_setup: bool  # whether init begins with a set-up block (normal_init)
    pid_functions: list[tuple[tuple, list[tuple[int, tuple]]]]  # filled by occurrence_regions

    if TYPE_CHECKING:
        def expr(self, e: ast.Expr | None, owner: str | None, context: Kind, alpha): ...

        def sequence(self, seq: ast.Sequence, owner: str | None, alpha) -> ast.Sequence: ...

        def decl(self, decl: ast.Decl, owner: str | None, alpha, typedef: str | None = None): ...

        def typedef(self, typedef: ast.TypeDef, alpha): ...

        def formula(self, node, alpha): ...

    # ------------------------------------------------------------------ regions, for nauty
    def occurrence_regions(self) -> list[tuple[tuple, list[tuple[Point, str]]]]:
        """Where pids and channels occur in the text, for the static channel diagram.

        A region is the innermost if/do option (or unit) around some occurrences.  For each
        region: its shape (the normal form with every pid and channel written '*'), and for
        each occurrence the point and the region's shape with that occurrence written '@'.  A
        valid permutation alpha maps the program to one with the same normal form, by a
        correspondence that maps options to options and occurrences of x to occurrences of
        alpha(x); so it maps regions to regions of the same shape, with the same incidences, and
        nauty may use them freely.  An option compared in order (NormalForms) is mapped to
        itself, so its region gets a colour of its own.
        """
        regions = []
        tokenizer = Tokenizer()
        # The tokenized units share their unchanged subtrees with the program, whose normal
        # forms are known; a region is normalised once, then once per token along the path
        # to that token only.
        known = dict(self.normal_forms)
        located_number = 0
        for number, unit in enumerate(self.units):
            try:
                tokenized = self.tokenize(unit, tokenizer)
            except Invalid:
                continue  # the same for every point: contributes nothing
            for region, tokens, paths, where, located in self.forms.regions(tokenized):
                shape = self.forms.text(region, known=known, remember=True, where=where)
                key: tuple = (number, shape)
                if located:
                    located_number += 1
                    key = (number, shape, "in order", located_number)
                incidences = [(token.point,
                               self.forms.text(region, token, known=known, fresh=paths[token], where=where))
                              for token in tokens]
                regions.append((key, incidences))
        self.pid_functions = self._function_tables(tokenizer.pid_expressions)
        return regions

    def _function_tables(self, expressions) -> list[tuple[tuple, list[tuple[int, tuple]]]]:
        """The expressions of ``_pid`` and constants that the check evaluates per process, as
        tables: for each, a key (its context and the values it takes) and, for each process p
        of its owner, what it gives p: ``("pid", q)`` where its value names pid q, else
        ``("value", v)`` (``("value", bool)`` in a condition).

        check_pid_expression demands, for a valid alpha and every such p, that the value for
        alpha(p) be alpha(q) where the value for p names pid q, and be the same value
        otherwise.  So alpha maps each table onto itself, and the static channel diagram may
        draw the tables as edges (p -> q) and as vertices per value: nauty then proposes only
        permutations that commute with them.  A successor ``(_pid + 1) % N`` draws a directed
        ring, whose automorphisms are its N rotations, not the N! permutations of the pids
        that the candidates would be otherwise (among which a search for the valid ones takes
        time exponential in N).  A table that cannot be evaluated for every process is left
        out (the check rejects every alpha that moves its processes anyway)."""
        tables: dict[tuple, list[tuple[int, tuple]]] = {}
        for e, owner, context in expressions:
            if context in (CHAN, OUTPUT):
                continue  # rejected for any moved pid, or not checked
            offset = offset_of(context)
            rows: list[tuple[int, tuple]] = []
            for p in self.instances.get(owner, []):
                value = constant_value(e, self.process_names(owner, p))
                if value is None:
                    break
                if offset is not None and value + offset in self.pids:
                    rows.append((p, pid_point(value + offset)))
                else:
                    rows.append((p, ("value", bool(value) if context == TRUTH else value)))
            else:
                if rows and any(target != pid_point(p) for p, target in rows):
                    key = (str(context), tuple(rows))
                    tables.setdefault(key, rows)
        return list(tables.items())

    def tokenize(self, unit, tokenizer: Tokenizer):
        match unit:
            case ast.Decl():
                return self.decl(unit, None, tokenizer)
            case ast.Ltl():
                claim = self.model.ltl_claim(unit)
                if claim is not None:
                    return self.sequence(claim.body, None, tokenizer)
                return self.formula(unit.formula, tokenizer)
            case ast.Init():
                body = self.sequence(unit.body, INIT, tokenizer)
                if self.init_setup:
                    # The set-up statements are a set (see normal_init): written as the options
                    # of an `if`, each is a region of its own.
                    head = body.steps[0]
                    assert isinstance(head, (ast.Atomic, ast.DStep))  # what init_setup says (Checker)
                    setup = ast.If(options=[ast.Sequence(steps=[s]) for s in head.body.steps])
                    return ast.replace(body, steps=[setup] + body.steps[1:])
                return body
            case ast.Proctype():
                return self.sequence(unit.body, unit.name, tokenizer)
            case ast.Never() | ast.Trace():
                return self.sequence(unit.body, None, tokenizer)
            case ast.TypeDef():
                return self.typedef(unit, tokenizer)
            case ast.CCode() | ast.CState() | ast.MtypeDecl() | ast.Inline():
                return unit
            case _:
                assert_never(unit)

    # ------------------------------------------------------------------ normal forms
    def normal_unit(self, unit: ast.Unit, alpha: Alpha | None) -> str:
        """The normal form of ``unit`` with alpha applied.  Subtrees that alpha leaves alone
        are the program's own nodes, whose normal forms are computed once, with alpha None."""

        def text(node) -> str:
            return self.forms.text(node, known=self.normal_forms, remember=alpha is None)

        match unit:
            case ast.Decl():
                return text(self.decl(unit, None, alpha))
            case ast.Ltl():
                claim = self.model.ltl_claim(unit)
                if claim is not None:
                    return "ltl-claim:" + text(rebuilt(claim, body=self.sequence(claim.body, None, alpha)))
                if unit.formula is None:
                    return "ltl:" + str(unit.text)
                return "ltl:" + text(self.formula(unit.formula, alpha))
            case ast.Init():
                body = self.sequence(unit.body, INIT, alpha)
                return "Init:" + normal_init(body, self.init_setup, text)
            case ast.Proctype():
                body = self.sequence(unit.body, unit.name, alpha)
                provided = self.expr(unit.provided, unit.name, TRUTH, alpha)
                return "Proctype:" + text(rebuilt(unit, body=body, provided=provided))
            case ast.Never() | ast.Trace():
                body = self.sequence(unit.body, None, alpha)
                return type(unit).__name__ + ":" + text(rebuilt(unit, body=body))
            case ast.TypeDef():
                return "TypeDef:" + text(self.typedef(unit, alpha))
            case ast.CCode() | ast.CState():
                if alpha is not None:
                    raise Invalid(Rejection("embedded C cannot be checked for symmetry", unit.pos))
                return "C:" + repr(getattr(unit, "text", "")) + repr(getattr(unit, "args", ""))
            case ast.MtypeDecl() | ast.Inline():
                return ""
            case _:
                assert_never(unit)

    def explain(self, unit: ast.Unit, alpha: Alpha) -> Difference:
        """Where ``unit`` and its image under alpha first differ, in words, for the user."""
        match unit:
            case ast.Proctype():
                before, after, where = unit.body, self.sequence(unit.body, unit.name, alpha), PLAIN
            case ast.Init():
                # init's runs of the processes the search starts with are rewritten into a
                # marker: compare the image with the text rewritten alike.
                before = self.sequence(unit.body, INIT, None)
                after, where = self.sequence(unit.body, INIT, alpha), PLAIN
            case ast.Never() | ast.Trace():
                before, after, where = unit.body, self.sequence(unit.body, None, alpha), PLAIN
            case ast.Ltl() if unit.formula is not None:
                image = self.formula(unit.formula, alpha)
                claim = self.model.ltl_claim(unit)
                if claim is not None and normal(image) == normal(unit.formula):
                    # the formula maps to itself, spin's claim for it does not
                    before, after, where = claim.body, self.sequence(claim.body, None, alpha), PLAIN
                    found = first_difference(self.forms, before, after, where, self.normal_forms)
                    reason = found.reason if found is not None else "its text changes"
                    return Difference(f"spin's never claim for it is not: {reason}", unit.pos,
                                      shown(claim), shown(rebuilt(claim, body=after)))
                suffix = ", nor is spin's never claim for it" if claim is not None else ""
                return Difference(f"'{print_formula(unit.formula)}' would become '{print_formula(image)}'{suffix}",
                                  unit.pos, shown(unit), shown(ast.replace(unit, formula=image)))
            case ast.Decl():
                return Difference("its text changes", unit.pos, shown(unit),
                                  shown(self.decl(unit, None, alpha)))
            case ast.TypeDef():
                return Difference("its text changes", unit.pos, shown(unit),
                                  shown(self.typedef(unit, alpha)))
            case _:
                return Difference("its text changes", unit.pos)
        found = first_difference(self.forms, before, after, where, self.normal_forms)
        if found is None:
            return Difference("its text changes", unit.pos, shown(unit))
        return found
