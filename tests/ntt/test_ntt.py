"""NTT: against naive O(n^2) evaluation, round trips, orders, CPU/GPU equality."""

from __future__ import annotations

import random

import numpy as np
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


def test_natural_plans_by_size(monkeypatch):
    """The natural-order plans the GPU runs: the swept rule from 2^20, the earlier ones below."""
    from cuzklab.ntt import gpu
    for k in range(20, 28):
        passes, cols = gpu.natural_plan(k)
        bits = sorted(b for p in passes for b in range(p.lo, p.lo + p.b))
        assert bits == list(range(k)) and cols == gpu.NATURAL_LAST_COLS == 1
        assert passes[-1].lo == 0 and passes[-1].b == gpu.NATURAL_LOW_BITS == 8
        assert all(p.tile <= 1 << gpu.NATURAL_TILE_BITS for p in passes[:-1])
        assert gpu._elems_per_thread(k <= gpu.RADIX2_MAX_LOG2) == 4  # one thread per radix-4 unit
    assert len(gpu.natural_plan(24)[0]) == 3 and len(gpu.natural_plan(27)[0]) == 4
    assert gpu.natural_plan(28)[1] == 0 and gpu.natural_plan(28)[0][-1].b == plan_mod.LOW_BITS
    for k in (10, 14, 15):  # radix-2 sizes without a plan of their own: full tiles, 4 rows
        passes, cols = gpu.natural_plan(k)
        assert cols == gpu.RADIX2_LAST_COLS == 2 and passes[-1].b == 8
        assert gpu._elems_per_thread(True) == 2
    assert gpu.natural_plan(16) == (tuple(plan_mod.plan_passes(16, low_bits=8, tile_bits=9)), 0)
    # a smaller plan.TILE_BITS (the tests' tiny plans) bounds the natural tiles too
    monkeypatch.setattr(plan_mod, "TILE_BITS", 4)
    monkeypatch.setattr(plan_mod, "UPPER_BITS", 2)
    assert all(p.tile <= 16 for p in gpu.natural_plan(22)[0][:-1])
    assert len(gpu.natural_plan(22)[0]) == 8
    monkeypatch.setattr(gpu, "ELEMS_PER_THREAD", 2)
    assert gpu._elems_per_thread(False) == 2


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


class _FakeCuda:
    """Just enough of CuPy for the graph bookkeeping of ``ntt.gpu`` (no kernels)."""

    class OutOfMemoryError(Exception):
        pass

    def __init__(self, log):
        import types
        self.log, self.current, self.fail_capture, self.oom = log, None, False, False
        self.memory = types.SimpleNamespace(OutOfMemoryError=self.OutOfMemoryError)
        fake = self

        class Stream:
            count = 0

            def __init__(self, non_blocking=False):
                Stream.count += 1
                self.ptr, self.capturing = 1000 + Stream.count, False

            def __enter__(self):
                self.prev, fake.current = fake.current, self
                return self

            def __exit__(self, *exc):
                fake.current = self.prev

            def begin_capture(self):
                if fake.fail_capture:
                    raise RuntimeError("no capture")
                self.capturing = True

            def end_capture(self):
                self.capturing = False
                return Graph()

        class Graph:
            def launch(self, stream):
                fake.log.append(("replay", stream.ptr))

        self.Stream, self.main = Stream, Stream()
        self.current = self.main

    def get_current_stream(self):
        return self.current

    def Device(self):
        import types
        return types.SimpleNamespace(id=0)


class _FakeArray:
    def __init__(self, ptr, n):
        import types
        self.data = types.SimpleNamespace(ptr=ptr, device_id=0)
        self.shape, self.dtype = (n, 8), np.uint32
        self.flags = types.SimpleNamespace(c_contiguous=True)


def test_graph_bookkeeping(monkeypatch):
    """Plain launches first, recording on the second call, replays after; scratch shared per size and stream."""
    import types
    from cuzklab.ntt import gpu
    log = []
    cuda = _FakeCuda(log)
    made = []

    def empty_like(x):
        if cuda.oom:
            raise cuda.OutOfMemoryError()
        made.append(x.shape)
        return ("scratch", len(made))
    fake = types.SimpleNamespace(cuda=cuda, uint32=np.uint32, empty_like=empty_like)
    monkeypatch.setattr(gpu, "xp", lambda backend: fake)
    monkeypatch.setattr(gpu, "_factors", lambda *a: (None, None, None))
    monkeypatch.setattr(gpu, "gpu_twiddles", lambda k: types.SimpleNamespace(limbs="W"))

    def dif(x, log_n, **kw):
        log.append(("capture" if cuda.current.capturing else "run", x.data.ptr, kw.get("scratch")))
    monkeypatch.setattr(gpu, "dif_inplace", dif)
    gpu.clear_graphs()
    x, y = _FakeArray(1, 1 << 10), _FakeArray(2, 1 << 10)

    def call(a, **kw):
        log.clear()
        gpu.transform_inplace(a, 10, **{"inverse": False, "coset": False, **kw})
        return list(log)
    assert call(x) == [("run", 1, None)]                       # first: plain launches
    assert call(x) == [("run", 1, ("scratch", 1)), ("capture", 1, ("scratch", 1))]
    assert call(x) == [("replay", cuda.main.ptr)] and gpu.graph_count() == 1
    call(x, inverse=True)
    assert call(x, inverse=True)[1] == ("capture", 1, ("scratch", 1))  # same size and stream: one scratch
    assert call(x, natural_output=False)[0][2] is None
    call(x, natural_output=False)
    assert call(x, natural_output=False) == [("replay", cuda.main.ptr)]
    with cuda.Stream() as s:                                   # another stream: a scratch of its own
        call(x)
        assert call(x)[1] == ("capture", 1, ("scratch", 2))
        assert call(x) == [("replay", s.ptr)]
    assert len(made) == 2 and gpu.graph_count() == 4
    # a size above GRAPH_MAX_LOG2, or a non-contiguous array, never records
    monkeypatch.setattr(gpu, "GRAPH_MAX_LOG2", 9)
    assert call(y) == call(y) == call(y) == [("run", 2, None)]
    monkeypatch.setattr(gpu, "GRAPH_MAX_LOG2", 20)
    # a failed capture leaves plain launches for that key
    cuda.fail_capture = True
    call(y)
    call(y)
    cuda.fail_capture = False
    assert call(y) == call(y) == [("run", 2, None)] and gpu.graph_count() == 4
    # no memory for a scratch: plain launches
    gpu.clear_graphs()
    cuda.oom = True
    call(x)
    assert call(x) == [("run", 1, None)] and gpu.graph_count() == 0
    cuda.oom = False
    # the least recently used graphs go first
    monkeypatch.setattr(gpu, "GRAPH_CACHE", 2)
    for inverse, coset in ((False, False), (True, False), (False, True)):
        call(x, inverse=inverse, coset=coset)
        call(x, inverse=inverse, coset=coset)
    assert gpu.graph_count() == 2
    assert call(x, inverse=False, coset=False) == [("run", 1, None)]  # dropped: seen once more
    gpu.clear_graphs()


def test_kernel_settings_parse():
    from cuzklab.ntt import gpu
    assert gpu.parse_defines("") == {}
    assert gpu.parse_defines("NTT_TWF64=1, NTT_MINB=2") == {"NTT_TWF64": 1, "NTT_MINB": 2}
    for bad in ("NTT_TWF64", "=1", "NTT_TWF64=x", "1A=2"):
        with pytest.raises(ValueError):
            gpu.parse_defines(bad)


@pytest.mark.gpu
@pytest.mark.parametrize("defines", [{"CUZK_FR_MUL_EO": 0}, {"CUZK_FR_MUL_EO": 0, "NTT_TWF64": 1},
                                     {"CUZK_FR_MUL_EO": 1, "NTT_MINB": 2},
                                     {"CUZK_FR_MUL_EO": 1, "NTT_MAXT": 512, "NTT_MINB": 1},
                                     {"CUZK_FR_MUL_EO": 1, "CUZK_EO_LOWWORDS": 0},
                                     {"CUZK_FR_MUL_EO": 1, "CUZK_EO_LOWWORDS": 1},
                                     {"CUZK_FR_MUL_EO": 1, "CUZK_SUB_MAD": 1},
                                     {"CUZK_FR_MUL_EO": 1, "NTT_LAZY_SUB": 0}])
@pytest.mark.parametrize("radix2", [False, True])
def test_gpu_kernel_settings_match_cpu(tiny_plan, monkeypatch, defines, radix2):
    """Every kernel build setting gives the CPU path's results (multi-pass plans, both stage kinds)."""
    from cuzklab.ntt import cpu, gpu
    monkeypatch.setattr(gpu, "KERNEL_DEFINES", dict(defines))
    monkeypatch.setattr(gpu, "RADIX2_MAX_LOG2", 27 if radix2 else 0)
    for k in (3, 10, 13):
        a = Fr.random(1 << k, 70 + k)
        g = a.to("gpu")
        for fn in (ntt, intt, coset_ntt, coset_intt):
            assert fn(g).to("cpu").equals(fn(a)), (defines, k, fn.__name__)
        for inverse in (False, True):
            assert gpu.dit(g, inverse=inverse).to("cpu").equals(cpu.dit(a, inverse=inverse))
    monkeypatch.setattr(gpu, "RADIX2_MAX_LOG2", 0)
    a = Fr.random(1 << 16, 7)
    assert ntt(a.to("gpu")).to("cpu").equals(ntt(a)) and coset_intt(a.to("gpu")).to("cpu").equals(coset_intt(a))


def test_gpu_bench_warms_up_past_the_first_graph_replays(monkeypatch):
    # the timed calls of a graph-replayed size come after GRAPH_WARM_REPLAYS untimed replays
    from cuzklab.ntt import bench, gpu
    monkeypatch.setattr(gpu, "GRAPHS", True)
    monkeypatch.setattr(bench, "GRAPH_WARM_REPLAYS", 2)
    assert bench.warmup_calls(16) == bench.warmup_calls(gpu.GRAPH_MAX_LOG2) == 4
    assert bench.warmup_calls(gpu.GRAPH_MAX_LOG2 + 1) == 2
    monkeypatch.setattr(gpu, "GRAPHS", False)
    assert bench.warmup_calls(16) == 2
