"""prep_msm on the b_g2_msm pool's queue (``prep_msm.queue = "pool"``), as cuzk runs it."""

from __future__ import annotations

import pytest

from cuzklab.errors import ProfileError
from cuzklab.model import PipelineConfig, Profile
from cuzklab.sim import simulate

LIVE = Profile.load("porep-live-2p20-h200")


def _queued(profile: Profile, queue: str) -> Profile:
    """``profile`` with its b_g2_msm calls on a first-in, first-out pool and prep_msm's
    queue as given."""
    b = profile["b_g2_msm"]
    return profile.replace(b_g2_msm={"pool_core_s": 16 * b["solo_s_at_all_cores"],
                                     "serial_s": 0.0},
                           prep_msm={"queue": queue})


CFG = PipelineConfig(proofs=2, concurrency=2, partitions=6, partition_workers=12,
                     gpu_workers_per_device=1, gpu_threads=16, lock="split_async", seed=0)


def _spans(trace, stage):
    s = trace.spans[trace.spans["stage"] == stage]
    return s.sort_values("start")


def test_a_queued_prep_msm_starts_when_the_calls_before_it_have_had_the_pool():
    own = simulate(CFG, _queued(LIVE, "own"))
    pool = simulate(CFG, _queued(LIVE, "pool"))
    solo = LIVE["prep_msm"]["solo_s"]
    # beside b_g2_msm calls in flight, its own thread runs near its solo time; on the
    # queue it waits for the calls before it, as long as a call's time on the pool
    p_own = _spans(own, "prep_msm")
    p_pool = _spans(pool, "prep_msm")
    d_own = (p_own["end"] - p_own["start"]).max()
    d_pool = (p_pool["end"] - p_pool["start"]).max()
    call = LIVE["b_g2_msm"]["solo_s_at_all_cores"]
    assert d_own < 2 * solo
    assert d_pool > 0.5 * call
    # the queue serializes prep_msm with b_g2_msm's pool work: the run is slower
    assert pool.summary()["seconds_per_proof"] > own.summary()["seconds_per_proof"]
    # every queued prep_msm's span holds its wait: it never ends before its work's time
    assert ((p_pool["end"] - p_pool["start"]) >= solo * 0.999).all()


def test_without_queued_calls_the_queue_changes_nothing():
    cfg = CFG.replace(lock="interlock")
    b = LIVE["b_g2_msm"]
    assert "pool_core_s" not in b
    a = simulate(cfg, LIVE.replace(prep_msm={"queue": "pool"}))
    b_ = simulate(cfg, LIVE)
    assert a.summary()["seconds_per_proof"] == pytest.approx(b_.summary()["seconds_per_proof"])


def test_a_bad_queue_is_one_clear_error():
    with pytest.raises(ProfileError, match=r"prep_msm\.queue must be 'own' or 'pool', got 'fifo'"):
        LIVE.replace(prep_msm={"queue": "fifo"})
