"""Fp2 = Fp[u]/(u^2+1) against a Python-int model, on both backends."""

import random

import numpy as np
import pytest

from cuzklab.errors import FieldError
from cuzklab.field import Fp, Fp2, Fr, InverseOfZeroError
from cuzklab.field.constants import P


def m_mul(x, y):
    return ((x[0] * y[0] - x[1] * y[1]) % P, (x[0] * y[1] + x[1] * y[0]) % P)


def m_inv(x):
    n = pow((x[0] * x[0] + x[1] * x[1]) % P, -1, P)
    return (x[0] * n % P, (-x[1]) * n % P)


def m_pow(x, e):
    r = (1, 0)
    for bit in bin(e)[2:]:
        r = m_mul(r, r)
        if bit == "1":
            r = m_mul(r, x)
    return r


def _vals(rnd, n):
    edge = [(0, 0), (1, 0), (0, 1), (P - 1, P - 1), (P - 1, 0), (0, P - 1), (1, 1)]
    return edge + [(rnd.randrange(P), rnd.randrange(P)) for _ in range(n)]


def test_fp2_ops(backend):
    rnd = random.Random(5)
    xs = _vals(rnd, 25)
    ys = list(reversed(_vals(rnd, 25)))
    a, b = Fp2.from_ints(xs, backend), Fp2.from_ints(ys, backend)
    assert a.to_ints() == xs and a.backend == backend and len(a) == len(xs)
    assert (a + b).to_ints() == [((x[0] + y[0]) % P, (x[1] + y[1]) % P) for x, y in zip(xs, ys)]
    assert (a - b).to_ints() == [((x[0] - y[0]) % P, (x[1] - y[1]) % P) for x, y in zip(xs, ys)]
    assert (-a).to_ints() == [((-x[0]) % P, (-x[1]) % P) for x in xs]
    assert (a * b).to_ints() == [m_mul(x, y) for x, y in zip(xs, ys)]
    assert a.square().to_ints() == [m_mul(x, x) for x in xs]
    assert a.conjugate().to_ints() == [(x[0], (-x[1]) % P) for x in xs]
    assert a.mul_by_nonresidue().to_ints() == [m_mul(x, (1, 1)) for x in xs]
    assert a.norm().to_ints() == [(x[0] ** 2 + x[1] ** 2) % P for x in xs]
    assert (a ** 7).to_ints() == [m_pow(x, 7, ) for x in xs]
    assert (a ** 0).to_ints() == [(1, 0)] * len(xs)
    nz = Fp2.from_ints(xs[1:], backend)
    assert nz.inverse().to_ints() == [m_inv(x) for x in xs[1:]]
    assert (nz ** -2).to_ints() == [m_pow(m_inv(x), 2) for x in xs[1:]]
    f = Fp.from_ints([x[0] for x in ys], backend)
    assert a.mul_by_fp(f).to_ints() == [(x[0] * y[0] % P, x[1] * y[0] % P) for x, y in zip(xs, ys)]
    assert (a * f).equals(a.mul_by_fp(f))
    assert [bool(v) for v in np.asarray(_h(a == b))] == [x == y for x, y in zip(xs, ys)]
    assert [bool(v) for v in np.asarray(_h(a.is_zero()))] == [x == (0, 0) for x in xs]
    assert Fp2.from_fp(a.c0, a.c1).equals(a)
    assert a.c0.to_ints() == [x[0] for x in xs] and a.c1.to_ints() == [x[1] for x in xs]


def _h(x):
    return x.get() if hasattr(x, "get") else x


def test_fp2_pow_large_exponent(backend):
    rnd = random.Random(9)
    xs = _vals(rnd, 3)
    a = Fp2.from_ints(xs, backend)
    e = P * P - 1  # the order of Fp2*
    assert (a ** e).to_ints() == [(1, 0) if x != (0, 0) else (0, 0) for x in xs]


def test_fp2_inverse_zero(backend):
    a = Fp2.from_ints([(1, 2), (0, 0)], backend)
    with pytest.raises(InverseOfZeroError) as ei:
        a.inverse()
    assert ei.value.index == 1


def test_fp2_bytes(backend):
    rnd = random.Random(2)
    xs = _vals(rnd, 5)
    a = Fp2.from_ints(xs, backend)
    data = a.to_bytes()
    assert data == b"".join(x[1].to_bytes(48, "big") + x[0].to_bytes(48, "big") for x in xs)
    assert Fp2.from_bytes(data, backend).equals(a)
    with pytest.raises(FieldError):
        Fp2.from_bytes(b"\x00" * 95)
    with pytest.raises(FieldError):
        Fp2.from_bytes(P.to_bytes(48, "big") + b"\x00" * 48)


def test_fp2_container_and_errors(backend):
    a = Fp2.random(6, 1, backend)
    assert Fp2.random(6, 1, backend).equals(a)
    assert a[2].to_ints() == [a.to_ints()[2]]
    assert a[1:4].to_ints() == a.to_ints()[1:4]
    assert Fp2.concat([a[:2], a[2:]]).equals(a)
    assert Fp2.zeros(3, backend).to_ints() == [(0, 0)] * 3
    assert Fp2.ones(2, backend).to_ints() == [(1, 0)] * 2
    assert Fp2.from_mont_limbs(a.limbs).equals(a)
    b = a.copy()
    b[0] = Fp2.from_ints([(3, 4)], backend)
    assert b.to_ints()[0] == (3, 4)
    with pytest.raises(TypeError):
        a + Fp.from_ints([1] * 6, backend)
    with pytest.raises(TypeError):
        a * Fr.from_ints([1] * 6, backend)
    with pytest.raises(TypeError):
        Fp2.from_ints([1, 2])
    with pytest.raises(FieldError, match=r"values\[0\]\[1\]"):
        Fp2.from_ints([(1, P)])
    with pytest.raises(TypeError):
        Fp2.from_ints([(1, 2.0)])


@pytest.mark.gpu
def test_fp2_gpu_matches_cpu_bitwise():
    from cuzklab.field import _gpu
    a = Fp2.random(777, 11)
    b = Fp2.random(777, 12)
    ga, gb = a.to("gpu"), b.to("gpu")
    for f in (lambda x, y: x * y, lambda x, y: x.square(), lambda x, y: x.conjugate(),
              lambda x, y: x.mul_by_nonresidue(), lambda x, y: x.inverse(), lambda x, y: x ** 12345,
              lambda x, y: x - y):
        assert f(a, b).limbs.tobytes() == f(ga, gb).limbs.get().tobytes()
    # the device fp2_inverse (Fermat on the norm), one element per thread
    assert _gpu.fp2_inv_elementwise(ga.limbs).get().tobytes() == a.inverse().limbs.tobytes()
