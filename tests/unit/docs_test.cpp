// SPDX-License-Identifier: Apache-2.0
// docs_test.cpp: the hand-written lists of the registry in docs/ — the table of which option takes
// which kind (docs/cli.md "Names and options": one row per kind of name_listings(),
// train::name_listings() and cuda::name_listings(), nothing else) and the profile table's columns
// (docs/conversion.md). docs/formats.md and docs/names.md, which list every name, are generated
// (`minifloat docs --out docs`) and diffed by cli.docs_regenerate_identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/names.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/check/names.hpp"
#include "minifloat/cuda/names.hpp"
#include "minifloat/train/study.hpp"

namespace {
using namespace minifloat;

std::vector<std::string> page_lines(const std::string& page) {
  std::ifstream in(std::string(MINIFLOAT_DOCS) + "/" + page);
  EXPECT_TRUE(in.good()) << "cannot read docs/" << page;
  std::vector<std::string> v;
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

/// The cells of a Markdown table row (a `\|` inside a cell is not a separator).
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cur.push_back('\\');
      cur.push_back('|');
      ++i;
    } else if (row[i] == '|') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += row[i];
    }
  }
  return out;
}

/// The `code spans` of a cell, with `\|` unescaped.
std::vector<std::string> code_spans(const std::string& cell) {
  std::vector<std::string> out;
  for (std::size_t a = cell.find('`'); a != std::string::npos; a = cell.find('`', a)) {
    const std::size_t b = cell.find('`', a + 1);
    if (b == std::string::npos) break;
    std::string span;
    for (std::size_t k = a + 1; k < b; ++k)
      if (!(cell[k] == '\\' && k + 1 < b && cell[k + 1] == '|')) span.push_back(cell[k]);
    out.push_back(span);
    a = b + 1;
  }
  return out;
}

/// The rows of the first table after the line `heading` (header and separator skipped).
std::vector<std::vector<std::string>> table_after(const std::vector<std::string>& lines, const std::string& heading,
                                                  std::vector<std::string>* header = nullptr) {
  std::size_t i = 0;
  while (i < lines.size() && lines[i].rfind(heading, 0) != 0) ++i;
  EXPECT_LT(i, lines.size()) << "the page has no line starting with " << heading;
  while (i < lines.size() && lines[i].rfind("|", 0) != 0) ++i;
  std::vector<std::vector<std::string>> rows;
  if (i < lines.size() && header) *header = cells(lines[i]);
  for (i += 2; i < lines.size() && lines[i].rfind("|", 0) == 0; ++i) rows.push_back(cells(lines[i]));
  return rows;
}

std::vector<NameListing> all_listings() {
  std::vector<NameListing> v = name_listings();
  for (auto& l : check::name_listings()) v.push_back(std::move(l));
  for (auto& l : train::name_listings()) v.push_back(std::move(l));
  for (auto& l : cuda::name_listings()) v.push_back(std::move(l));
  return v;
}

TEST(DocsNames, TheOptionsTableListsExactlyTheRegistrysKinds) {
  const auto rows = table_after(page_lines("cli.md"), "## Names and options");
  std::vector<std::string> listed;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 2u);
    const auto id = code_spans(r[0]);
    ASSERT_EQ(id.size(), 1u) << r[0];
    listed.push_back(id[0]);
  }
  std::vector<std::string> want;
  for (const NameListing& l : all_listings()) want.push_back(l.id);
  EXPECT_EQ(listed, want) << "docs/cli.md 'Names and options' must list every kind once, in registry order";
}

TEST(DocsNames, TheProfileTableHasOneColumnPerProfile) {
  std::vector<std::string> header;
  table_after(page_lines("conversion.md"), "**Profiles**", &header);
  std::vector<std::string> cols;
  for (std::size_t c = 1; c < header.size(); ++c) {
    const auto spans = code_spans(header[c]);
    ASSERT_FALSE(spans.empty()) << header[c];
    cols.push_back(spans[0]);
  }
  std::vector<std::string> want;
  for (const auto& e : profile_table().entries) want.emplace_back(e.name);
  EXPECT_EQ(cols, want);
}

/// e8m0fnu (precision 1, codes 0x7f + k for 2^k) under rne or rto, from the definitions alone: rne
/// sends a tie 1.5·2^k up (MPFR at precision 1); round to odd truncates, then sets the last kept bit
/// when inexact, and at precision 1 that bit (the implicit one) is always set, so rto truncates.
unsigned e8m0_oracle(double x, const std::string& mode) {
  const int k = std::ilogb(x);
  const double frac = x / std::ldexp(1.0, k);  // in [1, 2)
  const bool up = mode == "rne" && frac >= 1.5;
  return static_cast<unsigned>(0x7f + k + (up ? 1 : 0));
}

// Issue 28 item 8: the table said rto's parity goes "up"; the code truncates, as round to odd does at
// precision 1. The `ocp` cell must state both rules with examples ("rne(1.5) = 0x80", "rto(3) = 0x80"),
// and each example must agree with the oracle above and with the library.
TEST(DocsProfiles, ZeroMantissaRowStatesRneAndRtoWithExamplesTheOracleAgrees) {
  std::vector<std::string> header;
  const auto rows = table_after(page_lines("conversion.md"), "**Profiles**", &header);
  const std::vector<std::string>* row = nullptr;
  for (const auto& r : rows)
    if (!r.empty() && r[0].find("`zero_mantissa_ties`") != std::string::npos) row = &r;
  ASSERT_NE(row, nullptr) << "docs/conversion.md: no profile-table row for `zero_mantissa_ties`";
  ASSERT_GT(row->size(), 1u);
  const std::string& cell = (*row)[1];  // the `ocp` column (TheProfileTableHasOneColumnPerProfile)
  const std::regex example(R"((rne|rto)\(([0-9.]+)\) = 0x([0-9a-f]{2}))");
  int n_rne = 0, n_rto = 0;
  for (std::sregex_iterator it(cell.begin(), cell.end(), example), end; it != end; ++it) {
    const std::string mode = (*it)[1];
    const double x = std::stod((*it)[2]);
    const unsigned doc = static_cast<unsigned>(std::stoul((*it)[3], nullptr, 16));
    (mode == "rne" ? n_rne : n_rto) += 1;
    EXPECT_EQ(doc, e8m0_oracle(x, mode)) << it->str() << " in: " << cell;
    const RoundingSpec spec{mode == "rne" ? Rounding::rne : Rounding::rto, Overflow::nonsat};
    EXPECT_EQ(doc, from_double(x, formats::e8m0fnu, spec, profiles::ocp).code) << it->str();
  }
  EXPECT_GE(n_rne, 1) << "the `ocp` cell gives no e8m0fnu rne example (\"rne(1.5) = 0x80\"): " << cell;
  EXPECT_GE(n_rto, 1) << "the `ocp` cell gives no e8m0fnu rto example (\"rto(3) = 0x80\"): " << cell;
  // The oracle against the library over every power of two and tie of the normal range, both modes.
  for (int k = -126; k <= 126; ++k)
    for (double m : {1.0, 1.25, 1.5, 1.75})
      for (const char* mode : {"rne", "rto"}) {
        const RoundingSpec spec{std::string(mode) == "rne" ? Rounding::rne : Rounding::rto, Overflow::nonsat};
        const double x = std::ldexp(m, k);
        ASSERT_EQ(from_double(x, formats::e8m0fnu, spec, profiles::ocp).code, e8m0_oracle(x, mode)) << mode << " " << x;
      }
}

// Issue 28 item 9: every `minifloat train` example in README.md and docs/ runs the FP32 baseline beside
// its recipes (without it the summary's gap column is "–"): --recipes names fp32 (or all, the default);
// an example with --gemm says in its comment that the shared GEMM model is what isolates the formats.
TEST(DocsTrain, EveryTrainExampleRunsTheFp32Baseline) {
  std::vector<std::pair<std::string, std::vector<std::string>>> pages;
  pages.emplace_back("README.md", page_lines("../README.md"));
  for (const char* p : {"training.md", "cli.md"}) pages.emplace_back(std::string("docs/") + p, page_lines(p));
  int examples = 0;
  for (const auto& [page, lines] : pages)
    for (const std::string& line : lines) {
      if (line.rfind("minifloat train ", 0) != 0) continue;
      ++examples;
      std::istringstream words(line.substr(0, line.find('#')));
      std::string w, recipes = "all";
      for (std::string prev; words >> w; prev = w)
        if (prev == "--recipes") recipes = w;
      std::vector<std::string> list;
      std::istringstream rs(recipes);
      for (std::string r; std::getline(rs, r, ',');) list.push_back(r);
      const bool baseline = std::find(list.begin(), list.end(), "fp32") != list.end() || recipes == "all";
      EXPECT_TRUE(baseline) << page
                            << ": a train example without the fp32 baseline (its gap column is \"–\"): " << line;
      if (line.find("--gemm") != std::string::npos) {
        EXPECT_NE(line.find("isolates the formats"), std::string::npos)
            << page << ": a --gemm example should say the shared GEMM model isolates the formats: " << line;
      }
    }
  EXPECT_GE(examples, 2) << "README.md and docs/ should show train examples";
}

}  // namespace
