// SPDX-License-Identifier: Apache-2.0
// tables_test.cpp: the boundary tables (computed from format parameters) probed with the
// rounding engine at each threshold/midpoint and just beside it; exact decimal printing; the
// atomic table writer. Spec literals come from spec-digest (section cited at each).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "minifloat/core/round_pack.hpp"
#include "minifloat/decimal.hpp"
#include "minifloat/file_io.hpp"
#include "minifloat/parse.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/tables.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;

/// |x| normalised so sig has 62 significant bits (room for ±1 below the original LSB).
Unpacked widen(Unpacked x) {
  const int w = detail::bit_width(x.sig);
  x.sig <<= 62 - w;
  x.exp -= 62 - w;
  return x;
}
/// A value strictly between x and the next 62-bit step above it (x plus a sticky tail).
Unpacked just_above(Unpacked x) {
  x = widen(x);
  x.sticky = true;
  return x;
}
/// A value strictly between x − tiny and x.
Unpacked just_below(Unpacked x) {
  x = widen(x);
  x.sig -= 1;
  x.sticky = true;
  return x;
}
Unpacked negate(Unpacked x) {
  x.negative = !x.negative;
  return x;
}
std::string hex(std::uint64_t c, Format f) { return code_hex(c, f.bits); }

TEST(Tables, TabledFormatsAreTheNamedEightBitOnesAndP3109K8) {
  const auto list = tabled_formats();
  std::size_t small = 0;  // the rows of the core's table of at most 8 bits, + 30 P3109 K = 8 formats
  for (const auto& r : kNamedFormats) small += r.format.bits <= 8;
  ASSERT_EQ(list.size(), small + 30);
  EXPECT_EQ(list.front().name, "e4m3fn");
  int p3109 = 0;
  for (const auto& nf : list) {
    EXPECT_LE(nf.format.bits, 8) << nf.name;
    p3109 += nf.family == FormatFamily::p3109;
  }
  EXPECT_EQ(p3109, 30);
}

// Every overflow row, probed with round_pack at ±T, just below and just above it.
TEST(Tables, OverflowThresholdsAgreeWithTheEngine) {
  for (const auto& nf : tabled_formats()) {
    const Format f = nf.format;
    for (const auto& row : overflow_table(f)) {
      const RoundingSpec spec{row.rounding, row.overflow};
      const std::string what = nf.name + " " + std::string(rounding_name(row.rounding)) + " " +
                               std::string(overflow_name(row.overflow)) + (row.negative ? " -" : " +") + " T=" +
                               to_decimal(row.threshold);
      const RoundResult at = round_pack(f, row.threshold, spec);
      const RoundResult below = round_pack(f, just_below(row.threshold), spec);
      const RoundResult above = round_pack(f, just_above(row.threshold), spec);
      // [max, T) gives ±max; when T = max that interval is empty (just below max, rto and the
      // directed mode rounding down give the previous code), so only the flag is checked there.
      const bool t_is_max = to_decimal(row.threshold) == to_decimal(unpack(f, row.max_code));
      if (!t_is_max) {
        EXPECT_EQ(hex(below.code, f), hex(row.max_code, f)) << what << " (just below T)";
      }
      EXPECT_FALSE(below.flags & flag_overflow) << what << " (just below T)";
      EXPECT_EQ(hex(above.code, f), hex(row.overflow_code, f)) << what << " (just above T)";
      EXPECT_TRUE(above.flags & flag_overflow) << what << " (just above T)";
      EXPECT_EQ(hex(at.code, f), hex(row.threshold_overflows ? row.overflow_code : row.max_code, f)) << what;
      EXPECT_EQ((at.flags & flag_overflow) != 0, row.threshold_overflows) << what;
      const RoundResult inf = round_pack(f, Unpacked{Class::inf, row.negative, 0, 0, false}, spec);
      EXPECT_EQ(hex(inf.code, f), hex(row.inf_code, f)) << what << " (Inf input)";
    }
  }
}

// Every midpoint: rne at the midpoint gives the table's tie code, rna the upper, rtz the lower;
// just below / above round to the lower / upper neighbour; negatives mirror.
TEST(Tables, MidpointsAgreeWithTheEngine) {
  for (const auto& nf : tabled_formats()) {
    const Format f = nf.format;
    for (const auto& row : midpoint_table(f)) {
      const std::string what = nf.name + " midpoint " + to_decimal(row.midpoint);
      const RoundingSpec rne{Rounding::rne}, rna{Rounding::rna}, rtz{Rounding::rtz};
      EXPECT_EQ(hex(round_pack(f, row.midpoint, rne).code, f), hex(row.rne, f)) << what;
      EXPECT_EQ(hex(round_pack(f, row.midpoint, rna).code, f), hex(row.upper, f)) << what;
      EXPECT_EQ(hex(round_pack(f, row.midpoint, rtz).code, f), hex(row.lower, f)) << what;
      EXPECT_EQ(hex(round_pack(f, just_below(row.midpoint), rne).code, f), hex(row.lower, f)) << what;
      EXPECT_EQ(hex(round_pack(f, just_above(row.midpoint), rne).code, f), hex(row.upper, f)) << what;
      if (f.is_signed) {
        auto neg_code = [&](std::uint64_t c) { return c == 0 && !has_negative_zero(f) ? c : c | sign_mask(f); };
        EXPECT_EQ(hex(round_pack(f, negate(row.midpoint), rne).code, f), hex(neg_code(row.rne), f)) << what;
        EXPECT_EQ(hex(round_pack(f, negate(just_above(row.midpoint)), rne).code, f), hex(neg_code(row.upper), f))
            << what;
      }
    }
  }
}

// spec-digest §1.2 (T1, T3) and §11 T8: the published thresholds.
TEST(Tables, SpecThresholds) {
  auto rne_plus = [](Format f) {
    for (const auto& r : overflow_table(f))
      if (r.rounding == Rounding::rne && r.overflow == Overflow::nonsat && !r.negative) return r;
    return OverflowRow{};
  };
  const OverflowRow e4 = rne_plus(formats::e4m3fn);
  EXPECT_EQ(to_decimal(e4.threshold), "464");
  EXPECT_FALSE(e4.threshold_overflows);
  EXPECT_EQ(e4.overflow_code, 0x7fu);  // NaN
  const OverflowRow e5 = rne_plus(formats::e5m2);
  EXPECT_EQ(to_decimal(e5.threshold), "61440");
  EXPECT_TRUE(e5.threshold_overflows);
  EXPECT_EQ(e5.overflow_code, 0x7cu);  // +Inf
  const OverflowRow fnuz = rne_plus(formats::e4m3fnuz);
  EXPECT_EQ(to_decimal(fnuz.threshold), "248");
  EXPECT_TRUE(fnuz.threshold_overflows);
  EXPECT_EQ(fnuz.overflow_code, 0x80u);  // the single NaN
}

// spec-digest §2.1: E2M1 values {0, 0.5, 1, 1.5, 2, 3, 4, 6}, sign bit 0x8.
TEST(Tables, E2m1CodeTable) {
  const char* want[8] = {"0", "0.5", "1", "1.5", "2", "3", "4", "6"};
  const auto rows = code_table(formats::e2m1fn);
  ASSERT_EQ(rows.size(), 16u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(to_decimal(rows[i].value), want[i]);
    EXPECT_EQ(to_decimal(rows[i + 8].value), std::string("-") + want[i]);
  }
}

// 2^-127 (e8m0fnu 0x00, spec-digest §2.1) in full; digits from Python's decimal module.
TEST(Decimal, ExactPowersOfTwo) {
  const Unpacked tiny{Class::normal, false, 1, -127, false};
  EXPECT_EQ(to_decimal(tiny),
            "0.0000000000000000000000000000000000000058774717541114375398436826861112283890933277838604376075437585"
            "313920862972736358642578125");
  EXPECT_EQ(to_hex_float(tiny), "0x1p-127");
  EXPECT_EQ(to_decimal(Unpacked{Class::normal, false, 1, 127, false}), "170141183460469231731687303715884105728");
  EXPECT_EQ(to_decimal(Unpacked{Class::normal, true, 7, 6, false}), "-448");  // 448 = 7·2^6 (e4m3fn max)
  EXPECT_EQ(to_hex_float(Unpacked{Class::normal, false, 7, 6, false}), "0x1.cp+8");
  EXPECT_EQ(to_decimal(Unpacked{Class::zero, true, 0, 0, false}), "-0");
  EXPECT_EQ(to_hex_float(Unpacked{Class::zero, true, 0, 0, false}), "-0x0p+0");
  EXPECT_EQ(to_decimal(Unpacked{Class::normal, false, 3, -10, false}), "0.0029296875");  // 3·2^-10 (T6)
  EXPECT_EQ(code_hex(0x7, 4), "0x7");
  EXPECT_EQ(code_hex(0x7f, 7), "0x7f");
  EXPECT_EQ(code_hex(0x400000, 32), "0x00400000");
  EXPECT_EQ(flags_string(flag_inexact | flag_overflow), "inexact|overflow");
  EXPECT_EQ(flags_string(flag_none), "none");
  EXPECT_THROW(to_decimal(Unpacked{Class::normal, false, 1, 0, true}), Error);
}

// Both printed forms of every code's value parse back (parse_value) to exactly that code,
// including f64's extremes (2^-1074 has 1074 fraction digits).
TEST(Decimal, RoundTripsThroughParseValue) {
  for (const auto& nf : tabled_formats()) {
    for (const auto& row : code_table(nf.format)) {
      if (row.cls == Class::nan) continue;
      const std::string d = to_decimal(row.value), h = to_hex_float(row.value);
      for (const std::string& s : {d, h}) {
        const RoundResult r = round_pack(nf.format, parse_value(s), RoundingSpec{});
        EXPECT_EQ(hex(r.code, nf.format), hex(row.code, nf.format)) << nf.name << " " << s;
        EXPECT_EQ(r.flags & flag_inexact, 0) << nf.name << " " << s;
      }
    }
  }
  for (std::uint64_t c : {std::uint64_t{1}, std::uint64_t{0x7fefffffffffffff}, std::uint64_t{0x8010000000000001}}) {
    const Unpacked v = unpack(formats::f64, c);
    for (const std::string& s : {to_decimal(v), to_hex_float(v)})
      EXPECT_EQ(round_pack(formats::f64, parse_value(s)).code, c) << s;
  }
  EXPECT_EQ(to_decimal(unpack(formats::f64, 1)).size(), 1076u);  // "0." + 1074 digits
}

TEST(Tables, RenderRejectsWideFormatsAndBadNames) {
  EXPECT_THROW(render_table("f32", formats::f32, TableStyle::csv), Error);
  EXPECT_THROW(parse<TableStyle>("xml"), NameError);
  EXPECT_THROW(parse<TablePart>("rows"), NameError);
}

TEST(Tables, AtomicWriteLeavesNoPartialFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("minifloat_tables_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_file(dir / "a.txt", "hello\n");
  std::ifstream in(dir / "a.txt");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "hello");
  // Writing into a missing folder fails with an Error and leaves nothing behind.
  EXPECT_THROW(write_file(dir / "missing" / "b.txt", "x"), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace minifloat_test
