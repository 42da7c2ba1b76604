"""Symmetry in the models people write: `detect` on every BEEM model and SPIN example of the
shared corpus (../shared/corpus), and the reduction where it finds a group.

Models: every ``beem/*.pm``, ``spin-examples/*.pml`` and the ``spin-all/`` models that
MANIFEST.tsv lists (a model ``spin -a`` rejects is listed with spin's complaint, not run).

For each model, in a child process with a time budget (bench/runner.py's ``in_child``): our
front end and spin's check as `topspin-py detect` does them, then ``detect``; the group's order,
its order acting on the states pan stores (``acting_on_states``: what verify reduces with),
its structure, and when it is trivial the one-line reason detection gives (or, when it gives
none, what the model shows: one process per proctype, or no permutation of the processes that
keeps the static channel diagram).  "Non-trivial" below means the group acting on states has
order > 1.

For the models with a non-trivial group (by default only the lowest-numbered such instance of
each BEEM family, ``--all-instances`` for all of them): plain SPIN and `verify --strategy
auto`, both ``-DSAFETY -DNOREDUCE -DNOCLAIM -DMEMLIM`` and pan ``-E -A`` (the corpus README's
baseline flags: no error cuts the search short), each with a wall-clock budget.  A run over a
cap is reported as "> cap", never dropped.

The rows go to bench/results/corpus_symmetry.json and the report to corpus_symmetry.md.  When
bench/results/corpus_symmetry_before.json exists (the rows of an earlier commit, written by
``--save-before``), the report shows its columns next to this run's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import median
from typing import Callable

from bench import runner

REPO = Path(__file__).resolve().parent.parent
# Beside the checkout, as the tests find it (TOPSPIN_CORPUS overrides it there and here).
CORPUS = Path(os.environ.get("TOPSPIN_CORPUS", REPO.parent / "shared" / "corpus"))
RESULTS = REPO / "bench" / "results"
NOW_JSON, BEFORE_JSON, REPORT = "corpus_symmetry.json", "corpus_symmetry_before.json", "corpus_symmetry.md"

DETECT_BUDGET_S = 60.0     # parse, spin -a and detect of one model
VERIFY_BUDGET_S = 60.0     # one verification run: spin, gcc and pan
MEMLIM_MB = 1024           # pan's own memory cap (-DMEMLIM): it stops there and says so
DEFINES = ("SAFETY", "NOREDUCE", "NOCLAIM", f"MEMLIM={MEMLIM_MB}")
PAN_ARGS = ("-E", "-A", "-m1000000", "-w22")   # verify reruns deeper if the search needs it
PLAIN, REDUCED = "none", "auto"


@dataclass
class Run:
    """One verification run: the states stored, or why there is no count."""

    status: str = "not run"            # ok | capped | failed | not run
    states: int | None = None
    transitions: int | None = None
    search_s: float | None = None
    wall_s: float | None = None
    complete: bool = False
    group_order: int | None = None     # the group verify used (1: none)
    strategy: str | None = None        # the strategy that ran (auto's pick)
    note: str = ""


@dataclass
class Row:
    path: str                          # relative to the corpus folder
    family: str                        # BEEM: the name before the instance number; else the folder
    status: str = "ok"                 # ok | rejected (by spin -a, per MANIFEST.tsv) | error | timeout
    order: int | None = None           # the detected group's order
    acting_order: int | None = None    # its order acting on the states pan stores
    structure: str = ""
    largest: bool = True
    reason: str = ""                   # one line: why the group is trivial (or smaller), or the error
    notes: list[str] = field(default_factory=list)   # every reason detection gave
    detect_s: float | None = None      # parse + detect (spin's check not counted)
    plain: Run | None = None
    reduced: Run | None = None

    @property
    def nontrivial(self) -> bool:
        return self.status == "ok" and (self.acting_order or 1) > 1

    @property
    def beem(self) -> bool:
        return self.path.startswith("beem/")

    @property
    def instance(self) -> int:
        """A BEEM model's instance number (anderson.3.pm: 3); 0 elsewhere."""
        match = re.search(r"\.(\d+)\.pm$", self.path)
        return int(match.group(1)) if match else 0

    def factor(self) -> float | None:
        if self.plain and self.reduced and self.plain.complete and self.reduced.complete \
                and self.plain.states and self.reduced.states:
            return self.plain.states / self.reduced.states
        return None


# ---------------------------------------------------------------------------------- the models


def _family(path: str) -> str:
    folder, _, name = path.partition("/")
    if folder == "beem":
        return name.split(".", 1)[0]
    if folder == "spin-all":
        return "spin-all/" + path.split("/")[2] if path.count("/") > 2 else "spin-all/Examples"
    return folder


def models(corpus: Path | None = None) -> list[tuple[str, str | None]]:
    """(path relative to the corpus, spin's complaint or None) for every model of the table."""
    corpus = corpus or CORPUS
    verdicts: dict[str, str] = {}
    for line in (corpus / "MANIFEST.tsv").read_text().splitlines()[1:]:
        path, _source, spin_a = line.split("\t")
        verdicts[path] = spin_a
    paths = sorted(p.relative_to(corpus).as_posix() for p in (corpus / "beem").glob("*.pm"))
    paths += sorted(p.relative_to(corpus).as_posix() for p in (corpus / "spin-examples").glob("*.pml"))
    paths += sorted(p for p in verdicts if p.startswith("spin-all/"))
    result = []
    for path in paths:
        verdict = verdicts.get(path, "ok")
        result.append((path, None if verdict == "ok" else verdict.removeprefix("rejected: ")))
    return result


# ---------------------------------------------------------------------------------- detection


def _detect(path: str, corpus: str) -> dict:
    """In the child: `topspin-py detect`'s steps on one model, and what the row needs."""
    from topspin_py.pan import loading
    from topspin_py.symmetry.detect import acting_on_states, detect, group_report

    model_path = Path(corpus) / path
    started = time.perf_counter()
    model = loading.load_model_checked(model_path, ())
    parsed = time.perf_counter() - started
    model = loading.check_with_spin(model_path, [], model) or model   # refuse what spin refuses
    started = time.perf_counter()
    group = detect(model)
    detect_s = parsed + time.perf_counter() - started
    report = group_report(group)
    acting = acting_on_states(group)
    notes = [*acting.reasons]
    for key, entries in (("generator", report["rejected"]), ("permutation", report["left_out"])):
        for entry in entries:
            where = f"{entry['where']}: " if entry["where"] else ""
            notes.append(f"{where}{entry[key]} is not a symmetry: {entry['reason']}")
    if not notes and acting.order == 1:
        per_proctype = Counter(p.proctype for p in model.processes)
        if all(count == 1 for count in per_proctype.values()):
            notes.append("no two processes of one proctype: nothing to permute")
        else:
            notes.append("no permutation of the processes keeps the static channel diagram")
    return {"order": group.order, "acting_order": acting.order, "structure": report["structure"],
            "largest": group.largest, "notes": notes, "detect_s": round(detect_s, 3)}


def _one_line(text: str, corpus: Path) -> str:
    text = " ".join(text.split())
    return text.replace(f"{corpus}/", "")


def detect_row(path: str, rejected: str | None, corpus: Path | None = None) -> Row:
    corpus = corpus or CORPUS
    row = Row(path, _family(path))
    if rejected is not None:
        row.status, row.reason = "rejected", f"spin -a rejects it: {rejected}"
        return row
    kind, payload, wall = runner.in_child(_detect, (path, str(corpus)), DETECT_BUDGET_S)
    if kind != "ok" or not isinstance(payload, dict):
        row.status = "timeout" if kind == "timeout" else "error"
        row.reason = _one_line(str(payload), corpus)
        row.detect_s = round(wall, 3) if kind == "timeout" else None
        return row
    row.order, row.acting_order = payload["order"], payload["acting_order"]
    row.structure, row.largest, row.detect_s = payload["structure"], payload["largest"], payload["detect_s"]
    row.notes = [_one_line(n, corpus) for n in payload["notes"]]
    row.reason = row.notes[0] if row.notes else ""
    return row


# ---------------------------------------------------------------------------------- reduction


def _run(path: Path, strategy: str, budget_s: float) -> Run:
    outcome = runner.run(None, strategy, PAN_ARGS, budget_s, model=path, defines=DEFINES)
    run = Run(wall_s=round(outcome.wall_s, 2))
    if outcome.result is None:
        failure = outcome.failure or ""
        if "over the time budget" in failure:
            run.status, run.note = "capped", f"> {budget_s:g} s"
        elif "out of memory" in failure:
            run.status, run.note = "capped", f"> {MEMLIM_MB} MB"
        else:
            run.status, run.note = "failed", failure
        return run
    result = outcome.result
    run.states, run.transitions = result.states_stored, result.transitions
    run.search_s, run.complete = result.elapsed_s, result.complete
    run.group_order, run.strategy = result.group_order, result.strategy
    run.status = "ok" if result.complete else "capped"
    if not result.complete:
        run.note = result.incomplete_reason or "incomplete"
    return run


def to_measure(rows: list[Row], all_instances: bool) -> list[Row]:
    """The rows whose reduction is measured: every non-trivial one, or (by default) of each
    BEEM family only the lowest-numbered instance with a non-trivial group."""
    chosen, seen = [], set()
    for row in sorted((r for r in rows if r.nontrivial), key=lambda r: (r.family, r.instance)):
        if row.beem and not all_instances:
            if row.family in seen:
                continue
            seen.add(row.family)
        chosen.append(row)
    return chosen


# ---------------------------------------------------------------------------------- the run


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run(corpus: Path | None = None, only: Callable[[str], bool] | None = None,
        all_instances: bool = False, save_before: bool = False, verify_budget_s: float = VERIFY_BUDGET_S,
        log: Callable[[str], None] = lambda line: print(line, flush=True)) -> list[Path]:
    """Detect on every model (``only``: those whose path it accepts), measure the reductions,
    write the JSON and the report; with ``save_before`` also keep the rows as the "before"."""
    corpus = corpus or CORPUS
    if not (corpus / "MANIFEST.tsv").is_file():
        log(f"corpus: {corpus} not found, nothing to do")
        return []
    started = time.monotonic()
    rows = []
    for path, rejected in models(corpus):
        if only is not None and not only(path):
            continue
        row = detect_row(path, rejected, corpus)
        rows.append(row)
        shown = row.reason if row.acting_order in (None, 1) else row.structure
        log(f"detect {path:58s} |G| {row.acting_order or '-'!s:>8s}  {row.detect_s or 0:6.2f} s  {shown[:90]}")
    measured = to_measure(rows, all_instances)
    for row in measured:
        row.plain = _run(corpus / row.path, PLAIN, verify_budget_s)
        row.reduced = _run(corpus / row.path, REDUCED, verify_budget_s)
        log(f"verify {row.path:58s} plain {_cell(row.plain):>16s}  reduced {_cell(row.reduced):>16s}  "
            f"factor {_factor(row)}")
    data = {"commit": _commit(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "elapsed_s": round(time.monotonic() - started, 1), "all_instances": all_instances,
            "settings": {"defines": list(DEFINES), "pan_args": list(PAN_ARGS),
                         "detect_budget_s": DETECT_BUDGET_S, "verify_budget_s": verify_budget_s},
            "rows": [asdict(r) for r in rows]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    written = [RESULTS / NOW_JSON]
    written[0].write_text(json.dumps(data, indent=1) + "\n")
    if save_before:
        written.append(RESULTS / BEFORE_JSON)
        written[-1].write_text(json.dumps(data, indent=1) + "\n")
    written.append(report(data, _load(RESULTS / BEFORE_JSON)))
    return written


def rewrite() -> Path:
    """The report again from the JSON of the last run (and the "before" one), without runs."""
    data = _load(RESULTS / NOW_JSON)
    if data is None:
        raise FileNotFoundError(f"{RESULTS / NOW_JSON}: no corpus run to report (python -m bench corpus)")
    return report(data, _load(RESULTS / BEFORE_JSON))


def _load(path: Path) -> dict | None:
    return json.loads(path.read_text()) if path.is_file() else None


def rows_of(data: dict) -> list[Row]:
    rows = []
    for raw in data["rows"]:
        raw = dict(raw)
        plain, reduced = raw.pop("plain"), raw.pop("reduced")
        row = Row(**raw)
        row.plain = Run(**plain) if plain else None
        row.reduced = Run(**reduced) if reduced else None
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------- the report


def _cell(run: Run | None) -> str:
    if run is None or run.status == "not run":
        return "-"
    if run.status == "failed":
        return "failed"
    if run.status == "capped":
        return f"> {run.states:,} states" if run.states else run.note
    return f"{run.states:,}"


def _factor(row: Row) -> str:
    value = row.factor()
    if value is not None:
        return f"{value:.1f}x"
    if row.plain and row.reduced and row.plain.status == "capped" and row.reduced.complete:
        return "> cap"
    return "-"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _count(rows: list[Row]) -> str:
    return f"{sum(r.nontrivial for r in rows)} / {sum(r.status == 'ok' for r in rows)}"


def _factors(rows: list[Row]) -> str:
    values = [f for f in (r.factor() for r in rows) if f is not None]
    capped = sum(_factor(r) == "> cap" for r in rows)
    if not values:
        return f"{capped} over the cap" if capped else "-"
    text = f"{len(values)} measured, {min(values):.1f}x to {max(values):.1f}x (median {median(values):.1f}x)"
    return text + (f"; {capped} more with plain SPIN over the cap" if capped else "")


def report(data: dict, before: dict | None = None) -> Path:
    rows = rows_of(data)
    then = {r.path: r for r in rows_of(before)} if before else {}
    both = bool(then) and before is not None and before.get("commit") != data.get("commit")
    tag_now = f"now ({data['commit']})"
    tag_then = f"before ({before['commit']})" if before else ""

    def group(predicate) -> tuple[list[Row], list[Row]]:
        mine = [r for r in rows if predicate(r)]
        return mine, [then[r.path] for r in mine if r.path in then]

    settings = data["settings"]
    lines = [
        "# Symmetry in the corpus: BEEM models and SPIN's examples",
        "",
        f"Generated by `make bench` (bench/corpus_symmetry.py; only this part: `python -m bench corpus`) "
        f"on {data['date']}, commit {data['commit']}, in {data['elapsed_s']:.0f} s.",
        "Models: every `beem/*.pm`, `spin-examples/*.pml` and the `spin-all/` models of "
        "../shared/corpus/MANIFEST.tsv; those `spin -a` rejects are counted apart. The four "
        "`spin-examples/` models (the corpus README's list of SPIN examples with a symmetry) are "
        "copies of `spin-all/` ones, and are counted in both parts.",
        "\"Non-trivial\": the group `detect` finds, acting on the states pan stores (what "
        "`verify` reduces with), has order > 1; shown as non-trivial / models detection ran on.",
        f"Detection: parse + `detect` in a child process, {settings['detect_budget_s']:g} s budget "
        "(spin's own check is not timed).",
        f"Reduction: states stored by plain SPIN and by `verify --strategy auto`, both "
        f"`{' '.join('-D' + d for d in settings['defines'])}`, pan `{' '.join(settings['pan_args'])}`, "
        f"{settings['verify_budget_s']:g} s wall-clock budget each; a run over the time or memory cap "
        "is shown as \"> cap\". "
        + ("Every model with a non-trivial group is measured." if data["all_instances"] else
           "Of each BEEM family only the lowest-numbered instance with a non-trivial group is "
           "measured (`python -m bench corpus --all-instances` for every one); every non-BEEM "
           "model with a non-trivial group is."),
    ]
    if data.get("note"):
        lines.append(f"Note: {data['note']}.")
    if both and before is not None:
        lines.append(f"Before: bench/results/{BEFORE_JSON} ({tag_then}, {before['date']}"
                     + (f"; {before['note']}" if before.get("note") else "") + ").")
    lines += ["", "## Summary", ""]
    head = ["part", "models", "rejected by spin -a"]
    head += ([f"non-trivial, {tag_then}"] if both else []) + [f"non-trivial, {tag_now}" if both else "non-trivial"]
    head += ([f"reduction factor, {tag_then}"] if both else []) + [
        f"reduction factor, {tag_now}" if both else "reduction factor"]
    lines += ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    parts = [("BEEM (beem/)", lambda r: r.beem),
             ("SPIN examples (spin-examples/)", lambda r: r.path.startswith("spin-examples/")),
             ("SPIN distribution (spin-all/)", lambda r: r.path.startswith("spin-all/")),
             ("**all**", lambda r: True)]
    for name, predicate in parts:
        mine, old = group(predicate)
        cells = [name, str(len(mine)), str(sum(r.status == "rejected" for r in mine))]
        cells += ([_count(old)] if both else []) + [_count(mine)]
        cells += ([_factors(old)] if both else []) + [_factors(mine)]
        lines.append("| " + " | ".join(cells) + " |")

    lines += ["", "## By family", "",
              "BEEM by family (anderson.1..8 is one row); the SPIN models by folder. |G|: the orders "
              "found (acting on states), over the family's instances. Reduction: the measured "
              "instance(s), plain SPIN -> reduced = factor. Reason: the most common one-line "
              "reason among the family's trivial instances (how many give it / the family's "
              "models), as one of them gives it.", ""]
    head = ["family", "models"] + ([f"non-trivial, {tag_then}"] if both else []) + \
        [f"non-trivial, {tag_now}" if both else "non-trivial", "\\|G\\|", "reduction", "reason (trivial ones)"]
    lines += ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for family in sorted({r.family for r in rows}, key=lambda f: (f.startswith("spin"), f)):
        mine, old = group(lambda r, f=family: r.family == f)
        orders = sorted({r.acting_order for r in mine if r.nontrivial and r.acting_order})
        measured = [f"{r.path.rsplit('/', 1)[-1]}: {_cell(r.plain)} -> {_cell(r.reduced)} = {_factor(r)}"
                    for r in mine if r.plain is not None]
        trivial = [r for r in mine if not r.nontrivial and r.reason]
        kinds = Counter(_reason_kind(r.reason) for r in trivial)
        reason = ""
        if kinds:
            kind, count = kinds.most_common(1)[0]
            text = next(r.reason for r in trivial if _reason_kind(r.reason) == kind)   # as given
            reason = f"({count}/{len(mine)}) {text}" if len(mine) > 1 else text
        cells = [family, str(len(mine))] + ([_count(old)] if both else []) + [
            _count(mine), ", ".join(f"{o:,}" for o in orders) or "-", "; ".join(measured) or "-",
            _md(_shorten(reason, 160))]
        lines.append("| " + " | ".join(cells) + " |")

    lines += ["", "## Why the group is trivial", "",
              "The one-line reasons of the models detection ran on whose group is trivial, grouped "
              "(file:line, quoted names and numbers aside), most frequent first, each as one model gives it.",
              ""]
    head = ["models"] + ([tag_then] if both else []) + ["reason (one example)"]
    lines += ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    trivial_now = [r for r in rows if r.status == "ok" and not r.nontrivial]
    trivial_then = [r for r in then.values() if r.status == "ok" and not r.nontrivial]
    kinds = Counter(_reason_kind(r.reason) for r in trivial_now)
    kinds_then = Counter(_reason_kind(r.reason) for r in trivial_then)
    for kind, count in kinds.most_common():
        example = next(r for r in trivial_now if _reason_kind(r.reason) == kind)
        cells = [str(count)] + ([str(kinds_then.get(kind, 0))] if both else []) + [
            _md(_shorten(example.reason or "(no reason given)", 240))]
        lines.append("| " + " | ".join(cells) + " |")

    lines += ["", "## Every model", ""]
    head = ["model"] + (["\\|G\\| before"] if both else []) + \
        ["\\|G\\| (acting on states)", "structure", "detect (s)", "plain SPIN", "reduced (auto)", "factor",
         "reason / note"]
    if both:
        head.insert(head.index("factor"), "factor before")
    lines += ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for row in rows:
        earlier = then.get(row.path)
        order = "-" if row.order is None or row.acting_order is None else f"{row.acting_order:,}" + (
            "" if row.order == row.acting_order else f" (found {row.order:,})")
        cells = [row.path] + ([_order(earlier)] if both else []) + [
            order if row.status == "ok" else row.status, _md(row.structure) or "-",
            f"{row.detect_s:.2f}" if row.detect_s is not None else "-",
            _cell(row.plain), _cell(row.reduced)] + (
            [_factor(earlier) if earlier and earlier.plain else "-"] if both else []) + [
            _factor(row) if row.plain else "-",
            _md(_shorten(row.reason, 200))]
        lines.append("| " + " | ".join(cells) + " |")
    out = RESULTS / REPORT
    out.write_text("\n".join(lines) + "\n")
    return out


def _order(row: Row | None) -> str:
    if row is None:
        return "-"
    return f"{row.acting_order:,}" if row.status == "ok" and row.acting_order else row.status


def _reason_kind(reason: str) -> str:
    """A reason without file:line:, quoted names (a list of them as one) and numbers, so a
    family's instances group: 'P_0', 'P_1' and 'P_0', 'P_1', 'P_2' are the same reason."""
    reason = re.sub(r"\S+:\d+(:\d+)?: ", "", reason)
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'(, '[^']*')*", "'…'", reason))


def _shorten(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"
