// SPDX-License-Identifier: Apache-2.0
// core/profile.hpp: implementation-defined conversion choices where vendors disagree
// (spec-digest §9, D1–D4, D6, D11, D12, D17), each a named field with a documented default.
// A profile never chooses the rounding mode or the overflow policy: those are RoundingSpec's.
#pragma once
#include <cstdint>

#include "config.hpp"

namespace minifloat {

/// D3: sign of the NaN produced from a NaN *input*. (A NaN produced from ±Inf or a finite
/// overflow always keeps the value's sign, under every profile: CUDA NOSAT −464.00003 → e4m3fn 0xff.)
enum class NanSign : std::uint8_t {
  preserve,  ///< the input NaN's sign (OCP default, ml_dtypes): −NaN → e4m3fn 0xff
  positive,  ///< always positive (CUDA float API canonicalises to 0x7FFFFFFF first)
};
/// D3: which NaN code an IEEE-style target (e5m2, f16, …) receives.
enum class NanPayload : std::uint8_t {
  quiet,     ///< exponent all ones, top mantissa bit set: e5m2 0x7e, f32 0x7fc00000 (OCP, ml_dtypes)
  all_ones,  ///< every magnitude bit set: e5m2 0x7f, f32 0x7fffffff (CUDA __nv_cvt_float_to_fp8)
};
/// D4: a NaN converted into a format without NaN (e2m1fn, e2m3fn, e3m2fn).
enum class NanToFinite : std::uint8_t {
  positive_max,  ///< +max, flag invalid (CUDA: "NaN input values result in positive MAXNORM")
  negated_zero,  ///< ml_dtypes: the code of −0 with the NaN's sign flipped (+NaN → 0x8 in e2m1fn, −NaN → 0x0)
};
/// D1: finite overflow under Overflow::nonsat into an FNUZ format (no Inf).
enum class FnuzOverflow : std::uint8_t {
  nan,               ///< NaN 0x80 (ml_dtypes, LLVM)
  hip_max_exponent,  ///< AMD HIP __HIP_NOSAT quirk: sign | all-ones exponent | zero mantissa (e4m3fnuz 0x78 = 128)
};
/// D6/D12: a negative nonzero value (or −Inf) into an unsigned format.
enum class UnsignedNegative : std::uint8_t {
  nan,          ///< NaN with flag invalid (OCP default for e8m0fnu; ml_dtypes; P3109 v4.0 SatNone)
  clamp,        ///< the smallest value: 0, or the minimum where there is no zero (p3109-cpp OvfInf)
  magnitude,    ///< convert |x| (CUDA __nv_cvt_float_to_e8m0: −4 → 0x81)
  by_overflow,  ///< P3109 v4.0 §4.7.3/§4.7.5: round first; a result of 0 stays 0, else NaN under nonsat
                ///< (SatNone) and clamp under satfinite/satpropagate
};
/// D6: an exact zero into a format without zero (e8m0fnu).
enum class ZeroWithoutZero : std::uint8_t {
  min_code,               ///< the smallest code (e8m0fnu 0x00 = 2^−127) with underflow|inexact (OCP, CUDA)
  nan,                    ///< NaN with invalid (P3109-style)
  nan_unless_saturating,  ///< ml_dtypes (spec-digest T9): NaN 0xff with invalid under nonsat, the minimum code
                          ///< 0x00 under satfinite/satpropagate (its kSaturate cast)
};
/// D6: rne ties and rto's parity in formats without mantissa bits (a tie is 1.5·2^k).
enum class ZeroMantissaTies : std::uint8_t {
  up,         ///< rne: a tie goes to 2^(k+1) (MPFR at precision 1, ml_dtypes): e8m0fnu rne(1.5) = 0x80. rto: the
              ///< one kept bit (the implicit 1) counts as odd, so rto truncates, as round to odd at precision 1
              ///< does: e8m0fnu rto(3) = 0x80, rto(6) = 0x81, rto(1.5) = 0x7f
  even_code,  ///< parity from the code (P3109 v4.0 §4.7.4, "IsEven(Q + B)" for P = 1): an rne tie goes to the
              ///< neighbour whose code is even, rto to the one whose code is odd
};

/// D6: a value strictly between the minimum 2^emin and 1.5·2^emin of a format with neither zero
/// nor mantissa bits (e8m0fnu: an f32 subnormal in (2^−127, 1.5·2^−127)), under rne or rna.
enum class E8m0Subnormal : std::uint8_t {
  nearest,  ///< the nearer code, the minimum (e8m0fnu 0x00 = 2^−127): OCP, CUDA, MPFR
  up,       ///< the next code (e8m0fnu 0x01 = 2^−126): torch 2.15 (c10 fp8e8m0fnu_from_fp32_value) and
            ///< ml_dtypes 0.6 round up whenever the guard bit and a lower bit are set, reading the
            ///< implicit bit of an f32 subnormal as 0 (checked against both: tests/check/, label peers)
};

/// What Overflow::nonsat means beyond the IEEE-style rules every format shares.
enum class NonsatOverflow : std::uint8_t {
  ieee,   ///< OCP/IEEE 754 §7.4: finite overflow → Inf, else NaN, else max; rto → ±max; ±Inf into a
          ///< format without Inf → NaN (e4m3fn 0x7f, FNUZ 0x80)
  p3109,  ///< P3109 v4.0 §4.7.5 SatNone: a finite-domain format (no Inf) saturates both finite overflow and
          ///< ±Inf to ±max instead of giving NaN; ToOdd overflows to ±Inf in signed extended formats and
          ///< to max in unsigned extended ones
  saturate_signed_fn,  ///< torch 2.15 casts: a signed format whose only special is NaN (Specials::fn:
                       ///< e4m3fn) saturates finite overflow and ±Inf to ±max (464.00003, +Inf → 0x7e);
                       ///< every other format as `ieee` (e5m2 → Inf, FNUZ → 0x80, e8m0fnu → 0xff)
};

/// The implementation-defined choices of one conversion. See `profiles::` for the named sets.
struct Profile {
  NanSign nan_sign = NanSign::preserve;
  NanPayload nan_payload = NanPayload::quiet;
  NanToFinite nan_to_finite = NanToFinite::positive_max;
  FnuzOverflow fnuz_overflow = FnuzOverflow::nan;
  UnsignedNegative unsigned_negative = UnsignedNegative::nan;
  ZeroWithoutZero zero_without_zero = ZeroWithoutZero::min_code;
  ZeroMantissaTies zero_mantissa_ties = ZeroMantissaTies::up;
  NonsatOverflow nonsat_overflow = NonsatOverflow::ieee;
  E8m0Subnormal e8m0_subnormal = E8m0Subnormal::nearest;
  bool source_via_f32 =
      false;                ///< D11: an f64 source is first rounded to f32 (rne), as NumPy-array casts in ml_dtypes do
  bool decode_ftz = false;  ///< D17: decoding flushes subnormal f32/f64/f16/bf16 results to ±0 (FTZ/DAZ consumers)

  friend constexpr bool operator==(const Profile&, const Profile&) = default;
};

namespace profiles {
/// `ocp` (the default): OCP OFP8/MX. NaN keeps its sign (e4m3fn 0x7f/0xff, e5m2 0x7e/0xfe);
/// NaN into FP6/FP4 → +max (invalid); negative into unsigned → NaN; 0 → e8m0fnu 0x00;
/// e8m0fnu rne ties up; f64 sources round once.
inline constexpr Profile ocp{};
/// `nvidia`: CUDA 13 host conversions (cuda_fp8.hpp/cuda_fp6.hpp/cuda_fp4.hpp, float API):
/// NaN → 0x7f for every FP8 target (sign and payload dropped); FP6/FP4 NaN → +max;
/// e8m0fnu uses |x| and sends 0 to 0x00.
inline constexpr Profile nvidia{.nan_sign = NanSign::positive,
                                .nan_payload = NanPayload::all_ones,
                                .nan_to_finite = NanToFinite::positive_max,
                                .fnuz_overflow = FnuzOverflow::nan,
                                .unsigned_negative = UnsignedNegative::magnitude,
                                .zero_without_zero = ZeroWithoutZero::min_code,
                                .zero_mantissa_ties = ZeroMantissaTies::up,
                                .nonsat_overflow = NonsatOverflow::ieee,
                                .e8m0_subnormal = E8m0Subnormal::nearest,
                                .source_via_f32 = false,
                                .decode_ftz = false};
/// `ml_dtypes` (0.6, NumPy casts): NaN keeps its sign; FP6/FP4 NaN → the sign-flipped −0 code;
/// 0 into e8m0fnu → NaN (0x00 when saturating), negatives → NaN; e8m0fnu ties up and sends
/// (2^−127, 1.5·2^−127) up to 0x01 (E8m0Subnormal::up); f64 arrays go through f32 first.
inline constexpr Profile ml_dtypes{.nan_sign = NanSign::preserve,
                                   .nan_payload = NanPayload::quiet,
                                   .nan_to_finite = NanToFinite::negated_zero,
                                   .fnuz_overflow = FnuzOverflow::nan,
                                   .unsigned_negative = UnsignedNegative::nan,
                                   .zero_without_zero = ZeroWithoutZero::nan_unless_saturating,
                                   .zero_mantissa_ties = ZeroMantissaTies::up,
                                   .nonsat_overflow = NonsatOverflow::ieee,
                                   .e8m0_subnormal = E8m0Subnormal::up,
                                   .source_via_f32 = true,
                                   .decode_ftz = false};
/// `p3109`: IEEE P3109 interim report v4.0 projection (RoundToPrecision → Saturate → Encode):
/// a negative value into an unsigned format that does not round to 0 is NaN under SatNone
/// (= nonsat) and clamps to 0 under SatFinite/SatPropagate; P = 1 ties and round-to-odd use the
/// code's parity (IsEven(Q + B)); SatNone saturates finite-domain formats (NonsatOverflow::p3109).
inline constexpr Profile p3109{.nan_sign = NanSign::preserve,
                               .nan_payload = NanPayload::quiet,
                               .nan_to_finite = NanToFinite::positive_max,
                               .fnuz_overflow = FnuzOverflow::nan,
                               .unsigned_negative = UnsignedNegative::by_overflow,
                               .zero_without_zero = ZeroWithoutZero::nan,
                               .zero_mantissa_ties = ZeroMantissaTies::even_code,
                               .nonsat_overflow = NonsatOverflow::p3109,
                               .e8m0_subnormal = E8m0Subnormal::nearest,
                               .source_via_f32 = false,
                               .decode_ftz = false};
/// `torch` (PyTorch 2.15 `Tensor.to` casts, CPU; checked against torch 2.15.0, label peers):
/// e4m3fn saturates finite overflow and ±Inf to ±448 (NonsatOverflow::saturate_signed_fn); e5m2
/// overflows to Inf and its NaN keeps the sign with an all-ones mantissa (0x7f/0xff); FNUZ
/// overflow and Inf → 0x80; e8m0fnu uses |x|, sends 0 to 0x00, NaN/Inf/overflow to 0xff, ties up
/// and (2^−127, 1.5·2^−127) up to 0x01; f64 tensors round through f32 first.
inline constexpr Profile torch{.nan_sign = NanSign::preserve,
                               .nan_payload = NanPayload::all_ones,
                               .nan_to_finite = NanToFinite::positive_max,
                               .fnuz_overflow = FnuzOverflow::nan,
                               .unsigned_negative = UnsignedNegative::magnitude,
                               .zero_without_zero = ZeroWithoutZero::min_code,
                               .zero_mantissa_ties = ZeroMantissaTies::up,
                               .nonsat_overflow = NonsatOverflow::saturate_signed_fn,
                               .e8m0_subnormal = E8m0Subnormal::up,
                               .source_via_f32 = true,
                               .decode_ftz = false};
}  // namespace profiles

}  // namespace minifloat
