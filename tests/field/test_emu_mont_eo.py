"""mont_mul_eo (even/odd-row integer Montgomery multiply) compiled for the host, against Python ints.

The NTT kernels multiply with mont_mul_eo by default (``cuzklab.ntt.gpu.KERNEL_DEFINES``).
Its result must be bit-identical to mont_mul's for every fully reduced input:
random values, the values at the edges of the 32-bit words (where the row
carries and the pending word L of the header's comment take their extremes;
words of 0, where Fr's q is 0 and its product by the word 2^32 - 1 is 0),
under every setting of CUZK_EO_LOWWORDS,
and through mont_mul and mont_sqr when a module is built with -DCUZK_FR_MUL_EO=1
or -DCUZK_FP_MUL_EO=1 (the kind "eo" of ``cuzklab.field.cuda.MULTIPLIERS``).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.field.constants import FP, FR
from tests.msm.emu import CXX, EmuRunner

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")

SRC = """
template <class F>
__global__ void k_mul_eo(u32* out, const u32* a, const u32* b, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  cuzk::store<F>(out, i, cuzk::mont_mul_eo<F>(cuzk::load<F>(a, i), cuzk::load<F>(b, i)));
}
template <class F>
__global__ void k_sqr_eo(u32* out, const u32* a, const u32* b, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  cuzk::store<F>(out, i, cuzk::mont_sqr_eo<F>(cuzk::load<F>(a, i)));
}
template <class F>
__global__ void k_mul_dispatch(u32* out, const u32* a, const u32* b, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  cuzk::store<F>(out, i, cuzk::mont_mul<F>(cuzk::load<F>(a, i), cuzk::load<F>(b, i)));
}
template <class F>
__global__ void k_sqr_dispatch(u32* out, const u32* a, const u32* b, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  cuzk::store<F>(out, i, cuzk::mont_sqr<F>(cuzk::load<F>(a, i)));
}
"""
SIGNATURES = {"k_mul_eo": ("ptr", "ptr", "ptr", "u32"), "k_sqr_eo": ("ptr", "ptr", "ptr", "u32"),
              "k_mul_dispatch": ("ptr", "ptr", "ptr", "u32"),
              "k_sqr_dispatch": ("ptr", "ptr", "ptr", "u32")}
FIELDS = [(FR, "FrTraits"), (FP, "FpTraits")]


@pytest.fixture(scope="module", params=[0, 1, 2], ids=lambda v: f"lowwords{v}")
def runner(request):
    from cuzklab.field.cuda import include_dir
    names = [f"{k}<cuzk::{t}>" for k in SIGNATURES for t in ("FrTraits", "FpTraits")]
    # as a module built with -DCUZK_FR_MUL_EO=1: mont_mul of Fr is mont_mul_eo;
    # every setting of CUZK_EO_LOWWORDS (Fr's reduction by its two low words)
    return EmuRunner([f"#define CUZK_EO_LOWWORDS {request.param}\n"
                      "#define CUZK_FR_MUL_EO 1\n#include \"cuzk_field.cuh\"\nusing namespace cuzk;\n"
                      "#define CUZK_TID (blockIdx.x * (usize)blockDim.x + threadIdx.x)\n" + SRC], [include_dir()],
                     names, SIGNATURES)


def _limbs(values, words):
    return np.array([[(v >> (32 * k)) & 0xFFFFFFFF for k in range(words)] for v in values],
                    dtype=np.uint32).reshape(len(values), words)


def _ints(limbs):
    return [sum(int(w) << (32 * k) for k, w in enumerate(row)) for row in limbs]


def _edges(m, words):
    R = 1 << (32 * words)
    v = {0, 1, 2, m - 1, m - 2, R % m, R * R % m, (1 << 32) - 1, 1 << 32, m - (1 << 32), (m - 1) >> 1}
    for k in range(1, words):
        v |= {(1 << 32 * k) - 1, 1 << 32 * k, m - (1 << 32 * k), ((1 << 32 * k) - 1) << 32}
    v |= {sum(0xFFFFFFFF << (64 * k) for k in range(words // 2)) % m,
          sum(0xFFFFFFFF << (64 * k + 32) for k in range(words // 2)) % m}
    return sorted(x % m for x in v)


def _run(runner, kernel, a, b, words):
    out = np.zeros((len(a), words), dtype=np.uint32)
    runner.launch(kernel, len(a), (out, _limbs(a, words), _limbs(b, words), np.uint32(len(a))))
    return _ints(out)


@pytest.mark.parametrize("fc,traits", FIELDS)
def test_mont_mul_eo_matches_python_ints(runner, fc, traits):
    m, words = fc.modulus, fc.limbs
    rinv = pow(1 << (32 * words), -1, m)
    rng = random.Random(41)
    edge = _edges(m, words)
    a = [rng.randrange(m) for _ in range(1500)] + [x for x in edge for _ in edge]
    b = [rng.randrange(m) for _ in range(1500)] + [y for _ in edge for y in edge]
    assert _run(runner, f"k_mul_eo<cuzk::{traits}>", a, b, words) == [x * y * rinv % m for x, y in zip(a, b)]


@pytest.mark.parametrize("fc,traits", FIELDS)
def test_mont_sqr_eo_matches_python_ints_and_mont_mul_eo(runner, fc, traits):
    # the square's cross products are summed in two arrays whose row carries
    # land on words earlier rows filled: words of all ones (every cross
    # product's halves at their largest) are where a lost carry would show
    m, words = fc.modulus, fc.limbs
    rinv = pow(1 << (32 * words), -1, m)
    rng = random.Random(53)
    ones = [((1 << (32 * k)) - 1) % m for k in range(1, words + 1)]
    top = [m - 1 - rng.randrange(1 << 32) for _ in range(50)]
    dense = [sum(rng.choice((0xFFFFFFFF, 0xFFFFFFFE, 0x80000000, 1)) << (32 * k) for k in range(words)) % m
             for _ in range(200)]
    a = [rng.randrange(m) for _ in range(2000)] + _edges(m, words) + ones + top + dense
    want = [x * x * rinv % m for x in a]
    assert _run(runner, f"k_sqr_eo<cuzk::{traits}>", a, a, words) == want
    assert _run(runner, f"k_mul_eo<cuzk::{traits}>", a, a, words) == want


def test_fr_mont_mul_dispatches_to_mont_mul_eo(runner):
    m, words = FR.modulus, FR.limbs
    rinv = pow(1 << (32 * words), -1, m)
    rng = random.Random(43)
    a, b = [rng.randrange(m) for _ in range(300)], [rng.randrange(m) for _ in range(300)]
    want = [x * y * rinv % m for x, y in zip(a, b)]
    assert _run(runner, "k_mul_dispatch<cuzk::FrTraits>", a, b, words) == want
    assert _run(runner, "k_sqr_dispatch<cuzk::FrTraits>", a, b, words) == [x * x * rinv % m for x in a]
    # Fp keeps its own multiplier; same results
    m, words = FP.modulus, FP.limbs
    rinv = pow(1 << (32 * words), -1, m)
    a, b = [rng.randrange(m) for _ in range(100)], [rng.randrange(m) for _ in range(100)]
    assert _run(runner, "k_mul_dispatch<cuzk::FpTraits>", a, b, words) == [x * y * rinv % m for x, y in zip(a, b)]


@pytest.fixture(scope="module")
def runner_fp_eo():
    from cuzklab.field.cuda import include_dir
    names = [f"{k}<cuzk::FpTraits>" for k in ("k_mul_dispatch", "k_sqr_dispatch")]
    # as a module built with -DCUZK_FP_MUL_EO=1 (CUZKLAB_MUL=fp=eo)
    return EmuRunner(["#define CUZK_FP_MUL_EO 1\n#include \"cuzk_field.cuh\"\nusing namespace cuzk;\n"
                      "static_assert(CUZK_FR_MUL_EO == 0, \"Fr keeps its multiplier\");\n"
                      "#define CUZK_TID (blockIdx.x * (usize)blockDim.x + threadIdx.x)\n" + SRC], [include_dir()],
                     names, {k: SIGNATURES[k] for k in ("k_mul_dispatch", "k_sqr_dispatch")})


def test_fp_mont_mul_and_sqr_dispatch_to_mont_mul_eo(runner_fp_eo):
    m, words = FP.modulus, FP.limbs
    rinv = pow(1 << (32 * words), -1, m)
    rng = random.Random(47)
    edge = _edges(m, words)
    a = [rng.randrange(m) for _ in range(400)] + edge
    b = [rng.randrange(m) for _ in range(400)] + edge[::-1]
    assert _run(runner_fp_eo, "k_mul_dispatch<cuzk::FpTraits>", a, b, words) == [
        x * y * rinv % m for x, y in zip(a, b)]
    assert _run(runner_fp_eo, "k_sqr_dispatch<cuzk::FpTraits>", a, b, words) == [x * x * rinv % m for x in a]


def test_fr_mont_mul_eo_takes_a_first_operand_below_2m(runner):
    # the NTT's DIF butterflies hand mont_mul_eo u - v + m (in [1, 2m)) as its
    # first operand without the conditional correction (ntt.cu, diff_to_mul):
    # the result must still be exact and fully reduced
    m, words = FR.modulus, FR.limbs
    rinv = pow(1 << (32 * words), -1, m)
    rng = random.Random(61)
    edge = _edges(m, words)
    lazy = [m + x for x in edge if m + x < 2 * m] + [2 * m - 1, 2 * m - 2, m, m + 1]
    lazy += [m + rng.randrange(m) for _ in range(1500)]
    a = lazy + lazy
    b = [rng.randrange(m) for _ in range(len(lazy))] + [m - 1 - (x % 7) for x in range(len(lazy))]
    out = _run(runner, "k_mul_eo<cuzk::FrTraits>", a, b, words)
    assert out == [x * y * rinv % m for x, y in zip(a, b)]
    assert max(out) < m
