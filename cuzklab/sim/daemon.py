"""The SimPy model of the cuzk daemon.

One :class:`DaemonModel` per run. The client (cuzk-bench) keeps
``concurrency`` proofs in flight; each proof's partitions join one FIFO
synthesis queue; ``partition_workers`` workers synthesize them under the
chosen admission rule and hand them to a bounded channel; GPU worker tasks
(``gpu_workers_per_device`` per GPU) take partitions from it and run the
stages under the chosen lock strategy; b_g2_msm and the epilogue finish a
partition (in the worker, or in a finalizer with ``split_async``). Host
memory, the budget, the CPU cores and the memory bandwidth are shared
resources (see :mod:`cuzklab.sim.machine` and :mod:`cuzklab.sim.memory`).
"""

from __future__ import annotations

import math
import platform
from dataclasses import dataclass

import numpy as np
import simpy

from ..model.config import PipelineConfig
from ..model.profile import Profile
from ..trace import Trace, TraceBuilder
from ..trace.lanes import Lanes
from .machine import Machine, busy_of
from .memory import BudgetGate, Deallocator, HostMemory

GIB = 2**30


@dataclass(eq=False)
class Partition:
    """A partition moving through the pipeline (a whole proof for monolithic)."""

    proof: int
    index: int
    submitted: float
    synth_end: float = math.nan
    abc_gib: float = 0.0     # a/b/c still held
    aux_gib: float = 0.0     # aux still held
    budget_gib: float = 0.0  # budget still reserved
    request_gib: float = 0.0  # the proof request's C1 output this partition's work item holds
    members: tuple = ()      # monolithic: the partition indices it stands for
    # A mixed workload (cuzklab.sim.mixed) sets these; the default path leaves them.
    prof: object = None      # the proof kind's profile (None: the run's profile)
    kind: str = ""           # proof kind name
    prio: int = 2            # scheduler priority rank (0 = critical)
    seq: int = 0             # dispatch order, for ties

    def __lt__(self, other: "Partition") -> bool:  # priority order in a PriorityStore
        return (self.prio, self.seq, self.proof, self.index) < \
            (other.prio, other.seq, other.proof, other.index)


#: How the MatVecs of concurrent syntheses share threads (``synth.matvec_pool``).
MATVEC_POOLS = ("rayon", "per_worker")
#: In which order the MatVecs of a shared pool get its threads (``synth.matvec_queue``):
#: ``shared`` (absent: all at once, max-min fair) or ``fifo`` (one after another, as a pool
#: that queues every synthesis's row ranges behind the earlier ones' runs them).
MATVEC_QUEUES = ("shared", "fifo")
#: What share of a core a two-step synthesis's one-thread steps (the witness, the MatVec's
#: serial part) get while the runnable threads outnumber the cores (``synth.serial_share``):
#: ``core`` (absent: a core of their own, the witness step slowed by
#: ``synth.witness_pool_slowdown`` while the b_g2_msm pool is full) or ``even`` (at most an
#: even share of the cores among all the runnable threads, the pool slowdown left out).
SERIAL_SHARES = ("core", "even")


def matvec_threads(profile, synthesis_threads: int, partition_workers: int) -> int:
    """Return the threads of the pool the syntheses' MatVecs share (0: one-job synthesis).

    ``rayon``: cuzk's syntheses share one rayon pool of ``synthesis_threads``,
    so one MatVec may take all of it. ``per_worker``: each MatVec asks
    ``synthesis_threads // partition_workers`` threads and the MatVecs of
    concurrent syntheses share ONE pool of that many (the live executor, whose
    native pools are shared per thread count).
    """
    mode = profile["synth"].get("matvec_pool", "")
    if not mode:
        return 0
    if mode == "rayon":
        return max(1, int(synthesis_threads))
    return max(1, int(synthesis_threads) // max(1, int(partition_workers)))


def matvec_shared(profile, threads: int) -> bool:
    """Return whether the MatVecs share one pool of ``threads`` (per_worker at 1 thread: each
    MatVec runs on its own synthesis's thread, as a one-thread native batch runs inline)."""
    return profile["synth"].get("matvec_pool", "") == "rayon" or threads > 1


class DaemonModel:
    """Build with a config and profile, then :meth:`run` to get the Trace."""

    def __init__(self, config: PipelineConfig, profile: Profile):
        self.cfg = config
        self.prof = profile
        self.env = simpy.Environment()
        self.rng = np.random.default_rng(config.seed)
        node = profile["node"]
        self.cores = int(node["cores"])
        self.pool_threads = config.gpu_threads or self.cores
        self.synthesis_threads = config.synthesis_threads or self.cores
        self.tb = TraceBuilder(source="sim")
        self.stop = self.env.event()
        self.failure: dict | None = None
        self.done = 0
        self.proof_rec: dict[int, dict] = {}
        self._left: dict[int, int] = {}
        self._proof_done: dict[int, simpy.Event] = {}
        self._queued = 0
        self.synth_steps: list[list] = []  # [proof, partition, witness_s, matvec_s] each
        self._requests: dict[int, float] = {}   # GiB of request each proof's assembler holds
        self._final_lanes = Lanes()
        mem = profile["memory"]
        self.base_gib = mem["srs_gib"] + mem["pce_gib"] + mem["runtime_gib"]
        self.matvec_threads = matvec_threads(profile, self.synthesis_threads,
                                             config.partition_workers)
        self.matvec_group = ("matvec" if self.matvec_threads
                             and matvec_shared(profile, self.matvec_threads) else "")
        self.machine = Machine(self.env, cores=self.cores, ddr_gbps=node["ddr_gbps"],
                               synthesis_threads=self.synthesis_threads,
                               pool_threads=self.pool_threads,
                               age_priority=profile["synth"].get("age_priority", 1.0),
                               pool_weight=node.get("cpu_pool_weight", 1.0),
                               on_rates=self._on_rates,
                               group_threads=({"matvec": self.matvec_threads}
                                              if self.matvec_group else None),
                               group_weights=({"matvec": profile["synth"]["matvec_weight"]}
                                              if self.matvec_group
                                              and "matvec_weight" in profile["synth"]
                                              else None),
                               **busy_of(node))
        self.memory = HostMemory(self.env, ram_gib=config.memory_gib, base_gib=self.base_gib,
                                 pressure_start=mem["pressure_start"],
                                 window_s=mem["reclaim_window_s"],
                                 growth_gib=mem["reclaim_growth_gib"],
                                 on_change=self._on_rss, on_oom=lambda msg: self.fail("oom", msg))
        self.dealloc = Deallocator(self.env, self.memory, mem["dealloc_s"])
        # the pinned a/b/c buffers: a synthesis checks one out as it starts and writes a, b, c
        # into it, pinning a new one (one at a time: the driver serializes cudaHostAlloc) when
        # none is free; the upload gives it back (partition.pinned_alloc_s; absent: the pool
        # is never cold). cuzk: PinnedPool::checkout at synthesis start (pinned_pool.rs)
        part = profile["partition"]
        self.pinned_alloc_s = float(part.get("pinned_alloc_s", 0.0))
        self.pinned_free = int(part.get("pinned_warm", 0))
        self.pinned_driver = simpy.Resource(self.env, capacity=1)
        self.budget_total = config.effective_budget_gib(mem["safety_margin_gib"])
        self.budget = BudgetGate(self.env, self.budget_total, on_change=self._on_budget)
        lookahead = int(profile["synth"]["pipeline_lookahead"])
        cap = (max(lookahead, config.partition_workers)
               if profile["synth"].get("channel_autoscale", True) else lookahead)
        self.channel = simpy.Store(self.env, capacity=max(cap, 1))
        self.synth_queue = simpy.Store(self.env)
        self.inflight = simpy.Resource(self.env, capacity=config.concurrency)
        self.mutex = [simpy.Resource(self.env, capacity=1) for _ in range(config.gpus)]
        self.mem_mutex = [simpy.Resource(self.env, capacity=1) for _ in range(config.gpus)]
        # b_g2_msm calls whose pool time was measured on a shared pool queue for it in order
        self.b_g2_queue = simpy.Resource(self.env, capacity=1)
        # MatVecs that queue their row ranges on their shared pool run one after another
        self.matvec_queue = (simpy.Resource(self.env, capacity=1)
                             if self.matvec_group
                             and profile["synth"].get("matvec_queue", "shared") == "fifo"
                             else None)
        self._last_holder: list[object] = [None] * config.gpus
        self._last_bw = -1.0

    # -- bookkeeping -------------------------------------------------------------
    def fail(self, reason: str, message: str) -> None:
        """Stop the run and record it as failed with ``reason``."""
        if self.failure is None:
            self.failure = {"reason": reason, "message": message, "t": self.env.now}
            if not self.stop.triggered:
                self.stop.succeed()

    def _on_rss(self, memory: HostMemory) -> None:
        self.tb.counter(self.env.now, "rss_gib", memory.rss)
        self.machine.set_pressure(memory.pressure())

    def _on_budget(self, budget: BudgetGate) -> None:
        self.tb.counter(self.env.now, "budget_used_gib", budget.used + self.base_gib)

    def _on_rates(self, machine: Machine) -> None:
        bw = round(machine.bandwidth_used, 3)
        if bw != self._last_bw:
            self.tb.counter(self.env.now, "ddr_gbps", bw)
            self._last_bw = bw

    def _queue_depth(self, delta: int) -> None:
        self._queued += delta
        self.tb.counter(self.env.now, "gpu_queue_depth", self._queued)

    def _jit(self) -> float:
        return self._draw(self.prof["gpu"]["jitter"])

    def _draw(self, sigma: float) -> float:
        """A lognormal factor of median 1 and log-spread ``sigma`` (1 where sigma is 0),
        from the run's seeded generator."""
        return float(self.rng.lognormal(0.0, sigma)) if sigma > 0 else 1.0

    # -- the run -----------------------------------------------------------------
    def run(self) -> Trace:
        """Simulate the configured workload and return its Trace."""
        cfg, prof = self.cfg, self.prof
        part = prof["partition"]
        self.tb.counter(0.0, "rss_gib", self.base_gib)
        self.tb.counter(0.0, "budget_used_gib", self.base_gib)
        self.tb.counter(0.0, "gpu_queue_depth", 0)
        if not self._precheck(part):
            return self._build()
        for i in range(cfg.proofs):
            self.env.process(self._proof(i))
        if cfg.lock == "monolithic":
            slots = max(1, cfg.partition_workers // cfg.partitions)
            for s in range(slots):
                self.env.process(self._monolithic_synth(s))
        else:
            for w in range(cfg.partition_workers):
                self.env.process(self._partition_worker(w))
        for g in range(cfg.gpus):
            for w in range(cfg.gpu_workers_per_device):
                self.env.process(self._gpu_worker(g, w))
        try:
            self.env.run(until=self.stop)
        except RuntimeError as exc:  # no events left: something waits forever
            self.fail("deadlock", f"the pipeline stalled with work left: {exc}")
        return self._build()

    def _precheck(self, part) -> bool:
        cfg, prof = self.cfg, self.prof
        if self.base_gib > cfg.memory_gib:
            self.fail("oom", f"SRS + PCE ({self.base_gib:.1f} GiB) exceed RAM "
                             f"({cfg.memory_gib:.1f} GiB)")
            return False
        vram = prof["node"]["vram_gib"]
        per_gpu = part["device_buffers_gib"] * (cfg.gpu_workers_per_device
                                                if cfg.lock == "two_lock" else 1)
        if per_gpu > vram:
            self.fail("vram_oom", f"{'each GPU worker keeps its own' if cfg.lock == 'two_lock' else 'the GPU needs'} "
                                  f"device buffers: {per_gpu:.0f} GiB > VRAM {vram:.0f} GiB "
                                  f"(gpu_workers_per_device={cfg.gpu_workers_per_device})")
            return False
        if cfg.admission == "budget":
            need = prof["memory"]["budget_reserve_gib"] * (cfg.partitions if cfg.lock == "monolithic" else 1)
            room = self.budget_total - self.base_gib
            if need > room:
                self.fail("deadlock", f"a {need:.0f} GiB budget reservation can never fit: budget "
                                      f"{self.budget_total:.0f} GiB minus SRS+PCE {self.base_gib:.1f} GiB "
                                      f"leaves {room:.1f} GiB (cuzk blocks forever)")
                return False
            self.budget.total = room  # SRS and PCE hold their share permanently
        return True

    def _build(self) -> Trace:
        cfg = self.cfg
        proofs = self.tb.proof_rows(self.proof_rec, cfg.proofs, self.failure is not None)
        failed = self.failure is not None
        from .. import __version__
        return self.tb.build(
            config=cfg.to_dict(), profile=self.prof.name, seed=cfg.seed,
            versions={"cuzklab": __version__, "simpy": simpy.__version__,
                      "python": platform.python_version()},
            host=platform.node(), failed=failed, failure=self.failure, proofs=proofs,
            end_time=self.env.now, synth_steps=sorted(self.synth_steps),
            resources={"gpus": cfg.gpus, "synthesis_slots": cfg.partition_workers,
                       "cpu_pool_threads": self.pool_threads, "cores": self.cores,
                       "ddr_gbps": self.prof["node"]["ddr_gbps"],
                       "memory_gib": cfg.memory_gib,
                       **({"budget_gib": self.budget.total} if cfg.admission == "budget" else {})})

    # -- proofs ------------------------------------------------------------------
    def _proof(self, i: int):
        cfg = self.cfg
        with self.inflight.request() as req:
            yield req
            now = self.env.now
            self.proof_rec[i] = {"submitted": now}
            done = self.env.event()
            self._proof_done[i] = done
            if cfg.lock == "monolithic":
                self._left[i] = 1
                self.synth_queue.put(Partition(i, -1, now, members=tuple(range(cfg.partitions))))
            else:
                self._left[i] = cfg.partitions
                req = self._hold_request(i, cfg.partitions, self.prof)
                for k in range(cfg.partitions):
                    self.synth_queue.put(Partition(i, k, now, request_gib=req))
            yield done
            self._release_request(i)
            self.proof_rec[i]["completed"] = self.env.now
            self.done += 1
            if self.done == cfg.proofs and not self.stop.triggered:
                self.stop.succeed()

    def _hold_request(self, i: int, partitions: int, prof) -> float:
        """A proof is dispatched: its request's C1 output is held once by the proof and once
        by each partition's work item; return the GiB each partition holds.

        cuzk's engine (Phase 7 dispatch in ``engine.rs``) clones the whole ProofRequest, C1
        output included, into the proof's assembler state and into every partition's
        ``PartitionWorkItem``; the item's clone moves into the ``SynthesizedJob`` and is
        dropped when ``gpu_prove_start`` returns, the assembler's when the proof completes.
        """
        req = prof["memory"].get("request_gib", 0.0)
        if req > 0:
            self.memory.alloc(req * (partitions + 1), f"the requests of proof {i}")
            self._requests[i] = req
        return req

    def _release_request(self, i: int) -> None:
        """The proof completed: its assembler's copy of the request is dropped."""
        self.memory.free(self._requests.pop(i, 0.0))

    def _partition_done(self, p: Partition) -> None:
        self._left[p.proof] -= 1
        if self._left[p.proof] == 0:
            self._proof_done[p.proof].succeed()

    # -- synthesis -------------------------------------------------------------------
    def _synth_job(self, p: Partition, k: int, lane: str):
        """Run one partition's synthesis on the shared machine; record its span.

        A first share of its output (``alloc_at_start``) is touched at the start;
        the rest grows with the synthesis's progress (sampled four times a solo
        duration). With ``witness_fraction`` w > 0 the growth follows cuzk's two
        steps: the witness (aux) grows over the first w of the work, the a/b/c
        vectors (the MatVec's output) over the rest, or, with ``abc_touched =
        "matvec_start"``, all at once when the MatVec starts (cuzk zero-fills
        each vector before computing a row); with w = 0 the whole output grows
        evenly. The scratch (``scratch_gib``) is held for the whole synthesis,
        or with ``scratch_held = "matvec"`` for the MatVec step only (cuzk's
        copy of the witness the MatVec reads).

        With ``synth.matvec_pool`` set the two steps are two jobs: the witness on
        one thread (w of the work), then the MatVec (the rest) on the MatVec pool
        (:func:`matvec_threads`), which the MatVecs of concurrent syntheses share:
        its serial share (``matvec_serial``: allocation, first touch, the call's own
        code) on one thread first, then the rest on the pool, gathering from the
        partition's witness and writing its a, b, c (its working set in the shared
        last-level cache: ``node.llc_mib``, ``synth.matvec_miss_penalty``). One
        MatVec takes at most ``matvec_max_threads`` of that pool (absent: all of
        it), and the MatVec steps may ask their own bandwidth
        (``matvec_bw_gbps_per_thread``) and be as memory-bound as
        ``matvec_mem_bound`` says (absent: the synthesis's values). With
        ``matvec_queue = "fifo"`` the MatVecs take the pool one after another, in
        the order they reach it (a pool that queues each MatVec's row ranges behind
        the earlier ones'), instead of all at once. Where the runnable threads
        outnumber the cores, a thread of that pool counts ``matvec_weight`` against
        a thread of the prep_msm / b_g2_msm pool's ``node.cpu_pool_weight`` in
        how the two pools split them (absent: 1, a synthesis thread's). With
        ``synth.witness_spread`` s > 0 each synthesis's witness step takes its work
        times a lognormal draw of median 1 and log-spread s (the run's seeded
        generator), as the witness steps of one-thread syntheses started together
        end apart on a real host; without it syntheses that start together end
        their witness steps together and their MatVecs share the pool all at once.
        The one-thread steps (the witness, the MatVec's serial share) keep a core of
        their own (``synth.serial_share = "core"``, the default) and the witness step
        runs ``synth.witness_pool_slowdown`` slower while the prep_msm / b_g2_msm pool
        is full, in proportion to how full; with ``"even"`` they get no more than an
        even share of the cores among the runnable threads while those outnumber the
        cores (the OS switching such a thread out as often as any other) and the pool
        slowdown is left out.
        Without ``synth.matvec_pool`` the synthesis runs capped at ``max_threads`` (as two jobs of
        that cap when the MatVec's start allocates, else as one).
        """
        prof = p.prof or self.prof
        s = prof["synth"]
        part = prof["partition"]
        # with a pinned pool, a, b, c are written into a pinned buffer: the pool's memory,
        # counted when the buffer is pinned, not the synthesis's
        abc_gib = 0.0 if self.pinned_alloc_s > 0 else part["abc_gib"]
        total = abc_gib + part["aux_gib"]
        scratch = s.get("scratch_gib", 0.0)
        w = s.get("witness_fraction", 0.0)
        a0 = s["alloc_at_start"]
        abc_at_start = w > 0 and s.get("abc_touched", "as_written") == "matvec_start"
        scratch_matvec = w > 0 and s.get("scratch_held", "synthesis") == "matvec"

        def touched(x: float) -> float:  # GiB of the output touched at progress x
            if w <= 0 or total <= 0:
                grown = x
            else:
                abc = float(x >= w) if abc_at_start else max(0.0, (x - w) / (1 - w))
                grown = (part["aux_gib"] * min(1.0, x / w) + abc_gib * abc) / total
            return total * (a0 + (1 - a0) * grown)
        what = f"synthesis of proof {p.proof} partition {k}"
        held = total * a0
        self.memory.alloc(held + (0.0 if scratch_matvec else scratch), what)
        rec = self.proof_rec[p.proof]
        rec.setdefault("started", self.env.now)
        span_start = self.env.now
        if self.pinned_alloc_s > 0:  # check out a pinned buffer for a, b, c
            if self.pinned_free > 0:
                self.pinned_free -= 1
            else:  # none free: pin a new one, one pin at a time; the pool never frees it
                with self.pinned_driver.request() as req:
                    yield req
                    yield self.env.timeout(self.pinned_alloc_s)
                self.memory.alloc(part["abc_gib"], f"pinned a/b/c buffer for {what}")
        self.tb.counter(self.env.now, "synth_running", self.machine.count("synth") + 1)
        work = s["work_core_s"] * self._jit()
        kw = dict(bw_per_thread=s["bw_gbps_per_thread"], mem_bound=s["mem_bound"],
                  pressure_k=s.get("pressure_sensitivity", 0.0))
        # the MatVec's own bandwidth demand and memory-boundness (two-step synthesis only)
        mv_kw = dict(kw, bw_per_thread=s.get("matvec_bw_gbps_per_thread", kw["bw_per_thread"]),
                     mem_bound=s.get("matvec_mem_bound", kw["mem_bound"]))
        # (a MatVec-only synthesis, witness_fraction 0, is two steps too: its witness takes no time)
        two = self.matvec_threads and s.get("matvec_pool")
        if two:  # the witness on one thread, then the MatVec on the shared MatVec pool
            # (its serial part first: allocation, first touch, the call's own code)
            ser = s.get("matvec_serial", 0.0)
            mv = (1 - w) * work
            # syntheses started together end their witness steps apart, as measured
            # (synth.witness_spread), so their MatVecs reach the shared pool apart
            wit = w * work * self._draw(s.get("witness_spread", 0.0))
            steps = [(wit, 1.0, "", 0.0, w)]
            if ser > 0:
                steps.append((ser * mv, 1.0, "", w, (1 - w) * ser))
            reach = min(self.matvec_threads, s.get("matvec_max_threads", math.inf))
            steps.append(((1 - ser) * mv, reach, self.matvec_group,
                          w + (1 - w) * ser, (1 - w) * (1 - ser)))
        elif abc_at_start or scratch_matvec:  # the MatVec's start is an event of its own
            steps = [(w * work, s["max_threads"], "", 0.0, w),
                     ((1 - w) * work, s["max_threads"], "", w, 1 - w)]
        else:
            steps = [(work, s["max_threads"], "", 0.0, 1.0)]
        start = self.env.now
        matvec_kw = dict(ws_gib=total, miss_penalty=s.get("matvec_miss_penalty", 0.0))
        # a two-step synthesis's one-thread steps: a core of their own, the witness step
        # slower beside a full b_g2_msm pool; or an even share of the cores among the
        # runnable threads
        even = s.get("serial_share", "core") == "even"
        one_kw = dict(even_share=even)
        witness_kw = dict(pool_slowdown=1.0 if even else s.get("witness_pool_slowdown", 1.0))
        for i, (step_work, cap, group, done_before, share) in enumerate(steps):
            if i == 1:  # the MatVec starts (step 1 of every split): its witness copy, a/b/c
                if scratch_matvec:
                    self.memory.alloc(scratch, what)
                if touched(done_before) > held:
                    self.memory.alloc(touched(done_before) - held, what)
                    held = touched(done_before)
            turn = None
            if group and self.matvec_queue is not None:  # wait for the pool's earlier MatVecs
                turn = self.matvec_queue.request()
                yield turn
            ev = self.machine.run("synth", step_work, cap=cap, group=group,
                                  **(mv_kw if two and i >= 1 else kw),
                                  **(matvec_kw if group else {}),
                                  **(witness_kw if two and i == 0 else {}),
                                  **(one_kw if two and not group else {}))
            step = work / s["max_threads"] / 4
            while not ev.triggered:
                yield self.env.any_of([ev, self.env.timeout(step)])
                if ev.triggered:
                    break
                want = touched(done_before + share * self.machine.progress(ev))
                if want > held:
                    self.memory.alloc(want - held, what)
                    held = want
            if turn is not None:
                self.matvec_queue.release(turn)
            if i == 0:
                witness_end = self.env.now
        if len(steps) > 1:
            end = self.env.now
            self.synth_steps.append([p.proof, k, round(witness_end - start, 6),
                                     round(end - witness_end, 6)])
            solo = sum(sw / self.machine.solo_rate("synth", cap) for sw, cap, *_ in steps)
            slow = (end - start) / solo
        else:
            start, end, slow = ev.value
        start = min(start, span_start)  # the span holds the pin, as the live one does
        self.tb.counter(end, "synth_running", self.machine.count("synth"))
        self.tb.span(p.proof, k, "synth", lane, start, end, slowdown=slow,
                     bytes=(part["abc_gib"] + part["aux_gib"]) * GIB)
        self.memory.alloc(total - held, what)
        self.memory.free(scratch)
        p.abc_gib += abc_gib
        p.aux_gib += part["aux_gib"]

    def _partition_worker(self, w: int):
        cfg = self.cfg
        reserve = self.prof["memory"]["budget_reserve_gib"]
        while True:
            p = yield self.synth_queue.get()
            if cfg.admission == "budget":
                yield self.budget.reserve(reserve)
                p.budget_gib = reserve
            self.tb.span(p.proof, p.index, "queue", "admission", p.submitted, self.env.now)
            yield from self._synth_job(p, p.index, f"synth.{w}")
            p.synth_end = self.env.now
            self._queue_depth(+1)
            if cfg.admission == "semaphore_prefix":
                self.env.process(self._handoff(p))  # permit dropped before the send
            else:
                yield from self._handoff(p)          # permit held through the hand-off

    def _handoff(self, p: Partition):
        yield self.channel.put(p)

    def _monolithic_synth(self, slot: int):
        cfg = self.cfg
        reserve = self.prof["memory"]["budget_reserve_gib"] * cfg.partitions
        while True:
            p = yield self.synth_queue.get()
            if cfg.admission == "budget":
                yield self.budget.reserve(reserve)
                p.budget_gib = reserve
            for k in p.members:
                self.tb.span(p.proof, k, "queue", "admission", p.submitted, self.env.now)
            jobs = [self.env.process(self._synth_job(p, k, f"synth.{slot * cfg.partitions + k}"))
                    for k in p.members]
            yield self.env.all_of(jobs)
            p.synth_end = self.env.now
            self._queue_depth(+1)
            if cfg.admission == "semaphore_prefix":
                self.env.process(self._handoff(p))
            else:
                yield from self._handoff(p)

    # -- GPU side ----------------------------------------------------------------------
    def _cpu(self, kind: str, p: Partition, k: int, lane: str, *, threads_for_b_g2=None):
        """Run prep_msm, b_g2_msm or epilogue for one partition; record its span."""
        prof = p.prof or self.prof
        t0 = self.env.now
        if kind == "prep_msm":
            c = prof["prep_msm"]
            if c.get("queue", "own") == "pool" and "pool_core_s" in prof["b_g2_msm"]:
                # its work is a job on the b_g2_msm pool's first-in, first-out queue: it
                # starts once the calls queued before it have had the pool
                with self.b_g2_queue.request() as req:
                    yield req
            ev = self.machine.run("pool", c["solo_s"] * c["threads"] * self._jit(),
                                  cap=c["threads"], bw_per_thread=c["bw_gbps_per_thread"],
                                  mem_bound=c["mem_bound"],
                                  pressure_k=c.get("pressure_sensitivity", 0.0))
        elif kind == "b_g2_msm":
            c = prof["b_g2_msm"]
            t = self.pool_threads
            bucket = prof["memory"]["b_g2_bucket_mib_per_thread"] * t / 1024
            self.memory.alloc(bucket, "b_g2_msm buckets")
            kw = dict(bw_per_thread=c["bw_gbps_per_thread"], mem_bound=c["mem_bound"],
                      pressure_k=c.get("pressure_sensitivity", 0.0),
                      neighbour_slowdown=c.get("neighbour_slowdown", 0.0))
            if "pool_core_s" in c:
                ev = self.env.process(self._b_g2_queued(prof, t, kw))
            else:
                _, work, width = prof.b_g2_pool_step(t)
                ev = self.machine.run("pool", work * self._jit(), cap=width, **kw)
        else:
            ev = self.machine.run("single", prof["epilogue"]["solo_s"] * self._jit(), cap=1,
                                  pressure_k=prof["epilogue"]["pressure_sensitivity"])
        start, end, slow = yield ev
        if kind == "b_g2_msm":
            self.memory.free(bucket)
        if start > t0:  # it waited its turn on the pool's queue: its span holds the wait
            slow *= (end - t0) / max(end - start, 1e-12)
            start = t0
        self.tb.span(p.proof, k, kind, lane, start, end, slowdown=slow)

    def _gpu_region(self, p: Partition, k: int, g: int, lane: str, prep_ev, worker) -> float:
        """Run h2d, ntt_h, barrier_wait, batch_add and tail_msm on GPU ``g``."""
        prof, env = p.prof or self.prof, self.env
        gpu = prof["gpu"]
        part = prof["partition"]
        if self._last_holder[g] is not None and self._last_holder[g] is not worker:
            yield env.timeout(gpu["handoff_s"])
        self._last_holder[g] = worker
        start, end, slow = yield from self._upload(prof)
        self.tb.span(p.proof, k, "h2d", lane, start, end, gpu=g,
                     bytes=part["abc_upload_gib"] * GIB, slowdown=slow)
        self._pinned_give()
        yield from self._gpu_stage(p, k, g, lane, "ntt_h", gpu["ntt_h_s"] + gpu["overhead_s"])
        if prep_ev is not None and not prep_ev.triggered:
            t0 = env.now
            yield prep_ev
            self.tb.span(p.proof, k, "barrier_wait", lane, t0, env.now, gpu=g)
        yield from self._gpu_stage(p, k, g, lane, "batch_add", gpu["batch_add_s"])
        yield from self._gpu_stage(p, k, g, lane, "tail_msm", gpu["tail_msm_s"])

    def _pinned_give(self) -> None:
        """The upload is done: its pinned a/b/c buffer goes back to the pool."""
        if self.pinned_alloc_s > 0:
            self.pinned_free += 1

    def _upload(self, prof):
        """In-lock set-up (pool trim, device allocation, syncs), then the a/b/c upload.

        Returns (start, end, slowdown) over both; the set-up is CPU-side driver work
        that slows with host contention like any other CPU stage.
        """
        env = self.env
        t0 = env.now
        setup = prof["gpu"].get("in_lock_setup_s", 0.0) * self._jit()
        solo = setup
        if setup > 0:
            yield self._setup_job(setup)
        part = prof["partition"]
        gb = part["abc_upload_gib"] * GIB / 1e9 * self._jit()
        rate = min(part["abc_upload_gbps"], prof["node"]["pcie_gbps"])  # the link caps the upload
        yield self.machine.run("dma", gb, cap=rate, mem_bound=1.0)
        solo += gb / min(rate, prof["node"]["ddr_gbps"])
        return t0, env.now, (env.now - t0) / solo if solo > 0 else 1.0

    def _gpu_stage(self, p, k, g, lane, stage, seconds):
        """Run a GPU stage: the longer of its compute and its host-memory reads.

        With ``gpu.host_share`` h > 0, h of the stage's time is work of the host
        thread that drives it (launches, waits, the caller's own code): a
        one-thread CPU job after the device's share, which slows as the host's
        cores are shared.
        """
        env, prof = self.env, p.prof or self.prof
        t0 = env.now
        compute = seconds * self._jit()
        host = prof["gpu"].get("host_share", 0.0)
        host_gb = prof["gpu"].get(f"{stage}_host_gib", 0.0) * GIB / 1e9
        device = env.timeout((1.0 - host) * compute)
        if host_gb > 0:
            dma = self.machine.run("dma", host_gb, cap=prof["node"]["pcie_gbps"], mem_bound=1.0)
            yield env.all_of([device, dma])
        else:
            yield device
        if host > 0:
            yield self.machine.run("single", host * compute, cap=1)
        solo = max((1.0 - host) * compute, host_gb / prof["node"]["pcie_gbps"]) + host * compute
        self.tb.span(p.proof, k, stage, lane, t0, env.now, gpu=g,
                     bytes=host_gb * 1e9 if host_gb else math.nan,
                     slowdown=(env.now - t0) / solo if solo > 0 else 1.0)

    def _after_kernels(self, p: Partition) -> None:
        """prove_start returned: drop the work item's request, free a/b/c early (phase 12),
        release budget."""
        prof = p.prof or self.prof
        if p.request_gib > 0:
            self.memory.free(p.request_gib)
            p.request_gib = 0.0
        if prof["partition"].get("free_abc_after", "finalize") == "gpu":
            self.dealloc.free(p.abc_gib)
            p.abc_gib = 0.0
        if p.budget_gib > 0:
            rel = prof["memory"]["budget_release_gpu_gib"] * max(1, len(p.members))
            rel = min(rel, p.budget_gib)
            self.budget.release(rel)
            p.budget_gib -= rel

    def _b_g2_queued(self, prof, t: int, kw: dict):
        """One b_g2_msm call on a shared pool whose occupancy was measured (``pool_core_s``).

        Its part beside an idle pool (``serial_s``: the digit pass's hand-off, the
        window combine on the caller's thread, the last round's stragglers) runs on
        one core; then its tasks take the pool in turn with the other calls' (the
        pool's queue is first in, first out, so one call's tasks run together),
        ``pool_core_s`` thread-seconds of a full pool. Returns (start, end,
        slowdown against the call alone).
        """
        start = self.env.now
        jit = self._jit()
        ser, pool_work, width = prof.b_g2_pool_step(t)
        if ser > 0:
            yield self.machine.run("single", ser * jit, cap=1, pressure_k=kw["pressure_k"])
        with self.b_g2_queue.request() as req:
            yield req
            _, end, _ = yield self.machine.run("pool", pool_work * jit, cap=width, **kw)
        alone = ser + pool_work / max(width, 1)
        return start, end, (end - start) / max(alone, 1e-12)

    def _finalize(self, p: Partition, lane: str, b_g2=None):
        """b_g2_msm (or wait for the one already running: ``b_g2``), epilogue, then free
        what is left of the partition."""
        if b_g2 is None:
            for k in (p.members or (p.index,)):
                yield from self._cpu("b_g2_msm", p, k, lane)
        elif not b_g2.triggered:
            yield b_g2
        for k in (p.members or (p.index,)):
            yield from self._cpu("epilogue", p, k, lane)
        self.dealloc.free(p.abc_gib + p.aux_gib)
        p.abc_gib = p.aux_gib = 0.0
        if p.budget_gib > 0:
            self.budget.release(p.budget_gib)
            p.budget_gib = 0.0
        self._partition_done(p)

    def _finalizer(self, p: Partition, b_g2=None):
        idx = self._final_lanes.take()
        yield from self._finalize(p, f"final.{idx}", b_g2)
        self._final_lanes.give(idx)

    def _b_g2_after_prep(self, p: Partition, prep):
        """b_g2_msm as cuzk's split API runs it: on the prep_msm thread once prep_msm is
        done, beside the GPU's batch_add and tail_msm (a finalizer lane here)."""
        yield prep
        idx = self._final_lanes.take()
        yield from self._cpu("b_g2_msm", p, p.index, f"final.{idx}")
        self._final_lanes.give(idx)

    def _gpu_worker(self, g: int, w: int):
        cfg, env = self.cfg, self.env
        lane, cpu_lane = f"gpu{g}.w{w}", f"gpu{g}.w{w}.cpu"
        me = object()
        while True:
            p = yield self.channel.get()
            self._queue_depth(-1)
            members = p.members or (p.index,)
            for k in members:
                self.tb.span(p.proof, k, "gpu_queue", "gpu_queue", p.synth_end, env.now)
            if cfg.lock in ("wide_mutex", "monolithic"):
                t0 = env.now
                with self.mutex[g].request() as req:
                    yield req
                    for k in members:
                        self.tb.span(p.proof, k, "mutex_wait", lane, t0, env.now, gpu=g)
                    for k in members:
                        prep = env.process(self._cpu("prep_msm", p, k, cpu_lane))
                        yield from self._gpu_region(p, k, g, lane, prep, me)
                    self._after_kernels(p)
                    yield from self._finalize(p, cpu_lane)
                continue
            prep = env.process(self._cpu("prep_msm", p, p.index, cpu_lane))
            b_g2 = (env.process(self._b_g2_after_prep(p, prep)) if cfg.lock == "split_async"
                    else None)
            yield from self._pre_lock()
            if cfg.lock == "two_lock":
                yield from self._two_lock_region(p, g, lane, prep, me)
            else:
                t0 = env.now
                with self.mutex[g].request() as req:
                    yield req
                    self.tb.span(p.proof, p.index, "mutex_wait", lane, t0, env.now, gpu=g)
                    yield from self._gpu_region(p, p.index, g, lane, prep, me)
            if not prep.triggered:
                yield prep
            self._after_kernels(p)
            if cfg.lock == "split_async":
                env.process(self._finalizer(p, b_g2))
            else:
                yield from self._finalize(p, cpu_lane)

    def _pre_lock(self):
        """CPU set-up before the mutex (cuzk's pre_lock_cpu_ms): no canonical stage."""
        s = self.prof["gpu"].get("pre_lock_s", 0.0)
        if s > 0:
            yield self._setup_job(s * self._jit())

    def _setup_job(self, seconds: float):
        """Start one thread of GPU set-up work (page pinning, driver calls) on the machine."""
        g = self.prof["gpu"]
        return self.machine.run("single", seconds, cap=1, bw_per_thread=g["setup_bw_gbps"],
                                mem_bound=g["setup_mem_bound"],
                                pressure_k=g["setup_pressure_sensitivity"])

    def _two_lock_region(self, p: Partition, g: int, lane: str, prep, me):
        """Upload under the memory mutex, kernels under the compute mutex."""
        env, prof = self.env, p.prof or self.prof
        gpu = prof["gpu"]
        k = p.index
        t0 = env.now
        with self.mem_mutex[g].request() as mreq:
            yield mreq
            w0 = env.now
            start, end, slow = yield from self._upload(prof)
        if w0 > t0:
            self.tb.span(p.proof, k, "mutex_wait", lane, t0, w0, gpu=g)
        self.tb.span(p.proof, k, "h2d", lane, start, end, gpu=g,
                     bytes=prof["partition"]["abc_upload_gib"] * GIB, slowdown=slow)
        self._pinned_give()
        t1 = env.now
        with self.mutex[g].request() as req:
            yield req
            if env.now > t1:
                self.tb.span(p.proof, k, "mutex_wait", lane, t1, env.now, gpu=g)
            if self._last_holder[g] is not None and self._last_holder[g] is not me:
                yield env.timeout(gpu["handoff_s"])
            self._last_holder[g] = me
            yield from self._gpu_stage(p, k, g, lane, "ntt_h", gpu["ntt_h_s"] + gpu["overhead_s"])
            if not prep.triggered:
                t2 = env.now
                yield prep
                self.tb.span(p.proof, k, "barrier_wait", lane, t2, env.now, gpu=g)
            yield from self._gpu_stage(p, k, g, lane, "batch_add", gpu["batch_add_s"])
            yield from self._gpu_stage(p, k, g, lane, "tail_msm", gpu["tail_msm_s"])
