// SPDX-License-Identifier: Apache-2.0
// check_device.cpp: the CUDA kernels as checker kernels on the device (cuda/check_device.hpp).
#include "minifloat/cuda/check_device.hpp"

#include <string>
#include <vector>

#include "minifloat/cuda/cuda.hpp"

namespace minifloat::cuda {
namespace {

void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("cuda check kernel: ") + what + ": " + cudaGetErrorString(e));
}

struct DeviceBytes {
  void* p = nullptr;
  explicit DeviceBytes(std::size_t n) { ok(cudaMalloc(&p, n + 1), "cudaMalloc"); }
  ~DeviceBytes() { cudaFree(p); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
};

}  // namespace

check::BatchKernel device_check_kernel(const ConvertRequest& r, cudaStream_t stream) {
  if (r.path == Path::hardware) (void)hardware_cvt(r);
  else validate(r);
  return [r, stream](std::span<const check::Case> in, std::span<std::uint64_t> out) {
    const unsigned ib = storage_bytes(r.from), ob = r.path == Path::hardware ? 1u : storage_bytes(r.to);
    std::vector<std::byte> src, dst(in.size() * ob + 1);
    detail::pack_inputs(in, ib, src);
    DeviceBytes din(src.size()), dout(dst.size());
    ok(cudaMemcpyAsync(din.p, src.data(), src.size(), cudaMemcpyHostToDevice, stream), "copy to device");
    convert(din.p, dout.p, nullptr, in.size(), r, stream);
    ok(cudaMemcpyAsync(dst.data(), dout.p, dst.size(), cudaMemcpyDeviceToHost, stream), "copy to host");
    ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    detail::unpack_codes(dst, ob, out);
  };
}

}  // namespace minifloat::cuda
