"""The GPU MSM: CUDA kernels (``cuda/pippenger.cu``) driven through CuPy.

Per MSM of n points, window c, W = ceil(255/c) windows, 2^(c-1) buckets each:

1. ``msm_count``: signed digits of every scalar, bucket sizes (integer atomics
   on counters; points are never touched by atomics);
2. exclusive scan of the sizes (``cupy.cumsum``) gives each bucket's offset;
3. ``msm_scatter``: point indices (sign in bit 31) written by bucket: a
   counting sort of W * n entries, so each bucket is a contiguous run;
4. from G1 2^22 and G2 2^20 points (``AFFINE_ROUNDS``, ``AFFINE_MIN_ENTRIES``),
   ``msm_affine_round``: rounds of pairwise affine additions halve every
   bucket's run (one shared inversion per thread's batch of pairs);
   ``msm_accumulate``: equal chunks of the sorted entries (or of the runs the
   rounds left) per thread, mixed XYZZ additions;
5. ``msm_integrate``: per window, running sums over segments of buckets give
   sum_b b * B_b in parallel; ``msm_sum_groups`` folds segments into windows;
6. the W window sums come back to the host and are combined there by c
   doublings each (Horner): a chain of ~255 dependent doublings is
   latency-bound, and one GPU thread does it several times slower than Python.

G1 MSMs over plain bases first split every scalar with the GLV endomorphism
(``msm_glv_split``, see :mod:`.glv`): 2n points and scalars below 2^127, so
W = ceil(128/c) windows, half the reduction and half the host combination.
``GLV`` (module switch) and the ``glv`` keyword of :func:`msm_gpu` turn it off.

Kernels are launched through a *runner*: :class:`CupyRunner` by default, or
any object with the same two members (``xp`` and ``launch``), which lets the
tests run these same kernels compiled for the host.
"""

from __future__ import annotations

import contextlib
import functools
import pathlib

import numpy as np

from ..backend import to_numpy, xp
from ..curve import reference as ref
from ..curve.affine import Point, Points
from ..field.constants import P as FP_P
from ..field.cuda import check_launch_args
from . import digits as D
from .combine import _to_affine_g1 as _jacobian_g1_to_affine
from .combine import combine_windows


_DIR = pathlib.Path(__file__).resolve().parent / "cuda"
_CURVE_DIR = pathlib.Path(__file__).resolve().parent.parent / "curve" / "cuda"
SOURCE = "pippenger.cu"
BLOCK = 128
#: Curve traits in the CUDA sources: inline multiplications for the hot kernel,
#: out-of-line ones for the others (they compile several times faster).
CURVES = {"g1": "cuzk::G1", "g2": "cuzk::G2"}
COLD_CURVES = {"g1": "cuzk::G1c", "g2": "cuzk::G2"}
#: The kernels built with CURVES (inline multiplications). The reduction
#: kernels inline were slower on an H200 (G1 2^20: reduce 1.36 -> 3.18 ms
#: with msm_integrate inline; benchmarks/tune_msm.py --hot).
HOT = ("msm_accumulate", "msm_accumulate_pieces", "msm_affine_round")
#: Words of one coordinate.
WORDS = {"g1": 12, "g2": 24}
#: Target number of threads of the bucket reduction per group (sets the
#: segment length). G1 on an H200, 2^20 points (GLV, c = 16: 8 x 2^15
#: buckets): reduction 1.88 ms with 2^16 threads, 1.37 with 2^15, 1.40 with
#: 2^14, 2.92 with 2^17 (longer segments, fewer of the per-segment scalar
#: multiplications). G2 (benchmarks/tune_msm.py --group g2 --set
#: INTEGRATE_THREADS.g2=...): 2^16 points (c = 13) reduce in 4.8-5.0 ms with
#: 2^13-2^14 threads against 9.0 with 2^16; 2^18 (c = 13) 5.4 ms with 2^14
#: against 8.9; 2^20 (c = 15) 10.9-11.5 ms with 2^14-2^15 against 13.1.
INTEGRATE_THREADS = {"g1": 1 << 15, "g2": 1 << 14}
#: Points folded per thread in msm_sum_groups / msm_sum_pieces / msm_sum_affine.
GROUP = 32
#: Segment sums folded per thread in the last steps of the bucket reduction:
#: few threads each, so a short chain (4 dependent additions, not 32) per step.
#: On an H200 (2026-12-04, ``tune_msm.py --set REDUCE_GROUP=4,8,16 --set
#: INTEGRATE_THREADS.g1=...``, ``msm-reduce-tune-h200.json``, medians of 5,
#: checked) the G1 reduction (8 x 2^15 buckets) took 1.04-1.05 ms with 4,
#: 1.16-1.18 with 8 and 1.35-1.42 with 16 at 2^14-2^15 integrate threads, at
#: 2^20 and 2^24 alike.
REDUCE_GROUP = 4

#: Kernel signatures: "ptr" is a uint32 device array, "u32" a numpy.uint32.
SIGNATURES = {
    "msm_count": ("ptr", "u32", "u32", "u32", "u32", "u32", "u32", "ptr", "u32"),
    "msm_scatter": ("ptr", "u32", "u32", "u32", "u32", "u32", "u32", "ptr", "ptr", "u32", "u32", "u32"),
    "msm_accumulate": ("ptr", "ptr", "ptr", "ptr", "u32", "ptr", "u32", "ptr", "u32"),
    "msm_accumulate_pieces": ("ptr", "ptr", "ptr", "ptr", "ptr", "ptr", "u32", "u32", "ptr"),
    "msm_chunk_pieces": ("ptr", "u32", "u32", "ptr"),
    "msm_piece_map": ("ptr", "u32", "ptr"),
    "msm_sum_pieces": ("ptr", "ptr", "ptr", "ptr", "u32", "u32", "ptr"),
    "msm_bucket_sums": ("ptr", "ptr", "u32", "ptr"),
    "msm_integrate": ("ptr", "u32", "u32", "u32", "ptr"),
    "msm_sum_groups": ("ptr", "u32", "u32", "ptr"),
    "msm_sum_affine": ("ptr", "ptr", "u32", "u32", "ptr"),
    "msm_bench_points": ("ptr", "ptr", "u32", "u32", "ptr", "ptr"),
    "msm_glv_split": ("ptr", "ptr", "ptr", "u32", "ptr", "ptr", "ptr", "ptr", "u32", "u32"),
    "msm_pair_map": ("ptr", "ptr", "u32", "u32", "ptr"),
    "msm_affine_round": ("ptr", "ptr", "ptr", "u32", "ptr", "u32", "u32", "u32", "ptr", "ptr"),
}
TEMPLATED = ("msm_accumulate", "msm_accumulate_pieces", "msm_affine_round", "msm_sum_pieces", "msm_bucket_sums", "msm_integrate", "msm_sum_groups",
             "msm_sum_affine", "msm_bench_points")
#: Which source file holds each kernel (each file is one module, built on first use).
FILES = {"msm_bench_points": "bench_points.cu"}


def source(filename: str = SOURCE) -> str:
    """Return the CUDA source of a kernel file of this package (the MSM kernels by default)."""
    return (_DIR / filename).read_text()


def file_of(name: str) -> str:
    """Return the source file holding kernel ``name``."""
    return FILES.get(name.split("<")[0], SOURCE)


def include_dirs() -> tuple[str, ...]:
    """Return the include folders the MSM kernels need beyond the field headers."""
    return (str(_CURVE_DIR), str(_DIR))


def kernel_names(filename: str | None = SOURCE) -> tuple[str, ...]:
    """Return the kernel names to instantiate from ``filename`` (None: all files)."""
    names = [k for k in SIGNATURES if k not in TEMPLATED]
    for k in TEMPLATED:
        table = CURVES if k in HOT else COLD_CURVES
        if k == "msm_accumulate":
            names += [f"{k}<{c}, {ACC_MIN_BLOCKS[g]}>" for g, c in table.items()
                      if ACCUMULATE[g] == "chunks"]
        elif k == "msm_accumulate_pieces":
            names += [f"{k}<{c}>" for g, c in table.items() if ACCUMULATE[g] == "pieces"]
        elif k == "msm_affine_round":
            names += [f"{k}<{c}, {AFFINE_MIN_BLOCKS[g]}>" for g, c in table.items()]
        else:
            names += [f"{k}<{c}>" for c in table.values()]
    return tuple(k for k in names if filename is None or file_of(k) == filename)


def check_args(name: str, args) -> None:
    """Raise TypeError when launch arguments do not match the kernel's signature."""
    check_launch_args(name, args, SIGNATURES[name.split("<")[0]])


class CupyRunner:
    """Launches the MSM kernels on the current CUDA device (compiled once, cached)."""

    def __init__(self):
        self.xp = xp("gpu")

    @staticmethod
    def module(filename: str, group: str):
        """Return the compiled module of a kernel file for one group (NVRTC, cached)."""
        mul = tuple(sorted((MULTIPLIERS.get(group) or {}).items()))
        return CupyRunner._module(filename, group, ACC_MIN_BLOCKS[group], ACCUMULATE[group], mul, tuple(HOT),
                                  AFFINE_MIN_BLOCKS[group], PREFETCH[group], EO_SQR[group], SORT_HINTS[group])

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def _module(filename: str, group: str, acc_min_blocks: int, accumulate: str, mul: tuple, hot: tuple,
                affine_min_blocks: int = 0, prefetch: int = 3, eo_sqr: int = 1, sort_hints: int = 0):
        from ..field.cuda import load_module
        opts = tuple(f"-I{d}" for d in include_dirs()) + (f"-DCUZK_MSM_PREFETCH={prefetch}",
                                                          f"-DCUZK_EO_SQR={eo_sqr}",
                                                          f"-DCUZK_SORT_HINTS={sort_hints}")
        names = tuple(k for k in kernel_names(filename) if group_of(k) in (None, group))
        return load_module(source(filename), names, opts, mul=dict(mul))

    def resident_threads(self, name: str, block: int = BLOCK) -> int:
        """Return how many threads of kernel ``name`` the device holds at once (blocks of ``block``)."""
        return _resident_threads(self.module(file_of(name), group_of(name) or "g1"), name, block,
                                 self.xp.cuda.Device().id)

    def launch(self, name: str, n_threads: int, args, block: int = BLOCK) -> None:
        """Run kernel ``name`` over ``n_threads`` threads."""
        if n_threads <= 0:
            return
        check_args(name, args)
        grid = (n_threads + block - 1) // block
        mod = self.module(file_of(name), group_of(name) or "g1")
        mod.get_function(name)((grid,), (block,), args)


def blocks_per_sm(num_regs: int, block: int, regs_per_sm: int = 65536, threads_per_sm: int = 2048,
                  max_blocks: int = 32, reg_unit: int = 256) -> int:
    """Return the resident blocks per SM of a kernel limited by its registers and threads.

    Registers are given out per warp in units of ``reg_unit`` (NVIDIA's
    allocation granularity on sm_70-sm_90), warps per block in whole warps;
    no shared memory (the MSM kernels use none). E.g. 168 registers and
    blocks of 128 threads: 3 blocks (12 warps) on an H200's 64 K registers.
    """
    if num_regs < 1 or block < 1:
        raise ValueError(f"num_regs and block must be >= 1, got {num_regs}, {block}")
    warps = -(-block // 32)
    per_warp = -(-(num_regs * 32) // reg_unit) * reg_unit
    by_regs = (regs_per_sm // per_warp) // warps
    by_threads = threads_per_sm // (warps * 32)
    return max(0, min(by_regs, by_threads, max_blocks))


@functools.lru_cache(maxsize=None)
def _resident_threads(mod, name: str, block: int, device: int) -> int:
    cp = xp("gpu")
    f = mod.get_function(name)
    attrs = cp.cuda.Device(device).attributes
    per_sm = blocks_per_sm(int(f.num_regs), block, int(attrs["MaxRegistersPerMultiprocessor"]),
                           int(attrs["MaxThreadsPerMultiProcessor"]))
    return max(1, per_sm) * block * int(attrs["MultiProcessorCount"])


def group_of(name: str) -> str | None:
    """Return the group a kernel name is instantiated for ("g1", "g2"), or None."""
    if "<" not in name:
        return None
    return "g2" if "G2" in name else "g1"


@functools.lru_cache(maxsize=None)
def default_runner() -> CupyRunner:
    """Return the process-wide CuPy runner."""
    return CupyRunner()


def _u(v) -> np.uint32:
    v = int(v)
    if not 0 <= v < 1 << 32:
        raise ValueError(f"value {v} does not fit a u32 kernel argument")
    return np.uint32(v)


#: Register budget of msm_accumulate per group: at least this many blocks of
#: 128 threads per SM (``__launch_bounds__``). G1: 2 (up to 255 registers):
#: with the FP64-pipe multiply (72 registers on its own), 2^20 points on an
#: H200 accumulate in 11.1 ms with 1 or 2, 12.7 ms with 3 and 19.8 ms with 4
#: (spills); with the CIOS integer multiply 4 was best (14.2 ms); with the
#: even/odd one (the Fp default since 2026-12-04; 168 registers at 2) 8.35 /
#: 8.34 / 8.67 ms with 2 / 3 / 4 (``benchmarks/results/msm-eo-tune-h200.json``).
#: G2: 1: its accumulator alone is 96 words, and capped at 128 registers it spills.
ACC_MIN_BLOCKS = {"g1": 2, "g2": 1}

#: Software prefetch per group, a bit mask (``CUZK_MSM_PREFETCH`` in
#: pippenger.cu): 1, ``msm_accumulate`` (G1) loads each sort entry one
#: addition ahead and asks L2 for its point then; 2, ``msm_affine_round``
#: loads each pair's map two steps and its sort entries one step ahead; 4
#: (with 2), it also asks L2 for the next pair's points (measured slower).
PREFETCH = {"g1": 3, "g2": 3}

#: L2 hints of the counting sort per group, a bit mask (``CUZK_SORT_HINTS``
#: in pippenger.cu): 1, ``msm_count`` / ``msm_scatter`` load the scalars as
#: streaming data; 2, ``msm_scatter`` stores its entries evict-last. Why:
#: Nsight Compute at G1 2^24, c = 19 (``ncu-sort-2p24-c19-h200.txt``) showed
#: each one-window scatter launch (1.84 ms for 2^25 entries of 4 bytes) move
#: ~2.6 GB through DRAM: the bucket fronts (8 MiB) were evicted between the
#: writes of their bucket by the 512 MiB of scalars each launch streams in.
#: On an H200 (2026-12-04, ``tune_msm.py --set SORT_HINTS.g1=0,1,2,3``,
#: ``msm-sort-hints-24-h200.json``, ``msm-sort-hints-26-h200.json``, medians
#: of 5, checked): G1 2^26 at c = 19 409.5 / 407.0 / - / 399.0 ms with 0 / 1 /
#: - / 3 (sort 64.2 / 62.0 / - / 54.3); 2^24 at c = 19 110.7 / 110.7 / 110.0
#: / 107.9 (sort 16.5 / 16.0 / 15.6 / 14.1), at c = 16 110.9 / 111.2 / 110.5
#: / 109.8. G1 2^20 and 2^22 and G2 2^20 did not move (sort 0.75 / 0.72,
#: 2.96 / 2.76, 0.80 / 0.80 ms; ``msm-sort-hints-small-h200.json``), so G2
#: keeps the plain accesses.
SORT_HINTS = {"g1": 3, "g2": 0}

#: Squares of an even/odd-multiplied field per group (``CUZK_EO_SQR``,
#: cuzk_mont.cuh): 1, ``mont_sqr_eo`` (each cross product once); 0,
#: ``mont_mul_eo(a, a)``. Same results; kept for side-by-side timing.
EO_SQR = {"g1": 1, "g2": 1}


#: Montgomery multipliers per group's modules, over the field defaults
#: (``cuzklab.field.cuda.MULTIPLIERS`` and CUZKLAB_MUL): e.g.
#: ``{"fp": "f64"}``; None or {} keeps the defaults. On an H200 (2026-12-04,
#: ``benchmarks/tune_msm.py --mul 'fp=f64;fp=eo'``,
#: ``benchmarks/results/msm-eo-tune-h200.json``) the even/odd Fp multiply, the
#: field default, beat the FP64-pipe one at every size: G1 2^20 12.4 ms
#: against 14.5, 2^22 34.5 against 41.7, 2^24 119.1 against 138.6, 2^26 436.8
#: against 502.2; G2 2^20 35.0 against 43.7. (Before, with the FP64 one as
#: the default, G2 was faster on it than on CIOS: 2^20 at c = 15 69.7 ms
#: against 72.6.)
MULTIPLIERS: dict = {"g1": None, "g2": None}


def _kname(base: str, group: str) -> str:
    curve = (CURVES if base in HOT else COLD_CURVES)[group]
    if base == "msm_accumulate":
        return f"{base}<{curve}, {ACC_MIN_BLOCKS[group]}>"
    if base == "msm_affine_round":
        return f"{base}<{curve}, {AFFINE_MIN_BLOCKS[group]}>"
    return f"{base}<{curve}>"


#: R^-1 mod p for leaving Montgomery form on the host.
_R_INV = pow(1 << 384, -1, FP_P)


def _fp_values(limbs) -> list[int]:
    """Return Montgomery Fp limbs (uint32, any shape, 12 words an element, host or device) as canonical ints."""
    arr = np.ascontiguousarray(to_numpy(limbs), dtype="<u4").reshape(-1, 12)
    # a handful of values: plain ints beat the vectorized conversion (0.03 vs 0.4 ms for 32)
    return [int.from_bytes(row.tobytes(), "little") * _R_INV % FP_P for row in arr]


def _xyzz_to_points(group: str, limbs) -> list:
    """Return XYZZ Montgomery limbs (m, 4, WORDS), on host or device, as Python-int tuples."""
    vals = _fp_values(limbs)
    if group == "g2":
        vals = list(zip(vals[0::2], vals[1::2]))
    return [tuple(vals[4 * i:4 * i + 4]) for i in range(len(vals) // 4)]


#: The windows' combination on the host (sum_w 2^(c w) W_w, ~c W dependent
#: doublings) in native code (``g1_combine`` / ``g2_combine`` of
#: ``cuzklab.native``) where that library builds, else on Python ints
#: (``combine.combine_windows``). Same point either way. On the 2-core
#: development machine (``benchmarks/bench_combine.py``, from the device's
#: limbs to the affine point, medians of 200, ``combine-native-dev.json``):
#: 8 G1 windows of 16 bits 0.24-0.42 ms on Python ints, 0.10 natively (the C
#: chain ~0.09 of it); 7 of 19 bits 0.23 and 0.10-0.14; 17 G2 windows of 15
#: bits 1.46-1.49 and 0.62-0.64. Not yet timed inside an MSM on an H200.
NATIVE_COMBINE = True


def combine_sums(group: str, limbs, c: int) -> Point:
    """Return sum_w 2^(c w) W_w for the (W, 4, WORDS) XYZZ Montgomery window sums ``limbs``.

    ``limbs``: as the reduction leaves them (device or host). Natively when
    NATIVE_COMBINE and the native library builds, else
    ``combine_windows`` over ``_xyzz_to_points``.
    """
    if NATIVE_COMBINE:
        from ..native.build import NativeBuildError, library
        try:
            lib = library()
        except (NativeBuildError, OSError):     # no C compiler, or a library that will not load
            lib = None
        if lib is not None:
            return _combine_native(lib, group, limbs, c)
    return combine_windows(group, _xyzz_to_points(group, limbs), c)


def _combine_native(lib, group: str, limbs, c: int) -> Point:
    import ctypes
    words = WORDS[group]
    arr = np.ascontiguousarray(to_numpy(limbs), dtype="<u4").reshape(-1, 4 * words)
    nwin = int(arr.shape[0])
    if nwin == 0:
        return Point.infinity(group)
    sums = arr.view("<u8")                          # 2 words a limb, little-endian
    out = np.zeros(3 * words // 2 if group == "g1" else 2 * words, dtype="<u8")
    ptr = ctypes.c_void_p
    if group == "g1":
        lib.g1_combine(ptr(sums.ctypes.data), nwin, c, ptr(out.ctypes.data))
    else:
        lib.g2_combine(ptr(sums.ctypes.data), nwin, 1, c, ptr(out.ctypes.data))
    if group == "g1":                               # Jacobian X, Y, Z (None: infinity)
        return Point(group, _jacobian_g1_to_affine(tuple(_fp_values(out.view("<u4")))))
    return Point(group, ref.xyzz_to_affine(group, _xyzz_to_point(group, out.view("<u4"))))


def xyzz_limbs(group: str, points) -> np.ndarray:
    """Return XYZZ Python-int tuples as (m, 4, WORDS) Montgomery uint32 limbs: ``_xyzz_to_points``'s inverse."""
    vals = []
    for pt in points:
        for v in pt:
            vals.extend(v if group == "g2" else (v,))
    raw = b"".join((int(v) % FP_P * (1 << 384) % FP_P).to_bytes(48, "little") for v in vals)
    return np.frombuffer(raw, dtype="<u4").reshape(len(points), 4, WORDS[group]).copy()


def _xyzz_to_point(group: str, limbs) -> tuple:
    """Return the first XYZZ point of ``limbs`` as a Python-int tuple."""
    return _xyzz_to_points(group, limbs)[0]


def segment_length(nwin: int, nb: int, group: str = "g1") -> int:
    """Return the buckets per integrate thread: a power of two giving ~INTEGRATE_THREADS[group] threads."""
    L = 1
    while L < nb and nwin * nb // (2 * L) >= INTEGRATE_THREADS[group]:
        L *= 2
    return L


#: Enough accumulate threads to fill the GPU several times over (H200: 132 SMs
#: x 256-512 resident threads of these kernels, 2^15-2^16): the number of G2
#: pieces (``piece_size``) ...
MIN_PIECES = 1 << 18
#: ... and of G1 chunks (``chunk_size``). On an H200 (benchmarks/tune_msm.py
#: --set MIN_CHUNKS=...): 2^19 (K = 32 at 2^20 points, 512 at 2^24) gave
#: 13.76 ms at 2^20 and 170.1 ms at 2^24, against 13.81-13.91 and
#: 172.9-174.8 ms with 2^18; 2^17 was 13.9-14.0 / 174.6-177.5 ms, and sizes
#: that make K no power of two were slower at 2^24 (3 x 2^16: 184 ms).
MIN_CHUNKS = 1 << 19


#: How msm_accumulate splits the work, per group: "chunks" (equal runs of
#: sorted entries per thread, across bucket boundaries) or "pieces" (a thread
#: per bucket, or per piece of at most K entries of a large one).
ACCUMULATE = {"g1": "chunks", "g2": "pieces"}


#: Batch-affine pre-reduction (``msm_affine_round``), per group: the most
#: rounds of pairwise affine additions run over the sorted entries before the
#: accumulation (0: none). Each round halves every bucket's run; a thread adds
#: AFFINE_BATCH pairs with one shared inversion (Montgomery's trick, the
#: inversion by a binary GCD), so an addition costs about 5M + 1S instead of
#: the 8M + 2S of a mixed XYZZ one, at the price of writing every round's
#: points to device memory. The runs left go through ``msm_accumulate``
#: (chunks) or ``msm_accumulate_pieces``. Measured on an H200 in one run
#: (``benchmarks/tune_msm.py --set AFFINE_ROUNDS.g1=0,3,5 --set
#: AFFINE_BATCH=...``; GLV, c = 16; medians of 5, every result checked):
#: G1 2^24 172.3 ms without rounds, 152.2 with 3 rounds of 64 pairs a thread
#: (169.1 with 32, 203.3 with 16; 5 rounds of 32: 168.3); 2^22 46.5 -> 44.5
#: (3 rounds of 32); 2^20 13.9 -> 13.8 (32) and 14.0 (64): no gain there. G2
#: 2^20 (c = 15): 66.5 ms without, 45.9 with 2 rounds and 43.3 with 3 (32).
#: A later run (``benchmarks/results/msm-affine2-h200.json``, 256 pairs a
#: thread): G1 2^24 147.9 / 144.7 / 144.1 ms with 3 / 4 / 5 rounds (the
#: accumulation of the runs left 20.7 / 10.4 / 5.2 ms, the rounds 104.2 /
#: 111.8 / 115.1), against 151.8 with 3 rounds of 64; 2^26 543.3 ms with 5
#: rounds of 256 (684.9 with 3 of 32 in the first run); 2^22 within 1 ms
#: either way (40.0-41.1 ms for 3 or 4 rounds of 128 or 256, 40.9 before).
AFFINE_ROUNDS = {"g1": 5, "g2": 3}
#: Pairs per thread of a round (the batch of one inversion), per group. The
#: rounds at G1 2^24 took 163.6 / 130.3 / 113.0 ms with 16 / 32 / 64 pairs,
#: i.e. 97 ms + 1066 ms divided by the pairs a thread: against the Fp
#: multiply's 21.9 G/s, an inversion takes the time of ~100 multiplications
#: and an addition of ~9, its memory traffic included (a mixed XYZZ addition
#: of the same run: ~12.5). The later run took the fit further: 3 rounds at
#: 2^24 in 105.7 ms with 128 pairs and 104.2 with 256 (the fit: 105.3,
#: 101.2), against 113.4 with 64 in the same run; at 2^22 29.8 / 29.1 / 29.0
#: ms with 64 / 128 / 256.
#: A round of fewer than AFFINE_MIN_THREADS times this many pairs gives each
#: thread fewer (at least 16), so that it still fills the device.
#: 0: as many pairs a thread as make the round one wave of the device's
#: resident threads of the round kernel (``CupyRunner.resident_threads``;
#: one inversion a thread, no partly filled last wave), at least
#: AFFINE_MIN_PAIRS. With a fixed batch a round ran in waves of which the
#: last was partly filled (G1 2^22, round 1: 2.59 waves of 3 blocks an SM,
#: round 2: 1.30; Nsight Compute, 2026-12-04). One wave against the fixed
#: batches (H200, 2026-12-04, ``tune_msm.py --set AFFINE_BATCH.g1=0,256``,
#: ``msm-wave-h200.json``, ``msm-wave-g2-h200.json``, medians of 5, checked):
#: G1 2^22 31.85 ms against 34.59 (rounds 23.89 / 26.55), 2^24 113.29
#: against 114.40 (90.17 / 91.88); G2 2^20 31.87 against 35.43 (rounds
#: 16.92 / 20.32).
AFFINE_BATCH = {"g1": 0, "g2": 0}
#: Fewest pairs a thread of a round fitted to one wave (AFFINE_BATCH 0) adds:
#: a smaller round runs on fewer threads than the device holds rather than
#: pay an inversion (about 100 multiplications) for fewer additions.
AFFINE_MIN_PAIRS = 16
#: Threads a round keeps at least, while its batches stay above 16 pairs (see
#: AFFINE_BATCH): the later, smaller rounds trade a larger share of
#: inversions for threads to fill the device (an H200 holds 132 x 384
#: threads of the G1 kernel at once). At G1 2^20 with 3 rounds (64 pairs)
#: 2^17 gave rounds of 8.64 ms against 8.52 with 2^14 in the first run.
#: On the even/odd Fp multiply (2026-12-04, ``benchmarks/tune_msm.py --set
#: AFFINE_MIN_THREADS=...``, ``msm-minthreads-h200.json``) 2^14 / 2^15 /
#: 2^16 / 2^17 gave G1 2^22 35.13 / 34.02 / 33.87 / 34.37 ms (rounds 27.39 /
#: 26.36 / 26.63 / 26.55) and 2^24 119.86 / 118.89 / 118.56 / 118.87: the
#: later rounds of 2^22 (a few thousand threads at 256 pairs) fill more of
#: the device. Not adopted: in the 2^24 proof, run once on a tree with 2^16
#: (``prove-24-minthreads-h200.json``), the G1 tails took 36.6 ms and the G2
#: tail 21.3 against 34.9 and 19.0 with 2^14 in the job before, while a
#: stage the setting does not touch (batch_add) moved by 4 % between the
#: two: not separable from the host's spread without a run side by side.
AFFINE_MIN_THREADS = 1 << 14
#: Fewest sorted entries (points x windows) for which the rounds run, per
#: group: G1 from 2^22 points with GLV (2^26 entries; at 2^20, 2^24 entries,
#: they gained nothing: 13.5-14.0 ms with 2 or 3 rounds of 256 pairs and 2^14
#: or 2^16 threads against 13.7 without, c = 16, 2026-12-04,
#: ``msm-2p20-rounds-h200.json``; c = 15 was slower either way, 15.6-17.4),
#: G2 from 2^22 entries: the prover's B tail at 2^24 (339,712 points,
#: c = 13, 20 windows: 6.8 M entries) took 26.1 ms with 3
#: rounds against 30.4 without (2026-12-04, H200,
#: ``benchmarks/bench_tail_msm.py``, ``tail-msm-h200.json``); 2^20 points
#: (17 windows: 1.8 x 2^24) 43.3 against 66.5.
#: With the rounds fitted to one wave (AFFINE_BATCH 0) they win at G1 2^20
#: too: 11.09 ms against 12.36 without (rounds 6.19 + accumulation 1.22
#: against 8.20 of accumulation; ``msm-wave-2p20-h200.json``), so G1 now
#: runs them from 2^24 entries.
AFFINE_MIN_ENTRIES = {"g1": 1 << 24, "g2": 1 << 22}
#: Rounds stop once the mean run per bucket would fall below this many
#: entries (at most log2(entries / buckets / AFFINE_MIN_RUN) rounds): a round
#: over runs of a few entries pays its pass over memory and its inversions
#: for few additions. At G1 2^22-2^26 and G2 2^20 (runs of 64-1024) the cap
#: leaves AFFINE_ROUNDS as it is; the prover's three G1 tails in one
#: ``msm_many`` (runs of ~80) took 39.9 ms with 3 rounds, 42.1 with 5 and
#: 44.3 with none (``tail-msm-h200.json``). 0: no cap. With the warp-wide
#: pair maps, 4 gave G1 2^24 (a fifth round) 102.4 ms against 103.2 and the
#: tails (a fourth) 28.7-29.9 against 28.0-29.2 (``msm-minrun-24-pairmap-h200.json``,
#: ``tails-pairmap-minrun-4-h200.json``), before the galloping took ~1 ms
#: from each of the tails' pair maps: not measured since.
AFFINE_MIN_RUN = 8
#: A round runs only while it leaves at most this fraction (in 1/256) of its
#: input: once most buckets hold one point, a round adds little.
AFFINE_SHRINK_256 = 192
#: Register budget of msm_affine_round: resident blocks of 128 threads per SM
#: (G1: 3 fit in 168 registers without spills, with the inversion out of line).
AFFINE_MIN_BLOCKS = {"g1": 3, "g2": 1}
#: Outputs of a round that one warp of ``msm_pair_map`` maps (the kernel's
#: PAIR_MAP_WARP_OUTPUTS): 32 a lane, the lanes side by side.
PAIR_MAP_WARP_OUTPUTS = 1024


#: The counting sort's scatter writes each entry at the front of its bucket,
#: so the 32-byte sectors being filled at one time are those of every bucket
#: it writes to: windows x buckets a window x 32 bytes (x batches of an
#: upload in parts). Where that passes this many bytes (per group), the
#: scatter runs window group by window group (each launch recodes every
#: scalar but writes the entries of its windows only), so that the live
#: fronts of one group stay in L2 (50 MB on an H200). G1 2^26 at c = 19:
#: 7 x 2^18 buckets, 56 MiB of fronts; c = 16: 8 MiB. With precomputed bases
#: the windows share one set of buckets: one launch. 0: always one launch.
#: On an H200 (2026-12-04, ``tune_msm.py --set SCATTER_FRONT_BYTES.g1=...``,
#: ``msm-scatter-h200.json``, medians of 5, checked): G1 2^26 at c = 19 took
#: 419.5 ms in one launch (sort 68.9), 413.8 with one window a launch (8 MiB,
#: sort 63.7), 417.5 with two (16 MiB), 416.8 with four (32 MiB); at c = 16
#: (one launch under every limit) 2^24 111.9-112.3 and 2^26 435.7-436.0.
#: The fronts are only part of the sort's cost at c = 19: each launch reads
#: every scalar again. With SORT_HINTS 3 one window a launch still wins
#: (``msm-c19-tune-h200.json``): 2^24 at
#: c = 19 sort 13.4 / 15.5 / 16.9 ms with 8 / 16 / 64 MiB, 2^26 54.2 / 62.7
#: with 8 / 16 MiB.
SCATTER_FRONT_BYTES = {"g1": 1 << 23, "g2": 1 << 23}


def scalar_words(bits: int) -> int:
    """Return the words of each (n, 8) scalar the sort reads: 4 for scalars below 2^128.

    ``bits``: the scalars' bit length plus one for the signed-digit carry
    (``digits.windows``): 128 for GLV's halves (below 2^127), whose upper four
    words are 0, so ``msm_count`` and ``msm_scatter`` read half the bytes.
    """
    return 4 if bits <= 128 else 8


def scatter_groups(group: str, nwin: int, nb: int, batches: int = 1, *,
                   shared: bool = False) -> list[tuple[int, int]]:
    """Return the window ranges [lo, hi) of the scatter's launches (see SCATTER_FRONT_BYTES)."""
    limit = SCATTER_FRONT_BYTES[group]
    per_window = 32 * nb * batches
    if shared or limit <= 0 or nwin * per_window <= limit:
        return [(0, nwin)]
    step = max(1, limit // per_window)
    return [(lo, min(lo + step, nwin)) for lo in range(0, nwin, step)]


def affine_plan(group: str, entries: int, *, shared: bool = False, buckets: int | None = None) -> int:
    """Return the most batch-affine rounds for an MSM with ``entries`` sorted entries (0: none).

    ``buckets``: the buckets the entries fall in (None: no cap from the
    mean run; see AFFINE_MIN_RUN). Over precomputed bases (``shared``) the
    rounds are not used (not measured there).
    """
    if shared or entries < AFFINE_MIN_ENTRIES[group]:
        return 0
    rounds = max(0, int(AFFINE_ROUNDS[group]))
    if buckets and AFFINE_MIN_RUN > 0:
        rounds = min(rounds, max(0, (entries // (int(buckets) * AFFINE_MIN_RUN)).bit_length() - 1))
    return rounds


def affine_batch(group: str, pairs: int, resident: int | None = None) -> int:
    """Return the pairs per thread of a round of ``pairs`` pairs (see AFFINE_BATCH, AFFINE_MIN_THREADS).

    ``resident``: threads of the round kernel the device holds at once, for
    AFFINE_BATCH 0 (None: AFFINE_MIN_THREADS stands in, as on a runner that
    cannot tell).
    """
    fixed = int(AFFINE_BATCH[group])
    if fixed > 0:
        return max(1, min(fixed, max(16, pairs // max(1, int(AFFINE_MIN_THREADS)))))
    res = max(1, int(resident if resident else AFFINE_MIN_THREADS))
    return max(1, int(AFFINE_MIN_PAIRS), -(-int(pairs) // res))


def _affine_rounds(run, g, xs, ys, entries, offsets, counts, nbt, rounds, before, batch_cuts, streams=None):
    """Run the batch-affine rounds; return ((xs, ys, entries, offsets, count) of the runs left, longest run).

    ``counts``: entries per bucket (device); ``before(b)``: called before the
    first round reads the points of batch b, whose outputs are the range of
    buckets ``batch_cuts[b]:batch_cuts[b + 1]``. With no round worth running,
    returns None after calling ``before`` for every batch. ``streams``: None,
    or an object whose ``part(b)`` is a context in which batch b's first
    round (and ``before(b)``) is launched, and whose ``join()`` makes the
    current stream wait for all of them before the second round. ``longest
    run``: the most entries of one bucket left after the rounds (their
    counts halve, rounded up, each round), from the same wait on the device.
    """
    mp = run.xp
    offs, cnt = [offsets], counts
    for _ in range(rounds):
        cnt = (cnt + mp.uint32(1)) // mp.uint32(2)
        off = mp.zeros(nbt + 1, dtype=mp.uint32)
        off[1:] = mp.cumsum(cnt)
        offs.append(off)
    cuts = list(batch_cuts)
    # one wait on the device: every round's total, round 1's batch ranges and the longest run
    vals = [int(v) for v in to_numpy(mp.stack([o[-1] for o in offs] + [offs[min(1, rounds)][c] for c in cuts]
                                              + [counts.max()]))]
    totals, ranges, longest = vals[:rounds + 1], vals[rounds + 1:-1], vals[-1]
    used = 0
    while used < rounds and totals[used] and totals[used + 1] * 256 <= AFFINE_SHRINK_256 * totals[used]:
        used += 1
    if used == 0:
        for b in range(len(cuts) - 1):
            before(b)
        return None, longest
    words = WORDS[g]
    name = _kname("msm_affine_round", g)
    resident = run.resident_threads(name) if hasattr(run, "resident_threads") else None
    src, indexed = (xs, ys, entries), 1
    for r in range(1, used + 1):
        m = totals[r]
        ox = mp.empty((max(m, 1), words), dtype=mp.uint32)
        oy = mp.empty((max(m, 1), words), dtype=mp.uint32)
        pairs = mp.empty(max(m, 1), dtype=mp.uint32)
        run.launch("msm_pair_map", 32 * -(-m // PAIR_MAP_WARP_OUTPUTS),
                   (offs[r - 1], offs[r], _u(nbt), _u(m), pairs))
        spans = [(ranges[b], ranges[b + 1]) for b in range(len(cuts) - 1)] if r == 1 else [(0, m)]
        for b, (j0, j1) in enumerate(spans):
            # a part of round 1 runs as soon as its points land, mostly alone
            # on the device: its batch fills the device by itself
            G = affine_batch(g, j1 - j0, resident)
            with (streams.part(b) if streams is not None and r == 1 else contextlib.nullcontext()):
                if r == 1:
                    before(b)
                if j1 > j0:
                    run.launch(name, 32 * -(-(j1 - j0) // (32 * G)),
                               (src[0], src[1], src[2] if indexed else pairs, _u(indexed), pairs,
                                _u(j0), _u(j1), _u(G), ox, oy))
        if streams is not None and r == 1:
            streams.join()  # before anything freed here can be reused on this stream
        src, indexed = (ox, oy, None), 0
        del pairs
    m = totals[used]
    return (src[0], src[1], mp.arange(max(m, 1), dtype=mp.uint32), offs[used], m), -(-longest >> used)


def piece_size(entries: int, nbuckets: int) -> int:
    """Return the most entries of one piece: twice the mean bucket, at least 8, about MIN_PIECES pieces."""
    mean = -(-entries // max(nbuckets, 1))
    return max(8, min(2 * mean, -(-entries // MIN_PIECES)))


def chunk_size(entries: int) -> int:
    """Return the entries per accumulate thread: at least 8, and about MIN_CHUNKS threads.

    Every thread adds the same number of entries (a chunk may span several
    buckets, and a large bucket several chunks), so no warp waits on one long
    bucket: on an H200 this took 2^20 points from 17.6 to 14.0 ms and 2^24
    from 232 to 208 ms, against one thread per bucket (or per piece of one).
    """
    return max(8, -(-entries // MIN_CHUNKS))


class _Marks:
    """CUDA events after each phase, when timing is asked for (``marks`` is a list)."""

    def __init__(self, marks, mp, start: bool = True):
        self.marks = marks
        self.mp = mp
        if start:
            self("start")

    def __call__(self, name):
        if self.marks is not None and hasattr(self.mp, "cuda"):
            ev = self.mp.cuda.Event()
            ev.record()
            self.marks.append((name, ev))


def phase_times(marks) -> dict:
    """Return {phase: seconds} from the events ``window_sums_gpu``/``msm_gpu`` recorded."""
    if not marks:
        return {}
    marks[-1][1].synchronize()
    cp = xp("gpu")
    return {name: cp.cuda.get_elapsed_time(a, b) / 1e3
            for (_, a), (name, b) in zip(marks[:-1], marks[1:])}


#: Split G1 MSMs over plain bases with the GLV endomorphism (``msm_glv_split``)
#: when they have at least GLV_MIN_POINTS points; False turns it off (the
#: ``glv`` keyword of :func:`msm_gpu` overrides both).
GLV = True
#: Fewest points for which GLV is used by default. Its cost is one more launch
#: and a copy of the points (2n of them, one pass over memory); its gain is half
#: the host combination (~120 fewer dependent doublings in Python) and half the
#: bucket reduction, at any n. Below a few dozen points the MSM is a handful
#: of launches and the combination either way; this is a guess, not measured.
GLV_MIN_POINTS = 32


def use_glv(group: str, n: int, glv=None, *, shared: bool = False) -> bool:
    """Return whether an n-point MSM splits with GLV (``glv``: None for the default, or a bool)."""
    if glv is None:
        return GLV and group == "g1" and not shared and n >= GLV_MIN_POINTS
    if glv and (group != "g1" or shared):
        raise ValueError("GLV applies to G1 MSMs over plain bases only")
    return bool(glv)


def glv_split_gpu(points, limbs, runner=None):
    """Return (2n points, (2n, 8) limbs) on the device: [+-P_i ; +-phi(P_i)] and |k1_i|, |k2_i|.

    ``points``: n G1 points; ``limbs``: their canonical (n, 8) uint32 scalars.
    The MSM of the result equals sum_i k_i P_i, with every scalar below 2^127.
    """
    from ..curve import fields as FF
    run = runner or default_runner()
    mp = run.xp
    if points.group != "g1":
        raise ValueError(f"GLV applies to G1 points, got {points.group!r}")
    n = int(limbs.shape[0])
    if len(points) != n:
        raise ValueError(f"points: expected {n} points for {n} scalars, got {len(points)}")
    limbs = mp.ascontiguousarray(mp.asarray(limbs, dtype=mp.uint32))
    xs = mp.ascontiguousarray(points.x.limbs)
    ys = mp.ascontiguousarray(points.y.limbs)
    oxs = mp.empty((2 * n, WORDS["g1"]), dtype=mp.uint32)
    oys = mp.empty((2 * n, WORDS["g1"]), dtype=mp.uint32)
    osc = mp.empty((2 * n, D.FR_LIMBS), dtype=mp.uint32)
    consts = _glv_constants(mp)
    run.launch("msm_glv_split", n, (xs, ys, limbs, _u(n), consts, oxs, oys, osc, _u(3), _u(n)))
    b = points.backend
    return Points("g1", FF.wrap("g1", oxs, b), FF.wrap("g1", oys, b)), osc


_GLV_CONSTS: dict = {}


def _glv_constants(mp):
    """Return the table of ``msm_glv_split`` on the runner's device (uploaded once per device)."""
    from . import glv as GLVM
    key = (mp.__name__, mp.cuda.Device().id if hasattr(mp, "cuda") else None)
    if key not in _GLV_CONSTS:
        _GLV_CONSTS[key] = mp.ascontiguousarray(mp.asarray(GLVM.kernel_constants(), dtype=mp.uint32))
    return _GLV_CONSTS[key]


def window_sums_gpu(points, limbs, c: int, runner=None, marks=None, *, shared: bool = False,
                    bits: int = D.SCALAR_BITS, before_accumulate=None):
    """Return the (W, 4, WORDS) uint32 array of XYZZ window sums on the device.

    ``shared``: ``points`` are precomputed bases (W n points, 2^(c w) P_i at
    w n + i; see ``cuzklab.msm.precompute``): every window's digits go to one
    set of buckets and the result is a single sum (W = 1), with nothing left
    to combine. ``bits``: see ``digits.windows`` (W = ceil(bits / c); 128 for
    the scalars of a GLV split). ``before_accumulate``: called after the sort,
    before the first kernel that reads the points (which may be filled on
    the device until then, in stream order).
    """
    run = runner or default_runner()
    return _window_sums(points, limbs, c, run, _Marks(marks, run.xp), shared, bits,
                        None if before_accumulate is None else (lambda b: before_accumulate()))


def _window_sums(points, limbs, c, run, mark, shared, bits, before_accumulate=None, batches: int = 1,
                 norig: int | None = None, streams=None, separate: bool = False, counts=None):
    """The (W, 4, words) window sums (W = 1 when ``shared``; W = batches x windows when ``separate``).

    Batches: the points of original index ``i mod norig`` (norig: the points
    before a GLV split, default n) are cut into ``batches`` runs of ``bsize``;
    each run has buckets of its own, so its entries form one range of the
    sort, accumulated (or given its first batch-affine round) by a launch of
    its own after ``before_accumulate(b)`` (which may wait for that batch's
    points). The batches' bucket sums are then added bucket by bucket, so the
    reduction runs over W windows as for one batch. With ``separate`` they
    are not added: each batch is an MSM of its own, and the reduction runs
    over batches x windows windows, batch b's at b W .. (b + 1) W.
    ``counts``: the bucket histogram (``msm_count``) already taken, e.g.
    part by part as the scalars uploaded (:func:`msm_gpu_from_host`); None
    takes it here.
    """
    mp = run.xp
    g = points.group
    n = int(limbs.shape[0])
    nwin = D.windows(c, bits)
    nb = 1 << (c - 1)
    norig = n if norig is None else norig
    if shared and batches != 1:
        raise ValueError("batches apply to plain bases only")
    if separate and before_accumulate is not None:
        raise ValueError("separate batches are MSMs of their own; before_accumulate applies to uploads")
    bsize = -(-norig // batches) if norig else 1
    nbt = nb if shared else batches * nwin * nb
    if len(points) != (nwin * n if shared else n):
        raise ValueError(f"points: expected {nwin * n if shared else n} points for {n} scalars"
                         f"{' (precomputed, window ' + str(c) + ')' if shared else ''}, got {len(points)}")
    if nwin * n >= 1 << 31:
        raise ValueError(f"too many entries for one MSM: {nwin} windows x {n} points >= 2^31")
    words = WORDS[g]
    limbs = mp.ascontiguousarray(mp.asarray(limbs, dtype=mp.uint32))
    xs = mp.ascontiguousarray(points.x.limbs)
    ys = mp.ascontiguousarray(points.y.limbs)
    swords = _u(scalar_words(bits))
    if counts is None:
        counts = mp.zeros(nbt, dtype=mp.uint32)
        run.launch("msm_count", n, (limbs, _u(n), _u(c), _u(nwin), _u(shared), _u(max(norig, 1)), _u(bsize),
                                    counts, swords))
    elif counts.shape != (nbt,):
        raise ValueError(f"counts: expected {nbt} bucket counts, got shape {tuple(counts.shape)}")
    offsets = mp.zeros(nbt + 1, dtype=mp.uint32)
    offsets[1:] = mp.cumsum(counts)
    cursor = offsets[:-1].copy()
    entries = mp.empty(max(nwin * n, 1), dtype=mp.uint32)
    for w_lo, w_hi in scatter_groups(g, nwin, nb, batches, shared=shared):
        run.launch("msm_scatter", n, (limbs, _u(n), _u(c), _u(nwin), _u(shared), _u(max(norig, 1)),
                                      _u(bsize), cursor, entries, _u(w_lo), _u(w_hi), swords))
    chunks = ACCUMULATE[g] == "chunks"
    nent = n * nwin  # sorted entries
    parts = batches  # accumulation launches (one per batch of points)
    rounds = affine_plan(g, nent, shared=shared, buckets=nbt)
    longest = None  # the most entries of one bucket, when known without a wait
    if rounds:
        # batch-affine rounds first (phase "affine"); the accumulation then
        # runs over the runs they leave, whose points are all on the device
        mark("sort")
        left, longest = _affine_rounds(run, g, xs, ys, entries, offsets, counts, nbt, rounds,
                                       before_accumulate or (lambda b: None),
                                       [b * (nbt // batches) for b in range(batches + 1)], streams)
        before_accumulate, parts = None, 1
        if left is not None:
            xs, ys, entries, offsets, nent = left
            if not chunks:
                counts = offsets[1:] - offsets[:-1]
        mark("affine")
    if chunks:
        K = chunk_size(nent)
        pcount = mp.empty(nbt, dtype=mp.uint32)
        run.launch("msm_chunk_pieces", nbt, (offsets, _u(nbt), _u(K), pcount))
    else:
        K = piece_size(nent, nbt)
        pcount = (counts + mp.uint32(K - 1)) // mp.uint32(K)
    pieceoff = mp.zeros(nbt + 1, dtype=mp.uint32)
    pieceoff[1:] = mp.cumsum(pcount)
    # a run of L entries spans at most ceil(L / K) + 1 chunks
    most = -(-longest // K) + 1 if chunks and longest is not None else None
    if most is not None and most <= GROUP:
        # bounds, with no wait on the device: the pieces are at most one a
        # bucket more than the chunks (partials sized for that; the kernels
        # place the pieces by pieceoff)
        npieces = nbt + -(-nent // K)
    else:
        # the one wait on the device before the additions: how many pieces,
        # and the most of one bucket (which sets the piece reduction below)
        npieces, most = (int(v) for v in to_numpy(mp.stack((pieceoff[-1], pcount.max()))))
    if chunks and parts > 1:  # the first chunk of each batch's entries: in one transfer
        firsts = [0] + [int(v) // K for v in to_numpy(offsets[nwin * nb:nbt:nwin * nb])]
    else:
        firsts = [0] * parts
    del cursor, counts
    if not rounds:
        mark("sort")
    if not chunks and before_accumulate is not None:
        for b in range(parts):
            before_accumulate(b)
    partials = mp.empty((max(npieces, 1), 4, words), dtype=mp.uint32)
    if chunks:
        # batch b's chunks: those starting in its entries (a chunk across the
        # boundary runs with the later batch, whose points it also reads)
        ends = firsts[1:] + [-(-nent // K)]
        for b in range(parts):
            if before_accumulate is not None:
                before_accumulate(b)
            run.launch(_kname("msm_accumulate", g), ends[b] - firsts[b],
                       (xs, ys, entries, offsets, _u(nbt), pieceoff, _u(K), partials, _u(firsts[b])))
    else:  # a thread per piece needs the bucket of each piece
        pmap = mp.empty(max(npieces, 1), dtype=mp.uint32)
        run.launch("msm_piece_map", nbt, (pieceoff, _u(nbt), pmap))
        run.launch(_kname("msm_accumulate_pieces", g), npieces,
                   (xs, ys, entries, offsets, pieceoff, pmap, _u(npieces), _u(K), partials))
        del pmap
    del entries
    mark("accumulate")
    # pieces of one bucket summed GROUP at a time until each bucket has at most
    # GROUP, which msm_bucket_sums adds up (with equal chunks a bucket spans
    # only a few: the loop rarely runs). Reading the pieces inside
    # msm_integrate instead was slower on an H200 (G1 2^20: reduce 1.89 ms
    # against 0.35 + 1.37; G2 2^20: 13.1 against 1.0 + 11.1): the piece
    # additions lengthen its dependent chain.
    while most > GROUP:
        pcount = (pcount + mp.uint32(GROUP - 1)) // mp.uint32(GROUP)
        newoff = mp.zeros(nbt + 1, dtype=mp.uint32)
        newoff[1:] = mp.cumsum(pcount)
        nnew = int(newoff[-1])
        out = mp.empty((nnew, 4, words), dtype=mp.uint32)
        pmap = mp.empty(nnew, dtype=mp.uint32)
        run.launch("msm_piece_map", nbt, (newoff, _u(nbt), pmap))
        run.launch(_kname("msm_sum_pieces", g), nnew,
                   (partials, pieceoff, newoff, pmap, _u(nnew), _u(GROUP), out))
        partials, pieceoff, most = out, newoff, -(-most // GROUP)
    buckets = mp.empty((nbt, 4, words), dtype=mp.uint32)
    run.launch(_kname("msm_bucket_sums", g), nbt, (partials, pieceoff, _u(nbt), buckets))
    del partials
    if batches > 1 and not separate:
        # the batches' buckets of one (window, digit) added on the device, so
        # that the reduction and the host combination run once, as for one
        # batch (reducing each batch as windows of its own cost 2.65 against
        # 1.36 ms and a host combination a batch at 2^24 in 4 batches)
        per = nwin * nb
        tr = mp.ascontiguousarray(buckets.reshape(batches, per, 4, words).transpose(1, 0, 2, 3))
        del buckets
        off = mp.arange(0, per * batches + 1, batches, dtype=mp.uint32)
        buckets = mp.empty((per, 4, words), dtype=mp.uint32)
        run.launch(_kname("msm_bucket_sums", g), per, (tr, off, _u(per), buckets))
        del tr, off
    mark("bucket_sums")
    if shared:
        nwin = 1
    elif separate:
        nwin *= batches  # the buckets lie batch by batch, window by window
    L = segment_length(nwin, nb, g)
    S = nb // L
    cur = mp.empty((nwin * S, 4, words), dtype=mp.uint32)
    run.launch(_kname("msm_integrate", g), nwin * S, (buckets, _u(nwin), _u(nb), _u(L), cur))
    del buckets
    per, m = S, nwin * S
    while per > 1:
        G = min(per, REDUCE_GROUP)
        out = mp.empty((m // G, 4, words), dtype=mp.uint32)
        run.launch(_kname("msm_sum_groups", g), m // G, (cur, _u(m), _u(G), out))
        cur, per, m = out, per // G, m // G
    mark("reduce")
    return cur


def msm_gpu(points, limbs, c: int, runner=None, marks=None, *, shared: bool = False, glv=None) -> Point:
    """Return the MSM of device ``points`` with canonical (n, 8) scalar limbs, window c.

    ``marks``: a list that receives (phase, CUDA event) pairs; see :func:`phase_times`
    (phases split (GLV only), sort, affine (when batch-affine rounds ran),
    accumulate, bucket_sums, reduce, combine).
    ``shared``: ``points`` is a precomputed table (see :func:`window_sums_gpu`).
    ``glv``: split G1 scalars with the endomorphism (None: ``GLV`` and n >=
    ``GLV_MIN_POINTS``; True for G2 or ``shared`` raises ValueError).
    """
    run = runner or default_runner()
    g = points.group
    n = int(limbs.shape[0])
    split = use_glv(g, n, glv, shared=shared)
    if len(points) == 0 or n == 0:
        return Point.infinity(g)
    mark = _Marks(marks, run.xp)
    bits = D.SCALAR_BITS
    if split:
        from . import glv as GLVM
        if len(points) != n:
            raise ValueError(f"points: expected {n} points for {n} scalars, got {len(points)}")
        points, limbs = glv_split_gpu(points, limbs, run)
        bits = GLVM.SCALAR_BITS
        mark("split")
    win = _window_sums(points, limbs, c, run, mark, shared, bits)
    pt = combine_sums(g, win, c)
    mark("combine")
    return pt


def msm_many_gpu(points_list, limbs_list, c: int, runner=None, marks=None, *, glv=None) -> list:
    """Return the MSMs of several (points, limbs) pairs of one group, as one sort.

    Each pair gets a slot of S points (S: the largest pair's size; a shorter
    pair is padded with scalars 0, which make no bucket entries) and buckets of
    its own, so one GLV split, one counting sort, one set of batch-affine
    rounds and accumulations and one bucket reduction (over M x W windows)
    serve all M of them: the prover's three tail MSMs (L, A, B_G1, about
    1.3 M, 1.3 M and 0.3 M points at 2^24) fill the device better together
    than one after another. ``c``: the window of every pair; ``glv``: as
    for :func:`msm_gpu` (decided on S). Returns one Point per pair, in order
    (infinity for an empty pair). Same points as :func:`msm_gpu` of each.
    ``marks``: the phases of :func:`msm_gpu` (gather first: the padded copy).
    """
    from ..curve import fields as FF
    run = runner or default_runner()
    mp = run.xp
    if len(points_list) != len(limbs_list):
        raise ValueError(f"points_list and limbs_list must have one length, got "
                         f"{len(points_list)} and {len(limbs_list)}")
    groups = {p.group for p in points_list}
    if len(groups) > 1:
        raise ValueError(f"every MSM of one call must be of one group, got {sorted(groups)}")
    sizes = [int(lb.shape[0]) for lb in limbs_list]
    for k, (p, n) in enumerate(zip(points_list, sizes)):
        if len(p) != n:
            raise ValueError(f"points_list[{k}]: expected {n} points for {n} scalars, got {len(p)}")
    out = [Point.infinity(p.group) for p in points_list]
    live = [k for k, n in enumerate(sizes) if n]
    if len(live) <= 1:
        for k in live:
            out[k] = msm_gpu(points_list[k], limbs_list[k], c, run, marks, glv=glv)
        return out
    g = points_list[live[0]].group
    S, M = max(sizes), len(live)
    split = use_glv(g, S, glv)
    mark = _Marks(marks, mp)
    shape = tuple(points_list[live[0]].x.limbs.shape[1:])  # (12,) for G1, (2, 12) for G2
    xs = mp.zeros((M * S, *shape), dtype=mp.uint32)
    ys = mp.zeros((M * S, *shape), dtype=mp.uint32)
    limbs = mp.zeros((M * S, D.FR_LIMBS), dtype=mp.uint32)
    for j, k in enumerate(live):
        lo, hi = j * S, j * S + sizes[k]
        xs[lo:hi] = mp.asarray(points_list[k].x.limbs)
        ys[lo:hi] = mp.asarray(points_list[k].y.limbs)
        limbs[lo:hi] = mp.asarray(limbs_list[k], dtype=mp.uint32)
    backend = points_list[live[0]].backend
    pts = Points(g, FF.wrap(g, xs, backend), FF.wrap(g, ys, backend))
    mark("gather")
    bits = D.SCALAR_BITS
    if split:
        from . import glv as GLVM
        pts, limbs = glv_split_gpu(pts, limbs, run)
        bits = GLVM.SCALAR_BITS
        mark("split")
    win = to_numpy(_window_sums(pts, limbs, c, run, mark, False, bits, batches=M, norig=M * S,
                                separate=True))
    nwin = D.windows(c, bits)
    for j, k in enumerate(live):
        out[k] = combine_sums(g, win[j * nwin:(j + 1) * nwin], c)
    mark("combine")
    return out


@functools.lru_cache(maxsize=None)
def _copy_stream(device: int):
    """Return the stream that uploads points for :func:`msm_gpu_from_host` on ``device``."""
    return xp("gpu").cuda.Stream(non_blocking=True)


#: Batches of :func:`msm_gpu_from_host` (G1): the points upload in up to
#: UPLOAD_BATCHES parts of at least UPLOAD_BATCH_MIN points, and each part's
#: accumulation starts as soon as it has landed, while the next uploads. On
#: an H200, G1 2^24 from pinned memory (``bench_msm.py --upload-batches``):
#: 212.4 ms in 1 part, 204.1 in 2, 213.4 in 4 (172.4 with the points on the
#: device): more parts start sooner, but each accumulation launch ends in a
#: partly idle wave, the reduction has more windows and the host combines
#: every part (2^24, 4 parts: accumulate 167.9 ms against 153.6). That was
#: before the batch-affine rounds and before the parts' buckets were added on
#: the device. With both, and each part's first round on a stream of its own
#: (2026-12-02, ``benchmarks/results/msm-upload4-h200.json``, 138.9 ms on
#: the device): 171.6 ms in 4 parts, 177.1 in 2; on one stream 176.0 and
#: 178.4. With CuPy's pool holding the previous run's blocks, as for the
#: points on the device (2026-12-03, ``msm-upload-parts-h200.json``, 138.0
#: ms on the device): 153.7 ms in 4 parts, 158.0 in 8, 161.3 in 12.
UPLOAD_BATCHES = 4
UPLOAD_BATCH_MIN = 1 << 20
#: With batch-affine rounds, launch each batch's first round (and its GLV
#: points split) on a stream of its own, so that the last, partly idle wave
#: of one batch's launch overlaps the next batch's; False: all on one stream.
UPLOAD_STREAMS = True


@functools.lru_cache(maxsize=None)
def _part_stream(device: int, b: int):
    """Return the stream of batch b's first round for :func:`msm_gpu_from_host` on ``device``."""
    return xp("gpu").cuda.Stream(non_blocking=True)


class _PartStreams:
    """Batch b's first batch-affine round on a stream of its own, after the work queued on ``main``."""

    def __init__(self, main, count: int):
        dev = xp("gpu").cuda.Device().id
        self.main = main
        self.streams = [_part_stream(dev, b) for b in range(count)]

    def part(self, b: int):
        s = self.streams[b]
        s.wait_event(self.main.record())
        return s  # a CuPy stream is a context that makes it the current one

    def join(self) -> None:
        for s in self.streams:
            self.main.wait_event(s.record())


def upload_batches(group: str, n: int) -> int:
    """Return the number of point batches :func:`msm_gpu_from_host` uploads n points in."""
    if ACCUMULATE[group] != "chunks":
        return 1
    return max(1, min(UPLOAD_BATCHES, n // max(1, UPLOAD_BATCH_MIN)))


def upload_window(group: str, n: int, glv=None, batches: int | None = None) -> int:
    """Return the default window of :func:`msm_gpu_from_host` for n points in ``batches`` parts.

    Each part's points have buckets of their own (and, with batch-affine
    rounds, a first round of their own), so a bucket holds the entries of
    one part: the window is that of an MSM of one part's points. G1 2^24 in
    4 parts on an H200 (2026-12-04, CuPy's pool warm, medians of 5,
    checked): 172.1 ms at c = 19, the default for 2^24 points on the device
    (``msm-upload-window19-h200.json``), against 122.9 at 16, the window of
    2^22 (``msm-upload-window-h200.json``; 108.2 ms on the device at 19).
    """
    batches = upload_batches(group, n) if batches is None else batches
    part = -(-n // max(1, min(batches, max(n, 1))))
    return D.default_window(part, "gpu", glv=use_glv(group, n, glv), group=group)


def msm_gpu_from_host(group: str, xs, ys, limbs, c: int | None, runner=None, marks=None, *, glv=None,
                      batches: int | None = None) -> Point:
    """Return the MSM of points and scalars in host memory, the point upload overlapping the work.

    ``xs``, ``ys``: the points' Montgomery coordinates as host uint32 arrays
    ((n, 12) for G1, (n, 2, 12) for G2; infinity is (0, 0)), best in pinned
    memory (``cupyx.empty_pinned``), which makes the copies asynchronous;
    ``limbs``: the (n, 8) canonical scalars on the host. Both copy on a
    stream of their own in ``batches`` parts (default
    :func:`upload_batches`), the scalars first: each part of the scalars is
    split (GLV) and its bucket digits counted on the current stream as soon
    as it has landed, while the next part copies, and the sort's scatter
    runs once all have (while the points copy). Each part's points have buckets of
    their own, so the accumulation of a part starts when it has landed (with
    GLV, after the points part of the split), while the next part uploads;
    the parts' bucket sums are added on the device before one reduction. With batch-affine rounds
    (see ``AFFINE_ROUNDS``) the first round runs part by part instead. Same
    result as :func:`msm_gpu` over the uploaded points. ``marks``: phases
    scalars (their copy, with each part's split and count), sort, points (the wait for the first part, and its
    GLV points), affine (when rounds ran; then "points" falls inside it),
    accumulate (every part's, and the waits for the later parts), bucket_sums,
    reduce, combine. ``c``: the window, None for :func:`upload_window`.
    """
    from ..curve import fields as FF
    run = runner or default_runner()
    mp = run.xp
    if group not in WORDS:
        raise ValueError(f"group must be one of {sorted(WORDS)}, got {group!r}")
    shape = (12,) if group == "g1" else (2, 12)
    limbs = np.asarray(limbs)  # host memory: a device array is a TypeError here
    n = int(limbs.shape[0]) if limbs.ndim == 2 else -1
    if n < 0 or tuple(limbs.shape[1:]) != (D.FR_LIMBS,):
        raise ValueError(f"limbs must be an (n, {D.FR_LIMBS}) uint32 array, got shape {tuple(limbs.shape)}")
    for name, a in (("xs", xs), ("ys", ys)):
        if not isinstance(a, np.ndarray):
            raise TypeError(f"{name} must be a host (NumPy) array, got {type(a).__name__}")
        if tuple(a.shape) != (n, *shape) or a.dtype != np.uint32:
            raise ValueError(f"{name} must be a ({', '.join(map(str, (n, *shape)))}) uint32 array "
                             f"for {n} {group} points, got {a.dtype} {tuple(a.shape)}")
    if batches is None:
        batches = upload_batches(group, n)
    if not isinstance(batches, int) or isinstance(batches, bool) or batches < 1:
        raise ValueError(f"batches must be an int >= 1, got {batches!r}")
    if n == 0:
        return Point.infinity(group)
    c = upload_window(group, n, glv, batches) if c is None else D.check_window(c)
    batches = min(batches, n)
    bsize = -(-n // batches)
    cuts = [(lo, min(lo + bsize, n)) for lo in range(0, n, bsize)]
    batches = len(cuts)
    split = use_glv(group, n, glv)
    mark = _Marks(marks, mp)
    if hasattr(mp, "cuda"):
        main = mp.cuda.get_current_stream()
        dl = mp.empty(limbs.shape, dtype=mp.uint32)
        # every copy runs on a stream of its own, after the work queued on
        # this stream so far (the blocks, and those allocated below before
        # any more work is queued here, may have been freed by it): the
        # scalars part by part, then the points part by part, so that each
        # part of the scalars is split and counted while the next one copies
        copy = _copy_stream(mp.cuda.Device().id)
        copy.wait_event(main.record())
        hl = np.ascontiguousarray(limbs)
        scal_landed, landed = [], []
        for lo, hi in cuts:
            dl[lo:hi].set(hl[lo:hi], stream=copy)
            scal_landed.append(copy.record())
        # the points' device memory is allocated while the scalars copy
        dx, dy = mp.empty(xs.shape, dtype=mp.uint32), mp.empty(ys.shape, dtype=mp.uint32)
        for lo, hi in cuts:
            dx[lo:hi].set(xs[lo:hi], stream=copy)
            dy[lo:hi].set(ys[lo:hi], stream=copy)
            landed.append(copy.record())

        def scalars_in(b):  # on main
            main.wait_event(scal_landed[b])

        def wait(b):  # on the current stream: main, or batch b's (see _PartStreams)
            mp.cuda.get_current_stream().wait_event(landed[b])
        streams = _PartStreams(main, batches) if UPLOAD_STREAMS and batches > 1 else None
        backend = "gpu"
    else:  # a host runner (tests): plain copies
        dx, dy = mp.empty(xs.shape, dtype=mp.uint32), mp.empty(ys.shape, dtype=mp.uint32)
        dl = np.array(limbs, dtype=np.uint32)
        dx[...], dy[...] = xs, ys

        def scalars_in(b):
            return None

        def wait(b):
            return None
        streams = None
        backend = "cpu"
    if split:
        from . import glv as GLVM
        osc = mp.empty((2 * n, D.FR_LIMBS), dtype=mp.uint32)
        oxs = mp.empty((2 * n, WORDS["g1"]), dtype=mp.uint32)
        oys = mp.empty((2 * n, WORDS["g1"]), dtype=mp.uint32)
        consts = _glv_constants(mp)
        scal, bits = osc, GLVM.SCALAR_BITS
    else:
        scal, bits = dl, D.SCALAR_BITS
    # each part's scalars split (GLV) and counted into its batch's buckets as it lands
    nwin, nb = D.windows(c, bits), 1 << (c - 1)
    counts = mp.zeros(batches * nwin * nb, dtype=mp.uint32)
    for b, (lo, hi) in enumerate(cuts):
        scalars_in(b)
        m = hi - lo
        if split:
            run.launch("msm_glv_split", m, (dx[lo:], dy[lo:], dl[lo:], _u(m), consts, oxs[lo:], oys[lo:],
                                            osc[lo:], _u(1), _u(n)))  # scalars
        for at in ((lo, n + lo) if split else (lo,)):
            # a launch over this part alone: every scalar in one batch, its buckets at b W nb
            run.launch("msm_count", m, (scal[at:at + m], _u(m), _u(c), _u(nwin), _u(0), _u(m), _u(m),
                                        counts[b * nwin * nb:], _u(scalar_words(bits))))
    mark("scalars")
    if split:

        def ready(b):
            wait(b)
            lo, hi = cuts[b]
            run.launch("msm_glv_split", hi - lo, (dx[lo:], dy[lo:], dl[lo:], _u(hi - lo), consts,
                                                  oxs[lo:], oys[lo:], osc[lo:], _u(2), _u(n)))  # points
            if b == 0:
                mark("points")
        pts = Points("g1", FF.wrap("g1", oxs, backend), FF.wrap("g1", oys, backend))
    else:
        def ready(b):
            wait(b)
            if b == 0:
                mark("points")
        pts = Points(group, FF.wrap(group, dx, backend), FF.wrap(group, dy, backend))
    win = _window_sums(pts, scal, c, run, mark, False, bits, ready, batches=batches, norig=n,
                       streams=streams, counts=counts)
    pt = combine_sums(group, win, c)
    mark("combine")
    return pt


def batch_sum_gpu(points, runner=None) -> Point:
    """Return the sum of device ``points`` (groups of affine points, then groups of XYZZ)."""
    run = runner or default_runner()
    mp = run.xp
    g = points.group
    n = len(points)
    if n == 0:
        return Point.infinity(g)
    words = WORDS[g]
    m = -(-n // GROUP)
    cur = mp.empty((m, 4, words), dtype=mp.uint32)
    xs = mp.ascontiguousarray(points.x.limbs)
    ys = mp.ascontiguousarray(points.y.limbs)
    run.launch(_kname("msm_sum_affine", g), m, (xs, ys, _u(n), _u(GROUP), cur))
    while m > 1:
        k = -(-m // GROUP)
        out = mp.empty((k, 4, words), dtype=mp.uint32)
        run.launch(_kname("msm_sum_groups", g), k, (cur, _u(m), _u(GROUP), out))
        cur, m = out, k
    return Point(g, ref.xyzz_to_affine(g, _xyzz_to_point(g, cur)))
