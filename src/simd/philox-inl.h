// SPDX-License-Identifier: Apache-2.0
// simd/philox-inl.h: Philox4x32-10 in Highway vector lanes (one copy per SIMD target, included by
// simd/convert-inl.h for fill_sr_bits and by simd/sr-inl.h for the fused SR kernel). Salmon et al.,
// SC'11; Random123's philox.h constants and round order. Compared word by word with Random123 by
// simd.SimdPhilox.* and, through the SR kernels, with the engine's sr_bits on every target.
#if defined(MINIFLOAT_SIMD_PHILOX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MINIFLOAT_SIMD_PHILOX_INL_H_
#undef MINIFLOAT_SIMD_PHILOX_INL_H_
#else
#define MINIFLOAT_SIMD_PHILOX_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace minifloat::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The 10 round keys of key (k0, k1): ka[r] = k0 + r·0x9E3779B9, kb[r] = k1 + r·0xBB67AE85 (Random123's
/// Weyl constants), as PhiloxLanes2 reads them.
HWY_INLINE void PhiloxRoundKeys(std::uint32_t k0, std::uint32_t k1, std::uint32_t* ka, std::uint32_t* kb) {
  for (int r = 0; r < 10; ++r) {
    ka[r] = k0 + static_cast<std::uint32_t>(r) * 0x9E3779B9u;
    kb[r] = k1 + static_cast<std::uint32_t>(r) * 0xBB67AE85u;
  }
}

#if HWY_TARGET != HWY_SCALAR
/// Philox4x32-10 (Random123 round order and constants) of the 2·Lanes blocks (c0 + b, c1, c2, c3),
/// b < 2·Lanes (c0 + b mod 2^32). o[0..3] = words 0..3 of blocks [0, Lanes) (lane b), o[4..7] of blocks
/// [Lanes, 2·Lanes). `ka`/`kb` hold the 10 round keys (PhiloxRoundKeys), precomputed per call.
/// The rounds run on 64-bit lanes, one block per lane with its words in the low 32 bits: the 32×32
/// product is one MulEven, whose low half is already the next round's word (the high 32 bits of a lane
/// are never read by a multiply or the output) and whose high half is one shift away; four quarters of
/// Lanes / 2 blocks are independent chains (one chain waits on its multiplies' latency; perf of bench_sr).
template <class D, class V = hn::Vec<D>>
HWY_INLINE void PhiloxLanes2(D du, std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3,
                             const std::uint32_t* ka, const std::uint32_t* kb, V* o) {
  const hn::Repartition<std::uint64_t, D> d64;
  using V64 = hn::Vec<decltype(d64)>;
  const std::size_t H = hn::Lanes(d64);
  const V m0 = hn::Set(du, 0xD2511F53u), m1 = hn::Set(du, 0xCD9E8D57u);
  V64 w0[4], w1[4], w2[4], w3[4];
  for (std::size_t q = 0; q < 4; ++q) {
    w0[q] = hn::Add(hn::Set(d64, c0 + static_cast<std::uint32_t>(q * H)), hn::Iota(d64, 0));
    w1[q] = hn::Set(d64, c1);
    w2[q] = hn::Set(d64, c2);
    w3[q] = hn::Set(d64, c3);
  }
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
    const V64 ka_r = hn::Set(d64, ka[r]), kb_r = hn::Set(d64, kb[r]);
#pragma GCC unroll 4
    for (std::size_t q = 0; q < 4; ++q) {
      const V64 p0 = hn::MulEven(hn::BitCast(du, w0[q]), m0);  // R0 · M0
      const V64 p1 = hn::MulEven(hn::BitCast(du, w2[q]), m1);  // R2 · M1
      w0[q] = hn::Xor3(hn::ShiftRight<32>(p1), w1[q], ka_r);   // hi(R2 · M1) ^ R1 ^ key0
      w2[q] = hn::Xor3(hn::ShiftRight<32>(p0), w3[q], kb_r);   // hi(R0 · M0) ^ R3 ^ key1
      w1[q] = p1;                                              // lo(R2 · M1)
      w3[q] = p0;                                              // lo(R0 · M0)
    }
  }
  const V64* w[4] = {w0, w1, w2, w3};
  for (int k = 0; k < 4; ++k) {
    o[k] = hn::ConcatEven(du, hn::BitCast(du, w[k][1]), hn::BitCast(du, w[k][0]));
    o[4 + k] = hn::ConcatEven(du, hn::BitCast(du, w[k][3]), hn::BitCast(du, w[k][2]));
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_PHILOX_INL_H_
