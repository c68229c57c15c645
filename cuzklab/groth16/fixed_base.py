"""Fixed-base multiplication [k_i] G of the generators, for the Groth16 setup.

The setup needs one point per query entry: about 3.3 G1 points and 0.25 G2
points per constraint. On the GPU a windowed table does it (``cuda/
fixed_base.cu``, on the curve's device formulas): T[w][d] = d 2^(8w) G for 32
windows of 8 bits, so each scalar costs at most 32 mixed additions and one
inversion. The table is built once per group on the host with the curve's
Python-int formulas. The CPU runs the same table with the curve's batched
XYZZ mixed additions (NumPy); batches of a few dozen points use one
Python-int multiplication per point instead.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from ..backend import check_backend, xp
from ..curve import Points
from ..curve import fields as FF
from ..curve import reference as ref
from ..field import Fr

#: Bits per window of the GPU table (32 windows cover the 255-bit scalars).
WINDOW_BITS = 8
WINDOWS = 32
#: On the CPU, up to this many points use per-point Python-int multiplication
#: (the batched table wins from about a hundred points on).
REFERENCE_MAX_POINTS = 64

_CUDA = Path(__file__).with_name("cuda") / "fixed_base.cu"
_THREADS = 128


@functools.lru_cache(maxsize=2)
def _host_table(group: str) -> Points:
    """Return the 32 x 256 affine table d 2^(8w) G (row-major, d = 0 at infinity)."""
    rows = []
    base = ref.generator(group)
    for _ in range(WINDOWS):
        acc = None
        rows.append(None)
        for _d in range(1, 1 << WINDOW_BITS):
            acc = base if acc is None else ref.affine_add(group, acc, base)
            rows.append(acc)
        for _ in range(WINDOW_BITS):
            base = ref.affine_add(group, base, base)
    return Points.from_ints(rows, group, "cpu", check=False)


@functools.lru_cache(maxsize=2)
def _device_table(group: str) -> Points:
    return _host_table(group).to("gpu")


@functools.lru_cache(maxsize=None)
def _kernel(group: str):
    from ..field.cuda import load_module
    curve_dir = Path(__file__).resolve().parents[1] / "curve" / "cuda"
    # the -I folder's headers are hashed into the options (see compile_options)
    mod = load_module(_CUDA.read_text(), options=(f"-I{curve_dir}",))
    return mod.get_function(f"fixed_base_{group}")


def _gpu(group: str, scalars: Fr) -> Points:
    cp = xp("gpu")
    n = len(scalars)
    table = _device_table(group)
    k = cp.ascontiguousarray(scalars.to_canonical_limbs())
    shape = (n,) + FF.coord_shape(group)
    ox, oy = cp.empty(shape, dtype=cp.uint32), cp.empty(shape, dtype=cp.uint32)
    grid = ((n + _THREADS - 1) // _THREADS,)
    _kernel(group)(grid, (_THREADS,), (k, table.x.limbs, table.y.limbs, ox, oy, np.int64(n)))
    return Points(group, FF.wrap(group, ox, "gpu"), FF.wrap(group, oy, "gpu"))


def _cpu(group: str, scalars: Fr) -> Points:
    from ..curve import xyzz as X
    table = _host_table(group)
    k = scalars.to_canonical_limbs()
    acc = X.infinity(group, len(scalars), "cpu")
    for w in range(WINDOWS):
        d = (k[:, w >> 2] >> np.uint32(WINDOW_BITS * (w & 3))) & np.uint32(0xFF)
        acc = X.add_mixed(acc, table[w * 256 + d.astype(np.int64)])
    return Points.from_xyzz(acc)


def fixed_base_mul(group: str, scalars: Fr, backend: str) -> Points:
    """Return the batch [k_i] G for the generator G of ``group``, on ``backend``."""
    FF.check_group(group)
    check_backend(backend)
    if not isinstance(scalars, Fr):
        raise TypeError(f"scalars must be an Fr array, got {type(scalars).__name__}")
    n = len(scalars)
    if n == 0:
        return Points.infinity(group, 0, backend)
    if backend == "gpu":
        return _gpu(group, scalars.to("gpu"))
    if n <= REFERENCE_MAX_POINTS:
        g = ref.generator(group)
        return Points.from_ints([ref.affine_mul(group, g, k) for k in scalars.to_ints()],
                                group, backend, check=False)
    return _cpu(group, scalars)
