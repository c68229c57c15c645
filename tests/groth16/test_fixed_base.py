"""Fixed-base multiplication for the setup: table, CPU path, GPU kernel."""

from __future__ import annotations

import pytest

from cuzklab.curve import Point
from cuzklab.curve import reference as ref
from cuzklab.field import Fr
from cuzklab.field.constants import R
from cuzklab.groth16.fixed_base import WINDOW_BITS, WINDOWS, _host_table, fixed_base_mul

SCALARS = [0, 1, 2, 255, 256, R - 1, R - 2, 0xdeadbeef << 100, 3**150 % R]


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_table_sums_give_multiples(group):
    """The windowed table, summed as the kernel does, gives [k] G."""
    table = _host_table(group).to_ints()
    for k in SCALARS[:6]:
        acc = None
        for w in range(WINDOWS):
            d = (k >> (WINDOW_BITS * w)) & 0xFF
            if d:
                acc = ref.affine_add(group, acc, table[w * 256 + d])
        assert Point(group, acc) == Point.generator(group) * k


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_cpu(group):
    pts = fixed_base_mul(group, Fr.from_ints(SCALARS), "cpu")
    assert [pts.point(i) for i in range(len(SCALARS))] == \
        [Point.generator(group) * k for k in SCALARS]
    assert len(fixed_base_mul(group, Fr.zeros(0), "cpu")) == 0
    with pytest.raises(TypeError, match="Fr"):
        fixed_base_mul(group, [1, 2], "cpu")


@pytest.mark.gpu
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_gpu_matches_cpu(group):
    ks = Fr.concat([Fr.from_ints(SCALARS), Fr.random(1000, 5)])
    gpu = fixed_base_mul(group, ks.to("gpu"), "gpu").to("cpu")
    cpu = fixed_base_mul(group, ks[:300], "cpu")
    assert gpu[:300].equals(cpu)
    assert [gpu.point(i) for i in range(len(SCALARS))] == \
        [Point.generator(group) * k for k in SCALARS]


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_cpu_table_path(group):
    """Past REFERENCE_MAX_POINTS the CPU uses the batched table: same points."""
    from cuzklab.groth16.fixed_base import REFERENCE_MAX_POINTS
    ks = Fr.concat([Fr.from_ints(SCALARS), Fr.random(REFERENCE_MAX_POINTS, 8)])
    pts = fixed_base_mul(group, ks, "cpu")
    assert [pts.point(i) for i in range(len(SCALARS))] == \
        [Point.generator(group) * k for k in SCALARS]
    assert pts[len(SCALARS):len(SCALARS) + 8].equals(fixed_base_mul(group, ks[len(SCALARS):len(SCALARS) + 8], "cpu"))
