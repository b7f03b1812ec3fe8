// SPDX-License-Identifier: Apache-2.0
// quant_array_test.cpp: quantize() of an f16 or bf16 array through the array door's ArrayIn (widened
// piece by piece inside the library, issue 24 F2 item 8) gives exactly the codes, scales and counts
// of quantize() on the same values decoded to a binary32 array (decode_to_f32, exact), for every
// named scheme and both axes, on a shape whose plan pieces (2^20 elements) cut 128-row tiles.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "minifloat/convert_array.hpp"
#include "minifloat/convert_span.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/scheme.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;

void expect_same(const QuantizedTensor& a, const QuantizedTensor& b, const std::string& ctx) {
  EXPECT_TRUE(a.codes == b.codes) << ctx;
  EXPECT_EQ(a.scale_codes, b.scale_codes) << ctx;
  ASSERT_EQ(a.scales.size(), b.scales.size()) << ctx;  // compared bit for bit (a NaN scale is one)
  if (!a.scales.empty()) {  // memcmp of an empty vector's null data() is undefined (UBSan: scripts/sanitize)
    EXPECT_EQ(std::memcmp(a.scales.data(), b.scales.data(), a.scales.size() * sizeof(float)), 0) << ctx;
  }
  EXPECT_EQ(a.tensor_encode_scale, b.tensor_encode_scale) << ctx;
  EXPECT_EQ(a.saturated, b.saturated) << ctx;
  EXPECT_EQ(a.flushed, b.flushed) << ctx;
  EXPECT_EQ(a.scheme, b.scheme) << ctx;
}

TEST(QuantArray, F16AndBf16EqualTheirBinary32Widening) {
  const std::vector<std::size_t> big{1100, 1000}, small{3, 256};
  std::mt19937 rng(8);
  for (const auto& shape : {small, big}) {
    const std::size_t n = shape[0] * shape[1];
    std::vector<std::uint16_t> h(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      // finite values of every binade, some Inf/NaN/subnormals; bf16 from the top of random f32-like bits
      h[i] = static_cast<std::uint16_t>(rng() % 0x7800u | (rng() & 0x8000u));
      b[i] = static_cast<std::uint16_t>((0x3000u + rng() % 0x1800u) | (rng() & 0x8000u));
    }
    h[5] = 0x7c00;  // +Inf
    h[7] = 0x0001;  // smallest subnormal
    std::vector<float> hf(n), bf(n);
    decode_to_f32(h, hf, formats::f16);
    decode_to_f32(b, bf, formats::bf16);
    for (const auto& e : scheme_table().entries) {
      for (BlockAxis axis : {BlockAxis::last, BlockAxis::first}) {
        if (shape == big && axis == BlockAxis::first && e.name != std::string_view("fp8_128x128")) continue;
        QuantOptions opt;
        opt.axis = axis;
        const std::string ctx = std::string(e.name) + (axis == BlockAxis::first ? " first" : " last") + " n=" +
                                std::to_string(n);
        expect_same(quantize(ArrayIn::f16(h), shape, e.value, opt),
                    quantize(std::span<const float>(hf), shape, e.value, opt), "f16 " + ctx);
        expect_same(quantize(ArrayIn::bf16(b), shape, e.value, opt),
                    quantize(std::span<const float>(bf), shape, e.value, opt), "bf16 " + ctx);
      }
    }
  }
  const std::vector<std::uint8_t> codes(4);
  EXPECT_THROW(quantize(ArrayIn::codes(codes, formats::e4m3fn), {4}, scheme_table().entries[0].value), Error);
}

}  // namespace
}  // namespace minifloat_test
