"""The counting sort's scatter by window groups (``gpu.SCATTER_FRONT_BYTES``), in the host emulation.

When the fronts of every bucket of every window would not fit the limit,
the scatter runs one launch per group of windows; each launch recodes the
whole scalar (for the carries) but writes only its windows' entries. The
sorted entries, and so every MSM, must be the same however the windows are
grouped: one launch, one window a launch, or groups that do not divide the
windows; with GLV, batch-affine rounds, an upload in parts, G2 and
precomputed bases (whose windows share one set of buckets: always one launch).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.field.constants import R
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D
from cuzklab.msm import gpu

from .emu import CXX, Counting

emulated = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


def test_groups_follow_the_fronts(monkeypatch):
    monkeypatch.setattr(gpu, "SCATTER_FRONT_BYTES", {"g1": 1 << 24, "g2": 1 << 24})
    # G1 2^26 at c = 19: 7 windows of 2^18 buckets, 8 MiB of fronts a window
    assert gpu.scatter_groups("g1", 7, 1 << 18) == [(0, 2), (2, 4), (4, 6), (6, 7)]
    # c = 16: 8 windows of 2^15 buckets, 8 MiB in all: one launch
    assert gpu.scatter_groups("g1", 8, 1 << 15) == [(0, 8)]
    # an upload in 4 parts has buckets per part: 32 MiB of fronts
    assert gpu.scatter_groups("g1", 8, 1 << 15, 4) == [(0, 4), (4, 8)]
    # a window whose fronts alone pass the limit still gets a launch of its own
    assert gpu.scatter_groups("g1", 3, 1 << 20) == [(0, 1), (1, 2), (2, 3)]
    # precomputed bases: one set of buckets for every window
    assert gpu.scatter_groups("g1", 7, 1 << 18, shared=True) == [(0, 7)]
    monkeypatch.setattr(gpu, "SCATTER_FRONT_BYTES", {"g1": 0, "g2": 1 << 24})
    assert gpu.scatter_groups("g1", 7, 1 << 18) == [(0, 7)]


@pytest.fixture(scope="module")
def runner():
    from .emu import msm_runner
    return msm_runner()


def _case(group, n, seed):
    rng = random.Random(seed)
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0], ks[1], ks[2] = R - 1, 0, 1
    ks[3] = ks[4]
    limbs = D.ints_to_limbs(ks)
    return B.bench_points(group, n, "cpu", seed=seed), limbs, B.expected(group, limbs, seed=seed)


def _front_limit(group, c, per_launch, batches=1):
    """The SCATTER_FRONT_BYTES that gives ``per_launch`` windows a launch."""
    return per_launch * 32 * (1 << (c - 1)) * batches


@emulated
@pytest.mark.parametrize("group,n,c,glv", [("g1", 37, 3, False), ("g1", 37, 4, True),
                                           ("g2", 11, 3, False)])
@pytest.mark.parametrize("per_launch", [1, 3, 0])
def test_msm_exact_whatever_the_groups(runner, monkeypatch, group, n, c, glv, per_launch):
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": 3, "g2": 3})
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": 2, "g2": 2})
    monkeypatch.setattr(gpu, "AFFINE_MIN_ENTRIES", {"g1": 0, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_SHRINK_256", 256)
    monkeypatch.setattr(gpu, "AFFINE_MIN_RUN", 0)
    limit = _front_limit(group, c, per_launch) if per_launch else 0
    monkeypatch.setattr(gpu, "SCATTER_FRONT_BYTES", {group: limit, "g1" if group == "g2" else "g2": 0})
    pts, limbs, want = _case(group, n, seed=n + c)
    counting = Counting(runner)
    assert gpu.msm_gpu(pts, limbs, c, runner=counting, glv=glv) == want
    nwin = D.windows(c, 128 if glv else 255)
    launches = -(-nwin // per_launch) if per_launch else 1
    assert counting.calls["msm_scatter"] == launches
    assert counting.calls["msm_count"] == 1


@emulated
def test_sorted_entries_do_not_depend_on_the_groups(runner, monkeypatch):
    # the emulation runs threads in order, so each bucket's entries come out
    # in the same order with one launch as with one window a launch
    seen = {}
    pts, limbs, _ = _case("g1", 29, seed=5)
    for per_launch in (0, 1, 2):
        monkeypatch.setattr(gpu, "SCATTER_FRONT_BYTES",
                            {"g1": _front_limit("g1", 4, per_launch) if per_launch else 0, "g2": 0})
        grabbed = []

        class Grab(Counting):
            def launch(self, name, n, args, **kw):
                out = super().launch(name, n, args, **kw)
                if name == "msm_scatter":      # (scalars, 6 sizes, cursor, entries, ...)
                    grabbed.append((args[7], args[8]))
                return out

        gpu.window_sums_gpu(pts, limbs, 4, runner=Grab(runner))
        cursor, entries = grabbed[-1]
        # after the last launch each cursor is its bucket's end; past the last one the
        # array was never written
        seen[per_launch] = (np.array(cursor), np.array(entries[:int(cursor.max())]))
    for k in (1, 2):
        assert np.array_equal(seen[0][0], seen[k][0]) and np.array_equal(seen[0][1], seen[k][1])


@emulated
@pytest.mark.parametrize("parts", [1, 3])
def test_upload_in_parts_by_window_groups(runner, monkeypatch, parts):
    n, c = 26, 5
    pts, limbs, want = _case("g1", n, seed=9)
    xs, ys = np.array(pts.x.limbs), np.array(pts.y.limbs)
    monkeypatch.setattr(gpu, "SCATTER_FRONT_BYTES", {"g1": _front_limit("g1", c, 2, parts), "g2": 0})
    counting = Counting(runner)
    got = gpu.msm_gpu_from_host("g1", xs, ys, limbs, c, runner=counting, glv=True, batches=parts)
    assert got == want
    assert counting.calls["msm_scatter"] == -(-D.windows(c, 128) // 2)


@emulated
def test_precomputed_bases_scatter_once(runner, monkeypatch):
    from cuzklab.msm import precompute
    monkeypatch.setattr(gpu, "SCATTER_FRONT_BYTES", {"g1": 1, "g2": 1})
    pts, limbs, want = _case("g1", 19, seed=8)
    table = precompute(pts, window=3).table
    counting = Counting(runner)
    assert gpu.msm_gpu(table, limbs, 3, runner=counting, shared=True) == want
    assert counting.calls["msm_scatter"] == 1


def test_scalar_words():
    assert gpu.scalar_words(128) == 4        # GLV's halves, below 2^127, plus the carry bit
    assert gpu.scalar_words(255) == 8
    assert gpu.scalar_words(129) == 8


@emulated
def test_sort_reads_half_of_scalars_below_2_128(runner):
    # with bits = 128 the count and the scatter read words 0-3 only: words 4-7 set to
    # anything give the same window sums as words 4-7 equal to 0
    rng = random.Random(4)
    n, c = 23, 5
    pts = B.bench_points("g1", n, "cpu", seed=2)
    ks = [rng.randrange(1 << 127) for _ in range(n)]
    limbs = D.ints_to_limbs(ks)
    want = np.array(gpu.window_sums_gpu(pts, limbs, c, runner=runner, bits=128), copy=True)
    dirty = limbs.copy()
    dirty[:, 4:] = 0xFFFFFFFF
    got = gpu.window_sums_gpu(pts, dirty, c, runner=runner, bits=128)
    assert np.array_equal(np.asarray(got), want)
    # and they are the windows of the scalars themselves
    full = gpu.window_sums_gpu(pts, limbs, c, runner=runner)
    assert np.array_equal(np.asarray(full)[:len(want)], want)
