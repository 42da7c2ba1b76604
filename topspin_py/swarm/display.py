"""A swarm's live progress on a terminal: one status line, rewritten as jobs finish (jobs done,
states stored, errors, time), with notes printed above it on lines of their own."""

from __future__ import annotations

import threading
from typing import TextIO

from topspin_py.swarm.run import SwarmProgress


class SwarmDisplay:
    def __init__(self, stream: TextIO):
        self._stream = stream
        self._lock = threading.Lock()   # notes come from gcc's threads too (build.py)
        self._line = ""

    def stage(self, name: str, pid: int | None = None) -> None:
        self._show(f"topspin-py: {name}")

    def progress(self, progress: SwarmProgress) -> None:
        self._show(f"swarm: {progress.finished}/{progress.jobs} jobs done, {progress.states:,} states stored, "
                   f"{progress.errors} with errors, {progress.elapsed_s:.0f} s")

    def note(self, text: str) -> None:
        with self._lock:
            self._clear()
            self._stream.write(text + "\n")
            self._stream.write(self._line)
            self._stream.flush()

    def finish(self) -> None:
        with self._lock:
            self._clear()
            self._line = ""
            self._stream.flush()

    def _show(self, line: str) -> None:
        with self._lock:
            self._clear()
            self._line = line
            self._stream.write(line)
            self._stream.flush()

    def _clear(self) -> None:
        if self._line:
            self._stream.write("\r\x1b[K")
