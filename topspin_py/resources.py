"""The files that ship inside the package: the Jinja templates (templates/) and the C runtime
(c_runtime/), read through importlib.resources so that they work from a wheel."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import jinja2


@lru_cache(maxsize=None)
def template_environment() -> jinja2.Environment:
    """Jinja over templates/: strict about undefined names, C left as written."""
    templates = resources.files("topspin_py.templates")
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: templates.joinpath(name).read_text(encoding="utf-8")),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)


@lru_cache(maxsize=None)
def runtime_text(name: str) -> str:
    """A file of c_runtime/, without its trailing newlines."""
    return resources.files("topspin_py.c_runtime").joinpath(name).read_text(encoding="utf-8").rstrip("\n")
