"""What users are told about strategies: the choice in --help, exactness in the summary and the
JSON, auto's pick and its reason, and the warnings of strategies that are not exact (on stderr,
in the summary and the JSON, and in the C that generate writes).

Everything is read from the registry (topspin_py.codegen.render.STRATEGIES), so a strategy
registered later is covered with no change here.  Where the registry has no approximate or
complete strategy yet, the warning tests register a stand-in that generates `segmented`'s
(exact) C under the new label: the label, not the C, is what they test.  A real one is used as
soon as it is registered.  The runs are real (spin, gcc, pan) on examples/mutex.pml, 6 states.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO

from topspin_py import reduce, strategies
from topspin_py.cli import main
from topspin_py.codegen.registry import STRATEGIES, Strategy
from topspin_py.verify import VerifyOptions, verify

MUTEX = REPO / "examples" / "mutex.pml"   # three identical users: the group S_3
NOT_A_PROOF = '"no errors" verdict is not a proof'
ABOVE_EXACT = "may be above the exact orbit count"


def _words(text: str) -> str:
    """``text`` with every run of white space one space: --help wraps at the terminal width."""
    return " ".join(text.split())


# A strategy registered after the commands were written: segmented's code generator, renamed.
LATER = Strategy("test-later", "complete", "registered by the test", "chain", "segmented.c.j2", keys="segmented")


def _strategy_of(exactness: str, monkeypatch) -> str:
    """A registered strategy with this exactness: a real one if the registry has one, else a
    stand-in registered for the test that generates segmented's C."""
    real = next((name for name, s in STRATEGIES.items() if s.exactness == exactness), None)
    if real is not None:
        return real
    name = f"test-{exactness}"
    monkeypatch.setitem(STRATEGIES, name, Strategy(name, exactness, f"a stand-in {exactness} strategy",
                                                   "chain", "segmented.c.j2", keys="segmented"))
    return name


# --- --help -----------------------------------------------------------------------------------

@pytest.mark.parametrize("command,with_none", [("verify", True), ("generate", False),
                                               ("patch", False), ("regress", True)])
def test_help_lists_every_strategy_with_its_exactness(command, with_none, capsys, monkeypatch):
    # A strategy registered after the CLI was written is listed too.
    monkeypatch.setitem(STRATEGIES, "test-later", LATER)
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    shown = _words(capsys.readouterr().out)
    for name, strategy in STRATEGIES.items():
        assert _words(f"{name} ({strategy.exactness}) {strategy.description}") in shown, name
    assert _words(f"auto {strategies.AUTO_DESCRIPTION}") in shown
    assert "never an approximate one" in strategies.AUTO_DESCRIPTION
    assert (_words(f"none {strategies.NONE_DESCRIPTION}") in shown) == with_none


def test_a_registered_strategy_is_accepted_by_the_commands(monkeypatch, capsys):
    monkeypatch.setitem(STRATEGIES, "test-later", LATER)
    # argparse accepts it (the model is missing: verify's own error, exit status 2, not argparse's).
    assert main(["verify", "--strategy", "test-later", "missing.pml"]) == 2
    assert "model file not found" in capsys.readouterr().err


# --- exactness and auto's reason in the summary and the JSON ------------------------------------

def test_auto_says_what_it_chose_and_why(tmp_path, capsys):
    model = tmp_path / "mutex.pml"
    model.write_text(MUTEX.read_text())
    assert main(["verify", "--json", "--quiet", str(model)]) == 0
    out = json.loads(capsys.readouterr().out)
    # auto never picks a strategy that is not exact: the registry's label of its pick says so.
    assert out["requested_strategy"] == "auto" and out["strategy"] in STRATEGIES
    assert STRATEGIES[out["strategy"]].exactness == "exact" == out["exactness"]
    assert out["strategy_reason"] and out["warnings"] == []
    assert out["group_order"] == 6   # three identical users: S_3

    assert main(["verify", "--quiet", str(model)]) == 0
    summary = capsys.readouterr().out
    strategy_row = re.search(r"^strategy:\s+(.*)$", summary, re.M)
    assert strategy_row, summary
    line = strategy_row.group(1)
    assert line == (f"{out['strategy']} (exact; group order 6), chosen by auto: {out['strategy_reason']}")
    assert "warning:" not in summary


def test_no_reduction_has_no_exactness(tmp_path, capsys):
    model = tmp_path / "mutex.pml"
    model.write_text(MUTEX.read_text())
    assert main(["verify", "--json", "--quiet", "--strategy", "none", str(model)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["strategy"], out["exactness"], out["strategy_reason"]) == ("none", None, None)
    assert out["exact"] is True and out["warnings"] == []


def test_a_named_strategy_has_no_reason_of_autos(tmp_path):
    model = tmp_path / "mutex.pml"
    model.write_text(MUTEX.read_text())
    result = verify(model, VerifyOptions(strategy="enumerate", save_trails=False))
    assert (result.strategy, result.exactness, result.strategy_reason) == ("enumerate", "exact", None)
    assert "strategy:       enumerate (exact; group order 6)\n" in result.summary()


# --- warnings of strategies that are not exact ---------------------------------------------------

@pytest.mark.parametrize("exactness,says", [("approximate", NOT_A_PROOF), ("complete", ABOVE_EXACT)])
def test_a_strategy_that_is_not_exact_warns_everywhere(exactness, says, tmp_path, capsys, monkeypatch):
    name = _strategy_of(exactness, monkeypatch)
    model = tmp_path / "mutex.pml"
    model.write_text(MUTEX.read_text())

    assert main(["verify", "--json", "--strategy", name, str(model)]) == 0
    run = capsys.readouterr()
    out = json.loads(run.out)
    assert (out["strategy"], out["exactness"], out["exact"]) == (name, exactness, False)
    assert len(out["warnings"]) == 1 and says in out["warnings"][0]
    assert says in _words(run.err)   # on stderr, as the run starts

    # --quiet silences notes, not this warning.
    assert main(["verify", "--quiet", "--strategy", name, str(model)]) == 0
    run = capsys.readouterr()
    assert says in _words(run.err) and run.err.startswith("topspin-py: warning: ")
    warned = [line for line in run.out.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1 and says in warned[0]
    assert f"{name} ({exactness}; group order 6)" in run.out
    assert "pan warning:" not in run.out   # ours is not passed off as pan's


def test_an_approximate_strategy_is_never_autos_choice(monkeypatch, tmp_path):
    # Even when an approximate strategy is registered first, auto's pick is exact.
    name = _strategy_of("approximate", monkeypatch)
    monkeypatch.setattr(reduce, "STRATEGIES", {name: STRATEGIES[name], **STRATEGIES})
    model = tmp_path / "mutex.pml"
    model.write_text(MUTEX.read_text())
    result = verify(model, VerifyOptions(save_trails=False))
    assert result.exactness == "exact" and result.warnings == [] and result.strategy != name


def test_generate_writes_the_warning_into_the_c(tmp_path, capsys, monkeypatch):
    name = _strategy_of("approximate", monkeypatch)
    out = tmp_path / "out"
    assert main(["generate", str(MUTEX), "-o", str(out), "--strategy", name]) == 0
    run = capsys.readouterr()
    assert f"strategy {name} (approximate)" in run.out and NOT_A_PROOF in _words(run.err)
    for generated in ("topspin_sym.h", "topspin_sym.c"):
        text = _words((out / generated).read_text().replace(" * ", " "))
        assert f"strategy {name} (approximate:" in text and f"WARNING: strategy {name}" in text, generated
        assert NOT_A_PROOF in text, generated
    # generate's files are still recognised as its own: it writes the directory again.
    assert main(["generate", str(MUTEX), "-o", str(out), "--strategy", name]) == 0


def test_generate_says_autos_reason_in_the_header(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["generate", str(MUTEX), "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert "chosen by auto: " in printed.out and printed.err == ""
    header = (out / "topspin_sym.h").read_text()
    assert re.search(r"^ \* chosen by auto: \S", header, re.M) and "WARNING" not in header


def test_an_unknown_exactness_label_is_warned_about_as_approximate(monkeypatch):
    monkeypatch.setitem(STRATEGIES, "test-odd", Strategy("test-odd", "mostly", "a label nobody defined", "chain",
                                                        "segmented.c.j2", keys="segmented"))
    warning = strategies.warning("test-odd")
    assert warning is not None
    assert NOT_A_PROOF in warning
    assert strategies.warning("none") is None
    assert all(strategies.warning(name) is None for name, s in STRATEGIES.items() if s.exactness == "exact")


def test_json_keeps_its_contract():
    from topspin_py.result import JSON_REQUIRED_KEYS, Result
    fields = set(Result.__dataclass_fields__)
    assert {"exactness", "warnings", "requested_strategy", "strategy_reason"} <= fields
    assert {"exactness", "warnings"} <= set(JSON_REQUIRED_KEYS)



@pytest.mark.parametrize("exactness,caveat", [("approximate", True), ("complete", False), ("exact", False)])
def test_a_disagreement_blames_only_an_approximate_strategy(exactness, caveat):
    # --compare's verdicts differ: plain SPIN found an error the reduced search did not.  Only an
    # approximate strategy may lose an orbit; a complete one keeps one state of each, so for it
    # (as for an exact one) the difference is a bug, with no excuse offered.
    from topspin_py.result import PlainRun, Result
    result = Result(model="m.pml", strategy="s", group_order=6, states_stored=5, states_matched=0,
                    transitions=5, atomic_steps=0, depth=3, errors=0, complete=True,
                    incomplete_reason=None, approximate=False, elapsed_s=0.0, memory_mb=1.0, trail=None,
                    exact=exactness == "exact", exactness=exactness,
                    plain=PlainRun(states_stored=20, transitions=30, errors=1, complete=True,
                                   elapsed_s=0.0, memory_mb=1.0))
    assert result.disagreement is not None and result.exit_status == 2
    assert ("approximate and may miss states" in result.disagreement) == caveat
