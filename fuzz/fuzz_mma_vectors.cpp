// SPDX-License-Identifier: Apache-2.0
// fuzz_mma_vectors.cpp: libFuzzer target for the MMA vector reader (minifloat::parse_mma_vectors,
// what `minifloat mma-check` reads). Input: [element format index] then the texts of the a, b, c
// and d files separated by NUL bytes (missing files are empty). Property: the reader either throws
// one minifloat::ParseError line naming one of the four files (and, for a bad row, its line), or
// returns rows whose re-printing (print_mma_vectors) parses back to the same element format, k,
// and a/b/c/d codes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "minifloat/mma_vectors.hpp"

namespace {

using minifloat_fuzz::require;

const minifloat::Format kElements[] = {minifloat::formats::e4m3fn, minifloat::formats::e5m2,   minifloat::formats::f16,
                                       minifloat::formats::bf16,   minifloat::formats::e2m1fn, minifloat::formats::e4m3fnuz,
                                       minifloat::formats::e8m0fnu, minifloat::formats::f32};
const char* const kNames[4] = {"fuzz_a.txt", "fuzz_b.txt", "fuzz_c.txt", "fuzz_d_fp32.txt"};

void check_error(const std::string& msg) {
  minifloat_fuzz::check_message(msg, "", 600);
  bool named = false;
  for (const char* n : kNames) named = named || msg.find(n) != std::string::npos;
  require(named, "the error names none of the files: " + msg);
}

minifloat::MmaVectorTexts texts(const std::string_view parts[4]) {
  return {parts[0], parts[1], parts[2], parts[3], kNames[0], kNames[1], kNames[2], kNames[3]};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const minifloat::Format element = kElements[data[0] % (sizeof kElements / sizeof kElements[0])];
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string_view parts[4];
  std::size_t pos = 0;
  for (int k = 0; k < 4 && pos <= rest.size(); ++k) {
    const std::size_t end = k == 3 ? rest.size() : std::min(rest.find('\0', pos), rest.size());
    parts[k] = rest.substr(pos, end - pos);
    pos = end + 1;
  }
  minifloat::MmaVectors v;
  try {
    v = minifloat::parse_mma_vectors(texts(parts), element);
  } catch (const minifloat::ParseError& e) {
    check_error(e.what());
    return 0;
  }
  require(v.element == element, "element format changed");
  require(v.k > 0 && !v.c.empty() && v.a.size() == v.c.size() * v.k && v.b.size() == v.a.size() && v.d.size() == v.c.size(),
          "inconsistent sizes");
  const minifloat::MmaVectorFiles f = minifloat::print_mma_vectors(v);
  const std::string_view printed[4] = {f.a, f.b, f.c, f.d};
  const minifloat::MmaVectors w = minifloat::parse_mma_vectors(texts(printed), element);
  require(w.k == v.k && w.a == v.a && w.b == v.b && w.c == v.c && w.d == v.d, "print → parse changed the rows");
  return 0;
}
