"""The GPU MSM against the CPU path and exact oracles (run on a CUDA machine)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.curve import Point, Points
from cuzklab.field.constants import R
from cuzklab.msm import batch_sum, msm, msm_split
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D

pytestmark = pytest.mark.gpu


def _points(group, n, seed=1):
    return B.bench_points(group, n, "cpu", seed)


def _expected(group, ks, seed=1):
    limbs = D.ints_to_limbs([k % R for k in ks])
    return B.expected(group, limbs, seed)


@pytest.mark.parametrize("group", ["g1", "g2"])
@pytest.mark.parametrize("n", [1, 2, 3, 37, 300])
def test_gpu_equals_cpu_and_oracle(group, n):
    rng = random.Random(n)
    pts = _points(group, n)
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0] = R - 1
    if n > 3:
        ks[1], ks[2], ks[3] = 0, 1, R + 12345
    want = _expected(group, ks)
    dev = pts.to("gpu")
    for window in (None, 2, 7, 13):
        got = msm(dev, ks, window=window)
        assert got == want, (group, n, window)
    if n <= 37:
        assert msm(pts, ks) == want


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_gpu_edge_cases(group):
    pts = _points(group, 8).to("gpu")
    assert msm(pts, [0] * 8).is_infinity
    # duplicates (doublings inside buckets), P and -P cancelling, infinity bases
    p0 = pts[np.zeros(6, dtype=np.int64)]
    mixed = Points.concat([p0, -pts[:2], Points.infinity(group, 3, "gpu"), pts[:2]])
    ks = [5, 5, 5, 7, 7, 9, 3, 4, 11, 12, 13, 3, 4]
    cpu = msm(mixed.to("cpu"), ks, window=3)
    for window in (None, 2, 3, 9):
        assert msm(mixed, ks, window=window) == cpu
    # all points equal, all scalars equal: n * k * P
    same = pts[np.zeros(50, dtype=np.int64)]
    p = pts.point(0)
    assert msm(same, [3] * 50) == p * 150


def test_gpu_large_g1_exact():
    n = 1 << 16
    pts = B.bench_points("g1", n, "gpu")
    limbs = B.bench_scalars(n, 3)
    from cuzklab.backend import xp
    from cuzklab.msm import gpu
    got = gpu.msm_gpu(pts, xp("gpu").asarray(limbs), D.default_window(n, "gpu"))
    assert got == B.expected("g1", limbs)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_gpu_bench_points_equal_cpu(group):
    a = B.bench_points(group, 700, "gpu")
    b = B.bench_points(group, 700, "cpu")
    assert a.to("cpu").equals(b)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_gpu_split_and_batch_sum(group):
    rng = random.Random(9)
    n = 120
    pts = _points(group, n)
    ks = [0] * 50 + [1] * 40 + [rng.randrange(2, R) for _ in range(30)]
    rng.shuffle(ks)
    want = _expected(group, ks)
    res = msm_split(pts.to("gpu"), ks)
    assert (res.zeros, res.ones, res.tail, res.split) == (50, 40, 30, True)
    assert res.point == want == msm_split(pts, ks).point
    dense = msm_split(pts.to("gpu"), [rng.randrange(R) for _ in range(n)])
    assert dense.split is False
    assert batch_sum(pts.to("gpu")) == batch_sum(pts) == _expected(group, [1] * n)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_gpu_skewed_scalars(group):
    # one scalar for all points (one bucket per window) and a few distinct values
    n = 3000 if group == "g1" else 500
    pts = B.bench_points(group, n, "gpu")
    rng = random.Random(4)
    for ks in ([R - 2] * n, [rng.choice([3, 2**100 + 1, R - 1]) for _ in range(n)]):
        assert msm(pts, ks) == _expected(group, ks)


@pytest.mark.parametrize("n", [1, 2, 5, 300, 4097])
def test_gpu_glv_on_off(n):
    from cuzklab.msm import glv as G
    rng = random.Random(n + 1)
    pts = _points("g1", n)
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0] = R - 1
    if n > 2:
        ks[1], ks[2] = 0, G.LAMBDA
    want = _expected("g1", ks)
    dev = pts.to("gpu")
    for window in (None, 3, 16):
        assert msm(dev, ks, window=window, glv=True) == want, (n, window)
        assert msm(dev, ks, window=window, glv=False) == want, (n, window)
    assert msm(dev, [0] * n, glv=True).is_infinity


def test_gpu_glv_split_equals_twin_and_phases():
    from cuzklab.backend import to_numpy, xp
    from cuzklab.msm import glv as G
    from cuzklab.msm import gpu
    from .test_glv import edge_scalars
    rng = random.Random(12)
    ks = edge_scalars() + [rng.randrange(R) for _ in range(5000)]
    n = len(ks)
    pts = Points.concat([_points("g1", n - 1), Points.infinity("g1", 1)])
    limbs = D.ints_to_limbs(ks)
    sp, sl = gpu.glv_split_gpu(pts.to("gpu"), xp("gpu").asarray(limbs))
    tp, tl = G.split_points(pts, limbs)
    assert np.array_equal(to_numpy(sl), tl)
    assert sp.to("cpu").equals(tp)
    marks: list = []
    got = gpu.msm_gpu(pts.to("gpu"), xp("gpu").asarray(limbs), 10, marks=marks, glv=True)
    assert got == _expected("g1", ks[:-1] + [0])  # the last point is the identity
    assert list(gpu.phase_times(marks)) == ["split", "sort", "accumulate", "bucket_sums", "reduce", "combine"]


@pytest.mark.gpu
def test_gpu_bench_upload_runs_start_from_freed_device_memory(monkeypatch):
    import cupy as cp

    from cuzklab.msm import bench as MB
    pool, seen = cp.get_default_memory_pool(), []
    real = MB.fresh_device_memory

    def fresh():
        real()
        left = pool.free_bytes()  # cached bytes that no later free can return (split chunks)
        pool.free_all_blocks()
        seen.append(left - pool.free_bytes())  # what the run could still have reused: nothing
    monkeypatch.setattr(MB, "fresh_device_memory", fresh)
    r = MB.bench_msm(10, "gpu", repeats=3, upload_batches=[2])
    # 3 pageable runs, 3 pinned runs and the pinned run with phase marks, then those in 2 parts
    assert r["checked"] and len(r["upload_times_s"]) == 3 and seen == [0] * 11
    assert len(r["pinned_upload_by_batches"]["2"]["times_s"]) == 3
    assert "scalars" in r["pinned_upload_by_batches"]["2"]["phases_s"]
    assert r["upload_from"].startswith("pageable host memory")
    assert len(r["pinned_upload_times_s"]) == 3 and r["pinned_upload_from"].startswith("pinned host memory")
    # the scalars' phase holds their copy with each part's GLV split and bucket count
    assert list(r["pinned_upload_phases_s"]) == ["scalars", "sort", "points", "accumulate",
                                                 "bucket_sums", "reduce", "combine"]


@pytest.mark.gpu
def test_gpu_bench_warm_pool_upload_runs_keep_the_device_blocks(monkeypatch):
    from cuzklab.msm import bench as MB
    seen = []
    real = MB.fresh_device_memory
    monkeypatch.setattr(MB, "fresh_device_memory", lambda: (seen.append(1), real()))
    r = MB.bench_msm(10, "gpu", repeats=2, upload_batches=[2], upload_pools=("warm",))
    # only the two pageable runs free the pool; the pinned ones all reuse its blocks
    assert r["checked"] and len(seen) == 2
    assert "pinned_upload_times_s" not in r and len(r["pinned_upload_warm_times_s"]) == 2
    assert r["pinned_upload_warm_median_s"] > 0 and "scalars" in r["pinned_upload_warm_phases_s"]
    assert set(r["pinned_upload_by_batches"]) == {"2-warm"}


@pytest.mark.gpu
@pytest.mark.parametrize("group,glv", [("g1", None), ("g1", False), ("g2", None)])
def test_gpu_msm_from_host_memory(group, glv):
    """Points and scalars from pinned and from pageable host memory give msm_gpu's result."""
    import cupyx

    from cuzklab.backend import xp
    from cuzklab.msm import bench as MB
    from cuzklab.msm import gpu
    n = 1 << 10
    limbs = MB.bench_scalars(n, 3)
    want = MB.expected(group, limbs, 3)
    pts = MB.bench_points(group, n, "gpu", 3)
    hx, hy = pts.x.limbs.get(), pts.y.limbs.get()
    c = 7
    assert gpu.msm_gpu(pts, xp("gpu").asarray(limbs), c, glv=glv) == want
    assert gpu.msm_gpu_from_host(group, hx, hy, limbs, c, glv=glv) == want
    pinned = []
    for a in (hx, hy, limbs):
        buf = cupyx.empty_pinned(a.shape, dtype=a.dtype)
        buf[...] = a
        pinned.append(buf)
    for _ in range(2):  # the second run reuses the blocks the first one freed
        assert gpu.msm_gpu_from_host(group, *pinned, c, glv=glv) == want
    with pytest.raises(TypeError):
        gpu.msm_gpu_from_host(group, pts.x.limbs, pts.y.limbs, limbs, c)



@pytest.fixture
def affine_on(monkeypatch):
    """Batch-affine rounds at every size (thresholds lowered), a few pairs per thread."""
    from cuzklab.msm import gpu
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": 3, "g2": 2})
    monkeypatch.setattr(gpu, "AFFINE_MIN_ENTRIES", {"g1": 0, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_SHRINK_256", 256)
    monkeypatch.setattr(gpu, "AFFINE_MIN_RUN", 0)
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 3, "g2": 3})
    return gpu


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_gpu_affine_rounds_equal_oracle(affine_on, group):
    rng = random.Random(31)
    n = 300
    pts = _points(group, n).to("gpu")
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0], ks[1] = R - 1, 0
    want = _expected(group, ks)
    for window in (2, 7, 13):
        assert msm(pts, ks, window=window) == want, (group, window)
        if group == "g1":
            assert msm(pts, ks, window=window, glv=False) == want, (group, window)
    # duplicates (doublings), P and -P (infinity), infinity bases, in the rounds
    p0 = pts[np.zeros(6, dtype=np.int64)]
    mixed = Points.concat([p0, -pts[:2], Points.infinity(group, 3, "gpu"), pts[:2], -p0[:2]])
    ks = [5, 5, 5, 7, 7, 9, 3, 4, 11, 12, 13, 3, 4, 5, 7]
    cpu = msm(mixed.to("cpu"), ks, window=3)
    for window in (2, 3, 9):
        assert msm(mixed, ks, window=window) == cpu


def test_gpu_affine_rounds_large_and_from_host(affine_on, monkeypatch):
    import cupyx

    from cuzklab.backend import xp
    gpu = affine_on
    gpu.AFFINE_BATCH = {"g1": 32, "g2": 32}
    n = 1 << 16
    pts = B.bench_points("g1", n, "gpu")
    limbs = B.bench_scalars(n, 5)
    want = B.expected("g1", limbs, 1)
    for c in (12, 16):
        assert gpu.msm_gpu(pts, xp("gpu").asarray(limbs), c) == want
    pinned = []
    for a in (pts.x.limbs.get(), pts.y.limbs.get(), limbs):
        buf = cupyx.empty_pinned(a.shape, dtype=a.dtype)
        buf[...] = a
        pinned.append(buf)
    for streams in (True, False):  # each part's first round on a stream of its own, or not
        monkeypatch.setattr(gpu, "UPLOAD_STREAMS", streams)
        for parts in (1, 3, 4):
            assert gpu.msm_gpu_from_host("g1", *pinned, 13, batches=parts) == want, (streams, parts)
    # one scalar for all: each window's points in one bucket, many rounds
    same = B.bench_scalars(1, 2).repeat(n, axis=0)
    gpu.AFFINE_ROUNDS = {"g1": 12, "g2": 0}
    assert gpu.msm_gpu(pts, xp("gpu").asarray(same), 11, glv=False) == B.expected("g1", same, 1)



@pytest.mark.parametrize("rounds", [None, 0])
def test_gpu_msm_many_equals_each(monkeypatch, rounds):
    # the prover's tails at a smaller scale: pairs of unequal sizes (one empty),
    # each its own benchmark points; with the default rounds (they run at this
    # total) and without
    from cuzklab.backend import xp
    from cuzklab.msm import gpu, msm_many
    if rounds is not None:
        monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": rounds, "g2": rounds})
    sizes = [600_000, 0, 700_000, 150_000]
    pts = [B.bench_points("g1", n, "gpu", k + 1) for k, n in enumerate(sizes)]
    limbs = [B.bench_scalars(n, k + 7) for k, n in enumerate(sizes)]
    want = [B.expected("g1", lb, k + 1) if n else Point.infinity("g1")
            for k, (n, lb) in enumerate(zip(sizes, limbs))]
    dev = [xp("gpu").asarray(lb) for lb in limbs]
    c = D.default_window(max(sizes), "gpu", glv=True)
    assert gpu.msm_many_gpu(pts, dev, c) == want
    assert gpu.msm_many_gpu(pts[2:], dev[2:], 13, glv=False) == want[2:]
    # G2 through the API, scalars as ints
    g2 = [B.bench_points("g2", n, "gpu", k + 1) for k, n in enumerate((3000, 5000))]
    ks = [B.bench_scalars(n, 3) for n in (3000, 5000)]
    got = msm_many(g2, [D.limbs_to_ints(k) for k in ks])
    assert got == [B.expected("g2", k, s + 1) for s, k in enumerate(ks)]


def test_gpu_kernel_times_of_one_msm():
    # CUDA events around each launch: every kernel of the MSM, checked, the sums adding up
    r = B.kernel_times(12, "g1")
    assert r["checked"] and r["launches"] and r["n"] == 4096
    count = [x for x in r["launches"] if x["kernel"] == "msm_count"]
    assert count[0]["threads"] == 4096 * (2 if r["glv"] else 1)
    names = {x["kernel"].split("<")[0] for x in r["launches"]}
    assert {"msm_count", "msm_scatter", "msm_integrate"} <= names
    assert abs(sum(v["ms"] for v in r["by_kernel"].values()) - r["total_ms"]) < 1e-6
    assert 0 < r["total_ms"] < 1e4
