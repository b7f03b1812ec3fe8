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

// ---- block quantizers (cuda/blocks.hpp bodies; implementation src/cuda/blocks.cu) ----------------

/// Device outputs of quantize_blocks (plan_blocks(shape, scheme, opt).header gives the sizes):
/// codes: one per element (file order, one byte each); scale_codes: one per tile for the E8M0 rules
/// and nvfp4 (else may be null); scales: one FP32 decode scale per tile for fp32_amax/fp32_pow2 (else
/// may be null); tensor_scales: 3 floats (S_enc, fl32(1/S_enc), tensor amax) for nvfp4 (else may be
/// null); tile_counts: 2 per tile (saturated, flushed), nullable. Issue 25: row_encode_scales and
/// row_decode_scales: one float per row of the view (header.rows) for amax-scope row (else may be null;
/// tensor_scales then gets 1, 1, 0); scale_select: one byte per tile for scale-select 4over6 (0 map-to-6,
/// 1 map-to-4; QuantizedTensor::scale_select), nullable.
struct DeviceBlockOutputs {
  std::uint8_t* codes = nullptr;
  std::uint8_t* scale_codes = nullptr;
  float* scales = nullptr;
  float* tensor_scales = nullptr;
  std::uint64_t* tile_counts = nullptr;
  float* row_encode_scales = nullptr;
  float* row_decode_scales = nullptr;
  std::uint8_t* scale_select = nullptr;
};
/// Block quantization of the binary32 tensor d_in (C order, `shape`) on `stream`: with a transform first
/// the transformed tensor (TransformBody, one group per thread, into stream-ordered scratch); for nvfp4
/// the per-tensor amax (a reduction: AmaxPartialBody, then TensorScaleBody; a given tensor-scale: only
/// TensorScaleBody), or with amax-scope row each row's scales (RowScaleBody, one row per thread); then one
/// tile per thread (BlockQuantBody; 4over6 in it). Codes and scales equal cpu::quantize_blocks and
/// minifloat::quantize. Validates first (plan_blocks; a null output the scheme needs) and throws
/// minifloat::Error. The partial maxima and the transform's scratch use stream-ordered memory
/// (cudaMallocAsync), freed on the stream.
void quantize_blocks(const float* d_in, const std::vector<std::size_t>& shape, const Scheme& scheme,
                     const QuantOptions& opt, const DeviceBlockOutputs& out, cudaStream_t stream);
/// FP4 packing of n codes into fp4_packed_bytes(n) bytes (PackFp4Body; codes must be ≤ 0xf: not checked on the device).
void pack_fp4(const std::uint8_t* d_codes, std::size_t n, std::uint8_t* d_out, cudaStream_t stream);
/// Dense FP6 packing of n codes into fp6_packed_bytes(n) bytes (PackFp6Body; codes ≤ 0x3f).
void pack_fp6_dense(const std::uint8_t* d_codes, std::size_t n, std::uint8_t* d_out, cudaStream_t stream);
/// The 128×4 swizzle of a row-major [rows, cols] scale matrix into swizzled_bytes(rows, cols) bytes.
void swizzle_scales_128x4(const std::uint8_t* d_scales, std::size_t rows, std::size_t cols, std::uint8_t pad,
                          std::uint8_t* d_out, cudaStream_t stream);

}  // namespace minifloat::cuda
