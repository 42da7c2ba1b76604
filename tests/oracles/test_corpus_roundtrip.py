"""The shared corpus (../shared/corpus) through the front end and back to spin.

For every model of the corpus: it parses, the printer's text parses back to an equal AST, and
plain spin gives the printed text the same state count as the original.  The spin runs use
``-DSAFETY -DNOREDUCE`` and ``pan -m10000000 -w20 -E -A`` (``-E -A``: no end-state or assertion
checks, so that the whole state space is searched even where the model has a real bug), with gcc
-O1, which compiles pan.c in half the time of -O2.  leader.pml has about 2e6 states without
partial order reduction, so it is compared with POR on (14e3 states) and, marked slow, also
without.  soil3.p's state space is beyond a test (plain spin with POR stores 22.7e6 states
within 400 steps and does not finish in 6 minutes): its printed text must give the same counts
within 100 steps (``-m100``: 106,568 states without POR), where pan's depth-first search is as
deterministic as a whole one.

Everything skips cleanly when the corpus is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CORPUS, corpus_files
from modelgen import run_spin

FILES = corpus_files()
PAN_ARGS = ("-m10000000", "-w20", "-E", "-A")
NOREDUCE = ("-DSAFETY", "-DNOREDUCE")
POR = ("-DSAFETY",)
BIG_WITHOUT_POR = {"leader.pml"}
DEPTH_LIMIT = {"soil3.p": "-m100"}   # models searched to a depth limit only (docstring)


def _id(path: Path) -> str:
    return str(path.relative_to(CORPUS)) if path.is_relative_to(CORPUS) else path.name


def _flag_params():
    params = []
    for path in FILES:
        if path.name in BIG_WITHOUT_POR:
            params.append(pytest.param(path, POR, id=f"{_id(path)}-POR"))
            params.append(pytest.param(path, NOREDUCE, id=f"{_id(path)}-NOREDUCE",
                                       marks=pytest.mark.slow))
        else:
            params.append(pytest.param(path, NOREDUCE, id=f"{_id(path)}-NOREDUCE"))
    return params


def _printed(path: Path) -> str:
    from topspin_py.promela import parse_file, print_spec

    return print_spec(parse_file(path))


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_corpus_roundtrip(corpus: Path, path: Path):
    from topspin_py.promela import parse_file, parse_text, print_spec

    spec = parse_file(path)
    text = print_spec(spec)
    assert parse_text(text, f"printed {path.name}") == spec, (
        f"the printed text of {path.name} parses to a different AST:\n{text}")


@pytest.mark.parametrize("path,flags", _flag_params())
def test_corpus_printed_same_states(corpus: Path, path: Path, flags: tuple[str, ...]):
    limit = DEPTH_LIMIT.get(path.name)
    pan = tuple(limit if limit and a.startswith("-m") else a for a in PAN_ARGS)
    original = run_spin(path, flags=flags, pan=pan, opt="-O1")
    printed = run_spin(text=_printed(path), flags=flags, pan=pan, opt="-O1")
    assert original.errors == 0
    for key in ("states", "transitions", "matched"):
        assert printed.get(key) == original.get(key), (
            f"{path.name} {' '.join(flags)}: {key} of the printed model {printed.get(key)}, "
            f"of the original {original.get(key)}")
