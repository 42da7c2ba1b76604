"""The everyday loop: what a verify costs beside `spin -run`, in the same run:
bench/results/everyday.md.

Five small models of the shared corpus, each run as a SPIN user runs it, with default flags,
as commands (a new process each, as from a shell): `spin -run MODEL`; `topspin-py verify MODEL`
on a first run (a model new to the build cache: `--no-cache`, on a machine where topspin-py
has run before, so its compiled templates are there), again on the unchanged model (the cache
holds its pan: a rerun), and with `--strategy none` (`--no-cache`); and `topspin-py
--version`. The five commands alternate, ROUNDS rounds, each in a fresh copy of the model's
folder; the table gives each one's median wall time and its ratio to `spin -run`'s.

    python -m bench everyday     (also part of `make bench`)
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.runner import report_preamble

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOPSPIN_CORPUS", REPO.parent / "shared" / "corpus"))
RESULTS = Path(__file__).resolve().parent / "results"
ROUNDS = 5
MODELS = ("topspin/peterson3.p", "topspin/peterson4.p", "topspin/email3.p", "topspin/mutex5.p",
          "spin-examples/peterson.pml")
# the command beside this Python (the venv's), else the one on PATH
TOPSPIN = [str(Path(sys.executable).parent / "topspin-py")
           if (Path(sys.executable).parent / "topspin-py").is_file() else "topspin-py"]
KINDS = ("spin -run", "verify, first run", "verify, rerun", "verify --strategy none", "--version")


def _timed(command: list[str], cwd: Path, cache: Path) -> float:
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    seconds = time.monotonic() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return seconds


def _round(model: Path, scratch: Path) -> dict[str, float]:
    """One run of each kind, in its own copy of the model's folder."""
    times = {}
    for kind in KINDS:
        folder = Path(tempfile.mkdtemp(dir=scratch))
        copy = folder / model.name
        shutil.copy(model, copy)
        cache = scratch / "cache"   # the run's: templates compiled once, builds kept per key
        if kind == "spin -run":
            times[kind] = _timed(["spin", "-run", copy.name], folder, cache)
        elif kind == "verify, first run":
            times[kind] = _timed([*TOPSPIN, "verify", "--no-cache", copy.name], folder, cache)
        elif kind == "verify, rerun":
            _timed([*TOPSPIN, "verify", copy.name], folder, cache)       # fills the cache
            times[kind] = _timed([*TOPSPIN, "verify", copy.name], folder, cache)
        elif kind == "verify --strategy none":
            times[kind] = _timed([*TOPSPIN, "verify", "--strategy", "none", "--no-cache", copy.name], folder, cache)
        else:
            times[kind] = _timed([*TOPSPIN, "--version"], folder, cache)
        shutil.rmtree(folder, ignore_errors=True)
    return times


def run() -> Path:
    started = time.monotonic()
    rows: list[tuple[str, dict[str, float] | None]] = []   # None: the model is not in the corpus
    with tempfile.TemporaryDirectory(prefix="topspin-everyday-") as name:
        for relative in MODELS:
            model = CORPUS / relative
            if not model.is_file():
                rows.append((relative, None))
                continue
            rounds = [_round(model, Path(name)) for _ in range(ROUNDS)]
            rows.append((relative, {kind: statistics.median(r[kind] for r in rounds) for kind in KINDS}))
    lines = [
        *report_preamble("The everyday loop: verify beside `spin -run`", __doc__, ROUNDS),
        "| model | spin -run | verify, first run | verify, rerun | verify --strategy none | --version |",
        "|---|---|---|---|---|---|",
    ]
    for relative, medians in rows:
        if medians is None:
            lines.append(f"| {relative} | not in the corpus ({CORPUS}) | | | | |")
            continue
        base = medians["spin -run"]
        cells = [f"{base:.2f} s"] + [f"{medians[kind]:.2f} s ({medians[kind] / base:.2f}x)" for kind in KINDS[1:4]]
        lines.append(f"| {relative} | {' | '.join(cells)} | {medians['--version']:.2f} s |")
    lines += ["", f"Benchmark wall time: {time.monotonic() - started:.0f} s.", ""]
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "everyday.md"
    out.write_text("\n".join(lines))
    return out
