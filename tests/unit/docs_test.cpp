// SPDX-License-Identifier: Apache-2.0
// docs_test.cpp: the hand-written lists of the registry in docs/ — the table of which option takes
// which kind (docs/cli.md "Names and options": one row per kind of name_listings(),
// train::name_listings() and cuda::name_listings(), nothing else) and the profile table's columns
// (docs/conversion.md). docs/formats.md and docs/names.md, which list every name, are generated
// (`minifloat docs --out docs`) and diffed by cli.docs_regenerate_identical.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

}  // namespace
