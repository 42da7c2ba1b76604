"""The swarm's binaries: verify's stages up to gcc once (verify.prepare: spin -a, the search,
the group, the strategy and the flags, with verify's refusals), then one pan per compile
variant (pipeline.build), each with the same canonicaliser spliced in.  The variants' flags
change the order of the search only, not the state vector, so they share spin's pan.c and the
layout it gives."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from topspin_py import pipeline
from topspin_py.errors import UsageError
from topspin_py.pan.flags import define_name
from topspin_py.reporting import Reporter
from topspin_py.swarm.plan import Variant
from topspin_py.verify import VerifyOptions, prepare

# Storage modes a swarm member cannot use instead of bitstate, and why.
_REFUSED = {
    "BFS": "a swarm diversifies the order of a depth-first search, which -DBFS replaces",
    "BFS_PAR": "a swarm diversifies the order of a depth-first search, which -DBFS_PAR replaces",
    "COLLAPSE": "swarm members are bitstate searches (-DBITSTATE), which -DCOLLAPSE does not combine with",
    "MA": "swarm members are bitstate searches (-DBITSTATE), which -DMA does not combine with",
    "HC": "swarm members are bitstate searches (-DBITSTATE), not hash-compact ones",
    "NCORE": "each swarm member is one process; the swarm runs them in parallel",
}


@dataclass
class SwarmBinaries:
    """What the pipeline decided, and one compiled pan per variant (its bytes, and its flags)."""

    build: pipeline.PanBuild
    binaries: dict[Variant, bytes]
    flags: dict[Variant, list[str]]


def bitstate_defines(defines: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The user's defines with -DBITSTATE added (a swarm is of bitstate searches); storage modes
    that do not combine with it are refused."""
    for define in defines:
        name = define_name(define)
        reason = _REFUSED.get("HC" if name.startswith("HC") else name)
        if reason is not None:
            raise UsageError(f"-D{name} is not for a swarm: {reason}", hint=f"drop -D{name}")
    names = {define_name(define) for define in defines}
    return tuple(defines) if "BITSTATE" in names else (*defines, "BITSTATE")


def build_binaries(model: Path, options: VerifyOptions, variants: list[Variant], workdir: Path,
                   reporter: Reporter, parallel: int = 2) -> SwarmBinaries:
    """spin -a and the symmetry stages in ``workdir``/spin, then gcc for each variant in a
    directory of its own (``parallel`` at a time)."""
    spin_dir = workdir / "spin"
    spin_dir.mkdir()
    build = prepare(model, options, spin_dir, reporter)

    def compile_variant(variant: Variant) -> tuple[Variant, bytes, list[str]]:
        directory = workdir / f"variant-{variant.name}"
        directory.mkdir()
        for source in spin_dir.glob("pan.*"):
            shutil.copy(source, directory / source.name)
        binary, flags = pipeline.build(build, directory, reporter, variant.flags, options.optimisation)
        return variant, binary.read_bytes(), flags

    reporter.stage(f"gcc {options.optimisation}: compiling {len(variants)} variant(s) of pan", None)
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        compiled = list(pool.map(compile_variant, variants))
    return SwarmBinaries(build, {variant: data for variant, data, _ in compiled},
                         {variant: flags for variant, _, flags in compiled})
