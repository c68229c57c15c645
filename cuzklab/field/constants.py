"""BLS12-381 field constants, derived in code from the two moduli.

Data only: no arithmetic classes live here. ``P`` is the base-field modulus
(381 bits), ``R`` the scalar-field modulus, i.e. the prime order r of G1/G2
(255 bits). Do not confuse ``R`` (the group order) with the Montgomery radix,
which is ``FieldConstants.mont_radix`` = 2^(32*limbs).

Montgomery form: an element x is stored as x * 2^(32*limbs) mod m, in 32-bit
little-endian limbs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: BLS12-381 base field modulus p.
P = int(
    "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
    16)
#: BLS12-381 scalar field modulus r (the order of G1, G2, GT).
R = int("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16)

#: Limb width in bits.
LIMB_BITS = 32
LIMB_MASK = (1 << LIMB_BITS) - 1


def to_limbs(x: int, n: int) -> tuple[int, ...]:
    """Split ``x`` into ``n`` little-endian 32-bit limbs."""
    return tuple((x >> (LIMB_BITS * i)) & LIMB_MASK for i in range(n))


def _two_adicity(m: int) -> int:
    s, q = 0, m - 1
    while q % 2 == 0:
        q //= 2
        s += 1
    return s


@dataclass(frozen=True)
class FieldConstants:
    """Everything a Montgomery implementation of one prime field needs."""

    name: str
    modulus: int
    limbs: int
    nbytes: int
    generator: int
    bits: int = field(init=False)
    mont_radix: int = field(init=False)   # R = 2^(32*limbs)
    mont_r: int = field(init=False)       # R mod m      (Montgomery form of 1)
    mont_r2: int = field(init=False)      # R^2 mod m    (to convert into Montgomery form)
    mont_r3: int = field(init=False)      # R^3 mod m
    mont_rinv: int = field(init=False)    # R^-1 mod m
    m0inv: int = field(init=False)        # -m^-1 mod 2^32
    two_adicity: int = field(init=False)  # s with m - 1 = 2^s * t, t odd
    trace: int = field(init=False)        # t = (m - 1) >> s
    root_of_unity: int = field(init=False)  # generator^t: primitive 2^s-th root of unity
    modulus_limbs: tuple = field(init=False)
    mont_r_limbs: tuple = field(init=False)
    mont_r2_limbs: tuple = field(init=False)

    def __post_init__(self):
        m = self.modulus
        s = object.__setattr__
        s(self, "bits", m.bit_length())
        radix = 1 << (LIMB_BITS * self.limbs)
        s(self, "mont_radix", radix)
        s(self, "mont_r", radix % m)
        s(self, "mont_r2", radix * radix % m)
        s(self, "mont_r3", pow(radix, 3, m))
        s(self, "mont_rinv", pow(radix, -1, m))
        s(self, "m0inv", (-pow(m, -1, 1 << LIMB_BITS)) % (1 << LIMB_BITS))
        adic = _two_adicity(m)
        s(self, "two_adicity", adic)
        s(self, "trace", (m - 1) >> adic)
        s(self, "root_of_unity", pow(self.generator, (m - 1) >> adic, m))
        s(self, "modulus_limbs", to_limbs(m, self.limbs))
        s(self, "mont_r_limbs", to_limbs(radix % m, self.limbs))
        s(self, "mont_r2_limbs", to_limbs(radix * radix % m, self.limbs))

    def root_of_unity_of_order(self, k: int) -> int:
        """Return a primitive 2^k-th root of unity (k <= two_adicity).

        It is ``root_of_unity^(2^(two_adicity - k))``, so the roots of different
        orders are consistent: ``w(k)^2 == w(k-1)``.
        """
        if not isinstance(k, int) or isinstance(k, bool):
            raise TypeError(f"k must be an int, got {type(k).__name__}")
        if not 0 <= k <= self.two_adicity:
            raise ValueError(f"k must be in [0, {self.two_adicity}], got {k}")
        return pow(self.root_of_unity, 1 << (self.two_adicity - k), self.modulus)


#: The scalar field Fr: 8 limbs, 32-byte little-endian encoding, generator 7, 2-adicity 32.
FR = FieldConstants(name="Fr", modulus=R, limbs=8, nbytes=32, generator=7)
#: The base field Fp: 12 limbs, 48-byte big-endian encoding, generator 2 (as arkworks).
FP = FieldConstants(name="Fp", modulus=P, limbs=12, nbytes=48, generator=2)

#: Fp2 = Fp[u] / (u^2 + 1); the Fp6 non-residue used by the tower is 1 + u.
FP2_NONRESIDUE = (1, 1)
#: The BLS parameter x (negative): p and r are polynomials in it.
BLS_X = -0xd201000000010000

# Consistency with the curve parameter (cheap; fails loudly on a typo).
assert R == BLS_X**4 - BLS_X**2 + 1
assert P == ((BLS_X - 1) ** 2 * R) // 3 + BLS_X
