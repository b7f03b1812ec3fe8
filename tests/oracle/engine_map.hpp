// SPDX-License-Identifier: Apache-2.0
// engine_map.hpp: test-side glue between the oracle's vocabulary and minifloat's (modes,
// policies, flags, format lookup by name). Used by the differential tests and the fuzzer;
// never by the oracle library itself.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/registry.hpp"
#include "mpfr_oracle.hpp"
#include "spec_formats.hpp"

namespace minifloat_test {

inline constexpr oracle::Mode kAllModes[] = {oracle::Mode::rne, oracle::Mode::rna, oracle::Mode::rtz,
                                             oracle::Mode::rtp, oracle::Mode::rtn, oracle::Mode::rto,
                                             oracle::Mode::rnz, oracle::Mode::rnu};

inline minifloat::Rounding to_engine(oracle::Mode m) {
  switch (m) {
    case oracle::Mode::rne: return minifloat::Rounding::rne;
    case oracle::Mode::rna: return minifloat::Rounding::rna;
    case oracle::Mode::rtz: return minifloat::Rounding::rtz;
    case oracle::Mode::rtp: return minifloat::Rounding::rtp;
    case oracle::Mode::rtn: return minifloat::Rounding::rtn;
    case oracle::Mode::rto: return minifloat::Rounding::rto;
    case oracle::Mode::rnz: return minifloat::Rounding::rnz;
    case oracle::Mode::rnu: return minifloat::Rounding::rnu;
  }
  return minifloat::Rounding::rne;
}

inline minifloat::Overflow to_engine(oracle::Overflow o) {
  switch (o) {
    case oracle::Overflow::nonsat: return minifloat::Overflow::nonsat;
    case oracle::Overflow::satfinite: return minifloat::Overflow::satfinite;
    case oracle::Overflow::satpropagate: return minifloat::Overflow::satpropagate;
  }
  return minifloat::Overflow::nonsat;
}

/// minifloat's Flags as the oracle's bits, mapped name by name.
inline unsigned from_engine(minifloat::Flags f) {
  unsigned r = 0;
  if (f & minifloat::flag_inexact) r |= oracle::kInexact;
  if (f & minifloat::flag_underflow) r |= oracle::kUnderflow;
  if (f & minifloat::flag_overflow) r |= oracle::kOverflow;
  if (f & minifloat::flag_invalid) r |= oracle::kInvalid;
  return r;
}

/// The oracle's spec of every row of the core's table of named formats (core/named_formats.hpp) of at most
/// `max_bits` bits, in table order, matched by name: what the exhaustive tests iterate, so a new row is
/// tested as soon as it has an oracle entry. A row without one is left out here and fails
/// Coverage.EveryNamedFormatHasAnOracleSpec.
inline std::vector<oracle::SpecFormat> named_format_specs(int max_bits) {
  std::vector<oracle::SpecFormat> v;
  for (const auto& r : minifloat::kNamedFormats) {
    if (r.format.bits > max_bits) continue;
    for (const auto& s : oracle::named_specs())
      if (s.name == r.name) v.push_back(s);
  }
  return v;
}

/// minifloat's descriptor for an oracle spec, resolved through the registry by name.
inline minifloat::Format engine_format(const oracle::SpecFormat& s) { return minifloat::parse_format(s.name); }

inline minifloat::RoundingSpec engine_spec(oracle::Mode m, oracle::Overflow o) {
  minifloat::RoundingSpec r;
  r.rounding = to_engine(m);
  r.overflow = to_engine(o);
  return r;
}

/// Collects mismatches: counts them all, keeps the text of the first few.
struct Mismatches {
  std::uint64_t count = 0;
  std::uint64_t checked = 0;
  std::string first;
  int keep = 8;
  void add(const std::string& line) {
    if (count++ < static_cast<std::uint64_t>(keep)) first += "  " + line + "\n";
  }
};

inline std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace minifloat_test
