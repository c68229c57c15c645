// prep_msm's classify-and-gather on the device: the kernels of
// cuzklab/stages/prep_gpu.py, the twins of fr_classify / fr_gather in
// cuzklab/native/cuzk_native.c.
//
// The inputs and the aux values (Montgomery Fr, 8 x 32-bit limbs) are one
// index space of n values, cut into ranges of PREP_K values, one range per
// thread. sel holds a byte per value (PREP_K bytes per range, read as
// words): bit q set when query q selects the value. A value's code is its
// kind (0: zero, 1: one, i.e. R mod r, 2: other) in bits 0-1 and its
// selection in bits 2-4.
//
// prep_classify: the codes of a range and, per query q, how many values of
// the range it selects, how many of those are one and how many other:
// counts[(3 q + j) T + t] for j = 0, 1, 2 and range t of T.
// prep_gather: with offs the exclusive prefix sums of those counts over the
// ranges, one pass over a range's codes writes, per query, the positions
// (in the query's scalar list) of its ones and of its tail, and the tail
// scalars. A query's ones go to ones_idx when bit q of split is set and to
// the tail otherwise (then the tail's offset adds the ones before).
//
// The driver prepends FR_ONE0..FR_ONE7 (the limbs of R mod r) and PREP_K.
// Plain C++ besides the kernel qualifiers and uint4, so that the tests can
// compile it for the host too.

#ifndef PREP_K
#define PREP_K 32
#endif
#define PREP_W (PREP_K / 4)

typedef unsigned int u32;

__device__ __forceinline__ const u32* prep_value(const u32* inputs, u32 ni, const u32* aux, u32 i)
{
    return i < ni ? inputs + 8 * (unsigned long long)i : aux + 8 * (unsigned long long)(i - ni);
}

__device__ __forceinline__ u32 prep_kind(const u32* x)
{
    const uint4 a = reinterpret_cast<const uint4*>(x)[0];
    const uint4 b = reinterpret_cast<const uint4*>(x)[1];
    const u32 nz = a.x | a.y | a.z | a.w | b.x | b.y | b.z | b.w;
    const u32 d = (a.x ^ FR_ONE0) | (a.y ^ FR_ONE1) | (a.z ^ FR_ONE2) | (a.w ^ FR_ONE3)
                | (b.x ^ FR_ONE4) | (b.y ^ FR_ONE5) | (b.z ^ FR_ONE6) | (b.w ^ FR_ONE7);
    return nz == 0 ? 0u : (d == 0 ? 1u : 2u);
}

extern "C" __global__ void prep_classify(const u32* inputs, u32 ni, const u32* aux, u32 n,
                                         const u32* sel, u32* codes, u32* counts)
{
    const u32 T = (n + PREP_K - 1) / PREP_K;
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    const u32 lo = t * PREP_K;
    u32 c[9];
#pragma unroll
    for (int j = 0; j < 9; j++) c[j] = 0;
#pragma unroll
    for (int w = 0; w < PREP_W; w++) {
        const u32 s = sel[(unsigned long long)t * PREP_W + w];
        u32 word = 0;
#pragma unroll
        for (int b = 0; b < 4; b++) {
            const u32 i = lo + 4 * w + b;
            if (i >= n) break;
            const u32 k = prep_kind(prep_value(inputs, ni, aux, i));
            const u32 q3 = (s >> (8 * b)) & 7u;
            word |= (k | (q3 << 2)) << (8 * b);
#pragma unroll
            for (int q = 0; q < 3; q++) {
                const u32 on = (q3 >> q) & 1u;
                c[3 * q] += on;
                c[3 * q + 1] += on & (k == 1);
                c[3 * q + 2] += on & (k == 2);
            }
        }
        codes[(unsigned long long)t * PREP_W + w] = word;
    }
#pragma unroll
    for (int j = 0; j < 9; j++) counts[(unsigned long long)j * T + t] = c[j];
}

extern "C" __global__ void prep_gather(const u32* inputs, u32 ni, const u32* aux, u32 n,
                                       const u32* codes, const u32* offs, u32 split,
                                       long long* ones0, long long* tidx0, u32* tval0,
                                       long long* ones1, long long* tidx1, u32* tval1,
                                       long long* ones2, long long* tidx2, u32* tval2)
{
    const u32 T = (n + PREP_K - 1) / PREP_K;
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    long long* ones[3] = {ones0, ones1, ones2};
    long long* tidx[3] = {tidx0, tidx1, tidx2};
    u32* tval[3] = {tval0, tval1, tval2};
    u32 pos[3], oa[3], ta[3], sp[3];
#pragma unroll
    for (int q = 0; q < 3; q++) {
        sp[q] = (split >> q) & 1u;
        pos[q] = offs[(unsigned long long)(3 * q) * T + t];
        oa[q] = offs[(unsigned long long)(3 * q + 1) * T + t];
        ta[q] = offs[(unsigned long long)(3 * q + 2) * T + t] + (sp[q] ? 0u : oa[q]);
    }
    const u32 lo = t * PREP_K;
    for (int w = 0; w < PREP_W; w++) {
        const u32 word = codes[(unsigned long long)t * PREP_W + w];
        if ((word & 0x1c1c1c1cu) == 0) continue;   // none of the four values is selected
        for (int b = 0; b < 4; b++) {
            const u32 code = (word >> (8 * b)) & 0xffu;
            const u32 k = code & 3u;
#pragma unroll
            for (int q = 0; q < 3; q++) {
                if (!((code >> (2 + q)) & 1u)) continue;
                if (k == 1 && sp[q]) {
                    ones[q][oa[q]++] = pos[q];
                } else if (k != 0) {
                    const uint4* x = reinterpret_cast<const uint4*>(prep_value(inputs, ni, aux, lo + 4 * w + b));
                    uint4* y = reinterpret_cast<uint4*>(tval[q] + 8 * (unsigned long long)ta[q]);
                    y[0] = x[0];
                    y[1] = x[1];
                    tidx[q][ta[q]++] = pos[q];
                }
                pos[q]++;
            }
        }
    }
}
