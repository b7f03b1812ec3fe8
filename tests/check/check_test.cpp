// SPDX-License-Identifier: Apache-2.0
// check_test.cpp: the kernel checker (check.hpp) on kernels nobody here wrote and on deliberately
// wrong ones. Oracles: the deliberately wrong kernels are built from independent one-line models of
// each bug (rounding through bf16 by bit arithmetic, not by the library); their minimal inputs are
// derived by hand from the format (comments give the derivation), not copied from a run.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "minifloat/check/check.hpp"
#include "minifloat/core/convert.hpp"

namespace {

using namespace minifloat;
using check::CaseClass;

const check::Mismatch* find_class(const check::Report& r, CaseClass c) {
  for (const auto& m : r.minimal)
    if (m.c.cls == c) return &m;
  return nullptr;
}

/// f32 bits → bf16 bits by round-to-nearest-even on the bit pattern (Eigen's bias trick; NaN kept quiet).
std::uint32_t f32_to_bf16_rne_bits(std::uint32_t x) {
  if ((x & 0x7fffffffu) > 0x7f800000u) return (x >> 16) | 0x40u;
  const std::uint32_t lsb = (x >> 16) & 1u;
  return (x + 0x7fffu + lsb) >> 16;
}

check::Options fast_options(std::size_t count = 100000) {
  check::Options o;
  o.gen.count = count;
  o.gen.seed = 1;
  return o;
}

const check::Target kE4m3Sat{.from = formats::f32,
                             .to = formats::e4m3fn,
                             .spec = {.rounding = Rounding::rne, .overflow = Overflow::satfinite},
                             .profile = profiles::ocp};

TEST(Check, CorrectKernelPasses) {
  const check::Report r = check::check(
      [](std::uint64_t in, std::uint64_t) {
        return convert(formats::f32, in, formats::e4m3fn, kE4m3Sat.spec).code;
      },
      kE4m3Sat, fast_options());
  EXPECT_TRUE(r.ok()) << r;
  EXPECT_GE(r.tested, 100000u);
  ASSERT_FALSE(r.diagnosis.ranked.empty());
  EXPECT_EQ(r.diagnosis.ranked.front().name, "the target") << r;
  EXPECT_EQ(r.text().rfind("pass", 0), 0u) << r;
  // report.json keeps the elementwise layout (indent 2, "ok" after "failed"; src/check/report.hpp).
  EXPECT_EQ(r.json().rfind("{\n  \"target\": {\n    \"from\": \"f32\",\n", 0), 0u) << r.json();
  EXPECT_NE(r.json().find("\n  \"failed\": 0,\n  \"ok\": true,\n  \"kernel_calls\": "), std::string::npos) << r.json();
}

TEST(Check, GeneratorCoversEveryTableClass) {
  const auto cases = check::generate(kE4m3Sat, {.seed = 1, .count = 50000});
  std::size_t per[16] = {};
  for (const auto& c : cases) ++per[static_cast<int>(c.cls)];
  for (CaseClass c : {CaseClass::exact, CaseClass::midpoint, CaseClass::near_midpoint, CaseClass::overflow_threshold,
                      CaseClass::subnormal_edge, CaseClass::zero, CaseClass::inf, CaseClass::nan,
                      CaseClass::out_of_range, CaseClass::exponent_pattern, CaseClass::random})
    EXPECT_GT(per[static_cast<int>(c)], 0u) << name(c);
  // e4m3fn has 126 positive finite nonzero values (0x01..0x7e), so 126 midpoints above 0 (the first
  // one 2^-10, between 0 and 2^-9); both signs (OCP OFP8 v1.0 Table 1): all appear exactly.
  EXPECT_EQ(per[static_cast<int>(CaseClass::exact)], 2u * 126u);
  EXPECT_EQ(per[static_cast<int>(CaseClass::midpoint)], 2u * 126u);
  // T1's tie (464 = 0x43E80000) and T2's first float above it are generated.
  bool t1 = false, t2 = false;
  for (const auto& c : cases) {
    t1 = t1 || c.input == 0x43E80000u;
    t2 = t2 || c.input == 0x43E80001u;
  }
  EXPECT_TRUE(t1 && t2);
  EXPECT_EQ(check::generate(kE4m3Sat, {.seed = 1, .count = 50000}), cases) << "deterministic";
}

TEST(Check, ClassifyInputByValue) {
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x3F800000u), CaseClass::exact);           // 1.0
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x3F880000u), CaseClass::midpoint);        // 1.0625 = (1 + 1.125)/2
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x3F880003u), CaseClass::near_midpoint);   // 3 ulps above
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x43E80000u), CaseClass::overflow_threshold);  // 464
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x3A800000u), CaseClass::midpoint);        // 2^-10 = 0|2^-9 (T6)
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x3A800003u), CaseClass::subnormal_edge);  // 3 ulps above it
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x3C800001u), CaseClass::subnormal_edge);  // min normal 2^-6 + 1 ulp
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x3FA66666u), CaseClass::random);          // 1.3: far from every boundary

  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x7FC00000u), CaseClass::nan);
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x80000000u), CaseClass::zero);
  EXPECT_EQ(check::classify_input(kE4m3Sat, 0x4F000000u), CaseClass::out_of_range);    // 2^31
}

// ---- the bug-class table: one deliberately wrong kernel per trap of spec-digest §11 ----------------

struct BugRow {
  const char* kernel;
  check::Target target;
  std::function<std::uint64_t(std::uint64_t)> wrong;
  CaseClass cls;              ///< the failing class whose minimal input is derived by hand
  std::uint64_t minimal;      ///< that input
  const char* diagnosis;      ///< the panel entry that must rank first
};

std::vector<BugRow> bug_rows() {
  const check::Target e8m0_rceil{.from = formats::f32,
                                 .to = formats::e8m0fnu,
                                 .spec = {.rounding = Rounding::rtp, .overflow = Overflow::satfinite}};
  return {
      // bf16 first: 1.0625 + 2^-23 (0x3F880001) rounds to bf16 1.0625, an exact e4m3fn tie that goes to
      // even 1.0; the simplest near-midpoint input (2 significand bits, exponent 0).
      {"rne via bf16 (flashinfer #5128 class)", kE4m3Sat,
       [](std::uint64_t x) {
         const std::uint32_t b = f32_to_bf16_rne_bits(static_cast<std::uint32_t>(x));
         return convert(formats::bf16, b, formats::e4m3fn, kE4m3Sat.spec).code;
       },
       CaseClass::near_midpoint, 0x3F880001u, "rne via bf16"},
      // ties away: the simplest midpoint (exponent 0 first, then fewest bits) is 1.0625: even gives 1.0.
      {"ties away instead of even", kE4m3Sat,
       [](std::uint64_t x) {
         return convert(formats::f32, x, formats::e4m3fn, {.rounding = Rounding::rna, .overflow = Overflow::satfinite})
             .code;
       },
       CaseClass::midpoint, 0x3F880000u, "rna"},
      // overflow to NaN: the simplest overflowing input near the thresholds is 480 = 1.111b·2^8 (3 bits;
      // 464 = 1.1101b is a tie to 448, so it passes).
      {"overflow to NaN instead of saturation", kE4m3Sat,
       [](std::uint64_t x) {
         return convert(formats::f32, x, formats::e4m3fn, {.rounding = Rounding::rne, .overflow = Overflow::nonsat})
             .code;
       },
       CaseClass::overflow_threshold, 0x43F00000u, "nonsat"},
      // flush-to-zero of results: e4m3fn's subnormals are k·2^-9, k = 1..7; the simplest (no significand
      // bits, smallest |exponent|) is 2^-7 = 0x3C000000.
      {"flush-to-zero of results", kE4m3Sat,
       [](std::uint64_t x) {
         const std::uint64_t c = convert(formats::f32, x, formats::e4m3fn, kE4m3Sat.spec).code;
         return (c & 0x78u) == 0 ? (c & 0x80u) : c;
       },
       CaseClass::exact, 0x3C000000u, "ftz outputs"},
      // E8M0 floor instead of RCEIL: 1.5 (the midpoint of 1|2) is the simplest inexact input: ceil 2, floor 1.
      {"E8M0 floor instead of RCEIL", e8m0_rceil,
       [](std::uint64_t x) {
         const std::uint32_t b = static_cast<std::uint32_t>(x);
         const std::uint32_t e = (b >> 23) & 0xffu;
         if ((b & 0x7fffffffu) == 0) return std::uint64_t{0};               // zero → 2^-127 (OCP)
         if ((b & 0x7fffffffu) > 0x7f800000u || (b >> 31)) return std::uint64_t{0xff};  // NaN, negative → NaN
         if (e == 0xff) return std::uint64_t{0xfe};                          // satfinite: +Inf → max
         return std::uint64_t{e};  // floor(log2 x) + 127 for normal x; subnormals → 0x00 (2^-127)
       },
       CaseClass::midpoint, 0x3FC00000u, "rtz"},
  };
}

class BugClass : public ::testing::TestWithParam<int> {};

TEST_P(BugClass, FailsShrinksAndIsDiagnosed) {
  const BugRow row = bug_rows()[static_cast<std::size_t>(GetParam())];
  const check::Report r = check::check(row.wrong, row.target, fast_options());
  std::printf("%s\n%s", row.kernel, r.text().c_str());
  ASSERT_FALSE(r.ok()) << row.kernel;
  const check::Mismatch* m = find_class(r, row.cls);
  ASSERT_NE(m, nullptr) << row.kernel << ": class " << name(row.cls) << " did not fail\n" << r;
  EXPECT_EQ(m->c.input, row.minimal) << row.kernel << "\n" << r;
  EXPECT_EQ(m->got, row.wrong(m->c.input));
  EXPECT_EQ(m->expected, check::expected(row.target, m->c).code);
  ASSERT_FALSE(r.diagnosis.ranked.empty());
  EXPECT_EQ(r.diagnosis.ranked.front().name, row.diagnosis) << r;
  EXPECT_EQ(r.text().find("FAIL ["), 0u);
  EXPECT_NE(r.text().find("reproduce: minifloat encode"), std::string::npos);
}
std::string bug_name(const ::testing::TestParamInfo<int>& info) {
  static const char* const kNames[] = {"double_rounding_bf16", "ties_away", "overflow_to_nan", "flush_to_zero",
                                       "e8m0_floor_not_rceil"};
  return kNames[info.param];
}
INSTANTIATE_TEST_SUITE_P(Table, BugClass, ::testing::Range(0, 5), bug_name);

TEST(Check, Fp4NibbleOrderIsDiagnosed) {
  const check::Target t{.from = formats::f32,
                        .to = formats::e2m1fn,
                        .spec = {.rounding = Rounding::rne, .overflow = Overflow::satfinite},
                        .packing = check::Packing::fp4x2};
  auto code = [&](std::uint64_t x) { return convert(formats::f32, x, formats::e2m1fn, t.spec).code; };
  auto right = [&](std::span<const check::Case> in, std::span<std::uint64_t> out) {
    for (std::size_t j = 0; 2 * j < in.size(); ++j) out[j] = code(in[2 * j].input) | (code(in[2 * j + 1].input) << 4);
  };
  // The PTX-operand-order bug (T16): element 2j lands in the high nibble.
  auto swapped = [&](std::span<const check::Case> in, std::span<std::uint64_t> out) {
    for (std::size_t j = 0; 2 * j < in.size(); ++j) out[j] = (code(in[2 * j].input) << 4) | code(in[2 * j + 1].input);
  };
  EXPECT_TRUE(check::check(right, t, fast_options(20000)).ok());
  const check::Report r = check::check(swapped, t, fast_options(20000));
  std::printf("FP4 nibble order\n%s", r.text().c_str());
  ASSERT_FALSE(r.ok());
  // Shrinking pairs each candidate with +0, so a swapped kernel fails on any nonzero code; the simplest
  // exact e2m1fn value is 1.0 (exponent 0, no significand bits, positive).
  const check::Mismatch* m = find_class(r, CaseClass::exact);
  ASSERT_NE(m, nullptr) << r;
  EXPECT_EQ(m->c.input, 0x3F800000u) << r;
  EXPECT_EQ(r.diagnosis.ranked.front().name, "nibbles swapped") << r;
}

// Hand-derived storage bytes. fp6_dense (pack.hpp's example): the stream 1 | 2<<6 | 3<<12 | 4<<18 =
// 0x103081 → 0x81 0x30 0x10. MSB-first: a<<2|b>>4 = 0x04, b<<4|c>>2 = 0x20, c<<6|d = 0xc4. fp4x2:
// {1, 2, 7, 0xf} → 0x21 0xf7, swapped 0x12 0x7f. A short last group is padded with 0 codes.
TEST(Check, PackCodesWritesTheDocumentedBytes) {
  using check::Packing, check::PackOrder;
  const std::vector<std::uint8_t> c6{1, 2, 3, 4}, c4{1, 2, 7, 0xf};
  EXPECT_EQ(check::pack_codes(Packing::fp6_dense, c6), (std::vector<std::uint8_t>{0x81, 0x30, 0x10}));
  EXPECT_EQ(check::pack_codes(Packing::fp6_dense, c6, PackOrder::swapped), (std::vector<std::uint8_t>{0x04, 0x20, 0xc4}));
  EXPECT_EQ(check::pack_codes(Packing::fp4x2, c4), (std::vector<std::uint8_t>{0x21, 0xf7}));
  EXPECT_EQ(check::pack_codes(Packing::fp4x2, c4, PackOrder::swapped), (std::vector<std::uint8_t>{0x12, 0x7f}));
  EXPECT_EQ(check::pack_codes(Packing::fp6_dense, std::vector<std::uint8_t>{0x3f}), (std::vector<std::uint8_t>{0x3f, 0, 0}));
  EXPECT_EQ(check::unpack_codes(Packing::fp6_dense, std::vector<std::uint8_t>{0x81, 0x30, 0x10, 0x3f, 0, 0}, 5),
            (std::vector<std::uint8_t>{1, 2, 3, 4, 0x3f}));
  EXPECT_THROW(check::pack_codes(Packing::fp6_dense, std::vector<std::uint8_t>{0x40}), Error);
  EXPECT_THROW(check::unpack_codes(Packing::fp6_dense, std::vector<std::uint8_t>{0x81, 0x30}, 1), Error);
  EXPECT_THROW(check::validate(check::Target{.to = formats::e4m3fn, .packing = Packing::fp6_dense}), Error);
}

TEST(Check, Fp6BitOrderIsDiagnosed) {
  const check::Target t{.from = formats::f32,
                        .to = formats::e3m2fn,
                        .spec = {.rounding = Rounding::rne, .overflow = Overflow::satfinite},
                        .packing = check::Packing::fp6_dense};
  auto code = [&](std::uint64_t x) { return static_cast<std::uint32_t>(convert(formats::f32, x, formats::e3m2fn, t.spec).code); };
  // Written here bit by bit, not through pack_codes: out[3g + b] = byte b of the 24-bit group.
  auto kernel = [&](bool msb_first) {
    return [&, msb_first](std::span<const check::Case> in, std::span<std::uint64_t> out) {
      for (std::size_t g = 0; 4 * g < in.size(); ++g) {
        std::uint32_t w = 0;
        for (std::size_t l = 0; l < 4; ++l)
          w |= code(in[4 * g + l].input) << (msb_first ? 18 - 6 * l : 6 * l);
        for (std::size_t b = 0; b < 3; ++b) out[3 * g + b] = (w >> (msb_first ? 16 - 8 * b : 8 * b)) & 0xff;
      }
    };
  };
  EXPECT_TRUE(check::check(kernel(false), t, fast_options(20000)).ok());
  const check::Report r = check::check(kernel(true), t, fast_options(20000));
  ASSERT_FALSE(r.ok());
  // MSB-first puts case 4g's code a in byte 3g as a<<2 | b>>4, read back as case 4g's 6 bits, so any
  // nonzero code fails: the simplest exact value is 1.0 (0x3f800000, e3m2fn 0x0c), seen as 0x30 | b>>4
  // (b: its group neighbour's code; 1.0 is generated, so no shrinking round replaces its neighbours).
  const check::Mismatch* m = find_class(r, CaseClass::exact);
  ASSERT_NE(m, nullptr) << r;
  EXPECT_EQ(m->c.input, 0x3F800000u) << r;
  EXPECT_EQ(m->got & 0x3cu, 0x30u) << r;
  EXPECT_EQ(r.diagnosis.ranked.front().name, "fp6 msb-first") << r;
  EXPECT_EQ(r.diagnosis.ranked.front().agree, r.tested) << r;
}

TEST(Check, ShrinkingUsesOneKernelCallPerRound) {
  int calls = 0;
  const check::Target t = kE4m3Sat;
  auto kernel = [&](std::span<const check::Case> in, std::span<std::uint64_t> out) {
    ++calls;
    for (std::size_t i = 0; i < in.size(); ++i)
      out[i] = convert(formats::bf16, f32_to_bf16_rne_bits(static_cast<std::uint32_t>(in[i].input)), formats::e4m3fn,
                       t.spec)
                   .code;
  };
  check::Options o = fast_options();
  o.batch = 1u << 20;
  const check::Report r = check::check(kernel, t, o);
  EXPECT_EQ(static_cast<std::uint64_t>(calls), r.kernel_calls);
  EXPECT_LE(r.kernel_calls, 1u + static_cast<unsigned>(o.max_shrink_rounds));
}

TEST(Check, SrKernelWithWrongVariantIsDiagnosed) {
  const check::Target t{.from = formats::f32,
                        .to = formats::e4m3fn,
                        .spec = {.rounding = Rounding::sr, .overflow = Overflow::satfinite,
                                 .sr_variant = SrVariant::a, .sr_bits = 8}};
  // The kernel implements StochasticC<8> instead of A<8> (P3109 v4.0 §4.7.4; T17).
  check::Target c = t;
  c.spec.sr_variant = SrVariant::c;
  const check::Report r = check::check(
      [&](std::uint64_t in, std::uint64_t rb) { return convert(formats::f32, in, formats::e4m3fn, c.spec, c.profile, rb).code; },
      t, fast_options(50000));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(find_class(r, CaseClass::sr_switch), nullptr) << r;
  EXPECT_EQ(r.diagnosis.ranked.front().name, "sr C") << r;
}

TEST(Check, TorchAndMlDtypesE8m0SubnormalField) {
  // 2^-127 + 2^-149 (f32 0x00400001): nearest is 2^-127 (0x00); torch 2.15 and ml_dtypes 0.6 give 0x01.
  EXPECT_EQ(convert(formats::f32, 0x00400001u, formats::e8m0fnu, {}, profiles::ocp).code, 0x00u);
  EXPECT_EQ(convert(formats::f32, 0x00400001u, formats::e8m0fnu, {}, profiles::ml_dtypes).code, 0x01u);
  EXPECT_EQ(convert(formats::f32, 0x00400001u, formats::e8m0fnu, {}, profiles::torch).code, 0x01u);
  // 2^-127 itself and 1.5·2^-127 (a tie, up) are unaffected; rtz is unaffected.
  EXPECT_EQ(convert(formats::f32, 0x00400000u, formats::e8m0fnu, {}, profiles::torch).code, 0x00u);
  EXPECT_EQ(convert(formats::f32, 0x00600000u, formats::e8m0fnu, {}, profiles::torch).code, 0x01u);
  EXPECT_EQ(convert(formats::f32, 0x00400001u, formats::e8m0fnu, {.rounding = Rounding::rtz}, profiles::torch).code,
            0x00u);
  // torch's e4m3fn: finite overflow and Inf saturate even under nonsat; e5m2 overflows; NaN all-ones.
  EXPECT_EQ(convert(formats::f32, 0x43E80001u, formats::e4m3fn, {}, profiles::torch).code, 0x7eu);
  EXPECT_EQ(convert(formats::f32, 0xFF800000u, formats::e4m3fn, {}, profiles::torch).code, 0xfeu);
  EXPECT_EQ(convert(formats::f32, 0x7FC00000u, formats::e4m3fn, {}, profiles::torch).code, 0x7fu);
  EXPECT_EQ(convert(formats::f32, 0xFFC00000u, formats::e5m2, {}, profiles::torch).code, 0xffu);
  EXPECT_EQ(convert(formats::f32, 0x477FFFFFu, formats::e5m2, {}, profiles::torch).code, 0x7cu);
  EXPECT_EQ(convert(formats::f32, 0x7F7FFFFFu, formats::e4m3fnuz, {}, profiles::torch).code, 0x80u);
  EXPECT_EQ(convert(formats::f32, 0x7F7FFFFFu, formats::e8m0fnu, {}, profiles::torch).code, 0xffu);
}

// Issue 28 item 7: the common NaN bugs are named. A kernel that clamps with fminf(fmaxf(x, -max), max)
// before the cast sends NaN to -max; one that selects 0 sends it to +0. Everything else is the target's.
TEST(CheckDiagnosis, NanClampedOrZeroedIsNamed) {
  const std::pair<const char*, std::uint64_t> bugs[] = {{"NaN to -max", 0xfe}, {"NaN to +max", 0x7e}, {"NaN to 0", 0}};
  for (const auto& [alt, code] : bugs) {
    const auto kernel = [code = code](std::uint64_t x) {
      if (std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(x)))) return code;
      return convert(formats::f32, x, formats::e4m3fn, kE4m3Sat.spec).code;
    };
    const check::Report r = check::check(kernel, kE4m3Sat, fast_options(20000));
    ASSERT_FALSE(r.ok()) << alt;
    EXPECT_EQ(r.diagnosis.ranked.front().name, alt) << r;
    EXPECT_EQ(r.diagnosis.ranked.front().agree, r.tested) << r;
    EXPECT_EQ(r.diagnosis.ranked.back().name, "the target") << r;
  }
}

// A failing kernel that no panel alternative explains is told so; the target is not its best match.
TEST(CheckDiagnosis, UnexplainedFailureSaysSo) {
  const auto kernel = [](std::uint64_t x) {
    const std::uint64_t c = convert(formats::f32, x, formats::e4m3fn, kE4m3Sat.spec).code;
    return (x & 0xfffu) == 0x123u ? c ^ 1u : c;  // a scattered one-bit error
  };
  const check::Report r = check::check(kernel, kE4m3Sat, fast_options(20000));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnosis.text.rfind("no alternative explains the failures; the closest, ", 0), 0u) << r;
  EXPECT_EQ(r.diagnosis.ranked.back().name, "the target") << r;
}

}  // namespace
