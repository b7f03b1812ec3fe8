// SPDX-License-Identifier: Apache-2.0
// four_over_six_test.cpp: NVFP4 4over6 (Scheme::scale_select, core/four_over_six.hpp; issue 25 item 2), values
// derived by hand from TE's reference, transformer_engine/pytorch/custom_recipes/reference_nvfp4.py (d0067d0):
// S_enc = fl32(1536 / amax) (:712, nvfp4_e4m3_max 256), base = fl32(fl32(amax/6) · S_enc) (:551), map4 =
// fl32(base · 1.5) (:552), error terms fl32(fl32(fl32(q·sf)·amax)/1536) − x summed in binary32 (:611-635), map-to-4
// only if strictly smaller (:637). The exact-rational oracle over random blocks is tests/python/test_fourover6.py.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "minifloat/quant.hpp"

namespace minifloat {
namespace {

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(FourOverSix, TensorScaleAndCandidateCodes) {
  EXPECT_EQ(bits(fourover6_global_encode_scale(10.0f)), 0x4319999au);  // fl32(153.6)
  EXPECT_EQ(fourover6_global_encode_scale(6.0f), 256.0f);
  EXPECT_EQ(fourover6_global_encode_scale(0.0f), 1.0f);  // TE :722-723
  // amax 6, S_enc 1: base = fl32(6/6)·1 = 1 → e4m3fn 1.0 = 0x38; 1.5 → 0x3c
  const FourOverSixCodes c = fourover6_block_codes(6.0f, 1.0f);
  EXPECT_EQ(c.map6, 0x38);
  EXPECT_EQ(c.map4, 0x3c);
  // amax 6, S_enc 256: base 256 = 2^8 → 0x78; 384 = 1.5·2^8 → 0x7c; amax 2000: base = fl32(333.33334)·256 → 448
  // both (satfinite)
  EXPECT_EQ(fourover6_block_codes(6.0f, 256.0f).map6, 0x78);
  EXPECT_EQ(fourover6_block_codes(6.0f, 256.0f).map4, 0x7c);
  EXPECT_EQ(fourover6_block_codes(2000.0f, 256.0f).map6, 0x7e);
  EXPECT_EQ(fourover6_block_codes(2000.0f, 256.0f).map4, 0x7e);
}

// One block [6, 5, 1, 2, 1, 2, 0…] (amax 6 = the tensor's: S_enc 256, map6 0x78 = 256, map4 0x7c = 384).
//  map6 (elements x·1): 6, 5 → 4 (tie 4|6, RNE to the even code 0x6), 1, 2 exact: errors 0, 1, 0, 0, 0, 0 →
//       MAE 1, MSE 1.
//  map4 (elements fl32(x · fl32(2/3)), value q·384·6/1536 = 1.5q): 6 → 4.0000001 → fl32 4 → 4 (6, error 0);
//       5 → 3.3333335 → 3 (4.5, error 0.5); 1 → 0.6666667 → 0.5 (0.75, 0.25); 2 → 1.3333334 → 1.5 (2.25, 0.25):
//       MAE 0.5 + 4·0.25 = 1.5, MSE 0.25 + 4·0.0625 = 0.5.
//  So MAE keeps map-to-6 (1 < 1.5) and MSE takes map-to-4 (0.5 < 1): the error mode decides.
TEST(FourOverSix, MseAndMaeDisagreeOnAHandBlock) {
  std::vector<float> x(16, 0.0f);
  const float head[] = {6, 5, 1, 2, 1, 2};
  for (int i = 0; i < 6; ++i) x[i] = head[i];
  Scheme s = find_scheme("nvfp4");
  s.scale_select = ScaleSelect::four_over_six_mse;
  const QuantizedTensor mse = quantize(std::span<const float>(x), {1, 16}, s);
  s.scale_select = ScaleSelect::four_over_six_mae;
  const QuantizedTensor mae = quantize(std::span<const float>(x), {1, 16}, s);
  EXPECT_EQ(mse.tensor_encode_scale, 256.0f);
  ASSERT_EQ(mse.scale_select.size(), 1u);
  EXPECT_EQ(mse.scale_select[0], 1);
  EXPECT_EQ(mse.scale_codes[0], 0x7c);
  EXPECT_EQ(mae.scale_select[0], 0);
  EXPECT_EQ(mae.scale_codes[0], 0x78);
  const std::vector<std::uint8_t> c4 = {0x6, 0x5, 0x1, 0x3, 0x1, 0x3}, c6 = {0x7, 0x6, 0x2, 0x4, 0x2, 0x4};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(mse.codes[i], c4[i]) << i;
    EXPECT_EQ(mae.codes[i], c6[i]) << i;
  }
  EXPECT_EQ(mse.scheme, "e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mse");
  Scheme e = find_scheme("nvfp4");
  e.scale_select = ScaleSelect::four_over_six_mse;
  EXPECT_TRUE(parse_scheme(mse.scheme) == e);  // the name parses back to the same scheme
}

TEST(FourOverSix, RefusesWhatItDoesNotApplyTo) {
  Scheme s = find_scheme("mxfp4");
  s.scale_select = ScaleSelect::four_over_six_mse;
  EXPECT_THROW(validate_scheme(s), Error);
  Scheme t = find_scheme("nvfp4");
  t.scale_select = ScaleSelect::four_over_six_mae;
  t.tensor_scale = 64.0f;
  EXPECT_THROW(validate_scheme(t), Error);
  EXPECT_THROW(parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/scale-select=5over7"), Error);
  EXPECT_THROW(parse_scheme("e4m3fn/1x32/e8m0fnu:ocp_floor/scale-select=4over6:mse"), Error);
  Scheme u = find_scheme("nvfp4");
  u.scale_select = ScaleSelect::four_over_six_mse;
  QuantOptions o;
  o.axis = BlockAxis::first;
  const std::vector<float> x(32, 1.0f);
  EXPECT_THROW(quantize(std::span<const float>(x), {16, 2}, u, o), Error);
  const std::vector<double> y(16, 0.1);  // 0.1 is not a binary32: TE's error is binary32 arithmetic
  EXPECT_THROW(quantize(std::span<const double>(y), {1, 16}, u), Error);
}

}  // namespace
}  // namespace minifloat
