"""Thread primitives of the live executor: a stop flag, a byte budget, a bounded channel.

Every wait in a live run goes through :func:`wait_until` or one of the classes
here and wakes up at least every :data:`POLL_S` seconds to look at the run's
:class:`Stop` flag, so a failure (out of memory, Ctrl-C) ends every thread
promptly instead of leaving one blocked on a queue or a lock.
"""

from __future__ import annotations

import collections
import contextlib
from concurrent.futures import TimeoutError as FutureTimeout
import sys
import threading
import time
from typing import Callable

#: How often a blocked thread re-checks the stop flag (seconds). Short enough
#: that Ctrl-C ends a run within a tenth of a second, long enough to cost nothing.
POLL_S = 0.02

#: The interpreter's thread switch interval during a live run (seconds; Python's
#: default is 0.005). cuzk's threads have no interpreter lock to share; here a GPU
#: worker that needs the GIL to launch its next kernel can wait up to an interval
#: behind the run's other Python threads. Measured on an H200 host at 2^20 (16 vCPUs),
#: when the native pools were Python threads that took the lock between their calls:
#: one partition's GPU region beside b_g2_msm calls running back to back took x1.61 its
#: time alone at 0.005 s and x1.32 at 0.0001 s, and a split_async run (pw=12, witness
#: work 0) went from 1.1 to 1.0 s/proof.
SWITCH_INTERVAL_S = 0.0001

_SWITCH_LOCK = threading.Lock()
_SWITCH_DEPTH = [0, None]  # runs inside, the interval before the first


@contextlib.contextmanager
def switch_interval(seconds: float = SWITCH_INTERVAL_S):
    """Run the body with the interpreter's switch interval at ``seconds`` (nested runs share it)."""
    with _SWITCH_LOCK:
        if _SWITCH_DEPTH[0] == 0:
            _SWITCH_DEPTH[1] = sys.getswitchinterval()
            sys.setswitchinterval(seconds)
        _SWITCH_DEPTH[0] += 1
    try:
        yield
    finally:
        with _SWITCH_LOCK:
            _SWITCH_DEPTH[0] -= 1
            if _SWITCH_DEPTH[0] == 0:
                sys.setswitchinterval(_SWITCH_DEPTH[1])


class Stopped(Exception):
    """Raised inside a live-run thread when the run has been told to stop."""


class Stop:
    """The run's stop flag: set once, with the reason of the first caller."""

    def __init__(self):
        self._event = threading.Event()
        self.reason: str | None = None
        self.message: str = ""
        self.at: float | None = None
        self._lock = threading.Lock()

    def set(self, reason: str | None = None, message: str = "", at: float | None = None) -> bool:
        """Set the flag; return True when this call was the first (its reason is kept)."""
        with self._lock:
            if self._event.is_set():
                return False
            self.reason, self.message, self.at = reason, message, at
            self._event.set()
            return True

    def is_set(self) -> bool:
        """Return True once the run has been told to stop."""
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the flag; return whether it is set."""
        return self._event.wait(timeout)

    def check(self) -> None:
        """Raise :class:`Stopped` when the flag is set."""
        if self._event.is_set():
            raise Stopped(self.reason or "stopped")


def wait_until(ready: Callable[[], bool], stop: Stop) -> None:
    """Poll ``ready()`` until it is true; raise :class:`Stopped` if the run stops first."""
    while not ready():
        stop.check()
        time.sleep(POLL_S)


def acquire(lock, stop: Stop) -> None:
    """Acquire ``lock`` (a threading.Lock or Semaphore), giving up with Stopped if the run stops."""
    while not lock.acquire(timeout=POLL_S):
        stop.check()


def result(future, stop: Stop):
    """Return ``future.result()``, giving up with Stopped if the run stops first."""
    while True:
        try:
            return future.result(timeout=POLL_S)
        except FutureTimeout:
            stop.check()


class Budget:
    """A byte budget: ``reserve(n)`` blocks until n bytes are free (FIFO), ``release(n)`` frees.

    Head-of-line FIFO as cuzk's budget and the model's gate: a large request
    at the front is not overtaken by later small ones. ``on_change(used)`` is
    called after every change, with the lock released.
    """

    def __init__(self, total: int, stop: Stop, on_change: Callable[[int], None] | None = None):
        self.total = int(total)
        self.used = 0
        self.peak = 0
        self._stop = stop
        self._cond = threading.Condition()
        self._queue: collections.deque = collections.deque()
        self._on_change = on_change

    def reserve(self, n: int) -> None:
        """Reserve ``n`` bytes, waiting for room; raise Stopped if the run stops first."""
        n = int(n)
        if n > self.total:
            raise ValueError(f"a reservation of {n} bytes can never fit a budget of {self.total}")
        me = object()
        with self._cond:
            self._queue.append(me)
            try:
                while self._queue[0] is not me or self.used + n > self.total:
                    if self._stop.is_set():
                        raise Stopped(self._stop.reason or "stopped")
                    self._cond.wait(POLL_S)
                self.used += n
                self.peak = max(self.peak, self.used)
            finally:
                self._queue.remove(me)
                self._cond.notify_all()
            used = self.used
        if self._on_change:
            self._on_change(used)

    def release(self, n: int) -> None:
        """Give back ``n`` bytes."""
        n = int(n)
        if n <= 0:
            return
        with self._cond:
            self.used -= n
            used = self.used
            self._cond.notify_all()
        if self._on_change:
            self._on_change(used)


class Channel:
    """A bounded FIFO (cuzk's hand-off channel to the GPU workers) whose put/get obey the stop flag."""

    def __init__(self, capacity: int, stop: Stop):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.capacity = int(capacity)
        self._items: collections.deque = collections.deque()
        self._cond = threading.Condition()
        self._stop = stop

    def __len__(self) -> int:
        with self._cond:
            return len(self._items)

    def put(self, item) -> None:
        """Append ``item``, waiting while the channel is full."""
        with self._cond:
            while len(self._items) >= self.capacity:
                if self._stop.is_set():
                    raise Stopped(self._stop.reason or "stopped")
                self._cond.wait(POLL_S)
            self._items.append(item)
            self._cond.notify_all()

    def get(self):
        """Remove and return the oldest item, waiting while the channel is empty."""
        with self._cond:
            while not self._items:
                if self._stop.is_set():
                    raise Stopped(self._stop.reason or "stopped")
                self._cond.wait(POLL_S)
            item = self._items.popleft()
            self._cond.notify_all()
            return item


class Fifo(Channel):
    """An unbounded FIFO (the queue of partitions waiting for a synthesis worker)."""

    def __init__(self, stop: Stop):
        super().__init__(1, stop)
        self.capacity = 1 << 62
