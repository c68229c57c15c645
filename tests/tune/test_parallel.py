"""The tuner's simulations give the same answers in this process, a process pool and on Dask."""

import pytest

from cuzklab.tune import Knobs, Node, Scenario
from cuzklab.tune.evaluate import moved_profile
from cuzklab.tune.parallel import Evaluator, make_executor
from cuzklab.model import Profile

PAIRS = [(Knobs(partition_workers=p, concurrency=1), Scenario(0)) for p in (1, 2)] \
    + [(Knobs(partition_workers=2, concurrency=1), Scenario(0, "synth", 1.1))]


def _run(executor, **kw):
    ev = Evaluator(Node(192), Profile.load(), 3, make_executor(executor, **kw), progress=False)
    try:
        first = ev.evaluate(PAIRS, "test")
        again = ev.evaluate(PAIRS[:1], "test")  # from the cache: no new simulation
        return first, again, ev.simulations
    finally:
        ev.close()


def test_process_pool_matches_inline_and_caches():
    inline, again, n = _run("inline")
    assert n == 3 and again[0] == inline[0]
    pooled, _, _ = _run("local", jobs=2)
    assert pooled == inline
    assert inline[2]["seconds_per_proof"] > inline[1]["seconds_per_proof"]  # synthesis +10 %


def test_dask_matches_inline():
    distributed = pytest.importorskip("distributed")
    inline, _, _ = _run("inline")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        dask, _, _ = _run("dask", scheduler=client)
    assert dask == inline


def test_moved_profile_scales_one_stage():
    base = Profile.load()
    up = moved_profile(base, "ntt_h", 1.1)
    assert up["gpu"]["ntt_h_s"] == pytest.approx(base["gpu"]["ntt_h_s"] * 1.1)
    assert up["synth"] == base["synth"]
    slow = moved_profile(base, "h2d", 1.1)
    assert slow["partition"]["abc_upload_gbps"] == pytest.approx(
        base["partition"]["abc_upload_gbps"] / 1.1)
    with pytest.raises(ValueError, match="stage must be one of"):
        moved_profile(base, "bogus", 1.1)
