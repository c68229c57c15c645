"""How a synthesis's one-thread steps share the cores (``synth.serial_share``).

``core`` (the default): the witness step and the MatVec's serial part keep a core of
their own, the witness step slowed by ``synth.witness_pool_slowdown`` while the b_g2_msm
pool is full. ``even``: when the runnable threads outnumber the cores the OS switches
every one of them out in turn, so such a step gets ``cores / runnable`` of a core,
whatever weight the pool's threads carry in how the pool and the syntheses split the
cores (a later witness step's wall grew x1.30 over the first wave's for x1.02 its
thread's CPU on the fifty-second to sixtieth jobs' W=0.25 rows, switched out
involuntarily far more often than in the first wave).
"""

from __future__ import annotations

import pytest

from cuzklab.errors import ProfileError
from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate

from .machine_runs import run_jobs


def _run(specs, pool_weight=0.5):
    """Run the jobs on a 16-core machine whose pool threads weigh ``pool_weight``."""
    return run_jobs(specs, pool_weight)


EVEN = {"cap": 1.0, "even_share": True}
POOL = (0, "pool", 1000.0, {"cap": 16.0})


def test_beside_a_full_pool_a_one_thread_step_gets_an_even_share():
    # alone, or with fewer runnable threads than cores: its own time
    assert _run({"w": (0, "synth", 1.0, EVEN)})["w"][1] == pytest.approx(1.0)
    assert _run({"w": (0, "synth", 1.0, EVEN),
                 "p": (0, "pool", 100.0, {"cap": 8.0})})["w"][1] == pytest.approx(1.0)
    # beside the pool's 16 threads: 17 runnable on 16 cores, 16 / 17 of a core; the pool's
    # weight (0.5) would have left it a whole one
    assert _run({"w": (0, "synth", 1.0, EVEN), "p": POOL})["w"][1] == pytest.approx(17 / 16)
    assert _run({"w": (0, "synth", 1.0, {"cap": 1.0}), "p": POOL})["w"][1] == pytest.approx(1.0)
    # beside the pool and seven more one-thread syntheses: 24 runnable, 2 / 3 of a core each
    specs = {"w": (0, "synth", 1.0, EVEN), "p": POOL,
             **{f"s{i}": (0, "synth", 5.0, {"cap": 1.0}) for i in range(7)}}
    assert _run(specs)["w"][1] == pytest.approx(24 / 16)
    # at most that: where the pool's weight leaves the syntheses less (weight 2: 12.8 cores
    # for the pool, 3.2 for eight threads), the step gets the weighted split's 0.4
    assert _run(specs, pool_weight=2.0)["w"][1] == pytest.approx(1 / 0.4)


def test_the_share_follows_the_runnable_threads_as_they_change():
    # the pool's job ends at 0.5 s: 16 / 17 of a core until then, a whole one after
    out = _run({"w": (0, "synth", 1.0, EVEN), "p": (0, "pool", 0.5 * 16, {"cap": 16.0})},
               pool_weight=1.0)
    assert out["p"][1] == pytest.approx(0.5 * 17 / 16)  # the pool's own 16 / 17 share
    done = out["p"][1] * 16 / 17  # the step's work done by then
    assert out["w"][1] == pytest.approx(out["p"][1] + (1.0 - done))


CFG = PipelineConfig(proofs=2, concurrency=2, partitions=4, partition_workers=4,
                     gpu_workers_per_device=1, gpu_threads=16, lock="interlock", seed=0)


def _steps(trace):
    """The first wave's and the later syntheses' mean witness steps."""
    steps = {(p, k): w for p, k, w, _ in trace.meta["synth_steps"]}
    syn = trace.spans[trace.spans["stage"] == "synth"]
    first = syn["start"] <= syn["start"].min() + 1e-9
    mean = lambda rows: sum(steps[(r.proof, r.partition)]  # noqa: E731
                            for r in rows.itertuples()) / len(rows)
    assert first.any() and (~first).any()
    return mean(syn[first]), mean(syn[~first])


def test_in_a_run_the_later_witness_steps_lose_part_of_their_core():
    prof = Profile.load("porep-live-2p20-h200")
    assert prof["synth"].get("matvec_pool")  # two steps: the witness is a job of its own
    assert "serial_share" not in prof["synth"]  # the default: a core of their own
    core = simulate(CFG, prof)
    assert _steps(core) == _steps(simulate(CFG, prof.replace(synth={"serial_share": "core"})))
    even = simulate(CFG, prof.replace(synth={"serial_share": "even"}))
    f_even, l_even = _steps(even)
    f_core, l_core = _steps(core)
    # the first wave runs four syntheses on sixteen cores, before any b_g2_msm call
    assert f_even == pytest.approx(f_core, rel=1e-6)
    # the later ones run beside the first wave's b_g2_msm calls on the pool's 16 threads
    assert l_even > 1.02 * l_core
    assert even.summary()["seconds_per_proof"] > core.summary()["seconds_per_proof"]


def test_the_even_share_leaves_the_pool_slowdown_out_and_core_keeps_it():
    prof = Profile.load("porep-live-2p20-h200")
    even = prof.replace(synth={"serial_share": "even"})
    slow = even.replace(synth={"witness_pool_slowdown": 3.0})
    assert _steps(simulate(CFG, slow)) == _steps(simulate(CFG, even))
    assert (_steps(simulate(CFG, prof.replace(synth={"witness_pool_slowdown": 3.0})))[1]
            > 1.05 * _steps(simulate(CFG, prof))[1])


def test_a_bad_serial_share_is_one_clear_error():
    with pytest.raises(ProfileError, match=r"synth\.serial_share must be 'core' or 'even', "
                                           r"got 'fair'"):
        Profile.load("porep-live-2p20-h200").replace(synth={"serial_share": "fair"})
