// SPDX-License-Identifier: Apache-2.0
// simd/f64_simd.hpp (internal to the compiled library): binary64 sources through the SIMD array path
// (simd/f64-inl.h: each double narrowed in 64-bit integer lanes to a binary32 pattern with the same
// engine result, then the f32 table kernel). Whitelist: that of encode_path (convert_span.hpp), for
// std::uint8_t codes; the narrowing follows Profile::source_via_f32 (D11).
#pragma once
#include <cstddef>
#include <cstdint>

#include "minifloat/core/format.hpp"
#include "minifloat/core/profile.hpp"
#include "minifloat/core/rounding.hpp"
#include "simd/convert_simd.hpp"

namespace minifloat::simd {

/// How a binary64 becomes the binary32 pattern whose table entry is its result (simd/f64-inl.h).
enum class F64Narrowing : std::uint8_t {
  round_to_odd,  ///< one rounding from the exact double: rto to binary32 keeps the encode key
  rne_f32_step,  ///< Profile::source_via_f32: the engine's rne step to binary32 (with its flags) first
};
/// What the f64 kernel needs beside the f32 table of the combination.
struct F64Encode {
  F64Narrowing narrowing = F64Narrowing::round_to_odd;
  /// The engine's entries (code | flags << 8) for +2^128 and −2^128: the result of every finite
  /// binary64 of that sign with |x| ≥ 2^128 (above every ≤ 8-bit format's overflow threshold).
  std::uint16_t beyond_f32[2] = {0, 0};
};
/// The plan of a combination that encode_table accepts (built from the engine; two conversions).
F64Encode f64_encode_plan(Format to, const RoundingSpec& spec, const Profile& prof);
/// Encode n doubles through `t` (HWY_DYNAMIC_DISPATCH as the other kernels). Returns the OR of the flags.
unsigned encode_f64(const EncodeTable& t, const F64Encode& plan, const double* in, std::uint8_t* out, std::size_t n);

}  // namespace minifloat::simd
