// SPDX-License-Identifier: Apache-2.0
// coverage_test.cpp: the guard that no named format escapes the oracle. The exhaustive tests iterate
// the core's table of named formats (core/named_formats.hpp) and take each row's spec from the oracle by
// name (engine_map.hpp's named_format_specs); a row of at most 16 bits without an oracle entry
// (tests/oracle/spec_formats.cpp) would be left out of them silently, so this test fails instead.
#include <gtest/gtest.h>

#include <string>

#include "engine_map.hpp"
#include "minifloat/core/named_formats.hpp"
#include "spec_formats.hpp"

namespace minifloat_test {
namespace {

TEST(Coverage, EveryNamedFormatHasAnOracleSpec) {
  int rows = 0;
  for (const auto& r : minifloat::kNamedFormats) {
    if (r.format.bits > 16) continue;
    ++rows;
    int found = 0;
    for (const auto& s : oracle::named_specs()) found += s.name == r.name;
    EXPECT_EQ(found, 1) << "named format " << r.name << " (" << int{r.format.bits}
                        << " bits) has no entry in the oracle's named_specs() (tests/oracle/spec_formats.cpp); "
                           "the exhaustive tests would leave it out";
  }
  EXPECT_GT(rows, 0);
  EXPECT_EQ(named_format_specs(16).size(), static_cast<std::size_t>(rows));
}

TEST(Coverage, EveryOracleSpecIsANamedFormat) {
  for (const auto& s : oracle::named_specs()) {
    int found = 0;
    for (const auto& r : minifloat::kNamedFormats) found += s.name == r.name;
    EXPECT_EQ(found, 1) << "the oracle's " << s.name << " is not a row of core/named_formats.hpp";
  }
}

}  // namespace
}  // namespace minifloat_test
