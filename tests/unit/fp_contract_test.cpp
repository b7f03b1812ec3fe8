// SPDX-License-Identifier: Apache-2.0
// fp_contract_test.cpp: FP contraction is off in a translation unit compiled like the library
// (the flags come from minifloat::core's INTERFACE: -ffp-contract=off). The functions below are
// compiled with FMA enabled (target("fma")), where GCC in GNU mode, without that flag, fuses
// a*b + c into one vfmadd. The operands make the two results differ:
//   a = b = 1 + 2^-23 (f32) or 1 + 2^-52 (f64): a·b = 1 + 2^-22 + 2^-46 (f64: 1 + 2^-51 + 2^-104);
//   c = −(1 + 2^-22): unfused, fl(a·b) = 1 + 2^-22 and the sum is +0; fused, the sum is 2^-46.
// Oracle for "fused differs": the C library's correctly rounded fmaf/fma.
// The check that every translation unit carries the flag: unit.fp_contract_off_everywhere.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

#if defined(__x86_64__) || defined(__i386__)
#define MF_FMA_ATTR __attribute__((target("fma"), noinline))
#define MF_FMA_RUNTIME_CHECK 1
#elif defined(__aarch64__) || defined(__FMA__)
#define MF_FMA_ATTR __attribute__((noinline))  // FMA is part of the base instruction set
#endif

#ifdef MF_FMA_ATTR
MF_FMA_ATTR float mul_add_f32(float a, float b, float c) { return a * b + c; }
MF_FMA_ATTR double mul_add_f64(double a, double b, double c) { return a * b + c; }
#endif

std::uint32_t bits32(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
std::uint64_t bits64(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

}  // namespace

TEST(FpContract, MulAddIsNotFusedWhereFmaIsAvailable) {
#ifndef MF_FMA_ATTR
  GTEST_SKIP() << "no FMA target attribute for this architecture: contraction cannot be provoked here";
#else
#ifdef MF_FMA_RUNTIME_CHECK
  if (!__builtin_cpu_supports("fma")) GTEST_SKIP() << "this CPU has no FMA instruction: contraction cannot be observed";
#endif
  volatile float a = 0x1.000002p0f, c = -0x1.000004p0f;  // 1 + 2^-23, −(1 + 2^-22)
  volatile double ad = 0x1.0000000000001p0, cd = -0x1.0000000000002p0;
  ASSERT_EQ(bits32(std::fmaf(a, a, c)), bits32(0x1p-46f)) << "the operands must tell fused from unfused apart";
  ASSERT_EQ(bits64(std::fma(ad, ad, cd)), bits64(0x1p-104)) << "the operands must tell fused from unfused apart";
  EXPECT_EQ(bits32(mul_add_f32(a, a, c)), bits32(0.0f))
      << "a*b + c was contracted into an FMA (got the fused 2^-46): this TU lacks -ffp-contract=off";
  EXPECT_EQ(bits64(mul_add_f64(ad, ad, cd)), bits64(0.0))
      << "a*b + c was contracted into an FMA (got the fused 2^-104): this TU lacks -ffp-contract=off";
#endif
}
