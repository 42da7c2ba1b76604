"""Run the SPIN toolchain: ``spin -a`` makes pan.c, gcc compiles it, pan searches.

Everything happens in a work directory that the caller owns (a temporary one, or --keep DIR).
spin is given the model's absolute path rather than a copy, so that ``#include "x.h"`` next to
the model still resolves; spin writes pan.* into its working directory, never beside the model.
Messages that name that absolute path are rewritten to the path the user typed.

pan is compiled as make would compile it: ``$CC`` (default gcc) and ``$CFLAGS`` from the
environment, the flags after ours so that they win (``CFLAGS=-O0`` overrides our -O1).
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from topspin_py.errors import ModelError, SourcePos, ToolchainError
from topspin_py.pan import processes
from topspin_py.pan.build_cache import BuildCache, Uncacheable
from topspin_py.pan.flags import DEFAULT_OPTIMISATION
from topspin_py.promela.model import Model

SUPPORTED_SPIN_VERSION = "6.5.2"
_INSTALL_HINT = "install it with `sudo apt-get install {package}` (Debian/Ubuntu) or put it on PATH"
_SPIN_VERSION = re.compile(r"Spin Version (\S+)")
# spin: m.pml:3, Error: syntax error	saw 'operator: ='
_SPIN_ERROR = re.compile(r"^spin: (?P<file>.+?):(?P<line>\d+), Error: (?P<message>.*)$", re.M)
# m.pml:1:10: fatal error: nope.h: No such file or directory   (the C preprocessor)
_LTL_ERROR = re.compile(r"^tl_spin: .*$", re.M)
_CPP_ERROR = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<column>\d+): (?:fatal )?error: (?P<message>.*)$", re.M)


@dataclass(frozen=True)
class Toolchain:
    spin: str
    gcc: str
    spin_version: str
    warnings: tuple[str, ...] = ()
    cc: str = ""                   # $CC as the environment had it ("ccache gcc"); empty: gcc
    cflags: str = ""               # $CFLAGS as the environment had it


@dataclass(frozen=True)
class PanRun:
    """One run of pan: its complete stdout (stderr merged) and how it ended."""

    command: tuple[str, ...]
    output: str
    returncode: int
    wall_s: float
    interrupted: bool = False   # Ctrl-C: pan was sent SIGINT; its output ends with its statistics so far


def find_toolchain() -> Toolchain:
    """Locate spin and gcc; a SPIN other than 6.5.2 is allowed with a warning."""
    spin = _which("spin", package="spin")
    gcc = _which("gcc", package="gcc")
    try:
        banner = subprocess.run([spin, "-V"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as err:
        raise ToolchainError(f"cannot run '{spin} -V': {err}",
                             hint=_INSTALL_HINT.format(package="spin")) from err
    match = _SPIN_VERSION.search(banner)
    version = match.group(1) if match else "unknown"
    warnings: tuple[str, ...] = ()
    if version != SUPPORTED_SPIN_VERSION:
        warnings = (f"warning: {spin} is SPIN {version}; topspin-py is built and tested "
                    f"against SPIN {SUPPORTED_SPIN_VERSION}, results may differ",)
    return Toolchain(spin=spin, gcc=gcc, spin_version=version, warnings=warnings,
                     cc=os.environ.get("CC", ""), cflags=os.environ.get("CFLAGS", ""))


def _compiler(toolchain: Toolchain) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The compiler and its flags: $CC (default gcc) and $CFLAGS, split like a shell would
    (make passes them to one); checked only when pan is compiled (generate never is)."""
    try:
        cc = tuple(shlex.split(toolchain.cc)) or (toolchain.gcc,)
        cflags = tuple(shlex.split(toolchain.cflags))
    except ValueError as err:
        raise ToolchainError(f"cannot read CC or CFLAGS from the environment: {err}",
                             hint="quote them as a shell would") from err
    # pan's -D options decide what symmetry reduction can do (refusals.refuse_with_symmetry):
    # they must come through verify's -D, where they are checked, not around it.
    macros = [flag for flag in cflags if flag.startswith(("-D", "-U"))]
    if macros:
        raise ToolchainError(f"CFLAGS holds {' '.join(macros)}: pan's -D options go to verify itself",
                             hint=f"pass them as `topspin-py verify {' '.join(macros)} MODEL`, where "
                                  "they are checked against the symmetry reduction")
    if shutil.which(cc[0]) is None:
        raise ToolchainError(f"the compiler in CC ('{cc[0]}') is not on PATH",
                             hint="install it, or unset CC to compile pan with gcc")
    return cc, cflags


def _which(tool: str, package: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise ToolchainError(f"'{tool}' not found on PATH", hint=_INSTALL_HINT.format(package=package))
    return path


# Where the desugared text of a model that uses the ref/public extension goes, in the work
# directory: spin is given it instead of the model, under the model's own file name, so that pan
# names its trails (m.pml.trail) as for the model.
DESUGARED_DIR = "desugared"
# Where the program with its proctype copies merged goes (copies.py): spin checks it with its
# usual options (no -o1: no refs there, and the counts stay those of the model as written).
MERGED_DIR = "merged"


def spin_source(model_path: Path, model: Model | None, workdir: Path) -> Path:
    """The file ``spin -a`` is given for ``model_path``: the file itself for plain Promela
    (spin preprocesses it, as always); for a model that uses the ref/public extension
    (``model.spin_text``), its desugared program, written to workdir/desugared/<model's name>;
    for a model whose proctype copies are merged (copies.py), the rewritten program, written
    to workdir/merged/<model's name>."""
    text = model.spin_text if model is not None else None
    if text is None or model is None:
        return model_path
    target = workdir / (DESUGARED_DIR if model.extended is not None else MERGED_DIR) / model_path.name
    target.parent.mkdir(exist_ok=True)
    target.write_text(text)
    return target


def spin_command(toolchain: Toolchain, model: Path, defines: list[str] | tuple[str, ...],
                 claim_file: Path | None = None, spin_args: list[str] | tuple[str, ...] = (),
                 as_given: bool = False) -> list[str]:
    # spin hands -D options to its preprocessor; they go before -a (spin -DN=3 -a m.pml).
    # spin_args: spin's own options (-o3, -f FORMULA, ...), as the user gave them.
    # as_given: those options and no others, for a spin -a the user ran (patch repeats it).
    claim = ["-N", str(claim_file.resolve())] if claim_file is not None else []
    if model.parent.name == DESUGARED_DIR and "-o1" not in spin_args and not as_given:
        # Our desugaring of the ref/public extension (spin_source): refs are local ids, and
        # spin's dataflow optimisation would reset a dead ref to 0, which is instance 0, not
        # _undef_ref; without the reset a ref keeps what the program gave it, as in [DG01].
        spin_args = (*spin_args, "-o1")
    return [toolchain.spin, *(f"-D{define}" for define in defines), *spin_args, "-a", *claim,
            str(model.resolve())]


def generate_pan(toolchain: Toolchain, model: Path, shown_as: str, defines, workdir: Path,
                 claim_file: Path | None = None, spin_args: list[str] | tuple[str, ...] = (),
                 as_given: bool = False) -> str:
    """``spin -a`` (with ``-N claim_file``, a never claim of its own, and spin's own options
    ``spin_args``; ``as_given``: see spin_command): write pan.c, pan.h, ... into workdir.
    Returns spin's output (ltl translations and notes).  A model spin rejects becomes a
    ModelError at spin's file:line, naming ``shown_as`` (the path the user typed) instead of
    the absolute path spin saw."""
    command = spin_command(toolchain, model, defines, claim_file, spin_args, as_given)
    completed = _run(command, workdir, "spin")
    output = _rename_path(completed.stdout + completed.stderr, str(model.resolve()), shown_as)
    if completed.returncode != 0 or not (workdir / "pan.c").is_file():
        raise _spin_rejection(output)
    return output


def never_claim_from_ltl(toolchain: Toolchain, formula_args: list[str] | tuple[str, ...]) -> str:
    """The never claim spin writes for ``-f FORMULA`` or ``-F FILE`` (spin's translator, the
    same one ``spin -a -f`` uses): the claim pan will check, for the symmetry to respect."""
    with tempfile.TemporaryDirectory(prefix="topspin-ltl-") as workdir:
        completed = _run([toolchain.spin, *formula_args], Path(workdir), "spin")
    output = completed.stdout + completed.stderr
    if completed.returncode != 0 or "never" not in completed.stdout:
        raise ModelError(f"spin could not translate the formula ({shlex.join(formula_args)})",
                         detail=output.strip() or None,
                         hint="spin's -f takes an LTL formula for the never claim, e.g. -f '![] p'")
    return completed.stdout


def _spin_rejection(output: str) -> ModelError:
    """spin's own complaint, with the position of its first error."""
    if match := _SPIN_ERROR.search(output):
        pos = SourcePos(match.group("file"), int(match.group("line")))
        message = match.group("message")
    elif match := _CPP_ERROR.search(output):
        pos = SourcePos(match.group("file"), int(match.group("line")), int(match.group("column")))
        message = match.group("message")
    elif match := _LTL_ERROR.search(output):
        # spin's ltl translator names no file or line ("tl_spin: expected predicate, saw 'X'")
        pos, message = None, match.group(0)
    else:
        pos, message = None, "spin could not translate the model"
    hint = None
    if "no runable process" in output:
        hint = "a model needs at least one process: an active proctype or an init"
    return ModelError(f"spin rejects the model: {' '.join(message.split())}", pos=pos,
                      detail=output.strip() or None, hint=hint)


def compile_command(toolchain: Toolchain, flags: list[str] | tuple[str, ...],
                    optimisation: str = DEFAULT_OPTIMISATION, output: str = "pan") -> list[str]:
    cc, cflags = _compiler(toolchain)
    return [*cc, optimisation, *flags, *cflags, "-o", output, "pan.c"]


def compile_pan(toolchain: Toolchain, flags, workdir: Path, optimisation: str = DEFAULT_OPTIMISATION,
                output: str = "pan", on_warning: Callable[[str], None] | None = None,
                cache: BuildCache | None = None, on_cache: Callable[[str], None] | None = None) -> Path:
    """$CC -O1 <flags> $CFLAGS -o pan pan.c, in workdir (-O0 compiles a large pan.c several
    times faster, for a pan that runs slower).  Returns the binary (``output``).  SPIN's own
    compile-time warnings, the ``#warning`` lines of pan.c and pan.h that these flags reach
    (``p.o. reduction not compatible with remote varrefs (use -DNOREDUCE)``, ``-DREACH is
    voided by -DBITSTATE``, ...), go to ``on_warning``, each once, as ``pan.c: #warning TEXT``.
    With a ``cache``, a build of the same sources with the same command and compiler is
    reused (build_cache.py); ``on_cache`` is told whether it was, or why it could not be."""
    command = compile_command(toolchain, flags, optimisation, output)
    entry = None
    if cache is not None:
        try:
            entry = cache.entry(command, workdir, toolchain.spin_version)
        except Uncacheable as reason:
            if on_cache is not None:
                on_cache(f"not cached: {reason}")
        cached_output = entry.fetch(workdir / output) if entry is not None else None
        if entry is not None and cached_output is not None:
            if on_cache is not None:
                on_cache(f"reused the build in {entry.path}")
            _warn(cached_output, on_warning)
            return workdir / output
    completed = _run(command, workdir, command[0])
    if completed.returncode != 0:
        output = (completed.stdout + completed.stderr).strip()
        raise ToolchainError(
            f"{Path(command[0]).name} could not compile pan.c",
            detail=_tail(output, 40) + "\ncommand: " + shlex.join(command),
            hint="check the -D flags (a misspelt or conflicting pan option is the usual cause) "
                 "and $CC / $CFLAGS; --keep DIR keeps pan.c for a closer look")
    _warn(completed.stdout + completed.stderr, on_warning)
    if entry is not None:
        entry.store(workdir / output, completed.stdout + completed.stderr)
        if on_cache is not None:
            on_cache(f"compiled, and kept in {entry.path}")
    return workdir / output


def _warn(compiler_output: str, on_warning: Callable[[str], None] | None) -> None:
    if on_warning is not None:
        for diagnostic in cpp_diagnostics(compiler_output):
            on_warning(str(diagnostic))


@dataclass(frozen=True)
class CppDiagnostic:
    """A ``#warning`` or ``#error`` line of SPIN's that the preprocessor reached."""

    file: str        # pan.c, pan.h, ...: as the compiler names it
    kind: str        # "warning" or "error"
    text: str        # "p.o. reduction not compatible with remote varrefs (use -DNOREDUCE)"

    def __str__(self) -> str:
        return f"{self.file}: #{self.kind} {self.text}"


# gcc:   pan.c:9517:10: warning: #warning p.o. reduction not compatible ... [-Wcpp]
# clang: pan.c:9517:3: warning: p.o. reduction not compatible ... [-W#warnings]
#        pan.h:12:3: error: cannot combine -DHC and -DBITSTATE   (gcc: "error: #error ...")
_CPP_DIAGNOSTIC = re.compile(r"^(?P<file>[^:\s]+):\d+:\d+: (?P<kind>warning|error): (?:#(?:warning|error) )?"
                             r"(?P<text>.*?)(?: \[-W(?:cpp|#warnings)\])?$", re.M)


def cpp_diagnostics(output: str) -> list[CppDiagnostic]:
    """The #warning and #error lines of pan's sources that the compiler's ``output`` reports,
    each once (the compiler's other warnings are not SPIN's words, and are left out)."""
    found = []
    for match in _CPP_DIAGNOSTIC.finditer(output):
        line = match.group(0)
        if "#warning" in line or "#error" in line or "[-W#warnings]" in line:
            found.append(CppDiagnostic(Path(match.group("file")).name, match.group("kind"), match.group("text")))
    return list(dict.fromkeys(found))


def preprocessor_diagnostics(toolchain: Toolchain, flags, workdir: Path) -> list[CppDiagnostic]:
    """The #warning and #error lines of the pan.c in workdir that $CC's preprocessor reaches
    with these flags: what gcc would say of them, at the cost of ``$CC -E`` (tens of ms), not of
    a compilation."""
    cc, cflags = _compiler(toolchain)
    command = [*cc, "-E", *flags, *cflags, "-o", os.devnull, "pan.c"]
    completed = _run(command, workdir, command[0])
    return cpp_diagnostics(completed.stdout + completed.stderr)


def run_pan(binary: Path, args, workdir: Path,
            on_output: Callable[[str], None] | None = None,
            on_start: Callable[[int], None] | None = None) -> PanRun:
    """Run pan in workdir, passing its output to ``on_output`` as it arrives (for progress)
    and its pid to ``on_start``.

    pan's stderr is merged into stdout: pan writes almost everything to stdout, and the
    order of the two streams matters when reading its report.  Ctrl-C (KeyboardInterrupt)
    is passed on to pan, which prints its statistics so far and exits: the PanRun says
    ``interrupted``.  Anything else that stops the wait stops pan (processes.py)."""
    command = (str(binary), *args)
    started = time.monotonic()
    chunks: list[str] = []
    interrupted = False
    try:
        process = processes.start(command, workdir, merge_stderr=True)
    except OSError as err:
        raise ToolchainError(f"cannot run pan: {err}") from err
    stdout = process.stdout
    assert stdout is not None  # stdout=PIPE

    def read(deadline: float | None = None) -> None:
        """Everything pan writes until it closes its output (or the deadline passes).
        os.read returns what is there: partial lines reach the progress display at once."""
        while deadline is None or select.select([stdout], [], [], max(0.0, deadline - time.monotonic()))[0]:
            data = os.read(stdout.fileno(), 65536)
            if not data:
                return
            chunk = data.decode("utf-8", errors="replace")
            chunks.append(chunk)
            if on_output is not None:
                on_output(chunk)

    try:
        if on_start is not None:
            on_start(process.pid)
        try:
            read()
        except KeyboardInterrupt:
            # pan's own SIGINT handler prints its report, the statistics so far, and exits.
            interrupted = True
            processes.signal_group(process, signal.SIGINT)
            read(time.monotonic() + _INTERRUPTED_REPORT_S)
        with contextlib.suppress(subprocess.TimeoutExpired):   # then stopped below
            process.wait(timeout=_INTERRUPTED_REPORT_S if interrupted else None)
    finally:
        if process.poll() is None:  # stopped again, or failed while reading: stop pan
            processes.stop(process)
        stdout.close()
    returncode = process.returncode if process.returncode is not None else -signal.SIGKILL
    return PanRun(command=command, output="".join(chunks), returncode=returncode,
                  wall_s=time.monotonic() - started, interrupted=interrupted)


# How long pan may take to print its report after SIGINT before it is killed: its wrap-up
# only formats numbers, but a large hash table can take a moment to page back in.
_INTERRUPTED_REPORT_S = 30.0


def _run(command: list[str], workdir: Path, tool: str) -> subprocess.CompletedProcess[str]:
    try:
        return processes.run_captured(command, workdir)
    except OSError as err:
        raise ToolchainError(f"cannot run {tool}: {err}",
                             hint=_INSTALL_HINT.format(package=tool)) from err


def _rename_path(text: str, real: str, shown: str) -> str:
    return text.replace(real, shown) if real != shown else text


def _tail(text: str, lines: int) -> str:
    kept = text.splitlines()
    if len(kept) <= lines:
        return text
    return "\n".join([f"... ({len(kept) - lines} lines omitted)"] + kept[-lines:])
