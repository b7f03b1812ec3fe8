// SPDX-License-Identifier: Apache-2.0
// convert_array_test.cpp: the array door convert_array (convert_array.hpp) gives, for every input
// type and both code widths, exactly the codes and flags of the named span wrappers and of the
// scalar engine `convert` element by element; codes → codes equals decode (exact, to f64) → round
// once; every thread count (0 = all cores) gives the same bytes; sr_bits has one check.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "minifloat/convert_array.hpp"
#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/stochastic.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;

constexpr std::size_t kN = 20000;  // > 4 ranges of 4096, so threads 2 and 4 really split

/// Random inputs of every type, with specials and edge magnitudes mixed in.
struct Inputs {
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<std::uint16_t> f16, bf16;
  Inputs() {
    std::mt19937_64 rng(24);
    for (std::size_t i = 0; i < kN; ++i) {
      const std::uint64_t r = rng();
      float f;
      const auto b = static_cast<std::uint32_t>(r);
      std::memcpy(&f, &b, 4);
      f32.push_back(i % 3 == 0 ? f : static_cast<float>(static_cast<std::int32_t>(b) >> 20) / 64.f);
      double d;
      std::memcpy(&d, &r, 8);
      f64.push_back(i % 3 == 0 ? d : static_cast<double>(static_cast<std::int64_t>(r) >> 40) / 1e5);
      f16.push_back(static_cast<std::uint16_t>(r >> 16));
      bf16.push_back(static_cast<std::uint16_t>(r >> 32));
    }
  }
};
const Inputs& inputs() {
  static const Inputs in;
  return in;
}

std::vector<RoundingSpec> specs() {
  return {{Rounding::rne, Overflow::nonsat},
          {Rounding::rtz, Overflow::satfinite},
          {Rounding::sr, Overflow::satfinite, SrVariant::exact},
          {Rounding::sr, Overflow::nonsat, SrVariant::a, 5}};
}

constexpr SrStream kStream{.seed = 0x1234, .stream = 3, .step = 7, .index_base = 11};

/// The scalar engine's codes and flags for `bits_of(i)` of format `from`.
template <class Bits>
std::pair<std::vector<std::uint64_t>, unsigned> engine(Format from, Bits bits_of, std::size_t n, Format to,
                                                       RoundingSpec spec, Profile prof) {
  std::vector<std::uint64_t> codes(n);
  unsigned flags = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t rb = spec.rounding == Rounding::sr
                                 ? sr_bits(kStream.seed, kStream.stream, kStream.step, kStream.index_base + i,
                                           spec.sr_variant)
                                 : 0;
    const RoundResult r = convert(from, bits_of(i), to, spec, prof, rb);
    codes[i] = r.code;
    flags |= r.flags;
  }
  return {codes, flags};
}

/// Door and named wrapper for one input type into codes of type Code.
template <class Code, class T, class Wrapper, class SrWrapper>
void check_type(const char* what, ArrayIn in, std::span<const T> x, Format from, Wrapper named, SrWrapper sr_named,
                Format to) {
  for (const RoundingSpec& spec : specs()) {
    for (const Profile& prof : {profiles::ocp, profiles::ml_dtypes}) {
      const bool sr = spec.rounding == Rounding::sr;
      auto bits = [&](std::size_t i) -> std::uint64_t {
        if constexpr (sizeof(T) == 4) return detail::bit_cast<std::uint32_t>(x[i]);
        else if constexpr (sizeof(T) == 8) return detail::bit_cast<std::uint64_t>(x[i]);
        else return x[i];
      };
      const auto [want, want_flags] = engine(from, bits, x.size(), to, spec, prof);
      std::vector<Code> door(x.size()), wrap(x.size());
      ConvertRequest req{.to = to, .spec = spec, .profile = prof};
      if (sr) req.sr = kStream;
      const Flags fd = convert_array(in, std::span<Code>(door), req);
      const Flags fw = sr ? sr_named(x, std::span<Code>(wrap), to, spec, kStream, prof)
                          : named(x, std::span<Code>(wrap), to, spec, prof);
      const std::string ctx = std::string(what) + " → " + format_name(to) + " " +
                              std::string(rounding_name(spec.rounding)) + " " + std::string(profile_name(prof));
      EXPECT_EQ(unsigned{fd}, want_flags) << ctx;
      EXPECT_EQ(unsigned{fw}, want_flags) << ctx;
      for (std::size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(door[i], want[i]) << ctx << " at " << i;
        ASSERT_EQ(wrap[i], want[i]) << ctx << " at " << i;
      }
    }
  }
}

template <class Code>
void check_all_types(Format to) {
  const Inputs& in = inputs();
  check_type<Code, float>(
      "f32", ArrayIn::f32(in.f32), std::span<const float>(in.f32), formats::f32,
      [](auto x, auto o, Format t, RoundingSpec s, Profile p) { return convert_f32(x, o, t, s, p); },
      [](auto x, auto o, Format t, RoundingSpec s, const SrStream& st, Profile p) {
        return sr_convert_f32(x, o, t, s, st, p);
      },
      to);
  check_type<Code, double>(
      "f64", ArrayIn::f64(in.f64), std::span<const double>(in.f64), formats::f64,
      [](auto x, auto o, Format t, RoundingSpec s, Profile p) { return convert_f64(x, o, t, s, p); },
      [](auto x, auto o, Format t, RoundingSpec s, const SrStream& st, Profile p) {
        return sr_convert_f64(x, o, t, s, st, p);
      },
      to);
  check_type<Code, std::uint16_t>(
      "f16", ArrayIn::f16(in.f16), std::span<const std::uint16_t>(in.f16), formats::f16,
      [](auto x, auto o, Format t, RoundingSpec s, Profile p) { return convert_f16_bits(x, o, t, s, p); },
      [](auto x, auto o, Format t, RoundingSpec s, const SrStream& st, Profile p) {
        return sr_convert_f16_bits(x, o, t, s, st, p);
      },
      to);
  check_type<Code, std::uint16_t>(
      "bf16", ArrayIn::bf16(in.bf16), std::span<const std::uint16_t>(in.bf16), formats::bf16,
      [](auto x, auto o, Format t, RoundingSpec s, Profile p) { return convert_bf16_bits(x, o, t, s, p); },
      [](auto x, auto o, Format t, RoundingSpec s, const SrStream& st, Profile p) {
        return sr_convert_bf16_bits(x, o, t, s, st, p);
      },
      to);
}

TEST(ConvertArray, DoorEqualsWrappersAndEngineFor8BitCodes) {
  check_all_types<std::uint8_t>(formats::e4m3fn);
  check_all_types<std::uint8_t>(formats::e2m1fn);
}
TEST(ConvertArray, DoorEqualsWrappersAndEngineFor16BitCodes) { check_all_types<std::uint16_t>(formats::bf16); }

TEST(ConvertArray, CodesToCodesIsDecodeThenRoundOnce) {
  // Every e5m2 code (and then some) → e2m1fn and e4m3fn: the door's codes path against decoding
  // exactly to binary64 with decode_to_f64 and rounding that array once with convert_f64.
  std::vector<std::uint8_t> codes(kN);
  for (std::size_t i = 0; i < kN; ++i) codes[i] = static_cast<std::uint8_t>(i * 7);
  std::vector<double> values(kN);
  decode_to_f64(codes, values, formats::e5m2);
  for (Format to : {formats::e2m1fn, formats::e4m3fn}) {
    for (const RoundingSpec& spec : specs()) {
      const bool sr = spec.rounding == Rounding::sr;
      std::vector<std::uint8_t> door(kN), want(kN);
      ConvertRequest req{.to = to, .spec = spec};
      if (sr) req.sr = kStream;
      const Flags fd = convert_array(ArrayIn::codes(codes, formats::e5m2), std::span<std::uint8_t>(door), req);
      const Flags fw = sr ? sr_convert_f64(values, want, to, spec, kStream) : convert_f64(values, want, to, spec);
      EXPECT_EQ(unsigned{fd}, unsigned{fw}) << format_name(to) << " " << rounding_name(spec.rounding);
      EXPECT_EQ(door, want) << format_name(to) << " " << rounding_name(spec.rounding);
      // The same codes in wider words give the same result.
      std::vector<std::uint64_t> wide(codes.begin(), codes.end());
      std::vector<std::uint8_t> door64(kN);
      convert_array(ArrayIn::codes(std::span<const std::uint64_t>(wide), formats::e5m2),
                    std::span<std::uint8_t>(door64), req);
      EXPECT_EQ(door64, want);
    }
  }
}

TEST(ConvertArray, CodesWiderThanTheirFormatAreRejectedByIndex) {
  std::vector<std::uint8_t> codes(9000, 0x3);
  codes[5000] = 0x10;
  codes[8000] = 0x20;
  std::vector<std::uint8_t> out(codes.size());
  for (unsigned t : {1u, 2u, 0u}) {
    try {
      convert_array(ArrayIn::codes(codes, formats::e2m1fn), std::span<std::uint8_t>(out),
                    {.to = formats::e4m3fn, .threads = t}, "x");
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "x: code 0x10 at index 5000 is wider than the 4 bits of e2m1fn") << t;
    }
  }
}

TEST(ConvertArray, EveryThreadCountGivesTheSameBytes) {
  const Inputs& in = inputs();
  std::vector<std::uint8_t> codes(kN);
  for (std::size_t i = 0; i < kN; ++i) codes[i] = static_cast<std::uint8_t>(in.f16[i]);
  const std::vector<ArrayIn> arrays = {ArrayIn::f32(in.f32), ArrayIn::f64(in.f64), ArrayIn::f16(in.f16),
                                       ArrayIn::bf16(in.bf16), ArrayIn::codes(codes, formats::e4m3)};
  for (const ArrayIn& a : arrays) {
    for (const RoundingSpec& spec : specs()) {
      ConvertRequest req{.to = formats::e5m2, .spec = spec};
      if (spec.rounding == Rounding::sr) req.sr = kStream;
      std::vector<std::uint8_t> one(kN);
      req.threads = 1;
      const Flags f1 = convert_array(a, std::span<std::uint8_t>(one), req);
      for (unsigned t : {0u, 2u, 3u, 4u, 64u}) {
        std::vector<std::uint8_t> many(kN);
        req.threads = t;
        EXPECT_EQ(unsigned{convert_array(a, std::span<std::uint8_t>(many), req)}, unsigned{f1});
        EXPECT_EQ(many, one) << "type " << static_cast<int>(a.type) << " threads " << t;
      }
    }
  }
  // threads = 0 is all cores on the named wrappers too (it was an error before issue 24).
  std::vector<std::uint8_t> a(kN), b(kN);
  convert_f32(in.f32, a, formats::e4m3fn, {}, profiles::ocp, {}, 0);
  convert_f32(in.f32, b, formats::e4m3fn, {}, profiles::ocp, {}, 1);
  EXPECT_EQ(a, b);
  sr_convert_f16_bits(in.f16, a, formats::e4m3fn, {Rounding::sr}, kStream, profiles::ocp, 0);
  sr_convert_f16_bits(in.f16, b, formats::e4m3fn, {Rounding::sr}, kStream, profiles::ocp, 1);
  EXPECT_EQ(a, b);
}

TEST(ConvertArray, SrBitsHasOneCheck) {
  EXPECT_EQ(sr_bits_problem(1), "");
  EXPECT_EQ(sr_bits_problem(32), "");
  EXPECT_EQ(sr_bits_problem(64), "");  // issue 25 item 5: up to 64 (two 32-bit words per element)
  EXPECT_EQ(sr_bits_problem(0), "0 is out of range; accepted: 1..64");
  EXPECT_EQ(sr_bits_problem(65), "65 is out of range; accepted: 1..64");
  const std::vector<float> x(4, 1.f);
  std::vector<std::uint8_t> o(4);
  for (int bits : {0, 65}) {
    const RoundingSpec spec{Rounding::sr, Overflow::nonsat, SrVariant::a, static_cast<std::uint8_t>(bits)};
    const std::string want = ": sr_bits " + sr_bits_problem(bits);
    try {
      sr_convert_f32(x, o, formats::e4m3fn, spec, kStream);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "sr_convert_f32" + want);
    }
    try {
      convert_array(ArrayIn::f32(x), std::span<std::uint8_t>(o), {.to = formats::e4m3fn, .spec = spec, .sr = kStream});
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "convert_array" + want);
    }
  }
}

TEST(ConvertArray, RejectsBadRequests) {
  const std::vector<float> x(4, 1.f);
  std::vector<std::uint8_t> o(4);
  auto error_of = [&](const ConvertRequest& r) -> std::string {
    try {
      convert_array(ArrayIn::f32(x), std::span<std::uint8_t>(o), r);
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(error_of({.to = formats::e4m3fn, .sr = kStream}).find("spec.rounding is rne; accepted: sr"),
            std::string::npos);
  const std::vector<std::uint64_t> rb(4);
  EXPECT_NE(error_of({.to = formats::e4m3fn, .spec = {Rounding::sr}, .sr = kStream, .rbits = rb})
                .find("both an SR stream and rbits"),
            std::string::npos);
  EXPECT_NE(error_of({.to = formats::e4m3fn, .spec = {Rounding::sr}}).find("random bits per element"),
            std::string::npos);
  const std::vector<std::uint8_t> codes(4);
  std::vector<std::uint8_t> out(4);
  try {
    convert_array(ArrayIn::codes(codes, formats::bf16), std::span<std::uint8_t>(out), {.to = formats::e4m3fn});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "convert_array: codes of bf16 are 16 bits wide; the input's code words have 8");
  }
}

}  // namespace
}  // namespace minifloat_test
