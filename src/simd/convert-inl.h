// SPDX-License-Identifier: Apache-2.0
// simd/convert-inl.h: the Highway kernels of the array paths (one copy per SIMD target, through
// hwy/foreach_target.h; see simd/convert_simd.cpp). They hold no rounding rule of their own: every
// code and flag comes from a table that simd/convert_simd.cpp fills by calling the engine
// (core/convert.hpp), and the kernels only compute table indices, look up and store. The exception
// is the arithmetic rne kernel of simd/encode_rne-inl.h (included below), for the combinations of
// EncodeTable::rne (simd/convert_simd.hpp); it falls back to encode_keys chunk by chunk.
//
// Encode key (f32 bits x, target with M mantissa bits, drop = 21 − M):
//     key = (x >> drop) << 1 | (x & (2^drop − 1) != 0)          (M + 12 bits)
//   = sign, the 8 exponent bits, the top M + 2 mantissa bits and one sticky bit. Every deterministic
//   rounding (rne rna rtz rtp rtn rto) of x at quantum 2^q reads only the bits at or above 2^(q−1)
//   and whether anything below is nonzero; for a target of ≤ 8 bits q − 1 is never below the
//   (M+2)-th mantissa bit of a normal f32, nor (for e8m0fnu, the only named ≤ 8-bit format that
//   reaches f32's subnormals) below bit 21 of a subnormal one. NaN keeps a nonzero key mantissa
//   (sticky), Inf and zero keep theirs. So x and the key's representative
//     rep(key) = (key >> 1) << drop | (key & 1)
//   give the same code and flags, and the table holds the engine's result for rep(key).
//   This is an argument, not a proof: tests/simd/ and the long sweep compare against the engine.
#if defined(MINIFLOAT_SIMD_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MINIFLOAT_SIMD_CONVERT_INL_H_
#undef MINIFLOAT_SIMD_CONVERT_INL_H_
#else
#define MINIFLOAT_SIMD_CONVERT_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "hwy/cache_control.h"
#include "minifloat/core/random.hpp"
#include "simd/convert_simd.hpp"
#include "simd/philox-inl.h"

HWY_BEFORE_NAMESPACE();
namespace minifloat::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Encode n f32 bit patterns through `table` (entry = code | flags << 8, one u16 per key).
/// Keys are computed in vectors, a block at a time, and looked up with scalar loads: on the AMD
/// Zen cores of the development machines AVX2 `vpgatherdd` ran at 0.65× the speed of scalar
/// lookups (bench_simd, same run), so no gather is used. Returns the OR of the entries' flag bytes.
template <class Load>
HWY_INLINE unsigned encode_keys(std::size_t n, std::uint8_t* HWY_RESTRICT out, const std::uint16_t* HWY_RESTRICT table,
                                int drop, Load load) {
  const hn::ScalableTag<std::uint32_t> du;
  const std::size_t N = hn::Lanes(du);
  constexpr std::size_t kBlock = 1024;
  alignas(64) std::uint32_t keys[kBlock + hn::MaxLanes(du)];
  const auto low_mask = hn::Set(du, (std::uint32_t{1} << drop) - 1);
  const auto one = hn::Set(du, 1u);
  unsigned acc = 0;
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t len = n - start < kBlock ? n - start : kBlock;
    std::size_t k = 0;
    for (; k + N <= len; k += N) {
      const auto x = load(du, start + k);
      const auto sticky = hn::Min(hn::And(x, low_mask), one);
      hn::Store(hn::Or(hn::ShiftLeft<1>(hn::ShiftRightSame(x, drop)), sticky), du, keys + k);
    }
    if (k < len) {
      const auto x = load(du, start + k, len - k);
      const auto sticky = hn::Min(hn::And(x, low_mask), one);
      hn::Store(hn::Or(hn::ShiftLeft<1>(hn::ShiftRightSame(x, drop)), sticky), du, keys + k);
    }
    std::uint8_t* HWY_RESTRICT o = out + start;
    for (std::size_t j = 0; j < len; ++j) {
      const unsigned e = table[keys[j]];
      o[j] = static_cast<std::uint8_t>(e);
      acc |= e;
    }
  }
  return (acc >> 8) & 0xFF;
}

/// Loads of each source as f32 bit patterns; load(d, i, m) loads the m < Lanes remaining elements
/// (the others zero).
struct LoadF32 {
  const std::uint32_t* in;
  const void* at(std::size_t i) const { return in + i; }  ///< for software prefetch
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D d, std::size_t i) const {
    return hn::LoadU(d, in + i);
  }
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D d, std::size_t i, std::size_t m) const {
    alignas(64) std::uint32_t buf[hn::MaxLanes(d)] = {};
    for (std::size_t k = 0; k < m; ++k) buf[k] = in[i + k];
    return hn::Load(d, buf);
  }
};
struct LoadBf16 {  // bf16 bits b → f32 bits b << 16 (exact)
  const std::uint16_t* in;
  const void* at(std::size_t i) const { return in + i; }
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D d, std::size_t i) const {
    const hn::Rebind<std::uint16_t, D> d16;
    return hn::ShiftLeft<16>(hn::PromoteTo(d, hn::LoadU(d16, in + i)));
  }
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D d, std::size_t i, std::size_t m) const {
    alignas(64) std::uint32_t buf[hn::MaxLanes(d)] = {};
    for (std::size_t k = 0; k < m; ++k) buf[k] = std::uint32_t{in[i + k]} << 16;
    return hn::Load(d, buf);
  }
};
struct LoadF16 {  // binary16 bits → binary32 bits, exact (integer ops; no F16C, no DAZ dependence)
  const std::uint16_t* in;
  const void* at(std::size_t i) const { return in + i; }
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D d, std::size_t i) const {
    // Highway 1.0.3's emulated PromoteTo(f16 → f32) turns ±Inf/NaN into finite 2^16 values on
    // non-F16C targets (caught by simd.Formats/SimdEncodeExhaustive on SSE4/SSSE3/SCALAR), so the
    // widening is spelled out: normal → exponent + 112; 31 → 255; subnormal m·2^−24 (exact float mul).
    const hn::Rebind<std::uint16_t, D> d16;
    const hn::Rebind<float, D> df;
    const hn::RebindToSigned<D> di;
    const auto h = hn::PromoteTo(d, hn::LoadU(d16, in + i));
    const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(d, 0x8000u)));
    const auto e = hn::And(hn::ShiftRight<10>(h), hn::Set(d, 0x1Fu));
    const auto m = hn::And(h, hn::Set(d, 0x3FFu));
    const auto mag = hn::ShiftLeft<13>(hn::And(h, hn::Set(d, 0x7FFFu)));
    const auto normal = hn::Add(mag, hn::Set(d, std::uint32_t{112} << 23));
    const auto special = hn::Or(mag, hn::Set(d, 0x7F800000u));
    const auto sub = hn::BitCast(d, hn::Mul(hn::ConvertTo(df, hn::BitCast(di, m)), hn::Set(df, 0x1p-24f)));
    const auto r =
        hn::IfThenElse(hn::Eq(e, hn::Zero(d)), sub, hn::IfThenElse(hn::Eq(e, hn::Set(d, 0x1Fu)), special, normal));
    return hn::Or(r, sign);
  }
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D d, std::size_t i, std::size_t m) const {
    alignas(64) std::uint16_t buf[hn::MaxLanes(d)] = {};
    for (std::size_t k = 0; k < m; ++k) buf[k] = in[i + k];
    return LoadF16{buf}(d, 0);
  }
};

}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#include "simd/encode_rne-inl.h"  // the arithmetic rne kernel (encode_rne_any), after encode_keys and the loads

HWY_BEFORE_NAMESPACE();
namespace minifloat::simd::HWY_NAMESPACE {

inline unsigned EncodeRneF32(const EncodeTable& t, const std::uint32_t* in, std::uint8_t* out, std::size_t n) {
  return encode_rne_any(n, out, t, LoadF32{in});
}
inline unsigned EncodeRneBf16(const EncodeTable& t, const std::uint16_t* in, std::uint8_t* out, std::size_t n) {
  return encode_rne_any(n, out, t, LoadBf16{in});
}
inline unsigned EncodeRneF16(const EncodeTable& t, const std::uint16_t* in, std::uint8_t* out, std::size_t n) {
  return encode_rne_any(n, out, t, LoadF16{in});
}

inline unsigned EncodeF32(const std::uint32_t* in, std::uint8_t* out, std::size_t n, const std::uint16_t* table,
                          int drop) {
  return encode_keys(n, out, table, drop, LoadF32{in});
}
inline unsigned EncodeBf16(const std::uint16_t* in, std::uint8_t* out, std::size_t n, const std::uint16_t* table,
                           int drop) {
  return encode_keys(n, out, table, drop, LoadBf16{in});
}
inline unsigned EncodeF16(const std::uint16_t* in, std::uint8_t* out, std::size_t n, const std::uint16_t* table,
                          int drop) {
  return encode_keys(n, out, table, drop, LoadF16{in});
}

/// Widen n binary16 bit patterns to binary32 bit patterns, exactly (LoadF16); the SR table path
/// (simd/sr_table.hpp) keys on binary32 bits.
inline void WidenF16(const std::uint16_t* HWY_RESTRICT in, std::uint32_t* HWY_RESTRICT out, std::size_t n) {
  const hn::ScalableTag<std::uint32_t> du;
  const std::size_t N = hn::Lanes(du);
  const LoadF16 load{in};
  std::size_t k = 0;
  for (; k + N <= n; k += N) hn::StoreU(load(du, k), du, out + k);
  if (k < n) {
    alignas(64) std::uint32_t buf[hn::MaxLanes(du)];
    hn::Store(load(du, k, n - k), du, buf);
    for (std::size_t j = 0; k + j < n; ++j) out[k + j] = buf[j];
  }
}

/// The lanes of one vector of codes (as u32) decoded by the arithmetic of DecodeArith
/// (simd/convert_simd.hpp), kSpecials special runs, kSub: the format has subnormals, kSymmetric: every
/// run's negative value is its positive one with the sign bit (then the runs are applied before the
/// sign is ORed in, and no per-lane sign select is needed).
template <class D, int kSpecials, bool kSub, bool kSymmetric>
struct DecodeLanes {
  using V = hn::Vec<D>;
  using DI = hn::RebindToSigned<D>;
  using DF = hn::Rebind<float, D>;
  using VI = hn::Vec<DI>;
  V mag_mask, sign_mask, adjust;
  VI sub_limit;
  hn::Vec<DF> scale;
  int sign_shift, mant_shift;
  // special run k: (mag − lo) ^ 2^31 < width ^ 2^31 as signed lanes (the unsigned range test in one compare)
  V lo[kSpecials > 0 ? kSpecials : 1], pos[kSpecials > 0 ? kSpecials : 1], neg[kSpecials > 0 ? kSpecials : 1];
  VI width[kSpecials > 0 ? kSpecials : 1];

  HWY_INLINE explicit DecodeLanes(D d, const DecodeArith& a)
      : mag_mask(hn::Set(d, a.mag_mask)),
        sign_mask(hn::Set(d, a.sign_mask)),
        adjust(hn::Set(d, a.exp_adjust)),
        sub_limit(hn::Set(DI(), static_cast<std::int32_t>(a.sub_limit))),
        scale(hn::Set(DF(), a.sub_scale)),
        sign_shift(static_cast<int>(a.sign_shift)),
        mant_shift(static_cast<int>(a.mant_shift)) {
    for (int k = 0; k < kSpecials; ++k) {
      lo[k] = hn::Set(d, a.lo[k] ^ 0x80000000u);
      width[k] = hn::Set(DI(), static_cast<std::int32_t>(a.width[k] ^ 0x80000000u));
      pos[k] = hn::Set(d, a.pos[k]);
      neg[k] = hn::Set(d, a.neg[k]);
    }
  }
  HWY_INLINE V operator()(D d, V c) const {
    const DI di;
    const V s = hn::And(hn::ShiftLeftSame(c, sign_shift), sign_mask);
    const V mag = hn::And(c, mag_mask);
    V r = hn::Add(hn::ShiftLeftSame(mag, mant_shift), adjust);
    if constexpr (kSub) {
      const VI mi = hn::BitCast(di, mag);
      const V sub = hn::BitCast(d, hn::Mul(hn::ConvertTo(DF(), mi), scale));
      r = hn::IfThenElse(hn::RebindMask(d, hn::Lt(mi, sub_limit)), sub, r);
    }
    if constexpr (kSymmetric) {
      for (int k = 0; k < kSpecials; ++k)
        r = hn::IfThenElse(hn::RebindMask(d, hn::Lt(hn::BitCast(di, hn::Sub(mag, lo[k])), width[k])), pos[k], r);
      return hn::Or(r, s);
    }
    r = hn::Or(r, s);
    if constexpr (kSpecials > 0) {
      // A full-lane mask from a compare: Highway 1.0.3's IfNegativeThenElse on SSSE3 blends with the
      // sign bit alone as a mask and picks the wrong side (caught by simd.SimdDecode.* on SSSE3).
      const auto negative = hn::RebindMask(d, hn::Lt(hn::BitCast(di, s), hn::Zero(di)));
      for (int k = 0; k < kSpecials; ++k) {
        const auto in_run = hn::RebindMask(d, hn::Lt(hn::BitCast(di, hn::Sub(mag, lo[k])), width[k]));
        r = hn::IfThenElse(in_run, hn::IfThenElse(negative, neg[k], pos[k]), r);
      }
    }
    return r;
  }
};

/// Arithmetic decode of n codes (DecodeArith) with plain or non-temporal stores. Returns false when a
/// code has a bit set in `bad_bits` (only checked when kCheck: formats of fewer than 8 bits; every code
/// is still decoded, the output is then unspecified).
template <int kSpecials, bool kSub, bool kSymmetric, bool kCheck>
HWY_NOINLINE bool decode_arith(const std::uint8_t* HWY_RESTRICT in, std::uint32_t* HWY_RESTRICT out, std::size_t n,
                               const DecodeArith& a, std::uint32_t bad_bits, bool stream) {
  const hn::ScalableTag<std::uint32_t> du;
  const hn::Rebind<std::uint8_t, decltype(du)> d8;
  using V = hn::Vec<decltype(du)>;
  const std::size_t N = hn::Lanes(du);
  const DecodeLanes<decltype(du), kSpecials, kSub, kSymmetric> lanes(du, a);
  V acc = hn::Zero(du);
  // m < N codes at in[i..] through a zero-padded buffer (code 0 is valid in every format)
  const auto partial = [&](std::size_t i, std::size_t m) {
    alignas(64) std::uint8_t cb[hn::MaxLanes(du)] = {};
    alignas(64) std::uint32_t ob[hn::MaxLanes(du)];
    for (std::size_t k = 0; k < m; ++k) cb[k] = in[i + k];
    const V c = hn::PromoteTo(du, hn::LoadU(d8, cb));
    if constexpr (kCheck) acc = hn::Or(acc, c);
    hn::Store(lanes(du, c), du, ob);
    for (std::size_t k = 0; k < m; ++k) out[i + k] = ob[k];
  };
  std::size_t i = 0;
  // two vectors per step from i on, each written by store(v, p)
  const auto body = [&](auto store) HWY_ATTR {
    for (; i + 2 * N <= n; i += 2 * N) {
      const V c0 = hn::PromoteTo(du, hn::LoadU(d8, in + i));
      const V c1 = hn::PromoteTo(du, hn::LoadU(d8, in + i + N));
      if constexpr (kCheck) acc = hn::Or(acc, hn::Or(c0, c1));
      store(lanes(du, c0), out + i);
      store(lanes(du, c1), out + i + N);
    }
  };
  if (stream) {
    // plain stores up to the first vector-aligned output element, then Stream (needs alignment)
    const std::size_t bytes = N * sizeof(std::uint32_t);
    const std::size_t head = ((bytes - reinterpret_cast<std::uintptr_t>(out) % bytes) % bytes) / sizeof(std::uint32_t);
    i = head < n ? head : n;
    if (i > 0) partial(0, i);
    body([&](V v, std::uint32_t* p) HWY_ATTR { hn::Stream(v, du, p); });
    hwy::FlushStream();
  } else {
    body([&](V v, std::uint32_t* p) HWY_ATTR { hn::StoreU(v, du, p); });
  }
  for (; i + N <= n; i += N) {  // at most one vector (plain store: it may be unaligned)
    const V c = hn::PromoteTo(du, hn::LoadU(d8, in + i));
    if constexpr (kCheck) acc = hn::Or(acc, c);
    hn::StoreU(lanes(du, c), du, out + i);
  }
  if (i < n) partial(i, n - i);
  alignas(64) std::uint32_t ab[hn::MaxLanes(du)];
  hn::Store(acc, du, ab);
  std::uint32_t any = 0;
  for (std::size_t k = 0; k < N; ++k) any |= ab[k];
  return (any & bad_bits) == 0;
}

template <bool kCheck>
HWY_INLINE bool decode_variant(const std::uint8_t* HWY_RESTRICT in, std::uint32_t* HWY_RESTRICT out, std::size_t n,
                               const DecodeArith& a, std::uint32_t bad_bits, bool stream) {
  const bool sub = a.subnormals;
  if (a.specials == 0)
    return sub ? decode_arith<0, true, true, kCheck>(in, out, n, a, bad_bits, stream)
               : decode_arith<0, false, true, kCheck>(in, out, n, a, bad_bits, stream);
  if (a.specials == 1) {
    if (a.symmetric)
      return sub ? decode_arith<1, true, true, kCheck>(in, out, n, a, bad_bits, stream)
                 : decode_arith<1, false, true, kCheck>(in, out, n, a, bad_bits, stream);
    return sub ? decode_arith<1, true, false, kCheck>(in, out, n, a, bad_bits, stream)
               : decode_arith<1, false, false, kCheck>(in, out, n, a, bad_bits, stream);
  }
  if (a.symmetric)
    return sub ? decode_arith<2, true, true, kCheck>(in, out, n, a, bad_bits, stream)
               : decode_arith<2, false, true, kCheck>(in, out, n, a, bad_bits, stream);
  return sub ? decode_arith<2, true, false, kCheck>(in, out, n, a, bad_bits, stream)
             : decode_arith<2, false, false, kCheck>(in, out, n, a, bad_bits, stream);
}

/// Decode n codes of ≤ 8 bits to f32 bit patterns by the arithmetic of DecodeArith in vector lanes
/// (no per-element loads beyond the codes), streaming stores when `stream`. Returns false, having
/// written an unspecified output, when a code has a bit set in `bad_bits` (the caller then rescans
/// with the engine and reports the index).
inline bool DecodeU8(const std::uint8_t* HWY_RESTRICT in, std::uint32_t* HWY_RESTRICT out, std::size_t n,
                     const DecodeArith& arith, std::uint32_t bad_bits, bool stream) {
  if (bad_bits == 0) return decode_variant<false>(in, out, n, arith, bad_bits, stream);
  return decode_variant<true>(in, out, n, arith, bad_bits, stream);
}

/// Philox4x32-10 (Salmon et al., SC'11; Random123's philox.h constants and round order) for the
/// blocks with counters (c0 + j, c1, c2, c3), j = 0..n−1, key (k0, k1), in vectors of blocks:
/// words[4·j + w] = word w of block j. Precondition: c0 + n − 1 does not wrap (the caller splits).
/// Compared word by word with Random123 by simd.SimdPhilox.* on every target.
inline void PhiloxBlocks(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3, std::uint32_t k0,
                         std::uint32_t k1, std::size_t n, std::uint32_t* HWY_RESTRICT words) {
  std::size_t j = 0;
#if HWY_TARGET != HWY_SCALAR
  // Two vectors of blocks per step through simd/philox-inl.h's PhiloxLanes2 (the fused SR kernel's generator).
  const hn::ScalableTag<std::uint32_t> du;
  const std::size_t N = hn::Lanes(du);
  using V = hn::Vec<decltype(du)>;
  std::uint32_t ka[10], kb[10];
  PhiloxRoundKeys(k0, k1, ka, kb);
  for (; j + 2 * N <= n; j += 2 * N) {
    V o[8];
    PhiloxLanes2(du, c0 + static_cast<std::uint32_t>(j), c1, c2, c3, ka, kb, o);
    hn::StoreInterleaved4(o[0], o[1], o[2], o[3], du, words + 4 * j);  // block-major: words[4k + w]
    hn::StoreInterleaved4(o[4], o[5], o[6], o[7], du, words + 4 * (j + N));
  }
#endif
  for (; j < n; ++j) {  // tail (and the HWY_SCALAR target): the engine's Random123 generator, one block at a time
    const PhiloxBlock b = philox4x32_10(c0 + static_cast<std::uint32_t>(j), c1, c2, c3, k0, k1);
    for (int w = 0; w < 4; ++w) words[4 * j + w] = b.w[w];
  }
}

}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_CONVERT_INL_H_
