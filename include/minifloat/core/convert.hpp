// SPDX-License-Identifier: Apache-2.0
// core/convert.hpp: conversions between any two formats (f64/f32/f16/bf16 included) and from/to
// the C++ types double and float. Every path is unpack (exact) → round_pack (one rounding).
#pragma once
#include <cstdint>

#include "bits.hpp"
#include "config.hpp"
#include "format.hpp"
#include "profile.hpp"
#include "round_pack.hpp"
#include "rounding.hpp"
#include "unpacked.hpp"

namespace minifloat {

/// The exact value of `code` of format `from` as a conversion reads it: RoundingSpec::daz reads a
/// subnormal as ±0 (the sign kept; unpack() drops it where `from` has no −0).
MINIFLOAT_HOST_DEVICE constexpr Unpacked unpack_input(Format from, std::uint64_t code,
                                                      const RoundingSpec& spec) noexcept {
  Unpacked u = unpack(from, code);
  if (spec.daz && u.cls == Class::subnormal) {
    u.cls = Class::zero;
    u.sig = 0;
    u.exp = 0;
    u.sticky = false;
  }
  return u;
}

/// Convert `code` of format `from` into format `to`, rounding once.
///
/// Profile::source_via_f32 (D11) makes an f64 source take an rne step through f32 first
/// (ml_dtypes NumPy-array semantics; double rounding). Profile::decode_ftz (D17) flushes a
/// subnormal result in an IEEE target (f64/f32/f16/bf16 and other `Specials::ieee` formats) to ±0.
/// `rbits` are the random bits for Rounding::sr (see SrVariant).
/// Example: convert(formats::f32, 0x43e80000 /*464*/, formats::e4m3fn) = {0x7e, inexact}.
MINIFLOAT_HOST_DEVICE constexpr RoundResult convert(Format from, std::uint64_t code, Format to, RoundingSpec spec = {},
                                                    Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  Flags pre = flag_none;
  Unpacked u = unpack_input(from, code, spec);  // RoundingSpec::daz reads the input, not the f32 step below
  if (prof.source_via_f32 && from == formats::f64 && !(to == formats::f64) && !(to == formats::f32)) {
    Profile p32 = prof;
    p32.decode_ftz = false;
    const RoundResult r32 = round_pack(formats::f32, u, RoundingSpec{}, p32);
    u = unpack(formats::f32, r32.code);
    pre = r32.flags;
  }
  RoundResult r = round_pack(to, u, spec, prof, rbits);
  r.flags |= pre;
  if (prof.decode_ftz && to.specials == Specials::ieee && classify(to, r.code) == Class::subnormal)
    r.code &= sign_mask(to);
  return r;
}

/// Convert a double (exact binary64 input, rounded once).
MINIFLOAT_HOST_DEVICE inline RoundResult from_double(double v, Format to, RoundingSpec spec = {},
                                                     Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  return convert(formats::f64, detail::bit_cast<std::uint64_t>(v), to, spec, prof, rbits);
}
/// Convert a float (exact binary32 input, rounded once).
MINIFLOAT_HOST_DEVICE inline RoundResult from_float(float v, Format to, RoundingSpec spec = {},
                                                    Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  return convert(formats::f32, detail::bit_cast<std::uint32_t>(v), to, spec, prof, rbits);
}
namespace detail {
/// The exact value of a binary32 / binary64 (block scales, the Hadamard transform's exact sums).
MINIFLOAT_HOST_DEVICE inline Unpacked exact_f32(float x) noexcept {
  return unpack(formats::f32, bit_cast<std::uint32_t>(x));
}
MINIFLOAT_HOST_DEVICE inline Unpacked exact_f64(double x) noexcept {
  return unpack(formats::f64, bit_cast<std::uint64_t>(x));
}
}  // namespace detail
/// The exact value of `code` as a double (every format of ≤ 16 bits, and f32, decodes exactly;
/// NaN → quiet NaN with the code's sign where the format has one).
MINIFLOAT_HOST_DEVICE inline double to_double(Format from, std::uint64_t code) noexcept {
  return detail::bit_cast<double>(convert(from, code, formats::f64).code);
}
/// `code` as a float, rounded to nearest even (exact for every format of ≤ 16 bits but f16-range
/// overflow: e8m0fnu 0x00 → 2^−127 = 0x00400000).
MINIFLOAT_HOST_DEVICE inline float to_float(Format from, std::uint64_t code) noexcept {
  return detail::bit_cast<float>(static_cast<std::uint32_t>(convert(from, code, formats::f32).code));
}

}  // namespace minifloat
