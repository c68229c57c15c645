"""ZCash / Filecoin encodings of G1 and G2 points, batched.

Sizes: G1 48 bytes compressed, 96 uncompressed; G2 96 and 192. Coordinates
are big-endian, an Fp2 element written c1 then c0. The three top bits of the
first byte are flags: 0x80 compression, 0x40 infinity, 0x20 sign (set when y
is the lexicographically larger root: y > (p-1)/2 for Fp; for Fp2, c1 decides,
or c0 when c1 = 0). The point at infinity is 0xc0 00.. compressed and
0x40 00.. uncompressed. These are the rules of zkcrypto/bls12_381 (the
``serialization`` notes of that crate), which ZCash, Filecoin and blst follow.

Decoding rejects, with a :class:`~cuzklab.errors.CurveError` naming the
element: a wrong length, the compression flag not matching the format, the
sign flag in an uncompressed or infinity encoding, an infinity encoding with
other bits set, a coordinate >= p, an x with no point on the curve, a point
off the curve; ``Points.from_bytes`` then rejects (unless ``check=False``)
a point outside the order-r subgroup.
"""

from __future__ import annotations

import numpy as np

from ..backend import check_backend, to_numpy
from ..errors import CurveError, FieldError
from ..field.constants import P
from . import constants as K
from . import fields as FF

_HALF_P = (P - 1) // 2


def _sizes(group: str) -> tuple[int, int]:
    FF.check_group(group)
    if group == "g1":
        return K.G1_COMPRESSED_BYTES, K.G1_UNCOMPRESSED_BYTES
    return K.G2_COMPRESSED_BYTES, K.G2_UNCOMPRESSED_BYTES


def _gt_half(canon_limbs) -> np.ndarray:
    """Return (x > (p-1)/2) for canonical (n, 12) uint32 limbs on the host."""
    limbs = to_numpy(canon_limbs).astype(np.uint32)
    half = [(_HALF_P >> (32 * i)) & 0xFFFFFFFF for i in range(12)]
    gt = np.zeros(limbs.shape[0], dtype=bool)
    eq = np.ones(limbs.shape[0], dtype=bool)
    for i in reversed(range(12)):
        gt |= eq & (limbs[:, i] > half[i])
        eq &= limbs[:, i] == half[i]
    return gt


def lexicographically_largest(y) -> np.ndarray:
    """Return the ZCash sign of each coordinate (an Fp or Fp2 array) as a host bool array."""
    if y.limbs.ndim == 2:
        return _gt_half(y.to_canonical_limbs())
    c0, c1 = y.c0, y.c1
    c1_zero = to_numpy(c1.is_zero())
    return _gt_half(c1.to_canonical_limbs()) | (c1_zero & _gt_half(c0.to_canonical_limbs()))


def encode(points, compressed: bool = True) -> bytes:
    """Return the encodings of a ``Points`` batch, concatenated."""
    n = len(points)
    size = _sizes(points.group)[0 if compressed else 1]
    if n == 0:
        return b""
    inf = to_numpy(points.is_infinity())
    xb = points.x.to_bytes_array()
    if compressed:
        out = xb.copy()
        sign = lexicographically_largest(points.y)
        out[:, 0] |= K.FLAG_COMPRESSION | np.where(sign, K.FLAG_SIGN, 0).astype(np.uint8)
    else:
        out = np.concatenate([xb, points.y.to_bytes_array()], axis=1)
    out[inf] = 0
    out[inf, 0] = K.FLAG_INFINITY | (K.FLAG_COMPRESSION if compressed else 0)
    assert out.shape == (n, size)
    return out.tobytes()


def _as_rows(data, size: int, argument: str) -> np.ndarray:
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8:
            raise TypeError(f"{argument}: expected bytes or a uint8 array, got dtype {data.dtype}")
        raw = np.ascontiguousarray(data).reshape(-1)
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw = np.frombuffer(bytes(data), dtype=np.uint8)
    else:
        raise TypeError(f"{argument}: expected bytes or a uint8 array, got {type(data).__name__}")
    if raw.size % size:
        raise CurveError(f"{argument}: length {raw.size} is not a multiple of {size} bytes")
    return raw.reshape(-1, size).copy()


def _coords(group: str, rows: np.ndarray, backend: str, argument: str, what: str):
    """Decode big-endian coordinate bytes into a field array; x >= p raises CurveError."""
    fc = FF.field_class(group)
    per = 48 if group == "g1" else 96
    n = rows.shape[0]
    try:
        return fc.from_bytes(np.ascontiguousarray(rows), backend)
    except FieldError:
        # find the offending element to name it
        for i in range(n):
            try:
                fc.from_bytes(np.ascontiguousarray(rows[i:i + 1, :per]), "cpu")
            except FieldError:
                raise CurveError(f"{argument}[{i}]: {what} coordinate is not below p") from None
        raise  # pragma: no cover


def _sqrt_fp(a):
    """Return (root, ok): a square root of each element of an Fp array (p = 3 mod 4)."""
    s = a.pow((P + 1) // 4)
    return s, to_numpy(s.square() == a)


def _sqrt_fp2(a):
    """Return (root, ok) for an Fp2 array (Adj and Rodriguez-Henriquez 2012, algorithm 9)."""
    mod_backend = a.backend
    fc = type(a)
    n = len(a)
    a1 = a.pow((P - 3) // 4)
    alpha = a1.square() * a
    x0 = a1 * a
    minus_one = fc.from_ints([(P - 1, 0)], mod_backend)
    is_m1 = to_numpy(alpha == minus_one)
    # alpha = -1: x = u * x0 = (-x0.c1, x0.c0)
    ux0 = fc.from_fp(-x0.c1, x0.c0)
    one = fc.ones(n, mod_backend)
    b = (one + alpha).pow((P - 1) // 2)
    x = FF.select(is_m1, ux0, b * x0)
    return x, to_numpy(x.square() == a)


def decode_coords(data, group: str = "g1", backend: str = "cpu", *,
                  compressed: bool | None = None, argument: str = "data"):
    """Return the affine coordinates (x, y) decoded from ZCash bytes ((0, 0) for infinity).

    ``compressed=None`` infers the encoding from the length. Curve membership
    is checked (it is part of decoding); ``Points.from_bytes`` wraps the
    coordinates and checks the subgroup.
    """
    check_backend(backend)
    csize, usize = _sizes(group)
    if compressed is None:
        nbytes = len(data) if not isinstance(data, np.ndarray) else data.size
        if nbytes % csize == 0 and nbytes % usize != 0:
            compressed = True
        elif nbytes % usize == 0 and nbytes % csize != 0:
            compressed = False
        else:
            # both sizes fit: the first byte's compression flag decides
            first = bytes(data[:1]) if not isinstance(data, np.ndarray) else bytes(data.reshape(-1)[:1])
            compressed = bool(first and first[0] & K.FLAG_COMPRESSION) or nbytes == 0
    size = csize if compressed else usize
    rows = _as_rows(data, size, argument)
    n = rows.shape[0]
    if n == 0:
        return FF.zeros(group, 0, backend), FF.zeros(group, 0, backend)
    flags = rows[:, 0] & K.FLAG_MASK
    cflag = (flags & K.FLAG_COMPRESSION) != 0
    iflag = (flags & K.FLAG_INFINITY) != 0
    sflag = (flags & K.FLAG_SIGN) != 0
    bad = np.flatnonzero(cflag != compressed)
    if bad.size:
        i = int(bad[0])
        state = "not set" if compressed else "set"
        raise CurveError(f"{argument}[{i}]: compression flag {state} in a "
                         f"{'compressed' if compressed else 'uncompressed'} {group.upper()} encoding")
    rows[:, 0] &= 0xFF ^ K.FLAG_MASK
    rest_zero = ~rows.any(axis=1)
    bad = np.flatnonzero(iflag & (sflag | ~rest_zero))
    if bad.size:
        raise CurveError(f"{argument}[{int(bad[0])}]: infinity flag set but other bits are not zero")
    if not compressed:
        bad = np.flatnonzero(sflag)
        if bad.size:
            raise CurveError(f"{argument}[{int(bad[0])}]: sign flag set in an uncompressed encoding")
    half = csize
    x = _coords(group, rows[:, :half], backend, argument, "x")
    if compressed:
        b = FF.field_class(group).from_ints([K.B_G1 if group == "g1" else K.B_G2], backend)
        rhs = x.square() * x + b
        y, ok = (_sqrt_fp if group == "g1" else _sqrt_fp2)(rhs)
        bad = np.flatnonzero(~ok & ~iflag)
        if bad.size:
            raise CurveError(f"{argument}[{int(bad[0])}]: x is not the x-coordinate of a point on "
                             f"the {group.upper()} curve")
        flip = lexicographically_largest(y) != sflag
        y = FF.select(flip, -y, y)
    else:
        y = _coords(group, rows[:, half:], backend, argument, "y")
    if not compressed:
        b = FF.field_class(group).from_ints([K.B_G1 if group == "g1" else K.B_G2], backend)
        on = to_numpy(y.square() == x.square() * x + b)
        bad = np.flatnonzero(~on & ~iflag)
        if bad.size:
            raise CurveError(f"{argument}[{int(bad[0])}]: point is not on the {group.upper()} curve")
    zero = FF.zeros(group, n, backend)
    return FF.select(iflag, zero, x), FF.select(iflag, zero, y)
