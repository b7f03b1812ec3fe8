// SPDX-License-Identifier: Apache-2.0
// exhaustive_decode_test.cpp: every code of every named format of ≤ 16 bits and of every
// IEEE P3109 format (K ≤ 16) decodes (minifloat unpack / to_double) to the value of the
// oracle's independent field-layout decoder (spec_formats.cpp), and re-encodes to itself
// (convert(f, code, f) and from_double(to_double(code))); NaN codes re-encode to the ocp
// profile's NaN (sign kept where the format has signed NaNs).
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "engine_map.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/unpacked.hpp"
#include "spec_formats.hpp"

namespace minifloat_test {
namespace {

using oracle::Exact;
using oracle::Kind;
using oracle::SpecFormat;

// Strip trailing zero bits so equal values compare equal field by field.
void normalise(std::uint64_t& sig, long& exp) {
  if (sig == 0) {
    exp = 0;
    return;
  }
  while ((sig & 1) == 0) {
    sig >>= 1;
    ++exp;
  }
}

// True when the format's NaN codes come in both signs (the sign bit of a NaN is meaningful).
bool signed_nans(const SpecFormat& f) { return f.has_nan() && f.nan_out_pos != f.nan_out_neg; }

void check_format(const SpecFormat& f, Mismatches& mm) {
  const minifloat::Format fmt = engine_format(f);
  ASSERT_EQ(fmt.bits, f.k) << f.name;
  const bool dbl = f.fits_double();
  for (std::uint64_t c = 0; c < f.code_count(); ++c) {
    ++mm.checked;
    const Exact ov = oracle::decode(f, c);
    const minifloat::Unpacked u = minifloat::unpack(fmt, c);
    const std::string where = f.name + " code " + hex(c) + ": ";
    // 1. unpack vs the oracle's decoder.
    const bool u_nan = u.cls == minifloat::Class::nan, u_inf = u.cls == minifloat::Class::inf;
    if ((ov.kind == Kind::nan) != u_nan || (ov.kind == Kind::inf) != u_inf) {
      mm.add(where + "class differs (oracle " + (ov.kind == Kind::nan ? "nan" : ov.kind == Kind::inf ? "inf" : "finite") +
             ")");
      continue;
    }
    if (ov.kind == Kind::finite) {
      std::uint64_t s1 = ov.sig, s2 = u.cls == minifloat::Class::zero ? 0 : u.sig;
      long e1 = ov.exp, e2 = u.exp;
      normalise(s1, e1);
      normalise(s2, e2);
      if (s1 != s2 || e1 != e2 || ov.negative != u.negative)
        mm.add(where + "unpack " + (u.negative ? "-" : "+") + std::to_string(s2) + "*2^" + std::to_string(e2) +
               ", oracle " + (ov.negative ? "-" : "+") + std::to_string(s1) + "*2^" + std::to_string(e1));
    } else if (ov.kind == Kind::inf && ov.negative != u.negative) {
      mm.add(where + "sign of Inf differs");
    } else if (ov.kind == Kind::nan && signed_nans(f) && ov.negative != u.negative) {
      mm.add(where + "sign of NaN differs");
    }
    // 2. re-encode: identity, NaN → the profile's NaN with its sign.
    const std::uint64_t want = ov.kind == Kind::nan ? (ov.negative ? f.nan_out_neg : f.nan_out_pos) : c;
    const minifloat::RoundResult r = minifloat::convert(fmt, c, fmt);
    if (r.code != want || r.flags != minifloat::flag_none)
      mm.add(where + "convert(f, code, f) = " + hex(r.code) + " flags " + oracle::flags_text(from_engine(r.flags)) +
             ", want " + hex(want) + " none");
    if (!dbl) continue;
    // 3. to_double vs the oracle's double, and from_double back.
    const double d = minifloat::to_double(fmt, c);
    const double w = oracle::to_double(ov);
    const bool same = std::isnan(w) ? (std::isnan(d) && (!signed_nans(f) || std::signbit(d) == std::signbit(w)))
                                    : std::bit_cast<std::uint64_t>(d) == std::bit_cast<std::uint64_t>(w);
    if (!same) mm.add(where + "to_double " + std::to_string(d) + ", oracle " + std::to_string(w));
    const minifloat::RoundResult b = minifloat::from_double(d, fmt);
    if (b.code != want || b.flags != minifloat::flag_none)
      mm.add(where + "from_double(to_double) = " + hex(b.code) + " flags " + oracle::flags_text(from_engine(b.flags)) +
             ", want " + hex(want));
  }
}

struct DecodeCase {
  std::string name;
  std::vector<SpecFormat> formats;
};

std::vector<DecodeCase> decode_cases() {
  std::vector<DecodeCase> v;
  for (const auto& f : named_format_specs(16)) v.push_back({f.name, {f}});
  for (int k = 3; k <= 16; ++k) v.push_back({"P3109_K" + std::to_string(k), oracle::p3109_specs(k)});
  return v;
}

void PrintTo(const DecodeCase& c, std::ostream* os) { *os << c.name; }

class AllCodes : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(AllCodes, DecodeMatchesOracleAndReencodes) {
  const auto t0 = std::chrono::steady_clock::now();
  Mismatches mm;
  for (const auto& f : GetParam().formats) check_format(f, mm);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ oracle ] %s: %llu codes checked in %.2f s, %llu mismatches\n", GetParam().name.c_str(),
              static_cast<unsigned long long>(mm.checked), s, static_cast<unsigned long long>(mm.count));
  EXPECT_EQ(mm.count, 0u) << mm.count << " mismatches; first ones:\n" << mm.first;
}

INSTANTIATE_TEST_SUITE_P(Exhaustive, AllCodes, ::testing::ValuesIn(decode_cases()),
                         [](const ::testing::TestParamInfo<DecodeCase>& i) { return i.param.name; });

}  // namespace
}  // namespace minifloat_test
