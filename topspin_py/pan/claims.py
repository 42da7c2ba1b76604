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
  model with the claim of spin's -N FILE or -f FORMULA (:func:`load_with_claim`);
* ``patch`` asks which claims a pan.c was generated with, to restrict the symmetry group to
  them (:func:`model_checked_by`): a claim the model does not hold (``-N claim.pml``) is found
  again from its file and checked against pan.c, or the patch is refused.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from topspin_py.errors import TopspinError, UsageError
from topspin_py.pan import toolchain
from topspin_py.promela import ast, build_model, parse_file
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

    @property
    def from_ltl(self) -> bool:
        return self.files == (LTL_TRANSLATIONS,)


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

def compiled_claims(pan_dir: Path) -> list[CompiledClaim]:
    """The claims in the pan.c of ``pan_dir``, in pan's numbering (its default is the first)."""
    pan_c = (pan_dir / "pan.c").read_text(errors="replace")
    pan_t = (pan_dir / "pan.t").read_text(errors="replace") if (pan_dir / "pan.t").is_file() else ""
    names_match, types_match = _PROCNAME.search(pan_c), _BTYPES.search(pan_c)
    if names_match is None or types_match is None:
        raise UsageError(f"{pan_dir / 'pan.c'}: no procname[] / Btypes[] table: not a pan.c "
                         f"written by spin {toolchain.SUPPORTED_SPIN_VERSION}",
                         hint="regenerate it with spin -a")
    names = _QUOTED.findall(names_match.group(1))
    types = [int(m.group(1)) for line in types_match.group(1).splitlines()
             if (m := _NUMBER.match(line))]
    files = {int(index): tuple(dict.fromkeys(f for f in _QUOTED.findall(body) if f != "-"))
             for index, body in _SRC_FILE.findall(pan_c)}
    blocks = {int(index): body for index, _, body in _PAN_T_BLOCK.findall(pan_t)}
    return [CompiledClaim(name, files.get(i, ()), blocks.get(i, ""))
            for i, (name, kind) in enumerate(zip(names, types)) if kind == N_CLAIM]


def model_checked_by(pan_dir: Path, model_path: Path, defines: list[str]) -> tuple[Model, str]:
    """The model whose claims the pan.c in ``pan_dir`` was generated with, and a line saying
    where its claims come from.

    pan.c's claims are compared with those ``spin -a MODEL`` writes (names and pan.t blocks).
    When they differ, pan.c was made with a separate claim (``spin -a -N claim.pml MODEL``):
    if a file of that claim's name is found (beside pan.c, where spin ran, or as an absolute
    path), ``spin -a -N file MODEL`` must give pan.c's claims exactly, and the model is
    returned with that never claim added.  Otherwise the symmetry could not be restricted to
    the claim pan checks, and the patch is refused.  Under -DNOCLAIM no claim matters."""
    if any(define.split("=", 1)[0] == "NOCLAIM" for define in defines):
        # pan built with -DNOCLAIM checks no claim, whichever pan.c holds.
        return _load(model_path, defines), "claims: none checked (-DNOCLAIM)"
    compiled = compiled_claims(pan_dir)
    model = _load(model_path, defines)
    own = _claims_spin_writes(model_path, model, defines, claim_file=None)
    if _same(compiled, own):
        return model, ("claims: " + ", ".join(c.name for c in compiled) if compiled else "claims: none")
    known = {(c.name, c.transitions) for c in own}
    foreign = [c for c in compiled if (c.name, c.transitions) not in known]
    described = ", ".join(f"{c.name} (from {', '.join(c.files) or 'an unknown file'})" for c in foreign)
    candidates = [f for c in foreign for f in c.files if f != LTL_TRANSLATIONS]
    resolved = dict.fromkeys(_resolve(pan_dir, f) for f in candidates)
    paths = [p for p in resolved if p is not None]
    refusal_hint = ("put the claim into MODEL (as a never claim or an ltl formula) and run "
                    "spin -a MODEL again, or keep the claim file where spin read it; give patch "
                    "the -D defines spin had")
    if len(paths) != 1:
        raise UsageError(f"{pan_dir / 'pan.c'} checks a claim that {model_path} does not hold: "
                         f"{described}; its text was not found, so the symmetry cannot be "
                         f"restricted to it", hint=refusal_hint)
    claim_file = paths[0]
    if not _same(compiled, _claims_spin_writes(model_path, model, defines, claim_file=claim_file)):
        raise UsageError(f"{pan_dir / 'pan.c'} checks a claim that {model_path} does not hold: "
                         f"{described}; `spin -a -N {claim_file} {model_path}` gives other claims "
                         f"(the file changed since?), so the symmetry cannot be restricted to it",
                         hint=refusal_hint)
    # As the user's spin read it: the file as written, proctype copies apart (_load).
    model = load_with_claim(model_path, defines, claim_file=claim_file, merge=False)
    return model, (f"claims: {', '.join(c.name for c in compiled)} "
                   f"(with the never claim of {claim_file}, checked against pan.c)")


def load_with_claim(model_path: Path, defines, cpp_flags: tuple[str, ...] = (), *,
                    claim_text: str | None = None, claim_file: Path | None = None,
                    merge: bool = True) -> Model:
    """The model with the never claim spin adds to it, read as spin reads MODEL.nvr (the module
    doc): ``claim_text`` is the translation of -f FORMULA or -F FILE, ``claim_file`` the file
    of -N FILE.  The claim's lines keep their file: a translation's are named MODEL.nvr from
    line 1, as spin names them in its replays; a claim file's, that file.  ``merge``: whether
    proctype copies are merged (copies.py).  A claim file that holds no never claim is refused:
    spin would check no claim of it."""
    from topspin_py.promela.pragmas import scalarset_pragmas

    with tempfile.TemporaryDirectory(prefix="topspin-claim-") as name:
        wrapper = claim_wrapper(model_path, Path(name), claim_text, claim_file)
        spec = parse_file(wrapper, tuple(defines), cpp_flags)
    if claim_file is not None:
        own = str(claim_file.resolve())
        if not any(isinstance(unit, ast.Never) and unit.pos is not None and unit.pos.file == own
                   for unit in spec.units):
            raise UsageError(f"spin -N {claim_file}: the file holds no never claim",
                             hint="spin's -N FILE takes a file holding a never claim (never { ... })")
    model = build_model(spec, str(model_path), merge)
    model.scalarsets = scalarset_pragmas(model_path)   # as load_model reads them
    return model


def claim_wrapper(model_path: Path, directory: Path, claim_text: str | None = None,
                  claim_file: Path | None = None) -> Path:
    """What spin reads for ``spin -a -f FORMULA MODEL`` (``claim_text``: the formula's never
    claim) or ``spin -a -N FILE MODEL``, as its MODEL.nvr holds it (the module doc), written
    into ``directory``: the model's file, then the claim."""
    assert (claim_text is None) != (claim_file is None)
    lines = [f'#include "{_c_string(str(model_path.resolve()))}"']
    if claim_file is not None:
        lines.append(f'#include "{_c_string(str(claim_file.resolve()))}"')
    else:
        lines += [f'#line 1 "{_c_string(model_path.name + ".nvr")}"', str(claim_text)]
    wrapper = directory / "claim.pml"
    wrapper.write_text("\n".join(lines) + "\n")
    return wrapper


def claims_from_file(model: Model, claim_file: Path) -> tuple[str, ...]:
    """pan's names of the never claims ``model`` (load_with_claim's) has from ``claim_file``."""
    own = str(claim_file.resolve())
    return tuple(name for unit, name in model.claim_names()
                 if isinstance(unit, ast.Never) and unit.pos is not None and unit.pos.file == own)


def _c_string(text: str) -> str:
    """``text`` inside a C string literal (an #include's or #line's file name)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _claims_spin_writes(model_path: Path, model: Model, defines: list[str],
                        claim_file: Path | None) -> list[CompiledClaim]:
    """The claims ``spin -a [-N claim_file] MODEL`` writes (the desugared program of a model
    that uses the ref/public extension, which is what the user gave spin)."""
    tools = toolchain.find_toolchain()
    with tempfile.TemporaryDirectory(prefix="topspin-claims-") as name:
        workdir = Path(name)
        source = toolchain.spin_source(model_path, model, workdir)
        toolchain.generate_pan(tools, source, str(model_path), defines, workdir,
                               claim_file=claim_file)
        return compiled_claims(workdir)


def _same(compiled: list[CompiledClaim], reference: list[CompiledClaim]) -> bool:
    """Same claims, in the same order, with the same transitions (file names may differ:
    spin writes them as it was given them)."""
    return [(c.name, c.transitions) for c in compiled] == [(c.name, c.transitions) for c in reference]


def _resolve(pan_dir: Path, name: str) -> Path | None:
    """The claim file spin read, given as ``name``: spin writes pan.c into the directory it
    runs in, so a relative name is relative to pan.c's directory."""
    path = Path(name) if Path(name).is_absolute() else pan_dir / name
    return path if path.is_file() else None


def _load(model_path: Path, defines: list[str]) -> Model:
    """The model as the user's pan.c has it: spin -a was given the file as written, so
    proctype copies stay apart (they are merged only in the program verify gives spin,
    copies.py)."""
    from topspin_py.promela import load_model

    return load_model(model_path, tuple(defines), merge=False)
