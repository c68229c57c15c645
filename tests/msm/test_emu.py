"""The GPU kernels compiled for the host (serial emulation) against the CPU path.

This runs the same CUDA sources as the GPU backend, through the same driver
(``cuzklab.msm.gpu``), on a machine without a GPU; it needs a C++ compiler.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.field.constants import R
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D
from cuzklab.msm import gpu

from .emu import CXX

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    from .emu import msm_runner
    return msm_runner()


@pytest.mark.parametrize("group,n", [("g1", 1), ("g1", 2), ("g1", 45), ("g2", 3), ("g2", 20)])
def test_emulated_kernels_match_oracle(runner, group, n):
    rng = random.Random(n)
    pts = B.bench_points(group, n, "cpu")
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0] = R - 1
    if n > 2:
        ks[1] = 0
    limbs = D.ints_to_limbs(ks)
    want = B.expected(group, limbs)
    for c in (2, 5, 11):
        assert gpu.msm_gpu(pts, limbs, c, runner=runner) == want, (group, n, c)


def test_emulated_edge_cases(runner):
    from cuzklab.curve import Points
    from cuzklab.msm import msm
    pts = B.bench_points("g1", 4, "cpu")
    dup = Points.concat([pts[np.zeros(5, dtype=np.int64)], -pts[:1], Points.infinity("g1", 2), pts])
    ks = [7, 7, 7, 3, 3, 7, 5, 6, 1, 2, 3, 4]
    limbs = D.ints_to_limbs(ks)
    for c in (2, 3):
        assert gpu.msm_gpu(dup, limbs, c, runner=runner) == msm(dup, ks, window=c)
    zero = D.ints_to_limbs([0] * 12)
    assert gpu.msm_gpu(dup, zero, 4, runner=runner).is_infinity
    assert gpu.batch_sum_gpu(pts, runner=runner) == B.expected("g1", D.ints_to_limbs([1] * 4))


def test_emulated_bench_points(runner):
    n = 40
    want = B.bench_points("g2", n, "cpu")
    tbl = B._tables("g2", 1)[1]
    from cuzklab.curve import Points, fields as FF
    table = Points.from_ints(tbl, "g2", "cpu", check=False)
    ox = np.empty((n, 2, 12), dtype=np.uint32)
    oy = np.empty((n, 2, 12), dtype=np.uint32)
    runner.launch("msm_bench_points<cuzk::G2>", n,
                  (table.x.limbs, table.y.limbs, np.uint32(B.TABLE_BITS), np.uint32(n), ox, oy))
    got = Points("g2", FF.wrap("g2", ox, "cpu"), FF.wrap("g2", oy, "cpu"))
    assert got.equals(want)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_emulated_skewed_buckets_span_many_chunks_or_pieces(runner, group):
    # equal scalars put every point of a window into one bucket: it spans many
    # accumulate chunks (G1) or pieces (G2), whose partial sums are then
    # summed level by level
    n = 45
    pts = B.bench_points(group, n, "cpu")
    for k in (5, 2**200 + 3):
        limbs = D.ints_to_limbs([k] * n)
        want = B.expected(group, limbs)
        for c in (4, 11):
            assert gpu.chunk_size(n * D.windows(c)) < n
            assert gpu.piece_size(n * D.windows(c), D.windows(c) << (c - 1)) < n
            assert gpu.msm_gpu(pts, limbs, c, runner=runner) == want


def test_emulated_chunks_cross_empty_buckets(runner, monkeypatch):
    # a large window leaves most buckets empty: chunks walk over runs of them
    monkeypatch.setattr(gpu, "MIN_CHUNKS", 64)
    n = 30
    pts = B.bench_points("g1", n, "cpu")
    limbs = D.ints_to_limbs([(7 * i + 1) ** 9 % R for i in range(n)])
    for c in (5, 12):
        assert gpu.msm_gpu(pts, limbs, c, runner=runner) == B.expected("g1", limbs)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_emulated_precomputed_bases(runner, group):
    from cuzklab.msm import precompute
    rng = random.Random(3)
    n = 23
    pts = B.bench_points(group, n, "cpu")
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0], ks[1], ks[2] = 0, 1, R - 1
    limbs = D.ints_to_limbs(ks)
    want = B.expected(group, limbs)
    for c in (3, 8, 14):
        table = precompute(pts, window=c).table
        assert gpu.msm_gpu(table, limbs, c, runner=runner, shared=True) == want, (group, c)
    zero = D.ints_to_limbs([0] * n)
    assert gpu.msm_gpu(precompute(pts, window=5).table, zero, 5, runner=runner, shared=True).is_infinity
    with pytest.raises(ValueError, match="points: expected"):
        gpu.msm_gpu(pts, limbs, 5, runner=runner, shared=True)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_emulated_piece_levels_run_when_a_bucket_has_many_pieces(runner, monkeypatch, group):
    # GROUP = 2: buckets spanning more than two chunks (G1) or pieces (G2) go
    # through the msm_sum_pieces levels before msm_bucket_sums adds them up
    monkeypatch.setattr(gpu, "GROUP", 2)
    n = 45
    pts = B.bench_points(group, n, "cpu")
    limbs = D.ints_to_limbs([2**100 + 9] * n)
    for c in (4, 7):
        assert gpu.msm_gpu(pts, limbs, c, runner=runner, glv=False) == B.expected(group, limbs)


def test_emulated_inline_reduction_kernels_match_oracle(monkeypatch):
    # gpu.HOT names the kernels built with inline multiplications (cuzk::G1
    # instead of cuzk::G1c): the reduction kernels give the same sums either way
    from .emu import msm_runner
    monkeypatch.setattr(gpu, "HOT", gpu.HOT + ("msm_bucket_sums", "msm_integrate", "msm_sum_groups"))
    run = msm_runner()
    assert "msm_integrate<cuzk::G1>" in gpu.kernel_names(None)
    n = 29
    pts = B.bench_points("g1", n, "cpu")
    limbs = D.ints_to_limbs([(5 * i + 3) ** 7 % R for i in range(n)])
    for c in (4, 9):
        assert gpu.msm_gpu(pts, limbs, c, runner=run) == B.expected("g1", limbs)
