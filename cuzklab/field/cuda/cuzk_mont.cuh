// Montgomery arithmetic generic over a field-traits struct F (see cuzk_traits.cuh):
//   F::N limbs of 32 bits, little-endian; F::mod(i), F::r1(i) (R mod m),
//   F::r2(i) (R^2 mod m), F::mm2(i) (m - 2), F::INV = -m^-1 mod 2^32.
// Elements are fe<F> values in Montgomery form, fully reduced in [0, m);
// every function here takes and returns fully reduced values.
#pragma once
#include "cuzk_types.cuh"
#include "cuzk_traits.cuh"

namespace cuzk {

template <class F>
struct fe {
  u32 l[F::N];
};

template <class F>
__device__ __forceinline__ fe<F> zero() {
  fe<F> r;
#pragma unroll
  for (int i = 0; i < F::N; i++) r.l[i] = 0;
  return r;
}

// Montgomery form of 1 (R mod m).
template <class F>
__device__ __forceinline__ fe<F> one() {
  fe<F> r;
#pragma unroll
  for (int i = 0; i < F::N; i++) r.l[i] = F::r1(i);
  return r;
}

template <class F>
__device__ __forceinline__ bool is_zero(const fe<F>& a) {
  u32 acc = 0;
#pragma unroll
  for (int i = 0; i < F::N; i++) acc |= a.l[i];
  return acc == 0;
}

template <class F>
__device__ __forceinline__ bool eq(const fe<F>& a, const fe<F>& b) {
  u32 acc = 0;
#pragma unroll
  for (int i = 0; i < F::N; i++) acc |= a.l[i] ^ b.l[i];
  return acc == 0;
}

namespace detail {
// Given t = (t[0..N-1], hi) < 2m, return t mod m (subtract m once if t >= m).
template <class F>
__device__ __forceinline__ fe<F> final_sub(const u32* t, u32 hi) {
  constexpr int N = F::N;
  u32 d[N];
  d[0] = ptx::sub_cc(t[0], F::mod(0));
#pragma unroll
  for (int j = 1; j < N; j++) d[j] = ptx::subc_cc(t[j], F::mod(j));
  u32 bw = ptx::subc(hi, 0);  // 0xffffffff iff t < m
  fe<F> r;
#pragma unroll
  for (int j = 0; j < N; j++) r.l[j] = bw ? t[j] : d[j];
  return r;
}
}  // namespace detail

template <class F>
__device__ __forceinline__ fe<F> add(const fe<F>& a, const fe<F>& b) {
  constexpr int N = F::N;
  u32 t[N];
  t[0] = ptx::add_cc(a.l[0], b.l[0]);
#pragma unroll
  for (int j = 1; j < N; j++) t[j] = ptx::addc_cc(a.l[j], b.l[j]);
  u32 hi = ptx::addc(0, 0);
  return detail::final_sub<F>(t, hi);
}

template <class F>
__device__ __forceinline__ fe<F> dbl(const fe<F>& a) { return add<F>(a, a); }

// CUZK_SUB_MAD=1: sub adds back the modulus (when a < b) by multiply-adds of
// the borrow bit, on the integer multiply-add pipe, instead of masks and adds
// on the integer ALU (same results; for kernels whose ALU is the busier pipe).
#ifndef CUZK_SUB_MAD
#define CUZK_SUB_MAD 0
#endif
template <class F>
__device__ __forceinline__ fe<F> sub(const fe<F>& a, const fe<F>& b) {
  constexpr int N = F::N;
  u32 t[N];
  t[0] = ptx::sub_cc(a.l[0], b.l[0]);
#pragma unroll
  for (int j = 1; j < N; j++) t[j] = ptx::subc_cc(a.l[j], b.l[j]);
  u32 mask = ptx::subc(0, 0);  // 0xffffffff iff a < b
  fe<F> r;
#if CUZK_SUB_MAD
  // m added as bit * m, the bit 0 or 1: multiply-adds instead of masks and adds
  const u32 bit = mask & 1u;
  r.l[0] = ptx::mad_lo_cc(bit, F::mod(0), t[0]);
#pragma unroll
  for (int j = 1; j < N; j++) r.l[j] = ptx::madc_lo_cc(bit, F::mod(j), t[j]);
#else
  r.l[0] = ptx::add_cc(t[0], F::mod(0) & mask);
#pragma unroll
  for (int j = 1; j < N - 1; j++) r.l[j] = ptx::addc_cc(t[j], F::mod(j) & mask);
  r.l[N - 1] = ptx::addc(t[N - 1], F::mod(N - 1) & mask);
#endif
  return r;
}

template <class F>
__device__ __forceinline__ fe<F> neg(const fe<F>& a) {
  constexpr int N = F::N;
  u32 mask = is_zero<F>(a) ? 0u : 0xffffffffu;
  fe<F> r;
  r.l[0] = ptx::sub_cc(F::mod(0), a.l[0]);
#pragma unroll
  for (int j = 1; j < N - 1; j++) r.l[j] = ptx::subc_cc(F::mod(j), a.l[j]);
  r.l[N - 1] = ptx::subc(F::mod(N - 1), a.l[N - 1]);
#pragma unroll
  for (int j = 0; j < N; j++) r.l[j] &= mask;
  return r;
}

// a * b * R^-1 mod m. CIOS: for each limb b[i], t += a*b[i] (a low-half chain
// and a high-half chain), then t += m*q with q = t[0]*INV, then shift t down
// one limb. Between rounds t < 2m; within a round t < 2m + 2*m*(2^32 - 1)
// < m*2^33 <= 2^(32N + 32) because m < 2^(32N - 1) for both fields (checked
// by static_assert on the top limb), so N + 1 words hold t and no carry ever
// leaves word N.
template <class F>
__device__ __forceinline__ fe<F> mont_mul_cios(const fe<F>& a, const fe<F>& b) {
  constexpr int N = F::N;
  static_assert(F::mod(N - 1) < 0x80000000u, "mont_mul_cios needs m < 2^(32N-1)");
  u32 t[N + 1];
#pragma unroll
  for (int j = 0; j < N + 1; j++) t[j] = 0;
#pragma unroll
  for (int i = 0; i < N; i++) {
    const u32 bi = b.l[i];
    t[0] = ptx::mad_lo_cc(a.l[0], bi, t[0]);
#pragma unroll
    for (int j = 1; j < N; j++) t[j] = ptx::madc_lo_cc(a.l[j], bi, t[j]);
    t[N] = ptx::addc(t[N], 0);
    t[1] = ptx::mad_hi_cc(a.l[0], bi, t[1]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) t[j + 1] = ptx::madc_hi_cc(a.l[j], bi, t[j + 1]);
    t[N] = ptx::madc_hi(a.l[N - 1], bi, t[N]);

    const u32 q = t[0] * F::INV;
    t[0] = ptx::mad_lo_cc(q, F::mod(0), t[0]);
#pragma unroll
    for (int j = 1; j < N; j++) t[j] = ptx::madc_lo_cc(q, F::mod(j), t[j]);
    t[N] = ptx::addc(t[N], 0);
    t[1] = ptx::mad_hi_cc(q, F::mod(0), t[1]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) t[j + 1] = ptx::madc_hi_cc(q, F::mod(j), t[j + 1]);
    t[N] = ptx::madc_hi(q, F::mod(N - 1), t[N]);

#pragma unroll
    for (int j = 0; j < N; j++) t[j] = t[j + 1];
    t[N] = 0;
  }
  // t < 2m < 2^(32N): one conditional subtraction
  return detail::final_sub<F>(t, 0u);
}

// The FP64-pipe multiply and square of cuzk_mont_f64.cuh (same results).
template <class F>
__device__ __forceinline__ fe<F> mont_mul_f64(const fe<F>& a, const fe<F>& b);
template <class F>
__device__ __forceinline__ fe<F> mont_sqr_f64(const fe<F>& a);

// The even/odd-row integer multiply and square of cuzk_mont_eo.cuh (same results).
template <class F>
__device__ __forceinline__ fe<F> mont_mul_eo(const fe<F>& a, const fe<F>& b);
template <class F>
__device__ __forceinline__ fe<F> mont_sqr_eo(const fe<F>& a);

#ifndef CUZK_FR_MUL_F64
#define CUZK_FR_MUL_F64 0
#endif
#ifndef CUZK_FR_MUL_EO
#define CUZK_FR_MUL_EO 0
#endif
#ifndef CUZK_FP_MUL_F64
#define CUZK_FP_MUL_F64 0
#endif
#ifndef CUZK_FP_MUL_EO
#define CUZK_FP_MUL_EO 0
#endif
#ifndef CUZK_EO_SQR
#define CUZK_EO_SQR 1
#endif

// The Montgomery multiply every other function (and operator*) uses: the
// integer CIOS above, mont_mul_f64 for a field built with -DCUZK_FR_MUL_F64=1
// or -DCUZK_FP_MUL_F64=1, or the even/odd-row integer multiply mont_mul_eo
// for a field built with -DCUZK_FR_MUL_EO=1 or -DCUZK_FP_MUL_EO=1, which
// takes precedence (cuzklab.field.cuda sets these from the kind "cios",
// "f64" or "eo"; a module may also pass its own). All give bit-identical
// results.
template <class F>
__device__ __forceinline__ fe<F> mont_mul(const fe<F>& a, const fe<F>& b) {
  if constexpr ((F::N == 8) ? (CUZK_FR_MUL_EO != 0) : (CUZK_FP_MUL_EO != 0))
    return mont_mul_eo<F>(a, b);
  else if constexpr ((F::N == 8) ? (CUZK_FR_MUL_F64 != 0) : (CUZK_FP_MUL_F64 != 0))
    return mont_mul_f64<F>(a, b);
  else
    return mont_mul_cios<F>(a, b);
}

// a^2 * R^-1 mod m, dispatched like mont_mul: mont_sqr_eo or mont_sqr_f64
// (each cross product once) for an eo or f64 field, else the field's
// multiply of a by itself. -DCUZK_EO_SQR=0 squares an eo field with
// mont_mul_eo(a, a) instead (for side-by-side timing).
template <class F>
__device__ __forceinline__ fe<F> mont_sqr(const fe<F>& a) {
  if constexpr ((F::N == 8) ? (CUZK_FR_MUL_EO != 0) : (CUZK_FP_MUL_EO != 0)) {
    if constexpr (CUZK_EO_SQR != 0)
      return mont_sqr_eo<F>(a);
    else
      return mont_mul_eo<F>(a, a);
  }
  else if constexpr ((F::N == 8) ? (CUZK_FR_MUL_F64 != 0) : (CUZK_FP_MUL_F64 != 0))
    return mont_sqr_f64<F>(a);
  else
    return mont_mul_cios<F>(a, a);
}

// x -> x*R mod m (into Montgomery form).
template <class F>
__device__ __forceinline__ fe<F> to_mont(const fe<F>& a) {
  fe<F> r2;
#pragma unroll
  for (int i = 0; i < F::N; i++) r2.l[i] = F::r2(i);
  return mont_mul<F>(a, r2);
}

// x*R -> x mod m (out of Montgomery form).
template <class F>
__device__ __forceinline__ fe<F> from_mont(const fe<F>& a) {
  fe<F> u = zero<F>();
  u.l[0] = 1;
  return mont_mul<F>(a, u);
}

// a^e, e given as nbits bits in little-endian u32 limbs (any memory space).
template <class F>
__device__ __forceinline__ fe<F> pow(const fe<F>& a, const u32* e, int nbits) {
  fe<F> r = one<F>();
  for (int k = nbits - 1; k >= 0; k--) {
    r = mont_sqr<F>(r);
    if ((e[k >> 5] >> (k & 31)) & 1u) r = mont_mul<F>(r, a);
  }
  return r;
}

// a^-1 = a^(m-2) (Fermat); returns 0 for a = 0.
template <class F>
__device__ __forceinline__ fe<F> inverse(const fe<F>& a) {
  fe<F> r = one<F>();
#pragma unroll 1
  for (int i = F::N - 1; i >= 0; i--) {
    const u32 w = F::mm2(i);
#pragma unroll 1
    for (int k = 31; k >= 0; k--) {
      r = mont_sqr<F>(r);
      if ((w >> k) & 1u) r = mont_mul<F>(r, a);
    }
  }
  return r;
}

// ---- Inversion by a binary GCD (T. Pornin, "Optimized Binary GCD for
// Modular Inversion", ePrint 2020/972, Algorithm 2 with k = 32) ----
// a <- y, b <- m, u <- 1, v <- 0 (a = u y c, b = v y c mod m). Each of
// ITERS = ceil((2 BITS - 1) / 31) outer steps runs 31 binary-GCD steps on
// 64-bit approximations of a and b (their low 31 bits and their top 33 bits
// at the length of the longer one), collecting the steps as a matrix
// (f0 g0; f1 g1) with |entries| <= 2^31, then applies it to a, b (exactly
// divisible by 2^31; a negative result is negated with its row) and to u, v,
// which are then divided by 2^32 mod m (one Montgomery word; so c doubles
// every step). At the end b = gcd(y, m) = 1 and y^-1 = v 2^ITERS. Variable
// time (the MSM's points are public). For Fp the Fermat inverse is 380
// squarings and 228 multiplications; in the MSM's batch-affine rounds on an
// H200 this one cost about as much time as 100 multiplications.
namespace bgcd {
// out (N + 2 words, two's complement) = a f + b g for N-word a, b >= 0 and |f|, |g| <= 2^31.
template <int N>
__device__ __forceinline__ void lin_comb(const u32* a, const u32* b, long long f, long long g, u32* out) {
  const u32 fm = (u32)(f < 0 ? -f : f), gm = (u32)(g < 0 ? -g : g);
  const u32 fs = f < 0 ? 0xffffffffu : 0u, gs = g < 0 ? 0xffffffffu : 0u;
  u64 cf = 0, cg = 0, s = (u64)(fs & 1u) + (u64)(gs & 1u);  // the +1s of both negations
#pragma unroll
  for (int i = 0; i < N + 2; i++) {
    u32 pf = 0, pg = 0;
    if (i <= N) {
      const u64 tf = (i < N ? (u64)a[i] * fm : 0ull) + cf;
      const u64 tg = (i < N ? (u64)b[i] * gm : 0ull) + cg;
      pf = (u32)tf; cf = tf >> 32;
      pg = (u32)tg; cg = tg >> 32;
    }
    s += (u64)(pf ^ fs) + (u64)(pg ^ gs);
    out[i] = (u32)s;
    s >>= 32;
  }
}

// Bit length of an N-word integer.
template <int N>
__device__ __forceinline__ int bit_length(const u32* a) {
  int len = 0;
#pragma unroll
  for (int i = 0; i < N; i++)
    if (a[i]) len = 32 * i + 32 - __clz(a[i]);
  return len;
}

// Bits [s, s + 33) of an N-word integer, for 31 <= s <= 32 N - 33 (no dynamic indexing).
template <int N>
__device__ __forceinline__ u64 top33(const u32* a, int s) {
  const int w = s >> 5, sh = s & 31;
  u32 lo = 0, hi = 0;
#pragma unroll
  for (int i = 0; i < N; i++) {
    lo = i == w ? a[i] : lo;
    hi = i == w + 1 ? a[i] : hi;
  }
  return ((((u64)hi << 32) | lo) >> sh) & ((1ull << 33) - 1ull);
}
}  // namespace bgcd

// y^-1 in Montgomery form (x R -> x^-1 R) by the binary GCD above; 0 for 0.
template <class F>
__device__ __forceinline__ fe<F> inverse_bgcd(const fe<F>& y) {
  constexpr int N = F::N;
  constexpr int ITERS = (2 * F::BITS - 1 + 30) / 31;
  u32 a[N], b[N], u[N], v[N];
#pragma unroll
  for (int i = 0; i < N; i++) { a[i] = y.l[i]; b[i] = F::mod(i); u[i] = 0; v[i] = 0; }
  u[0] = 1;
#pragma unroll 1
  for (int it = 0; it < ITERS; it++) {
    const int la = bgcd::bit_length<N>(a), lb = bgcd::bit_length<N>(b);
    const int n = la > lb ? (la > 64 ? la : 64) : (lb > 64 ? lb : 64);
    u64 A = (u64)(a[0] & 0x7fffffffu) | (bgcd::top33<N>(a, n - 33) << 31);
    u64 B = (u64)(b[0] & 0x7fffffffu) | (bgcd::top33<N>(b, n - 33) << 31);
    long long f0 = 1, g0 = 0, f1 = 0, g1 = 1;
#pragma unroll
    for (int j = 0; j < 31; j++) {
      const bool odd = A & 1ull;
      const bool swap = odd && A < B;
      const u64 A1 = swap ? B : A, B1 = swap ? A : B;
      const long long F0 = swap ? f1 : f0, G0 = swap ? g1 : g0;
      const long long F1 = swap ? f0 : f1, G1 = swap ? g0 : g1;
      A = odd ? A1 - B1 : A1;
      B = B1;
      f0 = odd ? F0 - F1 : F0;
      g0 = odd ? G0 - G1 : G0;
      f1 = 2 * F1;
      g1 = 2 * G1;
      A >>= 1;
    }
    // (a, b) <- ((a f0 + b g0) / 2^31, (a f1 + b g1) / 2^31), made non-negative
    u32 ta[N + 2], tb[N + 2];
    bgcd::lin_comb<N>(a, b, f0, g0, ta);
    bgcd::lin_comb<N>(a, b, f1, g1, tb);
    const bool na = ta[N + 1] >> 31, nb = tb[N + 1] >> 31;
    {
      // |t| = (t ^ mask) + (mask & 1) over the N + 2 words, then >> 31 (< m: N words)
      const u32 ma = na ? 0xffffffffu : 0u, mb = nb ? 0xffffffffu : 0u;
      u64 ca = na ? 1u : 0u, cb = nb ? 1u : 0u;
#pragma unroll
      for (int i = 0; i < N + 1; i++) {
        const u64 sa = (u64)(ta[i] ^ ma) + ca, sb = (u64)(tb[i] ^ mb) + cb;
        ca = sa >> 32; cb = sb >> 32;
        ta[i] = (u32)sa; tb[i] = (u32)sb;
      }
#pragma unroll
      for (int i = 0; i < N; i++) {
        a[i] = (ta[i] >> 31) | (ta[i + 1] << 1);
        b[i] = (tb[i] >> 31) | (tb[i + 1] << 1);
      }
    }
    if (na) { f0 = -f0; g0 = -g0; }
    if (nb) { f1 = -f1; g1 = -g1; }
    // (u, v) <- ((u f0 + v g0) / 2^32, (u f1 + v g1) / 2^32) mod m, in [0, m)
    u32 tu[N + 2], tv[N + 2];
    bgcd::lin_comb<N>(u, v, f0, g0, tu);
    bgcd::lin_comb<N>(u, v, f1, g1, tv);
#pragma unroll
    for (int side = 0; side < 2; side++) {
      u32* t = side ? tv : tu;
      u32* r = side ? v : u;
      const u32 q = t[0] * F::INV;  // t + q m = 0 mod 2^32
      u64 c = 0;
#pragma unroll
      for (int i = 0; i < N + 2; i++) {
        const u64 s = (u64)t[i] + (i < N ? (u64)q * F::mod(i) : 0ull) + c;
        t[i] = (u32)s;
        c = s >> 32;
      }
      // (t + q m) / 2^32 in (-m, 2m): words 1..N+1, two's complement
      const bool neg = t[N + 1] >> 31;
      u32 w[N + 1];
#pragma unroll
      for (int i = 0; i < N + 1; i++) w[i] = t[i + 1];
      // neg: w += m; else w -= m when w >= m
      u32 d[N + 1];
      u64 br = 0;
#pragma unroll
      for (int i = 0; i < N + 1; i++) {
        const u64 s = (u64)w[i] - (i < N ? (u64)F::mod(i) : 0ull) - br;
        d[i] = (u32)s;
        br = (s >> 63) & 1ull;
      }
      const bool ge = !neg && !br;  // w - m did not borrow
      u64 cc = 0;
#pragma unroll
      for (int i = 0; i < N; i++) {
        const u64 s = (u64)w[i] + (neg ? (u64)F::mod(i) : 0ull) + cc;
        cc = s >> 32;
        r[i] = ge ? d[i] : (u32)s;
      }
    }
  }
  // y^-1 = v 2^ITERS; in Montgomery form (x R)^-1 R^2 = v 2^ITERS R^2
  fe<F> r2, res;
#pragma unroll
  for (int i = 0; i < N; i++) { r2.l[i] = F::r2(i); res.l[i] = v[i]; }
  res = mont_mul<F>(mont_mul<F>(res, r2), r2);
#pragma unroll 1
  for (int k = 0; k < ITERS; k++) res = add<F>(res, res);
  return res;
}

// Element i of a C-contiguous (n, N) u32 array; base must be 16-byte aligned
// (true for CuPy allocations and for any row offset, since N*4 is a multiple of 16).
template <class F>
__device__ __forceinline__ fe<F> load(const u32* base, usize i) {
  static_assert(F::N % 4 == 0, "vector loads need N % 4 == 0");
  fe<F> r;
  const uint4* p = reinterpret_cast<const uint4*>(base + i * F::N);
#pragma unroll
  for (int k = 0; k < F::N / 4; k++) {
    uint4 v = p[k];
    r.l[4 * k] = v.x; r.l[4 * k + 1] = v.y; r.l[4 * k + 2] = v.z; r.l[4 * k + 3] = v.w;
  }
  return r;
}

template <class F>
__device__ __forceinline__ void store(u32* base, usize i, const fe<F>& a) {
  uint4* p = reinterpret_cast<uint4*>(base + i * F::N);
#pragma unroll
  for (int k = 0; k < F::N / 4; k++)
    p[k] = make_uint4(a.l[4 * k], a.l[4 * k + 1], a.l[4 * k + 2], a.l[4 * k + 3]);
}

// Word-by-word variants for pointers of unknown alignment.
template <class F>
__device__ __forceinline__ fe<F> load_unaligned(const u32* p) {
  fe<F> r;
#pragma unroll
  for (int k = 0; k < F::N; k++) r.l[k] = p[k];
  return r;
}

template <class F>
__device__ __forceinline__ void store_unaligned(u32* p, const fe<F>& a) {
#pragma unroll
  for (int k = 0; k < F::N; k++) p[k] = a.l[k];
}

template <class F> __device__ __forceinline__ fe<F> operator+(const fe<F>& a, const fe<F>& b) { return add<F>(a, b); }
template <class F> __device__ __forceinline__ fe<F> operator-(const fe<F>& a, const fe<F>& b) { return sub<F>(a, b); }
template <class F> __device__ __forceinline__ fe<F> operator*(const fe<F>& a, const fe<F>& b) { return mont_mul<F>(a, b); }
template <class F> __device__ __forceinline__ fe<F> operator-(const fe<F>& a) { return neg<F>(a); }
template <class F> __device__ __forceinline__ bool operator==(const fe<F>& a, const fe<F>& b) { return eq<F>(a, b); }
template <class F> __device__ __forceinline__ bool operator!=(const fe<F>& a, const fe<F>& b) { return !eq<F>(a, b); }

typedef fe<FrTraits> fr_t;
typedef fe<FpTraits> fp_t;

}  // namespace cuzk
