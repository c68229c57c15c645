"""BLS12-381 curve constants: equations, generators, cofactors, encoding flags.

Data only. G1 is y^2 = x^3 + 4 over Fp; G2 is y^2 = x^3 + 4(1 + u) over
Fp2 = Fp[u]/(u^2 + 1), where an Fp2 element c0 + c1*u is the tuple (c0, c1).
Both groups have the prime order r (``cuzklab.field.constants.R``).

Provenance: the curve parameter x, the generators and the encoding flags are
those of the BLS12-381 specification used by ZCash, zkcrypto/bls12_381, blst
and Filecoin (draft-irtf-cfrg-pairing-friendly-curves, section 4.2.1; ZCash
protocol specification, section 5.4.9.2). The cofactors are derived below
from x with the BLS12 family formulas and checked against the group order.
"""

from __future__ import annotations

from ..field.constants import P, R

#: The BLS12 curve parameter x (negative; its low Hamming weight makes
#: multiplication by x cheap, which the subgroup checks use).
BLS_X = -0xD201000000010000

#: Coefficient b of G1: y^2 = x^3 + 4.
B_G1 = 4
#: Coefficient b of G2: y^2 = x^3 + 4(1 + u).
B_G2 = (4, 4)

#: G1 generator (affine x, y).
G1_GENERATOR = (
    0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
    0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1,
)
#: G2 generator (affine x, y), each an Fp2 element (c0, c1).
G2_GENERATOR = (
    (0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
     0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
    (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
     0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE),
)

#: Cofactor of G1 in E(Fp): h1 = (x - 1)^2 / 3.
H_G1 = (BLS_X - 1) ** 2 // 3
#: Cofactor of G2 in E'(Fp2): h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9.
H_G2 = (BLS_X**8 - 4 * BLS_X**7 + 5 * BLS_X**6 - 4 * BLS_X**4 + 6 * BLS_X**3
        - 4 * BLS_X**2 - 4 * BLS_X + 13) // 9

# Trace of Frobenius t = x + 1: #E(Fp) = p + 1 - t = h1 * r.
assert P + 1 - (BLS_X + 1) == H_G1 * R, "G1 cofactor does not match the group order"

#: Encoded sizes in bytes: (compressed, uncompressed) per group.
G1_COMPRESSED_BYTES = 48
G1_UNCOMPRESSED_BYTES = 96
G2_COMPRESSED_BYTES = 96
G2_UNCOMPRESSED_BYTES = 192

#: Flag bits in the first (most significant) byte of an encoding.
FLAG_COMPRESSION = 0x80
FLAG_INFINITY = 0x40
FLAG_SIGN = 0x20
FLAG_MASK = FLAG_COMPRESSION | FLAG_INFINITY | FLAG_SIGN

GROUPS = ("g1", "g2")
