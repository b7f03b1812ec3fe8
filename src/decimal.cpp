// SPDX-License-Identifier: Apache-2.0
// decimal.cpp: exact decimal and hex-float printing of sig·2^exp with a small base-10^9 bignum.
#include "minifloat/decimal.hpp"

#include <vector>

#include "minifloat/core/bits.hpp"

namespace minifloat {
namespace {

/// Little-endian base-10^9 natural number: just multiply-by-small and print.
class BigDec {
 public:
  explicit BigDec(std::uint64_t v) {
    do {
      limbs_.push_back(static_cast<std::uint32_t>(v % kBase));
      v /= kBase;
    } while (v != 0);
  }
  /// *this *= m, m < 2^32 (limb·m + carry < 10^9·2^32 + 2^32 fits in 64 bits).
  void mul(std::uint32_t m) {
    std::uint64_t carry = 0;
    for (auto& l : limbs_) {
      const std::uint64_t t = std::uint64_t{l} * m + carry;
      l = static_cast<std::uint32_t>(t % kBase);
      carry = t / kBase;
    }
    while (carry != 0) {
      limbs_.push_back(static_cast<std::uint32_t>(carry % kBase));
      carry /= kBase;
    }
  }
  void mul_pow2(long long n) {
    for (; n >= 31; n -= 31) mul(std::uint32_t{1} << 31);
    if (n > 0) mul(std::uint32_t{1} << n);
  }
  void mul_pow5(long long n) {
    for (; n >= 13; n -= 13) mul(1220703125u);  // 5^13
    std::uint32_t r = 1;
    for (; n > 0; --n) r *= 5;
    mul(r);
  }
  std::string str() const {
    std::string s = std::to_string(limbs_.back());
    for (std::size_t i = limbs_.size() - 1; i-- > 0;) {
      const std::string part = std::to_string(limbs_[i]);
      s.append(9 - part.size(), '0');
      s += part;
    }
    return s;
  }

 private:
  static constexpr std::uint64_t kBase = 1000000000;
  std::vector<std::uint32_t> limbs_;
};

[[noreturn]] void not_exact() {
  throw Error("internal: a sticky (inexact) value has no exact decimal form");
}

}  // namespace

std::string to_decimal(const Unpacked& v) {
  if (v.cls == Class::nan) return "nan";
  if (v.cls == Class::inf) return v.negative ? "-inf" : "inf";
  if (v.cls == Class::zero || v.sig == 0) return v.negative ? "-0" : "0";
  if (v.sticky) not_exact();
  std::uint64_t sig = v.sig;
  long long exp = v.exp;
  while ((sig & 1) == 0) {
    sig >>= 1;
    ++exp;
  }
  BigDec d(sig);
  std::string s;
  if (exp >= 0) {
    d.mul_pow2(exp);
    s = d.str();
  } else {
    // sig·2^−n = sig·5^n / 10^n; sig odd, so the last digit of sig·5^n is 5: shortest form.
    const long long n = -exp;
    d.mul_pow5(n);
    s = d.str();
    if (static_cast<long long>(s.size()) <= n) s.insert(0, static_cast<std::size_t>(n + 1) - s.size(), '0');
    s.insert(s.size() - static_cast<std::size_t>(n), 1, '.');
  }
  return v.negative ? "-" + s : s;
}

std::string to_hex_float(const Unpacked& v) {
  if (v.cls == Class::nan) return "nan";
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
