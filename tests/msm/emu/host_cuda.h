// The few CUDA built-ins the cuzklab kernels use, for a serial host build.
#pragma once
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)

struct emu_dim3 { unsigned x, y, z; };
inline thread_local emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

struct uint4 { unsigned x, y, z, w; };
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{a, b, c, d}; }

inline unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }

struct emu_ptr {
  void* p;
  template <class T> operator T*() const { return static_cast<T*>(p); }
};

// FP64 intrinsics used by cuzk_mont_f64.cuh. The rounding-mode variants switch
// the host FPU's mode around one operation; the operands are read and the
// result written through volatiles so that the operation cannot be moved out
// of the switched region or folded at compile time (the kernels are also
// compiled with -frounding-math).
#include <cfenv>
#include <cmath>
#include <cstring>

inline long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, sizeof r); return r; }
inline double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, sizeof r); return r; }

inline double emu_fma_mode(double a, double b, double c, int mode) {
  const int old = std::fegetround();
  std::fesetround(mode);
  volatile double va = a, vb = b, vc = c;
  volatile double r = std::fma(va, vb, vc);
  std::fesetround(old);
  return r;
}

inline double emu_add_mode(double a, double b, int mode) {
  const int old = std::fegetround();
  std::fesetround(mode);
  volatile double va = a, vb = b;
  volatile double r = va + vb;
  std::fesetround(old);
  return r;
}

inline double __fma_rn(double a, double b, double c) { return emu_fma_mode(a, b, c, FE_TONEAREST); }
inline double __fma_rz(double a, double b, double c) { return emu_fma_mode(a, b, c, FE_TOWARDZERO); }
inline double __fma_rd(double a, double b, double c) { return emu_fma_mode(a, b, c, FE_DOWNWARD); }
inline double __fma_ru(double a, double b, double c) { return emu_fma_mode(a, b, c, FE_UPWARD); }
inline double __dadd_rn(double a, double b) { return emu_add_mode(a, b, FE_TONEAREST); }
inline double __dadd_rz(double a, double b) { return emu_add_mode(a, b, FE_TOWARDZERO); }
inline double __dsub_rn(double a, double b) { return emu_add_mode(a, -b, FE_TONEAREST); }
inline double __dsub_rz(double a, double b) { return emu_add_mode(a, -b, FE_TOWARDZERO); }
