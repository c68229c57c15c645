// Host stand-in for cuzk_types.cuh: the PTX carry-chain primitives written in
// C++ with the carry flag in a thread-local variable, so the field, curve and
// MSM device code compiles with a host C++ compiler and runs serially.
#pragma once
#include "host_cuda.h"

namespace cuzk {

typedef unsigned int u32;
typedef unsigned long long u64;
#ifndef CUZK_SIZE_T_DEFINED
#define CUZK_SIZE_T_DEFINED
typedef unsigned long long usize;
#endif

namespace ptx {
inline thread_local u32 CF = 0;
inline u32 add_cc(u32 a, u32 b) { u64 r = (u64)a + b; CF = (u32)(r >> 32); return (u32)r; }
inline u32 addc_cc(u32 a, u32 b) { u64 r = (u64)a + b + CF; CF = (u32)(r >> 32); return (u32)r; }
inline u32 addc(u32 a, u32 b) { return a + b + CF; }
inline u32 sub_cc(u32 a, u32 b) { u64 r = (u64)a - b; CF = (u32)((r >> 32) & 1u); return (u32)r; }
inline u32 subc_cc(u32 a, u32 b) { u64 r = (u64)a - b - CF; CF = (u32)((r >> 32) & 1u); return (u32)r; }
inline u32 subc(u32 a, u32 b) { return a - b - CF; }
inline u32 lo(u32 a, u32 b) { return a * b; }
inline u32 hi(u32 a, u32 b) { return (u32)(((u64)a * b) >> 32); }
inline u32 mad_lo_cc(u32 a, u32 b, u32 c) { u64 r = (u64)lo(a, b) + c; CF = (u32)(r >> 32); return (u32)r; }
inline u32 madc_lo_cc(u32 a, u32 b, u32 c) { u64 r = (u64)lo(a, b) + c + CF; CF = (u32)(r >> 32); return (u32)r; }
inline u32 mad_hi_cc(u32 a, u32 b, u32 c) { u64 r = (u64)hi(a, b) + c; CF = (u32)(r >> 32); return (u32)r; }
inline u32 madc_hi_cc(u32 a, u32 b, u32 c) { u64 r = (u64)hi(a, b) + c + CF; CF = (u32)(r >> 32); return (u32)r; }
inline u32 madc_hi(u32 a, u32 b, u32 c) { return hi(a, b) + c + CF; }
}  // namespace ptx

}  // namespace cuzk
