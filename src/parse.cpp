// SPDX-License-Identifier: Apache-2.0
// parse.cpp: exact decimal and hex-float parsing. A decimal D·10^E is turned into the top 64
// bits of its binary value plus a sticky bit by exact big-integer long division, so the
// rounding engine sees the exact value (no strtod detour, no double rounding).
#include "minifloat/parse.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "big_nat.hpp"
#include "excerpt.hpp"
#include "minifloat/registry.hpp"

namespace minifloat {
namespace {

using detail::BigNat;

BigNat pow10(int n) {
  BigNat r;
  r.w = {1};
  for (; n >= 9; n -= 9) r.mul_add(1000000000u, 0);
  for (; n > 0; --n) r.mul_add(10, 0);
  return r;
}

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw ParseError("cannot parse value '" + detail::excerpt(text) + "': " + why +
                   "; accepted: a decimal (-1e-7, -.5, 448), a C99 hex float (0x1.8p3), inf, -inf or nan");
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Decimal magnitudes beyond 10^±kHugeDecimalExponent and hex ones beyond 2^±kHugeBinaryExponent
/// (the same bound, 100000·log2(10) = 332192.8) are not computed: they become the sticky
/// stand-ins below, 2^(63+400000) and 2^(63−400000), which overflow or underflow every format
/// that validate() accepts (|bias| ≤ 2^17 and at most 16 exponent bits keep every finite value
/// within 2^±(2^18)), in every rounding mode, with the same flags as the exact value would.
constexpr long long kHugeDecimalExponent = 100000;
constexpr long long kHugeBinaryExponent = 332192;
/// Exponent digits beyond this value only make a value huger or tinier (the fraction digits of
/// any text that fits in memory cannot pull it back into range).
constexpr long long kExponentSaturation = 100000000000000000;  // 10^17
Unpacked huge(bool negative) { return Unpacked{Class::normal, negative, std::uint64_t{1} << 63, 400000, true}; }
Unpacked tiny(bool negative) { return Unpacked{Class::normal, negative, std::uint64_t{1} << 63, -400000, true}; }

/// Exact N/D → Unpacked with a 64-bit significand and sticky.
Unpacked divide(bool negative, BigNat num, BigNat den, long long exp2) {
  Unpacked u;
  u.cls = Class::normal;
  u.negative = negative;
  // choose s so that q = floor(num·2^s/den) has 64 or 65 bits
  const long long s = 64 - (static_cast<long long>(num.bit_length()) - den.bit_length());
  if (s > 0) num.shl(static_cast<int>(s));
  else if (s < 0) den.shl(static_cast<int>(-s));
  std::uint64_t q = 0;
  bool extra = false;  // the 65th quotient bit
  BigNat t = den;      // den·2^i for i = 65 … 0, shifted in place (no allocation per step)
  t.shl(65);
  for (int i = 65; i >= 0; --i) {
    if (BigNat::cmp(num, t) >= 0) {
      num.sub(t);
      if (i == 64) extra = true;
      else if (i < 64) q |= std::uint64_t{1} << i;
    }
    t.shr1();
  }
  bool sticky = !num.zero();
  long long e = exp2 - s;
  if (extra) {  // 65 bits: drop the lowest into sticky
    sticky = sticky || (q & 1);
    q = (q >> 1) | (std::uint64_t{1} << 63);
    ++e;
  }
  u.sig = q;
  u.exp = static_cast<std::int32_t>(e);
  u.sticky = sticky;
  return u;
}

}  // namespace

Unpacked parse_value(std::string_view text) {
  std::string_view t = text;
  if (t.empty()) bad(text, "empty");
  bool negative = false;
  if (t[0] == '+' || t[0] == '-') {
    negative = t[0] == '-';
    t.remove_prefix(1);
  }
  const std::string l = lower(t);
  if (l == "inf" || l == "infinity") return Unpacked{Class::inf, negative, 0, 0, false};
  if (l == "nan") return Unpacked{Class::nan, negative, 0, 0, false};

  const bool hex = l.size() >= 2 && l[0] == '0' && l[1] == 'x';
  std::size_t i = hex ? 2 : 0;
  BigNat mant;
  long long scale = 0;  // exponent adjustment from fraction digits (base 10 or base 2)
  bool any_digit = false, dot = false;
  std::size_t significant = 0;                      // digits from the first nonzero one through the last nonzero one
  long long zeros_integer = 0, zeros_fraction = 0;  // zeros after the last nonzero digit, before/after the point
  const int base = hex ? 16 : 10;
  for (; i < l.size(); ++i) {
    const char c = l[i];
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (d >= 0) {
      any_digit = true;
      if (d == 0 && significant > 0) {  // maybe a trailing zero: counted once a nonzero digit follows
        ++(dot ? zeros_fraction : zeros_integer);
        continue;
      }
      if (d == 0) {  // a leading zero: no digit, but its place counts after the point
        if (dot) scale -= hex ? 4 : 1;
        continue;
      }
      significant += static_cast<std::size_t>(zeros_integer + zeros_fraction) + 1;
      if (significant > kMaxSignificantDigits)
        bad(text, "more than " + std::to_string(kMaxSignificantDigits) + " significant digits");
      for (long long k = 0; k < zeros_integer + zeros_fraction; ++k) mant.mul_add(static_cast<std::uint32_t>(base), 0);
      scale -= (hex ? 4 : 1) * zeros_fraction;
      zeros_integer = zeros_fraction = 0;
      mant.mul_add(static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(d));
      if (dot) scale -= hex ? 4 : 1;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!any_digit) bad(text, "no digits");
  scale += (hex ? 4 : 1) *
           zeros_integer;  // trailing zeros of the integer part scale the value; after the point they are nothing
  long long e = 0;
  if (i < l.size()) {
    const char marker = l[i];
    if ((hex && marker != 'p') || (!hex && marker != 'e'))
      bad(text, "unexpected character " + detail::quoted_excerpt(t.substr(i, 1)));
    ++i;
    bool eneg = false;
    if (i < l.size() && (l[i] == '+' || l[i] == '-')) {
      eneg = l[i] == '-';
      ++i;
    }
    if (i >= l.size()) bad(text, "missing exponent digits");
    for (; i < l.size(); ++i) {
      if (l[i] < '0' || l[i] > '9')
        bad(text, "unexpected character " + detail::quoted_excerpt(t.substr(i, 1)) + " in exponent");
      if (e < kExponentSaturation) e = e * 10 + (l[i] - '0');  // saturates: only huge/tiny from here
    }
    if (eneg) e = -e;
  } else if (hex && dot) {
    bad(text, "a hex float needs a binary exponent p±N");
  } else if (hex) {  // C99: no hex float without p. 0x7e is a code: that is another input (--from / source=)
    bad(text, "a hex float needs a binary exponent p±N (write " + std::string(t) +
                  "p0 for the value); a code is read with --from FORMAT (Python: source=)");
  }
  mant.trim();
  if (mant.zero()) return Unpacked{Class::zero, negative, 0, 0, false};
  if (hex) {
    const long long top = mant.bit_length() - 1 + scale + e;  // the value is in [2^top, 2^(top+1))
    if (top > kHugeBinaryExponent) return huge(negative);
    if (top < -kHugeBinaryExponent) return tiny(negative);
    return divide(negative, mant, BigNat{{1}}, scale + e);
  }

  const long long e10 = scale + e;
  if (mant.w.size() <= 2 && e10 >= -19 && e10 <= 19) {  // fast path: exact in 128-bit integers
    __extension__ typedef unsigned __int128 u128;
    const std::uint64_t m = mant.w[0] | (mant.w.size() > 1 ? std::uint64_t{mant.w[1]} << 32 : 0);
    std::uint64_t p10 = 1;
    for (long long k = 0; k < (e10 < 0 ? -e10 : e10); ++k) p10 *= 10;
    auto width = [](u128 v) {
      int b = 0;
      while (v != 0) {
        v >>= 1;
        ++b;
      }
      return b;
    };
    u128 q;
    int exp2 = 0;
    bool sticky = false;
    if (e10 >= 0) {
      q = static_cast<u128>(m) * p10;  // < 2^128
    } else {                           // m·2^s / 10^k with 64..65 quotient bits
      const int s = std::min(127 - width(m), 64 + width(p10) - width(m));
      const u128 n = static_cast<u128>(m) << s;
      q = n / p10;
      sticky = n % p10 != 0;
      exp2 = -s;
    }
    const int wq = width(q);
    if (wq > 64) {
      const int sh = wq - 64;
      sticky = sticky || (q & ((static_cast<u128>(1) << sh) - 1)) != 0;
      q >>= sh;
      exp2 += sh;
    }
    return Unpacked{Class::normal, negative, static_cast<std::uint64_t>(q), static_cast<std::int32_t>(exp2), sticky};
  }
  const long long digits_log = e10 + static_cast<long long>(mant.bit_length() * 0.30103);
  if (digits_log > kHugeDecimalExponent) return huge(negative);
  if (digits_log < -kHugeDecimalExponent) return tiny(negative);
  if (e10 >= 0) {
    // mant · 10^e10, exactly
    BigNat n = mant;
    for (long long k = e10; k >= 9; k -= 9) n.mul_add(1000000000u, 0);
    for (long long k = e10 % 9; k > 0; --k) n.mul_add(10, 0);
    return divide(negative, n, BigNat{{1}}, 0);
  }
  return divide(negative, mant, pow10(static_cast<int>(-e10)), 0);
}

std::uint64_t parse_code(std::string_view text, Format f) {
  const std::string l = lower(text);
  auto fail = [&](const std::string& why) -> std::uint64_t {
    throw ParseError("cannot parse code '" + detail::excerpt(text) + "': " + why);
  };
  if (l.size() < 3 || l[0] != '0' || l[1] != 'x') return fail("expected hexadecimal 0x…");
  std::uint64_t v = 0;
  std::size_t significant = 0;
  for (std::size_t i = 2; i < l.size(); ++i) {
    const char c = l[i];
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (d < 0) return fail(detail::quoted_excerpt(std::string_view(text).substr(i, 1)) + " is not a hex digit");
    if (significant > 0 || d != 0) ++significant;
    if (significant > 16) return fail("more than 64 bits");
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  if ((v & ~code_mask(f)) != 0) return fail("wider than the " + std::to_string(f.bits) + " bits of " + format_name(f));
  return v;
}

}  // namespace minifloat
