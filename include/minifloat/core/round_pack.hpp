// SPDX-License-Identifier: Apache-2.0
// core/round_pack.hpp: THE rounding engine. Every conversion, arithmetic result and block
// quantizer of minifloat ends here: an exact Unpacked value (plus random bits for SR) is
// rounded once and packed into a code of the target Format.
#pragma once
#include <cstdint>

#include "bits.hpp"
#include "config.hpp"
#include "format.hpp"
#include "profile.hpp"
#include "rounding.hpp"
#include "unpacked.hpp"

namespace minifloat {

/// A code of the target format and the IEEE-style flags raised while producing it.
struct RoundResult {
  std::uint64_t code = 0;
  Flags flags = flag_none;
  friend constexpr bool operator==(const RoundResult&, const RoundResult&) = default;
};

namespace detail {

/// The magnitude |x| = sig·2^exp (+sticky) cut at quantum 2^q:
///   |x| / 2^q = I + ν,   ν = (frac + σ)/2^64,   0 ≤ ν < 1.
///
///     sig:  [ . . . I . . . | L  R  T T T T … ] sticky
///                           ^ 2^q: kept LSB is I's bit 0; frac holds R,T,… left-aligned
struct Cut {
  std::uint64_t I;
  std::uint64_t frac;  // the top 64 bits of ν
  bool low;            // nonzero bits below frac (the sticky of the sticky)
  bool g = false;      // the first bit below frac (bit 65 of ν): read only by SR with N = 64
  bool low2 = false;   // nonzero bits below g
  MINIFLOAT_HOST_DEVICE constexpr bool inexact() const noexcept { return frac != 0 || low; }
};

/// Precondition: the caller normalised sig to bit 63 when sticky is set, and q - exp ≥ 1
/// whenever sticky (always true then, since every target has precision ≤ 53).
MINIFLOAT_HOST_DEVICE constexpr Cut cut(std::uint64_t sig, int exp, bool sticky, int q) noexcept {
  const int shift = q - exp;
  if (shift <= 0) return Cut{sig << (-shift), 0, sticky, false, sticky};  // |shift| ≤ 52 here
  Cut c{shr(sig, shift), 0, sticky, false, sticky};
  if (shift <= 64) {
    c.frac = shift == 64 ? sig : (low_bits(sig, shift) << (64 - shift));
  } else {
    c.frac = shr(sig, shift - 64);
    c.low = c.low || low_bits(sig, shift - 64) != 0;
    c.g = ((shr(sig, shift - 65)) & 1) != 0;
    c.low2 = c.low2 || low_bits(sig, shift - 65) != 0;
  }
  return c;
}

/// Whether a + b + c ≥ 2^n for a, b < 2^n, c ∈ {0, 1}, 1 ≤ n ≤ 64 (no 128-bit type: n = 64 by the carry).
MINIFLOAT_HOST_DEVICE constexpr bool sum_reaches(std::uint64_t a, std::uint64_t b, bool c, int n) noexcept {
  if (n < 64) return a + b + (c ? 1u : 0u) >= (std::uint64_t{1} << n);
  const std::uint64_t s = a + b;
  return s < a || (c && s == ~std::uint64_t{0});
}

/// Whether rounding the magnitude I + ν moves up to I + 1 (mode table below; "odd" is the
/// parity of the code I would produce). rto is handled by the caller (it never increments).
///
/// | mode  | up when                                         |
/// |-------|-------------------------------------------------|
/// | rne   | ν > ½, or ν = ½ and odd                          |
/// | rna   | ν ≥ ½                                           |
/// | rnz   | ν > ½ (ties toward zero)                         |
/// | rnu   | ν > ½, or ν = ½ and x > 0 (ties toward +∞)       |
/// | rtz   | never                                           |
/// | rtp   | ν > 0 and x > 0;  rtn: ν > 0 and x < 0          |
/// | sr    | SrVariant (rounding.hpp), R = low N bits of rbits |
///
/// SR with N bits: t = floor(ν·2^N) = the top N bits of frac. B's floor(ν·2^(N+1)) + 2R + 1 ≥ 2^(N+1)
/// is t + R + b ≥ 2^N with b the next bit of ν (b = 1: 2t+2R+2 ≥ 2^(N+1); b = 0: the odd 2(t+R)+1
/// reaches the even 2^(N+1) iff 2(t+R) does), so every sum fits 64 bits or is a carry (sum_reaches).
MINIFLOAT_HOST_DEVICE constexpr bool rounds_up(const Cut& c, bool odd, bool negative, const RoundingSpec& spec,
                                               std::uint64_t rbits) noexcept {
  constexpr std::uint64_t half = std::uint64_t{1} << 63;
  if (!c.inexact()) return false;
  switch (spec.rounding) {
    case Rounding::rne: return c.frac > half || (c.frac == half && (c.low || odd));
    case Rounding::rna: return c.frac >= half;
    case Rounding::rtz: return false;
    case Rounding::rtp: return !negative;
    case Rounding::rtn: return negative;
    case Rounding::rto: return false;
    case Rounding::rnz: return c.frac > half || (c.frac == half && c.low);
    case Rounding::rnu: return c.frac > half || (c.frac == half && (c.low || !negative));
    case Rounding::sr: {
      // 1..64: every API boundary (span, stochastic, CLI) rejects other values with an error; the
      // core cannot throw, so it clamps here only to keep the shifts defined.
      const int n = spec.sr_bits < 1 ? 1 : (spec.sr_bits > 64 ? 64 : spec.sr_bits);
      const std::uint64_t r = low_bits(rbits, n);
      const std::uint64_t t = c.frac >> (64 - n);  // floor(ν·2^N)
      switch (spec.sr_variant) {
        case SrVariant::exact: return c.low ? rbits <= c.frac : rbits < c.frac;
        case SrVariant::a: return sum_reaches(t, r, false, n);
        case SrVariant::b: return sum_reaches(t, r, n == 64 ? c.g : ((c.frac >> (63 - n)) & 1) != 0, n);
        case SrVariant::c:
        case SrVariant::stochastic_odd: {  // t rounded to nearest: ties to even (C), to odd (StochasticOdd)
          bool above = c.g && c.low2, tie = c.g && !c.low2;  // N = 64: the bits below frac
          if (n < 64) {
            const std::uint64_t rest = low_bits(c.frac, 64 - n);
            const std::uint64_t h = std::uint64_t{1} << (63 - n);
            above = rest > h || (rest == h && c.low);
            tie = rest == h && !c.low;
          }
          const bool odd_t = (t & 1) != 0;
          const bool inc = above || (tie && (spec.sr_variant == SrVariant::c ? odd_t : !odd_t));
          return sum_reaches(t, r, inc, n);
        }
        case SrVariant::equal: return (rbits & 1) != 0;
      }
      return false;
    }
  }
  return false;
}

/// Round |x| at quantum 2^q to an integer significand (before any carry renormalisation).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t round_at(Format f, const Profile& prof, std::uint64_t sig, int exp,
                                                       bool sticky, int q, bool negative, const RoundingSpec& spec,
                                                       std::uint64_t rbits, bool& inexact) noexcept {
  const Cut c = cut(sig, exp, sticky, q);
  inexact = c.inexact();
  bool odd = (c.I & 1) != 0;
  if (f.mantissa_bits == 0 && c.I != 0)  // no mantissa: the kept LSB is the implicit bit
    odd = prof.zero_mantissa_ties == ZeroMantissaTies::up ? true : (((q + f.bias) & 1) != 0);
  std::uint64_t I = c.I;
  if (spec.rounding == Rounding::rto) {  // truncate, then move to the odd neighbour when inexact
    if (inexact && !odd) ++I;
  } else if (rounds_up(c, odd, negative, spec, rbits)) {
    ++I;
  }
  return I;
}

/// The NaN code of `f` with sign `negative` (where the format's NaN has a sign). Profile::nan_sign
/// is applied by the caller to NaN *inputs* only: a NaN created from ±Inf or a finite overflow
/// keeps the sign of the value (CUDA __nv_cvt_*_to_fp8 NOSAT: −464.00003 → e4m3fn 0xff).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t nan_code(Format f, const Profile& prof, bool negative) noexcept {
  const std::uint64_t s = negative ? sign_mask(f) : 0;
  switch (f.specials) {
    case Specials::ieee:
      return s | (prof.nan_payload == NanPayload::all_ones
                      ? magnitude_mask(f)
                      : (magnitude_mask(f) - mantissa_mask(f)) | (std::uint64_t{1} << (f.mantissa_bits - 1)));
    case Specials::fn: return s | magnitude_mask(f);
    case Specials::fnuz: return sign_mask(f);
    case Specials::p3109_extended: return f.is_signed ? sign_mask(f) : code_mask(f);
    case Specials::none: break;
  }
  return 0;
}

/// NonsatOverflow::saturate_signed_fn applies to `f` (torch: e4m3fn saturates under nonsat).
MINIFLOAT_HOST_DEVICE constexpr bool saturates_signed_fn(Format f, const Profile& prof) noexcept {
  return prof.nonsat_overflow == NonsatOverflow::saturate_signed_fn && f.specials == Specials::fn && f.is_signed;
}

}  // namespace detail

/// Round the exact value `x` once into format `f`.
///
/// Order of the rules (each documented at its enum):
///  1. NaN → the format's NaN (Profile::nan_sign/nan_payload), or Profile::nan_to_finite.
///  2. Negative nonzero (or −Inf) into an unsigned format → Profile::unsigned_negative.
///  3. ±Inf → Overflow policy (satfinite: ±max; nonsat/satpropagate: ±Inf, else NaN, else ±max).
///  4. Zero → ±0 (−0 only where the format has it); no zero code → Profile::zero_without_zero.
///  5. Finite: quantum q = max(⌊log2|x|⌋, emin) − mantissa_bits; round |x|/2^q to an integer by
///     `spec` (SR reads `rbits`: all 64 bits for SrVariant::exact, the low sr_bits otherwise);
///     overflow (the rounded magnitude exceeds max finite with the exponent unbounded) → policy.
///     Formats without zero send values below the minimum to the minimum code.
/// Flags: inexact; underflow = inexact and tiny after rounding (MPFR's rule); overflow; invalid.
MINIFLOAT_HOST_DEVICE constexpr RoundResult round_pack(Format f, Unpacked x, RoundingSpec spec = {},
                                                       Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  const std::uint64_t S = sign_mask(f);
  const std::uint64_t max_mag = max_finite_magnitude(f);
  auto max_code = [&](bool neg) { return max_mag | (neg ? S : 0); };

  // 1. NaN
  if (x.cls == Class::nan) {
    if (has_nan(f)) return {detail::nan_code(f, prof, x.negative && prof.nan_sign == NanSign::preserve), flag_none};
    if (prof.nan_to_finite == NanToFinite::negated_zero) return {x.negative ? 0 : S, flag_invalid};
    return {max_mag, flag_invalid};
  }
  // 2. negative into unsigned
  if (!f.is_signed && x.negative && x.cls != Class::zero) {
    UnsignedNegative rule = prof.unsigned_negative;
    if (rule == UnsignedNegative::by_overflow)
      rule = spec.overflow == Overflow::nonsat ? UnsignedNegative::nan : UnsignedNegative::clamp;
    if (prof.unsigned_negative == UnsignedNegative::by_overflow && x.cls != Class::inf && f.has_zero) {
      // P3109 rounds before it saturates: a negative value whose rounding is 0 becomes 0.
      Unpacked m = x;
      m.negative = false;
      std::uint64_t sig = m.sig;
      int exp = m.exp;
      if (m.sticky) {
        const int lz = 64 - detail::bit_width(sig);
        sig <<= lz;
        exp -= lz;
      }
      const int ex = exp + detail::bit_width(sig) - 1, em = emin(f);
      bool inexact = false;
      const std::uint64_t I = detail::round_at(f, prof, sig, exp, m.sticky, (ex > em ? ex : em) - f.mantissa_bits, true,
                                               spec, rbits, inexact);
      if (I == 0) return {0, flag_inexact | flag_underflow};
    }
    if (rule == UnsignedNegative::magnitude) {
      x.negative = false;
    } else if (rule == UnsignedNegative::nan && has_nan(f)) {
      return {detail::nan_code(f, prof, false), flag_invalid};
    } else {
      return {0, rule == UnsignedNegative::nan ? flag_invalid : flag_inexact};
    }
  }
  const bool neg = x.negative && f.is_signed;
  // 3. infinities
  if (x.cls == Class::inf) {
    if (spec.overflow == Overflow::satfinite) return {max_code(neg), flag_inexact};
    if (!has_inf(f) && spec.overflow == Overflow::nonsat &&
        (prof.nonsat_overflow == NonsatOverflow::p3109 || detail::saturates_signed_fn(f, prof)))
      return {max_code(neg), flag_inexact};
    if (has_inf(f)) return {inf_code(f, detail::sign_of(neg)), flag_none};
    if (has_nan(f)) return {detail::nan_code(f, prof, neg), flag_invalid};
    return {max_code(neg), flag_inexact};
  }
  // 4. zero
  if (x.cls == Class::zero || x.sig == 0) {
    if (!f.has_zero) {
      const bool to_nan =
          prof.zero_without_zero == ZeroWithoutZero::nan ||
          (prof.zero_without_zero == ZeroWithoutZero::nan_unless_saturating && spec.overflow == Overflow::nonsat);
      if (to_nan && has_nan(f)) return {detail::nan_code(f, prof, false), flag_invalid};
      return {neg ? S : 0, flag_underflow | flag_inexact};
    }
    return {(neg && has_negative_zero(f)) ? S : 0, flag_none};
  }
  // 5. finite nonzero
  std::uint64_t sig = x.sig;
  int exp = x.exp;
  if (x.sticky) {  // normalise so the sticky bits sit below every target's quantum
    const int lz = 64 - detail::bit_width(sig);
    sig <<= lz;
    exp -= lz;
  }
  const int M = f.mantissa_bits;
  const int em = emin(f);
  const int ex = exp + detail::bit_width(sig) - 1;  // floor(log2 |x|)
  if (!f.has_zero && ex < em) return {neg ? S : 0, flag_underflow | flag_inexact};

  int q = (ex > em ? ex : em) - M;
  bool inexact = false;
  std::uint64_t I = detail::round_at(f, prof, sig, exp, x.sticky, q, neg, spec, rbits, inexact);
  if (!f.has_zero && M == 0 && ex == em && I == 1 && inexact && prof.e8m0_subnormal == E8m0Subnormal::up &&
      (spec.rounding == Rounding::rne || spec.rounding == Rounding::rna))
    I = 2;                    // Profile::e8m0_subnormal: (2^emin, 1.5·2^emin) goes up, as torch and ml_dtypes do
  if ((I >> (M + 1)) != 0) {  // carry out of the top: 1.11…1 → 10.00…0
    I >>= 1;
    ++q;
  }
  Flags flags = inexact ? flag_inexact : flag_none;
  if (inexact) {  // tininess after rounding: would the result, with unbounded exponent, be < 2^emin?
    bool tiny = ex < em - 1;
    if (ex == em - 1) {
      bool dummy = false;
      const std::uint64_t J = detail::round_at(f, prof, sig, exp, x.sticky, ex - M, neg, spec, rbits, dummy);
      tiny = (J >> (M + 1)) == 0;
    }
    if (tiny) flags |= flag_underflow;
  }
  if (spec.ftz && f.has_zero && I != 0 && (I >> M) == 0) {  // RoundingSpec::ftz: a subnormal result → ±0
    I = 0;
    flags |= flag_inexact | flag_underflow;
  }
  if (I == 0) return {(neg && has_negative_zero(f)) ? S : 0, flags};

  std::uint64_t ebiased = 0, mant = I;
  if ((I >> M) != 0) {
    ebiased = static_cast<std::uint64_t>(q + M + f.bias);  // ≥ 1 (or ≥ 0 without zero)
    mant = I - (std::uint64_t{1} << M);
  }
  const bool overflow = ebiased > (max_mag >> M) || ((ebiased << M) | mant) > max_mag;
  if (!overflow) return {((ebiased << M) | mant) | (neg ? S : 0), flags};

  flags |= flag_overflow | flag_inexact;
  const Rounding r = spec.rounding;
  const bool toward_max =
      r == Rounding::rtz || r == Rounding::rto || (r == Rounding::rtp && neg) || (r == Rounding::rtn && !neg);
  if (spec.overflow != Overflow::nonsat || toward_max) {
    const bool p3109_odd_to_inf = r == Rounding::rto && prof.nonsat_overflow == NonsatOverflow::p3109 &&
                                  spec.overflow == Overflow::nonsat && has_inf(f) && f.is_signed;
    if (!p3109_odd_to_inf) return {max_code(neg), flags};
  }
  if (prof.nonsat_overflow == NonsatOverflow::p3109 && !has_inf(f)) return {max_code(neg), flags};
  if (detail::saturates_signed_fn(f, prof)) return {max_code(neg), flags};
  if (f.specials == Specials::fnuz && prof.fnuz_overflow == FnuzOverflow::hip_max_exponent)
    return {(magnitude_mask(f) - mantissa_mask(f)) | (neg ? S : 0), flags};
  if (has_inf(f)) return {inf_code(f, detail::sign_of(neg)), flags};
  if (has_nan(f)) return {detail::nan_code(f, prof, neg), flags};
  return {max_code(neg), flags};
}

}  // namespace minifloat
