// Umbrella header of the cuzklab BLS12-381 field arithmetic (Fr, Fp, Fp2).
// Compile with -std=c++17 and -I <cuzklab.field.cuda.include_dir()>.
// See docs/field.md for the contract.
#pragma once
#include "cuzk_types.cuh"
#include "cuzk_traits.cuh"
#include "cuzk_mont.cuh"
#include "cuzk_mont_f64.cuh"
#include "cuzk_mont_eo.cuh"
#include "cuzk_fp2.cuh"
