// SPDX-License-Identifier: Apache-2.0
// simd/hadamard-inl.h: the 16-point random Hadamard transform (core/hadamard.hpp, rht16_group) on binary32
// inputs, vectorised across groups (one copy per SIMD target, through hwy/foreach_target.h; see
// simd/hadamard_simd.cpp). Each lane holds one group; element i of the lanes' groups is one vector, so the
// four butterfly stages of the Walsh–Hadamard transform are vertical binary64 adds and subtracts. Contiguous
// groups (Rht16Contiguous) whose whole chunk passes the guard below are instead transformed one group at a
// time in registers (the same butterflies, those below the vector width as a lane permutation and an exact
// sign flip: the same exact sums), which saves the transposes into and out of that layout.
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
#include <cstring>

#include "hwy/cache_control.h"
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

/// Whether every group of the `n` floats at x (whole groups) passes Rht16Strided's guard, by a sufficient test on
/// all of them at once: no zero, NaN, Inf or subnormal, and over the chunk 26 ≤ e_min, e_max ≤ 251 and
/// e_max − e_min ≤ 25 (each group's exponents lie within the chunk's, and none of its inputs is zero).
HWY_INLINE bool rht16_chunk_exact(const float* HWY_RESTRICT x, std::size_t n) {
  const hn::ScalableTag<std::uint32_t> du;
  const std::size_t N = hn::Lanes(du);
  const auto abs_mask = hn::Set(du, 0x7fffffffu);
  auto vmax = hn::Zero(du), vmin = hn::Set(du, 0xffffffffu);
  std::size_t k = 0;
  for (; k + N <= n; k += N) {
    const auto mag = hn::And(hn::BitCast(du, hn::LoadU(hn::RebindToFloat<decltype(du)>(), x + k)), abs_mask);
    vmax = hn::Max(vmax, mag);
    vmin = hn::Min(vmin, mag);
  }
  std::uint32_t mx = hn::GetLane(hn::MaxOfLanes(du, vmax)), mn = hn::GetLane(hn::MinOfLanes(du, vmin));
  for (; k < n; ++k) {
    std::uint32_t b;
    std::memcpy(&b, x + k, sizeof b);
    b &= 0x7fffffffu;
    mx = b > mx ? b : mx;
    mn = b < mn ? b : mn;
  }
  const int emax = static_cast<int>(mx >> 23), emin = static_cast<int>(mn >> 23);
  return emin >= 26 && emax <= 251 && emax - emin <= kRht16MaxSpread;
}

/// One group of 16 consecutive floats x[0..16) → y[0..16) that passes the guard, in registers: the group as
/// 16 / N binary64 vectors (N lanes each; element i in vector i / N, lane i % N), the butterfly stages of
/// Rht16Strided — between vectors for H ≥ N, within a vector for H < N: lane i takes v_(i^H) + (±v_i), − where
/// bit H of i is set (an exact sign flip, so the same exact sums) — then its one rounding and, for bf16, the
/// bfloat16 RNE. in_sign[k] flips the signs of floats k·N..k·N+N−1 (the sign vector), swap/neg the in-vector
/// stages' lane permutations (i → i^H) and sign masks (bit H of i set).
template <class DD, class DF, class DU32, class DI64, class Idx>
HWY_INLINE void rht16_group_in_registers(DD dd, DF df, DU32 du, DI64 d64, const float* HWY_RESTRICT x,
                                         const hn::Vec<DU32>* in_sign, const Idx* swap, const hn::Vec<DI64>* neg,
                                         std::uint32_t bf16, float* HWY_RESTRICT y) {
  constexpr std::size_t N = hn::MaxLanes(DD()), K = 16 / N;
  using VD = hn::Vec<DD>;
  VD v[K];
#pragma GCC unroll 16
  for (std::size_t k = 0; k < K; ++k)
    v[k] = hn::PromoteTo(dd, hn::BitCast(df, hn::Xor(hn::BitCast(du, hn::LoadU(df, x + k * N)), in_sign[k])));
#pragma GCC unroll 4
  for (std::size_t h = 8; h >= 1; h /= 2) {
    if (h >= N) {
      const std::size_t step = h / N;
#pragma GCC unroll 16
      for (std::size_t k = 0; k < K; ++k) {
        if ((k & step) != 0) continue;
        const VD a = v[k], b = v[k + step];
        v[k] = hn::Add(a, b);
        v[k + step] = hn::Sub(a, b);
      }
    } else {
      const std::size_t stage = h == 4 ? 0 : h == 2 ? 1 : 2;  // neg/swap index of H = 4, 2, 1
#pragma GCC unroll 16
      for (std::size_t k = 0; k < K; ++k)
        v[k] = hn::Add(hn::TableLookupLanes(v[k], swap[stage]),
                       hn::BitCast(dd, hn::Xor(hn::BitCast(d64, v[k]), neg[stage])));
    }
  }
  const VD quarter = hn::Set(dd, 0.25), pzero = hn::Zero(dd);
#pragma GCC unroll 16
  for (std::size_t k = 0; k < K; ++k) {
    auto r = hn::BitCast(du, hn::DemoteTo(df, hn::MulAdd(v[k], quarter, pzero)));  // the one rounding
    if (bf16 != 0)
      r = hn::And(hn::Add(hn::Add(r, hn::Set(du, 0x7fffu)), hn::And(hn::ShiftRight<16>(r), hn::Set(du, 1u))),
                  hn::Set(du, 0xffff0000u));
    hn::StoreU(hn::BitCast(df, r), df, y + k * N);
  }
}

/// The transform of `groups` groups of 16 consecutive floats (x[16g + i] → y[16g + i]; x and y do not
/// overlap), in chunks of kChunk groups: a chunk that rht16_chunk_exact passes takes rht16_group_in_registers
/// group by group; any other chunk is transposed into Rht16Strided's layout and back (its guard per group, its
/// fallback). Returns the fallback count.
inline std::size_t Rht16Contiguous(const float* HWY_RESTRICT x, std::size_t groups, std::uint32_t signs,
                                   std::uint32_t bf16, float* HWY_RESTRICT y) {
  constexpr std::size_t kChunk = 64;  // groups per chunk: 2 × 4 KiB of scratch
  // software prefetch 12 KiB ahead, a line per group (the hardware streamer stops at each 4 KiB page; the
  // first read of a chunk, its guard, waited on memory for most of the transform's time without it)
  constexpr std::size_t kAheadGroups = 192;
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::Rebind<std::uint32_t, decltype(dd)> du;
  const hn::Rebind<std::int64_t, decltype(dd)> d64;
  constexpr std::size_t N = hn::MaxLanes(dd);
  static_assert(16 % N == 0, "a group is whole vectors");
  hn::Vec<decltype(du)> in_sign[16 / N];
  for (std::size_t k = 0; k < 16 / N; ++k) {
    HWY_ALIGN std::uint32_t m[N];
    for (std::size_t l = 0; l < N; ++l) m[l] = ((signs >> (k * N + l)) & 1u) != 0 ? 0x80000000u : 0u;
    in_sign[k] = hn::Load(du, m);
  }
  // the in-vector stages H = 4, 2, 1 (those below N are used): lane permutation i → i^H, sign mask on bit H of i
  decltype(hn::IndicesFromVec(dd, hn::Zero(d64))) swap[3] = {};
  hn::Vec<decltype(d64)> neg[3];
  for (std::size_t stage = 0; stage < 3; ++stage) {
    const std::int64_t h = std::int64_t{4} >> stage;
    const auto iota = hn::Iota(d64, 0);
    if (static_cast<std::size_t>(h) < N) swap[stage] = hn::IndicesFromVec(dd, hn::Xor(iota, hn::Set(d64, h)));
    neg[stage] = hn::IfThenElseZero(hn::Ne(hn::And(iota, hn::Set(d64, h)), hn::Zero(d64)),
                                    hn::Set(d64, static_cast<std::int64_t>(std::uint64_t{1} << 63)));
  }
  HWY_ALIGN float in[16 * kChunk];
  HWY_ALIGN float out[16 * kChunk];
  std::size_t scalar = 0;
  for (std::size_t g0 = 0; g0 < groups; g0 += kChunk) {
    const std::size_t n = groups - g0 < kChunk ? groups - g0 : kChunk;
    const float* src = x + 16 * g0;
    float* dst = y + 16 * g0;
    // one group is one 64-byte line: group g asks for the line of group g + kAheadGroups (within x)
    auto prefetch = [&](std::size_t g) HWY_ATTR {
      if (g0 + g + kAheadGroups < groups) hwy::Prefetch(src + 16 * (g + kAheadGroups));
    };
    if (rht16_chunk_exact(src, 16 * n)) {
      for (std::size_t g = 0; g < n; ++g) {
        prefetch(g);
        rht16_group_in_registers(dd, df, du, d64, src + 16 * g, in_sign, swap, neg, bf16, dst + 16 * g);
      }
      continue;
    }
    for (std::size_t g = 0; g < n; ++g) {
      prefetch(g);
      for (std::size_t i = 0; i < 16; ++i) in[i * kChunk + g] = src[16 * g + i];
    }
    scalar += Rht16Strided(in, kChunk, n, signs, bf16, out);
    for (std::size_t g = 0; g < n; ++g)
      for (std::size_t i = 0; i < 16; ++i) dst[16 * g + i] = out[i * kChunk + g];
  }
  return scalar;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_HADAMARD_INL_H_
