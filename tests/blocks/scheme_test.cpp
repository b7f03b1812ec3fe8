// SPDX-License-Identifier: Apache-2.0
// scheme_test.cpp: block schemes as data (scheme.hpp) — the named table, the spec-string grammar
// (name() of every named and of random specs parses back to the same scheme, in any case), the
// errors of malformed specs and of combinations validate_scheme refuses, and the registry listing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "minifloat/names.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/scheme.hpp"

namespace minifloat_test {
namespace {
using namespace minifloat;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

TEST(Schemes, TheNamedTableRoundTrips) {
  ASSERT_EQ(scheme_table().entries.size(), 16u);
  for (const auto& e : scheme_table().entries) {
    SCOPED_TRACE(std::string(e.name));
    EXPECT_NO_THROW(validate_scheme(e.value));
    EXPECT_EQ(parse_scheme(e.name), e.value);
    EXPECT_EQ(parse_scheme(upper(std::string(e.name))), e.value);
    EXPECT_EQ(scheme_name(e.value), e.name);
    const std::string spec = scheme_spec(e.value);
    EXPECT_NE(spec.find('/'), std::string::npos) << spec;
    EXPECT_EQ(parse_scheme(spec), e.value) << spec;
    EXPECT_EQ(scheme_name(parse_scheme(spec)), e.name) << spec;  // a spec equal to a named scheme is named
    EXPECT_FALSE(e.summary.empty());
  }
  // literal specs of the named schemes (scheme.hpp table)
  EXPECT_EQ(scheme_spec(find_scheme("mxfp4")), "e2m1fn/1x32/e8m0fnu:ocp_floor");
  EXPECT_EQ(scheme_spec(find_scheme("nvfp4")), "e2m1fn/1x16/ue4m3:nvfp4");
  EXPECT_EQ(scheme_spec(find_scheme("nvfp4_16x16")), "e2m1fn/16x16/ue4m3:nvfp4");
  EXPECT_EQ(scheme_spec(find_scheme("fp8_channel")), "e4m3fn/allx1/f32:fp32_amax");
  EXPECT_EQ(scheme_spec(find_scheme("mxint8")), "mxint8/1x32/e8m0fnu:ocp_floor");
  EXPECT_EQ(scheme_spec(find_scheme("fp8_128x128_ue8m0")), "e4m3fn/128x128/e8m0fnu:rceil");
  EXPECT_EQ(scheme_spec(find_scheme("nvfp4_ue5m3")), "e2m1fn/1x16/ue5m3:nvfp4_v2_gs");
}

TEST(Schemes, TheIssueExampleSpec) {
  const Scheme s = parse_scheme("e2m3fn/1x16/e8m0fnu:rceil");
  EXPECT_EQ(s.element, elements::e2m3fn);
  EXPECT_EQ(s.block_rows, 1u);
  EXPECT_EQ(s.block_cols, 16u);
  EXPECT_EQ(s.rule, ScaleRule::rceil);
  EXPECT_EQ(s.policy, BlockPolicy{});
  EXPECT_EQ(scheme_name(s), "e2m3fn/1x16/e8m0fnu:rceil");
  const Scheme d = parse_scheme("E4M3FN/1X128/F32:FP32_AMAX/FP32-ORDER=DIVIDE/amax-epsilon=1e-4");
  EXPECT_EQ(d.policy.fp32_order, Fp32ScaleOrder::divide);
  EXPECT_EQ(d.policy.amax_epsilon, 1e-4f);
  EXPECT_EQ(parse_scheme(scheme_name(d)), d);
  // aliases and custom formats as elements; the canonical spelling comes back
  EXPECT_EQ(scheme_name(parse_scheme("float8_e4m3fn/1x32/ue8m0:ocp_floor")), "mxfp8_e4m3");
  EXPECT_EQ(scheme_name(parse_scheme("custom:3,3,3,signed,fn/1x8/e8m0fnu:even")), "custom:3,3,3,signed,fn/1x8/e8m0fnu:even");
  EXPECT_EQ(scheme_name(parse_scheme("binary8p3se/ALLxall/e8m0fnu:tosa")), "Binary8p3se/allxall/e8m0fnu:tosa");
}

/// A random valid scheme: any registered format of at most 8 bits (named, P3109, custom) or
/// mxint8, tiles 1..300 or all, any rule of the element's kind, random policies that apply.
Scheme random_scheme(std::mt19937& g) {
  std::vector<Format> fmts;
  for (const auto& nf : named_formats())
    if (nf.format.bits <= 8) fmts.push_back(nf.format);
  fmts.push_back(parse_format("custom:3,3,3,signed,fn"));
  fmts.push_back(parse_format("custom:2,4,2,unsigned,none"));
  fmts.push_back(parse_format("custom:4,2,-3,signed,ieee"));
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(g() % n); };
  Scheme s;
  const bool int8 = pick(8) == 0;
  s.element = int8 ? elements::mxint8 : ElementType{ElementKind::floating, fmts[pick(fmts.size())]};
  auto dim = [&]() -> std::size_t { return pick(4) == 0 ? 0 : 1 + pick(300); };
  s.block_rows = dim();
  s.block_cols = dim();
  const ScaleRule rules[] = {ScaleRule::ocp_floor, ScaleRule::rceil,     ScaleRule::ceil,     ScaleRule::even,
                             ScaleRule::tosa,      ScaleRule::fp32_amax, ScaleRule::fp32_pow2, ScaleRule::nvfp4};
  s.rule = rules[pick(int8 ? 7 : 8)];
  BlockPolicy& p = s.policy;
  if (s.rule != ScaleRule::nvfp4) p.zero = static_cast<ZeroBlock>(pick(4));
  p.nan = static_cast<NanInBlock>(pick(2));
  p.inf = static_cast<InfInBlock>(pick(2));
  p.subnormal = static_cast<SubnormalAmax>(pick(2));
  if (int8) p.mxint8_min = static_cast<Mxint8Min>(pick(2));
  if (s.rule == ScaleRule::fp32_amax) p.fp32_order = static_cast<Fp32ScaleOrder>(pick(3));
  else if (s.rule == ScaleRule::fp32_pow2 || s.rule == ScaleRule::nvfp4) p.fp32_order = pick(2) ? Fp32ScaleOrder::exact : Fp32ScaleOrder::te_multiply;
  if (pick(3) == 0) p.amax_epsilon = std::ldexp(static_cast<float>(1 + pick(1000)), -static_cast<int>(pick(40)));
  return s;
}

TEST(Schemes, RandomSpecsRoundTrip) {
  std::mt19937 g(20260901);
  for (int k = 0; k < 3000; ++k) {
    const Scheme s = random_scheme(g);
    ASSERT_NO_THROW(validate_scheme(s)) << scheme_spec(s);
    const std::string spec = scheme_spec(s), nm = scheme_name(s);
    EXPECT_EQ(parse_scheme(spec), s) << spec;
    EXPECT_EQ(parse_scheme(nm), s) << nm;
    EXPECT_EQ(scheme_spec(parse_scheme(spec)), spec);
    if (spec.find("custom:") == std::string::npos) {
      EXPECT_EQ(parse_scheme(upper(spec)), s) << upper(spec);
    }
  }
}

TEST(Schemes, MalformedSpecsNameThePartAndTheGrammar) {
  const char* bad[] = {"mxfp5",  // unknown name
                       "e4m3fn/1x32",
                       "fp7/1x32/e8m0fnu:ocp_floor",
                       "e4m3fn/132/e8m0fnu:ocp_floor",
                       "e4m3fn/0x32/e8m0fnu:ocp_floor",
                       "e4m3fn/-1x32/e8m0fnu:ocp_floor",
                       "e4m3fn/1x32/e8m0fnu",
                       "e4m3fn/1x32/e8m0fnu:round_up",
                       "e4m3fn/1x32/f32:rceil",        // the rule stores E8M0 scales
                       "e4m3fn/1x32/e8m0fnu:fp32_amax", // the rule stores FP32 scales
                       "e4m3fn/1x32/e8m0fnu:ocp_floor/zero-block",
                       "e4m3fn/1x32/e8m0fnu:ocp_floor/zero-block=sometimes",
                       "e4m3fn/1x32/e8m0fnu:ocp_floor/colour=red",
                       "e4m3fn/1x32/e8m0fnu:ocp_floor/nan-block=element_only/NAN-BLOCK=element_only",
                       "e4m3fn/1x32/f32:fp32_amax/amax-epsilon=-1",
                       "e4m3fn/1x32/f32:fp32_amax/amax-epsilon=1e99",
                       "e4m3fn/1x32/f32:fp32_amax/amax-epsilon=abc"};
  for (const char* b : bad) {
    SCOPED_TRACE(b);
    try {
      parse_scheme(b);
      ADD_FAILURE() << "accepted";
    } catch (const NameError& e) {  // one line with the grammar (the unknown name also lists the names)
      const std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos);
      EXPECT_NE(m.find("ELEMENT/ROWSxCOLS/SCALE:RULE"), std::string::npos) << m;
    }
  }
  try {
    parse_scheme("mxfp5");
  } catch (const NameError& e) {
    EXPECT_NE(std::string(e.what()).find("accepted: mxfp8_e4m3"), std::string::npos) << e.what();
  }
}

TEST(Schemes, CombinationsThatDoNotApplyAreErrors) {
  const char* bad[] = {
      "f16/1x32/e8m0fnu:ocp_floor",                             // 16-bit elements
      "mxint8/1x16/ue4m3:nvfp4",                                // nvfp4 needs a float element
      "e2m1fn/1x16/ue4m3:nvfp4/zero-block=nan",                 // nvfp4's zero blocks follow its formula
      "e2m1fn/1x16/ue4m3:nvfp4/zero-block=unit_scale",
      "e4m3fn/1x32/f32:fp32_pow2/fp32-order=divide",            // divide is fp32_amax only
      "e2m1fn/1x16/ue4m3:nvfp4/fp32-order=divide",
      "e4m3fn/1x32/e8m0fnu:ocp_floor/fp32-order=exact",         // E8M0 has no FP32 step
      "e4m3fn/1x32/e8m0fnu:ocp_floor/mxint8-min=symmetric",     // mxint8 only
  };
  for (const char* b : bad) EXPECT_THROW(parse_scheme(b), Error) << b;
  Scheme s = find_scheme("mxfp4");
  s.policy.amax_epsilon = -1.0f;
  EXPECT_THROW(validate_scheme(s), Error);
  s.policy.amax_epsilon = std::numeric_limits<float>::infinity();
  EXPECT_THROW(validate_scheme(s), Error);
}

TEST(Schemes, TheRegistryListsTheTableAndThePattern) {
  bool found = false;
  for (const NameListing& l : name_listings()) {
    if (l.id != "scheme") continue;
    found = true;
    ASSERT_EQ(l.names.size(), scheme_table().entries.size());
    for (std::size_t k = 0; k < l.names.size(); ++k) EXPECT_EQ(l.names[k].first, scheme_table().entries[k].name);
    ASSERT_EQ(l.patterns.size(), 1u);
    EXPECT_EQ(l.patterns[0].pattern, "ELEMENT/ROWSxCOLS/SCALE:RULE[/KEY=VALUE...]");
  }
  EXPECT_TRUE(found);
  try {
    find_scheme("e2m3fn/1x16/e8m0fnu:rceil");  // find_scheme is for names only; the error lists the pattern
    ADD_FAILURE();
  } catch (const NameError& e) {
    EXPECT_NE(std::string(e.what()).find("mxfp8_e4m3"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("ELEMENT/ROWSxCOLS/SCALE:RULE"), std::string::npos);
  }
}

}  // namespace
}  // namespace minifloat_test
