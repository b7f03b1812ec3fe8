// SPDX-License-Identifier: Apache-2.0
// arith_exhaustive_test.cpp: every pair of codes of each ≤ 8-bit format, per operation and rounding
// mode, against the MPFR oracle (tests/arith/mpfr_oracle.*, which shares no code with the engine).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "minifloat/core/arith.hpp"
#include "minifloat/core/format.hpp"
#include "minifloat/core/named_formats.hpp"
#include "mpfr_oracle.hpp"
#include "spec_formats.hpp"

namespace minifloat_test {
namespace {

namespace mf = minifloat;
namespace ao = arith_oracle;
namespace oracle = minifloat_test::oracle;

struct FormatPair {
  mf::Format engine;
  ao::OFormat oracle;
};

/// The arith oracle's format for the conversion oracle's description of a format (tests/oracle/spec_formats.hpp;
/// neither oracle includes a minifloat header): the fields, the special-code kind from the listed codes
/// (IEEE NaN/Inf rule → ieee; no NaN → none; the one NaN code 0x80 of a signed format → fnuz; else fn, the
/// all-ones magnitude), and the largest finite value from the conversion oracle's exact decoder. A new named
/// format therefore needs its spec entry only; the hand-written literals of mpfr_oracle.hpp are pinned to
/// this derivation by ArithCoverage.DerivedFormatsEqualTheOracleLiterals.
ao::OFormat arith_format(const oracle::SpecFormat& s) {
  static std::deque<std::string> names;  // stable storage for OFormat::name
  ao::Kind kind = ao::Kind::fn;
  if (s.nan_rule == oracle::NanRule::ieee) kind = ao::Kind::ieee;
  if (s.nan_rule == oracle::NanRule::none) kind = ao::Kind::none;
  if (s.nan_rule == oracle::NanRule::listed && s.is_signed && s.nan_codes.size() == 1 && s.nan_codes[0] == s.sign_bit())
    kind = ao::Kind::fnuz;
  double max_finite = 0;
  for (std::uint64_t c = 0; c < s.code_count(); ++c) {
    const oracle::Exact v = oracle::decode(s, c);
    if (v.kind == oracle::Kind::finite && !v.negative) max_finite = std::max(max_finite, oracle::to_double(v));
  }
  names.push_back(s.name);
  return {names.back().c_str(), s.k, s.ebits, s.mbits, s.bias, s.is_signed, kind, s.has_zero, max_finite};
}

/// The rows of the core's table of named formats (core/named_formats.hpp) of at most 8 bits, each with the arith
/// oracle's format derived from the conversion oracle's spec of its name, in table order: a new row is tested as
/// soon as the conversion oracle has its spec (oracle.Coverage.EveryNamedFormatHasAnOracleSpec fails until then).
const std::vector<FormatPair>& all_formats() {
  static const std::vector<FormatPair> v = [] {
    std::vector<FormatPair> out;
    for (const auto& r : mf::kNamedFormats)
      if (r.format.bits <= 8)
        for (const oracle::SpecFormat& s : oracle::named_specs_upto_8_bits())
          if (s.name == r.name) out.push_back({r.format, arith_format(s)});
    return out;
  }();
  return v;
}

TEST(ArithCoverage, EveryNamedFormatOfAtMost8BitsIsTested) {
  for (const auto& r : mf::kNamedFormats) {
    if (r.format.bits > 8) continue;
    bool found = false;
    for (const auto& p : all_formats()) found = found || std::string_view(p.oracle.name) == r.name;
    EXPECT_TRUE(found) << "named format " << r.name << " has no spec in the conversion oracle "
                       << "(tests/oracle/spec_formats.cpp): its exhaustive arithmetic tests would be left out";
  }
}

/// The two oracles describe the formats they both list independently: mpfr_oracle.hpp's literals (spec values
/// typed by hand) must equal what arith_format derives from spec_formats.cpp.
TEST(ArithCoverage, DerivedFormatsEqualTheOracleLiterals) {
  std::size_t compared = 0;
  for (const ao::OFormat* lit : ao::formats::kUpTo8Bits) {
    const ao::OFormat d = arith_format(oracle::spec_by_name(lit->name));
    SCOPED_TRACE(lit->name);
    EXPECT_EQ(d.bits, lit->bits);
    EXPECT_EQ(d.ebits, lit->ebits);
    EXPECT_EQ(d.mbits, lit->mbits);
    EXPECT_EQ(d.bias, lit->bias);
    EXPECT_EQ(d.is_signed, lit->is_signed);
    EXPECT_EQ(d.kind, lit->kind);
    EXPECT_EQ(d.has_zero, lit->has_zero);
    EXPECT_EQ(d.max_finite, lit->max_finite);
    ++compared;
  }
  EXPECT_EQ(compared, std::size(ao::formats::kUpTo8Bits));
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
