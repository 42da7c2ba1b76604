"""Which trail files a run of pan wrote: the names its output gives, kept where pan's files on
disk bear them out.

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
from pathlib import Path

from topspin_py.pan.output import PanReport

DEFAULT_SUFFIX = "trail"


def trail_suffix(pan_args: list[str]) -> str:
    """pan's trail suffix: the last -tSUFFIX (pan reads -t_reverse as another option)."""
    suffix = DEFAULT_SUFFIX
    for arg in pan_args:
        if arg.startswith("-t") and len(arg) > 2 and not arg.startswith("-t_reverse"):
            suffix = arg[2:]
    return suffix


def is_pan_trail_name(name: str, model_name: str, suffix: str = DEFAULT_SUFFIX) -> bool:
    """Whether pan could have named a trail ``name`` for a model spin was given as
    ``model_name`` (a base name), with trail suffix ``suffix``."""
    if "/" in name:
        return False
    bases = {model_name, model_name.split(".", 1)[0]}
    numbered = r"(?:\d+|_[^/]+_\d+(?:_\d+)?)?"
    suffixes = rf"(?:{re.escape(suffix)}|cpu\d+_trail)"
    return any(re.fullmatch(re.escape(base) + numbered + r"\." + suffixes, name) for base in bases if base)


def written(report: PanReport, workdir: Path, model_name: str, pan_args: list[str]) -> list[str]:
    """The trails of ``report`` pan wrote in ``workdir``: the names it gives (and, when a
    multi-core worker wrote one without naming it, every trail of pan's naming there), each
    of pan's form and present as a file."""
    suffix = trail_suffix(pan_args)
    names = list(report.trail_files)
    if report.trail_unnamed:
        names += sorted(path.name for path in workdir.iterdir())
    return [name for name in dict.fromkeys(names)
            if is_pan_trail_name(name, model_name, suffix) and (workdir / name).is_file()]
