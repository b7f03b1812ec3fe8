// SPDX-License-Identifier: Apache-2.0
// simd/hadamard_simd.hpp (internal to the compiled library): the 16-point random Hadamard transform of
// core/hadamard.hpp (rht16_group) on binary32 inputs, vectorised across groups (simd/hadamard-inl.h, where
// the exactness argument is). The same output as rht16_group for every input, bit for bit: groups the vector
// path cannot prove exact (NaN, Inf, subnormal or all-zero inputs, extreme magnitudes, an exponent spread
// above 25) take rht16_group itself. The block engine (src/quant/block_quantizer.cpp transformed_piece) calls
// it on the ArrayPath::simd path; ArrayPath::engine keeps the scalar transform (the oracle).
#pragma once
#include <cstddef>

#include "minifloat/core/hadamard.hpp"

namespace minifloat::simd {

/// The forward transform `t` (t.rht16 set) of `groups` adjacent groups along a stride: group g's element i is
/// x[i·stride + g] and its output goes to y[i·stride + g] (0 ≤ g < groups ≤ stride; x and y do not overlap).
/// Returns how many groups took the scalar rht16_group (the guard's fallback and the tail lanes).
std::size_t rht16_strided(const float* x, std::size_t stride, std::size_t groups, const BlockTransform& t, float* y);

/// The forward transform `t` of `groups` groups of 16 consecutive floats: x[16g + i] → y[16g + i] (x and y do
/// not overlap). Returns how many groups took the scalar rht16_group.
std::size_t rht16_contiguous(const float* x, std::size_t groups, const BlockTransform& t, float* y);

}  // namespace minifloat::simd
