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

struct emu_ptr {
  void* p;
  template <class T> operator T*() const { return static_cast<T*>(p); }
};
