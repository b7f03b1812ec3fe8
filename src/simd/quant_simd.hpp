// SPDX-License-Identifier: Apache-2.0
// simd/quant_simd.hpp (internal to the compiled library): the fast paths of the block quantizer
// (src/quant.cpp) — the tile statistics (amax, NaN, Inf) of binary32 values and the element loop of
// one row run, through the Highway encode kernels of simd/convert_simd.hpp. They hold no rounding
// rule: codes and flags come from the engine-built EncodeTable, scales from quant.cpp's scalar step
// (core/block_scale.hpp). Which tiles run here is decided in quant.cpp (BlockQuantizer::element_path
// and the per-run rule of quant_run_e8m0); everything else stays on the scalar reference loop.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "minifloat/core/block_scale.hpp"
#include "simd/convert_simd.hpp"

namespace minifloat::simd {

/// The engine-built encode table of one (element format, rounding, overflow, profile) plus two
/// per-code facts derived from the engine: `may_saturate[c]` (some key maps to code c with the
/// overflow flag and c is neither Inf nor NaN: quantize_element's `saturated`), `is_zero[c]`
/// (element_value(c) == 0: a flushed element).
struct QuantKernel {
  const EncodeTable* table = nullptr;
  std::array<std::uint8_t, 256> may_saturate{};
  std::array<std::uint8_t, 256> is_zero{};
};
/// The cached kernel of (element, spec, prof), built once per process; nullptr when the element is
/// not floating or (format, spec, prof) is not on encode_table's whitelist.
const QuantKernel* quant_kernel(ElementType el, const RoundingSpec& spec, const Profile& prof);

/// Tile statistics of n binary32 values: the largest |x| over the non-NaN values (+0 when none),
/// whether a NaN and whether an Inf occurs. Order-free (integer max of the magnitude bits).
struct AbsMax {
  float amax = 0.0f;
  bool nan = false, inf = false;
};
AbsMax absmax_f32(const float* x, std::size_t n);

/// Element counts of a run, as quantize_element reports them per element.
struct RunCounts {
  std::uint64_t saturated = 0, flushed = 0;
};

/// y_i = x_i · 2^−e in binary32 (non-finite x_i kept bit for bit), written to `y`. Returns false —
/// and the caller must take the scalar loop for the run — unless every product is exact: every
/// finite nonzero x_i gives a normal finite y_i (|y_i| ≥ 2^−126). Then round_pack(x_i · 2^−e) =
/// round_pack(y_i), the value the reference's quantize_element(el, x_i, e) rounds. −127 ≤ e ≤ 127.
bool scale_e8m0_exact(const float* x, std::size_t n, int e, float* y);
/// The FP32 scale step of a tile: y = fl32(x · s) (TileScale multiply) or fl32(x / s) (divide).
enum class ScaleOp : std::uint8_t { multiply, divide };
/// y_i = fl32(x_i · s) or fl32(x_i / s): the reference's fmul_rn / fdiv_rn (core/fp32_ops.hpp).
void scale_fp32(const float* x, std::size_t n, float s, ScaleOp op, float* y);

/// Encode the n scaled values y through the kernel's table (Highway, run-time dispatch) into
/// codes; counts saturated elements (engine flags of each code that may saturate) and flushed ones
/// (finite nonzero original x0_i whose code is a zero).
RunCounts encode_run(const QuantKernel& k, const float* y, const float* x0, std::size_t n, std::uint8_t* codes);

}  // namespace minifloat::simd
