// SPDX-License-Identifier: Apache-2.0
// kernels.cu: the __global__ wrappers of the kernel bodies (cuda/kernels.hpp) and the device API
// (cuda/cuda.hpp). Built with -fmad=false (the core's INTERFACE flags) for every CUDA architecture of
// MINIFLOAT_CUDA_ARCHITECTURES. Kernel names (checked by the cuda-compile PTX test):
//   engine path   grid_kernel<ConvertBody>     — must contain no cvt with an e4m3x2|e5m2x2|... operand
//   hardware path grid_kernel<HardwareBody>    — must contain its architecture's cvt forms
//   sweep         grid_kernel<SweepChunkBody>
#include <map>
#include <mutex>
#include <string>

#include "minifloat/cuda/cuda.hpp"
#include "minifloat/error.hpp"

namespace minifloat::cuda {

template <class Body>
__global__ void grid_kernel(Body body, std::uint64_t n) {
  run_grid_thread(body, n, Grid{gridDim.x, blockDim.x}, blockIdx.x, threadIdx.x);
}

/// Reports compiled_hw_caps() of the architecture this binary was built for.
__global__ void hw_caps_kernel(unsigned* caps) { *caps = compiled_hw_caps() | 0x100u; }

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("cuda: ") + what + ": " + cudaGetErrorString(e));
}

template <class Body>
void launch(const Body& b, std::uint64_t n, cudaStream_t stream, const char* what) {
  if (n == 0) return;
  const Grid g = grid_for(n);
  grid_kernel<Body><<<g.blocks, g.threads, 0, stream>>>(b, n);
  check(cudaGetLastError(), what);
}

}  // namespace

int device_compute_capability() {
  int dev = 0;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    throw Error(std::string("no CUDA device: ") +
                (e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount = 0"));
  check(cudaGetDevice(&dev), "cudaGetDevice");
  int major = 0, minor = 0;
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), "cudaDeviceGetAttribute");
  return 10 * major + minor;
}

unsigned device_hw_caps() {
  static std::mutex m;
  static std::map<int, unsigned> cache;
  (void)device_compute_capability();
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  std::lock_guard<std::mutex> lock(m);
  if (auto it = cache.find(dev); it != cache.end()) return it->second;
  unsigned* d = nullptr;
  check(cudaMalloc(&d, sizeof(unsigned)), "cudaMalloc");
  unsigned h = 0;
  hw_caps_kernel<<<1, 1>>>(d);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  check(e, "hw_caps_kernel (no binary of minifloat::cuda for this device's architecture?)");
  cache[dev] = h & 0xffu;
  return h & 0xffu;
}

void convert(const void* d_in, void* d_out, std::uint8_t* d_flags, std::size_t n, const ConvertRequest& r,
             cudaStream_t stream) {
  if (r.path == Path::hardware) {
    const HwCvt op = hardware_cvt(r);
    if (d_flags) throw Error("cuda: hardware path: the cvt instructions give no flags; pass flags = nullptr");
    const unsigned caps = device_hw_caps();
    if ((caps & hw_needs(op)) == 0)
      throw Error("cuda: hardware path: " + std::string(ptx_name(op)) + " needs a binary for " +
                  std::string(hw_architectures(op)) + "; this device (compute capability " +
                  std::to_string(device_compute_capability()) +
                  ") runs minifloat::cuda code built without it (set MINIFLOAT_CUDA_ARCHITECTURES, e.g. 100a)");
    HardwareBody b{d_in, static_cast<std::uint8_t*>(d_out), n, op, r.relu, nullptr};
    launch(b, (n + 1) / 2, stream, "hardware convert kernel");
    return;
  }
  validate(r);
  ConvertBody b{d_in, r.from, d_out, r.to, r.spec, r.profile, r.sr, d_flags};
  launch(b, n, stream, "engine convert kernel");
}

void sweep_chunk_digests(Format to, RoundingSpec spec, Profile prof, SweepSampling sampling, std::uint64_t stride,
                         std::uint64_t* d_out, cudaStream_t stream) {
  if (sampling == SweepSampling::strided && (stride == 0 || stride > (std::uint64_t{1} << 32)))
    throw Error("cuda: sweep stride " + std::to_string(stride) + " out of range; accepted: 1..2^32");
  if (to.bits > 8) throw Error("cuda: the sweep digests ≤ 8-bit targets");
  SweepChunkBody b{to, spec, prof, sampling, stride, d_out};
  launch(b, sweep_chunks(sampling, stride), stream, "sweep kernel");
}

}  // namespace minifloat::cuda
