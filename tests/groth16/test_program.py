"""The witness program: one R1CS for every partition, PoRep's shape, proofs that verify."""

from __future__ import annotations

import numpy as np
import pytest

from cuzklab.groth16 import constraints_for_domain, porep_program, setup, verify
from cuzklab.groth16.circuit import A_AUX_DENSITY, A_PER_ROW, B_AUX_DENSITY, C_PER_ROW
from cuzklab.groth16.program import value_mix
from cuzklab.prove import prove


@pytest.fixture(scope="module")
def big():
    return porep_program(1 << 15, rng=4)


def test_shape_is_porep_like(big):
    st = big.stats()
    assert st["b_per_row"] == 1.0
    assert abs(st["a_per_row"] - A_PER_ROW) < 0.02 and abs(st["c_per_row"] - C_PER_ROW) < 0.02
    assert abs(st["a_aux_density"] - A_AUX_DENSITY) < 0.004
    assert abs(st["b_aux_density"] - B_AUX_DENSITY) < 0.02
    assert st["b_input_density"] == 1 / st["inputs"]          # only ONE is in B
    assert st["layers"] > 100
    mix = value_mix(big.witness(big.inputs_for(0)))
    assert 0.4 < mix["zero"] < 0.52 and 0.4 < mix["one"] < 0.52 and 0.03 < mix["other"] < 0.15
    nv = big.r1cs.num_variables
    for m in (big.r1cs.a, big.r1cs.b, big.r1cs.c):
        assert int(m.cols.min()) >= 0 and int(m.cols.max()) < nv


def test_gates_read_only_earlier_layers(big):
    ni = big.num_inputs
    var_row = np.full(big.r1cs.num_variables, -1)
    w = big.outs >= 0
    var_row[ni + big.outs[w]] = np.flatnonzero(w)
    layer = np.searchsorted(big.layers, np.arange(big.num_constraints), side="right") - 1
    ops = big.ops
    gates = np.flatnonzero(layer >= 1)
    for col in (0, 1, 2):
        v = big.args[gates, col].astype(np.int64)
        use = (ops[gates] != 7) | (col < 2)                    # FLIN's third operand is a constant
        v, g = v[use], gates[use]
        src = np.where(v >= ni, var_row[v], -1)
        assert (layer[np.maximum(src, 0)][src >= 0] < layer[g][src >= 0]).all()


def test_same_seed_same_program_and_deterministic_inputs():
    a, b = porep_program(500, rng=7), porep_program(500, rng=7)
    assert np.array_equal(a.args, b.args) and a.r1cs.c.coeffs.equals(b.r1cs.c.coeffs)
    assert a.inputs_for(3) == b.inputs_for(3) != a.inputs_for(4)
    assert a.inputs_for(3)[0] == 1


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="num_constraints"):
        porep_program(4)
    with pytest.raises(ValueError, match="num_inputs"):
        porep_program(100, num_inputs=1)
    with pytest.raises(ValueError, match="num_inputs=90"):
        porep_program(100, num_inputs=90)
    with pytest.raises(ValueError, match="witness_work"):
        porep_program(100, witness_work=-1)
    p = porep_program(100)
    with pytest.raises(ValueError, match="inputs must hold"):
        p.witness([1])
    with pytest.raises(ValueError, match=r"inputs\[1\]"):
        p.witness([1, 1 << 40] + [0] * (p.num_inputs - 2))
    with pytest.raises(ValueError, match="seed"):
        p.inputs_for(-1)


def test_witness_work_changes_time_not_values():
    p0 = porep_program(2000, rng=2, witness_work=0.0)
    p1 = porep_program(2000, rng=2, witness_work=3.0)
    x = p0.inputs_for(1)
    assert p0.witness(x).aux.equals(p1.witness(x).aux)
    assert p0.work_q16 == 0 < p1.work_q16


def test_partitions_of_one_program_prove_and_verify():
    prog = porep_program(constraints_for_domain(6), rng=5)
    pk, vk = setup(prog.r1cs, 6)
    for seed in (0, 1):
        inputs = prog.inputs_for(seed)
        res = prove(pk, prog, inputs, synth_threads=2, threads=2)
        assert verify(vk, inputs[1:], res.proof)
        assert res.trace.meta["synth_split"]["witness_s"] > 0
    assert not verify(vk, prog.inputs_for(2)[1:], res.proof)
