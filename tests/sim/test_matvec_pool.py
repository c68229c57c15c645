"""Two-step syntheses: the witness on one thread, then the MatVec on a pool the MatVecs share."""

import pytest
import simpy

from cuzklab.errors import ProfileError
from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate
from cuzklab.sim.daemon import matvec_threads
from cuzklab.sim.machine import Machine


def _run(specs, **kw):
    env = simpy.Environment()
    args = dict(cores=16, ddr_gbps=1e4, synthesis_threads=16, pool_threads=16,
                age_priority=1.0)
    args.update(kw)
    m = Machine(env, **args)
    out = [None] * len(specs)

    def start(i, kind, work, extra):
        out[i] = yield m.run(kind, work, **extra)

    for i, (kind, work, extra) in enumerate(specs):
        env.process(start(i, kind, work, extra))
    env.run()
    return out  # in the order of specs


def test_jobs_of_a_group_share_its_pool_and_others_do_not():
    # two MatVecs asking 4 threads each share a pool of 4: 2 threads each, 8 s for 16
    # core-seconds; a one-thread job beside them keeps its core
    (s1, e1, _), (s2, e2, _), (s3, e3, _) = _run(
        [("synth", 16.0, dict(cap=4, group="matvec")),
         ("synth", 16.0, dict(cap=4, group="matvec")),
         ("synth", 4.0, dict(cap=1))], group_threads={"matvec": 4})
    assert e1 - s1 == pytest.approx(8.0) and e2 - s2 == pytest.approx(8.0)
    assert e3 - s3 == pytest.approx(4.0)
    # without the group they take 4 threads each: 4 s
    (s1, e1, _), _ = _run([("synth", 16.0, dict(cap=4))] * 2)
    assert e1 - s1 == pytest.approx(4.0)


def test_a_group_must_be_declared_and_only_syntheses_join_one():
    env = simpy.Environment()
    m = Machine(env, cores=4, ddr_gbps=10, synthesis_threads=4, pool_threads=4,
                age_priority=1.0, group_threads={"matvec": 2})
    with pytest.raises(ValueError, match="group must name one of"):
        m.run("synth", 1.0, cap=1, group="other")
    with pytest.raises(ValueError, match="group must name one of"):
        m.run("pool", 1.0, cap=1, group="matvec")


def _profile(mode):
    # no bandwidth limit, so only the threads decide the synthesis time
    return Profile.load("porep-live-2p20-h200").replace(
        synth={"matvec_pool": mode, "bw_gbps_per_thread": 0.0})


def test_matvec_threads_per_mode():
    prof = Profile.load("porep-live-2p20-h200")
    assert matvec_threads(prof.replace(synth={"matvec_pool": "rayon"}), 16, 8) == 16
    assert matvec_threads(prof.replace(synth={"matvec_pool": "per_worker"}), 16, 8) == 2
    assert matvec_threads(prof.replace(synth={"matvec_pool": "per_worker"}), 16, 32) == 1
    assert matvec_threads(Profile.load("porep-32g"), 96, 10) == 0  # one-job synthesis


def test_one_thread_matvecs_run_on_their_own_threads():
    # per_worker at pw = synthesis_threads: a one-thread native batch runs inline, on
    # the synthesis's own thread, so sixteen syntheses are not slowed by each other
    cfg = PipelineConfig(proofs=1, concurrency=1, partitions=16, partition_workers=16,
                         gpu_threads=16, synthesis_threads=16, memory_gib=64)
    prof = _profile("per_worker")
    work = prof["synth"]["work_core_s"]
    sp = simulate(cfg, prof).spans
    first = sp[(sp["stage"] == "synth")]
    assert float((first["end"] - first["start"]).max()) == pytest.approx(work, rel=1e-6)


def test_a_synthesis_alone_is_its_witness_then_its_matvec():
    cfg = PipelineConfig(proofs=1, concurrency=1, partitions=1, partition_workers=2,
                         gpu_threads=16, synthesis_threads=16, memory_gib=64)
    prof = _profile("per_worker")
    s = prof["synth"]
    w, work = s["witness_fraction"], s["work_core_s"]
    sp = simulate(cfg, prof).spans
    synth = sp[sp["stage"] == "synth"].iloc[0]
    # 8 MatVec threads (16 // pw) and nothing beside it
    assert synth["end"] - synth["start"] == pytest.approx(w * work + (1 - w) * work / 8, rel=1e-6)
    assert synth["slowdown"] == pytest.approx(1.0, rel=1e-6)


def test_concurrent_matvecs_on_one_small_pool_wait_for_each_other():
    # pw=8 on 16 threads: per_worker gives the eight MatVecs ONE pool of 2 threads,
    # rayon one pool of 16; the witness steps are the same one thread each
    cfg = PipelineConfig(proofs=2, concurrency=2, partitions=4, partition_workers=8,
                         gpu_threads=16, synthesis_threads=0, memory_gib=64)

    def mean_synth(mode):
        sp = simulate(cfg, _profile(mode)).spans
        return float((sp.loc[sp["stage"] == "synth", "end"]
                      - sp.loc[sp["stage"] == "synth", "start"]).mean())
    s = Profile.load("porep-live-2p20-h200")["synth"]
    w, work = s["witness_fraction"], s["work_core_s"]
    per, ray = mean_synth("per_worker"), mean_synth("rayon")
    # all eight start together: eight MatVecs of (1 - w) work on 2 threads
    assert per == pytest.approx(w * work + 8 * (1 - w) * work / 2, rel=0.02)
    assert ray < per - 1.0


def test_matvec_pool_value_is_checked():
    with pytest.raises(ProfileError, match="synth.matvec_pool must be 'rayon' or 'per_worker'"):
        Profile.load("porep-live-2p20-h200").replace(synth={"matvec_pool": "all"})


def test_one_matvec_takes_at_most_matvec_max_threads_of_the_pool():
    # a synthesis alone on a rayon pool of 16: its MatVec uses all 16 threads, or 4
    # with synth.matvec_max_threads = 4 (the pool's other threads stay free)
    cfg = PipelineConfig(proofs=1, concurrency=1, partitions=1, partition_workers=1,
                         gpu_threads=16, synthesis_threads=16, memory_gib=64)
    s = Profile.load("porep-live-2p20-h200")["synth"]
    w, work = s["witness_fraction"], s["work_core_s"]

    def alone(**extra):
        prof = _profile("rayon").replace(synth={"matvec_serial": 0.0, **extra})
        sp = simulate(cfg, prof).spans
        synth = sp[sp["stage"] == "synth"].iloc[0]
        return float(synth["end"] - synth["start"])
    assert alone() == pytest.approx(w * work + (1 - w) * work / 16, rel=1e-6)
    assert alone(matvec_max_threads=4) == pytest.approx(w * work + (1 - w) * work / 4, rel=1e-6)


def test_the_matvec_can_ask_its_own_bandwidth():
    # a synthesis alone on a node of 10 GB/s: with the synthesis's bandwidth keys
    # (20 GB/s a thread, fully memory-bound) both steps run at half speed; a MatVec
    # that is not memory-bound (matvec_mem_bound = 0) runs at full speed, and one that
    # asks no more than the node gives (matvec_bw_gbps_per_thread) as well
    cfg = PipelineConfig(proofs=1, concurrency=1, partitions=1, partition_workers=1,
                         gpu_threads=16, synthesis_threads=16, memory_gib=64)
    base = Profile.load("porep-live-2p20-h200")
    s = base["synth"]
    w, work = s["witness_fraction"], s["work_core_s"]

    def alone(**extra):
        prof = base.replace(node={"ddr_gbps": 10.0},
                            synth={"matvec_pool": "rayon", "matvec_serial": 0.0,
                                   "matvec_max_threads": 1, "bw_gbps_per_thread": 20.0,
                                   "mem_bound": 1.0, **extra})
        sp = simulate(cfg, prof).spans
        synth = sp[sp["stage"] == "synth"].iloc[0]
        return float(synth["end"] - synth["start"])
    assert alone() == pytest.approx(2 * work, rel=1e-6)
    assert alone(matvec_mem_bound=0.0) == pytest.approx(2 * w * work + (1 - w) * work, rel=1e-6)
    assert alone(matvec_bw_gbps_per_thread=10.0) == pytest.approx(
        2 * w * work + (1 - w) * work, rel=1e-6)


@pytest.mark.parametrize("key, value", [("matvec_max_threads", 0.5), ("matvec_mem_bound", 1.5),
                                        ("matvec_bw_gbps_per_thread", -1.0)])
def test_matvec_keys_are_checked(key, value):
    with pytest.raises(ProfileError, match=f"synth.{key} must be a number"):
        Profile.load("porep-live-2p20-h200").replace(synth={key: value})


def _matvec_spans(queue):
    # eight syntheses start together; their witness steps take no time, so the eight MatVecs
    # reach the pool of 16 at once
    cfg = PipelineConfig(proofs=2, concurrency=2, partitions=4, partition_workers=8,
                         gpu_threads=16, synthesis_threads=16, memory_gib=64)
    tiny = 1e-6  # the stages after synthesis take no time, so nothing else wants a core
    prof = _profile("rayon").replace(
        synth={"matvec_serial": 0.0, "witness_fraction": 0.0001, "matvec_queue": queue},
        node={"busy_slowdown": 0.0},
        prep_msm={"solo_s": tiny}, epilogue={"solo_s": tiny},
        b_g2_msm={"solo_s_at_all_cores": tiny, "solo_s_at_32": tiny},
        gpu={"ntt_h_s": tiny, "batch_add_s": tiny, "tail_msm_s": tiny})
    sp = simulate(cfg, prof).spans
    syn = sp[sp["stage"] == "synth"].sort_values("end")
    return prof["synth"]["work_core_s"], list(syn["end"] - syn["start"])


def test_fifo_matvecs_take_the_pool_one_after_another():
    # "fifo": each MatVec has the whole pool in its turn, so they end one MatVec apart;
    # "shared": they share it and end together, each after eight MatVecs' time
    work, fifo = _matvec_spans("fifo")
    one = work / 16
    assert fifo == pytest.approx([k * one for k in range(1, 9)], rel=0.01, abs=1e-3)
    _, shared = _matvec_spans("shared")
    assert shared == pytest.approx([8 * one] * 8, rel=0.01)
    # the same work in the same time: only the order differs
    assert max(fifo) == pytest.approx(max(shared), rel=0.01)


def test_matvec_queue_value_is_checked():
    with pytest.raises(ProfileError, match="synth.matvec_queue must be 'shared' or 'fifo'"):
        Profile.load("porep-live-2p20-h200").replace(synth={"matvec_queue": "lifo"})


def test_the_matvec_fit_models_the_queue_it_is_told():
    from cuzklab.calibrate.contention import matvec_times
    kw = dict(cores=16, threads=[], counts=[1, 4, 12], pool_threads=16, serial=0.0)
    fifo = matvec_times(fifo=True, **kw)["at_once"]
    shared = matvec_times(**kw)["at_once"]
    one = 1.0 / 16
    # k MatVecs at once: on average (k + 1) / 2 of one alone in turn, k when sharing
    assert fifo == pytest.approx([one, 2.5 * one, 6.5 * one], rel=1e-6)
    assert shared == pytest.approx([one, 4 * one, 12 * one], rel=1e-6)


def test_a_groups_threads_weigh_their_group_weight_against_the_pools():
    # a pool job of 8 threads (weight 0.5 each: 4) beside a long MatVec of 8 threads on 8
    # cores; the MatVec's threads weigh 1 each (8) by default, so the pool gets 8 x 4 / 12
    # cores; at the pool's weight (0.5) the two split the cores evenly
    def pool_end(other=("synth", 100.0, dict(cap=8, group="matvec")), **weights):
        (_, end, _), _ = _run([("pool", 8.0, dict(cap=8)), other],
                              cores=8, synthesis_threads=8, pool_threads=8, pool_weight=0.5,
                              group_threads={"matvec": 8}, **weights)
        return end
    assert pool_end() == pytest.approx(3.0, rel=1e-6)
    assert pool_end(group_weights={"matvec": 0.5}) == pytest.approx(2.0, rel=1e-6)
    assert pool_end(group_weights={"matvec": 2.0}) == pytest.approx(8.0 / (8 * 4 / 20), rel=1e-6)
    # a group weight of 1 is the default; jobs outside the group keep weight 1
    assert pool_end(group_weights={"matvec": 1.0}) == pytest.approx(3.0, rel=1e-6)
    assert pool_end(("synth", 100.0, dict(cap=8)),
                    group_weights={"matvec": 0.5}) == pytest.approx(3.0, rel=1e-6)


def test_group_weights_name_declared_groups_and_are_positive():
    env = simpy.Environment()
    for bad in ({"other": 1.0}, {"matvec": 0.0}):
        with pytest.raises(ValueError, match="group_weights must give weights > 0"):
            Machine(env, cores=4, ddr_gbps=10, synthesis_threads=4, pool_threads=4,
                    age_priority=1.0, group_threads={"matvec": 2}, group_weights=bad)


def test_the_matvec_weight_moves_a_pool_bound_live_run():
    # MatVec-only syntheses beside b_g2_msm calls on a 16-core host (the live executor's W=0
    # rows): the lighter the MatVec pool's threads, the longer its syntheses take
    cfg = PipelineConfig(proofs=6, concurrency=3, partitions=4, partition_workers=8,
                         gpu_threads=16, synthesis_threads=16, memory_gib=754.0)
    prof = Profile.load("porep-live-h200").replace(synth={"witness_fraction": 0.01})
    assert "matvec_weight" not in prof["synth"]

    def synth_s(p):
        return simulate(cfg, p).summary()["stage_s"]["synth"]
    s0 = synth_s(prof)
    assert synth_s(prof.replace(synth={"matvec_weight": 1.0})) == pytest.approx(s0)
    assert synth_s(prof.replace(synth={"matvec_weight": 0.25})) > 1.05 * s0
    assert synth_s(prof.replace(synth={"matvec_weight": 4.0})) < s0
    with pytest.raises(ProfileError, match="synth.matvec_weight must be a number"):
        prof.replace(synth={"matvec_weight": 0.0})
