"""Normal forms of program text, and where two texts first differ.

The second part of the check, the same program: ``normal_form(alpha(P)) == normal_form(P)``,
where the normal form folds constant arithmetic, sorts the operands of commutative operators
(not of ``&&``/``||`` when evaluating one of them can fail: an array index, a remote reference),
and sorts the options of an ``if``/``do`` **only where no state is stored inside them**: the
canonicaliser leaves program counters where they are, so a permutation may exchange two options
only when a process can never be inside either of them in a stored state (an option that is one
simple statement, or a ``d_step``, or an ``atomic`` sequence that cannot block after its first
statement, unless a breadth-first search stores states inside atomic sequences).  Other options
are compared in order, so each must be mapped to itself.  Run statements are checked instance by
instance (``check_processes``).  Global declarations are compared without their initial values
(``pid owner = 2``): those give the initial state only, which alpha need not fix, since pan goes
on from the states it reaches and the image of a path from the initial state is a path from its
image, so every reachable orbit is met.  (Not a ``hidden`` global's: pan keeps it out of the
state vector, so nothing renames it.)
"""

from __future__ import annotations

import itertools

from ...promela import ast
from ...promela.constants import constant_value
from ...promela.printer import print_expr, print_stmt, print_unit
from ..inference import pid_offset
from .alpha import Difference, Token

_COMMUTATIVE = {"+", "*", "&&", "||", "&", "|", "^", "==", "!="}
_ASSOCIATIVE = {"+", "*", "&&", "||", "&", "|", "^"}
SHORT_CIRCUIT = {"&&", "||"}  # (not commuted when an operand can fail: _may_fail)


# Where a piece of text sits, for the question whether a state can be stored with a process at
# one of its locations: anywhere (PLAIN), inside an atomic sequence (a state is stored only
# where a statement blocks and atomicity is lost), inside a d_step (never).
PLAIN, ATOMIC, DSTEP = "plain", "atomic", "d_step"
# Statements that are always executable.
_NEVER_BLOCKS = (ast.Assign, ast.IncDec, ast.Skip, ast.Printf, ast.Printm, ast.Assert, ast.Goto,
                 ast.Break, ast.Decl, ast.XrXs)


class NormalForms:
    """Normal forms of program text: equal for programs equal up to the order of the options
    of an if/do that no process is inside in a stored state, and of the operands of
    commutative operators.

    The canonicaliser moves each process with its program counter unchanged, so a permutation
    that exchanges two options is sound only when no stored state has a process strictly
    inside either (between its first statement and the end of the if/do).  Such options are
    *located* and compared in order; the others, a set.  Inside a d_step no state is stored;
    inside an atomic sequence, only where a statement blocks (atomicity is then lost), unless
    the search is breadth-first (``atomic_states_stored``: BFS stores states inside atomic
    sequences too).
    """

    def __init__(self, atomic_states_stored: bool = False, constants: dict[str, int] | None = None) -> None:
        self.atomic_states_stored = atomic_states_stored
        # Names with one value in every state (Checker.constants): `st[m2]` and the rewrite's
        # `st[2]` for the mtype name m2 = 2 are the same text.
        self.constants = constants or {}

    def text(self, node, marked: Token | None = None, known: dict | None = None, remember: bool = False,
             fresh: frozenset = frozenset(), where: str = PLAIN) -> str:
        """``known`` maps (id(node), where) to (node, its normal form) for nodes seen before,
        and ``remember`` adds the nodes normalised now.  A node keeps its entry only as long
        as it is the same object (the entry holds it, so its id is not reused), and a node's
        text does not depend on ``marked`` unless the marked token lies below it: the ids in
        ``fresh``, the path down to that token, are computed anew.  ``where`` is PLAIN,
        ATOMIC or DSTEP: what the node sits inside."""
        return self._text(node, marked, known, remember, fresh, where)

    def _text(self, node, marked, known, remember, fresh, where) -> str:
        if node is None:
            return "-"
        cls = type(node)
        if cls is list:
            return "[" + ",".join([self._text(n, marked, known, remember, fresh, where) for n in node]) + "]"
        if cls is Token:
            return "@" if node is marked else "*"
        if not isinstance(node, ast.Node):
            return repr(node)
        key = (id(node), where)
        if known is not None and id(node) not in fresh:
            entry = known.get(key)
            if entry is not None and entry[0] is node:
                return entry[1]
        if isinstance(node, (ast.If, ast.Do)):
            ordered: list[str] = []
            unordered: list[str] = []
            for option in node.options:
                text = self._text(option, marked, known, remember, fresh, where)
                (ordered if self.located(option, where) else unordered).append(text)
            result = cls.__name__ + "{" + "|".join(sorted(unordered)) + "}{" + "|".join(ordered) + "}"
        elif isinstance(node, (ast.DStep, ast.Atomic)):
            inner = self.inside(node, where)
            result = cls.__name__ + "(" + self._text(node.body, marked, known, remember, fresh, inner) + ")"
        elif isinstance(node, (ast.BinOp, ast.UnOp, ast.CondExpr)) \
                and (value := _literal_value(node, self.constants)) is not None:
            result = f"Const({value!r})"
        elif isinstance(node, ast.VarRef) and node.index is None and node.field is None \
                and node.name in self.constants:
            result = f"Const({self.constants[node.name]!r})"
        elif isinstance(node, ast.BinOp) and node.op in _COMMUTATIVE \
                and not (node.op in SHORT_CIRCUIT and _may_fail(node, self.constants)):
            operands = _flatten(node) if node.op in _ASSOCIATIVE else [node.left, node.right]
            texts = [self._text(o, marked, known, remember, fresh, where) for o in operands]
            result = f"({node.op} " + " ".join(sorted(texts)) + ")"
        else:
            parts = [self._text(getattr(node, name), marked, known, remember, fresh, where)
                     for name in node.field_names]
            result = cls.__name__ + "(" + ",".join(parts) + ")"
        if remember and known is not None and id(node) not in fresh:
            known[key] = (node, result)
        return result

    def inside(self, node, where: str) -> str:
        """What the body of ``node`` sits inside."""
        if where == DSTEP or isinstance(node, ast.DStep):
            return DSTEP
        if isinstance(node, ast.Atomic) and not self.atomic_states_stored:
            return ATOMIC
        return where

    def located(self, option: ast.Sequence, where: str) -> bool:
        """Whether a stored state can have a process strictly inside ``option``, an option of
        an if/do that sits inside ``where``."""
        return self._stored_within(option.steps, where)

    def _stored_within(self, steps: list, where: str) -> bool:
        """Whether a state can be stored at a location of ``steps`` after the first, or inside
        any of them."""
        if where == DSTEP:
            return False
        for i, step in enumerate(steps):
            # A goto or break is no state of its own: spin makes the statement before it jump
            # (pan -d shows `x == 0 -> goto L` as one transition back to L).
            jump = isinstance(step, (ast.Goto, ast.Break))
            if i > 0 and not jump and (where == PLAIN or _can_block(step)):
                return True
            if self._stored_inside(step, where):
                return True
        return False

    def _stored_inside(self, stmt, where: str) -> bool:
        """Whether a state can be stored at a location strictly inside ``stmt``."""
        match stmt:
            case ast.DStep():
                return False
            case ast.Atomic() | ast.Block():
                return self._stored_within(stmt.body.steps, self.inside(stmt, where))
            case ast.If() | ast.Do():
                return any(self.located(option, where) for option in stmt.options)
            case ast.Labeled():
                return self._stored_inside(stmt.stmt, where)
            case ast.Unless() | ast.ForRange() | ast.ForIn() | ast.Select() | ast.InlineCall() | ast.CCode():
                return True  # loops and escapes: places of their own (conservatively)
            case _:
                return False

    def regions(self, node) -> list[tuple[object, list[Token], dict[Token, frozenset[int]], str, bool]]:
        """The tokens of ``node`` grouped by region: the innermost if/do option around each
        token, or ``node`` itself for tokens outside every option, and each enclosing option as
        long as it is small (at most SMALL_REGION nodes: `_pid == 1 && dest == 2 -> if :: d = 0
        fi` ties the value 0 to pids 1 and 2, which the inner option alone does not); with each
        token, the ids of the nodes on the path from ``node`` down to it; with each region, what
        it sits inside and whether it is an option compared in order (``located``)."""
        regions: dict[int, tuple] = {}
        self._find_regions(node, [(node, PLAIN, False, False)], [], regions, PLAIN)
        return list(regions.values())

    def _find_regions(self, n, stack: list, path: list[int], regions: dict, where: str) -> None:
        if isinstance(n, Token):
            for depth, (region, region_where, located, small) in enumerate(reversed(stack)):
                if depth > 0 and (len(stack) - depth == 1 or not small):
                    break  # (the unit itself only for the tokens outside every option)
                entry = regions.setdefault(id(region), (region, [], {}, region_where, located))
                entry[1].append(n)
                entry[2][n] = frozenset(path)
        elif isinstance(n, ast.Node):
            path.append(id(n))
            if isinstance(n, (ast.If, ast.Do)):
                for option in n.options:
                    stack.append((option, where, self.located(option, where), _is_small(option)))
                    self._find_regions(option, stack, path, regions, where)
                    stack.pop()
            else:
                inner = self.inside(n, where) if isinstance(n, (ast.Atomic, ast.DStep)) else where
                for child in _child_values(n):
                    self._find_regions(child, stack, path, regions, inner)
            path.pop()


SMALL_REGION = 64  # nodes: an enclosing option this small is a region of its inner tokens too


def _is_small(node) -> bool:
    """At most SMALL_REGION nodes (a walk cut off after one more: found once per option as it
    is entered, not once per token inside it)."""
    return sum(1 for _ in itertools.islice(node.walk(), SMALL_REGION + 1)) <= SMALL_REGION


def _can_block(stmt) -> bool:
    """Whether ``stmt`` can be unexecutable (conservatively: yes unless it visibly cannot)."""
    match stmt:
        case _ if isinstance(stmt, _NEVER_BLOCKS):
            return False
        case ast.ExprStmt():
            value = constant_value(stmt.expr)
            return value is None or value == 0
        case ast.Labeled():
            return _can_block(stmt.stmt)
        case ast.Atomic() | ast.DStep() | ast.Block():
            return not stmt.body.steps or _can_block(stmt.body.steps[0])
        case ast.If() | ast.Do():
            return not any(o.steps and (isinstance(o.steps[0], ast.Else) or not _can_block(o.steps[0]))
                           for o in stmt.options)
        case _:
            return True


_DEFAULT_FORMS = NormalForms()


def normal(node, marked: Token | None = None, known: dict | None = None, remember: bool = False,
           fresh: frozenset = frozenset()) -> str:
    """The normal form of ``node`` under a depth-first search (see NormalForms)."""
    return _DEFAULT_FORMS.text(node, marked, known, remember, fresh)


def _literal_value(node, constants: dict[str, int] | None = None) -> int | None:
    """The value of constant arithmetic on literals and ``constants`` (``2 - 1``, ``N - 1``): it
    names the same value as the folded literal the rewrite writes in its place."""
    try:
        value = constant_value(node, constants)
    except (TypeError, ValueError, OverflowError):
        return None
    return value


def _may_fail(node, constants: dict[str, int] | None = None) -> bool:
    """Whether evaluating ``node`` can raise an error (an array index, a remote reference, a
    division): then ``a && b`` and ``b && a`` differ in which errors they raise.  An index
    that is a constant (after folding ``constants``), ``_pid`` or ``_pid - K`` does not count: a
    constant is in bounds or out of them for every process, and ``_pid - K`` indexes an array
    indexed by pid with offset K (symmetry/inference), which covers every pid a valid
    permutation moves (Checker.check_state_shape)."""
    for n in node.walk():
        if isinstance(n, ast.VarRef) and n.index is not None and not isinstance(n.index, ast.Const) \
                and pid_offset(n.index, constants) is None \
                and _literal_value(n.index, constants) is None:
            return True
        if isinstance(n, (ast.RemoteVar, ast.RemoteLabel, ast.Run, ast.Builtin, ast.CExpr)):
            return True
        if isinstance(n, ast.BinOp) and n.op in ("/", "%"):
            return True
    return False


def first_difference(forms: NormalForms, before, after, where: str,
                     known: dict) -> Difference | None:
    """The innermost place where ``after`` (the image of ``before``) differs from it in normal
    form, described: ``'owner != 1' becomes 'owner != 2'``, or the if/do whose options are not
    mapped to options, saying why when an option a process can be stored inside would move."""
    def text(node, inside=where) -> str:
        return forms.text(node, known=known, where=inside)

    if text(before) == text(after):
        return None
    if isinstance(before, ast.Sequence) and isinstance(after, ast.Sequence) and len(before.steps) == len(after.steps):
        for a, b in zip(before.steps, after.steps):
            found = first_difference(forms, a, b, where, known)
            if found is not None:
                return found
    if isinstance(before, (ast.If, ast.Do)) and isinstance(after, (ast.If, ast.Do)):
        located_before = [o for o in before.options if forms.located(o, where)]
        located_after = [o for o in after.options if forms.located(o, where)]
        unordered_before = sorted(text(o) for o in before.options if not forms.located(o, where))
        unordered_after = sorted(text(o) for o in after.options if not forms.located(o, where))
        if unordered_before == unordered_after and len(located_before) == len(located_after):
            for option_a, option_b in zip(located_before, located_after):
                if text(option_a) == text(option_b):
                    continue
                if sorted(text(o) for o in located_before) == sorted(text(o) for o in located_after):
                    pos = option_a.steps[0].pos if option_a.steps else before.pos
                    return Difference("this option would be mapped onto another one, but a process "
                                      "can be inside it in a stored state, and the canonicaliser "
                                      "does not move program counters between options", pos,
                                      shown(before), shown(after))
                return (first_difference(forms, option_a, option_b, where, known)
                        or Difference("this option changes", before.pos, shown(before), shown(after)))
        return Difference("the options of this if/do are not mapped onto its options", before.pos,
                          shown(before), shown(after))
    if isinstance(before, (ast.Atomic, ast.DStep, ast.Block)) and type(after) is type(before):
        found = first_difference(forms, before.body, after.body, forms.inside(before, where), known)
        if found is not None:
            return found
    if isinstance(before, ast.Labeled) and isinstance(after, ast.Labeled):
        found = first_difference(forms, before.stmt, after.stmt, where, known)
        if found is not None:
            return found
    if isinstance(before, ast.Node) and not isinstance(before, ast.Sequence):
        old_text, new_text = shown(before), shown(after)
        if "\n" in old_text or "\n" in new_text:  # a compound statement: shown by --explain
            return Difference("this statement changes", before.pos, old_text, new_text)
        return Difference(f"'{old_text}' would become '{new_text}'", before.pos, old_text, new_text)
    return None


def shown(node) -> str:
    """Promela text for a statement, expression or unit, for the user."""
    try:
        if isinstance(node, ast.STATEMENTS):
            return print_stmt(node).strip()
        if isinstance(node, (ast.Proctype, ast.Init, ast.Never, ast.Trace, ast.Ltl, ast.TypeDef, ast.Decl)):
            return print_unit(node).strip()
        return print_expr(node)
    except Exception:  # a printer gap must not hide the rejection itself
        return type(node).__name__


def normal_init(body: ast.Sequence, has_setup: bool, text=normal) -> str:
    """The normal form of init's body.  Its leading set-up block, an atomic or d_step holding
    only runs, constant assignments to distinct constant locations and constant sends into
    distinct empty buffered channels (is_setup), is a set: the block
    cannot block or be interleaved, its intermediate states lie on one path from the initial
    state (no other reachable state has init at those points, so no canonical form collides
    with them), and only the state it leaves behind is shared with the rest of the search.
    ``text``: the normal form of a node (or a list of them)."""
    steps = list(body.steps)
    head = steps[0] if steps else None
    if has_setup and isinstance(head, (ast.Atomic, ast.DStep)):
        block = "Setup{" + "|".join(sorted(text(s) for s in head.body.steps)) + "}"
        return block + ";" + text(steps[1:])
    return text(body)


def is_setup(body: ast.Sequence, send_target) -> bool:
    """Whether ``body`` (init's leading atomic or d_step) is a set-up block (see normal_init):
    runs, constant assignments to distinct constant locations and, where ``send_target``
    names the channel (a send that cannot block), constant sends to distinct channels."""
    targets = set()
    for step in body.steps:
        if isinstance(step, ast.Send):
            channel = send_target(step)
            if channel is None or channel in targets:
                return False
            targets.add(channel)
            continue
        if isinstance(step, ast.ExprStmt) and step.expr == ast.Const(value="static-run"):
            continue
        if isinstance(step, (ast.Skip, ast.Printf)):
            continue
        if isinstance(step, ast.Assign) and constant_value(step.value) is not None \
                and isinstance(step.target, ast.VarRef) and step.target.field is None \
                and (step.target.index is None or constant_value(step.target.index) is not None):
            key = normal(step.target)
            if key in targets:
                return False
            targets.add(key)
            continue
        return False
    return True


def _child_values(node):
    for name in node.field_names:
        value = getattr(node, name)
        if isinstance(value, list):
            yield from (v for v in value if isinstance(v, (ast.Node, Token)))
        elif isinstance(value, (ast.Node, Token)):
            yield value


def _flatten(node) -> list:
    result = []
    for side in (node.left, node.right):
        if isinstance(side, ast.BinOp) and side.op == node.op:
            result.extend(_flatten(side))
        else:
            result.append(side)
    return result
