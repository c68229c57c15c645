"""The CuPy NTT: launches of the pass kernels in ``cuda/ntt.cu``.

``dit``, ``bit_reverse`` and ``scale_by_powers`` mirror ``cpu.py`` (same
names, same results); natural-order input goes through ``transform_inplace``,
whose passes carry the pointwise factors and the final reversal (``cpu.dif``
has no twin here). Twiddle tables live on
the device, cached per size: omega^j for j < n/2 (the kernels negate and
invert exponents), built from two short tables in one kernel launch.
"""

from __future__ import annotations

import collections
import functools
from pathlib import Path

import numpy as np

from ..backend import xp
from ..field import Fr
from .domain import Domain, powers
from . import plan as _plan_module
from .plan import plan_passes

_SOURCE = Path(__file__).with_name("cuda") / "ntt.cu"
_THREADS = 256
#: Split of exponents for two-level power tables: x^j = hi[j >> 12] * lo[j & 4095].
_SPLIT = 12
#: log2 of the side of the tiles of ``bit_reverse_tiles`` (BR_BITS in ntt.cu).
_BR_BITS = 4


#: Build settings of ``cuda/ntt.cu`` as {name: int} -D options (see the top of
#: that file): NTT_MAXT and NTT_MINB, the pass kernels' launch bounds (most
#: threads per block, fewest resident blocks per SM); NTT_TWF64=1 keeps the
#: in-tile twiddles as FP64-multiplier limbs (needs the FP64 Fr multiplier);
#: CUZK_FR_MUL_EO=1 runs every Fr multiply on the even/odd-row integer
#: multiplier (``field/cuda/cuzk_mont_eo.cuh``), 0 on the field module's
#: default (``cuzklab.field.cuda.MULTIPLIERS``, the FP64 one). The default,
#: from side-by-side builds on an H200 (``benchmarks/results/
#: tune-ntt-kernels-h200.json``, graph replays): the even/odd multiplier,
#: 2^24 4.85 ms against 5.06 with the FP64 one, 2^27 44.2 against 46.3,
#: 2^22 1.20 against 1.25; at 2^16-2^18 the two are within 3 %.
#: NTT_LAZY_SUB (1 by default in the source) leaves a DIF difference that is
#: multiplied next as u - v + m; CUZK_SUB_MAD=1 adds m back in the other
#: subtractions by multiply-adds of the borrow bit instead of masks and adds
#: (graph replays on an H200, ``tune-ntt-lazy-sub-h200.json``: 2^24 4.79 ms
#: without the lazy difference, 4.71 with it, 4.70 with both; 1.2-1.7 % from
#: 2^20 to 2^24 for the first, 0.1-0.3 % for the second).
#: Results are the same under every setting. The environment variable
#: CUZKLAB_NTT_DEFINES ("NAME=V,NAME=V") adds to these at import.
KERNEL_DEFINES: dict = {"CUZK_FR_MUL_EO": 1, "CUZK_SUB_MAD": 1}


def parse_defines(spec: str) -> dict:
    """Return {NAME: int} from "NAME=V[,NAME=V]" (empty: {}); ValueError otherwise."""
    out = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, sep, value = part.partition("=")
        if not sep or not name.strip().isidentifier():
            raise ValueError(f"NTT kernel settings must be NAME=V pairs, got {part!r}")
        out[name.strip()] = int(value)
    return out


def _env_defines() -> dict:
    import os
    try:
        return parse_defines(os.environ.get("CUZKLAB_NTT_DEFINES", ""))
    except ValueError as exc:
        raise ValueError(f"CUZKLAB_NTT_DEFINES: {exc}") from None


KERNEL_DEFINES.update(_env_defines())


def _defines_key() -> tuple:
    return tuple(sorted((str(k), int(v)) for k, v in KERNEL_DEFINES.items()))


def _max_threads() -> int:
    """Return the most threads of a pass kernel's block (NTT_MAXT, 256 by default)."""
    return int(KERNEL_DEFINES.get("NTT_MAXT", _THREADS))


@functools.lru_cache(maxsize=None)
def _module_for(defines: tuple):
    from ..field.cuda import load_module
    return load_module(_SOURCE.read_text(), options=tuple(f"-D{k}={v}" for k, v in defines))


def _module():
    return _module_for(_defines_key())


@functools.lru_cache(maxsize=None)
def _fn_for(defines: tuple, name: str):
    return _module_for(defines).get_function(name)


def _fn(name: str):
    """Return the kernel ``name`` built with ``KERNEL_DEFINES`` (cached: fetching a function costs a driver call)."""
    return _fn_for(_defines_key(), name)


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
#: Plans of transforms with natural-order output, from plan sweeps on an H200
#: timed by CUDA-graph replay (``benchmarks/results/tune-ntt-plans-h200.json``,
#: ``tune-ntt-plans-coset-h200.json``, ``tune-ntt-plans-21-22-lazy-h200.json``):
#: up to 2^NATURAL_MAX_LOG2 elements, a last pass of NATURAL_LOW_BITS bits
#: whose blocks take 2^NATURAL_LAST_COLS rows (stores run along 2 elements)
#: after passes of 2^NATURAL_TILE_BITS-element tiles (at most
#: 2^plan.TILE_BITS), with one thread per
#: radix-4 unit (ELEMS_PER_THREAD): the fastest plan of every size swept
#: from 2^20 to 2^27, forward (2^24: 4.58 ms against 4.70 for the former
#: 8-bit last pass of 4 rows after 2^10-element tiles; 2^27: 42.47 against
#: 42.91 for the former 10-bit last pass), and of the coset inverse at 2^24
#: (5.22 against 5.38; at 2^22 and 2^27 within 1 % of the best).
#: Larger transforms take the plain plan (10-bit last pass, single rows).
#: Sizes with radix-2 in-tile stages and no SMALL_PLANS entry (up to 2^15)
#: keep the plan of the sweeps before: the same last pass with
#: 2^RADIX2_LAST_COLS rows after full 2^plan.TILE_BITS-element tiles.
NATURAL_MAX_LOG2 = 27
NATURAL_LOW_BITS = 8
NATURAL_LAST_COLS = 1
NATURAL_TILE_BITS = 9
RADIX2_LAST_COLS = 2
#: Elements per thread of a pass: a block of a tile of T elements has
#: min(256, T / e) threads, e = ELEMS_PER_THREAD if set, else one thread per
#: radix-2 butterfly (e = 2) where the in-tile stages run radix-2
#: (RADIX2_MAX_LOG2) and one per radix-4 unit (e = 4) where they run in
#: radix-4 units. One thread per radix-4 unit was 3-13 % faster than two
#: (half of them idle in the stages) wherever the tile has fewer than 1024
#: elements, and the same at 1024 (256 threads either way; same sweeps).
ELEMS_PER_THREAD: int | None = None
#: Plans of the smallest transforms, natural-order output: log2 size ->
#: (last-pass bits, log2 tile of the other passes, log2 rows per block of the
#: last pass). Smaller tiles give these latency-bound sizes more blocks. From
#: plan sweeps on an H200 timed by CUDA-graph replay (the kernels alone, as
#: ``transform_inplace`` runs them up to GRAPH_MAX_LOG2;
#: ``benchmarks/results/tune-ntt-graph-h200.json``): 2^16 as two 8-bit passes
#: of 512-element tiles, 0.0275 ms against 0.0383 for the former 10 + 6 bits;
#: 2^18 as 8 + 10 bits, 0.0825 against 0.0840 for 5 + 5 + 8. Other sizes take
#: the plans described above.
SMALL_PLANS = {16: (8, 9, 0), 17: (8, 8, 0), 18: (10, 9, 0), 19: (8, 8, 0)}
#: Transforms of at most 2^RADIX2_MAX_LOG2 elements run their in-tile stages
#: one radix-2 stage per sync (twice the busy threads of radix-4 units), the
#: others two stages per sync in radix-4 units (see ``cuda/ntt.cu``). Same
#: sweep: radix-2 wins at 2^16 to 2^19 (2^16: 0.058 ms against 0.065 for the
#: best radix-4 plan), loses from 2^20 (2^22: 1.29 against 1.25 ms).
RADIX2_MAX_LOG2 = 19
_NULL = np.uint64(0)


def _elems_per_thread(radix2) -> int:
    """Return the elements per thread of a pass (ELEMS_PER_THREAD, or by the stage kind)."""
    if ELEMS_PER_THREAD is not None:
        return ELEMS_PER_THREAD
    return 2 if radix2 else 4


def _launch(kernel, blocks: int, tile: int, b: int, args, radix2) -> None:
    threads = max(1, min(_max_threads(), tile // _elems_per_thread(radix2)))
    # the tile, then the M/2 internal twiddles (32 bytes each, 40 as FP64 limbs)
    shared = tile * 32 + (1 << b) // 2 * (40 if KERNEL_DEFINES.get("NTT_TWF64") else 32)
    if shared > _SMEM_DEFAULT and kernel.max_dynamic_shared_size_bytes < shared:
        kernel.max_dynamic_shared_size_bytes = shared
    kernel((blocks,), (threads,), args, shared_mem=shared)


def _tables(powers):
    """Return the kernel arguments (lo, hi, shift) of optional power tables."""
    if powers is None:
        return _NULL, _NULL, np.int32(0)
    lo, hi, shift = powers
    return lo, hi, np.int32(shift)


def dit_passes(x, log_n: int, *, inverse: bool, passes=None) -> None:
    """Run the DIT passes (bit-reversed in, natural out) over the (n, 8) device array ``x`` in place.

    ``passes``: the DIF plan (default ``plan_passes(log_n)``), run in reverse.
    """
    W = gpu_twiddles(log_n).limbs
    passes = _plain_plan(log_n) if passes is None else list(passes)
    n = 1 << log_n
    kernel = _fn("ntt_dit_pass")
    r2 = np.int32(int(log_n <= RADIX2_MAX_LOG2))
    for p in reversed(passes):
        _launch(kernel, n // p.tile, p.tile, p.b,
                (x, x, W, _NULL, np.int32(log_n), np.int32(p.lo), np.int32(p.b), np.int32(p.c),
                 np.int32(int(inverse)), r2), r2)


def natural_plan(log_n: int):
    """Return (passes, last_cols) for a transform of 2^log_n elements with natural-order output."""
    from . import plan
    if log_n <= RADIX2_MAX_LOG2:
        cols, tile = RADIX2_LAST_COLS, plan.TILE_BITS
    else:  # never larger tiles than plan.TILE_BITS allows (tests shrink it to force many passes)
        cols, tile = NATURAL_LAST_COLS, min(NATURAL_TILE_BITS, plan.TILE_BITS)
    return _natural_plan(log_n, plan.TILE_BITS, plan.LOW_BITS, plan.UPPER_BITS, NATURAL_MAX_LOG2,
                         NATURAL_LOW_BITS, cols, tile, SMALL_PLANS.get(log_n))


@functools.lru_cache(maxsize=None)
def _natural_plan(log_n, tile_bits, low_bits, upper_bits, nat_max, nat_low, nat_cols, nat_tile, small=None):
    """``natural_plan`` for given plan constants (cached: the settings are part of the key).

    Up to 2^nat_max: a last pass of at most nat_low bits with 2^nat_cols rows after
    2^nat_tile-element tiles; above it the plain plan. ``small``: (low bits, tile bits,
    last cols) of ``SMALL_PLANS`` for this size, or None.
    """
    if small is not None:
        low, tile, cols = small
        return tuple(plan_passes(log_n, low_bits=low, tile_bits=tile, upper_bits=upper_bits)), cols
    if log_n <= nat_max:
        return tuple(plan_passes(log_n, low_bits=min(low_bits, nat_low), tile_bits=nat_tile,
                                 upper_bits=upper_bits)), nat_cols
    return tuple(plan_passes(log_n, low_bits=low_bits, tile_bits=tile_bits, upper_bits=upper_bits)), 0


def _plain_plan(log_n: int):
    """Return ``plan_passes(log_n)`` with the module's constants (cached per constants)."""
    from . import plan
    return _natural_plan(log_n, plan.TILE_BITS, plan.LOW_BITS, plan.UPPER_BITS, -1, 0, 0, plan.TILE_BITS)[0]


def dif_inplace(x, log_n: int, *, inverse: bool, natural_output: bool, pre_powers=None,
                post_powers=None, scale=None, passes=None, last_cols: int | None = None,
                scratch=None) -> None:
    """Run a DIF transform over the natural-order device array ``x``, with its pointwise factors fused.

    ``pre_powers``: power tables (lo, hi, shift) multiplied into the input
    (element i by x^i) by the first pass; ``post_powers`` or ``scale`` (one
    Montgomery element) multiplied into output k (its natural index) by the
    last. With ``natural_output`` the last pass also writes the output in
    natural order: the passes before it then run out of place into a scratch
    array of the size of ``x`` (when that memory is not free, in place
    followed by a separate bit reversal). Otherwise the output stays
    bit-reversed and everything runs in place. ``passes``, ``last_cols``: the
    plan (default ``natural_plan(log_n)`` for natural output, else
    ``plan_passes(log_n)`` with single rows). ``scratch``: a device array
    like ``x`` for the scratch array (default: allocated here).
    """
    plan_cols = 0
    if passes is None:
        passes, plan_cols = natural_plan(log_n) if natural_output else (_plain_plan(log_n), 0)
    cols = plan_cols if last_cols is None else last_cols
    passes = tuple(passes)
    if not passes:  # n = 1: the transform is the identity; only the factors apply
        for tables in (pre_powers, post_powers):
            if tables is not None:
                scale_inplace_tables(x, tables, reversed_order=False)
        if scale is not None:
            x[...] = (_wrap(x) * Fr.from_mont_limbs(scale, check=False)).limbs
        return
    W = gpu_twiddles(log_n).limbs
    n = 1 << log_n
    inv = np.int32(int(inverse))
    r2 = np.int32(int(log_n <= RADIX2_MAX_LOG2))
    last = passes[-1]
    cols = max(0, min(cols, log_n - last.b)) if natural_output else 0
    src = x
    fused = natural_output
    if natural_output and len(passes) > 1:
        cp = xp("gpu")
        try:
            src = cp.empty_like(x) if scratch is None else scratch
        except cp.cuda.memory.OutOfMemoryError:
            src, fused, cols = x, False, 0
    if len(passes) == 1 and pre_powers is not None:
        scale_inplace_tables(x, pre_powers, reversed_order=False)
    kernel = _fn("ntt_dif_pass")
    for i in range(len(passes) - 1):
        p = passes[i]
        pre = pre_powers if i == 0 else None
        _launch(kernel, n // p.tile, p.tile, p.b,
                (x if i == 0 else src, src, W, _NULL) + _tables(pre)
                + (np.int32(log_n), np.int32(p.lo), np.int32(p.b), np.int32(p.c), inv, r2), r2)
    tile = (1 << last.b) << cols
    _launch(_fn("ntt_dif_last"), n // tile, tile, last.b,
            (src, x, W, scale if scale is not None else _NULL) + _tables(post_powers)
            + (np.int32(log_n), np.int32(last.b), np.int32(cols), inv, np.int32(int(fused)), r2), r2)
    if natural_output and not fused:
        bit_reverse_inplace(x, log_n)


def dit(a: Fr, *, inverse: bool = False) -> Fr:
    """Return the (unscaled) transform of bit-reversed ``a`` in natural order."""
    log_n = len(a).bit_length() - 1
    x = a.limbs.copy()
    dit_passes(x, log_n, inverse=inverse)
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


def power_tables(base: int, n: int, factor: int = 1):
    """Return device tables (lo, hi, shift) of factor * base^i for i < n (cached)."""
    return _power_tables(base, n, factor)


def scale_inplace_tables(x, tables, *, reversed_order: bool) -> None:
    """Multiply the device array ``x`` in place by the powers of ``tables`` (see ``scale_inplace``)."""
    n = int(x.shape[0])
    lo, hi, shift = tables
    _fn("scale_by_powers")(_grid(n), (_THREADS,),
                           (x, lo, hi, np.int32(shift), np.int32(n.bit_length() - 1),
                            np.int32(1 if reversed_order else 0)))


def scale_inplace(x, base: int, factor: int, *, reversed_order: bool) -> None:
    """Multiply the device array ``x`` in place: x[p] *= factor * base^i (i = p or bitrev(p))."""
    scale_inplace_tables(x, _power_tables(base, int(x.shape[0]), factor),
                         reversed_order=reversed_order)


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


@functools.lru_cache(maxsize=64)
def _constant(value: int):
    """Return one Fr element on the device (cached)."""
    return xp("gpu").asarray(Fr.from_ints([value]).limbs)


def transform_inplace(x, log_n: int, *, inverse: bool, coset: bool,
                      natural_output: bool = True) -> None:
    """Transform the natural-order device array ``x`` in place.

    Same result as ``transform`` with natural input; with ``natural_output``
    False the output stays bit-reversed. The coset and 1/n factors ride in
    the first and last passes (no pass of their own); natural output uses
    a scratch array of the size of ``x`` when memory allows (see
    ``dif_inplace``).
    """
    graphs = GRAPHS and 1 <= log_n <= GRAPH_MAX_LOG2
    flags = (bool(inverse), bool(coset), bool(natural_output))
    if graphs and _replay(x, log_n, *flags):
        return
    pre, post, scale = _factors(log_n, flags[0], flags[1])
    if graphs and _graph_transform(x, log_n, *flags, (pre, post, scale)):
        return
    dif_inplace(x, log_n, inverse=inverse, natural_output=natural_output, pre_powers=pre,
                post_powers=post, scale=scale)


#: Replay the launches of small transforms as CUDA graphs (``transform_inplace``).
#: A transform of 2^16 elements is two kernels of a few microseconds each; the
#: host work around them (plan and table look-ups, a scratch allocation, one
#: CuPy launch per pass) takes as long as the kernels, and the GPU waits for
#: it. The first call per (array, size, variant, stream) runs plain launches;
#: the second runs them too and records them on a side stream; later calls
#: launch the recorded graph, one driver call. A graph holds the device tables
#: it reads and a scratch array, shared by the graphs of one size and stream
#: (they run one after another on that stream).
GRAPHS = True
#: Largest transform (log2) replayed as a graph (its scratch: 2^22 elements,
#: 128 MiB per stream, 64 MiB at 2^21). 2^20 until 2026-12-04; raised where
#: the host's launches still cost a few per cent: in the sweeps on an H200
#: (``tune-ntt-lazy-sub-h200.json``, the same plan and build both ways in one
#: process) a plain call took 0.598-0.609 ms at 2^21 against 0.567 replayed,
#: 1.223-1.226 against 1.170 at 2^22 (~4 %); from 2^23 it is 1-3 % (2^23
#: 2.373 against 2.325, ``tune-ntt-plans-h200.json``) and the scratch would
#: pass 256 MiB.
GRAPH_MAX_LOG2 = 22
#: Most graphs kept (least recently used dropped first).
GRAPH_CACHE = 32
_GRAPHS: collections.OrderedDict = collections.OrderedDict()
#: Keys seen once (no graph yet), in the same order.
_SEEN: collections.OrderedDict = collections.OrderedDict()


def _plan_key(log_n: int) -> tuple:
    """Return the module settings a transform's launches depend on (part of a graph's key)."""
    p = _plan_module
    return (p.TILE_BITS, p.LOW_BITS, p.UPPER_BITS, NATURAL_MAX_LOG2, NATURAL_LOW_BITS, NATURAL_LAST_COLS,
            NATURAL_TILE_BITS, RADIX2_LAST_COLS, SMALL_PLANS.get(log_n), RADIX2_MAX_LOG2, ELEMS_PER_THREAD,
            tuple(KERNEL_DEFINES.items()))


def _graph_key(x, log_n: int, inverse: bool, coset: bool, natural: bool, stream) -> tuple:
    """Return the key of a transform's recorded graph (device, array, stream, variant, settings)."""
    return (x.data.ptr, x.data.device_id, stream.ptr, log_n, inverse, coset, natural,
            _plan_key(log_n))


def _replay(x, log_n: int, inverse: bool, coset: bool, natural: bool) -> bool:
    """Launch the recorded graph of this transform if there is one (the fast path: no table
    look-ups); False otherwise."""
    if not _GRAPHS or x.shape != (1 << log_n, 8) or x.dtype != np.uint32 or not x.flags.c_contiguous:
        return False
    stream = _cupy_stream()
    key = _graph_key(x, log_n, inverse, coset, natural, stream)
    entry = _GRAPHS.get(key)
    if entry is None or entry["graph"] is None:
        return False
    _GRAPHS.move_to_end(key)
    entry["graph"].launch(stream)
    return True


def _cupy_stream():
    return xp("gpu").cuda.get_current_stream()


def clear_graphs() -> None:
    """Drop every recorded transform graph (and the scratch arrays they hold)."""
    _GRAPHS.clear()
    _SEEN.clear()


def graph_count() -> int:
    """Return how many transform graphs are recorded."""
    return sum(1 for e in _GRAPHS.values() if e["graph"] is not None)


def _graph_transform(x, log_n: int, inverse: bool, coset: bool, natural: bool, factors) -> bool:
    """Run the transform of ``x`` through a recorded graph; False for plain launches."""
    cp = xp("gpu")
    if not (x.flags.c_contiguous and x.dtype == cp.uint32 and x.shape == (1 << log_n, 8)):
        return False
    stream = cp.cuda.get_current_stream()
    key = _graph_key(x, log_n, inverse, coset, natural, stream)
    entry = _GRAPHS.get(key)
    if entry is not None:
        _GRAPHS.move_to_end(key)
        if entry["graph"] is None:  # recording failed once for this key
            return False
        entry["graph"].launch(stream)
        return True
    if key not in _SEEN:
        _SEEN[key] = None
        while len(_SEEN) > GRAPH_CACHE:
            _SEEN.popitem(last=False)
        return False
    del _SEEN[key]
    pre, post, scale = factors
    scratch = None
    if natural:
        scratch = next((e["scratch"] for k, e in _GRAPHS.items()
                        if k[1:4] == key[1:4] and e["scratch"] is not None), None)
        if scratch is None:
            try:
                scratch = cp.empty_like(x)
            except cp.cuda.memory.OutOfMemoryError:
                return False
    kw = dict(inverse=inverse, natural_output=natural, pre_powers=pre, post_powers=post,
              scale=scale, scratch=scratch)
    dif_inplace(x, log_n, **kw)  # this call's result
    graph = None
    side = cp.cuda.Stream(non_blocking=True)
    try:
        with side:
            side.begin_capture()
            try:
                dif_inplace(x, log_n, **kw)
            finally:
                graph = side.end_capture()
    except Exception:  # no capture here (CuPy or driver): plain launches for this key
        graph = None
    # the graph refers to these arrays by address: they live as long as it does
    _GRAPHS[key] = {"graph": graph, "scratch": scratch,
                    "tables": (gpu_twiddles(log_n).limbs, pre, post, scale)}
    while len(_GRAPHS) > GRAPH_CACHE:
        _GRAPHS.popitem(last=False)
    return True


@functools.lru_cache(maxsize=64)
def _factors(log_n: int, inverse: bool, coset: bool):
    """Return the (pre_powers, post_powers, scale) of a transform (device tables, cached)."""
    from .domain import COSET_GENERATOR
    n = 1 << log_n
    pre = post = scale = None
    if coset and not inverse:
        pre = _power_tables(COSET_GENERATOR, n, 1)
    if inverse:
        n_inv = pow(n, -1, Fr.FC.modulus)
        if coset:
            post = _power_tables(pow(COSET_GENERATOR, -1, Fr.FC.modulus), n, n_inv)
        else:
            scale = _constant(n_inv)
    return pre, post, scale
