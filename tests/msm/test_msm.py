"""msm, msm_split and batch_sum on the CPU path against py_ecc and exact oracles."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuzklab.curve import Point, Points
from cuzklab.curve import reference as ref
from cuzklab.field import Fr
from cuzklab.field.constants import R
from cuzklab.msm import batch_sum, msm, msm_naive, msm_split
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D

GROUPS = ["g1", "g2"]


def _exact(group, ks):
    return B.expected(group, D.ints_to_limbs([k % R for k in ks]))


@settings(max_examples=3, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=R - 1), min_size=1, max_size=5))
def test_msm_matches_py_ecc(ks):
    b = pytest.importorskip("py_ecc.optimized_bls12_381")
    pts = [b.multiply(b.G1, 3 + i) for i in range(len(ks))]
    want = b.Z1
    for p, k in zip(pts, ks):
        want = b.add(want, b.multiply(p, k))
    got = msm(Points.from_py_ecc(pts, "g1"), ks)
    assert b.eq(got.to_py_ecc(), want)


@pytest.mark.parametrize("group,n", [("g1", 0), ("g1", 1), ("g1", 2), ("g1", 37), ("g1", 130),
                                     ("g2", 1), ("g2", 2), ("g2", 11)])
def test_msm_exact(group, n):
    rng = random.Random(n)
    pts = B.bench_points(group, n, "cpu")
    ks = [rng.randrange(R) for _ in range(n)]
    if n >= 2:
        ks[0], ks[1] = 1, R - 1
    want = _exact(group, ks)
    windows = (None, 2, 5) if group == "g1" else (None, 3)
    for w in windows:
        assert msm(pts, ks, window=w) == want
    if 0 < n <= 11:
        assert msm_naive(pts, ks) == want


def test_msm_edge_cases():
    pts = B.bench_points("g1", 9, "cpu")
    assert msm(pts, [0] * 9).is_infinity
    # scalars >= r and negative ints are reduced mod r
    ks = [R + 1, 2 * R + 5, -1, 3 * R, 7, 0, 0, 0, 1]
    assert msm(pts, ks) == _exact("g1", ks)
    # Fr scalars give the same result as ints
    assert msm(pts, Fr.from_ints([k % R for k in ks])) == _exact("g1", ks)
    # duplicate points, P and -P, infinity bases
    dup = Points.concat([pts[np.zeros(5, dtype=np.int64)], -pts[:1], Points.infinity("g1", 2)])
    p0 = pts.point(0)
    assert msm(dup, [2, 2, 2, 2, 2, 10, 4, 4], window=3).is_infinity
    assert msm(dup, [1, 2, 3, 4, 5, 1, 9, 9]) == p0 * 14
    assert msm(Points.infinity("g1", 0), []).is_infinity


def test_msm_2_12_points():
    n = 1 << 12
    pts = B.bench_points("g1", n, "cpu")
    limbs = B.bench_scalars(n, 7)
    ks = D.limbs_to_ints(limbs)
    assert msm(pts, ks) == B.expected("g1", limbs)


@pytest.mark.parametrize("group", GROUPS)
def test_split_and_batch_sum(group):
    rng = random.Random(3)
    n = 40 if group == "g1" else 12
    pts = B.bench_points(group, n, "cpu")
    ks = [0] * (n // 2) + [1] * (n // 4) + [rng.randrange(2, R) for _ in range(n - n // 2 - n // 4)]
    rng.shuffle(ks)
    res = msm_split(pts, ks)
    assert (res.zeros, res.ones, res.tail, res.split) == (n // 2, n // 4, n - n // 2 - n // 4, True)
    assert res.point == _exact(group, ks) == msm(pts, ks)
    dense = [rng.randrange(2, R) for _ in range(n)]
    res = msm_split(pts, dense)
    assert res.split is False and res.tail == n and res.point == _exact(group, dense)
    assert msm_split(pts, [0] * n).point.is_infinity
    assert msm_split(pts, [1] * n).point == batch_sum(pts) == _exact(group, [1] * n)
    assert batch_sum(Points.infinity(group, 0)).is_infinity


def test_argument_errors():
    pts = Points.generator("g1", 2)
    with pytest.raises(TypeError, match="points"):
        msm([ref.generator("g1")], [1])
    with pytest.raises(ValueError, match="group"):
        msm(pts, [1, 2], group="g2")
    with pytest.raises(ValueError, match="scalars"):
        msm(pts, [1, 2, 3])
    with pytest.raises(TypeError, match=r"scalars\[1\]"):
        msm(pts, [1, 2.0])
    with pytest.raises(TypeError):
        msm(pts, np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="window"):
        msm(pts, [1, 2], window=1)
    with pytest.raises(ValueError, match="backend"):
        msm(pts, [1, 2], backend="tpu")
    assert msm(pts, np.array([1, 2])) == Point.generator("g1") * 3
