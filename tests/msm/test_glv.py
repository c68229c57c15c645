"""The GLV split of G1 scalars: constants, the host twin, and the CPU MSM over the split.

The kernel ``msm_glv_split`` and the GPU driver with GLV are tested against
these in ``test_glv_emu.py`` (host emulation) and ``test_msm_gpu.py`` (GPU).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuzklab.curve import Points
from cuzklab.curve import reference as ref
from cuzklab.curve.constants import BLS_X, G1_GENERATOR
from cuzklab.field.constants import FP, P, R
from cuzklab.msm import bench as B
from cuzklab.msm import digits as D
from cuzklab.msm import glv as G
from cuzklab.msm import msm, precompute

L = G.LAMBDA
H = G.HALF


def edge_scalars() -> list[int]:
    """Scalars in [0, r) at the boundaries of the decomposition and the windows."""
    vals = [0, 1, 2, 3, L - 1, L, L + 1, L + 2, H - 1, H, H + 1, H + 2, 2 * L - 1, 2 * L,
            R - 1, R - 2, R - L, R - L - 1, R - L + 1, R - H, R - H - 1,
            3 * L, H * L, (H + 1) * L, (H + 2) * L, L * L, L * L - 1, L * L + L - 1,
            H * L + H, H * L + H + 1, (H + 1) * L + H, (H + 1) * L + H + 1, (H + 1) * L - 1,
            (1 << 127) - 1, 1 << 127, (1 << 127) + 1, (1 << 128) - 1, 1 << 128, (1 << 128) + 1,
            (1 << 254) - 1, 1 << 254, (1 << 254) + 1, R // 2, R // 2 + 1]
    assert all(0 <= v < R for v in vals)
    return vals


def check_pair(k, k1, k2):
    assert (k1 + k2 * L - k) % R == 0, k
    assert abs(k1) <= H + 1 and abs(k2) <= H + 1, k
    assert abs(k1) < 1 << G.MAX_ABS_BITS and abs(k2) < 1 << G.MAX_ABS_BITS, k


def test_constants_derived_from_z():
    assert L == BLS_X ** 2 - 1 and L.bit_length() == 128
    assert L * L + L + 1 == R and pow(L, 3, R) == 1 and L != 1
    assert R == BLS_X ** 4 - BLS_X ** 2 + 1
    assert G.MU == (1 << 256) // L and G.HALF == L // 2 and L % 2 == 1
    assert G.SCALAR_BITS == 128 and D.windows(16, G.SCALAR_BITS) == 8 and D.windows(16) == 16


def test_beta_is_the_cube_root_acting_as_lambda():
    b = G.beta()
    assert b != 1 and pow(b, 3, P) == 1
    g = G1_GENERATOR
    assert G.phi(g) == ref.affine_mul("g1", g, L)
    # the other root acts as lambda^2 (the subgroup check's [-x^2])
    assert b * b % P == ref.g1_beta()
    assert (b * b * g[0] % P, g[1]) == ref.affine_mul("g1", g, L * L % R)
    # on other points, and against py_ecc
    q = ref.affine_mul("g1", g, 123456789)
    assert G.phi(q) == ref.affine_mul("g1", q, L)
    assert G.phi(None) is None
    pe = pytest.importorskip("py_ecc.optimized_bls12_381")
    want = pe.normalize(pe.multiply(pe.G1, L))
    assert (int(want[0].n), int(want[1].n)) == G.phi(g)


def test_decompose_edges():
    for k in edge_scalars():
        check_pair(k, *G.decompose(k))
    assert G.decompose(0) == (0, 0)
    assert G.decompose(L) == (0, 1)
    assert G.decompose(R - 1) == (-1, 0)
    for bad in (-1, R, 1 << 255):
        with pytest.raises(ValueError):
            G.decompose(bad)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=R - 1))
def test_decompose_random(k):
    check_pair(k, *G.decompose(k))


def test_split_scalars_twin():
    rng = random.Random(5)
    ks = edge_scalars() + [rng.randrange(R) for _ in range(50)]
    mags, neg = G.split_scalars(D.ints_to_limbs(ks))
    n = len(ks)
    assert mags.shape == (2 * n, 8) and mags.dtype == np.uint32 and neg.shape == (2 * n,)
    assert not mags[:, 4:].any()
    vals = [(-v if s else v) for v, s in zip(D.limbs_to_ints(mags), neg.tolist())]
    for i, k in enumerate(ks):
        assert (vals[i], vals[n + i]) == G.decompose(k)


def test_kernel_constants_layout():
    t = G.kernel_constants()
    assert t.dtype == np.uint32 and len(t) == sum(w for _, w in G.CONST_LAYOUT)
    got, off = {}, 0
    for name, w in G.CONST_LAYOUT:
        got[name] = sum(int(t[off + i]) << (32 * i) for i in range(w))
        off += w
    assert got == {"beta": G.beta() * FP.mont_radix % P, "lambda": L, "half": H, "mu": G.MU}


def test_signed_digits_of_split_scalars():
    rng = random.Random(6)
    ks = edge_scalars() + [rng.randrange(R) for _ in range(30)]
    mags, _ = G.split_scalars(D.ints_to_limbs(ks))
    for c in (2, 5, 16, 24):
        dg = D.signed_digits(mags, c, bits=G.SCALAR_BITS)
        assert dg.shape == (D.windows(c, G.SCALAR_BITS), 2 * len(ks))
        assert np.abs(dg).max() <= 1 << (c - 1)
        assert D.digits_value(dg, c) == D.limbs_to_ints(mags)


def test_split_points_and_cpu_msm():
    rng = random.Random(7)
    n = 12
    pts = B.bench_points("g1", n, "cpu")
    pts = Points.concat([pts, Points.infinity("g1", 2), pts[np.array([0, 0])]])
    ks = [rng.randrange(R) for _ in range(len(pts))]
    ks[0], ks[1], ks[2], ks[3] = 0, R - 1, L, H + 1
    limbs = D.ints_to_limbs(ks)
    sp, sl = G.split_points(pts, limbs)
    assert len(sp) == 2 * len(pts)
    assert sp[np.arange(len(pts))].x.to_ints() == pts.x.to_ints()
    assert bool(sp.is_infinity()[n]) and bool(sp.is_infinity()[len(pts) + n])
    assert sp.is_on_curve().all()
    want = msm(pts, ks, glv=False)
    assert msm(sp, D.limbs_to_ints(sl), glv=False) == want
    for c in (2, 6):
        assert msm(pts, ks, window=c, glv=True) == want
    assert msm(pts, [0] * len(pts), glv=True).is_infinity
    with pytest.raises(ValueError, match="G1"):
        G.split_points(B.bench_points("g2", 2, "cpu"), D.ints_to_limbs([1, 2]))


def test_msm_glv_argument_errors():
    g2 = B.bench_points("g2", 3, "cpu")
    with pytest.raises(ValueError, match="G1"):
        msm(g2, [1, 2, 3], glv=True)
    assert msm(g2, [1, 2, 3], glv=False) == msm(g2, [1, 2, 3])
    g1 = B.bench_points("g1", 3, "cpu")
    with pytest.raises(ValueError, match="precomputed"):
        msm(precompute(g1, window=4), [1, 2, 3], glv=True)
    with pytest.raises(TypeError, match="glv"):
        msm(g1, [1, 2, 3], glv="yes")
    assert msm(g1[np.array([], dtype=np.int64)], [], glv=True).is_infinity
