// SPDX-License-Identifier: Apache-2.0
// cuda_blocks_common.hpp: what the CPU-launcher block tests share (cuda_blocks_test.cpp,
// cuda_blocks_issue25_test.cpp): same(), every field of two QuantizedTensors (codes, scale codes, FP32
// scales, tensor scales, amax-scope row scales, 4over6 choices, counts) with the first difference named,
// and adversarial(), the tensors whose rows reach every special-block branch.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "minifloat/quant.hpp"
#include "minifloat/scheme.hpp"

namespace cuda_blocks_test {

namespace mf = minifloat;

inline std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// Every field of the two results, with the first difference named.
inline ::testing::AssertionResult same(const mf::QuantizedTensor& got, const mf::QuantizedTensor& want) {
  auto fail = [](const std::string& s) { return ::testing::AssertionFailure() << s; };
  if (got.scheme != want.scheme) return fail("scheme " + got.scheme + " vs " + want.scheme);
  if (got.scale_rows != want.scale_rows || got.scale_cols != want.scale_cols || got.scale_shape != want.scale_shape ||
      got.rows != want.rows || got.cols != want.cols)
    return fail("shapes differ");
  if (got.codes.size() != want.codes.size()) return fail("code counts differ");
  for (std::size_t i = 0; i < got.codes.size(); ++i)
    if (got.codes[i] != want.codes[i])
      return fail("code " + std::to_string(i) + ": " + std::to_string(got.codes[i]) + " vs " +
                  std::to_string(want.codes[i]));
  if (got.scale_codes != want.scale_codes) {
    for (std::size_t t = 0; t < std::min(got.scale_codes.size(), want.scale_codes.size()); ++t)
      if (got.scale_codes[t] != want.scale_codes[t])
        return fail("scale code " + std::to_string(t) + ": " + std::to_string(got.scale_codes[t]) + " vs " +
                    std::to_string(want.scale_codes[t]));
    return fail("scale code counts differ");
  }
  if (got.scales.size() != want.scales.size()) return fail("scale counts differ");
  for (std::size_t t = 0; t < got.scales.size(); ++t)
    if (bits(got.scales[t]) != bits(want.scales[t]))
      return fail("FP32 scale " + std::to_string(t) + ": " + std::to_string(got.scales[t]) + " vs " +
                  std::to_string(want.scales[t]));
  if (bits(got.tensor_encode_scale) != bits(want.tensor_encode_scale) ||
      bits(got.tensor_decode_scale) != bits(want.tensor_decode_scale))
    return fail("tensor scales differ");
  if (got.row_encode_scales.size() != want.row_encode_scales.size() ||
      got.row_decode_scales.size() != want.row_decode_scales.size())
    return fail("row scale counts differ");
  for (std::size_t r = 0; r < got.row_encode_scales.size(); ++r)
    if (bits(got.row_encode_scales[r]) != bits(want.row_encode_scales[r]) ||
        bits(got.row_decode_scales[r]) != bits(want.row_decode_scales[r]))
      return fail("row scales " + std::to_string(r) + ": " + std::to_string(got.row_encode_scales[r]) + " vs " +
                  std::to_string(want.row_encode_scales[r]));
  if (got.scale_select.size() != want.scale_select.size()) return fail("scale-select counts differ");
  for (std::size_t t = 0; t < got.scale_select.size(); ++t)
    if (got.scale_select[t] != want.scale_select[t])
      return fail("scale-select choice " + std::to_string(t) + ": " + std::to_string(got.scale_select[t]) + " vs " +
                  std::to_string(want.scale_select[t]));
  if (got.saturated != want.saturated)
    return fail("saturated " + std::to_string(got.saturated) + " vs " + std::to_string(want.saturated));
  if (got.flushed != want.flushed)
    return fail("flushed " + std::to_string(got.flushed) + " vs " + std::to_string(want.flushed));
  return ::testing::AssertionSuccess();
}

/// The adversarial tensor: rows of blocks, each row a different case, repeated with random scales.
/// Row kinds (by row index mod 10): Gaussian; amax = element max · 2^k; amax = max + ½ulp (the
/// tosa/rceil boundary) · 2^k; amax just above max · 2^k; one NaN; one Inf; all zero; subnormal
/// amax; elements on the scaled midpoints of the element grid (a power-of-two scale); the same a
/// hair off the midpoints, plus a -Inf row mixed with a NaN.
inline std::vector<float> adversarial(std::size_t rows, std::size_t cols, const mf::Scheme& s, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-20, 20);
  const double emax = mf::element_max(s.element);
  std::vector<double> grid;  // positive finite element values
  for (int c = 0; c < 256; ++c) {
    if (s.element.kind == mf::ElementKind::floating && c >= (1 << s.element.format.bits)) break;
    const double v = mf::element_value(s.element, static_cast<std::uint8_t>(c));
    if (std::isfinite(v) && v > 0) grid.push_back(v);
  }
  std::sort(grid.begin(), grid.end());
  std::vector<float> x(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const int k = ex(g);
    float* row = &x[r * cols];
    for (std::size_t c = 0; c < cols; ++c) row[c] = std::ldexp(nd(g), k);
    const std::size_t j = (r * 7 + 3) % cols;
    switch (r % 11) {
      case 0: break;
      case 1: row[j] = static_cast<float>(std::ldexp(emax, k)); break;
      case 2: row[j] = static_cast<float>(std::ldexp(emax * (1 + 1.0 / 64), k)); break;  // ~max + ½ulp (e4m3: 455)
      case 3: row[j] = std::nextafter(static_cast<float>(std::ldexp(emax, k)), 1e30f); break;
      case 4: row[j] = std::nanf(""); break;
      case 5: row[j] = (r & 1) ? INFINITY : -INFINITY; break;
      case 6:
        for (std::size_t c = 0; c < cols; ++c) row[c] = (c & 1) ? -0.0f : 0.0f;
        break;
      case 7:
        for (std::size_t c = 0; c < cols; ++c) row[c] = std::ldexp(nd(g), -135);
        break;  // subnormal amax
      case 8:
      case 9:
        for (std::size_t c = 0; c + 1 < cols && grid.size() > 1; ++c) {
          const std::size_t m = g() % (grid.size() - 1);
          double mid = (grid[m] + grid[m + 1]) / 2;
          if (r % 11 == 9) mid *= 1 + std::ldexp(1.0, -20) * ((c & 1) ? 1 : -1);
          row[c] = static_cast<float>(std::ldexp((g() & 1) ? mid : -mid, k));
        }
        row[cols - 1] =
            static_cast<float>(std::ldexp(emax, k));  // the amax that puts the midpoints on the grid's scale
        break;
      default:
        row[j] = -INFINITY;
        row[(j + 1) % cols] = std::nanf("");
        break;
    }
  }
  return x;
}

}  // namespace cuda_blocks_test
