// SPDX-License-Identifier: Apache-2.0
// core/unpacked.hpp: the exact intermediate every conversion, operation and quantizer builds
// before the one rounding engine (round_pack.hpp) packs it into a code; and `unpack`, the
// exact decoding of a code.
#pragma once
#include <cstdint>

#include "config.hpp"
#include "format.hpp"

namespace minifloat {

/// An exact (or sticky-marked) value: for `cls` zero/normal/subnormal it is
/// `(−1)^negative · (sig + σ) · 2^exp` with σ = 0 when `sticky` is false and 0 < σ < 1 when it
/// is true (the value lies strictly between two multiples of 2^exp). `cls` is Class::normal for
/// every finite nonzero value (Class::subnormal is accepted too); `sig` must then be nonzero.
/// For inf/nan only `negative` is read.
struct Unpacked {
  Class cls = Class::zero;
  bool negative = false;
  std::uint64_t sig = 0;
  std::int32_t exp = 0;
  bool sticky = false;
};

/// Decode `code` of format `f` exactly (bits above f.bits are ignored). A finite code gives
/// `sig` = the integer significand (implicit bit included) and `exp` its weight.
/// FNUZ/P3109 zero is always positive. Example: unpack(formats::e4m3fn, 0x7e) =
/// {normal, +, sig 0b1110, exp 5} = 14·2^5 = 448.
MINIFLOAT_HOST_DEVICE constexpr Unpacked unpack(Format f, std::uint64_t code) noexcept {
  code &= code_mask(f);
  Unpacked u;
  u.cls = classify(f, code);
  u.negative = (code & sign_mask(f)) != 0;
  if (u.cls == Class::zero || u.cls == Class::inf || u.cls == Class::nan) {
    if (u.cls == Class::zero && !has_negative_zero(f)) u.negative = false;
    return u;
  }
  const std::uint64_t mag = code & magnitude_mask(f);
  const std::uint64_t e = mag >> f.mantissa_bits;
  const std::uint64_t m = mag & mantissa_mask(f);
  if (e == 0 && f.has_zero) {
    u.sig = m;
    u.exp = emin(f) - f.mantissa_bits;
  } else {
    u.sig = m | (std::uint64_t{1} << f.mantissa_bits);
    u.exp = static_cast<std::int32_t>(e) - f.bias - f.mantissa_bits;
  }
  return u;
}

}  // namespace minifloat
