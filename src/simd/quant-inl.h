// SPDX-License-Identifier: Apache-2.0
// simd/quant-inl.h: the block quantizer's Highway kernels (one copy per SIMD target, through
// hwy/foreach_target.h; see simd/quant_simd.cpp).
//
// AbsmaxBlocks is simd::absmax_blocks: per block the integer max of the magnitude bits |x| (binary32
// magnitudes order as their bits); a block whose max is above +Inf's bits holds a NaN and is taken
// again by the caller's scalar loop (its amax is over the non-NaN values).
//
// FusedRowsRne is simd::fused_rows_rne: the same maxima, the scale of a plain block (the E8M0 exponent
// from the engine's per-binade table E8m0ExpTable, or NVFP4's e4m3fn code from the engine's table) and
// its elements by encode_block_rne below, in one pass over the row.
//
// FusedRows4over6 is simd::fused_rows_4over6 (Scheme::scale_select 4over6, issue 25 item 9): the same maxima, both
// candidate scale codes of a plain block from the engine's e4m3fn table, each candidate's E2M1 elements by the lane rule
// of encode_block_rne, its error terms in vectors and their sum one binary32 add at a time in the element order.
//
// EncodeBlocksInt8 and FusedRowsInt8 are the same two doors for MXINT8 elements under rne (QuantInt8): the
// lane rule Int8Lane in place of RneMagnitude, with the statuses and counts of encode_block_rne.
//
// EncodeBlocksRne, the arithmetic element kernel, is simd::encode_blocks (simd/quant_simd.hpp)
// for the combinations of QuantRne — rne into e4m3fn, e5m2, e2m1fn, e2m3fn or e3m2fn — and holds no rounding rule of
// its own: each block's y = x · s (or x / s) is the binary32 operation of the reference
// (src/quant/tile_loops.cpp), and y is encoded by the arithmetic rne kernel's lane rule (RneMagnitude,
// simd/encode_rne-inl.h), whose overflow code comes from the engine's table (EncodeTable::rne). Per
// block, in vectors (lanes past the block's end are loaded as +0, which counts nothing):
//   saturated = lanes with |y| ≥ ovf_min, when QuantRne::sat_on_overflow (the table's sat bit of
//               every overflow key; checked when the kernel is built, quant_simd.cpp);
//   flushed   = lanes whose code magnitude is 0 and whose x is nonzero; every zero code has
//               magnitude 0 and no other code does (checked when the kernel is built);
//   status    = 2 when a lane's y is ±Inf or NaN (the block holds a non-finite x, or the product
//               overflowed): the caller redoes the block by the table path, which also decides
//               e8m0_exact's exactness for it; 1 for an e8m0_exact block with a nonzero x whose
//               |y| is below 2^−126, zero included (not exact: the reference loop takes it, as BlockOp says); else 0,
//               and only then are the block's counts added.
// The FPU's default rounding (MXCSR round-to-nearest, no FTZ/DAZ) is the caller's check, as for
// encode_rne (rne_kernel_runs).
#if defined(MINIFLOAT_SIMD_QUANT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MINIFLOAT_SIMD_QUANT_INL_H_
#undef MINIFLOAT_SIMD_QUANT_INL_H_
#else
#define MINIFLOAT_SIMD_QUANT_INL_H_
#endif

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "simd/convert-inl.h"  // RneFormat, RneMagnitude (simd/encode_rne-inl.h)
#include "simd/quant_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace minifloat::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Stores the Lanes i32 values of v (each in [0, 255]) as bytes: vpmovdb to memory on AVX-512 (Highway 1.0.3's
/// DemoteTo takes two packs, a mask and a permute there), else DemoteTo.
template <class DI>
HWY_INLINE void store_bytes([[maybe_unused]] DI di, hn::Vec<DI> v, std::uint8_t* HWY_RESTRICT o) {
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  static_assert(hn::MaxLanes(DI()) == 16);
  _mm512_mask_cvtepi32_storeu_epi8(o, 0xffff, v.raw);
#else
  const hn::Rebind<std::uint8_t, DI> d8;
  hn::StoreU(hn::DemoteTo(d8, v), d8, o);
#endif
}
/// acc + 1 in the lanes of m: one masked subtract of −1 on AVX-512, else acc − VecFromMask(m).
template <class DI>
HWY_INLINE hn::Vec<DI> count_if([[maybe_unused]] DI di, hn::Vec<DI> acc, hn::Mask<DI> m) {
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  return hn::Vec<DI>{_mm512_mask_sub_epi32(acc.raw, m.raw, acc.raw, _mm512_set1_epi32(-1))};
#else
  return hn::Sub(acc, hn::VecFromMask(di, m));
#endif
}

/// |y| bits above this count as saturated: ovf_min − 1, or none (INT32_MAX) when the overflow code is not
/// finite (QuantRne::sat_on_overflow).
template <class DI>
HWY_INLINE hn::Vec<DI> saturation_bound(DI di, const QuantRne& c) {
  return hn::Set(di, static_cast<std::int32_t>(c.sat_on_overflow ? c.ovf_min - 1 : 0x7fffffffu));
}

/// The block loop of encode_block_rne and encode_block_int8: one block of m < 2^31 elements with scale s by
/// operation Op (e8m0_exact, multiply or divide), each lane's code from the lane rule
/// `rule(y bits, |y| bits, saturated&, zero&)` (the code with its sign; saturated: the lane counts as
/// saturated; zero: its code is a zero, counted as flushed when x ≠ 0); codes to o; the block's counts added
/// to sat/fl only when it returns status 0: 2 when some |y| is not finite, 1 (e8m0_exact) when some nonzero x
/// gives |y| < 2^−126, else 0. min_ay/max_ay (optional) get the min/max of the block's |y| bits.
template <BlockOp Op, class DI, class Rule>
HWY_INLINE std::uint8_t encode_block_lanes(DI di, const Rule& rule, const float* HWY_RESTRICT x, std::size_t m, float s,
                                           std::uint8_t* HWY_RESTRICT o, hn::Vec<DI>& sat, hn::Vec<DI>& fl,
                                           hn::Vec<DI>* min_ay = nullptr, hn::Vec<DI>* max_ay = nullptr) {
  using VI = hn::Vec<DI>;
  const hn::RebindToFloat<DI> df;
  const hn::RebindToUnsigned<DI> du;
  const hn::Rebind<std::uint8_t, DI> d8;
  const std::size_t N = hn::Lanes(di);
  const VI abs_mask = hn::Set(di, 0x7fffffff);
  const auto sv = hn::Set(df, s);
  VI vmax = hn::Zero(di), bsat = hn::Zero(di), bfl = hn::Zero(di);
  auto vmin_u = hn::Set(du, 0xffffffffu);  // e8m0_exact: min of |y| bits over the lanes with x ≠ 0
  auto lane = [&](hn::Vec<decltype(df)> xf) HWY_ATTR {
    const VI yi = hn::BitCast(di, Op == BlockOp::divide ? hn::Div(xf, sv) : hn::Mul(xf, sv));
    const VI ay = hn::And(yi, abs_mask);
    vmax = hn::Max(vmax, ay);
    if (min_ay != nullptr) *min_ay = hn::Min(*min_ay, ay);
    hn::Mask<DI> lsat, lzero;
    const VI code = rule(yi, ay, lsat, lzero);  // a non-finite lane's code is discarded (status 2)
    bsat = count_if(di, bsat, lsat);
    const auto x_zero = hn::Eq(hn::And(hn::BitCast(di, xf), abs_mask), hn::Zero(di));
    if constexpr (Op == BlockOp::e8m0_exact)  // a zero x reads as 2^32 − 1
      vmin_u = hn::Min(vmin_u, hn::BitCast(du, hn::Or(ay, hn::VecFromMask(di, x_zero))));
    bfl = count_if(di, bfl, hn::AndNot(x_zero, lzero));
    return code;
  };
  std::size_t k = 0;
  for (; k + N <= m; k += N) store_bytes(di, lane(hn::LoadU(df, x + k)), o + k);
  if (k < m) {
    alignas(64) float in[hn::MaxLanes(df)] = {};
    alignas(64) std::uint8_t out[hn::MaxLanes(d8)];
    for (std::size_t j = 0; k + j < m; ++j) in[j] = x[k + j];
    store_bytes(di, lane(hn::Load(df, in)), out);
    for (std::size_t j = 0; k + j < m; ++j) o[k + j] = out[j];
  }
  if (max_ay != nullptr) *max_ay = vmax;
  if (!hn::AllFalse(di, hn::Gt(vmax, hn::Set(di, 0x7f7fffff)))) return 2;
  if constexpr (Op == BlockOp::e8m0_exact) {
    if (!hn::AllFalse(du, hn::Lt(vmin_u, hn::Set(du, 0x00800000u)))) return 1;
  }
  sat = hn::Add(sat, bsat);
  fl = hn::Add(fl, bfl);
  return 0;
}

/// One block of m < 2^31 elements with scale s by operation Op (e8m0_exact, multiply or divide);
/// codes to o; its counts (lanes with |y| bits > sat_below; flushed lanes) added to sat/fl only when it
/// returns status 0 (file comment). The lane rule: RneMagnitude, the sign of y (encode_block_lanes).
template <const RneFormat& F, BlockOp Op, class DI>
HWY_INLINE std::uint8_t encode_block_rne(DI di, const RneMagnitude<F, DI>& magnitude, const float* HWY_RESTRICT x,
                                         std::size_t m, float s, hn::Vec<DI> sat_below, std::uint8_t* HWY_RESTRICT o,
                                         hn::Vec<DI>& sat, hn::Vec<DI>& fl, hn::Vec<DI>* min_ay = nullptr,
                                         hn::Vec<DI>* max_ay = nullptr) {
  using VI = hn::Vec<DI>;
  const auto rule = [&](VI yi, VI ay, hn::Mask<DI>& lsat, hn::Mask<DI>& lzero) HWY_ATTR {
    const VI mag = magnitude(ay);
    lsat = hn::Gt(ay, sat_below);
    lzero = hn::Eq(mag, hn::Zero(di));
    return with_sign<F>(di, mag, yi);
  };
  return encode_block_lanes<Op>(di, rule, x, m, s, o, sat, fl, min_ay, max_ay);
}

/// The lower bounds of |y| bits under which encode_block_lean's two lane rules hold (file comment of
/// fused_rows_rne): `normal` (|y| ≥ 2^emin of the target: the normal rounding alone, no zero code) and
/// `nonzero` (|y| > 0, and for e8m0_exact |y| ≥ 2^−126: every x nonzero, every product exact).
template <class DI>
struct LeanBounds {
  hn::Vec<DI> normal, nonzero;
  hn::Vec<DI> below_ovf;  ///< ovf_min − 1 (encode_block_lean's kCheckMax)
  hn::Vec<DI> sat_below;  ///< saturation_bound (encode_block_lean's kRule 2)
  HWY_INLINE LeanBounds(DI di, std::uint32_t normal_min, BlockOp op, const QuantRne& c)
      : normal(hn::Set(di, static_cast<std::int32_t>(normal_min))),
        nonzero(hn::Set(di, op == BlockOp::e8m0_exact ? 0x00800000 : 1)),
        below_ovf(hn::Set(di, static_cast<std::int32_t>(c.ovf_min - 1))),
        sat_below(saturation_bound(di, c)) {}
};
/// Which lane rule a block's |y| allow, from their min: 0 the normal rule, 1 the rule with subnormal
/// results, 2 neither (encode_block_rne's). Without a branch (nonzero ≤ normal): MXFP6 e3m2's Gaussian blocks are
/// class 0 or 1 about as often, and a branch on it was mispredicted about every other block.
template <class DI>
HWY_INLINE int lean_class(DI di, const LeanBounds<DI>& b, hn::Vec<DI> min_ay) {
  return static_cast<int>(!hn::AllFalse(di, hn::Lt(min_ay, b.normal))) +
         static_cast<int>(!hn::AllFalse(di, hn::Lt(min_ay, b.nonzero)));
}
/// Which lean rule of encode_block_lean a block tries first, from the classes of the blocks before it (any choice gives
/// the same bytes: a rule that does not hold is followed by the next): rule 0 only after kRun blocks of class 0 in a
/// row, rule 1 after a block of class ≤ 1, else the full rule. So a row whose blocks alternate between class 0 and 1
/// (MXFP6 e3m2's Gaussian blocks: 2^−2 is about amax/64) stays on rule 1 and encodes no block twice, and a row of
/// class-0 blocks (MXFP8, MXFP4) takes the lean normal rule.
/// saw() without a branch on the class (a branch there was the mispredicted one).
struct LeanGuess {
  static constexpr int kRun = 8;
  int run = kRun;  ///< blocks of class 0 in a row (at most kRun); −1 after a block of class 2
  [[nodiscard]] bool try_normal() const { return run == kRun; }
  [[nodiscard]] bool try_subnormal() const { return run >= 0; }
  /// Takes the class of a block and returns it.
  int saw(int cls) {
    run = (std::min(run + 1, kRun) & -static_cast<int>(cls == 0)) - static_cast<int>(cls == 2);
    return cls;
  }
};

/// A whole-vector block (m a multiple of Lanes) whose |y| are all below ovf_min (the caller's bound from
/// the block's amax: fl32(amax · s) < ovf_min, so every y is finite and neither saturates nor needs the
/// overflow clamp), by a leaner lane rule that holds only for some blocks, checked on the block's min |y|:
///  - kRule 0: every |y| ≥ 2^emin (normal in the target): RneMagnitude::normal, no count (no zero code,
///    no zero x, no inexact e8m0 product); done when lean_class is 0;
///  - kRule 1: every |y| > 0 (≥ 2^−126 for e8m0_exact): RneMagnitude, flushed = the zero codes (every x is
///    nonzero); done when lean_class ≤ 1, and only then is the flushed count added.
/// Returns lean_class of the block; the codes written when it is not done are the caller's to overwrite.
/// kCheckMax: the bound on |y| is not the caller's but checked here too (the block's max |y| below
/// ovf_min, which also excludes every non-finite x and y; else lean_class 2).
/// kRule 2: kRule 1's rule for a block whose |y| may reach ovf_min but are all finite (the caller's bound
/// from fl32(amax · s)): the full rounding, whose overflow code is the table's, with the saturated lanes
/// counted as encode_block_rne counts them; done when lean_class ≤ 1.
template <const RneFormat& F, BlockOp Op, int kRule, bool kCheckMax = false, class DI>
HWY_INLINE int encode_block_lean(DI di, const RneMagnitude<F, DI>& magnitude, const LeanBounds<DI>& bounds,
                                 const float* HWY_RESTRICT x, std::size_t m, float s, std::uint8_t* HWY_RESTRICT o,
                                 hn::Vec<DI>& fl, hn::Vec<DI>* sat = nullptr) {
  static_assert(kRule != 2 || !kCheckMax);
  static_assert(Op != BlockOp::divide && Op != BlockOp::skip);
  using VI = hn::Vec<DI>;
  const hn::RebindToFloat<DI> df;
  const std::size_t N = hn::Lanes(di);
  const VI abs_mask = hn::Set(di, 0x7fffffff);
  const auto sv = hn::Set(df, s);
  VI vmin = hn::Set(di, 0x7fffffff), vmax = hn::Zero(di), bfl = hn::Zero(di), bsat = hn::Zero(di);
  for (std::size_t k = 0; k < m; k += N) {
    const VI yi = hn::BitCast(di, hn::Mul(hn::LoadU(df, x + k), sv));
    const VI ay = hn::And(yi, abs_mask);
    vmin = hn::Min(vmin, ay);
    if constexpr (kCheckMax) vmax = hn::Max(vmax, ay);
    VI mag;
    if constexpr (kRule == 0) {
      mag = magnitude.normal(ay);
    } else {
      mag = magnitude(ay);
      bfl = count_if(di, bfl, hn::Eq(mag, hn::Zero(di)));
      if constexpr (kRule == 2) bsat = count_if(di, bsat, hn::Gt(ay, bounds.sat_below));
    }
    store_bytes(di, with_sign<F>(di, mag, yi), o + k);
  }
  const int cls = kCheckMax && !hn::AllFalse(di, hn::Gt(vmax, bounds.below_ovf)) ? 2 : lean_class(di, bounds, vmin);
  if (kRule >= 1 && cls <= 1) fl = hn::Add(fl, bfl);
  if (kRule == 2 && cls <= 1) *sat = hn::Add(*sat, bsat);
  return cls;
}

/// The rne kernels' per-lane saturated and flushed counters (added to by encode_block_rne), summed into
/// `rc` at least every 2^30 elements so that no i32 lane overflows (a block is < 2^31 elements).
template <class DI>
struct LaneCounts {
  hn::Vec<DI> sat, fl;
  RunCounts rc;
  std::size_t since = 0;
  explicit HWY_INLINE LaneCounts(DI di) : sat(hn::Zero(di)), fl(hn::Zero(di)) {}
  HWY_INLINE void before_block(DI di, std::size_t m) {
    if (since + m > (std::size_t{1} << 30)) sum(di);
    since += m;
  }
  HWY_INLINE RunCounts sum(DI di) {
    alignas(64) std::int32_t lanes[2][hn::MaxLanes(di)];
    hn::Store(sat, di, lanes[0]);
    hn::Store(fl, di, lanes[1]);
    for (std::size_t i = 0; i < hn::Lanes(di); ++i) {
      rc.saturated += static_cast<std::uint32_t>(lanes[0][i]);
      rc.flushed += static_cast<std::uint32_t>(lanes[1][i]);
    }
    sat = hn::Zero(di);
    fl = hn::Zero(di);
    since = 0;
    return rc;
  }
};

/// Software prefetch kAhead elements ahead of the block being read (the hardware streamer stops at each
/// 4 KiB page), one cache line at a time, never past `readable` elements of x.
struct PrefetchAhead {
  static constexpr std::size_t kAhead = 2048, kLine = 64 / sizeof(float);
  const float* x;
  std::size_t readable, next = 0;
  HWY_INLINE void upto(std::size_t end) {
    for (; next < end + kAhead && next + kAhead < readable; next += kLine) hwy::Prefetch(x + next + kAhead);
  }
  /// A fused kernel's element pass, after a block ending at `end`: upto(end + span), span = kGroup · bs, which is as
  /// far as the next group's maxima pass (group_maxima) will ask. So the lines are asked for a few per block while the
  /// elements are encoded, not in one burst of kGroup · bs / 16 lines before each group's maxima, which waited on the
  /// fill buffers while the element pass left the memory idle (MXFP6 e3m2 at 64 MiB: 19 → 9.5 ms, bench_quant).
  HWY_INLINE void during(std::size_t end, std::size_t span) { upto(end + span); }
};

/// The max of the magnitude bits |x| of m elements, m a nonzero multiple of Lanes, in vectors (integer max;
/// NaN bits are above +Inf's). The fused rows' groups of whole blocks call it directly.
HWY_INLINE std::uint32_t whole_block_max_bits(const float* HWY_RESTRICT x, std::size_t m) {
  const hn::ScalableTag<std::uint32_t> du;
  const std::size_t N = hn::Lanes(du);
  const auto* xb = reinterpret_cast<const std::uint32_t*>(x);
  const auto abs_mask = hn::Set(du, 0x7fffffffu);
  auto vmax = hn::And(hn::LoadU(du, xb), abs_mask);
  for (std::size_t k = N; k < m; k += N) vmax = hn::Max(vmax, hn::And(hn::LoadU(du, xb + k), abs_mask));
  return hn::GetLane(hn::MaxOfLanes(du, vmax));
}
/// The same for any m ≥ 1: the whole vectors, then a cut block's last elements one by one.
HWY_INLINE std::uint32_t block_max_bits(const float* HWY_RESTRICT x, std::size_t m) {
  const std::size_t whole = m - m % hn::Lanes(hn::ScalableTag<std::uint32_t>());
  const auto* xb = reinterpret_cast<const std::uint32_t*>(x);
  std::uint32_t r = whole > 0 ? whole_block_max_bits(x, whole) : 0u;
  for (std::size_t k = whole; k < m; ++k) r = std::max(r, xb[k] & 0x7fffffffu);
  return r;
}

/// Blocks of one element (column tiles, bs = first = 1): the lanes of encode_block_rne with each lane's
/// own scale and operation from blocks[i] (RowBlock read as two 32-bit words, the op in the low byte of
/// the second), and each lane's status as that one-element block's: 2 when y is ±Inf or NaN, else 1
/// for e8m0_exact with a nonzero x and |y| < 2^−126, or for skip (its code unspecified: the caller's),
/// else 0; only lanes of status 0 are counted.
template <const RneFormat& F>
HWY_INLINE RunCounts encode_lanes_rne(const QuantRne& c, const float* HWY_RESTRICT x, std::size_t n,
                                      const RowBlock* HWY_RESTRICT blocks, std::uint8_t* HWY_RESTRICT codes,
                                      std::uint8_t* HWY_RESTRICT status) {
  static_assert(sizeof(RowBlock) == 8 && offsetof(RowBlock, s) == 0 && offsetof(RowBlock, op) == 4);
  using DI = hn::ScalableTag<std::int32_t>;
  const DI di;
  using VI = hn::Vec<DI>;
  const hn::RebindToFloat<DI> df;
  const hn::RebindToUnsigned<DI> du;
  const hn::Rebind<std::uint8_t, DI> d8;
  const std::size_t N = hn::Lanes(di);
  const RneMagnitude<F, DI> magnitude(di, c.max_code);
  LaneCounts<DI> counts(di);
  const VI sat_below = saturation_bound(di, c), abs_mask = hn::Set(di, 0x7fffffff), op_mask = hn::Set(di, 0xff);
  const VI op_e8m0 = hn::Set(di, static_cast<std::int32_t>(BlockOp::e8m0_exact)),
           op_divide = hn::Set(di, static_cast<std::int32_t>(BlockOp::divide)),
           op_skip = hn::Set(di, static_cast<std::int32_t>(BlockOp::skip));
  const VI max_finite = hn::Set(di, 0x7f7fffff), min_normal = hn::Set(di, 0x00800000);
  auto lane = [&](const std::uint32_t* HWY_RESTRICT w, const float* HWY_RESTRICT xs, std::uint8_t* HWY_RESTRICT o,
                  std::uint8_t* HWY_RESTRICT st) HWY_ATTR {
    hn::Vec<decltype(du)> sw, ow;
    hn::LoadInterleaved2(du, w, sw, ow);
    const VI op = hn::And(hn::BitCast(di, ow), op_mask);
    const auto sv = hn::BitCast(df, sw);
    const auto xf = hn::LoadU(df, xs);
    auto yf = hn::Mul(xf, sv);
    const auto is_div = hn::Eq(op, op_divide);
    if (!hn::AllFalse(di, is_div)) yf = hn::IfThenElse(hn::RebindMask(df, is_div), hn::Div(xf, sv), yf);
    const VI yi = hn::BitCast(di, yf);
    const VI ay = hn::And(yi, abs_mask);
    const VI mag = magnitude(ay);
    const auto x_zero = hn::Eq(hn::And(hn::BitCast(di, xf), abs_mask), hn::Zero(di));
    const auto bad2 = hn::Gt(ay, max_finite);
    const auto bad1 = hn::AndNot(bad2, hn::And(hn::Eq(op, op_e8m0), hn::AndNot(x_zero, hn::Lt(ay, min_normal))));
    const auto skip = hn::Eq(op, op_skip);
    const auto ok = hn::Not(hn::Or(hn::Or(bad1, bad2), skip));
    counts.sat = count_if(di, counts.sat, hn::And(ok, hn::Gt(ay, sat_below)));
    counts.fl = count_if(di, counts.fl, hn::And(ok, hn::AndNot(x_zero, hn::Eq(mag, hn::Zero(di)))));
    // (skip before a non-finite y: a skip lane is the caller's whatever its y)
    const VI s = hn::Or(hn::IfThenElseZero(hn::AndNot(skip, bad2), hn::Set(di, 2)),
                        hn::IfThenElseZero(hn::Or(bad1, skip), hn::Set(di, 1)));
    store_bytes(di, with_sign<F>(di, mag, yi), o);
    store_bytes(di, s, st);
  };
  const auto* words = reinterpret_cast<const std::uint32_t*>(blocks);
  std::size_t k = 0;
  for (; k + N <= n; k += N) {
    if (k % (std::size_t{1} << 20) == 0) counts.before_block(di, std::size_t{1} << 20);
    lane(words + 2 * k, x + k, codes + k, status + k);
  }
  if (k < n) {  // the last lanes through buffers: the pad lanes are skip
    alignas(64) float in[hn::MaxLanes(df)] = {};
    alignas(64) std::uint32_t w[2 * hn::MaxLanes(df)];
    alignas(64) std::uint8_t out[hn::MaxLanes(d8)], st[hn::MaxLanes(d8)];
    for (std::size_t j = 0; j < N; ++j) {
      const bool real = k + j < n;
      in[j] = real ? x[k + j] : 0.0f;
      w[2 * j] = real ? words[2 * (k + j)] : 0u;
      w[2 * j + 1] = real ? words[2 * (k + j) + 1] : static_cast<std::uint32_t>(BlockOp::skip);
    }
    counts.before_block(di, N);
    lane(w, in, out, st);
    for (std::size_t j = 0; k + j < n; ++j) {
      codes[k + j] = out[j];
      status[k + j] = st[j];
    }
  }
  return counts.sum(di);
}

template <const RneFormat& F>
HWY_INLINE RunCounts encode_blocks_rne(const QuantRne& c, const float* HWY_RESTRICT x, std::size_t n, std::size_t first,
                                       std::size_t bs, const RowBlock* HWY_RESTRICT blocks,
                                       std::uint8_t* HWY_RESTRICT codes, std::uint8_t* HWY_RESTRICT status) {
  using DI = hn::ScalableTag<std::int32_t>;
  const DI di;
  using VI = hn::Vec<DI>;
  if (bs == 1 && first == 1) return encode_lanes_rne<F>(c, x, n, blocks, codes, status);
  const RneMagnitude<F, DI> magnitude(di, c.max_code);
  LaneCounts<DI> counts(di);
  const VI sat_below = saturation_bound(di, c);
  const std::size_t N = hn::Lanes(di);
  const LeanBounds<DI> lean_e8m0(di, RneMagnitude<F, DI>::kMinNormal, BlockOp::e8m0_exact, c),
      lean_mul(di, RneMagnitude<F, DI>::kMinNormal, BlockOp::multiply, c);
  LeanGuess guess;  // as in fused_rows_rne, with the bound on |y| checked in the block (kCheckMax)
  // the lean rules of op Op for a whole-vector block (true: done), else the full rule's status in st
  auto block = [&]<BlockOp Op>(const LeanBounds<DI>& lean, const float* xb, std::size_t m, float sc, std::uint8_t* ob)
                   HWY_ATTR -> std::uint8_t {
    if (m % N == 0) {
      if (guess.try_normal()) {
        if (guess.saw(encode_block_lean<F, Op, 0, true>(di, magnitude, lean, xb, m, sc, ob, counts.fl)) == 0) return 0;
      }
      if (guess.try_subnormal()) {
        if (guess.saw(encode_block_lean<F, Op, 1, true>(di, magnitude, lean, xb, m, sc, ob, counts.fl)) <= 1) return 0;
      }
    }
    VI min_ay = hn::Set(di, 0x7fffffff), max_ay = hn::Zero(di);
    const std::uint8_t st =
        encode_block_rne<F, Op>(di, magnitude, xb, m, sc, sat_below, ob, counts.sat, counts.fl, &min_ay, &max_ay);
    // a block that reached ovf_min predicts the full rule for the next (no lean pass wasted on a run of them)
    guess.saw(!hn::AllFalse(di, hn::Gt(max_ay, lean.below_ovf)) ? 2 : lean_class(di, lean, min_ay));
    return st;
  };
  std::size_t j = 0;
  for (std::size_t s = 0, len = first; s < n; s += len, len = bs, ++j) {
    const std::size_t m = n - s < len ? n - s : len;
    const RowBlock b = blocks[j];
    counts.before_block(di, m);
    std::uint8_t st = 0;
    switch (b.op) {
      case BlockOp::e8m0_exact:
        st = block.template operator()<BlockOp::e8m0_exact>(lean_e8m0, x + s, m, b.s, codes + s);
        break;
      case BlockOp::multiply:
        st = block.template operator()<BlockOp::multiply>(lean_mul, x + s, m, b.s, codes + s);
        break;
      case BlockOp::divide:
        st = encode_block_rne<F, BlockOp::divide>(di, magnitude, x + s, m, b.s, sat_below, codes + s, counts.sat,
                                                  counts.fl);
        break;
      case BlockOp::skip: st = 1; break;  // the caller's
    }
    status[j] = st;
  }
  return counts.sum(di);
}

/// The magnitude bits max |x| of each block (blocks as simd::absmax_blocks: first, bs, cut at n) into
/// out[j]; returns the number of blocks (PrefetchAhead within the n elements).
inline std::size_t AbsmaxBlocks(const float* HWY_RESTRICT x, std::size_t n, std::size_t first, std::size_t bs,
                                std::uint32_t* HWY_RESTRICT out) {
  if (bs == 1 && first == 1) {  // blocks of one element (column tiles): each |x|, no reduction
    const hn::ScalableTag<std::uint32_t> du;
    const std::size_t N = hn::Lanes(du);
    const auto* xb = reinterpret_cast<const std::uint32_t*>(x);
    std::size_t k = 0;
    for (; k + N <= n; k += N) hn::StoreU(hn::And(hn::LoadU(du, xb + k), hn::Set(du, 0x7fffffffu)), du, out + k);
    for (; k < n; ++k) out[k] = xb[k] & 0x7fffffffu;
    return n;
  }
  PrefetchAhead ahead{x, n};
  std::size_t j = 0;
  for (std::size_t s = 0, len = first; s < n; s += len, len = bs, ++j) {
    const std::size_t m = n - s < len ? n - s : len;
    ahead.upto(s + m);
    out[j] = block_max_bits(x + s, m);
  }
  return j;
}

/// simd::absmax_columns (quant_simd.hpp): acc[j] = max(acc[j], |x_j| bits) over non-NaN x_j, nan[j] |= 1
/// for a NaN x_j.
inline void AbsmaxColumns(const float* HWY_RESTRICT x, std::size_t n, std::uint32_t* HWY_RESTRICT acc,
                          std::uint32_t* HWY_RESTRICT nan) {
  const hn::ScalableTag<std::uint32_t> du;
  const std::size_t N = hn::Lanes(du);
  const auto* xb = reinterpret_cast<const std::uint32_t*>(x);
  const auto abs_mask = hn::Set(du, 0x7fffffffu), inf = hn::Set(du, 0x7f800000u), one = hn::Set(du, 1u);
  std::size_t k = 0;
  for (; k + N <= n; k += N) {
    const auto a = hn::And(hn::LoadU(du, xb + k), abs_mask);
    const auto is_nan = hn::Gt(a, inf);
    hn::StoreU(hn::Max(hn::LoadU(du, acc + k), hn::IfThenZeroElse(is_nan, a)), du, acc + k);
    hn::StoreU(hn::Or(hn::LoadU(du, nan + k), hn::IfThenElseZero(is_nan, one)), du, nan + k);
  }
  for (; k < n; ++k) {
    const std::uint32_t a = xb[k] & 0x7fffffffu;
    if (a > 0x7f800000u) nan[k] = 1;
    else if (a > acc[k]) acc[k] = a;
  }
}

/// The scale code and element multiplier of a plain block (FusedScale, quant_simd.hpp).
template <FusedScale::Kind K>
HWY_INLINE std::uint8_t fused_scale(const FusedScale& fs, std::uint32_t amax, float& s) {
  if constexpr (K == FusedScale::Kind::e8m0) {
    const int e = fs.e8m0->exponent(amax);
    s = pow2_neg(e);
    return static_cast<std::uint8_t>(e + 127);
  } else if constexpr (K == FusedScale::Kind::ue5m3) {  // ue5m3_block_scale_of (core/block_scale.hpp), divisor by table
    const std::uint8_t code = ue5m3_block_scale_code(fmul_rn(std::bit_cast<float>(amax), fs.ue5m3_rcp_max), fs.ue5m3_g);
    s = fs.ue5m3_div[code];
    return code;
  } else {
    const std::uint8_t code = nvfp4_scale_code(*fs.nvfp4_table, std::bit_cast<float>(amax), fs.nvfp4_factor);
    s = fs.nvfp4_enc != nullptr ? fs.nvfp4_enc[code]  // amax-scope row: the row's multiplier per block
                                : detail::fmin_flt_max(frcp_rn(fmul_rn(fs.e4m3_values[code], fs.nvfp4_rcp_senc)));
    return code;
  }
}

/// The maxima pass of the fused rows (fused_rows_rne, FusedRowsInt8): up to kGroup blocks from s (the first of
/// length len, then bs), their starts in start[0…g) and start[g] = their end, and the bits of each block's max |x| in
/// amax; advances s and len past them and returns g.
template <std::size_t kGroup>
HWY_INLINE std::size_t group_maxima(const float* HWY_RESTRICT x, std::size_t n, std::size_t bs, std::size_t lanes,
                                    PrefetchAhead& ahead, std::size_t& s, std::size_t& len,
                                    std::size_t (&start)[kGroup + 1], std::uint32_t (&amax)[kGroup]) {
  std::size_t g = 0;
  if (len == bs && bs % lanes == 0 && n - s >= kGroup * bs) {  // kGroup whole blocks of whole vectors
    ahead.upto(s + kGroup * bs);
    for (; g < kGroup; ++g, s += bs) {
      start[g] = s;
      amax[g] = whole_block_max_bits(x + s, bs);
    }
  }
  for (; g < kGroup && s < n; ++g, s += len, len = bs) {
    const std::size_t m = n - s < len ? n - s : len;
    ahead.upto(s + m);
    start[g] = s;
    amax[g] = block_max_bits(x + s, m);
  }
  start[g] = s < n ? s : n;
  return g;
}

/// simd::fused_rows_rne (quant_simd.hpp) for target F and scale kind K.
template <const RneFormat& F, FusedScale::Kind K>
HWY_INLINE RunCounts fused_rows_rne(const QuantRne& c, const FusedScale& fs, const float* HWY_RESTRICT x, std::size_t n,
                                    std::size_t readable, std::size_t first, std::size_t bs,
                                    std::uint8_t* HWY_RESTRICT scale_codes, std::size_t scale_stride,
                                    std::uint8_t* HWY_RESTRICT codes, std::uint8_t* HWY_RESTRICT status) {
  constexpr BlockOp kOp = K == FusedScale::Kind::e8m0 ? BlockOp::e8m0_exact : BlockOp::multiply;
  using DI = hn::ScalableTag<std::int32_t>;
  const DI di;
  using VI = hn::Vec<DI>;
  const RneMagnitude<F, DI> magnitude(di, c.max_code);
  LaneCounts<DI> counts(di);
  const VI sat_below = saturation_bound(di, c);
  PrefetchAhead ahead{x, readable};
  const std::size_t N = hn::Lanes(di);
  const LeanBounds<DI> bounds(di, RneMagnitude<F, DI>::kMinNormal, kOp, c);
  LeanGuess guess;  // which rule to try first
  // kGroup blocks at a time in three passes (the maxima, the scale steps, the elements), so that the
  // blocks' reductions and table steps do not wait on each other (the group stays in L1).
  constexpr std::size_t kGroup = 32;
  std::uint32_t amax[kGroup];
  float scale[kGroup];
  std::size_t start[kGroup + 1];
  std::size_t j0 = 0;
  for (std::size_t s0 = 0, len0 = first; s0 < n; j0 += kGroup) {
    std::size_t s = s0, len = len0;
    const std::size_t g = group_maxima<kGroup>(x, n, bs, N, ahead, s, len, start, amax);
    for (std::size_t k = 0; k < g; ++k) {
      if (amax[k] < fs.amax_min || amax[k] >= 0x7f800000u) {  // not plain (NaN bits are above +Inf's)
        status[j0 + k] = 3;
        continue;
      }
      const std::uint8_t code = fused_scale<K>(fs, amax[k], scale[k]);
      if constexpr (K == FusedScale::Kind::ue5m3) {
        if (!(scale[k] != 0.0f)) {  // a zero divisor: the per-tile path's zero elements
          status[j0 + k] = 3;
          continue;
        }
      }
      status[j0 + k] = 0;
      scale_codes[(j0 + k) * scale_stride] = code;
    }
    for (std::size_t k = 0; k < g; ++k) {
      ahead.during(start[k + 1], kGroup * bs);
      if (status[j0 + k] != 0) continue;
      const std::size_t m = start[k + 1] - start[k];
      counts.before_block(di, m);
      const float* xb = x + start[k];
      std::uint8_t* ob = codes + start[k];
      // ue5m3: fl32(x / divisor) by the full rule, always (no lean rule divides; kOp's lean code below is not reached)
      if constexpr (K == FusedScale::Kind::ue5m3) {
        status[j0 + k] =
            encode_block_rne<F, BlockOp::divide>(di, magnitude, xb, m, scale[k], sat_below, ob, counts.sat, counts.fl);
        continue;
      }
      // the lean rules (encode_block_lean) when fl32(amax · s), the block's largest |y|, is below ovf_min
      // the first tried is LeanGuess's, then the next, then the full rule
      // (kRule 2, which counts the saturated, when that max may reach ovf_min but is finite)
      const std::uint32_t ymax = std::bit_cast<std::uint32_t>(std::bit_cast<float>(amax[k]) * scale[k]);
      if (m % N == 0 && ymax < 0x7f800000u) {
        const bool below = ymax < c.ovf_min;
        if (guess.try_normal() && below) {
          if (guess.saw(encode_block_lean<F, kOp, 0>(di, magnitude, bounds, xb, m, scale[k], ob, counts.fl)) == 0)
            continue;
        }
        if (guess.try_subnormal()) {
          const int cls =
              below ? encode_block_lean<F, kOp, 1>(di, magnitude, bounds, xb, m, scale[k], ob, counts.fl)
                    : encode_block_lean<F, kOp, 2>(di, magnitude, bounds, xb, m, scale[k], ob, counts.fl, &counts.sat);
          if (guess.saw(cls) <= 1) continue;
        }
      }
      VI min_ay = hn::Set(di, 0x7fffffff);
      status[j0 + k] =
          encode_block_rne<F, kOp>(di, magnitude, xb, m, scale[k], sat_below, ob, counts.sat, counts.fl, &min_ay);
      guess.saw(lean_class(di, bounds, min_ay));
    }
    s0 = s;
    len0 = len;
  }
  return counts.sum(di);
}

template <const RneFormat& F>
HWY_INLINE RunCounts fused_rows_rne_of(const QuantRne& c, const FusedScale& fs, const float* x, std::size_t n,
                                       std::size_t readable, std::size_t first, std::size_t bs,
                                       std::uint8_t* scale_codes, std::size_t scale_stride, std::uint8_t* codes,
                                       std::uint8_t* status) {
  if (fs.kind == FusedScale::Kind::e8m0)
    return fused_rows_rne<F, FusedScale::Kind::e8m0>(c, fs, x, n, readable, first, bs, scale_codes, scale_stride, codes,
                                                     status);
  if (fs.kind == FusedScale::Kind::ue5m3)
    return fused_rows_rne<F, FusedScale::Kind::ue5m3>(c, fs, x, n, readable, first, bs, scale_codes, scale_stride,
                                                      codes, status);
  return fused_rows_rne<F, FusedScale::Kind::nvfp4>(c, fs, x, n, readable, first, bs, scale_codes, scale_stride, codes,
                                                    status);
}

inline RunCounts FusedRowsRne(const QuantRne& c, const FusedScale& fs, const float* x, std::size_t n,
                              std::size_t readable, std::size_t first, std::size_t bs, std::uint8_t* scale_codes,
                              std::size_t scale_stride, std::uint8_t* codes, std::uint8_t* status) {
  switch (c.kind) {
    case RneKind::e4m3fn:
      return fused_rows_rne_of<kRneE4m3fn>(c, fs, x, n, readable, first, bs, scale_codes, scale_stride, codes, status);
    case RneKind::e5m2:
      return fused_rows_rne_of<kRneE5m2>(c, fs, x, n, readable, first, bs, scale_codes, scale_stride, codes, status);
    case RneKind::e2m1fn:
      return fused_rows_rne_of<kRneE2m1fn>(c, fs, x, n, readable, first, bs, scale_codes, scale_stride, codes, status);
    case RneKind::e2m3fn:
      return fused_rows_rne_of<kRneE2m3fn>(c, fs, x, n, readable, first, bs, scale_codes, scale_stride, codes, status);
    case RneKind::e3m2fn:
      return fused_rows_rne_of<kRneE3m2fn>(c, fs, x, n, readable, first, bs, scale_codes, scale_stride, codes, status);
    default: break;
  }
  return {};
}

/// One vector of a candidate of simd::fused_rows_4over6: y = fl32(x · enc) by the rne kernel's lane rule (E2M1,
/// kRneE2m1fn) to codes (returned); the lanes' saturated and flushed counts (as encode_block_rne counts them) added to
/// sat and fl; max |y| bits into vmax; the error terms into `term`: val the entry of the code's magnitude m in the
/// candidate's row `tab` of FourOverSixRows::val (8 entries, 8 readable after them) with the code's sign (each
/// operation of val rounds symmetrically: val(−q) = −val(q)), d = fl32(val − x), then fl32(d · d) (kMse) or |d|.
template <bool kMse, class DI>
HWY_INLINE hn::Vec<DI> fourover6_lanes(DI di, const RneMagnitude<kRneE2m1fn, DI>& magnitude, hn::Vec<DI> sat_below,
                                       hn::Vec<hn::RebindToFloat<DI>> xf, float enc, const float* HWY_RESTRICT tab,
                                       std::uint32_t& sat, std::uint32_t& fl, hn::Vec<DI>& vmax,
                                       float* HWY_RESTRICT term) {
  using VI = hn::Vec<DI>;
  const hn::RebindToFloat<DI> df;
  constexpr std::size_t kN = hn::MaxLanes(df);
  const VI abs_mask = hn::Set(di, 0x7fffffff);
  const VI yi = hn::BitCast(di, hn::Mul(xf, hn::Set(df, enc)));
  const VI ay = hn::And(yi, abs_mask);
  vmax = hn::Max(vmax, ay);
  const VI mag = magnitude(ay);
  const VI code = with_sign<kRneE2m1fn>(di, mag, yi);
  sat += static_cast<std::uint32_t>(hn::CountTrue(di, hn::Gt(ay, sat_below)));
  const auto x_zero = hn::Eq(hn::And(hn::BitCast(di, xf), abs_mask), hn::Zero(di));
  fl += static_cast<std::uint32_t>(hn::CountTrue(di, hn::AndNot(x_zero, hn::Eq(mag, hn::Zero(di)))));
  hn::Vec<decltype(df)> val;
  if constexpr (kN >= 8) {  // the 8 entries in the vector's first lanes (m ≤ 7)
    val = hn::TableLookupLanes(hn::LoadU(df, tab), hn::IndicesFromVec(df, mag));
  } else {
    val = hn::GatherIndex(df, tab, mag);
  }
  val = hn::BitCast(df, hn::Xor(hn::BitCast(di, val), hn::ShiftLeft<28>(hn::And(code, hn::Set(di, 8)))));
  const auto d = hn::Sub(val, xf);
  hn::StoreU(kMse ? hn::Mul(d, d) : hn::Abs(d), df, term);
  return code;
}

#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
// GCC 12's avx512fintrin.h seeds transpose16x16's shuffles with _mm512_undefined_*: a false -Wmaybe-uninitialized
// (GCC PR 105593), silenced for this function only (clang has no such warning group)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// The 16 × 16 transpose of r (row l: r[l], 16 floats): afterwards lane l of r[i] holds what lane i of r[l] held.
/// Interleaves of 32- then 64-bit lanes within 128-bit blocks give, for each column c of a 4 × 4 sub-block, the
/// column's 4 rows per 128-bit block; two shuffles of 128-bit blocks then gather each column's 4 blocks (64 shuffles).
HWY_INLINE void transpose16x16(__m512 (&r)[16]) {
  __m512 t[16], u[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int m = 0; m < 16; m += 4) {  // u[m + c]: 128-bit block q holds column 4q + c of rows m..m+3
    const auto pd = [](__m512 v) { return _mm512_castps_pd(v); };
    u[m] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[m]), pd(t[m + 2])));
    u[m + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[m]), pd(t[m + 2])));
    u[m + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[m + 1]), pd(t[m + 3])));
    u[m + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[m + 1]), pd(t[m + 3])));
  }
  for (int c = 0; c < 4; ++c) {  // the 4 × 4 transpose of 128-bit blocks of u[c], u[4 + c], u[8 + c], u[12 + c]
    const __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44), v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xee);
    const __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44),
                 v3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xee);
    r[c] = _mm512_shuffle_f32x4(v0, v2, 0x88);
    r[4 + c] = _mm512_shuffle_f32x4(v0, v2, 0xdd);
    r[8 + c] = _mm512_shuffle_f32x4(v1, v3, 0x88);
    r[12 + c] = _mm512_shuffle_f32x4(v1, v3, 0xdd);
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/// simd::fused_rows_4over6 (quant_simd.hpp): per group of kGroup blocks the maxima (group_maxima), then per plain
/// block of 16 both candidates' codes and error terms in vectors (fourover6_lanes), then the group's sums — each
/// candidate's 16 terms one binary32 add at a time in the order i = 0..15 (the engine's order, no other association),
/// with the blocks across the lanes (AVX-512: the terms of 16 blocks transposed in registers; else gathered) — then
/// per block the pick (err4 < err6) and the kept candidate's codes and counts.
template <bool kMse>
HWY_INLINE RunCounts fused_rows_4over6(const QuantRne& c, const FourOverSixRows& fs, const float* HWY_RESTRICT x,
                                       std::size_t n, std::size_t readable, std::size_t first, std::size_t bs,
                                       std::uint8_t* HWY_RESTRICT scale_codes, std::uint8_t* HWY_RESTRICT select,
                                       std::uint8_t* HWY_RESTRICT codes, std::uint8_t* HWY_RESTRICT status) {
  using DI = hn::ScalableTag<std::int32_t>;
  const DI di;
  using VI = hn::Vec<DI>;
  const hn::RebindToFloat<DI> df;
  const RneMagnitude<kRneE2m1fn, DI> magnitude(di, c.max_code);
  const VI sat_below = saturation_bound(di, c);
  PrefetchAhead ahead{x, readable};
  const std::size_t N = hn::Lanes(di);
  constexpr std::size_t kGroup = 32, kB = 16;
  std::uint32_t amax[kGroup];
  std::size_t start[kGroup + 1];
  // per block k of the group and candidate (0: map-to-6, 1: map-to-4): its error terms, codes, counts, scale code;
  // the terms of blocks that are not plain hold whatever was there (their sums are not read), never uninitialised
  alignas(64) float term[2][kGroup][kB] = {};
  alignas(64) float err[2][kGroup];
  alignas(64) std::uint8_t out[2][kGroup][kB];
  std::uint32_t sat[2][kGroup], fl[2][kGroup];
  std::uint8_t code[2][kGroup];
  const auto term_index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<std::int32_t>(kB)));
  RunCounts rc;
  std::size_t j0 = 0;
  for (std::size_t s0 = 0, len0 = first; s0 < n; j0 += kGroup) {
    std::size_t s = s0, len = len0;
    const std::size_t g = group_maxima<kGroup>(x, n, bs, N, ahead, s, len, start, amax);
    for (std::size_t k = 0; k < g; ++k) {  // both candidates' codes and error terms
      ahead.during(start[k + 1], kGroup * bs);
      if (amax[k] < 0x00800000u || amax[k] >= 0x7f800000u || start[k + 1] - start[k] != kB) {
        status[j0 + k] = 3;  // not plain, or a short block: the caller's
        continue;
      }
      const float base = fmul_rn(fdiv_rn(std::bit_cast<float>(amax[k]), 6.0f), fs.s_enc);
      const std::uint32_t b4 = std::bit_cast<std::uint32_t>(fmul_rn(base, 1.5f));
      code[0][k] =
          static_cast<std::uint8_t>(fs.e4m3->entry[encode_key(std::bit_cast<std::uint32_t>(base), fs.e4m3->drop)]);
      code[1][k] = static_cast<std::uint8_t>(fs.e4m3->entry[encode_key(b4, fs.e4m3->drop)]);
      VI vmax = hn::Zero(di);
      for (int cand = 0; cand < 2; ++cand) sat[cand][k] = fl[cand][k] = 0;
      for (std::size_t v = 0; v < kB; v += N) {
        const auto xf = hn::LoadU(df, x + start[k] + v);
        for (int cand = 0; cand < 2; ++cand) {
          const std::uint8_t cc = code[cand][k];
          store_bytes(di,
                      fourover6_lanes<kMse>(di, magnitude, sat_below, xf, fs.enc[cc], fs.val + 8 * cc, sat[cand][k],
                                            fl[cand][k], vmax, &term[cand][k][v]),
                      &out[cand][k][v]);
        }
      }
      // a product overflowed: the caller's
      status[j0 + k] = !hn::AllFalse(di, hn::Gt(vmax, hn::Set(di, 0x7f7fffff))) ? 3 : 0;
    }
    // each block's two sums, one binary32 add at a time in the order i = 0..15 (the engine's order, no other
    // association), N blocks at a time: lane l of a vector is block k0 + l, so the 16 adds of a block's sum are the
    // 16 vertical adds (one block's 32 dependent scalar adds, summed block by block, waited on each other: a fifth of
    // the kernel's time)
    for (std::size_t k0 = 0; k0 < g; k0 += N)
      for (int cand = 0; cand < 2; ++cand) {
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
        static_assert(hn::MaxLanes(DI()) == kB);
        __m512 col[kB];  // 16 blocks' terms, transposed: lane l of col[i] is term i of block k0 + l
        for (std::size_t l = 0; l < kB; ++l) col[l] = _mm512_load_ps(&term[cand][k0 + l][0]);
        transpose16x16(col);
        __m512 acc = _mm512_setzero_ps();  // +0, as the scalar sum starts
        for (std::size_t i = 0; i < kB; ++i) acc = _mm512_add_ps(acc, col[i]);
        _mm512_store_ps(&err[cand][k0], acc);
#else
        auto acc = hn::Zero(df);  // +0, as the scalar sum starts
        for (std::size_t i = 0; i < kB; ++i) acc = hn::Add(acc, hn::GatherIndex(df, &term[cand][k0][i], term_index));
        hn::Store(acc, df, &err[cand][k0]);
#endif
      }
    for (std::size_t k = 0; k < g; ++k) {
      if (status[j0 + k] != 0) continue;
      const int pick = err[1][k] < err[0][k] ? 1 : 0;  // map-to-4 only if strictly smaller (ties, NaN: map-to-6)
      std::memcpy(codes + start[k], out[pick][k], kB);
      scale_codes[j0 + k] = code[pick][k];
      select[j0 + k] = static_cast<std::uint8_t>(pick);
      rc.saturated += sat[pick][k];
      rc.flushed += fl[pick][k];
    }
    s0 = s;
    len0 = len;
  }
  return rc;
}
inline RunCounts FusedRows4over6(const QuantRne& c, const FourOverSixRows& fs, const float* x, std::size_t n,
                                 std::size_t readable, std::size_t first, std::size_t bs, std::uint8_t* scale_codes,
                                 std::uint8_t* select, std::uint8_t* codes, std::uint8_t* status) {
  if (fs.mse) return fused_rows_4over6<true>(c, fs, x, n, readable, first, bs, scale_codes, select, codes, status);
  return fused_rows_4over6<false>(c, fs, x, n, readable, first, bs, scale_codes, select, codes, status);
}

/// The arithmetic MXINT8 element rule (QuantInt8, quant_simd.hpp; rne only), per lane of binary32 bits yi of a
/// finite y: k = bits(fl32(min(|y|, 4) + 2^17)) − bits(2^17) — ulp(2^17) = 2^−6 is the grid's quantum, so the FPU's
/// round to nearest even rounds |y|·64 to the integer k (core/block_scale.hpp mxint8_grid); |y| ≥ 4 is beyond every
/// int8 magnitude and the min keeps the sum below 2^18 —, lim = 127 for a y with a clear sign bit and
/// QuantInt8::neg_limit (128 two's complement, 127 symmetric) for one with the sign bit set; saturated when
/// k > lim; the code is the two's-complement byte of ±min(k, lim) (−0 and a negative that rounds to 0 give 0).
template <class DI>
struct Int8Lane {
  using VI = hn::Vec<DI>;
  VI four, magic, pos_lim, neg_lim, byte;
  HWY_INLINE Int8Lane(DI di, const QuantInt8& c)
      : four(hn::Set(di, 0x40800000)),
        magic(hn::Set(di, 0x48000000)),  // 2^17
        pos_lim(hn::Set(di, 127)),
        neg_lim(hn::Set(di, static_cast<std::int32_t>(c.neg_limit))),
        byte(hn::Set(di, 0xff)) {}
  /// The code of yi (|y| bits ay); sat: saturated lanes; zero: lanes whose code is 0.
  HWY_INLINE VI operator()(DI di, VI yi, VI ay, hn::Mask<DI>& sat, hn::Mask<DI>& zero) const {
    const hn::RebindToFloat<DI> df;
    const VI ac = hn::Min(ay, four);
    const VI k = hn::Sub(hn::BitCast(di, hn::Add(hn::BitCast(df, ac), hn::BitCast(df, magic))), magic);
    const auto neg = hn::Lt(yi, hn::Zero(di));
    const VI lim = hn::IfThenElse(neg, neg_lim, pos_lim);
    sat = hn::Gt(k, lim);
    const VI kc = hn::Min(k, lim);
    zero = hn::Eq(kc, hn::Zero(di));
    const VI s = hn::VecFromMask(di, neg);  // −1 in the negative lanes: (kc ^ s) − s = −kc
    return hn::And(hn::Sub(hn::Xor(kc, s), s), byte);
  }
};

/// One block of m < 2^31 MXINT8 elements with scale s by operation Op (e8m0_exact, multiply or divide), by
/// Int8Lane: codes to o, its counts added to sat/fl only when it returns status 0; the status as encode_block_rne's
/// (2: a non-finite y; 1: e8m0_exact with a nonzero x whose |y| < 2^−126; else 0). Lanes past the block's end are
/// loaded as +0 (nothing counted).
template <BlockOp Op, class DI>
HWY_INLINE std::uint8_t encode_block_int8(DI di, const Int8Lane<DI>& rule, const float* HWY_RESTRICT x, std::size_t m,
                                          float s, std::uint8_t* HWY_RESTRICT o, hn::Vec<DI>& sat, hn::Vec<DI>& fl) {
  using VI = hn::Vec<DI>;
  const auto lane_rule = [&](VI yi, VI ay, hn::Mask<DI>& lsat, hn::Mask<DI>& lzero)
                             HWY_ATTR { return rule(di, yi, ay, lsat, lzero); };
  return encode_block_lanes<Op>(di, lane_rule, x, m, s, o, sat, fl);
}

/// simd::encode_blocks (quant_simd.hpp) of an MXINT8 kernel with QuantInt8 on, blocks of more than one element:
/// status[j] as encode_block_int8's (1 for skip).
inline RunCounts EncodeBlocksInt8(const QuantInt8& c, const float* HWY_RESTRICT x, std::size_t n, std::size_t first,
                                  std::size_t bs, const RowBlock* HWY_RESTRICT blocks, std::uint8_t* HWY_RESTRICT codes,
                                  std::uint8_t* HWY_RESTRICT status) {
  using DI = hn::ScalableTag<std::int32_t>;
  const DI di;
  const Int8Lane<DI> rule(di, c);
  LaneCounts<DI> counts(di);
  std::size_t j = 0;
  for (std::size_t s = 0, len = first; s < n; s += len, len = bs, ++j) {
    const std::size_t m = n - s < len ? n - s : len;
    const RowBlock b = blocks[j];
    counts.before_block(di, m);
    std::uint8_t st = 1;  // skip: the caller's
    switch (b.op) {
      case BlockOp::e8m0_exact:
        st = encode_block_int8<BlockOp::e8m0_exact>(di, rule, x + s, m, b.s, codes + s, counts.sat, counts.fl);
        break;
      case BlockOp::multiply:
        st = encode_block_int8<BlockOp::multiply>(di, rule, x + s, m, b.s, codes + s, counts.sat, counts.fl);
        break;
      case BlockOp::divide:
        st = encode_block_int8<BlockOp::divide>(di, rule, x + s, m, b.s, codes + s, counts.sat, counts.fl);
        break;
      case BlockOp::skip: break;
    }
    status[j] = st;
  }
  return counts.sum(di);
}

/// simd::fused_rows_rne (quant_simd.hpp) of an MXINT8 kernel with QuantInt8 on and E8M0 scales: the maxima and the
/// scale steps of fused_rows_rne in groups of blocks, then each plain block by encode_block_int8 (e8m0_exact).
inline RunCounts FusedRowsInt8(const QuantInt8& c, const FusedScale& fs, const float* HWY_RESTRICT x, std::size_t n,
                               std::size_t readable, std::size_t first, std::size_t bs,
                               std::uint8_t* HWY_RESTRICT scale_codes, std::size_t scale_stride,
                               std::uint8_t* HWY_RESTRICT codes, std::uint8_t* HWY_RESTRICT status) {
  using DI = hn::ScalableTag<std::int32_t>;
  const DI di;
  const Int8Lane<DI> rule(di, c);
  LaneCounts<DI> counts(di);
  PrefetchAhead ahead{x, readable};
  const std::size_t N = hn::Lanes(di);
  constexpr std::size_t kGroup = 32;
  std::uint32_t amax[kGroup];
  float scale[kGroup];
  std::size_t start[kGroup + 1];
  std::size_t j0 = 0;
  for (std::size_t s0 = 0, len0 = first; s0 < n; j0 += kGroup) {
    std::size_t s = s0, len = len0;
    const std::size_t g = group_maxima<kGroup>(x, n, bs, N, ahead, s, len, start, amax);
    for (std::size_t k = 0; k < g; ++k) {
      ahead.during(start[k + 1], kGroup * bs);
      if (amax[k] < fs.amax_min || amax[k] >= 0x7f800000u) {  // not plain (NaN bits are above +Inf's)
        status[j0 + k] = 3;
        continue;
      }
      scale_codes[(j0 + k) * scale_stride] = fused_scale<FusedScale::Kind::e8m0>(fs, amax[k], scale[k]);
      const std::size_t m = start[k + 1] - start[k];
      counts.before_block(di, m);
      status[j0 + k] = encode_block_int8<BlockOp::e8m0_exact>(di, rule, x + start[k], m, scale[k], codes + start[k],
                                                              counts.sat, counts.fl);
    }
    s0 = s;
    len0 = len;
  }
  return counts.sum(di);
}

/// The kernel of c.kind (simd/quant_simd.cpp's encode_blocks calls it only for a kind other than none).
inline RunCounts EncodeBlocksRne(const QuantRne& c, const float* x, std::size_t n, std::size_t first, std::size_t bs,
                                 const RowBlock* blocks, std::uint8_t* codes, std::uint8_t* status) {
  switch (c.kind) {
    case RneKind::e4m3fn: return encode_blocks_rne<kRneE4m3fn>(c, x, n, first, bs, blocks, codes, status);
    case RneKind::e5m2: return encode_blocks_rne<kRneE5m2>(c, x, n, first, bs, blocks, codes, status);
    case RneKind::e2m1fn: return encode_blocks_rne<kRneE2m1fn>(c, x, n, first, bs, blocks, codes, status);
    case RneKind::e2m3fn: return encode_blocks_rne<kRneE2m3fn>(c, x, n, first, bs, blocks, codes, status);
    case RneKind::e3m2fn: return encode_blocks_rne<kRneE3m2fn>(c, x, n, first, bs, blocks, codes, status);
    default: break;
  }
  return {};
}

/// simd::error_sums8 (quant_simd.hpp): the 8 lanes of each sum as 8 / Lanes vectors, each add one
/// binary64 operation in element order per lane (no contraction: Mul and Add are separate operations).
/// (x binary32 or binary64: a binary32 x is widened exactly.)
template <class X>
HWY_INLINE bool error_sums8(const X* HWY_RESTRICT x, const double* HWY_RESTRICT q, std::size_t m,
                            double* HWY_RESTRICT sig, double* HWY_RESTRICT noi, double* HWY_RESTRICT mx) {
  using D = hn::ScalableTag<double>;
  const D d;
  const hn::Rebind<X, D> dx;
  const hn::RebindToUnsigned<D> du;
  constexpr std::size_t N = hn::MaxLanes(D()), K = N >= 8 ? 1 : 8 / N;
  static_assert(N <= 8 && 8 % N == 0, "8 lanes as whole vectors");
  hn::Vec<D> vs[K], vn[K], vm[K];
  auto bad = hn::Zero(du);
  for (std::size_t j = 0; j < K; ++j) {
    vs[j] = hn::LoadU(d, sig + j * N);
    vn[j] = hn::LoadU(d, noi + j * N);
    vm[j] = hn::Set(d, *mx);
  }
  for (std::size_t k = 0; k < m; k += 8)
    for (std::size_t j = 0; j < K; ++j) {
      hn::Vec<D> xv;
      if constexpr (std::is_same_v<X, double>) xv = hn::LoadU(d, x + k + j * N);
      else xv = hn::PromoteTo(d, hn::LoadU(dx, x + k + j * N));
      const auto qv = hn::LoadU(d, q + k + j * N);
      const auto e = hn::Sub(xv, qv);
      vs[j] = hn::Add(vs[j], hn::Mul(xv, xv));
      vn[j] = hn::Add(vn[j], hn::Mul(e, e));
      vm[j] = hn::Max(vm[j], hn::Abs(e));
      // +0 for finite operands, NaN bits when either is Inf or NaN
      bad = hn::Or(bad, hn::BitCast(du, hn::Add(hn::Sub(xv, xv), hn::Sub(qv, qv))));
    }
  if (!hn::AllTrue(du, hn::Eq(bad, hn::Zero(du)))) return false;
  for (std::size_t j = 1; j < K; ++j) vm[0] = hn::Max(vm[0], vm[j]);
  for (std::size_t j = 0; j < K; ++j) {
    hn::StoreU(vs[j], d, sig + j * N);
    hn::StoreU(vn[j], d, noi + j * N);
  }
  *mx = hn::GetLane(hn::MaxOfLanes(d, vm[0]));
  return true;
}
/// simd::dequantize_run (quant_simd.hpp): out[i] = (Out) (lut[codes[i]] · s), the product in binary64 (one
/// Mul, no contraction) and, for a binary32 out, rounded by DemoteTo (to nearest even, as static_cast).
template <class Out>
HWY_INLINE void dequantize_run(const std::uint8_t* HWY_RESTRICT codes, std::size_t n, const double* HWY_RESTRICT lut,
                               double s, Out* HWY_RESTRICT out) {
  std::size_t k = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<double> dd;
  const hn::Rebind<std::int64_t, decltype(dd)> d64;
  const hn::Rebind<std::int32_t, decltype(dd)> d32;
  const hn::Rebind<std::uint8_t, decltype(dd)> d8;
  const std::size_t N = hn::Lanes(dd);
  const auto sv = hn::Set(dd, s);
  for (; k + N <= n; k += N) {
    const auto idx = hn::PromoteTo(d64, hn::PromoteTo(d32, hn::LoadU(d8, codes + k)));
    const auto v = hn::Mul(hn::GatherIndex(dd, lut, idx), sv);
    if constexpr (std::is_same_v<Out, double>) {
      hn::StoreU(v, dd, out + k);
    } else {
      const hn::Rebind<float, decltype(dd)> df;
      hn::StoreU(hn::DemoteTo(df, v), df, out + k);
    }
  }
#endif
  for (; k < n; ++k) out[k] = static_cast<Out>(lut[codes[k]] * s);
}
inline void DequantizeRunF64(const std::uint8_t* codes, std::size_t n, const double* lut, double s, double* out) {
  dequantize_run(codes, n, lut, s, out);
}
inline void DequantizeRunF32(const std::uint8_t* codes, std::size_t n, const double* lut, double s, float* out) {
  dequantize_run(codes, n, lut, s, out);
}

inline bool ErrorSums8F64(const double* x, const double* q, std::size_t m, double* sig, double* noi, double* mx) {
  return error_sums8(x, q, m, sig, noi, mx);
}
inline bool ErrorSums8F32(const float* x, const double* q, std::size_t m, double* sig, double* noi, double* mx) {
  return error_sums8(x, q, m, sig, noi, mx);
}

}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_QUANT_INL_H_
