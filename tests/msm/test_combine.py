"""The host combination of window sums against the reference formulas, with mpz and with ints."""

from __future__ import annotations

import random

import pytest

from cuzklab.curve import reference as ref
from cuzklab.field.constants import P, R
from cuzklab.msm import combine as C


def _xyzz(group, k, rng):
    """Return k G as an XYZZ tuple with a random ZZ/ZZZ scaling (infinity for k = 0)."""
    F = ref.field_of(group)
    if k % R == 0:
        return (F.one, F.one, F.zero, F.zero)
    x, y = ref.affine_mul(group, ref.generator(group), k)
    z = rng.randrange(1, P) if group == "g1" else (rng.randrange(1, P), rng.randrange(P))
    zz = F.sqr(z)
    zzz = F.mul(zz, z)
    return (F.mul(x, zz), F.mul(y, zzz), zz, zzz)


def _want(group, ks, c):
    total = sum(k << (c * w) for w, k in enumerate(ks)) % R
    return ref.affine_mul(group, ref.generator(group), total) if total else None


def _cases(rng, c):
    """Window multipliers (of G) that reach every case of the combination's additions."""
    return [
        [rng.randrange(R) for _ in range(6)],
        [0, 0, 0],                      # every window empty
        [3, 0, 0, 0],                   # only the lowest window
        [0, 0, 1],                      # only the top window: doublings from the first add
        [R - 1, 1],                     # -G + 2^c G
        [2, R - 1],                     # 2 G - 2^c G, neither is a doubling
        [(-(1 << c)) % R, 1],           # the sum is infinity: acc + (-acc)
        [1 << c, R - 1],                # 2^c G + 2^c (R - 1) G = infinity
        [1 << c, 1],                    # 2^c G + 2^c G: the addition is a doubling
        [rng.randrange(R)],             # one window
    ]


@pytest.mark.parametrize("group", ["g1", "g2"])
@pytest.mark.parametrize("big", ["mpz", "int"])
def test_combine_windows_matches_reference(group, big, monkeypatch):
    if big == "int":
        monkeypatch.setattr(C, "_big", int)
    rng = random.Random(7)
    c = 5
    for ks in _cases(rng, c):
        pts = [_xyzz(group, k, rng) for k in ks]
        got = C.combine_windows(group, pts, c)
        want = _want(group, ks, c)
        if want is None:
            assert got.is_infinity, ks
        else:
            assert got.xy == want, ks
            assert all(type(v) is int for v in (got.xy if group == "g1" else sum(got.xy, ()))), ks


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_repeated_doubling_matches_reference(group):
    rng = random.Random(3)
    x, y = ref.affine_mul(group, ref.generator(group), rng.randrange(1, R))
    pt = ref.affine_to_jacobian(group, (x, y))
    want = pt
    for _ in range(9):
        want = ref.jacobian_double(group, want)
    got = C._dbl_times(group, pt, 9)
    assert C._lift_point(got, int) == want


def test_written_out_g1_addition_matches_reference():
    # the same coordinates as reference.jacobian_add, not only the same point
    rng = random.Random(11)
    F = ref.field_of("g1")

    def jac(k):
        x, y = ref.affine_mul("g1", ref.generator("g1"), k)
        z = rng.randrange(1, P)
        return (F.mul(x, F.sqr(z)), F.mul(y, F.mul(F.sqr(z), z)), z)

    inf = ref.jacobian_infinity("g1")
    a, b = jac(5), jac(9)
    a2 = (F.mul(a[0], 4), F.mul(a[1], 8), F.mul(a[2], 2))  # a, scaled by z = 2
    neg_a = (a[0], F.neg(a[1]), a[2])
    for p1, p2 in [(a, b), (b, a), (a, a2), (a, neg_a), (inf, b), (a, inf), (inf, inf)]:
        assert C._lift_point(C._add_g1(p1, p2), int) == ref.jacobian_add("g1", p1, p2)
    assert C._to_affine_g1(a) == ref.jacobian_to_affine("g1", a)
    assert C._to_affine_g1(inf) is None


@pytest.mark.parametrize("group", ["g1", "g2"])
@pytest.mark.parametrize("c", [5, 16])
def test_native_combination_from_the_device_limbs(group, c):
    # gpu.combine_sums takes the (W, 4, WORDS) Montgomery limbs the reduction leaves and
    # combines them in C (g1_combine / g2_combine): the reference's point in every case
    from cuzklab.msm import gpu
    from cuzklab.native.build import library
    lib = library()
    rng = random.Random(c)
    for ks in _cases(rng, c):
        pts = [_xyzz(group, k, rng) for k in ks]
        limbs = gpu.xyzz_limbs(group, pts)
        assert gpu._xyzz_to_points(group, limbs) == [tuple(v) for v in pts]   # the encoding's inverse
        got = gpu._combine_native(lib, group, limbs, c)
        want = _want(group, ks, c)
        assert (got.is_infinity if want is None else got.xy == want), ks
        assert gpu.combine_sums(group, limbs, c) == got
    assert gpu._combine_native(lib, group, gpu.xyzz_limbs(group, []), c).is_infinity


def test_combine_sums_without_the_native_library(monkeypatch):
    from cuzklab.msm import gpu
    from cuzklab.native import build

    def broken():
        raise build.NativeBuildError("no C compiler", compiler=None)
    rng = random.Random(2)
    ks = [rng.randrange(R) for _ in range(4)]
    limbs = gpu.xyzz_limbs("g1", [_xyzz("g1", k, rng) for k in ks])
    want = _want("g1", ks, 7)
    monkeypatch.setattr(build, "library", broken)          # falls back to Python ints
    assert gpu.combine_sums("g1", limbs, 7).xy == want
    monkeypatch.undo()
    monkeypatch.setattr(gpu, "NATIVE_COMBINE", False)
    seen = []
    monkeypatch.setattr(gpu, "_combine_native", lambda *a: seen.append(a))
    assert gpu.combine_sums("g1", limbs, 7).xy == want and not seen
