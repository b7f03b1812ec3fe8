// SPDX-License-Identifier: Apache-2.0
// core/arith.hpp: correctly rounded scalar arithmetic (add sub mul div fma sqrt, IEEE minimum/maximum
// and minimumNumber/maximumNumber) on codes of any formats, computed exactly and rounded once by
// round_pack.
#pragma once
#include <cstdint>

#include "bits.hpp"
#include "config.hpp"
#include "format.hpp"
#include "profile.hpp"
#include "round_pack.hpp"
#include "rounding.hpp"
#include "unpacked.hpp"

/// \file
/// Every operation here builds the EXACT result as an `Unpacked` (a 64-bit significand plus a
/// sticky bit that stands for the discarded non-zero tail) and calls `round_pack` once. Nothing is
/// computed in float/double. Operands may be of different formats; the result format `out` is
/// explicit. All formats accepted by `validate()` are supported (precision ≤ 53, i.e. up to f64;
/// an f64 fma is exact: the 106-bit product and the addend meet in a 256-bit window with a
/// right-shift-with-jam for terms far below it).
///
/// ## IEEE 754-2019 special cases (all pinned by tests/arith)
/// | case                                   | result                                   | flags     |
/// |----------------------------------------|------------------------------------------|-----------|
/// | any operand NaN                        | NaN with the sign of the first NaN operand (a, b, c order) | none (no signalling NaNs) |
/// | Inf − Inf, Inf + (−Inf), fma Inf·x − Inf | default NaN (positive)                 | invalid   |
/// | 0 · Inf (mul and fma, even if c is Inf)| default NaN                              | invalid   |
/// | 0/0, Inf/Inf                           | default NaN                              | invalid   |
/// | x/0, x finite nonzero                  | ±Inf (sign = xor); see "divide by zero"  | none      |
/// | sqrt(x), x < 0 (incl. −Inf)            | default NaN                              | invalid   |
/// | sqrt(−0)                               | −0                                       | none      |
/// | exact zero sum of nonzero terms (x + (−x), fma with a·b = −c) | +0, but −0 under rtn | none |
/// | (+0) + (+0) = +0; (−0) + (−0) = −0; (+0) + (−0) = +0 (−0 under rtn) | IEEE §6.3 |  |
/// Then the NaN/Inf result goes through `round_pack` like any value: formats without NaN get
/// Profile::nan_to_finite, formats without Inf get the Overflow policy (satfinite: ±max; nonsat:
/// NaN where there is one, else ±max), exactly as a conversion of ±Inf/NaN would.
///
/// **Divide by zero**: `Flags` has no divide-by-zero bit (core API), so x/0 raises no flag; a
/// caller that needs the IEEE divideByZero exception tests `classify(b) == Class::zero` on a
/// finite nonzero dividend.
///
/// **Stochastic rounding** (`Rounding::sr`, `rbits`): the exact result reaches round_pack as 64
/// significant bits plus sticky, so the discarded fraction ν is known to 64 − p bits (p = target
/// precision) plus a sticky bit. SrVariant a/b/c with N random bits are exact whenever
/// p + N + 1 ≤ 64 (every ≤ 16-bit target with N ≤ 32; f32 targets with N ≤ 32 are exact too, f64
/// targets are not). SrVariant::exact compares 64 random bits to that truncated ν (bias < 2^(p−64)).
///
/// **Profile**: the NaN encoding, NaN into NaN-less formats, negatives into unsigned formats and
/// zero into e8m0fnu follow the Profile as in `round_pack`; `source_via_f32` and `decode_ftz`
/// (conversion-only choices) are not applied by arithmetic.

namespace minifloat {

/// Result of an exact comparison (IEEE 754-2019 §5.11): NaN compares unordered with everything;
/// −0 == +0 here (minimum/maximum order them separately).
enum class Ordering : std::int8_t { less = -1, equal = 0, greater = 1, unordered = 2 };

namespace detail {

/// A 256-bit unsigned integer, w[0] least significant. Only what exact arithmetic needs.
struct Wide {
  std::uint64_t w[4] = {0, 0, 0, 0};
};

MINIFLOAT_HOST_DEVICE constexpr Wide wide(std::uint64_t lo) noexcept {
  Wide r;
  r.w[0] = lo;
  return r;
}
MINIFLOAT_HOST_DEVICE constexpr bool wide_is_zero(const Wide& a) noexcept {
  return (a.w[0] | a.w[1] | a.w[2] | a.w[3]) == 0;
}
MINIFLOAT_HOST_DEVICE constexpr int wide_bit_width(const Wide& a) noexcept {
  for (int i = 3; i >= 0; --i)
    if (a.w[i] != 0) return 64 * i + bit_width(a.w[i]);
  return 0;
}
/// a << s (0 ≤ s); bits shifted past bit 255 are lost (callers guarantee there are none).
MINIFLOAT_HOST_DEVICE constexpr Wide wide_shl(const Wide& a, int s) noexcept {
  Wide r;
  if (s >= 256) return r;
  const int limbs = s / 64, bits = s % 64;
  for (int i = 3; i >= limbs; --i) {
    std::uint64_t v = a.w[i - limbs] << bits;
    if (bits != 0 && i - limbs - 1 >= 0) v |= a.w[i - limbs - 1] >> (64 - bits);
    r.w[i] = v;
  }
  return r;
}
/// Bits s and above of a, i.e. floor(a / 2^s), and whether any lower bit was set.
MINIFLOAT_HOST_DEVICE constexpr Wide wide_shr(const Wide& a, int s, bool& lost) noexcept {
  Wide r;
  lost = false;
  if (s <= 0) return a;
  if (s >= 256) {
    lost = !wide_is_zero(a);
    return r;
  }
  const int limbs = s / 64, bits = s % 64;
  for (int i = 0; i < limbs; ++i) lost = lost || a.w[i] != 0;
  if (bits != 0) lost = lost || low_bits(a.w[limbs], bits) != 0;
  for (int i = 0; i + limbs < 4; ++i) {
    std::uint64_t v = a.w[i + limbs] >> bits;
    if (bits != 0 && i + limbs + 1 < 4) v |= a.w[i + limbs + 1] << (64 - bits);
    r.w[i] = v;
  }
  return r;
}
/// Shift right with jam: the lost bits are ORed into bit 0 (SoftFloat shiftRightJam).
MINIFLOAT_HOST_DEVICE constexpr Wide wide_shr_jam(const Wide& a, int s) noexcept {
  bool lost = false;
  Wide r = wide_shr(a, s, lost);
  if (lost) r.w[0] |= 1;
  return r;
}
MINIFLOAT_HOST_DEVICE constexpr int wide_cmp(const Wide& a, const Wide& b) noexcept {
  for (int i = 3; i >= 0; --i)
    if (a.w[i] != b.w[i]) return a.w[i] < b.w[i] ? -1 : 1;
  return 0;
}
MINIFLOAT_HOST_DEVICE constexpr Wide wide_add(const Wide& a, const Wide& b) noexcept {
  Wide r;
  std::uint64_t carry = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t s = a.w[i] + b.w[i];
    const std::uint64_t c1 = s < a.w[i] ? 1u : 0u;
    r.w[i] = s + carry;
    carry = c1 + (r.w[i] < s ? 1u : 0u);
  }
  return r;
}
/// a − b, requires a ≥ b.
MINIFLOAT_HOST_DEVICE constexpr Wide wide_sub(const Wide& a, const Wide& b) noexcept {
  Wide r;
  std::uint64_t borrow = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t d = a.w[i] - b.w[i];
    const std::uint64_t b1 = a.w[i] < b.w[i] ? 1u : 0u;
    r.w[i] = d - borrow;
    borrow = b1 + (d < borrow ? 1u : 0u);
  }
  return r;
}
/// The exact 128-bit product of two 64-bit integers.
MINIFLOAT_HOST_DEVICE constexpr Wide mul64(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  Wide r;
  r.w[0] = (p00 & 0xffffffffu) | (mid << 32);
  r.w[1] = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  return r;
}

/// An exact signed term (−1)^neg · sig · 2^exp.
struct Term {
  bool neg = false;
  Wide sig;
  std::int32_t exp = 0;
};

/// The top 64 bits of `sig` as an Unpacked, the rest (and `sticky`) folded into the sticky bit.
MINIFLOAT_HOST_DEVICE constexpr Unpacked wide_to_unpacked(bool neg, const Wide& sig, int exp, bool sticky) noexcept {
  Unpacked u;
  u.negative = neg;
  const int n = wide_bit_width(sig);
  if (n == 0) {
    u.cls = Class::zero;
    return u;
  }
  u.cls = Class::normal;
  bool lost = false;
  const Wide top = wide_shr(sig, n > 64 ? n - 64 : 0, lost);
  u.sig = top.w[0];
  u.exp = exp + (n > 64 ? n - 64 : 0);
  u.sticky = lost || sticky;
  return u;
}

/// Exact x + y of two nonzero terms (|sig| < 2^106 each), as Unpacked (top 64 bits + sticky).
/// Returns cls zero with `negative` from `zero_negative` when the sum is exactly zero.
MINIFLOAT_HOST_DEVICE constexpr Unpacked add_terms(Term x, Term y, bool zero_negative) noexcept {
  const int nx = wide_bit_width(x.sig), ny = wide_bit_width(y.sig);
  if (ny + y.exp > nx + x.exp) {  // x holds the higher leading bit
    const Term t = x;
    x = y;
    y = t;
  }
  const int sx = 255 - wide_bit_width(x.sig);  // x's leading bit at 254: one bit of carry room
  const Wide X = wide_shl(x.sig, sx);
  const int ex = x.exp - sx;
  const int d = y.exp - ex;
  // y's leading bit is at or below 254 after alignment; bits below 2^ex are jammed. A jam happens
  // only when y's leading bit is ≥ 149 positions below x's, so at most one bit cancels and the
  // jammed bit stays far below every rounding position.
  const Wide Y = d >= 0 ? wide_shl(y.sig, d) : wide_shr_jam(y.sig, -d);
  if (x.neg == y.neg) return wide_to_unpacked(x.neg, wide_add(X, Y), ex, false);
  const int c = wide_cmp(X, Y);
  if (c == 0) {
    Unpacked z;
    z.negative = zero_negative;
    return z;
  }
  return c > 0 ? wide_to_unpacked(x.neg, wide_sub(X, Y), ex, false)
               : wide_to_unpacked(y.neg, wide_sub(Y, X), ex, false);
}

MINIFLOAT_HOST_DEVICE constexpr Term term_of(const Unpacked& u) noexcept {
  return Term{u.negative, wide(u.sig), u.exp};
}
MINIFLOAT_HOST_DEVICE constexpr bool is_nan(const Unpacked& u) noexcept { return u.cls == Class::nan; }
MINIFLOAT_HOST_DEVICE constexpr bool is_inf(const Unpacked& u) noexcept { return u.cls == Class::inf; }
MINIFLOAT_HOST_DEVICE constexpr bool is_zero(const Unpacked& u) noexcept {
  return u.cls == Class::zero || ((u.cls == Class::normal || u.cls == Class::subnormal) && u.sig == 0);
}
MINIFLOAT_HOST_DEVICE constexpr Unpacked special(Class c, bool neg) noexcept {
  Unpacked u;
  u.cls = c;
  u.negative = neg;
  return u;
}

/// An exact arithmetic result before rounding, plus the flag the operation itself raised.
struct Exact {
  Unpacked value;
  bool invalid = false;
};

MINIFLOAT_HOST_DEVICE constexpr Exact exact_add(Unpacked a, Unpacked b, Rounding r) noexcept {
  if (is_nan(a)) return {a};
  if (is_nan(b)) return {b};
  if (is_inf(a) || is_inf(b)) {
    if (is_inf(a) && is_inf(b) && a.negative != b.negative) return {special(Class::nan, false), true};
    return {is_inf(a) ? a : b};
  }
  const bool za = is_zero(a), zb = is_zero(b);
  if (za && zb) {
    const bool neg = a.negative == b.negative ? a.negative : r == Rounding::rtn;
    return {special(Class::zero, neg)};
  }
  if (za) return {b};
  if (zb) return {a};
  return {add_terms(term_of(a), term_of(b), r == Rounding::rtn)};
}

MINIFLOAT_HOST_DEVICE constexpr Exact exact_mul(Unpacked a, Unpacked b) noexcept {
  if (is_nan(a)) return {a};
  if (is_nan(b)) return {b};
  const bool neg = a.negative != b.negative;
  if (is_inf(a) || is_inf(b)) {
    if (is_zero(a) || is_zero(b)) return {special(Class::nan, false), true};
    return {special(Class::inf, neg)};
  }
  if (is_zero(a) || is_zero(b)) return {special(Class::zero, neg)};
  return {wide_to_unpacked(neg, mul64(a.sig, b.sig), a.exp + b.exp, false)};
}

MINIFLOAT_HOST_DEVICE constexpr Exact exact_fma(Unpacked a, Unpacked b, Unpacked c, Rounding r) noexcept {
  if (is_nan(a)) return {a};
  if (is_nan(b)) return {b};
  if (is_nan(c)) return {c};
  const bool pneg = a.negative != b.negative;
  if (is_inf(a) || is_inf(b)) {
    if (is_zero(a) || is_zero(b)) return {special(Class::nan, false), true};
    if (is_inf(c) && c.negative != pneg) return {special(Class::nan, false), true};
    return {special(Class::inf, pneg)};
  }
  if (is_inf(c)) return {c};
  const bool pzero = is_zero(a) || is_zero(b);
  if (pzero && is_zero(c)) {
    const bool neg = pneg == c.negative ? pneg : r == Rounding::rtn;
    return {special(Class::zero, neg)};
  }
  if (pzero) return {c};
  const Term p{pneg, mul64(a.sig, b.sig), a.exp + b.exp};
  if (is_zero(c)) return {wide_to_unpacked(p.neg, p.sig, p.exp, false)};
  return {add_terms(p, term_of(c), r == Rounding::rtn)};
}

MINIFLOAT_HOST_DEVICE constexpr Exact exact_div(Unpacked a, Unpacked b) noexcept {
  if (is_nan(a)) return {a};
  if (is_nan(b)) return {b};
  const bool neg = a.negative != b.negative;
  if (is_inf(a)) {
    if (is_inf(b)) return {special(Class::nan, false), true};
    return {special(Class::inf, neg)};
  }
  if (is_inf(b)) return {special(Class::zero, neg)};
  if (is_zero(b)) {
    if (is_zero(a)) return {special(Class::nan, false), true};
    return {special(Class::inf, neg)};  // divide by zero (no flag bit in Flags)
  }
  if (is_zero(a)) return {special(Class::zero, neg)};
  // Both significands to [2^62, 2^63); restoring division gives q = floor(A·2^63 / B) with
  // 2^62 ≤ q < 2^64 (≥ 63 significant bits) and the remainder as sticky.
  const int sa = 63 - bit_width(a.sig), sb = 63 - bit_width(b.sig);
  const std::uint64_t B = b.sig << sb;
  std::uint64_t rem = a.sig << sa, q = 0;
  for (int i = 0; i < 64; ++i) {
    q <<= 1;
    if (rem >= B) {
      rem -= B;
      q |= 1;
    }
    rem <<= 1;
  }
  Unpacked u;
  u.cls = Class::normal;
  u.negative = neg;
  u.sig = q;
  u.exp = a.exp - sa - (b.exp - sb) - 63;
  u.sticky = rem != 0;
  return {u};
}

MINIFLOAT_HOST_DEVICE constexpr Exact exact_sqrt(Unpacked a) noexcept {
  if (is_nan(a)) return {a};
  if (is_zero(a)) return {special(Class::zero, a.negative)};
  if (a.negative) return {special(Class::nan, false), true};
  if (is_inf(a)) return {a};
  // N = sig << k with exp − k even and 2^124 ≤ N < 2^126, so 2^62 ≤ floor(sqrt N) < 2^63.
  int k = 125 - (bit_width(a.sig) - 1);
  if (((a.exp - k) & 1) != 0) --k;
  const Wide N = wide_shl(wide(a.sig), k);
  std::uint64_t root = 0;
  for (int bit = 62; bit >= 0; --bit) {
    const std::uint64_t t = root | (std::uint64_t{1} << bit);
    if (wide_cmp(mul64(t, t), N) <= 0) root = t;
  }
  Unpacked u;
  u.cls = Class::normal;
  u.sig = root;
  u.exp = (a.exp - k) / 2;  // exact: a.exp − k is even
  u.sticky = wide_cmp(mul64(root, root), N) != 0;
  return {u};
}

/// Exact comparison of two decoded values (−0 == +0; NaN unordered).
MINIFLOAT_HOST_DEVICE constexpr Ordering compare_unpacked(const Unpacked& a, const Unpacked& b) noexcept {
  if (is_nan(a) || is_nan(b)) return Ordering::unordered;
  // Map each value to (sign class, magnitude) with zero = 0 and inf above every finite value.
  const bool za = is_zero(a), zb = is_zero(b);
  if (za && zb) return Ordering::equal;
  const int sa = za ? 0 : (a.negative ? -1 : 1), sb = zb ? 0 : (b.negative ? -1 : 1);
  if (sa != sb) return sa < sb ? Ordering::less : Ordering::greater;
  // same nonzero sign: compare magnitudes, then flip for negatives
  int mag = 0;
  if (is_inf(a) || is_inf(b)) {
    mag = is_inf(a) == is_inf(b) ? 0 : (is_inf(a) ? 1 : -1);
  } else {
    const int la = bit_width(a.sig) + a.exp, lb = bit_width(b.sig) + b.exp;
    if (la != lb) {
      mag = la < lb ? -1 : 1;
    } else {
      const std::uint64_t x = a.sig << (64 - bit_width(a.sig)), y = b.sig << (64 - bit_width(b.sig));
      mag = x == y ? 0 : (x < y ? -1 : 1);
    }
  }
  if (sa < 0) mag = -mag;
  return mag == 0 ? Ordering::equal : (mag < 0 ? Ordering::less : Ordering::greater);
}

MINIFLOAT_HOST_DEVICE constexpr RoundResult finish(Format out, const Exact& e, RoundingSpec spec, Profile prof,
                                                   std::uint64_t rbits) noexcept {
  RoundResult r = round_pack(out, e.value, spec, prof, rbits);
  if (e.invalid) r.flags |= flag_invalid;
  return r;
}

/// IEEE 754-2019 §9.6 selection shared by the four min/max operations. `want_less`: minimum.
MINIFLOAT_HOST_DEVICE constexpr RoundResult select_minmax(Format fa, std::uint64_t a, Format fb, std::uint64_t b,
                                                          Format out, bool want_less, bool number, RoundingSpec spec,
                                                          Profile prof, std::uint64_t rbits) noexcept {
  const Unpacked ua = unpack(fa, a), ub = unpack(fb, b);
  const bool na = is_nan(ua), nb = is_nan(ub);
  if (na || nb) {
    if (number && !(na && nb)) return round_pack(out, na ? ub : ua, spec, prof, rbits);
    return round_pack(out, na ? ua : ub, spec, prof, rbits);
  }
  Ordering o = compare_unpacked(ua, ub);
  if (o == Ordering::equal && is_zero(ua) && ua.negative != ub.negative)  // −0 < +0 (§9.6)
    o = ua.negative ? Ordering::less : Ordering::greater;
  const bool pick_a = want_less ? o != Ordering::greater : o != Ordering::less;
  return round_pack(out, pick_a ? ua : ub, spec, prof, rbits);
}

}  // namespace detail

// ---- mixed-format operations: operands of any formats, explicit result format ---------------
// Each returns round_pack(out, exact result) with flag_invalid ORed in for invalid operations.
// `spec`/`prof`/`rbits` are round_pack's (rbits: the random bits for Rounding::sr).

/// a + b, rounded once into `out`.
/// Example: add(e4m3fn, 0x38 /*1*/, e4m3fn, 0x30 /*0.5*/, e4m3fn) = {0x3c /*1.5*/, none}.
MINIFLOAT_HOST_DEVICE constexpr RoundResult add(Format fa, std::uint64_t a, Format fb, std::uint64_t b, Format out,
                                                RoundingSpec spec = {}, Profile prof = profiles::ocp,
                                                std::uint64_t rbits = 0) noexcept {
  return detail::finish(out, detail::exact_add(unpack(fa, a), unpack(fb, b), spec.rounding), spec, prof, rbits);
}
/// a − b = a + (−b) (the sign of a NaN b is kept: it is not an arithmetic negation).
MINIFLOAT_HOST_DEVICE constexpr RoundResult sub(Format fa, std::uint64_t a, Format fb, std::uint64_t b, Format out,
                                                RoundingSpec spec = {}, Profile prof = profiles::ocp,
                                                std::uint64_t rbits = 0) noexcept {
  Unpacked ub = unpack(fb, b);
  if (ub.cls != Class::nan) ub.negative = !ub.negative;
  return detail::finish(out, detail::exact_add(unpack(fa, a), ub, spec.rounding), spec, prof, rbits);
}
/// a · b, rounded once into `out`.
MINIFLOAT_HOST_DEVICE constexpr RoundResult mul(Format fa, std::uint64_t a, Format fb, std::uint64_t b, Format out,
                                                RoundingSpec spec = {}, Profile prof = profiles::ocp,
                                                std::uint64_t rbits = 0) noexcept {
  return detail::finish(out, detail::exact_mul(unpack(fa, a), unpack(fb, b)), spec, prof, rbits);
}
/// a / b, rounded once into `out` (x/0 → ±Inf without a flag: see the file comment).
MINIFLOAT_HOST_DEVICE constexpr RoundResult div(Format fa, std::uint64_t a, Format fb, std::uint64_t b, Format out,
                                                RoundingSpec spec = {}, Profile prof = profiles::ocp,
                                                std::uint64_t rbits = 0) noexcept {
  return detail::finish(out, detail::exact_div(unpack(fa, a), unpack(fb, b)), spec, prof, rbits);
}
/// a · b + c with one rounding (IEEE fusedMultiplyAdd), into `out`.
MINIFLOAT_HOST_DEVICE constexpr RoundResult fma(Format fa, std::uint64_t a, Format fb, std::uint64_t b, Format fc,
                                                std::uint64_t c, Format out, RoundingSpec spec = {},
                                                Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  return detail::finish(out, detail::exact_fma(unpack(fa, a), unpack(fb, b), unpack(fc, c), spec.rounding), spec, prof,
                        rbits);
}
/// √a, rounded once into `out`.
MINIFLOAT_HOST_DEVICE constexpr RoundResult sqrt(Format fa, std::uint64_t a, Format out, RoundingSpec spec = {},
                                                 Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  return detail::finish(out, detail::exact_sqrt(unpack(fa, a)), spec, prof, rbits);
}
/// IEEE 754-2019 §9.6 minimum: NaN if either operand is NaN (the first NaN operand's sign);
/// −0 < +0; the selected operand is then converted (rounded) into `out`.
MINIFLOAT_HOST_DEVICE constexpr RoundResult minimum(Format fa, std::uint64_t a, Format fb, std::uint64_t b, Format out,
                                                    RoundingSpec spec = {}, Profile prof = profiles::ocp,
                                                    std::uint64_t rbits = 0) noexcept {
  return detail::select_minmax(fa, a, fb, b, out, true, false, spec, prof, rbits);
}
/// IEEE 754-2019 §9.6 maximum (NaN-propagating; +0 > −0).
MINIFLOAT_HOST_DEVICE constexpr RoundResult maximum(Format fa, std::uint64_t a, Format fb, std::uint64_t b, Format out,
                                                    RoundingSpec spec = {}, Profile prof = profiles::ocp,
                                                    std::uint64_t rbits = 0) noexcept {
  return detail::select_minmax(fa, a, fb, b, out, false, false, spec, prof, rbits);
}
/// IEEE 754-2019 §9.6 minimumNumber: a NaN operand is ignored (NaN only when both are NaN);
/// −0 < +0. Same as C23 fminimum_num; C's fmin leaves the ±0 order open, this does not.
MINIFLOAT_HOST_DEVICE constexpr RoundResult minimum_number(Format fa, std::uint64_t a, Format fb, std::uint64_t b,
                                                           Format out, RoundingSpec spec = {},
                                                           Profile prof = profiles::ocp,
                                                           std::uint64_t rbits = 0) noexcept {
  return detail::select_minmax(fa, a, fb, b, out, true, true, spec, prof, rbits);
}
/// IEEE 754-2019 §9.6 maximumNumber (NaN ignored; +0 > −0).
MINIFLOAT_HOST_DEVICE constexpr RoundResult maximum_number(Format fa, std::uint64_t a, Format fb, std::uint64_t b,
                                                           Format out, RoundingSpec spec = {},
                                                           Profile prof = profiles::ocp,
                                                           std::uint64_t rbits = 0) noexcept {
  return detail::select_minmax(fa, a, fb, b, out, false, true, spec, prof, rbits);
}
/// Exact comparison of two codes of any formats (IEEE 754-2019 §5.11: −0 == +0, NaN unordered).
MINIFLOAT_HOST_DEVICE constexpr Ordering compare(Format fa, std::uint64_t a, Format fb, std::uint64_t b) noexcept {
  return detail::compare_unpacked(unpack(fa, a), unpack(fb, b));
}

// ---- same-format shorthands: operands and result in format f -----------------------------------

MINIFLOAT_HOST_DEVICE constexpr RoundResult add(Format f, std::uint64_t a, std::uint64_t b, RoundingSpec spec = {},
                                                Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  return add(f, a, f, b, f, spec, prof, rbits);
}
MINIFLOAT_HOST_DEVICE constexpr RoundResult sub(Format f, std::uint64_t a, std::uint64_t b, RoundingSpec spec = {},
                                                Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  return sub(f, a, f, b, f, spec, prof, rbits);
}
MINIFLOAT_HOST_DEVICE constexpr RoundResult mul(Format f, std::uint64_t a, std::uint64_t b, RoundingSpec spec = {},
                                                Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  return mul(f, a, f, b, f, spec, prof, rbits);
}
MINIFLOAT_HOST_DEVICE constexpr RoundResult div(Format f, std::uint64_t a, std::uint64_t b, RoundingSpec spec = {},
                                                Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  return div(f, a, f, b, f, spec, prof, rbits);
}
MINIFLOAT_HOST_DEVICE constexpr RoundResult fma(Format f, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                                RoundingSpec spec = {}, Profile prof = profiles::ocp,
                                                std::uint64_t rbits = 0) noexcept {
  return fma(f, a, f, b, f, c, f, spec, prof, rbits);
}
MINIFLOAT_HOST_DEVICE constexpr RoundResult sqrt(Format f, std::uint64_t a, RoundingSpec spec = {},
                                                 Profile prof = profiles::ocp, std::uint64_t rbits = 0) noexcept {
  return sqrt(f, a, f, spec, prof, rbits);
}
MINIFLOAT_HOST_DEVICE constexpr RoundResult minimum(Format f, std::uint64_t a, std::uint64_t b) noexcept {
  return minimum(f, a, f, b, f);
}
MINIFLOAT_HOST_DEVICE constexpr RoundResult maximum(Format f, std::uint64_t a, std::uint64_t b) noexcept {
  return maximum(f, a, f, b, f);
}
MINIFLOAT_HOST_DEVICE constexpr RoundResult minimum_number(Format f, std::uint64_t a, std::uint64_t b) noexcept {
  return minimum_number(f, a, f, b, f);
}
MINIFLOAT_HOST_DEVICE constexpr RoundResult maximum_number(Format f, std::uint64_t a, std::uint64_t b) noexcept {
  return maximum_number(f, a, f, b, f);
}

}  // namespace minifloat
