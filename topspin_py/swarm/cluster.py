"""The swarm's engine: a dask.distributed cluster.  A LocalCluster of worker processes on this
machine by default, or the user's cluster through its scheduler's address.

The binaries go to the cluster as data (``client.scatter``), so a worker needs no shared file
system; worker.py's function goes by value (cloudpickle), so a worker needs no topspin-py.
Each job is one task.  Stopping the swarm (its first error, the time budget, Ctrl-C) sets a
distributed.Event that every running job polls: its pan is interrupted and reports its
statistics so far, and a job not yet started returns at once; after a grace period whatever is
left is cancelled.  The cluster we started is closed; the user's is left as it was.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import time
import uuid
from dataclasses import dataclass
from typing import Callable, Iterator

from topspin_py.errors import ToolchainError, UsageError
from topspin_py.swarm import worker
from topspin_py.swarm.plan import Job, Variant

CONNECT_TIMEOUT_S = 20
WORKERS_TIMEOUT_S = 60      # how long a user's cluster may take to show a worker
_POLL_S = 0.2
# After the stop event is set: pan's grace to print its report, and the task's to return.
_DRAIN_S = worker.REPORT_GRACE_S + 15


@dataclass
class Finished:
    """A job's end: what worker.run_job returned, or why there is nothing (``failure``)."""

    job: Job
    payload: dict | None
    failure: str | None = None


@contextlib.contextmanager
def connect(scheduler: str | None, local_workers: int) -> Iterator[tuple[object, str]]:
    """A dask Client and the cluster's description: the user's scheduler, or a LocalCluster of
    ``local_workers`` one-thread worker processes, closed on the way out."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s")
        except ValueError as err:
            raise UsageError(f"bad scheduler address '{scheduler}': {err}",
                             hint="give it as tcp://HOST:PORT, as `dask scheduler` prints it") from err
        except (OSError, TimeoutError) as err:
            raise ToolchainError(f"cannot reach the dask scheduler at {scheduler}: {err}",
                                 hint="start it with `dask scheduler`, and workers with "
                                      f"`dask worker {scheduler}`") from err
        try:
            try:
                client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
            except TimeoutError as err:
                raise ToolchainError(f"the dask scheduler at {scheduler} has no worker "
                                     f"(waited {WORKERS_TIMEOUT_S} s)",
                                     hint=f"start one with `dask worker {scheduler}`") from err
            workers = len(client.scheduler_info(n_workers=-1)["workers"])
            yield client, f"the cluster at {scheduler} ({workers} worker{'s' * (workers != 1)})"
        finally:
            client.close()
        return
    # Ctrl-C reaches every process of the terminal's process group: the worker processes are
    # started with SIGINT ignored (Python then installs no handler of its own), so that they
    # live to stop their pan and report what it had (run_jobs); only we hear the Ctrl-C.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        # No dashboard; the scheduler's HTTP server (health checks) on a free port of localhost,
        # not on 8787, which another cluster may hold.
        cluster = LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                               silence_logs=logging.ERROR)
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        client = Client(cluster)
        try:
            yield client, f"a local cluster of {local_workers} worker process{'es' * (local_workers != 1)}"
        finally:
            client.close()
    finally:
        cluster.close()


def _sent_by_value(function: Callable) -> Callable:
    """``function`` in a wrapper that dask can send only by value.  distributed pickles a task
    (its function inside it) with pickle first, which sends a function by reference: a worker
    would have to import topspin_py to run it, however the function's module is registered
    with cloudpickle.  A closure pickle cannot send makes distributed send the task with
    cloudpickle, which sends the closure and ``function`` by value (its module registered).
    tests/commands/test_swarm.py runs the swarm on workers that cannot import topspin_py."""
    return lambda *args: function(*args)


def run_jobs(client, jobs: list[Job], binaries: dict[Variant, bytes], budget_s: float | None,
             on_finished: Callable[[Finished], bool], on_tick: Callable[[], None] = lambda: None
             ) -> tuple[list[Finished], str | None]:
    """Run every job; ``on_finished`` hears of each as it ends and returns True to stop the
    swarm (an error found).  Returns every job's end, in the jobs' order, and why the swarm was
    stopped ("error found", "time budget", "interrupted") or None."""
    import cloudpickle
    from distributed import Event

    cloudpickle.register_pickle_by_value(worker)   # workers need not have topspin-py
    run_job = _sent_by_value(worker.run_job)
    started = time.monotonic()
    run_id = uuid.uuid4().hex[:12]
    stop_name = f"topspin-swarm-stop-{run_id}"
    stop_event = Event(stop_name, client=client)
    futures: dict = {}
    ends: dict[int, Finished] = {}
    pending: list = []
    stopped: str | None = None

    def collect(future) -> Finished:
        job = futures[future]
        try:
            end = Finished(job, future.result())
        except Exception as err:   # noqa: BLE001  (a worker lost, the task failed: a failed job)
            end = Finished(job, None, f"{type(err).__name__}: {err}")
        ends[job.index] = end
        return end

    try:
        data = {variant: client.scatter(binary) for variant, binary in binaries.items()}
        for job in jobs:
            future = client.submit(run_job, data[job.variant], list(job.pan_args), stop_name, budget_s,
                                   key=f"topspin-swarm-{run_id}-job-{job.index}", pure=False, retries=0)
            futures[future] = job
            pending.append(future)
        while pending:
            on_tick()
            done = [future for future in pending if future.done()]
            pending = [future for future in pending if not future.done()]
            for future in done:
                # (the last job's error stops nothing: there is nothing left to stop)
                if on_finished(collect(future)) and stopped is None and pending:
                    stopped = "error found"
            if stopped is None and budget_s is not None and pending and time.monotonic() - started >= budget_s:
                stopped = "time budget"
            if stopped is not None:
                break
            if pending:
                time.sleep(_POLL_S)
    except KeyboardInterrupt:
        stopped = "interrupted"
    except BaseException:
        # A failure of ours (a report that is not what was built): no pan may search on.
        stop_event.set()
        client.cancel(pending, force=True)
        raise
    if stopped is not None and pending:
        stop_event.set()
        drain_until = time.monotonic() + _DRAIN_S
        while pending and time.monotonic() < drain_until:
            for future in [future for future in pending if future.done()]:
                pending.remove(future)
                on_finished(collect(future))
            on_tick()
            time.sleep(_POLL_S)
        if pending:
            client.cancel(pending, force=True)
            for future in pending:
                ends[futures[future].index] = Finished(futures[future], None, "cancelled: did not stop in time")
    # (Ctrl-C during the submission: the jobs never submitted never started)
    return [ends.get(job.index) or Finished(job, {"started": False, "worker": None}) for job in jobs], stopped
