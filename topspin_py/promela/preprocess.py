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
from dataclasses import dataclass, field
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
    # The bytes that are not UTF-8 text, by (line, column) of `text`, where each stands as one
    # U+FFFD: a syntax error there names the byte.
    undecodable: dict[tuple[int, int], int] = field(default_factory=dict)

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
    proc = subprocess.run(command, capture_output=True)
    if proc.returncode != 0:
        raise _cpp_error(proc.stderr.decode("utf-8", errors="replace"), path)
    return split_line_markers(proc.stdout.decode("utf-8", errors="surrogateescape"), str(path))


# gcc -dU: "#define NAME ..." or "#undef NAME" where a macro is first used (expanded or tested)
_USED_MACRO = re.compile(r"^#(?:define|undef)\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)


def macros_used(path: str | Path, defines: tuple[str, ...] | list[str] = (),
                cpp_flags: tuple[str, ...] = ()) -> set[str]:
    """The macros whose definition preprocessing ``path`` as spin does asks for: those it expands,
    or tests with #ifdef, #ifndef, #if or defined() (gcc -dU lists each where it is first used).
    A -D the model needs is among them; one that is not changes nothing in it."""
    path = Path(path)
    command = CPP_COMMAND + ["-dU"] + define_flags(defines) + list(cpp_flags) + [str(path)]
    proc = subprocess.run(command, capture_output=True)
    if proc.returncode != 0:
        raise _cpp_error(proc.stderr.decode("utf-8", errors="replace"), path)
    return set(_USED_MACRO.findall(proc.stdout.decode("utf-8", errors="replace")))


def split_line_markers(output: str, main_file: str) -> Preprocessed:
    """Replace cpp's line markers by blank lines, recording each line's origin.

    ``output`` is cpp's output decoded with ``surrogateescape``: each byte that is not UTF-8
    becomes one U+FFFD in the text (so that no lone surrogate reaches the AST, and through it
    a terminal or a file), and is kept in ``undecodable``."""
    lines = output.split("\n")
    origins: list[tuple[str, int]] = []
    text_lines: list[str] = []
    undecodable: dict[tuple[int, int], int] = {}
    current_file, current_line = main_file, 1
    for number, raw in enumerate(lines, start=1):
        marker = _LINE_MARKER.match(raw)
        if marker:
            current_line = int(marker.group(1))
            name = _marker_file_name(marker.group(2))
            current_file = main_file if name == main_file else name
            # A marker line becomes blank text so that line numbers stay aligned.
            origins.append((current_file, max(current_line - 1, 1)))
            text_lines.append("")
            continue
        origins.append((current_file, current_line))
        for found in _ESCAPED_BYTE.finditer(raw):
            undecodable[number, found.start() + 1] = ord(found[0]) - 0xDC00
        text_lines.append(_ESCAPED_BYTE.sub("\ufffd", raw))
        current_line += 1
    return Preprocessed("\n".join(text_lines), origins, undecodable)


# What surrogateescape makes of a byte that is not UTF-8 (0x80 to 0xFF: U+DC80 to U+DCFF).
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def _marker_file_name(quoted: str) -> str:
    """The file name in a line marker: gcc writes its bytes as C escapes (a UTF-8 name's bytes
    as octal), so the escapes are undone on bytes, and the bytes read as paths are."""
    raw = quoted.encode("utf-8", errors="surrogateescape").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", errors="surrogateescape")


def _cpp_error(stderr: str, path: Path) -> PreprocessorError:
    if _looks_binary(path):
        hint = f"'{path}' does not look like a text file: is it a Promela model?"
    else:
        hint = "spin runs the model through the C preprocessor (gcc -E) first; fix what it names"
    match = _GCC_DIAGNOSTIC.search(stderr)
    if match:
        pos = SourcePos(match.group("file"), int(match.group("line")), int(match.group("col") or 0))
        return PreprocessorError(f"preprocessor: {match.group('msg')}", pos, hint=hint)
    return PreprocessorError(f"the C preprocessor failed on '{path}'", detail=stderr.strip(), hint=hint)


def _looks_binary(path: Path) -> bool:
    """Whether the start of ``path`` holds a NUL byte, or more than one byte in ten that is
    neither UTF-8 text nor white space: what cpp stopped at is then no directive to fix."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(4096)
    except OSError:
        return False
    if b"\0" in start:
        return True
    text = start.decode("utf-8", errors="replace")
    odd = sum(1 for c in text if c == "\ufffd" or (not c.isprintable() and c not in "\t\n\r\f\v"))
    return odd * 10 > len(text)
