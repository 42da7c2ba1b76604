"""State-count regression: guard the counts and verdicts of a set of verification runs.

A baseline is a JSON file::

    {"topspin-py baseline": 1,
     "entries": [{"model": "models/mutex.pml", "strategy": "auto", "defines": ["NOREDUCE"],
                  "pan_args": [], "states_stored": 113, "transitions": 402, "errors": 0}, ...]}

``model`` is relative to the baseline file, so a baseline moves with the models it guards.
An entry is identified by (model, strategy, defines, pan_args); the strategy is ``auto`` unless
told, as for ``verify``, so a baseline guards the reduced counts users get.  ``check``
recomputes every entry with ``verify`` and lists what changed; ``update`` adds or refreshes
entries.  An entry that cannot be run (its model is gone, spin rejects it, it runs past the
per-entry time limit) is a ``Problem``: it is reported and the other entries are still run.

The time limit of an entry is its own ``"timeout"`` (seconds, written by hand for a model
known to be slow), else the one given to ``check``/``update`` (``regress --timeout``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from topspin_py.errors import TopspinError, UsageError
from topspin_py.verify import VerifyOptions, verify

DEFAULT_STRATEGY = "auto"   # verify's default
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


@dataclass
class Problem:
    """An entry that could not be run: what went wrong, in a line."""

    key: RunKey
    message: str


@dataclass
class Outcome:
    """What a check or an update found."""

    changes: list[Change]
    problems: list[Problem]
    entries: list[dict]        # the baseline's entries (after an update: as written)


class EntryTimedOut(BaseException):
    """The per-entry time limit expired.  A BaseException, as KeyboardInterrupt: no
    ``except Exception`` on the way may swallow it, and the ``finally`` clauses and context
    managers it passes through stop pan, spin or gcc and remove the temporary directory."""


def load(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"baseline not found: {path}",
                         hint="create it with `topspin-py regress BASELINE --update --model MODEL`") from None
    except json.JSONDecodeError as err:
        raise UsageError(f"{path}:{err.lineno}:{err.colno}: baseline is not valid JSON: {err.msg}") from None
    except UnicodeDecodeError as err:
        raise UsageError(f"{path}: baseline is not text (byte 0x{err.object[err.start]:02X} at offset "
                         f"{err.start})", hint="give the JSON file that regress --update wrote") from None
    except OSError as err:
        raise UsageError(f"cannot read baseline '{path}': {err.strerror}") from None
    if not isinstance(data, dict) or data.get(FORMAT_KEY) != FORMAT_VERSION \
            or not isinstance(data.get("entries"), list):
        raise UsageError(f"{path} is not a topspin-py baseline (version {FORMAT_VERSION})")
    return data["entries"]


def save(path: Path, entries: list[dict]) -> None:
    entries = sorted(entries, key=lambda e: json.dumps(_key_fields(e), sort_keys=True))
    text = json.dumps({FORMAT_KEY: FORMAT_VERSION, "entries": entries}, indent=2) + "\n"
    temporary = path.with_name(path.name + ".tmp")
    try:
        temporary.write_text(text)
        os.replace(temporary, path)  # a failed write never leaves a half-written baseline
    except OSError as err:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise _cannot_write(path, err.strerror or str(err)) from None


def check_writable(path: Path) -> None:
    """Refuse, before any entry is run, a baseline that could not be written afterwards: a
    read-only file, or a folder that is missing, not a folder, or read-only.  (Root may
    write anyway; ``save`` still reports a write that fails.)"""
    if path.exists() and not os.access(path, os.W_OK):
        raise _cannot_write(path, "the file is read-only")
    folder = path.parent
    if not folder.is_dir():
        missing = any(not parent.exists() and parent.parent.is_dir() for parent in (folder, *folder.parents))
        raise _cannot_write(path, f"its folder {folder} does not exist" if missing
                            else f"{folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _cannot_write(path, f"its folder {folder} is read-only (the baseline is "
                                  "replaced by a new file written beside it)")


def _cannot_write(path: Path, why: str) -> UsageError:
    return UsageError(f"cannot write the baseline {path}: {why}",
                      hint="give a baseline in a folder you can write to, or check the counts without --update")


def key_of(entry: dict) -> RunKey:
    try:
        return RunKey(entry["model"], entry.get("strategy", DEFAULT_STRATEGY), tuple(entry.get("defines", [])),
                      tuple(entry.get("pan_args", [])))
    except (KeyError, TypeError):
        raise UsageError(f"baseline entry without a model: {entry!r}") from None


def _key_fields(entry: dict) -> dict:
    key = key_of(entry)
    return {"model": key.model, "strategy": key.strategy, "defines": list(key.defines),
            "pan_args": list(key.pan_args)}


def run_entry(baseline: Path, key: RunKey, on_note=None, use_cache: bool = True) -> dict:
    """Verify one entry's model the way the entry says; the recorded fields of the result."""
    model = baseline.parent / key.model
    if not model.is_file():
        raise UsageError(f"model not found: {model}")
    options = VerifyOptions(strategy=key.strategy, defines=key.defines, pan_args=key.pan_args,
                            save_trails=False, on_note=on_note, use_cache=use_cache)
    result = verify(model, options).to_dict()
    return {name: result.get(name) for name in RECORDED}


def _run_or_problem(baseline: Path, key: RunKey, time_limit: float | None, use_cache: bool) -> dict | Problem:
    """The entry's recorded fields, or the Problem that kept it from running."""
    try:
        with _time_limit(time_limit):
            return run_entry(baseline, key, use_cache=use_cache)
    except EntryTimedOut:
        return Problem(key, f"timed out: still running after the time limit of {time_limit:g} s")
    except TopspinError as err:
        return Problem(key, err.message if err.pos is None else f"{err.pos}: {err.message}")


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Raise EntryTimedOut in the block once ``seconds`` have passed (SIGALRM; main thread)."""
    if not seconds:
        yield
        return

    def expire(signum, frame) -> None:
        raise EntryTimedOut()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _values_or_report(result: dict | Problem, problems: list[Problem], on_problem) -> dict | None:
    """A run's values; or, for a Problem, None once it has joined ``problems`` and been
    reported."""
    if not isinstance(result, Problem):
        return result
    problems.append(result)
    if on_problem is not None:
        on_problem(result)
    return None


def check(baseline: Path, on_entry=None, on_problem=None, time_limit: float | None = None,
          use_cache: bool = True) -> Outcome:
    """Recompute every entry; the guarded values that differ from the baseline, and the
    entries that could not be run (the others are run all the same)."""
    changes: list[Change] = []
    problems: list[Problem] = []
    entries = load(baseline)
    for entry in entries:
        key = key_of(entry)
        actual = _values_or_report(_run_or_problem(baseline, key, _limit_of(entry, time_limit), use_cache),
                                   problems, on_problem)
        if actual is None:
            continue
        for name in GUARDED + tuple(n for n in RECORDED if n not in GUARDED and n in entry):
            if name in entry and not _same(entry[name], actual[name]):
                changes.append(Change(key, name, entry[name], actual[name]))
        if on_entry is not None:
            on_entry(key, actual)
    return Outcome(changes, problems, entries)


def update(baseline: Path, key: RunKey | None = None, on_entry=None, on_problem=None,
           time_limit: float | None = None, use_cache: bool = True) -> Outcome:
    """Add or refresh the entry ``key`` (creating the baseline if needed), or with no key
    refresh every entry.  An entry that cannot be run keeps its old values (a new one is not
    added); the others are written."""
    check_writable(baseline)
    entries = load(baseline) if baseline.exists() else []
    if key is None:
        keys = [key_of(e) for e in entries]
        if not keys:
            raise UsageError(f"{baseline} has no entries to refresh",
                             hint="add one with --model MODEL")
    else:
        keys = [key]
    by_key = {key_of(e): e for e in entries}
    problems: list[Problem] = []
    for k in keys:
        own = {"timeout": by_key[k]["timeout"]} if "timeout" in by_key.get(k, {}) else {}
        values = _values_or_report(_run_or_problem(baseline, k, _limit_of(own, time_limit), use_cache),
                                   problems, on_problem)
        if values is None:
            continue
        by_key[k] = {**_key_fields({"model": k.model, "strategy": k.strategy,
                                    "defines": list(k.defines), "pan_args": list(k.pan_args)}),
                    **own, **values}
        if on_entry is not None:
            on_entry(k, values)
    entries = list(by_key.values())
    if entries:
        save(baseline, entries)
    return Outcome([], problems, entries)


def _limit_of(entry: dict, default: float | None) -> float | None:
    """The entry's own time limit, else the default."""
    own = entry.get("timeout")
    if own is None:
        return default
    if isinstance(own, bool) or not isinstance(own, (int, float)) or not (0 < own < math.inf):
        raise UsageError(f"baseline entry {entry.get('model')!r}: bad timeout {own!r}",
                         hint="give the seconds the entry may take, e.g. \"timeout\": 600")
    return float(own)


def parse_time_limit(text: str) -> float:
    """``--timeout SECONDS``: a positive number of seconds."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (seconds > 0 and math.isfinite(seconds)):
        raise UsageError(f"bad time limit '{text}'", hint="give the seconds each entry may take, e.g. --timeout 600")
    return seconds


def relative_model(baseline: Path, model: Path) -> str:
    """The model's path relative to the baseline's folder, as stored in entries."""
    return Path(os.path.relpath(model.resolve(), baseline.resolve().parent)).as_posix()


def _same(expected, actual) -> bool:
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        # pan prints counts with %9.8g: beyond 8 digits, compare at pan's precision.
        return float(f"{float(expected):.8g}") == float(f"{float(actual):.8g}")
    return expected == actual


def describe(changes: list[Change]) -> str:
    """One line per change."""
    lines = []
    for change in changes:
        lines.append(f"{change.key.label()}: {change.field} was {change.expected}, now {change.actual}")
    return "\n".join(lines)
