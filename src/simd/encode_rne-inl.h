// SPDX-License-Identifier: Apache-2.0
// simd/encode_rne-inl.h: the arithmetic rne encode kernel, specialised at compile time per target
// format (RneFormat below), compiled once per Highway target with simd/convert-inl.h (included from
// there). It replaces the table lookup of encode_keys for the combinations that
// simd/convert_simd.cpp's rne_kernel_for accepts (the rule is stated at EncodeTable::rne in
// simd/convert_simd.hpp); the codes of finite overflow and of negatives into e8m0fnu, and their
// flags, come from the engine's table of the same combination, never from a rule of this file.
//
// Per lane (binary32 bits x, a = |x| bits; target with M mantissa bits, bias B, emin = 1 − B):
//   normal results, |x| ≥ 2^emin:   code = (a + (2^(22−M) − 1) + bit_(23−M)(a) − (127 − B)·2^23) >> (23 − M)
//     (the integer rounding bias: round half to even at the M-th mantissa bit; the carry into the
//     exponent field is the binade step), then min(code, overflow code) (finite overflow);
//   subnormal results, |x| < 2^emin: code = bits(fl32(|x| + 2^k)) − bits(2^k), k = emin − M + 23, so
//     that ulp(2^k) is the target's subnormal quantum: the FPU's rne does the rounding (needs MXCSR
//     round-to-nearest without FTZ/DAZ: checked by the caller, convert_simd.cpp);
//   sign: the sign bit of x moved to the target's sign bit;
//   e8m0fnu (M = 0, ties up): code = (a + 2^22) >> 23 = the rounded biased exponent; negatives take the
//     engine's code (NaN 0xff, or |x| under UnsignedNegative::magnitude).
// Flags (the engine's: IEEE 754 with tininess after rounding, as MPFR), reduced once per call:
//   inexact   = a lane has a nonzero bit below the target's quantum: (OR of a) & (2^(23−M) − 1) != 0 covers
//               every lane whose binade is normal in the target (a subnormal-result lane with those bits
//               set is inexact too; the others are covered by underflow); accumulated only until it is
//               known for the call (1 vector OR per 8 lanes, then none);
//   underflow = a lane with |x| < T = 2^emin·(1 − 2^−(M+2)) (tiny after rounding) and
//               fl32(|x| + 2^k) − 2^k ≠ |x|: each chunk keeps min(a); while underflow is unknown for the
//               call, a chunk with min(a) < T is re-read from L1 by tiny_inexact (once underflow is
//               found, never again);
//   overflow  = max(a) ≥ the smallest |x| the engine's table flags overflow → the table's overflow flags;
//   e8m0fnu negatives (UnsignedNegative::nan) → the table's flags of −1.
// Per-chunk fallback (kRneChunk elements, L1-hot): a chunk holding a NaN or ±Inf (max(a) ≥ 0x7f800000)
// — and for e8m0fnu a zero or f32 subnormal (min(a) < 2^−126) — is encoded again by encode_keys (the
// table path), which overwrites its codes and gives its flags.
// Cost on AVX2 once inexact and underflow are known (GCC 12, objdump of the loop): 14 vector
// instructions per 8 lanes for e4m3fn/e5m2/e2m1fn (load+and, max, min, 2 shifts, and, 2 adds, min,
// fadd, sub, sub, blendvps), 12 for e8m0fnu, plus per 32 lanes 3 packs for the codes, 3 for the signs,
// and, or, vpermd and one 32-byte store.
#if defined(MINIFLOAT_SIMD_ENCODE_RNE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MINIFLOAT_SIMD_ENCODE_RNE_INL_H_
#undef MINIFLOAT_SIMD_ENCODE_RNE_INL_H_
#else
#define MINIFLOAT_SIMD_ENCODE_RNE_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "simd/convert_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace minifloat::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The compile-time description of a target of the rne kernel, taken from core/format.hpp's Format data.
struct RneFormat {
  int mantissa_bits;
  int bias;
  std::uint32_t sign_bit;  ///< the code's sign bit (0: unsigned, e8m0fnu)
};
constexpr RneFormat rne_format(Format f) {
  return {f.mantissa_bits, f.bias, f.is_signed ? std::uint32_t{1} << (f.bits - 1) : 0u};
}
inline constexpr RneFormat kRneE4m3fn = rne_format(formats::e4m3fn), kRneE5m2 = rne_format(formats::e5m2),
                           kRneE2m1fn = rne_format(formats::e2m1fn), kRneE8m0fnu = rne_format(formats::e8m0fnu),
                           kRneE2m3fn = rne_format(formats::e2m3fn), kRneE3m2fn = rne_format(formats::e3m2fn);
/// The position of F's sign bit in its code (7 for 8-bit codes, 5 for FP6, 3 for FP4).
template <const RneFormat& F>
inline constexpr int kSignPos = F.sign_bit == 0x80   ? 7
                                : F.sign_bit == 0x20 ? 5
                                                     : 3;
inline constexpr std::size_t kRneChunk = 1024;
inline constexpr std::size_t kRneAhead = 2048;

/// The code magnitude of |x| bits `a` (a < 0x7f800000, finite) for a signed target F (not e8m0fnu): the
/// rounding of the file comment, normal results by the integer rounding bias, subnormal results by the
/// FPU's rne on |x| + 2^k, finite overflow clamped to `max_code` (EncodeTable::rne.max_code). Shared by
/// encode_rne below and the block quantizer's kernel (simd/quant-inl.h).
template <const RneFormat& F, class DI>
struct RneMagnitude {
  static_assert(F.sign_bit != 0, "e8m0fnu has its own lane rule in encode_rne");
  static constexpr int M = F.mantissa_bits, S = 23 - M, emin = 1 - F.bias;
  static constexpr std::uint32_t kMinNormal = static_cast<std::uint32_t>(emin + 127) << 23;
  static constexpr std::uint32_t kMagic = static_cast<std::uint32_t>(emin - M + 23 + 127) << 23;
  static constexpr std::uint32_t kBias = ((1u << (S - 1)) - 1) - (static_cast<std::uint32_t>(127 - F.bias) << 23);
  using VI = hn::Vec<DI>;
  DI di;
  VI one, bias, max_code, min_normal, magic_i;
  HWY_INLINE RneMagnitude(DI d, std::uint32_t max_c)
      : di(d),
        one(hn::Set(d, 1)),
        bias(hn::Set(d, static_cast<std::int32_t>(kBias))),
        max_code(hn::Set(d, static_cast<std::int32_t>(max_c))),
        min_normal(hn::Set(d, static_cast<std::int32_t>(kMinNormal))),
        magic_i(hn::Set(d, static_cast<std::int32_t>(kMagic))) {}
  HWY_INLINE VI operator()(VI a) const {
    const hn::RebindToFloat<DI> df;
    const VI cn = normal(a);
    const auto sum = hn::Add(hn::BitCast(df, a), hn::BitCast(df, magic_i));
    const VI cs = hn::Sub(hn::BitCast(di, sum), magic_i);
    // a < 2^emin: by the sign of a − 2^emin (blendvps; no compare). Highway 1.0.3's SSSE3
    // IfNegativeThenElse reads whole lanes, not the sign (simd.Formats/SimdEncodeExhaustive caught it).
#if HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
    return hn::IfThenElse(hn::Lt(a, min_normal), cs, hn::Min(cn, max_code));
#else
    return hn::IfNegativeThenElse(hn::Sub(a, min_normal), cs, hn::Min(cn, max_code));
#endif
  }
  /// The normal rounding alone (the integer rounding bias), unclamped: the code of a lane known to be
  /// normal in the target and below the overflow bound (2^emin ≤ |x| < EncodeTable::rne.ovf_min), where it
  /// is at most the largest finite code.
  HWY_INLINE VI normal(VI a) const {
    return hn::ShiftRight<S>(hn::Add(hn::Add(a, bias), hn::And(hn::ShiftRight<S>(a), one)));
  }
};

/// A signed target's code: magnitude `mag` with the sign bit of the binary32 bits `x` moved to F's sign bit.
template <const RneFormat& F, class DI>
HWY_INLINE hn::Vec<DI> with_sign(DI di, hn::Vec<DI> mag, hn::Vec<DI> x) {
  static_assert(F.sign_bit == 0x80 || F.sign_bit == 0x20 || F.sign_bit == 0x8);
  constexpr int kShift = 31 - kSignPos<F>;
  return hn::Or(mag, hn::And(hn::ShiftRight<kShift>(x), hn::Set(di, static_cast<std::int32_t>(F.sign_bit))));
}

/// Stores 4 vectors of i32 codes (each in [0, 255]; for signed targets without the sign, which comes
/// from the sign bits of the binary32 inputs x0..x3) as 4·Lanes bytes.
template <const RneFormat& F, class DI, class V>
HWY_INLINE void store_codes4(DI di, V c0, V c1, V c2, V c3, V x0, V x1, V x2, V x3, std::uint8_t* HWY_RESTRICT o) {
#if HWY_TARGET == HWY_AVX2
  (void)di;
  // packs (in 128-bit halves) → dwords c0[0-3] c1[0-3] c2[0-3] c3[0-3] c0[4-7] c1[4-7] c2[4-7] c3[4-7]
  __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(c0.raw, c1.raw), _mm256_packs_epi32(c2.raw, c3.raw));
  if constexpr (F.sign_bit != 0) {
    // The same packs of x with signed saturation: bit 7 of each byte is the sign of x (a negative
    // binary32 saturates to −128 unless it is a NaN with a payload ≥ 0x7f8000, and NaN chunks fall back).
    const __m256i sb = _mm256_packs_epi16(_mm256_packs_epi32(x0.raw, x1.raw), _mm256_packs_epi32(x2.raw, x3.raw));
    const __m256i mask = _mm256_set1_epi8(static_cast<char>(F.sign_bit));
    b = _mm256_or_si256(b, _mm256_and_si256(F.sign_bit == 0x80 ? sb : _mm256_srli_epi16(sb, 7 - kSignPos<F>), mask));
  } else {
    (void)x0, (void)x1, (void)x2, (void)x3;
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o),
                      _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
#else
  const hn::Rebind<std::uint8_t, DI> d8;
  const std::size_t N = hn::Lanes(di);
  const V* const cs[4] = {&c0, &c1, &c2, &c3};
  const V* const xs[4] = {&x0, &x1, &x2, &x3};
  for (std::size_t v = 0; v < 4; ++v) {
    V c = *cs[v];
    if constexpr (F.sign_bit != 0) c = with_sign<F>(di, c, *xs[v]);
    hn::StoreU(hn::DemoteTo(d8, c), d8, o + v * N);
  }
#endif
}

/// The kernel for target F: n elements loaded by `load` (f32 bits), codes to out; returns the OR
/// of the flags. `table`/`drop` are the combination's EncodeTable, for the per-chunk fallback.
template <const RneFormat& F, class Load>
HWY_INLINE unsigned encode_rne(std::size_t n, std::uint8_t* HWY_RESTRICT out, const std::uint16_t* HWY_RESTRICT table,
                               int drop, const RneKernel& c, Load load) {
  constexpr int M = F.mantissa_bits, S = 23 - M;
  constexpr bool kE8m0 = F.sign_bit == 0;
  constexpr int emin = 1 - F.bias;
  // 2^emin·(1 − 2^−(M+2)) = 2^(emin−1)·1.1…1 (M+1 ones): below it a value is tiny after rounding
  constexpr std::uint32_t kTiny =
      (static_cast<std::uint32_t>(emin - 1 + 127) << 23) | (((1u << (M + 1)) - 1) << (22 - M));
  constexpr std::uint32_t kMagic = static_cast<std::uint32_t>(emin - M + 23 + 127) << 23;
  static_assert(kE8m0 || F.sign_bit == 0x80 || F.sign_bit == 0x20 || F.sign_bit == 0x8);
  const hn::ScalableTag<std::uint32_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const hn::RebindToFloat<decltype(du)> df;
  using VI = hn::Vec<decltype(di)>;
  const std::size_t N = hn::Lanes(di);
  const VI abs_mask = hn::Set(di, 0x7fffffff), max_code = hn::Set(di, static_cast<std::int32_t>(c.max_code)),
           tiny = hn::Set(di, static_cast<std::int32_t>(kTiny)),
           magic_i = hn::Set(di, static_cast<std::int32_t>(kMagic)), neg_all = hn::Set(di, c.neg_or != 0 ? -1 : 0);
  const auto magic_f = hn::BitCast(df, magic_i);
  const auto magnitude = [&] {
    if constexpr (kE8m0) return 0;
    else return RneMagnitude<F, decltype(di)>(di, c.max_code);
  }();
  // Call accumulators (merged from chunks that did not fall back) and the fallback's flags.
  VI call_or = hn::Zero(di), call_max = hn::Zero(di), call_neg = hn::Zero(di);
  unsigned flags = 0;
  alignas(64) std::uint8_t tail_out[4 * hn::MaxLanes(di)];
  constexpr std::int32_t kLow = static_cast<std::int32_t>((1u << S) - 1);
  // Whether a lane of [start, start + len) is tiny after rounding and inexact (fl32(|x| + 2^k) − 2^k ≠ |x|),
  // re-reading the L1-hot chunk: run only for chunks whose min |x| is below the tininess bound while
  // underflow is not yet known for the call.
  auto tiny_inexact = [&](std::size_t start, std::size_t len) HWY_ATTR {
    VI acc = hn::Zero(di);
    for (std::size_t k = 0; k < len; k += N) {  // a partial load's zero lanes are exact
      const VI a =
          hn::And(hn::BitCast(di, k + N <= len ? load(du, start + k) : load(du, start + k, len - k)), abs_mask);
      const auto sum = hn::Add(hn::BitCast(df, a), magic_f);
      const auto inexact = hn::VecFromMask(df, hn::Ne(hn::Sub(sum, magic_f), hn::BitCast(df, a)));
      acc = hn::Or(acc, hn::And(hn::BitCast(di, inexact), hn::Sub(a, tiny)));  // sign: tiny and inexact
    }
    return !hn::AllFalse(di, hn::Lt(acc, hn::Zero(di)));
  };
  bool known_inexact = false, underflow = false;
  // One chunk; with track = false it no longer accumulates inexact (kept once known).
  auto chunk = [&](auto track, std::size_t start, std::size_t len) HWY_ATTR {
    constexpr bool kTrack = decltype(track)::value;
    VI acc_or = hn::Zero(di), vmax = hn::Zero(di), vmin = hn::Set(di, 0x7fffffff), acc_neg = hn::Zero(di),
       acc_max = hn::Zero(di);
    auto one_vec = [&](VI xi) HWY_ATTR {
      const VI a = hn::And(xi, abs_mask);
      vmax = hn::Max(vmax, a);
      if constexpr (kE8m0) {
        const VI sn = hn::And(hn::BroadcastSignBit(xi), neg_all);  // all ones: the lane takes the negative code
        const VI cn = hn::ShiftRight<23>(hn::Add(a, hn::Set(di, 0x400000)));
        const VI am = hn::AndNot(sn, a);  // |x| of the lanes rounded as |x|, else 0
        vmin = hn::Min(vmin, a);
        if constexpr (kTrack) acc_or = hn::Or(acc_or, am);
        acc_neg = hn::Or(acc_neg, sn);
        acc_max = hn::Max(acc_max, am);
        return hn::Or(hn::Min(cn, max_code), hn::And(sn, hn::Set(di, 0xff)));
      } else {
        const VI mag = magnitude(a);
        if constexpr (kTrack) acc_or = hn::Or(acc_or, a);
        vmin = hn::Min(vmin, a);  // the chunk's tiny lanes are checked by tiny_inexact only when there are some
        return mag;               // the sign is added by store_codes4
      }
    };
    std::uint8_t* HWY_RESTRICT o = out + start;
    std::size_t k = 0;
    for (; k + 4 * N <= len; k += 4 * N) {
      // Software prefetch kRneAhead elements ahead (the hardware streamer stops at each 4 KiB page,
      // which is one f32 chunk).
      if (start + k + kRneAhead + 4 * N <= n) {
        hwy::Prefetch(static_cast<const std::uint8_t*>(load.at(start + k + kRneAhead)));
        hwy::Prefetch(static_cast<const std::uint8_t*>(load.at(start + k + kRneAhead)) + 64);
      }
      const VI x0 = hn::BitCast(di, load(du, start + k)), x1 = hn::BitCast(di, load(du, start + k + N)),
               x2 = hn::BitCast(di, load(du, start + k + 2 * N)), x3 = hn::BitCast(di, load(du, start + k + 3 * N));
      const VI c0 = one_vec(x0), c1 = one_vec(x1), c2 = one_vec(x2), c3 = one_vec(x3);
      store_codes4<F>(di, c0, c1, c2, c3, x0, x1, x2, x3, o + k);
    }
    if (k < len) {  // the chunk's tail: lanes past the end hold 1.0 (exact in every target, no flags)
      VI cv[4], xv[4];
      for (std::size_t v = 0; v < 4; ++v) {
        const std::size_t at = k + v * N;
        VI x = hn::Set(di, 0x3f800000);
        if (at < len) {
          const std::size_t m = len - at < N ? len - at : N;
          x = hn::IfThenElse(hn::FirstN(di, m),
                             hn::BitCast(di, m == N ? load(du, start + at) : load(du, start + at, m)), x);
        }
        xv[v] = x;
        cv[v] = one_vec(x);
      }
      store_codes4<F>(di, cv[0], cv[1], cv[2], cv[3], xv[0], xv[1], xv[2], xv[3], tail_out);
      for (std::size_t j = 0; k + j < len; ++j) o[k + j] = tail_out[j];
    }
    const bool hard = hn::GetLane(hn::MaxOfLanes(di, vmax)) >= 0x7f800000 ||
                      (kE8m0 && hn::GetLane(hn::MinOfLanes(di, vmin)) < 0x00800000);
    if (HWY_UNLIKELY(hard)) {
      struct Shifted {
        const Load& l;
        std::size_t base;
        HWY_INLINE hn::Vec<decltype(du)> operator()(decltype(du) d, std::size_t i) const { return l(d, base + i); }
        HWY_INLINE hn::Vec<decltype(du)> operator()(decltype(du) d, std::size_t i, std::size_t m) const {
          return l(d, base + i, m);
        }
      };
      flags |= encode_keys(len, o, table, drop, Shifted{load, start});
      return;
    }
    call_or = hn::Or(call_or, acc_or);
    if constexpr (!kE8m0) {
      if (!underflow && hn::GetLane(hn::MinOfLanes(di, vmin)) < static_cast<std::int32_t>(kTiny))
        underflow = tiny_inexact(start, len);
    }
    call_max = hn::Max(call_max, kE8m0 ? acc_max : vmax);
    call_neg = hn::Or(call_neg, acc_neg);
  };
  for (std::size_t start = 0; start < n; start += kRneChunk) {
    const std::size_t len = n - start < kRneChunk ? n - start : kRneChunk;
    if (known_inexact || underflow) {
      chunk(std::false_type{}, start, len);
    } else {
      chunk(std::true_type{}, start, len);
      known_inexact = !hn::AllTrue(di, hn::Eq(hn::And(call_or, hn::Set(di, kLow)), hn::Zero(di)));
    }
  }
  if (!hn::AllTrue(di, hn::Eq(hn::And(call_or, hn::Set(di, kLow)), hn::Zero(di)))) flags |= flag_inexact;
  if (underflow) flags |= flag_underflow | flag_inexact;
  if (hn::GetLane(hn::MaxOfLanes(di, call_max)) >= static_cast<std::int32_t>(c.ovf_min)) flags |= c.ovf_flags;
  if constexpr (kE8m0) {
    if (!hn::AllTrue(di, hn::Eq(call_neg, hn::Zero(di)))) flags |= c.neg_flags;
  }
  return flags;
}

/// The kernel of t.rne.kind (the table path when it is RneKind::none).
template <class Load>
HWY_INLINE unsigned encode_rne_any(std::size_t n, std::uint8_t* HWY_RESTRICT out, const EncodeTable& t, Load load) {
  switch (t.rne.kind) {
    case RneKind::e4m3fn: return encode_rne<kRneE4m3fn>(n, out, t.entry.data(), t.drop, t.rne, load);
    case RneKind::e5m2: return encode_rne<kRneE5m2>(n, out, t.entry.data(), t.drop, t.rne, load);
    case RneKind::e2m1fn: return encode_rne<kRneE2m1fn>(n, out, t.entry.data(), t.drop, t.rne, load);
    case RneKind::e8m0fnu: return encode_rne<kRneE8m0fnu>(n, out, t.entry.data(), t.drop, t.rne, load);
    case RneKind::e2m3fn: return encode_rne<kRneE2m3fn>(n, out, t.entry.data(), t.drop, t.rne, load);
    case RneKind::e3m2fn: return encode_rne<kRneE3m2fn>(n, out, t.entry.data(), t.drop, t.rne, load);
    case RneKind::none: break;
  }
  return encode_keys(n, out, t.entry.data(), t.drop, load);
}

}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_ENCODE_RNE_INL_H_
