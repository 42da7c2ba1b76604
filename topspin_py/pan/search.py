"""pan's search and its report: the runs of pan the depth-limit policy asks for, read from pan's own
report block and files, and the ways pan fails rather than gives a verdict.

The policy (verify.py's module doc, "depth limit"): the user's -mN is never changed; without it
the first run is spin -run's (pan's default -m10000), and only a run that reached the limit
without an error is followed by -b probes 10x deeper and one reported run.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from topspin_py.errors import ToolchainError, UsageError
from topspin_py.pan import flags as panflags
from topspin_py.pan import toolchain, trails
from topspin_py.pan.output import PanReport, parse_pan_output
from topspin_py.pan.progress import Progress, ProgressWatcher
from topspin_py.reporting import Reporter


@dataclass(frozen=True)
class Search:
    """The pan run whose report we give the user."""

    report: PanReport
    output: str
    pan: panflags.PanOptions        # pan's arguments in the run: the user's, with the policy's -m
    wall_s: float
    incomplete_reason: str | None   # None: the search is complete
    interrupted: bool = False       # Ctrl-C: the report holds pan's statistics so far


    @property
    def args(self) -> list[str]:
        """pan's command line in the run."""
        return list(self.pan.args)


INTERRUPTED = "interrupted: the counts are pan's statistics when it stopped"


def run_search(binary: Path, pan: panflags.PanOptions, workdir: Path, source: Path, shown: Path,
               reporter: Reporter, *, defines: list[str] | tuple[str, ...], max_depth_limit: int,
               on_progress: Callable[[Progress], None] | None = None,
               partial_on_interrupt: bool = False) -> Search:
    """Run pan under the depth-limit policy (module doc, "depth limit").

    spin -run runs pan once, with pan's default -m10000, and leaves a search cut short by it
    to the user.  We do the same when the user chose the limit (-mN, or -b which makes the
    limit an error), and our first run is always that one, so that an error it finds is the
    one reported, with its trail.  When that run reached the limit without finding an error,
    the limit grows 10x at a time up to ``max_depth_limit``, without multiplying the run
    time: a run that may be thrown away is a probe with -b, which pan stops the moment it
    reaches the limit, so besides the first run only the reported one searches in full.
    ``partial_on_interrupt``: Ctrl-C returns pan's statistics so far, marked interrupted."""
    def attempt(pan: panflags.PanOptions, deeper_than_default: bool = False) -> tuple[Search, bool]:
        """One run of pan; the second value: pan ran out of memory with a depth limit we
        raised (``deeper_than_default``), which is not an error: a smaller one may fit."""
        # a trail must come from the run we report (a multi-core pan's workers write
        # model.pml.cpuN_trail and .cpuN_rst or .rst files too)
        for pattern in ("*.trail", "*.cpu*_trail", "*.rst", "*_rst"):
            for stale in workdir.glob(pattern):
                stale.unlink()
        args = list(pan.args)
        reporter.ran(["./pan", *args])
        watcher = ProgressWatcher(on_progress) if on_progress else None
        run = toolchain.run_pan(binary, args, workdir, watcher.feed if watcher else None,
                                functools.partial(reporter.stage, "pan: searching"))
        # pan names the model by the absolute path spin was given; show the user's path (for
        # a desugared model, that of the desugared copy the trails are replayed with).
        output = run.output.replace(str(source.resolve()), str(shown))
        report = read_report(output, workdir, source.name, pan)
        if run.interrupted:
            if not partial_on_interrupt or not report.has_summary:
                raise KeyboardInterrupt   # (pan died before it could report: nothing to show)
            # (pan may have finished just before the signal: then its report is complete)
            reason = (INTERRUPTED if report.interrupted
                      else incomplete_reason(report, pan, "cap", max_depth_limit))
            raise Interrupted(Search(report, output, pan, run.wall_s, reason, interrupted=True))
        if report.out_of_memory and deeper_than_default:
            return Search(report, output, pan, run.wall_s, None), True
        raise_on_pan_failure(run.returncode, output, report, args)
        check_report_is_pans(report, defines)
        return Search(report, output, pan, run.wall_s, None), False

    try:
        return depth_policy(attempt, pan, max_depth_limit, reporter.note)
    except Interrupted as stopped:   # Ctrl-C: pan's statistics so far are the outcome
        return stopped.search


class Interrupted(Exception):
    """Ctrl-C stopped a run of pan, whose partial report is the outcome (partial_on_interrupt)."""

    def __init__(self, search: Search):
        super().__init__("interrupted")
        self.search = search


def depth_policy(attempt, pan: panflags.PanOptions, max_depth_limit: int, note) -> Search:
    """The runs of pan the depth-limit policy asks for (run_search's doc), by ``attempt``."""
    def reported(search: Search, reason: str | None, run: panflags.PanOptions | None = None) -> Search:
        return dataclasses.replace(search, pan=search.pan if run is None else run, incomplete_reason=reason)

    if pan.depth_limit_given is not None or pan.depth_limit_is_an_error:
        search, _ = attempt(pan)
        return reported(search, incomplete_reason(search.report, pan, "yours"))
    limit = panflags.DEFAULT_DEPTH_LIMIT
    cap = max(max_depth_limit, limit)
    run = pan   # pan's default limit: as spin -run runs it
    first, _ = attempt(run)
    report = first.report
    if not report.depth_limit_hit or report.errors or limit >= cap:
        return reported(first, incomplete_reason(report, run, "errors" if report.errors else "cap", cap))
    previous_limit, limit = limit, min(limit * 10, cap)
    note(f"pan: depth limit -m{previous_limit} too small (search incomplete, no error found); "
         f"rerunning with -m{limit}")
    probe_base = pan.stopping_at_first_error()
    while limit < cap:
        run = probe_base.with_depth_limit(limit)
        probe, out_of_memory = attempt(run.adding("-b"), limit > previous_limit)
        if out_of_memory:
            return _out_of_memory_fallback(attempt, first, pan, limit, previous_limit, cap)
        if not _stopped_by_depth_limit(probe.report):
            if pan.stops_at_first_error:
                # Done: -b made no difference to a run that never reached the limit, so this
                # report is the one pan gives without it (or stopped at a real error).
                return reported(probe, incomplete_reason(probe.report, run, "cap", cap), run)
            break
        previous_limit, limit = limit, min(limit * 10, cap)
        note(f"pan: depth limit -m{previous_limit} too small (search incomplete); rerunning with -m{limit}")
    run = pan.with_depth_limit(limit)
    search, out_of_memory = attempt(run, limit > previous_limit)
    if out_of_memory:
        return _out_of_memory_fallback(attempt, first, pan, limit, previous_limit, cap)
    why = "errors" if search.report.errors else "cap"
    return reported(search, incomplete_reason(search.report, run, why, cap))


def _out_of_memory_fallback(attempt, first: Search, pan: panflags.PanOptions, limit: int,
                            previous_limit: int, cap: int) -> Search:
    """The deeper stack did not fit: the search at the last limit that did, cut short by it,
    is the best answer we have (the first run's, when that was at it)."""
    run = pan.with_depth_limit(previous_limit)
    search = first if first.args == list(run.args) else attempt(run)[0]
    reason = incomplete_reason(search.report, run, "errors" if search.report.errors else "cap", cap)
    if search.report.depth_limit_hit:
        reason = (f"the depth limit -m{previous_limit} was too small, and pan ran out of memory "
                  f"with -m{limit}")
    return dataclasses.replace(search, incomplete_reason=reason)


def _stopped_by_depth_limit(report: PanReport) -> bool:
    """A probe run with -b stopped because it reached the depth limit (not at a real error)."""
    return report.depth_limit_hit and any("depth limit reached" in line for line in report.error_lines)


def incomplete_reason(report: PanReport, pan: panflags.PanOptions, limit_from: str,
                       cap: int | None = None) -> str | None:
    """Why the search is incomplete, in words the user can act on; None: it is complete.
    ``limit_from``: "yours" (-m or -b given), "cap" (grown as far as allowed), "errors" (not
    grown: pan had found errors, which a deeper run must not replace)."""
    limit = pan.depth_limit
    if report.depth_limit_hit and pan.depth_limit_is_an_error:
        return f"pan reached the depth limit -m{limit}, an error under -b"
    if report.depth_limit_hit and limit_from == "yours":
        return f"the depth limit -m{limit} was too small (given with -m; a larger -mN searches deeper)"
    if report.depth_limit_hit and limit_from == "errors":
        return (f"the depth limit -m{limit} was too small; not rerun deeper, to keep the errors "
                f"found (pass a larger -mN for a complete search)")
    if report.depth_limit_hit:
        return (f"the depth limit -m{limit} was too small (reruns stop at -m{cap}); "
                f"pass a larger one with -mN")
    if report.time_limit_hit:
        return "pan's time limit (-Q) was reached"
    count = pan.error_count
    if report.stopped_early and report.errors and count is not None and count != "1":
        return f"pan stopped at error {count} (-c{count}; -c0 searches on past every error)"
    if report.stopped_early and report.errors:
        return "pan stopped at the first error (-c0 searches on past errors)"
    if report.stopped_early:
        return "pan stopped before exploring every state"
    return None


def raise_on_pan_failure(returncode: int, output: str, report: PanReport, args: list[str]) -> None:
    """Turn the ways pan can fail (rather than give a verdict) into errors that say what to do."""
    if returncode < 0:
        # even after a report: a pan that died before printing its own may leave the model's
        # imitation of one last in its output (pan/output.py)
        raise ToolchainError(f"pan was killed by signal {-returncode}", detail=output.strip()[-2000:] or None)
    if returncode > 0 and report.has_summary:
        # pan exits with status 0 after its report (wrapup()); it stops with another status
        # only before one (pan_exit(1): "too many processes", a canonicaliser's refusal, ...),
        # so the report at the end of its output is the model's imitation
        raise ToolchainError(f"pan stopped with exit status {returncode} before its report; the report-like "
                             "text in its output is not pan's", detail=output.strip()[-2000:] or None)
    if report.vectorsz_needed is not None:
        suggested = (report.vectorsz_needed // 1024 + 1) * 1024
        raise ToolchainError(
            f"the state vector needs more than VECTORSZ bytes (pan: at least {report.vectorsz_needed})",
            hint=f"pass -DVECTORSZ={suggested} (any value >= {report.vectorsz_needed} works)")
    if report.out_of_memory:
        raise ToolchainError(
            "pan ran out of memory", detail="\n".join(report.memory_lines),
            hint="raise the limit with -DMEMLIM=<MB> if it is set too low, or compress states "
                 "with -DCOLLAPSE (exact) or -DHC4 / -DBITSTATE (approximate); a smaller hash "
                 "table (--pan -w20) also saves memory")
    if not report.has_summary and not report.errors:
        output = output.strip()
        raise UsageError(f"pan did not run a search (arguments: {shlex.join(args) or 'none'})",
                         detail="\n".join(output.splitlines()[:8]) or None,
                         hint="check the --pan arguments; pan's own list is `./pan -?` "
                              "(use --keep DIR to get the binary)")


def read_report(output: str, workdir: Path, model_name: str,
                pan: panflags.PanOptions | Sequence[str]) -> PanReport:
    """pan's report (pan/output.py), its trails kept where they are pan's files in ``workdir``
    (pan/trails.py; ``model_name``: the base name of the model spin was given).  A multi-core
    pan whose worker met an error may stop before its first process prints the report: the
    trail it wrote is the evidence of the error, whose count is then unknown (one at least)."""
    report = parse_pan_output(output)
    report.trail_files = trails.written(report, workdir, model_name, pan)
    if not report.has_summary and report.trail_files:
        report.errors = max(len(report.error_lines), 1)
        report.stopped_early = True
    return report


def check_report_is_pans(report: PanReport, defines) -> None:
    """What the flags and pan's files say must agree with the report read as pan's, or pan's
    report cannot be told from text the model printed (ToolchainError)."""
    if not report.has_summary:
        return
    several = panflags.several_processes(defines) or report.several_processes
    if several and report.version_lines_before:
        # (refusals.refuse_printing_with_several_processes keeps printing models away from such a pan)
        raise ToolchainError("pan searched with several processes, and its output has more than one "
                             "line that starts a report ('(Spin Version ...'): its workers' output may "
                             "land anywhere, so pan's report cannot be told from the others",
                             hint="verify with one process (without -DNCORE or -DBFS_PAR)")
    if several and not report.several_processes:
        raise ToolchainError("pan was built to search with several processes (-DNCORE, -DBFS_PAR), but "
                             "the report at the end of its output says it used one: it is not pan's",
                             hint="verify with one process (without -DNCORE or -DBFS_PAR)")
    if report.trail_files and not report.errors:
        raise ToolchainError(f"pan wrote the trail {report.trail_files[0]}, which it does only for an "
                             "error, but the report at the end of its output says there were none",
                             hint="--keep DIR keeps pan's output (pan.out) and the files it wrote")
