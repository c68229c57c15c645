"""Multi-scalar multiplication: ``msm``, ``msm_split`` and ``batch_sum``.

``msm(points, scalars)`` returns sum_i k_i P_i as a :class:`~cuzklab.curve.Point`.
Scalars are an ``Fr`` array or Python ints; ints are reduced mod r (so any
int is accepted, negative ones and ones >= r included: k and k mod r give the
same point, since every point has order r). The CPU path is the vectorized
Pippenger of :mod:`.pippenger`; the GPU path the CUDA kernels of :mod:`.gpu`.
Both return the same point.

G1 MSMs on the GPU split every scalar with the GLV endomorphism first
(:mod:`.glv`; ``glv=False`` or ``gpu.GLV = False`` turns it off); on the CPU
``glv=True`` asks for the same split.

``msm(precompute(points), scalars)`` runs over bases prepared once (see
:mod:`.precompute`): one set of buckets for every window, no window
combination.

``msm_split`` is the split SupraSeal C2 makes with Groth16's skewed scalars:
scalars 0 are skipped, the bases of scalars 1 are summed (``batch_add``), and
the rest (the tail) goes through Pippenger, but only when the tail is at most
half the points; otherwise one plain MSM over all points is cheaper.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backend import check_backend, to_numpy, xp
from ..curve import reference as ref
from ..curve import xyzz as X
from ..curve.affine import Point, Points
from ..field import Fr
from ..field.constants import R
from . import digits as D
from .combine import combine_windows
from .pippenger import segmented_sum, window_sums
from .precompute import PrecomputedBases


def _resolve(points, group, backend):
    if not isinstance(points, Points):
        raise TypeError(f"points: expected cuzklab.curve.Points, got {type(points).__name__} "
                        "(build one with Points.from_py_ecc or Points.from_ints)")
    if group is not None and group != points.group:
        raise ValueError(f"group={group!r} but the points are {points.group!r} points")
    backend = points.backend if backend is None else check_backend(backend)
    if points.backend != backend:
        points = points.to(backend)
    return points, backend


def scalar_limbs(scalars, n: int, backend: str):
    """Return canonical (n, 8) uint32 scalar limbs in [0, r) on ``backend``.

    ``scalars``: an ``Fr`` array, or a sequence / integer ndarray of Python ints
    (reduced mod r).
    """
    mod = xp(backend)
    if isinstance(scalars, Fr):
        if len(scalars) != n:
            raise ValueError(f"scalars: expected {n} scalars (one per point), got {len(scalars)}")
        return mod.asarray(scalars.to_canonical_limbs())
    if isinstance(scalars, (str, bytes)) or not hasattr(scalars, "__len__"):
        raise TypeError(f"scalars: expected an Fr array or a sequence of ints, got {type(scalars).__name__}")
    if isinstance(scalars, np.ndarray) and scalars.dtype.kind not in "iuO":
        raise TypeError(f"scalars: expected integers, got dtype {scalars.dtype}")
    if len(scalars) != n:
        raise ValueError(f"scalars: expected {n} scalars (one per point), got {len(scalars)}")
    return mod.asarray(D.ints_to_limbs(D.reduce_scalars(scalars)))


def _window(window, n, backend):
    return D.default_window(n, backend) if window is None else D.check_window(window)


def xyzz_to_ref(p) -> list:
    """Return an XYZZ batch as Python-int tuples (X, Y, ZZ, ZZZ)."""
    cols = [c.to_ints() for c in (p.X, p.Y, p.ZZ, p.ZZZ)]
    return list(zip(*cols))


def _msm_cpu(points: Points, limbs: np.ndarray, c: int, glv: bool = False) -> Point:
    n = len(points)
    if n == 0:
        return Point.infinity(points.group)
    bits = D.SCALAR_BITS
    if glv:
        from . import glv as G
        points, limbs = G.split_points(points, limbs)
        bits = G.SCALAR_BITS
    digits = D.signed_digits(limbs, c, bits=bits)
    ops = X.XYZZOps(points.group, "cpu")
    bases = X.from_affine(points)
    w = window_sums(ops, bases, digits, c)
    return combine_windows(points.group, xyzz_to_ref(w), c)


def _msm_precomputed(bases: PrecomputedBases, scalars, group, backend, window) -> Point:
    if group is not None and group != bases.group:
        raise ValueError(f"group={group!r} but the bases are {bases.group!r} points")
    if window is not None and D.check_window(window) != bases.window:
        raise ValueError(f"window={window} but the bases were precomputed for window {bases.window}")
    backend = bases.backend if backend is None else check_backend(backend)
    if bases.backend != backend:
        bases = bases.to(backend)
    limbs = scalar_limbs(scalars, bases.n, backend)
    return msm_precomputed_limbs(bases, limbs)


def msm_precomputed_limbs(bases: PrecomputedBases, limbs) -> Point:
    """Return the MSM of precomputed ``bases`` with canonical (n, 8) scalar limbs on their backend."""
    n, c = bases.n, bases.window
    if n == 0:
        return Point.infinity(bases.group)
    if bases.backend == "cpu":
        # every window's digits over the table, as one window of W n digits
        digits = D.signed_digits(limbs, c).reshape(1, -1)
        ops = X.XYZZOps(bases.group, "cpu")
        w = window_sums(ops, X.from_affine(bases.table), digits, c)
        return Point(bases.group, ref.xyzz_to_affine(bases.group, xyzz_to_ref(w)[0]))
    from . import gpu
    return gpu.msm_gpu(bases.table, limbs, c, shared=True)


def msm(points, scalars, *, group: str | None = None, backend: str | None = None, window=None,
        glv=None) -> Point:
    """Return sum_i scalars[i] * points[i] as a ``Point`` (Pippenger, signed windows).

    ``points``: ``Points``, or ``PrecomputedBases`` from :func:`precompute`
    (then ``window`` must be None or the table's window).
    ``group`` defaults to the points' group (a mismatch raises ValueError);
    ``backend`` to where the points are (other: they are copied there);
    ``window`` (bits) to a choice from n and the backend.
    ``glv``: split G1 scalars with the GLV endomorphism (2n points, 127-bit
    scalars). None: on the GPU when ``gpu.GLV`` is set and n >=
    ``gpu.GLV_MIN_POINTS``, never on the CPU. True for G2 or precomputed
    bases raises ValueError.
    """
    if glv is not None and not isinstance(glv, (bool, np.bool_)):
        raise TypeError(f"glv must be None or a bool, got {type(glv).__name__}")
    if isinstance(points, PrecomputedBases):
        if glv:
            raise ValueError("GLV applies to G1 MSMs over plain bases only, not to precomputed bases")
        return _msm_precomputed(points, scalars, group, backend, window)
    points, backend = _resolve(points, group, backend)
    n = len(points)
    limbs = scalar_limbs(scalars, n, backend)
    if glv and points.group != "g1":
        raise ValueError(f"GLV applies to G1 MSMs only, not {points.group!r}")
    return _msm_plain(points, limbs, window, backend, glv)


def _msm_plain(points: Points, limbs, window, backend: str, glv=None) -> Point:
    """Return the MSM over plain bases on ``backend``, choosing GLV (GPU) and the window."""
    n = len(points)
    if backend == "cpu":
        c = _window(window, n, backend)
        return Point.infinity(points.group) if n == 0 else _msm_cpu(points, to_numpy(limbs), c, bool(glv))
    from . import gpu
    used = gpu.use_glv(points.group, n, glv)
    c = D.default_window(n, backend, glv=used, group=points.group) if window is None else D.check_window(window)
    if n == 0:
        return Point.infinity(points.group)
    return gpu.msm_gpu(points, limbs, c, glv=used)


def msm_many(points_list, scalars_list, *, backend: str | None = None, window=None,
             glv=None) -> list[Point]:
    """Return [msm(points, scalars) for each pair], the pairs of one group.

    On the GPU the MSMs share one sort and one bucket reduction (each has
    buckets of its own; see ``gpu.msm_many_gpu``), which fills the device
    better than small MSMs one after another; on the CPU they run one by one.
    ``backend`` defaults to where the first pair's points are; ``window`` and
    ``glv`` as for :func:`msm`, chosen from the largest pair's size.
    """
    if isinstance(points_list, (Points, str, bytes)) or not hasattr(points_list, "__len__"):
        raise TypeError(f"points_list: expected a sequence of Points, got {type(points_list).__name__}")
    if len(points_list) != len(scalars_list):
        raise ValueError(f"points_list and scalars_list must have one length, got "
                         f"{len(points_list)} and {len(scalars_list)}")
    if glv is not None and not isinstance(glv, (bool, np.bool_)):
        raise TypeError(f"glv must be None or a bool, got {type(glv).__name__}")
    if not points_list:
        return []
    first, backend = _resolve(points_list[0], None, backend)
    pts = [first] + [_resolve(p, first.group, backend)[0] for p in points_list[1:]]
    limbs = [scalar_limbs(s, len(p), backend) for p, s in zip(pts, scalars_list)]
    if glv and first.group != "g1":
        raise ValueError(f"GLV applies to G1 MSMs only, not {first.group!r}")
    if backend == "cpu":
        return [_msm_plain(p, lb, window, backend, glv) for p, lb in zip(pts, limbs)]
    from . import gpu
    n = max(len(p) for p in pts)
    used = gpu.use_glv(first.group, n, glv)
    c = D.default_window(n, backend, glv=used, group=first.group) if window is None else D.check_window(window)
    return gpu.msm_many_gpu(pts, limbs, c, glv=used)


def batch_sum(points, *, backend: str | None = None) -> Point:
    """Return the sum of all ``points`` as a ``Point`` (SupraSeal's batch addition)."""
    points, backend = _resolve(points, None, backend)
    if len(points) == 0:
        return Point.infinity(points.group)
    if backend == "gpu":
        from . import gpu
        return gpu.batch_sum_gpu(points)
    ops = X.XYZZOps(points.group, "cpu")
    _, s = segmented_sum(ops, np.zeros(len(points), dtype=np.int64), X.from_affine(points))
    return Point(points.group, ref.xyzz_to_affine(points.group, xyzz_to_ref(s)[0]))


@dataclass(frozen=True)
class SplitResult:
    """What ``msm_split`` returns: the point and how the scalars were split."""

    point: Point
    zeros: int        # scalars equal to 0 (skipped)
    ones: int         # scalars equal to 1 (bases summed)
    tail: int         # other scalars (Pippenger)
    split: bool       # False when the tail exceeded half the points (one plain MSM instead)

    def to_py_ecc(self):
        """Return the point as a py_ecc point."""
        return self.point.to_py_ecc()


def msm_split(points, scalars, *, group: str | None = None, backend: str | None = None,
              window=None) -> SplitResult:
    """Return ``SplitResult``: sum_i k_i P_i computed as skip-0 / sum-1 / Pippenger-tail.

    The split is made only when the tail holds at most half the points (as in
    SupraSeal C2); then the result is batch_sum(ones) + msm(tail). Otherwise
    one MSM runs over the points with a non-zero scalar.
    """
    points, backend = _resolve(points, group, backend)
    n = len(points)
    limbs = scalar_limbs(scalars, n, backend)
    mod = xp(backend)
    hi_zero = (limbs[:, 1:] == 0).all(axis=1)
    is0 = hi_zero & (limbs[:, 0] == 0)
    is1 = hi_zero & (limbs[:, 0] == 1)
    n0, n1 = int(to_numpy(is0.sum())), int(to_numpy(is1.sum()))
    tail = n - n0 - n1
    if 2 * tail > n:
        keep = mod.flatnonzero(~is0)
        sub = points[keep] if len(keep) < n else points
        pt = _msm_plain(sub, limbs[keep], window, backend)
        return SplitResult(pt, n0, n1, tail, False)
    ones_idx = mod.flatnonzero(is1)
    tail_idx = mod.flatnonzero(~is0 & ~is1)
    total = batch_sum(points[ones_idx]) if n1 else Point.infinity(points.group)
    if tail:
        total = total + _msm_plain(points[tail_idx], limbs[tail_idx], window, backend)
    return SplitResult(total, n0, n1, tail, True)


def msm_naive(points, scalars) -> Point:
    """Return sum k_i P_i by one reference scalar multiplication per term (a slow oracle)."""
    pts = points.to_ints()
    ks = D.reduce_scalars(scalars) if not isinstance(scalars, Fr) else scalars.to_ints()
    return Point(points.group, ref.msm_naive(points.group, pts, [k % R for k in ks]))
