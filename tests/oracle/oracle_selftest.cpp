// SPDX-License-Identifier: Apache-2.0
// oracle_selftest.cpp: checks the MPFR oracle itself against the spec-digest's literal numbers
// (§1.1, §2.1, §3.1, §5 limits; traps T1–T13, T19 (nonsat), T21–T24, T26) before it is trusted
// to judge minifloat. Includes no minifloat header.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "mpfr_oracle.hpp"
#include "spec_formats.hpp"

namespace minifloat_test::oracle {
namespace {

double f32(std::uint32_t bits) { return static_cast<double>(std::bit_cast<float>(bits)); }

/// One oracle conversion of a double under the ocp profile (or `opt`).
Result conv(const char* fmt, double v, Mode m = Mode::rne, Overflow o = Overflow::nonsat, Options opt = {}) {
  Target t(spec_by_name(fmt));
  mpfr_t x;
  mpfr_init2(x, 64);
  set_from_double(x, v);
  const Result r = t.round(x, m, o, opt);
  mpfr_clear(x);
  return r;
}
std::uint64_t code(const char* fmt, double v, Mode m = Mode::rne, Overflow o = Overflow::nonsat) {
  return conv(fmt, v, m, o).code;
}
double value(const char* fmt, std::uint64_t c) { return to_double(decode(spec_by_name(fmt), c)); }

TEST(OracleSelfTest, LimitsFromTheSpecs) {
  EXPECT_EQ(value("e4m3fn", 0x7e), 448);
  EXPECT_EQ(value("e4m3fn", 0x08), std::ldexp(1, -6));
  EXPECT_EQ(value("e4m3fn", 0x01), std::ldexp(1, -9));
  EXPECT_EQ(value("e4m3fn", 0x38), 1);
  EXPECT_TRUE(std::isnan(value("e4m3fn", 0x7f)));
  EXPECT_TRUE(std::signbit(value("e4m3fn", 0x80)));
  EXPECT_EQ(value("e5m2", 0x7b), 57344);
  EXPECT_EQ(value("e5m2", 0x01), std::ldexp(1, -16));
  EXPECT_EQ(value("e5m2", 0x7c), HUGE_VAL);
  EXPECT_TRUE(std::isnan(value("e5m2", 0x7d)));
  EXPECT_EQ(value("e4m3fnuz", 0x7f), 240);
  EXPECT_EQ(value("e4m3fnuz", 0x01), std::ldexp(1, -10));
  EXPECT_EQ(value("e4m3fnuz", 0x40), 1);
  EXPECT_TRUE(std::isnan(value("e4m3fnuz", 0x80)));
  EXPECT_EQ(value("e5m2fnuz", 0x7f), 57344);
  EXPECT_EQ(value("e5m2fnuz", 0x01), std::ldexp(1, -17));
  EXPECT_EQ(value("e4m3b11fnuz", 0x7f), 30);
  EXPECT_EQ(value("e4m3", 0x77), 240);
  EXPECT_EQ(value("e4m3", 0x78), HUGE_VAL);
  EXPECT_EQ(value("e3m4", 0x6f), 15.5);
  EXPECT_EQ(value("e3m4", 0x70), HUGE_VAL);
  EXPECT_EQ(value("e3m2fn", 0x1f), 28);
  EXPECT_EQ(value("e3m2fn", 0x04), 0.25);
  EXPECT_EQ(value("e2m3fn", 0x1f), 7.5);
  EXPECT_EQ(value("e2m3fn", 0x08), 1);
  EXPECT_EQ(value("e2m1fn", 0x7), 6);
  EXPECT_EQ(value("e2m1fn", 0x1), 0.5);
  EXPECT_TRUE(std::signbit(value("e2m1fn", 0x8)));
  EXPECT_EQ(value("e8m0fnu", 0x00), std::ldexp(1, -127));
  EXPECT_EQ(value("e8m0fnu", 0x7f), 1);
  EXPECT_EQ(value("e8m0fnu", 0xfe), std::ldexp(1, 127));
  EXPECT_TRUE(std::isnan(value("e8m0fnu", 0xff)));
  EXPECT_EQ(value("ue4m3", 0x7e), 448);
  EXPECT_TRUE(std::isnan(value("ue4m3", 0x7f)));
  EXPECT_EQ(value("f16", 0x7bff), 65504);
  EXPECT_EQ(value("bf16", 0x3f80), 1);
  // P3109 §3.1 (T21 and the K = 8 examples).
  EXPECT_EQ(value("Binary8p3se", 0x40), 1);
  EXPECT_EQ(value("Binary8p3se", 0x7e), 49152);
  EXPECT_EQ(value("Binary8p3se", 0x01), std::ldexp(1, -17));
  EXPECT_EQ(value("Binary8p3se", 0x7f), HUGE_VAL);
  EXPECT_EQ(value("Binary8p3se", 0xff), -HUGE_VAL);
  EXPECT_TRUE(std::isnan(value("Binary8p3se", 0x80)));
  EXPECT_EQ(value("Binary8p4se", 0x40), 1);
  EXPECT_EQ(value("Binary8p4se", 0x48), 2);
  EXPECT_EQ(value("Binary8p4se", 0x7e), 224);
  EXPECT_EQ(value("Binary8p4se", 0x01), std::ldexp(1, -10));
  EXPECT_EQ(value("Binary8p3sf", 0x7f), 57344);
  EXPECT_EQ(value("Binary8p4sf", 0x7f), 240);
  EXPECT_EQ(value("Binary8p3ue", 0x80), 1);
  EXPECT_EQ(value("Binary8p3ue", 0xfe), HUGE_VAL);
  EXPECT_TRUE(std::isnan(value("Binary8p3ue", 0xff)));
  EXPECT_EQ(value("Binary8p1uf", 0x00), 0);
  EXPECT_EQ(value("Binary8p1uf", 0x80), 1);
  EXPECT_EQ(value("Binary8p1uf", 0xfe), std::ldexp(1, 126));
  EXPECT_EQ(value("Binary8p1ue", 0xfd), std::ldexp(1, 125));
}

TEST(OracleSelfTest, T1_T2_E4m3Overflow) {
  EXPECT_EQ(conv("e4m3fn", f32(0x43E80000)), (Result{0x7e, kInexact}));
  EXPECT_EQ(code("e4m3fn", f32(0x43E80000), Mode::rne, Overflow::satfinite), 0x7eu);
  EXPECT_EQ(conv("e4m3fn", f32(0x43E80001)).code, 0x7fu);
  EXPECT_EQ(conv("e4m3fn", f32(0x43E80001)).flags & (kOverflow | kInexact), kOverflow | kInexact);
  EXPECT_EQ(conv("e4m3fn", -f32(0x43E80001)).code, 0xffu);
  EXPECT_EQ(code("e4m3fn", f32(0x43E80001), Mode::rne, Overflow::satfinite), 0x7eu);
  EXPECT_EQ(code("e4m3fn", 500, Mode::rne, Overflow::satfinite), 0x7eu);
}

TEST(OracleSelfTest, T3_E5m2TieOverflows) {
  EXPECT_EQ(conv("e5m2", f32(0x47700000)), (Result{0x7c, kOverflow | kInexact}));
  EXPECT_EQ(code("e5m2", f32(0x47700000), Mode::rne, Overflow::satfinite), 0x7bu);
  EXPECT_EQ(code("e5m2", f32(0x476FFFFF)), 0x7bu);
}

TEST(OracleSelfTest, T4_Infinities) {
  EXPECT_EQ(code("e4m3fn", HUGE_VAL, Mode::rne, Overflow::satfinite), 0x7eu);
  EXPECT_EQ(code("e4m3fn", -HUGE_VAL, Mode::rne, Overflow::satfinite), 0xfeu);
  EXPECT_EQ(code("e4m3fn", HUGE_VAL), 0x7fu);
  EXPECT_EQ(code("e4m3fn", -HUGE_VAL), 0xffu);
  EXPECT_EQ(code("e5m2", HUGE_VAL, Mode::rne, Overflow::satfinite), 0x7bu);
  EXPECT_EQ(code("e5m2", -HUGE_VAL, Mode::rne, Overflow::satfinite), 0xfbu);
  EXPECT_EQ(conv("e5m2", HUGE_VAL), (Result{0x7c, 0}));
  EXPECT_EQ(code("e5m2", -HUGE_VAL), 0xfcu);
  EXPECT_EQ(code("e5m2", -HUGE_VAL, Mode::rne, Overflow::satpropagate), 0xfcu);
  EXPECT_EQ(code("e4m3fn", HUGE_VAL, Mode::rne, Overflow::satpropagate), 0x7fu);
  EXPECT_EQ(code("e2m1fn", -HUGE_VAL, Mode::rne, Overflow::satpropagate), 0xfu);
}

TEST(OracleSelfTest, T5_NanSignKept) {
  const double neg_nan = f32(0xFFC00000);
  EXPECT_EQ(conv("e4m3fn", neg_nan), (Result{0xff, 0}));
  EXPECT_EQ(conv("e5m2", neg_nan), (Result{0xfe, 0}));
  EXPECT_EQ(code("e5m2", std::nan("")), 0x7eu);
  EXPECT_EQ(code("f16", neg_nan), 0xfe00u);
  EXPECT_EQ(code("e4m3fnuz", neg_nan), 0x80u);
  EXPECT_EQ(code("Binary8p3ue", neg_nan), 0xffu);
}

TEST(OracleSelfTest, T6_SubnormalTies) {
  EXPECT_EQ(conv("e4m3fn", f32(0x3A800000)), (Result{0x00, kInexact | kUnderflow}));
  EXPECT_EQ(code("e4m3fn", std::ldexp(1, -10) + std::ldexp(1, -40)), 0x01u);
  EXPECT_EQ(code("e4m3fn", 3 * std::ldexp(1, -10)), 0x02u);
  EXPECT_EQ(code("e4m3fn", -std::ldexp(1, -10)), 0x80u);
  EXPECT_EQ(code("e4m3fn", std::ldexp(1, -10), Mode::rna), 0x01u);
  EXPECT_EQ(code("e4m3fn", std::ldexp(1, -10), Mode::rto), 0x01u);
  EXPECT_EQ(code("e4m3fn", std::ldexp(1, -12), Mode::rtp), 0x01u);
  EXPECT_EQ(code("e4m3fn", -std::ldexp(1, -12), Mode::rtp), 0x80u);
  EXPECT_EQ(code("e4m3fn", 5 * std::ldexp(1, -10), Mode::rto), 0x03u);  // 2.5 quanta of 2^-9 → odd 3
  EXPECT_EQ(code("e4m3fn", 3 * std::ldexp(1, -10), Mode::rto), 0x01u);  // 1.5 quanta → odd 1
  EXPECT_EQ(code("e4m3fn", 3 * std::ldexp(1, -11), Mode::rto), 0x01u);  // 0.75 quanta: 0 is even → 1
  // Exact subnormal: no flag. Min normal reached by rounding up: not tiny after rounding.
  EXPECT_EQ(conv("e4m3fn", std::ldexp(3, -9)), (Result{0x03, 0}));
  EXPECT_EQ(conv("e4m3fn", std::ldexp(1, -6) - std::ldexp(1, -12)), (Result{0x08, kInexact}));
  EXPECT_EQ(conv("e4m3fn", std::ldexp(1, -6) - std::ldexp(1, -12), Mode::rtz), (Result{0x07, kInexact | kUnderflow}));
}

TEST(OracleSelfTest, T7_NoNegativeZeroInFnuzAndP3109) {
  for (const char* f : {"e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "Binary8p3se", "Binary8p4sf"}) {
    EXPECT_EQ(code(f, -0.0), 0x00u) << f;
    EXPECT_EQ(code(f, -1e-9), 0x00u) << f;
    EXPECT_EQ(code(f, -1e-7), 0x00u) << f;
  }
  EXPECT_EQ(conv("e4m3fn", -0.0), (Result{0x80, 0}));
  EXPECT_EQ(code("e4m3fn", -1e-9), 0x80u);
  EXPECT_EQ(code("ue4m3", -0.0), 0x00u);
}

TEST(OracleSelfTest, T8_T19_FnuzOverflow) {
  EXPECT_EQ(code("e4m3fnuz", f32(0x43780000)), 0x80u);
  EXPECT_EQ(code("e4m3fnuz", f32(0x43780000), Mode::rne, Overflow::satfinite), 0x7fu);
  EXPECT_EQ(code("e4m3fnuz", 1000), 0x80u);
  EXPECT_EQ(code("e4m3fnuz", -1000), 0x80u);
  EXPECT_EQ(code("e4m3fnuz", -1000, Mode::rne, Overflow::satfinite), 0xffu);
  EXPECT_EQ(code("e4m3fnuz", 1000, Mode::rtz), 0x7fu);  // IEEE 754 §7.4: rtz never overflows
  EXPECT_EQ(code("e4m3fnuz", -1000, Mode::rtp), 0xffu);
  EXPECT_EQ(code("e4m3fnuz", -1000, Mode::rtn), 0x80u);
}

TEST(OracleSelfTest, T9_T10_T23_T24_E8m0) {
  EXPECT_EQ(conv("e8m0fnu", 0.0), (Result{0x00, kUnderflow | kInexact}));
  EXPECT_EQ(conv("e8m0fnu", -0.0), (Result{0x00, kUnderflow | kInexact}));
  EXPECT_EQ(code("e8m0fnu", 3.0, Mode::rtz), 0x80u);
  EXPECT_EQ(code("e8m0fnu", 3.0, Mode::rtp), 0x81u);
  EXPECT_EQ(code("e8m0fnu", 3.0), 0x81u);
  EXPECT_EQ(code("e8m0fnu", 2.5), 0x80u);
  EXPECT_EQ(code("e8m0fnu", 1.5, Mode::rtz), 0x7fu);
  EXPECT_EQ(code("e8m0fnu", 1.5, Mode::rtp), 0x80u);
  EXPECT_EQ(code("e8m0fnu", 1.5), 0x80u);
  EXPECT_EQ(code("e8m0fnu", f32(0x3FBFFFFF)), 0x7fu);  // 1.4999999
  EXPECT_EQ(conv("e8m0fnu", -4.0), (Result{0xff, kInvalid}));
  EXPECT_EQ(code("e8m0fnu", FLT_MAX, Mode::rtz), 0xfeu);
  EXPECT_EQ(code("e8m0fnu", FLT_MAX, Mode::rtp, Overflow::satfinite), 0xfeu);
  EXPECT_EQ(code("e8m0fnu", FLT_MAX, Mode::rtp), 0xffu);
  EXPECT_EQ(code("e8m0fnu", FLT_MAX), 0xffu);
  EXPECT_EQ(code("e8m0fnu", FLT_MAX, Mode::rne, Overflow::satfinite), 0xfeu);
  EXPECT_EQ(code("e8m0fnu", f32(0x00400001), Mode::rtp), 0x01u);
  EXPECT_EQ(code("e8m0fnu", f32(0x00400001), Mode::rtz), 0x00u);
  EXPECT_EQ(conv("e8m0fnu", std::ldexp(1, -130), Mode::rtp), (Result{0x00, kUnderflow | kInexact}));
  EXPECT_EQ(conv("e8m0fnu", f32(0x00400000)), (Result{0x00, 0}));
}

TEST(OracleSelfTest, T11_NoDoubleRounding) {
  EXPECT_EQ(code("e4m3fn", 1.0625 + std::ldexp(1, -40)), 0x39u);
  EXPECT_EQ(code("e4m3fn", 1.0625), 0x38u);
}

TEST(OracleSelfTest, T12_E2m1Ties) {
  const double in[] = {0.25, 1.25, 2.5, 5.0};
  const std::uint64_t rne[] = {0x0, 0x2, 0x4, 0x6};
  const std::uint64_t rna[] = {0x1, 0x3, 0x5, 0x7};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(code("e2m1fn", in[i]), rne[i]) << in[i];
    EXPECT_EQ(code("e2m1fn", in[i], Mode::rna), rna[i]) << in[i];
  }
  EXPECT_EQ(code("e2m1fn", 0.75), 0x2u);
  EXPECT_EQ(code("e2m1fn", 0.75, Mode::rtz), 0x1u);
}

TEST(OracleSelfTest, T13_NanIntoFormatsWithoutNan) {
  EXPECT_EQ(conv("e2m3fn", std::nan("")), (Result{0x1f, kInvalid}));
  EXPECT_EQ(conv("e2m3fn", -std::nan("")), (Result{0x1f, kInvalid}));
  EXPECT_EQ(conv("e2m1fn", std::nan("")), (Result{0x7, kInvalid}));
  EXPECT_EQ(conv("e2m1fn", -std::nan("")), (Result{0x7, kInvalid}));
}

TEST(OracleSelfTest, T21_T22_P3109) {
  EXPECT_EQ(code("Binary8p3se", 1.0), 0x40u);
  EXPECT_EQ(code("e5m2", 1.0), 0x3cu);
  EXPECT_EQ(code("Binary8p4se", 1.0), 0x40u);
  EXPECT_EQ(code("e4m3fn", 1.0), 0x38u);
  EXPECT_EQ(code("Binary8p3se", 1e6), 0x7fu);
  EXPECT_EQ(code("Binary8p3se", 1e6, Mode::rtz), 0x7eu);
  EXPECT_EQ(code("Binary8p3se", -1e6, Mode::rtz), 0xfeu);
  for (Mode m : {Mode::rne, Mode::rna, Mode::rtz, Mode::rtp, Mode::rtn, Mode::rto})
    EXPECT_EQ(code("Binary8p3se", 1e6, m, Overflow::satfinite), 0x7eu) << mode_name(m);
  EXPECT_EQ(code("Binary8p3ue", -1.0), 0xffu);
  // p3109 profile: negative into unsigned is NaN under SatNone and 0 under SatFinite.
  Options p3109;
  p3109.p3109 = true;
  EXPECT_EQ(conv("Binary8p3ue", -1.0, Mode::rne, Overflow::nonsat, p3109).code, 0xffu);
  EXPECT_EQ(conv("Binary8p3ue", -1.0, Mode::rne, Overflow::satfinite, p3109).code, 0x00u);
  // P = 1 ties: ocp → up (as MPFR at precision 1); p3109 → the even code (IsEven(Q + B)).
  // Binary8p1se: bias 64, 1.0 = code 64 (even), 2.0 = 65, 4.0 = 66.
  EXPECT_EQ(code("Binary8p1se", 1.5), 65u);
  EXPECT_EQ(conv("Binary8p1se", 1.5, Mode::rne, Overflow::nonsat, p3109).code, 64u);
  EXPECT_EQ(conv("Binary8p1se", 3.0, Mode::rne, Overflow::nonsat, p3109).code, 66u);
  EXPECT_EQ(conv("Binary8p1se", -3.0, Mode::rne, Overflow::nonsat, p3109).code, 0x80u + 66u);
}

TEST(OracleSelfTest, T26_Fp6) {
  EXPECT_EQ(code("e3m2fn", f32(0x40F80000)), 0x18u);
  EXPECT_EQ(code("e3m2fn", f32(0x40F80000), Mode::rtz), 0x17u);
  EXPECT_EQ(code("e2m3fn", f32(0x40F80000)), 0x1fu);
  EXPECT_EQ(code("e2m3fn", f32(0x40F80000), Mode::rtz), 0x1fu);
  EXPECT_EQ(code("e2m3fn", 100.0), 0x1fu);  // no Inf, no NaN: nonsat saturates
  EXPECT_EQ(code("e2m3fn", -100.0), 0x3fu);
}

TEST(OracleSelfTest, DirectedOverflowIeee7_4) {
  EXPECT_EQ(code("e5m2", 1e6, Mode::rtz), 0x7bu);
  EXPECT_EQ(code("e5m2", 1e6, Mode::rtp), 0x7cu);
  EXPECT_EQ(code("e5m2", -1e6, Mode::rtp), 0xfbu);
  EXPECT_EQ(code("e5m2", 1e6, Mode::rtn), 0x7bu);
  EXPECT_EQ(code("e5m2", -1e6, Mode::rtn), 0xfcu);
  EXPECT_EQ(code("e5m2", 1e6, Mode::rto), 0x7bu);
  EXPECT_EQ(code("e5m2", 1e6, Mode::rna), 0x7cu);
  EXPECT_EQ(code("e4m3fn", 470, Mode::rtz), 0x7eu);
  EXPECT_EQ(conv("e4m3fn", 470, Mode::rtz).flags, kInexact);  // 470 truncates to 448: no overflow
  EXPECT_EQ(conv("e4m3fn", 500, Mode::rtz).flags, kInexact | kOverflow);
  EXPECT_EQ(code("e4m3fn", 450, Mode::rto), 0x7eu);  // 448 has an even mantissa; rto → 0x7e|1 is NaN → overflow → max
  EXPECT_EQ(conv("e4m3fn", 450, Mode::rto).flags, kInexact | kOverflow);
}

TEST(OracleSelfTest, RoundToOddAndTiesAway) {
  // e4m3fn around 1: grid step 1/8.
  EXPECT_EQ(code("e4m3fn", 1.0 + 1.0 / 16, Mode::rna), 0x39u);
  EXPECT_EQ(code("e4m3fn", 1.0 + 1.0 / 16, Mode::rne), 0x38u);
  EXPECT_EQ(code("e4m3fn", 1.0 + 1.0 / 64, Mode::rto), 0x39u);
  EXPECT_EQ(code("e4m3fn", 1.125 + 1.0 / 64, Mode::rto), 0x39u);
  EXPECT_EQ(code("e4m3fn", -(1.0 + 1.0 / 64), Mode::rto), 0xb9u);
  EXPECT_EQ(code("e4m3fn", 1.0, Mode::rto), 0x38u);
  EXPECT_EQ(code("e8m0fnu", 3.0, Mode::rto), 0x80u);  // precision 1: the kept bit is always 1
}

// rnz (round to nearest, ties toward zero; CPFloat CPFLOAT_RND_NZ), values derived by hand: e4m3fn
// near 1 has ulp 2^-3, so 1.1875 = 1 + 1.5 ulp is the tie of 1.125 (0x39, odd) and 1.25 (0x3a, even).
TEST(OracleSelf, RnzTiesGoTowardZero) {
  EXPECT_EQ(code("e4m3fn", 1.1875, Mode::rnz), 0x39u);
  EXPECT_EQ(code("e4m3fn", 1.1875, Mode::rne), 0x3au);
  EXPECT_EQ(code("e4m3fn", -1.1875, Mode::rnz), 0xb9u);
  EXPECT_EQ(code("e4m3fn", 1.1875 + 1.0 / 1024, Mode::rnz), 0x3au);  // above the tie: nearest
  EXPECT_EQ(code("e4m3fn", 1.3125, Mode::rnz), 0x3au);                // 2.5 ulp: tie of 1.25 and 1.375 → 1.25
  EXPECT_EQ(code("e4m3fn", 3 * std::ldexp(1, -10), Mode::rnz), 0x01u);  // 1.5 quanta of 2^-9 → 1
  EXPECT_EQ(conv("e4m3fn", std::ldexp(1, -10), Mode::rnz).code, 0x00u);  // 0.5 quanta → 0
  EXPECT_EQ(conv("e4m3fn", std::ldexp(1, -10), Mode::rnz).flags, kInexact | kUnderflow);
  // e5m2: max 57344 (mantissa 11); 61440 is the tie of max and 2^16: rnz keeps max without overflow
  EXPECT_EQ(conv("e5m2", 61440, Mode::rnz).code, 0x7bu);
  EXPECT_EQ(conv("e5m2", 61440, Mode::rnz).flags, kInexact);
  EXPECT_EQ(code("e5m2", 61440, Mode::rne), 0x7cu);
  // e2m1fn: DeepGEMM's _quantize_to_fp4_e2m1 (deep_gemm/utils/math.py:73-82 at 54e2261) counts the
  // midpoints strictly below |x|, so every midpoint goes down
  const double mids[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};
  for (int k = 0; k < 7; ++k) EXPECT_EQ(code("e2m1fn", mids[k], Mode::rnz), static_cast<std::uint64_t>(k)) << mids[k];
}

// rnu (round to nearest, ties toward +Inf; AMD Quark's DPU_ROUND, bfp_kernel.cc:34-36 at 1d27b55), by hand:
// e4m3fn 1.1875 (tie of 1.125 and 1.25) -> 1.25, -1.1875 -> -1.125; e5m2 +61440 (tie of max and 2^16) overflows
// to +Inf, -61440 keeps -max; e2m1fn -2.5 -> -2 (0xc), 2.5 -> 3 (0x5).
TEST(OracleSelf, RnuTiesGoTowardPlusInfinity) {
  EXPECT_EQ(code("e4m3fn", 1.1875, Mode::rnu), 0x3au);
  EXPECT_EQ(code("e4m3fn", -1.1875, Mode::rnu), 0xb9u);
  EXPECT_EQ(code("e4m3fn", -1.1875 - 1.0 / 1024, Mode::rnu), 0xbau);  // below the tie: nearest
  EXPECT_EQ(conv("e5m2", 61440, Mode::rnu).code, 0x7cu);
  EXPECT_EQ(conv("e5m2", 61440, Mode::rnu).flags, kInexact | kOverflow);
  EXPECT_EQ(conv("e5m2", -61440, Mode::rnu).code, 0xfbu);
  EXPECT_EQ(conv("e5m2", -61440, Mode::rnu).flags, kInexact);
  EXPECT_EQ(code("e2m1fn", -2.5, Mode::rnu), 0xcu);
  EXPECT_EQ(code("e2m1fn", 2.5, Mode::rnu), 0x5u);
  EXPECT_EQ(code("e4m3fn", -std::ldexp(1, -10), Mode::rnu), 0x80u);  // tie of -0 and -2^-9 -> -0
}

}  // namespace
}  // namespace minifloat_test::oracle
