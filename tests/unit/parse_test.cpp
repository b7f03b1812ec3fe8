// SPDX-License-Identifier: Apache-2.0
// parse_test.cpp: decimals and hex floats are parsed exactly and rounded once.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "minifloat/minifloat.hpp"
#include "minifloat/parse.hpp"

namespace {
using namespace minifloat;

std::uint64_t enc(const char* text, Format f, RoundingSpec s = {}) { return round_pack(f, parse_value(text), s).code; }
double as_double(const char* text) {
  const auto r = round_pack(formats::f64, parse_value(text));
  double d;
  std::memcpy(&d, &r.code, 8);
  return d;
}

TEST(Parse, DecimalsMatchCorrectlyRoundedStrtod) {
  // glibc strtod is correctly rounded (rne): an independent check of the f64 path.
  for (const char* t : {"0.1", "-1e-7", "3.14159265358979323846264338327950288", "1e308", "2.2250738585072014e-308",
                        "4.9406564584124654e-324", "123456789012345678901234567890", "-.5", "448", "1E-5",
                        "2.4703282292062328e-324", "1.7976931348623158e308"})
    EXPECT_EQ(as_double(t), std::strtod(t, nullptr)) << t;
}

// Oracle: glibc strtod, correctly rounded in the current rounding direction (it honours
// fesetround), on random decimals that take the 128-bit fast path (≤ 19 digits, |exponent| ≤ 19)
// and the big-integer path (long mantissas, large exponents, subnormal range).
TEST(Parse, RandomDecimalsMatchStrtodInEveryDirection) {
  std::mt19937_64 rng(20261129);
  const std::pair<int, Rounding> modes[] = {
      {FE_TONEAREST, Rounding::rne}, {FE_TOWARDZERO, Rounding::rtz}, {FE_UPWARD, Rounding::rtp}, {FE_DOWNWARD, Rounding::rtn}};
  int checked = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string t;
    if (rng() & 1) t.push_back('-');
    const int digits = 1 + static_cast<int>(rng() % (i % 3 == 0 ? 40 : 19));
    const int dot = (rng() & 1) ? static_cast<int>(rng() % static_cast<unsigned>(digits)) : -1;
    for (int d = 0; d < digits; ++d) {
      if (d == dot) t.push_back('.');
      t.push_back(static_cast<char>('0' + (d == 0 ? 1 + rng() % 9 : rng() % 10)));
    }
    const int range = i % 4 == 0 ? 340 : 25;
    t.push_back('e');
    t.append(std::to_string(static_cast<int>(rng() % static_cast<unsigned>(2 * range + 1)) - range));
    const Unpacked u = parse_value(t);
    for (const auto& [fe, mode] : modes) {
      std::fesetround(fe);
      const double want = std::strtod(t.c_str(), nullptr);
      std::fesetround(FE_TONEAREST);
      const std::uint64_t got = round_pack(formats::f64, u, {mode, Overflow::nonsat}).code;
      std::uint64_t want_bits;
      std::memcpy(&want_bits, &want, 8);
      ASSERT_EQ(got, want_bits) << t << " mode " << static_cast<int>(mode);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 80000);
}

TEST(Parse, HexFloatsAreExact) {
  EXPECT_EQ(as_double("0x1.8p3"), 12.0);
  EXPECT_EQ(as_double("-0x.8p-2"), -0.125);
  EXPECT_EQ(as_double("0x1p-1074"), std::numeric_limits<double>::denorm_min());
}

TEST(Parse, DecimalsRoundOnceNotThroughADouble) {
  // 1.0625 + 1e-25 is above the e4m3fn tie 1.0625 but rounds to the tie as a double (T11-like).
  EXPECT_EQ(enc("1.0625000000000000000000001", formats::e4m3fn), 0x39u);
  EXPECT_EQ(enc("1.0625", formats::e4m3fn), 0x38u);
  EXPECT_EQ(enc("464.0000000000000000000001", formats::e4m3fn), 0x7fu);
  EXPECT_EQ(enc("464", formats::e4m3fn), 0x7eu);
  // rtz/rtp on 0.1 in f32: exact bracketing of 0.1 by floats 0x3dcccccc < 0.1 < 0x3dcccccd
  EXPECT_EQ(enc("0.1", formats::f32, {Rounding::rtz}), 0x3dccccccu);
  EXPECT_EQ(enc("0.1", formats::f32, {Rounding::rtp}), 0x3dcccccdu);
}

TEST(Parse, SpecialsAndHugeExponents) {
  EXPECT_EQ(enc("inf", formats::e5m2), 0x7cu);
  EXPECT_EQ(enc("-inf", formats::e5m2), 0xfcu);
  EXPECT_EQ(enc("-Infinity", formats::e5m2), 0xfcu);
  EXPECT_EQ(enc("nan", formats::e4m3fn), 0x7fu);
  EXPECT_EQ(enc("1e999999999", formats::e5m2), 0x7cu);
  EXPECT_EQ(enc("-1e-999999999", formats::e4m3fn), 0x80u);
  EXPECT_EQ(enc("1e-999999999", formats::e4m3fn, {Rounding::rtp}), 0x01u);
}

TEST(Parse, BadInputThrowsParseError) {
  for (const char* t : {"", "abc", "1.2.3", "1e", "0x1.8", "--1", "1x", "0x", "e5", "."})
    EXPECT_THROW(parse_value(t), ParseError) << t;
}

// Issue 28 item 14: one rule for hex text — a C99 hex float needs its binary exponent, with or without
// a point; 0x7e alone (a code, read as the value 126 before) is refused with the spellings of both.
TEST(Parse, HexWithoutExponentIsRefused) {
  for (const char* t : {"0x7e", "0x10", "-0x1", "0x1.8"}) {
    try {
      (void)parse_value(t);
      ADD_FAILURE() << t << " was accepted";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("binary exponent p"), std::string::npos) << e.what();
      if (std::string(t) == "0x7e") {
        EXPECT_NE(std::string(e.what()).find("0x7ep0"), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_EQ(parse_value("0x7ep0").exp + 63, 6);  // 126 = 0x7e: top bit 2^6
}

// Issue 9 item 10: the digit limit is documented (kMaxSignificantDigits) and the error quotes at
// most 40 bytes of the text, on one line.
TEST(Parse, TheDigitLimitIsKMaxSignificantDigits) {
  const std::string ones(kMaxSignificantDigits, '1');
  const Unpacked u = parse_value(ones);  // 111…1 (40000 ones) = (10^40000 − 1)/9, of 132874 bits
  EXPECT_EQ(u.cls, Class::normal);
  EXPECT_EQ(u.exp, 132810);  // its top 64 bits: 2^(132874 − 64)
  EXPECT_TRUE(u.sticky);
  EXPECT_NO_THROW(parse_value("0.000000" + ones + "e-5"));  // leading zeros are not counted
  EXPECT_NO_THROW(parse_value(ones + "e-40000"));
  try {
    parse_value(ones + "1");
    ADD_FAILURE() << "accepted 40001 digits";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 40000 significant digits"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_value("0x" + std::string(kMaxSignificantDigits + 1, 'f') + "p0"), ParseError);
}

// The limit counts the digits from the first nonzero one through the last nonzero one: trailing
// zeros (integer part: a power of the base; fraction: nothing) are not counted, interior ones are.
TEST(Parse, TrailingZerosAreNotSignificantDigits) {
  auto same = [](const std::string& a, const std::string& b) {
    const Unpacked x = parse_value(a), y = parse_value(b);
    EXPECT_EQ(x.cls, y.cls) << a.substr(0, 40) << " vs " << b;
    EXPECT_EQ(x.sig, y.sig) << a.substr(0, 40) << " vs " << b;
    EXPECT_EQ(x.exp, y.exp) << a.substr(0, 40) << " vs " << b;
    EXPECT_EQ(x.sticky, y.sticky) << a.substr(0, 40) << " vs " << b;
  };
  const std::string zeros(kMaxSignificantDigits + 5000, '0');
  same("1" + zeros, "1e45000");
  same("1.5" + zeros, "15e-1");
  same("0x1" + zeros + "p0", "0x1p180000");
  same("0x1." + zeros + "p0", "0x1p0");
  for (const auto& [a, b] : {std::pair{"100", "1e2"}, {"10.5", "105e-1"}, {"1.05", "105e-2"}, {"0.05", "5e-2"},
                             {"0.050", "5e-2"}, {"120.000", "12e1"}, {"0x10p0", "0x1p4"}, {"0x.08p0", "0x1p-5"}})
    same(a, b);
  const std::string inner(kMaxSignificantDigits - 2, '0');
  EXPECT_NO_THROW(parse_value("1" + inner + "1"));          // exactly 40000 significant digits
  EXPECT_THROW(parse_value("1" + inner + "01"), ParseError);  // 40001: the interior zeros count
}

TEST(Parse, ErrorsQuoteAShortPrefixOnOneLine) {
  const std::string megabyte(1 << 20, '7');
  for (const std::string& text : {megabyte + "x", megabyte, std::string("1\n2"), std::string("\x01\xff")}) {
    try {
      parse_value(text);
      ADD_FAILURE() << "accepted";
    } catch (const ParseError& e) {
      const std::string m = e.what();
      EXPECT_LT(m.size(), 300u) << m.substr(0, 300);
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      if (text.size() > 40) {
        EXPECT_NE(m.find("'" + text.substr(0, 40) + "…'"), std::string::npos) << m;
      }
    }
  }
  try {
    parse_value("1\n");
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("unexpected character '\\x0a'"), std::string::npos) << e.what();
  }
}

// A binary exponent beyond int32 wrapped around in Unpacked::exp (0x1p3000000000 became a tiny
// value); hex magnitudes beyond 2^±332192 now take the huge/tiny stand-ins, as decimals beyond
// 10^±100000 do. Expected values: IEEE 754 overflow/underflow of the named formats.
TEST(Parse, HugeHexExponentsOverflowAndUnderflow) {
  EXPECT_EQ(enc("0x1p3000000000", formats::e5m2), 0x7cu);
  EXPECT_EQ(enc("-0x1p3000000000", formats::e5m2), 0xfcu);
  EXPECT_EQ(enc("0x1p3000000000", formats::e4m3fn, {Rounding::rtz}), 0x7eu);
  EXPECT_EQ(enc("0x1p-3000000000", formats::e4m3fn), 0x00u);
  EXPECT_EQ(enc("0x1p-3000000000", formats::e4m3fn, {Rounding::rtp}), 0x01u);
  EXPECT_EQ(enc("0x1p99999999999999999999999", formats::f64), 0x7ff0000000000000u);
  // at the bound the value is still exact: 2^332192 = sig 2^63 · 2^332129
  const Unpacked at = parse_value("0x1p332192");
  EXPECT_EQ(at.sig, std::uint64_t{1} << 63);
  EXPECT_EQ(at.exp, 332192 - 63);
  EXPECT_FALSE(at.sticky);
  EXPECT_EQ(parse_value("0x1p332193").exp, 400000);  // the huge stand-in
  EXPECT_EQ(parse_value("0x1p-332193").exp, -400000);
  // decimal exponents saturate without wrapping, whatever fraction digits come with them (MPFR
  // 4.2.0's mpfr_strtofr wraps this one around to 5.9e+1388255822130839282; found by fuzz_parse_value)
  const std::string wrap = "0." + std::string(996, '0') + "1e-19" + std::string(900, '0') + "1111111111111111111111";
  EXPECT_EQ(parse_value(wrap).exp, -400000);
  EXPECT_EQ(enc(wrap.c_str(), formats::e4m3fn), 0x00u);
  EXPECT_EQ(enc(wrap.c_str(), formats::e4m3fn, {Rounding::rtp}), 0x01u);
  EXPECT_EQ(enc("1e99999999999999999999", formats::e5m2), 0x7cu);
  EXPECT_EQ(enc("-0.5e-99999999999999999999", formats::e5m2, {Rounding::rtn}), 0x81u);
}

TEST(Parse, CodesMustFitTheFormat) {
  EXPECT_EQ(parse_code("0x7e", formats::e4m3fn), 0x7eu);
  EXPECT_EQ(parse_code("0x7", formats::e2m1fn), 0x7u);
  EXPECT_THROW(parse_code("0x100", formats::e4m3fn), ParseError);
  EXPECT_THROW(parse_code("0x10", formats::e2m1fn), ParseError);
  EXPECT_THROW(parse_code("0x80", formats::ue4m3), ParseError);
  EXPECT_THROW(parse_code("7e", formats::e4m3fn), ParseError);
  EXPECT_THROW(parse_code("0xzz", formats::e4m3fn), ParseError);
}

}  // namespace
