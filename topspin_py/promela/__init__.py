"""The Promela front end: preprocessing, parsing, the AST, the printer and the Model.

Public entry points:

* ``parse_file(path, defines=()) -> ast.Spec``: preprocess like spin, then parse.
* ``parse_text(text, filename) -> ast.Spec``: parse text that is already preprocessed.
* ``print_spec(spec) -> str``: Promela text that spin accepts and that parses back to ``spec``.
* ``build_model(spec) -> Model`` / ``load_model(path, defines=()) -> Model``.  A program that
  uses the ref/public extension of Derepas and Gastin [DG01] is checked against its rules
  (extension.py) and desugared into plain Promela (desugar.py) here: the Model is the plain
  program's, with ``model.extended`` the program as written, ``model.refs`` where its refs are,
  and ``model.spin_text`` the text spin is given.  In a plain program, proctypes that are copies
  of one another up to constants acting as ids (BEEM's ``P_0``, ``P_1``, ...) are merged into
  one proctype whose constants are expressions of ``_pid`` (copies.py): the Model is the
  rewritten program's, with ``model.as_written`` the program as written, ``model.copies`` what
  was merged and what was left alone (and why), and ``model.spin_text`` the text spin is given
  (``merge=False`` keeps the copies apart: the pan.c that ``patch`` is given).

Syntax and preprocessing errors are raised as ``PromelaSyntaxError`` / ``PreprocessorError``
carrying the position in the user's file.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Model, build_model, load_model
    from .parser import parse_file, parse_text
    from .printer import print_spec

__all__ = ["parse_file", "parse_text", "print_spec", "Model", "build_model", "load_model"]

# Each entry point is imported when it is first asked for (PEP 562): a module that needs only
# a constant of one of them (pan/flags.py, the command line's help) does not pay for the parser
# (lark) and the AST.
_HOME = {"Model": "model", "build_model": "model", "load_model": "model",
         "parse_file": "parser", "parse_text": "parser", "print_spec": "printer"}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
