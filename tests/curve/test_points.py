"""Batched points (affine, Jacobian, XYZZ) against py_ecc and the reference, on CPU and GPU."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.backend import to_numpy
from cuzklab.curve import Point, Points
from cuzklab.curve import jacobian as J
from cuzklab.curve import reference as ref
from cuzklab.curve import xyzz as X
from cuzklab.errors import CurveError
from cuzklab.field.constants import R

from ._helpers import off_subgroup_point as _off_subgroup_point

GROUPS = ["g1", "g2"]


def _sample(group, n, seed=1, backend="cpu"):
    rng = random.Random(seed)
    g = ref.generator(group)
    pts = [ref.affine_mul(group, g, rng.randrange(1, R)) for _ in range(n)]
    return pts, Points.from_ints(pts, group, backend, check=False)


@pytest.mark.parametrize("group", GROUPS)
def test_py_ecc_round_trip(group):
    b = pytest.importorskip("py_ecc.optimized_bls12_381")
    G = b.G1 if group == "g1" else b.G2
    Z = b.Z1 if group == "g1" else b.Z2
    pe = [b.multiply(G, 7), b.double(b.multiply(G, 11)), Z]  # projective z != 1 too
    pts = Points.from_py_ecc(pe, group)
    assert len(pts) == 3 and pts.group == group
    assert all(b.eq(a, c) for a, c in zip(pts.to_py_ecc(), pe))
    assert Point.from_py_ecc(pe[0], group) == Point.generator(group) * 7
    assert b.eq(Point.generator(group).to_py_ecc(), G)


@pytest.mark.parametrize("group", GROUPS)
def test_batched_arithmetic(group, backend):
    raw, P = _sample(group, 4, 2, backend)
    raw2, Q = _sample(group, 4, 3, backend)
    # mix in the special cases: P + P, P + (-P), infinity on either side
    Q = Points.concat([Q[:1], P[1:2], -P[2:3], Points.infinity(group, 1, backend)])
    raw2 = [raw2[0], raw[1], ref.affine_neg(group, raw[2]), None]
    want = [ref.affine_add(group, a, c) for a, c in zip(raw, raw2)]
    assert (P + Q).to_ints() == want
    assert Points.from_xyzz(X.add(X.from_affine(P), X.from_affine(Q))).to_ints() == want
    assert Points.from_xyzz(X.add_mixed(X.from_affine(P), Q)).to_ints() == want
    assert Points.from_xyzz(X.add_mixed(X.from_affine(Q), P)).to_ints() == want
    assert Points.from_jacobian(J.add(J.from_affine(P), J.from_affine(Q))).to_ints() == want
    dbl = [ref.affine_add(group, a, a) for a in raw2]
    assert Q.double().to_ints() == dbl
    assert Points.from_xyzz(X.double(X.from_affine(Q))).to_ints() == dbl
    assert Points.from_xyzz(X.double(X.infinity(group, 2, backend))).to_ints() == [None, None]
    assert (P - P).to_ints() == [None] * 4
    ks = [0, 1, R - 1, R + 5]
    assert P.mul(ks).to_ints() == [ref.affine_mul(group, a, k) for a, k in zip(raw, ks)]


@pytest.mark.parametrize("group", GROUPS)
def test_checks(group, backend):
    _, P = _sample(group, 2, 4, backend)
    assert to_numpy(P.is_on_curve()).all() and to_numpy(P.in_subgroup()).all()
    bad = Points.from_ints([_off_subgroup_point(group)], group, backend, check=False)
    assert to_numpy(bad.is_on_curve()).all()
    assert not to_numpy(bad.in_subgroup()).any()
    with pytest.raises(CurveError, match=r"points\[0\].*subgroup"):
        Points.from_ints([_off_subgroup_point(group)], group, backend)
    g = ref.generator(group)
    F = ref.field_of(group)
    off = (g[0], F.add(g[1], F.one))
    with pytest.raises(CurveError, match=r"points\[1\].*not on the"):
        Points.from_ints([g, off], group, backend)
    assert Points.infinity(group, 2, backend).validate() is not None


def test_bad_arguments():
    g = ref.generator("g1")
    with pytest.raises(ValueError, match="group"):
        Points.from_ints([g], "g3")
    with pytest.raises(TypeError, match=r"points\[0\]"):
        Points.from_ints([(1.5, 2)], "g1")
    with pytest.raises(CurveError, match="not in"):
        Points.from_ints([(-1, 2)], "g1")
    with pytest.raises(TypeError):
        Points.from_ints([g], "g2")
    p1, p2 = Points.generator("g1"), Points.generator("g2")
    with pytest.raises(TypeError):
        p1 + p2
    with pytest.raises(ValueError, match="scalars"):
        Points.generator("g1", 2).mul([1, 2, 3])


def test_point_and_batch_helpers():
    g1 = Point.generator("g1")
    assert (g1 + (-g1)).is_infinity and (g1 * R).is_infinity
    assert 3 * g1 == g1 + g1 + g1
    pts = Points.generator("g1", 3)
    assert pts.point(2) == g1 and len(pts[1:]) == 2
    assert pts.mul([1, 2, 3])[2:].to_ints() == [(g1 * 3).xy]
    many = Points.generator("g1").mul([1, 2])
    assert many.to_ints() == [g1.xy, (g1 * 2).xy]
    assert np.asarray(pts == pts).all() and pts.equals(pts)
