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
   first) and capped at a synthesis's own parallelism; synthesis jobs that
   name a ``group`` (the MatVecs of a two-step synthesis) also share that
   group's own pool of threads (``group_threads``), max-min fair. When the
   runnable threads outnumber the cores, the pool's threads count
   ``pool_weight`` each against a synthesis thread's 1 in the split of the
   cores between the pool and the syntheses, and a group's threads
   ``group_weights[group]`` each (absent: 1). A job started with ``even_share``
   (a synthesis's one-thread steps, with ``synth.serial_share = "even"``) gets
   no more than an even share of the cores among all the runnable threads,
   ``cores / runnable``, when those outnumber the cores: the OS's scheduler
   switching such a thread out as often as any other, whatever the pool's
   weight gives the syntheses as a whole (what is left of its core stays idle);
2. memory bandwidth: each job asks ``bw_gbps_per_thread x threads`` (a DMA
   upload asks the PCIe rate); the node's bandwidth is split max-min fair,
   each job capped at what it asks;
3. a job whose bandwidth share is below its demand slows down in proportion
   to how memory-bound it is: speed = 1 / ((1 - m) + m * demand / share).

A busy machine also runs each thread slower than an idle one (the cores'
clock falls as more of them run, and they share the last-level cache): with
n threads busy every thread runs at ``1 / (1 + busy_slowdown x min(1, (n - 1)
/ (busy_knee - 1)))`` of its speed alone, relative to the busy threads of the
job's own solo run, so a solo time measured on a pool of 16 threads keeps its
meaning. ``busy_slowdown = 0`` (the default) turns it off.

A pool job may also run slower beside syntheses whatever share of the cores it
keeps (``neighbour_slowdown`` k, b_g2_msm's; a mechanism under trial, in no
shipped profile): its threads at ``1 / (1 + k x s / cores)`` of their speed with
``s`` synthesis jobs running (at most ``cores``). Its bucket sums keep their state
in the cores' caches; every thread the OS switches in beside them evicts part of
it. The pool's share of the cores alone gives a slowdown that rises evenly from
the first synthesis; the one measured beside one-thread syntheses is flat while
they take the cores a call leaves idle (b_g2_msm's ``pool_width``) and steeper
past them. It follows that curve and loses rows of the daemon's (docs/calibrate.md,
"A neighbour slowdown of the b_g2_msm pool, tried and not kept").

Jobs that gather at random from large arrays (the MatVec: every row reads
witness values scattered over the partition's aux vector and writes a, b, c)
share the last-level cache: a job with a working set of ``ws_gib`` runs at
``(1 + p x miss_alone) / (1 + p x miss_now)`` of its rate, where ``miss`` is
the share of the running working sets that does not fit in the cache
(``1 - llc / sum(ws)``, 0 when they fit), ``miss_alone`` that share for the
job alone and ``p`` (``miss_penalty``) how much slower its work runs when all
of it misses. Relative to the job alone, as the busy slowdown is, so a job
whose working set never fits (cuzk's 4 GiB witness against a 100 MiB cache)
does not change: the mechanism only acts where the working sets of the
running jobs fit alone and stop fitting together. ``llc_gib = 0`` (the
default) turns it off.

Memory pressure (reclaim, page faults and TLB misses when RSS nears RAM)
slows each job by ``1 + k x pressure``, with ``k`` the stage's sensitivity and
pressure from :meth:`cuzklab.sim.memory.HostMemory.pressure` (0 to 1: the RSS
ramp towards RAM, gated by the recent net RSS rise). Each finished job reports its slowdown: its duration over its
solo duration.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

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
    group: str = ""             # a pool of threads this job shares with its group ("" none)
    ws_gib: float = 0.0         # the working set it gathers from (GiB; 0: none)
    miss_penalty: float = 0.0   # its slowdown - 1 when all of that working set misses the cache
    pool_slowdown: float = 1.0  # its slowdown while the prep_msm / b_g2_msm pool is full
    neighbour_slowdown: float = 0.0  # its slowdown - 1 with a synthesis running per core beside it
    even_share: bool = False    # at most an even share of the cores among the runnable threads
    order: int = 0
    start: float = 0.0
    remaining: float = 0.0
    rate: float = 0.0
    threads: float = 0.0
    demand: float = 0.0
    share: float = 0.0


def waterfill(total: float, caps: list[float], weights: list[float] | None = None) -> list[float]:
    """Return a max-min fair (weighted) split of ``total`` with per-item caps.

    Items are filled in order of cap per unit weight: an item whose cap is below
    the current water level gets its cap; the rest share what is left in
    proportion to their weights.
    """
    n = len(caps)
    out = [0.0] * n
    if n == 0 or total <= 0:
        return out
    w = weights or [1.0] * n
    order = sorted((i for i in range(n) if caps[i] > 0 and w[i] > 0),
                   key=lambda i: caps[i] / w[i])
    left = float(total)
    wsum = sum(w[i] for i in order)
    for pos, i in enumerate(order):
        level = left / wsum
        if caps[i] <= level * w[i]:
            out[i] = caps[i]
            left -= caps[i]
            wsum -= w[i]
        else:
            for j in order[pos:]:
                out[j] = level * w[j]
            break
    return out


#: A profile's ``[node]`` keys of the busy-machine slowdown, with their values when absent (off).
BUSY_KEYS = {"busy_slowdown": 0.0, "busy_knee": 2.0}
#: A profile's ``[node]`` key of the shared last-level cache (MiB; absent or 0: off).
LLC_KEY = "llc_mib"


def busy_of(node: dict) -> dict:
    """Return the busy-machine and shared-cache arguments of :class:`Machine` (``[node]``)."""
    out = {k: node.get(k, default) for k, default in BUSY_KEYS.items()}
    out["llc_gib"] = node.get(LLC_KEY, 0.0) / 1024
    return out


def miss_share(ws_gib: float, llc_gib: float) -> float:
    """Return the share of a working set of ``ws_gib`` that misses a cache of ``llc_gib``."""
    return max(0.0, 1.0 - llc_gib / ws_gib) if ws_gib > 0 and llc_gib > 0 else 0.0


class Machine:
    """Processor sharing of cores and memory bandwidth among running CPU jobs."""

    def __init__(self, env: simpy.Environment, *, cores: int, ddr_gbps: float,
                 synthesis_threads: int, pool_threads: int, age_priority: float,
                 pool_weight: float = 1.0, on_rates=None,
                 group_threads: dict[str, float] | None = None,
                 group_weights: dict[str, float] | None = None,
                 busy_slowdown: float = 0.0, busy_knee: float = 2.0, llc_gib: float = 0.0):
        self.env = env
        self.llc_gib = max(0.0, float(llc_gib))
        self.busy_slowdown = float(busy_slowdown)
        self.busy_knee = max(2.0, float(busy_knee))
        self.cores = float(cores)
        self.ddr_gbps = float(ddr_gbps)
        self.synthesis_threads = float(synthesis_threads)
        self.pool_threads = float(pool_threads)
        self.age_priority = float(age_priority)
        self.pool_weight = float(pool_weight)
        self.group_threads = {k: float(v) for k, v in (group_threads or {}).items()}
        self.group_weights = {k: float(v) for k, v in (group_weights or {}).items()}
        unknown = sorted(set(self.group_weights) - set(self.group_threads))
        if unknown or any(w <= 0 for w in self.group_weights.values()):
            raise ValueError(f"group_weights must give weights > 0 for groups of group_threads "
                             f"({sorted(self.group_threads)}), got {group_weights!r}")
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
            mem_bound: float = 0.0, pressure_k: float = 0.0,
            solo_rate: float | None = None, group: str = "", ws_gib: float = 0.0,
            miss_penalty: float = 0.0, pool_slowdown: float = 1.0,
            even_share: bool = False, neighbour_slowdown: float = 0.0) -> simpy.Event:
        """Start a job; return an event whose value is (start, end, slowdown).

        ``group``: a synthesis job that shares the pool ``group_threads[group]``
        with the other running jobs of its group. ``ws_gib`` and ``miss_penalty``:
        the working set it gathers from at random and its slowdown - 1 when all of
        it misses the last-level cache (the machine's ``llc_gib``). ``pool_slowdown``:
        how much slower it runs while the pool's threads are all busy
        (``pool`` jobs asking ``pool_threads``), in proportion to how full the pool is
        (1: the pool's work does not touch it; the model's witness step, which runs
        slower beside b_g2_msm calls on the host's other cores). ``even_share``: it runs
        on no more than ``cores / runnable`` threads while the runnable threads (the
        pool's and single jobs' threads, and the threads the syntheses ask) outnumber
        the cores (a synthesis's one-thread steps). ``neighbour_slowdown`` (k, a
        ``pool`` job's; ignored on other kinds): its threads run ``1 + k x s / cores``
        times slower with ``s`` synthesis jobs running beside them (at most ``cores``),
        whatever share of the cores those get.
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if group and (kind != "synth" or group not in self.group_threads):
            raise ValueError(f"group must name one of {sorted(self.group_threads)} for a synth "
                             f"job, got {group!r} for {kind!r}")
        ev = self.env.event()
        solo = solo_rate if solo_rate is not None else self.solo_rate(kind, cap)
        job = Job(kind=kind, work=max(work, 1e-12), cap=cap, bw_per_thread=bw_per_thread,
                  mem_bound=mem_bound, solo_rate=max(solo, 1e-12), event=ev,
                  pressure_k=pressure_k, group=group, ws_gib=max(0.0, float(ws_gib)),
                  miss_penalty=max(0.0, float(miss_penalty)),
                  pool_slowdown=max(1.0, float(pool_slowdown)), even_share=bool(even_share),
                  neighbour_slowdown=max(0.0, float(neighbour_slowdown)) if kind == "pool" else 0.0,
                  order=next(self._order),
                  start=self.env.now, remaining=max(work, 1e-12))
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

    def busy_speed(self, busy: float) -> float:
        """Return a thread's speed with ``busy`` threads running, relative to one alone."""
        if self.busy_slowdown <= 0 or busy <= 1:
            return 1.0
        x = min(1.0, (min(busy, self.cores) - 1.0) / (self.busy_knee - 1.0))
        return 1.0 / (1.0 + self.busy_slowdown * x)

    # -- internals -------------------------------------------------------------
    def solo_rate(self, kind: str, cap: float) -> float:
        """Return the work per second a job of ``kind`` capped at ``cap`` does alone."""
        if kind == "dma":
            return min(cap, self.ddr_gbps)
        if kind == "synth":
            return min(cap, self.synthesis_threads, self.cores)  # a group's pool is in cap
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
        pool, single, synth = [], [], []
        for j in self.jobs:
            if j.kind == "synth":
                synth.append(j)
            elif j.kind == "pool":
                pool.append(j)
            elif j.kind == "single":
                single.append(j)
        if pool:
            caps = [min(j.cap, self.pool_threads) for j in pool]
            shares = caps if sum(caps) <= self.pool_threads else waterfill(self.pool_threads, caps)
            for j, t in zip(pool, shares):
                j.threads = t
        for j in single:
            j.threads = 1.0
        pool_asked = sum(j.threads for j in pool)
        want_pool = pool_asked + len(single)
        full = (min(1.0, pool_asked / self.pool_threads)
                if self.pool_threads > 0 else 0.0)  # how full the pool is
        caps = {id(j): j.cap for j in synth}
        for name, size in self.group_threads.items():
            members = [j for j in synth if j.group == name]
            if members:
                for j, t in zip(members, waterfill(size, [min(j.cap, size) for j in members])):
                    caps[id(j)] = t
        synth_caps = [caps[id(j)] for j in synth]
        want_synth = min(self.synthesis_threads, sum(synth_caps))
        if want_pool + want_synth > self.cores and want_pool > 0:
            # The OS shares the cores among runnable threads; the pool's threads
            # weigh pool_weight each (short, latency-bound bursts win more often),
            # a group's threads (a shared MatVec pool) group_weights[group] each.
            wp = self.pool_weight * want_pool
            ws = want_synth
            if self.group_weights and sum(synth_caps) > 0:
                weighted = sum(c * self.group_weights.get(j.group, 1.0)
                               for j, c in zip(synth, synth_caps))
                ws = want_synth * weighted / sum(synth_caps)
            pool_cores = min(want_pool, self.cores * wp / (wp + ws))
            scale = pool_cores / want_pool
            for j in pool:
                j.threads *= scale
            for j in single:
                j.threads *= scale
            used = pool_cores
        else:
            used = want_pool
        free = max(0.0, min(self.synthesis_threads, self.cores - used))
        runnable = want_pool + sum(synth_caps)  # the threads the OS shares the cores among
        even = self.cores / runnable if runnable > self.cores else 1.0
        if synth:
            if sum(synth_caps) <= free:
                for j in synth:
                    j.threads = caps[id(j)]
            elif self.age_priority >= 1.0 and min(synth_caps) == max(synth_caps):
                each = free / len(synth)
                for j in synth:
                    j.threads = each
            else:
                ranked = sorted(synth, key=lambda j: j.order)
                weights = [self.age_priority ** r for r in range(len(ranked))]
                for j, t in zip(ranked, waterfill(free, [caps[id(j)] for j in ranked], weights)):
                    j.threads = t
        jobs = self.jobs
        total_threads = sum(j.threads for j in jobs if j.kind != "dma")
        cpu = min(1.0, self.cores / total_threads) if total_threads > 0 else 1.0
        demands = []
        for j in jobs:
            j.demand = j.cap if j.kind == "dma" else j.bw_per_thread * j.threads * cpu
            demands.append(j.demand)
        shares = demands if sum(demands) <= self.ddr_gbps else waterfill(self.ddr_gbps, demands)
        self.bandwidth_used = sum(shares)
        busy = self.busy_speed(total_threads) if self.busy_slowdown > 0 else 1.0
        ws_total = (sum(j.ws_gib for j in jobs if j.ws_gib > 0 and j.threads > 0)
                    if self.llc_gib > 0 else 0.0)
        miss_now = miss_share(ws_total, self.llc_gib)
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
            if busy != 1.0:  # relative to the busy threads of the job's own solo run
                speed *= busy / self.busy_speed(j.solo_rate)
            if miss_now > 0 and j.miss_penalty > 0 and j.ws_gib > 0:  # relative to it alone
                alone = miss_share(j.ws_gib, self.llc_gib)
                speed *= (1.0 + j.miss_penalty * alone) / (1.0 + j.miss_penalty
                                                           * max(miss_now, alone))
            if j.even_share and j.threads > even:  # switched out as often as any thread
                speed *= even / j.threads
            if full > 0 and j.pool_slowdown > 1.0:
                speed /= 1.0 + (j.pool_slowdown - 1.0) * full
            if j.neighbour_slowdown > 0 and synth:
                speed /= 1.0 + j.neighbour_slowdown * min(len(synth), self.cores) / self.cores
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
