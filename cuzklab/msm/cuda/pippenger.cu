// Pippenger MSM kernels (cuzklab.msm.gpu drives them, in this order):
//   msm_count       signed digits of every scalar, bucket histogram (integer atomics)
//   msm_scatter     point indices (sign in bit 31) sorted by bucket: counting sort
//   msm_piece_map   buckets cut into pieces of at most K entries (bucket of each piece)
//   msm_accumulate  one thread per piece sums its points (mixed XYZZ additions)
//   msm_sum_pieces  pieces of one bucket summed G at a time, until one piece per bucket
//   msm_bucket_sums the pieces laid out as one XYZZ bucket each
//   msm_integrate   running sums over a segment of buckets: sum_b b * B_b
//   msm_sum_groups  sums groups of consecutive XYZZ points (segments -> windows)
// and, for batch addition, msm_sum_affine (groups of affine points).
// The windows are combined on the host (a chain of ~255 doublings runs faster
// there than on one GPU thread). msm_accumulate, the hot loop, is instantiated
// with inline field multiplications (cuzk::G1); the other kernels with
// out-of-line ones (cuzk::G1c), which compile much faster. G2 is always out of line.
// Scalars are canonical (not Montgomery) Fr limbs, 8 x u32 little-endian.
#include "cuzk_ec.cuh"
using namespace cuzk;

#define CUZK_TID (blockIdx.x * (usize)blockDim.x + threadIdx.x)

namespace msm {

// s := r - s when s > (r - 1)/2, so that s < 2^254; returns whether it did.
__device__ __forceinline__ bool fold_scalar(u32 s[8]) {
  int cmp = 0;  // sign of s - half
#pragma unroll
  for (int i = 7; i >= 0; i--) {
    const u32 h = (FrTraits::mod(i) >> 1) | ((FrTraits::mod(i + 1) & 1u) << 31);
    if (cmp == 0) cmp = s[i] > h ? 1 : (s[i] < h ? -1 : 0);
  }
  if (cmp <= 0) return false;
  u64 borrow = 0;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    const u64 d = (u64)FrTraits::mod(i) - (u64)s[i] - borrow;
    s[i] = (u32)d;
    borrow = (d >> 63) & 1u;
  }
  return true;
}

// Unsigned c-bit chunk at bit offset `bit` of a scalar padded with two zero words.
__device__ __forceinline__ u32 chunk(const u32 s[10], u32 bit, u32 c) {
  const u32 lo = bit >> 5, sh = bit & 31u;
  const u64 v = (((u64)s[lo + 1] << 32) | (u64)s[lo]) >> sh;
  return (u32)v & ((1u << c) - 1u);
}

__device__ __forceinline__ void load_scalar(const u32* scalars, usize i, u32 s[10]) {
#pragma unroll
  for (int k = 0; k < 8; k++) s[k] = scalars[8 * i + k];
  s[8] = 0; s[9] = 0;
}

}  // namespace msm

// counts[w * nb + |d| - 1] += 1 for every non-zero signed digit d of window w.
extern "C" __global__ void msm_count(const u32* scalars, u32 n, u32 c, u32 nwin, u32* counts) {
  const usize i = CUZK_TID;
  if (i >= n) return;
  u32 s[10];
  msm::load_scalar(scalars, i, s);
  msm::fold_scalar(s);
  const u32 half = 1u << (c - 1), nb = half;
  u32 carry = 0;
  for (u32 w = 0; w < nwin; w++) {
    u32 d = msm::chunk(s, w * c, c) + carry;
    carry = d > half ? 1u : 0u;
    const u32 mag = carry ? (1u << c) - d : d;
    if (mag) atomicAdd(&counts[(usize)w * nb + mag - 1], 1u);
  }
}

// entries[cursor[key]++] = i | (negative << 31): the counting sort's scatter.
extern "C" __global__ void msm_scatter(const u32* scalars, u32 n, u32 c, u32 nwin, u32* cursor,
                                       u32* entries) {
  const usize i = CUZK_TID;
  if (i >= n) return;
  u32 s[10];
  msm::load_scalar(scalars, i, s);
  const bool folded = msm::fold_scalar(s);
  const u32 half = 1u << (c - 1), nb = half;
  u32 carry = 0;
  for (u32 w = 0; w < nwin; w++) {
    u32 d = msm::chunk(s, w * c, c) + carry;
    carry = d > half ? 1u : 0u;
    const u32 mag = carry ? (1u << c) - d : d;
    if (mag) {
      const u32 negative = (carry ? 1u : 0u) ^ (folded ? 1u : 0u);
      const u32 pos = atomicAdd(&cursor[(usize)w * nb + mag - 1], 1u);
      entries[pos] = (u32)i | (negative << 31);
    }
  }
}

// Load-balanced accumulation. Bucket b's entries are cut into pieces of at most
// K entries; pieceoff (nbuckets + 1 entries, an exclusive scan of the piece
// counts) gives bucket b the pieces pieceoff[b] .. pieceoff[b+1), and
// piece_bucket[p] names the bucket of piece p. Thread p sums the (signed)
// points of piece p into partials[p], so a bucket with a huge run (skewed
// scalars, a top window with few digits) is spread over many threads.
template <class C, int PREFETCH>
__global__ void msm_accumulate(const u32* xs, const u32* ys, const u32* entries, const u32* offsets,
                               const u32* pieceoff, const u32* piece_bucket, u32 npieces, u32 K,
                               u32* partials) {
  const usize p = CUZK_TID;
  if (p >= npieces) return;
  const u32 b = piece_bucket[p];
  const u32 beg = offsets[b] + ((u32)p - pieceoff[b]) * K;
  const u32 stop = offsets[b + 1], end = beg + K < stop ? beg + K : stop;
  xyzz<C> acc = xyzz_inf<C>();
  if (PREFETCH) {
    // the next point is loaded while the current one is added (more registers)
    u32 e = entries[beg];
    affine<C> q = affine_load<C>(xs, ys, e & 0x7fffffffu);
    for (u32 k = beg; k < end; k++) {
      affine<C> cur = q;
      const u32 neg = e >> 31;
      if (k + 1 < end) {
        e = entries[k + 1];
        q = affine_load<C>(xs, ys, e & 0x7fffffffu);
      }
      if (neg) cur.y = -cur.y;
      acc = xyzz_add_mixed(acc, cur);
    }
  } else {
    for (u32 k = beg; k < end; k++) {
      const u32 e = entries[k];
      affine<C> q = affine_load<C>(xs, ys, e & 0x7fffffffu);
      if (e >> 31) q.y = -q.y;
      acc = xyzz_add_mixed(acc, q);
    }
  }
  xyzz_store(partials, p, acc);
}

// piece_bucket[q] = b for the pieces q of bucket b (thread per bucket).
extern "C" __global__ void msm_piece_map(const u32* pieceoff, u32 nbuckets, u32* piece_bucket) {
  const usize b = CUZK_TID;
  if (b >= nbuckets) return;
  for (u32 q = pieceoff[b]; q < pieceoff[b + 1]; q++) piece_bucket[q] = (u32)b;
}

// One level of the piece reduction: new piece q of bucket b = piece_bucket[q]
// sums at most G old pieces of b (old pieces oldoff[b] .. oldoff[b+1)).
template <class C>
__global__ void msm_sum_pieces(const u32* in, const u32* oldoff, const u32* newoff,
                               const u32* piece_bucket, u32 nnew, u32 G, u32* out) {
  const usize q = CUZK_TID;
  if (q >= nnew) return;
  const u32 b = piece_bucket[q];
  const u32 beg = oldoff[b] + ((u32)q - newoff[b]) * G;
  const u32 stop = oldoff[b + 1], end = beg + G < stop ? beg + G : stop;
  xyzz<C> acc = xyzz_load<C>(in, beg);
  for (u32 k = beg + 1; k < end; k++) acc = xyzz_add(acc, xyzz_load<C>(in, k));
  xyzz_store(out, q, acc);
}

// buckets[b] = the single piece of bucket b, or infinity when it has none.
template <class C>
__global__ void msm_bucket_sums(const u32* partials, const u32* pieceoff, u32 nbuckets, u32* buckets) {
  const usize b = CUZK_TID;
  if (b >= nbuckets) return;
  const u32 beg = pieceoff[b], end = pieceoff[b + 1];
  if (end == beg) { xyzz_store(buckets, b, xyzz_inf<C>()); return; }
  xyzz<C> acc = xyzz_load<C>(partials, beg);
  for (u32 k = beg + 1; k < end; k++) acc = xyzz_add(acc, xyzz_load<C>(partials, k));
  xyzz_store(buckets, b, acc);
}

// Thread t = (window w, segment s) of L buckets: out[t] = sum over the segment of
// (bucket index + 1) * B, by running sums from the top, plus (s L) * (segment sum).
template <class C>
__global__ void msm_integrate(const u32* buckets, u32 nwin, u32 nb, u32 L, u32* out) {
  const usize t = CUZK_TID;
  const u32 S = nb / L;
  if (t >= (usize)nwin * S) return;
  const usize w = t / S, s = t % S;
  const usize base = w * nb + s * L;
  xyzz<C> run = xyzz_inf<C>(), acc = xyzz_inf<C>();
  for (int j = (int)L - 1; j >= 0; j--) {
    run = xyzz_add(run, xyzz_load<C>(buckets, base + j));
    acc = xyzz_add(acc, run);
  }
  const u32 k = (u32)(s * L);
  if (k) acc = xyzz_add(acc, xyzz_mul_small(run, k));
  xyzz_store(out, t, acc);
}

// out[j] = sum of in[j G .. min((j + 1) G, m)).
template <class C>
__global__ void msm_sum_groups(const u32* in, u32 m, u32 G, u32* out) {
  const usize j = CUZK_TID;
  const usize lo = j * G;
  if (lo >= m) return;
  const usize hi = lo + G < m ? lo + G : m;
  xyzz<C> acc = xyzz_load<C>(in, lo);
  for (usize k = lo + 1; k < hi; k++) acc = xyzz_add(acc, xyzz_load<C>(in, k));
  xyzz_store(out, j, acc);
}

// out[j] = sum of the affine points j G .. min((j + 1) G, n).
template <class C>
__global__ void msm_sum_affine(const u32* xs, const u32* ys, u32 n, u32 G, u32* out) {
  const usize j = CUZK_TID;
  const usize lo = j * G;
  if (lo >= n) return;
  const usize hi = lo + G < n ? lo + G : n;
  xyzz<C> acc = xyzz_inf<C>();
  for (usize k = lo; k < hi; k++) acc = xyzz_add_mixed(acc, affine_load<C>(xs, ys, k));
  xyzz_store(out, j, acc);
}
