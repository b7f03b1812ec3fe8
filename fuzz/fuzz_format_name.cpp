// SPDX-License-Identifier: Apache-2.0
// fuzz_format_name.cpp: libFuzzer target for format names (minifloat::parse_format: named formats,
// aliases, Binary{K}p{P}{s|u}{e|f}, custom:E,M,BIAS,signed|unsigned,SPECIALS[,nozero]). Input:
// the name. Property: parse_format either throws minifloat::NameError (one line) or returns a
// Format that validate() accepts and that round-trips, parse_format(format_name(f)) == f. An
// accepted format must also be usable without undefined behaviour (checked by UBSan): its
// largest finite code, smallest nonzero code and 1.0 convert to and from f64, and the largest
// finite code decodes to a value that re-encodes to itself exactly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/registry.hpp"

namespace {
using minifloat_fuzz::require;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  minifloat::Format f{};
  try {
    f = minifloat::parse_format(name);
  } catch (const minifloat::NameError& e) {
    minifloat_fuzz::check_message(e.what(), "", 600);
    return 0;
  }
  require(minifloat::validate(f) == minifloat::FormatError::ok, "accepted a format that validate() refuses");
  const std::string canonical = minifloat::format_name(f);
  minifloat::Format g{};
  try {
    g = minifloat::parse_format(canonical);
  } catch (const minifloat::NameError& e) {
    minifloat_fuzz::fail("format_name gave '" + canonical + "', which parse_format refuses: " + e.what());
  }
  require(g == f, "parse_format(format_name(f)) != f for '" + canonical + "'");
  require(minifloat::format_name(g) == canonical, "format_name is not stable for '" + canonical + "'");

  // Usable: exercise the exponent arithmetic at both ends of the range (UBSan reports overflow).
  const std::uint64_t max_code = minifloat::max_finite_magnitude(f);
  const std::uint64_t min_code = f.has_zero ? 1 : 0;  // smallest subnormal, or e8m0fnu-style 2^-bias
  for (const std::uint64_t c : {max_code, min_code}) {
    const minifloat::RoundResult wide = minifloat::convert(f, c, minifloat::formats::f64);
    (void)minifloat::convert(minifloat::formats::f64, wide.code, f);
  }
  (void)minifloat::from_double(1.0, f);
  // the largest finite value, decoded exactly, re-encodes to itself
  const minifloat::RoundResult back = minifloat::round_pack(f, minifloat::unpack(f, max_code));
  require(back.code == max_code && back.flags == minifloat::flag_none,
          "the largest finite code does not re-encode to itself for '" + canonical + "'");
  return 0;
}
