"""Which flags go to spin, gcc and pan.

A SPIN user tunes pan in two places: compile-time ``-D`` macros (``-DNOREDUCE``, ``-DSAFETY``,
``-DVECTORSZ=N``, ``-DMEMLIM=N``, ...) and run-time arguments (``-m``, ``-w``, ``-a``, ``-c0``, ...).
We take the user's ``-D`` defines once and hand the same list to spin's preprocessor and to gcc,
the way a SPIN user passes them, so a model's ``#if`` and pan's own switches see the same values.

The one flag we add ourselves is ``-DSAFETY``, by this rule:

    add -DSAFETY  iff  the model has no never claim and no ltl formula (as pan.h says),
                       the pan arguments ask for no cycle search (-a, -l, -f),
                       and the defines contain neither NP (the non-progress claim) nor SAFETY.

Why: without a claim and without -a/-l/-f pan runs a plain safety search anyway, and -DSAFETY
drops the nested-DFS machinery (smaller state header, less memory, faster); the state counts
are the same.  It is also the setting of every published baseline we compare with.  With a claim
or a cycle search -DSAFETY would be wrong (``pan -a`` under SAFETY only prints its usage), so
we leave it out and say so with --verbose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from topspin_py.errors import UsageError

DEFAULT_DEPTH_LIMIT = 10_000          # pan's own default for -m
# spin hands the defines to its preprocessor through a shell command line, unquoted: a value
# holding blanks, quotes, parentheses, ... would break that command (`sh: Syntax error: "("`),
# so values are limited to characters the shell takes literally.
_DEFINE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.,:+/@%^-]*)?$")
# pan.h declares the claims only when the model has a never claim or ltl formulas:
#   #ifndef NOCLAIM
#       #define NCLAIMS 4
# (a later "#ifndef NCLAIMS / #define NCLAIMS 1" fallback is present in every pan.h).
_CLAIM_IN_PAN_H = re.compile(r"#ifndef NOCLAIM\s*\n\s*#define NCLAIMS\s+\d+")
# pan reads only the letter after the dash, so "-a", "-l", "-f" may carry anything after it.
_CYCLE_SEARCH_ARGS = ("-a", "-l", "-f")


def parse_define(text: str) -> str:
    """Check one ``NAME[=VALUE]`` define (without the ``-D``) and return it."""
    if not _DEFINE.match(text):
        raise UsageError(f"bad define '-D{text}'",
                         hint="defines look like -DNAME or -DNAME=VALUE, e.g. -DNOREDUCE, -DN=3; "
                              "the value may hold letters, digits and _ . , : + - / @ % ^ only")
    return text


def define_name(define: str) -> str:
    return define.split("=", 1)[0]


def pan_h_declares_claim(pan_h: str) -> bool:
    """Whether the model behind this pan.h has a never claim or ltl formulas."""
    return bool(_CLAIM_IN_PAN_H.search(pan_h))


@dataclass(frozen=True)
class CompileFlags:
    """The -D flags for gcc, and why -DSAFETY was or was not added."""

    flags: tuple[str, ...]
    safety_added: bool
    safety_reason: str


def choose_compile_flags(defines: tuple[str, ...] | list[str], pan_args: tuple[str, ...] | list[str],
                         model_has_claim: bool) -> CompileFlags:
    user_flags = tuple(f"-D{define}" for define in defines)
    names = {define_name(define) for define in defines}
    cycle_args = [arg for arg in pan_args if arg.startswith(_CYCLE_SEARCH_ARGS)]
    if "SAFETY" in names:
        return CompileFlags(user_flags, False, "-DSAFETY given by the user")
    if "NP" in names:
        return CompileFlags(user_flags, False, "not adding -DSAFETY: -DNP adds the non-progress claim")
    if model_has_claim and "NOCLAIM" not in names:
        return CompileFlags(user_flags, False,
                            "not adding -DSAFETY: the model has a never claim or ltl formula")
    if cycle_args:
        return CompileFlags(user_flags, False,
                            f"not adding -DSAFETY: pan argument {cycle_args[0]} asks for a cycle search")
    return CompileFlags(("-DSAFETY",) + user_flags, True,
                        "added -DSAFETY: no claim and no cycle search (-a/-l/-f)")


def depth_limit(pan_args: tuple[str, ...] | list[str]) -> int:
    """The depth limit pan will use: the last -mN, else pan's default."""
    limit = DEFAULT_DEPTH_LIMIT
    for arg in pan_args:
        if arg.startswith("-m") and arg[2:].isdigit():
            limit = int(arg[2:])
    return limit


def with_depth_limit(pan_args: tuple[str, ...] | list[str], limit: int) -> list[str]:
    """The same pan arguments with the depth limit set to ``limit``."""
    return [arg for arg in pan_args if not (arg.startswith("-m") and arg[2:].isdigit())] + [f"-m{limit}"]


def depth_limit_is_an_error(pan_args: tuple[str, ...] | list[str]) -> bool:
    """``-b``: the user asked pan to treat reaching the depth limit as an error."""
    return "-b" in pan_args
