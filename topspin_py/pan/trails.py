"""Which trail files a run of pan wrote (the names its output gives, kept where pan's files on
disk bear them out), and where they go for the user (save_trails: beside the model, under
pan's own names, with the spin command that replays the first).

pan writes a trail in its working directory when it finds an error (make_trail() in pan.c),
named after the base name of the model spin was given (``PanSource``) and pan's trail suffix
(``trail``, or pan -tSUFFIX's)::

    m.pml.trail             the first error
    m.pml1.trail, ...       the later ones under -e / -cN (not -i/-I, which rewrite the first)
    m.pml.cpu1_trail        a -DNCORE worker's (the report says only "cpu1: pan: wrote trailfile")
    m.pml_pan_4711.trail    -DPUTPID, which -DBFS_PAR sets: the binary's name and pan's pid
    m.pml_pan_4711_1.trail  ... and its later ones
    m.trail, m1.trail       when pan could not create the first name (the model's name up to
                            its first dot)

``pan: wrote NAME`` is as easy for the model to print as for pan (printf under -DPRINTF,
c_code), so a name counts only when it is a plain file name of that form and the file is in
the work directory: verify removes every trail there before pan runs, so a trail there is
this run's.  A name outside the work directory is never pan's, and is never read or copied.
"""

from __future__ import annotations

import re
import shlex
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from topspin_py.pan import flags as panflags
from topspin_py.pan.flags import PanOptions
from topspin_py.pan.output import PanReport

DEFAULT_SUFFIX = "trail"


def trail_suffix(pan: PanOptions | Sequence[str]) -> str:
    """pan's trail suffix: the last -tSUFFIX (pan reads -t_reverse as another option)."""
    suffix = PanOptions.of(pan).trail_suffix
    return DEFAULT_SUFFIX if suffix is None else suffix


def is_pan_trail_name(name: str, model_name: str, suffix: str = DEFAULT_SUFFIX) -> bool:
    """Whether pan could have named a trail ``name`` for a model spin was given as
    ``model_name`` (a base name), with trail suffix ``suffix``."""
    if "/" in name:
        return False
    bases = {model_name, model_name.split(".", 1)[0]}
    numbered = r"(?:\d+|_[^/]+_\d+(?:_\d+)?)?"
    suffixes = rf"(?:{re.escape(suffix)}|cpu\d+_trail)"
    return any(re.fullmatch(re.escape(base) + numbered + r"\." + suffixes, name) for base in bases if base)


def written(report: PanReport, workdir: Path, model_name: str, pan: PanOptions | Sequence[str]) -> list[str]:
    """The trails of ``report`` pan wrote in ``workdir``: the names it gives (and, when a
    multi-core worker wrote one without naming it, every trail of pan's naming there), each
    of pan's form and present as a file."""
    suffix = trail_suffix(pan)
    names = list(report.trail_files)
    if report.trail_unnamed:
        names += sorted(path.name for path in workdir.iterdir())
    return [name for name in dict.fromkeys(names)
            if is_pan_trail_name(name, model_name, suffix) and (workdir / name).is_file()]


def note_worker_trails(report: PanReport, defines: list[str], note) -> None:
    """A multi-core pan names no trail (read_report finds it on disk): worker 0's is
    model.pml.trail, worker N's model.pml.cpuN_trail, which starts where that worker took over."""
    if (report.trail_unnamed and any(".cpu" in name for name in report.trail_files)
            and not any(panflags.define_name(d) == "FULL_TRAIL" for d in defines)):
        note("pan -DNCORE: the trail was written by a worker other than the first, and starts "
             "where that worker took over (its first state is in the .rst file beside it): "
             "spin -t cannot replay it from the initial state; -DFULL_TRAIL makes pan write "
             "the whole path")


@dataclass(frozen=True)
class SavedTrails:
    """The trails of the reported run, where the user finds them."""

    paths: list[Path]            # beside the model (pan's names), or where they went instead
    replay: str | None           # the spin command that replays the first one
    notes: list[str]             # a previous trail replaced; a trail that could not go beside the model


def desugared_copy(model: Path) -> Path:
    """Where verify leaves the desugared program of a model that uses the ref/public extension,
    beside the model, as the trails: pan's report names its lines, and ``spin -t`` must replay
    the trails on the program pan was built from."""
    return model.with_name(model.stem + ".desugared.pml")


def save_trails(report: PanReport, workdir: Path, model: Path, keep_dir: Path | None,
                 spin_args: list[str], desugared: tuple[Path, Path] | None = None) -> SavedTrails:
    """Copy the trails pan wrote to beside the model under pan's own names, replacing older
    ones as pan does (``m.pml.trail``; ``m.pml1.trail``, ... after it under -e or -cN; pan -i
    and -I rewrite the one ``m.pml.trail``, the shortest being the last).  Where the model's
    directory cannot be written, the trail stays in --keep DIR, or goes to a directory of its
    own under the system's temporary directory; ``spin -k FILE`` replays it from there."""
    paths: list[Path] = []
    notes: list[str] = []
    replay = None
    program = model   # what spin replays the trails on
    if desugared is not None:
        # The model uses the ref/public extension: pan's report names lines of the desugared
        # program, and spin replays the trail on it (given with the trail's name, -k, since the
        # trail is named after the model): it goes beside the model, as the trails do.
        source, program = desugared
        try:
            shutil.copyfile(source, program)
        except OSError as err:
            program = _keep_elsewhere(source, keep_dir) or source
            notes.append(f"could not write {desugared[1]} ({err.strerror or err}); the desugared "
                         f"program is {program}")
    for name in dict.fromkeys(report.trail_files):   # pan -i names the same file each time
        source = workdir / name
        if not source.is_file():
            continue
        target = model.with_name(Path(name).name)
        existed = target.exists()
        try:
            shutil.copyfile(source, target)
        except OSError as err:
            moved = _keep_elsewhere(source, keep_dir)
            notes.append(f"could not write {target} ({err.strerror or err}); "
                         + (f"the trail is in {moved}" if moved else "the trail is lost"))
            if moved is not None:
                paths.append(moved)
                replay = replay or replay_command(program, spin_args, ["-k", str(moved)])
            continue
        if existed:
            notes.append(f"replaced the previous {target}")
        paths.append(target)
        flag = _trail_flag(model, name)
        # spin -t finds model.pml.trail and model.pmlN.trail; another name (a -DBFS_PAR pan's
        # model.pml_pan_PID.trail) is given with -k
        flags = [flag] if program == model and flag is not None else ["-k", str(target)]
        replay = replay or replay_command(program, spin_args, flags)
    stale = model.with_name(model.name + ".trail")
    if stale.exists() and not any(Path(name).name == stale.name for name in report.trail_files):
        # pan leaves it too, and spin -t would replay it: say it is not this run's.
        written = "wrote no trail" if not report.trail_files else "wrote other trails"
        notes.append(f"{stale} is an earlier run's: this run {written}")
    return SavedTrails(paths, replay, notes)


def _keep_elsewhere(source: Path, keep_dir: Path | None) -> Path | None:
    if keep_dir is not None:
        return source   # already in --keep DIR, which is kept
    try:
        directory = Path(tempfile.mkdtemp(prefix="topspin-trail-"))
        return Path(shutil.copy(source, directory / source.name))
    except OSError:
        return None


def _trail_flag(model: Path, pan_name: str) -> str | None:
    """spin's flag for the trail pan named ``pan_name``: -t for m.pml.trail, -tN for
    m.pmlN.trail; None for any other name."""
    match = re.fullmatch(re.escape(model.name) + r"(\d*)\.trail", Path(pan_name).name)
    if match is None:
        return None
    return f"-t{match.group(1)}" if match.group(1) else "-t"


def replay_command(model: Path, spin_args: list[str], trail_flags: list[str]) -> str:
    """``spin [-DN=3 ...] [-f formula | -N FILE] -t -p model``: the options that shape the model
    and its claim, as the search had them, then the trail.  With -f, -F or -N, spin writes
    MODEL.nvr beside the model and includes the model from it by the name it was given, which
    only works from the model's own directory or for an absolute name: the model is named by
    its absolute path unless it is in the current directory."""
    adds_claim = any(word in ("-f", "-F", "-N") for word in spin_args)
    shown = model if not adds_claim or in_current_directory(model) else model.resolve()
    return shlex.join(["spin", *spin_args, *trail_flags, "-p", str(shown)])


def in_current_directory(path: Path) -> bool:
    return path.parent.resolve() == Path.cwd().resolve()


def trail_depth(trail: Path) -> int | None:
    """The depth of the error a trail records: its step lines (``step:pid:transition``) count
    the states from depth 0, so one more than the depth pan reports with the error."""
    try:
        steps = sum(1 for line in trail.read_text(errors="replace").splitlines()
                    if line[:1].isdigit())
    except OSError:
        return None
    return steps - 1 if steps else None
