// SPDX-License-Identifier: Apache-2.0
// quant/tile_loops.cpp: BlockQuantizer::quantize of one piece — the tiles' statistics, each tile's
// scale and its elements by the core's tile step (core/tile_step.hpp), in one of two loops: the fused
// rows (one-row tiles on the fast path: statistics, scales and elements row by row) or the tile array
// (the statistics of every tile of the piece, then the elements), each on the SIMD kernels where the
// fast path allows and the reference loop elsewhere.
#include "minifloat/quant.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "minifloat/core/four_over_six_tile.hpp"
#include "minifloat/core/random.hpp"
#include "quant/internal.hpp"
#include "quant/te2_quirks.hpp"
#include "quant/torchao_quirks.hpp"

namespace minifloat {

using namespace quant_detail;

namespace quant_detail {

/// One call of BlockQuantizer::quantize: a piece's tiles' statistics, each tile's scale (scale_tile,
/// the core's decide_tile_scale or torchao's), and its elements (the SIMD kernels where the fast path
/// allows, else the core's encode_in_tile), in one of two named loops picked by quantize_impl:
///  - fused_rows: one-row tiles on the fast path (MX, NVFP4, 1×k FP32): each worker takes whole rows
///    (or tile-aligned column ranges) and does statistics, scales and elements of one row before the
///    next, with per-row buffers, so that no per-tile array of the tensor is built and no phase is serial;
///  - tile_array: the statistics of every tile of the piece (from the first pass for a tile the piece
///    cuts), then every tile's scale, then the elements.
/// Both call the same per-tile functions, so the same bytes; workers write disjoint codes and tiles.
template <class T>
class PieceRun {
 public:
  PieceRun(BlockQuantizer& bq, const QuantPiece& piece, std::span<const T> values, std::span<std::uint8_t> out,
           unsigned threads)
      : bq_(bq), q(bq.q_), opt(bq.opt_), pol(bq.scheme_.policy), p(piece), v(values), codes(out) {
    el = q.element;
    e8m0 = is_e8m0_rule(q.rule);
    two_level = is_nvfp4_rule(q.rule);
    coded = e8m0 || two_level || is_ue5m3_rule(q.rule);
    emax_f = static_cast<float>(element_max(el));
    tA = bq.tile_rows_;
    tB = bq.tile_cols_;
    B = bq.file_cols_;
    ta0 = p.row / tA;
    ta1 = ceil_div(p.row + p.rows, tA);
    tb0 = p.col / tB;
    tb1 = ceil_div(p.col + p.cols, tB);
    ntb = tb1 - tb0;
    fast = std::is_same_v<T, float> && bq.path_ == ArrayPath::simd;
    fused = fast && tA == 1;
    nthreads = effective_threads(threads, p);
    // The fast path's NVFP4 element multipliers: nvfp4_element_encode_scale of each of the 256 scale codes
    // under this tensor's S_enc, computed once per call (the same function of the same arguments as per tile).
    if (fast && two_level && opt.mx_quirks == MxQuirks::none)
      for (unsigned c = 0; c < 256; ++c)
        nvfp4_enc[c] = nvfp4_element_encode_scale(static_cast<std::uint8_t>(c), q.tensor_encode_scale);
    rule = make_tile_rule(q.rule, el, pol, q.tensor_encode_scale);
    nan_code = element_nan_code(el, opt.profile);
    spec = opt.rounding;
    prof = opt.profile;
    sr = spec.rounding == Rounding::sr;
    one_rounding = pol.fp32_order == Fp32ScaleOrder::exact;
    kern = fast ? simd::quant_kernel(el, spec, prof, pol.mxint8_min) : nullptr;
  }
  /// Which loop the piece takes.
  bool takes_fused_rows() const noexcept { return fused; }
  void fused_rows();
  void tile_array();

 private:
  using Stat = TileStat<double>;
  struct Counts {
    std::uint64_t saturated = 0, flushed = 0;
  };
  static constexpr const char* kCutWithoutStats =
      "BlockQuantizer::quantize: the piece cuts a tile; observe() every piece first (QuantPlan::first_pass)";

  bool tile_cut(std::size_t ta, std::size_t tb) const {
    return !(ta * tA >= p.row && std::min((ta + 1) * tA, bq_.file_rows_) <= p.row + p.rows && tb * tB >= p.col &&
             std::min((tb + 1) * tB, bq_.file_cols_) <= p.col + p.cols);
  }
  void stats_range(std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, const std::vector<char>& cut,
                   std::vector<Stat>& sl) const;
  void scale_tile(const Stat& s, std::size_t t, QTileScale& sc);
  /// The rule of tile t: `rule`, or with amax-scope row its row's S_enc.
  TileRule row_rule(std::size_t t) const {
    if (q.row_encode_scales.empty()) return rule;
    TileRule r = rule;
    r.s_enc = q.row_encode_scales[row_of_tile(q, t)];
    return r;
  }
  void scalar_segment(std::size_t r, std::size_t b0, std::size_t b1, const QTileScale& sc, Counts& n);
  void fourover6_segment(std::size_t r, std::size_t tb, std::size_t b0, std::size_t b1, Counts& n);
  simd::RowBlock row_block(const QTileScale& sc) const;
  void row_elements(std::size_t r, std::size_t c0, std::size_t c1, const QTileScale* tsr, const simd::RowBlock* rb,
                    std::uint8_t* fb, Counts& n);
  template <class Range>
  void count_ranges(Range range, std::size_t align);
  Counts fused_range(std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, const simd::FusedScale& fscale,
                     bool fused_kernel);

  BlockQuantizer& bq_;
  QuantizedTensor& q;
  const QuantOptions& opt;
  const BlockPolicy& pol;
  const QuantPiece& p;
  std::span<const T> v;
  std::span<std::uint8_t> codes;
  ElementType el;
  bool e8m0 = false, two_level = false, coded = false;  // coded: scale codes; else FP32 scales
  float emax_f = 0;
  std::size_t tA = 1, tB = 1, B = 0, ta0 = 0, ta1 = 0, tb0 = 0, tb1 = 0, ntb = 0;
  bool fast = false, fused = false;
  unsigned nthreads = 1;
  std::array<float, 256> nvfp4_enc{};
  TileRule rule;
  std::uint8_t nan_code = 0;
  RoundingSpec spec;
  Profile prof;
  bool sr = false, one_rounding = false;
  const simd::QuantKernel* kern = nullptr;
  simd::FourOverSixRows fourover6_rows_;  ///< 4over6 on the fused rows (fused_rows)
  std::vector<float> fourover6_val_;      ///< its FourOverSixRows::val
  std::array<float, 256> ue5m3_div_{};    ///< FusedScale::ue5m3_div
};

// The statistics of rows [r0, r1) × piece columns [c0, c1) into `sl` (tiles not `cut`); the pieces of a
// split merge order-free: max and or.
template <class T>
void PieceRun<T>::stats_range(std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1,
                              const std::vector<char>& cut, std::vector<Stat>& sl) const {
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
}

// The scale of one tile t from its statistics (the core's tile step, or torchao's): sc set, q's scale
// code / FP32 scale of t written (workers write disjoint tiles).
template <class T>
[[gnu::flatten]] void PieceRun<T>::scale_tile(const Stat& s, std::size_t t, QTileScale& sc) {
  if (opt.mx_quirks == MxQuirks::te_2) {  // TE 2.x's PyTorch references (quant/te2_quirks.hpp)
    const float a = static_cast<float>(s.amax);
    if (two_level) {
      q.scale_codes[t] = te2_nvfp4_scale(s.nan, s.inf, a, q.tensor_encode_scale, q.tensor_decode_scale, sc);
    } else {
      te2_fp32_scale(q.rule, el, pol.amax_epsilon, s.nan, s.inf, a, opt.source, sc);
      q.scales[t] = sc.scale;
    }
    return;
  }
  if (opt.mx_quirks != MxQuirks::none && two_level) {
    sc.kind = TileScale::Kind::nvfp4;
    q.scale_codes[t] = torchao_nvfp4_scale(opt.mx_quirks == MxQuirks::torchao_0_18, s.nan, static_cast<float>(s.amax),
                                           q.tensor_decode_scale, sc);
    return;
  }
  if (opt.mx_quirks == MxQuirks::torchao_0_18) {
    sc.kind = TileScale::Kind::e8m0;
    q.scale_codes[t] = torchao_scale(q.rule, el, s.nan, static_cast<float>(s.amax), sc);
    return;
  }
  const TileStat<T> stat{static_cast<T>(s.amax), s.nan, s.inf};  // exact: the amax is one of the values
  if constexpr (std::is_same_v<T, float>) {
    // the fast path: the same operations, the e4m3fn rounding from the engine's table, the element
    // multipliers of the 256 codes computed once per call
    // (amax-scope row: the row's S_enc by the core's steps; the fused rows take the plain blocks)
    if (fast && q.row_encode_scales.empty())
      static_cast<TileScale&>(sc) = tile_scale_of(stat, rule, Nvfp4TableSteps{nvfp4_enc.data()});
    else static_cast<TileScale&>(sc) = tile_scale_of(stat, row_rule(t), Nvfp4BlockSteps{});
  } else {
    static_cast<TileScale&>(sc) = tile_scale_of(stat, row_rule(t), Nvfp4BlockSteps{});
  }
  if (coded) q.scale_codes[t] = sc.code;
  else q.scales[t] = sc.scale;
}

// The reference loop of one tile segment [b0, b1) of row r.
template <class T>
void PieceRun<T>::scalar_segment(std::size_t r, std::size_t b0, std::size_t b1, const QTileScale& sc, Counts& n) {
  const std::size_t a = p.row + r, off = r * p.cols - p.col;
  for (std::size_t b = b0; b < b1; ++b) {
    const T x = v[off + b];
    const std::uint64_t rb = sr ? sr_bits(opt.sr_seed, opt.sr_stream, opt.sr_step, a * B + b, spec) : 0;
    if (!sc.tao) {  // the core's element step
      const TileElement te = encode_in_tile(x, sc, rule, spec, prof, rb);
      codes[off + b] = te.r.code;
      if (te.r.saturated) ++n.saturated;
      if (te.flushed) ++n.flushed;
      continue;
    }
    // MxQuirks::torchao_0_18 (scalar path only: the fast path's whitelist refuses it; no tile is flushed), te_2
    const ElementResult er = sc.te2 ? te2_element(sc, static_cast<float>(x), el, spec, prof, rb)
                                    : torchao_element(sc, x, el, spec, prof, rb, pol.mxint8_min);
    codes[off + b] = er.code;
    if (er.saturated) ++n.saturated;
    if (std::isfinite(x) && x != 0 && element_value(el, er.code) == 0.0) ++n.flushed;
  }
}

// Scheme::scale_select 4over6 (core/four_over_six.hpp; TE reference_nvfp4.py:524-648): the whole 1×16 tile
// [b0, b1) of row r quantized under its map-to-6 and map-to-4 scale codes, the candidate with the strictly
// smaller error kept (its element codes, its scale code over the one scale_tile wrote, and q.scale_select).
template <class T>
void PieceRun<T>::fourover6_segment(std::size_t r, std::size_t tb, std::size_t b0, std::size_t b1, Counts& n) {
  if (tile_cut(p.row + r, tb))
    throw Error("quantize: scale-select 4over6 needs whole tiles in each piece (the piece cuts a block of 16)");
  const std::size_t a = p.row + r, off = r * p.cols - p.col, len = b1 - b0, t = bq_.scale_index(a, tb);
  std::array<float, kFourOverSixBlock> x{};
  for (std::size_t i = 0; i < len; ++i) {
    const T xi = v[off + b0 + i];
    x[i] = static_cast<float>(xi);
    if constexpr (!std::is_same_v<T, float>) {
      if (!detail::src_is_nan(xi) && static_cast<T>(x[i]) != xi)
        throw Error(
            "quantize: scale-select 4over6 computes TE's error in binary32; the input holds a value that is "
            "not a binary32 (accepted: f32, f16, bf16 values)");
    }
  }
  std::array<std::uint64_t, kFourOverSixBlock> rb{};
  if (sr)
    for (std::size_t i = 0; i < len; ++i)
      rb[i] = sr_bits(opt.sr_seed, opt.sr_stream, opt.sr_step, a * B + b0 + i, spec);
  // the core's selection (core/four_over_six.hpp), the one the CUDA block body calls
  const FourOverSixTile f =
      fourover6_tile(x.data(), static_cast<unsigned>(len), rb.data(), static_cast<float>(bq_.global_amax_),
                     bq_.scheme_.scale_select, rule, spec, prof);
  for (std::size_t i = 0; i < len; ++i) {
    codes[off + b0 + i] = f.el[i].r.code;
    if (f.el[i].r.saturated) ++n.saturated;
    if (f.el[i].flushed) ++n.flushed;
  }
  q.scale_codes[t] = f.code;
  q.scale_select[t] = f.choice;
}

// The fast rule, per tile (simd::RowBlock): a floating element on the encode whitelist (kern), a
// tile that is not a NaN block nor flushed; E8M0 tiles whose x · 2^−e are all exact in binary32
// (BlockOp::e8m0_exact; else the tile falls back to the reference), FP32 / NVFP4 tiles in the
// te_multiply or divide order. Every other tile is BlockOp::skip: NaN code or the reference loop.
template <class T>
[[gnu::always_inline]] inline simd::RowBlock PieceRun<T>::row_block(const QTileScale& sc) const {
  simd::RowBlock b;
  if (sc.flush || sc.tao || sc.zero_elements) return b;
  if (sc.kind == TileScale::Kind::e8m0) b = {simd::pow2_neg(sc.e), simd::BlockOp::e8m0_exact};
  else if ((sc.kind == TileScale::Kind::fp32 || sc.kind == TileScale::Kind::nvfp4) && !one_rounding)
    b = sc.divide ? simd::RowBlock{sc.dec, simd::BlockOp::divide} : simd::RowBlock{sc.enc, simd::BlockOp::multiply};
  return b;
}

// The elements of row r, piece columns [c0, c1): tsr and rb (rb only with kern) hold the scales and
// fast rules of the segment's tiles from its first, tile (p.col + c0) / tB; fb scratch of as many.
template <class T>
void PieceRun<T>::row_elements(std::size_t r, std::size_t c0, std::size_t c1, const QTileScale* tsr,
                               const simd::RowBlock* rb, std::uint8_t* fb, Counts& n) {
  const std::size_t off = r * p.cols - p.col;
  const std::size_t tbf = (p.col + c0) / tB;  // the row segment's first tile
  // the segment [b0, b1) of tile tbf + j by the reference loop (or the NaN code)
  auto tile_scalar = [&](std::size_t j, std::size_t b0, std::size_t b1) {
    const QTileScale& sc = tsr[j];
    if (sc.kind == TileScale::Kind::nan_block) {
      for (std::size_t b = b0; b < b1; ++b) codes[off + b] = nan_code;
    } else if (bq_.scheme_.scale_select != ScaleSelect::none) {
      fourover6_segment(r, tbf + j, b0, b1, n);
    } else {
      scalar_segment(r, b0, b1, sc, n);
    }
  };
  if constexpr (std::is_same_v<T, float>) {
    // the kernel, then only the tiles it left (fb[j] = 1: skip, or not exact); 4over6's tiles: fourover6_segment
    if (kern && bq_.scheme_.scale_select == ScaleSelect::none) {
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
}

// range(r0, r1, c0, c1) -> Counts over the piece, on nthreads (for_ranges, cuts aligned to `align` columns),
// the counts summed into q
template <class T>
template <class Range>
void PieceRun<T>::count_ranges(Range range, std::size_t align) {
  std::vector<Counts> part(std::max(nthreads, 1u));
  if (nthreads <= 1) part[0] = range(0, p.rows, 0, p.cols);
  else
    for_ranges(
        p, nthreads,
        [&](unsigned w, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
          part[w] = range(r0, r1, c0, c1);
        },
        align);
  for (const Counts& n : part) {
    q.saturated += n.saturated;
    q.flushed += n.flushed;
  }
}

// Rows [r0, r1) × piece columns [c0, c1) (tile-aligned, for_ranges' align) of the fused rows: per row,
// the statistics of its tiles (absmax_blocks; a cut tile's from the first pass), their scales, then the
// encode; with fused_kernel, simd::fused_rows_rne does plain blocks whole.
template <class T>
typename PieceRun<T>::Counts PieceRun<T>::fused_range(std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1,
                                                      const simd::FusedScale& fscale, bool fused_kernel) {
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
    const std::size_t t = bq_.scale_index(p.row + r, tb);
    simd::AbsMax a;
    if constexpr (std::is_same_v<T, float>)
      simd::absmax_blocks(v.data() + r * p.cols + (b0 - p.col), b1 - b0, b1 - b0, b1 - b0, &a);
    QTileScale sc{};
    scale_tile(Stat{a.amax, a.nan, a.inf}, t, sc);
    simd::RowBlock b = row_block(sc);
    std::uint8_t f = 0;
    row_elements(r, b0 - p.col, b1 - p.col, &sc, &b, &f, n);
  };
  const bool row_fused = fused_kernel && !tile_cut(p.row + r0, tbf) && !tile_cut(p.row + r0, tbf + nb - 1);
  const bool fourover6 = bq_.scheme_.scale_select != ScaleSelect::none;
  simd::FusedScale row_scale = fscale;  // amax-scope row: the row's S_enc (FusedScale::nvfp4_rcp_senc)
  for (std::size_t r = r0; r < r1; ++r) {
    const std::size_t ta = p.row + r;  // tA == 1
    if constexpr (std::is_same_v<T, float>) {
      if (row_fused && fourover6) {  // simd::fused_rows_4over6: plain blocks whole; the others by the per-tile steps
        const std::size_t t0 = bq_.scale_index(ta, tbf);
        const simd::RunCounts rc = simd::fused_rows_4over6(
            *kern, fourover6_rows_, v.data() + r * p.cols + c0, c1 - c0, v.size() - (r * p.cols + c0), first, tB,
            q.scale_codes.data() + t0, q.scale_select.data() + t0, codes.data() + r * p.cols + c0, fb.data());
        n.saturated += rc.saturated;
        n.flushed += rc.flushed;
        for (std::size_t j = next_nonzero(fb.data(), 0, nb); j < nb; j = next_nonzero(fb.data(), j + 1, nb)) {
          const std::size_t tb = tbf + j;
          one_tile(r, tb, std::max(tb * tB, p.col + c0), std::min((tb + 1) * tB, p.col + c1));
        }
        continue;
      }
      if (row_fused) {  // simd::fused_rows_rne: plain blocks whole; the others (status) by the per-tile steps
        if (!q.row_encode_scales.empty()) {
          const float s_enc = q.row_encode_scales[ta];
          row_scale.nvfp4_factor = fmul_rn(s_enc, frcp_rn(emax_f));
          row_scale.nvfp4_rcp_senc = frcp_rn(s_enc);
        }
        const simd::RunCounts rc = simd::fused_rows_rne(
            *kern, row_scale, v.data() + r * p.cols + c0, c1 - c0, v.size() - (r * p.cols + c0), first, tB,
            q.scale_codes.data() + bq_.scale_index(ta, tbf), 1, codes.data() + r * p.cols + c0, fb.data());
        n.saturated += rc.saturated;
        n.flushed += rc.flushed;
        for (std::size_t j = next_nonzero(fb.data(), 0, nb); j < nb; j = next_nonzero(fb.data(), j + 1, nb)) {
          const std::size_t tb = tbf + j;
          const std::size_t b0 = std::max(tb * tB, p.col + c0), b1 = std::min((tb + 1) * tB, p.col + c1);
          if (fb[j] == 1 && fscale.kind ==
                                simd::FusedScale::Kind::
                                    e8m0) {  // e from the written scale code; some x·2^−e not exact: the reference loop
            QTileScale sc{};
            sc.e = q.scale_codes[bq_.scale_index(ta, tb)] - 127;
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
      const std::size_t tb = tbf + j, t = bq_.scale_index(ta, tb);
      Stat s;
      if ((j == 0 || j + 1 == nb) && tile_cut(ta, tb)) {  // an inner tile of the segment is never cut
        s = bq_.stats_[t];
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
}

template <class T>
void PieceRun<T>::fused_rows() {
  // one-row tiles: only the piece's first and last tile columns can be cut
  if (bq_.stats_.empty() && (tile_cut(ta0, tb0) || tile_cut(ta0, tb1 - 1))) throw Error(kCutWithoutStats);
  // The fused rows (simd::fused_rows_rne) of E8M0, NVFP4 and UE5M3 tiles with an element that has the arithmetic
  // rne kernel, no quirks (NVFP4: not fp32-order=exact). A plain block's scale is the rule's, which every
  // BlockPolicy leaves as it is: E8M0 from the engine's per-binade table of e8m0_exponent, NVFP4 by
  // nvfp4_block_scale_code_table's operations. Rows whose segment has a cut end tile take the per-tile steps.
  simd::FusedScale fscale;
  bool fused_kernel = false;
  if (kern && opt.mx_quirks == MxQuirks::none && simd::rne_elements_run(*kern)) {
    if (e8m0) {
      fscale.e8m0 = simd::e8m0_exp_table(q.rule, el);
      fused_kernel = fscale.e8m0 != nullptr;
    } else if (two_level && !one_rounding) {
      fscale.kind = simd::FusedScale::Kind::nvfp4;
      fscale.nvfp4_factor = fmul_rn(q.tensor_encode_scale, frcp_rn(emax_f));
      fscale.nvfp4_table = simd::nvfp4_scale_table();
      fscale.nvfp4_enc = nvfp4_enc.data();
      fused_kernel = true;
      if (!q.row_encode_scales.empty()) {  // amax-scope row: each row's multipliers per block (fused_range)
        fscale.nvfp4_enc = nullptr;
        fscale.e4m3_values = simd::e4m3fn_values();
      }
      if (bq_.scheme_.scale_select != ScaleSelect::none) {  // 4over6 (e2m1fn only): simd::fused_rows_4over6
        fused_kernel = kern->rne.kind == simd::RneKind::e2m1fn;
        // val of each scale code and E2M1 magnitude m (codes 0..7): fourover6_value (core/four_over_six.hpp)
        const float gamax = static_cast<float>(bq_.global_amax_);
        const float* sf = simd::e4m3fn_values();
        fourover6_val_.assign(256 * 8 + 8, 0.0f);
        for (std::size_t code = 0; code < 256; ++code)
          for (std::uint32_t m = 0; m < 8; ++m)
            fourover6_val_[8 * code + m] = fourover6_value(to_float(formats::e2m1fn, m), sf[code], gamax);
        fourover6_rows_ = {.s_enc = q.tensor_encode_scale,
                           .mse = bq_.scheme_.scale_select == ScaleSelect::four_over_six_mse,
                           .e4m3 = simd::nvfp4_scale_table(),
                           .enc = nvfp4_enc.data(),
                           .val = fourover6_val_.data()};
      }
    } else if (is_ue5m3_rule(q.rule) && !one_rounding) {  // UE5M3 (issue 25 item 9): ue5m3_block_scale per block
      fscale.kind = simd::FusedScale::Kind::ue5m3;
      fscale.ue5m3_g = rule.s_enc;
      fscale.ue5m3_rcp_max = frcp_rn(rule.elem_max);
      for (unsigned c = 0; c < 256; ++c) ue5m3_div_[c] = ue5m3_divisor(static_cast<std::uint8_t>(c), rule.s_enc);
      fscale.ue5m3_div = ue5m3_div_.data();
      fused_kernel = true;
    }
  }
  // plain: amax ≥ 2^−126 and not below amax_epsilon (which would replace it)
  fscale.amax_min =
      pol.amax_epsilon > 0.0f ? std::max(0x00800000u, detail::bit_cast<std::uint32_t>(pol.amax_epsilon)) : 0x00800000u;
  count_ranges([&](std::size_t r0, std::size_t r1, std::size_t c0,
                   std::size_t c1) { return fused_range(r0, r1, c0, c1, fscale, fused_kernel); },
               tB);
}

template <class T>
void PieceRun<T>::tile_array() {
  // 1. the tiles' statistics: from the first pass for a tile this piece cuts, else from the piece
  std::vector<Stat> st((ta1 - ta0) * ntb);
  std::vector<char> cut(st.size(), 0);
  for (std::size_t ta = ta0; ta < ta1; ++ta)
    for (std::size_t tb = tb0; tb < tb1; ++tb) {
      if (!tile_cut(ta, tb)) continue;
      if (bq_.stats_.empty()) throw Error(kCutWithoutStats);
      st[(ta - ta0) * ntb + (tb - tb0)] = bq_.stats_[bq_.scale_index(ta, tb)];
      cut[(ta - ta0) * ntb + (tb - tb0)] = 1;
    }
  if (nthreads <= 1) {
    stats_range(0, p.rows, 0, p.cols, cut, st);
  } else {
    std::vector<std::vector<Stat>> part(nthreads, std::vector<Stat>(st.size()));
    for_ranges(p, nthreads, [&](unsigned w, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
      stats_range(r0, r1, c0, c1, cut, part[w]);
    });
    for (const auto& pt : part)
      for (std::size_t k = 0; k < st.size(); ++k)
        if (!cut[k]) st[k].merge(pt[k]);
  }
  // 2. every tile's scale
  std::vector<QTileScale> ts(st.size());
  for (std::size_t ta = ta0; ta < ta1; ++ta)
    for (std::size_t tb = tb0; tb < tb1; ++tb) {
      const std::size_t k = (ta - ta0) * ntb + (tb - tb0);
      scale_tile(st[k], bq_.scale_index(ta, tb), ts[k]);
    }
  std::vector<simd::RowBlock> rowblk;
  if (kern) {
    rowblk.resize(ts.size());
    for (std::size_t k = 0; k < ts.size(); ++k) rowblk[k] = row_block(ts[k]);
  }
  // 3. the elements
  count_ranges(
      [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
        Counts n;
        std::vector<std::uint8_t> fallback(kern ? ntb : 0);
        for (std::size_t r = r0; r < r1; ++r) {
          const std::size_t ia = (p.row + r) / tA - ta0, k = ia * ntb + ((p.col + c0) / tB - tb0);
          row_elements(r, c0, c1, ts.data() + k, kern ? rowblk.data() + k : nullptr, fallback.data(), n);
        }
        return n;
      },
      1);
}

}  // namespace quant_detail

// The planner: the piece's checks, then one of PieceRun's loops.
template <class T>
void BlockQuantizer::quantize_impl(const QuantPiece& p, std::span<const T> v, std::span<std::uint8_t> codes,
                                   unsigned threads) {
  if (v.size() != p.size() || codes.size() != p.size())
    throw Error("BlockQuantizer::quantize: " + std::to_string(v.size()) + " values and " +
                std::to_string(codes.size()) + " codes for a piece of " + std::to_string(p.size()));
  if (p.row + p.rows > file_rows_ || p.col + p.cols > file_cols_)
    throw Error("BlockQuantizer::quantize: the piece lies outside the tensor");
  if (p.size() == 0) return;
  if ((is_nvfp4_rule(q_.rule) || q_.rule == ScaleRule::nvfp4_v2_gs) && !global_done_) {
    if (!observed_ && scheme_.tensor_scale == 0.0f)
      throw Error("BlockQuantizer::quantize: " + std::string(name(q_.rule)) +
                  " needs the tensor amax: observe() every piece first");
    end_first_pass();
  }
  quant_detail::PieceRun<T> run(*this, p, v, codes, threads);
  if (run.takes_fused_rows()) run.fused_rows();
  else run.tile_array();
}

void BlockQuantizer::quantize(const QuantPiece& p, std::span<const float> values, std::span<std::uint8_t> codes,
                              unsigned threads) {
  if (const auto f = quant_detail::daz_copy(opt_.rounding.daz, values))  // RoundingSpec::daz: inputs read as ±0
    return quantize(p, std::span<const float>(*f), codes, threads);
  if (q_.transform.rht16) {  // the transform first (core/hadamard.hpp), then the tiles of the transformed piece
    quant_detail::for_transformed_chunks(
        p, values, q_, {file_rows_, file_cols_, tile_rows_}, transform_path_, threads, codes.size() == p.size(),
        [&](const QuantPiece& c, std::span<const float> t) {  // (a chunk's codes: the same rows of `codes`)
          quantize_impl<float>(c, t, c.rows == p.rows ? codes : codes.subspan((c.row - p.row) * p.cols, c.size()),
                               threads);
        });
    return;
  }
  quantize_impl(p, values, codes, threads);
}
void BlockQuantizer::quantize(const QuantPiece& p, std::span<const double> values, std::span<std::uint8_t> codes,
                              unsigned threads) {
  if (const auto f = quant_detail::daz_copy(opt_.rounding.daz, values))
    return quantize(p, std::span<const double>(*f), codes, threads);
  if (opt_.mx_quirks != MxQuirks::none && !opt_.profile.source_via_f32)
    throw Error("quantize: mx-quirks " + std::string(name(opt_.mx_quirks)) +
                " takes binary32 inputs (or a profile with source_via_f32)");
  if (opt_.profile.source_via_f32) {
    std::vector<float> f(values.begin(), values.end());  // RNE (D11)
    quantize(p, std::span<const float>(f), codes, threads);
    return;
  }
  if (q_.transform.rht16) {
    quant_detail::for_transformed_chunks(
        p, values, q_, {file_rows_, file_cols_, tile_rows_}, transform_path_, threads, codes.size() == p.size(),
        [&](const QuantPiece& c, std::span<const float> t) {  // (a chunk's codes: the same rows of `codes`)
          quantize_impl<float>(c, t, c.rows == p.rows ? codes : codes.subspan((c.row - p.row) * p.cols, c.size()),
                               threads);
        });
    return;
  }
  quantize_impl(p, values, codes, threads);
}

}  // namespace minifloat
