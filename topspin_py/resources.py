"""The files that ship inside the package: the Jinja templates (templates/) and the C runtime
(c_runtime/), read through importlib.resources so that they work from a wheel; and the user's
cache directory, where the compiled templates and the build cache live."""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2


def cache_directory() -> Path:
    """``$XDG_CACHE_HOME/topspin-py``, or ``~/.cache/topspin-py``."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "topspin-py"


@lru_cache(maxsize=None)
def template_environment() -> jinja2.Environment:
    """Jinja over templates/: strict about undefined names, C left as written.  (jinja2 is
    imported here, by the commands that render C, not by every user of the cache directory.)"""
    import jinja2

    templates = resources.files("topspin_py.templates")
    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: templates.joinpath(name).read_text(encoding="utf-8")),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False,
        bytecode_cache=_bytecode_cache())
    environment.filters["key_constant"] = key_constant
    return environment


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """The templates compiled to Python once, not in every run (about 0.4 s of each verify):
    Jinja's own cache, in the user's cache directory beside the builds.  Jinja keys an entry
    by the template's name and a hash of its source and checks its own and Python's version,
    so an edited template or another Python compiles again.  None where it cannot be written."""
    import jinja2

    directory = cache_directory() / "templates"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(directory))


def key_constant(label: int) -> str:
    """A 64-bit C constant for a small label number (splitmix64's finaliser): keys mix in
    constants that differ in every bit, so that labels 1 and 2 are as far apart as any."""
    x = (label * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % (1 << 64)
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) % (1 << 64)
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) % (1 << 64)
    return f"0x{x ^ (x >> 31):016X}ULL"


@lru_cache(maxsize=None)
def runtime_text(name: str) -> str:
    """A file of c_runtime/, without its trailing newlines."""
    return resources.files("topspin_py.c_runtime").joinpath(name).read_text(encoding="utf-8").rstrip("\n")
