"""Run one sweep point under a watchdog, and bring back what it produced.

:func:`run_point` is what an executor calls, in a pool process or on a Dask
worker. It hands the point to a worker process (:mod:`cuzklab.sweep.worker`,
started in a session of its own, kept warm between points when
``reuse_kernel`` is set) and waits with two deadlines: the kernel must be up
within ``start_timeout_s``, then the notebook must finish within
``timeout_s + grace_s``. Past either, the worker's process group and its
kernel's process group are killed (a kernel can hang after the last cell,
where per-cell timeouts do not reach) and the point is recorded as
``timeout``. A worker that dies under a point makes it ``crashed``.

The notebook runs in a private scratch folder; the executed notebook and the
files the notebook saved beside it come back as bytes in the outcome, so the
caller writes them where the sweep lives, even from another machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .procs import KERNEL_DIR_ENV, kill_worker, register_worker
from .outcome import error_dict
from .record import RESULT_SUFFIX

# Seconds a worker process has to import papermill and a kernel to start.
START_TIMEOUT_S = 120.0
# Seconds allowed past ``timeout_s`` for interrupting a cell and writing the
# notebook before the watchdog kills the point.
GRACE_S = 15.0
# A warm worker is replaced after this many points, bounding whatever a
# kernel accumulates (leaked threads, fragmented memory) over a long sweep.
RECYCLE_AFTER_POINTS = 100
_LOG_TAIL_CHARS = 2000

_local = threading.local()


class WorkerProcess:
    """A ``cuzklab.sweep.worker`` process in its own session, and its private folder."""

    def __init__(self, kernel: str):
        self.kernel = kernel
        self.dir = Path(tempfile.mkdtemp(prefix="cuzklab-worker-"))
        self.log_path = self.dir / "worker.log"
        env = dict(os.environ)
        env[KERNEL_DIR_ENV] = str(self.dir)
        env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
        t0 = time.perf_counter()
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cuzklab.sweep.worker", "--kernel", kernel],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=log, env=env, start_new_session=True)
        self._buf = b""
        self._register()
        self.points = 0
        ready = self.next_event(time.monotonic() + START_TIMEOUT_S)
        if not ready or ready.get("event") != "ready":
            self.kill()
            raise RuntimeError(f"the sweep worker did not start: {self.log_tail()}")
        self.start_s = time.perf_counter() - t0

    # -- bookkeeping for interrupted sweeps ------------------------------------
    def _register(self) -> None:
        self._entry = register_worker(self.proc.pid, self.dir)

    def _unregister(self) -> None:
        if self._entry is not None:
            with contextlib.suppress(FileNotFoundError):
                self._entry.unlink()

    # -- protocol ----------------------------------------------------------------
    def send(self, job: dict[str, Any]) -> None:
        """Hand a job to the worker."""
        self.proc.stdin.write((json.dumps(job) + "\n").encode())
        self.proc.stdin.flush()

    def next_event(self, deadline: float) -> dict[str, Any] | None:
        """Return the worker's next event, or None at the deadline or when it exits."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None  # end of stream: the worker exited
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return json.loads(line)

    def alive(self) -> bool:
        """Return True while the worker process runs."""
        return self.proc.poll() is None

    def exit_text(self) -> str:
        """Return how the worker ended, in words."""
        rc = self.proc.poll()
        if rc is None:
            return "still running"
        if rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = f"signal {-rc}"
            return f"killed by {name}"
        return f"exited with code {rc}"

    def log_tail(self) -> str:
        """Return the end of the worker's stderr log."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return text[-_LOG_TAIL_CHARS:].strip()

    # -- ending ------------------------------------------------------------------
    def kill(self) -> None:
        """Kill the worker's process group and its kernel's, then remove its folder."""
        kill_worker(self.proc.pid, self.dir)
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=10)
        self._close_pipes()
        self._unregister()
        shutil.rmtree(self.dir, ignore_errors=True)

    def close(self) -> None:
        """End the worker and its kernel (killed: a kernel keeps nothing worth a clean exit)."""
        self.kill()

    def _close_pipes(self) -> None:
        for f in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                f.close()


def _take_worker(kernel: str, reuse: bool) -> tuple[WorkerProcess, float]:
    """Return a live worker (the warm one when allowed) and the seconds spent starting it."""
    w: WorkerProcess | None = getattr(_local, "worker", None)
    if w is not None and (not reuse or w.kernel != kernel or not w.alive()
                          or w.points >= RECYCLE_AFTER_POINTS):
        w.close()
        w = _local.worker = None
    if w is not None:
        return w, 0.0
    w = WorkerProcess(kernel)
    if reuse:
        _local.worker = w
    return w, w.start_s


def close_warm_worker() -> None:
    """Shut down this thread's warm worker, if any."""
    w = getattr(_local, "worker", None)
    _local.worker = None
    if w is not None:
        w.close()


def run_point(job: dict[str, Any]) -> dict[str, Any]:
    """Return the outcome of one point: status, error, metrics, timings and its files.

    ``job`` keys: ``id``, ``parameters``, ``notebook`` (path), ``notebook_text``
    (used when the path does not exist here), ``cwd``, ``kernel``,
    ``timeout_s``, and optionally ``grace_s``, ``start_timeout_s``,
    ``reuse_kernel``.
    """
    t_start = time.time()
    t0 = time.perf_counter()
    pid = job["id"]
    reuse = bool(job.get("reuse_kernel", True))
    timeout_s = float(job["timeout_s"])
    grace_s = float(job.get("grace_s", GRACE_S))
    scratch = Path(tempfile.mkdtemp(prefix="cuzklab-point-"))
    notebook = job["notebook"]
    if not Path(notebook).is_file():
        notebook = str(scratch / "input.ipynb")
        Path(notebook).write_text(job["notebook_text"], encoding="utf-8")
    cwd = job.get("cwd") or ""
    if not cwd or not Path(cwd).is_dir():
        cwd = str(scratch)
    task = {"id": pid, "parameters": job["parameters"], "notebook": notebook, "cwd": cwd,
            "kernel": job["kernel"], "timeout_s": timeout_s,
            "output_path": str(scratch / f"{pid}.ipynb"),
            "result_path": str(scratch / f"{pid}{RESULT_SUFFIX}")}
    timings: dict[str, Any] = {}
    status, error = "crashed", None
    worker = None
    try:
        try:
            worker, timings["worker_start_s"] = _take_worker(job["kernel"], reuse)
        except Exception as exc:
            error = error_dict(type(exc).__name__, str(exc))
        if worker is not None:
            status, error, more = _watch(worker, task, timeout_s, grace_s,
                                         float(job.get("start_timeout_s", START_TIMEOUT_S)))
            timings.update(more)
            worker.points += 1
            if not reuse and worker.alive():
                worker.close()
        metrics = _read_json(Path(task["result_path"]))
        artifacts = {p.name: p.read_bytes() for p in sorted(scratch.iterdir())
                     if p.is_file() and p.name.startswith(f"{pid}.")
                     and not p.name.endswith(RESULT_SUFFIX)}
    except BaseException:
        if worker is not None:
            worker.kill()
            _local.worker = None
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    timings["started"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t_start))
    timings["wall_s"] = round(time.perf_counter() - t0, 4)
    return {"id": pid, "status": status, "error": error, "metrics": metrics or {},
            "timings": timings, "host": socket.gethostname(), "artifacts": artifacts}


def _watch(worker: WorkerProcess, task: dict[str, Any], timeout_s: float, grace_s: float,
           start_timeout_s: float) -> tuple[str, dict | None, dict[str, Any]]:
    """Run ``task`` on ``worker`` under the two deadlines; return (status, error, timings)."""
    worker.send(task)
    deadline = time.monotonic() + start_timeout_s
    started = False
    while True:
        ev = worker.next_event(deadline)
        if ev is None:
            break
        if ev.get("event") == "started":
            started = True
            deadline = time.monotonic() + timeout_s + grace_s
        elif ev.get("event") == "done":
            return ev["status"], ev.get("error"), dict(ev.get("timings") or {})
    # The deadline passed or the worker died.
    if worker.alive():
        worker.kill()
        _local.worker = None
        if started:
            return "timeout", error_dict(
                "Watchdog", f"the point ran past its {timeout_s:g} s budget (+{grace_s:g} s "
                            f"grace) and was killed with its kernel"), {}
        return "crashed", error_dict(
            "KernelStartTimeout", f"the kernel did not start within {start_timeout_s:g} s"), {}
    how = worker.exit_text()
    tail = worker.log_tail().splitlines()[-3:]
    worker.kill()
    _local.worker = None
    msg = f"the process running the point {how} (e.g. killed for memory)"
    if tail:
        msg += "; last log lines: " + " | ".join(tail)
    return "crashed", error_dict("WorkerDied", msg), {}


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
