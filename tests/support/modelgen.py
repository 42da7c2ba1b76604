"""Helpers for the model-driven tests: expectation headers, plain SPIN runs, model generators.

Expectation headers
-------------------
Every model in ``tests/models/`` starts with a block comment.  Each line of that comment that
contains ``expect:`` describes one run of the model; the rest of the comment is prose.  The text
after ``expect:`` is split like a shell command line (``shlex``: quote values that hold spaces)
into ``key=value`` words::

    /* A two-process handshake.
       expect: flags=-DNOREDUCE states=12 transitions=47 errors=0
       expect: pan="-a -N p1" states=30 transitions=61 errors=1
       Counts measured with plain spin 6.5.2. */

Keys of a run (``flags``, ``defines`` and ``pan`` may repeat and accumulate):

``flags``
    C compiler flags for pan.c, e.g. ``-DNOREDUCE``, ``-DSAFETY``, ``-DNP``.
``defines``
    preprocessor definitions for the model itself, given to ``spin -a``, e.g. ``-DN=3``.
``pan``
    arguments of the pan binary, e.g. ``-m100000`` or ``"-a -N p1"``.
``states`` ``transitions`` ``matched`` ``errors`` ``depth``
    the counts pan must report (``states, stored``, ``transitions``, ``states, matched``,
    ``errors:``, ``depth reached``).  Numbers, compared as numbers (pan prints ``%9.8g``).
``order``
    the order of the symmetry group a sound analysis must report for this run
    (``topspin-py detect --json``'s ``"order"``, with the run's defines).  It is not a count
    of pan's and does not count as one: a line still needs a count.  Its value comes from
    reasoning about the program text, written down in the header's prose, never from the
    tool's output.

A line with ``pids:`` instead of ``expect:`` lists the proctype of each process instance the
front end must find (``load_model(...).processes``, with the defines of the first run), in
SPIN's pid order, ``:init:`` for init::

       pids: A A :init: B B B

Models that a user gets an error for live in ``tests/models/bad/`` and have one line::

    /* expect: error line=7 message="undeclared variable" */

``error`` (a bare word) says that the tool must refuse the model (exit status 2, no traceback),
``line`` is the line of the model the message must point at (``file:line`` in stderr) and
``message`` a fragment the message must contain (case-insensitive).  ``file=include/x.h`` names
the file the line is in when it is not the model itself.

Plain SPIN runs
---------------
:func:`run_spin` runs ``spin -a``, ``gcc`` and ``pan`` in a temporary directory and parses pan's
report into a :class:`PanResult`; it is the reference our own tool's numbers are checked against.
:func:`verify_args` gives the ``topspin-py verify`` command line of a run, and
:func:`copy_model` a copy of a model to run it on (the tool writes trails beside the model).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import families

COUNT_KEYS = ("states", "transitions", "matched", "errors", "depth")
LIST_KEYS = ("flags", "defines", "pan")
ORDER_KEY = "order"
ERROR_KEYS = ("line", "message", "file")


class HeaderError(ValueError):
    """The expectation header of a model is malformed."""


@dataclass(frozen=True)
class Run:
    """One run of a model and the counts it must give."""

    flags: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    pan: tuple[str, ...] = ()
    expect: tuple[tuple[str, int], ...] = ()
    order: int | None = None  # the group order a sound analysis must report, when known

    @property
    def counts(self) -> dict[str, int]:
        return dict(self.expect)

    def label(self) -> str:
        words = [*self.flags, *self.defines, *self.pan]
        return " ".join(words) if words else "default"


@dataclass(frozen=True)
class ErrorExpectation:
    """What the user must be told about a model that is refused."""

    line: int | None = None
    message: str | None = None
    file: str | None = None


@dataclass
class Header:
    runs: list[Run] = field(default_factory=list)
    error: ErrorExpectation | None = None
    pids: tuple[str, ...] | None = None


_LEADING_COMMENT = re.compile(r"\A\s*/\*(.*?)\*/", re.S)


def parse_header(text: str, where: str = "<model>") -> Header:
    """The expectations of a model, from its leading block comment."""
    m = _LEADING_COMMENT.match(text)
    if not m:
        raise HeaderError(f"{where}: no leading /* expect: ... */ comment")
    header = Header()
    for line in m.group(1).splitlines():
        if line.strip().startswith("pids:"):
            if header.pids is not None:
                raise HeaderError(f"{where}: pids: given twice")
            header.pids = tuple(line.split("pids:", 1)[1].split())
            continue
        if "expect:" not in line:
            continue
        spec = line.split("expect:", 1)[1]
        try:
            words = shlex.split(spec)
        except ValueError as e:
            raise HeaderError(f"{where}: bad expect line {spec!r}: {e}") from None
        if words and words[0] == "error":
            if header.error is not None or header.runs:
                raise HeaderError(f"{where}: an 'error' expectation must be the only one")
            header.error = _parse_error(words[1:], where)
            continue
        if header.error is not None:
            raise HeaderError(f"{where}: an 'error' expectation must be the only one")
        header.runs.append(_parse_run(words, where))
    if not header.runs and header.error is None:
        raise HeaderError(f"{where}: the leading comment has no 'expect:' line")
    return header


def _split_kv(word: str, where: str) -> tuple[str, str]:
    if "=" not in word:
        raise HeaderError(f"{where}: expected key=value, got {word!r}")
    key, value = word.split("=", 1)
    return key, value


def _parse_run(words: list[str], where: str) -> Run:
    lists: dict[str, list[str]] = {k: [] for k in LIST_KEYS}
    counts: dict[str, int] = {}
    order: int | None = None
    for word in words:
        key, value = _split_kv(word, where)
        if key in LIST_KEYS:
            lists[key].extend(shlex.split(value))
        elif key == ORDER_KEY:
            if order is not None:
                raise HeaderError(f"{where}: {key} given twice")
            if not value.isdigit() or int(value) < 1:
                raise HeaderError(f"{where}: {key}={value!r} is not a group order")
            order = int(value)
        elif key in COUNT_KEYS:
            if key in counts:
                raise HeaderError(f"{where}: {key} given twice")
            try:
                counts[key] = int(value)
            except ValueError:
                raise HeaderError(f"{where}: {key}={value!r} is not an integer") from None
        else:
            raise HeaderError(f"{where}: unknown key {key!r} (known: "
                              f"{', '.join(LIST_KEYS + COUNT_KEYS + (ORDER_KEY,))})")
    if not counts:
        raise HeaderError(f"{where}: an expect line states no count")
    return Run(flags=tuple(lists["flags"]), defines=tuple(lists["defines"]),
               pan=tuple(lists["pan"]), expect=tuple(counts.items()), order=order)


def run_params(paths) -> list:
    """One ``pytest.param(path, run, header_error)`` per ``expect:`` line of each model, with
    ids ``stem[i]``.  A model whose header is malformed gives one param with ``run`` None and
    the message, so that it fails as a test instead of hiding the others at collection."""
    import pytest

    params = []
    for path in paths:
        try:
            runs = read_header(path).runs
        except HeaderError as e:
            params.append(pytest.param(path, None, str(e), id=f"{path.stem}[bad-header]"))
            continue
        for i, run in enumerate(runs):
            params.append(pytest.param(path, run, None, id=f"{path.stem}[{i}]"))
    return params


def _parse_error(words: list[str], where: str) -> ErrorExpectation:
    values: dict[str, str] = {}
    for word in words:
        key, value = _split_kv(word, where)
        if key not in ERROR_KEYS:
            raise HeaderError(f"{where}: unknown key {key!r} in an error expectation")
        values[key] = value
    line = values.get("line")
    return ErrorExpectation(line=int(line) if line is not None else None,
                            message=values.get("message"), file=values.get("file"))


def read_header(path: Path) -> Header:
    return parse_header(path.read_text(), str(path))


# ------------------------------------------------------------------------------- plain spin


@dataclass(frozen=True)
class PanResult:
    states: float
    transitions: float
    matched: float
    errors: int
    depth: int
    output: str

    def get(self, key: str) -> float:
        return getattr(self, key)


class SpinFailed(RuntimeError):
    """spin, gcc or pan failed; the message carries their output."""


_NUM = r"([0-9.]+(?:e[+-]?[0-9]+)?)"
_PATTERNS = {
    "states": re.compile(_NUM + r" states, stored"),
    "matched": re.compile(_NUM + r" states, matched"),
    "transitions": re.compile(_NUM + r" transitions \(="),
    "errors": re.compile(r"errors: (\d+)"),
    "depth": re.compile(r"depth reached (\d+)"),
}


def parse_pan_output(out: str) -> PanResult:
    # pan's report starts at its last "(Spin Version" line: nothing the model prints (printf
    # under -DPRINTF, c_code; tests/models/printing/) comes after it
    start = out.rfind("\n(Spin Version ")
    report = out[start:] if start >= 0 else out
    values: dict[str, float] = {}
    for key, pattern in _PATTERNS.items():
        m = pattern.search(report)
        if not m:
            raise SpinFailed(f"pan's report has no {key!r}:\n{out}")
        values[key] = float(m.group(1))
    return PanResult(states=values["states"], transitions=values["transitions"],
                     matched=values["matched"], errors=int(values["errors"]),
                     depth=int(values["depth"]), output=out)


def _run(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return proc


def run_spin(model: Path | None = None, *, text: str | None = None, flags=(), defines=(),
             pan=(), opt: str = "-O2", timeout: float = 600, spin_args=()) -> PanResult:
    """Verify a model with plain spin + gcc + pan in a temporary directory.

    Give either ``model`` (a file; it is used in place so that its ``#include``s resolve) or
    ``text`` (written to a temporary ``model.pml``).  ``opt`` is gcc's optimisation level: the
    counts do not depend on it, and ``-O0`` compiles pan.c five times faster than ``-O2``,
    which is what small models want.  ``spin_args``: spin's own options (``-o1`` for the
    desugared program of a model written with the ref/public extension, as verify runs it).
    """
    if (model is None) == (text is None):
        raise TypeError("give exactly one of model and text")
    with tempfile.TemporaryDirectory(prefix="topspin-test-") as tmp:
        work = Path(tmp)
        if text is not None:
            source = work / "model.pml"
            source.write_text(text)
        else:
            assert model is not None  # exactly one of model and text
            source = Path(model).resolve()
        steps = [
            ["spin", *defines, *spin_args, "-a", str(source)],
            ["gcc", opt, "-w", *flags, "-o", "pan", "pan.c"],
        ]
        for cmd in steps:
            proc = _run(cmd, work, timeout)
            # spin may report an error with exit status 0: then it writes no pan.c.
            if proc.returncode != 0 or (cmd[0] == "spin" and not (work / "pan.c").exists()):
                raise SpinFailed(f"{shlex.join(cmd)} failed ({proc.returncode}):\n"
                                 f"{proc.stdout}{proc.stderr}")
        proc = _run(["./pan", *pan], work, timeout)
        return parse_pan_output(proc.stdout + proc.stderr)


def have_toolchain() -> bool:
    return shutil.which("spin") is not None and shutil.which("gcc") is not None


# ------------------------------------------------------------------ topspin-py command lines


def verify_args(path: Path, run: Run, strategy: str) -> list[str]:
    """The arguments of ``topspin-py verify --json`` for one run of a model."""
    # The CLI has one -D option: it is given both the pan compile flags and the model's
    # preprocessor definitions, as the topspin-py user would give them.
    # -O0: these models are small, and gcc -O0 compiles pan.c several times faster.
    args = ["verify", str(path), "--strategy", strategy, "--json", "--gcc-opt=-O0"]
    args += [d if d.startswith("-D") else f"-D{d}" for d in (*run.flags, *run.defines)]
    args += [f"--pan={arg}" for arg in run.pan]
    # A header's pan arguments are pan's own: without -a or -l, pan searches for safety
    # violations only, while verify would add -a for accept labels (as spin -run does).
    if not any(arg in ("-a", "-l") for arg in run.pan):
        args.append("--safety")
    return args


def copy_model(path: Path, into: Path) -> Path:
    """A copy of a model (with the include/ folder beside it) in a temporary directory, so
    that the trail files the tool leaves beside the model stay out of the repository."""
    if (path.parent / "include").is_dir():
        shutil.copytree(path.parent / "include", into / "include")
    shutil.copy2(path, into / path.name)
    return into / path.name


# --------------------------------------------------------------------------- model families
#
# Generated models come from tests/support/families.py (the families of [DM08]); FAMILIES lists the sizes
# whose counts are known (published, and reproduced with plain spin 6.5.2 with -DSAFETY
# -DNOREDUCE).


GENERATORS = {"peterson": families.peterson, "mutex": families.mutex}

# The runs of the generated models: flags and pan arguments.  The depth limit matters: with
# pan's default -m10000, peterson(4) (depth 12,103) stops short at 60,185 states.
FAMILY_FLAGS = ("-DSAFETY", "-DNOREDUCE")
FAMILY_PAN = ("-m10000000",)

# (family, n) -> the counts of plain spin 6.5.2 with FAMILY_FLAGS and FAMILY_PAN.
# mutex by hand: every user in N or T (2^n), or exactly one in C (n * 2^(n-1)), plus the
# initial state before init's atomic block: (n + 2) * 2^(n-1) + 1.
# peterson: 2,636 and 60,577 are the published unreduced counts; the rest measured.
FAMILIES: dict[tuple[str, int], dict[str, int]] = {
    ("mutex", 2): {"states": 9, "transitions": 16, "errors": 0},
    ("mutex", 3): {"states": 21, "transitions": 50, "errors": 0},
    ("mutex", 5): {"states": 113, "transitions": 402, "errors": 0},
    ("mutex", 6): {"states": 257, "transitions": 1058, "errors": 0},
    ("peterson", 2): {"states": 117, "transitions": 234, "errors": 0},
    ("peterson", 3): {"states": 2636, "transitions": 7907, "errors": 0},
    ("peterson", 4): {"states": 60577, "transitions": 242306, "errors": 0},
}


def generate(family: str, n: int) -> str:
    return GENERATORS[family](n)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """``topspin-py ARGS`` as a user runs it, through the command's own main(), in this process:
    a new interpreter per run would import the package again (about 1.5 s) for each of the
    hundreds of runs of the model tests (test_cli and test_packaging run the installed command
    itself).  An exception main() does not turn into a message fails the test, as a traceback
    on the terminal would."""
    from topspin_py.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return subprocess.CompletedProcess(["topspin-py", *args], status, out.getvalue(), err.getvalue())
