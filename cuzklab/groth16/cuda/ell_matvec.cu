// Sparse (ELL, slot-major) matrix times vector over Fr, one thread per row.
// cols[k * rows + i] and coeffs[k * rows + i] hold slot k of row i; a zero
// coefficient marks an unused slot. All Fr values are Montgomery limbs.
#include "cuzk_field.cuh"
using namespace cuzk;

extern "C" __global__ void ell_matvec(const long long* cols, const u32* coeffs,
                                      const u32* z, u32* out, long long rows, int width)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    fr_t acc = zero<FrTraits>();
    for (int k = 0; k < width; ++k) {
        size_t at = (size_t)k * (size_t)rows + (size_t)i;
        fr_t c = load<FrTraits>(coeffs, at);
        if (is_zero(c)) continue;
        fr_t v = load<FrTraits>(z, (size_t)cols[at]);
        acc = acc + c * v;
    }
    store<FrTraits>(out, (size_t)i, acc);
}
