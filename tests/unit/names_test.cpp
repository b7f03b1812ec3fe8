// SPDX-License-Identifier: Apache-2.0
// names_test.cpp: the name registry (registry.hpp) — parse(name(x)) == x for every entry of every
// table, every enumerator named once, errors that list the accepted names and never echo more
// than 40 characters of the input, and the parameterised families (blocked<N>, <preset>+blocked<N>).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "minifloat/accumulate.hpp"
#include "minifloat/mma_vectors.hpp"
#include "minifloat/names.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/tables.hpp"
#include "minifloat/check/names.hpp"
#include "minifloat/cuda/names.hpp"
#include "minifloat/train/recipe.hpp"
#include "minifloat/train/study.hpp"

namespace {
using namespace minifloat;

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

/// Every entry of an enum's table parses back (in any case) and is named by its table; the values
/// are exactly 0..n-1, each once, so no enumerator is missing or named twice.
template <class E>
void check_enum_table() {
  const NameTable<E>& t = name_table(E{});
  SCOPED_TRACE(std::string(t.id));
  EXPECT_FALSE(t.id.empty());
  EXPECT_FALSE(t.kind.empty());
  ASSERT_FALSE(t.entries.empty());
  std::set<std::string> seen;
  std::set<unsigned> values;
  for (const auto& e : t.entries) {
    EXPECT_EQ(parse<E>(e.name), e.value) << e.name;
    EXPECT_EQ(parse<E>(upper(e.name)), e.value) << e.name;
    EXPECT_EQ(name(e.value), e.name);
    EXPECT_FALSE(e.summary.empty()) << e.name;
    EXPECT_TRUE(seen.insert(upper(e.name)).second) << "duplicate name " << e.name;
    EXPECT_TRUE(values.insert(static_cast<unsigned>(e.value)).second) << "value named twice: " << e.name;
  }
  for (unsigned v = 0; v < t.entries.size(); ++v) EXPECT_EQ(values.count(v), 1u) << "enumerator " << v << " has no name";
  EXPECT_EQ(name(static_cast<E>(t.entries.size())), "?");
  EXPECT_EQ(names<E>().size(), t.entries.size());
  EXPECT_EQ(kind_label<E>(), t.kind);
}

TEST(Names, EveryEnumTableRoundTrips) {
  check_enum_table<Rounding>();
  check_enum_table<Overflow>();
  check_enum_table<SrVariant>();
  check_enum_table<ScaleRule>();
  check_enum_table<ZeroBlock>();
  check_enum_table<NanInBlock>();
  check_enum_table<InfInBlock>();
  check_enum_table<SubnormalAmax>();
  check_enum_table<Mxint8Min>();
  check_enum_table<Fp32ScaleOrder>();
  check_enum_table<BlockAxis>();
  check_enum_table<TableStyle>();
  check_enum_table<TablePart>();
  check_enum_table<CatalogueStyle>();
  check_enum_table<train::TrainModel>();
  check_enum_table<MmaCRule>();
}

/// Tables whose values are records: every entry is found by its name, in any case.
template <class V>
void check_record_table(const NameTable<V>& t) {
  SCOPED_TRACE(std::string(t.id));
  ASSERT_FALSE(t.entries.empty());
  std::set<std::string> seen;
  for (const auto& e : t.entries) {
    EXPECT_EQ(find_name(t, e.name), &e) << e.name;
    EXPECT_EQ(find_name(t, upper(e.name)), &e) << e.name;
    EXPECT_EQ(&lookup_name(t, e.name), &e);
    EXPECT_FALSE(e.summary.empty()) << e.name;
    EXPECT_TRUE(seen.insert(upper(e.name)).second) << "duplicate name " << e.name;
  }
}

TEST(Names, EveryRecordTableRoundTrips) {
  check_record_table(profile_table());
  for (const auto& e : profile_table().entries) {
    EXPECT_EQ(parse_profile(e.name), e.value);
    EXPECT_EQ(profile_name(e.value), e.name);
  }
  EXPECT_EQ(parse_profile("ocp"), profiles::ocp);
  EXPECT_EQ(parse_profile("ML_DTYPES"), profiles::ml_dtypes);
  Profile custom = profiles::ocp;
  custom.decode_ftz = true;
  EXPECT_EQ(profile_name(custom), "custom");

  check_record_table(decode_target_table());
  for (const auto& e : decode_target_table().entries) EXPECT_EQ(parse_format(e.name), e.value) << e.name;

  check_record_table(tensor_core_table());
  for (const auto& e : tensor_core_table().entries) {
    EXPECT_EQ(std::string_view(parse_mma_model(e.name).name), e.name);
    EXPECT_EQ(std::string_view(e.value.model->name), e.name);
    EXPECT_FALSE(e.value.operands.empty()) << e.name;
  }
  check_record_table(dot_model_table());
  for (const auto& e : dot_model_table().entries) {
    const DotModel m = parse_dot_model(e.name);
    EXPECT_EQ(m.kind, e.value) << e.name;
    if (m.kind == AccumKind::tfdpa) {
      EXPECT_EQ(std::string_view(m.tensor_core.name), e.name);
    }
  }

  check_record_table(train::recipe_table());
  for (const auto& e : train::recipe_table().entries) {
    const auto r = train::parse_recipes(e.name);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].name, e.name);
    EXPECT_EQ(e.value->name, e.name);
  }
  EXPECT_EQ(train::parse_recipes("all").size(), train::recipes().size());
  EXPECT_EQ(train::recipes().size(), 18u);  // the count recipe.hpp documents
  EXPECT_THROW(train::parse_recipes("fp32,FP32"), NameError);
}

TEST(Names, FormatsRoundTripAndListTheirPatterns) {
  for (const auto& nf : named_formats()) EXPECT_EQ(parse_format(format_name(nf.format)), nf.format) << nf.name;
  try {
    parse_format("fp7");
    FAIL() << "no throw";
  } catch (const NameError& e) {
    const std::string m = e.what();
    for (const auto& nf : named_formats())
      if (nf.family != FormatFamily::p3109) {
        EXPECT_NE(m.find(nf.name), std::string::npos) << nf.name;
      }
    for (const auto& p : format_patterns()) EXPECT_NE(m.find(p.pattern), std::string::npos) << p.pattern;
  }
}

TEST(Names, UnknownNamesListTheAcceptedOnesAndQuoteAtMost40Chars) {
  try {
    parse<ZeroBlock>("zero");
    FAIL() << "no throw";
  } catch (const NameError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown zero-block policy 'zero'; accepted: standard, min_scale, unit_scale, nan");
  }
  const std::string huge(1 << 20, 'x');
  for (auto fn : {+[](std::string_view s) { (void)parse<Rounding>(s); }, +[](std::string_view s) { (void)parse_format(s); },
                  +[](std::string_view s) { (void)parse_profile(s); }, +[](std::string_view s) { (void)parse_dot_model(s); },
                  +[](std::string_view s) { (void)parse_mma_model(s); }, +[](std::string_view s) { (void)train::parse_recipes(s); }}) {
    try {
      fn(huge);
      ADD_FAILURE() << "no throw";
    } catch (const NameError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(std::string(40, 'x') + "…"), std::string::npos) << m.substr(0, 200);
      EXPECT_EQ(m.find(std::string(41, 'x')), std::string::npos) << m.substr(0, 200);
    }
  }
  try {
    parse_format("custom:" + huge);
    ADD_FAILURE() << "no throw";
  } catch (const NameError& e) {
    EXPECT_EQ(std::string(e.what()).find(std::string(41, 'x')), std::string::npos);
  }
  EXPECT_EQ(quote_input("a\nb\x01"), "a\\x0ab\\x01");  // one quoting rule (detail::excerpt): non-printable bytes as \xNN
  EXPECT_EQ(quote_input(std::string(40, 'y')), std::string(40, 'y'));
}

TEST(Names, AccumulationPatterns) {
  const DotModel b = parse_dot_model("blocked128");
  EXPECT_EQ(b.kind, AccumKind::blocked);
  EXPECT_EQ(b.block, 128);
  EXPECT_EQ(std::string_view(b.tensor_core.name), "hopper-fp8");
  const DotModel h = parse_dot_model("hopper-f16-unvalidated+blocked64");
  EXPECT_EQ(h.kind, AccumKind::blocked);
  EXPECT_EQ(h.block, 64);
  EXPECT_EQ(std::string_view(h.tensor_core.name), "hopper-f16-unvalidated");
  for (const char* bad : {"blocked0", "blocked", "blockedx", "blocked-4", "foo+blocked32", "hopper-fp8+unblocked32",
                          "blocked99999999999999999999", "fp33"})
    EXPECT_THROW(parse_dot_model(bad), NameError) << bad;
  try {
    parse_dot_model("fp33");
  } catch (const NameError& e) {
    const std::string m = e.what();
    for (const auto& p : dot_model_table().patterns) EXPECT_NE(m.find(p.pattern), std::string::npos) << m;
  }
  // The operand formats of the tensor cores (the hardware's MMA instruction types).
  const auto fp8 = operand_formats(parse_dot_model("hopper-fp8+blocked128"));
  ASSERT_EQ(fp8.size(), 2u);
  EXPECT_EQ(fp8[0], formats::e4m3fn);
  EXPECT_EQ(fp8[1], formats::e5m2);
  const auto f16 = operand_formats(parse_dot_model("ampere-f16"));
  ASSERT_EQ(f16.size(), 1u);
  EXPECT_EQ(f16[0], formats::f16);
  EXPECT_TRUE(operand_formats(parse_dot_model("kahan")).empty());
}

TEST(Names, ListingsHaveUniqueIdsAndNames) {
  auto all = name_listings();
  for (auto& l : check::name_listings()) all.push_back(l);
  for (auto& l : train::name_listings()) all.push_back(l);
  for (auto& l : cuda::name_listings()) all.push_back(l);
  std::set<std::string> ids;
  for (const auto& l : all) {
    EXPECT_TRUE(ids.insert(l.id).second) << "duplicate id " << l.id;
    EXPECT_FALSE(l.names.empty()) << l.id;
    std::set<std::string> n;
    for (const auto& [nm, summary] : l.names) {
      EXPECT_TRUE(n.insert(upper(nm)).second) << l.id << ": duplicate " << nm;
      EXPECT_FALSE(summary.empty()) << l.id << ": " << nm;
    }
  }
  for (const char* id : {"format", "rounding", "overflow", "profile", "sr-variant", "scheme", "scale-rule", "zero-block",
                         "nan-block", "inf-block", "subnormal-amax", "mxint8-min", "fp32-order", "block-axis",
                         "accumulation", "tensor-core", "recipe", "train-model"})
    EXPECT_EQ(ids.count(id), 1u) << id;
}

}  // namespace
using namespace minifloat;

// Issue 28 item 16: one list parser for every comma-separated list of names (report --schemes,
// train --recipes): an empty item and an item given twice (in any spelling) are refused.
TEST(Names, ListsRefuseEmptyItemsAndDuplicates) {
  const auto parse = [](std::string_view list) {
    return parse_list<Scheme>(
        list, "scheme", [](const std::string& s) { return parse_scheme(s); },
        [](const Scheme& s) { return scheme_spec(s); });
  };
  EXPECT_EQ(parse("mxfp4,nvfp4").size(), 2u);
  EXPECT_EQ(parse("custom:4,3,8,signed,fn/1x32/e8m0fnu:ocp_floor,mxfp4").size(), 2u);  // a custom format's commas
  for (const char* bad : {"mxfp4,", ",mxfp4", "mxfp4,,nvfp4", ""}) {
    EXPECT_THROW(parse(bad), NameError) << bad;
  }
  for (const char* twice : {"mxfp4,mxfp4", "mxfp4,e2m1fn/1x32/e8m0fnu:ocp_floor", "nvfp4,mxfp4,MXFP4"}) {
    try {
      (void)parse(twice);
      ADD_FAILURE() << twice << " was accepted";
    } catch (const NameError& e) {
      EXPECT_NE(std::string(e.what()).find("is listed twice"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(train::parse_recipes("fp32,fp32"), NameError);
  EXPECT_THROW(train::parse_recipes("fp32,"), NameError);
  EXPECT_EQ(train::parse_recipes("fp32,mxfp4").size(), 2u);
}

// Issue 28 item 16: the indefinite article of a name in messages ("is not an e4m3fn code").
TEST(Names, ArticleOfNames) {
  EXPECT_EQ(with_article("e4m3fn"), "an e4m3fn");
  EXPECT_EQ(with_article("f32"), "an f32");
  EXPECT_EQ(with_article("mxfp4"), "an mxfp4");
  EXPECT_EQ(with_article("ue4m3"), "a ue4m3");
  EXPECT_EQ(with_article("bf16"), "a bf16");
  EXPECT_EQ(with_article("Binary8p3se"), "a Binary8p3se");
  EXPECT_EQ(with_article("format"), "a format");
  EXPECT_EQ(with_article("output dtype"), "an output dtype");
}
