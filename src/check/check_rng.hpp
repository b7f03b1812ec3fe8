// SPDX-License-Identifier: Apache-2.0
// check_rng.hpp (private to src/): SplitMix64 (Steele, Lea & Flood 2014), the kernel checker's only
// randomness (check.cpp, check_block.cpp, check_dot.cpp). A seed gives the same cases on every
// platform and thread count.
#pragma once
#include <cstdint>

namespace minifloat::check {

struct SplitMix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) (modulo bias is irrelevant for test generation); 0 when n is 0.
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
  /// Uniform in [lo, hi].
  int range(int lo, int hi) { return lo + static_cast<int>(below(static_cast<std::uint64_t>(hi - lo + 1))); }
  bool coin() { return (next() & 1) != 0; }
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
};

}  // namespace minifloat::check
