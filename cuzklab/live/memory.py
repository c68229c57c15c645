"""Host memory of a live run: RSS, the memory guard and the counter sampler.

The guard's limit is the lower of the config's ``memory_gib`` and what the
host can give this process: MemAvailable at the start plus the RSS the
process already had. Before a partition is allocated the guard checks that
the RSS, plus what the partitions already admitted will still allocate, plus
the new partition, stays under the limit; the sampler checks the RSS itself
every :data:`SAMPLE_S`. Either stops the run with ``oom`` before the host has
to, so a live run never takes the machine down.
"""

from __future__ import annotations

import os
import threading
from typing import Callable

GIB = 2**30

#: Sampling period of the counters (seconds): fine enough to catch the
#: a/b/c peaks of partitions that live for tens of milliseconds.
SAMPLE_S = 0.05

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_bytes() -> int:
    """Return this process's resident set size in bytes (/proc/self/statm, else psutil)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except OSError:  # pragma: no cover - not Linux
        import psutil
        return int(psutil.Process().memory_info().rss)


def available_bytes() -> int:
    """Return the host's MemAvailable in bytes (/proc/meminfo, else psutil)."""
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    import psutil  # pragma: no cover
    return int(psutil.virtual_memory().available)  # pragma: no cover


class MemoryGuard:
    """Decide, before each allocation, whether the run would pass its memory limit.

    ``pending`` is what admitted partitions will still allocate; the
    executor adds to it when it admits a partition and takes it off as the
    partition's synthesis completes, so two partitions admitted at once
    cannot both pass a check that only one fits.
    """

    def __init__(self, memory_gib: float, *, rss: Callable[[], int] = rss_bytes,
                 available: Callable[[], int] = available_bytes):
        self._rss = rss
        start = rss()
        host = available() + start
        self.config_limit = int(memory_gib * GIB)
        self.host_limit = int(host)
        self.limit = min(self.config_limit, self.host_limit)
        self.limited_by = "memory_gib" if self.config_limit <= self.host_limit else "host"
        self.start_rss = start
        self.pending = 0
        self._lock = threading.Lock()

    def describe(self) -> str:
        """Return the limit and where it comes from, for error messages."""
        if self.limited_by == "memory_gib":
            return f"memory_gib = {self.config_limit / GIB:.3f} GiB"
        return (f"the host's available memory ({self.host_limit / GIB:.3f} GiB: MemAvailable at "
                f"start plus this process's RSS)")

    def admit(self, nbytes: int) -> str | None:
        """Count ``nbytes`` as pending and return None, or return why they would not fit."""
        with self._lock:
            rss = self._rss()
            want = rss + self.pending + nbytes
            if want > self.limit:
                return (f"allocating {nbytes / GIB:.4f} GiB more (RSS {rss / GIB:.3f} GiB, "
                        f"{self.pending / GIB:.4f} GiB admitted and not yet allocated) would "
                        f"pass {self.describe()}")
            self.pending += nbytes
            return None

    def allocated(self, nbytes: int) -> None:
        """Take ``nbytes`` of an admitted partition off ``pending`` (it is now in the RSS)."""
        with self._lock:
            self.pending = max(0, self.pending - nbytes)

    def over(self, rss: int) -> str | None:
        """Return why ``rss`` is over the limit, or None."""
        if rss > self.limit:
            return f"RSS {rss / GIB:.3f} GiB passed {self.describe()}"
        return None


class Sampler(threading.Thread):
    """A thread that records the counters every SAMPLE_S and stops the run past the memory limit."""

    def __init__(self, *, now, record, guard: MemoryGuard, devices, stop, fail,
                 extra: Callable[[], dict] | None = None, period: float = SAMPLE_S):
        super().__init__(name="live-sampler", daemon=True)
        self._now, self._record, self._guard = now, record, guard
        self._devices, self._fail = devices, fail
        self._extra = extra
        self._period = period
        self._done = threading.Event()
        self.peak_rss = 0

    def sample(self) -> None:
        """Record one sample of every counter (and fail the run when over the limit)."""
        t = self._now()
        rss = rss_bytes()
        self.peak_rss = max(self.peak_rss, rss)
        self._record(t, "rss_gib", rss / GIB)
        total = 0
        for d in self._devices:
            used = d.used_bytes()
            total += used
            if len(self._devices) > 1:
                self._record(t, f"vram_gib.{d.name}", used / GIB)
        self._record(t, "vram_gib", total / GIB)
        if self._extra:
            for name, value in self._extra().items():
                self._record(t, name, value)
        why = self._guard.over(rss)
        if why:
            self._fail("oom", why)

    def run(self) -> None:
        while not self._done.is_set():
            self.sample()
            if self._done.wait(self._period):
                break
        self.sample()

    def finish(self) -> None:
        """Take a last sample and end the thread."""
        self._done.set()
        self.join()
