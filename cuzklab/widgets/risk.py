"""The OOM risk of a configuration: the share of seeds whose run goes out of memory.

One seed's run says yes or no; whether a configuration near its memory limit
runs out of memory can depend on the seed (the jitter of stage costs moves
the peaks). The explorer shows the run of the configuration's seed at once
and runs the next seeds (``seed+1 .. seed+n-1``) here in the background: in
one worker process at the lowest CPU priority, so the panel stays responsive
and the browser keeps its core. :class:`SeedRuns` keeps, per configuration,
which seeds ran out of memory, and cancels the seeds of a configuration the
user has moved away from before they start. The worker is a plain child
process (:class:`Worker`) that reads its calls on its standard input.

The same definition as the sweep reports' ``oom_risk`` over ``oom_seeds`` and
``cuzklab simulate --seeds``: the fraction of the ``n`` seeds whose run
exceeded host memory.
"""

from __future__ import annotations

import atexit
import base64
import os
import pickle
import subprocess
import sys
import threading
from collections import deque
from concurrent.futures import Future
from pathlib import Path

#: Seeds behind the explorer's OOM risk by default (as the sweep notebook's ``oom_seeds``).
DEFAULT_OOM_SEEDS = 3
MAX_OOM_SEEDS = 20


def ran_out_of_memory(trace) -> bool:
    """Return True when ``trace``'s run exceeded host memory (the summary's ``oom``)."""
    return bool(trace.failed and (trace.meta.get("failure") or {}).get("reason") == "oom")


def seed_oom(config: dict, profile: str | None, seed: int, workload=None) -> bool:
    """Simulate ``config`` (a dict) with ``seed``; return whether it ran out of host memory."""
    from ..model import PipelineConfig
    from ..sim import simulate
    cfg = PipelineConfig.coerce(config).replace(seed=seed)
    return ran_out_of_memory(simulate(cfg, profile, workload=workload))


def _line(obj) -> bytes:
    return base64.b64encode(pickle.dumps(obj)) + b"\n"


def serve(stdin=None, stdout=None) -> None:
    """Run jobs read from ``stdin`` until it closes: one pickled (function, args) a line.

    Answers each with a line of (True, result) or (False, error text). This is
    the background worker; it runs at the lowest CPU priority.
    """
    if hasattr(os, "nice"):
        try:
            os.nice(19)
        except OSError:
            pass
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    for raw in stdin:
        fn, args = pickle.loads(base64.b64decode(raw))
        try:
            answer = (True, fn(*args))
        except Exception as exc:  # noqa: BLE001 - reported to the caller, the worker goes on
            answer = (False, f"{type(exc).__name__}: {exc}")
        stdout.write(_line(answer))
        stdout.flush()


class Worker:
    """One background Python process that runs submitted calls one at a time, in order.

    A plain child process reading jobs on its standard input (not
    multiprocessing, which would run a script's main module again in the
    child). Calls wait here until the worker is free, so a call that has not
    started can be cancelled (``Future.cancel()``). The process starts on the
    first call and ends when this process exits.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._queue: deque[tuple[Future, bytes]] = deque()
        self._busy: Future | None = None
        self._proc: subprocess.Popen | None = None

    def submit(self, fn, *args) -> Future:
        """Queue ``fn(*args)`` (a module-level function, picklable arguments); return its Future."""
        fut: Future = Future()
        with self._lock:
            self._queue.append((fut, _line((fn, args))))
            self._next_locked()
        return fut

    def _start_locked(self) -> None:
        root = str(Path(__file__).resolve().parents[2])   # this cuzklab, whatever sys.path says
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "from cuzklab.widgets.risk import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        atexit.register(_end, self._proc)
        threading.Thread(target=self._read, args=(self._proc,), daemon=True,
                         name="cuzklab-seed-worker").start()

    def _next_locked(self) -> None:
        if self._busy is not None:
            return
        while self._queue:
            fut, line = self._queue.popleft()
            if not fut.set_running_or_notify_cancel():
                continue   # cancelled while it waited
            if self._proc is None or self._proc.poll() is not None:
                self._start_locked()
            self._busy = fut
            try:
                self._proc.stdin.write(line)
                self._proc.stdin.flush()
            except OSError as exc:
                self._busy = None
                fut.set_exception(RuntimeError(f"the background worker stopped: {exc}"))
                continue
            return

    def _read(self, proc: subprocess.Popen) -> None:
        for raw in proc.stdout:
            ok, value = pickle.loads(base64.b64decode(raw))
            with self._lock:
                fut, self._busy = self._busy, None
                self._next_locked()
            if fut is not None:
                if ok:
                    fut.set_result(value)
                else:
                    fut.set_exception(RuntimeError(value))
        with self._lock:   # the process ended: fail the call it had
            if self._busy is not None and self._proc is proc:
                fut, self._busy = self._busy, None
                fut.set_exception(RuntimeError("the background worker exited"))
                self._next_locked()


def _end(proc: subprocess.Popen) -> None:
    """End the worker ``proc`` with this process (a seed it was running is of no use now)."""
    if proc.poll() is None:
        proc.terminate()


_WORKER = Worker()


def risk_text(seed: int, n: int, ooms: dict[int, bool]) -> str:
    """Return the OOM risk over seeds ``seed .. seed+n-1`` in words, or how far its seeds got."""
    seeds = f"seed {seed}" if n == 1 else f"seeds {seed}-{seed + n - 1}"
    done = [ooms[s] for s in range(seed, seed + n) if s in ooms]
    k = sum(done)
    if len(done) < n:
        return (f"OOM risk over {n} seeds ({seeds}): {k} of the {len(done)} run so far ran "
                f"out of host memory; {n - len(done)} more run in the background…")
    return (f"OOM risk {k / n:.0%}: {k} of {n} {'seed' if n == 1 else 'seeds'} ({seeds}) "
            f"ran out of host memory")


class SeedRuns:
    """Background runs of a configuration's other seeds, and their OOM verdicts, by key."""

    def __init__(self):
        self._pending: dict[str, list[Future]] = {}
        self.results: dict[str, dict[int, bool]] = {}

    def known(self, key: str) -> dict[int, bool]:
        """Return {seed: ran out of memory} of the seeds of ``key`` that have run."""
        return self.results.setdefault(key, {})

    def start(self, key: str, job, seeds, on_done=None) -> int:
        """Run ``job(seed)``'s call for each of ``seeds`` not yet known; return how many started.

        ``job(seed)`` returns (function, args) for the worker process. Seeds of
        other keys that have not started yet are cancelled: only the
        configuration shown is worth the CPU. ``on_done()`` is called (from a
        worker thread) after each seed finishes.
        """
        for other in [k for k in self._pending if k != key]:
            for fut in self._pending.pop(other):
                fut.cancel()
        known = self.known(key)
        pending = [f for f in self._pending.get(key, []) if not f.done()]
        running = {f.seed for f in pending}
        started = 0
        for seed in seeds:
            if seed in known or seed in running:
                continue
            fn, args = job(seed)
            fut = _WORKER.submit(fn, *args)
            fut.seed = seed
            fut.add_done_callback(lambda f, key=key: self._done(key, f, on_done))
            pending.append(fut)
            started += 1
        self._pending[key] = pending
        return started

    def _done(self, key: str, fut: Future, on_done) -> None:
        if fut.cancelled():
            return
        try:
            self.known(key)[fut.seed] = bool(fut.result())
        except Exception:  # noqa: BLE001 - a seed that fails to run says nothing of memory
            return
        if on_done is not None:
            on_done()

    def wait(self, key: str, timeout: float | None = None) -> None:
        """Block until the seeds of ``key`` that were started have finished."""
        for fut in list(self._pending.get(key, [])):
            try:
                fut.result(timeout=timeout)
            except Exception:  # noqa: BLE001 - cancelled or failed: nothing to wait for
                pass
