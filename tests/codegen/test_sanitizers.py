"""The reduced pan under AddressSanitizer and UndefinedBehaviorSanitizer, with run-time checks.

For each model and every registered strategy, the product's own pipeline (``spin -a``,
``pipeline.canonicalise``: layout, generated canonicaliser, splice) writes the reduced pan.c; it is
built twice from the same files:

* as ``topspin-py verify`` builds it (``toolchain.compile_pan``: gcc -O1 <flags> -DTOPSPIN_SYM);
* with ``-fsanitize=address,undefined -fno-omit-frame-pointer -g`` and ``-DTOPSPIN_CHECK``
  (the runtime then checks, on every store, that the canonicaliser kept vsize, the header and
  the masked bytes, and that it is idempotent).

Both run to completion; the sanitized one must print no sanitizer report and no topspin check
failure, and both must store the same number of states with the same number of transitions.

SPIN's own pan.c: with these models and flags (-DSAFETY -DNOREDUCE), UBSan's full default set
(``-fsanitize=undefined``) reports nothing in SPIN's code either, so no check is left out; a
report anywhere (SPIN's code, the runtime or the generated file) fails the test, with the
report's first lines, which name the file and line.
"""

from __future__ import annotations

import os
import re
import subprocess

import families
import pytest

from topspin_py.codegen.invariants import symmetric_blocks
from topspin_py.codegen.render import STRATEGIES, CodegenError
from topspin_py.pan import flags as panflags
from topspin_py.pan import toolchain
from topspin_py.pan.splice import CHECK_MACRO, SYM_MACRO
from topspin_py.pipeline import canonicalise
from topspin_py.promela.model import load_model
from topspin_py.symmetry.detect import detect

SAFETY = ("SAFETY", "NOREDUCE")
PAN_ARGS = ["-m1000000"]
SANITIZE = ["-O0", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined"]
SANITIZER_ENV = {
    # pan keeps every state until it exits: memory still reachable then is not a leak, and
    # LeakSanitizer reports only what is unreachable.
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:halt_on_error=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=0",
}
REPORT = re.compile(r"runtime error:|ERROR: \w+Sanitizer|SUMMARY: \w+Sanitizer|pan: topspin:")

CASES = [
    pytest.param("topspin/mutex5.p", id="mutex5"),
    pytest.param("topspin/peterson3.p", id="peterson3"),
    pytest.param("topspin/email3.p", id="email3"),
    pytest.param(("hypercube3", families.hypercube(3)), id="hypercube3", marks=pytest.mark.slow),
    pytest.param("topspin/2s3cs.p", id="2s3cs", marks=pytest.mark.slow),
    pytest.param("topspin/petersonnoatomic/3.p", id="petersonnoatomic3", marks=pytest.mark.slow),
]


def _counts(output: str) -> tuple[int, int, int]:
    def number(pattern: str) -> int:
        match = re.search(pattern, output)
        assert match, f"no '{pattern}' in pan's output:\n{output[-2000:]}"
        return int(float(match.group(1)))
    return (number(r"([\d.e+]+) states, stored"), number(r"([\d.e+]+) transitions"),
            number(r"errors: (\d+)"))


def _run(binary, workdir, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *PAN_ARGS], cwd=workdir, capture_output=True, text=True,
                          timeout=600, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("case", CASES)
def test_reduced_pan_is_clean_under_sanitizers(request, tmp_path, case, strategy):
    if isinstance(case, tuple):
        name, source = case
        model_path = tmp_path / f"{name}.pml"
        model_path.write_text(source)
    else:
        model_path = request.getfixturevalue("corpus") / case
    workdir = tmp_path / "build"
    workdir.mkdir()
    tools = toolchain.find_toolchain()
    toolchain.generate_pan(tools, model_path, str(model_path), list(SAFETY), workdir)
    model = load_model(model_path, SAFETY)
    group = detect(model)
    assert group.order > 1
    sources = {p.name: p.read_text(errors="replace") for p in workdir.glob("pan.[chbmpt]")}
    flags = list(panflags.choose_compile_flags(
        list(SAFETY), PAN_ARGS, panflags.pan_h_declares_claim(sources["pan.h"]),
        panflags.pan_option_names(sources.values())).flags)
    try:
        canonicalise(workdir, group, strategy, flags)
    except CodegenError as error:
        # A strategy made for products of full symmetric groups on blocks refuses the others.
        assert STRATEGIES[strategy].symmetric_trees_only, error
        n_pids = max(p.pid for p in group.points if p.kind == "pid") + 1
        assert symmetric_blocks(group, n_pids) is None, error
        return
    flags.append("-D" + SYM_MACRO)

    plain = _run(toolchain.compile_pan(tools, flags, workdir), workdir)
    assert plain.returncode == 0, plain.stdout[-2000:]
    command = ["gcc", *SANITIZE, "-w", *flags, "-D" + CHECK_MACRO, "-o", "pan_sanitized", "pan.c"]
    built = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    checked = _run(workdir / "pan_sanitized", workdir, SANITIZER_ENV)
    output = checked.stdout + checked.stderr

    reports = [line for line in output.splitlines() if REPORT.search(line)]
    assert not reports, "\n".join(reports[:20]) + "\n" + output[-3000:]
    assert checked.returncode == 0, output[-3000:]
    assert _counts(output) == _counts(plain.stdout)
