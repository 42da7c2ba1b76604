"""What a dask worker runs for one job of the swarm: the pan binary it is given, in a
temporary directory of its own, until pan ends or the swarm is stopped.

This module imports the standard library only (distributed, which every dask worker has, when
it runs): the client pickles its functions by value (cluster.py), so a worker needs neither
topspin-py nor spin nor gcc, only a machine that can run the binary (Linux with a libc like
the client's).  It returns plain data: pan's output, the trails pan wrote, and how pan ended;
the client parses the output.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

# How often a running job asks the scheduler whether the swarm was stopped, and how long pan
# may take to print its statistics after SIGINT before it is killed.
POLL_S = 0.5
REPORT_GRACE_S = 30.0


def run_job(binary: bytes, args: list[str], stop_event: str | None = None,
            time_limit_s: float | None = None) -> dict:
    """Run one pan job; the swarm's stop event (a distributed.Event by that name), once set,
    or ``time_limit_s`` (a backstop for a client that went away) interrupts pan with SIGINT,
    after which pan prints its statistics so far.  A job whose swarm was stopped before it
    started does not run at all (``started`` False)."""
    started = time.monotonic()
    host = _worker_name()
    if _stopped(stop_event):
        return {"started": False, "output": "", "returncode": None, "trails": {}, "wall_s": 0.0,
                "interrupted": False, "worker": host}
    with tempfile.TemporaryDirectory(prefix="topspin-swarm-") as name:
        workdir = Path(name)
        pan = workdir / "pan"
        pan.write_bytes(binary)
        pan.chmod(0o755)
        # Its own session: a Ctrl-C at the worker's terminal does not reach pan (the swarm's
        # stop event does, below), and our signals reach pan and nothing else of the worker's.
        process = subprocess.Popen([str(pan), *args], cwd=workdir, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                                   preexec_fn=_dies_with_parent())
        interrupted = False
        try:
            output = _wait(process, stop_event, time_limit_s, started)
        except _Stop:
            interrupted = True
            _signal(process, signal.SIGINT)
            try:
                output, _ = process.communicate(timeout=REPORT_GRACE_S)
            except subprocess.TimeoutExpired:
                _signal(process, signal.SIGKILL)
                output, _ = process.communicate()
        finally:
            if process.poll() is None:   # the task itself was cancelled or failed: no pan left
                _signal(process, signal.SIGKILL)
                process.wait()
        trails = {path.name: path.read_bytes() for path in workdir.glob("*.trail")}
    return {"started": True, "output": output.decode("utf-8", errors="replace"),
            "returncode": process.returncode, "trails": trails, "wall_s": time.monotonic() - started,
            "interrupted": interrupted, "worker": host}


class _Stop(Exception):
    """The swarm was stopped, or the job reached its time limit."""


def _wait(process: subprocess.Popen, stop_event: str | None, time_limit_s: float | None,
          started: float) -> bytes:
    """pan's whole output, once it ends; raises _Stop first if the swarm is stopped."""
    while True:
        try:
            output, _ = process.communicate(timeout=POLL_S)   # nothing is lost by a timeout
            return output
        except subprocess.TimeoutExpired:
            pass
        if (time_limit_s is not None and time.monotonic() - started > time_limit_s) or _stopped(stop_event):
            raise _Stop()


def _stopped(stop_event: str | None) -> bool:
    if stop_event is None:
        return False
    from distributed import Event  # every dask worker has it

    try:
        return Event(stop_event).is_set()
    except Exception:   # noqa: BLE001  (the scheduler is gone: the swarm is over)
        return True


def _dies_with_parent():
    """For Popen's preexec_fn, on Linux: pan is killed if the worker process dies (a worker
    that is killed cannot stop its pan, which would search on alone).  Elsewhere: None."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl   # looked up before the fork
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def set_death_signal() -> None:
        prctl(pr_set_pdeathsig, signal.SIGKILL)

    return set_death_signal


def _worker_name() -> str:
    """The worker's address (tcp://host:port): which worker ran the job."""
    try:
        from distributed import get_worker

        return get_worker().address
    except Exception:   # noqa: BLE001  (called outside a worker: the host is all we know)
        return socket.gethostname()


def _signal(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except ProcessLookupError:
        pass
