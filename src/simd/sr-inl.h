// SPDX-License-Identifier: Apache-2.0
// simd/sr-inl.h: the fused stochastic-rounding kernel (one copy per SIMD target, through
// hwy/foreach_target.h; see simd/sr_simd.cpp). Philox4x32-10 words are generated in registers for
// a vector of blocks and the round-up decision is made in the lanes, with no random-bits array.
// The kernel holds no rounding rule of its own: it writes, per element, an index into the word
// table of simd/sr_table.hpp (SrTable::word4, the engine's down / up / exact results per key), and
// the decision is the engine's `rounds_up` (round_pack.hpp) rewritten for lanes of 32 bits:
//
//   R = the significand bits below the quantum (s of them; x's exponent gives s in the lane:
//       s = shift + max(0, emin_biased − biased exponent)), frac = R · 2^(64−s), c.low = 0.
//   exact (64-bit word u = hi·2^32 + lo):  up ⟺ u < frac ⟺ (hi, lo) < (Fh, Fl) lexicographically,
//       Fh = high word of frac, Fl = low word (0 when s ≤ 32).
//   A/B/C (32-bit word, r = its low n bits, m = 2^n − 1, t = frac >> (64 − n) ≤ m):
//       A: t + r ≥ 2^n ⟺ r > m − t;
//       B: (frac >> (63 − n)) + 2r + 1 ≥ 2^(n+1) ⟺ r > m − t or (g and r = m − t), g = the bit of
//          frac just below t;
//       C: t' = t + (g and (sticky or t odd)) (round-to-nearest-even of frac at n bits), then A's
//          test with t': r > m − t or (bump and r = m − t).
//   equal: up ⟺ bit 0 of the word.
// Index = key · 4 + (R = 0 ? 2 : up ? (tininess corner and the finer decision down ? 3 : 1) : 0),
// key = x >> shift; the finer decision is the same formula with s − 1 and R mod 2^(s−1). Keys the engine must take element by
// element carry a marker in word4 (simd/sr_table.hpp); the caller finishes those.
// Stream layout (random.hpp sr_bits): exact: element g reads words 2(g mod 2), +1 of block g/2;
// A/B/C/equal: word g mod 4 of block g/4. The kernel therefore starts at an element index that is a
// multiple of 2 (4) and handles whole vectors of blocks that do not wrap counter word c0; the
// caller runs the rest through fill_sr_bits and the table loop.
// This is an argument, not a proof: tests/simd/simd_sr_test.cpp compares with the engine.
#if defined(MINIFLOAT_SIMD_SR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MINIFLOAT_SIMD_SR_INL_H_
#undef MINIFLOAT_SIMD_SR_INL_H_
#else
#define MINIFLOAT_SIMD_SR_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "simd/philox-inl.h"
#include "simd/sr_table.hpp"

HWY_BEFORE_NAMESPACE();
namespace minifloat::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
/// Per-lane R, s and key of binary32 bits x (see the file comment).
template <class D, class V = hn::Vec<D>>
struct SrLanes {
  D du;
  V implicit, mant_all, one, emin_b, shift_v, k23, k31, corner_exp, top_mask;
  explicit SrLanes(D d, const SrLaneParams& p)
      : du(d),
        implicit(hn::Set(d, 0x800000u)),
        mant_all(hn::Set(d, 0xFFFFFFu)),
        one(hn::Set(d, 1u)),
        emin_b(hn::Set(d, static_cast<std::uint32_t>(p.emin_biased < 0 ? 0 : p.emin_biased))),
        shift_v(hn::Set(d, static_cast<std::uint32_t>(p.shift))),
        k23(hn::Set(d, 23u)),
        k31(hn::Set(d, 31u)),
        corner_exp(hn::Set(d, static_cast<std::uint32_t>(p.emin_biased - 1))),
        top_mask(hn::Set(d, ((std::uint32_t{1} << p.mantissa_bits) - 1) << (23 - p.mantissa_bits))) {}
  /// s (≥ shift, unsigned), R.
  HWY_INLINE void cut(V x, V& s, V& R) const {
    const V biased = hn::And(hn::ShiftRight<23>(x), hn::Set(du, 0xFFu));
    // max(0, emin_b − biased) without signed lanes: emin_b − min(biased, emin_b).
    const V ext = hn::Sub(emin_b, hn::Min(biased, emin_b));
    s = hn::Add(shift_v, ext);
    const V sc = hn::Min(s, k31);
    const V mask = hn::IfThenElse(hn::Gt(s, k23), mant_all, hn::Sub(one << sc, one));
    const V sig = hn::IfThenElse(hn::Eq(biased, hn::Zero(du)), x, hn::Or(x, implicit));
    R = hn::And(sig, mask);
  }
  /// The tininess corner (simd/sr_table.cpp): biased exponent emin_biased − 1, top M mantissa bits ones.
  HWY_INLINE hn::Mask<D> corner(V x) const {
    const V biased = hn::And(hn::ShiftRight<23>(x), hn::Set(du, 0xFFu));
    return hn::And(hn::Eq(biased, corner_exp), hn::Eq(hn::And(x, top_mask), top_mask));
  }
  /// up: the decision; tiny_up: up lanes whose finer decision (corner only) is down → word 3.
  HWY_INLINE V index(V x, V R, V up, V tiny_up) const {
    const V key4 = hn::ShiftLeft<2>(hn::ShiftRightSame(x, static_cast<int>(hn::GetLane(shift_v))));
    const V sel = hn::IfThenElse(hn::Eq(R, hn::Zero(du)), hn::Set(du, 2u),
                                 hn::Or(hn::And(up, one), hn::And(tiny_up, hn::Set(du, 2u))));
    return hn::Or(key4, sel);
  }
};

/// exact: up ⟺ 64-bit word (hi, lo) < frac = R·2^(64−s). Returns all-ones / zero lanes.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V UpExact(D du, V s, V R, V hi, V lo) {
  const V k32 = hn::Set(du, 32u), k31 = hn::Set(du, 31u);
  const auto small = hn::Lt(s, hn::Set(du, 33u));  // frac's low word is 0
  // s ≤ 32: Fh = R << (32 − s); s > 32: Fh = R >> (s − 32), Fl = R << (64 − s) (counts clamped).
  const V up_count = hn::Min(hn::Sub(k32, hn::Min(s, k32)), k31);
  const V down_count = hn::Min(hn::Sub(s, hn::Min(s, k32)), k31);
  const V lo_count = hn::Min(hn::Sub(hn::Set(du, 64u), hn::Min(s, hn::Set(du, 64u))), k31);
  const V Fh = hn::IfThenElse(small, R << up_count, R >> down_count);
  const V Fl = hn::IfThenZeroElse(small, R << lo_count);
  const auto up = hn::Or(hn::Lt(hi, Fh), hn::And(hn::Eq(hi, Fh), hn::Lt(lo, Fl)));
  return hn::VecFromMask(du, up);
}

/// A/B/C/equal with the 32-bit word w (variant and n as in SrLaneParams).
template <int Variant, class D, class V = hn::Vec<D>>
HWY_INLINE V UpShort(D du, V s, V R, V w, int n) {
  const V one = hn::Set(du, 1u);
  if constexpr (Variant == 4) return hn::VecFromMask(du, hn::Eq(hn::And(w, one), one));
  const V k31 = hn::Set(du, 31u);
  const V nv = hn::Set(du, static_cast<std::uint32_t>(n));
  const V m = hn::Set(du, n >= 32 ? 0xFFFFFFFFu : ((std::uint32_t{1} << n) - 1));
  const V r = hn::And(w, m);
  // t = top n bits of frac: s ≥ n: R >> (s − n); s < n: R << (n − s).
  const auto ge = hn::Not(hn::Lt(s, nv));
  const V dn = hn::Min(hn::Sub(s, hn::Min(s, nv)), k31);    // s − n (clamped)
  const V upc = hn::Min(hn::Sub(nv, hn::Min(s, nv)), k31);  // n − s (clamped)
  const V t = hn::IfThenElse(ge, R >> dn, R << upc);
  const V lim = hn::Sub(m, t);
  auto up = hn::Gt(r, lim);
  if constexpr (Variant == 2 || Variant == 3) {
    // g = bit (s − n − 1) of R when s > n (else 0); sticky = R's bits below it.
    const auto gt = hn::Gt(s, nv);
    const V gpos = hn::Min(hn::Sub(dn, hn::Min(dn, one)), k31);  // s − n − 1 where s > n
    const V gbit = hn::And(R >> gpos, one);
    auto bump = hn::And(gt, hn::Eq(gbit, one));
    if constexpr (Variant == 3) {
      const V below = hn::And(R, hn::Sub(one << gpos, one));
      const auto sticky = hn::Ne(below, hn::Zero(du));
      const auto odd = hn::Eq(hn::And(t, one), one);
      bump = hn::And(bump, hn::Or(sticky, odd));
    }
    up = hn::Or(up, hn::And(bump, hn::Eq(r, lim)));
  }
  return hn::VecFromMask(du, up);
}

/// word4[i] for each lane's index i: the 4 bytes at word4 + i (word4 ends with one spare entry), low half.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Word4(D du, const std::uint16_t* HWY_RESTRICT word4, V i) {
  const hn::RebindToSigned<D> di;
  const V w = hn::GatherOffset(du, reinterpret_cast<const std::uint32_t*>(word4), hn::BitCast(di, hn::Add(i, i)));
  return hn::And(w, hn::Set(du, 0xFFFFu));
}

template <int Variant>
HWY_INLINE std::size_t SrIndexImpl(const std::uint32_t* HWY_RESTRICT x, std::size_t n, const SrLaneParams& p,
                                   const std::uint16_t* HWY_RESTRICT word4, std::uint32_t* HWY_RESTRICT idx,
                                   std::uint8_t* HWY_RESTRICT out, std::uint32_t* HWY_RESTRICT words_or) {
  const hn::ScalableTag<std::uint32_t> du;
  using V = hn::Vec<decltype(du)>;
  const V low8 = hn::Set(du, 0xFFu);
  V acc = hn::Zero(du);  // the OR of every element's word (its flags, kEngineMark)
  const std::size_t N = hn::Lanes(du);
  const SrLanes<decltype(du)> L(du, p);
  constexpr std::size_t E = Variant == 0 ? 2 : 4;  // elements per Philox block
  std::size_t i = 0;
  std::uint32_t c0 = p.c0;
  std::uint32_t ka[10], kb[10];
  PhiloxRoundKeys(p.k0, p.k1, ka, kb);
  // Two vectors of blocks per step (PhiloxLanes2): 2·N·E elements.
  for (; i + 2 * E * N <= n; i += 2 * E * N, c0 += static_cast<std::uint32_t>(2 * N)) {
    V w[8];
    PhiloxLanes2(du, c0, p.c1, p.c2, p.c3, ka, kb, w);
    for (std::size_t h = 0; h < 2; ++h) {
      const std::size_t at = i + h * E * N;
      const V* wh = w + 4 * h;
      // One element lane group: x, its word(s) → index. The tininess corner's finer decision (s − 1
      // bits, R mod 2^(s−1)) runs only when a lane of the vector is in the corner.
      auto one_group = [&](V xv, V hi, V lo) HWY_ATTR __attribute__((always_inline)) {
        V sv, Rv;
        L.cut(xv, sv, Rv);
        auto decide = [&](V s_, V R_) HWY_ATTR __attribute__((always_inline)) {
          if constexpr (Variant == 0) {
            return UpExact(du, s_, R_, hi, lo);
          } else {
            (void)lo;
            return UpShort<Variant>(du, s_, R_, hi, p.sr_bits);
          }
        };
        const V up = decide(sv, Rv);
        V tiny_up = hn::Zero(du);
        const auto c = L.corner(xv);
        if (HWY_UNLIKELY(!hn::AllFalse(du, c))) {
          const V s1 = hn::Sub(sv, L.one);
          const V R1 = hn::And(Rv, hn::Sub(L.one << hn::Min(s1, L.k31), L.one));
          // rounds_up is false for an exact cut (R1 = 0), whatever the variant (equal reads no cut).
          const V up1 = hn::IfThenZeroElse(hn::Eq(R1, hn::Zero(du)), decide(s1, R1));
          tiny_up = hn::AndNot(up1, hn::And(up, hn::VecFromMask(du, c)));
        }
        return L.index(xv, Rv, up, tiny_up);
      };
      // the words of the indices: codes (low bytes) to out in element order, everything ORed into acc
      if constexpr (Variant == 0) {
        V xe, xo;
        hn::LoadInterleaved2(du, x + at, xe, xo);
        const V ie = one_group(xe, wh[1], wh[0]);
        const V io = one_group(xo, wh[3], wh[2]);
        hn::StoreInterleaved2(ie, io, du, idx + at);
        const V we = Word4(du, word4, ie), wo = Word4(du, word4, io);
        acc = hn::Or(acc, hn::Or(we, wo));
        const hn::Rebind<std::uint16_t, decltype(du)> d16;  // lane l: bytes (code of 2l, code of 2l + 1)
        const hn::RebindToSigned<decltype(du)> di;
        const V c = hn::Or(hn::And(we, low8), hn::ShiftLeft<8>(hn::And(wo, low8)));
        hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, c)), d16, reinterpret_cast<std::uint16_t*>(out + at));
      } else {
        V a0, a1, a2, a3;
        hn::LoadInterleaved4(du, x + at, a0, a1, a2, a3);
        const V i0 = one_group(a0, wh[0], wh[0]);
        const V i1 = one_group(a1, wh[1], wh[1]);
        const V i2 = one_group(a2, wh[2], wh[2]);
        const V i3 = one_group(a3, wh[3], wh[3]);
        hn::StoreInterleaved4(i0, i1, i2, i3, du, idx + at);
        const V w0 = Word4(du, word4, i0), w1 = Word4(du, word4, i1), w2 = Word4(du, word4, i2),
                w3 = Word4(du, word4, i3);
        acc = hn::Or(acc, hn::Or(hn::Or(w0, w1), hn::Or(w2, w3)));
        const V c = hn::Or(hn::Or(hn::And(w0, low8), hn::ShiftLeft<8>(hn::And(w1, low8))),  // lane l: codes 4l..4l + 3
                           hn::Or(hn::ShiftLeft<16>(hn::And(w2, low8)), hn::ShiftLeft<24>(w3)));
        hn::StoreU(c, du, reinterpret_cast<std::uint32_t*>(out + at));
      }
    }
  }
  alignas(64) std::uint32_t lanes[hn::MaxLanes(du)];
  hn::Store(acc, du, lanes);
  for (std::size_t l = 0; l < N; ++l) *words_or |= lanes[l];
  return i;
}
#endif  // HWY_TARGET != HWY_SCALAR

/// For the first m elements of x (m = a multiple of 2·Lanes·(elements per Philox block), ≤ n): idx[j] their
/// word4 indices, out[j] the low byte (the code) of word4[idx[j]], *words_or the OR of those words; returns
/// m. Preconditions: the first element's index is a multiple of 2 (exact) or 4 (others), the n elements'
/// blocks do not wrap c0, and word4 holds one entry past the last index. The scalar target returns 0.
inline std::size_t SrIndex(const std::uint32_t* HWY_RESTRICT x, std::size_t n, const SrLaneParams& p,
                           const std::uint16_t* HWY_RESTRICT word4, std::uint32_t* HWY_RESTRICT idx,
                           std::uint8_t* HWY_RESTRICT out, std::uint32_t* HWY_RESTRICT words_or) {
  *words_or = 0;
#if HWY_TARGET == HWY_SCALAR
  (void)x;
  (void)n;
  (void)p;
  (void)word4;
  (void)idx;
  (void)out;
  return 0;
#else
  switch (p.variant) {
    case 0: return SrIndexImpl<0>(x, n, p, word4, idx, out, words_or);
    case 1: return SrIndexImpl<1>(x, n, p, word4, idx, out, words_or);
    case 2: return SrIndexImpl<2>(x, n, p, word4, idx, out, words_or);
    case 3: return SrIndexImpl<3>(x, n, p, word4, idx, out, words_or);
    case 4: return SrIndexImpl<4>(x, n, p, word4, idx, out, words_or);
  }
  return 0;
#endif
}

}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_SR_INL_H_
