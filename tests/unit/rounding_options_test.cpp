// SPDX-License-Identifier: Apache-2.0
// rounding_options_test.cpp: issue 25 items 5 and 6 in the one engine: Rounding::rnz, Rounding::rnu,
// SrVariant::stochastic_odd, sr_bits up to 64 (two 32-bit words) and RoundingSpec::ftz/daz, with
// values derived by hand from each definition (the peer's file:line in the comment), through the
// scalar engine, the array door (SIMD-eligible targets included) and the block quantizer.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "minifloat/convert_array.hpp"
#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/scheme.hpp"
#include "minifloat/stochastic.hpp"

namespace {

using namespace minifloat;

RoundResult rd(double v, Format to, RoundingSpec s, std::uint64_t rbits = 0) {
  return from_double(v, to, s, profiles::ocp, rbits);
}
RoundingSpec sr(SrVariant v, int bits) {
  return RoundingSpec{.rounding = Rounding::sr, .sr_variant = v, .sr_bits = static_cast<std::uint8_t>(bits)};
}

// ---- rnz ---------------------------------------------------------------------------------------

// e4m3fn near 1: ulp 2^-3. 1.1875 = 1 + 1.5 ulp is the tie of 1.125 (0x39) and 1.25 (0x3a).
TEST(Rnz, TiesGoTowardZero) {
  const RoundingSpec z{.rounding = Rounding::rnz};
  EXPECT_EQ(rd(1.1875, formats::e4m3fn, z).code, 0x39u);
  EXPECT_EQ(rd(1.1875, formats::e4m3fn, {}).code, 0x3au);  // rne: the even neighbour
  EXPECT_EQ(rd(-1.1875, formats::e4m3fn, z).code, 0xb9u);
  EXPECT_EQ(rd(1.3125, formats::e4m3fn, z).code, 0x3au);  // 2.5 ulp: tie of 1.25 and 1.375
  EXPECT_EQ(rd(1.1875 + 1.0 / 1024, formats::e4m3fn, z).code, 0x3au);
  EXPECT_EQ(rd(1.1875, formats::e4m3fn, z).flags, flag_inexact);
  // e5m2: 61440 is the tie of max 57344 (0x7b) and 2^16; rnz stays finite with no overflow flag
  EXPECT_EQ(rd(61440, formats::e5m2, z).code, 0x7bu);
  EXPECT_EQ(rd(61440, formats::e5m2, z).flags, flag_inexact);
  EXPECT_EQ(rd(61440, formats::e5m2, {}).code, 0x7cu);
  // subnormal ties: 2^-10 (half the quantum 2^-9) → 0; 3·2^-10 → 2^-9
  EXPECT_EQ(rd(std::ldexp(1, -10), formats::e4m3fn, z).code, 0x00u);
  EXPECT_EQ(rd(std::ldexp(1, -10), formats::e4m3fn, z).flags, flag_inexact | flag_underflow);
  EXPECT_EQ(rd(3 * std::ldexp(1, -10), formats::e4m3fn, z).code, 0x01u);
}

// DeepGEMM's FP4 reference (deep_gemm/utils/math.py:73-82 at 54e2261): code = the number of the
// midpoints 0.25 0.75 1.25 1.75 2.5 3.5 5 strictly below |x|, i.e. ties toward zero, saturating at 6.
TEST(Rnz, IsDeepGemmsFp4Cast) {
  const RoundingSpec z{.rounding = Rounding::rnz, .overflow = Overflow::satfinite};
  const double mids[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};
  for (int k = 0; k < 7; ++k) {
    EXPECT_EQ(rd(mids[k], formats::e2m1fn, z).code, static_cast<std::uint64_t>(k)) << mids[k];
    EXPECT_EQ(rd(std::nextafter(mids[k], 10.0), formats::e2m1fn, z).code, static_cast<std::uint64_t>(k + 1));
    EXPECT_EQ(rd(-mids[k], formats::e2m1fn, z).code, static_cast<std::uint64_t>(k == 0 ? 0x8 : 0x8 + k));
  }
  EXPECT_EQ(rd(100.0, formats::e2m1fn, z).code, 0x7u);
}

TEST(Rnz, NamedAndRefusedWhereUnknown) {
  EXPECT_EQ(parse_rounding("rnz"), Rounding::rnz);
  EXPECT_EQ(rounding_name(Rounding::rnz), "rnz");
  EXPECT_EQ(parse_sr_variant("stochastic_odd"), SrVariant::stochastic_odd);
  EXPECT_EQ(parse_rounding("rnu"), Rounding::rnu);  // added with AMD Quark's DPU_ROUND (below)
  EXPECT_THROW(parse_rounding("rnd"), NameError);
}

// ---- rnu ---------------------------------------------------------------------------------------

// AMD Quark's DPU_ROUND, "round half upward" (amd/Quark 1d27b55,
// quark/onnx/operators/custom_ops/src/bfp/cpu/bfp_kernel.cc:34-36: dpu_round(x) = (x < 0 && x - floor(x) == 0.5)
// ? ceil(x) : round(x); the same in mx/cuda/mx_kernel.cu:24-28 for MXINT8, and on magnitudes in round_bits:
// a tie keeps a negative magnitude and increments a positive one): nearest, ties toward +Inf, so -2.5 -> -2,
// 2.5 -> 3 (rna, std::round = Quark's STD_ROUND, gives -3). By hand on e2m1fn (0 0.5 1 1.5 2 3 4 6): the ties
// 0.25 0.75 1.25 1.75 2.5 3.5 5 go up for x > 0 and toward zero for x < 0.
TEST(Rnu, TiesGoTowardPlusInfinity) {
  const RoundingSpec u{.rounding = Rounding::rnu, .overflow = Overflow::satfinite};
  const double mids[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};
  for (int k = 0; k < 7; ++k) {
    EXPECT_EQ(rd(mids[k], formats::e2m1fn, u).code, static_cast<std::uint64_t>(k + 1)) << mids[k];
    EXPECT_EQ(rd(-mids[k], formats::e2m1fn, u).code, static_cast<std::uint64_t>(k == 0 ? 0x8 : 0x8 + k)) << -mids[k];
    EXPECT_EQ(rd(-std::nextafter(mids[k], 10.0), formats::e2m1fn, u).code, static_cast<std::uint64_t>(0x8 + k + 1));
  }
  EXPECT_EQ(rd(-2.5, formats::e2m1fn, {.rounding = Rounding::rna}).code, 0xdu);  // rna: -3, not rnu's -2 (0xc)
  // e4m3fn near 1 (ulp 1/8): 1.1875 is the tie of 1.125 (0x39) and 1.25 (0x3a)
  const RoundingSpec n{.rounding = Rounding::rnu};
  EXPECT_EQ(rd(1.1875, formats::e4m3fn, n).code, 0x3au);
  EXPECT_EQ(rd(-1.1875, formats::e4m3fn, n).code, 0xb9u);
  EXPECT_EQ(rd(-1.1875, formats::e4m3fn, n).flags, flag_inexact);
  // e5m2: 61440 is the tie of max 57344 (0x7b) and 2^16: +61440 overflows (Inf 0x7c nonsat), -61440 keeps -max
  EXPECT_EQ(rd(61440, formats::e5m2, n).code, 0x7cu);
  EXPECT_EQ(rd(61440, formats::e5m2, n).flags, flag_inexact | flag_overflow);
  EXPECT_EQ(rd(-61440, formats::e5m2, n).code, 0xfbu);
  EXPECT_EQ(rd(-61440, formats::e5m2, n).flags, flag_inexact);
  EXPECT_EQ(rd(-61441, formats::e5m2, n).code, 0xfcu);  // beyond the tie: -Inf as the nearest modes
  // subnormal ties of e4m3fn (quantum 2^-9): +2^-10 -> 2^-9 (0x01), -2^-10 -> -0 (0x80)
  EXPECT_EQ(rd(std::ldexp(1, -10), formats::e4m3fn, n).code, 0x01u);
  EXPECT_EQ(rd(-std::ldexp(1, -10), formats::e4m3fn, n).code, 0x80u);
}

// The array door (f32 -> e4m3fn rne is SIMD-eligible; rnu is not in the SIMD whitelist, so the engine runs) and
// the block quantizer give the engine's rnu codes.
TEST(Rnu, ArrayDoorAndBlockQuantizer) {
  const RoundingSpec n{.rounding = Rounding::rnu};
  EXPECT_EQ(encode_path(formats::e4m3fn, n, profiles::ocp), ArrayPath::engine);
  std::vector<float> x(9000);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = (i % 2 ? -1.0f : 1.0f) * (1.0f + 0.0625f * static_cast<float>(i % 16));
  std::vector<std::uint8_t> a(x.size());
  convert_f32(x, a, formats::e4m3fn, n);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(a[i], from_float(x[i], formats::e4m3fn, n).code) << i;
  EXPECT_EQ(a[3], 0xb9u);  // -1.1875 -> -1.125
  const Scheme s = parse_scheme("e4m3fn/1x32/e8m0fnu:ocp_floor");
  std::vector<float> b(32, 0.0f);
  b[0] = 448.0f;      // scale 2^0
  b[1] = 1.1875f;     // -> 1.25 (0x3a)
  b[2] = -1.1875f;    // -> -1.125 (0xb9)
  QuantOptions o;
  o.rounding = {Rounding::rnu, Overflow::satfinite};
  const QuantizedTensor q = quantize(std::span<const float>(b), {32}, s, o);
  EXPECT_EQ(q.codes[1], 0x3au);
  EXPECT_EQ(q.codes[2], 0xb9u);
}

// ---- stochastic_odd -----------------------------------------------------------------------------

// gfloat round.py:151-154 (b142762): up iff _rnito(ν·2^N) + R ≥ 2^N, _rnito = nearest, ties to odd
// (:32-34). e4m3fn at 1: ulp 0.125; N = 2.
//   x = 1 + 0.375 ulp: ν·4 = 1.5 → RNO 1 → up iff R ≥ 3 (C: RNE 2 → R ≥ 2)
//   x = 1 + 0.625 ulp: ν·4 = 2.5 → RNO 3 → up iff R ≥ 1 (C: RNE 2 → R ≥ 2)
TEST(StochasticOdd, HandDerivedFromGfloat) {
  const double x1 = 1 + 0.125 * 0.375, x2 = 1 + 0.125 * 0.625;
  const RoundingSpec odd = sr(SrVariant::stochastic_odd, 2), c = sr(SrVariant::c, 2);
  for (std::uint64_t r = 0; r < 4; ++r) {
    EXPECT_EQ(rd(x1, formats::e4m3fn, odd, r).code, r >= 3 ? 0x39u : 0x38u) << r;
    EXPECT_EQ(rd(x1, formats::e4m3fn, c, r).code, r >= 2 ? 0x39u : 0x38u) << r;
    EXPECT_EQ(rd(x2, formats::e4m3fn, odd, r).code, r >= 1 ? 0x39u : 0x38u) << r;
    EXPECT_EQ(rd(x2, formats::e4m3fn, c, r).code, r >= 2 ? 0x39u : 0x38u) << r;
    // only the low N bits of the word are read
    EXPECT_EQ(rd(x2, formats::e4m3fn, odd, r | 0xfffffff0u).code, rd(x2, formats::e4m3fn, odd, r).code);
  }
  // not a tie: the same as C
  const double x3 = 1 + 0.125 * 0.3;  // ν·4 = 1.2 → 1
  for (std::uint64_t r = 0; r < 4; ++r)
    EXPECT_EQ(rd(x3, formats::e4m3fn, odd, r).code, rd(x3, formats::e4m3fn, c, r).code);
}

// An independent reimplementation of gfloat's rule over every e4m3fn-representable offset of 8 bits
// below the ulp at 1 (x = 1 + k·2^-11, k = 0..255: ν = k/256) and every R of N = 4.
TEST(StochasticOdd, ExhaustiveSmallGridAgainstDefinition) {
  const int n = 4;
  for (int k = 0; k < 256; ++k) {
    const double nu = k / 256.0;
    const double t = nu * (1 << n);
    const double fl = std::floor(t);
    const bool fl_odd = static_cast<long>(fl) % 2 != 0;
    const long rno = static_cast<long>(fl) + ((t > fl + 0.5 || (t == fl + 0.5 && !fl_odd)) ? 1 : 0);
    for (std::uint64_t r = 0; r < (1u << n); ++r) {
      const bool up = k != 0 && rno + static_cast<long>(r) >= (1L << n);
      EXPECT_EQ(rd(1 + k * std::ldexp(1, -11), formats::e4m3fn, sr(SrVariant::stochastic_odd, n), r).code,
                up ? 0x39u : 0x38u)
          << k << " " << r;
    }
  }
}

// ---- sr_bits up to 64 ---------------------------------------------------------------------------

// A, N = 64: up iff floor(ν·2^64) + R ≥ 2^64. x = 1 + ulp/2: ν·2^64 = 2^63.
TEST(SrBits64, VariantAAtTheTop) {
  const double x = 1 + 0.0625;
  const std::uint64_t h = std::uint64_t{1} << 63;
  EXPECT_EQ(rd(x, formats::e4m3fn, sr(SrVariant::a, 64), h).code, 0x39u);
  EXPECT_EQ(rd(x, formats::e4m3fn, sr(SrVariant::a, 64), h - 1).code, 0x38u);
  // N = 33: the low 33 bits; ν·2^33 = 2^32: up iff R mod 2^33 ≥ 2^32
  EXPECT_EQ(rd(x, formats::e4m3fn, sr(SrVariant::a, 33), std::uint64_t{1} << 32).code, 0x39u);
  EXPECT_EQ(rd(x, formats::e4m3fn, sr(SrVariant::a, 33), (std::uint64_t{1} << 33) | 5).code, 0x38u);
}

// The 65th bit of ν: e4m3fn's subnormal quantum is 2^-9, so x = 2^-74 has ν = 2^-65 and x = 2^-75 ν = 2^-66.
//   B (P3109): floor(ν·2^65) + 2R + 1 ≥ 2^65 → 2^-74: up iff R = 2^64 − 1; 2^-75: never.
//   C: RNE(ν·2^64) = RNE(1/2) = 0 → never; stochastic_odd: RNO(1/2) = 1 → up iff R = 2^64 − 1.
TEST(SrBits64, BelowTheWordBVariantAndTies) {
  const std::uint64_t all = ~std::uint64_t{0};
  const double a = std::ldexp(1, -74), b = std::ldexp(1, -75);
  EXPECT_EQ(rd(a, formats::e4m3fn, sr(SrVariant::b, 64), all).code, 0x01u);
  EXPECT_EQ(rd(a, formats::e4m3fn, sr(SrVariant::b, 64), all - 1).code, 0x00u);
  EXPECT_EQ(rd(b, formats::e4m3fn, sr(SrVariant::b, 64), all).code, 0x00u);
  EXPECT_EQ(rd(a, formats::e4m3fn, sr(SrVariant::c, 64), all).code, 0x00u);
  EXPECT_EQ(rd(a, formats::e4m3fn, sr(SrVariant::stochastic_odd, 64), all).code, 0x01u);
  EXPECT_EQ(rd(a, formats::e4m3fn, sr(SrVariant::stochastic_odd, 64), all - 1).code, 0x00u);
  // above the tie (ν·2^64 = 1/2 + 2^-6): C and stochastic_odd round t up to 1
  EXPECT_EQ(rd(a + std::ldexp(1, -80), formats::e4m3fn, sr(SrVariant::c, 64), all).code, 0x01u);
}

// Stream layout (random.hpp): N ≤ 32 reads one word (the stream of before, so outputs do not move),
// N > 32 two consecutive words, low first, as exact.
TEST(SrBits64, StreamLayout) {
  const SrStream s{.seed = 42, .stream = 3, .step = 1, .index_base = 5};
  for (std::uint64_t i = 0; i < 9; ++i) {
    EXPECT_EQ(sr_bits(42, 3, 1, 5 + i, sr(SrVariant::a, 32)), sr_bits(42, 3, 1, 5 + i, SrVariant::a));
    EXPECT_EQ(sr_bits(42, 3, 1, 5 + i, sr(SrVariant::c, 40)), sr_bits(42, 3, 1, 5 + i, SrVariant::exact));
    EXPECT_EQ(sr_bits(42, 3, 1, 5 + i, sr(SrVariant::stochastic_odd, 64)),
              std::uint64_t{curand_word(42, (std::uint64_t{1} << 32) | 3, 2 * (5 + i))} |
                  (std::uint64_t{curand_word(42, (std::uint64_t{1} << 32) | 3, 2 * (5 + i) + 1)} << 32));
  }
  std::vector<std::uint64_t> lib(9), scalar(9);
  fill_sr_bits(s, sr(SrVariant::b, 48), std::span<std::uint64_t>(lib));
  fill_sr_bits(s, sr(SrVariant::b, 48), scalar.data(), scalar.size());
  EXPECT_EQ(lib, scalar);
  for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(lib[i], sr_bits(42, 3, 1, 5 + i, SrVariant::exact));
}

// The array door (SIMD-eligible f32 → e4m3fn included) with N > 32 is the engine with sr_bits(…, spec).
TEST(SrBits64, ArrayDoorReadsTwoWords) {
  std::vector<float> x(5000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0f + static_cast<float>(i % 97) / 800.0f;
  const SrStream s{.seed = 7};
  for (const RoundingSpec spec : {sr(SrVariant::a, 40), sr(SrVariant::c, 64), sr(SrVariant::stochastic_odd, 8),
                                  sr(SrVariant::stochastic_odd, 33)}) {
    EXPECT_EQ(sr_path(formats::e4m3fn, spec, profiles::ocp), ArrayPath::engine);
    std::vector<std::uint8_t> out(x.size());
    sr_convert_f32(x, out, formats::e4m3fn, spec, s);
    for (std::size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(out[i], from_float(x[i], formats::e4m3fn, spec, profiles::ocp, sr_bits(7, 0, 0, i, spec)).code) << i;
  }
}

// ---- ftz / daz ----------------------------------------------------------------------------------

// e4m3fn: subnormal quantum 2^-9, min normal 2^-6. 0.01 = 5.12 quanta → 0x05, flushed to 0x00;
// 0.0155 = 7.94 quanta rounds up to the min normal 0x08 and is kept (rounding first).
TEST(Ftz, HandDerivedE4m3fnE5m2Bf16) {
  const RoundingSpec f{.ftz = true};
  EXPECT_EQ(rd(0.01, formats::e4m3fn, {}).code, 0x05u);
  EXPECT_EQ(rd(0.01, formats::e4m3fn, f).code, 0x00u);
  EXPECT_EQ(rd(0.01, formats::e4m3fn, f).flags, flag_inexact | flag_underflow);
  EXPECT_EQ(rd(-0.01, formats::e4m3fn, f).code, 0x80u);  // sign kept
  EXPECT_EQ(rd(0.0155, formats::e4m3fn, f).code, 0x08u);
  EXPECT_EQ(rd(std::ldexp(1, -9), formats::e4m3fn, f).code, 0x00u);  // an exact subnormal is flushed too
  EXPECT_EQ(rd(std::ldexp(1, -9), formats::e4m3fn, f).flags, flag_inexact | flag_underflow);
  EXPECT_EQ(rd(std::ldexp(1, -6), formats::e4m3fn, f).code, 0x08u);
  // e5m2: subnormal quantum 2^-16; 3·2^-16 is code 0x03
  EXPECT_EQ(rd(3 * std::ldexp(1, -16), formats::e5m2, {}).code, 0x03u);
  EXPECT_EQ(rd(3 * std::ldexp(1, -16), formats::e5m2, f).code, 0x00u);
  EXPECT_EQ(rd(-3 * std::ldexp(1, -16), formats::e5m2, f).code, 0x80u);
  // bf16: 2^-127 is the subnormal 0x0040
  EXPECT_EQ(convert(formats::f32, 0x00400000, formats::bf16, {}).code, 0x0040u);
  EXPECT_EQ(convert(formats::f32, 0x00400000, formats::bf16, f).code, 0x0000u);
  EXPECT_EQ(convert(formats::f32, 0x80400000, formats::bf16, f).code, 0x8000u);
  // with SR and with rnz too (one engine)
  EXPECT_EQ(rd(0.01, formats::e4m3fn, RoundingSpec{.rounding = Rounding::rnz, .ftz = true}).code, 0x00u);
  EXPECT_EQ(rd(0.01, formats::e4m3fn, RoundingSpec{.rounding = Rounding::sr, .ftz = true}, ~0ull).code, 0x00u);
}

// daz: the smallest subnormal INPUT reads as ±0: f32 0x00000001 (2^-149), e4m3fn 0x01 (2^-9),
// e5m2 0x01 (2^-16), bf16 0x0001 (2^-133); a normal input is untouched.
TEST(Daz, HandDerivedSmallestSubnormalInputs) {
  const RoundingSpec d{.daz = true};
  EXPECT_EQ(convert(formats::f32, 0x00000001, formats::f64, {}).code, 0x36a0000000000000u);  // 2^-149
  EXPECT_EQ(convert(formats::f32, 0x00000001, formats::f64, d).code, 0x0u);
  EXPECT_EQ(convert(formats::f32, 0x80000001, formats::f64, d).code, 0x8000000000000000u);
  EXPECT_EQ(convert(formats::e4m3fn, 0x01, formats::bf16, {}).code, 0x3b00u);
  EXPECT_EQ(convert(formats::e4m3fn, 0x01, formats::bf16, d).code, 0x0000u);
  EXPECT_EQ(convert(formats::e4m3fn, 0x81, formats::bf16, d).code, 0x8000u);
  EXPECT_EQ(convert(formats::e5m2, 0x01, formats::f32, d).code, 0x0u);
  EXPECT_EQ(convert(formats::e5m2, 0x04, formats::f32, d).code, 0x38800000u);  // 2^-14, normal
  EXPECT_EQ(convert(formats::bf16, 0x0001, formats::e4m3fn, d).code, 0x00u);
  EXPECT_EQ(convert(formats::f32, 0x00400000, formats::bf16, d).code, 0x0000u);
  EXPECT_EQ(convert(formats::f32, 0x00400000, formats::bf16, d).flags, flag_none);
}

// The SIMD table path (f32/bf16 → e4m3fn rne is SIMD-eligible) must not ignore the flags: with
// ftz or daz the door takes the engine, and the codes show the flag.
TEST(FtzDaz, SimdPathHonoursThem) {
  const RoundingSpec plain{}, f{.ftz = true}, d{.daz = true};
  ASSERT_EQ(encode_path(formats::e4m3fn, plain, profiles::ocp), ArrayPath::simd);  // the path the test forces
  EXPECT_EQ(encode_path(formats::e4m3fn, f, profiles::ocp), ArrayPath::engine);
  EXPECT_EQ(encode_path(formats::e4m3fn, d, profiles::ocp), ArrayPath::engine);
  std::vector<float> x(9000);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = i % 3 == 0 ? 0.01f : i % 3 == 1 ? -0.01f : 1.0f;
  x[7] = std::bit_cast<float>(std::uint32_t{0x00400000});  // an f32 subnormal input
  std::vector<std::uint8_t> a(x.size()), b(x.size());
  convert_f32(x, a, formats::e4m3fn, plain);
  convert_f32(x, b, formats::e4m3fn, f);
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(a[i], from_float(x[i], formats::e4m3fn).code);
    ASSERT_EQ(b[i], from_float(x[i], formats::e4m3fn, f).code);
  }
  EXPECT_EQ(a[0], 0x05u);
  EXPECT_EQ(b[0], 0x00u);
  EXPECT_EQ(b[1], 0x80u);
  EXPECT_EQ(b[2], 0x38u);
  // daz through the door from bf16 (0x0040 = 2^-127 → e4m3fn 0 either way) and codes (e4m3fn 0x01 → bf16)
  const std::vector<std::uint8_t> codes{0x01, 0x81, 0x08};
  std::vector<std::uint16_t> o(3);
  convert_array(ArrayIn::codes(std::span<const std::uint8_t>(codes), formats::e4m3fn), std::span<std::uint16_t>(o),
                {.to = formats::bf16, .spec = d});
  EXPECT_EQ(o, (std::vector<std::uint16_t>{0x0000, 0x8000, 0x3c80}));
  // SR: the fused table path is refused with ftz
  EXPECT_EQ(sr_path(formats::e4m3fn, RoundingSpec{.rounding = Rounding::sr, .ftz = true}, profiles::ocp),
            ArrayPath::engine);
}

// The block quantizer: ftz flushes element results (MXFP8 block with amax 448: scale 2^0, 0.01 → 0x05 → 0);
// daz reads subnormal inputs as 0 (a block of 1e-40 has amax 0 then: all codes 0).
TEST(FtzDaz, BlockQuantizer) {
  const Scheme s = parse_scheme("e4m3fn/1x32/e8m0fnu:ocp_floor");
  std::vector<float> x(32, 0.0f);
  x[0] = 448.0f;
  x[1] = 0.01f;
  x[2] = -0.01f;
  QuantOptions o;
  QuantizedTensor a = quantize(std::span<const float>(x), {32}, s, o);
  EXPECT_EQ(a.codes[1], 0x05u);
  o.rounding.ftz = true;
  QuantizedTensor b = quantize(std::span<const float>(x), {32}, s, o);
  EXPECT_EQ(b.codes[0], 0x7eu);
  EXPECT_EQ(b.codes[1], 0x00u);
  EXPECT_EQ(b.codes[2], 0x80u);
  std::vector<float> tiny(32, 1e-40f);
  QuantOptions od;
  QuantizedTensor c = quantize(std::span<const float>(tiny), {32}, s, od);
  EXPECT_NE(c.codes[0], 0x00u);
  od.rounding.daz = true;
  QuantizedTensor e = quantize(std::span<const float>(tiny), {32}, s, od);
  for (std::uint8_t code : e.codes) EXPECT_EQ(code, 0x00u);
}

}  // namespace
