// SPDX-License-Identifier: Apache-2.0
// core/tile_step.hpp: the one tile step of block quantization (issue 24, F1) — a tile's statistic,
// its scale under the scale rule and the special-block policies, and one element encoded under that
// scale. Header-only, host and device: the host tile loops (src/quant/), the SIMD rows' fallback
// tiles and the CUDA block body (cuda/blocks.hpp) all call these functions, so a policy or a scale
// rule is written once. The order of the special-block policies is the documented one
// (core/block_scale.hpp): NaN/Inf block, amax_epsilon, subnormal flush, zero block, then the rule.
// A source value is a binary32 or a binary64 (`T`); a binary32 takes the recipes' binary32
// operations as written (fmul_rn, fdiv_rn, the float overloads), a binary64 the exact forms of the
// same formulas (fl32_mul, fl32_div, the Unpacked overloads), which agree on every binary32 value.
#pragma once
#include <cfloat>
#include <cstdint>

#include "block_scale.hpp"

namespace minifloat {

/// A tile's statistic: the largest |x| over its non-NaN elements (an element, so exact in T; 0 for
/// a tile of NaNs only), and whether a NaN or an ±Inf is among them. Order-free: add() and merge()
/// give the same statistic for any order and any split of the elements.
template <class T>
struct TileStat {
  T amax = 0;
  bool nan = false, inf = false;
  template <class X>
  MINIFLOAT_HOST_DEVICE void add(X x) noexcept;
  MINIFLOAT_HOST_DEVICE void merge(const TileStat& o) noexcept {
    nan = nan || o.nan;
    inf = inf || o.inf;
    if (o.amax > amax) amax = o.amax;
  }
};

namespace detail {
// Classification and exact operations of the two source types, on the bits (no <cmath>).
MINIFLOAT_HOST_DEVICE inline bool src_is_nan(float x) noexcept {
  return (bit_cast<std::uint32_t>(x) & 0x7fffffffu) > 0x7f800000u;
}
MINIFLOAT_HOST_DEVICE inline bool src_is_nan(double x) noexcept {
  return (bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
MINIFLOAT_HOST_DEVICE inline bool src_is_inf(float x) noexcept { return f32_is_inf(x); }
MINIFLOAT_HOST_DEVICE inline bool src_is_inf(double x) noexcept {
  return (bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull;
}
MINIFLOAT_HOST_DEVICE inline float src_abs(float x) noexcept {
  return bit_cast<float>(bit_cast<std::uint32_t>(x) & 0x7fffffffu);
}
MINIFLOAT_HOST_DEVICE inline double src_abs(double x) noexcept {
  return bit_cast<double>(bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffull);
}
/// ±0 with the sign of x (std::copysign(0, x)).
MINIFLOAT_HOST_DEVICE inline float src_signed_zero(float x) noexcept {
  return bit_cast<float>(bit_cast<std::uint32_t>(x) & 0x80000000u);
}
MINIFLOAT_HOST_DEVICE inline double src_signed_zero(double x) noexcept {
  return bit_cast<double>(bit_cast<std::uint64_t>(x) & 0x8000000000000000ull);
}
MINIFLOAT_HOST_DEVICE inline Unpacked src_exact(float x) noexcept { return exact_f32(x); }
MINIFLOAT_HOST_DEVICE inline Unpacked src_exact(double x) noexcept { return exact_f64(x); }
/// fl32(x · s) and fl32(x / s) of a source value x and a binary32 scale s.
MINIFLOAT_HOST_DEVICE inline float src_mul32(float x, float s) noexcept { return fmul_rn(x, s); }
MINIFLOAT_HOST_DEVICE inline float src_mul32(double x, float s) noexcept {
  return fl32_mul(exact_f64(x), exact_f32(s));
}
MINIFLOAT_HOST_DEVICE inline float src_div32(float x, float s) noexcept { return fdiv_rn(x, s); }
MINIFLOAT_HOST_DEVICE inline float src_div32(double x, float s) noexcept {
  return fl32_div(exact_f64(x), exact_f32(s));
}
// The rule steps on a source-typed amax: the float overloads for binary32, the exact ones for binary64.
MINIFLOAT_HOST_DEVICE inline int src_e8m0_exponent(ScaleRule r, float amax, ElementType el) noexcept {
  return e8m0_exponent(r, amax, el);
}
MINIFLOAT_HOST_DEVICE inline int src_e8m0_exponent(ScaleRule r, double amax, ElementType el) noexcept {
  return e8m0_exponent(r, exact_f64(amax), el);
}
MINIFLOAT_HOST_DEVICE inline Fp32Scale src_fp32_scale(float amax, float m, ScaleRule r, Fp32ScaleOrder o) noexcept {
  return fp32_scale(amax, m, r, 0.0f, o);
}
MINIFLOAT_HOST_DEVICE inline Fp32Scale src_fp32_scale(double amax, float m, ScaleRule r, Fp32ScaleOrder o) noexcept {
  return fp32_scale(exact_f64(amax), m, r, 0.0f, o);
}
}  // namespace detail

template <class T>
template <class X>
MINIFLOAT_HOST_DEVICE void TileStat<T>::add(X x) noexcept {
  if (detail::src_is_nan(x)) {
    nan = true;
    return;
  }
  if (detail::src_is_inf(x)) inf = true;
  const T m = static_cast<T>(detail::src_abs(x));  // X → T exact (float → float or double)
  if (m > amax) amax = m;
}

/// The scale of one tile, as its elements need it and as it is stored.
struct TileScale {
  enum class Kind : std::uint8_t {
    nan_block,  ///< every element is the element NaN code (element_nan_code)
    e8m0,       ///< elements x · 2^−e
    nvfp4,      ///< elements fl32(x · enc) (or x · enc rounded once: Fp32ScaleOrder::exact)
    fp32,       ///< elements fl32(x · enc), fl32(x / dec) (divide), or x · enc rounded once (exact)
  } kind = Kind::e8m0;
  int e = 0;                     ///< E8M0 exponent (Kind::e8m0)
  float enc = 1.0f, dec = 1.0f;  ///< FP32 / NVFP4 multipliers
  bool divide = false;           ///< Fp32ScaleOrder::divide: y = fl32(x / dec)
  bool flush = false;            ///< SubnormalAmax::flush_block zeroed the tile: finite x read as ±0
  /// nvfp4 with Fp32ScaleOrder::exact where TE's multiplier clamp fires (nvfp4_multiplier_overflows):
  /// the divisor nvfp4_block_decode_product, elements x / it rounded once; 0 otherwise (x · enc).
  float exact_divisor = 0.0f;
  /// UE5M3 rules (nvfp4_v2, nvfp4_v2_gs) whose element divisor is 0: every element is +0 (auto-round's
  /// torch.where(dequant_scale == 0, 0, x / dequant_scale), nvfp.py:210-214).
  bool zero_elements = false;
  /// What is stored for the tile: the scale code of a coded rule (E8M0: e + 127, 0xff for a NaN
  /// scale; nvfp4: the e4m3fn block scale, 0x7f for a NaN block) — or the FP32 decode scale of an
  /// FP32 rule (NaN for a NaN block, 0 for ZeroBlock::nan: y = 0/0).
  std::uint8_t code = 0;
  float scale = 1.0f;
};

/// NVFP4's block steps as the core computes them (nvfp4_block_scale_code, nvfp4_element_encode_scale).
/// A caller may pass its own with the same results (the host's fast path reads tables).
struct Nvfp4BlockSteps {
  template <class T>
  MINIFLOAT_HOST_DEVICE std::uint8_t code(T amax, float s_enc, float elem_max) const noexcept {
    if constexpr (sizeof(T) == sizeof(float)) return nvfp4_block_scale_code(amax, s_enc, elem_max);
    else return nvfp4_block_scale_code(detail::exact_f64(amax), s_enc, elem_max);
  }
  MINIFLOAT_HOST_DEVICE float encode_scale(std::uint8_t code, float s_enc) const noexcept {
    return nvfp4_element_encode_scale(code, s_enc);
  }
};

/// What the tile step needs of a scheme: the rule, the element, the policies, NVFP4's tensor encode
/// scale S_enc (nvfp4_global_encode_scale; unused by other rules), and the element's largest finite
/// magnitude in binary32 (element_max, computed once: make_tile_rule).
struct TileRule {
  ScaleRule rule = ScaleRule::ocp_floor;
  ElementType element = elements::e4m3fn;
  BlockPolicy policy{};
  float s_enc = 1.0f;
  float elem_max = 448.0f;
};
/// The TileRule of a scheme's rule, element and policy (elem_max = element_max(element)).
MINIFLOAT_HOST_DEVICE inline TileRule make_tile_rule(ScaleRule rule, ElementType element, const BlockPolicy& policy,
                                                     float s_enc) noexcept {
  return TileRule{.rule = rule,
                  .element = element,
                  .policy = policy,
                  .s_enc = s_enc,
                  .elem_max = static_cast<float>(element_max(element))};
}

/// The scale of a tile with statistic `s` (its amax exact in T) under `r`, the special-block
/// policies first, in this order (core/block_scale.hpp):
///  1. a NaN with NanInBlock::whole_block_nan, or an Inf with InfInBlock::nan_scale → a NaN block
///     (E8M0 code 0xff, nvfp4 0x7f, FP32 scale NaN);
///  2. amax below amax_epsilon → epsilon; 3. an FP32-subnormal amax with SubnormalAmax::flush_block
///     → amax 0 and the tile's finite elements read as ±0;
///  4. amax 0 with ZeroBlock::nan (not nvfp4) → a NaN block (E8M0 0xff, FP32 decode scale 0);
///  5. the rule: E8M0 e = e8m0_exponent (amax 0: −127, or 0 with ZeroBlock::unit_scale; an Inf under
///     InfInBlock::max_scale: 127); nvfp4 the e4m3fn block code and its element multiplier; FP32
///     fp32_scale (amax 0: scale 1), the order of BlockPolicy::fp32_order.
template <class T, class Nv = Nvfp4BlockSteps>
MINIFLOAT_HOST_DEVICE inline TileScale decide_tile_scale(const TileStat<T>& s, const TileRule& r,
                                                         const Nv& nv = {}) noexcept {
  const BlockPolicy& pol = r.policy;
  const bool ue5m3 = is_ue5m3_rule(r.rule);
  const bool e8m0 = is_e8m0_rule(r.rule) || ue5m3, two_level = is_nvfp4_rule(r.rule) || ue5m3;
  TileScale sc;
  if ((s.nan && pol.nan == NanInBlock::whole_block_nan) || (s.inf && pol.inf == InfInBlock::nan_scale)) {
    sc.kind = TileScale::Kind::nan_block;
    sc.code = e8m0 ? 0xff : (two_level ? 0x7f : 0);  // UE5M3: NaN 0xff
    sc.scale = detail::bit_cast<float>(0x7fc00000u);
    return sc;
  }
  T amax = s.amax;
  if (!detail::src_is_inf(amax) && amax < static_cast<T>(pol.amax_epsilon)) amax = static_cast<T>(pol.amax_epsilon);
  if (amax > 0 && amax < static_cast<T>(FLT_MIN) && pol.subnormal == SubnormalAmax::flush_block) {
    sc.flush = true;
    amax = 0;
  }
  const bool zero = amax == 0;
  if (zero && pol.zero == ZeroBlock::nan && !two_level) {
    sc.kind = TileScale::Kind::nan_block;
    sc.code = 0xff;
    sc.scale = 0.0f;  // decode scale 0: y = 0/0
    return sc;
  }
  const float elem_max = r.elem_max;
  if (ue5m3) {  // auto-round nvfp4_v2: a UE5M3 code, elements fl32(x / divisor) (ue5m3_block_scale)
    Ue5m3BlockScale b;
    if constexpr (sizeof(T) == sizeof(float)) b = ue5m3_block_scale(amax, r.s_enc, elem_max);
    else b = ue5m3_block_scale(detail::exact_f64(amax), r.s_enc, elem_max);
    sc.kind = TileScale::Kind::nvfp4;
    sc.code = b.code;
    sc.dec = b.divisor;
    sc.divide = true;
    sc.zero_elements = !(b.divisor != 0.0f);
    return sc;
  }
  if (e8m0) {
    sc.kind = TileScale::Kind::e8m0;
    if (zero) sc.e = pol.zero == ZeroBlock::unit_scale ? 0 : -127;
    else if (s.inf) sc.e = 127;  // InfInBlock::max_scale
    else sc.e = detail::src_e8m0_exponent(r.rule, amax, r.element);
    sc.code = static_cast<std::uint8_t>(sc.e + 127);
  } else if (two_level) {
    sc.kind = TileScale::Kind::nvfp4;
    if (r.rule == ScaleRule::nvfp4_ceil) {
      if constexpr (sizeof(T) == sizeof(float)) sc.code = nvfp4_ceil_block_scale_code(amax, r.s_enc, elem_max);
      else sc.code = nvfp4_ceil_block_scale_code(detail::exact_f64(amax), r.s_enc, elem_max);
    } else {
      sc.code = nv.code(amax, r.s_enc, elem_max);
    }
    sc.enc = nv.encode_scale(sc.code, r.s_enc);
    if (pol.fp32_order == Fp32ScaleOrder::exact && nvfp4_multiplier_overflows(sc.code, r.s_enc))
      sc.exact_divisor = nvfp4_block_decode_product(sc.code, r.s_enc);  // the unclamped quotient, not FLT_MAX
  } else {
    sc.kind = TileScale::Kind::fp32;
    Fp32Scale f;
    if (!zero) f = detail::src_fp32_scale(amax, elem_max, r.rule, pol.fp32_order);
    sc.divide = pol.fp32_order == Fp32ScaleOrder::divide && r.rule == ScaleRule::fp32_amax && !zero;
    sc.enc = f.encode;
    sc.dec = f.decode;
    sc.scale = f.decode;
  }
  return sc;
}

/// One element of a tile encoded under its scale, with what the summaries count.
struct TileElement {
  ElementResult r;
  bool flushed = false;  ///< a finite nonzero x became an element ±0
};

namespace detail {
/// x / d, exact (sticky kept): NVFP4's unclamped quotient under Fp32ScaleOrder::exact. Out of line: it is
/// taken only where TE's multiplier clamp fires, and inlined it would keep encode_in_tile out of the loops.
MINIFLOAT_HOST_DEVICE MINIFLOAT_NOINLINE inline Unpacked exact_quotient(Unpacked x, float d) noexcept {
  return exact_div(x, exact_f32(d)).value;
}
}  // namespace detail

/// Encode source value x0 of a tile whose scale is `sc` (not Kind::nan_block: those elements are
/// element_nan_code) into r.element with `spec` and `prof` (rbits: the SR bits of the element, as
/// SrVariant documents; 0 otherwise). A flushed tile reads a finite x0 as ±0; E8M0 rounds x · 2^−e
/// once; FP32 / NVFP4 round fl32(x · enc) (or fl32(x / dec)), or x · enc once with Fp32ScaleOrder::exact
/// (NVFP4 where TE clamps enc to FLT_MAX: x / exact_divisor once, TileScale::exact_divisor).
template <class T>
MINIFLOAT_HOST_DEVICE inline TileElement encode_in_tile(T x0, const TileScale& sc, const TileRule& r, RoundingSpec spec,
                                                        Profile prof, std::uint64_t rbits) noexcept {
  const bool finite = !detail::src_is_nan(x0) && !detail::src_is_inf(x0);
  const T x = (sc.flush && finite) ? detail::src_signed_zero(x0) : x0;
  const Mxint8Min mn = r.policy.mxint8_min;
  TileElement out;
  if (sc.zero_elements) {
    out.r = quantize_element(r.element, detail::exact_f32(0.0f), 0, spec, prof, rbits, mn);
  } else if (sc.kind == TileScale::Kind::e8m0) {
    out.r = quantize_element(r.element, detail::src_exact(x), sc.e, spec, prof, rbits, mn);
  } else if (r.policy.fp32_order == Fp32ScaleOrder::exact) {
    const Unpacked y = sc.exact_divisor != 0.0f
                           ? detail::exact_quotient(detail::src_exact(x), sc.exact_divisor)
                           : detail::exact_mul(detail::src_exact(x), detail::exact_f32(sc.enc)).value;
    out.r = quantize_element(r.element, y, 0, spec, prof, rbits, mn);
  } else {
    const float y = sc.divide ? detail::src_div32(x, sc.dec) : detail::src_mul32(x, sc.enc);
    out.r = quantize_element(r.element, detail::exact_f32(y), 0, spec, prof, rbits, mn);
  }
  out.flushed = finite && x0 != 0 && element_value(r.element, out.r.code) == 0.0;
  return out;
}

}  // namespace minifloat
