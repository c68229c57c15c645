// Fp2 = Fp[u]/(u^2 + 1) on top of cuzk_mont.cuh. Element c0 + c1*u, stored as
// 24 consecutive u32 words: c0 (12 limbs) then c1 (12 limbs), Montgomery form.
#pragma once
#include "cuzk_mont.cuh"

namespace cuzk {

struct fp2_t {
  fp_t c0, c1;
};

__device__ __forceinline__ fp2_t fp2_make(const fp_t& c0, const fp_t& c1) { fp2_t r; r.c0 = c0; r.c1 = c1; return r; }
__device__ __forceinline__ fp2_t fp2_zero() { return fp2_make(zero<FpTraits>(), zero<FpTraits>()); }
__device__ __forceinline__ fp2_t fp2_one() { return fp2_make(one<FpTraits>(), zero<FpTraits>()); }
__device__ __forceinline__ bool fp2_is_zero(const fp2_t& a) { return is_zero(a.c0) && is_zero(a.c1); }
__device__ __forceinline__ bool fp2_eq(const fp2_t& a, const fp2_t& b) { return eq(a.c0, b.c0) && eq(a.c1, b.c1); }
__device__ __forceinline__ fp2_t fp2_add(const fp2_t& a, const fp2_t& b) { return fp2_make(add(a.c0, b.c0), add(a.c1, b.c1)); }
__device__ __forceinline__ fp2_t fp2_sub(const fp2_t& a, const fp2_t& b) { return fp2_make(sub(a.c0, b.c0), sub(a.c1, b.c1)); }
__device__ __forceinline__ fp2_t fp2_dbl(const fp2_t& a) { return fp2_make(dbl(a.c0), dbl(a.c1)); }
__device__ __forceinline__ fp2_t fp2_neg(const fp2_t& a) { return fp2_make(neg(a.c0), neg(a.c1)); }
__device__ __forceinline__ fp2_t fp2_conj(const fp2_t& a) { return fp2_make(a.c0, neg(a.c1)); }
__device__ __forceinline__ fp2_t fp2_mul_by_fp(const fp2_t& a, const fp_t& b) { return fp2_make(mont_mul(a.c0, b), mont_mul(a.c1, b)); }

// Karatsuba: 3 Fp multiplications.
__device__ __forceinline__ fp2_t fp2_mul(const fp2_t& a, const fp2_t& b) {
  fp_t t0 = mont_mul(a.c0, b.c0);
  fp_t t1 = mont_mul(a.c1, b.c1);
  fp_t t2 = mont_mul(add(a.c0, a.c1), add(b.c0, b.c1));
  return fp2_make(sub(t0, t1), sub(sub(t2, t0), t1));
}

// (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 Fp multiplications.
__device__ __forceinline__ fp2_t fp2_sqr(const fp2_t& a) {
  fp_t t0 = mont_mul(add(a.c0, a.c1), sub(a.c0, a.c1));
  fp_t t1 = mont_mul(a.c0, a.c1);
  return fp2_make(t0, dbl(t1));
}

// Multiply by the Fp6 non-residue 1 + u: (c0 - c1) + (c0 + c1) u.
__device__ __forceinline__ fp2_t fp2_mul_by_nonresidue(const fp2_t& a) {
  return fp2_make(sub(a.c0, a.c1), add(a.c0, a.c1));
}

// 1 / (c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2); returns 0 for 0.
__device__ __forceinline__ fp2_t fp2_inverse(const fp2_t& a) {
  fp_t t = inverse(add(mont_sqr(a.c0), mont_sqr(a.c1)));
  return fp2_make(mont_mul(a.c0, t), neg(mont_mul(a.c1, t)));
}

__device__ __forceinline__ fp2_t fp2_pow(const fp2_t& a, const u32* e, int nbits) {
  fp2_t r = fp2_one();
  for (int k = nbits - 1; k >= 0; k--) {
    r = fp2_sqr(r);
    if ((e[k >> 5] >> (k & 31)) & 1u) r = fp2_mul(r, a);
  }
  return r;
}

// Element i of a C-contiguous (n, 2, 12) u32 array (16-byte aligned base).
__device__ __forceinline__ fp2_t fp2_load(const u32* base, usize i) {
  return fp2_make(load<FpTraits>(base, 2 * i), load<FpTraits>(base, 2 * i + 1));
}
__device__ __forceinline__ void fp2_store(u32* base, usize i, const fp2_t& a) {
  store<FpTraits>(base, 2 * i, a.c0);
  store<FpTraits>(base, 2 * i + 1, a.c1);
}

__device__ __forceinline__ fp2_t operator+(const fp2_t& a, const fp2_t& b) { return fp2_add(a, b); }
__device__ __forceinline__ fp2_t operator-(const fp2_t& a, const fp2_t& b) { return fp2_sub(a, b); }
__device__ __forceinline__ fp2_t operator*(const fp2_t& a, const fp2_t& b) { return fp2_mul(a, b); }
__device__ __forceinline__ fp2_t operator-(const fp2_t& a) { return fp2_neg(a); }
__device__ __forceinline__ bool operator==(const fp2_t& a, const fp2_t& b) { return fp2_eq(a, b); }
__device__ __forceinline__ bool operator!=(const fp2_t& a, const fp2_t& b) { return !fp2_eq(a, b); }

}  // namespace cuzk
