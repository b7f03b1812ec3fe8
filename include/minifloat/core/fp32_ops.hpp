// SPDX-License-Identifier: Apache-2.0
// core/fp32_ops.hpp: the binary32 operations whose IEEE round-to-nearest-even result the block
// scaling recipes depend on (Transformer Engine / DeepSeek FP32 scales, the NVFP4 two-level scale),
// spelled so that host and device round them identically: on the device the CUDA intrinsics
// __fmul_rn / __fdiv_rn / __fadd_rn / __frcp_rn, which nvcc never contracts into an FMA nor
// replaces by an approximation (whatever -fmad / -prec-div / --use_fast_math say); on the host the
// plain operators, exact IEEE binary32 operations because every target is built with FP contraction
// off (-ffp-contract=off, checked by unit.fp_contract_off_everywhere) and with FLT_EVAL_METHOD 0
// (checked below: no x87 extended intermediates).
#pragma once
#include <cfloat>

#include "config.hpp"

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && !defined(__CUDA_ARCH__)
#error "minifloat: float expressions must be evaluated in binary32 (FLT_EVAL_METHOD 0; use SSE2, not x87)"
#endif

namespace minifloat {

/// fl32(a · b), IEEE binary32 multiplication rounded to nearest even.
MINIFLOAT_HOST_DEVICE inline float fmul_rn(float a, float b) noexcept {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
/// fl32(a / b), IEEE binary32 division rounded to nearest even (x/0 = ±Inf, 0/0 = NaN).
MINIFLOAT_HOST_DEVICE inline float fdiv_rn(float a, float b) noexcept {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
/// fl32(a + b), IEEE binary32 addition rounded to nearest even.
MINIFLOAT_HOST_DEVICE inline float fadd_rn(float a, float b) noexcept {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
/// fl32(1 / x), the IEEE binary32 reciprocal rounded to nearest even (= fdiv_rn(1, x)).
MINIFLOAT_HOST_DEVICE inline float frcp_rn(float x) noexcept {
#if defined(__CUDA_ARCH__)
  return __frcp_rn(x);
#else
  return 1.0f / x;
#endif
}

}  // namespace minifloat
