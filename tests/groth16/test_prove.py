"""Groth16 setup, prove and verify: against the Python-int/py_ecc reference and py_ecc pairings."""

from __future__ import annotations

import pytest

pytest.importorskip("py_ecc")

from cuzklab.curve import Point  # noqa: E402
from cuzklab.field.constants import R  # noqa: E402
from cuzklab.groth16 import (Proof, ToxicWaste, Witness, constraints_for_domain,  # noqa: E402
                             porep_circuit, setup, setup_with_toxic_waste, verify)
from cuzklab.prove import prove, stage_seconds  # noqa: E402
from cuzklab.groth16 import reference as ref  # noqa: E402
from cuzklab.trace import STAGES  # noqa: E402


@pytest.fixture(scope="module")
def small():
    """A 2^4-domain circuit, keys from known secrets and the reference keys."""
    r1, w = porep_circuit(constraints_for_domain(4), rng=11)
    tw = ToxicWaste.draw(12)
    pk, vk = setup_with_toxic_waste(r1, tw)
    return r1, w, tw, pk, vk, ref.setup(r1, tw)


def _eq(p, q):
    from py_ecc import optimized_bls12_381 as b
    return b.eq(p, q)


def test_keys_match_reference(small):
    r1, _, _, pk, vk, keys = small
    for name in ("a", "b_g1", "b_g2", "l", "h"):
        got = getattr(pk, name).to_py_ecc()
        assert len(got) == len(keys[name]), name
        assert all(_eq(p, q) for p, q in zip(got, keys[name])), name
    assert all(_eq(p, q) for p, q in zip(vk.ic.to_py_ecc(), keys["ic"]))
    for name in ("alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2"):
        assert _eq(getattr(vk, name).to_py_ecc(), keys[name]), name
    assert len(pk.h) == r1.domain_size - 1


def test_proof_matches_reference_and_verifies(small):
    r1, w, _, pk, vk, keys = small
    res = prove(pk, r1, w, r=123, s=456)
    want = ref.prove(keys, r1, w, 123, 456)
    assert all(_eq(p, q) for p, q in zip(res.proof.to_py_ecc(), want))
    assert verify(vk, w.public_inputs, res.proof)
    assert ref.verify(keys, w.public_inputs, res.proof.to_py_ecc())
    assert len(res.proof.to_bytes()) == 192


@pytest.mark.parametrize("log2_domain,seed", [(4, 1), (5, 2), (6, 3), (8, 4)])
def test_proofs_verify(log2_domain, seed):
    r1, w = porep_circuit(constraints_for_domain(log2_domain), rng=seed)
    pk, vk = setup(r1, seed + 100)
    res = prove(pk, r1, w)
    assert verify(vk, w.public_inputs, res.proof)


def test_tampering_fails(small):
    r1, w, _, pk, vk, _ = small
    proof = prove(pk, r1, w, r=5, s=6).proof
    G1, G2 = Point.generator("g1"), Point.generator("g2")
    assert not verify(vk, w.public_inputs, Proof(proof.a + G1, proof.b, proof.c))
    assert not verify(vk, w.public_inputs, Proof(proof.a, proof.b + G2, proof.c))
    assert not verify(vk, w.public_inputs, Proof(proof.a, proof.b, proof.c + G1))
    bad_inputs = list(w.public_inputs)
    bad_inputs[0] = (bad_inputs[0] + 1) % R
    assert not verify(vk, bad_inputs, proof)


def test_wrong_witness_fails(small):
    r1, w, _, pk, vk, _ = small
    aux = w.aux.to_ints()
    aux[3] = (aux[3] + 1) % R
    bad = Witness.from_ints(w.inputs.to_ints(), aux)
    assert not r1.is_satisfied(bad)
    assert not verify(vk, w.public_inputs, prove(pk, r1, bad, r=1, s=2).proof)


def test_blinding_changes_proof_not_validity(small):
    r1, w, _, pk, vk, _ = small
    p1 = prove(pk, r1, w, r=0, s=0).proof
    p2 = prove(pk, r1, w, r=7, s=9).proof
    assert p1.to_bytes() != p2.to_bytes()
    assert verify(vk, w.public_inputs, p1)
    assert prove(pk, r1, w, r=7, s=9).proof.to_bytes() == p2.to_bytes()


def test_trace_of_stages(small):
    r1, w, _, pk, _, _ = small
    res = prove(pk, r1, w, r=1, s=1)
    t = res.trace
    assert t.source == "live"
    stages = list(t.spans["stage"])
    assert stages == ["synth", "prep_msm", "ntt_h", "batch_add", "tail_msm", "b_g2_msm",
                      "epilogue"]
    assert set(stages) <= set(STAGES)
    assert (t.spans["proof"] == 0).all() and (t.spans["partition"] == 0).all()
    assert set(t.spans["lane"]) <= {"cpu.main", "cpu.pool"}
    starts, ends = list(t.spans["start"]), list(t.spans["end"])
    assert all(e >= s for s, e in zip(starts, ends))
    assert all(ends[i] <= starts[i + 1] + 1e-9 for i in range(len(starts) - 1))
    assert set(stage_seconds(t)) == set(stages)
    assert t.summary()["proofs"] == 1


def test_bad_arguments(small):
    r1, w, _, pk, vk, _ = small
    with pytest.raises(ValueError, match="r must be"):
        prove(pk, r1, w, r=R)
    with pytest.raises(ValueError, match="backend"):
        prove(pk, r1, w, backend="tpu")
    other, ow = porep_circuit(40, rng=1)
    with pytest.raises(ValueError, match="not made for this r1cs"):
        prove(pk, other, ow)
    with pytest.raises(ValueError, match="public_inputs must hold"):
        verify(vk, [], prove(pk, r1, w, r=1, s=1).proof)
    with pytest.raises(ValueError, match=r"public_inputs\[0\]"):
        verify(vk, [R] + w.public_inputs[1:], prove(pk, r1, w, r=1, s=1).proof)
    with pytest.raises(ValueError, match="overlap needs the GPU backend"):
        prove(pk, r1, w, overlap=True)
    with pytest.raises(TypeError, match="overlap must be None or a bool"):
        prove(pk, r1, w, overlap=1)
    with pytest.raises(ValueError, match="tau"):
        ToxicWaste(0, 1, 1, 1, 1)
    assert "hidden" in repr(ToxicWaste.draw(1))


@pytest.mark.gpu
@pytest.mark.parametrize("log2_domain", [6, 10])
def test_cpu_and_gpu_proofs_identical(log2_domain):
    r1, w = porep_circuit(constraints_for_domain(log2_domain), rng=21)
    tw = ToxicWaste.draw(22)
    pk_c, vk = setup_with_toxic_waste(r1, tw, backend="cpu")
    pk_g, _ = setup_with_toxic_waste(r1.to("gpu"), tw, backend="gpu")
    for name in ("a", "b_g1", "b_g2", "h", "l"):
        assert getattr(pk_g, name).to("cpu").equals(getattr(pk_c, name)), name
    cpu = prove(pk_c, r1, w, backend="cpu", r=31, s=32)
    gpu = prove(pk_g, r1.to("gpu"), w.to("gpu"), backend="gpu", r=31, s=32, b_g2_backend="gpu",
                overlap=False)
    assert gpu.proof.to_bytes() == cpu.proof.to_bytes()
    assert set(gpu.trace.spans["lane"]) == {"gpu0.w0", "cpu.main"}
    assert verify(vk, w.public_inputs, gpu.proof)
    # the MSMs beside the H MSM (the default on the GPU), b_g2_msm on the device or the CPU
    for b_g2 in ("gpu", "cpu"):
        side = prove(pk_g, r1.to("gpu"), w.to("gpu"), backend="gpu", r=31, s=32, b_g2_backend=b_g2)
        assert side.proof.to_bytes() == cpu.proof.to_bytes()
        assert side.trace.meta["config"]["overlap"] is True
        spans = side.trace.spans
        lanes = dict(zip(spans["stage"], spans["lane"]))
        assert lanes["batch_add"] == lanes["tail_msm"] == "gpu0.w1" and lanes["ntt_h"] == "gpu0.w0"
        assert lanes["b_g2_msm"] == ("gpu0.w1" if b_g2 == "gpu" else "cpu.pool")
        # the epilogue's constants while the transforms run, then the rest after the MSMs
        st = list(spans["stage"])
        epi = [i for i, x in enumerate(st) if x == "epilogue"]
        nh = st.index("ntt_h")
        assert len(epi) == 2 and {spans["lane"][i] for i in epi} == {"cpu.main"}
        assert spans["start"][nh] <= spans["start"][epi[0]] <= spans["end"][epi[0]] <= spans["end"][nh]
        assert spans["start"][epi[1]] >= spans["end"][st.index("tail_msm")]


def test_result_unpacks_as_proof_and_trace(small):
    r1, w, _, pk, _, _ = small
    res = prove(pk, r1, w, r=2, s=3)
    proof, trace = res
    assert proof is res.proof and trace is res.trace
    # the trace is built once, on first use, and is the same object after
    assert res[1] is trace and res[0] is proof and len(res) == 2 and list(res) == [proof, trace]
    assert "ProveResult(" in repr(res)
    fresh = prove(pk, r1, w, r=2, s=3)
    assert fresh.proof.to_bytes() == proof.to_bytes() and fresh.trace is fresh.trace
    assert set(res.outputs) == {"synth", "prep_msm", "ntt_h", "batch_add", "tail_msm", "b_g2_msm"}
