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
/// Philox4x32-10 (Random123 round order and constants) of the blocks (c0 + lane, c1, c2, c3) and,
/// interleaved with them, of (c0 + Lanes + lane, c1, c2, c3): two independent chains, because one
/// chain is latency bound (each round waits on the previous round's multiplies; perf of bench_sr).
/// `ka`/`kb` hold the 10 round keys (PhiloxRoundKeys), precomputed per call.
/// o[0..3] = words 0..3 of the first vector of blocks, o[4..7] of the second.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void PhiloxLanes2(D du, std::uint32_t c0, V x1, V x2, V x3, const std::uint32_t* ka,
                             const std::uint32_t* kb, V* o) {
  const hn::Repartition<std::uint64_t, D> d64;
  const V m0 = hn::Set(du, 0xD2511F53u), m1 = hn::Set(du, 0xCD9E8D57u);
  // hi and lo halves of the 32×32-bit products of every lane; m is a broadcast constant, so its
  // odd lanes equal its even ones and only `a` is shifted for the odd products.
  auto mulhilo = [&](V m, V a, V& hi, V& lo) {
    const auto pe = hn::MulEven(a, m);
    const auto po = hn::MulEven(hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(d64, a))), m);
    hi = hn::OddEven(hn::BitCast(du, po), hn::BitCast(du, hn::ShiftRight<32>(pe)));
    lo = hn::Mul(a, m);
  };
  const std::size_t N = hn::Lanes(du);
  V a0 = hn::Add(hn::Set(du, c0), hn::Iota(du, 0)), a1 = x1, a2 = x2, a3 = x3;
  V b0 = hn::Add(a0, hn::Set(du, static_cast<std::uint32_t>(N))), b1 = x1, b2 = x2, b3 = x3;
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
    const V ka_r = hn::Set(du, ka[r]), kb_r = hn::Set(du, kb[r]);
    V ahi0, alo0, ahi1, alo1, bhi0, blo0, bhi1, blo1;
    mulhilo(m0, a0, ahi0, alo0);
    mulhilo(m0, b0, bhi0, blo0);
    mulhilo(m1, a2, ahi1, alo1);
    mulhilo(m1, b2, bhi1, blo1);
    a0 = hn::Xor(hn::Xor(ahi1, a1), ka_r);
    b0 = hn::Xor(hn::Xor(bhi1, b1), ka_r);
    a2 = hn::Xor(hn::Xor(ahi0, a3), kb_r);
    b2 = hn::Xor(hn::Xor(bhi0, b3), kb_r);
    a1 = alo1;
    b1 = blo1;
    a3 = alo0;
    b3 = blo0;
  }
  o[0] = a0;
  o[1] = a1;
  o[2] = a2;
  o[3] = a3;
  o[4] = b0;
  o[5] = b1;
  o[6] = b2;
  o[7] = b3;
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_PHILOX_INL_H_
