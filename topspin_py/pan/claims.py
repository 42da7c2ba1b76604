"""The claims spin compiled into pan.c, and the accept labels that decide pan's search.

``spin -a`` writes every never claim and ltl formula of the model into pan.c as a process type
of its own (``procname[]`` names it, ``Btypes[]`` marks it ``N_CLAIM`` = 1, pan.t holds its
transitions, ``src_fileK[]`` the file its lines came from), and the ltl formulas' translations
into ``_spin_nvr.tmp`` in its working directory.  ``spin -a -N claim.pml model.pml`` and
``spin -a -f FORMULA model.pml`` add a never claim: spin writes ``model.pml.nvr`` beside the
model, holding ``#include "model.pml"`` and then ``#include "claim.pml"`` (or the formula's
translation), and reads that file instead (main.c).  So the model's macros apply to the claim,
and its never claims come after the model's own and before the ltl formulas (which spin reads
last) in pan's numbering: :func:`load_with_claim` reads the model so.

Three users:

* ``verify`` asks which accept labels the model has (spin's ``has_accept``), the ones of the ltl
  translations included, to search for acceptance cycles as ``spin -run`` does, and reads the
  model with the claim of spin's -N FILE or -f FORMULA (loading.load_model_for_spin);
* ``patch`` asks which claims a pan.c was generated with (:func:`compiled_claims`), to find
  the claim file of a claim the model does not hold (``-N claim.pml``) and read the model
  with it (provenance.py), so that the symmetry group respects every claim pan.c holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from topspin_py.errors import TopspinError, UsageError
from topspin_py.pan.toolchain import SUPPORTED_SPIN_VERSION
from topspin_py.promela import ast
from topspin_py.promela.model import Model
from topspin_py.promela.parser import parse_text

LTL_TRANSLATIONS = "_spin_nvr.tmp"   # spin -a's never claims for the model's ltl formulas
N_CLAIM = 1                          # Btypes[] of a claim (pan.c's enum btypes)

_PROCNAME = re.compile(r"^char \*procname\[\] = \{\n(.*?)\n\s*0\n\};", re.M | re.S)
_BTYPES = re.compile(r"^int Btypes\[\] = \{\n(.*?)\n\};", re.M | re.S)
_QUOTED = re.compile(r'"((?:\\.|[^"\\])*)"')
_NUMBER = re.compile(r"^\s*(\d+),?\s*/\*")
_SRC_FILE = re.compile(r"^S_F_MAP src_file(\d+) \[\] = \{\n(.*?)\n\};", re.M | re.S)
_PAN_T_BLOCK = re.compile(r"^\t/\* proctype (\d+): (.*?) \*/\n(.*?)(?=^\t/\* proctype |^\t/\* np_ demon)",
                          re.M | re.S)
_NEVER_HEADER = re.compile(r"^never (\S+) \{", re.M)
_LABEL_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):", re.M)


@dataclass(frozen=True)
class CompiledClaim:
    """One claim as pan.c holds it."""

    name: str                   # procname[]: the ltl name, a never claim's name, or never_N
    files: tuple[str, ...]      # the files its lines came from, as spin was given them
    transitions: str            # its block of pan.t: the state machine and statement texts


# ------------------------------------------------------------------------------ accept labels

def is_accept_label(name: str) -> bool:
    """spin's has_accept test (flow.c, set_lab): ``accept_all`` ends a safety claim's
    violation; it asks for no cycle search."""
    return name.startswith("accept") and not name.startswith("accept_all")


def accept_labels(model: Model, spin_workdir: Path) -> list[str]:
    """The accept labels spin sees, each as ``label (where)``: the model's own (proctypes,
    init, never claims) and those of its ltl formulas' translations (``_spin_nvr.tmp``)."""
    found = []
    for unit in model.expanded.units:
        if isinstance(unit, (ast.Proctype, ast.Init, ast.Never, ast.Trace)):
            where = {ast.Proctype: f"proctype {getattr(unit, 'name', '')}", ast.Init: "init",
                     ast.Never: "never claim", ast.Trace: "trace"}[type(unit)]
            found += [f"{node.label} ({where})" for node in unit.walk()
                      if isinstance(node, ast.Labeled) and is_accept_label(node.label)]
    translations = spin_workdir / LTL_TRANSLATIONS
    if translations.is_file():
        for name, text in _never_blocks(translations.read_text(errors="replace")):
            found += [f"{label} (ltl {name})" for label in _LABEL_LINE.findall(text)
                      if is_accept_label(label)]
    return found


def ltl_claims(model: Model, spin_workdir: Path) -> dict[int, tuple[ast.Ltl, ast.Never]]:
    """spin's never claim for each ltl formula of ``model``, from the translations that
    ``spin -a`` wrote into ``spin_workdir`` (``_spin_nvr.tmp``), keyed as Model.ltl_claims.
    A formula whose translation is missing, or does not parse, is left out (the symmetry
    analysis then reads the formula itself)."""
    translations = spin_workdir / LTL_TRANSLATIONS
    if not model.ltl or not translations.is_file():
        return {}
    blocks = dict(_never_blocks(translations.read_text(errors="replace")))
    found: dict[int, tuple[ast.Ltl, ast.Never]] = {}
    for unit, name in zip(model.ltl, model.ltl_names()):
        if name not in blocks:
            continue
        try:
            spec = parse_text(f"never {name} {{{blocks[name]}", f"{LTL_TRANSLATIONS} (ltl {name})")
        except TopspinError:
            continue
        claims = [u for u in spec.units if isinstance(u, ast.Never)]
        if len(claims) == 1 and len(spec.units) == 1:
            found[id(unit)] = (unit, claims[0])
    return found


def _never_blocks(text: str) -> list[tuple[str, str]]:
    headers = list(_NEVER_HEADER.finditer(text))
    ends = [h.start() for h in headers[1:]] + [len(text)]
    return [(h.group(1), text[h.end():end]) for h, end in zip(headers, ends)]


# ------------------------------------------------------------------------------ pan.c's claims

def compiled_claims(pan_c: str, pan_t: str | None, where: str = "pan.c") -> list[CompiledClaim]:
    """The claims in a pan.c (its text, and its pan.t's; ``where`` names it in messages), in
    pan's numbering (its default is the first)."""
    names_match, types_match = _PROCNAME.search(pan_c), _BTYPES.search(pan_c)
    if names_match is None or types_match is None:
        raise UsageError(f"{where}: no procname[] / Btypes[] table: not a pan.c "
                         f"written by spin {SUPPORTED_SPIN_VERSION}",
                         hint="regenerate it with spin -a")
    names = _QUOTED.findall(names_match.group(1))
    types = [int(m.group(1)) for line in types_match.group(1).splitlines()
             if (m := _NUMBER.match(line))]
    files = {int(index): tuple(dict.fromkeys(f for f in _QUOTED.findall(body) if f != "-"))
             for index, body in _SRC_FILE.findall(pan_c)}
    blocks = {int(index): body for index, _, body in _PAN_T_BLOCK.findall(pan_t or "")}
    return [CompiledClaim(name, files.get(i, ()), blocks.get(i, ""))
            for i, (name, kind) in enumerate(zip(names, types)) if kind == N_CLAIM]


def foreign_claims(compiled: list[CompiledClaim], written: list[CompiledClaim]) -> list[CompiledClaim]:
    """The claims of ``compiled`` (a pan.c's) that ``written`` (what spin -a writes for the
    model) does not hold, by name and transitions (file names may differ: spin writes them as
    it was given them)."""
    known = {(c.name, c.transitions) for c in written}
    return [c for c in compiled if (c.name, c.transitions) not in known]



def same_claims(compiled: list[CompiledClaim], written: list[CompiledClaim]) -> bool:
    """The same claims, in the same order, with the same transitions."""
    return [(c.name, c.transitions) for c in compiled] == [(c.name, c.transitions) for c in written]


def claims_from_file(model: Model, claim_file: Path) -> tuple[str, ...]:
    """pan's names of the never claims ``model`` (load_model_for_spin's) has from ``claim_file``."""
    own = str(claim_file.resolve())
    return tuple(name for unit, name in model.claim_names()
                 if isinstance(unit, ast.Never) and unit.pos is not None and unit.pos.file == own)
