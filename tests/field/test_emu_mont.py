"""The CUDA field kernels compiled for the host (serial emulation) against Python ints.

The GPU's Montgomery multiply has a path of its own for Fr (whose modulus
starts 1, 2^32 - 1: two products of every reduction row become additions);
these tests run that exact CUDA source on a machine without a GPU, on random
values and on the values where the special case branches (a zero low word).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.field.constants import FP, FR
from tests.msm.emu import CXX, EmuRunner

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")

SIGNATURES = {"k_mul": ("ptr", "ptr", "ptr", "u32", "u32", "u32")}


@pytest.fixture(scope="module")
def runner():
    from cuzklab.field.cuda import include_dir, read_source
    names = ["k_mul<cuzk::FrTraits>", "k_mul<cuzk::FpTraits>"]
    return EmuRunner([read_source("field_kernels.cu")], [include_dir()], names, SIGNATURES)


def _limbs(values, words):
    return np.array([[(v >> (32 * k)) & 0xFFFFFFFF for k in range(words)] for v in values],
                    dtype=np.uint32)


def _ints(limbs):
    return [sum(int(w) << (32 * k) for k, w in enumerate(row)) for row in limbs]


@pytest.mark.parametrize("fc,traits", [(FR, "FrTraits"), (FP, "FpTraits")])
def test_emulated_mont_mul_matches_python_ints(runner, fc, traits):
    m, words = fc.modulus, fc.limbs
    R = 1 << (32 * words)
    rng = random.Random(7)
    a = [rng.randrange(m) for _ in range(300)]
    b = [rng.randrange(m) for _ in range(300)]
    # edge cases: 0, 1, m - 1, R mod m, and values whose low word is 0 or 2^32 - 1
    edge = [0, 1, m - 1, R % m, 1 << 32, (1 << 32) - 1, m - (1 << 32), (m - 1) & ~0xFFFFFFFF]
    a += edge * len(edge)
    b += [e for e in edge for _ in edge]
    out = np.zeros((len(a), words), dtype=np.uint32)
    runner.launch(f"k_mul<cuzk::{traits}>", len(a),
                  (out, _limbs(a, words), _limbs(b, words), np.uint32(len(a)), np.uint32(1), np.uint32(1)))
    rinv = pow(R, -1, m)
    assert _ints(out) == [x * y * rinv % m for x, y in zip(a, b)]


@pytest.fixture(scope="module", params=[0, 1], ids=lambda v: f"submad{v}")
def sub_runner(request):
    from cuzklab.field.cuda import include_dir, read_source
    names = ["k_sub<cuzk::FrTraits>", "k_sub<cuzk::FpTraits>"]
    return EmuRunner([f"#define CUZK_SUB_MAD {request.param}\n" + read_source("field_kernels.cu")],
                     [include_dir()], names, {"k_sub": ("ptr", "ptr", "ptr", "u32", "u32", "u32")})


@pytest.mark.parametrize("fc,traits", [(FR, "FrTraits"), (FP, "FpTraits")])
def test_emulated_sub_matches_python_ints_both_ways_of_adding_m_back(sub_runner, fc, traits):
    # CUZK_SUB_MAD=1 adds m back by multiply-adds of the borrow bit; a < b
    # (m added back) and a >= b (nothing added) in equal numbers, and the edges
    m, words = fc.modulus, fc.limbs
    rng = random.Random(11)
    edge = [0, 1, 2, m - 1, m - 2, (1 << 32) - 1, 1 << 32, m >> 1]
    a = [rng.randrange(m) for _ in range(400)] + [x for x in edge for _ in edge]
    b = [rng.randrange(m) for _ in range(400)] + [y for _ in edge for y in edge]
    assert sum(x < y for x, y in zip(a, b)) > 150
    out = np.zeros((len(a), words), dtype=np.uint32)
    runner = sub_runner
    runner.launch(f"k_sub<cuzk::{traits}>", len(a),
                  (out, _limbs(a, words), _limbs(b, words), np.uint32(len(a)), np.uint32(1), np.uint32(1)))
    assert _ints(out) == [(x - y) % m for x, y in zip(a, b)]
