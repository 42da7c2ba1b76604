"""Parse the report pan prints at the end of a search, from pan's own block of its output.

Whose text is whose
-------------------
pan's stdout is the model's too: under -DPRINTF the model's printf statements print there, and
``c_code { printf(...); }`` always does.  So a model can print any line of a report
(``State-vector 28 byte, depth reached 6, errors: 0``) before pan prints its own.  What the
parser takes from where (SPIN 6.5.2's pan.c: wrapup(), uerror(), stopped(), Malloc()):

* **The report block.**  Once the search is over, pan's wrapup() prints ``\\n(Spin Version
  6.5.2 -- 6 December 2019)\\n`` (a spliced pan adds ``topspin-py: symmetry reduction ...``
  right after it), the header (``Warning: Search not completed``, one ``\\t+ ...`` line per
  mode, ``Full statespace search for:``, what was checked, the ``State-vector ... errors: N``
  line), the statistics, memory, ``unreached in ...`` blocks and ``pan: elapsed time``, and
  exits: no statement of the model runs after it.  In a pan of one process the *last* line
  that starts with ``(Spin Version `` therefore starts pan's report, and it counts as one only
  if the header that follows has pan's shape.  Every statistic, the errors count, the claim,
  the modes, the storage, the unreached statements, memory and time are read from that block
  alone.  A pan that stops before its report (killed by a signal, or ``pan_exit(1)``: "too
  many processes", ...) may leave a model's imitation last: pan exits with status 0 after
  its report, and verify reads no report of a pan that ended otherwise.
* **What pan prints as the search stops**, right before the block, with nothing of the model's
  in between (no statement runs after it): ``Interrupted`` (SIGINT), ``Time limit of ...
  exceeded`` (-Q), the out-of-memory message with its details and hints, the VECTORSZ message
  with its ``pan:K: aborting`` line.  Each is believed only there, and only when the block
  says ``Warning: Search not completed``: pan stopped early, for that reason or for one it
  prints nothing about, so the model's copy printed last can only name the wrong reason for
  a search that is incomplete anyway.
* **Lines pan prints during the search**, amid the model's output, cannot be told from exact
  copies the model prints; none of them decides the verdict:

  - error lines ``pan:K: ... (at depth D)``: the number of errors is the block's.  The lines
    kept are those numbered 1..N, the last of each number: the line of the error pan stopped
    at is the last error line before its block (only its trail line follows), so a copy
    printed before it is passed over; a copy printed after an earlier error (pan -c0 searches
    on) replaces pan's words for that number, never the count;
  - ``pan: wrote NAME``: only a plain file name is kept (pan writes its trails in its working
    directory); verify then keeps the names pan's files on disk bear out (pan/trails.py);
  - ``cpuN: pan: wrote trailfile`` (a -DNCORE worker names no trail): verify looks on disk;
  - ``error: max search depth too small``: believed unless the block shows it cannot be pan's
    (pan truncates a path only below a state at depth N-1 of its -mN, and the block says both
    the depth reached and, in ``memory used for DFS stack (-mN)``, the limit); a copy can only
    make a complete search look cut short;
  - warnings: pan's come before the search, ahead of anything the model prints (the first
    lines of the output), or inside the block (hints, a low hash factor); those pan prints
    during the search (``pan: warning, stack incomplete``) are not read, as the model's copies
    would be shown as pan's;
  - progress lines (progress.py) are shown while pan runs and are never part of a result.

* **A pan of several processes** (-DNCORE>1, -DBFS_PAR): each worker's output reaches the pipe
  when that worker flushes it, so text can land after or inside the first process's report.
  verify refuses such a pan when the model can print at all (-DPRINTF, embedded C code), and
  ``PanReport.version_lines_before`` counts the lines before the block that start like it.

The format
----------
SPIN 6.5.2's (pan.c's wrapup() and the functions it calls print it).  Facts the parser relies on:

* counts come from ``printf("%9.8g ...")``: above 99,999,999 they switch to exponent form
  (``1.2345679e+08 states, stored``), so every count is parsed as a float and
  ``PanReport.counts_exact`` says whether any of them was rounded;
* a nested DFS (``-a``, ``-l``) prints ``3494 states, stored (5062 visited)`` and
  ``(= visited+matched)`` on the transitions line;
* ``error: max search depth too small`` means the depth limit cut the search short, and
  ``Warning: Search not completed`` that pan stopped early (first error, memory, time limit);
* a search that dies before it starts (``-DMEMLIM`` hit by the hash table, ``VECTORSZ`` too
  small) still prints the whole report, full of zeros, and an absurd elapsed time;
* pan catches SIGINT (``stopped()``): it prints ``Interrupted`` and then its whole report, the
  statistics so far, with ``Warning: Search not completed``;
* the header names the search's modes, one ``\\t+ Partial Order Reduction`` line per mode
  compiled in, then the storage (``Full statespace``, ``Bit statespace``, ``Hash-Compact 4``);
  bitstate adds ``hash factor: 4.47392e+07 (best if > 100.)`` and ``bits set per state: 3
  (-k3)``, BFS ``\\t       3 nominal states (stored-atomic)`` (stored minus atomic steps).

This module only reads text; deciding what a report means for the user is verify.py's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# One count as %9.8g prints it: 2636, 1.2345679e+08, 0.
_COUNT = r"([0-9.]+(?:e[+-]?[0-9]+)?)"

# --- the block: where pan's report starts, and its header --------------------------------------
_BLOCK_START = re.compile(r"^\(Spin Version ", re.M)
_SPIN_VERSION = re.compile(r"\(Spin Version (\S+) -- [^)\n]*\)$", re.M)
# wrapup()'s header, as one piece: pan prints it and flushes before its statistics.
_HEADER = re.compile(
    r"\(Spin Version (?P<version>\S+) -- [^)\n]*\)\n"
    r"(?:topspin-py: symmetry reduction [^\n]*\n)?"       # a spliced pan's line (pan/splice.py)
    r"(?P<not_completed>Warning: Search not completed\n)?"
    r"(?P<states_lost>Warning: Search incomplete\n)?"     # -DBFS_PAR: states lost, queue memory
    r"(?P<modes>(?:\t[^\n]*\n)*)"                         # "\t+ Partial Order Reduction", ...
    r"\n(?P<storage>Full statespace|Bit statespace|Hash-Compact \d+) search for:\n"
    r"(?P<checks>(?:\t[^\n]*\n)+)"                        # "\tnever claim   \t+ (p1)", ...
    r"\nState-vector (?P<vector>\d+) byte, depth reached (?P<depth>\d+), errors: (?P<errors>\d+)$",
    re.M)
_MODE = re.compile(r"^\t\+ (.+?)\s*$", re.M)
# A pan.c spliced by topspin-py says after the version line whether the reduction is compiled in
# (pan/splice.py, REPORT_PREFIX):
#   topspin-py: symmetry reduction on, group order 6, strategy segmented
#   topspin-py: symmetry reduction off (pan.c built without -DTOPSPIN_SYM)
_SYMMETRY = re.compile(r"\A[^\n]*\ntopspin-py: symmetry reduction (on|off)\b"
                       r"(?:, group order (\d+|unknown), strategy ([\w-]+))?")
# What the header says pan checked:
#	never claim         	+ (p1)          /  - (none specified)  /  - (not selected)
#	acceptance   cycles 	+ (fairness disabled)
#	non-progress cycles 	+ (fairness enabled)
_CLAIM_USED = re.compile(r"^\tnever claim\s+\+ \((.*)\)\s*$", re.M)
_ACCEPTANCE_ON = re.compile(r"^\tacceptance\s+cycles\s+\+", re.M)
_NON_PROGRESS_ON = re.compile(r"^\tnon-progress cycles\s+\+", re.M)

# --- the block's body: statistics, memory, time ----------------------------------------------
_STORED = re.compile(rf"^\s*{_COUNT} states, stored(?: \({_COUNT} visited\))?\s*$", re.M)
_MATCHED = re.compile(rf"^\s*{_COUNT} states, matched\s*$", re.M)
_TRANSITIONS = re.compile(rf"^\s*{_COUNT} transitions \(= (?:stored|visited)\+matched\)", re.M)
_ATOMIC = re.compile(rf"^\s*{_COUNT} atomic steps\s*$", re.M)
_HASH_CONFLICTS = re.compile(rf"^hash conflicts:\s*{_COUNT} \(resolved\)", re.M)
_TOTAL_MEMORY = re.compile(r"^\s*([0-9.]+)\s+total actual memory usage", re.M)
_DFS_STACK = re.compile(r"^\s*[0-9.]+\s+memory used for DFS stack \(-m(\d+)\)", re.M)
_ELAPSED = re.compile(r"^pan: elapsed time ([0-9.e+-]+) seconds", re.M)
_RATE = re.compile(rf"^pan: rate\s+{_COUNT} states/second", re.M)
_HASH_FACTOR = re.compile(r"^hash factor: ([0-9.e+-]+|inf|nan) \(best if > 100\.\)", re.M)
_BITS_PER_STATE = re.compile(r"^bits set per state: (\d+)", re.M)
# "\t       3 nominal states (stored-atomic)", or "(- rv and atomic)" when rendezvous count too
_NOMINAL = re.compile(rf"^\s*{_COUNT} nominal states \(", re.M)
# Advice pan prints among its statistics: "hint: increase hashtable-size (-w) to reduce runtime"
_HINT = re.compile(r"^hint: .*$", re.M)
_UNREACHED_HEADER = re.compile(r"^unreached in (proctype|init|claim)\s*(\S*)\s*$")
_UNREACHED_COUNT = re.compile(r"^\s+\((\d+) of (\d+) states\)\s*$")

# --- what pan prints as the search stops, right before the block -----------------------------
# pan's SIGINT handler prints this first, after whatever the line held: a progress line it
# cut short ("Memory=   179.239\t"), a model's printf without its newline.
_INTERRUPTED = re.compile(r"Interrupted$")
_TIME_LIMIT = re.compile(r"^Time limit of .* exceeded$")
# a multi-core pan's first process stops the others first: "cpu0: stop - time-limit"
_STOP_LINE = re.compile(r"^cpu\d+: stop - ")
_OUT_OF_MEMORY = re.compile(
    r"^(?:pan: out of memory|pan: reached -DMEMLIM bound|cpu\d+: stop - .*out of memory.*)$")
# the lines pan's Malloc() prints after it: "\t662568 bytes used", "hint: to reduce memory,
# recompile with", "  -DCOLLAPSE # good, fast compression, or"
_MEMORY_DETAIL = re.compile(r"^(?:\t|  |hint: )")
_VECTORSZ = re.compile(r"^pan: error, VECTORSZ too small, recompile pan\.c with -DVECTORSZ=N with N>(\d+)$")
_ABORTING = re.compile(r"^(?:cpu\d+: )?pan:\d+: aborting \(at depth \d+\)$")
_AFTER_ABORTING = re.compile(r"^(?:cpu\d+: )?pan: wrote |^cpu\d+: stop - ")

# --- what pan prints during the search (the model can print the same) -------------------------
# pan:1: assertion violated (x==1) (at depth 58) / pan:1: invalid end state (at depth 3) / ...
# A multi-core pan (-DNCORE>1) puts "cpuN: " before them, and writes its trail as a single
# pan does but says only "cpuN: pan: wrote trailfile".
_ERROR_LINE = re.compile(r"^(?:cpu\d+: )?(pan:(\d+): .* \(at depth \d+\))\s*$", re.M)
_TRAIL_WRITTEN = re.compile(r"^pan: wrote (.+)$", re.M)
_TRAIL_UNNAMED = re.compile(r"^cpu\d+: pan: wrote trailfile$", re.M)
_DEPTH_LIMIT = re.compile(r"^error: max search depth too small$", re.M)

# --- pan's warnings before the search: the first lines of its output --------------------------
# Printed before the search starts (stderr, unbuffered, or stdout before any statement ran):
#   warning: never claim + accept labels requires -a flag to fully verify
#   warning: for p.o. reduction to be valid the never claim must be stutter-invariant
#   (never claims generated from LTL formulae are stutter-invariant)
#   hint: this search is more efficient if pan.c is compiled -DSAFETY
_WARNING = re.compile(r"^(?:pan: )?warning[:,] ")
_WARNING_CONTINUED = re.compile(r"^\(never claims generated from LTL formulae are stutter-invariant\)$")
# other lines pan may print before the search: "pan: ltl formula p1", "pan: using 2 cores",
# "cpu00: largest shared memory segment: 24096 MB"
_BEFORE_SEARCH = re.compile(r"^(?:pan: |cpu\d+: )")
# pan's words for an argument it drops (main's option switch), also before the search: verify
# refuses the ones it foresees (flags.check_pan_args); any other must not go unsaid either.
#   invalid option '-p' -- ignored          pan: bad option -P[01], ignored
#   pan: option -P not recognized, ignored   -M and -G affect only -DBITSTATE
_IGNORED = re.compile(r"^(?:pan: )?(?:invalid option .* -- ignored|bad option .*, ignored"
                      r"|option .* not recognized, ignored|-M and -G affect only -DBITSTATE)\s*$")


@dataclass(frozen=True)
class Unreached:
    """One ``unreached in ...`` block: the statements pan never executed in one process type."""

    kind: str              # "proctype", "init" or "claim"
    name: str              # the proctype or claim name ("init" for init)
    statements: tuple[str, ...]  # e.g. 'peterson3.p:29, state 26, "-end-"'
    unreached: int
    total: int


@dataclass
class PanReport:
    """What one run of pan printed, as numbers and flags.  Counts are floats (see module doc)."""

    spin_version: str | None = None
    has_summary: bool = False          # pan's report block is there, its header in pan's shape
    state_vector_bytes: int | None = None
    depth: int | None = None           # "depth reached"
    errors: int | None = None
    states_stored: float | None = None
    states_visited: float | None = None  # nested DFS only: stored + states revisited by DFS 2
    states_matched: float | None = None
    transitions: float | None = None
    atomic_steps: float | None = None
    hash_conflicts: float | None = None
    memory_mb: float | None = None     # "total actual memory usage"
    elapsed_s: float | None = None
    rate: float | None = None          # states/second, printed only when elapsed > 0.01 s
    counts_exact: bool = True          # no count was printed in (rounded) exponent form
    depth_limit_hit: bool = False      # "error: max search depth too small"
    stopped_early: bool = False        # "Warning: Search not completed" (or BFS_PAR's "incomplete")
    time_limit_hit: bool = False       # -QN: "Time limit of ... exceeded"
    error_lines: list[str] = field(default_factory=list)   # pan:1..errors, see the module doc
    trail_files: list[str] = field(default_factory=list)  # file names after "pan: wrote", in pan's cwd
    trail_unnamed: bool = False        # a multi-core pan wrote a trail without saying its name
    vectorsz_needed: int | None = None  # "recompile pan.c with -DVECTORSZ=N with N>..."
    out_of_memory: bool = False
    memory_lines: list[str] = field(default_factory=list)  # pan's own lines about the memory failure
    unreached: list[Unreached] = field(default_factory=list)
    claim: str | None = None           # the claim pan checked, by its procname ("p1", ":np_:")
    cycle_search: str | None = None    # "acceptance" (-a) or "non-progress" (-l); None: safety only
    warnings: list[str] = field(default_factory=list)   # pan's own, without repeats: its warnings
                                                        # before the search, then its depth-limit
                                                        # error, hints, a hash factor < 100
    interrupted: bool = False          # pan caught SIGINT: the counts are the statistics so far
    modes: list[str] = field(default_factory=list)   # the header's "+" lines: "Partial Order Reduction"
    storage: str | None = None         # "Full statespace", "Bit statespace", "Hash-Compact 4"
    hash_factor: float | None = None   # bitstate: bits of the hash array per stored state
    bits_per_state: int | None = None  # bitstate: hash functions per state (-k)
    nominal_states: float | None = None  # BFS: stored minus atomic steps (rendezvous too with SYNC)
    symmetry: str | None = None        # "on" or "off" as a spliced pan says; None: not spliced
    symmetry_group_order: int | None = None   # with "on": the group the canonicaliser reduces by
    symmetry_strategy: str | None = None      # with "on": "segmented", "enumerate"
    version_lines_before: int = 0      # lines before the block that start as it does: the model's
                                       # imitations (or, in a pan of several processes, anyone's)

    @property
    def complete(self) -> bool:
        """pan explored the whole state space: it reported, and nothing cut the search short."""
        return (self.has_summary and not self.depth_limit_hit and not self.stopped_early
                and not self.out_of_memory and self.vectorsz_needed is None)

    @property
    def several_processes(self) -> bool:
        """The header says pan searched with several processes (-DNCORE>1, -DBFS_PAR)."""
        return any(mode.startswith("Multi-Core") for mode in self.modes)


def parse_count(text: str) -> float:
    """A count as ``%9.8g`` prints it: ``2636``, ``1.2345679e+08``."""
    return float(text)


def parse_pan_output(text: str) -> PanReport:
    """Read pan's complete output (stderr merged; the model's printing and progress lines may
    be mixed in): the report from pan's block, the rest as the module doc says."""
    report = PanReport()
    starts = [match.start() for match in _BLOCK_START.finditer(text)]
    block_start = starts[-1] if starts else len(text)
    before, block = text[:block_start], text[block_start:]
    report.version_lines_before = max(len(starts) - 1, 0)
    header = _HEADER.match(block)
    body = block[header.end():] if header is not None else ""   # after the State-vector line
    if block:
        _read_block_start(report, block)
    if header is not None:
        _read_header(report, header)
        _read_statistics(report, body)
        _read_last_words(report, _lines_before_block(before))
    _read_search_lines(report, before, body)
    report.warnings = list(dict.fromkeys(_warnings(report, before, body)))
    return report


def _read_block_start(report: PanReport, block: str) -> None:
    """The version line, and a spliced pan's line after it: read even when the rest of the
    header is not there (a report cut short), for verify's check of the reduction."""
    if match := _SPIN_VERSION.match(block):
        report.spin_version = match.group(1)
    if match := _SYMMETRY.match(block):
        report.symmetry = match.group(1)
        if match.group(2) and match.group(2).isdigit():
            report.symmetry_group_order = int(match.group(2))
        report.symmetry_strategy = match.group(3)


def _read_header(report: PanReport, header: re.Match[str]) -> None:
    report.has_summary = True
    report.state_vector_bytes = int(header.group("vector"))
    report.depth = int(header.group("depth"))
    report.errors = int(header.group("errors"))
    report.stopped_early = bool(header.group("not_completed") or header.group("states_lost"))
    report.modes = _MODE.findall(header.group("modes"))
    report.storage = header.group("storage")
    checks = header.group("checks")
    if match := _CLAIM_USED.search(checks):
        report.claim = match.group(1)
    if _ACCEPTANCE_ON.search(checks):
        report.cycle_search = "acceptance"
    elif _NON_PROGRESS_ON.search(checks):
        report.cycle_search = "non-progress"


def _read_statistics(report: PanReport, body: str) -> None:
    """The block after its State-vector line: counts, memory, time, unreached statements."""
    inexact: list[bool] = []

    def count(pattern: re.Pattern[str], group: int = 1) -> float | None:
        match = pattern.search(body)
        if match is None or match.group(group) is None:
            return None
        inexact.append("e" in match.group(group))
        return parse_count(match.group(group))

    report.states_stored = count(_STORED)
    report.states_visited = count(_STORED, 2)
    report.states_matched = count(_MATCHED)
    report.transitions = count(_TRANSITIONS)
    report.atomic_steps = count(_ATOMIC)
    report.hash_conflicts = count(_HASH_CONFLICTS)
    report.nominal_states = count(_NOMINAL)
    report.counts_exact = not any(inexact)
    if match := _TOTAL_MEMORY.search(body):
        report.memory_mb = float(match.group(1))
    if match := _ELAPSED.search(body):
        report.elapsed_s = float(match.group(1))
    if match := _RATE.search(body):
        report.rate = parse_count(match.group(1))
    if match := _HASH_FACTOR.search(body):
        report.hash_factor = float(match.group(1))
    if match := _BITS_PER_STATE.search(body):
        report.bits_per_state = int(match.group(1))
    report.unreached = _parse_unreached(body)


def _lines_before_block(before: str) -> list[str]:
    """The lines before the block, without the newline pan prints first (``\\n(Spin Version``)
    and each line's own."""
    lines = before.removesuffix("\n").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _read_last_words(report: PanReport, lines: list[str]) -> None:
    """Why pan stopped, from what it printed just before its block (module doc): only for a
    search the block says pan did not complete."""
    if not report.stopped_early or not lines:
        return
    last = lines[-1]
    report.interrupted = bool(_INTERRUPTED.search(last))
    report.time_limit_hit = bool(_TIME_LIMIT.match(last)) or (
        len(lines) > 1 and bool(_STOP_LINE.match(last)) and bool(_TIME_LIMIT.match(lines[-2])))
    report.memory_lines = _memory_failure(lines)
    report.out_of_memory = bool(report.memory_lines)
    report.vectorsz_needed = _vectorsz_needed(lines)


def _memory_failure(lines: list[str]) -> list[str]:
    """pan's message about a memory failure, its first line and its details, when they are the
    last lines before the block; else []."""
    first = len(lines)
    while first > 0 and _MEMORY_DETAIL.match(lines[first - 1]):
        first -= 1
    if first == 0 or not _OUT_OF_MEMORY.match(lines[first - 1]):
        return []
    return [lines[first - 1], *(line.strip() for line in lines[first:])]


def _vectorsz_needed(lines: list[str]) -> int | None:
    """The VECTORSZ pan asks for, when its message is followed by its ``pan:K: aborting``
    line (and the trail it wrote) right before the block; else None."""
    end = len(lines)
    while end > 0 and _AFTER_ABORTING.match(lines[end - 1]):
        end -= 1
    if end < 2 or not _ABORTING.match(lines[end - 1]):
        return None
    match = _VECTORSZ.match(lines[end - 2])
    return int(match.group(1)) + 1 if match else None


def _read_search_lines(report: PanReport, before: str, body: str) -> None:
    """What pan prints during the search, amid the model's output (module doc)."""
    report.error_lines = _pans_error_lines(before, report.errors)
    report.trail_files = [name for name in (found.strip() for found in _TRAIL_WRITTEN.findall(before))
                          if _plain_file_name(name)]
    report.trail_unnamed = bool(_TRAIL_UNNAMED.search(before))
    report.depth_limit_hit = bool(_DEPTH_LIMIT.search(before)) and _depth_limit_possible(report, body)


def _pans_error_lines(before: str, errors: int | None) -> list[str]:
    """The error lines numbered 1..errors, the last of each number, in pan's order (module doc).
    Without a block (a multi-core pan that stopped before its report) the count is unknown:
    every line of pan's form."""
    found = [(int(match.group(2)), match.group(1)) for match in _ERROR_LINE.finditer(before)]
    if errors is None:
        return [line for _, line in found]
    last_of_number = {number: line for number, line in found if 1 <= number <= errors}
    return [last_of_number[number] for number in sorted(last_of_number)]


def _plain_file_name(name: str) -> bool:
    """A file name without a directory: pan names its trails so, in its working directory.
    A path (``../x``, ``/etc/x``) is not pan's, and must never be read or copied."""
    return bool(name) and "/" not in name and "\0" not in name and name not in (".", "..")


def _depth_limit_possible(report: PanReport, body: str) -> bool:
    """pan cuts a path at depth N of its -mN only below a state it reached at depth N-1, so
    its block then says ``depth reached`` N-1 or more (checked over bitstate, hash compaction,
    collapse, MA, -a, -l, -i).  Without the block or its -mN (BFS, -DNOCOMP), the line stands."""
    limit = _DFS_STACK.search(body)
    if report.depth is None or limit is None:
        return True
    return report.depth + 1 >= int(limit.group(1))


def _warnings(report: PanReport, before: str, body: str) -> list[str]:
    """pan's warnings: those before the search, then the block's depth-limit error, hints and
    a hash factor below 100."""
    warnings = _warnings_before_search(before)
    # pan prints these as errors or hints, but they are what its warnings are for: the search
    # was cut short, or its hash table or bit array is too small for the states it stored.
    if report.depth_limit_hit:
        warnings.append("error: max search depth too small")
    warnings += [line.rstrip() for line in _HINT.findall(body)]
    if (match := _HASH_FACTOR.search(body)) and float(match.group(1)) < 100:
        warnings.append(match.group(0))
    return warnings


def _warnings_before_search(before: str) -> list[str]:
    """The warnings among the lines pan prints before its search starts: the first lines of its
    output, which nothing the model prints can precede.  (The model's first words, if they
    look like pan's, are read as pan's: they can only add a warning to the summary.)"""
    warnings: list[str] = []
    for line in before.split("\n"):
        if _WARNING.match(line) or _HINT.match(line) or _IGNORED.match(line):
            warnings.append(line.rstrip())
        elif _WARNING_CONTINUED.match(line) and warnings:
            warnings[-1] += " " + line
        elif not _BEFORE_SEARCH.match(line):
            break
    return warnings


def _parse_unreached(text: str) -> list[Unreached]:
    blocks: list[Unreached] = []
    header: re.Match[str] | None = None
    statements: list[str] = []
    for line in text.splitlines():
        if header is None:
            header = _UNREACHED_HEADER.match(line)
            statements = []
            continue
        if match := _UNREACHED_COUNT.match(line):
            kind, name = header.group(1), header.group(2) or header.group(1)
            blocks.append(Unreached(kind, name, tuple(statements),
                                    int(match.group(1)), int(match.group(2))))
            header = None
        elif line.startswith("\t"):
            statements.append(line.strip())
        else:  # the block ended without its count line: not the shape we know, drop it
            header = _UNREACHED_HEADER.match(line)
            statements = []
    return blocks
