// SPDX-License-Identifier: Apache-2.0
// fuzz_probe_got.cpp: libFuzzer target for the --got readers of `probe check` (parse_npy, then
// check::got_codes for an elementwise target, check::got_results for a dot target, and
// check::got_block_codes / got_block_scales (--got / --got-scales) for a block target). Input: [target
// index][count byte][.npy bytes]; an even index in 64..127 reads packed codes (fp4x2 / fp6_dense by the
// format's width); an index >= 128 selects a block target (bit 0: scales, else codes). Property: parse_npy throws ParseError or yields an array; the readers
// throw one minifloat::Error line naming "--got", or return exactly `count` words, each holding only
// the bits of one element of the array's width (nothing read past an element, nothing invented).
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>

#include "fuzz_common.hpp"
#include "minifloat/check/probe_files.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/scheme.hpp"

namespace {

using minifloat_fuzz::require;
namespace mf = minifloat;
namespace check = minifloat::check;

const mf::Format kTo[] = {mf::formats::e4m3fn, mf::formats::e2m1fn, mf::formats::f16, mf::formats::bf16, mf::formats::e8m0fnu,
                          mf::formats::e3m2fn};
const char* const kModels[] = {"fp32", "hopper-fp8", "ada-fp8-f16"};
struct BlockCfg {
  const char* scheme;
  check::Packing packing;
};
const BlockCfg kBlocks[] = {{"mxfp8_e4m3", check::Packing::none},
                            {"mxfp4", check::Packing::fp4x2},
                            {"nvfp4", check::Packing::none},
                            {"fp8_1x128", check::Packing::none},
                            {"mxfp6_e3m2", check::Packing::fp6_dense}};

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
  constexpr unsigned nblk = sizeof kBlocks / sizeof kBlocks[0];
  try {
    if (sel >= 128) {
      check::BlockTarget t;
      t.scheme = mf::parse_scheme(kBlocks[((sel - 128) / 2) % nblk].scheme);
      t.packing = kBlocks[((sel - 128) / 2) % nblk].packing;
      if (sel % 2) {
        check_words(a, check::got_block_scales(a, t, n, "--got-scales", mf::ScaleLayout::rowmajor), n);
      } else {
        const std::size_t bytes = n * check::code_bytes_per_block(t);
        const std::vector<std::uint8_t> c = check::got_block_codes(a, t, n, "--got");
        require(c.size() == bytes && a.item_size() == 1 && std::equal(c.begin(), c.end(), reinterpret_cast<const std::uint8_t*>(a.data.data())),
                "block codes are not the array's bytes");
      }
    } else if (sel >= 64 && sel % 2 == 0) {  // packed elementwise codes: fp4x2 (4-bit to), fp6_dense (6-bit to)
      const mf::Format to = kTo[(sel / 2) % nto];
      const check::Packing pk = to.bits == 4 ? check::Packing::fp4x2 : to.bits == 6 ? check::Packing::fp6_dense : check::Packing::none;
      const std::vector<std::uint64_t> w = check::got_codes(a, to, n, "--got", pk);
      require(w.size() == n, "packed reader returned " + std::to_string(w.size()) + " codes for " + std::to_string(n));
      if (pk != check::Packing::none)
        for (std::uint64_t c : w) require(c >> to.bits == 0, "an unpacked code is wider than the format");
    } else if (sel % 2 == 0) {
      check_words(a, check::got_codes(a, kTo[(sel / 2) % nto], n, "--got"), n);
    } else {
      check::DotTarget t;
      t.model = mf::parse_dot_model(kModels[(sel / 2) % nmod]);
      check_words(a, check::got_results(a, t, n, "--got"), n);
    }
  } catch (const mf::Error& e) {
    minifloat_fuzz::check_message(e.what(), "--got", 600);  // "--got-scales" contains "--got"
  }
  return 0;
}
