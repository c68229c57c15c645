"""The constants module: moduli, Montgomery constants, generators, roots of unity."""

import random

import pytest

import cuzklab.field.constants as C
from cuzklab.field.cuda import _gen

# r - 1 = 2^32 * 3 * 11 * 19 * 10177 * 125527 * 859267 * 906349^2 * 2508409 * 2529403 * 52437899 * 254760293^2
FR_FACTORS = {2: 32, 3: 1, 11: 1, 19: 1, 10177: 1, 125527: 1, 859267: 1, 906349: 2,
              2508409: 1, 2529403: 1, 52437899: 1, 254760293: 2}


def _is_probable_prime(n: int) -> bool:
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def test_moduli():
    assert C.R.bit_length() == 255 and C.P.bit_length() == 381
    assert _is_probable_prime(C.R) and _is_probable_prime(C.P)
    assert C.FR.modulus == C.R and C.FP.modulus == C.P
    assert (C.FR.limbs, C.FR.nbytes, C.FP.limbs, C.FP.nbytes) == (8, 32, 12, 48)


@pytest.mark.parametrize("fc", [C.FR, C.FP], ids=["Fr", "Fp"])
def test_montgomery_constants(fc):
    m = fc.modulus
    radix = 1 << (32 * fc.limbs)
    assert fc.mont_radix == radix
    assert fc.mont_r == radix % m
    assert fc.mont_r2 == radix * radix % m
    assert fc.mont_r3 == pow(radix, 3, m)
    assert fc.mont_rinv * radix % m == 1
    assert (fc.m0inv * m) % (1 << 32) == (1 << 32) - 1  # m0inv = -m^-1 mod 2^32
    assert sum(v << (32 * i) for i, v in enumerate(fc.modulus_limbs)) == m
    assert sum(v << (32 * i) for i, v in enumerate(fc.mont_r2_limbs)) == fc.mont_r2
    # room for lazy reduction: 2r < 2^256, 4p < 2^384
    assert (2 if fc.limbs == 8 else 4) * m < radix


def test_fr_generator_and_roots():
    r = C.R
    prod = 1
    for q, e in FR_FACTORS.items():
        assert _is_probable_prime(q)
        prod *= q ** e
    assert prod == r - 1
    assert C.FR.generator == 7
    for q in FR_FACTORS:  # 7 is a generator of Fr*
        assert pow(7, (r - 1) // q, r) != 1
    assert C.FR.two_adicity == 32
    w = C.FR.root_of_unity
    assert pow(w, 1 << 32, r) == 1 and pow(w, 1 << 31, r) == r - 1
    for k in (0, 1, 5, 20, 32):
        wk = C.FR.root_of_unity_of_order(k)
        assert pow(wk, 1 << k, r) == 1
        if k:
            assert pow(wk, 1 << (k - 1), r) == r - 1
            assert C.FR.root_of_unity_of_order(k - 1) == wk * wk % r
    with pytest.raises(ValueError):
        C.FR.root_of_unity_of_order(33)
    with pytest.raises(TypeError):
        C.FR.root_of_unity_of_order(1.0)


def test_fp_generator_and_adicity():
    p = C.P
    assert C.FP.two_adicity == 1
    assert C.FP.generator == 2
    assert pow(2, (p - 1) // 2, p) == p - 1          # a quadratic non-residue
    q = 3
    assert (p - 1) % q == 0 and pow(2, (p - 1) // q, p) != 1  # not a cube
    assert p % 4 == 3  # -1 is a non-residue, so u^2 = -1 defines Fp2


def test_bls_parameter():
    x = C.BLS_X
    assert C.R == x ** 4 - x ** 2 + 1


def test_cuda_traits_header_is_generated_from_constants():
    assert _gen.HEADER.read_text() == _gen.generate(), \
        "cuzk_traits.cuh is stale: run python -m cuzklab.field.cuda._gen"


def test_to_limbs():
    x = random.Random(3).getrandbits(256)
    assert sum(v << (32 * i) for i, v in enumerate(C.to_limbs(x, 8))) == x
