// SPDX-License-Identifier: Apache-2.0
// fuzz_convert.cpp: libFuzzer target: bytes → (target format, mode, overflow policy, source
// type, source bits) → minifloat::convert vs the MPFR oracle (tests/oracle); aborts on any
// difference in code or flags. Also linked into a replay driver (replay_main.cpp) for ctest.
//
// Input layout (missing bytes read as 0): the target by name, then 11 bytes.
//   [0]      n: the length of the target's name
//   [1..n]   the target's canonical name: a named format of ≤ 16 bits (a row of core/named_formats.hpp
//            with an oracle entry) or one of the 30 P3109 K = 8 formats ("Binary8p3se"). Bytes that
//            name no target pick one by their FNV-1a hash (so mutated inputs reach every target); the
//            committed seeds (fuzz/make_seeds.py) always name theirs, so adding a format moves none.
//   [n+1]    mode % 6: rne rna rtz rtp rtn rto
//   [n+2]    policy % 3: nonsat satfinite satpropagate
//   [n+3]    source % 4: f64 f32 f16 bf16
//   [n+4..n+11] source bits, little endian, masked to the source width
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>
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
    std::vector<oracle::SpecFormat> specs = named_format_specs(16);
    for (auto& s : oracle::p3109_specs(8)) specs.push_back(s);
    for (auto& s : specs) t.push_back({s, engine_format(s), std::make_unique<oracle::Target>(s)});
    return t;
  }();
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::size_t n = size > 0 ? std::min<std::size_t>(data[0], size - 1) : 0;
  const std::string_view name(reinterpret_cast<const char*>(data) + (size > 0 ? 1 : 0), n);
  std::uint8_t b[12] = {};  // b[0] unused: the layout's [n+1..n+11] are b[1..11]
  for (std::size_t i = 1; i < sizeof b && n + i < size; ++i) b[i] = data[n + i];
  auto& ts = targets();
  FuzzTarget* found = nullptr;
  for (auto& c : ts)
    if (c.spec.name == name) found = &c;
  if (!found) {
    std::uint32_t h = 2166136261u;  // FNV-1a 32
    for (const char c : name) h = (h ^ static_cast<std::uint8_t>(c)) * 16777619u;
    found = &ts[h % ts.size()];
  }
  FuzzTarget& t = *found;
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
