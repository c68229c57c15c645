"""Sparse matrix-vector products over Fr for R1CS matrices (CPU and GPU).

``evaluate`` computes ``(A z, B z, C z)``, the work of cuzk's synthesis once
the witness is known. ``transpose_evaluate`` computes ``M^T v``, which the
setup uses to turn Lagrange-basis evaluations at tau into the per-variable
QAP polynomials u_i(tau), v_i(tau), w_i(tau).

The CPU path is a few vectorized Fr multiplies per ELL slot; the GPU path is
one CUDA thread per row (``cuda/ell_matvec.cu``). This module sits below
:mod:`.r1cs`: it works on any ELL matrix (``cols``, ``coeffs``, ``rows``,
``slot``) and never imports the system types.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from ..backend import xp
from ..field import Fr

_CUDA_DIR = Path(__file__).with_name("cuda")
_THREADS = 256


def _wrap(limbs) -> Fr:
    return Fr.from_mont_limbs(limbs, check=False)


def matvec(m: "SparseMatrix", z: Fr) -> Fr:
    """Return ``M z`` (one Fr per row) on the backend of ``m``."""
    if z.backend != m.backend:
        raise ValueError(f"z lives on {z.backend} but the matrix on {m.backend}")
    if m.rows == 0:
        return Fr.zeros(0, backend=m.backend)
    if m.backend == "gpu":
        return _matvec_gpu(m, z)
    acc = Fr.zeros(m.rows, backend="cpu")
    for k in range(m.width):
        cols, coeffs = m.slot(k)
        acc = acc + coeffs * z[cols]
    return acc


def evaluate(r1cs: "R1CS", witness: "Witness") -> tuple[Fr, Fr, Fr]:
    """Return ``(A z, B z, C z)`` for the assignment ``z = (inputs, aux)``."""
    r1cs.check_witness(witness)
    z = witness.to(r1cs.backend).z()
    return matvec(r1cs.a, z), matvec(r1cs.b, z), matvec(r1cs.c, z)


@functools.lru_cache(maxsize=None)
def _kernel():
    from ..field.cuda import load_module
    src = (_CUDA_DIR / "ell_matvec.cu").read_text()
    return load_module(src).get_function("ell_matvec")


def _matvec_gpu(m: "SparseMatrix", z: Fr) -> Fr:
    cp = xp("gpu")
    out = cp.empty((m.rows, 8), dtype=cp.uint32)
    cols = cp.ascontiguousarray(m.cols, dtype=cp.int64)
    grid = (m.rows + _THREADS - 1) // _THREADS
    _kernel()((grid,), (_THREADS,),
              (cols, m.coeffs.limbs, z.limbs, out, np.int64(m.rows), np.int32(m.width)))
    return _wrap(out)


def segment_sum(values: Fr, segments, num_segments: int) -> Fr:
    """Return ``out[s] = sum of values[i] with segments[i] == s`` for s < num_segments.

    ``segments`` must be sorted. Adjacent entries of a segment are added in
    pairs, halving the entries each round, so a segment of any length costs
    log2(length) vectorized rounds on either backend.
    """
    mod = xp(values.backend)
    seg = mod.asarray(segments, dtype=mod.int64)
    if seg.shape[0] != len(values):
        raise ValueError(f"segments must have one entry per value ({len(values)}), got {seg.shape[0]}")
    limbs = values.limbs
    while seg.shape[0]:
        n = seg.shape[0]
        rank = mod.arange(n, dtype=mod.int64) - mod.searchsorted(seg, seg, side="left")
        if int(rank.max()) == 0:
            break
        even = mod.flatnonzero(rank % 2 == 0)
        nxt = mod.minimum(even + 1, n - 1)
        pair = (even + 1 < n) & (seg[nxt] == seg[even])
        first = _wrap(limbs[even])
        summed = first + _wrap(limbs[nxt])
        limbs = mod.where(pair[:, None], summed.limbs, first.limbs)
        seg = seg[even]
    out = mod.zeros((num_segments, 8), dtype=mod.uint32)
    if seg.shape[0]:
        out[seg] = limbs
    return _wrap(out)


def transpose_evaluate(m: "SparseMatrix", values: Fr, num_variables: int) -> Fr:
    """Return ``M^T values``: for each variable, the sum over rows of coefficient * value."""
    if len(values) != m.rows:
        raise ValueError(f"values must have one entry per row ({m.rows}), got {len(values)}")
    mod = xp(m.backend)
    if m.rows == 0 or m.width == 0:
        return Fr.zeros(num_variables, backend=m.backend)
    mask = m.nonzero_mask().ravel()
    cols = m.cols.ravel()[mask]
    rows = mod.tile(mod.arange(m.rows, dtype=mod.int64), m.width)[mask]
    order = mod.argsort(cols, kind="stable") if m.backend == "cpu" else mod.argsort(cols)
    idx = mod.flatnonzero(mask)[order]
    prods = m.coeffs[idx] * values[rows[order]]
    return segment_sum(prods, cols[order], num_variables)
