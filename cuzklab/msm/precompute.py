"""Precomputed bases: fixed points prepared once for many MSMs (memory for speed).

A Groth16 prover multiplies the same bases (its proving key) by new scalars
for every proof. With window c and W = ceil(255 / c) windows, ``precompute``
stores, for every base P_i, the W points 2^(c w) P_i (w < W), window-major:
point w n + i. An MSM over such bases puts the digits of every window into
one set of 2^(c-1) buckets:

    sum_i k_i P_i = sum_i sum_w d_(w,i) 2^(c w) P_i,

so the bucket reduction runs once instead of W times and no window
combination (about 255 doublings) is left; the reduction being cheap, a
larger c, hence fewer windows and fewer additions, pays. The price is W
times the memory of the bases (2^24 G1 bases at c = 22: 12 x 0.8 GB).

Both backends build the table with the same batched doublings and one
batched inversion per window (``cuzklab.curve.xyzz``), and give the same
points; ``msm(bases, scalars)`` accepts the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..curve import xyzz as X
from ..curve.affine import Points
from . import digits as D

@dataclass(frozen=True)
class PrecomputedBases:
    """The table ``precompute`` returns: W * n points, 2^(c w) P_i at index w n + i."""

    table: Points
    n: int
    window: int

    @property
    def group(self) -> str:
        """Return the group of the bases ("g1" or "g2")."""
        return self.table.group

    @property
    def backend(self) -> str:
        """Return where the table lives ("cpu" or "gpu")."""
        return self.table.backend

    @property
    def windows(self) -> int:
        """Return W, the number of c-bit windows of a scalar."""
        return D.windows(self.window)

    def __len__(self) -> int:
        return self.n

    def bases(self) -> Points:
        """Return the original bases (the first n points of the table)."""
        return self.table[: self.n]

    def to(self, backend: str) -> "PrecomputedBases":
        """Return the table on ``backend``."""
        return PrecomputedBases(self.table.to(backend), self.n, self.window)


def default_precomputed_window(n: int) -> int:
    """Return the window that minimizes W * n additions plus ~3 per bucket of the one reduction."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    best, best_cost = D.MIN_WINDOW, math.inf
    for c in range(D.MIN_WINDOW, D.MAX_WINDOW + 1):
        cost = D.windows(c) * n + 3 * (1 << (c - 1))
        if cost < best_cost:
            best, best_cost = c, cost
    return best


def precompute(points: Points, *, window: int | None = None) -> PrecomputedBases:
    """Return the table of 2^(c w) P_i for the bases ``points`` (on their backend).

    ``window``: c in bits; default :func:`default_precomputed_window` of n.
    Cost: (W - 1) * c batched doublings and W - 1 batched inversions over n
    points; memory W times that of the bases.
    """
    if not isinstance(points, Points):
        raise TypeError(f"points: expected cuzklab.curve.Points, got {type(points).__name__}")
    n = len(points)
    c = default_precomputed_window(n) if window is None else D.check_window(window)
    nwin = D.windows(c)
    if nwin * n >= 1 << 31:
        raise ValueError(f"points: {n} bases x {nwin} windows is too many for one table (< 2^31)")
    if n == 0:
        return PrecomputedBases(points, 0, c)
    parts = [points]
    cur = X.from_affine(points)
    for _ in range(1, nwin):
        for _ in range(c):
            cur = X.double(cur)
        parts.append(Points.from_xyzz(cur))
    return PrecomputedBases(Points.concat(parts), n, c)
