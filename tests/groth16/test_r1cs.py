"""R1CS type and the PoRep-shaped circuit generator."""

from __future__ import annotations

import numpy as np
import pytest

from cuzklab.field import Fr
from cuzklab.field.constants import R
from cuzklab.groth16 import R1CS, SparseMatrix, Witness, constraints_for_domain, porep_circuit
from cuzklab.groth16.circuit import (A_AUX_DENSITY, B_AUX_DENSITY, CircuitSpec,
                                     default_inputs)
from cuzklab.groth16.matvec import evaluate, segment_sum, transpose_evaluate


def _cube():
    """x^3 + x + 5 = out, the classic toy: variables ONE, out | x, x2, x3."""
    ONE, OUT, X, X2, X3 = range(5)
    a = [{X: 1}, {X2: 1}, {X3: 1, X: 1, ONE: 5}]
    b = [{X: 1}, {X: 1}, {ONE: 1}]
    c = [{X2: 1}, {X3: 1}, {OUT: 1}]
    return R1CS.from_rows(2, 3, a, b, c)


def test_toy_circuit_satisfied_and_not():
    r1 = _cube()
    assert r1.is_satisfied(Witness.from_ints([1, 35], [3, 9, 27]))
    assert not r1.is_satisfied(Witness.from_ints([1, 36], [3, 9, 27]))
    assert r1.num_constraints == 3 and r1.num_variables == 5
    assert r1.domain_size == 8  # 3 constraints + 2 input rows -> 8
    d = r1.densities()
    assert d["a_aux"].tolist() == [True, True, True]
    assert d["b_input"].tolist() == [True, False]
    assert d["b_aux"].tolist() == [True, False, False]


def test_rows_round_trip():
    r1 = _cube()
    assert r1.a.to_rows()[2] == {4: 1, 2: 1, 0: 5}
    assert r1.c.nnz() == 3 and r1.a.nnz() == 5 and r1.a.width == 3


def test_matvec_against_python_ints():
    r1, w = porep_circuit(200, rng=4)
    z = w.inputs.to_ints() + w.aux.to_ints()
    got = evaluate(r1, w)
    for m, g in zip((r1.a, r1.b, r1.c), got):
        want = [sum(c * z[k] for k, c in row.items()) % R for row in m.to_rows()]
        assert g.to_ints() == want


def test_transpose_evaluate_against_python_ints():
    r1, _ = porep_circuit(300, rng=5)
    vals = Fr.random(r1.num_constraints, 1)
    vs = vals.to_ints()
    for m in (r1.a, r1.b, r1.c):
        want = [0] * r1.num_variables
        for i, row in enumerate(m.to_rows()):
            for k, c in row.items():
                want[k] = (want[k] + c * vs[i]) % R
        assert transpose_evaluate(m, vals, r1.num_variables).to_ints() == want


def test_segment_sum_long_segments():
    vals = Fr.random(1000, 2)
    seg = np.sort(np.random.default_rng(0).integers(0, 7, 1000))
    seg[:600] = 3  # one heavy segment
    seg.sort()
    vs = vals.to_ints()
    want = [sum(v for v, s in zip(vs, seg) if s == k) % R for k in range(9)]
    assert segment_sum(vals, seg, 9).to_ints() == want


@pytest.mark.parametrize("n,seed", [(1, 0), (7, 1), (16, 2), (333, 3), (4096, 4)])
def test_generated_circuit_is_satisfied(n, seed):
    r1, w = porep_circuit(n, rng=seed)
    assert r1.num_constraints == n
    assert r1.is_satisfied(w)
    assert w.inputs.to_ints()[0] == 1


def test_generated_shape_matches_porep():
    r1, w = porep_circuit(1 << 14, rng=7)
    st = r1.stats()
    assert st["a_per_row"] == pytest.approx(2.4, abs=0.03)
    assert st["b_per_row"] == 1.0
    assert st["c_per_row"] == pytest.approx(2.2, abs=0.03)
    assert st["a_aux_density"] == pytest.approx(A_AUX_DENSITY, abs=0.002)
    assert st["b_aux_density"] == pytest.approx(B_AUX_DENSITY, abs=0.005)
    d = r1.densities()
    assert d["b_input"].sum() == 1 and d["b_input"][0]  # only ONE is used in B
    aux = w.aux.to_ints()
    assert sum(v in (0, 1) for v in aux) / len(aux) > 0.85


def test_generator_is_deterministic():
    r1, w = porep_circuit(100, rng=9)
    r2, w2 = porep_circuit(100, rng=9)
    r3, _ = porep_circuit(100, rng=10)
    assert w.aux.equals(w2.aux) and r1.c.coeffs.equals(r2.c.coeffs)
    assert not r1.a.coeffs.equals(r3.a.coeffs)


def test_constraints_for_domain():
    for k in (4, 8, 12):
        n = constraints_for_domain(k)
        assert n + default_inputs(n + 0) >= 1
        r1, _ = porep_circuit(n, rng=0, num_inputs=(1 << k) - n)
        assert r1.domain_size == 1 << k


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_constraints"):
        porep_circuit(0)
    with pytest.raises(TypeError, match="rng"):
        porep_circuit(10, rng="x")
    with pytest.raises(ValueError, match="p_zero"):
        CircuitSpec(10, 2, 10, p_zero=0.8, p_one=0.5)
    with pytest.raises(ValueError, match="column"):
        SparseMatrix.from_rows([{9: 1}], 3)
    with pytest.raises(ValueError, match="ONE"):
        Witness.from_ints([2], [])
    r1 = _cube()
    with pytest.raises(ValueError, match="2 inputs and 3 aux"):
        r1.is_satisfied(Witness.from_ints([1], [3, 9, 27]))
    with pytest.raises(ValueError, match="log2_domain"):
        constraints_for_domain(1)
