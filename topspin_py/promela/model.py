"""The Model: what a parsed specification declares and which processes and channels it starts.

Numbering follows SPIN 6.5.2's verifier (checked against pan):

* pids: ``active`` proctypes and ``init`` get pids in declaration order (``active [N]`` takes
  N consecutive pids); processes started by ``run`` follow, in the order the runs execute.
  (A process that terminates frees its pid when it is the last one, so a later ``run`` can
  reuse it; the numbering here is that of processes that are all still alive.)
* channel ids are 1-based: global channels first, in declaration order (an array of channels
  takes consecutive ids), then each process's local channels as the process is created.
* mtype values: each ``mtype`` declaration numbers its names from the last one down, above the
  values of earlier declarations of the same mtype (``mtype = {a, b}`` gives a=2, b=1).

init's runs are followed by init_runs.py: straight-line code, and loops whose iterations
constants and init's own variables decide (``for (i : 0 .. N-1) { run P(i) }``, ``do :: i < N ->
run P(i); i++ :: else -> break od``), unrolled for the numbering only.  Runs whose execution
cannot be decided from the text (under a branch, in proctypes other than ``init``) are listed in
``dynamic_runs``, with why for init's (``unnumbered_why``); the symmetry analysis treats them
conservatively.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ModelError, SourcePos
from ..gcpause import collector_paused
from . import ast
from .claim_in_force import ANY_CLAIM, FIRST_CLAIM, NO_CLAIM
from .constants import constant_value
from .copies import Copies, merge_copies
from .desugar import RefKnowledge, desugar
from .extension import uses_extension
from .init_runs import init_runs
from .inline import expand_inlines
from .parser import parse_file
from .pragmas import scalarset_pragmas
from .selects import expand_selects
from .termination import can_terminate

INIT = ":init:"  # the name SPIN gives the init process (procname[] in pan.c)


def plain_type(type_: ast.TypeName | ast.RefType) -> ast.TypeName:
    """A declared type (of a variable, a typedef field, a message field) in the program a
    Model holds, where every type is a TypeName: a program with a ``ref P`` is desugared
    before its Model is built, and desugar.py makes every ref a byte."""
    assert isinstance(type_, ast.TypeName), "a Model's program is desugared: it declares no ref"
    return type_


@dataclass
class Variable:
    """A declared variable: global (``owner`` None) or local to a proctype."""

    name: str
    type: ast.TypeName
    size: int | None  # array length, None for a scalar
    init: object | None  # initialiser expression or ChanInit
    owner: str | None
    visibility: str | None
    is_param: bool = False
    bits: int | None = None  # width of an `unsigned` variable
    pos: SourcePos | None = None


@dataclass
class ProcessInstance:
    """A process the model starts, with the pid SPIN gives it."""

    pid: int
    proctype: str  # INIT for init
    origin: str  # "active", "init" or "run"
    args: list = field(default_factory=list)  # argument expressions of `run`
    pos: SourcePos | None = None
    node: object | None = None  # the `run` expression that starts it (None for active/init)


@dataclass
class StaticChannel:
    """A channel created by a declaration with an initialiser, with its SPIN channel id."""

    id: int  # 1-based, as held by chan variables
    name: str  # `q[2]`, or `proctype(pid).name` for a local channel
    capacity: int
    fields: list[ast.TypeName]
    owner_pid: int | None  # None for a global channel
    pos: SourcePos | None = None


@dataclass
class Model:
    """A specification and the facts about it that later stages need."""

    spec: ast.Spec  # as written (inline definitions and calls kept)
    expanded: ast.Spec  # inline calls expanded
    path: str | None
    mtypes: dict[str, int]
    mtype_sets: dict[str | None, list[str]]
    typedefs: dict[str, ast.TypeDef]
    globals: list[Variable]
    proctypes: dict[str, ast.Proctype]
    init: ast.Init | None
    locals: dict[str, list[Variable]]  # proctype name (INIT for init) -> its locals and params
    processes: list[ProcessInstance]
    channels: list[StaticChannel]
    never_claims: list[ast.Never]
    ltl: list[ast.Ltl]
    dynamic_runs: list[ast.Run]
    # id of a run of init in dynamic_runs -> why init_runs could not number it (a sentence that
    # begins with the place)
    unnumbered_why: dict[int, str] = field(default_factory=dict)
    # Whether the search may look for acceptance or non-progress cycles (pan -a, -l): True
    # unless the caller knows it is a safety search (see for_safety_search).
    cycle_search: bool = True
    # Whether the search stores states inside atomic sequences (a breadth-first pan does):
    # then a process can be inside an atomic if/do option in a stored state.
    atomic_states_stored: bool = False
    # A program that uses the ref/public extension of Derepas and Gastin [DG01]: the program as written (then
    # ``spec`` and ``expanded`` are its desugaring, plain Promela), and what the desugaring
    # knows about its refs.  None for a plain program.
    extended: ast.Spec | None = None
    refs: RefKnowledge | None = None
    # Whether the pan that checks the model resets local variables to 0 where they are dead
    # (spin's dataflow optimisation, which -o1 turns off): then 0 appears in a local holding
    # pids whatever the permutation.  True unless the pan.m spin wrote shows no such reset
    # (loading.resets_dead_locals).
    resets_dead_locals: bool = True
    # Which locals it resets, as (proctype, variable) pairs (INIT for init's), from the marks
    # in that pan.m; None when not known (then every local may be reset).
    dead_resets: frozenset[tuple[str, str]] | None = None
    # Proctypes that are copies of one another up to constants acting as ids (copies.py): the
    # families merged into one proctype (then ``spec`` and ``expanded`` are the rewritten
    # program, and ``as_written`` the program as written), and those left alone, with why.
    copies: Copies | None = None
    as_written: ast.Spec | None = None
    # spin's never claim for each ltl formula, as the spin -a that makes the search's pan
    # wrote it (_spin_nvr.tmp): id of the Ltl unit -> (that unit, the claim).  The claim is what
    # pan checks, so what the symmetry must respect (symmetry/validity/); empty when not known.
    ltl_claims: dict[int, tuple[ast.Ltl, ast.Never]] = field(default_factory=dict)
    # The mtype subtypes the model's comments declare scalarsets (pragmas.py), with where.
    scalarsets: dict[str, SourcePos] = field(default_factory=dict)
    # The search context (keeping_claim): which claim the search checks (NO_CLAIM ...; or a
    # claim's name), the names pan gives the claims kept (None: every claim, not narrowed)
    # and those left out because the search does not check them.  Names are taken before any
    # claim is left out: spin numbers unnamed claims (never_0, ltl_0) among all of them.
    claim_in_force: str = ANY_CLAIM
    claims_kept: tuple[str, ...] | None = None
    claims_left_out: tuple[str, ...] = ()

    @property
    def rewritten(self) -> bool:
        """Whether spin is given a program of ours instead of the model's file."""
        return self.extended is not None or self.as_written is not None

    @property
    def spin_text(self) -> str | None:
        """The text to give spin instead of the model's file: the desugared program of a model
        that uses the extension, the program with its copies merged (copies.py); None for a
        plain model (spin reads the file itself)."""
        if not self.rewritten:
            return None
        from .printer import print_spec

        return print_spec(self.spec)

    def ltl_names(self) -> list[str]:
        """The names spin gives the ltl formulas, in order: an unnamed one is ltl_0, ltl_1, ..."""
        names, unnamed = [], 0
        for unit in self.ltl:
            if unit.name is None:
                names.append(f"ltl_{unnamed}")
                unnamed += 1
            else:
                names.append(unit.name)
        return names

    def claim_names(self) -> list[tuple[ast.Never | ast.Ltl, str]]:
        """Each never claim and ltl formula with the name pan gives it (``-N name``): its own,
        ``never_K`` for an unnamed never claim that has K never claims, named or not, before it
        (spin.y's optname counts them all: ``never mine {...} never {...}`` gives never_1),
        ``ltl_0`` ... for unnamed ltl formulas; never claims first, in source order, as pan
        numbers them."""
        named: list[tuple[ast.Never | ast.Ltl, str]] = [
            (claim, claim.name if claim.name is not None else f"never_{index}")
            for index, claim in enumerate(self.never_claims)]
        return named + list(zip(self.ltl, self.ltl_names()))

    def checked_claim_names(self) -> tuple[str, ...]:
        """The names of the claims this model keeps (all of them unless keeping_claim left
        some out): pan must check one of them, or none."""
        if self.claims_kept is not None:
            return self.claims_kept
        return tuple(name for _, name in self.claim_names())

    def checked_ltl_names(self) -> tuple[str, ...]:
        """The names of the ltl formulas among checked_claim_names (claim_names lists the
        never claims first, and keeping_claim keeps that order)."""
        kept = self.checked_claim_names()
        return kept[len(kept) - len(self.ltl):] if self.ltl else ()

    def ltl_claim(self, unit: ast.Ltl) -> ast.Never | None:
        """spin's never claim for the ltl formula ``unit``, if known."""
        entry = self.ltl_claims.get(id(unit))
        return entry[1] if entry is not None and entry[0] is unit else None

    def for_breadth_first_search(self) -> "Model":
        """This model as a breadth-first search sees it: states inside atomic sequences are
        stored too."""
        return dataclasses.replace(self, atomic_states_stored=True)

    def for_safety_search(self) -> "Model":
        """This model as a safety search sees it: accept and progress labels play no part."""
        return dataclasses.replace(self, cycle_search=False)

    def receives_into_pid(self) -> list[ast.Receive]:
        """Receives with `_pid` as a field (`in?0,_pid`).  spin -a compiles them into an
        assignment of the process's own pid (its simulator refuses them: "illegal assignment
        to _pid"), and pan does not store `_pid` in a state.  TopSPIN's ring example uses
        one where the value received is always the receiver's own pid, when it does nothing."""
        return [node for proctype in self.proctypes.values() for node in proctype.body.walk()
                if isinstance(node, ast.Receive)
                and any(isinstance(a, ast.VarRef) and a.name == "_pid" for a in node.args)]

    def invisible_cycle_labels(self) -> list[ast.Labeled]:
        """Accept and progress labels inside an atomic sequence or a d_step of a proctype.
        spin warns that such a label "is invisible": pan stores no state at it, so its nested
        search never starts there, yet its first search may still report a cycle through it,
        depending on the order in which it meets the states."""
        found: list[ast.Labeled] = []
        for proctype in self.proctypes.values():
            labels = [n for n in proctype.body.walk() if isinstance(n, ast.Labeled)
                      and n.label.startswith(("accept", "progress"))]
            if not labels:
                continue
            inside = {id(n) for atomic in proctype.body.walk() if isinstance(atomic, (ast.Atomic, ast.DStep))
                      for n in atomic.body.walk() if isinstance(n, ast.Labeled)}
            found.extend(label for label in labels if id(label) in inside)
        return found

    def start_up_counts_never_stored(self) -> frozenset[int]:
        """Numbers k of processes (pids 0 .. k-1 running, the rest not started) that no state a
        depth-first pan stores has: init runs pid k-1 and then pid k next to each other in one
        atomic sequence or d_step, with only assignments between.  pan stores no state inside
        an atomic sequence, and it stays atomic there, since neither a `run` (of fewer than
        255 processes) nor an assignment blocks.  A breadth-first pan stores such states too
        (its "stored-atomic" states)."""
        if self.init is None:
            return frozenset()
        runs: dict[int, list[int]] = {}
        for proc in self.processes:
            if proc.node is not None:
                runs.setdefault(id(proc.node), []).append(proc.pid)
        # A `run` in an unrolled `for` starts several processes: its pid is not one number.
        pid_of = {node: pids[0] for node, pids in runs.items() if len(pids) == 1}
        never = set()
        for sequence in self.init.body.walk():
            if not isinstance(sequence, (ast.Atomic, ast.DStep)):
                continue
            started = None  # the pid the last run of this sequence started, nothing between
            for step in sequence.body.steps:
                run = _run_of(step)
                if run is not None and id(run) in pid_of:
                    if started is not None and pid_of[id(run)] == started + 1:
                        never.add(started + 1)
                    started = pid_of[id(run)]
                elif not isinstance(step, ast.Assign):
                    started = None  # a label, a guard, control flow: the state may be stored
        return frozenset(never)

    def keeping_claim(self, claim: str) -> "Model":
        """This model as a search that checks ``claim`` sees it (NO_CLAIM ...; otherwise the
        name pan gives an ltl formula or a never claim, claim_names): the other claims do not
        constrain the search, so they need not constrain its symmetry, and they are left out
        (``claims_left_out`` names them).  An unknown name keeps them all."""
        if self.claims_kept is not None:
            raise ValueError("keeping_claim narrows a model once")
        named = self.claim_names()
        if claim == ANY_CLAIM or not named:
            return dataclasses.replace(self, claim_in_force=claim)
        kept: list[ast.Never | ast.Ltl]
        if claim == NO_CLAIM:
            kept = []
        elif claim == FIRST_CLAIM:
            # spin numbers the never claims first and the ltl formulas after them (it
            # translates the formulas once the model is read), each in source order; pan's
            # default is the first in that order, whatever comes first in the file.
            kept = [named[0][0]]
        else:
            # `pan -N name` selects an ltl formula or a never claim by the name pan gives it
            kept = [unit for unit, name in named if name == claim]
            if not kept:
                return dataclasses.replace(self, claim_in_force=ANY_CLAIM)
        dropped = [unit for unit, _ in named if not any(unit is k for k in kept)]

        def without(units):
            return [u for u in units if not any(u is d for d in dropped)]
        return dataclasses.replace(
            self, expanded=dataclasses.replace(self.expanded, units=without(self.expanded.units)),
            never_claims=without(self.never_claims), ltl=without(self.ltl), claim_in_force=claim,
            claims_kept=tuple(name for unit, name in named if not any(unit is d for d in dropped)),
            claims_left_out=tuple(name for unit, name in named if any(unit is d for d in dropped)))

    def processes_of(self, proctype: str) -> list[ProcessInstance]:
        return [p for p in self.processes if p.proctype == proctype]

    def global_named(self, name: str) -> Variable | None:
        return next((v for v in self.globals if v.name == name), None)

    def local_named(self, owner: str, name: str) -> Variable | None:
        """The local (or parameter) ``name`` of proctype ``owner`` (or INIT), if declared."""
        return next((v for v in self.locals.get(owner, []) if v.name == name), None)


@collector_paused()
def load_model(path: str | Path, defines: tuple[str, ...] | list[str] = (),
               cpp_flags: tuple[str, ...] = (), merge: bool = True) -> Model:
    """Preprocess, parse and build the Model of the file at ``path`` (``cpp_flags``: spin's
    ``-E`` flags for its preprocessor, e.g. ``-I/dir``; ``merge``: see build_model)."""
    model = build_model(parse_file(path, defines, cpp_flags), str(path), merge)
    model.scalarsets = scalarset_pragmas(path)
    return model


def build_model(spec: ast.Spec, path: str | None = None, merge: bool = True) -> Model:
    """Collect declarations, number mtypes, processes and channels.

    A program that uses the ref/public extension of Derepas and Gastin [DG01] is checked against its rules and
    desugared here (desugar.py): the Model is that of the plain program, with ``extended``
    the program as written and ``refs`` what the desugaring knows about its refs.  In a plain
    program, proctypes that are copies of one another up to constants acting as ids are
    merged into one (copies.py; not when ``merge`` is False): the Model is that of the
    rewritten program, with ``as_written`` the program as written."""
    builder = _Builder(spec, path)
    if not uses_extension(builder.expanded):
        if not merge:
            return builder.build()
        processes, dynamic = builder.processes_and_runs()
        merged, copies = merge_copies(builder.expanded, processes, dynamic)
        if merged is builder.expanded:
            model = builder.build()
        else:
            model = _Builder(merged, path).build()
            model.as_written = spec
        model.copies = copies
        return model
    desugared = desugar(builder.expanded, builder.process_instances())
    model = _Builder(desugared.spec, path).build()
    model.extended = spec
    model.refs = desugared.knowledge
    return model


# Variables SPIN maintains itself.  spin -a refuses an assignment to any of them ("invalid
# assignment to _pid") but compiles a receive into one, which overwrites pan's own bookkeeping:
# refuse every write, however it is spelt, except a receive into _pid (receives_into_pid).
READ_ONLY = frozenset({"_pid", "_nr_pr", "_last", "np_"})


def _refuse_writes_to_predefined(spec: ast.Spec) -> None:
    for node in spec.walk():
        written = node.writes()
        if isinstance(node, ast.Receive):   # (a receive into _pid is allowed: see READ_ONLY)
            written = [a for a in written if not (isinstance(a, ast.VarRef) and a.name == "_pid")]
        for target in written:
            if isinstance(target, ast.VarRef) and target.name in READ_ONLY:
                raise ModelError(f"write to the read-only variable {target.name}",
                                 target.pos or node.pos,
                                 hint=f"{target.name} is maintained by SPIN; keep a copy in a "
                                      "variable of your own if it must change")


class _Builder:
    def __init__(self, spec: ast.Spec, path: str | None) -> None:
        self.spec = spec
        self.path = path
        self.expanded = expand_inlines(expand_selects(spec))
        self.mtypes: dict[str, int] = {}
        self.mtype_sets: dict[str | None, list[str]] = {}
        self.unnumbered_why: dict[int, str] = {}

    def process_instances(self) -> list[ProcessInstance]:
        """The processes the program starts, numbered as ``build`` numbers them."""
        return self.processes_and_runs()[0]

    def processes_and_runs(self) -> tuple[list[ProcessInstance], list[ast.Run]]:
        """The processes the program starts, numbered as ``build`` numbers them, and the runs
        whose processes cannot be numbered before the search."""
        units = self.expanded.units
        for unit in units:
            if isinstance(unit, ast.MtypeDecl):
                self._number_mtypes(unit)
        found = self._processes(units, {u.name: u for u in units if isinstance(u, ast.Proctype)})
        self.mtypes, self.mtype_sets = {}, {}
        return found

    def build(self) -> Model:
        units = self.expanded.units
        for unit in units:
            if isinstance(unit, ast.MtypeDecl):
                self._number_mtypes(unit)
        _refuse_writes_to_predefined(self.expanded)
        typedefs = {u.name: u for u in units if isinstance(u, ast.TypeDef)}
        globals_ = [v for u in units if isinstance(u, ast.Decl) for v in self._variables(u, None)]
        proctypes = {u.name: u for u in units if isinstance(u, ast.Proctype)}
        inits = [u for u in units if isinstance(u, ast.Init)]
        if len(inits) > 1:
            raise ModelError("more than one init process", inits[1].pos)
        locals_ = {name: self._locals(p.params, p.body, name) for name, p in proctypes.items()}
        if inits:
            locals_[INIT] = self._locals([], inits[0].body, INIT)
        processes, dynamic = self._processes(units, proctypes)
        channels = self._channels(globals_, processes, locals_)
        return Model(
            spec=self.spec, expanded=self.expanded, path=self.path, mtypes=self.mtypes,
            mtype_sets=self.mtype_sets, typedefs=typedefs, globals=globals_, proctypes=proctypes,
            init=inits[0] if inits else None, locals=locals_, processes=processes,
            channels=channels, never_claims=[u for u in units if isinstance(u, ast.Never)],
            ltl=[u for u in units if isinstance(u, ast.Ltl)], dynamic_runs=dynamic,
            unnumbered_why=self.unnumbered_why,
        )

    # ------------------------------------------------------------------ declarations
    def _number_mtypes(self, decl: ast.MtypeDecl) -> None:
        names = self.mtype_sets.setdefault(decl.subtype, [])
        base = len(names)
        for i, name in enumerate(decl.names):
            self.mtypes[name] = base + len(decl.names) - i
        names.extend(decl.names)

    def _variables(self, decl: ast.Decl, owner: str | None, is_param: bool = False) -> list[Variable]:
        result = []
        for var in decl.vars:
            size = self.evaluate(var.size) if var.size is not None else None
            bits = self.evaluate(var.bits) if var.bits is not None else None
            result.append(Variable(var.name, plain_type(decl.type), size, var.init, owner, decl.visibility,
                                   is_param, bits, var.pos))
        return result

    def _locals(self, params, body, owner: str) -> list[Variable]:
        found = [v for p in params for v in self._variables(p, owner, is_param=True)]
        for node in body.walk():
            if isinstance(node, ast.Decl):
                found.extend(self._variables(node, owner))
        return found

    def evaluate(self, expr, env: dict[str, int] | None = None) -> int:
        """The value of a constant expression (after preprocessing, sizes are constants)."""
        value = constant_value(expr, {**self.mtypes, **(env or {})})
        if value is None:
            raise ModelError("this must be a constant expression", getattr(expr, "pos", None),
                             hint="array sizes, channel capacities and `active [N]` take constants "
                                  "(use #define for a named constant)")
        return value

    # ------------------------------------------------------------------ processes
    def _processes(self, units, proctypes) -> tuple[list[ProcessInstance], list[ast.Run]]:
        processes: list[ProcessInstance] = []
        init = None
        for unit in units:
            if isinstance(unit, ast.Proctype) and unit.active is not None:
                for _ in range(self.evaluate(unit.active)):
                    processes.append(ProcessInstance(len(processes), unit.name, "active", pos=unit.pos))
            elif isinstance(unit, ast.Init):
                init = unit
                processes.append(ProcessInstance(len(processes), INIT, "init", pos=unit.pos))
        dynamic: list[ast.Run] = []
        self.unnumbered_why = {}
        if init is not None:
            found = init_runs(init.body, self.mtypes, set(proctypes),
                              lambda name: can_terminate(proctypes[name].body))
            for started in found.started:
                processes.append(ProcessInstance(len(processes), started.run.proctype, "run", started.args,
                                                 started.run.pos, started.run))
            for run, why in found.unnumbered:
                dynamic.append(run)
                self.unnumbered_why[id(run)] = why
        # Runs anywhere else cannot be placed statically.
        for unit in units:
            if isinstance(unit, ast.Proctype):
                dynamic.extend(n for n in unit.body.walk() if isinstance(n, ast.Run))
        return processes, dynamic

    # ------------------------------------------------------------------ channels
    def _channels(self, globals_, processes, locals_) -> list[StaticChannel]:
        channels: list[StaticChannel] = []

        def add(var: Variable, owner_pid: int | None, prefix: str) -> None:
            if not isinstance(var.init, ast.ChanInit):
                return
            capacity = self.evaluate(var.init.capacity)
            names = [f"{var.name}[{i}]" for i in range(var.size)] if var.size is not None else [var.name]
            fields = [plain_type(f) for f in var.init.fields]
            for name in names:
                channels.append(StaticChannel(len(channels) + 1, prefix + name, capacity, fields,
                                              owner_pid, var.pos))

        for var in globals_:
            add(var, None, "")
        for proc in processes:
            for var in locals_.get(proc.proctype, []):
                add(var, proc.pid, f"{proc.proctype}({proc.pid}).")
        return channels


def _run_of(stmt):
    if isinstance(stmt, ast.ExprStmt) and isinstance(stmt.expr, ast.Run):
        return stmt.expr
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Run):
        return stmt.value
    return None
