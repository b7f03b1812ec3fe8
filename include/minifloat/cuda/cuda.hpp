// SPDX-License-Identifier: Apache-2.0
// cuda/cuda.hpp: minifloat::cuda, the device API (target minifloat::cuda, built when CMake finds a
// CUDA compiler; option MINIFLOAT_CUDA). Device pointers in, device pointers out, work queued on
// `stream` (no synchronisation except the one-time capability probe of a hardware-path call).
// Every function validates its request first (cuda/api.hpp validate) and throws minifloat::Error
// naming what was wrong; a CUDA runtime failure throws minifloat::Error with cudaGetErrorString.
// The results equal the CPU launcher's (cuda/api.hpp cpu::) for the same request, bit for bit.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "api.hpp"

namespace minifloat::cuda {

/// The HwCaps bits of the binary the current device runs (a probe kernel reports which PTX cvt
/// families its architecture's code was compiled with; cached per device). Throws minifloat::Error
/// when there is no usable device ("no CUDA device: <cudaGetErrorString>").
unsigned device_hw_caps();
/// The current device's compute capability as 10·major + minor (90 for an H100/H200), or throws.
int device_compute_capability();

/// Elementwise conversion of n elements (storage: cuda/kernels.hpp), `d_flags` nullable (engine path
/// only). Path::hardware throws, before launching, when the binary for this device lacks the
/// instruction ("cvt.rn.satfinite.e2m1x2.f32 needs sm_100a/...; this device runs sm_90 code"),
/// instead of running NVIDIA's software emulation.
void convert(const void* d_in, void* d_out, std::uint8_t* d_flags, std::size_t n, const ConvertRequest& r,
             cudaStream_t stream);
/// The sweep's chunk digests into d_out[0 .. sweep_chunks(sampling, stride)) (cuda/kernels.hpp).
void sweep_chunk_digests(Format to, RoundingSpec spec, Profile prof, SweepSampling sampling, std::uint64_t stride,
                         std::uint64_t* d_out, cudaStream_t stream);

}  // namespace minifloat::cuda
