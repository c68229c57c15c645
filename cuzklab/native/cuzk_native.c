/* Native CPU stages of the cuzk pipeline: Fr / Fp / Fp2 Montgomery arithmetic on
 * 64-bit limbs, the witness program, the A/B/C MatVec, prep_msm's classify and
 * gather, and b_g2_msm's Pippenger over G2 in XYZZ coordinates.
 *
 * Every function works on a range [lo, hi) of its batch and touches no global
 * state. The pools at the end of this file run a batch's ranges on threads of
 * their own: one call from Python (ctypes releases the GIL for its duration)
 * runs the whole batch, so no thread of a pool ever takes the interpreter's lock. The field constants (FR_*, FP_*) are
 * prepended by the loader, derived from cuzklab.field.constants.
 *
 * Layout: the project's arrays hold 32-bit little-endian limbs in Montgomery
 * form with radix 2^256 (Fr) and 2^384 (Fp); read as 64-bit limbs they are the
 * same numbers with the same radix, so no conversion is needed.
 */
#define _GNU_SOURCE  /* pthread_setaffinity_np: pin a pool's threads */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Full unrolling of the limb loops (GCC's default stops at 16 iterations: 6 x 6 is 36). */
#if defined(__clang__)
#define UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define UNROLL _Pragma("GCC unroll 8")
#else
#define UNROLL
#endif

/* The limb count N of the generic helpers must be a compile-time constant at
 * each call for the loops to unroll, so they are always inlined. */
#if defined(__GNUC__) || defined(__clang__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

typedef uint64_t u64;
typedef unsigned __int128 u128;

static const u64 FR_P[4] = {FR_P0, FR_P1, FR_P2, FR_P3};
static const u64 FR_ONE[4] = {FR_ONE0, FR_ONE1, FR_ONE2, FR_ONE3};
static const u64 FP_P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
static const u64 FP_ONE[6] = {FP_ONE0, FP_ONE1, FP_ONE2, FP_ONE3, FP_ONE4, FP_ONE5};

/* ---------------------------------------------------------------- fields */

/* r = a + b mod p (p leaves the top bit of the top limb free). */
INLINE void mod_add(u64 *r, const u64 *a, const u64 *b, const u64 *p, int N)
{
    u64 s[6], d[6];
    u64 carry = 0, borrow = 0;
    UNROLL
    for (int j = 0; j < N; j++) {
        u128 x = (u128)a[j] + b[j] + carry;
        s[j] = (u64)x;
        carry = (u64)(x >> 64);
    }
    UNROLL
    for (int j = 0; j < N; j++) {
        u128 x = (u128)s[j] - p[j] - borrow;
        d[j] = (u64)x;
        borrow = (u64)(x >> 64) & 1;
    }
    memcpy(r, borrow ? s : d, 8 * N);
}

/* r = a - b mod p. */
INLINE void mod_sub(u64 *r, const u64 *a, const u64 *b, const u64 *p, int N)
{
    u64 d[6];
    u64 borrow = 0;
    UNROLL
    for (int j = 0; j < N; j++) {
        u128 x = (u128)a[j] - b[j] - borrow;
        d[j] = (u64)x;
        borrow = (u64)(x >> 64) & 1;
    }
    if (borrow) {
        u64 carry = 0;
        UNROLL
    for (int j = 0; j < N; j++) {
            u128 x = (u128)d[j] + p[j] + carry;
            d[j] = (u64)x;
            carry = (u64)(x >> 64);
        }
    }
    memcpy(r, d, 8 * N);
}

INLINE int is_zero_n(const u64 *a, int N)
{
    u64 x = 0;
    UNROLL
    for (int j = 0; j < N; j++) x |= a[j];
    return x == 0;
}

INLINE int eq_n(const u64 *a, const u64 *b, int N)
{
    u64 x = 0;
    UNROLL
    for (int j = 0; j < N; j++) x |= a[j] ^ b[j];
    return x == 0;
}

/* Montgomery products r = a b 2^(-64N) mod p (N = 6 for Fp, 4 for Fr), inputs < p,
 * output < p: CIOS, with the reduction folded into the next row's carry. Both moduli
 * leave the top limb below 2^63 - 1, so every intermediate fits in N + 1 words and
 * the extra carry word of textbook CIOS is never needed. */
#define MUL_ROW(J) c += (u128)a[J] * bi + t[J]; t[J] = (u64)c; c >>= 64;
#define RED_ROW(J, PJ) c += (u128)m * PJ + t[J]; t[J - 1] = (u64)c; c >>= 64;

INLINE void fp_mul(u64 *r, const u64 *a, const u64 *b)
{
    u64 t[7] = {0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 6; i++) {
        u64 bi = b[i];
        u128 c = 0;
        MUL_ROW(0) MUL_ROW(1) MUL_ROW(2) MUL_ROW(3) MUL_ROW(4) MUL_ROW(5)
        t[6] = (u64)c;
        u64 m = t[0] * FP_INV;
        c = (u128)m * FP_P0 + t[0];
        c >>= 64;
        RED_ROW(1, FP_P1) RED_ROW(2, FP_P2) RED_ROW(3, FP_P3) RED_ROW(4, FP_P4)
        RED_ROW(5, FP_P5)
        t[5] = t[6] + (u64)c;
    }
    u64 d[6], borrow = 0;
    UNROLL
    for (int j = 0; j < 6; j++) {
        u128 x = (u128)t[j] - FP_P[j] - borrow;
        d[j] = (u64)x;
        borrow = (u64)(x >> 64) & 1;
    }
    memcpy(r, borrow ? t : d, 48);
}

INLINE void fr_mul(u64 *r, const u64 *a, const u64 *b)
{
    u64 t[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        u64 bi = b[i];
        u128 c = 0;
        MUL_ROW(0) MUL_ROW(1) MUL_ROW(2) MUL_ROW(3)
        t[4] = (u64)c;
        u64 m = t[0] * FR_INV;
        c = (u128)m * FR_P0 + t[0];
        c >>= 64;
        RED_ROW(1, FR_P1) RED_ROW(2, FR_P2) RED_ROW(3, FR_P3)
        t[3] = t[4] + (u64)c;
    }
    u64 d[4], borrow = 0;
    UNROLL
    for (int j = 0; j < 4; j++) {
        u128 x = (u128)t[j] - FR_P[j] - borrow;
        d[j] = (u64)x;
        borrow = (u64)(x >> 64) & 1;
    }
    memcpy(r, borrow ? t : d, 32);
}
static inline void fr_add(u64 *r, const u64 *a, const u64 *b) { mod_add(r, a, b, FR_P, 4); }
static inline void fr_sub(u64 *r, const u64 *a, const u64 *b) { mod_sub(r, a, b, FR_P, 4); }
static inline void fp_add(u64 *r, const u64 *a, const u64 *b) { mod_add(r, a, b, FP_P, 6); }
static inline void fp_sub(u64 *r, const u64 *a, const u64 *b) { mod_sub(r, a, b, FP_P, 6); }

/* Fp2 = Fp[u]/(u^2 + 1): 12 limbs, c0 then c1. */
static inline void fp2_add(u64 *r, const u64 *a, const u64 *b) { fp_add(r, a, b); fp_add(r + 6, a + 6, b + 6); }
static inline void fp2_sub(u64 *r, const u64 *a, const u64 *b) { fp_sub(r, a, b); fp_sub(r + 6, a + 6, b + 6); }

static inline void fp2_mul(u64 *r, const u64 *a, const u64 *b)
{
    u64 t0[6], t1[6], sa[6], sb[6], t2[6];
    fp_mul(t0, a, b);
    fp_mul(t1, a + 6, b + 6);
    fp_add(sa, a, a + 6);
    fp_add(sb, b, b + 6);
    fp_mul(t2, sa, sb);
    fp_sub(r, t0, t1);
    fp_sub(t2, t2, t0);
    fp_sub(r + 6, t2, t1);
}

static inline void fp2_sqr(u64 *r, const u64 *a)
{
    u64 s[6], d[6], m[6];
    fp_add(s, a, a + 6);
    fp_sub(d, a, a + 6);
    fp_mul(m, a, a + 6);
    fp_mul(r, s, d);
    fp_add(r + 6, m, m);
}

static inline void fp2_neg(u64 *r, const u64 *a)
{
    static const u64 zero[12] = {0};
    fp2_sub(r, zero, a);
}

static inline int fp2_is_zero(const u64 *a) { return is_zero_n(a, 12); }

/* --------------------------------------------------------- G2 in XYZZ */

/* X, Y, ZZ, ZZZ, each an Fp2; ZZ = 0 is the point at infinity. */
typedef struct { u64 X[12], Y[12], ZZ[12], ZZZ[12]; } g2_xyzz;

static inline void g2_set_inf(g2_xyzz *p) { memset(p, 0, sizeof *p); }

static inline void fp2_set_one(u64 *r) { memset(r, 0, 96); memcpy(r, FP_ONE, 48); }

/* dbl-2008-s-1 (a = 0). */
static void g2_dbl(g2_xyzz *p)
{
    if (fp2_is_zero(p->ZZ)) return;
    u64 U[12], V[12], W[12], S[12], M[12], t[12];
    fp2_add(U, p->Y, p->Y);
    fp2_sqr(V, U);
    fp2_mul(W, U, V);
    fp2_mul(S, p->X, V);
    fp2_sqr(t, p->X);
    fp2_add(M, t, t);
    fp2_add(M, M, t);
    fp2_sqr(t, M);
    fp2_sub(t, t, S);
    fp2_sub(p->X, t, S);               /* X3 = M^2 - 2S */
    fp2_sub(t, S, p->X);
    fp2_mul(t, M, t);
    fp2_mul(U, W, p->Y);
    fp2_sub(p->Y, t, U);               /* Y3 = M(S - X3) - W Y1 */
    fp2_mul(p->ZZ, V, p->ZZ);
    fp2_mul(p->ZZZ, W, p->ZZZ);
}

/* p += (x2, y2) affine, y negated when neg (madd-2008-s). */
static void g2_add_affine(g2_xyzz *p, const u64 *x2, const u64 *y2in, int neg)
{
    u64 y2[12];
    if (neg) fp2_neg(y2, y2in); else memcpy(y2, y2in, 96);
    if (fp2_is_zero(p->ZZ)) {
        memcpy(p->X, x2, 96);
        memcpy(p->Y, y2, 96);
        fp2_set_one(p->ZZ);
        fp2_set_one(p->ZZZ);
        return;
    }
    u64 P[12], R[12], PP[12], PPP[12], Q[12], t[12];
    fp2_mul(t, x2, p->ZZ);
    fp2_sub(P, t, p->X);
    fp2_mul(t, y2, p->ZZZ);
    fp2_sub(R, t, p->Y);
    if (fp2_is_zero(P)) {
        if (fp2_is_zero(R)) {
            memcpy(p->X, x2, 96);
            memcpy(p->Y, y2, 96);
            fp2_set_one(p->ZZ);
            fp2_set_one(p->ZZZ);
            g2_dbl(p);
        } else {
            g2_set_inf(p);
        }
        return;
    }
    fp2_sqr(PP, P);
    fp2_mul(PPP, P, PP);
    fp2_mul(Q, p->X, PP);
    fp2_sqr(t, R);
    fp2_sub(t, t, PPP);
    fp2_sub(t, t, Q);
    fp2_sub(p->X, t, Q);               /* X3 = R^2 - PPP - 2Q */
    fp2_sub(t, Q, p->X);
    fp2_mul(t, R, t);
    fp2_mul(Q, p->Y, PPP);
    fp2_sub(p->Y, t, Q);               /* Y3 = R(Q - X3) - Y1 PPP */
    fp2_mul(p->ZZ, p->ZZ, PP);
    fp2_mul(p->ZZZ, p->ZZZ, PPP);
}

/* p += q (add-2008-s). */
static void g2_add(g2_xyzz *p, const g2_xyzz *q)
{
    if (fp2_is_zero(q->ZZ)) return;
    if (fp2_is_zero(p->ZZ)) { *p = *q; return; }
    u64 U1[12], U2[12], S1[12], S2[12], P[12], R[12], PP[12], PPP[12], Q[12], t[12];
    fp2_mul(U1, p->X, q->ZZ);
    fp2_mul(U2, q->X, p->ZZ);
    fp2_mul(S1, p->Y, q->ZZZ);
    fp2_mul(S2, q->Y, p->ZZZ);
    fp2_sub(P, U2, U1);
    fp2_sub(R, S2, S1);
    if (fp2_is_zero(P)) {
        if (fp2_is_zero(R)) g2_dbl(p); else g2_set_inf(p);
        return;
    }
    fp2_sqr(PP, P);
    fp2_mul(PPP, P, PP);
    fp2_mul(Q, U1, PP);
    fp2_sqr(t, R);
    fp2_sub(t, t, PPP);
    fp2_sub(t, t, Q);
    fp2_sub(p->X, t, Q);
    fp2_sub(t, Q, p->X);
    fp2_mul(t, R, t);
    fp2_mul(S2, S1, PPP);
    fp2_sub(p->Y, t, S2);
    fp2_mul(t, p->ZZ, q->ZZ);
    fp2_mul(p->ZZ, t, PP);
    fp2_mul(t, p->ZZZ, q->ZZZ);
    fp2_mul(p->ZZZ, t, PPP);
}

/* r = a^(p - 2) = 1 / a in Fp (Montgomery form in and out; 0 for 0): Fermat, bit by bit
 * from the top of p - 2 (p leaves the top bit of its top limb free). */
static void fp_inv(u64 *r, const u64 *a)
{
    u64 e[6], acc[6];
    memcpy(e, FP_P, 48);
    e[0] -= 2;                              /* p is odd and p0 > 2: no borrow */
    memcpy(acc, FP_ONE, 48);
    int top = 383;
    while (top >= 0 && !((e[top >> 6] >> (top & 63)) & 1)) top--;
    for (int b = top; b >= 0; b--) {
        fp_mul(acc, acc, acc);
        if ((e[b >> 6] >> (b & 63)) & 1) fp_mul(acc, acc, a);
    }
    memcpy(r, acc, 48);
}

/* r = 1 / a in Fp2: (a0 - a1 u) / (a0^2 + a1^2). */
static void fp2_inv(u64 *r, const u64 *a)
{
    u64 t0[6], t1[6], n[6];
    fp_mul(t0, a, a);
    fp_mul(t1, a + 6, a + 6);
    fp_add(n, t0, t1);
    fp_inv(n, n);
    fp_mul(r, a, n);
    fp_mul(t0, a + 6, n);
    static const u64 zero[6] = {0};
    fp_sub(r + 6, zero, t0);
}

/* Replace each of the k Fp2 values v[i] (12 limbs each, none zero) by its inverse, with one
 * inversion and three products a value (Montgomery's trick); pre: k * 12 limbs of scratch. */
static void fp2_batch_inv(u64 *v, int64_t k, u64 *pre)
{
    if (k <= 0) return;
    memcpy(pre, v, 96);
    for (int64_t i = 1; i < k; i++) fp2_mul(pre + 12 * i, pre + 12 * (i - 1), v + 12 * i);
    u64 inv[12], t[12];
    fp2_inv(inv, pre + 12 * (k - 1));
    for (int64_t i = k - 1; i > 0; i--) {
        fp2_mul(t, inv, pre + 12 * (i - 1));   /* 1 / v[i] */
        fp2_mul(inv, inv, v + 12 * i);         /* 1 / (v[0] ... v[i - 1]) */
        memcpy(v + 12 * i, t, 96);
    }
    memcpy(v, inv, 96);
}

/* Affine rounds over the points of each bucket: the points of bucket j are pts[start[j] ..
 * start[j] + len[j]) (24 limbs a point: x then y). A round adds the points of every bucket
 * in pairs, (0, 1), (2, 3), ..., each sum into the place of the pair's first half-index, an
 * odd last point moved after them; one inversion serves the round (fp2_batch_inv). A pair of
 * equal points doubles; a point and its negative leave nothing. Rounds go on while they
 * have at least min_pairs pairs; len[] is left with what each bucket holds. */
#define G2_AFFINE_MIN_PAIRS 64
static void g2_affine_rounds(u64 *pts, const int64_t *start, int64_t *len, int64_t nb,
                             int64_t min_pairs)
{
    int64_t pairs = 0;
    for (int64_t j = 0; j < nb; j++) pairs += len[j] / 2;
    if (pairs < min_pairs) return;
    u64 *den = malloc((size_t)pairs * 96), *pre = malloc((size_t)pairs * 96);
    uint8_t *kind = malloc((size_t)pairs);   /* 0 add, 1 double, 2 nothing */
    if (!den || !pre || !kind) { free(den); free(pre); free(kind); return; }
    while (pairs >= min_pairs) {
        int64_t k = 0;
        for (int64_t j = 0; j < nb; j++) {
            const u64 *q = pts + 24 * start[j];
            for (int64_t t = 0; t + 1 < len[j]; t += 2, k++) {
                const u64 *a = q + 24 * t, *b = a + 24;
                fp2_sub(den + 12 * k, b, a);                   /* x2 - x1 */
                if (!fp2_is_zero(den + 12 * k)) { kind[k] = 0; continue; }
                u64 ys[12];
                fp2_add(ys, a + 12, b + 12);
                kind[k] = 1;                                   /* P + P: 2 y */
                fp2_add(den + 12 * k, a + 12, a + 12);
                if (fp2_is_zero(ys) || fp2_is_zero(den + 12 * k)) {
                    kind[k] = 2;                               /* P + (-P), or 2-torsion */
                    fp2_set_one(den + 12 * k);
                }
            }
        }
        fp2_batch_inv(den, k, pre);
        k = 0;
        int64_t next = 0;
        for (int64_t j = 0; j < nb; j++) {
            u64 *q = pts + 24 * start[j];
            int64_t out = 0, m = len[j];
            for (int64_t t = 0; t + 1 < m; t += 2, k++) {
                const u64 *a = q + 24 * t, *b = a + 24;
                if (kind[k] == 2) continue;
                u64 lam[12], num[12], x3[12], y3[12];
                if (kind[k] == 0) {
                    fp2_sub(num, b + 12, a + 12);               /* y2 - y1 */
                } else {
                    fp2_sqr(num, a);                            /* 3 x^2 */
                    fp2_add(lam, num, num);
                    fp2_add(num, lam, num);
                }
                fp2_mul(lam, num, den + 12 * k);
                fp2_sqr(x3, lam);
                fp2_sub(x3, x3, a);
                fp2_sub(x3, x3, b);                             /* lam^2 - x1 - x2 */
                fp2_sub(y3, a, x3);
                fp2_mul(y3, lam, y3);
                fp2_sub(y3, y3, a + 12);                        /* lam (x1 - x3) - y1 */
                u64 *o = q + 24 * out++;                        /* out <= t: read before */
                memcpy(o, x3, 96);
                memcpy(o + 12, y3, 96);
            }
            if (m & 1) { memmove(q + 24 * out, q + 24 * (m - 1), 192); out++; }
            len[j] = out;
            next += out / 2;
        }
        pairs = next;
    }
    free(den); free(pre); free(kind);
}

/* Signed c-bit digits of Montgomery Fr scalars [lo, hi): digits[w * n + i]. */
void g2_digits(const u64 *scalars, int64_t n, int64_t lo, int64_t hi, int c, int windows,
               int32_t *digits)
{
    static const u64 canon_one[4] = {1, 0, 0, 0};
    const int64_t half = (int64_t)1 << (c - 1), full = (int64_t)1 << c;
    for (int64_t i = lo; i < hi; i++) {
        u64 k[5];
        fr_mul(k, scalars + 4 * i, canon_one);   /* leave Montgomery form */
        k[4] = 0;
        int64_t carry = 0;
        for (int w = 0; w < windows; w++) {
            int bit = w * c, limb = bit >> 6, off = bit & 63;
            u64 v = k[limb] >> off;
            if (off + c > 64 && limb < 4) v |= k[limb + 1] << (64 - off);
            int64_t d = (int64_t)(v & (u64)(full - 1)) + carry;
            if (d > half) { d -= full; carry = 1; } else { carry = 0; }
            digits[(int64_t)w * n + i] = (int32_t)d;
        }
    }
}

/* The bucket of [b_lo, b_lo + nb) that point i's digit d adds base k to, or -1: none (digit
 * 0, outside the range, or the base at infinity, stored as (0, 0)). */
static inline int64_t window_bucket(int32_t d, int64_t b_lo, int64_t nb, const u64 *bx,
                                    const u64 *by, int64_t k)
{
    if (d == 0) return -1;
    uint64_t j = (uint64_t)((d < 0 ? -(int64_t)d : (int64_t)d) - 1 - b_lo);
    if (j >= (uint64_t)nb || (fp2_is_zero(bx + 12 * k) && fp2_is_zero(by + 12 * k))) return -1;
    return (int64_t)j;
}

/* One window's buckets [b_lo, b_hi) over all n points: out = sum_j (j + 1) B_j for j in that
 * range, B_j the sum of the points whose digit is +-(j + 1). Point i is base idx[i] (i itself
 * when idx is NULL). Cutting a window by buckets, not by points, adds no bucket reduction per
 * part: the range's running sums give sum_j (j - b_lo + 1) B_j, and b_lo times the range's
 * total (a short double-and-add) makes up the rest. */
void g2_window(const u64 *bx, const u64 *by, const int64_t *idx, const int32_t *digits,
               int64_t n, int c, int64_t b_lo, int64_t b_hi, u64 *out)
{
    const int64_t nb = b_hi - b_lo;
    g2_xyzz run, sum;
    g2_set_inf(&run);
    g2_set_inf(&sum);
    if (nb <= 0 || b_lo < 0 || b_hi > ((int64_t)1 << (c - 1))) { memcpy(out, &sum, sizeof sum); return; }
    g2_xyzz *B = (g2_xyzz *)calloc((size_t)nb, sizeof(g2_xyzz));
    int64_t *start = calloc((size_t)nb + 1, sizeof(int64_t)), *len = calloc((size_t)nb, sizeof(int64_t));
    u64 *pts = NULL;
    if (!B || !start || !len) goto failed;
    /* the points of each bucket, affine, side by side (a counting sort by bucket) */
    for (int64_t i = 0; i < n; i++) {
        int64_t j = window_bucket(digits[i], b_lo, nb, bx, by, idx ? idx[i] : i);
        if (j >= 0) start[j + 1]++;
    }
    for (int64_t j = 0; j < nb; j++) start[j + 1] += start[j];
    pts = start[nb] ? malloc((size_t)start[nb] * 192) : NULL;
    if (start[nb] && !pts) goto failed;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = idx ? idx[i] : i, j = window_bucket(digits[i], b_lo, nb, bx, by, k);
        if (j < 0) continue;
        u64 *o = pts + 24 * (start[j] + len[j]++);
        memcpy(o, bx + 12 * k, 96);
        if (digits[i] < 0) fp2_neg(o + 12, by + 12 * k); else memcpy(o + 12, by + 12 * k, 96);
    }
    /* pairs added in affine coordinates, one inversion a round, while the rounds are
     * long; what is left goes into each bucket by mixed XYZZ additions */
    g2_affine_rounds(pts, start, len, nb, G2_AFFINE_MIN_PAIRS);
    for (int64_t j = 0; j < nb; j++)
        for (int64_t t = 0; t < len[j]; t++) {
            const u64 *q = pts + 24 * (start[j] + t);
            g2_add_affine(&B[j], q, q + 12, 0);
        }
    free(pts); free(start); free(len);
    for (int64_t j = nb - 1; j >= 0; j--) {
        g2_add(&run, &B[j]);
        g2_add(&sum, &run);
    }
    free(B);
    if (b_lo > 0) {   /* sum += b_lo * run */
        g2_xyzz acc;
        g2_set_inf(&acc);
        for (int bit = 62; bit >= 0; bit--) {
            g2_dbl(&acc);
            if ((b_lo >> bit) & 1) g2_add(&acc, &run);
        }
        g2_add(&sum, &acc);
    }
    memcpy(out, &sum, sizeof sum);
    return;
failed:   /* an allocation failed: the caller sees all-ones limbs */
    free(B); free(start); free(len); free(pts);
    memset(out, 0xff, sizeof(g2_xyzz));
}

/* Horner over windows: sums[w * parts + k] are partial window sums; out = sum_w 2^(c w) S_w. */
void g2_combine(const u64 *sums, int windows, int parts, int c, u64 *out)
{
    g2_xyzz acc;
    g2_set_inf(&acc);
    for (int w = windows - 1; w >= 0; w--) {
        for (int s = 0; s < c && w != windows - 1; s++) g2_dbl(&acc);
        for (int k = 0; k < parts; k++)
            g2_add(&acc, (const g2_xyzz *)(sums + (size_t)(w * parts + k) * 48));
    }
    memcpy(out, &acc, sizeof acc);
}

/* ------------------------------------------- G1 windows combined (Jacobian) */

/* The GPU MSM's last step: its W window sums (XYZZ, Montgomery, as the device leaves
 * them) combined by Horner's rule, sum_w 2^(c w) S_w: c W dependent doublings, which one
 * host thread does in C far faster than in Python ints. The chain runs in Jacobian
 * coordinates, where a doubling (dbl-2009-l, a = 0) costs 2M + 5S; Z = 0 is infinity. */
typedef struct { u64 X[6], Y[6], Z[6]; } g1_jac;

static inline int fp_is_zero(const u64 *a) { return is_zero_n(a, 6); }

static void g1_jac_dbl(g1_jac *p)
{
    if (fp_is_zero(p->Z)) return;
    u64 A[6], B[6], C[6], D[6], E[6], F[6], t[6];
    fp_mul(A, p->X, p->X);
    fp_mul(B, p->Y, p->Y);
    fp_mul(C, B, B);
    fp_add(t, p->X, B);
    fp_mul(t, t, t);
    fp_sub(t, t, A);
    fp_sub(t, t, C);
    fp_add(D, t, t);                   /* D = 2((X + B)^2 - A - C) */
    fp_add(E, A, A);
    fp_add(E, E, A);                   /* E = 3A */
    fp_mul(F, E, E);
    fp_mul(t, p->Y, p->Z);
    fp_add(p->Z, t, t);                /* Z3 = 2 Y Z, before Y changes */
    fp_sub(t, F, D);
    fp_sub(p->X, t, D);                /* X3 = F - 2D */
    fp_sub(t, D, p->X);
    fp_mul(t, E, t);
    fp_add(C, C, C);
    fp_add(C, C, C);
    fp_add(C, C, C);                   /* 8C */
    fp_sub(p->Y, t, C);                /* Y3 = E (D - X3) - 8C */
}

/* p += q, add-2007-bl, with the doubling and infinity cases. */
static void g1_jac_add(g1_jac *p, const g1_jac *q)
{
    if (fp_is_zero(q->Z)) return;
    if (fp_is_zero(p->Z)) { *p = *q; return; }
    u64 Z1Z1[6], Z2Z2[6], U1[6], U2[6], S1[6], S2[6], H[6], I[6], J[6], r[6], V[6], t[6];
    fp_mul(Z1Z1, p->Z, p->Z);
    fp_mul(Z2Z2, q->Z, q->Z);
    fp_mul(U1, p->X, Z2Z2);
    fp_mul(U2, q->X, Z1Z1);
    fp_mul(t, p->Y, q->Z);
    fp_mul(S1, t, Z2Z2);
    fp_mul(t, q->Y, p->Z);
    fp_mul(S2, t, Z1Z1);
    fp_sub(H, U2, U1);
    fp_sub(r, S2, S1);
    if (fp_is_zero(H)) {
        if (fp_is_zero(r)) g1_jac_dbl(p); else memset(p, 0, sizeof *p);
        return;
    }
    fp_add(r, r, r);                   /* r = 2 (S2 - S1) */
    fp_add(t, H, H);
    fp_mul(I, t, t);                   /* I = (2H)^2 */
    fp_mul(J, H, I);
    fp_mul(V, U1, I);
    fp_add(t, p->Z, q->Z);
    fp_mul(t, t, t);
    fp_sub(t, t, Z1Z1);
    fp_sub(t, t, Z2Z2);
    fp_mul(p->Z, t, H);                /* Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H */
    fp_mul(t, r, r);
    fp_sub(t, t, J);
    fp_sub(t, t, V);
    fp_sub(p->X, t, V);                /* X3 = r^2 - J - 2V */
    fp_sub(t, V, p->X);
    fp_mul(t, r, t);
    fp_mul(S1, S1, J);
    fp_add(S1, S1, S1);
    fp_sub(p->Y, t, S1);               /* Y3 = r (V - X3) - 2 S1 J */
}

/* An XYZZ point (X, Y, ZZ, ZZZ: 24 limbs) as Jacobian (X ZZ ZZZ^2, Y ZZ^3 ZZZ^2, ZZ ZZZ). */
static void g1_from_xyzz(g1_jac *p, const u64 *xyzz)
{
    const u64 *X = xyzz, *Y = xyzz + 6, *ZZ = xyzz + 12, *ZZZ = xyzz + 18;
    if (fp_is_zero(ZZ)) { memset(p, 0, sizeof *p); return; }
    u64 zzz2[6], t[6];
    fp_mul(zzz2, ZZZ, ZZZ);
    fp_mul(t, X, ZZ);
    fp_mul(p->X, t, zzz2);
    fp_mul(t, ZZ, ZZ);
    fp_mul(t, t, ZZ);
    fp_mul(t, t, Y);
    fp_mul(p->Y, t, zzz2);
    fp_mul(p->Z, ZZ, ZZZ);
}

/* out (Jacobian X, Y, Z: 18 limbs, Montgomery) = sum_w 2^(c w) S_w over the windows'
 * XYZZ sums S_w (24 limbs each, Montgomery). */
void g1_combine(const u64 *sums, int windows, int c, u64 *out)
{
    g1_jac acc;
    memset(&acc, 0, sizeof acc);
    for (int w = windows - 1; w >= 0; w--) {
        for (int s = 0; s < c && !fp_is_zero(acc.Z); s++) g1_jac_dbl(&acc);
        g1_jac q;
        g1_from_xyzz(&q, sums + (size_t)w * 24);
        g1_jac_add(&acc, &q);
    }
    memcpy(out, &acc, sizeof acc);
}

/* ------------------------------------------------------------ prep_msm */

/* prep_msm sees the assignment as one index space: the inputs [0, ni), then the aux
 * values [ni, ni + na). Query q (q < nq <= 3) selects value i of segment s (0: inputs,
 * 1: aux) when masks[2 q + s] is NULL or masks[2 q + s][i - start of s] is non-zero. */
#define PREP_QUERIES 3

/* codes[i] for i in [lo, hi): bits 0-1 the value's code, 0 / 1 / 2 (zero, one, other), bit
 * 2 + q set when query q selects it; counts[3 q + k]: the values of code k query q selects.
 * Branch-free, since a value's code is random (zeros and ones are ~45 % each in a PoRep
 * witness): the counts come from a histogram of the 32 possible codes (four of them, so
 * that equal codes in a row do not wait on each other's increments). The masks hold 0 or
 * 1; a NULL one reads a constant 1 (an absent query's a constant 0) through an index mask
 * of 0. */
void fr_classify(const u64 *inputs, int64_t ni, const u64 *aux, int64_t lo, int64_t hi,
                 int nq, const uint8_t *const *masks, uint8_t *codes, int64_t *counts)
{
    static const uint8_t all = 1, none = 0;
    int64_t hist[4][32] = {{0}};
    for (int s = 0; s < 2; s++) {
        int64_t start = s ? ni : 0;
        int64_t a = lo > start ? lo : start, b = s ? hi : (hi < ni ? hi : ni);
        const u64 *v = s ? aux : inputs;
        const uint8_t *m[PREP_QUERIES];
        int64_t wrap[PREP_QUERIES];
        for (int q = 0; q < PREP_QUERIES; q++) {
            const uint8_t *mq = q < nq ? masks[2 * q + s] : &none;
            m[q] = mq ? mq : &all;
            wrap[q] = (q < nq && mq) ? -1 : 0;
        }
        for (int64_t i = a; i < b; i++) {
            int64_t j = i - start;
            const u64 *x = v + 4 * j;
            int64_t z = is_zero_n(x, 4), o = eq_n(x, FR_ONE, 4);
            unsigned code = (unsigned)(2 - 2 * z - o);
            code |= (unsigned)m[0][j & wrap[0]] << 2;
            code |= (unsigned)m[1][j & wrap[1]] << 3;
            code |= (unsigned)m[2][j & wrap[2]] << 4;
            codes[i] = (uint8_t)code;
            hist[i & 3][code]++;
        }
    }
    for (int j = 0; j < 3 * PREP_QUERIES; j++) counts[j] = 0;
    for (int c = 0; c < 32; c++) {
        if ((c & 3) == 3) continue;   /* no value has code 3, and counts[3 q + 3] is not q's:
                                       * for the last query it is the next range's */
        int64_t h = hist[0][c] + hist[1][c] + hist[2][c] + hist[3][c];
        for (int q = 0; q < PREP_QUERIES; q++)
            if ((c >> (2 + q)) & 1) counts[3 * q + (c & 3)] += h;
    }
}

/* a where the mask m is all ones, b where it is 0: a select the compiler keeps branch-free. */
#define PICK(m, a, b) ((((uintptr_t)(a)) & (m)) | (((uintptr_t)(b)) & ~(m)))

/* Value var of the assignment: the inputs [0, ni), then the aux values. */
static inline const u64 *zvar(int64_t var, const u64 *inputs, int64_t ni, const u64 *aux)
{
    return var < ni ? inputs + 4 * var : aux + 4 * (var - ni);
}

/* How many values ahead the gather asks for the value a tail copy will read. The tail
 * values (~10 %, at random) are read a second time here, long after classify read them:
 * without the request each was a cache miss the loop waited on (2^22 values on the
 * development machine: 46.7 ms a pass without it; 34.6 / 28.1 / 25.5 / 31.5 ms 16 / 32 /
 * 128 / 256 values ahead; benchmarks/bench_prep_passes.py). */
/* Between prep_msm's two passes: from the per-range counts (ranges x PREP_QUERIES x 3:
 * zeros, ones, others of each query) the split rule of each of the nq queries (the tail at
 * most half of the points: split[q] = 1 sends the ones to ones_idx), each query's totals
 * (zeros, ones written, tail) and each range's place in each query's outputs: at[(r nq +
 * q) 3 + k], the exclusive prefix over the ranges of (values selected, ones written, tail
 * entries). The same numbers as cuzklab.native.split.offsets, without a dozen NumPy calls
 * on a few dozen integers. */
void fr_split_offsets(const int64_t *counts, int64_t ranges, int nq, int32_t *split,
                      int64_t *totals, int64_t *at)
{
    for (int q = 0; q < nq; q++) {
        int64_t z = 0, o = 0, t = 0;
        for (int64_t r = 0; r < ranges; r++) {
            const int64_t *c = counts + (r * PREP_QUERIES + q) * 3;
            z += c[0]; o += c[1]; t += c[2];
        }
        const int sp = !(2 * t > z + o + t);
        int64_t pos = 0, ones = 0, tail = 0;
        for (int64_t r = 0; r < ranges; r++) {
            const int64_t *c = counts + (r * PREP_QUERIES + q) * 3;
            int64_t *a = at + (r * nq + q) * 3;
            a[0] = pos; a[1] = ones; a[2] = tail;
            pos += c[0] + c[1] + c[2];
            ones += sp ? c[1] : 0;
            tail += c[2] + (sp ? 0 : c[1]);
        }
        split[q] = sp;
        totals[3 * q] = z; totals[3 * q + 1] = ones; totals[3 * q + 2] = tail;
    }
}

#define GATHER_AHEAD 128

/* Every query's share of [lo, hi) in one pass over the codes. at[3 q + 0..2]: the query
 * position of the first value of the range query q selects, and where its ones and its
 * tail start in that query's outputs; outs[3 q + 0..2]: ones_idx (int64), tail_idx (int64),
 * tail_vals (4 limbs). A selected one goes to ones_idx when split[q], every other selected
 * non-zero to the tail. What a code means for each query (selected, a one to write, a
 * tail value) comes from a table of the 32 codes, 3 bits a query. The ones are written
 * branch-free (a value that is not one of the query's writes a scratch slot instead, and
 * the query's pointer moves on only past a one): zeros and ones are each ~45 % of the
 * values, at random, so a branch on them would be mispredicted often; the tail (~10 %)
 * takes a branch. */
void fr_gather(const u64 *inputs, int64_t ni, const u64 *aux, int64_t lo, int64_t hi,
               const uint8_t *codes, int nq, const int32_t *split, const int64_t *at,
               void *const *outs)
{
    int64_t sink[1] = {0};
    int64_t pos[PREP_QUERIES];
    int64_t *one_at[PREP_QUERIES], *tidx_at[PREP_QUERIES];
    u64 *tval_at[PREP_QUERIES];
    uint16_t lut[32];
    for (int q = 0; q < PREP_QUERIES; q++) {
        int on = q < nq;
        pos[q] = on ? at[3 * q] : 0;
        one_at[q] = on ? (int64_t *)outs[3 * q] + at[3 * q + 1] : sink;
        tidx_at[q] = on ? (int64_t *)outs[3 * q + 1] + at[3 * q + 2] : NULL;
        tval_at[q] = on ? (u64 *)outs[3 * q + 2] + 4 * at[3 * q + 2] : NULL;
    }
    for (unsigned c = 0; c < 32; c++) {
        unsigned k = c & 3, bits = 0;
        for (int q = 0; q < PREP_QUERIES; q++) {
            unsigned s = q < nq && ((c >> (2 + q)) & 1);
            unsigned one = s && k == 1 && split[q];
            unsigned tail = s && k != 0 && !one;
            bits |= (s | one << 1 | tail << 2) << (3 * q);
        }
        lut[c] = (uint16_t)bits;
    }
    int64_t pos0 = pos[0], pos1 = pos[1], pos2 = pos[2];
    int64_t *o0 = one_at[0], *o1 = one_at[1], *o2 = one_at[2];
    for (int64_t i = lo; i < hi; i++) {
        const unsigned f = lut[codes[i]];
        {
            /* the value a tail copy will read GATHER_AHEAD values on (or nothing: the
             * scratch slot), asked of the caches now */
            const int64_t j = i + GATHER_AHEAD < hi ? i + GATHER_AHEAD : i;
            const uintptr_t mt = -(uintptr_t)((lut[codes[j]] & 0444u) != 0);
            __builtin_prefetch((const void *)PICK(mt, zvar(j, inputs, ni, aux), sink), 0, 0);
        }
        /* query q: store at its next one slot or the sink, move on past a one */
#define GATHER_ONE(Q, O, P)                                                          \
        {                                                                            \
            const unsigned one = (f >> (3 * Q + 1)) & 1;                            \
            const uintptr_t mo = -(uintptr_t)one;                                    \
            int64_t *od = (int64_t *)PICK(mo, O, sink);                              \
            *od = P;                                                                 \
            O += one;                                                                \
        }
        GATHER_ONE(0, o0, pos0)
        GATHER_ONE(1, o1, pos1)
        GATHER_ONE(2, o2, pos2)
#undef GATHER_ONE
        if (f & 0444u) {                      /* a tail value of some query */
            const u64 *x = zvar(i, inputs, ni, aux);
            const int64_t p[3] = {pos0, pos1, pos2};
            for (int q = 0; q < PREP_QUERIES; q++)
                if ((f >> (3 * q + 2)) & 1) {
                    *tidx_at[q]++ = p[q];
                    memcpy(tval_at[q], x, 32);
                    tval_at[q] += 4;
                }
        }
        pos0 += f & 1;
        pos1 += (f >> 3) & 1;
        pos2 += (f >> 6) & 1;
    }
}

/* ---------------------------------------------------------- synthesis */

/* out[i] = sum_k coeffs[k rows + i] z[cols[k rows + i]] for rows [lo, hi) of one matrix. */
static void matvec_rows(const int64_t *cols, const u64 *coeffs, int width, int64_t rows,
                        int64_t lo, int64_t hi, const u64 *inputs, int64_t ni, const u64 *aux,
                        u64 *out)
{
    for (int64_t i = lo; i < hi; i++) {
        u64 acc[4] = {0, 0, 0, 0}, t[4];
        for (int k = 0; k < width; k++) {
            const u64 *cf = coeffs + 4 * ((int64_t)k * rows + i);
            if (is_zero_n(cf, 4)) continue;
            fr_mul(t, cf, zvar(cols[(int64_t)k * rows + i], inputs, ni, aux));
            fr_add(acc, acc, t);
        }
        memcpy(out + 4 * i, acc, 32);
    }
}

/* Rows [lo, hi) of nm matrices at once (A, B and C): outs[j] = M_j z, M_j in ELL layout
 * (cols[j] and coeffs[j], widths[j] entries a row, rows rows). A block of rows is done for
 * every matrix before the next block: the rows of A, B and C of one constraint read the
 * same few variables (a gate's operands and output), and the lines a block of A reads
 * (about a MiB for 4,096 rows) are still in the core's L2 when B and C read them; one call
 * covers the three products, so the MatVec is one round of tasks on the pool. */
#define MATVEC_BLOCK 4096
void fr_matvec(int nm, const int64_t *const *cols, const u64 *const *coeffs,
               const int32_t *widths, int64_t rows, int64_t lo, int64_t hi,
               const u64 *inputs, int64_t ni, const u64 *aux, u64 *const *outs)
{
    for (int64_t b0 = lo; b0 < hi; b0 += MATVEC_BLOCK) {
        int64_t b1 = hi - b0 > MATVEC_BLOCK ? b0 + MATVEC_BLOCK : hi;
        for (int j = 0; j < nm; j++)
            matvec_rows(cols[j], coeffs[j], widths[j], rows, b0, b1, inputs, ni, aux, outs[j]);
    }
}

/* Gate opcodes of the witness program (cuzklab/groth16/program.py). */
enum { G_UNPACK = 1, G_PACK = 2, G_CH = 3, G_CHN = 4, G_CHNN = 5, G_FMUL = 6, G_FLIN = 7,
       G_CHECK = 8 };

/* Evaluate gates [lo, hi) in order, writing aux[outs[i]]; args[3 i + 0..2] are the
 * operands (variables, or an input / bit / constant index, by opcode). consts holds
 * the FLIN coefficients then 2^j for j < 64, Montgomery form. work_q16 / 2^16 extra
 * Fr multiplications per gate model the rest of a real circuit's witness code; their
 * chain is returned so that it is not optimized away. */
u64 witness_eval(const uint8_t *ops, const int32_t *args, const int32_t *outs, int64_t lo,
                 int64_t hi, const u64 *inputs, int64_t ni, const u64 *inputs_canon, u64 *aux,
                 const u64 *kconst, const u64 *pow2, uint32_t work_q16)
{
    u64 h[4] = {FR_ONE0, FR_ONE1, FR_ONE2, FR_ONE3};
    uint32_t frac = 0;
    for (int64_t i = lo; i < hi; i++) {
        const int32_t *a = args + 3 * i;
        u64 w[4], t[4], u[4];
        int op = ops[i];
        switch (op) {
        case G_UNPACK: {
            int bit = a[1];
            u64 b = (inputs_canon[4 * a[0] + (bit >> 6)] >> (bit & 63)) & 1;
            if (b) memcpy(w, FR_ONE, 32); else memset(w, 0, 32);
            break;
        }
        case G_PACK:
            fr_mul(t, pow2 + 4 * a[2], zvar(a[1], inputs, ni, aux));
            fr_add(w, zvar(a[0], inputs, ni, aux), t);
            break;
        case G_CH:      /* t ? b : c = t (b - c) + c */
            fr_sub(t, zvar(a[0], inputs, ni, aux), zvar(a[1], inputs, ni, aux));
            fr_mul(u, zvar(a[2], inputs, ni, aux), t);
            fr_add(w, u, zvar(a[1], inputs, ni, aux));
            break;
        case G_CHN:     /* t ? 1 - b : c = t (1 - b - c) + c */
            fr_sub(t, FR_ONE, zvar(a[0], inputs, ni, aux));
            fr_sub(t, t, zvar(a[1], inputs, ni, aux));
            fr_mul(u, zvar(a[2], inputs, ni, aux), t);
            fr_add(w, u, zvar(a[1], inputs, ni, aux));
            break;
        case G_CHNN:    /* t ? 1 - b : 1 - c = t (c - b) + 1 - c */
            fr_sub(t, zvar(a[1], inputs, ni, aux), zvar(a[0], inputs, ni, aux));
            fr_mul(u, zvar(a[2], inputs, ni, aux), t);
            fr_add(u, u, FR_ONE);
            fr_sub(w, u, zvar(a[1], inputs, ni, aux));
            break;
        case G_FMUL:    /* (s + v) t */
            fr_add(t, zvar(a[0], inputs, ni, aux), zvar(a[1], inputs, ni, aux));
            fr_mul(w, t, zvar(a[2], inputs, ni, aux));
            break;
        case G_FLIN:    /* s + k v */
            fr_mul(t, kconst + 4 * a[2], zvar(a[1], inputs, ni, aux));
            fr_add(w, zvar(a[0], inputs, ni, aux), t);
            break;
        default:        /* G_CHECK and unknown: no output */
            memset(w, 0, 32);
            break;
        }
        if (outs[i] >= 0) memcpy(aux + 4 * (int64_t)outs[i], w, 32);
        frac += work_q16;
        for (uint32_t r = frac >> 16; r; r--) {
            fr_mul(h, h, h);
            fr_add(h, h, w);
        }
        frac &= 0xffff;
    }
    return h[0] ^ h[1] ^ h[2] ^ h[3];
}

/* A dependent chain of n Fr squarings in registers, touching no memory: what one thread
 * of this host computes when nothing else limits it (the compute ceiling of the thread
 * scaling benchmark). Returns the chain's end, so that it is not optimized away. */
u64 fr_chain(const u64 *seed, int64_t n)
{
    u64 x[4];
    memcpy(x, seed, 32);
    for (int64_t i = 0; i < n; i++) fr_mul(x, x, x);
    return x[0] ^ x[1] ^ x[2] ^ x[3];
}

/* Self-check hooks for the tests: elementwise Fr and Fp2 products. */
void fr_mul_batch(const u64 *a, const u64 *b, int64_t lo, int64_t hi, u64 *out)
{
    for (int64_t i = lo; i < hi; i++) fr_mul(out + 4 * i, a + 4 * i, b + 4 * i);
}

void fp2_mul_batch(const u64 *a, const u64 *b, int64_t lo, int64_t hi, u64 *out)
{
    for (int64_t i = lo; i < hi; i++) fp2_mul(out + 12 * i, a + 12 * i, b + 12 * i);
}

/* ---- Native pools ---------------------------------------------------------------
 * A pool is a set of threads and a first-in, first-out queue of jobs. A job is a
 * function over ranges of [0, n) cut into chunks of `grain`; the threads take the
 * chunks of the job at the head of the queue, the next job only when every chunk of
 * the earlier ones is taken (the order in which rayon's pool serves the jobs injected
 * into it, and in which a queue of tasks serves batches submitted one after another).
 * cz_pool_run queues a job and returns when all its chunks are done; concurrent
 * callers share the pool's threads. */
typedef void (*cz_range_fn)(const void *ctx, int64_t lo, int64_t hi);

typedef struct cz_job {
    cz_range_fn fn;
    const void *ctx;
    int64_t n, grain, chunks, next, done;
    pthread_cond_t finished;
    struct cz_job *link;
} cz_job;

typedef struct cz_pool {
    int threads, stop;
    pthread_t *tid;
    pthread_mutex_t mu;
    pthread_cond_t work;
    cz_job *head, *tail;
    int *cpus, ncpus;
    /* The width profile: seconds spent with k threads inside a chunk, k = 0..threads
     * (under mu; `since` is when `busy` last changed). */
    int busy;
    double since, *width_s;
} cz_pool;

static double cz_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Under p->mu: account the time since the last change at the present width, then move it. */
static void cz_busy_add(cz_pool *p, int delta)
{
    double t = cz_now();
    p->width_s[p->busy] += t - p->since;
    p->since = t;
    p->busy += delta;
}

typedef struct { cz_pool *pool; int index; } cz_start;

static void *cz_worker(void *arg)
{
    cz_start st = *(cz_start *)arg;
    free(arg);
    cz_pool *p = st.pool;
    if (p->ncpus > 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(p->cpus[st.index % p->ncpus], &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && !p->head) pthread_cond_wait(&p->work, &p->mu);
        if (p->stop) break;
        cz_job *j = p->head;
        int64_t k = j->next++;
        if (j->next >= j->chunks) {          /* every chunk taken: the next job's turn */
            p->head = j->link;
            if (!p->head) p->tail = NULL;
        }
        cz_busy_add(p, 1);
        pthread_mutex_unlock(&p->mu);
        int64_t lo = k * j->grain, hi = lo + j->grain < j->n ? lo + j->grain : j->n;
        j->fn(j->ctx, lo, hi);
        pthread_mutex_lock(&p->mu);
        cz_busy_add(p, -1);
        if (++j->done == j->chunks) pthread_cond_signal(&j->finished);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* A pool of `threads` threads, thread k pinned to cpus[k % ncpus] when ncpus > 0; NULL
 * when a thread could not be started. */
cz_pool *cz_pool_new(int threads, const int32_t *cpus, int ncpus)
{
    cz_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->threads = threads;
    p->tid = calloc((size_t)threads, sizeof *p->tid);
    p->cpus = ncpus > 0 ? malloc((size_t)ncpus * sizeof *p->cpus) : NULL;
    p->width_s = calloc((size_t)threads + 1, sizeof *p->width_s);
    p->since = cz_now();
    if (!p->tid || (ncpus > 0 && !p->cpus) || !p->width_s) {
        free(p->tid); free(p->cpus); free(p->width_s); free(p); return NULL;
    }
    for (int i = 0; i < ncpus; i++) p->cpus[i] = cpus[i];
    p->ncpus = ncpus;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    for (int i = 0; i < threads; i++) {
        cz_start *st = malloc(sizeof *st);
        if (st) {
            st->pool = p;
            st->index = i;
        }
        if (!st || pthread_create(&p->tid[i], NULL, cz_worker, st)) {
            free(st);
            pthread_mutex_lock(&p->mu);
            p->stop = 1;
            pthread_cond_broadcast(&p->work);
            pthread_mutex_unlock(&p->mu);
            for (int k = 0; k < i; k++) pthread_join(p->tid[k], NULL);
            free(p->tid); free(p->cpus); free(p->width_s); free(p);
            return NULL;
        }
    }
    return p;
}

/* Stop the pool's threads (after the jobs queued) and free it. */
void cz_pool_free(cz_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    while (p->head) {                       /* let the queued jobs be taken first */
        pthread_mutex_unlock(&p->mu);
        sched_yield();
        pthread_mutex_lock(&p->mu);
    }
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->threads; i++) pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p->tid); free(p->cpus); free(p->width_s); free(p);
}

/* Copy the pool's width profile into out[0..threads] (seconds with k threads inside a
 * chunk, up to now) and, when reset is non-zero, start it again from zero. */
void cz_pool_widths(cz_pool *p, double *out, int reset)
{
    pthread_mutex_lock(&p->mu);
    cz_busy_add(p, 0);
    for (int k = 0; k <= p->threads; k++) {
        out[k] = p->width_s[k];
        if (reset) p->width_s[k] = 0.0;
    }
    pthread_mutex_unlock(&p->mu);
}

/* Run fn over [0, n) in chunks of grain on the pool; return when every chunk is done. */
static void cz_pool_run(cz_pool *p, cz_range_fn fn, const void *ctx, int64_t n, int64_t grain)
{
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    cz_job j = {fn, ctx, n, grain, (n + grain - 1) / grain, 0, 0, PTHREAD_COND_INITIALIZER, NULL};
    pthread_cond_init(&j.finished, NULL);
    pthread_mutex_lock(&p->mu);
    if (p->tail) p->tail->link = &j; else p->head = &j;
    p->tail = &j;
    pthread_cond_broadcast(&p->work);
    while (j.done < j.chunks) pthread_cond_wait(&j.finished, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_cond_destroy(&j.finished);
}

/* The pooled batches: each takes the arguments of its range function, less the range,
 * and runs [0, n) on the pool in chunks of grain. */
typedef struct {
    int nm; const int64_t *const *cols; const u64 *const *coeffs; const int32_t *widths;
    int64_t rows; const u64 *inputs; int64_t ni; const u64 *aux; u64 *const *outs;
} cz_matvec_args;

static void cz_matvec_range(const void *c, int64_t lo, int64_t hi)
{
    const cz_matvec_args *a = c;
    fr_matvec(a->nm, a->cols, a->coeffs, a->widths, a->rows, lo, hi, a->inputs, a->ni, a->aux,
              a->outs);
}

void fr_matvec_pool(cz_pool *p, int64_t grain, int nm, const int64_t *const *cols,
                    const u64 *const *coeffs, const int32_t *widths, int64_t rows,
                    const u64 *inputs, int64_t ni, const u64 *aux, u64 *const *outs)
{
    cz_matvec_args a = {nm, cols, coeffs, widths, rows, inputs, ni, aux, outs};
    cz_pool_run(p, cz_matvec_range, &a, rows, grain);
}

typedef struct { const u64 *scalars; int64_t n; int c, windows; int32_t *digits; } cz_digits_args;

static void cz_digits_range(const void *c, int64_t lo, int64_t hi)
{
    const cz_digits_args *a = c;
    g2_digits(a->scalars, a->n, lo, hi, a->c, a->windows, a->digits);
}

void g2_digits_pool(cz_pool *p, int64_t grain, const u64 *scalars, int64_t n, int c,
                    int windows, int32_t *digits)
{
    cz_digits_args a = {scalars, n, c, windows, digits};
    cz_pool_run(p, cz_digits_range, &a, n, grain);
}

/* Task t of windows x parts: window j = t / parts over its buckets [cuts[j][k], cuts[j][k + 1])
 * of part k = t % parts (cuts holds parts + 1 edges a window), its sum into sums[t]. */
typedef struct {
    const u64 *bx, *by; const int64_t *idx; const int32_t *digits; int64_t n;
    int parts; const int64_t *cuts; int c; u64 *sums;
} cz_window_args;

static void cz_window_range(const void *c, int64_t lo, int64_t hi)
{
    const cz_window_args *a = c;
    for (int64_t t = lo; t < hi; t++) {
        int64_t j = t / a->parts, k = t % a->parts;
        const int64_t *cut = a->cuts + j * (int64_t)(a->parts + 1);
        g2_window(a->bx, a->by, a->idx, a->digits + j * a->n, a->n, a->c, cut[k], cut[k + 1],
                  a->sums + t * (int64_t)(sizeof(g2_xyzz) / sizeof(u64)));
    }
}

void g2_windows_pool(cz_pool *p, const u64 *bx, const u64 *by, const int64_t *idx,
                     const int32_t *digits, int64_t n, int windows, int parts,
                     const int64_t *cuts, int c, u64 *sums)
{
    cz_window_args a = {bx, by, idx, digits, n, parts, cuts, c, sums};
    cz_pool_run(p, cz_window_range, &a, (int64_t)windows * parts, 1);
}

/* prep_msm's two passes on the pool, in chunks of grain: chunk k = lo / grain writes its
 * counts to counts[9 k ..] (ranges x 3 queries x 3 codes) and reads its offsets from
 * at[at_stride k ..], as fr_classify and fr_gather over that chunk's range would. */
typedef struct {
    const u64 *inputs; int64_t ni; const u64 *aux; int nq; const uint8_t *const *masks;
    uint8_t *codes; int64_t *counts; int64_t grain;
    const int32_t *split; const int64_t *at; int64_t at_stride; void *const *outs;
} cz_prep_args;

static void cz_classify_range(const void *c, int64_t lo, int64_t hi)
{
    const cz_prep_args *a = c;
    fr_classify(a->inputs, a->ni, a->aux, lo, hi, a->nq, a->masks, a->codes,
                a->counts + 3 * PREP_QUERIES * (lo / a->grain));
}

void fr_classify_pool(cz_pool *p, int64_t grain, const u64 *inputs, int64_t ni, const u64 *aux,
                      int64_t n, int nq, const uint8_t *const *masks, uint8_t *codes,
                      int64_t *counts)
{
    cz_prep_args a = {inputs, ni, aux, nq, masks, codes, counts, grain, NULL, NULL, 0, NULL};
    cz_pool_run(p, cz_classify_range, &a, n, grain);
}

static void cz_gather_range(const void *c, int64_t lo, int64_t hi)
{
    const cz_prep_args *a = c;
    fr_gather(a->inputs, a->ni, a->aux, lo, hi, a->codes, a->nq, a->split,
              a->at + a->at_stride * (lo / a->grain), a->outs);
}

void fr_gather_pool(cz_pool *p, int64_t grain, const u64 *inputs, int64_t ni, const u64 *aux,
                    int64_t n, const uint8_t *codes, int nq, const int32_t *split,
                    const int64_t *at, int64_t at_stride, void *const *outs)
{
    cz_prep_args a = {inputs, ni, aux, nq, NULL, (uint8_t *)codes, NULL, grain, split, at,
                      at_stride, outs};
    cz_pool_run(p, cz_gather_range, &a, n, grain);
}
