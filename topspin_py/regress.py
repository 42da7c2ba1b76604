"""State-count regression: guard the counts and verdicts of a set of verification runs.

A baseline is a JSON file::

    {"topspin-py baseline": 1,
     "entries": [{"model": "models/mutex.pml", "strategy": "none", "defines": ["NOREDUCE"],
                  "pan_args": [], "states_stored": 113, "transitions": 402, "errors": 0}, ...]}

``model`` is relative to the baseline file, so a baseline moves with the models it guards.
An entry is identified by (model, strategy, defines, pan_args); ``check`` recomputes every entry
with ``verify`` and lists what changed; ``update`` adds or refreshes entries.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from topspin_py.errors import UsageError
from topspin_py.verify import VerifyOptions, verify

FORMAT_KEY = "topspin-py baseline"
FORMAT_VERSION = 1
GUARDED = ("states_stored", "transitions", "errors")  # compared on every check
RECORDED = GUARDED + ("states_matched", "depth", "complete", "group_order")


@dataclass(frozen=True)
class RunKey:
    """What identifies an entry: the model and how it is verified."""

    model: str  # relative to the baseline file, with forward slashes
    strategy: str
    defines: tuple[str, ...]
    pan_args: tuple[str, ...]

    def label(self) -> str:
        parts = [self.model, f"--strategy {self.strategy}"]
        parts += [f"-D{d}" for d in self.defines] + [f"--pan {a}" for a in self.pan_args]
        return " ".join(parts)


@dataclass
class Change:
    key: RunKey
    field: str
    expected: object
    actual: object


def load(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"baseline not found: {path}",
                         hint="create it with `topspin-py regress BASELINE --update --model MODEL`") from None
    except json.JSONDecodeError as err:
        raise UsageError(f"{path}:{err.lineno}:{err.colno}: baseline is not valid JSON: {err.msg}") from None
    if not isinstance(data, dict) or data.get(FORMAT_KEY) != FORMAT_VERSION \
            or not isinstance(data.get("entries"), list):
        raise UsageError(f"{path} is not a topspin-py baseline (version {FORMAT_VERSION})")
    return data["entries"]


def save(path: Path, entries: list[dict]) -> None:
    entries = sorted(entries, key=lambda e: json.dumps(_key_fields(e), sort_keys=True))
    text = json.dumps({FORMAT_KEY: FORMAT_VERSION, "entries": entries}, indent=2) + "\n"
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)  # a failed write never leaves a half-written baseline


def key_of(entry: dict) -> RunKey:
    try:
        return RunKey(entry["model"], entry.get("strategy", "none"), tuple(entry.get("defines", [])),
                      tuple(entry.get("pan_args", [])))
    except (KeyError, TypeError):
        raise UsageError(f"baseline entry without a model: {entry!r}") from None


def _key_fields(entry: dict) -> dict:
    key = key_of(entry)
    return {"model": key.model, "strategy": key.strategy, "defines": list(key.defines),
            "pan_args": list(key.pan_args)}


def run_entry(baseline: Path, key: RunKey, on_note=None) -> dict:
    """Verify one entry's model the way the entry says; the recorded fields of the result."""
    model = baseline.parent / key.model
    options = VerifyOptions(strategy=key.strategy, defines=key.defines, pan_args=key.pan_args,
                            save_trails=False, on_note=on_note)
    result = verify(model, options).to_dict()
    return {name: result.get(name) for name in RECORDED}


def check(baseline: Path, on_entry=None) -> list[Change]:
    """Recompute every entry; the guarded values that differ from the baseline."""
    changes = []
    for entry in load(baseline):
        key = key_of(entry)
        actual = run_entry(baseline, key)
        for name in GUARDED + tuple(n for n in RECORDED if n not in GUARDED and n in entry):
            if name in entry and not _same(entry[name], actual[name]):
                changes.append(Change(key, name, entry[name], actual[name]))
        if on_entry is not None:
            on_entry(key, actual)
    return changes


def update(baseline: Path, key: RunKey | None = None, on_entry=None) -> list[dict]:
    """Add or refresh the entry ``key`` (creating the baseline if needed), or with no key
    refresh every entry."""
    entries = load(baseline) if baseline.exists() else []
    if key is None:
        keys = [key_of(e) for e in entries]
        if not keys:
            raise UsageError(f"{baseline} has no entries to refresh",
                             hint="add one with --model MODEL")
    else:
        keys = [key]
    by_key = {key_of(e): e for e in entries}
    for k in keys:
        values = run_entry(baseline, k)
        by_key[k] = {**_key_fields({"model": k.model, "strategy": k.strategy,
                                    "defines": list(k.defines), "pan_args": list(k.pan_args)}), **values}
        if on_entry is not None:
            on_entry(k, values)
    entries = list(by_key.values())
    save(baseline, entries)
    return entries


def relative_model(baseline: Path, model: Path) -> str:
    """The model's path relative to the baseline's folder, as stored in entries."""
    return Path(os.path.relpath(model.resolve(), baseline.resolve().parent)).as_posix()


def _same(expected, actual) -> bool:
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        # pan prints counts with %9.8g: beyond 8 digits, compare at pan's precision.
        return float(f"{float(expected):.8g}") == float(f"{float(actual):.8g}")
    return expected == actual


def describe(changes: list[Change]) -> str:
    lines = []
    for change in changes:
        lines.append(f"{change.key.label()}: {change.field} was {change.expected}, now {change.actual}")
    return "\n".join(lines)
