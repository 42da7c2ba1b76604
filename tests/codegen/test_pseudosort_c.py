"""The pseudo-sort examples of Derepas and Gastin [DG01] as unit tests of the generated C,
through cffi.

The `pseudosort` strategy (templates/pseudosort.c.j2) pseudo-sorts pan's state vector ``now``.
Here it meets the two vectors [DG01] works through by hand: the non-sortable state of section
4.1 and the client/server configuration of Fig. 4.  Each lives in a tiny extended model
(tests/models/extension/nonsortable.pml, fig4_clients_servers.pml) whose processes' tuples are
exactly the paper's ``(r, v, _state)``.  The model is desugared and given to spin as verify
does it; its spliced pan.c is built as a harness library (tests/support/cbuild.py) with the generated
canonicaliser, and pan's own unreduced search captures its states, so one real state with pan's
real ``proc_offset[]`` and ``vsize`` is at hand.  Into that state the paper's vector is written
field by field (a process's ref ``r``, its element of the public array ``v``, its program
counter ``_p``) by accessors generated here from the StateLayout's names, the state is
canonicalised by the generated C, and the fields are read back.

Expected values come from the paper and from tests/support/pseudosort_reference.py (the pure-Python
Fig. 3, itself checked against the paper's text in tests/oracles/test_pseudosort_reference.py), never
from the C.  Which encoding the reference must use: the C stores a ref as its instance's lid
(0..n-1, ``_undef_ref`` = 255, the reference's PRODUCT values) but *compares* refs as the paper
does, undefined first and then the instances in order (pseudosort.py; ``ts_relative`` puts 255
before every lid).  The order is the paper's, so the reference sorts in the PAPER encoding and
its result is re-encoded to PRODUCT to be compared with the bytes; sorting in the PRODUCT
encoding would put 255 last and gives another result on section 4.1's state (checked below, so
that the comparison can tell the two orders apart).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from math import factorial, prod
from pathlib import Path

import cbuild
import cffi
import pseudosort_reference as R
import pytest
from conftest import MODELS

from topspin_py.layout.statevector import promela_name, read_layout
from topspin_py.pan import flags as panflags
from topspin_py.pan import loading, toolchain
from topspin_py.promela.model import load_model
from topspin_py.symmetry.detect import detect

SAFETY = ("SAFETY", "NOREDUCE")
EXTENSION = MODELS / "extension"
# The tuple of a process, in the paper's order: the declared ref, the public byte, _state
# (pan's program counter _p, which the C compares last).
TUPLE = ("r", "v", "_p")
SECONDS = 10.0   # far beyond what pseudo-sorting one state takes: a loop that does not end

# Section 4.1, paper encoding (refs 1-based, 0 undefined): from tests/oracles/test_pseudosort_reference.py.
A = R.Schema((R.ProcType("A", 3, {0: "A"}),))
NON_SORTABLE = R.make_state(A, [[(3, 1, 1), (0, 3, 4), (1, 2, 1)]])
# Section 4.2, Fig. 4: clients then servers, each tuple (r, v, _state).
CLIENTS_SERVERS = R.Schema((R.ProcType("Client", 3, {0: "Server"}), R.ProcType("Server", 3, {0: "Client"})))
FIG4 = R.make_state(CLIENTS_SERVERS, [[(2, 1, 2), (3, 2, 3), (1, 3, 4)], [(3, 4, 3), (1, 5, 2), (2, 6, 1)]])


# ----------------------------------------------------------------------------- the library


def _prepare(model_path: Path, workdir: Path) -> cbuild.Prepared:
    """cbuild.prepare for a model written with the ref/public extension: spin reads its
    desugared program, as verify gives it (toolchain.spin_source, spin -o1)."""
    source_dir = workdir / "spin"
    source_dir.mkdir(parents=True)
    model = load_model(model_path, SAFETY)
    source = toolchain.spin_source(model_path, model, workdir)
    assert source != model_path, f"{model_path.name} does not use the ref/public extension"
    toolchain.generate_pan(toolchain.find_toolchain(), source, str(source), list(SAFETY), source_dir)
    model = loading.as_checked_by(model, source_dir)
    group = detect(model)
    sources = {p.name: p.read_text(errors="replace") for p in source_dir.glob("pan.[chbmpt]")}
    flags = list(panflags.choose_compile_flags(
        list(SAFETY), [], panflags.pan_h_declares_claim(sources["pan.h"]),
        panflags.pan_option_names(sources.values())).flags)
    layout = read_layout(source_dir, group.model, group.types, flags=flags)
    return cbuild.Prepared(model_path.name, source_dir, model, group, layout, flags)


@dataclass(frozen=True)
class Place:
    """Where one value of one process's tuple is, in C: ``lvalue`` with ``s`` the state."""

    lvalue: str
    bits: int          # how many bits it holds (8 for a byte, the width of the _p bitfield)


def _places(prepared: cbuild.Prepared, schema: R.Schema) -> dict[tuple[str, int], list[Place]]:
    """For instance k of each proctype of ``schema``: where its r, v and _p are, by the names
    the StateLayout and the desugaring give them (no offset is written here)."""
    model, layout = prepared.model, prepared.layout
    assert model.refs is not None
    places: dict[tuple[str, int], list[Place]] = {}
    for proctype in schema.types:
        sort = model.refs.proctypes[proctype.name]
        assert sort.count == proctype.width, f"{proctype.name}: {sort.count} instances in the model"
        public = next(a.name for a in model.refs.public_arrays if a.owner == proctype.name and a.declared == "v")
        for k in range(sort.count):
            process = layout.process(sort.first_pid + k)
            struct = layout.struct(process.struct)
            ref = next(f for f in struct.fields if promela_name(f.name, {"r"}) == "r")
            pc = struct.field("_p")
            proc = f"(({process.struct} *) (s + proc_offset[{process.slot}]))"
            places[proctype.name, k] = [Place(f"{proc}->{ref.name}", 8),
                                        Place(f"((State *) s)->{public}[{k}]", 8),
                                        Place(f"{proc}->_p", pc.bits or 8)]
    return places


_ACCESS_CDEF = """
int ts_t_get(unsigned char *s, int at);
void ts_t_set(unsigned char *s, int at, int value);
"""


def _accessors(places: list[Place]) -> str:
    """C appended to the generated canonicaliser (one translation unit with pan.c, so pan.h's
    structs and ``proc_offset[]`` are in scope): read and write place ``at`` of the list in the
    state ``s``, with the proc_offset[] of the context the harness was last given."""
    get = "\n".join(f"\tcase {i}: return {p.lvalue};" for i, p in enumerate(places))
    put = "\n".join(f"\tcase {i}: {p.lvalue} = value; break;" for i, p in enumerate(places))
    return f"""
/* ---- tests/codegen/test_pseudosort_c.py: the fields of the paper's tuples, by name ---- */
__attribute__((visibility("default"))) int
ts_t_get(unsigned char *s, int at)
{{	switch (at)
	{{
{get}
	}}
	return -1;
}}
__attribute__((visibility("default"))) void
ts_t_set(unsigned char *s, int at, int value)
{{	switch (at)
	{{
{put}
	}}
}}
"""


@dataclass
class Bench:
    """A model's harness library with the generated pseudosort C, one captured state of it, and
    the accessors of its tuples."""

    prepared: cbuild.Prepared
    schema: R.Schema
    library: cbuild.Library
    context: cbuild.Context
    state: bytes
    places: dict[tuple[str, int], list[Place]]
    workdir: Path

    def _cells(self) -> list[tuple[int, int, int]]:
        """(proctype, instance, position in the tuple) of accessor place 0, 1, 2, ..."""
        return [(t, k, j) for t, proctype in enumerate(self.schema.types)
                for k in range(proctype.width) for j in range(len(TUPLE))]

    def write(self, state: bytes, vector: R.State, library: cbuild.Library | None = None) -> bytes:
        """``state`` with every process's tuple replaced by ``vector``'s (PRODUCT encoding)."""
        library = library or self.library
        library.use(self.context)   # the accessors read proc_offset[]
        access, buffer = _access(library), bytearray(state)
        for at, (t, k, j) in enumerate(self._cells()):
            value, place = vector.procs[t][k][j], self.places[self.schema.types[t].name, k][j]
            assert 0 <= value < 1 << place.bits, f"{value} does not fit in {place.lvalue}"
            access.set(buffer, at, value)
        return bytes(buffer)

    def read(self, state: bytes, library: cbuild.Library | None = None) -> R.State:
        """Every process's tuple in ``state`` (PRODUCT encoding)."""
        library = library or self.library
        library.use(self.context)
        access, buffer = _access(library), bytearray(state)
        values = iter(access.get(buffer, at) for at in range(len(self._cells())))
        return R.make_state(self.schema, [[tuple(next(values) for _ in TUPLE) for _ in range(proctype.width)]
                                          for proctype in self.schema.types])

    def pseudo_sort(self, vector: R.State, library: cbuild.Library | None = None) -> tuple[bytes, bytes, R.State]:
        """The captured state with ``vector`` (PRODUCT) written in, what the generated C makes
        of it, and the tuples read back from that."""
        library = library or self.library
        written = self.write(self.state, vector, library)
        [canonical] = library.canonicalise(self.context, [written])
        return written, canonical, self.read(canonical, library)


class _Access:
    """The accessors of a library (the same loaded object as its cbuild.Library, so the same
    ``proc_offset[]``)."""

    def __init__(self, path: Path) -> None:
        self.ffi = cffi.FFI()
        self.ffi.cdef(_ACCESS_CDEF)
        self.lib = self.ffi.dlopen(str(path))

    def get(self, buffer: bytearray, at: int) -> int:
        return self.lib.ts_t_get(self.ffi.from_buffer("unsigned char[]", buffer), at)

    def set(self, buffer: bytearray, at: int, value: int) -> None:
        self.lib.ts_t_set(self.ffi.from_buffer("unsigned char[]", buffer), at, value)


_ACCESS: dict[Path, _Access] = {}


def _access(library: cbuild.Library) -> _Access:
    return _ACCESS.setdefault(library.path, _Access(library.path))


def _build(prepared: cbuild.Prepared, places, outdir: Path, mutate=None) -> cbuild.Library:
    """The harness library with the pseudosort C (through ``mutate``, for a planted bug) and the
    accessors of ``places`` (numbered in Bench._cells's order: proctype, instance, r v _p)."""
    flat = [p for key in places for p in places[key]]

    def with_accessors(text: str) -> str:
        return (mutate(text) if mutate is not None else text) + _accessors(flat)
    return cbuild.Library(cbuild.build_library(prepared, "pseudosort", outdir, mutate=with_accessors))


def _bench(model: str, schema: R.Schema, workdir: Path) -> Bench:
    prepared = _prepare(EXTENSION / model, workdir)
    # The declared group of the model: every permutation of each proctype's instances.
    assert prepared.group.order == prod(factorial(t.width) for t in schema.types)
    places = _places(prepared, schema)
    library = _build(prepared, places, workdir / "pseudosort")
    capture = workdir / "states.bin"
    output = cbuild.run_pan_in_library(library.path, ["-m100000"], capture)
    assert cbuild.stored_states(output) > 0
    processes = sum(t.width for t in schema.types)
    for context in cbuild.read_capture(capture):
        for state in context.states:
            if library.processes(state) == processes:   # every process running: in the domain
                return Bench(prepared, schema, library, context, state, places, workdir)
    raise AssertionError(f"{model}: no captured state has all {processes} processes")


@pytest.fixture(scope="module")
def section41(tmp_path_factory) -> Bench:
    return _bench("nonsortable.pml", A, tmp_path_factory.mktemp("nonsortable"))


@pytest.fixture(scope="module")
def fig4(tmp_path_factory) -> Bench:
    return _bench("fig4_clients_servers.pml", CLIENTS_SERVERS, tmp_path_factory.mktemp("fig4"))


def _paper(schema: R.Schema, product: R.State) -> R.State:
    return R.convert(schema, product, R.PRODUCT, R.PAPER)


def _product(schema: R.Schema, paper: R.State) -> R.State:
    return R.convert(schema, paper, R.PAPER, R.PRODUCT)


def _images(bench: Bench, state: bytes) -> list[R.State]:
    """Every image of ``state`` under the model's group, by the harness's own group action
    (cbuild.action_source: written from the StateLayout, not from the templates), read back.
    Only for section 4.1's model: that action ignores the offset of a pid-indexed array or a
    pid value (``Server_v[lid]``, a client's ref to a server), which Fig. 4's model has."""
    library, prepared = bench.library, bench.prepared
    return [bench.read(image) for perm in prepared.group.perm_group.generate()
            for image in library.act(bench.context, prepared.images(perm), [state])]


def _within(seconds: float, work):
    """``work()``'s value, or an assertion error if it has not returned after ``seconds`` (cffi
    lets go of the GIL during the C call, so a C loop that never ends is noticed here)."""
    result: list = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"pseudo-sort did not end within {seconds} s"
    return result[0]


# ----------------------------------------------------------------------------- section 4.1


def test_section_4_1_state_pseudo_sorts_as_the_reference(section41: Bench):
    # The paper: "swapping the first two processes gives 0,3,4|3,1,1|2,2,1 ... Now swapping
    # the last two processes yields the state 0,3,4|3,2,1|2,1,1", which is what insertion sort
    # does (the reference's hand trace, tests/oracles/test_pseudosort_reference.py).
    expected = R.pseudo_sort(A, NON_SORTABLE, R.PAPER, "insertion")
    assert expected.procs == (((0, 3, 4), (3, 2, 1), (2, 1, 1)),)
    # Sorting with 255 as the greatest ref gives another result: the comparison below tells
    # the paper's order of refs (undefined first) from the raw bytes'.
    raw_order = R.pseudo_sort(A, _product(A, NON_SORTABLE), R.PRODUCT, "insertion")
    assert raw_order != _product(A, expected)

    written, canonical, result = section41.pseudo_sort(_product(A, NON_SORTABLE))
    assert section41.read(written) == _product(A, NON_SORTABLE), "the accessors do not read what they wrote"
    assert result == _product(A, expected)
    # Nothing else changed: the canonical state is the captured one with the expected tuples
    # written in (headers, _pid and _t of every slot, padding, the rest of the vector).
    assert canonical == section41.write(section41.state, _product(A, expected))


def test_section_4_1_no_image_is_sorted_and_the_result_is_one_of_them(section41: Bench):
    # "Therefore no permutations of the processes yield a sorted state vector": every image
    # of the written state under the group (6 elements), by the harness's independent action,
    # read back in the paper's encoding (whose order is the one the C compares with).
    written, _, result = section41.pseudo_sort(_product(A, NON_SORTABLE))
    images = _images(section41, written)
    assert len({image.flat() for image in images}) == 6
    # the C action and the reference's ([DG01] Def. 1) agree on the orbit
    assert {image.flat() for image in images} == {
        image.flat() for image in R.orbit(A, _product(A, NON_SORTABLE), R.PRODUCT)}
    assert not any(R.is_sorted(_paper(A, image)) for image in images)
    # The C's result is in the orbit, and (so) not sorted either.
    assert result in images
    assert not R.is_sorted(_paper(A, result))


def test_section_4_1_pseudo_sort_ends_and_sorting_again_moves_the_state(section41: Bench):
    # The paper's warning: a loop "until sorted" would never end on this orbit.  The generated
    # C ends, on the state and on its own result; pseudo-sort is not idempotent here (by hand,
    # insertion on 0,3,4|3,2,1|2,1,1: (3,2,1) > (2,1,1) -> exchange 1,2 with refs 2<->3:
    # 0,3,4|3,1,1|2,2,1, then (0,3,4) <= (3,1,1)), and the C's second pass is the reference's.
    once = R.pseudo_sort(A, NON_SORTABLE, R.PAPER)
    twice = R.pseudo_sort(A, once, R.PAPER)
    assert twice.procs == (((0, 3, 4), (3, 1, 1), (2, 2, 1)),)
    _, first, result = _within(SECONDS, lambda: section41.pseudo_sort(_product(A, NON_SORTABLE)))
    assert result == _product(A, once)
    [second] = _within(SECONDS, lambda: section41.library.canonicalise(section41.context, [first]))
    assert section41.read(second) == _product(A, twice)


def _drop_ref_renaming(text: str) -> str:
    """A planted bug: the exchange forgets to rename every ref ``r`` of the processes."""
    mutated, count = re.subn(r"^.*->r\s*=\s*ts_pid\(.*$\n?", "", text, flags=re.M)
    if count != 3:
        pytest.fail(f"the generated C renames r in {count} places, not in the 3 processes' "
                    "(this planted bug must follow the template)")
    return mutated


def test_a_planted_bug_that_forgets_to_rename_refs_is_caught(section41: Bench):
    # Without the renaming, the exchanges only move tuples: the result is the plain sort of the
    # tuples, the reference on a schema without ref positions (0,3,4|1,2,1|3,1,1), which is
    # not the paper's 0,3,4|3,2,1|2,1,1.
    plain = R.Schema((R.ProcType("A", 3, {}),))
    unrenamed = R.pseudo_sort(plain, R.make_state(plain, NON_SORTABLE.procs), R.PAPER)
    assert unrenamed.procs == (((0, 3, 4), (1, 2, 1), (3, 1, 1)),)
    broken = _build(section41.prepared, section41.places, section41.workdir / "planted", _drop_ref_renaming)
    _, _, result = section41.pseudo_sort(_product(A, NON_SORTABLE), broken)
    assert result != _product(A, R.pseudo_sort(A, NON_SORTABLE, R.PAPER))
    assert result == _product(A, R.make_state(A, unrenamed.procs))


def _undefined_last(text: str) -> str:
    """A planted bug: ``_undef_ref`` compared by its raw byte 255, after every instance."""
    mutated, count = re.subn(r"value == 255 \? TS_SUBTREE : ", "", text)
    if count != 1:
        pytest.fail("the generated C's ts_relative no longer reads as this planted bug expects")
    return mutated


def test_a_planted_bug_that_compares_the_undefined_ref_last_is_caught(section41: Bench):
    # Compared raw, the undefined ref (255) is the greatest: the reference in the PRODUCT
    # encoding predicts 1,2,1|0,1,1|255,3,4 (hand trace in test_pseudosort_reference.py),
    # not the paper's order's result, so the first test would catch it.
    raw_order = R.pseudo_sort(A, _product(A, NON_SORTABLE), R.PRODUCT)
    assert raw_order.procs == (((1, 2, 1), (0, 1, 1), (255, 3, 4)),)
    broken = _build(section41.prepared, section41.places, section41.workdir / "undefined-last", _undefined_last)
    _, _, result = section41.pseudo_sort(_product(A, NON_SORTABLE), broken)
    assert result == raw_order
    assert result != _product(A, R.pseudo_sort(A, NON_SORTABLE, R.PAPER))


# ----------------------------------------------------------------------------- Fig. 4


def _simple_configuration(paper: R.State) -> bool:
    """Fig. 5's "most simple configuration": client k is connected to server k, and server k
    to client k (paper encoding: instance k is k + 1)."""
    clients, servers = paper.procs
    return (all(tup[0] == k + 1 for k, tup in enumerate(clients))
            and all(tup[0] == k + 1 for k, tup in enumerate(servers)))


def test_fig4_reaches_the_simple_configuration(fig4: Bench):
    # "Applying the sorting algorithm on the clients gives ... Now the state vector is also
    # sorted according to the server tuples.  As shown in Figure 5, from any initial connection
    # graph we get the most simple configuration possible."
    written, canonical, result = fig4.pseudo_sort(_product(CLIENTS_SERVERS, FIG4))
    assert not R.is_sorted(FIG4) and not _simple_configuration(FIG4)
    paper = _paper(CLIENTS_SERVERS, result)
    assert R.is_sorted(paper)
    assert _simple_configuration(paper)
    # in the orbit (by the reference's action: the harness's cannot do offsets, see _images)
    assert fig4.read(written) == _product(CLIENTS_SERVERS, FIG4)
    assert result in R.orbit(CLIENTS_SERVERS, _product(CLIENTS_SERVERS, FIG4), R.PRODUCT)
    assert canonical == fig4.write(fig4.state, result)


def test_fig4_pseudo_sorts_as_the_reference(fig4: Bench):
    # Clients and servers reference each other, so which proctype is sorted first decides the
    # representative: the reference sorted in either order (both are pseudo-sorts of Fig. 3 on
    # a direct product of two symmetric groups); the paper's order is the next test's.
    _, _, result = fig4.pseudo_sort(_product(CLIENTS_SERVERS, FIG4))
    either = [R.pseudo_sort(CLIENTS_SERVERS, FIG4, R.PAPER, types=order)
              for order in (["Client", "Server"], ["Server", "Client"])]
    assert either[0] != either[1]
    assert result in [_product(CLIENTS_SERVERS, s) for s in either]


def test_fig4_sorts_the_proctypes_in_declaration_order(fig4: Bench):
    # [DG01] Fig. 3: "For each type of process i ... Sort(li, Exchi, Comparei)", and section
    # 4.2 sorts the clients first: 2,1,2|3,2,3|1,3,4||3,4,3|1,5,2|2,6,1 becomes
    # 1,3,4|2,1,2|3,2,3||1,4,3|2,5,2|3,6,1.
    expected = R.pseudo_sort(CLIENTS_SERVERS, FIG4, R.PAPER)
    assert expected.procs == (((1, 3, 4), (2, 1, 2), (3, 2, 3)), ((1, 4, 3), (2, 5, 2), (3, 6, 1)))
    _, _, result = fig4.pseudo_sort(_product(CLIENTS_SERVERS, FIG4))
    assert result == _product(CLIENTS_SERVERS, expected)


def test_the_harness_action_gives_the_reference_orbit_of_fig4(fig4: Bench):
    # The orbit of the Fig. 4 state under S3 x S3 (36 images, all distinct: the v are), by the
    # harness's action and by the reference's ([DG01] Def. 1).
    written = fig4.write(fig4.state, _product(CLIENTS_SERVERS, FIG4))
    reference = {image.flat() for image in R.orbit(CLIENTS_SERVERS, _product(CLIENTS_SERVERS, FIG4), R.PRODUCT)}
    assert len(reference) == 36
    assert {image.flat() for image in _images(fig4, written)} == reference
