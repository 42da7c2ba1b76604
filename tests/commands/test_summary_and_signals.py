"""What verify's summary shows of pan's report, and how verify behaves on long runs.

The summary (and the JSON) must show what a SPIN user reads in pan's report: the claim, the
unreached statements, pan's warnings, the search's modes with the bitstate hash factor, and
BFS's nominal states.  Each expected value comes from a plain run of the same model with
the same flags (spin -a, gcc, pan: ``plain_report``), read with this file's own patterns.

Long runs: a status line from the first second, Ctrl-C that keeps pan's statistics so far,
and SIGTERM (``timeout``) that leaves no temporary files or child processes behind.  Those
tests run ``python -m topspin_py.cli verify`` as a user does, on LONG: five processes choosing
one of 16 values each, 33^5 (39 million) states, a minute of search, in a 16 MB bit array.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO
from modelgen import run_spin
from small_models import COUNTER

from topspin_py.pan.progress import ProgressDisplay
from topspin_py.verify import VerifyOptions, verify

NEVER_CLAIM = """
byte x;
active proctype A() { x = 1; x = 2 }
never { do :: x == 5 -> accept: skip :: else od }
"""

LTL_CLAIM = """
byte x;
active proctype A() { x = 1; x = 2 }
ltl below_three { [] (x < 3) }
"""

NO_CLAIM = """
byte x;
active proctype A() { x = 1; x = 2 }
"""

# x stays 0: the statements after x == 1 and x == 9 are never executed, twelve of them.
UNREACHED = """
byte x, y;
active proctype A() {
	if
	:: x == 1 -> y = 1; y = 2; y = 3; y = 4; y = 5; y = 6; y = 7
	:: else -> y = 9
	fi
}
init {
	if
	:: x == 9 -> y = 1; y = 2; y = 3; y = 4; y = 5
	:: else
	fi
}
"""

# An atomic step for BFS's nominal states (stored minus atomic steps): the state between the
# two runs inside init's atomic sequence.
ATOMIC = """
byte x;
proctype A() { x++; x-- }
init { atomic { run A(); run A() } }
"""

LONG = """
byte x[5];
active [5] proctype P() { byte v; select(v : 0..15); x[_pid] = v; end: x[_pid] == 255 }
"""
LONG_ARGS = ("--strategy", "none", "-DBITSTATE", "-DNOREDUCE")


def write(tmp_path: Path, text: str, name: str = "m.pml") -> Path:
    model = tmp_path / name
    model.write_text(text)
    return model


def quick(**options) -> VerifyOptions:
    """verify's options for a small model: no reduction, and gcc -O0 (the counts do not
    depend on it, and it compiles pan.c several times faster)."""
    return VerifyOptions(strategy=options.pop("strategy", "none"), optimisation="-O0", **options)


def plain_report(result) -> str:
    """pan's report for the same model, built and run by hand with the flags verify used."""
    return run_spin(Path(result.model), defines=[f"-D{d}" for d in result.defines],
                    flags=result.compile_flags, pan=result.pan_args, opt="-O0").output


def summary_rows(summary: str) -> dict[str, list[str]]:
    """The summary's rows by label (the first 16 columns); a row's continuation lines (16
    blanks, then text) join its list."""
    rows: dict[str, list[str]] = {}
    label = ""
    for line in summary.splitlines():
        if match := re.match(r"^(\S[^:]*):\s*$", line[:16]):
            label = match.group(1)
            rows.setdefault(label, []).append(line[16:])
        elif label and re.match(r"^ {16}\S", line):
            rows[label].append(line[16:])
    return rows


def search_or_fail(pattern: str, text: str, flags: int = 0) -> re.Match[str]:
    """``re.search``'s match, which the caller counts on: no match fails the test here."""
    match = re.search(pattern, text, flags)
    assert match is not None, f"no {pattern!r} in:\n{text}"
    return match


# --- the summary -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, pans_name", [
    (NEVER_CLAIM, "never claim never_0"),   # spin names an unnamed never claim never_0
    (LTL_CLAIM, "ltl below_three"),
    (NO_CLAIM, None),
])
def test_the_claim_checked_is_named(tmp_path, text, pans_name):
    result = verify(write(tmp_path, text), quick(safety=True))
    plain = plain_report(result)
    header = search_or_fail(r"^\tnever claim\s+([+-]) \((.*)\)$", plain, re.M)
    if pans_name is None:
        assert header.groups() == ("-", "none specified")
        expected = "none"
    else:
        assert header.group(1) == "+" and pans_name.endswith(" " + header.group(2))
        expected = pans_name
    assert summary_rows(result.summary())["claim"] == [f"{expected} (safety)"]
    assert json.loads(result.to_json())["claim"] == pans_name


def test_unreached_statements_are_listed_up_to_ten(tmp_path):
    result = verify(write(tmp_path, UNREACHED), quick())
    plain = plain_report(result)
    # pan's blocks: "unreached in proctype A", its statements indented, then "(k of n states)"
    pans = []
    for owner, body in re.findall(r"^unreached in (.+)\n((?:\t.*\n)*)", plain, re.M):
        pans += [f"{owner}: {line.strip()}" for line in body.splitlines()
                 if not re.fullmatch(r"\t\(\d+ of \d+ states\)", line)]
    assert len(pans) == 12   # the assignments after the guards that never hold (x stays 0)
    rows = summary_rows(result.summary())["unreached"]
    assert rows == pans[:10] + [f"... and {len(pans) - 10} more (--json lists them all)"]
    data = json.loads(result.to_json())
    assert [f"{'init' if b['kind'] == 'init' else b['kind'] + ' ' + b['name']}: {s}"
            for b in data["unreached"] for s in b["statements"]] == pans


def test_a_search_that_reaches_everything_says_so(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "3")), quick())
    plain = plain_report(result)
    # pan: "unreached in proctype Counter" followed at once by "(0 of N states)"
    assert re.search(r"^unreached in proctype Counter\n\t\(0 of \d+ states\)$", plain, re.M)
    assert summary_rows(result.summary())["unreached"] == ["none (every statement was executed)"]


@pytest.mark.parametrize("text, options, pans_line, shown", [
    # a never claim with an accept label, checked without -a
    (NEVER_CLAIM, dict(safety=True),
     "warning: never claim + accept labels requires -a flag to fully verify",
     "never claim + accept labels requires -a flag to fully verify"),
    # the depth limit cuts the search (COUNTER 5 needs depth 12), and no rerun may lift it
    (COUNTER.replace("{N}", "5"), dict(pan_args=("-m3",), max_depth_limit=3),
     "error: max search depth too small", "max search depth too small"),
    # 203 states in a bit array of 2^10 bits: pan wants more than 100 bits per state
    (COUNTER.replace("{N}", "100"), dict(defines=("BITSTATE",), pan_args=("-w10",)),
     None, "hash factor: "),
])
def test_pans_warnings_are_shown(tmp_path, text, options, pans_line, shown):
    result = verify(write(tmp_path, text), quick(**options))
    plain = plain_report(result)
    if pans_line is None:   # the hash factor line, below 100
        factor = search_or_fail(r"^hash factor: (\S+) \(best if > 100\.\)$", plain, re.M)
        assert float(factor.group(1)) < 100
        pans_line = factor.group(0)
    assert re.search(f"^{re.escape(pans_line)}$", plain, re.M)
    assert pans_line in result.warnings
    assert any(row.startswith(shown) for row in summary_rows(result.summary())["pan warning"])
    assert pans_line in json.loads(result.to_json())["warnings"]


def test_bitstate_shows_the_hash_factor(tmp_path):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "5")), quick(defines=("BITSTATE",)))
    plain = plain_report(result)
    factor = float(search_or_fail(r"^hash factor: (\S+) \(best if > 100\.\)$", plain, re.M).group(1))
    bits = int(search_or_fail(r"^bits set per state: (\d+) \(-k\d+\)$", plain, re.M).group(1))
    # 2^27 bits (pan's bitstate default -w27) for 13 states
    assert factor == pytest.approx(2**27 / 13, rel=1e-5)
    assert summary_rows(result.summary())["search mode"] == [
        f"depth-first, partial order reduction, bitstate (hash factor {factor:.4g}, -k{bits})"]
    data = json.loads(result.to_json())
    assert (data["storage"], data["hash_factor"], data["bits_per_state"]) == ("Bit statespace", factor, bits)


def test_bfs_shows_the_nominal_states(tmp_path):
    result = verify(write(tmp_path, ATOMIC), quick(defines=("BFS",)))
    plain = plain_report(result)
    nominal = int(search_or_fail(r"^\t\s*(\d+) nominal states \(stored-atomic\)$", plain, re.M).group(1))
    stored = int(search_or_fail(r"^\s*(\d+) states, stored$", plain, re.M).group(1))
    atomic = int(search_or_fail(r"^\s*(\d+) atomic steps$", plain, re.M).group(1))
    assert atomic > 0 and nominal == stored - atomic   # what pan says the count means
    assert summary_rows(result.summary())["nominal states"] == [
        f"{nominal:,} (stored minus atomic steps)"]
    data = json.loads(result.to_json())
    assert (data["nominal_states"], data["breadth_first"]) == (nominal, True)
    assert summary_rows(result.summary())["search mode"][0].startswith("breadth-first, ")


@pytest.mark.parametrize("defines, pan_args", [
    ((), ("-m500",)),
    (("NOREDUCE", "COLLAPSE"), ()),
    (("HC4",), ()),
])
def test_the_search_modes_in_force_are_shown(tmp_path, defines, pan_args):
    result = verify(write(tmp_path, COUNTER.replace("{N}", "5")), quick(defines=defines, pan_args=pan_args))
    plain = plain_report(result)
    version = plain.index("(Spin Version")
    storage = search_or_fail(r"^(.*) search for:$", plain, re.M)
    modes = re.findall(r"^\t\+ (.*)$", plain[version:storage.start()], re.M)
    # pan's words, as the summary must say them: its order, POR, storage, then other modes
    words = ["breadth-first" if "Breadth-First Search" in modes else "depth-first",
             "partial order reduction" if "Partial Order Reduction" in modes
             else "no partial order reduction",
             storage.group(1).lower()]
    words += [m.lower() for m in modes if m not in ("Breadth-First Search", "Partial Order Reduction")]
    assert summary_rows(result.summary())["search mode"] == [", ".join(words)]
    limit = search_or_fail(r"memory used for DFS stack \(-m(\d+)\)", plain).group(1)
    assert summary_rows(result.summary())["depth reached"][0].endswith(f"(limit -m{limit})")
    data = json.loads(result.to_json())
    assert data["search_modes"] == modes and data["storage"] == storage.group(1)
    assert data["partial_order_reduction"] == ("Partial Order Reduction" in modes)
    assert data["depth_limit"] == int(limit)


# --- long runs: run as a user runs it ------------------------------------------------------------

def start_verify(model: Path, *args: str, tmpdir: Path, stderr=subprocess.PIPE) -> subprocess.Popen:
    """``python -m topspin_py.cli verify`` in a session of its own (so that a signal to its
    process group is what a terminal's Ctrl-C would send), TMPDIR pointed at ``tmpdir``."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TMPDIR=str(tmpdir))
    # A test run in the background inherits SIGINT ignored, which Python would keep.
    return subprocess.Popen([sys.executable, "-m", "topspin_py.cli", "verify", str(model), *args],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def read_stderr_until(process: subprocess.Popen, pattern: str, timeout_s: float = 120) -> str:
    seen = ""
    deadline = time.monotonic() + timeout_s
    while not re.search(pattern, seen, re.M):
        assert process.stderr is not None  # started with stderr=PIPE
        line = process.stderr.readline()
        assert line and time.monotonic() < deadline, f"no {pattern!r} in:\n{seen}"
        seen += line
    return seen


def processes_working_in(directory: Path) -> list[str]:
    """The live processes whose working directory is in ``directory`` (pan, gcc, cc1, as)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
            with open(f"/proc/{entry}/stat") as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if cwd.startswith(str(directory)) and state != "Z":
            found.append(cwd)
    return found


def ours_left_in(tmpdir: Path) -> list[str]:
    """What is left in TMPDIR, but for lark's parser cache: lark keeps it there on purpose,
    across runs, from the first parse on."""
    return sorted(p.name for p in tmpdir.iterdir() if not p.name.startswith(".lark_cache"))


def test_a_log_gets_a_line_for_a_stage_that_runs_long():
    """Not on a terminal (a log, CI): a stage gets a line once it has run first_line_s, and
    again every line_every_s while nothing else was printed; a short stage stays quiet.
    (Intervals scaled down from 2 s and 10 s; the real run's lines are in the tests above.)"""
    import io

    log = io.StringIO()
    display = ProgressDisplay(log, is_terminal=False, tick_s=0.01, first_line_s=0.2, line_every_s=0.5)
    display.stage("spin -a: translating the model into pan.c")
    time.sleep(0.05)                       # done before first_line_s: no line
    display.stage("gcc -O2: compiling pan.c")
    time.sleep(0.95)                       # lines at about 0.2 s and 0.7 s
    display.finish()
    lines = log.getvalue().splitlines()
    assert [re.sub(r", \d+ s$", "", line) for line in lines] == ["topspin-py: gcc -O2: compiling pan.c"] * 2
    seconds = [int(search_or_fail(r"(\d+) s$", line).group(1)) for line in lines]
    assert seconds == sorted(seconds) and seconds[-1] <= 1


@pytest.mark.slow
def test_a_status_line_from_the_first_second_on_a_terminal(tmp_path):
    """On a terminal, each stage shows at once with its time, rewritten every second: pan's
    too, before its first report (which it prints after 10^6 states only)."""
    import pty

    model = write(tmp_path, LONG)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    leader, follower = pty.openpty()
    process = start_verify(model, *LONG_ARGS, tmpdir=tmpdir, stderr=follower)
    os.close(follower)
    shown = b""
    deadline = time.monotonic() + 120
    try:
        # until pan has run 2 s by the status line's own count
        while not re.search(rb"(?:pan: searching, |; )([2-9]|\d\d+) s", shown):
            assert time.monotonic() < deadline, shown
            if select.select([leader], [], [], 1)[0]:
                shown += os.read(leader, 65536)
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
        os.close(leader)
    statuses = [s.decode() for s in re.findall(rb"\r([^\r]*?)\x1b\[K", shown)]
    for stage in ("spin -a", "gcc -O1: compiling pan.c", "pan: searching"):
        assert any(re.match(rf"topspin-py: {re.escape(stage)}.*, 0 s", s) for s in statuses), statuses
    # one line, rewritten in place: no newline while the stages run
    assert "\n" not in "".join(statuses)


@pytest.mark.slow
def test_ctrl_c_shows_pans_partial_statistics(tmp_path):
    model = write(tmp_path, LONG)
    tmpdir, kept = tmp_path / "tmp", tmp_path / "kept"
    tmpdir.mkdir()
    process = start_verify(model, *LONG_ARGS, "--keep", str(kept), tmpdir=tmpdir)
    read_stderr_until(process, r"^pan: 1M states")     # pan is searching
    os.killpg(process.pid, signal.SIGINT)               # a terminal's Ctrl-C
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in err and "interrupted" in err
    # pan's own report (kept): the SIGINT it caught, and its statistics so far
    pans = (kept / "pan.out").read_text()
    assert re.search(r"^Interrupted$", pans, re.M) and "Warning: Search not completed" in pans
    stored = int(search_or_fail(r"^\s*(\d+) states, stored$", pans, re.M).group(1))
    assert 10**6 <= stored < 33**5   # at least its first report's, not the whole space
    rows = summary_rows(out)
    assert rows["states stored"] == [f"{stored:,}"]
    assert rows["search"][0].startswith("INTERRUPTED: partial statistics")
    assert ours_left_in(tmpdir) == [] and processes_working_in(kept) == []


@pytest.mark.slow
@pytest.mark.parametrize("stage, wait_for, how", [
    # gcc is compiling pan.c: SIGTERM to topspin-py alone (kill PID)
    ("gcc", r"^\$ \S*gcc ", "process"),
    # pan is searching: as `timeout` does it, to topspin-py, then to its process group
    ("pan", r"^pan: 1M states", "timeout"),
])
def test_sigterm_removes_the_temporary_files_and_stops_the_children(tmp_path, stage, wait_for, how):
    model = write(tmp_path, LONG)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    process = start_verify(model, *LONG_ARGS, "--verbose", tmpdir=tmpdir)
    read_stderr_until(process, wait_for)
    if stage == "gcc":
        time.sleep(0.3)   # gcc has started cc1
    # the run works in TMPDIR: its directory, and spin's or gcc's or pan's process in it
    assert [name for name in ours_left_in(tmpdir) if name.startswith("topspin-")]
    assert processes_working_in(tmpdir)
    process.send_signal(signal.SIGTERM)
    if how == "timeout":
        os.killpg(process.pid, signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err and "terminated by SIGTERM" in err
    assert ours_left_in(tmpdir) == []
    assert processes_working_in(tmpdir) == []
