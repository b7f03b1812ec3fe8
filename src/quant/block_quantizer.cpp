// SPDX-License-Identifier: Apache-2.0
// quant/block_quantizer.cpp: the streaming quantizer of quant.hpp — the tensor's views and tiling,
// the piece plan, the first pass (tile statistics, NVFP4's tensor scales), the fast path's whitelist,
// dequantization, and quantize() of a whole array. The tile loops of one piece: tile_loops.cpp.
#include "minifloat/quant.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "minifloat/convert_array.hpp"
#include "minifloat/core/convert.hpp"
#include "quant/internal.hpp"
#include "quant/te2_quirks.hpp"
#include "quant/torchao_quirks.hpp"
#include "simd/convert_simd.hpp"
#include "simd/hadamard_simd.hpp"

namespace minifloat {
bool only_element_options(const QuantOptions& opt) {
  QuantOptions o = opt;
  const QuantOptions d{};
  o.rounding = d.rounding;
  o.profile = d.profile;
  o.axis = d.axis;
  o.sr_seed = d.sr_seed;
  o.sr_stream = d.sr_stream;
  o.sr_step = d.sr_step;
  o.source = d.source;  // read only by MxQuirks::te_2 (mx_quirks must then be none)
  return o == d;
}

namespace quant_detail {

// The positive whitelist of the fast element path (quant.hpp, BlockQuantizer::element_path): every
// option the fast path was written and tested for, at any value; any other field of QuantOptions or
// BlockPolicy (present or future) must hold its default, else the engine runs.
bool fast_path_whitelisted(const Scheme& scheme, const QuantOptions& opt) {
  // 4over6 (rne into e2m1fn: simd::fused_rows_4over6, other modes fourover6_segment) and amax-scope row (the fused
  // NVFP4 rows with each row's S_enc; other tiles the core's step with the row's rule) take the fast path too
  // (issue 25 item 9; tests/simd EveryBf16AndF16PatternThrough4over6AndRowAmax)
  switch (scheme.rule) {
    case ScaleRule::ocp_floor:
    case ScaleRule::rceil:
    case ScaleRule::ceil:
    case ScaleRule::even:
    case ScaleRule::tosa:
    case ScaleRule::fp32_amax:
    case ScaleRule::fp32_pow2:
    case ScaleRule::nvfp4:
    case ScaleRule::rceil_fp32:  // E8M0: the fused rows' per-binade table of e8m0_exponent (issue 25 item 9)
    case ScaleRule::nvfp4_v2:    // UE5M3: the per-tile step, elements fl32(x / divisor) (BlockOp::divide)
    case ScaleRule::nvfp4_v2_gs: break;
    default: return false;  // nvfp4_ceil: the fused NVFP4 rows round the block scale to nearest
  }
  if (scheme.element.kind != ElementKind::floating && scheme.element.kind != ElementKind::int8) return false;
  if (opt.rounding.rounding == Rounding::sr) return false;
  if (!only_element_options(opt)) return false;  // rounding mode and overflow, profile, axis, SR stream (unused)
  BlockPolicy pol = scheme.policy;  // the fields of kPolicyFields (scheme.hpp) flagged fast_path, and amax_epsilon
  const BlockPolicy dp{};
  for_each_policy_field([&](const auto& f, std::size_t) {
    if (f.fast_path) pol.*f.member = dp.*f.member;
  });
  pol.amax_epsilon = dp.amax_epsilon;
  if (!(pol == dp)) return false;
  // RoundingSpec: the fields known today (the SR ones are not read by the deterministic modes)
  if (!(RoundingSpec{.rounding = opt.rounding.rounding,
                     .overflow = opt.rounding.overflow,
                     .sr_variant = opt.rounding.sr_variant,
                     .sr_bits = opt.rounding.sr_bits} == opt.rounding))
    return false;
  return simd::quant_kernel(scheme.element, opt.rounding, opt.profile, scheme.policy.mxint8_min) != nullptr;
}

}  // namespace quant_detail

using namespace quant_detail;

// ---- the streaming engine -------------------------------------------------------------------

std::size_t QuantPlan::count() const noexcept {
  if (file_rows == 0 || file_cols == 0 || piece_rows == 0 || piece_cols == 0) return 0;
  if (piece_cols >= file_cols) return ceil_div(file_rows, piece_rows);
  return file_rows * ceil_div(file_cols, piece_cols);
}

QuantPiece QuantPlan::piece(std::size_t k) const noexcept {
  QuantPiece p;
  if (piece_cols >= file_cols) {
    p.row = k * piece_rows;
    p.rows = std::min(piece_rows, file_rows - p.row);
    p.col = 0;
    p.cols = file_cols;
    return p;
  }
  const std::size_t segs = ceil_div(file_cols, piece_cols);
  p.row = k / segs;
  p.rows = 1;
  p.col = (k % segs) * piece_cols;
  p.cols = std::min(piece_cols, file_cols - p.col);
  return p;
}

std::optional<OptionIssue> check_options(const Scheme& scheme, const QuantOptions& opt) {
  if (opt.rounding.rounding == Rounding::sr && !sr_bits_problem(opt.rounding.sr_bits).empty())
    return OptionIssue{"sr_bits", sr_bits_problem(opt.rounding.sr_bits)};
  const bool nvfp4_1x16_e2m1 = scheme.rule == ScaleRule::nvfp4 && scheme.element == elements::e2m1fn &&
                               scheme.block_rows == 1 && scheme.block_cols == 16;
  if (opt.mx_quirks == MxQuirks::torchao_0_18 && !nvfp4_1x16_e2m1 &&
      (scheme.element.kind != ElementKind::floating ||
       !(scheme.rule == ScaleRule::ocp_floor || scheme.rule == ScaleRule::ceil || scheme.rule == ScaleRule::even ||
         scheme.rule == ScaleRule::rceil)))
    return OptionIssue{"mx-quirks",
                       "torchao_0_18 applies to floating elements with the scale rules ocp_floor, ceil, even, "
                       "rceil, and to nvfp4 (e2m1fn, 1x16); not " +
                           scheme_name(scheme)};
  if (opt.mx_quirks == MxQuirks::torchao_0_18_no_tensor_scale && !nvfp4_1x16_e2m1)
    return OptionIssue{"mx-quirks",
                       "torchao_0_18_no_tensor_scale applies to nvfp4 (e2m1fn elements, 1x16 tiles, "
                       "ue4m3:nvfp4 scales); not " +
                           scheme_name(scheme)};
  if (opt.mx_quirks == MxQuirks::te_2) {
    const bool fp8 = (scheme.rule == ScaleRule::fp32_amax || scheme.rule == ScaleRule::fp32_pow2) &&
                     (scheme.element == elements::e4m3fn || scheme.element == elements::e5m2);
    const bool nv = scheme.rule == ScaleRule::nvfp4 && scheme.element == elements::e2m1fn && scheme.block_cols == 16 &&
                    (scheme.block_rows == 1 || scheme.block_rows == 16);
    if (!fp8 && !nv)
      return OptionIssue{"mx-quirks",
                         "te_2 applies to FP32 current scaling (f32:fp32_amax or f32:fp32_pow2 scales, e4m3fn or "
                         "e5m2 elements: fp8_tensor, fp8_row, fp8_channel, fp8_1x128, fp8_128x128) and to nvfp4 "
                         "(e2m1fn, 1x16 or 16x16); not " +
                             scheme_name(scheme)};
    BlockPolicy pol = scheme.policy;
    pol.amax_epsilon = BlockPolicy{}.amax_epsilon;  // TE's eps: torch.max(amax, eps)
    if (!(pol == BlockPolicy{}))
      return OptionIssue{"mx-quirks",
                         "te_2 reproduces TE's own special-tile handling, so it takes the default block policy "
                         "(amax-epsilon allowed; no zero-block, nan-block, inf-block, subnormal-amax or "
                         "fp32-order); not " +
                             scheme_name(scheme)};
  }
  if (scheme.scale_select != ScaleSelect::none && opt.mx_quirks != MxQuirks::none)
    return OptionIssue{"mx-quirks", std::string(name(opt.mx_quirks)) +
                                        " is the peer's own NVFP4; not with scale-select " +
                                        std::string(name(scheme.scale_select))};
  if (scheme.scale_select != ScaleSelect::none && opt.axis != BlockAxis::last)
    return OptionIssue{"axis", "first: scale-select " + std::string(name(scheme.scale_select)) +
                                   " takes blocks along the last axis only (accepted: last)"};
  if (opt.mx_quirks != MxQuirks::none && scheme.amax_scope != AmaxScope::tensor)
    return OptionIssue{"mx-quirks", std::string(name(opt.mx_quirks)) +
                                        " computes the peer's own tensor scale; not with amax-scope row"};
  if (opt.mx_quirks != MxQuirks::none && scheme.tensor_scale != 0.0f)
    return OptionIssue{"mx-quirks", std::string(name(opt.mx_quirks)) +
                                        " computes the peer's own tensor scale; not with a given tensor-scale"};
  if (opt.mx_quirks != MxQuirks::none && opt.mx_quirks != MxQuirks::te_2 && !(scheme.policy == BlockPolicy{}))
    return OptionIssue{"mx-quirks",
                       std::string(name(opt.mx_quirks)) +
                           " reproduces the peer's own special-block handling, so it takes the default block "
                           "policy (no zero-block, nan-block, inf-block, subnormal-amax, fp32-order or "
                           "amax-epsilon); not " +
                           scheme_name(scheme)};
  return std::nullopt;
}

BlockQuantizer::BlockQuantizer(const std::vector<std::size_t>& shape, const Scheme& scheme, const QuantOptions& opt,
                               ArrayPath path)
    : scheme_(scheme), opt_(opt) {
  validate_scheme(scheme);
  if (const std::optional<OptionIssue> issue = check_options(scheme, opt))
    throw Error("quantize: " + issue->option + " " + issue->why);
  path_ = path == ArrayPath::simd && fast_path_whitelisted(scheme, opt) ? ArrayPath::simd : ArrayPath::engine;
  transform_path_ = path;
  checked_product(shape, "quantize");
  QuantizedTensor& q = q_;
  q.scheme = scheme_name(scheme);
  q.rule = scheme.rule;
  q.element = scheme.element;
  element_lut_ = element_lut(q.element);
  q.shape = shape;
  q.axis = opt.axis;
  q.transform = scheme.transform;
  q.transform_gemm = scheme.transform_gemm;
  // The [rows, cols] view and the file-order [file_rows, file_cols] view.
  std::size_t R = 1, C = 1;
  if (!shape.empty()) {
    if (opt.axis == BlockAxis::first) {
      C = shape[0];
      R = checked_product(std::vector<std::size_t>(shape.begin() + 1, shape.end()), "quantize");
    } else {
      C = shape.back();
      R = checked_product(std::vector<std::size_t>(shape.begin(), shape.end() - 1), "quantize");
    }
  }
  q.rows = R;
  q.cols = C;
  q.block_rows = scheme.block_rows ? scheme.block_rows : std::max<std::size_t>(R, 1);
  q.block_cols = scheme.block_cols ? scheme.block_cols : std::max<std::size_t>(C, 1);
  q.scale_rows = ceil_div(R, q.block_rows);
  q.scale_cols = ceil_div(C, q.block_cols);
  if (shape.empty()) {
    q.scale_shape = {};
  } else if (shape.size() == 1) {
    q.scale_shape = {q.scale_cols};
  } else if (opt.axis == BlockAxis::first) {  // the input's axis order: the blocked axis stays first
    if (scheme.block_rows == 1) q.scale_shape.assign(shape.begin() + 1, shape.end());
    else q.scale_shape = {q.scale_rows};
    q.scale_shape.insert(q.scale_shape.begin(), q.scale_cols);
  } else if (scheme.block_rows == 1) {
    q.scale_shape.assign(shape.begin(), shape.end() - 1);
    q.scale_shape.push_back(q.scale_cols);
  } else {
    q.scale_shape = {q.scale_rows, q.scale_cols};
  }
  const std::size_t ntiles = q.scale_rows * q.scale_cols;
  if (coded_scale(q)) q.scale_codes.assign(ntiles, 0);
  if (scheme.scale_select != ScaleSelect::none) q.scale_select.assign(ntiles, 0);
  if (is_fp32_rule(q.rule)) q.scales.assign(ntiles, 1.0f);
  if (scheme.amax_scope == AmaxScope::row) {  // issue 25 item 3: one S_enc per row, set by end_first_pass
    row_amax_.assign(R, 0.0);
    q.row_encode_scales.assign(R, 1.0f);
    q.row_decode_scales.assign(R, 1.0f);
  }
  if (scheme.transform.rht16 && (shape.empty() || C % kRht16Size != 0))
    throw Error("quantize: transform " + transform_name(scheme.transform) + " needs the block axis (" +
                (opt.axis == BlockAxis::first ? std::string("axis first") : std::string("the last axis")) +
                ", length " + (shape.empty() ? std::string("none: a 0-d input") : std::to_string(C)) +
                ") to be a multiple of 16; accepted: lengths 16, 32, 48, ...");
  if (opt.axis == BlockAxis::first) {
    file_rows_ = C;
    file_cols_ = R;
    tile_rows_ = q.block_cols;
    tile_cols_ = q.block_rows;
  } else {
    file_rows_ = R;
    file_cols_ = C;
    tile_rows_ = q.block_rows;
    tile_cols_ = q.block_cols;
  }
}

std::size_t BlockQuantizer::scale_index(std::size_t ta, std::size_t tb) const noexcept {
  // file-order tile (ta, tb), row-major over the file's tile grid (BlockAxis::first: [scale_cols, scale_rows])
  return ta * (q_.axis == BlockAxis::first ? q_.scale_rows : q_.scale_cols) + tb;
}

QuantPlan BlockQuantizer::plan(std::size_t max_elements) const {
  if (max_elements == 0) max_elements = 1;
  QuantPlan p;
  p.file_rows = file_rows_;
  p.file_cols = file_cols_;
  const std::size_t A = file_rows_, B = file_cols_, tA = tile_rows_, tB = tile_cols_;
  bool local = true;
  if (B == 0 || A <= max_elements / B) {  // the whole tensor
    p.piece_rows = std::max<std::size_t>(A, 1);
    p.piece_cols = B;
  } else if (B <= max_elements) {  // whole rows
    p.piece_cols = B;
    p.piece_rows = max_elements / B;
    if (p.piece_rows >= tA) p.piece_rows -= p.piece_rows % tA;
    else local = false;
  } else {  // parts of one row, byte-aligned for FP4/FP6 packing
    p.piece_rows = 1;
    const std::size_t L = tB % 8 == 0 ? tB : (tB % 4 == 0 ? 2 * tB : (tB % 2 == 0 ? 4 * tB : 8 * tB));  // lcm(tB, 8)
    if (tA == 1 && tB <= max_elements && L <= max_elements) {
      p.piece_cols = max_elements - max_elements % L;
    } else {
      p.piece_cols = std::max<std::size_t>(8, max_elements - max_elements % 8);
      local = false;
    }
  }
  if (q_.transform.rht16) {  // whole 16-element transform groups along the block axis in every piece
    if (q_.axis == BlockAxis::first && p.piece_rows < A && p.piece_rows >= kRht16Size)
      p.piece_rows -= p.piece_rows % kRht16Size;
    if (q_.axis == BlockAxis::last && p.piece_cols < B && p.piece_cols >= kRht16Size)
      p.piece_cols -= p.piece_cols % kRht16Size;
  }
  p.first_pass =
      !local || ((is_nvfp4_rule(q_.rule) || q_.rule == ScaleRule::nvfp4_v2_gs) && scheme_.tensor_scale == 0.0f);
  return p;
}

namespace {
/// The transform on a tensor-core model (Scheme::transform_gemm): the groups (one per row of X, 16 values)
/// rounded into the preset's first operand format (rne, satfinite) and multiplied by M = diag(s)·H16/4 in one
/// gemm() with C = +0; the results (the destination's codes) widened exactly to binary32, then the output
/// rounding of the transform (bf16 for rht16:torchao, as rht16_group does).
template <class T>
std::vector<float> transform_on_model(const QuantizedTensor& q, std::span<const T> groups) {
  DotModel model;
  model.name = q.transform_gemm->name;
  model.kind = AccumKind::tfdpa;
  model.tensor_core = *q.transform_gemm;
  const Format fa = q.transform_gemm->operands.formats[0];
  const Format from = sizeof(T) == sizeof(double) ? formats::f64 : formats::f32;
  std::vector<std::uint64_t> x(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if constexpr (sizeof(T) == sizeof(double)) x[i] = detail::bit_cast<std::uint64_t>(groups[i]);
    else x[i] = detail::bit_cast<std::uint32_t>(groups[i]);
  }
  x = round_operands(from, x, fa, OperandRound::satfinite);
  std::vector<std::uint64_t> M(kRht16Size * kRht16Size);
  const RoundingSpec rne{Rounding::rne, Overflow::nonsat};
  for (unsigned i = 0; i < kRht16Size; ++i)
    for (unsigned j = 0; j < kRht16Size; ++j) {
      M[i * kRht16Size + j] =
          from_float(detail::rht16_negative(q.transform.signs, i, j) ? -0.25f : 0.25f, fa, rne).code;
    }
  const std::vector<std::uint64_t> d = gemm(model, groups.size() / kRht16Size, kRht16Size, kRht16Size, fa, x, fa, M);
  const Format rf = result_format(model);
  std::vector<float> out(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    // f32, or an f16 destination widened exactly; then the output rounding
    out[i] = transform_output(static_cast<float>(to_float(rf, d[i])), q.transform.output);
  }
  return out;
}
}  // namespace

namespace quant_detail {
/// The piece must hold whole groups: BlockAxis::last columns [16k, 16m); BlockAxis::first whole rows [16k, 16m).
void check_transform_piece(const QuantPiece& p, const QuantizedTensor& q, std::size_t file_cols) {
  const std::size_t g = kRht16Size;
  if (p.size() == 0) return;
  if (q.axis == BlockAxis::last) {
    if (p.col % g != 0 || p.cols % g != 0)
      throw Error("BlockQuantizer: transform " + transform_name(q.transform) +
                  " needs pieces of whole 16-element groups along the last axis (columns from a multiple of 16)");
    return;
  }
  if (p.col != 0 || p.cols != file_cols || p.row % g != 0 || p.rows % g != 0)
    throw Error("BlockQuantizer: transform " + transform_name(q.transform) +
                " with axis first needs pieces of whole rows, 16 rows at a time (rows from a multiple of 16)");
}

void transform_simd(const QuantPiece& p, std::span<const float> v, const QuantizedTensor& q, std::span<float> out,
                    unsigned threads) {
  const std::size_t g = kRht16Size;
  // rows [r0, r1) (BlockAxis::first: multiples of 16, each 16-row band with the columns' groups across the lanes)
  auto rows = [&](std::size_t r0, std::size_t r1) {
    if (q.axis == BlockAxis::last) {
      simd::rht16_contiguous(v.data() + r0 * p.cols, (r1 - r0) * p.cols / g, q.transform, out.data() + r0 * p.cols);
      return;
    }
    for (std::size_t r = r0; r < r1; r += g)
      simd::rht16_strided(v.data() + r * p.cols, p.cols, p.cols, q.transform, out.data() + r * p.cols);
  };
  const std::size_t bands = (p.rows + g - 1) / g;  // workers take whole bands of 16 rows
  const unsigned t = static_cast<unsigned>(std::min<std::size_t>(effective_threads(threads, p), bands));
  if (t <= 1) return rows(0, p.rows);
  parallel_for(
      t, [&](unsigned w) { rows(std::min(p.rows, bands * w / t * g), std::min(p.rows, bands * (w + 1) / t * g)); });
}

/// The piece's values after the transform (core/hadamard.hpp, or on q.transform_gemm's tensor-core model), in
/// the piece's file order (check_transform_piece's pieces); binary32 values on ArrayPath::simd without
/// transform_gemm: transform_simd (the same bits).
template <class T>
std::vector<float> transformed_piece(const QuantPiece& p, std::span<const T> v, const QuantizedTensor& q,
                                     std::size_t file_cols, ArrayPath path) {
  std::vector<float> out(v.size());
  if (v.size() != p.size() || p.size() == 0) return out;  // (the caller's size check names the mismatch)
  const std::size_t g = kRht16Size;
  check_transform_piece(p, q, file_cols);
  if (q.axis == BlockAxis::last) {
    if (q.transform_gemm != nullptr) return transform_on_model(q, v);
    if constexpr (std::is_same_v<T, float>) {
      if (path == ArrayPath::simd) {
        transform_simd(p, v, q, out, 1);
        return out;
      }
    }
    for (std::size_t i = 0; i < v.size(); i += g) rht16_group(v.data() + i, 1, q.transform, out.data() + i, 1);
    return out;
  }
  if (q.transform_gemm != nullptr) {  // gather each column's 16-row groups, transform, scatter back
    std::vector<T> groups(v.size());
    for (std::size_t r = 0; r < p.rows; r += g)
      for (std::size_t c = 0; c < p.cols; ++c)
        for (std::size_t i = 0; i < g; ++i) groups[(r * p.cols + c * g) + i] = v[(r + i) * p.cols + c];
    const std::vector<float> t = transform_on_model(q, std::span<const T>(groups));
    for (std::size_t r = 0; r < p.rows; r += g)
      for (std::size_t c = 0; c < p.cols; ++c)
        for (std::size_t i = 0; i < g; ++i) out[(r + i) * p.cols + c] = t[(r * p.cols + c * g) + i];
    return out;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (path == ArrayPath::simd) {
      transform_simd(p, v, q, out, 1);
      return out;
    }
  }
  for (std::size_t r = 0; r < p.rows; r += g)
    for (std::size_t c = 0; c < p.cols; ++c)
      rht16_group(v.data() + r * p.cols + c, p.cols, q.transform, out.data() + r * p.cols + c, p.cols);
  return out;
}
template std::vector<float> transformed_piece(const QuantPiece&, std::span<const float>, const QuantizedTensor&,
                                              std::size_t, ArrayPath);
template std::vector<float> transformed_piece(const QuantPiece&, std::span<const double>, const QuantizedTensor&,
                                              std::size_t, ArrayPath);

std::size_t transform_chunk_rows(const QuantPiece& p, const QuantizedTensor& q, ArrayPath path, unsigned threads,
                                 const TransformFile& f) {
  if (path != ArrayPath::simd || q.transform_gemm != nullptr) return p.rows;
  if (p.row + p.rows > f.rows || p.col + p.cols > f.cols) return p.rows;  // (the caller's check names it)
  const std::size_t tile_rows = f.tile_rows;
  if (tile_rows == 0 || tile_rows >= p.rows) return p.rows;
  std::size_t m = kRht16Size;  // lcm(16, tile_rows): whole groups and whole tiles in every chunk
  while (m % tile_rows != 0) m += kRht16Size;
  if (p.row % m != 0) return p.rows;  // (chunks start on a tile row)
  const unsigned t = effective_threads(threads, p);
  const std::size_t per = t > 1 ? t * (std::size_t{1024} << 10) : std::size_t{16} << 10;  // elements per chunk
  const std::size_t want = per / std::max<std::size_t>(p.cols, 1);
  const std::size_t rows = std::max(m, want / m * m);
  return rows >= p.rows ? p.rows : rows;
}
}  // namespace quant_detail

template <class T>
void BlockQuantizer::observe_impl(const QuantPiece& p, std::span<const T> v, unsigned threads) {
  if (v.size() != p.size())
    throw Error("BlockQuantizer::observe: " + std::to_string(v.size()) + " values for a piece of " +
                std::to_string(p.size()));
  if (p.row + p.rows > file_rows_ || p.col + p.cols > file_cols_)
    throw Error("BlockQuantizer::observe: the piece lies outside the tensor");
  observed_ = true;
  const std::size_t tA = tile_rows_, tB = tile_cols_;
  bool rows_done = false;  // amax-scope row on the fast path: the rows' maxima in vectors (the same max, NaN ignored)
  if constexpr (std::is_same_v<T, float>) {
    if (!row_amax_.empty() && path_ == ArrayPath::simd && p.cols > 0) {
      if (q_.axis == BlockAxis::last) {  // (a piece of whole tiles: these maxima are its tensor amax and NaN too)
        const bool whole =
            p.col % tile_cols_ == 0 && ((p.col + p.cols) % tile_cols_ == 0 || p.col + p.cols == file_cols_);
        for (std::size_t r = 0; r < p.rows; ++r) {
          simd::AbsMax m;
          simd::absmax_blocks(v.data() + r * p.cols, p.cols, p.cols, p.cols, &m);
          if (static_cast<double>(m.amax) > row_amax_[p.row + r]) row_amax_[p.row + r] = m.amax;
          if (whole && static_cast<double>(m.amax) > global_amax_) global_amax_ = m.amax;
          if (whole && m.nan) global_nan_ = true;
        }
        if (whole) return;  // (amax-scope row has one-row tiles: every row of the piece is whole)
      } else {
        std::vector<std::uint32_t> acc(p.cols), nan(p.cols);
        for (std::size_t r = 0; r < p.rows; ++r)
          simd::absmax_columns(v.data() + r * p.cols, p.cols, acc.data(), nan.data());
        for (std::size_t c = 0; c < p.cols; ++c) {
          const double a = simd::absmax_from_bits(acc[c], false).amax;
          if (a > row_amax_[p.col + c]) row_amax_[p.col + c] = a;
        }
      }
      rows_done = true;
    }
  }
  if (!row_amax_.empty() && !rows_done) {     // amax-scope row: each row's amax (NaN ignored); a row of the view is a
    for (std::size_t r = 0; r < p.rows; ++r)  // file row (axis last) or a file column (axis first)
      for (std::size_t c = 0; c < p.cols; ++c) {
        const T x = v[r * p.cols + c];
        double& m = row_amax_[q_.axis == BlockAxis::first ? p.col + c : p.row + r];
        if (!std::isnan(x) && std::fabs(static_cast<double>(x)) > m) m = std::fabs(static_cast<double>(x));
      }
  }
  std::vector<simd::AbsMax> mx;
  // a block's statistics into the tensor amax (NaN ignored) and NaN flag
  auto add_global = [&](const simd::AbsMax& m) {
    if (static_cast<double>(m.amax) > global_amax_) global_amax_ = m.amax;
    if (m.nan) global_nan_ = true;
  };
  if constexpr (std::is_same_v<T, float>) {
    // every tile of the piece whole: only the tensor amax (and NaN) to take, split over the threads
    const bool all_whole = p.rows > 0 && p.cols > 0 && p.row % tA == 0 &&
                           ((p.row + p.rows) % tA == 0 || p.row + p.rows == file_rows_) && p.col % tB == 0 &&
                           ((p.col + p.cols) % tB == 0 || p.col + p.cols == file_cols_);
    const unsigned nthreads = effective_threads(threads, p);
    if (path_ == ArrayPath::simd && all_whole && nthreads > 1) {
      std::vector<simd::AbsMax> part(nthreads);
      for_ranges(p, nthreads, [&](unsigned w, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
        if (c1 <= c0) return;
        for (std::size_t r = r0; r < r1; ++r) {
          simd::AbsMax m;
          simd::absmax_blocks(v.data() + r * p.cols + c0, c1 - c0, c1 - c0, c1 - c0, &m);
          merge_stat(part[w], m);
        }
      });
      for (const simd::AbsMax& m : part) add_global(m);
      return;
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    if (path_ == ArrayPath::simd && tB == 1 && p.cols > 0 && p.rows > 0) {
      // one-column tiles: the column maxima of each tile row's rows in vectors, then per column the same
      // steps as the per-block loop below (the tensor amax; the tile's statistic unless its rows are whole)
      std::vector<std::uint32_t> acc(p.cols), nan(p.cols);
      std::size_t cur = p.row / tA;
      auto flush = [&] {
        const bool rows_whole = cur * tA >= p.row && std::min((cur + 1) * tA, file_rows_) <= p.row + p.rows;
        for (std::size_t j = 0; j < p.cols; ++j) {
          const simd::AbsMax m = simd::absmax_from_bits(acc[j], nan[j] != 0);
          add_global(m);
          if (rows_whole) continue;
          if (stats_.empty()) stats_.assign(q_.scale_rows * q_.scale_cols, Stat{});
          merge_stat(stats_[scale_index(cur, p.col + j)], m);
        }
        std::fill(acc.begin(), acc.end(), 0u);
        std::fill(nan.begin(), nan.end(), 0u);
      };
      for (std::size_t r = 0; r < p.rows; ++r) {
        const std::size_t ta = (p.row + r) / tA;
        if (ta != cur) {
          flush();
          cur = ta;
        }
        simd::absmax_columns(v.data() + r * p.cols, p.cols, acc.data(), nan.data());
      }
      flush();
      return;
    }
  }
  for (std::size_t r = 0; r < p.rows; ++r) {
    const std::size_t a = p.row + r, ta = a / tA;
    const bool rows_whole = ta * tA >= p.row && std::min((ta + 1) * tA, file_rows_) <= p.row + p.rows;
    if constexpr (std::is_same_v<T, float>) {
      if (path_ ==
          ArrayPath::simd) {  // simd/quant_simd: the same maxima and flags, order-free, the row's tiles in one call
        if (p.cols == 0) continue;
        // a row whose tiles are all whole only adds to the tensor amax: its maximum in one block
        const bool all_whole =
            rows_whole && p.col % tB == 0 && ((p.col + p.cols) % tB == 0 || p.col + p.cols == file_cols_);
        const std::size_t tbf = p.col / tB;
        const std::size_t first = all_whole ? p.cols : std::min((tbf + 1) * tB, p.col + p.cols) - p.col;
        mx.resize(p.cols / tB + 2);
        const std::size_t nb =
            simd::absmax_blocks(v.data() + r * p.cols, p.cols, first, all_whole ? p.cols : tB, mx.data());
        for (std::size_t j = 0; j < nb; ++j) {
          add_global(mx[j]);
          const std::size_t tb = tbf + j;
          if (all_whole || (rows_whole && tb * tB >= p.col && std::min((tb + 1) * tB, file_cols_) <= p.col + p.cols))
            continue;
          if (stats_.empty()) stats_.assign(q_.scale_rows * q_.scale_cols, Stat{});
          merge_stat(stats_[scale_index(ta, tb)], mx[j]);
        }
        continue;
      }
    }
    for (std::size_t c = 0; c < p.cols;) {
      const std::size_t b = p.col + c, tb = b / tB;
      const std::size_t end = std::min((tb + 1) * tB, p.col + p.cols) - p.col;  // exclusive, piece-relative
      const bool whole = rows_whole && tb * tB >= p.col && std::min((tb + 1) * tB, file_cols_) <= p.col + p.cols;
      Stat* st = nullptr;
      if (!whole) {
        if (stats_.empty()) stats_.assign(q_.scale_rows * q_.scale_cols, Stat{});
        st = &stats_[scale_index(ta, tb)];
      }
      for (; c < end; ++c) {
        const T x = v[r * p.cols + c];
        if (st) st->add(x);  // the tile's statistic (core/tile_step.hpp)
        if (std::isnan(x)) {
          global_nan_ = true;
          continue;
        }
        const double m = std::fabs(static_cast<double>(x));
        if (m > global_amax_) global_amax_ = m;  // fmax: NaN ignored
      }
    }
  }
}

void BlockQuantizer::observe(const QuantPiece& p, std::span<const float> values, unsigned threads) {
  if (const auto f = daz_copy(opt_.rounding.daz, values)) return observe(p, std::span<const float>(*f), threads);
  if (q_.transform.rht16) {  // the transform first (core/hadamard.hpp), chunk by chunk on the SIMD path
    for_transformed_chunks(p, values, q_, {file_rows_, file_cols_, tile_rows_}, transform_path_, threads, true,
                           [&](const QuantPiece& c, std::span<const float> t) { observe_impl<float>(c, t, threads); });
    return;
  }
  observe_impl(p, values, threads);
}

void BlockQuantizer::end_first_pass() {
  if (global_done_) return;
  global_done_ = true;
  if (q_.rule == ScaleRule::nvfp4_v2_gs) {  // auto-round nvfp4_v2_with_global_scale: g = 688128 / amax (nvfp.py:232)
    q_.tensor_encode_scale =
        ue5m3_tensor_scale(detail::exact_f64(global_amax_), static_cast<float>(element_max(q_.element)));
    q_.tensor_decode_scale = autoround_reciprocal(q_.tensor_encode_scale);
    return;
  }
  if (!is_nvfp4_rule(q_.rule)) return;
  if (opt_.mx_quirks == MxQuirks::torchao_0_18) {  // per_tensor_amax_to_scale(torch.max(torch.abs(x))) (quant.hpp)
    const float g = global_nan_ ? detail::bit_cast<float>(0xffffffffu) : static_cast<float>(global_amax_);
    q_.tensor_decode_scale = tao_x86_div(g, 2688.0f);
    q_.tensor_encode_scale = tao_x86_div(1.0f, q_.tensor_decode_scale);
    return;
  }
  if (opt_.mx_quirks == MxQuirks::torchao_0_18_no_tensor_scale) return;  // per_tensor_scale None: 1 and 1
  if (opt_.mx_quirks == MxQuirks::te_2) {  // TE reference_nvfp4.py:712-730 (quant/te2_quirks.hpp)
    te2_nvfp4_tensor_scales(global_nan_, static_cast<float>(global_amax_), q_.tensor_encode_scale,
                            q_.tensor_decode_scale);
    return;
  }
  if (scheme_.tensor_scale != 0.0f) {  // given (issue 25 item 3): S_enc as is, the decode scale TE's fl32(1/S_enc)
    q_.tensor_encode_scale = scheme_.tensor_scale;
    q_.tensor_decode_scale = 1.0f / q_.tensor_encode_scale;
    return;
  }
  if (!row_amax_.empty()) {  // amax-scope row: TE's tensor formula on each row's exact amax (scheme.hpp AmaxScope)
    for (std::size_t r = 0; r < row_amax_.size(); ++r) {
      q_.row_encode_scales[r] =
          nvfp4_global_encode_scale(detail::exact_f64(row_amax_[r]), static_cast<float>(element_max(q_.element)));
      q_.row_decode_scales[r] = 1.0f / q_.row_encode_scales[r];
    }
    return;
  }
  if (scheme_.scale_select != ScaleSelect::none) {  // 4over6: TE's fl32(1536 / amax) (core/four_over_six.hpp)
    q_.tensor_encode_scale = fourover6_global_encode_scale(static_cast<float>(global_amax_));
    q_.tensor_decode_scale = 1.0f / q_.tensor_encode_scale;
    return;
  }
  // The exact form of TE's fl32(2688 / amax): for a binary32 amax (every value of a float source)
  // it is the float formula's result.
  q_.tensor_encode_scale =
      nvfp4_global_encode_scale(detail::exact_f64(global_amax_), static_cast<float>(element_max(q_.element)));
  q_.tensor_decode_scale = 1.0f / q_.tensor_encode_scale;
}
void BlockQuantizer::observe(const QuantPiece& p, std::span<const double> values, unsigned threads) {
  if (const auto f = daz_copy(opt_.rounding.daz, values)) return observe(p, std::span<const double>(*f), threads);
  if (opt_.profile.source_via_f32) {
    std::vector<float> f(values.begin(), values.end());  // RNE (D11: the f32-first behaviour of ml_dtypes)
    observe(p, std::span<const float>(f), threads);
    return;
  }
  if (q_.transform.rht16) {
    for_transformed_chunks(p, values, q_, {file_rows_, file_cols_, tile_rows_}, transform_path_, threads, true,
                           [&](const QuantPiece& c, std::span<const float> t) { observe_impl<float>(c, t, threads); });
    return;
  }
  observe_impl(p, values, threads);
}

template <class T>
void BlockQuantizer::dequantize_impl(const QuantPiece& p, std::span<const std::uint8_t> codes, std::span<T> out,
                                     ScaleFtz ftz) const {
  if (codes.size() != p.size() || out.size() != p.size())
    throw Error("BlockQuantizer::dequantize: " + std::to_string(codes.size()) + " codes and " +
                std::to_string(out.size()) + " outputs for a piece of " + std::to_string(p.size()));
  if (p.size() == 0) return;
  const double* lut = element_lut_.data();
  const std::size_t tA = tile_rows_, tB = tile_cols_;
  // The fast path's NVFP4 and E8M0 block scales: each scale code met in the call decoded once
  // (coded_scale_value, block_scale_value's own step) in place of once per block.
  // (amax-scope row: a code's value depends on its row, block_scale_value per tile)
  const bool nv_table = path_ == ArrayPath::simd && coded_scale(q_) && q_.row_decode_scales.empty();
  std::array<double, 256> nv{};
  std::array<bool, 256> nv_done{};
  auto code_value = [&](std::uint8_t c) {
    if (!nv_done[c]) {
      nv[c] = coded_scale_value(q_, c, ftz);
      nv_done[c] = true;
    }
    return nv[c];
  };
  // the decode scales of the piece's tile columns [tb0, tb1) in the current tile row (a tile row of
  // column tiles spans every row of the piece: its scales are decoded once, not once per element)
  const std::size_t tb0 = p.col / tB, tb1 = (p.col + p.cols - 1) / tB + 1;
  std::vector<double> sv(tb1 - tb0);
  std::size_t sv_ta = SIZE_MAX;
  for (std::size_t r = 0; r < p.rows; ++r) {
    const std::size_t ta = (p.row + r) / tA;
    if (ta != sv_ta) {
      for (std::size_t tb = tb0; tb < tb1; ++tb) {
        const std::size_t t = scale_index(ta, tb);
        sv[tb - tb0] = nv_table ? code_value(q_.scale_codes.at(t)) : block_scale_value(q_, t, ftz);
      }
      sv_ta = ta;
    }
    const std::size_t off = r * p.cols - p.col;
    for (std::size_t b0 = p.col, tb = tb0; b0 < p.col + p.cols; ++tb) {  // tile tb holds b0
      const std::size_t b1 = std::min((tb + 1) * tB, p.col + p.cols);
      const double s = sv[tb - tb0];
      if (path_ == ArrayPath::simd && b1 - b0 >= 16)  // (a column tile's run of one element: the loop below)
        simd::dequantize_run(codes.data() + off + b0, b1 - b0, lut, s, out.data() + off + b0);
      else
        for (std::size_t b = b0; b < b1; ++b) out[off + b] = static_cast<T>(lut[codes[off + b]] * s);
      b0 = b1;
    }
  }
}
void BlockQuantizer::dequantize(const QuantPiece& p, std::span<const std::uint8_t> codes, std::span<double> out,
                                ScaleFtz ftz) const {
  dequantize_impl(p, codes, out, ftz);
}
void BlockQuantizer::dequantize(const QuantPiece& p, std::span<const std::uint8_t> codes, std::span<float> out,
                                ScaleFtz ftz) const {
  dequantize_impl(p, codes, out, ftz);
}

namespace {
template <class T>
QuantizedTensor quantize_whole(std::span<const T> x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                               const QuantOptions& opt, unsigned threads) {
  BlockQuantizer bq(shape, scheme, opt);
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  if (n != x.size())
    throw Error("quantize: " + std::to_string(x.size()) + " values do not match the shape (" + std::to_string(n) +
                " elements)");
  const QuantPlan plan = bq.plan(std::numeric_limits<std::size_t>::max());
  std::vector<std::uint8_t> codes(n, 0);
  if (plan.count() == 1) {
    const QuantPiece all = plan.piece(0);
    if (plan.first_pass) bq.observe(all, x, threads);
    bq.quantize(all, x, codes, threads);
  }
  QuantizedTensor q = std::move(bq.result());
  q.codes = std::move(codes);
  return q;
}
}  // namespace

QuantizedTensor quantize(std::span<const float> x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                         const QuantOptions& opt, unsigned threads) {
  return quantize_whole(x, shape, scheme, opt, threads);
}
QuantizedTensor quantize(std::span<const double> x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                         const QuantOptions& opt, unsigned threads) {
  return quantize_whole(x, shape, scheme, opt, threads);
}

QuantizedTensor quantize(const ArrayIn& x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                         const QuantOptions& opt, unsigned threads) {
  switch (x.type) {
    case ArrayType::f32:
      return quantize_whole(std::span<const float>(static_cast<const float*>(x.data), x.n), shape, scheme, opt,
                            threads);
    case ArrayType::f64:
      return quantize_whole(std::span<const double>(static_cast<const double*>(x.data), x.n), shape, scheme, opt,
                            threads);
    case ArrayType::f16:
    case ArrayType::bf16: break;
    case ArrayType::codes: throw Error("quantize: a codes array is not accepted; accepted: f32, f64, f16, bf16 arrays");
  }
  // f16/bf16: widened exactly to binary32, one plan piece at a time (pieces are contiguous in file order); the
  // options say which (QuantOptions::source, read by MxQuirks::te_2)
  QuantOptions wide_opt = opt;
  wide_opt.source = x.type;
  BlockQuantizer bq(shape, scheme, wide_opt);
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  if (n != x.n)
    throw Error("quantize: " + std::to_string(x.n) + " values do not match the shape (" + std::to_string(n) +
                " elements)");
  const QuantPlan plan = bq.plan(std::size_t{1} << 20);
  const auto* bits = static_cast<const std::uint16_t*>(x.data);
  std::vector<std::uint32_t> wide;
  std::vector<float> buf;
  auto widen = [&](const QuantPiece& p) {
    const std::uint16_t* b = bits + p.offset(plan.file_cols);
    wide.resize(p.size());
    buf.resize(p.size());
    if (x.type == ArrayType::f16) {
      simd::widen_f16(b, wide.data(), p.size());
    } else {
      for (std::size_t i = 0; i < p.size(); ++i) wide[i] = std::uint32_t{b[i]} << 16;
    }
    if (p.size() != 0) std::memcpy(buf.data(), wide.data(), p.size() * sizeof(float));
    return std::span<const float>(buf);
  };
  std::vector<std::uint8_t> codes(n, 0);
  if (plan.first_pass)
    for (std::size_t k = 0; k < plan.count(); ++k) bq.observe(plan.piece(k), widen(plan.piece(k)), threads);
  for (std::size_t k = 0; k < plan.count(); ++k) {
    const QuantPiece p = plan.piece(k);
    bq.quantize(p, widen(p), std::span<std::uint8_t>(codes).subspan(p.offset(plan.file_cols), p.size()), threads);
  }
  QuantizedTensor q = std::move(bq.result());
  q.codes = std::move(codes);
  return q;
}

// ---- dequantize and statistics --------------------------------------------------------------

namespace {
template <class Y>
void untransform_impl(const QuantizedTensor& q, std::span<const double> in, std::span<Y> out) {
  if (in.size() != out.size())
    throw Error("untransform: " + std::to_string(in.size()) + " values and " + std::to_string(out.size()) + " outputs");
  if (!q.transform.rht16) {
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<Y>(in[i]);
    return;
  }
  BlockTransform t = q.transform;
  t.output = TransformOutput::f32;  // the inverse rounds once, to Y
  const bool first = q.axis == BlockAxis::first;
  const std::size_t whole = first ? kRht16Size * q.rows : kRht16Size;  // one band of groups in the file view
  if (whole == 0 || in.size() % whole != 0)
    throw Error("untransform: " + std::to_string(in.size()) + " values are not whole 16-element groups along " +
                (first ? "axis first (whole rows, 16 at a time)" : "the last axis"));
  if (!first) {
    for (std::size_t a = 0; a < in.size(); a += kRht16Size)
      rht16_group(in.data() + a, 1, t, out.data() + a, 1, /*inverse=*/true);
    return;
  }
  for (std::size_t r = 0; r < in.size(); r += whole)
    for (std::size_t c = 0; c < q.rows; ++c)
      rht16_group(in.data() + r + c, q.rows, t, out.data() + r + c, q.rows, /*inverse=*/true);
}
}  // namespace

void untransform(const QuantizedTensor& q, std::span<const double> in, std::span<double> out) {
  untransform_impl(q, in, out);
}

namespace {
template <class T>
std::vector<float> transformed_impl(const QuantizedTensor& q, std::span<const T> in) {
  if (in.size() != q.codes.size())
    throw Error("transformed: " + std::to_string(in.size()) + " values; the tensor has " +
                std::to_string(q.codes.size()));
  if (!q.transform.rht16) return std::vector<float>(in.begin(), in.end());
  const bool first = q.axis == BlockAxis::first;  // the file view: [C, R] along axis first, else [R, C]
  const QuantPiece whole{.row = 0, .col = 0, .rows = first ? q.cols : q.rows, .cols = first ? q.rows : q.cols};
  return quant_detail::transformed_piece(whole, in, q, whole.cols, ArrayPath::engine);
}
}  // namespace

std::vector<float> transformed(const QuantizedTensor& q, std::span<const float> in) { return transformed_impl(q, in); }
std::vector<float> transformed(const QuantizedTensor& q, std::span<const double> in) { return transformed_impl(q, in); }
void untransform(const QuantizedTensor& q, std::span<const double> in, std::span<float> out) {
  untransform_impl(q, in, out);
}

namespace {
template <class T>
std::uint64_t negatives_made_nan_impl(ElementType el, std::span<const T> x, std::span<const std::uint8_t> codes) {
  if (x.size() != codes.size())
    throw Error("negatives_made_nan: " + std::to_string(x.size()) + " values and " + std::to_string(codes.size()) +
                " codes");
  if (el.kind != ElementKind::floating || el.format.is_signed) return 0;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i] < 0 && std::isnan(element_value(el, codes[i]))) ++n;
  return n;
}
}  // namespace

std::uint64_t negatives_made_nan(ElementType el, std::span<const float> x, std::span<const std::uint8_t> codes) {
  return negatives_made_nan_impl(el, x, codes);
}
std::uint64_t negatives_made_nan(ElementType el, std::span<const double> x, std::span<const std::uint8_t> codes) {
  return negatives_made_nan_impl(el, x, codes);
}

std::uint64_t nvfp4_clamped_blocks(const QuantizedTensor& q, Fp32ScaleOrder order) {
  if (!is_nvfp4_rule(q.rule) || order != Fp32ScaleOrder::te_multiply) return 0;
  std::uint64_t n = 0;
  for (std::size_t t = 0; t < q.scale_codes.size(); ++t)
    if (nvfp4_multiplier_overflows(q.scale_codes[t], q.row_encode_scales.empty()
                                                         ? q.tensor_encode_scale
                                                         : q.row_encode_scales[row_of_tile(q, t)]))
      ++n;
  return n;
}

double block_scale_value(const QuantizedTensor& q, std::size_t t, ScaleFtz ftz) {
  if (!q.row_decode_scales.empty()) {  // amax-scope row: the e4m3fn value × the row's decode scale
    const double v = to_double(formats::e4m3fn, q.scale_codes.at(t)) *
                     static_cast<double>(q.row_decode_scales.at(row_of_tile(q, t)));
    return (ftz == ScaleFtz::yes && std::fabs(v) < static_cast<double>(std::numeric_limits<float>::min())) ? 0.0 : v;
  }
  if (coded_scale(q)) return coded_scale_value(q, q.scale_codes.at(t), ftz);
  const double v = static_cast<double>(q.scales.at(t));
  return (ftz == ScaleFtz::yes && std::fabs(v) < static_cast<double>(std::numeric_limits<float>::min())) ? 0.0 : v;
}

std::vector<double> dequantize(const QuantizedTensor& q, ScaleFtz scale_ftz) {
  std::vector<double> out(q.codes.size());
  const std::size_t R = q.rows, C = q.cols;
  std::vector<double> sv(q.scale_rows * q.scale_cols);
  for (std::size_t t = 0; t < sv.size(); ++t) sv[t] = block_scale_value(q, t, scale_ftz);
  const std::array<double, 256> lut = element_lut(q.element);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) {
      const std::size_t i = q.axis == BlockAxis::first ? c * R + r : r * C + c;
      const std::size_t t = q.axis == BlockAxis::first ? (c / q.block_cols) * q.scale_rows + r / q.block_rows
                                                       : (r / q.block_rows) * q.scale_cols + c / q.block_cols;
      out[i] = lut[q.codes[i]] * sv[t];
    }
  return out;
}

}  // namespace minifloat
