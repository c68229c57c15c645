"""L2 hints of the MSM's counting sort (``gpu.SORT_HINTS``, ``CUZK_SORT_HINTS``).

Bit 0 loads the scalars of ``msm_count`` / ``msm_scatter`` as streaming
data, bit 1 stores the scatter's entries with an evict-last policy. The
hints change where data sits in L2, never a value: every setting must give
the exact MSM, with one scatter launch or one per window. In the host
emulation the hints fall back to plain loads and stores (what is checked
there is that every setting builds and keeps the sort's bookkeeping); on a
CUDA machine the GPU test runs the hinted instructions themselves.
"""

from __future__ import annotations

import random

import pytest

from cuzklab.field.constants import R
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D
from cuzklab.msm import gpu

from .emu import CXX, Counting, module_options

emulated = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


def _scalars(n, seed):
    """n random scalars with r - 1, 0, 1 and a repeat among them."""
    rng = random.Random(seed)
    ks = [rng.randrange(R) for _ in range(n)]
    ks[0], ks[1], ks[2] = R - 1, 0, 1
    ks[3] = ks[4]
    return D.ints_to_limbs(ks)


def test_module_options_follow_the_setting(monkeypatch):
    monkeypatch.setattr(gpu, "SORT_HINTS", {"g1": 3, "g2": 1})
    g1, g2 = module_options(monkeypatch)
    assert "-DCUZK_SORT_HINTS=3" in g1 and "-DCUZK_SORT_HINTS=1" in g2


def test_defaults_are_masks_of_the_two_bits():
    assert set(gpu.SORT_HINTS) == {"g1", "g2"}
    assert all(v in (0, 1, 2, 3) for v in gpu.SORT_HINTS.values())


@pytest.fixture(scope="module", params=[0, 1, 2, 3], ids=["plain", "stream", "keep", "both"])
def runner(request):
    from .emu import msm_runner
    v = request.param
    return msm_runner(defines=f"#define CUZK_SORT_HINTS {v}\n"
                              f"static_assert(CUZK_SORT_HINTS == {v}, \"sort hints setting\");\n")


@emulated
@pytest.mark.parametrize("group,n,c,glv", [("g1", 33, 4, True), ("g1", 21, 3, False), ("g2", 9, 3, False)])
@pytest.mark.parametrize("per_window", [False, True])
def test_msm_exact_under_every_setting(runner, monkeypatch, group, n, c, glv, per_window):
    limit = 32 * (1 << (c - 1)) if per_window else 0
    monkeypatch.setattr(gpu, "SCATTER_FRONT_BYTES", {"g1": limit, "g2": limit})
    limbs = _scalars(n, seed=n + c)
    pts = B.bench_points(group, n, "cpu", seed=2)
    counting = Counting(runner)
    assert gpu.msm_gpu(pts, limbs, c, runner=counting, glv=glv) == B.expected(group, limbs, seed=2)
    nwin = D.windows(c, 128 if glv else 255)
    assert counting.calls["msm_scatter"] == (nwin if per_window else 1)


@pytest.mark.gpu
@pytest.mark.parametrize("hints", [0, 3])
@pytest.mark.parametrize("c", [19, 16])
def test_gpu_msm_exact_with_and_without_hints(monkeypatch, hints, c):
    # G1 only: each setting is a module of its own to compile (G2's take
    # minutes; G2 keeps the plain accesses by default, which every other G2
    # GPU test runs)
    from cuzklab.backend import xp
    n = 1 << 14
    monkeypatch.setattr(gpu, "SORT_HINTS", {"g1": hints, "g2": gpu.SORT_HINTS["g2"]})
    # one window a launch at c = 19 (7 x 2^18 buckets pass the 8 MiB default)
    limbs = B.bench_scalars(n, 5)
    pts = B.bench_points("g1", n, "gpu")
    assert gpu.msm_gpu(pts, xp("gpu").asarray(limbs), c) == B.expected("g1", limbs)
