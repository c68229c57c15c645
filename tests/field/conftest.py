"""Helpers shared by the field tests."""

import random

import pytest

from cuzklab.field import Fp, Fr

FIELDS = [Fr, Fp]


def edge_values(m: int) -> list[int]:
    """0, 1, 2, m-1, m-2, (m-1)/2 and values near the Montgomery radix and powers of two."""
    L = 8 if m.bit_length() <= 256 else 12
    radix = 1 << (32 * L)
    vals = [0, 1, 2, 3, m - 1, m - 2, (m - 1) // 2, (m + 1) // 2, radix % m, (radix - 1) % m,
            (radix + 1) % m, pow(radix, 2, m), (1 << 32) - 1, 1 << 32, (1 << 64) - 1,
            (1 << (m.bit_length() - 1)), (1 << (m.bit_length() - 1)) - 1]
    return [v % m for v in vals]


@pytest.fixture(params=FIELDS, ids=lambda c: c.__name__)
def field(request):
    return request.param


@pytest.fixture
def rnd():
    return random.Random(12345)
