// SPDX-License-Identifier: Apache-2.0
// registry_test.cpp: one table of names; parse(name(x)) == x for every entry; errors list the
// accepted names.
#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "minifloat/registry.hpp"

namespace {
using namespace minifloat;

TEST(Registry, EveryFormatNameRoundTrips) {
  std::set<std::string> seen;
  for (const auto& nf : named_formats()) {
    EXPECT_TRUE(seen.insert(nf.name).second) << "duplicate name " << nf.name;
    EXPECT_EQ(validate(nf.format), FormatError::ok) << nf.name;
    EXPECT_EQ(parse_format(nf.name), nf.format) << nf.name;
    // Binary8p4sf and e4m3fnuz (Binary8p3sf and e5m2fnuz) are the same descriptor (spec-digest
    // §3.1): the name of a format is its first registered name, and it parses back to it.
    EXPECT_EQ(parse_format(format_name(nf.format)), nf.format) << nf.name;
  }
  // The rows of the core's table (core/named_formats.hpp), in order, + P3109 K = 3..16: signed P = 1..K−1,
  // unsigned P = 1..K, × {e, f}.
  std::size_t p3109_count = 0;
  for (int k = 3; k <= 16; ++k) p3109_count += 2 * static_cast<std::size_t>((k - 1) + k);
  ASSERT_EQ(named_formats().size(), std::size(kNamedFormats) + p3109_count);
  for (std::size_t i = 0; i < std::size(kNamedFormats); ++i) {
    EXPECT_EQ(named_formats()[i].name, kNamedFormats[i].name);
    EXPECT_EQ(named_formats()[i].format, kNamedFormats[i].format) << kNamedFormats[i].name;
  }
}

TEST(Registry, EveryRowsAliasesParseToIt) {
  for (const auto& r : kNamedFormats) {
    if (*r.ml_dtypes) {
      EXPECT_EQ(parse_format(r.ml_dtypes), r.format) << r.name << " " << r.ml_dtypes;
    }
    std::string_view rest = r.aliases;
    while (!rest.empty()) {
      const std::size_t sp = rest.find(' ');
      const std::string alias(rest.substr(0, sp));
      EXPECT_EQ(parse_format(alias), r.format) << r.name << " " << alias;
      rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
    }
  }
  // Independent of the table: the aliases the registry accepted before the table existed.
  const std::pair<const char*, Format> known[] = {
      {"float8_e4m3fn", formats::e4m3fn}, {"float8_e5m2", formats::e5m2}, {"float8_e4m3fnuz", formats::e4m3fnuz},
      {"float8_e5m2fnuz", formats::e5m2fnuz}, {"float8_e4m3b11fnuz", formats::e4m3b11fnuz},
      {"float8_e4m3", formats::e4m3}, {"float8_e3m4", formats::e3m4}, {"float6_e3m2fn", formats::e3m2fn},
      {"float6_e2m3fn", formats::e2m3fn}, {"float4_e2m1fn", formats::e2m1fn}, {"float8_e8m0fnu", formats::e8m0fnu},
      {"bfloat16", formats::bf16}, {"binary16", formats::f16}, {"binary32", formats::f32},
      {"binary64", formats::f64}, {"ue8m0", formats::e8m0fnu}, {"half", formats::f16},
      {"float16", formats::f16}, {"float32", formats::f32}, {"float64", formats::f64}};
  for (const auto& [alias, f] : known) EXPECT_EQ(parse_format(alias), f) << alias;
}

TEST(Registry, AliasesAndCase) {
  EXPECT_EQ(parse_format("float8_e4m3fn"), formats::e4m3fn);
  EXPECT_EQ(parse_format("E4M3FN"), formats::e4m3fn);
  EXPECT_EQ(parse_format("binary8p4se"), p3109(8, 4, Signedness::signed_, P3109Domain::extended));
  EXPECT_EQ(parse_format("bfloat16"), formats::bf16);
}

TEST(Registry, UserDefinedFormats) {
  const Format f = parse_format("custom:5,2,15,signed,ieee");
  EXPECT_EQ(f, formats::e5m2);
  EXPECT_EQ(format_name(Format{.bits = 9, .exponent_bits = 5, .mantissa_bits = 3, .bias = 15, .is_signed = true,
                               .specials = Specials::fn, .has_zero = true}), "custom:5,3,15,signed,fn");
  EXPECT_EQ(parse_format("custom:5,3,15,signed,fn"),
            (Format{.bits = 9, .exponent_bits = 5, .mantissa_bits = 3, .bias = 15, .is_signed = true,
                    .specials = Specials::fn, .has_zero = true}));
  EXPECT_THROW(parse_format("custom:5,0,15,signed,ieee"), NameError);
  EXPECT_THROW(parse_format("custom:5,2"), NameError);
  // the bias bound of validate(), with the round trip at both ends
  for (const char* name : {"custom:16,3,131072,signed,none", "custom:16,3,-131072,signed,ieee"})
    EXPECT_EQ(format_name(parse_format(name)), name);
  for (const char* name : {"custom:16,3,131073,signed,none", "custom:16,3,2147483647,signed,ieee",
                           "custom:16,3,-2147483648,signed,ieee"}) {
    try {
      parse_format(name);
      ADD_FAILURE() << name;
    } catch (const NameError& e) {
      EXPECT_NE(std::string(e.what()).find("the bias must be within ±131072"), std::string::npos) << e.what();
    }
  }
}

TEST(Registry, NameErrorsQuoteAShortPrefixOnOneLine) {
  for (const std::string& name : {std::string(1 << 20, 'x'), "custom:" + std::string(1 << 20, '9') + ",1,1,signed,fn",
                                  std::string("e4m3fn\n"), std::string("custom:4,3,7,signed,fn\n")}) {
    try {
      parse_format(name);
      ADD_FAILURE() << "accepted";
    } catch (const NameError& e) {
      const std::string m = e.what();
      EXPECT_LT(m.size(), 600u) << m.substr(0, 600);
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

TEST(Registry, UnknownNamesListTheAcceptedOnes) {
  try {
    parse_format("fp7");
    FAIL() << "no throw";
  } catch (const NameError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("fp7"), std::string::npos);
    EXPECT_NE(m.find("e4m3fn"), std::string::npos);
    EXPECT_NE(m.find("e8m0fnu"), std::string::npos);
  }
  EXPECT_THROW(parse_rounding("nearest"), NameError);
  EXPECT_THROW(parse_overflow("sat"), NameError);
  EXPECT_THROW(parse_profile("amd"), NameError);
}

// A P3109-shaped name outside the family says which parameter is out of range and the ranges.
TEST(Registry, P3109NamesOutOfRangeSayWhich) {
  for (const auto& [text, why] : {std::pair{"Binary2p1se", "K = 2 is out of range"},
                                  {"binary17p3sf", "K = 17 is out of range"},
                                  {"Binary8p8se", "P = 8 is out of range for K = 8 signed"},
                                  {"Binary8p9uf", "P = 9 is out of range for K = 8 unsigned"},
                                  {"Binary8p0se", "P = 0 is out of range for K = 8 signed"}}) {
    try {
      parse_format(text);
      ADD_FAILURE() << text << " accepted";
    } catch (const NameError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(why), std::string::npos) << m;
      EXPECT_NE(m.find("K 3..16 and P 1..K-1 (signed) or 1..K (unsigned)"), std::string::npos) << m;
    }
  }
  EXPECT_NO_THROW(parse_format("Binary8p8ue"));  // the unsigned P = K format exists
  EXPECT_NO_THROW(parse_format("binary3p2sf"));
}

TEST(Registry, ModeNamesRoundTrip) {
  for (auto n : names<Rounding>()) EXPECT_EQ(rounding_name(parse_rounding(n)), n);
  for (auto n : names<Overflow>()) EXPECT_EQ(overflow_name(parse_overflow(n)), n);
  for (const auto& e : profile_table().entries) EXPECT_EQ(profile_name(parse_profile(e.name)), e.name);
  EXPECT_EQ(parse_profile("ocp"), profiles::ocp);
  EXPECT_EQ(parse_profile("nvidia"), profiles::nvidia);
}

}  // namespace
