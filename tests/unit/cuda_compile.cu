// SPDX-License-Identifier: Apache-2.0
// cuda_compile.cu: compile-only check that the header-only core builds for the device with nvcc
// (-std=c++20, sm_90): a run-time-Format kernel and a `template <Format F>` (class-type NTTP) kernel.
#include <minifloat/core/core.hpp>

#include <cstdint>

namespace mf = minifloat;

/// Each thread converts one float to `to` through the core engine (run-time descriptor).
__global__ void convert_kernel(const float* in, std::uint8_t* out, mf::Flags* flags, int n, mf::Format to,
                               mf::RoundingSpec spec, mf::Profile prof) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const mf::RoundResult r = mf::from_float(in[i], to, spec, prof);
  out[i] = static_cast<std::uint8_t>(r.code);
  flags[i] = r.flags;
}

/// The format as a class-type template argument (style.md "Verify early 1"); decodes back too.
template <mf::Format F>
__global__ void convert_kernel_fixed(const float* in, std::uint8_t* out, float* back, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const mf::RoundResult r = mf::convert(mf::formats::f32, mf::detail::bit_cast<std::uint32_t>(in[i]), F,
                                        mf::RoundingSpec{mf::Rounding::rne, mf::Overflow::satfinite});
  out[i] = static_cast<std::uint8_t>(r.code);
  back[i] = mf::to_float(F, r.code);
}

/// Stochastic rounding on device: the random bits are an operand (no generator state).
__global__ void convert_kernel_sr(const double* in, const unsigned long long* rbits, std::uint16_t* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const mf::RoundResult r =
      mf::from_double(in[i], mf::formats::bf16, mf::RoundingSpec{mf::Rounding::sr, mf::Overflow::nonsat}, mf::profiles::ocp,
                      rbits[i]);
  out[i] = static_cast<std::uint16_t>(r.code);
}

// The descriptor is constexpr on the device side too.
static_assert(mf::convert(mf::formats::f32, 0x43e80000u, mf::formats::e4m3fn).code == 0x7e);

// Instantiate the NTTP kernel for the common formats.
template __global__ void convert_kernel_fixed<mf::formats::e4m3fn>(const float*, std::uint8_t*, float*, int);
template __global__ void convert_kernel_fixed<mf::formats::e5m2>(const float*, std::uint8_t*, float*, int);
template __global__ void convert_kernel_fixed<mf::formats::e2m1fn>(const float*, std::uint8_t*, float*, int);
template __global__ void convert_kernel_fixed<mf::formats::e8m0fnu>(const float*, std::uint8_t*, float*, int);
template __global__ void convert_kernel_fixed<mf::p3109(8, 3, true, true)>(const float*, std::uint8_t*, float*, int);

/// A host launcher, so the kernels' host stubs are generated and the <<<>>> syntax is checked.
void launch_all(const float* in, std::uint8_t* out, float* back, mf::Flags* flags, int n) {
  const int threads = 256, blocks = (n + threads - 1) / threads;
  convert_kernel<<<blocks, threads>>>(in, out, flags, n, mf::formats::e4m3fn, mf::RoundingSpec{}, mf::profiles::nvidia);
  convert_kernel_fixed<mf::formats::e4m3fn><<<blocks, threads>>>(in, out, back, n);
}
