"""The complete strategies ``sorted`` and ``localsearch``: at least one state per orbit.

Each maps a state to a local minimum of its orbit, so a reduced search stores at least the
exact count (one state per orbit) and at most plain SPIN's count.  The exact counts are the
published ones ([BDLM07] Fig. 3 for Peterson, TopSPIN's manual for e-mail: tests/
oracles/test_reduction.py); plain SPIN's are measured here, from the reference itself.  On Peterson,
processes with the same local state, flag and waiting-room turns are interchangeable by a
symmetry of the state, so sorting by that key alone picks one state per orbit: ``sorted`` is
exact there ([BDLM07] Fig. 8: TopSPIN's sorted strategy is memory-optimal on Peterson).
"""

from __future__ import annotations

import families
import pytest
from cbuild import prepare

from topspin_py.codegen.render import STRATEGIES, render_canonicaliser
from topspin_py.verify import VerifyOptions, verify

SAFETY = ("SAFETY", "NOREDUCE")
COMPLETE = ["sorted", "localsearch"]

MODELS = [
    # name, source, exact count (published), plain SPIN's count (for the record: measured below)
    pytest.param("peterson4", families.peterson(4), 3_106, id="peterson4"),
    pytest.param("email3", families.email(3), 3_902, id="email3"),
]


def _stored(path, strategy: str) -> int:
    result = verify(path, VerifyOptions(strategy=strategy, defines=SAFETY, pan_args=("-m1000000",),
                                        save_trails=False))
    assert result.complete and result.errors == 0
    return result.states_stored


@pytest.fixture(scope="module")
def plain_counts(tmp_path_factory):
    """Plain SPIN's count of each model, measured once for the module."""
    counts: dict[str, int] = {}

    def get(name: str, path) -> int:
        if name not in counts:
            counts[name] = _stored(path, "none")
        return counts[name]
    return get


def test_registered_as_complete():
    assert {name: STRATEGIES[name].exactness for name in COMPLETE} == dict.fromkeys(COMPLETE, "complete")


@pytest.mark.parametrize("strategy", COMPLETE)
@pytest.mark.parametrize("name,source,exact", MODELS)
def test_count_between_exact_and_plain(tmp_path, plain_counts, name, source, exact, strategy):
    path = tmp_path / f"{name}.pml"
    path.write_text(source)
    plain = plain_counts(name, path)
    stored = _stored(path, strategy)
    assert exact <= stored <= plain
    # The reduction must be real, not a canonicaliser that leaves states as they are.
    assert stored < plain // 4, f"{strategy} stored {stored} of plain SPIN's {plain}"
    if (strategy, name) == ("sorted", "peterson4"):
        assert stored == exact


@pytest.mark.parametrize("name,source,whole", [
    # Peterson: no channel, no local or message value holds a pid, flag[_pid] is data in the
    # keys and turn[k] are global places holding pids, which the keys record: an element that
    # keeps every key in place fixes the state, and sorted need not apply it.
    pytest.param("peterson3", families.peterson(3), True, id="peterson3"),
    # E-mail: the clients' channels move with them and messages hold pids.
    pytest.param("email3", families.email(3), False, id="email3"),
])
def test_sorted_skips_key_ties_only_when_the_keys_are_whole(tmp_path, name, source, whole):
    path = tmp_path / f"{name}.pml"
    path.write_text(source)
    prepared = prepare(path, tmp_path / "work", SAFETY)
    generated = render_canonicaliser(prepared.group, prepared.layout, "sorted")
    assert f"#define TS_TIES_FIXED {int(whole)}\n" in generated
