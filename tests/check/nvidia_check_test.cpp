// SPDX-License-Identifier: Apache-2.0
// nvidia_check_test.cpp: the checker (check.hpp) run on NVIDIA's host conversions of cuda_fp8.hpp,
// cuda_fp6.hpp and cuda_fp4.hpp (software paths, plain g++: code nobody here wrote), through the
// library API with the batched kernel form. Expected: bit-exact under profiles::nvidia, and against
// profiles::ocp the diagnosis names the nvidia profile. SKIPPED with the reason without CUDA headers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "minifloat/check/check.hpp"

#if MINIFLOAT_HAVE_CUDA_FP_HEADERS
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#endif

namespace {

using namespace minifloat;

#if MINIFLOAT_HAVE_CUDA_FP_HEADERS
template <class T>
T bits_as(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

struct Row {
  std::string name;
  check::Target t;
  std::function<std::uint64_t(std::uint64_t)> kernel;  // source bits → code
  check::NanCompare nan = check::NanCompare::bits;
};

/// The double API keeps a NaN's sign (spec-digest T5, §5.4) and, for e5m2, the top mantissa bits of
/// its payload (0x7ff4… → 0x7f), which no profile models: its rows compare NaNs as NaNs
/// (NanCompare::any_nan, as vendor.NvidiaHostOracle does). The nvidia profile models the float API.
constexpr Profile kNvidiaDoubleApi = [] {
  Profile p = profiles::nvidia;
  p.nan_sign = NanSign::preserve;
  p.nan_payload = NanPayload::quiet;
  return p;
}();

std::vector<Row> rows() {
  std::vector<Row> v;
  for (__nv_saturation_t sat : {__NV_SATFINITE, __NV_NOSAT}) {
    const Overflow ov = sat == __NV_SATFINITE ? Overflow::satfinite : Overflow::nonsat;
    const std::string sn = sat == __NV_SATFINITE ? "satfinite" : "nonsat";
    for (auto [kind, to, kn] : {std::tuple{__NV_E4M3, formats::e4m3fn, "e4m3fn"}, std::tuple{__NV_E5M2, formats::e5m2, "e5m2"}}) {
      v.push_back({std::string("f32_") + kn + "_" + sn, {formats::f32, to, {Rounding::rne, ov}, profiles::nvidia},
                   [=](std::uint64_t x) { return std::uint64_t{__nv_cvt_float_to_fp8(bits_as<float>(x & 0xffffffffu), sat, kind)}; }});
      v.push_back({std::string("f64_") + kn + "_" + sn, {formats::f64, to, {Rounding::rne, ov}, kNvidiaDoubleApi},
                   [=](std::uint64_t x) { return std::uint64_t{__nv_cvt_double_to_fp8(bits_as<double>(x), sat, kind)}; },
                   check::NanCompare::any_nan});
      v.push_back({std::string("bf16_") + kn + "_" + sn, {formats::bf16, to, {Rounding::rne, ov}, profiles::nvidia},
                   [=](std::uint64_t x) {
                     __nv_bfloat16_raw r;
                     r.x = static_cast<unsigned short>(x);
                     return std::uint64_t{__nv_cvt_bfloat16raw_to_fp8(r, sat, kind)};
                   }});
    }
    for (cudaRoundMode rm : {cudaRoundZero, cudaRoundPosInf}) {
      const Rounding r = rm == cudaRoundZero ? Rounding::rtz : Rounding::rtp;
      v.push_back({std::string("f32_e8m0fnu_") + (r == Rounding::rtz ? "rtz_" : "rtp_") + sn,
                   {formats::f32, formats::e8m0fnu, {r, ov}, profiles::nvidia},
                   [=](std::uint64_t x) { return std::uint64_t{__nv_cvt_float_to_e8m0(bits_as<float>(x & 0xffffffffu), sat, rm)}; }});
    }
  }
  for (auto [kind, to, kn] : {std::tuple{__NV_E2M3, formats::e2m3fn, "e2m3fn"}, std::tuple{__NV_E3M2, formats::e3m2fn, "e3m2fn"}})
    v.push_back({std::string("f32_") + kn, {formats::f32, to, {Rounding::rne, Overflow::satfinite}, profiles::nvidia},
                 [=](std::uint64_t x) {
                   return std::uint64_t{__nv_cvt_float_to_fp6(bits_as<float>(x & 0xffffffffu), kind, cudaRoundNearest)};
                 }});
  v.push_back({"f32_e2m1fn", {formats::f32, formats::e2m1fn, {Rounding::rne, Overflow::satfinite}, profiles::nvidia},
               [](std::uint64_t x) {
                 return std::uint64_t{__nv_cvt_float_to_fp4(bits_as<float>(x & 0xffffffffu), __NV_E2M1, cudaRoundNearest)};
               }});
  return v;
}
#endif

TEST(NvidiaHost, PassUnderNvidiaProfile) {
#if !MINIFLOAT_HAVE_CUDA_FP_HEADERS
  GTEST_SKIP() << MINIFLOAT_CUDA_SKIP_REASON;
#else
  check::Options o;
  o.gen.count = 60000;
  for (const Row& r : rows()) {
    // the batched form, as a device launcher would be: one call per batch of spans
    auto batch = [&](std::span<const check::Case> in, std::span<std::uint64_t> out) {
      for (std::size_t i = 0; i < in.size(); ++i) out[i] = r.kernel(in[i].input);
    };
    o.nan_compare = r.nan;
    const check::Report rep = check::check(batch, r.t, o);
    EXPECT_TRUE(rep.ok()) << r.name << "\n" << rep;
    std::printf("  %-28s %llu cases, %llu mismatches\n", r.name.c_str(), static_cast<unsigned long long>(rep.tested),
                static_cast<unsigned long long>(rep.failed));
  }
#endif
}

TEST(NvidiaHost, DiagnosedAsNvidiaAgainstOcp) {
#if !MINIFLOAT_HAVE_CUDA_FP_HEADERS
  GTEST_SKIP() << MINIFLOAT_CUDA_SKIP_REASON;
#else
  // e5m2 from f32 under ocp: CUDA's float API gives NaN 0x7f for every NaN (sign dropped, all-ones payload).
  const check::Target ocp{formats::f32, formats::e5m2, {Rounding::rne, Overflow::nonsat}, profiles::ocp};
  const check::Report rep = check::check(
      [](std::uint64_t x) { return std::uint64_t{__nv_cvt_float_to_fp8(bits_as<float>(x & 0xffffffffu), __NV_NOSAT, __NV_E5M2)}; },
      ocp, check::Options{.gen = {.count = 60000}});
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.minimal.front().c.cls, check::CaseClass::nan) << rep;
  EXPECT_EQ(rep.diagnosis.ranked.front().name, "profile nvidia") << rep;
  EXPECT_EQ(rep.diagnosis.ranked.front().agree, rep.tested) << rep;
#endif
}

}  // namespace
