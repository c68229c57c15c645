"""Timing of one stage: wall clock always, CUDA events too when it ran on the GPU.

A :class:`StageClock` fixes the time origin of a run; ``clock.stage(name,
lane, backend)`` is a context manager that records a :class:`StageTiming`.
On the GPU the stage is bracketed by CUDA events on the current stream and
the device is synchronized at its end, so the wall clock covers the kernels.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from ..backend import check_backend, xp
from ..trace.schema import STAGES


@dataclass(frozen=True)
class StageTiming:
    """When one stage ran: seconds since the clock's origin, wall and GPU durations."""

    stage: str
    lane: str
    start: float
    end: float
    gpu_s: float | None = None   # CUDA event time (None on the CPU)

    @property
    def wall_s(self) -> float:
        """Return end - start."""
        return self.end - self.start


class StageClock:
    """A time origin plus the timings recorded against it, in order.

    Threads may share one clock: recording is locked, and ``last()`` returns
    the latest timing recorded by the calling thread.
    """

    def __init__(self):
        self.origin = time.perf_counter()
        self.timings: list[StageTiming] = []
        self._lock = threading.Lock()
        self._mine = threading.local()

    def now(self) -> float:
        """Return seconds since the origin."""
        return time.perf_counter() - self.origin

    @contextmanager
    def stage(self, name: str, lane: str, backend: str = "cpu"):
        """Time the body as stage ``name`` on ``lane``; yields nothing, records a StageTiming."""
        if name not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}, got {name!r}")
        check_backend(backend)
        events = None
        if backend == "gpu":
            cp = xp("gpu")
            events = (cp.cuda.Event(), cp.cuda.Event())
            events[0].record()
        start = self.now()
        yield
        gpu_s = None
        if events is not None:
            cp = xp("gpu")
            events[1].record()
            events[1].synchronize()
            gpu_s = cp.cuda.get_elapsed_time(events[0], events[1]) / 1e3
        timing = StageTiming(name, lane, start, self.now(), gpu_s)
        with self._lock:
            self.timings.append(timing)
        self._mine.last = timing

    def last(self) -> StageTiming:
        """Return the most recent timing recorded by the calling thread."""
        mine = getattr(self._mine, "last", None)
        return mine if mine is not None else self.timings[-1]


def new_clock(clock: StageClock | None) -> StageClock:
    """Return ``clock`` or a fresh one."""
    return StageClock() if clock is None else clock


#: Lanes used by the prover's trace: the main CPU thread, the b_g2_msm pool
#: and the first worker of GPU 0.
CPU_LANE = "cpu.main"
POOL_LANE = "cpu.pool"
GPU_LANE = "gpu0.w0"


def lane_for(backend: str) -> str:
    """Return the lane of a stage running on ``backend``."""
    return GPU_LANE if check_backend(backend) == "gpu" else CPU_LANE
