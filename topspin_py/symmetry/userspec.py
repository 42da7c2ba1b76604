"""User-given symmetry generators: TopSPIN's symmetry-file form, one generator per line in
disjoint-cycle notation over pids, process names (``client:3``) and static channel names."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import SourcePos, UsageError
from ..promela.model import Model
from .kinds import Point, chan_point, pid_point

_CYCLE = re.compile(r"\(([^()]*)\)")


def read_group_file(path: str | Path) -> list[tuple[str, SourcePos]]:
    """The generator lines of a group file (blank lines and `#` comments skipped)."""
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except OSError as err:
        raise UsageError(f"cannot read group file '{path}': {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise UsageError(f"{path}: the group file is not text (byte 0x{err.object[err.start]:02X} at "
                         f"offset {err.start})",
                         hint="give one generator per line, e.g. (1 2)(q1 q2)") from None
    result = []
    for number, line in enumerate(lines, start=1):
        text = line.split("#", 1)[0].strip()
        if text:
            result.append((text, SourcePos(str(path), number, 1)))
    return result


def parse_generator(text: str, model: Model, pos: SourcePos | None) -> dict[Point, Point]:
    """A generator as a mapping of points (pids and channels) to their images."""
    if _CYCLE.sub("", text).strip():
        raise UsageError(f"'{text}' is not in disjoint-cycle notation", pos,
                         hint="write cycles such as (1 2)(link1 link2)")
    channels = {c.name: c.id for c in model.channels}
    pids = {p.pid for p in model.processes}
    mapping: dict[Point, Point] = {}
    for cycle in _CYCLE.findall(text):
        points = [_point(token, pids, channels, pos) for token in cycle.replace(",", " ").split()]
        if len(set(points)) != len(points):
            raise UsageError(f"a point repeats in the cycle ({cycle})", pos)
        for a, b in zip(points, points[1:] + points[:1]):
            if a in mapping:
                raise UsageError(f"the cycles of '{text}' are not disjoint", pos)
            if a.kind != b.kind:
                raise UsageError(f"cycle ({cycle}) mixes processes and channels", pos)
            mapping[a] = b
    return mapping


def _point(token: str, pids: set[int], channels: dict[str, int], pos) -> Point:
    name = token.split(":", 1)[1] if re.fullmatch(r"\w+:\d+", token) else token
    if name.isdigit():
        if int(name) not in pids:
            raise UsageError(f"there is no process with pid {name}", pos)
        return pid_point(int(name))
    if token in channels:
        return chan_point(channels[token])
    raise UsageError(f"'{token}' is neither a pid nor a static channel of the model", pos,
                     hint="`topspin-py detect MODEL` lists the processes and channels")
