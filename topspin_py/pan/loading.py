"""The model as spin -a reads it: our front end's Model of the program spin is given, with the
never claim spin adds itself (-f FORMULA, -F FILE, -N FILE), and what the pan spin wrote says
about it (whether it resets dead locals, the never claims it made of the ltl formulas).

This is the load stage of every command that runs spin: verify, generate, patch, detect and
desugar read a model through here, so that what the symmetry analysis sees is the program pan
checks.  toolchain.py runs the tools; claims.py reads the claims spin compiled.
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
from pathlib import Path

from topspin_py.errors import ModelError, PromelaSyntaxError, UsageError
from topspin_py.pan.claims import ltl_claims
from topspin_py.pan.flags import SpinOptions
from topspin_py.pan.toolchain import Toolchain, find_toolchain, generate_pan, never_claim_from_ltl, spin_source
from topspin_py.promela import ast, build_model, parse_file
from topspin_py.promela.model import Model, load_model


def check_with_spin(model: Path, defines, loaded: Model | None = None,
                    spin_args: list[str] | tuple[str, ...] = (), given: Model | None = None) -> Model | None:
    """``spin -a`` (with spin's own options ``spin_args``) in a scratch directory, for the
    commands that need no pan.c but must refuse what spin refuses, as verify does (``loaded``:
    the model's Model, whose desugared program spin is given when it uses the ref/public
    extension; ``given``: the Model whose program spin is given, when it is not ``loaded``,
    models_for_spin).  Returns ``loaded`` as the pan spin wrote checks it (whether it resets
    dead locals, the never claims it made of the ltl formulas)."""
    tools = find_toolchain()
    with tempfile.TemporaryDirectory(prefix="topspin-check-") as workdir:
        source = spin_source(model, given if given is not None else loaded, Path(workdir))
        generate_pan(tools, source, str(model) if source == model else str(source), defines, Path(workdir),
                     spin_args=spin_args)
        return as_checked_by(loaded, Path(workdir)) if loaded is not None else None


def resets_dead_locals(pan_dir: Path) -> bool:
    """Whether the pan spin wrote into ``pan_dir`` resets dead local variables to 0: spin's
    dataflow optimisation marks each reset in pan.m with a comment ``/* dead N: x */`` (none
    with -o1).  Without pan.m we cannot tell, and assume it does."""
    path = pan_dir / "pan.m"
    return not path.is_file() or "/* dead " in path.read_text(encoding="latin-1")


def dead_resets(pan_dir: Path) -> frozenset[tuple[str, str]] | None:
    """The locals that the pan spin wrote into ``pan_dir`` resets where they are dead, as
    (proctype, variable) pairs: each mark ``/* dead N: x */`` of pan.m lies in the code of the
    proctype whose ``/* PROC name */`` comes before it (a field ``x.f`` or element ``x[i]``
    counts as ``x``).  None without pan.m."""
    path = pan_dir / "pan.m"
    if not path.is_file():
        return None
    found = set()
    proctype = None
    for line in path.read_text(encoding="latin-1").splitlines():
        header = _PROC_MARK.search(line)
        if header:
            proctype = header.group(1)
        for mark in _DEAD_MARK.finditer(line):
            if proctype is None:
                return None  # a mark outside every proctype's code: we cannot tell whose
            found.add((proctype, mark.group(1)))
    return frozenset(found)


_PROC_MARK = re.compile(r"/\* PROC (\S+) \*/")
_DEAD_MARK = re.compile(r"/\* dead \d+: ([A-Za-z_][A-Za-z0-9_]*)")


def as_checked_by(model: Model, pan_dir: Path, spin_ran_here: bool = True) -> Model:
    """``model``, knowing whether the pan in ``pan_dir`` resets dead locals, and which, and
    (``spin_ran_here``: the spin -a that wrote it ran for us, so its ltl translations are
    those of this model) the never claim spin made of each ltl formula."""
    return dataclasses.replace(model, resets_dead_locals=resets_dead_locals(pan_dir),
                               dead_resets=dead_resets(pan_dir),
                               ltl_claims=ltl_claims(model, pan_dir) if spin_ran_here else {})


def load_model_checked(model: Path, defines, cpp_flags: tuple[str, ...] = (), merge: bool = True) -> Model:
    """Our front end's Model of ``model``.  When our parser finds a syntax error and spin
    rejects the model too, spin's own message is the one shown: spin is the reference for what
    is Promela (a model spin accepts and we do not is ours to fix: our message says where).
    With include directories for spin's preprocessor (-E-I), spin is not asked: run bare, it
    could fail on a missing include instead."""
    try:
        return load_model(model, tuple(defines), cpp_flags, merge)
    except PromelaSyntaxError as ours:
        # Bytes that are not text: our message names the byte, spin's quotes the garbage.
        if cpp_flags or "not Promela text" in ours.message:
            raise
        try:
            check_with_spin(Path(model), list(defines))
        except ModelError as spins:
            if ours.pos is not None and (spins.pos is None or spins.pos.file == ours.pos.file):
                # spin's message at our line and column: spin names a line only, and inside an
                # ltl formula the line after the formula's
                spins.pos = ours.pos
            raise spins from None
        raise


def load_model_for_spin(model: Path, defines, cpp_flags: tuple[str, ...] = (), claim: str | None = None,
                        merge: bool = True, claim_file: Path | None = None) -> Model:
    """The Model of the program spin -a reads for ``model`` (load_model_checked), with the never
    claim spin adds itself: ``claim``, the translation of -f FORMULA or -F FILE, or the file of
    -N FILE (``claim_file``).  spin reads MODEL.nvr then, which holds ``#include "MODEL"`` and
    the claim (main.c): the model's macros apply to the claim, and its never claims come after
    the model's own and before the ltl formulas (which spin reads last) in pan's numbering.  The
    claim's lines keep their file: a translation's are named MODEL.nvr from line 1, as spin
    names them in its replays; a claim file's, that file.  ``merge``: whether proctype copies
    are merged (copies.py).  A claim file that holds no never claim is refused: spin would check
    no claim of it."""
    from topspin_py.promela.pragmas import scalarset_pragmas

    if claim is None and claim_file is None:
        return load_model_checked(model, defines, cpp_flags, merge)
    with tempfile.TemporaryDirectory(prefix="topspin-claim-") as name:
        wrapper = claim_wrapper(model, Path(name), claim, claim_file)
        spec = parse_file(wrapper, tuple(defines), cpp_flags)
    if claim_file is not None:
        own = str(claim_file.resolve())
        if not any(isinstance(unit, ast.Never) and unit.pos is not None and unit.pos.file == own
                   for unit in spec.units):
            raise UsageError(f"spin -N {claim_file}: the file holds no never claim",
                             hint="spin's -N FILE takes a file holding a never claim (never { ... })")
    loaded = build_model(spec, str(model), merge)
    loaded.scalarsets = scalarset_pragmas(model)   # as load_model reads them
    return loaded


def claim_wrapper(model: Path, directory: Path, claim: str | None = None, claim_file: Path | None = None) -> Path:
    """What spin reads for ``spin -a -f FORMULA MODEL`` (``claim``: the formula's never claim)
    or ``spin -a -N FILE MODEL``, as its MODEL.nvr holds it, written into ``directory``: the
    model's file, then the claim."""
    assert (claim is None) != (claim_file is None)
    lines = [f'#include "{_c_string(str(model.resolve()))}"']
    if claim_file is not None:
        lines.append(f'#include "{_c_string(str(claim_file.resolve()))}"')
    else:
        lines += [f'#line 1 "{_c_string(model.name + ".nvr")}"', str(claim)]
    wrapper = directory / "claim.pml"
    wrapper.write_text("\n".join(lines) + "\n")
    return wrapper


def _c_string(text: str) -> str:
    """``text`` inside a C string literal (an #include's or #line's file name)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def models_for_spin(toolchain: Toolchain, model: Path, defines,
                    spin_options: SpinOptions) -> tuple[Model, Model, str | None]:
    """The Model the search checks (with the never claim of spin's -f, -F or -N FILE, which the
    symmetry must see), the Model whose program spin is given (spin_source; without that
    claim, which spin adds itself), and the translation of -f or -F.  Proctype copies are
    merged (copies.py), unless the claim names one (P_1@CS): spin adds its claim to the
    program it is given, so that program must keep the copies as written."""
    cpp_flags = spin_options.cpp_flags
    given = load_model_for_spin(model, defines, cpp_flags)
    claim_file = spin_options.claim_file
    if not spin_options.formula_args and claim_file is None:
        return given, given, None
    claim = never_claim_from_ltl(toolchain, spin_options.formula_args) if spin_options.formula_args else None
    loaded = load_model_for_spin(model, defines, cpp_flags, claim, claim_file=claim_file)
    if merged_families(loaded) != merged_families(given):
        given = load_model_for_spin(model, defines, cpp_flags, merge=False)
        loaded = load_model_for_spin(model, defines, cpp_flags, claim, merge=False, claim_file=claim_file)
    return loaded, given, claim


def merged_families(model: Model) -> list[tuple[str, ...]]:
    """The proctype copies merged in ``model``, each family as its members' names."""
    return [family.members for family in model.copies.families] if model.copies is not None else []


def with_claim_file(model_path: Path, claim_file: Path, defines: list[str], cpp_flags: tuple[str, ...]) -> Model:
    """The program ``spin -a -N claim_file model_path`` reads (load_model_for_spin: spin's
    MODEL.nvr, the model and then the claim file), proctype copies apart as the user's spin
    read the file as written."""
    return load_model_for_spin(model_path, defines, cpp_flags, claim_file=claim_file, merge=False)
