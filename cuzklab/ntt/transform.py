"""Public NTT entry points: forward, inverse and coset transforms of size 2^k.

Every function takes an ``Fr`` array (on the CPU or the GPU) and returns a new
one on the same backend; the input is left untouched. Orders default to
natural in and natural out; the prover's quotient step asks for bit-reversed
intermediates to skip the permutations.
"""

from __future__ import annotations

from ..field import Fr
from ..field.constants import FR
from .domain import COSET_GENERATOR, Direction, Order, log2_of

_G_INV = pow(COSET_GENERATOR, -1, FR.modulus)


def _impl(backend: str):
    if backend == "cpu":
        from . import cpu
        return cpu
    from . import gpu
    return gpu


def _check(a, direction, input_order, output_order) -> int:
    if not isinstance(a, Fr):
        raise TypeError(f"a must be an Fr array, got {type(a).__name__}")
    if not isinstance(direction, Direction):
        raise TypeError(f"direction must be a Direction, got {direction!r}")
    for name, v in (("input_order", input_order), ("output_order", output_order)):
        if not isinstance(v, Order):
            raise TypeError(f"{name} must be an Order, got {v!r}")
    return log2_of(len(a), name="len(a)")


def transform(a: Fr, *, direction: Direction = Direction.FORWARD, coset: bool = False,
              input_order: Order = Order.NATURAL,
              output_order: Order = Order.NATURAL) -> Fr:
    """Return the NTT of ``a`` (evaluations from coefficients, or back when inverse).

    Forward: ``y_k = sum_i a_i (g) omega^(ik)``, on the coset g·H when
    ``coset``. Inverse: the coefficients whose (coset) evaluations are ``a``.
    """
    log_n = _check(a, direction, input_order, output_order)
    impl = _impl(a.backend)
    inverse = direction is Direction.INVERSE
    n = len(a)
    if n == 1:
        return a.copy()
    if a.backend == "gpu" and input_order is Order.NATURAL:
        # one fused sequence of passes (factors and the reversal ride in them)
        x = a.limbs.copy()
        impl.transform_inplace(x, log_n, inverse=inverse, coset=coset,
                               natural_output=output_order is Order.NATURAL)
        return Fr.from_mont_limbs(x, check=False)
    if coset and not inverse:
        a = impl.scale_by_powers(a, COSET_GENERATOR, 1,
                                 reversed_order=input_order is Order.BIT_REVERSED)
    if input_order is Order.NATURAL:
        y = impl.dif(a, inverse=inverse)          # bit-reversed output (CPU only: the GPU returned above)
        out_reversed = True
    else:
        y = impl.dit(a, inverse=inverse)          # natural output
        out_reversed = False
    if inverse:
        n_inv = pow(n, -1, FR.modulus)
        y = impl.scale_by_powers(y, _G_INV if coset else 1, n_inv, reversed_order=out_reversed)
    if out_reversed != (output_order is Order.BIT_REVERSED):
        y = impl.bit_reverse(y)
    return y


def ntt(a: Fr) -> Fr:
    """Return the evaluations of the polynomial with coefficients ``a`` on the domain."""
    return transform(a)


def intt(a: Fr) -> Fr:
    """Return the coefficients of the polynomial whose domain evaluations are ``a``."""
    return transform(a, direction=Direction.INVERSE)


def coset_ntt(a: Fr) -> Fr:
    """Return the evaluations of the polynomial with coefficients ``a`` on the coset g·H."""
    return transform(a, coset=True)


def coset_intt(a: Fr) -> Fr:
    """Return the coefficients of the polynomial whose evaluations on g·H are ``a``."""
    return transform(a, direction=Direction.INVERSE, coset=True)
