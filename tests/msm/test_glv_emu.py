"""The GLV kernel and the GLV GPU MSM, compiled for the host (see ``tests/msm/emu``).

Small n only: the emulation runs every thread serially.
"""

from __future__ import annotations

import random
import types

import numpy as np
import pytest

from cuzklab.curve import Points
from cuzklab.field.constants import R
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D
from cuzklab.msm import glv as G
from cuzklab.msm import gpu, msm

from .emu import CXX, Counting
from .test_glv import edge_scalars

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


@pytest.fixture(scope="module")
def runner():
    from .emu import msm_runner
    return msm_runner()


def _points(n, seed=1):
    return B.bench_points("g1", n, "cpu", seed)


def test_kernel_split_equals_twin(runner):
    rng = random.Random(11)
    ks = edge_scalars() + [rng.randrange(R) for _ in range(300)]
    ks += [rng.randrange(k * G.LAMBDA - 3, k * G.LAMBDA + 3) % R for k in (1, 2, G.HALF, G.HALF + 1, G.LAMBDA)]
    n = len(ks)
    pts = Points.concat([_points(n - 3), Points.infinity("g1", 2), _points(1)])
    limbs = D.ints_to_limbs(ks)
    sp, sl = gpu.glv_split_gpu(pts, limbs, runner)
    mags, neg = G.split_scalars(limbs)
    assert np.array_equal(sl, mags)
    tp, tl = G.split_points(pts, limbs)
    assert np.array_equal(tl, mags)
    assert sp.equals(tp)
    inf = sp.is_infinity()
    assert inf[n - 3] and inf[n - 2] and inf[2 * n - 3] and inf[2 * n - 2]
    assert int(inf.sum()) == 4


@pytest.mark.parametrize("n", [1, 2, 3, 7, 33])
def test_glv_msm_equals_oracle(runner, n):
    rng = random.Random(n)
    pts = _points(n)
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0] = R - 1
    if n > 2:
        ks[1], ks[2] = 0, G.LAMBDA
    limbs = D.ints_to_limbs(ks)
    want = B.expected("g1", limbs)
    for c in (2, 7, 16):
        assert gpu.msm_gpu(pts, limbs, c, runner=runner, glv=True) == want, (n, c)
    assert gpu.msm_gpu(pts, limbs, 5, runner=runner, glv=False) == want


def test_glv_msm_edge_cases(runner):
    pts = _points(4)
    dup = Points.concat([pts[np.zeros(5, dtype=np.int64)], -pts[:1], Points.infinity("g1", 2), pts])
    m = len(dup)
    ks = [7, 7, 7, 3, 3, 7, 5, 6, 1, 2, 3, 4]
    limbs = D.ints_to_limbs(ks)
    want = msm(dup, ks, window=3, glv=False)
    for c in (2, 3, 9):
        assert gpu.msm_gpu(dup, limbs, c, runner=runner, glv=True) == want
    assert gpu.msm_gpu(dup, D.ints_to_limbs([0] * m), 4, runner=runner, glv=True).is_infinity
    top = D.ints_to_limbs([R - 1] * m)
    assert gpu.msm_gpu(dup, top, 4, runner=runner, glv=True) == -msm(dup, [1] * m)
    # equal scalars: every point of a window in one bucket, spread over chunks
    same = D.ints_to_limbs([G.LAMBDA + 5] * m)
    assert gpu.msm_gpu(dup, same, 4, runner=runner, glv=True) == \
        gpu.msm_gpu(dup, same, 4, runner=runner, glv=False)
    assert gpu.msm_gpu(pts[np.array([], dtype=np.int64)], D.ints_to_limbs([]), 4, runner=runner,
                       glv=True).is_infinity


def test_glv_default_and_errors(runner, monkeypatch):
    n = 20
    pts = _points(n)
    rng = random.Random(3)
    limbs = D.ints_to_limbs([rng.randrange(R) for _ in range(n)])
    want = B.expected("g1", limbs)
    calls = []
    real = gpu.glv_split_gpu
    monkeypatch.setattr(gpu, "glv_split_gpu", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(gpu, "GLV_MIN_POINTS", n)
    assert gpu.msm_gpu(pts, limbs, 6, runner=runner) == want and calls == [1]
    assert gpu.msm_gpu(pts[:n - 1], limbs[:n - 1], 6, runner=runner) == \
        B.expected("g1", limbs[:n - 1]) and calls == [1]
    monkeypatch.setattr(gpu, "GLV", False)
    assert gpu.msm_gpu(pts, limbs, 6, runner=runner) == want and calls == [1]
    assert gpu.msm_gpu(pts, limbs, 6, runner=runner, glv=True) == want and calls == [1, 1]
    assert not gpu.use_glv("g2", 1 << 20) and not gpu.use_glv("g1", 1 << 20, shared=True)
    with pytest.raises(ValueError, match="G1"):
        gpu.use_glv("g2", 10, True)
    with pytest.raises(ValueError, match="G1"):
        gpu.msm_gpu(_points(3), D.ints_to_limbs([1, 2, 3]), 4, runner=runner, glv=True, shared=True)
    with pytest.raises(ValueError, match="points"):
        gpu.glv_split_gpu(pts, limbs[:3], runner)


def test_glv_phase_marks(runner):
    # a stand-in for CuPy's events, to check the phase names the driver records
    class Event:
        def record(self):
            pass

    cuda = types.SimpleNamespace(Event=Event, Device=lambda: types.SimpleNamespace(id=0))

    class Runner:
        xp = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")},
                                   __name__="numpy+events", cuda=cuda)
        launch = staticmethod(runner.launch)

    n = 5
    limbs = D.ints_to_limbs([3, 5, R - 1, 0, G.LAMBDA])
    want = B.expected("g1", limbs)
    for glv, names in ((True, ["start", "split", "sort", "accumulate", "bucket_sums", "reduce", "combine"]),
                       (False, ["start", "sort", "accumulate", "bucket_sums", "reduce", "combine"])):
        marks = []
        assert gpu.msm_gpu(_points(n), limbs, 3, runner=Runner(), marks=marks, glv=glv) == want
        assert [m for m, _ in marks] == names


@pytest.mark.parametrize("group,glv", [("g1", True), ("g1", False), ("g2", False)])
def test_msm_from_host_equals_msm_gpu(runner, group, glv):
    # the scalars split and sorted before the points are used (GLV: the split in its two parts)
    n = 9
    rng = random.Random(5)
    ks = [rng.randrange(R) for _ in range(n)]
    ks[1], ks[2] = 0, R - 1
    pts = B.bench_points(group, n, "cpu")
    pts = Points.concat([pts[:n - 1], Points.infinity(group, 1)])
    limbs = D.ints_to_limbs(ks)
    want = gpu.msm_gpu(pts, limbs, 4, runner=runner, glv=glv)
    assert want == msm(pts, ks, window=4)
    xs, ys = np.asarray(pts.x.limbs), np.asarray(pts.y.limbs)
    for batches in (None, 1, 2, 3, 9, 20):  # parts of 5+4, 3+3+3, single points, more than n
        got = gpu.msm_gpu_from_host(group, xs, ys, limbs, 4, runner=runner, glv=glv, batches=batches)
        assert got == want, batches
    assert gpu.msm_gpu_from_host(group, xs[:0], ys[:0], limbs[:0], 4, runner=runner).is_infinity


@pytest.mark.parametrize("glv", [False, True])
def test_msm_from_host_counts_each_part_of_the_scalars_as_it_lands(runner, glv):
    # one bucket count per part (GLV: per half of the part's split scalars), into
    # that part's buckets, then one scatter over all: the same MSM as counted at once
    n = 11
    rng = random.Random(7)
    limbs = D.ints_to_limbs([rng.randrange(R) for _ in range(n)])
    pts = _points(n)
    xs, ys = np.asarray(pts.x.limbs), np.asarray(pts.y.limbs)
    want = gpu.msm_gpu(pts, limbs, 3, runner=runner, glv=glv)
    for parts in (1, 2, 4):
        counting = Counting(runner)
        assert gpu.msm_gpu_from_host("g1", xs, ys, limbs, 3, runner=counting, glv=glv, batches=parts) == want
        assert counting.calls["msm_count"] == parts * (2 if glv else 1), parts
        assert counting.calls["msm_scatter"] == 1
        assert counting.calls.get("msm_glv_split", 0) == (2 * parts if glv else 0)


def test_window_sums_checks_given_counts(runner):
    pts = _points(4)
    limbs = D.ints_to_limbs([1, 2, 3, 4])
    with pytest.raises(ValueError, match="counts: expected"):
        gpu._window_sums(pts, limbs, 3, runner, lambda name: None, False, D.SCALAR_BITS,
                         counts=np.zeros(3, dtype=np.uint32))


def test_msm_from_host_bad_input(runner):
    pts = _points(3)
    xs, ys = np.asarray(pts.x.limbs), np.asarray(pts.y.limbs)
    limbs = D.ints_to_limbs([1, 2, 3])
    with pytest.raises(ValueError, match="ys must be a \\(3, 12\\) uint32"):
        gpu.msm_gpu_from_host("g1", xs, ys[:2], limbs, 4, runner=runner)
    with pytest.raises(ValueError, match="xs must be a \\(3, 2, 12\\)"):
        gpu.msm_gpu_from_host("g2", xs, ys, limbs, 4, runner=runner)
    with pytest.raises(ValueError, match="limbs must be an \\(n, 8\\)"):
        gpu.msm_gpu_from_host("g1", xs, ys, limbs[:, :4], 4, runner=runner)
    with pytest.raises(ValueError, match="group must be"):
        gpu.msm_gpu_from_host("g3", xs, ys, limbs, 4, runner=runner)
    with pytest.raises(ValueError, match="batches must be an int >= 1"):
        gpu.msm_gpu_from_host("g1", xs, ys, limbs, 4, runner=runner, batches=0)
    assert gpu.upload_batches("g1", 1 << 24) == gpu.UPLOAD_BATCHES
    assert gpu.upload_batches("g1", 1 << 10) == 1 and gpu.upload_batches("g2", 1 << 24) == 1
    with pytest.raises(ValueError, match="window must be in"):
        gpu.msm_gpu_from_host("g1", xs, ys, limbs, 40, runner=runner)


def test_upload_window_is_that_of_one_part():
    # each part's points have buckets of their own: the window of one part's MSM
    glv = gpu.use_glv("g1", 1 << 24, None)
    assert gpu.upload_batches("g1", 1 << 24) == 4
    assert gpu.upload_window("g1", 1 << 24) == D.default_window(1 << 22, "gpu", glv=glv) == 16
    assert gpu.upload_window("g1", 1 << 24, batches=1) == D.default_window(1 << 24, "gpu", glv=glv) == 19
    assert gpu.upload_window("g1", 1 << 24, glv=False) == D.default_window(1 << 22, "gpu")
    assert gpu.upload_window("g2", 1 << 20) == D.default_window(1 << 20, "gpu", group="g2")
    assert gpu.upload_window("g1", 5, batches=9) == D.default_window(1, "gpu", glv=gpu.use_glv("g1", 5, None))


def test_msm_from_host_default_window(runner):
    n = 13
    rng = random.Random(3)
    limbs = D.ints_to_limbs([rng.randrange(R) for _ in range(n)])
    pts = _points(n)
    xs, ys = np.asarray(pts.x.limbs), np.asarray(pts.y.limbs)
    want = gpu.msm_gpu(pts, limbs, 3, runner=runner)
    for parts in (1, 3):
        assert gpu.msm_gpu_from_host("g1", xs, ys, limbs, None, runner=runner, batches=parts) == want
