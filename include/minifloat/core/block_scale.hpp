// SPDX-License-Identifier: Apache-2.0
// core/block_scale.hpp: block scaling (OCP MX v1.0, NVFP4, scaled FP8) — element types, the named scale
// rules, special-block policies, and the scalar steps every block quantizer is made of. Header-only,
// host and device: exponents and limits are compared exactly on the bits (no <cmath>), and every
// binary32 operation of a recipe is an fp32_ops.hpp call, so nvcc can neither fuse nor approximate
// it. Element rounding always goes through the one engine (round_pack). The tensor quantizers that
// use these steps are compiled: quant.hpp.
#pragma once
#include <cfloat>
#include <cstdint>

#include "arith.hpp"
#include "bits.hpp"
#include "config.hpp"
#include "convert.hpp"
#include "format.hpp"
#include "fp32_ops.hpp"
#include "profile.hpp"
#include "round_pack.hpp"
#include "rounding.hpp"
#include "unpacked.hpp"

namespace minifloat {

// ============================================================================================
// Element types
// ============================================================================================

/// What a block element is.
enum class ElementKind : std::uint8_t {
  floating,  ///< a minifloat Format (e4m3fn, e5m2, e2m3fn, e3m2fn, e2m1fn, …)
  int8,      ///< OCP MX INT8: two's-complement int8 k, value k · 2^−6 ∈ [−2, 127/64] (MX v1.0 §5.3)
};

/// The element type of a block scheme.
struct ElementType {
  ElementKind kind = ElementKind::floating;
  Format format = formats::e4m3fn;  ///< read only when kind == floating
  friend constexpr bool operator==(const ElementType&, const ElementType&) = default;
};

namespace elements {
inline constexpr ElementType e4m3fn{ElementKind::floating, formats::e4m3fn};
inline constexpr ElementType e5m2{ElementKind::floating, formats::e5m2};
inline constexpr ElementType e2m3fn{ElementKind::floating, formats::e2m3fn};
inline constexpr ElementType e3m2fn{ElementKind::floating, formats::e3m2fn};
inline constexpr ElementType e2m1fn{ElementKind::floating, formats::e2m1fn};
inline constexpr ElementType mxint8{ElementKind::int8, formats::e4m3fn};
}  // namespace elements

/// The grid MX INT8 elements are rounded on: a 9-bit sign-magnitude format with one exponent
/// bit, seven mantissa bits and bias 0, whose codes are exactly k · 2^−6 for |k| ≤ 255 (the
/// "subnormal" binade holds 0..127, the "normal" one 128..255, both with quantum 2^−6). Rounding
/// an MXINT8 element = round_pack onto this grid, then clamping k to the int8 range.
inline constexpr Format mxint8_grid{.bits = 9,
                                    .exponent_bits = 1,
                                    .mantissa_bits = 7,
                                    .bias = 0,
                                    .is_signed = true,
                                    .specials = Specials::none,
                                    .has_zero = true};

/// Largest finite element magnitude: e4m3fn 448, e5m2 57344, e3m2fn 28, e2m3fn 7.5, e2m1fn 6, int8 127/64.
MINIFLOAT_HOST_DEVICE inline double element_max(ElementType e) noexcept {
  if (e.kind == ElementKind::int8) return 127.0 / 64.0;
  return to_double(e.format, max_finite_magnitude(e.format));
}
/// emax_elem = floor(log2(element max)) (spec-digest §2.1): e5m2 15, e4m3 8, e3m2 4, e2m3 2, e2m1 2, int8 0.
MINIFLOAT_HOST_DEVICE constexpr int element_emax(ElementType e) noexcept {
  return e.kind == ElementKind::int8 ? 0 : emax(e.format);
}
/// Trailing significand bits used by ScaleRule::even: the format's, or 6 for int8 (1.xxxxxx · 2^0).
MINIFLOAT_HOST_DEVICE constexpr int element_mantissa_bits(ElementType e) noexcept {
  return e.kind == ElementKind::int8 ? 6 : e.format.mantissa_bits;
}
/// Bits of one element code (int8: 8).
MINIFLOAT_HOST_DEVICE constexpr int element_bits(ElementType e) noexcept {
  return e.kind == ElementKind::int8 ? 8 : e.format.bits;
}

// ============================================================================================
// Scale rules and special-block policies (spec-digest §2.3, §4.3, §7; D5, D7, D8, D10, D17)
// ============================================================================================

/// How a block's scale is chosen from its amax. Never implicit: every scheme names its default.
///
/// E8M0 (power-of-two) rules give X = 2^e, e clamped to [−127, 127] (code e + 127):
/// | rule        | e =                                                                     | source |
/// |-------------|-------------------------------------------------------------------------|--------|
/// | `ocp_floor` | floor(log2 amax) − emax_elem                                            | OCP MX v1.0 §6.3, mx-emu, gfloat, torchao FLOOR |
/// | `rceil`     | ceil(log2(amax / max_elem)), exactly: the smallest e with max·2^e ≥ amax | NVIDIA cuDNN/cuBLAS/TE (`cvt.rp.satfinite.ue8m0x2`), torchao RCEIL, InfiR2 / DeepSeek-V3.1 UE8M0 round-up |
/// | `ceil`      | (biased FP32 exponent of amax) − 127 − emax_elem, +1 if amax's FP32 mantissa field ≠ 0 | torchao CEIL |
/// | `even`      | amax's FP32 bits + 2^(22 − m_elem), mantissa cleared, then as `ocp_floor` | torchao EVEN |
/// | `tosa`      | the smallest e with RNE(amax / 2^e) ≤ max_elem (M′ = max + ½ulp; ≤ M′ when max's last bit is even, < M′ otherwise) | TOSA `calc_block_scale` |
///
/// FP32 rules (scaled FP8 recipes) keep a float scale per block:
/// | `fp32_amax` | Transformer Engine `compute_scale_from_amax`: encode = fl32(max/amax), decode = fl32(1/encode) (order `te_multiply`) or DeepSeek's decode = fl32(amax/max), y = fl32(x/decode) (order `divide`) |
/// | `fp32_pow2` | TE `force_pow_2_scales`: encode = fl32(max/amax) with its mantissa bits cleared |
///
/// `nvfp4`: the two-level NVFP4 rule (FP32 tensor scale, E4M3 block scale; TE op order, §4.3).
/// `nvfp4_ceil`: nvfp4 with the block scale fl32(amax · fl32(S_enc · fl32(1/6))) rounded UP into E4M3
/// (satfinite) instead of to nearest (cuDNN / Triton `ROUND_UP` block scales).
/// `rceil_fp32` (E8M0): TE MXFP8's `ptx::float_to_e8m0(amax · max_norm_rcp)` (cast/mxfp8/quantize_mxfp8.cuh:446,
/// util/ptx_arch_spec.cuh:72-100: `cvt.rp.satfinite.ue8m0x2.f32`) — the binary32 product q = fl32(amax ·
/// fl32(1/max)) rounded up to a power of two; differs from the exact `rceil` where q rounds onto a power of
/// two that amax/max is not (rceil_fp32_code).
///
/// UE5M3 rules (auto-round `nvfp4_v2`, auto_round/data_type/nvfp.py at b9f3d00; ue5m3_block_scale):
/// | `nvfp4_v2`    | UE5M3 block scale of fl32(amax · fl32(1/max_elem)), no tensor scale (nvfp.py:238-246) |
/// | `nvfp4_v2_gs` | the same times the FP32 tensor scale fl32(688128 · fl32(1/tensor amax)) (nvfp.py:220-235) |
enum class ScaleRule : std::uint8_t {
  ocp_floor,
  rceil,
  ceil,
  even,
  tosa,
  fp32_amax,
  fp32_pow2,
  nvfp4,
  nvfp4_v2,
  nvfp4_v2_gs,
  rceil_fp32,
  nvfp4_ceil
};

/// The scale format a rule's scales are stored in: its family. A rule is replaced only by a rule of
/// its family (another family is another scheme). The one place that says which rule is which;
/// rules_in (scheme.hpp) lists a family's rules from the rule names.
enum class ScaleFamily : std::uint8_t {
  e8m0,   ///< E8M0 codes (power-of-two scales): ocp_floor rceil ceil even tosa rceil_fp32
  fp32,   ///< an FP32 decode scale per tile: fp32_amax fp32_pow2
  nvfp4,  ///< NVFP4's two levels (an e4m3fn block code and an FP32 tensor scale): nvfp4 nvfp4_ceil
  ue5m3,  ///< a UE5M3 block code (and, for nvfp4_v2_gs, an FP32 tensor scale): nvfp4_v2 nvfp4_v2_gs
};
MINIFLOAT_HOST_DEVICE constexpr ScaleFamily family(ScaleRule r) noexcept {
  switch (r) {
    case ScaleRule::ocp_floor:
    case ScaleRule::rceil:
    case ScaleRule::ceil:
    case ScaleRule::even:
    case ScaleRule::tosa:
    case ScaleRule::rceil_fp32: return ScaleFamily::e8m0;
    case ScaleRule::fp32_amax:
    case ScaleRule::fp32_pow2: return ScaleFamily::fp32;
    case ScaleRule::nvfp4:
    case ScaleRule::nvfp4_ceil: return ScaleFamily::nvfp4;
    case ScaleRule::nvfp4_v2:
    case ScaleRule::nvfp4_v2_gs: return ScaleFamily::ue5m3;
  }
  return ScaleFamily::nvfp4;
}
/// True for the rules whose scale is an E8M0 code.
MINIFLOAT_HOST_DEVICE constexpr bool is_e8m0_rule(ScaleRule r) noexcept { return family(r) == ScaleFamily::e8m0; }
MINIFLOAT_HOST_DEVICE constexpr bool is_fp32_rule(ScaleRule r) noexcept { return family(r) == ScaleFamily::fp32; }
/// True for NVFP4's two-level rules (an e4m3fn block code under the FP32 tensor scale): nvfp4, nvfp4_ceil.
MINIFLOAT_HOST_DEVICE constexpr bool is_nvfp4_rule(ScaleRule r) noexcept { return family(r) == ScaleFamily::nvfp4; }
/// True for the rules whose block scale is a UE5M3 code (nvfp4_v2, nvfp4_v2_gs).
MINIFLOAT_HOST_DEVICE constexpr bool is_ue5m3_rule(ScaleRule r) noexcept { return family(r) == ScaleFamily::ue5m3; }

/// D7: a block whose amax is 0 (after `amax_epsilon`).
enum class ZeroBlock : std::uint8_t {
  standard,    ///< default: E8M0 rules → `min_scale` (0x00 = 2^−127: OCP, mx-emu, gfloat, TOSA, TE MXFP8);
               ///< FP32 rules → `unit_scale` (TE Float8CurrentScaling, InfiR2 tool)
  min_scale,   ///< E8M0 scale 0x00 (2^−127); FP32 rules: same as unit_scale
  unit_scale,  ///< scale 1.0 (E8M0 0x7f)
  nan,         ///< the scale is NaN (E8M0 0xff) / FP32 decode scale 0, elements 0/0 = NaN (old DeepSeek act_quant, T20)
};
/// D8: a NaN inside a block.
enum class NanInBlock : std::uint8_t {
  whole_block_nan,  ///< default: scale NaN (E8M0 0xff), every element is the element NaN code (or
                    ///< Profile::nan_to_finite where the element has no NaN); MX, mx-emu, torchao, TOSA
  element_only,     ///< amax ignores NaN (fmaxf, TE MXFP8/NVFP4 CUDA): finite scale, only the NaN element is NaN (T18)
};
/// An ±Inf inside a block (amax = Inf).
enum class InfInBlock : std::uint8_t {
  nan_scale,  ///< default: scale NaN, whole block NaN (mx-emu, TOSA)
  max_scale,  ///< scale clamps to the largest (E8M0 0xfe; TE satfinite, gfloat clip); Inf elements saturate.
              ///< (torchao 0.18 follows neither: its Inf block gets a finite scale; see the kernel-checking issue.)
};
/// An amax that is an FP32 subnormal (0 < amax < 2^−126; for an f64 source, any amax in that range).
enum class SubnormalAmax : std::uint8_t {
  keep,         ///< default: the rule applies as usual (the scale clamps at 2^−127)
  flush_block,  ///< the whole block becomes zeros, scale as for a zero block (mx-emu `mx_flush_fp32_subnorms`)
};
/// D10: the MXINT8 minimum.
enum class Mxint8Min : std::uint8_t {
  twos_complement,  ///< default: −2 (code 0x80) is representable (OCP MX, TOSA, gfloat)
  symmetric,        ///< clamp to ±127/64 (mx-emu)
};
/// Order of the FP32 operations of the FP32 rules (fp32_amax, fp32_pow2) and of NVFP4's elements.
/// An input value x enters every formula exactly (an f64 x is not rounded to f32 first): fl32(·) is
/// the exact result rounded once to binary32 (RNE).
enum class Fp32ScaleOrder : std::uint8_t {
  te_multiply,  ///< default: encode = fl32(max/amax); y = fl32(x·encode); decode = fl32(1/encode) (TE);
                ///< NVFP4: y = fl32(x·encode) with its encode (TE core_nvfp4.cuh); then y → element.
                ///< An encode above FLT_MAX clamps to FLT_MAX (TE's fminf): NVFP4 blocks with an amax
                ///< below about 1.8e-38 then get x·FLT_MAX, not x/decode (nvfp4_multiplier_overflows)
  divide,       ///< fp32_amax only: decode = fl32(amax/max); y = fl32(x/decode) (DeepSeek-V3 `act_quant`)
  exact,        ///< scales as te_multiply, but the element is x·encode rounded ONCE into the element
                ///< format (no binary32 step), for any source (FP32 rules and NVFP4); where NVFP4's
                ///< encode would clamp, x / nvfp4_block_decode_product rounded once (no clamp)
  deepgemm,     ///< fp32_amax only: decode = fl32(amax/max), encode = fl32(1/decode), y = fl32(x·encode)
                ///< (DeepGEMM deep_gemm/utils/math.py:34-37 per_token_cast_to_fp8; its amax.clamp(1e-4) is
                ///< the policy amax-epsilon=0.0001)
};

/// Every special-block choice, with the documented defaults.
struct BlockPolicy {
  ZeroBlock zero = ZeroBlock::standard;
  NanInBlock nan = NanInBlock::whole_block_nan;
  InfInBlock inf = InfInBlock::nan_scale;
  SubnormalAmax subnormal = SubnormalAmax::keep;
  Mxint8Min mxint8_min = Mxint8Min::twos_complement;
  Fp32ScaleOrder fp32_order = Fp32ScaleOrder::te_multiply;
  float amax_epsilon = 0.0f;  ///< amax < epsilon → epsilon (TE amax_epsilon; DeepSeek 1e−4; InfiR2 1e−10)
  friend constexpr bool operator==(const BlockPolicy&, const BlockPolicy&) = default;
};

namespace detail {
MINIFLOAT_HOST_DEVICE constexpr int clamp_e8m0(int e) noexcept { return e < -127 ? -127 : (e > 127 ? 127 : e); }
/// floor(log2 v) of a finite nonzero exact value (= std::ilogb of it).
MINIFLOAT_HOST_DEVICE constexpr int ilogb_exact(const Unpacked& v) noexcept { return bit_width(v.sig) - 1 + v.exp; }
/// `v` rounded once to binary32 as IEEE hardware does it (RNE, overflow to ±Inf, NaN keeps its sign).
MINIFLOAT_HOST_DEVICE inline float round_to_f32(const Unpacked& v) noexcept {
  return bit_cast<float>(
      static_cast<std::uint32_t>(round_pack(formats::f32, v, {Rounding::rne, Overflow::nonsat}, profiles::ocp).code));
}
}  // namespace detail

/// fl32(a · b) of two exact values: the exact product rounded once to binary32 (RNE, IEEE overflow
/// and gradual underflow). For binary32 a and b it is fmul_rn(a, b); an f64 a enters exactly.
MINIFLOAT_HOST_DEVICE inline float fl32_mul(const Unpacked& a, const Unpacked& b) noexcept {
  return detail::round_to_f32(detail::exact_mul(a, b).value);
}
/// fl32(a / b) of two exact values, rounded once (x/0 = ±Inf, 0/0 = NaN). For binary32 operands it is fdiv_rn.
MINIFLOAT_HOST_DEVICE inline float fl32_div(const Unpacked& a, const Unpacked& b) noexcept {
  return detail::round_to_f32(detail::exact_div(a, b).value);
}

/// `cvt.rp.satfinite.ue8m0x2.f32` of a binary32 q (PTX ISA; TE util/ptx_arch_spec.cuh:72-100 and its
/// pre-Blackwell fallback): NaN → 0xff; ±Inf → 0xfe; 0 → 0x00; else q's biased exponent b, +1 when its
/// mantissa field F ≠ 0 (rounding up to a power of two), except b = 0xfe (satfinite) and an FP32-subnormal
/// q ≤ 2^−127 (b = 0, F ≤ 0x400000: stays 0x00 = 2^−127). **Examples**: 1.0 → 0x7f; 1 + 2^−23 → 0x80;
/// 2^−127 → 0x00; 2^−127 + 2^−149 → 0x01.
MINIFLOAT_HOST_DEVICE inline int rceil_fp32_code(float q) noexcept {
  const std::uint32_t b = detail::bit_cast<std::uint32_t>(q) & 0x7fffffffu;  // amax ≥ 0: the sign is not read
  if (b > 0x7f800000u) return 0xff;
  if (b == 0x7f800000u) return 0xfe;
  if (b == 0) return 0x00;
  int code = static_cast<int>(b >> 23);
  const std::uint32_t F = b & 0x7fffffu;
  if (F > 0 && code != 0xfe && !(code == 0 && F <= 0x400000u)) ++code;
  return code;
}

/// The unbiased E8M0 exponent e (X = 2^e, code e + 127) that `rule` (an E8M0 rule) gives a block
/// whose amax is the exact value `amax` (an f32 or f64 input's, never rounded) of element type `el`.
/// Exact: no floating-point log2 is taken; every limit is compared with amax as exact values
/// (integer significands). Total: the sign of amax is ignored, amax 0 gives −127 and ±Inf/NaN
/// give 127 (callers handle those blocks by the BlockPolicy before asking for a scale); other
/// rules give 0. With E = floor(log2 amax) and m_elem = element_mantissa_bits(el):
///  - ocp_floor: E − emax_elem.  rceil / tosa: the smallest e with amax ≤ max·2^e (tosa: with
///    RNE(amax/2^e) ≤ max, i.e. amax below max + ½ulp, or at it when max's last bit is even).
///  - ceil and even are torchao's formulas on the binary32 encoding of amax (biased exponent b,
///    23-bit mantissa field F); for an exact amax they read the same encoding with unbounded
///    precision and exponent: ceil = b − 127 − emax + (F ≠ 0), i.e. E − emax + (amax ≠ 2^E) for
///    amax ≥ 2^−126 and −126 − emax below (an FP32-subnormal amax has b = 0, F ≠ 0); even = (E + c)
///    − emax with c = 1 when the fraction amax/2^E − 1 is ≥ 1 − 2^−(m_elem+1) (the carry of
///    "F + 2^(22 − m_elem)"), and for amax < 2^−126 −126 − emax when amax ≥ (1 − 2^−(m_elem+1))·2^−126,
///    else −127 − emax. For every binary32 amax these are exactly the bit formulas.
/// The result is clamped to [−127, 127].
/// **Examples** (spec-digest §2.3): e2m1fn amax 7.5: ocp_floor 0 (0x7f), rceil 1 (0x80), tosa 1;
/// e4m3fn amax 460: ocp_floor 0, rceil 1, tosa 0.
MINIFLOAT_HOST_DEVICE inline int e8m0_exponent(ScaleRule rule, Unpacked a, ElementType el) noexcept {
  const int emax_e = element_emax(el);
  if (a.cls == Class::inf || a.cls == Class::nan) return 127;
  if (a.cls == Class::zero || a.sig == 0) return -127;
  a.negative = false;
  a.sticky = false;
  const int E = detail::ilogb_exact(a);
  auto at_least = [&](std::uint64_t sig, int exp) {  // amax ≥ sig · 2^exp
    Unpacked lim;
    lim.cls = Class::normal;
    lim.sig = sig;
    lim.exp = exp;
    return detail::compare_unpacked(a, lim) != Ordering::less;
  };
  switch (rule) {
    case ScaleRule::ocp_floor: return detail::clamp_e8m0(E - emax_e);
    case ScaleRule::rceil_fp32: {  // q = fl32(amax · fl32(1/max)), then cvt.rp.satfinite.ue8m0 (rceil_fp32_code)
      const float mx =
          el.kind == ElementKind::int8 ? 127.0f / 64.0f : to_float(el.format, max_finite_magnitude(el.format));
      return rceil_fp32_code(fl32_mul(a, detail::exact_f32(frcp_rn(mx)))) - 127;
    }
    case ScaleRule::ceil: {
      if (E < -126) return detail::clamp_e8m0(-126 - emax_e);
      const bool pow2 = (a.sig & (a.sig - 1)) == 0;
      return detail::clamp_e8m0(E - emax_e + (pow2 ? 0 : 1));
    }
    case ScaleRule::even: {
      const int m = element_mantissa_bits(el);
      if (E < -126)  // FP32-subnormal range: carry iff amax ≥ (2^(m+1) − 1) · 2^(−127 − m)
        return detail::clamp_e8m0((at_least((std::uint64_t{1} << (m + 1)) - 1, -127 - m) ? -126 : -127) - emax_e);
      // normal: carry iff amax ≥ (2^(m+2) − 1) · 2^(E − m − 1), i.e. amax/2^E ≥ 2 − 2^−(m+1)
      const bool carry = at_least((std::uint64_t{1} << (m + 2)) - 1, E - m - 1);
      return detail::clamp_e8m0(E + (carry ? 1 : 0) - emax_e);
    }
    case ScaleRule::rceil:
    case ScaleRule::tosa: {
      // The limit L = lim_sig · 2^lim_exp that amax / 2^e must not exceed: rceil the element max;
      // tosa the largest magnitude that still rounds (RNE) to ≤ max: max + ½ulp, allowed when max's
      // last significand bit is even (it then wins the tie), excluded otherwise.
      std::uint64_t lim_sig = 127;  // int8: 127 · 2^−6
      int lim_exp = -6;
      bool inclusive = true;
      if (el.kind == ElementKind::int8) {
        if (rule == ScaleRule::tosa) {
          lim_sig = 255;  // 127.5 · 2^−6 = 255 · 2^−7
          lim_exp = -7;
          inclusive = false;  // 127 is odd: 127.5 ties to 128, which overflows
        }
      } else {
        const std::uint64_t mc = max_finite_magnitude(el.format);
        const Unpacked m = unpack(el.format, mc);
        lim_sig = m.sig;
        lim_exp = m.exp;
        if (rule == ScaleRule::tosa) {  // + 2^(emax − mantissa_bits − 1), half an ulp of max
          lim_sig = 2 * m.sig + 1;
          lim_exp = emax(el.format) - el.format.mantissa_bits - 1;
          inclusive = (mc & 1) == 0;
        }
      }
      auto fits = [&](int k) {  // amax ≤ L · 2^k (inclusive) or amax < L · 2^k
        Unpacked lim;
        lim.cls = Class::normal;
        lim.sig = lim_sig;
        lim.exp = lim_exp + k;
        const Ordering o = detail::compare_unpacked(a, lim);
        return o == Ordering::less || (inclusive && o == Ordering::equal);
      };
      int e = E - (detail::bit_width(lim_sig) - 1 + lim_exp);  // within ±1 of the answer
      while (!fits(e)) ++e;
      while (fits(e - 1)) --e;
      return detail::clamp_e8m0(e);
    }
    default: return 0;
  }
}
/// The same for a binary32 amax (its exact value).
MINIFLOAT_HOST_DEVICE inline int e8m0_exponent(ScaleRule rule, float amax, ElementType el) noexcept {
  return e8m0_exponent(rule, detail::exact_f32(amax), el);
}

// ============================================================================================
// Elements: quantize one value (through round_pack) and decode one code
// ============================================================================================

/// Result of quantizing one element.
struct ElementResult {
  std::uint8_t code = 0;
  Flags flags = flag_none;
  bool saturated = false;  ///< the rounded magnitude exceeded the element max and was clamped
};

/// Round the exact value x · 2^(−scale_exp) into element type `el` (x: an exact value — a binary32
/// or binary64 input as it is, or an exact product with its sticky bit —; scale_exp: the E8M0
/// exponent, 0 when the value is already scaled). The division by the power of two is exact; the
/// one rounding is `round_pack` with `spec` (any mode, SR included: `rbits` as SrVariant
/// documents). MX elements saturate by default (spec.overflow = satfinite); with nonsat an FP8
/// overflow gives NaN/Inf as the engine does. INT8 rounds on `mxint8_grid` and clamps to
/// [−128 (or −127 with Mxint8Min::symmetric), 127]; NaN → 0 (flag invalid), ±Inf → ±max.
/// **Example**: e4m3fn, x = 1.0625 + 2^−40 (an f64), scale_exp 0 → 0x39 (above the 1/1.125
/// midpoint); the same x rounded to f32 first would tie to 0x38.
MINIFLOAT_HOST_DEVICE inline ElementResult quantize_element(ElementType el, Unpacked u, int scale_exp,
                                                            RoundingSpec spec = {Rounding::rne, Overflow::satfinite},
                                                            Profile prof = profiles::ocp, std::uint64_t rbits = 0,
                                                            Mxint8Min mn = Mxint8Min::twos_complement) noexcept {
  if (u.cls == Class::normal || u.cls == Class::subnormal) u.exp -= scale_exp;
  ElementResult r;
  if (el.kind == ElementKind::floating) {
    const RoundResult rr = round_pack(el.format, u, spec, prof, rbits);
    r.code = static_cast<std::uint8_t>(rr.code);
    r.flags = rr.flags;
    r.saturated = (rr.flags & flag_overflow) != 0 && classify(el.format, rr.code) != Class::inf &&
                  classify(el.format, rr.code) != Class::nan;
    return r;
  }
  // int8
  const int kmin = mn == Mxint8Min::symmetric ? -127 : -128;
  if (u.cls == Class::nan) return {0, flag_invalid, false};
  if (u.cls == Class::inf)
    return {static_cast<std::uint8_t>(u.negative ? kmin : 127), flag_inexact | flag_overflow, true};
  RoundingSpec gs = spec;
  gs.overflow = Overflow::satfinite;
  const RoundResult rr = round_pack(mxint8_grid, u, gs, prof, rbits);
  int k = static_cast<int>(rr.code & 0xffu);
  const bool neg = (rr.code & 0x100u) != 0;
  if (neg) k = -k;
  r.flags = rr.flags;
  if (k > 127 || k < kmin || (rr.flags & flag_overflow)) {
    k = k > 0 ? 127 : kmin;
    r.saturated = true;
    r.flags |= flag_overflow | flag_inexact;
  }
  r.code = static_cast<std::uint8_t>(static_cast<std::int8_t>(k));
  return r;
}
/// The same for the exact value of a double (a float argument converts to it exactly).
MINIFLOAT_HOST_DEVICE inline ElementResult quantize_element(ElementType el, double x, int scale_exp,
                                                            RoundingSpec spec = {Rounding::rne, Overflow::satfinite},
                                                            Profile prof = profiles::ocp, std::uint64_t rbits = 0,
                                                            Mxint8Min mn = Mxint8Min::twos_complement) noexcept {
  return quantize_element(el, detail::exact_f64(x), scale_exp, spec, prof, rbits, mn);
}

/// The exact value of element `code` (NaN for NaN codes, ±Inf for e5m2 Inf).
MINIFLOAT_HOST_DEVICE inline double element_value(ElementType el, std::uint8_t code) noexcept {
  if (el.kind == ElementKind::int8) return static_cast<double>(static_cast<std::int8_t>(code)) / 64.0;
  return to_double(el.format, code);
}

/// The element code every element of a NaN block gets: the element NaN (positive) or, where the
/// element has no NaN, what the Profile makes of a NaN (nan_to_finite); int8: 0.
MINIFLOAT_HOST_DEVICE inline std::uint8_t element_nan_code(ElementType el, Profile prof = profiles::ocp) noexcept {
  if (el.kind == ElementKind::int8) return 0;
  Unpacked n;
  n.cls = Class::nan;
  return static_cast<std::uint8_t>(round_pack(el.format, n, {Rounding::rne, Overflow::satfinite}, prof).code);
}

/// D17: whether a scale that is an FP32 subnormal (below 2^−126: the E8M0 code 0x00 = 2^−127, or an
/// FP32 scale) reads as 0, as an FTZ/DAZ consumer sees it.
enum class ScaleFtz : std::uint8_t {
  no,   ///< default: the exact value
  yes,  ///< FP32-subnormal scales read as 0
};

/// Decode an E8M0 scale code into a double: 2^(code − 127); 0xff → NaN. With ScaleFtz::yes (D17)
/// the code 0x00 (2^−127, an FP32 subnormal) reads as 0.
MINIFLOAT_HOST_DEVICE inline double e8m0_value(std::uint8_t code, ScaleFtz ftz = ScaleFtz::no) noexcept {
  if (ftz == ScaleFtz::yes && code == 0) return 0.0;
  return to_double(formats::e8m0fnu, code);  // NaN for 0xff
}

// ============================================================================================
// FP32 scales (Transformer Engine / DeepSeek recipes, spec-digest §7)
// ============================================================================================

namespace detail {
MINIFLOAT_HOST_DEVICE inline bool f32_is_inf(float x) noexcept {
  return (bit_cast<std::uint32_t>(x) & 0x7fffffffu) == 0x7f800000u;
}
MINIFLOAT_HOST_DEVICE inline bool f32_is_inf_or_nan(float x) noexcept {
  return (bit_cast<std::uint32_t>(x) & 0x7fffffffu) >= 0x7f800000u;
}
/// std::fmin(x, FLT_MAX): x when x ≤ FLT_MAX, FLT_MAX when x is +Inf or NaN.
MINIFLOAT_HOST_DEVICE inline float fmin_flt_max(float x) noexcept {
  const std::uint32_t b = bit_cast<std::uint32_t>(x);
  const bool nan = (b & 0x7fffffffu) > 0x7f800000u;
  return nan || b == 0x7f800000u ? FLT_MAX : x;
}
}  // namespace detail

/// A block's FP32 scales: y = fl32(x · encode) (or fl32(x / decode)), x ≈ q · decode.
struct Fp32Scale {
  float encode = 1.0f;
  float decode = 1.0f;
};

/// TE `compute_scale_from_amax` (recipe_common.cuh): amax < eps → eps; amax Inf/0/NaN → 1;
/// encode = fl32(max/amax), Inf → FLT_MAX; `rule` ScaleRule::fp32_pow2 clears the mantissa bits
/// (force_pow_2_scales), ScaleRule::fp32_amax (or any other rule) keeps them; decode = fl32(1/encode).
/// Order `divide` (DeepSeek; fp32_amax only): decode = fl32(amax/max) (0 for amax 0), Inf → FLT_MAX
/// (an Inf amax reaches here only under InfInBlock::max_scale: the scale clamps to the largest, so finite
/// elements x/FLT_MAX flush and Inf elements stay Inf for the element's overflow policy; without the clamp
/// y = Inf/Inf is a NaN whose sign the FPU picks), encode unused.
/// Order `exact` computes the scales as te_multiply. The ZeroBlock policy is applied by the caller.
MINIFLOAT_HOST_DEVICE inline Fp32Scale fp32_scale(float amax, float max_elem, ScaleRule rule, float eps,
                                                  Fp32ScaleOrder order) noexcept {
  const bool pow2 = rule == ScaleRule::fp32_pow2;
  if (amax < eps) amax = eps;
  Fp32Scale s;
  if (order == Fp32ScaleOrder::divide && !pow2) {
    s.decode = fdiv_rn(amax, max_elem);
    if (detail::f32_is_inf(s.decode)) s.decode = FLT_MAX;
    s.encode = 0.0f;
    return s;
  }
  if (order == Fp32ScaleOrder::deepgemm && !pow2) {  // sf = amax / 448.0; x * (1.0 / sf) (math.py:35-37)
    s.decode = fdiv_rn(amax, max_elem);
    if (detail::f32_is_inf(s.decode)) s.decode = FLT_MAX;
    s.encode = frcp_rn(s.decode);
    return s;
  }
  if (detail::f32_is_inf_or_nan(amax) || amax == 0.0f) return s;
  float sc = fdiv_rn(max_elem, amax);
  if (detail::f32_is_inf(sc)) sc = FLT_MAX;
  if (pow2) sc = detail::bit_cast<float>(detail::bit_cast<std::uint32_t>(sc) & 0xff800000u);
  s.encode = sc;
  s.decode = frcp_rn(sc);
  return s;
}
/// The same for an exact amax (an f64 source's, never rounded to f32): every binary32 operation
/// whose operand is amax takes its exact value and rounds once (fl32_div); for a binary32 amax
/// the result is that of the float overload.
MINIFLOAT_HOST_DEVICE inline Fp32Scale fp32_scale(Unpacked amax, float max_elem, ScaleRule rule, float eps,
                                                  Fp32ScaleOrder order) noexcept {
  const bool pow2 = rule == ScaleRule::fp32_pow2;
  const Unpacked ue = detail::exact_f32(eps);
  if (detail::compare_unpacked(amax, ue) == Ordering::less) amax = ue;
  Fp32Scale s;
  const Unpacked um = detail::exact_f32(max_elem);
  if (order == Fp32ScaleOrder::divide && !pow2) {
    s.decode = fl32_div(amax, um);
    if (detail::f32_is_inf(s.decode)) s.decode = FLT_MAX;
    s.encode = 0.0f;
    return s;
  }
  if (order == Fp32ScaleOrder::deepgemm && !pow2) {
    s.decode = fl32_div(amax, um);
    if (detail::f32_is_inf(s.decode)) s.decode = FLT_MAX;
    s.encode = frcp_rn(s.decode);
    return s;
  }
  if (amax.cls == Class::inf || amax.cls == Class::nan || amax.cls == Class::zero || amax.sig == 0) return s;
  float sc = fl32_div(um, amax);
  if (detail::f32_is_inf(sc)) sc = FLT_MAX;
  if (pow2) sc = detail::bit_cast<float>(detail::bit_cast<std::uint32_t>(sc) & 0xff800000u);
  s.encode = sc;
  s.decode = frcp_rn(sc);
  return s;
}

// ============================================================================================
// NVFP4 two-level scaling (spec-digest §4.3; TE core_nvfp4.cuh operation order, all FP32 RNE)
// ============================================================================================

/// S_enc = fl32(fl32(448 · elem_max) / global_amax) (448 · 6 = 2688 for e2m1fn elements),
/// min(·, FLT_MAX) (fminf: NaN → FLT_MAX); 1.0 when global_amax is 0 or the result is 0
/// (global_amax = Inf). **Example**: amax 10 → 268.8 (0x43866666). Other elements than e2m1fn
/// (a user scheme with the nvfp4 rule) put their own max in TE's fp4_max.
MINIFLOAT_HOST_DEVICE inline float nvfp4_global_encode_scale(float global_amax, float elem_max = 6.0f) noexcept {
  const float s = detail::fmin_flt_max(fdiv_rn(fmul_rn(448.0f, elem_max), global_amax));
  if (global_amax == 0.0f || s == 0.0f) return 1.0f;
  return s;
}
/// The same for an exact global amax (an f64 source's): fl32(2688 / amax) from the exact amax.
MINIFLOAT_HOST_DEVICE inline float nvfp4_global_encode_scale(const Unpacked& global_amax,
                                                             float elem_max = 6.0f) noexcept {
  const float s = detail::fmin_flt_max(fl32_div(detail::exact_f32(fmul_rn(448.0f, elem_max)), global_amax));
  if (global_amax.cls == Class::zero || (global_amax.cls == Class::normal && global_amax.sig == 0) || s == 0.0f)
    return 1.0f;
  return s;
}
namespace detail {
/// TE's binary32 block scale s = fl32(block_amax · fl32(S_enc · fl32(1/elem_max))), from a binary32 or an
/// exact amax, and s rounded into e4m3fn by `r` with satfinite: the one formula of the nvfp4 family's block
/// codes (nvfp4: RNE, TE's static_cast; nvfp4_ceil: RTP).
MINIFLOAT_HOST_DEVICE inline float nvfp4_block_s(float block_amax, float s_enc, float elem_max) noexcept {
  return fmul_rn(block_amax, fmul_rn(s_enc, frcp_rn(elem_max)));
}
MINIFLOAT_HOST_DEVICE inline float nvfp4_block_s(const Unpacked& block_amax, float s_enc, float elem_max) noexcept {
  return fl32_mul(block_amax, detail::exact_f32(fmul_rn(s_enc, frcp_rn(elem_max))));
}
MINIFLOAT_HOST_DEVICE inline std::uint8_t nvfp4_e4m3_code(float s, Rounding r) noexcept {
  return static_cast<std::uint8_t>(from_float(s, formats::e4m3fn, {r, Overflow::satfinite}).code);
}
}  // namespace detail
/// The block's decode scale as an E4M3 code (ue4m3: bit 7 is 0 for every non-NaN result):
/// e4m3fn(fl32(block_amax · fl32(S_enc · fl32(1/elem_max)))) with RNE + satfinite (TE's
/// static_cast; fl32(1/6) = 0x3e2aaaab). **Example**: amax 10, S_enc 268.8 → 448.0 exactly → 0x7e.
MINIFLOAT_HOST_DEVICE inline std::uint8_t nvfp4_block_scale_code(float block_amax, float s_enc,
                                                                 float elem_max = 6.0f) noexcept {
  return detail::nvfp4_e4m3_code(detail::nvfp4_block_s(block_amax, s_enc, elem_max), Rounding::rne);
}
/// The same for an exact block amax: fl32(amax · fl32(S_enc · fl32(1/elem_max))) from the exact amax.
MINIFLOAT_HOST_DEVICE inline std::uint8_t nvfp4_block_scale_code(const Unpacked& block_amax, float s_enc,
                                                                 float elem_max = 6.0f) noexcept {
  return detail::nvfp4_e4m3_code(detail::nvfp4_block_s(block_amax, s_enc, elem_max), Rounding::rne);
}
/// nvfp4_ceil's block scale: the same binary32 s as nvfp4_block_scale_code, rounded UP into e4m3fn
/// (RTP + satfinite: cuDNN / Triton `ROUND_UP`). **Example**: amax 10, S_enc 1 → s = fl32(10 · 0x3e2aaaab) =
/// 1.6666667 → 0x3e (1.75; RNE: 0x3d = 1.625).
MINIFLOAT_HOST_DEVICE inline std::uint8_t nvfp4_ceil_block_scale_code(float block_amax, float s_enc,
                                                                      float elem_max = 6.0f) noexcept {
  return detail::nvfp4_e4m3_code(detail::nvfp4_block_s(block_amax, s_enc, elem_max), Rounding::rtp);
}
/// The same for an exact block amax.
MINIFLOAT_HOST_DEVICE inline std::uint8_t nvfp4_ceil_block_scale_code(const Unpacked& block_amax, float s_enc,
                                                                      float elem_max = 6.0f) noexcept {
  return detail::nvfp4_e4m3_code(detail::nvfp4_block_s(block_amax, s_enc, elem_max), Rounding::rtp);
}
/// The block's decode product fl32(s_dec_e4m3 · fl32(1/S_enc)) (TE compute_scaling_coefficient's
/// divisor): the decode scale the element multiplier inverts. 0 for a zero scale code, NaN for 0x7f/0xff.
MINIFLOAT_HOST_DEVICE inline float nvfp4_block_decode_product(std::uint8_t scale_code, float s_enc) noexcept {
  return fmul_rn(to_float(formats::e4m3fn, scale_code), frcp_rn(s_enc));
}
/// The element encode multiplier: min(fl32(1 / nvfp4_block_decode_product), FLT_MAX)
/// (TE compute_scaling_coefficient<float>; fminf: NaN → FLT_MAX). Elements are fl32(x · this)
/// (x exact, Fp32ScaleOrder::te_multiply), then rounded to the element; Fp32ScaleOrder::exact rounds
/// x · this once, except where the clamp fired (nvfp4_multiplier_overflows): there it rounds the
/// unclamped quotient x / nvfp4_block_decode_product once (core/tile_step.hpp encode_in_tile).
MINIFLOAT_HOST_DEVICE inline float nvfp4_element_encode_scale(std::uint8_t scale_code, float s_enc) noexcept {
  return detail::fmin_flt_max(frcp_rn(nvfp4_block_decode_product(scale_code, s_enc)));
}
/// Whether TE's clamp of the element multiplier fires for a nonzero, non-NaN block scale: fl32(1 /
/// nvfp4_block_decode_product) overflows binary32 (a block amax below about 1.8e-38 under a tensor
/// scale S_enc clamped to FLT_MAX). Zero and NaN scale codes give false (their elements do not
/// depend on the multiplier's value: a zero scale decodes every element to 0, a NaN block is NaN).
MINIFLOAT_HOST_DEVICE inline bool nvfp4_multiplier_overflows(std::uint8_t scale_code, float s_enc) noexcept {
  const float d = nvfp4_block_decode_product(scale_code, s_enc);
  return d > 0.0f && detail::f32_is_inf(frcp_rn(d));
}

// ============================================================================================
// UE5M3 block scales: auto-round nvfp4_v2 (auto_round/data_type/nvfp.py at b9f3d00)
// ============================================================================================

/// auto-round's cast of a binary32 scale s into UE5M3 (float_to_e5m3_frexp, nvfp.py:127-155), which is
/// NOT round-to-nearest-even onto the ue5m3 grid: NaN and s ≤ 0 → 0x00; s ≥ 2^−14: frexp(s) = (f, x),
/// mantissa field m = clamp(rne((f − 0.5)·16), 0, 7) (a round up to 8 does not carry into the exponent: it
/// clamps to 7), exponent field clamp(x + 14, 0, 31); 0 < s < 2^−14: m = clamp(rne(s · 2^17), 1, 7) (a
/// positive s never becomes 0x00, and never the normal 0x08). Exact on the binary32 bits; s above the
/// UE5M3 max is the caller's (nvfp.py:207 clips to 114688 first; a larger s would reach 0xff).
/// **Examples**: 1.0 → 0x78; 1.9375 (ties 1.875/2) → 0x7f = 1.875 (RNE: 0x80 = 2); 2^−20 → 0x01 = 2^−17
/// (RNE: 0x00); 114688 → 0xfe.
MINIFLOAT_HOST_DEVICE inline std::uint8_t autoround_ue5m3_code(float s) noexcept {
  const std::uint32_t b = detail::bit_cast<std::uint32_t>(s);
  if ((b & 0x80000000u) != 0 || (b & 0x7fffffffu) == 0 || (b & 0x7fffffffu) > 0x7f800000u) return 0;
  if (b >= 0x38800000u) {  // s ≥ 2^−14: a binary32 normal, f − 0.5 = F / 2^24 with F its mantissa field
    const int x = static_cast<int>(b >> 23) - 126;  // frexp's exponent
    const std::uint32_t F = b & 0x7fffffu, q = F >> 20, r = F & 0xfffffu;
    std::uint32_t m = q + ((r > 0x80000u || (r == 0x80000u && (q & 1u) != 0)) ? 1u : 0u);
    if (m > 7) m = 7;
    int e = x + 14;
    e = e < 0 ? 0 : (e > 31 ? 31 : e);
    return static_cast<std::uint8_t>((static_cast<std::uint32_t>(e) << 3) | m);
  }
  // s < 2^−14: t = s · 2^17 < 8, exact; rne to an integer on the bits of t
  const float t = fmul_rn(s, 131072.0f);
  const std::uint32_t tb = detail::bit_cast<std::uint32_t>(t);
  const int te = static_cast<int>(tb >> 23) - 127;  // t ≥ 2^−126 unless s is tiny: then t < 0.5
  // t < 1 rounds to 0 or 1, clamped to 1; 1 ≤ t < 8 rounds on its bits
  std::uint32_t m = 1;
  if (te >= 0) {
    const std::uint32_t sig = (tb & 0x7fffffu) | 0x800000u;
    const int sh = 23 - te;
    const std::uint32_t q = sig >> sh, r = sig & ((1u << sh) - 1u), half = 1u << (sh - 1);
    m = q + ((r > half || (r == half && (q & 1u) != 0)) ? 1u : 0u);
    if (m > 7) m = 7;
  }
  return static_cast<std::uint8_t>(m);
}

/// auto-round's `get_reciprocal` (nvfp.py:42-48) of a binary32: 0 for 0, else fl32(1/x).
MINIFLOAT_HOST_DEVICE inline float autoround_reciprocal(float x) noexcept { return x == 0.0f ? 0.0f : frcp_rn(x); }

/// The FP32 tensor scale of nvfp4_v2_gs: g = fl32(688128 · autoround_reciprocal(tensor amax)) (nvfp.py:232,
/// FLOAT8_UE5M3_MAX · FLOAT4_E2M1_MAX = 114688 · 6 = 688128, exact; `elem_max` replaces 6 for another
/// element); 0 for an amax of 0 or ∞. nvfp4_v2 has no tensor scale: g = 1 (nvfp.py:243).
/// **Example**: tensor amax 10 → fl32(1/10) = 0x3dcccccd, g = fl32(688128 · 0x3dcccccd) = 68812.8047 (0x47866667).
MINIFLOAT_HOST_DEVICE inline float ue5m3_tensor_scale(float tensor_amax, float elem_max = 6.0f) noexcept {
  return fmul_rn(fmul_rn(114688.0f, elem_max), autoround_reciprocal(tensor_amax));
}
/// The same for an exact tensor amax (an f64 source's): fl32(1/amax) from the exact amax, once.
MINIFLOAT_HOST_DEVICE inline float ue5m3_tensor_scale(const Unpacked& tensor_amax, float elem_max = 6.0f) noexcept {
  if (tensor_amax.cls == Class::zero || (tensor_amax.cls == Class::normal && tensor_amax.sig == 0))
    return fmul_rn(fmul_rn(114688.0f, elem_max), 0.0f);
  return fmul_rn(fmul_rn(114688.0f, elem_max), fl32_div(detail::exact_f32(1.0f), tensor_amax));
}

/// A UE5M3 block's scale code and its element divisor (auto-round ref_fp4_quant, nvfp.py:205-214):
/// s = fl32(g · fl32(amax · fl32(1/elem_max))) clipped to [0, 114688] (NaN stays NaN), code =
/// autoround_ue5m3_code(s); divisor = fl32(ue5m3(code) · autoround_reciprocal(g)); the elements are
/// fl32(x / divisor), or +0 where the divisor is 0 (torch.where, nvfp.py:210-214), then clamped to
/// ±elem_max and rounded RNE (cast_to_fp4, nvfp.py:26-39, is RNE onto e2m1fn).
struct Ue5m3BlockScale {
  std::uint8_t code = 0;
  float divisor = 0.0f;
};
/// The scale code from s1 = fl32(amax · fl32(1/elem_max)): autoround_ue5m3_code of fl32(g · s1) clipped to [0, 114688].
MINIFLOAT_HOST_DEVICE inline std::uint8_t ue5m3_block_scale_code(float s1, float g) noexcept {
  float s = fmul_rn(g, s1);
  if (s < 0.0f) s = 0.0f;  // torch.clip(scale, 0, FLOAT8_UE5M3_MAX): NaN passes
  if (s > 114688.0f) s = 114688.0f;
  return autoround_ue5m3_code(s);
}
/// The element divisor of scale code `code`: fl32(ue5m3(code) · autoround_reciprocal(g)).
MINIFLOAT_HOST_DEVICE inline float ue5m3_divisor(std::uint8_t code, float g) noexcept {
  return fmul_rn(to_float(formats::ue5m3, code), autoround_reciprocal(g));
}
MINIFLOAT_HOST_DEVICE inline Ue5m3BlockScale ue5m3_block_scale_of(float s1, float g, float elem_max) noexcept {
  (void)elem_max;
  Ue5m3BlockScale r;
  r.code = ue5m3_block_scale_code(s1, g);
  r.divisor = ue5m3_divisor(r.code, g);
  return r;
}
/// The block scale of a binary32 block amax under tensor scale g (1 for nvfp4_v2).
/// **Example**: amax 6, g 1 → s = fl32(6 · 0x3e2aaaab) = 1.0 → 0x78, divisor 1.0.
MINIFLOAT_HOST_DEVICE inline Ue5m3BlockScale ue5m3_block_scale(float block_amax, float g,
                                                               float elem_max = 6.0f) noexcept {
  return ue5m3_block_scale_of(fmul_rn(block_amax, frcp_rn(elem_max)), g, elem_max);
}
/// The same for an exact block amax (an f64 source's): fl32(amax · fl32(1/elem_max)) from the exact amax.
MINIFLOAT_HOST_DEVICE inline Ue5m3BlockScale ue5m3_block_scale(const Unpacked& block_amax, float g,
                                                               float elem_max = 6.0f) noexcept {
  return ue5m3_block_scale_of(fl32_mul(block_amax, detail::exact_f32(frcp_rn(elem_max))), g, elem_max);
}

}  // namespace minifloat
