"""The outcome of one verification: what the CLI prints and the tests check.

Counts are ints here.  pan prints them with ``%9.8g``, so above 10^8 they are rounded to 8
significant digits; ``counts_exact`` is False when that happened.

Exit status (``Result.exit_status``): 0 no errors found, 1 pan found errors, 130 when the search
was interrupted (Ctrl-C: the counts are pan's statistics so far), and 2 when
``verify --compare`` finds that the reduced and the plain search disagree on whether the model
has errors.  A sound reduction never changes the verdict, so a disagreement is a failure of the
tool, which a script must not take for either verdict: exit status 2, whichever way it goes,
and ``disagreement`` says which way (``errors`` stays the reduced search's count).

``verify --cross-check`` runs the same search (same strategy) a second time with partial order
reduction switched the other way (-DNOREDUCE added, or taken away when the user gave it).  POR
and symmetry reduction must agree on whether the model has errors: when they do not,
``por_disagreement`` says how and the exit status is 2, as for --compare.  Both runs may find
errors of different kinds first (a model with several errors, searched in different orders, as
pan stops at the first): both verdicts say "errors", so the exit status stays 1, and
``por_first_errors_differ`` says so beside them.  One disagreement has a known cause that is
not topspin-py's: where SPIN itself says its partial order reduction is not compatible with
the model (``por_incompatible``: pan.c's "#warning p.o. reduction not compatible with remote
varrefs"), verify searches without it (``por_turned_off``), and --cross-check's run with it
may miss the errors the run without it found.  ``por_missed_by_spin`` says so, naming SPIN's
warning, and the exit status is that of the verdict without it (1: errors found).

``verify --check-symmetry`` compares the canonical forms of the states plain pan stores with the
forms the reduced pan stores, without trusting the analysis (symcheck.py);
``symmetry_check`` says what it found, and a difference is exit status 2.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import asdict, dataclass, field

from topspin_py import strategies
from topspin_py.pan.lasso import Lasso
from topspin_py.pan.output import Unreached

# The keys every consumer may rely on (the acceptance contract of `verify --json`).
JSON_REQUIRED_KEYS = ("states_stored", "states_matched", "transitions", "errors", "depth",
                      "complete", "strategy", "exactness", "group_order", "elapsed_s", "memory_mb",
                      "trail", "warnings")


@dataclass
class PlainRun:
    """The same model verified without reduction (``verify --compare``)."""

    states_stored: int
    transitions: int
    errors: int
    complete: bool
    elapsed_s: float
    memory_mb: float


@dataclass
class PorRun:
    """The same search with partial order reduction switched the other way (``verify --cross-check``)."""

    partial_order_reduction: bool   # as pan reported it
    defines: list[str]              # the run's defines (-DNOREDUCE added or taken away)
    states_stored: int
    transitions: int
    errors: int
    first_error: str | None         # pan's first error line, "pan:1: acceptance cycle (at depth 3)"
    complete: bool
    incomplete_reason: str | None
    elapsed_s: float
    por_incompatible: list[str] = field(default_factory=list)   # as Result's


def error_kind(line: str | None) -> str | None:
    """The kind of error a line of pan's names: ``pan:1: assertion violated (x!=2) (at depth 5)``
    -> ``assertion violated``, ``pan:1: acceptance cycle (at depth 3)`` -> ``acceptance cycle``."""
    if line is None:
        return None
    text = line.split(": ", 1)[1] if line.startswith("pan:") and ": " in line else line
    return text.split(" (", 1)[0].strip()


def por_off_note(spin_says) -> str:
    """What verify says when it compiles with -DNOREDUCE because SPIN says its partial order
    reduction is not compatible with the model (``spin_says``: pan.c's lines that say so)."""
    return ("partial order reduction turned off (compiled with -DNOREDUCE): SPIN says it is not "
            "compatible with this model, and it would miss errors: " + "; ".join(spin_says))


def _por_words(on: bool) -> str:
    return "with partial order reduction" if on else "without partial order reduction (-DNOREDUCE)"


@dataclass
class Result:
    model: str                      # the model path as the user gave it
    strategy: str
    group_order: int                # order of the symmetry group used (1: no reduction)
    states_stored: int
    states_matched: int
    transitions: int
    atomic_steps: int
    depth: int                      # depth reached
    errors: int
    complete: bool                  # the whole state space was explored
    incomplete_reason: str | None   # why not, in words the user can act on
    approximate: bool               # bitstate / hash compaction: states may have been lost
    elapsed_s: float                # pan's search time
    memory_mb: float                # pan's "total actual memory usage"
    trail: str | None               # the first trail file, next to the model
    trails: list[str] = field(default_factory=list)   # all of them (-e, -cN write several)
    replay_command: str | None = None
    error_messages: list[str] = field(default_factory=list)   # "pan:1: assertion violated ..."
    states_visited: int | None = None   # nested DFS (-a, -l): stored plus the 2nd DFS's visits
    counts_exact: bool = True
    exact: bool = True              # the strategy stores exactly one state per orbit
    state_vector_bytes: int = 0
    hash_conflicts: int | None = None
    depth_limit: int = 0            # the -m of the final run
    pan_args: list[str] = field(default_factory=list)        # of the final run
    compile_flags: list[str] = field(default_factory=list)   # -D flags given to gcc
    defines: list[str] = field(default_factory=list)         # the user's, as NAME[=VALUE]
    spin_version: str = ""
    wall_s: float = 0.0             # the whole pipeline: spin, gcc and every pan run
    unreached: list[Unreached] = field(default_factory=list)
    pan_output: str = field(default="", repr=False)          # pan's full report (final run)
    plain: PlainRun | None = None   # --compare: the run without reduction
    claim: str | None = None        # the claim pan checked ("ltl p1", "never claim never_0"); None: none
    search: str = "safety"          # "safety", "acceptance cycles (-a)" or "non-progress cycles (-l)"
    # Ours first (an approximate or complete strategy's, topspin_py.strategies.warning), then
    # pan's, as it printed them.
    warnings: list[str] = field(default_factory=list)
    trail_notes: list[str] = field(default_factory=list)     # a previous trail replaced, or not writable
    trail_depth: int | None = None  # pan -i/-I: the depth of the shortest error found (the trail's)
    # What the build cache did for this run's pan (pan/build_cache.py): "reused the build in
    # DIR", "compiled, and kept in DIR", "not cached: WHY"; None: --no-cache.
    build_cache: str | None = None
    interrupted: bool = False       # Ctrl-C: if it stopped pan (complete is False), the counts
                                    # are its statistics so far; else it stopped --compare's plain run
    # How pan searched, from its report's header: its "+" lines as it prints them
    # ("Partial Order Reduction", "Breadth-First Search", "Compression", ...) and its storage.
    search_modes: list[str] = field(default_factory=list)
    partial_order_reduction: bool = True
    breadth_first: bool = False
    storage: str = "Full statespace"     # or "Bit statespace" (-DBITSTATE), "Hash-Compact 4" (-DHC4)
    hash_factor: float | None = None     # bitstate: bits of the hash array per state (best > 100)
    bits_per_state: int | None = None    # bitstate: hash functions per state (-kN)
    nominal_states: int | None = None    # BFS: states stored minus atomic steps
    # Why the group is smaller than the model looks: detection's reasons and the permutations it
    # left out, each with the place in the model (detect --explain shows the text).
    symmetry_notes: list[str] = field(default_factory=list)
    # The strategy as the user asked for it ("auto"), and why that became ``strategy`` when
    # it is not the one named (auto's pick, a trivial group's none); None: as named.
    requested_strategy: str | None = None
    strategy_reason: str | None = None
    # "exact", "complete" or "approximate" (topspin_py.strategies); None: no reduction.
    exactness: str | None = None
    cross_check: PorRun | None = None   # --cross-check: the run with POR switched the other way
    # SPIN's own words that its partial order reduction is not compatible with this model
    # (pan.c's "#warning p.o. reduction not compatible with remote varrefs (use -DNOREDUCE)"),
    # and whether verify compiled with -DNOREDUCE for them (it does unless you gave it).
    por_incompatible: list[str] = field(default_factory=list)
    por_turned_off: bool = False
    # A cycle's trail under symmetry reduction (pan/lasso.py): one entry per trail with a cycle,
    # the Lasso's as_json() ("outcome": "closed", "unrolled" or "failed").
    lassos: list[dict] = field(default_factory=list)
    # --check-symmetry: symcheck.py's SymmetryCheck.as_json(); None when not asked for, or
    # when there was no reduction to check (then symmetry_check_note says so).
    symmetry_check: dict | None = None
    symmetry_check_note: str | None = None

    @property
    def reduction(self) -> float | None:
        """Plain states stored over reduced states stored (--compare)."""
        if self.plain is None or not self.states_stored:
            return None
        return self.plain.states_stored / self.states_stored

    @property
    def disagreement(self) -> str | None:
        """--compare: what is wrong when the reduced and the plain search disagree on whether
        the model has errors; None when they agree (or there was no plain run)."""
        if self.plain is None or bool(self.plain.errors) == bool(self.errors):
            return None
        reduced = f"the reduced search (strategy {self.strategy}, group order {self.group_order})"
        caveats = []
        if self.plain.errors:
            found, missed = f"plain SPIN found {self.plain.errors} error(s)", reduced + " found none"
            if not self.complete:
                caveats.append(f"the reduced search was incomplete: {self.incomplete_reason}")
            if self.approximate:
                caveats.append("the reduced search used approximate storage and may miss states")
            if self.exactness == "approximate" or (self.exactness is None and not self.exact):
                # (a complete strategy keeps a state of every orbit: it cannot miss an error)
                caveats.append(f"strategy {self.strategy} is approximate and may miss states "
                               "(it may take states of different orbits for one)")
            advice = ("trust plain SPIN's verdict (--strategy none writes its trail)")
        else:
            found, missed = f"{reduced} found {self.errors} error(s)", "plain SPIN found none"
            if not self.plain.complete:
                caveats.append("plain SPIN's search was incomplete")
            advice = "check the reduced search's trail against plain SPIN (--strategy none)"
        because = f" ({'; '.join(caveats)})" if caveats else ""
        return (f"the verdicts differ: {found}, {missed}{because}; {advice}, and please report "
                "this model as a topspin-py bug")

    @property
    def por_note(self) -> str | None:
        """Why pan searched without partial order reduction although nobody asked: SPIN says
        it is not compatible with the model (verify.py); None otherwise."""
        return por_off_note(self.por_incompatible) if self.por_turned_off else None

    @property
    def por_missed_by_spin(self) -> str | None:
        """--cross-check: the search with partial order reduction found no errors where the one
        without found some, and SPIN itself says its reduction is not compatible with this model
        (``por_incompatible``): SPIN's known limit, not a fault of the symmetry reduction, and
        the verdict without it stands; None otherwise."""
        other = self.cross_check
        spin_says = self.por_incompatible or (other.por_incompatible if other is not None else [])
        if other is None or not spin_says or other.partial_order_reduction == self.partial_order_reduction:
            return None
        with_por, without = (self.errors, other.errors) if self.partial_order_reduction else (other.errors, self.errors)
        if with_por or not without:
            return None   # the reduction may lose errors, never make them up: that is no known limit
        return (f"the search with SPIN's partial order reduction found no errors, the search without it "
                f"found {without}: SPIN's partial order reduction is not compatible with this model, as "
                f"SPIN itself warns ({'; '.join(spin_says)}), and misses them; the verdict without it stands")

    @property
    def por_disagreement(self) -> str | None:
        """--cross-check: what is wrong when the searches with and without partial order
        reduction disagree on whether the model has errors; None when they agree, or when SPIN's
        own warning explains it (``por_missed_by_spin``)."""
        other = self.cross_check
        if other is None or bool(other.errors) == bool(self.errors) or self.por_missed_by_spin is not None:
            return None
        this_run = (f"the search {_por_words(self.partial_order_reduction)}",
                    self.errors, self.complete, self.incomplete_reason)
        other_run = (f"the search {_por_words(other.partial_order_reduction)}",
                     other.errors, other.complete, other.incomplete_reason)
        found, missed = (this_run, other_run) if self.errors else (other_run, this_run)
        caveats = [f"{run[0]} was incomplete: {run[3]}" for run in (found, missed) if not run[2]]
        if self.approximate:
            caveats.append("both used approximate storage, which may miss states")
        because = f" ({'; '.join(caveats)})" if caveats else ""
        reduced = f"strategy {self.strategy}, group order {self.group_order}"
        return (f"the verdicts differ ({reduced}): {found[0]} found {found[1]} error(s), "
                f"{missed[0]} found none{because}; check the trail against plain SPIN "
                "(--strategy none, with and without -DNOREDUCE), and please report this model as "
                "a topspin-py bug")

    @property
    def por_first_errors_differ(self) -> str | None:
        """--cross-check: both runs found errors, but not of the same kind first (no failure:
        pan stops at the first error it meets, and the runs search in different orders)."""
        other = self.cross_check
        if other is None or not (self.errors and other.errors):
            return None
        mine = error_kind(self.error_messages[0] if self.error_messages else None)
        theirs = error_kind(other.first_error)
        if mine == theirs:
            return None
        return (f"the first errors differ in kind: '{mine}' {_por_words(self.partial_order_reduction)}, "
                f"'{theirs}' {_por_words(other.partial_order_reduction)}; both verdicts are "
                "\"errors found\" (the searches meet errors in different orders; -c0 or -e lists them all)")

    @property
    def exit_status(self) -> int:
        """0: no errors found, 1: pan found errors, 130: interrupted, 2: --compare or
        --cross-check found verdicts that differ (see the module doc; other tool failures never
        get a Result)."""
        if self.interrupted:
            return 130
        if self.disagreement is not None or self.por_disagreement is not None:
            return 2
        if self.symmetry_check is not None and not self.symmetry_check["agrees"]:
            return 2
        return 1 if self.errors else 0

    def to_dict(self) -> dict:
        data = asdict(self)
        del data["pan_output"]  # large, and already summarised by the other fields
        data["reduction"] = self.reduction
        data["disagreement"] = self.disagreement
        data["por_disagreement"] = self.por_disagreement
        data["por_missed_by_spin"] = self.por_missed_by_spin
        data["por_first_errors_differ"] = self.por_first_errors_differ
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @property
    def build_reused(self) -> bool:
        """The pan of this run came from the build cache."""
        return self.build_cache is not None and self.build_cache.startswith("reused")

    def summary(self) -> str:
        """The readable report the CLI prints by default: pan's report, in short."""
        rows = [
            ("model", self.model),
            ("strategy", self._strategy_line()),
            ("claim", f"{self.claim or 'none'} ({self.search})"),
            ("search mode", self.search_mode()),
            ("states stored", self._count(self.states_stored)
             + (f" ({self._count(self.states_visited)} visited)" if self.states_visited else "")),
        ]
        if self.nominal_states is not None:
            rows.append(("nominal states", f"{self._count(self.nominal_states)} (stored minus atomic steps)"))
        rows += [
            ("states matched", self._count(self.states_matched)),
            ("transitions", self._count(self.transitions)),
            ("depth reached", f"{self.depth:,} (limit -m{self.depth_limit})"),
            ("errors", str(self.errors)),
        ]
        lines = [f"{name + ':':16}{value}" for name, value in rows]
        lines[2:2] = self._symmetry_lines()
        lines += [f"    {message}" for message in self.error_messages]
        if self.interrupted and not self.complete:
            search = "INTERRUPTED: partial statistics, pan's counts when it stopped"
        else:
            search = "complete" if self.complete else f"INCOMPLETE: {self.incomplete_reason}"
        if self.approximate:
            search += " (approximate storage: hash collisions may have hidden states)"
        lines.append(f"{'search:':16}{search}")
        lines.append(f"{'memory:':16}{self.memory_mb:.3f} MB")
        lines.append(f"{'time:':16}{self.elapsed_s:.2f} s search, {self.wall_s:.2f} s in all")
        if self.build_reused:
            lines.append(f"{'build:':16}pan reused from the build cache, not compiled again "
                         "(--no-cache compiles it)")
        if self.plain is not None:
            plain = self.plain
            lines.append(f"{'plain SPIN:':16}{self._count(plain.states_stored)} states, "
                         f"{self._count(plain.transitions)} transitions, {plain.errors} errors, "
                         f"{plain.elapsed_s:.2f} s search, {plain.memory_mb:.3f} MB"
                         + ("" if plain.complete else " (incomplete)"))
            lines.append(f"{'reduction:':16}{self.reduction:.1f}x fewer states")
        if self.trail:
            more = f" (and {len(self.trails) - 1} more, to {self.trails[-1]})" if len(self.trails) > 1 else ""
            lines.append(f"{'trail:':16}{self.trail}{more}")
            if self.trail_depth is not None:
                lines.append(f"{'shortest:':16}error at depth {self.trail_depth:,} (the trail's; "
                             f"pan -i/-I kept the shortest of {self.errors})")
            lines.append(f"{'replay:':16}{self.replay_command}")
        lines += [f"{'trail note:':16}{text}" for text in self.trail_notes]
        lines += [f"{'lasso:':16}{_lasso_line(lasso)}" for lasso in self.lassos]
        lines += self._unreached_lines()
        if not self.counts_exact:
            lines.append("note: pan printed some counts rounded to 8 significant digits")
        ours = {strategies.warning(self.strategy) if self.strategy in strategies.choices() else None,
                self.por_note}
        lines += [f"{'warning:':16}{warning}" if warning in ours
                  else f"{'pan warning:':16}{_without_prefix(warning)}" for warning in self.warnings]
        if self.disagreement is not None:
            lines.append(f"{'VERDICTS DIFFER:':16}{self.disagreement}")
        lines += self._cross_check_lines()
        lines += self._symmetry_check_lines()
        return "\n".join(lines)

    def _symmetry_check_lines(self) -> list[str]:
        """--check-symmetry: what the comparison of the two breadth-first searches found."""
        if self.symmetry_check is None:
            return [f"{'symmetry check:':16}{self.symmetry_check_note}"] if self.symmetry_check_note else []
        check = self.symmetry_check
        lines = [f"{'symmetry check:':16}{check['summary']}"]
        difference = check["difference"]
        if difference is not None:
            if difference["trail"]:
                lines.append(f"{'':16}trail of {check['difference']['trail_of']} pan to such a state: "
                             f"{difference['trail']}")
                lines.append(f"{'':16}replay: {difference['replay']}")
            if difference["state"]:
                lines.append(f"{'':16}the state:")
                lines += [f"{'':18}{line.strip()}" for line in difference["state"].splitlines()]
        return lines

    def _cross_check_lines(self) -> list[str]:
        """--cross-check: the other run's verdict beside this one's, and whether they agree."""
        other = self.cross_check
        if other is None:
            return []
        first = f" (first: {error_kind(other.first_error)})" if other.first_error else ""
        lines = [f"{'cross-check:':16}{_por_words(other.partial_order_reduction)}: "
                 f"{self._count(other.states_stored)} states, {self._count(other.transitions)} "
                 f"transitions, {other.errors} errors{first}, {other.elapsed_s:.2f} s search"
                 # (stopping at the first error is what a run that found one is expected to do)
                 + ("" if other.complete or other.errors else f" (INCOMPLETE: {other.incomplete_reason})")]
        if other.partial_order_reduction == self.partial_order_reduction:
            lines.append(f"{'':16}note: pan searched {_por_words(other.partial_order_reduction)} "
                         "both times (the model or its flags leave pan no choice)")
        if self.por_disagreement is not None:
            lines.append(f"POR VERDICTS DIFFER: {self.por_disagreement}")
        elif self.por_missed_by_spin is not None:
            lines.append(f"{'cross-check:':16}verdicts differ because of SPIN: {self.por_missed_by_spin}")
        elif self.por_first_errors_differ is not None:
            lines.append(f"{'cross-check:':16}verdicts agree, but {self.por_first_errors_differ}")
        else:
            lines.append(f"{'cross-check:':16}verdicts agree, with and without partial order reduction")
        return lines

    def _strategy_line(self) -> str:
        """``segmented (exact; group order 24), chosen by auto: ...``."""
        label = f"{self.exactness}; " if self.exactness else ""
        line = f"{self.strategy} ({label}group order {self.group_order})"
        if self.strategy_reason:
            line += (", chosen by auto: " if self.requested_strategy == strategies.AUTO else ": ") \
                + self.strategy_reason
        return line

    def _symmetry_lines(self, most: int = 3, width: int = 160) -> list[str]:
        """The reasons the group shrank, a line each and at most ``most`` of them."""
        shown = [note if len(note) <= width else note[:width - 3] + "..."
                 for note in self.symmetry_notes[:most]]
        if len(self.symmetry_notes) > most:
            shown.append(f"... and {len(self.symmetry_notes) - most} more "
                         f"(topspin-py detect --explain {self.model})")
        return [f"{'symmetry:' if i == 0 else '':16}{line}" for i, line in enumerate(shown)]

    def search_mode(self) -> str:
        """How pan searched, in words: ``depth-first, partial order reduction, full statespace``."""
        words = ["breadth-first" if self.breadth_first else "depth-first",
                 "partial order reduction" if self.partial_order_reduction
                 else "no partial order reduction"]
        if self.storage == "Bit statespace":
            factor = "" if self.hash_factor is None else f"hash factor {self.hash_factor:.4g}"
            functions = "" if self.bits_per_state is None else f"-k{self.bits_per_state}"
            details = ", ".join(part for part in (factor, functions) if part)
            words.append(f"bitstate ({details})" if details else "bitstate")
        else:
            words.append(self.storage.lower())
        words += [_lower_words(mode) for mode in self.search_modes
                  if mode not in ("Breadth-First Search", "Partial Order Reduction")]
        return ", ".join(words)

    def _unreached_lines(self) -> list[str]:
        """pan's "unreached in ..." statements, one per line, at most UNREACHED_SHOWN of them
        (``--json`` has all).  pan lists them only after a complete search."""
        if not self.unreached:
            return []
        statements = [f"{_unreached_owner(block)}: {statement}"
                      for block in self.unreached for statement in block.statements]
        if not statements:
            return [f"{'unreached:':16}none (every statement was executed)"]
        shown = statements[:UNREACHED_SHOWN]
        if len(statements) > len(shown):
            shown.append(f"... and {len(statements) - len(shown)} more (--json lists them all)")
        return [f"{'unreached:' if i == 0 else '':16}{line}" for i, line in enumerate(shown)]

    @staticmethod
    def _count(value: int | None) -> str:
        if value is None:
            return "-"
        # %9.8g prints every integer below 10^8 exactly, larger ones rounded.
        return f"{value:,}" if value < 10**8 else f"about {value:.8g}"


UNREACHED_SHOWN = 10   # statements in the summary; the JSON has all


def _lasso_line(lasso: dict) -> str:
    """What became of a trail's cycle (pan/lasso.py's Lasso.describe, from its JSON)."""
    return Lasso(**lasso).describe()


def _unreached_owner(block: Unreached) -> str:
    """``proctype P``, ``init``, ``claim never_0``: as pan's "unreached in" line names it."""
    return "init" if block.kind == "init" else f"{block.kind} {block.name}"


def _lower_words(text: str) -> str:
    """pan's capitalised words in lower case, its flags as they are: ``Graph Encoding (-DMA=23)``
    -> ``graph encoding (-DMA=23)``."""
    return " ".join(word if word[0] in "(-" or "=" in word or "." in word else word.lower()
                    for word in text.split())


def _without_prefix(warning: str) -> str:
    """pan's warning without the words the row's label already says (and what to do about a
    low hash factor, which pan leaves to the user)."""
    for prefix in ("pan: ", "warning: ", "error: "):
        warning = warning.removeprefix(prefix)
    if warning.startswith("hash factor:"):
        warning += ": the bit array is small for this many states, some may have been missed; " \
                   "a larger --pan -wN (2^N bits) helps"
    return warning


def replay_command(model: str, defines: list[str], trail_number: int | None) -> str:
    """The spin command that replays a trail: ``spin -t -p model`` (``-tN`` for model.pmlN.trail)."""
    trail_flag = "-t" if trail_number is None else f"-t{trail_number}"
    return shlex.join(["spin", *(f"-D{define}" for define in defines), trail_flag, "-p", model])
