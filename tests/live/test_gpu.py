"""The live executor on a CUDA device: streams, CUDA events, pinned uploads, verified proofs."""

from __future__ import annotations

import pytest

from cuzklab.model import PipelineConfig

pytestmark = pytest.mark.gpu

K = 8


def _cfg(**kw):
    base = dict(proofs=2, concurrency=2, partitions=2, partition_workers=2,
                gpu_workers_per_device=2, gpu_threads=8, lock="split_async", seed=5)
    base.update(kw)
    return PipelineConfig(**base)


@pytest.mark.parametrize("lock", ["interlock", "split_async", "two_lock"])
def test_gpu_run_verifies_and_serializes_the_cuda_region(lock):
    from cuzklab.live import run
    from cuzklab.trace.schema import GPU_STAGES
    trace = run(_cfg(lock=lock), log2_constraints=K, backend="gpu", progress=False)
    assert not trace.failed, trace.meta["failure"]
    ver = trace.meta["live"]["verification"]
    assert ver["checked"] == ver["verified"] == 4
    s = trace.spans
    assert (s.loc[s["stage"].isin(GPU_STAGES), "gpu"] == 0).all()
    h2d = s[s["stage"] == "h2d"]
    assert len(h2d) == 4 and (h2d["bytes"] == 3 * 32 * 2**K).all()
    kernels = ("ntt_h", "batch_add", "tail_msm")
    g = s[s["stage"].isin(kernels if lock == "two_lock" else GPU_STAGES)]
    r = g.groupby(["proof", "partition"]).agg(a=("start", "min"), b=("end", "max")).sort_values("a")
    assert (r["a"].to_numpy()[1:] >= r["b"].to_numpy()[:-1] - 1e-6).all()
    assert trace.counter("vram_gib")["value"].max() > 0


def test_gpu_and_cpu_stand_in_make_the_same_proofs():
    from cuzklab.live import run
    cfg = _cfg(proofs=1, concurrency=1, lock="interlock")
    gpu = run(cfg, log2_constraints=K, backend="gpu", progress=False, verify=False)
    cpu = run(cfg, log2_constraints=K, backend="cpu", progress=False, verify=False)
    assert gpu.meta["live"]["proof_hex"] == cpu.meta["live"]["proof_hex"]
