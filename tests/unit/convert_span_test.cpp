// SPDX-License-Identifier: Apache-2.0
// convert_span_test.cpp: the span (array) API agrees element by element with the scalar
// `convert` on random data for every mode/policy/source, pins spec literals, and rejects bad calls.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/format.hpp"
#include "minifloat/core/named_profiles.hpp"
#include "minifloat/registry.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;

constexpr std::size_t kN = 1536;  // elements per (format, mode, policy, profile, source) case

std::uint32_t f32_bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
std::uint64_t f64_bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}
float f32_from(std::uint32_t b) {
  float v;
  std::memcpy(&v, &b, 4);
  return v;
}
double f64_from(std::uint64_t b) {
  double v;
  std::memcpy(&v, &b, 8);
  return v;
}

/// Random doubles: a third raw 64-bit patterns (NaN, Inf, subnormals included), a third
/// magnitudes around the target's range [2^(emin−4), 2^(emax+2)), a third near its codes'
/// values and their midpoints (± a few ulps of the source), plus ±0, ±Inf, NaN.
std::vector<double> random_doubles(std::mt19937_64& rng, Format to, std::size_t n, bool f32_range) {
  std::vector<double> v;
  v.reserve(n);
  v.push_back(0.0);
  v.push_back(-0.0);
  v.push_back(INFINITY);
  v.push_back(-INFINITY);
  v.push_back(NAN);
  v.push_back(-NAN);
  std::uniform_int_distribution<int> pick(0, 2);
  std::uniform_int_distribution<int> ex(emin(to) - 4, emax(to) + 2);
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  std::uniform_int_distribution<std::uint64_t> code(0, code_mask(to));
  std::uniform_int_distribution<int> nudge(-3, 3);
  while (v.size() < n) {
    double x = 0;
    switch (pick(rng)) {
      case 0: x = f32_range ? static_cast<double>(f32_from(static_cast<std::uint32_t>(rng()))) : f64_from(rng()); break;
      case 1: x = std::ldexp(unit(rng), ex(rng)) * ((rng() & 1) ? -1 : 1); break;
      default: {
        const double a = to_double(to, code(rng)), b = to_double(to, code(rng));
        x = (rng() & 1) ? a : (a + b) / 2;
        if (!std::isfinite(x)) x = a;
        for (int k = nudge(rng); k != 0; k += k > 0 ? -1 : 1)
          x = f32_range ? std::nextafter(static_cast<float>(x), k > 0 ? INFINITY : -INFINITY)
                        : std::nextafter(x, k > 0 ? INFINITY : -INFINITY);
      }
    }
    v.push_back(x);
  }
  return v;
}

struct Case {
  const char* name;
  Format format;
};
// Every format with a compiled loop of its own (the kArrayPath rows of core/named_formats.hpp), plus formats
// that take the run-time path.
const std::vector<Case> kNarrow = [] {
  std::vector<Case> v;
  for (const auto& r : kNamedFormats)
    if (r.paths & kArrayPath) v.push_back({r.name, r.format});
  v.push_back({"Binary8p3se", p3109(8, 3, Signedness::signed_, P3109Domain::extended)});
  v.push_back({"Binary8p1uf", p3109(8, 1, Signedness::unsigned_, P3109Domain::finite)});
  v.push_back({"Binary5p2sf", p3109(5, 2, Signedness::signed_, P3109Domain::finite)});
  return v;
}();
const std::vector<Case> kWide = {
    {"f16", formats::f16}, {"bf16", formats::bf16}, {"Binary16p8se", p3109(16, 8, Signedness::signed_, P3109Domain::extended)},
    {"e4m3fn_in_u16", formats::e4m3fn},
};
const Rounding kModes[] = {Rounding::rne, Rounding::rna, Rounding::rtz, Rounding::rtp,
                           Rounding::rtn, Rounding::rto, Rounding::sr};
const Overflow kPolicies[] = {Overflow::nonsat, Overflow::satfinite, Overflow::satpropagate};
/// Every named profile (core/named_profiles.hpp).
const std::vector<Profile> kProfiles = [] {
  std::vector<Profile> v;
  for (const auto& r : kNamedProfiles) v.push_back(r.profile);
  return v;
}();

/// Compare one span call with the scalar engine, element by element, and the flags' OR.
template <class Code>
void check_all_sources(const Case& c, std::mt19937_64& rng) {
  std::vector<std::uint64_t> rbits(kN);
  for (Rounding mode : kModes) {
    for (Overflow pol : kPolicies) {
      for (const Profile& prof : kProfiles) {
        RoundingSpec spec{mode, pol, SrVariant::exact, 8};
        if (mode == Rounding::sr) {
          spec.sr_variant = static_cast<SrVariant>(rng() % 5);
          spec.sr_bits = static_cast<std::uint8_t>(1 + rng() % 32);
        }
        for (auto& r : rbits) r = rng();
        const std::span<const std::uint64_t> rb =
            mode == Rounding::sr ? std::span<const std::uint64_t>(rbits) : std::span<const std::uint64_t>();
        const std::uint64_t rb_or0 = mode == Rounding::sr ? 1 : 0;  // scalar gets rbits[i] only for sr
        const std::string where = std::string(c.name) + " " + std::string(rounding_name(mode)) + " " +
                                  std::string(overflow_name(pol));
        std::vector<Code> out(kN);

        // f64 source
        const std::vector<double> d = random_doubles(rng, c.format, kN, false);
        Flags got = convert_f64(d, out, c.format, spec, prof, rb);
        unsigned want = 0;
        for (std::size_t i = 0; i < kN; ++i) {
          const RoundResult r = minifloat::convert(formats::f64, f64_bits(d[i]), c.format, spec, prof, rbits[i] * rb_or0);
          ASSERT_EQ(out[i], r.code) << where << " f64 input " << std::hexfloat << d[i];
          want |= r.flags;
        }
        EXPECT_EQ(got, want) << where << " f64";

        // f32 source (through the `convert` overload)
        std::vector<float> f(kN);
        const std::vector<double> d2 = random_doubles(rng, c.format, kN, true);
        for (std::size_t i = 0; i < kN; ++i) f[i] = static_cast<float>(d2[i]);
        got = minifloat::convert(std::span<const float>(f), std::span<Code>(out), c.format, spec, prof, rb);
        want = 0;
        for (std::size_t i = 0; i < kN; ++i) {
          const RoundResult r = minifloat::convert(formats::f32, f32_bits(f[i]), c.format, spec, prof, rbits[i] * rb_or0);
          ASSERT_EQ(out[i], r.code) << where << " f32 input " << std::hexfloat << f[i];
          want |= r.flags;
        }
        EXPECT_EQ(got, want) << where << " f32";

        // f16 and bf16 raw bits (uniform over all 2^16 patterns)
        std::vector<std::uint16_t> h(kN);
        for (auto& x : h) x = static_cast<std::uint16_t>(rng());
        for (int src = 0; src < 2; ++src) {
          const Format sf = src == 0 ? formats::f16 : formats::bf16;
          got = src == 0 ? convert_f16_bits(h, out, c.format, spec, prof, rb)
                         : convert_bf16_bits(h, out, c.format, spec, prof, rb);
          want = 0;
          for (std::size_t i = 0; i < kN; ++i) {
            const RoundResult r = minifloat::convert(sf, h[i], c.format, spec, prof, rbits[i] * rb_or0);
            ASSERT_EQ(out[i], r.code) << where << (src == 0 ? " f16" : " bf16") << " input 0x" << std::hex << h[i];
            want |= r.flags;
          }
          EXPECT_EQ(got, want) << where << (src == 0 ? " f16" : " bf16");
        }
      }
    }
  }
}

TEST(ConvertSpan, MatchesScalarConvertNarrowCodes) {
  std::mt19937_64 rng(0x5eed0001);
  for (const Case& c : kNarrow) check_all_sources<std::uint8_t>(c, rng);
}

TEST(ConvertSpan, MatchesScalarConvertWideCodes) {
  std::mt19937_64 rng(0x5eed0002);
  for (const Case& c : kWide) check_all_sources<std::uint16_t>(c, rng);
}

TEST(ConvertSpan, DecodeMatchesScalarConvertEveryCode) {
  for (const Case& c : kNarrow) {
    std::vector<std::uint8_t> codes(code_mask(c.format) + 1);
    for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i);
    for (const Profile& prof : kProfiles) {
      std::vector<float> f(codes.size());
      std::vector<double> d(codes.size());
      unsigned want32 = 0, want64 = 0;
      const Flags got32 = decode_to_f32(codes, f, c.format, prof);
      const Flags got64 = decode_to_f64(codes, d, c.format, prof);
      for (std::size_t i = 0; i < codes.size(); ++i) {
        const RoundResult r32 = minifloat::convert(c.format, i, formats::f32, {}, prof);
        const RoundResult r64 = minifloat::convert(c.format, i, formats::f64, {}, prof);
        ASSERT_EQ(f32_bits(f[i]), r32.code) << c.name << " code " << i;
        ASSERT_EQ(f64_bits(d[i]), r64.code) << c.name << " code " << i;
        want32 |= r32.flags;
        want64 |= r64.flags;
      }
      EXPECT_EQ(got32, want32) << c.name;
      EXPECT_EQ(got64, want64) << c.name;
    }
  }
  for (const Case& c : kWide) {
    std::vector<std::uint16_t> codes(std::size_t{1} << 16);
    for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint16_t>(i & code_mask(c.format));
    std::vector<float> f(codes.size());
    decode_to_f32(codes, f, c.format);
    for (std::size_t i = 0; i < codes.size(); ++i)
      ASSERT_EQ(f32_bits(f[i]), minifloat::convert(c.format, codes[i], formats::f32).code) << c.name << " code " << i;
  }
}

// Spec literals (spec-digest §11 traps, OCP OFP8 v1.0 Table 1), independent of the engine.
TEST(ConvertSpan, SpecLiterals) {
  const std::vector<float> f = {464.f, -1.f, 448.f, 0.f, -0.f};
  std::vector<std::uint8_t> out(f.size());
  const Flags fl = convert_f32(f, out, formats::e4m3fn);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{0x7e, 0xb8, 0x7e, 0x00, 0x80}));  // T1
  EXPECT_EQ(fl, flag_inexact);

  const std::vector<float> t3 = {61440.f};  // T3
  convert_f32(t3, std::span(out).subspan(0, 1), formats::e5m2);
  EXPECT_EQ(out[0], 0x7c);
  convert_f32(t3, std::span(out).subspan(0, 1), formats::e5m2, {Rounding::rne, Overflow::satfinite});
  EXPECT_EQ(out[0], 0x7b);

  const std::vector<double> t8 = {248.0};  // T8
  std::vector<std::uint8_t> o1(1);
  convert_f64(t8, o1, formats::e4m3fnuz);
  EXPECT_EQ(o1[0], 0x80);
  convert_f64(t8, o1, formats::e4m3fnuz, {Rounding::rne, Overflow::satfinite});
  EXPECT_EQ(o1[0], 0x7f);

  const std::vector<double> t11 = {1.0625 + std::ldexp(1.0, -40)};  // T11
  convert_f64(t11, o1, formats::e4m3fn);
  EXPECT_EQ(o1[0], 0x39);
  convert_f64(t11, o1, formats::e4m3fn, {}, profiles::ml_dtypes);
  EXPECT_EQ(o1[0], 0x38);

  const std::vector<std::uint16_t> one_f16 = {0x3c00}, one_bf16 = {0x3f80};
  convert_f16_bits(one_f16, o1, formats::e4m3fn);
  EXPECT_EQ(o1[0], 0x38);
  convert_bf16_bits(one_bf16, o1, formats::e2m1fn);
  EXPECT_EQ(o1[0], 0x2);

  const std::vector<float> to_half = {1.f, 65520.f, 65519.f};
  std::vector<std::uint16_t> h(3);
  EXPECT_EQ(convert_f32(to_half, h, formats::f16), flag_inexact | flag_overflow);
  EXPECT_EQ(h, (std::vector<std::uint16_t>{0x3c00, 0x7c00, 0x7bff}));

  const std::vector<std::uint8_t> codes = {0x7e, 0x01};
  std::vector<float> dec(2);
  decode_to_f32(codes, dec, formats::e4m3fn);
  EXPECT_EQ(dec[0], 448.f);
  EXPECT_EQ(dec[1], std::ldexp(1.f, -9));
  const std::vector<std::uint8_t> scale0 = {0x00};
  std::vector<float> s(1);
  decode_to_f32(scale0, s, formats::e8m0fnu);
  EXPECT_EQ(f32_bits(s[0]), 0x00400000u);
}

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ConvertSpan, RejectsBadCalls) {
  std::vector<float> f(4, 1.f);
  std::vector<std::uint8_t> o3(3), o4(4);
  std::vector<std::uint16_t> w4(4);
  EXPECT_NE(error_of([&] { convert_f32(f, o3, formats::e4m3fn); }).find("4 elements but the output has 3"),
            std::string::npos);
  EXPECT_NE(error_of([&] { convert_f32(f, o4, formats::f16); }).find("f16 has 16 bits"), std::string::npos);
  EXPECT_NE(error_of([&] { convert_f32(f, w4, formats::f32); }).find("f32 has 32 bits"), std::string::npos);
  const Format bad{.bits = 8, .exponent_bits = 4, .mantissa_bits = 4, .bias = 7, .is_signed = true,
                   .specials = Specials::fn, .has_zero = true};  // 1 + 4 + 4 != 8
  EXPECT_NE(error_of([&] { convert_f32(f, o4, bad); }).find("invalid format"), std::string::npos);
  EXPECT_NE(error_of([&] { convert_f32(f, o4, formats::e4m3fn, {Rounding::sr}); }).find("random bits"),
            std::string::npos);
  std::vector<std::uint64_t> rb(4);
  EXPECT_NE(error_of([&] {
              convert_f32(f, o4, formats::e4m3fn, {Rounding::sr, Overflow::nonsat, SrVariant::a, 65}, profiles::ocp,
                          rb);
            }).find("sr_bits 65 is out of range; accepted: 1..64"),
            std::string::npos);
  std::vector<std::uint8_t> wide_code = {0x10};
  std::vector<float> d(1);
  EXPECT_NE(error_of([&] { decode_to_f32(wide_code, d, formats::e2m1fn); }).find("wider than the 4 bits of e2m1fn"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { convert_f32(f, o4, formats::e4m3fn, {}, profiles::ocp, rb); }), "(no error)");
}

}  // namespace
}  // namespace minifloat_test
