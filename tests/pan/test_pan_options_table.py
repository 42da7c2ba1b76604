"""The README's table of pan options and build modes, checked against real SPIN.

The table ("pan options and build modes with symmetry") says, for every pan option and build
mode, whether verify supports it with symmetry, supports it with a caveat, refuses it, or
does not run a search with it.  These tests read that table and check each row:

* every option `./pan -?` lists (a pan freshly built by spin 6.5.2) has a row;
* every row has a way to run it below (RUNS), and every RUNS entry is a row;
* supported and caveat rows: verify reduces (group order 6 on tests/models/pan_options.pml)
  and gives the verdict (errors or none) that plain SPIN gives, `spin -a; gcc; ./pan` with
  the same option on the same model: the oracle is SPIN, not topspin-py;
* refused and not-a-search rows: exit status 2 with an error message, never a traceback.

Cost: about one verify run (spin -a, detection, gcc -O0, pan) per case, and one plain build
per set of defines, shared by the rows that use it.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import shutil
import subprocess
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import MODELS, REPO

from topspin_py.cli import main

README = REPO / "README.md"
MODEL = MODELS / "pan_options.pml"
SECTION = "## pan options and build modes with symmetry"
GROUP_ORDER = 6   # S3 on the three users (the model's header)


@dataclass(frozen=True)
class Run:
    """How to exercise one row: the -D defines (for spin and pan), pan's arguments, spin's
    options, and the model variants to compare (BUG: the model has an assertion violation)."""

    defines: tuple[str, ...] = ()
    pan: tuple[str, ...] = ()
    spin: tuple[str, ...] = ()
    bugs: tuple[bool, ...] = (True,)
    compare: bool = True   # False: pan's own verdict is not reproducible (see the row)


BOTH = (True, False)
# Keys are the table's first cells, verbatim.  Unsound reductions lose errors, so every search
# row runs the model with its bug; rows that change what is stored or checked also run the
# correct model, where a reduced run must not report an error plain pan does not.
RUNS: dict[str, Run] = {
    "(none)": Run(bugs=BOTH),
    # A claim with a real acceptance cycle when two users are in the critical section (-A: the
    # assertion would be found first).
    "`-a`": Run(pan=("-a", "-A"), spin=("-f", "<>[] (in_cs != 1)"), bugs=BOTH),
    "`-A`": Run(pan=("-A",)),
    "`-b`": Run(pan=("-b",)),
    "`-cN`": Run(pan=("-c2",)),
    "`-e`": Run(pan=("-e",)),
    "`-E`": Run(pan=("-E",)),
    "`-f`": Run(pan=("-a", "-f")),
    "`-hN`": Run(pan=("-h1",)),
    "`-hash`": Run(pan=("-hash",)),
    "`-i`": Run(pan=("-i",), bugs=BOTH),
    "`-I`": Run(pan=("-I",)),
    "`-J`": Run(pan=("-J",)),
    "`-l`": Run(pan=("-l",), bugs=BOTH),
    "`-mN`": Run(pan=("-m20",)),
    "`-n`": Run(pan=("-n",)),
    "`-N name`": Run(defines=("LTL",), pan=("-a", "-N", "live"), bugs=BOTH),
    "`-QN`": Run(pan=("-Q1",)),
    "`-q`": Run(pan=("-q",)),
    "`-RSn`": Run(pan=("-RS42",)),
    # -rhash may pick -p_randrot, under which pan itself reports errors in correct models.
    "`-rhash`": Run(defines=("PERMUTED",), pan=("-rhash", "-RS42"), compare=False),
    "`-p_permute`, `-p_reverse`, `-p_rotateN`, `-p_normal`": Run(defines=("PERMUTED",), pan=("-p_permute",)),
    "`-p_randrot`": Run(defines=("PERMUTED",), pan=("-p_randrot",), compare=False),
    "`-P0`, `-P1`, `-i_reverse`": Run(pan=("-P1",)),
    "`-t_reverse`": Run(pan=("-t_reverse",)),
    "`-T`": Run(pan=("-T",)),
    "`-tsuf`": Run(pan=("-tsuf",)),
    "`-wN`": Run(pan=("-w10",)),
    "`-v`": Run(pan=("-v",)),
    "`-x`": Run(pan=("-x",)),
    "`-X`, `-Y`": Run(pan=("-X", "-Y")),
    "`-zN`": Run(defines=("NCORE=2",), pan=("-z10",)),
    "`-kN`, `-MN`, `-GN`": Run(defines=("BITSTATE",), pan=("-k3", "-M1")),
    "`-u`": Run(defines=("BFS_PAR",), pan=("-u2",)),
    "`-LN`": Run(defines=("BCS",), pan=("-L1",)),
    "`-F file`": Run(defines=("SC",), pan=("-Fstack",)),
    "`-d`": Run(pan=("-d",)),
    "`-D`": Run(pan=("-D",)),
    "`-V`": Run(pan=("-V",)),
    "`-r`, `-rN`": Run(pan=("-r",)),
    "`-C`": Run(pan=("-C",)),
    "`-g`": Run(pan=("-g",)),
    "`-S`": Run(pan=("-S",)),
    "`-R`": Run(defines=("BITSTATE",), pan=("-R2",)),
    "`-?`": Run(pan=("-?",)),
    "`-DSAFETY`": Run(defines=("SAFETY",)),
    "`-DNOREDUCE`": Run(defines=("NOREDUCE",), bugs=BOTH),
    "`-DNOCLAIM`": Run(defines=("LTL", "NOCLAIM")),
    "`-DNP`": Run(defines=("NP", "NOPROGRESS"), pan=("-l",), bugs=BOTH),   # a real non-progress cycle
    "`-DBFS`": Run(defines=("BFS",), bugs=BOTH),
    "`-DBFS -DBITSTATE`": Run(defines=("BFS", "BITSTATE")),
    "`-DBFS_PAR`": Run(defines=("BFS_PAR",)),
    "`-DBFS_DISK`": Run(defines=("BFS", "BFS_DISK")),
    "`-DBITSTATE`": Run(defines=("BITSTATE",), bugs=BOTH),
    "`-DHC0` ... `-DHC4`, `-DHC`": Run(defines=("HC4",), bugs=BOTH),
    "`-DCOLLAPSE`": Run(defines=("COLLAPSE",), bugs=BOTH),
    "`-DMA=N`": Run(defines=("MA=40",), bugs=BOTH),
    "`-DNOCOMP`": Run(defines=("NOCOMP",)),
    "`-DNOFAIR`": Run(defines=("NOFAIR",)),
    "`-DREACH`": Run(defines=("REACH",)),
    "`-DVECTORSZ=N`, `-DMEMLIM=N`": Run(defines=("VECTORSZ=2048", "MEMLIM=512")),
    "`-DNCORE=N`": Run(defines=("NCORE=2",)),
    "`-DTRIX`": Run(defines=("TRIX",)),
    "`-DBCS`": Run(defines=("BCS",)),
    "`-DSPACE`, `-DNOBOUNDCHECK`, `-DXUSAFE`, `-DNOSTUTTER`": Run(
        defines=("SPACE", "NOBOUNDCHECK", "XUSAFE", "NOSTUTTER")),
    "`-DCHECK`, `-DVERBOSE`, `-DSDUMP`, `-DSVDUMP`, `-DPRINTF`": Run(defines=("SDUMP", "SVDUMP", "PRINTF")),
    "`-DSC`": Run(defines=("SC",)),
    "`-DMURMUR`, `-DNOVSZ`": Run(defines=("MURMUR", "NOVSZ")),
    "`-DSFH`, `-DJHASH`, `-DHYBRID_HASH`": Run(defines=("JHASH",)),
    "`-DT_RAND`, `-DP_RAND`, `-DT_REVERSE`, `-DP_REVERSE`, `-DRANDOMIZE`, `-DPERMUTED`": Run(
        defines=("T_RAND", "P_RAND")),
    "spin `-o1` ... `-o5`": Run(spin=("-o3",)),
    "spin `-o6`, `-o7`": Run(spin=("-o6",)),
    # The negated property, as spin -f wants it: a safety claim (accept_all only).
    "spin `-f FORMULA`, `-F FILE`": Run(spin=("-f", "!([] (in_cs <= 1))"), bugs=BOTH),
    "spin `-N FILE`": Run(spin=("-N", str(MODELS / "claims" / "mutual_exclusion.pml")),
                          bugs=BOTH),
    "spin `-E-IDIR`": Run(spin=("-E-I" + str(MODELS),)),
}
# -DCHECK and -DVERBOSE print a line per step (slow at -O0 for nothing); -DSFH and
# -DHYBRID_HASH are refused as JHASH is (no pan 6.5.2 source tests them); -DP_REVERSE etc.
# reorder the search as T_RAND does: their rows run a representative of the group, the others
# were run by hand (report).


def table() -> dict[str, str]:
    """The README table: first cell -> status (supported, caveat, refused, not a search)."""
    text = README.read_text()
    assert SECTION in text, f"README has no section '{SECTION}'"
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in body.splitlines():
        if not line.startswith("| ") or line.startswith("| option ") or line.startswith("|---"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        assert len(cells) == 4, f"README table row without 4 cells: {line}"
        rows[cells[0]] = cells[2]
    return rows


ROWS = table()


def status(row: str) -> str:
    return ROWS[row]


def test_every_row_has_a_known_status():
    assert {status(row) for row in ROWS} <= {"supported", "caveat", "refused", "not a search"}


def test_rows_and_runs_agree():
    assert set(ROWS) == set(RUNS), (set(ROWS) ^ set(RUNS))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    # A copy of the model: verify keeps its trails beside the model.
    directory = tmp_path_factory.mktemp("pan_options")
    shutil.copyfile(MODEL, directory / MODEL.name)
    return directory


_builds: dict[tuple, Path] = {}


def plain_pan(workdir: Path, run: Run, bug: bool) -> Path:
    """Plain SPIN's pan for this build (spin -a, gcc -O0), shared by the rows that use it."""
    defines = [f"-D{d}" for d in run.defines]
    # what spin -run adds for these pan arguments (and what verify adds, as the README says)
    defines += ["-DNP"] * ("-l" in run.pan) + ["-DREACH"] * ("-i" in run.pan)
    key = (tuple(defines), run.spin, bug)
    if key not in _builds:
        build = workdir / f"plain{len(_builds)}"
        build.mkdir()
        shutil.copyfile(MODEL, build / MODEL.name)
        subprocess.run(["spin", *run.spin, *(["-DBUG"] if bug else []), *defines, "-a", MODEL.name],
                       cwd=build, check=True, capture_output=True)
        # model macros go to spin only, as verify routes them
        pan_defines = [d for d in defines if d not in ("-DLTL", "-DNOPROGRESS")]
        subprocess.run(["gcc", "-O0", *pan_defines, "-o", "pan", "pan.c"], cwd=build, check=True,
                       capture_output=True)
        _builds[key] = build
    return _builds[key]


def plain_errors(workdir: Path, run: Run, bug: bool) -> int:
    build = plain_pan(workdir, run, bug)
    for trail in build.glob("*.trail"):
        trail.unlink()
    out = subprocess.run(["./pan", *run.pan], cwd=build, capture_output=True, text=True, timeout=60)
    counts = re.findall(r"errors: (\d+)", out.stdout + out.stderr)
    assert counts, f"plain pan {run.pan} gave no verdict:\n{out.stdout[-1500:]}"
    return int(counts[-1])


@dataclass(frozen=True)
class Outcome:
    returncode: int
    stdout: str
    stderr: str


def verify(workdir: Path, run: Run, bug: bool) -> Outcome:
    """`topspin-py verify --json --gcc-opt=-O0 MODEL ...` as the command line runs it, in this
    process (a fresh interpreter per run would spend most of its time importing).  An
    exception main() lets through is what a user would see as a traceback."""
    words = [*(f"-D{d}" for d in run.defines), *run.pan]
    if run.spin:
        words.append("--spin=" + shlex.join(run.spin))
    argv = ["verify", "--json", "--gcc-opt=-O0", str(workdir / MODEL.name), *(["-DBUG"] if bug else []), *words]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit_:   # argparse's usage errors
            status = exit_.code if isinstance(exit_.code, int) else 2
        except Exception:   # noqa: BLE001 - reported as the traceback a user would get
            err.write("Traceback (most recent call last):\n" + traceback.format_exc())
            status = 1
    return Outcome(status, out.getvalue(), err.getvalue())


SEARCHES = [(row, bug) for row in ROWS if status(row) in ("supported", "caveat") for bug in RUNS[row].bugs]
STOPS = [row for row in ROWS if status(row) in ("refused", "not a search")]


@pytest.mark.parametrize("row,bug", SEARCHES, ids=[f"{row} {'bug' if bug else 'ok'}" for row, bug in SEARCHES])
def test_supported_row_reduces_with_plain_spins_verdict(workdir, row, bug):
    run = RUNS[row]
    result = verify(workdir, run, bug)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert report["group_order"] == GROUP_ORDER, report
    assert result.returncode == (1 if report["errors"] else 0)
    if run.compare:
        assert bool(report["errors"]) == bool(plain_errors(workdir, run, bug)), (
            f"verify found {report['errors']} errors, plain SPIN {plain_errors(workdir, run, bug)}")


@pytest.mark.parametrize("row", STOPS)
def test_refused_or_not_a_search_exits_2_with_a_message(workdir, row):
    result = verify(workdir, RUNS[row], False)
    assert result.returncode == 2, (result.returncode, result.stdout[-500:], result.stderr[-500:])
    assert "Traceback" not in result.stderr
    assert "error:" in result.stderr
    if status(row) == "not a search" and row != "`-D`":   # -D is verify's own define option
        # (a replay is refused before pan runs: it would print what the model prints, and no report)
        assert "pan did not run a search" in result.stderr or "replays a trail" in result.stderr


def test_every_option_pan_lists_has_a_row(workdir):
    build = plain_pan(workdir, Run(), False)
    usage = subprocess.run(["./pan", "-?"], cwd=build, capture_output=True, text=True)
    listed = set(re.findall(r"^\t(-\S+)", usage.stdout + usage.stderr, re.M))
    assert len(listed) > 25, usage.stderr   # pan 6.5.2 lists 33
    named = {name for row in ROWS for name in re.findall(r"`(-[^` ]+)", row)}
    assert listed <= named, f"pan options without a README row: {sorted(listed - named)}"
