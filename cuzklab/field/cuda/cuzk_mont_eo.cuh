// Montgomery multiplication with even/odd product rows (integer pipe).
//
// mont_mul_eo<F>(a, b) returns the same fully reduced a*b*R^-1 mod m as
// mont_mul<F> (bit-identical). It is a CIOS multiply (one 32-bit word of b
// and one reduction step per row) whose partial products are split by the
// parity of the a (or m) word they come from:
//   E collects lo(a_j b_i) at word j and hi(a_j b_i) at word j + 1 for even j,
//   O collects lo(a_j b_i) at word j - 1 and hi(a_j b_i) at word j for odd j,
//     O being one word up (value E + O * 2^32).
// In each accumulator the lo and hi halves of one product land on adjacent
// words, so a row is one carry chain of N multiply-adds per accumulator with
// the two halves of each product next to each other (a wide multiply-add on
// the GPU), instead of separate chains of low and high halves.
//
// Row i, with T = E + O 2^32 + L the running value (L <= 2^32, see below):
//   E += a_even b_i; O += a_odd b_i; q = (E[0] + L) (-m^-1) mod 2^32;
//   E += m_even q; O += m_odd q. Now E[0] + L = 0 mod 2^32, and since
//   L <= 2^32 the carry out of word 0 is k = (E[0] + L) >> 32 (0 or 1).
//   Division by 2^32: the new E is O, the new O is E from word 2 up, and the
//   new L = E[1] + k (<= 2^32) is the word that fits neither array.
// Bounds: as in CIOS, T < 2m at the start of every row (T' = (T + a b_i +
// q m) / 2^32 < (2m + 2 (2^32 - 1) m) / 2^32 < 2m for a < m), so E and O,
// parts of T times at most 2^32, fit N + 1 words, and word N of each is 0 at
// the start of a row (O 2^32 <= T 2^32 < 2^(32N) 2^32 after the row). The
// result E + O 2^32 + L < 2m then takes one conditional subtraction.
// Needs an even N and m < 2^(32N - 1) (checked).
#pragma once
#include "cuzk_types.cuh"
#include "cuzk_traits.cuh"

namespace cuzk {

namespace eodetail {
// acc[0..N-1] += sum over j = P, P + 2, ... < N of x_j * y * 2^(32 (j - P)),
// lo and hi halves adjacent; the carry out goes into acc[N] (acc[N] + carry
// does not overflow: see the bounds above). P = 0: even words, P = 1: odd.
// row_rest: the products from j = P + 2 on, continuing the carry chain the
// caller opened with the first product (or its equivalent).
template <int N, int P, class X>
__device__ __forceinline__ void row_rest(u32* acc, X x, u32 y) {
#pragma unroll
  for (int j = P + 2; j < N; j += 2) {
    acc[j - P] = ptx::madc_lo_cc(x(j), y, acc[j - P]);
    acc[j - P + 1] = ptx::madc_hi_cc(x(j), y, acc[j - P + 1]);
  }
  acc[N] = ptx::addc(acc[N], 0);
}

template <int N, int P, class X>
__device__ __forceinline__ void row(u32* acc, X x, u32 y) {
  acc[0] = ptx::mad_lo_cc(x(P), y, acc[0]);
  acc[1] = ptx::madc_hi_cc(x(P), y, acc[1]);
  row_rest<N, P>(acc, x, y);
}
}  // namespace eodetail

namespace eodetail {
// The reduction half of a row: q makes E[0] + L divisible by 2^32, q m is
// added, and the running value E + O 2^32 + L is divided by 2^32.
// A modulus whose two lowest words are 1 and 2^32 - 1 (Fr's: m = 1 - 2^32 +
// 2^64 (...) mod 2^64) can multiply q by them without a multiply:
// q * 1 = q (high half 0) and q * (2^32 - 1) = (q - [q > 0]) 2^32 + (-q mod 2^32).
// CUZK_EO_LOWWORDS: 0 multiplies by both as by any word; 1 writes out the
// product by the lowest word (q itself, whose high half 0 leaves only the
// carry to add); 2 also the product by 2^32 - 1, as above. Each moves multiply-adds
// off the integer multiply-add pipe onto the integer ALU; which one is
// faster depends on what else keeps the ALU busy (the NTT's butterflies).
#ifndef CUZK_EO_LOWWORDS
#define CUZK_EO_LOWWORDS 2
#endif
template <class F>
__host__ __device__ constexpr int low_words_written_out() {
  return (F::mod(0) == 1u && F::mod(1) == 0xffffffffu) ? CUZK_EO_LOWWORDS : 0;
}

template <class F>
__device__ __forceinline__ void reduce_row(u32* E, u32* O, u32& l_lo, u32& l_hi) {
  constexpr int N = F::N;
  auto mv = [](int j) { return F::mod(j); };
  const u32 q = (E[0] + l_lo) * F::INV;
  if constexpr (low_words_written_out<F>() >= 1) {
    E[0] = ptx::add_cc(E[0], q);  // q * 1
    E[1] = ptx::addc_cc(E[1], 0u);
    row_rest<N, 0>(E, mv, q);
  } else {
    row<N, 0>(E, mv, q);
  }
  if constexpr (low_words_written_out<F>() >= 2) {
    const u32 p_lo = ptx::sub_cc(0u, q);  // q * (2^32 - 1); borrow iff q > 0
    const u32 p_hi = ptx::subc(q, 0u);
    O[0] = ptx::add_cc(O[0], p_lo);
    O[1] = ptx::addc_cc(O[1], p_hi);
    row_rest<N, 1>(O, mv, q);
  } else {
    row<N, 1>(O, mv, q);
  }
  // k = (E[0] + L) >> 32, with E[0] + L = 0 mod 2^32: 1 unless L = 0
  const u32 k = (l_lo | l_hi) ? 1u : 0u;
  l_lo = ptx::add_cc(E[1], k);
  l_hi = ptx::addc(0, 0);
  // divide by 2^32: E <- O, O <- E from word 2
  u32 t[N + 1];
#pragma unroll
  for (int j = 0; j <= N; j++) t[j] = E[j];
#pragma unroll
  for (int j = 0; j <= N; j++) E[j] = O[j];
#pragma unroll
  for (int j = 0; j <= N; j++) O[j] = j + 2 <= N ? t[j + 2] : 0u;
}

// r = E + O 2^32 + L (N words; the caller knows it is < 2^(32N)).
template <int N>
__device__ __forceinline__ void combine(const u32* E, const u32* O, u32 l_lo, u32 l_hi, u32* r) {
  r[0] = E[0];
  r[1] = ptx::add_cc(E[1], O[0]);
#pragma unroll
  for (int j = 2; j < N - 1; j++) r[j] = ptx::addc_cc(E[j], O[j - 1]);
  r[N - 1] = ptx::addc(E[N - 1], O[N - 2]);
  r[0] = ptx::add_cc(r[0], l_lo);
  r[1] = ptx::addc_cc(r[1], l_hi);
#pragma unroll
  for (int j = 2; j < N - 1; j++) r[j] = ptx::addc_cc(r[j], 0);
  r[N - 1] = ptx::addc(r[N - 1], 0);
}

// acc[i + j] += a_i a_j (lo and hi adjacent) for j = j0, j0 + 2, ... < N,
// one carry chain; its carry out goes into the word after the last hi.
template <int N>
__device__ __forceinline__ void cross_row(u32* acc, const u32* a, int i, int j0) {
  acc[i + j0] = ptx::mad_lo_cc(a[i], a[j0], acc[i + j0]);
  acc[i + j0 + 1] = ptx::madc_hi_cc(a[i], a[j0], acc[i + j0 + 1]);
#pragma unroll
  for (int j = j0 + 2; j < N; j += 2) {
    acc[i + j] = ptx::madc_lo_cc(a[i], a[j], acc[i + j]);
    acc[i + j + 1] = ptx::madc_hi_cc(a[i], a[j], acc[i + j + 1]);
  }
  const int last = j0 + ((N - 1 - j0) / 2) * 2;  // the row's last j
  acc[i + last + 2] = ptx::addc(acc[i + last + 2], 0);
}
}  // namespace eodetail

template <class F>
__device__ __forceinline__ fe<F> mont_mul_eo(const fe<F>& a, const fe<F>& b) {
  constexpr int N = F::N;
  static_assert(N % 2 == 0, "mont_mul_eo needs an even number of words");
  static_assert(F::mod(N - 1) < 0x80000000u, "mont_mul_eo needs m < 2^(32N-1)");
  u32 E[N + 1], O[N + 1];
#pragma unroll
  for (int j = 0; j <= N; j++) { E[j] = 0; O[j] = 0; }
  u32 l_lo = 0, l_hi = 0;  // L = l_lo + l_hi 2^32, l_hi <= 1
  auto av = [&](int j) { return a.l[j]; };
#pragma unroll
  for (int i = 0; i < N; i++) {
    eodetail::row<N, 0>(E, av, b.l[i]);
    eodetail::row<N, 1>(O, av, b.l[i]);
    eodetail::reduce_row<F>(E, O, l_lo, l_hi);
  }
  // r = E + O 2^32 + L < 2m < 2^(32N)
  u32 r[N];
  eodetail::combine<N>(E, O, l_lo, l_hi, r);
  return detail::final_sub<F>(r, 0u);
}

// a^2 R^-1 mod m, bit-identical to mont_mul_eo(a, a), with each cross
// product a_i a_j (i < j) computed once.
// The square first: row i adds a_i a_j for j > i at word i + j; the products
// whose low half lands on an odd word (j - i odd) go to D1, the others to
// D0, so that in each array a row is one carry chain of adjacent lo/hi
// halves. A row's carry goes into the word after its last product, which
// no earlier row of that array has passed (it holds at most the carry of
// the row before, so it cannot overflow). T = 2 (D0 + D1) + sum a_i^2 2^(64 i).
// Then Montgomery's reduction of T = T_lo + T_hi 2^(32N) by the rows of
// mont_mul_eo without their product half: starting from E = T_lo < 2^(32N)
// the first row leaves (T_lo + q m) / 2^32 < 2m, and the invariants of
// mont_mul_eo's rows hold from there; after N rows the value is
// (T_lo + Q m) / 2^(32N) < m + 1, and adding T_hi < m^2 / 2^(32N) < m / 2
// (m < 2^(32N-1)) keeps it below 2m: one conditional subtraction.
template <class F>
__device__ __forceinline__ fe<F> mont_sqr_eo(const fe<F>& a) {
  constexpr int N = F::N;
  static_assert(N % 2 == 0, "mont_sqr_eo needs an even number of words");
  static_assert(F::mod(N - 1) < 0x80000000u, "mont_sqr_eo needs m < 2^(32N-1)");
  u32 D0[2 * N], D1[2 * N];
#pragma unroll
  for (int j = 0; j < 2 * N; j++) { D0[j] = 0; D1[j] = 0; }
#pragma unroll
  for (int i = 0; i + 1 < N; i++) {
    eodetail::cross_row<N>(D1, a.l, i, i + 1);
    if (i + 2 < N) eodetail::cross_row<N>(D0, a.l, i, i + 2);
  }
  // T = 2 (D0 + D1) + the squares (the cross sum is < a^2 / 2: no carry out)
  u32 T[2 * N];
  T[0] = ptx::add_cc(D0[0], D1[0]);
#pragma unroll
  for (int j = 1; j < 2 * N; j++) T[j] = ptx::addc_cc(D0[j], D1[j]);
#pragma unroll
  for (int j = 2 * N - 1; j > 0; j--) T[j] = (T[j] << 1) | (T[j - 1] >> 31);
  T[0] <<= 1;
  T[0] = ptx::mad_lo_cc(a.l[0], a.l[0], T[0]);
  T[1] = ptx::madc_hi_cc(a.l[0], a.l[0], T[1]);
#pragma unroll
  for (int i = 1; i < N - 1; i++) {
    T[2 * i] = ptx::madc_lo_cc(a.l[i], a.l[i], T[2 * i]);
    T[2 * i + 1] = ptx::madc_hi_cc(a.l[i], a.l[i], T[2 * i + 1]);
  }
  T[2 * N - 2] = ptx::madc_lo_cc(a.l[N - 1], a.l[N - 1], T[2 * N - 2]);
  T[2 * N - 1] = ptx::madc_hi(a.l[N - 1], a.l[N - 1], T[2 * N - 1]);
  // the reduction of T_lo
  u32 E[N + 1], O[N + 1];
#pragma unroll
  for (int j = 0; j < N; j++) { E[j] = T[j]; O[j] = 0; }
  E[N] = 0; O[N] = 0;
  u32 l_lo = 0, l_hi = 0;
#pragma unroll
  for (int i = 0; i < N; i++) eodetail::reduce_row<F>(E, O, l_lo, l_hi);
  u32 r[N];
  eodetail::combine<N>(E, O, l_lo, l_hi, r);
  // + T_hi
  r[0] = ptx::add_cc(r[0], T[N]);
#pragma unroll
  for (int j = 1; j < N - 1; j++) r[j] = ptx::addc_cc(r[j], T[N + j]);
  r[N - 1] = ptx::addc(r[N - 1], T[2 * N - 1]);
  return detail::final_sub<F>(r, 0u);
}

}  // namespace cuzk
