// Pippenger MSM kernels (cuzklab.msm.gpu drives them, in this order):
//   msm_glv_split   (G1, plain bases) k P = k1 P + k2 phi(P): 2n points, 127-bit scalars
//   msm_count       signed digits of every scalar, bucket histogram (integer atomics)
//   msm_scatter     point indices (sign in bit 31) sorted by bucket: counting sort
//   msm_chunk_pieces how many K-entry chunks each bucket spans (its pieces)
//   msm_piece_map   the bucket of each piece
//   msm_accumulate  thread t sums entries t K .. (t + 1) K (mixed XYZZ additions),
//                   one partial sum per bucket it touches
//   msm_sum_pieces  pieces of one bucket summed G at a time, until at most G per bucket
//   msm_bucket_sums the pieces of each bucket summed into one XYZZ bucket
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

// Software prefetch, a bit mask (cuzklab.msm.gpu.PREFETCH): bit 0, the
// accumulation loads each sort entry one addition ahead and asks L2 for its
// point then; bit 1, the batch-affine rounds load each pair's map and sort
// entries ahead (two and one steps), bit 2 (with bit 1) they also ask L2 for
// the next pair's points. Without a bit each load happens when it is needed.
#ifndef CUZK_MSM_PREFETCH
#define CUZK_MSM_PREFETCH 3
#endif
#define CUZK_PREFETCH_ACC ((CUZK_MSM_PREFETCH) & 1)
#define CUZK_PREFETCH_ROUNDS (((CUZK_MSM_PREFETCH) >> 1) & 1)
#define CUZK_PREFETCH_ROUND_POINTS (((CUZK_MSM_PREFETCH) >> 2) & 1)

// L2 hints of the counting sort, a bit mask (cuzklab.msm.gpu.SORT_HINTS):
// bit 0, msm_count and msm_scatter load the scalars as streaming data (first
// to be evicted), so that they pass through L2 without pushing out the
// bucket fronts; bit 1, msm_scatter stores its entries with an evict-last
// policy, so that a front stays in L2 between the writes of its bucket.
#ifndef CUZK_SORT_HINTS
#define CUZK_SORT_HINTS 0
#endif

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

// 16 bytes of a scalar, for the sort (streaming with bit 0 of CUZK_SORT_HINTS).
__device__ __forceinline__ uint4 load_sort_scalar(const uint4* p) {
#if (CUZK_SORT_HINTS & 1) && defined(__CUDA_ARCH__)
  return __ldcs(p);
#else
  return *p;
#endif
}

// The L2 policy of the scatter's entry stores: evict-last with bit 1 of
// CUZK_SORT_HINTS (0, unused, otherwise and off the device).
__device__ __forceinline__ u64 entry_policy() {
  u64 policy = 0;
#if (CUZK_SORT_HINTS & 2) && defined(__CUDA_ARCH__)
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
  return policy;
}

__device__ __forceinline__ void store_entry(u32* p, u32 v, u64 policy) {
#if (CUZK_SORT_HINTS & 2) && defined(__CUDA_ARCH__)
  asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(p), "r"(v), "l"(policy) : "memory");
#else
  (void)policy;
  *p = v;
#endif
}

// Scalar i of an (n, 8) array (16-byte aligned, as CuPy's are), in two 16-byte
// loads; swords = 4 (scalars below 2^128: GLV's halves, whose upper words are 0)
// reads the low half only.
__device__ __forceinline__ void load_scalar(const u32* scalars, usize i, u32 swords, u32 s[10]) {
  const uint4* p = reinterpret_cast<const uint4*>(scalars + 8 * i);
  const uint4 lo = load_sort_scalar(p);
  s[0] = lo.x; s[1] = lo.y; s[2] = lo.z; s[3] = lo.w;
  if (swords > 4) {
    const uint4 hi = load_sort_scalar(p + 1);
    s[4] = hi.x; s[5] = hi.y; s[6] = hi.z; s[7] = hi.w;
  } else {
    s[4] = 0; s[5] = 0; s[6] = 0; s[7] = 0;
  }
  s[8] = 0; s[9] = 0;
}

// Bucket key of digit magnitude mag of window w: per-window buckets (key
// w nb + mag - 1, entry i), or, with precomputed bases (shared != 0: point
// w n + i is 2^(c w) P_i), one set of buckets for every window (key mag - 1,
// entry w n + i).
__device__ __forceinline__ u32 bucket_key(u32 shared, u32 w, u32 nb, u32 mag) {
  return shared ? mag - 1 : w * nb + mag - 1;
}

// Ask L2 for the 32-byte sectors of coordinate i of a (n, C::WORDS) array, a
// load that a loop will make one step later (a no-op in the host emulation).
template <class C>
__device__ __forceinline__ void prefetch_coord(const u32* base, usize i) {
#if defined(__CUDA_ARCH__)
  constexpr int BYTES = C::WORDS * 4;
  const char* p = reinterpret_cast<const char*>(base + i * C::WORDS);
#pragma unroll
  for (int o = 0; o < BYTES; o += 32) asm volatile("prefetch.global.L2 [%0];" ::"l"(p + o));
  if (BYTES % 32) asm volatile("prefetch.global.L2 [%0];" ::"l"(p + BYTES - 1));
#else
  (void)base; (void)i;
#endif
}

template <class C>
__device__ __forceinline__ void prefetch_point(const u32* xs, const u32* ys, usize i) {
  prefetch_coord<C>(xs, i);
  prefetch_coord<C>(ys, i);
}

// The run (bucket) of sorted position k between runs lo and hi: the b in [lo, hi)
// with off[b] <= k < off[b + 1], for non-decreasing offsets with off[lo] <= k <
// off[hi], by bisection.
__device__ __forceinline__ u32 run_between(const u32* off, u32 lo, u32 hi, u32 k) {
  while (hi - lo > 1) {
    const u32 mid = (lo + hi) >> 1;
    if (off[mid] <= k) lo = mid; else hi = mid;
  }
  return lo;
}

// The run of position k among all nb runs (off[nb] > k).
__device__ __forceinline__ u32 run_of(const u32* off, u32 nb, u32 k) { return run_between(off, 0, nb, k); }

// The same from a run b at or before it (off[b] <= k), galloping: steps of 1,
// 2, 4, ... then bisection, so that a long stretch of empty buckets costs a
// few loads. Such stretches exist: the top window's buckets above its largest
// digit (10,717 of 2^15 for GLV halves at c = 16) lie in the middle of the
// buckets when several MSMs or batches share one sort, and a walk of one
// bucket a step over them took ~1 ms in each pair map of the prover's tails.
__device__ __forceinline__ u32 run_from(const u32* off, u32 b, u32 nb, u32 k) {
  if (off[b + 1] > k) return b;
  u32 lo = b + 1, hi, step = 1;  // off[lo] <= k < off[hi]
  for (;;) {
    hi = lo + step;
    if (hi >= nb) { hi = nb; break; }
    if (off[hi] > k) break;
    lo = hi;
    step <<= 1;
  }
  return run_between(off, lo, hi, k);
}

}  // namespace msm

// Batches of points (an upload in parts): scalar i belongs to point i mod
// norig, and points of batch (i mod norig) / bsize have buckets of their own,
// after those of the batches before (nwin nb buckets a batch), so that each
// batch's entries form one contiguous range of the sort. norig = bsize = n:
// a single batch.
__device__ __forceinline__ u32 batch_base(usize i, u32 norig, u32 bsize, u32 nwin, u32 nb) {
  return (u32)((i % norig) / bsize) * nwin * nb;
}

// counts[key] += 1 for every non-zero signed digit d of window w.
extern "C" __global__ void msm_count(const u32* scalars, u32 n, u32 c, u32 nwin, u32 shared,
                                     u32 norig, u32 bsize, u32* counts, u32 swords) {
  const usize i = CUZK_TID;
  if (i >= n) return;
  u32 s[10];
  msm::load_scalar(scalars, i, swords, s);
  msm::fold_scalar(s);
  const u32 half = 1u << (c - 1), nb = half;
  const u32 base = batch_base(i, norig, bsize, nwin, nb);
  u32 carry = 0;
  for (u32 w = 0; w < nwin; w++) {
    u32 d = msm::chunk(s, w * c, c) + carry;
    carry = d > half ? 1u : 0u;
    const u32 mag = carry ? (1u << c) - d : d;
    if (mag) atomicAdd(&counts[base + msm::bucket_key(shared, w, nb, mag)], 1u);
  }
}

// entries[cursor[key]++] = entry | (negative << 31): the counting sort's scatter,
// for the windows [w_lo, w_hi) (the digits below w_lo are still recoded, for
// their carry). A scatter writes at the front of every bucket it fills; when
// the fronts of all windows outgrow L2 the host launches one window group at a
// time (gpu.SCATTER_FRONT_BYTES), so that only one group's fronts are live.
extern "C" __global__ void msm_scatter(const u32* scalars, u32 n, u32 c, u32 nwin, u32 shared,
                                       u32 norig, u32 bsize, u32* cursor, u32* entries,
                                       u32 w_lo, u32 w_hi, u32 swords) {
  const usize i = CUZK_TID;
  if (i >= n) return;
  u32 s[10];
  msm::load_scalar(scalars, i, swords, s);
  const bool folded = msm::fold_scalar(s);
  const u32 half = 1u << (c - 1), nb = half;
  const u32 base = batch_base(i, norig, bsize, nwin, nb);
  u32 carry = 0;
  const u32 w_end = w_hi < nwin ? w_hi : nwin;
  const u64 keep = msm::entry_policy();
  for (u32 w = 0; w < w_end; w++) {
    u32 d = msm::chunk(s, w * c, c) + carry;
    carry = d > half ? 1u : 0u;
    const u32 mag = carry ? (1u << c) - d : d;
    if (mag && w >= w_lo) {
      const u32 negative = (carry ? 1u : 0u) ^ (folded ? 1u : 0u);
      const u32 pos = atomicAdd(&cursor[base + msm::bucket_key(shared, w, nb, mag)], 1u);
      msm::store_entry(entries + pos, (shared ? w * n + (u32)i : (u32)i) | (negative << 31), keep);
    }
  }
}

// Accumulation in equal chunks: thread t adds entries t K .. (t + 1) K of the
// sorted array, across bucket boundaries, so every thread of a warp does the
// same number of additions (with one thread per bucket or per piece of a
// bucket, a warp runs as long as its longest bucket). A chunk writes one
// partial sum per bucket it touches; the pieces of bucket b are the chunks its
// entries span, in order, so the partial of (b, t) goes to
// pieceoff[b] + t - offsets[b] / K. Thread t is t0 + the thread's index (a
// launch may cover only some chunks: those of one batch of points).
template <class C>
__device__ __forceinline__ void accumulate_chunk(const u32* xs, const u32* ys, const u32* entries,
                                                 const u32* offsets, u32 nbuckets,
                                                 const u32* pieceoff, u32 K, u32* partials, u32 t0) {
  const u32 E = offsets[nbuckets];
  const usize t = t0 + CUZK_TID;
  if (t * K >= E) return;
  const u32 k0 = (u32)(t * K), k1 = k0 + K < E ? k0 + K : E;
  u32 b = msm::run_of(offsets, nbuckets, k0), bend = offsets[b + 1];
  xyzz<C> acc = xyzz_inf<C>();
  // entries[k + 1] is loaded one addition ahead and its point asked of L2
  // then, so that the gather of each point is not waited for (bit 0 of
  // CUZK_MSM_PREFETCH)
  u32 e = entries[k0], e_next = (CUZK_PREFETCH_ACC && k0 + 1 < k1) ? entries[k0 + 1] : 0u;
  for (u32 k = k0; k < k1; k++) {
    if (k == bend) {
      xyzz_store(partials, pieceoff[b] + (u32)t - offsets[b] / K, acc);
      acc = xyzz_inf<C>();
      b = msm::run_from(offsets, b + 1, nbuckets, k);
      bend = offsets[b + 1];
    }
    u32 e_after = 0;
    if (CUZK_PREFETCH_ACC) {
      if (k + 1 < k1) msm::prefetch_point<C>(xs, ys, e_next & 0x7fffffffu);
      if (k + 2 < k1) e_after = entries[k + 2];
    } else if (k > k0) {
      e = entries[k];
    }
    affine<C> q = affine_load<C>(xs, ys, e & 0x7fffffffu);
    if (e >> 31) q.y = -q.y;
    acc = xyzz_add_mixed(acc, q);
    if (CUZK_PREFETCH_ACC) { e = e_next; e_next = e_after; }
  }
  xyzz_store(partials, pieceoff[b] + (u32)t - offsets[b] / K, acc);
}

// MINB: resident blocks of 128 threads per SM the registers must allow
// (``__launch_bounds__``); 4 (128 registers) on an H200: 2^20 accumulation
// 14.0 ms against 21.7 ms with no register cap (the compiler then takes more).
template <class C, int MINB>
__global__ void __launch_bounds__(128, MINB) msm_accumulate(const u32* xs, const u32* ys, const u32* entries,
                                                            const u32* offsets, u32 nbuckets,
                                                            const u32* pieceoff, u32 K, u32* partials,
                                                            u32 t0) {
  accumulate_chunk<C>(xs, ys, entries, offsets, nbuckets, pieceoff, K, partials, t0);
}

// piece_count[b] = the number of K-chunks that bucket b's entries span.
extern "C" __global__ void msm_chunk_pieces(const u32* offsets, u32 nbuckets, u32 K, u32* piece_count) {
  const usize b = CUZK_TID;
  if (b >= nbuckets) return;
  const u32 beg = offsets[b], end = offsets[b + 1];
  piece_count[b] = end > beg ? (end - 1) / K - beg / K + 1 : 0u;
}

// Accumulation by pieces (G2): thread p sums piece p, at most K entries of one
// bucket (pieces of bucket b: pieceoff[b] .. pieceoff[b + 1]).
template <class C>
__global__ void msm_accumulate_pieces(const u32* xs, const u32* ys, const u32* entries,
                                      const u32* offsets, const u32* pieceoff,
                                      const u32* piece_bucket, u32 npieces, u32 K, u32* partials) {
  const usize p = CUZK_TID;
  if (p >= npieces) return;
  const u32 b = piece_bucket[p];
  const u32 beg = offsets[b] + ((u32)p - pieceoff[b]) * K;
  const u32 stop = offsets[b + 1], end = beg + K < stop ? beg + K : stop;
  xyzz<C> acc = xyzz_inf<C>();
  for (u32 k = beg; k < end; k++) {
    const u32 e = entries[k];
    affine<C> q = affine_load<C>(xs, ys, e & 0x7fffffffu);
    if (e >> 31) q.y = -q.y;
    acc = xyzz_add_mixed(acc, q);
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

// buckets[b] = the sum of the pieces of bucket b (at most GROUP: the host sums
// larger counts first with msm_sum_pieces), or infinity when it has none.
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

// ---- Batch-affine pre-reduction (G1): rounds of pairwise affine additions ----
// A round halves every bucket's run of sorted points: output j of bucket b is
// the sum of the source points s, s + 1 (s = src_off[b] + 2 (j - dst_off[b])),
// or the point s alone when it is the last of an odd run. Every sum is an
// affine addition P + Q = (l^2 - x_P - x_Q, l (x_P - x) - y_P), l = (y_Q -
// y_P) / (x_Q - x_P) (or 3 x^2 / 2 y for P = Q): with the inverses of a
// thread's G denominators shared by Montgomery's trick (one inversion and 3
// multiplications each), an addition costs 5M + 1S + 1/G of an inversion
// (inverse_bgcd: ~40M for Fp), against 8M + 2S for a mixed XYZZ addition. The runs left after the rounds
// go through msm_accumulate as before (cuzklab.msm.gpu drives this).
namespace msm {
enum { PAIR_ADD = 0, PAIR_DBL = 1, PAIR_FIRST = 2, PAIR_SECOND = 3, PAIR_INF = 4 };

// A source point as its index in xs, ys with its sign in bit 31: entry k of
// the sort (indexed) or, dense, k itself. A pair's two are resolved one step
// before they are read, so that their points can be asked of L2 first.
struct pair_src {
  u32 p, q;     // the two points (q unused when single)
  bool single;  // a lone point at the end of an odd run
};

__device__ __forceinline__ pair_src resolve_pair(const u32* entries, u32 indexed, u32 pm) {
  pair_src r;
  const u32 s = pm & 0x7fffffffu;
  r.single = (pm >> 31) != 0;
  r.p = indexed ? entries[s] : s;
  r.q = r.single ? 0u : (indexed ? entries[s + 1] : s + 1);
  return r;
}

template <class C>
__device__ __forceinline__ typename C::F src_x(const u32* xs, u32 e) {
  return C::load(xs, e & 0x7fffffffu);
}

template <class C>
__device__ __forceinline__ typename C::F src_y(const u32* ys, u32 e) {
  typename C::F y = C::load(ys, e & 0x7fffffffu);
  if (e >> 31) y = -y;
  return y;
}

// The x coordinates (y too when `both`) of a pair asked of L2.
template <class C>
__device__ __forceinline__ void prefetch_pair(const u32* xs, const u32* ys, const pair_src& ps, bool both) {
  prefetch_coord<C>(xs, ps.p & 0x7fffffffu);
  if (both) prefetch_coord<C>(ys, ps.p & 0x7fffffffu);
  if (ps.single) return;
  prefetch_coord<C>(xs, ps.q & 0x7fffffffu);
  if (both) prefetch_coord<C>(ys, ps.q & 0x7fffffffu);
}

// The kind of the pair (P, Q) (or P alone), and for an addition or a
// doubling its slope's denominator; the y coordinates are read only where
// the x coordinates do not decide (an x of 0, which infinity (0, 0) has, or
// equal x).
template <class C>
__device__ __forceinline__ int pair_den(const u32* xs, const u32* ys, const pair_src& ps, typename C::F& den) {
  typedef typename C::F F;
  if (ps.single) return PAIR_FIRST;
  const F px = src_x<C>(xs, ps.p), qx = src_x<C>(xs, ps.q);
  const bool pz = f_is_zero(px), qz = f_is_zero(qx), same = px == qx;
  if (!(pz || qz || same)) { den = qx - px; return PAIR_ADD; }
  const F py = src_y<C>(ys, ps.p), qy = src_y<C>(ys, ps.q);
  if (qz && f_is_zero(qy)) return PAIR_FIRST;   // Q is infinity
  if (pz && f_is_zero(py)) return PAIR_SECOND;  // P is infinity
  if (!same) { den = qx - px; return PAIR_ADD; }
  if (py != qy || f_is_zero(py)) return PAIR_INF;  // Q = -P (or P of order 2)
  den = f_dbl(py);
  return PAIR_DBL;
}

// The same pair with every coordinate read: the kind, and in px, py the
// result of a copy (FIRST, SECOND) or P of an addition or doubling, with qx
// (Q's x, or P's for a doubling) and the slope's numerator and denominator.
template <class C>
__device__ __forceinline__ int pair_full(const u32* xs, const u32* ys, const pair_src& ps,
                                         typename C::F& px, typename C::F& py,
                                         typename C::F& qx, typename C::F& num, typename C::F& den) {
  typedef typename C::F F;
  px = src_x<C>(xs, ps.p);
  py = src_y<C>(ys, ps.p);
  if (ps.single) return PAIR_FIRST;
  qx = src_x<C>(xs, ps.q);
  const F qy = src_y<C>(ys, ps.q);
  if (f_is_zero(qx) && f_is_zero(qy)) return PAIR_FIRST;
  if (f_is_zero(px) && f_is_zero(py)) { px = qx; py = qy; return PAIR_SECOND; }
  if (px != qx) { den = qx - px; num = qy - py; return PAIR_ADD; }
  if (py != qy || f_is_zero(py)) return PAIR_INF;
  const F x2 = C::sqr(px);
  num = f_dbl(x2) + x2;
  den = f_dbl(py);
  return PAIR_DBL;
}

// Outputs of one round a warp of msm_pair_map maps (32 per lane).
constexpr u32 PAIR_MAP_WARP_OUTPUTS = 1024;

// pairs[j] = s | (single << 31) for the outputs j of one round. Warp w takes
// the outputs [1024 w, 1024 (w + 1)) and lane l those that are l mod 32, so
// each store of the warp fills 32 consecutive words (one 128-byte line): a
// thread that wrote 32 consecutive outputs of its own made every store of
// its warp touch 32 lines, and the map took ~1 ms a round at G1 2^24.
// Each lane finds the run of its first output by bisection, then gallops on.
__device__ __forceinline__ void pair_map(const u32* src_off, const u32* dst_off, u32 nb, u32 m, u32* pairs) {
  const usize t = CUZK_TID;
  const usize w0 = (t >> 5) * (usize)PAIR_MAP_WARP_OUTPUTS;
  if (w0 >= m) return;
  const usize end = w0 + PAIR_MAP_WARP_OUTPUTS < m ? w0 + PAIR_MAP_WARP_OUTPUTS : (usize)m;
  const u32 j0 = (u32)(w0 + (t & 31));
  if (j0 >= end) return;
  u32 b = run_of(dst_off, nb, j0);
  for (u32 j = j0; j < end; j += 32) {
    b = run_from(dst_off, b, nb, j);
    const u32 s = src_off[b] + 2 * (j - dst_off[b]);
    pairs[j] = s | ((s + 1 >= src_off[b + 1] ? 1u : 0u) << 31);
  }
}
}  // namespace msm

extern "C" __global__ void msm_pair_map(const u32* src_off, const u32* dst_off, u32 nb, u32 m, u32* pairs) {
  msm::pair_map(src_off, dst_off, nb, m, pairs);
}

// One round over the outputs j0 <= j < j1. Lane l of warp w takes the outputs
// j0 + 32 G w + 32 g + l, g < G (a warp's loads and stores run along 32
// consecutive outputs). Forward: the prefix products of its denominators,
// each stored in the x slot of its output; one inversion; backward: each
// denominator's inverse from the running inverse and the prefix before it,
// then the sum. The sources (xs, ys[, entries]) must not overlap the outputs.
template <class C, int MINB>
__global__ void __launch_bounds__(128, MINB) msm_affine_round(const u32* xs, const u32* ys, const u32* entries,
                                                              u32 indexed, const u32* pairs, u32 j0, u32 j1,
                                                              u32 G, u32* oxs, u32* oys) {
  typedef typename C::F F;
  const usize T = CUZK_TID;
  const usize base = (usize)j0 + (T >> 5) * 32 * (usize)G + (T & 31);
  if (base >= j1) return;
  const usize left = ((usize)j1 - base + 31) / 32;
  const u32 cnt = left < G ? (u32)left : G;
  // With bit 1 of CUZK_MSM_PREFETCH each pass keeps a pipeline: the pair map
  // of output g + 2 is loaded, the sort entries of g + 1 (loaded one step
  // ago) are at hand (bit 2: their points are asked of L2), output g is
  // computed.
  const bool pf = CUZK_PREFETCH_ROUNDS != 0;
#define CUZK_OUT(g) (base + 32 * (usize)(g))
  F acc = C::one();
  {
    msm::pair_src cur = msm::resolve_pair(entries, indexed, pairs[CUZK_OUT(0)]), nxt = cur;
    u32 pm_after = 0;
    if (pf && cnt > 1) nxt = msm::resolve_pair(entries, indexed, pairs[CUZK_OUT(1)]);
    if (pf && cnt > 2) pm_after = pairs[CUZK_OUT(2)];
    for (u32 g = 0; g < cnt; g++) {
      const usize j = CUZK_OUT(g);
      msm::pair_src after = nxt;
      if (pf) {
        if (CUZK_PREFETCH_ROUND_POINTS && g + 1 < cnt) msm::prefetch_pair<C>(xs, ys, nxt, false);
        if (g + 2 < cnt) after = msm::resolve_pair(entries, indexed, pm_after);
        if (g + 3 < cnt) pm_after = pairs[CUZK_OUT(g + 3)];
      } else if (g > 0) {
        cur = msm::resolve_pair(entries, indexed, pairs[j]);
      }
      F den;
      if (msm::pair_den<C>(xs, ys, cur, den) <= msm::PAIR_DBL) acc = C::mul(acc, den);
      C::store(oxs, j, acc);
      if (pf) { cur = nxt; nxt = after; }
    }
  }
  F inv = f_inverse_fast(acc);
  {
    const int last = (int)cnt - 1;
    msm::pair_src cur = msm::resolve_pair(entries, indexed, pairs[CUZK_OUT(last)]), nxt = cur;
    u32 pm_after = 0;
    if (pf && last >= 1) nxt = msm::resolve_pair(entries, indexed, pairs[CUZK_OUT(last - 1)]);
    if (pf && last >= 2) pm_after = pairs[CUZK_OUT(last - 2)];
    for (int g = last; g >= 0; g--) {
      const usize j = CUZK_OUT(g);
      msm::pair_src after = nxt;
      if (pf) {
        if (CUZK_PREFETCH_ROUND_POINTS && g >= 1) msm::prefetch_pair<C>(xs, ys, nxt, true);
        if (CUZK_PREFETCH_ROUND_POINTS && g >= 2)
          msm::prefetch_coord<C>(oxs, CUZK_OUT(g - 2));  // the prefix the next step reads
        if (g >= 2) after = msm::resolve_pair(entries, indexed, pm_after);
        if (g >= 3) pm_after = pairs[CUZK_OUT(g - 3)];
      } else if (g < last) {
        cur = msm::resolve_pair(entries, indexed, pairs[j]);
      }
      F px, py, qx, num, den;
      const int kind = msm::pair_full<C>(xs, ys, cur, px, py, qx, num, den);
      affine<C> r;
      if (kind <= msm::PAIR_DBL) {
        const F dinv = g > 0 ? C::mul(inv, C::load(oxs, j - 32)) : inv;
        inv = C::mul(inv, den);
        const F lam = C::mul(num, dinv);
        r.x = C::sqr(lam) - px - qx;
        r.y = C::mul(lam, px - r.x) - py;
      } else if (kind == msm::PAIR_INF) {
        r.x = C::zero(); r.y = C::zero();
      } else {
        r.x = px; r.y = py;
      }
      C::store(oxs, j, r.x);
      C::store(oys, j, r.y);
      if (pf) { cur = nxt; nxt = after; }
    }
  }
#undef CUZK_OUT
}

// ---- GLV split (G1): k P = k1 P + k2 phi(P), phi(x, y) = (beta x, y) = lambda (x, y) ----
// consts (cuzklab.msm.glv.kernel_constants, layout CONST_LAYOUT there): beta in
// Montgomery form (12 words), lambda (4), floor(lambda / 2) (4) and the Barrett
// reciprocal MU = floor(2^256 / lambda) (5). Integers below are little-endian
// words; the 5-word ones are two's complement (160 bits).
namespace msm {
constexpr int GLV_BETA = 0, GLV_LAMBDA = 12, GLV_HALF = 16, GLV_MU = 20;

// Sign of a - b for non-negative 5-word a and 4-word b.
__device__ __forceinline__ int cmp5(const u32 a[5], const u32* b) {
  if (a[4]) return 1;
#pragma unroll
  for (int i = 3; i >= 0; i--)
    if (a[i] != b[i]) return a[i] > b[i] ? 1 : -1;
  return 0;
}

// a -= b (4-word b, plus `extra` added to b), modulo 2^160.
__device__ __forceinline__ void sub5(u32 a[5], const u32* b, u32 extra) {
  u64 borrow = 0, carry = extra;
#pragma unroll
  for (int i = 0; i < 5; i++) {
    const u64 bi = (i < 4 ? (u64)b[i] : 0ull) + carry;  // b + extra, word by word
    carry = bi >> 32;
    const u64 d = (u64)a[i] - (bi & 0xffffffffull) - borrow;
    a[i] = (u32)d;
    borrow = (d >> 63) & 1u;
  }
}

// a += v (a small u32, possibly "negative" as 0xffffffff = -1), modulo 2^160.
__device__ __forceinline__ void add5_small(u32 a[5], u32 v) {
  const u32 ext = (v >> 31) ? 0xffffffffu : 0u;  // sign extension
  u64 carry = 0;
#pragma unroll
  for (int i = 0; i < 5; i++) {
    const u64 t = (u64)a[i] + (i == 0 ? v : ext) + carry;
    a[i] = (u32)t;
    carry = t >> 32;
  }
}

// |a| in place for a two's-complement 5-word a; returns whether a was negative.
__device__ __forceinline__ bool abs5(u32 a[5]) {
  if (!(a[4] >> 31)) return false;
  u64 carry = 1;
#pragma unroll
  for (int i = 0; i < 5; i++) {
    const u64 t = (u64)(~a[i]) + carry;
    a[i] = (u32)t;
    carry = t >> 32;
  }
  return true;
}

// out = a * b mod 2^(32 NOUT) for NA-word a and NB-word b (schoolbook, little-endian words).
template <int NA, int NB, int NOUT>
__device__ __forceinline__ void mul_words(const u32* a, const u32* b, u32 out[NOUT]) {
#pragma unroll
  for (int i = 0; i < NOUT; i++) out[i] = 0;
#pragma unroll
  for (int i = 0; i < NA; i++) {
    u64 carry = 0;
#pragma unroll
    for (int j = 0; j < NB; j++) {
      if (i + j >= NOUT) break;
      const u64 t = (u64)a[i] * b[j] + out[i + j] + carry;
      out[i + j] = (u32)t;
      carry = t >> 32;
    }
    if (i + NB < NOUT) out[i + NB] = (u32)carry;
  }
}

// k (canonical, < r) -> |k1|, |k2| (< 2^127, in 5 words) and their signs, with
// k1 + k2 lambda = k mod r: k2 = floor(k / lambda), k1 = k - k2 lambda, balanced.
__device__ __forceinline__ void glv_decompose(const u32 k[8], const u32* cst, u32 k1[5], u32 k2[5],
                                              bool& neg1, bool& neg2) {
  const u32* lam = cst + GLV_LAMBDA;
  // q = floor(k MU / 2^256): words 8..12 of the 13-word product; q is
  // floor(k / lambda) or one less (MU >= 2^256 / lambda - 1 and k < 2^256)
  u32 prod[13];
  mul_words<8, 5, 13>(k, cst + GLV_MU, prod);
#pragma unroll
  for (int i = 0; i < 5; i++) k2[i] = prod[8 + i];
  // k1 = k - q lambda < 2 lambda < 2^129: exact modulo 2^160
  u32 ql[5];
  mul_words<5, 4, 5>(k2, lam, ql);
  u64 borrow = 0;
#pragma unroll
  for (int i = 0; i < 5; i++) {
    const u64 d = (u64)k[i] - ql[i] - borrow;
    k1[i] = (u32)d;
    borrow = (d >> 63) & 1u;
  }
  if (cmp5(k1, lam) >= 0) { sub5(k1, lam, 0); add5_small(k2, 1u); }  // the Barrett correction
  // balance: k1 > lambda / 2 -> (k1 - lambda, k2 + 1)
  if (cmp5(k1, cst + GLV_HALF) > 0) {
    sub5(k1, lam, 0);
    add5_small(k2, 1u);
  }
  // k2 > lambda / 2 -> (k1 - 1, k2 - lambda - 1), as k2 lambda = (k2 - lambda - 1) lambda - 1 mod r
  if (cmp5(k2, cst + GLV_HALF) > 0) {
    sub5(k2, lam, 1u);
    add5_small(k1, 0xffffffffu);
  }
  neg1 = abs5(k1);
  neg2 = abs5(k2);
}
}  // namespace msm

// Thread i splits scalar i: points i and n + i of the output are +-P_i and
// +-phi(P_i) (infinity stays (0, 0)), scalars i and n + i are |k1| and |k2|
// (8 words, the upper four 0), with k_i = k1 + k2 lambda mod r. `parts`: bit 0
// writes the scalars, bit 1 the points (which then must be on the device), so
// that the scalars can be split and sorted while the points still upload.
// `half`: where the second half of the outputs starts (n, or the whole MSM's
// n when this launch splits a batch: pointers then start at the batch).
extern "C" __global__ void msm_glv_split(const u32* xs, const u32* ys, const u32* scalars, u32 n,
                                         const u32* consts, u32* oxs, u32* oys, u32* oscalars,
                                         u32 parts, u32 half) {
  const usize i = CUZK_TID;
  if (i >= n) return;
  u32 k[8], k1[5], k2[5];
  const uint4* kp = reinterpret_cast<const uint4*>(scalars + 8 * i);  // 16-byte loads
  const uint4 ka = kp[0], kb = kp[1];
  k[0] = ka.x; k[1] = ka.y; k[2] = ka.z; k[3] = ka.w;
  k[4] = kb.x; k[5] = kb.y; k[6] = kb.z; k[7] = kb.w;
  bool neg1, neg2;
  msm::glv_decompose(k, consts, k1, k2, neg1, neg2);
  const usize j = (usize)half + i;
  if (parts & 1u) {
    uint4* o1 = reinterpret_cast<uint4*>(oscalars + 8 * i);
    uint4* o2 = reinterpret_cast<uint4*>(oscalars + 8 * j);
    o1[0] = make_uint4(k1[0], k1[1], k1[2], k1[3]);
    o1[1] = make_uint4(0u, 0u, 0u, 0u);
    o2[0] = make_uint4(k2[0], k2[1], k2[2], k2[3]);
    o2[1] = make_uint4(0u, 0u, 0u, 0u);
  }
  if (!(parts & 2u)) return;
  const fp_t x = load<FpTraits>(xs, i), y = load<FpTraits>(ys, i);
  const fp_t ny = -y;
  const fp_t beta = load_unaligned<FpTraits>(consts + msm::GLV_BETA);
  store<FpTraits>(oxs, i, x);
  store<FpTraits>(oys, i, neg1 ? ny : y);
  store<FpTraits>(oxs, j, fp_mul_ool(x, beta));
  store<FpTraits>(oys, j, neg2 ? ny : y);
}
