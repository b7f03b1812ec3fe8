// SPDX-License-Identifier: Apache-2.0
// grid_oracle.hpp: an independent "two nearest representable values" oracle for the SR tests.
// It shares no code with the engine: it includes no minifloat header and builds each format's
// value grid from the spec's field layout and the spec's literal max (OCP OFP8 v1.0 Table 1,
// OCP MX v1.0 §5.3, IEEE 754 binary16, bfloat16), listing the positive finite values in code order.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace minifloat_test {

/// One target format as the specs describe it.
struct GridFormat {
  std::string name;
  int bits;             ///< code width
  int ebits, mbits;     ///< field widths
  int bias;
  double max;           ///< largest finite value (spec literal)
  std::uint64_t pos_overflow_nonsat;  ///< code of +overflow without saturation (Inf/NaN/max per spec)
  std::uint64_t neg_overflow_nonsat;
  bool has_neg_zero;    ///< FNUZ: no −0 code (0x80 is NaN)
};

/// The formats the SR tests sweep (values from the specs; codes of Inf/NaN from OCP OFP8 Table 1,
/// the FNUZ convention (0x80 NaN), IEEE 754 and OCP MX (FP4/FP6 have no Inf/NaN: saturate)).
inline const std::vector<GridFormat>& grid_formats() {
  static const std::vector<GridFormat> v{
      {"e4m3fn", 8, 4, 3, 7, 448.0, 0x7F, 0xFF, true},
      {"e5m2", 8, 5, 2, 15, 57344.0, 0x7C, 0xFC, true},
      {"e4m3fnuz", 8, 4, 3, 8, 240.0, 0x80, 0x80, false},
      {"e2m1fn", 4, 2, 1, 1, 6.0, 0x7, 0xF, true},
      {"e3m2fn", 6, 3, 2, 3, 28.0, 0x1F, 0x3F, true},
      {"e2m3fn", 6, 2, 3, 1, 7.5, 0x1F, 0x3F, true},
      {"f16", 16, 5, 10, 15, 65504.0, 0x7C00, 0xFC00, true},
      {"bf16", 16, 8, 7, 127, 0x1.FEp127, 0x7F80, 0xFF80, true},
  };
  return v;
}

/// Positive finite values (and 0) of `g` in increasing order; value k has magnitude code k.
inline std::vector<double> grid_values(const GridFormat& g) {
  std::vector<double> v;
  const int emax_field = (1 << g.ebits) - 1;
  for (int e = 0; e <= emax_field; ++e)
    for (int m = 0; m < (1 << g.mbits); ++m) {
      const double x = e == 0 ? std::ldexp(m, 1 - g.bias - g.mbits)
                              : std::ldexp((1 << g.mbits) + m, e - g.bias - g.mbits);
      if (x > g.max) return v;
      v.push_back(x);
    }
  return v;
}

/// The codes SR may return for the exact value x (a double), under nonsat (sat = false) or
/// satfinite (sat = true): {RD, RU} at the target's precision with an unbounded exponent, where a
/// neighbour beyond max becomes the overflow code (nonsat) or max (satfinite). One code when x is
/// representable or when both neighbours are beyond max.
struct Neighbours {
  std::uint64_t down, up;
};
inline Neighbours grid_neighbours(const GridFormat& g, const std::vector<double>& grid, double x, bool sat) {
  const bool neg = std::signbit(x);
  const double a = std::fabs(x);
  const std::uint64_t sign = neg ? (std::uint64_t{1} << (g.bits - 1)) : 0;
  const std::uint64_t max_code = grid.size() - 1;
  auto code = [&](std::uint64_t mag) -> std::uint64_t {
    if (mag == 0 && !g.has_neg_zero) return 0;
    return mag | sign;
  };
  const std::uint64_t ovf = sat ? code(max_code) : (neg ? g.neg_overflow_nonsat : g.pos_overflow_nonsat);
  const double ulp_at_max = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(g.max))) - g.mbits);
  if (a >= g.max + ulp_at_max) return {ovf, ovf};  // RD itself lies beyond max
  if (a > g.max) return {code(max_code), ovf};
  const auto it = std::upper_bound(grid.begin(), grid.end(), a);  // first value > a
  const std::uint64_t lo = static_cast<std::uint64_t>(it - grid.begin()) - 1;
  if (grid[lo] == a) return {code(lo), code(lo)};
  return {code(lo), code(lo + 1)};
}

/// ν = (|x| − RD)/(RU − RD) as an exact double (the grid is exact in binary64, and x − RD is exact
/// by Sterbenz's lemma or because RD = 0). Only for |x| ≤ max + ulp.
inline double grid_fraction(const GridFormat& g, const std::vector<double>& grid, double x) {
  const double a = std::fabs(x);
  const double ulp_at_max = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(g.max))) - g.mbits);
  if (a > g.max) return (a - g.max) / ulp_at_max;
  const auto it = std::upper_bound(grid.begin(), grid.end(), a);
  const double lo = *(it - 1);
  if (lo == a) return 0.0;
  const double hi = it == grid.end() ? g.max + ulp_at_max : *it;
  return (a - lo) / (hi - lo);
}

/// Exact binary16 / bfloat16 raw bits → double, by the IEEE 754 field formula (no minifloat code).
inline double f16_bits_value(std::uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v = e == 0 ? std::ldexp(m, -24) : (e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25));
  return s ? -v : v;
}
inline double bf16_bits_value(std::uint16_t b) {
  const std::uint32_t u = std::uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace minifloat_test
