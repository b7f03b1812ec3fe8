// SPDX-License-Identifier: Apache-2.0
// core/config.hpp: portability macros shared by every minifloat header (host and CUDA device).
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define MINIFLOAT_HOST_DEVICE __host__ __device__
#else
#define MINIFLOAT_HOST_DEVICE
#endif

// MINIFLOAT_NOINLINE: keep a rarely taken, large step (e.g. an exact division) out of the per-element
// loops it sits in, so that inlining the common path is not refused for its size.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define MINIFLOAT_NOINLINE __noinline__
#elif defined(__GNUC__) || defined(__clang__)
#define MINIFLOAT_NOINLINE __attribute__((noinline))
#else
#define MINIFLOAT_NOINLINE
#endif

#define MINIFLOAT_VERSION_MAJOR 0
#define MINIFLOAT_VERSION_MINOR 1
#define MINIFLOAT_VERSION_PATCH 0
