// Benchmark inputs: n distinct points P_i = T[a] + T[T + b] + T[2T + c] for the
// base-T digits (a, b, c) of i, from a table of 3T affine points
// (T[k] = (k + 1) R_1, T[T + k] = (k + 1) R_2, T[2T + k] = (k + 1) R_3 with
// independent random R_j), normalized to affine with one inversion each.
#include "cuzk_ec.cuh"
using namespace cuzk;

template <class C>
__global__ void msm_bench_points(const u32* tx, const u32* ty, u32 tbits, u32 n, u32* ox, u32* oy) {
  const usize i = blockIdx.x * (usize)blockDim.x + threadIdx.x;
  if (i >= n) return;
  const u32 T = 1u << tbits, mask = T - 1;
  const u32 a = (u32)i & mask, b = ((u32)i >> tbits) & mask, c = ((u32)i >> (2 * tbits)) & mask;
  xyzz<C> acc = xyzz_from_affine(affine_load<C>(tx, ty, a));
  acc = xyzz_add_mixed(acc, affine_load<C>(tx, ty, T + b));
  acc = xyzz_add_mixed(acc, affine_load<C>(tx, ty, 2 * T + c));
  const affine<C> r = xyzz_to_affine(acc);
  C::store(ox, i, r.x);
  C::store(oy, i, r.y);
}
