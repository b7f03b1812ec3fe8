// SPDX-License-Identifier: Apache-2.0
// nearest_oracle_test.cpp: pins the sweep's independent oracle to the specs' literal numbers and
// the traps of spec-digest §11 (expected values come from the specs, never from the engine).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "nearest_oracle.hpp"

namespace minifloat_test::sweep {
namespace {

const NearestOracle& oracle(std::string_view name) {
  static std::vector<NearestOracle> all = [] {
    std::vector<NearestOracle> v;
    for (const FormatSpec& f : sweep_formats()) v.emplace_back(f);
    return v;
  }();
  for (const NearestOracle& o : all)
    if (o.spec().name == name) return o;
  ADD_FAILURE() << "no format " << name;
  return all.front();
}

std::uint32_t code(std::string_view fmt, double v, Mode m = Mode::rne, Policy p = Policy::nonsat) {
  return oracle(fmt).round(v, m, p).code;
}
std::uint32_t code32(std::string_view fmt, std::uint32_t bits, Mode m = Mode::rne, Policy p = Policy::nonsat) {
  return oracle(fmt).round_f32(bits, m, p).code;
}

// OFP8 Table 1, OCP MX §5, ml_dtypes float8.h, NVFP4 .ue4m3 (spec-digest §1.1, §2.1, §5.1, §5.2, §4.3).
TEST(SweepOracle, LimitsFromTheSpecs) {
  struct Row {
    const char* name;
    double max;
    std::uint32_t max_code;
    double min_positive;
    std::size_t finite_magnitudes;
  };
  const Row rows[] = {
      {"e4m3fn", 448, 0x7e, std::ldexp(1, -9), 127},   {"e5m2", 57344, 0x7b, std::ldexp(1, -16), 124},
      {"e4m3fnuz", 240, 0x7f, std::ldexp(1, -10), 128}, {"e5m2fnuz", 57344, 0x7f, std::ldexp(1, -17), 128},
      {"e4m3b11fnuz", 30, 0x7f, std::ldexp(1, -13), 128}, {"e4m3", 240, 0x77, std::ldexp(1, -9), 120},
      {"e3m4", 15.5, 0x6f, std::ldexp(1, -6), 112},     {"e3m2fn", 28, 0x1f, 0.0625, 32},
      {"e2m3fn", 7.5, 0x1f, 0.125, 32},                 {"e2m1fn", 6, 0x7, 0.5, 8},
      {"e8m0fnu", std::ldexp(1, 127), 0xfe, std::ldexp(1, -127), 255}, {"ue4m3", 448, 0x7e, std::ldexp(1, -9), 127},
      {"ue5m3", 114688, 0xfe, std::ldexp(1, -17), 255},  // 1.75·2^16; 2^−14 · 1/8; codes 0x00..0xfe
  };
  ASSERT_EQ(sweep_formats().size(), std::size(rows));
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    const NearestOracle& o = oracle(r.name);
    EXPECT_EQ(o.max_value(), r.max);
    EXPECT_EQ(o.max_code(), r.max_code);
    const std::vector<double> v = o.finite_values();
    EXPECT_EQ(v.size(), r.finite_magnitudes);
    EXPECT_EQ(v[0] == 0 ? v[1] : v[0], r.min_positive);
  }
  EXPECT_EQ(oracle("e2m1fn").finite_values(), (std::vector<double>{0, 0.5, 1, 1.5, 2, 3, 4, 6}));
}

TEST(SweepOracle, OneAndExactValues) {
  EXPECT_EQ(code("e4m3fn", 1.0), 0x38u);
  EXPECT_EQ(code("e5m2", 1.0), 0x3cu);
  EXPECT_EQ(code("e4m3fnuz", 1.0), 0x40u);
  EXPECT_EQ(code("e5m2fnuz", 1.0), 0x40u);
  EXPECT_EQ(code("e8m0fnu", 1.0), 0x7fu);
  EXPECT_EQ(code("e4m3fn", -448), 0xfeu);
  EXPECT_EQ(code("e5m2", std::ldexp(1, -14)), 0x04u);  // min normal
  EXPECT_EQ(code("e4m3fn", std::ldexp(1, -6)), 0x08u);
  EXPECT_FALSE(oracle("e4m3fn").round(448, Mode::rne, Policy::nonsat).inexact);
}

// Traps T1–T4 (spec-digest §11): the e4m3fn/e5m2 overflow thresholds are asymmetric.
TEST(SweepOracle, OverflowThresholdsT1toT4) {
  for (Policy p : {Policy::nonsat, Policy::satfinite}) EXPECT_EQ(code32("e4m3fn", 0x43e80000, Mode::rne, p), 0x7eu);
  EXPECT_EQ(code32("e4m3fn", 0x43e80001, Mode::rne, Policy::nonsat), 0x7fu);
  EXPECT_EQ(code32("e4m3fn", 0x43e80001, Mode::rne, Policy::satfinite), 0x7eu);
  EXPECT_EQ(code32("e5m2", 0x47700000, Mode::rne, Policy::nonsat), 0x7cu);
  EXPECT_EQ(code32("e5m2", 0x47700000, Mode::rne, Policy::satfinite), 0x7bu);
  EXPECT_EQ(code32("e5m2", 0x476fffff, Mode::rne, Policy::nonsat), 0x7bu);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(code("e4m3fn", inf, Mode::rne, Policy::satfinite), 0x7eu);
  EXPECT_EQ(code("e4m3fn", -inf, Mode::rne, Policy::satfinite), 0xfeu);
  EXPECT_EQ(code("e4m3fn", inf, Mode::rne, Policy::nonsat), 0x7fu);
  EXPECT_EQ(code("e4m3fn", -inf, Mode::rne, Policy::nonsat), 0xffu);
  EXPECT_EQ(code("e5m2", inf, Mode::rne, Policy::satfinite), 0x7bu);
  EXPECT_EQ(code("e5m2", -inf, Mode::rne, Policy::satfinite), 0xfbu);
  EXPECT_EQ(code("e5m2", inf, Mode::rne, Policy::nonsat), 0x7cu);
  EXPECT_EQ(code("e5m2", -inf, Mode::rne, Policy::nonsat), 0xfcu);
  EXPECT_EQ(code("e5m2", -inf, Mode::rne, Policy::satpropagate), 0xfcu);
  // Flags: 464 is a tie that stays finite (inexact only); 500 overflows.
  const OracleResult t1 = oracle("e4m3fn").round(464, Mode::rne, Policy::nonsat);
  EXPECT_TRUE(t1.inexact);
  EXPECT_FALSE(t1.overflow);
  EXPECT_TRUE(oracle("e4m3fn").round(500, Mode::rne, Policy::satfinite).overflow);
  EXPECT_EQ(code("e4m3fn", 500, Mode::rne, Policy::satfinite), 0x7eu);  // issue "must show"
}

// NaN defaults of the ocp profile (issue 2) and trap T13.
TEST(SweepOracle, NanDefaults) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(code("e4m3fn", nan), 0x7fu);
  EXPECT_EQ(code("e4m3fn", -nan), 0xffu);
  EXPECT_EQ(code("e5m2", nan), 0x7eu);
  EXPECT_EQ(code("e5m2", -nan), 0xfeu);
  EXPECT_EQ(code("e4m3fnuz", -nan), 0x80u);
  EXPECT_EQ(code("e5m2fnuz", nan), 0x80u);
  EXPECT_EQ(code("e2m3fn", -nan), 0x1fu);
  EXPECT_EQ(code("e2m1fn", nan), 0x7u);
  EXPECT_EQ(code("e8m0fnu", nan), 0xffu);
  EXPECT_EQ(code32("e4m3fn", 0xffc00000), 0xffu);
  EXPECT_EQ(code32("e4m3fn", 0x7f800001), 0x7fu);  // signalling NaN pattern
}

// T6, T7: underflow ties and the sign of zero.
TEST(SweepOracle, UnderflowAndZeroT6T7) {
  EXPECT_EQ(code32("e4m3fn", 0x3a800000), 0x00u);  // 2^-10: tie to even 0
  EXPECT_EQ(code("e4m3fn", std::ldexp(1, -10) + std::ldexp(1, -40)), 0x01u);
  EXPECT_EQ(code("e4m3fn", 3 * std::ldexp(1, -10)), 0x02u);
  EXPECT_EQ(code("e4m3fn", -std::ldexp(1, -10)), 0x80u);
  EXPECT_EQ(code32("e4m3fn", 0x80000000), 0x80u);
  for (const char* f : {"e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz"}) {
    EXPECT_EQ(code32(f, 0x80000000), 0x00u) << f;
    EXPECT_EQ(code(f, -1e-9), 0x00u) << f;
  }
  EXPECT_EQ(code("e4m3fnuz", -1e-7), 0x00u);  // issue "must show"
  EXPECT_EQ(code("e2m1fn", -0.0), 0x8u);
  EXPECT_EQ(code("e3m2fn", -0.0), 0x20u);
}

// T8: the FNUZ max has an odd mantissa, so 248 is an overflowing tie.
TEST(SweepOracle, FnuzTieOverflowT8) {
  EXPECT_EQ(code32("e4m3fnuz", 0x43780000, Mode::rne, Policy::nonsat), 0x80u);
  EXPECT_EQ(code32("e4m3fnuz", 0x43780000, Mode::rne, Policy::satfinite), 0x7fu);
}

// T9, T10, T23, T24 and the e8m0fnu defaults.
TEST(SweepOracle, E8m0T9T10T23T24) {
  EXPECT_EQ(code("e8m0fnu", 0.0), 0x00u);
  EXPECT_TRUE(oracle("e8m0fnu").round(0.0, Mode::rne, Policy::nonsat).inexact);
  EXPECT_EQ(code("e8m0fnu", 3.0, Mode::rtz), 0x80u);
  EXPECT_EQ(code("e8m0fnu", 3.0, Mode::rtp), 0x81u);
  EXPECT_EQ(code("e8m0fnu", 3.0, Mode::rne), 0x81u);
  EXPECT_EQ(code("e8m0fnu", 1.5, Mode::rtz), 0x7fu);
  EXPECT_EQ(code("e8m0fnu", 1.5, Mode::rtp), 0x80u);
  EXPECT_EQ(code("e8m0fnu", 1.5, Mode::rne), 0x80u);
  EXPECT_EQ(code32("e8m0fnu", 0x3fbfffff, Mode::rne), 0x7fu);  // 1.4999999
  EXPECT_EQ(code("e8m0fnu", 2.5, Mode::rne), 0x80u);
  EXPECT_EQ(code("e8m0fnu", -4.0), 0xffu);
  EXPECT_EQ(code("e8m0fnu", 3.0, Mode::rto), 0x80u);  // a one-bit significand is always odd
  EXPECT_EQ(code32("e8m0fnu", 0x7f7fffff, Mode::rtz, Policy::nonsat), 0xfeu);
  EXPECT_EQ(code32("e8m0fnu", 0x7f7fffff, Mode::rtp, Policy::satfinite), 0xfeu);
  EXPECT_EQ(code32("e8m0fnu", 0x7f7fffff, Mode::rtp, Policy::nonsat), 0xffu);
  EXPECT_EQ(code32("e8m0fnu", 0x7f7fffff, Mode::rne, Policy::nonsat), 0xffu);
  EXPECT_EQ(code32("e8m0fnu", 0x7f7fffff, Mode::rne, Policy::satfinite), 0xfeu);
  EXPECT_EQ(code32("e8m0fnu", 0x00400001, Mode::rtp), 0x01u);
  EXPECT_EQ(code32("e8m0fnu", 0x00400001, Mode::rtz), 0x00u);
  EXPECT_EQ(code32("e8m0fnu", 0x00400000, Mode::rtp), 0x00u);
  EXPECT_EQ(code("e8m0fnu", std::ldexp(1, -130), Mode::rtp), 0x00u);
}

// T12 and T26: the FP4/FP6 grids.
TEST(SweepOracle, Fp4Fp6T12T26) {
  const double in[] = {0.25, 1.25, 2.5, 5.0};
  const std::uint32_t rne[] = {0x0, 0x2, 0x4, 0x6}, rna[] = {0x1, 0x3, 0x5, 0x7};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(code("e2m1fn", in[i], Mode::rne), rne[i]) << in[i];
    EXPECT_EQ(code("e2m1fn", in[i], Mode::rna), rna[i]) << in[i];
  }
  EXPECT_EQ(code("e2m1fn", 0.75, Mode::rne), 0x2u);
  EXPECT_EQ(code("e2m1fn", 0.75, Mode::rtz), 0x1u);
  EXPECT_EQ(code32("e3m2fn", 0x40f80000, Mode::rne), 0x18u);
  EXPECT_EQ(code32("e3m2fn", 0x40f80000, Mode::rtz), 0x17u);
  EXPECT_EQ(code32("e2m3fn", 0x40f80000, Mode::rne), 0x1fu);
  EXPECT_EQ(code32("e2m3fn", 0x40f80000, Mode::rtz), 0x1fu);
  EXPECT_EQ(code("e2m1fn", 100.0, Mode::rne, Policy::nonsat), 0x7u);  // FP4/FP6 always saturate
  EXPECT_EQ(code("e2m1fn", -std::numeric_limits<double>::infinity()), 0xfu);
}

// IEEE 754 §7.4 directed overflow and round-to-odd (issue 2 defaults).
TEST(SweepOracle, DirectedOverflowAndRoundToOdd) {
  EXPECT_EQ(code("e5m2", 1e6, Mode::rtz), 0x7bu);
  EXPECT_EQ(code("e5m2", 1e6, Mode::rtp), 0x7cu);
  EXPECT_EQ(code("e5m2", -1e6, Mode::rtp), 0xfbu);
  EXPECT_EQ(code("e5m2", -1e6, Mode::rtn), 0xfcu);
  EXPECT_EQ(code("e5m2", 1e6, Mode::rtn), 0x7bu);
  EXPECT_EQ(code("e5m2", 1e6, Mode::rto), 0x7bu);
  EXPECT_EQ(code("e4m3fn", 1000, Mode::rtp), 0x7fu);
  EXPECT_EQ(code("e4m3fn", 1000, Mode::rtz), 0x7eu);
  EXPECT_EQ(code("e4m3fn", 1.0 + std::ldexp(1, -5), Mode::rto), 0x39u);
  EXPECT_EQ(code("e4m3fn", 1.125 + std::ldexp(1, -5), Mode::rto), 0x39u);
  EXPECT_EQ(code("e4m3fn", 1.0, Mode::rto), 0x38u);
  const OracleResult o = oracle("e4m3fn").round(470, Mode::rto, Policy::nonsat);  // odd neighbour 480 overflows
  EXPECT_EQ(o.code, 0x7eu);
  EXPECT_TRUE(o.overflow);
  EXPECT_EQ(code("e5m2", 60000, Mode::rto), 0x7bu);
  EXPECT_FALSE(oracle("e5m2").round(60000, Mode::rto, Policy::nonsat).overflow);
  EXPECT_EQ(code("e4m3fn", 464, Mode::rna), 0x7fu);
}

TEST(SweepOracle, Ue4m3) {
  EXPECT_EQ(code("ue4m3", 464), 0x7eu);
  EXPECT_EQ(code("ue4m3", 465, Mode::rne, Policy::satfinite), 0x7eu);
  EXPECT_EQ(code("ue4m3", 465, Mode::rne, Policy::nonsat), 0x7fu);
  EXPECT_EQ(code("ue4m3", -1.0), 0x7fu);
  EXPECT_EQ(code("ue4m3", -0.0), 0x00u);
  EXPECT_EQ(code("ue4m3", 1.0), 0x38u);
}

}  // namespace

// rnz (nearest, ties toward zero; issue 25 item 5, CPFloat CPFLOAT_RND_NZ), by hand from the grids: e2m1fn
// ties 0.25 (0|0.5), 0.75 (0.5|1), 1.25 (1|1.5), 2.5 (2|3), 5 (4|6) keep the smaller magnitude, either sign;
// just above a tie rounds away. At max + ulp/2 (e4m3fn 464, e5m2 61440) the tie stays at max (no overflow);
// just above it overflows as the nearest modes do (nonsat: e4m3fn NaN 0x7f, e5m2 Inf 0x7c).
TEST(SweepOracle, RnzTiesTowardZero) {
  const double in[] = {0.25, 0.75, 1.25, 2.5, 5.0};
  const std::uint32_t rnz[] = {0x0, 0x1, 0x2, 0x4, 0x6};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(code("e2m1fn", in[i], Mode::rnz), rnz[i]) << in[i];
    EXPECT_EQ(code("e2m1fn", -in[i], Mode::rnz), rnz[i] | 0x8u) << -in[i];
  }
  EXPECT_EQ(code32("e2m1fn", 0x40200001, Mode::rnz), 0x5u);  // 2.5 + 1 ulp → 3
  EXPECT_EQ(code32("e2m1fn", 0x401fffff, Mode::rnz), 0x4u);  // 2.5 − 1 ulp → 2
  EXPECT_EQ(code("e4m3fn", 464, Mode::rnz, Policy::nonsat), 0x7eu);
  EXPECT_FALSE(oracle("e4m3fn").round(464, Mode::rnz, Policy::nonsat).overflow);
  EXPECT_EQ(code32("e4m3fn", 0x43e80001, Mode::rnz, Policy::nonsat), 0x7fu);
  EXPECT_EQ(code("e5m2", 61440, Mode::rnz, Policy::nonsat), 0x7bu);
  EXPECT_EQ(code32("e5m2", 0x47700001, Mode::rnz, Policy::nonsat), 0x7cu);
  EXPECT_EQ(code("e8m0fnu", 3.0, Mode::rnz), 0x80u);  // 3 = tie of 2|4 → 2 (code 128)
  Mode m{};
  EXPECT_TRUE(parse_mode("rnz", m));
  EXPECT_EQ(m, Mode::rnz);
  EXPECT_EQ(mode_name(Mode::rnz), "rnz");
}

// rnu (nearest, ties toward +Inf; AMD Quark's DPU_ROUND, bfp_kernel.cc:34-36 at 1d27b55), by hand from the
// grids: e2m1fn +2.5 -> 3 (0x5), -2.5 -> -2 (0xc), +0.25 -> 0.5, -0.25 -> -0; e4m3fn +464 (max + ulp/2) overflows
// (nonsat: NaN 0x7f), -464 keeps -max (0xfe); e5m2 +61440 -> Inf 0x7c, -61440 -> -max 0xfb.
TEST(SweepOracle, RnuTiesTowardPlusInfinity) {
  EXPECT_EQ(code("e2m1fn", 2.5, Mode::rnu), 0x5u);
  EXPECT_EQ(code("e2m1fn", -2.5, Mode::rnu), 0xcu);
  EXPECT_EQ(code("e2m1fn", 0.25, Mode::rnu), 0x1u);
  EXPECT_EQ(code("e2m1fn", -0.25, Mode::rnu), 0x8u);
  EXPECT_EQ(code("e4m3fn", 464, Mode::rnu, Policy::nonsat), 0x7fu);
  EXPECT_EQ(code("e4m3fn", -464, Mode::rnu, Policy::nonsat), 0xfeu);
  EXPECT_EQ(code("e5m2", 61440, Mode::rnu, Policy::nonsat), 0x7cu);
  EXPECT_EQ(code("e5m2", -61440, Mode::rnu, Policy::nonsat), 0xfbu);
  Mode m{};
  EXPECT_TRUE(parse_mode("rnu", m));
  EXPECT_EQ(m, Mode::rnu);
}

}  // namespace minifloat_test::sweep
