"""User-facing errors.

Every failure the user can cause or fix is a ``TopspinError``: it carries a message, a source
position where there is one, and a hint saying what to do.  The CLI prints them as
``file:line:col: error: message`` (plus the offending line and the hint) and exits with status 2;
no Python traceback reaches the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SourcePos:
    """A position in a source file; line and column are 1-based, as editors show them."""

    file: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        if self.line <= 0:   # the file as a whole (a file that is missing, say)
            return self.file
        return f"{self.file}:{self.line}:{self.column}" if self.column else f"{self.file}:{self.line}"


class TopspinError(Exception):
    """An error the user can act on."""

    def __init__(self, message: str, pos: SourcePos | None = None, hint: str | None = None,
                 detail: str | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint
        self.detail = detail  # extra text shown verbatim (e.g. spin's or gcc's own message)

    def render(self) -> str:
        """The text the CLI prints: position, message, the offending source line, hint."""
        where = f"{self.pos}: " if self.pos else ""
        lines = [f"{where}error: {self.message}"]
        source_line = _source_line(self.pos)
        if self.pos is not None and source_line is not None:  # a line is only found at a position
            lines.append("    " + source_line.rstrip("\n").expandtabs(4))
            if self.pos.column:
                prefix = source_line[: self.pos.column - 1].expandtabs(4)
                lines.append("    " + " " * len(prefix) + "^")
        if self.detail:
            lines.append(self.detail.rstrip())
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return _printable("\n".join(lines))


class PromelaSyntaxError(TopspinError):
    """The model does not parse."""


class PreprocessorError(TopspinError):
    """The C preprocessor rejected the model (bad #include, #if, ...)."""


class ModelError(TopspinError):
    """The model parses but is not a valid SPIN model (as we or spin see it)."""


class ToolchainError(TopspinError):
    """spin, gcc or pan is missing or failed."""


class UsageError(TopspinError):
    """Bad command-line use."""


def _source_line(pos: SourcePos | None) -> str | None:
    if pos is None or pos.line <= 0:
        return None
    try:
        with open(Path(pos.file), encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, start=1):
                if number == pos.line:
                    return text
    except OSError:
        return None
    return None


def _printable(text: str) -> str:
    """``text`` with control characters (from a binary file shown as source) replaced by
    U+FFFD, one for one so that the caret under a source line stays in its column: they must
    not reach the terminal, which would obey them."""
    return "".join(c if c.isprintable() or c in "\n\t" else "\ufffd" for c in text)
