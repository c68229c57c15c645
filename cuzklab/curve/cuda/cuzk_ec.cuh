// BLS12-381 G1/G2 point arithmetic on the device, on top of cuzk_field.cuh.
// A curve is a traits struct (G1, G2) naming its coordinate field F and how to
// load/store a coordinate; points are affine<C> (infinity = (0, 0)) and xyzz<C>
// (x = X/ZZ, y = Y/ZZZ, infinity when ZZ = 0). Formulas: EFD short Weierstrass
// a = 0, madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s-1, with the
// doubling and infinity cases branched on (they are rare in an MSM).
#pragma once
#include "cuzk_field.cuh"

namespace cuzk {

// ---- field adaptor: the same names for Fp and Fp2 ----
__device__ __forceinline__ fp_t f_dbl(const fp_t& a) { return dbl<FpTraits>(a); }
__device__ __forceinline__ fp2_t f_dbl(const fp2_t& a) { return fp2_dbl(a); }
__device__ __forceinline__ bool f_is_zero(const fp_t& a) { return is_zero<FpTraits>(a); }
__device__ __forceinline__ bool f_is_zero(const fp2_t& a) { return fp2_is_zero(a); }
__device__ __forceinline__ fp_t f_inverse(const fp_t& a) { return inverse<FpTraits>(a); }
__device__ __forceinline__ fp2_t f_inverse(const fp2_t& a) { return fp2_inverse(a); }
// The same inverses by the binary GCD (inverse_bgcd: same results, a fraction of
// the Fermat inverse's work), out of line: its registers are not live in the
// caller's loops.
__device__ __noinline__ fp_t fp_inverse_bgcd_ool(const fp_t a) { return inverse_bgcd<FpTraits>(a); }
__device__ __forceinline__ fp_t f_inverse_fast(const fp_t& a) { return fp_inverse_bgcd_ool(a); }
__device__ __forceinline__ fp2_t f_inverse_fast(const fp2_t& a) {
  fp_t t = fp_inverse_bgcd_ool(add(mont_sqr(a.c0), mont_sqr(a.c1)));
  return fp2_make(mont_mul(a.c0, t), neg(mont_mul(a.c1, t)));
}

// Out-of-line multiplications: a kernel that calls these holds one copy of the
// multiplier instead of one per call site, which keeps compile times and
// register pressure of the colder kernels (and of everything in G2) down.
__device__ __noinline__ fp_t fp_mul_ool(const fp_t a, const fp_t b) { return mont_mul<FpTraits>(a, b); }
__device__ __noinline__ fp_t fp_sqr_ool(const fp_t a) { return mont_sqr<FpTraits>(a); }
__device__ __noinline__ fp2_t fp2_mul_ool(const fp2_t a, const fp2_t b) { return fp2_mul(a, b); }
__device__ __noinline__ fp2_t fp2_sqr_ool(const fp2_t a) { return fp2_sqr(a); }

// G1 with inline multiplications: the hot loop of the MSM.
struct G1 {
  typedef fp_t F;
  static constexpr int WORDS = 12;  // u32 words per coordinate
  __device__ __forceinline__ static F load(const u32* base, usize i) { return cuzk::load<FpTraits>(base, i); }
  __device__ __forceinline__ static void store(u32* base, usize i, const F& a) { cuzk::store<FpTraits>(base, i, a); }
  __device__ __forceinline__ static F zero() { return cuzk::zero<FpTraits>(); }
  __device__ __forceinline__ static F one() { return cuzk::one<FpTraits>(); }
  __device__ __forceinline__ static F mul(const F& a, const F& b) { return mont_mul<FpTraits>(a, b); }
  __device__ __forceinline__ static F sqr(const F& a) { return mont_sqr<FpTraits>(a); }
};

// G1 with out-of-line multiplications (same points, same memory layout).
struct G1c : G1 {
  __device__ __forceinline__ static F mul(const F& a, const F& b) { return fp_mul_ool(a, b); }
  __device__ __forceinline__ static F sqr(const F& a) { return fp_sqr_ool(a); }
};

// G2: Fp2 coordinates, multiplications always out of line.
struct G2 {
  typedef fp2_t F;
  static constexpr int WORDS = 24;
  __device__ __forceinline__ static F load(const u32* base, usize i) { return fp2_load(base, i); }
  __device__ __forceinline__ static void store(u32* base, usize i, const F& a) { fp2_store(base, i, a); }
  __device__ __forceinline__ static F zero() { return fp2_zero(); }
  __device__ __forceinline__ static F one() { return fp2_one(); }
  __device__ __forceinline__ static F mul(const F& a, const F& b) { return fp2_mul_ool(a, b); }
  __device__ __forceinline__ static F sqr(const F& a) { return fp2_sqr_ool(a); }
};
typedef G2 G2c;

template <class C>
struct affine {
  typename C::F x, y;
};

template <class C>
struct xyzz {
  typename C::F X, Y, ZZ, ZZZ;
};

template <class C>
__device__ __forceinline__ bool is_inf(const affine<C>& p) { return f_is_zero(p.x) && f_is_zero(p.y); }

template <class C>
__device__ __forceinline__ bool is_inf(const xyzz<C>& p) { return f_is_zero(p.ZZ); }

template <class C>
__device__ __forceinline__ xyzz<C> xyzz_inf() {
  xyzz<C> r;
  r.X = C::one(); r.Y = C::one(); r.ZZ = C::zero(); r.ZZZ = C::zero();
  return r;
}

template <class C>
__device__ __forceinline__ xyzz<C> xyzz_from_affine(const affine<C>& q) {
  if (is_inf(q)) return xyzz_inf<C>();
  xyzz<C> r;
  r.X = q.x; r.Y = q.y; r.ZZ = C::one(); r.ZZZ = C::one();
  return r;
}

// Affine point i of coordinate arrays xs, ys (each (n, WORDS) u32).
template <class C>
__device__ __forceinline__ affine<C> affine_load(const u32* xs, const u32* ys, usize i) {
  affine<C> r;
  r.x = C::load(xs, i); r.y = C::load(ys, i);
  return r;
}

// XYZZ point i of a (n, 4, WORDS) u32 array: X, Y, ZZ, ZZZ.
template <class C>
__device__ __forceinline__ xyzz<C> xyzz_load(const u32* base, usize i) {
  xyzz<C> r;
  r.X = C::load(base, 4 * i); r.Y = C::load(base, 4 * i + 1);
  r.ZZ = C::load(base, 4 * i + 2); r.ZZZ = C::load(base, 4 * i + 3);
  return r;
}

template <class C>
__device__ __forceinline__ void xyzz_store(u32* base, usize i, const xyzz<C>& p) {
  C::store(base, 4 * i, p.X); C::store(base, 4 * i + 1, p.Y);
  C::store(base, 4 * i + 2, p.ZZ); C::store(base, 4 * i + 3, p.ZZZ);
}

template <class C>
__device__ __forceinline__ xyzz<C> xyzz_neg(const xyzz<C>& p) {
  xyzz<C> r = p;
  r.Y = -p.Y;
  return r;
}

// 2p, dbl-2008-s-1 (6M + 3S). Infinity (ZZ = 0) stays infinity.
template <class C>
__device__ __forceinline__ xyzz<C> xyzz_dbl(const xyzz<C>& p) {
  typedef typename C::F F;
  F U = f_dbl(p.Y);
  F V = C::sqr(U);
  F W = C::mul(U, V);
  F S = C::mul(p.X, V);
  F X2 = C::sqr(p.X);
  F M = f_dbl(X2) + X2;
  xyzz<C> r;
  r.X = C::sqr(M) - f_dbl(S);
  r.Y = C::mul(M, S - r.X) - C::mul(W, p.Y);
  r.ZZ = C::mul(V, p.ZZ);
  r.ZZZ = C::mul(W, p.ZZZ);
  return r;
}

// 2q for affine q, mdbl-2008-s-1 (infinity q gives infinity).
template <class C>
__device__ __forceinline__ xyzz<C> xyzz_mdbl(const affine<C>& q) {
  typedef typename C::F F;
  if (is_inf(q)) return xyzz_inf<C>();
  F U = f_dbl(q.y);
  F V = C::sqr(U);
  F W = C::mul(U, V);
  F S = C::mul(q.x, V);
  F X2 = C::sqr(q.x);
  F M = f_dbl(X2) + X2;
  xyzz<C> r;
  r.X = C::sqr(M) - f_dbl(S);
  r.Y = C::mul(M, S - r.X) - C::mul(W, q.y);
  r.ZZ = V;
  r.ZZZ = W;
  return r;
}

// Out-of-line copies for rare paths and cold kernels: they keep the code that
// the compiler has to schedule small (each formula is compiled once).
template <class C>
__device__ __noinline__ xyzz<C> xyzz_mdbl_ool(const affine<C> q) { return xyzz_mdbl(q); }

template <class C>
__device__ __noinline__ xyzz<C> xyzz_dbl_ool(const xyzz<C> p) { return xyzz_dbl(p); }

// p + q for affine q, madd-2008-s (8M + 2S); every case handled.
template <class C>
__device__ __forceinline__ xyzz<C> xyzz_add_mixed(const xyzz<C>& p, const affine<C>& q) {
  typedef typename C::F F;
  if (is_inf(q)) return p;
  if (is_inf(p)) return xyzz_from_affine(q);
  F U2 = C::mul(q.x, p.ZZ);
  F S2 = C::mul(q.y, p.ZZZ);
  F P = U2 - p.X;
  F R = S2 - p.Y;
  if (f_is_zero(P)) {
    if (f_is_zero(R)) return xyzz_mdbl_ool(q);
    return xyzz_inf<C>();
  }
  F PP = C::sqr(P);
  F PPP = C::mul(P, PP);
  F Q = C::mul(p.X, PP);
  xyzz<C> r;
  r.X = C::sqr(R) - PPP - f_dbl(Q);
  r.Y = C::mul(R, Q - r.X) - C::mul(p.Y, PPP);
  r.ZZ = C::mul(p.ZZ, PP);
  r.ZZZ = C::mul(p.ZZZ, PPP);
  return r;
}

// p + q, add-2008-s (12M + 2S); every case handled.
template <class C>
__device__ __forceinline__ xyzz<C> xyzz_add(const xyzz<C>& p, const xyzz<C>& q) {
  typedef typename C::F F;
  if (is_inf(q)) return p;
  if (is_inf(p)) return q;
  F U1 = C::mul(p.X, q.ZZ);
  F U2 = C::mul(q.X, p.ZZ);
  F S1 = C::mul(p.Y, q.ZZZ);
  F S2 = C::mul(q.Y, p.ZZZ);
  F P = U2 - U1;
  F R = S2 - S1;
  if (f_is_zero(P)) {
    if (f_is_zero(R)) return xyzz_dbl_ool(p);
    return xyzz_inf<C>();
  }
  F PP = C::sqr(P);
  F PPP = C::mul(P, PP);
  F Q = C::mul(U1, PP);
  xyzz<C> r;
  r.X = C::sqr(R) - PPP - f_dbl(Q);
  r.Y = C::mul(R, Q - r.X) - C::mul(S1, PPP);
  r.ZZ = C::mul(C::mul(p.ZZ, q.ZZ), PP);
  r.ZZZ = C::mul(C::mul(p.ZZZ, q.ZZZ), PPP);
  return r;
}

// [k] p for a small non-negative k (double-and-add, top bit first).
template <class C>
__device__ __forceinline__ xyzz<C> xyzz_mul_small(const xyzz<C>& p, u32 k) {
  xyzz<C> acc = xyzz_inf<C>();
  for (int b = 31; b >= 0; b--) {
    if (!is_inf(acc)) acc = xyzz_dbl(acc);
    if ((k >> b) & 1u) acc = xyzz_add(acc, p);
  }
  return acc;
}

// Affine normalization with one Fermat inversion: x = X ZZZ t, y = Y ZZ t, t = 1/(ZZ ZZZ).
template <class C>
__device__ __forceinline__ affine<C> xyzz_to_affine(const xyzz<C>& p) {
  affine<C> r;
  if (is_inf(p)) { r.x = C::zero(); r.y = C::zero(); return r; }
  typename C::F t = f_inverse(C::mul(p.ZZ, p.ZZZ));
  r.x = C::mul(C::mul(p.X, p.ZZZ), t);
  r.y = C::mul(C::mul(p.Y, p.ZZ), t);
  return r;
}

}  // namespace cuzk
