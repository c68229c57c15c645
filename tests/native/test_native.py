"""Native CPU stages against their NumPy twins and Python ints / py_ecc, on random and edge inputs."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from cuzklab.curve import Point, Points
from cuzklab.field import Fp2, Fr, concat
from cuzklab.field.constants import P, R
from cuzklab.groth16 import constraints_for_domain, porep_circuit
from cuzklab.groth16.program import porep_program
from cuzklab.msm import msm, msm_naive
from cuzklab.native import build
from cuzklab.native.msm_g2 import g2_msm, plan
from cuzklab.native.pool import native_pool, ranges
from cuzklab.stages import prep_msm, synth, synthesize
from cuzklab.stages.synth import domain_vectors, native_domain_vectors


def _fr_edges(rng, n):
    vals = [0, 1, 2, R - 1, R - 2, (1 << 128) % R] + [int(x) for x in rng.integers(0, 2**63, size=n)]
    return [v * (1 + i) % R for i, v in enumerate(vals)]


def test_fr_and_fp2_products_match_the_twins_and_python_ints():
    lib = build.library()
    rng = np.random.default_rng(5)
    a_int = _fr_edges(rng, 40)
    b_int = list(reversed(a_int))
    a, b = Fr.from_ints(a_int), Fr.from_ints(b_int)
    out = np.empty_like(a.limbs)
    lib.fr_mul_batch(a.limbs.ctypes.data, b.limbs.ctypes.data, 0, len(a), out.ctypes.data)
    got = Fr.from_mont_limbs(out)
    assert got.equals(a * b)
    assert got.to_ints() == [x * y % R for x, y in zip(a_int, b_int)]
    edges = [0, 1, P - 1, P - 2, 2**380 % P]
    pairs = [(edges[i % 5], edges[(3 * i + 1) % 5]) for i in range(10)]
    pairs += [(int(x) * 7919 % P, int(y)) for x, y in rng.integers(0, 2**62, size=(10, 2))]
    x, y = Fp2.from_ints(pairs), Fp2.from_ints(list(reversed(pairs)))
    out = np.empty_like(x.limbs)
    lib.fp2_mul_batch(x.limbs.ctypes.data, y.limbs.ctypes.data, 0, len(x), out.ctypes.data)
    got = Fp2.from_mont_limbs(out)
    assert got.equals(x * y)
    for (a0, a1), (b0, b1), (c0, c1) in zip(pairs, reversed(pairs), got.to_ints()):
        assert (c0, c1) == ((a0 * b0 - a1 * b1) % P, (a0 * b1 + a1 * b0) % P)


@pytest.fixture(scope="module")
def g2_case():
    """G2 bases (an infinity point and a repeated point among them) and edge scalars."""
    rng = np.random.default_rng(9)
    g = Point.generator("g2")
    pts = [(g * int(k)).xy for k in rng.integers(1, 2**40, size=45)]
    pts[3] = None
    pts[7] = pts[8]
    bases = Points.from_ints(pts, "g2", check=False)
    ks = [int(k) for k in rng.integers(0, 2**63, size=45)]
    ks[:6] = [0, 1, R - 1, R - 2, 2**254, 5]
    ks[8] = R - ks[7]          # P7 * k + P8 * (r - k) = 0: cancellation in a bucket
    scalars = Fr.from_ints([k % R for k in ks])
    want = msm_naive(bases, scalars)
    assert msm(bases, scalars, backend="cpu") == want        # the NumPy twin agrees
    return bases, scalars, want


@pytest.mark.parametrize("threads,window", [(1, None), (3, None), (2, 4), (1, 13), (5, 9)])
def test_g2_msm_matches_twin_and_naive(g2_case, threads, window):
    bases, scalars, want = g2_case
    assert g2_msm(bases, scalars, threads=threads, window=window) == want


@pytest.mark.parametrize("threads,window,parts", [(1, 5, 2), (1, 4, 8), (3, 6, 3), (2, 9, 7),
                                                   (4, 13, 5)])
def test_g2_msm_cut_by_bucket_ranges_matches(g2_case, threads, window, parts):
    # every range but the first adds its start times its total to the window sum
    bases, scalars, want = g2_case
    assert g2_msm(bases, scalars, threads=threads, window=window, parts=parts) == want


@pytest.mark.parametrize("threads", [1, 3])
def test_g2_msm_reports_its_phases(g2_case, threads):
    from cuzklab.native.msm_g2 import PHASES
    bases, scalars, want = g2_case
    phases = {}
    t = time.perf_counter()
    assert g2_msm(bases, scalars, threads=threads, phases=phases) == want
    took = time.perf_counter() - t
    assert list(phases) == list(PHASES)
    assert all(v >= 0 for v in phases.values()) and sum(phases.values()) <= took
    assert phases["windows_s"] > 0
    empty = {}
    assert g2_msm(bases[:0], scalars[:0], phases=empty) == Point.infinity("g2")
    assert list(empty) == list(PHASES) and empty["windows_s"] == 0.0


def test_a_native_pools_width_profile_adds_up_to_the_time_it_covers(g2_case):
    from cuzklab.native.pool import native_pool
    bases, scalars, want = g2_case
    pool = native_pool(3)
    pool.widths(reset=True)
    t = time.perf_counter()
    assert g2_msm(bases, scalars, threads=3, window=4) == want   # 64 window tasks
    took = time.perf_counter() - t
    w = pool.widths(reset=True)
    assert w.shape == (4,) and min(w) >= 0
    assert took * 0.5 <= w.sum() <= took + 0.05      # the time since the reset, width by width
    assert w[1:].sum() > 0                           # some of it with threads inside a task
    after = pool.widths()
    assert after[1:].sum() == 0 and after[0] < 0.05  # reset: nothing ran since


def test_g2_msm_edges(g2_case):
    bases, scalars, _ = g2_case
    assert g2_msm(bases[:0], scalars[:0]) == Point.infinity("g2")
    assert g2_msm(bases[3:4], scalars[3:4]) == Point.infinity("g2")           # infinity base
    assert g2_msm(bases[:1], Fr.from_ints([0])) == Point.infinity("g2")
    one = g2_msm(bases[1:2], Fr.from_ints([R - 1]))
    assert one == -bases.point(1)
    idx = np.array([5, 5, 1, 3, 9], dtype=np.int64)
    assert g2_msm(bases, scalars[:5], idx=idx) == msm_naive(bases[idx], scalars[:5])
    with pytest.raises(ValueError, match="idx"):
        g2_msm(bases, scalars[:1], idx=np.array([99]))
    with pytest.raises(ValueError, match="threads"):
        g2_msm(bases, scalars, threads=0)
    with pytest.raises(ValueError, match="window"):
        g2_msm(bases, scalars, window=3)
    with pytest.raises(ValueError, match="parts"):
        g2_msm(bases, scalars, parts=0)


def _signed_digits(k: int, c: int, windows: int) -> list[int]:
    """The c-bit signed digits of k, written here from the recoding's definition."""
    out, carry, half = [], 0, 1 << (c - 1)
    for j in range(windows):
        v = ((k >> (c * j)) & ((1 << c) - 1)) + carry
        carry = int(v > half)
        out.append(v - (carry << c))
    assert carry == 0
    return out


@pytest.mark.parametrize("c,parts", [(11, 4), (13, 4), (13, 2), (8, 3), (5, 7)])
def test_the_top_window_is_cut_over_the_buckets_its_digits_reach(c, parts):
    # a scalar below r has 255 bits, so the top window's digits reach few buckets; its
    # tasks are cut over those, so each adds about as many points as any other task
    import math
    from cuzklab.native.msm_g2 import top_buckets, window_cuts
    rng = np.random.default_rng(c * 10 + parts)
    w = math.ceil(256 / c)
    ks = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(4000)] + [R - 1]
    digits = np.array([_signed_digits(k, c, w) for k in ks], dtype=np.int64).T
    top = top_buckets(digits)
    assert top == int(np.abs(digits[-1]).max()) <= ((R - 1) >> (c * (w - 1))) + 1
    edges = window_cuts(c, parts, top)
    half = 1 << (c - 1)
    assert edges.shape == (w, parts + 1) and edges.dtype == np.int64
    assert (edges[:-1] == [half * k // parts for k in range(parts + 1)]).all()
    assert edges[-1, 0] == 0 and edges[-1, -1] == min(top, half)
    assert (np.diff(edges, axis=1) >= 0).all()
    counts = np.array([[((np.abs(d) - 1 >= lo) & (np.abs(d) - 1 < hi) & (d != 0)).sum()
                        for lo, hi in zip(e[:-1], e[1:])] for d, e in zip(digits, edges)])
    if top >= parts:   # (at c = 5 the top window holds only the carry: one bucket)
        assert counts[-1].max() <= 1.5 * counts[:-1].max()   # cut like the others: 3-4x
    assert counts[-1].sum() == (digits[-1] != 0).sum()


def test_g2_msm_on_full_range_scalars_matches_naive(g2_case):
    # the top window's digits of 255-bit scalars, cut over the buckets they reach
    bases, _, _ = g2_case
    rng = np.random.default_rng(17)
    ks = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(len(bases))]
    ks[:4] = [R - 1, R - 2, 2**254, 2**254 + 2**253]
    scalars = Fr.from_ints(ks)
    want = msm_naive(bases, scalars)
    for threads, window, parts in [(1, 11, 4), (4, 11, 4), (3, 13, 5), (2, 5, 7), (4, None, None)]:
        assert g2_msm(bases, scalars, threads=threads, window=window, parts=parts) == want


@pytest.fixture(scope="module")
def g2_runs():
    """Long runs in single buckets: 300 copies of one point (the affine rounds double),
    a point and its negative 150 times each, alternating (they cancel), and 600 points
    at random; with the expected sum from scalar multiples and the NumPy twin."""
    rng = np.random.default_rng(23)
    g = Point.generator("g2")
    base = [(g * int(k)).xy for k in rng.integers(1, 2**40, size=40)]
    neg = [(-Point("g2", xy)).xy for xy in base[:10]]
    bases = Points.from_ints(base + neg, "g2", check=False)
    k1, k2 = (int.from_bytes(rng.bytes(32), "little") % R for _ in range(2))
    idx = [5] * 300 + [j for i in range(150) for j in (i % 10, 40 + i % 10)]
    ks = [k1] * 300 + [k2] * 300
    rand_idx = [int(i) for i in rng.integers(0, 40, size=600)]
    rand_ks = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(600)]
    idx, ks = np.array(idx + rand_idx, dtype=np.int64), Fr.from_ints(ks + rand_ks)
    rest = msm(bases[np.array(rand_idx)], Fr.from_ints(rand_ks), backend="cpu")
    want = bases.point(5) * (300 * k1 % R) + rest
    return bases, idx, ks, want


@pytest.mark.parametrize("threads,window", [(1, None), (3, None), (2, 4), (1, 11)])
def test_g2_msm_affine_rounds_double_and_cancel(g2_runs, threads, window):
    # every bucket a copy of one point reaches runs of 300 (the rounds double, 150 pairs a
    # round), and a point beside its negative cancels; the sum is the one expected
    bases, idx, ks, want = g2_runs
    assert g2_msm(bases, ks, idx=idx, threads=threads, window=window) == want


def test_plan_spreads_windows_over_threads():
    c, parts = plan(5000, 1)
    assert parts == 1 and 7 <= c <= 11
    c16, parts16 = plan(5000, 64)
    assert parts16 > 1
    # a window's bucket ranges cost no extra reduction: 84,595 points keep the one-thread
    # window on eight threads, five tasks each
    assert plan(84595, 1) == (13, 1) and plan(84595, 8) == (13, 2)
    assert ranges(10, 3) == [(0, 3), (3, 6), (6, 10)] and ranges(0, 4) == []


@pytest.fixture(scope="module")
def program():
    return porep_program(constraints_for_domain(12), rng=21)


def test_witness_native_equals_twin_and_satisfies(program):
    for seed in (0, 1):
        inputs = program.inputs_for(seed)
        w = program.witness(inputs)
        assert w.aux.equals(program.witness(inputs, native=False).aux)
        assert w.aux.equals(program.witness(inputs, threads=3).aux)
        assert program.r1cs.is_satisfied(w)
    assert not program.witness(program.inputs_for(0)).aux.equals(
        program.witness(program.inputs_for(1)).aux)


def test_matvec_native_equals_twin(program):
    w = program.witness(program.inputs_for(3))
    want = domain_vectors(program.r1cs, w)
    for threads in (1, 4):
        got = native_domain_vectors(program.r1cs, w, threads=threads)
        assert all(g.equals(x) for g, x in zip(got, want))
    r1, w1 = porep_circuit(300, rng=2)
    assert all(g.equals(x) for g, x in zip(native_domain_vectors(r1, w1, threads=2),
                                           domain_vectors(r1, w1)))


def _random_ell(rng, rows, width, nvars):
    """A random ELL matrix: slots with zero, one and random coefficients."""
    from cuzklab.groth16.r1cs import SparseMatrix
    cols = rng.integers(0, max(1, nvars), size=(width, rows)).astype(np.int64)
    return SparseMatrix(cols, Fr.from_mont_limbs(_random_scalars(rng, width * rows, 0.3, 0.3),
                                                 check=False), rows)


@pytest.mark.parametrize("rows", [0, 1, 2, 37, 5001])
def test_matvecs_into_equals_the_twin_for_one_to_three_matrices(rows, monkeypatch):
    import cuzklab.native.synthesis as NS
    from cuzklab.groth16.matvec import matvec
    monkeypatch.setattr(NS, "MIN_ROWS", 16)         # several ranges even at these sizes
    rng = np.random.default_rng(rows)
    ni, na = 3, 200
    inputs, aux = _random_scalars(rng, ni, 0.3, 0.3), _random_scalars(rng, na, 0.3, 0.3)
    z = concat([Fr.from_mont_limbs(inputs, check=False), Fr.from_mont_limbs(aux, check=False)])
    mats = [_random_ell(rng, rows, w, ni + na) for w in (3, 1, 2)]
    want = [matvec(m, z).limbs for m in mats]
    for k in (1, 2, 3):
        for threads in (1, 2, 3, 8):
            outs = [np.full((rows + 2, 8), 7, dtype=np.uint32) for _ in range(k)]
            NS.matvecs_into([(m.cols, m.coeffs.limbs) for m in mats[:k]], rows, inputs, aux,
                            outs, threads=threads)
            for o, w in zip(outs, want):
                assert np.array_equal(o[:rows], w)
                assert (o[rows:] == 7).all()         # nothing past the rows is written


def test_matvecs_into_checks_its_arguments():
    from cuzklab.native.synthesis import matvecs_into
    rng = np.random.default_rng(1)
    m = _random_ell(rng, 10, 2, 5)
    z = _random_scalars(rng, 5)
    pair = (m.cols, m.coeffs.limbs)
    with pytest.raises(ValueError, match="as many outputs"):
        matvecs_into([pair], 10, z[:1], z[1:], [])
    with pytest.raises(ValueError, match="at most 3"):
        matvecs_into([pair] * 4, 10, z[:1], z[1:], [np.empty((10, 8), np.uint32)] * 4)
    with pytest.raises(ValueError, match="n >= rows"):
        matvecs_into([pair], 10, z[:1], z[1:], [np.empty((9, 8), np.uint32)])
    with pytest.raises(ValueError, match="ELL layout"):
        matvecs_into([pair], 11, z[:1], z[1:], [np.empty((11, 8), np.uint32)])


def _same_split(x, y):
    assert (x.zeros, x.ones, x.tail, x.split) == (y.zeros, y.ones, y.tail, y.split)
    assert np.array_equal(x.ones_idx, y.ones_idx) and np.array_equal(x.tail_idx, y.tail_idx)
    assert x.tail_scalars.equals(y.tail_scalars)


def test_prep_msm_native_equals_twin(program, monkeypatch):
    import cuzklab.native.split as S
    monkeypatch.setattr(S, "MIN_CHUNK", 64)        # many ranges at this small size
    so = synthesize(program, program.inputs_for(4))
    for threads in (1, 3):
        got, want = prep_msm(so, threads=threads), prep_msm(so, native=False)
        for q in ("l", "a", "b"):
            _same_split(getattr(got, q), getattr(want, q))
    # mostly "other" values: the tail is over half, so nothing is split
    r1, w = porep_circuit(200, rng=3, p_zero=0.1, p_one=0.1)
    so = synth(r1, w)
    got, want = prep_msm(so, threads=2), prep_msm(so, native=False)
    assert not want.l.split
    for q in ("l", "a", "b"):
        _same_split(getattr(got, q), getattr(want, q))


def _random_scalars(rng, n, p_zero=0.45, p_one=0.45):
    """(n, 8) Montgomery limbs: zeros, ones and random values in the given shares."""
    vals = Fr.random(n, rng).limbs.copy()
    u = rng.random(n)
    vals[u < p_zero] = 0
    vals[(u >= p_zero) & (u < p_zero + p_one)] = Fr.ones(1).limbs[0]
    return vals


def _twin_split(inputs, aux, mask_in, mask_aux):
    from cuzklab.stages.prep_msm import split_query
    parts = [Fr.from_mont_limbs(v if m is None else v[m], check=False)
             for v, m in ((inputs, mask_in), (aux, mask_aux))]
    return split_query(concat(parts))


@pytest.mark.parametrize("ni,na", [(0, 0), (1, 0), (0, 1), (1, 1), (3, 17), (5, 1001), (40, 4099)])
def test_split_queries_equals_the_twin_on_random_values_and_edge_sizes(ni, na, monkeypatch):
    import cuzklab.native.split as S
    from cuzklab.stages.prep_msm import QuerySplit
    monkeypatch.setattr(S, "MIN_CHUNK", 4)         # several ranges even at these sizes
    rng = np.random.default_rng(ni * 7919 + na)
    for p_zero, p_one in ((0.45, 0.45), (0.1, 0.1), (1.0, 0.0), (0.0, 1.0)):
        inputs, aux = _random_scalars(rng, ni, p_zero, p_one), _random_scalars(rng, na, p_zero, p_one)
        masks = {"l": (np.zeros(ni, dtype=bool), None),
                 "a": (None, rng.random(na) < 0.99),
                 "b": (rng.random(ni) < 0.3, rng.random(na) < 0.25)}
        want = {q: _twin_split(inputs, aux, *m) for q, m in masks.items()}
        runs = [S.split_queries(inputs, aux, masks, threads=t) for t in (1, 2, 3, 8)]
        # on a pool's queue, as one job of one range a pass (as cuzk's prep_msm on the
        # b_g2_msm pool)
        runs += [S.split_queries(inputs, aux, masks, queue=native_pool(t)) for t in (1, 3)]
        for got in runs:
            for q, (ones, tail_idx, vals, n0, n1, sp) in got.items():
                _same_split(QuerySplit(ones, tail_idx, Fr.from_mont_limbs(vals, check=False),
                                       n0, n1, sp), want[q])
                assert ones.dtype == tail_idx.dtype == np.int64 and vals.dtype == np.uint32


_CLASSIFY_GUARD = """
import ctypes, mmap, sys
import numpy as np
from cuzklab.field import Fr
from cuzklab.native.build import library
lib = library()
page = mmap.PAGESIZE
buf = mmap.mmap(-1, 2 * page)
base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
if libc.mprotect(base + page, page, 0) != 0:
    sys.exit(77)
counts = base + page - 9 * 8       # the range's nine counts end where the guard page starts
vals = np.ascontiguousarray(Fr.random(64, np.random.default_rng(1)).limbs)
vals[::3] = 0
codes = np.empty(64, dtype=np.uint8)
masks = (ctypes.c_void_p * 6)()
lib.fr_classify(vals.ctypes.data, 0, vals.ctypes.data, 0, 64, 3, masks, codes.ctypes.data, counts)
got = np.frombuffer(buf, dtype=np.int64, count=9, offset=page - 72).reshape(3, 3)
assert (got == [[22, 0, 42]] * 3).all(), got
"""


def test_classify_touches_only_its_nine_counts():
    # Each range's counts are 3 queries x (zeros, ones, others); a write one past them
    # (the code 3 that no value has, of the last query) would land on the next range's
    # counts, racing with the thread that fills them. Here it would fault.
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", _CLASSIFY_GUARD], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    if r.returncode == 77:
        pytest.skip("mprotect is not available here")
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])


def test_pooled_split_is_the_same_every_time(monkeypatch):
    # many short ranges on few threads, run again and again: the ranges' counts sit side by
    # side, and each thread must write only its own
    import cuzklab.native.split as S
    monkeypatch.setattr(S, "MIN_CHUNK", 8)
    rng = np.random.default_rng(5)
    inputs, aux = _random_scalars(rng, 6), _random_scalars(rng, 1500)
    masks = {"l": (np.zeros(6, dtype=bool), None), "a": (None, rng.random(1500) < 0.9),
             "b": (rng.random(6) < 0.5, rng.random(1500) < 0.3)}
    want = S.split_queries(inputs, aux, masks, threads=1)
    for _ in range(200):
        got = S.split_queries(inputs, aux, masks, threads=2)
        for q in masks:
            assert got[q][3:] == want[q][3:]
            assert all(np.array_equal(g, w) for g, w in zip(got[q][:3], want[q][:3]))


def test_split_queries_on_a_queue_that_is_not_a_pool_is_one_clear_error():
    import cuzklab.native.split as S
    x = np.zeros((2, 8), dtype=np.uint32)
    with pytest.raises(ValueError, match="queue: expected a NativePool or None, got int"):
        S.split_queries(x, x, {"l": (None, None)}, queue=3)


@pytest.mark.parametrize("nq", [1, 2])
def test_split_queries_on_the_pool_with_fewer_queries(nq, monkeypatch):
    # the pooled passes find each range's offsets at a stride of 3 nq (not 9)
    import cuzklab.native.split as S
    from cuzklab.stages.prep_msm import QuerySplit
    monkeypatch.setattr(S, "MIN_CHUNK", 16)
    rng = np.random.default_rng(40 + nq)
    inputs, aux = _random_scalars(rng, 9), _random_scalars(rng, 2003)
    masks = {q: (rng.random(9) < 0.5, rng.random(2003) < 0.6) for q in "xy"[:nq]}
    want = {q: _twin_split(inputs, aux, *m) for q, m in masks.items()}
    calls = []
    lib = S.library()

    class Spy:
        def __getattr__(self, name):
            calls.append(name)
            return getattr(lib, name)

    monkeypatch.setattr(S, "library", lambda: Spy())
    got = S.split_queries(inputs, aux, masks, threads=3)
    assert calls == ["fr_classify_pool", "fr_split_offsets", "fr_gather_pool"]
    for q, (ones, tail_idx, vals, n0, n1, sp) in got.items():
        _same_split(QuerySplit(ones, tail_idx, Fr.from_mont_limbs(vals, check=False), n0, n1, sp),
                    want[q])


def test_split_queries_takes_fewer_queries_and_masks_of_any_dtype():
    import cuzklab.native.split as S
    rng = np.random.default_rng(2)
    inputs, aux = _random_scalars(rng, 7), _random_scalars(rng, 301)
    sel = (rng.random(301) < 0.5).astype(np.uint8) * 3        # non-zero bytes that are not 1
    got = S.split_queries(inputs, aux, {"x": (None, sel)}, threads=2)
    want = _twin_split(inputs, aux, None, sel != 0)
    ones, tail_idx, vals, n0, n1, sp = got["x"]
    assert (n0, n1, sp) == (want.zeros, want.ones, want.split)
    assert np.array_equal(ones, want.ones_idx) and np.array_equal(tail_idx, want.tail_idx)
    assert S.split_queries(inputs, aux, {}, threads=3) == {}
    with pytest.raises(ValueError, match="at most 3"):
        S.split_queries(inputs, aux, dict.fromkeys("abcd", (None, None)))
    with pytest.raises(ValueError, match="shape \\(301,\\)"):
        S.split_queries(inputs, aux, {"x": (None, sel[:5])})


def test_offsets_place_each_range_in_each_query():
    from cuzklab.native.split import offsets
    # two ranges, two queries: (zeros, ones, others) per range
    counts = np.array([[[1, 2, 1], [0, 1, 3]],
                       [[2, 1, 0], [1, 0, 2]]], dtype=np.int64)
    split, totals, at = offsets(counts)
    assert split.tolist() == [True, False]             # q1: tail 5 of 7 points is over half
    assert totals.tolist() == [[3, 3, 1], [1, 0, 6]]
    assert at[0].tolist() == [[0, 0, 0], [0, 0, 0]]
    assert at[1].tolist() == [[4, 2, 1], [4, 0, 4]]
    assert at.flags["C_CONTIGUOUS"]


@pytest.mark.parametrize("nq", [0, 1, 2, 3])
def test_native_offsets_equal_the_numpy_ones(nq):
    from cuzklab.native.split import MAX_QUERIES, native_offsets, offsets
    rng = np.random.default_rng(nq)
    lib = build.library()
    for ranges in (1, 2, 7, 40):
        counts = rng.integers(0, 1000, size=(ranges, MAX_QUERIES, 3)).astype(np.int64)
        if ranges == 2 and nq:
            counts[:, 0] = [[1, 1, 1], [1, 0, 2]]      # tail 3 of 6 points: exactly half, split
        if ranges == 7 and nq > 1:
            counts[:, 1] = 0                             # a query that selects nothing
        split, totals, at = native_offsets(lib, counts, nq)
        want_split, want_totals, want_at = offsets(counts[:, :nq])
        assert split.dtype == np.int32 and split.tolist() == want_split.astype(int).tolist()
        assert np.array_equal(totals, want_totals) and np.array_equal(at, want_at)
        assert at.flags["C_CONTIGUOUS"] and at.shape == (ranges, nq, 3)
    if nq:
        half = np.zeros((2, MAX_QUERIES, 3), dtype=np.int64)
        half[:, 0] = [[1, 1, 1], [1, 0, 2]]
        assert native_offsets(lib, half, nq)[0][0] == 1


def test_native_offsets_bad_input():
    from cuzklab.native.split import native_offsets
    lib = build.library()
    with pytest.raises(ValueError, match="counts: expected a contiguous \\(ranges, 3, 3\\) int64"):
        native_offsets(lib, np.zeros((2, 2, 3), dtype=np.int64), 2)
    with pytest.raises(ValueError, match="counts: expected"):
        native_offsets(lib, np.zeros((2, 3, 3), dtype=np.int32), 2)
    with pytest.raises(ValueError, match="nq must be in 0..3"):
        native_offsets(lib, np.zeros((2, 3, 3), dtype=np.int64), 4)


def test_serial_s_counts_the_time_no_native_call_runs():
    import cuzklab.native.split as S
    from cuzklab.native.bench import serial_s
    rng = np.random.default_rng(4)
    inputs, aux = _random_scalars(rng, 3), _random_scalars(rng, 5000)
    masks = {"l": (None, None)}

    def fn():
        time.sleep(0.02)
        S.split_queries(inputs, aux, masks, threads=2)
    assert 0.02 <= serial_s(fn, S, 3) < 0.5
    assert S.library is build.library                # restored


def test_serial_s_counts_the_modules_serial_calls():
    # a native call the module names as serial (on the calling thread alone) is not
    # taken for the stage's pooled work
    import types

    from cuzklab.native.bench import serial_s

    class Lib:
        def work(self):
            time.sleep(0.03)

        def bookkeeping(self):
            time.sleep(0.03)
    lib = Lib()
    mod = types.SimpleNamespace(library=lambda: lib)

    def fn():
        mod.library().work()
        mod.library().bookkeeping()
    assert serial_s(fn, mod, 3) < 0.02               # without SERIAL_CALLS: both are work
    mod.SERIAL_CALLS = ("bookkeeping",)
    assert 0.025 <= serial_s(fn, mod, 3) < 0.055     # the bookkeeping's 30 ms are serial


def test_synthesize_splits_its_time_and_matches_synth(program):
    inputs = program.inputs_for(6)
    out = synthesize(program, inputs, threads=2)
    ref = synth(program.r1cs, program.witness(inputs, native=False), native=False)
    assert out.a.equals(ref.a) and out.b.equals(ref.b) and out.c.equals(ref.c)
    assert out.aux.equals(ref.aux)
    assert out.witness_s > 0 and out.matvec_s > 0
    assert out.timing.stage == "synth"
    assert out.timing.wall_s >= out.witness_s + out.matvec_s - 1e-3
    with pytest.raises(ValueError, match="inputs\\[0\\]"):
        synthesize(program, [2] + inputs[1:])
    with pytest.raises(ValueError, match="threads"):
        synthesize(program, inputs, threads=0)


def test_synthesize_writes_a_b_c_into_given_buffers(program):
    from cuzklab.errors import ConfigError
    inputs = program.inputs_for(7)
    n = program.r1cs.domain_size
    ref = synthesize(program, inputs, threads=2)
    for native in (True, False):
        bufs = [np.full((n, 8), 0xFFFFFFFF, dtype=np.uint32) for _ in range(3)]  # not zero
        out = synthesize(program, inputs, threads=2, native=native, out=bufs)
        assert out.a.equals(ref.a) and out.b.equals(ref.b) and out.c.equals(ref.c)
        for v, buf in zip((out.a, out.b, out.c), bufs):
            assert np.shares_memory(v.limbs, buf)
    bad = [np.zeros((n, 8), np.uint32), np.zeros((n, 8), np.uint32), np.zeros((n, 4), np.uint32)]
    for out in (bad, bad[:2], [np.zeros((n, 8), np.int64)] * 3, "abc"):
        with pytest.raises(ConfigError, match="^out: must be three C-contiguous"):
            synthesize(program, inputs, out=out)
    with pytest.raises(ConfigError, match="^out: .*backend 'cpu'"):
        synthesize(program, inputs, backend="gpu", out=bad)


def test_native_calls_release_the_gil(program):
    slow = porep_program(1 << 12, rng=1, witness_work=8.0)
    inputs = slow.inputs_for(0)
    done = threading.Event()

    def work():
        slow.witness(inputs)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    time.sleep(0.01)
    spins = 0
    while not done.is_set():
        spins += 1
    t.join()
    assert spins > 1000


def test_a_missing_compiler_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("CC", "no-such-cc-for-cuzklab")
    with pytest.raises(build.NativeBuildError, match="no C compiler found.*gcc"):
        build.find_compiler()
    monkeypatch.setenv("CUZKLAB_NATIVE_CACHE", str(tmp_path))
    with pytest.raises(build.NativeBuildError):
        build.build()
    assert not list(tmp_path.iterdir())


def test_the_library_is_cached_by_source_hash(tmp_path):
    path = build.library_path()
    assert path.exists() and path.name.startswith("cuzk_native-")
    assert "#define FR_P0 0x" in build.constants_header()


def test_fr_and_fp_products_on_full_range_values_match_python_ints():
    """The Montgomery products on random values over the whole field (the carry-free reduction)."""
    lib = build.library()
    rng = np.random.default_rng(11)
    a_int = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(300)] + [R - 1] * 4
    b_int = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(300)] + [R - 1, 1, 0, R - 2]
    a, b = Fr.from_ints(a_int), Fr.from_ints(b_int)
    out = np.empty_like(a.limbs)
    lib.fr_mul_batch(a.limbs.ctypes.data, b.limbs.ctypes.data, 0, len(a), out.ctypes.data)
    assert Fr.from_mont_limbs(out).to_ints() == [x * y % R for x, y in zip(a_int, b_int)]
    pairs = [tuple(int.from_bytes(rng.bytes(48), "little") % P for _ in range(2)) for _ in range(300)]
    pairs += [(P - 1, P - 1), (P - 1, 0), (0, P - 1), (1, P - 2)]
    x, y = Fp2.from_ints(pairs), Fp2.from_ints(list(reversed(pairs)))
    out = np.empty_like(x.limbs)
    lib.fp2_mul_batch(x.limbs.ctypes.data, y.limbs.ctypes.data, 0, len(x), out.ctypes.data)
    for (a0, a1), (b0, b1), (c0, c1) in zip(pairs, reversed(pairs), Fp2.from_mont_limbs(out).to_ints()):
        assert (c0, c1) == ((a0 * b0 - a1 * b1) % P, (a0 * b1 + a1 * b0) % P)


def test_pools_are_persistent_and_shared_per_thread_count():
    from cuzklab.native.pool import run_tasks, shared_pool
    p4 = shared_pool(4)
    assert shared_pool(4) is p4 and shared_pool(3) is not p4
    names = run_tasks(lambda i: (i, threading.current_thread().name), [(i,) for i in range(16)], 4)
    assert [i for i, _ in names] == list(range(16))             # results in task order
    assert all(n.startswith("cuzklab-native-4") for _, n in names)
    assert len(threading.enumerate()) < 64                        # no new threads per call
    before = len(threading.enumerate())
    for _ in range(20):
        run_tasks(lambda i: i, [(i,) for i in range(8)], 4)
    assert len(threading.enumerate()) == before
    with pytest.raises(ValueError, match="threads"):
        shared_pool(0)


def test_the_ceiling_chain_is_repeated_montgomery_squaring():
    from cuzklab.native.bench import CHAIN_SEED, ceiling
    from cuzklab.native.pool import ptr
    lib = build.library()
    x = sum(int(v) << (64 * i) for i, v in enumerate(CHAIN_SEED))
    assert x < R
    rinv = pow(2**256, -1, R)
    for _ in range(50):
        x = x * x * rinv % R
    want = 0
    for i in range(4):
        want ^= (x >> (64 * i)) & (2**64 - 1)
    assert lib.fr_chain(ptr(CHAIN_SEED), 50) == want
    rows = ceiling([1, 2], seconds=0.01, repeat=1)
    assert [r["threads"] for r in rows] == [1, 2] and all(r["efficiency"] > 0 for r in rows)


def test_the_bandwidth_ceiling_times_copies_per_thread_count():
    from cuzklab.native.bench import bandwidth_ceiling, copy_gbps
    assert copy_gbps(1, mib_per_thread=1, seconds=0.02) > 0
    rows = bandwidth_ceiling([1, 2], mib_per_thread=1, seconds=0.02, repeat=1)
    assert [r["threads"] for r in rows] == [1, 2]
    assert all(r["gbps"] > 0 and r["efficiency"] > 0 for r in rows)
    with pytest.raises(ValueError, match="count"):
        copy_gbps(0)


def test_pool_threads_are_pinned_as_the_environment_says(monkeypatch):
    import os
    from cuzklab.native import pool
    assert pool.parse_cpus("0-2,5, 7") == [0, 1, 2, 5, 7]
    for bad in ("", "a", "3-1", "-1"):
        with pytest.raises(ValueError, match="CUZKLAB_NATIVE_CPUS"):
            pool.parse_cpus(bad)
    monkeypatch.delenv(pool.CPUS_ENV, raising=False)
    assert pool.pinned_cpus() is None
    allowed = sorted(os.sched_getaffinity(0))
    monkeypatch.setenv(pool.CPUS_ENV, str(allowed[-1]))
    p = pool.new_pool(2, "pin-test")
    try:
        got = set(p.map(lambda _: frozenset(os.sched_getaffinity(0)), range(8)))
    finally:
        p.shutdown()
    assert got == {frozenset({allowed[-1]})}
    monkeypatch.setenv(pool.CPUS_ENV, str(max(allowed) + 1000))
    with pytest.raises(ValueError, match="not one this process may run on"):
        pool.pinned_cpus()


def _native_threads() -> int:
    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_native_pool_owns_its_threads_and_stops_them():
    import gc
    from cuzklab.native.pool import NativePool, native_pool
    gc.collect()                                       # pools dropped earlier stop their threads now
    before = _native_threads()
    pool = NativePool(3, "test")
    assert _native_threads() == before + 3            # native threads, not Python ones
    assert not any(t.name.startswith("test") for t in threading.enumerate())
    pool.shutdown()
    pool.shutdown()                                    # a second shutdown is a no-op
    assert _native_threads() == before
    assert native_pool(2) is native_pool(2) and native_pool(3) is not native_pool(2)
    with pytest.raises(ValueError, match="threads"):
        NativePool(0)


def test_concurrent_batches_share_a_native_pool_and_each_gets_its_own_result(monkeypatch):
    # four callers at once queue their MatVecs on one pool of 2 threads (the live
    # executor's syntheses on its MatVec pool): every batch completes, each with its rows
    import cuzklab.native.synthesis as NS
    from cuzklab.groth16.matvec import matvec
    from cuzklab.native.pool import NativePool
    monkeypatch.setattr(NS, "MIN_ROWS", 16)
    rng = np.random.default_rng(5)
    ni, na, rows = 3, 300, 2000
    cases = []
    for _ in range(4):
        inputs, aux = _random_scalars(rng, ni, 0.3, 0.3), _random_scalars(rng, na, 0.3, 0.3)
        z = concat([Fr.from_mont_limbs(inputs, check=False), Fr.from_mont_limbs(aux, check=False)])
        m = _random_ell(rng, rows, 3, ni + na)
        cases.append((inputs, aux, m, matvec(m, z).limbs))
    pool = NativePool(2, "test-share")
    outs = [np.zeros((rows, 8), dtype=np.uint32) for _ in cases]

    def one(i):
        inputs, aux, m, _ = cases[i]
        NS.matvecs_into([(m.cols, m.coeffs.limbs)], rows, inputs, aux, [outs[i]], threads=2,
                        pool=pool)
    try:
        ts = [threading.Thread(target=one, args=(i,)) for i in range(len(cases))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    finally:
        pool.shutdown()
    for o, (*_, want) in zip(outs, cases):
        assert np.array_equal(o, want)


def test_a_native_pool_batch_leaves_the_gil_to_other_threads(program):
    # while a MatVec runs on the native pool, a Python thread keeps running: the pool's
    # threads never take the interpreter's lock
    from cuzklab.native.pool import NativePool
    w = program.witness(program.inputs_for(4))
    want = native_domain_vectors(program.r1cs, w, threads=1)
    pool = NativePool(2, "test-gil")
    ticks, stop = [0], threading.Event()

    def spin():
        while not stop.is_set():
            ticks[0] += 1
    t = threading.Thread(target=spin)
    t.start()
    try:
        got = native_domain_vectors(program.r1cs, w, threads=2, pool=pool)
    finally:
        stop.set()
        t.join()
        pool.shutdown()
    assert all(g.equals(x) for g, x in zip(got, want))
    assert ticks[0] > 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_process_starts_native_pools_of_its_own(program):
    # the parent's pool threads do not exist in a forked child: native_pool gives the
    # child a new pool, and the parent's own pool objects say so instead of hanging
    from cuzklab.native.pool import NativePool, native_pool
    w = program.witness(program.inputs_for(6))
    want = native_domain_vectors(program.r1cs, w, threads=1)
    native_domain_vectors(program.r1cs, w, threads=2)        # the parent's pool of 2 exists
    mine = NativePool(2, "test-parent")
    r, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: one byte, 1 if every check held
        ok = 0
        try:
            got = native_domain_vectors(program.r1cs, w, threads=2)
            same = all(g.equals(x) for g, x in zip(got, want))
            try:
                mine.handle
                stale = False
            except RuntimeError:
                stale = True
            ok = int(same and stale)
        finally:
            os.write(wfd, bytes([ok]))
            os._exit(0)
    os.close(wfd)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    mine.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        mine.handle
    assert got == b"\x01"
    assert native_pool(2).handle                               # the parent's pool still works
