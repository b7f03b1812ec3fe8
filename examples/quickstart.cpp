// SPDX-License-Identifier: Apache-2.0
// quickstart.cpp: minifloat as a golden reference: encode, decode and compare a few values
// (OCP OFP8 literals and spec-digest traps T1, T3, T11), print the flags, exit 1 on a mismatch.
#include <cstdint>
#include <cstdio>
#include <span>
#include <string_view>
#include <vector>

#include <minifloat/minifloat.hpp>  // the whole public library

namespace mf = minifloat;

namespace {

int failures = 0;

void print_flags(mf::Flags f) {
  if (f == mf::flag_none) std::printf(" none");
  if (f & mf::flag_inexact) std::printf(" inexact");
  if (f & mf::flag_underflow) std::printf(" underflow");
  if (f & mf::flag_overflow) std::printf(" overflow");
  if (f & mf::flag_invalid) std::printf(" invalid");
}

/// Encode `v` into `fmt` and compare the code with the expected one from the spec.
void expect_encode(const char* what, double v, const char* fmt_name, mf::RoundingSpec spec, mf::Profile prof,
                   std::uint64_t expected) {
  const mf::Format fmt = mf::parse_format(fmt_name);
  const mf::RoundResult r = mf::from_double(v, fmt, spec, prof);
  const std::string_view mode = mf::rounding_name(spec.rounding), policy = mf::overflow_name(spec.overflow);
  std::printf("%-42s %-8s %-4.*s %-10.*s -> 0x%02llx (expected 0x%02llx) flags:", what, fmt_name,
              static_cast<int>(mode.size()), mode.data(), static_cast<int>(policy.size()), policy.data(),
              static_cast<unsigned long long>(r.code), static_cast<unsigned long long>(expected));
  print_flags(r.flags);
  std::printf("%s\n", r.code == expected ? "" : "   <-- MISMATCH");
  if (r.code != expected) ++failures;
}

}  // namespace

int main() {
  const mf::RoundingSpec rne{};  // rne + nonsat
  const mf::RoundingSpec rne_sat{mf::Rounding::rne, mf::Overflow::satfinite};

  // OCP OFP8 v1.0 Table 1: the largest finite values.
  expect_encode("448 = e4m3fn max", 448.0, "e4m3fn", rne, mf::profiles::ocp, 0x7e);
  expect_encode("57344 = e5m2 max", 57344.0, "e5m2", rne, mf::profiles::ocp, 0x7b);
  // Trap T1: 464 is the exact tie between 448 and 480; ties-to-even keeps 448 (inexact, no overflow).
  expect_encode("T1: 464 ties to even (448)", 464.0, "e4m3fn", rne, mf::profiles::ocp, 0x7e);
  // Trap T3: 61440 ties between 57344 (odd) and 65536: overflow, +Inf nonsat, max with satfinite.
  expect_encode("T3: 61440 overflows to +Inf", 61440.0, "e5m2", rne, mf::profiles::ocp, 0x7c);
  expect_encode("T3: 61440 satfinite -> max", 61440.0, "e5m2", rne_sat, mf::profiles::ocp, 0x7b);
  // Trap T11: double 1.0625 + 2^-40 rounds once to 1.125 (0x39); through f32 first (ml_dtypes
  // NumPy casts, profile ml_dtypes) it becomes the tie 1.0625 and then 1.0 (0x38).
  const double t11 = 1.0625 + 0x1p-40;
  expect_encode("T11: 1.0625+2^-40 rounded once", t11, "e4m3fn", rne, mf::profiles::ocp, 0x39);
  expect_encode("T11: same via f32 (double rounding)", t11, "e4m3fn", rne, mf::profiles::ml_dtypes, 0x38);
  // OCP MX FP4: 5.0 ties between 4 and 6 -> 6 (code 0x6, even).
  expect_encode("e2m1fn: 5 ties to even (6)", 5.0, "e2m1fn", rne, mf::profiles::ocp, 0x6);

  // Decode: the exact value of a code.
  const double max_e4m3fn = mf::to_double(mf::formats::e4m3fn, 0x7e);
  const double e8m0_min = mf::to_double(mf::formats::e8m0fnu, 0x00);
  std::printf("decode e4m3fn 0x7e = %g (expected 448); e8m0fnu 0x00 = %a (expected 0x1p-127)\n", max_e4m3fn,
              e8m0_min);
  if (max_e4m3fn != 448.0 || e8m0_min != 0x1p-127) ++failures;

  // Whole arrays through the span API: one call, the OR of all flags.
  const std::vector<float> in = {0.f, 1.f, -2.5f, 464.f, 1e6f};
  std::vector<std::uint8_t> codes(in.size());
  const mf::Flags f = mf::convert(std::span<const float>(in), std::span<std::uint8_t>(codes),
                                  mf::formats::e4m3fn, rne_sat);
  const std::vector<std::uint8_t> want = {0x00, 0x38, 0xc2, 0x7e, 0x7e};
  std::printf("span f32 -> e4m3fn satfinite:");
  for (auto c : codes) std::printf(" 0x%02x", c);
  std::printf("  flags:");
  print_flags(f);
  std::printf("%s\n", codes == want ? "" : "   <-- MISMATCH");
  if (codes != want) ++failures;

  std::printf("%s\n", failures == 0 ? "quickstart: all values match the spec" : "quickstart: MISMATCHES");
  return failures == 0 ? 0 : 1;
}
