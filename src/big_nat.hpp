// SPDX-License-Identifier: Apache-2.0
// big_nat.hpp (library-private): the one arbitrary-size natural number of the compiled library, for
// exact decimal parsing (parse.cpp: long division of D·10^E into 64 bits and sticky), exact decimal
// printing (decimal.cpp: sig·2^n and sig·5^n printed in base 10) and the exact dot product's two
// accumulators (accumulate.cpp dot_exact: 128-bit products added at their exponents, a width that
// depends on the formats, up to 2^17 bits). The core's fixed 256-bit detail::Wide (core/arith.hpp)
// serves device-safe arithmetic and the T-FDPA model.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace minifloat::detail {

/// Little-endian base-2^32 natural number: w[0] least significant, no high zero limbs after trim()
/// (zero is the empty vector).
struct BigNat {
  std::vector<std::uint32_t> w;
  /// v (64 bits).
  static BigNat of(std::uint64_t v) {
    BigNat r;
    r.w = {static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32)};
    r.trim();
    return r;
  }
  void trim() {
    while (!w.empty() && w.back() == 0) w.pop_back();
  }
  bool zero() const { return w.empty(); }
  /// *this = *this·m + a.
  void mul_add(std::uint32_t m, std::uint32_t a) {
    std::uint64_t carry = a;
    for (auto& x : w) {
      const std::uint64_t t = std::uint64_t{x} * m + carry;
      x = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry) w.push_back(static_cast<std::uint32_t>(carry));
  }
  int bit_length() const {
    if (w.empty()) return 0;
    int b = 32 * static_cast<int>(w.size() - 1);
    std::uint32_t top = w.back();
    while (top) {
      ++b;
      top >>= 1;
    }
    return b;
  }
  /// *this <<= s (s ≥ 0).
  void shl(int s) {
    if (w.empty() || s == 0) return;
    const int words = s / 32, bits = s % 32;
    std::vector<std::uint32_t> r(w.size() + static_cast<std::size_t>(words) + 1, 0);
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::uint64_t v = std::uint64_t{w[i]} << bits;
      r[i + static_cast<std::size_t>(words)] |= static_cast<std::uint32_t>(v);
      r[i + static_cast<std::size_t>(words) + 1] |= static_cast<std::uint32_t>(v >> 32);
    }
    w = std::move(r);
    trim();
  }
  void shr1() {
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = (w[i] >> 1) | (i + 1 < w.size() ? (w[i + 1] << 31) : 0u);
    trim();
  }
  /// −1, 0 or 1 as a <, = or > b (both trimmed).
  static int cmp(const BigNat& a, const BigNat& b) {
    if (a.w.size() != b.w.size()) return a.w.size() < b.w.size() ? -1 : 1;
    for (std::size_t i = a.w.size(); i-- > 0;)
      if (a.w[i] != b.w[i]) return a.w[i] < b.w[i] ? -1 : 1;
    return 0;
  }
  void sub(const BigNat& b) {  // *this -= b, requires *this >= b
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      std::int64_t t = std::int64_t{w[i]} - borrow - (i < b.w.size() ? std::int64_t{b.w[i]} : 0);
      borrow = t < 0;
      if (t < 0) t += std::int64_t{1} << 32;
      w[i] = static_cast<std::uint32_t>(t);
    }
    trim();
  }
  /// *this += (hi·2^64 + lo)·2^shift. Leaves high zero limbs: trim() before cmp() or bit_length().
  void add_shifted(std::uint64_t lo, std::uint64_t hi, std::size_t shift) {
    const std::size_t li = shift / 32;
    const unsigned bi = shift % 32;
    const std::uint32_t v[4] = {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32),
                                static_cast<std::uint32_t>(hi), static_cast<std::uint32_t>(hi >> 32)};
    std::uint32_t part[5];
    for (unsigned k = 0; k < 5; ++k)
      part[k] = (k < 4 ? v[k] << bi : 0u) | (k > 0 && bi != 0 ? v[k - 1] >> (32 - bi) : 0u);
    if (w.size() < li + 5) w.resize(li + 5, 0);
    std::uint64_t carry = 0;
    for (std::size_t i = li; i < w.size(); ++i) {
      const std::uint64_t t = std::uint64_t{w[i]} + (i - li < 5 ? part[i - li] : 0u) + carry;
      w[i] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
      if (i - li >= 4 && carry == 0) break;
    }
    if (carry != 0) w.push_back(static_cast<std::uint32_t>(carry));
  }
  /// Bit i (0 beyond the top).
  bool bit(std::size_t i) const { return i / 32 < w.size() && ((w[i / 32] >> (i % 32)) & 1u) != 0; }
  /// The 64 bits [from, from + 64) and whether any bit below `from` is set.
  std::uint64_t window(std::size_t from, bool& sticky) const {
    auto limb = [&](std::size_t i) -> std::uint64_t { return i < w.size() ? w[i] : 0u; };
    const std::size_t q = from / 32;
    const unsigned r = from % 32;
    const std::uint64_t v =
        r == 0 ? limb(q) | limb(q + 1) << 32 : limb(q) >> r | limb(q + 1) << (32 - r) | limb(q + 2) << (64 - r);
    sticky = false;
    for (std::size_t i = 0; i < from / 32 && i < w.size() && !sticky; ++i) sticky = w[i] != 0;
    if (!sticky && from % 32 != 0 && from / 32 < w.size())
      sticky = (w[from / 32] & ((std::uint32_t{1} << (from % 32)) - 1u)) != 0;
    return v;
  }
  /// *this *= 5^n (n ≥ 0).
  void mul_pow5(long long n) {
    for (; n >= 13; n -= 13) mul_add(1220703125u, 0);  // 5^13
    std::uint32_t r = 1;
    for (; n > 0; --n) r *= 5;
    mul_add(r, 0);
  }
  /// The decimal digits, without leading zeros ("0" for zero).
  std::string decimal() const {
    std::vector<std::uint32_t> chunks;  // base 10^9, least significant first
    std::vector<std::uint32_t> n = w;
    while (!n.empty()) {
      std::uint64_t rem = 0;
      for (std::size_t i = n.size(); i-- > 0;) {
        const std::uint64_t cur = (rem << 32) | n[i];
        n[i] = static_cast<std::uint32_t>(cur / 1000000000u);
        rem = cur % 1000000000u;
      }
      chunks.push_back(static_cast<std::uint32_t>(rem));
      while (!n.empty() && n.back() == 0) n.pop_back();
    }
    if (chunks.empty()) return "0";
    std::string s = std::to_string(chunks.back());
    for (std::size_t i = chunks.size() - 1; i-- > 0;) {
      const std::string part = std::to_string(chunks[i]);
      s.append(9 - part.size(), '0');
      s += part;
    }
    return s;
  }
};

}  // namespace minifloat::detail
