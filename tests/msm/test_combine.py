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


@pytest.mark.parametrize("group", ["g1", "g2"])
@pytest.mark.parametrize("big", ["mpz", "int"])
def test_combine_windows_matches_reference(group, big, monkeypatch):
    if big == "int":
        monkeypatch.setattr(C, "_big", int)
    rng = random.Random(7)
    c = 5
    cases = [
        [rng.randrange(R) for _ in range(6)],
        [0, 0, 0],                      # every window empty
        [3, 0, 0, 0],                   # only the lowest window
        [0, 0, 1],                      # only the top window: doublings from the first add
        [R - 1, 1],                     # -G + 2^c G
        [2, R - 1],                     # 2 G - 2^c G, neither is a doubling
        [(-(1 << c)) % R, 1],           # the sum is infinity: acc + (-acc)
        [1 << c, R - 1],                # 2^c G + 2^c (R - 1) G = infinity
        [1 << c, 1],                    # 2^c G + 2^c G: the addition is a doubling
    ]
    for ks in cases:
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
