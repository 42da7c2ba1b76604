"""The processes init starts, in the order it starts them, decided on its text.

model.py numbers processes from this: each ``run`` that init executes gets the next pid, and
its arguments are known where the text fixes them.  The program spin checks is not changed:
following a loop here only decides which pids its runs give and with which arguments.

init is followed step by step, with the values of its scalar local variables wherever the
text fixes them (a declaration, a constant assignment, ``++``/``--``; only init writes its
locals, so no other process can change them).  A loop whose iterations those values decide is
unrolled:

* ``for (i : lo .. hi) { ... }``, with ``i`` a local of init that the body does not write;
* a ``do`` every option of which starts with a condition on known values or ``else``, so that
  in each iteration exactly one option is enabled, and which leaves by a ``break`` that ends
  the option taken (``do :: i < N -> run P(i); i++ :: else -> break od``).

The body of an unrolled loop is straight-line code (nested unrolled loops, ``atomic``,
``d_step`` and blocks included): a branch there could start processes or change the counter
in a way the text does not decide.  Control flow that starts nobody (an ``if`` or ``do`` that
picks values, a loop that waits) is passed over outside loops: the locals it writes become
unknown.  It must hold no ``goto``, which could jump over runs; a ``goto`` anywhere in init
that jumps back to a label before the last numbered run could start processes again, and then
none is numbered.

Anything else stops the numbering: the runs from there on are *unnumbered*, each with the
reason (a position and a sentence), and the symmetry analysis gives up on them.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

from ..errors import ModelError
from . import ast
from .constants import constant_value

# SPIN refuses to start more than this many processes (`run` then returns 0).
MAX_PROCESSES = 255
# Iterations of init's loops followed before giving up (a loop that starts nobody in most of
# them, or none at all).
MAX_ITERATIONS = 10_000

# The values a scalar of each basic type holds (an `unsigned` one: see _range).
_RANGES = {"bit": (0, 1), "bool": (0, 1), "byte": (0, 255), "pid": (0, 255), "mtype": (0, 255),
           "short": (-2 ** 15, 2 ** 15 - 1), "int": (-2 ** 31, 2 ** 31 - 1)}


@dataclass
class StartedProcess:
    """A process init starts: its `run` and the argument expressions, with the known values
    of init's locals put in and constant arithmetic folded."""

    run: ast.Run
    args: list


@dataclass
class InitRuns:
    """The processes init starts, in order, and the runs that cannot be numbered."""

    started: list[StartedProcess] = field(default_factory=list)
    # Each run of init that cannot be numbered, and why (a sentence that names the place).
    unnumbered: list[tuple[ast.Run, str]] = field(default_factory=list)


class _Stop(Exception):
    """The text stops deciding which processes init starts, here, for this reason."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def init_runs(body: ast.Sequence, constants: dict[str, int], proctypes: set[str],
              may_end: Callable[[str], bool]) -> InitRuns:
    """The runs of init's ``body`` (inline calls expanded), numbered (see the module
    docstring).  ``constants``: mtype names; ``may_end``: whether a process of the named
    proctype can terminate."""
    walker = _Walker(body, constants, proctypes, may_end)
    why = None
    try:
        walker.sequence(body, in_loop=False)
    except _Stop as stop:
        why = stop.why
    runs = [n for n in body.walk() if isinstance(n, ast.Run)]
    started = [p for p in walker.started if id(p.run) not in walker.interrupted]
    numbered = {id(p.run) for p in started}
    result = InitRuns(started)
    back = walker.jump_back(body)
    if back is not None:
        result.started, why = [], back
        numbered = set()
    if why is not None:
        # Every run not numbered, and those of a loop that the numbering stopped in.
        result.unnumbered = [(run, why) for run in runs
                             if id(run) not in numbered or id(run) in walker.interrupted]
    return result


class _Walker:
    def __init__(self, body, constants, proctypes, may_end) -> None:
        self.constants = constants
        self.proctypes = proctypes
        self.may_end = may_end
        # A started process that can terminate, while init is still starting others: if it
        # ends first, as the last one started, SPIN gives its pid to the next run.  That cannot
        # happen while init stays inside one atomic sequence without a statement that blocks
        # (a `run` does not block): `exposed` says whether init may have left it since.
        self.may_have_ended: ast.Run | None = None
        self.exposed = False
        self.atomic_depth = 0
        # init's scalar locals of a basic type, with the values they can hold
        self.ranges: dict[str, tuple[int, int]] = {}
        for node in body.walk():
            if isinstance(node, ast.Decl):
                for var in node.vars:
                    value_range = _range(node.type, var)
                    if value_range is not None and var.size is None:
                        self.ranges[var.name] = value_range
        self.env: dict[str, int] = {}  # the locals whose value the text fixes here
        self.started: list[StartedProcess] = []
        self.labels: dict[str, int] = {}  # label -> processes started when it was first passed
        self.interrupted: set[int] = set()  # ids of the runs of a loop the numbering stopped in
        self.iteration_count = 0

    # ------------------------------------------------------------------ values
    def value(self, expr) -> int | None:
        return constant_value(expr, {**self.constants, **self.env})

    def set(self, name: str, value: int | None) -> None:
        low_high = self.ranges.get(name)
        if low_high is None:
            return
        if value is None or not low_high[0] <= value <= low_high[1]:
            self.env.pop(name, None)  # unknown (or wrapped around: not followed)
        else:
            self.env[name] = value

    def forget_writes(self, node) -> None:
        for target in _written(node):
            self.env.pop(target, None)

    # ------------------------------------------------------------------ statements
    def sequence(self, seq: ast.Sequence, in_loop: bool) -> None:
        for step in seq.steps:
            self.step(step, in_loop)

    def step(self, stmt, in_loop: bool) -> None:
        while isinstance(stmt, ast.Labeled):
            self.labels.setdefault(stmt.label, len(self.started))
            stmt = stmt.stmt
        if self.atomic_depth == 0 or not _never_blocks(stmt):
            self.exposed = True  # another process may move before the next run
        match stmt:
            case ast.Decl():
                for var in stmt.vars:
                    if var.name in self.ranges:
                        # A declaration sets its variable where it stands (spin evaluates the
                        # initialiser there); no initialiser: 0.
                        self.set(var.name, 0 if var.init is None else self.value(var.init))
                    self.no_run_in(var.init, stmt)
            case ast.Atomic() | ast.DStep():
                self.atomic_depth += 1
                try:
                    self.sequence(stmt.body, in_loop)
                finally:
                    self.atomic_depth -= 1
                self.exposed = self.exposed or self.atomic_depth == 0
            case ast.Block():
                self.sequence(stmt.body, in_loop)
            case ast.ForRange() if _runs_in(stmt):
                self.for_range(stmt)
            case ast.Do() if _runs_in(stmt):
                self.do_loop(stmt)
            case ast.ForIn() if _runs_in(stmt):
                raise _Stop(f"{stmt.pos}: a 'for' over an array is not followed")
            case ast.Unless() if _runs_in(stmt):
                raise _Stop(f"{stmt.pos}: an 'unless' can interrupt them")
            case ast.ExprStmt() if isinstance(stmt.expr, ast.Run):
                self.run(stmt.expr)
            case ast.Assign() if isinstance(stmt.value, ast.Run):
                self.no_run_in(stmt.target, stmt)
                self.run(stmt.value)
                self.forget_writes(stmt)
            case ast.Assign():
                self.no_run_in(stmt, stmt)
                target = stmt.target
                if isinstance(target, ast.VarRef) and target.index is None and target.field is None:
                    self.set(target.name, self.value(stmt.value))
                else:
                    self.forget_writes(stmt)
            case ast.IncDec():
                target = stmt.target
                if isinstance(target, ast.VarRef) and target.index is None and target.field is None \
                        and target.name in self.env:
                    self.set(target.name, self.env[target.name] + (1 if stmt.op == "++" else -1))
                else:
                    self.forget_writes(stmt)
            case ast.If() if _runs_in(stmt):
                raise _Stop(f"{stmt.pos}: which option of this 'if' is taken is not decided by "
                            "constants and init's own variables")
            case ast.If() | ast.Do() | ast.Unless() | ast.ForRange() | ast.ForIn():
                if in_loop and not isinstance(stmt, (ast.ForRange, ast.ForIn)):
                    raise _Stop(f"{stmt.pos}: the body of the loop around it branches here")
                goto = next((n for n in stmt.walk() if isinstance(n, ast.Goto)), None)
                if goto is not None:
                    raise _Stop(f"{goto.pos}: 'goto {goto.label}' can jump over runs")
                # Starts nobody: the values it writes become unknown.
                for node in stmt.walk():
                    if isinstance(node, ast.Labeled):
                        self.labels.setdefault(node.label, len(self.started))
                self.forget_writes(stmt)
            case ast.Goto():
                raise _Stop(f"{stmt.pos}: 'goto {stmt.label}' comes before them")
            case ast.Break():
                raise _Stop(f"{stmt.pos}: a 'break' inside the loop's body leaves it early")
            case _:
                self.no_run_in(stmt, stmt)
                self.forget_writes(stmt)

    def no_run_in(self, node, stmt) -> None:
        if node is not None and _runs_in(node):
            raise _Stop(f"{stmt.pos}: a 'run' inside an expression is not followed")

    def run(self, run: ast.Run) -> None:
        if run.proctype not in self.proctypes:
            raise ModelError(f"run of an undeclared proctype '{run.proctype}'", run.pos)
        if self.may_have_ended is not None and self.exposed:
            ended = self.may_have_ended
            raise _Stop(f"{ended.pos}: a '{ended.proctype}' started here can terminate before "
                        f"the run at {run.pos} and give it its pid")
        if len(self.started) + 1 >= MAX_PROCESSES:
            raise _Stop(f"{run.pos}: it would start more than {MAX_PROCESSES} processes")
        for arg in run.args:
            self.no_run_in(arg, run)
        args = [_fold(_put_in(a, self.env), self.constants) for a in run.args]
        self.started.append(StartedProcess(run, args))
        if self.may_end(run.proctype):
            self.may_have_ended, self.exposed = run, False

    # ------------------------------------------------------------------ loops
    def for_range(self, loop: ast.ForRange) -> None:
        counter = loop.var
        if not (isinstance(counter, ast.VarRef) and counter.index is None and counter.field is None
                and counter.name in self.ranges):
            raise _Stop(f"{loop.pos}: its counter is not a scalar local variable of init (another "
                        "process could change a global one)")
        if counter.name in _written(loop.body):
            raise _Stop(f"{loop.pos}: the loop's body writes its counter '{counter.name}'")
        # spin's `for` is `i = lo; do :: i <= hi -> body; i++ :: else -> break od`
        self.set(counter.name, self.value(loop.lo))
        start = self.iteration_count
        with self.iterations(loop):
            while True:
                hi = self.value(loop.hi)
                if counter.name not in self.env:
                    raise _Stop(f"{loop.pos}: " + ("its lower bound is not a constant" if self.iteration_count == start
                                                   else f"its counter '{counter.name}' cannot hold the value after "
                                                        "the last one (spin's loop wraps around)"))
                if hi is None:
                    raise _Stop(f"{loop.pos}: its upper bound is not a constant")
                if self.env[counter.name] > hi:
                    return
                self.sequence(loop.body, in_loop=True)
                self.set(counter.name, self.env[counter.name] + 1)  # (the body does not write it)
                self.count_iteration(loop)

    def do_loop(self, loop: ast.Do) -> None:
        with self.iterations(loop):
            while True:
                option = self.enabled_option(loop)
                steps = option.steps[1:]
                if steps and isinstance(_unlabelled(steps[-1]), ast.Break):
                    self.sequence(ast.Sequence(steps=steps[:-1]), in_loop=True)
                    return
                self.sequence(ast.Sequence(steps=steps), in_loop=True)
                self.count_iteration(loop)

    def enabled_option(self, loop: ast.Do) -> ast.Sequence:
        """The one option the loop takes with the values known now."""
        enabled, otherwise = [], None
        for option in loop.options:
            guard = _unlabelled(option.steps[0]) if option.steps else None
            if isinstance(guard, ast.Else):
                otherwise = option
                continue
            if not isinstance(guard, ast.ExprStmt) or _runs_in(guard):
                raise _Stop(f"{getattr(guard, 'pos', None) or loop.pos}: an option of the loop does "
                            "not start with a condition")
            value = self.value(guard.expr)
            if value is None:
                raise _Stop(f"{guard.pos}: the condition '{_text(guard.expr)}' is not decided by "
                            "constants and init's own variables")
            if value:
                enabled.append(option)
        if not enabled and otherwise is not None:
            enabled = [otherwise]
        if len(enabled) != 1:
            raise _Stop(f"{loop.pos}: " + ("the loop blocks" if not enabled else
                                           "more than one option of the loop can be taken"))
        for label_step in enabled[0].steps[:1]:
            while isinstance(label_step, ast.Labeled):
                self.labels.setdefault(label_step.label, len(self.started))
                label_step = label_step.stmt
        return enabled[0]

    def count_iteration(self, loop) -> None:
        self.iteration_count += 1
        if self.iteration_count > MAX_ITERATIONS:
            raise _Stop(f"{loop.pos}: the loop does not end within {MAX_ITERATIONS} iterations")

    @contextmanager
    def iterations(self, loop):
        try:
            yield
        except _Stop:
            # The numbering stopped inside: none of the loop's runs is numbered.
            self.interrupted.update(id(n) for n in loop.walk() if isinstance(n, ast.Run))
            raise

    # ------------------------------------------------------------------ jumps
    def jump_back(self, body: ast.Sequence) -> str | None:
        """Why no run can be numbered, when a goto of init can go back to a label passed
        before the last numbered run (the runs after it would start again)."""
        for node in body.walk():
            if isinstance(node, ast.Goto) and self.labels.get(node.label, len(self.started)) < len(self.started):
                return (f"{node.pos}: 'goto {node.label}' can go back to before runs that have "
                        "already started processes")
        return None


def _never_blocks(stmt) -> bool:
    """Whether init, in an atomic sequence, keeps running through ``stmt``: a statement that
    cannot block, a run, or a compound statement whose own steps the walker checks one by one
    (an unrolled loop, whose guards it found true)."""
    if isinstance(stmt, (ast.Do, ast.ForRange)):
        return _runs_in(stmt)
    if isinstance(stmt, ast.ExprStmt):
        return isinstance(stmt.expr, ast.Run)
    return isinstance(stmt, (ast.Atomic, ast.DStep, ast.Block, ast.Assign, ast.IncDec, ast.Decl,
                             ast.Skip, ast.Printf, ast.Printm))


def _range(type_name, var: ast.VarDecl) -> tuple[int, int] | None:
    name = getattr(type_name, "name", None)  # (a ref of the extension is no TypeName)
    if name == "unsigned":
        bits = constant_value(var.bits) if var.bits is not None else None
        return (0, (1 << bits) - 1) if bits is not None else None
    return _RANGES.get(name) if isinstance(name, str) else None


def _unlabelled(stmt):
    while isinstance(stmt, ast.Labeled):
        stmt = stmt.stmt
    return stmt


def _runs_in(node) -> bool:
    return any(isinstance(n, ast.Run) for n in node.walk())


def _text(expr) -> str:
    from .printer import print_expr

    return print_expr(expr)


def _written(node) -> set[str]:
    """The names of the variables (as plain names) that ``node`` can write."""
    names: set[str] = set()
    for n in node.walk():
        if isinstance(n, ast.Decl):
            # (spin evaluates a declaration's initialiser where the declaration stands)
            names.update(v.name for v in n.vars)
        names.update(target.name for target in n.writes() if isinstance(target, ast.VarRef))
    return names


def _put_in(expr, env: dict[str, int]):
    """``expr`` with each plain reference to a variable of ``env`` replaced by its value."""
    if isinstance(expr, ast.VarRef):
        if expr.index is None and expr.field is None and expr.name in env:
            return ast.Const(value=env[expr.name], pos=expr.pos)
        # (the names of fields are no variables)
        return ast.replace(expr, index=_put_in(expr.index, env)) if expr.index is not None else expr
    if not isinstance(expr, ast.Node) or isinstance(expr, (ast.Run, ast.RemoteVar, ast.RemoteLabel)):
        return expr
    return ast.map_children(expr, lambda child: _put_in(child, env))


def _fold(expr, constants):
    """``expr`` with a constant value folded to ``Const``; array indices folded too."""
    value = constant_value(expr, constants)
    if value is not None:
        return ast.Const(value=value, pos=expr.pos)
    if isinstance(expr, ast.VarRef) and expr.index is not None:
        return ast.replace(expr, index=_fold(expr.index, constants))
    return expr
