"""Several MSMs in one sort (``msm_many``): the host emulation of the GPU kernels and the CPU path.

Each pair has buckets of its own and a slot padded with scalars 0; the
results must equal each pair's exact MSM (its own benchmark points, by the
table oracle), with and without the batch-affine rounds, GLV on and off,
empty pairs and pairs of very different sizes, G1 and G2.
"""

from __future__ import annotations

import random

import pytest

from cuzklab.curve import Point
from cuzklab.field.constants import R
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D
from cuzklab.msm import gpu, msm, msm_many

from .emu import CXX, Counting

emulated = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


def _pairs(group, sizes, seed=0):
    """Return (points, limbs, exact) per size: each pair its own point set (seed k + 1)."""
    rng = random.Random(seed)
    out = []
    for k, n in enumerate(sizes):
        pts = B.bench_points(group, n, "cpu", seed=k + 1)
        ks = [rng.randrange(R) for _ in range(n)]
        if n > 2:
            ks[0], ks[1], ks[2] = R - 1, 0, 1
        limbs = D.ints_to_limbs(ks)
        out.append((pts, limbs, B.expected(group, limbs, seed=k + 1) if n else Point.infinity(group)))
    return out


@pytest.fixture(scope="module")
def runner():
    from .emu import msm_runner
    return msm_runner()


@emulated
@pytest.mark.parametrize("rounds", [0, 2])
@pytest.mark.parametrize("glv", [False, True])
def test_many_equals_each_exact(runner, monkeypatch, rounds, glv):
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": rounds, "g2": rounds})
    monkeypatch.setattr(gpu, "AFFINE_MIN_ENTRIES", {"g1": 0, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_SHRINK_256", 256)
    monkeypatch.setattr(gpu, "AFFINE_MIN_RUN", 0)
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 2, "g2": 2})
    pairs = _pairs("g1", [23, 0, 40, 3])
    counting = Counting(runner)
    for c in (3, 5):
        got = gpu.msm_many_gpu([p for p, _, _ in pairs], [lb for _, lb, _ in pairs], c,
                               runner=counting, glv=glv)
        assert got == [want for _, _, want in pairs], (c, glv, rounds)
    # one sort for all three: one count, one scatter (and the rounds when asked for)
    assert counting.calls["msm_count"] == counting.calls["msm_scatter"] == 2
    assert (counting.calls.get("msm_affine_round", 0) > 0) == (rounds > 0)


@emulated
def test_many_g2_and_one_pair(runner):
    pairs = _pairs("g2", [9, 14], seed=3)
    got = gpu.msm_many_gpu([p for p, _, _ in pairs], [lb for _, lb, _ in pairs], 4, runner=runner)
    assert got == [want for _, _, want in pairs]
    # one non-empty pair (or none) is a plain MSM
    assert gpu.msm_many_gpu([pairs[0][0]], [pairs[0][1]], 4, runner=runner) == [pairs[0][2]]
    empty = pairs[0][0][:0]
    assert gpu.msm_many_gpu([empty, empty], [pairs[0][1][:0]] * 2, 4, runner=runner) == [
        Point.infinity("g2")] * 2


@emulated
def test_many_rejects_bad_pairs(runner):
    g1 = _pairs("g1", [4], seed=1)[0]
    g2 = _pairs("g2", [4], seed=1)[0]
    with pytest.raises(ValueError, match="one group"):
        gpu.msm_many_gpu([g1[0], g2[0]], [g1[1], g2[1]], 3, runner=runner)
    with pytest.raises(ValueError, match="expected 3 points"):
        gpu.msm_many_gpu([g1[0]], [g1[1][:3]], 3, runner=runner)
    with pytest.raises(ValueError, match="one length"):
        gpu.msm_many_gpu([g1[0]], [], 3, runner=runner)


def test_api_cpu_matches_msm():
    pairs = _pairs("g1", [6, 0, 11], seed=5)
    ks = [D.limbs_to_ints(lb) for _, lb, _ in pairs]
    got = msm_many([p for p, _, _ in pairs], ks)
    assert got == [want for _, _, want in pairs]
    assert got[2] == msm(pairs[2][0], ks[2])
    assert msm_many([], []) == []


def test_api_errors():
    p = B.bench_points("g1", 3, "cpu")
    q = B.bench_points("g2", 3, "cpu")
    with pytest.raises(TypeError, match="points_list"):
        msm_many(p, [[1, 2, 3]])
    with pytest.raises(ValueError, match="one length"):
        msm_many([p], [])
    with pytest.raises(ValueError, match="group='g1' but the points are 'g2'"):
        msm_many([p, q], [[1, 2, 3]] * 2)
    with pytest.raises(ValueError, match="expected 3 scalars"):
        msm_many([p], [[1, 2]])
    with pytest.raises(TypeError, match="glv"):
        msm_many([p], [[1, 2, 3]], glv="yes")
