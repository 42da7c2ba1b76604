"""Parsing and symmetry detection run with Python's cyclic garbage collector paused.

Both build and drop hundreds of thousands of AST nodes, strings and tuples, and keep the model,
in trees without reference cycles: reference counting frees what they drop.  The cyclic
collector still runs every few hundred allocations, and each of its full passes walks every
object alive, the whole model included, to find nothing: a fifth of detect's time on the
5-dimensional hypercube of Table 2 of Donaldson and Miller [DM08].  (The Earley parser of LTL
formulas leaves a few cycles, a formula's worth; they are collected once the collector runs
again.  A test in test_detect checks that parsing and detection leave no others.)
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off inside the block (as a decorator: inside the function), and
    back on after it unless it was off already."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
