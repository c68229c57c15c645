"""prep_msm's GPU classify-and-gather against the native split and the NumPy twin.

The kernels run compiled for the host (``tests/msm/emu``) on small inputs,
and on the device in the tests marked gpu.
"""

from __future__ import annotations

import numpy as np
import pytest

from cuzklab.field import Fr
from cuzklab.stages import prep_gpu as P
from cuzklab.stages.prep_msm import QuerySplit

from ..msm.emu import CXX
from ..native.test_native import _random_scalars
from ..native.test_native import _twin_split as _twin


def _same(got, want: QuerySplit) -> None:
    ones, tail_idx, vals, n0, n1, sp = got
    assert (n0, n1, sp) == (want.zeros, want.ones, want.split)
    assert np.array_equal(np.asarray(P.to_numpy(ones)), np.asarray(want.ones_idx))
    assert np.array_equal(np.asarray(P.to_numpy(tail_idx)), np.asarray(want.tail_idx))
    assert np.array_equal(P.to_numpy(vals), want.tail_scalars.limbs)
    assert ones.dtype == tail_idx.dtype == np.int64 and vals.dtype == np.uint32


def _cases(rng, ni, na):
    """(inputs, aux, masks) over value mixes: mostly 0 / 1, mostly other, all zeros, all ones."""
    for p_zero, p_one in ((0.45, 0.45), (0.1, 0.1), (1.0, 0.0), (0.0, 1.0), (0.3, 0.5)):
        inputs, aux = _random_scalars(rng, ni, p_zero, p_one), _random_scalars(rng, na, p_zero, p_one)
        masks = {"l": (np.zeros(ni, dtype=bool), None),
                 "a": (None, rng.random(na) < 0.99),
                 "b": (rng.random(ni) < 0.3, rng.random(na) < 0.25)}
        yield inputs, aux, masks


SIZES = [(0, 0), (1, 0), (0, 1), (1, 1), (3, 17), (2, 31), (5, 59), (40, 1001)]


@pytest.fixture(scope="module")
def emu():
    if CXX is None:
        pytest.skip("needs a C++ compiler")
    from ..msm.emu import EmuRunner
    return EmuRunner([P.kernel_source()], [], list(P.SIGNATURES), P.SIGNATURES)


@pytest.mark.parametrize("ni,na", SIZES)
def test_emulated_kernels_equal_native_and_twin(emu, ni, na):
    from cuzklab.native.split import split_queries
    rng = np.random.default_rng(ni * 7919 + na)
    for inputs, aux, masks in _cases(rng, ni, na):
        got = P.split_queries(inputs, aux, masks, runner=emu)
        native = split_queries(inputs, aux, masks, threads=2)
        assert list(got) == list(masks)
        for q, m in masks.items():
            want = _twin(inputs, aux, *m)
            _same(got[q], want)
            _same(native[q], want)


def test_emulated_split_rule_and_fewer_queries(emu):
    one = Fr.ones(1).limbs[0]
    five = Fr.from_ints([5]).limbs[0]
    z = np.zeros(8, dtype=np.uint32)
    # [0, 1, 5, 5, 5]: tail 3 of 5 is over half, no split; [0, 1, 1, 5, 0]: split
    aux = np.stack([z, one, five, five, five, z, one, one, five, z])
    sel_a = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0], dtype=bool)
    got = P.split_queries(aux[:0], aux, {"x": (None, sel_a), "y": (None, ~sel_a)}, runner=emu)
    ones, tail_idx, vals, n0, n1, sp = got["x"]
    assert not sp and (n0, n1) == (1, 0) and tail_idx.tolist() == [1, 2, 3, 4] and ones.size == 0
    ones, tail_idx, vals, n0, n1, sp = got["y"]
    assert sp and (n0, n1) == (2, 2) and ones.tolist() == [1, 2] and tail_idx.tolist() == [3]
    assert np.array_equal(vals, aux[[8]])
    # an empty query, and no query at all
    got = P.split_queries(aux[:2], aux, {"e": (np.zeros(2, bool), np.zeros(10, bool))}, runner=emu)
    ones, tail_idx, vals, n0, n1, sp = got["e"]
    assert (ones.size, tail_idx.size, vals.shape, n0, n1, sp) == (0, 0, (0, 8), 0, 0, True)
    assert P.split_queries(aux[:2], aux, {}, runner=emu) == {}


def test_bad_input_is_a_clear_error(emu):
    aux = np.zeros((10, 8), dtype=np.uint32)
    with pytest.raises(ValueError, match="at most 3"):
        P.split_queries(aux[:0], aux, dict.fromkeys("abcd", (None, None)), runner=emu)
    with pytest.raises(ValueError, match="shape \\(10,\\)"):
        P.split_queries(aux[:0], aux, {"x": (None, np.ones(4, bool))}, runner=emu)
    with pytest.raises(ValueError, match="aux: expected an \\(n, 8\\)"):
        P.split_queries(aux[:0], aux[:, :4], {"x": (None, None)}, runner=emu)
    with pytest.raises(ValueError, match="dtype uint32"):
        P.split_queries(aux[:0], aux.astype(np.int64), {"x": (None, None)}, runner=emu)
    with pytest.raises(ValueError, match="sel: expected a \\(8,\\) uint32"):
        P.split_queries(aux[:0], aux, {"x": (None, None)}, runner=emu, sel=np.zeros(3, np.uint32))
    with pytest.raises(ValueError, match="expected \\(input_mask, aux_mask\\)"):
        P.selection(0, 10, {"x": None})
    with pytest.raises(TypeError, match="uint32 array"):
        P.check_args("prep_classify", (aux.astype(np.int64), np.uint32(0), aux, np.uint32(10),
                                       aux, aux, aux))


def test_selection_bits_and_cache():
    sel = P.selection(2, 5, {"l": (np.zeros(2, bool), None), "a": (None, np.array([1, 0, 1, 0, 1], bool)),
                             "b": (np.array([True, False]), np.zeros(5, np.uint8))})
    assert sel.dtype == np.uint32 and sel.shape == (P.K // 4,)
    # inputs: A (all) and B's first; aux: L (all) and A under its mask; then padding
    assert sel.view(np.uint8)[:8].tolist() == [2 | 4, 2, 1 | 2, 1, 1 | 2, 1, 1 | 2, 0]
    P.clear_cache()
    a, bi, bx = np.ones(5, bool), np.array([True, False]), np.zeros(5, bool)
    s1 = P.prover_selection(2, 5, a, bi, bx, mp=np)
    assert P.prover_selection(2, 5, a, bi, bx, mp=np) is s1          # same arrays: cached
    s2 = P.prover_selection(2, 5, a.copy(), bi, bx, mp=np)            # another array: rebuilt
    assert s2 is not s1 and np.array_equal(s2, s1)
    for k in range(P._CACHE_SIZE + 2):                                # bounded
        P.prover_selection(2, 5, np.ones(5, bool), bi, bx, mp=np)
    assert len(P._CACHE) <= P._CACHE_SIZE
    P.clear_cache()


@pytest.mark.gpu
@pytest.mark.parametrize("ni,na", SIZES + [(328, (1 << 16) + 5)])
def test_gpu_kernels_equal_native_and_twin(ni, na):
    from cuzklab.native.split import split_queries
    rng = np.random.default_rng(ni * 31 + na)
    for inputs, aux, masks in _cases(rng, ni, na):
        got = P.split_queries(inputs, aux, masks)
        native = split_queries(inputs, aux, masks, threads=2)
        for q, m in masks.items():
            want = _twin(inputs, aux, *m)
            _same(got[q], want)
            _same(native[q], want)


@pytest.mark.gpu
def test_gpu_prep_msm_equals_native_twin_and_cupy_twin():
    from cuzklab.groth16 import constraints_for_domain, porep_circuit
    from cuzklab.stages import prep_msm, synth
    r1, w = porep_circuit(constraints_for_domain(12), rng=5)
    so = synth(r1, w)
    sg = synth(r1.to("gpu"), w, backend="gpu")
    P.clear_cache()
    cpu, twin = prep_msm(so), prep_msm(so, native=False)
    for _ in range(2):                                     # the second from the cached selection
        gpu, gtwin = prep_msm(sg), prep_msm(sg, native=False)
        assert len(P._CACHE) == 1
        for q in ("l", "a", "b"):
            c = getattr(cpu, q)
            for s in (getattr(twin, q), getattr(gpu, q), getattr(gtwin, q)):
                assert (s.zeros, s.ones, s.split, s.tail) == (c.zeros, c.ones, c.split, c.tail)
                assert np.array_equal(P.to_numpy(s.ones_idx), np.asarray(c.ones_idx))
                assert np.array_equal(P.to_numpy(s.tail_idx), np.asarray(c.tail_idx))
                assert s.tail_scalars.to("cpu").equals(c.tail_scalars)
    assert gpu.l.ones_idx.dtype == np.int64 and gpu.timing.gpu_s is not None
