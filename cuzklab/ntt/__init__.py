"""Fr number-theoretic transforms (radix-2, size 2^k) on the CPU and the GPU.

``ntt``/``intt`` map coefficients to evaluations on the subgroup of 2^k-th
roots of unity and back; ``coset_ntt``/``coset_intt`` do the same on the
coset g·H (g = 7). ``transform`` exposes the direction and the element orders.
"""

from .domain import COSET_GENERATOR, MAX_LOG2_SIZE, Direction, Domain, Order
from .transform import coset_intt, coset_ntt, intt, ntt, transform

__all__ = ["ntt", "intt", "coset_ntt", "coset_intt", "transform", "Direction", "Order",
           "Domain", "COSET_GENERATOR", "MAX_LOG2_SIZE"]
