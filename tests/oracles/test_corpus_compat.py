"""The front end against spin 6.5.2 on the wider corpus.

../shared/corpus/MANIFEST.tsv lists every model file of the corpus (SPIN's own examples and
tests, the BEEM models, the spins case studies, the symmetry corpus) with what ``spin -a`` said
of it: 354 accepted, 16 rejected, with spin's first error line.  spin runs here as the MANIFEST
ran it, on the file in its own folder (by its absolute path, from a scratch directory, so that
spin's pan.* files stay out of the corpus: cpp looks for an ``#include "x"`` beside the file
that includes it, whatever the working directory).

For every model spin accepts:

* ``test_parses_and_round_trips``: the front end parses it, and the printer's text parses back
  to an equal AST.
* ``test_spin_compiles_the_printed_text_as_the_original``: ``spin -a`` writes the same pan.h,
  pan.c, pan.m, pan.b, pan.t and pan.p for the printed text as for the original, once the
  file names and line numbers in them are taken out (``topspin_py/pan/spin_output.py``, the
  comparison ``patch`` proves a pan.c's provenance with).

  Why this shows that the printed text gives spin the same counts: pan is these files,
  compiled.  What is taken out is only read to print messages: the file name (PanSource, the
  src_file tables, comments, tr_2_src), the line number of each state (the src_ln tables,
  which pan reads only to report unreached code and errors, and copies in retrans/crack for
  those reports), and the line numbers in comments, in d_step names ("D_STEP78") and in
  error texts ("near line 49").  Everything the search runs on (the state vector layout, the
  transition tables, the transitions' code, the claims spin translated from the ltl formulas)
  is compared as spin wrote it.  So, compiled with the same flags, the two pans run the same
  search and print the same numbers, whatever the flags, for every model, including the
  ones whose state spaces no test can afford to explore.
* ``test_printed_text_gives_the_same_counts``: the counts themselves, by gcc and pan, for the
  original and for the printed text (``-DSAFETY -DNOCLAIM -DMEMLIM=2048``, gcc -O1, ``pan
  -w22 -E -A`` with -m1000000, or -m10000000 where that is too small): states stored and
  matched, transitions, depth, errors and the state vector's size must be equal, and equal
  to what plain spin gave the original in the recorded run (corpus_counts.tsv).  In CI this
  runs on the models that took at most ``_CI_SECONDS`` there.  ``TOPSPIN_CORPUS_SOAK=<s>``
  runs it on every accepted model instead, each pan run limited to s seconds (a model that
  does not finish is skipped, saying so); ``TOPSPIN_CORPUS_RECORD=<file>`` then also writes
  plain spin's counts of each original there, as corpus_counts.tsv has them.

  corpus_counts.tsv is the run ``TOPSPIN_CORPUS_SOAK=10 TOPSPIN_CORPUS_RECORD=...`` (10 s
  for each pan, original and printed side by side), which took 37 min 39 s on two shared
  cores: 260 of the 354 models finished within 10 s, with the same counts for the printed
  text as for the original; the other 94 are recorded as "limit" (their pans are the same,
  by ``test_spin_compiles_the_printed_text_as_the_original``, but no count shows it).

What CI pays (two cores shared with others): the whole file, 806 tests, took 2 min 5 s.  Its
parts, each run alone: the counts on the 76 models whose search took at most ``_CI_SECONDS``
= 0.1 s in the recorded run, 1 min 48 s (gcc, twice for each, is most of it); ``spin -a``
twice on each of the 354 models, 31 s; parsing and printing them, and the rejected ones, 27 s.

For every model spin rejects (``test_rejected_as_spin_rejects_it``): our parser rejects it, or
``spin -a`` run as ``verify`` runs it (loading.check_with_spin) raises spin's own message at
spin's file and line; ``test_cli_shows_spins_message`` checks what the user sees for a few.

Everything skips cleanly when the corpus is absent.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import CORPUS, REPO, TESTS

from topspin_py.pan import spin_output

MANIFEST = CORPUS / "MANIFEST.tsv"
RECORDED = TESTS / "corpus_counts.tsv"


def _manifest() -> list[dict[str, str]]:
    if not MANIFEST.is_file():
        return []
    with MANIFEST.open(newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


ROWS = _manifest()
ACCEPTED = [row["path"] for row in ROWS if row["spin_a"] == "ok"]
REJECTED = {row["path"]: row["spin_a"].removeprefix("rejected: ") for row in ROWS
            if row["spin_a"] != "ok"}


def _model(corpus: Path, name: str) -> Path:
    return corpus.resolve() / name


def _parse_and_print(path: Path) -> tuple[object, str]:
    from topspin_py.promela import parse_file, print_spec

    spec = parse_file(path)
    return spec, print_spec(spec)


# ------------------------------------------------------------------------ parse, print, reparse

@pytest.mark.parametrize("name", ACCEPTED)
def test_parses_and_round_trips(corpus: Path, name: str):
    from topspin_py.promela import parse_text

    spec, text = _parse_and_print(_model(corpus, name))
    assert parse_text(text, f"printed {name}") == spec, f"the printed text of {name} parses differently"


# ------------------------------------------------------------------------ what spin compiles

# What spin writes only for pan's messages, file names and line numbers, is taken out by the
# product's own comparison (topspin_py/pan/spin_output.py), the one patch uses to prove that a
# pan.c is the model's.
SPIN_OUTPUTS = spin_output.SPIN_OUTPUTS


def _compiled(source: Path, workdir: Path) -> dict[str, str]:
    """What ``spin -a source`` writes into ``workdir``, without file names and line numbers."""
    proc = subprocess.run(["spin", "-a", str(source)], cwd=workdir, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and (workdir / "pan.c").is_file(), proc.stdout + proc.stderr
    return {name: spin_output.program_text((workdir / name).read_text(errors="replace"))
            for name in SPIN_OUTPUTS}


def _compiled_pair(original: Path, printed_text: str) -> tuple[dict[str, str], dict[str, str]]:
    """spin -a of the original and of the printed text, side by side (two cores)."""
    with tempfile.TemporaryDirectory(prefix="topspin-compat-") as name:
        work = Path(name)
        (work / "original").mkdir()
        (work / "printed").mkdir()
        printed = work / "printed" / "printed.pml"
        printed.write_text(printed_text)
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(_compiled, original, work / "original")
            second = pool.submit(_compiled, printed, work / "printed")
            return first.result(), second.result()


def _first_difference(one: str, two: str) -> str:
    for number, (a, b) in enumerate(zip(one.splitlines(), two.splitlines()), 1):
        if a != b:
            return f"line {number}:\n  original: {a}\n  printed:  {b}"
    return "one is longer"


@pytest.mark.parametrize("name", ACCEPTED)
def test_spin_compiles_the_printed_text_as_the_original(corpus: Path, name: str):
    _, text = _parse_and_print(_model(corpus, name))
    original, printed = _compiled_pair(_model(corpus, name), text)
    for output in SPIN_OUTPUTS:
        assert printed[output] == original[output], (
            f"{output} of the printed {name} differs: "
            + _first_difference(original[output], printed[output]))


def test_the_comparison_sees_a_one_character_change(corpus: Path):
    # The normalisation must not hide the program: one constant changed, and the tables differ.
    name = "beem/peterson.2.pm"
    _, text = _parse_and_print(_model(corpus, name))
    changed = text.replace("j = 1 ->", "j = 2 ->", 1)
    assert changed != text
    original, printed = _compiled_pair(_model(corpus, name), changed)
    assert "pan.m" in [o for o in SPIN_OUTPUTS if original[o] != printed[o]]  # the code of `j = 2`


# ------------------------------------------------------------------------ the counts themselves

CFLAGS = ("-DSAFETY", "-DNOCLAIM", "-DMEMLIM=2048")
PAN_ARGS = ("-w22", "-E", "-A")
# pan allocates its stack for the whole depth limit up front: -m10000000 costs a third of a
# second and 500 MB before the search starts, so the limit grows only when pan says it is hit.
DEPTH_LIMITS = ("-m1000000", "-m10000000")
COUNTS = ("states_stored", "states_matched", "transitions", "depth", "errors", "state_vector_bytes")
# In CI: the recorded models whose search took at most this long (76 models: gcc, twice for
# each, is most of the 1 min 48 s they take).
_CI_SECONDS = 0.1
SOAK_SECONDS = float(os.environ.get("TOPSPIN_CORPUS_SOAK", "0") or 0)
RECORD = os.environ.get("TOPSPIN_CORPUS_RECORD")


def _recorded() -> dict[str, dict[str, str]]:
    if not RECORDED.is_file():
        return {}
    with RECORDED.open(newline="") as handle:
        return {row["path"]: row for row in csv.DictReader(handle, delimiter="\t")}


RECORDS = _recorded()


def _count_params() -> list[str]:
    if SOAK_SECONDS:
        return ACCEPTED
    return [name for name in ACCEPTED if name in RECORDS and RECORDS[name]["seconds"] != "limit"
            and float(RECORDS[name]["seconds"]) <= _CI_SECONDS]


def _pan_counts(source: Path, workdir: Path, limit: float):
    """gcc and pan on ``source`` in ``workdir``: pan's report and its wall time, or None when
    pan did not finish within ``limit`` seconds."""
    from topspin_py.pan.output import parse_pan_output

    for command in (["spin", "-a", str(source)],
                    ["gcc", "-O1", "-w", *CFLAGS, "-o", "pan", "pan.c"]):
        proc = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(command)}:\n{proc.stdout}{proc.stderr}"
    started = time.monotonic()
    for depth in DEPTH_LIMITS:
        left = limit - (time.monotonic() - started)
        try:
            proc = subprocess.run(["./pan", depth, *PAN_ARGS], cwd=workdir, capture_output=True,
                                  text=True, timeout=max(left, 0.01))
        except subprocess.TimeoutExpired:
            return None, limit
        report = parse_pan_output(proc.stdout + proc.stderr)
        if not report.depth_limit_hit:
            break
    return report, time.monotonic() - started


def _record(name: str, report, seconds: float | None) -> None:
    fields = ["path", *COUNTS, "complete", "seconds"]
    assert RECORD is not None  # called only with TOPSPIN_CORPUS_RECORD set
    new = not Path(RECORD).exists()
    with open(RECORD, "a", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        if new:
            writer.writerow(fields)
        if report is None:
            writer.writerow([name, *["" for _ in COUNTS], "", "limit"])
        else:
            writer.writerow([name, *[_number(getattr(report, key)) for key in COUNTS],
                             str(report.complete).lower(), f"{seconds:.2f}"])


def _number(value) -> str:
    return "" if value is None else str(int(value)) if float(value).is_integer() else str(value)


@pytest.mark.parametrize("name", _count_params())
def test_printed_text_gives_the_same_counts(corpus: Path, name: str):
    limit = SOAK_SECONDS or 120.0
    _, text = _parse_and_print(_model(corpus, name))
    with tempfile.TemporaryDirectory(prefix="topspin-counts-") as scratch:
        work = Path(scratch)
        (work / "original").mkdir()
        (work / "printed").mkdir()
        (work / "printed" / "printed.pml").write_text(text)
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(_pan_counts, _model(corpus, name), work / "original", limit)
            second = pool.submit(_pan_counts, work / "printed" / "printed.pml", work / "printed", limit)
            (original, seconds), (printed, _) = first.result(), second.result()
    if RECORD:
        _record(name, original, seconds if original is not None else None)
    if original is None or printed is None:
        pytest.skip(f"pan did not finish within {limit:.0f} s")
    assert original.has_summary, original
    for key in COUNTS:
        assert getattr(printed, key) == getattr(original, key), (
            f"{name}: {key} of the printed text {getattr(printed, key)}, "
            f"of the original {getattr(original, key)}")
    if name in RECORDS and RECORDS[name]["seconds"] != "limit":
        recorded = RECORDS[name]
        for key in COUNTS:
            assert _number(getattr(original, key)) == recorded[key], (
                f"{name}: plain spin now gives {key} {getattr(original, key)}, "
                f"the recorded run {recorded[key]}")


# ------------------------------------------------------------------------ what spin rejects

@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected_as_spin_rejects_it(corpus: Path, name: str):
    from topspin_py.errors import ModelError, PromelaSyntaxError
    from topspin_py.pan import loading
    from topspin_py.promela import parse_file

    path = _model(corpus, name)
    spins = REJECTED[name]
    try:
        parse_file(path)
    except PromelaSyntaxError as syntax_error:
        # Only patterns.pml: see test_ltl_operator_under_a_bitwise_and below.
        assert name == "spin-all/Examples/LTL/patterns.pml", syntax_error.render()
        return
    with pytest.raises(ModelError) as info:
        loading.check_with_spin(path, [])
    # spin's line is "spin: FILE:LINE, Error: MESSAGE"; we show "FILE:LINE: error: spin rejects
    # the model: MESSAGE" (tabs and runs of spaces as one space).
    match = re.fullmatch(r"spin: (?P<file>[^:]+):(?P<line>\d+), Error: (?P<message>.*)", spins)
    assert match, spins
    err = info.value
    assert err.message == "spin rejects the model: " + " ".join(match["message"].split())
    assert err.pos is not None and Path(err.pos.file).name == match["file"]
    assert err.pos.line == int(match["line"])


def test_ltl_operator_under_a_bitwise_and(corpus: Path):
    # patterns.pml: spin stops at its first formula with X, which this spin (built without NXT)
    # does not know ("tl_spin: expected predicate, saw 'X'", no file or line); we accept X, as a
    # spin built with NXT does, and stop where a formula puts X under `&` ("!R& X(...)"), which
    # spin's own parser only gets through by turning the operator into its token number
    # (`a & <> b` becomes "(a&334)").
    from topspin_py.errors import PromelaSyntaxError
    from topspin_py.promela import parse_file

    name = "spin-all/Examples/LTL/patterns.pml"
    assert REJECTED[name] == "tl_spin: expected predicate, saw 'X'"
    path = _model(corpus, name)
    with pytest.raises(PromelaSyntaxError) as info:
        parse_file(path)
    assert info.value.pos is not None
    line = path.read_text().splitlines()[info.value.pos.line - 1]
    assert line[info.value.pos.column - 1:].startswith("X(!R U (T && !R))")
    assert "ltl pc10 {" in line and "!R& X(" in line


# What the user sees: verify parses the model, then runs spin -a; a model spin rejects is an
# error at spin's position with spin's message, exit status 2, and no traceback.  Where our
# parser stops first (patterns.pml), spin is asked too and its message is the one shown
# (loading.load_model_checked).
CLI_CASES = ["beem/production_cell.1.pm", "beem/train-gate.1.pm",
             "spins-case-studies/Samples/p342.pftp.ses1.pml", "spin-all/Examples/LTL/patterns.pml"]


@pytest.mark.parametrize("name", CLI_CASES)
def test_cli_shows_spins_message(corpus: Path, name: str, tmp_path: Path):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "topspin_py.cli", "verify", "--strategy", "none",
                           str(_model(corpus, name))], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    # The first line that is not live progress (printed when a stage takes seconds: on a
    # loaded machine, reading a large model may)
    first = next(line for line in proc.stderr.splitlines()
                 if not re.fullmatch(r"topspin-py: .*, \d+ s.*", line))
    spins = REJECTED[name]
    if match := re.fullmatch(r"spin: (?P<file>[^:]+):(?P<line>\d+), Error: (?P<message>.*)", spins):
        assert first == (f"{_model(corpus, name)}:{match['line']}: "
                         f"error: spin rejects the model: {' '.join(match['message'].split())}")
        # and spin's own line below it, naming the model as the user did
        said = spins.replace(f"spin: {match['file']}", f"spin: {_model(corpus, name)}")
        assert " ".join(said.split()) in " ".join(proc.stderr.split())
    else:
        # spin's ltl translator names no place ("tl_spin: ..."): its message, at the place our
        # parser stopped (see test_ltl_operator_under_a_bitwise_and)
        assert re.fullmatch(rf"{re.escape(str(_model(corpus, name)))}:\d+:\d+: error: spin rejects "
                            rf"the model: {re.escape(spins)}", first), first
