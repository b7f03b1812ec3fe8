// SPDX-License-Identifier: Apache-2.0
// amax_scope_test.cpp: NVFP4 with one FP32 encode scale per row (Scheme::amax_scope row, issue 25 item 3).
// Hand-derived from TE's row-scaled order (transformer_engine/pytorch/custom_recipes/reference_nvfp4.py:709-730
// and :875-889, common/cast/nvfp4/core_nvfp4.cuh:82-95, quantize_transpose_nvfp4.cuh:711-738 at d0067d0):
// S_enc[r] = fl32(2688 / amax_r); block code e4m3(fl32(amax_b · fl32(S_enc[r] · fl32(1/6)))); element multiplier
// min(fl32(1 / fl32(sf · fl32(1/S_enc[r]))), FLT_MAX).
#include <gtest/gtest.h>

#include <vector>

#include "minifloat/quant.hpp"

namespace minifloat {
namespace {

// Row 0 = [42, 21, −10.5, 3.5, 0 × 12], row 1 = [6, 3, −1.5, 0.5, 0 × 12].
//  Row 0: S_enc = 2688/42 = 64 exactly. fl32(1/6) = 11184811·2^-26; fl32(64 · that) = 11184811·2^-20 (exact);
//    · 42 = 469762062·2^-20 → 24 bits: 469762062/32 = 14680064.44 → 14680064·2^-15 = 448 → e4m3fn 0x7e.
//    S_dec = 2^-6; sf · S_dec = 7; multiplier fl32(1/7) = 9586981·2^-26. 42 · it = 402653202·2^-26 → /32 =
//    12582912.56 → 12582913·2^-21 = 6.00000048 → e2m1 6 (0x7); 21 → 3.00000024 → 3 (0x5); −10.5 → −1.50000012
//    → 0xb; 3.5 · 9586981·2^-26 = 33554433.5·2^-26 → /4 = 8388608.375 → 2^-1 → 0.5 (0x1).
//  Row 1: S_enc = 2688/6 = 448 exactly. fl32(448 · fl32(1/6)) = 7·11184811·2^-20 = 78293677·2^-20 → /8 =
//    9786709.625 → 9786710·2^-17; · 6 = 58720260·2^-17 → /4 = 14680065·2^-15 = 448.0000305 → e4m3fn satfinite
//    448 = 0x7e. S_dec = fl32(1/448) = 9586981·2^-32; sf · S_dec = 7·9586981·2^-26 = 67108867·2^-26 → /8 =
//    8388608.375 → 1.0: multiplier 1, elements x itself: 0x7, 0x5, 0xb, 0x1.
//  With amax-scope tensor (amax 42, S_enc 64 for both rows) row 1's block is 6 · 11184811·2^-20 = 67108866·2^-20
//    → /8 = 8388608.25 → 64 → e4m3fn 0x68: the row scope changes row 1's block scale only.
std::vector<float> two_rows() {
  std::vector<float> x(32, 0.0f);
  const float r0[] = {42.0f, 21.0f, -10.5f, 3.5f}, r1[] = {6.0f, 3.0f, -1.5f, 0.5f};
  for (int i = 0; i < 4; ++i) {
    x[static_cast<std::size_t>(i)] = r0[i];
    x[16 + static_cast<std::size_t>(i)] = r1[i];
  }
  return x;
}

void expect_hand_codes(const QuantizedTensor& q, const std::vector<std::uint8_t>& codes, bool first) {
  const std::uint8_t want[] = {0x7, 0x5, 0xb, 0x1};
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t i = 0; i < 16; ++i) {
      const std::size_t at = first ? i * 2 + r : r * 16 + i;
      EXPECT_EQ(codes.at(at), i < 4 ? want[i] : 0) << "row " << r << " element " << i;
    }
  ASSERT_EQ(q.scale_codes.size(), 2u);
  EXPECT_EQ(q.scale_codes[0], 0x7e);
  EXPECT_EQ(q.scale_codes[1], 0x7e);
  ASSERT_EQ(q.row_encode_scales.size(), 2u);
  EXPECT_EQ(q.row_encode_scales[0], 64.0f);
  EXPECT_EQ(q.row_encode_scales[1], 448.0f);
  ASSERT_EQ(q.row_decode_scales.size(), 2u);
  EXPECT_EQ(q.row_decode_scales[0], 0.015625f);
  EXPECT_EQ(q.row_decode_scales[1], 9586981.0f * 0x1p-32f);
  EXPECT_EQ(q.tensor_encode_scale, 1.0f);
  EXPECT_EQ(q.tensor_decode_scale, 1.0f);
}

TEST(AmaxScope, TwoRowsHandDerived) {
  Scheme s = find_scheme("nvfp4");
  s.amax_scope = AmaxScope::row;
  const std::vector<float> x = two_rows();
  const QuantizedTensor q = quantize(std::span<const float>(x), {2, 16}, s);
  expect_hand_codes(q, q.codes, false);
  const std::vector<double> d = dequantize(q);
  EXPECT_EQ(d[0], 42.0);                                          // 6 · 448 · 2^-6
  EXPECT_EQ(d[16], 6.0 * 448.0 * (9586981.0 * 0x1p-32));          // 6 · 448 · fl32(1/448), exact in binary64
  EXPECT_EQ(d[18], -1.5 * 448.0 * (9586981.0 * 0x1p-32));
  // tensor scope: row 1's block is 0x68 (64), one tensor S_enc of 64
  const QuantizedTensor t = quantize(std::span<const float>(x), {2, 16}, find_scheme("nvfp4"));
  EXPECT_EQ(t.scale_codes.at(1), 0x68);
  EXPECT_EQ(t.tensor_encode_scale, 64.0f);
  EXPECT_TRUE(t.row_encode_scales.empty());
}

TEST(AmaxScope, AxisFirstIsPerColumn) {
  // the same two slices as the columns of a [16, 2] input, blocks along axis first: the same codes and scales
  Scheme s = find_scheme("nvfp4");
  s.amax_scope = AmaxScope::row;
  const std::vector<float> rows = two_rows();
  std::vector<float> x(32);
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t i = 0; i < 16; ++i) x[i * 2 + r] = rows[r * 16 + i];
  QuantOptions o;
  o.axis = BlockAxis::first;
  const QuantizedTensor q = quantize(std::span<const float>(x), {16, 2}, s, o);
  expect_hand_codes(q, q.codes, true);
}

TEST(AmaxScope, StreamedPiecesAndF64EqualTheWhole) {
  Scheme s = find_scheme("nvfp4");
  s.amax_scope = AmaxScope::row;
  const std::vector<float> x = two_rows();
  BlockQuantizer bq({2, 16}, s);
  const QuantPlan plan = bq.plan(8);  // parts of a row: every piece observed first
  ASSERT_TRUE(plan.first_pass);
  ASSERT_GT(plan.count(), 2u);
  for (std::size_t k = 0; k < plan.count(); ++k) {
    const QuantPiece p = plan.piece(k);
    bq.observe(p, std::span<const float>(x).subspan(p.offset(plan.file_cols), p.size()));
  }
  std::vector<std::uint8_t> codes(32);
  for (std::size_t k = 0; k < plan.count(); ++k) {
    const QuantPiece p = plan.piece(k);
    const std::size_t at = p.offset(plan.file_cols);
    bq.quantize(p, std::span<const float>(x).subspan(at, p.size()), std::span<std::uint8_t>(codes).subspan(at, p.size()));
  }
  expect_hand_codes(bq.result(), codes, false);
  const std::vector<double> xd(x.begin(), x.end());
  const QuantizedTensor qd = quantize(std::span<const double>(xd), {2, 16}, s);
  expect_hand_codes(qd, qd.codes, false);
}

TEST(AmaxScope, ZeroRowTakesScaleOneAndSpecRoundTrips) {
  // a row of zeros: TE's compute_global_encode_scaling_factor_FP4 returns 1 for amax 0 (core_nvfp4.cuh:91-93)
  Scheme s = parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row");
  EXPECT_EQ(s.amax_scope, AmaxScope::row);
  EXPECT_EQ(scheme_name(s), "e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row");
  EXPECT_EQ(parse_scheme(scheme_name(s)), s);
  std::vector<float> x = two_rows();
  std::fill(x.begin() + 16, x.end(), 0.0f);
  const QuantizedTensor q = quantize(std::span<const float>(x), {2, 16}, s);
  EXPECT_EQ(q.row_encode_scales.at(0), 64.0f);
  EXPECT_EQ(q.row_encode_scales.at(1), 1.0f);
  EXPECT_EQ(q.row_decode_scales.at(1), 1.0f);
}

TEST(AmaxScope, Refusals) {
  // not nvfp4, 16x16 tiles, with a given tensor scale, with 4over6, with mx-quirks
  EXPECT_THROW(parse_scheme("e4m3fn/1x32/e8m0fnu:ocp_floor/amax-scope=row"), Error);
  EXPECT_THROW(parse_scheme("e2m1fn/16x16/ue4m3:nvfp4/amax-scope=row"), Error);
  EXPECT_THROW(parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row/tensor-scale=64"), Error);
  EXPECT_THROW(parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row/scale-select=4over6:mse"), Error);
  EXPECT_THROW(parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/amax-scope=rows"), NameError);
  Scheme s = find_scheme("nvfp4");
  s.amax_scope = AmaxScope::row;
  QuantOptions o;
  o.mx_quirks = MxQuirks::torchao_0_18;
  EXPECT_TRUE(check_options(s, o).has_value());
  try {
    parse_scheme("e2m1fn/1x32/e8m0fnu:ocp_floor/amax-scope=row");
    ADD_FAILURE() << "mxfp4 with amax-scope row was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("amax-scope row applies to the nvfp4 rules"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace minifloat
