// SPDX-License-Identifier: Apache-2.0
// p3109_p1_test.cpp: IEEE P3109 formats with P = 1 (no trailing significand) under
// minifloat's `p3109` profile vs the MPFR oracle's P3109 rule set (P3109 v4.0 §4.7.4: a tie
// goes to the neighbour whose code is even, "IsEven(Q + B)"; §4.7.5: a negative value into an
// unsigned format is NaN under SatNone (nonsat), 0 under SatFinite). Every f16/bf16 input ×
// rne rna rtz rtp rtn × nonsat/satfinite, for K = 4, 8, 10. A separate test checks rto with
// §4.7.4's ToOdd rule ("ν > 0 and code is even" → away), which for P = 1 also uses IsEven(Q + B).
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "engine_map.hpp"
#include "minifloat/core/convert.hpp"
#include "mpfr_oracle.hpp"
#include "spec_formats.hpp"

namespace minifloat_test {
namespace {

struct P1Shard {
  std::string source;
  int k;
};

std::vector<P1Shard> p1_shards() {
  std::vector<P1Shard> v;
  for (const char* s : {"f16", "bf16"})
    for (int k : {4, 8, 10}) v.push_back({s, k});
  return v;
}

std::vector<oracle::SpecFormat> p1_formats(int k) {
  std::vector<oracle::SpecFormat> v;
  for (bool sgn : {true, false})
    for (bool ext : {true, false}) v.push_back(oracle::p3109_spec(k, 1, sgn, ext));
  return v;
}

void run(const P1Shard& sh, const std::vector<oracle::Mode>& modes, const oracle::Options& opt) {
  const oracle::SpecFormat src = oracle::spec_by_name(sh.source);
  const minifloat::Format from = engine_format(src);
  Mismatches mm;
  mpfr_t x;
  mpfr_init2(x, 64);
  for (const auto& spec : p1_formats(sh.k)) {
    oracle::Target target(spec);
    const minifloat::Format to = engine_format(spec);
    for (std::uint64_t code = 0; code < src.code_count(); ++code) {
      oracle::set_from_code(x, src, code);
      for (oracle::Mode mode : modes) {
        for (oracle::Overflow ov : {oracle::Overflow::nonsat, oracle::Overflow::satfinite}) {
          ++mm.checked;
          const oracle::Result want = target.round(x, mode, ov, opt);
          const minifloat::RoundResult got =
              minifloat::convert(from, code, to, engine_spec(mode, ov), minifloat::profiles::p3109);
          const unsigned gf = from_engine(got.flags);
          if (got.code != want.code || gf != want.flags)
            mm.add(sh.source + " " + hex(code) + " -> " + spec.name + " " + oracle::mode_name(mode) + " " +
                   oracle::overflow_name(ov) + " (p3109 profile): want " + hex(want.code) + " {" +
                   oracle::flags_text(want.flags) + "}, got " + hex(got.code) + " {" + oracle::flags_text(gf) + "}");
        }
      }
    }
  }
  mpfr_clear(x);
  std::printf("[ oracle ] %s -> P3109 K=%d P=1 (p3109 profile): %llu conversions, %llu mismatches\n",
              sh.source.c_str(), sh.k, static_cast<unsigned long long>(mm.checked),
              static_cast<unsigned long long>(mm.count));
  EXPECT_EQ(mm.count, 0u) << mm.count << " mismatches against the MPFR oracle (P3109 rules); first ones:\n"
                          << mm.first;
}

class P3109P1 : public ::testing::TestWithParam<P1Shard> {};
void PrintTo(const P1Shard& s, std::ostream* os) { *os << s.source << " K=" << s.k; }

// Every deterministic mode under the p3109 profile: ties and round-to-odd by code parity,
// negative values into unsigned formats rounded first, SatNone saturating finite domains.
TEST_P(P3109P1, ProjectionRules) {
  oracle::Options opt;
  opt.p3109 = true;
  run(GetParam(),
      {oracle::Mode::rne, oracle::Mode::rna, oracle::Mode::rtz, oracle::Mode::rtp, oracle::Mode::rtn, oracle::Mode::rto},
      opt);
}

INSTANTIATE_TEST_SUITE_P(Exhaustive, P3109P1, ::testing::ValuesIn(p1_shards()),
                         [](const ::testing::TestParamInfo<P1Shard>& i) {
                           return i.param.source + "_K" + std::to_string(i.param.k);
                         });
}  // namespace
}  // namespace minifloat_test
