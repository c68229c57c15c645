"""Host memory: the RSS account, the admission budget and the dealloc thread.

:class:`HostMemory` adds and removes GiB as buffers are allocated and freed,
samples RSS into the trace, and fails the run the moment RSS passes the
node's RAM. :class:`BudgetGate` is cuzk's memory budget: head-of-line FIFO
reservations that wait until they fit (a request larger than the whole budget
waits forever, as in cuzk).
"""

from __future__ import annotations

from collections import deque

import simpy


class HostMemory:
    """RSS accounting with an out-of-memory trip wire and a pressure factor."""

    def __init__(self, env: simpy.Environment, *, ram_gib: float, base_gib: float,
                 pressure_start: float, on_change, on_oom):
        self.env = env
        self.ram_gib = float(ram_gib)
        self.rss = float(base_gib)
        self.pressure_start = pressure_start
        self._on_change = on_change
        self._on_oom = on_oom
        self.oom = False

    def pressure(self) -> float:
        """Return memory pressure: 0 below the threshold, 1 with RSS at RAM."""
        frac = self.rss / self.ram_gib
        if self.pressure_start >= 1.0:
            return 0.0
        return max(0.0, frac - self.pressure_start) / (1.0 - self.pressure_start)

    def alloc(self, gib: float, what: str = "") -> None:
        """Add ``gib`` to RSS; trip the OOM wire if RSS passes RAM."""
        if gib <= 0 or self.oom:
            return
        self.rss += gib
        self._on_change(self)
        if self.rss > self.ram_gib:
            self.oom = True
            self._on_oom(f"host RSS {self.rss:.1f} GiB passed RAM {self.ram_gib:.1f} GiB "
                         f"allocating {gib:.1f} GiB for {what or 'a buffer'}")

    def free(self, gib: float) -> None:
        """Remove ``gib`` from RSS."""
        if gib <= 0 or self.oom:
            return
        self.rss = max(0.0, self.rss - gib)
        self._on_change(self)


class BudgetGate:
    """cuzk's memory budget: FIFO reservations of GiB against a fixed total."""

    def __init__(self, env: simpy.Environment, total_gib: float, on_change):
        self.env = env
        self.total = float(total_gib)
        self.used = 0.0
        self._waiters: deque[tuple[float, simpy.Event]] = deque()
        self._on_change = on_change

    def reserve(self, gib: float) -> simpy.Event:
        """Return an event that fires once ``gib`` is reserved (FIFO order)."""
        ev = self.env.event()
        self._waiters.append((gib, ev))
        self._grant()
        return ev

    def release(self, gib: float) -> None:
        """Give ``gib`` back and wake the waiters that now fit."""
        self.used = max(0.0, self.used - gib)
        self._on_change(self)
        self._grant()

    def _grant(self) -> None:
        while self._waiters and self.used + self._waiters[0][0] <= self.total + 1e-9:
            gib, ev = self._waiters.popleft()
            self.used += gib
            ev.succeed()
            self._on_change(self)


class Deallocator:
    """The serialized background thread that returns freed buffers to the OS."""

    def __init__(self, env: simpy.Environment, memory: HostMemory, seconds_per_16gib: float):
        self.env = env
        self.memory = memory
        self.rate = seconds_per_16gib / 16.0
        self._queue = simpy.Store(env)
        env.process(self._run())

    def free(self, gib: float) -> None:
        """Queue ``gib`` to be freed after the munmap time of what is ahead of it."""
        if gib > 0:
            self._queue.put(gib)

    def _run(self):
        while True:
            gib = yield self._queue.get()
            if self.rate > 0:
                yield self.env.timeout(gib * self.rate)
            self.memory.free(gib)
