"""One verification run for the benchmarks: `topspin_py.verify.verify` in a child process with
a wall-clock budget.

The child starts its own process group, so on the budget the child and the spin, gcc and pan
it started are killed together (by that group's id) and their temporary files removed.  A run
either gives a Result, or a reason in words (over the budget, a tool error) for the report.
``in_child`` is that machinery for any function (bench/corpus_symmetry.py's detection).
"""

from __future__ import annotations

import multiprocessing
import os
import platform
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from topspin_py.result import Result

DEFINES = ("SAFETY", "NOREDUCE")


@dataclass
class Outcome:
    """A Result, or why there is none (``failure``)."""

    result: Result | None
    failure: str | None = None
    wall_s: float = 0.0        # the whole run as we waited for it: detect, spin, gcc and pan

    @property
    def ok(self) -> bool:
        return self.result is not None


def _child(function, args: tuple, workdir: str, conn) -> None:
    os.setsid()                      # our own process group: the parent kills it on the budget
    tempfile.tempdir = workdir       # temporary directories go where the parent cleans
    try:
        conn.send(("ok", function(*args)))
    except Exception as err:         # noqa: BLE001  (any failure becomes a line in the report)
        message = " ".join(str(err).split()) or type(err).__name__
        hint = getattr(err, "hint", None)
        conn.send(("error", f"{type(err).__name__}: {message}" + (f" ({hint})" if hint else "")))
    finally:
        conn.close()


def in_child(function, args: tuple = (), budget_s: float = 300.0) -> tuple[str, object, float]:
    """``function(*args)`` in a forked child with its own process group and temporary directory:
    ("ok", its value, seconds), or ("error" | "timeout", the reason in words, seconds).  On the
    budget the child's whole group is killed; its temporary files are removed either way."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    workdir = tempfile.mkdtemp(prefix="topspin-bench-")
    started = time.monotonic()
    child = context.Process(target=_child, args=(function, args, workdir, send))
    child.start()
    send.close()
    kind, payload = "interrupted", "interrupted"
    try:
        if receive.poll(budget_s):
            try:
                kind, payload = receive.recv()
            except EOFError:
                kind, payload = "error", "the process died without a report"
        else:
            kind, payload = "timeout", f"over the time budget of {budget_s:g} s (stopped)"
    finally:
        wall = time.monotonic() - started
        if kind != "ok" and child.is_alive():
            assert child.pid is not None     # started above
            try:
                os.killpg(child.pid, signal.SIGKILL)   # the child's own group: it, spin, gcc, pan
            except ProcessLookupError:
                pass
        child.join()
        receive.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return kind, payload, wall


def _verify(source: str | None, model: Path | None, strategy: str, pan_args: tuple[str, ...],
            defines: tuple[str, ...]) -> Result:
    from topspin_py.verify import VerifyOptions, verify

    if model is None:
        model = Path(tempfile.gettempdir()) / "model.pml"
        model.write_text(source or "")
    result = verify(model, VerifyOptions(strategy=strategy, defines=defines,
                                         pan_args=pan_args, save_trails=False, optimisation="-O2"))
    result.pan_output = ""           # not needed here, and it can be large
    return result


def run(source: str | None, strategy: str, pan_args: tuple[str, ...] = (), budget_s: float = 300.0,
        model: Path | None = None, defines: tuple[str, ...] = DEFINES) -> Outcome:
    """Verify ``source`` with ``strategy`` (``none``: plain SPIN) under -DSAFETY -DNOREDUCE;
    or, with ``model``, that file where it is (its #includes found beside it)."""
    kind, payload, wall = in_child(_verify, (source, model, strategy, tuple(pan_args), tuple(defines)),
                                   budget_s)
    if kind == "ok" and isinstance(payload, Result):
        return Outcome(payload, None, wall)
    return Outcome(None, str(payload), wall)


def report_preamble(title: str, module_doc: str, rounds: int | None = None) -> list[str]:
    """A report's first lines: its title, how it was measured (the second paragraph of the
    benchmark's module doc, "ROUNDS rounds" with the number), and the machine."""
    method = module_doc.split("\n\n")[1].replace("\n", " ")
    if rounds is not None:
        method = method.replace("ROUNDS rounds", f"{rounds} rounds")
    return [f"# {title}", "", method, "", machine_line(), ""]


def machine_line() -> str:
    """The machine a report was made on, for its header: cores, architecture, Python, and the
    load average at the end of the run (a busy machine makes slower figures)."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return (f"Machine: {os.cpu_count()} cores, {platform.machine()}, {platform.python_implementation()} "
            f"{platform.python_version()}; load average at the end {load[0]:.2f}" if load else "")
