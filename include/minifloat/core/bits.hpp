// SPDX-License-Identifier: Apache-2.0
// core/bits.hpp: device-safe bit helpers (std::bit_cast / std::countl_zero are not usable
// in every nvcc mode, so the core uses these).
#pragma once
#include <cstdint>
#include <cstring>

#include "config.hpp"

namespace minifloat::detail {

/// Number of significant bits of x (0 for x == 0): bit_width(0b1011) == 4.
MINIFLOAT_HOST_DEVICE constexpr int bit_width(std::uint64_t x) noexcept {
  if (x == 0) return 0;
#if defined(__CUDA_ARCH__)
  if (!__builtin_is_constant_evaluated()) return 64 - __clzll(static_cast<long long>(x));
#elif defined(__GNUC__) || defined(__clang__)
  return 64 - __builtin_clzll(x);
#endif
  int n = 0;  // constant evaluation on the device side, or an unknown compiler
  while (x != 0) {
    x >>= 1;
    ++n;
  }
  return n;
}

/// x >> s for any s >= 0 (0 when s >= 64).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t shr(std::uint64_t x, int s) noexcept { return s >= 64 ? 0 : (x >> s); }

/// The low s bits of x (all of x when s >= 64).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t low_bits(std::uint64_t x, int s) noexcept {
  return s >= 64 ? x : (x & ((std::uint64_t{1} << s) - 1));
}

template <class To, class From>
MINIFLOAT_HOST_DEVICE inline To bit_cast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

}  // namespace minifloat::detail
