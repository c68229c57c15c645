"""ZCash / Filecoin encodings against py_ecc, and every class of invalid encoding."""

from __future__ import annotations

import random

import pytest

from cuzklab.curve import Point, Points
from cuzklab.curve import reference as ref
from cuzklab.errors import CurveError
from cuzklab.field.constants import P, R

from ._helpers import off_subgroup_point

GROUPS = ["g1", "g2"]


def _pts(group, n=3, seed=5, backend="cpu"):
    rng = random.Random(seed)
    g = ref.generator(group)
    raw = [ref.affine_mul(group, g, rng.randrange(1, R)) for _ in range(n)] + [None]
    return raw, Points.from_ints(raw, group, backend, check=False)


@pytest.mark.parametrize("group", GROUPS)
def test_compressed_matches_py_ecc(group):
    pc = pytest.importorskip("py_ecc.bls.point_compression")
    b = pytest.importorskip("py_ecc.optimized_bls12_381")
    _, pts = _pts(group)
    pe = pts.to_py_ecc()
    if group == "g1":
        want = b"".join(pc.compress_G1(p).to_bytes(48, "big") for p in pe)
    else:
        want = b"".join(z.to_bytes(48, "big") for p in pe for z in pc.compress_G2(p))
    assert pts.to_bytes() == want
    back = Points.from_bytes(want, group)
    assert back.equals(pts)
    one = pc.decompress_G1(pc.compress_G1(pe[0])) if group == "g1" else None
    if one is not None:
        assert b.eq(one, pe[0])


@pytest.mark.parametrize("group", GROUPS)
def test_round_trips(group, backend):
    raw, pts = _pts(group, backend=backend)
    size_c, size_u = (48, 96) if group == "g1" else (96, 192)
    comp, unc = pts.to_bytes(True), pts.to_bytes(False)
    assert len(comp) == 4 * size_c and len(unc) == 4 * size_u
    assert comp[-size_c] == 0xC0 and not any(comp[-size_c + 1:])
    assert unc[-size_u] == 0x40 and not any(unc[-size_u + 1:])
    assert Points.from_bytes(comp, group, backend).to_ints() == raw
    assert Points.from_bytes(unc, group, backend, compressed=False).to_ints() == raw
    assert Point(group, raw[0]).to_bytes() == comp[:size_c]
    assert len(Points.from_bytes(b"", group, backend)) == 0


def _first(group):
    return _pts(group, 1)[1][:1]


@pytest.mark.parametrize("group", GROUPS)
def test_invalid_encodings(group):
    pt = _first(group)
    comp = bytearray(pt.to_bytes(True))
    unc = bytearray(pt.to_bytes(False))
    n = len(comp)

    def bad(data, match, **kw):
        with pytest.raises(CurveError, match=match):
            Points.from_bytes(bytes(data), group, **kw)

    bad(comp[:-1], "multiple")
    bad(bytes([comp[0] & 0x7F]) + comp[1:], "compression flag not set", compressed=True)
    bad(bytes([unc[0] | 0x80]) + unc[1:], "compression flag set", compressed=False)
    bad(bytes([0xC0 | 0x20]) + bytes(n - 1), "infinity flag")
    bad(bytes([0xC0]) + bytes(n - 2) + b"\x01", "infinity flag")
    bad(bytes([unc[0] | 0x20]) + unc[1:], "sign flag", compressed=False)
    # x >= p (p itself, with the compression flag)
    xp = P.to_bytes(48, "big")
    xp = (bytes(48) + xp) if group == "g2" else xp   # G2: c1 = 0, c0 = p
    bad(bytes([xp[0] | 0x80]) + xp[1:], "not below p")
    if group == "g2":                                 # c1 = p
        bad(bytes([xp[48] | 0x80]) + xp[49:] + bytes(48), "not below p")
    # x with no point on the curve
    F = ref.field_of(group)
    x = 0 if group == "g1" else (0, 0)
    while True:
        x = x + 1 if group == "g1" else (x[0] + 1, 0)
        if F.sqrt(F.add(F.mul(F.sqr(x), x), ref.b_of(group))) is None:
            break
    enc = bytearray(int(x if group == "g1" else x[0]).to_bytes(48, "big"))
    enc = (bytes(48) + bytes(enc)) if group == "g2" else bytes(enc)
    enc = bytes([enc[0] | 0x80]) + enc[1:]
    bad(enc, "not the x-coordinate")
    # uncompressed point off the curve, and (0, 0) without the infinity flag
    off = bytearray(unc)
    off[-1] ^= 1
    bad(off, "not on the", compressed=False)
    bad(bytes(len(unc)), "not on the", compressed=False)
    # on the curve but not in the subgroup
    q = Points.from_ints([off_subgroup_point(group)], group, check=False)
    bad(q.to_bytes(True), "subgroup")
    bad(q.to_bytes(False), "subgroup", compressed=False)
    assert Points.from_bytes(q.to_bytes(True), group, check=False).equals(q)
    with pytest.raises(TypeError):
        Points.from_bytes("00", group)
