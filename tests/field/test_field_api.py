"""Containers, conversions, bytes and errors of Fr/Fp."""

import numpy as np
import pytest

from cuzklab.errors import FieldError
from cuzklab.field import Fp, Fr, concat
from cuzklab.field import constants as C


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def test_indexing_and_slicing(field, backend, rnd):
    m = field.FC.modulus
    xs = [rnd.randrange(m) for _ in range(10)]
    a = field.from_ints(xs, backend)
    assert len(a) == 10
    assert a[3].to_ints() == [xs[3]] and len(a[3]) == 1
    assert a[-1].to_ints() == [xs[-1]]
    assert a[2:7].to_ints() == xs[2:7]
    assert a[::3].to_ints() == xs[::3]
    assert a[[0, 9, 4]].to_ints() == [xs[0], xs[9], xs[4]]
    mask = np.array([x % 2 == 0 for x in xs])
    assert a[mask].to_ints() == [x for x in xs if x % 2 == 0]
    assert [e.to_ints()[0] for e in a] == xs
    with pytest.raises(IndexError):
        a[10]
    with pytest.raises(TypeError):
        a[1.5]
    b = a.copy()
    b[0] = field.from_ints([5], backend)
    b[1:3] = field.from_ints([6, 7], backend)
    assert b.to_ints()[:3] == [5, 6, 7] and a.to_ints() == xs


def test_concat_and_to(field, backend):
    a = field.from_ints([1, 2], backend)
    b = field.from_ints([3], backend)
    c = concat([a, b, field.zeros(0, backend)])
    assert c.to_ints() == [1, 2, 3] and c.backend == backend
    assert field.concat([a]).to_ints() == [1, 2]
    assert a.to(backend) is a
    moved = a.to("cpu")
    assert moved.backend == "cpu" and moved.to_ints() == [1, 2]
    with pytest.raises(ValueError):
        concat([])
    other = Fp if field is Fr else Fr
    with pytest.raises(TypeError):
        concat([a, other.from_ints([1], backend)])


def test_canonical_and_mont_limbs(field, backend, rnd):
    m = field.FC.modulus
    xs = [rnd.randrange(m) for _ in range(6)]
    a = field.from_ints(xs, backend)
    canon = a.to_canonical_limbs()
    assert [sum(int(w) << (32 * i) for i, w in enumerate(r)) for r in _host(canon)] == xs
    assert field.from_canonical_limbs(canon).equals(a)
    assert field.from_mont_limbs(a.limbs).equals(a)
    assert field.from_mont_limbs(_host(a.limbs), backend=backend).equals(a)
    bad = _host(a.limbs).copy()
    bad[2] = np.array(C.to_limbs(m, field.FC.limbs), dtype=np.uint32)
    with pytest.raises(FieldError, match=r"\[2\]"):
        field.from_mont_limbs(bad, backend=backend)
    with pytest.raises(TypeError, match="dtype"):
        field.from_mont_limbs(bad.astype(np.int64))
    with pytest.raises(TypeError, match="shape"):
        field.from_mont_limbs(bad[:, :3])


def test_numpy_int_input(field, backend):
    arr = np.array([0, 1, 2 ** 40, 2 ** 64 - 1], dtype=np.uint64)
    assert field.from_ints(arr, backend).to_ints() == [0, 1, 2 ** 40, 2 ** 64 - 1]
    assert field.from_ints(np.array([5, 6], dtype=np.int32), backend).to_ints() == [5, 6]
    with pytest.raises(FieldError, match=r"values\[1\]"):
        field.from_ints(np.array([5, -6]), backend)
    assert field.from_ints(range(4), backend).to_ints() == [0, 1, 2, 3]
    assert field.from_ints([np.uint64(9)], backend).to_ints() == [9]


def test_bytes_round_trip(field, backend, rnd):
    m = field.FC.modulus
    nb = field.FC.nbytes
    xs = [0, 1, m - 1] + [rnd.randrange(m) for _ in range(20)]
    a = field.from_ints(xs, backend)
    data = a.to_bytes()
    assert isinstance(data, bytes) and len(data) == nb * len(xs)
    order = "little" if field is Fr else "big"
    assert data == b"".join(x.to_bytes(nb, order) for x in xs)
    assert field.from_bytes(data, backend).equals(a)
    assert field.from_bytes(np.frombuffer(data, dtype=np.uint8).reshape(-1, nb), backend).equals(a)
    assert a.to_bytes_array().shape == (len(xs), nb)
    assert len(field.from_bytes(b"", backend)) == 0


def test_bytes_errors(field):
    nb = field.FC.nbytes
    m = field.FC.modulus
    order = "little" if field is Fr else "big"
    with pytest.raises(FieldError, match="multiple"):
        field.from_bytes(b"\x00" * (nb + 1))
    bad = (1).to_bytes(nb, order) + m.to_bytes(nb, order)
    with pytest.raises(FieldError, match=r"data\[1\]"):
        field.from_bytes(bad)
    with pytest.raises(FieldError):
        field.from_bytes(b"\xff" * nb)
    with pytest.raises(TypeError):
        field.from_bytes("00" * nb)
    with pytest.raises(TypeError):
        field.from_bytes(np.zeros(nb, dtype=np.int8))


def test_fp_zcash_byte_order():
    assert Fp.from_ints([1]).to_bytes() == b"\x00" * 47 + b"\x01"
    assert Fr.from_ints([1]).to_bytes() == b"\x01" + b"\x00" * 31


@pytest.mark.parametrize("bad", [-1, "m", "m+1", "big"])
def test_out_of_range(field, backend, bad):
    m = field.FC.modulus
    v = {"m": m, "m+1": m + 1, "big": 1 << 400}.get(bad, bad)
    with pytest.raises(FieldError, match=r"values\[1\]"):
        field.from_ints([1, v], backend)
    assert issubclass(FieldError, ValueError)


@pytest.mark.parametrize("bad", [1.0, "3", None, True, [1], b"x"])
def test_wrong_types(field, bad):
    with pytest.raises(TypeError, match=r"values\[0\]"):
        field.from_ints([bad])


@pytest.mark.parametrize("bad", [5, "123", None, 1.5])
def test_wrong_container(field, bad):
    with pytest.raises(TypeError, match="values"):
        field.from_ints(bad)


def test_mixing_fields_is_type_error(backend):
    a = Fr.from_ints([1], backend)
    b = Fp.from_ints([1], backend)
    for op in (lambda: a + b, lambda: a - b, lambda: a * b, lambda: a == b, lambda: b / a):
        with pytest.raises(TypeError, match=r"Fr\(.*Fp\(|Fp\(.*Fr\("):
            op()
    with pytest.raises(TypeError):
        a + 1.5
    with pytest.raises(TypeError):
        a * "x"


@pytest.mark.gpu
def test_mixing_backends_is_type_error(field):
    a = field.from_ints([1], "cpu")
    b = field.from_ints([1], "gpu")
    with pytest.raises(TypeError, match=r"\(cpu\).*\(gpu\)"):
        a + b
    with pytest.raises(TypeError, match="backend"):
        concat([a, b])


def test_bad_backend(field):
    with pytest.raises(ValueError, match="backend"):
        field.from_ints([1], backend="tpu")


def test_truth_value_and_repr(field):
    a = field.from_ints([1, 2, 3, 4, 5])
    with pytest.raises(TypeError):
        bool(a)
    assert "n=5" in repr(a) and field.__name__ in repr(a)
    assert not a.equals(a[:2]) and not a.equals(1)
    assert (a != a).sum() == 0
