// SPDX-License-Identifier: Apache-2.0
// cuda/check_device.hpp: the project's CUDA kernels on the device as kernels of the checker (the
// device twin of cuda/check_kernel.hpp's cpu_check_kernel; target minifloat_cuda_check with CUDA). Each batch is
// packed into the kernels' storage, copied to the device, converted by cuda::convert on `stream`,
// synchronised and copied back.
#pragma once
#include <cuda_runtime_api.h>

#include "check_kernel.hpp"

namespace minifloat::cuda {

/// A batched checker kernel running cuda::convert(…, r, stream) on the current device. `r` is
/// validated now (throws minifloat::Error); each call throws minifloat::Error with
/// cudaGetErrorString on a CUDA failure (e.g. "no CUDA device: ...").
check::BatchKernel device_check_kernel(const ConvertRequest& r, cudaStream_t stream = nullptr);

}  // namespace minifloat::cuda
