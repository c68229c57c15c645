"""Software prefetch in the MSM's hot loops (``CUZK_MSM_PREFETCH``), in the host emulation.

With bit 0 (on by default) ``msm_accumulate`` loads each sort entry one
addition ahead; with bit 1 (on by default) ``msm_affine_round`` keeps a
pipeline of pair map and sort entries, and with bit 2 it also asks L2 for
the next pair's points; without them every load happens when it is needed.
The L2 hints are no-ops on the host, so what these tests check is the
pipelines' bookkeeping: every build must give the exact MSM for runs of
every length, lone points, doublings, infinity and one pair a thread.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.field.constants import R
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D
from cuzklab.msm import gpu

from .emu import CXX, module_options

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


@pytest.fixture(scope="module", params=[0, 1, 3, 7], ids=["off", "acc", "acc+rounds", "all"])
def runner(request):
    from .emu import msm_runner
    v = request.param
    return msm_runner(defines=f"#define CUZK_MSM_PREFETCH {v}\n"
                              f"static_assert(CUZK_MSM_PREFETCH == {v}, \"prefetch setting\");\n")


def test_module_options_follow_the_settings(monkeypatch):
    monkeypatch.setattr(gpu, "PREFETCH", {"g1": 0, "g2": 1})
    monkeypatch.setattr(gpu, "EO_SQR", {"g1": 1, "g2": 0})
    g1, g2 = module_options(monkeypatch)
    assert "-DCUZK_MSM_PREFETCH=0" in g1 and "-DCUZK_MSM_PREFETCH=1" in g2
    assert "-DCUZK_EO_SQR=1" in g1 and "-DCUZK_EO_SQR=0" in g2


@pytest.mark.parametrize("group,n,c", [("g1", 41, 3), ("g2", 13, 3)])
@pytest.mark.parametrize("rounds,batch", [(0, 1), (3, 1), (3, 2), (4, 5), (2, 64)])
def test_msm_exact_with_and_without_prefetch(runner, monkeypatch, group, n, c, rounds, batch):
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": rounds, "g2": rounds})
    monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": batch, "g2": batch})
    monkeypatch.setattr(gpu, "AFFINE_MIN_ENTRIES", {"g1": 0, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_SHRINK_256", 256)
    monkeypatch.setattr(gpu, "AFFINE_MIN_RUN", 0)
    monkeypatch.setattr(gpu, "MIN_CHUNKS", 7)  # chunks of several entries a thread
    rng = random.Random(n * 31 + rounds * 7 + batch)
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0], ks[1], ks[2] = R - 1, 0, 1
    ks[3] = ks[4]
    limbs = D.ints_to_limbs(ks)
    pts = B.bench_points(group, n, "cpu", seed=3)
    assert gpu.msm_gpu(pts, limbs, c, runner=runner) == B.expected(group, limbs, seed=3)


def test_doublings_and_infinity_with_and_without_prefetch(runner, monkeypatch):
    from cuzklab.curve import Points
    from cuzklab.msm import msm
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": 4, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_MIN_ENTRIES", {"g1": 0, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_SHRINK_256", 256)
    monkeypatch.setattr(gpu, "AFFINE_MIN_RUN", 0)
    pts = B.bench_points("g1", 4, "cpu")
    inf = Points.infinity("g1", 2)
    dup = Points.concat([pts[np.zeros(6, dtype=np.int64)], -pts[:2], inf, pts, -pts[1:3]])
    ks = [5, 5, 5, 5, 5, 5, 5, 2, 5, 5, 1, 2, 3, 4, 2, 3]
    limbs = D.ints_to_limbs(ks)
    for batch in (1, 3):
        monkeypatch.setattr(gpu, "AFFINE_BATCH", {"g1": batch, "g2": batch})
        for c in (2, 3):
            assert gpu.msm_gpu(dup, limbs, c, runner=runner, glv=False) == msm(dup, ks, window=c), (batch, c)
