// SPDX-License-Identifier: Apache-2.0
// blocks.cu: the __global__ wrappers of the block-quantizer bodies (cuda/blocks.hpp) and their device
// API (cuda/cuda.hpp quantize_blocks, pack_fp4, pack_fp6_dense, swizzle_scales_128x4). Built with
// -fmad=false like every device TU. Kernel names: block_grid_kernel<AmaxPartialBody>,
// <TensorScaleBody>, <BlockQuantBody>, <PackFp4Body>, <PackFp6Body>, <Swizzle128x4Body>, and for issue 25's
// steps <TransformBody>, <RowScaleBody> — engine code only (round_pack), no hardware cvt.
#include <string>

#include "minifloat/cuda/cuda.hpp"
#include "minifloat/error.hpp"

namespace minifloat::cuda {

template <class Body>
__global__ void block_grid_kernel(Body body, std::uint64_t n) {
  run_grid_thread(body, n, Grid{gridDim.x, blockDim.x}, blockIdx.x, threadIdx.x);
}

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("cuda: ") + what + ": " + cudaGetErrorString(e));
}

template <class Body>
void launch_blocks(const Body& b, std::uint64_t n, cudaStream_t stream, const char* what) {
  if (n == 0) return;
  const Grid g = grid_for(n);
  block_grid_kernel<Body><<<g.blocks, g.threads, 0, stream>>>(b, n);
  check(cudaGetLastError(), what);
}

}  // namespace

void quantize_blocks(const float* d_in, const std::vector<std::size_t>& shape, const Scheme& scheme,
                     const QuantOptions& opt, const DeviceBlockOutputs& out, cudaStream_t stream) {
  BlockPlan p = plan_blocks(shape, scheme, opt);
  const bool two_level = p.needs_tensor_amax();
  const std::string what = "cuda: quantize_blocks (" + p.header.scheme + "): ";
  if (p.n != 0 && (d_in == nullptr || out.codes == nullptr))
    throw Error(what + "the input and the codes must be device pointers, not null");
  if ((is_e8m0_rule(scheme.rule) || is_ue5m3_rule(scheme.rule) || two_level) && out.scale_codes == nullptr &&
      p.body.lay.tiles() != 0)
    throw Error(what + "rule " + std::string(name(scheme.rule)) +
                " writes scale codes; DeviceBlockOutputs::scale_codes is null");
  if (is_fp32_rule(scheme.rule) && out.scales == nullptr && p.body.lay.tiles() != 0)
    throw Error(what + "rule " + std::string(name(scheme.rule)) +
                " writes FP32 scales; DeviceBlockOutputs::scales is null");
  if (two_level && out.tensor_scales == nullptr)
    throw Error(what + "nvfp4 writes its tensor scales; DeviceBlockOutputs::tensor_scales (3 floats) is null");
  const bool row_scope = !p.header.row_encode_scales.empty();
  if (row_scope && (out.row_encode_scales == nullptr || out.row_decode_scales == nullptr))
    throw Error(what + "amax-scope row writes one S_enc and S_dec per row (" + std::to_string(p.header.rows) +
                "); DeviceBlockOutputs::row_encode_scales or row_decode_scales is null");
  BlockQuantBody b = p.body;
  b.in = d_in;
  b.codes = out.codes;
  b.scale_codes = out.scale_codes;
  b.scales = out.scales;
  b.tile_counts = out.tile_counts;
  b.tensor_scales = out.tensor_scales;
  b.choices = out.scale_select;
  float* transformed = nullptr;
  if (scheme.transform.rht16 && p.n != 0) {  // the transform first, into scratch the other bodies read
    check(cudaMallocAsync(reinterpret_cast<void**>(&transformed), p.n * sizeof(float), stream), "cudaMallocAsync");
    launch_blocks(TransformBody{d_in, b.lay.file_rows, b.lay.file_cols, b.view_row, scheme.transform, transformed},
                  transform_groups(p.n), stream, "transform kernel");
    b.in = transformed;
  }
  const float elem_max = static_cast<float>(element_max(scheme.element));
  if (row_scope) {  // each row's S_enc and S_dec; the tensor scales 1, 1 (as quant.hpp's)
    launch_blocks(RowScaleBody{b.in, b.lay.file_rows, b.lay.file_cols, b.view_row, elem_max, out.row_encode_scales,
                               out.row_decode_scales},
                  p.header.rows, stream, "row scale kernel");
    launch_blocks(TensorScaleBody{nullptr, 0, elem_max, out.tensor_scales, scheme.rule, scheme.scale_select, 1.0f}, 1,
                  stream, "tensor scale kernel");
    b.row_scales = out.row_encode_scales;
  } else if (two_level) {
    const float given = p.given_tensor_scale();
    const std::uint64_t chunks = given != 0.0f ? 0 : amax_chunks(p.n);
    float* partial = nullptr;
    if (chunks != 0)
      check(cudaMallocAsync(reinterpret_cast<void**>(&partial), chunks * sizeof(float), stream), "cudaMallocAsync");
    launch_blocks(AmaxPartialBody{b.in, p.n, partial}, chunks, stream, "amax partial kernel");
    launch_blocks(
        TensorScaleBody{partial, chunks, elem_max, out.tensor_scales, scheme.rule, scheme.scale_select, given}, 1,
        stream, "tensor scale kernel");
    if (partial) check(cudaFreeAsync(partial, stream), "cudaFreeAsync");
  }
  if (p.n != 0) launch_blocks(b, b.lay.tiles(), stream, "block quantize kernel");
  if (transformed) check(cudaFreeAsync(transformed, stream), "cudaFreeAsync");
}

void pack_fp4(const std::uint8_t* d_codes, std::size_t n, std::uint8_t* d_out, cudaStream_t stream) {
  launch_blocks(PackFp4Body{d_codes, n, d_out}, fp4_packed_bytes(n), stream, "fp4 pack kernel");
}
void pack_fp6_dense(const std::uint8_t* d_codes, std::size_t n, std::uint8_t* d_out, cudaStream_t stream) {
  launch_blocks(PackFp6Body{d_codes, n, d_out}, (n + 3) / 4, stream, "fp6 pack kernel");
}
void swizzle_scales_128x4(const std::uint8_t* d_scales, std::size_t rows, std::size_t cols, std::uint8_t pad,
                          std::uint8_t* d_out, cudaStream_t stream) {
  launch_blocks(Swizzle128x4Body{d_scales, rows, cols, pad, d_out}, swizzled_bytes(rows, cols), stream,
                "swizzle kernel");
}

}  // namespace minifloat::cuda
