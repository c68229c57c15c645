"""Multi-scalar multiplication over BLS12-381 G1 and G2 (Pippenger, CPU and GPU).

* :func:`msm` — sum k_i P_i with signed-window Pippenger; ``backend="cpu"``
  (vectorized NumPy) or ``"gpu"`` (CUDA kernels through CuPy), same result.
* :func:`msm_split` — SupraSeal's split: skip 0, sum the bases of 1, Pippenger
  over the tail (only when the tail is at most half the points).
* :func:`msm_many` — several MSMs of one group; on the GPU one sort and one
  bucket reduction serve them all.
* :func:`batch_sum` — the sum of a batch of points.
* :func:`precompute` — fixed bases prepared once (2^(c w) P_i for every
  window): ``msm(precompute(points), scalars)`` reduces one set of buckets.
* :mod:`.digits` — scalar reduction, window sizes and signed digits.
"""

from .api import SplitResult, batch_sum, msm, msm_many, msm_naive, msm_split
from .precompute import PrecomputedBases, default_precomputed_window, precompute

__all__ = ["msm", "msm_many", "msm_split", "batch_sum", "msm_naive", "SplitResult", "precompute",
           "PrecomputedBases", "default_precomputed_window"]
