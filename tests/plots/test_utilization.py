"""Utilization per resource: interval arithmetic against direct oracles."""

import numpy as np
import pytest

from cuzklab.plots import utilization, utilization_over_time
from cuzklab.plots.utilization import covered_per_bin, merge_intervals, step_mean_per_bin
from cuzklab.sim import simulate
from cuzklab.trace import union_length

from .synthetic import pipeline_trace


def _covered_oracle(starts, ends, edges):
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        out.append(sum(max(0.0, min(e, hi) - max(s, lo)) for s, e in zip(starts, ends)))
    return np.array(out)


def test_covered_per_bin_matches_a_direct_sum():
    rng = np.random.default_rng(1)
    for _ in range(20):
        s = rng.uniform(0, 100, size=rng.integers(0, 40))
        e = s + rng.exponential(5, size=len(s))
        edges = np.linspace(0, 120, 13)
        np.testing.assert_allclose(covered_per_bin(s, e, edges), _covered_oracle(s, e, edges),
                                   atol=1e-9)


def test_merge_intervals_is_the_union():
    rng = np.random.default_rng(2)
    s = rng.uniform(0, 50, 60)
    e = s + rng.uniform(0, 3, 60)
    bs, be = merge_intervals(s, e)
    assert np.all(bs[1:] > be[:-1])
    assert float((be - bs).sum()) == pytest.approx(union_length(s, e))
    # Every original interval lies inside one block.
    for a, b in zip(s, e):
        assert np.any((bs <= a) & (be >= b))


def test_step_mean_per_bin():
    t = [0.0, 2.0, 5.0]
    v = [1.0, 3.0, 0.0]
    edges = np.array([0.0, 2.0, 4.0, 6.0])
    np.testing.assert_allclose(step_mean_per_bin(t, v, edges), [1.0, 3.0, 1.5])


def test_over_time_averages_to_the_run_utilization():
    tr = pipeline_trace(proofs=4, partitions=3, pw=4, gw=2)
    s = tr.summary()
    centers, series = utilization_over_time(tr, bins=200)
    util = s["bottleneck"]["evidence"]["utilization"]
    # The summary's window runs from the first submit (0) to the last completion.
    assert float(series["synthesis"].mean()) == pytest.approx(util["synthesis"], abs=0.02)
    assert float(series["gpu"].mean()) == pytest.approx(util["gpu"], abs=0.02)
    assert len(centers) == 200


def test_figure_highlights_the_bottleneck():
    tr = simulate(proofs=3, concurrency=3)
    s = tr.summary()
    fig = utilization(tr, summary=s)
    bars = fig.data[0]
    res = s["bottleneck"]["resource"]
    colors = dict(zip(bars.y, bars.marker.color))
    assert len(set(colors.values())) == 2
    assert colors[res] != colors[next(r for r in bars.y if r != res)]
    assert res in fig.layout.title.text
    assert "(%)" in fig.layout.xaxis.title.text and "(s)" in fig.layout.xaxis2.title.text
    with pytest.raises(ValueError, match="bins"):
        utilization(tr, bins=0)
