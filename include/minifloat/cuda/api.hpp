// SPDX-License-Identifier: Apache-2.0
// cuda/api.hpp: what the CUDA kernels compute and which requests they accept, shared by the device
// API (cuda/cuda.hpp: device pointers + cudaStream_t) and the CPU launcher API (`cpu::`, host
// pointers, same bodies over the same grid). Plain C++: no CUDA header, usable without a GPU and
// by a kernel checker that compares a kernel against these results.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <span>
#include <vector>

#include "../core/digest.hpp"
#include "../core/format.hpp"
#include "../core/profile.hpp"
#include "../core/rounding.hpp"
#include "../quant.hpp"
#include "../scheme.hpp"
#include "blocks.hpp"
#include "kernels.hpp"
#include "ptx.hpp"

namespace minifloat::cuda {

/// Which implementation converts: chosen explicitly, never a silent fallback.
enum class Path : std::uint8_t {
  engine,  ///< minifloat's engine (round_pack) on the device: any format ≤ 16 bits, any mode (SR included), policy, profile
  hardware,  ///< one PTX cvt instruction (cuda/ptx.hpp): profile nvidia only, and only the instruction's mode and policy
};

/// One elementwise conversion. Storage per element: cuda/kernels.hpp (1, 2, 4 or 8 bytes).
struct ConvertRequest {
  Format from = formats::
      f32;  ///< engine: f64 f32 f16 bf16 (→ any format ≤ 16 bits), or any format ≤ 16 bits (→ f32 f16 bf16: decode)
  Format to = formats::e4m3fn;
  RoundingSpec spec{};              ///< Rounding::sr reads `sr` (stochastic.hpp's stream layout)
  Profile profile = profiles::ocp;  ///< hardware path: must be profiles::nvidia (what the instructions do)
  SrCounter sr{};
  Path path = Path::engine;
  Relu relu = Relu::off;  ///< hardware path, FP8/FP6/FP4 forms only
};

/// Check `r`; throws minifloat::Error naming what is wrong and what is accepted (e.g. "hardware path:
/// cvt.rn.satfinite.e4m3x2.f32 has no rtz; accepted: rne").
void validate(const ConvertRequest& r);
/// The PTX cvt form of a hardware-path request (validates `r` first; throws as validate does).
HwCvt hardware_cvt(const ConvertRequest& r);
/// The PTX spelling of `op` ("cvt.rn.satfinite.e4m3x2.f32").
std::string_view ptx_name(HwCvt op) noexcept;
/// The architectures whose binaries have `op` ("sm_89+" or "sm_100a/sm_100f/sm_103a/sm_110a/sm_120a/sm_120f").
std::string_view hw_architectures(HwCvt op) noexcept;

/// A block quantization as the kernels run it (cuda/blocks.hpp): `header` is quant.hpp's result for
/// the same request without codes (scheme name, shapes, tile grid; from a BlockQuantizer, so the
/// shapes are the library's), `body` the tile body with every field but the pointers, `n` the
/// element count. Refuses (minifloat::Error, one line): an invalid scheme (validate_scheme), SR bits
/// outside 1..32, a shape that overflows; the source is binary32 (an f64 source is not offered).
/// Issue 25 (item 9): the transform (exact; header.transform) runs first into a scratch tensor (TransformBody);
/// amax-scope row (header.row_encode_scales not empty) takes RowScaleBody instead of the tensor amax; a given
/// tensor scale (`tensor_scale`, Scheme::tensor_scale) takes TensorScaleBody::given with no amax pass.
/// A transform on a tensor-core model (Scheme::transform_gemm) is refused.
struct BlockPlan {
  QuantizedTensor header;
  BlockQuantBody body;
  std::uint64_t n = 0;
  bool needs_tensor_amax() const noexcept { return is_nvfp4_rule(body.rule) || body.rule == ScaleRule::nvfp4_v2_gs; }
  float tensor_scale = 0.0f;
  /// TensorScaleBody::given: the given S_enc, 0 when the amax gives it; an empty tensor's tensor scales
  /// stay 1, 1 as quant.hpp's (no pass runs).
  float given_tensor_scale() const noexcept { return tensor_scale != 0.0f && n == 0 ? 1.0f : tensor_scale; }
};
BlockPlan plan_blocks(const std::vector<std::size_t>& shape, const Scheme& scheme, const QuantOptions& opt);

/// The CPU launcher API: the kernels' bodies over the kernels' grid on `threads` CPU threads
/// (cuda/launch_cpu.hpp; 0 = all cores, as everywhere: parallel_for.hpp). Results are those of the device functions of cuda/cuda.hpp for the same
/// request; on the hardware path they are the instruction's model (cuda/ptx.hpp).
namespace cpu {
/// out[i] (and flags[i] when not null) for i < n; validates `r` (throws minifloat::Error).
void convert(const void* in, void* out, std::uint8_t* flags, std::size_t n, const ConvertRequest& r,
             unsigned threads = 1);
/// The sweep's chunk digests (cuda/kernels.hpp SweepChunkBody) into out[0 .. sweep_chunks(sampling, stride)).
void sweep_chunk_digests(Format to, RoundingSpec spec, Profile prof, SweepSampling sampling, std::uint64_t stride,
                         std::uint64_t* out, unsigned threads = 1);
/// Block quantization of a binary32 tensor `x` (C order, `shape`) by the block kernels' bodies:
/// the per-tensor amax (AmaxPartialBody + TensorScaleBody) when the rule is nvfp4, then one tile
/// per index (BlockQuantBody). The result equals minifloat::quantize(x, shape, scheme, opt) in
/// every field (codes, scale codes or FP32 scales, tensor scales, saturated and flushed counts).
/// Throws Error as plan_blocks does, or when x.size() does not match the shape.
QuantizedTensor quantize_blocks(std::span<const float> x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                                const QuantOptions& opt = {}, unsigned threads = 1);
/// FP4 codes two per byte (PackFp4Body; = pack.hpp pack_fp4 for codes ≤ 0xf; Error otherwise).
std::vector<std::uint8_t> pack_fp4(std::span<const std::uint8_t> codes, unsigned threads = 1);
/// FP6 codes 4 in 3 bytes (PackFp6Body; = pack.hpp pack_fp6 dense for codes ≤ 0x3f; Error otherwise).
std::vector<std::uint8_t> pack_fp6_dense(std::span<const std::uint8_t> codes, unsigned threads = 1);
/// The 128×4 scale swizzle of a row-major [rows, cols] scale matrix (Swizzle128x4Body; = pack.hpp
/// swizzle_scales_128x4). Error when scales.size() != rows · cols.
std::vector<std::uint8_t> swizzle_scales_128x4(std::span<const std::uint8_t> scales, std::size_t rows, std::size_t cols,
                                               std::uint8_t pad = 0, unsigned threads = 1);
}  // namespace cpu

}  // namespace minifloat::cuda
