"""Each stage's outputs against a straightforward reference (Python ints, naive sums)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from cuzklab.curve import Point
from cuzklab.field import Fr
from cuzklab.field.constants import R
from cuzklab.groth16 import ToxicWaste, constraints_for_domain, porep_circuit
from cuzklab.groth16 import reference as ref
from cuzklab.groth16.setup import setup_with_toxic_waste
from cuzklab.msm import msm_naive
from cuzklab.stages import (StageClock, b_g2_msm, batch_add, epilogue, epilogue_constants, ntt_h,
                            prep_msm, quotient, synth, tail_msm)
from cuzklab.native.msm_g2 import tasks
from cuzklab.stages.prep_msm import query_scalars, split_query


@pytest.fixture(scope="module")
def case():
    """A 2^6-domain circuit with its keys (CPU) and every stage's output."""
    r1, w = porep_circuit(constraints_for_domain(6), rng=41)
    pk, _ = setup_with_toxic_waste(r1, ToxicWaste.draw(42))
    so = synth(r1, w)
    po = prep_msm(so)
    return r1, w, pk, so, po


def _naive(points, scalars) -> Point:
    if len(points) == 0:
        return Point.infinity(points.group)
    return msm_naive(points, scalars)


def test_synth(case):
    r1, w, _, so, _ = case
    a, b, c = ref.domain_vectors(r1, w)
    assert (so.a.to_ints(), so.b.to_ints(), so.c.to_ints()) == (a, b, c)
    assert so.domain_size == r1.domain_size
    d = r1.densities()
    assert np.array_equal(so.a_aux_density, d["a_aux"])
    assert so.timing.stage == "synth" and so.timing.gpu_s is None and so.timing.wall_s >= 0


def test_prep_msm(case):
    _, w, pk, so, po = case
    sc = query_scalars(so)
    aux = w.aux.to_ints()
    assert sc["l"].to_ints() == aux
    assert len(sc["a"]) == len(pk.a) and len(sc["b"]) == len(pk.b_g1)
    for name, split in (("l", po.l), ("a", po.a), ("b", po.b)):
        vals = sc[name].to_ints()
        zeros = [i for i, v in enumerate(vals) if v == 0]
        ones = [i for i, v in enumerate(vals) if v == 1]
        tail = [i for i, v in enumerate(vals) if v not in (0, 1)]
        assert split.zeros == len(zeros)
        if split.split:
            assert list(split.ones_idx) == ones and list(split.tail_idx) == tail
        else:
            assert list(split.tail_idx) == sorted(ones + tail)
        assert split.tail_scalars.to_ints() == [vals[i] for i in split.tail_idx]


def test_split_rule():
    # tail over half of the points: no split, every non-zero scalar is tail
    s = split_query(Fr.from_ints([0, 1, 5, 6, 7]))
    assert not s.split and list(s.tail_idx) == [1, 2, 3, 4] and s.ones == 0
    s = split_query(Fr.from_ints([0, 1, 1, 6, 0]))
    assert s.split and list(s.ones_idx) == [1, 2] and list(s.tail_idx) == [3]
    s = split_query(Fr.zeros(0))
    assert s.size == 0


def test_quotient_against_long_division(backend, case):
    r1, w, _, so, _ = case
    want = ref.h_coefficients(r1, w)
    a, b, c = (x.to(backend) for x in (so.a, so.b, so.c))
    assert quotient(a, b, c).to_ints() == want


def test_ntt_h(case):
    _, _, pk, so, _ = case
    out = ntt_h(so, pk)
    h = out.h.to_ints()
    assert h[-1] == 0
    assert out.h_point == _naive(pk.h, h[:-1])
    assert out.ntt_s >= 0 and out.msm_s >= 0
    # the hooks: host work while the transforms run, then the call before the H MSM, once each
    calls = []
    hooked = ntt_h(so, pk, while_quotient=lambda: calls.append("while"),
                   on_quotient=lambda: calls.append("on"))
    assert calls == ["while", "on"] and hooked.h_point == out.h_point


def test_batch_add_and_tail(case):
    _, _, pk, _, po = case
    ba = batch_add(po, pk)
    tm = tail_msm(po, pk)
    for bases, split, got_ones, got_tail in ((pk.l, po.l, ba.l, tm.l), (pk.a, po.a, ba.a, tm.a),
                                            (pk.b_g1, po.b, ba.b_g1, tm.b_g1)):
        ones = [int(i) for i in split.ones_idx]
        assert got_ones == _naive(bases[np.array(ones, dtype=np.int64)], [1] * len(ones))
        idx = np.asarray(split.tail_idx, dtype=np.int64)
        assert got_tail == _naive(bases[idx], split.tail_scalars.to_ints())
    ones = np.asarray(po.b.ones_idx, dtype=np.int64)
    assert ba.b_g2 == _naive(pk.b_g2[ones], [1] * len(ones))


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("threads", [1, 3])
def test_b_g2_msm_threads(case, monkeypatch, threads, native):
    _, _, pk, _, po = case
    module = importlib.import_module("cuzklab.stages.b_g2_msm")
    monkeypatch.setattr(module, "MIN_POINTS_PER_THREAD", 1)
    out = b_g2_msm(po, pk, threads=threads, native=native)
    idx = np.asarray(po.b.tail_idx, dtype=np.int64)
    assert out.b_g2 == _naive(pk.b_g2[idx], po.b.tail_scalars.to_ints())
    # the twin cuts the tail in point chunks, the native code in (window, range) tasks
    if native:
        assert out.threads == min(threads, tasks(po.b.tail, threads))
    else:
        assert out.threads == min(threads, max(1, po.b.tail))
    assert out.timing.lane == "cpu.pool"
    with pytest.raises(ValueError, match="threads"):
        b_g2_msm(po, pk, threads=0)


def test_epilogue_formula(case):
    _, _, pk, _, _ = case
    vk = pk.vk
    G1, G2 = Point.generator("g1"), Point.generator("g2")
    a, b1, b2, l, h = G1 * 3, G1 * 5, G2 * 5, G1 * 7, G1 * 11
    r, s = 13, 17
    p = epilogue(pk, a=a, b_g1=b1, b_g2=b2, l=l, h=h, r=r, s=s)
    A = vk.alpha_g1 + a + vk.delta_g1 * r
    B1 = vk.beta_g1 + b1 + vk.delta_g1 * s
    assert p.a == A
    assert p.b == vk.beta_g2 + b2 + vk.delta_g2 * s
    assert p.c == l + h + A * s + B1 * r + vk.delta_g1 * (R - r * s)
    # without H first, H added last (as the prover does beside the H MSM): the same proof
    from cuzklab.stages.epilogue import with_h
    part = epilogue(pk, a=a, b_g1=b1, b_g2=b2, l=l, h=None, r=r, s=s)
    assert part.c == l + A * s + B1 * r + vk.delta_g1 * (R - r * s)
    assert with_h(part, h).to_bytes() == p.to_bytes()
    with pytest.raises(ValueError, match="s must be"):
        epilogue(pk, a=a, b_g1=b1, b_g2=b2, l=l, h=h, r=1, s=-1)
    # the constants computed ahead (as the prover does while the transforms run): the same proof
    k = epilogue_constants(pk, r, s)
    assert k.a == vk.alpha_g1 + vk.delta_g1 * r and k.b == vk.beta_g2 + vk.delta_g2 * s
    assert epilogue(pk, a=a, b_g1=b1, b_g2=b2, l=l, h=h, r=r, s=s, constants=k).to_bytes() == p.to_bytes()
    for zr, zs in ((0, 0), (0, 5), (R - 1, 1)):
        want = epilogue(pk, a=a, b_g1=b1, b_g2=b2, l=l, h=h, r=zr, s=zs)
        assert epilogue(pk, a=a, b_g1=b1, b_g2=b2, l=l, h=h, r=zr, s=zs,
                        constants=epilogue_constants(pk, zr, zs)) == want
        assert want.c == l + h + (vk.alpha_g1 + a + vk.delta_g1 * zr) * zs + (
            vk.beta_g1 + b1 + vk.delta_g1 * zs) * zr + vk.delta_g1 * ((R - zr * zs % R) % R)
    with pytest.raises(ValueError, match="other blinding factors"):
        epilogue(pk, a=a, b_g1=b1, b_g2=b2, l=l, h=h, r=r, s=s + 1, constants=k)
    with pytest.raises(ValueError, match="r must be"):
        epilogue_constants(pk, R, 1)


def test_clock():
    clock = StageClock()
    with clock.stage("synth", "cpu.main"):
        pass
    assert clock.last().stage == "synth" and clock.last().gpu_s is None
    with pytest.raises(ValueError, match="stage must be one of"):
        with clock.stage("nope", "cpu.main"):
            pass


@pytest.mark.gpu
def test_stages_gpu_match_cpu(case):
    r1, w, pk, so, po = case
    pk_g = pk.to("gpu")
    sg = synth(r1.to("gpu"), w, backend="gpu")
    assert sg.a.to("cpu").equals(so.a) and sg.c.to("cpu").equals(so.c)
    assert sg.timing.gpu_s is not None
    pg = prep_msm(sg)
    for q in ("l", "a", "b"):
        c, g = getattr(po, q), getattr(pg, q)
        assert np.array_equal(np.asarray(c.tail_idx), g.tail_idx.get())
        assert g.tail_scalars.to("cpu").equals(c.tail_scalars)
    hg = ntt_h(sg, pk_g)
    hc = ntt_h(so, pk)
    assert hg.h.to("cpu").equals(hc.h) and hg.h_point == hc.h_point
    bg, bc = batch_add(pg, pk_g), batch_add(po, pk)
    assert (bg.l, bg.a, bg.b_g1, bg.b_g2) == (bc.l, bc.a, bc.b_g1, bc.b_g2)
    tg, tc = tail_msm(pg, pk_g), tail_msm(po, pk)
    assert (tg.l, tg.a, tg.b_g1) == (tc.l, tc.a, tc.b_g1)
    assert b_g2_msm(pg, pk_g, backend="gpu").b_g2 == b_g2_msm(po, pk).b_g2
