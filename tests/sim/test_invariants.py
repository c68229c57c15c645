"""Properties every simulated run keeps, over random configurations (hypothesis)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuzklab.model import ADMISSIONS, LOCKS, PipelineConfig
from cuzklab.sim import simulate
from cuzklab.trace import GPU_STAGES

configs = st.builds(
    lambda proofs, extra, partitions, pw, gw, gpus, lock, admission, gt, seed: dict(
        proofs=proofs, concurrency=min(proofs, 1 + extra), partitions=partitions,
        partition_workers=pw, gpu_workers_per_device=gw if lock != "two_lock" else 1,
        gpus=gpus, lock=lock, admission=admission, gpu_threads=gt, seed=seed),
    proofs=st.integers(1, 4), extra=st.integers(0, 3), partitions=st.integers(1, 4),
    pw=st.integers(1, 8), gw=st.integers(1, 3), gpus=st.integers(1, 2),
    lock=st.sampled_from(LOCKS), admission=st.sampled_from(ADMISSIONS),
    gt=st.sampled_from([0, 8, 32]), seed=st.integers(0, 2**16))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs)
def test_every_run_finishes_or_fails_with_a_reason(cfg):
    tr = simulate(PipelineConfig(**cfg))
    s = tr.summary()
    if tr.failed:
        assert tr.meta["failure"]["reason"] in ("oom", "vram_oom", "deadlock")
        return
    # every proof completes, and every partition passes each GPU stage once
    assert s["proofs"] == cfg["proofs"] and s["failed"] == 0
    sp = tr.spans
    for stage in ("synth", "ntt_h", "batch_add", "tail_msm", "b_g2_msm", "epilogue"):
        n = sp[sp["stage"] == stage].groupby(["proof", "partition"]).size()
        assert len(n) == cfg["proofs"] * cfg["partitions"] and (n == 1).all(), stage
    # spans are well formed and slowdowns are never below 1
    assert (sp["end"] >= sp["start"]).all() and (sp["start"] >= 0).all()
    assert (sp["slowdown"].dropna() >= 1 - 1e-9).all()
    # at most partition_workers syntheses at a time (monolithic: whole proofs)
    if cfg["lock"] != "monolithic":
        ev = sorted([(t, 1) for t in sp.loc[sp["stage"] == "synth", "start"]]
                    + [(t, -1) for t in sp.loc[sp["stage"] == "synth", "end"]],
                    key=lambda x: (x[0], x[1]))
        cur = peak = 0
        for _, d in ev:
            cur += d
            peak = max(peak, cur)
        assert peak <= cfg["partition_workers"]
    # each GPU's kernels never overlap (the CUDA region is serialized)
    k = sp[sp["stage"].isin([g for g in GPU_STAGES if g != "h2d"])]
    for _, g in k.groupby("gpu"):
        g = g.sort_values("start")
        assert (g["start"].to_numpy()[1:] >= g["end"].to_numpy()[:-1] - 1e-9).all()
    # memory is accounted: RSS never below SRS + PCE, never above RAM
    rss = tr.counter("rss_gib")["value"]
    assert rss.min() >= 69.0 and rss.max() <= cfg.get("memory_gib", 754.0)


@settings(max_examples=10, deadline=None)
@given(cfg=configs)
def test_same_seed_same_summary(cfg):
    a = simulate(PipelineConfig(**cfg)).summary()
    b = simulate(PipelineConfig(**cfg)).summary()
    assert a == b
