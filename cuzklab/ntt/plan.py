"""How a transform of size 2^k is split into passes over memory.

Both backends run the same decomposition (see ``cuda/ntt.cu``): a pass owns
the index bits ``[lo, lo + b)`` and runs the b radix-2 stages of those bits,
then multiplies by the external twiddles of the four-step split. The last
pass (lo = 0) is the widest because its tiles are contiguous; the others
take up to ``UPPER_BITS`` bits with tiles of ``2^c`` adjacent columns so that
their loads stay coalesced. A tile holds at most 2^TILE_BITS elements
(32 KiB of Fr) plus M/2 twiddles, within the 48 KiB of shared memory a block
may use without opting in.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Elements per shared-memory tile, log2 (1024 Fr = 32 KiB).
TILE_BITS = 10
#: Bits of the last (contiguous) pass.
LOW_BITS = 10
#: Most bits of any other pass (a 512-point transform times 2 columns).
UPPER_BITS = 9


@dataclass(frozen=True)
class Pass:
    """One pass: index bits [lo, lo + b), tiles of 2^b x 2^c elements."""

    lo: int
    b: int
    c: int

    @property
    def tile(self) -> int:
        """Return the number of elements per tile (2^(b + c))."""
        return 1 << (self.b + self.c)


def plan_passes(log2_size: int, *, tile_bits: int | None = None, low_bits: int | None = None,
                upper_bits: int | None = None) -> list[Pass]:
    """Return the passes of a decimation-in-frequency transform, top bits first.

    The decimation-in-time transform runs the same passes in reverse order.
    ``tile_bits``, ``low_bits``, ``upper_bits`` default to the module's constants.
    """
    tile_bits = TILE_BITS if tile_bits is None else tile_bits
    low_bits = LOW_BITS if low_bits is None else low_bits
    upper_bits = UPPER_BITS if upper_bits is None else upper_bits
    if log2_size <= 0:
        return []
    if log2_size <= low_bits:
        return [Pass(lo=0, b=log2_size, c=0)]
    upper = log2_size - low_bits
    count = -(-upper // upper_bits)
    sizes = [upper // count + (1 if i < upper % count else 0) for i in range(count)]
    passes, hi = [], log2_size
    for b in sizes:
        lo = hi - b
        passes.append(Pass(lo=lo, b=b, c=max(0, min(lo, tile_bits - b))))
        hi = lo
    passes.append(Pass(lo=0, b=low_bits, c=0))
    return passes
