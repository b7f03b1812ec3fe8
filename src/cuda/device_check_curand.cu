// SPDX-License-Identifier: Apache-2.0
// device_check_curand.cu: cuRAND's own Philox words for minifloat_device_check stage S0/S3. A TU of
// its own: curand_kernel.h and Random123's philox.h both define mulhilo32 and cannot share one.
#include <curand_kernel.h>

#include <cstdint>

/// Thread t = (seed t / nsubs, subsequence sub_of(t % nsubs)): out[t · words + k] = the k-th curand()
/// word after curand_init(seed, subsequence, 0).
__global__ void curand_words_kernel(const unsigned long long* seeds, int nseeds, int nsubs, int words, unsigned* out) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= nseeds * nsubs) return;
  const unsigned long long seed = seeds[t / nsubs];
  const unsigned long long sub = (static_cast<unsigned long long>(t % nsubs) * 0x9e3779b97f4a7c15ull) >> 13;
  curandStatePhilox4_32_10_t st;
  curand_init(seed, sub, 0ull, &st);
  for (int k = 0; k < words; ++k) out[static_cast<std::size_t>(t) * words + k] = curand(&st);
}

/// Launch curand_words_kernel (synchronous); returns the launch error.
cudaError_t device_check_curand_words(const unsigned long long* d_seeds, int nseeds, int nsubs, int words,
                                      unsigned* d_out) {
  const int threads = nseeds * nsubs;
  curand_words_kernel<<<(threads + 127) / 128, 128>>>(d_seeds, nseeds, nsubs, words, d_out);
  const cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : cudaDeviceSynchronize();
}

__global__ void curand_kat_kernel(unsigned long long seed, unsigned long long sub, unsigned* out4) {
  curandStatePhilox4_32_10_t st;
  curand_init(seed, sub, 0ull, &st);
  for (int k = 0; k < 4; ++k) out4[k] = curand(&st);
}

/// The first four curand() words after curand_init(seed, sub, 0), into host `out4` (synchronous).
cudaError_t device_check_curand_kat(unsigned long long seed, unsigned long long sub, unsigned* out4) {
  unsigned* d = nullptr;
  cudaError_t e = cudaMalloc(&d, 4 * sizeof(unsigned));
  if (e != cudaSuccess) return e;
  curand_kat_kernel<<<1, 1>>>(seed, sub, d);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(out4, d, 4 * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return e;
}
