"""Precomputed bases: the table, MSMs over it (CPU; GPU when present), bad input."""

from __future__ import annotations

import random

import pytest

from cuzklab.backend import gpu_available
from cuzklab.curve import Point
from cuzklab.field.constants import R
from cuzklab.msm import PrecomputedBases, default_precomputed_window, msm, msm_naive, precompute
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D


def _scalars(n, seed):
    rng = random.Random(seed)
    ks = [rng.randrange(R) for _ in range(n)]
    if n > 3:
        ks[0], ks[1], ks[2], ks[3] = 0, 1, R - 1, R + 5  # >= r is reduced
    return ks


def test_table_holds_shifted_bases():
    pts = B.bench_points("g1", 4, "cpu")
    pb = precompute(pts, window=7)
    assert isinstance(pb, PrecomputedBases)
    assert (pb.n, pb.window, pb.windows, pb.group, pb.backend) == (4, 7, D.windows(7), "g1", "cpu")
    assert len(pb.table) == 4 * D.windows(7)
    assert pb.bases().equals(pts)
    for w in (1, 5, D.windows(7) - 1):
        for i in range(4):
            assert pb.table.point(w * 4 + i) == pts.point(i) * (1 << (7 * w))


@pytest.mark.parametrize("group,n", [("g1", 1), ("g1", 2), ("g1", 40), ("g2", 9)])
def test_msm_over_precomputed_bases_matches_oracle(group, n):
    pts = B.bench_points(group, n, "cpu")
    ks = _scalars(n, n)
    want = msm_naive(pts, ks)
    for c in (2, 5, 13):
        assert msm(precompute(pts, window=c), ks) == want, (group, n, c)
    assert msm(precompute(pts), ks, window=None) == want


def test_edge_cases():
    pts = B.bench_points("g1", 6, "cpu")
    pb = precompute(pts, window=4)
    assert msm(pb, [0] * 6).is_infinity
    assert msm(pb, [1] * 6) == msm_naive(pts, [1] * 6)
    # P and -P cancel; duplicates double inside a bucket
    same = precompute(pts[[0, 0, 0]], window=4)
    assert msm(same, [5, 5, R - 10]).is_infinity
    empty = precompute(pts[:0], window=4)
    assert len(empty) == 0 and msm(empty, []) == Point.infinity("g1")


def test_default_window_grows_with_n():
    ws = [default_precomputed_window(1 << k) for k in (4, 10, 16, 20, 24)]
    assert ws == sorted(ws) and ws[-2:] == [20, 22]
    with pytest.raises(ValueError, match="n must be >= 0"):
        default_precomputed_window(-1)


def test_bad_input_is_rejected_before_work():
    pts = B.bench_points("g1", 3, "cpu")
    pb = precompute(pts, window=6)
    with pytest.raises(ValueError, match="precomputed for window 6"):
        msm(pb, [1, 2, 3], window=7)
    with pytest.raises(ValueError, match="group='g2'"):
        msm(pb, [1, 2, 3], group="g2")
    with pytest.raises(ValueError, match="expected 3 scalars"):
        msm(pb, [1, 2])
    with pytest.raises(TypeError, match="points: expected cuzklab.curve.Points"):
        precompute([1, 2, 3])
    with pytest.raises(ValueError, match=r"window must be in \[2, 24\]"):
        precompute(pts, window=1)
    with pytest.raises(TypeError, match="window must be an int"):
        precompute(pts, window=2.5)


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs a CUDA device and CuPy")
@pytest.mark.parametrize("group,n", [("g1", 3), ("g1", 500), ("g2", 40)])
def test_gpu_table_and_msm_equal_cpu(group, n):
    pts = B.bench_points(group, n, "cpu")
    ks = _scalars(n, 7)
    want = msm_naive(pts, ks) if n <= 40 else msm(pts, ks)
    for c in (4, 11, 16):
        cpu = precompute(pts, window=c)
        dev = precompute(pts.to("gpu"), window=c)
        assert dev.backend == "gpu" and dev.table.to("cpu").equals(cpu.table)
        assert msm(dev, ks) == want, (group, n, c)
    assert msm(precompute(pts, window=9), ks, backend="gpu") == want
