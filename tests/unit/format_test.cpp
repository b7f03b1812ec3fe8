// SPDX-License-Identifier: Apache-2.0
// format_test.cpp: the derived limits of every named format pinned to the specs' literal numbers
// (OCP OFP8 v1.0 Table 1, OCP MX v1.0 §5, ml_dtypes float8.h, IEEE P3109 v4.0 Annex B).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "minifloat/minifloat.hpp"

namespace {
using namespace minifloat;

struct Limits {
  const char* name;
  Format f;
  double max, min_normal, min_subnormal;  // min_subnormal = 0 when the format has none
  int max_code, one_code;
};

// Every number here is copied from the cited spec table, not computed.
const Limits kLimits[] = {
    {"e4m3fn", formats::e4m3fn, 448, 0x1p-6, 0x1p-9, 0x7e, 0x38},
    {"e5m2", formats::e5m2, 57344, 0x1p-14, 0x1p-16, 0x7b, 0x3c},
    {"e4m3fnuz", formats::e4m3fnuz, 240, 0x1p-7, 0x1p-10, 0x7f, 0x40},
    {"e5m2fnuz", formats::e5m2fnuz, 57344, 0x1p-15, 0x1p-17, 0x7f, 0x40},
    {"e4m3b11fnuz", formats::e4m3b11fnuz, 30, 0x1p-10, 0x1p-13, 0x7f, 0x58},
    {"e4m3", formats::e4m3, 240, 0x1p-6, 0x1p-9, 0x77, 0x38},
    {"e3m4", formats::e3m4, 15.5, 0x1p-2, 0x1p-6, 0x6f, 0x30},
    {"e3m2fn", formats::e3m2fn, 28, 0.25, 0.0625, 0x1f, 0x0c},
    {"e2m3fn", formats::e2m3fn, 7.5, 1.0, 0.125, 0x1f, 0x08},
    {"e2m1fn", formats::e2m1fn, 6, 1.0, 0.5, 0x7, 0x2},
    {"e8m0fnu", formats::e8m0fnu, 0x1p127, 0x1p-127, 0, 0xfe, 0x7f},
    {"ue4m3", formats::ue4m3, 448, 0x1p-6, 0x1p-9, 0x7e, 0x38},
    // UE5M3: CUDA 13.4 __nv_fp8_ue5m3 / auto-round nvfp.py:124 FLOAT8_UE5M3_MAX = 114688 (= 1.75·2^16).
    {"ue5m3", formats::ue5m3, 114688, 0x1p-14, 0x1p-17, 0xfe, 0x78},
    {"f16", formats::f16, 65504, 0x1p-14, 0x1p-24, 0x7bff, 0x3c00},
    {"bf16", formats::bf16, 3.3895313892515355e38, 0x1p-126, 0x1p-133, 0x7f7f, 0x3f80},
    {"Binary8p3se", p3109(8, 3, Signedness::signed_, P3109Domain::extended), 49152, 0x1p-15, 0x1p-17, 0x7e, 0x40},
    {"Binary8p4se", p3109(8, 4, Signedness::signed_, P3109Domain::extended), 224, 0x1p-7, 0x1p-10, 0x7e, 0x40},
    {"Binary8p3sf", p3109(8, 3, Signedness::signed_, P3109Domain::finite), 57344, 0x1p-15, 0x1p-17, 0x7f, 0x40},
    {"Binary8p4sf", p3109(8, 4, Signedness::signed_, P3109Domain::finite), 240, 0x1p-7, 0x1p-10, 0x7f, 0x40},
};

TEST(Format, LimitsMatchSpecLiterals) {
  for (const auto& l : kLimits) {
    SCOPED_TRACE(l.name);
    EXPECT_EQ(validate(l.f), FormatError::ok);
    EXPECT_EQ(max_finite_magnitude(l.f), static_cast<std::uint64_t>(l.max_code));
    EXPECT_EQ(to_double(l.f, static_cast<std::uint64_t>(l.max_code)), l.max);
    EXPECT_EQ(to_double(l.f, static_cast<std::uint64_t>(l.one_code)), 1.0);
    if (l.min_subnormal != 0) {
      EXPECT_EQ(to_double(l.f, 1), l.min_subnormal);
      EXPECT_EQ(classify(l.f, 1), Class::subnormal);
    } else {
      EXPECT_EQ(to_double(l.f, 0), l.min_normal);  // e8m0fnu: no zero, 0x00 = 2^-127
    }
    const std::uint64_t min_normal_code = l.f.has_zero ? (std::uint64_t{1} << l.f.mantissa_bits) : 0;
    EXPECT_EQ(to_double(l.f, min_normal_code), l.min_normal);
  }
}

TEST(Format, F32AndF64AreIeee) {
  EXPECT_EQ(to_double(formats::f32, 0x7f7fffff), static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_EQ(to_double(formats::f64, 0x7fefffffffffffffull), std::numeric_limits<double>::max());
  EXPECT_EQ(to_double(formats::f64, 1), std::numeric_limits<double>::denorm_min());
  EXPECT_TRUE(std::isinf(to_double(formats::f32, 0xff800000)));
}

TEST(Format, SpecialCodes) {
  // OCP OFP8: e4m3fn NaN only S.1111.111; e5m2 Inf 0x7c/0xfc, NaN 0x7d..0x7f.
  EXPECT_EQ(classify(formats::e4m3fn, 0x7f), Class::nan);
  EXPECT_EQ(classify(formats::e4m3fn, 0xff), Class::nan);
  EXPECT_EQ(classify(formats::e4m3fn, 0x7e), Class::normal);
  EXPECT_EQ(classify(formats::e4m3fn, 0x80), Class::zero);
  EXPECT_EQ(classify(formats::e5m2, 0x7c), Class::inf);
  EXPECT_EQ(classify(formats::e5m2, 0xfc), Class::inf);
  for (int c : {0x7d, 0x7e, 0x7f, 0xfd, 0xfe, 0xff}) EXPECT_EQ(classify(formats::e5m2, static_cast<std::uint64_t>(c)), Class::nan);
  // FNUZ: 0x80 is the only NaN, no −0.
  EXPECT_EQ(classify(formats::e4m3fnuz, 0x80), Class::nan);
  EXPECT_FALSE(has_negative_zero(formats::e4m3fnuz));
  // e8m0fnu: NaN 0xff, no zero.
  EXPECT_EQ(classify(formats::e8m0fnu, 0xff), Class::nan);
  EXPECT_EQ(classify(formats::e8m0fnu, 0x00), Class::normal);
  // ue4m3: NaN 0x7f.
  EXPECT_EQ(classify(formats::ue4m3, 0x7f), Class::nan);
  // FP4/FP6: no specials, signed zero 0x8 / 0x20.
  EXPECT_EQ(classify(formats::e2m1fn, 0x8), Class::zero);
  EXPECT_EQ(classify(formats::e3m2fn, 0x20), Class::zero);
  EXPECT_FALSE(has_nan(formats::e2m1fn));
  // P3109 (v4.0 §4.7.6): Binary8p3se 0x7f = +Inf, 0xff = −Inf, 0x80 = NaN; unsigned extended
  // Binary8p3ue: 0xff NaN, 0xfe +Inf.
  const Format p3se = p3109(8, 3, Signedness::signed_, P3109Domain::extended);
  EXPECT_EQ(classify(p3se, 0x7f), Class::inf);
  EXPECT_EQ(classify(p3se, 0xff), Class::inf);
  EXPECT_EQ(classify(p3se, 0x80), Class::nan);
  const Format p3ue = p3109(8, 3, Signedness::unsigned_, P3109Domain::extended);
  EXPECT_EQ(classify(p3ue, 0xff), Class::nan);
  EXPECT_EQ(classify(p3ue, 0xfe), Class::inf);
  EXPECT_EQ(max_finite_magnitude(p3ue), 0xfdu);
  // 1.0 in P3109: signed 2^(K−2), unsigned 2^(K−1).
  EXPECT_EQ(to_double(p3ue, 0x80), 1.0);
}

TEST(Format, ValidateRejectsInconsistentDescriptors) {
  EXPECT_EQ(validate(Format{.bits = 8, .exponent_bits = 4, .mantissa_bits = 4, .bias = 7, .is_signed = true,
                            .specials = Specials::fn, .has_zero = true}), FormatError::bits_mismatch);
  EXPECT_EQ(validate(Format{.bits = 5, .exponent_bits = 5, .mantissa_bits = 0, .bias = 15, .is_signed = false,
                            .specials = Specials::ieee, .has_zero = true}), FormatError::ieee_needs_mantissa);
  EXPECT_EQ(validate(Format{.bits = 7, .exponent_bits = 4, .mantissa_bits = 3, .bias = 7, .is_signed = false,
                            .specials = Specials::fnuz, .has_zero = true}), FormatError::unsigned_fnuz);
  EXPECT_EQ(validate(Format{.bits = 8, .exponent_bits = 4, .mantissa_bits = 3, .bias = 7, .is_signed = true,
                            .specials = Specials::ieee, .has_zero = false}), FormatError::no_zero_needs_fn);
  // |bias| ≤ 2^17: beyond it emin = 1 − bias and exp − bias − mantissa_bits overflow int32
  // (custom:…,-2147483648,… made emin() undefined behaviour; seen while writing fuzz_format_name).
  auto biased = [](std::uint8_t bits, std::uint8_t e, std::uint8_t m, std::int32_t bias, Specials sp) {
    return Format{.bits = bits, .exponent_bits = e, .mantissa_bits = m, .bias = bias, .is_signed = true,
                  .specials = sp, .has_zero = true};
  };
  EXPECT_EQ(validate(biased(20, 16, 3, kMaxAbsBias, Specials::none)), FormatError::ok);
  EXPECT_EQ(validate(biased(20, 16, 3, -kMaxAbsBias, Specials::none)), FormatError::ok);
  EXPECT_EQ(validate(biased(20, 16, 3, kMaxAbsBias + 1, Specials::none)), FormatError::bias_out_of_range);
  EXPECT_EQ(validate(biased(8, 4, 3, std::numeric_limits<std::int32_t>::min(), Specials::fn)), FormatError::bias_out_of_range);
  EXPECT_EQ(validate(biased(8, 4, 3, std::numeric_limits<std::int32_t>::max(), Specials::fn)), FormatError::bias_out_of_range);
}

// Every P3109 format of the family has the special codes of the v4.0 table (§3.1 of spec-digest).
TEST(Format, P3109FamilySpecialCodes) {
  for (int k = 3; k <= 16; ++k) {
    for (int p = 1; p < k; ++p) {
      for (P3109Domain d : {P3109Domain::extended, P3109Domain::finite}) {
        const bool ext = d == P3109Domain::extended;
        const Format f = p3109(k, p, Signedness::signed_, d);
        ASSERT_EQ(validate(f), FormatError::ok) << k << " " << p;
        const std::uint64_t half = std::uint64_t{1} << (k - 1);
        EXPECT_EQ(classify(f, half), Class::nan);
        EXPECT_EQ(to_double(f, half >> 1), 1.0) << "K=" << k << " P=" << p;
        EXPECT_EQ(max_finite_magnitude(f), ext ? half - 2 : half - 1);
      }
    }
    for (int p = 1; p <= k; ++p) {
      for (P3109Domain d : {P3109Domain::extended, P3109Domain::finite}) {
        const bool ext = d == P3109Domain::extended;
        const Format f = p3109(k, p, Signedness::unsigned_, d);
        ASSERT_EQ(validate(f), FormatError::ok) << k << " " << p;
        const std::uint64_t all = (std::uint64_t{1} << k) - 1;
        EXPECT_EQ(classify(f, all), Class::nan);
        EXPECT_EQ(to_double(f, (all + 1) >> 1), 1.0) << "K=" << k << " P=" << p;
        EXPECT_EQ(max_finite_magnitude(f), ext ? all - 2 : all - 1);
      }
    }
  }
}

}  // namespace

// code_hex prints ceil(bits/4) digits, and a value wider than `bits` whole: a kernel's out-of-range
// output 0x1ff for an 8-bit format must not be reported as 0xff (found by a new user's check run).
TEST(CodeHex, PadsToTheWidthAndNeverCutsAWiderValue) {
  EXPECT_EQ(minifloat::code_hex(0x7e, 8), "0x7e");
  EXPECT_EQ(minifloat::code_hex(0x7, 4), "0x7");
  EXPECT_EQ(minifloat::code_hex(0x400000, 32), "0x00400000");
  EXPECT_EQ(minifloat::code_hex(0x1ff, 8), "0x1ff");
  EXPECT_EQ(minifloat::code_hex(0x12345, 8), "0x12345");
  EXPECT_EQ(minifloat::code_hex(0x10, 4), "0x10");
  EXPECT_EQ(minifloat::code_hex(~std::uint64_t{0}, 8), "0xffffffffffffffff");
}
