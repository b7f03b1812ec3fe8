// SPDX-License-Identifier: Apache-2.0
// zero_rules_test.cpp: the T-FDPA zero rules (TfdpaZeroRules, issue 26 item 4) on the minimal
// cases and their neighbours, each value derived by hand from the rule (MMA-Sim c785138
// mmasim/simulator/arithmetic.py: frexp(0) → exponent −126 at :93-94, products ea + eb + esa + esb at
// :152-155, the aligned sum from +0.0 at :119-128), under the default rules and MMA-Sim's.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "minifloat/core/tfdpa.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;

TfdpaModel with_rules(TfdpaModel m, TfdpaZeroRules z) {
  m.zero = z;
  return m;
}
TfdpaZeroRules only_product() { return {ZeroProductExponent::relative, -126}; }
TfdpaZeroRules only_c(int e) {
  TfdpaZeroRules z;
  z.c = ZeroCExponent::own;
  z.c_exponent = e;
  return z;
}
TfdpaZeroRules only_sign() {
  TfdpaZeroRules z;
  z.sign = ZeroResultSign::positive;
  return z;
}

TEST(TfdpaZeroRules, PresetsKeepTheDefaults) {
  const TfdpaZeroRules d{};
  for (const TfdpaModel* m : mma_models::all) {
    // AMD CDNA3 (two-stage sums): MMA-Sim is their only source, so its zero rules (presets_amd_test.cpp)
    if (m->structure == TfdpaStructure::two_stage || m->structure == TfdpaStructure::two_stage_odd_even) {
      EXPECT_EQ(m->zero.product, ZeroProductExponent::relative) << m->name;
      continue;
    }
    EXPECT_EQ(m->zero.product, ZeroProductExponent::constant) << m->name;
    EXPECT_EQ(m->zero.c, ZeroCExponent::zero_exponent) << m->name;
    EXPECT_EQ(m->zero.sign, ZeroResultSign::negative_when_all_negative) << m->name;
  }
  EXPECT_EQ(d.factor_exponent, -126);
}

// (a) mxf8f6f4: A all 0, B all 1, both scales 2^127 (UE8M0 code 254), C = 1. Constant (−126): E = 0
// (C), C kept → 1.0. Relative: every product −126 + 0 + 127 + 127 = 128 = E, C = 1 aligned to
// 2^(128−25) truncates to 0 → +0. Neighbour: scales 2^0 (code 127): −126 < 0 → 1.0 under both.
TEST(TfdpaZeroRules, ZeroProductExponentMxf8f6f4) {
  const TfdpaModel m = mma_models::blackwell_tcgen05_mxf8f6f4_unvalidated;
  const std::vector<std::uint64_t> a(32, 0x00), b(32, 0x38);  // e4m3fn 0x38 = 1.0
  for (const std::uint64_t scale : {254u, 127u}) {
    const std::uint64_t sa = scale, sb = scale;
    const std::uint64_t def =
        tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0x3f800000u, &sa, &sb).code;
    const std::uint64_t rel = tfdpa_dot(with_rules(m, only_product()), formats::e4m3fn, a.data(), formats::e4m3fn,
                                        b.data(), 32, 0x3f800000u, &sa, &sb)
                                  .code;
    const std::uint64_t sim = tfdpa_dot(with_rules(m, mma_sim_zero_rules), formats::e4m3fn, a.data(), formats::e4m3fn,
                                        b.data(), 32, 0x3f800000u, &sa, &sb)
                                  .code;
    EXPECT_EQ(def, 0x3f800000u) << scale;
    EXPECT_EQ(rel, scale == 254 ? 0x00000000u : 0x3f800000u) << scale;
    EXPECT_EQ(sim, rel) << scale;
  }
}

// (a) wgmma f16 (hopper-f16: L = 16, F = 25, zero_exponent −133): A = 0, B = 32768 = 2^15 (f16 0x7800),
// C = 0x03800001 = 2^−120·(1 + 2^−23). Constant: E = −120, quantum 2^−145, C exact → 0x03800001.
// Relative: E = −126 + 15 = −111, quantum 2^−136: C's 2^−143 bit truncates → 0x03800000. Neighbours:
// B = 2^5 (0x5000): −121 ≤ −120 keeps C under both; B = 2^6 (0x5400): E = −120 keeps it; B = 2^8
// (0x5c00): E = −118, quantum 2^−143 still holds 2^−143 → 0x03800001; B = 2^9 (0x6000): quantum 2^−142 → lost.
TEST(TfdpaZeroRules, ZeroProductExponentWgmmaF16) {
  const TfdpaModel m = mma_models::hopper_f16_unvalidated;
  const std::vector<std::uint64_t> a(16, 0x0000);
  const struct {
    std::uint64_t b;
    std::uint64_t relative;
  } cases[] = {{0x7800, 0x03800000u},
               {0x5000, 0x03800001u},
               {0x5400, 0x03800001u},
               {0x5c00, 0x03800001u},
               {0x6000, 0x03800000u}};
  for (const auto& t : cases) {
    const std::vector<std::uint64_t> b(16, t.b);
    EXPECT_EQ(tfdpa_dot(m, formats::f16, a.data(), formats::f16, b.data(), 16, 0x03800001u).code, 0x03800001u);
    EXPECT_EQ(
        tfdpa_dot(with_rules(m, only_product()), formats::f16, a.data(), formats::f16, b.data(), 16, 0x03800001u).code,
        t.relative)
        << std::hex << t.b;
  }
}

// (b) Ampere bf16 (L = 8, F = 24, zero_exponent −133): products 2^−70·2^−70 = 2^−140 and
// −2^−77·2^−78 = −2^−155, C = +0. Zero C at −133: E = −133, quantum 2^−157, S = 2^17 − 4, RZ to FP32
// (quantum 2^−149): 511 → 0x000001ff. Zero C at −126 (MMA-Sim): quantum 2^−150, −2^−155 truncates to 0,
// S = 2^10 → 2^−140 = 0x00000200. The relative product rule alone changes nothing (0·0 lanes at −252).
TEST(TfdpaZeroRules, ZeroCExponentAmpereBf16) {
  const TfdpaModel m = mma_models::ampere_bf16;
  // bf16: 2^−70 = 0x1c80, −2^−77 = 0x9900, 2^−78 = 0x1880
  const std::uint64_t a[8] = {0x1c80, 0x9900, 0, 0, 0, 0, 0, 0}, b[8] = {0x1c80, 0x1880, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(tfdpa_dot(m, formats::bf16, a, formats::bf16, b, 8, 0).code, 0x000001ffu);
  EXPECT_EQ(tfdpa_dot(with_rules(m, only_c(-126)), formats::bf16, a, formats::bf16, b, 8, 0).code, 0x00000200u);
  EXPECT_EQ(tfdpa_dot(with_rules(m, only_product()), formats::bf16, a, formats::bf16, b, 8, 0).code, 0x000001ffu);
  EXPECT_EQ(tfdpa_dot(with_rules(m, mma_sim_zero_rules), formats::bf16, a, formats::bf16, b, 8, 0).code, 0x00000200u);
  // neighbour: C = −0 gives the same magnitudes (the products decide the sign)
  EXPECT_EQ(tfdpa_dot(m, formats::bf16, a, formats::bf16, b, 8, 0x80000000u).code, 0x000001ffu);
  // neighbour: zero C at −133 given as its own exponent equals the default
  EXPECT_EQ(tfdpa_dot(with_rules(m, only_c(-133)), formats::bf16, a, formats::bf16, b, 8, 0).code, 0x000001ffu);
}

// (c) wgmma e4m3 (hopper-fp8, L = 32): A = +0, B = −0 (0x80), C = −0: every term is a negative zero →
// −0 by default, +0 under the positive rule. Neighbours: C = +0 → +0 under both; one product +0·+0 → +0.
TEST(TfdpaZeroRules, ZeroResultSignWgmmaE4m3) {
  const TfdpaModel m = mma_models::hopper_fp8;
  const std::vector<std::uint64_t> a(32, 0x00), b(32, 0x80);
  const TfdpaModel pos = with_rules(m, only_sign());
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0x80000000u).code, 0x80000000u);
  EXPECT_EQ(tfdpa_dot(pos, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0x80000000u).code, 0u);
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0).code, 0u);
  std::vector<std::uint64_t> b1 = b;
  b1[5] = 0x00;
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b1.data(), 32, 0x80000000u).code, 0u);
  // a cancellation to zero is +0 under both: 1·1 + (−1)·1 + −0
  std::vector<std::uint64_t> a2(32, 0x00), b2(32, 0x00);
  a2[0] = 0x38;
  b2[0] = 0x38;
  a2[1] = 0xb8;
  b2[1] = 0x38;
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a2.data(), formats::e4m3fn, b2.data(), 32, 0x80000000u).code, 0u);
  EXPECT_EQ(tfdpa_dot(pos, formats::e4m3fn, a2.data(), formats::e4m3fn, b2.data(), 32, 0x80000000u).code, 0u);
}

}  // namespace
}  // namespace minifloat_test
