"""Template variables as typed values: the base of every context a template reads
(codegen/contexts.py).  ``variables()`` flattens a context into the names the template reads:
a part's fields come in where the part is, an absent optional field or part gives none, and a
name given twice is an error, so that every variable has one source."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


def optional() -> Any:
    """A field that a context may lack: when it is None, the template has no such variable
    (or no such part's variables)."""
    return field(default=None, metadata={"optional": True})


@dataclass(frozen=True, kw_only=True)
class Variables:
    """Template variables: every field, with the fields of each part in its place."""

    def variables(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(value, Variables):
                items = list(value.variables().items())
            elif value is None and spec.metadata.get("optional"):
                items = []
            else:
                items = [(spec.name, value)]
            for name, item in items:
                if name in found:
                    raise AssertionError(f"{type(self).__name__}: the template variable {name} is given twice")
                found[name] = item
        return found
