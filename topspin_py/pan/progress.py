"""Live progress: what stage is running and for how long, and pan's own progress lines.

Every 10^6 stored states pan prints
``Depth=   99999 States=    1e+06 Transitions= 2.63e+06 Memory=   179.239\tt=     0.87 R=   1e+06``.
When stdout is a pipe, pan flushes only the part up to ``Memory=`` at once; the ``t= ... R=``
tail and the newline wait in its buffer until the next flush, one progress period later.  So the
watcher also reads the unfinished last line, and works out elapsed time and rate from its own
clock rather than from pan's ``t=``.

pan reports only every 10^6 stored states, which may take minutes; spin -a and gcc say
nothing at all.  So the display also shows the stage that runs (``ProgressDisplay.stage``),
with the time it has run and, for pan, the memory it holds, read from /proc: nothing is asked
of pan, which runs as fast as without us watching.

A model can print a line of this form too (printf under -DPRINTF, c_code): the display may
then show the model's numbers for a moment.  Progress is only shown, never part of a result,
which comes from pan's report block (output.py).
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, TextIO

_PROGRESS = re.compile(
    r"^Depth=\s*(\d+) States=\s*(\S+) Transitions=\s*(\S+) (?:Nodes=\s*\d+ )?Memory=\s*([0-9.]+)")


@dataclass(frozen=True)
class Progress:
    """One progress report of a running pan."""

    depth: int
    states: float
    transitions: float
    memory_mb: float
    elapsed_s: float   # since pan started, by our clock

    @property
    def rate(self) -> float:
        """Stored states per second so far."""
        return self.states / self.elapsed_s if self.elapsed_s > 0 else 0.0


def parse_progress_line(line: str, elapsed_s: float = 0.0) -> Progress | None:
    """The Progress in one (possibly unfinished) line of pan's output, or None."""
    match = _PROGRESS.match(line)
    if match is None:
        return None
    return Progress(depth=int(match.group(1)), states=float(match.group(2)),
                    transitions=float(match.group(3)), memory_mb=float(match.group(4)),
                    elapsed_s=elapsed_s)


class ProgressWatcher:
    """Fed pan's stdout chunk by chunk; calls ``on_progress`` once per progress report."""

    def __init__(self, on_progress: Callable[[Progress], None],
                 clock: Callable[[], float] = time.monotonic):
        self._on_progress = on_progress
        self._clock = clock
        self._started = clock()
        self._pending = ""              # the unfinished last line
        self._last_states: float | None = None

    def feed(self, chunk: str) -> None:
        *complete, self._pending = (self._pending + chunk).split("\n")
        # The unfinished line counts too: its tail may not come until the next report.
        for line in complete + [self._pending]:
            progress = parse_progress_line(line, self._clock() - self._started)
            # A line seen unfinished and then again complete is one report, not two.
            if progress is not None and progress.states != self._last_states:
                self._last_states = progress.states
                self._on_progress(progress)


class ProgressDisplay:
    """Shows the running stage and pan's Progress on a stream (stderr); call ``finish()`` at
    the end.

    On a terminal: one status line, rewritten in place as soon as something changes and
    every ``tick_s`` (the stage, its time, pan's latest report).  Elsewhere (logs, CI): pan's
    reports as plain lines, and a line for a stage that has run ``first_line_s`` (short runs
    stay quiet), then again every ``line_every_s`` while nothing else was printed."""

    def __init__(self, stream: TextIO | None = None, is_terminal: bool | None = None,
                 clock: Callable[[], float] = time.monotonic, tick_s: float = 1.0,
                 first_line_s: float = 2.0, line_every_s: float = 10.0):
        self._stream = stream if stream is not None else sys.stderr
        self._is_terminal = self._stream.isatty() if is_terminal is None else is_terminal
        self._clock = clock
        self._tick_s, self._first_line_s, self._line_every_s = tick_s, first_line_s, line_every_s
        self._lock = threading.RLock()   # the ticker thread writes too
        self._line_shown = False
        self._stage: str | None = None
        self._stage_started = 0.0
        self._pid: int | None = None
        self._last_progress: Progress | None = None
        self._last_line_at: float | None = None   # non-terminal: when this stage last printed
        self._stopped = threading.Event()
        self._ticker: threading.Thread | None = None

    def stage(self, name: str, pid: int | None = None) -> None:
        """A stage starts (``pid``: its process, whose memory is shown)."""
        with self._lock:
            self._stage, self._pid = name, pid
            self._stage_started = self._clock()
            self._last_progress, self._last_line_at = None, None
            if self._is_terminal:
                self._show(self._status())
            if self._ticker is None:
                self._ticker = threading.Thread(target=self._tick_until_stopped,
                                                name="topspin-progress", daemon=True)
                self._ticker.start()

    def __call__(self, progress: Progress) -> None:
        with self._lock:
            self._last_progress = progress
            if self._is_terminal:
                self._show(self._status())
            else:
                self._stream.write(format_progress(progress) + "\n")
                self._stream.flush()
                self._last_line_at = self._clock()

    def note(self, text: str) -> None:
        """A line of its own (a note, a warning); the status line comes back at the next tick."""
        with self._lock:
            self._clear()
            self._stream.write(text + "\n")
            self._stream.flush()

    def finish(self) -> None:
        """Stop the ticker and clear the status line, so that what follows starts on a clean line."""
        self._stopped.set()
        if self._ticker is not None and self._ticker is not threading.current_thread():
            self._ticker.join()
        with self._lock:
            self._clear()
            self._stage = None

    def _tick_until_stopped(self) -> None:
        while not self._stopped.wait(self._tick_s):
            with self._lock:
                self._tick()

    def _tick(self) -> None:
        if self._stage is None:
            return
        if self._is_terminal:
            self._show(self._status())
            return
        now = self._clock()
        quiet_since = self._stage_started if self._last_line_at is None else self._last_line_at
        wait = self._first_line_s if self._last_line_at is None else self._line_every_s
        if now - quiet_since >= wait:
            self._stream.write(self._status() + "\n")
            self._stream.flush()
            self._last_line_at = now

    def _status(self) -> str:
        """The stage and how long it has run; for pan its memory, or its latest report."""
        elapsed = self._clock() - self._stage_started
        if self._last_progress is not None:   # pan's latest report, and the time now
            last = self._last_progress
            return (f"pan: {_short(last.states)} states, {_short(last.transitions)} transitions, "
                    f"depth {last.depth}, {last.memory_mb:.0f} MB, {_short(last.rate)} states/s; "
                    f"{elapsed:.0f} s")
        memory = resident_mb(self._pid) if self._pid is not None else None
        held = f", {memory:.0f} MB" if memory is not None and memory >= 1 else ""
        return f"topspin-py: {self._stage}, {elapsed:.0f} s{held}"

    def _show(self, text: str) -> None:
        # \r back to column 0, \x1b[K erases what a longer previous line left behind; a line
        # wider than the terminal would wrap, and \r return only to its last row.
        width = _terminal_width(self._stream)
        self._stream.write("\r" + text[:width - 1] + "\x1b[K")
        self._stream.flush()
        self._line_shown = True

    def _clear(self) -> None:
        if self._is_terminal and self._line_shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._line_shown = False


def resident_mb(pid: int) -> float | None:
    """The memory process ``pid`` holds (its resident set), in MB; None where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/statm") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _terminal_width(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):
        return 80


def format_progress(progress: Progress) -> str:
    return (f"pan: {_short(progress.states)} states, {_short(progress.transitions)} transitions, "
            f"depth {progress.depth}, {progress.memory_mb:.0f} MB, "
            f"{_short(progress.rate)} states/s, {progress.elapsed_s:.1f} s")


def _short(value: float) -> str:
    """3 significant digits with a k/M/G suffix: 2630000 -> '2.63M'."""
    for threshold, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= threshold:
            return f"{value / threshold:.3g}{suffix}"
    return f"{value:.0f}"
