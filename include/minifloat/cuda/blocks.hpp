// SPDX-License-Identifier: Apache-2.0
// cuda/blocks.hpp: the bodies of the block-quantizer kernels (issue 10) — MX (E8M0 rules), NVFP4
// (two levels: the FP32 per-tensor scale and the UE4M3 block scales, 1×16 and 16×16 tiles), scaled
// FP8 with FP32 or UE8M0 scales per tensor / row / channel / 1×128 / 128×128, every special-block
// policy — plus the global statistic (per-tensor amax, a two-step reduction), FP4/FP6 packing and
// the 128×4 scale swizzle. Host-device functors of one index each (tile, chunk, byte), built from the
// core's steps only, so the same code runs on the GPU (src/cuda/blocks.cu) and on CPU threads
// (cuda/launch_cpu.hpp). The tile body is the core's tile step (core/tile_step.hpp: TileStat,
// decide_tile_scale, encode_in_tile), the one the host quantizer (quant.hpp) runs, so codes and scales
// are those of minifloat::quantize for the same binary32 input (tests/cuda/cuda_blocks_test.cpp checks
// it). Sources are binary32 only. Validation is the host API's (cuda/api.hpp quantize_blocks).
// Issue 25 (item 9): the steps of Scheme's transform (TransformBody: the core's rht16_group into a scratch
// tensor the other bodies read), tensor-scale (TensorScaleBody::given), amax-scope row (RowScaleBody, the
// tile body reading its row's S_enc) and scale-select 4over6 (the core's fourover6_tile in the tile body).
#pragma once
#include <cstdint>

#include "../core/block_scale.hpp"
#include "../core/four_over_six_tile.hpp"
#include "../core/hadamard.hpp"
#include "../core/tile_step.hpp"
#include "../core/random.hpp"
#include "kernels.hpp"

namespace minifloat::cuda {

/// The tiling of one quantization in file (C) order: the input is the [file_rows, file_cols] matrix,
/// cut into tile_rows × tile_cols tiles (the last ones may be partial); tile (ta, tb) has grid index
/// ta · tiles_b + tb (the index of BlockQuantBody), which is also its scale's index: scales are
/// row-major over the file's tile grid for either BlockAxis (quant.hpp QuantizedTensor).
struct BlockLayout {
  std::uint64_t file_rows = 0, file_cols = 0, tile_rows = 1, tile_cols = 1;
  std::uint64_t tiles_a = 0, tiles_b = 0;
  MINIFLOAT_HOST_DEVICE constexpr std::uint64_t tiles() const noexcept { return tiles_a * tiles_b; }
  MINIFLOAT_HOST_DEVICE constexpr std::uint64_t scale_index(std::uint64_t ta, std::uint64_t tb) const noexcept {
    return ta * tiles_b + tb;
  }
};

/// Where a row of the [rows, cols] view (quant.hpp QuantizedTensor) lies in the file: along a file row
/// (BlockAxis::last) or down a file column (BlockAxis::first). A view row holds the block axis: a transform
/// group (16 values along it) and an amax-scope row's elements lie in one.
enum class ViewRow : std::uint8_t { file_row, file_column };

/// Elements per index of AmaxPartialBody.
inline constexpr std::uint64_t kAmaxChunk = 4096;

/// First step of the per-tensor amax: partial[k] = max |x[i]| over i in [k · kAmaxChunk, (k+1) · kAmaxChunk) ∩ [0, n),
/// NaN ignored (fmaxf, as quant.hpp's NVFP4 tensor amax and TE), +0 for a chunk of NaNs only.
struct AmaxPartialBody {
  const float* in = nullptr;
  std::uint64_t n = 0;
  float* partial = nullptr;
  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t k) const noexcept {
    const std::uint64_t b = k * kAmaxChunk, e = b + kAmaxChunk < n ? b + kAmaxChunk : n;
    TileStat<float> st;  // the tiles' statistic: NaN ignored by the amax
    for (std::uint64_t i = b; i < e; ++i) st.add(in[i]);
    partial[k] = st.amax;
  }
};
/// Number of partial maxima for n elements.
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t amax_chunks(std::uint64_t n) noexcept {
  return (n + kAmaxChunk - 1) / kAmaxChunk;
}

/// Second step (one index, 0): the tensor amax from the partial maxima and NVFP4's tensor scales:
/// tensor[0] = S_enc = nvfp4_global_encode_scale(amax, elem_max), tensor[1] = fl32(1/S_enc),
/// tensor[2] = the amax itself. Rule nvfp4_v2_gs: tensor[0] = g = ue5m3_tensor_scale(amax, elem_max),
/// tensor[1] = autoround_reciprocal(g). ScaleSelect 4over6 (`select`): tensor[0] =
/// fourover6_global_encode_scale(amax) (TE's fl32(1536 / amax)), tensor[1] = fl32(1/S_enc). A `given` S_enc
/// (Scheme::tensor_scale; 1 for amax-scope row, whose tensor scales stay 1, 1): no amax is read (count 0),
/// tensor[0] = given, tensor[1] = fl32(1/given), tensor[2] = 0.
struct TensorScaleBody {
  const float* partial = nullptr;
  std::uint64_t count = 0;
  float elem_max = 6.0f;
  float* tensor = nullptr;
  ScaleRule rule = ScaleRule::nvfp4;
  ScaleSelect select = ScaleSelect::none;
  float given = 0.0f;
  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t) const noexcept {
    if (given != 0.0f) {
      tensor[0] = given;
      tensor[1] = frcp_rn(given);
      tensor[2] = 0.0f;
      return;
    }
    float m = 0.0f;
    for (std::uint64_t k = 0; k < count; ++k)
      if (partial[k] > m) m = partial[k];
    if (rule == ScaleRule::nvfp4_v2_gs) {
      const float g = ue5m3_tensor_scale(m, elem_max);
      tensor[0] = g;
      tensor[1] = autoround_reciprocal(g);
      tensor[2] = m;
      return;
    }
    const float enc =
        select != ScaleSelect::none ? fourover6_global_encode_scale(m) : nvfp4_global_encode_scale(m, elem_max);
    tensor[0] = enc;
    tensor[1] = frcp_rn(enc);
    tensor[2] = m;
  }
};

/// Scheme::amax_scope row, one view row r per index (`view_row`; rows = QuantizedTensor::rows): its amax a_r
/// over the file's [file_rows, file_cols] tensor (NaN ignored, TileStat), then as the host engine's first
/// pass (scheme.hpp AmaxScope) enc[r] = S_enc[r] = nvfp4_global_encode_scale(a_r, elem_max) and
/// dec[r] = fl32(1/S_enc[r]) (QuantizedTensor::row_encode_scales, row_decode_scales).
struct RowScaleBody {
  const float* in = nullptr;
  std::uint64_t file_rows = 0, file_cols = 0;
  ViewRow view_row = ViewRow::file_row;
  float elem_max = 6.0f;
  float* enc = nullptr;
  float* dec = nullptr;
  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t r) const noexcept {
    TileStat<float> st;
    if (view_row == ViewRow::file_row)
      for (std::uint64_t b = 0; b < file_cols; ++b) st.add(in[r * file_cols + b]);
    else
      for (std::uint64_t a = 0; a < file_rows; ++a) st.add(in[a * file_cols + r]);
    enc[r] = nvfp4_global_encode_scale(st.amax, elem_max);
    dec[r] = frcp_rn(enc[r]);
  }
};

/// Scheme::transform (rht16, exact arithmetic), one 16-value group g per index (transform_groups): the
/// core's rht16_group of the group into `out` at the same places (a binary32 scratch tensor that the amax
/// and tile bodies then read). With ViewRow::file_row group g is in[16g .. 16g + 16); with
/// ViewRow::file_column (BlockAxis::first) it is the 16 file rows from 16 · (g / file_cols), column
/// g mod file_cols. The block axis's length is a multiple of 16 (BlockQuantizer checks it).
struct TransformBody {
  const float* in = nullptr;
  std::uint64_t file_rows = 0, file_cols = 0;
  ViewRow view_row = ViewRow::file_row;
  BlockTransform transform{};
  float* out = nullptr;
  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t g) const noexcept {
    if (view_row == ViewRow::file_row) {
      rht16_group(in + kRht16Size * g, 1, transform, out + kRht16Size * g, 1);
      return;
    }
    const std::uint64_t base = (g / file_cols) * kRht16Size * file_cols + g % file_cols;
    rht16_group(in + base, file_cols, transform, out + base, file_cols);
  }
};
/// Number of transform groups of n elements.
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t transform_groups(std::uint64_t n) noexcept { return n / kRht16Size; }

/// One tile per index t = ta · tiles_b + tb (BlockLayout): the tile's statistics (amax, NaN, Inf),
/// its scale under `rule` and `policy` (decide_tile_scale: NaN/Inf block, amax_epsilon, subnormal
/// flush, zero block, then the rule), and its elements (encode_in_tile).
/// Outputs: codes[a · file_cols + b] (one per byte, file order); scale_codes[s] (E8M0 rules: the
/// E8M0 code; nvfp4: the E4M3 code) or scales[s] (FP32 rules: the decode scale), s = scale_index;
/// tile_counts[2t], [2t + 1] (nullable): saturated and flushed elements. NVFP4 reads S_enc from
/// tensor_scales[0] (TensorScaleBody). SR element i (flat file index) reads
/// sr_bits(sr.seed, sr.stream, sr.step, i, spec), as QuantOptions documents.
/// amax-scope row: `row_scales` (nullable) holds each view row's S_enc (RowScaleBody), read instead of
/// tensor_scales[0]; the tile's row is ta (ViewRow::file_row) or tb (file_column: 1×k tiles).
/// ScaleSelect 4over6 (`select`; nvfp4 1×16 along the last axis): a tile that is not a NaN block takes the
/// core's fourover6_tile (global amax tensor_scales[2]) for its elements and scale code, and
/// choices[s] = its choice (0 map-to-6, 1 map-to-4; 0 for a NaN block; QuantizedTensor::scale_select).
struct BlockQuantBody {
  const float* in = nullptr;
  BlockLayout lay{};
  ElementType element = elements::e4m3fn;
  ScaleRule rule = ScaleRule::ocp_floor;
  BlockPolicy policy{};
  RoundingSpec spec{Rounding::rne, Overflow::satfinite};
  Profile prof = profiles::ocp;
  SrCounter sr{};
  const float* tensor_scales = nullptr;
  std::uint8_t* codes = nullptr;
  std::uint8_t* scale_codes = nullptr;
  float* scales = nullptr;
  std::uint64_t* tile_counts = nullptr;
  ScaleSelect select = ScaleSelect::none;
  ViewRow view_row = ViewRow::file_row;
  const float* row_scales = nullptr;
  std::uint8_t* choices = nullptr;

  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t t) const noexcept {
    const std::uint64_t ta = t / lay.tiles_b, tb = t % lay.tiles_b;
    const std::uint64_t a0 = ta * lay.tile_rows, b0 = tb * lay.tile_cols;
    const std::uint64_t a1 = a0 + lay.tile_rows < lay.file_rows ? a0 + lay.tile_rows : lay.file_rows;
    const std::uint64_t b1 = b0 + lay.tile_cols < lay.file_cols ? b0 + lay.tile_cols : lay.file_cols;
    const std::uint64_t B = lay.file_cols, s = lay.scale_index(ta, tb);
    // 1. statistics (core/tile_step.hpp)
    TileStat<float> st;
    for (std::uint64_t a = a0; a < a1; ++a)
      for (std::uint64_t b = b0; b < b1; ++b) st.add(in[a * B + b]);
    // 2. the scale: the special-block policies, then the rule (the core's tile step)
    const bool tensor_scaled = is_nvfp4_rule(rule) || rule == ScaleRule::nvfp4_v2_gs;
    const float s_enc =
        row_scales ? row_scales[view_row == ViewRow::file_row ? ta : tb] : (tensor_scaled ? tensor_scales[0] : 1.0f);
    const TileRule tr = make_tile_rule(rule, element, policy, s_enc);
    const TileScale sc = decide_tile_scale(st, tr);
    if (is_fp32_rule(rule)) scales[s] = sc.scale;
    else scale_codes[s] = sc.code;
    // 3. the elements
    const std::uint8_t nan_code = element_nan_code(element, prof);
    const bool sr_on = spec.rounding == Rounding::sr;
    std::uint64_t saturated = 0, flushed = 0;
    if (choices) choices[s] = 0;
    if (select != ScaleSelect::none && sc.kind != TileScale::Kind::nan_block) {  // 4over6: one row, ≤ 16 values
      const std::uint64_t i0 = a0 * B + b0;
      const unsigned len = static_cast<unsigned>(b1 - b0);
      float x[kFourOverSixBlock];
      std::uint64_t rb[kFourOverSixBlock] = {};
      for (unsigned k = 0; k < len; ++k) {
        x[k] = in[i0 + k];
        if (sr_on) rb[k] = sr_bits(sr.seed, sr.stream, sr.step, i0 + k, spec);
      }
      const FourOverSixTile f = fourover6_tile(x, len, rb, tensor_scales[2], select, tr, spec, prof);
      for (unsigned k = 0; k < len; ++k) {
        codes[i0 + k] = f.el[k].r.code;
        if (f.el[k].r.saturated) ++saturated;
        if (f.el[k].flushed) ++flushed;
      }
      scale_codes[s] = f.code;
      if (choices) choices[s] = f.choice;
    } else {
      for (std::uint64_t a = a0; a < a1; ++a)
        for (std::uint64_t b = b0; b < b1; ++b) {
          const std::uint64_t i = a * B + b;
          if (sc.kind == TileScale::Kind::nan_block) {
            codes[i] = nan_code;
            continue;
          }
          const std::uint64_t rb = sr_on ? sr_bits(sr.seed, sr.stream, sr.step, i, spec) : 0;
          const TileElement te = encode_in_tile(in[i], sc, tr, spec, prof, rb);
          codes[i] = te.r.code;
          if (te.r.saturated) ++saturated;
          if (te.flushed) ++flushed;
        }
    }
    if (tile_counts) {
      tile_counts[2 * t] = saturated;
      tile_counts[2 * t + 1] = flushed;
    }
  }
};

/// FP4 packing, one output byte per index i: out[i] = codes[2i] | codes[2i+1] << 4 (element 0 in the
/// low nibble, pack.hpp pack_fp4; an odd last code leaves the high nibble 0). Codes must be ≤ 0xf.
struct PackFp4Body {
  const std::uint8_t* codes = nullptr;
  std::uint64_t n = 0;
  std::uint8_t* out = nullptr;
  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t i) const noexcept {
    const unsigned lo = codes[2 * i] & 0xfu, hi = 2 * i + 1 < n ? codes[2 * i + 1] & 0xfu : 0u;
    out[i] = static_cast<std::uint8_t>(lo | (hi << 4));
  }
};
/// Bytes of the FP4 packing of n codes.
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t fp4_packed_bytes(std::uint64_t n) noexcept { return (n + 1) / 2; }

/// Dense FP6 packing (pack.hpp Fp6Packing::dense), one group of 4 codes → 3 bytes per index g:
/// code i occupies bits [6i, 6i + 6) of the little-endian bit stream; the last group writes only
/// the bytes of ceil(6n / 8). Codes must be ≤ 0x3f.
struct PackFp6Body {
  const std::uint8_t* codes = nullptr;
  std::uint64_t n = 0;
  std::uint8_t* out = nullptr;
  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t g) const noexcept {
    std::uint32_t v = 0;
    for (unsigned j = 0; j < 4; ++j)
      if (4 * g + j < n) v |= static_cast<std::uint32_t>(codes[4 * g + j] & 0x3fu) << (6 * j);
    const std::uint64_t bytes = (6 * n + 7) / 8;
    for (unsigned k = 0; k < 3; ++k)
      if (3 * g + k < bytes) out[3 * g + k] = static_cast<std::uint8_t>(v >> (8 * k));
  }
};
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t fp6_packed_bytes(std::uint64_t n) noexcept { return (6 * n + 7) / 8; }

/// The 128×4 scale swizzle of cuBLAS / cuDNN / TE (pack.hpp swizzle_scales_128x4), one OUTPUT byte
/// per index o of the padded layout (ceil(rows/128)·128 × ceil(cols/4)·4 bytes): tile o / 512
/// (row-tile-major over ceil(cols/4) column tiles), inside it w = o mod 512 holds scale
/// (r, c) = (128·row_tile + 32·((w mod 16) / 4) + w / 16, 4·col_tile + w mod 4), or `pad` outside
/// the [rows, cols] matrix. Every output byte is written once.
struct Swizzle128x4Body {
  const std::uint8_t* scales = nullptr;  ///< row-major [rows, cols]
  std::uint64_t rows = 0, cols = 0;
  std::uint8_t pad = 0;
  std::uint8_t* out = nullptr;
  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t o) const noexcept {
    const std::uint64_t col_tiles = (cols + 3) / 4, tile = o / 512, w = o % 512;
    const std::uint64_t r = (tile / col_tiles) * 128 + 32 * ((w % 16) / 4) + w / 16;
    const std::uint64_t c = (tile % col_tiles) * 4 + w % 4;
    out[o] = r < rows && c < cols ? scales[r * cols + c] : pad;
  }
};
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t swizzled_bytes(std::uint64_t rows, std::uint64_t cols) noexcept {
  return ((rows + 127) / 128) * 128 * ((cols + 3) / 4) * 4;
}

}  // namespace minifloat::cuda
