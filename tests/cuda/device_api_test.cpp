// SPDX-License-Identifier: Apache-2.0
// device_api_test.cpp (label gpu): minifloat::cuda's device API (cuda/cuda.hpp) on a real device
// against the CPU launcher (cuda/api.hpp cpu::), same request, bit for bit. Every test skips with the
// reason ("no CUDA device: ...", "needs sm_100a ...") when it cannot run: never a silent pass.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "minifloat/cuda/cuda.hpp"
#include "minifloat/error.hpp"

namespace {

namespace mf = minifloat;
namespace mc = minifloat::cuda;

std::string no_device_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  if (n == 0) return "no CUDA device: 0 devices";
  return "";
}

#define MINIFLOAT_NEED_DEVICE()                                   \
  do {                                                            \
    const std::string why = no_device_reason();                   \
    if (!why.empty()) GTEST_SKIP() << why;                        \
  } while (0)

template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(std::size_t n) { EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(T) + 1), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(p); }
};

TEST(CudaDevice, EngineEveryF16InputToEveryModeEqualsCpuLauncher) {
  MINIFLOAT_NEED_DEVICE();
  std::vector<std::uint16_t> in(1u << 16);
  for (std::uint32_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint16_t>(i);
  DeviceBuffer<std::uint16_t> din(in.size());
  DeviceBuffer<std::uint8_t> dout(in.size());
  ASSERT_EQ(cudaMemcpy(din.p, in.data(), in.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  for (const mf::Format to : {mf::formats::e4m3fn, mf::formats::e5m2, mf::formats::e2m1fn, mf::formats::e8m0fnu})
    for (const mf::Rounding m : {mf::Rounding::rne, mf::Rounding::rtz, mf::Rounding::rto})
      for (const mf::Overflow p : {mf::Overflow::nonsat, mf::Overflow::satfinite}) {
        mc::ConvertRequest r;
        r.from = mf::formats::f16;
        r.to = to;
        r.spec = {m, p};
        mc::convert(din.p, dout.p, nullptr, in.size(), r, nullptr);
        std::vector<std::uint8_t> got(in.size()), want(in.size());
        ASSERT_EQ(cudaMemcpy(got.data(), dout.p, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        mc::cpu::convert(in.data(), want.data(), nullptr, in.size(), r, 2);
        ASSERT_EQ(got, want);
      }
}

TEST(CudaDevice, HardwareFp8EqualsItsModelOnEveryF16Input) {
  MINIFLOAT_NEED_DEVICE();
  if ((mc::device_hw_caps() & mc::hw_caps_fp8) == 0) GTEST_SKIP() << "needs sm_89+ (FP8 cvt)";
  std::vector<std::uint16_t> in(1u << 16);
  for (std::uint32_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint16_t>(i);
  DeviceBuffer<std::uint16_t> din(in.size());
  DeviceBuffer<std::uint8_t> dout(in.size());
  ASSERT_EQ(cudaMemcpy(din.p, in.data(), in.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  mc::ConvertRequest r;
  r.from = mf::formats::f16;
  r.to = mf::formats::e4m3fn;
  r.spec = {mf::Rounding::rne, mf::Overflow::satfinite};
  r.profile = mf::profiles::nvidia;
  r.path = mc::Path::hardware;
  mc::convert(din.p, dout.p, nullptr, in.size(), r, nullptr);
  std::vector<std::uint8_t> got(in.size()), want(in.size());
  ASSERT_EQ(cudaMemcpy(got.data(), dout.p, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  mc::cpu::convert(in.data(), want.data(), nullptr, in.size(), r, 2);
  ASSERT_EQ(got, want);
}

TEST(CudaDevice, HardwareFp4WithoutTheInstructionFailsWithTheReason) {
  MINIFLOAT_NEED_DEVICE();
  if ((mc::device_hw_caps() & mc::hw_caps_fp6_fp4_e8m0) != 0)
    GTEST_SKIP() << "this device's binary has the sm_100a-family cvt forms (the refusal is for older devices)";
  mc::ConvertRequest r;
  r.to = mf::formats::e2m1fn;
  r.spec = {mf::Rounding::rne, mf::Overflow::satfinite};
  r.profile = mf::profiles::nvidia;
  r.path = mc::Path::hardware;
  DeviceBuffer<float> din(2);
  DeviceBuffer<std::uint8_t> dout(2);
  try {
    mc::convert(din.p, dout.p, nullptr, 2, r, nullptr);
    FAIL() << "expected minifloat::Error";
  } catch (const mf::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cvt.rn.satfinite.e2m1x2.f32 needs"), std::string::npos) << e.what();
  }
}

}  // namespace
