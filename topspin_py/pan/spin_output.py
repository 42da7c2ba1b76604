"""What ``spin -a`` writes, compared as a program: file names and line numbers aside.

``spin -a`` writes pan.c, pan.h, pan.m, pan.b, pan.t and pan.p.  Two runs of spin on the same
program give the same files except where spin writes where the program came from, which it
writes only to print messages:

* the file name: ``PanSource`` (pan.h), the ``From source`` banner, the ``src_fileN`` tables
  (which file each state's line is in), the ``// STATE 3 - m.pml:5 - [...]`` comments in pan.m
  and pan.b, ``/* m.pml:5 */`` comments, and ``tr_2_src(...)`` calls;
* the line numbers: the ``src_lnN`` tables (the line of each state, read only to report
  unreached code and errors, and copied for those reports in retrans/crack), the line numbers
  in those comments, in d_step names (``D_STEP78``), in ``mark-down line N`` and in error
  texts (``near line 49``).

Everything the search runs on is kept as spin wrote it: the state vector's layout (pan.h), the
transition tables (pan.t), the transitions' code (pan.m, pan.b), the claims spin translated
from ltl formulas.  So two directories whose files are equal here hold the same pan, whatever
it is compiled with: a model copied elsewhere, spin run from another directory, comments or
blank lines added to the model.  tests/oracles/test_corpus_compat.py checks this on the corpus (the
printed text of each model gives the same files as the original), and that one changed
constant shows.

Lines are compared one by one, each keeping its line number in its own file, so that a
difference is reported at the line of the user's file where it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

# Every file spin -a writes (spin 6.5.2 writes all six for every model; pan.c includes them).
SPIN_OUTPUTS = ("pan.c", "pan.h", "pan.m", "pan.b", "pan.t", "pan.p")

# Stands for the lines a multi-line table took, so that the lines after it keep their numbers;
# dropped before lines are compared.  (pan.c holds no NUL byte.)
_FOLDED = "\0"

_Replacement = str | Callable[[re.Match[str]], str]

# What spin writes only for pan's messages (see the module doc).  A path may hold blanks, so a
# file name is matched up to the ":LINE" that ends it.
_PRESENTATION: list[tuple[re.Pattern[str], _Replacement]] = [
    (re.compile(r"(short src_ln\d+ \[\] = \{)(.*?)(\};)", re.S),
     lambda m: f"{m[1]} {m[2].count(',')} entries {m[3]}"),
    (re.compile(r"(S_F_MAP src_file\d+ \[\] = \{)(.*?)(\};)", re.S), lambda m: m[1] + m[3]),
    (re.compile(r'#define PanSource\t".*"'), "#define PanSource FILE"),
    (re.compile(r"/\*\*\* From source: .* \*\*\*/"), "/*** From source: FILE ***/"),
    (re.compile(r"(// STATE \d+ - ).+?:\d+( - )"), r"\1FILE:LINE\2"),
    (re.compile(r"/\* (?:[^*\n]|\*(?!/))+?:\d+ \*/"), "/* FILE:LINE */"),
    (re.compile(r'tr_2_src\((\d+), "[^"]*", \d+\)'), r"tr_2_src(\1, FILE, LINE)"),
    (re.compile(r"D_STEP\d+"), "D_STEP"),
    (re.compile(r"mark-down line \d+"), "mark-down line LINE"),
    (re.compile(r"near line \d+"), "near line LINE"),
]


def _keeping_lines(replacement: _Replacement) -> Callable[[re.Match[str]], str]:
    """``replacement``, followed by one folded line for each line break the match spanned."""
    def replace(match: re.Match[str]) -> str:
        text = replacement(match) if callable(replacement) else match.expand(replacement)
        return text + f"\n{_FOLDED}" * match[0].count("\n")
    return replace


def program_lines(text: str) -> list[tuple[int, str]]:
    """The lines of one file spin wrote, without file names and line numbers, each with its
    line number in ``text`` (a table spin spread over several lines is one line, at its
    first)."""
    for pattern, replacement in _PRESENTATION:
        text = pattern.sub(_keeping_lines(replacement), text)
    return [(number, line) for number, line in enumerate(text.split("\n"), 1) if line != _FOLDED]


def program_text(text: str) -> str:
    """One file spin wrote, without file names and line numbers, as one string."""
    return "\n".join(line for _, line in program_lines(text))


def read_outputs(directory: Path, pan_c_text: str | None = None) -> dict[str, str | None]:
    """The files spin -a writes, as found in ``directory`` (None: missing).  ``pan_c_text``:
    SPIN's pan.c, when the file named pan.c there is not (patch keeps it as pan.c.orig)."""
    found: dict[str, str | None] = {}
    for name in SPIN_OUTPUTS:
        if name == "pan.c" and pan_c_text is not None:
            found[name] = pan_c_text
            continue
        path = directory / name
        found[name] = path.read_text(encoding="latin-1") if path.is_file() else None
    return found


@dataclass(frozen=True)
class Difference:
    """Where the files of a pan first differ from those spin writes now: the file, and the
    line of the given file (None when it is missing), with the two lines as they stand in
    their files (file names and line numbers in them)."""

    file: str
    line: int | None
    given: str | None        # the given file's line (None: missing, or it ends first)
    written: str | None      # spin's line (None: spin's file ends first)

    def describe(self) -> str:
        if self.line is None:
            return f"{self.file} is missing (spin -a writes it, and pan.c includes it)"
        return f"{self.file} line {self.line} is {_shown(self.given)}, where spin writes {_shown(self.written)}"


def first_difference(given: Mapping[str, str | None], written: Mapping[str, str | None]) -> Difference | None:
    """The first line, in SPIN_OUTPUTS order, where ``given`` (a pan's files) differs from
    ``written`` (what spin -a writes), file names and line numbers aside; None if none does."""
    for name in SPIN_OUTPUTS:
        ours, theirs = given.get(name), written.get(name)
        if ours is None and theirs is None:
            continue
        if ours is None:
            return Difference(name, None, None, None)
        ours_lines = program_lines(ours)
        theirs_lines = program_lines(theirs) if theirs is not None else []
        for index in range(max(len(ours_lines), len(theirs_lines))):
            mine = ours_lines[index] if index < len(ours_lines) else None
            other = theirs_lines[index] if index < len(theirs_lines) else None
            if mine is not None and other is not None and mine[1] == other[1]:
                continue
            line = mine[0] if mine is not None else (ours_lines[-1][0] + 1 if ours_lines else 1)
            return Difference(name, line, _raw(ours, mine), _raw(theirs, other))
    return None


def _raw(text: str | None, numbered: tuple[int, str] | None) -> str | None:
    """The line of ``text`` that ``numbered`` (from program_lines) stands for, as written."""
    if text is None or numbered is None:
        return None
    return text.split("\n")[numbered[0] - 1]


def _shown(line: str | None) -> str:
    if line is None:
        return "the file's end"
    text = " ".join(line.split())
    return f"`{text[:157] + '...' if len(text) > 160 else text}`"
