// SPDX-License-Identifier: Apache-2.0
// fuzz_probe_got.cpp: libFuzzer target for the --got readers of `probe check` (parse_npy, then
// check::got_codes for an elementwise target and check::got_results for a dot target). Input: [target
// index][count byte][.npy bytes]. Property: parse_npy throws ParseError or yields an array; the readers
// throw one minifloat::Error line naming "--got", or return exactly `count` words, each holding only
// the bits of one element of the array's width (nothing read past an element, nothing invented).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_common.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/probe_files.hpp"

namespace {

using minifloat_fuzz::require;
namespace mf = minifloat;
namespace check = minifloat::check;

const mf::Format kTo[] = {mf::formats::e4m3fn, mf::formats::e2m1fn, mf::formats::f16, mf::formats::bf16, mf::formats::e8m0fnu};
const char* const kModels[] = {"fp32", "hopper-fp8", "ada-fp8-f16"};

void check_words(const mf::NpyArray& a, const std::vector<std::uint64_t>& w, std::size_t n) {
  require(w.size() == n, "reader returned " + std::to_string(w.size()) + " words for " + std::to_string(n));
  const std::size_t item = a.item_size();
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t v = 0;
    std::memcpy(&v, a.data.data() + i * item, item < 8 ? item : 8);
    require(w[i] == v, "word " + std::to_string(i) + " is not the element's bytes");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const unsigned sel = data[0];
  const std::size_t n = data[1];
  mf::NpyArray a;
  try {
    a = mf::parse_npy(reinterpret_cast<const std::byte*>(data + 2), size - 2, "--got");
  } catch (const mf::ParseError& e) {
    minifloat_fuzz::check_message(e.what(), "", 600);
    return 0;
  }
  constexpr unsigned nto = sizeof kTo / sizeof kTo[0], nmod = sizeof kModels / sizeof kModels[0];
  try {
    if (sel % 2 == 0) {
      check_words(a, check::got_codes(a, kTo[(sel / 2) % nto], n, "--got"), n);
    } else {
      check::DotTarget t;
      t.model = mf::parse_dot_model(kModels[(sel / 2) % nmod]);
      check_words(a, check::got_results(a, t, n, "--got"), n);
    }
  } catch (const mf::Error& e) {
    minifloat_fuzz::check_message(e.what(), "--got", 600);
  }
  return 0;
}
