"""Whether a pan.c is what ``spin -a`` makes of a model: patch's proof of provenance.

``patch pan.c --model MODEL -D... --spin ...`` splices in a canonicaliser for the symmetry of
MODEL as the defines and spin's options make it.  That group is only valid for the program
pan.c was generated from: a pan.c made with another define (``spin -DBUG -a``), another value
(``-DN=3`` where patch was given ``-DN=2``), another option (``-o3``), another claim, or from the
model before its last edit, may break a symmetry MODEL has, and the reduced pan would then
report no errors where plain pan finds one.  So patch proves that pan.c is MODEL's:

* it runs ``spin -a`` itself, in a temporary directory, on MODEL with the defines and spin
  options it is given (and the claim file, when pan.c holds a claim from ``spin -N FILE``);
* it compares what spin writes with pan.c and the pan.h, pan.m, pan.b, pan.t and pan.p beside
  it, file names and line numbers aside (spin_output.py says what that leaves out and why it is
  enough: pan is these files, compiled);
* the symmetry is then detected on the very program spin was given, and read with that pan's
  facts (which dead locals it resets, the never claims spin made of the ltl formulas).

What spin may have been given for MODEL (:class:`Reading`): the file itself, or, as generate,
verify and ``topspin-py desugar`` write it, the program with its proctype copies merged, or the
desugared program of a model that uses the ref/public extension (which spin cannot read
itself), with the options given and, as generate gives it, with -o1 added.  The first reading
whose files are pan.c's exactly is the one used.  None: patch refuses, at the first line that
differs, and says what would explain it where it can tell (a define the model tests, an
option, the model or an include edited after pan.h was written, what generate's record of the
directory says).
"""

from __future__ import annotations

import re
import shlex
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from topspin_py.errors import SourcePos, TopspinError, UsageError
from topspin_py.pan import loading, toolchain
from topspin_py.pan.claims import (
    LTL_TRANSLATIONS,
    CompiledClaim,
    compiled_claims,
    foreign_claims,
    same_claims,
)
from topspin_py.pan.flags import SpinOptions, define_name
from topspin_py.pan.inputs import generate_command, read_record, spin_inputs
from topspin_py.pan.spin_output import SPIN_OUTPUTS, Difference, first_difference, read_outputs
from topspin_py.promela.model import Model
from topspin_py.promela.preprocess import preprocess

# What each file spin writes holds (for saying where a difference is).
_ROLES = {"pan.h": "the state vector's layout", "pan.t": "the transition tables",
          "pan.m": "the transitions' code", "pan.b": "the code that undoes transitions",
          "pan.c": "the verifier's code", "pan.p": "the verifier's process code"}
# pan.m/pan.b's comment before each transition's code: // STATE 2 - m.pml:5 - [assert(...)]
_STATE_COMMENT = re.compile(r"// STATE \d+ - (?P<where>.+?:\d+) - \[(?P<statement>.*)\]")
# At most this many other spin -a runs look for the one change (a define, an option) that
# makes pan.c's files: each is a spin -a of the model, and none is needed to refuse.
_MOST_TRIALS = 12
_REFUSAL_HINT = ("give patch the -D defines and spin options (--spin) that spin -a had, or run "
                 "spin -a on the model again and patch the pan.c it writes")


@dataclass(frozen=True)
class Reading:
    """A program spin may have been given for MODEL, and its Model (the -f/-F claim included)."""

    model: Model                    # the symmetry is detected on this
    program: str = ""               # the program's name in a spin command ("": MODEL's path)
    text: str | None = None         # the program spin is given instead of MODEL's file
    folder: str = ""                # where that program goes (toolchain's DESUGARED_DIR, MERGED_DIR)
    extra_args: tuple[str, ...] = ()  # options generate gives spin with it (-o1)
    takes_claim_file: bool = True   # a -N FILE claim is read with it (not for merged copies)


@dataclass(frozen=True)
class Provenance:
    """pan.c proven to be what spin -a writes for a reading of MODEL."""

    model: Model          # that reading's, with pan.c's claims, as the pan spin wrote checks it
    command: str          # the spin -a that writes pan.c's files, as a user would type it
    claims_line: str      # which claims pan.c holds, and where they come from


@dataclass(frozen=True)
class _Attempt:
    """One spin -a for a reading, compared with the given files."""

    reading: Reading
    claim_file: Path | None
    command: str
    difference: Difference | None
    claims: list[CompiledClaim] = field(default_factory=list)   # the claims spin wrote


@dataclass(frozen=True)
class _Request:
    """What patch is asked to prove."""

    pan_dir: Path
    given: dict[str, str | None]        # pan.c (SPIN's, as patch starts from it) and the files beside it
    model_path: Path
    defines: tuple[str, ...]
    options: SpinOptions
    spins_pan_c: str = "pan.c"          # the file of SPIN's pan.c (pan.c.orig when pan.c is patched)

    @property
    def pan_c(self) -> Path:
        return self.pan_dir / "pan.c"

    def file(self, name: str) -> Path:
        """Where the given file that spin writes as ``name`` is."""
        return self.pan_dir / (self.spins_pan_c if name == "pan.c" else name)


def prove(pan_dir: Path, pan_c_text: str, model_path: Path, defines: list[str],
          options: SpinOptions, spins_pan_c: str = "pan.c") -> Provenance:
    """Prove that ``pan_c_text`` (SPIN's pan.c, from the file ``spins_pan_c`` in ``pan_dir``,
    with the files spin wrote beside it) is what ``spin [-D defines] [options] -a MODEL``
    writes, or refuse (a UsageError that says where it differs and what would explain it).
    See the module doc."""
    tools = toolchain.find_toolchain()
    request = _Request(pan_dir, read_outputs(pan_dir, pan_c_text), model_path, tuple(defines), options,
                       spins_pan_c)
    given_claims = compiled_claims(pan_c_text, request.given["pan.t"], str(request.pan_c))
    failed: list[_Attempt] = []
    claim_problem: UsageError | None = None
    for reading in _readings(tools, request):
        with tempfile.TemporaryDirectory(prefix="topspin-provenance-") as name:
            workdir = Path(name)
            attempt = _attempt(tools, request, reading, options.claim_file, workdir)
            if attempt.difference is None:
                return _proven(request, attempt, given_claims, workdir)
        foreign = foreign_claims(given_claims, attempt.claims)
        if options.claim_file is not None or not foreign or not reading.takes_claim_file:
            failed.append(attempt)
            continue
        # pan.c holds a claim MODEL does not: made with spin -a -N FILE?  Read FILE again.
        claim_file, problem = _claim_file(request, foreign)
        if claim_file is None:
            claim_problem = claim_problem or problem
            continue
        with tempfile.TemporaryDirectory(prefix="topspin-provenance-") as name:
            workdir = Path(name)
            with_claim = _attempt(tools, request, reading, claim_file, workdir)
            if with_claim.difference is None:
                return _proven(request, with_claim, given_claims, workdir)
        if same_claims(given_claims, with_claim.claims):
            failed.append(with_claim)   # the claims are the file's: something else differs
        else:
            claim_problem = claim_problem or _claims_differ(request, foreign, claim_file)
    if claim_problem is not None and all(a.claim_file is None for a in failed):
        raise claim_problem   # (no claim file gave pan.c's claims)
    # The reading spin was most likely given: the one whose files agree with pan.c's longest
    # (the first of those).
    closest = max(failed, key=_agreement)
    raise _refusal(tools, request, closest)


def _agreement(attempt: _Attempt) -> tuple[int, int]:
    """How far an attempt's files agree with the given ones: up to which file and line."""
    difference = attempt.difference
    assert difference is not None
    return SPIN_OUTPUTS.index(difference.file), difference.line or 0


# ------------------------------------------------------------------------------ the readings

def _readings(tools: toolchain.Toolchain, request: _Request) -> Iterator[Reading]:
    """What spin may have been given for MODEL, most likely first; each is loaded only when
    the ones before it did not give pan.c."""
    path, defines, options = request.model_path, list(request.defines), request.options
    claim = toolchain.never_claim_from_ltl(tools, options.formula_args) if options.formula_args else None
    plain = loading.load_model_for_spin(path, defines, options.cpp_flags, merge=False)
    if plain.extended is not None:
        # spin cannot read the ref/public extension: it was given the desugared program
        # (topspin-py desugar prints it), as the user's options say or, as generate and verify
        # give it, with -o1.
        model = plain if claim is None else loading.load_model_for_spin(
            path, defines, options.cpp_flags, claim, merge=False)
        program = f"<the desugared program of {path}, as topspin-py desugar prints it>"
        yield Reading(model, program, plain.spin_text, toolchain.DESUGARED_DIR)
        if "-o1" not in options.args:
            yield Reading(model, program, plain.spin_text, toolchain.DESUGARED_DIR, ("-o1",))
        return
    model = plain if claim is None else loading.load_model_for_spin(
        path, defines, options.cpp_flags, claim, merge=False)
    yield Reading(model)
    merged = loading.load_model_for_spin(path, defines, options.cpp_flags)
    if merged.as_written is None:
        return
    merged_with_claim = merged if claim is None else loading.load_model_for_spin(
        path, defines, options.cpp_flags, claim)
    if loading.merged_families(merged_with_claim) != loading.merged_families(merged):
        return   # the formula names a copy: spin was given the copies as written (as verify does)
    yield Reading(merged_with_claim, f"<{path} with its proctype copies merged, as topspin-py desugar prints it>",
                  merged.spin_text, toolchain.MERGED_DIR, takes_claim_file=False)


# ------------------------------------------------------------------------------ spin -a, compared

def _attempt(tools: toolchain.Toolchain, request: _Request, reading: Reading, claim_file: Path | None,
             workdir: Path) -> _Attempt:
    """spin -a for ``reading`` in ``workdir``, compared with the given files."""
    source = _source(request, reading, workdir)
    spin_args = (*request.options.args, *reading.extra_args)
    toolchain.generate_pan(tools, source, str(request.model_path) if reading.text is None else str(source),
                           list(request.defines), workdir, claim_file=claim_file, spin_args=spin_args,
                           as_given=True)
    written = read_outputs(workdir)
    claims = compiled_claims(written["pan.c"] or "", written["pan.t"], "spin's pan.c")
    return _Attempt(reading, claim_file, _command(request, reading, claim_file),
                    first_difference(request.given, written), claims)


def _source(request: _Request, reading: Reading, workdir: Path) -> Path:
    """The file spin is given for ``reading``: MODEL's own, or our program written into
    ``workdir`` under MODEL's name (as generate writes it)."""
    if reading.text is None:
        return request.model_path
    source = workdir / reading.folder / request.model_path.name
    source.parent.mkdir(exist_ok=True)
    source.write_text(reading.text)
    return source


def _command(request: _Request, reading: Reading, claim_file: Path | None,
             defines: tuple[str, ...] | None = None, options: tuple[str, ...] | None = None) -> str:
    """The spin -a command of an attempt, as a user types it (``defines``, ``options``: other
    than the request's)."""
    words = ["spin", *(f"-D{d}" for d in (request.defines if defines is None else defines)),
             *(request.options.shown if options is None else options), *reading.extra_args, "-a"]
    if claim_file is not None and request.options.claim_file is None:
        words += ["-N", str(claim_file)]
    program = reading.program or shlex.quote(str(request.model_path))
    return " ".join(shlex.quote(word) for word in words) + " " + program


def _proven(request: _Request, attempt: _Attempt, given_claims: list[CompiledClaim], workdir: Path) -> Provenance:
    """The Provenance of a successful attempt; ``workdir`` holds what spin wrote."""
    reading, claim_file = attempt.reading, attempt.claim_file
    model = reading.model
    if claim_file is not None:
        model = loading.with_claim_file(request.model_path, claim_file, list(request.defines),
                                        request.options.cpp_flags)
    # spin ran here for this very program: its pan.m says which dead locals it resets, and its
    # _spin_nvr.tmp holds the never claims it made of the ltl formulas.
    model = loading.as_checked_by(model, workdir)
    names = ", ".join(c.name for c in given_claims)
    if any(define_name(d) == "NOCLAIM" for d in request.defines):
        claims_line = "claims: none checked (-DNOCLAIM)"
    elif claim_file is not None:
        found = "" if request.options.claim_file is not None else ", checked against pan.c"
        claims_line = f"claims: {names} (with the never claim of {claim_file}{found})"
    else:
        claims_line = f"claims: {names}" if names else "claims: none"
    return Provenance(model, attempt.command, claims_line)


# ------------------------------------------------------------------------------ claims from files

def _claim_file(request: _Request, foreign: list[CompiledClaim]) -> tuple[Path | None, UsageError | None]:
    """The file of the claims pan.c holds and MODEL does not (spin -a -N FILE): spin writes
    pan.c into the directory it runs in, so a relative name is relative to pan.c's."""
    names = [f for c in foreign for f in c.files if f != LTL_TRANSLATIONS]
    found = [path for path in dict.fromkeys(_resolve(request.pan_dir, name) for name in names) if path is not None]
    if len(found) == 1:
        return found[0], None
    pos = SourcePos(str(request.pan_c), 0)
    if any(define_name(d) == "NOCLAIM" for d in request.defines):
        return None, UsageError(
            f"{request.pan_c} holds a claim that {request.model_path} does not: {_described(foreign)}; its "
            "text was not found, so pan.c cannot be shown to be what spin -a writes (pan built with "
            "-DNOCLAIM checks no claim, but the claim is compiled into every table of pan.c)", pos=pos,
            hint="keep the claim file where spin read it, or run spin -a on the model without -N and patch "
                 "the pan.c it writes")
    return None, UsageError(
        f"{request.pan_c} checks a claim that {request.model_path} does not hold: {_described(foreign)}; "
        "its text was not found, so the symmetry cannot be restricted to it", pos=pos, hint=_claim_hint(names))


def _claims_differ(request: _Request, foreign: list[CompiledClaim], claim_file: Path) -> UsageError:
    changed = ([f"{claim_file} was modified after spin -a wrote {request.pan_dir / 'pan.h'}"]
               if _modified_after_pan_h(request, claim_file) else [])
    return UsageError(
        f"{request.pan_c} checks a claim that {request.model_path} does not hold: {_described(foreign)}; "
        f"`spin -a -N {claim_file} {request.model_path}` gives other claims (the file changed since?), "
        "so the symmetry cannot be restricted to it", pos=SourcePos(str(request.pan_c), 0),
        detail="\n".join(f"  {line}" for line in changed) or None, hint=_claim_hint([]))


def _described(claims: list[CompiledClaim]) -> str:
    return ", ".join(f"{c.name} (from {', '.join(c.files) or 'an unknown file'})" for c in claims)


def _claim_hint(names: list[str]) -> str:
    if any(name.endswith(".nvr") for name in names):
        return ("the claim is spin's translation of an LTL formula (spin -f or -F): give patch the same, "
                "--spin \"-f FORMULA\" or --spin \"-F FILE\", and the -D defines spin had")
    return ("put the claim into MODEL (as a never claim or an ltl formula) and run spin -a MODEL again, "
            "or keep the claim file where spin read it (or name it: --spin \"-N FILE\"); give patch the "
            "-D defines spin had")


def _resolve(pan_dir: Path, name: str) -> Path | None:
    path = Path(name) if Path(name).is_absolute() else pan_dir / name
    return path if path.is_file() else None


# ------------------------------------------------------------------------------ the refusal

def _refusal(tools: toolchain.Toolchain, request: _Request, attempt: _Attempt) -> UsageError:
    """pan.c is not what spin writes for MODEL: where it first differs, and what would
    explain it."""
    difference = attempt.difference
    assert difference is not None
    causes = _causes(tools, request, attempt)
    record = read_record(request.pan_dir)
    hint = _REFUSAL_HINT if record is None else (
        f"write {request.pan_dir} again for the model as it is now, with `"
        + generate_command(request.model_path, request.pan_dir, request.defines, request.options.shown)
        + "` (or give patch what generate was given)")
    path = request.file(difference.file)
    if difference.line is None:
        message = f"{request.pan_c} is not what `{attempt.command}` writes: {difference.describe()}"
        return UsageError(message, pos=SourcePos(str(path), 0), hint=hint,
                          detail="\n".join(f"  {cause}" for cause in causes) or None)
    construct = _construct(request.given[difference.file] or "", difference.line)
    message = (f"{request.pan_c} was made from another program than `{attempt.command}`: they differ "
               f"first{construct} in {path.name}, {_ROLES[difference.file]}")
    written = " ".join(difference.written.split()) if difference.written is not None else "(the file's end)"
    lines = [f"  spin writes instead: {written}"] if difference.given is not None else [
        f"  {path.name} ends here; spin writes on: {written}"]
    lines += [f"  {cause}" for cause in causes]
    return UsageError(message, pos=SourcePos(str(path), difference.line), hint=hint,
                      detail="\n".join(lines))


def _construct(text: str, line: int) -> str:
    """The statement whose code holds ``line`` of a pan.m or pan.b: the one of the nearest
    ``// STATE`` comment at or above it, with the model's file:line spin gave it."""
    lines = text.split("\n")[:line]
    for candidate in reversed(lines[-60:]):
        if match := _STATE_COMMENT.search(candidate):
            return f" at the statement `{match['statement']}` ({match['where']}),"
        if candidate.startswith(("\tcase ", "case ")) and "STATE" not in candidate:
            break
    return ""


def _causes(tools: toolchain.Toolchain, request: _Request, attempt: _Attempt) -> list[str]:
    """What would explain the difference, as far as it can be told cheaply."""
    causes = []
    record = read_record(request.pan_dir)
    if record is not None:
        try:
            changes = spin_inputs(request.model_path, request.defines, request.options,
                                  tools.spin_version).changes_since(record.inputs)
        except TopspinError:
            changes = []
        causes.append(f"{request.pan_dir} was written by `{record.command(request.pan_dir)}`"
                      + (f"; since then {'; '.join(changes)}" if changes else ""))
    causes += _edited_since(request)
    if found := _one_change(tools, request, attempt):
        return [*causes, found]
    used = _used_defines(request)
    if used and not causes:
        causes.append(f"patch was given {' '.join('-D' + d for d in used)}, which the model uses: "
                      "was spin -a given another value? (values are not guessed)")
    if not causes:
        tested = sorted(_tested_macros(request))
        causes.append("pan.c was made from another program: the model edited since, other -D defines"
                      + (f" (the model tests {', '.join(tested)})" if tested else "")
                      + ", other spin options, or another model")
    return causes


def _edited_since(request: _Request) -> list[str]:
    """The files spin read for MODEL that changed after spin wrote pan.h (patch leaves pan.h
    as spin wrote it; pan.c it rewrites)."""
    files = _model_files(request)
    if request.options.claim_file is not None:
        files.append(request.options.claim_file)
    return [f"{path} was modified after spin -a wrote {request.pan_dir / 'pan.h'}"
            for path in dict.fromkeys(files) if _modified_after_pan_h(request, path)]


def _modified_after_pan_h(request: _Request, path: Path) -> bool:
    pan_h = request.pan_dir / "pan.h"
    return pan_h.is_file() and path.is_file() and path.stat().st_mtime > pan_h.stat().st_mtime


def _model_files(request: _Request) -> list[Path]:
    """MODEL and the files its preprocessing reads (its #includes)."""
    try:
        origins = preprocess(request.model_path, request.defines, request.options.cpp_flags).origins
    except TopspinError:   # (a model that no longer preprocesses: the spin run said so already)
        return [request.model_path]
    included = [Path(name) for name in dict.fromkeys(name for name, _ in origins)
                if not name.startswith("<") and Path(name).is_file()]
    return list(dict.fromkeys([request.model_path, *included]))


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b(.*)$", re.M)
_DEFINITION = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _model_texts(request: _Request) -> list[str]:
    texts = []
    for path in _model_files(request):
        try:
            texts.append(path.read_text(errors="replace"))
        except OSError:
            continue
    return texts


def _tested_macros(request: _Request) -> set[str]:
    """The macros the model's preprocessor directives test that the model does not define
    itself (so only a -D sets them)."""
    tested: set[str] = set()
    defined: set[str] = set()
    for text in _model_texts(request):
        for condition in _DIRECTIVE.findall(text):
            tested.update(_IDENTIFIER.findall(condition))
        defined.update(_DEFINITION.findall(text))
    return tested - defined - {"defined"}


def _used_defines(request: _Request) -> list[str]:
    """The defines given with a value that the model's text names."""
    words = {word for text in _model_texts(request) for word in _IDENTIFIER.findall(text)}
    return [d for d in request.defines if "=" in d and define_name(d) in words]


def _one_change(tools: toolchain.Toolchain, request: _Request, attempt: _Attempt) -> str | None:
    """The one change to the defines or spin's -o options that makes spin write pan.c's
    files, if one of a few does: a macro the model tests added or dropped (for MODEL's own
    file: our printed programs are preprocessed already), an -oN added or dropped.  A value
    (-DN=3 for -DN=2) is not guessed."""
    reading = attempt.reading
    trials: list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = []
    options, shown = request.options.args, request.options.shown
    if reading.text is None:
        tested = _tested_macros(request)
        names = {define_name(d) for d in request.defines}
        for macro in sorted(tested - names):
            trials.append((f"it was made with -D{macro}", (*request.defines, macro), options, shown))
        for define in request.defines:
            if define_name(define) in tested:
                trials.append((f"it was made without -D{define}",
                               tuple(d for d in request.defines if d != define), options, shown))
    for option in ("-o1", "-o2", "-o3", "-o4", "-o5"):
        if option in reading.extra_args:
            continue
        if option in options:
            trials.append((f"it was made without spin's {option}", request.defines,
                           tuple(a for a in options if a != option), tuple(a for a in shown if a != option)))
        else:
            trials.append((f"it was made with spin's {option}", request.defines, (*options, option), (*shown, option)))
    for because, defines, spin_args, shown_args in trials[:_MOST_TRIALS]:
        with tempfile.TemporaryDirectory(prefix="topspin-provenance-") as name:
            workdir = Path(name)
            source = _source(request, reading, workdir)
            try:
                toolchain.generate_pan(tools, source, str(source), list(defines), workdir,
                                       claim_file=attempt.claim_file,
                                       spin_args=(*spin_args, *reading.extra_args), as_given=True)
            except TopspinError:   # spin rejects the model so: not this change
                continue
            if first_difference(request.given, read_outputs(workdir)) is None:
                command = _command(request, reading, attempt.claim_file, defines, shown_args)
                return f"{because}: pan.c is what `{command}` writes"
    return None

