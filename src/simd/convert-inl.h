// SPDX-License-Identifier: Apache-2.0
// simd/convert-inl.h: the Highway kernels of the array paths (one copy per SIMD target, through
// hwy/foreach_target.h; see simd/convert_simd.cpp). They hold no rounding rule of their own: every
// code and flag comes from a table that simd/convert_simd.cpp fills by calling the engine
// (core/convert.hpp), and the kernels only compute table indices, look up and store.
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
#include "simd/convert_simd.hpp"  // ArithParams

HWY_BEFORE_NAMESPACE();
namespace minifloat::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Table index of f32 bits `x` (see the file comment); scalar form used for tails.
inline std::uint32_t encode_key_scalar(std::uint32_t x, int drop) {
  const std::uint32_t low = x & ((std::uint32_t{1} << drop) - 1);
  return ((x >> drop) << 1) | (low != 0 ? 1u : 0u);
}

/// Loads of each source as f32 bit patterns; load(d, i, m) loads the m < Lanes remaining elements
/// (the others zero).
struct LoadF32 {
  const std::uint32_t* in;
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
    const auto r = hn::IfThenElse(hn::Eq(e, hn::Zero(d)), sub,
                                  hn::IfThenElse(hn::Eq(e, hn::Set(d, 0x1Fu)), special, normal));
    return hn::Or(r, sign);
  }
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D d, std::size_t i, std::size_t m) const {
    alignas(64) std::uint16_t buf[hn::MaxLanes(d)] = {};
    for (std::size_t k = 0; k < m; ++k) buf[k] = in[i + k];
    return LoadF16{buf}(d, 0);
  }
};

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


template <int kMode, class Load>  // kMode: 0 rne, 1 rna, 2 rtz, 3 rtp, 4 rtn, 5 rto (kModes order)
HWY_INLINE unsigned encode_arith(std::size_t n, std::uint8_t* HWY_RESTRICT out, const std::uint16_t* HWY_RESTRICT table,
                                 int drop, const ArithParams& p, Load load) {
  const hn::ScalableTag<std::uint32_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const hn::Rebind<std::uint8_t, decltype(du)> d8;
  const std::size_t N = hn::Lanes(du);
  using VI = hn::Vec<decltype(di)>;
  const VI one = hn::Set(di, 1), zero = hn::Zero(di);
  const VI min_normal = hn::Set(di, p.min_normal),
           sub_limit = hn::Set(di, p.sub_limit), exp_adj = hn::Set(di, p.exp_adj),
           drop_normal = hn::Set(di, 23 - p.mant_bits), max_shift = hn::Set(di, 25), sign_code = hn::Set(di, p.sign_code),
           fl_inexact = hn::Set(di, p.flags_inexact), fl_tiny = hn::Set(di, p.flags_tiny_inexact),
           max_code = hn::Set(di, p.max_code), max_f32 = hn::Set(di, 0x7F7FFFFF),
           ovf_code_pos = hn::Set(di, p.ovf_code[0]), ovf_code_neg = hn::Set(di, p.ovf_code[1]),
           ovf_flags_pos = hn::Set(di, p.ovf_flags[0]), ovf_flags_neg = hn::Set(di, p.ovf_flags[1]);
  const auto low_mask = hn::Set(du, (std::uint32_t{1} << drop) - 1);
  const int M = p.mant_bits;
  VI acc = zero;
  unsigned hard_flags = 0;
  // One vector of N lanes: easy lanes arithmetically, the others from the table.
  auto step = [&](hn::Vec<decltype(du)> xu, std::uint8_t* HWY_RESTRICT o, std::size_t m) {
    const VI x = hn::BitCast(di, xu);
    const VI a = hn::And(x, hn::Set(di, 0x7FFFFFFF));
    const auto neg = hn::Lt(x, zero);
    const VI ex = hn::ShiftRight<23>(a);
    const VI sig = hn::Or(hn::And(a, hn::Set(di, 0x7FFFFF)), hn::IfThenElseZero(hn::Gt(ex, zero), hn::Set(di, 0x800000)));
    const VI e = hn::Add(hn::Max(ex, one), exp_adj);
    const VI shift = hn::Min(hn::Add(drop_normal, hn::Max(hn::Sub(one, e), zero)), max_shift);
    const VI base = hn::ShiftLeftSame(hn::Sub(hn::Max(e, one), one), M);
    const VI trunc = hn::BitCast(di, hn::BitCast(du, sig) >> hn::BitCast(du, shift));
    const VI sm1 = hn::Sub(shift, one);
    const VI guard = hn::And(hn::BitCast(di, hn::BitCast(du, sig) >> hn::BitCast(du, sm1)), one);
    const VI low = hn::And(sig, hn::Sub(hn::BitCast(di, hn::BitCast(du, one) << hn::BitCast(du, sm1)), one));
    const VI sticky = hn::Min(low, one);
    const VI inexact = hn::Or(guard, sticky);
    const VI t = hn::Add(base, trunc);  // the truncated code
    // "Even" is the lsb of the code or of the significand (p.code_parity); they differ only for M = 0.
    const VI par = hn::And(p.code_parity ? t : trunc, one);
    VI inc = zero;
    if constexpr (kMode == 0) inc = hn::And(guard, hn::Or(sticky, par));
    if constexpr (kMode == 1) inc = guard;
    if constexpr (kMode == 3) inc = hn::IfThenZeroElse(neg, inexact);
    if constexpr (kMode == 4) inc = hn::IfThenElseZero(neg, inexact);
    if constexpr (kMode == 5) inc = hn::AndNot(par, inexact);  // to odd: up by one when inexact and even
    const VI mag = hn::Add(t, inc);
    // Beyond max finite (mag is the rounding with unbounded exponent): the engine's overflow result.
    const auto ovf = hn::Gt(mag, max_code);
    const VI code = hn::IfThenElse(ovf, hn::IfThenElse(neg, ovf_code_neg, ovf_code_pos),
                                   hn::Or(mag, hn::IfThenElseZero(neg, sign_code)));
    const auto lowzone = hn::Lt(a, min_normal);
    auto hard = hn::Or(hn::Gt(a, max_f32), hn::AndNot(hn::Lt(a, sub_limit), lowzone));
    if (p.sign_rule == 2) hard = hn::Or(hard, neg);
    if (p.sign_rule == 1) hard = hn::Or(hard, hn::And(neg, hn::Eq(mag, zero)));
    const VI fl = hn::IfThenElse(ovf, hn::IfThenElse(neg, ovf_flags_neg, ovf_flags_pos),
                                 hn::IfThenElseZero(hn::Eq(inexact, one), hn::IfThenElse(lowzone, fl_tiny, fl_inexact)));
    acc = hn::Or(acc, hn::IfThenZeroElse(hard, fl));
    if (HWY_LIKELY(m == N && hn::AllFalse(di, hard))) {
      hn::StoreU(hn::U8FromU32(hn::BitCast(du, code)), d8, o);
      return;
    }
    // Some lane is hard: look every lane up (keys as in encode_keys) and keep the hard ones, without
    // a branch per lane.
    alignas(64) std::uint32_t keys[hn::MaxLanes(du)], cs[hn::MaxLanes(du)], hs[hn::MaxLanes(du)];
    hn::Store(hn::Or(hn::ShiftLeft<1>(hn::ShiftRightSame(xu, drop)), hn::Min(hn::And(xu, low_mask), hn::Set(du, 1u))),
              du, keys);
    hn::Store(hn::BitCast(du, code), du, cs);
    hn::Store(hn::BitCast(du, hn::VecFromMask(di, hard)), du, hs);
    for (std::size_t j = 0; j < m; ++j) {
      const std::uint32_t entry = table[keys[j]];
      hard_flags |= entry & hs[j];
      o[j] = static_cast<std::uint8_t>((entry & hs[j]) | (cs[j] & ~hs[j]));
    }
  };
  std::size_t i = 0;
  for (; i + N <= n; i += N) step(load(du, i), out + i, N);
  if (i < n) step(load(du, i, n - i), out + i, n - i);  // tail lanes past n are zero and not stored
  // Tail lanes past n load as +0: easy and exact, so they add no flag.
  alignas(64) std::int32_t lanes[hn::MaxLanes(di)];
  hn::Store(acc, di, lanes);
  unsigned flags = hard_flags >> 8;
  for (std::size_t j = 0; j < N; ++j) flags |= static_cast<unsigned>(lanes[j]);
  return flags & 0xFF;
}

/// Encode through the arithmetic kernel when `p` enables it (max_finite >= 0), else the table.
/// `mode` is the index of the rounding mode in simd::kModes.
template <class Load>
HWY_INLINE unsigned encode_any(std::size_t n, std::uint8_t* out, const std::uint16_t* table, int drop,
                               const ArithParams& p, int mode, Load load) {
  if (p.max_finite >= 0) {
    switch (mode) {
      case 0: return encode_arith<0>(n, out, table, drop, p, load);
      case 1: return encode_arith<1>(n, out, table, drop, p, load);
      case 2: return encode_arith<2>(n, out, table, drop, p, load);
      case 3: return encode_arith<3>(n, out, table, drop, p, load);
      case 4: return encode_arith<4>(n, out, table, drop, p, load);
      case 5: return encode_arith<5>(n, out, table, drop, p, load);
      default: break;
    }
  }
  return encode_keys(n, out, table, drop, load);
}

inline unsigned EncodeF32(const std::uint32_t* in, std::uint8_t* out, std::size_t n, const std::uint16_t* table,
                          int drop, const ArithParams& p, int mode) {
  return encode_any(n, out, table, drop, p, mode, LoadF32{in});
}
inline unsigned EncodeBf16(const std::uint16_t* in, std::uint8_t* out, std::size_t n, const std::uint16_t* table,
                           int drop, const ArithParams& p, int mode) {
  return encode_any(n, out, table, drop, p, mode, LoadBf16{in});
}
inline unsigned EncodeF16(const std::uint16_t* in, std::uint8_t* out, std::size_t n, const std::uint16_t* table,
                          int drop, const ArithParams& p, int mode) {
  return encode_any(n, out, table, drop, p, mode, LoadF16{in});
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

/// Decode n codes of ≤ 8 bits through `values` (256 f32 bit patterns from the engine) and `flags`
/// (256 flag words, read only when `any_flags`). Scalar lookups (see encode_keys on gathers).
/// Returns false, having written an unspecified prefix, when a code has a bit set in `bad_bits`
/// (the caller then reports the index).
inline bool DecodeU8(const std::uint8_t* HWY_RESTRICT in, std::uint32_t* HWY_RESTRICT out, std::size_t n,
                     const std::uint32_t* HWY_RESTRICT values, const std::uint32_t* HWY_RESTRICT flag_table,
                     bool any_flags, std::uint32_t bad_bits, unsigned& flags_out) {
  unsigned any = 0, flags = 0;
  if (any_flags) {
    for (std::size_t i = 0; i < n; ++i) {
      any |= in[i];
      out[i] = values[in[i]];
      flags |= flag_table[in[i]];
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      any |= in[i];
      out[i] = values[in[i]];
    }
  }
  flags_out = flags & 0xFF;
  return (any & bad_bits) == 0;
}

/// Philox4x32-10 (Salmon et al., SC'11; Random123's philox.h constants and round order) for the
/// blocks with counters (c0 + j, c1, c2, c3), j = 0..n−1, key (k0, k1), in vectors of blocks:
/// words[4·j + w] = word w of block j. Precondition: c0 + n − 1 does not wrap (the caller splits).
/// Compared word by word with Random123 by simd.SimdPhilox.* on every target.
inline void PhiloxBlocks(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3, std::uint32_t k0,
                         std::uint32_t k1, std::size_t n, std::uint32_t* HWY_RESTRICT words) {
  std::size_t j = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<std::uint32_t> du;
  const hn::Repartition<std::uint64_t, decltype(du)> d64;
  const std::size_t N = hn::Lanes(du);
  using V = hn::Vec<decltype(du)>;
  const V m0 = hn::Set(du, 0xD2511F53u), m1 = hn::Set(du, 0xCD9E8D57u);
  // hi and lo halves of the 32×32-bit products of every lane (MulEven on even and odd lanes).
  auto mulhilo = [&](V a, V b, V& hi, V& lo) {
    const auto pe = hn::MulEven(a, b);
    const auto po = hn::MulEven(hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(d64, a))),
                                hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(d64, b))));
    hi = hn::OddEven(hn::BitCast(du, po), hn::BitCast(du, hn::ShiftRight<32>(pe)));
    lo = hn::Mul(a, b);
  };
  for (; j + N <= n; j += N) {
    V x0 = hn::Add(hn::Set(du, c0 + static_cast<std::uint32_t>(j)), hn::Iota(du, 0));
    V x1 = hn::Set(du, c1), x2 = hn::Set(du, c2), x3 = hn::Set(du, c3);
    std::uint32_t a = k0, b = k1;
    for (int r = 0; r < 10; ++r) {
      if (r > 0) {
        a += 0x9E3779B9u;
        b += 0xBB67AE85u;
      }
      V hi0, lo0, hi1, lo1;
      mulhilo(m0, x0, hi0, lo0);
      mulhilo(m1, x2, hi1, lo1);
      const auto y0 = hn::Xor(hn::Xor(hi1, x1), hn::Set(du, a));
      const auto y2 = hn::Xor(hn::Xor(hi0, x3), hn::Set(du, b));
      x0 = y0;
      x1 = lo1;
      x2 = y2;
      x3 = lo0;
    }
    hn::StoreInterleaved4(x0, x1, x2, x3, du, words + 4 * j);  // block-major: words[4k + w]
  }
#endif
  for (; j < n; ++j) {  // tail (and the HWY_SCALAR target): the same rounds on scalars
    std::uint32_t x0 = c0 + static_cast<std::uint32_t>(j), x1 = c1, x2 = c2, x3 = c3, a = k0, b = k1;
    for (int r = 0; r < 10; ++r) {
      if (r > 0) {
        a += 0x9E3779B9u;
        b += 0xBB67AE85u;
      }
      const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * x0, p1 = std::uint64_t{0xCD9E8D57u} * x2;
      const auto y0 = static_cast<std::uint32_t>(p1 >> 32) ^ x1 ^ a;
      const auto y2 = static_cast<std::uint32_t>(p0 >> 32) ^ x3 ^ b;
      x1 = static_cast<std::uint32_t>(p1);
      x3 = static_cast<std::uint32_t>(p0);
      x0 = y0;
      x2 = y2;
    }
    words[4 * j] = x0;
    words[4 * j + 1] = x1;
    words[4 * j + 2] = x2;
    words[4 * j + 3] = x3;
  }
}

}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_CONVERT_INL_H_
