"""GPU results are bit-identical to the CPU path; kernels built by others through load_module work."""

import numpy as np
import pytest

from cuzklab.field import Fp, Fr

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("cls", [Fr, Fp], ids=["Fr", "Fp"])
@pytest.mark.parametrize("n", [1, 2, 31, 32, 33, 1000, 4099])
def test_bitwise_agreement(cls, n):
    a = cls.random(n, 100 + n)
    b = cls.random(n, 200 + n)
    ga, gb = a.to("gpu"), b.to("gpu")
    ops = [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x.square(),
           lambda x, y: -x, lambda x, y: x.inverse(), lambda x, y: x ** 0xdeadbeefcafe,
           lambda x, y: x * y[0]]
    for op in ops:
        c, g = op(a, b), op(ga, gb)
        assert g.backend == "gpu"
        assert c.limbs.tobytes() == g.limbs.get().tobytes()
    assert ga.to_ints() == a.to_ints()
    assert ga.to_bytes() == a.to_bytes()
    assert np.array_equal(ga.to_canonical_limbs().get(), a.to_canonical_limbs())


@pytest.mark.parametrize("cls", [Fr, Fp], ids=["Fr", "Fp"])
def test_inverse_chunk_sizes(cls):
    from cuzklab.field import _gpu
    a = cls.random(257, 5)
    ref = a.inverse().limbs
    for chunk in (1, 2, 7, 32, 300):
        assert _gpu.inverse(a.to("gpu").limbs, cls.FC, chunk=chunk).get().tobytes() == ref.tobytes()


@pytest.mark.parametrize("cls", [Fr, Fp], ids=["Fr", "Fp"])
def test_mul_chain_kernel(cls):
    from cuzklab.field import _gpu
    x, y = cls.random(64, 1), cls.random(64, 2)
    got = _gpu.mul_chain(x.to("gpu").limbs, y.to("gpu").limbs, 37, cls.FC).get()
    assert got.tobytes() == (x * y ** 37).limbs.tobytes()


def test_load_module_custom_kernel():
    import cupy as cp

    from cuzklab.field.cuda import include_dir, load_module
    src = r'''
    #include "cuzk_field.cuh"
    using namespace cuzk;
    template <class F>
    __global__ void fma_k(u32* out, const u32* a, const u32* b, const u32* c, usize n) {
      usize i = blockIdx.x * (usize)blockDim.x + threadIdx.x;
      if (i >= n) return;
      fe<F> r = load<F>(a, i) * load<F>(b, i) + load<F>(c, i);
      r = r - one<F>() + one<F>();
      if (r != load<F>(c, i) || is_zero(r)) r = dbl(r) - r;
      store<F>(out, i, r);
    }
    extern "C" __global__ void inv_fp(u32* out, const u32* a, usize n) {
      usize i = blockIdx.x * (usize)blockDim.x + threadIdx.x;
      if (i >= n) return;
      fp_t x = load_unaligned<FpTraits>(a + 12 * i);
      store_unaligned<FpTraits>(out + 12 * i, inverse(x) * to_mont(from_mont(x)));
    }
    '''
    assert include_dir().endswith("cuda")
    names = ("fma_k<cuzk::FrTraits>", "fma_k<cuzk::FpTraits>")
    mod = load_module(src, names)
    assert load_module(src, names) is mod  # cached
    for cls, name in ((Fr, names[0]), (Fp, names[1])):
        n = 1000
        a, b, c = (cls.random(n, s).to("gpu") for s in (1, 2, 3))
        out = cp.empty_like(a.limbs)
        mod.get_function(name)(((n + 127) // 128,), (128,), (out, a.limbs, b.limbs, c.limbs, np.uint64(n)))
        assert cls.from_mont_limbs(out).equals(a * b + c)
    a = Fp.random(100, 4).to("gpu")
    out = cp.empty_like(a.limbs)
    mod.get_function("inv_fp")((1,), (128,), (out, a.limbs, np.uint64(100)))
    assert Fp.from_mont_limbs(out).to_ints() == [1] * 100


@pytest.mark.parametrize("cls", [Fr, Fp], ids=["Fr", "Fp"])
def test_limbs_cross_backend_wrapping(cls):
    a = cls.random(10, 3, "gpu")
    c = cls.from_mont_limbs(a.limbs, backend="cpu")
    assert c.backend == "cpu" and c.to_ints() == a.to_ints()
    assert cls.from_canonical_limbs(a.to_canonical_limbs(), backend="cpu").equals(c)
    g = cls.from_mont_limbs(c.limbs, backend="gpu")
    assert g.backend == "gpu" and g.equals(a)
