"""The build cache (topspin_py/pan/build_cache.py): an unchanged model built with unchanged
flags reuses its pan, and every kind of change misses: the model, a define, the strategy,
spin, the compiler, its flags, topspin-py.  Each run is a real spin, gcc and pan; the verdicts
and state counts of a reused pan are the compiled one's.

Each test has a cache of its own ($XDG_CACHE_HOME in its tmp_path), not the run's shared one
(conftest.py).  Builds are -O0: nothing here is timed.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from topspin_py.pan import build_cache
from topspin_py.pan.build_cache import BuildCache, files_read
from topspin_py.verify import VerifyOptions, verify

# Two identical clients of a lock: S2, and an assertion that N decides.
MODEL = textwrap.dedent("""\
    #ifndef N
    #define N 2
    #endif
    byte inside;
    active [2] proctype client() {
        do
        :: atomic { inside < N -> inside++ };
           assert(inside <= N);
           inside--
        od
    }
    """)


@pytest.fixture
def model(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("CFLAGS", raising=False)
    monkeypatch.delenv("CC", raising=False)
    path = tmp_path / "m.pml"
    path.write_text(MODEL)
    return path


def _run(model: Path, **options):
    options.setdefault("optimisation", "-O0")
    options.setdefault("save_trails", False)
    return verify(model, VerifyOptions(**options))


def _entries(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "cache" / "topspin-py" / "builds"
    return sorted(path for path in folder.iterdir() if not path.name.startswith(".")) if folder.is_dir() else []


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_an_unchanged_build_is_reused_with_the_same_outcome(model, tmp_path):
    first = _run(model)
    assert first.build_cache is not None and first.build_cache.startswith("compiled")
    assert not first.build_reused
    assert len(_entries(tmp_path)) == 1
    again = _run(model)
    assert again.build_reused, again.build_cache
    assert "pan reused from the build cache" in again.summary()
    assert '"build_cache": "reused the build in ' in again.to_json()
    # the same search: the reduced counts (S2 on 2 clients), the verdict
    assert (again.states_stored, again.transitions, again.errors, again.group_order) == \
           (first.states_stored, first.transitions, first.errors, first.group_order)
    assert again.group_order == 2 and again.errors == 0
    assert len(_entries(tmp_path)) == 1


def test_no_cache_compiles_and_keeps_nothing(model, tmp_path):
    result = _run(model, use_cache=False)
    assert result.build_cache is None and not result.build_reused
    assert _entries(tmp_path) == []


@pytest.mark.parametrize("change", ["model", "define", "pan define", "strategy", "optimisation", "cflags"])
def test_every_change_to_what_gcc_reads_misses(model, tmp_path, monkeypatch, change):
    first = _run(model)
    assert first.build_cache.startswith("compiled")
    options: dict = {}
    if change == "model":
        model.write_text(MODEL.replace("assert(inside <= N)", "assert(inside < N)"))
    elif change == "define":
        options["defines"] = ("N=1",)
    elif change == "pan define":
        options["defines"] = ("NOREDUCE",)
    elif change == "strategy":
        options["strategy"] = "segmented" if first.strategy != "segmented" else "enumerate"
    elif change == "optimisation":
        options["optimisation"] = "-O1"
    elif change == "cflags":
        monkeypatch.setenv("CFLAGS", "-g")
    second = _run(model, **options)
    assert second.build_cache.startswith("compiled"), (change, second.build_cache)
    assert len(_entries(tmp_path)) == 2
    if change == "define":   # and it took effect: one client inside at a time, fewer states
        assert second.states_stored < first.states_stored
    if change == "model":    # both inside: the assertion fails
        assert second.errors == 1 and first.errors == 0


def test_a_change_spin_translates_to_the_same_pan_reuses_it(model, tmp_path):
    """The key is what gcc reads, not the model's bytes: spin writes `inside--` and
    `inside = inside - 1` alike, so the build is the same one."""
    _run(model)
    model.write_text(MODEL.replace("inside--", "inside = inside - 1"))
    assert _run(model).build_reused


def test_another_spin_misses(model, tmp_path, monkeypatch):
    """The same spin under a wrapper that calls itself 6.5.3: the key has spin's version."""
    _run(model)
    real = shutil.which("spin")
    wrapper_dir = tmp_path / "bin"
    wrapper_dir.mkdir()
    _executable(wrapper_dir / "spin", textwrap.dedent(f"""\
        #!/bin/sh
        if [ "$1" = "-V" ]; then echo "Spin Version 6.5.3 -- 1 January 2027"; exit 0; fi
        exec {real} "$@"
        """))
    monkeypatch.setenv("PATH", f"{wrapper_dir}{os.pathsep}{os.environ['PATH']}")
    notes: list[str] = []
    second = _run(model, on_note=notes.append)
    assert second.build_cache.startswith("compiled"), second.build_cache
    assert len(_entries(tmp_path)) == 2


def test_another_compiler_misses(model, tmp_path, monkeypatch):
    """gcc under another name (CC, a wrapper script): the key has the compiler's identity."""
    _run(model)
    wrapper = tmp_path / "my-gcc"
    _executable(wrapper, f"#!/bin/sh\nexec {shutil.which('gcc')} \"$@\"\n")
    monkeypatch.setenv("CC", str(wrapper))
    second = _run(model)
    assert second.build_cache.startswith("compiled"), second.build_cache
    # the same compiler changed in place (a newer executable at the same path) misses too
    build_cache.compiler_identity.cache_clear()
    third = _run(model)
    assert third.build_reused
    os.utime(wrapper, ns=(wrapper.stat().st_atime_ns, wrapper.stat().st_mtime_ns + 10**9))
    wrapper.write_text(wrapper.read_text() + "# upgraded\n")
    build_cache.compiler_identity.cache_clear()
    fourth = _run(model)
    assert fourth.build_cache.startswith("compiled"), fourth.build_cache
    build_cache.compiler_identity.cache_clear()


def test_another_topspin_py_misses(model, tmp_path, monkeypatch):
    _run(model)
    monkeypatch.setattr(build_cache, "__version__", "0.0.0-other")
    assert _run(model).build_cache.startswith("compiled")
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert _run(model).build_reused


def test_the_fingerprint_follows_every_python_file(tmp_path):
    package = Path(build_cache.__file__).resolve().parent.parent
    copy = tmp_path / "topspin_py"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert build_cache.package_fingerprint(copy) == build_cache.package_fingerprint(package)
    edited = copy / "symmetry" / "validity" / "checker.py"
    edited.write_text(edited.read_text() + "\n# an edit\n")
    assert build_cache.package_fingerprint.__wrapped__(copy) != build_cache.package_fingerprint(package)


def test_a_build_reading_a_file_the_cache_cannot_follow_is_not_cached(model, tmp_path, monkeypatch):
    monkeypatch.setenv("CFLAGS", f"-I{tmp_path}")
    details: list[str] = []
    result = _run(model, on_detail=details.append)
    assert result.build_cache.startswith("not cached: the compile command has -I"), result.build_cache
    assert _entries(tmp_path) == []
    assert any(line.startswith("build cache: not cached") for line in details)


def test_files_read_follows_includes_and_macros(tmp_path):
    (tmp_path / "pan.c").write_text('#include "pan.h"\n#include <stdio.h>\n#include TRANSITIONS\n'
                                    '#ifdef MYSTEP\n#include "mystep.c"\n#endif\n#include SYM_FILE\n')
    (tmp_path / "pan.h").write_text('#define TRANSITIONS "pan.t"\n')
    (tmp_path / "pan.t").write_text("/* transitions */\n")
    (tmp_path / "sym.c").write_text("/* canonicaliser */\n")
    read = files_read(tmp_path, ["gcc", '-DSYM_FILE="sym.c"', "-o", "pan", "pan.c"])
    assert read == {"pan.c": (tmp_path / "pan.c").read_bytes(), "pan.h": (tmp_path / "pan.h").read_bytes(),
                    "pan.t": b"/* transitions */\n", "sym.c": b"/* canonicaliser */\n", "mystep.c": None}
    with pytest.raises(build_cache.Uncacheable):
        files_read(tmp_path, ["gcc", "-DSYM_FILE=SOMEWHERE", "-o", "pan", "pan.c"])


def test_the_cache_stays_within_its_bound(tmp_path):
    binary = tmp_path / "pan"
    binary.write_bytes(b"x" * 1000)
    cache = BuildCache(tmp_path / "cache", max_bytes=3500)   # three entries of 1000 bytes fit
    entries = [build_cache.CacheEntry(cache.directory / f"entry{i}", cache.max_bytes) for i in range(3)]
    for age, entry in enumerate(entries):
        entry.store(binary, "")
        os.utime(entry.path, (1000 + age, 1000 + age))
    entries[0].fetch(tmp_path / "fetched")        # used: now the most recent
    entry = build_cache.CacheEntry(cache.directory / "entry3", cache.max_bytes)
    entry.store(binary, "")
    kept = sorted(path.name for path in cache.directory.iterdir() if not path.name.startswith("."))
    assert kept == ["entry0", "entry2", "entry3"]    # the least recently used went


def test_a_damaged_entry_is_a_miss_and_is_replaced(model, tmp_path):
    _run(model)
    (entry,) = _entries(tmp_path)
    (entry / build_cache.BINARY).unlink()
    result = _run(model)
    assert not result.build_reused
    assert result.errors == 0 and result.group_order == 2


def test_the_command_line_reuses_and_says_so(model, tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "topspin_py.cli", "verify", "--gcc-opt=-O0", str(model)]
    first = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "build:" not in first.stdout
    second = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "pan reused from the build cache" in second.stdout
    third = subprocess.run([*command[:4], "--no-cache", *command[4:]], capture_output=True, text=True,
                           env=env, cwd=tmp_path)
    assert third.returncode == 0, third.stderr
    assert "build:" not in third.stdout
