// SPDX-License-Identifier: Apache-2.0
// cuda/check_kernel.hpp: the project's CUDA kernels as kernels of the checker (check/check.hpp; issue 10 ↔
// 12). A check::Target becomes a ConvertRequest (cuda/api.hpp), and the request a check::BatchKernel
// that packs each batch's inputs into the kernels' storage (cuda/kernels.hpp: 1, 2, 4 or 8 bytes per
// element), runs the CPU launcher (here) or the device (cuda/check_device.hpp) and unpacks the codes.
// Layers point down: this adapter is the bridge above both the checker (minifloat::check) and the
// CUDA layer, which know nothing of each other. Target minifloat_cuda_check (plain C++, no CUDA runtime).
//
//   check::Target t{.from = formats::f32, .to = formats::e4m3fn, .spec = {Rounding::rne, Overflow::satfinite},
//                   .profile = profiles::nvidia};
//   check::Report r = check::check_batch(cuda::cpu_check_kernel(cuda::request_for(t, cuda::Path::hardware)), t);
#pragma once
#include "../check/check.hpp"
#include "api.hpp"

namespace minifloat::cuda {

/// The request computing `t` on `path`: from, to, spec, profile copied; relu off. Throws
/// minifloat::Error (one line) when the kernels cannot express `t`: stochastic rounding (the kernels
/// draw each element's word from their Philox counter, cuda/kernels.hpp SrCounter, so the checker's
/// per-case words cannot be fed in; check SR through stochastic.hpp's stream instead), a packed
/// target (Packing::fp4x2: the kernels write one code per byte), or what validate() refuses.
ConvertRequest request_for(const check::Target& t, Path path);

/// A batched checker kernel over the CPU launcher: in[i].input → storage of r.from, cpu::convert(…, r,
/// threads), codes back. `r` is validated now (throws minifloat::Error).
check::BatchKernel cpu_check_kernel(const ConvertRequest& r, unsigned threads = 1);

namespace detail {
/// Pack the inputs of `in` into `bytes`-wide little-endian words (the kernels' storage), and back.
void pack_inputs(std::span<const check::Case> in, unsigned bytes, std::vector<std::byte>& storage);
void unpack_codes(const std::vector<std::byte>& storage, unsigned bytes, std::span<std::uint64_t> out);
}  // namespace detail

}  // namespace minifloat::cuda
