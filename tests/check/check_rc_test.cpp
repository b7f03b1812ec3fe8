// SPDX-License-Identifier: Apache-2.0
// check_rc_test.cpp: the user-facing test helpers (check_testing.hpp): MINIFLOAT_EXPECT_KERNEL and
// check::arbitrary_case with RapidCheck, on NVIDIA-independent kernels: a correct one written with
// ml_dtypes-style bit arithmetic (f32 → bf16 rne by the bias trick, the oracle here) must pass; a
// truncating one must fail and shrink to the simplest inexact case.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>

#include "minifloat/check/check_testing.hpp"

namespace {

using namespace minifloat;

/// f32 → bf16 rne with satfinite by bit arithmetic (no library code).
std::uint64_t bf16_rne_satfinite(std::uint64_t in) {
  const auto x = static_cast<std::uint32_t>(in);
  if ((x & 0x7fffffffu) > 0x7f800000u) return ((x >> 16) & 0x8000u) | 0x7fc0u;  // the quiet NaN, sign kept (ocp)
  if ((x & 0x7fffffffu) == 0x7f800000u) return (x >> 16) - 1u;                  // ±Inf → ±max 0x7f7f
  const std::uint32_t r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  return (r & 0x7fffu) == 0x7f80u ? r - 1u : r;                   // finite overflow → ±max
}

const check::Target kBf16{.from = formats::f32,
                          .to = formats::bf16,
                          .spec = {.rounding = Rounding::rne, .overflow = Overflow::satfinite}};

TEST(CheckTesting, ExpectKernelMacro) { MINIFLOAT_EXPECT_KERNEL(bf16_rne_satfinite, kBf16); }

RC_GTEST_PROP(CheckTesting, ArbitraryCaseProperty, ()) {
  static const rc::Gen<check::Case> gen = check::arbitrary_case(kBf16);  // generate() once
  const check::Case c = *gen;
  RC_ASSERT(bf16_rne_satfinite(c.input) == check::expected(kBf16, c).code);
}

TEST(CheckTesting, ArbitraryCaseFindsAndShrinksATruncatingKernel) {
  const auto gen = check::arbitrary_case(kBf16, check::CaseClass::midpoint);
  check::Case last{};
  const bool ok = rc::check("truncating bf16 kernel", [&] {
    const check::Case c = *gen;
    const bool pass = (static_cast<std::uint32_t>(c.input) >> 16) == check::expected(kBf16, c).code;
    if (!pass) last = c;  // the last failing case RapidCheck ran is its shrunk minimum
    RC_ASSERT(pass);
  });
  EXPECT_FALSE(ok);
  // RapidCheck shrinks the index toward the class's simplest cases (a local minimum: failing cases
  // are not contiguous); what it reports is a failing midpoint case.
  EXPECT_EQ(last.cls, check::CaseClass::midpoint);
  EXPECT_NE(static_cast<std::uint32_t>(last.input) >> 16, check::expected(kBf16, last).code) << "the last case fails";
}

}  // namespace
