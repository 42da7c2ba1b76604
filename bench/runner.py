"""One verification run for the benchmarks: `topspin_py.verify.verify` in a child process with
a wall-clock budget.

The child starts its own process group, so on the budget the child and the spin, gcc and pan
it started are killed together (by that group's id) and their temporary files removed.  A run
either gives a Result, or a reason in words (over the budget, a tool error) for the report.
"""

from __future__ import annotations

import multiprocessing
import os
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


def _child(source: str, strategy: str, pan_args: tuple[str, ...], workdir: str, conn) -> None:
    os.setsid()                      # our own process group: the parent kills it on the budget
    tempfile.tempdir = workdir       # verify's temporary directory goes where the parent cleans
    try:
        from topspin_py.verify import VerifyOptions, verify

        model = Path(workdir) / "model.pml"
        model.write_text(source)
        result = verify(model, VerifyOptions(strategy=strategy, defines=DEFINES,
                                             pan_args=pan_args, save_trails=False))
        result.pan_output = ""       # not needed here, and it can be large
        conn.send(("ok", result))
    except Exception as err:         # noqa: BLE001  (any failure becomes a line in the report)
        message = " ".join(str(err).split()) or type(err).__name__
        hint = getattr(err, "hint", None)
        conn.send(("error", f"{type(err).__name__}: {message}" + (f" ({hint})" if hint else "")))
    finally:
        conn.close()


def run(source: str, strategy: str, pan_args: tuple[str, ...] = (), budget_s: float = 300.0) -> Outcome:
    """Verify ``source`` with ``strategy`` (``none``: plain SPIN) under -DSAFETY -DNOREDUCE."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    workdir = tempfile.mkdtemp(prefix="topspin-bench-")
    started = time.monotonic()
    child = context.Process(target=_child, args=(source, strategy, tuple(pan_args), workdir, send))
    child.start()
    send.close()
    kind, payload = "interrupted", "interrupted"
    try:
        if receive.poll(budget_s):
            try:
                kind, payload = receive.recv()
            except EOFError:
                kind, payload = "error", "the verification process died without a report"
        else:
            kind, payload = "timeout", f"over the time budget of {budget_s:g} s (stopped)"
    finally:
        wall = time.monotonic() - started
        if kind != "ok" and child.is_alive():
            try:
                os.killpg(child.pid, signal.SIGKILL)   # the child's own group: it, spin, gcc, pan
            except ProcessLookupError:
                pass
        child.join()
        receive.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return Outcome(payload, None, wall) if kind == "ok" else Outcome(None, payload, wall)
