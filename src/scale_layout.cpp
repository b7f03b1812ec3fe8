// SPDX-License-Identifier: Apache-2.0
// scale_layout.cpp: the scale layouts of scale_layout.hpp — one offset function per layout, the one
// lay-out and read-back loop over it, and the scale grid of a QuantizedTensor.
#include "minifloat/scale_layout.hpp"

#include "minifloat/error.hpp"
#include "minifloat/pack.hpp"
#include "minifloat/quant.hpp"

namespace minifloat {
namespace {

constexpr NameEntry<ScaleLayout> kScaleLayouts[] = {
    {ScaleLayout::rowmajor, "rowmajor",
     "the scale grid row-major, in the input's axis order (scale_shape); the default"},
    {ScaleLayout::cutlass128x4, "cutlass128x4",
     "cuBLAS/CUTLASS/TE 128x4 tiles of 512 bytes (MXFP8, NVFP4 GEMM operands); padded to 128 rows, 4 columns"},
    {ScaleLayout::flashinfer8x4, "flashinfer8x4",
     "FlashInfer SfLayout.layout_8x4: 8x4 tiles of 32 bytes (quantization_utils.cuh get_sf_out_offset_8x4)"},
    {ScaleLayout::vllm4x4, "vllm4x4",
     "vLLM NVFP4 KV-cache V scales for SM100 trtllm-gen (swizzle_scale_offset); rows and cols multiples of 4"},
    {ScaleLayout::deepgemm_packed, "deepgemm_packed",
     "DeepGEMM: E8M0 codes packed 4 per int32 along K, MN-major, rows padded to 4 (TMA-aligned); <u4 words"},
};

constexpr std::size_t ceil_to(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }

}  // namespace

const NameTable<ScaleLayout>& name_table(ScaleLayout) {
  static constexpr NameTable<ScaleLayout> t{"scale-layout", "scale layout", kScaleLayouts};
  return t;
}

namespace {
/// What the grid's shape does not allow in `layout` (vllm4x4's swizzle has no padding).
std::optional<std::string> grid_problem(ScaleLayout layout, ScaleGrid grid) {
  if (layout == ScaleLayout::vllm4x4 && (grid.rows % 4 != 0 || grid.cols % 4 != 0))
    return std::string(name(layout)) + " needs a scale grid whose rows and columns are multiples of 4; this one is " +
           std::to_string(grid.rows) + "x" + std::to_string(grid.cols);
  return std::nullopt;
}
}  // namespace

std::optional<std::string> scale_layout_problem(ScaleLayout layout, ScaleGrid grid, ScaleFamily family) {
  const std::string n(name(layout));
  if (layout == ScaleLayout::rowmajor) return std::nullopt;
  if (family == ScaleFamily::fp32) return n + " lays out one-byte scale codes; FP32 scales are written rowmajor";
  if (layout == ScaleLayout::deepgemm_packed && family != ScaleFamily::e8m0)
    return n + " packs E8M0 (e8m0fnu) codes; these scales are " +
           (family == ScaleFamily::ue5m3 ? "ue5m3 codes" : "e4m3fn codes");
  return grid_problem(layout, grid);
}

std::size_t scale_layout_bytes(ScaleLayout layout, ScaleGrid g) {
  switch (layout) {
    case ScaleLayout::rowmajor:
    case ScaleLayout::vllm4x4: return g.rows * g.cols;
    case ScaleLayout::cutlass128x4: return swizzled_128x4_size(g.rows, g.cols);
    case ScaleLayout::flashinfer8x4: return ceil_to(g.rows, 8) * ceil_to(g.cols, 4);
    case ScaleLayout::deepgemm_packed: return ceil_to(g.rows, 4) * ceil_to(g.cols, 4);
  }
  return 0;
}

std::size_t scale_layout_offset(ScaleLayout layout, ScaleGrid g, std::size_t r, std::size_t c) {
  switch (layout) {
    case ScaleLayout::rowmajor: return r * g.cols + c;
    case ScaleLayout::cutlass128x4: return swizzle_128x4_offset(r, c, g.cols);
    case ScaleLayout::flashinfer8x4: return ((r / 8) * (ceil_to(g.cols, 4) / 4) + c / 4) * 32 + (r % 8) * 4 + c % 4;
    case ScaleLayout::vllm4x4: {
      const std::size_t group = g.cols / 4;
      return ((r / 4) * 4 + c / group) * g.cols + (c % group) * 4 + r % 4;
    }
    case ScaleLayout::deepgemm_packed: return ((c / 4) * ceil_to(g.rows, 4) + r) * 4 + c % 4;
  }
  return 0;
}

ScaleFile scale_layout_file(ScaleLayout layout, ScaleGrid g) {
  switch (layout) {
    case ScaleLayout::rowmajor:
    case ScaleLayout::vllm4x4: return {"|u1", {g.rows, g.cols}};
    case ScaleLayout::cutlass128x4: return {"|u1", {ceil_to(g.rows, 128), ceil_to(g.cols, 4)}};
    case ScaleLayout::flashinfer8x4: return {"|u1", {ceil_to(g.rows, 8), ceil_to(g.cols, 4)}};
    case ScaleLayout::deepgemm_packed: return {"<u4", {ceil_to(g.cols, 4) / 4, ceil_to(g.rows, 4)}};
  }
  return {};
}

namespace {
void check_codes(ScaleLayout layout, ScaleGrid g, std::size_t have, std::string_view what) {
  if (auto p = grid_problem(layout, g)) throw Error("--scale-layout: " + *p);
  const std::size_t want = what == "codes" ? g.rows * g.cols : scale_layout_bytes(layout, g);
  if (have != want)
    throw Error("scale layout " + std::string(name(layout)) + ": " + std::to_string(have) + " bytes of " +
                std::string(what) + " for a " + std::to_string(g.rows) + "x" + std::to_string(g.cols) +
                " scale grid; it takes " + std::to_string(want));
}
}  // namespace

std::vector<std::uint8_t> lay_out_scales(ScaleLayout layout, ScaleGrid g, std::span<const std::uint8_t> codes) {
  check_codes(layout, g, codes.size(), "codes");
  std::vector<std::uint8_t> out(scale_layout_bytes(layout, g), 0);
  for (std::size_t r = 0; r < g.rows; ++r)
    for (std::size_t c = 0; c < g.cols; ++c) out[scale_layout_offset(layout, g, r, c)] = codes[r * g.cols + c];
  return out;
}

std::vector<std::uint8_t> read_laid_out_scales(ScaleLayout layout, ScaleGrid g, std::span<const std::uint8_t> bytes) {
  check_codes(layout, g, bytes.size(), "laid-out scales");
  std::vector<std::uint8_t> out(g.rows * g.cols);
  for (std::size_t r = 0; r < g.rows; ++r)
    for (std::size_t c = 0; c < g.cols; ++c) out[r * g.cols + c] = bytes[scale_layout_offset(layout, g, r, c)];
  return out;
}

namespace {
/// Whether the layout grid is the transpose of the quantization view's tile grid: k×1 tiles (blocks
/// down the view's columns) put K along the tile rows.
bool grid_transposed(const QuantizedTensor& q) { return q.block_rows != 1 && q.block_cols == 1; }
}  // namespace

ScaleGrid scale_grid(const QuantizedTensor& q) {
  return grid_transposed(q) ? ScaleGrid{q.scale_cols, q.scale_rows} : ScaleGrid{q.scale_rows, q.scale_cols};
}

std::optional<std::string> scale_layout_problem(const QuantizedTensor& q, ScaleLayout layout) {
  if (layout == ScaleLayout::rowmajor) return std::nullopt;
  if (auto p = scale_layout_problem(layout, scale_grid(q), family(q.rule))) return p;
  if (q.block_rows != 1 && q.block_cols != 1)
    return std::string(name(layout)) + " lays out one scale per row and K block (1xk or kx1 blocks); this scheme has " +
           std::to_string(q.block_rows) + "x" + std::to_string(q.block_cols) +
           " tiles; accepted for 2-D tiles: rowmajor";
  return std::nullopt;
}

LaidOutScales lay_out_scales(const QuantizedTensor& q, ScaleLayout layout) {
  LaidOutScales out;
  if (layout == ScaleLayout::rowmajor) {
    if (q.scale_codes.empty()) {
      const auto* b = reinterpret_cast<const std::uint8_t*>(q.scales.data());
      out.bytes.assign(b, b + q.scales.size() * sizeof(float));
      out.file = {"<f4", q.scale_shape};
    } else {
      out.bytes = q.scale_codes;
      out.file = {"|u1", q.scale_shape};
    }
    return out;
  }
  if (auto p = scale_layout_problem(q, layout)) throw Error("--scale-layout: " + *p);
  const ScaleGrid g = scale_grid(q);
  // the grid row-major: tile (tr, tc) of the view is stored at tr*scale_cols + tc (BlockAxis::last) or
  // tc*scale_rows + tr (BlockAxis::first: the input's axis order)
  std::vector<std::uint8_t> grid(g.rows * g.cols);
  const bool t = grid_transposed(q), first = q.axis == BlockAxis::first;
  for (std::size_t r = 0; r < g.rows; ++r)
    for (std::size_t c = 0; c < g.cols; ++c) {
      const std::size_t tr = t ? c : r, tc = t ? r : c;
      grid[r * g.cols + c] = q.scale_codes[first ? tc * q.scale_rows + tr : tr * q.scale_cols + tc];
    }
  out.bytes = lay_out_scales(layout, g, grid);
  out.file = scale_layout_file(layout, g);
  return out;
}

}  // namespace minifloat
