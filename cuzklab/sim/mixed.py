"""The daemon under a mixed workload: every proof kind, priorities, SRS residency.

:class:`MixedModel` runs the same pipeline as :class:`~cuzklab.sim.daemon.DaemonModel`
(partition workers, the bounded channel, GPU workers under the lock strategy,
the shared cores, bandwidth and memory) with what the newest cuzk adds for
serving PoRep C2, SnapDeals, WindowPoSt and WinningPoSt together (cuzk's
project notes §2-§5 and memory-manager specification, Curio repository
``extern/cuzk/``):

- **Priorities.** Partitions wait in one scheduler queue ordered by priority
  (WinningPoSt critical, WindowPoSt high, PoRep and SnapDeals normal), then by
  arrival. A more urgent partition takes the next free synthesis slot: normal
  syntheses already running finish (pre-emption at partition boundaries), and
  a GPU region already started is never interrupted; the channel to the GPU
  workers is ordered the same way.
- **Sort by type** (``sort_by_type``): within a priority, queued partitions of
  the kind last taken go first, so same-kind proofs run together.
- **The client's limit** (the workload's ``max_pending``: Curio's ``[Cuzk]
  MaxPending``): a proof arrives, waits for one of the limit's slots and holds it
  until it completes, whatever its kind; a freed slot goes to the waiting
  WindowPoSt and WinningPoSt proofs first (Curio's time-sensitive tasks), then to
  the others, oldest first. ``time_sensitive_slots`` keeps that many of the slots for
  WindowPoSt and WinningPoSt (not a Curio setting: what a change to Curio would do).
  The summary's latencies run from arrival.
- **Batching** (``max_batch_size`` > 1): the batch collector holds arriving
  NORMAL proofs of one kind until it has ``max_batch_size`` of them, the
  first has waited ``max_batch_wait_ms`` or a more urgent proof arrives, then
  dispatches them together (cuzk-project §6). Only
  this grouping is modelled, not a batched proof's shared GPU passes.
- **SRS/PCE residency.** A kind's SRS and PCE load on its first partition,
  reserving their size in the one memory budget (``memory_gib`` minus the
  safety margin, or ``budget_gib``); a load takes size / rate seconds (cold:
  from disk; warm: the file still in the OS page cache, which holds it only in
  memory the process has not needed since the eviction). When a reservation
  does not fit, idle entries (no partition using them for at least
  ``eviction_min_idle_s``) are evicted, least recently used first. With
  ``admission = "budget"`` the working sets reserve from the same budget.
- **The budget** grants reservations in priority order, then first come first
  served; a reservation that does not fit holds back the less urgent ones
  behind it (the scheduler does not dispatch past it). It is checked again on
  every release and when an entry becomes old enough to evict.

With the default workload (one PoRep stream in closed loop),
:func:`cuzklab.sim.simulate` runs :class:`DaemonModel` itself, unchanged.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass

import numpy as np
import simpy

from ..errors import ConfigError
from ..model.kinds import CLIENT_TIME_SENSITIVE, PRIORITIES, residency_rates
from ..trace import Trace
from ..trace.lanes import Lanes
from .daemon import DaemonModel, Partition
from .workload import Stream, Workload


class SchedulerQueue(simpy.Store):
    """A store whose ``get`` returns the item with the lowest ``key(item)`` at that moment."""

    def __init__(self, env: simpy.Environment, key):
        super().__init__(env)
        self.key = key

    def _do_get(self, event):
        if self.items:
            best = min(range(len(self.items)), key=lambda i: self.key(self.items[i]))
            event.succeed(self.items.pop(best))


class PriorityBudget:
    """The one memory budget: reservations in (priority, arrival) order, with eviction."""

    def __init__(self, env: simpy.Environment, total_gib: float, *, on_change, evictor,
                 next_eligible):
        self.env = env
        self.total = float(total_gib)
        self.used = 0.0
        self._waiters: list[tuple[int, int, float, simpy.Event]] = []
        self._seq = itertools.count()
        self._chan_seq = itertools.count()
        self._on_change = on_change
        self._evictor = evictor
        self._next_eligible = next_eligible
        self._timer_at = math.inf

    def reserve(self, gib: float, rank: int = 2) -> simpy.Event:
        """Return an event that fires once ``gib`` is reserved."""
        ev = self.env.event()
        heapq.heappush(self._waiters, (rank, next(self._seq), float(gib), ev))
        self.grant()
        return ev

    def release(self, gib: float) -> None:
        """Give ``gib`` back and grant what now fits."""
        self.used = max(0.0, self.used - gib)
        self._on_change(self)
        self.grant()

    def take(self, gib: float) -> None:
        """Reserve ``gib`` at once (an entry resident from the start)."""
        self.used += gib
        self._on_change(self)

    def drop(self, gib: float) -> None:
        """Un-reserve an evicted entry's ``gib`` (the evictor calls it; no grant)."""
        self.used = max(0.0, self.used - gib)
        self._on_change(self)

    def cancel(self, ev: simpy.Event) -> bool:
        """Withdraw a reservation not yet granted; return False if it was granted."""
        for n, w in enumerate(self._waiters):
            if w[3] is ev:
                self._waiters.pop(n)
                heapq.heapify(self._waiters)
                self.grant()
                return True
        return False

    def waiting(self) -> int:
        """Return how many reservations are waiting."""
        return len(self._waiters)

    def grant(self) -> None:
        """Grant waiting reservations in order while they fit, evicting idle entries."""
        while self._waiters:
            rank, _, gib, ev = self._waiters[0]
            if self.used + gib > self.total + 1e-9:
                self._evictor(self.used + gib - self.total)
            if self.used + gib > self.total + 1e-9:
                t = self._next_eligible()
                if t is not None and self.env.now < t < self._timer_at:
                    self._timer_at = t
                    timer = self.env.timeout(t - self.env.now)
                    timer.callbacks.append(self._on_timer)
                return
            heapq.heappop(self._waiters)
            self.used += gib
            self._on_change(self)
            ev.succeed()

    def _on_timer(self, _ev) -> None:
        self._timer_at = math.inf
        self.grant()


@dataclass(eq=False)
class Residency:
    """One kind's SRS + PCE: absent, loading or resident, with its use count."""

    kind: str
    srs_gib: float
    pce_gib: float
    state: str = "absent"
    refs: int = 0                 # partitions using it (synthesis to finalize)
    last_used: float = 0.0
    loaded_once: bool = False
    cached_gib: float = 0.0       # of the SRS file, what the OS page cache still holds
    event: simpy.Event | None = None

    @property
    def gib(self) -> float:
        return self.srs_gib + self.pce_gib


class MixedModel(DaemonModel):
    """The daemon model serving a :class:`~cuzklab.sim.workload.Workload` of proof kinds."""

    def __init__(self, config, profile, workload: Workload):
        super().__init__(config, profile)
        if config.lock == "monolithic":
            raise ConfigError("lock", "a mixed workload needs a partition pipeline: one of "
                                      "wide_mutex, interlock, two_lock, split_async "
                                      "(monolithic has one partition count)")
        env = self.env
        self.workload = workload
        self.kind_facts = profile.kinds()
        used = workload.kinds()
        self.kprof = {k: profile.for_kind(k) for k in used}
        self.rates = residency_rates(profile)
        # SRS and PCE are no longer resident for the whole run: they load on demand.
        self.base_gib = profile["memory"]["runtime_gib"]
        self.memory.rss = self.base_gib
        self.budget = PriorityBudget(env, self.budget_total, on_change=self._on_budget,
                                     evictor=self._evict, next_eligible=self._next_eligible)
        self.synth_queue = SchedulerQueue(env, key=self._queue_key)
        self.slots = simpy.Resource(env, capacity=config.partition_workers)
        self._synth_lanes = Lanes()
        self._wake = None
        self._wake_key = None
        self.channel = simpy.PriorityStore(env, capacity=self.channel.capacity)
        self.res = {k: Residency(k, self.kind_facts[k].srs_gib, self.kind_facts[k].pce_gib)
                    for k in used}
        self.arrival_rng = np.random.default_rng([config.seed, 1])
        self.loads: list[dict] = []
        self.evictions: list[dict] = []
        self._seq = itertools.count()
        self._chan_seq = itertools.count()
        self._n = 0
        self._outstanding = 0
        self._generators = 0
        self._last_kind: str | None = None
        self._batches: dict[str, list] = {}
        # Curio's in-flight limit to the daemon (None: none)
        self.client = (simpy.PriorityResource(env, capacity=workload.max_pending)
                       if workload.max_pending else None)
        # the slots the other kinds may take, where some are kept for the time-sensitive
        kept = workload.time_sensitive_slots if self.client is not None else 0
        self.client_normal = (simpy.Resource(env, capacity=workload.max_pending - kept)
                              if kept else None)
        self._client_waiting = 0

    # -- the run -----------------------------------------------------------------
    def run(self) -> Trace:
        """Simulate the workload and return its Trace."""
        cfg, env = self.cfg, self.env
        self.tb.counter(0.0, "rss_gib", self.base_gib)
        self.tb.counter(0.0, "budget_used_gib", self.base_gib)
        self.tb.counter(0.0, "gpu_queue_depth", 0)
        if self.client is not None:
            self.tb.counter(0.0, "client_waiting", 0)
        if not self._precheck(None):
            return self._build()
        if self.workload.warm_start:
            for k, r in self.res.items():
                if self.budget.used + r.gib <= self.budget.total + 1e-9:
                    self.budget.take(r.gib)
                    self.memory.alloc(r.gib, f"SRS and PCE of {k}")
                    r.state, r.loaded_once, r.last_used = "resident", True, 0.0
        self._resident_counter()
        opens = self.workload.open_arrivals(self.arrival_rng)
        for i, s in enumerate(self.workload.streams):
            if s.arrival == "closed":
                self._generators += 1
                env.process(self._closed(i, s))
        if opens:
            self._generators += 1
            env.process(self._open(opens))
        env.process(self._admitter())
        for g in range(cfg.gpus):
            for w in range(cfg.gpu_workers_per_device):
                env.process(self._gpu_worker(g, w))
        if self._generators == 0:
            self.stop.succeed()
        try:
            env.run(until=self.stop)
        except RuntimeError as exc:
            self.fail("deadlock", f"the pipeline stalled with work left: {exc}")
        return self._build()

    def _precheck(self, part) -> bool:
        cfg = self.cfg
        vram = self.prof["node"]["vram_gib"]
        for k, prof in self.kprof.items():
            f = self.kind_facts[k]
            per_gpu = prof["partition"]["device_buffers_gib"] * (
                cfg.gpu_workers_per_device if cfg.lock == "two_lock" else 1)
            if per_gpu > vram:
                self.fail("vram_oom", f"{k}: the GPU needs {per_gpu:.0f} GiB of device buffers "
                                      f"> VRAM {vram:.0f} GiB")
                return False
            if self.base_gib + f.resident_gib > cfg.memory_gib:
                self.fail("oom", f"{k}: SRS + PCE ({f.resident_gib:.1f} GiB) exceed RAM "
                                 f"({cfg.memory_gib:.1f} GiB)")
                return False
            need = f.resident_gib + (f.reserve_gib if cfg.admission == "budget" else 0.0)
            if need > self.budget.total + 1e-9:
                self.fail("deadlock", f"{k}: its SRS + PCE ({f.resident_gib:.1f} GiB)"
                                      + (f" and one partition ({f.reserve_gib:g} GiB)"
                                         if cfg.admission == "budget" else "")
                                      + f" can never fit the {self.budget.total:.0f} GiB budget")
                return False
        return True

    # -- arrivals ------------------------------------------------------------------
    def _closed(self, i: int, s: Stream):
        """A client keeping ``in_flight`` proofs submitted (cuzk-bench -c -j)."""
        cfg, env = self.cfg, self.env
        end = self.workload.duration_s
        total = s.count if s.count is not None else (None if end is not None else cfg.proofs)
        slots = simpy.Resource(env, capacity=s.in_flight or cfg.concurrency)
        k = 0
        while total is None or k < total:
            req = slots.request()
            yield req
            if total is None and env.now >= end:
                slots.release(req)
                break
            done = self._arrive(s.kind, i, s)
            done.callbacks.append(lambda _e, req=req: slots.release(req))
            k += 1
        self._generator_done()

    def _open(self, arrivals):
        env = self.env
        for t, kind, i in arrivals:
            if t > env.now:
                yield env.timeout(t - env.now)
            self._arrive(kind, i, self.workload.streams[i])
        self._generator_done()

    def _generator_done(self) -> None:
        self._generators -= 1
        self._check_stop()

    def _check_stop(self) -> None:
        if self._generators == 0 and self._outstanding == 0 and not self.stop.triggered:
            self.stop.succeed()

    def _arrive(self, kind: str, stream: int, s: Stream) -> simpy.Event:
        """A proof arrives: record it, then submit it, through the client's limit if
        there is one; return its done event."""
        env, cfg = self.env, self.cfg
        f = self.kind_facts[kind]
        i = self._n
        self._n += 1
        # PoRep's partitions are the config's (as without a workload); others the kind's
        parts = s.partitions or (cfg.partitions if kind == "porep-c2" else f.partitions)
        self.proof_rec[i] = {"arrived": float(env.now), "kind": kind, "stream": stream,
                             "partitions": parts,
                             "deadline_s": s.deadline_s if s.deadline_s is not None
                             else f.deadline_s}
        done = env.event()
        self._proof_done[i] = done
        self._left[i] = parts
        self._outstanding += 1
        done.callbacks.append(lambda _e, i=i: self._completed(i))
        if self.client is None:
            self._submit(i)
        else:
            env.process(self._client_slot(i))
        return done

    def _client_slot(self, i: int):
        """Wait for a slot of the client's limit, time-sensitive kinds first (the others
        first for one of the slots not kept for them, with ``time_sensitive_slots``);
        hold it until the proof completes."""
        env = self.env
        urgent = self.proof_rec[i]["kind"] in CLIENT_TIME_SENSITIVE
        reqs = ([] if urgent or self.client_normal is None else [self.client_normal])
        reqs.append(self.client)
        waiting = False
        for res in reqs:
            req = (res.request(priority=0 if urgent else 1) if res is self.client
                   else res.request())
            if not req.triggered and not waiting:
                waiting = True
                self._client_waiting += 1
                self.tb.counter(env.now, "client_waiting", self._client_waiting)
            yield req
            self._proof_done[i].callbacks.append(lambda _e, res=res, req=req: res.release(req))
        if waiting:
            self._client_waiting -= 1
            self.tb.counter(env.now, "client_waiting", self._client_waiting)
        self._submit(i)

    def _submit(self, i: int) -> None:
        """The daemon receives proof ``i``: batch or dispatch it."""
        env, cfg = self.env, self.cfg
        kind = self.proof_rec[i]["kind"]
        f = self.kind_facts[kind]
        self.proof_rec[i]["submitted"] = env.now
        if f.rank < PRIORITIES.index("normal"):
            for k in list(self._batches):    # a more urgent proof flushes the batches
                self._flush(k)
        if cfg.max_batch_size > 1 and f.batchable:
            batch = self._batches.setdefault(kind, [])
            batch.append(i)
            if len(batch) >= cfg.max_batch_size:
                self._flush(kind)
            elif len(batch) == 1:
                env.process(self._batch_timer(kind, batch))
        else:
            self._dispatch([i])

    def _batch_timer(self, kind: str, batch: list):
        yield self.env.timeout(self.cfg.max_batch_wait_ms / 1000.0)
        if self._batches.get(kind) is batch:
            self._flush(kind)

    def _flush(self, kind: str) -> None:
        self._dispatch(self._batches.pop(kind, []))

    def _dispatch(self, proofs: list[int]) -> None:
        for i in proofs:
            rec = self.proof_rec[i]
            kind = rec["kind"]
            seq = next(self._seq)
            rank = self.kind_facts[kind].rank
            # only PoRep's request size is published (its C1 output, ~51 MB)
            req = (self._hold_request(i, rec["partitions"], self.kprof[kind])
                   if kind == "porep-c2" else 0.0)
            for k in range(rec["partitions"]):
                p = Partition(i, k, rec["submitted"], prof=self.kprof[kind], kind=kind,
                              prio=rank, seq=seq, request_gib=req)
                self.synth_queue.items.append(p)
                self._on_queued(p)

    def _completed(self, i: int) -> None:
        self._release_request(i)
        self.proof_rec[i]["completed"] = self.env.now
        self.done += 1
        self._outstanding -= 1
        self._check_stop()

    # -- scheduling ------------------------------------------------------------------
    def _queue_key(self, p: Partition):
        group = 0 if (self.cfg.sort_by_type and p.kind == self._last_kind) else 1
        return (p.prio, group, p.seq, p.index)

    def _admitter(self):
        """Admit queued partitions to synthesis, most urgent first.

        Takes a synthesis slot (``partition_workers``: cuzk's partition permits,
        or ``max_parallel_synthesis`` under the budget), then looks at the most
        urgent queued partition: loads its kind's SRS/PCE if they are not
        resident and, under ``admission = "budget"``, reserves its working set.
        A more urgent partition arriving meanwhile takes its place (the wait is
        cancelled); a synthesis already running is never interrupted.
        """
        cfg, env = self.cfg, self.env
        while True:
            slot = self.slots.request()
            yield slot
            while True:
                if not self.synth_queue.items:
                    self._wake = env.event()
                    self._wake_key = None
                    yield self._wake
                    continue
                best = min(self.synth_queue.items, key=self._queue_key)
                r = self.res[best.kind]
                self._wake = env.event()
                self._wake_key = self._queue_key(best)
                if r.state != "resident":
                    if r.state == "absent":
                        r.state, r.event = "loading", env.event()
                        env.process(self._load(r, best.prio))
                    yield env.any_of([r.event, self._wake])
                    continue
                if cfg.admission == "budget":
                    reserve = best.prof["memory"]["budget_reserve_gib"]
                    ev = self.budget.reserve(reserve, best.prio)
                    if not ev.triggered:
                        yield env.any_of([ev, self._wake])
                    if not ev.triggered and self.budget.cancel(ev):
                        continue          # a more urgent partition arrived: look again
                    if r.state != "resident":   # evicted while waiting (eviction_min_idle 0)
                        self.budget.release(reserve)
                        continue
                    best.budget_gib = reserve
                break
            self._wake = None
            self.synth_queue.items.remove(best)
            self._last_kind = best.kind
            r.refs += 1
            r.last_used = env.now
            env.process(self._synthesis(best, slot))

    def _synthesis(self, p: Partition, slot):
        cfg = self.cfg
        lane = self._synth_lanes.take()
        self.tb.span(p.proof, p.index, "queue", "admission", p.submitted, self.env.now)
        yield from self._synth_job(p, p.index, f"synth.{lane}")
        self._synth_lanes.give(lane)
        p.synth_end = self.env.now
        self._queue_depth(+1)
        if cfg.admission == "semaphore_prefix":
            self.slots.release(slot)               # permit dropped before the send
            self.env.process(self._handoff(p))
        else:
            yield from self._handoff(p)            # permit held through the hand-off
            self.slots.release(slot)

    def _on_queued(self, p: Partition) -> None:
        wake = getattr(self, "_wake", None)
        if wake is not None and not wake.triggered and (
                self._wake_key is None or self._queue_key(p) < self._wake_key):
            wake.succeed()

    def _handoff(self, p: Partition):
        # the GPU channel: by priority, then in hand-off order (seq is reused for it)
        p.seq = next(self._chan_seq)
        yield self.channel.put(p)

    def _partition_done(self, p: Partition) -> None:
        r = self.res[p.kind]
        r.refs -= 1
        r.last_used = self.env.now
        super()._partition_done(p)
        if self.budget.waiting():
            self.budget.grant()

    # -- residency -----------------------------------------------------------------
    def _load(self, r: Residency, rank: int):
        """Load a kind's SRS and PCE: reserve their size, then size / rate seconds."""
        env = self.env
        t0 = env.now
        yield self.budget.reserve(r.gib, rank)
        cached = min(r.cached_gib, r.srs_gib) if r.loaded_once else 0.0
        secs = (cached / self.rates["srs_warm_gib_s"]
                + (r.srs_gib - cached) / self.rates["srs_cold_gib_s"]
                + r.pce_gib / self.rates["pce_gib_s"])
        start = env.now
        self.memory.alloc(r.gib, f"SRS and PCE of {r.kind}")
        yield env.timeout(secs)
        r.state, r.loaded_once, r.last_used = "resident", True, env.now
        self.loads.append({"kind": r.kind, "requested": t0, "start": start, "end": env.now,
                           "seconds": secs, "warm_gib": round(cached, 4), "gib": r.gib})
        self._resident_counter()
        ev, r.event = r.event, None
        ev.succeed()

    def _evict(self, needed: float) -> float:
        """Evict idle entries, least recently used first, until ``needed`` GiB are free."""
        now = self.env.now
        idle = self.cfg.eviction_min_idle_s
        cands = sorted((r for r in self.res.values() if r.state == "resident" and r.refs == 0
                        and now - r.last_used >= idle - 1e-9), key=lambda r: r.last_used)
        freed = 0.0
        for r in cands:
            if freed >= needed - 1e-9:
                break
            r.state = "absent"
            r.cached_gib = r.srs_gib
            self.budget.drop(r.gib)
            self.memory.free(r.gib)
            self.evictions.append({"kind": r.kind, "t": now, "gib": r.gib,
                                   "idle_s": now - r.last_used})
            freed += r.gib
        if freed:
            self._resident_counter()
        return freed

    def _next_eligible(self) -> float | None:
        idle = self.cfg.eviction_min_idle_s
        ts = [r.last_used + idle for r in self.res.values()
              if r.state == "resident" and r.refs == 0]
        return min(ts) if ts else None

    def _on_rss(self, memory) -> None:
        super()._on_rss(memory)
        free = max(0.0, memory.ram_gib - memory.rss)
        for r in getattr(self, "res", {}).values():
            if r.state == "absent" and r.cached_gib > free:
                r.cached_gib = free   # the page cache gave the file's pages to the process

    def _resident_counter(self) -> None:
        self.tb.counter(self.env.now, "srs_resident_gib",
                        sum(r.gib for r in self.res.values() if r.state == "resident"))

    # -- result --------------------------------------------------------------------
    def _build(self) -> Trace:
        trace = super()._build()
        failed = self.failure is not None
        rows = []
        for i in range(self._n):
            r = self.proof_rec.get(i, {})
            rows.append({"proof": i, "arrived": r.get("arrived", math.nan),
                         "submitted": r.get("submitted", math.nan),
                         "started": r.get("started", math.nan),
                         "completed": r.get("completed", math.nan),
                         "status": "ok" if "completed" in r else
                                   ("failed" if failed else "pending"),
                         "kind": r.get("kind"), "stream": r.get("stream"),
                         "deadline_s": r.get("deadline_s")})
        trace.meta["proofs"] = rows
        trace.meta["workload"] = {
            **self.workload.to_dict(),
            "kinds": {k: {"priority": self.kind_facts[k].priority,
                          "partitions": self.kind_facts[k].partitions,
                          "srs_gib": self.kind_facts[k].srs_gib,
                          "pce_gib": self.kind_facts[k].pce_gib,
                          "deadline_s": self.kind_facts[k].deadline_s}
                      for k in self.res},
            "srs_loads": self.loads, "evictions": self.evictions,
        }
        return trace
