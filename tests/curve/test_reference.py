"""The Python-int reference formulas against py_ecc."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuzklab.curve import constants as K
from cuzklab.curve import reference as ref
from cuzklab.field.constants import P, R

from ._helpers import off_subgroup_point as _off_subgroup_point

b = pytest.importorskip("py_ecc.optimized_bls12_381")

GROUPS = ["g1", "g2"]
scalars = st.integers(min_value=1, max_value=R - 1)


def _pe(group):
    return b.G1 if group == "g1" else b.G2


def _to_ref(group, pt):
    if b.is_inf(pt):
        return None
    x, y = b.normalize(pt)
    if group == "g1":
        return (x.n, y.n)
    return (tuple(int(c) for c in x.coeffs), tuple(int(c) for c in y.coeffs))


def test_generators_and_cofactors_match_py_ecc():
    assert _to_ref("g1", b.G1) == K.G1_GENERATOR
    assert _to_ref("g2", b.G2) == K.G2_GENERATOR
    assert ref.is_on_curve("g1", K.G1_GENERATOR) and ref.is_on_curve("g2", K.G2_GENERATOR)
    assert K.H_G1 * R == P + 1 - (K.BLS_X + 1)


def test_g2_cofactor_is_the_twist_order_over_r():
    # E'(Fp2) is the sextic twist of E over Fp2: with t = x + 1 the trace of E(Fp) and
    # t^2 - 4p = -3 f^2, E(Fp2) has trace t2 = t^2 - 2p and the twist of order divisible
    # by r has p^2 + 1 - (3 t f + t2) / 2 points; h2 is that order over r
    t = K.BLS_X + 1
    f = math.isqrt((4 * P - t * t) // 3)
    assert 3 * f * f == 4 * P - t * t
    t2 = t * t - 2 * P
    order = P * P + 1 - (3 * t * f + t2) // 2
    assert order % R == 0 and K.H_G2 == order // R
    # the group order annihilates a point of E'(Fp2) outside the subgroup; r alone does not
    pt = _off_subgroup_point("g2")
    assert ref.affine_mul("g2", pt, R) is not None
    assert ref.affine_mul("g2", pt, K.H_G2 * R) is None


@settings(max_examples=4, deadline=None)
@given(k1=scalars, k2=scalars)
@pytest.mark.parametrize("group", GROUPS)
def test_formulas_against_py_ecc(group, k1, k2):
    G = _pe(group)
    p1, p2 = b.multiply(G, k1), b.multiply(G, k2)
    a1, a2 = _to_ref(group, p1), _to_ref(group, p2)
    want_sum = _to_ref(group, b.add(p1, p2))
    want_dbl = _to_ref(group, b.double(p1))
    assert ref.affine_add(group, a1, a2) == want_sum
    j1, j2 = ref.affine_to_jacobian(group, a1), ref.affine_to_jacobian(group, a2)
    assert ref.jacobian_to_affine(group, ref.jacobian_add(group, j1, j2)) == want_sum
    assert ref.jacobian_to_affine(group, ref.jacobian_add_mixed(group, j1, a2)) == want_sum
    assert ref.jacobian_to_affine(group, ref.jacobian_double(group, j1)) == want_dbl
    x1, x2 = ref.affine_to_xyzz(group, a1), ref.affine_to_xyzz(group, a2)
    assert ref.xyzz_to_affine(group, ref.xyzz_add(group, x1, x2)) == want_sum
    assert ref.xyzz_to_affine(group, ref.xyzz_add_mixed(group, x1, a2)) == want_sum
    assert ref.xyzz_to_affine(group, ref.xyzz_double(group, x1)) == want_dbl
    assert ref.affine_mul(group, ref.generator(group), k1) == a1


@pytest.mark.parametrize("group", GROUPS)
def test_special_cases(group):
    g = ref.generator(group)
    neg = ref.affine_neg(group, g)
    inf_j, inf_x = ref.jacobian_infinity(group), ref.xyzz_infinity(group)
    jg, xg = ref.affine_to_jacobian(group, g), ref.affine_to_xyzz(group, g)
    two = ref.affine_mul(group, g, 2)
    # P + (-P), P + P through add, doubling of infinity, infinity + P
    assert ref.affine_add(group, g, neg) is None
    assert ref.jacobian_to_affine(group, ref.jacobian_add(group, jg, ref.affine_to_jacobian(group, neg))) is None
    assert ref.xyzz_to_affine(group, ref.xyzz_add_mixed(group, xg, neg)) is None
    assert ref.jacobian_to_affine(group, ref.jacobian_add(group, jg, jg)) == two
    assert ref.xyzz_to_affine(group, ref.xyzz_add(group, xg, xg)) == two
    assert ref.xyzz_to_affine(group, ref.xyzz_add_mixed(group, xg, g)) == two
    assert ref.jacobian_to_affine(group, ref.jacobian_double(group, inf_j)) is None
    assert ref.xyzz_to_affine(group, ref.xyzz_double(group, inf_x)) is None
    assert ref.xyzz_to_affine(group, ref.xyzz_add(group, inf_x, xg)) == g
    assert ref.affine_mul(group, g, R) is None
    assert ref.affine_mul(group, g, -1) == neg
    assert ref.in_subgroup(group, g) and ref.in_subgroup(group, None)


@pytest.mark.parametrize("group", GROUPS)
def test_subgroup_check_agrees_with_order(group):
    pt = _off_subgroup_point(group)
    assert ref.is_on_curve(group, pt)
    assert ref.in_subgroup(group, pt) is False
    assert ref.in_subgroup_by_order(group, pt) is False
    # clearing the cofactor brings it into the subgroup (G1: h1; G2: any multiple of h2 works too)
    h = K.H_G1 if group == "g1" else K.H_G2
    q = ref.affine_mul(group, pt, h)
    assert ref.in_subgroup(group, q) and ref.in_subgroup_by_order(group, q)
