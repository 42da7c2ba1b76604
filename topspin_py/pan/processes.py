"""spin, gcc and pan as child processes that never outlive an interrupted or terminated run.

Each child runs in a process group of its own, so that topspin-py decides what reaches it:

* Ctrl-C: a terminal sends SIGINT to its foreground process group, topspin-py's alone, and
  Python raises KeyboardInterrupt.  A child running then is stopped with its whole group
  (``stop``), except pan, which toolchain.run_pan sends SIGINT: pan catches it and prints its
  statistics so far, which we still want to read.
* SIGTERM (``timeout``, a batch system) and SIGHUP (the terminal went away) raise Terminated
  inside ``terminated_by_signals``: the running child's group is stopped, and the temporary
  work directory is removed, as the exception unwinds.  ``timeout`` sends its signal twice
  (to topspin-py, then to its own process group): only the first one raises, so that the
  clean-up it starts is not cut short by the second.

A group rather than one pid: gcc runs cc1, as and ld, which write into TMPDIR, and a gcc
killed alone would leave them running.  SIGKILL of topspin-py itself cannot be caught; a pan
then left running stops at its next progress line, when it finds its pipe closed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Iterator, Sequence

# How long a stopped group gets to exit (gcc deletes its temporary files) before SIGKILL.
STOP_GRACE_S = 2.0


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived.  Like KeyboardInterrupt, not an Exception: nothing on the
    way up may take it for an error of its own and carry on."""

    def __init__(self, signum: int):
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum

    @property
    def exit_status(self) -> int:
        """128 + the signal's number, as a shell reports a process the signal killed."""
        return 128 + self.signum


@contextlib.contextmanager
def terminated_by_signals(signums: Sequence[int] = (signal.SIGTERM, signal.SIGHUP)) -> Iterator[None]:
    """Inside the block, the first of these signals raises Terminated in the main thread and
    later ones are ignored.  A signal the process inherited as ignored (``nohup``) stays so."""
    if threading.current_thread() is not threading.main_thread():
        yield   # signal handlers can only be set from the main thread
        return
    raised = False

    def handler(signum, frame) -> None:
        nonlocal raised
        if not raised:
            raised = True
            raise Terminated(signum)

    previous = {}
    for signum in signums:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def start(command: Sequence[str], cwd: Path, merge_stderr: bool = False,
          env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start ``command`` in a new process group, reading nothing, its output on pipes;
    ``env``: variables to add to the environment."""
    return subprocess.Popen(list(command), cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                            process_group=0, env={**os.environ, **env} if env else None)


def run_captured(command: Sequence[str], cwd: Path,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``command`` to its end (spin, gcc) and return its output; if anything interrupts
    the wait (Ctrl-C, Terminated), stop its whole group first."""
    process = start(command, cwd, env=env)
    try:
        stdout, stderr = process.communicate()
    except BaseException:
        stop(process)
        raise
    return subprocess.CompletedProcess(list(command), process.returncode,
                                       stdout.decode("utf-8", errors="replace"),
                                       stderr.decode("utf-8", errors="replace"))


def signal_group(process: subprocess.Popen, signum: int) -> None:
    """Send ``signum`` to the process group ``start`` made for ``process`` (if it is still there)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)


def stop(process: subprocess.Popen, signum: int = signal.SIGTERM, grace_s: float = STOP_GRACE_S) -> None:
    """Stop ``process`` and everything in its group: ``signum``, then SIGKILL for whatever is
    still there after ``grace_s``; returns when the group is gone (at the latest after a
    second ``grace_s``: an orphan's zombie waits for init to reap it)."""
    signal_group(process, signum)
    if not _wait_for_group(process, grace_s):
        signal_group(process, signal.SIGKILL)
        _wait_for_group(process, grace_s)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def _wait_for_group(process: subprocess.Popen, timeout_s: float) -> bool:
    """Wait until no process of the group is left; False if some still are after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while True:
        process.poll()   # reap the leader: a zombie is still a member of its group
        if not _group_alive(process.pid):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs.  A zombie does not count: an orphan's (cc1's,
    when gcc died first) waits for init to reap it, and some containers' init never does."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True   # no /proc: every member counts
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses
                state, _ppid, pgrp = stat.read().rsplit(b")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue
        if int(pgrp) == pgid and state != b"Z":
            return True
    return False
