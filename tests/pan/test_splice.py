"""The splice (topspin_py/pan/splice.py): patching SPIN 6.5.2's pan.c so that canonical states
are stored while the search continues from the actual state.

Everything here runs the real spin, gcc and pan.  Three builds of each pan.c are compared:

* ``plain``: SPIN's pan.c as it is,
* ``patched``: the spliced pan.c compiled without -DTOPSPIN_SYM (must be the same program),
* ``sym``: the spliced pan.c with -DTOPSPIN_SYM -DTOPSPIN_CHECK and the test canonicaliser
  below, which is the identity or, with TOPSPIN_TEST_CANON=perm in pan's environment, the
  brute-force minimum over all permutations of the processes of proctype P0.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import MODELS, corpus_files
from modelgen import read_header

from topspin_py.errors import ToolchainError
from topspin_py.pan.output import parse_pan_output
from topspin_py.pan.splice import (
    CHECK_MACRO,
    OBSERVE_MACRO,
    PATCH_POINTS,
    REPORT_PREFIX,
    SUPPORTED_BANNER,
    SYM_MACRO,
    SpliceError,
    check_pan_p,
    spin_version,
    splice,
    splice_file,
    splice_pan_c,
)

GENERATED = "sym_gen.c"

# The storage modes of the brief, as gcc flags.
MODES = {
    "default": (),
    "NOREDUCE": ("-DNOREDUCE",),
    "BITSTATE": ("-DBITSTATE",),
    "COLLAPSE": ("-DCOLLAPSE",),
    "HC4": ("-DHC4",),
    "MA": ("-DMA=64",),
    "SAFETY": ("-DSAFETY",),
    "BFS": ("-DBFS",),
}
MORE_MODES = {
    "NOCOMP": ("-DNOCOMP",),
    "BITSTATE+NOREDUCE": ("-DBITSTATE", "-DNOREDUCE"),
    "BFS+BITSTATE+NOREDUCE": ("-DBFS", "-DBITSTATE", "-DNOREDUCE"),
    "NP": ("-DNP",),
    "BCS": ("-DBCS",),
}

# N identical processes, each with a local bit and its own entry of a pid-indexed global array.
# Without POR reduction (every step writes a global or is the only local one): 6^N states, each
# with 2N successors.  The orbits under the N! permutations are the multisets of N local
# states out of 6: C(N+5, 5), which is 56 for N = 3.
TOGGLE = """
byte val[3];
active [3] proctype P() {
	bit b;
	do
	:: b = 1 - b
	:: val[_pid] = (val[_pid] + 1) % 3
	od
}
"""
TOGGLE_PERMUTE = "dst->val[q] = src->val[p];"
TOGGLE_PLAIN = dict(states=216, transitions=216 * 6 + 1)
TOGGLE_ORBITS = dict(states=56, transitions=56 * 6 + 1)

# A mutual exclusion with a race: the test and the set of `turn` are separate steps, so two
# processes can both get in.  `turn` holds a pid (255 = free).
RACE = """
byte turn = 255;
byte incs;
active [3] proctype P() {
	do
	:: turn == 255 -> turn = _pid; incs++; assert(incs == 1); incs--; turn = 255
	od
}
"""
RACE_PERMUTE_PIDS = "if (src->turn != 255) dst->turn = tc_perm[src->turn];"

# Mutual exclusion done right (test-and-set is atomic), with a pid-indexed array that is read.
MUTEX = """
byte turn = 255;
bool flag[3];
byte incs;
active [3] proctype P() {
	byte i;
	do
	:: atomic { turn == 255 -> turn = _pid };
	   incs++; assert(incs == 1); incs--;
	   flag[_pid] = !flag[_pid]; i = (i + 1) % 2;
	   turn = 255
	od
}
ltl live { [] <> (turn == 255) }
"""
MUTEX_PERMUTE = "dst->flag[q] = src->flag[p];"

CANONICALISER = r"""
/* Test canonicaliser (tests/pan/test_splice.py).  TOPSPIN_TEST_CANON=perm in the environment: the
 * smallest of the N_PROCS! images of `now` under permutations of the processes of proctype P0
 * in slots BASE..BASE+N_PROCS-1; anything else: the identity.  Counts its calls. */
#define N_PROCS %(n)d
static long tc_calls;
static int tc_mode = -1;
static int tc_perm[N_PROCS], tc_used[N_PROCS];
static State tc_cand, tc_best;

static void
tc_report(void)
{	printf("topspin-test: %%ld canonicalisations\n", tc_calls);
}

static void
tc_apply(const State *src, State *dst)	/* process p becomes process tc_perm[p] */
{	int p, q;
	topspin_state_copy(dst, src);
	for (p = 0; p < N_PROCS; p++)
	{	q = tc_perm[p];
		memcpy((char *) dst + proc_offset[BASE + q], (const char *) src + proc_offset[BASE + p],
			sizeof(P0));
		((P0 *) ((char *) dst + proc_offset[BASE + q]))->_pid = q;
		%(permute)s
	}
	%(pids)s
}

static void
tc_search(int k)
{	int q;
	if (k == N_PROCS)
	{	tc_apply(&now, &tc_cand);
		if (topspin_state_cmp(&tc_cand, &tc_best) < 0)
		{	topspin_state_copy(&tc_best, &tc_cand);
		}
		return;
	}
	for (q = 0; q < N_PROCS; q++)
	{	if (!tc_used[q])
		{	tc_used[q] = 1; tc_perm[k] = q; tc_search(k + 1); tc_used[q] = 0;
	}	}
}

void
topspin_canonicalise(void)
{
	if (tc_mode < 0)
	{	const char *mode = getenv("TOPSPIN_TEST_CANON");
		tc_mode = (mode != NULL && strcmp(mode, "perm") == 0);
		atexit(tc_report);
	}
	tc_calls++;
	if (tc_mode == 0 || now._nr_pr < BASE + N_PROCS)
	{	return;
	}
	topspin_state_copy(&tc_best, &now);
	tc_search(0);
	topspin_state_copy(&now, &tc_best);
}
"""

IDENTITY = """
/* identity canonicaliser (tests/pan/test_splice.py) */
static long tc_calls;
static void tc_report(void) { printf("topspin-test: %ld canonicalisations\\n", tc_calls); }
void topspin_canonicalise(void) { if (tc_calls++ == 0) atexit(tc_report); }
"""

_CALLS = re.compile(r"^topspin-test: (\d+) canonicalisations", re.M)


# ----------------------------------------------------------------------------------- helpers

@dataclass
class Pan:
    """One pan run: the numbers we compare, and the raw output."""

    counts: dict
    output: str
    returncode: int

    @property
    def canonicalisations(self) -> int:
        match = _CALLS.search(self.output)
        return int(match.group(1)) if match else 0


def spin_a(workdir: Path, name: str, text: str | None = None, source: Path | None = None,
           defines=()) -> str:
    """spin -a in workdir on a model written there: ``text``, or a copy of ``source`` (with an
    ``include/`` folder beside it), so that trails are written in workdir, never beside the
    original."""
    workdir.mkdir(parents=True, exist_ok=True)
    if text is None:
        assert source is not None  # text or source
        text = source.read_text(encoding="latin-1")
        if (source.parent / "include").is_dir() and not (workdir / "include").exists():
            shutil.copytree(source.parent / "include", workdir / "include")
    (workdir / name).write_text(text, encoding="latin-1")
    done = subprocess.run(["spin", *defines, "-a", name], cwd=workdir,
                          capture_output=True, text=True)
    assert done.returncode == 0 and (workdir / "pan.c").is_file(), done.stdout + done.stderr
    return (workdir / "pan.c").read_text(encoding="latin-1")


def prepare(workdir: Path, pan_c: str, generated: str, spin_dir: Path | None = None) -> None:
    """Write plain.c (SPIN's pan.c), spliced.c (the splice) and the generated file; the other
    files spin wrote (pan.h, pan.t, ...) are copied from spin_dir when that is elsewhere."""
    workdir.mkdir(parents=True, exist_ok=True)
    if spin_dir is not None and spin_dir != workdir:
        for companion in spin_dir.glob("pan.[bhmpt]"):
            shutil.copy(companion, workdir)
    (workdir / "plain.c").write_text(pan_c, encoding="latin-1")
    (workdir / "spliced.c").write_text(splice(pan_c, GENERATED), encoding="latin-1")
    (workdir / GENERATED).write_text(generated)


def compile_pan(workdir: Path, source: str, binary: str, flags) -> Path:
    done = subprocess.run(["gcc", "-O0", "-w", *flags, "-o", binary, source], cwd=workdir,
                          capture_output=True, text=True)
    assert done.returncode == 0, f"gcc {' '.join(flags)} {source}:\n{done.stderr[-3000:]}"
    return workdir / binary


def run_pan(binary: Path, args=(), canon: str = "identity") -> Pan:
    env = dict(os.environ, TOPSPIN_TEST_CANON=canon)
    done = subprocess.run([str(binary), *args], cwd=binary.parent, capture_output=True,
                          text=True, env=env, timeout=120)
    output = done.stdout + done.stderr
    report = parse_pan_output(output)
    counts = dict(stored=report.states_stored, visited=report.states_visited,
                  matched=report.states_matched, transitions=report.transitions,
                  errors=report.errors, depth=report.depth)
    return Pan(counts, output, done.returncode)


def parallel(function, items):
    """Compile in parallel: gcc dominates these tests."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(function, items))


def build_modes(workdir: Path, modes: dict, sources=("plain", "patched", "sym")) -> dict:
    """Compile each wanted build for each mode: {(mode, build): binary}."""
    recipe = {"plain": ("plain.c", ()), "patched": ("spliced.c", ()),
              "sym": ("spliced.c", (f"-D{SYM_MACRO}", f"-D{CHECK_MACRO}"))}
    jobs = [(mode, build) for mode in modes for build in sources]

    def one(job):
        mode, build = job
        source, extra = recipe[build]
        return compile_pan(workdir, source, f"pan_{build}_{mode}", (*extra, *modes[mode]))

    return dict(zip(jobs, parallel(one, jobs)))


@pytest.fixture(scope="module")
def toggle_dir(tmp_path_factory) -> Path:
    workdir = tmp_path_factory.mktemp("toggle")
    spin_a(workdir, "toggle.pml", TOGGLE)
    return workdir


@pytest.fixture
def toggle_pan_c(toggle_dir) -> str:
    return (toggle_dir / "pan.c").read_text(encoding="latin-1")


# ------------------------------------------------------------------------ the text of the patch

def test_patch_points_and_header(toggle_pan_c):
    result = splice_pan_c(toggle_pan_c, GENERATED)
    assert result.spin_version == "6.5.2"
    assert result.macro == SYM_MACRO == "TOPSPIN_SYM"
    assert {site.point: len(site.lines) for site in result.sites} == {
        "h_store(&now)": 3, "b_store(&now)": 7, "g_store(&now)": 4,
        "JJ = onstack_now();": 2, "if (onstack_now())": 1,
        "onstack_put();": 1, "onstack_zap();": 2}
    assert result.wrapped == 20
    text = result.text
    assert splice(toggle_pan_c, GENERATED) == text
    # the header directly follows #include "pan.h", the generated file is included last
    lines = text.splitlines()
    assert lines[result.header_line - 1] == '#include "pan.h"'
    assert "topspin-py: symmetry reduction splice" in lines[result.header_line]
    footer = text[text.index("/* ==== topspin-py: symmetry reduction runtime"):]
    assert text.index("/* end of pan.c */") < text.index(footer)
    # the runtime and the canonicaliser are compiled for a reduced pan and for the symmetry check's
    assert footer.startswith(f"/* ==== topspin-py: symmetry reduction runtime and canonicaliser ==== */\n"
                             f"#if defined({SYM_MACRO}) || defined({OBSERVE_MACRO})\n")
    assert f'#include "{GENERATED}"\n' in footer and footer.rstrip().endswith(f"#endif /* {SYM_MACRO} */")
    # the report's first line is followed by ours (on or off)
    assert result.report_line == toggle_pan_c[:toggle_pan_c.index('printf("\\n(%s)\\n", SpinVersion)')].count("\n") + 1
    assert '\tTOPSPIN_REPORT(printf("\\n(%s)\\n", SpinVersion));' in text
    # pan's own replay is preceded by the lasso hook (pan/lasso.py)
    assert "\tTOPSPIN_REPLAY(if (readtrail) getrail()); /* no return */" in text
    # every wrapped call reads the same as before inside its wrapper
    assert "II = TOPSPIN_STORE(h_store((char *)&now, vsize));" in text
    assert "#define onstack_zap()\tTOPSPIN_STORE(g_store((char *) &now, vsize, 4))" in text
    assert "if (!TOPSPIN_STORE(b_store((char *)&now, vsize)))" in text
    assert "JJ = TOPSPIN_STACK_TEST(onstack_now());" in text
    assert re.search(r"^\s*TOPSPIN_STACK_OP\(onstack_zap\(\)\);$", text, re.M)
    # nothing else changed: without the header, the footer and the wrappers it is SPIN's pan.c
    header_end = "/* ==== end of the topspin-py splice header ==== */\n"
    unwrapped = (text[:text.index("\n", text.index('#include "pan.h"')) + 1]
                 + text[text.index(header_end) + len(header_end):
                        text.index("/* ==== topspin-py: symmetry reduction runtime")])
    call = r"[a-z_]+\((?:[^()]|\([^()]*\))*\)"     # onstack_now(), h_store((char *)&now, vsize)
    unwrapped = re.sub(rf"TOPSPIN_(?:STORE|STACK_TEST|STACK_OP|REPORT)\(({call})\)", r"\1", unwrapped)
    unwrapped = unwrapped.replace("TOPSPIN_REPLAY(if (readtrail) getrail());", "if (readtrail) getrail();")
    # before pan.p, the wraps of its stores (PAN_P_POINT)
    assert "#define h_store(v, n)\tTOPSPIN_STORE(h_store(v, n))" in text
    wraps = unwrapped[unwrapped.index("\t#ifdef TOPSPIN_SYM\t/* topspin-py: pan.p"):
                      unwrapped.index('\t#include "pan.p"')]
    unwrapped = unwrapped.replace(wraps, "")
    assert unwrapped == toggle_pan_c


def test_the_runtime_and_templates_are_spliced_in(toggle_pan_c):
    text = splice(toggle_pan_c, "sub/dir/gen.c")
    assert '#include "sub/dir/gen.c"' in text
    for name in ("topspin_canon_begin", "topspin_canon_end", "topspin_state_cmp",
                 "topspin_state_copy", "topspin_canonicalise"):
        assert f"{name}(" in text
    # the C runtime comes after all of pan.c, inside the macro
    assert text.index("topspin_canon_begin(void)\n{") > text.index("h_store(char *vin, int nin)")
    with pytest.raises(ValueError):
        splice(toggle_pan_c, 'bad".c')


def test_wrong_version_banner_is_refused(toggle_pan_c):
    other = toggle_pan_c.replace(SUPPORTED_BANNER,
                                 "/*** Generated by Spin Version 6.5.1 -- 20 December 2019 ***/")
    with pytest.raises(SpliceError) as info:
        splice(other, GENERATED)
    assert isinstance(info.value, ToolchainError)
    assert "SPIN 6.5.1" in info.value.message and "6.5.2" in info.value.message
    assert "6.5.2" in (info.value.hint or "")
    with pytest.raises(SpliceError, match="does not start with SPIN's banner"):
        splice("/* not pan.c */\n" + toggle_pan_c, GENERATED)
    assert spin_version(toggle_pan_c) == "6.5.2"


@pytest.mark.parametrize("old, new, message", [
    # one h_store written differently: the strict pattern finds 2 of 3
    ("\t\t\tII = h_store((char *)&now, vsize);", "\t\t\tII = h_store((char*)&now, vsize);",
     r"patch point 'h_store\(&now\)' .* found 2 times in pan.c, expected 3"),
    # a b_store too many
    ("\t\t\tII = b_store((char *)&now, vsize);\n\t\t\tJJ = II;",
     "\t\t\tII = b_store((char *)&now, vsize);\n"
     "\t\t\tII = b_store((char *)&now, vsize);\n\t\t\tJJ = II;",
     r"patch point 'b_store\(&now\)' .* found 8 times in pan.c, expected 7"),
    ("\t\t\tonstack_zap();\n#ifndef NOREDUCE", "\t\t\t/* gone */\n#ifndef NOREDUCE",
     r"patch point 'onstack_zap\(\);' .* found 1 times in pan.c, expected 2"),
    ("#include \"pan.h\"\n", "#include \"pan.h\"\n#include \"pan.h\"\n",
     r"'#include \"pan.h\"' found 2 times in pan.c, expected 1"),
], ids=["h_store-respelt", "b_store-extra", "onstack_zap-missing", "pan.h-twice"])
def test_wrong_pattern_count_is_refused(toggle_pan_c, old, new, message):
    assert toggle_pan_c.count(old) == 1, old
    with pytest.raises(SpliceError, match=message) as info:
        splice(toggle_pan_c.replace(old, new), GENERATED)
    assert isinstance(info.value, ToolchainError)


def test_unaccounted_store_call_is_refused(toggle_pan_c):
    # the strict patterns still count right, but a fourth h_store(&now) hides in other spelling
    edited = toggle_pan_c.replace("#include \"pan.h\"\n", "#include \"pan.h\"\n"
                                  "#define STORE_AGAIN() h_store( (char *) &now, vsize )\n")
    with pytest.raises(SpliceError, match=r"found 1 use\(s\) of h_store, b_store or g_store in "
                                          r"pan.c that no patch point accounts for") as info:
        splice(edited, GENERATED)
    include_line = toggle_pan_c[:toggle_pan_c.index('#include "pan.h"')].count("\n") + 1
    assert info.value.detail is not None
    assert f"at lines: {include_line + 1}\n" in info.value.detail


def test_already_spliced_is_refused(toggle_pan_c):
    with pytest.raises(SpliceError, match="already spliced"):
        splice(splice(toggle_pan_c, GENERATED), GENERATED)


def test_splice_file_in_place(tmp_path, toggle_pan_c):
    (tmp_path / "pan.c").write_text(toggle_pan_c)
    result = splice_file(tmp_path / "pan.c", GENERATED)
    assert (tmp_path / "pan.c").read_text() == result.text


def _splices(models, workdir: Path) -> None:
    for number, model in enumerate(models):
        pan_c = spin_a(workdir / str(number), model.name, source=model)
        assert splice_pan_c(pan_c, GENERATED).wrapped == sum(p.expected for p in PATCH_POINTS)


def test_every_test_model_splices(tmp_path):
    _splices(sorted(MODELS.glob("*.pml")), tmp_path)


def test_every_corpus_model_splices(corpus, tmp_path):
    _splices(corpus_files(), tmp_path)


# ------------------------------------------------------- without the macro: the same program

@pytest.mark.parametrize("mode", [*MODES, *MORE_MODES])
def test_without_the_macro_the_preprocessed_program_is_the_original(tmp_path, toggle_dir,
                                                                    toggle_pan_c, mode):
    flags = {**MODES, **MORE_MODES}[mode]
    prepare(tmp_path, toggle_pan_c, IDENTITY, toggle_dir)

    def preprocessed(source):
        done = subprocess.run(["gcc", "-E", "-P", *flags, source], cwd=tmp_path,
                              capture_output=True, text=True, check=True)
        return "".join(done.stdout.split())   # token-identical up to white space

    # The one addition: pan's report says the reduction is off (the call after its version
    # line, the function's declaration and its definition).  Without them, SPIN's program.
    spliced = preprocessed("spliced.c")
    off_line = "".join(f"{REPORT_PREFIX}off (pan.c built without -D{SYM_MACRO})".split())
    additions = [(re.escape("voidtopspin_report(void);"), ""),
                 # SpinVersion is a macro: the version line as gcc -E spells it
                 (r'\(\(void\)\((printf\("\\n\(%s\)\\n","[^"]*"\))\),topspin_report\(\)\)', r"\1"),
                 (re.escape('voidtopspin_report(void){printf("' + off_line + '\\n");}'), "")]
    for added, original in additions:
        spliced, found = re.subn(added, original, spliced)
        assert found == 1, added
    assert spliced == preprocessed("plain.c")


# ----------------------------------------------- the same counts, with and without the macro

def _same_counts_everywhere(workdir: Path, modes: dict, pan_args=()) -> dict:
    """Build plain, patched and sym for each mode, run them (sym with the identity), and check
    that they print the same numbers; returns the runs and, under "binaries", the builds."""
    binaries = build_modes(workdir, modes)
    runs: dict = {key: run_pan(binary, pan_args) for key, binary in binaries.items()}
    for mode in modes:
        plain = runs[mode, "plain"]
        assert plain.counts["stored"], plain.output
        assert runs[mode, "patched"].counts == plain.counts, mode
        assert runs[mode, "sym"].counts == plain.counts, (mode, runs[mode, "sym"].output)
        assert runs[mode, "sym"].canonicalisations > 0, mode   # the wrappers were reached
        assert runs[mode, "patched"].canonicalisations == 0
        assert "pan: topspin:" not in runs[mode, "sym"].output   # -DTOPSPIN_CHECK: all well
    runs["binaries"] = binaries
    return runs


def test_toggle_in_every_mode(tmp_path, toggle_dir, toggle_pan_c):
    """Same counts without the macro and with the identity; the orbits with permutations."""
    prepare(tmp_path, toggle_pan_c, CANONICALISER % dict(n=3, permute=TOGGLE_PERMUTE, pids=""),
            toggle_dir)
    modes = {**MODES, **{mode: MORE_MODES[mode] for mode in ("NOCOMP", "BITSTATE+NOREDUCE",
                                                              "BFS+BITSTATE+NOREDUCE")}}
    runs = _same_counts_everywhere(tmp_path, modes)
    for mode in modes:
        plain = runs[mode, "plain"]
        assert plain.counts["stored"] == TOGGLE_PLAIN["states"], mode
        reduced = run_pan(runs["binaries"][mode, "sym"], canon="perm")
        assert reduced.counts["stored"] == TOGGLE_ORBITS["states"], (mode, reduced.output)
        if mode != "BFS":
            assert plain.counts["transitions"] == TOGGLE_PLAIN["transitions"], mode
            assert reduced.counts["transitions"] == TOGGLE_ORBITS["transitions"], mode
        assert reduced.counts["errors"] == 0
        assert "stack incomplete" not in reduced.output   # the bitstate stack saw canonical states
        assert "pan: topspin:" not in reduced.output       # -DTOPSPIN_CHECK found nothing


def test_mutex_with_partial_order_reduction_and_the_nested_search(tmp_path):
    """-a runs the nested DFS (A_Root seed, the on-stack test of the 2nd search); BITSTATE
    without SAFETY keeps the stack in S_Tab, reached through the wrapped onstack_*()."""
    pan_c = spin_a(tmp_path, "mutex.pml", MUTEX)
    prepare(tmp_path, pan_c,
            CANONICALISER % dict(n=3, permute=MUTEX_PERMUTE, pids=RACE_PERMUTE_PIDS))
    modes = {mode: MODES[mode] for mode in ("default", "NOREDUCE", "BITSTATE", "COLLAPSE", "MA")}
    runs = _same_counts_everywhere(tmp_path, modes, pan_args=("-a", "-N", "live"))
    assert runs["default", "plain"].counts["visited"]      # a nested search ran
    reduced = {}
    for mode in modes:
        plain = runs[mode, "plain"]
        assert plain.counts["errors"] == 0
        for args in (("-N", "live"), ("-a", "-N", "live")):
            run = run_pan(runs["binaries"][mode, "sym"], args, canon="perm")
            assert run.counts["errors"] == 0, (mode, args, run.output)
            assert "pan: topspin:" not in run.output and "stack incomplete" not in run.output
            reduced[mode, args[0]] = run.counts
        # three processes: between a sixth and all of the states
        assert plain.counts["stored"] / 6 <= reduced[mode, "-N"]["stored"] < plain.counts["stored"]
        assert reduced[mode, "-a"]["visited"] < plain.counts["visited"], mode
    # every storage mode stores the same orbits (MA counts the states of -a differently, so
    # compare what both searches visited)
    for mode in modes:
        assert reduced[mode, "-N"]["stored"] == reduced["default", "-N"]["stored"], mode
        assert reduced[mode, "-a"]["visited"] == reduced["default", "-a"]["visited"], mode


def test_corpus_models_keep_their_counts(corpus, tmp_path):
    for name, modes in (("topspin/peterson3.p", ("default", "NOREDUCE", "BITSTATE")),
                        ("spin-examples/leader.pml", ("default",))):
        workdir = tmp_path / name.replace("/", "_")
        pan_c = spin_a(workdir, Path(name).name, source=corpus / name)
        prepare(workdir, pan_c, IDENTITY)
        _same_counts_everywhere(workdir, {mode: MODES[mode] for mode in modes},
                                pan_args=("-m100000",))


def test_model_expectations_hold_with_the_identity_canonicaliser(tmp_path):
    """Every run of tests/models/*.pml (never claims, ltl, -a, -DNP -l, c_code, channels, ...)
    gives the counts its header states when built with the macro and the identity."""
    builds: dict[tuple, list] = {}
    for model in sorted(MODELS.glob("*.pml")):
        for run in read_header(model).runs:
            if "-f" in run.pan:
                continue     # weak fairness is refused: see test_weak_fairness_is_refused...
            builds.setdefault((model, run.defines, run.flags), []).append(run)
    assert sum(map(len, builds.values())) > 20

    def one(build):
        model, defines, flags = build
        workdir = tmp_path / f"{model.stem}_{abs(hash(build))}"
        pan_c = spin_a(workdir, model.name, source=model, defines=defines)
        prepare(workdir, pan_c, IDENTITY)
        binary = compile_pan(workdir, "spliced.c", "pan", (f"-D{SYM_MACRO}", *flags))
        return [run_pan(binary, run.pan) for run in builds[build]]

    for build, pans in zip(builds, parallel(one, list(builds))):
        for run, pan in zip(builds[build], pans):
            got = dict(states=pan.counts["stored"], transitions=pan.counts["transitions"],
                       matched=pan.counts["matched"], errors=pan.counts["errors"],
                       depth=pan.counts["depth"])
            for key, value in run.counts.items():
                assert got[key] == value, \
                    f"{build[0].name} [{run.label()}] {key}: {got[key]} != {value}"
            assert pan.canonicalisations > 0, build[0].name


# ---------------------------------------------------------------- errors and their trails

@pytest.mark.parametrize("mode", ["default", "NOREDUCE", "BITSTATE", "COLLAPSE", "MA", "BFS"])
def test_assertion_violation_is_found_and_its_trail_replays(tmp_path, mode):
    pan_c = spin_a(tmp_path, "race.pml", RACE)
    prepare(tmp_path, pan_c, CANONICALISER % dict(n=3, permute="", pids=RACE_PERMUTE_PIDS))
    binaries = build_modes(tmp_path, {mode: MODES[mode]}, sources=("plain", "sym"))
    reduced = run_pan(binaries[mode, "sym"], canon="perm")
    assert reduced.counts["errors"] == 1, reduced.output
    assert "pan:1: assertion violated (incs==1)" in reduced.output
    assert reduced.canonicalisations > 0 and "pan: topspin:" not in reduced.output
    replay = subprocess.run(["spin", "-t", "-p", "race.pml"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert "spin: race.pml:6, Error: assertion violated" in replay.stdout, replay.stdout[-2000:]
    assert "spin: trail ends after" in replay.stdout
    if mode in ("NOREDUCE", "BFS"):
        # all errors (-c0): the reduced search stores fewer states than the plain one
        everything = run_pan(binaries[mode, "sym"], ("-c0",), canon="perm")
        plain = run_pan(binaries[mode, "plain"], ("-c0",))
        assert everything.counts["stored"] < plain.counts["stored"]


# ---------------------------------------------------------------- what the splice refuses

@pytest.mark.parametrize("flags, message", [
    (("-DTRIX",), "-DTRIX"),
    (("-DBFS", "-DBITSTATE"), "needs -DNOREDUCE"),
    (("-DBFS_PAR", "-DSAFETY", "-DBITSTATE"), "needs -DNOREDUCE"),   # (pan.h: BFS_PAR defines BFS)
    (("-DBFS_PAR",), "-DBFS_PAR without -DSAFETY"),
    (("-DBCS",), "-DBCS"),
])
def test_unsupported_configurations_do_not_compile(tmp_path, toggle_dir, toggle_pan_c, flags,
                                                   message):
    prepare(tmp_path, toggle_pan_c, IDENTITY, toggle_dir)
    done = subprocess.run(["gcc", "-fsyntax-only", "-w", f"-D{SYM_MACRO}", *flags, "spliced.c"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0
    assert f"#error \"{SYM_MACRO}: " in done.stderr and message in done.stderr
    # the same flags without the macro: no complaint from the splice
    done = subprocess.run(["gcc", "-fsyntax-only", "-w", *flags, "spliced.c"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert SYM_MACRO not in done.stderr


def test_weak_fairness_is_refused_at_run_time(tmp_path):
    pan_c = spin_a(tmp_path, "mutex.pml", MUTEX)
    prepare(tmp_path, pan_c, IDENTITY)
    binaries = build_modes(tmp_path, {"default": ()}, sources=("patched", "sym"))
    fair = run_pan(binaries["default", "patched"], ("-a", "-f", "-N", "live"))
    assert fair.returncode == 0 and fair.counts["errors"] == 0
    refused = run_pan(binaries["default", "sym"], ("-a", "-f", "-N", "live"))
    assert refused.returncode == 1
    assert "pan: topspin: weak fairness (-f) cannot be combined with symmetry reduction" \
        in refused.output


def test_multi_core_cycle_search_is_refused_at_run_time(tmp_path):
    # Its safety search is supported (tests/pan/test_multicore.py); -a and -l are run-time flags.
    pan_c = spin_a(tmp_path, "mutex.pml", MUTEX)
    prepare(tmp_path, pan_c, IDENTITY)
    binaries = build_modes(tmp_path, {"ncore": ("-DNCORE=2",)}, sources=("patched", "sym"))
    refused = run_pan(binaries["ncore", "sym"], ("-a", "-N", "live"))
    assert refused.returncode == 1
    assert "multi-core cycle search (-DNCORE>1 with -a or -l) cannot be combined with symmetry " \
           "reduction" in refused.output


def test_pan_p_is_checked(toggle_dir):
    pan_p = (toggle_dir / "pan.p").read_text(encoding="latin-1")
    check_pan_p(pan_p)   # SPIN 6.5.2's: its stores of `now` are where the wraps expect them
    with pytest.raises(SpliceError, match="does not account for"):
        check_pan_p(pan_p + "\nvoid extra(void) { (void) h_store((char *) &A_Root, vsize); }\n")
    with pytest.raises(SpliceError, match="found 1 times in pan.p, expected 2"):
        check_pan_p(pan_p.replace("if (!bfs_do_store((char *)&now, vsize))", "if (!seen())", 1))


@pytest.mark.parametrize("body, complaint", [
    ("((P0 *) pptr(BASE))->_pid = 7;", "changed a masked byte"),
    ("now.val[0] = (now.val[0] + 1) % 3;", "not idempotent"),
])
def test_check_macro_catches_a_broken_canonicaliser(tmp_path, toggle_dir, toggle_pan_c, body,
                                                    complaint):
    prepare(tmp_path, toggle_pan_c, f"void topspin_canonicalise(void) {{ {body} }}\n", toggle_dir)
    binary = compile_pan(tmp_path, "spliced.c", "pan", (f"-D{SYM_MACRO}", f"-D{CHECK_MACRO}"))
    broken = run_pan(binary)
    assert broken.returncode == 1
    assert "pan: topspin: canonicaliser" in broken.output and complaint in broken.output

