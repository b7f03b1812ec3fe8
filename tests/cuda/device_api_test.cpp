// SPDX-License-Identifier: Apache-2.0
// device_api_test.cpp (label gpu): minifloat::cuda's device API (cuda/cuda.hpp) on a real device
// against the CPU launcher (cuda/api.hpp cpu::), same request, bit for bit. Every test skips with the
// reason ("no CUDA device: ...", "needs sm_100a ...") when it cannot run: never a silent pass.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "minifloat/cuda/cuda.hpp"
#include "minifloat/error.hpp"
#include "minifloat/scheme.hpp"

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

// ---- block quantizers (cuda/blocks.hpp through quantize_blocks) -------------------------------

TEST(CudaDeviceBlocks, RefusalsComeBeforeAnyLaunch) {
  // No device needed: the request is checked before the first CUDA call.
  const std::vector<float> dummy(1);
  const float* fake_in = dummy.data();
  std::uint8_t codes[64];
  const mc::DeviceBlockOutputs no_scales{codes, nullptr, nullptr, nullptr, nullptr};
  try {
    mc::quantize_blocks(fake_in, {2, 32}, mf::find_scheme("mxfp8_e4m3"), {}, no_scales, nullptr);
    FAIL() << "a null scale_codes output was accepted";
  } catch (const mf::Error& e) {
    EXPECT_NE(std::string(e.what()).find("scale_codes is null"), std::string::npos) << e.what();
  }
  EXPECT_THROW(mc::quantize_blocks(fake_in, {2, 32}, mf::find_scheme("fp8_row"), {}, no_scales, nullptr), mf::Error);
  std::uint8_t sc[4];
  const mc::DeviceBlockOutputs no_tensor{codes, sc, nullptr, nullptr, nullptr};
  EXPECT_THROW(mc::quantize_blocks(fake_in, {2, 32}, mf::find_scheme("nvfp4"), {}, no_tensor, nullptr), mf::Error);
  mf::Scheme bad = mf::find_scheme("nvfp4");
  bad.policy.zero = mf::ZeroBlock::nan;  // validate_scheme refuses it
  float ts[3];
  const mc::DeviceBlockOutputs all{codes, sc, nullptr, ts, nullptr};
  EXPECT_THROW(mc::quantize_blocks(fake_in, {2, 32}, bad, {}, all, nullptr), mf::Error);
  // issue 25: amax-scope row needs its row-scale outputs; a tensor-core transform is refused
  mf::Scheme row = mf::find_scheme("nvfp4");
  row.amax_scope = mf::AmaxScope::row;
  try {
    mc::quantize_blocks(fake_in, {2, 32}, row, {}, all, nullptr);
    FAIL() << "amax-scope row with null row-scale outputs was accepted";
  } catch (const mf::Error& e) {
    EXPECT_NE(std::string(e.what()).find("row_encode_scales or row_decode_scales is null"), std::string::npos)
        << e.what();
  }
  const mf::Scheme gemm =
      mf::parse_scheme("e4m3fn/1x16/e8m0fnu:ocp_floor/transform=rht16:te/transform-gemm=hopper-bf16-unvalidated");
  EXPECT_THROW(mc::quantize_blocks(fake_in, {2, 32}, gemm, {}, all, nullptr), mf::Error);
}

TEST(CudaDeviceBlocks, EveryNamedSchemeEqualsCpuLauncher) {
  MINIFLOAT_NEED_DEVICE();
  const std::size_t rows = 160, cols = 384, n = rows * cols;
  std::vector<float> x(n);
  std::uint32_t s = 12345;
  for (std::size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = std::ldexp(static_cast<float>(static_cast<std::int32_t>(s)) / 2147483648.0f, static_cast<int>(i / cols % 41) - 20);
  }
  x[5] = std::nanf("");
  x[cols + 7] = INFINITY;
  for (std::size_t c = 0; c < cols; ++c) x[2 * cols + c] = 0.0f;
  DeviceBuffer<float> din(n), dscales(n), dtensor(3);
  DeviceBuffer<std::uint8_t> dcodes(n), dscodes(n);
  ASSERT_EQ(cudaMemcpy(din.p, x.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  for (const auto& e : mf::scheme_table().entries) {
    SCOPED_TRACE(std::string(e.name));
    const mf::QuantizedTensor want = mc::cpu::quantize_blocks(x, {rows, cols}, e.value, {}, 2);
    mc::quantize_blocks(din.p, {rows, cols}, e.value, {}, {dcodes.p, dscodes.p, dscales.p, dtensor.p, nullptr}, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<std::uint8_t> codes(n), scodes(want.scale_codes.size());
    std::vector<float> scales(want.scales.size()), tensor(3);
    ASSERT_EQ(cudaMemcpy(codes.data(), dcodes.p, n, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(scodes.data(), dscodes.p, scodes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(scales.data(), dscales.p, scales.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(tensor.data(), dtensor.p, 12, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(codes, want.codes);
    EXPECT_EQ(scodes, want.scale_codes);
    for (std::size_t t = 0; t < scales.size(); ++t) {
      std::uint32_t a, b;
      std::memcpy(&a, &scales[t], 4);
      std::memcpy(&b, &want.scales[t], 4);
      ASSERT_EQ(a, b) << "FP32 scale " << t;
    }
    if (e.value.rule == mf::ScaleRule::nvfp4) {
      EXPECT_EQ(tensor[0], want.tensor_encode_scale);
      EXPECT_EQ(tensor[1], want.tensor_decode_scale);
    }
  }
}

// issue 25 item 9: tensor-scale, amax-scope row, 4over6 and the rht16 transform on the device equal the CPU
// launcher (which tests/cuda/cuda_blocks_issue25_test.cpp checks against quant.hpp) in every output.
TEST(CudaDeviceBlocks, Issue25StepsEqualCpuLauncher) {
  MINIFLOAT_NEED_DEVICE();
  const std::size_t rows = 160, cols = 384, n = rows * cols;  // both axes multiples of 16 (the transform)
  std::vector<float> x(n);
  std::uint32_t s = 777;
  for (std::size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    const int k = static_cast<int>(i / cols % 9) - 4;
    x[i] = std::ldexp(static_cast<float>(static_cast<std::int32_t>(s)) / 2147483648.0f, k);
  }
  x[5] = std::nanf("");
  x[cols + 7] = INFINITY;
  for (std::size_t c = 0; c < cols; ++c) x[2 * cols + c] = 0.0f;
  DeviceBuffer<float> din(n), dscales(n), dtensor(3), drow_enc(cols), drow_dec(cols);
  DeviceBuffer<std::uint8_t> dcodes(n), dscodes(n), dchoice(n);
  ASSERT_EQ(cudaMemcpy(din.p, x.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<std::pair<mf::Scheme, mf::BlockAxis>> runs;
  mf::Scheme t = mf::find_scheme("nvfp4");
  t.tensor_scale = 64.0f;
  runs.emplace_back(t, mf::BlockAxis::last);
  mf::Scheme r = mf::find_scheme("nvfp4");
  r.amax_scope = mf::AmaxScope::row;
  runs.emplace_back(r, mf::BlockAxis::last);
  runs.emplace_back(r, mf::BlockAxis::first);
  for (const mf::ScaleSelect sel : {mf::ScaleSelect::four_over_six_mse, mf::ScaleSelect::four_over_six_mae}) {
    mf::Scheme f = mf::find_scheme("nvfp4");
    f.scale_select = sel;
    runs.emplace_back(f, mf::BlockAxis::last);
  }
  for (const char* base : {"nvfp4", "mxfp8_e4m3"}) {
    mf::Scheme h = mf::find_scheme(base);
    h.transform = mf::parse_transform("rht16:te");
    runs.emplace_back(h, mf::BlockAxis::last);
    runs.emplace_back(h, mf::BlockAxis::first);
  }
  r.transform = mf::parse_transform("rht16:torchao");
  runs.emplace_back(r, mf::BlockAxis::last);
  for (const auto& [scheme, axis] : runs) {
    SCOPED_TRACE(mf::scheme_name(scheme) + (axis == mf::BlockAxis::first ? " axis first" : ""));
    mf::QuantOptions o;
    o.axis = axis;
    const mf::QuantizedTensor want = mc::cpu::quantize_blocks(x, {rows, cols}, scheme, o, 2);
    const mc::DeviceBlockOutputs out{dcodes.p,  dscodes.p,  dscales.p,  dtensor.p,
                                     nullptr,   drow_enc.p, drow_dec.p, dchoice.p};
    mc::quantize_blocks(din.p, {rows, cols}, scheme, o, out, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<std::uint8_t> codes(n), scodes(want.scale_codes.size()), choice(want.scale_select.size());
    std::vector<float> tensor(3), enc(want.row_encode_scales.size()), dec(want.row_decode_scales.size());
    ASSERT_EQ(cudaMemcpy(codes.data(), dcodes.p, n, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(scodes.data(), dscodes.p, scodes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(choice.data(), dchoice.p, choice.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(tensor.data(), dtensor.p, 12, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(enc.data(), drow_enc.p, enc.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dec.data(), drow_dec.p, dec.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(codes, want.codes);
    EXPECT_EQ(scodes, want.scale_codes);
    EXPECT_EQ(choice, want.scale_select);
    EXPECT_EQ(enc, want.row_encode_scales);
    EXPECT_EQ(dec, want.row_decode_scales);
    if (mf::is_nvfp4_rule(scheme.rule)) {
      EXPECT_EQ(tensor[0], want.tensor_encode_scale);
      EXPECT_EQ(tensor[1], want.tensor_decode_scale);
    }
  }
}

}  // namespace
