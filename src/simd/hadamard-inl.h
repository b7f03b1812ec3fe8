// SPDX-License-Identifier: Apache-2.0
// simd/hadamard-inl.h: the 16-point random Hadamard transform (core/hadamard.hpp, rht16_group) on binary32
// inputs, vectorised across groups (one copy per SIMD target, through hwy/foreach_target.h; see
// simd/hadamard_simd.cpp). Each lane holds one group; element i of the lanes' groups is one vector, so the
// four butterfly stages of the Walsh–Hadamard transform are vertical binary64 adds and subtracts.
//
// Why it is exact (the one rounding of rht16_group): a group takes the vector path only when its 16 inputs
// (after the sign vector, an exact sign flip) are all finite and normal or zero, not all zero, and their
// biased binary32 exponents satisfy 26 ≤ e_min, e_max ≤ 251 and e_max − e_min ≤ 25 (over the nonzero
// inputs). A normal x with biased exponent e is an integer multiple of 2^(e−150) and |x| < 2^(e−126). Every
// butterfly value is Σ ±x_i over a subset of the group, so it is an integer multiple k of 2^(e_min−150) with
// |k| < 16·2^(e_max−126)/2^(e_min−150) = 2^(28+e_max−e_min) ≤ 2^53: representable in binary64 (exponent far
// inside its normal range), so every binary64 add/subtract is exact, and so is the final · 1/4. The one
// rounding is the binary64 → binary32 conversion (DemoteTo, RNE). Its argument is the exact y_j, nonzero
// |y_j| ≥ 2^(e_min−152) ≥ 2^−126 and |y_j| < 2^(e_max−124) ≤ 2^127: a binary32 normal or zero, so neither
// gradual underflow (and so FTZ/DAZ settings of the FP environment) nor overflow (which Highway's
// SCALAR/EMU128 DemoteTo saturates instead of rounding to Inf) ever reaches that conversion.
// Signed zeros: with a nonzero input, rht16_group's exact zero sum is +0; IEEE add/subtract of exact values
// can give −0 (−0 − (+0) where the +0 came from a cancellation), so the kernel adds +0 (MulAdd(v, 1/4, +0)).
// Every other group (a NaN, an Inf, a subnormal, all zeros, |x| ≥ 2^125 or < 2^−101, a wider exponent
// spread) and the lanes beyond the last whole vector take rht16_group itself, per group.
// Then TransformOutput::bf16 rounds the binary32 to bfloat16 RNE in integer lanes: (u + 0x7fff + bit 16 of
// u) with the low 16 bits cleared, which is RNE for the finite values the vector path produces.
// tests/simd/simd_hadamard_test.cpp proves it against rht16_group on every target (every bf16 and f16
// pattern in every position over several fills, RapidCheck groups), and that the guard matters.
#if defined(MINIFLOAT_SIMD_HADAMARD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MINIFLOAT_SIMD_HADAMARD_INL_H_
#undef MINIFLOAT_SIMD_HADAMARD_INL_H_
#else
#define MINIFLOAT_SIMD_HADAMARD_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "minifloat/core/hadamard.hpp"

HWY_BEFORE_NAMESPACE();
namespace minifloat::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Largest exponent spread (biased e_max − e_min) the vector path takes (the proof above needs ≤ 25).
constexpr int kRht16MaxSpread = 25;

/// One stage of the Walsh–Hadamard butterflies: (v_i, v_{i+H}) → (v_i + v_{i+H}, v_i − v_{i+H}) for i & H = 0.
template <unsigned H, class V>
HWY_INLINE void Butterfly(V* v) {
#pragma GCC unroll 16
  for (unsigned i = 0; i < 16; ++i) {
    if ((i & H) != 0) continue;
    const V a = v[i], b = v[i + H];
    v[i] = hn::Add(a, b);
    v[i + H] = hn::Sub(a, b);
  }
}

/// The transform of `groups` adjacent groups: group g's element i at x[i·stride + g], its output at
/// y[i·stride + g] (x and y do not overlap; groups ≤ stride). Returns how many groups took rht16_group.
inline std::size_t Rht16Strided(const float* HWY_RESTRICT x, std::size_t stride, std::size_t groups,
                                std::uint32_t signs, std::uint32_t bf16, float* HWY_RESTRICT y) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::Rebind<std::uint32_t, decltype(dd)> du;
  const hn::Rebind<std::int32_t, decltype(dd)> di;
  using VD = hn::Vec<decltype(dd)>;
  const std::size_t N = hn::Lanes(dd);
  const BlockTransform t{.rht16 = true,
                         .signs = static_cast<std::uint16_t>(signs),
                         .output = bf16 != 0 ? TransformOutput::bf16 : TransformOutput::f32};
  const auto abs_mask = hn::Set(du, 0x7fffffffu), one = hn::Set(du, 1u), sign = hn::Set(du, 0x80000000u);
  const auto lo = hn::Set(di, 26), hi = hn::Set(di, 251), spread = hn::Set(di, kRht16MaxSpread);
  const VD quarter = hn::Set(dd, 0.25), pzero = hn::Zero(dd);
  std::size_t scalar = 0;
  std::size_t g = 0;
  HWY_ALIGN std::int32_t ok_lanes[hn::MaxLanes(di)];
  for (; g + N <= groups; g += N) {
    VD v[16];
    // the largest magnitude, and the smallest nonzero one (|x| − 1 as unsigned: a zero wraps to the top)
    auto max_mag = hn::Zero(du), min_mag = hn::Set(du, 0xffffffffu);
#pragma GCC unroll 16
    for (unsigned i = 0; i < 16; ++i) {
      auto u = hn::BitCast(du, hn::LoadU(df, x + i * stride + g));
      const auto mag = hn::And(u, abs_mask);
      max_mag = hn::Max(max_mag, mag);
      min_mag = hn::Min(min_mag, hn::Sub(mag, one));
      if (((signs >> i) & 1u) != 0) u = hn::Xor(u, sign);  // s_i · x_i: an exact sign flip
      v[i] = hn::PromoteTo(dd, hn::BitCast(df, u));
    }
    // biased exponents: e_max (255: a NaN or Inf), e_min of the nonzero inputs (0: a subnormal or all zero)
    const auto emax = hn::BitCast(di, hn::ShiftRight<23>(max_mag));
    const auto emin = hn::BitCast(di, hn::ShiftRight<23>(hn::Add(min_mag, one)));
    const auto ok = hn::And(hn::And(hn::Not(hn::Lt(emin, lo)), hn::Not(hn::Gt(emax, hi))),
                            hn::Not(hn::Gt(hn::Sub(emax, emin), spread)));
    Butterfly<1>(v);  // y_j = Σ_i (−1)^popcount(i&j) v_i, exact (see above)
    Butterfly<2>(v);
    Butterfly<4>(v);
    Butterfly<8>(v);
#pragma GCC unroll 16
    for (unsigned j = 0; j < 16; ++j) {
      auto r = hn::BitCast(du, hn::DemoteTo(df, hn::MulAdd(v[j], quarter, pzero)));  // the one rounding
      if (bf16 != 0)
        r = hn::And(hn::Add(hn::Add(r, hn::Set(du, 0x7fffu)), hn::And(hn::ShiftRight<16>(r), hn::Set(du, 1u))),
                    hn::Set(du, 0xffff0000u));
      hn::StoreU(hn::BitCast(df, r), df, y + j * stride + g);
    }
    if (hn::AllTrue(di, ok)) continue;
    hn::Store(hn::VecFromMask(di, ok), di, ok_lanes);
    for (std::size_t l = 0; l < N; ++l) {
      if (ok_lanes[l] != 0) continue;
      rht16_group(x + g + l, stride, t, y + g + l, stride);
      ++scalar;
    }
  }
  for (; g < groups; ++g) {
    rht16_group(x + g, stride, t, y + g, stride);
    ++scalar;
  }
  return scalar;
}

/// The transform of `groups` groups of 16 consecutive floats (x[16g + i] → y[16g + i]; x and y do not
/// overlap): chunks of groups transposed into Rht16Strided's layout and back. Returns its fallback count.
inline std::size_t Rht16Contiguous(const float* HWY_RESTRICT x, std::size_t groups, std::uint32_t signs,
                                   std::uint32_t bf16, float* HWY_RESTRICT y) {
  constexpr std::size_t kChunk = 64;  // groups per chunk: 2 × 4 KiB of scratch
  HWY_ALIGN float in[16 * kChunk];
  HWY_ALIGN float out[16 * kChunk];
  std::size_t scalar = 0;
  for (std::size_t g0 = 0; g0 < groups; g0 += kChunk) {
    const std::size_t n = groups - g0 < kChunk ? groups - g0 : kChunk;
    const float* src = x + 16 * g0;
    for (std::size_t g = 0; g < n; ++g)
      for (std::size_t i = 0; i < 16; ++i) in[i * kChunk + g] = src[16 * g + i];
    scalar += Rht16Strided(in, kChunk, n, signs, bf16, out);
    float* dst = y + 16 * g0;
    for (std::size_t g = 0; g < n; ++g)
      for (std::size_t i = 0; i < 16; ++i) dst[16 * g + i] = out[i * kChunk + g];
  }
  return scalar;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_HADAMARD_INL_H_
