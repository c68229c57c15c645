"""Write the sample daemon logs in data/samples/ from a fixed schedule.

A small discrete-event model of a phase-12 cuzk daemon (pw synthesis permits,
gw GPU workers sharing one per-GPU mutex, split proving with b_g2_msm in a
finalizer) decides when each line is printed; the lines follow the formats
of the daemon's source (engine.rs timeline_event, groth16_cuda.cu and
groth16_ntt_h.cu printf lines, tracing-subscriber's default format).
Durations come from a seeded generator and are written into the lines, so
tests read the expected numbers back from the files with plain regexes.

Run ``python -m tests.cuzk.sample_writer`` to rewrite the samples; a test
checks that the committed samples are what this writes.
"""

from __future__ import annotations

import heapq
import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"
EPOCH = datetime(2025, 6, 2, 9, 14, 3, 512000, tzinfo=timezone.utc)
GIB = 2**30
EM_DASH = "\u2014"

# tracing-subscriber ANSI styles: dim timestamp/target, green INFO, red ERROR,
# bold span names, italic field names.
DIM, RESET, BOLD, ITALIC = "\x1b[2m", "\x1b[0m", "\x1b[1m", "\x1b[3m"
LEVEL_COLOUR = {"INFO": "\x1b[32m", "WARN": "\x1b[33m", "ERROR": "\x1b[31m", "DEBUG": "\x1b[34m"}


@dataclass
class Part:
    proof: int
    index: int
    synth_ms: int | None = None
    state: str = "pending"
    gpu_ms: int | None = None


@dataclass
class Run:
    """One daemon run: its schedule knobs and what it printed."""

    proofs: int = 3
    concurrency: int = 2
    partitions: int = 10
    pw: int = 10
    gw: int = 2
    seed: int = 7
    ansi: bool = True
    fail: tuple[int, int] | None = None        # (proof, partition) whose synthesis fails
    srs_load_ms: int = 38214
    snapshot_at: int | None = None
    era: str = "head"        # "head", or "phase9": the lines of a phase 9-10 daemon
    lines: list = field(default_factory=list)  # (t_ms, seq, text)
    seq: int = 0

    def __post_init__(self):
        self.rng = random.Random(self.seed)
        self.job_ids = ["%08x-%04x-4%03x-%04x-%012x" % (
            self.rng.getrandbits(32), self.rng.getrandbits(16), self.rng.getrandbits(12),
            0x8000 | self.rng.getrandbits(14), self.rng.getrandbits(48))
            for _ in range(self.proofs)]
        self.parts = {(p, i): Part(p, i) for p in range(self.proofs)
                      for i in range(self.partitions)}
        self.completed: dict[int, int] = {}
        self.failed: dict[int, int] = {}
        self.submitted: dict[int, int] = {}
        self.snapshots: dict[int, dict] = {}
        self._in_ms: dict[int, int] = {}
        self.truth: dict[tuple[int, int], dict] = {}   # what each GPU call printed

    # -- printing ------------------------------------------------------------
    def emit(self, t: int, text: str) -> None:
        self.lines.append((t, self.seq, text))
        self.seq += 1

    def timeline(self, t: int, event: str, proof: int, detail: str) -> None:
        self.emit(t, f"TIMELINE,{t},{event},{self.job_ids[proof]},{detail}")

    def info(self, t: int, target: str, message: str, fields: dict | None = None,
             level: str = "INFO", span: tuple[str, dict] | None = None) -> None:
        n = self._in_ms.get(t, 0)          # keep timestamps monotonic within a millisecond
        self._in_ms[t] = n + 1
        ts = EPOCH + timedelta(milliseconds=t, microseconds=min(999, 40 + 73 * n))
        ts_text = ts.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
        fields = fields or {}
        if self.ansi:
            def kv(k, v):
                return f"{ITALIC}{k}{RESET}{DIM}={RESET}{v}"
            parts = [f"{DIM}{ts_text}{RESET} {LEVEL_COLOUR[level]}{level:>5}{RESET} "]
            if span:
                inner = " ".join(kv(k, v) for k, v in span[1].items())
                parts.append(f"{BOLD}{span[0]}{BOLD}{{{RESET}{inner}{BOLD}}}{RESET}"
                             f"{DIM}:{RESET} ")
            parts.append(f"{DIM}{target}{RESET}{DIM}:{RESET} {message}")
            if fields:
                parts.append(" " + " ".join(kv(k, v) for k, v in fields.items()))
            self.emit(t, "".join(parts))
        else:
            sp = ""
            if span:
                sp = span[0] + "{" + " ".join(f"{k}={v}" for k, v in span[1].items()) + "}: "
            body = " ".join(f"{k}={v}" for k, v in fields.items())
            self.emit(t, f"{ts_text} {level:>5} {sp}{target}: {message}"
                         + (f" {body}" if body else ""))

    def cuzk(self, t: int, text: str) -> None:
        self.emit(t, text)

    # -- the model -------------------------------------------------------------
    def simulate(self) -> "Run":
        rng = self.rng
        eng = "cuzk_core::engine"
        self.info(0, "cuzk_daemon", "cuzk-daemon starting")
        self.info(0, "cuzk_daemon", "configuration loaded", {"listen": "127.0.0.1:9820"})
        old = self.era == "phase9"
        if not old:
            self.info(1, eng, "memory budget initialized", {"total_budget_gib": 749})
            self.info(2, eng, "CUDA pinned memory pool initialized")
        self.info(3, eng, "starting cuzk engine", {"pipeline_enabled": "true"})
        for w in range(self.gw):
            self.info(4, eng, "pipeline GPU worker started",
                      {"worker_id": w, "gpu": 0, "sub_id": w})
        if not old:
            self.cuzk(5, "CUZK_TIMING: set pool release threshold to MAX on gpu 0")
        self.info(6, "cuzk_daemon", "listening on TCP", {"addr": "127.0.0.1:9820"})
        self.info(6, "cuzk_daemon", "cuzk-daemon ready, serving on 127.0.0.1:9820")

        events: list = []
        order = [0]

        def at(t, kind, *args):
            heapq.heappush(events, (t, order[0], kind, args))
            order[0] += 1

        permits = self.pw
        synth_q: list = []                 # (proof, index) in submit order
        gpu_q: list = []                   # heap of (proof, index)
        idle = list(range(self.gw))
        busy: dict = {}                    # worker -> (proof, partition, since)
        mutex_free = 0
        in_flight = 0
        next_proof = 0
        srs_ready = None

        def submit(t):
            nonlocal next_proof, in_flight, srs_ready
            while next_proof < self.proofs and in_flight < self.concurrency:
                p = next_proof
                next_proof += 1
                in_flight += 1
                self.submitted[p] = t
                if srs_ready is None:      # the first proof pays the SRS load
                    srs_ready = t + self.srs_load_ms
                    self.info(srs_ready, "cuzk_core::srs_manager", "SRS loaded successfully",
                              {"circuit_id": "porep-32g", "elapsed_ms": self.srs_load_ms,
                               "budget_used_gib": 70, "budget_available_gib": 679})
                start = max(t, srs_ready) + 2
                synth_q.extend((p, i) for i in range(self.partitions))
                at(start, "dispatch")

        def dispatch(t):
            nonlocal permits
            while permits and synth_q:
                p, i = synth_q.pop(0)
                if p in self.failed:
                    continue
                permits -= 1
                part = self.parts[(p, i)]
                part.state = "synthesizing"
                part.synth_start = t
                self.timeline(t, "SYNTH_START", p, f"partition={i}")
                if self.fail == (p, i):
                    at(t + 17342, "synth_fail", p, i)
                else:
                    part.synth_ms = 33000 + rng.randrange(7000)
                    at(t + part.synth_ms, "synth_end", p, i)
                t += 1

        def pick(t):
            nonlocal mutex_free
            while idle and gpu_q:
                p, i = heapq.heappop(gpu_q)
                w = idle.pop(0)
                self.timeline(t, "GPU_PICKUP", p, f"worker={w},partition={i}")
                if p in self.failed:
                    self.info(t, eng, "skipping GPU prove for failed partitioned job",
                              {"job_id": self.job_ids[p], "partition": f"Some({i})"},
                              span=("gpu_worker", {"worker_id": w, "gpu": 0,
                                                   "job_id": self.job_ids[p]}))
                    self.parts[(p, i)].state = "failed"
                    idle.append(w)
                    continue
                self.info(t, eng, "GPU_TIMING hot_path pre-prove overhead",
                          {"worker_id": w, "partition": f"Some({i})", "status_ms": 0,
                           "fail_check_ms": 0, "mark_busy_ms": 0, "total_overhead_ms": 0},
                          span=("gpu_worker", {"worker_id": w, "gpu": 0,
                                               "job_id": self.job_ids[p]}))
                s = t + 1
                busy[w] = (p, i, t)
                self.parts[(p, i)].state = "gpu"
                self.parts[(p, i)].worker = w
                self.timeline(s, "GPU_START", p, f"worker={w},partition={i}")
                setup = 35 + rng.randrange(30)
                split = setup - 2 - rng.randrange(3)
                prep = 1400 + rng.randrange(500)
                pre_lock = setup + 2
                request = s + pre_lock
                lock = max(request, mutex_free)
                mw = lock - request
                ntt = 680 + rng.randrange(40)
                prep_end = s + setup + prep
                bw = max(0, prep_end - (lock + ntt))
                ba = 630 + rng.randrange(30)
                tail = 85 + rng.randrange(40)
                gpu_total = ntt + bw + ba + tail
                unlock = lock + gpu_total
                bg2 = 900 + rng.randrange(700)
                bg2_end = prep_end + bg2
                end = max(unlock, bg2_end) + 15 + rng.randrange(10)
                if old:
                    self._phase9_call(p, i, w, s, setup, split, prep, lock, ntt, ba, tail,
                                      bg2)
                    mutex_free = lock + ntt + ba + tail
                    at(self._end + 1, "worker_free", w)
                    at(self._end, "gpu_end", p, i, w, self._end - s)
                    continue
                self.truth[(p, i)] = {
                    "worker": w, "split_vectors_ms": split, "setup_to_split_ms": setup,
                    "pre_lock_cpu_ms": pre_lock, "mutex_wait_ms": mw, "prep_msm_ms": prep,
                    "ntt_msm_h_ms": ntt, "barrier_wait_ms": bw, "batch_add_ms": ba,
                    "tail_msm_ms": tail, "gpu_total_ms": gpu_total, "b_g2_msm_ms": bg2}
                self.cuzk(s + setup, f"CUZK_TIMING: split_vectors_ms={split} "
                                     f"setup_to_split_ms={setup}")
                self.cuzk(prep_end, f"CUZK_TIMING: prep_msm_ms={prep}")
                self.cuzk(lock, f"CUZK_TIMING: pre_lock_cpu_ms={pre_lock} mutex_wait_ms={mw}")
                kern = int(ntt * 0.43)
                coset = 38 + rng.randrange(8)
                inv = ntt - 1 - 2 - kern - coset - 2 - 1
                self.cuzk(lock + ntt - 1, f"CUZK_NTT_H: d_b_alloc=2ms ntt_kernels={kern}ms "
                                          f"coset_intt_sync={coset}ms msm_init=2ms "
                                          f"msm_invoke={inv}ms msm_dtor=1ms total={ntt - 1}ms")
                self.cuzk(lock + ntt, f"CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms={ntt}")
                self.cuzk(lock + ntt + bw, f"CUZK_TIMING: gpu_tid=0 barrier_wait_ms={bw}")
                self.cuzk(lock + ntt + bw + ba, f"CUZK_TIMING: gpu_tid=0 batch_add_ms={ba}")
                self.cuzk(unlock, f"CUZK_TIMING: gpu_tid=0 tail_msm_ms={tail} "
                                  f"gpu_total_ms={gpu_total}")
                self.cuzk(unlock, f"CUZK_TIMING: mutex_held_ms={gpu_total} "
                                  f"total_start_fn_ms={unlock - s}")
                self.cuzk(bg2_end, f"CUZK_TIMING: b_g2_msm_ms={bg2} num_circuits=1")
                mutex_free = unlock
                at(unlock + 1, "worker_free", w)
                at(end, "gpu_end", p, i, w, end - s)

        submit(0)
        last = 0
        while events:
            t, _, kind, args = heapq.heappop(events)
            if self.snapshot_at is not None and t >= self.snapshot_at and not self.snapshots:
                self._snapshot(self.snapshot_at, busy)
            last = max(last, t)
            if kind == "dispatch":
                dispatch(t)
            elif kind == "synth_end":
                p, i = args
                part = self.parts[(p, i)]
                self.timeline(t, "SYNTH_END", p, f"partition={i},synth_ms={part.synth_ms}")
                self.info(t, eng, "partition synthesis complete, sending to GPU" if old else
                          "partition synthesis complete, pushing to GPU queue",
                          {"job_id": self.job_ids[p], "partition": i,
                           "synth_ms": part.synth_ms})
                self.timeline(t, "CHAN_SEND" if old else "GPU_QUEUE", p, f"partition={i}")
                part.state = "synth_done"
                permits += 1
                heapq.heappush(gpu_q, (p, i))
                dispatch(t)
                pick(t)
            elif kind == "synth_fail":
                p, i = args
                permits += 1
                self.parts[(p, i)].state = "failed"
                self.info(t, eng, "partition synthesis failed",
                          {"error": '"constraint system is not satisfied"',
                           "job_id": self.job_ids[p], "partition": i}, level="ERROR")
                self.failed[p] = t
                in_flight -= 1
                dispatch(t)
                submit(t)
            elif kind == "worker_free":
                busy.pop(args[0], None)
                idle.append(args[0])
                idle.sort()
                pick(t)
            elif kind == "gpu_end":
                p, i, w, gpu_ms = args
                part = self.parts[(p, i)]
                part.state, part.gpu_ms = "done", gpu_ms
                self.timeline(t, "GPU_END", p, f"worker={w},partition={i},gpu_ms={gpu_ms}")
                self.info(t, eng, "partition GPU prove complete",
                          {"job_id": self.job_ids[p], "partition": i, "gpu_ms": gpu_ms,
                           "filled": 0})
                self.info(t, eng, "FIN_TIMING finalizer partition",
                          {"worker_id": w, "partition": f"Some({i})", "finish_ms": gpu_ms,
                           "drop_res_ms": 0, "lock_wait_ms": 0, "process_ms": 1,
                           "total_ms": gpu_ms + 1})
                dealloc = 40 + rng.randrange(80)
                self.cuzk(t + dealloc, f"CUZK_TIMING: async_dealloc_ms={dealloc}")
                done = [self.parts[(p, k)] for k in range(self.partitions)]
                if all(x.state == "done" for x in done) and p not in self.failed:
                    total = t - self.submitted[p]
                    self.info(t, eng, "Phase 7: all partitions complete, proof assembled",
                              {"job_id": self.job_ids[p], "proof_len": 1920, "total_ms": total,
                               "synth_ms": sum(x.synth_ms for x in done),
                               "gpu_ms": sum(x.gpu_ms for x in done)})
                    self.info(t + 412, eng, "Phase 7: PoRep proof self-check PASSED",
                              {"job_id": self.job_ids[p]})
                    self.completed[p] = t + 412
                    in_flight -= 1
                    submit(t + 412)

        end = max(last, max((x[0] for x in self.lines), default=0)) + 2317
        self.info(end, "cuzk_daemon", "received SIGINT, shutting down")
        self.info(end + 96, eng, "pipeline GPU worker received shutdown signal",
                  {"worker_id": 0})
        self.info(end + 97, eng, "pipeline GPU worker received shutdown signal",
                  {"worker_id": 1})
        self.info(end + 131, "cuzk_daemon", "cuzk-daemon stopped")
        return self

    def _phase9_call(self, p, i, w, s, setup, split, prep, lock, ntt, ba, tail, bg2):
        """Print one synchronous phase-9 GPU call (pre-staged uploads, no mutex lines)."""
        rng = self.rng
        self.cuzk(s + setup, f"CUZK_TIMING: split_vectors_ms={split} setup_to_split_ms={setup}")
        sync, trim, alloc = 1 + rng.randrange(3), 2 + rng.randrange(5), 1 + rng.randrange(3)
        upload = 230 + rng.randrange(40)
        ps = sync + trim + alloc + upload + 1
        self.cuzk(lock, "CUZK_TIMING: prestage_vram free_mib=20311 usable_mib=19799 "
                        "need_da_mib=4096 need_dbc_mib=8192 total_mib=12288")
        self.cuzk(lock + ps, f"CUZK_TIMING: prestage_setup=ok domain=134217728 "
                             f"lot_of_memory=1 sync_ms={sync} trim_ms={trim} "
                             f"alloc_ms={alloc} upload_ms={upload} total_ps_ms={ps}")
        g0 = lock + ps
        prep_end = s + setup + prep
        self.cuzk(prep_end, f"CUZK_TIMING: prep_msm_ms={prep}")
        self.cuzk(g0 + ntt, f"CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms={ntt}")
        self.cuzk(g0 + ntt + ba, f"CUZK_TIMING: gpu_tid=0 batch_add_ms={ba}")
        gpu_total = ntt + ba + tail
        self.cuzk(g0 + gpu_total, f"CUZK_TIMING: gpu_tid=0 tail_msm_ms={tail} "
                                  f"gpu_total_ms={gpu_total}")
        bg2_end = prep_end + bg2
        self.cuzk(bg2_end, f"CUZK_TIMING: b_g2_msm_ms={bg2} num_circuits=1")
        epi = 30 + rng.randrange(15)
        e1 = max(g0 + gpu_total, bg2_end) + epi
        self.cuzk(e1, f"CUZK_TIMING: epilogue_ms={epi} pre_destructor_ms={e1 - s}")
        self._end = e1 + 3
        self.truth[(p, i)] = {
            "worker": w, "split_vectors_ms": split, "setup_to_split_ms": setup,
            "prep_msm_ms": prep, "ntt_msm_h_ms": ntt, "batch_add_ms": ba, "tail_msm_ms": tail,
            "gpu_total_ms": gpu_total, "b_g2_msm_ms": bg2, "epilogue_ms": epi,
            "prestage_upload_ms": upload, "prestage_total_ms": ps}

    def _snapshot(self, t, busy):
        """Record what GET /status would have returned at ``t``."""
        pipelines = []
        for p in range(self.proofs):
            if p not in self.submitted or p in self.completed or p in self.failed:
                continue
            parts = [self.parts[(p, i)] for i in range(self.partitions)]
            pipelines.append({
                "job_id": self.job_ids[p], "proof_kind": "porep-seal-commit",
                "started_secs_ago": round((t - self.submitted[p]) / 1000, 3),
                "total_partitions": self.partitions,
                "partitions_done": sum(x.state == "done" for x in parts),
                "partitions": [{"index": x.index, "state": x.state,
                                "synth_ms": x.synth_ms if x.state in ("synth_done", "gpu", "done")
                                else None,
                                "gpu_ms": x.gpu_ms} for x in parts]})
        states = [x.state for x in self.parts.values()]
        used = 70 + 14 * (states.count("synthesizing") + states.count("synth_done")) \
            + 4 * states.count("gpu")
        workers = []
        for w in range(self.gw):
            cur = busy.get(w)
            workers.append({"worker_id": w, "gpu_ordinal": 0,
                            "state": "proving" if cur else "idle",
                            "current_job": self.job_ids[cur[0]] if cur else None,
                            "current_partition": cur[1] if cur else None,
                            "busy_secs": round((t - cur[2]) / 1000, 3) if cur else None})
        self.snapshots[t] = {
            "uptime_secs": round(t / 1000, 3),
            "memory": {"total_bytes": 749 * GIB, "used_bytes": used * GIB,
                       "available_bytes": (749 - used) * GIB},
            "synthesis": {"max_concurrent": self.pw,
                          "active": states.count("synthesizing")},
            "pipelines": pipelines,
            "gpu_workers": workers,
            "allocations": {"srs": [{"circuit_id": "porep-32g", "bytes": 44 * GIB,
                                     "last_used_secs_ago": 0.0, "evictable": False}],
                            "pce": [{"circuit_id": "porep-32g", "bytes": 26 * GIB,
                                     "last_used_secs_ago": 0.0, "evictable": False}]},
            "counters": {"total_completed": len(self.completed),
                         "total_failed": len(self.failed),
                         "completed_by_kind": {"porep-seal-commit": len(self.completed)},
                         "failed_by_kind": {"porep-seal-commit": len(self.failed)}
                         if self.failed else {},
                         "queue_depth": 0},
            "buffers": {"synth_in_flight": states.count("synthesizing"),
                        "provers_in_flight": states.count("synth_done") + states.count("gpu"),
                        "aux_in_flight": states.count("gpu"),
                        "shells_in_flight": states.count("gpu"),
                        "pending_handles": states.count("gpu")},
        }

    # -- outputs -----------------------------------------------------------------
    def text(self, *, until: int | None = None) -> list[str]:
        """Return the printed lines in time order (up to ``until`` ms)."""
        out = sorted(self.lines)
        return [x[2] for x in out if until is None or x[0] <= until]


def bench_report(run: Run) -> list[str]:
    """Return what ``cuzk-bench batch -c N -j J`` printed for ``run``."""
    lines = ["=== Batch Benchmark ===", "proof type:  porep", f"count:       {run.proofs}",
             f"concurrency: {run.concurrency}", ""]
    ends = []
    walls, proves = [], []
    for p in range(run.proofs):
        if p in run.completed:
            end = run.completed[p] + 61
            wall = (end - run.submitted[p]) / 1000
            prove = sum(run.parts[(p, i)].gpu_ms for i in range(run.partitions))
            queue = 2 + p
            status = "COMPLETED"
            walls.append(wall)
            proves.append(prove / 1000)
        else:
            end = run.failed[p] + 5
            wall = (end - run.submitted[p]) / 1000
            prove, queue, status = 0, 0, "FAILED"
        ends.append(end)
        lines.append(f"  [{p + 1}/{run.proofs}] {status} {EM_DASH} {wall:.1f}s "
                     f"(prove={prove} ms, queue={queue} ms)")
    total = (max(ends) + 3) / 1000
    lines += ["", "=== Batch Summary ===", f"total time:    {total:.1f}s",
              f"completed:     {len(walls)}", f"failed:        {run.proofs - len(walls)}"]
    if walls:
        lines.append(f"wall time:     avg={sum(walls) / len(walls):.1f}s min={min(walls):.1f}s "
                     f"max={max(walls):.1f}s")
        lines.append(f"prove time:    avg={sum(proves) / len(proves):.1f}s "
                     f"min={min(proves):.1f}s max={max(proves):.1f}s")
        lines.append(f"throughput:    {len(walls) / total * 60:.3f} proofs/min "
                     f"({total / len(walls):.1f}s/proof)")
    return lines


def killed_log(run: Run, kill_ms: int) -> str:
    """Return the log of ``run`` killed at ``kill_ms``: last line cut, one line torn."""
    lines = run.text(until=kill_ms)
    # Two writers tore one stdout line: a TIMELINE line landed in its middle.
    k = next(i for i, x in enumerate(lines)
             if "partition synthesis complete" in x and "partition=4 " in x)
    assert lines[k + 1].startswith("TIMELINE,") and "GPU_QUEUE" in lines[k + 1]
    head, tail = lines[k][:len(lines[k]) // 2], lines[k][len(lines[k]) // 2:]
    lines[k:k + 2] = [head + lines[k + 1], tail]
    last = lines[-1]
    return "\n".join(lines[:-1]) + "\n" + last[: len(last) // 2]


def write_samples(out: Path = SAMPLES) -> dict[str, Path]:
    """Write the sample files and return their paths by name."""
    out.mkdir(parents=True, exist_ok=True)
    run = Run(proofs=3, concurrency=2, fail=(2, 4), snapshot_at=90000, seed=7).simulate()
    files = {
        "cuzk-daemon.log": "\n".join(run.text()) + "\n",
        "cuzk-bench-batch.txt": "\n".join(bench_report(run)) + "\n",
        "cuzk-status.json": json.dumps(run.snapshots[90000], indent=2) + "\n",
    }
    killed = Run(proofs=2, concurrency=2, seed=11, ansi=False, srs_load_ms=1620).simulate()
    files["cuzk-daemon-killed.log"] = killed_log(killed, kill_ms=77893)
    old = Run(proofs=2, concurrency=2, seed=5, ansi=False, srs_load_ms=30120,
              era="phase9").simulate()
    files["cuzk-daemon-phase9.log"] = "\n".join(old.text()) + "\n"
    paths = {}
    for name, text in files.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        paths[name] = path
    return paths


if __name__ == "__main__":
    for name, path in write_samples().items():
        print(path)
