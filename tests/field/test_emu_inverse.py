"""inverse_bgcd (binary-GCD inversion) compiled for the host, against Python ints.

The MSM's batch-affine rounds invert one product per thread with it; it must
give the Fermat inverse's result, x R -> x^-1 R (0 for 0), for every input:
random values, values at the word edges, powers of two and their
neighbours, small values and values just below the modulus.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.field.constants import FP, FR
from tests.msm.emu import CXX, EmuRunner

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")

SIGNATURES = {"k_inv_bgcd": ("ptr", "ptr", "u32")}


@pytest.fixture(scope="module")
def runner():
    from cuzklab.field.cuda import include_dir, read_source
    names = [f"k_inv_bgcd<cuzk::{t}>" for t in ("FrTraits", "FpTraits")]
    return EmuRunner([read_source("field_kernels.cu")], [include_dir()], names, SIGNATURES)


def _values(m, seed):
    rng = random.Random(seed)
    bits = m.bit_length()
    v = {0, 1, 2, 3, m - 1, m - 2, (m - 1) // 2, (m + 1) // 2}
    v |= {1 << k for k in range(bits - 1)} | {(1 << k) - 1 for k in range(1, bits - 1)}
    v |= {m - (1 << k) for k in range(bits - 1)} | {(1 << 32 * k) + 1 for k in range(1, bits // 32 + 1)}
    v |= {rng.randrange(1 << 64) for _ in range(50)} | {m - rng.randrange(1 << 64) for _ in range(50)}
    v |= {rng.randrange(m) for _ in range(1500)}
    return sorted(x % m for x in v)


@pytest.mark.parametrize("fc,traits", [(FR, "FrTraits"), (FP, "FpTraits")])
def test_inverse_bgcd_matches_python(runner, fc, traits):
    m, words = fc.modulus, fc.limbs
    R2 = pow(2, 64 * words, m)
    vals = _values(m, words)
    a = np.array([[(x >> (32 * k)) & 0xFFFFFFFF for k in range(words)] for x in vals], dtype=np.uint32)
    out = np.zeros_like(a)
    runner.launch(f"k_inv_bgcd<cuzk::{traits}>", len(vals), (out, a, np.uint32(len(vals))))
    got = [sum(int(w) << (32 * k) for k, w in enumerate(row)) for row in out]
    want = [R2 * pow(x, -1, m) % m if x else 0 for x in vals]
    bad = [(x, g, w) for x, g, w in zip(vals, got, want) if g != w]
    assert not bad, bad[:3]
