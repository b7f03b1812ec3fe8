// SPDX-License-Identifier: Apache-2.0
// traps_test.cpp: the conversion traps of spec-digest §11 as named tests. Every expected code is
// the one the digest gives with its source ([RUN] CUDA host code / ml_dtypes / exact arithmetic).
// Block-scale, stochastic-rounding, packing and Philox traps (T14, T16–T18, T20, T25) live with
// the block, SR and RNG tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "minifloat/minifloat.hpp"

namespace {
using namespace minifloat;

constexpr RoundingSpec kRne{Rounding::rne, Overflow::nonsat};
constexpr RoundingSpec kRneSat{Rounding::rne, Overflow::satfinite};

std::uint64_t f32(std::uint32_t bits, Format to, RoundingSpec spec = kRne, Profile p = profiles::ocp) {
  return convert(formats::f32, bits, to, spec, p).code;
}
std::uint64_t f64(double v, Format to, RoundingSpec spec = kRne, Profile p = profiles::ocp) {
  return from_double(v, to, spec, p).code;
}

TEST(Traps, T01_e4m3fn_464_is_a_tie_to_448) {
  EXPECT_EQ(f32(0x43E80000, formats::e4m3fn), 0x7eu);
  EXPECT_EQ(f32(0x43E80000, formats::e4m3fn, kRneSat), 0x7eu);
}
TEST(Traps, T02_e4m3fn_first_float_above_464_overflows) {
  EXPECT_EQ(f32(0x43E80001, formats::e4m3fn), 0x7fu);
  EXPECT_EQ(f32(0x43E80001, formats::e4m3fn, kRneSat), 0x7eu);
}
TEST(Traps, T02_negative_overflow_nan_keeps_its_sign_under_every_profile) {
  // CUDA __nv_cvt_double_to_fp8 NOSAT: overflow sets 0x7F then ORs the sign (found by the NVIDIA
  // host-oracle test); only NaN *inputs* lose their sign in CUDA's float API.
  for (Profile p : {profiles::ocp, profiles::nvidia, profiles::ml_dtypes}) {
    EXPECT_EQ(f32(0xC3E80001, formats::e4m3fn, kRne, p), 0xffu);
    EXPECT_EQ(f32(0xFF800000, formats::e4m3fn, kRne, p), 0xffu);
  }
}
TEST(Traps, T03_e5m2_61440_overflows) {
  EXPECT_EQ(f32(0x47700000, formats::e5m2), 0x7cu);
  EXPECT_EQ(f32(0x47700000, formats::e5m2, kRneSat), 0x7bu);
  EXPECT_EQ(f32(0x476FFFFF, formats::e5m2), 0x7bu);
}
TEST(Traps, T04_infinity_sat_and_nonsat) {
  EXPECT_EQ(f32(0x7F800000, formats::e4m3fn, kRneSat), 0x7eu);
  EXPECT_EQ(f32(0xFF800000, formats::e4m3fn, kRneSat), 0xfeu);
  EXPECT_EQ(f32(0x7F800000, formats::e5m2, kRneSat), 0x7bu);
  EXPECT_EQ(f32(0xFF800000, formats::e5m2, kRneSat), 0xfbu);
  EXPECT_EQ(f32(0x7F800000, formats::e4m3fn), 0x7fu);
  EXPECT_EQ(f32(0xFF800000, formats::e4m3fn), 0xffu);
  EXPECT_EQ(f32(0x7F800000, formats::e5m2), 0x7cu);
  EXPECT_EQ(f32(0xFF800000, formats::e5m2), 0xfcu);
  // ml_dtypes kSaturate keeps Inf → NaN for e4m3fn: our satpropagate.
  EXPECT_EQ(f32(0x7F800000, formats::e4m3fn, {Rounding::rne, Overflow::satpropagate}), 0x7fu);
}
TEST(Traps, T05_negative_nan_per_profile) {
  EXPECT_EQ(f32(0xFFC00000, formats::e4m3fn, kRne, profiles::nvidia), 0x7fu);
  EXPECT_EQ(f32(0xFFC00000, formats::e5m2, kRne, profiles::nvidia), 0x7fu);
  EXPECT_EQ(f32(0xFFC00000, formats::e4m3fn, kRne, profiles::ml_dtypes), 0xffu);
  EXPECT_EQ(f32(0xFFC00000, formats::e5m2, kRne, profiles::ml_dtypes), 0xfeu);
  EXPECT_EQ(f32(0xFFC00000, formats::e4m3fn), 0xffu);  // ocp: sign kept
  EXPECT_EQ(f32(0xFFC00000, formats::e5m2), 0xfeu);
}
TEST(Traps, T06_e4m3fn_half_min_subnormal_ties_to_zero) {
  EXPECT_EQ(f32(0x3A800000, formats::e4m3fn), 0x00u);
  EXPECT_EQ(f64(0x1p-10 + 0x1p-40, formats::e4m3fn), 0x01u);
  EXPECT_EQ(f64(3 * 0x1p-10, formats::e4m3fn), 0x02u);
  EXPECT_EQ(f64(-0x1p-10, formats::e4m3fn), 0x80u);
}
TEST(Traps, T07_fnuz_and_p3109_never_produce_negative_zero) {
  for (Format f : {formats::e4m3fnuz, formats::e5m2fnuz, p3109(8, 3, Signedness::signed_, P3109Domain::extended), p3109(8, 4, Signedness::signed_, P3109Domain::finite)}) {
    EXPECT_EQ(f32(0x80000000, f), 0x00u);
    EXPECT_EQ(f64(-1e-9, f), 0x00u);
  }
  EXPECT_EQ(f32(0x80000000, formats::e4m3fn), 0x80u);
}
TEST(Traps, T08_e4m3fnuz_248_overflows) {
  EXPECT_EQ(f32(0x43780000, formats::e4m3fnuz), 0x80u);
  EXPECT_EQ(f32(0x43780000, formats::e4m3fnuz, kRneSat), 0x7fu);
  Profile hip = profiles::ocp;
  hip.fnuz_overflow = FnuzOverflow::hip_max_exponent;
  EXPECT_EQ(f32(0x43780000, formats::e4m3fnuz, kRne, hip), 0x78u);
}
TEST(Traps, T09_zero_into_e8m0fnu) {
  EXPECT_EQ(f64(0.0, formats::e8m0fnu, {Rounding::rtz}), 0x00u);
  EXPECT_EQ(f64(0.0, formats::e8m0fnu, {Rounding::rtp}), 0x00u);
  EXPECT_EQ(f64(0.0, formats::e8m0fnu, kRne, profiles::ml_dtypes), 0xffu);
  EXPECT_EQ(f64(0.0, formats::e8m0fnu, kRneSat, profiles::ml_dtypes), 0x00u);  // mld sat 0x00 (found by a user test)
  const RoundResult r = from_double(0.0, formats::e8m0fnu);
  EXPECT_EQ(r.code, 0x00u);
  EXPECT_EQ(r.flags, flag_underflow | flag_inexact);
}
TEST(Traps, T10_e8m0fnu_three_power_of_two_rules) {
  EXPECT_EQ(f32(0x40400000, formats::e8m0fnu, {Rounding::rtz}), 0x80u);
  EXPECT_EQ(f32(0x40400000, formats::e8m0fnu, {Rounding::rtp}), 0x81u);
  EXPECT_EQ(f32(0x40400000, formats::e8m0fnu, kRne, profiles::ml_dtypes), 0x81u);
  EXPECT_EQ(f32(0x3FC00000, formats::e8m0fnu, {Rounding::rtz}), 0x7fu);
  EXPECT_EQ(f32(0x3FC00000, formats::e8m0fnu, {Rounding::rtp}), 0x80u);
  EXPECT_EQ(f32(0x3FC00000, formats::e8m0fnu), 0x80u);  // ties up
  EXPECT_EQ(f64(-4.0, formats::e8m0fnu, {Rounding::rtz}, profiles::nvidia), 0x81u);
  EXPECT_EQ(f64(-4.0, formats::e8m0fnu, kRne, profiles::ml_dtypes), 0xffu);
  const RoundResult r = from_double(-4.0, formats::e8m0fnu);  // ocp: NaN, invalid
  EXPECT_EQ(r.code, 0xffu);
  EXPECT_EQ(r.flags, flag_invalid);
}
TEST(Traps, T11_no_double_rounding_from_f64) {
  const double x = 1.0625 + 0x1p-40;
  EXPECT_EQ(f64(x, formats::e4m3fn), 0x39u);                              // direct
  EXPECT_EQ(f64(x, formats::e4m3fn, kRne, profiles::ml_dtypes), 0x38u);  // via f32 (NumPy arrays)
  EXPECT_EQ(f64(static_cast<double>(static_cast<float>(x)), formats::e4m3fn), 0x38u);
}
TEST(Traps, T12_e2m1fn_ties) {
  const double in[] = {0.25, 1.25, 2.5, 5.0};
  const std::uint64_t rne[] = {0x0, 0x2, 0x4, 0x6}, rna[] = {0x1, 0x3, 0x5, 0x7};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(f64(in[i], formats::e2m1fn), rne[i]) << in[i];
    EXPECT_EQ(f64(in[i], formats::e2m1fn, {Rounding::rna}), rna[i]) << in[i];
  }
}
TEST(Traps, T13_nan_into_fp6_fp4) {
  EXPECT_EQ(f32(0x7FC00000, formats::e2m3fn, kRne, profiles::nvidia), 0x1fu);
  EXPECT_EQ(f32(0xFFC00000, formats::e2m3fn, kRne, profiles::nvidia), 0x1fu);
  EXPECT_EQ(f32(0x7FC00000, formats::e2m1fn, kRne, profiles::nvidia), 0x7u);
  EXPECT_EQ(f32(0x7FC00000, formats::e2m3fn, kRne, profiles::ml_dtypes), 0x20u);
  EXPECT_EQ(f32(0x7FC00000, formats::e2m1fn, kRne, profiles::ml_dtypes), 0x8u);
  EXPECT_EQ(f32(0xFFC00000, formats::e2m1fn, kRne, profiles::ml_dtypes), 0x0u);
  const RoundResult r = convert(formats::f32, 0x7FC00000, formats::e2m1fn);  // ocp: +max, invalid
  EXPECT_EQ(r.code, 0x7u);
  EXPECT_EQ(r.flags, flag_invalid);
}
TEST(Traps, T15_e8m0fnu_0x00_decodes_to_an_f32_subnormal) {
  EXPECT_EQ(convert(formats::e8m0fnu, 0x00, formats::f32).code, 0x00400000u);
  EXPECT_EQ(convert(formats::e8m0fnu, 0x00, formats::bf16).code, 0x0040u);
  Profile ftz = profiles::ocp;
  ftz.decode_ftz = true;
  EXPECT_EQ(convert(formats::e8m0fnu, 0x00, formats::f32, kRne, ftz).code, 0x0u);
}
TEST(Traps, T19_hip_fnuz_nosat_quirk) {
  Profile hip = profiles::ocp;
  hip.fnuz_overflow = FnuzOverflow::hip_max_exponent;
  EXPECT_EQ(f32(0x447A0000, formats::e4m3fnuz, kRne, hip), 0x78u);
  EXPECT_EQ(f64(-1000.0, formats::e4m3fnuz, kRne, hip), 0xf8u);
  EXPECT_EQ(f32(0x447A0000, formats::e4m3fnuz), 0x80u);
  EXPECT_EQ(f32(0x447A0000, formats::e4m3fnuz, kRneSat), 0x7fu);
}
TEST(Traps, T21_p3109_codes_differ_from_ocp) {
  EXPECT_EQ(f64(1.0, p3109(8, 3, Signedness::signed_, P3109Domain::extended)), 0x40u);
  EXPECT_EQ(f64(1.0, formats::e5m2), 0x3cu);
  EXPECT_EQ(f64(1.0, p3109(8, 4, Signedness::signed_, P3109Domain::extended)), 0x40u);
  EXPECT_EQ(f64(2.0, p3109(8, 4, Signedness::signed_, P3109Domain::extended)), 0x48u);
  EXPECT_EQ(f64(1.0, formats::e4m3fn), 0x38u);
}
TEST(Traps, T22_p3109_satnone_directed) {
  const Format f = p3109(8, 3, Signedness::signed_, P3109Domain::extended);
  EXPECT_EQ(f64(1e6, f), 0x7fu);
  EXPECT_EQ(f64(1e6, f, {Rounding::rtz}), 0x7eu);
  EXPECT_EQ(to_double(f, 0x7e), 49152.0);
  for (Rounding r : {Rounding::rne, Rounding::rna, Rounding::rtz, Rounding::rtp, Rounding::rtn, Rounding::rto})
    EXPECT_EQ(f64(1e6, f, {r, Overflow::satfinite}), 0x7eu);
  // negative into unsigned under SatNone → NaN (v4.0), SatFinite → 0
  const Format u = p3109(8, 3, Signedness::unsigned_, P3109Domain::extended);
  EXPECT_EQ(f64(-1.0, u, kRne, profiles::p3109), 0xffu);
  EXPECT_EQ(f64(-1.0, u, kRneSat, profiles::p3109), 0x00u);
}
TEST(Traps, T23_flt_max_into_e8m0fnu) {
  EXPECT_EQ(f32(0x7F7FFFFF, formats::e8m0fnu, {Rounding::rtz}), 0xfeu);
  EXPECT_EQ(f32(0x7F7FFFFF, formats::e8m0fnu, {Rounding::rtp, Overflow::satfinite}), 0xfeu);
  EXPECT_EQ(f32(0x7F7FFFFF, formats::e8m0fnu, {Rounding::rtp, Overflow::nonsat}), 0xffu);
  EXPECT_EQ(f32(0x7F7FFFFF, formats::e8m0fnu, kRne, profiles::ml_dtypes), 0xffu);
  EXPECT_EQ(f32(0x7F7FFFFF, formats::e8m0fnu, kRneSat, profiles::ml_dtypes), 0xfeu);
}
TEST(Traps, T24_e8m0fnu_f32_subnormal_inputs) {
  EXPECT_EQ(f32(0x00400001, formats::e8m0fnu, {Rounding::rtp}), 0x01u);
  EXPECT_EQ(f32(0x00400001, formats::e8m0fnu, {Rounding::rtz}), 0x00u);
  EXPECT_EQ(f64(0x1p-130, formats::e8m0fnu, {Rounding::rtp}), 0x00u);
  EXPECT_EQ(f32(0x00400000, formats::e8m0fnu, {Rounding::rtp}), 0x00u);
}
TEST(Traps, T26_fp6_just_above_the_other_formats_max) {
  EXPECT_EQ(f32(0x40F80000, formats::e3m2fn), 0x18u);
  EXPECT_EQ(f32(0x40F80000, formats::e3m2fn, {Rounding::rtz}), 0x17u);
  EXPECT_EQ(f32(0x40F80000, formats::e2m3fn), 0x1fu);
  EXPECT_EQ(f32(0x40F80000, formats::e2m3fn, {Rounding::rtz}), 0x1fu);
}

// Issue 2 "Defaults to implement exactly": directed modes with nonsat follow IEEE 754 §7.4.
TEST(Defaults, DirectedOverflowUnderNonsat) {
  EXPECT_EQ(f64(1e6, formats::e5m2, {Rounding::rtz}), 0x7bu);
  EXPECT_EQ(f64(1e6, formats::e5m2, {Rounding::rtp}), 0x7cu);
  EXPECT_EQ(f64(-1e6, formats::e5m2, {Rounding::rtp}), 0xfbu);
  EXPECT_EQ(f64(-1e6, formats::e5m2, {Rounding::rtn}), 0xfcu);
  EXPECT_EQ(f64(1e6, formats::e5m2, {Rounding::rtn}), 0x7bu);
  EXPECT_EQ(f64(1e6, formats::e5m2, {Rounding::rto}), 0x7bu);
  EXPECT_EQ(f64(1e6, formats::e4m3fn, {Rounding::rtp}), 0x7fu);  // NaN where there is no Inf
  EXPECT_EQ(f64(1e6, formats::e2m1fn, {Rounding::rtp}), 0x7u);   // neither: saturate
}
TEST(Defaults, RoundToOddIsTruncationWithSticky) {
  // 1.0625 lies between 1.0 (0x38) and 1.125 (0x39) in e4m3fn: rto picks the odd code 0x39.
  EXPECT_EQ(f64(1.0625, formats::e4m3fn, {Rounding::rto}), 0x39u);
  EXPECT_EQ(f64(1.1875, formats::e4m3fn, {Rounding::rto}), 0x39u);  // between 0x39 and 0x3a
  EXPECT_EQ(f64(1.0, formats::e4m3fn, {Rounding::rto}), 0x38u);     // exact stays
}
TEST(Defaults, UnderflowFlagIsAfterRounding) {
  // e4m3fn min normal 2^-6; max subnormal 0.875·2^-6. A value just below 2^-6 that rounds
  // (with unbounded exponent, 4 bits) up to 2^-6 is not tiny after rounding.
  const RoundResult r = from_double(0x1p-6 * (1 - 0x1p-6), formats::e4m3fn);
  EXPECT_EQ(r.code, 0x08u);
  EXPECT_EQ(r.flags, flag_inexact);
  const RoundResult s = from_double(0x1p-6 * 0.9, formats::e4m3fn);
  EXPECT_EQ(s.flags, flag_inexact | flag_underflow);
}

}  // namespace
