// SPDX-License-Identifier: Apache-2.0
// core/config.hpp: portability macros shared by every minifloat header (host and CUDA device).
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define MINIFLOAT_HOST_DEVICE __host__ __device__
#else
#define MINIFLOAT_HOST_DEVICE
#endif

#define MINIFLOAT_VERSION_MAJOR 0
#define MINIFLOAT_VERSION_MINOR 1
#define MINIFLOAT_VERSION_PATCH 0
