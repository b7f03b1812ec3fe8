// SPDX-License-Identifier: Apache-2.0
// block_test.cpp: worked examples and traps of block scaling (spec-digest §2.3, §4.3, §7, §11
// T9 T10 T14 T15 T18 T20, D7 D8 D10 D17), expected values copied from the digest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/core/block_scale.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/delayed_scaling.hpp"
#include "minifloat/error_stats.hpp"
#include "minifloat/mx_dot.hpp"
#include "minifloat/quant.hpp"

namespace minifloat_test {
using namespace minifloat;

namespace {
std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
// One 32-element MX block whose first element is `amax` and the rest small.
std::vector<float> block_with_amax(float amax, std::size_t n = 32) {
  std::vector<float> v(n, 0.25f);
  v[0] = amax;
  return v;
}
QuantizedTensor q1(const std::vector<float>& x, const Scheme& scheme, QuantOptions opt = {}) {
  return quantize(x, {x.size()}, scheme, opt);
}
QuantizedTensor q1(const std::vector<float>& x, const char* scheme, QuantOptions opt = {}) {
  return q1(x, find_scheme(scheme), opt);
}
/// A named scheme with another rule or policy (a new scheme: schemes are data).
Scheme with_rule(const char* name, ScaleRule r) {
  Scheme s = find_scheme(name);
  s.rule = r;
  return s;
}
}  // namespace

// Must show: an MXFP4 block whose amax is 6.0 gets scale 0x7f and element 0x7 for 6.0 (ocp_floor).
TEST(MxBlock, Mxfp4Amax6OcpFloor) {
  const auto q = q1(block_with_amax(6.0f), "mxfp4");
  EXPECT_EQ(q.scale_codes.at(0), 0x7f);
  EXPECT_EQ(q.codes.at(0), 0x7);
  EXPECT_EQ(dequantize(q).at(0), 6.0);
}

// T14 / §2.3 table: (element, amax) → (X code, element code, dequant) per rule.
struct T14Row {
  const char* scheme;
  float amax;
  ScaleRule rule;
  std::uint8_t x, elem;
  double deq;
};
void PrintTo(const T14Row& r, std::ostream* os) {
  *os << r.scheme << " amax " << r.amax << " " << scale_rule_name(r.rule);
}
class T14 : public ::testing::TestWithParam<T14Row> {};
TEST_P(T14, ScaleElementDequant) {
  const T14Row& r = GetParam();
  const auto q = q1(block_with_amax(r.amax), with_rule(r.scheme, r.rule));
  EXPECT_EQ(q.scale_codes.at(0), r.x) << scale_rule_name(r.rule) << " amax " << r.amax;
  EXPECT_EQ(q.codes.at(0), r.elem) << scale_rule_name(r.rule) << " amax " << r.amax;
  EXPECT_EQ(dequantize(q).at(0), r.deq) << scale_rule_name(r.rule) << " amax " << r.amax;
}
INSTANTIATE_TEST_SUITE_P(
    SpecDigestTable23, T14,
    ::testing::Values(
        T14Row{"mxfp8_e4m3", 460, ScaleRule::ocp_floor, 0x7f, 0x7e, 448}, T14Row{"mxfp8_e4m3", 460, ScaleRule::rceil, 0x80, 0x76, 448},
        T14Row{"mxfp8_e4m3", 460, ScaleRule::tosa, 0x7f, 0x7e, 448}, T14Row{"mxfp8_e4m3", 465, ScaleRule::ocp_floor, 0x7f, 0x7e, 448},
        T14Row{"mxfp8_e4m3", 465, ScaleRule::rceil, 0x80, 0x77, 480}, T14Row{"mxfp8_e4m3", 465, ScaleRule::tosa, 0x80, 0x77, 480},
        T14Row{"mxfp8_e4m3", 500, ScaleRule::ocp_floor, 0x7f, 0x7e, 448}, T14Row{"mxfp8_e4m3", 500, ScaleRule::rceil, 0x80, 0x78, 512},
        T14Row{"mxfp8_e4m3", 500, ScaleRule::tosa, 0x80, 0x78, 512}, T14Row{"mxfp4", 6.5f, ScaleRule::ocp_floor, 0x7f, 0x7, 6},
        T14Row{"mxfp4", 6.5f, ScaleRule::rceil, 0x80, 0x5, 6}, T14Row{"mxfp4", 6.5f, ScaleRule::tosa, 0x7f, 0x7, 6},
        T14Row{"mxfp4", 7.5f, ScaleRule::ocp_floor, 0x7f, 0x7, 6}, T14Row{"mxfp4", 7.5f, ScaleRule::rceil, 0x80, 0x6, 8},
        T14Row{"mxfp4", 7.5f, ScaleRule::tosa, 0x80, 0x6, 8}),
    // e.g. mxfp8_e4m3_amax460_ocp_floor, mxfp4_amax6p5_rceil (stable: no bytes of the row).
    [](const ::testing::TestParamInfo<T14Row>& i) {
      std::ostringstream amax;
      amax << i.param.amax;
      std::string a = amax.str();
      std::replace(a.begin(), a.end(), '.', 'p');
      return std::string(i.param.scheme) + "_amax" + a + "_" + std::string(scale_rule_name(i.param.rule));
    });

// T14 saturation bookkeeping: under ocp_floor 7.5 saturates (E2M1 7.5 rounds to 8 > 6), 6.5 does not.
TEST(MxBlock, T14SaturationCounted) {
  EXPECT_EQ(q1(block_with_amax(7.5f), "mxfp4").saturated, 1u);
  EXPECT_EQ(q1(block_with_amax(6.5f), "mxfp4").saturated, 0u);
  EXPECT_EQ(q1(block_with_amax(7.5f), with_rule("mxfp4", ScaleRule::rceil)).saturated, 0u);
}

// torchao CEIL and EVEN (§2.3): CEIL adds 1 when amax's FP32 mantissa is nonzero; EVEN rounds the
// mantissa to element precision first. E2M1 (m = 1): amax 7.5 = 1.875·2^2 → EVEN rounds to 2^3 → e = 1;
// amax 6.5 = 1.625·2^2 → EVEN 1.5·2^2 → e = 0; amax 4.0 → CEIL e = 0, 4.5 → CEIL e = 1.
TEST(MxBlock, TorchaoCeilEven) {
  EXPECT_EQ(e8m0_exponent(ScaleRule::even, 7.5f, elements::e2m1fn), 1);
  EXPECT_EQ(e8m0_exponent(ScaleRule::even, 6.5f, elements::e2m1fn), 0);
  EXPECT_EQ(e8m0_exponent(ScaleRule::ceil, 4.0f, elements::e2m1fn), 0);
  EXPECT_EQ(e8m0_exponent(ScaleRule::ceil, 4.5f, elements::e2m1fn), 1);
  EXPECT_EQ(e8m0_exponent(ScaleRule::ocp_floor, 4.5f, elements::e2m1fn), 0);
}

// T9 / D7: an all-zero block gets the E8M0 scale 0x00 (2^−127) by default; unit_scale and nan on request.
TEST(MxBlock, T9ZeroBlock) {
  const std::vector<float> z(32, 0.0f);
  auto q = q1(z, "mxfp8_e4m3");
  EXPECT_EQ(q.scale_codes.at(0), 0x00);
  for (auto c : q.codes) EXPECT_EQ(c, 0x00);
  Scheme o = find_scheme("mxfp8_e4m3");
  o.policy.zero = ZeroBlock::unit_scale;
  EXPECT_EQ(q1(z, o).scale_codes.at(0), 0x7f);
  o.policy.zero = ZeroBlock::nan;
  q = q1(z, o);
  EXPECT_EQ(q.scale_codes.at(0), 0xff);
  EXPECT_TRUE(std::isnan(dequantize(q).at(3)));
}

// T10: three "round to a power of two" rules for E8M0 (core conversion, the scale format).
TEST(E8m0, T10RoundingRules) {
  const Format e8 = formats::e8m0fnu;
  EXPECT_EQ(from_float(3.0f, e8, {Rounding::rtz}).code, 0x80u);
  EXPECT_EQ(from_float(3.0f, e8, {Rounding::rtp}).code, 0x81u);
  EXPECT_EQ(from_float(3.0f, e8, {Rounding::rne}, profiles::ml_dtypes).code, 0x81u);
  EXPECT_EQ(from_float(1.5f, e8, {Rounding::rtz}).code, 0x7fu);
  EXPECT_EQ(from_float(1.5f, e8, {Rounding::rtp}).code, 0x80u);
  EXPECT_EQ(from_float(1.5f, e8, {Rounding::rne}, profiles::ml_dtypes).code, 0x80u);
  EXPECT_EQ(from_float(-4.0f, e8, {Rounding::rtz}, profiles::nvidia).code, 0x81u);
  EXPECT_EQ(from_float(-4.0f, e8, {Rounding::rne}, profiles::ml_dtypes).code, 0xffu);
}

// T15 / D17: E8M0 0x00 decodes to the FP32 subnormal 2^−127 (0x00400000); an FTZ consumer reads 0
// and the whole block dequantizes to 0.
TEST(E8m0, T15ScaleFtz) {
  EXPECT_EQ(bits_of(to_float(formats::e8m0fnu, 0x00)), 0x00400000u);
  std::vector<float> x(32, 0.0f);
  x[0] = 1e-38f;  // tiny: ocp_floor gives e = floor(log2 1e-38) − 8 → clamps to −127
  const auto q = q1(x, "mxfp8_e4m3");
  ASSERT_EQ(q.scale_codes.at(0), 0x00);
  EXPECT_NE(dequantize(q, ScaleFtz::no).at(0), 0.0);
  EXPECT_EQ(dequantize(q, ScaleFtz::yes).at(0), 0.0);
}

// T18 / D8: a NaN in an MXFP8 block. Default (MX): scale 0xff, whole block NaN. TE (element_only,
// rceil, nvidia profile): the scale comes from the other elements (amax 1.0 → 0x77), NaN → 0x7f.
TEST(MxBlock, T18NanInBlock) {
  std::vector<float> x(32, 1.0f);
  x[5] = std::numeric_limits<float>::quiet_NaN();
  auto q = q1(x, "mxfp8_e4m3");
  EXPECT_EQ(q.scale_codes.at(0), 0xff);
  for (double d : dequantize(q)) EXPECT_TRUE(std::isnan(d));
  Scheme sc = with_rule("mxfp8_e4m3", ScaleRule::rceil);
  sc.policy.nan = NanInBlock::element_only;
  QuantOptions o;
  o.profile = profiles::nvidia;
  q = q1(x, sc, o);
  EXPECT_EQ(q.scale_codes.at(0), 0x77);
  EXPECT_EQ(q.codes.at(5), 0x7f);
  const auto d = dequantize(q);
  EXPECT_EQ(d.at(0), 1.0);
  EXPECT_TRUE(std::isnan(d.at(5)));
}

// Inf in a block: nan_scale (default) vs max_scale (0xfe, TE satfinite).
TEST(MxBlock, InfInBlock) {
  std::vector<float> x(32, 1.0f);
  x[0] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(q1(x, "mxfp8_e4m3").scale_codes.at(0), 0xff);
  Scheme o = find_scheme("mxfp8_e4m3");
  o.policy.inf = InfInBlock::max_scale;
  const auto q = q1(x, o);
  EXPECT_EQ(q.scale_codes.at(0), 0xfe);
  EXPECT_EQ(q.codes.at(0), 0x7e);  // Inf saturates to 448
}

// Subnormal amax: kept by default; flush_block zeroes the block (mx-emu mx_flush_fp32_subnorms).
TEST(MxBlock, SubnormalAmax) {
  std::vector<float> x(32, 0.0f);
  x[1] = 1e-39f;  // FP32 subnormal
  Scheme o = find_scheme("mxfp8_e4m3");
  o.policy.subnormal = SubnormalAmax::flush_block;
  const auto q = q1(x, o);
  EXPECT_EQ(q.codes.at(1), 0x00);
  EXPECT_EQ(q.flushed, 1u);
  EXPECT_EQ(q.scale_codes.at(0), 0x00);
}

// D10: MXINT8 minimum. amax 1.999 → ocp_floor e = 0; −1.999·64 = −127.94 rounds to −128 (0x80, −2)
// under two's complement; mx-emu's symmetric clamp gives −127 (0x81).
TEST(MxInt8, D10Minimum) {
  std::vector<float> x(32, 0.5f);
  x[0] = -1.999f;
  auto q = q1(x, "mxint8");
  EXPECT_EQ(q.scale_codes.at(0), 0x7f);
  EXPECT_EQ(q.codes.at(0), 0x80);
  EXPECT_EQ(dequantize(q).at(0), -2.0);
  EXPECT_EQ(q.codes.at(1), 0x20);  // 0.5 · 64 = 32
  Scheme o = find_scheme("mxint8");
  o.policy.mxint8_min = Mxint8Min::symmetric;
  q = q1(x, o);
  EXPECT_EQ(q.codes.at(0), 0x81);
  EXPECT_EQ(q.saturated, 1u);
}

// §4.3 NVFP4 worked example: amax 10 in one block: S_enc = 268.8 (0x43866666), block scale 448
// exactly (e4m3 0x7e), 10 · encode = 5.9999995 → E2M1 0x7.
TEST(Nvfp4, SpecDigestAmax10) {
  EXPECT_EQ(bits_of(nvfp4_global_encode_scale(10.0f)), 0x43866666u);
  std::vector<float> x(16, 1.0f);
  x[0] = 10.0f;
  const auto q = q1(x, "nvfp4");
  EXPECT_EQ(bits_of(q.tensor_encode_scale), 0x43866666u);
  EXPECT_EQ(q.scale_codes.at(0), 0x7e);
  EXPECT_EQ(q.codes.at(0), 0x7);
  // E2M1 RNE ties (§4.3): 0.25→0, 0.75→1, 1.25→1, 1.75→2, 2.5→2, 3.5→4, 5→4 (codes 0,1,2,4,4,6,6... by value)
  const float ties[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  const std::uint8_t want[] = {0x0, 0x2, 0x2, 0x4, 0x4, 0x6, 0x6};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(quantize_element(elements::e2m1fn, ties[i], 0).code, want[i]) << ties[i];
  // global amax 0 → S_enc = 1; zero blocks give zero codes
  EXPECT_EQ(nvfp4_global_encode_scale(0.0f), 1.0f);
  EXPECT_EQ(nvfp4_global_encode_scale(std::numeric_limits<float>::infinity()), 1.0f);
}

// §7.2 TE current scaling: amax 2 → scale = 448/2 = 224, x = 1 → 224 = e4m3 0x76; decode 1/224.
// Zero tensor → scale 1 (D7 standard for FP32 rules).
TEST(Fp8Recipes, TeCurrentScaling) {
  std::vector<float> x = {1.0f, -2.0f, 0.5f, 0.0f};
  auto q = quantize(x, {2, 2}, find_scheme("fp8_tensor"));
  ASSERT_EQ(q.scales.size(), 1u);
  EXPECT_EQ(q.scales[0], 1.0f / 224.0f);
  EXPECT_EQ(q.codes[0], 0x76);
  EXPECT_EQ(q.codes[1], 0xfe);  // −448
  q = quantize(std::vector<float>(4, 0.0f), {4}, find_scheme("fp8_tensor"));
  EXPECT_EQ(q.scales[0], 1.0f);
}

// T20: an all-zero 1×128 activation tile. Old DeepSeek kernel (s = 0, y = 0/0): NaN codes 0x7f;
// current kernel (amax clamped to 1e−4, s = amax/448 by division): codes 0x00.
TEST(Fp8Recipes, T20ZeroTile) {
  const std::vector<float> z(128, 0.0f);
  Scheme o = find_scheme("fp8_1x128");
  o.policy.fp32_order = Fp32ScaleOrder::divide;
  o.policy.zero = ZeroBlock::nan;
  auto q = quantize(z, {1, 128}, o);
  for (auto c : q.codes) EXPECT_EQ(c, 0x7f);
  o.policy.zero = ZeroBlock::standard;
  o.policy.amax_epsilon = 1e-4f;
  q = quantize(z, {1, 128}, o);
  for (auto c : q.codes) EXPECT_EQ(c, 0x00);
  EXPECT_EQ(q.scales.at(0), 1e-4f / 448.0f);
}

// UE8M0 round-up (InfiR2 / DeepSeek-V3.1): amax 448 → scale 2^0; amax 449 → 2^1; the 128×128 tile
// covers rows and columns.
TEST(Fp8Recipes, Ue8m0RoundUp128x128) {
  std::vector<float> x(256 * 128, 1.0f);
  x[0] = 449.0f;           // tile (0, 0)
  x[128 * 128] = 448.0f;   // row 128 → tile (1, 0)
  const auto q = quantize(x, {256, 128}, find_scheme("fp8_128x128_ue8m0"));
  ASSERT_EQ(q.scale_codes.size(), 2u);
  EXPECT_EQ(q.scale_codes[0], 0x80);
  EXPECT_EQ(q.scale_codes[1], 0x7f);
  EXPECT_EQ(q.saturated, 0u);
}

// Per-row vs per-channel tiling, and blocks along the first axis.
TEST(Fp8Recipes, RowAndChannelTiles) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};  // [2, 3]
  auto r = quantize(x, {2, 3}, find_scheme("fp8_row"));
  EXPECT_EQ(r.scales.size(), 2u);
  EXPECT_EQ(r.scales[0], 1.0f / (448.0f / 3.0f));
  auto c = quantize(x, {2, 3}, find_scheme("fp8_channel"));
  EXPECT_EQ(c.scales.size(), 3u);
  EXPECT_EQ(c.scales[2], 1.0f / (448.0f / 6.0f));
  QuantOptions o;
  o.axis = BlockAxis::first;
  auto t = quantize(x, {2, 3}, find_scheme("fp8_row"), o);  // rows of the transposed view = columns
  EXPECT_EQ(t.scales.size(), 3u);
  const auto d = dequantize(t);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(d[i], x[i], x[i] / 16.0);
}

// TE DelayedScaling: quantize with the previous scale, record amax; update rolls the history.
TEST(Fp8Recipes, DelayedScalingHistory) {
  DelayedScaling ds({formats::e4m3fn, 3, DelayedScaling::AmaxAlgo::max, 0.0f});
  std::vector<float> a = {2.0f, -1.0f}, b = {4.0f, 0.0f};
  auto q = ds.quantize(a, {2});
  EXPECT_EQ(q.codes[0], 0x40);  // scale 1: 2.0 → e4m3 0x40
  ds.update();
  EXPECT_EQ(ds.scale(), 224.0f);  // 448 / 2
  EXPECT_EQ(ds.history()[2], 2.0f);
  EXPECT_EQ(ds.history()[0], 0.0f);
  ds.quantize(b, {2});
  ds.update();
  EXPECT_EQ(ds.scale(), 112.0f);  // max(2, 4)
  ds.quantize(std::vector<float>{1.0f}, {1});
  ds.update();  // history [1, 2, 4] → amax 4; rolls to [0, 4, 1]
  EXPECT_EQ(ds.scale(), 112.0f);
  ds.update();  // [0, 4, 1] → amax 4; rolls to [0, 1, 0]
  EXPECT_EQ(ds.scale(), 112.0f);
  ds.update();  // [0, 1, 0] → amax 1
  EXPECT_EQ(ds.scale(), 448.0f);
  ds.update();  // all zero: amax 0 → keep the previous scale
  EXPECT_EQ(ds.scale(), 448.0f);
  EXPECT_EQ(ds.scale_inv(), 1.0f / 448.0f);
}

// MX dot product (§2.2): exact block sums, one FP32 rounding per block, FP32 accumulation in block order.
TEST(MxDot, ExactBlocksThenFp32Sum) {
  // A: 64 elements of 1.0; B: block 0 = 2^20 (scale 2^12 · e4m3 256), block 1 = 2^−10.
  std::vector<float> a(64, 1.0f), b(64);
  for (int i = 0; i < 32; ++i) b[i] = 1048576.0f;       // 2^20: block sum 32·2^20 = 2^25
  for (int i = 32; i < 64; ++i) b[i] = 0.0009765625f;   // 2^−10: block sum 2^−5
  const auto qa = quantize(a, {1, 64}, find_scheme("mxfp8_e4m3"));
  const auto qb = quantize(b, {1, 64}, find_scheme("mxfp8_e4m3"));
  // 2^25 + 2^−5 is not an FP32: the FP32 sum is 2^25.
  EXPECT_EQ(mx_dot(qa, 0, qb, 0), 33554432.0f);
  const auto c = mx_gemm(qa, qb);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], 33554432.0f);
  // Inside a block the sum is exact: 31 · 1 + 1 · 2^−9 ... rounded once.
  std::vector<float> d(32, 1.0f);
  d[31] = 1.0f + 1.0f / 8.0f;  // e4m3 1.125
  const auto qd = quantize(d, {1, 32}, find_scheme("mxfp8_e4m3"));
  EXPECT_EQ(mx_dot(qd, 0, qd, 0), 31.0f + 1.265625f);
}

// Element rounding takes any engine mode: SR lands on one of the two RNE neighbours' brackets
// (RD or RU of x/X), is reproducible for a seed, and differs between seeds somewhere.
TEST(MxBlock, StochasticElementRounding) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = 1.0f + static_cast<float>(i) / 97.0f;
  QuantOptions o;
  o.rounding = {Rounding::sr, Overflow::satfinite};
  o.sr_seed = 42;
  const auto a = q1(x, "mxfp4", o), b = q1(x, "mxfp4", o);
  EXPECT_EQ(a.codes, b.codes);
  o.sr_seed = 43;
  const auto c = q1(x, "mxfp4", o);
  EXPECT_NE(a.codes, c.codes);
  QuantOptions dn, up;
  dn.rounding = {Rounding::rtz, Overflow::satfinite};
  up.rounding = {Rounding::rtp, Overflow::satfinite};
  const auto lo = q1(x, "mxfp4", dn), hi = q1(x, "mxfp4", up);
  for (int i = 0; i < 32; ++i) EXPECT_TRUE(a.codes[i] == lo.codes[i] || a.codes[i] == hi.codes[i]) << i;
}

TEST(Schemes, NamesAndRules) {
  for (const auto& s : scheme_table().entries) EXPECT_EQ(&find_scheme(s.name), &s.value);
  EXPECT_THROW(find_scheme("mxfp5"), NameError);
  for (auto n : names<ScaleRule>()) EXPECT_EQ(scale_rule_name(parse_scale_rule(n)), n);
  EXPECT_THROW(parse_scale_rule("round_up"), NameError);
  EXPECT_THROW(q1(std::vector<float>(32, 1.0f), with_rule("mxint8", ScaleRule::nvfp4)), Error);  // nvfp4 needs a float element
  EXPECT_THROW(quantize(std::vector<float>(3, 1.0f), {2, 2}, find_scheme("mxfp4")), Error);
}

}  // namespace minifloat_test

namespace {
// A NaN in an MX block makes the whole block NaN (D8 default): its finite inputs are lost, so the
// error statistics must not call the quantization perfect (found by a new-user test of `report`).
TEST(ErrorStats, FiniteInputsLostToNanMakeSqnrMinusInfinity) {
  using namespace minifloat;
  std::vector<float> x(64, 1.0f);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  const QuantizedTensor q = quantize(x, {2, 32}, find_scheme("mxfp8_e4m3"));
  const ErrorStats s = error_stats(x, q, dequantize(q));
  EXPECT_EQ(s.nonfinite_out, 31u);  // the other 31 elements of the NaN block
  EXPECT_EQ(s.sqnr_db(), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isinf(s.max_abs_err));
  std::vector<float> y(64, 1.0f);  // no NaN: finite and exact (1.0 is representable)
  const QuantizedTensor r = quantize(y, {2, 32}, find_scheme("mxfp8_e4m3"));
  EXPECT_EQ(error_stats(y, r, dequantize(r)).nonfinite_out, 0u);
}

// InfInBlock::max_scale with an FP32 rule: the scale of a block holding ±Inf clamps to the largest, so under
// fp32-order=divide (decode = amax / max) it is FLT_MAX, not Inf: Inf elements stay Inf for the overflow policy
// (satfinite: ±448) and finite ones flush. It used to be Inf, and y = Inf/Inf gave a NaN code whose sign
// the FPU picked (0xff from a float32 source, 0x7f from a float64 one: found by a new-user test). The
// whole class: every FP32-scaled scheme × both orders × float32/float64 sources × the fast and engine
// paths give no NaN code for an Inf block under max_scale, and the same bytes from either source.
TEST(InfBlock, MaxScaleUnderEveryFp32OrderGivesNoNanAndTheSameCodesFromEverySource) {
  using namespace minifloat;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(4 * 256);
  std::mt19937 rng(3);
  for (auto& v : x) v = std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng);
  x[0] = inf;
  x[1] = -inf;
  x[300] = -inf;  // another row and tile
  const std::vector<double> xd(x.begin(), x.end());
  for (const char* name : {"fp8_tensor", "fp8_row", "fp8_channel", "fp8_1x128"})
    for (const Fp32ScaleOrder order : {Fp32ScaleOrder::te_multiply, Fp32ScaleOrder::divide})
      for (const ArrayPath path : {ArrayPath::simd, ArrayPath::engine}) {
        Scheme sc = find_scheme(name);
        sc.policy.inf = InfInBlock::max_scale;
        sc.policy.fp32_order = order;
        const std::string what = std::string(name) + (order == Fp32ScaleOrder::divide ? " divide" : " te_multiply") +
                                 (path == ArrayPath::simd ? " simd" : " engine");
        std::vector<std::uint8_t> c32(x.size()), c64(x.size());
        BlockQuantizer b32({4, 256}, sc, {}, path), b64({4, 256}, sc, {}, path);
        const QuantPlan plan = b32.plan(x.size());
        const QuantPiece p = plan.piece(0);
        if (plan.first_pass) {
          b32.observe(p, std::span<const float>(x));
          b64.observe(p, std::span<const double>(xd));
        }
        b32.quantize(p, std::span<const float>(x), c32);
        b64.quantize(p, std::span<const double>(xd), c64);
        EXPECT_EQ(c32, c64) << what;
        for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NE(c32[i] & 0x7f, 0x7f) << what << " element " << i << ": a NaN code";
        EXPECT_EQ(c32[0], 0x7e) << what << ": +Inf saturates (satfinite)";
        EXPECT_EQ(c32[1], 0xfe) << what;
        for (const float d : b32.result().scales) EXPECT_TRUE(std::isfinite(d) && d > 0) << what << ": decode scale " << d;
      }
  // the values themselves under divide: the Inf tile's decode scale is FLT_MAX, its finite elements flush
  Scheme sc = find_scheme("fp8_tensor");
  sc.policy.inf = InfInBlock::max_scale;
  sc.policy.fp32_order = Fp32ScaleOrder::divide;
  const std::vector<float> v = {inf, -inf, 1.0f, 2.0f};
  const QuantizedTensor q = quantize(v, {1, 4}, sc);
  EXPECT_EQ(q.scales, std::vector<float>{std::numeric_limits<float>::max()});
  EXPECT_EQ(q.codes, (std::vector<std::uint8_t>{0x7e, 0xfe, 0x00, 0x00}));
  EXPECT_EQ(q.flushed, 2u);
}

// scale_min / scale_max are the least and largest positive finite block_scale_value over the tiles (the
// definition, written here as a loop over every tile), under scale rules whose value is a function of an
// 8-bit code (E8M0, NVFP4: error_stats decodes each code met once) and FP32 scales; blocks spanning 2^-40
// to 2^40, one block at 2^45 (tile 0: the largest scale, met once), zero blocks (scale value 0 under MX)
// and an Inf block (NaN scale under NVFP4) included.
TEST(ErrorStats, ScaleRangeIsTheRangeOverTiles) {
  using namespace minifloat;
  std::mt19937 rng(5);
  std::vector<float> x(64 * 64);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = std::ldexp(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng), static_cast<int>((i / 32) % 81) - 40);
  for (std::size_t i = 0; i < 32; ++i) x[i] = std::ldexp(x[i], 85);  // tile 0 alone holds the largest scale
  for (std::size_t i = 64; i < 128; ++i) x[i] = 0.0f;
  x[1000] = std::numeric_limits<float>::infinity();
  for (const char* scheme : {"mxfp8_e4m3", "mxfp4", "nvfp4", "fp8_1x128", "fp8_channel"}) {
    const QuantizedTensor q = quantize(x, {64, 64}, find_scheme(scheme));
    double lo = 0, hi = 0;
    bool any = false;
    // each tile's decode scale from the formats' definitions, not block_scale_value (which error_stats shares):
    // E8M0 2^(code − 127) (0xff NaN), NVFP4 the e4m3fn value × the tensor decode scale, FP32 the stored scale
    auto value = [&](std::size_t t) {
      if (q.rule == ScaleRule::nvfp4)
        return to_double(formats::e4m3fn, q.scale_codes.at(t)) * static_cast<double>(q.tensor_decode_scale);
      if (!q.scale_codes.empty())
        return q.scale_codes.at(t) == 0xff ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, q.scale_codes.at(t) - 127);
      return static_cast<double>(q.scales.at(t));
    };
    for (std::size_t t = 0; t < q.scale_rows * q.scale_cols; ++t) {
      const double v = value(t);
      if (!(v > 0) || !std::isfinite(v)) continue;
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      any = true;
    }
    ASSERT_TRUE(any) << scheme;
    const ErrorStats s = error_stats(x, q, dequantize(q));
    EXPECT_EQ(s.scale_min, lo) << scheme;
    EXPECT_EQ(s.scale_max, hi) << scheme;
    EXPECT_LT(lo * 4, hi) << scheme << ": the blocks have several scales";
  }
}
}  // namespace

namespace minifloat_test {
using namespace minifloat;

// Issue 9 item 2: one rounding from every source. 1.0625 + 2^−40 lies just above the e4m3fn
// midpoint of 1 (0x38) and 1.125 (0x39); rounded to f32 first it is the midpoint itself and ties
// to even (0x38). The element step takes the exact value.
TEST(F64Source, ElementRoundsOnceFromTheDouble) {
  const double x = 1.0625 + std::ldexp(1.0, -40);
  EXPECT_EQ(quantize_element(elements::e4m3fn, x, 0).code, 0x39);
  EXPECT_EQ(quantize_element(elements::e4m3fn, static_cast<double>(static_cast<float>(x)), 0).code, 0x38);
  // scaled: the same trap at 2^5 with scale exponent 5
  EXPECT_EQ(quantize_element(elements::e4m3fn, std::ldexp(x, 5), 5).code, 0x39);
  // MXFP8 block [256, 1.0625 + 2^−40]: amax 256 → ocp_floor e = 8 − 8 = 0 (0x7f); element 0x39
  const std::vector<double> b = {256.0, x};
  const QuantizedTensor q = quantize(std::span<const double>(b), {2}, find_scheme("mxfp8_e4m3"));
  EXPECT_EQ(q.scale_codes.at(0), 0x7f);
  EXPECT_EQ(q.codes.at(1), 0x39);
  QuantOptions via;  // the explicit f32-first path of ml_dtypes / PyTorch
  via.profile.source_via_f32 = true;
  EXPECT_EQ(quantize(std::span<const double>(b), {2}, find_scheme("mxfp8_e4m3"), via).codes.at(1), 0x38);
  QuantOptions ml;
  ml.profile = profiles::ml_dtypes;  // its profile asks for it (source_via_f32, D11)
  EXPECT_EQ(quantize(std::span<const double>(b), {2}, find_scheme("mxfp8_e4m3"), ml).codes.at(1), 0x38);
}

// The exact amax: an f64 amax just above 448·2^k is not rounded down to it (rceil then needs the
// next power of two), and one below an E8M0 boundary is not rounded up.
TEST(F64Source, AmaxIsExact) {
  const double a = 448.0 * (1 + std::ldexp(1.0, -40));  // rounds to 448 in f32
  EXPECT_EQ(e8m0_exponent(ScaleRule::rceil, detail::exact_f64(a), elements::e4m3fn), 1);
  EXPECT_EQ(e8m0_exponent(ScaleRule::rceil, static_cast<float>(a), elements::e4m3fn), 0);
  const double b = 512.0 * (1 - std::ldexp(1.0, -40));  // rounds to 512 in f32
  EXPECT_EQ(e8m0_exponent(ScaleRule::ocp_floor, detail::exact_f64(b), elements::e4m3fn), 0);
  EXPECT_EQ(e8m0_exponent(ScaleRule::ocp_floor, static_cast<float>(b), elements::e4m3fn), 1);
  // ceil: an amax a hair above a power of two gets the +1 that its f32 rounding would lose
  const double c = 4.0 * (1 + std::ldexp(1.0, -40));
  EXPECT_EQ(e8m0_exponent(ScaleRule::ceil, detail::exact_f64(c), elements::e2m1fn), 1);
  EXPECT_EQ(e8m0_exponent(ScaleRule::ceil, static_cast<float>(c), elements::e2m1fn), 0);
  // FP32 rule: encode = fl32(448 / amax) from the exact amax
  const double d = 3.0 * (1 + std::ldexp(1.0, -30));
  const Fp32Scale sd = fp32_scale(detail::exact_f64(d), 448.0f, ScaleRule::fp32_amax, 0.0f, Fp32ScaleOrder::te_multiply);
  const Fp32Scale sf = fp32_scale(3.0f, 448.0f, ScaleRule::fp32_amax, 0.0f, Fp32ScaleOrder::te_multiply);
  EXPECT_EQ(sd.encode, 149.33333f);  // 448/3·(1 − 2^−30) still rounds to fl32(448/3)
  EXPECT_EQ(sf.encode, 149.33333f);
}

// The exact forms of the binary32 formulas agree with the float forms on every binary32 value:
// an f64 array holding f32 values quantizes exactly as the f32 array does, for every named scheme,
// both axes, every FP32 order that applies, and the special-block policies.
TEST(F64Source, F32ValuesInF64GiveTheF32Result) {
  std::mt19937 g(7);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> xf(48 * 40);
  for (std::size_t i = 0; i < xf.size(); ++i) xf[i] = nd(g) * std::ldexp(1.0f, static_cast<int>(i % 61) - 30);
  xf[5] = std::numeric_limits<float>::quiet_NaN();
  xf[77] = std::numeric_limits<float>::infinity();
  for (std::size_t i = 160; i < 200; ++i) xf[i] = 0.0f;
  for (std::size_t i = 200; i < 240; ++i) xf[i] = 1e-40f * static_cast<float>(i - 210);
  const std::vector<double> xd(xf.begin(), xf.end());
  for (const auto& e : scheme_table().entries)
    for (int variant = 0; variant < 6; ++variant) {
      Scheme s = e.value;
      QuantOptions o;
      if (variant == 1) o.axis = BlockAxis::first;
      if (variant == 2) {
        s.policy.nan = NanInBlock::element_only;
        s.policy.inf = InfInBlock::max_scale;
      }
      if (variant == 3) {
        s.policy.subnormal = SubnormalAmax::flush_block;
        s.policy.amax_epsilon = 1e-3f;
      }
      if (variant == 4) {
        if (s.rule == ScaleRule::fp32_amax) s.policy.fp32_order = Fp32ScaleOrder::divide;
        else continue;
      }
      if (variant == 5) {
        if (is_e8m0_rule(s.rule) || is_ue5m3_rule(s.rule)) continue;  // UE5M3: auto-round's order only
        s.policy.fp32_order = Fp32ScaleOrder::exact;
      }
      SCOPED_TRACE(scheme_name(s) + (variant == 1 ? " axis first" : ""));
      const QuantizedTensor a = quantize(std::span<const float>(xf), {48, 40}, s, o);
      const QuantizedTensor b = quantize(std::span<const double>(xd), {48, 40}, s, o);
      EXPECT_EQ(a.codes, b.codes);
      EXPECT_EQ(a.scale_codes, b.scale_codes);
      ASSERT_EQ(a.scales.size(), b.scales.size());
      for (std::size_t t = 0; t < a.scales.size(); ++t) EXPECT_EQ(bits_of(a.scales[t]), bits_of(b.scales[t])) << t;
      EXPECT_EQ(bits_of(a.tensor_encode_scale), bits_of(b.tensor_encode_scale));
      EXPECT_EQ(a.saturated, b.saturated);
      EXPECT_EQ(a.flushed, b.flushed);
    }
}

// Issue 9 item 10: the scales' shape follows the input's (1-D in, 1-D scales; 0-d in, 0-d
// scales; empty extents stay empty).
TEST(Shapes, ScalesFollowTheInputShape) {
  using V = std::vector<std::size_t>;
  EXPECT_EQ(quantize(std::vector<float>(33, 1.0f), {33}, find_scheme("mxfp8_e4m3")).scale_shape, (V{2}));
  EXPECT_EQ(quantize(std::vector<float>(33, 1.0f), {33}, find_scheme("mxfp8_e4m3")).scale_codes.size(), 2u);
  EXPECT_EQ(quantize(std::vector<float>(33, 1.0f), {33}, find_scheme("fp8_tensor")).scale_shape, (V{1}));
  EXPECT_EQ(quantize(std::vector<float>(1, 1.0f), {}, find_scheme("mxfp4")).scale_shape, V{});
  EXPECT_EQ(quantize(std::vector<float>(1, 1.0f), {}, find_scheme("mxfp4")).codes.size(), 1u);
  EXPECT_EQ(quantize(std::vector<float>(4 * 5 * 64, 1.0f), {4, 5, 64}, find_scheme("mxfp4")).scale_shape, (V{4, 5, 2}));
  QuantOptions first;
  first.axis = BlockAxis::first;
  EXPECT_EQ(quantize(std::vector<float>(64 * 5, 1.0f), {64, 5}, find_scheme("mxfp4"), first).scale_shape, (V{2, 5}));
  EXPECT_EQ(quantize(std::vector<float>(300, 1.0f), {3, 100}, find_scheme("fp8_128x128")).scale_shape, (V{1, 1}));
  const QuantizedTensor e = quantize(std::vector<float>{}, {2, 0}, find_scheme("mxfp4"));
  EXPECT_EQ(e.scale_shape, (V{2, 0}));
  EXPECT_TRUE(e.codes.empty());
  EXPECT_TRUE(e.scale_codes.empty());
  EXPECT_EQ(quantize(std::vector<float>{}, {0, 5}, find_scheme("mxfp4")).scale_shape, (V{0, 1}));
  EXPECT_EQ(quantize(std::vector<float>{}, {2, 0}, find_scheme("fp8_tensor")).scale_shape, (V{1, 0}));
  EXPECT_TRUE(dequantize(e).empty());
}

}  // namespace minifloat_test
