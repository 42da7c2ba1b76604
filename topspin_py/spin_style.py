"""verify's words as SPIN users write them (``verify m.pml -a -m100000``, ``verify -run -a
-DNOREDUCE m.pml``, spin -run's shorthands, spin's and pan's two ``-N``), turned into verify's
own options before the command line's parser reads them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from topspin_py.errors import UsageError
from topspin_py.pan.flags import OPTIMISATION_LEVELS, RUN_SHORTHANDS

# verify's own options and whether each takes a value (the rest is pan's or spin's).
_VERIFY_OPTIONS = {"--strategy": True, "--keep": True, "--gcc-opt": True, "--pan": True,
                   "--spin": True, "-D": True, "--json": False, "--force": False, "--compare": False,
                   "--cross-check": False, "--safety": False, "--quiet": False, "--verbose": False,
                   "--no-cache": False, "-h": False, "--help": False}
# spin -run features verify does not offer: a word saying why, for the message.
_REFUSED_RUN_OPTIONS = {"-biterate": "runs many randomised bitstate searches",
                        "-swarm": "runs many randomised bitstate searches",
                        "-link": "links pan with a file of your own",
                        "-dfspar": "is SPIN's multi-core search",
                        "-replay": "replays a trail (use the replay command verify prints)",
                        "-W": "reuses an existing ./pan",
                        "-U": "undefines a macro for gcc (verify compiles with the -D flags you give, and no "
                              "others of yours: leave the define out)"}


def spin_style(argv: list[str]) -> list[str]:
    """verify's arguments as SPIN users write them, in verify's own terms (module doc of
    pan/flags.py; ``topspin-py verify --help``), for the command line's parser:

    * ``verify m.pml -a -m100000`` and ``verify -run -a -DNOREDUCE m.pml``: a word starting
      with '-' that is not verify's own option is pan's (``--pan=WORD``), wherever it stands;
    * words before ``-run`` (or ``-search``) are spin's own options (``--spin``), as with spin;
    * spin -run's shorthands become -D flags (``-noreduce`` -> ``-DNOREDUCE``), ``-ltl NAME``
      pan's ``-N NAME``, ``-O2`` ``--gcc-opt=-O2``, ``-oN`` and ``-F FILE`` spin's (pan has no
      -o, and its -F needs -DSC);
    * ``-N WORD`` is spin's -N FILE or pan's -N NAME by :func:`_claim_option`'s rule."""
    if not argv or argv[0] != "verify":
        return argv
    words = argv[1:]
    run_given = any(word in ("-run", "-search") for word in words)
    spin_phase = run_given
    out = ["verify"]
    i = 0
    while i < len(words):
        word = words[i]
        following = words[i + 1] if i + 1 < len(words) else None
        i += 1
        if word == "--":
            out += words[i - 1:]
            break
        if word in ("-run", "-search"):
            spin_phase = False
        elif word == "--pan" and following == "-N" and i + 1 < len(words) and not words[i + 1].startswith("-"):
            out += ["--pan=-N", "--pan=" + shlex.quote(words[i + 1])]   # --pan -N NAME: pan's form
            i += 2
        elif word == "--spin" and following in ("-f", "-F", "-N") and i + 1 < len(words):
            out.append("--spin=" + shlex.join([following, words[i + 1]]))   # --spin -f FORMULA
            i += 2
        elif word in _VERIFY_OPTIONS or word.startswith("--") or word.startswith("-D") or not word.startswith("-"):
            out.append(word)
            if _VERIFY_OPTIONS.get(word) and following is not None:
                out.append(following)
                i += 1
        elif word in ("-f", "-F", "-N") and (spin_phase or word == "-F"):
            if following is None:
                raise UsageError(f"spin {word} needs a value", hint="-f 'LTL formula', -F FILE or -N FILE")
            out.append("--spin=" + shlex.join([word, following]))
            i += 1
        elif word in ("-ltl", "-N") and not spin_phase:
            out.append(_claim_option(word, following, run_given))
            i += 1
        elif spin_phase or (len(word) == 3 and word.startswith("-o") and word[2].isdigit()) \
                or word.startswith("-E-I"):
            out.append("--spin=" + shlex.quote(word))
        elif word in RUN_SHORTHANDS:
            out.append("-D" + RUN_SHORTHANDS[word])
        elif word in OPTIMISATION_LEVELS:
            out.append("--gcc-opt=" + word)
        elif (refused := next((name for name in _REFUSED_RUN_OPTIONS if word.startswith(name)), None)):
            raise UsageError(f"{word}: spin -run's {refused} {_REFUSED_RUN_OPTIONS[refused]}, which "
                             "verify does not offer", hint="run spin -run yourself for it")
        else:
            out.append("--pan=" + shlex.quote(word))
    return out


_CLAIM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _claim_option(word: str, value: str | None, run_given: bool) -> str:
    """``-ltl NAME`` or ``-N WORD`` outside spin's options (after -run, or with no -run), as one
    --pan or --spin argument.  SPIN has two -N: spin's ``-N FILE`` (a never claim in a file of
    its own, added to the model) and pan's ``-N NAME`` (check the model's claim NAME).  spin
    -run reads the words before -run as spin's and those after it as pan's, so:

    * after -run, ``-N NAME`` is pan's (a claim file goes before -run);
    * with no -run, ``-N WORD`` is spin's when WORD cannot be a claim's name (not a Promela
      identifier: ``claim.pml``, ``dir/claim``), pan's when it is one and no file of that name
      exists here; an identifier that names a file here too is ambiguous, and refused with both
      ways to write it (``--spin '-N WORD'`` or ``-N WORD -run``; ``-ltl WORD``)."""
    if value is None or value.startswith("-"):
        raise UsageError(f"{word} needs a claim name" + ("" if word == "-ltl" or run_given else " or a file"),
                         hint="-ltl NAME or -N NAME: check the model's claim NAME (an ltl formula's or "
                              "never claim's name); -N FILE before -run: a never claim in a file of its own")
    if word == "-N" and value.isdigit():
        # pan -N 2 looks for a claim named "2"; the second claim is -N2
        raise UsageError(f"-N {value}: pan takes a claim's number attached (-N{value}), and spin's -N a file",
                         hint=f"write -N{value} for pan's claim number {value}, or -N NAME")
    if word == "-ltl" or (_CLAIM_NAME.fullmatch(value) and (run_given or not Path(value).exists())):
        return "--pan=" + shlex.join(["-N", value])
    if run_given:
        raise UsageError(f"-N {value}: after -run, -N is pan's -N NAME, and '{value}' is no claim name",
                         hint=f"spin's -N FILE (a never claim in a file of its own) goes before -run: "
                              f"-N {shlex.quote(value)} -run ...")
    if _CLAIM_NAME.fullmatch(value):
        raise UsageError(f"-N {value}: '{value}' names both a file here (spin's -N FILE) and, maybe, "
                         "a claim of the model (pan's -N NAME)",
                         hint=f"write --spin '-N {value}' (or -N {value} before -run) for the claim in "
                              f"the file, -ltl {value} for the model's claim")
    return "--spin=" + shlex.join(["-N", value])
