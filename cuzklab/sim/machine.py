"""The host's shared CPU cores and memory bandwidth, as processor sharing.

Like a water company that must split a fixed flow among households whenever
one opens or closes a tap, the :class:`Machine` recomputes every running CPU
job's share each time a job starts or ends, advancing each job's remaining
work at its old rate first.

Three layers decide a job's speed:

1. threads: the ``gpu_threads`` pool (prep_msm takes one thread, b_g2_msm
   jobs share the rest, max-min fair); single-thread jobs (epilogue) take one
   core; syntheses share the rayon pool (``synthesis_threads``) with the cores
   the pool jobs leave, weighted by age (rayon serves the oldest job's tasks
   first) and capped at a synthesis's own parallelism;
2. memory bandwidth: each job asks ``bw_gbps_per_thread x threads`` (a DMA
   upload asks the PCIe rate); the node's bandwidth is split max-min fair,
   each job capped at what it asks;
3. a job whose bandwidth share is below its demand slows down in proportion
   to how memory-bound it is: speed = 1 / ((1 - m) + m * demand / share).

Memory pressure (reclaim, page faults and TLB misses when RSS nears RAM)
slows each job by ``1 + k x pressure``, with ``k`` the stage's sensitivity and
pressure running from 0 (RSS below the profile's threshold) to 1 (RSS at RAM). Each finished job reports its slowdown: its duration over its
solo duration.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import simpy

KINDS = ("synth", "pool", "single", "dma")


@dataclass(eq=False)
class Job:
    """One piece of CPU (or DMA) work in progress on the machine."""

    kind: str
    work: float                 # core-seconds (GB for dma)
    cap: float                  # most threads it can use (GB/s for dma)
    bw_per_thread: float        # GB/s asked per running thread
    mem_bound: float            # 0 = compute-bound, 1 = bandwidth-bound
    solo_rate: float            # work per second when alone on the machine
    event: simpy.Event
    pressure_k: float = 0.0     # slowdown per unit of memory pressure
    order: int = 0
    start: float = 0.0
    remaining: float = 0.0
    rate: float = 0.0
    threads: float = 0.0
    demand: float = 0.0
    share: float = 0.0
    info: dict = field(default_factory=dict)


def waterfill(total: float, caps: list[float], weights: list[float] | None = None) -> list[float]:
    """Return a max-min fair (weighted) split of ``total`` with per-item caps."""
    n = len(caps)
    out = [0.0] * n
    if n == 0 or total <= 0:
        return out
    w = weights or [1.0] * n
    active = [i for i in range(n) if caps[i] > 0]
    left = total
    while active and left > 1e-12:
        wsum = sum(w[i] for i in active)
        level = left / wsum
        capped = [i for i in active if caps[i] - out[i] <= level * w[i] + 1e-15]
        if not capped:
            for i in active:
                out[i] += level * w[i]
            break
        for i in capped:
            left -= caps[i] - out[i]
            out[i] = caps[i]
        active = [i for i in active if i not in capped]
    return out


class Machine:
    """Processor sharing of cores and memory bandwidth among running CPU jobs."""

    def __init__(self, env: simpy.Environment, *, cores: int, ddr_gbps: float,
                 synthesis_threads: int, pool_threads: int, age_priority: float,
                 pool_weight: float = 1.0, on_rates=None):
        self.env = env
        self.cores = float(cores)
        self.ddr_gbps = float(ddr_gbps)
        self.synthesis_threads = float(synthesis_threads)
        self.pool_threads = float(pool_threads)
        self.age_priority = float(age_priority)
        self.pool_weight = float(pool_weight)
        self.pressure = 0.0
        self.jobs: list[Job] = []
        self._by_event: dict[int, Job] = {}
        self._last = env.now
        self._gen = 0
        self._order = itertools.count()
        self._on_rates = on_rates
        self.bandwidth_used = 0.0

    # -- public ----------------------------------------------------------------
    def run(self, kind: str, work: float, *, cap: float, bw_per_thread: float = 0.0,
            mem_bound: float = 0.0, pressure_k: float = 0.0, solo_rate: float | None = None,
            **info) -> simpy.Event:
        """Start a job; return an event whose value is (start, end, slowdown)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        ev = self.env.event()
        solo = solo_rate if solo_rate is not None else self._solo_rate(kind, cap)
        job = Job(kind=kind, work=max(work, 1e-12), cap=cap, bw_per_thread=bw_per_thread,
                  mem_bound=mem_bound, solo_rate=max(solo, 1e-12), event=ev,
                  pressure_k=pressure_k,
                  order=next(self._order), start=self.env.now, remaining=max(work, 1e-12),
                  info=info)
        self._advance()
        self.jobs.append(job)
        self._by_event[id(ev)] = job
        self._reschedule()
        return ev

    def progress(self, event: simpy.Event) -> float:
        """Return the done fraction (0..1) of the job behind ``event``."""
        job = self._by_event.get(id(event))
        if job is None:
            return 1.0
        self._advance()
        return min(1.0, max(0.0, 1.0 - job.remaining / job.work))

    def set_pressure(self, factor: float) -> None:
        """Set the memory pressure (0 = none, 1 = RSS at RAM); jobs slow by 1 + k x it."""
        factor = max(0.0, float(factor))
        if abs(factor - self.pressure) < 1e-9:
            return
        self._advance()
        self.pressure = factor
        self._reschedule()

    def count(self, kind: str) -> int:
        """Return how many jobs of ``kind`` are running."""
        return sum(1 for j in self.jobs if j.kind == kind)

    # -- internals -------------------------------------------------------------
    def _solo_rate(self, kind: str, cap: float) -> float:
        if kind == "dma":
            return min(cap, self.ddr_gbps)
        if kind == "synth":
            return min(cap, self.synthesis_threads, self.cores)
        if kind == "pool":
            return min(cap, self.pool_threads, self.cores)
        return 1.0

    def _advance(self) -> None:
        dt = self.env.now - self._last
        if dt > 0:
            for j in self.jobs:
                j.remaining -= j.rate * dt
        self._last = self.env.now

    def _allocate(self) -> None:
        jobs = self.jobs
        pool = [j for j in jobs if j.kind == "pool"]
        single = [j for j in jobs if j.kind == "single"]
        synth = [j for j in jobs if j.kind == "synth"]
        dma = [j for j in jobs if j.kind == "dma"]
        for j, t in zip(pool, waterfill(self.pool_threads, [min(j.cap, self.pool_threads)
                                                            for j in pool])):
            j.threads = t
        for j in single:
            j.threads = 1.0
        want_pool = sum(j.threads for j in pool) + len(single)
        want_synth = min(self.synthesis_threads, sum(j.cap for j in synth))
        if want_pool + want_synth > self.cores and want_pool > 0:
            # The OS shares the cores among runnable threads; the pool's threads
            # weigh pool_weight each (short, latency-bound bursts win more often).
            wp = self.pool_weight * want_pool
            pool_cores = min(want_pool, self.cores * wp / (wp + want_synth))
            scale = pool_cores / want_pool
            for j in pool + single:
                j.threads *= scale
            used = pool_cores
        else:
            used = want_pool
        free = max(0.0, min(self.synthesis_threads, self.cores - used))
        if synth:
            ranked = sorted(synth, key=lambda j: j.order)
            weights = [self.age_priority ** r for r in range(len(ranked))]
            for j, t in zip(ranked, waterfill(free, [j.cap for j in ranked], weights)):
                j.threads = t
        total_threads = sum(j.threads for j in jobs if j.kind != "dma")
        cpu = min(1.0, self.cores / total_threads) if total_threads > 0 else 1.0
        for j in jobs:
            j.demand = j.cap if j.kind == "dma" else j.bw_per_thread * j.threads * cpu
        shares = waterfill(self.ddr_gbps, [j.demand for j in jobs])
        self.bandwidth_used = sum(shares)
        for j, a in zip(jobs, shares):
            j.share = a
            slow = 1.0 + j.pressure_k * self.pressure
            if j.kind == "dma":
                j.rate = a / slow
                continue
            if j.demand > 0 and a < j.demand:
                speed = 1.0 / ((1.0 - j.mem_bound) + j.mem_bound * j.demand / max(a, 1e-12))
            else:
                speed = 1.0
            j.rate = j.threads * cpu * speed / slow

    def _reschedule(self) -> None:
        self._allocate()
        if self._on_rates is not None:
            self._on_rates(self)
        self._gen += 1
        gen = self._gen
        nxt = min((j.remaining / j.rate for j in self.jobs if j.rate > 0), default=None)
        if nxt is None:
            return
        t = self.env.timeout(max(nxt, 0.0))
        t.callbacks.append(lambda _ev, gen=gen: self._wake(gen))

    def _wake(self, gen: int) -> None:
        if gen != self._gen:
            return  # superseded by a later change
        self._advance()
        done = [j for j in self.jobs
                if j.remaining <= 1e-9 * max(1.0, j.work) or
                (j.rate > 0 and j.remaining / j.rate < 1e-9)]
        if not done:
            self._reschedule()
            return
        for j in done:
            self.jobs.remove(j)
            self._by_event.pop(id(j.event), None)
        now = self.env.now
        for j in done:
            solo = j.work / j.solo_rate
            j.event.succeed((j.start, now, (now - j.start) / solo if solo > 0 else 1.0))
        self._reschedule()
