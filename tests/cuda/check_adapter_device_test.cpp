// SPDX-License-Identifier: Apache-2.0
// check_adapter_device_test.cpp (label gpu): the checker drives the project's CUDA kernels on a real
// device (cuda/check_device.hpp): the engine path passes check() under ocp and the hardware path under
// nvidia, as on the CPU launcher (check_adapter_test.cpp). Skips with the reason when there is no device
// or the binary for it lacks an instruction: never a silent pass.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

#include "minifloat/cuda/check_device.hpp"
#include "minifloat/cuda/cuda.hpp"
#include "minifloat/error.hpp"

namespace {

namespace mf = minifloat;
namespace mc = minifloat::cuda;

std::string no_device() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  return n == 0 ? "no CUDA device: 0 devices" : "";
}

mf::check::Options opts() {
  mf::check::Options o;
  o.gen.count = 1u << 16;
  o.batch = 1u << 14;
  return o;
}

TEST(CudaCheckDevice, EnginePathPassesUnderOcp) {
  if (const std::string why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (const mf::Format from : {mf::formats::f32, mf::formats::f16, mf::formats::bf16, mf::formats::f64})
    for (const mf::Format to : {mf::formats::e4m3fn, mf::formats::e5m2, mf::formats::e2m1fn, mf::formats::e8m0fnu})
      for (const mf::Rounding m : {mf::Rounding::rne, mf::Rounding::rtz}) {
        const mf::check::Target t{.from = from, .to = to, .spec = {m, mf::Overflow::satfinite}};
        const auto r = mf::check::check_batch(mc::device_check_kernel(mc::request_for(t, mc::Path::engine)), t, opts());
        EXPECT_TRUE(r.ok()) << r.text();
      }
}

TEST(CudaCheckDevice, HardwarePathPassesUnderNvidia) {
  if (const std::string why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const mf::RoundingSpec rn_sat{mf::Rounding::rne, mf::Overflow::satfinite};
  for (const auto& [from, to] : {std::pair{mf::formats::f32, mf::formats::e4m3fn}, std::pair{mf::formats::f32, mf::formats::e5m2},
                                 std::pair{mf::formats::f16, mf::formats::e4m3fn}, std::pair{mf::formats::f32, mf::formats::e2m1fn}}) {
    const mf::check::Target t{.from = from, .to = to, .spec = rn_sat, .profile = mf::profiles::nvidia};
    const mc::ConvertRequest req = mc::request_for(t, mc::Path::hardware);
    if ((mc::device_hw_caps() & mc::hw_needs(mc::hardware_cvt(req))) == 0)
      GTEST_SKIP() << mc::ptx_name(mc::hardware_cvt(req)) << " needs " << mc::hw_architectures(mc::hardware_cvt(req));
    const auto r = mf::check::check_batch(mc::device_check_kernel(req), t, opts());
    EXPECT_TRUE(r.ok()) << r.text();
  }
}

}  // namespace
