"""Calibration: the real daemon's published measurements, and the model's figures.

Each :class:`Case` is one measurement of cuzk, the configuration it was taken
with, the profile variant of that phase, what the model must reproduce and
within what tolerance. ``run_table()`` simulates every case and returns the
table shown in the README (model against measurement). Where a source left a
knob unstated (for example the number of proofs in flight behind a headline
figure), the case says which value the model assumes.

Provenance: cuzk's design notes in the Curio repository (extern/cuzk/,
"cuzk-project.md", phases 8 to 12), as summarised in the workbench's
reference notes.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from ..model.config import PipelineConfig

# Phase 9/11 era knobs: interlock, permit released before the hand-off,
# gpu_threads = all cores (192-thread pool in cuzk; 96 cores here).
_PHASE9 = dict(lock="interlock", admission="semaphore_prefix", gpu_threads=0,
               gpu_workers_per_device=2, partition_workers=10)
# cuzk's peak RSS when its pre-fix pw=12 pile-up ran out of memory (phase 12 notes).
PREFIX_PEAK_GIB = 668.0
# Phase 12 after the fixes: split API, permit held through the hand-off.
_PHASE12 = dict(lock="split_async", admission="semaphore", gpu_threads=32,
                gpu_workers_per_device=2)


@dataclass(frozen=True)
class Case:
    """One published measurement and what the model must show for it."""

    name: str
    profile: str
    config: dict
    metric: str                  # a summary key, "stage_excess:<stage>", "before_oom_max_s:<stage>",
                                 # "before_oom_slowdown:<stage>" or "waiting_at_rss:<GiB>"
    measured: float | bool
    tolerance: float = 0.10      # relative; ignored for booleans
    source: str = ""
    assumption: str = ""
    fitted: bool = False         # a profile parameter was chosen on this measurement
    extra: dict = field(default_factory=dict)

    def pipeline_config(self) -> PipelineConfig:
        """Return the PipelineConfig of this case."""
        return PipelineConfig.from_dict(self.config)


def _c(**kw) -> dict:
    return kw


CASES: tuple[Case, ...] = (
    Case("phase 8, pw=10: GPU-bound", "porep-32g@phase8",
         _c(proofs=20, concurrency=15, **_PHASE9), "seconds_per_proof", 37.4,
         source="phase 8: 37.4 s/proof at pw=10, = 10 x 3.75 s of CUDA region",
         assumption="c=20, j=15 (not stated)", fitted=True),
    Case("phase 8, pw=10: bottleneck is the GPU", "porep-32g@phase8",
         _c(proofs=20, concurrency=15, **_PHASE9), "bottleneck:gpu", True,
         source="phase 8: 'the system is fully GPU-bound'"),
    Case("phase 9, gw=1 c=3 j=1 (isolated): prove=", "porep-32g@phase9",
         _c(proofs=3, concurrency=1, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "gpu_prove_s_mean", 32.1, tolerance=0.15, fitted=True,
         source="phase 9 table: '| gw=1, c=3, j=1 (isolation) | **32.1s/proof** | 32.1s | All 30 "
                "partitions pre-staged, 14.2% over Phase 8 |' (throughput and prove time columns)",
         assumption="the 32.1 s is the per-proof GPU time (cuzk-bench's prove=, the sum over the "
                    "partitions of their GPU calls), which the throughput column repeats: at j<=1 "
                    "cuzk-bench runs 'Sequential mode', awaiting each Prove RPC before the next, so "
                    "a proof's wall time also holds its synthesis (~29-36 s by the same notes; one "
                    "proof alone took 69.3 s in phase 8)"),
    Case("phase 9, gw=2 pw=10, c=5", "porep-32g@phase9",
         _c(proofs=5, concurrency=5, **_PHASE9), "seconds_per_proof", 41.4,
         source="phase 9 sweep (gw=2, pw=10): c=5 41.4 s/proof", assumption="j=c"),
    Case("phase 9, gw=2 pw=10, c=10", "porep-32g@phase9",
         _c(proofs=10, concurrency=10, **_PHASE9), "seconds_per_proof", 38.7,
         source="phase 9 sweep: c=10 38.7 s/proof", assumption="j=c"),
    Case("phase 9, gw=2 pw=10, c=15", "porep-32g@phase9",
         _c(proofs=15, concurrency=15, **_PHASE9), "seconds_per_proof", 38.2,
         source="phase 9 sweep: c=15 38.2 s/proof", assumption="j=c"),
    Case("phase 9, gw=2 pw=10, c=20 j=15", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **_PHASE9), "seconds_per_proof", 38.0,
         source="phase 9 sweep: c=20 38.0 s/proof; phase 11 baseline row: c=20 j=15"),
    Case("phase 9 contention: prep_msm", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "stage_excess:prep_msm", 0.12, tolerance=0.30, fitted=True,
         source="phase 9: prep_msm +12 % with 10 syntheses running (1909 ms against ~1700 ms)",
         assumption="judged on the excess (mean slowdown - 1) over the run, ±30 %"),
    Case("phase 9 contention: b_g2_msm", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "stage_excess:b_g2_msm", 0.27, tolerance=0.30, fitted=True,
         source="phase 9: b_g2_msm +27 % with 10 syntheses running (484 ms against ~380 ms)",
         assumption="judged on the excess (mean slowdown - 1) over the run, ±30 %"),
    Case("phase 9, gw=1 c=30 j=20: host OOM", "porep-32g@phase9",
         _c(proofs=30, concurrency=20, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "oom", True, source="phase 9 table: gw=1, c=30, j=20: crashed, host OOM", fitted=True),
    Case("phase 9, gw=1 c=30 j=20: prep_msm before the OOM", "porep-32g@phase9",
         _c(proofs=30, concurrency=20, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "before_oom_max_s:prep_msm", 10.6, tolerance=0.25,
         source="cuzk's contention notes: at 30 proofs with 20 in flight, prep_msm 10.6 s (6x), "
                "then the host ran out of memory",
         assumption="the longest prep_msm in the 60 s before the OOM (what the log showed then); "
                    "a seed that does not run out of memory has no value"),
    Case("phase 9, gw=1 c=30 j=20: b_g2_msm before the OOM", "porep-32g@phase9",
         _c(proofs=30, concurrency=20, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "before_oom_max_s:b_g2_msm", 4.5, tolerance=0.25,
         source="cuzk's contention notes: b_g2_msm 4.5 s (12x) before the host OOM",
         assumption="the longest b_g2_msm in the 60 s before the OOM"),
    Case("phase 9, gw=1 c=30 j=20: synthesis before the OOM", "porep-32g@phase9",
         _c(proofs=30, concurrency=20, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "before_oom_slowdown:synth", 2.0, tolerance=0.20,
         source="cuzk's contention notes: synthesis about doubled before the host OOM",
         assumption="mean slowdown (duration over solo) of the syntheses ending in the 60 s before "
                    "the OOM; 'about doubled' read as 1.6-2.4x"),
    Case("phase 11, gpu_threads=32", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **{**_PHASE9, "gpu_threads": 32}),
         "seconds_per_proof", 36.7, source="phase 11: c=20 j=15 pw=10 gw=2 gt=32: 36.7 s/proof"),
    Case("phase 11, gw=3 gt=32", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **{**_PHASE9, "gpu_threads": 32,
                                          "gpu_workers_per_device": 3}),
         "seconds_per_proof", 37.2, source="phase 11: gw=3: 37.2 s/proof"),
    Case("phase 11, gw=4 gt=32", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **{**_PHASE9, "gpu_threads": 32,
                                          "gpu_workers_per_device": 4}),
         "seconds_per_proof", 37.4, source="phase 11: gw=4: 37.4 s/proof"),
    Case("phase 12 pre-fix, pw=12 j=15: pile-up", "porep-32g@phase12-prefix",
         _c(proofs=20, concurrency=15, partition_workers=12,
            **{**_PHASE12, "admission": "semaphore_prefix"}),
         f"waiting_at_rss:{PREFIX_PEAK_GIB:g}", 28.0, tolerance=0.15,
         source="phase 12: 'up to 28 synthesized ProvingAssignment sets accumulated in the channel "
                "(~448 GiB), causing OOM'; 'pw=12 at j=15 caused OOM (668 GiB peak RSS)'",
         assumption="c=20; judged on the most synthesized partitions waiting for a GPU worker up to "
                    "the moment the model's RSS first reaches 668 GiB: cuzk's two figures describe "
                    "one state (its 448 GiB of waiting sets is 28 x 16 GiB of the 668 GiB), while "
                    "the model runs on to its RAM line (754 GiB) before it fails, with more waiting"),
    Case("phase 12 pre-fix, pw=12 j=15: OOM", "porep-32g@phase12-prefix",
         _c(proofs=20, concurrency=15, partition_workers=12,
            **{**_PHASE12, "admission": "semaphore_prefix"}),
         "oom", True, source="phase 12: the pile-up ended in a host OOM"),
    Case("phase 12, pw=12 j=20 (fixed)", "porep-32g",
         _c(proofs=20, concurrency=20, partition_workers=12, **_PHASE12),
         "seconds_per_proof", 37.7, source="phase 12 table: pw=12: 37.7 s/proof, 400 GiB peak"),
    Case("phase 12, pw=12 j=20: peak RSS", "porep-32g",
         _c(proofs=20, concurrency=20, partition_workers=12, **_PHASE12),
         "peak_rss_gib", 400.0, source="phase 12 table: pw=12: 400 GiB peak"),
)


# cuzk-bench prints per proof ``prove=`` (the daemon's gpu_compute_ms: the sum over
# its partitions of GPU_START..GPU_END); the summary's ``gpu_prove_s_mean`` is the
# same sum over the GPU-worker spans. A latency, held to ±15 %; s/proof and peak RSS
# to ±10 %.
def _lowmem(pw: int, gw: int, sp: float, peak: float, prove: float) -> tuple[Case, ...]:
    cfg = _c(proofs=5, concurrency=5, partition_workers=pw,
             **{**_PHASE12, "gpu_workers_per_device": gw})
    src = (f"phase 12 low-memory sweep (5 proofs, j=5, gt=32): pw={pw} gw={gw}: {sp} s/proof, "
           f"avg prove {prove} s, {peak} GiB")
    return (Case(f"phase 12 low-memory, pw={pw} gw={gw}", "porep-32g", cfg,
                 "seconds_per_proof", sp, source=src, fitted=(pw, gw) in ((1, 1), (2, 1))),
            Case(f"phase 12 low-memory, pw={pw} gw={gw}: peak RSS", "porep-32g", cfg,
                 "peak_rss_gib", peak, source=src),
            Case(f"phase 12 low-memory, pw={pw} gw={gw}: prove=", "porep-32g", cfg,
                 "gpu_prove_s_mean", prove, tolerance=0.15, source=src, fitted=pw == 1))


def _pw_sweep(pw: int, sp: float, peak: float) -> tuple[Case, Case]:
    cfg = _c(proofs=20, concurrency=20, partition_workers=pw, **_PHASE12)
    src = f"phase 12 partition-worker sweep (20 proofs, j=20, gw=2, gt=32): pw={pw}: {sp} s/proof, {peak} GiB"
    return (Case(f"phase 12 sweep, pw={pw}", "porep-32g", cfg, "seconds_per_proof", sp, source=src),
            Case(f"phase 12 sweep, pw={pw}: peak RSS", "porep-32g", cfg, "peak_rss_gib", peak,
                 source=src))


# Further published measurements, beyond the reference notes: the model is
# compared with them in the README; they are not part of the pass/fail gate.
FURTHER_CASES: tuple[Case, ...] = (
    *_lowmem(1, 1, 290.0, 104.0, 33.2), *_lowmem(2, 1, 152.0, 110.0, 33.7),
    *_lowmem(5, 1, 68.4, 170.0, 34.0), *_lowmem(5, 2, 68.6, 170.0, 58.2),
    *_lowmem(7, 1, 53.3, 208.0, 34.0), *_lowmem(7, 2, 51.2, 204.0, 59.2),
    *_lowmem(10, 1, 45.4, 310.0, 39.5), *_lowmem(10, 2, 42.5, 271.0, 68.1),
    *_lowmem(12, 2, 42.5, 373.0, 69.8),
    *_pw_sweep(10, 38.5, 321.0), *_pw_sweep(14, 37.8, 457.0), *_pw_sweep(16, 38.4, 510.0),
    Case("phase 11 baseline gw=2 gt=0: prove=", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **_PHASE9), "gpu_prove_s_mean", 60.0, tolerance=0.15,
         fitted=True, source="phase 11 table: phase 9 baseline (gw=2): avg prove 60.0 s"),
    Case("phase 11 gw=2 gt=32: prove=", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **{**_PHASE9, "gpu_threads": 32}),
         "gpu_prove_s_mean", 57.4, tolerance=0.15, fitted=True, source="phase 11 table: avg prove 57.4 s"),
    Case("phase 11 gw=3 gt=32: prove=", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **{**_PHASE9, "gpu_threads": 32,
                                          "gpu_workers_per_device": 3}),
         "gpu_prove_s_mean", 83.0, tolerance=0.15, fitted=True, source="phase 11 table: gw=3: avg prove 83.0 s"),
    Case("phase 11 gw=4 gt=32: prove=", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **{**_PHASE9, "gpu_threads": 32,
                                          "gpu_workers_per_device": 4}),
         "gpu_prove_s_mean", 104.9, tolerance=0.15, fitted=True, source="phase 11 table: gw=4: avg prove 104.9 s"),
    Case("phase 9, gw=1 c=15 j=10", "porep-32g@phase9",
         _c(proofs=15, concurrency=10, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "seconds_per_proof", 42.9, fitted=True, source="phase 9 table: gw=1, c=15, j=10: 42.9 s/proof"),
    Case("phase 9, gw=1 c=15 j=15", "porep-32g@phase9",
         _c(proofs=15, concurrency=15, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "seconds_per_proof", 41.3, fitted=True, source="phase 9 table: gw=1, c=15, j=15: 41.3 s/proof"),
    Case("phase 9, gw=1 c=20 j=15", "porep-32g@phase9",
         _c(proofs=20, concurrency=15, **{**_PHASE9, "gpu_workers_per_device": 1}),
         "seconds_per_proof", 41.6, source="phase 9 table: gw=1, c=20, j=15: 41.6 s/proof"),
    Case("phase 8, one proof alone, pw=20", "porep-32g@phase8",
         _c(proofs=1, concurrency=1, **{**_PHASE9, "partition_workers": 20}),
         "seconds_per_proof", 69.3,
         source="phase 7+8 single-proof detail (pw=20, gw=2): total wall 69.3 s, GPU time 65.7 s"),
    Case("phase 8, one proof alone, pw=20: prove=", "porep-32g@phase8",
         _c(proofs=1, concurrency=1, **{**_PHASE9, "partition_workers": 20}),
         "gpu_prove_s_mean", 65.7, tolerance=0.15,
         source="phase 7+8 single-proof detail (pw=20, gw=2): total wall 69.3 s, GPU time 65.7 s"),
    *(Case(f"phase 8 sweep c=5 j=3, pw={pw}", "porep-32g@phase8",
           _c(proofs=5, concurrency=3, **{**_PHASE9, "partition_workers": pw}),
           "seconds_per_proof", sp, fitted=pw == 30,
           source=f"phase 7+8 partition-worker sweep (c=5, j=3, gw=2): pw={pw}: {sp} s/proof")
      for pw, sp in ((10, 43.5), (12, 43.5), (15, 44.8), (18, 43.8), (20, 44.9), (30, 60.4))),
    Case("phase 8, c=5 j=2 pw=20", "porep-32g@phase8",
         _c(proofs=5, concurrency=2, **{**_PHASE9, "partition_workers": 20}),
         "seconds_per_proof", 49.5,
         source="phase 8 vs phase 7 (pw=20): c=5 j=2: phase 7 59.8, phase 8 49.5 s/proof"),
    Case("phase 12 pre-fix, pw=10 c=20 j=15", "porep-32g@phase12-prefix",
         _c(proofs=20, concurrency=15, partition_workers=10,
            **{**_PHASE12, "admission": "semaphore_prefix"}),
         "seconds_per_proof", 37.1,
         source="split-API commit 99c31c2c: 'Benchmark (gw=2 pw=10 gt=32, c=20 j=15): 37.1s/proof'"),
    Case("phase 12 pre-fix, pw=10 j=20: peak RSS", "porep-32g@phase12-prefix",
         _c(proofs=20, concurrency=20, partition_workers=10,
            **{**_PHASE12, "admission": "semaphore_prefix"}),
         "peak_rss_gib", 367.0,
         source="phase 12 sweep (20 proofs, j=20): pw=10: 321 GiB, 'Down from 367 GiB pre-fix'"),
    *(Case(f"phase 9, gw=1 c={c} j={j}: prove=", "porep-32g@phase9",
           _c(proofs=c, concurrency=j, **{**_PHASE9, "gpu_workers_per_device": 1}),
           "gpu_prove_s_mean", pv, tolerance=0.15,
           source=f"phase 9 table: gw=1, c={c}, j={j}: prove time {pv} s avg")
      for c, j, pv in ((15, 10, 36.7), (15, 15, 36.1), (20, 15, 36.9))),
)


# Measurements the model does not reproduce, and why. They stay in their table.
KNOWN_DEVIATIONS = {
    "phase 12 low-memory, pw=1 gw=1: peak RSS": (
        "the model peaks at 91.7 GiB in every seed: SRS and PCE (69.7 GiB), the five proofs' "
        "requests (2.6 GiB, C1 output cloned into each partition's work item) and one synthesis in "
        "its MatVec (aux 3.88 + the MatVec's copy of the witness 3.88 + a/b/c 11.65 = 19.4 GiB, the "
        "'~19.4 GiB' cuzk's c2-optimization-proposal-7 gives a synthesis at its SpMV). cuzk's "
        "formula from the same sweep, '~69 + pw x 20 GiB', gives 89; the measured 104 GiB is "
        "12 GiB, most of one more partition's output, above the model. With one partition worker "
        "the previous partition's GPU work and finalize end ~20 s before the next MatVec. The "
        "daemon's start was checked as a candidate: the SRS constructor (supraseal-c2 "
        "groth16_srs.cuh) pins 44 GiB with cudaHostAlloc and copies the points from a MAP_PRIVATE "
        "mapping of the 47 GB file in a background thread, unmapped only when the copy ends, while "
        "the engine goes on to load the 25.7 GiB PCE from disk: between ~88 GiB (the PCE loaded "
        "after the copy ends) and ~114 GiB (before), so 104 GiB if about 60 % of the PCE was in "
        "when the mapping went. The sources give neither the two loads' speeds in that run nor "
        "whether the sweep's peak was sampled from the daemon's start (its pw=2 figure, 110 GiB, "
        "is the model's steady peak, 111), so the model does not add a start-up transient whose "
        "size would be fitted to this one row, and the cause stays open. None of the laws "
        "tried for how syntheses slow each other ((a)-(j) in docs/simulator.md) moves this "
        "peak, nor did any of the 151 candidates of a joint refit of the profiles' fitted "
        "values (python -m cuzklab.sim.refit). cuzk's pinned a/b/c pool "
        "(cuzk-core pinned_pool.rs: buffers checked out at a synthesis's start go back to the "
        "pool after the kernels and stay pinned) would explain it: with the model's pool on "
        "(partition.pinned_alloc_s 1 s, pinned_warm 0, phase 12 profiles) this peak is 103 GiB "
        "(10/10), the previous partition's set idle in the pool beside the next synthesis; but "
        "every other peak of the same sweep then runs 13-31 % high (pw=2 133 GiB against 110, "
        "pw=5 217 against 170, pw=10 gw=2 339 against 271); and the sweep ran without it: cuzk "
        "wrote the sweep up on 2026-02-20 (Curio commit 9bb657e5, with phase 12), the pool "
        "arrived on 2026-03-13 (48dccd93), and even then only the synthesis path without a PCE "
        "drew from it (pipeline.rs synthesize_auto: 'PCE path doesn't use pinned pool yet'), "
        "so its profile keeps the pool off."),
    "phase 12 low-memory, pw=10 gw=1: peak RSS": (
        "+10.5 % (342.5 GiB, 341.3-343.2, against 310), within ±10 % at 0 of 10 seeds (1 of 10 "
        "before the five proofs' requests, 2.6 GiB, were held). The peak is the last wave of ten "
        "syntheses in their MatVecs (10 x 19.4 GiB) over five finished partitions "
        "still waiting for the single GPU worker: the worker turns a partition every ~4.1 s and a "
        "wave of ten takes ~36.5 s, so the backlog grows by about a partition a wave; cuzk's 310 GiB "
        "leaves room for three (the figures of the attempts that follow predate the node's "
        "bandwidth refit, which left this peak where it was). The worker's cycle comes from the GPU set-up constants fitted on "
        "the prove= rows (gpu.in_lock_setup_s, gpu.pre_lock_s): with in_lock_setup_s = 0.60 "
        "instead of 1.17 this peak falls to 291 GiB, but the GPU-bound s/proof rows then run "
        "12-16 % fast, so those constants cannot give both. Freeing a/b/c on the GPU worker's "
        "thread in prove_start (as cuzk does since 98a52b33, not through the serialized dealloc "
        "thread) moves it by less than 1 GiB, and charging that munmap (~0.7 s) to the worker's "
        "cycle raises it to 359 GiB. The fitted start allocation this "
        "profile replaced (a fifth of the output and 4 GiB of scratch from a synthesis's start) "
        "spread the wave's memory and gave 333 GiB (+7.6 %). cuzk's two steps (attempt (d) in "
        "docs/simulator.md, 'How syntheses slow each other') give 310 GiB (301-319, 10/10): "
        "MatVecs of 3-9 s overlap less and "
        "fewer partitions wait, but four other rows leave tolerance (see there). A joint refit of "
        "the profiles' fitted values (python -m cuzklab.sim.refit, 151 candidates) brought this "
        "peak within tolerance in 14 candidates, each with eight or more rows out, the pre-fix "
        "pw=12 pile-up or its OOM among them in every one. Waves that drift apart would lower it: "
        "with every stage's jitter (gpu.jitter, a lognormal sigma) at 0.06 instead of 0.03 the "
        "MatVecs of a wave overlap less and this peak is within tolerance in 10 of 10 seeds, but "
        "ten other rows leave it (the c=30 j=20 OOM and its collapse in 4 of 10 seeds, the "
        "pre-fix pw=12 OOM 7/10, the phase 12 sweep's pw=10 peak -10.6 %, pw=16 2/10, pw=30 "
        "5/10); at 0.10, 8 of 10 seeds and thirteen other rows out."),
    "phase 12 pre-fix, pw=10 j=20: peak RSS": (
        "cuzk's fix commit 98a52b33 gives 'pw=10: 38.5s/proof, 321 GiB peak RSS (was 367 GiB)'; "
        "the model peaks at ~303 GiB before the fix and after it, both at its second wave (ten "
        "MatVecs of 19.4 GiB over the first wave's last partitions, with the twenty proofs' "
        "requests, ~10 GiB, still held). The fix changed no "
        "C++ code (only bellperson's supraseal.rs and cuzk's engine.rs and pipeline.rs) and three "
        "things: (1) prove_start clears prover.a/b/c ('~12 GiB per partition') instead of leaving "
        "them to finish_pending_proof's serialized dealloc thread; (2) the synthesis-to-GPU "
        "channel grows from 1 slot to max(synthesis_lookahead, pw); (3) the partition permit is "
        "held until the send succeeds (before: 'let _permit = permit; // held until synth "
        "complete' inside the synthesis closure). (2) and (3) bind only once more than ten "
        "finished partitions wait for the GPU: the model's queue peaks at 7-8 (seeds 0-9) in both "
        "runs, and cuzk reports a pile-up only at pw=12 (28 partitions; its pre-fix pw=10 run: "
        "37.1 s/proof at c=20 j=15, model 38.3). That leaves (1): a/b/c (11.65 GiB) from "
        "prove_start's return to the finalizer's dealloc, i.e. the epilogue and ~0.7 s of munmap "
        "('~10s of munmap() overhead' for ten partitions) after a b_g2_msm that already ran beside "
        "the kernels: less than one partition at the ~3.7 s GPU cadence, in cuzk as in the model. "
        "64 GiB would need about four partitions' a/b/c held at once or four more finished "
        "partitions waiting (15.5 GiB each); the sources publish neither a dealloc time "
        "(async_dealloc_ms) nor a queue depth for these runs. cuzk's fixed daemon alone spreads "
        "as much at pw=10 gw=2 (271 GiB at j=5, 321 GiB at j=20). Of that spread the model now "
        "holds what grows with the proofs in flight, their requests (~10 GiB at j=20 against "
        "~2.6 at j=5: 301 against 293 GiB), not the rest. cuzk's two steps (attempt (d) in "
        "docs/simulator.md) lower both pw=10 j=20 peaks further (281 GiB before the fix, 280 after, "
        "against 367 and 321), while they bring the j=5 pw=10 peaks to cuzk's (gw=1 310 against "
        "310, gw=2 272 against 271). With the phase 12 GPU set-up also moved under the mutex "
        "(gpu.in_lock_setup_s 1.30, pre_lock_s 0.45: the same set-up time a partition, 0.13 s "
        "more of it under the mutex, ~3.5 % of the gw=2 cycle, where cuzk's pw=12-14 runs give "
        "37.7-37.8 s/proof against the model's 36.5-36.7 then, 37.5-37.6 since the bandwidth refit), the pw=10 j=20 runs are limited by "
        "the GPU rather than by synthesis, a backlog forms, and their peaks reach 317 GiB after "
        "the fix (321) and 322 GiB before it (303-352, 3/10), every row of the fixed daemon "
        "within tolerance; but the phase 9 "
        "rows of that attempt (contention, phase 11's gw=4 prove=) and the pre-fix pile-up count "
        "(32.6, 6/10) stay out, so neither is in the profile. None of the 151 candidates of a "
        "joint refit of the profiles' fitted values (python -m cuzklab.sim.refit) brought this "
        "peak within tolerance."),
}


# Seeds every row runs over, and how many of them a verdict must hold in.
SEEDS: tuple[int, ...] = tuple(range(10))
BEFORE_OOM_S = 60.0   # "before the OOM": spans ending in this window before the failure


def needed(n_seeds: int) -> int:
    """Return how many of ``n_seeds`` seeds a verdict must hold in (8 of 10)."""
    return math.ceil(0.8 * n_seeds)


def measure(case: Case, trace) -> float | bool:
    """Return the model's figure for ``case`` from one simulated trace."""
    s = trace.summary()
    m = case.metric
    if m.startswith("bottleneck:"):
        return s["bottleneck"]["resource"] == m.split(":", 1)[1]
    sp = trace.spans
    if m.startswith(("stage_slowdown:", "stage_excess:")):
        stage = m.split(":", 1)[1]
        sl = sp.loc[sp["stage"] == stage, "slowdown"].dropna()
        if not len(sl):
            return math.nan
        return float(sl.mean()) - (1.0 if m.startswith("stage_excess:") else 0.0)
    if m.startswith(("before_oom_max_s:", "before_oom_slowdown:")):
        failure = trace.meta.get("failure") or {}
        if failure.get("reason") != "oom":
            return math.nan
        stage = m.split(":", 1)[1]
        t = failure["t"]
        x = sp.loc[(sp["stage"] == stage) & (sp["end"] > t - BEFORE_OOM_S) & (sp["end"] <= t)]
        if not len(x):
            return math.nan
        if m.startswith("before_oom_max_s:"):
            return float((x["end"] - x["start"]).max())
        return float(x["slowdown"].mean())
    if m.startswith("waiting_at_rss:"):
        rss = trace.counter("rss_gib")
        reached = rss.loc[rss["value"] >= float(m.split(":", 1)[1]), "t"]
        if not len(reached):
            return math.nan
        q = trace.counter("gpu_queue_depth")
        return float(q.loc[q["t"] <= float(reached.iloc[0]), "value"].max())
    v = s.get(m)
    if isinstance(case.measured, bool):
        return bool(v)
    return math.nan if v is None else float(v)


def check(case: Case, value) -> tuple[bool, float | None]:
    """Return (within tolerance, relative error) of one model value for a case."""
    if isinstance(case.measured, bool):
        return bool(value) == case.measured, None
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return False, None
    err = (value - case.measured) / case.measured
    return abs(err) <= case.tolerance, err


def _simulate_one(job):
    profile, config, seed = job
    from . import simulate
    cfg = PipelineConfig.from_dict({**config, "seed": seed})
    trace = simulate(cfg, profile)
    failure = trace.meta.get("failure") or {}
    return trace, failure.get("t") if failure.get("reason") == "oom" else None


def _workers(jobs: int, workers: int | None) -> int:
    if workers is not None:
        return max(1, int(workers))
    return max(1, min(jobs, os.cpu_count() or 1, 8))


def run_table(cases=CASES, seeds=SEEDS, workers: int | None = None) -> list[dict]:
    """Simulate every case over ``seeds``; return rows of case, measured, model and verdict.

    Each row holds the per-seed values, their mean (``model``), spread (``lo``,
    ``hi``) and how many seeds were within tolerance (``hits``); a row passes
    (``ok``) when at least 8 of 10 seeds are (``needed``). For OOM rows the row
    also gives the time to OOM of the seeds that ran out of memory. Distinct
    simulations run in a process pool of ``workers`` (default: the CPU count,
    at most 8).
    """
    seeds = tuple(seeds)
    keys = []
    for case in cases:
        key = (case.profile, tuple(sorted(case.config.items())))
        if key not in keys:
            keys.append(key)
    jobs = [(prof, dict(cfg), seed) for prof, cfg in keys for seed in seeds]
    n = _workers(len(jobs), workers)
    results: dict = {}
    if n == 1:
        outs = [_simulate_one(j) for j in jobs]
    else:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(n) as ex:
            outs = list(ex.map(_simulate_one, jobs, chunksize=max(1, len(jobs) // (4 * n))))
    for (prof, cfg, seed), out in zip(jobs, outs):
        results[(prof, tuple(sorted(cfg.items())), seed)] = out
    rows = []
    for case in cases:
        key = (case.profile, tuple(sorted(case.config.items())))
        values, hits, oom_t = [], 0, []
        for seed in seeds:
            trace, t = results[(*key, seed)]
            v = measure(case, trace)
            values.append(v)
            hits += check(case, v)[0]
            if t is not None:
                oom_t.append(t)
        need = needed(len(seeds))
        if isinstance(case.measured, bool):
            mean = sum(bool(v) for v in values) / len(values)   # the fraction of seeds
            lo = hi = err = None
        else:
            finite = [v for v in values if not math.isnan(v)]
            mean = sum(finite) / len(finite) if finite else math.nan
            lo, hi = (min(finite), max(finite)) if finite else (None, None)
            err = check(case, mean)[1]
        rows.append({"case": case.name, "profile": case.profile, "metric": case.metric,
                     "measured": case.measured, "model": mean, "lo": lo, "hi": hi,
                     "values": values, "seeds": list(seeds), "hits": hits, "needed": need,
                     "error": err, "tolerance": case.tolerance, "ok": hits >= need,
                     "fitted": case.fitted, "oom_s": oom_t,
                     "source": case.source, "assumption": case.assumption})
    return rows


def _num(v) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3g}"


def format_table(rows: list[dict]) -> str:
    """Return the calibration rows as a Markdown table (mean, spread, seeds within tolerance)."""
    out = ["| case | metric | measured | model: mean (spread) | error of the mean | seeds within "
           "tolerance | passes |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        meas, mod = r["measured"], r["model"]
        n = len(r["seeds"])
        if isinstance(meas, bool):
            ms = "yes" if meas else "no"
            md = f"{'yes' if meas else 'no'} in {r['hits']}/{n} seeds"
            if r["oom_s"]:
                t = r["oom_s"]
                md += f" (OOM at {sum(t) / len(t):.0f} s, {min(t):.0f}-{max(t):.0f})"
            er = "—"
        else:
            ms = f"{meas:g}"
            md = _num(mod) if r["lo"] is None else f"{_num(mod)} ({_num(r['lo'])}-{_num(r['hi'])})"
            missing = sum(1 for v in r["values"] if isinstance(v, float) and math.isnan(v))
            if missing:
                md += f", no value in {missing}/{n}"
            er = "—" if r["error"] is None else f"{r['error']:+.1%} (±{r['tolerance']:.0%})"
        name = r["case"] + (" (fitted)" if r.get("fitted") else "")
        mark = "yes" if r["ok"] else ("**no** (see below)" if r["case"] in KNOWN_DEVIATIONS
                                      else "**no**")
        out.append(f"| {name} | {r['metric']} | {ms} | {md} | {er} | {r['hits']}/{n} | {mark} |")
    return "\n".join(out)


def main(argv=None) -> int:
    """Print the calibration tables (Markdown); ``--json`` prints the rows."""
    import argparse
    import json
    ap = argparse.ArgumentParser(prog="python -m cuzklab.sim.calibration",
                                 description="Simulate cuzk's published measurements and compare.")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--further", action="store_true",
                    help="also the further published measurements (outside the pass/fail gate)")
    ap.add_argument("--seeds", type=int, default=len(SEEDS), metavar="N",
                    help=f"seeds 0..N-1 per row (default {len(SEEDS)})")
    ap.add_argument("--workers", type=int, default=None, metavar="N",
                    help="processes for the simulations (default: the CPU count, at most 8)")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error(f"--seeds must be at least 1, got {args.seeds}")
    seeds = tuple(range(args.seeds))
    rows = run_table(CASES, seeds, args.workers)
    further = run_table(FURTHER_CASES, seeds, args.workers) if args.further else []
    if args.json:
        print(json.dumps({"cases": rows, "further": further}, default=str))
        return 0
    for n, table in enumerate((rows, further)):
        if not table:
            continue
        print(("\n" if n else "") + format_table(table))
        for r in table:
            if r["case"] in KNOWN_DEVIATIONS:
                print(f"\n- {r['case']}: {KNOWN_DEVIATIONS[r['case']]}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
