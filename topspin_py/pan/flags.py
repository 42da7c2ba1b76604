"""Which flags go to spin, gcc and pan.

A SPIN user tunes pan in two places: compile-time ``-D`` macros (``-DNOREDUCE``, ``-DSAFETY``,
``-DVECTORSZ=N``, ``-DMEMLIM=N``, ...) and run-time arguments (``-m``, ``-w``, ``-a``, ``-c0``, ...).
A ``-D`` can also be meant for the model (``spin -DN=3 -a m.pml``).  We take the user's ``-D``
defines once and route them:

* every define goes to spin's preprocessor: the model sees only the macros it uses;
* a define goes to gcc only when pan's sources test its name in a preprocessor directive
  (``#ifdef NOREDUCE``, ``#if VECTORSZ<65536``, ``defined(MEMLIM)``).  Any pan option is such a
  name; a model macro is not, and giving it to gcc can break pan.c: ``-DN=3`` turns pan.c's
  ``r_ck(uchar *which, int N, ...)`` into a syntax error.

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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from topspin_py.errors import UsageError
from topspin_py.promela.claim_in_force import ANY_CLAIM, FIRST_CLAIM, NO_CLAIM

# gcc's optimisation levels for pan.c, and the default: spin -run's (SPIN 6.5.2 compiles pan.c
# with `gcc -O`, which is -O1), a build about a second shorter than -O2's for a search a little
# slower; --gcc-opt=-O2 for a long one.
OPTIMISATION_LEVELS = ("-O0", "-O1", "-O2", "-O3")
DEFAULT_OPTIMISATION = "-O1"

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
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b(.*)$", re.M)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
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


def pan_option_names(sources) -> set[str]:
    """The macro names pan's sources (pan.c, pan.h, pan.m, ...) test in #if/#ifdef/#ifndef/#elif:
    the names a -D can mean something to when compiling pan."""
    names: set[str] = set()
    for text in sources:
        for condition in _DIRECTIVE.findall(text):
            names.update(_IDENTIFIER.findall(condition))
    return names


@dataclass(frozen=True)
class CompileFlags:
    """The -D flags for gcc, and why -DSAFETY was or was not added."""

    flags: tuple[str, ...]
    safety_added: bool
    safety_reason: str
    model_only: tuple[str, ...] = ()   # user defines pan does not know: given to spin only


def choose_compile_flags(defines: tuple[str, ...] | list[str], pan: PanOptions | Sequence[str],
                         model_has_claim: bool, pan_options: set[str]) -> CompileFlags:
    """The gcc -D flags: the user's pan options (see the module doc), plus -DSAFETY by the rule."""
    for_pan = tuple(define for define in defines if define_name(define) in pan_options)
    model_only = tuple(define for define in defines if define_name(define) not in pan_options)
    user_flags = tuple(f"-D{define}" for define in for_pan)
    added, reason = _safety_decision({define_name(define) for define in for_pan}, PanOptions.of(pan),
                                     model_has_claim)
    return CompileFlags(("-DSAFETY",) * added + user_flags, added, reason, model_only)


def _safety_decision(names: set[str], pan: PanOptions, model_has_claim: bool) -> tuple[bool, str]:
    if "SAFETY" in names:
        return False, "-DSAFETY given by the user"
    if "NP" in names:
        return False, "not adding -DSAFETY: -DNP adds the non-progress claim"
    if model_has_claim and "NOCLAIM" not in names:
        return False, "not adding -DSAFETY: the model has a never claim or ltl formula"
    if pan.cycle_word is not None:
        return False, f"not adding -DSAFETY: pan argument {pan.cycle_word} asks for a cycle search"
    return True, "added -DSAFETY: no claim and no cycle search (-a/-l/-f)"


def por_incompatibilities(diagnostics) -> list[str]:
    """SPIN's own words that its partial order reduction is not compatible with the model:
    the #warning and #error lines of pan.c and pan.h (toolchain.preprocessor_diagnostics,
    with the flags the search has, -DNOREDUCE taken away) that ask for -DNOREDUCE.  In SPIN
    6.5.2 that is ``p.o. reduction not compatible with remote varrefs (use -DNOREDUCE)``:
    pan keeps its reduction on then, and a process's step that writes a local variable
    another process reads by a remote reference (``P[0]:x``) counts as independent of that
    read, so errors are missed (tests/models/por_remote_ref.pml).  For enabled(),
    pc_value(), priorities, _last and an else beside i/o pan.h defines NOREDUCE itself, so
    their #errors are never reached."""
    return [str(diagnostic) for diagnostic in diagnostics if "-DNOREDUCE" in diagnostic.text]


# Storage modes that may lose states to hash collisions: a "complete" search under them has
# visited every state it stored, not necessarily every reachable state.
_APPROXIMATE_STORAGE = {"BITSTATE", "HC", "HC0", "HC1", "HC2", "HC3", "HC4"}


def approximate_storage(compile_flags) -> str | None:
    """The -D flag that makes the search approximate (bitstate, hash compaction), if any."""
    names = {define_name(flag.removeprefix("-D")) for flag in compile_flags}
    for flag in compile_flags:
        if define_name(flag.removeprefix("-D")) in _APPROXIMATE_STORAGE:
            return flag
    if "BFS_PAR" in names and not names & {"NO_HC", "NO_TDH"}:
        return "-DBFS_PAR"   # its pan.h turns on hash compaction unless -DNO_HC or -DNO_TDH
    return None


# ------------------------------------------------------------------------------ pan's options

@dataclass(frozen=True)
class PanOptions:
    """pan's run-time arguments, read once into what the later stages ask of them.

    ``args`` stays word for word as given: it is pan's command line.  The other fields say what
    pan makes of those words (pan's main() reads the letter after the dash); they are read
    from ``args`` by ``parse`` and nowhere else.  ``check_pan_args`` refuses the words pan
    would read otherwise than verify, before any of them is acted on."""

    args: tuple[str, ...] = ()
    acceptance: bool = False             # -a: a search for acceptance cycles
    non_progress: bool = False           # -l: a search for non-progress cycles (needs -DNP)
    cycle_asked: str | None = None       # the first -a or -l, as given
    cycle_word: str | None = None        # the first word pan reads as -a, -l or -f (-aN too)
    fairness: bool = False               # -f: weak fairness
    fairness_word: str | None = None     # the first word pan reads as -f
    claim: str | None = None             # -N NAME or -NNAME: the claim's name; ANY_CLAIM for
                                         # -N<number> (pan's own numbering); None: no -N
    depth_limit_given: int | None = None   # the last -mN: the user's depth limit
    depth_limit_is_an_error: bool = False  # -b: reaching the depth limit is an error
    error_count: str | None = None       # the digits of the last -cN: stop at the Nth error (0: never)
    every_error: bool = False            # -e: a trail for every error
    shortest: bool = False               # -i: iterative shortening (needs -DREACH to find the shortest)
    iterative: bool = False              # -i or -I: pan rewrites one trail, shorter each time
    replay: str | None = None            # the first word that makes pan replay a trail, not search
    permuted: str | None = None          # the first word that needs -DPERMUTED
    trail_suffix: str | None = None      # the last -tSUF: pan names its trails .SUF

    @classmethod
    def parse(cls, words: Sequence[str]) -> PanOptions:
        """What pan makes of ``words``, its arguments."""
        args = tuple(words)
        found: dict[str, object] = {}
        for position, arg in enumerate(args):
            if arg == "-a":
                found["acceptance"] = True
            if arg == "-l":
                found["non_progress"] = True
            if arg in ("-a", "-l"):
                found.setdefault("cycle_asked", arg)
            if arg.startswith(_CYCLE_SEARCH_ARGS):
                found.setdefault("cycle_word", arg)
            if arg == "-f":
                found["fairness"] = True
            if arg.startswith("-f"):
                found.setdefault("fairness_word", arg)
            if arg.startswith("-N") and "claim" not in found:
                rest = arg[2:]
                if rest[:1].isdigit():
                    found["claim"] = ANY_CLAIM
                elif rest:
                    found["claim"] = rest
                elif position + 1 < len(args) and not args[position + 1].startswith("-"):
                    found["claim"] = args[position + 1]
            if arg.startswith("-m") and arg[2:].isdigit():
                found["depth_limit_given"] = int(arg[2:])
            if arg == "-b":
                found["depth_limit_is_an_error"] = True
            if arg.startswith("-c") and arg[2:].isdigit():
                found["error_count"] = arg[2:]
            if arg == "-e":
                found["every_error"] = True
            if arg == "-i":
                found["shortest"] = True
            if arg in ("-i", "-I"):
                found["iterative"] = True
            if ((arg.startswith("-r") and not arg.startswith("-rhash")) or arg[:2] in ("-C", "-g", "-S")
                    or (arg.startswith("-P") and arg not in ("-P0", "-P1"))):
                found.setdefault("replay", arg)
            if arg.startswith(_NEED_PERMUTED):
                found.setdefault("permuted", arg)
            if arg.startswith("-t") and len(arg) > 2 and not arg.startswith("-t_reverse"):
                found["trail_suffix"] = arg[2:]
        return cls(args, **found)   # type: ignore[arg-type]

    @classmethod
    def of(cls, pan: PanOptions | Sequence[str]) -> PanOptions:
        """``pan`` itself, or its words read (for callers that hold the words alone: tests)."""
        return pan if isinstance(pan, PanOptions) else cls.parse(pan)

    @property
    def cycle_search(self) -> bool:
        """Whether pan looks for acceptance (-a) or non-progress (-l) cycles."""
        return self.acceptance or self.non_progress

    @property
    def depth_limit(self) -> int:
        """The depth limit pan will use: the last -mN, else pan's default."""
        return DEFAULT_DEPTH_LIMIT if self.depth_limit_given is None else self.depth_limit_given

    @property
    def stops_at_first_error(self) -> bool:
        """Whether pan stops at its first error (pan's default, -c1)."""
        return ((self.error_count is None or int(self.error_count) == 1)
                and not (self.every_error or self.iterative))

    def adding(self, arg: str) -> PanOptions:
        """These arguments and ``arg`` after them."""
        return PanOptions.parse((*self.args, arg))

    def with_depth_limit(self, limit: int) -> PanOptions:
        """The same arguments with the depth limit set to ``limit``."""
        return PanOptions.parse([arg for arg in self.args if not (arg.startswith("-m") and arg[2:].isdigit())]
                                + [f"-m{limit}"])

    def stopping_at_first_error(self) -> PanOptions:
        """The same arguments without the ones that make pan go on past an error (-e, -i, -I,
        -cN with N other than 1)."""
        return PanOptions.parse([arg for arg in self.args if not _goes_on_past_errors(arg)])


# pan goes on searching past an error under these: -e (every error), -i/-I (iterative
# shortening), -cN with N other than 1 (-c0: no limit).
def _goes_on_past_errors(arg: str) -> bool:
    if arg in ("-e", "-i", "-I"):
        return True
    return arg.startswith("-c") and arg[2:].isdigit() and int(arg[2:]) != 1


# pan reads its run-time options in main() (pangen1.h) by the letter after '-'.  These it reads
# by the letter alone: "-abc" is -a to pan.  verify reads the words whole (-a asks for a cycle
# search, -i for -DREACH, -e goes on past errors, ...), so a longer word would mean one thing to
# verify and another to pan.
_LETTER_ONLY = frozenset("aAbeEfIJlnqvxXY")
# These take a number, which pan reads with atoi() after the letter: a word without digits is 0
# to pan (-m: a depth limit of 0; -c: go on past every error, -c0).
_NUMBER_AFTER = frozenset("cmwkQuMGLz")
# pan's options for the workers a multi-core pan starts itself (-B passes the next word on).
_WORKER_ONLY = frozenset("BUWZ")


def check_pan_args(pan: PanOptions, defines) -> None:
    """Refuse pan arguments that pan would ignore, or read otherwise than verify reads them, each
    with the way to write it: no argument is dropped without a word.  (pan's own "invalid option
    ... ignored" messages, for what this does not foresee, become warnings: pan/output.py.)
    This reads the words themselves, in order, as pan's main() does: it checks what the
    fields of PanOptions take for granted."""
    names = {define_name(define): define for define in defines}
    cores = _define_value(names.get("NCORE"), default=1)
    args = list(pan.args)
    claims = 0
    position = 0
    while position < len(args):
        arg = args[position]
        position += 1
        if not arg.startswith("-") or len(arg) < 2:
            raise UsageError(f"pan argument '{arg}': pan stops reading its options at a word that does "
                             "not start with '-', and would ignore it and every argument after it",
                             hint="pan's options start with '-'; a claim's name follows -N (-N NAME)")
        letter, rest = arg[1], arg[2:]
        if letter == "N":
            claims += 1
            if not rest:
                if position == len(args) or args[position].startswith("-"):
                    raise UsageError("pan -N needs a claim name (pan would check its default claim)",
                                     hint="-N NAME: the name of an ltl formula or never claim of the model")
                position += 1   # the claim's name
            elif not (rest.isdigit() or rest[0].isalpha()):
                raise UsageError(f"pan {arg}: pan reads a claim's name attached to -N only when it starts "
                                 "with a letter (else it takes the next word)", hint=f"write -N {rest}")
        elif letter == "a" and rest.isdigit() and "L_BOUND" in names:
            pass   # -aN: the bound of -DBFS_PAR -DL_BOUND's cycle search, as pan reads it
        elif (letter in _LETTER_ONLY or (letter == "i" and not arg.startswith("-i_reverse"))) and rest:
            raise UsageError(f"pan {arg}: pan reads only the letter after '-', so this is its -{letter}, "
                             "which verify does not take it for", hint=f"write -{letter}")
        elif letter in _NUMBER_AFTER and not rest.isdigit():
            raise UsageError(f"pan {arg}: -{letter} takes a number, which pan reads from the digits after "
                             f"the letter: to pan this is -{letter}{_atoi(rest)}",
                             hint=f"write -{letter}N, N a number (e.g. -m100000, -c0, -w26)")
        elif letter == "R" and rest.startswith("S") and not rest[1:].isdigit():
            raise UsageError(f"pan {arg}: -RS takes the seed, which pan reads from the digits after it: to "
                             f"pan this is -RS{_atoi(rest[1:])}", hint="write -RSN, N a number")
        elif arg == "-t":
            raise UsageError("pan -t alone does nothing: -tSUF names the trails .SUF, -t_reverse reverses "
                             "the order of transitions", hint="drop it (spin -t replays a trail: verify "
                             "prints that command)")
        elif letter in _WORKER_ONLY:
            raise UsageError(f"pan {arg}: pan's -{letter} is for the workers a multi-core pan starts "
                             "itself", hint="drop it; -DNCORE=N gives pan N cores")
        if letter == "u" and "BFS_PAR" not in names:
            raise UsageError(f"pan {arg} sets the cores of -DBFS_PAR's search; without -DBFS_PAR pan "
                             "ignores it", hint="drop it, or add -DBFS_PAR")
        if letter == "z" and cores <= 1:
            raise UsageError(f"pan {arg} sets the depth below which a multi-core pan hands states to "
                             "another core; a single-core pan ignores it", hint="drop it, or add -DNCORE=N")
        if letter in "MG" and "BITSTATE" not in names:
            raise UsageError(f"pan {arg} sizes the bit array of -DBITSTATE; without -DBITSTATE pan "
                             "ignores it", hint="drop it (-wN sizes the hash table), or add -DBITSTATE")
        if letter == "Q" and cores > 1:
            raise UsageError(f"pan {arg} is a time limit only in a single-core pan: with -DNCORE={cores} "
                             "pan reads -Q as the pid of its workers' parent", hint="drop -Q, or -DNCORE")
    if claims > 1:
        raise UsageError("pan checks one claim, and would take the last -N (or -ltl) given",
                         hint="give -N NAME (or -ltl NAME) once")
    if claims and "NOCLAIM" in names:
        raise UsageError("-DNOCLAIM leaves every claim out, and a pan built with it refuses -N",
                         hint="drop -N, or -DNOCLAIM")


def _define_value(define: str | None, default: int) -> int:
    """The number a -D gives its macro (NCORE=4 -> 4; NCORE -> 1, as gcc defines it); ``default``
    when it is not given, or its value is no number."""
    if define is None:
        return default
    value = define.split("=", 1)[1] if "=" in define else "1"
    return int(value) if value.isdigit() else default


def _atoi(text: str) -> int:
    """C's atoi: the number its leading digits spell, 0 without any."""
    digits = re.match(r"\d*", text).group(0)   # type: ignore[union-attr]
    return int(digits) if digits else 0


def claim_in_force(defines, pan: PanOptions | Sequence[str]) -> str:
    """The claim pan will check: NO_CLAIM under -DNOCLAIM; the ltl name given by `-N name` or
    `-Nname`; ANY_CLAIM for `-N<number>` (left to pan's own numbering, so every claim must
    stay valid); otherwise FIRST_CLAIM, pan's default."""
    if any(define_name(d) == "NOCLAIM" for d in defines):
        return NO_CLAIM
    claim = PanOptions.of(pan).claim
    return FIRST_CLAIM if claim is None else claim


def breadth_first(defines) -> bool:
    """Whether pan searches breadth first: -DBFS, or -DBFS_PAR (whose pan.h defines BFS)."""
    return any(define_name(d.removeprefix("-D")) in ("BFS", "BFS_PAR") for d in defines)


def several_processes(defines) -> bool:
    """Whether pan searches with several processes: -DNCORE=N with N other than 1, or -DBFS_PAR."""
    for define in defines:
        name, _, value = define.removeprefix("-D").partition("=")
        if name == "BFS_PAR" or (name == "NCORE" and value not in ("", "1")):
            return True
    return False


@dataclass(frozen=True)
class SearchChoice:
    """The pan arguments of the search the model asks for, and why."""

    pan: PanOptions              # the user's arguments, plus the -a or -l we added
    added: str | None            # "-a", "-l" or None
    reason: str                  # what was added and why, or why nothing was
    notable: bool = False        # a note for the user (else --verbose): a flag added, or
                                 # accept labels left unchecked by a define


def choose_search(pan: PanOptions, defines, accept_labels: list[str], safety_only: bool) -> SearchChoice:
    """Search for what the model asks for, with spin -run's defaults (main.c, final_fiddle):

    * the user's -a or -l decides (and so does ``safety_only``: ``verify --safety``);
    * -DNP without -a/-l: add -l, the non-progress claim is checked for non-progress cycles;
    * otherwise, unless -DSAFETY, -DBFS or -DNOCLAIM: add -a when the model has an accept
      label (``accept_labels``, spin's has_accept: any label starting with ``accept`` but not
      ``accept_all``, in a proctype, a never claim or an ltl formula's translation).

    spin -run adds -DSAFETY when it adds neither; we keep our own -DSAFETY rule
    (choose_compile_flags), which gives the same verdicts and counts."""
    names = {define_name(define) for define in defines}
    given = pan.cycle_asked
    if "SAFETY" in names and (given or pan.fairness_word is not None):
        raise UsageError(f"pan compiled with -DSAFETY has no cycle search, which {given or '-f'} asks for",
                         hint="drop -DSAFETY, or the pan argument")
    if "NP" in names and given == "-a":
        # pan: "warning: -a is disabled by -DNP, ignored"
        raise UsageError("pan built with -DNP checks its non-progress claim and ignores -a",
                         hint="-l searches for non-progress cycles; drop -DNP for acceptance cycles")
    if safety_only:
        if given:
            raise UsageError(f"--safety asks for a safety search, --pan {given} for a cycle search",
                             hint="give one of them")
        if "NP" in names:
            raise UsageError("--safety asks for a safety search, -DNP for non-progress cycles (pan's "
                             "non-progress claim, which a safety search would leave unchecked)",
                             hint="give one of them")
        return SearchChoice(pan, None, "safety search only (--safety)")
    if given:
        return SearchChoice(pan, None, f"cycle search as asked (pan {given})")
    if "NP" in names:
        return SearchChoice(pan.adding("-l"), "-l",
                            "pan -l: -DNP adds the non-progress claim, which is checked for "
                            "non-progress cycles (as spin -run does)", notable=True)
    if not accept_labels:
        return SearchChoice(pan, None, "safety search: the model has no accept label")
    labels = ", ".join(accept_labels[:3]) + (", ..." if len(accept_labels) > 3 else "")
    for name, why in (("SAFETY", "-DSAFETY"), ("BFS", "-DBFS: pan's breadth-first search has no cycle search"),
                      ("NOCLAIM", "-DNOCLAIM (spin -run does not add -a under it either)")):
        if name in names:
            return SearchChoice(pan, None, f"no search for acceptance cycles ({why}), although "
                                            f"the model has accept labels: {labels}", notable=True)
    return SearchChoice(pan.adding("-a"), "-a",
                        f"pan -a: searching for acceptance cycles, as spin -run does, because the "
                        f"model has accept labels: {labels} (--safety for a safety search only)",
                        notable=True)


# ------------------------------------------------------------------------------ spin's options

# spin's -oN options that only change how pan.c is generated (dataflow optimisations,
# write-only variables, statement merging, rendezvous, case caching): pan.h gives the layout
# they lead to, and the symmetry is a property of the model's text, which they do not change.
_GENERATION_OPTIONS = ("-o1", "-o2", "-o3", "-o4", "-o5")
_READING_OPTIONS = {"-o6": "the old rules for priority tags", "-o7": "the old rules for semicolons"}


@dataclass(frozen=True)
class SpinOptions:
    """spin's own options for ``spin -a``, checked: generation options, a never claim from an
    LTL formula (-f FORMULA, -F FILE) or from a file of its own (-N FILE)."""

    args: tuple[str, ...] = ()           # for spin -a, files made absolute (spin runs elsewhere);
                                         # without -N FILE, which goes as claim_file
    shown: tuple[str, ...] = ()          # as the user gave them (-N FILE included)
    formula_args: tuple[str, ...] = ()   # ("-f", FORMULA) or ("-F", /abs/FILE), or ()
    cpp_flags: tuple[str, ...] = ()      # -E-Idir's "-I/abs/dir": for our preprocessor as for spin's
    claim_file: Path | None = None       # -N FILE, absolute: spin -a -N FILE adds its never claim


def parse_spin_args(words: tuple[str, ...] | list[str], command: str = "verify") -> SpinOptions:
    """Check spin's options; anything ``command`` cannot honour is refused with a reason."""
    args: list[str] = []
    shown: list[str] = []
    formula: tuple[str, ...] = ()
    cpp_flags: list[str] = []
    claim_file: Path | None = None
    items = iter(words)
    for word in items:
        if word.startswith("-E-I") and len(word) > 4:
            # spin's way to an include directory: -E hands the rest to its preprocessor.
            directory = Path(word[4:])
            if not directory.is_dir():
                raise UsageError(f"spin {word}: include directory not found: {directory}")
            cpp_flags.append(f"-I{directory.resolve()}")
            args.append(f"-E{cpp_flags[-1]}")
            shown.append(word)
        elif word.startswith("-E"):
            raise UsageError(f"spin {word}: {command} hands only include directories (-E-IDIR) to "
                             "spin's preprocessor", hint="give macros with -DNAME[=VALUE]")
        elif word in _GENERATION_OPTIONS:
            args.append(word)
            shown.append(word)
        elif word in _READING_OPTIONS:
            raise UsageError(f"spin {word} ({_READING_OPTIONS[word]}) is not supported: topspin-py "
                             "reads the model by SPIN 6.5.2's rules, and spin would read it otherwise")
        elif word in ("-f", "-F"):
            value = next(items, None)
            if value is None:
                raise UsageError(f"spin {word} needs a value",
                                 hint="-f 'LTL formula' or -F file-holding-the-formula")
            if formula:
                raise UsageError("give one of spin's -f or -F, once")
            if word == "-F":
                if not Path(value).is_file():
                    raise UsageError(f"spin -F: formula file not found: {value}")
                formula = ("-F", str(Path(value).resolve()))
            else:
                formula = ("-f", value)
            args.extend(formula)
            shown.extend((word, value))
        elif word == "-N":
            value = next(items, None)
            claim_file = _claim_file(value, claim_file)
            shown.extend((word, str(value)))
        elif word.startswith("-N"):
            # spin's -N ignores the rest of its word and takes the next one as the file
            raise UsageError(f"spin {word}: spin's -N takes the claim file as the next word",
                             hint=f"write -N FILE; pan's -N NAME (a claim of the model) is written "
                                  f"after -run or after MODEL, e.g. -ltl {word[2:]}")
        else:
            raise UsageError(f"spin option '{word}' is not supported by {command}",
                             hint="supported: -o1 ... -o5, -f FORMULA, -F FILE, -N FILE, -E-IDIR (and -D for "
                                  "the preprocessor); "
                                  + ("other spin options do not apply to a verification" if command == "verify"
                                     else "topspin-py cannot tell what the others do to the model"))
    if claim_file is not None and formula:
        # spin -a reads only -f's (or -F's) claim then, and drops -N's without a word (main.c)
        raise UsageError(f"spin {formula[0]} and -N FILE each give the never claim, and spin would "
                         "use only the formula's", hint="give one of -f FORMULA, -F FILE, -N FILE")
    return SpinOptions(tuple(args), tuple(shown), formula, tuple(cpp_flags), claim_file)


def _claim_file(value: str | None, earlier: Path | None) -> Path:
    """spin's ``-N FILE``: a file holding a never claim, which spin -a adds to the model."""
    if value is None:
        raise UsageError("spin -N needs a file", hint="-N FILE: a file holding a never claim")
    if earlier is not None:
        raise UsageError("give spin's -N FILE once: spin reads one claim file")
    path = Path(value)
    if not path.is_file():
        raise UsageError(f"spin -N: claim file not found: {value}",
                         hint="spin's -N FILE takes a file holding a never claim; pan's -N NAME, "
                              "which selects one of the model's claims, is written after -run or "
                              "after MODEL (or as -ltl NAME)")
    return path.resolve()


# spin -run's shorthands (spin 6.5.2, main.c, pats[]): each becomes a -D for pan's build.
RUN_SHORTHANDS = {"-bfs": "BFS", "-bfspar": "BFS_PAR", "-bcs": "BCS", "-bitstate": "BITSTATE",
                  "-bit": "BITSTATE", "-hc": "HC4", "-collapse": "COLLAPSE", "-noclaim": "NOCLAIM",
                  "-noreduce": "NOREDUCE", "-np": "NP", "-safety": "SAFETY", "-permuted": "PERMUTED"}
# pan's options that a pan built without -DPERMUTED refuses ("option -p_permute required
# compilation with -DPERMUTED"): spin -run adds -DPERMUTED for them (main.c, pats[]: -p_permute,
# -p_rotate, -p_reverse, -rhash), and so does verify, for -p_randrot too.
_NEED_PERMUTED = ("-p_permute", "-p_rotate", "-p_reverse", "-p_randrot", "-rhash")


def defines_pan_args_need(defines: list[str], pan: PanOptions) -> list[tuple[str, str]]:
    """The defines spin -run adds for pan arguments (main.c, add_runtime): -l needs the
    non-progress claim (-DNP), -i the revisiting of states reached by a shorter path
    (-DREACH), without which -i does not find the shortest trail.  Returns (define, why)."""
    names = {define_name(define) for define in defines}
    needed = []
    if pan.non_progress and "NP" not in names:
        needed.append(("NP", "pan -l searches for non-progress cycles, which needs -DNP (as spin -run adds it)"))
    if pan.shortest and "REACH" not in names:
        needed.append(("REACH", "pan -i shortens the trail; -DREACH lets it find the shortest (as spin -run adds it)"))
    if pan.permuted is not None and "PERMUTED" not in names:
        needed.append(("PERMUTED", f"pan {pan.permuted} needs it (as spin -run adds it)"))
    return needed
