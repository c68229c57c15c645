"""The summary's grouping shortcuts give what pandas' groupby gives, bit for bit."""

import numpy as np
import pandas as pd

from cuzklab.trace.summary import _first_last, _worker_lane_mask, gpu_prove_per_proof


def _spans(n=400, seed=3):
    rng = np.random.default_rng(seed)
    start = rng.uniform(0, 100, n)
    end = start + rng.uniform(0, 5, n)
    end[::37] = np.nan                       # an unfinished span: skipped, as pandas skips it
    lanes = np.array(["gpu0.w0", "gpu0.w0.cpu", "gpu1.w1", "final.0", "synth.2", "gpu0.w10x"])
    return pd.DataFrame({"proof": rng.integers(0, 9, n), "partition": rng.integers(0, 10, n),
                         "start": start, "end": end, "lane": lanes[rng.integers(0, 6, n)]})


def test_first_start_and_last_end_per_partition_as_a_groupby_gives_them():
    s = _spans()
    want = s.groupby(["proof", "partition"]).agg(a=("start", "min"), b=("end", "max"))
    proof, a, b = _first_last(s)
    np.testing.assert_array_equal(proof, want.index.get_level_values(0))
    np.testing.assert_array_equal(a, want["a"].to_numpy())
    np.testing.assert_array_equal(b, want["b"].to_numpy())


def test_worker_lanes_and_gpu_held_time_per_proof():
    s = _spans()
    mask = _worker_lane_mask(s)
    assert mask.equals(s["lane"].astype(str).str.match(r"^gpu\d+\.w\d+(\.cpu)?$"))
    sub = s[mask]
    held = sub.groupby(["proof", "partition"]).agg(a=("start", "min"), b=("end", "max"))
    want = (held["b"] - held["a"]).groupby(level=0).sum()
    pd.testing.assert_series_equal(gpu_prove_per_proof(s), want, check_exact=True)


def test_the_quick_throughput_is_the_summarys():
    from cuzklab.model import PipelineConfig
    from cuzklab.sim import simulate
    from cuzklab.trace.summary import throughput

    for cfg in (PipelineConfig(proofs=3, concurrency=3, partition_workers=4),
                PipelineConfig(proofs=3, concurrency=3, partition_workers=6, memory_gib=120)):
        tr = simulate(cfg)
        s = tr.summary()
        assert throughput(tr) == {"seconds_per_proof": s["seconds_per_proof"], "oom": s["oom"]}
