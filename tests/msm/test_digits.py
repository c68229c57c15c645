"""Signed-digit decomposition and window choice."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuzklab.field.constants import R
from cuzklab.msm import digits as D

EDGE = [0, 1, 2, R - 1, R - 2, R // 2, R // 2 + 1, (1 << 254) - 1, 1 << 253]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=R - 1), min_size=1, max_size=20),
       st.integers(min_value=D.MIN_WINDOW, max_value=D.MAX_WINDOW))
def test_signed_digits_recompose(values, c):
    values = values + EDGE
    dg = D.signed_digits(D.ints_to_limbs(values), c)
    assert dg.shape == (D.windows(c), len(values))
    assert np.abs(dg).max() <= 1 << (c - 1)
    assert D.digits_value(dg, c) == values


def test_fold_and_limbs():
    vals = [0, 5, R - 5, R // 2, R // 2 + 1]
    folded, neg = D.fold_half(D.ints_to_limbs(vals))
    assert neg.tolist() == [False, False, True, False, True]
    assert D.limbs_to_ints(folded) == [0, 5, 5, R // 2, R - R // 2 - 1]
    assert all(v < 1 << 254 for v in D.limbs_to_ints(folded))


def test_reduce_scalars_and_errors():
    assert D.reduce_scalars([R, R + 3, -1, np.int64(7)]) == [0, 3, R - 1, 7]
    with pytest.raises(TypeError, match=r"scalars\[0\]"):
        D.reduce_scalars([1.5])
    with pytest.raises(TypeError):
        D.reduce_scalars([True])
    for bad in (1, 25, 0):
        with pytest.raises(ValueError, match="window"):
            D.check_window(bad)
    with pytest.raises(TypeError):
        D.check_window(3.0)


def test_default_window():
    assert D.default_window(0) == D.MIN_WINDOW
    cpu = [D.default_window(1 << k) for k in range(0, 16)]
    gpu = [D.default_window(1 << k, "gpu") for k in range(0, 28)]
    assert cpu == sorted(cpu) and gpu == sorted(gpu)
    glv = [D.default_window(1 << k, "gpu", glv=True) for k in range(0, 28)]
    assert glv == sorted(glv) and D.default_window(1 << 20, "gpu", glv=True) == 16
    assert D.default_window(1 << 16, "gpu", glv=True) == 12
    assert D.default_window(1 << 22, "gpu", glv=True) == 16
    assert D.default_window(1 << 24, "gpu", glv=True) == 19 and D.default_window(1 << 26, "gpu", glv=True) == 19
    assert D.default_window(1 << 20, "gpu") == 16 and D.default_window(1 << 24, "gpu") == 17
    g2 = [D.default_window(1 << k, "gpu", group="g2") for k in range(0, 28)]
    assert g2 == sorted(g2) and D.default_window(1 << 20, "gpu", group="g2") == 15
    assert D.default_window(1 << 20, group="g2") == D.default_window(1 << 20)  # CPU: one cost model
    with pytest.raises(ValueError):
        D.default_window(-1)
    with pytest.raises(ValueError, match="group"):
        D.default_window(1 << 10, "gpu", group="g3")
