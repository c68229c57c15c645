// Montgomery multiplication with the partial products on the FP64 pipe.
//
// mont_mul_f64<F>(a, b) is a drop-in for mont_mul<F> (cuzk_mont.cuh): same
// fully reduced Montgomery-form inputs, and the same, bit-identical, fully
// reduced result a*b*2^(-32N) mod m. It exists for GPUs (H100/H200) where the
// 32-bit mad.hi is slow but DFMA is fast and issues alongside integer work.
//
// Method
//   Limbs. a and b are re-cut into NL limbs of W bits held as exact,
//   integer-valued doubles: NL = ceil(32N / 52), W = ceil(32N / NL), so
//     Fp (N = 12): 8 limbs of 48 bits (8*48 = 384 = log2 R),
//     Fr (N = 8):  5 limbs of 52 bits (260 bits >= 256).
//   A W-bit integer x < 2^52 becomes a double exactly as
//   bits(0x4330000000000000 | x) - 2^52.
//
//   Products. For x, y < 2^W (W <= 52), p = x*y < 2^(2W) <= 2^(W+52):
//     hi = fma_rz(x, y, C1), C1 = 2^(W+52): C1 + p lies in [2^(W+52),
//          2^(W+53)), where the spacing of doubles is 2^W, so rounding toward
//          zero gives hi = C1 + floor(p / 2^W) * 2^W exactly, and the bit
//          pattern of hi is bits(C1) + floor(p / 2^W).
//     s  = C2 - hi, C2 = C1 + 2^52 (representable: 53 significant bits at
//          most): s = 2^52 - floor(p / 2^W) * 2^W, a multiple of 2^W of
//          magnitude < 2^(2W), i.e. at most 52 significant bits: exact.
//     lo = fma_rz(x, y, s) = 2^52 + (p mod 2^W), in [2^52, 2^53) where the
//          spacing is 1: exact, and its bit pattern is bits(2^52) + p mod 2^W.
//   So every partial product is two DFMA and one DADD, and its two W-bit
//   halves are read as integers straight from the bit patterns; the constant
//   offsets bits(C1) and bits(2^52) are subtracted in 64-bit integer
//   arithmetic (mod 2^64, where the compiler folds them into one constant per
//   column). Only the hi FMA depends on the rounding mode; every other FP64
//   operation here has an exactly representable result.
//
//   Accumulation. 2*NL columns c[k] (u64, weight 2^(W*k)) collect the halves:
//   first all of a*b (operand scanning), then Montgomery reduction one column
//   at a time: q = c[i] * (-m^-1) mod 2^W; c += q*m*2^(W*i); c[i] is then a
//   multiple of 2^W and moves up as a carry. Since lo(q*m_0) only zeroes the
//   low W bits of c[i], it is never computed: the carry is
//   (c[i] >> W) + (c[i] mod 2^W != 0). FULL = floor(32N / W) such steps of W
//   bits are followed, when REM = 32N - FULL*W > 0 (Fr: 256 = 4*52 + 48), by
//   one step of REM bits at column FULL (q < 2^REM, lo(q*m_0) computed), so
//   that exactly R = 2^(32N) is divided out.
//
//   Bounds. Every half is < 2^W. A column receives at most NL lo and NL hi
//   halves of a*b, at most NL lo and NL hi halves of the q*m rows (one pair
//   per reduction step), and one carry, which by induction is < 4NL + 2; so
//   c[k] < (4NL + 2) * 2^W: Fp 34 * 2^48 < 2^54, Fr 22 * 2^52 < 2^57, far from
//   2^64 (static_assert below). The quotient Q = sum q_i 2^(W*i) < R, so
//   (a*b + Q*m) / R < (m^2 + R*m) / R < 2m since m < R; with m < 2^(32N-1)
//   this fits N words, and one conditional subtraction of m (the same
//   detail::final_sub as mont_mul) gives the fully reduced result.
//
//   Squaring. mont_sqr_f64<F>(a) computes the same columns for a*a with
//   NL(NL+1)/2 instead of NL^2 products (Fp 36 instead of 64, Fr 15 instead
//   of 25): each cross product a_i*a_j, i < j, is split once and its halves
//   added to columns i+j and i+j+1; every column is then doubled; then the NL
//   squares a_i*a_i add their halves to columns 2i and 2i+1. Column k of
//   a*b is the sum of the halves of the ordered pairs (i, j), and a_i*a_j =
//   a_j*a_i has the same two halves, so after these steps every column holds
//   exactly the value mont_mul_f64(a, a) has after its a*b phase: the same
//   reduction (f64detail::redc) then gives a bit-identical result, and the
//   bounds above hold unchanged. (Before the doubling a column holds at most
//   NL halves, < NL * 2^W; the doubling happens in the 64-bit integer
//   columns, never in FP64, so every split stays exact for W = 52 too:
//   doubling a limb instead would need 2^(2W+1) <= 2^(W+52), i.e. W <= 51.)
//
//   All constants (W-bit limbs of m, -m^-1 mod 2^W, C1, C2 and the bit
//   offsets) are computed here by constexpr code from F::mod(i).
#pragma once
#include "cuzk_types.cuh"
#include "cuzk_traits.cuh"
#include "cuzk_mont.cuh"

namespace cuzk {

namespace f64detail {

// Limb layout of field F (see the header comment).
template <class F>
struct shape {
  static constexpr int BITS = 32 * F::N;            // R = 2^BITS
  static constexpr int NL = (BITS + 51) / 52;       // limbs per operand
  static constexpr int W = (BITS + NL - 1) / NL;    // bits per limb, <= 52
  static constexpr int FULL = BITS / W;             // reduction steps of W bits
  static constexpr int REM = BITS - FULL * W;       // then one of REM bits (0: none)
  static constexpr int NC = 2 * NL;                 // accumulator columns
};

__host__ __device__ __forceinline__ constexpr u64 low_mask(int w) { return (1ull << w) - 1ull; }

__host__ __device__ __forceinline__ constexpr double pow2(int e) {
  double r = 1.0;
  for (int k = 0; k < e; k++) r *= 2.0;
  return r;
}

// Bit pattern of the double 2^e (normal range).
__host__ __device__ __forceinline__ constexpr u64 pow2_bits(int e) { return (u64)(1023 + e) << 52; }

// Word i of m, 0 past the top.
template <class F>
__host__ __device__ __forceinline__ constexpr u64 mod_word(int i) { return i < F::N ? (u64)F::mod(i) : 0ull; }

// Bits [s, s + w) of m, w <= 52.
template <class F>
__host__ __device__ __forceinline__ constexpr u64 mod_bits(int s, int w) {
  const int i = s >> 5, off = s & 31;
  u64 x = (mod_word<F>(i) | (mod_word<F>(i + 1) << 32)) >> off;
  if (off + w > 64) x |= mod_word<F>(i + 2) << (64 - off);
  return x & low_mask(w);
}

// -m^-1 mod 2^W by Newton's iteration on the low 64 bits of m (m odd):
// x = m0 is right to 3 bits (m0^2 = 1 mod 8), each step doubles that.
template <class F>
__host__ __device__ __forceinline__ constexpr u64 neg_inv() {
  const u64 m0 = mod_word<F>(0) | (mod_word<F>(1) << 32);
  u64 x = m0;
  for (int k = 0; k < 5; k++) x *= 2ull - m0 * x;  // 3, 6, 12, 24, 48, 96 bits
  return (0ull - x) & low_mask(shape<F>::W);
}

// The integer x < 2^52 as an exact double.
__device__ __forceinline__ double u52_to_double(u64 x) {
  constexpr u64 OFF = pow2_bits(52);
  constexpr double TWO52 = pow2(52);
  return __dsub_rn(__longlong_as_double((long long)(OFF | x)), TWO52);
}

// Bits [s, s + w) of the N-word little-endian integer l (w <= 52).
template <int N>
__device__ __forceinline__ u64 bits_of(const u32* l, int s, int w) {
  const int i = s >> 5, off = s & 31;
  u64 x = (u64)(i < N ? l[i] : 0u) | ((u64)(i + 1 < N ? l[i + 1] : 0u) << 32);
  x >>= off;
  if (off + w > 64) x |= (u64)(i + 2 < N ? l[i + 2] : 0u) << (64 - off);
  return x & low_mask(w);
}

// lo += x*y mod 2^W, hi += floor(x*y / 2^W), for integer doubles x, y < 2^W.
template <int W>
__device__ __forceinline__ void mul_acc(double x, double y, u64& lo, u64& hi) {
  constexpr double C1 = pow2(W + 52);
  constexpr double C2 = C1 + pow2(52);
  constexpr u64 HI_OFF = pow2_bits(W + 52), LO_OFF = pow2_bits(52);
  const double h = __fma_rz(x, y, C1);
  const double l = __fma_rz(x, y, __dsub_rn(C2, h));
  hi += (u64)__double_as_longlong(h) - HI_OFF;
  lo += (u64)__double_as_longlong(l) - LO_OFF;
}

// hi += floor(x*y / 2^W) only.
template <int W>
__device__ __forceinline__ void mul_acc_hi(double x, double y, u64& hi) {
  constexpr double C1 = pow2(W + 52);
  constexpr u64 HI_OFF = pow2_bits(W + 52);
  hi += (u64)__double_as_longlong(__fma_rz(x, y, C1)) - HI_OFF;
}

// The limbs of the N-word integer a as NL exact doubles of W bits.
template <class F>
__device__ __forceinline__ void to_limbs(const fe<F>& a, double* ad) {
  using S = shape<F>;
#pragma unroll
  for (int k = 0; k < S::NL; k++) ad[k] = u52_to_double(bits_of<F::N>(a.l, k * S::W, S::W));
}

// Montgomery reduction of the columns c[0..NC) holding a product x < m^2
// (each column < 2NL * 2^W; see the header comment): returns x * R^-1 mod m,
// fully reduced. Overwrites c.
template <class F>
__device__ __forceinline__ fe<F> redc(u64* c) {
  using S = shape<F>;
  constexpr int N = F::N, NL = S::NL, W = S::W, FULL = S::FULL, REM = S::REM, NC = S::NC;
  constexpr u64 MW = low_mask(W);
  constexpr u64 MINV = neg_inv<F>();
  static_assert(W <= 52 && NL * W >= 32 * N, "limbs must be exact doubles covering R");
  static_assert(F::mod(N - 1) < 0x80000000u, "mont_mul_f64 needs m < 2^(32N-1)");
  static_assert(((mod_bits<F>(0, W) * MINV + 1ull) & MW) == 0ull, "MINV = -m^-1 mod 2^W");
  static_assert((4 * NL + 2) < (1 << (63 - W)), "a column could overflow 64 bits");
  static_assert(FULL + (REM + 32 * N - 1) / W < NC, "result must lie in the columns");

  // FULL reduction steps of W bits
#pragma unroll
  for (int i = 0; i < FULL; i++) {
    const double q = u52_to_double((c[i] * MINV) & MW);
    c[i + 1] += (c[i] >> W) + (u64)((c[i] & MW) != 0ull);  // (c[i] + lo(q*m_0)) / 2^W
    mul_acc_hi<W>(q, (double)mod_bits<F>(0, W), c[i + 1]);
#pragma unroll
    for (int j = 1; j < NL; j++) mul_acc<W>(q, (double)mod_bits<F>(j * W, W), c[i + j], c[i + j + 1]);
  }

  // one step of REM bits (Fr): afterwards the low 32N bits of the sum are 0
  if constexpr (REM > 0) {
    constexpr u64 MR = low_mask(REM);
    const double q = u52_to_double((c[FULL] * MINV) & MR);
#pragma unroll
    for (int j = 0; j < NL; j++) mul_acc<W>(q, (double)mod_bits<F>(j * W, W), c[FULL + j], c[FULL + j + 1]);
  }

  // normalize columns FULL.. to W bits (the top one keeps the rest)
#pragma unroll
  for (int k = FULL; k < NC - 1; k++) {
    c[k + 1] += c[k] >> W;
    c[k] &= MW;
  }

  // the result is bits [REM, REM + 32N) of sum_k c[FULL + k] 2^(W*k)
  u32 t[N];
#pragma unroll
  for (int w = 0; w < N; w++) {
    const int s = REM + 32 * w, k = FULL + s / W, off = s % W;
    u64 x = c[k] >> off;
    if (off + 32 > W && k + 1 < NC) x |= c[k + 1] << (W - off);
    t[w] = (u32)x;
  }
  // t < 2m < 2^(32N): one conditional subtraction
  return detail::final_sub<F>(t, 0u);
}

}  // namespace f64detail

// a * b * R^-1 mod m, bit-identical to mont_mul<F>(a, b); see the header comment.
template <class F>
__device__ __forceinline__ fe<F> mont_mul_f64(const fe<F>& a, const fe<F>& b) {
  using S = f64detail::shape<F>;
  constexpr int NL = S::NL, W = S::W, NC = S::NC;

  double ad[NL], bd[NL];
  f64detail::to_limbs<F>(a, ad);
  f64detail::to_limbs<F>(b, bd);

  u64 c[NC];
#pragma unroll
  for (int k = 0; k < NC; k++) c[k] = 0;

  // a * b
#pragma unroll
  for (int i = 0; i < NL; i++) {
#pragma unroll
    for (int j = 0; j < NL; j++) f64detail::mul_acc<W>(ad[i], bd[j], c[i + j], c[i + j + 1]);
  }
  return f64detail::redc<F>(c);
}

// b cut into the exact-double limbs mont_mul_f64 makes of it, for a factor
// that multiplies many elements (an NTT twiddle): converted once, then
// mont_mul_f64(a, bd) skips that conversion and returns mont_mul_f64(a, b).
template <class F>
struct fe_f64 {
  double d[f64detail::shape<F>::NL];
};

template <class F>
__device__ __forceinline__ fe_f64<F> to_f64(const fe<F>& b) {
  fe_f64<F> r;
  f64detail::to_limbs<F>(b, r.d);
  return r;
}

template <class F>
__device__ __forceinline__ fe<F> mont_mul_f64(const fe<F>& a, const fe_f64<F>& b) {
  using S = f64detail::shape<F>;
  constexpr int NL = S::NL, W = S::W, NC = S::NC;

  double ad[NL];
  f64detail::to_limbs<F>(a, ad);

  u64 c[NC];
#pragma unroll
  for (int k = 0; k < NC; k++) c[k] = 0;

#pragma unroll
  for (int i = 0; i < NL; i++) {
#pragma unroll
    for (int j = 0; j < NL; j++) f64detail::mul_acc<W>(ad[i], b.d[j], c[i + j], c[i + j + 1]);
  }
  return f64detail::redc<F>(c);
}

// a^2 * R^-1 mod m, bit-identical to mont_mul_f64<F>(a, a) (and so to
// mont_mul<F>(a, a)) with NL(NL+1)/2 limb products; see "Squaring" in the
// header comment.
template <class F>
__device__ __forceinline__ fe<F> mont_sqr_f64(const fe<F>& a) {
  using S = f64detail::shape<F>;
  constexpr int NL = S::NL, W = S::W, NC = S::NC;
  // before the doubling a column holds < NL halves of 2^W; after it and the
  // squares the a*b bound of mont_mul_f64 (< 2NL halves) holds as there
  static_assert(2 * NL < (1 << (63 - W)), "a column could overflow 64 bits");

  double ad[NL];
  f64detail::to_limbs<F>(a, ad);

  u64 c[NC];
#pragma unroll
  for (int k = 0; k < NC; k++) c[k] = 0;

  // cross products a_i * a_j, i < j, once each
#pragma unroll
  for (int i = 0; i < NL; i++) {
#pragma unroll
    for (int j = i + 1; j < NL; j++) f64detail::mul_acc<W>(ad[i], ad[j], c[i + j], c[i + j + 1]);
  }
  // counted twice (columns 1 .. NC-2 only can be nonzero)
#pragma unroll
  for (int k = 1; k < NC - 1; k++) c[k] <<= 1;
  // squares a_i * a_i
#pragma unroll
  for (int i = 0; i < NL; i++) f64detail::mul_acc<W>(ad[i], ad[i], c[2 * i], c[2 * i + 1]);
  return f64detail::redc<F>(c);
}

}  // namespace cuzk
