// SPDX-License-Identifier: Apache-2.0
// presets_amd_test.cpp: the AMD CDNA1-3 MFMA presets of issue 26 item 6, each with values derived by hand
// from MMA-Sim c785138 (mmasim/simulator/amd.py:30-98, arithmetic.py:67-73, :98-112, :227-285) that its
// nearest neighbour (the other structure, another group size, no flush) does not give.
#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "minifloat/core/tfdpa.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;
using V = std::vector<std::uint64_t>;

std::uint64_t dot(const TfdpaModel& m, Format f, const V& a, const V& b, std::uint64_t c) {
  return tfdpa_dot(m, f, a.data(), f, b.data(), a.size(), c).code;
}

// cdna1-f16 (L = 4, pairwise f32 RNE, arithmetic.py:98-112): products 1, 2^-24, 2^-24, 0 (f16 2^-12 = 0x0c00).
// (1 + 2^-24) is an f32 tie → 1; (2^-24 + 0) = 2^-24; 1 + 2^-24 → 1 again: 0x3f800000. One exact group
// rounded once (MATLAB MI100MC.m:75 correct_rounding) would give 1 + 2^-23 (0x3f800001), and so does
// cdna3-f16 (products at quantum 2^-24 of E = 0: 2^24 + 1 + 1, exact, RNE to f32).
TEST(AmdPresets, Cdna1F16RoundsThePairwiseTree) {
  const V a{0x3c00, 0x0c00, 0x0c00, 0}, b{0x3c00, 0x0c00, 0x0c00, 0};
  EXPECT_EQ(dot(mma_models::cdna1_f16_unvalidated, formats::f16, a, b, 0), 0x3f800000u);
  EXPECT_EQ(dot(mma_models::cdna3_f16_unvalidated, formats::f16, a, b, 0), 0x3f800001u);
}

// cdna1-bf16 (L = 2): C = 1, products 2^-24, 0, 2^-24, 0 (bf16 2^-12 = 0x3980). Group 1: 2^-24, C + it is
// the tie 1 + 2^-24 → 1; group 2 the same → 0x3f800000. With L = 4 (cdna2-bf16's group, no flush): the
// group sums to 2^-23 first, 1 + 2^-23 → 0x3f800001.
TEST(AmdPresets, Cdna1Bf16ChainsGroupsOfTwo) {
  TfdpaModel m = mma_models::cdna1_bf16_unvalidated;
  const V a{0x3980, 0, 0x3980, 0}, b{0x3980, 0, 0x3980, 0};
  EXPECT_EQ(dot(m, formats::bf16, a, b, 0x3f800000u), 0x3f800000u);
  m.group = 4;
  EXPECT_EQ(dot(m, formats::bf16, a, b, 0x3f800000u), 0x3f800001u);
}

// cdna2-f16 flushes subnormal inputs to +0 (amd.py:38, :62-65): f16 2^-24 (0x0001) · 2^10 (0x6400) = 2^-14.
// cdna1-f16 keeps it: 0x38800000; cdna2-f16: +0.
TEST(AmdPresets, Cdna2F16FlushesSubnormalInputs) {
  const V a{0x0001, 0, 0, 0}, b{0x6400, 0, 0, 0};
  EXPECT_EQ(dot(mma_models::cdna1_f16_unvalidated, formats::f16, a, b, 0), 0x38800000u);
  EXPECT_EQ(dot(mma_models::cdna2_f16_unvalidated, formats::f16, a, b, 0), 0u);
}

// cdna2-bf16 (L = 4) flushes partial sums below 2^-126 (arithmetic.py:110-111): four products
// 2^-64 · 2^-64 = 2^-128 (bf16 0x1f80, a normal input) are each flushed → +0. cdna1-bf16 keeps them:
// two groups of 2^-127, C = 0 → 2^-127 → 2^-126 = 0x00800000.
TEST(AmdPresets, Cdna2Bf16FlushesSubnormalPartialSums) {
  const V a(4, 0x1f80), b(4, 0x1f80);
  EXPECT_EQ(dot(mma_models::cdna1_bf16_unvalidated, formats::bf16, a, b, 0), 0x00800000u);
  EXPECT_EQ(dot(mma_models::cdna2_bf16_unvalidated, formats::bf16, a, b, 0), 0u);
}

// cdna3-f16 (two_stage, L = 8, F = 24). (1) Products 1·1 and −2^-15·2^-15 = −2^-30 (f16 subnormals 0x8200,
// 0x0200), C = +0: stage 1 aligns to E_p = 0 at quantum 2^-24 and truncates −2^-30 (−2^-6 quanta) to 0 →
// 1.0 (0x3f800000). A fused model flooring every term (align rtn, same L, F, RNE) keeps −1 quantum:
// 1 − 2^-24 = 0x3f7fffff. (2) 1·1 and C = −2^-30 (0xb0800000): M = 0, C floored to 24 bits of 2^0 is
// −2^-24, the sum 1 − 2^-24 (exact in f32) → 0x3f7fffff; cdna1-f16 rounds 1 − 2^-30 → 1.0.
TEST(AmdPresets, Cdna3F16TruncatesProductsAndFloorsC) {
  const TfdpaModel& m = mma_models::cdna3_f16_unvalidated;
  V a(8, 0), b(8, 0);
  a[0] = 0x3c00, b[0] = 0x3c00, a[1] = 0x8200, b[1] = 0x0200;
  EXPECT_EQ(dot(m, formats::f16, a, b, 0), 0x3f800000u);
  TfdpaModel fused = m;
  fused.structure = TfdpaStructure::fused;
  fused.align = AlignRounding::rtn;
  EXPECT_EQ(dot(fused, formats::f16, a, b, 0), 0x3f7fffffu);
  a[1] = 0, b[1] = 0;
  EXPECT_EQ(dot(m, formats::f16, a, b, 0xb0800000u), 0x3f7fffffu);
  EXPECT_EQ(dot(mma_models::cdna1_f16_unvalidated, formats::f16, V(a.begin(), a.begin() + 4),
                V(b.begin(), b.begin() + 4), 0xb0800000u),
            0x3f800000u);
}

// cdna3-bf16: a product of 2^128 or more is ±Inf before the sum (arithmetic.py:243-259): 2^64·2^64 and
// −2^64·2^64 (bf16 0x5f80, 0xdf80) → Inf of both signs → NaN 0x7fc00000. ampere-bf16 (fused) sums them
// exactly to +0. And as cdna3-f16 (2): 1·1 with C = −2^-30 → 0x3f7fffff.
TEST(AmdPresets, Cdna3Bf16ProductOverflowAndCFloor) {
  const TfdpaModel& m = mma_models::cdna3_bf16_unvalidated;
  V a(8, 0), b(8, 0);
  a[0] = 0x5f80, b[0] = 0x5f80, a[1] = 0xdf80, b[1] = 0x5f80;
  EXPECT_EQ(dot(m, formats::bf16, a, b, 0), 0x7fc00000u);
  EXPECT_EQ(dot(mma_models::ampere_bf16, formats::bf16, a, b, 0), 0u);
  a = V(8, 0), b = V(8, 0);
  a[0] = 0x3f80, b[0] = 0x3f80;
  EXPECT_EQ(dot(m, formats::bf16, a, b, 0xb0800000u), 0x3f7fffffu);
}

// cdna3-fp8 (two_stage_odd_even, L = 16, F = 24; e4m3fnuz 16 = 0x60, ±2^-10 = 0x01 / 0x81).
// (1) Lane 0: 16·16 = 256 (e = 8), lane 1 (odd): −2^-10·2^-10 = −2^-20. Each half is exact at its own E;
// floored to 24 bits of 2^8 (quantum 2^-16) the odd sum is −2^-16 → 256 − 2^-16 = 0x437fffff. In one
// two_stage sum (no split) −2^-20 truncates to 0 → 256 = 0x43800000, and so it does when the small
// product sits in lane 2 (even: the same half as lane 0, RZ).
// (2) Lane 0 alone, C = −2^-20 (0xb5800000): e(C) = −20 < M − 25 = −17, C is dropped → 0x43800000;
// two_stage floors it to −2^-16 → 0x437fffff.
TEST(AmdPresets, Cdna3Fp8SplitsOddAndEvenLanesAndDropsSmallC) {
  const TfdpaModel& m = mma_models::cdna3_fp8_unvalidated;
  TfdpaModel one = m;
  one.structure = TfdpaStructure::two_stage;
  V a(16, 0), b(16, 0);
  a[0] = 0x60, b[0] = 0x60, a[1] = 0x81, b[1] = 0x01;
  EXPECT_EQ(dot(m, formats::e4m3fnuz, a, b, 0), 0x437fffffu);
  EXPECT_EQ(dot(one, formats::e4m3fnuz, a, b, 0), 0x43800000u);
  std::swap(a[1], a[2]), std::swap(b[1], b[2]);
  EXPECT_EQ(dot(m, formats::e4m3fnuz, a, b, 0), 0x43800000u);
  a[2] = 0, b[2] = 0;
  EXPECT_EQ(dot(m, formats::e4m3fnuz, a, b, 0xb5800000u), 0x43800000u);
  EXPECT_EQ(dot(one, formats::e4m3fnuz, a, b, 0xb5800000u), 0x437fffffu);
}

// The structures are opt-in: every NVIDIA preset stays fused without flushing, except the FP8 mma.sync presets
// of issue 26 item 5 (late_c, late_c_pairs); the AMD ones are named cdna*-unvalidated with an f32 register.
TEST(AmdPresets, OnlyTheCdnaPresetsLeaveTheFusedGroup) {
  for (const TfdpaModel* p : mma_models::all) {
    const bool amd = std::string_view(p->name).substr(0, 4) == "cdna";
    const std::string_view n(p->name);
    const bool late_c = n == "blackwell-fp8-late-c";
    const bool pairs = n == "hopper-fp8-f16-mma-sync" || n == "blackwell-fp8-f16-mma-sync";
    EXPECT_EQ(p->structure == TfdpaStructure::late_c, late_c) << p->name;
    EXPECT_EQ(p->structure == TfdpaStructure::late_c_pairs, pairs) << p->name;
    EXPECT_EQ(p->structure != TfdpaStructure::fused, amd || late_c || pairs) << p->name;
    if (!amd) {
      EXPECT_EQ(p->subnormals, TfdpaSubnormals::keep) << p->name;
    } else {
      EXPECT_TRUE(p->dest == formats::f32) << p->name;
    }
  }
}

}  // namespace
}  // namespace minifloat_test
