// Radix-2 NTT over BLS12-381 Fr in a few passes over global memory.
//
// A transform of size n = 2^log_n is split into passes; each pass owns a
// group of b consecutive index bits [lo, lo + b) ("mid") and, per block, a
// tile of M = 2^b mid values times C = 2^c adjacent low values (coalesced
// loads of C elements). In shared memory it runs the b radix-2 stages of an
// M-point transform over mid, with the twiddles of an M-point transform, and
// multiplies each element by the "external" twiddle omega^(low * k1 * n /
// 2^(lo+b)), k1 being the mid output index. This is the four-step split of a
// 2^(lo+b)-point transform applied recursively from the top bits down.
//
//   dif_pass: natural-order input, bit-reversed output (decimation in
//             frequency; external twiddle applied after the stages).
//   dit_pass: the transpose: bit-reversed input, natural-order output
//             (external twiddle before the stages, passes from the low bits up).
//
// W holds omega^j for j < n/2 (omega a primitive n-th root of unity);
// omega^(j + n/2) = -omega^j, and the inverse uses omega^(n - j).
#include "cuzk_field.cuh"
using namespace cuzk;

// Build-time settings (``gpu.KERNEL_DEFINES`` passes them as -D options):
//   NTT_MAXT, NTT_MINB: the pass kernels' launch bounds (most threads per
//     block, fewest resident blocks per SM: the register budget);
//   NTT_TWF64: the in-tile twiddles are kept in shared memory already cut
//     into the FP64 multiplier's limbs (fe_f64, 40 bytes each), so that the
//     multiplies by them skip that conversion (only with the FP64 Fr
//     multiplier; with an integer one the setting does nothing);
//   CUZK_FR_MUL_EO: every Fr multiply on the even/odd-row integer
//     multiplier (cuzk_mont_eo.cuh) instead of the module's default.
//   NTT_LAZY_SUB (default 1, with CUZK_FR_MUL_EO only): a DIF difference
//     that is multiplied next is left as u - v + m, in [1, 2m), without the
//     conditional correction: mont_mul_eo takes a first operand below 2m
//     (see diff_to_mul below).
// Results are the same under every setting: only the speed changes.
#ifndef NTT_MAXT
#define NTT_MAXT 256
#endif
#ifndef NTT_MINB
#define NTT_MINB 3
#endif
#ifndef NTT_TWF64
#define NTT_TWF64 0
#endif
#ifndef NTT_LAZY_SUB
#define NTT_LAZY_SUB 1
#endif

__device__ __forceinline__ fr_t twiddle(const u32* W, usize e, int log_n, int inverse)
{
    const usize n = (usize)1 << log_n, half = n >> 1;
    if (inverse) e = (n - e) & (n - 1);
    if (e < half) return load<FrTraits>(W, e);
    return neg<FrTraits>(load<FrTraits>(W, e - half));
}

// u - v for a multiply that follows (as its first operand, the one whose
// words run along mont_mul_eo's rows). With NTT_LAZY_SUB on the even/odd
// multiplier: u - v + m, in [1, 2m) for u, v < m, computed without the
// comparison and the conditional correction of sub (two carry chains
// instead of three). mont_mul_eo(a, b) with a < 2m, b < m is still exact
// and fully reduced for Fr: its result (a b + Q m) / R < 2m m / R + m <
// 1.91 m fits N words and one conditional subtraction leaves it below m,
// and its running value stays below 3m, far inside the N + 1 words of
// each accumulator (tests/ntt check the transforms against the CPU path).
#define NTT_LAZY (NTT_LAZY_SUB && CUZK_FR_MUL_EO && !NTT_TWF64)
__device__ __forceinline__ fr_t diff_to_mul(const fr_t& u, const fr_t& v)
{
#if NTT_LAZY
    u32 t[8];
    t[0] = ptx::sub_cc(u.l[0], v.l[0]);
#pragma unroll
    for (int j = 1; j < 8; j++) t[j] = ptx::subc_cc(u.l[j], v.l[j]);
    fr_t r;
    r.l[0] = ptx::add_cc(t[0], FrTraits::mod(0));
#pragma unroll
    for (int j = 1; j < 7; j++) r.l[j] = ptx::addc_cc(t[j], FrTraits::mod(j));
    r.l[7] = ptx::addc(t[7], FrTraits::mod(7));
    return r;
#else
    return u - v;
#endif
}

__device__ __forceinline__ usize bit_reverse(usize x, int bits)
{
    return bits == 0 ? 0 : (usize)(__brevll((unsigned long long)x) >> (64 - bits));
}

// Shared tiles are stored as two planes of uint4 (words 0-3 of every element,
// then words 4-7), so that a warp reading consecutive elements touches
// consecutive 16-byte words: no bank conflicts, half the wavefronts of an
// array-of-structs layout. ``stride`` is the plane size in elements.
__device__ __forceinline__ fr_t sh_load(const uint4* sh, int i, int stride)
{
    fr_t r;
    uint4 a = sh[i], b = sh[stride + i];
    r.l[0] = a.x; r.l[1] = a.y; r.l[2] = a.z; r.l[3] = a.w;
    r.l[4] = b.x; r.l[5] = b.y; r.l[6] = b.z; r.l[7] = b.w;
    return r;
}

__device__ __forceinline__ void sh_store(uint4* sh, int i, int stride, const fr_t& v)
{
    sh[i] = make_uint4(v.l[0], v.l[1], v.l[2], v.l[3]);
    sh[stride + i] = make_uint4(v.l[4], v.l[5], v.l[6], v.l[7]);
}

// The in-tile twiddles omega_M^j, j < M/2, in shared memory: Fr elements as
// two uint4 planes, or with NTT_TWF64 their FP64 limbs as NL double planes.
#if NTT_TWF64 && CUZK_FR_MUL_F64 && !CUZK_FR_MUL_EO
typedef fe_f64<FrTraits> tw_t;
constexpr int TW_NL = f64detail::shape<FrTraits>::NL;
__device__ __forceinline__ tw_t tw_load(const uint4* wm, int j, int half)
{
    const double* p = reinterpret_cast<const double*>(wm);
    tw_t r;
#pragma unroll
    for (int k = 0; k < TW_NL; k++) r.d[k] = p[k * half + j];
    return r;
}
__device__ __forceinline__ void tw_store(uint4* wm, int j, int half, const fr_t& w)
{
    double* p = reinterpret_cast<double*>(wm);
    const tw_t r = to_f64<FrTraits>(w);
#pragma unroll
    for (int k = 0; k < TW_NL; k++) p[k * half + j] = r.d[k];
}
__device__ __forceinline__ fr_t operator*(const fr_t& a, const tw_t& b) { return mont_mul_f64<FrTraits>(a, b); }
#else
typedef fr_t tw_t;
__device__ __forceinline__ tw_t tw_load(const uint4* wm, int j, int half) { return sh_load(wm, j, half); }
__device__ __forceinline__ void tw_store(uint4* wm, int j, int half, const fr_t& w) { sh_store(wm, j, half, w); }
#endif

// The radix-2 stage of span 1 (its twiddle is 1): (u, v) -> (u + v, u - v),
// the same for DIF and DIT.
__device__ __forceinline__ void radix2_span1(uint4* tile, int T, int M, int C, int c,
                                             int tid, int nt)
{
    for (int q = tid; q < (M / 2) * C; q += nt) {
        const int col = q & (C - 1), r = q >> c;
        const int i0 = ((2 * r) << c) + col, i1 = ((2 * r + 1) << c) + col;
        fr_t u = sh_load(tile, i0, T), v = sh_load(tile, i1, T);
        sh_store(tile, i0, T, u + v);
        sh_store(tile, i1, T, u - v);
    }
}

// One radix-2 stage of span h = 2^t over the tile: butterflies (m0, m0 + h)
// with twiddle omega_{2h}^j = wm[j << (b - 1 - t)], j = m0 mod h (j = 0 needs
// no multiply). DIF: (u + v, (u - v) w); DIT: (u + v w, u - v w). One thread
// per butterfly: twice the threads of a radix-4 unit, for small transforms
// whose blocks are too few to hide the multiplier's latency.
template <bool DIT>
__device__ __forceinline__ void radix2_stage(uint4* tile, const uint4* wm, int b, int c, int t,
                                             int tid, int nt)
{
    const int M = 1 << b, C = 1 << c, T = M * C, h = 1 << t;
    for (int q = tid; q < (M / 2) * C; q += nt) {
        const int col = q & (C - 1), r = q >> c;
        const int j = r & (h - 1);
        const int m0 = ((r >> t) << (t + 1)) + j;
        const int i0 = (m0 << c) + col, i1 = ((m0 + h) << c) + col;
        fr_t u = sh_load(tile, i0, T), v = sh_load(tile, i1, T);
        if (DIT) {
            if (j) v = v * tw_load(wm, j << (b - 1 - t), M / 2);
            sh_store(tile, i0, T, u + v);
            sh_store(tile, i1, T, u - v);
        } else {
            const fr_t d = j ? diff_to_mul(u, v) * tw_load(wm, j << (b - 1 - t), M / 2) : u - v;
            sh_store(tile, i0, T, u + v);
            sh_store(tile, i1, T, d);
        }
    }
}

// The b radix-2 stages of the tile: M-point transforms of the C columns of a
// tile in shared memory laid out as (mid << c) + col, with the M/2 internal
// twiddles omega_M^j in wm.
//
// radix2: one radix-2 stage per sync (radix2_stage), DIF from span M/2 down,
// DIT from span 1 up. Otherwise:
// Stages run two at a time in registers (a radix-4 unit: four elements
// m0 + k h, k < 4, through stages s and s - 1), so a block syncs once per
// two stages; an odd b leaves one radix-2 stage of span 1 (twiddle 1).
// DIF goes from the top stage down, DIT (the transpose) from the bottom up.
template <bool DIT>
__device__ __forceinline__ void tile_stages(uint4* tile, const uint4* wm, int b, int c,
                                            int tid, int nt, int radix2)
{
    const int M = 1 << b, C = 1 << c, T = M * C;
    if (radix2) {
        for (int k = 0; k < b; k++) {
            radix2_stage<DIT>(tile, wm, b, c, DIT ? k : b - 1 - k, tid, nt);
            __syncthreads();
        }
        return;
    }
    if (DIT && (b & 1)) { radix2_span1(tile, T, M, C, c, tid, nt); __syncthreads(); }
    const int first = DIT ? ((b & 1) ? 2 : 1) : b - 1;
    for (int s = first; DIT ? (s <= b - 1) : (s >= 1); s += DIT ? 2 : -2) {
        const int h = 1 << (s - 1);
        for (int q = tid; q < (M / 4) * C; q += nt) {
            const int col = q & (C - 1), r = q >> c;
            const int j = r & (h - 1);
            const int m0 = ((r >> (s - 1)) << (s + 1)) + j;
            const int i0 = (m0 << c) + col, i1 = ((m0 + h) << c) + col;
            const int i2 = ((m0 + 2 * h) << c) + col, i3 = ((m0 + 3 * h) << c) + col;
            fr_t e0 = sh_load(tile, i0, T), e1 = sh_load(tile, i1, T);
            fr_t e2 = sh_load(tile, i2, T), e3 = sh_load(tile, i3, T);
            const tw_t wa = tw_load(wm, j << (b - 1 - s), M / 2);        // omega_{4h}^j
            const tw_t wb = tw_load(wm, (j + h) << (b - 1 - s), M / 2);  // omega_{4h}^(j+h)
            if (!DIT) {
                // at s = 1, j = 0 and wa = omega^0 = 1: skip the multiply
                fr_t t0 = e0 + e2, t2 = (s > 1) ? diff_to_mul(e0, e2) * wa : e0 - e2;
                fr_t t1 = e1 + e3, t3 = diff_to_mul(e1, e3) * wb;
                e0 = t0 + t1; e2 = t2 + t3;
                if (s > 1) {
                    const tw_t wc = tw_load(wm, j << (b - s), M / 2);   // omega_{2h}^j
                    e1 = diff_to_mul(t0, t1) * wc; e3 = diff_to_mul(t2, t3) * wc;
                } else {
                    e1 = t0 - t1; e3 = t2 - t3;
                }
            } else {
                if (s > 1) {
                    const tw_t wc = tw_load(wm, j << (b - s), M / 2);
                    e1 = e1 * wc; e3 = e3 * wc;
                }
                fr_t t0 = e0 + e1, t1 = e0 - e1, t2 = e2 + e3, t3 = e2 - e3;
                if (s > 1) t2 = t2 * wa;  // wa = 1 at s = 1
                t3 = t3 * wb;
                e0 = t0 + t2; e2 = t0 - t2; e1 = t1 + t3; e3 = t1 - t3;
            }
            sh_store(tile, i0, T, e0); sh_store(tile, i1, T, e1);
            sh_store(tile, i2, T, e2); sh_store(tile, i3, T, e3);
        }
        __syncthreads();
    }
    if (!DIT && (b & 1)) { radix2_span1(tile, T, M, C, c, tid, nt); __syncthreads(); }
}

// omega_M^j = omega^(j * n / M) for j < M/2 into shared memory.
__device__ __forceinline__ void load_internal_twiddles(uint4* wm, const u32* W, int log_n, int b,
                                                       int inverse, int tid, int nt)
{
    const int M = 1 << b;
    for (int j = tid; j < M / 2; j += nt)
        tw_store(wm, j, M / 2, twiddle(W, (usize)j << (log_n - b), log_n, inverse));
}

// x^i from two tables: hi[i >> shift] * lo[i & (2^shift - 1)].
__device__ __forceinline__ fr_t table_power(const u32* lo, const u32* hi, int shift, usize i)
{
    return load<FrTraits>(hi, i >> shift) * load<FrTraits>(lo, i & (((usize)1 << shift) - 1));
}

// Shared layout: the tile (M * C elements, two planes), then the M/2 internal
// twiddles (two planes, or NL double planes with NTT_TWF64).
// src, dst: the pass reads its tiles from src and writes them to the same
// places of dst (src == dst: in place).
// scale: optional (non-null) Montgomery element multiplied into every output.
// pw_lo, pw_hi (optional, DIF only, natural-order input): every input element
// i is first multiplied by pw_hi[i >> pw_shift] * pw_lo[i & mask] (the powers
// of a coset generator), so the first pass of a coset transform needs no
// pass of its own.
template <bool DIT>
__device__ __forceinline__ void ntt_pass(const u32* src, u32* dst, const u32* W, const u32* scale,
                                         const u32* pw_lo, const u32* pw_hi, int pw_shift,
                                         int log_n, int lo, int b, int c, int inverse, int radix2)
{
    extern __shared__ uint4 smem[];
    const int M = 1 << b, C = 1 << c, T = M * C;
    uint4* tile = smem;
    uint4* wm = smem + 2 * T;  // after both planes of the tile
    const usize chunks = ((usize)1 << lo) >> c;
    const usize hi = blockIdx.x / chunks, ch = blockIdx.x % chunks;
    const int tid = threadIdx.x, nt = blockDim.x;
    const int ext_shift = log_n - lo - b;

    load_internal_twiddles(wm, W, log_n, b, inverse, tid, nt);
    for (int t = tid; t < T; t += nt) {
        const int mid = t >> c, col = t & (C - 1);
        const usize g = (((hi << b) + (usize)mid) << lo) + (ch << c) + (usize)col;
        fr_t v = load<FrTraits>(src, g);
        if (!DIT && pw_lo) v = v * table_power(pw_lo, pw_hi, pw_shift, g);
        if (DIT && lo > 0) {
            const usize low = (ch << c) + (usize)col;
            const usize k1 = bit_reverse((usize)mid, b);
            v = v * twiddle(W, (low * k1) << ext_shift, log_n, inverse);
        }
        sh_store(tile, t, T, v);
    }
    __syncthreads();

    tile_stages<DIT>(tile, wm, b, c, tid, nt, radix2);

    fr_t sc;
    if (scale) sc = load<FrTraits>(scale, 0);
    for (int t = tid; t < T; t += nt) {
        const int mid = t >> c, col = t & (C - 1);
        const usize g = (((hi << b) + (usize)mid) << lo) + (ch << c) + (usize)col;
        fr_t v = sh_load(tile, t, T);
        if (!DIT && lo > 0) {
            const usize low = (ch << c) + (usize)col;
            const usize k1 = bit_reverse((usize)mid, b);
            v = v * twiddle(W, (low * k1) << ext_shift, log_n, inverse);
        }
        if (scale) v = v * sc;
        store<FrTraits>(dst, g, v);
    }
}

// The pass kernels. Blocks have at most 256 threads; the register budget of
// three resident blocks per SM (80 registers instead of the compiler's 92)
// was 4 % faster at 2^24 and 2^27 on an H200, with no spills. radix2: see
// tile_stages.
extern "C" __global__ void __launch_bounds__(NTT_MAXT, NTT_MINB)
ntt_dif_pass(const u32* src, u32* dst, const u32* W, const u32* scale, const u32* pw_lo,
             const u32* pw_hi, int pw_shift, int log_n, int lo, int b, int c, int inverse,
             int radix2)
{
    ntt_pass<false>(src, dst, W, scale, pw_lo, pw_hi, pw_shift, log_n, lo, b, c, inverse, radix2);
}

extern "C" __global__ void __launch_bounds__(NTT_MAXT, NTT_MINB)
ntt_dit_pass(const u32* src, u32* dst, const u32* W, const u32* scale, int log_n, int lo, int b,
             int c, int inverse, int radix2)
{
    ntt_pass<true>(src, dst, W, scale, nullptr, nullptr, 0, log_n, lo, b, c, inverse, radix2);
}

// The last DIF pass (the low b bits; H = log_n - b bits above them), with the
// bit reversal of the whole transform folded into its stores when rev_out:
// the element at position g = (row << b) + mid holds output k = rev(g) =
// (rev_b(mid) << H) + rev_H(row) and is written to dst[k] (src != dst: the
// reversal crosses blocks). A block takes the C = 2^c rows rb + k 2^(H-c),
// k < C, whose reversed row numbers are C consecutive values, so that its
// stores run along C contiguous elements. Without rev_out the output stays
// bit-reversed (dst[g], in place allowed).
// scale / pw_lo, pw_hi: output k (its natural index) is multiplied by *scale,
// or by pw_hi[k >> pw_shift] * pw_lo[k & mask] (powers with a folded factor:
// the 1/n and coset factors of an inverse transform).
extern "C" __global__ void __launch_bounds__(NTT_MAXT, NTT_MINB)
ntt_dif_last(const u32* src, u32* dst, const u32* W, const u32* scale, const u32* pw_lo,
             const u32* pw_hi, int pw_shift, int log_n, int b, int c, int inverse, int rev_out,
             int radix2)
{
    extern __shared__ uint4 smem[];
    const int M = 1 << b, C = 1 << c, T = M * C, H = log_n - b;
    uint4* tile = smem;
    uint4* wm = smem + 2 * T;
    const usize rb = blockIdx.x;  // rows rb + (k << (H - c))
    const int tid = threadIdx.x, nt = blockDim.x;

    load_internal_twiddles(wm, W, log_n, b, inverse, tid, nt);
    for (int t = tid; t < T; t += nt) {
        const int k = t >> b, mid = t & (M - 1);  // consecutive threads: consecutive elements
        const usize g = ((rb + ((usize)k << (H - c))) << b) + (usize)mid;
        sh_store(tile, (mid << c) + k, T, load<FrTraits>(src, g));
    }
    __syncthreads();

    tile_stages<false>(tile, wm, b, c, tid, nt, radix2);

    fr_t sc;
    if (scale) sc = load<FrTraits>(scale, 0);
    const usize rrb = bit_reverse(rb, H - c) << c;
    for (int t = tid; t < T; t += nt) {
        int k, mid;
        usize out, nat;
        if (rev_out) {
            const int kk = t & (C - 1);
            mid = t >> c;
            k = (int)bit_reverse((usize)kk, c);
            nat = (bit_reverse((usize)mid, b) << H) + rrb + (usize)kk;
            out = nat;
        } else {
            k = t >> b;
            mid = t & (M - 1);
            out = ((rb + ((usize)k << (H - c))) << b) + (usize)mid;
            nat = (bit_reverse((usize)mid, b) << H) + rrb + bit_reverse((usize)k, c);
        }
        fr_t v = sh_load(tile, (mid << c) + k, T);
        if (pw_lo) v = v * table_power(pw_lo, pw_hi, pw_shift, nat);
        else if (scale) v = v * sc;
        store<FrTraits>(dst, out, v);
    }
}

// In-place bit-reversal permutation of n = 2^log_n elements.
extern "C" __global__ void bit_reverse_permute(u32* data, int log_n)
{
    const usize i = (usize)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >> log_n) return;
    const usize j = bit_reverse(i, log_n);
    if (i < j) {
        fr_t a = load<FrTraits>(data, i), b = load<FrTraits>(data, j);
        store<FrTraits>(data, i, b);
        store<FrTraits>(data, j, a);
    }
}

// In-place bit reversal by tiles, for log_n >= 2 * BR_BITS. An index is
// (a, m, b): a its top BR_BITS bits, b its low BR_BITS bits, m the middle;
// its reverse is (rev b, rev m, rev a). The block of middle value m loads the
// 16 x 16 tiles of m and of m' = rev m (rows a, contiguous columns b), and
// writes each to the other's place transposed, so that reads and writes both
// run along 16 contiguous elements. Blocks with m > m' have nothing to do.
#define BR_BITS 4
#define BR_SIDE (1 << BR_BITS)
#define BR_PITCH (BR_SIDE + 1)  // padded rows: fewer shared-memory bank conflicts
extern "C" __global__ void bit_reverse_tiles(u32* data, int log_n)
{
    __shared__ uint4 tiles[2][2][BR_SIDE * BR_PITCH];  // [tile][half of the element][slot]
    const int mbits = log_n - 2 * BR_BITS;
    const usize m = blockIdx.x;
    const usize mr = bit_reverse(m, mbits);
    if (m > mr) return;
    const int a = threadIdx.y, b = threadIdx.x;  // blockDim = (16, 16)
    const int ntiles = (m == mr) ? 1 : 2;
    const usize mid[2] = {m, mr};
    for (int t = 0; t < ntiles; t++) {
        const usize g = (((usize)a << mbits | mid[t]) << BR_BITS) | (usize)b;
        const uint4* p = reinterpret_cast<const uint4*>(data + g * 8);
        tiles[t][0][a * BR_PITCH + b] = p[0];
        tiles[t][1][a * BR_PITCH + b] = p[1];
    }
    __syncthreads();
    // output (row a, column b) of tile t's destination holds the element at
    // (rev b, rev a) of the other tile (or of itself when m == m')
    const int ra = (int)bit_reverse((usize)b, BR_BITS), rb = (int)bit_reverse((usize)a, BR_BITS);
    for (int t = 0; t < ntiles; t++) {
        const int src = ntiles == 1 ? 0 : 1 - t;
        const usize g = (((usize)a << mbits | mid[t]) << BR_BITS) | (usize)b;
        uint4* p = reinterpret_cast<uint4*>(data + g * 8);
        p[0] = tiles[src][0][ra * BR_PITCH + rb];
        p[1] = tiles[src][1][ra * BR_PITCH + rb];
    }
}

// out[j] = hi[j >> shift] * lo[j & (2^shift - 1)] for j < n: powers x^j from
// two short tables (lo[i] = x^i, hi[i] = x^(i << shift)).
extern "C" __global__ void powers_from_tables(u32* out, const u32* lo, const u32* hi,
                                              int shift, long long n)
{
    const usize j = (usize)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= (usize)n) return;
    store<FrTraits>(out, j, table_power(lo, hi, shift, j));
}

// data[p] *= hi[i >> shift] * lo[i & mask], i = p or bit_reverse(p): scaling
// by powers of the coset generator (a constant factor can be folded into lo).
extern "C" __global__ void scale_by_powers(u32* data, const u32* lo, const u32* hi,
                                           int shift, int log_n, int reversed)
{
    const usize p = (usize)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >> log_n) return;
    const usize i = reversed ? bit_reverse(p, log_n) : p;
    store<FrTraits>(data, p, load<FrTraits>(data, p) * table_power(lo, hi, shift, i));
}

// a[i] = (a[i] * b[i] - c[i]) * zinv: the quotient by the vanishing
// polynomial on a coset, where Z is the constant g^n - 1.
extern "C" __global__ void ab_minus_c_div_z(u32* a, const u32* b, const u32* c,
                                            const u32* zinv, long long n)
{
    const usize i = (usize)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (usize)n) return;
    fr_t v = load<FrTraits>(a, i) * load<FrTraits>(b, i) - load<FrTraits>(c, i);
    store<FrTraits>(a, i, v * load<FrTraits>(zinv, 0));
}
