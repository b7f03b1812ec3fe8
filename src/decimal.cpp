// SPDX-License-Identifier: Apache-2.0
// decimal.cpp: exact decimal and hex-float printing of sig·2^exp (decimals through detail::BigNat).
#include "minifloat/decimal.hpp"

#include "big_nat.hpp"
#include "minifloat/core/bits.hpp"

namespace minifloat {
namespace {

[[noreturn]] void not_exact() { throw Error("internal: a sticky (inexact) value has no exact decimal form"); }

}  // namespace

std::string to_decimal(const Unpacked& v) {
  if (v.cls == Class::nan) return v.negative ? "-nan" : "nan";
  if (v.cls == Class::inf) return v.negative ? "-inf" : "inf";
  if (v.cls == Class::zero || v.sig == 0) return v.negative ? "-0" : "0";
  if (v.sticky) not_exact();
  std::uint64_t sig = v.sig;
  long long exp = v.exp;
  while ((sig & 1) == 0) {
    sig >>= 1;
    ++exp;
  }
  detail::BigNat d = detail::BigNat::of(sig);
  std::string s;
  if (exp >= 0) {
    d.shl(static_cast<int>(exp));
    s = d.decimal();
  } else {
    // sig·2^−n = sig·5^n / 10^n; sig odd, so the last digit of sig·5^n is 5: shortest form.
    const long long n = -exp;
    d.mul_pow5(n);
    s = d.decimal();
    if (static_cast<long long>(s.size()) <= n) s.insert(0, static_cast<std::size_t>(n + 1) - s.size(), '0');
    s.insert(s.size() - static_cast<std::size_t>(n), 1, '.');
  }
  return v.negative ? "-" + s : s;
}

std::string to_hex_float(const Unpacked& v) {
  if (v.cls == Class::nan) return v.negative ? "-nan" : "nan";
  if (v.cls == Class::inf) return v.negative ? "-inf" : "inf";
  const std::string sign = v.negative ? "-" : "";
  if (v.cls == Class::zero || v.sig == 0) return sign + "0x0p+0";
  if (v.sticky) not_exact();
  const int w = detail::bit_width(v.sig);
  const long long e = static_cast<long long>(v.exp) + w - 1;
  const int frac_bits = w - 1;
  std::string s = sign + "0x1";
  if (frac_bits > 0) {
    const int digits = (frac_bits + 3) / 4;
    std::uint64_t frac = detail::low_bits(v.sig, frac_bits) << (4 * digits - frac_bits);
    std::string hex;
    for (int i = digits - 1; i >= 0; --i) hex += "0123456789abcdef"[(frac >> (4 * i)) & 0xf];
    while (!hex.empty() && hex.back() == '0') hex.pop_back();
    if (!hex.empty()) s += "." + hex;
  }
  s += e < 0 ? "p-" : "p+";
  s += std::to_string(e < 0 ? -e : e);
  return s;
}

std::string to_short_exact(const Unpacked& v, std::size_t max_chars) {
  if (v.cls == Class::nan || v.cls == Class::inf || v.cls == Class::zero || v.sig == 0) return to_decimal(v);
  const long long top = static_cast<long long>(v.exp) + detail::bit_width(v.sig) - 1;
  // Only build the decimal when it can be short: |x| < 2^64 and no more than 64 fraction bits.
  if (top < 64 && v.exp > -64) {
    std::string d = to_decimal(v);
    if (d.size() <= max_chars) return d;
  }
  return to_hex_float(v);
}

std::string code_hex(std::uint64_t code, int bits) {
  int digits = (bits + 3) / 4;
  while (digits < 16 && (code >> (4 * digits)) != 0) ++digits;  // never cut a value wider than `bits`
  std::string s = "0x";
  for (int i = digits - 1; i >= 0; --i) s += "0123456789abcdef"[(code >> (4 * i)) & 0xf];
  return s;
}

std::string bit_string(std::uint64_t x, int width) {
  std::string s;
  for (int i = width - 1; i >= 0; --i) s += ((x >> i) & 1) ? '1' : '0';
  return s;
}

std::string_view class_name(Class c) {
  switch (c) {
    case Class::zero: return "zero";
    case Class::subnormal: return "subnormal";
    case Class::normal: return "normal";
    case Class::inf: return "inf";
    case Class::nan: return "nan";
  }
  return "?";
}

std::string flags_string(Flags f) {
  std::string s;
  auto add = [&](Flags bit, const char* name) {
    if ((f & bit) == 0) return;
    if (!s.empty()) s += '|';
    s += name;
  };
  add(flag_inexact, "inexact");
  add(flag_underflow, "underflow");
  add(flag_overflow, "overflow");
  add(flag_invalid, "invalid");
  return s.empty() ? "none" : s;
}

}  // namespace minifloat
