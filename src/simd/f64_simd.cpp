// SPDX-License-Identifier: Apache-2.0
// simd/f64_simd.cpp: compiles simd/f64-inl.h once per Highway target (foreach_target.h) and exports
// the f64 kernel for run-time dispatch; the f32 tables are those of simd/convert_simd.cpp.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/f64-inl.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/f64-inl.h"

#if HWY_ONCE
#include "minifloat/core/bits.hpp"
#include "minifloat/core/convert.hpp"
#include "simd/f64_simd.hpp"

namespace minifloat::simd {

HWY_EXPORT(EncodeF64Rto);
HWY_EXPORT(EncodeF64Rne);

F64Encode f64_encode_plan(Format to, const RoundingSpec& spec, const Profile& prof) {
  F64Encode p;
  p.narrowing = prof.source_via_f32 ? F64Narrowing::rne_f32_step : F64Narrowing::round_to_odd;
  const RoundingSpec s{.rounding = spec.rounding, .overflow = spec.overflow};
  for (int neg = 0; neg < 2; ++neg) {
    const std::uint64_t bits = (neg != 0 ? 0x8000000000000000ull : 0) | 0x47F0000000000000ull;  // ±2^128
    const RoundResult r = convert(formats::f64, bits, to, s, prof);
    p.beyond_f32[neg] = static_cast<std::uint16_t>(r.code | (static_cast<unsigned>(r.flags) << 8));
  }
  return p;
}

unsigned encode_f64(const EncodeTable& t, const F64Encode& plan, const double* in, std::uint8_t* out, std::size_t n) {
  const auto* bits = reinterpret_cast<const std::uint64_t*>(in);
  if (plan.narrowing == F64Narrowing::rne_f32_step)
    return HWY_DYNAMIC_DISPATCH(EncodeF64Rne)(bits, out, n, t.entry.data(), t.drop, plan.beyond_f32);
  return HWY_DYNAMIC_DISPATCH(EncodeF64Rto)(bits, out, n, t.entry.data(), t.drop, plan.beyond_f32);
}

}  // namespace minifloat::simd
#endif  // HWY_ONCE
