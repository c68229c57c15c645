"""Batch-affine rounds (``msm_affine_round``) in the host emulation, against the exact result.

The rounds run the same CUDA source as the GPU, through the same driver
(``cuzklab.msm.gpu``), here at small sizes with every threshold lowered so
that they run: duplicate points (doublings), opposite points (infinity),
points at infinity, odd runs, huge buckets, several pairs per thread, GLV
on and off, G2 and uploads in parts (precomputed bases run no rounds).
"""

from __future__ import annotations

import pathlib
import random

import numpy as np
import pytest

from cuzklab.field.constants import R
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D
from cuzklab.msm import gpu

from .emu import CXX, Counting

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


@pytest.fixture(scope="module")
def affine_runner():
    from .emu import msm_runner
    return msm_runner()


@pytest.fixture
def affine(monkeypatch, affine_runner):
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": 3, "g2": 2})
    monkeypatch.setattr(gpu, "AFFINE_MIN_ENTRIES", {"g1": 0, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_SHRINK_256", 256)
    monkeypatch.setattr(gpu, "AFFINE_MIN_RUN", 0)
    return Counting(affine_runner)


def test_kernel_names_and_plan(monkeypatch):
    # the round kernel is built for both groups (one module whatever the setting)
    names = [k for k in gpu.kernel_names(None) if "msm_affine_round" in k]
    assert names == [f"msm_affine_round<cuzk::G1, {gpu.AFFINE_MIN_BLOCKS['g1']}>",
                     f"msm_affine_round<cuzk::G2, {gpu.AFFINE_MIN_BLOCKS['g2']}>"]
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": 2, "g2": 0})
    lo = gpu.AFFINE_MIN_ENTRIES["g1"]
    assert gpu.affine_plan("g1", lo) == 2
    assert gpu.affine_plan("g1", lo, shared=True) == 0
    assert gpu.affine_plan("g1", lo - 1) == 0
    assert gpu.affine_plan("g2", 1 << 30) == 0


def test_defaults_leave_small_msms_alone():
    # the rounds run from the measured sizes up: G1 2^20 with GLV, G2 from ~2^18
    assert gpu.affine_plan("g1", 2 * (1 << 19) * 8) == 0          # G1 2^19, GLV, c = 16
    assert gpu.affine_plan("g1", 2 * (1 << 20) * 8) == gpu.AFFINE_ROUNDS["g1"] > 0
    assert gpu.affine_plan("g1", 2 * (1 << 20) * 8, buckets=8 << 15) == 3  # runs of 64: 3 rounds
    assert gpu.affine_plan("g1", 2 * (1 << 22) * 8) == gpu.AFFINE_ROUNDS["g1"] > 0
    assert gpu.affine_plan("g2", (1 << 16) * 20) == 0             # G2 2^16, c = 13
    assert gpu.affine_plan("g2", 339_712 * 20) == gpu.AFFINE_ROUNDS["g2"] > 0  # the B tail at 2^24
    assert gpu.affine_plan("g2", (1 << 20) * 17) == gpu.AFFINE_ROUNDS["g2"] > 0


def test_rounds_capped_by_the_mean_run():
    # at most log2(entries / buckets / AFFINE_MIN_RUN) rounds: the measured sizes keep
    # AFFINE_ROUNDS, the prover's three tails in one sort (runs of ~80) get 3
    nb = 1 << 15
    assert gpu.affine_plan("g1", 1 << 28, buckets=8 * nb) == gpu.AFFINE_ROUNDS["g1"] == 5  # 2^24
    assert gpu.affine_plan("g1", 1 << 28, buckets=4 * 8 * nb) == 5    # uploaded in 4 parts
    assert gpu.affine_plan("g1", 7 << 27, buckets=7 << 18) == 5       # 2^26, c = 19
    assert gpu.affine_plan("g1", 2 * 3 * 1_340_059 * 8, buckets=3 * 8 * nb) == 3
    assert gpu.affine_plan("g2", 339_712 * 20, buckets=20 * 4096) == 3
    assert gpu.affine_plan("g1", 1 << 28, buckets=1 << 28) == 0       # runs of one: none
    assert gpu.affine_plan("g1", 1 << 28) == 5                        # no buckets given: no cap


@pytest.mark.parametrize("batch", [1, 3, 64])
@pytest.mark.parametrize("glv", [False, True])
def test_rounds_equal_oracle(affine, monkeypatch, batch, glv):
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": batch, "g2": batch})
    rng = random.Random(batch)
    n = 37
    pts = B.bench_points("g1", n, "cpu")
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0], ks[1] = R - 1, 0
    limbs = D.ints_to_limbs(ks)
    want = B.expected("g1", limbs)
    for c in (2, 4, 7):
        affine.calls.clear()
        assert gpu.msm_gpu(pts, limbs, c, runner=affine, glv=glv) == want, (batch, glv, c)
        assert affine.calls.get("msm_affine_round", 0) >= 1, c


@pytest.mark.parametrize("rounds", [1, 2, 5])
def test_every_round_count(affine, monkeypatch, rounds):
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": rounds, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 2, "g2": 2})
    n = 40
    pts = B.bench_points("g1", n, "cpu")
    limbs = D.ints_to_limbs([(11 * i + 5) ** 5 % R for i in range(n)])
    affine.calls.clear()
    assert gpu.msm_gpu(pts, limbs, 3, runner=affine, glv=False) == B.expected("g1", limbs)
    assert affine.calls["msm_affine_round"] == rounds


def test_doublings_opposites_and_infinity(affine, monkeypatch):
    # equal points in one bucket (a doubling), P and -P (infinity), points at
    # infinity, on both sides of a pair, and zero scalars
    from cuzklab.curve import Points
    from cuzklab.msm import msm
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 2, "g2": 2})
    pts = B.bench_points("g1", 4, "cpu")
    inf = Points.infinity("g1", 3)
    dup = Points.concat([pts[np.zeros(5, dtype=np.int64)], -pts[:1], inf[:1], pts, inf[1:], -pts[1:3],
                         pts[np.ones(3, dtype=np.int64)]])
    ks = [7, 7, 7, 3, 3, 7, 5, 6, 1, 2, 3, 4, 9, 7, 2, 2, 9, 9]
    assert len(ks) == len(dup)
    limbs = D.ints_to_limbs(ks)
    for c in (2, 3, 5):
        for glv in (False, True):
            affine.calls.clear()
            assert gpu.msm_gpu(dup, limbs, c, runner=affine, glv=glv) == msm(dup, ks, window=c), (c, glv)
            assert affine.calls.get("msm_affine_round", 0) >= 1
    zero = D.ints_to_limbs([0] * len(ks))
    assert gpu.msm_gpu(dup, zero, 4, runner=affine).is_infinity


def test_opposite_points_cancel_to_infinity(affine, monkeypatch):
    # P and -P with equal scalars meet in every bucket: the whole MSM is infinity
    from cuzklab.curve import Points
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 1, "g2": 1})
    pts = B.bench_points("g1", 6, "cpu")
    both = Points.concat([pts, -pts])
    ks = [3 ** i + 1 for i in range(6)] * 2
    limbs = D.ints_to_limbs(ks)
    for c in (3, 6):
        assert gpu.msm_gpu(both, limbs, c, runner=affine, glv=False).is_infinity


def test_huge_bucket_many_rounds(affine, monkeypatch):
    # one scalar for every point: each window is one bucket of n points
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": 6, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 3, "g2": 3})
    n = 45
    pts = B.bench_points("g1", n, "cpu")
    for k in (5, 2**200 + 3):
        limbs = D.ints_to_limbs([k] * n)
        affine.calls.clear()
        assert gpu.msm_gpu(pts, limbs, 4, runner=affine, glv=False) == B.expected("g1", limbs)
        assert affine.calls["msm_affine_round"] == 6


def test_rounds_stop_when_buckets_hold_one_point(affine, monkeypatch):
    # every bucket holds at most one point: no round would shrink the entries
    monkeypatch.setattr(gpu, "AFFINE_SHRINK_256", 192)
    pts = B.bench_points("g1", 3, "cpu")
    limbs = D.ints_to_limbs([1, 2, 3])
    affine.calls.clear()
    assert gpu.msm_gpu(pts, limbs, 12, runner=affine, glv=False) == B.expected("g1", limbs)
    assert "msm_affine_round" not in affine.calls


def test_g2_rounds_then_pieces(affine, monkeypatch):
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 2, "g2": 2})
    rng = random.Random(5)
    n = 21
    pts = B.bench_points("g2", n, "cpu")
    limbs = D.ints_to_limbs([rng.randrange(R) for _ in range(n)])
    for c in (3, 6):
        affine.calls.clear()
        assert gpu.msm_gpu(pts, limbs, c, runner=affine) == B.expected("g2", limbs)
        assert affine.calls["msm_affine_round"] == 2


def test_precomputed_bases_run_no_rounds(affine, monkeypatch):
    from cuzklab.msm import precompute
    rng = random.Random(8)
    n = 19
    pts = B.bench_points("g1", n, "cpu")
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0] = 0
    limbs = D.ints_to_limbs(ks)
    assert gpu.affine_plan("g1", 1 << 30, shared=True) == 0
    for c in (3, 8):
        table = precompute(pts, window=c).table
        affine.calls.clear()
        assert gpu.msm_gpu(table, limbs, c, runner=affine, shared=True) == B.expected("g1", limbs)
        assert "msm_affine_round" not in affine.calls


def test_batch_per_round(monkeypatch):
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 128, "g2": 32})
    assert gpu.affine_batch("g1", 1 << 27) == 128
    assert gpu.affine_batch("g1", 1 << 21) == 128
    assert gpu.affine_batch("g1", 1 << 19) == 32
    assert gpu.affine_batch("g1", 100) == 16
    assert gpu.affine_batch("g2", 1 << 27) == 32
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 2, "g2": 2})
    assert gpu.affine_batch("g1", 1 << 27) == 2
    # a round keeps at least AFFINE_MIN_THREADS threads while its batches stay above 16 pairs
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 256, "g2": 32})
    monkeypatch.setattr(gpu, "AFFINE_MIN_THREADS", 1 << 16)
    assert gpu.affine_batch("g1", 1 << 25) == 256
    assert gpu.affine_batch("g1", 1 << 22) == 64
    assert gpu.affine_batch("g1", 1 << 19) == 16


@pytest.mark.parametrize("glv", [False, True])
def test_upload_in_parts(affine, monkeypatch, glv):
    # each part's points have buckets of their own: round 1 runs part by part
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 2, "g2": 2})
    rng = random.Random(9)
    n = 26
    pts = B.bench_points("g1", n, "cpu")
    limbs = D.ints_to_limbs([rng.randrange(R) for _ in range(n)])
    want = B.expected("g1", limbs)
    xs, ys = np.array(pts.x.limbs), np.array(pts.y.limbs)
    for parts in (1, 3):
        affine.calls.clear()
        got = gpu.msm_gpu_from_host("g1", xs, ys, limbs, 5, runner=affine, glv=glv, batches=parts)
        assert got == want, (parts, glv)
        assert affine.calls["msm_affine_round"] >= parts


def test_blocks_per_sm_from_registers():
    # 64 K registers an SM, allocated per warp in units of 256, 2048 threads
    assert gpu.blocks_per_sm(168, 128) == 3      # the G1 round kernel: 12 warps
    assert gpu.blocks_per_sm(183, 128) == 2      # 5,888 registers a warp: 11 warps
    assert gpu.blocks_per_sm(255, 128) == 2
    assert gpu.blocks_per_sm(64, 128) == 8       # 32 warps by registers, 16 blocks by threads, 8 by both
    assert gpu.blocks_per_sm(32, 128) == 16      # threads bound
    assert gpu.blocks_per_sm(32, 32) == 32       # the block limit
    with pytest.raises(ValueError, match="num_regs"):
        gpu.blocks_per_sm(0, 128)


def test_batch_fitted_to_one_wave(monkeypatch):
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 0, "g2": 0})
    res = 3 * 132 * 128  # an H200's resident threads of the G1 round kernel
    assert gpu.affine_batch("g1", 1 << 25, res) == 662          # G1 2^22, round 1: one wave
    assert -(-(1 << 25) // 662) <= res
    assert gpu.affine_batch("g1", 1 << 21, res) == 42
    assert gpu.affine_batch("g1", 1 << 18, res) == gpu.AFFINE_MIN_PAIRS  # too small to fill it
    assert gpu.affine_batch("g1", 1 << 25) == -(-(1 << 25) // gpu.AFFINE_MIN_THREADS)  # no device to ask
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 256, "g2": 32})
    assert gpu.affine_batch("g1", 1 << 25, res) == 256          # a fixed batch ignores the device


class _Resident:
    """An emulation runner that reports a small device: rounds fitted to it get varied batches."""

    def __init__(self, inner, resident):
        self.inner, self.xp, self.resident, self.asked = inner, inner.xp, resident, []

    def resident_threads(self, name, block=128):
        self.asked.append(name)
        return self.resident

    def launch(self, name, n_threads, args, block=128):
        self.inner.launch(name, n_threads, args, block)


@pytest.mark.parametrize("resident", [1, 5, 64])
def test_rounds_fitted_to_one_wave_equal_oracle(affine_runner, monkeypatch, resident):
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": 4, "g2": 2})
    monkeypatch.setattr(gpu, "AFFINE_MIN_ENTRIES", {"g1": 0, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_SHRINK_256", 256)
    monkeypatch.setattr(gpu, "AFFINE_MIN_RUN", 0)
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 0, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_MIN_PAIRS", 1)
    run = _Resident(affine_runner, resident)
    rng = random.Random(resident)
    for group, n in (("g1", 45), ("g2", 9)):
        pts = B.bench_points(group, n, "cpu")
        limbs = D.ints_to_limbs([rng.randrange(R) for _ in range(n)])
        assert gpu.msm_gpu(pts, limbs, 3, runner=run) == B.expected(group, limbs), (group, resident)
    assert any("msm_affine_round" in k for k in run.asked)


def _pair_map_oracle(src_off, dst_off, m):
    """pairs[j] for the outputs j < m of a round: the two sources of output j, single bit 31."""
    out = np.zeros(m, dtype=np.uint32)
    for b in range(len(dst_off) - 1):
        for j in range(int(dst_off[b]), int(dst_off[b + 1])):
            s = int(src_off[b]) + 2 * (j - int(dst_off[b]))
            out[j] = s | ((1 if s + 1 >= int(src_off[b + 1]) else 0) << 31)
    return out


@pytest.mark.parametrize("m_target", [1, 31, 1023, 1024, 1025, 4099])
def test_pair_map_against_oracle(affine_runner, m_target):
    # runs of 0-9 entries (empty buckets, odd runs) and stretches of up to 3000 empty
    # buckets (a top window's, in the middle when MSMs share a sort), several warps
    # and a partial last one
    rng = random.Random(m_target)
    runs = []
    while sum((r + 1) // 2 for r in runs) < m_target:
        runs.append(rng.choice([0, 0, 1, 2, 3, 5, 8, 9]))
        if rng.random() < 0.02:
            runs += [0] * rng.choice([33, 1000, 3000])
    src = np.concatenate([[0], np.cumsum(runs)]).astype(np.uint32)
    dst = np.concatenate([[0], np.cumsum([(r + 1) // 2 for r in runs])]).astype(np.uint32)
    m, nb = int(dst[-1]), len(runs)
    pairs = np.full(m, 0xDEADBEEF, dtype=np.uint32)
    affine_runner.launch("msm_pair_map", 32 * -(-m // gpu.PAIR_MAP_WARP_OUTPUTS),
                         (src, dst, np.uint32(nb), np.uint32(m), pairs))
    assert np.array_equal(pairs, _pair_map_oracle(src, dst, m))


def test_pair_map_warp_outputs_match_the_kernel():
    text = (pathlib.Path(gpu.__file__).parent / "cuda" / gpu.SOURCE).read_text()
    assert f"PAIR_MAP_WARP_OUTPUTS = {gpu.PAIR_MAP_WARP_OUTPUTS};" in text


def test_rounds_spare_the_wait_before_the_additions(affine, monkeypatch):
    # the rounds' wait on the device also gives the longest run, so the accumulation sizes
    # its pieces by bounds and does not wait again; where a bound passes GROUP (the piece
    # reduction may then run) the exact counts are read back: one wait more, same result
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": 1, "g2": 0})
    monkeypatch.setattr(gpu, "chunk_size", lambda entries: 1)
    rng = random.Random(5)
    n = 37
    pts = B.bench_points("g1", n, "cpu")
    limbs = D.ints_to_limbs([rng.randrange(R) for _ in range(n)])
    want = B.expected("g1", limbs)
    waits = []
    real = gpu.to_numpy
    monkeypatch.setattr(gpu, "to_numpy", lambda a: (waits.append(1), real(a))[1])
    assert gpu.msm_gpu(pts, limbs, 4, runner=affine, glv=False) == want
    assert affine.calls.get("msm_sum_pieces", 0) == 0
    bounded = len(waits)
    waits.clear()
    monkeypatch.setattr(gpu, "GROUP", 2)
    assert gpu.msm_gpu(pts, limbs, 4, runner=affine, glv=False) == want
    assert len(waits) == bounded + 1
    assert affine.calls.get("msm_sum_pieces", 0) > 0
