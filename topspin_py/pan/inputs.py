"""What a ``spin -a`` run was given, and the record ``generate`` keeps of it.

The inputs are the model (its path, and a hash of its file and of every file its preprocessing
read: what it ``#include``s), the program the preprocessor made of them (a hash, blank lines and
spacing aside), the ``-D`` defines, spin's own options and spin's version.

``generate -o DIR`` writes them into DIR's mark file (RECORD, JSON), with the strategy and
topspin-py's version, once the directory is complete.  Who reads the record back:

* ``generate`` run again over DIR says what changed since (the model or an include edited,
  other defines or options) before it writes DIR again;
* ``patch DIR/pan.c`` says it when pan.c is not what spin writes now: "DIR was generated from
  m.pml with -DN=3; since then m.pml was edited".

The record explains, it proves nothing (files can change after it was written, a record can be
edited): what decides whether patch goes on is the comparison of pan.c with what spin -a
writes now (provenance.py).
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from topspin_py.promela.preprocess import preprocess

if TYPE_CHECKING:   # (pan.flags imports the parser, which the command line's help does not need)
    from topspin_py.pan.flags import SpinOptions

RECORD = ".topspin-py-generate"       # in a directory generate wrote
_FORMAT = "topspin-py generate record 1"


@dataclass(frozen=True)
class SpinInputs:
    """What one spin -a was given (see the module doc)."""

    model: str                               # the model's absolute path
    files: tuple[tuple[str, str], ...]       # (absolute path, sha256): the model, its includes,
                                             # a claim (-N) or formula (-F) file
    program: str                             # sha256 of the preprocessed program
    defines: tuple[str, ...]
    spin_options: tuple[str, ...]            # as the user gave them
    spin_version: str

    def as_json(self) -> dict:
        return {"model": self.model, "files": dict(self.files), "preprocessed program": self.program,
                "defines": list(self.defines), "spin options": list(self.spin_options),
                "spin version": self.spin_version}

    @classmethod
    def from_json(cls, data: object) -> SpinInputs | None:
        """The inputs a record holds; None when it holds none that can be read."""
        if not isinstance(data, dict):
            return None
        try:
            files = data["files"]
            if not isinstance(files, dict):
                return None
            return cls(str(data["model"]), tuple((str(k), str(v)) for k, v in files.items()),
                       str(data["preprocessed program"]), tuple(map(str, data["defines"])),
                       tuple(map(str, data["spin options"])), str(data["spin version"]))
        except (KeyError, TypeError):
            return None

    def changes_since(self, recorded: SpinInputs) -> list[str]:
        """What differs from the ``recorded`` inputs, one phrase each; empty if nothing does."""
        changes = []
        if recorded.model != self.model:
            changes.append(f"the model was {recorded.model}, now {self.model}")
        now = dict(self.files)
        for path, digest in recorded.files:
            if path not in now:
                gone = not Path(path).is_file()
                changes.append(f"{path} {'is gone' if gone else 'is no longer read'}")
            elif now[path] != digest:
                changes.append(f"{path} was edited")
        before = dict(recorded.files)
        changes += [f"{path} is read now (an #include added?)" for path, _ in self.files if path not in before]
        if recorded.defines != self.defines:
            changes.append(f"the -D defines were {_shown(recorded.defines, '-D')}, now {_shown(self.defines, '-D')}")
        if recorded.spin_options != self.spin_options:
            changes.append(f"spin's options were {_shown(recorded.spin_options)}, now {_shown(self.spin_options)}")
        if recorded.program != self.program and not changes:
            changes.append("the preprocessed program differs (the C preprocessor or its environment changed?)")
        if recorded.spin_version != self.spin_version:
            changes.append(f"spin was version {recorded.spin_version}, now {self.spin_version}")
        return changes


def spin_inputs(model: Path, defines: list[str] | tuple[str, ...], options: SpinOptions,
                spin_version: str) -> SpinInputs:
    """The inputs of ``spin [-D...] [options] -a model``, read now."""
    preprocessed = preprocess(model, tuple(defines), options.cpp_flags)
    read = [model.resolve()]
    for name, _ in preprocessed.origins:
        path = Path(name)
        # cpp's own entries (<built-in>, <command-line>) are no files; relative names are
        # relative to where the preprocessor ran, here.
        if not name.startswith("<") and path.is_file() and path.resolve() not in read:
            read.append(path.resolve())
    if options.claim_file is not None:
        read.append(options.claim_file)
    if options.formula_args[:1] == ("-F",):
        read.append(Path(options.formula_args[1]))
    files = tuple((str(path), _digest(path.read_bytes())) for path in read)
    program = "\n".join(" ".join(line.split()) for line in preprocessed.text.splitlines() if line.strip())
    return SpinInputs(str(model.resolve()), files, _digest(program.encode("utf-8", "surrogateescape")),
                      tuple(defines), options.shown, spin_version)


@dataclass(frozen=True)
class GenerateRecord:
    """What generate wrote a directory from."""

    inputs: SpinInputs
    strategy: str          # the strategy of the canonicaliser (auto's choice, if auto)
    version: str           # topspin-py's

    def command(self, directory: Path) -> str:
        """The generate command that writes ``directory`` as the record says (for messages)."""
        return generate_command(self.inputs.model, directory, self.inputs.defines, self.inputs.spin_options)


def generate_command(model: str | Path, directory: Path, defines: tuple[str, ...] | list[str],
                     spin_options: tuple[str, ...]) -> str:
    """``topspin-py generate MODEL -o DIR -D... --spin '...'``, as a user types it."""
    words = ["topspin-py", "generate", str(model), "-o", str(directory), *(f"-D{d}" for d in defines)]
    if spin_options:
        words += ["--spin", shlex.join(spin_options)]
    return shlex.join(words)


def write_record(directory: Path, record: GenerateRecord | None) -> None:
    """Mark ``directory`` as generate's, with what it was generated from (None: not yet
    complete, only marked)."""
    data: dict = {"format": _FORMAT,
                  "note": "written by `topspin-py generate`: generate writes this directory again when "
                          "run again (spin's pan.* and the canonicaliser; other files stay)"}
    if record is not None:
        data |= {"topspin-py": record.version, "strategy": record.strategy, "inputs": record.inputs.as_json()}
    (directory / RECORD).write_text(json.dumps(data, indent=2) + "\n")


def read_record(directory: Path) -> GenerateRecord | None:
    """The record of a directory generate wrote completely; None for any other directory (or
    one an older topspin-py marked, without a record)."""
    try:
        data = json.loads((directory / RECORD).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return None
    inputs = SpinInputs.from_json(data.get("inputs"))
    if inputs is None:
        return None
    return GenerateRecord(inputs, str(data.get("strategy", "")), str(data.get("topspin-py", "")))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _shown(words: tuple[str, ...], prefix: str = "") -> str:
    return " ".join(prefix + word for word in words) if words else "none"
