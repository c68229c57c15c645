"""The MSM kernels built on the even/odd-row Fp multiplier (``CUZKLAB_MUL=fp=eo``), in the host emulation.

Every Fp product of the G1 and G2 kernels (XYZZ accumulation, batch-affine
rounds with their inversions, bucket sums, reduction) then runs through
``mont_mul_eo``; the results must equal the exact MSM, as with the default
multiplier.
"""

from __future__ import annotations

import random

import pytest

from cuzklab.field.constants import R
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D
from cuzklab.msm import gpu

from .emu import CXX

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


@pytest.fixture(scope="module")
def eo_runner():
    from .emu import msm_runner
    return msm_runner(defines="#define CUZK_FP_MUL_EO 1\n"
                              "static_assert(CUZK_FP_MUL_EO == 1, \"built on the even/odd multiplier\");\n")


@pytest.mark.parametrize("group,n,c", [("g1", 37, 4), ("g2", 11, 3)])
@pytest.mark.parametrize("rounds", [0, 2])
def test_msm_on_the_even_odd_multiplier_is_exact(eo_runner, monkeypatch, group, n, c, rounds):
    monkeypatch.setattr(gpu, "AFFINE_ROUNDS", {"g1": rounds, "g2": rounds})
    monkeypatch.setattr(gpu, "AFFINE_MIN_ENTRIES", {"g1": 0, "g2": 0})
    monkeypatch.setattr(gpu, "AFFINE_SHRINK_256", 256)
    monkeypatch.setattr(gpu, "AFFINE_MIN_RUN", 0)
    rng = random.Random(5)
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0], ks[1], ks[2] = R - 1, 0, 1
    ks[3] = ks[4]  # two equal scalars on two points: shared buckets
    limbs = D.ints_to_limbs(ks)
    pts = B.bench_points(group, n, "cpu", seed=2)
    got = gpu.msm_gpu(pts, limbs, c, runner=eo_runner)
    assert got == B.expected(group, limbs, seed=2)
