// SPDX-License-Identifier: Apache-2.0
// check_adapter_test.cpp (label cuda-host): the project's CUDA kernel bodies, on the CPU launcher,
// driven by the kernel checker (cuda/check_kernel.hpp → check.hpp): the engine path passes check()
// under ocp and the hardware path (the PTX cvt model) under nvidia; a request with the wrong mode
// fails and is diagnosed. Oracle: check's expected codes (the engine through the compiled library's
// convert, not the launcher's grid and storage packing under test here); the hardware model itself is
// proved against NVIDIA's host conversions in cuda_host_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "minifloat/cuda/check_kernel.hpp"
#include "minifloat/error.hpp"

namespace {

namespace mf = minifloat;
namespace mc = minifloat::cuda;
using mf::formats::e2m1fn;
using mf::formats::e4m3fn;
using mf::formats::e5m2;
using mf::formats::e8m0fnu;

mf::check::Options small(std::size_t count = 20000) {
  mf::check::Options o;
  o.gen.count = count;
  o.gen.exhaustive_16bit_sources = mf::check::GenOptions::Exhaustive16::no;
  o.batch = 4096;  // several launches per check
  o.diagnose = mf::check::Options::Diagnose::no;  // a pass needs no panel; the failing test below keeps it
  return o;
}

TEST(CudaCheck, EnginePathPassesUnderOcp) {
  for (const mf::Format from : {mf::formats::f32, mf::formats::f64, mf::formats::f16, mf::formats::bf16})
    for (const mf::Format to : {e4m3fn, e5m2, e2m1fn, e8m0fnu, mf::formats::f16})
      for (const mf::Rounding m : {mf::Rounding::rne, mf::Rounding::rtz, mf::Rounding::rna})
        for (const mf::Overflow p : {mf::Overflow::nonsat, mf::Overflow::satfinite}) {
          if (to == from) continue;
          const mf::check::Target t{.from = from, .to = to, .spec = {m, p}, .profile = mf::profiles::ocp};
          const auto r = mf::check::check_batch(mc::cpu_check_kernel(mc::request_for(t, mc::Path::engine), 2), t, small(2000));
          EXPECT_TRUE(r.ok()) << r.text();
          EXPECT_GT(r.kernel_calls, 0u);
        }
}

TEST(CudaCheck, HardwarePathPassesUnderNvidia) {
  const mf::RoundingSpec rn_sat{mf::Rounding::rne, mf::Overflow::satfinite};
  struct Form {
    mf::Format from, to;
    mf::RoundingSpec spec;
  };
  const Form forms[] = {{mf::formats::f32, e4m3fn, rn_sat},
                        {mf::formats::f32, e5m2, rn_sat},
                        {mf::formats::f32, e2m1fn, rn_sat},
                        {mf::formats::f32, mf::formats::e2m3fn, rn_sat},
                        {mf::formats::f32, mf::formats::e3m2fn, rn_sat},
                        {mf::formats::f32, e8m0fnu, {mf::Rounding::rtz, mf::Overflow::satfinite}},
                        {mf::formats::f32, e8m0fnu, {mf::Rounding::rtp, mf::Overflow::nonsat}},
                        {mf::formats::f16, e4m3fn, rn_sat},
                        {mf::formats::f16, e5m2, rn_sat}};
  for (const Form& f : forms) {
    const mf::check::Target t{.from = f.from, .to = f.to, .spec = f.spec, .profile = mf::profiles::nvidia};
    const auto r = mf::check::check_batch(mc::cpu_check_kernel(mc::request_for(t, mc::Path::hardware), 2), t, small());
    EXPECT_TRUE(r.ok()) << r.text();
  }
}

TEST(CudaCheck, WrongModeFailsShrinksAndIsDiagnosed) {
  // The kernel is asked for rtz while the target says rne: every input above a midpoint of e4m3fn
  // (e.g. 1.0625 + 2^-23 between 1 and 1.125) tells them apart, so the check fails and the panel's
  // "rtz" alternative explains every output.
  const mf::check::Target t{.from = mf::formats::f32, .to = e4m3fn, .spec = {mf::Rounding::rne, mf::Overflow::satfinite}};
  mc::ConvertRequest wrong = mc::request_for(t, mc::Path::engine);
  wrong.spec.rounding = mf::Rounding::rtz;
  mf::check::Options o = small();
  o.diagnose = mf::check::Options::Diagnose::yes;
  const auto r = mf::check::check_batch(mc::cpu_check_kernel(wrong, 2), t, o);
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.minimal.empty());
  EXPECT_EQ(r.diagnosis.ranked.front().agree, r.tested) << r.diagnosis.text;
  EXPECT_NE(r.diagnosis.ranked.front().name.find("rtz"), std::string::npos) << r.diagnosis.text;
}

TEST(CudaCheck, RequestForRefusesWhatTheKernelsCannotTake) {
  mf::check::Target t{.from = mf::formats::f32, .to = e4m3fn, .spec = {.rounding = mf::Rounding::sr}};
  try {
    (void)mc::request_for(t, mc::Path::engine);
    FAIL() << "SR accepted";
  } catch (const mf::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Philox"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  t.spec = {mf::Rounding::rtz, mf::Overflow::satfinite};
  EXPECT_THROW((void)mc::request_for(t, mc::Path::hardware), mf::Error);  // e4m3x2 cvt is rn only, profile ocp
  t.to = e2m1fn;
  t.spec = {};
  t.packing = mf::check::Packing::fp4x2;
  EXPECT_THROW((void)mc::request_for(t, mc::Path::engine), mf::Error);
}

}  // namespace
