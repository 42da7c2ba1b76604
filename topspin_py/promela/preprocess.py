"""Preprocessing the way spin does it.

spin 6.5.2 runs the model through ``gcc -std=gnu99 -E -x c`` (the string is compiled into the
spin binary) with the user's ``-D``/``-U``/``-I`` options, so ``#define`` with arguments,
``#include``, ``#if`` and also gcc's predefined macros (``unix``, ``linux``) behave exactly as
they do for spin.  We run the same command and keep gcc's line markers to map every line of
the output back to the file and line it came from.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import PreprocessorError, SourcePos, ToolchainError

CPP_COMMAND = ["gcc", "-std=gnu99", "-E", "-x", "c"]

_LINE_MARKER = re.compile(r'^#\s*(\d+)\s+"((?:\\.|[^"\\])*)"')
_GCC_DIAGNOSTIC = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?:fatal )?error:\s*(?P<msg>.*)$",
                             re.MULTILINE)


@dataclass
class Preprocessed:
    """Preprocessed text, with the origin (file, line) of each of its lines."""

    text: str
    origins: list[tuple[str, int]]  # index i: where line i+1 of `text` came from

    def position(self, line: int, column: int = 0) -> SourcePos:
        if 1 <= line <= len(self.origins):
            file, source_line = self.origins[line - 1]
            return SourcePos(file, source_line, column)
        file = self.origins[-1][0] if self.origins else "<model>"
        return SourcePos(file, line, column)


def define_flags(defines: tuple[str, ...] | list[str]) -> list[str]:
    """`-D` options for cpp from NAME or NAME=VALUE strings (a leading -D is accepted)."""
    flags = []
    for item in defines:
        item = item[2:] if item.startswith("-D") else item
        flags.append("-D" + item)
    return flags


def preprocess(path: str | Path, defines: tuple[str, ...] | list[str] = (),
               cpp_flags: tuple[str, ...] = ()) -> Preprocessed:
    """Run the model through cpp as spin does, keeping the line origins.  ``cpp_flags``: what
    spin's ``-E<flag>`` hands to its preprocessor (include directories, ``-I/dir``)."""
    path = Path(path)
    if not path.is_file():
        raise PreprocessorError(f"cannot read model file '{path}'", hint="check the path")
    if shutil.which(CPP_COMMAND[0]) is None:
        raise ToolchainError("gcc is not installed; spin needs it to preprocess models",
                             hint="install it with `apt-get install gcc` (or run `make demo`)")
    command = CPP_COMMAND + define_flags(defines) + list(cpp_flags) + [str(path)]
    # Models are bytes to spin: a Latin-1 comment or binary garbage must reach the parser
    # (which reports what it cannot read at its position), not stop the decoding.
    proc = subprocess.run(command, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        raise _cpp_error(proc.stderr, path)
    return split_line_markers(proc.stdout, str(path))


def split_line_markers(output: str, main_file: str) -> Preprocessed:
    """Replace cpp's line markers by blank lines, recording each line's origin."""
    lines = output.split("\n")
    origins: list[tuple[str, int]] = []
    text_lines: list[str] = []
    current_file, current_line = main_file, 1
    for raw in lines:
        marker = _LINE_MARKER.match(raw)
        if marker:
            current_line = int(marker.group(1))
            name = marker.group(2).encode().decode("unicode_escape")
            current_file = main_file if name == main_file else name
            # A marker line becomes blank text so that line numbers stay aligned.
            origins.append((current_file, max(current_line - 1, 1)))
            text_lines.append("")
            continue
        origins.append((current_file, current_line))
        text_lines.append(raw)
        current_line += 1
    return Preprocessed("\n".join(text_lines), origins)


def _cpp_error(stderr: str, path: Path) -> PreprocessorError:
    match = _GCC_DIAGNOSTIC.search(stderr)
    if match:
        pos = SourcePos(match.group("file"), int(match.group("line")), int(match.group("col") or 0))
        return PreprocessorError(f"preprocessor: {match.group('msg')}", pos,
                                 hint="spin preprocesses models with the C preprocessor; fix the directive")
    return PreprocessorError(f"the C preprocessor failed on '{path}'", detail=stderr.strip())
