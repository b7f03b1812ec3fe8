// SPDX-License-Identifier: Apache-2.0
// hadamard_test.cpp: core/hadamard.hpp's rht16_group on hand-derived vectors (issue 25 item 1). The
// definition: TE transformer_engine/pytorch/tensor/nvfp4_tensor.py:49-104 (sign vector 0xd7e8 as bits,
// Sylvester H16, scale 1/sqrt(16)); the exact-rational oracle over random tensors is tests/cli/issue25_checks.py.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "minifloat/core/hadamard.hpp"

namespace minifloat {
namespace {

constexpr BlockTransform kTe{.rht16 = true, .signs = kRht16WgradSigns, .output = TransformOutput::f32};

TEST(Hadamard, UnitVectorGivesItsSignedRow) {
  // x = e_3: y_j = s_3 · H[3][j] / 4 with s_3 = −1 (TE's vector: 1,1,1,−1,…), H[3][j] = (−1)^popcount(3 & j)
  float x[16] = {}, y[16];
  x[3] = 1.0f;
  rht16_group(x, 1, kTe, y, 1);
  const float want[4] = {-0.25f, 0.25f, 0.25f, -0.25f};
  for (int j = 0; j < 16; ++j) EXPECT_EQ(y[j], want[j % 4]) << j;
}

TEST(Hadamard, OnesGiveTheSignSums) {
  // x = 1: y_0 = Σ s_i / 4 = (6 − 10) / 4 = −1; y_1 = Σ s_i (−1)^i / 4: even i (0,2,4,6,8,10,12,14) give
  // 1+1+1−1−1−1−1−1 = −2, odd i (1,3,5,7,9,11,13,15) give 1−1−1−1−1+1+1−1 = −2, so (−2 − (−2)) / 4 = 0
  float x[16], y[16];
  for (float& v : x) v = 1.0f;
  rht16_group(x, 1, kTe, y, 1);
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_FALSE(std::signbit(y[1]));  // an exact zero sum of nonzero terms is +0
}

TEST(Hadamard, OneRoundingToBinary32ThenBf16) {
  // x_0 = 1, x_1 = 2^−30 (s_0 = s_1 = +1, H[1][0] = 1, H[1][1] = −1): y_0 = (1 + 2^−30) / 4 and
  // y_1 = (1 − 2^−30) / 4, each within a quarter ulp of 0.25, so one rounding to f32 gives 0.25 for both.
  float x[16] = {}, y[16];
  x[0] = 1.0f;
  x[1] = std::ldexp(1.0f, -30);
  rht16_group(x, 1, kTe, y, 1);
  EXPECT_EQ(y[0], 0.25f);
  EXPECT_EQ(y[1], 0.25f);
  // x_0 = 1 + 2^−23 (f32 exact), bf16 output: f32 y = (1 + 2^−23)/4, then bf16 RNE → 0.25
  x[0] = 1.0f + std::ldexp(1.0f, -23);
  x[1] = 0.0f;
  rht16_group(x, 1, kTe, y, 1);
  EXPECT_EQ(y[0], 0.25f + std::ldexp(1.0f, -25));
  BlockTransform tao = kTe;
  tao.output = TransformOutput::bf16;
  rht16_group(x, 1, tao, y, 1);
  EXPECT_EQ(y[0], 0.25f);
}

TEST(Hadamard, InverseUndoesTheTransform) {
  float x[16], y[16];
  double back[16];
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i * i) - 7.5f;
  rht16_group(x, 1, kTe, y, 1);
  double yd[16];
  for (int i = 0; i < 16; ++i) yd[i] = y[i];
  rht16_group(yd, 1, kTe, back, 1, /*inverse=*/true);
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(back[i], x[i], 1e-5) << i;  // y was rounded to f32
}

TEST(Hadamard, Specials) {
  float x[16] = {}, y[16];
  x[5] = std::numeric_limits<float>::quiet_NaN();
  rht16_group(x, 1, kTe, y, 1);
  for (float v : y) EXPECT_EQ(std::bit_cast<std::uint32_t>(v), 0x7fc00000u);  // every output reads every input
  x[5] = std::numeric_limits<float>::infinity();                              // s_5 = −1: y_j = −H[5][j]·Inf
  rht16_group(x, 1, kTe, y, 1);
  EXPECT_EQ(y[0], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[1], std::numeric_limits<float>::infinity());  // H[5][1] = −1
  x[0] = std::numeric_limits<float>::infinity();            // +Inf and −Inf terms in y_0: NaN
  rht16_group(x, 1, kTe, y, 1);
  EXPECT_TRUE(std::isnan(y[0]));
  float z[16], w[16];
  for (float& v : z) v = -0.0f;
  rht16_group(z, 1, kTe, w, 1);
  EXPECT_FALSE(std::signbit(w[0]));  // −0·(+1) and −0·(−1) terms mix: +0
}

}  // namespace
}  // namespace minifloat
