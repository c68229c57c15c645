"""The trace vocabulary: stage names, span and counter columns.

Stage names follow cuzk's own. A source that cannot see a stage leaves it out;
it never invents one.
"""

from __future__ import annotations

# In pipeline order. `queue`: submitted, waiting for admission; `synth`:
# witness + a/b/c; `gpu_queue`: synthesized, waiting for a GPU worker;
# `mutex_wait`: waiting for the per-GPU CUDA mutex; `h2d`: upload of a/b/c;
# `ntt_h`: NTTs + H MSM; `barrier_wait`: GPU idle waiting for prep_msm;
# `batch_add`, `tail_msm`: the split MSMs; `b_g2_msm`, `epilogue`: CPU tail.
STAGES = (
    "queue", "synth", "gpu_queue", "prep_msm", "mutex_wait", "h2d", "ntt_h",
    "barrier_wait", "batch_add", "tail_msm", "b_g2_msm", "epilogue", "verify",
)

# Stages that occupy a GPU (the serialized CUDA region).
GPU_STAGES = ("h2d", "ntt_h", "batch_add", "tail_msm")
# Stages that are waiting rather than working.
WAIT_STAGES = ("queue", "gpu_queue", "mutex_wait", "barrier_wait")
# CPU stages that share host cores and memory bandwidth.
CPU_STAGES = ("synth", "prep_msm", "b_g2_msm", "epilogue")

SPAN_COLUMNS = ("proof", "partition", "stage", "lane", "start", "end")
SPAN_OPTIONAL = ("gpu", "bytes", "slowdown")
COUNTER_COLUMNS = ("t", "name", "value")

SOURCES = ("sim", "live", "cuzk-log")

# Counter names in use; others are allowed.
COUNTERS = ("rss_gib", "budget_used_gib", "gpu_queue_depth", "ddr_gbps",
            "synth_running", "vram_gib")
