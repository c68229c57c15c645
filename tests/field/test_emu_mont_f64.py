"""mont_mul_f64 (partial products on the FP64 pipe) compiled for the host, against Python ints.

The FP64 Montgomery multiply re-cuts its operands into 48-bit (Fp) or 52-bit
(Fr) limbs held in doubles and splits every limb product with round-toward-zero
FMAs. Its result must be bit-identical to mont_mul's, so these tests run
k_mul_f64 and k_mul_chain_f64 through the host emulation next to k_mul and
k_mul_chain, on random values and on the values at the edges of both limb
sizes, and check the product split itself on the extreme limb values. The
dedicated squaring mont_sqr_f64 (each cross product once) is held to the same
results through k_sqr_f64 and k_sqr_chain_f64, and through k_sqr built with
the f64 multipliers switched on, where mont_sqr dispatches to it.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzklab.field.constants import FP, FR
from tests.msm.emu import CXX, EmuRunner

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")

SIGNATURES = {
    "k_mul": ("ptr", "ptr", "ptr", "u32", "u32", "u32"),
    "k_mul_f64": ("ptr", "ptr", "ptr", "u32", "u32", "u32"),
    "k_mul_chain": ("ptr", "ptr", "ptr", "u32", "u32"),
    "k_mul_chain_f64": ("ptr", "ptr", "ptr", "u32", "u32"),
    "k_split": ("ptr", "ptr", "u32"),
    "k_sqr": ("ptr", "ptr", "u32"),
    "k_sqr_f64": ("ptr", "ptr", "u32"),
    "k_sqr_chain_f64": ("ptr", "ptr", "ptr", "u32", "u32"),
}

# Prepended to field_kernels.cu: mont_mul and mont_sqr dispatch to the f64 versions.
F64_ON = "#define CUZK_FR_MUL_F64 1\n#define CUZK_FP_MUL_F64 1\n"

# One limb product through the header's split: out = (lo, hi) as u64 pairs.
SPLIT_SRC = """
template <int W>
__global__ void k_split(u32* out, const u32* in, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  const u64 x = in[4 * i] | ((u64)in[4 * i + 1] << 32), y = in[4 * i + 2] | ((u64)in[4 * i + 3] << 32);
  u64 lo = 0, hi = 0;
  cuzk::f64detail::mul_acc<W>(cuzk::f64detail::u52_to_double(x), cuzk::f64detail::u52_to_double(y), lo, hi);
  out[4 * i] = (u32)lo; out[4 * i + 1] = (u32)(lo >> 32);
  out[4 * i + 2] = (u32)hi; out[4 * i + 3] = (u32)(hi >> 32);
}
"""

FIELDS = [(FR, "FrTraits", 52), (FP, "FpTraits", 48)]  # limb bits of mont_mul_f64


@pytest.fixture(scope="module")
def runner():
    from cuzklab.field.cuda import include_dir, read_source
    names = [f"{k}<cuzk::{t}>" for k in ("k_mul", "k_mul_f64", "k_mul_chain", "k_mul_chain_f64",
                                          "k_sqr", "k_sqr_f64", "k_sqr_chain_f64")
             for t in ("FrTraits", "FpTraits")] + ["k_split<48>", "k_split<52>"]
    return EmuRunner([read_source("field_kernels.cu"), SPLIT_SRC], [include_dir()], names, SIGNATURES)


@pytest.fixture(scope="module")
def runner_f64_on():
    """field_kernels.cu built as with CUZKLAB_MUL=fr=f64,fp=f64: k_sqr runs mont_sqr -> mont_sqr_f64."""
    from cuzklab.field.cuda import include_dir, read_source
    names = [f"k_sqr<cuzk::{t}>" for t in ("FrTraits", "FpTraits")]
    return EmuRunner([F64_ON + read_source("field_kernels.cu")], [include_dir()], names, SIGNATURES)


def _limbs(values, words):
    return np.array([[(v >> (32 * k)) & 0xFFFFFFFF for k in range(words)] for v in values],
                    dtype=np.uint32).reshape(len(values), words)


def _ints(limbs):
    return [sum(int(w) << (32 * k) for k, w in enumerate(row)) for row in limbs]


def _edge_values(m, words, w):
    """Values < m at the edges of the 32-bit words and of the w-bit limbs."""
    R = 1 << (32 * words)
    bits = m.bit_length()
    nl = -(-32 * words // w)
    v = {0, 1, 2, m - 1, m - 2, R % m, R * R % m, (1 << 32) - 1, 1 << 32, m - (1 << 32),
         (m - 1) & ~0xFFFFFFFF, (1 << bits - 1) - 1, 1 << bits - 1}
    ones = 0
    for k in range(1, nl + 1):
        v |= {(1 << w * k) - 1, 1 << w * k, (1 << w * k) + 1, (1 << w * k) - (1 << w * (k - 1))}
        ones |= ((1 << w) - 1) << (2 * w * (k - 1))  # every other limb all ones, the rest 0
    v |= {ones, ones << w, m - ones % m}
    v |= {m - (1 << k) for k in range(0, bits, 11)}
    v |= {m - (1 << w * k) for k in range(1, nl)}
    return sorted(x % m for x in v)


def _mul(runner, kernel, a, b, words):
    out = np.zeros((len(a), words), dtype=np.uint32)
    runner.launch(kernel, len(a), (out, _limbs(a, words), _limbs(b, words),
                                   np.uint32(len(a)), np.uint32(1), np.uint32(1)))
    return _ints(out)


def _sqr(runner, kernel, a, words):
    out = np.zeros((len(a), words), dtype=np.uint32)
    runner.launch(kernel, len(a), (out, _limbs(a, words), np.uint32(len(a))))
    return _ints(out)


def _sqr_inputs(m, words, w, seed):
    rng = random.Random(seed)
    edge = _edge_values(m, words, w)
    assert len(edge) > 30
    # random values, the edge values, and each edge value plus and minus a small random one
    a = [rng.randrange(m) for _ in range(600)] + edge
    a += [(x + rng.randrange(1 << 20)) % m for x in edge] + [(x - rng.randrange(1 << 20)) % m for x in edge]
    return a


@pytest.mark.parametrize("fc,traits,w", FIELDS)
def test_mont_sqr_f64_matches_python_ints_and_mont_mul_f64(runner, fc, traits, w):
    m, words = fc.modulus, fc.limbs
    rinv = pow(1 << (32 * words), -1, m)
    a = _sqr_inputs(m, words, w, 23)
    got = _sqr(runner, f"k_sqr_f64<cuzk::{traits}>", a, words)
    assert got == [x * x * rinv % m for x in a]
    assert got == _mul(runner, f"k_mul_f64<cuzk::{traits}>", a, a, words)
    assert got == _sqr(runner, f"k_sqr<cuzk::{traits}>", a, words)  # mont_sqr -> mont_mul_cios(a, a)


@pytest.mark.parametrize("fc,traits,w", FIELDS)
def test_mont_sqr_dispatches_to_mont_sqr_f64(runner_f64_on, fc, traits, w):
    m, words = fc.modulus, fc.limbs
    rinv = pow(1 << (32 * words), -1, m)
    a = _sqr_inputs(m, words, w, 29)
    assert _sqr(runner_f64_on, f"k_sqr<cuzk::{traits}>", a, words) == [x * x * rinv % m for x in a]


@pytest.mark.parametrize("fc,traits,w", FIELDS)
def test_sqr_chain_f64_matches_python(runner, fc, traits, w):
    m, words = fc.modulus, fc.limbs
    R = 1 << (32 * words)
    rinv = pow(R, -1, m)
    rng = random.Random(7)
    x = [rng.randrange(m) for _ in range(40)] + [0, 1, m - 1, R % m, m - (1 << 32)]
    n, k = len(x), 37
    out = np.zeros((n, words), dtype=np.uint32)
    y = np.zeros((n, words), dtype=np.uint32)  # not read
    runner.launch(f"k_sqr_chain_f64<cuzk::{traits}>", n,
                  (out, _limbs(x, words), y, np.uint32(n), np.uint32(k)))
    # x is the Montgomery form of X = x/R; k squarings give X^(2^k) * R
    assert _ints(out) == [pow(u * rinv, 1 << k, m) * R % m for u in x]


@pytest.mark.parametrize("fc,traits,w", FIELDS)
def test_mont_mul_f64_matches_python_ints_and_mont_mul(runner, fc, traits, w):
    m, words = fc.modulus, fc.limbs
    R = 1 << (32 * words)
    rng = random.Random(11)
    a = [rng.randrange(m) for _ in range(600)]
    b = [rng.randrange(m) for _ in range(600)]
    edge = _edge_values(m, words, w)
    assert len(edge) > 30
    a += [x for x in edge for _ in edge]
    b += [y for _ in edge for y in edge]
    # edge values against random ones too
    a += edge + [rng.randrange(m) for _ in edge]
    b += [rng.randrange(m) for _ in edge] + edge
    got = _mul(runner, f"k_mul_f64<cuzk::{traits}>", a, b, words)
    rinv = pow(R, -1, m)
    assert got == [x * y * rinv % m for x, y in zip(a, b)]
    assert got == _mul(runner, f"k_mul<cuzk::{traits}>", a, b, words)


@pytest.mark.parametrize("fc,traits,w", FIELDS)
def test_mul_chain_f64_matches_mul_chain(runner, fc, traits, w):
    m, words = fc.modulus, fc.limbs
    rng = random.Random(5)
    x = [rng.randrange(m) for _ in range(40)] + [0, 1, m - 1]
    y = [rng.randrange(m) for _ in range(40)] + [m - 1, m - 1, m - 1]
    n = len(x)
    outs = []
    for kernel in ("k_mul_chain", "k_mul_chain_f64"):
        out = np.zeros((n, words), dtype=np.uint32)
        runner.launch(f"{kernel}<cuzk::{traits}>", n,
                      (out, _limbs(x, words), _limbs(y, words), np.uint32(n), np.uint32(37)))
        outs.append(_ints(out))
    R = 1 << (32 * words)
    rinv = pow(R, -1, m)
    assert outs[1] == outs[0] == [u * pow(v * rinv, 37, m) % m for u, v in zip(x, y)]


@pytest.mark.parametrize("w", [48, 52])
def test_fp64_product_split_is_exact(runner, w):
    top = (1 << w) - 1
    rng = random.Random(w)
    vals = [0, 1, 2, top, top - 1, 1 << (w - 1), (1 << (w - 1)) - 1, (1 << (w - 1)) + 1,
            1 << (w // 2), (1 << (w // 2)) - 1, (1 << (w // 2)) + 1]
    xs = [x for x in vals for _ in vals] + [rng.randrange(1 << w) for _ in range(300)]
    ys = [y for _ in vals for y in vals] + [rng.randrange(1 << w) for _ in range(300)]
    inp = np.array([[x & 0xFFFFFFFF, x >> 32, y & 0xFFFFFFFF, y >> 32] for x, y in zip(xs, ys)],
                   dtype=np.uint32)
    out = np.zeros_like(inp)
    runner.launch(f"k_split<{w}>", len(xs), (out, inp, np.uint32(len(xs))))
    got = [(int(r[0]) | int(r[1]) << 32, int(r[2]) | int(r[3]) << 32) for r in out]
    assert got == [((x * y) & top, (x * y) >> w) for x, y in zip(xs, ys)]
