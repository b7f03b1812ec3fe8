// SPDX-License-Identifier: Apache-2.0
// tensor_scale_test.cpp: NVFP4 with a given FP32 tensor encode scale (Scheme::tensor_scale, issue 25 item 3).
// Hand-derived from TE's formulas (transformer_engine/pytorch/custom_recipes/reference_nvfp4.py:713-760:
// block decode = fl32(amax · fl32(S_enc · fl32(1/6))) → e4m3; element multiplier 1/fl32(e4m3 · fl32(1/S_enc))).
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "minifloat/quant.hpp"

namespace minifloat {
namespace {

TEST(TensorScale, GivenEncodeScaleIsUsedInOnePass) {
  // S_enc = 64: fl32(64 · fl32(1/6)) = 64 · 0x3e2aaaab exactly; · 6 = 64.0000019… → fl32 64 (below half an ulp,
  // 2^-18), e4m3fn 64 = 2^6 → code 0x68; decode fl32(1/64) = 2^-6; multiplier 1/(64 · 2^-6) = 1: the elements
  // are x itself in e2m1fn (6 → 0x7, 3 → 0x5, −1.5 → 0xb, 0.5 → 0x1).
  Scheme s = find_scheme("nvfp4");
  s.tensor_scale = 64.0f;
  std::vector<float> x(16, 0.0f);
  x[0] = 6.0f;
  x[1] = 3.0f;
  x[2] = -1.5f;
  x[3] = 0.5f;
  BlockQuantizer bq({1, 16}, s);
  const QuantPlan plan = bq.plan(1 << 20);
  EXPECT_FALSE(plan.first_pass);  // one pass: no observe()
  std::vector<std::uint8_t> codes(16);
  bq.quantize(plan.piece(0), std::span<const float>(x), codes);
  EXPECT_EQ(bq.result().scale_codes.at(0), 0x68);
  EXPECT_EQ(bq.result().tensor_encode_scale, 64.0f);
  EXPECT_EQ(bq.result().tensor_decode_scale, 0.015625f);
  EXPECT_EQ(codes[0], 0x7);
  EXPECT_EQ(codes[1], 0x5);
  EXPECT_EQ(codes[2], 0xb);
  EXPECT_EQ(codes[3], 0x1);
  EXPECT_EQ(codes[4], 0x0);
  // without it, S_enc = fl32(2688 / 6) = 448 and the block scale is 448's code 0x7e
  const QuantizedTensor q = quantize(std::span<const float>(x), {1, 16}, find_scheme("nvfp4"));
  EXPECT_EQ(q.scale_codes.at(0), 0x7e);
}

TEST(TensorScale, Refusals) {
  Scheme s = find_scheme("mxfp8_e4m3");
  s.tensor_scale = 2.0f;
  EXPECT_THROW(validate_scheme(s), Error);  // not nvfp4
  for (const float bad : {-1.0f, std::numeric_limits<float>::infinity()}) {
    Scheme n = find_scheme("nvfp4");
    n.tensor_scale = bad;
    EXPECT_THROW(validate_scheme(n), Error) << bad;
  }
  EXPECT_THROW(parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=-2"), NameError);
  EXPECT_THROW(parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=nan"), NameError);
  EXPECT_EQ(parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=64").tensor_scale, 64.0f);
  EXPECT_EQ(scheme_name(parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=64")),
            "e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=64");
}

}  // namespace
}  // namespace minifloat
