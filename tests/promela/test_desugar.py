"""Desugaring the ref/public extension into plain Promela (Derepas and Gastin [DG01],
Fig. 10, typos fixed).

The references are plain SPIN and text written by hand: the desugared text of a small model is
compared with what we wrote ourselves from the translation scheme, spin accepts what
``topspin-py desugar`` prints as it is, verify's counts on an extended model are plain spin's on
the hand-desugared text, and the encoding of ``_undef_ref`` (255) is checked with real pan on a
model whose assertion would fail if it were 0.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import textwrap

from conftest import MODELS, REPO
from modelgen import run_spin
from narrow import the

from topspin_py.promela import ast, build_model, load_model, parse_text


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "topspin_py.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


SMALL = """\
mtype = { req };
active [2] proctype server() {
    public chan box = [2] of { mtype, ref client };
    ref client who;
end:
    do
    :: box?req, who -> assert(who != _undef_ref)
    od
}
active [2] proctype client() {
    server[anyRef(server)].box!req, _lid
}
"""

# Written by hand from the scheme (desugar.py's doc): the public channel is a global array of
# 2 mailboxes declared before the first process; the ref is a byte that starts at 255; _lid is
# _pid minus the first pid of the proctype (servers 0..1, clients 2..3); anyRef(server) makes
# the send a 2-way choice.  (Layout as the printer writes it: every binary operation in
# parentheses, units apart by a blank line.)
SMALL_BY_HAND = """\
mtype = { req }

chan box[2] = [2] of { mtype, byte };

active [2] proctype server() {
    byte who = 255;
    end:
    do
        :: box[(_pid - 0)]?req, who ->
            assert((who != 255))
    od
}

active [2] proctype client() {
    if
        :: box[0]!req, (_pid - 2)
        :: box[1]!req, (_pid - 2)
    fi
}
"""


def test_the_desugared_text_is_the_one_written_by_hand():
    model = build_model(parse_text(SMALL, "m.pml"))
    assert model.spin_text == SMALL_BY_HAND
    refs = model.refs
    assert refs is not None and refs.undef == 255
    assert {(s.proctype, s.first_pid, s.count) for s in refs.proctypes.values()} == \
        {("server", 0, 2), ("client", 2, 2)}
    assert [(a.owner, a.name, a.is_chan) for a in refs.public_arrays] == [("server", "box", True)]
    assert {(p.kind, p.proctype, p.name, p.owner, p.field_index) for p in refs.places} == {
        ("message", "client", "box", None, 1),     # box's second field holds a client
        ("local", "client", "who", "server", None),
    }
    # the plain program's Model: the analyses see no extension node, and positions are the user's
    assert model.extended is not None and model.spec is model.expanded
    send = the(ast.If, model.proctypes["client"].body.steps[0]).options[1].steps[0]
    assert str(send.pos) == "m.pml:11:5"


def test_verify_on_the_extended_model_counts_as_plain_spin_on_the_hand_desugared_text(tmp_path):
    reference = run_spin(text=SMALL_BY_HAND, opt="-O0")
    model = tmp_path / "small.pml"
    model.write_text(SMALL)
    done = _cli("verify", "--strategy", "none", "--json", str(model))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert reference.errors == 0
    assert (result["states_stored"], result["transitions"], result["errors"]) == \
        (reference.states, reference.transitions, 0)
    # what pan's report names is the desugared copy beside the model
    assert (tmp_path / "small.desugared.pml").read_text() == SMALL_BY_HAND


def test_spin_accepts_what_the_desugar_command_prints_for_every_construct(tmp_path):
    from test_extension import EVERY_CONSTRUCT

    model = tmp_path / "every.pml"
    model.write_text(EVERY_CONSTRUCT)
    done = _cli("desugar", str(model))
    assert done.returncode == 0, done.stderr
    plain = tmp_path / "plain.pml"
    plain.write_text(done.stdout)
    spin = subprocess.run(["spin", "-a", str(plain)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert spin.returncode == 0 and (tmp_path / "pan.c").is_file(), spin.stdout + spin.stderr
    gcc = subprocess.run(["gcc", "-O0", "-w", "-o", "pan", "pan.c"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert gcc.returncode == 0, gcc.stderr
    text = done.stdout
    # the header says where the refs are; the program has no word of the extension left
    assert " * _undef_ref = 255\n" in text and " * client: pids 0..2, _lid = (_pid - 0)\n" in text
    assert " * ref client: message field 1 of channel queue\n" in text
    program = text.split("*/", 1)[1]
    for word in ("ref ", "public", "anyRef", "_lid", "_undef_ref"):
        assert word not in program
    # Every ref that has no initialiser starts undefined: the global array, the typedef field,
    # the public ref (a global array now) and the locals.
    for declaration in ("byte owners[2] = 255;", "byte c = 255;", "byte partner[3] = 255;",
                        "byte cur[2] = 255;", "byte serv_id = 255;"):
        assert declaration in program
    assert "byte last = 255;" in program   # its own initialiser, _undef_ref


def test_knowledge_of_every_place_that_holds_a_ref():
    from test_extension import EVERY_CONSTRUCT

    refs = build_model(parse_text(EVERY_CONSTRUCT, "m.pml")).refs
    assert refs is not None
    # read off EVERY_CONSTRUCT's declarations
    assert {(p.kind, p.proctype, p.name, p.owner, p.length, p.field_index) for p in refs.places} == {
        ("field", "client", "c", "Pair", None, None),
        ("global", "server", "last", None, None, None),
        ("global", "client", "owners", None, 2, None),
        ("message", "client", "log", None, None, 1),
        ("param", "server", "s", "watcher", None, None),
        ("local", "server", "first", ":init:", None, None),
        ("local", "server", "serv_id", "client", None, None),
        ("message", "server", "inbox", None, None, 1),
        ("public", "server", "partner", "client", 3, None),
        ("message", "client", "queue", None, None, 1),
        ("public", "client", "cur", "server", 2, None),
    }
    assert {(a.owner, a.name, a.declared, a.is_chan) for a in refs.public_arrays} == {
        ("client", "inbox", "inbox", True), ("client", "v", "v", False),
        ("client", "partner", "partner", False), ("server", "queue", "queue", True),
        ("server", "busy", "busy", False), ("server", "cur", "cur", False)}


# Every kind of place a ref can start in: a local, a local set to _undef_ref, a typedef
# field, an element of a global array of refs, a public ref.
UNDEF_IS_NOT_INSTANCE_0 = """\
typedef Holder { ref P h }
ref P shared[2];
active [2] proctype P() {
    public ref P mine;
    ref P r;
    ref P s = _undef_ref;
    Holder k;
    assert(r != _lid && s != _lid && k.h != _lid && shared[1] != _lid && P[_lid].mine != _lid)
}
"""


def test_undef_ref_is_never_the_lid_of_instance_0_with_real_pan():
    text = build_model(parse_text(UNDEF_IS_NOT_INSTANCE_0, "m.pml")).spin_text
    assert text is not None and "byte r = 255" in text and "byte s = 255" in text
    assert "byte h = 255" in text and "byte shared[2] = 255" in text and "byte mine[2] = 255" in text
    assert run_spin(text=text, opt="-O0").errors == 0
    # The same program with undefined encoded as 0 fails for instance 0, whose _lid is 0: so
    # the assertion does test the encoding.
    assert run_spin(text=text.replace("255", "0"), opt="-O0").errors == 1


def test_public_variables_of_the_same_name_in_two_proctypes_are_renamed():
    text = build_model(parse_text(textwrap.dedent("""\
        active [2] proctype A() { public byte v; ref B b = anyRef(B); v = 1; B[b].v = 2 }
        active [3] proctype B() { public byte v; v = 3 }
        """), "m.pml")).spin_text
    assert text is not None
    assert "byte A_v[2];" in text and "byte B_v[3];" in text
    assert "A_v[(_pid - 0)] = 1" in text and "B_v[b] = 2" in text and "B_v[(_pid - 2)] = 3" in text
    assert "byte v" not in text


# anyRef in the guard of an option beside `else`.  The seed's meaning: anyRef(S) is N_S
# transitions, so the option can go exactly when a send to some S can, and `else` exactly when
# no send can (both mailboxes full).  Real pan checks both halves on our nested choice: the
# assertion in `else` holds (it is taken only when both are full: were the option blocked by
# its first choice alone, `else` would go while c[1] is empty), and `else` is taken at all.
GUARD = """\
active [2] proctype S() {
    public chan c = [1] of { byte };
end:
    false   /* no receive: a mailbox once full stays full, so the assertion sees what else saw */
}
active [2] proctype C() {
    bool sent;
    do
    :: S[anyRef(S)].c!1 -> sent = !sent
    :: else -> ELSE
    od
}
"""


def test_anyref_in_a_guard_beside_else_is_the_seeds_n_transitions():
    text = build_model(parse_text(GUARD.replace("ELSE", 'printf("else")'), "m.pml")).spin_text
    assert text is not None and text.count(":: c[0]!1") == 1 and text.count(":: c[1]!1") == 1
    # (the assertions name the mailboxes as desugared: the extension has no constant refs)
    full = run_spin(text=text.replace('printf("else")', "assert(len(c[0]) == 1 && len(c[1]) == 1)"),
                    opt="-O0")
    assert full.errors == 0
    # (control: with the choice of c[1] left out, else does go while c[1] is empty)
    first_only = re.sub(r"\n\s*:: c\[1\]!1", "", text)
    assert first_only != text
    assert run_spin(text=first_only.replace('printf("else")', "assert(len(c[0]) == 1 && len(c[1]) == 1)"),
                    opt="-O0").errors == 1
    taken = run_spin(text=text.replace('printf("else")', "assert(false)"), opt="-O0")
    assert taken.errors == 1


def test_a_trail_of_an_extended_model_replays_on_the_desugared_copy(tmp_path):
    model = tmp_path / "bad.pml"
    model.write_text(textwrap.dedent("""\
        active [2] proctype P() {
            public byte v;
            ref P other = anyRef(P);
            P[other].v = 1;
            assert(v == 0)
        }
        """))
    done = _cli("verify", "--strategy", "none", "--json", str(model))
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["errors"] == 1
    copy = tmp_path / "bad.desugared.pml"
    assert result["replay_command"] == shlex.join(
        ["spin", "-k", str(tmp_path / "bad.pml.trail"), "-p", str(copy)])
    replay = subprocess.run(shlex.split(result["replay_command"]), cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert "assertion violated" in replay.stdout, replay.stdout + replay.stderr


# Three processes that count up each other's public counter and down their own; detection
# finds a group on its desugaring (generate and patch need one).
PUBLIC_COUNTERS = """\
active [3] proctype P() {
    public byte v;
    ref P r;
    do
    :: r = anyRef(P)
    :: r != _undef_ref && P[r].v < 2 -> P[r].v++
    :: v > 0 -> v--
    od
}
"""


def test_generate_gives_spin_the_desugared_program(tmp_path):
    model = tmp_path / "pub.pml"
    model.write_text(PUBLIC_COUNTERS)
    out = tmp_path / "out"
    done = _cli("generate", "-o", str(out), str(model))
    assert done.returncode == 0, done.stderr
    desugared = out / "desugared" / "pub.pml"
    assert desugared.read_text() == load_model(model).spin_text
    assert str(desugared) in (out / "pan.c").read_text(encoding="latin-1")
    assert "uses the ref/public extension" in done.stdout


def test_the_extension_models_load():
    # tests/models/extension/ holds models in the extended syntax (test_models reads only
    # tests/models/*.pml, whose expectations plain spin checks on the file itself).
    for path in sorted((MODELS / "extension").glob("*.pml")):
        model = load_model(path)
        assert model.refs is not None and model.spin_text is not None, path


def test_patch_takes_the_extended_model_of_a_pan_c_built_from_its_desugaring(tmp_path):
    # The user's own SPIN workflow: topspin-py desugar, spin -a, then patch with the model.
    model = tmp_path / "pub.pml"
    model.write_text(PUBLIC_COUNTERS)
    desugared = _cli("desugar", str(model))
    assert desugared.returncode == 0, desugared.stderr
    build = tmp_path / "build"
    build.mkdir()
    (build / "plain.pml").write_text(desugared.stdout)
    spin = subprocess.run(["spin", "-a", "plain.pml"], cwd=build, capture_output=True, text=True, timeout=60)
    assert spin.returncode == 0, spin.stdout + spin.stderr
    done = _cli("patch", str(build / "pan.c"), "--model", str(model))
    assert done.returncode == 0, done.stderr
    assert "patched" in done.stdout and (build / "pan.c.orig").is_file()


def test_a_statement_with_several_anyrefs_chooses_every_combination():
    text = build_model(parse_text(textwrap.dedent("""\
        active [2] proctype S() {
            chan q = [4] of { ref S, ref S };
            q!anyRef(S), anyRef(S)
        }
        """), "m.pml")).spin_text
    assert text is not None
    body = text.split("proctype S() {", 1)[1]
    # by hand: both refs range over the 2 instances
    assert [line.strip() for line in body.splitlines() if line.strip().startswith("::")] == \
        [":: q!0, 0", ":: q!0, 1", ":: q!1, 0", ":: q!1, 1"]
    assert "chan q = [4] of { byte, byte }" in body
