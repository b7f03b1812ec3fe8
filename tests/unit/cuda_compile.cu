// SPDX-License-Identifier: Apache-2.0
// cuda_compile.cu: compile-only check that the header-only core builds for the device with nvcc
// (-std=c++20, sm_90, -fmad=false): a run-time-Format kernel, a `template <Format F>` (class-type
// NTTP) kernel, and kernels that call every part of the core on the device: SR, exact arithmetic,
// the block-scaling steps (E8M0 rules, FP32 and NVFP4 scales, elements), T-FDPA and GaussWS noise.
#include <minifloat/core/core.hpp>
#include <minifloat/core/digest.hpp>

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

/// Exact arithmetic on the device: fma and a mixed-format add, rounded once.
__global__ void arith_kernel(const std::uint16_t* a, const std::uint16_t* b, std::uint32_t* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const mf::RoundResult p = mf::fma(mf::formats::bf16, a[i], mf::formats::bf16, b[i], mf::formats::f32, 0, mf::formats::f32);
  const mf::RoundResult s = mf::add(mf::formats::f32, p.code, mf::formats::bf16, a[i], mf::formats::f32);
  out[i] = static_cast<std::uint32_t>(s.code);
}

/// One MX block per thread block: the E8M0 scale of each rule, the elements, and the NVFP4 and
/// FP32 scale steps (core/block_scale.hpp, whose binary32 operations are fp32_ops.hpp intrinsics).
__global__ void block_scale_kernel(const float* x, const float* amax, std::uint8_t* codes, std::uint8_t* scales,
                                   float* fp32, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const float a = amax[blockIdx.x];
  int e = 0;
  for (mf::ScaleRule r : {mf::ScaleRule::ocp_floor, mf::ScaleRule::rceil, mf::ScaleRule::ceil, mf::ScaleRule::even,
                          mf::ScaleRule::tosa})
    e += mf::e8m0_exponent(r, a, mf::elements::e4m3fn) + mf::e8m0_exponent(r, a, mf::elements::mxint8);
  const mf::ElementResult q = mf::quantize_element(mf::elements::e2m1fn, x[i], e, {mf::Rounding::rne, mf::Overflow::satfinite},
                                                   mf::Profile{}, 0, mf::Mxint8Min::twos_complement);
  codes[i] = q.code;
  const float s_enc = mf::nvfp4_global_encode_scale(a);
  const std::uint8_t sc = mf::nvfp4_block_scale_code(a, s_enc);
  scales[i] = sc;
  const mf::Fp32Scale f = mf::fp32_scale(a, 448.0f, mf::ScaleRule::fp32_amax, 0.0f, mf::Fp32ScaleOrder::te_multiply);
  fp32[i] = mf::fmul_rn(x[i], mf::nvfp4_element_encode_scale(sc, s_enc)) + f.encode + f.decode +
            static_cast<float>(mf::e8m0_value(sc, mf::ScaleFtz::yes) + mf::element_value(mf::elements::mxint8, q.code)) +
            static_cast<float>(mf::element_nan_code(mf::elements::e3m2fn, mf::Profile{}));
}

/// One T-FDPA dot product per thread under the Hopper FP8 model (copied into a local: namespace-
/// scope constexpr objects are host variables).
__global__ void tfdpa_kernel(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* d, int n, int k) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  constexpr mf::TfdpaModel m = mf::mma_models::hopper_fp8;
  d[i] = mf::tfdpa_dot(m, mf::formats::e4m3fn, a + i * k, mf::formats::e4m3fn, b + i * k, static_cast<std::size_t>(k), 0)
             .code;
}

/// GaussWS noise of element i, both generators.
__global__ void gauss_kernel(int* out, int n, std::uint64_t seed) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  out[i] = mf::gauss_noise(mf::GaussNoise::exact, seed, 3, 0, static_cast<std::uint64_t>(i)) +
           mf::gauss_noise(mf::GaussNoise::bitwise, seed, 4, 0, static_cast<std::uint64_t>(i));
}

// The descriptor is constexpr on the device side too.
static_assert(mf::convert(mf::formats::f32, 0x43e80000u, mf::formats::e4m3fn).code == 0x7e);

// Instantiate the NTTP kernel for the common formats.
template __global__ void convert_kernel_fixed<mf::formats::e4m3fn>(const float*, std::uint8_t*, float*, int);
template __global__ void convert_kernel_fixed<mf::formats::e5m2>(const float*, std::uint8_t*, float*, int);
template __global__ void convert_kernel_fixed<mf::formats::e2m1fn>(const float*, std::uint8_t*, float*, int);
template __global__ void convert_kernel_fixed<mf::formats::e8m0fnu>(const float*, std::uint8_t*, float*, int);
template __global__ void convert_kernel_fixed<mf::p3109(8, 3, mf::Signedness::signed_, mf::P3109Domain::extended)>(const float*, std::uint8_t*,
                                                                                                  float*, int);

/// A host launcher, so the kernels' host stubs are generated and the <<<>>> syntax is checked.
void launch_all(const float* in, std::uint8_t* out, float* back, mf::Flags* flags, int n) {
  const int threads = 256, blocks = (n + threads - 1) / threads;
  convert_kernel<<<blocks, threads>>>(in, out, flags, n, mf::formats::e4m3fn, mf::RoundingSpec{}, mf::profiles::nvidia);
  convert_kernel_fixed<mf::formats::e4m3fn><<<blocks, threads>>>(in, out, back, n);
  block_scale_kernel<<<blocks, 32>>>(in, back, out, out, back, n);
  gauss_kernel<<<blocks, threads>>>(reinterpret_cast<int*>(flags), n, 42);
}

/// The long sweep's digest on the device (core/digest.hpp): one FNV-1a 64 chunk digest per thread.
__global__ void sweep_digest_kernel(std::uint64_t* chunk_digests, int chunks) {
  const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= chunks) return;
  std::uint64_t h = mf::kFnv1a64Offset;
  for (std::uint64_t i = 0; i < 64; ++i) {
    const std::uint32_t x = mf::sweep_input(mf::SweepSampling::structured, 1, k * 64ull + i);
    h = mf::fnv1a64_byte(h, static_cast<std::uint8_t>(mf::convert(mf::formats::f32, x, mf::formats::e4m3fn).code));
  }
  chunk_digests[k] = mf::fnv1a64_u64le(h, mf::sweep_input_count(mf::SweepSampling::strided, 4099));
}
