"""Parsing pan's report and progress lines, on output captured from real pan runs.

Each test writes a small model to tmp_path, runs the real toolchain (spin -a, gcc, pan) on it
and parses what pan printed.  Forms that need more than 10^8 states (exponent counts) are made
from a real report by re-printing its numbers with pan's own format, "%9.8g".

A model can print what pan prints (printf under -DPRINTF, c_code): the tests at the end put
the lines tests/models/printing/ prints (IMITATION) in front of real output, or where a model
could print them, and check that the report is still pan's own (pan/output.py's module doc).
"""

from __future__ import annotations

import codecs
import dataclasses
import re
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import MODELS
from small_models import ASSERTION, COUNTER

from topspin_py.errors import ToolchainError
from topspin_py.pan import toolchain, trails
from topspin_py.pan.output import PanReport, parse_pan_output
from topspin_py.pan.progress import Progress, ProgressWatcher, parse_progress_line

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


def run_pan(tmp_path: Path, text: str, cflags=("-DSAFETY",), pan_args=(), name="m.pml",
            optimisation="-O2") -> str:
    """spin -a, gcc, pan on ``text``; returns pan's output."""
    model = tmp_path / name
    model.write_text(text)
    tools = toolchain.find_toolchain()
    toolchain.generate_pan(tools, model, str(model), (), tmp_path)
    binary = toolchain.compile_pan(tools, list(cflags), tmp_path, optimisation)
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
    assert report.memory_mb is not None
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
    assert report.errors is not None
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
    assert progress is not None
    assert progress.states == 1e6 and progress.transitions > 1e6
    assert progress.memory_mb > 100 and progress.depth > 0
    assert progress.rate == 5e5
    report = parse_pan_output(progress_output)  # progress lines do not disturb the report
    assert report.states_stored == 33 ** 4 and report.complete


def test_progress_line_flushed_before_its_tail():
    # What a pipe delivers first: pan flushes up to "Memory=...\t"; "t= .. R= ..\n" comes later.
    head = "Depth=   99999 States=    1e+06 Transitions= 2.63e+06 Memory=   179.239\t"
    progress = parse_progress_line(head)
    assert progress is not None
    assert (progress.depth, progress.states, progress.transitions, progress.memory_mb) == (
        99999, 1e6, 2.63e6, 179.239)


def test_watcher_reports_each_progress_line_once(progress_output):
    seen: list[Progress] = []
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
    first = parse_progress_line(line, elapsed_s=2.0)
    assert first is not None
    display(first)
    second = parse_progress_line(line.replace("States=    1e+06", "States=    2e+06"), elapsed_s=4.0)
    assert second is not None
    display(second)
    display.finish()
    shown = stream.getvalue()
    assert "\n" not in shown   # one line, rewritten in place, erased at the end
    assert shown.count("\r") == 3 and shown.endswith("\r\x1b[K")
    assert "pan: 2M states" in shown and "500k states/s" in shown


# --- the report is pan's block, not the model's imitation of it ----------------------------------

def _imitation() -> str:
    """What the models of tests/models/printing/ print: every line the reader reads (a whole
    report saying "errors: 0", error, trail, stop and warning lines), from the C strings of
    their c_code."""
    source = (MODELS / "printing" / "include" / "ccode_report.h").read_text()
    return "".join(codecs.decode(text, "unicode_escape") for text in re.findall(r'printf\("(.*)"\);', source))


IMITATION = _imitation()

# What a PanReport takes from pan's block: the same with or without the model's imitation.
BLOCK_FIELDS = ("spin_version", "has_summary", "state_vector_bytes", "depth", "errors", "states_stored",
                "states_visited", "states_matched", "transitions", "atomic_steps", "hash_conflicts",
                "memory_mb", "elapsed_s", "rate", "counts_exact", "stopped_early", "unreached", "claim",
                "cycle_search", "modes", "storage", "hash_factor", "bits_per_state", "nominal_states",
                "symmetry", "symmetry_group_order", "symmetry_strategy")
# and what pan prints during the search or as it stops, which the imitation must not change
# (its "cpu1: pan: wrote trailfile" makes verify look on disk for pan's trails: trail_unnamed)
SEARCH_FIELDS = ("error_lines", "depth_limit_hit", "time_limit_hit", "interrupted",
                 "out_of_memory", "memory_lines", "vectorsz_needed", "warnings")


def block_fields(report: PanReport) -> dict:
    return {name: getattr(report, name) for name in BLOCK_FIELDS}


def search_fields(report: PanReport) -> dict:
    return {name: getattr(report, name) for name in SEARCH_FIELDS}


def at_the_end_of_the_search(output: str, text: str) -> str:
    """``text`` where a model's last words go: right before pan's report."""
    start = output.rindex("\n(Spin Version ")
    return output[:start] + "\n" + text.rstrip("\n") + output[start:]


def assert_same_report(imitated: PanReport, pans: PanReport) -> None:
    assert block_fields(imitated) == block_fields(pans)
    assert search_fields(imitated) == search_fields(pans)


def test_the_imitation_holds_every_line_the_reader_reads():
    imitation = parse_pan_output(IMITATION)   # read alone, it would pass for a report
    assert imitation.has_summary and imitation.errors == 0 and imitation.states_stored == 99
    assert imitation.symmetry == "on" and imitation.symmetry_group_order == 6
    assert imitation.claim == "x" and imitation.storage == "Bit statespace" and imitation.unreached
    for line in ("pan: wrote fake.trail", "Interrupted", "Time limit of      1 minutes exceeded",
                 "error: max search depth too small", "pan: out of memory", "cpu1: pan: wrote trailfile",
                 "pan:1: assertion violated fake (at depth 5)", "warning: never claim + accept labels "
                 "requires -a flag to fully verify", "pan: error, VECTORSZ too small, recompile pan.c "
                 "with -DVECTORSZ=N with N>9999"):
        assert line in IMITATION.splitlines()


def test_an_error_after_the_models_imitation_is_pans(tmp_path):
    output = run_pan(tmp_path, ASSERTION, optimisation="-O0")
    pans = parse_pan_output(output)
    assert pans.errors == 1 and pans.version_lines_before == 0
    for imitated_output in (IMITATION + output, IMITATION + IMITATION + output):
        imitated = parse_pan_output(imitated_output)
        assert_same_report(imitated, pans)
        assert imitated.version_lines_before == imitated_output.count("(Spin Version") - 1
        assert re.fullmatch(r"pan:1: assertion violated \(x!=2\) \(at depth \d+\)", imitated.error_lines[0])
        # names with a path are never pan's; the others are kept only if pan wrote them
        assert set(imitated.trail_files) == {"fake.trail", "m.pml.trail"}
        assert trails.written(imitated, tmp_path, "m.pml", []) == ["m.pml.trail"]


def test_a_complete_search_stays_complete_whatever_the_model_prints(tmp_path):
    output = run_pan(tmp_path, COUNTER.replace("{N}", "5"), optimisation="-O0")
    pans = parse_pan_output(output)
    assert pans.complete and pans.errors == 0
    # the imitation first, or as the model's last words before pan's report: pan completed
    # the search, so "Interrupted", "out of memory", "aborting" ... there are not pan's
    last_words = ["Interrupted", "Time limit of      1 minutes exceeded",
                  "pan: out of memory\n\t1 bytes limit\nhint: to reduce memory, recompile with",
                  "pan: error, VECTORSZ too small, recompile pan.c with -DVECTORSZ=N with N>9999\n"
                  "pan:1: aborting (at depth 0)\npan: wrote m.pml.trail"]
    for imitated_output in [IMITATION + output, at_the_end_of_the_search(output, IMITATION),
                            *(at_the_end_of_the_search(output, IMITATION + words) for words in last_words)]:
        imitated = parse_pan_output(imitated_output)
        assert_same_report(imitated, pans)
        assert imitated.complete and imitated.error_lines == [] and imitated.warnings == []
        assert trails.written(imitated, tmp_path, "m.pml", []) == []


def test_pans_warnings_are_those_before_its_search(tmp_path):
    never_claim = "byte x;\nactive proctype A() { x = 1; x = 2 }\nnever { do :: x == 5 -> accept: skip :: else od }\n"
    output = run_pan(tmp_path, never_claim, cflags=(), optimisation="-O0")
    pans = parse_pan_output(output)
    assert pans.warnings == ["warning: never claim + accept labels requires -a flag to fully verify",
                             "warning: for p.o. reduction to be valid the never claim must be "
                             "stutter-invariant (never claims generated from LTL formulae are stutter-invariant)"]
    # the model prints once its search has started: after pan's warnings
    search = output.index("\n(Spin Version")
    assert_same_report(parse_pan_output(output[:search] + "\n" + IMITATION + output[search:]), pans)


def test_the_depth_limit_is_pans_when_its_report_can_show_it(tmp_path):
    cut = COUNTER.replace("{N}", "20000")   # 2N+2 steps deep: -m10000 cuts it
    output = run_pan(tmp_path, cut, optimisation="-O0")
    assert parse_pan_output(IMITATION + output).depth_limit_hit
    # a search of depth 12 with -m10000 was not cut: the model's line is not pan's ...
    complete = parse_pan_output(IMITATION + run_pan(tmp_path, COUNTER.replace("{N}", "5"), optimisation="-O0"))
    assert not complete.depth_limit_hit and complete.complete
    # ... unless the report does not show the limit (breadth first: no DFS stack): the line
    # stands, and the search is called incomplete (never the other way round)
    breadth_first = run_pan(tmp_path, COUNTER.replace("{N}", "5"), cflags=("-DSAFETY", "-DBFS"), optimisation="-O0")
    assert "DFS stack" not in breadth_first
    assert parse_pan_output(IMITATION + breadth_first).depth_limit_hit


def test_error_lines_are_pans_numbered_up_to_its_count(tmp_path):
    # -c0 -e: pan goes on past its errors, numbering them pan:1:, pan:2:, ...
    output = run_pan(tmp_path, DEADLOCK, pan_args=("-c0", "-e"), optimisation="-O0")
    pans = parse_pan_output(output)
    assert pans.errors is not None
    assert pans.errors >= 1 and pans.error_lines
    imitated = parse_pan_output(IMITATION + "pan:99: assertion violated fake (at depth 1)\n" + output)
    assert imitated.error_lines == pans.error_lines
    assert not any("fake" in line for line in imitated.error_lines)


def test_memory_and_vectorsz_failures_are_pans_last_words(tmp_path):
    for text, cflags in ((COUNTER.replace("{N}", "5"), ("-DSAFETY", "-DMEMLIM=1")), (BIG_VECTOR, ("-DSAFETY",))):
        output = run_pan(tmp_path, text, cflags=cflags, optimisation="-O0")
        pans = parse_pan_output(output)
        assert pans.out_of_memory or pans.vectorsz_needed == 2013
        assert_same_report(parse_pan_output(IMITATION + output), pans)


def run_pan_interrupted(tmp_path: Path, text: str) -> str:
    """pan on ``text``, stopped with SIGINT once it printed its first progress line."""
    model = tmp_path / "m.pml"
    model.write_text(text)
    tools = toolchain.find_toolchain()
    toolchain.generate_pan(tools, model, str(model), (), tmp_path)
    binary = toolchain.compile_pan(tools, ["-DSAFETY", "-DNOREDUCE"], tmp_path, "-O0")
    process = subprocess.Popen([str(binary), "-w20"], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    seen = ""
    while "Memory=" not in seen:   # pan flushes a progress line up to its "Memory=" field
        character = process.stdout.read(1)
        assert character, f"pan ended before its first progress line:\n{seen}"
        seen += character
    process.send_signal(signal.SIGINT)
    rest, _ = process.communicate(timeout=60)
    return seen + rest


def test_an_interrupt_is_pans_right_before_its_report(tmp_path):
    # five processes choosing one of 16 values: 39 million states, interrupted at the first million
    output = run_pan_interrupted(tmp_path, PROGRESS.replace("[4]", "[5]"))
    pans = parse_pan_output(output)
    assert pans.states_stored is not None
    assert pans.interrupted and pans.stopped_early and pans.states_stored >= 1e6
    assert_same_report(parse_pan_output(IMITATION + output), pans)
    # a line the model left unfinished (printf without its newline) ends in pan's word
    at = output.rindex("Interrupted\n\n(Spin Version")
    assert parse_pan_output(output[:at] + "the model's unfinished line" + output[at:]).interrupted
    # the model's "Interrupted" elsewhere is not pan's
    assert not parse_pan_output(IMITATION + run_pan(tmp_path, ASSERTION, optimisation="-O0")).interrupted


def test_a_reduced_pans_symmetry_line_is_read_from_its_report(tmp_path):
    from topspin_py.verify import VerifyOptions, verify

    model = tmp_path / "pair.pml"
    model.write_text("byte n;\nactive [2] proctype P() { n++; end: false }\n")
    verify(model, VerifyOptions(keep_dir=tmp_path / "keep", optimisation="-O0"))
    output = (tmp_path / "keep" / "pan.out").read_text()
    pans = parse_pan_output(output)
    assert (pans.symmetry, pans.symmetry_group_order) == ("on", 2)
    assert_same_report(parse_pan_output(IMITATION + output), pans)   # (it says "off", and order 6)


# --- what verify makes of it: pan's files, its flags, its exit -----------------------------------

def test_pans_trail_names():
    for name in ("m.pml.trail", "m.pml1.trail", "m.pml12.trail", "m.pml.cpu1_trail", "m.pml_pan_4711.trail",
                 "m.pml_pan_4711_2.trail", "m.trail", "m3.trail"):
        assert trails.is_pan_trail_name(name, "m.pml"), name
    for name in ("../m.pml.trail", "/tmp/m.pml.trail", "sub/m.pml.trail", "fake.trail", "m.pml.c", "pan.c",
                 "m.pml.trailx", "m.pmlx.trail", "other.pml.trail"):
        assert not trails.is_pan_trail_name(name, "m.pml"), name
    assert trails.is_pan_trail_name("m.pml.mine", "m.pml", trails.trail_suffix(["-m100", "-tmine"]))
    assert trails.trail_suffix(["-t_reverse"]) == "trail"


def test_trails_pan_wrote_are_files_in_its_directory(tmp_path):
    (tmp_path / "m.pml.trail").write_text("0:0:0\n")
    (tmp_path / "m.pml.cpu1_trail").write_text("0:0:0\n")
    named = PanReport(trail_files=["m.pml.trail", "m.pml1.trail", "fake.trail"])
    assert trails.written(named, tmp_path, "m.pml", []) == ["m.pml.trail"]
    unnamed = PanReport(trail_unnamed=True)   # "cpuN: pan: wrote trailfile": pan's names on disk
    assert trails.written(unnamed, tmp_path, "m.pml", []) == ["m.pml.cpu1_trail", "m.pml.trail"]


def test_a_report_pans_files_or_flags_contradict_is_refused():
    from topspin_py.pan.search import check_report_is_pans

    one = PanReport(has_summary=True, errors=0, modes=["Partial Order Reduction"])
    several = dataclasses.replace(one, modes=["Multi-Core (NCORE=2 -z20)", "Partial Order Reduction"])
    check_report_is_pans(one, [])
    check_report_is_pans(dataclasses.replace(one, version_lines_before=2), [])   # one process: the last is pan's
    check_report_is_pans(several, ["NCORE=2"])
    with pytest.raises(ToolchainError, match="trail"):
        check_report_is_pans(dataclasses.replace(one, trail_files=["m.pml.trail"]), [])
    with pytest.raises(ToolchainError, match="several processes"):
        check_report_is_pans(one, ["NCORE=2"])
    with pytest.raises(ToolchainError, match="more than one"):
        check_report_is_pans(dataclasses.replace(several, version_lines_before=1), ["NCORE=2"])


def test_the_report_of_a_pan_that_stopped_before_its_own_is_not_read():
    # the model's imitation is the last report in the output of a pan that died before its
    # own (a signal) or stopped before it (pan_exit(1)); pan exits with 0 after its report
    from topspin_py.pan.search import raise_on_pan_failure

    imitation = parse_pan_output("x\n" + IMITATION)
    assert imitation.has_summary and imitation.errors == 0   # the text alone cannot tell
    with pytest.raises(ToolchainError, match="killed by signal 9"):
        raise_on_pan_failure(-9, "x\n" + IMITATION, imitation, [])
    with pytest.raises(ToolchainError, match="exit status 1 before its report"):
        raise_on_pan_failure(1, "x\n" + IMITATION, imitation, [])
    raise_on_pan_failure(0, "x\n" + IMITATION, imitation, [])


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


def test_pans_replay_arguments():
    # a replay runs the model's statements (printing what it prints) and ends without a report
    from topspin_py.pan.flags import PanOptions

    for args in (["-r"], ["-r2"], ["-m100", "-r", "m.pml.trail"], ["-C"], ["-g"], ["-S"], ["-P"], ["-P2"]):
        assert PanOptions.parse(args).replay == next(arg for arg in args if arg != "-m100"), args
    for args in ([], ["-rhash"], ["-P0"], ["-P1"], ["-c0", "-e", "-m100", "-a"]):
        assert PanOptions.parse(args).replay is None, args
