// SPDX-License-Identifier: Apache-2.0
// blocks_host.cpp: the block quantizers' plan (cuda/api.hpp plan_blocks: the library's shapes, the
// tile body's fields) and their CPU launcher API (cpu::quantize_blocks, pack_fp4, pack_fp6_dense,
// swizzle_scales_128x4): the bodies of cuda/blocks.hpp over the kernels' grid on CPU threads.
#include <limits>
#include <string>

#include "minifloat/cuda/api.hpp"
#include "minifloat/cuda/launch_cpu.hpp"
#include "minifloat/error.hpp"

namespace minifloat::cuda {

namespace {
/// The QuantOptions fields the bodies run (cuda/blocks.hpp): the element rounding (RoundingSpec, daz aside),
/// profile, axis and SR stream. Any other field must hold its default, so that a field the bodies do not read
/// (today: mx_quirks, the peers' host-only quantizers; RoundingSpec::daz, which the host applies to the inputs
/// before the statistics) is refused instead of silently ignored; a field added later is refused until the bodies
/// run it. Returns the refused option's name, or "" when every field is run.
std::string option_not_in_body(const QuantOptions& opt) {
  if (opt.mx_quirks != MxQuirks::none) return "mx-quirks " + std::string(name(opt.mx_quirks));
  if (opt.rounding.daz) return "daz";
  return only_element_options(opt) ? "" : "an option of QuantOptions";
}
}  // namespace

BlockPlan plan_blocks(const std::vector<std::size_t>& shape, const Scheme& scheme, const QuantOptions& opt) {
  BlockQuantizer bq(shape, scheme, opt);  // validates the scheme, SR bits and the shape's size
  if (const std::string o = option_not_in_body(opt); !o.empty())
    throw Error("cuda block quantization: " + o + " is not in the CUDA block body; quantize " + scheme_name(scheme) +
                " with the host engine (minifloat quantize, quant.hpp)");
  // issue 25 item 9: the transform (exact), tensor-scale, amax-scope row and 4over6 are in the bodies
  // (cuda/blocks.hpp); the transform on a tensor-core model is not
  if (scheme.transform.rht16 && scheme.transform_gemm != nullptr)
    throw Error("cuda block quantization: transform-gemm " + transform_gemm_name(scheme.transform_gemm) +
                " (the transform on a tensor-core model) is not in the CUDA block body; accepted there: "
                "transform-gemm exact (the default); quantize " +
                scheme_name(scheme) + " with the host engine (minifloat quantize, quant.hpp)");
  BlockPlan p;
  p.header = bq.result();
  const QuantizedTensor& q = p.header;
  BlockLayout& L = p.body.lay;
  if (opt.axis == BlockAxis::first) {
    L.file_rows = q.cols;
    L.file_cols = q.rows;
    L.tile_rows = q.block_cols;
    L.tile_cols = q.block_rows;
    L.tiles_a = q.scale_cols;
    L.tiles_b = q.scale_rows;
  } else {
    L.file_rows = q.rows;
    L.file_cols = q.cols;
    L.tile_rows = q.block_rows;
    L.tile_cols = q.block_cols;
    L.tiles_a = q.scale_rows;
    L.tiles_b = q.scale_cols;
  }
  p.n = static_cast<std::uint64_t>(q.rows) * q.cols;
  if (shape.empty()) p.n = 1;
  p.body.element = scheme.element;
  p.body.rule = scheme.rule;
  p.body.policy = scheme.policy;
  p.body.spec = opt.rounding;
  p.body.prof = opt.profile;
  p.body.sr = SrCounter{opt.sr_seed, opt.sr_stream, opt.sr_step, 0};
  p.body.select = scheme.scale_select;
  p.body.view_row = opt.axis == BlockAxis::first ? ViewRow::file_column : ViewRow::file_row;
  p.tensor_scale = scheme.tensor_scale;
  return p;
}

namespace cpu {
QuantizedTensor quantize_blocks(std::span<const float> x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                                const QuantOptions& opt, unsigned threads) {
  BlockPlan p = plan_blocks(shape, scheme, opt);
  if (x.size() != p.n)
    throw Error("cuda: quantize_blocks: " + std::to_string(x.size()) + " values do not match the shape (" +
                std::to_string(p.n) + " elements)");
  QuantizedTensor q = std::move(p.header);
  q.codes.assign(p.n, 0);
  BlockQuantBody b = p.body;
  const float elem_max = static_cast<float>(element_max(scheme.element));
  const float* src = x.data();
  std::vector<float> transformed;
  if (scheme.transform.rht16 && p.n != 0) {  // the transform first, into a scratch tensor the other bodies read
    transformed.resize(p.n);
    launch_cpu(
        TransformBody{x.data(), b.lay.file_rows, b.lay.file_cols, b.view_row, scheme.transform, transformed.data()},
        transform_groups(p.n), threads);
    src = transformed.data();
  }
  float tensor[3] = {1.0f, 1.0f, 0.0f};
  if (!q.row_encode_scales.empty()) {  // amax-scope row: each row's S_enc and S_dec; the tensor scales 1, 1 (quant.hpp)
    launch_cpu(RowScaleBody{src, b.lay.file_rows, b.lay.file_cols, b.view_row, elem_max, q.row_encode_scales.data(),
                            q.row_decode_scales.data()},
               q.rows, threads);
    launch_cpu(TensorScaleBody{nullptr, 0, elem_max, tensor, scheme.rule, scheme.scale_select, 1.0f}, 1, 1);
    b.row_scales = q.row_encode_scales.data();
  } else if (p.needs_tensor_amax()) {
    const float given = p.given_tensor_scale();
    std::vector<float> partial(given != 0.0f ? 0 : amax_chunks(p.n));
    launch_cpu(AmaxPartialBody{src, p.n, partial.data()}, partial.size(), threads);
    launch_cpu(
        TensorScaleBody{partial.data(), partial.size(), elem_max, tensor, scheme.rule, scheme.scale_select, given}, 1,
        1);
  }
  if (p.needs_tensor_amax()) {
    q.tensor_encode_scale = tensor[0];
    q.tensor_decode_scale = tensor[1];
  }
  std::vector<std::uint64_t> counts(2 * b.lay.tiles());
  b.in = src;
  b.tensor_scales = tensor;
  b.choices = q.scale_select.empty() ? nullptr : q.scale_select.data();
  b.codes = q.codes.data();
  b.scale_codes = q.scale_codes.empty() ? nullptr : q.scale_codes.data();
  b.scales = q.scales.empty() ? nullptr : q.scales.data();
  b.tile_counts = counts.data();
  if (p.n != 0) launch_cpu(b, b.lay.tiles(), threads);
  for (std::size_t t = 0; t < counts.size(); t += 2) {
    q.saturated += counts[t];
    q.flushed += counts[t + 1];
  }
  return q;
}

std::vector<std::uint8_t> pack_fp4(std::span<const std::uint8_t> codes, unsigned threads) {
  for (std::size_t i = 0; i < codes.size(); ++i)
    if (codes[i] > 0xf)
      throw Error("cuda: pack_fp4: code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                  " is wider than 4 bits; accepted: 0..15");
  std::vector<std::uint8_t> out(fp4_packed_bytes(codes.size()));
  launch_cpu(PackFp4Body{codes.data(), codes.size(), out.data()}, out.size(), threads);
  return out;
}

std::vector<std::uint8_t> pack_fp6_dense(std::span<const std::uint8_t> codes, unsigned threads) {
  for (std::size_t i = 0; i < codes.size(); ++i)
    if (codes[i] > 0x3f)
      throw Error("cuda: pack_fp6_dense: code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                  " is wider than 6 bits; accepted: 0..63");
  std::vector<std::uint8_t> out(fp6_packed_bytes(codes.size()));
  launch_cpu(PackFp6Body{codes.data(), codes.size(), out.data()}, (codes.size() + 3) / 4, threads);
  return out;
}

std::vector<std::uint8_t> swizzle_scales_128x4(std::span<const std::uint8_t> scales, std::size_t rows, std::size_t cols,
                                               std::uint8_t pad, unsigned threads) {
  if (cols != 0 && rows > std::numeric_limits<std::size_t>::max() / cols)
    throw Error("cuda: swizzle_scales_128x4: rows x cols overflows");
  if (scales.size() != rows * cols)
    throw Error("cuda: swizzle_scales_128x4: " + std::to_string(scales.size()) + " scales for a " +
                std::to_string(rows) + "x" + std::to_string(cols) + " matrix; accepted: rows x cols scales");
  std::vector<std::uint8_t> out(swizzled_bytes(rows, cols));
  launch_cpu(Swizzle128x4Body{scales.data(), rows, cols, pad, out.data()}, out.size(), threads);
  return out;
}

}  // namespace cpu
}  // namespace minifloat::cuda
