// SPDX-License-Identifier: Apache-2.0
// sr_unit_test.cpp: stochastic rounding, exactly: Philox known answers (Random123 kat_vectors,
// spec-digest §8), cuRAND/PyTorch addressing (T25), the stream layout, exhaustive enumeration of
// the N-bit variants against the IEEE P3109 v4.0 §4.7.4 formulas, the exact variant's 64-bit
// threshold, T17, the array API's contract, and the `encode --round sr` helper.
#include <gtest/gtest.h>

#include <Random123/philox.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <sstream>
#include <vector>

#include "../../src/cli/cmd_sr_encode.hpp"
#include "grid_oracle.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/minifloat.hpp"
#include "minifloat/parse.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/stochastic.hpp"

namespace {
using namespace minifloat;
using minifloat_test::grid_formats;
using minifloat_test::grid_neighbours;
using minifloat_test::grid_values;
using minifloat_test::GridFormat;

// ---- Philox known answers: Random123 tests/kat_vectors, "philox4x32 10" (spec-digest §8) -------

TEST(PhiloxKat, Random123Vectors_10Rounds) {
  struct Kat {
    std::uint32_t c[4], k[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& t : kats) {
    const PhiloxBlock b = philox4x32_10(t.c[0], t.c[1], t.c[2], t.c[3], t.k[0], t.k[1]);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(b.w[i], t.out[i]) << "word " << i;
  }
}

TEST(PhiloxKat, Random123Vector_7Rounds) {
  // "philox4x32 7" row of kat_vectors: counter 0, key 0 → 5f6fb709 0d893f64 4f121f81 4f730a48.
  r123::Philox4x32_R<7> gen;
  const auto out = gen({{0, 0, 0, 0}}, {{0, 0}});
  EXPECT_EQ(out.v[0], 0x5f6fb709u);
  EXPECT_EQ(out.v[1], 0x0d893f64u);
  EXPECT_EQ(out.v[2], 0x4f121f81u);
  EXPECT_EQ(out.v[3], 0x4f730a48u);
}

// ---- cuRAND addressing (spec-digest §8, T25) -----------------------------------------------------

TEST(CurandAddressing, InitZeroGivesFirstKatRow) {
  // curand_init(0, 0, 0) then four curand() = Philox(counter 0, key 0).
  const std::uint32_t want[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(curand_word(0, 0, static_cast<std::uint64_t>(i)), want[i]);
}

TEST(CurandAddressing, Seed42Subsequence1) {
  // spec-digest §8: curand_init(42, 1, 0) → 02933769 2051e913 3b68b038 b62c409c.
  const std::uint32_t want[4] = {0x02933769, 0x2051e913, 0x3b68b038, 0xb62c409c};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(curand_word(42, 1, static_cast<std::uint64_t>(i)), want[i]);
}

TEST(CurandAddressing, T25_CurandOffset4kIsPytorchOffsetK) {
  // PyTorch at::philox_engine(seed, subsequence, offset k) starts at counter (k as the low 64 bits,
  // subsequence as the high 64 bits), key (seed lo, seed hi) — computed here with Random123 directly.
  const std::uint64_t seeds[] = {0, 42, 0x123456789abcdef0ULL};
  const std::uint64_t subs[] = {0, 1, 0xfedcba9876543210ULL};
  const std::uint64_t ks[] = {0, 1, 7, 0x100000003ULL};
  r123::Philox4x32 gen;
  for (auto seed : seeds)
    for (auto sub : subs)
      for (auto k : ks) {
        const auto out = gen({{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(k >> 32),
                               static_cast<std::uint32_t>(sub), static_cast<std::uint32_t>(sub >> 32)}},
                             {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}});
        for (std::uint64_t j = 0; j < 4; ++j) EXPECT_EQ(curand_word(seed, sub, 4 * k + j), out.v[j]);
        // An offset of k (PyTorch units) passed to cuRAND lands 4x too early: a different word.
        if (k != 0) {
          EXPECT_NE(curand_word(seed, sub, k), out.v[0]);
        }
      }
}

// ---- the SR stream layout (random.hpp) -----------------------------------------------------------

TEST(SrStreamLayout, ExactReadsTwoConsecutiveCurandDraws) {
  for (std::uint64_t seed : {0ULL, 1ULL, 0xdeadbeefcafef00dULL})
    for (std::uint32_t stream : {0u, 5u})
      for (std::uint32_t step : {0u, 3u})
        for (std::uint64_t i : {0ULL, 1ULL, 2ULL, 3ULL, 1000001ULL}) {
          const std::uint64_t sub = (std::uint64_t{step} << 32) | stream;
          const std::uint64_t want =
              std::uint64_t{curand_word(seed, sub, 2 * i)} | (std::uint64_t{curand_word(seed, sub, 2 * i + 1)} << 32);
          EXPECT_EQ(sr_bits(seed, stream, step, i, SrVariant::exact), want);
          for (SrVariant v : {SrVariant::a, SrVariant::b, SrVariant::c, SrVariant::equal})
            EXPECT_EQ(sr_bits(seed, stream, step, i, v), curand_word(seed, sub, i));
        }
}

TEST(SrStreamLayout, FillMatchesScalarForAnyBase) {
  for (SrVariant v : {SrVariant::exact, SrVariant::a}) {
    for (std::uint64_t base : {0ULL, 1ULL, 3ULL, 4095ULL, (1ULL << 33) + 5}) {
      std::vector<std::uint64_t> out(37);
      fill_sr_bits(SrStream{7, 2, 9, base}, v, out);
      for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], sr_bits(7, 2, 9, base + i, v)) << base << "+" << i;
    }
  }
}

// The core's scalar, device-safe fill (core/random.hpp) gives the same words as the library's
// vectorized one, for every variant, any base (a wrap of counter word c0 included) and any length.
TEST(SrStreamLayout, CoreFillMatchesLibraryFill) {
  for (SrVariant v : {SrVariant::exact, SrVariant::a, SrVariant::b, SrVariant::c, SrVariant::equal}) {
    for (std::uint64_t base : {0ULL, 1ULL, 2ULL, 3ULL, 4095ULL, (1ULL << 34) - 7, (1ULL << 33) + 5}) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1031}}) {
        std::vector<std::uint64_t> lib(n), core(n, 0x5555);
        fill_sr_bits(SrStream{0x123456789abcdefULL, 3, 11, base}, v, lib);
        fill_sr_bits(SrStream{0x123456789abcdefULL, 3, 11, base}, v, core.data(), core.size());
        EXPECT_EQ(core, lib) << sr_variant_name(v) << " base " << base << " n " << n;
      }
    }
  }
}

// ---- exhaustive enumeration of the N-bit variants ------------------------------------------------
//
// For an input x with grid neighbours RD < x < RU (grid_oracle.hpp, independent of the engine) and
// ν = (x − RD)/(RU − RD), enumerate every R in 0…2^N − 1 (with junk above bit N, which must be
// ignored) and count how often the engine returns RU. IEEE P3109 v4.0 §4.7.4 / spec-digest §3.2:
//   StochasticA<N>: up iff floor(ν·2^N) + R ≥ 2^N            → count = floor(ν·2^N)
//   StochasticB<N>: up iff floor(ν·2^(N+1)) + 2R + 1 ≥ 2^(N+1) → count = floor((floor(ν·2^(N+1)) + 1)/2)
//   StochasticC<N>: up iff RNE(ν·2^N) + R ≥ 2^N              → count = RNE(ν·2^N)
//   equal (CPFloat CPFLOAT_RND_SE): up iff bit 0 of R is 1     → count = 2^(N−1)

struct Case {
  const char* what;
  const char* fmt;  // grid format name
  double x;         // exact input (given as a double; f32 inputs are exact doubles too)
  bool from_f32;    // feed it to the engine as binary32 (else binary64)
};

const GridFormat& grid(const char* name) {
  for (const auto& g : grid_formats())
    if (g.name == name) return g;
  throw std::runtime_error("no grid format");
}

double f32_of_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::vector<Case> enumeration_cases() {
  std::vector<Case> c{
      {"midpoint 1.0625 (nu=1/2)", "e4m3fn", 1.0625, true},
      {"T17 1+2^-12 (nu=2^-9)", "e4m3fn", f32_of_bits(0x3F800800), true},
      {"subnormal midpoint 3*2^-10", "e4m3fn", 3 * std::ldexp(1.0, -10), true},
      {"subnormal 0.3*2^-9", "e4m3fn", 0.3 * std::ldexp(1.0, -9), false},
      {"below min subnormal 2^-12", "e4m3fn", std::ldexp(1.0, -12), true},
      {"largest finite interval 440", "e4m3fn", 440.0, true},
      {"just below max 447.75", "e4m3fn", 447.75, true},
      {"beyond max 464 (RU overflows)", "e4m3fn", 464.0, true},
      {"beyond max 470.5", "e4m3fn", 470.5, true},
      {"carry 0x3FFFFFFF -> 2.0", "e4m3fn", f32_of_bits(0x3FFFFFFF), true},
      {"negative -1.0625", "e4m3fn", -1.0625, true},
      {"negative subnormal -5*2^-11", "e4m3fn", -5 * std::ldexp(1.0, -11), true},
      {"e5m2 subnormal 2.6*2^-16", "e5m2", 2.6 * std::ldexp(1.0, -16), false},
      {"e5m2 above max 60000", "e5m2", 60000.0, true},
      {"e4m3fnuz 250", "e4m3fnuz", 250.0, true},
      {"e4m3fnuz -0.4*2^-10", "e4m3fnuz", -0.4 * std::ldexp(1.0, -10), false},
      {"e2m1fn 5.5", "e2m1fn", 5.5, true},
      {"e2m1fn 0.2", "e2m1fn", 0.2, false},
      {"e2m1fn 6.9 (beyond max)", "e2m1fn", 6.9, false},
      {"e3m2fn 27.1", "e3m2fn", 27.1, false},
      {"e2m3fn 0.01", "e2m3fn", 0.01, false},
      {"f16 1+1/3*2^-10", "f16", 1.0 + std::ldexp(1.0 / 3, -10), false},
      {"f16 subnormal", "f16", 0.7 * std::ldexp(1.0, -24), false},
      {"bf16 f32 0x3F80FFFF", "bf16", f32_of_bits(0x3F80FFFF), true},
  };
  // k/2^12 points between 1 and 1.125 in e4m3fn: ν = k/4096 exactly.
  for (int k : {1, 2, 3, 255, 256, 257, 1365, 2048, 2049, 4095})
    c.push_back({"k/2^12 point", "e4m3fn", 1.0 + std::ldexp(k, -15), true});
  return c;
}

Format engine_format(const GridFormat& g) { return parse_format(g.name); }

std::uint64_t engine_sr(const GridFormat& g, const Case& c, RoundingSpec spec, Overflow ov, std::uint64_t rbits) {
  spec.overflow = ov;
  if (c.from_f32) return from_float(static_cast<float>(c.x), engine_format(g), spec, profiles::ocp, rbits).code;
  return from_double(c.x, engine_format(g), spec, profiles::ocp, rbits).code;
}

TEST(SrEnumeration, NBitVariantsMatchP3109Formulas) {
  for (const Case& c : enumeration_cases()) {
    const GridFormat& g = grid(c.fmt);
    const auto vals = grid_values(g);
    if (c.from_f32) {
      ASSERT_EQ(static_cast<double>(static_cast<float>(c.x)), c.x) << c.what;
    }
    const double nu = minifloat_test::grid_fraction(g, vals, c.x);
    for (Overflow ov : {Overflow::nonsat, Overflow::satfinite}) {
      const auto nb = grid_neighbours(g, vals, c.x, ov == Overflow::satfinite);
      for (int n : {1, 2, 3, 8, 12}) {
        const double two_n = std::ldexp(1.0, n);
        const std::uint64_t want_a = static_cast<std::uint64_t>(std::floor(nu * two_n));
        const std::uint64_t f = static_cast<std::uint64_t>(std::floor(nu * 2 * two_n));
        const std::uint64_t want_b = (f + 1) / 2;
        const std::uint64_t want_c = static_cast<std::uint64_t>(std::nearbyint(nu * two_n));  // ties-to-even
        const std::uint64_t want_eq = nu > 0 ? (std::uint64_t{1} << (n - 1)) : 0;
        const std::pair<SrVariant, std::uint64_t> variants[] = {
            {SrVariant::a, want_a}, {SrVariant::b, want_b}, {SrVariant::c, want_c}, {SrVariant::equal, want_eq}};
        for (auto [v, want] : variants) {
          RoundingSpec spec{Rounding::sr, ov, v, static_cast<std::uint8_t>(n)};
          std::uint64_t ups = 0, downs = 0;
          for (std::uint64_t r = 0; r < (std::uint64_t{1} << n); ++r) {
            const std::uint64_t junk = 0x9e3779b97f4a7c15ULL << n;  // bits above N must be ignored
            const std::uint64_t code = engine_sr(g, c, spec, ov, r | (n < 64 ? junk : 0));
            if (code == nb.up && code != nb.down) {
              ++ups;
            } else if (code == nb.down) {
              ++downs;
            } else {
              ADD_FAILURE() << c.what << ": code " << code << " is neither RD " << nb.down << " nor RU " << nb.up;
            }
          }
          if (nb.up == nb.down) continue;  // both neighbours overflow: nothing to count
          EXPECT_EQ(ups, want) << c.what << " variant " << sr_variant_name(v) << " N=" << n << " nu=" << nu
                               << (ov == Overflow::nonsat ? " nonsat" : " satfinite");
        }
      }
    }
  }
}

// T17 (spec-digest §11): e4m3fn, x = 1 + 2^−12 (f32 0x3F800800), N = 8:
// P(up) A = 0, B = 1/256, C = 0, exact = 1/512 — by enumeration for A/B/C.
TEST(SrEnumeration, T17_BiasOfABC) {
  const float x = static_cast<float>(f32_of_bits(0x3F800800));
  auto count = [&](SrVariant v) {
    int ups = 0;
    for (std::uint64_t r = 0; r < 256; ++r)
      ups += from_float(x, formats::e4m3fn, {Rounding::sr, Overflow::satfinite, v, 8}, profiles::ocp, r).code == 0x39;
    return ups;
  };
  EXPECT_EQ(count(SrVariant::a), 0);
  EXPECT_EQ(count(SrVariant::b), 1);  // 1/256
  EXPECT_EQ(count(SrVariant::c), 0);
  // exact: up iff R < 2^−9 · 2^64 = 2^55, i.e. P = 2^55/2^64 = 1/512.
  const RoundingSpec ex{Rounding::sr, Overflow::satfinite, SrVariant::exact, 8};
  EXPECT_EQ(from_float(x, formats::e4m3fn, ex, profiles::ocp, (1ULL << 55) - 1).code, 0x39u);
  EXPECT_EQ(from_float(x, formats::e4m3fn, ex, profiles::ocp, 1ULL << 55).code, 0x38u);
}

// ---- the exact variant's 64-bit threshold ---------------------------------------------------------
//
// Definition (issue 3): round up iff a 64-bit uniform integer R is below ν·2^64. With
// F = floor(ν·2^64): ν·2^64 = F exactly (no sticky) → up iff R ≤ F − 1; ν·2^64 > F (sticky) → up iff R ≤ F.

struct ThresholdCase {
  const char* what;
  Unpacked x;
  Format to;
  std::uint64_t down, up;  // codes (OCP OFP8 Table 1 / IEEE 754)
  std::uint64_t F;         // floor(ν·2^64), worked out by hand in the comment
  bool sticky;             // ν·2^64 is not an integer
};

TEST(SrExactThreshold, AroundFloorNuTimes2To64) {
  const double tiny = std::ldexp(1.0, -30) * (1 + std::ldexp(1.0, -52));
  const std::vector<ThresholdCase> cases{
      // 1.0625 → e4m3fn: ν = 1/2, F = 2^63, exact.
      {"1.0625", unpack(formats::f64, detail::bit_cast<std::uint64_t>(1.0625)), formats::e4m3fn, 0x38, 0x39,
       1ULL << 63, false},
      // 1 + 2^−12 → e4m3fn: ν = 2^−9, F = 2^55.
      {"1+2^-12", unpack(formats::f64, detail::bit_cast<std::uint64_t>(1 + std::ldexp(1.0, -12))), formats::e4m3fn,
       0x38, 0x39, 1ULL << 55, false},
      // 2^−30 → e4m3fn (quantum 2^−9): ν = 2^−21, F = 2^43.
      {"2^-30", unpack(formats::f64, detail::bit_cast<std::uint64_t>(std::ldexp(1.0, -30))), formats::e4m3fn, 0x00,
       0x01, 1ULL << 43, false},
      // 2^−30·(1 + 2^−52) → e4m3fn: ν = 2^−21 + 2^−73, ν·2^64 = 2^43 + 2^−9 → F = 2^43, sticky.
      {"2^-30(1+2^-52) f64, bits below 2^-64", unpack(formats::f64, detail::bit_cast<std::uint64_t>(tiny)),
       formats::e4m3fn, 0x00, 0x01, 1ULL << 43, true},
      // (17 + σ)·2^−4 (sticky Unpacked) → e4m3fn: ν = ½ + σ/2 → F = 2^63, sticky.
      {"(17+s)/16 sticky", Unpacked{Class::normal, false, 17, -4, true}, formats::e4m3fn, 0x38, 0x39, 1ULL << 63,
       true},
      // 2^−1074 (f64 min subnormal) → f16 (quantum 2^−24): ν = 2^−1050 → F = 0, sticky.
      {"f64 min subnormal", unpack(formats::f64, 1), formats::f16, 0x0000, 0x0001, 0, true},
      // f64 1 + 2^−52 → f32 (quantum 2^−23): ν = 2^−29, F = 2^35.
      {"f64 1+2^-52 to f32", unpack(formats::f64, detail::bit_cast<std::uint64_t>(1 + std::ldexp(1.0, -52))),
       formats::f32, 0x3F800000, 0x3F800001, 1ULL << 35, false},
  };
  for (const auto& c : cases)
    for (Overflow ov : {Overflow::nonsat, Overflow::satfinite}) {
      const RoundingSpec spec{Rounding::sr, ov, SrVariant::exact, 8};
      auto at = [&](std::uint64_t r) { return round_pack(c.to, c.x, spec, profiles::ocp, r).code; };
      const std::uint64_t last_up = c.sticky ? c.F : c.F - 1;  // the largest R that rounds up
      if (c.F > 0 || c.sticky) {
        EXPECT_EQ(at(last_up), c.up) << c.what << " R=last_up";
      }
      EXPECT_EQ(at(last_up + 1), c.down) << c.what << " R=last_up+1";
      if (last_up > 0) {
        EXPECT_EQ(at(last_up - 1), c.up) << c.what << " R=last_up-1";
      }
      EXPECT_EQ(at(0), c.up) << c.what << " R=0";
      EXPECT_EQ(at(~0ULL), c.down) << c.what << " R=2^64-1";
      EXPECT_EQ(at(c.F), c.sticky ? c.up : c.down) << c.what << " R=F";
    }
}

TEST(SrExactThreshold, RepresentableNeverMovesAndZeroIgnoresBits) {
  const RoundingSpec spec{Rounding::sr, Overflow::nonsat, SrVariant::exact, 8};
  for (std::uint64_t r : {0ULL, 1ULL, ~0ULL, 1ULL << 63}) {
    EXPECT_EQ(from_double(1.0, formats::e4m3fn, spec, profiles::ocp, r).code, 0x38u);
    EXPECT_EQ(from_double(448.0, formats::e4m3fn, spec, profiles::ocp, r).code, 0x7Eu);
    EXPECT_EQ(from_double(0.0, formats::e4m3fn, spec, profiles::ocp, r).code, 0x00u);
    EXPECT_EQ(from_double(-0.0, formats::e4m3fn, spec, profiles::ocp, r).code, 0x80u);
  }
}

// ---- array API contract --------------------------------------------------------------------------

TEST(SrArray, ElementIsScalarConvertWithStreamBits) {
  std::vector<float> in;
  for (int i = 0; i < 3000; ++i) in.push_back(std::ldexp(1.0f + static_cast<float>(i) / 3000.0f, i % 20 - 12));
  for (SrVariant v : {SrVariant::exact, SrVariant::a, SrVariant::b, SrVariant::c, SrVariant::equal}) {
    const RoundingSpec spec{Rounding::sr, Overflow::satfinite, v, 5};
    const SrStream s{99, 4, 2, 1000};
    std::vector<std::uint8_t> out(in.size());
    sr_convert_f32(in, out, formats::e4m3fn, spec, s);
    for (std::size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(out[i], from_float(in[i], formats::e4m3fn, spec, profiles::ocp, sr_bits(99, 4, 2, 1000 + i, v)).code)
          << i;
  }
}

TEST(SrArray, RejectsBadArguments) {
  std::vector<float> in(4, 1.0f);
  std::vector<std::uint8_t> out(4), shortout(3);
  const SrStream s{};
  EXPECT_THROW(sr_convert_f32(in, out, formats::e4m3fn, RoundingSpec{}, s), Error);  // rne
  EXPECT_THROW(sr_convert_f32(in, out, formats::e4m3fn, {Rounding::sr, Overflow::nonsat, SrVariant::a, 0}, s), Error);
  EXPECT_THROW(sr_convert_f32(in, out, formats::e4m3fn, {Rounding::sr, Overflow::nonsat, SrVariant::a, 65}, s), Error);
  EXPECT_THROW(sr_convert_f32(in, shortout, formats::e4m3fn, {Rounding::sr}, s), Error);
  EXPECT_THROW(sr_convert_f32(in, out, formats::f16, {Rounding::sr}, s), Error);  // 16-bit format in u8
  // threads = 0 is all cores (issue 24: one convention; it was an error before)
  EXPECT_NO_THROW(sr_convert_f32(in, out, formats::e4m3fn, {Rounding::sr}, s, profiles::ocp, 0));
  try {
    sr_convert_f32(in, out, formats::e4m3fn, {Rounding::sr, Overflow::nonsat, SrVariant::b, 65}, s);
    ADD_FAILURE() << "no error for sr_bits 65";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1..64"), std::string::npos) << e.what();
  }
}

// ---- `minifloat encode --round sr` helper (issue 3 "Must show") ----------------------------------

TEST(SrEncodeCli, E4m3fn_1_0625_Seed1_Count10000) {
  const Unpacked v = parse_value("1.0625");
  const RoundingSpec spec{Rounding::sr, Overflow::nonsat, SrVariant::exact, 8};
  const auto a = cli::sr_encode_codes(formats::e4m3fn, v, spec, profiles::ocp, 1, 0, 10000);
  ASSERT_EQ(a.size(), 10000u);
  std::size_t up = 0;
  for (auto c : a) {
    ASSERT_TRUE(c == 0x38 || c == 0x39) << c;
    up += c == 0x39;
  }
  // ν = 1/2: Binomial(10000, ½), σ = 50; 5σ bound.
  EXPECT_GE(up, 5000u - 250u);
  EXPECT_LE(up, 5000u + 250u);
  EXPECT_EQ(cli::sr_encode_codes(formats::e4m3fn, v, spec, profiles::ocp, 1, 0, 10000), a);  // rerun: identical
  EXPECT_NE(cli::sr_encode_codes(formats::e4m3fn, v, spec, profiles::ocp, 2, 0, 10000), a);  // --seed 2 differs
  EXPECT_NE(cli::sr_encode_codes(formats::e4m3fn, v, spec, profiles::ocp, 1, 1, 10000), a);  // --stream 1 differs
  std::ostringstream os;
  cli::print_codes(os, formats::e4m3fn, {0x38, 0x39, 0x7});
  EXPECT_EQ(os.str(), "0x38\n0x39\n0x07\n");
}

TEST(SrEncodeCli, ValidatesFlags) {
  using cli::SrEncodeFlags;
  auto plan = cli::validate_sr_encode_flags(SrEncodeFlags{Rounding::sr, std::nullopt, std::nullopt, 1, std::nullopt,
                                                          10000});
  EXPECT_EQ(plan.variant, SrVariant::exact);
  EXPECT_EQ(plan.seed, 1u);
  EXPECT_EQ(plan.count, 10000u);
  plan = cli::validate_sr_encode_flags(SrEncodeFlags{Rounding::sr, "b", 12, 5, 7, std::nullopt});
  EXPECT_EQ(plan.variant, SrVariant::b);
  EXPECT_EQ(plan.sr_bits, 12);
  EXPECT_EQ(plan.stream, 7u);
  EXPECT_EQ(plan.count, 1u);
  auto bad = [](SrEncodeFlags f, const char* needle) {
    try {
      cli::validate_sr_encode_flags(f);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(needle), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    }
  };
  bad({Rounding::sr, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt}, "--seed");
  bad({Rounding::sr, "A", 0, 1, std::nullopt, std::nullopt}, "1..64");
  bad({Rounding::sr, "A", 65, 1, std::nullopt, std::nullopt}, "1..64");
  bad({Rounding::sr, std::nullopt, 8, 1, std::nullopt, std::nullopt}, "--sr-bits");  // exact takes no N
  bad({Rounding::sr, "D", std::nullopt, 1, std::nullopt, std::nullopt}, "exact, A, B, C, equal, stochastic_odd");
  bad({Rounding::sr, std::nullopt, std::nullopt, 1, std::nullopt, 0}, "--count");
  bad({Rounding::sr, std::nullopt, std::nullopt, 1, -1, std::nullopt}, "--stream");
  bad({Rounding::rne, std::nullopt, std::nullopt, 1, std::nullopt, std::nullopt}, "--round sr");
}

}  // namespace
