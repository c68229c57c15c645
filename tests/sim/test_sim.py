"""The daemon model: every lock strategy and admission rule, memory and failures."""


import pandas as pd
import pytest

from cuzklab.errors import ConfigError
from cuzklab.model import LOCKS, PipelineConfig, Profile
from cuzklab.sim import simulate
from cuzklab.trace import GPU_STAGES, Trace

SMALL = dict(proofs=3, concurrency=3)
PER_PARTITION = ("synth", "h2d", "ntt_h", "batch_add", "tail_msm", "b_g2_msm", "epilogue",
                 "prep_msm")


def _max_overlap(df: pd.DataFrame) -> int:
    ev = sorted([(t, 1) for t in df["start"]] + [(t, -1) for t in df["end"]],
                key=lambda x: (x[0], x[1]))
    cur = best = 0
    for _, d in ev:
        cur += d
        best = max(best, cur)
    return best


def test_default_run_completes_with_the_documented_shape():
    tr = simulate()
    s = tr.summary()
    assert s["proofs"] == 20 and s["failed"] == 0 and not s["oom"]
    assert 30 < s["seconds_per_proof"] < 50
    assert tr.source == "sim" and tr.meta["profile"] == "porep-32g"
    assert s["peak_rss_gib"] > Profile.load()["memory"]["srs_gib"]


def test_same_seed_same_trace_and_seed_matters():
    a = simulate(PipelineConfig(**SMALL, seed=3))
    b = simulate(PipelineConfig(**SMALL, seed=3))
    c = simulate(PipelineConfig(**SMALL, seed=4))
    pd.testing.assert_frame_equal(a.spans, b.spans)
    pd.testing.assert_frame_equal(a.counters, b.counters)
    assert not a.spans["end"].equals(c.spans["end"])


def test_accepts_dicts_and_overrides_and_rejects_other_types():
    tr = simulate({"proofs": 2, "concurrency": 1}, "porep-32g", lock="interlock")
    assert tr.meta["config"]["lock"] == "interlock" and tr.summary()["proofs"] == 2
    with pytest.raises(TypeError, match="config must be a PipelineConfig"):
        simulate(42)
    with pytest.raises(ConfigError, match="lock"):
        simulate(lock="nope")


@pytest.mark.parametrize("lock", LOCKS)
def test_every_lock_runs_every_partition_through_every_stage(lock):
    tr = simulate(PipelineConfig(**SMALL, lock=lock, gpu_workers_per_device=1
                                 if lock == "two_lock" else 2))
    assert not tr.failed, tr.meta.get("failure")
    s = tr.spans
    for stage in PER_PARTITION:
        counts = s[s["stage"] == stage].groupby(["proof", "partition"]).size()
        assert len(counts) == 30 and (counts == 1).all(), stage
    # order inside each partition: synthesis, then the GPU region, then the CPU tail
    first = s.groupby(["proof", "partition", "stage"])["start"].min().unstack()
    last = s.groupby(["proof", "partition", "stage"])["end"].max().unstack()
    assert (last["synth"] <= first["h2d"] + 1e-9).all()
    assert (last["h2d"] <= first["ntt_h"] + 1e-9).all()
    assert (last["ntt_h"] <= first["batch_add"] + 1e-9).all()
    assert (last["prep_msm"] <= first["batch_add"] + 1e-9).all()
    if lock == "split_async":  # b_g2_msm on the prep_msm thread, beside the kernels
        assert (last["prep_msm"] <= first["b_g2_msm"] + 1e-9).all()
        assert (last["tail_msm"] <= first["epilogue"] + 1e-9).all()
    else:
        assert (last["tail_msm"] <= first["b_g2_msm"] + 1e-9).all()
    assert (last["b_g2_msm"] <= first["epilogue"] + 1e-9).all()


@pytest.mark.parametrize("lock", ["wide_mutex", "interlock", "split_async", "monolithic"])
def test_the_cuda_region_is_serialized_per_gpu(lock):
    tr = simulate(PipelineConfig(**SMALL, lock=lock, gpu_workers_per_device=3))
    g = tr.spans[tr.spans["stage"].isin(GPU_STAGES)]
    # group each partition's region and check regions on the GPU never overlap
    reg = g.groupby(["proof", "partition"]).agg(start=("start", "min"), end=("end", "max"))
    assert _max_overlap(reg) == 1


def test_two_lock_overlaps_uploads_with_kernels_but_not_kernels():
    prof = Profile.load().replace(node={"vram_gib": 80.0})
    tr = simulate(PipelineConfig(**SMALL, lock="two_lock", gpu_workers_per_device=2), prof)
    s = tr.spans
    kern = s[s["stage"].isin(("ntt_h", "batch_add", "tail_msm"))]
    reg = kern.groupby(["proof", "partition"]).agg(start=("start", "min"), end=("end", "max"))
    assert _max_overlap(reg) == 1
    assert _max_overlap(s[s["stage"].isin(("h2d", "ntt_h", "batch_add", "tail_msm"))]) == 2


def test_two_lock_needs_vram_for_every_worker():
    tr = simulate(PipelineConfig(**SMALL, lock="two_lock", gpu_workers_per_device=2))
    assert tr.failed and tr.meta["failure"]["reason"] == "vram_oom"
    assert "16 GiB" in tr.meta["failure"]["message"] or "VRAM" in tr.meta["failure"]["message"]
    assert tr.summary()["proofs"] == 0


def test_split_async_finishes_in_finalizers_and_wide_mutex_holds_the_lock_longer():
    tr = simulate(PipelineConfig(**SMALL, lock="split_async"))
    bg2 = tr.stage("b_g2_msm")
    assert bg2["lane"].str.startswith("final.").all()
    inter = simulate(PipelineConfig(**SMALL, lock="interlock"))
    assert inter.stage("b_g2_msm")["lane"].str.endswith(".cpu").all()
    # GPU-bound (phase 8): b_g2_msm and the epilogue inside the lock cost throughput
    cfg = dict(proofs=6, concurrency=6, partition_workers=10)
    wide = simulate(PipelineConfig(**cfg, lock="wide_mutex"), "porep-32g@phase8").summary()
    narrow = simulate(PipelineConfig(**cfg, lock="interlock"), "porep-32g@phase8").summary()
    assert wide["seconds_per_proof"] > 1.1 * narrow["seconds_per_proof"]


def test_monolithic_synthesizes_a_proof_at_once_and_proves_it_in_one_pass():
    tr = simulate(PipelineConfig(proofs=2, concurrency=2, lock="monolithic"))
    syn = tr.stage("synth")
    starts = syn.groupby("proof")["start"].agg(["min", "max"])
    assert (starts["max"] - starts["min"] < 1e-9).all()
    q = tr.stage("gpu_queue")
    assert (q.groupby("proof")["end"].nunique() == 1).all()


def test_semaphore_caps_the_syntheses_in_flight():
    tr = simulate(PipelineConfig(proofs=4, concurrency=4, partition_workers=5))
    assert _max_overlap(tr.stage("synth")) == 5
    assert tr.stage("synth")["lane"].nunique() == 5


def test_budget_admission_keeps_reservations_within_the_budget():
    cfg = PipelineConfig(proofs=4, concurrency=4, partition_workers=20, admission="budget",
                         memory_gib=300.0, budget_gib=195.0)
    tr = simulate(cfg)
    assert not tr.failed
    used = tr.counter("budget_used_gib")["value"]
    assert used.max() <= cfg.effective_budget_gib() + 1e-6
    # 195 GiB budget - 69.7 GiB SRS+PCE leaves room for 8 reservations of 14 GiB
    assert _max_overlap(tr.stage("synth")) == 8


def test_budget_that_under_reserves_can_still_run_out_of_memory():
    # cuzk reserves 14 GiB a partition but synthesis peaks near 20 GiB (scratch,
    # fragmentation are not budgeted): a budget of RAM - 5 GiB can still OOM.
    tr = simulate(PipelineConfig(proofs=4, concurrency=4, partition_workers=20,
                                 admission="budget", memory_gib=200.0))
    assert tr.failed and tr.meta["failure"]["reason"] == "oom"


def test_budget_request_that_can_never_fit_is_a_recorded_deadlock():
    tr = simulate(PipelineConfig(**SMALL, admission="budget", memory_gib=100.0, budget_gib=80.0))
    assert tr.failed and tr.meta["failure"]["reason"] == "deadlock"
    assert "never fit" in tr.meta["failure"]["message"]


def test_permit_before_handoff_piles_up_synthesized_partitions():
    # A slow GPU (uploads at 2 GB/s) behind a one-slot channel: with the permit
    # released before the send, finished partitions wait holding their memory.
    cfg = dict(proofs=8, concurrency=8, partition_workers=12, gpu_workers_per_device=1,
               lock="interlock", gpu_threads=0)
    prof = Profile.load("porep-32g@phase12-prefix").replace(partition={"abc_upload_gbps": 2.0})
    held = simulate(PipelineConfig(**cfg, admission="semaphore"), prof).summary()
    prefix = simulate(PipelineConfig(**cfg, admission="semaphore_prefix"), prof).summary()
    assert prefix["peak_rss_gib"] > held["peak_rss_gib"] + 50


def test_out_of_memory_stops_the_run_and_records_why():
    tr = simulate(PipelineConfig(**SMALL, memory_gib=150.0))
    s = tr.summary()
    assert tr.failed and s["oom"] and s["failure_reason"] == "oom"
    assert "passed RAM" in tr.meta["failure"]["message"]
    assert s["bottleneck"]["resource"] == "host_memory"
    rss = tr.counter("rss_gib")["value"]
    assert rss.max() > 150.0
    assert s["proofs"] + s["failed"] == 3


def test_srs_larger_than_ram_fails_at_once():
    tr = simulate(PipelineConfig(**SMALL, memory_gib=60.0))
    assert tr.failed and tr.meta["failure"]["reason"] == "oom" and len(tr.spans) == 0


def test_memory_is_accounted_and_released():
    tr = simulate(PipelineConfig(**SMALL))
    rss = tr.counter("rss_gib")["value"].to_numpy()
    base = Profile.load()["memory"]["srs_gib"] + Profile.load()["memory"]["pce_gib"]
    assert rss.min() >= base - 1e-6 and rss[0] == pytest.approx(base)
    assert rss.max() > base + 16


def test_gpu_threads_set_b_g2_speed():
    fast = simulate(PipelineConfig(**SMALL, gpu_threads=0)).stage("b_g2_msm")
    slow = simulate(PipelineConfig(**SMALL, gpu_threads=32)).stage("b_g2_msm")
    assert (fast["end"] - fast["start"]).mean() < (slow["end"] - slow["start"]).mean()


def test_more_gpus_help_a_gpu_bound_node():
    cfg = dict(proofs=12, concurrency=12, lock="interlock")
    one = simulate(PipelineConfig(**cfg, gpus=1), "porep-32g@phase8").summary()
    two = simulate(PipelineConfig(**cfg, gpus=2), "porep-32g@phase8").summary()
    assert two["seconds_per_proof"] < one["seconds_per_proof"]
    assert one["bottleneck"]["resource"] == "gpu"
    assert two["bottleneck"]["resource"] != "gpu"   # a second GPU moves the bound to the CPU


def test_synthesis_threads_bound_synthesis():
    # ten syntheses ask ~2 threads each; a rayon pool of 8 holds them back
    few = simulate(PipelineConfig(**SMALL, synthesis_threads=8)).summary()
    all_ = simulate(PipelineConfig(**SMALL)).summary()
    assert few["seconds_per_proof"] > 1.5 * all_["seconds_per_proof"]


def test_witness_fraction_touches_a_b_c_last():
    # a/b/c written by the MatVec at the end of synthesis: less memory held while
    # the syntheses run, all of it by their end
    base = Profile.load("porep-32g")
    even = base.replace(synth={"witness_fraction": 0.0, "abc_touched": "as_written",
                               "scratch_held": "synthesis"})
    late = base.replace(synth={"witness_fraction": 0.75})
    cfg = PipelineConfig(proofs=1, concurrency=1, partition_workers=10)

    def rss_at(trace, t):
        c = trace.counters
        c = c[(c["name"] == "rss_gib") & (c["t"] <= t)]
        return float(c["value"].iloc[-1])
    a, b = simulate(cfg, even), simulate(cfg, late)
    half = 0.5 * float(a.spans.loc[a.spans["stage"] == "synth", "end"].min())
    assert rss_at(b, half) < rss_at(a, half) - 25  # ten syntheses, half way


def test_concurrency_one_runs_proofs_one_after_another():
    tr = simulate(PipelineConfig(proofs=3, concurrency=1))
    p = tr.proofs().sort_values("proof")
    assert (p["submitted"].to_numpy()[1:] >= p["completed"].to_numpy()[:-1] - 1e-9).all()


def test_trace_records_counters_and_slowdowns():
    tr = simulate(PipelineConfig(**SMALL))
    names = set(tr.counters["name"])
    assert {"rss_gib", "gpu_queue_depth", "ddr_gbps", "synth_running"} <= names
    sl = tr.spans["slowdown"].dropna()
    assert len(sl) and (sl >= 1 - 1e-9).all()
    assert isinstance(tr, Trace)
