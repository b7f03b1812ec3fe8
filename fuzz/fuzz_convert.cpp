// SPDX-License-Identifier: Apache-2.0
// fuzz_convert.cpp: libFuzzer target: bytes → (target format, mode, overflow policy, source
// type, source bits) → minifloat::convert vs the MPFR oracle (tests/oracle); aborts on any
// difference in code or flags. Also linked into a replay driver (replay_main.cpp) for ctest.
//
// Input layout (missing bytes read as 0):
//   [0] target index % 44: the named formats of ≤ 16 bits in oracle::named_specs() order
//       (0 e4m3fn 1 e5m2 2 e4m3fnuz 3 e5m2fnuz 4 e4m3b11fnuz 5 e4m3 6 e3m4 7 e3m2fn 8 e2m3fn
//       9 e2m1fn 10 e8m0fnu 11 ue4m3 12 f16 13 bf16), then the 30 P3109 K = 8 formats in
//       oracle::p3109_specs(8) order (14 Binary8p1se 15 Binary8p1sf … 28 Binary8p1ue …)
//   [1] mode % 6: rne rna rtz rtp rtn rto
//   [2] policy % 3: nonsat satfinite satpropagate
//   [3] source % 4: f64 f32 f16 bf16
//   [4..11] source bits, little endian, masked to the source width
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "engine_map.hpp"
#include "minifloat/core/convert.hpp"
#include "mpfr_oracle.hpp"
#include "spec_formats.hpp"

namespace {

using namespace minifloat_test;

struct FuzzTarget {
  oracle::SpecFormat spec;
  minifloat::Format fmt;
  std::unique_ptr<oracle::Target> oracle;
};

std::vector<FuzzTarget>& targets() {
  static std::vector<FuzzTarget> v = [] {
    std::vector<FuzzTarget> t;
    std::vector<oracle::SpecFormat> specs = oracle::named_specs();
    for (auto& s : oracle::p3109_specs(8)) specs.push_back(s);
    for (auto& s : specs) t.push_back({s, engine_format(s), std::make_unique<oracle::Target>(s)});
    return t;
  }();
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::uint8_t b[12] = {};
  for (std::size_t i = 0; i < size && i < sizeof b; ++i) b[i] = data[i];
  auto& ts = targets();
  FuzzTarget& t = ts[b[0] % ts.size()];
  const oracle::Mode mode = kAllModes[b[1] % 6];
  const oracle::Overflow ov = static_cast<oracle::Overflow>(b[2] % 3);
  const int source = b[3] % 4;
  std::uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits |= static_cast<std::uint64_t>(b[4 + i]) << (8 * i);

  static mpfr_t x;
  static bool init = false;
  if (!init) {
    mpfr_init2(x, 64);
    init = true;
  }
  static const oracle::SpecFormat f16 = oracle::spec_by_name("f16");
  static const oracle::SpecFormat bf16 = oracle::spec_by_name("bf16");
  minifloat::Format from = minifloat::formats::f64;
  switch (source) {
    case 0: oracle::set_from_double(x, std::bit_cast<double>(bits)); break;
    case 1:
      bits &= 0xffffffffu;
      from = minifloat::formats::f32;
      oracle::set_from_double(x, static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits))));
      break;
    case 2:
      bits &= 0xffffu;
      from = minifloat::formats::f16;
      oracle::set_from_code(x, f16, bits);
      break;
    default:
      bits &= 0xffffu;
      from = minifloat::formats::bf16;
      oracle::set_from_code(x, bf16, bits);
      break;
  }
  const oracle::Result want = t.oracle->round(x, mode, ov);
  const minifloat::RoundResult got =
      minifloat::convert(from, bits, t.fmt, engine_spec(mode, ov), minifloat::profiles::ocp);
  const unsigned gf = from_engine(got.flags);
  if (got.code != want.code || gf != want.flags) {
    static const char* const src_names[] = {"f64", "f32", "f16", "bf16"};
    std::fprintf(stderr, "fuzz_convert mismatch: %s %s -> %s %s %s: MPFR %s {%s}, minifloat %s {%s}\n",
                 src_names[source], hex(bits).c_str(), t.spec.name.c_str(), oracle::mode_name(mode),
                 oracle::overflow_name(ov), hex(want.code).c_str(), oracle::flags_text(want.flags).c_str(),
                 hex(got.code).c_str(), oracle::flags_text(gf).c_str());
    std::abort();
  }
  return 0;
}
