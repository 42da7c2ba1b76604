"""Validity of a candidate symmetry against the program text (seed 000, section 7.3.1).

A candidate ``alpha`` permutes pids and static channel ids.  The canonicaliser applies it to a
state by moving each process to the slot of its image (program counter and locals with it),
moving each queue to the place of its image, permuting the elements of every array indexed by
pid, and renaming every value held in a place of kind PID or CHAN (types.py).  That map is an
automorphism of the state graph, and the reduction sound, when every transition of the program
commutes with it.  The check shows this on the text:

1. **Typed rewrite.**  ``alpha(P)`` is the program with every expression read in a *context*:
   PID (a pid is meant: an index of an array indexed by pid, a remote reference, ``enabled``,
   a comparison with a pid, a pid field), CHAN, DATA, TRUTH (a condition: a value is compared
   with 0) or OUTPUT (a printf argument: no effect on the state).  In a PID context a constant
   (after folding ``#define``, mtype names and arithmetic: ``2 - 1``, ``N - 1``) is renamed to
   its image, a value of kind PID is left to the canonicaliser, an expression of ``_pid`` and
   constants is evaluated for every process and must commute with alpha; **anything else is
   not understood, and alpha is rejected** if it moves what that place could name.  A place
   whose values are pids with an offset K (types.py: ``x = _pid - K``, ``flag[_pid - 1]``) is
   a context of its own, written ``pid-K``: there a constant c is renamed to alpha(c + K) - K
   when c + K is a pid (255, "nobody", stays 255), an expression of ``_pid`` and constants must
   give alpha(v + K) - K for the image process, and a plain pid or another offset does not fit
   (a rejection).  The same
   holds for channels and for the values of a scalar domain (types.py: alpha permutes them
   too, ``Alpha.value``; a comparison with a constant by order, ``x < 3``, must keep the values
   it holds for together, and a value read as a condition keeps 0), and in a DATA context a
   pid, channel or domain value is a rejection too (a permutation does not commute with
   ``x + 1`` or ``x < y``).  A proctype's parameters that are constants of their slots (none
   written, every process started before the search) may be renamed among themselves when the
   run arguments of each process's image are the permuted images of its own
   (``param_permutation``: a hypercube node's ``out1``, ``out2`` under a swap of dimensions);
   the text is then read with the renaming, and the canonicaliser keeps each slot's own.  So a flow that type inference
   missed costs symmetry, never soundness.  Every node kind is dispatched explicitly
   (``match`` ending in ``assert_never``).
2. **Same program.**  ``normal_form(alpha(P)) == normal_form(P)``, where the normal form folds
   constant arithmetic, sorts the operands of commutative operators (not of ``&&``/``||`` when
   evaluating one of them can fail: an array index, a remote reference), and sorts the options
   of an ``if``/``do`` **only where no state is stored inside them**: the canonicaliser leaves
   program counters where they are, so a permutation may exchange two options only when a
   process can never be inside either of them in a stored state (an option that is one simple
   statement, or a ``d_step``, or an ``atomic`` sequence that cannot block after its first
   statement, unless a breadth-first search stores states inside atomic sequences).  Other
   options are compared in order, so each must be mapped to itself.  Run statements are checked
   instance by instance (``check_processes``).  Global declarations are compared without their
   initial values (``pid owner = 2``): those give the initial state only, which alpha need not
   fix, since pan goes on from the states it reaches and the image of a path from the initial
   state is a path from its image, so every reachable orbit is met.  (Not a ``hidden``
   global's: pan keeps it out of the state vector, so nothing renames it.)
3. **The state's shape.**  Arrays indexed by pid cover every moved pid (a bad index must be bad
   for the image too; with offset K, element p - K of every moved p) and are not inside a
   typedef (the canonicaliser does not permute those);
   every place holding pids or channel ids is wide enough for every moved value (p - K for an
   offset K, never below 0); processes
   that can terminate are never moved (SPIN removes them in reverse pid order); pid 0 is never
   moved when a local variable holds pids (SPIN resets dead locals to 0; pid K for a local
   holding pids with offset K), unless the pan.m spin wrote resets none (``spin -o1``, as for
   the desugared ref/public extension: ``Model.resets_dead_locals``) or not that local
   (``Model.dead_resets``); a global declared as
   a channel (``chan q = ...``), whose references are renamed in the text and whose value is
   never renamed, is never written when its channels move; arrays indexed by channel ids are
   not permuted by the canonicaliser, so channels do not move when there is one.

``Checker.check(alpha)`` returns None when alpha is valid, or a ``Rejection`` that says why and
where.
"""

from __future__ import annotations

import itertools
import operator
import re
from dataclasses import dataclass
from functools import cached_property
from typing import assert_never

from ..errors import SourcePos
from ..promela import ast
from ..promela.model import INIT, Model, Variable, constant_value
from ..promela.printer import print_expr, print_formula, print_stmt, print_unit
from .types import CHAN, DATA, PID, PID_BUILTINS, TypeInfo, domain_of, pid_offset, written_targets, written_variables

TRUTH, OUTPUT = "truth", "output"

_COMMUTATIVE = {"+", "*", "&&", "||", "&", "|", "^", "==", "!="}
_ASSOCIATIVE = {"+", "*", "&&", "||", "&", "|", "^"}
_SHORT_CIRCUIT = {"&&", "||"}
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
# Names SPIN defines that hold no pid (``_`` is the write-only wildcard of receives).
_DATA_NAMES = frozenset({"_nr_pr", "timeout", "np_", "_"})
_CONTEXT_NAMES = {PID: "a pid", CHAN: "a channel id", DATA: "data", TRUTH: "a condition", OUTPUT: "output"}
_KIND_NAMES = {PID: "holds a pid", CHAN: "holds a channel id", DATA: "holds data"}


def shifted(offset: int) -> str:
    """The kind (and context) of pids with offset K, whose value v denotes pid v + K: PID for
    K = 0, else ``pid-K`` (``pid+K`` for a negative K)."""
    return PID if offset == 0 else f"{PID}{-offset:+d}"


def offset_of(kind) -> int | None:
    """K for a kind made by :func:`shifted`, None for a kind that holds no pids."""
    if kind == PID:
        return 0
    if isinstance(kind, str) and kind.startswith(PID) and kind[len(PID):len(PID) + 1] in ("+", "-") \
            and kind[len(PID) + 1:].isdigit():
        return -int(kind[len(PID):])
    return None


def _kind_name(kind) -> str:
    offset = offset_of(kind)
    if offset:
        return f"holds a pid with offset {offset}"
    if (domain := domain_of(kind)) is not None:
        return f"holds a value of '{domain}'"
    return _KIND_NAMES.get(kind, kind)


def _context_name(context) -> str:
    offset = offset_of(context)
    if offset:
        return f"a pid with offset {offset}"
    if (domain := domain_of(context)) is not None:
        return f"a value of '{domain}'"
    return _CONTEXT_NAMES[context]


@dataclass(frozen=True)
class Alpha:
    """A permutation of pids, of static channel ids and of the values of each scalar domain
    (identity where not listed)."""

    pids: tuple[tuple[int, int], ...]
    chans: tuple[tuple[int, int], ...]
    values: tuple[tuple[tuple[str, int], int], ...] = ()  # ((domain, value), image)
    # How the group that alpha belongs to acts on states besides (detect.Group.slot_constants):
    # the parameters of these proctypes stay in their slots.  (proctype, parameter names)
    slot_constants: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @staticmethod
    def of(pids: dict[int, int], chans: dict[int, int], values: dict[tuple[str, int], int] | None = None) -> Alpha:
        return Alpha(tuple(sorted((a, b) for a, b in pids.items() if a != b)),
                     tuple(sorted((a, b) for a, b in chans.items() if a != b)),
                     tuple(sorted((a, b) for a, b in (values or {}).items() if a[1] != b)))

    def pid(self, p: int) -> int:
        return self._pid_images.get(p, p)

    def chan(self, c: int) -> int:
        return self._chan_images.get(c, c)

    def value(self, domain: str, v: int) -> int:
        return self._value_images.get((domain, v), v)

    def moves_values(self, domain: str | None = None) -> bool:
        """Whether alpha moves a value of ``domain`` (of any domain when None)."""
        return any(domain is None or d == domain for (d, _v), _image in self.values)

    @cached_property
    def _value_images(self) -> dict[tuple[str, int], int]:
        return dict(self.values)

    # The mappings as dicts, made once: the checker asks for the image of every pid literal.
    @cached_property
    def _pid_images(self) -> dict[int, int]:
        return dict(self.pids)

    @cached_property
    def _chan_images(self) -> dict[int, int]:
        return dict(self.chans)

    def is_identity(self) -> bool:
        return not self.pids and not self.chans and not self.values

    def moves_pids(self) -> bool:
        return bool(self.pids)

    def moves_chans(self) -> bool:
        return bool(self.chans)


@dataclass
class Rejection:
    """Why a candidate is not valid, with the place in the model that shows it."""

    reason: str
    pos: SourcePos | None = None
    original: str | None = None  # the normalised text, before and after, for --explain
    permuted: str | None = None
    # The permutation may well be the model's symmetry, but the canonicaliser cannot apply it
    # (a typedef inside a message, an array indexed by channel ids): a limit of topspin-py's,
    # not the model's (a declared group leaves it out rather than refuse the model).
    limit: bool = False

    def __str__(self) -> str:
        return f"{self.pos}: {self.reason}" if self.pos else self.reason


@dataclass(frozen=True)
class Difference:
    """Where a unit and its image first differ: the reason in words, the place, and the
    Promela text there before and after the permutation (for ``detect --explain``)."""

    reason: str
    pos: SourcePos | None
    before: str | None = None
    after: str | None = None


class Token:
    """One occurrence of a pid or channel in the program text (see Tokenizer)."""

    __slots__ = ("point",)

    def __init__(self, point: tuple) -> None:
        self.point = point

    def __repr__(self) -> str:
        return "<token>"


class Tokenizer:
    """Not a permutation: replaces every occurrence of a pid or channel in a pid or channel
    context by a fresh Token that remembers which point it stands for (occurrence_regions).
    It rejects nothing: the regions it finds only colour the static channel diagram.  It also
    collects the expressions of ``_pid`` and constants that the check evaluates per process
    (``(_pid + 1) % N``), with their owner and context (Checker.pid_functions)."""

    def __init__(self) -> None:
        self.pid_expressions: list[tuple[ast.Expr, str, str]] = []

    def pid(self, p: int) -> Token:
        return Token(("pid", p))

    def chan(self, c: int) -> Token:
        return Token(("chan", c))

    def value(self, domain: str, v: int) -> Token:
        return Token(("val", (domain, v)))

    def is_identity(self) -> bool:
        return False


AlphaLike = Alpha | Tokenizer


class _Invalid(Exception):
    def __init__(self, rejection: Rejection) -> None:
        super().__init__(rejection.reason)
        self.rejection = rejection


@dataclass(frozen=True)
class PidIndexedArray:
    """An array whose index is a pid: its elements move with the pids."""

    name: str
    size: int
    in_typedef: bool
    pos: SourcePos | None
    offset: int = 0  # element i belongs to pid i + offset


@dataclass(frozen=True)
class ValuePlace:
    """A variable, typedef field or message field that holds pids or channel ids, with the
    values its C type holds (``smallest`` .. ``largest``: pan.h declares a byte ``uchar``, a
    short ``short``, ``unsigned x : 3`` a bit-field of 3 bits)."""

    name: str
    kind: str
    largest: int
    pos: SourcePos | None
    offset: int = 0  # a pid p is held as p - offset
    smallest: int = 0
    ctype: str = "byte"

    def holds(self, value: int) -> bool:
        return self.smallest <= value <= self.largest

    def stored(self, value: int) -> int:
        """``value`` as the C field holds it once assigned: wrapped around into its type."""
        return _wrapped(value, self.smallest, self.largest)


class Checker:
    """Checks candidates against one model, with its inferred types."""

    def __init__(self, model: Model, types: TypeInfo) -> None:
        from .types import SlotResolver

        self.model = model
        self.types = types
        self.resolve = SlotResolver(model, types.bound)
        self.mtypes = dict(model.mtypes)
        # Names with one value in every state: mtype names and globals holding data that
        # nothing writes (`byte x = 2`, a #define in disguise); constants fold through them.
        self.constants = {**self.mtypes, **self._unwritten_globals()}
        self.pids = {p.pid for p in model.processes}
        self.chan_ids = {c.id for c in model.channels}
        self.domain_values = {name: frozenset(d.values) for name, d in types.domains.items()}
        self.instances: dict[str, list[int]] = {}
        for proc in model.processes:
            self.instances.setdefault(proc.proctype, []).append(proc.pid)
        self.channel_by_name = {c.name: c for c in model.channels if c.owner_pid is None}
        self.channel_by_id = {c.id: c for c in model.channels}
        # Globals declared with a channel initialiser: their names are the channels' names.
        self.static_channel_vars = {v.name: v for v in model.globals if isinstance(v.init, ast.ChanInit)}
        self.static_runs = {id(p.node) for p in model.processes if p.node is not None}
        self.pid_expressions: dict[int, tuple[object, tuple[bool, bool]]] = {}
        # The references to locals that hold an expression of _pid for ever (types.pid_copies),
        # each read like that expression; and their values per pid.
        self.copy_refs = self._copy_references()
        self.copy_values: dict[tuple[str, int], dict[str, int]] = {}
        self.expression_kinds: dict[tuple[int, str | None], tuple[object, str | None]] = {}
        self.terminating = {name for name, p in model.proctypes.items() if can_terminate(p.body)}
        if model.init is not None and can_terminate(model.init.body):
            self.terminating.add(INIT)
        # Locals that hold pids, directly or in a typedef's field (SPIN resets dead locals).
        self.pid_locals = [
            (v, offset) for owner, vars_ in model.locals.items() for v in vars_
            for offset in sorted(({types.offset(("local", owner, v.name))}
                                  if types.kind(("local", owner, v.name)) == PID else set())
                                 | self._typedef_offsets(v.type.name, set()))
        ]
        self.zero_locals = self._domain_zero_locals()
        self.constant_params = self._constant_parameters()
        # The text of the regions (occurrence_regions) writes each constant parameter as its
        # type and how the text uses it (scd._parameter_labels), which param_permutation keeps.
        from .scd import parameter_labels
        self.parameter_masks = {name: {v.name: "$" + parameter_labels(model, name, self)[v.name] for v in params}
                                for name, params in self.constant_params.items()}
        # The proctypes whose constant parameters are constants of their processes' slots:
        # the canonicaliser leaves them in each slot, and a permutation may rename them among
        # themselves (param_permutation).  Chosen by detection (detect.py): those whose
        # processes a candidate maps onto each other only under such a renaming
        # (wants_slot_constants).  (alpha, proctype) -> the renaming, as check_processes found it.
        self.slot_constants: frozenset[str] = frozenset()
        self.wants_slot_constants: set[str] = set()
        self.renamings: dict[tuple[Alpha, str], dict[str, str]] = {}
        self.pid_arrays = self._pid_indexed_arrays()
        self.chan_indexed = self._chan_indexed_arrays()
        self.value_places = self._value_places()
        self.structured_messages = self._structured_messages()
        self.written_static_channels = self._written_static_channels()
        self.forms = NormalForms(atomic_states_stored=model.atomic_states_stored, constants=self.constants)
        init_body = self.sequence(model.init.body, INIT, None) if model.init is not None else None
        # Decided on the text as written: a permutation keeps distinct locations distinct.
        self.init_setup = bool(init_body and init_body.steps and isinstance(init_body.steps[0], (ast.Atomic, ast.DStep))
                               and _is_setup(init_body.steps[0].body, self._setup_send_target))
        # A global's initial value is part of the initial state only, which a symmetry need not
        # fix (module docstring): the declarations are compared without them.  Not a hidden
        # global's: pan keeps it out of the state vector, where the canonicaliser cannot rename
        # it, so it holds its initial value in every state, as a constant would.
        self.units = [_without_initial_values(u) if isinstance(u, ast.Decl) and u.visibility != "hidden" else u
                      for u in model.expanded.units if not isinstance(u, (ast.Inline, ast.MtypeDecl))]
        # id(node) -> (node, normal form) for the nodes of the program (see NormalForms)
        self.normal_forms: dict = {}
        self.original = [self.normal_unit(u, None) for u in self.units]
        # Filled by occurrence_regions: the per-process tables of expressions of _pid.
        self.pid_functions: list[tuple[tuple, list[tuple[int, tuple]]]] = []

    # ------------------------------------------------------------------ facts about the model
    def _constant_parameters(self) -> dict[str, list[Variable]]:
        """The parameters that hold the same value in every state of their process: those of
        a proctype whose processes init's runs all start before the search (numbered), that no
        statement writes (here or through a remote reference).  Each process's are constants of
        its slot, which a permutation may rename among themselves (param_permutation)."""
        written = written_variables(self.model)
        found = {}
        for name in self.model.proctypes:
            instances = self.model.processes_of(name)
            if len(instances) < 2 or any(p.origin != "run" or p.node is None for p in instances) \
                    or any(len(p.args) != len(instances[0].args) for p in instances):
                continue
            params = [v for v in self.model.locals.get(name, []) if v.is_param and v.size is None
                      and (name, v.name) not in written]
            if len(params) >= 2:
                found[name] = params
        return found

    def param_permutation(self, alpha: Alpha, proctype: str) -> dict[str, str] | None:
        """A renaming tau of the constant parameters of ``proctype`` (_constant_parameters)
        under which every process p's arguments, mapped by alpha, are the arguments of alpha(p):
        parameter tau(x) of alpha(p) gets the image of what x of p gets (the others the same).
        A hypercube node's `out0`, `out1`, `out2` under a swap of two dimensions.  The identity
        where it fits; None when no renaming does."""
        constant = self.constant_params.get(proctype)
        if not constant:
            return None
        params = [v for v in self.model.locals.get(proctype, []) if v.is_param]
        index = {v.name: i for i, v in enumerate(params)}
        by_pid = {p.pid: p for p in self.model.processes}
        candidates: dict[str, set[str]] = {}
        for p in self.model.processes_of(proctype):
            image = by_pid.get(alpha.pid(p.pid))
            if image is None or image.proctype != proctype:
                return None
            for param in params:
                kind = self.slot_kind(("local", proctype, param.name))
                try:
                    mapped = _normal(self.expr(p.args[index[param.name]], INIT, kind, alpha))
                except _Invalid:
                    return None
                fits = {other.name for other in (constant if param in constant else [param])
                        if other.type == param.type and self.slot_kind(("local", proctype, other.name)) == kind
                        and _normal(image.args[index[other.name]]) == mapped}
                candidates[param.name] = candidates.get(param.name, fits) & fits
        if all(name in fits for name, fits in candidates.items()):
            return {}
        renaming: dict[str, str] = {}
        while len(renaming) < len(candidates):
            name = next((n for n, fits in candidates.items() if n not in renaming and len(fits) == 1), None)
            if name is None:
                return None  # none fits, or a choice this greedy matching does not make
            target = next(iter(candidates[name]))
            renaming[name] = target
            for other, fits in candidates.items():
                if other != name:
                    fits.discard(target)
        return {a: b for a, b in renaming.items() if a != b}

    def _domain_zero_locals(self) -> list[tuple[str, Variable, str]]:
        """The locals of each scalar domain that get 0 whatever the permutation: one without an
        initialiser starts at 0 when its process is created, and SPIN resets a dead local to 0.
        (domain, variable, why), for the domains that hold 0."""
        found = []
        resets = self.model.dead_resets
        for name, domain in self.types.domains.items():
            if 0 not in domain.values:
                continue
            for slot in domain.slots:
                if slot[0] != "local":
                    continue
                var = self.model.local_named(slot[1], slot[2])
                if var is None:
                    continue
                if var.init is None and not var.is_param:
                    found.append((name, var, "a process starts with it 0"))
                elif self.model.resets_dead_locals and (resets is None or (var.owner, var.name) in resets):
                    found.append((name, var, "SPIN resets dead local variables to 0"))
        return found

    def _pid_indexed_arrays(self) -> list[PidIndexedArray]:
        found = []
        for var in self.model.globals:
            if var.size is not None and self.types.index_kind(("global", var.name)) == PID:
                found.append(PidIndexedArray(var.name, var.size, False, var.pos,
                                             self.types.index_offset(("global", var.name))))
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                if var.size is not None and self.types.index_kind(("local", owner, var.name)) == PID:
                    found.append(PidIndexedArray(f"{var.name} of {owner}", var.size, False, var.pos,
                                                 self.types.index_offset(("local", owner, var.name))))
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                for var in decl.vars:
                    if var.size is not None and self.types.index_kind(("field", typedef.name, var.name)) == PID:
                        size = constant_value(var.size, self.mtypes) or 0
                        found.append(PidIndexedArray(f"{typedef.name}.{var.name}", size, True, var.pos))
        return found

    def _chan_indexed_arrays(self) -> list[tuple[str, SourcePos | None]]:
        found = []
        for var in self.model.globals:
            if var.size is not None and self.types.index_kind(("global", var.name)) == CHAN:
                found.append((var.name, var.pos))
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                if var.size is not None and self.types.index_kind(("local", owner, var.name)) == CHAN:
                    found.append((f"{var.name} of {owner}", var.pos))
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                for var in decl.vars:
                    if var.size is not None and self.types.index_kind(("field", typedef.name, var.name)) == CHAN:
                        found.append((f"{typedef.name}.{var.name}", var.pos))
        return found

    def _value_places(self) -> list[ValuePlace]:
        """Every declared place whose values are pids or channel ids, with its type's range:
        a value outside it wraps around when stored, and the canonicaliser reads what is
        stored (templates/_apply.c.j2: ts_pid, ts_lid, ts_chan)."""
        places = []

        def add(name: str, slot: tuple, typename: str, bits: int | None, pos) -> None:
            kind = self.types.kind(slot)
            if kind in (PID, CHAN):
                smallest, largest = _value_range(typename, bits)
                ctype = f"unsigned : {bits}" if typename == "unsigned" and bits is not None else typename
                places.append(ValuePlace(name, kind, largest, pos, self.types.offset(slot), smallest, ctype))

        def add_channel(slot: tuple, init: ast.ChanInit, name: str, pos) -> None:
            for i, ftype in enumerate(init.fields):
                if ftype.name not in self.model.typedefs:
                    add(f"field {i + 1} of the messages of {name}", ("msg", slot, i), ftype.name, None, pos)

        for var in self.model.globals:
            add(var.name, ("global", var.name), var.type.name, var.bits, var.pos)
            if isinstance(var.init, ast.ChanInit):
                add_channel(("global", var.name), var.init, var.name, var.pos)
        for owner, vars_ in self.model.locals.items():
            for var in vars_:
                add(f"{var.name} of {owner}", ("local", owner, var.name), var.type.name, var.bits, var.pos)
                if isinstance(var.init, ast.ChanInit):
                    add_channel(("local", owner, var.name), var.init, var.name, var.pos)
        for typedef in self.model.typedefs.values():
            for decl in typedef.fields:
                for var in decl.vars:
                    bits = constant_value(var.bits, self.mtypes) if var.bits is not None else None
                    add(f"{typedef.name}.{var.name}", ("field", typedef.name, var.name), decl.type.name, bits, var.pos)
        return places

    def _unwritten_globals(self) -> dict[str, int]:
        """Scalar globals of a basic type holding data, with a constant initial value that fits
        the type, that no statement writes and no local shadows: name -> value."""
        written = {t.name for unit in self.model.expanded.units for node in unit.walk()
                   for t in written_targets(node) if isinstance(t, ast.VarRef)}
        local_names = {v.name for vars_ in self.model.locals.values() for v in vars_}
        found = {}
        for var in self.model.globals:
            if var.size is not None or var.name in written or var.name in local_names \
                    or var.type.name not in _TYPE_MAX and var.type.name != "unsigned" \
                    or var.type.name in ("pid", "chan") \
                    or self.types.kind(("global", var.name)) != DATA:
                continue
            value = 0 if var.init is None else constant_value(var.init, self.mtypes)
            if value is not None and 0 <= value <= _largest_value(var.type.name, var.bits):
                found[var.name] = value
        return found

    def _structured_messages(self) -> list[tuple[str, str, SourcePos | None]]:
        """Channels whose messages have a typedef field holding pids or channel ids: the
        canonicaliser renames plain message fields only, so those values would stay as they
        are.  (name, kind, where) for each."""
        found = []
        declarations = [(v, v.init) for v in self.model.globals if isinstance(v.init, ast.ChanInit)]
        declarations += [(v, v.init) for vars_ in self.model.locals.values() for v in vars_
                         if isinstance(v.init, ast.ChanInit)]
        for var, init in declarations:
            for ftype in init.fields:
                kinds = self._typedef_kinds(ftype.name, set())
                for kind in sorted(kinds):
                    found.append((var.name, kind, var.pos))
        return found

    def _typedef_kinds(self, name: str, seen: set[str]) -> set[str]:
        """The kinds (PID, CHAN) held anywhere inside typedef ``name`` (empty for a basic type)."""
        typedef = self.model.typedefs.get(name)
        if typedef is None or name in seen:
            return set()
        seen.add(name)
        kinds = set()
        for decl in typedef.fields:
            for var in decl.vars:
                kind = self.types.kind(("field", name, var.name))
                if kind in (PID, CHAN):
                    kinds.add(kind)
            kinds |= self._typedef_kinds(decl.type.name, seen)
        return kinds

    def _typedef_offsets(self, name: str, seen: set[str]) -> set[int]:
        """The offsets of the pids held anywhere inside typedef ``name``."""
        typedef = self.model.typedefs.get(name)
        if typedef is None or name in seen:
            return set()
        seen.add(name)
        offsets = set()
        for decl in typedef.fields:
            for var in decl.vars:
                if self.types.kind(("field", name, var.name)) == PID:
                    offsets.add(self.types.offset(("field", name, var.name)))
            offsets |= self._typedef_offsets(decl.type.name, seen)
        return offsets

    def slot_kind(self, slot) -> str:
        """The kind of ``slot`` as a context: pids with an offset are ``shifted(K)``."""
        kind = self.types.kind(slot)
        return shifted(self.types.offset(slot)) if kind == PID else kind

    def index_context(self, array_slot) -> str:
        kind = self.types.index_kind(array_slot)
        return shifted(self.types.index_offset(array_slot)) if kind == PID else kind

    def _written_static_channels(self) -> dict[str, SourcePos | None]:
        """Globals declared as channels that the program writes: their value is then not
        their own channel's id for ever (the text renaming of their names assumes it is)."""
        written: dict[str, SourcePos | None] = {}
        names = set(self.static_channel_vars)
        if not names:
            return written
        for unit in self.model.expanded.units:
            for node in unit.walk():
                targets: list = []
                if isinstance(node, (ast.Assign, ast.IncDec)):
                    targets = [node.target]
                elif isinstance(node, ast.Receive):
                    targets = [a for a in node.args if isinstance(a, ast.VarRef)]
                elif isinstance(node, (ast.ForRange, ast.ForIn, ast.Select)):
                    targets = [node.var]
                for target in targets:
                    if isinstance(target, ast.VarRef) and target.name in names and target.field is None:
                        owner_var, _ = self.resolve.variable(target.name, _owner_of(unit))
                        if owner_var is not None and owner_var.owner is None:
                            written.setdefault(target.name, target.pos or node.pos)
        return written

    def _setup_send_target(self, send: ast.Send) -> str | None:
        """The channel a send in init's set-up block fills, when that send cannot block and
        commutes with the block's other statements: a constant message into a buffered global
        channel named by a constant, that nothing reassigns, while init is the only process
        that has run (no active proctypes), so every channel is still empty."""
        if any(p.origin == "active" for p in self.model.processes):
            return None
        chan = send.chan
        if not isinstance(chan, ast.VarRef) or chan.field is not None or send.sorted:
            return None
        var = self.static_channel_vars.get(chan.name)
        owner_var, _ = self.resolve.variable(chan.name, INIT)
        if var is None or owner_var is not var or chan.name in self.written_static_channels:
            return None
        if any(constant_value(arg) is None for arg in send.args):
            return None
        name = chan.name
        if chan.index is not None:
            index = constant_value(chan.index)
            if index is None:
                return None
            name = f"{chan.name}[{index}]"
        channel = next((c for c in self.model.channels if c.owner_pid is None and c.name == name), None)
        if channel is None or channel.capacity < 1:
            return None
        return f"chan {channel.id}"

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
                    raise _Invalid(Rejection(f"the {_describe(unit)} is not mapped to itself: {found.reason}",
                                             found.pos or unit.pos, found.before, found.after))
        except _Invalid as invalid:
            return invalid.rejection
        return None

    def check_processes(self, alpha: Alpha) -> None:
        by_pid = {p.pid: p for p in self.model.processes}
        for a, b in alpha.pids:
            if a not in by_pid or b not in by_pid:
                raise _Invalid(Rejection(f"pid {a if a not in by_pid else b} is not a process of the model"))
            pa, pb = by_pid[a], by_pid[b]
            if pa.proctype != pb.proctype:
                raise _Invalid(Rejection(f"pid {a} ({pa.proctype}) and pid {b} ({pb.proctype}) "
                                         "run different proctypes", pa.pos))
            priority_a = getattr(pa.node, "priority", None)
            priority_b = getattr(pb.node, "priority", None)
            if _normal(priority_a) != _normal(priority_b):
                raise _Invalid(Rejection(f"pids {a} and {b} are run with different priorities", pb.pos))
            if pa.proctype in self.terminating:
                body = self.model.proctypes.get(pa.proctype)
                raise _Invalid(Rejection(
                    f"processes of '{pa.proctype}' can terminate, and SPIN removes terminated "
                    f"processes in reverse pid order, which no permutation of them respects",
                    body.pos if body is not None else pa.pos))
            if pa.proctype in self.slot_constants:
                continue  # its parameters: param_permutation, below
            params = [v for v in self.model.locals.get(pa.proctype, []) if v.is_param]
            for param, arg_a, arg_b in zip(params, pa.args, pb.args):
                kind = self.slot_kind(("local", pa.proctype, param.name))
                mapped = self.expr(arg_a, INIT, kind, alpha)
                if _normal(mapped) != _normal(arg_b):
                    if self.param_permutation(alpha, pa.proctype) is not None:
                        self.wants_slot_constants.add(pa.proctype)
                    raise _Invalid(Rejection(
                        f"run arguments differ: pid {a} gets {param.name} = {print_expr(arg_a)}, "
                        f"pid {b} gets {print_expr(arg_b)}", pb.pos))
        for proctype in self.slot_constants:
            renaming = self.param_permutation(alpha, proctype)
            if renaming is None:
                raise _Invalid(Rejection(
                    f"the run arguments of the processes of '{proctype}' are not those of their images "
                    "under any renaming of its parameters", self.model.proctypes[proctype].pos))
            self.renamings[alpha, proctype] = renaming
        resets = self.model.dead_resets
        for var, offset in self.pid_locals if self.model.resets_dead_locals else ():
            if resets is not None and (var.owner, var.name) not in resets:
                continue  # the pan spin wrote never resets this one
            if alpha.pid(offset) != offset and offset in self.pids:
                held = "pids" if offset == 0 else f"pids with offset {offset}"
                raise _Invalid(Rejection(
                    f"pid {offset} would move, but the local '{var.name}' holds {held} and SPIN "
                    f"resets dead local variables to 0, which is also pid {offset}", var.pos))
        for domain, var, why in self.zero_locals:
            self.reject(alpha, f"the value 0 of '{domain}' would move, but the local '{var.name}' "
                               f"holds its values and {why}", var, value_zero=domain)

    def check_channels(self, alpha: Alpha) -> None:
        by_id = self.channel_by_id
        for a, b in alpha.chans:
            ca, cb = by_id.get(a), by_id.get(b)
            if ca is None or cb is None:
                raise _Invalid(Rejection(f"channel {a if ca is None else b} is not a static channel"))
            if ca.owner_pid is not None or cb.owner_pid is not None:
                # A local channel belongs to its process: it moves with it and only with it.
                if ca.owner_pid is None or cb.owner_pid is None or alpha.pid(ca.owner_pid) != cb.owner_pid \
                        or ca.name.split(".", 1)[1] != cb.name.split(".", 1)[1]:
                    raise _Invalid(Rejection(f"local channel {ca.name} must move with its process", ca.pos))
            if (ca.capacity, [str(f) for f in ca.fields]) != (cb.capacity, [str(f) for f in cb.fields]):
                raise _Invalid(Rejection(f"channels {ca.name} and {cb.name} have different types", ca.pos))
            for chan in (ca, cb):
                var_name = chan.name.split("[", 1)[0]
                if chan.owner_pid is None and var_name in self.written_static_channels:
                    raise _Invalid(Rejection(
                        f"'{var_name}' is declared as a channel and also assigned, so it does not "
                        f"always name channel {chan.name}; its channels cannot move",
                        self.written_static_channels[var_name]))
        for proc in self.model.processes:
            owned = [c for c in self.model.channels if c.owner_pid == proc.pid]
            for chan in owned:
                image = alpha.chan(chan.id)
                target = by_id[image]
                if target.owner_pid != alpha.pid(proc.pid):
                    raise _Invalid(Rejection(f"local channel {chan.name} must move with its process", chan.pos))

    def check_state_shape(self, alpha: Alpha) -> None:
        moved_pids = [p for p, _ in alpha.pids]
        moved_chans = [c for c, _ in alpha.chans]
        if moved_pids:
            for array in self.pid_arrays:
                if array.in_typedef:
                    raise _Invalid(Rejection(
                        f"'{array.name}' is an array inside a typedef indexed by pid, which the "
                        "canonicaliser does not permute", array.pos, limit=True))
                # With an offset K, an index held in the state is a byte, so it names a pid of
                # K or more; a pid below K is named only by `_pid - K` in its own process, where
                # it is out of bounds: so must its image be.
                self._keep_below_offset(alpha, array.offset, array.name, array.pos)
                # An index naming a moved pid must be out of bounds exactly when its image is.
                images = dict(alpha.pids)
                bounds = range(array.offset, array.offset + array.size)
                outside = [p for p in moved_pids if p >= array.offset and p not in bounds
                           and images[p] in bounds]
                if outside and array.offset == 0:
                    raise _Invalid(Rejection(
                        f"'{array.name}' is indexed by pid but has {array.size} elements, so pid "
                        f"{max(outside)} is out of its bounds while its image may not be", array.pos))
                if outside:
                    raise _Invalid(Rejection(
                        f"'{array.name}' is indexed by pid - {array.offset} but has {array.size} "
                        f"elements, so pid {outside[0]} (index {outside[0] - array.offset}) is out of "
                        "its bounds while its image may not be", array.pos))
        for place in self.value_places:
            moved = moved_pids if place.kind == PID else moved_chans
            if place.kind == PID and place.offset:
                # A byte holding pid - K names pids of K or more only: those below stay below.
                self._keep_below_offset(alpha, place.offset, place.name, place.pos)
            # Values as the C holds them: pid p is held as p - K wrapped into the place's type,
            # and the canonicaliser renames what it reads back only when that is a pid again.
            # A moved pid or channel whose value does not fit would stay as it is.  (A place of
            # offset K holds the values of pids below K only where an expression of _pid or a
            # constant puts them there: check_held rejects those it does not hold.)
            for point in moved:
                if place.kind == PID and point < place.offset:
                    continue
                if not place.holds(point - place.offset):
                    raise _Invalid(Rejection(self._unheld(place, point), place.pos))
        for loop in self.types.loops if moved_pids else ():
            # The counter of a loop over ids is a pid inside the body (loops.py): the values
            # it walks must name a set of pids that alpha maps onto itself.
            if self.types.kind(loop.slot) != PID:
                continue
            offset = self.types.offset(loop.slot)
            walked = {v + offset for v in range(loop.lo, loop.hi + 1)} & self.pids
            for p in sorted(walked):
                if alpha.pid(p) not in walked:
                    raise _Invalid(Rejection(
                        f"the loop over '{loop.counter}' walks pids {loop.lo + offset} .. "
                        f"{loop.hi + offset}, and the permutation takes pid {p} in it to pid "
                        f"{alpha.pid(p)} outside it", loop.pos))
        for name, kind, pos in self.structured_messages:
            if (moved_pids if kind == PID else moved_chans):
                raise _Invalid(Rejection(
                    f"the messages of '{name}' carry a typedef holding "
                    f"{'pids' if kind == PID else 'channel ids'}, which the canonicaliser does not "
                    "rename inside a message", pos, limit=True))
        if moved_chans and self.chan_indexed:
            name, pos = self.chan_indexed[0]
            raise _Invalid(Rejection(f"'{name}' is indexed by channel ids, and the canonicaliser "
                                     "does not permute such arrays", pos, limit=True))

    @staticmethod
    def _unheld(place: ValuePlace, point: int) -> str:
        """Why ``point`` (a pid or channel id) cannot move: ``place`` does not hold its value."""
        what = "pid" if place.kind == PID else "channel"
        held = f"pids with offset {place.offset}" if place.offset else f"{what} ids" if place.kind == CHAN else "pids"
        value = point - place.offset
        shown = f"{place.stored(value)}, not {value}" if place.stored(value) != value else str(value)
        return (f"'{place.name}' holds {held} in a {place.ctype} ({place.smallest} .. {place.largest}), which "
                f"stores {what} {point} as {shown}: the canonicaliser would not rename it")

    @staticmethod
    def _keep_below_offset(alpha: Alpha, offset: int, name: str, pos) -> None:
        """A place of offset K never names a pid below K: alpha must keep those pids below K,
        and the others at K or more."""
        for p, image in alpha.pids:
            if (p < offset) != (image < offset):
                raise _Invalid(Rejection(
                    f"'{name}' holds pids with offset {offset}, which names no pid below {offset}, "
                    f"but pid {p} would become pid {image}", pos))

    def fixed_points(self) -> set[tuple[str, int]]:
        """Pids and channels that no valid permutation moves, whatever else it does (each is a
        rejection of check_processes, check_channels, check_state_shape or channel_ref that
        depends on the point alone): the pid a dead local is reset to, the channels of a
        channel variable the program writes, every channel when an array is indexed by channel
        ids, and the channels of an array indexed by a computed value that is no pid.  The
        static channel diagram colours each alone, so nauty does not propose permutations that
        only a search would weed out.  (Processes that can terminate are left to the check,
        whose rejection of nauty's candidates is the reason detect reports for them.)"""
        fixed: set[tuple[str, int]] = set()
        for place in self.value_places:   # (check_state_shape's rule of the C type)
            points = self.pids if place.kind == PID else self.chan_ids
            fixed |= {(place.kind, point) for point in points
                      if point >= place.offset and not place.holds(point - place.offset)}
        if self.model.resets_dead_locals:
            resets = self.model.dead_resets  # the same rule as check_processes
            fixed |= {("pid", offset) for var, offset in self.pid_locals
                      if offset in self.pids and (resets is None or (var.owner, var.name) in resets)}
        static = [c for c in self.model.channels if c.owner_pid is None]
        if self.chan_indexed:
            fixed |= {("chan", c.id) for c in self.model.channels}
        for chan in static:
            if chan.name.split("[", 1)[0] in self.written_static_channels:
                fixed.add(("chan", chan.id))
        computed: set[str] = set()
        for unit in self.model.expanded.units:
            owner = _owner_of(unit)
            for node in unit.walk():
                if isinstance(node, ast.VarRef) and node.index is not None and node.name in self.static_channel_vars \
                        and node.name not in computed \
                        and self.types.index_kind(("global", node.name)) != PID \
                        and constant_value(node.index, self.mtypes) is None:
                    var, _slot = self.resolve.variable(node.name, owner)
                    if var is not None and var.owner is None:
                        computed.add(node.name)
        fixed |= {("chan", c.id) for c in static if c.name.split("[", 1)[0] in computed}
        return fixed

    # ------------------------------------------------------------------ rejections
    def reject(self, alpha, reason: str, node, pids: bool = False, chans: bool = False,
               proctype: str | None = None, pid_zero: bool = False, zero_names: int = 0,
               values: tuple[str | None, ...] = (), value_zero: str | None = None) -> None:
        """Reject ``alpha`` if it moves what the place at ``node`` could name: any pid
        (``pids``), a process of ``proctype``, any channel (``chans``), the pid that 0 names
        (``pid_zero``: pid ``zero_names``, 0 unless the place holds pids with an offset), a value
        of a scalar domain in ``values`` (None: of any), or 0 of domain ``value_zero``."""
        if alpha is None or isinstance(alpha, Tokenizer):
            return
        moves = (pids and alpha.moves_pids()) or (chans and alpha.moves_chans()) \
            or (proctype is not None and any(alpha.pid(p) != p for p in self.instances.get(proctype, []))) \
            or (pid_zero and zero_names in self.pids and alpha.pid(zero_names) != zero_names) \
            or any(alpha.moves_values(domain) for domain in values) \
            or (value_zero is not None and alpha.value(value_zero, 0) != 0)
        if moves:
            raise _Invalid(Rejection(reason, getattr(node, "pos", None)))

    def consistent(self, kind: str, context: str, node, alpha) -> None:
        """A value of ``kind`` read in ``context``: reject alpha where the two disagree."""
        if context == OUTPUT or kind == context:
            return
        if context == TRUTH:
            offset = offset_of(kind)
            if offset is not None:
                self.reject(alpha, f"'{print_expr(node)}' {_kind_name(kind)} and is used as a condition, "
                                   f"which compares it with 0, pid {offset}", node, pid_zero=True,
                            zero_names=offset)
            if (domain := domain_of(kind)) is not None:
                self.reject(alpha, f"'{print_expr(node)}' {_kind_name(kind)} and is used as a condition, "
                                   "which compares it with 0", node, value_zero=domain)
            return
        involved = {kind, context}
        self.reject(alpha, f"'{print_expr(node)}' {_kind_name(kind)} but stands where "
                           f"{_context_name(context)} is meant", node,
                    pids=any(offset_of(k) is not None for k in involved), chans=CHAN in involved,
                    values=tuple(d for k in involved if (d := domain_of(k)) is not None))

    # ------------------------------------------------------------------ regions, for nauty
    def occurrence_regions(self) -> list[tuple[tuple, list[tuple[tuple[str, int], str]]]]:
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
            except _Invalid:
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
                    rows.append((p, ("pid", value + offset)))
                else:
                    rows.append((p, ("value", bool(value) if context == TRUTH else value)))
            else:
                if rows and any(target != ("pid", p) for p, target in rows):
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
                    # The set-up statements are a set (see _normal_init): written as the options
                    # of an `if`, each is a region of its own.
                    setup = ast.If(options=[ast.Sequence(steps=[s]) for s in body.steps[0].body.steps])
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

        def normal(node) -> str:
            return self.forms.text(node, known=self.normal_forms, remember=alpha is None)

        match unit:
            case ast.Decl():
                return normal(self.decl(unit, None, alpha))
            case ast.Ltl():
                claim = self.model.ltl_claim(unit)
                if claim is not None:
                    return "ltl-claim:" + normal(_rebuilt(claim, body=self.sequence(claim.body, None, alpha)))
                if unit.formula is None:
                    return "ltl:" + str(unit.text)
                return "ltl:" + normal(self.formula(unit.formula, alpha))
            case ast.Init():
                body = self.sequence(unit.body, INIT, alpha)
                return "Init:" + _normal_init(body, self.init_setup, normal)
            case ast.Proctype():
                body = self.sequence(unit.body, unit.name, alpha)
                provided = self.expr(unit.provided, unit.name, TRUTH, alpha)
                return "Proctype:" + normal(_rebuilt(unit, body=body, provided=provided))
            case ast.Never() | ast.Trace():
                body = self.sequence(unit.body, None, alpha)
                return type(unit).__name__ + ":" + normal(_rebuilt(unit, body=body))
            case ast.TypeDef():
                return "TypeDef:" + normal(self.typedef(unit, alpha))
            case ast.CCode() | ast.CState():
                if alpha is not None:
                    raise _Invalid(Rejection("embedded C cannot be checked for symmetry", unit.pos))
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
                if claim is not None and _normal(image) == _normal(unit.formula):
                    # the formula maps to itself, spin's claim for it does not
                    before, after, where = claim.body, self.sequence(claim.body, None, alpha), PLAIN
                    found = _first_difference(self.forms, before, after, where, self.normal_forms)
                    reason = found.reason if found is not None else "its text changes"
                    return Difference(f"spin's never claim for it is not: {reason}", unit.pos,
                                      _shown(claim), _shown(_rebuilt(claim, body=after)))
                suffix = ", nor is spin's never claim for it" if claim is not None else ""
                return Difference(f"'{print_formula(unit.formula)}' would become '{print_formula(image)}'{suffix}",
                                  unit.pos, _shown(unit), _shown(ast.replace(unit, formula=image)))
            case ast.Decl():
                return Difference("its text changes", unit.pos, _shown(unit),
                                  _shown(self.decl(unit, None, alpha)))
            case ast.TypeDef():
                return Difference("its text changes", unit.pos, _shown(unit),
                                  _shown(self.typedef(unit, alpha)))
            case _:
                return Difference("its text changes", unit.pos)
        found = _first_difference(self.forms, before, after, where, self.normal_forms)
        if found is None:
            return Difference("its text changes", unit.pos, _shown(unit))
        return found

    def typedef(self, typedef: ast.TypeDef, alpha):
        fields = [self.decl(decl, None, alpha, typedef=typedef.name) for decl in typedef.fields]
        return _rebuilt(typedef, fields=fields)

    def decl(self, decl: ast.Decl, owner: str | None, alpha, typedef: str | None = None):
        new_vars = []
        for var in decl.vars:
            if typedef is not None:
                slot: tuple = ("field", typedef, var.name)
            else:
                slot = ("local", owner, var.name) if owner else ("global", var.name)
            init = var.init
            if init is not None and not isinstance(init, ast.ChanInit):
                init = self.expr(init, owner, self.slot_kind(slot), alpha)
            new_vars.append(_rebuilt(var, init=init))
        return _rebuilt(decl, vars=new_vars)

    def formula(self, node, alpha):
        """An ltl formula: its operators, down to the expressions that are its atoms."""
        match node:
            case ast.LtlUnary():
                return _rebuilt(node, arg=self.formula(node.arg, alpha))
            case ast.LtlBinary():
                return _rebuilt(node, left=self.formula(node.left, alpha), right=self.formula(node.right, alpha))
            case _:
                return self.expr(node, None, TRUTH, alpha)

    # ------------------------------------------------------------------ applying alpha: statements
    def sequence(self, seq: ast.Sequence, owner: str | None, alpha) -> ast.Sequence:
        steps = [self.stmt(s, owner, alpha) for s in seq.steps]
        return seq if _same_items(steps, seq.steps) else ast.replace(seq, steps=steps)

    def body(self, node, owner, alpha):
        """The statement or sequence ``node`` (the parts of ``unless``)."""
        if isinstance(node, ast.Sequence):
            return self.sequence(node, owner, alpha)
        return self.stmt(node, owner, alpha)

    def stmt(self, node: ast.Stmt, owner: str | None, alpha):
        """``node`` with alpha applied (alpha None: only the masking of static runs)."""
        match node:
            case ast.Decl():
                return self.decl(node, owner, alpha)
            case ast.Labeled():
                return _rebuilt(node, stmt=self.stmt(node.stmt, owner, alpha))
            case ast.Unless():
                return _rebuilt(node, stmt=self.body(node.stmt, owner, alpha),
                                escape=self.body(node.escape, owner, alpha))
            case ast.Assign():
                kind = self.lvalue_kind(node.target, owner)
                value = node.value
                if isinstance(value, ast.Run) and id(value) in self.static_runs:
                    value = ast.Const(value="static-run")
                else:
                    value = self.expr(value, owner, kind, alpha)
                target = self.expr(node.target, owner, kind, alpha)
                return _rebuilt(node, target=target, value=value)
            case ast.IncDec():
                return _rebuilt(node, target=self.expr(node.target, owner, DATA, alpha))
            case ast.Send():
                if node.sorted and isinstance(alpha, Alpha):
                    self.check_sorted_send(node, owner, alpha)
                return _rebuilt(node, chan=self.expr(node.chan, owner, CHAN, alpha),
                                args=self.message_args(node.chan, node.args, owner, alpha))
            case ast.Receive():
                return _rebuilt(node, chan=self.expr(node.chan, owner, CHAN, alpha),
                                args=self.message_args(node.chan, node.args, owner, alpha))
            case ast.If() | ast.Do():
                return _rebuilt(node, options=[self.sequence(o, owner, alpha) for o in node.options])
            case ast.Atomic() | ast.DStep() | ast.Block():
                return _rebuilt(node, body=self.sequence(node.body, owner, alpha))
            case ast.ForRange():
                return _rebuilt(node, var=self.expr(node.var, owner, DATA, alpha),
                                lo=self.expr(node.lo, owner, DATA, alpha), hi=self.expr(node.hi, owner, DATA, alpha),
                                body=self.sequence(node.body, owner, alpha))
            case ast.ForIn():
                array = node.array
                if isinstance(array, ast.VarRef) and array.index is None and array.field is None:
                    var, _slot = self.resolve.variable(array.name, owner)
                    if var is not None and var.owner is None and array.name in self.static_channel_vars:
                        array = self.channel_ref(array, owner, OUTPUT, alpha)
                else:
                    array = self.expr(array, owner, OUTPUT, alpha)
                return _rebuilt(node, var=self.expr(node.var, owner, DATA, alpha), array=array,
                                body=self.sequence(node.body, owner, alpha))
            case ast.Select():
                return _rebuilt(node, var=self.expr(node.var, owner, DATA, alpha),
                                lo=self.expr(node.lo, owner, DATA, alpha), hi=self.expr(node.hi, owner, DATA, alpha))
            case ast.Printf():
                # Output only, not part of the state; but its arguments are evaluated (a bad
                # array index is an error), so their places are checked.
                for arg in node.args:
                    self.expr(arg, owner, OUTPUT, alpha)
                return node
            case ast.Printm():
                self.expr(node.arg, owner, OUTPUT, alpha)
                return node
            case ast.Assert():
                return _rebuilt(node, expr=self.expr(node.expr, owner, TRUTH, alpha))
            case ast.ExprStmt():
                if isinstance(node.expr, ast.Run):
                    if id(node.expr) in self.static_runs:
                        return ast.ExprStmt(expr=ast.Const(value="static-run"))
                    return _rebuilt(node, expr=self.expr(node.expr, owner, OUTPUT, alpha))
                return _rebuilt(node, expr=self.expr(node.expr, owner, TRUTH, alpha))
            case ast.XrXs():
                return _rebuilt(node, vars=[self.expr(v, owner, CHAN, alpha) for v in node.vars])
            case ast.Break() | ast.Goto() | ast.Else() | ast.Skip():
                return node
            case ast.InlineCall() | ast.CCode():
                if alpha is not None:
                    self.reject(alpha, "embedded C or an unexpanded inline cannot be checked for symmetry",
                                node, pids=True, chans=True, values=(None,))
                return node
            case _:
                assert_never(node)

    def lvalue_kind(self, target, owner) -> str:
        if isinstance(target, ast.VarRef) and target.name in self.static_channel_vars \
                and self.resolve.variable(target.name, owner)[1] == ("global", target.name):
            return CHAN
        return self.slot_kind(self.resolve.slot(target, owner))

    def check_sorted_send(self, node, owner, alpha) -> None:
        """`!!` keeps messages sorted by value: renaming pids or channels reorders them."""
        chan_slot = self.resolve.slot(node.chan, owner)
        for i, _arg in enumerate(node.args):
            kind = self.types.kind(("msg", chan_slot, i)) if chan_slot is not None else DATA
            if kind != DATA:
                held = "pid" if kind == PID else "channel" if kind == CHAN else "scalar domain's value"
                self.reject(alpha, f"a sorted send (!!) orders messages by the value of a {held}, "
                                   "which a permutation changes",
                            node, pids=kind == PID, chans=kind == CHAN,
                            values=(domain_of(kind),) if domain_of(kind) is not None else ())

    def message_args(self, chan_ref, args, owner, alpha):
        chan_slot = self.resolve.slot(chan_ref, owner)
        result = []
        for i, arg in enumerate(args):
            kind = self.slot_kind(("msg", chan_slot, i)) if chan_slot is not None else DATA
            result.append(self.expr(arg, owner, kind, alpha))
        return result

    # ------------------------------------------------------------------ applying alpha: expressions
    def expr(self, e: ast.Expr | None, owner: str | None, context: str, alpha):
        """``e`` with alpha applied, read in a ``context`` (PID, CHAN, DATA, TRUTH, OUTPUT)."""
        if alpha is None or e is None:
            return e
        match e:
            case ast.Const():
                return self.constant(e, e.value, context, alpha)
            case ast.VarRef():
                return self.varref(e, owner, context, alpha)
            case ast.BinOp():
                return self.binop(e, owner, context, alpha)
            case ast.UnOp():
                value = self.fold(e)
                if value is not None:
                    return self.constant(e, value, context, alpha)
                if self.pid_computed(e):
                    self.check_pid_expression(e, owner, context, alpha)
                    return e
                self.consistent(DATA, context, e, alpha)
                inner = TRUTH if e.op == "!" else DATA
                return _rebuilt(e, operand=self.expr(e.operand, owner, inner, alpha))
            case ast.CondExpr():
                value = self.fold(e)
                if value is not None:
                    return self.constant(e, value, context, alpha)
                return _rebuilt(e, cond=self.expr(e.cond, owner, TRUTH, alpha),
                                then=self.expr(e.then, owner, context, alpha),
                                other=self.expr(e.other, owner, context, alpha))
            case ast.ChanFn():
                self.consistent(DATA, context, e, alpha)
                return _rebuilt(e, chan=self.expr(e.chan, owner, CHAN, alpha))
            case ast.Builtin():
                self.consistent(DATA, context, e, alpha)
                args = [self.expr(a, owner, PID if i == 0 and e.fn in PID_BUILTINS else DATA, alpha)
                        for i, a in enumerate(e.args)]
                if e.fn not in PID_BUILTINS:
                    self.reject(alpha, f"'{e.fn}' is not known to the symmetry analysis", e, pids=True, chans=True,
                                values=(None,))
                return _rebuilt(e, args=args)
            case ast.Run():
                self.consistent(PID, context, e, alpha)
                params = [v for v in self.model.locals.get(e.proctype, []) if v.is_param]
                args = [self.expr(a, owner, self.slot_kind(("local", e.proctype, p.name)), alpha)
                        for a, p in zip(e.args, params)]
                return _rebuilt(e, args=args)
            case ast.Poll():
                self.consistent(DATA, context, e, alpha)
                return _rebuilt(e, chan=self.expr(e.chan, owner, CHAN, alpha),
                                args=self.message_args(e.chan, e.args, owner, alpha))
            case ast.RemoteLabel():
                self.consistent(DATA, context, e, alpha)
                return _rebuilt(e, index=self.remote_index(e, owner, alpha))
            case ast.RemoteVar():
                kind = self.slot_kind(self.resolve.slot(e, None))
                self.consistent(kind, context, e, alpha)
                index = self.remote_index(e, owner, alpha)
                return _rebuilt(e, index=index, var=self.varref(e.var, e.proctype, kind, alpha))
            case ast.CExpr():
                self.reject(alpha, "embedded C (c_expr) cannot be checked for symmetry", e, pids=True, chans=True,
                            values=(None,))
                return e
            case ast.Eval():
                return _rebuilt(e, expr=self.expr(e.expr, owner, context, alpha))
            case _:
                assert_never(e)

    def binop(self, e: ast.BinOp, owner, context, alpha):
        value = self.fold(e)
        if value is not None:
            return self.constant(e, value, context, alpha)
        if isinstance(alpha, Tokenizer) and self.pid_computed(e) and e.op not in ("==", "!="):
            self.check_pid_expression(e, owner, context, alpha)  # (recorded, not checked)
            return e
        if self.pid_computed(e) and e.op not in ("==", "!="):
            self.check_pid_expression(e, owner, context, alpha)
            return e
        self.consistent(DATA, context, e, alpha)  # the result of an operator is data
        if e.op in _ORDER and (ordered := self.ordered_with_constant(e, owner)) is not None:
            # `x < 3` with x of a scalar domain: the same for the image when alpha keeps the
            # domain's values below 3 together (x itself is left to the canonicaliser).
            domain, holds = ordered
            self.check_kept_together(alpha, domain, holds, e)
            return e
        if e.op in ("==", "!="):
            # A comparison is read in the kind of its operands: `_pid == 1` compares pids,
            # so the literal is renamed (the seed's pid context).
            # A side computed from _pid alone (`_pid - 1`) fits pids of any offset: it takes the
            # other side's (and is evaluated per process there).
            kinds = {self.kind_of(x, owner) for x in (e.left, e.right) if not self.pid_computed(x)}
            pidish = sorted(k for k in kinds if k is not None and offset_of(k) is not None)
            computed = any(self.pid_computed(x) for x in (e.left, e.right))
            scalar = sorted(k for k in kinds if k is not None and domain_of(k) is not None)
            side = pidish[0] if pidish else PID if computed else CHAN if CHAN in kinds \
                else scalar[0] if scalar else DATA
        elif e.op in _SHORT_CIRCUIT:
            side = TRUTH
        else:
            side = DATA
        return _rebuilt(e, left=self.expr(e.left, owner, side, alpha), right=self.expr(e.right, owner, side, alpha))

    def constant(self, node, value, context: str, alpha):
        """A constant (folded) read in ``context``: a pid, a channel id or a value of a scalar
        domain is renamed."""
        self.check_held(node, value, context, alpha)
        offset = offset_of(context)
        if offset and value + offset in self.pids:
            if isinstance(alpha, Tokenizer):
                return ast.Const(value=alpha.pid(value + offset), pos=getattr(node, "pos", None))
            image = alpha.pid(value + offset) - offset
        elif context == PID and value in self.pids:
            image = alpha.pid(value)
        elif context == CHAN and value in self.chan_ids:
            image = alpha.chan(value)
        elif (domain := domain_of(context)) is not None and value in self.domain_values[domain]:
            if isinstance(alpha, Tokenizer):
                return ast.Const(value=alpha.value(domain, value), pos=getattr(node, "pos", None))
            image = alpha.value(domain, value)
        else:
            return node
        if image == value:
            return node
        return ast.Const(value=image, pos=getattr(node, "pos", None))

    def check_held(self, node, value: int, context: str, alpha, process: int | None = None) -> None:
        """A value (a constant, or an expression of _pid for ``process``) read where pids with
        offset K or channel ids are meant, as the C holds it: every place of that kind stores it
        wrapped into its type, compares it as an int, and the canonicaliser renames what it
        reads back only when that is a pid (or channel) again.  When a place's type does not
        hold the value, the C's reading and this analysis's may name different points: those
        it could name stay where they are."""
        offset = offset_of(context)
        kind = PID if offset is not None else CHAN if context == CHAN else None
        if kind is None or alpha is None or isinstance(alpha, Tokenizer):
            return
        offset = offset or 0
        places = [place for place in self.value_places if place.kind == kind and place.offset == offset]
        unheld = [place for place in places if not place.holds(value)]
        if not unheld:
            return
        points = self.pids if kind == PID else self.chan_ids
        named = {v + offset for v in (value, *(place.stored(value) for place in unheld))} & points
        moved = [point for point in sorted(named)
                 if (alpha.pid(point) if kind == PID else alpha.chan(point)) != point]
        if moved:
            place = unheld[0]
            whose = f" for pid {process}" if process is not None else ""
            raise _Invalid(Rejection(
                f"'{print_expr(node)}' is {value}{whose}, which '{place.name}' ({place.ctype}, {place.smallest} .. "
                f"{place.largest}) holds as {place.stored(value)}: the C and this analysis may read different "
                f"{'pids' if kind == PID else 'channels'} in it, so {'pid' if kind == PID else 'channel'} "
                f"{moved[0]} cannot move", getattr(node, "pos", None)))

    def ordered_with_constant(self, e: ast.BinOp, owner) -> tuple[str, frozenset[int]] | None:
        """For ``x < c`` (or ``<=``, ``>``, ``>=``, either way round) with x a variable of a
        scalar domain and c a constant: the domain, and which of its values make it hold."""
        for var, other, flipped in ((e.left, e.right, False), (e.right, e.left, True)):
            if not isinstance(var, ast.VarRef):
                continue
            domain = domain_of(self.kind_of(var, owner))
            bound = self.fold(other) if not isinstance(other, ast.Const) else other.value
            if bound is None and isinstance(other, ast.VarRef):
                bound = constant_value(other, self.constants)
            if domain is None or bound is None:
                continue
            op = _FLIPPED[e.op] if flipped else e.op
            return domain, frozenset(v for v in self.domain_values[domain] if _ORDER[op](v, bound))
        return None

    def check_kept_together(self, alpha, domain: str, values: frozenset[int], node) -> None:
        """Reject alpha unless it maps ``values`` of ``domain`` onto themselves."""
        if alpha is None or isinstance(alpha, Tokenizer):
            return
        if {alpha.value(domain, v) for v in values} != values:
            shown = ", ".join(map(str, sorted(values)))
            raise _Invalid(Rejection(f"'{print_expr(node)}' holds for the values {shown} of '{domain}' "
                                     "only, which the permutation does not keep together",
                                     getattr(node, "pos", None)))

    def fold(self, e) -> int | None:
        if isinstance(e, (ast.BinOp, ast.UnOp, ast.CondExpr)):
            if self._pid_shape(e)[0]:
                return None  # reads _pid: evaluated per process instead
            return constant_value(e, self.constants)
        return None

    def varref(self, ref: ast.VarRef, owner: str | None, context: str, alpha):
        name = ref.name
        if name == "_pid" and ref.index is None and ref.field is None:
            if owner is not None:
                self.check_pid_expression(ref, owner, context, alpha)
            return ref
        var, _slot = self.resolve.variable(name, owner)
        if var is not None and var.is_param and owner in self.slot_constants and isinstance(alpha, Alpha):
            renamed = self.renamings.get((alpha, owner), {}).get(name)
            if renamed is not None:
                self.consistent(self.slot_kind(self.resolve.slot(ref, owner)), context, ref, alpha)
                return _rebuilt(ref, name=renamed)
        masks = self.parameter_masks.get(owner, {}) if owner is not None else {}
        if var is not None and isinstance(alpha, Tokenizer) and name in masks:
            # For the regions: a renaming of these parameters maps the text onto itself.
            return _rebuilt(ref, name=masks[name])
        if var is None:
            if ref.index is None and ref.field is None:
                value = self.mtypes.get(name, {"true": 1, "false": 0}.get(name))
                if value is not None:
                    return self.constant(ref, value, context, alpha)
            if name == "_last":
                self.consistent(PID, context, ref, alpha)
                return ref
            if name in _DATA_NAMES:
                if name != "_":
                    self.consistent(DATA, context, ref, alpha)
                return ref
            self.reject(alpha, f"'{name}' is not known to the symmetry analysis", ref, pids=True, chans=True,
                        values=(None,))
            return ref
        if var.owner is None and name in self.static_channel_vars:
            return self.channel_ref(ref, owner, context, alpha)
        if var.owner is None and name in self.constants and ref.index is None and ref.field is None:
            return self.constant(ref, self.constants[name], context, alpha)
        kind = self.slot_kind(self.resolve.slot(ref, owner))
        self.consistent(kind, context, ref, alpha)
        index = ref.index
        if index is not None:
            index = self.index(self.resolve.array_slot(ref, owner), index, owner, alpha)
        field = ref.field
        if field is not None:
            field = self.field_ref(var, ref, owner, alpha)
        return _rebuilt(ref, index=index, field=field)

    def index(self, array_slot, index, owner, alpha):
        """An array index, read in the kind of the array's index class."""
        context = self.index_context(array_slot) if array_slot is not None else DATA
        if context == CHAN:
            self.reject(alpha, f"'{print_expr(index)}' indexes an array by channel ids, which the "
                               "canonicaliser does not permute", index, chans=True)
        return self.expr(index, owner, context, alpha)

    def field_ref(self, var, ref: ast.VarRef, owner, alpha):
        """The field chain below ``ref`` with its indices read in their arrays' index kinds."""
        chain = list(self.resolve.field_path(var, ref))
        new_inner = None
        for inner, slot in reversed(chain):
            index = self.index(slot, inner.index, owner, alpha) if inner.index is not None else None
            new_inner = _rebuilt(inner, index=index, field=new_inner if new_inner is not None else inner.field)
        return new_inner

    def remote_index(self, e, owner, alpha):
        """The index of ``P[i]@l`` / ``P[i]:x``: the pid of a process of P."""
        if e.index is None:
            if len(self.instances.get(e.proctype, [])) > 1:
                self.reject(alpha, f"'{print_expr(e)}' names a process of '{e.proctype}' without an index",
                            e, proctype=e.proctype)
            return None
        return self.expr(e.index, owner, PID, alpha)

    def channel_ref(self, ref: ast.VarRef, owner, context, alpha):
        """A global declared as a channel (``chan q = ...``, ``chan q[3] = ...``): its value is
        its own channel's id for ever (unless written, see check_channels), so naming it names
        that channel, and alpha renames the name.  An array of them indexed by pid (a mailbox
        per process, ``box[_pid]``; seed 003's public channels, ``c[_pid - K]``) is constant
        too: its channels must move with the pids that index them, so that ``c[i]`` names in
        the image the channel alpha makes of the one it named."""
        self.consistent(CHAN, context, ref, alpha)
        members = [c for n, c in self.channel_by_name.items()
                   if n == ref.name or n.startswith(ref.name + "[")]
        if ref.index is not None and self.types.index_kind(("global", ref.name)) == PID:
            if isinstance(alpha, Alpha):
                self._channels_follow_their_index(alpha, ref)
            return _rebuilt(ref, index=self.expr(ref.index, owner, self.index_context(("global", ref.name)), alpha))
        if ref.index is None:
            name = ref.name
        else:
            value = constant_value(ref.index, self.mtypes)
            if value is None:
                if isinstance(alpha, Alpha) and any(alpha.chan(c.id) != c.id for c in members):
                    raise _Invalid(Rejection(f"channel array '{ref.name}' is indexed by a computed "
                                             "value, so its channels cannot be permuted", ref.pos))
                return _rebuilt(ref, index=self.expr(ref.index, owner, DATA, alpha))
            name = f"{ref.name}[{value}]"
        chan = self.channel_by_name.get(name)
        if chan is None:
            return ref  # out of bounds: the same error for every image
        if isinstance(alpha, Tokenizer):
            return ast.VarRef(name=alpha.chan(chan.id), pos=ref.pos)
        image = alpha.chan(chan.id)
        if image == chan.id:
            return ref
        return _ref_from_name(self.channel_by_id[image].name, ref.pos)

    def _channels_follow_their_index(self, alpha: Alpha, ref: ast.VarRef) -> None:
        """Element i of the channel array ``ref.name`` indexed by pid - K belongs to pid i + K:
        alpha must take its channel to element alpha(i + K) - K's, and fix those of the
        elements that belong to no process."""
        offset = self.types.index_offset(("global", ref.name))
        for name, chan in self.channel_by_name.items():
            if not name.startswith(ref.name + "["):
                continue
            i = int(name[len(ref.name) + 1:-1])
            pid = i + offset
            image = alpha.pid(pid) if pid in self.pids else pid
            target = self.channel_by_name.get(f"{ref.name}[{image - offset}]")
            if target is None or alpha.chan(chan.id) != target.id:
                raise _Invalid(Rejection(
                    f"channel array '{ref.name}' is indexed by pid{f' - {offset}' if offset else ''}, "
                    f"so {name} belongs to pid {pid} and must move with it, to "
                    f"{target.name if target is not None else f'an element for pid {image}, which it has not'}",
                    ref.pos))

    # ------------------------------------------------------------------ kinds of values
    def kind_of(self, e, owner) -> str | None:
        """The kind of the value of ``e`` (None for a constant, which takes the kind of what
        it is compared with), cached per node and owner: comparisons ask once per candidate."""
        key = (id(e), owner)
        cached = self.expression_kinds.get(key)
        if cached is None or cached[0] is not e:
            cached = self.expression_kinds[key] = (e, self._kind_of(e, owner))
        return cached[1]

    def _kind_of(self, e, owner) -> str | None:
        if isinstance(e, ast.Const) or self.fold(e) is not None:
            return None
        if isinstance(e, ast.VarRef):
            if e.name == "_pid" and e.index is None and e.field is None:
                return PID
            var, _slot = self.resolve.variable(e.name, owner)
            if var is not None and var.owner is None and e.name in self.constants \
                    and e.index is None and e.field is None:
                return None
            if var is None:
                if e.name in self.mtypes or e.name in ("true", "false"):
                    return None
                return PID if e.name == "_last" else DATA
            if var.owner is None and e.name in self.static_channel_vars:
                return CHAN
            return self.slot_kind(self.resolve.slot(e, owner))
        if isinstance(e, ast.RemoteVar):
            return self.slot_kind(self.resolve.slot(e, None))
        if isinstance(e, ast.Run):
            return PID
        if self.pid_computed(e):
            return PID
        if isinstance(e, ast.CondExpr):
            kinds = {self.kind_of(e.then, owner), self.kind_of(e.other, owner)} - {None}
            pidish = sorted(k for k in kinds if k is not None and offset_of(k) is not None)
            return pidish[0] if pidish else CHAN if CHAN in kinds else DATA if kinds else None
        if isinstance(e, ast.Eval):
            return self.kind_of(e.expr, owner)
        return DATA

    def pid_computed(self, e) -> bool:
        """Whether ``e`` is computed from ``_pid`` and constants alone (``1 - _pid``): types.py's
        uses_pid and is_pid_constant, cached per node (the checker asks for every expression
        of every candidate) and found from the children's answers, not by a walk per node."""
        uses, constant = self._pid_shape(e)
        return uses and constant

    def _pid_shape(self, e) -> tuple[bool, bool]:
        """(uses_pid(e), is_pid_constant(e)), mtype names counting as constants"""
        cached = self.pid_expressions.get(id(e))
        if cached is not None and cached[0] is e:
            return cached[1]
        if isinstance(e, ast.VarRef):
            if e.name == "_pid" or id(e) in self.copy_refs:
                uses, constant = True, e.index is None and e.field is None
            else:
                uses = False
                constant = e.index is None and e.field is None \
                    and (e.name in self.constants or e.name in ("true", "false")) \
                    and self.resolve.variable(e.name, None)[0] is None
        else:
            uses = False
            constant = isinstance(e, (ast.Const, ast.BinOp, ast.UnOp, ast.CondExpr))
        for child in e.children():
            child_uses, child_constant = self._pid_shape(child)
            uses = uses or child_uses
            constant = constant and child_constant
        self.pid_expressions[id(e)] = (e, (uses, constant))
        return uses, constant

    def _copy_references(self) -> set[int]:
        """The ids of the references, in its own proctype's text, to a local that holds an
        expression of _pid for ever (not those of remote references, which read another
        process's)."""
        found: set[int] = set()
        for unit in self.model.expanded.units:
            names = self.types.copy_names(_owner_of(unit))
            stack = [unit] if names else []
            while stack:  # (no recursive closure: detect leaves no reference cycles)
                node = stack.pop()
                if isinstance(node, ast.VarRef) and node.name in names and node.index is None \
                        and node.field is None:
                    found.add(id(node))
                stack.extend(child for child in node.children()
                             if not (isinstance(node, ast.RemoteVar) and child is node.var))
        return found

    def process_names(self, owner: str, p: int) -> dict[str, int]:
        """The names an expression of _pid in the text of ``owner`` reads, for process p: the
        constants, _pid, and the locals that copy an expression of it."""
        key = (owner, p)
        names = self.copy_values.get(key)
        if names is None:
            names = {**self.constants, "_pid": p}
            for name, init in self.types.copies.get(owner, {}).items():
                value = constant_value(init, names)
                if value is not None:
                    names[name] = value
            self.copy_values[key] = names
        return names

    def check_pid_expression(self, e, owner, context, alpha) -> None:
        """An expression of ``_pid`` and constants, evaluated for every process of ``owner``:
        a pid result must commute with alpha, a condition must keep its truth, any other
        result must be invariant."""
        if isinstance(alpha, Tokenizer):
            if owner is not None and context != OUTPUT and not isinstance(e, ast.VarRef):
                alpha.pid_expressions.append((e, owner, context))
            return
        if context == OUTPUT or owner is None:
            return
        if context == CHAN:
            self.reject(alpha, f"'{print_expr(e)}' is computed from _pid but stands where a channel "
                               "id is meant", e, pids=True, chans=True)
            return
        for p in self.instances.get(owner, []):
            q = alpha.pid(p)
            if q == p and offset_of(context) is None:
                continue  # the same value: data and conditions are unchanged
            # (a process that stays must still name the image of what it names: for
            # `(_pid + 1) % 3` and the swap of pids 1 and 2, pid 0 names pid 1 and must name 2)
            value_p = constant_value(e, self.process_names(owner, p))
            value_q = constant_value(e, self.process_names(owner, q))
            if value_p is None or value_q is None:
                raise _Invalid(Rejection(f"'{print_expr(e)}' cannot be evaluated for each process", e.pos))
            offset = offset_of(context)
            if offset is not None:
                self.check_held(e, value_p, context, alpha, p)
                self.check_held(e, value_q, context, alpha, q)
                # pids with offset K: v names pid v + K (plain pids: K = 0)
                named = value_p + offset
                expected = alpha.pid(named) - offset if named in self.pids else value_p
                if value_q != expected and named in self.pids:
                    raise _Invalid(Rejection(
                        f"'{print_expr(e)}' names pid {named} for pid {p}, so it must name pid "
                        f"{alpha.pid(named)} for pid {q}, the image of pid {p}, but it names pid "
                        f"{value_q + offset} there", e.pos))
                same = value_q == expected
            elif context == TRUTH:
                same = bool(value_q) == bool(value_p)
            else:
                same = value_q == value_p
            if not same:
                raise _Invalid(Rejection(
                    f"'{print_expr(e)}' is {value_p} for pid {p} but {value_q} for pid {q}, "
                    f"which the permutation does not match", e.pos))


def _owner_of(unit) -> str | None:
    if isinstance(unit, ast.Proctype):
        return unit.name
    if isinstance(unit, ast.Init):
        return INIT
    return None


_TYPE_MAX = {"bit": 1, "bool": 1, "byte": 255, "pid": 255, "chan": 255, "mtype": 255,
             "short": 32767, "int": 2**31 - 1}
_SIGNED = frozenset({"short", "int"})   # pan.h: short, int; the others unsigned char or bit-fields


def _largest_value(typename: str, bits: int | None) -> int:
    return _value_range(typename, bits)[1]


def _value_range(typename: str, bits: int | None) -> tuple[int, int]:
    """The values a variable of this Promela type holds in pan's state vector."""
    if typename == "unsigned" and bits is not None:
        return 0, 2 ** bits - 1
    largest = _TYPE_MAX.get(typename, 2**31 - 1)
    return (-largest - 1 if typename in _SIGNED or typename not in _TYPE_MAX else 0), largest


def _wrapped(value: int, smallest: int, largest: int) -> int:
    """``value`` assigned to a C integer of range smallest .. largest (two's complement)."""
    return (value - smallest) % (largest - smallest + 1) + smallest


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


def _same_items(new: list, old: list) -> bool:
    return len(new) == len(old) and all(map(operator.is_, new, old))


def _rebuilt(node, **changes):
    """``node`` with the given fields changed, or ``node`` itself when every new value is the
    old one (a list: item by item): alpha leaves most of a program alone, and the program's
    own nodes have known normal forms (Checker.normal_forms)."""
    for name, value in changes.items():
        old = getattr(node, name)
        if value is old:
            continue
        if type(value) is list and type(old) is list and _same_items(value, old):
            continue
        return ast.replace(node, **changes)
    return node


def _ref_from_name(name: str, pos) -> ast.VarRef:
    match = re.fullmatch(r"(\w+)(?:\[(\d+)\])?", name)
    assert match is not None, name
    index = ast.Const(value=int(match.group(2))) if match.group(2) is not None else None
    return ast.VarRef(name=match.group(1), index=index, pos=pos)


# ---------------------------------------------------------------------- normal form

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
                and not (node.op in _SHORT_CIRCUIT and _may_fail(node, self.constants)):
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


def _normal(node, marked: Token | None = None, known: dict | None = None, remember: bool = False,
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
    indexed by pid with offset K (types.py), which covers every pid a valid permutation moves
    (Checker.check_state_shape)."""
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


def _first_difference(forms: NormalForms, before, after, where: str,
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
            found = _first_difference(forms, a, b, where, known)
            if found is not None:
                return found
    if isinstance(before, (ast.If, ast.Do)) and isinstance(after, (ast.If, ast.Do)):
        located_before = [o for o in before.options if forms.located(o, where)]
        located_after = [o for o in after.options if forms.located(o, where)]
        unordered_before = sorted(text(o) for o in before.options if not forms.located(o, where))
        unordered_after = sorted(text(o) for o in after.options if not forms.located(o, where))
        if unordered_before == unordered_after and len(located_before) == len(located_after):
            for a, b in zip(located_before, located_after):
                if text(a) == text(b):
                    continue
                if sorted(text(o) for o in located_before) == sorted(text(o) for o in located_after):
                    pos = a.steps[0].pos if a.steps else before.pos
                    return Difference("this option would be mapped onto another one, but a process "
                                      "can be inside it in a stored state, and the canonicaliser "
                                      "does not move program counters between options", pos,
                                      _shown(before), _shown(after))
                return (_first_difference(forms, a, b, where, known)
                        or Difference("this option changes", before.pos, _shown(before), _shown(after)))
        return Difference("the options of this if/do are not mapped onto its options", before.pos,
                          _shown(before), _shown(after))
    if isinstance(before, (ast.Atomic, ast.DStep, ast.Block)) and type(after) is type(before):
        found = _first_difference(forms, before.body, after.body, forms.inside(before, where), known)
        if found is not None:
            return found
    if isinstance(before, ast.Labeled) and isinstance(after, ast.Labeled):
        found = _first_difference(forms, before.stmt, after.stmt, where, known)
        if found is not None:
            return found
    if isinstance(before, ast.Node) and not isinstance(before, ast.Sequence):
        old_text, new_text = _shown(before), _shown(after)
        if "\n" in old_text or "\n" in new_text:  # a compound statement: shown by --explain
            return Difference("this statement changes", before.pos, old_text, new_text)
        return Difference(f"'{old_text}' would become '{new_text}'", before.pos, old_text, new_text)
    return None


def _shown(node) -> str:
    """Promela text for a statement, expression or unit, for the user."""
    try:
        if isinstance(node, ast.STATEMENTS):
            return print_stmt(node).strip()
        if isinstance(node, (ast.Proctype, ast.Init, ast.Never, ast.Trace, ast.Ltl, ast.TypeDef, ast.Decl)):
            return print_unit(node).strip()
        return print_expr(node)
    except Exception:  # a printer gap must not hide the rejection itself
        return type(node).__name__


def _normal_init(body: ast.Sequence, has_setup: bool, normal=_normal) -> str:
    """The normal form of init's body.  Its leading set-up block, an atomic or d_step holding
    only runs, constant assignments to distinct constant locations and constant sends into
    distinct empty buffered channels (_is_setup), is a set: the block
    cannot block or be interleaved, its intermediate states lie on one path from the initial
    state (no other reachable state has init at those points, so no canonical form collides
    with them), and only the state it leaves behind is shared with the rest of the search."""
    steps = list(body.steps)
    head = steps[0] if steps else None
    if has_setup and isinstance(head, (ast.Atomic, ast.DStep)):
        block = "Setup{" + "|".join(sorted(normal(s) for s in head.body.steps)) + "}"
        return block + ";" + normal(steps[1:])
    return normal(body)


def _is_setup(body: ast.Sequence, send_target) -> bool:
    """Whether ``body`` (init's leading atomic or d_step) is a set-up block (see _normal_init):
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
            key = _normal(step.target)
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


# ---------------------------------------------------------------------- termination

def can_terminate(body: ast.Sequence) -> bool:
    """Whether control can reach the end of a process body (conservatively: True unless the
    body visibly ends in a loop without exit, a goto, or a blocking `false`)."""
    return _falls_through(body)


def _falls_through(node) -> bool:
    if isinstance(node, ast.Sequence):
        return not node.steps or _falls_through(node.steps[-1])
    if isinstance(node, ast.Labeled):
        return _falls_through(node.stmt)
    if isinstance(node, (ast.Atomic, ast.DStep, ast.Block)):
        return _falls_through(node.body)
    if isinstance(node, ast.Goto):
        return False
    if isinstance(node, ast.Do):
        return any(_has_break(option) for option in node.options)
    if isinstance(node, ast.If):
        return any(_falls_through(option) for option in node.options)
    if isinstance(node, ast.Unless):
        return _falls_through(node.stmt) or _falls_through(node.escape)
    if isinstance(node, ast.ExprStmt):
        value = constant_value(node.expr)
        return value != 0
    return True


def _has_break(node) -> bool:
    """A break that leaves the loop whose option ``node`` is (not one of an inner loop)."""
    if isinstance(node, ast.Break):
        return True
    if isinstance(node, ast.Do):
        return False
    return any(_has_break(child) for child in node.children())
