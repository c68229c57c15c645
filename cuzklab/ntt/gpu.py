"""The CuPy NTT: launches of the pass kernels in ``cuda/ntt.cu``.

Functions mirror ``cpu.py`` (same names, same results). Twiddle tables live on
the device, cached per size: omega^j for j < n/2 (the kernels negate and
invert exponents), built from two short tables in one kernel launch.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from ..backend import xp
from ..field import Fr
from .domain import Domain, powers
from .plan import plan_passes

_SOURCE = Path(__file__).with_name("cuda") / "ntt.cu"
_THREADS = 256
#: Split of exponents for two-level power tables: x^j = hi[j >> 12] * lo[j & 4095].
_SPLIT = 12
#: log2 of the side of the tiles of ``bit_reverse_tiles`` (BR_BITS in ntt.cu).
_BR_BITS = 4


@functools.lru_cache(maxsize=None)
def _module():
    from ..field.cuda import load_module
    return load_module(_SOURCE.read_text())


def _fn(name: str):
    return _module().get_function(name)


def _wrap(limbs) -> Fr:
    return Fr.from_mont_limbs(limbs, check=False)


def _grid(n: int) -> tuple[int]:
    return ((n + _THREADS - 1) // _THREADS,)


@functools.lru_cache(maxsize=64)
def _power_tables(x: int, n: int, factor: int = 1):
    """Return (lo, hi, shift) device tables with lo[i] = factor*x^i, hi[i] = x^(i << shift) (cached)."""
    shift = min(_SPLIT, max(0, (n - 1).bit_length()))
    lo_n = 1 << shift
    hi_n = max(1, -(-n // lo_n))
    lo = powers(x, lo_n, "cpu") * factor
    hi = powers(pow(x, lo_n, Fr.FC.modulus), hi_n, "cpu")
    cp = xp("gpu")
    return cp.asarray(lo.limbs), cp.asarray(hi.limbs), shift


@functools.lru_cache(maxsize=8)
def gpu_twiddles(log2_size: int) -> Fr:
    """Return omega^j for j < max(1, n/2) on the device (cached per size)."""
    d = Domain(log2_size)
    m = max(1, d.size // 2)
    lo, hi, shift = _power_tables(d.omega, m)
    cp = xp("gpu")
    out = cp.empty((m, 8), dtype=cp.uint32)
    _fn("powers_from_tables")(_grid(m), (_THREADS,), (out, lo, hi, np.int32(shift), np.int64(m)))
    return _wrap(out)


#: Shared memory a block may use without opting in.
_SMEM_DEFAULT = 48 * 1024


def run_passes(x, log_n: int, inverse: bool, dit: bool, scale=None, passes=None):
    """Run the DIF (natural in, bit-reversed out) or DIT passes over the (n, 8) device array ``x`` in place.

    ``passes``: the DIF plan (default ``plan_passes(log_n)``).
    """
    W = gpu_twiddles(log_n).limbs
    passes = plan_passes(log_n) if passes is None else list(passes)
    if dit:
        passes = passes[::-1]
    kernel = _fn("ntt_dit_pass" if dit else "ntt_dif_pass")
    n = 1 << log_n
    for i, p in enumerate(passes):
        tile = p.tile
        threads = max(1, min(_THREADS, tile // 2))
        shared = (tile + (1 << p.b) // 2) * 32
        last = i == len(passes) - 1
        # the scale (one Montgomery element) is applied by the last pass; 0 is a null pointer
        sc = scale if (last and scale is not None) else np.uint64(0)
        if shared > _SMEM_DEFAULT and kernel.max_dynamic_shared_size_bytes < shared:
            kernel.max_dynamic_shared_size_bytes = shared
        kernel((n // tile,), (threads,),
               (x, W, sc, np.int32(log_n), np.int32(p.lo), np.int32(p.b), np.int32(p.c),
                np.int32(1 if inverse else 0)),
               shared_mem=shared)


def dif(a: Fr, *, inverse: bool = False) -> Fr:
    """Return the (unscaled) transform of natural-order ``a`` in bit-reversed order."""
    log_n = len(a).bit_length() - 1
    x = a.limbs.copy()
    run_passes(x, log_n, inverse, dit=False)
    return _wrap(x)


def dit(a: Fr, *, inverse: bool = False) -> Fr:
    """Return the (unscaled) transform of bit-reversed ``a`` in natural order."""
    log_n = len(a).bit_length() - 1
    x = a.limbs.copy()
    run_passes(x, log_n, inverse, dit=True)
    return _wrap(x)


def bit_reverse_inplace(x, log_n: int) -> None:
    """Permute the (2^log_n, 8) device array ``x`` into bit-reversed order in place."""
    n = 1 << log_n
    if log_n >= 2 * _BR_BITS:
        # tiles of 16 x 16 elements: coalesced reads and writes
        _fn("bit_reverse_tiles")((1 << (log_n - 2 * _BR_BITS),), (1 << _BR_BITS, 1 << _BR_BITS),
                                 (x, np.int32(log_n)))
    else:
        _fn("bit_reverse_permute")(_grid(n), (_THREADS,), (x, np.int32(log_n)))


def bit_reverse(a: Fr) -> Fr:
    """Return ``a`` permuted into bit-reversed index order."""
    x = a.limbs.copy()
    bit_reverse_inplace(x, len(a).bit_length() - 1)
    return _wrap(x)


def scale_inplace(x, base: int, factor: int, *, reversed_order: bool) -> None:
    """Multiply the device array ``x`` in place: x[p] *= factor * base^i (i = p or bitrev(p))."""
    n = int(x.shape[0])
    lo, hi, shift = _power_tables(base, n, factor)
    _fn("scale_by_powers")(_grid(n), (_THREADS,),
                           (x, lo, hi, np.int32(shift), np.int32(n.bit_length() - 1),
                            np.int32(1 if reversed_order else 0)))


def scale_by_powers(a: Fr, x: int, factor: int, *, reversed_order: bool) -> Fr:
    """Return ``a[p] * factor * x^i`` with i = p, or i = bit_reverse(p) when reversed."""
    out = a.limbs.copy()
    scale_inplace(out, x, factor, reversed_order=reversed_order)
    return _wrap(out)


def ab_minus_c_div_z(a, b, c, zinv: int) -> None:
    """Overwrite the device array ``a`` with (a * b - c) / Z, given zinv = Z^-1."""
    n = int(a.shape[0])
    z = xp("gpu").asarray(Fr.from_ints([zinv]).limbs)
    _fn("ab_minus_c_div_z")(_grid(n), (_THREADS,), (a, b, c, z, np.int64(n)))


def transform_inplace(x, log_n: int, *, inverse: bool, coset: bool,
                      natural_output: bool = True) -> None:
    """Transform the natural-order device array ``x`` in place (no allocation of data).

    Same result as ``transform`` with natural input; with ``natural_output``
    False the output stays bit-reversed (one pass over memory saved).
    """
    from .domain import COSET_GENERATOR
    n = 1 << log_n
    if coset and not inverse:
        scale_inplace(x, COSET_GENERATOR, 1, reversed_order=False)
    run_passes(x, log_n, inverse, dit=False)
    if inverse:
        g = pow(COSET_GENERATOR, -1, Fr.FC.modulus) if coset else 1
        scale_inplace(x, g, pow(n, -1, Fr.FC.modulus), reversed_order=True)
    if natural_output:
        bit_reverse_inplace(x, log_n)
