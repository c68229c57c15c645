"""The live executor: cuzk's pipeline run for real, with threads, locks and a budget.

One :class:`LiveRun` per run, built like the model's ``DaemonModel``
(:mod:`cuzklab.sim.daemon`) and mirroring it thread for process: a client
thread keeps ``concurrency`` proofs in flight; each proof's partitions join
one FIFO; ``partition_workers`` synthesis workers take them under the
admission rule and hand them to a bounded channel of capacity
max(lookahead, pw); ``gpu_workers_per_device`` GPU worker threads per device
take partitions from it and run the stages under the lock strategy; b_g2_msm
and the epilogue finish a partition in the worker, or in a finalizer thread
with ``split_async``. prep_msm and b_g2_msm run on one shared pool of
``gpu_threads`` threads: a b_g2_msm call's tasks, and each of prep_msm's two
passes as one job of one range on that pool's first-in, first-out queue, as
cuzk's prep_msm thread runs them (a ``par_map`` over its one circuit on the
pool that b_g2_msm's Pippenger uses), so a prep_msm starts once the b_g2_msm
calls queued before it have every task taken; each synthesis runs its witness program on its
worker's thread and cuts its MatVec into row ranges for one pool of
``synthesis_threads`` threads that every synthesis shares, as cuzk's syntheses
share rayon's pool.

Every span is measured (wall clock; on a GPU the stage clock also waits for
the CUDA events of the worker's stream) and carries the model's stage and
lane names, so the summary, the bottleneck analysis and the plots read a
live trace as they read a simulated one. A stage span starts when the stage
is asked for (a pool task from its submission) and ends when its result is
there.
"""

from __future__ import annotations

import math
import os
import platform
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..errors import ConfigError
from ..native.pool import NativePool, native_pool
from ..trace import Trace, TraceBuilder
from . import work as W
from .devices import Device, PinnedPool
from .memory import GIB, MemoryGuard, Sampler
from ..trace.lanes import Lanes
from .sync import Budget, Channel, Fifo, Stop, Stopped, acquire, result, switch_interval

#: Stages that a test or a what-if experiment may lengthen with ``slow`` (seconds added).
SLOWABLE = ("synth", "prep_msm", "h2d", "ntt_h", "batch_add", "tail_msm", "b_g2_msm", "epilogue")

#: Reasons a live run can fail with (meta ``failure.reason``).
FAILURES = ("oom", "interrupted", "error", "unverified")

#: Device memory the kernels of one partition use beside its uploaded a, b, c,
#: in units of a, b, c's size: ntt_h works on copies of the three vectors (x1)
#: and keeps h and the MSM's buckets (about x1 more). Measured on the H200 at
#: 2^18..2^20 from the memory pool's peak (within 10 %).
KERNEL_SCRATCH_ABC = 2.0


def thread_usage() -> tuple[float, int, int, int]:
    """Return the calling thread's CPU seconds, minor page faults, involuntary context
    switches (switched out while runnable) and voluntary ones (it waited: for the GIL, a
    lock, a page) so far (the last three 0 where the platform does not count them per
    thread)."""
    cpu = time.thread_time()
    try:
        import resource
        ru = resource.getrusage(resource.RUSAGE_THREAD)
    except (ImportError, AttributeError, OSError):
        return cpu, 0, 0, 0
    return cpu, ru.ru_minflt, ru.ru_nivcsw, ru.ru_nvcsw


def usage_since(before: tuple) -> list:
    """Return what :func:`thread_usage` counted on this thread since ``before``."""
    return [round(b - a, 6) if isinstance(a, float) else b - a
            for a, b in zip(before, thread_usage())]


@dataclass(eq=False)
class Part:
    """A partition moving through the pipeline (a whole proof for monolithic)."""

    proof: int
    index: int
    submitted: float
    members: tuple = ()
    synth_end: float = math.nan
    budget: int = 0                      # bytes still reserved
    data: dict = field(default_factory=dict)  # member -> its stage outputs


class LiveRun:
    """Build with a config, a workload and devices, then :meth:`run` to get the measured Trace."""

    def __init__(self, config, work: W.Workload, devices: list[Device], *, backend: str,
                 channel_capacity: int, profile: str | None = None, progress=None, verify: bool = True,
                 slow: dict | None = None, memory_guard: MemoryGuard | None = None,
                 pin_ahead: bool = True):
        self.cfg = config
        self.pin_ahead = bool(pin_ahead)
        self.pinned_ahead = 0
        self.work = work
        self.devices = devices
        self.backend = backend
        self.profile = profile
        self.progress = progress
        self.verify = verify
        self.slow = dict(slow or {})
        self.cores = os.cpu_count() or 1
        self.pool_threads = config.gpu_threads or self.cores
        self.synthesis_threads = config.synthesis_threads or self.cores
        # Every synthesis's MatVec is cut for, and runs on, one pool of
        # synthesis_threads that all syntheses share (cuzk's rayon pool); one
        # b_g2_msm runs over the whole gpu_threads pool, as cuzk's Pippenger does.
        self.matvec_threads = self.synthesis_threads
        self.stop = Stop()
        self.tb = TraceBuilder(source="live")
        self.timed = W.Timed(time.perf_counter())
        self.failure: dict | None = None
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self.proof_rec: dict[int, dict] = {}
        self._left: dict[int, int] = {}
        self._inflight = threading.Semaphore(config.concurrency)
        self.done = 0
        self.proofs: dict[tuple[int, int], object] = {}
        self._queued = 0
        self._synth_running = 0
        # [proof, partition, witness_s, matvec_s, and of the thread that ran it: CPU seconds,
        # minor page faults, involuntary switches, voluntary switches] each
        self.synth_steps: list[list] = []
        # [proof, partition, prep_msm's own seconds, and of its thread over them: CPU
        # seconds, minor page faults, involuntary switches, voluntary switches] each
        self.prep_steps: list[list] = []
        self.fifo = Fifo(self.stop)
        self.channel = Channel(channel_capacity, self.stop)
        self.pool = ThreadPoolExecutor(self.pool_threads, thread_name_prefix="live-cpu-pool")
        # the native pool b_g2_msm's Pippenger runs on (process-wide, by its size), whose
        # queue prep_msm's passes join too
        self.cpu_queue = native_pool(self.pool_threads)
        self.synth_pool = ThreadPoolExecutor(self.synthesis_threads,
                                             thread_name_prefix="live-synth-pool")
        self.matvec_pool = NativePool(self.synthesis_threads, "live-matvec-pool")
        self.pinned = PinnedPool(backend, work.domain_size)
        self.final_lanes = Lanes()
        self.guard = memory_guard or MemoryGuard(config.memory_gib)
        self.budget = None
        self.budget_room = None
        self.reserve_bytes = work.partition_bytes * (config.partitions
                                                    if config.lock == "monolithic" else 1)
        if config.admission == "budget":
            total = int(config.effective_budget_gib() * GIB)
            room = total - work.key_bytes
            if self.reserve_bytes > room:
                raise ConfigError("budget_gib", (
                    f"one {'proof' if config.lock == 'monolithic' else 'partition'} reserves "
                    f"{self.reserve_bytes / GIB:.6f} GiB but the budget "
                    f"({total / GIB:.6f} GiB, minus the proving key's "
                    f"{work.key_bytes / GIB:.6f} GiB) leaves {room / GIB:.6f} GiB: it could "
                    f"never be admitted (cuzk blocks forever)"))
            self.budget_room = room
            self.budget = Budget(room, self.stop, on_change=self._on_budget)
        self._check_vram()

    # -- bookkeeping ---------------------------------------------------------------
    def now(self) -> float:
        """Return seconds since the run's origin."""
        return self.timed.now()

    def fail(self, reason: str, message: str) -> None:
        """Stop the run and record it as failed with ``reason`` (the first failure wins)."""
        if self.stop.set(reason, message, self.now()):
            self.failure = {"reason": reason, "message": message, "t": self.now()}

    def _on_budget(self, used: int) -> None:
        self.tb.counter(self.now(), "budget_used_gib", (used + self.work.key_bytes) / GIB)

    def _queue_depth(self, delta: int) -> None:
        with self._lock:
            self._queued += delta
            q = self._queued
        self.tb.counter(self.now(), "gpu_queue_depth", q)

    def _pad(self, stage: str) -> None:
        s = self.slow.get(stage)
        if s:
            time.sleep(s)

    def _span(self, p: Part, k: int, stage: str, lane: str, start: float, end: float, **kw):
        self.tb.span(p.proof, k, stage, lane, start, end, **kw)

    def _spawn(self, name: str, target, *args) -> threading.Thread:
        def body():
            try:
                target(*args)
            except Stopped:
                pass
            except BaseException as exc:  # a bug in a stage: stop the run, keep the trace
                tb = traceback.format_exc(limit=6)
                self.fail("error", f"{name}: {type(exc).__name__}: {exc}\n{tb}")
        t = threading.Thread(target=body, name=name, daemon=True)
        with self._lock:
            self._threads.append(t)
        t.start()
        return t

    def _check_vram(self) -> None:
        cfg = self.cfg
        sets = cfg.gpu_workers_per_device if cfg.lock == "two_lock" else 1
        need = (self.work.key_bytes + self.work.abc_bytes * (sets + KERNEL_SCRATCH_ABC))
        for d in self.devices:
            free = d.free_bytes()
            if need > free:
                what = (f"two_lock keeps device buffers per GPU worker "
                        f"(gpu_workers_per_device={cfg.gpu_workers_per_device})"
                        if cfg.lock == "two_lock" else "the proving key, a, b, c and the kernels")
                raise ConfigError("gpu_workers_per_device" if cfg.lock == "two_lock" else
                                  "log2_constraints",
                                  f"{what} need {need / GIB:.2f} GiB on {d.name}, which has "
                                  f"{free / GIB:.2f} GiB free")

    # -- the run -------------------------------------------------------------------
    @switch_interval()
    def run(self) -> Trace:
        """Run the configured workload; return its Trace (failed runs and Ctrl-C included).

        The interpreter's switch interval is :data:`~cuzklab.live.sync.SWITCH_INTERVAL_S`
        for the run (see there why).
        """
        cfg = self.cfg
        shared = {}
        for d in self.devices:
            d.load_key(self.work)
            if cfg.lock != "two_lock":
                shared[d.index] = d.buffers(self.work.domain_size)
        if self.backend == "gpu":
            self._warm_up(shared)
        if self.pin_ahead:
            self.pinned_ahead = self.pinned.fill(self.pinned_needed())
        self.timed = W.Timed(time.perf_counter())
        self.tb.counter(0.0, "gpu_queue_depth", 0)
        self.tb.counter(0.0, "budget_used_gib", self.work.key_bytes / GIB)
        sampler = Sampler(now=self.now, record=self.tb.counter, guard=self.guard,
                          devices=self.devices, stop=self.stop, fail=self.fail)
        sampler.start()
        bar = _Progress(self.progress, cfg.proofs)
        try:
            self._spawn("live-client", self._client)
            if cfg.lock == "monolithic":
                for s in range(max(1, cfg.partition_workers // cfg.partitions)):
                    self._spawn(f"live-synth-slot-{s}", self._monolithic_synth, s)
            else:
                for w in range(cfg.partition_workers):
                    self._spawn(f"live-synth-{w}", self._partition_worker, w)
            for d in self.devices:
                for w in range(cfg.gpu_workers_per_device):
                    self._spawn(f"live-{d.name}-w{w}", self._gpu_worker, d, w,
                                shared.get(d.index))
            while not self.stop.wait(0.05):
                bar.update(self.done)
            bar.update(self.done)
        except KeyboardInterrupt:
            self.fail("interrupted", "interrupted (Ctrl-C) before every proof was done")
        finally:
            self._join_all()
            sampler.finish()
            bar.close()
        self.peak_rss_gib = sampler.peak_rss / GIB
        verification = self._verify()
        return self._build(verification)

    def pinned_needed(self) -> int:
        """Return the most a/b/c buffers this configuration can hold at once.

        A buffer is held from a synthesis's start to its upload's end: by the
        partitions being synthesized, those waiting in (or, under
        ``semaphore_prefix``, for) the hand-off channel, and those uploading;
        never more than the partitions of the proofs admitted at once.
        """
        cfg = self.cfg
        in_flight = cfg.concurrency * cfg.partitions
        if cfg.admission == "semaphore_prefix":
            return in_flight
        per = cfg.partitions if cfg.lock == "monolithic" else 1
        held = ((cfg.partition_workers + self.channel.capacity) * per
                + cfg.gpu_workers_per_device * cfg.gpus * per)
        return min(in_flight, held)

    def _warm_up(self, shared: dict) -> None:
        """Run one partition's upload and kernels on each GPU before the clock starts.

        The first use of a CUDA kernel compiles and loads it (seconds); cuzk's
        daemon has its kernels loaded, so the measured run should too.
        """
        clock = self.timed.clock()
        host = self.pinned.checkout()
        out = W.synthesize(self.work, 0, 0, clock, self.matvec_threads, self.matvec_pool, host)
        po = W.prep(out, clock, self.cpu_queue)
        for d in self.devices:
            with d.context():
                buf = shared.get(d.index) or d.buffers(self.work.domain_size)
                arrays = d.upload(buf, host)
                dev_out = W.with_abc(out, *(W.fr_from_limbs(x) for x in arrays))
                W.kernels_ntt_h(dev_out, d.pk, "gpu", clock)
                _, dev_prep = W.kernels_batch_add_from_host(po, d.pk, "gpu", clock)
                W.kernels_tail_msm(dev_prep, d.pk, "gpu", clock)
                d.xp.cuda.get_current_stream().synchronize()
        self.pinned.give(host)

    def _join_all(self) -> None:
        """Join every thread the run started (they exit within POLL_S of the stop flag)."""
        if not self.stop.is_set():
            self.stop.set("done")
        while True:
            try:
                with self._lock:
                    pending = [t for t in self._threads if t.is_alive()]
                if not pending:
                    break
                for t in pending:
                    t.join()
            except KeyboardInterrupt:  # a second Ctrl-C: keep joining, the threads are ending
                self.fail("interrupted", "interrupted (Ctrl-C)")
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.synth_pool.shutdown(wait=True, cancel_futures=True)
        self.matvec_pool.shutdown(wait=True, cancel_futures=True)

    def _verify(self) -> dict:
        """Pairing-check every partition proof made (unless verification is off or Ctrl-C'd)."""
        out = {"checked": 0, "verified": 0, "proofs_checked": 0, "proofs_verified": 0}
        if not self.verify or (self.failure or {}).get("reason") == "interrupted":
            out["skipped"] = True
            return out
        ok_by_proof: dict[int, list[bool]] = {}
        t0 = time.perf_counter()
        for (proof, k), pr in sorted(self.proofs.items()):
            good = W.verify_proof(self.work, proof, k, pr)
            out["checked"] += 1
            out["verified"] += int(good)
            ok_by_proof.setdefault(proof, []).append(good)
        for proof, oks in ok_by_proof.items():
            if len(oks) == self.cfg.partitions:
                out["proofs_checked"] += 1
                out["proofs_verified"] += int(all(oks))
        out["verify_s"] = round(time.perf_counter() - t0, 3)
        if out["verified"] < out["checked"] and self.failure is None:
            self.failure = {"reason": "unverified", "t": self.now(),
                            "message": f"{out['checked'] - out['verified']} of {out['checked']} "
                                       f"partition proofs failed the pairing check"}
        return out

    def _build(self, verification: dict) -> Trace:
        cfg = self.cfg
        proofs = self.tb.proof_rows(self.proof_rec, cfg.proofs, self.failure is not None)
        from .. import __version__
        import numpy as np
        versions = {"cuzklab": __version__, "numpy": np.__version__,
                    "python": platform.python_version()}
        if self.backend == "gpu":
            versions["cupy"] = self.devices[0].xp.__version__
        from ..backend import device_name
        resources = {"gpus": cfg.gpus, "synthesis_slots": cfg.partition_workers,
                     "cpu_pool_threads": self.pool_threads, "cores": self.cores,
                     "memory_gib": self.guard.limit / GIB}
        if self.budget is not None:
            resources["budget_gib"] = (self.budget_room + self.work.key_bytes) / GIB
        failed = self.failure is not None
        return self.tb.build(
            config=cfg.to_dict(), profile=self.profile, seed=cfg.seed, versions=versions,
            host=platform.node(), failed=failed, failure=self.failure, proofs=proofs,
            end_time=self.now(), resources=resources, synth_steps=sorted(self.synth_steps),
            prep_steps=sorted(self.prep_steps),
            live={"backend": self.backend, "device": device_name(self.backend),
                  "log2_constraints": self.work.log2_constraints,
                  "constraints": self.work.num_constraints,
                  "partition_bytes": self.work.partition_bytes,
                  "key_bytes": self.work.key_bytes, "channel_capacity": self.channel.capacity,
                  "synthesis_threads": self.synthesis_threads,
                  "memory_limit_gib": self.guard.limit / GIB,
                  "memory_limited_by": self.guard.limited_by,
                  "peak_rss_sampled_gib": round(self.peak_rss_gib, 4),
                  "slow": self.slow, "verification": verification,
                  "pinned": dict(self.pinned.stats(), ahead=self.pinned_ahead),
                  "proof_hex": {f"{p}.{k}": W.proof_bytes(pr).hex()
                                for (p, k), pr in sorted(self.proofs.items())}})

    # -- proofs ----------------------------------------------------------------------
    def _client(self) -> None:
        cfg = self.cfg
        for i in range(cfg.proofs):
            acquire(self._inflight, self.stop)
            now = self.now()
            with self._lock:
                self.proof_rec[i] = {"submitted": now}
                self._left[i] = 1 if cfg.lock == "monolithic" else cfg.partitions
            if cfg.lock == "monolithic":
                self.fifo.put(Part(i, -1, now, members=tuple(range(cfg.partitions))))
            else:
                for k in range(cfg.partitions):
                    self.fifo.put(Part(i, k, now, members=(k,)))

    def _partition_done(self, p: Part) -> None:
        with self._lock:
            self._left[p.proof] -= 1
            finished = self._left[p.proof] == 0
            if finished:
                self.proof_rec[p.proof]["completed"] = self.now()
                self.done += 1
                all_done = self.done == self.cfg.proofs
        if finished:
            self._inflight.release()
            if all_done:
                self.stop.set("done")

    # -- synthesis -------------------------------------------------------------------
    def _synth_task(self, p: Part, k: int):
        clock = self.timed.clock()
        self._pad("synth")
        # as in cuzk: a pinned buffer is checked out (pinned, when the pool has none free)
        # as the synthesis starts, and its MatVec writes a, b, c straight into it
        host = self.pinned.checkout()
        before = thread_usage()
        out = W.synthesize(self.work, p.proof, k, clock, self.matvec_threads, self.matvec_pool,
                           host)
        # this thread's CPU seconds (its witness step, and its own share around the MatVec),
        # the page faults it took and the times it was switched out while runnable / waited
        cpu = usage_since(before)
        if host is None:  # a CPU stand-in uploads the synthesized arrays themselves
            host = [out.a.limbs, out.b.limbs, out.c.limbs]
        else:  # a, b, c live in the pinned buffer only
            out = W.with_abc(out, None, None, None)
        return out, host, self.now(), cpu

    def _synth_job(self, p: Part, k: int, lane: str) -> None:
        """Synthesize one partition on the synthesis pool; record its span."""
        nbytes = self.work.partition_bytes
        why = self.guard.admit(nbytes)
        if why:
            self.fail("oom", f"before synthesis of proof {p.proof} partition {k}: {why}")
            raise Stopped("oom")
        t0 = self.now()
        with self._lock:
            self.proof_rec[p.proof].setdefault("started", t0)
            self._synth_running += 1
            n = self._synth_running
        self.tb.counter(t0, "synth_running", n)
        try:
            out, host, end, cpu = result(self.synth_pool.submit(self._synth_task, p, k),
                                         self.stop)
        finally:
            self.guard.allocated(nbytes)
            with self._lock:
                self._synth_running -= 1
                n = self._synth_running
            self.tb.counter(self.now(), "synth_running", n)
        self._span(p, k, "synth", lane, t0, end, bytes=nbytes)
        with self._lock:
            self.synth_steps.append([p.proof, k, round(out.witness_s, 6), round(out.matvec_s, 6),
                                     *cpu])
        p.data[k] = {"out": out, "host": host}

    def _admit(self, p: Part) -> None:
        if self.budget is not None:
            self.budget.reserve(self.reserve_bytes)
            p.budget = self.reserve_bytes
        now = self.now()
        for k in p.members:
            self._span(p, k, "queue", "admission", p.submitted, now)

    def _handoff(self, p: Part) -> None:
        p.synth_end = self.now()
        self._queue_depth(+1)
        if self.cfg.admission == "semaphore_prefix":
            self._spawn("live-handoff", self.channel.put, p)  # permit dropped before the send
        else:
            self.channel.put(p)                              # permit held through the hand-off

    def _partition_worker(self, w: int) -> None:
        while True:
            p = self.fifo.get()
            self._admit(p)
            self._synth_job(p, p.index, f"synth.{w}")
            self._handoff(p)

    def _monolithic_synth(self, slot: int) -> None:
        parts = self.cfg.partitions
        while True:
            p = self.fifo.get()
            self._admit(p)
            jobs = [self._spawn(f"live-synth-{slot}.{k}", self._synth_job, p, k,
                                f"synth.{slot * parts + k}") for k in p.members]
            for j in jobs:
                while j.is_alive():
                    j.join(0.05)
            self.stop.check()
            self._handoff(p)

    # -- GPU side ----------------------------------------------------------------------
    def _prep_task(self, p: Part, k: int, lane: str, t0: float):
        clock = self.timed.clock()
        self._pad("prep_msm")
        t1, before = self.now(), thread_usage()
        po = W.prep(p.data[k]["out"], clock, self.cpu_queue)
        # its own seconds (the span also holds the wait for this pool thread) hold its
        # passes' wait on the b_g2_msm pool's queue and their work there; this thread
        # meanwhile only waits, so its usage is the call's own Python code
        use = usage_since(before)
        end = self.now()
        self._span(p, k, "prep_msm", lane, t0, end)
        with self._lock:
            self.prep_steps.append([p.proof, k, round(end - t1, 6), *use])
        if self.cfg.lock == "split_async":
            # cuzk's split API: the prep_msm thread goes on to b_g2_msm as soon as it has
            # handed the split to the GPU threads, beside their last kernels; the finalizer
            # only waits for it (groth16_cuda.cu)
            p.data[k]["prep"] = po
            p.data[k]["go_early"] = self.pool.submit(self._b_g2_early, p, k)
        return po

    def _b_g2_early(self, p: Part, k: int):
        i = self.final_lanes.take()
        try:
            return self._b_g2_task(p, k, f"final.{i}", self.now())
        finally:
            self.final_lanes.give(i)

    def _submit_prep(self, p: Part, k: int, lane: str):
        return self.pool.submit(self._prep_task, p, k, lane, self.now())

    def _kernel(self, p, k, d: Device, lane, stage, fn, *args):
        """Run one GPU stage (or its stand-in twin) and record its span on the worker's lane."""
        clock = self.timed.clock()
        t0 = self.now()
        if stage != "h2d":
            self._pad(stage)
        res = fn(*args, clock)
        t = clock.last()
        self._span(p, k, stage, lane, t0, t.end, gpu=d.index)
        return res

    def _upload(self, p: Part, k: int, d: Device, lane: str, buffers) -> list:
        clock = self.timed.clock()
        t0 = self.now()
        with clock.stage("h2d", lane, self.backend):
            self._pad("h2d")
            arrays = d.upload(buffers, p.data[k]["host"])
        self._span(p, k, "h2d", lane, t0, clock.last().end, gpu=d.index,
                   bytes=float(self.work.abc_bytes))
        self.pinned.give(p.data[k].pop("host"))
        return arrays

    def _kernels(self, p: Part, k: int, d: Device, lane: str, arrays, prep) -> None:
        """ntt_h, barrier_wait, batch_add and tail_msm of one partition on device ``d``."""
        be = self.backend
        data = p.data[k]
        out = W.with_abc(data["out"], *(W.fr_from_limbs(x) for x in arrays))
        ho = self._kernel(p, k, d, lane, "ntt_h", W.kernels_ntt_h, out, d.pk, be)
        del out
        if not prep.done():
            t0 = self.now()
            result(prep, self.stop)
            self._span(p, k, "barrier_wait", lane, t0, self.now(), gpu=d.index)
        po = prep.result()
        data["prep"] = po
        bo, dev_prep = self._kernel(p, k, d, lane, "batch_add", W.kernels_batch_add_from_host,
                                    po, d.pk, be)
        to = self._kernel(p, k, d, lane, "tail_msm", W.kernels_tail_msm, dev_prep, d.pk, be)
        data.update(h=ho.h_point, bo=bo, to=to)

    def _region(self, p: Part, k: int, d: Device, lane: str, prep, buffers) -> None:
        """The CUDA region under the per-GPU mutex: h2d, then the kernels."""
        arrays = self._upload(p, k, d, lane, buffers)
        self._kernels(p, k, d, lane, arrays, prep)

    def _two_lock_region(self, p: Part, d: Device, lane: str, prep, buffers) -> None:
        """Upload under the memory mutex into this worker's buffers, kernels under the compute mutex."""
        k = p.index
        t0 = self.now()
        acquire(d.mem_mutex, self.stop)
        try:
            w0 = self.now()
            if w0 > t0:
                self._span(p, k, "mutex_wait", lane, t0, w0, gpu=d.index)
            arrays = self._upload(p, k, d, lane, buffers)
        finally:
            d.mem_mutex.release()
        t1 = self.now()
        acquire(d.mutex, self.stop)
        try:
            if self.now() > t1:
                self._span(p, k, "mutex_wait", lane, t1, self.now(), gpu=d.index)
            self._kernels(p, k, d, lane, arrays, prep)
        finally:
            d.mutex.release()

    def _after_kernels(self, p: Part) -> None:
        """prove_start returned: free a, b, c (phase 12) and release their share of the budget."""
        for k in p.members:
            p.data[k].pop("out", None)
        if self.budget is not None and p.budget > 0:
            rel = min(self.work.abc_bytes * len(p.members), p.budget)
            self.budget.release(rel)
            p.budget -= rel

    def _b_g2_task(self, p: Part, k: int, lane: str, t0: float):
        clock = self.timed.clock()
        self._pad("b_g2_msm")
        go = W.b_g2(p.data[k]["prep"], self.work, clock, self.pool_threads)
        self._span(p, k, "b_g2_msm", lane, t0, self.now())
        return go

    def _finalize(self, p: Part, lane: str) -> None:
        """b_g2_msm (on the CPU pool; or wait for the one already running), the epilogue,
        then free what is left of the partition."""
        for k in p.members:
            fut = p.data[k].pop("go_early", None) or \
                self.pool.submit(self._b_g2_task, p, k, lane, self.now())
            p.data[k]["go"] = result(fut, self.stop)
        for k in p.members:
            data = p.data[k]
            r, s = self.work.blinding(p.proof, k)
            clock = self.timed.clock()
            t0 = self.now()
            self._pad("epilogue")
            proof = W.assemble(self.work, data["h"], data["bo"], data["to"], data["go"], r, s,
                               clock)
            self._span(p, k, "epilogue", lane, t0, self.now())
            with self._lock:
                self.proofs[(p.proof, k)] = proof
            p.data[k] = {}
        if self.budget is not None and p.budget > 0:
            self.budget.release(p.budget)
            p.budget = 0
        self._partition_done(p)

    def _finalizer(self, p: Part) -> None:
        i = self.final_lanes.take()
        try:
            self._finalize(p, f"final.{i}")
        finally:
            self.final_lanes.give(i)

    def _gpu_worker(self, d: Device, w: int, shared) -> None:
        cfg = self.cfg
        lane, cpu_lane = f"{d.name}.w{w}", f"{d.name}.w{w}.cpu"
        with d.context():
            stream = d.new_stream()
            buffers = shared if shared is not None else d.buffers(self.work.domain_size)
            with Device.on_stream(stream):
                while True:
                    p = self.channel.get()
                    self._queue_depth(-1)
                    now = self.now()
                    for k in p.members:
                        self._span(p, k, "gpu_queue", "gpu_queue", p.synth_end, now)
                    if cfg.lock in ("wide_mutex", "monolithic"):
                        t0 = self.now()
                        acquire(d.mutex, self.stop)
                        try:
                            for k in p.members:
                                self._span(p, k, "mutex_wait", lane, t0, self.now(), gpu=d.index)
                            for k in p.members:
                                prep = self._submit_prep(p, k, cpu_lane)
                                self._region(p, k, d, lane, prep, buffers)
                            self._after_kernels(p)
                            self._finalize(p, cpu_lane)
                        finally:
                            d.mutex.release()
                        continue
                    prep = self._submit_prep(p, p.index, cpu_lane)
                    if cfg.lock == "two_lock":
                        self._two_lock_region(p, d, lane, prep, buffers)
                    else:
                        t0 = self.now()
                        acquire(d.mutex, self.stop)
                        try:
                            self._span(p, p.index, "mutex_wait", lane, t0, self.now(),
                                       gpu=d.index)
                            self._region(p, p.index, d, lane, prep, buffers)
                        finally:
                            d.mutex.release()
                    result(prep, self.stop)
                    self._after_kernels(p)
                    if cfg.lock == "split_async":
                        self._spawn("live-finalizer", self._finalizer, p)
                    else:
                        self._finalize(p, cpu_lane)


class _Progress:
    """Proofs done / total: a tqdm bar on stderr (shown after 2 s), a callback, or nothing."""

    def __init__(self, progress, total: int):
        self._fn = None
        self._bar = None
        self._total = total
        self._last = -1
        if callable(progress):
            self._fn = progress
        elif progress is None or progress is True:
            try:
                from tqdm.auto import tqdm
            except ImportError:  # a bare GPU host: no bar, the run is the same
                return
            self._bar = tqdm(total=total, unit="proof", desc="cuzklab live", delay=2.0,
                             leave=False, dynamic_ncols=True)

    def update(self, done: int) -> None:
        """Report ``done`` proofs (only when it changed)."""
        if done == self._last:
            return
        if self._bar is not None:
            self._bar.update(done - max(self._last, 0))
        self._last = done
        if self._fn is not None:
            self._fn(done, self._total)

    def close(self) -> None:
        """Close the bar."""
        if self._bar is not None:
            self._bar.close()
