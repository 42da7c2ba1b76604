"""Adversarial soundness models (tests/models/soundness/) against plain SPIN.

Each model there uses a pid or a channel id in a way that breaks the symmetry of its
identical processes (a constant expression naming a pid, a pid in a plain byte, a bit-field too
narrow for it, a monitor with one option per process, ...) and has an error that plain SPIN
finds.  A symmetry-reduced run that accepts a permutation the program breaks may merge the
states that lead to the error with states that do not, and report "no errors".  The header
syntax is tests/support/modelgen.py's, with ``order=K`` for the group a sound analysis must find.

For each ``expect:`` line of each model:

* ``test_plain_spin``: plain spin + gcc + pan give the header's counts, so the headers (and the
  claim that there is an error to find) stay true;
* ``test_detect_order``: where the line gives ``order``, ``topspin-py detect --json`` reports
  that group order; K comes from reasoning written in the model's header, never from the tool
  (a model whose sound group depends on a design choice gives none and says so);
* ``test_verify_verdict``: ``topspin-py verify --json --strategy S`` for S in auto, enumerate
  and segmented never shows a traceback and finds errors exactly when plain SPIN does (exit
  status 1, errors > 0), or none when it finds none (exit status 0).  The verdict is compared,
  not the counts: a reduced run stores fewer states;
* ``test_transition_oracle``: for one run of each model whose group is not trivial, every
  generator of the group maps plain pan's state graph onto itself, error states included
  (tests/support/transitions.py): the group is a symmetry of the model, not only of its verdict.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import MODELS
from modelgen import Run, copy_model, read_header, run_cli, run_params, run_spin, verify_args

SOUNDNESS = MODELS / "soundness"
PATHS = sorted(SOUNDNESS.glob("*.pml"))
STRATEGIES = ("auto", "enumerate", "segmented")

RUNS = run_params(PATHS)
# The runs whose header gives the group order (those that do not say why in their prose).
ORDER_RUNS = [param for param in RUNS
              if param.values[1] is None or param.values[1].order is not None]


def _require(run: Run | None, header_error: str | None) -> Run:
    if header_error is not None:
        pytest.fail(header_error)
    assert run is not None
    # The verdict tests compare with the header's errors count: every run must state it.
    assert "errors" in run.counts, f"{run.label()}: a soundness run must state errors="
    return run


# ----------------------------------------------------------------------------------- tests


def test_there_are_models():
    assert len(PATHS) >= 30


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_model_guards_an_error(path: Path):
    """A model here exists to show an error that a wrong symmetry hides: at least one of its
    runs must have one."""
    runs = read_header(path).runs
    assert any(run.counts.get("errors", 0) > 0 for run in runs), \
        f"{path.name}: no run expects an error"


@pytest.mark.parametrize("path,run,header_error", RUNS)
def test_plain_spin(path: Path, run: Run | None, header_error: str | None):
    run = _require(run, header_error)
    res = run_spin(path, flags=run.flags, defines=run.defines, pan=run.pan, opt="-O0")
    mismatches = {key: (want, res.get(key)) for key, want in run.counts.items()
                  if float(res.get(key)) != float(want)}
    assert not mismatches, (f"plain spin on {path.name} ({run.label()}): "
                            f"{{key: (expected, got)}} = {mismatches}")


@pytest.mark.parametrize("path,run,header_error", ORDER_RUNS)
def test_detect_order(path: Path, run: Run | None, header_error: str | None):
    run = _require(run, header_error)
    # The claim the run's pan checks (-N NAME), which is all the symmetry must respect.
    claim = [word for word in run.pan if word.startswith("-N")]
    claim_args = (["-N", run.pan[run.pan.index("-N") + 1]] if claim == ["-N"]
                  else ["-N", claim[0][2:]] if claim else [])
    proc = run_cli("detect", "--json", *claim_args, *run.defines, str(path))
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, f"exit status {proc.returncode}\n{proc.stderr}"
    result = json.loads(proc.stdout)
    assert result["order"] == run.order, (
        f"detect on {path.name} ({run.label()}): order {result['order']}, a sound analysis "
        f"allows at most {run.order}; generators {result.get('generators')}")


# --check-symmetry's budget here: every soundness model's state space is below it.
CHECK_BUDGET = 50_000


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("path,run,header_error", RUNS)
def test_verify_verdict(path: Path, run: Run | None, header_error: str | None, strategy: str,
                        tmp_path: Path):
    run = _require(run, header_error)
    # The run of the default strategy also checks the reduction against plain pan without
    # trusting the analysis (verify --check-symmetry, every state): it must agree.
    check = [f"--check-symmetry={CHECK_BUDGET}"] if strategy == "auto" else []
    proc = run_cli(*verify_args(copy_model(path, tmp_path), run, strategy), *check)
    assert "Traceback" not in proc.stderr, proc.stderr
    want_errors = run.counts["errors"] > 0
    want_status = 1 if want_errors else 0
    verdict = f"plain spin finds {run.counts['errors']} error(s)"
    assert proc.returncode == want_status, (
        f"verify --strategy {strategy} on {path.name} ({run.label()}): exit status "
        f"{proc.returncode}, expected {want_status} ({verdict})\n{proc.stdout}\n{proc.stderr}")
    result = json.loads(proc.stdout)
    assert (result["errors"] > 0) == want_errors, (
        f"verify --strategy {strategy} on {path.name} ({run.label()}): "
        f"errors {result['errors']} ({verdict})")
    if check:
        checked = result["symmetry_check"]
        if result["group_order"] == 1:
            assert checked is None and "nothing to check" in result["symmetry_check_note"]
        else:
            assert checked is not None and checked["agrees"], checked
            assert checked["complete"] and checked["orbits"] == checked["reduced_states"], checked


# The runs whose group is not trivial, one per model: the transition oracle checks the group.
SYMMETRIC_RUNS = list({param.values[0]: param for param in reversed(RUNS)
                       if param.values[1] is not None and (param.values[1].order or 1) > 1}.values())


@pytest.mark.parametrize("path,run,header_error", SYMMETRIC_RUNS)
def test_transition_oracle(path: Path, run: Run | None, header_error: str | None, tmp_path: Path):
    """Every generator the group of the search has maps plain pan's state graph onto itself:
    its stored states, moves, and the kinds of error on them (tests/support/transitions.py), including
    the error the model guards, which an asymmetric path reaches."""
    from transitions import (
        ACCEPTING,
        ASSERTION,
        CLAIM_END,
        INVALID_END,
        explore_transitions,
        format_violations,
        group_violations,
    )

    from topspin_py.pan import flags as panflags
    from topspin_py.pan import loading
    from topspin_py.promela import load_model
    from topspin_py.reduce import search_context
    from topspin_py.symmetry.detect import detect

    run = _require(run, header_error)
    defines = [d.removeprefix("-D") for d in run.defines]
    copied = copy_model(path, tmp_path)
    # as verify reads it: with what the pan spin writes says (dead locals, ltl claims)
    model = load_model(copied, tuple(defines))
    model = loading.check_with_spin(copied, defines, model) or model
    pan_args = list(run.pan)
    searched = search_context(model, [panflags.parse_define(d) for d in defines], pan_args)
    group = detect(searched)
    assert group.order == run.order
    assert model.path is not None
    graph = explore_transitions(model.path, tmp_path / "oracle", run.flags, pan_args, defines,
                                roots=group.generators, group=group)
    # The error the model guards is on some state (a liveness property: an accepting state).
    labels = [ASSERTION, INVALID_END, CLAIM_END] + ([ACCEPTING] if "-a" in pan_args else [])
    assert any(graph.with_label(label) for label in labels), \
        "the graph holds no state with the error the model guards"
    broken = {group.cycles(g): v for g, v in group_violations(graph, group.generators).items() if v}
    assert not broken, "\n".join(f"{name}: {format_violations(v)}" for name, v in broken.items())
