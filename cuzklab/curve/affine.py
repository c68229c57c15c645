"""Batched affine points (``Points``) and single points (``Point``) of G1 and G2.

``Points`` is how point sets are stored and handed to the MSM: two coordinate
arrays x and y (``Fp`` for G1, ``Fp2`` for G2, Montgomery limbs, on the CPU or
the GPU), the point at infinity stored as (0, 0), which is not on either
curve, so no separate mask is needed (sppark's ``affine_t`` does the same).
Arithmetic goes through :mod:`.jacobian`; MSM buckets use :mod:`.xyzz`.

``Point`` is one point as Python ints, what an MSM returns: cheap to compare,
print, encode or hand to py_ecc.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backend import check_backend, to_numpy, xp
from ..errors import CurveError
from ..field.constants import P
from . import constants as K
from . import fields as FF
from . import jacobian as J
from . import reference as ref
from . import serialize as S
from . import xyzz as X


def _check_ref_point(group: str, pt, where: str):
    """Validate one Python-int affine point tuple (or None); return it normalized."""
    if pt is None:
        return None
    F = ref.field_of(group)
    if not isinstance(pt, (tuple, list)) or len(pt) != 2:
        raise TypeError(f"{where}: expected an affine (x, y) pair or None, got {pt!r:.80}")
    coords = []
    for name, c in zip("xy", pt):
        if F is ref.FP:
            if isinstance(c, bool) or not isinstance(c, (int, np.integer)):
                raise TypeError(f"{where}.{name}: expected an int, got {type(c).__name__}")
            if not 0 <= int(c) < P:
                raise CurveError(f"{where}.{name}: {int(c)} is not in [0, p)")
            coords.append(int(c))
        else:
            if not isinstance(c, (tuple, list)) or len(c) != 2:
                raise TypeError(f"{where}.{name}: expected an Fp2 pair (c0, c1), got {c!r:.80}")
            pair = []
            for k, v in enumerate(c):
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                    raise TypeError(f"{where}.{name}[{k}]: expected an int, got {type(v).__name__}")
                if not 0 <= int(v) < P:
                    raise CurveError(f"{where}.{name}[{k}]: {int(v)} is not in [0, p)")
                pair.append(int(v))
            coords.append(tuple(pair))
    return tuple(coords)


@dataclass(frozen=True)
class Point:
    """One affine point of G1 or G2 as Python ints; ``xy`` is None at infinity."""

    group: str
    xy: tuple | None

    def __post_init__(self):
        FF.check_group(self.group)

    @property
    def is_infinity(self) -> bool:
        """True for the point at infinity."""
        return self.xy is None

    @classmethod
    def infinity(cls, group: str) -> "Point":
        """Return the point at infinity of ``group``."""
        return cls(group, None)

    @classmethod
    def generator(cls, group: str) -> "Point":
        """Return the standard generator of ``group``."""
        return cls(group, ref.generator(FF.check_group(group)))

    def to_py_ecc(self):
        """Return the point as a py_ecc ``optimized_bls12_381`` point (x, y, z)."""
        return Points.from_ints([self.xy], self.group, check=False).to_py_ecc()[0]

    @classmethod
    def from_py_ecc(cls, point, group: str) -> "Point":
        """Return a py_ecc ``optimized_bls12_381`` point as a ``Point``."""
        return cls(group, _from_py_ecc_one(point, group, "point"))

    def to_points(self, backend: str = "cpu") -> "Points":
        """Return this point as a ``Points`` batch of length 1."""
        return Points.from_ints([self.xy], self.group, backend, check=False)

    def to_bytes(self, compressed: bool = True) -> bytes:
        """Return the ZCash encoding (48/96 bytes G1, 96/192 bytes G2)."""
        return self.to_points().to_bytes(compressed)

    def is_on_curve(self) -> bool:
        """True when the point satisfies the curve equation."""
        return ref.is_on_curve(self.group, self.xy)

    def __neg__(self) -> "Point":
        return Point(self.group, ref.affine_neg(self.group, self.xy))

    def __add__(self, other: "Point") -> "Point":
        if not isinstance(other, Point) or other.group != self.group:
            return NotImplemented
        return Point(self.group, ref.affine_add(self.group, self.xy, other.xy))

    def __mul__(self, k: int) -> "Point":
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            return NotImplemented
        return Point(self.group, ref.affine_mul(self.group, self.xy, int(k)))

    __rmul__ = __mul__


def _from_py_ecc_one(pt, group: str, where: str):
    """Convert one py_ecc optimized point (projective x, y, z) to an affine int tuple."""
    if not isinstance(pt, (tuple, list)) or len(pt) != 3:
        raise TypeError(f"{where}: expected a py_ecc optimized point (x, y, z), got {pt!r:.80}")
    x, y, z = pt
    g2 = group == "g2"

    def val(c):
        if g2:
            coeffs = getattr(c, "coeffs", None)
            if coeffs is None or len(coeffs) != 2:
                raise TypeError(f"{where}: expected FQ2 coordinates for group 'g2'")
            return (int(coeffs[0]), int(coeffs[1]))
        n = getattr(c, "n", None)
        if n is None:
            raise TypeError(f"{where}: expected FQ coordinates for group 'g1'")
        return int(n)

    F = ref.field_of(group)
    xv, yv, zv = val(x), val(y), val(z)
    if F.is_zero(zv):
        return None
    zi = F.inv(zv)
    return (F.mul(xv, zi), F.mul(yv, zi))


class Points:
    """A batch of affine points of one group ("g1" or "g2") on one backend."""

    __slots__ = ("group", "x", "y")
    __hash__ = None

    def __init__(self, group: str, x, y):
        """Wrap coordinate arrays (no curve check; use the factories to validate)."""
        FF.check_group(group)
        cls = FF.field_class(group)
        if type(x) is not cls or type(y) is not cls:
            raise TypeError(f"x and y must be {cls.__name__} arrays for group {group!r}")
        if len(x) != len(y) or x.backend != y.backend:
            raise ValueError("x and y must have one length and one backend")
        self.group = group
        self.x = x
        self.y = y

    # ---- construction ----
    @classmethod
    def from_ints(cls, points, group: str = "g1", backend: str = "cpu", *, check: bool = True):
        """Return points from affine int tuples (None = infinity); ``check`` validates them."""
        FF.check_group(group)
        check_backend(backend)
        if isinstance(points, (str, bytes)) or points is None:
            raise TypeError(f"points: expected a sequence of affine points, got {type(points).__name__}")
        pts = [_check_ref_point(group, p, f"points[{i}]") for i, p in enumerate(points)]
        fc = FF.field_class(group)
        zero = 0 if group == "g1" else (0, 0)
        xs = [zero if p is None else p[0] for p in pts]
        ys = [zero if p is None else p[1] for p in pts]
        if not pts:
            out = cls.infinity(group, 0, backend)
        else:
            out = cls(group, fc.from_ints(xs, backend), fc.from_ints(ys, backend))
        if check:
            out.validate("points")
        return out

    @classmethod
    def from_py_ecc(cls, points, group: str = "g1", backend: str = "cpu", *, check: bool = True):
        """Return points from py_ecc ``optimized_bls12_381`` points (projective x, y, z)."""
        FF.check_group(group)
        if isinstance(points, tuple) and len(points) == 3 and not isinstance(points[0], tuple):
            raise TypeError("points: expected a sequence of py_ecc points, got a single point "
                            "(wrap it in a list)")
        return cls.from_ints([_from_py_ecc_one(p, group, f"points[{i}]") for i, p in enumerate(points)],
                             group, backend, check=check)

    @classmethod
    def infinity(cls, group: str = "g1", n: int = 1, backend: str = "cpu"):
        """Return n points at infinity."""
        z = FF.zeros(group, n, backend)
        return cls(group, z, z.copy())

    @classmethod
    def generator(cls, group: str = "g1", n: int = 1, backend: str = "cpu"):
        """Return n copies of the generator of ``group``."""
        return cls.from_ints([ref.generator(FF.check_group(group))] * n, group, backend, check=False)

    @classmethod
    def from_jacobian(cls, p) -> "Points":
        """Return a :class:`~.jacobian.Jacobian` batch normalized to affine points."""
        return cls(p.group, *J.affine_coords(p))

    @classmethod
    def from_xyzz(cls, p) -> "Points":
        """Return an :class:`~.xyzz.XYZZ` batch normalized to affine points."""
        return cls(p.group, *X.affine_coords(p))

    @classmethod
    def from_bytes(cls, data, group: str = "g1", backend: str = "cpu", *, compressed: bool | None = None,
                   check: bool = True):
        """Return points decoded from ZCash bytes (see :mod:`.serialize`); ``check``: subgroup too."""
        pts = cls(group, *S.decode_coords(data, group, backend, compressed=compressed))
        if check:
            pts.validate("data")
        return pts

    @classmethod
    def concat(cls, batches):
        """Return the batches (one group, one backend) concatenated."""
        batches = list(batches)
        if not batches:
            raise ValueError("concat: need at least one batch")
        g = batches[0].group
        for i, b in enumerate(batches):
            if not isinstance(b, Points) or b.group != g:
                raise TypeError(f"batches[{i}]: expected Points of group {g!r}")
        fc = FF.field_class(g)
        return cls(g, fc.concat([b.x for b in batches]), fc.concat([b.y for b in batches]))

    # ---- conversion ----
    @property
    def backend(self) -> str:
        return self.x.backend

    def __len__(self) -> int:
        return len(self.x)

    def to(self, backend: str) -> "Points":
        """Return this batch on ``backend``."""
        return Points(self.group, self.x.to(backend), self.y.to(backend))

    def to_ints(self) -> list:
        """Return the points as affine int tuples (None for infinity)."""
        xs, ys = self.x.to_ints(), self.y.to_ints()
        inf = to_numpy(self.is_infinity())
        return [None if inf[i] else (xs[i], ys[i]) for i in range(len(xs))]

    def to_py_ecc(self) -> list:
        """Return the points as py_ecc ``optimized_bls12_381`` points (z = 1, or the zero point)."""
        from py_ecc.optimized_bls12_381 import FQ, FQ2, Z1, Z2  # optional dependency
        out = []
        for p in self.to_ints():
            if p is None:
                out.append(Z1 if self.group == "g1" else Z2)
            elif self.group == "g1":
                out.append((FQ(p[0]), FQ(p[1]), FQ.one()))
            else:
                out.append((FQ2(list(p[0])), FQ2(list(p[1])), FQ2.one()))
        return out

    def to_bytes(self, compressed: bool = True) -> bytes:
        """Return the ZCash encodings of all points, concatenated."""
        return S.encode(self, compressed=compressed)

    def point(self, i: int) -> Point:
        """Return point i as a ``Point``."""
        return Point(self.group, self[i].to_ints()[0])

    def __getitem__(self, key) -> "Points":
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            n = len(self)
            if not -n <= int(key) < n:
                raise IndexError(f"index {key} out of range for {n} points")
            key = slice(int(key) % n, int(key) % n + 1)
        return Points(self.group, self.x[key], self.y[key])

    # ---- predicates ----
    def is_infinity(self):
        """Return the bool array (on the backend) of points at infinity."""
        return self.x.is_zero() & self.y.is_zero()

    def is_on_curve(self):
        """Return the bool array of points on the curve (infinity counts as on it)."""
        b = _b(self.group, self.backend)
        lhs = self.y.square()
        rhs = self.x.square() * self.x + b
        return (lhs == rhs) | self.is_infinity()

    def in_subgroup(self):
        """Return the bool array of points in the order-r subgroup (for points on the curve).

        G1: phi(P) = [-x^2] P; G2: psi(P) = [x] P, for the BLS parameter x
        (Scott, ePrint 2021/1130; proved for BLS12-381 in ePrint 2022/352).
        """
        if len(self) == 0:
            return xp(self.backend).zeros(0, dtype=bool)
        inf = self.is_infinity()
        bits = J.scalars_to_bits([abs(K.BLS_X)] * len(self))
        xp_ = Points.from_jacobian(J.mul_bits(self, bits))            # [|x|] P
        if self.group == "g1":
            lhs = Points.from_jacobian(J.mul_bits(xp_, bits))         # [x^2] P
            beta = FF.wrap("g1", _const_limbs("g1", ref.g1_beta(), self.backend), self.backend)
            rx, ry = self.x * beta, self.y                           # phi(P)
            ok = (lhs.x == rx) & (lhs.y == -ry)                       # [x^2]P = -phi(P)
        else:
            cx, cy = ref.g2_psi_coeffs()
            fc = FF.field_class("g2")
            cxa = fc.from_ints([cx], self.backend)
            cya = fc.from_ints([cy], self.backend)
            rx, ry = self.x.conjugate() * cxa, self.y.conjugate() * cya   # psi(P)
            ok = (xp_.x == rx) & (xp_.y == -ry)                       # [|x|]P = -psi(P) as x < 0
        return ok | inf

    def validate(self, argument: str = "points", *, subgroup: bool = True) -> "Points":
        """Return self if every point is on the curve (and in the subgroup), else raise CurveError."""
        on = to_numpy(self.is_on_curve())
        if not on.all():
            i = int(np.argmin(on))
            raise CurveError(f"{argument}[{i}]: point is not on the {self.group.upper()} curve")
        if subgroup and len(self):
            sub = to_numpy(self.in_subgroup())
            if not sub.all():
                i = int(np.argmin(sub))
                raise CurveError(f"{argument}[{i}]: point is not in the order-r subgroup of "
                                 f"{self.group.upper()}")
        return self

    # ---- arithmetic ----
    def _same(self, other, op):
        if not isinstance(other, Points):
            raise TypeError(f"cannot {op} Points and {type(other).__name__}")
        if other.group != self.group or other.backend != self.backend:
            raise TypeError(f"cannot {op} {self.group}({self.backend}) and {other.group}({other.backend}) points")
        if len(other) != len(self):
            raise ValueError(f"cannot {op} batches of lengths {len(self)} and {len(other)}")

    def __neg__(self) -> "Points":
        return Points(self.group, self.x, -self.y)

    def __add__(self, other: "Points") -> "Points":
        self._same(other, "add")
        return Points.from_jacobian(J.add_mixed(J.from_affine(self), other))

    def __sub__(self, other: "Points") -> "Points":
        return self + (-other)

    def double(self) -> "Points":
        """Return 2P for every point."""
        return Points.from_jacobian(J.double(J.from_affine(self)))

    def mul(self, scalars) -> "Points":
        """Return [k_i] P_i for Python-int scalars reduced mod r (a single point takes many scalars).

        One scalar per point, or one scalar for all points, or, for a batch of
        one point, any number of scalars (the point is repeated).
        """
        from ..field.constants import R
        base = self
        if len(self) == 1 and not isinstance(scalars, (int, np.integer)):
            scalars = list(scalars)
            base = self[np.zeros(len(scalars), dtype=np.int64)]
        ks = [int(k) % R for k in _scalar_list(scalars, len(base))]
        bits = J.scalars_to_bits(ks)
        if bits.shape[0] == 0:
            return Points.infinity(self.group, len(base), self.backend)
        return Points.from_jacobian(J.mul_bits(base, bits))

    def __eq__(self, other):
        if not isinstance(other, Points):
            return NotImplemented
        self._same(other, "compare")
        return (self.x == other.x) & (self.y == other.y)

    def equals(self, other) -> bool:
        """Return True when ``other`` holds the same points (same group and length)."""
        return (isinstance(other, Points) and other.group == self.group and len(other) == len(self)
                and other.backend == self.backend and bool(to_numpy((self == other)).all()))

    def __repr__(self) -> str:
        return f"Points(group={self.group!r}, n={len(self)}, backend={self.backend!r})"


def _scalar_list(scalars, n: int) -> list:
    if isinstance(scalars, (int, np.integer)) and not isinstance(scalars, bool):
        return [int(scalars)] * n
    ks = list(scalars)
    if len(ks) != n:
        raise ValueError(f"scalars: expected {n} scalars (one per point), got {len(ks)}")
    for i, k in enumerate(ks):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"scalars[{i}]: expected an int, got {type(k).__name__}")
    return ks


def _const_limbs(group: str, value, backend: str):
    return FF.field_class(group).from_ints([value], backend).limbs


def _b(group: str, backend: str):
    fc = FF.field_class(group)
    return fc.from_ints([K.B_G1 if group == "g1" else K.B_G2], backend)
