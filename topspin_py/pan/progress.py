"""Live progress of a running pan: read its progress lines, show them to the user.

Every 10^6 stored states pan prints
``Depth=   99999 States=    1e+06 Transitions= 2.63e+06 Memory=   179.239\tt=     0.87 R=   1e+06``.
When stdout is a pipe, pan flushes only the part up to ``Memory=`` at once; the ``t= ... R=``
tail and the newline wait in its buffer until the next flush, one progress period later.  So the
watcher also reads the unfinished last line, and works out elapsed time and rate from its own
clock rather than from pan's ``t=``.
"""

from __future__ import annotations

import re
import sys
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
    """Shows Progress on a stream (stderr): one line rewritten in place on a terminal,
    plain lines otherwise (logs, CI).  Call ``finish()`` when pan is done."""

    def __init__(self, stream: TextIO | None = None, is_terminal: bool | None = None):
        self._stream = stream if stream is not None else sys.stderr
        self._is_terminal = self._stream.isatty() if is_terminal is None else is_terminal
        self._line_shown = False

    def __call__(self, progress: Progress) -> None:
        text = format_progress(progress)
        if self._is_terminal:
            # \r back to column 0, \x1b[K erases what a longer previous line left behind.
            self._stream.write("\r" + text + "\x1b[K")
            self._line_shown = True
        else:
            self._stream.write(text + "\n")
        self._stream.flush()

    def finish(self) -> None:
        """Clear the updating line so that what follows starts on a clean line."""
        if self._is_terminal and self._line_shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._line_shown = False


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
