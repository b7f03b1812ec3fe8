// SPDX-License-Identifier: Apache-2.0
// gaussws.hpp: Gaussian weight sampling (GaussWS, Ahn & Yoo, arXiv:2505.11170) on arrays: the
// noise of core/gaussws_noise.hpp for a whole tensor, and the fake-quantization op
// ŵ = w + R · max_block|w| · 2^(1−b) followed by one cast through the rounding engine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/format.hpp"
#include "core/gaussws_noise.hpp"
#include "core/profile.hpp"
#include "core/round_pack.hpp"
#include "core/rounding.hpp"
#include "error.hpp"
#include "stochastic.hpp"

namespace minifloat {

/// out[i] = gauss_noise(variant, s.seed, s.stream, s.step, s.index_base + i), each Philox block once.
void gauss_noise_fill(GaussNoise variant, const SrStream& s, std::span<std::int8_t> out) noexcept;

// ---- fake quantization --------------------------------------------------------------------------

/// One GaussWS element: ŵ = w + R · m · 2^(1−b), computed exactly (R·m·2^(1−b) is exact in binary64
/// for |R| ≤ 5, binary32 m and 1 ≤ b ≤ 64), and w + noise is the core's exact mixed-format `add`
/// (arith.hpp), rounded once into `to` with `spec`, `prof` and `rbits` (read only when spec.rounding is sr).
/// R = 0 gives ŵ = w exactly (no 0·m product, so m = NaN/Inf does not leak into a zero-noise
/// element); otherwise IEEE arithmetic: m = NaN → NaN, m = Inf → ±Inf (or NaN with w = ∓Inf).
/// Precondition 1 ≤ b ≤ 64 (checked by gaussws_fake_quantize).
RoundResult gaussws_fake_quantize_value(float w, int r, float block_max, int b, Format to, RoundingSpec spec = {},
                                        Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept;

/// Options of gaussws_fake_quantize.
struct GaussWsOptions {
  GaussNoise noise = GaussNoise::exact;  ///< generator of R
  SrStream noise_stream{};           ///< (seed, stream, step) of R; element (r, c) has index r·cols + c (+ index_base)
  SrStream cast_stream{0, 1, 0, 0};  ///< bits of an SR cast (spec.rounding == sr), same indexing; keep its
                                     ///< (seed, stream, step) different from noise_stream's
  std::size_t block_rows = 32;       ///< block height (GaussWS: 32)
  std::size_t block_cols = 32;       ///< block width (GaussWS: 32)
};

/// Number of blocks of a rows × cols matrix: ⌈rows/block_rows⌉ · ⌈cols/block_cols⌉ (edge blocks ragged).
std::size_t gaussws_block_count(std::size_t rows, std::size_t cols, const GaussWsOptions& opt = {});

/// max|w| over each block of the row-major rows × cols matrix `w`, in row-major block order
/// (block (I, J) covers rows I·block_rows … min((I+1)·block_rows, rows) − 1, same for columns;
/// edge blocks are ragged). NaN if any element of the block is NaN. Throws minifloat::Error when
/// w.size() != rows·cols or a block dimension is 0.
std::vector<float> gaussws_block_max(std::span<const float> w, std::size_t rows, std::size_t cols,
                                     const GaussWsOptions& opt = {});

/// GaussWS fake quantization of the row-major rows × cols f32 matrix `w` into codes of `to`:
///   out[r·cols + c] = cast_{to, spec}( w + R(r·cols + c) · max_block|w| · 2^(1 − b_block) )
/// with R from opt.noise / opt.noise_stream (gauss_noise), max_block|w| from gaussws_block_max, and
/// b_block = `bits[block]` (row-major block order, each 1…64), and one rounding of the exact sum
/// (gaussws_fake_quantize_value). An SR cast draws sr_bits(cast_stream…, r·cols + c + index_base).
/// Returns the OR of the cast flags. Throws minifloat::Error (one line) when sizes disagree
/// (w, out: rows·cols; bits: gaussws_block_count), a bit-width is outside 1…64, `to` is wider than
/// the storage (8 / 16 bits) or invalid, or an SR spec has sr_bits outside 1…32.
Flags gaussws_fake_quantize(std::span<const float> w, std::size_t rows, std::size_t cols, std::span<const int> bits,
                            Format to, RoundingSpec spec, std::span<std::uint16_t> out, const GaussWsOptions& opt = {},
                            Profile prof = profiles::ocp);
/// Same, codes of formats of at most 8 bits.
Flags gaussws_fake_quantize(std::span<const float> w, std::size_t rows, std::size_t cols, std::span<const int> bits,
                            Format to, RoundingSpec spec, std::span<std::uint8_t> out, const GaussWsOptions& opt = {},
                            Profile prof = profiles::ocp);

}  // namespace minifloat
