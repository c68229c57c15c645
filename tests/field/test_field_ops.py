"""Fr and Fp arithmetic against Python ints, on both backends (GPU ones marked gpu)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuzklab.field import Fp, Fr, InverseOfZeroError

from .conftest import edge_values

HSET = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _pairs(m):
    return st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), min_size=0, max_size=9)


def _check_all_ops(cls, xs, ys, backend):
    m = cls.FC.modulus
    a, b = cls.from_ints(xs, backend), cls.from_ints(ys, backend)
    assert a.backend == backend and len(a) == len(xs)
    assert a.to_ints() == xs
    assert (a + b).to_ints() == [(x + y) % m for x, y in zip(xs, ys)]
    assert (a - b).to_ints() == [(x - y) % m for x, y in zip(xs, ys)]
    assert (a * b).to_ints() == [x * y % m for x, y in zip(xs, ys)]
    assert a.square().to_ints() == [x * x % m for x in xs]
    assert (-a).to_ints() == [(-x) % m for x in xs]
    assert a.negate().to_ints() == [(-x) % m for x in xs]
    assert a.double().to_ints() == [2 * x % m for x in xs]
    eq = a == b
    assert [bool(v) for v in np.asarray(eq.get() if hasattr(eq, "get") else eq)] == [x == y for x, y in zip(xs, ys)]
    assert [bool(v) for v in _host(a.is_zero())] == [x == 0 for x in xs]
    # the limbs are the Montgomery form, fully reduced
    L = cls.FC.limbs
    radix = 1 << (32 * L)
    limbs = _host(a.limbs)
    assert limbs.dtype == np.uint32 and limbs.shape == (len(xs), L)
    assert [sum(int(w) << (32 * i) for i, w in enumerate(row)) for row in limbs] == [x * radix % m for x in xs]


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


@pytest.mark.parametrize("cls", [Fr, Fp], ids=["Fr", "Fp"])
def test_ops_random_cpu(cls):
    @HSET
    @given(_pairs(cls.FC.modulus))
    def run(pairs):
        xs = [x for x, _ in pairs]
        ys = [y for _, y in pairs]
        _check_all_ops(cls, xs, ys, "cpu")
    run()


@pytest.mark.gpu
@pytest.mark.parametrize("cls", [Fr, Fp], ids=["Fr", "Fp"])
def test_ops_random_gpu(cls):
    @settings(max_examples=10, deadline=None)
    @given(_pairs(cls.FC.modulus))
    def run(pairs):
        xs = [x for x, _ in pairs]
        ys = [y for _, y in pairs]
        _check_all_ops(cls, xs, ys, "gpu")
    run()


def test_ops_edge_values(field, backend):
    m = field.FC.modulus
    e = edge_values(m)
    xs = [x for x in e for _ in e]
    ys = [y for _ in e for y in e]
    _check_all_ops(field, xs, ys, backend)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 33, 100])
def test_batch_sizes(field, backend, n, rnd):
    m = field.FC.modulus
    xs = [rnd.randrange(1, m) for _ in range(n)]
    ys = [rnd.randrange(m) for _ in range(n)]
    _check_all_ops(field, xs, ys, backend)
    a = field.from_ints(xs, backend)
    assert a.inverse().to_ints() == [pow(x, -1, m) for x in xs]
    assert a.pow(5).to_ints() == [pow(x, 5, m) for x in xs]


def test_broadcast_and_ints(field, backend, rnd):
    m = field.FC.modulus
    xs = [rnd.randrange(m) for _ in range(5)]
    a = field.from_ints(xs, backend)
    one = field.from_ints([7], backend)
    assert (a * one).to_ints() == [7 * x % m for x in xs]
    assert (one - a).to_ints() == [(7 - x) % m for x in xs]
    assert (a + 3).to_ints() == [(x + 3) % m for x in xs]
    assert (3 + a).to_ints() == [(x + 3) % m for x in xs]
    assert (3 - a).to_ints() == [(3 - x) % m for x in xs]
    assert (a * -1).to_ints() == [(-x) % m for x in xs]
    assert (2 * a).to_ints() == [2 * x % m for x in xs]
    with pytest.raises(ValueError, match="lengths"):
        a + field.from_ints([1, 2], backend)


def test_inverse_and_division(field, backend, rnd):
    m = field.FC.modulus
    xs = [rnd.randrange(1, m) for _ in range(70)] + [1, m - 1, 2]
    a = field.from_ints(xs, backend)
    inv = a.inverse()
    assert inv.to_ints() == [pow(x, -1, m) for x in xs]
    assert (a * inv).equals(field.ones(len(xs), backend))
    b = field.from_ints([rnd.randrange(1, m) for _ in xs], backend)
    assert ((a / b) * b).equals(a)


def test_inverse_of_zero_names_index(field, backend):
    a = field.from_ints([3, 4, 0, 5, 0], backend)
    with pytest.raises(InverseOfZeroError) as ei:
        a.inverse()
    assert ei.value.index == 2 and "[2]" in str(ei.value)
    assert isinstance(ei.value, ZeroDivisionError) and isinstance(ei.value, ValueError)
    with pytest.raises(ZeroDivisionError):
        field.from_ints([1], backend) / field.from_ints([0], backend)


def test_pow(field, backend, rnd):
    m = field.FC.modulus
    xs = [0, 1, m - 1] + [rnd.randrange(m) for _ in range(6)]
    a = field.from_ints(xs, backend)
    for e in (0, 1, 2, 3, 65537, m - 1, m - 2, (m - 1) // 2, m + 5, 1 << 300):
        assert a.pow(e).to_ints() == [pow(x, e, m) for x in xs], e
    nz = field.from_ints(xs[1:], backend)
    assert (nz ** -3).to_ints() == [pow(x, -3, m) for x in xs[1:]]
    with pytest.raises(TypeError):
        a.pow(2.0)


def test_random_zeros_ones(field, backend):
    a = field.random(50, 7, backend)
    b = field.random(50, np.random.default_rng(7), backend)
    assert a.equals(b)
    assert all(0 <= v < field.FC.modulus for v in a.to_ints())
    assert len(set(a.to_ints())) == 50
    assert field.random(50, 8, backend).to_ints() != a.to_ints()
    assert field.zeros(4, backend).to_ints() == [0] * 4
    assert field.ones(4, backend).to_ints() == [1] * 4
    assert len(field.zeros(0, backend)) == 0
    with pytest.raises(TypeError):
        field.random(3, "seed", backend)
    with pytest.raises(ValueError):
        field.zeros(-1, backend)


@pytest.mark.gpu
def test_random_same_on_both_backends(field):
    assert field.random(100, 3, "cpu").limbs.tobytes() == field.random(100, 3, "gpu").limbs.get().tobytes()
