// Fixed-base scalar multiplication [k_i] G for the Groth16 setup, one thread
// per scalar, on the curve's device formulas (cuzk_ec.cuh). The table holds
// T[w * 256 + d] = d * 2^(8w) * G as affine points (d = 0 is infinity), so a
// 255-bit scalar costs at most 32 mixed additions and one inversion.
#include "cuzk_ec.cuh"
using namespace cuzk;

template <class C>
__device__ __forceinline__ void fixed_base(const u32* scalars, const u32* tx, const u32* ty,
                                           u32* ox, u32* oy, long long n)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    xyzz<C> acc = xyzz_inf<C>();
    const u32* k = scalars + 8 * (usize)i;   // canonical little-endian limbs
#pragma unroll 1
    for (int w = 0; w < 32; ++w) {
        const u32 d = (k[w >> 2] >> (8 * (w & 3))) & 0xffu;
        if (d) acc = xyzz_add_mixed(acc, affine_load<C>(tx, ty, (usize)w * 256 + d));
    }
    affine<C> r = xyzz_to_affine(acc);
    C::store(ox, (usize)i, r.x);
    C::store(oy, (usize)i, r.y);
}

extern "C" __global__ void fixed_base_g1(const u32* scalars, const u32* tx, const u32* ty,
                                         u32* ox, u32* oy, long long n)
{
    fixed_base<G1>(scalars, tx, ty, ox, oy, n);
}

extern "C" __global__ void fixed_base_g2(const u32* scalars, const u32* tx, const u32* ty,
                                         u32* ox, u32* oy, long long n)
{
    fixed_base<G2>(scalars, tx, ty, ox, oy, n);
}
