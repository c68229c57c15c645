"""NTT: against naive O(n^2) evaluation, round trips, orders, CPU/GPU equality."""

from __future__ import annotations

import random

import pytest

from cuzklab.field import Fr
from cuzklab.field.constants import R
from cuzklab.ntt import (Direction, Domain, Order, coset_intt, coset_ntt, intt, ntt,
                         transform)
from cuzklab.ntt import plan as plan_mod
from cuzklab.ntt.reference import naive_intt, naive_ntt


def _rand(n, seed):
    rnd = random.Random(seed)
    return [rnd.randrange(R) for _ in range(n)]


def _bitrev(xs):
    k = len(xs).bit_length() - 1
    return [xs[int(format(i, f"0{k}b")[::-1], 2) if k else 0] for i in range(len(xs))]


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4, 6, 8])
def test_against_naive(backend, k):
    xs = _rand(1 << k, k)
    a = Fr.from_ints(xs, backend=backend)
    assert ntt(a).to_ints() == naive_ntt(xs)
    assert intt(a).to_ints() == naive_intt(xs)
    assert coset_ntt(a).to_ints() == naive_ntt(xs, coset=True)
    assert coset_intt(a).to_ints() == naive_intt(xs, coset=True)


def test_edge_values(backend):
    n = 16
    for xs in ([0] * n, [1] + [0] * (n - 1), [R - 1] * n, [1] * n):
        a = Fr.from_ints(xs, backend=backend)
        assert ntt(a).to_ints() == naive_ntt(xs)
        assert coset_intt(a).to_ints() == naive_intt(xs, coset=True)


def test_delta_and_constant():
    n = 32
    assert ntt(Fr.from_ints([1] + [0] * (n - 1))).to_ints() == [1] * n
    assert intt(Fr.from_ints([5] * n)).to_ints() == [5] + [0] * (n - 1)


@pytest.fixture
def tiny_plan(monkeypatch):
    """Force many passes at small sizes, so multi-pass code runs against the oracle."""
    monkeypatch.setattr(plan_mod, "LOW_BITS", 3)
    monkeypatch.setattr(plan_mod, "UPPER_BITS", 2)
    monkeypatch.setattr(plan_mod, "TILE_BITS", 4)


@pytest.mark.parametrize("k", [4, 5, 7, 8])
def test_multi_pass_against_naive(backend, tiny_plan, k):
    assert len(plan_mod.plan_passes(k)) >= 2
    xs = _rand(1 << k, 100 + k)
    a = Fr.from_ints(xs, backend=backend)
    assert ntt(a).to_ints() == naive_ntt(xs)
    assert coset_intt(a).to_ints() == naive_intt(xs, coset=True)


@pytest.mark.parametrize("k", [5, 8])
def test_orders(backend, tiny_plan, k):
    xs = _rand(1 << k, 7)
    a = Fr.from_ints(xs, backend=backend)
    a_rev = Fr.from_ints(_bitrev(xs), backend=backend)
    want = naive_ntt(xs, coset=True)
    y = transform(a, coset=True, output_order=Order.BIT_REVERSED)
    assert y.to_ints() == _bitrev(want)
    assert transform(a_rev, coset=True, input_order=Order.BIT_REVERSED).to_ints() == want
    back = transform(y, direction=Direction.INVERSE, coset=True,
                     input_order=Order.BIT_REVERSED, output_order=Order.BIT_REVERSED)
    assert back.to_ints() == _bitrev(xs)


def test_round_trip_large_cpu():
    a = Fr.random(1 << 14, 3)
    assert intt(ntt(a)).equals(a)
    assert coset_intt(coset_ntt(a)).equals(a)


def test_input_untouched():
    a = Fr.random(64, 4)
    before = a.copy()
    ntt(a), coset_intt(a)
    assert a.equals(before)


def test_plan_covers_every_bit():
    for k in range(0, 33):
        passes = plan_mod.plan_passes(k)
        bits = sorted(b for p in passes for b in range(p.lo, p.lo + p.b))
        assert bits == list(range(k))
        for p in passes:
            assert p.tile <= 1 << plan_mod.TILE_BITS and p.c <= p.lo
        assert [p.lo for p in passes] == sorted((p.lo for p in passes), reverse=True)


def test_bad_input():
    with pytest.raises(ValueError, match="power of two"):
        ntt(Fr.random(12, 1))
    with pytest.raises(TypeError, match="Fr"):
        ntt([1, 2, 3, 4])
    with pytest.raises(TypeError, match="Direction"):
        transform(Fr.random(4, 1), direction="forward")
    with pytest.raises(ValueError, match="log2_size"):
        Domain(33)


def test_domain_constants():
    d = Domain(5)
    assert pow(d.omega, 32, R) == 1 and pow(d.omega, 16, R) != 1
    assert d.omega * d.omega_inv % R == 1
    assert d.vanishing_on_coset() == (pow(7, 32, R) - 1) % R


@pytest.mark.gpu
@pytest.mark.parametrize("k", [12, 16])
@pytest.mark.parametrize("radix2", [False, True])
def test_gpu_matches_cpu(monkeypatch, k, radix2):
    from cuzklab.ntt import cpu, gpu
    monkeypatch.setattr(gpu, "RADIX2_MAX_LOG2", 27 if radix2 else 0)
    a = Fr.random(1 << k, k)
    g = a.to("gpu")
    for fn in (ntt, intt, coset_ntt, coset_intt):
        assert fn(g).to("cpu").equals(fn(a))
    for inverse in (False, True):  # the DIT passes (bit-reversed in, natural out)
        assert gpu.dit(g, inverse=inverse).to("cpu").equals(cpu.dit(a, inverse=inverse))


@pytest.mark.gpu
@pytest.mark.parametrize("k", [20, 24])
def test_gpu_round_trip_large(k):
    a = Fr.random(1 << k, k, backend="gpu")
    assert intt(ntt(a)).equals(a)
    assert coset_intt(coset_ntt(a)).equals(a)


@pytest.mark.gpu
def test_gpu_bench_checks():
    from cuzklab.ntt.bench import bench_ntt
    r = bench_ntt(14, "gpu", coset=True, inverse=True, repeats=2)
    assert r["checked"] and r["median_s"] > 0
    assert r["entries_checked"] == r["entries"] == 4 and r["round_trip"] and r["cpu_check"]


@pytest.mark.gpu
def test_gpu_bench_catches_a_wrong_timed_transform(monkeypatch):
    from cuzklab.ntt import bench, gpu
    # a transform that does nothing passes a round trip through itself
    monkeypatch.setattr(gpu, "transform_inplace", lambda x, log_n, **kw: None)
    r = bench.bench_ntt(12, "gpu", repeats=1)
    assert r["round_trip"] and not r["checked"] and r["entries_checked"] < r["entries"]


@pytest.mark.gpu
@pytest.mark.parametrize("radix2", [False, True])
@pytest.mark.parametrize("k", [1, 3, 8, 11, 13])
@pytest.mark.parametrize("last_cols", [0, 1, 2])
def test_gpu_fused_passes_match_cpu(tiny_plan, monkeypatch, k, last_cols, radix2):
    """The first and last passes carry the coset and 1/n factors and the reversal."""
    from cuzklab.ntt import gpu
    monkeypatch.setattr(gpu, "RADIX2_MAX_LOG2", 27 if radix2 else 0)
    a = Fr.random(1 << k, 50 + k)
    for inverse in (False, True):
        for coset in (False, True):
            d = Direction.INVERSE if inverse else Direction.FORWARD
            for natural in (True, False):
                order = Order.NATURAL if natural else Order.BIT_REVERSED
                want = transform(a, direction=d, coset=coset, output_order=order)
                x = a.to("gpu").limbs.copy()
                n, g = 1 << k, 7
                pre = post = scale = None
                if coset and not inverse:
                    pre = gpu.power_tables(g, n)
                if inverse:
                    n_inv = pow(n, -1, R)
                    if coset:
                        post = gpu.power_tables(pow(g, -1, R), n, n_inv)
                    else:
                        scale = Fr.from_ints([n_inv], backend="gpu").limbs
                gpu.dif_inplace(x, k, inverse=inverse, natural_output=natural, pre_powers=pre,
                                post_powers=post, scale=scale, last_cols=last_cols)
                got = Fr.from_mont_limbs(x, check=False).to("cpu")
                assert got.equals(want), (inverse, coset, natural)


@pytest.mark.gpu
def test_gpu_natural_output_without_scratch_memory(monkeypatch):
    """With no memory for the scratch array the passes run in place, then a bit reversal."""
    import cupy
    a = Fr.random(1 << 13, 9)
    want = coset_intt(a)

    def no_memory(*args, **kwargs):
        raise cupy.cuda.memory.OutOfMemoryError(1 << 30, 0, 0)

    monkeypatch.setattr(cupy, "empty_like", no_memory)
    assert coset_intt(a.to("gpu")).to("cpu").equals(want)


@pytest.mark.parametrize("inverse,coset", [(False, False), (True, True)])
def test_transform_entries_match_the_naive_oracle(inverse, coset):
    from cuzklab.ntt import reference
    a = Fr.random(8, 5)
    naive = reference.naive_intt if inverse else reference.naive_ntt
    assert reference.transform_entries(a, range(8), inverse=inverse, coset=coset) == naive(a.to_ints(), coset=coset)
    with pytest.raises(ValueError, match="indices: 8 is outside"):
        reference.transform_entries(a, [8])


def test_bench_checks_the_timed_output_not_only_a_round_trip(monkeypatch):
    from cuzklab.ntt import bench
    assert bench.bench_ntt(6, "cpu", coset=True, repeats=1)["checked"] is True
    # a "transform" that returns its input survives a round trip; the entry check catches it
    monkeypatch.setattr(bench, "transform", lambda a, **kw: a)
    r = bench.bench_ntt(6, "cpu", repeats=1)
    assert r["checked"] is False and r["entries_checked"] < r["entries"] == 4


@pytest.mark.gpu
@pytest.mark.parametrize("k", [1, 9, 13, 16])
def test_gpu_graph_replays_match_plain_launches(monkeypatch, k):
    """Recorded transform graphs give the plain launches' results, also once the caches drop the tables."""
    import cupy
    from cuzklab.ntt import gpu
    gpu.clear_graphs()
    a = Fr.random(1 << k, 50 + k, backend="gpu")
    variants = [(False, False, True), (True, False, True), (False, True, True), (True, True, True),
                (True, True, False), (False, False, False)]
    monkeypatch.setattr(gpu, "GRAPHS", False)
    want = {}
    for inverse, coset, natural in variants:
        x = a.limbs.copy()
        gpu.transform_inplace(x, k, inverse=inverse, coset=coset, natural_output=natural)
        want[inverse, coset, natural] = x
    monkeypatch.setattr(gpu, "GRAPHS", True)
    x = cupy.empty_like(a.limbs)
    for rnd in range(4):
        if rnd == 3:  # the graphs must keep their own tables alive
            gpu.gpu_twiddles.cache_clear()
            gpu._power_tables.cache_clear()
            gpu._factors.cache_clear()
            gpu._constant.cache_clear()
            cupy.get_default_memory_pool().free_all_blocks()
        for inverse, coset, natural in variants:
            x[...] = a.limbs
            gpu.transform_inplace(x, k, inverse=inverse, coset=coset, natural_output=natural)
            assert bool((x == want[inverse, coset, natural]).all()), (rnd, inverse, coset, natural)
    assert gpu.graph_count() == len(variants)
    # another stream records graphs of its own; results equal
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        for _ in range(3):
            x[...] = a.limbs
            gpu.transform_inplace(x, k, inverse=True, coset=True, natural_output=True)
        s.synchronize()
    assert bool((x == want[True, True, True]).all())
    assert gpu.graph_count() == len(variants) + 1
    gpu.clear_graphs()
    assert gpu.graph_count() == 0


@pytest.mark.gpu
def test_gpu_graphs_leave_large_transforms_and_other_plans_alone(monkeypatch, tiny_plan):
    from cuzklab.ntt import gpu
    gpu.clear_graphs()
    monkeypatch.setattr(gpu, "GRAPH_MAX_LOG2", 8)
    a = Fr.random(1 << 9, 3)
    g = a.to("gpu")
    for _ in range(3):
        assert coset_intt(g).to("cpu").equals(coset_intt(a))
    assert gpu.graph_count() == 0
    # a plan setting changed between calls is a different graph
    monkeypatch.setattr(gpu, "GRAPH_MAX_LOG2", 20)
    x = g.limbs.copy()
    for tb in (4, 4, 4, 5, 5, 5):
        monkeypatch.setattr(plan_mod, "TILE_BITS", tb)
        x[...] = g.limbs
        gpu.transform_inplace(x, 9, inverse=False, coset=True)
        assert Fr.from_mont_limbs(x, check=False).to("cpu").equals(coset_ntt(a))
    assert gpu.graph_count() == 2
    gpu.clear_graphs()
