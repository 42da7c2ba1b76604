"""The markers strategies of Bošnački et al. [BDLM07] (section 5): `markers-exact` (complete)
and `markers-approx` (approximate), on the families of its Fig. 8 and Fig. 9, with real spin,
gcc and pan (-DSAFETY -DNOREDUCE).

* Peterson: no value inside a process names a process (``turn`` is global, ``flag`` is an array
  of data indexed by pid), so equal markers mean interchangeable processes and both strategies
  store exactly one state per orbit ([BDLM07] Prop. 2): [BDLM07] Fig. 8's counts.
* E-mail: messages in the clients' inboxes name clients.  markers-exact stores at least one
  state per orbit (Prop. 1(2)) and no more than plain SPIN; markers-approx may merge orbits, so
  it stores at most one per orbit.  The exact counts are TopSPIN's (shared/corpus/README.md,
  email3.p and email4.p, which tests/support/families.py's email(n) reproduces); the plain counts are
  plain SPIN's (tests/oracles/test_families.py).
* Wreath products: the servers of a client/server system, each with its own clients (the
  three-tiered family's S_2 wr S_2, TopSPIN's 2s3cs with S_3 wr S_2).  The children of every
  node are sorted top down; markers-exact stays between the orbit count and plain SPIN's.
* A group that is not a direct product of trees of symmetric groups is refused, with exit
  status 2 and a message that names the strategy to use instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import families
import pytest

from topspin_py.verify import VerifyOptions, verify

SAFETY = ("SAFETY", "NOREDUCE")
MARKERS = ("markers-exact", "markers-approx")

# [BDLM07], Fig. 8 (and the orbit counts of every exact strategy here).
PETERSON_ORBITS = {3: 494, 4: 3_106, 5: 17_321, 6: 89_850}
# n: (orbits, plain SPIN's states)
EMAIL = {3: (3_902, 23_256), 4: (36_255, 852_641)}


def _verify(tmp_path: Path, name: str, source: str, strategy: str, notes: list[str] | None = None):
    path = tmp_path / f"{name}.pml"
    path.write_text(source)
    result = verify(path, VerifyOptions(strategy=strategy, defines=SAFETY, pan_args=("-m1000000",),
                                        save_trails=False, on_note=None if notes is None else notes.append))
    assert result.strategy == strategy and result.complete and result.errors == 0
    return result


@pytest.mark.parametrize("strategy", MARKERS)
@pytest.mark.parametrize("n", sorted(PETERSON_ORBITS))
def test_peterson_one_state_per_orbit(tmp_path, n, strategy):
    notes: list[str] = []
    result = _verify(tmp_path, f"peterson{n}", families.peterson(n), strategy, notes)
    assert result.group_order == [1, 1, 2, 6, 24, 120, 720][n]
    assert result.states_stored == PETERSON_ORBITS[n]
    # Exact here, but not in general: an approximate run always says so.
    approximate = [note for note in notes if "approximate" in note and "is not a proof" in note]
    assert bool(approximate) == (strategy == "markers-approx"), notes
    assert not result.exact


@pytest.mark.parametrize("n", sorted(EMAIL))
def test_email_between_the_orbits_and_plain(tmp_path, n):
    orbits, plain = EMAIL[n]
    complete = _verify(tmp_path, f"email{n}", families.email(n), "markers-exact")
    approximate = _verify(tmp_path, f"email{n}", families.email(n), "markers-approx")
    assert orbits <= complete.states_stored <= plain
    assert approximate.states_stored <= orbits


# TopSPIN's 2s3cs (tests/support/families.py: three_tiered(3, 3, buffered=True)): two servers, each
# with its three clients, S3 wr S2 of order 72; 2,656 orbits (TopSPIN's published exact count,
# shared/corpus/README.md) and 103,105 states for plain SPIN (the same README).
WREATH_ORBITS, WREATH_PLAIN = 2_656, 103_105


def test_a_wreath_product_between_the_orbits_and_plain(tmp_path):
    source = families.three_tiered(3, 3, buffered=True)
    complete = _verify(tmp_path, "wreath", source, "markers-exact")
    approximate = _verify(tmp_path, "wreath", source, "markers-approx")
    assert complete.group_order == approximate.group_order == 72
    assert WREATH_ORBITS <= complete.states_stored < WREATH_PLAIN
    assert approximate.states_stored <= WREATH_ORBITS


@pytest.mark.parametrize("command,strategy", [("verify", "markers-exact"), ("generate", "markers-approx")])
def test_a_group_that_is_no_tree_of_symmetric_groups_is_refused(tmp_path, command, strategy):
    # The hypercube of dimension 3: its 8 translations (x -> x xor v) form (C_2)^3 acting
    # regularly on the 8 nodes; no order of the children of a tree's nodes gives them, as a
    # tree group of order 8 on 8 leaves would have to contain a transposition of two leaves.
    path = tmp_path / "hypercube.pml"
    path.write_text(families.hypercube(3))
    args = [command, str(path), "--strategy", strategy]
    if command == "generate":
        args += ["-o", str(tmp_path / "out")]
    done = subprocess.run([sys.executable, "-m", "topspin_py.cli", *args], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{path}: the {strategy} strategy needs a group that is a direct product" in done.stderr
    assert "order 8 is not one" in done.stderr
    assert "hint: use --strategy refine" in done.stderr
