"""Parsing pan's report and progress lines, on output captured from real pan runs.

Each test writes a small model to tmp_path, runs the real toolchain (spin -a, gcc, pan) on it
and parses what pan printed.  Forms that need more than 10^8 states (exponent counts) are made
from a real report by re-printing its numbers with pan's own format, "%9.8g".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from topspin_py.pan import toolchain
from topspin_py.pan.output import parse_pan_output
from topspin_py.pan.progress import ProgressWatcher, parse_progress_line

from small_models import ASSERTION, COUNTER


DEADLOCK = """
chan c = [0] of { byte };
active proctype A() { c!1; c!2 }
active proctype B() { c?_ }
"""

# Every state before x == 5 is accepting for the claim of !<>(x == 5), so the nested DFS
# revisits states the first DFS stored: pan prints "stored (N visited)".
NESTED = """
byte x;
active [2] proctype Inc() { do :: x < 5 -> x++ :: x >= 5 -> break od }
ltl reaches_five { <> (x == 5) }
"""

BIG_VECTOR = """
byte big[2000];
active proctype A() { big[0] = 1; big[1999] = big[0] }
"""

# Four processes, each choosing one of 16 values: 33 local states each, 33^4 = 1,185,921
# states without POR, enough for one progress line at 10^6.
PROGRESS = """
byte x[4];
active [4] proctype P() { byte v; select(v : 0..15); x[_pid] = v; end: x[_pid] == 255 }
"""


def run_pan(tmp_path: Path, text: str, cflags=("-DSAFETY",), pan_args=(), name="m.pml") -> str:
    """spin -a, gcc, pan on ``text``; returns pan's output."""
    model = tmp_path / name
    model.write_text(text)
    tools = toolchain.find_toolchain()
    toolchain.generate_pan(tools, model, str(model), (), tmp_path)
    binary = toolchain.compile_pan(tools, list(cflags), tmp_path)
    return toolchain.run_pan(binary, list(pan_args), tmp_path).output


def test_safety_search_counts(tmp_path):
    report = parse_pan_output(run_pan(tmp_path, COUNTER.replace("{N}", "5")))
    assert report.spin_version == "6.5.2"
    assert report.has_summary and report.complete
    assert (report.states_stored, report.states_matched, report.transitions) == (13, 0, 13)
    assert report.depth == 12 and report.errors == 0
    assert report.atomic_steps == 0 and report.hash_conflicts == 0
    assert report.state_vector_bytes == 12
    assert report.states_visited is None and report.counts_exact
    assert report.memory_mb > 100  # the -w24 hash table alone is 128 MB
    assert report.elapsed_s is not None and report.elapsed_s < 5
    assert report.error_lines == [] and report.trail_files == []
    assert not (report.depth_limit_hit or report.stopped_early or report.out_of_memory)
    [block] = report.unreached
    assert (block.kind, block.name, block.unreached, block.statements) == ("proctype", "Counter", 0, ())
    assert block.total > 0


def test_unreached_statements_are_listed(tmp_path):
    text = "byte x;\nactive proctype A() {\n\tif\n\t:: x == 1 -> x = 2\n\t:: else\n\tfi\n}\n"
    report = parse_pan_output(run_pan(tmp_path, text))
    [block] = report.unreached
    assert block.name == "A" and block.unreached == 1
    # pan names the model by the path spin was given (absolute here)
    assert len(block.statements) == 1
    assert re.search(r"m\.pml:4, state \d+, \"x = 2\"$", block.statements[0])


def test_assertion_violation(tmp_path):
    report = parse_pan_output(run_pan(tmp_path, ASSERTION))
    assert report.errors == 1
    assert len(report.error_lines) == 1
    assert re.fullmatch(r"pan:1: assertion violated \(x!=2\) \(at depth \d+\)", report.error_lines[0])
    assert report.trail_files == ["m.pml.trail"]
    assert (tmp_path / "m.pml.trail").is_file()
    assert report.stopped_early and not report.complete


def test_invalid_end_state(tmp_path):
    report = parse_pan_output(run_pan(tmp_path, DEADLOCK))
    assert report.errors == 1
    assert re.fullmatch(r"pan:1: invalid end state \(at depth \d+\)", report.error_lines[0])


def test_all_errors_with_c0_and_e(tmp_path):
    # -c0 -e: go on past errors and write a numbered trail for each.
    report = parse_pan_output(run_pan(tmp_path, DEADLOCK, pan_args=("-c0", "-e")))
    assert report.errors >= 1
    assert report.trail_files and all(re.fullmatch(r"m\.pml\d+\.trail", t) for t in report.trail_files)


def test_depth_limit(tmp_path):
    # 2N+2 = 40002 steps deep: the default -m10000 cuts the search short.
    report = parse_pan_output(run_pan(tmp_path, COUNTER.replace("{N}", "20000")))
    assert report.depth_limit_hit and not report.complete
    assert report.depth == 9999
    deeper = parse_pan_output(run_pan(tmp_path, COUNTER.replace("{N}", "20000"), pan_args=("-m100000",)))
    assert deeper.complete and deeper.states_stored == 2 * 20000 + 3


def test_nested_dfs_visited_form(tmp_path):
    output = run_pan(tmp_path, NESTED, cflags=(), pan_args=("-a",))
    assert re.search(r"^\s+23 states, stored \(46 visited\)$", output, re.M)  # the form under test
    report = parse_pan_output(output)
    assert (report.states_stored, report.states_visited, report.states_matched) == (23, 46, 55)
    assert report.transitions == 46 + 55  # "(= visited+matched)"
    assert report.complete and report.errors == 0


def test_vectorsz_too_small(tmp_path):
    report = parse_pan_output(run_pan(tmp_path, BIG_VECTOR))
    assert report.vectorsz_needed == 2013  # pan: "... -DVECTORSZ=N with N>2012"
    assert not report.complete


def test_memlim_bound(tmp_path):
    report = parse_pan_output(run_pan(tmp_path, COUNTER.replace("{N}", "5"),
                                      cflags=("-DSAFETY", "-DMEMLIM=1")))
    assert report.out_of_memory and not report.complete
    assert report.memory_lines[0] == "pan: reached -DMEMLIM bound"
    assert any(line.endswith("bytes limit") for line in report.memory_lines)
    # The early abort's absurd elapsed time is still parsed; verify.py decides what to do with it.
    assert report.elapsed_s is not None


def test_exponent_counts(tmp_path):
    """Counts above 99,999,999 print in exponent form; re-print a real report that way."""
    output = run_pan(tmp_path, COUNTER.replace("{N}", "5"))
    big = {"states, stored": 123456789, "states, matched": 2.5e9, "transitions": 2623456789}

    def reprint(match: re.Match[str]) -> str:
        return "%9.8g %s" % (big[match.group(2)], match.group(2))
    output = re.sub(r"^\s*(\d+) (states, stored|states, matched|transitions)", reprint, output, flags=re.M)
    assert "1.2345679e+08 states, stored" in output
    report = parse_pan_output(output)
    assert report.states_stored == 123456790.0
    assert report.states_matched == 2.5e9
    assert report.transitions == 2.6234568e9
    assert not report.counts_exact


def test_exponent_counts_nested_form(tmp_path):
    output = run_pan(tmp_path, NESTED, cflags=(), pan_args=("-a",))
    output = re.sub(r"^\s+23 states, stored \(46 visited\)",
                    "%9.8g states, stored (%g visited)" % (3.5e8, 7.25e8), output, flags=re.M)
    report = parse_pan_output(output)
    assert (report.states_stored, report.states_visited) == (3.5e8, 7.25e8)
    assert not report.counts_exact


@pytest.fixture(scope="module")
def progress_output(tmp_path_factory) -> str:
    return run_pan(tmp_path_factory.mktemp("progress"), PROGRESS, cflags=("-DSAFETY", "-DNOREDUCE"))


def test_progress_line_from_real_run(progress_output):
    lines = [line for line in progress_output.splitlines() if line.startswith("Depth=")]
    assert len(lines) == 1
    progress = parse_progress_line(lines[0], elapsed_s=2.0)
    assert progress.states == 1e6 and progress.transitions > 1e6
    assert progress.memory_mb > 100 and progress.depth > 0
    assert progress.rate == 5e5
    report = parse_pan_output(progress_output)  # progress lines do not disturb the report
    assert report.states_stored == 33 ** 4 and report.complete


def test_progress_line_flushed_before_its_tail():
    # What a pipe delivers first: pan flushes up to "Memory=...\t"; "t= .. R= ..\n" comes later.
    head = "Depth=   99999 States=    1e+06 Transitions= 2.63e+06 Memory=   179.239\t"
    progress = parse_progress_line(head)
    assert (progress.depth, progress.states, progress.transitions, progress.memory_mb) == (
        99999, 1e6, 2.63e6, 179.239)


def test_watcher_reports_each_progress_line_once(progress_output):
    seen = []
    watcher = ProgressWatcher(seen.append, clock=iter(range(100)).__next__)
    # Feed the real output in pieces cut inside the progress line, as a pipe may deliver it.
    cut = progress_output.index("Memory=") + len("Memory=")
    for piece in (progress_output[:cut - 30], progress_output[cut - 30:cut + 9],
                  progress_output[cut + 9:]):
        watcher.feed(piece)
    assert [p.states for p in seen] == [1e6]


def test_display_on_a_terminal_rewrites_one_line(progress_output):
    import io
    from topspin_py.pan.progress import ProgressDisplay
    stream = io.StringIO()
    display = ProgressDisplay(stream, is_terminal=True)
    line = next(line for line in progress_output.splitlines() if line.startswith("Depth="))
    display(parse_progress_line(line, elapsed_s=2.0))
    display(parse_progress_line(line.replace("States=    1e+06", "States=    2e+06"), elapsed_s=4.0))
    display.finish()
    shown = stream.getvalue()
    assert "\n" not in shown   # one line, rewritten in place, erased at the end
    assert shown.count("\r") == 3 and shown.endswith("\r\x1b[K")
    assert "pan: 2M states" in shown and "500k states/s" in shown


def test_several_processes_are_refused_for_a_model_that_can_print(tmp_path):
    from topspin_py.errors import UsageError
    from topspin_py.verify import VerifyOptions, verify

    model = tmp_path / "m.pml"
    model.write_text(COUNTER.replace("{N}", "5"))
    for defines in (("NCORE=2", "PRINTF"), ("BFS_PAR", "PRINTF")):
        with pytest.raises(UsageError, match="-DPRINTF with a search of several processes"):
            verify(model, VerifyOptions(defines=defines, strategy="none"))
    model.write_text("byte x;\nactive proctype A() { c_code { ; }; x = 1 }\n")
    with pytest.raises(UsageError, match="embedded C code"):
        verify(model, VerifyOptions(defines=("NCORE=2",), strategy="none"))
