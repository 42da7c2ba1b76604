"""``--keep DIR`` with a relative DIR (found while probing models for issue 5).

verify builds pan in the kept directory and runs it with that directory as its working
directory; given as ``build`` rather than ``/abs/build``, the binary's path ``build/pan`` is
then looked up from inside ``build`` (``build/build/pan``), and the run fails with "cannot run
pan: [Errno 2] No such file or directory: 'build/pan'".  An absolute DIR works.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from small_models import COUNTER
from topspin_py.verify import VerifyOptions, verify


def _model(tmp_path: Path) -> Path:
    path = tmp_path / "counter.pml"
    path.write_text(COUNTER.replace("{N}", "2"))
    return path


def test_keep_with_an_absolute_directory(tmp_path: Path):
    result = verify(_model(tmp_path), VerifyOptions(strategy="none", keep_dir=tmp_path / "kept"))
    assert result.states_stored == 7 and (tmp_path / "kept" / "pan").is_file()


@pytest.mark.xfail(strict=True, reason="verify runs the kept pan by a path relative to the "
                   "caller's directory from inside the kept directory (product bug)")
def test_keep_with_a_relative_directory(tmp_path: Path, monkeypatch):
    model = _model(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = verify(model, VerifyOptions(strategy="none", keep_dir=Path("kept")))
    assert result.states_stored == 7 and (tmp_path / "kept" / "pan").is_file()
