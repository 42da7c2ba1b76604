"""No traceback on any input, and exit status 2 for everything that is not a verdict.

Whatever the bytes of the model file, ``topspin-py detect`` (which parses the model with our
front end, runs ``spin -a`` and the symmetry analysis) ends with exit status 0 or 2 and never
with a Python traceback.  The oracle for which of the two is spin itself: mutated models that
``spin -a`` accepts must be accepted (exit 0: our front end and analysis take what spin takes),
and the ones it rejects must be refused (exit 2, with a message).  The inputs are the soundness
models of tests/models/soundness/ with bytes deleted, inserted or replaced (hypothesis), and
arbitrary bytes.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import MODELS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SEEDS = sorted((MODELS / "soundness").glob("*.pml"))
# Bytes a mutation puts in: Promela's punctuation, a NUL, a Latin-1 letter, an invalid UTF-8
# lead byte, a newline and letters.
ALPHABET = [bytes([b]) for b in b"{}();:!?-><=&|[]@.,#\"'\n\t xyz019"] + [b"\x00", b"\xe9", b"\xc3", b"\xff"]


def _detect(path: Path, capsys) -> tuple[int, str]:
    from topspin_py.cli import main

    try:
        status = main(["detect", str(path)])
    except SystemExit as leave:   # argparse
        status = int(leave.code or 0)
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def _spin_accepts(path: Path) -> bool:
    with tempfile.TemporaryDirectory(prefix="topspin-any-") as scratch:
        proc = subprocess.run(["spin", "-a", str(path)], cwd=scratch, capture_output=True, timeout=60)
        return proc.returncode == 0 and (Path(scratch) / "pan.c").is_file()


@st.composite
def _mutated(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)).read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        kind = draw(st.sampled_from(("delete", "insert", "replace")))
        piece = draw(st.sampled_from(ALPHABET))
        if kind == "delete" and data:
            del data[at:at + draw(st.integers(1, 8))]
        elif kind == "insert":
            data[at:at] = piece
        elif data:
            data[at:at + 1] = piece
    return bytes(data)


@pytest.mark.skipif(not SEEDS, reason="no soundness models")
@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(_mutated())
def test_a_mutated_model_is_accepted_exactly_when_spin_accepts_it(tmp_path, capsys, content):
    path = tmp_path / "m.pml"
    path.write_bytes(content)
    status, said = _detect(path, capsys)
    assert "Traceback" not in said, said
    assert status in (0, 2), said
    expected = 0 if _spin_accepts(path) else 2
    assert status == expected, f"spin {'accepts' if expected == 0 else 'rejects'} it:\n{said}\n" \
                               f"{content.decode('latin-1')}"
    if status == 2:
        assert "error" in said, said


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_give_a_traceback(tmp_path, capsys, content):
    path = tmp_path / "m.pml"
    path.write_bytes(content)
    status, said = _detect(path, capsys)
    assert "Traceback" not in said, said
    assert status in (0, 2), said


BINARY = bytes(range(256)) * 4   # every byte, invalid UTF-8 among them


@pytest.mark.parametrize("args", [
    ["regress", "{binary}"],
    ["detect", "--group", "{binary}", "{model}"],
    ["verify", "{folder}"],
    ["detect", "{folder}"],
    ["generate", "{folder}", "-o", "{out}"],
])
def test_files_of_the_wrong_kind_are_refused_with_a_message(tmp_path, capsys, args):
    from topspin_py.cli import main

    (tmp_path / "binary").write_bytes(BINARY)
    (tmp_path / "m.pml").write_text("active [2] proctype p() { skip }\n")
    (tmp_path / "folder").mkdir()
    values = {"binary": tmp_path / "binary", "model": tmp_path / "m.pml",
              "folder": tmp_path / "folder", "out": tmp_path / "out"}
    status = main([arg.format(**values) for arg in args])
    said = capsys.readouterr().err
    assert status == 2, said
    assert "Traceback" not in said and "error" in said, said
