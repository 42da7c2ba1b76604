"""Every model in tests/models/ against the expectations in its header.

The header syntax is described in tests/support/modelgen.py.  For each ``expect:`` line of each model:

* ``test_verify``: ``topspin-py verify --strategy none --json`` gives the expected counts and
  exit status (0, or 1 when pan finds errors), and never a traceback;
* ``test_plain_spin``: plain spin + gcc + pan give the same counts, so the headers themselves
  stay true (this is the reference the tool is measured against);
* ``test_roundtrip``: the front end parses the model, the printer's text parses back to an
  equal AST, and spin on the printed text gives the same counts as on the original.

The models of tests/models/extension/ are written with the ref/public extension of [DG01],
which spin does not read: verify desugars them and gives spin the desugared program with -o1
(toolchain.spin_command), and so do ``test_plain_spin`` and ``test_roundtrip``, with plain spin
on that program as the reference.

``test_processes``: where the header has a ``pids:`` line, ``load_model`` finds those process
instances, in SPIN's pid order.

Every model in tests/models/bad/ must be refused with exit status 2, no traceback, and the
``file:line`` and message fragment of its header on stderr.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest
from conftest import MODELS
from modelgen import (
    FAMILIES,
    FAMILY_FLAGS,
    FAMILY_PAN,
    HeaderError,
    Run,
    copy_model,
    generate,
    parse_header,
    read_header,
    run_cli,
    run_params,
    run_spin,
    verify_args,
)

GOOD = sorted(MODELS.glob("*.pml")) + sorted((MODELS / "extension").glob("*.pml"))
BAD = sorted((MODELS / "bad").glob("*.pml"))

# JSON keys of `verify --json` for the header's count keys.
JSON_KEYS = {
    "states": "states_stored",
    "transitions": "transitions",
    "matched": "states_matched",
    "errors": "errors",
    "depth": "depth",
}


RUNS = run_params(GOOD)


def _require(run: Run | None, header_error: str | None) -> Run:
    if header_error is not None:
        pytest.fail(header_error)
    assert run is not None
    return run


def _assert_counts(got: dict[str, float], run: Run, what: str) -> None:
    # pan prints counts with %9.8g: compare as numbers, exactly (all our models are small).
    mismatches = {key: (want, got.get(key)) for key, want in run.counts.items()
                  if got.get(key) is None or float(got[key]) != float(want)}
    assert not mismatches, f"{what} ({run.label()}): {{key: (expected, got)}} = {mismatches}"


@functools.lru_cache(maxsize=None)
def _plain(path: Path, run: Run):
    desugared = _desugared(path, run)
    if desugared is not None:
        return run_spin(text=desugared, flags=run.flags, pan=run.pan, opt="-O0", spin_args=("-o1",))
    return run_spin(path, flags=run.flags, defines=run.defines, pan=run.pan, opt="-O0")


def _desugared(path: Path, run: Run) -> str | None:
    """The program spin is given for a model written with the ref/public extension (its
    desugaring, preprocessed with the run's defines); None for plain Promela."""
    from topspin_py.promela import load_model

    return load_model(path, tuple(d.removeprefix("-D") for d in run.defines)).spin_text


def _verify_args(path: Path, run: Run) -> list[str]:
    return verify_args(path, run, "none")


# ----------------------------------------------------------------------------------- tests


def test_there_are_models():
    assert len(GOOD) >= 10 and len(BAD) >= 5


@pytest.mark.parametrize("path,run,header_error", RUNS)
def test_verify(path: Path, run: Run | None, header_error: str | None, tmp_path: Path):
    run = _require(run, header_error)
    proc = run_cli(*_verify_args(copy_model(path, tmp_path), run))
    assert "Traceback" not in proc.stderr, proc.stderr
    want_errors = run.counts.get("errors", 0)
    want_status = 1 if want_errors else 0
    assert proc.returncode == want_status, (
        f"exit status {proc.returncode}, expected {want_status}\n{proc.stdout}\n{proc.stderr}")
    result = json.loads(proc.stdout)
    got = {key: result.get(json_key) for key, json_key in JSON_KEYS.items()}
    _assert_counts(got, run, f"topspin-py verify on {path.name}")
    if not want_errors:
        assert result.get("complete") is True, result


@pytest.mark.parametrize("path,run,header_error", RUNS)
def test_plain_spin(path: Path, run: Run | None, header_error: str | None):
    run = _require(run, header_error)
    res = _plain(path, run)
    _assert_counts({key: res.get(key) for key in JSON_KEYS}, run, f"plain spin on {path.name}")


def _pid_params():
    params = []
    for path in GOOD:
        try:
            header = read_header(path)
        except HeaderError:
            continue  # reported by the other tests
        if header.pids is not None:
            defines = header.runs[0].defines if header.runs else ()
            params.append(pytest.param(path, defines, header.pids, id=path.stem))
    return params


@pytest.mark.parametrize("path,defines,pids", _pid_params())
def test_processes(path: Path, defines: tuple[str, ...], pids: tuple[str, ...]):
    from topspin_py.promela import load_model

    model = load_model(path, defines=defines)
    got = [(p.pid, p.proctype) for p in model.processes]
    assert got == list(enumerate(pids))


@pytest.mark.parametrize("path,run,header_error", RUNS)
def test_roundtrip(path: Path, run: Run | None, header_error: str | None, tmp_path: Path):
    from topspin_py.promela import parse_file, parse_text, print_spec

    run = _require(run, header_error)
    spec = parse_file(path, defines=run.defines)
    text = print_spec(spec)
    (tmp_path / "printed.pml").write_text(text)
    again = parse_text(text, str(tmp_path / "printed.pml"))
    assert again == spec, f"the printed text of {path.name} parses to a different AST " \
                          f"(see {tmp_path / 'printed.pml'})"
    # The printed text is already preprocessed: no defines for spin, the same pan flags.
    desugared = _desugared(tmp_path / "printed.pml", Run())
    if desugared is not None:   # the extension: spin reads the desugaring of the printed text
        printed = run_spin(text=desugared, flags=run.flags, pan=run.pan, opt="-O0", spin_args=("-o1",))
    else:
        printed = run_spin(text=text, flags=run.flags, pan=run.pan, opt="-O0")
    original = _plain(path, run)
    for key in ("states", "transitions", "matched", "errors"):
        assert printed.get(key) == original.get(key), (
            f"{key}: printed model {printed.get(key)}, original {original.get(key)} "
            f"({run.label()})")


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_model(path: Path, tmp_path: Path):
    expectation = read_header(path).error
    assert expectation is not None, f"{path.name}: models in bad/ need an 'expect: error' header"
    proc = run_cli("verify", str(copy_model(path, tmp_path)), "--strategy", "none", "--json")
    assert proc.returncode == 2, f"exit status {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    if expectation.line is not None:
        name = Path(expectation.file).name if expectation.file else path.name
        where = re.compile(rf"(?:^|[/\s]){re.escape(name)}:{expectation.line}\b", re.M)
        assert where.search(proc.stderr), (
            f"expected {name}:{expectation.line} in stderr:\n{proc.stderr}")
    if expectation.message is not None:
        assert expectation.message.lower() in proc.stderr.lower(), proc.stderr


@pytest.mark.parametrize("family,n", sorted(FAMILIES), ids=lambda v: str(v))
def test_generated(family: str, n: int, tmp_path: Path):
    """The generated families (tests/support/modelgen.py) through topspin-py verify."""
    path = tmp_path / f"{family}{n}.pml"
    path.write_text(generate(family, n))
    run = Run(flags=FAMILY_FLAGS, pan=FAMILY_PAN, expect=tuple(FAMILIES[family, n].items()))
    proc = run_cli(*_verify_args(path, run))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    result = json.loads(proc.stdout)
    _assert_counts({key: result.get(json_key) for key, json_key in JSON_KEYS.items()}, run,
                   f"topspin-py verify on {family}({n})")


@pytest.mark.parametrize("family,n", sorted(FAMILIES), ids=lambda v: str(v))
def test_generated_plain_spin(family: str, n: int):
    res = run_spin(text=generate(family, n), flags=FAMILY_FLAGS, pan=FAMILY_PAN, opt="-O0")
    run = Run(expect=tuple(FAMILIES[family, n].items()))
    _assert_counts({key: res.get(key) for key in JSON_KEYS}, run, f"plain spin on {family}({n})")


# ---------------------------------------------------------------- the header syntax itself


def test_header_syntax():
    header = parse_header("""/* Prose first.
       expect: flags=-DNOREDUCE defines=-DN=3 states=12 transitions=47 errors=0
       expect: pan="-a -N p1" pan=-m100000 states=30 errors=1
       pids: P P :init:
       more prose: key=value here is not read */
    init { skip }""")
    first, second = header.runs
    assert first.flags == ("-DNOREDUCE",) and first.defines == ("-DN=3",) and first.pan == ()
    assert first.counts == {"states": 12, "transitions": 47, "errors": 0}
    assert second.pan == ("-a", "-N", "p1", "-m100000")
    assert second.counts == {"states": 30, "errors": 1}
    assert header.pids == ("P", "P", ":init:")
    assert header.error is None
    assert first.order is None and second.order is None


def test_header_order():
    header = parse_header("""/* pid 1 is named, so only 2 and 3 may swap: order 2.
       expect: defines=-DWHO=1 states=7 errors=1 order=2
       expect: defines=-DWHO=3 order=2 states=8 errors=1 */""")
    first, second = header.runs
    assert first.order == 2 and second.order == 2
    # The group order is an expectation of its own, not one of pan's counts.
    assert first.counts == {"states": 7, "errors": 1}
    assert second.defines == ("-DWHO=3",) and second.counts == {"states": 8, "errors": 1}


def test_header_error_syntax():
    header = parse_header('/* expect: error file=include/x.h line=7 message="syntax error" */')
    assert header.runs == []
    assert header.error is not None
    assert header.error.line == 7 and header.error.file == "include/x.h"
    assert header.error.message == "syntax error"


@pytest.mark.parametrize("text", [
    "init { skip }",                                     # no leading comment
    "/* no expectation here */",                         # no expect: line
    "/* expect: states=1 colour=blue */",                # unknown key
    "/* expect: states=many */",                         # not a number
    "/* expect: flags=-DNOREDUCE */",                    # no count
    "/* expect: states=1 states=2 */",                   # a count twice
    "/* expect: order=2 */",                             # an order is not a count
    "/* expect: states=1 order=2 order=2 */",            # an order twice
    "/* expect: states=1 order=0 */",                    # no group has order 0
    "/* expect: states=1 order=big */",                  # not a number
    "/* expect: states=1\n   pids: P\n   pids: P */",     # pids twice
    "/* expect: error line=3\n   expect: states=1 */",   # error and runs mixed
])
def test_header_rejects(text: str):
    with pytest.raises(HeaderError):
        parse_header(text)
