// SPDX-License-Identifier: Apache-2.0
// readme_test.cpp: the README lists exactly the registry's names — the Names table (one row per kind
// of name_listings() and train::name_listings(): every name and pattern, nothing else), the format
// overview table (every named format; every entry an accepted name) and the profile table's columns.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
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

std::vector<std::string> readme_lines() {
  std::ifstream in(MINIFLOAT_README);
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
  EXPECT_LT(i, lines.size()) << "README has no line starting with " << heading;
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

TEST(ReadmeNames, TheNamesTableListsExactlyTheRegistry) {
  const auto rows = table_after(readme_lines(), "## Names");
  std::map<std::string, std::vector<std::string>> readme;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 3u);
    const auto id = code_spans(r[0]);
    ASSERT_EQ(id.size(), 1u) << r[0];
    EXPECT_EQ(readme.count(id[0]), 0u) << "kind listed twice: " << id[0];
    readme[id[0]] = code_spans(r[2]);
  }
  for (const NameListing& l : all_listings()) {
    SCOPED_TRACE(l.id);
    ASSERT_EQ(readme.count(l.id), 1u) << "kind missing from the README Names table";
    std::vector<std::string> want;
    for (const auto& [n, _] : l.names) want.push_back(n);
    for (const auto& p : l.patterns) want.emplace_back(p.pattern);
    EXPECT_EQ(readme[l.id], want) << "the README row must list exactly these names, in registry order";
    readme.erase(l.id);
  }
  for (const auto& [id, _] : readme) ADD_FAILURE() << "README lists a kind the registry does not have: " << id;
}

TEST(ReadmeNames, TheFormatTableNamesEveryFormatAndOnlyAcceptedOnes) {
  const auto rows = table_after(readme_lines(), "**Formats**");
  std::set<std::string> listed;
  for (const auto& r : rows) {
    ASSERT_GE(r.size(), 2u);
    for (const std::string& span : code_spans(r[1])) {
      listed.insert(span);
      bool pattern = false;
      for (const auto& p : format_patterns()) pattern = pattern || span == p.pattern;
      if (!pattern) {
        EXPECT_NO_THROW(parse_format(span)) << "README format table: '" << span << "' is not accepted";
      }
    }
  }
  for (const auto& nf : named_formats())
    if (nf.family != "p3109") {
      EXPECT_EQ(listed.count(nf.name), 1u) << nf.name << " missing from the README format table";
    }
  for (const auto& p : format_patterns()) EXPECT_EQ(listed.count(std::string(p.pattern)), 1u) << p.pattern;
}

TEST(ReadmeNames, TheProfileTableHasOneColumnPerProfile) {
  std::vector<std::string> header;
  table_after(readme_lines(), "**Profiles**", &header);
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
