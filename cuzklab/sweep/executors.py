"""Where sweep points run: a small registry of executors.

An executor takes the point jobs and yields their outcomes as they finish.
``local`` runs them in a process pool on this machine (spawn start method:
the kernels' ZMQ sockets must never be forked); ``dask`` runs them on a Dask
distributed cluster. Add one with ``register_executor(name, cls)``: subclass
:class:`Executor` and implement :meth:`Executor.run`.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import signal
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import SweepError
from .outcome import error_dict


def usable_cores() -> int:
    """Return the number of cores this process may run on (its affinity, else all)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


class Executor:
    """Runs point jobs somewhere; subclasses implement :meth:`run`.

    ``jobs`` is how many points may run at once (where the executor decides
    that); ``reuse_kernels`` is the default for keeping a warm kernel per
    worker between points.
    """

    name = ""
    reuse_kernels = True

    def __init__(self, jobs: int | None = None, scheduler: str | None = None, **options):
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
            raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
        self.jobs = jobs or usable_cores()
        self.scheduler = scheduler
        self.options = options

    def run(self, fn: Callable[[dict], dict], jobs: Iterable[dict]) -> Iterator[dict]:
        """Yield ``fn(job)`` for every job, in the order they finish."""
        raise NotImplementedError

    def cancel(self) -> None:
        """Stop points that are running or queued (best effort)."""

    def close(self) -> None:
        """Release the executor's resources."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @staticmethod
    def crashed(job: dict, exc: BaseException) -> dict[str, Any]:
        """Return the outcome of a job whose runner itself failed."""
        return {"id": job["id"], "status": "crashed", "metrics": {}, "timings": {},
                "artifacts": {}, "error": error_dict(type(exc).__name__,
                                                     f"the point runner failed: {exc}")}


_EXECUTORS: dict[str, type[Executor]] = {}


def register_executor(name: str, cls: type[Executor]) -> None:
    """Register an executor class under ``name`` (replacing any before it)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if not (isinstance(cls, type) and issubclass(cls, Executor)):
        raise TypeError(f"cls must be a subclass of cuzklab.sweep.Executor, got {cls!r}")
    _EXECUTORS[name] = cls


def available_executors() -> list[str]:
    """Return the names of the registered executors."""
    return sorted(_EXECUTORS)


def get_executor(name: str) -> type[Executor]:
    """Return the executor class registered as ``name``."""
    try:
        return _EXECUTORS[name]
    except KeyError:
        raise SweepError(f"unknown executor {name!r}; available: "
                         f"{', '.join(available_executors())}") from None


def _init_pool_worker(running_dir: str) -> None:
    """Prepare a pool process: Ctrl-C is the parent's to handle; close the warm worker at exit."""
    from multiprocessing.util import Finalize

    from .procs import RUNNING_DIR_ENV
    from .runner import close_warm_worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ[RUNNING_DIR_ENV] = running_dir
    Finalize(None, close_warm_worker, exitpriority=10)


_MAIN_GUARD_HINT = ("The local executor starts its pool with the spawn method, which re-imports "
                    "the calling script: put the call to run_sweep under "
                    "`if __name__ == \"__main__\":`.")


class LocalExecutor(Executor):
    """A process pool on this machine (spawn start method), ``jobs`` points at once.

    One pool serves every :meth:`run` until :meth:`close`, so a caller that runs
    several batches (the tuner's search steps) starts its processes once.
    """

    name = "local"

    def __init__(self, jobs: int | None = None, scheduler: str | None = None, **options):
        super().__init__(jobs, scheduler, **options)
        if scheduler:
            raise SweepError("--scheduler only applies to --executor dask")
        self._pool = None
        self._running_dir: str | None = None

    def run(self, fn, jobs):
        """Yield outcomes as pool processes finish them."""
        import sys
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool
        jobs = list(jobs)
        if not jobs:
            return
        if getattr(sys.modules.get("__main__"), "__name__", "") == "__mp_main__":
            # A spawned pool process is re-running the caller's script.
            raise SweepError(_MAIN_GUARD_HINT)
        if self._pool is None:  # kept until close(): later batches skip the processes' start
            self._running_dir = tempfile.mkdtemp(prefix="cuzklab-running-")
            self._pool = ProcessPoolExecutor(
                max_workers=min(self.jobs, len(jobs)),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_pool_worker, initargs=(self._running_dir,))
        futures = {self._pool.submit(fn, job): job for job in jobs}
        for fut in as_completed(futures):
            if fut.cancelled():
                continue
            try:
                yield fut.result()
            except BrokenProcessPool as exc:
                raise SweepError(f"the sweep's process pool broke ({exc}); finished points "
                                 f"are kept, run again with --resume. {_MAIN_GUARD_HINT}") from exc
            except Exception as exc:  # a bug in the runner: record it, keep the sweep going
                yield self.crashed(futures[fut], exc)

    def cancel(self):
        """Kill the points' worker processes and kernels, and drop queued points."""
        from .procs import kill_registered
        if self._running_dir:
            kill_registered(self._running_dir)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def close(self):
        """Shut the pool down (its warm workers close their kernels)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._running_dir:
            shutil.rmtree(self._running_dir, ignore_errors=True)
            self._running_dir = None


class DaskExecutor(Executor):
    """Points as tasks on a Dask distributed cluster at ``scheduler`` (an address or a Client).

    The cluster's workers decide how many points run at once (``jobs`` is not
    used). Workers need cuzklab installed; they need not share a filesystem
    with this machine: notebooks travel with the jobs and results come back.
    Kernels are not kept warm on workers (no processes are left behind).
    """

    name = "dask"
    reuse_kernels = False

    def __init__(self, jobs: int | None = None, scheduler=None, **options):
        super().__init__(jobs, None, **options)
        if not scheduler:
            raise SweepError("--executor dask needs --scheduler ADDRESS "
                             "(for example tcp://10.0.0.5:8786)")
        self.scheduler = scheduler
        self._client = None
        self._own_client = False
        self._futures: list = []

    def run(self, fn, jobs):
        """Yield outcomes as the cluster finishes them."""
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise SweepError("the dask executor needs dask.distributed: "
                             "pip install 'cuzklab[dask]'") from None
        jobs = list(jobs)
        if not jobs:
            return
        if isinstance(self.scheduler, Client):
            self._client = self.scheduler
        else:
            try:
                self._client = Client(self.scheduler, timeout=self.options.get("connect_timeout", 30))
            except OSError as exc:
                raise SweepError(f"cannot reach the Dask scheduler at {self.scheduler}: {exc}") from exc
            self._own_client = True
        tag = uuid.uuid4().hex[:8]
        by_key = {}
        for job in jobs:
            fut = self._client.submit(fn, job, key=f"cuzklab-point-{job['id']}-{tag}", pure=False)
            by_key[fut.key] = job
            self._futures.append(fut)
        for fut in as_completed(self._futures):
            if fut.cancelled():
                continue
            try:
                yield fut.result()
            except Exception as exc:
                yield self.crashed(by_key[fut.key], exc)

    def cancel(self):
        """Cancel queued points (points already running finish on their workers)."""
        if self._client is not None and self._futures:
            with contextlib.suppress(Exception):
                self._client.cancel(self._futures)

    def close(self):
        """Disconnect from the scheduler if this executor connected."""
        self._futures = []
        if self._client is not None and self._own_client:
            with contextlib.suppress(Exception):
                self._client.close()
        self._client = None


register_executor("local", LocalExecutor)
register_executor("dask", DaskExecutor)
