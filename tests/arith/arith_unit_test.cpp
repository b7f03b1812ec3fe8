// SPDX-License-Identifier: Apache-2.0
// arith_unit_test.cpp: the IEEE 754-2019 special cases, signed zeros, min/max NaN rules, mixed
// formats and SR of arith.hpp, with expected codes written from the specs (OCP OFP8 v1.0 Table 1
// encodings, IEEE 754-2019 §6.3, §7.2, §9.6), not from the engine.
#include <gtest/gtest.h>

#include <cstdint>

#include "minifloat/core/arith.hpp"
#include "minifloat/core/format.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;
constexpr Format E4 = formats::e4m3fn;  // 0x38 = 1, 0x40 = 2, 0x7e = 448, 0x7f/0xff NaN, 0x80 = −0
constexpr Format E5 = formats::e5m2;    // 0x3c = 1, 0x7c = +Inf, 0xfc = −Inf, 0x7e = quiet NaN
constexpr Format F32 = formats::f32;
constexpr RoundingSpec kRtn{Rounding::rtn};

TEST(ArithSpecial, InvalidOperationsGivePositiveNanAndInvalid) {
  // Inf − Inf, 0·Inf, 0/0, Inf/Inf, sqrt(−1): IEEE 754-2019 §7.2
  EXPECT_EQ(add(E5, 0x7c, 0xfc), (RoundResult{0x7e, flag_invalid}));
  EXPECT_EQ(sub(E5, 0x7c, 0x7c), (RoundResult{0x7e, flag_invalid}));
  EXPECT_EQ(mul(E5, 0x00, 0xfc), (RoundResult{0x7e, flag_invalid}));
  EXPECT_EQ(div(E5, 0x80, 0x00), (RoundResult{0x7e, flag_invalid}));
  EXPECT_EQ(div(E5, 0x7c, 0xfc), (RoundResult{0x7e, flag_invalid}));
  EXPECT_EQ(sqrt(E5, 0xbc), (RoundResult{0x7e, flag_invalid}));
  EXPECT_EQ(sqrt(E5, 0xfc), (RoundResult{0x7e, flag_invalid}));
  EXPECT_EQ(fma(E5, 0x00, 0x7c, 0x3c), (RoundResult{0x7e, flag_invalid}));  // 0·Inf + 1
  EXPECT_EQ(fma(E5, 0x3c, 0x7c, 0xfc), (RoundResult{0x7e, flag_invalid}));  // Inf − Inf inside fma
  EXPECT_EQ(sqrt(E4, 0xb8), (RoundResult{0x7f, flag_invalid}));              // e4m3fn NaN 0x7f
  // formats without NaN: +max with invalid (OCP MX: no NaN encoding; Profile::nan_to_finite)
  EXPECT_EQ(sqrt(formats::e2m1fn, 0xa), (RoundResult{0x7, flag_invalid}));   // sqrt(−1) → +6
}

TEST(ArithSpecial, NanOperandsPropagateWithTheirSign) {
  EXPECT_EQ(add(E4, 0xff, 0x38), (RoundResult{0xff, flag_none}));  // −NaN + 1 = −NaN
  EXPECT_EQ(add(E4, 0x38, 0x7f), (RoundResult{0x7f, flag_none}));
  EXPECT_EQ(mul(E4, 0xff, 0x7f), (RoundResult{0xff, flag_none}));  // the first NaN operand's sign
  EXPECT_EQ(fma(E5, 0x00, 0x7c, 0xfe), (RoundResult{0xfe, flag_none}));  // NaN c: no invalid for 0·Inf
  EXPECT_EQ(add(formats::e4m3fnuz, 0x80, 0x01), (RoundResult{0x80, flag_none}));
}

TEST(ArithSpecial, DivideByZeroGivesSignedInfinity) {
  EXPECT_EQ(div(E5, 0x3c, 0x00), (RoundResult{0x7c, flag_none}));  // 1/+0 = +Inf (no divide-by-zero flag bit)
  EXPECT_EQ(div(E5, 0x3c, 0x80), (RoundResult{0xfc, flag_none}));  // 1/−0 = −Inf
  EXPECT_EQ(div(E5, 0xbc, 0x80), (RoundResult{0x7c, flag_none}));
  // e4m3fn has no Inf: the exact ±Inf result becomes NaN with invalid (as a conversion of Inf)
  EXPECT_EQ(div(E4, 0x38, 0x00), (RoundResult{0x7f, flag_invalid}));
  // ... or ±max under satfinite (PTX .satfinite)
  EXPECT_EQ(div(E4, 0xb8, 0x00, RoundingSpec{Rounding::rne, Overflow::satfinite}).code, 0xfeu);
  EXPECT_EQ(div(E5, 0x3c, 0x7c), (RoundResult{0x00, flag_none}));  // 1/Inf = +0
  EXPECT_EQ(div(E5, 0xbc, 0x7c), (RoundResult{0x80, flag_none}));  // −1/Inf = −0
}

TEST(ArithSpecial, SignedZeros) {
  // IEEE 754-2019 §6.3: x + (−x) = +0 in every mode but roundTowardNegative, where it is −0
  EXPECT_EQ(add(E4, 0x38, 0xb8).code, 0x00u);
  EXPECT_EQ(add(E4, 0x38, 0xb8, kRtn).code, 0x80u);
  EXPECT_EQ(sub(E4, 0x38, 0x38, RoundingSpec{Rounding::rtz}).code, 0x00u);
  EXPECT_EQ(sub(E4, 0x38, 0x38, kRtn).code, 0x80u);
  EXPECT_EQ(add(E4, 0x00, 0x80).code, 0x00u);        // (+0) + (−0) = +0
  EXPECT_EQ(add(E4, 0x00, 0x80, kRtn).code, 0x80u);  // ... −0 under rtn
  EXPECT_EQ(add(E4, 0x80, 0x80).code, 0x80u);        // (−0) + (−0) = −0
  EXPECT_EQ(sub(E4, 0x80, 0x00).code, 0x80u);        // −0 − +0 = −0
  EXPECT_EQ(mul(E4, 0x80, 0x38).code, 0x80u);        // −0 · 1 = −0
  EXPECT_EQ(div(E4, 0x00, 0xb8).code, 0x80u);        // +0 / −1 = −0
  EXPECT_EQ(sqrt(E4, 0x80).code, 0x80u);             // sqrt(−0) = −0
  EXPECT_EQ(fma(E4, 0x38, 0x38, 0xb8).code, 0x00u);  // 1·1 − 1 = +0
  EXPECT_EQ(fma(E4, 0x38, 0x38, 0xb8, kRtn).code, 0x80u);
  EXPECT_EQ(fma(E4, 0x80, 0x38, 0x80).code, 0x80u);  // (−0)·1 + (−0) = −0
  EXPECT_EQ(fma(E4, 0x80, 0x38, 0x00).code, 0x00u);  // (−0)·1 + (+0) = +0
  // FNUZ formats have no −0: 0x80 is NaN, so an exact zero is always 0x00
  EXPECT_EQ(add(formats::e4m3fnuz, 0x40, 0xc0, kRtn).code, 0x00u);
  // the underflowed product keeps its sign: (−2^−9)·2^−9 rounds to −0 under rne
  EXPECT_EQ(mul(E4, 0x81, 0x01), (RoundResult{0x80, flag_underflow | flag_inexact}));
}

TEST(ArithSpecial, InfinityArithmetic) {
  EXPECT_EQ(add(E5, 0x7c, 0xfb), (RoundResult{0x7c, flag_none}));  // Inf + (−max) = Inf
  EXPECT_EQ(mul(E5, 0xfc, 0xbc), (RoundResult{0x7c, flag_none}));  // −Inf · −1 = +Inf
  EXPECT_EQ(sqrt(E5, 0x7c), (RoundResult{0x7c, flag_none}));
  EXPECT_EQ(fma(E5, 0x3c, 0x3c, 0xfc), (RoundResult{0xfc, flag_none}));  // 1·1 − Inf
}

TEST(ArithRounding, OverflowFollowsThePolicy) {
  // 448 + 32 = 480: beyond e4m3fn max 448 (the binade's top code 0x7f is NaN): OCP OFP8 §3 nonsat → NaN
  EXPECT_EQ(add(E4, 0x7e, 0x60), (RoundResult{0x7f, flag_overflow | flag_inexact}));
  EXPECT_EQ(add(E4, 0x7e, 0x60, RoundingSpec{Rounding::rne, Overflow::satfinite}).code, 0x7eu);
  EXPECT_EQ(add(E4, 0x7e, 0x60, RoundingSpec{Rounding::rtz}).code, 0x7eu);  // IEEE §7.4: rtz never overflows
  // 448 + 16 = 464 is the tie between 448 (mantissa 110) and 480: rne keeps 448, inexact
  EXPECT_EQ(add(E4, 0x7e, 0x58), (RoundResult{0x7e, flag_inexact}));
  // e5m2: 57344 + 8192 → Inf (nonsat), max under rtz
  EXPECT_EQ(add(E5, 0x7b, 0x70).code, 0x7cu);
  EXPECT_EQ(add(E5, 0x7b, 0x70, RoundingSpec{Rounding::rtz}).code, 0x7bu);
}

TEST(ArithRounding, ExactlyOnceNotViaFloat) {
  // 1 + 2^−24 + 2^−48-ish cases are where float-then-round double-rounds. In e4m3fn:
  // 1 + 1/16 = 1.0625 is the tie between 1 and 1.125 → rne 1 (even), rna 1.125
  EXPECT_EQ(add(E4, 0x38, 0x18).code, 0x38u);  // 0x18 = 2^−4 = 0.0625
  EXPECT_EQ(add(E4, 0x38, 0x18, RoundingSpec{Rounding::rna}).code, 0x39u);
  EXPECT_EQ(add(E4, 0x38, 0x18, RoundingSpec{Rounding::rto}).code, 0x39u);  // inexact → odd neighbour
  // f32: 1 + 2^−24 is a tie → 1; 1 + 2^−24 + 2^−70 (fma of f32 operands) is above the tie → 1 + 2^−23
  EXPECT_EQ(add(F32, 0x3f800000, 0x33800000).code, 0x3f800000u);
  // fma(2^−35, 2^−35, 1 + 2^−24): exact = 1 + 2^−24 + 2^−70 → rounds up (one rounding)
  EXPECT_EQ(fma(F32, 0x2e000000, F32, 0x2e000000, formats::f64, 0x3ff0000010000000ull, F32).code, 0x3f800001u);
}

TEST(ArithMixed, OperandFormatsAndResultFormatAreIndependent) {
  // e4m3fn 1.5 (0x3c) + e5m2 0.25 (0x34) = 1.75 → f16 0x3f00
  EXPECT_EQ(add(E4, 0x3c, E5, 0x34, formats::f16), (RoundResult{0x3f00, flag_none}));
  // e2m1fn 6 (0x7) · e4m3fn 448 (0x7e) = 2688 → bf16 0x4528 exactly
  EXPECT_EQ(mul(formats::e2m1fn, 0x7, E4, 0x7e, formats::bf16), (RoundResult{0x4528, flag_none}));
  // f32 1/3 into e4m3fn: 0.333… between 0.3125 (0x2a) and 0.34375 (0x2b) → nearest 0x2b
  EXPECT_EQ(div(F32, 0x3f800000, F32, 0x40400000, E4).code, 0x2bu);
  // e8m0fnu: 2^3 · 2^−5 = 2^−2 (0x7d); 2^127 · 2 overflows → NaN 0xff (no Inf)
  EXPECT_EQ(mul(formats::e8m0fnu, 0x82, 0x7a), (RoundResult{0x7d, flag_none}));
  EXPECT_EQ(mul(formats::e8m0fnu, 0xfe, 0x80).code, 0xffu);
  // unsigned target, negative result → NaN with invalid (OCP: e8m0fnu has no sign)
  EXPECT_EQ(sub(formats::e8m0fnu, 0x7f, 0x80), (RoundResult{0xff, flag_invalid}));
}

TEST(ArithMinMax, Ieee754MinimumMaximumAndNumberVariants) {
  // §9.6 minimum/maximum propagate NaN; minimumNumber/maximumNumber ignore it
  EXPECT_EQ(minimum(E4, 0x7f, 0x38).code, 0x7fu);
  EXPECT_EQ(maximum(E4, 0x38, 0xff).code, 0xffu);
  EXPECT_EQ(minimum_number(E4, 0x7f, 0x38).code, 0x38u);
  EXPECT_EQ(maximum_number(E4, 0x38, 0xff).code, 0x38u);
  EXPECT_EQ(minimum_number(E4, 0x7f, 0xff).code, 0x7fu);  // both NaN → NaN
  // −0 < +0 in all four
  EXPECT_EQ(minimum(E4, 0x00, 0x80).code, 0x80u);
  EXPECT_EQ(maximum(E4, 0x80, 0x00).code, 0x00u);
  EXPECT_EQ(minimum_number(E4, 0x00, 0x80).code, 0x80u);
  EXPECT_EQ(maximum_number(E4, 0x80, 0x00).code, 0x00u);
  EXPECT_EQ(minimum(E4, 0xb8, 0x38).code, 0xb8u);
  EXPECT_EQ(maximum(E5, 0xfc, 0x7b).code, 0x7bu);
  // mixed formats: the chosen operand is converted into the result format
  EXPECT_EQ(maximum(E4, 0x7e /*448*/, E5, 0x5f /*448*/, formats::f16).code, 0x5f00u);
  EXPECT_EQ(compare(E4, 0x7e, E5, 0x5f), Ordering::equal);
  EXPECT_EQ(compare(E4, 0x00, E4, 0x80), Ordering::equal);
  EXPECT_EQ(compare(E4, 0x7f, E4, 0x38), Ordering::unordered);
  EXPECT_EQ(compare(E5, 0xfc, E4, 0xfe), Ordering::less);
}

TEST(ArithSr, RandomBitsPickTheNeighbours) {
  // 1 + 1/32 (0x10) in e4m3fn: ν = 1/4 of an ulp above 1. SrVariant::exact rounds up iff R < ν·2^64.
  const RoundingSpec sr{Rounding::sr};
  EXPECT_EQ(add(E4, 0x38, 0x10, sr, profiles::ocp, 0).code, 0x39u);                       // R = 0 < 2^62
  EXPECT_EQ(add(E4, 0x38, 0x10, sr, profiles::ocp, (std::uint64_t{1} << 62) - 1).code, 0x39u);
  EXPECT_EQ(add(E4, 0x38, 0x10, sr, profiles::ocp, std::uint64_t{1} << 62).code, 0x38u);  // R = ν·2^64
  // an exact result never moves
  EXPECT_EQ(add(E4, 0x38, 0x38, sr, profiles::ocp, 0).code, 0x40u);
}

TEST(ArithConstexpr, UsableAtCompileTime) {
  static_assert(add(formats::e4m3fn, 0x38, 0x38).code == 0x40);
  static_assert(fma(formats::f64, 0x3ff0000000000000ull, 0x3ff0000000000000ull, 0x3ff0000000000000ull).code ==
                0x4000000000000000ull);
  static_assert(sqrt(formats::f32, 0x40800000).code == 0x40000000);  // sqrt(4) = 2
  SUCCEED();
}

}  // namespace
}  // namespace minifloat_test
