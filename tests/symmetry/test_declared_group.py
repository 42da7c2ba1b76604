"""The group a model written with the ref/public extension declares ([DG01]): checked against
the program with the validity check, and used.

* tests/models/extension/ref_token.pml: three peers pass a token named by a global ref, each
  counting its turns in a public variable.  Nothing tells one peer from another, so the declared
  group is S3 (order 6).  The orbit oracle (tests/support/statespace.py) explores the desugared program
  with plain SPIN and counts the orbits of the declared group on the states it dumps, with its
  own Python action; every exact strategy must store that many states, a complete one between
  that and plain SPIN's count.
* A property naming one peer breaks the declaration: detect refuses it (exit status 2) and
  says where.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
import statespace as S
from conftest import MODELS

from topspin_py.codegen.render import STRATEGIES
from topspin_py.pan import loading
from topspin_py.promela import load_model
from topspin_py.symmetry.detect import detect
from topspin_py.verify import VerifyOptions, verify

TOKEN = MODELS / "extension" / "ref_token.pml"
SAFETY = ("SAFETY", "NOREDUCE")


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    """The declared group, plain SPIN's count and the orbit count, from the desugared program."""
    model = load_model(TOKEN)
    group = detect(model)
    workdir = tmp_path_factory.mktemp("token")
    plain = workdir / "ref_token_plain.pml"
    assert model.spin_text is not None
    plain.write_text(model.spin_text)
    space = S.explore(plain, workdir / "explore", group=group)
    # Without -o1 spin might reset a dead ref local to 0 (instance 0); this model has none,
    # so plain spin's state space is the one the reduced search (built with -o1) explores.
    assert not loading.resets_dead_locals(workdir / "explore")
    orbits = S.count_orbits(space, [group.alpha(g) for g in group.perm_group.generate()]).count
    return group, len(space.records), orbits


def test_the_declared_group_is_every_permutation_of_the_peers(oracle):
    group, _, _ = oracle
    assert group.order == 6
    assert group.orbits() == [["peer:0", "peer:1", "peer:2"]]


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_every_strategy_against_the_orbit_oracle(oracle, strategy, tmp_path):
    _, plain, orbits = oracle
    assert orbits < plain
    result = verify(TOKEN, VerifyOptions(strategy=strategy, defines=SAFETY, save_trails=False))
    assert result.group_order == 6 and result.errors == 0 and result.complete
    exactness = STRATEGIES[strategy].exactness
    if exactness == "exact":
        assert result.states_stored == orbits
    elif exactness == "complete":
        assert orbits <= result.states_stored <= plain
    else:
        assert result.states_stored <= orbits


def test_plain_spin_on_the_desugared_program_agrees_with_verify(oracle):
    _, plain, _ = oracle
    result = verify(TOKEN, VerifyOptions(strategy="none", defines=SAFETY, save_trails=False))
    assert result.states_stored == plain


def test_a_property_naming_one_peer_breaks_the_declaration(tmp_path):
    path = tmp_path / "named.pml"
    source = TOKEN.read_text().replace("    do\n", "again:\n    do\n", 1)
    path.write_text(source + "ltl first { [] !(peer[0]@again && holder == _undef_ref) }\n")
    done = subprocess.run([sys.executable, "-m", "topspin_py.cli", "detect", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "the declared symmetry of peer" in done.stderr
    line = source.count("\n") + 1   # the ltl line
    assert f"{path}:{line}:" in done.stderr, done.stderr



def test_a_limit_of_the_canonicaliser_leaves_the_declaration_out_with_a_note(tmp_path):
    # The requests carry the clients' refs inside a typedef, which the canonicaliser does not
    # rename in a message: no error that blames the model, but no reduction, and a note at the
    # channel that says why; the verdict and the counts are plain SPIN's.
    path = MODELS / "extension" / "typedef_message.pml"
    done = subprocess.run([sys.executable, "-m", "topspin_py.cli", "detect", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "group order: 1" in done.stdout
    notes = [line for line in done.stdout.splitlines() if line.startswith("note:")]
    assert {f"note: {path}:25:17: the declared symmetry of {proctype} is not used" in " ".join(notes)
            for proctype in ("client", "server")} == {True}
    assert all("a limit of topspin-py's canonicaliser, not an asymmetry of the model" in note for note in notes)
    shutil.copy(path, tmp_path / path.name)
    result = verify(tmp_path / path.name, VerifyOptions(defines=("NOREDUCE",), optimisation="-O0"))
    assert result.group_order == 1 and result.errors == 0 and result.states_stored == 711
