// SPDX-License-Identifier: Apache-2.0
// quant.cpp: the tensor quantizers of quant.hpp (the streaming engine: tiling, special blocks, NVFP4
// two-level scaling, exact f64 sources; TE delayed scaling), dequantization, error statistics and
// the OCP MX dot product / GEMM.
#include "minifloat/quant.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>

#include "minifloat/core/arith.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/registry.hpp"
#include "simd/quant_simd.hpp"

namespace minifloat {
namespace {

/// Whether q's block scales are 8-bit codes (E8M0 rules, nvfp4's e4m3fn), a scale's value then being a
/// function of its code.
bool coded_scale(const QuantizedTensor& q) { return is_e8m0_rule(q.rule) || q.rule == ScaleRule::nvfp4; }
/// The decode value of scale code `code` under q's coded rule (E8M0: 2^(code − 127); nvfp4: the e4m3fn
/// value × the tensor decode scale); ScaleFtz::yes reads an FP32-subnormal value as 0 (block_scale_value).
double coded_scale_value(const QuantizedTensor& q, std::uint8_t code, ScaleFtz ftz) {
  if (is_e8m0_rule(q.rule)) return e8m0_value(code, ftz);
  const double v = to_double(formats::e4m3fn, code) * static_cast<double>(q.tensor_decode_scale);
  return (ftz == ScaleFtz::yes && std::fabs(v) < static_cast<double>(std::numeric_limits<float>::min())) ? 0.0 : v;
}

/// dequantize's element table: element_value of each code, 0 for codes above a floating format's width.
std::array<double, 256> element_lut(const ElementType& el) {
  std::array<double, 256> lut{};
  for (unsigned c = 0; c < 256; ++c)
    lut[c] = (el.kind == ElementKind::floating && c >= (1u << el.format.bits)) ? 0.0 : element_value(el, static_cast<std::uint8_t>(c));
  return lut;
}

/// The first j in [j, n) with f[j] != 0, else n (eight bytes at a time: the fused rows' statuses are almost all 0).
std::size_t next_nonzero(const std::uint8_t* f, std::size_t j, std::size_t n) {
  for (std::uint64_t w; j + 8 <= n; j += 8) {
    std::memcpy(&w, f + j, 8);
    if (w != 0) break;
  }
  while (j < n && f[j] == 0) ++j;
  return j;
}

std::size_t checked_product(const std::vector<std::size_t>& dims, const char* what) {
  std::size_t n = 1;
  for (auto d : dims) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) throw Error(std::string(what) + ": the shape's size overflows");
    n *= d;
  }
  return n;
}
std::size_t ceil_div(std::size_t a, std::size_t b) { return b == 0 ? 0 : a / b + (a % b != 0); }

// The scale of one tile (core/tile_step.hpp), with MxQuirks::torchao_0_18's own element scaling.
struct QTileScale : TileScale {
  // MxQuirks::torchao_0_18: y = fl32(x / tao_div) or fl32(x * tao_mul), clamped to ±max when tao_clamp
  bool tao = false, tao_divide = false, tao_clamp = false;
  bool tao_nvfp4 = false;  // NVFP4 torchao: y = tao_x86_mul(tao_mul, x), clamped to ±6 (see quant.hpp)
  float tao_div = 1.0f, tao_mul = 1.0f;
};

// NVFP4's block steps from the fast path's tables: the e4m3fn rounding of simd::nvfp4_block_scale_code_table
// and the element multipliers of the 256 codes under the tensor's S_enc (the same functions of the same arguments).
struct Nvfp4TableSteps {
  const float* enc;
  std::uint8_t code(float amax, float s_enc, float elem_max) const { return simd::nvfp4_block_scale_code_table(amax, s_enc, elem_max); }
  float encode_scale(std::uint8_t c, float) const { return enc[c]; }
};
// flatten: the engine's unpack and rule inlined here, once per tile (a call returned Unpacked through
// memory and stalled on the store-forward: half of the scale step, perf)
template <class T, class Nv>
[[gnu::flatten]] TileScale tile_scale_of(const TileStat<T>& s, const TileRule& r, const Nv& nv) {
  return decide_tile_scale(s, r, nv);
}

// The binary32 operations of torchao's NVFP4 path with the NaN results of torch's x86 CPU kernels (SSE):
// the first NaN operand, quieted; an invalid operation gives the default NaN 0xffc00000.
constexpr std::uint32_t kX86DefaultNan = 0xffc00000u;
float quiet_f32(float a) { return detail::bit_cast<float>(detail::bit_cast<std::uint32_t>(a) | 0x400000u); }
float tao_x86_div(float a, float b) {
  if (std::isnan(a)) return quiet_f32(a);
  if (std::isnan(b)) return quiet_f32(b);
  if ((a == 0.0f && b == 0.0f) || (std::isinf(a) && std::isinf(b))) return detail::bit_cast<float>(kX86DefaultNan);
  return fdiv_rn(a, b);
}
float tao_x86_mul(float a, float b) {
  if (std::isnan(a)) return quiet_f32(a);
  if (std::isnan(b)) return quiet_f32(b);
  if ((a == 0.0f && std::isinf(b)) || (std::isinf(a) && b == 0.0f)) return detail::bit_cast<float>(kX86DefaultNan);
  return fmul_rn(a, b);
}
float tao_clamp(float v, float lo, float hi) { return std::isnan(v) ? v : std::clamp(v, lo, hi); }

/// MxQuirks torchao_0_18 / torchao_0_18_no_tensor_scale for one NVFP4 tile (quant.hpp): the e4m3 code of
/// s = clamp(fl32(A/6) [/ pts], 2^-6, 448) and the element multiplier r. `pts` is NaN-free unless the tensor is.
std::uint8_t torchao_nvfp4_scale(bool two_level, bool nan, float amax, float pts, QTileScale& sc) {
  sc.tao = sc.tao_nvfp4 = sc.tao_clamp = true;
  const float a = nan ? detail::bit_cast<float>(0x7fc00000u) : amax;  // torch.amax(abs(x)): +NaN
  float s = tao_x86_div(a, 6.0f);
  if (two_level) s = tao_x86_div(s, pts);
  s = tao_clamp(s, 0x1p-6f, 448.0f);
  std::uint8_t code;
  float sf;
  if (std::isnan(s)) {  // torch's e4m3fn cast: 0x7f with the sign; back to f32 as 0x7ff00000 with the sign
    const std::uint32_t sign = detail::bit_cast<std::uint32_t>(s) & 0x80000000u;
    code = static_cast<std::uint8_t>(0x7fu | (sign >> 24));
    sf = detail::bit_cast<float>(0x7ff00000u | sign);
  } else {
    code = static_cast<std::uint8_t>(from_float(s, formats::e4m3fn, {Rounding::rne, Overflow::satfinite}).code);
    sf = to_float(formats::e4m3fn, code);
  }
  sc.tao_mul = two_level ? tao_x86_div(tao_x86_div(1.0f, pts), sf) : tao_x86_div(1.0f, sf);
  return code;
}

/// torchao's `_f32_to_floatx_unpacked` (custom_fp_utils.py) on a NaN: it has no NaN case, so the NaN's bits go
/// through the normal-number path (bias change, round-half-even adder, shift, int32 -> uint8 wrap), sign ORed in.
std::uint8_t torchao_floatx_nan(Format f, float y) {
  const std::uint32_t bits = detail::bit_cast<std::uint32_t>(y), b = bits & 0x7fffffffu;
  const int m = f.mantissa_bits;
  const std::int64_t v = static_cast<std::int64_t>(b) + ((static_cast<std::int64_t>(f.bias) - 127) * (std::int64_t{1} << 23)) +
                         ((std::int64_t{1} << (22 - m)) - 1) + ((b >> (23 - m)) & 1u);
  std::uint32_t code = static_cast<std::uint32_t>(v >> (23 - m)) & 0xffu;
  if (bits >> 31) code |= 1u << (f.exponent_bits + m);
  return static_cast<std::uint8_t>(code & static_cast<std::uint32_t>(code_mask(f)));
}

/// MxQuirks::torchao_0_18 for one tile (see quant.hpp): the E8M0 code and how the elements are scaled.
std::uint8_t torchao_scale(ScaleRule rule, ElementType el, bool nan, float amax, QTileScale& sc) {
  sc.tao = true;
  const float mx = static_cast<float>(element_max(el));
  if (rule == ScaleRule::rceil) {
    sc.tao_clamp = true;
    if (nan) {
      sc.tao_mul = std::numeric_limits<float>::quiet_NaN();
      return 0xff;
    }
    const float descale = fdiv_rn(amax, mx);
    if (std::isinf(descale)) {
      sc.tao_mul = 0x1p-127f;
      return 0xfe;
    }
    const float lg = static_cast<float>(std::log2(static_cast<double>(descale)));  // log2 rounded to FP32
    const double e = std::clamp(std::ceil(static_cast<double>(lg)), -127.0, 127.0);
    const int code = static_cast<int>(e) + 127;
    sc.tao_mul = code == 0 ? 1.0f : std::ldexp(1.0f, 127 - code);
    return static_cast<std::uint8_t>(code);
  }
  sc.tao_divide = true;
  sc.tao_clamp = el.format.bits == 8;
  if (nan) {
    sc.tao_div = std::numeric_limits<float>::infinity();
    return 0xff;
  }
  std::uint32_t b = detail::bit_cast<std::uint32_t>(amax);
  const int m = el.format.mantissa_bits;
  if (rule == ScaleRule::even) b = (b + (std::uint32_t{1} << (22 - m))) & 0xff800000u;
  int p2 = static_cast<int>((b >> 23) & 0xffu) - 127;
  if (rule == ScaleRule::ceil && (b & 0x7fffffu) != 0) ++p2;
  const int biased = std::clamp(p2 - element_emax(el), -127, 128) + 127;
  sc.tao_div = std::max(detail::bit_cast<float>(static_cast<std::uint32_t>(biased) << 23), 0x1p-126f);
  return static_cast<std::uint8_t>(biased);
}

// One block's AbsMax into a tile statistic (order-free: max and or).
template <class Stat>
void merge_stat(Stat& s, const simd::AbsMax& m) {
  s.nan = s.nan || m.nan;
  s.inf = s.inf || m.inf;
  if (static_cast<double>(m.amax) > s.amax) s.amax = m.amax;
}

// Threads for one piece: at most `threads` (0 → all cores), at most one per 2^15 elements (a
// thread costs more than it saves below that), at least 1. Any count gives the same bytes.
unsigned effective_threads(unsigned threads, const QuantPiece& p) {
  unsigned t = threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads;
  const std::size_t by_size = std::max<std::size_t>(1, p.size() >> 15);
  if (by_size < t) t = static_cast<unsigned>(by_size);
  return std::max(1u, t);
}
// Run fn(worker, r0, r1, c0, c1) on `t` std::threads over a split of the piece: by rows when it has
// at least t rows, else by columns (every row of the piece, a column range each; with `align` > 1 the
// column cuts fall on multiples of `align` in tensor columns, so that no tile of that width is split;
// a range may then be empty). The work of every element does not depend on the split; the caller
// merges the workers' results order-free.
template <class Fn>
void for_ranges(const QuantPiece& p, unsigned t, Fn fn, std::size_t align = 1) {
  std::vector<std::thread> pool;
  pool.reserve(t);
  const bool by_rows = p.rows >= t;
  const std::size_t n = by_rows ? p.rows : p.cols;
  auto cut = [&](unsigned w) -> std::size_t {
    const std::size_t c = n * w / t;
    if (by_rows || align <= 1 || w == 0 || w == t) return c;
    const std::size_t abs = (p.col + c) / align * align;  // round down to a tile edge, within the piece
    return abs <= p.col ? 0 : abs - p.col;
  };
  for (unsigned w = 0; w < t; ++w) {
    const std::size_t a = cut(w), b = cut(w + 1);
    if (by_rows) pool.emplace_back([=, &fn] { fn(w, a, b, std::size_t{0}, p.cols); });
    else pool.emplace_back([=, &fn] { fn(w, std::size_t{0}, p.rows, a, b); });
  }
  for (auto& th : pool) th.join();
}

// The positive whitelist of the fast element path (quant.hpp, BlockQuantizer::element_path): every
// option the fast path was written and tested for, at any value; any other field of QuantOptions or
// BlockPolicy (present or future) must hold its default, else the engine runs.
bool fast_path_whitelisted(const Scheme& scheme, const QuantOptions& opt) {
  switch (scheme.rule) {
    case ScaleRule::ocp_floor: case ScaleRule::rceil: case ScaleRule::ceil: case ScaleRule::even: case ScaleRule::tosa:
    case ScaleRule::fp32_amax: case ScaleRule::fp32_pow2: case ScaleRule::nvfp4: break;
    default: return false;
  }
  if (scheme.element.kind != ElementKind::floating && scheme.element.kind != ElementKind::int8) return false;
  if (opt.rounding.rounding == Rounding::sr) return false;
  QuantOptions o = opt;  // the fields handled: rounding mode and overflow, profile, axis, SR stream (unused)
  const QuantOptions d{};
  o.rounding = d.rounding;
  o.profile = d.profile;
  o.axis = d.axis;
  o.sr_seed = d.sr_seed;
  o.sr_stream = d.sr_stream;
  o.sr_step = d.sr_step;
  if (!(o == d)) return false;
  BlockPolicy pol = scheme.policy;  // every BlockPolicy field of core/block_scale.hpp today
  const BlockPolicy dp{};
  pol.zero = dp.zero;
  pol.nan = dp.nan;
  pol.inf = dp.inf;
  pol.subnormal = dp.subnormal;
  pol.mxint8_min = dp.mxint8_min;
  pol.fp32_order = dp.fp32_order;
  pol.amax_epsilon = dp.amax_epsilon;
  if (!(pol == dp)) return false;
  // RoundingSpec: the fields known today (the SR ones are not read by the deterministic modes)
  if (!(RoundingSpec{.rounding = opt.rounding.rounding, .overflow = opt.rounding.overflow, .sr_variant = opt.rounding.sr_variant,
                     .sr_bits = opt.rounding.sr_bits} == opt.rounding))
    return false;
  return simd::quant_kernel(scheme.element, opt.rounding, opt.profile, scheme.policy.mxint8_min) != nullptr;
}

}  // namespace

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

BlockQuantizer::BlockQuantizer(const std::vector<std::size_t>& shape, const Scheme& scheme, const QuantOptions& opt,
                               ArrayPath path)
    : scheme_(scheme), opt_(opt) {
  validate_scheme(scheme);
  if (opt.rounding.rounding == Rounding::sr && (opt.rounding.sr_bits < 1 || opt.rounding.sr_bits > 32))
    throw Error("quantize: sr_bits is " + std::to_string(opt.rounding.sr_bits) + "; accepted: 1..32");
  const bool nvfp4_1x16_e2m1 = scheme.rule == ScaleRule::nvfp4 && scheme.element == elements::e2m1fn &&
                               scheme.block_rows == 1 && scheme.block_cols == 16;
  if (opt.mx_quirks == MxQuirks::torchao_0_18 && !nvfp4_1x16_e2m1 &&
      (scheme.element.kind != ElementKind::floating ||
       !(scheme.rule == ScaleRule::ocp_floor || scheme.rule == ScaleRule::ceil || scheme.rule == ScaleRule::even ||
         scheme.rule == ScaleRule::rceil)))
    throw Error("quantize: mx-quirks torchao_0_18 applies to floating elements with the scale rules ocp_floor, ceil, even, "
                "rceil, and to nvfp4 (e2m1fn, 1x16); not " + scheme_name(scheme));
  if (opt.mx_quirks == MxQuirks::torchao_0_18_no_tensor_scale && !nvfp4_1x16_e2m1)
    throw Error("quantize: mx-quirks torchao_0_18_no_tensor_scale applies to nvfp4 (e2m1fn elements, 1x16 tiles, "
                "ue4m3:nvfp4 scales); not " + scheme_name(scheme));
  if (opt.mx_quirks != MxQuirks::none && !(scheme.policy == BlockPolicy{}))
    throw Error("quantize: mx-quirks " + std::string(name(opt.mx_quirks)) +
                " reproduces the peer's own special-block handling, so it takes the default block policy (no zero-block, "
                "nan-block, inf-block, subnormal-amax, fp32-order or amax-epsilon); not " + scheme_name(scheme));
  path_ = path == ArrayPath::simd && fast_path_whitelisted(scheme, opt) ? ArrayPath::simd : ArrayPath::engine;
  checked_product(shape, "quantize");
  QuantizedTensor& q = q_;
  q.scheme = scheme_name(scheme);
  q.rule = scheme.rule;
  q.element = scheme.element;
  element_lut_ = element_lut(q.element);
  q.shape = shape;
  q.axis = opt.axis;
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
  } else if (scheme.block_rows == 1) {
    q.scale_shape = opt.axis == BlockAxis::first ? std::vector<std::size_t>(shape.begin() + 1, shape.end())
                                                 : std::vector<std::size_t>(shape.begin(), shape.end() - 1);
    q.scale_shape.push_back(q.scale_cols);
  } else {
    q.scale_shape = {q.scale_rows, q.scale_cols};
  }
  const std::size_t ntiles = q.scale_rows * q.scale_cols;
  if (coded_scale(q)) q.scale_codes.assign(ntiles, 0);
  if (is_fp32_rule(q.rule)) q.scales.assign(ntiles, 1.0f);
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
  return opt_.axis == BlockAxis::first ? tb * q_.scale_cols + ta : ta * q_.scale_cols + tb;
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
  p.first_pass = !local || q_.rule == ScaleRule::nvfp4;
  return p;
}

template <class T>
void BlockQuantizer::observe_impl(const QuantPiece& p, std::span<const T> v, unsigned threads) {
  if (v.size() != p.size()) throw Error("BlockQuantizer::observe: " + std::to_string(v.size()) + " values for a piece of " + std::to_string(p.size()));
  if (p.row + p.rows > file_rows_ || p.col + p.cols > file_cols_) throw Error("BlockQuantizer::observe: the piece lies outside the tensor");
  observed_ = true;
  const std::size_t tA = tile_rows_, tB = tile_cols_;
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
      if (path_ == ArrayPath::simd) {  // simd/quant_simd: the same maxima and flags, order-free, the row's tiles in one call
        if (p.cols == 0) continue;
        // a row whose tiles are all whole only adds to the tensor amax: its maximum in one block
        const bool all_whole = rows_whole && p.col % tB == 0 && ((p.col + p.cols) % tB == 0 || p.col + p.cols == file_cols_);
        const std::size_t tbf = p.col / tB;
        const std::size_t first = all_whole ? p.cols : std::min((tbf + 1) * tB, p.col + p.cols) - p.col;
        mx.resize(p.cols / tB + 2);
        const std::size_t nb = simd::absmax_blocks(v.data() + r * p.cols, p.cols, first, all_whole ? p.cols : tB, mx.data());
        for (std::size_t j = 0; j < nb; ++j) {
          add_global(mx[j]);
          const std::size_t tb = tbf + j;
          if (all_whole || (rows_whole && tb * tB >= p.col && std::min((tb + 1) * tB, file_cols_) <= p.col + p.cols)) continue;
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
        if (std::isnan(x)) {
          if (st) st->nan = true;
          global_nan_ = true;
          continue;
        }
        const double m = std::fabs(static_cast<double>(x));
        if (m > global_amax_) global_amax_ = m;  // fmax: NaN ignored
        if (st) {
          if (std::isinf(x)) st->inf = true;
          if (m > st->amax) st->amax = m;
        }
      }
    }
  }
}

void BlockQuantizer::observe(const QuantPiece& p, std::span<const float> values, unsigned threads) {
  observe_impl(p, values, threads);
}

void BlockQuantizer::end_first_pass() {
  if (global_done_) return;
  global_done_ = true;
  if (q_.rule != ScaleRule::nvfp4) return;
  if (opt_.mx_quirks == MxQuirks::torchao_0_18) {  // per_tensor_amax_to_scale(torch.max(torch.abs(x))) (quant.hpp)
    const float g = global_nan_ ? detail::bit_cast<float>(0xffffffffu) : static_cast<float>(global_amax_);
    q_.tensor_decode_scale = tao_x86_div(g, 2688.0f);
    q_.tensor_encode_scale = tao_x86_div(1.0f, q_.tensor_decode_scale);
    return;
  }
  if (opt_.mx_quirks == MxQuirks::torchao_0_18_no_tensor_scale) return;  // per_tensor_scale None: 1 and 1
  // The exact form of TE's fl32(2688 / amax): for a binary32 amax (every value of a float source)
  // it is the float formula's result.
  q_.tensor_encode_scale = nvfp4_global_encode_scale(detail::exact_f64(global_amax_), static_cast<float>(element_max(q_.element)));
  q_.tensor_decode_scale = 1.0f / q_.tensor_encode_scale;
}
void BlockQuantizer::observe(const QuantPiece& p, std::span<const double> values, unsigned threads) {
  if (opt_.profile.source_via_f32) {
    std::vector<float> f(values.begin(), values.end());  // RNE (D11: the f32-first behaviour of ml_dtypes)
    observe_impl<float>(p, f, threads);
    return;
  }
  observe_impl(p, values, threads);
}

template <class T>
void BlockQuantizer::quantize_impl(const QuantPiece& p, std::span<const T> v, std::span<std::uint8_t> codes,
                                   unsigned threads) {
  if (v.size() != p.size() || codes.size() != p.size())
    throw Error("BlockQuantizer::quantize: " + std::to_string(v.size()) + " values and " + std::to_string(codes.size()) +
                " codes for a piece of " + std::to_string(p.size()));
  if (p.row + p.rows > file_rows_ || p.col + p.cols > file_cols_) throw Error("BlockQuantizer::quantize: the piece lies outside the tensor");
  if (p.size() == 0) return;
  QuantizedTensor& q = q_;
  const ElementType el = q.element;
  const BlockPolicy& pol = scheme_.policy;
  const bool e8m0 = is_e8m0_rule(q.rule), two_level = q.rule == ScaleRule::nvfp4;
  const bool coded = e8m0 || two_level;  // scale codes; else FP32 scales
  const float emax_f = static_cast<float>(element_max(el));
  if (two_level && !global_done_) {
    if (!observed_) throw Error("BlockQuantizer::quantize: nvfp4 needs the tensor amax: observe() every piece first");
    end_first_pass();
  }
  const std::size_t tA = tile_rows_, tB = tile_cols_, B = file_cols_;
  const std::size_t ta0 = p.row / tA, ta1 = ceil_div(p.row + p.rows, tA);
  const std::size_t tb0 = p.col / tB, tb1 = ceil_div(p.col + p.cols, tB);
  const std::size_t ntb = tb1 - tb0;
  const bool fast = std::is_same_v<T, float> && path_ == ArrayPath::simd;
  // The row-at-once fused path (fast path, tiles of one row: MX, NVFP4, 1×k FP32): each worker takes
  // whole rows (or tile-aligned column ranges) and does statistics, scale step and encode of one row
  // before the next, with per-row buffers, so that no per-tile array of the tensor is built and no
  // phase is serial. The same per-tile functions as the tile-array path below, so the same bytes.
  const bool fused = fast && tA == 1;
  const auto tile_cut = [&](std::size_t ta, std::size_t tb) {
    return !(ta * tA >= p.row && std::min((ta + 1) * tA, file_rows_) <= p.row + p.rows && tb * tB >= p.col &&
             std::min((tb + 1) * tB, file_cols_) <= p.col + p.cols);
  };
  const char* const cut_without_stats =
      "BlockQuantizer::quantize: the piece cuts a tile; observe() every piece first (QuantPlan::first_pass)";
  // 1. the tiles' statistics: from the first pass for a tile this piece cuts, else from the piece
  std::vector<Stat> st(fused ? 0 : (ta1 - ta0) * ntb);
  std::vector<char> cut(st.size(), 0);
  if (fused) {  // one-row tiles: only the piece's first and last tile columns can be cut
    if (stats_.empty() && (tile_cut(ta0, tb0) || tile_cut(ta0, tb1 - 1))) throw Error(cut_without_stats);
  } else {
    for (std::size_t ta = ta0; ta < ta1; ++ta)
      for (std::size_t tb = tb0; tb < tb1; ++tb) {
        if (!tile_cut(ta, tb)) continue;
        if (stats_.empty()) throw Error(cut_without_stats);
        st[(ta - ta0) * ntb + (tb - tb0)] = stats_[scale_index(ta, tb)];
        cut[(ta - ta0) * ntb + (tb - tb0)] = 1;
      }
  }
  // (rows [r0, r1) × piece columns [c0, c1) into `sl`; the pieces of a split merge order-free: max and or)
  auto stats_range = [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::vector<Stat>& sl) {
    std::vector<simd::AbsMax> mx;
    if constexpr (std::is_same_v<T, float>) {
      if (fast && tB == 1 && c1 > c0) {  // one-column tiles: a tile row's column maxima in vectors, merged once
        std::vector<std::uint32_t> acc(c1 - c0), nan(c1 - c0);
        std::size_t cur = r1 == r0 ? 0 : (p.row + r0) / tA - ta0;
        auto flush = [&] {
          for (std::size_t j = 0; j < c1 - c0; ++j) {
            const std::size_t k = cur * ntb + (p.col + c0 + j - tb0);
            if (!cut[k]) merge_stat(sl[k], simd::absmax_from_bits(acc[j], nan[j] != 0));
          }
          std::fill(acc.begin(), acc.end(), 0u);
          std::fill(nan.begin(), nan.end(), 0u);
        };
        for (std::size_t r = r0; r < r1; ++r) {
          const std::size_t ia = (p.row + r) / tA - ta0;
          if (ia != cur) {
            flush();
            cur = ia;
          }
          simd::absmax_columns(v.data() + r * p.cols + c0, c1 - c0, acc.data(), nan.data());
        }
        if (r1 > r0) flush();
        return;
      }
    }
    for (std::size_t r = r0; r < r1; ++r) {
      const std::size_t ia = (p.row + r) / tA - ta0;
      if constexpr (std::is_same_v<T, float>) {
        if (fast) {  // simd/quant_simd: the same statistics, every tile segment of the row in one call
          if (c1 == c0) continue;
          const std::size_t tbf = (p.col + c0) / tB, first = std::min((tbf + 1) * tB - p.col, c1) - c0;
          mx.resize(ntb);
          const std::size_t nb = simd::absmax_blocks(v.data() + r * p.cols + c0, c1 - c0, first, tB, mx.data());
          for (std::size_t j = 0; j < nb; ++j) {
            const std::size_t k = ia * ntb + (tbf - tb0) + j;
            if (!cut[k]) merge_stat(sl[k], mx[j]);
          }
          continue;
        }
      }
      for (std::size_t c = c0; c < c1; ++c) {
        const std::size_t k = ia * ntb + ((p.col + c) / tB - tb0);
        if (cut[k]) continue;
        sl[k].add(v[r * p.cols + c]);
      }
    }
  };
  const unsigned nthreads = effective_threads(threads, p);
  if (fused) {
    // the statistics are taken row by row inside the fused workers (step 3)
  } else if (nthreads <= 1) {
    stats_range(0, p.rows, 0, p.cols, st);
  } else {
    std::vector<std::vector<Stat>> part(nthreads, std::vector<Stat>(st.size()));
    for_ranges(p, nthreads, [&](unsigned w, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
      stats_range(r0, r1, c0, c1, part[w]);
    });
    for (const auto& pt : part)
      for (std::size_t k = 0; k < st.size(); ++k)
        if (!cut[k]) st[k].merge(pt[k]);
  }
  // The fast path's NVFP4 element multipliers: nvfp4_element_encode_scale of each of the 256 scale codes
  // under this tensor's S_enc, computed once per call (the same function of the same arguments as per tile).
  std::array<float, 256> nvfp4_enc{};
  if (fast && two_level && opt_.mx_quirks == MxQuirks::none)
    for (unsigned c = 0; c < 256; ++c)
      nvfp4_enc[c] = nvfp4_element_encode_scale(static_cast<std::uint8_t>(c), q.tensor_encode_scale);
  // 2. the scale of one tile t from its statistics (the special-block policies of core/block_scale.hpp,
  // in this order): sc set, q's scale code / FP32 scale of t written (workers write disjoint tiles).
  const TileRule rule{.rule = q.rule, .element = el, .policy = pol, .s_enc = q.tensor_encode_scale};
  auto scale_tile = [&](const Stat& s, std::size_t t, QTileScale& sc) {
    if (opt_.mx_quirks != MxQuirks::none && two_level) {
      sc.kind = TileScale::Kind::nvfp4;
      q.scale_codes[t] = torchao_nvfp4_scale(opt_.mx_quirks == MxQuirks::torchao_0_18, s.nan, static_cast<float>(s.amax),
                                             q.tensor_decode_scale, sc);
      return;
    }
    if (opt_.mx_quirks == MxQuirks::torchao_0_18) {
      sc.kind = TileScale::Kind::e8m0;
      q.scale_codes[t] = torchao_scale(q.rule, el, s.nan, static_cast<float>(s.amax), sc);
      return;
    }
    const TileStat<T> stat{static_cast<T>(s.amax), s.nan, s.inf};  // exact: the amax is one of the values
    if constexpr (std::is_same_v<T, float>) {
      // the fast path: the same operations, the e4m3fn rounding from the engine's table, the element
      // multipliers of the 256 codes computed once per call
      if (fast) static_cast<TileScale&>(sc) = tile_scale_of(stat, rule, Nvfp4TableSteps{nvfp4_enc.data()});
      else static_cast<TileScale&>(sc) = tile_scale_of(stat, rule, Nvfp4BlockSteps{});
    } else {
      static_cast<TileScale&>(sc) = tile_scale_of(stat, rule, Nvfp4BlockSteps{});
    }
    if (coded) q.scale_codes[t] = sc.code;
    else q.scales[t] = sc.scale;
  };
  auto scale_tiles = [&] {
    std::vector<QTileScale> out(st.size());
    for (std::size_t ta = ta0; ta < ta1; ++ta)
      for (std::size_t tb = tb0; tb < tb1; ++tb) {
        const std::size_t k = (ta - ta0) * ntb + (tb - tb0);
        scale_tile(st[k], scale_index(ta, tb), out[k]);
      }
    return out;
  };
  // 3. the elements (rows [r0, r1) × piece columns [c0, c1); counts returned, codes disjoint)
  const std::uint8_t nan_code = element_nan_code(el, opt_.profile);
  const RoundingSpec spec = opt_.rounding;
  const Profile prof = opt_.profile;
  const bool sr = spec.rounding == Rounding::sr, one_rounding = pol.fp32_order == Fp32ScaleOrder::exact;
  const simd::QuantKernel* kern = fast ? simd::quant_kernel(el, spec, prof, pol.mxint8_min) : nullptr;
  struct Counts {
    std::uint64_t saturated = 0, flushed = 0;
  };
  // The reference loop of one tile segment [b0, b1) of row r.
  auto scalar_segment = [&](std::size_t r, std::size_t b0, std::size_t b1, const QTileScale& sc, Counts& n) {
    const std::size_t a = p.row + r, off = r * p.cols - p.col;
    for (std::size_t b = b0; b < b1; ++b) {
      const T x = v[off + b];
      const std::uint64_t rb = sr ? sr_bits(opt_.sr_seed, opt_.sr_stream, opt_.sr_step, a * B + b, spec.sr_variant) : 0;
      if (!sc.tao) {  // the core's element step
        const TileElement te = encode_in_tile(x, sc, rule, spec, prof, rb);
        codes[off + b] = te.r.code;
        if (te.r.saturated) ++n.saturated;
        if (te.flushed) ++n.flushed;
        continue;
      }
      // MxQuirks::torchao_0_18 (scalar path only: the fast path's whitelist refuses it; no tile is flushed)
      ElementResult er;
      float y;
      if (sc.tao_nvfp4) y = tao_clamp(tao_x86_mul(sc.tao_mul, static_cast<float>(x)), -emax_f, emax_f);
      else if (!sc.tao_divide && std::isnan(sc.tao_mul)) y = detail::bit_cast<float>(0x7fc00000u);  // x * (+NaN descale)
      else if (std::isnan(x)) y = quiet_f32(static_cast<float>(x));
      else y = sc.tao_divide ? detail::src_div32(x, sc.tao_div) : detail::src_mul32(x, sc.tao_mul);
      if (sc.tao_clamp && !std::isnan(y)) y = std::clamp(y, -emax_f, emax_f);  // (NVFP4: clamped above)
      if (std::isnan(y) && el.format.bits < 8) er = {torchao_floatx_nan(el.format, y), flag_invalid, false};
      else er = quantize_element(el, detail::exact_f32(y), 0, spec, prof, rb, pol.mxint8_min);
      codes[off + b] = er.code;
      if (er.saturated) ++n.saturated;
      if (std::isfinite(x) && x != 0 && element_value(el, er.code) == 0.0) ++n.flushed;
    }
  };
  // The fast rule, per tile (simd::RowBlock): a floating element on the encode whitelist (kern), a
  // tile that is not a NaN block nor flushed; E8M0 tiles whose x · 2^−e are all exact in binary32
  // (BlockOp::e8m0_exact; else the tile falls back to the reference), FP32 / NVFP4 tiles in the
  // te_multiply or divide order. Every other tile is BlockOp::skip: NaN code or the reference loop.
  const auto row_block = [&](const QTileScale& sc) {
    simd::RowBlock b;
    if (sc.flush || sc.tao) return b;
    if (sc.kind == TileScale::Kind::e8m0) b = {simd::pow2_neg(sc.e), simd::BlockOp::e8m0_exact};
    else if ((sc.kind == TileScale::Kind::fp32 || sc.kind == TileScale::Kind::nvfp4) && !one_rounding)
      b = sc.divide ? simd::RowBlock{sc.dec, simd::BlockOp::divide} : simd::RowBlock{sc.enc, simd::BlockOp::multiply};
    return b;
  };
  // The elements of row r, piece columns [c0, c1): tsr and rb (rb only with kern) hold the scales and
  // fast rules of the segment's tiles from its first, tile (p.col + c0) / tB; fb scratch of as many.
  auto row_elements = [&](std::size_t r, std::size_t c0, std::size_t c1, const QTileScale* tsr, const simd::RowBlock* rb,
                          std::uint8_t* fb, Counts& n) {
    const std::size_t off = r * p.cols - p.col;
    const std::size_t tbf = (p.col + c0) / tB;  // the row segment's first tile
    // the segment [b0, b1) of tile tbf + j by the reference loop (or the NaN code)
    auto tile_scalar = [&](std::size_t j, std::size_t b0, std::size_t b1) {
      const QTileScale& sc = tsr[j];
      if (sc.kind == TileScale::Kind::nan_block) {
        for (std::size_t b = b0; b < b1; ++b) codes[off + b] = nan_code;
      } else {
        scalar_segment(r, b0, b1, sc, n);
      }
    };
    if constexpr (std::is_same_v<T, float>) {
      if (kern) {  // the kernel, then only the tiles it left (fb[j] = 1: skip, or not exact)
        const std::size_t first = std::min((tbf + 1) * tB, p.col + c1) - (p.col + c0);
        const simd::RunCounts rc = simd::encode_blocks(*kern, v.data() + off + p.col + c0, c1 - c0, first, tB, rb,
                                                       codes.data() + off + p.col + c0, fb);
        n.saturated += rc.saturated;
        n.flushed += rc.flushed;
        const std::size_t nt = (p.col + c1 - 1) / tB + 1 - tbf;
        for (auto* f = static_cast<std::uint8_t*>(std::memchr(fb, 1, nt)); f != nullptr;
             f = static_cast<std::uint8_t*>(std::memchr(f + 1, 1, nt - static_cast<std::size_t>(f + 1 - fb)))) {
          const std::size_t j = static_cast<std::size_t>(f - fb), tb = tbf + j;
          tile_scalar(j, std::max(tb * tB, p.col + c0), std::min((tb + 1) * tB, p.col + c1));
        }
        return;
      }
    }
    for (std::size_t b0 = p.col + c0, tb = tbf; b0 < p.col + c1; ++tb) {  // tile tb holds b0 (no division per tile)
      const std::size_t b1 = std::min((tb + 1) * tB, p.col + c1);
      tile_scalar(tb - tbf, b0, b1);
      b0 = b1;
    }
  };
  // range(r0, r1, c0, c1) -> Counts over the piece, on nthreads (for_ranges, cuts aligned to `align` columns),
  // the counts summed into q
  auto count_ranges = [&](auto range, std::size_t align) {
    std::vector<Counts> part(std::max(nthreads, 1u));
    if (nthreads <= 1) part[0] = range(0, p.rows, 0, p.cols);
    else
      for_ranges(
          p, nthreads, [&](unsigned w, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) { part[w] = range(r0, r1, c0, c1); },
          align);
    for (const Counts& n : part) {
      q.saturated += n.saturated;
      q.flushed += n.flushed;
    }
  };
  // The fused rows (simd::fused_rows_rne) of E8M0 and NVFP4 tiles with an element that has the arithmetic
  // rne kernel, no quirks (NVFP4: not fp32-order=exact). A plain block's scale is the rule's, which every
  // BlockPolicy leaves as it is: E8M0 from the engine's per-binade table of e8m0_exponent, NVFP4 by
  // nvfp4_block_scale_code_table's operations. Rows whose segment has a cut end tile take the per-tile steps.
  simd::FusedScale fscale;
  bool fused_kernel = false;
  if (fused && kern && opt_.mx_quirks == MxQuirks::none && simd::rne_elements_run(*kern)) {
    if (e8m0) {
      fscale.e8m0 = simd::e8m0_exp_table(q.rule, el);
      fused_kernel = fscale.e8m0 != nullptr;
    } else if (two_level && !one_rounding) {
      fscale.kind = simd::FusedScale::Kind::nvfp4;
      fscale.nvfp4_factor = fmul_rn(q.tensor_encode_scale, frcp_rn(emax_f));
      fscale.nvfp4_table = simd::nvfp4_scale_table();
      fscale.nvfp4_enc = nvfp4_enc.data();
      fused_kernel = true;
    }
  }
  // plain: amax ≥ 2^−126 and not below amax_epsilon (which would replace it)
  fscale.amax_min =
      pol.amax_epsilon > 0.0f ? std::max(0x00800000u, detail::bit_cast<std::uint32_t>(pol.amax_epsilon)) : 0x00800000u;
  const std::size_t scale_stride = opt_.axis == BlockAxis::first ? q.scale_cols : 1;
  if (fused) {
    // rows [r0, r1) × piece columns [c0, c1) (tile-aligned, for_ranges' align): per row, the statistics
    // of its tiles (absmax_blocks; a cut tile's from the first pass), their scales, then the encode
    auto fused_range = [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
      Counts n;
      if (c1 <= c0 || r1 <= r0) return n;
      const std::size_t tbf = (p.col + c0) / tB, nb = (p.col + c1 - 1) / tB + 1 - tbf;
      const std::size_t first = std::min((tbf + 1) * tB, p.col + c1) - (p.col + c0);
      std::vector<simd::AbsMax> mx(nb);
      std::vector<QTileScale> tsr(nb);
      std::vector<simd::RowBlock> rb(nb);
      std::vector<std::uint8_t> fb(nb);
      // one tile column [b0, b1) of row r by the per-tile steps below (its statistics from the piece)
      auto one_tile = [&](std::size_t r, std::size_t tb, std::size_t b0, std::size_t b1) {
        const std::size_t t = scale_index(p.row + r, tb);
        simd::AbsMax a;
        if constexpr (std::is_same_v<T, float>) simd::absmax_blocks(v.data() + r * p.cols + (b0 - p.col), b1 - b0, b1 - b0, b1 - b0, &a);
        QTileScale sc{};
        scale_tile(Stat{a.amax, a.nan, a.inf}, t, sc);
        simd::RowBlock b = row_block(sc);
        std::uint8_t f = 0;
        row_elements(r, b0 - p.col, b1 - p.col, &sc, &b, &f, n);
      };
      const bool row_fused = fused_kernel && !tile_cut(p.row + r0, tbf) && !tile_cut(p.row + r0, tbf + nb - 1);
      for (std::size_t r = r0; r < r1; ++r) {
        const std::size_t ta = p.row + r;  // tA == 1
        if constexpr (std::is_same_v<T, float>) {
          if (row_fused) {  // simd::fused_rows_rne: plain blocks whole; the others (status) by the per-tile steps
            const simd::RunCounts rc = simd::fused_rows_rne(*kern, fscale, v.data() + r * p.cols + c0, c1 - c0,
                                                        v.size() - (r * p.cols + c0), first, tB,
                                                        q.scale_codes.data() + scale_index(ta, tbf), scale_stride,
                                                        codes.data() + r * p.cols + c0, fb.data());
            n.saturated += rc.saturated;
            n.flushed += rc.flushed;
            for (std::size_t j = next_nonzero(fb.data(), 0, nb); j < nb; j = next_nonzero(fb.data(), j + 1, nb)) {
              const std::size_t tb = tbf + j;
              const std::size_t b0 = std::max(tb * tB, p.col + c0), b1 = std::min((tb + 1) * tB, p.col + c1);
              if (fb[j] == 1 && fscale.kind == simd::FusedScale::Kind::e8m0) {  // e from the written scale code; some x·2^−e not exact: the reference loop
                QTileScale sc{};
                sc.e = q.scale_codes[scale_index(ta, tb)] - 127;
                scalar_segment(r, b0, b1, sc, n);
              } else {
                one_tile(r, tb, b0, b1);
              }
            }
            continue;
          }
        }
        if constexpr (std::is_same_v<T, float>)
          simd::absmax_blocks(v.data() + r * p.cols + c0, c1 - c0, first, tB, mx.data());
        for (std::size_t j = 0; j < nb; ++j) {
          const std::size_t tb = tbf + j, t = scale_index(ta, tb);
          Stat s;
          if ((j == 0 || j + 1 == nb) && tile_cut(ta, tb)) {  // an inner tile of the segment is never cut
            s = stats_[t];
          } else {
            s.amax = mx[j].amax;
            s.nan = mx[j].nan;
            s.inf = mx[j].inf;
          }
          tsr[j] = QTileScale{};
          scale_tile(s, t, tsr[j]);
          rb[j] = row_block(tsr[j]);
        }
        row_elements(r, c0, c1, tsr.data(), rb.data(), fb.data(), n);
      }
      return n;
    };
    count_ranges(fused_range, tB);
    return;
  }
  const std::vector<QTileScale> ts = scale_tiles();
  std::vector<simd::RowBlock> rowblk;
  if (kern) {
    rowblk.resize(ts.size());
    for (std::size_t k = 0; k < ts.size(); ++k) rowblk[k] = row_block(ts[k]);
  }
  auto elements_range = [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
    Counts n;
    std::vector<std::uint8_t> fallback(kern ? ntb : 0);
    for (std::size_t r = r0; r < r1; ++r) {
      const std::size_t ia = (p.row + r) / tA - ta0, k = ia * ntb + ((p.col + c0) / tB - tb0);
      row_elements(r, c0, c1, ts.data() + k, kern ? rowblk.data() + k : nullptr, fallback.data(), n);
    }
    return n;
  };
  count_ranges(elements_range, 1);
}

void BlockQuantizer::quantize(const QuantPiece& p, std::span<const float> values, std::span<std::uint8_t> codes,
                              unsigned threads) {
  quantize_impl(p, values, codes, threads);
}
void BlockQuantizer::quantize(const QuantPiece& p, std::span<const double> values, std::span<std::uint8_t> codes,
                              unsigned threads) {
  if (opt_.mx_quirks != MxQuirks::none && !opt_.profile.source_via_f32)
    throw Error("quantize: mx-quirks " + std::string(name(opt_.mx_quirks)) + " takes binary32 inputs (or a profile with source_via_f32)");
  if (opt_.profile.source_via_f32) {
    std::vector<float> f(values.begin(), values.end());  // RNE (D11)
    quantize_impl<float>(p, f, codes, threads);
    return;
  }
  quantize_impl(p, values, codes, threads);
}

template <class T>
void BlockQuantizer::dequantize_impl(const QuantPiece& p, std::span<const std::uint8_t> codes, std::span<T> out,
                                     ScaleFtz ftz) const {
  if (codes.size() != p.size() || out.size() != p.size())
    throw Error("BlockQuantizer::dequantize: " + std::to_string(codes.size()) + " codes and " + std::to_string(out.size()) +
                " outputs for a piece of " + std::to_string(p.size()));
  if (p.size() == 0) return;
  const double* lut = element_lut_.data();
  const std::size_t tA = tile_rows_, tB = tile_cols_;
  // The fast path's NVFP4 and E8M0 block scales: each scale code met in the call decoded once
  // (coded_scale_value, block_scale_value's own step) in place of once per block.
  const bool nv_table = path_ == ArrayPath::simd && coded_scale(q_);
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

// ---- dequantize and statistics --------------------------------------------------------------

double block_scale_value(const QuantizedTensor& q, std::size_t t, ScaleFtz ftz) {
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
      const std::size_t t = (r / q.block_rows) * q.scale_cols + c / q.block_cols;
      out[i] = lut[q.codes[i]] * sv[t];
    }
  return out;
}

double ErrorStats::sqnr_db() const {
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}
double ErrorStats::rel_frobenius() const { return signal > 0 ? std::sqrt(noise / signal) : (noise > 0 ? INFINITY : 0.0); }
void ErrorStats::merge(const ErrorStats& o) {
  const bool had = scale_max > 0, ohad = o.scale_max > 0;
  count += o.count;
  signal += o.signal;
  noise += o.noise;
  max_abs_err = std::max(max_abs_err, o.max_abs_err);
  saturated += o.saturated;
  flushed += o.flushed;
  nonfinite_out += o.nonfinite_out;
  if (ohad) {
    scale_min = had ? std::min(scale_min, o.scale_min) : o.scale_min;
    scale_max = had ? std::max(scale_max, o.scale_max) : o.scale_max;
  }
}

namespace {
// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)): ErrorStats' combination of the lanes
double combine_lanes(const std::array<double, 8>& l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); }

template <class X>
void accumulate_errors_impl(ErrorStats& s, std::span<const X> x, std::span<const double> deq) {
  if (deq.size() != x.size()) throw Error("error_stats: sizes differ");
  const std::size_t n = x.size();
  const X* xs = x.data();
  const double* ds = deq.data();
  std::array<double, 8> sl = s.signal_lanes, nl = s.noise_lanes;
  double mx = s.max_abs_err;
  // element i of this call is element s.stream + i of the stream: lane (s.stream + i) mod 8
  auto one = [&](std::size_t i) {
    const std::size_t l = (s.stream + i) & 7;
    const double xv = static_cast<double>(xs[i]);
    if (!std::isfinite(xv)) return;
    ++s.count;
    sl[l] += xv * xv;
    if (!std::isfinite(ds[i])) {  // a finite input lost to NaN/Inf: its error is unbounded
      ++s.nonfinite_out;
      nl[l] = std::numeric_limits<double>::infinity();
      mx = std::numeric_limits<double>::infinity();
      return;
    }
    const double e = xv - ds[i];
    nl[l] += e * e;
    mx = std::max(mx, std::fabs(e));
  };
  std::size_t i = 0;
  for (; i < n && ((s.stream + i) & 7) != 0; ++i) one(i);
  // whole groups of 8 lanes, a chunk at a time: a chunk of finite x and q in vectors (simd::error_sums8:
  // each lane's adds in order, the same bits as `one`), else element by element
  constexpr std::size_t kChunk = 512;
  while (n - i >= 8) {
    const std::size_t m = std::min(kChunk, (n - i) & ~std::size_t{7});
    if (simd::error_sums8(xs + i, ds + i, m, sl.data(), nl.data(), mx)) s.count += m;
    else
      for (std::size_t k = 0; k < m; ++k) one(i + k);
    i += m;
  }
  for (; i < n; ++i) one(i);
  s.stream += n;
  s.signal_lanes = sl;
  s.noise_lanes = nl;
  s.signal = combine_lanes(sl);
  s.noise = combine_lanes(nl);
  s.max_abs_err = mx;
}
}  // namespace

void accumulate_errors(ErrorStats& s, std::span<const double> x, std::span<const double> deq) {
  accumulate_errors_impl(s, x, deq);
}
void accumulate_errors(ErrorStats& s, std::span<const float> x, std::span<const double> deq) {
  accumulate_errors_impl(s, x, deq);
}

void finish_error_stats(ErrorStats& s, const QuantizedTensor& q) {
  s.saturated = q.saturated;
  s.flushed = q.flushed;
  const std::size_t nt = q.scale_rows * q.scale_cols;
  auto take = [&](double v) {
    if (!(v > 0) || !std::isfinite(v)) return;
    if (s.scale_max == 0) s.scale_min = s.scale_max = v;
    s.scale_min = std::min(s.scale_min, v);
    s.scale_max = std::max(s.scale_max, v);
  };
  if (coded_scale(q)) {  // a scale is a function of its code: each code met, once
    std::array<bool, 256> met{};
    for (std::size_t t = 0; t < nt; ++t) met[q.scale_codes.at(t)] = true;
    for (unsigned c = 0; c < 256; ++c)
      if (met[c]) take(coded_scale_value(q, static_cast<std::uint8_t>(c), ScaleFtz::no));
    return;
  }
  for (std::size_t t = 0; t < nt; ++t) take(block_scale_value(q, t));
}

ErrorStats error_stats(std::span<const double> x, const QuantizedTensor& q, const std::vector<double>& deq) {
  ErrorStats s;
  accumulate_errors(s, x, deq);
  finish_error_stats(s, q);
  return s;
}
ErrorStats error_stats(std::span<const float> x, const QuantizedTensor& q, const std::vector<double>& deq) {
  ErrorStats s;
  accumulate_errors(s, x, deq);
  finish_error_stats(s, q);
  return s;
}

// ---- delayed scaling ------------------------------------------------------------------------

DelayedScaling::DelayedScaling(Config cfg) : cfg_(cfg), history_(std::max<std::size_t>(cfg.history_len, 1), 0.0f) {
  if (cfg_.element.bits > 8 || validate(cfg_.element) != FormatError::ok)
    throw Error("DelayedScaling: the element format must be a valid format of at most 8 bits");
}

QuantizedTensor DelayedScaling::quantize(std::span<const float> x, const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  if (n != x.size()) throw Error("DelayedScaling::quantize: values do not match the shape");
  QuantizedTensor q;
  q.scheme = "fp8_tensor_delayed";
  q.rule = ScaleRule::fp32_amax;
  q.element = ElementType{ElementKind::floating, cfg_.element};
  q.shape = shape;
  q.scale_shape = {1};
  q.rows = n ? 1 : 0;
  q.cols = n;
  q.block_rows = 1;
  q.block_cols = std::max<std::size_t>(n, 1);
  q.scale_rows = q.scale_cols = 1;
  q.scales = {scale_inv_};
  q.codes.resize(n);
  float amax = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    amax = std::fmax(amax, std::fabs(x[i]));
    const ElementResult er = quantize_element(q.element, x[i] * scale_, 0, cfg_.rounding, cfg_.profile);
    q.codes[i] = er.code;
    if (er.saturated) ++q.saturated;
    if (std::isfinite(x[i]) && x[i] != 0.0f && element_value(q.element, er.code) == 0.0) ++q.flushed;
  }
  history_[0] = std::fmax(history_[0], amax);
  return q;
}

void DelayedScaling::update() {
  const std::size_t len = history_.size();
  const float last = history_[0];
  float amax = 0.0f;
  std::vector<float> rolled(len);
  for (std::size_t i = 0; i < len; ++i) {
    const float a = i < len - 1 ? history_[i + 1] : last;
    amax = std::fmax(amax, a);
    rolled[i] = i > 0 ? a : 0.0f;
  }
  if (cfg_.algo == AmaxAlgo::most_recent) amax = last;
  const float scaled_max = static_cast<float>(element_max(ElementType{ElementKind::floating, cfg_.element})) *
                           std::pow(2.0f, -cfg_.margin);
  if (std::isfinite(amax) && amax > 0.0f) scale_ = scaled_max / amax;
  scale_inv_ = 1.0f / scale_;
  history_ = std::move(rolled);
}

// ---- MX dot product and GEMM ----------------------------------------------------------------

namespace {
__extension__ using i128 = __int128;
__extension__ using u128 = unsigned __int128;

// Element as integer · 2^q (q the element format's smallest quantum); false when not finite.
bool element_int(ElementType el, std::uint8_t code, std::int64_t& k, int& q) {
  if (el.kind == ElementKind::int8) {
    k = static_cast<std::int8_t>(code);
    q = -6;
    return true;
  }
  const Format f = el.format;
  q = emin(f) - f.mantissa_bits;
  const Unpacked u = unpack(f, code);
  if (u.cls == Class::nan || u.cls == Class::inf) return false;
  if (u.cls == Class::zero) {
    k = 0;
    return true;
  }
  const auto mag = static_cast<std::int64_t>(u.sig << (u.exp - q));
  k = u.negative ? -mag : mag;
  return true;
}

float round_to_f32(i128 s, int exp) {
  if (s == 0) return 0.0f;
  const bool neg = s < 0;
  const u128 m = neg ? static_cast<u128>(-s) : static_cast<u128>(s);
  detail::Wide w;
  w.w[0] = static_cast<std::uint64_t>(m);
  w.w[1] = static_cast<std::uint64_t>(m >> 64);
  const RoundResult r = round_pack(formats::f32, detail::wide_to_unpacked(neg, w, exp, false), {Rounding::rne, Overflow::nonsat});
  return detail::bit_cast<float>(static_cast<std::uint32_t>(r.code));
}

void check_mx(const QuantizedTensor& t, const char* which) {
  if (!is_e8m0_rule(t.rule) || t.axis != BlockAxis::last || t.block_rows != 1)
    throw Error(std::string("mx_dot: operand ") + which + " must be quantized with an E8M0 rule in 1×k blocks along the last axis");
}
}  // namespace

float mx_dot(const QuantizedTensor& a, std::size_t ra, const QuantizedTensor& b, std::size_t rb) {
  check_mx(a, "A");
  check_mx(b, "B");
  if (a.cols != b.cols || a.block_cols != b.block_cols)
    throw Error("mx_dot: operands differ in length or block size (" + std::to_string(a.cols) + "/" +
                std::to_string(a.block_cols) + " vs " + std::to_string(b.cols) + "/" + std::to_string(b.block_cols) + ")");
  if (ra >= a.rows || rb >= b.rows) throw Error("mx_dot: row index out of range");
  float acc = 0.0f;
  const std::size_t K = a.cols, bs = a.block_cols;
  for (std::size_t j = 0; j * bs < K; ++j) {
    const std::uint8_t xa = a.scale_codes[ra * a.scale_cols + j], xb = b.scale_codes[rb * b.scale_cols + j];
    float blockv;
    if (xa == 0xff || xb == 0xff) {
      blockv = std::numeric_limits<float>::quiet_NaN();
    } else {
      i128 s = 0;
      bool finite = true;
      int qa = 0, qb = 0;
      double dsum = 0;
      for (std::size_t c = j * bs; c < std::min(K, (j + 1) * bs); ++c) {
        std::int64_t ka, kb;
        const std::uint8_t ca = a.codes[ra * K + c], cb = b.codes[rb * K + c];
        if (!element_int(a.element, ca, ka, qa) || !element_int(b.element, cb, kb, qb)) finite = false;
        else s += static_cast<i128>(ka) * kb;
        dsum += element_value(a.element, ca) * element_value(b.element, cb);
      }
      if (!finite) blockv = static_cast<float>(dsum);  // NaN / ±Inf propagate
      else blockv = round_to_f32(s, qa + qb + (xa - 127) + (xb - 127));
    }
    acc = acc + blockv;
  }
  return acc;
}

std::vector<float> mx_gemm(const QuantizedTensor& a, const QuantizedTensor& b) {
  std::vector<float> c(a.rows * b.rows);
  for (std::size_t m = 0; m < a.rows; ++m)
    for (std::size_t n = 0; n < b.rows; ++n) c[m * b.rows + n] = mx_dot(a, m, b, n);
  return c;
}

}  // namespace minifloat
