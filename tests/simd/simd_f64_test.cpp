// SPDX-License-Identifier: Apache-2.0
// simd_f64_test.cpp: binary64 sources through the SIMD array path (simd/f64-inl.h: narrowing to a
// binary32 pattern, then the f32 table kernel) against THE engine (core/convert.hpp, `convert` on
// the double, one element at a time), on every Highway target this CPU supports and the library
// compiled (each forced with hwy::SetSupportedTargetsForTest), for every whitelisted combination
// (12 formats × 6 modes × 3 overflow policies × 4 profiles, ml_dtypes with its f32 step), codes per
// element and flags per call. Oracle: the engine; nothing here is copied from the kernel.
//  - SimdF64Exhaustive.Binary32EdgesEveryCombinationEveryTarget (label exhaustive): a fixed list of the doubles at and next to
//    binary32's range edges (2^128, FLT_MAX and its rounding boundary, 2^−126, 2^−127, 2^−128,
//    2^−149, 2^−150), f64 subnormals, NaNs with payloads only in the low bits, ±Inf, ±0, DBL_MAX.
//  - SimdF64Props.*: RapidCheck with boundary-biased doubles (every tie, overflow threshold and
//    subnormal boundary of the format, moved by f64 ulps and by binary32 ulps, plus the list above
//    and log-uniform exponents over the whole f64 range).
//  - SimdF64Exhaustive.EveryKeyRepresentative...: every f32 key representative of each format, as a
//    double, and the doubles one f64 ulp above and below it (label exhaustive): in the default run
//    every format × mode with the profile and policy rotated (72 combinations, ~1 s); with
//    MINIFLOAT_SIMD_F64_ALL=1 (test simd.f64_keys_all_combinations, label long) all 864.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/registry.hpp"
#include "per_target.hpp"
#include "simd/convert_simd.hpp"
#include "simd/f64_simd.hpp"

namespace mf = minifloat;

namespace {

using mf::simd::kFormats;
using mf::simd::kModes;
using mf::simd::kPolicies;
using mf::simd::kProfiles;

double from_bits(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
std::uint64_t to_bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

/// The doubles around binary32's range edges and the f64 specials (each also negated, and moved by
/// −2..2 f64 ulps where that stays a finite nonzero of the same sign).
std::vector<double> edge_doubles() {
  std::vector<std::uint64_t> core = {
      0x47F0000000000000ull,  // 2^128
      0x47EFFFFFE0000000ull,  // FLT_MAX
      0x47EFFFFFF0000000ull,  // FLT_MAX + half a binary32 ulp (its rne overflow boundary)
      0x47EFFFFFE8000000ull,  // FLT_MAX + a quarter ulp
      0x7FEFFFFFFFFFFFFFull,  // DBL_MAX
      0x4800000000000000ull,  // 2^129
      0x3810000000000000ull,  // 2^-126
      0x3800000000000000ull,  // 2^-127
      0x37F0000000000000ull,  // 2^-128
      0x37F8000000000000ull,  // 1.5 * 2^-128
      0x380FFFFFF0000000ull,  // 2^-126 - half a binary32 ulp (rounds to 2^-126: not tiny)
      0x380FFFFFE0000000ull,  // largest binary32 subnormal
      0x3800000010000000ull,  // 2^-127 + half a subnormal ulp... of binary32 at 24 bits
      0x3810000010000000ull,  // 2^-126 + half a binary32 ulp (tie)
      0x36A0000000000000ull,  // 2^-149
      0x3690000000000000ull,  // 2^-150
      0x3698000000000000ull,  // 1.5 * 2^-150
      0x3680000000000000ull,  // 2^-151
      0x36A8000000000000ull,  // 1.5 * 2^-149 (tie between two subnormals)
      0x3000000000000000ull,  // 2^-255
      0x0000000000000001ull,  // smallest f64 subnormal
      0x000FFFFFFFFFFFFFull,  // largest f64 subnormal
      0x0010000000000000ull,  // smallest f64 normal
      0x3FF0000000000000ull,  // 1
      0x3FF8000000000000ull,  // 1.5
      0x3FF0000000000001ull,  // 1 + f64 ulp (sticky only below binary32)
      0x3FF0000020000000ull,  // 1 + binary32 ulp
      0x3FF0000010000000ull,  // 1 + half a binary32 ulp
  };
  std::vector<double> out;
  for (std::uint64_t b : core)
    for (int k = -2; k <= 2; ++k)
      for (std::uint64_t s : {std::uint64_t{0}, std::uint64_t{1} << 63}) {
        const std::uint64_t v = b + static_cast<std::uint64_t>(static_cast<std::int64_t>(k));
        if ((v >> 52) == 0x7FF || (v >> 63) != 0) continue;  // stays finite and positive before the sign
        out.push_back(from_bits(v | s));
      }
  for (std::uint64_t s : {std::uint64_t{0}, std::uint64_t{1} << 63})
    for (std::uint64_t b : {0x0000000000000000ull, 0x7FF0000000000000ull,                       // 0, Inf
                            0x7FF8000000000000ull, 0x7FF0000000000001ull, 0x7FF0000010000000ull,  // NaNs: payload
                            0x7FF0000020000000ull, 0x7FF7FFFFFFFFFFFFull, 0x7FFFFFFFFFFFFFFFull,  // low bits only too
                            0x7FF8000000000001ull})
      out.push_back(from_bits(b | s));
  return out;
}

struct Combo {
  mf::Format to;
  mf::RoundingSpec spec;
  mf::Profile prof;
  std::string name;
};
Combo combo(std::size_t f, std::size_t m, std::size_t o, std::size_t p) {
  Combo c{kFormats[f], {.rounding = kModes[m], .overflow = kPolicies[o]}, kProfiles[p], ""};
  c.name = "format " + std::to_string(f) + " mode " + std::to_string(m) + " policy " + std::to_string(o) + " " +
           std::string(mf::profile_name(kProfiles[p]));
  return c;
}

/// Number of mismatches (codes, plus one for wrong flags) of the array API on `in` against the
/// engine, on the Highway target in force; the first few are reported. Flags are compared for the whole array and
/// for each group of `group` elements (the kernel called on that group alone), so one element's
/// missing or extra flag is not hidden by the others.
std::size_t mismatches(const Combo& c, const std::vector<double>& in, unsigned threads = 1, std::size_t group = 1) {
  std::vector<std::uint8_t> want(in.size());
  std::vector<unsigned> want_each(in.size());
  unsigned want_flags = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const mf::RoundResult r = mf::from_double(in[i], c.to, c.spec, c.prof);
    want[i] = static_cast<std::uint8_t>(r.code);
    want_each[i] = r.flags;
    want_flags |= r.flags;
  }
  const mf::simd::EncodeTable* table = mf::simd::encode_table(c.to, c.spec, c.prof);
  const mf::simd::F64Encode plan = mf::simd::f64_encode_plan(c.to, c.spec, c.prof);
  std::size_t bad = 0;
  const char* target = mf::simd::target_name();
  {
    std::uint8_t part[64];
    for (std::size_t i = 0; i < in.size(); i += group) {
      const std::size_t n = std::min(group, in.size() - i);
      unsigned w = 0;
      for (std::size_t k = 0; k < n; ++k) w |= want_each[i + k];
      const unsigned got = mf::simd::encode_f64(*table, plan, in.data() + i, part, n);
      if (got != w && ++bad <= 3)
        ADD_FAILURE() << target << ", " << c.name << ": flags 0x" << std::hex << got << " of elements from 0x"
                      << to_bits(in[i]) << " (" << std::dec << n << "), engine 0x" << std::hex << w;
    }
    std::vector<std::uint8_t> out(in.size(), 0xAA);
    const unsigned flags = mf::convert_f64(in, out, c.to, c.spec, c.prof, {}, threads);
    for (std::size_t i = 0; i < in.size(); ++i)
      if (out[i] != want[i] && ++bad <= 3)
        ADD_FAILURE() << target << ", " << c.name << ": input 0x" << std::hex << to_bits(in[i]) << " gives 0x"
                      << unsigned{out[i]} << ", engine 0x" << unsigned{want[i]};
    if (flags != want_flags && ++bad <= 3)
      ADD_FAILURE() << target << ", " << c.name << ": flags 0x" << std::hex << flags << ", engine 0x" << want_flags;
  }
  return bad;
}

TEST(SimdF64, EveryWhitelistedCombinationTakesTheSimdPath) {
  // the f64 path is that of encode_path (convert_span.hpp): convert_f64 into std::uint8_t codes
  for (std::size_t f = 0; f < kFormats.size(); ++f)
    for (std::size_t p = 0; p < kProfiles.size(); ++p)
      EXPECT_EQ(mf::encode_path(kFormats[f], {}, kProfiles[p]), mf::ArrayPath::simd);
}

/// The exhaustive and property suites run once per Highway target (per_target.hpp).
class SimdF64Exhaustive : public minifloat_test::PerTarget {};
MINIFLOAT_INSTANTIATE_PER_TARGET(SimdF64Exhaustive);
class SimdF64Props : public minifloat_test::PerTarget {};
MINIFLOAT_INSTANTIATE_PER_TARGET(SimdF64Props);

TEST_P(SimdF64Exhaustive, Binary32EdgesEveryCombination) {
  const std::vector<double> in = edge_doubles();
  std::size_t bad = 0, runs = 0;
  for (std::size_t f = 0; f < kFormats.size(); ++f)
    for (std::size_t m = 0; m < kModes.size(); ++m)
      for (std::size_t o = 0; o < kPolicies.size(); ++o)
        for (std::size_t p = 0; p < kProfiles.size(); ++p) {
          bad += mismatches(combo(f, m, o, p), in);
          ++runs;
        }
  EXPECT_EQ(bad, 0u) << "over " << runs << " combinations of " << in.size() << " doubles";
}

TEST(SimdF64, ThreadsAndChunkingGiveTheSameBytes) {
  // Beyond-binary32 doubles spread over a long array: the per-block patch and the range split.
  std::vector<double> in;
  const std::vector<double> e = edge_doubles();
  for (std::size_t i = 0; i < 40000; ++i) in.push_back(e[(i * 7919) % e.size()] * ((i % 3) == 0 ? 1.0 : 0.75));
  for (mf::Format to : {mf::formats::e8m0fnu, mf::formats::e4m3fn}) {
    for (mf::Profile prof : {mf::profiles::ocp, mf::profiles::ml_dtypes}) {
      const mf::RoundingSpec spec{.rounding = mf::Rounding::rtz, .overflow = mf::Overflow::nonsat};
      std::vector<std::uint8_t> one(in.size()), three(in.size());
      const unsigned f1 = mf::convert_f64(in, one, to, spec, prof, {}, 1);
      EXPECT_EQ(unsigned{mf::convert_f64(in, three, to, spec, prof, {}, 3)}, f1);
      EXPECT_EQ(three, one);
      for (std::size_t i = 0; i < in.size(); i += 97)
        ASSERT_EQ(one[i], mf::from_double(in[i], to, spec, prof).code) << i;
    }
  }
}

// ---- RapidCheck -------------------------------------------------------------------------------------

/// Boundary-biased doubles for `to`: a code's value, the midpoint of two neighbouring codes (every
/// tie and the half of the smallest subnormal), or the overflow thresholds max·(1 + 2^−(M+1)) and
/// 2·max, moved by −3..3 f64 ulps and by −1..1 binary32 ulps; an edge double; log-uniform over the
/// whole f64 exponent range; or arbitrary bits (NaN payloads, f64 subnormals); either sign.
rc::Gen<double> boundary_f64(mf::Format to) {
  static const std::vector<double> edges = edge_doubles();
  return rc::gen::apply(
      [to](int kind, std::uint32_t code, int ulps, int f32_ulps, bool neg, std::uint64_t any, int exp) {
        double v = 0;
        if (kind == 0) return from_bits(any);
        if (kind == 1) return edges[any % edges.size()];
        if (kind == 2) {
          v = std::ldexp(1.0 + static_cast<double>(any >> 12) * 0x1p-52, exp);
        } else {
          const std::uint32_t n = 1u << to.bits;
          const double a = mf::to_double(to, code % n), b = mf::to_double(to, (code + 1) % n);
          const double max = mf::to_double(to, mf::max_finite_magnitude(to));
          v = kind == 3 ? a : kind == 4 ? (a + b) / 2 : kind == 5 ? max * (1 + std::ldexp(1.0, -(to.mantissa_bits + 1))) : 2 * max;
          if (!std::isfinite(v)) v = max;
        }
        std::uint64_t bits = to_bits(std::fabs(v));
        if (bits != 0) {
          bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(bits) + ulps +
                                            (static_cast<std::int64_t>(f32_ulps) << 29));
        }
        if (neg) bits ^= std::uint64_t{1} << 63;
        return from_bits(bits);
      },
      rc::gen::inRange(0, 7), rc::gen::arbitrary<std::uint32_t>(), rc::gen::inRange(-3, 4), rc::gen::inRange(-1, 2),
      rc::gen::arbitrary<bool>(), rc::gen::arbitrary<std::uint64_t>(), rc::gen::inRange(-1100, 1100));
}

TEST_P(SimdF64Props, ArraysEqualTheEngineEveryCombination) {
  EXPECT_TRUE(rc::check([] {
    const auto f = *rc::gen::inRange<std::size_t>(0, kFormats.size());
    const auto m = *rc::gen::inRange<std::size_t>(0, kModes.size());
    const auto o = *rc::gen::inRange<std::size_t>(0, kPolicies.size());
    const auto p = *rc::gen::inRange<std::size_t>(0, kProfiles.size());
    const auto in = *rc::gen::container<std::vector<double>>(boundary_f64(kFormats[f]));
    RC_ASSERT(mismatches(combo(f, m, o, p), in, 1 + static_cast<unsigned>(in.size() % 2)) == 0u);
  }));
}

// ---- every key representative and its f64 neighbours (label exhaustive) ---------------------------

TEST_P(SimdF64Exhaustive, EveryKeyRepresentativeAndItsF64Neighbours) {
  const char* env = std::getenv("MINIFLOAT_SIMD_F64_ALL");
  const bool all = env != nullptr && std::string(env) == "1";
  std::size_t bad = 0, inputs = 0, runs = 0;
  for (std::size_t f = 0; f < kFormats.size(); ++f) {
    const mf::Format to = kFormats[f];
    const int drop = 21 - to.mantissa_bits;
    std::vector<double> in;
    for (std::uint32_t k = 0; k < (std::uint32_t{1} << (to.mantissa_bits + 12)); ++k) {
      const std::uint32_t rep = ((k >> 1) << drop) | (k & 1);
      float x;
      std::memcpy(&x, &rep, 4);
      const double d = x;  // exact
      in.push_back(d);
      if (std::isfinite(d)) {
        in.push_back(std::nextafter(d, std::numeric_limits<double>::infinity()));
        in.push_back(std::nextafter(d, -std::numeric_limits<double>::infinity()));
      }
    }
    for (std::size_t m = 0; m < kModes.size(); ++m)
      for (std::size_t o = 0; o < kPolicies.size(); ++o)
        for (std::size_t p = 0; p < kProfiles.size(); ++p) {
          if (!all && (o != (f + 2 * m) % kPolicies.size() || p != (f + m) % kProfiles.size())) continue;
          bad += mismatches(combo(f, m, o, p), in, 1, 16);
          inputs += in.size();
          ++runs;
        }
  }
  EXPECT_EQ(bad, 0u) << inputs << " inputs";
  std::printf("%s: %zu combinations, %zu inputs\n", mf::simd::target_name(), runs, inputs);
}

}  // namespace
