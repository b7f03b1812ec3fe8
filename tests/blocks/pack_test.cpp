// SPDX-License-Identifier: Apache-2.0
// pack_test.cpp: FP4 / FP6 packing and the 128×4 scale swizzle, against the worked hex examples
// documented in pack.hpp and an independent enumeration of the cuBLAS tile order.
#include <gtest/gtest.h>

#include <vector>

#include "minifloat/pack.hpp"

namespace minifloat_test {
using namespace minifloat;

TEST(Pack, Fp4LowNibbleFirst) {
  const std::vector<std::uint8_t> c = {0x1, 0x2, 0x7, 0xf};
  EXPECT_EQ(pack_fp4(c), (std::vector<std::uint8_t>{0x21, 0xf7}));
  EXPECT_EQ(pack_fp4(std::vector<std::uint8_t>{0x3}), (std::vector<std::uint8_t>{0x03}));
  EXPECT_EQ(unpack_fp4(std::vector<std::uint8_t>{0x21, 0xf7}, 4), c);
  EXPECT_THROW(pack_fp4(std::vector<std::uint8_t>{0x10}), Error);
  EXPECT_THROW(unpack_fp4(std::vector<std::uint8_t>{0x21}, 3), Error);
  static_assert(fp4_element0_in_low_nibble);
}

TEST(Pack, Fp6Dense) {
  const std::vector<std::uint8_t> c = {0x01, 0x02, 0x03, 0x04};
  EXPECT_EQ(pack_fp6(c), (std::vector<std::uint8_t>{0x81, 0x30, 0x10}));
  EXPECT_EQ(pack_fp6(std::vector<std::uint8_t>{0x3f, 0, 0, 0}), (std::vector<std::uint8_t>{0x3f, 0x00, 0x00}));
  EXPECT_EQ(pack_fp6(c, Fp6Packing::one_per_byte), c);
  std::vector<std::uint8_t> all(64);
  for (int i = 0; i < 64; ++i) all[i] = static_cast<std::uint8_t>((i * 37) & 0x3f);
  for (std::size_t n = 0; n <= all.size(); ++n) {
    std::vector<std::uint8_t> part(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    const auto p = pack_fp6(part);
    EXPECT_EQ(p.size(), (n * 6 + 7) / 8);
    EXPECT_EQ(unpack_fp6(p, n), part);
  }
  EXPECT_THROW(pack_fp6(std::vector<std::uint8_t>{0x40}), Error);
}

TEST(Pack, Swizzle128x4Examples) {
  EXPECT_EQ(swizzle_128x4_offset(0, 0, 4), 0u);
  EXPECT_EQ(swizzle_128x4_offset(0, 3, 4), 3u);
  EXPECT_EQ(swizzle_128x4_offset(32, 0, 4), 4u);
  EXPECT_EQ(swizzle_128x4_offset(96, 1, 4), 13u);
  EXPECT_EQ(swizzle_128x4_offset(1, 0, 4), 16u);
  EXPECT_EQ(swizzle_128x4_offset(127, 3, 4), 511u);
  EXPECT_EQ(swizzle_128x4_offset(128, 0, 4), 512u);
  EXPECT_EQ(swizzle_128x4_offset(0, 4, 8), 512u);
  EXPECT_EQ(swizzle_128x4_offset(128, 0, 8), 1024u);
  const auto s = swizzle_scales_128x4(std::vector<std::uint8_t>{0x7f, 0x80}, 1, 2);
  ASSERT_EQ(s.size(), 512u);
  EXPECT_EQ(s[0], 0x7f);
  EXPECT_EQ(s[1], 0x80);
  for (std::size_t i = 2; i < s.size(); ++i) EXPECT_EQ(s[i], 0);
}

// Independent enumeration of the documented tile order: byte k of a tile holds row
// (k / 16) + 32·((k / 4) mod 4), column k mod 4 — rows 0, 32, 64, 96, then 1, 33, 65, 97, …
TEST(Pack, Swizzle128x4TileOrder) {
  const std::size_t rows = 200, cols = 7;
  std::vector<std::uint8_t> m(rows * cols);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<std::uint8_t>(i * 13 + 1);
  const auto s = swizzle_scales_128x4(m, rows, cols);
  ASSERT_EQ(s.size(), 256u * 8u);
  std::size_t k = 0;
  for (std::size_t tr = 0; tr < 2; ++tr)
    for (std::size_t tc = 0; tc < 2; ++tc)
      for (std::size_t b = 0; b < 512; ++b, ++k) {
        const std::size_t r = tr * 128 + b / 16 + 32 * ((b / 4) % 4), c = tc * 4 + b % 4;
        const std::uint8_t want = (r < rows && c < cols) ? m[r * cols + c] : 0;
        ASSERT_EQ(s[k], want) << "byte " << k;
      }
  EXPECT_EQ(unswizzle_scales_128x4(s, rows, cols), m);
}

}  // namespace minifloat_test
