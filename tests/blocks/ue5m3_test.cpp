// SPDX-License-Identifier: Apache-2.0
// ue5m3_test.cpp: the UE5M3 block scale (issue 25 item 4): auto-round's cast into UE5M3 and its nvfp4_v2 /
// nvfp4_v2_with_global_scale quantizers (intel/auto-round b9f3d00, auto_round/data_type/nvfp.py), by hand and
// from auto-round's own code. Expected values come from nvfp.py's formulas worked by hand (comments) and were
// confirmed by running nvfp.py:26-246 itself (torch 2.15, CPU) on the same inputs; none from minifloat.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "minifloat/core/block_scale.hpp"
#include "minifloat/core/convert.hpp"
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
}  // namespace

// float_to_e5m3_frexp (nvfp.py:127-155): frexp(s) = (f, x), m = clamp(round((f - 0.5) * 16), 0, 7) with torch.round
// half-to-even, e = clamp(x + 14, 0, 31); below 2^-14 m = clamp(round(s / 2^-14 * 8), 1, 7).
TEST(Ue5m3AutoRound, CastByHand) {
  EXPECT_EQ(autoround_ue5m3_code(0.0f), 0x00);
  EXPECT_EQ(autoround_ue5m3_code(-1.0f), 0x00);                                    // clamp(min=0), then x > 0 only
  EXPECT_EQ(autoround_ue5m3_code(std::numeric_limits<float>::quiet_NaN()), 0x00);  // NaN > 0 is false
  EXPECT_EQ(autoround_ue5m3_code(1.0f), 0x78);       // (0.5, 1): m 0, e 15
  EXPECT_EQ(autoround_ue5m3_code(114688.0f), 0xfe);  // (0.875, 17): m 6, e 31
  EXPECT_EQ(autoround_ue5m3_code(1.875f), 0x7f);     // (0.9375, 1): m 7
  EXPECT_EQ(autoround_ue5m3_code(1.8125f), 0x7e);    // m = round(6.5) = 6 (RNE agrees)
  EXPECT_EQ(autoround_ue5m3_code(1.0625f), 0x78);    // m = round(0.5) = 0
  // No carry: m = round(7.5) = 8 and round(7.75) = 8 clamp to 7 (1.875), where RNE onto UE5M3 gives 0x80 = 2.
  EXPECT_EQ(autoround_ue5m3_code(1.9375f), 0x7f);
  EXPECT_EQ(autoround_ue5m3_code(1.96875f), 0x7f);
  EXPECT_EQ(from_float(1.9375f, formats::ue5m3, {Rounding::rne, Overflow::satfinite}).code, 0x80u);
  EXPECT_EQ(autoround_ue5m3_code(0x1p-14f), 0x08);  // (0.5, -13): m 0, e 1
  // Subnormals: round(s * 2^17) clamped to [1, 7]: 2^-20 → 1 (RNE: 0); 7.5·2^-17 → 7 (RNE: the tie goes to 0x08).
  EXPECT_EQ(autoround_ue5m3_code(0x1p-20f), 0x01);
  EXPECT_EQ(autoround_ue5m3_code(0x1p-149f), 0x01);
  EXPECT_EQ(autoround_ue5m3_code(0.5f * 0x1p-17f), 0x01);
  EXPECT_EQ(autoround_ue5m3_code(7.5f * 0x1p-17f), 0x07);
  EXPECT_EQ(from_float(7.5f * 0x1p-17f, formats::ue5m3, {Rounding::rne, Overflow::satfinite}).code, 0x08u);
  EXPECT_EQ(autoround_ue5m3_code(2.5f * 0x1p-17f), 0x02);  // ties to even
  EXPECT_EQ(autoround_ue5m3_code(3.5f * 0x1p-17f), 0x04);
  EXPECT_EQ(autoround_ue5m3_code(std::nextafter(0x1p-14f, 0.0f)), 0x07);  // 8 - 2^-21 → 8 → 7
}

// nvfp.py:232: g = FLOAT8_UE5M3_MAX * FLOAT4_E2M1_MAX * get_reciprocal(tensor_max) = fl32(688128 * fl32(1/amax)).
// amax 10: fl32(1/10) = 0x3dcccccd = 0.100000001490116…, × 688128 = 68812.80102539…, between 68812.796875 and
// 68812.8046875 (ulp 2^-7), nearer the second = 0x47866667.
TEST(Ue5m3AutoRound, TensorScaleByHand) {
  EXPECT_EQ(bits_of(ue5m3_tensor_scale(10.0f)), 0x47866667u);
  EXPECT_EQ(bits_of(ue5m3_tensor_scale(11.75f)), 0x4764c415u);  // auto-round: 58564.08203125
  EXPECT_EQ(ue5m3_tensor_scale(0.0f), 0.0f);                    // get_reciprocal(0) = 0
  EXPECT_EQ(ue5m3_tensor_scale(std::numeric_limits<float>::infinity()), 0.0f);
}

// nvfp4_v2 (nvfp.py:238-246, g = 1): block amax 11.75: s = fl32(11.75 · fl32(1/6)) = 1.9583334 → frexp (0.979, 1),
// m = round(7.67) = 8 → 7: code 0x7f = 1.875 (RNE would give 2.0); y = fl32(x / 1.875), RNE onto e2m1fn.
// 11.75/1.875 = 6.27 → 6 (0x7); 6.5625/1.875 = 3.5 → 4 (0x6; under a scale of 2.0 it would be 3.28 → 3);
// 5.625 → 3 (0x5); 2.8125 → 1.5 (0x3); -1 → -0.53 → -0.5 (0x9); 0; 0.1 → 0.053 → 0; -0.3 → -0.16 → -0 (0x8);
// 3 → 1.6 → 1.5 (0x3); 4.6875 → 2.5 → 2 (0x4); 0.25 → 0; 0.75 → 0.4 → 0.5 (0x1); 1.25 → 0.67 → 0.5 (0x1);
// 1.75 → 0.93 → 1 (0x2); 2.5 → 1.33 → 1.5 (0x3); 3.5 → 1.87 → 2 (0x4). auto-round's qdq: these × 1.875.
TEST(Ue5m3AutoRound, Nvfp4V2NoTensorScale) {
  const std::vector<float> x = {11.75f, 6.5625f, 5.625f, 2.8125f, -1.0f,  0.0f,  0.1f,  -0.3f,
                                3.0f,   4.6875f, 0.25f,  0.75f,   1.25f, 1.75f, 2.5f, 3.5f};
  const QuantizedTensor q = quantize(x, {1, 16}, parse_scheme("e2m1fn/1x16/ue5m3:nvfp4_v2"), {});
  ASSERT_EQ(q.scale_codes.size(), 1u);
  EXPECT_EQ(q.scale_codes[0], 0x7f);
  EXPECT_EQ(q.tensor_encode_scale, 1.0f);
  EXPECT_EQ(q.tensor_decode_scale, 1.0f);
  const std::vector<std::uint8_t> want = {0x7, 0x6, 0x5, 0x3, 0x9, 0x0, 0x0, 0x8,
                                          0x3, 0x4, 0x0, 0x1, 0x1, 0x2, 0x3, 0x4};
  EXPECT_EQ(q.codes, want);
  EXPECT_EQ(block_scale_value(q, 0), 1.875);
}

// nvfp4_v2_with_global_scale (nvfp.py:220-235) on two 1x16 blocks, tensor amax 11.75: g = 0x4764c415 (above),
// fl32(1/g) = 0x378f3cf4. Block 0: s = fl32(g · 1.9583334) ≈ 114688.0 → clip → 0xfe; divisor fl32(114688 ·
// 0x378f3cf4) = 0x3ffaaaab (1.9583334); 11.75 → 6.0 (0x7), 0.25 → 0.13 → 0. Block 1 (amax 1): s = fl32(g ·
// fl32(1/6)) = 9760.68 → frexp (0.596, 14), m = round(1.53) = 2, e = 28: 0xe2 = 10240; divisor fl32(10240 ·
// 0x378f3cf4) = 0x3e330c31 (0.17485); 1 → 5.72 → 6 (0x7), 0.3 → 1.72 → 1.5 (0x3), -0.7 → -4.0 → -4 (0xe),
// 0.05 → 0.29 → 0.5 (0x1).
TEST(Ue5m3AutoRound, Nvfp4V2WithTensorScale) {
  std::vector<float> x(32, 0.0f);
  for (int i = 1; i < 16; ++i) x[i] = 0.25f;
  x[0] = 11.75f;
  x[16] = 1.0f;
  x[17] = 0.3f;
  x[18] = -0.7f;
  x[19] = 0.05f;
  const Scheme s = find_scheme("nvfp4_ue5m3");
  EXPECT_EQ(scheme_spec(s), "e2m1fn/1x16/ue5m3:nvfp4_v2_gs");
  const QuantizedTensor q = quantize(x, {2, 16}, s, {});
  EXPECT_EQ(bits_of(q.tensor_encode_scale), 0x4764c415u);
  EXPECT_EQ(bits_of(q.tensor_decode_scale), 0x378f3cf4u);
  ASSERT_EQ(q.scale_codes.size(), 2u);
  EXPECT_EQ(q.scale_codes[0], 0xfe);
  EXPECT_EQ(q.scale_codes[1], 0xe2);
  std::vector<std::uint8_t> want(32, 0x0);
  want[0] = 0x7;
  want[16] = 0x7;
  want[17] = 0x3;
  want[18] = 0xe;
  want[19] = 0x1;
  EXPECT_EQ(q.codes, want);
  // The same binary32 values as binary64 (the exact forms of the same formulas) give the same bytes.
  const std::vector<double> xd(x.begin(), x.end());
  const QuantizedTensor qd = quantize(xd, {2, 16}, s, {});
  EXPECT_EQ(qd.codes, want);
  EXPECT_EQ(qd.scale_codes, q.scale_codes);
  EXPECT_EQ(bits_of(qd.tensor_encode_scale), 0x4764c415u);
}

// A zero tensor under the tensor scale: g = 0 (get_reciprocal(0)), s = 0 → code 0, divisor 0, every element +0
// (torch.where(dequant_scale == 0, 0, ...), nvfp.py:210-214), -0 included.
TEST(Ue5m3AutoRound, ZeroTensorGivesPlusZero) {
  const std::vector<float> x = {0.0f, -0.0f, 0.0f, -0.0f};
  const QuantizedTensor q = quantize(x, {1, 4}, parse_scheme("e2m1fn/1x4/ue5m3:nvfp4_v2_gs"), {});
  EXPECT_EQ(q.tensor_encode_scale, 0.0f);
  EXPECT_EQ(q.scale_codes.at(0), 0x00);
  EXPECT_EQ(q.codes, std::vector<std::uint8_t>(4, 0x0));
}

// Spec strings: ue5m3 is the scale format of the UE5M3 rules and of no other; their policies are refused with
// one line naming what is accepted.
TEST(Ue5m3AutoRound, SpecStringsAndRefusals) {
  EXPECT_EQ(scheme_spec(parse_scheme("e2m1fn/1x32/ue5m3:nvfp4_v2")), "e2m1fn/1x32/ue5m3:nvfp4_v2");
  auto message = [](const char* spec) {
    try {
      (void)parse_scheme(spec);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message("e2m1fn/1x16/ue4m3:nvfp4_v2").find("stores ue5m3 scales, not ue4m3"), std::string::npos);
  EXPECT_NE(message("e2m1fn/1x16/ue5m3:nvfp4").find("stores ue4m3 scales, not ue5m3"), std::string::npos);
  EXPECT_NE(message("mxint8/1x32/ue5m3:nvfp4_v2").find("needs a floating-point element"), std::string::npos);
  EXPECT_NE(message("e2m1fn/1x16/ue5m3:nvfp4_v2_gs/fp32-order=exact").find("accepted: te_multiply"),
            std::string::npos);
  EXPECT_NE(message("e2m1fn/1x16/ue5m3:nvfp4_v2/zero-block=nan").find("accepted: standard"), std::string::npos);
}

}  // namespace minifloat_test
