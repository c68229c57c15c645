"""Quick CPU checks of the field API (the full suite is in the other test files)."""

import random

from cuzklab.field import Fp, Fr


def test_cpu_ops_against_ints():
    rnd = random.Random(1)
    for cls in (Fr, Fp):
        m = cls.FC.modulus
        xs = [rnd.randrange(m) for _ in range(50)] + [0, 1, m - 1, m - 2]
        ys = [rnd.randrange(m) for _ in range(50)] + [m - 1, 0, m - 1, 2]
        a, b = cls.from_ints(xs), cls.from_ints(ys)
        assert (a * b).to_ints() == [x * y % m for x, y in zip(xs, ys)]
        assert (a + b).to_ints() == [(x + y) % m for x, y in zip(xs, ys)]
        assert (a - b).to_ints() == [(x - y) % m for x, y in zip(xs, ys)]
        assert (-a).to_ints() == [(-x) % m for x in xs]
        assert a.square().to_ints() == [x * x % m for x in xs]
