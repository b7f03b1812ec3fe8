// SPDX-License-Identifier: Apache-2.0
// check_kernel.cpp: the CUDA kernels as checker kernels on the CPU launcher (cuda/check_kernel.hpp).
#include "minifloat/cuda/check_kernel.hpp"

#include <cstring>
#include <vector>

namespace minifloat::cuda {

ConvertRequest request_for(const check::Target& t, Path path) {
  check::validate(t);
  if (t.spec.rounding == Rounding::sr)
    throw Error(
        "cuda check kernel: stochastic rounding draws its words from the kernels' Philox counter, not the "
        "checker's per-case words; accepted: rne, rna, rtz, rtp, rtn, rto");
  if (t.packing != check::Packing::none)
    throw Error("cuda check kernel: the kernels write one code per byte; accepted packing: none");
  ConvertRequest r;
  r.from = t.from;
  r.to = t.to;
  r.spec = t.spec;
  r.profile = t.profile;
  r.path = path;
  if (path == Path::hardware) (void)hardware_cvt(r);  // validates the instruction form
  else validate(r);
  return r;
}

namespace detail {
void pack_inputs(std::span<const check::Case> in, unsigned bytes, std::vector<std::byte>& storage) {
  storage.assign(in.size() * bytes, std::byte{0});
  for (std::size_t i = 0; i < in.size(); ++i)
    std::memcpy(storage.data() + i * bytes, &in[i].input, bytes);  // little-endian host
}
void unpack_codes(const std::vector<std::byte>& storage, unsigned bytes, std::span<std::uint64_t> out) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint64_t c = 0;
    std::memcpy(&c, storage.data() + i * bytes, bytes);
    out[i] = c;
  }
}
}  // namespace detail

check::BatchKernel cpu_check_kernel(const ConvertRequest& r, unsigned threads) {
  if (r.path == Path::hardware) (void)hardware_cvt(r);
  else validate(r);
  return [r, threads](std::span<const check::Case> in, std::span<std::uint64_t> out) {
    const unsigned ib = storage_bytes(r.from), ob = r.path == Path::hardware ? 1u : storage_bytes(r.to);
    std::vector<std::byte> src, dst(in.size() * ob + 1);
    detail::pack_inputs(in, ib, src);
    cpu::convert(src.data(), dst.data(), nullptr, in.size(), r, threads);
    detail::unpack_codes(dst, ob, out);
  };
}

}  // namespace minifloat::cuda
