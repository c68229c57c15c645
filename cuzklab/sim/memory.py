"""Host memory: the RSS account, the admission budget and the dealloc thread.

:class:`HostMemory` adds and removes GiB as buffers are allocated and freed,
samples RSS into the trace, and fails the run the moment RSS passes the
node's RAM. :class:`BudgetGate` is cuzk's memory budget: head-of-line FIFO
reservations that wait until they fit (a request larger than the whole budget
waits forever, as in cuzk).
"""

from __future__ import annotations

import math
from collections import deque

import simpy


class HostMemory:
    """RSS accounting with an out-of-memory trip wire and a reclaim-pressure factor.

    Pressure models direct reclaim on the page-fault path. The daemon's host
    does little file I/O once the SRS and PCE are loaded, so memory the daemon
    frees stays on the kernel's free list and the next allocations reuse it
    without reclaiming anything. Only a *net* rise of RSS has to be taken from
    the page cache, and that costs more the less of it is left (RSS near RAM).
    So pressure = ramp x gate: the ramp runs from 0 at ``pressure_start`` x RAM
    to 1 at RAM (a share of the node's RAM, so it scales with the node); the
    gate is the net RSS rise over the last ``window_s`` seconds in units of
    ``growth_gib`` (0 when RSS is flat or falling, 1 from ``growth_gib`` up).
    A steady pipeline near its memory limit (allocations matched by frees)
    therefore runs at full speed, while a pile-up that keeps growing slows the
    CPU stages, which drain it more slowly still.
    """

    def __init__(self, env: simpy.Environment, *, ram_gib: float, base_gib: float,
                 pressure_start: float, on_change, on_oom, window_s: float = 0.0,
                 growth_gib: float = 0.0):
        self.env = env
        self.ram_gib = float(ram_gib)
        self.rss = float(base_gib)
        self.pressure_start = pressure_start
        self.window_s = float(window_s)
        self.growth_gib = float(growth_gib)
        self._history: deque[tuple[float, float]] = deque([(env.now, self.rss)])
        # The history's running minimum: (entry number, RSS) with RSS rising
        # front to back, so the front is the least RSS still in the window.
        self._added = 1          # entries ever recorded; the history holds the last ones
        self._lows: deque[tuple[int, float]] = deque([(0, self.rss)])
        self._on_change = on_change
        self._on_oom = on_oom
        self.oom = False

    def ramp(self) -> float:
        """Return the RSS ramp: 0 below ``pressure_start`` x RAM, 1 with RSS at RAM."""
        frac = self.rss / self.ram_gib
        if self.pressure_start >= 1.0:
            return 0.0
        return max(0.0, frac - self.pressure_start) / (1.0 - self.pressure_start)

    def growth(self) -> float:
        """Return the net RSS rise (GiB) over the last ``window_s`` seconds (0 if none)."""
        if self.window_s <= 0:
            return math.inf
        return max(0.0, self.rss - self._lows[0][1])

    def pressure(self) -> float:
        """Return memory pressure: the RSS ramp gated by the recent net RSS rise."""
        if self.growth_gib <= 0 or self.window_s <= 0:
            return self.ramp()
        return self.ramp() * min(1.0, self.growth() / self.growth_gib)

    def _record(self) -> None:
        now = self.env.now
        self._history.append((now, self.rss))
        while self._lows and self._lows[-1][1] >= self.rss:
            self._lows.pop()
        self._lows.append((self._added, self.rss))
        self._added += 1
        while len(self._history) > 1 and self._history[1][0] <= now - self.window_s:
            self._history.popleft()
        first = self._added - len(self._history)   # number of the oldest entry kept
        while self._lows[0][0] < first:
            self._lows.popleft()

    def alloc(self, gib: float, what: str = "") -> None:
        """Add ``gib`` to RSS; trip the OOM wire if RSS passes RAM."""
        if gib <= 0 or self.oom:
            return
        self.rss += gib
        self._record()
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
        self._record()
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
