"""prep_msm's classify-and-gather on the GPU: two kernels (``cuda/prep_msm.cu``).

The twin of :mod:`cuzklab.native.split`, with the same inputs and outputs:
the inputs and the aux values are one index space, cut into ranges of
``K`` values, one range per thread.

1. ``prep_classify``: a code per value (0 / 1 / other, and which queries
   select it) and, per range and query, the values it selects and how many
   of them are one and other;
2. the exclusive prefix sums of those counts over the ranges (``cumsum``)
   and the totals, the one wait on the device: they size the outputs and
   decide each query's split (SupraSeal's rule, see
   :mod:`cuzklab.stages.prep_msm`);
3. ``prep_gather``: one pass over the codes writes every query's indices of
   the ones, indices of the tail and tail scalars, range by range.

Which queries select a value is a byte per value built on the host from the
masks (:func:`selection`); for the prover's queries it depends only on the
circuit, so :func:`prover_selection` keeps it on the device, keyed by the
density arrays (the same objects for every proof of an R1CS, which treats
them as constants). The output equals the native split's and the NumPy
twin's, bit for bit.

Kernels are launched through a runner: :class:`CupyRunner` by default, or
any object with ``xp`` and ``launch`` (the tests run these kernels compiled
for the host).
"""

from __future__ import annotations

import functools
import pathlib
import weakref

import numpy as np

from ..backend import to_numpy, xp
from ..field.constants import FR
from ..field.cuda import check_launch_args

SOURCE = pathlib.Path(__file__).resolve().parent / "cuda" / "prep_msm.cu"
#: Values per thread (PREP_K in the source): a multiple of 4 (the codes are
#: read and written as words). 32 gives 2^19 threads at 2^24 values.
K = 32
BLOCK = 256
#: Most queries one call splits (selection bits 0-2 of a code).
MAX_QUERIES = 3
#: Kernel signatures: "ptr" a C-contiguous uint32 array, "mem" any
#: C-contiguous array (the int64 index outputs), "u32" a numpy.uint32.
SIGNATURES = {
    "prep_classify": ("ptr", "u32", "ptr", "u32", "ptr", "ptr", "ptr"),
    "prep_gather": ("ptr", "u32", "ptr", "u32", "ptr", "ptr", "u32") + ("mem", "mem", "ptr") * 3,
}


def kernel_source() -> str:
    """Return the CUDA source with the limbs of one (R mod r) and K prepended."""
    one = [int(v) for v in FR.mont_r_limbs]
    if len(one) != 8:
        raise AssertionError("Fr Montgomery one must have 8 limbs")
    head = "".join(f"#define FR_ONE{j} {v}u\n" for j, v in enumerate(one))
    return head + f"#define PREP_K {K}\n" + SOURCE.read_text()


def check_args(name: str, args) -> None:
    """Raise TypeError when launch arguments do not match the kernel's signature."""
    check_launch_args(name, args, SIGNATURES[name])


class CupyRunner:
    """Launches the prep kernels on the current CUDA device and stream (compiled once)."""

    def __init__(self):
        self.xp = xp("gpu")

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def module():
        """Return the compiled module (NVRTC, cached)."""
        from ..field.cuda import load_module
        return load_module(kernel_source())

    def launch(self, name: str, n_threads: int, args, block: int = BLOCK) -> None:
        """Run kernel ``name`` over ``n_threads`` threads."""
        if n_threads <= 0:
            return
        check_args(name, args)
        self.module().get_function(name)(((n_threads + block - 1) // block,), (block,), args)


@functools.lru_cache(maxsize=None)
def default_runner() -> CupyRunner:
    """Return the process-wide CuPy runner."""
    return CupyRunner()


def ranges_of(n: int) -> int:
    """Return the number of ranges (threads) of n values."""
    return -(-n // K)


def _mask(m, n: int, what: str):
    if m is None:
        return None
    from ..native.split import _mask_bytes
    return _mask_bytes(to_numpy(m), n, what).view(np.bool_)


def selection(ni: int, na: int, masks: dict) -> np.ndarray:
    """Return the selection words (host uint32, K / 4 per range): byte i has bit q when query q selects value i.

    ``masks``: {query: (input_mask or None, aux_mask or None)} as for
    :func:`cuzklab.native.split.split_queries` (None: every value).
    """
    if len(masks) > MAX_QUERIES:
        raise ValueError(f"at most {MAX_QUERIES} queries, got {len(masks)}")
    n = ni + na
    buf = np.zeros(ranges_of(n) * K, dtype=np.uint8)
    for q, name in enumerate(masks):
        pair = masks[name]
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"masks[{name!r}]: expected (input_mask, aux_mask), got {pair!r}")
        bit = np.uint8(1 << q)
        for s, (lo, cnt) in enumerate(((0, ni), (ni, na))):
            m = _mask(pair[s], cnt, f"masks[{name!r}][{s}]")
            part = buf[lo:lo + cnt]
            if m is None:
                part |= bit
            else:
                part |= m.view(np.uint8) * bit
    return buf.view(np.uint32)


def _limbs(a, mp, what: str):
    if not hasattr(a, "shape") or len(a.shape) != 2 or a.shape[1] != 8:
        raise ValueError(f"{what}: expected an (n, 8) uint32 array, got shape {getattr(a, 'shape', None)}")
    if a.dtype != np.uint32:
        raise ValueError(f"{what}: expected dtype uint32, got {a.dtype}")
    return mp.ascontiguousarray(mp.asarray(a))


def split_queries(inputs, aux, masks: dict, *, runner=None, sel=None) -> dict:
    """Return {query: (ones_idx, tail_idx, tail_limbs, zeros, ones, split)} for each query, on the device.

    ``inputs``, ``aux``: (n, 8) uint32 Montgomery Fr limbs (device arrays,
    or host arrays, then uploaded). ``masks``: as for
    :func:`cuzklab.native.split.split_queries`; ``sel``: their
    :func:`selection` already on the device (then only the names of
    ``masks`` are read). The same tuples as the native split, as device
    arrays; one wait on the device, for the totals.
    """
    run = runner or default_runner()
    mp = run.xp
    inputs, aux = _limbs(inputs, mp, "inputs"), _limbs(aux, mp, "aux")
    ni, na = int(inputs.shape[0]), int(aux.shape[0])
    n = ni + na
    if n >= 1 << 31:
        raise ValueError(f"too many values for one split: {n} >= 2^31")
    queries = list(masks)
    if len(queries) > MAX_QUERIES:
        raise ValueError(f"at most {MAX_QUERIES} queries, got {len(queries)}")
    T = ranges_of(n)
    if sel is None:
        sel = mp.asarray(selection(ni, na, masks))
    elif tuple(sel.shape) != (T * K // 4,) or sel.dtype != np.uint32:
        raise ValueError(f"sel: expected a ({T * K // 4},) uint32 array for {n} values, "
                         f"got {sel.dtype} {tuple(sel.shape)}")
    if T:
        codes = mp.empty(T * K // 4, dtype=mp.uint32)
        counts = mp.empty((9, T), dtype=mp.uint32)
        u = np.uint32
        run.launch("prep_classify", T, (inputs, u(ni), aux, u(n), sel, codes, counts))
        offs = mp.cumsum(counts, axis=1, dtype=mp.uint32)
        tot = [int(v) for v in to_numpy(offs[:, -1])]
        offs -= counts
        del counts
    else:
        tot = [0] * 9
    out, args, split_bits = {}, [], 0
    for q in range(MAX_QUERIES):
        if q >= len(queries):
            dummy_i, dummy_v = mp.empty(1, dtype=mp.int64), mp.empty((1, 8), dtype=mp.uint32)
            args += [dummy_i, dummy_i, dummy_v]
            continue
        selected, ones, others = tot[3 * q: 3 * q + 3]
        split = not 2 * others > selected
        nones = ones if split else 0
        ntail = others + (0 if split else ones)
        ones_idx = mp.empty(nones, dtype=mp.int64)
        tail_idx = mp.empty(ntail, dtype=mp.int64)
        tail_vals = mp.empty((ntail, 8), dtype=mp.uint32)
        args += [ones_idx, tail_idx, tail_vals]
        split_bits |= int(split) << q
        out[queries[q]] = (ones_idx, tail_idx, tail_vals, selected - ones - others, nones, split)
    if T and queries:
        u = np.uint32
        run.launch("prep_gather", T, (inputs, u(ni), aux, u(n), codes, offs, u(split_bits), *args))
    return out


#: Device selections of the prover's queries, by density arrays (see prover_selection).
_CACHE: dict = {}
_CACHE_SIZE = 4


def prover_masks(ni: int, a_aux, b_input, b_aux) -> dict:
    """Return the masks of the L, A and B queries (L: the aux values; A: the inputs and a_aux; B: b_input, b_aux)."""
    return {"l": (np.zeros(ni, dtype=bool), None), "a": (None, a_aux), "b": (b_input, b_aux)}


def prover_selection(ni: int, na: int, a_aux, b_input, b_aux, mp=None):
    """Return the device selection of the L, A, B queries, built once per set of density arrays.

    Kept for the last few sets, keyed by the arrays' identity (and by ni,
    na and the device), so the arrays must not change in place once used.
    """
    mp = xp("gpu") if mp is None else mp
    dens = (a_aux, b_input, b_aux)
    dev = mp.cuda.Device().id if hasattr(mp, "cuda") else -1
    key = (tuple(id(d) for d in dens), ni, na, dev, mp.__name__)
    hit = _CACHE.get(key)
    if hit is not None and all(r() is d for r, d in zip(hit[0], dens)):
        return hit[1]
    sel = mp.asarray(selection(ni, na, prover_masks(ni, *dens)))
    try:
        refs = tuple(weakref.ref(d) for d in dens)
    except TypeError:       # not weak-referenceable: not cached
        return sel
    while len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = (refs, sel)
    return sel


def clear_cache() -> None:
    """Drop the cached device selections."""
    _CACHE.clear()
