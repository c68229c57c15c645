"""The vectorized Pippenger core on the integers mod r (every step checkable exactly)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.field.constants import R
from cuzklab.msm import digits as D
from cuzklab.msm import pippenger as Pp


def _msm_int(bases, scalars, c):
    dg = D.signed_digits(D.ints_to_limbs(scalars), c)
    w = Pp.window_sums(Pp.IntModOps(R), np.array(bases, dtype=object), dg, c)
    total = 0
    for k in reversed(range(len(w))):
        total = (total << c) + int(w[k])
    return total % R


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 100, 1000])
@pytest.mark.parametrize("c", [2, 3, 5, 8, 13])
def test_window_sums_exact(n, c):
    rng = random.Random(n * 31 + c)
    scalars = [rng.randrange(R) for _ in range(n)]
    bases = [rng.randrange(R) for _ in range(n)]
    if n >= 3:
        scalars[:3] = [0, 1, R - 1]
    assert _msm_int(bases, scalars, c) == sum(b * s for b, s in zip(bases, scalars)) % R


def test_skewed_and_duplicates():
    rng = random.Random(2)
    bases = [rng.randrange(R) for _ in range(300)]
    for scalars in ([5] * 300, [0] * 300, [R - 1] * 150 + [1] * 150):
        assert _msm_int(bases, scalars, 6) == sum(b * s for b, s in zip(bases, scalars)) % R


def test_segmented_sum():
    ops = Pp.IntModOps(1000)
    keys = np.array([0, 0, 0, 2, 5, 5, 5, 5, 5, 9])
    vals = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], dtype=object)
    k, s = Pp.segmented_sum(ops, keys, vals)
    assert k.tolist() == [0, 2, 5, 9] and s.tolist() == [6, 4, 35, 10]
    k, s = Pp.segmented_sum(ops, np.array([], dtype=np.int64), np.array([], dtype=object))
    assert len(k) == 0


def test_bucket_entries_sorted():
    dg = np.array([[0, 3, -3, 1], [2, 0, -2, 2]])
    keys, pidx, neg = Pp.bucket_entries(dg, 3)
    assert keys.tolist() == sorted(keys.tolist())
    assert list(zip(keys.tolist(), pidx.tolist(), neg.tolist())) == [
        (0, 3, False), (2, 1, False), (2, 2, True), (5, 0, False), (5, 2, True), (5, 3, False)]
