"""Loops that walk every id at once: ``for (i : 0 .. N-1) { ... }`` or
``i = 0; do :: i < N -> ...; i++ :: else -> break od``, inside a ``d_step`` (or an atomic
sequence that cannot block), whose body looks at every element in the same way and combines
what it finds in an order-independent way (``ok = false`` under a condition, ``sum = sum +
e``).

Such a loop is one transition that depends on the *set* of values its counter takes, not on
their order, and no state is stored while the counter names an id.  So inside its body the
counter is a pid like any other (a *bound* pid: ``flag[i]``, ``i != _pid``), renamed by a
permutation that maps the walked range onto itself, while outside the body the counter only
ever holds its first and last values, which are data.  The type inference (inference/) gives the
references to the counter inside the body a slot of their own (``CounterSlot(...)``), the validity
check (validity/) that a permutation maps the range onto itself (Checker.check_state_shape).

The proof of order independence is deliberately simple: the body may only test conditions,
assert, print, skip, and update *accumulators*, each written in one way only: the same
constant under any condition (``found = true``), or a commutative and associative operator
applied to itself (``n = n + e``, ``n++``, ``n--``, ``all = all && e``, ``any = any || e``, ``m
= m * e``, ``b = b & e``, ``b = b | e``, ``b = b ^ e``), or a maximum or minimum (``e > m -> m =
e`` in an if, ``m = (e > m -> e : m)``: bakery's largest ticket), where nothing in the loop reads
an accumulator otherwise.  Any other loop over ids keeps the old verdict (its counter is tainted),
and the reason says what this module did not accept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..promela import ast
from ..promela.constants import constant_value
from ..promela.model import INIT, Model
from .kinds import CounterSlot

_COMBINING = {"+", "-", "*", "&&", "||", "&", "|", "^"}
# The operators that can be mixed on one accumulator: + and - (and ++, --) are all additions.
_FAMILY = {"+": "+", "-": "+", "++": "+", "--": "+", "*": "*", "&&": "&&", "||": "||",
           "&": "&", "|": "|", "^": "^"}


@dataclass
class Loop:
    """A loop over a constant range whose body is order independent."""

    node: ast.Node  # the Do or ForRange
    counter: str  # the counter's name
    owner: str | None
    lo: int
    hi: int  # inclusive
    slot: CounterSlot  # the slot of the counter's references inside the body
    pos: object = None


@dataclass
class LoopAnalysis:
    """The accepted loops, the references to their counters inside their bodies (id of the
    VarRef -> the loop's slot), and for the loops not accepted the reason, keyed by the ids of
    their counter's guard and increment (or of the for statement)."""

    loops: list[Loop] = field(default_factory=list)
    bound: dict[int, CounterSlot] = field(default_factory=dict)
    refused: dict[int, str] = field(default_factory=dict)


def find_loops(model: Model) -> LoopAnalysis:
    """The loops over ids of every proctype and init (see the module docstring)."""
    result = LoopAnalysis()
    claims = any(isinstance(u, (ast.Never, ast.Ltl, ast.Trace)) for u in model.expanded.units)
    # Inside an atomic sequence, states are stored where a statement blocks; the body here
    # cannot block, but a breadth-first search stores states inside atomic sequences anyway,
    # and a claim steps (and reads the state) after every statement of one.
    atomic_protects = not model.atomic_states_stored and not claims
    for unit in model.expanded.units:
        if isinstance(unit, ast.Proctype):
            owner: str | None = unit.name
        elif isinstance(unit, ast.Init):
            owner = INIT
        else:
            continue
        _walk(unit.body, owner, False, atomic_protects, model, result)
    return result


def _walk(node, owner, protected: bool, atomic_protects: bool, model: Model, result: LoopAnalysis) -> None:
    if isinstance(node, ast.Sequence):
        for i, step in enumerate(node.steps):
            if isinstance(step, ast.Do):
                _consider_do(step, node.steps[:i], owner, protected, model, result)
            _walk(step, owner, protected, atomic_protects, model, result)
        return
    if isinstance(node, ast.ForRange):
        _consider_for(node, owner, protected, model, result)
    inner = protected or isinstance(node, ast.DStep) or (isinstance(node, ast.Atomic) and atomic_protects)
    for child in node.children():
        if isinstance(child, ast.Node):
            _walk(child, owner, inner, atomic_protects, model, result)


def _counter_name(ref) -> str | None:
    if isinstance(ref, ast.VarRef) and ref.index is None and ref.field is None:
        return ref.name
    return None


def _consider_for(node: ast.ForRange, owner, protected: bool, model: Model, result: LoopAnalysis) -> None:
    name = _counter_name(node.var)
    lo, hi = constant_value(node.lo, model.mtypes), constant_value(node.hi, model.mtypes)
    if name is None or lo is None or hi is None:
        return
    why = _refusal(node.body.steps, name, protected, model, owner)
    if why is not None:
        result.refused[id(node)] = why
        return
    _accept(node, name, owner, lo, hi, node.body.steps, result)


def _start(before: list, name: str, model: Model) -> int | None:
    """The constant the last of the statements ``before`` a loop assigns to its counter, when
    nothing after it writes the counter or is a label (which a goto could jump to)."""
    for step in reversed(before):
        if isinstance(step, ast.Assign) and _counter_name(step.target) == name:
            return constant_value(step.value, model.mtypes)
        for inner in step.walk():
            if isinstance(inner, ast.Labeled):
                return None
            if any(isinstance(t, ast.VarRef) and t.name == name for t in inner.writes()):
                return None
    return None


def _consider_do(node: ast.Do, before: list, owner, protected: bool, model: Model, result: LoopAnalysis) -> None:
    """``c = lo; do :: c < E -> body; c++ :: else -> break od`` (either option first, ``<=``
    too; statements that leave c alone may stand between the two): a walk over lo .. E - 1
    (or E)."""
    if len(node.options) != 2:
        return
    options = sorted(node.options, key=lambda o: bool(o.steps) and isinstance(o.steps[0], ast.Else))
    walk, leave = options
    if len(leave.steps) != 2 or not isinstance(leave.steps[0], ast.Else) or not isinstance(leave.steps[1], ast.Break):
        return
    if len(walk.steps) < 2 or not isinstance(walk.steps[0], ast.ExprStmt):
        return
    guard, step = walk.steps[0].expr, walk.steps[-1]
    if not isinstance(guard, ast.BinOp) or guard.op not in ("<", "<="):
        return
    name = _counter_name(guard.left)
    bound = constant_value(guard.right, model.mtypes)
    if name is None or bound is None:
        return
    if not (isinstance(step, ast.IncDec) and step.op == "++" and _counter_name(step.target) == name):
        return
    keys = (id(guard), id(step))
    start = _start(before, name, model)
    if start is None:
        for key in keys:
            result.refused[key] = (f"the loop at {node.pos} does not start from a constant: "
                                   f"'{name} = <constant>' must come before it in the same sequence")
        return
    why = _refusal(walk.steps[1:-1], name, protected, model, owner)
    if why is not None:
        for key in keys:
            result.refused[key] = f"the loop at {node.pos} {why}"
        return
    _accept(node, name, owner, start, bound - 1 if guard.op == "<" else bound, walk.steps[1:-1], result)


def _accept(node, name: str, owner, lo: int, hi: int, body: list, result: LoopAnalysis) -> None:
    slot = CounterSlot(owner, name, id(node))
    for step in body:
        for ref in step.walk():
            if isinstance(ref, ast.VarRef) and ref.name == name and ref.index is None and ref.field is None:
                result.bound[id(ref)] = slot
    result.loops.append(Loop(node, name, owner, lo, hi, slot, getattr(node, "pos", None)))


def _refusal(body: list, counter: str, protected: bool, model: Model, owner) -> str | None:
    """Why the loop whose body is ``body`` is not a walk over a set, or None."""
    if not protected:
        return ("is not inside a d_step, or an atomic sequence where nothing blocks (and no claim "
                "or breadth-first search stores the states in between): a state is stored at each "
                "step, with its counter naming an id")
    forms: dict[str, str] = {}
    reads: list[ast.Node] = []
    extrema: list[tuple[str, ast.Node]] = []
    why = _statements(body, counter, forms, reads, extrema)
    if why is not None:
        return why
    for name, operand in extrema:
        # A value wider than the variable would be truncated when stored, and the maximum of
        # truncated values depends on the order: only a variable of a type no wider may go in.
        if not _no_wider(operand, name, model, owner):
            return (f"keeps the {forms[name]}imum of '{print_short_expr(operand)}' in '{name}', which "
                    "may not hold every value of it")
    for expr in reads:
        for ref in expr.walk():
            if isinstance(ref, ast.VarRef) and ref.name in forms:
                return (f"reads '{ref.name}', which it also updates: the result may depend on the "
                        "order of the steps")
    return None


def _statements(steps: list, counter: str, forms: dict[str, str], reads: list, extrema: list) -> str | None:
    for step in steps:
        why = _statement(step, counter, forms, reads, extrema)
        if why is not None:
            return why
    return None


def _statement(step, counter: str, forms: dict[str, str], reads: list, extrema: list) -> str | None:
    match step:
        case ast.Skip() | ast.Else():
            return None
        case ast.Printf():
            return None  # output only
        case ast.Assert() | ast.ExprStmt():
            if isinstance(step, ast.ExprStmt) and _may_block(step):
                return f"has a condition at {step.pos} outside an if with an else, which can block"
            reads.append(step.expr)
            return None
        case ast.If():
            if not any(o.steps and isinstance(o.steps[0], ast.Else) for o in step.options):
                return f"has an if without an else at {step.pos}, which can block"
            for option in step.options:
                steps = option.steps
                if len(steps) == 2 and isinstance(steps[0], ast.ExprStmt) and isinstance(steps[1], ast.Assign):
                    extremum = _extremum(steps[0].expr, steps[1].target, steps[1].value)
                    if extremum is not None:  # `e > m -> m = e`: m becomes the maximum
                        accumulator, form, operand = extremum
                        reads.append(operand)
                        extrema.append((accumulator, operand))
                        why = _record(accumulator, form, counter, forms, steps[1])
                        if why is not None:
                            return why
                        continue
                if steps and isinstance(steps[0], ast.ExprStmt):
                    reads.append(steps[0].expr)
                    steps = steps[1:]
                why = _statements(steps, counter, forms, reads, extrema)
                if why is not None:
                    return why
            return None
        case ast.IncDec():
            return _update(step.target, step.op, None, counter, forms, reads, step)
        case ast.Assign():
            target, value = step.target, step.value
            name = _counter_name(target)
            if name is not None and constant_value(value) is not None:
                return _record(name, f"= {constant_value(value)}", counter, forms, step)
            if isinstance(value, ast.CondExpr) and _counter_name(value.other) == name:
                extremum = _extremum(value.cond, target, value.then)
                if extremum is not None:  # m = (e > m -> e : m)
                    reads.append(extremum[2])
                    extrema.append((extremum[0], extremum[2]))
                    return _record(extremum[0], extremum[1], counter, forms, step)
            if isinstance(value, ast.BinOp) and value.op in _COMBINING and name is not None:
                if _counter_name(value.left) == name:
                    return _update(target, value.op, value.right, counter, forms, reads, step)
                if value.op != "-" and _counter_name(value.right) == name:
                    return _update(target, value.op, value.left, counter, forms, reads, step)
            return (f"assigns '{print_short(step)}' at {step.pos}, which is neither a constant nor "
                    "a commutative update of the variable itself")
        case _:
            return (f"has a {type(step).__name__.lower()} statement at {getattr(step, 'pos', None)}, "
                    "which is not a test, an assertion or an update of an accumulator")


_GREATER = {">": "max", ">=": "max", "<": "min", "<=": "min"}  # e OP m -> m = e
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _extremum(guard, target, value) -> tuple[str, str, ast.Node] | None:
    """(m, "max" or "min", e) when ``guard`` compares e with the variable m and the update
    makes m = e: ``e > m`` (or ``m < e``, ``>=``) keeps the maximum, ``e < m`` the minimum,
    whatever the order of the steps."""
    name = _counter_name(target)
    if name is None or not isinstance(guard, ast.BinOp) or guard.op not in _GREATER:
        return None
    if _counter_name(guard.right) == name and guard.left == value:
        op = guard.op
    elif _counter_name(guard.left) == name and guard.right == value:
        op = _MIRRORED[guard.op]
    else:
        return None
    return name, _GREATER[op], value


_WIDTHS = {"bit": (0, 1), "bool": (0, 1), "byte": (0, 255), "pid": (0, 255), "mtype": (0, 255),
           "short": (-2**15, 2**15 - 1), "int": (-2**31, 2**31 - 1)}


def _no_wider(operand, name: str, model: Model, owner) -> bool:
    """Whether every value ``operand`` (a variable or array element) can hold fits the type
    of the variable ``name``."""
    def declared(var_name: str):
        for var in model.locals.get(owner, []) if owner is not None else []:
            if var.name == var_name:
                return var
        return next((v for v in model.globals if v.name == var_name), None)

    if not isinstance(operand, ast.VarRef) or operand.field is not None:
        return False
    source, target = declared(operand.name), declared(name)
    if source is None or target is None or source.bits is not None or target.bits is not None:
        return False
    inner, outer = _WIDTHS.get(source.type.name), _WIDTHS.get(target.type.name)
    return inner is not None and outer is not None and outer[0] <= inner[0] and inner[1] <= outer[1]


def print_short_expr(node) -> str:
    from ..promela.printer import print_expr

    try:
        return print_expr(node)
    except Exception:  # a printer gap must not hide the reason itself
        return type(node).__name__


def _update(target, op: str, operand, counter: str, forms: dict[str, str], reads: list, step) -> str | None:
    name = _counter_name(target)
    if name is None:
        return f"updates an array element or a field at {step.pos}"
    if operand is not None:
        reads.append(operand)
    return _record(name, _FAMILY[op], counter, forms, step)


def _record(name: str, form: str, counter: str, forms: dict[str, str], step) -> str | None:
    if name == counter:
        return f"writes its counter '{counter}' at {step.pos}"
    if forms.setdefault(name, form) != form:
        return (f"updates '{name}' in two ways ('{forms[name]}' and '{form}'), so the result may "
                "depend on the order of the steps")
    return None


def _may_block(step: ast.ExprStmt) -> bool:
    value = constant_value(step.expr)
    return value is None or value == 0


def print_short(node) -> str:
    from ..promela.printer import print_stmt

    try:
        return print_stmt(node).strip()
    except Exception:  # a printer gap must not hide the reason itself
        return type(node).__name__
