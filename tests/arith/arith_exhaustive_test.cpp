// SPDX-License-Identifier: Apache-2.0
// arith_exhaustive_test.cpp: every pair of codes of each ≤ 8-bit format, per operation and rounding
// mode, against the MPFR oracle (tests/arith/mpfr_oracle.*, which shares no code with the engine).
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "minifloat/core/arith.hpp"
#include "minifloat/core/format.hpp"
#include "minifloat/core/named_formats.hpp"
#include "mpfr_oracle.hpp"

namespace minifloat_test {
namespace {

namespace mf = minifloat;
namespace ao = arith_oracle;

struct FormatPair {
  mf::Format engine;
  ao::OFormat oracle;
};

/// The oracle's own format of at most 8 bits named `name` (mpfr_oracle.hpp's kUpTo8Bits), or nullptr.
const ao::OFormat* oracle_format(std::string_view name) {
  for (const ao::OFormat* o : ao::formats::kUpTo8Bits)
    if (name == o->name) return o;
  return nullptr;
}

/// The rows of the core's table of named formats (core/named_formats.hpp) of at most 8 bits, each with the
/// oracle format of its name, in table order: a new row is tested as soon as the oracle has it, and
/// ArithCoverage.EveryNamedFormatOfAtMost8BitsHasAnOracleFormat fails until it does.
const std::vector<FormatPair>& all_formats() {
  static const std::vector<FormatPair> v = [] {
    std::vector<FormatPair> out;
    for (const auto& r : mf::kNamedFormats)
      if (r.format.bits <= 8)
        if (const ao::OFormat* o = oracle_format(r.name)) out.push_back({r.format, *o});
    return out;
  }();
  return v;
}

TEST(ArithCoverage, EveryNamedFormatOfAtMost8BitsHasAnOracleFormat) {
  for (const auto& r : mf::kNamedFormats) {
    if (r.format.bits > 8) continue;
    EXPECT_NE(oracle_format(r.name), nullptr)
        << "named format " << r.name << " has no format in the arith oracle (tests/arith/mpfr_oracle.hpp "
        << "formats::kUpTo8Bits): its exhaustive arithmetic tests would be left out";
  }
}

constexpr mf::Rounding kEngineModes[] = {mf::Rounding::rne, mf::Rounding::rna, mf::Rounding::rtz,
                                         mf::Rounding::rtp, mf::Rounding::rtn, mf::Rounding::rto};
constexpr ao::Mode kOracleModes[] = {ao::Mode::rne, ao::Mode::rna, ao::Mode::rtz,
                                     ao::Mode::rtp, ao::Mode::rtn, ao::Mode::rto};
constexpr const char* kModeNames[] = {"rne", "rna", "rtz", "rtp", "rtn", "rto"};
constexpr const char* kOpNames[] = {"add", "sub", "mul", "div", "sqrt", "fma"};

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

mf::RoundResult engine(ao::Op op, mf::Format f, std::uint64_t a, std::uint64_t b, std::uint64_t c, mf::Rounding r) {
  const mf::RoundingSpec spec{r};
  switch (op) {
    case ao::Op::add: return mf::add(f, a, b, spec);
    case ao::Op::sub: return mf::sub(f, a, b, spec);
    case ao::Op::mul: return mf::mul(f, a, b, spec);
    case ao::Op::div: return mf::div(f, a, b, spec);
    case ao::Op::sqrt: return mf::sqrt(f, a, spec);
    case ao::Op::fma: return mf::fma(f, a, b, c, spec);
  }
  return {};
}

struct Case {
  std::size_t format;
  ao::Op op;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << all_formats()[c.format].oracle.name << " " << kOpNames[static_cast<int>(c.op)];
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return std::string(all_formats()[info.param.format].oracle.name) + "_" + kOpNames[static_cast<int>(info.param.op)];
}

class MpfrOracle : public testing::TestWithParam<Case> {};

// Oracle: MPFR (arith_oracle::compute). Compares the code and the four flags.
TEST_P(MpfrOracle, EveryPairEveryMode) {
  const FormatPair& fp = all_formats()[GetParam().format];
  const ao::Op op = GetParam().op;
  const std::uint64_t n = std::uint64_t{1} << fp.engine.bits;
  const bool unary = op == ao::Op::sqrt;
  const int addends = op == ao::Op::fma ? 2 : 1;  // fma: every pair with 2 sampled addends
  std::uint64_t checked = 0, mismatches = 0;
  std::ostringstream first;
  for (int m = 0; m < 6; ++m) {
    for (std::uint64_t a = 0; a < n; ++a) {
      for (std::uint64_t b = 0; b < (unary ? 1 : n); ++b) {
        for (int k = 0; k < addends; ++k) {
          const std::uint64_t c = splitmix((a << 20) ^ (b << 4) ^ static_cast<std::uint64_t>(k)) & (n - 1);
          const mf::RoundResult got = engine(op, fp.engine, a, b, c, kEngineModes[m]);
          const ao::Result want = ao::compute(op, fp.oracle, a, fp.oracle, b, fp.oracle, c, fp.oracle, kOracleModes[m]);
          const bool ok = got.code == want.code && ((got.flags & mf::flag_inexact) != 0) == want.inexact &&
                          ((got.flags & mf::flag_underflow) != 0) == want.underflow &&
                          ((got.flags & mf::flag_overflow) != 0) == want.overflow &&
                          ((got.flags & mf::flag_invalid) != 0) == want.invalid;
          ++checked;
          if (!ok && ++mismatches <= 12) {
            first << "  " << kOpNames[static_cast<int>(op)] << " " << kModeNames[m] << " a=0x" << std::hex << a << " ("
                  << ao::describe(fp.oracle, a) << ") b=0x" << b << " (" << ao::describe(fp.oracle, b) << ")";
            if (op == ao::Op::fma) first << " c=0x" << c << " (" << ao::describe(fp.oracle, c) << ")";
            first << ": want 0x" << want.code << " (" << ao::describe(fp.oracle, want.code) << ") flags x" << want.inexact
                  << "u" << want.underflow << "o" << want.overflow << "i" << want.invalid << ", got 0x" << got.code << " ("
                  << ao::describe(fp.oracle, got.code) << ") flags x" << ((got.flags & mf::flag_inexact) != 0) << "u"
                  << ((got.flags & mf::flag_underflow) != 0) << "o" << ((got.flags & mf::flag_overflow) != 0) << "i"
                  << ((got.flags & mf::flag_invalid) != 0) << std::dec << "\n";
          }
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << mismatches << " of " << checked << " cases differ from MPFR; first ones:\n"
                            << first.str();
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (std::size_t f = 0; f < all_formats().size(); ++f)
    for (int op = 0; op < 6; ++op) v.push_back({f, static_cast<ao::Op>(op)});
  return v;
}

INSTANTIATE_TEST_SUITE_P(ArithExhaustive, MpfrOracle, testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace minifloat_test
