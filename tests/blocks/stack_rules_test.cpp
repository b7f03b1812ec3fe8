// SPDX-License-Identifier: Apache-2.0
// stack_rules_test.cpp: the stacks' own scale rules and orders (issue 25 item 5): rceil_fp32 (TE MXFP8),
// nvfp4_ceil (NVFP4 block scale rounded up) and fp32-order deepgemm (DeepGEMM). Every expected value is worked
// from the stack's code (file:line in the comments) in binary32 by hand and confirmed with numpy float32 and
// ml_dtypes' float8_e4m3fn (RNE) — none from minifloat.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "minifloat/core/block_scale.hpp"
#include "minifloat/error.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/scheme.hpp"

namespace minifloat_test {
using namespace minifloat;

namespace {
std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
std::string refusal(const char* spec) {
  try {
    (void)parse_scheme(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}
}  // namespace

// TE util/ptx_arch_spec.cuh:72-100 (float_to_e8m0: cvt.rp.satfinite.ue8m0x2.f32, and its fallback): the biased
// exponent, +1 for a nonzero mantissa, except 0xfe and subnormals up to 0x400000 (= 2^-127).
TEST(RceilFp32, CvtRpUe8m0ByHand) {
  EXPECT_EQ(rceil_fp32_code(1.0f), 0x7f);
  EXPECT_EQ(rceil_fp32_code(f32_of(0x3f800001u)), 0x80);
  EXPECT_EQ(rceil_fp32_code(f32_of(0x00400000u)), 0x00);  // 2^-127
  EXPECT_EQ(rceil_fp32_code(f32_of(0x00400001u)), 0x01);
  EXPECT_EQ(rceil_fp32_code(f32_of(0x00000001u)), 0x00);
  EXPECT_EQ(rceil_fp32_code(0.0f), 0x00);
  EXPECT_EQ(rceil_fp32_code(std::numeric_limits<float>::max()), 0xfe);  // satfinite
  EXPECT_EQ(rceil_fp32_code(std::numeric_limits<float>::infinity()), 0xfe);
  EXPECT_EQ(rceil_fp32_code(std::numeric_limits<float>::quiet_NaN()), 0xff);
}

// TE cast/mxfp8/quantize_mxfp8.cuh:446: float_to_e8m0(amax * max_norm_rcp), max_norm_rcp = 1.0 / 448 (utils.cuh:1044)
// = 0x3b124925 = (1/448)(1 + 0.375·2^-23). Where it differs from the exact rceil (smallest e with 448·2^e >= amax):
//  - e4m3fn, amax = 448·2^-127 + 1 ulp = 0x04600001: amax/448 = 2^-127 + 0.571·2^-150, × (1 + 0.375·2^-23) =
//    2^-127 + 0.473·2^-149 → rounds (FP32-subnormal grid 2^-149) to 2^-127 → code 0x00; exact rceil: 0x01.
//    (A numpy sweep of ±3 ulps around 448·2^k for every k finds this k = -127 point only; e5m2, e2m1fn, e2m3fn,
//    e3m2fn likewise.)
//  - mxint8 (max 127/64, 1/max = 0x3f010204 = (64/127)(1 - 0.03·2^-23)): amax = 127/64 + 2^-23 = 0x3ffe0001,
//    q = (1 + 0.504·2^-23)(1 - 0.03·2^-23) = 1 + 0.474·2^-23 → 1.0 → code 0x7f (2^0); exact rceil 0x80 (2^1).
TEST(RceilFp32, DiffersFromExactRceilWhereTheProductRounds) {
  EXPECT_EQ(bits_of(frcp_rn(448.0f)), 0x3b124925u);
  EXPECT_EQ(bits_of(frcp_rn(127.0f / 64.0f)), 0x3f010204u);
  const float a = f32_of(0x04600001u);
  EXPECT_EQ(e8m0_exponent(ScaleRule::rceil_fp32, a, elements::e4m3fn), -127);
  EXPECT_EQ(e8m0_exponent(ScaleRule::rceil, a, elements::e4m3fn), -126);
  const float b = f32_of(0x3ffe0001u);
  EXPECT_EQ(e8m0_exponent(ScaleRule::rceil_fp32, b, elements::mxint8), 0);
  EXPECT_EQ(e8m0_exponent(ScaleRule::rceil, b, elements::mxint8), 1);
  // Agreement at the worked examples of spec-digest §2.3 (e4m3fn amax 460 → 1; e2m1fn 7.5 → 1).
  EXPECT_EQ(e8m0_exponent(ScaleRule::rceil_fp32, 460.0f, elements::e4m3fn), 1);
  EXPECT_EQ(e8m0_exponent(ScaleRule::rceil_fp32, 448.0f, elements::e4m3fn), 0);
  EXPECT_EQ(e8m0_exponent(ScaleRule::rceil_fp32, 7.5f, elements::e2m1fn), 1);
  // Through the quantizer and the spec string (mxfp8_e4m3 with the rule swapped).
  std::vector<float> x(32, 0.0f);
  x[0] = a;
  const QuantizedTensor q = quantize(x, {32}, parse_scheme("e4m3fn/1x32/e8m0fnu:rceil_fp32"), {});
  EXPECT_EQ(q.scale_codes.at(0), 0x00);
  EXPECT_EQ(quantize(x, {32}, parse_scheme("e4m3fn/1x32/e8m0fnu:rceil"), {}).scale_codes.at(0), 0x01);
}

// nvfp4_ceil: TE's s = fl32(amax · fl32(S_enc · fl32(1/6))) (core_nvfp4.cuh) rounded UP into E4M3. Tensor amax 10:
// S_enc = fl32(2688/10) = 268.8 (0x43866666). Block 0 (amax 10): s = 448 exactly → 0x7e both ways. Block 1 (amax
// 1): s = 44.8 (0x42333333), between the E4M3 values 44 (0x63) and 48 (0x64): RNE 0x63 (ml_dtypes), up 0x64.
// Its element 1.0: enc = fl32(1/fl32(48 · fl32(1/268.8))) = 5.6 (0x40b33333) → e2m1fn 6 (0x7).
TEST(Nvfp4Ceil, BlockScaleRoundsUp) {
  std::vector<float> x(32, 1.0f);
  x[0] = 10.0f;
  for (int i = 17; i < 32; ++i) x[i] = 0.25f;
  const QuantizedTensor up = quantize(x, {2, 16}, parse_scheme("e2m1fn/1x16/ue4m3:nvfp4_ceil"), {});
  EXPECT_EQ(bits_of(up.tensor_encode_scale), 0x43866666u);
  ASSERT_EQ(up.scale_codes.size(), 2u);
  EXPECT_EQ(up.scale_codes[0], 0x7e);
  EXPECT_EQ(up.scale_codes[1], 0x64);
  EXPECT_EQ(bits_of(nvfp4_element_encode_scale(0x64, up.tensor_encode_scale)), 0x40b33333u);
  EXPECT_EQ(up.codes[16], 0x7);
  const QuantizedTensor ne = quantize(x, {2, 16}, find_scheme("nvfp4"), {});
  EXPECT_EQ(ne.scale_codes[1], 0x63);
  EXPECT_EQ(nvfp4_ceil_block_scale_code(10.0f, 1.0f), 0x3e);  // 1.6666667 → 1.75 (RNE: 1.625 = 0x3d)
}

// DeepGEMM deep_gemm/utils/math.py:34-37: x_amax.clamp(1e-4); sf = x_amax / 448.0; x * (1.0 / sf). amax
// 0.296875: sf = fl32(0.296875/448) = 0x3a2db6db (TE's decode fl32(1/fl32(448/amax)) = 0x3a2db6dc), encode
// fl32(1/sf); x = 0x38640000: y = fl32(x · encode) = 0x3da80001 → e4m3fn 0x1b, where TE's encode fl32(448/amax)
// gives exactly 0x3da80000 = 10.5·2^-7, the tie that RNE sends to 0x1a.
TEST(Fp32OrderDeepgemm, ReciprocalOfTheQuotient) {
  const std::vector<float> x = {0.296875f, f32_of(0x38640000u)};
  const QuantizedTensor dg = quantize(x, {2}, parse_scheme("e4m3fn/1x2/f32:fp32_amax/fp32-order=deepgemm"), {});
  EXPECT_EQ(bits_of(dg.scales.at(0)), 0x3a2db6dbu);
  EXPECT_EQ(dg.codes.at(1), 0x1b);
  const QuantizedTensor te = quantize(x, {2}, parse_scheme("e4m3fn/1x2/f32:fp32_amax"), {});
  EXPECT_EQ(bits_of(te.scales.at(0)), 0x3a2db6dcu);
  EXPECT_EQ(te.codes.at(1), 0x1a);
  // The clamp is amax-epsilon=0.0001: amax 1e-6 → fl32(1e-4) = 0x38d1b717, sf = 0x346facad, 1e-6 → 4.48 → 0x49.
  const std::vector<float> t = {1e-6f, 0.0f};
  const QuantizedTensor c =
      quantize(t, {2}, parse_scheme("e4m3fn/1x2/f32:fp32_amax/fp32-order=deepgemm/amax-epsilon=0.0001"), {});
  EXPECT_EQ(bits_of(c.scales.at(0)), 0x346facadu);
  EXPECT_EQ(c.codes.at(0), 0x49);
}

TEST(StackRules, Refusals) {
  EXPECT_NE(refusal("e2m1fn/1x16/f32:fp32_pow2/fp32-order=deepgemm").find("fp32_amax rule only"), std::string::npos);
  EXPECT_NE(refusal("e2m1fn/1x16/ue4m3:nvfp4/fp32-order=deepgemm").find("fp32_amax rule only"), std::string::npos);
  EXPECT_NE(refusal("e4m3fn/1x32/e8m0fnu:rceil_fp32/fp32-order=deepgemm").find("fp32_amax rule only"),
            std::string::npos);
  EXPECT_NE(refusal("e2m1fn/1x16/e8m0fnu:nvfp4_ceil").find("stores ue4m3 scales"), std::string::npos);
  EXPECT_NE(refusal("mxint8/1x16/ue4m3:nvfp4_ceil").find("the nvfp4_ceil rule needs a floating-point element"),
            std::string::npos);
  EXPECT_NE(refusal("e4m3fn/1x32/e8m0fnu:rceil_fp33").find("accepted: "), std::string::npos);
}

}  // namespace minifloat_test
