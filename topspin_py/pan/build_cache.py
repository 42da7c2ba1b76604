"""The build cache: a compiled pan is reused when nothing that made it has changed.

A SPIN user runs a model many times an hour, and gcc on pan.c is most of a small run's time.
A build is keyed by everything the compiler reads and does:

* every file the compile reads from the work directory (pan.c as spliced, pan.h, pan.t, pan.m,
  pan.b, pan.p, the canonicaliser topspin_sym.c and .h): found by following pan.c's
  ``#include "..."`` lines, and hashed byte for byte.  The model, its defines, the claim, the
  strategy and the group all reach the binary only through these files, so any change to them
  changes the key;
* the whole compile command: the compiler ($CC), the optimisation level, every -D flag,
  $CFLAGS and the output's name;
* the compiler itself: its ``--version`` banner and the size and time of its executable, and the
  environment variables that change what gcc reads (CPATH, C_INCLUDE_PATH, ...);
* the versions of spin and of topspin-py, and a hash of topspin-py's own files (an edited
  checkout is another topspin-py).

A build that reads a file the key cannot follow (an ``#include`` of the model's C code that is
not in the work directory, ``-I`` in $CFLAGS, an include the preprocessor computes) is not
cached; the caller is told why.  An entry holds the binary and the compiler's output (so that
SPIN's #warnings are shown again on reuse).  Entries are written whole (a temporary directory
renamed into place: two runs storing one key leave one good entry) and the least recently used
are removed when the cache outgrows its bound.

The cache lives in ``$XDG_CACHE_HOME/topspin-py/builds`` (``~/.cache/topspin-py`` when unset),
as the XDG base directory specification asks; ``--no-cache`` bypasses it.  (Jinja's compiled
templates are kept beside it, in ``templates``: resources.py.)
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from topspin_py import __version__
from topspin_py.resources import cache_directory

FORMAT = "1"                          # bumped when what an entry holds changes
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
BINARY, COMPILER_OUTPUT = "pan", "compiler-output.txt"
PACKAGE = Path(__file__).resolve().parent.parent       # topspin_py/
# What changes the files gcc reads or the programs it runs, besides its command line.
_COMPILER_ENVIRONMENT = ("CPATH", "C_INCLUDE_PATH", "GCC_EXEC_PREFIX", "COMPILER_PATH",
                         "LIBRARY_PATH", "LD_LIBRARY_PATH", "GCC_COMPARE_DEBUG", "PATH")
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(.*?)[ \t]*$', re.M)


class Uncacheable(Exception):
    """This build reads something the key cannot account for."""


@dataclass(frozen=True)
class CacheEntry:
    """One key's place in the cache, and the cache's bound (what storing it may evict)."""

    path: Path
    max_bytes: int = DEFAULT_MAX_BYTES

    def fetch(self, binary: Path) -> str | None:
        """Copy the cached binary to ``binary``; the compiler's output then, or None on a miss."""
        try:
            output = (self.path / COMPILER_OUTPUT).read_text(errors="replace")
            shutil.copy2(self.path / BINARY, binary)
            os.utime(self.path)          # recently used: evicted last
        except OSError:
            return None
        return output

    def store(self, binary: Path, compiler_output: str) -> None:
        """Keep ``binary`` and the compiler's output under this key (a cache that cannot be
        written is no error: the run goes on uncached)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=".new-", dir=self.path.parent))
            shutil.copy2(binary, staging / BINARY)
            (staging / COMPILER_OUTPUT).write_text(compiler_output)
            try:
                staging.rename(self.path)
            except OSError:                  # another run stored it first
                shutil.rmtree(staging, ignore_errors=True)
            _evict(self.path.parent, self.max_bytes, keep=self.path)
        except OSError:
            pass


@dataclass(frozen=True)
class BuildCache:
    directory: Path
    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def default(cls) -> BuildCache:
        return cls(cache_directory() / "builds")

    def entry(self, command: list[str], workdir: Path, spin_version: str) -> CacheEntry:
        """The entry of compiling in ``workdir`` with ``command``; raises Uncacheable."""
        for flag in command:
            if flag.startswith(("-I", "-include", "-imacros", "-iquote", "-isystem", "-idirafter", "@",
                                "-B", "-L", "--sysroot", "-specs", "-fplugin")):
                raise Uncacheable(f"the compile command has {flag}, which may read files the cache "
                                  "does not follow")
        digest = hashlib.sha256()

        def add(label: str, value: str | bytes) -> None:
            data = value.encode() if isinstance(value, str) else value
            digest.update(f"{label}\0{len(data)}\0".encode())
            digest.update(data)

        add("format", FORMAT)
        add("topspin-py", f"{__version__} {package_fingerprint()}")
        add("spin", spin_version)
        add("command", "\0".join(command))
        add("compiler", compiler_identity(command[0]))
        for name in _COMPILER_ENVIRONMENT:
            add(f"environment {name}", os.environ.get(name, "\0unset"))
        for name, data in sorted(files_read(workdir, command).items()):
            add(f"file {name}", b"\0absent" if data is None else data)
        return CacheEntry(self.directory / digest.hexdigest()[:40], self.max_bytes)


def files_read(workdir: Path, command: list[str]) -> dict[str, bytes | None]:
    """What ``command`` may read compiling its source (the last word, in ``workdir``): the
    source and every ``#include "name"`` from it, followed through the files included, with an
    include through a macro (SPIN's ``#include TRANSITIONS``) followed to the file its
    ``#define`` names.  A file that is not there maps to None: its absence is part of the key
    too (pan.c's ``#include "mystep.c"`` under ``#ifdef MYSTEP`` is reached only with that
    flag, which is in the key, and then fails).  System headers, in angle brackets, belong to
    the compiler.  Raises Uncacheable for an include the cache cannot follow."""
    found: dict[str, bytes | None] = {}
    pending = [workdir / command[-1]]
    names_via_macro: set[str] = set()
    while pending:
        path = pending.pop()
        if str(path) in found:
            continue
        found[str(path)] = data = path.read_bytes() if path.is_file() else None
        for argument in _INCLUDE.findall(data.decode("latin-1")) if data is not None else ():
            if argument.startswith("<") and argument.endswith(">"):
                continue
            if argument.startswith('"') and argument.endswith('"') and len(argument) > 2:
                pending.append(path.parent / argument[1:-1])    # beside the file that includes it
            elif re.fullmatch(r"[A-Za-z_]\w*", argument):
                names_via_macro.add(argument)
            else:
                raise Uncacheable(f"pan's sources have #include {argument}, which the cache does not follow")
        if not pending:
            # the macros' files, as the sources define them (a define may come from a file
            # that a macro's include brings in, hence the loop)
            text = "\n".join(data.decode("latin-1") for data in found.values() if data is not None)
            for macro in sorted(names_via_macro):
                given = [flag for flag in command if flag.startswith("-D") and flag[2:].split("=")[0] == macro]
                named = re.findall(rf'^[ \t]*#[ \t]*define[ \t]+{macro}[ \t]+"([^"]+)"', text, re.M)
                for flag in given:       # -DTOPSPIN_SYM_FILE="lasso.c"
                    quoted = re.fullmatch(r'-D\w+="([^"/]+)"', flag)
                    if quoted is None:
                        raise Uncacheable(f"{flag} names what pan's sources #include, which the cache "
                                          "does not follow")
                    named.append(quoted.group(1))
                pending += [workdir / file for file in named if str(workdir / file) not in found]
    return {(os.path.relpath(name, workdir) if name.startswith(str(workdir) + os.sep) else name): data
            for name, data in found.items()}


@lru_cache(maxsize=None)
def package_fingerprint(root: Path = PACKAGE) -> str:
    """A hash of topspin-py's own files (its Python under ``root``, and the templates and C
    runtime it renders and includes, wherever the install keeps them): an edited checkout has
    the version of the release it started from, and must not reuse that release's builds."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    for package in ("topspin_py.templates", "topspin_py.c_runtime"):
        pending = [resources.files(package)]
        while pending:
            folder = pending.pop()
            for item in sorted(folder.iterdir(), key=lambda item: item.name):
                if item.is_dir():
                    pending.append(item)
                elif item.is_file():
                    digest.update(f"{package}/{item.name}".encode() + b"\0" + item.read_bytes())
    return digest.hexdigest()[:16]


@lru_cache(maxsize=None)
def compiler_identity(compiler: str) -> str:
    """The compiler as the key sees it: its banner, and its executable's size and time (a
    compiler upgraded in place, or a different one first on PATH, is another compiler)."""
    executable = shutil.which(compiler)
    if executable is None:
        raise Uncacheable(f"the compiler '{compiler}' is not on PATH")
    real = os.path.realpath(executable)
    stat = os.stat(real)
    try:
        banner = subprocess.run([executable, "--version"], capture_output=True, text=True,
                                timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as err:
        raise Uncacheable(f"cannot run '{compiler} --version': {err}") from err
    return f"{real} {stat.st_size} {stat.st_mtime_ns}\n{banner}"


def _evict(directory: Path, max_bytes: int, keep: Path) -> None:
    """Remove the least recently used entries until the cache is within ``max_bytes``."""
    entries = []
    for path in directory.iterdir():
        if path.is_dir() and not path.name.startswith("."):
            try:
                size = sum(item.stat().st_size for item in path.iterdir())
                entries.append((path.stat().st_mtime, size, path))
            except OSError:
                continue
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= max_bytes:
            break
        if path != keep:
            shutil.rmtree(path, ignore_errors=True)
            total -= size
