"""From parsed daemon lines to per-partition and per-proof tables and a Trace.

Times: ``TIMELINE`` offsets are milliseconds since the engine started; the
Trace uses them as seconds since run start. Tracing lines carry wall-clock
timestamps; they are placed on the same clock through ``starting cuzk engine``
(logged right after the timeline epoch is set) or, failing that, through the
median offset between ``SYNTH_END`` events and their ``partition synthesis
complete`` lines.

What becomes a span (only what the logs show; nothing is invented):

================  ==============================================  ==================
stage             from                                            lane
================  ==============================================  ==================
``synth``         ``SYNTH_START`` .. ``SYNTH_END``                ``synth.<slot>``
``gpu_queue``     ``GPU_QUEUE`` (``CHAN_SEND``) .. ``GPU_PICKUP``  ``gpu_queue``
``mutex_wait``    ``pre_lock_cpu_ms``, ``mutex_wait_ms``          ``gpu<g>.w<w>``
``ntt_h``         ``ntt_msm_h_ms`` (H2D, NTTs and H MSM)          ``gpu<g>.w<w>``
``barrier_wait``  ``barrier_wait_ms``                             ``gpu<g>.w<w>``
``batch_add``     ``batch_add_ms``                                ``gpu<g>.w<w>``
``tail_msm``      ``tail_msm_ms``                                 ``gpu<g>.w<w>``
``prep_msm``      ``prep_msm_ms`` (after ``setup_to_split``)      ``gpu<g>.w<w>.cpu``
``b_g2_msm``      ``b_g2_msm_ms`` (after prep_msm)                ``gpu<g>.w<w>.cpu``
``epilogue``      ``epilogue_ms``, ending ``pre_destructor_ms``   ``gpu<g>.w<w>.cpu``
                  after ``GPU_START`` (phases 7-11)
================  ==============================================  ==================

The CUDA-side spans start at the call's ``GPU_START``: the mutex is taken
``pre_lock_cpu_ms + mutex_wait_ms`` later and the GPU stages follow back to
back; prep_msm starts when split_vectors is done. Synthesis slots are not
named by the daemon: each synthesis takes the lowest slot free at its start.
A GPU worker's device comes from ``pipeline GPU worker started`` lines, else
from ``gpu_workers_per_device`` (worker // gw), else GPU 0.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..trace import TraceBuilder
from .attribute import Attributor, GpuCall
from .lines import Record
from .stats import ParseStats

# One PoRep 32 GiB proof has 10 partitions (cuzk's design notes).
DEFAULT_PARTITIONS = 10

PARTITION_COLUMNS = (
    "proof", "job_id", "partition", "worker", "gpu", "status",
    "synth_start_s", "synth_end_s", "synth_ms", "queued_s", "pickup_s",
    "gpu_start_s", "gpu_end_s", "gpu_ms",
    "split_vectors_ms", "setup_to_split_ms", "pre_lock_cpu_ms", "mutex_wait_ms",
    "prep_msm_ms", "ntt_msm_h_ms", "barrier_wait_ms", "batch_add_ms", "tail_msm_ms",
    "gpu_total_ms", "mutex_held_ms", "total_start_fn_ms", "b_g2_msm_ms",
    "ntt_h_total_ms", "ntt_kernels_ms", "msm_invoke_ms",
    "epilogue_ms", "prestage", "prestage_upload_ms", "prestage_total_ms",
)
PROOF_COLUMNS = (
    "proof", "job_id", "status", "partitions", "submitted_s", "started_s", "completed_s",
    "latency_s", "prove_s", "synth_ms_sum", "gpu_ms_sum", "total_ms", "failure",
)


@dataclass
class _Part:
    job_id: str
    partition: int
    synth_start: float | None = None
    synth_end: float | None = None
    synth_ms: int | None = None
    queued: float | None = None
    pickup: float | None = None
    worker: int | None = None
    gpu_start: float | None = None
    gpu_end: float | None = None
    gpu_ms: int | None = None
    call: GpuCall | None = None


@dataclass
class _Job:
    job_id: str
    proof: int
    parts: dict[int, _Part] = field(default_factory=dict)
    assembled: dict | None = None
    assembled_ts: float | None = None
    failure: str | None = None
    monolithic: bool = False


def _clock(tracing: list[Record], timeline: list[Record]) -> tuple[float | None, dict]:
    """Return (wall-clock time of the engine epoch, how it was found)."""
    starts = [r["ts"] for r in tracing if r["known"] == "starting cuzk engine" and r["ts"]]
    if starts:
        return starts[-1], {"method": "starting cuzk engine", "pairs": 0}
    ends = {(r["job_id"], r["detail"].get("partition", -1)): r["t_ms"]
            for r in timeline if r["event"] == "SYNTH_END"}
    offs = []
    for r in tracing:
        if r["known"] == "partition synthesis complete" and r["ts"]:
            key = (str(r["fields"]["job_id"]), r["fields"]["partition"])
            if key in ends:
                offs.append(r["ts"] - ends[key] / 1000.0)
    if offs:
        return statistics.median(offs), {
            "method": "SYNTH_END / partition synthesis complete pairs", "pairs": len(offs),
            "spread_ms": round((max(offs) - min(offs)) * 1000, 3)}
    return None, {"method": None, "pairs": 0}


class LogModel:
    """The state of one daemon run, fed record by record, then turned into tables."""

    def __init__(self, *, gpu_workers_per_device: int | None = None,
                 partitions: int | None = None):
        self.jobs: dict[str, _Job] = {}
        self.worker_gpu: dict[int, int] = {}
        self.gw = gpu_workers_per_device
        self.partitions = partitions
        self.attrib = Attributor()
        self.tracing: list[Record] = []
        self.timeline: list[Record] = []
        self.budget_gib: float | None = None
        self.srs_load_ms: list[int] = []
        self.engine_starts = 0
        self.panics: list[dict] = []
        self.exit_errors: list[str] = []
        self.alloc_failures: list[int] = []
        self.terminations: list[dict] = []
        self.stopped = False
        self.ready = False

    # -- feeding -------------------------------------------------------------
    def _job(self, job_id: str) -> _Job:
        if job_id not in self.jobs:
            self.jobs[job_id] = _Job(job_id, len(self.jobs))
        return self.jobs[job_id]

    def _gpu_of(self, worker: int) -> int:
        if worker in self.worker_gpu:
            return self.worker_gpu[worker]
        if self.gw:
            return worker // self.gw
        return 0

    def feed_timeline(self, rec: Record) -> None:
        """Apply one TIMELINE event."""
        self.timeline.append(rec)
        ev, t, d = rec["event"], rec["t_ms"] / 1000.0, rec["detail"]
        job = self._job(rec["job_id"])
        p = d.get("partition", -1)
        if p == -1 and ("kind" in d or "monolithic" in d):
            job.monolithic = True
        part = job.parts.get(p) or job.parts.setdefault(p, _Part(job.job_id, p))
        if ev == "SYNTH_START":
            part.synth_start = t
        elif ev == "SYNTH_END":
            part.synth_end = t
            part.synth_ms = d.get("synth_ms")
        elif ev in ("GPU_QUEUE", "CHAN_SEND"):
            part.queued = t           # CHAN_SEND: the same hand-off in phases 7-12
        elif ev == "GPU_PICKUP":
            part.pickup = t
            part.worker = d["worker"]
        elif ev == "GPU_START":
            part.worker = d["worker"]
            part.gpu_start = t
            part.call = self.attrib.start(job.job_id, p, d["worker"], self._gpu_of(d["worker"]),
                                          rec["t_ms"])
        elif ev == "GPU_END":
            part.worker = d["worker"]
            part.gpu_end = t
            part.gpu_ms = d.get("gpu_ms")
            call = self.attrib.end(job.job_id, p, d["worker"], rec["t_ms"])
            if call is not None:
                part.call = call

    def feed_cuzk(self, rec: Record, t_lo: float, t_hi: float, stats: ParseStats) -> None:
        """Give one CUDA timing line to a GPU call."""
        got = self.attrib.assign(rec["group"], rec["values"], rec.line_no, t_lo, t_hi)
        if isinstance(got, str):
            if rec["group"] != "async_dealloc_ms":
                stats.add_unattributed(rec.file, rec.line_no, rec["group"], got)

    def feed_tracing(self, rec: Record) -> None:
        """Apply one tracing line."""
        self.tracing.append(rec)
        k, f = rec["known"], rec["fields"]
        if k == "pipeline GPU worker started":
            self.worker_gpu[int(f["worker_id"])] = int(f["gpu"])
        elif k == "memory budget initialized":
            self.budget_gib = float(f["total_budget_gib"])
        elif k == "SRS loaded successfully":
            self.srs_load_ms.append(int(f["elapsed_ms"]))
        elif k == "starting cuzk engine":
            self.engine_starts += 1
        elif k == "cuzk-daemon ready":
            self.ready = True
        elif k in ("cuzk-daemon stopped", "received SIGINT"):
            self.stopped = True
        elif k == "Phase 7: all partitions complete, proof assembled":
            job = self._job(str(f["job_id"]))
            job.assembled = dict(f)
            job.assembled_ts = rec["ts"]
        if rec["level"] == "ERROR" and "job_id" in f:
            job = self._job(str(f["job_id"]))
            if job.failure is None:
                msg = rec["message"]
                if "error" in f:
                    msg = f"{msg}: {f['error']}"
                job.failure = msg
                self.attrib.drop(job.job_id)

    def feed_runtime(self, rec: Record) -> None:
        """Apply one Rust runtime line (a panic, an exit error)."""
        if rec["item"] == "panic":
            self.panics.append({k: rec.get(k) for k in ("thread", "file", "line", "col",
                                                        "message")})
        elif rec["item"] == "exit_error":
            self.exit_errors.append(rec["message"])
        elif rec["item"] == "alloc_failed":
            self.alloc_failures.append(rec["bytes"])
        elif rec["item"] == "terminate":
            self.terminations.append({"type": rec["type"], "message": None})
        elif rec["item"] == "what" and self.terminations \
                and self.terminations[-1]["message"] is None:
            self.terminations[-1]["message"] = rec["message"]

    # -- tables ----------------------------------------------------------------
    def expected_partitions(self) -> int:
        """Return the partitions a proof must have to be complete."""
        if self.partitions:
            return self.partitions
        seen = [len(j.parts) for j in self.jobs.values() if not j.monolithic]
        return max(seen) if seen else DEFAULT_PARTITIONS

    def _job_status(self, job: _Job) -> str:
        if job.failure is not None:
            return "failed"
        if job.assembled is not None:
            return "ok"
        if self.tracing and any(r["known"] == "partition GPU prove complete"
                                or r["known"] == "Phase 7: all partitions complete, proof assembled"
                                for r in self.tracing):
            # The stdout log is there and says which proofs were assembled.
            return "incomplete"
        parts = [p for p in job.parts.values()]
        if job.monolithic:
            return "ok" if any(p.gpu_end is not None for p in parts) else "incomplete"
        if len(parts) >= self.expected_partitions() and all(p.gpu_end is not None for p in parts):
            return "ok"
        return "incomplete"

    def partitions_frame(self) -> pd.DataFrame:
        """Return one row per (proof, partition): timeline times and CUDA timings."""
        rows = []
        for job in self.jobs.values():
            status = self._job_status(job)
            for p in sorted(job.parts.values(), key=lambda p: p.partition):
                c = p.call
                v = c.values if c else {}
                t0 = c.tid_values.get(0, {}) if c else {}
                nh = c.ntt_h if c else []
                pstat = ("done" if p.gpu_end is not None else
                         "failed" if status == "failed" else "cut")
                rows.append({
                    "proof": job.proof, "job_id": job.job_id, "partition": p.partition,
                    "worker": p.worker, "gpu": self._gpu_of(p.worker) if p.worker is not None
                    else None, "status": pstat,
                    "synth_start_s": p.synth_start, "synth_end_s": p.synth_end,
                    "synth_ms": p.synth_ms, "queued_s": p.queued, "pickup_s": p.pickup,
                    "gpu_start_s": p.gpu_start, "gpu_end_s": p.gpu_end, "gpu_ms": p.gpu_ms,
                    **{k: v.get(k) for k in ("split_vectors_ms", "setup_to_split_ms",
                                             "pre_lock_cpu_ms", "mutex_wait_ms", "prep_msm_ms",
                                             "mutex_held_ms", "total_start_fn_ms",
                                             "b_g2_msm_ms")},
                    **{k: t0.get(k) for k in ("ntt_msm_h_ms", "barrier_wait_ms",
                                              "batch_add_ms", "tail_msm_ms", "gpu_total_ms")},
                    "ntt_h_total_ms": sum(x["total"] for x in nh) if nh else None,
                    "ntt_kernels_ms": sum(x["ntt_kernels"] for x in nh) if nh else None,
                    "msm_invoke_ms": sum(x["msm_invoke"] for x in nh) if nh else None,
                    "epilogue_ms": v.get("epilogue_ms"), "prestage": v.get("prestage_setup"),
                    "prestage_upload_ms": v.get("upload_ms"),
                    "prestage_total_ms": v.get("total_ps_ms"),
                })
        df = pd.DataFrame(rows, columns=list(PARTITION_COLUMNS))
        return df

    def proof_rows(self) -> list[dict]:
        """Return one dict per proof: status and the times of its life."""
        rows = []
        for job in self.jobs.values():
            status = self._job_status(job)
            parts = list(job.parts.values())
            starts = [p.synth_start for p in parts if p.synth_start is not None]
            started = min(starts) if starts else None
            ends = [p.gpu_end for p in parts if p.gpu_end is not None]
            completed = max(ends) if status == "ok" and ends else None
            total_ms = job.assembled.get("total_ms") if job.assembled else None
            submitted = started
            if completed is not None and total_ms is not None:
                submitted = min(completed - total_ms / 1000.0, started if started is not None
                                else math.inf)
            synth_sum = sum(p.synth_ms for p in parts if p.synth_ms is not None)
            gpu_sum = sum(p.gpu_ms for p in parts if p.gpu_ms is not None)
            rows.append({
                "proof": job.proof, "job_id": job.job_id, "status": status,
                "partitions": len([p for p in parts if p.partition >= 0]) or len(parts),
                "submitted_s": submitted, "started_s": started, "completed_s": completed,
                "latency_s": (completed - submitted) if completed is not None
                and submitted is not None else None,
                "prove_s": (completed - started) if completed is not None
                and started is not None else None,
                "synth_ms_sum": synth_sum, "gpu_ms_sum": gpu_sum, "total_ms": total_ms,
                "failure": job.failure,
            })
        return rows

    # -- trace -----------------------------------------------------------------
    def build_trace(self, stats: ParseStats, *, config: Any = None, files=(),
                    status_snapshots=()) -> tuple:
        """Return (Trace, proofs DataFrame, partitions DataFrame)."""
        epoch_wall, clock = _clock(self.tracing, self.timeline)
        b = TraceBuilder(source="cuzk-log")
        self._synth_spans(b)
        for job in self.jobs.values():
            for p in job.parts.values():
                part_idx = p.partition
                if p.queued is not None and p.pickup is not None and p.pickup >= p.queued:
                    b.span(job.proof, part_idx, "gpu_queue", "gpu_queue", p.queued, p.pickup)
                if p.call is not None:
                    self._call_spans(b, job.proof, part_idx, p.call)
        self._counters(b, status_snapshots)
        proofs = self.proof_rows()
        meta_proofs = [{"proof": r["proof"], "job_id": r["job_id"],
                        "submitted": r["submitted_s"], "started": r["started_s"],
                        "completed": r["completed_s"], "status": r["status"]}
                       for r in proofs]
        incomplete = [r for r in proofs if r["status"] == "incomplete"]
        failed = [r for r in proofs if r["status"] == "failed"]
        failure = None
        if self.alloc_failures:
            failure = {"reason": "oom",
                       "message": f"the daemon aborted: memory allocation of "
                                  f"{self.alloc_failures[0]} bytes failed"}
        elif incomplete:
            failure = {"reason": "incomplete",
                       "message": f"{len(incomplete)} proof(s) still in flight when the log ends"
                                  + (f"; {stats.malformed} malformed line(s)"
                                     if stats.malformed else "")}
        if self.attrib.repairs:
            stats.note(f"{self.attrib.repairs} mix-up(s) of two GPU calls' prep_msm / b_g2_msm "
                       "lines undone at GPU_END")
        if self.engine_starts > 1:
            stats.note(f"the engine started {self.engine_starts} times in this input; "
                       "timeline times of different runs overlap")
        gpus = sorted({self._gpu_of(w) for w in self._workers()}) or [0]
        resources: dict[str, Any] = {"gpus": len(gpus)}
        slots = self._slots_used
        if config is not None and getattr(config, "partition_workers", None):
            resources["synthesis_slots"] = int(config.partition_workers)
        elif slots:
            resources["synthesis_slots"] = slots
        if self.budget_gib:
            resources["budget_gib"] = self.budget_gib
        meta = {
            "config": config.to_dict() if hasattr(config, "to_dict") else config,
            "profile": None, "seed": None,
            "failed": failure is not None, "failure": failure,
            "proofs": meta_proofs, "resources": resources,
            "cuzk": {"files": list(files), "workers": {str(w): self._gpu_of(w)
                                                       for w in self._workers()},
                     "clock": clock, "epoch_wall": epoch_wall,
                     "failed_jobs": [{"job_id": r["job_id"], "failure": r["failure"]}
                                     for r in failed],
                     "srs_load_ms": self.srs_load_ms, "ready_seen": self.ready,
                     "engine_starts": self.engine_starts,
                     "panics": self.panics, "exit_errors": self.exit_errors,
                     "alloc_failures": self.alloc_failures,
                     "terminations": self.terminations,
                     "stopped_cleanly": self.stopped},
        }
        trace = b.build(**meta)
        proofs_df = pd.DataFrame(proofs, columns=list(PROOF_COLUMNS))
        return trace, proofs_df, self.partitions_frame()

    def _workers(self) -> list[int]:
        ws = set(self.worker_gpu)
        for job in self.jobs.values():
            ws.update(p.worker for p in job.parts.values() if p.worker is not None)
        return sorted(ws)

    def _synth_spans(self, b: TraceBuilder) -> None:
        items = []
        for job in self.jobs.values():
            for p in job.parts.values():
                if p.synth_start is not None and p.synth_end is not None \
                        and p.synth_end >= p.synth_start:
                    items.append((p.synth_start, p.synth_end, job.proof, p.partition))
        items.sort()
        free_at: list[float] = []           # slot -> time it becomes free
        for start, end, proof, part in items:
            slot = next((i for i, t in enumerate(free_at) if t <= start), None)
            if slot is None:
                slot = len(free_at)
                free_at.append(end)
            else:
                free_at[slot] = end
            b.span(proof, part, "synth", f"synth.{slot}", start, end)
        self._slots_used = len(free_at)

    def _call_spans(self, b: TraceBuilder, proof: int, part: int, c: GpuCall) -> None:
        s = c.start_ms
        lane = f"gpu{c.gpu}.w{c.worker}"
        v = c.values
        if "prep_msm_ms" in v:
            p0 = c.prep_start_ms
            p1 = p0 + v["prep_msm_ms"]
            b.span(proof, part, "prep_msm", lane + ".cpu", p0 / 1e3, p1 / 1e3, gpu=c.gpu)
            if "b_g2_msm_ms" in v:
                b.span(proof, part, "b_g2_msm", lane + ".cpu", p1 / 1e3,
                       (p1 + v["b_g2_msm_ms"]) / 1e3, gpu=c.gpu)
        if "epilogue_ms" in v:
            # pre_destructor_ms runs from the call's entry to the epilogue's end.
            e1 = s + v["pre_destructor_ms"]
            b.span(proof, part, "epilogue", lane + ".cpu", (e1 - v["epilogue_ms"]) / 1e3,
                   e1 / 1e3, gpu=c.gpu)
        lock = c.lock_ms
        if lock is None:
            return
        b.span(proof, part, "mutex_wait", lane, (s + v["pre_lock_cpu_ms"]) / 1e3, lock / 1e3,
               gpu=c.gpu)
        for tid, tv in sorted(c.tid_values.items()):
            g = c.gpu + tid if tid else c.gpu
            tl = f"gpu{g}.w{c.worker}"
            t = lock
            for key, stage in (("ntt_msm_h_ms", "ntt_h"), ("barrier_wait_ms", "barrier_wait"),
                               ("batch_add_ms", "batch_add"), ("tail_msm_ms", "tail_msm")):
                if key not in tv:
                    break             # later stages cannot be placed without this one
                b.span(proof, part, stage, tl, t / 1e3, (t + tv[key]) / 1e3, gpu=g)
                t += tv[key]

    def _counters(self, b: TraceBuilder, status_snapshots) -> None:
        events = []
        for r in self.timeline:
            ev, t = r["event"], r["t_ms"] / 1000.0
            if ev in ("GPU_QUEUE", "CHAN_SEND"):
                events.append((t, "gpu_queue_depth", 1))
            elif ev == "GPU_PICKUP":
                events.append((t, "gpu_queue_depth", -1))
            elif ev == "SYNTH_START":
                events.append((t, "synth_running", 1))
            elif ev == "SYNTH_END":
                events.append((t, "synth_running", -1))
        events.sort(key=lambda e: e[0])
        level = {"gpu_queue_depth": 0, "synth_running": 0}
        for t, name, d in events:
            level[name] = max(0, level[name] + d)
            b.counter(t, name, level[name])
        for snap in status_snapshots:          # /status: budget, residency, buffers
            t = snap.get("uptime_secs")
            if isinstance(t, (int, float)) and not isinstance(t, bool):
                for name, value in snap.get("counters", {}).items():
                    b.counter(float(t), name, float(value))
