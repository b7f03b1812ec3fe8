// SPDX-License-Identifier: Apache-2.0
// simd/hadamard_simd.cpp: compiles simd/hadamard-inl.h once per Highway target (foreach_target.h) and exports
// the transform kernels for run-time dispatch (simd/hadamard_simd.hpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/hadamard-inl.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/hadamard-inl.h"

#if HWY_ONCE
#include "simd/hadamard_simd.hpp"

namespace minifloat::simd {

HWY_EXPORT(Rht16Strided);
HWY_EXPORT(Rht16Contiguous);

std::size_t rht16_strided(const float* x, std::size_t stride, std::size_t groups, const BlockTransform& t, float* y) {
  const std::uint32_t bf16 = t.output == TransformOutput::bf16 ? 1u : 0u;
  return HWY_DYNAMIC_DISPATCH(Rht16Strided)(x, stride, groups, t.signs, bf16, y);
}

std::size_t rht16_contiguous(const float* x, std::size_t groups, const BlockTransform& t, float* y) {
  const std::uint32_t bf16 = t.output == TransformOutput::bf16 ? 1u : 0u;
  return HWY_DYNAMIC_DISPATCH(Rht16Contiguous)(x, groups, t.signs, bf16, y);
}

}  // namespace minifloat::simd
#endif  // HWY_ONCE
