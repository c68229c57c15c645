"""The processor-sharing machine: solo times, fair shares and slowdowns."""

import pytest
import simpy

from cuzklab.sim.machine import Machine, waterfill


def test_waterfill_is_max_min_fair_with_caps():
    assert waterfill(10, [1, 100, 100]) == pytest.approx([1, 4.5, 4.5])
    assert waterfill(10, [2, 2]) == pytest.approx([2, 2])          # capacity left over
    assert waterfill(0, [1, 2]) == [0, 0]
    assert waterfill(5, []) == []
    w = waterfill(12, [100, 100], weights=[2, 1])
    assert w == pytest.approx([8, 4])
    assert sum(waterfill(96, [30, 30, 30, 30, 30])) == pytest.approx(96)


def _machine(env, **kw):
    args = dict(cores=96, ddr_gbps=100.0, synthesis_threads=96, pool_threads=32,
                age_priority=1.0)
    args.update(kw)
    return Machine(env, **args)


def _run_jobs(specs, **kw):
    env = simpy.Environment()
    m = _machine(env, **kw)
    results = []

    def start(at, kind, work, extra):
        yield env.timeout(at)
        results.append((yield m.run(kind, work, **extra)))

    for at, kind, work, extra in specs:
        env.process(start(at, kind, work, extra))
    env.run()
    return results


def test_a_stage_alone_takes_its_solo_time():
    (start, end, slow), = _run_jobs([(0, "synth", 120.0, dict(cap=12))])
    assert end - start == pytest.approx(10.0) and slow == pytest.approx(1.0)
    (start, end, slow), = _run_jobs([(0, "pool", 32.0, dict(cap=32))])
    assert end - start == pytest.approx(1.0) and slow == pytest.approx(1.0)


def test_n_bandwidth_bound_stages_each_take_n_times_as_long():
    # Each asks 100 GB/s of a 100 GB/s node and is fully memory-bound.
    for n in (1, 2, 4):
        res = _run_jobs([(0, "dma", 50.0, dict(cap=100.0, mem_bound=1.0))] * n)
        for start, end, slow in res:
            assert end - start == pytest.approx(0.5 * n)
            assert slow == pytest.approx(float(n))


def test_syntheses_share_the_pool_and_record_their_slowdown():
    # 10 syntheses that could each use 12 threads share 96: 9.6 each.
    res = _run_jobs([(0, "synth", 120.0, dict(cap=12))] * 10)
    for start, end, slow in res:
        assert end - start == pytest.approx(12.5)
        assert slow == pytest.approx(1.25)


def test_rates_change_when_a_job_ends():
    # Two syntheses capped at 96 share the cores; when the short one ends the
    # long one speeds up: 96 core-s at 48 threads for 2 s, then the rest alone.
    res = _run_jobs([(0, "synth", 96.0, dict(cap=96)), (0, "synth", 288.0, dict(cap=96))])
    (s1, e1, _), (s2, e2, _) = sorted(res, key=lambda r: r[1])
    assert e1 == pytest.approx(2.0)
    assert e2 == pytest.approx(2.0 + (288 - 96) / 96)


def test_memory_bound_share_below_demand_slows_in_proportion():
    # Alone, a job asking 200 GB/s of a 100 GB/s node with mem_bound 0.5 runs at
    # 1 / (0.5 + 0.5 * 2) = 2/3 speed.
    (start, end, slow), = _run_jobs([(0, "single", 1.0, dict(cap=1, bw_per_thread=200.0,
                                                             mem_bound=0.5))])
    assert end - start == pytest.approx(1.5)


def test_older_syntheses_go_first_with_age_priority():
    res = _run_jobs([(0, "synth", 96.0, dict(cap=96)), (0.001, "synth", 96.0, dict(cap=96))],
                    age_priority=0.25)
    ends = sorted(r[1] for r in res)
    assert ends[0] < 1.4 < ends[1]


def test_unknown_kind_is_rejected():
    env = simpy.Environment()
    with pytest.raises(ValueError, match="kind must be one of"):
        _machine(env).run("gpu", 1.0, cap=1)


def test_a_busy_machine_runs_each_thread_slower_relative_to_its_solo_run():
    busy = dict(cores=16, synthesis_threads=16, pool_threads=16, busy_slowdown=0.2, busy_knee=5)
    # one one-thread job alone: its solo time
    (s, e, slow), = _run_jobs([(0, "synth", 1.0, dict(cap=1))], **busy)
    assert e - s == pytest.approx(1.0) and slow == pytest.approx(1.0)
    # three at once: 2 of the knee's 4 steps, 10 % slower each; five or more: 20 %
    for n, factor in ((3, 1.1), (5, 1.2), (12, 1.2)):
        for s, e, slow in _run_jobs([(0, "synth", 1.0, dict(cap=1))] * n, **busy):
            assert e - s == pytest.approx(factor) and slow == pytest.approx(factor)
    # a pool job measured on 16 threads keeps its solo time alone (its own threads are busy)
    (s, e, slow), = _run_jobs([(0, "pool", 16.0, dict(cap=16))], **busy)
    assert e - s == pytest.approx(1.0)
    # off by default: three at once run at full speed
    for s, e, slow in _run_jobs([(0, "synth", 1.0, dict(cap=1))] * 3, cores=16):
        assert e - s == pytest.approx(1.0)


def test_the_busy_curve_is_fitted_from_syntheses_at_once():
    from cuzklab.calibrate.contention import fit_synth_sharing, synth_slowdowns
    from cuzklab.model import Profile
    prof = Profile.load("porep-32g").replace(node={"ddr_gbps": 100.0})
    counts = [1, 2, 4, 8, 16]
    made = synth_slowdowns(prof, counts, cores=16, bw_per_thread=0.0, mem_bound=0.0,
                           busy_slowdown=0.15, busy_knee=4)
    # one synthesis alone measured 30 % slow: the host's spread, which the fit ignores
    rows = [{"syntheses": k, "slowdown": x * (1.3 if k == 1 else 1.0)}
            for k, x in zip(counts, made)]
    fit = fit_synth_sharing(prof, {"logical_cores": 16, "rows": rows})
    assert fit["busy_slowdown"] == pytest.approx(0.15) and fit["busy_knee"] == 4
    assert fit["cores"] == 16 and fit["rms_log_error"] < 1e-6


def test_busy_slowdown_moves_a_simulation_and_is_checked():
    from cuzklab.errors import ProfileError
    from cuzklab.model import PipelineConfig, Profile
    from cuzklab.sim import simulate
    prof = Profile.load("porep-32g")
    cfg = PipelineConfig(proofs=4, concurrency=4)
    base = simulate(cfg, prof).summary()["seconds_per_proof"]
    slow = simulate(cfg, prof.replace(node={"busy_slowdown": 0.3, "busy_knee": 8})).summary()
    assert slow["seconds_per_proof"] > 1.05 * base
    with pytest.raises(ProfileError, match="busy_slowdown"):
        prof.replace(node={"busy_slowdown": -1})
    with pytest.raises(ProfileError, match="busy_knee"):
        prof.replace(node={"busy_knee": "4"})


def test_working_sets_that_stop_fitting_in_the_cache_slow_their_jobs():
    # cache 1 GiB; each job gathers from 0.4 GiB and runs 2x slower when all of it misses
    kw = dict(cap=1, ws_gib=0.4, miss_penalty=1.0)
    (s, e, _), = _run_jobs([(0, "synth", 1.0, kw)], cores=8, llc_gib=1.0)
    assert e - s == pytest.approx(1.0)  # alone it fits
    for s, e, _ in _run_jobs([(0, "synth", 1.0, kw)] * 2, cores=8, llc_gib=1.0):
        assert e - s == pytest.approx(1.0)  # 0.8 GiB together: still fits
    # four: 1.6 GiB, 37.5 % misses -> 1.375x
    for s, e, slow in _run_jobs([(0, "synth", 1.0, kw)] * 4, cores=8, llc_gib=1.0):
        assert e - s == pytest.approx(1.375) and slow == pytest.approx(1.375)
    # relative to the job alone: a working set that never fits does not change
    big = dict(cap=1, ws_gib=40.0, miss_penalty=1.0)
    alone = _run_jobs([(0, "synth", 1.0, big)], cores=8, llc_gib=1.0)[0]
    four = _run_jobs([(0, "synth", 1.0, big)] * 4, cores=8, llc_gib=1.0)
    assert all(e - s == pytest.approx(1.0, rel=0.02) for s, e, _ in four)  # 97.5 % -> 99.4 %
    assert alone[1] - alone[0] == pytest.approx(1.0)
    # off without a cache size, and jobs without a working set are not touched
    for s, e, _ in _run_jobs([(0, "synth", 1.0, kw)] * 4, cores=8):
        assert e - s == pytest.approx(1.0)
    res = _run_jobs([(0, "synth", 1.0, kw)] * 4 + [(0, "synth", 1.0, dict(cap=1))],
                    cores=8, llc_gib=1.0)
    durations = sorted(e - s for s, e, _ in res)
    assert durations[0] == pytest.approx(1.0)
    assert durations[1:] == pytest.approx([1.375] * 4)


def test_a_pool_job_beside_syntheses_runs_slower_by_its_neighbour_slowdown():
    # 96 cores, a pool job on 32 threads and 8 one-thread syntheses: 40 runnable threads,
    # so the cores are not shared and only the neighbour slowdown acts: 1 + k * 8 / 96
    k = 0.6
    syn = [(0, "synth", 1e3, dict(cap=1))] * 8
    (s, e, slow), *_ = _run_jobs([(0, "pool", 32.0, dict(cap=32, neighbour_slowdown=k))] + syn)
    assert e - s == pytest.approx(1 + k * 8 / 96) and slow == pytest.approx(1 + k * 8 / 96)
    # alone it keeps its solo time; without the key the syntheses change nothing
    (s, e, _), = _run_jobs([(0, "pool", 32.0, dict(cap=32, neighbour_slowdown=k))])
    assert e - s == pytest.approx(1.0)
    (s, e, _), *_ = _run_jobs([(0, "pool", 32.0, dict(cap=32))] + syn)
    assert e - s == pytest.approx(1.0)
    # only pool jobs take it: a synthesis given one runs at its own speed
    (s, e, _), *_ = _run_jobs([(0, "synth", 1.0, dict(cap=1, neighbour_slowdown=k))] + syn)
    assert e - s == pytest.approx(1.0)


def test_a_b_g2_call_at_its_pool_width_keeps_its_time_alone_and_leaves_cores_free():
    from cuzklab.model import Profile
    prof = Profile.load("porep-live-2p20-h200").replace(
        b_g2_msm={"pool_core_s": 1.6, "serial_s": 0.02})
    ser, work, width = prof.b_g2_pool_step(16)
    assert (ser, work, width) == (0.02, 1.6, 16.0)  # no width: the whole pool
    narrow = prof.replace(b_g2_msm={"pool_width": 14.0})
    ser, work, width = narrow.b_g2_pool_step(16)
    assert ser == 0.02 and width == 14.0 and work / width == pytest.approx(1.6 / 16)
    assert narrow.b_g2_pool_step(8)[2] == 8.0  # never wider than the pool
    # two one-thread syntheses beside it take the two idle cores: the call keeps its time
    syn = [(0, "synth", 1e3, dict(cap=1))] * 2
    (s, e, _), *_ = _run_jobs([(0, "pool", work, dict(cap=width))] + syn, cores=16,
                              synthesis_threads=16, pool_threads=16)
    assert e - s == pytest.approx(0.1)
