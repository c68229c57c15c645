// Elementwise kernels behind cuzklab.field's GPU backend (one thread per element
// unless stated). Arrays are C-contiguous (n, N) u32 Montgomery limbs; for the
// binary kernels sa/sb are 1, or 0 to broadcast a length-1 operand.
#include "cuzk_field.cuh"
using namespace cuzk;

#define CUZK_TID (blockIdx.x * (usize)blockDim.x + threadIdx.x)

template <class F>
__global__ void k_add(u32* out, const u32* a, const u32* b, usize n, usize sa, usize sb) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, add<F>(load<F>(a, i * sa), load<F>(b, i * sb)));
}

template <class F>
__global__ void k_sub(u32* out, const u32* a, const u32* b, usize n, usize sa, usize sb) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, sub<F>(load<F>(a, i * sa), load<F>(b, i * sb)));
}

template <class F>
__global__ void k_mul(u32* out, const u32* a, const u32* b, usize n, usize sa, usize sb) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, mont_mul<F>(load<F>(a, i * sa), load<F>(b, i * sb)));
}

template <class F>
__global__ void k_sqr(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, mont_sqr<F>(load<F>(a, i)));
}

template <class F>
__global__ void k_neg(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, neg<F>(load<F>(a, i)));
}

template <class F>
__global__ void k_to_mont(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, to_mont<F>(load<F>(a, i)));
}

template <class F>
__global__ void k_from_mont(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, from_mont<F>(load<F>(a, i)));
}

// out[i] = 1 iff a[i] >= m (as an N-limb integer).
template <class F>
__global__ void k_geq_mod(unsigned char* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  fe<F> x = load<F>(a, i);
  u32 d = ptx::sub_cc(x.l[0], F::mod(0));
#pragma unroll
  for (int j = 1; j < F::N; j++) d = ptx::subc_cc(x.l[j], F::mod(j));
  u32 bw = ptx::subc(0, 0);
  (void)d;
  out[i] = bw ? 0 : 1;
}

template <class F>
__global__ void k_pow(u32* out, const u32* a, usize n, const u32* e, int nbits) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, pow<F>(load<F>(a, i), e, nbits));
}

// Batched inverse, Montgomery's trick: thread t owns elements [t*chunk, t*chunk+chunk).
// No element may be zero (checked by the caller). out must not alias a.
template <class F>
__global__ void k_inv_batch(u32* out, const u32* a, usize n, usize chunk) {
  usize s = CUZK_TID * chunk; if (s >= n) return;
  usize e = s + chunk < n ? s + chunk : n;
  fe<F> acc = load<F>(a, s);
  store<F>(out, s, acc);
  for (usize i = s + 1; i < e; i++) {
    acc = mont_mul<F>(acc, load<F>(a, i));
    store<F>(out, i, acc);
  }
  fe<F> inv = inverse<F>(acc);
  for (usize i = e - 1; i > s; i--) {
    fe<F> x = load<F>(a, i);
    store<F>(out, i, mont_mul<F>(inv, load<F>(out, i - 1)));
    inv = mont_mul<F>(inv, x);
  }
  store<F>(out, s, inv);
}

// Elementwise inverse by the binary GCD (inverse_bgcd; 0 for 0).
template <class F>
__global__ void k_inv_bgcd(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, inverse_bgcd<F>(load<F>(a, i)));
}

// The benchmark chains, over a multiplier M (M::mul, M::sqr): out[i] = x[i] *
// y[i]^k by k dependent multiplies, or x[i]^(2^k) by k dependent squarings.
struct DispatchedMul {  // mont_mul / mont_sqr: the field's build (CIOS, FP64 pipe or even/odd)
  template <class F>
  __device__ __forceinline__ static fe<F> mul(const fe<F>& a, const fe<F>& b) { return mont_mul<F>(a, b); }
  template <class F>
  __device__ __forceinline__ static fe<F> sqr(const fe<F>& a) { return mont_sqr<F>(a); }
};

struct F64Mul {  // mont_mul_f64 / mont_sqr_f64: partial products on the FP64 pipe
  template <class F>
  __device__ __forceinline__ static fe<F> mul(const fe<F>& a, const fe<F>& b) { return mont_mul_f64<F>(a, b); }
  template <class F>
  __device__ __forceinline__ static fe<F> sqr(const fe<F>& a) { return mont_sqr_f64<F>(a); }
};

template <class F, class M>
__device__ __forceinline__ void mul_chain(u32* out, const u32* x, const u32* y, usize n, int k) {
  usize i = CUZK_TID; if (i >= n) return;
  fe<F> acc = load<F>(x, i);
  const fe<F> b = load<F>(y, i);
#pragma unroll 4
  for (int j = 0; j < k; j++) acc = M::template mul<F>(acc, b);
  store<F>(out, i, acc);
}

template <class F, class M>
__device__ __forceinline__ void sqr_chain(u32* out, const u32* x, usize n, int k) {
  usize i = CUZK_TID; if (i >= n) return;
  fe<F> acc = load<F>(x, i);
#pragma unroll 4
  for (int j = 0; j < k; j++) acc = M::template sqr<F>(acc);
  store<F>(out, i, acc);
}

// Benchmark: out[i] = x[i] * y[i]^k by a chain of k dependent multiplies.
template <class F>
__global__ void k_mul_chain(u32* out, const u32* x, const u32* y, usize n, int k) {
  mul_chain<F, DispatchedMul>(out, x, y, n, k);
}

// Benchmark: out[i] = x[i]^(2^k) by a chain of k dependent squarings
// (mont_sqr, dispatched like mont_mul; y is not read: k_mul_chain's signature).
template <class F>
__global__ void k_sqr_chain(u32* out, const u32* x, const u32* y, usize n, int k) {
  (void)y;
  sqr_chain<F, DispatchedMul>(out, x, n, k);
}

// k_mul and k_mul_chain through mont_mul_f64 (partial products on the FP64 pipe).
template <class F>
__global__ void k_mul_f64(u32* out, const u32* a, const u32* b, usize n, usize sa, usize sb) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, mont_mul_f64<F>(load<F>(a, i * sa), load<F>(b, i * sb)));
}

template <class F>
__global__ void k_mul_chain_f64(u32* out, const u32* x, const u32* y, usize n, int k) {
  mul_chain<F, F64Mul>(out, x, y, n, k);
}

// k_sqr through mont_sqr_f64, and a chain of k dependent squarings for
// measurement: out[i] = x[i]^(2^k) in Montgomery form (y is not read; the
// signature is k_mul_chain's).
template <class F>
__global__ void k_sqr_f64(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  store<F>(out, i, mont_sqr_f64<F>(load<F>(a, i)));
}

template <class F>
__global__ void k_sqr_chain_f64(u32* out, const u32* x, const u32* y, usize n, int k) {
  (void)y;
  sqr_chain<F, F64Mul>(out, x, n, k);
}

// ---- Fp2 (24 words per element: c0 then c1) ----
__global__ void k_fp2_mul(u32* out, const u32* a, const u32* b, usize n, usize sa, usize sb) {
  usize i = CUZK_TID; if (i >= n) return;
  fp2_store(out, i, fp2_mul(fp2_load(a, i * sa), fp2_load(b, i * sb)));
}

__global__ void k_fp2_sqr(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  fp2_store(out, i, fp2_sqr(fp2_load(a, i)));
}

__global__ void k_fp2_pow(u32* out, const u32* a, usize n, const u32* e, int nbits) {
  usize i = CUZK_TID; if (i >= n) return;
  fp2_store(out, i, fp2_pow(fp2_load(a, i), e, nbits));
}

// Elementwise Fermat inverse through the norm (tests the device fp2_inverse).
__global__ void k_fp2_inv(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  fp2_store(out, i, fp2_inverse(fp2_load(a, i)));
}

__global__ void k_fp2_mul_by_nonresidue(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  fp2_store(out, i, fp2_mul_by_nonresidue(fp2_load(a, i)));
}

__global__ void k_fp2_conj(u32* out, const u32* a, usize n) {
  usize i = CUZK_TID; if (i >= n) return;
  fp2_store(out, i, fp2_conj(fp2_load(a, i)));
}
