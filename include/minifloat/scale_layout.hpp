// SPDX-License-Identifier: Apache-2.0
// scale_layout.hpp: where each block scale sits in memory, for each stack that reads scales: the
// row-major tile grid (the library's own), the cuBLAS/CUTLASS/TE 128×4 swizzle, FlashInfer's 8×4
// swizzle, vLLM's 4×4 NVFP4 KV-cache swizzle and DeepGEMM's packed UE8M0 words. One table of layouts,
// one offset function per layout; `quantize --scale-layout`, `probe check --scale-layout` and Python's
// QuantizedTensor.scales_in go through lay_out_scales / read_laid_out_scales.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/block_scale.hpp"
#include "registry.hpp"

namespace minifloat {

struct QuantizedTensor;

/// The scale layouts. Each lays out the scale GRID [rows, cols]: rows run along M (or N) — the rows of
/// the quantization view, one per block row — and cols are the block index along K, the blocked axis
/// (quant.hpp: for BlockAxis::first the grid is the transpose of the stored scale_shape). Padding bytes
/// are 0. Sources (file:line at the commit read):
enum class ScaleLayout : std::uint8_t {
  rowmajor,         ///< the grid row-major as `scale_shape` stores it (the default; FP32 scales too)
  cutlass128x4,     ///< cuBLAS "1D block scaling factors layout", CUTLASS Sm1xxBlkScaledConfig, TE swizzle:
                    ///< 128×4 tiles of 512 bytes (pack.hpp swizzle_128x4_offset); padded to 128 rows, 4 cols
  flashinfer8x4,    ///< FlashInfer SfLayout.layout_8x4 (csrc/nv_internal/tensorrt_llm/kernels/
                    ///< quantization_utils.cuh:1026-1047 get_sf_out_offset_8x4, fb28d72): [row tiles of 8,
                    ///< col tiles of 4, 8, 4], i.e. ((r/8)·ceil(cols/4) + c/4)·32 + (r%8)·4 + c%4; padded to 8, 4
  vllm4x4,          ///< vLLM NVFP4 KV cache V scales for the SM100 trtllm-gen kernels (csrc/libtorch_stable/
                    ///< nvfp4_kv_cache_kernels.cu swizzle_scale_offset, vllm#50084): G = cols/4,
                    ///< (r, c) → row (r/4)·4 + c/G, column (c%G)·4 + r%4 of the same [rows, cols]; rows and
                    ///< cols multiples of 4, no padding
  deepgemm_packed,  ///< DeepGEMM get_mn_major_tma_aligned_packed_ue8m0_tensor (csrc/jit_kernels/impls/
                    ///< smxx_layout.hpp:155-178, csrc/utils/math.hpp:23-27, 54e2261): E8M0 codes packed 4
                    ///< per little-endian int32 along K (byte c%4 of word c/4), MN-major with rows padded
                    ///< to a multiple of 4 (16-byte TMA alignment): byte ((c/4)·align4(rows) + r)·4 + c%4
};
const NameTable<ScaleLayout>& name_table(ScaleLayout);

/// The scale grid a layout lays out: [rows, cols] = [M or N blocks, K blocks].
struct ScaleGrid {
  std::size_t rows = 0, cols = 0;
};

/// Why `layout` cannot hold the scales of a `grid` of `family` scales (nullopt when it can): FP32
/// scales only row-major; deepgemm_packed only E8M0 codes; vllm4x4 needs rows and cols multiples of 4.
std::optional<std::string> scale_layout_problem(ScaleLayout layout, ScaleGrid grid, ScaleFamily family);
/// Bytes `layout` takes for `grid` of one-byte codes (padding included).
std::size_t scale_layout_bytes(ScaleLayout layout, ScaleGrid grid);
/// Byte offset of grid scale (r, c) in `layout` (r < grid.rows, c < grid.cols).
std::size_t scale_layout_offset(ScaleLayout layout, ScaleGrid grid, std::size_t r, std::size_t c);
/// The .npy a layout is written as: descr and shape. rowmajor: the caller's (scale_shape);
/// cutlass128x4 / flashinfer8x4 |u1 [padded rows, padded cols]; vllm4x4 |u1 [rows, cols];
/// deepgemm_packed <u4 [ceil(cols/4), align4(rows)] (the words in storage order: the bytes of DeepGEMM's
/// torch.int32 tensor; `.view("<i4")` reads them as DeepGEMM does).
struct ScaleFile {
  std::string descr;
  std::vector<std::size_t> shape;
};
ScaleFile scale_layout_file(ScaleLayout layout, ScaleGrid grid);

/// The grid's codes (row-major [rows, cols]) laid out in `layout`; throws Error (naming the layout
/// and what it accepts) when scale_layout_problem says so for E8M0/E4M3 codes.
std::vector<std::uint8_t> lay_out_scales(ScaleLayout layout, ScaleGrid grid, std::span<const std::uint8_t> codes);
/// The inverse: the row-major grid read from `bytes` laid out in `layout` (padding ignored); throws
/// Error when bytes.size() != scale_layout_bytes(layout, grid).
std::vector<std::uint8_t> read_laid_out_scales(ScaleLayout layout, ScaleGrid grid, std::span<const std::uint8_t> bytes);

/// The scale grid of a quantized tensor: [scale_rows, scale_cols] of its quantization view.
ScaleGrid scale_grid(const QuantizedTensor& q);
/// `q`'s scales as `layout` writes them (scale_layout_problem(q, layout): why not, once its shape is known): bytes (the FP32 scales' bytes for FP32 rules, row-major only),
/// descr and shape. Throws Error when the layout cannot hold them (scale_layout_problem), or when the
/// scheme's tiles are 2-D (a layout other than rowmajor needs 1×k or k×1 blocks: one scale per row
/// and K block).
std::optional<std::string> scale_layout_problem(const QuantizedTensor& q, ScaleLayout layout);
struct LaidOutScales {
  std::vector<std::uint8_t> bytes;
  ScaleFile file;
};
LaidOutScales lay_out_scales(const QuantizedTensor& q, ScaleLayout layout);

}  // namespace minifloat
