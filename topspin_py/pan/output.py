"""Parse the report pan prints at the end of a search.

The format is SPIN 6.5.2's (see notes/spin-internals.md, section 1).  Facts the parser relies on:

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
* the header names the search's modes, one ``\t+ Partial Order Reduction`` line per mode
  compiled in, then the storage (``Full statespace``, ``Bit statespace``, ``Hash-Compact 4``);
  bitstate adds ``hash factor: 4.47392e+07 (best if > 100.)`` and ``bits set per state: 3
  (-k3)``, BFS ``\t       3 nominal states (stored-atomic)`` (stored minus atomic steps).

This module only reads text; deciding what a report means for the user is verify.py's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# One count as %9.8g prints it: 2636, 1.2345679e+08, 0.
_COUNT = r"([0-9.]+(?:e[+-]?[0-9]+)?)"

_SPIN_VERSION = re.compile(r"^\(Spin Version (\S+) -- ([^)]*)\)", re.M)
_SUMMARY = re.compile(r"^State-vector (\d+) byte, depth reached (\d+), errors: (\d+)", re.M)
_STORED = re.compile(rf"^\s*{_COUNT} states, stored(?: \({_COUNT} visited\))?\s*$", re.M)
_MATCHED = re.compile(rf"^\s*{_COUNT} states, matched\s*$", re.M)
_TRANSITIONS = re.compile(rf"^\s*{_COUNT} transitions \(= (?:stored|visited)\+matched\)", re.M)
_ATOMIC = re.compile(rf"^\s*{_COUNT} atomic steps\s*$", re.M)
_HASH_CONFLICTS = re.compile(rf"^hash conflicts:\s*{_COUNT} \(resolved\)", re.M)
_TOTAL_MEMORY = re.compile(r"^\s*([0-9.]+)\s+total actual memory usage", re.M)
_ELAPSED = re.compile(r"^pan: elapsed time ([0-9.e+-]+) seconds", re.M)
_RATE = re.compile(rf"^pan: rate\s+{_COUNT} states/second", re.M)
_DEPTH_LIMIT = re.compile(r"^error: max search depth too small", re.M)
_NOT_COMPLETED = re.compile(r"^Warning: Search not completed", re.M)
# pan:1: assertion violated (x==1) (at depth 58) / pan:1: invalid end state (at depth 3) / ...
# A multi-core pan (-DNCORE>1) puts "cpuN: " before them, and writes its trail as a single
# pan does but says only "cpuN: pan: wrote trailfile" (trail_unnamed).
_ERROR_LINE = re.compile(r"^(?:cpu\d+: )?(pan:\d+: .*)$", re.M)
_TRAIL_WRITTEN = re.compile(r"^pan: wrote (.+)$", re.M)
_TRAIL_UNNAMED = re.compile(r"^cpu\d+: pan: wrote trailfile$", re.M)
_VECTORSZ = re.compile(r"VECTORSZ too small, recompile pan\.c with -DVECTORSZ=N with N>(\d+)")
_OUT_OF_MEMORY = re.compile(
    r"^(?:pan: out of memory|pan: reached -DMEMLIM bound|.*out of memory -- aborting)", re.M)
_TIME_LIMIT = re.compile(r"^Time limit of .* exceeded", re.M)
# pan's SIGINT handler prints this first; a progress line it cut short may precede it.
_INTERRUPTED = re.compile(r"(?:^|\t)Interrupted$", re.M)
# The modes between the version line and "... search for:": "\t+ Breadth-First Search".
_MODE = re.compile(r"^\t\+ (.+?)\s*$", re.M)
_STORAGE = re.compile(r"^(Full statespace|Bit statespace|Hash-Compact \d+) search for:", re.M)
_HASH_FACTOR = re.compile(r"^hash factor: ([0-9.e+-]+|inf|nan) \(best if > 100\.\)", re.M)
_BITS_PER_STATE = re.compile(r"^bits set per state: (\d+)", re.M)
# "\t       3 nominal states (stored-atomic)", or "(- rv and atomic)" when rendezvous count too
_NOMINAL = re.compile(rf"^\s*{_COUNT} nominal states \(", re.M)
# Advice pan prints among its statistics: "hint: increase hashtable-size (-w) to reduce runtime"
_HINT = re.compile(r"^hint: .*$", re.M)
# The header of the report says what pan checked:
#	never claim         	+ (p1)          /  - (none specified)  /  - (not selected)
#	acceptance   cycles 	+ (fairness disabled)
#	non-progress cycles 	+ (fairness enabled)
_CLAIM_USED = re.compile(r"^\tnever claim\s+\+ \((.*)\)\s*$", re.M)
_ACCEPTANCE_ON = re.compile(r"^\tacceptance\s+cycles\s+\+", re.M)
_NON_PROGRESS_ON = re.compile(r"^\tnon-progress cycles\s+\+", re.M)
# pan's warnings go to stderr (merged into the output we read), before or inside the report:
#   warning: never claim + accept labels requires -a flag to fully verify
#   warning: for p.o. reduction to be valid the never claim must be stutter-invariant
#   (never claims generated from LTL formulae are stutter-invariant)
#   pan: warning, stack incomplete
# A warning may follow other text on its line: stdout is buffered, stderr is not.
_WARNING = re.compile(r"(?:^|(?<=\S))((?:pan: )?warning[:,] .*)(?:\n(\(.*\)))?$", re.M)
# pan's words for an argument it drops (main's option switch): verify refuses the ones it
# foresees (flags.check_pan_args); any other must not go unsaid either.
#   invalid option '-p' -- ignored          pan: bad option -P[01], ignored
#   pan: option -P not recognized, ignored   -M and -G affect only -DBITSTATE
_IGNORED = re.compile(r"^(?:pan: )?(?:invalid option .* -- ignored|bad option .*, ignored"
                      r"|option .* not recognized, ignored|-M and -G affect only -DBITSTATE)\s*$", re.M)
# A pan.c spliced by topspin-py says after the version line whether the reduction is compiled in
# (pan/splice.py, REPORT_PREFIX):
#   topspin-py: symmetry reduction on, group order 6, strategy segmented
#   topspin-py: symmetry reduction off (pan.c built without -DTOPSPIN_SYM)
_SYMMETRY = re.compile(r"^topspin-py: symmetry reduction (on|off)\b"
                       r"(?:, group order (\d+|unknown), strategy ([\w-]+))?", re.M)
_UNREACHED_HEADER = re.compile(r"^unreached in (proctype|init|claim)\s*(\S*)\s*$")
_UNREACHED_COUNT = re.compile(r"^\s+\((\d+) of (\d+) states\)\s*$")


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
    has_summary: bool = False          # pan got as far as printing its statistics
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
    stopped_early: bool = False        # "Warning: Search not completed"
    time_limit_hit: bool = False       # -QN: "Time limit of ... exceeded"
    error_lines: list[str] = field(default_factory=list)
    trail_files: list[str] = field(default_factory=list)  # as pan names them, relative to its cwd
    trail_unnamed: bool = False        # a multi-core pan wrote a trail without saying its name
    vectorsz_needed: int | None = None  # "recompile pan.c with -DVECTORSZ=N with N>..."
    out_of_memory: bool = False
    memory_lines: list[str] = field(default_factory=list)  # pan's own lines about the memory failure
    unreached: list[Unreached] = field(default_factory=list)
    claim: str | None = None           # the claim pan checked, by its procname ("p1", ":np_:")
    cycle_search: str | None = None    # "acceptance" (-a) or "non-progress" (-l); None: safety only
    warnings: list[str] = field(default_factory=list)   # pan's own, without repeats: its warnings,
                                                        # then its depth-limit error, hints, a hash factor < 100
    interrupted: bool = False          # pan caught SIGINT: the counts are the statistics so far
    modes: list[str] = field(default_factory=list)   # the header's "+" lines: "Partial Order Reduction"
    storage: str | None = None         # "Full statespace", "Bit statespace", "Hash-Compact 4"
    hash_factor: float | None = None   # bitstate: bits of the hash array per stored state
    bits_per_state: int | None = None  # bitstate: hash functions per state (-k)
    nominal_states: float | None = None  # BFS: stored minus atomic steps (rendezvous too with SYNC)
    symmetry: str | None = None        # "on" or "off" as a spliced pan says; None: not spliced
    symmetry_group_order: int | None = None   # with "on": the group the canonicaliser reduces by
    symmetry_strategy: str | None = None      # with "on": "segmented", "enumerate"

    @property
    def complete(self) -> bool:
        """pan explored the whole state space: it reported, and nothing cut the search short."""
        return (self.has_summary and not self.depth_limit_hit and not self.stopped_early
                and not self.out_of_memory and self.vectorsz_needed is None)


def parse_count(text: str) -> float:
    """A count as ``%9.8g`` prints it: ``2636``, ``1.2345679e+08``."""
    return float(text)


def parse_pan_output(text: str) -> PanReport:
    """Read pan's complete stdout (progress lines may be mixed in; they are ignored)."""
    report = PanReport()
    inexact: list[bool] = []

    def count(pattern: re.Pattern[str], group: int = 1) -> float | None:
        match = pattern.search(text)
        if match is None or match.group(group) is None:
            return None
        inexact.append("e" in match.group(group))
        return parse_count(match.group(group))

    if match := _SPIN_VERSION.search(text):
        report.spin_version = match.group(1)
    if match := _SUMMARY.search(text):
        report.has_summary = True
        report.state_vector_bytes = int(match.group(1))
        report.depth = int(match.group(2))
        report.errors = int(match.group(3))
    if match := _STORED.search(text):
        inexact.append("e" in match.group(1))
        report.states_stored = parse_count(match.group(1))
        if match.group(2) is not None:
            inexact.append("e" in match.group(2))
            report.states_visited = parse_count(match.group(2))
    report.states_matched = count(_MATCHED)
    report.transitions = count(_TRANSITIONS)
    report.atomic_steps = count(_ATOMIC)
    report.hash_conflicts = count(_HASH_CONFLICTS)
    if match := _TOTAL_MEMORY.search(text):
        report.memory_mb = float(match.group(1))
    if match := _ELAPSED.search(text):
        report.elapsed_s = float(match.group(1))
    if match := _RATE.search(text):
        report.rate = parse_count(match.group(1))

    report.depth_limit_hit = bool(_DEPTH_LIMIT.search(text))
    report.stopped_early = bool(_NOT_COMPLETED.search(text))
    report.time_limit_hit = bool(_TIME_LIMIT.search(text))
    report.error_lines = [line.rstrip() for line in _ERROR_LINE.findall(text)]
    report.trail_files = [name.strip() for name in _TRAIL_WRITTEN.findall(text)]
    report.trail_unnamed = bool(_TRAIL_UNNAMED.search(text))
    if not report.has_summary and report.trail_unnamed and report.error_lines:
        # a multi-core pan whose worker found an error may stop before its first worker prints
        # the statistics: the errors are known, the counts are not
        report.errors = len(report.error_lines)
        report.stopped_early = True
    if match := _VECTORSZ.search(text):
        report.vectorsz_needed = int(match.group(1)) + 1
    if match := _OUT_OF_MEMORY.search(text):
        report.out_of_memory = True
        report.memory_lines = _memory_failure_lines(text, match.start())
    report.unreached = _parse_unreached(text)
    if match := _CLAIM_USED.search(text):
        report.claim = match.group(1)
    if _ACCEPTANCE_ON.search(text):
        report.cycle_search = "acceptance"
    elif _NON_PROGRESS_ON.search(text):
        report.cycle_search = "non-progress"
    if match := _SYMMETRY.search(text):
        report.symmetry = match.group(1)
        if match.group(2) and match.group(2).isdigit():
            report.symmetry_group_order = int(match.group(2))
        report.symmetry_strategy = match.group(3)
    report.interrupted = bool(_INTERRUPTED.search(text))
    report.modes = _header_modes(text)
    if match := _STORAGE.search(text):
        report.storage = match.group(1)
    if match := _HASH_FACTOR.search(text):
        report.hash_factor = float(match.group(1))
    if match := _BITS_PER_STATE.search(text):
        report.bits_per_state = int(match.group(1))
    report.nominal_states = count(_NOMINAL)
    report.counts_exact = not any(inexact)
    warnings = [" ".join(part for part in match.groups() if part) for match in _WARNING.finditer(text)]
    warnings += [line.strip() for line in _IGNORED.findall(text)]
    # pan prints these as errors or hints, but they are what its warnings are for: the search
    # was cut short, or its hash table or bit array is too small for the states it stored.
    if match := _DEPTH_LIMIT.search(text):
        warnings.append(match.group(0))
    warnings += [line.rstrip() for line in _HINT.findall(text)]
    if (match := _HASH_FACTOR.search(text)) and float(match.group(1)) < 100:
        warnings.append(match.group(0))
    report.warnings = list(dict.fromkeys(warnings))
    return report


def _header_modes(text: str) -> list[str]:
    """The "+" lines of the report's header (between the version line and the storage line),
    as pan prints them: "Breadth-First Search", "Partial Order Reduction", "Compression"."""
    version, storage = _SPIN_VERSION.search(text), _STORAGE.search(text)
    if version is None or storage is None or storage.start() < version.end():
        return []
    return [match.group(1) for match in _MODE.finditer(text, version.end(), storage.start())]


def _memory_failure_lines(text: str, start: int) -> list[str]:
    """pan's message about the memory failure: the first line and its indented details."""
    lines = text[start:].splitlines()
    kept = [lines[0]]
    for line in lines[1:]:
        if not line.startswith("\t"):
            break
        kept.append(line.strip())
    return kept


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
