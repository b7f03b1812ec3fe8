// SPDX-License-Identifier: Apache-2.0
// exhaustive_convert_test.cpp: every f16 and every bf16 input (65536 each) × every named
// format of ≤ 8 bits and the 30 IEEE P3109 K = 8 formats × rne rna rtz rtp rtn rto ×
// nonsat/satfinite, under the ocp profile: minifloat::convert vs the MPFR oracle
// (mpfr_oracle.cpp), comparing codes and flags. One test per (source, target) shard.
#include <gtest/gtest.h>

#include <chrono>
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

struct Shard {
  std::string source;  // "f16" or "bf16"
  oracle::SpecFormat target;
};

std::vector<Shard> shards() {
  std::vector<oracle::SpecFormat> targets = named_format_specs(8);
  for (auto& f : oracle::p3109_specs(8)) targets.push_back(f);
  std::vector<Shard> v;
  for (const char* src : {"f16", "bf16"})
    for (const auto& t : targets) v.push_back({src, t});
  return v;
}

void PrintTo(const Shard& s, std::ostream* os) { *os << s.source << " -> " << s.target.name; }

class FromF16Bf16 : public ::testing::TestWithParam<Shard> {};

TEST_P(FromF16Bf16, MatchesMpfrOracle) {
  const Shard& sh = GetParam();
  const oracle::SpecFormat src = oracle::spec_by_name(sh.source);
  const minifloat::Format from = engine_format(src);
  const minifloat::Format to = engine_format(sh.target);
  oracle::Target target(sh.target);
  const auto t0 = std::chrono::steady_clock::now();
  Mismatches mm;
  mpfr_t x;
  mpfr_init2(x, 64);
  for (std::uint64_t code = 0; code < src.code_count(); ++code) {
    oracle::set_from_code(x, src, code);
    for (oracle::Mode mode : kAllModes) {
      for (oracle::Overflow ov : {oracle::Overflow::nonsat, oracle::Overflow::satfinite}) {
        ++mm.checked;
        const oracle::Result want = target.round(x, mode, ov);
        const minifloat::RoundResult got =
            minifloat::convert(from, code, to, engine_spec(mode, ov), minifloat::profiles::ocp);
        const unsigned got_flags = from_engine(got.flags);
        if (got.code != want.code || got_flags != want.flags)
          mm.add(sh.source + " " + hex(code) + " -> " + sh.target.name + " " + oracle::mode_name(mode) + " " +
                 oracle::overflow_name(ov) + ": want " + hex(want.code) + " {" + oracle::flags_text(want.flags) +
                 "}, got " + hex(got.code) + " {" + oracle::flags_text(got_flags) + "}");
      }
    }
  }
  mpfr_clear(x);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ oracle ] %s -> %s: %llu conversions in %.2f s, %llu mismatches\n", sh.source.c_str(),
              sh.target.name.c_str(), static_cast<unsigned long long>(mm.checked), s,
              static_cast<unsigned long long>(mm.count));
  EXPECT_EQ(mm.count, 0u) << mm.count << " mismatches against MPFR; first ones:\n" << mm.first;
}

INSTANTIATE_TEST_SUITE_P(Exhaustive, FromF16Bf16, ::testing::ValuesIn(shards()),
                         [](const ::testing::TestParamInfo<Shard>& i) {
                           return i.param.source + "_to_" + i.param.target.name;
                         });

}  // namespace
}  // namespace minifloat_test
