"""Build SPIN's spliced pan.c as a shared library that cffi loads, to test the generated
canonicaliser on states from the real state space (tests/codegen/test_canonicaliser.py).

How the library is made
-----------------------
The pan.c that ``spin -a`` writes is spliced by the product's own ``pan.splice`` exactly as
``topspin-py verify`` does it, except that the file #included at its end is not the generated
canonicaliser but a *harness*, ``ts_harness.c`` (written here), which #includes the generated
file itself.  Everything is one translation unit, so the harness sees pan.c's globals (``now``,
``vsize``, ``Mask``, ``proc_offset[]``, ``q_offset[]``) and pan.h's structs by name.  The harness

* renames the generated ``topspin_canonicalise`` (``#define topspin_canonicalise
  ts_h_strategy_canonicalise`` around the #include) and defines ``topspin_canonicalise`` itself:
  in *canonicalise* mode it calls the strategy's function, in *capture* mode it records ``now``
  and leaves it as it is.  The splice calls ``topspin_canonicalise()`` from every store of the
  state (``topspin_canon_begin()``), so in capture mode pan runs its ordinary unreduced search
  and the harness sees every state pan stores; it writes each one once (a hash set over the
  bytes pan compares, i.e. with the bytes that ``Mask`` drops zeroed) to a file, with the
  *context* pan had at that moment: ``vsize``, all of ``proc_offset[]`` and ``q_offset[]`` and
  ``Mask[0..vsize)``.  Those tables are all the canonicaliser may read besides ``now``
  (c_runtime/topspin_runtime.h), and they change as processes and channels are created.
* exports (``-fvisibility=hidden`` keeps every pan.c name private to its library, so several
  libraries coexist in one process) a small API: set a captured context, canonicalise a batch
  of states, apply a group element to a batch of states, zero the masked bytes, and run pan's
  own ``main`` (compiled as ``pan_main`` with ``-Dmain=pan_main``).
* contains a *group action* of its own (:func:`action_source`): the C that applies a
  permutation of pids and channel ids to a state, written here from the StateLayout's names and
  not from the product's templates, so that a bug in the generated code is not repeated by the
  oracle.  It moves live processes and channels only, checks that a slot only ever receives a
  process of its own proctype and a queue of its own size, and reports what it cannot do.
  Pids with an offset (a ref of [DG01] holds a local id: v names pid v + k) are renamed as
  such, and a pid-indexed array with an offset (a public variable, ``v[_pid - k]``) moves
  element i, pid i + k's, to element P[i + k] - k.

pan's ``main`` ends with ``exit()``, so the search runs in a child Python process that loads
the library, switches capture mode on and calls ``pan_main``
(:func:`run_pan_in_library`); the parent then loads the same library with cffi and replays
each captured state with its context.  The captured set is checked against pan's own count of
stored states, so the tests know they hold the whole reachable state space.
"""

from __future__ import annotations

import itertools
import re
import shutil
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import cffi
import clvalues

from topspin_py.codegen.render import render_canonicaliser
from topspin_py.layout.statevector import CHAN, PID, StateLayout, ValueField, read_layout
from topspin_py.pan import flags as panflags
from topspin_py.pan import loading, toolchain
from topspin_py.pan.splice import SYM_MACRO, splice_file
from topspin_py.promela import ast
from topspin_py.promela.model import Model, load_model
from topspin_py.symmetry.detect import Group, detect
from topspin_py.symmetry.kinds import GlobalSlot

HARNESS = "ts_harness.c"
GENERATED = "topspin_sym.c"
LIBRARY_FLAGS = ("-O1", "-w", "-shared", "-fPIC", "-fvisibility=hidden", "-Dmain=pan_main")

# Return codes of the harness's group action (ts_h_act_many), by meaning.
VSIZE_CHANGED, HEADER_CHANGED = 1, 2   # status bits of ts_h_canon_many
ACTION_ERRORS = {
    -1: "a live process would move to a slot that holds no process or another proctype",
    -2: "a live channel would move to a channel id that does not exist or has another size",
    -3: "a pid-indexed array is shorter than the pids the element moves",
}

_CDEF = """
int ts_h_vectorsz(void);
int ts_h_maxproc(void);
int ts_h_maxq(void);
unsigned long ts_h_vsize(void);
void ts_h_set_context(unsigned long vsize, const int *po, const int *qo, const unsigned char *mask);
void ts_h_canon_many(const unsigned char *in, unsigned char *out, long n, int fill, int *status);
int ts_h_act_many(const short *P, const short *C, const unsigned char *in, unsigned char *out, long n);
void ts_h_keys(const unsigned char *in, unsigned char *out, long n);
int ts_h_pids(void);
int ts_h_chans(void);
int ts_h_processes(const unsigned char *state);
"""


# ----------------------------------------------------------------------------- preparation


@dataclass
class Prepared:
    """A model after ``spin -a``: its pan sources in ``source_dir``, the Model, the detected
    group, the StateLayout for the compile flags, and those flags."""

    name: str
    source_dir: Path
    model: Model
    group: Group
    layout: StateLayout
    flags: list[str]

    @property
    def n_pids(self) -> int:
        return max((p.pid for p in self.layout.processes), default=-1) + 1

    @property
    def n_chans(self) -> int:
        return max((c.id for c in self.layout.channels), default=0)

    def images(self, perm) -> tuple[list[int], list[int]]:
        """The pid and channel images of a group element (a sympy Permutation), as the
        harness's action takes them: P[0..n_pids), C[0..n_chans] (C[0] for the null channel)."""
        alpha = self.group.alpha(perm)
        pids = [alpha.pid(p) for p in range(max(self.n_pids, 1))]
        chans = [0] + [alpha.chan(c) for c in range(1, self.n_chans + 1)]
        return pids, chans


def prepare(model_path: Path, workdir: Path, defines: tuple[str, ...]) -> Prepared:
    """spin -a into ``workdir / 'spin'``, detect the group, read the layout (as verify does).
    A model written with the ref/public extension ([DG01]) is given to spin as its desugared
    program, with -o1 (toolchain.spin_source and spin_command), and its group is the one it
    declares; with -o1 pan resets no dead local, which the Model is told, as verify tells it."""
    source_dir = workdir / "spin"
    source_dir.mkdir(parents=True)
    tools = toolchain.find_toolchain()
    model = load_model(model_path, defines)
    source = toolchain.spin_source(model_path, model, source_dir)
    toolchain.generate_pan(tools, source, str(model_path), list(defines), source_dir)
    if model.spin_text is not None:
        model = loading.as_checked_by(model, source_dir)
    group = detect(model)
    sources = {p.name: p.read_text(errors="replace") for p in source_dir.glob("pan.[chbmpt]")}
    flags = list(panflags.choose_compile_flags(
        list(defines), [], panflags.pan_h_declares_claim(sources["pan.h"]),
        panflags.pan_option_names(sources.values())).flags)
    layout = read_layout(source_dir, group.model, group.types, flags=flags)
    return Prepared(model_path.name, source_dir, model, group, layout, flags)


# ----------------------------------------------------------------------------- the group action


def _static_channel_globals(model: Model) -> set[str]:
    """Globals declared with a channel initialiser: they name one static channel for ever, and a
    permutation renames the name in the text, not the value in the state."""
    return {v.name for v in model.globals if isinstance(v.init, ast.ChanInit)}


def _rename(f: ValueField, lvalue: str) -> str:
    if f.holds == PID and f.offset:
        # pids with an offset k (a ref's local id, symmetry/inference/): v names pid v + k
        return f"{lvalue} = ts_h_lid(P, {lvalue}, {f.offset});"
    mapping = "ts_h_pid(P, " if f.holds == PID else "ts_h_chan(C, "
    return f"{lvalue} = {mapping}{lvalue});"


def _indexed_lvalues(f: ValueField, prefix: str, last: str) -> list[str]:
    """Every lvalue of ``f`` whose last array index is the C expression ``last``."""
    outer = [range(m.length) for m in f.path[:-1] if m.length is not None]
    return [clvalues.lvalue(f, prefix, [*combo, last]) for combo in itertools.product(*outer)]


def _permute_array(f: ValueField, dst: str, src: str) -> list[str]:
    """Element i of a pid-indexed array goes to element P[i]; with an index offset k
    (``v[_pid - k]``, a public variable of [DG01]), element i belongs to pid i + k and goes
    to element P[i + k] - k, and an element of no pid stays."""
    length, k = f.path[-1].length, f.index_offset
    image = f"P[i + {k}] - {k}"
    lines = [f"for (i = 0; i < {length}; i++)",
             "{",
             f"\tif (i + {k} < 0 || i + {k} >= TS_H_PIDS) continue;",
             f"\tif ({image} < 0 || {image} >= {length}) return -3;"]
    for to, source in zip(_indexed_lvalues(f, dst, image), _indexed_lvalues(f, src, "i")):
        lines.append(f"\t{to} = {source};")
    return lines + ["}"]


def action_source(prepared: Prepared) -> str:
    """C for ``static int ts_h_act(P, C, src, dst)``: ``dst`` = the state ``src`` with pid p
    renamed P[p] and channel id c renamed C[c].  Written from the StateLayout's names, not from
    the product's templates (the oracle must not share the generated code's mistakes)."""
    layout = prepared.layout
    body: list[str] = ["memcpy(d, s, vsize);", "/* processes move to the slot of their image */"]
    for proc in layout.processes:
        st = proc.struct
        src_proc = f"(({st} *) (s + proc_offset[{proc.slot}]))"
        dst_proc = f"(({st} *) (d + proc_offset[to]))"
        body += [
            f"if ({proc.slot} < src->_nr_pr)",
            "{\tint to = P[" + str(proc.pid) + "] + BASE;",
            "\tif (to >= src->_nr_pr || ((P0 *) (s + proc_offset[to]))->_t != "
            f"((P0 *) (s + proc_offset[{proc.slot}]))->_t) return -1;",
            f"\tmemcpy(d + proc_offset[to], s + proc_offset[{proc.slot}], sizeof({st}));",
            f"\t{dst_proc}->_pid = P[{proc.pid}];",
        ]
        for f in layout.proctypes[proc.proctype].fields:
            if f.pid_indexed:
                body += ["\t" + line for line in _permute_array(f, f"{dst_proc}->", f"{src_proc}->")]
        body.append("}")
    body.append("/* channels move; each slot keeps its own queue type _t */")
    for chan in layout.channels:
        body += [
            f"if ({chan.id} <= src->_nr_qs)",
            "{\tint to = C[" + str(chan.id) + "];",
            f"\tif (to < 1 || to > src->_nr_qs || ts_h_qsize[to] != sizeof({chan.struct})) return -2;",
            f"\tmemcpy(d + q_offset[to - 1], s + q_offset[{chan.id} - 1], sizeof({chan.struct}));",
            "\t((Q0 *) (d + q_offset[to - 1]))->_t = ((Q0 *) (s + q_offset[to - 1]))->_t;",
            "}",
        ]
    # A global declared with a channel initialiser names its static channel for ever (an
    # array of them, one per instance: a public channel of [DG01], `chan c[N] = ...`): the
    # channels move, the names neither move nor are renamed.
    static = _static_channel_globals(prepared.model)
    body.append("/* arrays indexed by pid */")
    for f in layout.globals:
        if f.pid_indexed and f.in_state_vector and not (isinstance(f.source, GlobalSlot) and f.source.name in static):
            body += _permute_array(f, "dst->", "src->")
    body.append("/* values that are pids or channel ids */")
    for f in layout.state_fields:
        if f.holds in (PID, CHAN) and not (isinstance(f.source, GlobalSlot) and f.source.name in static):
            body += [_rename(f, lvalue) for lvalue in clvalues.lvalues(f, "dst->")]
    for proc in layout.processes:
        fields = [f for f in layout.proctypes[proc.proctype].fields if f.holds in (PID, CHAN)]
        if fields:
            body.append(f"if ({proc.slot} < src->_nr_pr)")
            body.append("{")
            for f in fields:
                prefix = f"(({proc.struct} *) (d + proc_offset[{proc.slot}]))->"
                body += ["\t" + _rename(f, lvalue) for lvalue in clvalues.lvalues(f, prefix)]
            body.append("}")
    if prepared.group.moves_values:
        raise NotImplementedError("the harness's own action renames pids and channel ids only, "
                                  "not the values of a scalar domain")
    for chan in layout.channels:
        # (a message field of a scalar domain the group does not move keeps its values)
        fields = [f for f in layout.channel_types[chan.struct].value_fields if f.holds in (PID, CHAN)]
        if fields:
            capacity = layout.channel_types[chan.struct].capacity
            body += [f"if ({chan.id} <= src->_nr_qs)",
                     f"{{\t{chan.struct} *q = ({chan.struct} *) (d + q_offset[{chan.id} - 1]);",
                     f"\tfor (j = 0; j < q->Qlen && j < {capacity}; j++)",
                     "\t{"]
            for f in fields:
                body += ["\t\t" + _rename(f, lvalue) for lvalue in _indexed_message(f)]
            body += ["\t}", "}"]
    body.append("return 0;")
    qsizes = ["0"] * (prepared.n_chans + 1)
    for chan in layout.channels:
        qsizes[chan.id] = f"sizeof({chan.struct})"
    return "\n".join([
        f"#define TS_H_PIDS {max(prepared.n_pids, 1)}",
        f"#define TS_H_CHANS {prepared.n_chans}",
        f"static const size_t ts_h_qsize[TS_H_CHANS + 1] = {{ {', '.join(qsizes)} }};",
        "static int ts_h_pid(const short *P, int v) { return (v >= 0 && v < TS_H_PIDS) ? P[v] : v; }",
        "static int ts_h_lid(const short *P, int v, int k) "
        "{ return (v + k >= 0 && v + k < TS_H_PIDS) ? P[v + k] - k : v; }",
        "static int ts_h_chan(const short *C, int v) { return (v > 0 && v <= TS_H_CHANS) ? C[v] : v; }",
        "static int",
        "ts_h_act(const short *P, const short *C, const State *src, State *dst)",
        "{\tconst uchar *s = (const uchar *) src; uchar *d = (uchar *) dst;",
        "\tint i, j; (void) i; (void) j; (void) s; (void) C;",
        *("\t" + line for line in body),
        "}",
    ])


def _indexed_message(f: ValueField) -> list[str]:
    """contents[j].fldN (and every element of arrays inside a message field)."""
    prefix = "q->"
    inner = [range(m.length) for m in f.path[1:] if m.length is not None]
    return [clvalues.lvalue(f, prefix, ["j", *combo]) for combo in itertools.product(*inner)]


# ----------------------------------------------------------------------------- the harness


_HARNESS = r"""/* ts_harness.c -- written by tests/support/cbuild.py; #included at the end of the spliced
 * pan.c in place of the generated canonicaliser, which it #includes itself.  See tests/support/cbuild.py. */
#include <stdio.h>
#include <stdlib.h>
#define TS_H_API __attribute__((visibility("default")))

#define topspin_canonicalise ts_h_strategy_canonicalise
#include "@GENERATED@"
#undef topspin_canonicalise

@ACTION@

static int ts_h_mode;		/* 0: the strategy's canonicaliser; 1: capture, leave `now` as is */
static FILE *ts_h_file;

/* The states already written: a chained hash set over (vsize, the bytes pan compares). */
typedef struct ts_h_entry { struct ts_h_entry *next; unsigned long long hash; ulong len; uchar key[]; } ts_h_entry;
#define TS_H_BUCKETS (1 << 20)
static ts_h_entry **ts_h_table;
static uchar ts_h_key[VECTORSZ];

static int
ts_h_seen(const uchar *key, ulong len)
{	unsigned long long h = 1469598103934665603ULL ^ len;
	ulong i; ts_h_entry *e;
	for (i = 0; i < len; i++) { h ^= key[i]; h *= 1099511628211ULL; }
	if (!ts_h_table) ts_h_table = calloc(TS_H_BUCKETS, sizeof(ts_h_entry *));
	for (e = ts_h_table[h % TS_H_BUCKETS]; e; e = e->next)
	{	if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0) return 1;
	}
	e = malloc(sizeof(ts_h_entry) + len);
	e->hash = h; e->len = len; memcpy(e->key, key, len);
	e->next = ts_h_table[h % TS_H_BUCKETS]; ts_h_table[h % TS_H_BUCKETS] = e;
	return 0;
}

static void
ts_h_masked(const uchar *in, uchar *out, ulong n)
{	ulong i;
	for (i = 0; i < n; i++) out[i] = Mask[i] ? 0 : in[i];
}

/* The context last written to the file. */
static int ts_h_have_context;
static ulong ts_h_ctx_vsize;
static int ts_h_ctx_po[MAXPROC], ts_h_ctx_qo[MAXQ];
static uchar ts_h_ctx_mask[VECTORSZ];

static void
ts_h_put_int(long v)
{	int x = (int) v;
	fwrite(&x, sizeof x, 1, ts_h_file);
}

static void
ts_h_record(void)
{	int i, changed = !ts_h_have_context || ts_h_ctx_vsize != vsize;
	ts_h_masked((uchar *) &now, ts_h_key, vsize);
	if (ts_h_seen(ts_h_key, vsize)) return;
	for (i = 0; i < MAXPROC; i++)
		if (ts_h_ctx_po[i] != (int) proc_offset[i]) { changed = 1; ts_h_ctx_po[i] = proc_offset[i]; }
	for (i = 0; i < MAXQ; i++) if (ts_h_ctx_qo[i] != (int) q_offset[i]) { changed = 1; ts_h_ctx_qo[i] = q_offset[i]; }
	if (memcmp(ts_h_ctx_mask, Mask, vsize) != 0) { changed = 1; memcpy(ts_h_ctx_mask, Mask, vsize); }
	if (changed)
	{	ts_h_have_context = 1; ts_h_ctx_vsize = vsize;
		fputc('C', ts_h_file); ts_h_put_int(vsize);
		fwrite(ts_h_ctx_po, sizeof(int), MAXPROC, ts_h_file);
		fwrite(ts_h_ctx_qo, sizeof(int), MAXQ, ts_h_file);
		fwrite(ts_h_ctx_mask, 1, vsize, ts_h_file);
	}
	fputc('S', ts_h_file); ts_h_put_int(vsize);
	fwrite((uchar *) &now, 1, vsize, ts_h_file);
}

void
topspin_canonicalise(void)
{	if (ts_h_mode) { ts_h_record(); return; }
	ts_h_strategy_canonicalise();
}

/* ---- the API ---- */
TS_H_API int ts_h_vectorsz(void) { return (int) sizeof(State); }
TS_H_API int ts_h_maxproc(void) { return MAXPROC; }
TS_H_API int ts_h_maxq(void) { return MAXQ; }
TS_H_API unsigned long ts_h_vsize(void) { return vsize; }
TS_H_API int ts_h_pids(void) { return TS_H_PIDS; }
TS_H_API int ts_h_chans(void) { return TS_H_CHANS; }

/* Capture mode: write every state pan stores, once, to `path`. */
TS_H_API int
ts_h_capture(const char *path)
{	ts_h_file = fopen(path, "wb");
	if (!ts_h_file) return -1;
	fwrite("TSH1", 1, 4, ts_h_file);
	ts_h_put_int(MAXPROC); ts_h_put_int(MAXQ);
	ts_h_mode = 1;
	return 0;
}

TS_H_API int
ts_h_run(int argc, char **argv)
{	return pan_main(argc, argv);
}

/* Restore pan's tables as they were when a captured state was stored. */
TS_H_API void
ts_h_set_context(unsigned long vs, const int *po, const int *qo, const unsigned char *mask)
{	int i;
	vsize = vs;
	for (i = 0; i < MAXPROC; i++) proc_offset[i] = po[i];
	for (i = 0; i < MAXQ; i++) q_offset[i] = qo[i];
	memcpy(Mask, mask, vs);
}

/* Canonicalise n states of the current context's vsize, each copied into `now` over a
 * background of `fill` bytes.  status[k]: TS_H_VSIZE if the canonicaliser changed vsize,
 * TS_H_HEADER if it changed the header of the state vector (c_runtime/topspin_runtime.h). */
#define TS_H_VSIZE 1
#define TS_H_HEADER 2
TS_H_API void
ts_h_canon_many(const unsigned char *in, unsigned char *out, long n, int fill, int *status)
{	long k; ulong vs = vsize;
	ts_h_mode = 0;
	for (k = 0; k < n; k++)
	{	uchar nr_pr, nr_qs, a_t;
#ifndef NOVSZ
		ulong vsz;
#endif
		memset((char *) &now, fill, sizeof(State));
		memcpy((char *) &now, in + k * vs, vs);
		nr_pr = now._nr_pr; nr_qs = now._nr_qs; a_t = now._a_t;
#ifndef NOVSZ
		vsz = now._vsz;
#endif
		topspin_canonicalise();
		status[k] = 0;
		if (vsize != vs) { status[k] |= TS_H_VSIZE; vsize = vs; }
		if (now._nr_pr != nr_pr || now._nr_qs != nr_qs || now._a_t != a_t
#ifndef NOVSZ
		||  now._vsz != vsz
#endif
		)
		{	status[k] |= TS_H_HEADER;
		}
		memcpy(out + k * vs, (char *) &now, vs);
	}
}

/* Apply one group element to n states; 0, or the first error of ts_h_act(). */
TS_H_API int
ts_h_act_many(const short *P, const short *C, const unsigned char *in, unsigned char *out, long n)
{	static State src, dst;
	long k; ulong vs = vsize; int rc;
	for (k = 0; k < n; k++)
	{	memcpy((char *) &src, in + k * vs, vs);
		memcpy((char *) &dst, in + k * vs, vs);
		if ((rc = ts_h_act(P, C, &src, &dst)) != 0) return rc;
		memcpy(out + k * vs, (char *) &dst, vs);
	}
	return 0;
}

/* How many processes a state holds (_nr_pr). */
TS_H_API int ts_h_processes(const unsigned char *state) { return ((const State *) state)->_nr_pr; }

/* The bytes pan compares: the masked ones zeroed. */
TS_H_API void
ts_h_keys(const unsigned char *in, unsigned char *out, long n)
{	long k;
	for (k = 0; k < n; k++) ts_h_masked(in + k * vsize, out + k * vsize, vsize);
}
"""


def harness_source(prepared: Prepared) -> str:
    return _HARNESS.replace("@GENERATED@", GENERATED).replace("@ACTION@", action_source(prepared))


def build_library(prepared: Prepared, strategy: str, outdir: Path,
                  mutate: Callable[[str], str] | None = None) -> Path:
    """The spliced pan.c with the harness and ``strategy``'s canonicaliser (passed through
    ``mutate`` first, for planted bugs), compiled as ``outdir / 'libpan.so'``."""
    outdir.mkdir(parents=True)
    for source in prepared.source_dir.glob("pan.*"):
        shutil.copy(source, outdir / source.name)
    generated = render_canonicaliser(prepared.group, prepared.layout, strategy)
    if mutate is not None:
        generated = mutate(generated)
    (outdir / GENERATED).write_text(generated)
    splice_file(outdir / "pan.c", HARNESS)
    (outdir / HARNESS).write_text(harness_source(prepared))
    command = ["gcc", *LIBRARY_FLAGS, *prepared.flags, "-D" + SYM_MACRO, "-o", "libpan.so", "pan.c"]
    done = subprocess.run(command, cwd=outdir, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"gcc failed in {outdir}:\n{done.stderr[-4000:]}")
    return outdir / "libpan.so"


# ----------------------------------------------------------------------------- running pan


_RUNNER = """
import sys, cffi
ffi = cffi.FFI()
ffi.cdef("int ts_h_capture(const char *path); int ts_h_run(int argc, char **argv);")
lib = ffi.dlopen(sys.argv[1])
if sys.argv[2] != "-" and lib.ts_h_capture(sys.argv[2].encode()) != 0:
    sys.exit("cannot open " + sys.argv[2])
args = [ffi.new("char[]", a.encode()) for a in ["pan", *sys.argv[3:]]]
sys.stdout.flush()
lib.ts_h_run(len(args), ffi.new("char *[]", args + [ffi.NULL]))
"""


def run_pan_in_library(library: Path, pan_args: list[str], capture: Path | None = None) -> str:
    """Run pan's main in a child process that loads ``library``: with ``capture``, an
    unreduced search that writes the states it stores to that file; without, the reduced
    search.  Returns pan's output (it must have reported a complete search)."""
    done = subprocess.run([sys.executable, "-c", _RUNNER, str(library),
                           str(capture) if capture else "-", *pan_args],
                          cwd=library.parent, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    if done.returncode != 0 or "states, stored" not in output:
        raise RuntimeError(f"pan in {library} failed ({done.returncode}):\n{output[-3000:]}")
    if "max search depth too small" in output:
        raise RuntimeError(f"pan's depth limit cut the search short; pass a larger -m\n{output}")
    return output


def stored_states(pan_output: str) -> int:
    found = re.search(r"([\d.e+]+) states, stored", pan_output)
    assert found is not None, "pan reported no states stored"
    return int(float(found.group(1)))


# ----------------------------------------------------------------------------- the state space


@dataclass
class Context:
    """pan's tables when some states were stored."""

    vsize: int
    po: list[int]
    qo: list[int]
    mask: bytes
    states: list[bytes] = field(default_factory=list)


def read_capture(path: Path) -> list[Context]:
    """The contexts and states a capture run wrote, identical contexts merged."""
    data = path.read_bytes()
    if data[:4] != b"TSH1":
        raise ValueError(f"{path} is not a capture file")
    maxproc, maxq = struct.unpack_from("ii", data, 4)
    at = 12
    contexts: dict[tuple, Context] = {}
    current: Context | None = None
    while at < len(data):
        tag = data[at:at + 1]
        (vsize,) = struct.unpack_from("i", data, at + 1)
        at += 5
        if tag == b"C":
            po = list(struct.unpack_from(f"{maxproc}i", data, at))
            at += 4 * maxproc
            qo = list(struct.unpack_from(f"{maxq}i", data, at))
            at += 4 * maxq
            mask = data[at:at + vsize]
            at += vsize
            current = contexts.setdefault((vsize, tuple(po), tuple(qo), mask), Context(vsize, po, qo, mask))
        elif tag == b"S":
            assert current is not None and current.vsize == vsize, "state before its context"
            current.states.append(data[at:at + vsize])
            at += vsize
        else:
            raise ValueError(f"bad record {tag!r} at {at - 5} in {path}")
    return list(contexts.values())


class Library:
    """A harness library loaded with cffi."""

    def __init__(self, path: Path) -> None:
        self.ffi = cffi.FFI()
        self.ffi.cdef(_CDEF)
        self.lib = self.ffi.dlopen(str(path))
        self.path = path
        self._context: Context | None = None

    def use(self, context: Context) -> None:
        """Restore ``context``'s tables (every method below does it when needed)."""
        if context is self._context:
            return
        self._context = context
        ffi = self.ffi
        maxproc, maxq = self.lib.ts_h_maxproc(), self.lib.ts_h_maxq()
        assert len(context.po) == maxproc and len(context.qo) == maxq
        self.lib.ts_h_set_context(context.vsize, ffi.new("int[]", context.po), ffi.new("int[]", context.qo),
                                  ffi.from_buffer("unsigned char[]", context.mask))
        assert self.lib.ts_h_vsize() == context.vsize

    def _batch(self, context: Context, states: list[bytes]) -> tuple[bytes, object, int]:
        self.use(context)
        width = context.vsize
        blob = b"".join(states)
        assert len(blob) == width * len(states)
        return blob, self.ffi.new("unsigned char[]", max(len(blob), 1)), len(states)

    def _split(self, out, n: int, width: int) -> list[bytes]:
        raw = self.ffi.buffer(out, n * width)[:]
        return [raw[i * width:(i + 1) * width] for i in range(n)]

    def canonicalise(self, context: Context, states: list[bytes], fill: int = 0) -> list[bytes]:
        """The strategy's canonical form of each state (of ``context``)."""
        return self.canonicalise_with_status(context, states, fill)[0]

    def canonicalise_with_status(self, context: Context, states: list[bytes],
                                 fill: int = 0) -> tuple[list[bytes], list[int]]:
        """The canonical forms, and for each a status: ``VSIZE_CHANGED | HEADER_CHANGED``
        bits when the canonicaliser changed vsize or the header of the state vector."""
        blob, out, n = self._batch(context, states)
        status = self.ffi.new("int[]", max(n, 1))
        self.lib.ts_h_canon_many(self.ffi.from_buffer("unsigned char[]", blob), out, n, fill, status)
        return self._split(out, n, context.vsize), list(status)[:n]

    def act(self, context: Context, images: tuple[list[int], list[int]], states: list[bytes]) -> list[bytes]:
        """The oracle's image of each state under one group element."""
        pids, chans = images
        assert len(pids) == self.lib.ts_h_pids() and len(chans) == self.lib.ts_h_chans() + 1
        blob, out, n = self._batch(context, states)
        rc = self.lib.ts_h_act_many(self.ffi.new("short[]", pids), self.ffi.new("short[]", chans),
                                    self.ffi.from_buffer("unsigned char[]", blob), out, n)
        if rc != 0:
            raise AssertionError(f"group action: {ACTION_ERRORS.get(rc, rc)}")
        return self._split(out, n, context.vsize)

    def processes(self, state: bytes) -> int:
        """``_nr_pr`` of a state: how many process slots are in use."""
        return self.lib.ts_h_processes(self.ffi.from_buffer("unsigned char[]", state))

    def keys(self, context: Context, states: list[bytes]) -> list[bytes]:
        """The bytes pan compares (the masked ones zeroed)."""
        blob, out, n = self._batch(context, states)
        self.lib.ts_h_keys(self.ffi.from_buffer("unsigned char[]", blob), out, n)
        return self._split(out, n, context.vsize)
