// SPDX-License-Identifier: Apache-2.0
// te2_quirks_test.cpp: QuantOptions::mx_quirks = MxQuirks::te_2 (issue 25 item 6), TransformerEngine 2.x's
// PyTorch reference quantizers (TE d0067d0). Every expected value is derived by hand from TE's code (the
// file:line in each test) and from the e4m3fn / e2m1fn encodings; none is computed by minifloat. The default
// (TE's CUDA kernels: recipe_common.cuh:14-49, core_nvfp4.cuh:82-95) is checked beside each quirk so that a
// quirk that leaked into the default, or vanished, fails.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "minifloat/quant.hpp"

namespace minifloat {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

QuantizedTensor run(const std::vector<float>& x, const std::vector<std::size_t>& shape, const char* scheme,
                    MxQuirks quirks) {
  QuantOptions o;
  o.mx_quirks = quirks;
  return quantize(std::span<const float>(x), shape, find_scheme(scheme), o);
}
std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

TEST(Te2Quirks, Fp32InfTileScaleInvInfElementsZeroed) {
  // quantize_scale_calc.py:32 scale = 448 / Inf = 0; :35 and :55 leave it; :58 scale_inv = 1/0 = +Inf.
  // blockwise_quantizer_reference.py:165 qx = x * 0: 1 → +0 (0x00), −2 → −0 (0x80), ±Inf · 0 → the x86
  // default NaN 0xffc00000 → torch's e4m3fn cast 0x7f | sign = 0xff. The kernel (recipe_common.cuh:24) gives
  // scale 1, scale_inv 1.
  std::vector<float> x(128, 0.5f);
  x[0] = 1.0f;
  x[1] = -2.0f;
  x[2] = kInf;
  x[3] = -kInf;
  const QuantizedTensor q = run(x, {1, 128}, "fp8_1x128", MxQuirks::te_2);
  ASSERT_EQ(q.scales.size(), 1u);
  EXPECT_EQ(bits(q.scales[0]), 0x7f800000u);
  EXPECT_EQ(q.codes[0], 0x00);
  EXPECT_EQ(q.codes[1], 0x80);
  EXPECT_EQ(q.codes[2], 0xff);
  EXPECT_EQ(q.codes[3], 0xff);
  EXPECT_EQ(q.codes[4], 0x00);
  const QuantizedTensor d = run(x, {1, 128}, "fp8_1x128", MxQuirks::none);
  EXPECT_NE(bits(d.scales[0]), 0x7f800000u);
}

TEST(Te2Quirks, Fp32Pow2NanTileScaleInvTwo) {
  // quantize_scale_calc.py:29 amax = max(NaN, 0) = NaN; :32 scale = NaN; :38 torch.frexp(NaN) gives exponent
  // 0, :44 exp − 1 = −1, :48 scale = 2^−1 = 0.5; :58 scale_inv = 2.0 (0x40000000).
  // Elements x · 0.5: 1 → 0.5 (e4m3fn 0x30), −2 → −1 (0xb8), NaN → 0x7f, 0.5 → 0.25 (0x28).
  std::vector<float> x(128, 0.5f);
  x[0] = 1.0f;
  x[1] = -2.0f;
  x[2] = kNan;
  QuantOptions o;
  o.mx_quirks = MxQuirks::te_2;
  const QuantizedTensor q =
      quantize(std::span<const float>(x), {1, 128}, parse_scheme("e4m3fn/1x128/f32:fp32_pow2"), o);
  EXPECT_EQ(bits(q.scales.at(0)), 0x40000000u);
  EXPECT_EQ(q.codes[0], 0x30);
  EXPECT_EQ(q.codes[1], 0xb8);
  EXPECT_EQ(q.codes[2], 0x7f);
  EXPECT_EQ(q.codes[3], 0x28);
  // fp32_amax (no pow2): scale = 448/NaN = +NaN, scale_inv +NaN, every element NaN (x · NaN): 0x7f
  const QuantizedTensor a = run(x, {1, 128}, "fp8_1x128", MxQuirks::te_2);
  EXPECT_EQ(bits(a.scales.at(0)), 0x7fc00000u);
  for (std::size_t i = 0; i < 128; ++i) EXPECT_EQ(a.codes[i], 0x7f) << i;
}

TEST(Te2Quirks, Fp32FiniteTileAsTheKernel) {
  // amax 448 → scale fl32(448/448) = 1, scale_inv 1: elements x itself (1 → 0x38, 448 → 0x7e); the same
  // under the default, tile by tile (fp8_128x128: a 2×2 tensor is one tile).
  const std::vector<float> x = {1.0f, 448.0f, -0.5f, 0.0f};
  for (const char* s : {"fp8_1x128", "fp8_128x128", "fp8_tensor"}) {
    const QuantizedTensor q = run(x, {2, 2}, s, MxQuirks::te_2), d = run(x, {2, 2}, s, MxQuirks::none);
    EXPECT_EQ(q.codes, d.codes) << s;
    EXPECT_EQ(q.scales, d.scales) << s;
  }
  const QuantizedTensor t = run(x, {2, 2}, "fp8_tensor", MxQuirks::te_2);
  EXPECT_EQ(t.codes, (std::vector<std::uint8_t>{0x38, 0x7e, 0xb0, 0x00}));
  EXPECT_EQ(t.scales.at(0), 1.0f);
}

TEST(Te2Quirks, Nvfp4AllZeroTensorDecodeScaleOneOverFltMax) {
  // reference_nvfp4.py:712 S = 2688 / 0 = +Inf, :713-720 min(S, FLT_MAX) = FLT_MAX (not 0: kept), :730
  // decode = fl32(1 / FLT_MAX) = 2^−128 (0x00200000: 1/FLT_MAX = 2^−128 · (1 + 2^−24 + …), rounded to the
  // subnormal 2^−128). Blocks: 0 · … = 0 → e4m3fn 0x00; elements ±0 · FLT_MAX = ±0 → code 0 for both (:53:
  // −0.0 >= 0.0). The kernel (core_nvfp4.cuh:91) gives S = 1, and −0 keeps its sign (code 0x8).
  std::vector<float> x(16, 0.0f);
  x[1] = -0.0f;
  const QuantizedTensor q = run(x, {1, 16}, "nvfp4", MxQuirks::te_2);
  EXPECT_EQ(q.tensor_encode_scale, FLT_MAX);
  EXPECT_EQ(bits(q.tensor_decode_scale), 0x00200000u);
  EXPECT_EQ(q.scale_codes.at(0), 0x00);
  EXPECT_EQ(q.codes[0], 0x0);
  EXPECT_EQ(q.codes[1], 0x0);
  const QuantizedTensor d = run(x, {1, 16}, "nvfp4", MxQuirks::none);
  EXPECT_EQ(d.tensor_decode_scale, 1.0f);
  EXPECT_EQ(d.codes[1], 0x8);
}

TEST(Te2Quirks, Nvfp4NanMakesEveryBlockScaleNan) {
  // reference_nvfp4.py:892 G = torch.max(|x|) = NaN; :712 S = NaN, :713 torch.min keeps it (+NaN); :730
  // decode = +NaN; :752 each block's vec_max · NaN = NaN, :753-761 kept, :762 e4m3fn NaN = 0x7f — for the
  // block without a NaN too; :764 encode NaN, :773 x · NaN = NaN, cast_to_fp4x2 (:49-71): no comparison holds,
  // code 0. The kernel's fminf (core_nvfp4.cuh:89) drops the NaN: the second block keeps a finite scale.
  std::vector<float> x(32, 3.0f);
  x[1] = kNan;
  const QuantizedTensor q = run(x, {1, 32}, "nvfp4", MxQuirks::te_2);
  EXPECT_TRUE(std::isnan(q.tensor_decode_scale));
  EXPECT_TRUE(std::isnan(q.tensor_encode_scale));
  EXPECT_EQ(q.scale_codes, (std::vector<std::uint8_t>{0x7f, 0x7f}));
  for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(q.codes[i], 0x0) << i;
  const QuantizedTensor d = run(x, {1, 32}, "nvfp4", MxQuirks::none);
  EXPECT_NE(d.scale_codes.at(1), 0x7f);
}

TEST(Te2Quirks, Nvfp4NegativeZeroToPlusZeroOtherwiseRne) {
  // amax 6: S = fl32(2688/6) = 448, decode fl32(1/448); block fl32(6 · fl32(448 · fl32(1/6))) = 448 → 0x7e;
  // encode 1/fl32(448 · fl32(1/448)) = 1 (448 · fl32(1/448) rounds to 1); y = x. cast_to_fp4x2
  // (reference_nvfp4.py:53-69): −0 → 0 (:53), −0.001 → 8 (:62: >= −0.25 and < −0.0), 0.25 → 0 (:53),
  // −0.25 → 8, 0.75 → 2 (:55), 2.5 → 4 (:57), 5 → 6 (:59), −6 → 15 (:69: < −5.0), 6 → 7.
  const std::vector<float> x = {-0.0f, 6.0f, -0.001f, -6.0f, 0.25f, -0.25f, 0.75f, 2.5f,
                                5.0f,  1.0f, 1.0f,    1.0f,  1.0f,  1.0f,   1.0f,  1.0f};
  const QuantizedTensor q = run(x, {1, 16}, "nvfp4", MxQuirks::te_2);
  EXPECT_EQ(q.scale_codes.at(0), 0x7e);
  const std::vector<std::uint8_t> want = {0x0, 0x7, 0x8, 0xf, 0x0, 0x8, 0x2, 0x4,
                                          0x6, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2};
  EXPECT_EQ(q.codes, want);
  const QuantizedTensor d = run(x, {1, 16}, "nvfp4", MxQuirks::none);
  EXPECT_EQ(d.codes[0], 0x8);  // the default keeps −0's sign
  for (std::size_t i = 1; i < 16; ++i) EXPECT_EQ(d.codes[i], want[i]) << i;
}

TEST(Te2Quirks, RefusedWhereItDoesNotApply) {
  QuantOptions o;
  o.mx_quirks = MxQuirks::te_2;
  for (const char* s : {"mxfp8_e4m3", "mxfp4", "fp8_1x128_ue8m0", "nvfp4_ue5m3", "e2m1fn/1x32/ue4m3:nvfp4"}) {
    const auto issue = check_options(parse_scheme(s), o);
    ASSERT_TRUE(issue.has_value()) << s;
    EXPECT_EQ(issue->option, "mx-quirks");
    EXPECT_NE(issue->why.find("te_2 applies to FP32 current scaling"), std::string::npos) << issue->why;
  }
  EXPECT_FALSE(check_options(find_scheme("fp8_1x128"), o).has_value());
  EXPECT_FALSE(check_options(find_scheme("nvfp4_16x16"), o).has_value());
  EXPECT_FALSE(check_options(parse_scheme("e4m3fn/1x128/f32:fp32_amax/amax-epsilon=0.0001"), o).has_value());
  const auto pol = check_options(parse_scheme("e4m3fn/1x128/f32:fp32_amax/zero-block=unit_scale"), o);
  ASSERT_TRUE(pol.has_value());
  EXPECT_NE(pol->why.find("default block policy"), std::string::npos) << pol->why;
  const std::vector<float> x(32, 1.0f);
  EXPECT_THROW(quantize(std::span<const float>(x), {1, 32}, find_scheme("mxfp8_e4m3"), o), Error);
}

// TE's value_for_inf for a bf16 input (issue 25 item 6): fp8_max / amax overflowing to +Inf becomes
// torch.finfo(x_dtype).max (TE d0067d0 tests/pytorch/references/quantize_scale_calc.py:35; the CUDA kernels'
// value_for_inf = TypeInfo<IType>::max_finite_value, transformer_engine/common/recipe/recipe_common.cuh:67).
// By hand: amax = bf16 0x0001 = 2^-133, 448 / 2^-133 = 448 * 2^133 > FLT_MAX -> +Inf. A bf16 input clamps it to
// bf16's max 0x7f7f0000 = 2^127 * 255/128, so scale_inv = fl32(2^-128 * 256/255); in units of 2^-149 that is
// 2^21 * 256/255 = 2105376.125.. -> 2105376 = 0x202020: bits 0x00202020. The same value given as f32 clamps to
// FLT_MAX: fl32(1/FLT_MAX) = 2^-128 (0x00200000). The element x * scale: 2^-133 * 0x7f7f0000 = 2^-6 * 255/128
// -> e4m3fn 2^-5 (0x10), and 2^-133 * FLT_MAX = 2^-5 - 2^-29 -> 0x10. fp32_pow2 takes frexp's 2^127 from
// either (scale_inv 2^-127, 0x00400000). The default path (no quirks) does not read the source type.
TEST(Te2Quirks, Bf16InputClampsTheEncodeScaleToBf16Max) {
  std::vector<std::uint16_t> b(128, 0);
  b[0] = 0x0001;
  std::vector<float> f(128, 0.0f);
  f[0] = std::bit_cast<float>(std::uint32_t{0x00010000});
  QuantOptions o;
  o.mx_quirks = MxQuirks::te_2;
  const QuantizedTensor qb = quantize(ArrayIn::bf16(b), {1, 128}, find_scheme("fp8_1x128"), o);
  const QuantizedTensor qf = quantize(std::span<const float>(f), {1, 128}, find_scheme("fp8_1x128"), o);
  ASSERT_EQ(qb.scales.size(), 1u);
  EXPECT_EQ(bits(qb.scales[0]), 0x00202020u);
  EXPECT_EQ(bits(qf.scales[0]), 0x00200000u);
  EXPECT_EQ(qb.codes[0], 0x10u);
  EXPECT_EQ(qf.codes[0], 0x10u);
  const Scheme pow2 = parse_scheme("e4m3fn/1x128/f32:fp32_pow2");
  const QuantizedTensor pb = quantize(ArrayIn::bf16(b), {1, 128}, pow2, o);
  EXPECT_EQ(bits(pb.scales[0]), 0x00400000u);
  EXPECT_EQ(bits(quantize(std::span<const float>(f), {1, 128}, pow2, o).scales[0]), 0x00400000u);
  QuantOptions d;  // no quirks: bf16 and f32 inputs of the same values give the same scale
  EXPECT_EQ(bits(quantize(ArrayIn::bf16(b), {1, 128}, find_scheme("fp8_1x128"), d).scales[0]),
            bits(quantize(std::span<const float>(f), {1, 128}, find_scheme("fp8_1x128"), d).scales[0]));
}

}  // namespace
}  // namespace minifloat
