"""CuPy kernels on raw limb arrays (same contract as ``_cpu``): (n, L) uint32,
Montgomery form, fully reduced. Kernels come from cuda/field_kernels.cu,
compiled by NVRTC on first use."""

from __future__ import annotations

import functools

import numpy as np

from ..backend import xp
from .constants import FieldConstants
from .cuda import load_module, read_source

TRAITS = {"Fr": "cuzk::FrTraits", "Fp": "cuzk::FpTraits"}
_TEMPLATED = ("k_add", "k_sub", "k_mul", "k_sqr", "k_neg", "k_to_mont", "k_from_mont",
              "k_geq_mod", "k_pow", "k_inv_batch", "k_mul_chain", "k_sqr_chain")
_PLAIN = ("k_fp2_mul", "k_fp2_sqr", "k_fp2_pow", "k_fp2_inv", "k_fp2_mul_by_nonresidue", "k_fp2_conj")
BLOCK = 128
INV_CHUNK = 32  # elements per thread in the batched inverse


def _cp():
    return xp("gpu")


@functools.lru_cache(maxsize=None)
def module():
    names = tuple(f"{k}<{t}>" for t in TRAITS.values() for k in _TEMPLATED) + _PLAIN
    return load_module(read_source("field_kernels.cu"), names)


@functools.lru_cache(maxsize=None)
def kernel(name: str, field: str | None = None):
    """A compiled kernel: ``kernel("k_mul", "Fr")`` or ``kernel("k_fp2_mul")``."""
    full = f"{name}<{TRAITS[field]}>" if field else name
    return module().get_function(full)


def _launch(k, n, args, threads_per_item=1):
    if n == 0:
        return
    grid = (-(-n // BLOCK),)
    k(grid, (BLOCK,), args)


def _u(x):
    return np.uint64(x)


def _prep(a):
    cp = _cp()
    return cp.ascontiguousarray(a, dtype=cp.uint32)


def _binary(name, a, b, fc: FieldConstants):
    cp = _cp()
    a, b = _prep(a), _prep(b)
    n = max(a.shape[0], b.shape[0])
    if min(a.shape[0], b.shape[0]) == 0:
        n = 0
    out = cp.empty((n, fc.limbs), dtype=cp.uint32)
    _launch(kernel(name, fc.name), n,
            (out, a, b, _u(n), _u(a.shape[0] != 1), _u(b.shape[0] != 1)))
    return out


def _unary(name, a, fc: FieldConstants):
    cp = _cp()
    a = _prep(a)
    n = a.shape[0]
    out = cp.empty((n, fc.limbs), dtype=cp.uint32)
    _launch(kernel(name, fc.name), n, (out, a, _u(n)))
    return out


def add(a, b, fc):
    return _binary("k_add", a, b, fc)


def sub(a, b, fc):
    return _binary("k_sub", a, b, fc)


def mont_mul(a, b, fc):
    return _binary("k_mul", a, b, fc)


def mont_sqr(a, fc):
    return _unary("k_sqr", a, fc)


def neg(a, fc):
    return _unary("k_neg", a, fc)


def to_mont(a, fc):
    return _unary("k_to_mont", a, fc)


def from_mont(a, fc):
    return _unary("k_from_mont", a, fc)


def geq_modulus(a, fc):
    cp = _cp()
    a = _prep(a)
    n = a.shape[0]
    out = cp.empty((n,), dtype=cp.uint8)
    _launch(kernel("k_geq_mod", fc.name), n, (out, a, _u(n)))
    return out.astype(bool)


def is_zero(a):
    return ~a.any(axis=1)


def _exp_limbs(e: int):
    cp = _cp()
    nbits = e.bit_length()
    words = max(1, -(-nbits // 32))
    limbs = np.array([(e >> (32 * i)) & 0xFFFFFFFF for i in range(words)], dtype=np.uint32)
    return cp.asarray(limbs), nbits


def pow_(a, e: int, fc):
    cp = _cp()
    a = _prep(a)
    n = a.shape[0]
    out = cp.empty((n, fc.limbs), dtype=cp.uint32)
    el, nbits = _exp_limbs(e)
    _launch(kernel("k_pow", fc.name), n, (out, a, _u(n), el, np.int32(nbits)))
    return out


def inverse(a, fc, chunk: int = INV_CHUNK):
    """Batched inverse; the caller has checked that no element is zero."""
    cp = _cp()
    a = _prep(a)
    n = a.shape[0]
    out = cp.empty((n, fc.limbs), dtype=cp.uint32)
    threads = -(-n // chunk)
    _launch(kernel("k_inv_batch", fc.name), threads, (out, a, _u(n), _u(chunk)))
    return out


def mul_chain(x, y, k: int, fc):
    """Benchmark kernel: x * y^k by k dependent multiplies per element."""
    cp = _cp()
    n = x.shape[0]
    out = cp.empty((n, fc.limbs), dtype=cp.uint32)
    _launch(kernel("k_mul_chain", fc.name), n, (out, _prep(x), _prep(y), _u(n), np.int32(k)))
    return out


def sqr_chain(x, k: int, fc):
    """Benchmark kernel: x^(2^k) by k dependent squarings (mont_sqr) per element."""
    cp = _cp()
    n = x.shape[0]
    out = cp.empty((n, fc.limbs), dtype=cp.uint32)
    x = _prep(x)
    _launch(kernel("k_sqr_chain", fc.name), n, (out, x, x, _u(n), np.int32(k)))
    return out


# ---- Fp2: arrays of shape (n, 2, 12) ----

def fp2_mul(a, b):
    cp = _cp()
    a, b = _prep(a), _prep(b)
    n = max(a.shape[0], b.shape[0]) if min(a.shape[0], b.shape[0]) else 0
    out = cp.empty((n, 2, 12), dtype=cp.uint32)
    _launch(kernel("k_fp2_mul"), n, (out, a, b, _u(n), _u(a.shape[0] != 1), _u(b.shape[0] != 1)))
    return out


def _fp2_unary(name, a):
    cp = _cp()
    a = _prep(a)
    n = a.shape[0]
    out = cp.empty((n, 2, 12), dtype=cp.uint32)
    _launch(kernel(name), n, (out, a, _u(n)))
    return out


def fp2_sqr(a):
    return _fp2_unary("k_fp2_sqr", a)


def fp2_inv_elementwise(a):
    return _fp2_unary("k_fp2_inv", a)


def fp2_mul_by_nonresidue(a):
    return _fp2_unary("k_fp2_mul_by_nonresidue", a)


def fp2_conj(a):
    return _fp2_unary("k_fp2_conj", a)


def fp2_pow(a, e: int):
    cp = _cp()
    a = _prep(a)
    n = a.shape[0]
    out = cp.empty((n, 2, 12), dtype=cp.uint32)
    el, nbits = _exp_limbs(e)
    _launch(kernel("k_fp2_pow"), n, (out, a, _u(n), el, np.int32(nbits)))
    return out
