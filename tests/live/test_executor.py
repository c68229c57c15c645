"""The live executor on CPU stand-in devices, at 2^4 rows per partition.

The runs are real: real threads, mutexes, channel and budget over the real
stages (NumPy twins). ``slow`` lengthens a stage by a sleep inside its span
where an overlap must be observable whatever the machine's speed; every
assertion reads the spans and counters the executor recorded.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from cuzklab.live import run
from cuzklab.model import PipelineConfig
from cuzklab.trace.schema import GPU_STAGES

K = 4
LOCKS = ("monolithic", "wide_mutex", "interlock", "two_lock", "split_async")
KERNELS = ("ntt_h", "batch_add", "tail_msm")


def _cfg(**kw) -> PipelineConfig:
    base = dict(proofs=2, concurrency=2, partitions=1, partition_workers=2,
                gpu_workers_per_device=2, gpu_threads=4, synthesis_threads=4,
                lock="interlock", seed=3)
    base.update(kw)
    return PipelineConfig(**base)


def _live(cfg, **kw):
    kw.setdefault("verify", False)
    kw.setdefault("progress", False)
    return run(cfg, log2_constraints=K, backend="cpu", **kw)


def _overlap(a0, a1, b0, b1, eps=1e-6) -> bool:
    return a0 < b1 - eps and b0 < a1 - eps


def _regions(trace, stages):
    """Return per (gpu, proof, partition) the [start, end] of its spans of ``stages``."""
    s = trace.spans[trace.spans["stage"].isin(stages)]
    g = s.groupby(["gpu", "proof", "partition"]).agg(a=("start", "min"), b=("end", "max"))
    return g.reset_index()


def _max_concurrent(spans) -> int:
    ev = sorted([(a, 1) for a in spans["start"]] + [(b, -1) for b in spans["end"]],
                key=lambda x: (x[0], x[1]))
    n = best = 0
    for _, d in ev:
        n += d
        best = max(best, n)
    return best


@pytest.fixture(scope="module")
def by_lock():
    """One run per lock strategy: 2 proofs x 1 partition, gw=2, b_g2_msm lengthened by 0.15 s."""
    return {lock: _live(_cfg(lock=lock, partitions=2 if lock == "monolithic" else 1,
                             partition_workers=2), slow={"b_g2_msm": 0.15})
            for lock in LOCKS}


@pytest.mark.parametrize("lock", LOCKS)
def test_cuda_regions_of_one_gpu_never_overlap(by_lock, lock):
    trace = by_lock[lock]
    assert not trace.failed, trace.meta["failure"]
    assert trace.summary()["proofs"] == 2
    # two_lock: the upload has its own mutex, the kernels the compute mutex
    groups = [("h2d",), KERNELS] if lock == "two_lock" else [GPU_STAGES]
    for stages in groups:
        r = _regions(trace, stages)
        assert len(r) == (4 if lock == "monolithic" else 2)
        for gpu, g in r.groupby("gpu"):
            g = g.sort_values("a")
            assert (g["a"].to_numpy()[1:] >= g["b"].to_numpy()[:-1] - 1e-6).all(), (lock, stages)


def _b_g2_overlaps_other_gpu_work(trace) -> bool:
    s = trace.spans
    gpu = _regions(trace, GPU_STAGES)
    for row in s[s["stage"] == "b_g2_msm"].itertuples():
        others = gpu[(gpu["proof"] != row.proof) | (gpu["partition"] != row.partition)]
        if any(_overlap(row.start, row.end, o.a, o.b) for o in others.itertuples()):
            return True
    return False


def test_split_async_b_g2_overlaps_the_next_partitions_gpu_work(by_lock):
    trace = by_lock["split_async"]
    assert _b_g2_overlaps_other_gpu_work(trace)
    assert trace.spans.loc[trace.spans["stage"] == "b_g2_msm", "lane"].str.startswith("final.").all()


def test_wide_mutex_keeps_b_g2_inside_the_mutex(by_lock):
    trace = by_lock["wide_mutex"]
    assert not _b_g2_overlaps_other_gpu_work(trace)
    # and the mutex covers prep_msm through the epilogue: no partition's GPU work starts
    # before the previous holder's epilogue ended
    s = trace.spans
    epi = s[s["stage"] == "epilogue"].sort_values("end")
    first_gpu = _regions(trace, GPU_STAGES).sort_values("a")
    assert first_gpu["a"].iloc[1] >= epi["end"].iloc[0] - 1e-6


def test_monolithic_synthesizes_a_whole_proof_then_one_gpu_pass(by_lock):
    s = by_lock["monolithic"].spans
    for proof, g in s.groupby("proof"):
        synth_end = g.loc[g["stage"] == "synth", "end"].max()
        assert g.loc[g["stage"] == "h2d", "start"].min() >= synth_end - 1e-6
        assert (g.loc[g["stage"] == "synth", "lane"].nunique()) == 2


def test_spans_use_the_models_lanes_and_carry_the_gpu(by_lock):
    s = by_lock["interlock"].spans
    lanes = set(s["lane"])
    assert {"admission", "gpu_queue"} <= lanes
    assert any(x.startswith("synth.") for x in lanes)
    assert any(x.endswith(".cpu") and x.startswith("gpu0.w") for x in lanes)
    assert (s.loc[s["stage"].isin(GPU_STAGES), "gpu"] == 0).all()
    assert (s.loc[s["stage"].isin(GPU_STAGES), "lane"].str.match(r"^gpu0\.w[01]$")).all()


def test_admission_bounds_the_partitions_being_synthesized():
    cfg = _cfg(proofs=2, concurrency=2, partitions=2, partition_workers=2, gpu_workers_per_device=1)
    trace = _live(cfg, slow={"synth": 0.15})
    synth = trace.spans[trace.spans["stage"] == "synth"]
    assert len(synth) == 4
    assert _max_concurrent(synth) == 2


def _max_waiting(trace) -> int:
    """Most synthesized partitions at once that no GPU worker has taken yet."""
    s = trace.spans
    synth_end = s[s["stage"] == "synth"].groupby(["proof", "partition"])["end"].max()
    taken = s[s["stage"] == "gpu_queue"].groupby(["proof", "partition"])["end"].max()
    iv = [(synth_end[k], taken[k]) for k in synth_end.index]
    return _max_concurrent({"start": [a for a, _ in iv], "end": [b for _, b in iv]})


def test_semaphore_prefix_lets_more_finished_partitions_pile_up():
    base = _cfg(proofs=1, concurrency=1, partitions=4, partition_workers=1,
                gpu_workers_per_device=1, lock="interlock")
    held = _live(base.replace(admission="semaphore"))
    dropped = _live(base.replace(admission="semaphore_prefix"))
    # semaphore: the channel (capacity max(1, pw) = 1) plus the one worker blocked on it
    assert _max_waiting(held) <= 2
    assert _max_waiting(dropped) > _max_waiting(held)


def test_budget_admission_bounds_memory_and_releases_everything():
    work_bytes = None
    from cuzklab.live import workload
    w = workload(K, 3, "cpu")
    work_bytes = w.partition_bytes
    budget_gib = (w.key_bytes + 1.5 * work_bytes) / 2**30   # room for one partition at a time
    trace = _live(_cfg(proofs=2, partitions=1, partition_workers=2, admission="budget",
                       budget_gib=budget_gib, memory_gib=64.0), slow={"synth": 0.1})
    assert not trace.failed
    synth = trace.spans[trace.spans["stage"] == "synth"]
    assert _max_concurrent(synth) == 1
    used = trace.counter("budget_used_gib")["value"].to_numpy()
    assert used.max() <= budget_gib + 1e-12
    assert used[-1] == pytest.approx(w.key_bytes / 2**30)


def test_a_reservation_larger_than_the_budget_is_an_error_before_the_run():
    from cuzklab.errors import ConfigError
    with pytest.raises(ConfigError, match="budget_gib"):
        _live(_cfg(admission="budget", budget_gib=1e-9, memory_gib=64.0))


def test_every_proof_verifies_and_runs_repeat_with_one_seed():
    cfg = _cfg(proofs=2, partitions=1, lock="split_async")
    a = _live(cfg, verify=True)
    b = _live(cfg)
    ver = a.meta["live"]["verification"]
    assert ver["checked"] == ver["verified"] == 2
    assert ver["proofs_checked"] == ver["proofs_verified"] == 2
    assert a.meta["live"]["proof_hex"] == b.meta["live"]["proof_hex"]
    assert len(set(a.meta["live"]["proof_hex"].values())) == 2  # blinding differs per partition

    def key(t):
        s = t.spans[t.spans["stage"] != "barrier_wait"]
        return sorted(zip(s["proof"], s["partition"], s["stage"]))
    assert key(a) == key(b)


def test_multi_gpu_stand_ins_keep_per_device_exclusivity_and_one_budget():
    from cuzklab.live import workload
    w = workload(K, 3, "cpu")
    budget_gib = (w.key_bytes + 2.5 * w.partition_bytes) / 2**30  # two partitions at once
    cfg = _cfg(proofs=2, concurrency=2, partitions=2, gpus=2, gpu_workers_per_device=1,
               partition_workers=3, admission="budget", budget_gib=budget_gib, memory_gib=64.0)
    trace = _live(cfg, slow={"synth": 0.05})
    assert not trace.failed, trace.meta["failure"]
    r = _regions(trace, GPU_STAGES)
    assert set(r["gpu"]) == {0, 1}
    for gpu, g in r.groupby("gpu"):
        g = g.sort_values("a")
        assert (g["a"].to_numpy()[1:] >= g["b"].to_numpy()[:-1] - 1e-6).all()
    s = trace.spans
    assert set(s.loc[s["gpu"] == 1, "lane"].str.slice(0, 4)) == {"gpu1"}
    used = trace.counter("budget_used_gib")["value"]
    assert used.max() <= budget_gib + 1e-12
    assert _max_concurrent(s[s["stage"] == "synth"]) <= 2
    names = set(trace.counters["name"])
    assert {"vram_gib.gpu0", "vram_gib.gpu1", "rss_gib", "gpu_queue_depth"} <= names
    # Perfetto: one track group (process) per GPU, its memory counter inside it
    events = trace.to_perfetto()["traceEvents"]
    pids = {e["args"]["name"]: e["pid"] for e in events if e.get("name") == "process_name"}
    assert {"gpu0", "gpu1"} <= set(pids)
    vram = [e for e in events if e.get("ph") == "C" and e["name"] == "vram_gib"]
    assert {e["pid"] for e in vram} >= {pids["gpu0"], pids["gpu1"]}


def test_memory_guard_stops_the_run_with_oom_and_keeps_the_trace():
    threads = threading.active_count()
    trace = _live(_cfg(memory_gib=0.01))
    assert trace.failed and trace.meta["failure"]["reason"] == "oom"
    assert "memory_gib" in trace.meta["failure"]["message"]
    assert trace.summary()["oom"] is True
    assert len(trace.counter("rss_gib"))
    assert threading.active_count() == threads


def test_memory_guard_counts_partitions_admitted_but_not_yet_allocated():
    from cuzklab.live.memory import GIB, MemoryGuard
    fake = [GIB]
    guard = MemoryGuard(1.0 + 1.5 * 1000 / GIB, rss=lambda: fake[0], available=lambda: 100 * GIB)
    assert guard.admit(1000) is None
    why = guard.admit(1000)             # the first is admitted but not yet in the RSS
    assert why and "memory_gib" in why
    guard.allocated(1000)
    fake[0] += 1000
    assert guard.admit(1000) is not None   # now it is in the RSS
    assert guard.over(2 * GIB) and guard.over(GIB) is None


def test_ctrl_c_gives_a_partial_trace_marked_interrupted():
    threads = threading.active_count()

    def interrupt(done, total):
        if done >= 1:
            raise KeyboardInterrupt
    trace = _live(_cfg(proofs=3, concurrency=1), progress=interrupt)
    assert trace.failed and trace.meta["failure"]["reason"] == "interrupted"
    proofs = trace.proofs()
    assert (proofs["status"] == "ok").sum() >= 1 and (proofs["status"] != "ok").any()
    assert len(trace.spans) and threading.active_count() == threads
    assert trace.summary()["failure_reason"] == "interrupted"


def test_bad_arguments_fail_before_any_work():
    from cuzklab.errors import ConfigError
    with pytest.raises(ConfigError, match="log2_constraints"):
        run(_cfg(), log2_constraints=3, backend="cpu")
    with pytest.raises(ConfigError, match="backend"):
        run(_cfg(), log2_constraints=K, backend="tpu")
    with pytest.raises(ConfigError, match="slow"):
        run(_cfg(), log2_constraints=K, backend="cpu", slow={"warp": 1.0})


def test_overhead_is_the_partition_time_no_span_covers():
    from cuzklab.live.report import overhead
    from cuzklab.trace import TraceBuilder
    tb = TraceBuilder(source="live")
    tb.span(0, 0, "queue", "admission", 0.0, 1.0)
    tb.span(0, 0, "synth", "synth.0", 1.5, 3.0)
    tb.span(0, 0, "epilogue", "gpu0.w0.cpu", 3.0, 4.0)
    o = overhead(tb.build())
    assert o["overhead_fraction"] == pytest.approx(0.5 / 4.0)
    assert o["partitions"] == 1
    assert np.isclose(o["overhead_s_per_partition"], 0.5)


def test_the_matvecs_of_all_syntheses_share_one_pool_of_synthesis_threads(monkeypatch):
    """As cuzk's syntheses share rayon's pool: one pool of synthesis_threads, not one per worker."""
    import cuzklab.native.synthesis as ns
    calls = []
    real = ns.matvecs_into

    def spy(*args, threads=1, pool=None, **kw):
        calls.append((pool, threads))
        return real(*args, threads=threads, pool=pool, **kw)

    monkeypatch.setattr(ns, "matvecs_into", spy)
    trace = _live(_cfg(partition_workers=2, synthesis_threads=4, partitions=2))
    assert not trace.meta.get("failed")
    pools = {id(p) for p, _ in calls}
    assert calls and len(pools) == 1
    pool, threads = calls[0]
    assert pool is not None and pool.threads == 4 and threads == 4


def test_syntheses_write_into_reused_pinned_buffers_checked_out_as_they_start(monkeypatch):
    # cuzk's PinnedPool on CPU stand-ins: host memory in place of cudaHostAlloc
    import cuzklab.live.executor as E
    from cuzklab.live.devices import PinnedPool
    pools = []

    class HostPool(PinnedPool):
        def __init__(self, backend, n):
            super().__init__(backend, n, alloc=bytearray)
            pools.append(self)
    monkeypatch.setattr(E, "PinnedPool", HostPool)
    cfg = _cfg(proofs=3, concurrency=1, partitions=2, partition_workers=1,
               gpu_workers_per_device=1)
    tr = _live(cfg, verify=True, pin_ahead=False)
    assert not tr.failed, tr.meta["failure"]
    ver = tr.meta["live"]["verification"]
    assert ver["checked"] == ver["verified"] == 6          # a, b, c came from the pool
    stats = tr.meta["live"]["pinned"]
    assert stats == dict(pools[0].stats(), ahead=0)
    # six syntheses, one worker: a buffer comes back with each upload and is used again
    assert 1 <= stats["buffers"] < 6
    assert stats["gib"] == pytest.approx(stats["buffers"] * 3 * 32 * 2**K / 2**30)
    assert len(pools[0]._free) == stats["buffers"]         # every buffer went back
    # pinned ahead: the two partitions of the one proof in flight hold at most two buffers,
    # both pinned before the clock started, none during the run
    warm = _live(cfg, verify=False)
    assert warm.meta["live"]["pinned"]["ahead"] == warm.meta["live"]["pinned"]["buffers"] == 2


def test_pinning_ahead_covers_what_a_configuration_can_hold():
    from cuzklab.live import workload
    from cuzklab.live.devices import make_devices
    from cuzklab.live.executor import LiveRun

    def needed(**kw):
        cfg = _cfg(**kw)
        live = LiveRun(cfg, workload(K, 0, "cpu", 0.0), make_devices(cfg.gpus, "cpu"),
                       backend="cpu", channel_capacity=max(1, cfg.partition_workers))
        return live.pinned_needed()
    # synthesizing, in the channel, uploading: 4 + 4 + 2 of the 3 x 4 partitions in flight
    assert needed(proofs=3, concurrency=3, partitions=4, partition_workers=4) == 10
    assert needed(proofs=3, concurrency=3, partitions=4, partition_workers=12) == 12
    assert needed(proofs=3, concurrency=3, partitions=4, partition_workers=2,
                  admission="semaphore_prefix") == 12    # finished partitions pile up
    with pytest.raises(ValueError, match="pin_ahead"):
        _live(_cfg(), pin_ahead="yes")


def test_a_pool_without_an_allocator_is_a_stand_in_that_pins_nothing():
    from cuzklab.live.devices import PinnedPool
    pool = PinnedPool("cpu", 16)
    assert pool.checkout() is None
    pool.give(None)
    assert pool.stats() == {"buffers": 0, "gib": 0.0, "pin_s": 0.0}
    host = PinnedPool("cpu", 16, alloc=bytearray)
    a = host.checkout()
    assert [v.shape for v in a] == [(16, 8)] * 3 and all(v.flags.writeable for v in a)
    host.give(a)
    assert host.checkout() is a and host.stats()["buffers"] == 1   # reused, not pinned again
    assert host.checkout() is not a and host.stats()["buffers"] == 2


def test_the_prep_output_move_is_timed_inside_batch_add(monkeypatch):
    """Moving prep_msm's output to the device runs under the GPU mutex: it is batch_add's
    first step, inside its span, so the region holds the GPU for no unnamed time."""
    import time

    from cuzklab.live import work as W
    real = W.device_prep

    def slow_move(prep_out, backend):
        time.sleep(0.05)
        return real(prep_out, backend)

    monkeypatch.setattr(W, "device_prep", slow_move)
    trace = _live(_cfg(lock="interlock", gpu_workers_per_device=1))
    assert not trace.meta.get("failed")
    s = trace.spans
    adds = s[s["stage"] == "batch_add"]
    assert len(adds) == 2 and ((adds["end"] - adds["start"]) >= 0.05).all()
    # on the worker's lane, batch_add starts where the stage before it ended
    for (_, _), g in s[s["lane"].str.fullmatch(r"gpu\d+\.w\d+")].groupby(["proof", "partition"]):
        g = g.sort_values("start")
        before = g[g["stage"].isin(["ntt_h", "barrier_wait"])]["end"].max()
        start = g[g["stage"] == "batch_add"]["start"].iloc[0]
        assert 0 <= start - before < 0.02
