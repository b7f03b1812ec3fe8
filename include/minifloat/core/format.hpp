// SPDX-License-Identifier: Apache-2.0
// core/format.hpp: the Format descriptor (formats as data) and the named formats.
#pragma once
#include <cstdint>

#include "config.hpp"

namespace minifloat {

/// How a format spends codes on non-finite values (LLVM `fltNonfiniteBehavior` and
/// `fltNanEncoding` folded into one field, since only these combinations occur in practice).
///
/// | value            | Inf                              | NaN                                   | −0  | used by |
/// |------------------|----------------------------------|---------------------------------------|-----|---------|
/// | `ieee`           | exponent all ones, mantissa 0    | exponent all ones, mantissa ≠ 0       | yes | f64 f32 f16 bf16 e5m2 e4m3 e3m4 |
/// | `fn`             | none                             | the all-ones magnitude (S.1111.111)   | yes | e4m3fn, ue4m3, ue5m3, e8m0fnu, P3109 unsigned finite |
/// | `fnuz`           | none                             | the negative-zero code (0x80) only    | no  | e4m3fnuz e5m2fnuz e4m3b11fnuz, P3109 signed finite |
/// | `p3109_extended` | signed: all-ones magnitude (±); unsigned: all ones − 1 (+Inf only) | signed: 0x80…; unsigned: all ones | no | P3109 extended formats |
/// | `none`           | none                             | none                                  | yes | e2m1fn e2m3fn e3m2fn (OCP MX FP4/FP6) |
///
/// Sources: OCP OFP8 v1.0 Table 1; OCP MX v1.0 §5; LLVM APFloat; IEEE P3109 interim report v4.0 §4.7.6.
enum class Specials : std::uint8_t { ieee, fn, fnuz, p3109_extended, none };

/// A binary floating-point format described as data.
///
/// Code layout, most significant bit first: `[S] E…E M…M`, with `bits == is_signed +
/// exponent_bits + mantissa_bits`. A code with biased exponent field `E` and trailing
/// significand `M` has the value
///   - `(−1)^S · 2^(E − bias) · (1 + M / 2^mantissa_bits)` when `E ≥ 1` (normal), or when
///     `has_zero` is false (then `E = 0` is a normal binade too: e8m0fnu `0x00` = 2^−127);
///   - `(−1)^S · 2^(1 − bias) · (M / 2^mantissa_bits)` when `E = 0` and `has_zero` (subnormal/zero);
/// except for the codes that `specials` reserves for Inf and NaN.
///
/// The struct is structural, so a Format can be a template argument (`template <Format F>`),
/// and is also used as a plain run-time value (CLI, tables, fuzzers). Names live in the
/// registry (`registry.hpp`), not here. Use `validate()` for user-defined formats.
struct Format {
  std::uint8_t bits;           ///< K: the code width in bits, 3..64
  std::uint8_t exponent_bits;  ///< width of the biased exponent field, 1..16 (P3109 K = 16, P = 1)
  std::uint8_t mantissa_bits;  ///< trailing significand bits (precision − 1), 0..52
  std::int32_t bias;           ///< exponent bias
  bool is_signed;              ///< true: the top bit is a sign bit (sign-magnitude)
  Specials specials;           ///< which codes are Inf / NaN
  bool has_zero;               ///< false: no zero code, exponent field 0 is normal (e8m0fnu)

  // By value: nvcc cannot bind a reference to a host-only constexpr variable in device code.
  friend constexpr bool operator==(Format, Format) = default;
};

/// Problems `validate()` reports for a user-defined format.
enum class FormatError : std::uint8_t {
  ok,
  bits_mismatch,        ///< bits != is_signed + exponent_bits + mantissa_bits
  bits_out_of_range,    ///< bits must be 3..64 (2..64 for unsigned P3109-style formats)
  exponent_too_wide,    ///< exponent_bits must be 1..16 (to_double saturates beyond f64's 11)
  mantissa_too_wide,    ///< mantissa_bits must be ≤ 52 (f64's)
  ieee_needs_mantissa,  ///< Specials::ieee needs mantissa_bits ≥ 1 to tell Inf from NaN
  unsigned_fnuz,        ///< Specials::fnuz needs a sign bit (its NaN is the −0 code)
  no_zero_needs_fn,     ///< has_zero == false is only supported with Specials::fn or none
  no_finite_values,     ///< the special codes leave no positive finite value
  bias_out_of_range,    ///< |bias| must be ≤ kMaxAbsBias
};

/// The largest |bias| validate() accepts: 2^17. With at most 16 exponent bits every finite value
/// then lies within 2^±(2^18), so exponent arithmetic never overflows int32 and parse_value's
/// huge/tiny stand-ins (beyond 2^±332192) overflow or underflow every valid format. The widest
/// named bias is P3109 Binary16p1ue's 2^15.
inline constexpr std::int32_t kMaxAbsBias = std::int32_t{1} << 17;

// ---- derived properties (all constexpr, host and device) ----------------------------------

MINIFLOAT_HOST_DEVICE constexpr int precision(Format f) noexcept { return f.mantissa_bits + 1; }

/// Mask of the code bits (bits ≤ 64).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t code_mask(Format f) noexcept {
  return f.bits >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << f.bits) - 1);
}
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t sign_mask(Format f) noexcept {
  return f.is_signed ? (std::uint64_t{1} << (f.bits - 1)) : 0;
}
/// Mask of the magnitude bits (exponent and mantissa fields).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t magnitude_mask(Format f) noexcept { return code_mask(f) & ~sign_mask(f); }
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t mantissa_mask(Format f) noexcept {
  return (std::uint64_t{1} << f.mantissa_bits) - 1;
}
MINIFLOAT_HOST_DEVICE constexpr bool has_inf(Format f) noexcept {
  return f.specials == Specials::ieee || f.specials == Specials::p3109_extended;
}
MINIFLOAT_HOST_DEVICE constexpr bool has_nan(Format f) noexcept { return f.specials != Specials::none; }
/// True when a negative zero code exists (OCP formats; not FNUZ/P3109, not unsigned).
MINIFLOAT_HOST_DEVICE constexpr bool has_negative_zero(Format f) noexcept {
  return f.is_signed && f.has_zero && f.specials != Specials::fnuz && f.specials != Specials::p3109_extended;
}
/// Unbiased exponent of the smallest normal binade: 1 − bias, or −bias when `has_zero` is false.
MINIFLOAT_HOST_DEVICE constexpr int emin(Format f) noexcept { return (f.has_zero ? 1 : 0) - f.bias; }

/// The largest finite magnitude code (no sign bit): e4m3fn 0x7e, e5m2 0x7b, e4m3fnuz 0x7f,
/// e2m1fn 0x7, e8m0fnu 0xfe, Binary8p3se 0x7e, Binary8p3ue 0xfd.
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t max_finite_magnitude(Format f) noexcept {
  const std::uint64_t m = magnitude_mask(f);
  switch (f.specials) {
    case Specials::ieee: return m - (mantissa_mask(f) + 1);  // exponent all ones is Inf/NaN
    case Specials::fn: return m - 1;
    case Specials::fnuz: return m;
    case Specials::p3109_extended: return f.is_signed ? m - 1 : m - 2;
    case Specials::none: return m;
  }
  return m;
}
/// Unbiased exponent of the largest finite value.
MINIFLOAT_HOST_DEVICE constexpr int emax(Format f) noexcept {
  return static_cast<int>(max_finite_magnitude(f) >> f.mantissa_bits) - f.bias;
}

/// The sign of a value asked for by name (inf_code).
enum class Sign : std::uint8_t { positive, negative };

namespace detail {
MINIFLOAT_HOST_DEVICE constexpr Sign sign_of(bool negative) noexcept {
  return negative ? Sign::negative : Sign::positive;
}
}  // namespace detail

/// The ±Inf code, or 0 when the format has no Inf (check has_inf first). An unsigned extended
/// P3109 format has only +Inf: its code is returned for either sign.
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t inf_code(Format f, Sign sign = Sign::positive) noexcept {
  const std::uint64_t s = sign == Sign::negative ? sign_mask(f) : 0;
  if (f.specials == Specials::ieee) return (magnitude_mask(f) - mantissa_mask(f)) | s;
  if (f.specials == Specials::p3109_extended) return f.is_signed ? (magnitude_mask(f) | s) : code_mask(f) - 1;
  return 0;
}

/// Classification of a code.
enum class Class : std::uint8_t { zero, subnormal, normal, inf, nan };

/// Classify `code` (bits above `f.bits` must be zero).
MINIFLOAT_HOST_DEVICE constexpr Class classify(Format f, std::uint64_t code) noexcept {
  const std::uint64_t mag = code & magnitude_mask(f);
  const bool neg = (code & sign_mask(f)) != 0;
  switch (f.specials) {
    case Specials::ieee:
      if ((mag >> f.mantissa_bits) == (magnitude_mask(f) >> f.mantissa_bits))
        return (mag & mantissa_mask(f)) ? Class::nan : Class::inf;
      break;
    case Specials::fn:
      if (mag == magnitude_mask(f)) return Class::nan;
      break;
    case Specials::fnuz:
      if (neg && mag == 0) return Class::nan;
      break;
    case Specials::p3109_extended:
      if (f.is_signed) {
        if (neg && mag == 0) return Class::nan;
        if (mag == magnitude_mask(f)) return Class::inf;
      } else {
        if (mag == magnitude_mask(f)) return Class::nan;
        if (mag == magnitude_mask(f) - 1) return Class::inf;
      }
      break;
    case Specials::none: break;
  }
  if (!f.has_zero) return Class::normal;
  if ((mag >> f.mantissa_bits) != 0) return Class::normal;
  return mag == 0 ? Class::zero : Class::subnormal;
}

/// Check a (user-defined) format; returns FormatError::ok when every routine supports it.
MINIFLOAT_HOST_DEVICE constexpr FormatError validate(Format f) noexcept {
  if (f.bits != static_cast<int>(f.is_signed) + f.exponent_bits + f.mantissa_bits) return FormatError::bits_mismatch;
  if (f.bits > 64 || f.bits < 2) return FormatError::bits_out_of_range;
  if (f.exponent_bits < 1 || f.exponent_bits > 16) return FormatError::exponent_too_wide;
  if (f.mantissa_bits > 52) return FormatError::mantissa_too_wide;
  if (f.bias > kMaxAbsBias || f.bias < -kMaxAbsBias) return FormatError::bias_out_of_range;
  if (f.specials == Specials::ieee && f.mantissa_bits == 0) return FormatError::ieee_needs_mantissa;
  if (f.specials == Specials::fnuz && !f.is_signed) return FormatError::unsigned_fnuz;
  if (!f.has_zero && f.specials != Specials::fn && f.specials != Specials::none) return FormatError::no_zero_needs_fn;
  if (max_finite_magnitude(f) == 0 || max_finite_magnitude(f) > magnitude_mask(f)) return FormatError::no_finite_values;
  if (f.has_zero && max_finite_magnitude(f) < 1) return FormatError::no_finite_values;
  return FormatError::ok;
}

/// P3109 signedness (the s/u of Binary{K}p{P}{s|u}{e|f}).
enum class Signedness : std::uint8_t { signed_, unsigned_ };
/// P3109 domain (the e/f of Binary{K}p{P}{s|u}{e|f}): finite, or extended with ±Inf.
enum class P3109Domain : std::uint8_t { finite, extended };

/// IEEE P3109 format Binary{K}p{P}{s|u}{e|f} (interim report v4.0 §3.1, Annex B):
/// signed: sign bit, K−P exponent bits, bias 2^(K−P−1); unsigned: K−P+1 exponent bits,
/// bias 2^(K−P); P−1 trailing significand bits; a single zero; a single NaN
/// (signed: 2^(K−1), unsigned: 2^K − 1); extended formats add Inf (signed: 2^(K−1) − 1 and
/// 2^K − 1; unsigned: +Inf = 2^K − 2). Requires 3 ≤ K ≤ 16 (K = 2 for unsigned), 1 ≤ P < K
/// (signed) or 1 ≤ P ≤ K (unsigned).
/// Example: p3109(8, 3, Signedness::signed_, P3109Domain::extended) is Binary8p3se.
MINIFLOAT_HOST_DEVICE constexpr Format p3109(int k, int p, Signedness signedness, P3109Domain domain) noexcept {
  const bool is_signed = signedness == Signedness::signed_;
  const int ebits = is_signed ? k - p : k - p + 1;
  const int bias = is_signed ? (1 << (k - p - 1)) : (1 << (k - p));
  return Format{.bits = static_cast<std::uint8_t>(k),
                .exponent_bits = static_cast<std::uint8_t>(ebits),
                .mantissa_bits = static_cast<std::uint8_t>(p - 1),
                .bias = bias,
                .is_signed = is_signed,
                .specials = domain == P3109Domain::extended ? Specials::p3109_extended
                                                            : (is_signed ? Specials::fnuz : Specials::fn),
                .has_zero = true};
}

/// The named formats. Limits in the comments are pinned by tests/unit/format_test.cpp.
namespace formats {
/// OCP OFP8 E4M3 (`float8_e4m3fn`): S.EEEE.MMM, bias 7, no Inf, NaN 0x7f/0xff,
/// max 0x7e = 1.75·2^8 = 448, min normal 2^−6, min subnormal 2^−9. OCP OFP8 v1.0 Table 1.
inline constexpr Format e4m3fn{.bits = 8,
                               .exponent_bits = 4,
                               .mantissa_bits = 3,
                               .bias = 7,
                               .is_signed = true,
                               .specials = Specials::fn,
                               .has_zero = true};
/// OCP OFP8 E5M2 (`float8_e5m2`): S.EEEEE.MM, bias 15, IEEE Inf 0x7c/0xfc and NaNs,
/// max 0x7b = 1.75·2^15 = 57344, min subnormal 2^−16. OCP OFP8 v1.0 Table 1.
inline constexpr Format e5m2{.bits = 8,
                             .exponent_bits = 5,
                             .mantissa_bits = 2,
                             .bias = 15,
                             .is_signed = true,
                             .specials = Specials::ieee,
                             .has_zero = true};
/// `float8_e4m3fnuz` (AMD MI300 / Graphcore): bias 8, no Inf, no −0, NaN 0x80, max 0x7f = 240.
inline constexpr Format e4m3fnuz{.bits = 8,
                                 .exponent_bits = 4,
                                 .mantissa_bits = 3,
                                 .bias = 8,
                                 .is_signed = true,
                                 .specials = Specials::fnuz,
                                 .has_zero = true};
/// `float8_e5m2fnuz`: bias 16, no Inf, no −0, NaN 0x80, max 0x7f = 57344, min subnormal 2^−17.
inline constexpr Format e5m2fnuz{.bits = 8,
                                 .exponent_bits = 5,
                                 .mantissa_bits = 2,
                                 .bias = 16,
                                 .is_signed = true,
                                 .specials = Specials::fnuz,
                                 .has_zero = true};
/// `float8_e4m3b11fnuz` (TPU): bias 11, no Inf, no −0, NaN 0x80, max 0x7f = 30.
inline constexpr Format e4m3b11fnuz{.bits = 8,
                                    .exponent_bits = 4,
                                    .mantissa_bits = 3,
                                    .bias = 11,
                                    .is_signed = true,
                                    .specials = Specials::fnuz,
                                    .has_zero = true};
/// IEEE-like `float8_e4m3` (ml_dtypes; LLVM Float8E4M3): bias 7, Inf 0x78, max 0x77 = 240.
inline constexpr Format e4m3{.bits = 8,
                             .exponent_bits = 4,
                             .mantissa_bits = 3,
                             .bias = 7,
                             .is_signed = true,
                             .specials = Specials::ieee,
                             .has_zero = true};
/// IEEE-like `float8_e3m4` (ml_dtypes): bias 3, Inf 0x70, max 0x6f = 15.5.
inline constexpr Format e3m4{.bits = 8,
                             .exponent_bits = 3,
                             .mantissa_bits = 4,
                             .bias = 3,
                             .is_signed = true,
                             .specials = Specials::ieee,
                             .has_zero = true};
/// OCP MX FP6 E3M2 (`float6_e3m2fn`): 6 bits S.EEE.MM, bias 3, no Inf/NaN, max 0x1f = 28.
inline constexpr Format e3m2fn{.bits = 6,
                               .exponent_bits = 3,
                               .mantissa_bits = 2,
                               .bias = 3,
                               .is_signed = true,
                               .specials = Specials::none,
                               .has_zero = true};
/// OCP MX FP6 E2M3 (`float6_e2m3fn`): 6 bits S.EE.MMM, bias 1, no Inf/NaN, max 0x1f = 7.5.
inline constexpr Format e2m3fn{.bits = 6,
                               .exponent_bits = 2,
                               .mantissa_bits = 3,
                               .bias = 1,
                               .is_signed = true,
                               .specials = Specials::none,
                               .has_zero = true};
/// OCP MX FP4 E2M1 (`float4_e2m1fn`): 4 bits S.EE.M, bias 1, no Inf/NaN,
/// values {0, 0.5, 1, 1.5, 2, 3, 4, 6}, max 0x7 = 6.
inline constexpr Format e2m1fn{.bits = 4,
                               .exponent_bits = 2,
                               .mantissa_bits = 1,
                               .bias = 1,
                               .is_signed = true,
                               .specials = Specials::none,
                               .has_zero = true};
/// OCP MX scale E8M0 (`float8_e8m0fnu`, UE8M0): 8 exponent bits, unsigned, bias 127,
/// no zero, no Inf, NaN 0xff; 0x00 = 2^−127, 0x7f = 1, max 0xfe = 2^127. OCP MX v1.0 §5.4.1.
inline constexpr Format e8m0fnu{.bits = 8,
                                .exponent_bits = 8,
                                .mantissa_bits = 0,
                                .bias = 127,
                                .is_signed = false,
                                .specials = Specials::fn,
                                .has_zero = false};
/// NVFP4 block scale UE4M3 (PTX `.ue4m3`): 7 bits E.EEE.MMM, unsigned, bias 7, NaN 0x7f,
/// max 0x7e = 448.
inline constexpr Format ue4m3{.bits = 7,
                              .exponent_bits = 4,
                              .mantissa_bits = 3,
                              .bias = 7,
                              .is_signed = false,
                              .specials = Specials::fn,
                              .has_zero = true};
/// UE5M3 block scale (CUDA 13.4 `__nv_fp8_ue5m3`, LLVM APFloat `Float8E5M3FNU`, auto-round
/// `FLOAT8_UE5M3_MAX`): 8 bits EEEEE.MMM, unsigned, bias 15, no Inf, NaN 0xff only, subnormals,
/// zero 0x00; max 0xfe = 1.75·2^16 = 114688, min normal 0x08 = 2^−14, min subnormal 0x01 = 2^−17.
inline constexpr Format ue5m3{.bits = 8,
                              .exponent_bits = 5,
                              .mantissa_bits = 3,
                              .bias = 15,
                              .is_signed = false,
                              .specials = Specials::fn,
                              .has_zero = true};
/// IEEE 754 binary16.
inline constexpr Format f16{.bits = 16,
                            .exponent_bits = 5,
                            .mantissa_bits = 10,
                            .bias = 15,
                            .is_signed = true,
                            .specials = Specials::ieee,
                            .has_zero = true};
/// bfloat16: the top half of binary32.
inline constexpr Format bf16{.bits = 16,
                             .exponent_bits = 8,
                             .mantissa_bits = 7,
                             .bias = 127,
                             .is_signed = true,
                             .specials = Specials::ieee,
                             .has_zero = true};
/// NVIDIA TensorFloat-32 (PTX `.tf32`, CUDA `wmma::precision::tf32`): 19 bits S.EEEEEEEE.MMMMMMMMMM,
/// FP32's exponent (bias 127, IEEE Inf/NaN, subnormals) with 10 mantissa bits; held in memory as the
/// top 19 bits of an FP32 word (the low 13 bits ignored by the tensor core). NVIDIA A100 whitepaper (2020).
inline constexpr Format tf32{.bits = 19,
                             .exponent_bits = 8,
                             .mantissa_bits = 10,
                             .bias = 127,
                             .is_signed = true,
                             .specials = Specials::ieee,
                             .has_zero = true};
/// IEEE 754 binary32.
inline constexpr Format f32{.bits = 32,
                            .exponent_bits = 8,
                            .mantissa_bits = 23,
                            .bias = 127,
                            .is_signed = true,
                            .specials = Specials::ieee,
                            .has_zero = true};
/// IEEE 754 binary64.
inline constexpr Format f64{.bits = 64,
                            .exponent_bits = 11,
                            .mantissa_bits = 52,
                            .bias = 1023,
                            .is_signed = true,
                            .specials = Specials::ieee,
                            .has_zero = true};
}  // namespace formats

}  // namespace minifloat
