// SPDX-License-Identifier: Apache-2.0
// simd/f64-inl.h: binary64 sources through the f32 table kernel (one copy per SIMD target, through
// hwy/foreach_target.h; see simd/f64_simd.cpp). Like simd/convert-inl.h it holds no rounding rule
// of the target format: each double is narrowed, in 64-bit integer lanes, to a binary32 bit pattern
// y, and y goes through EncodeF32 (simd/convert-inl.h), whose table is the engine's result for each
// encode key. Two narrowings, chosen by Profile::source_via_f32 (D11):
//
// 1. F64Narrowing::round_to_odd (the profiles that round an f64 once: ocp, nvidia, p3109).
//    y = rto32(x): x rounded to binary32 by round-to-odd, with binary32's gradual underflow: truncate
//    the significand at binary32's quantum of x's binade (2^(e−23) for normal, 2^−149 for subnormal
//    results), then OR "any dropped f64 bit was 1" into the last bit. Truncation keeps x's sign and
//    binade (the OR cannot carry), so y has x's sign, x's exponent and x's top 23 (normal) mantissa
//    bits, and its last bit is the sticky of everything below. The engine's key of y (convert-inl.h:
//    sign, exponent, top M + 2 mantissa bits, sticky of the rest, M ≤ 4 here) is then the key of the
//    exact x: the same top bits, and a sticky that ORs ALL dropped bits of the double. This is
//    Boldo & Melquiond's round-to-odd theorem ("Emulation of FMA and correctly rounded sums: proved
//    algorithms using rounding to odd", IEEE TC 57(4), 2008, Thm. 1): for p ≥ q + 2, rounding
//    rto_p(x) to q bits in any of rne/rna/rtz/rtp/rtn/rto equals rounding x to q bits directly. Here
//    q is the target's precision at x's binade (≤ 5 bits; the tininess test of round_pack rounds at
//    q = M + 1 as well) and p is binary32's there: 24 in the normal range; for y subnormal the
//    quantum 2^−149 is ≥ 4 times finer than every target quantum that reaches that range (only
//    e8m0fnu: quantum 2^−127 at its minimum 2^−127; every other whitelisted format has its smallest
//    subnormal ≥ 2^−17, so anything below 2^−126 is, for them, a nonzero far below half of it, and
//    rto32 keeps it nonzero: 0 < |x| < 2^−149 gives y = ±2^−149). The engine's other rules read only
//    the class, the sign and the binade, which y keeps: NaN (exponent 2047) → an f32 NaN with the
//    same sign (payload truncated, sticky ORed in, so it stays a NaN; round_pack ignores quiet/
//    signalling and the payload for every ≤ 8-bit target: nan_code depends on the sign only, and no
//    flag is raised for a NaN into a format with NaN), ±Inf → ±Inf, ±0 → ±0.
//    The one gap: |x| ≥ 2^128 (finite) has no binary32 of its binade. Every finite |x| ≥ 2^128
//    overflows every ≤ 8-bit format in every mode (the largest, e8m0fnu's 2^127, is below it), so its
//    code and flags depend on the sign only; the kernel writes ±FLT_MAX's entry (the same code and
//    flags for every format but e8m0fnu, whose rtz/rto/rtn(+)/rtp(−) keep FLT_MAX below the overflow
//    threshold: a subset of the flags, same code class) and then patches such elements, only in blocks
//    that hold one, with the engine's result for ±2^128 (F64Encode::beyond_f32).
// 2. F64Narrowing::rne_f32_step (ml_dtypes, source_via_f32): the engine rounds x to binary32 by rne
//    first (core/convert.hpp) and then converts that binary32. The kernel does the same rne in the
//    integer lanes (ties to even at binary32's quantum, subnormals included, a carry may reach the
//    next binade or +Inf), NaN → the quiet NaN 0x7fc00000 with x's sign (profile ml_dtypes:
//    NanPayload::quiet, NanSign::preserve), and raises that step's flags exactly as round_pack does:
//    inexact; overflow | inexact when a finite x gives Inf; underflow when inexact and tiny after
//    rounding (with unbounded exponent: |x| < 2^−127, or |x| in [2^−127, 2^−126) that does not round
//    to 2^−126 at 24 bits). The f32 step's flags are ORed with the table's.
// tests/simd/simd_f64_test.cpp proves both against the engine (convert on the double), on every
// target: boundary-biased RapidCheck over every combination and the doubles at and next to every key
// representative; a broken clamp, sticky or tininess test fails them.
#if defined(MINIFLOAT_SIMD_F64_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MINIFLOAT_SIMD_F64_INL_H_
#undef MINIFLOAT_SIMD_F64_INL_H_
#else
#define MINIFLOAT_SIMD_F64_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "simd/convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace minifloat::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Narrow the binary64 bit patterns v (one per 64-bit lane) to binary32 bit patterns in the low 32
/// bits of each lane (file comment). kRne: the rne step with its flags ORed into `flags`
/// (core/rounding.hpp's flag bits); else round-to-odd, with the lanes of finite |x| ≥ 2^128
/// ORed into `big`.
template <bool kRne, class D>
HWY_INLINE hn::Vec<D> NarrowF64Full(D d, hn::Vec<D> v, hn::Vec<D> a, hn::Vec<D>& flags, hn::Vec<D>& big) {
  const hn::RebindToSigned<D> di;
  const auto one = hn::Set(d, 1);
  const auto e = hn::ShiftRight<52>(a);  // biased exponent 0..2047
  const auto m = hn::And(a, hn::Set(d, 0x000FFFFFFFFFFFFFull));
  // significand with its implicit bit (none for exponent 0): (e + 2047) >> 11 is 1 iff e ≥ 1
  const auto sig = hn::Or(m, hn::ShiftLeft<52>(hn::ShiftRight<11>(hn::Add(e, hn::Set(d, 2047)))));
  // u = e − 897 = binary32's biased exponent − 1; the right shift that puts binary32's quantum of the
  // binade at bit 0 is 29 for normal results and 29 + (−u), at most 63, for subnormal ones
  const auto u = hn::Sub(hn::BitCast(di, e), hn::Set(di, 897));
  const auto base = hn::BitCast(d, hn::ShiftLeft<23>(hn::Max(u, hn::Zero(di))));
  const auto shift =
      hn::BitCast(d, hn::Add(hn::Min(hn::Max(hn::Neg(u), hn::Zero(di)), hn::Set(di, 34)), hn::Set(di, 29)));
  const auto sign = hn::And(hn::ShiftRight<32>(v), hn::Set(d, 0x80000000u));
  const auto special = hn::Eq(e, hn::Set(d, 2047));  // Inf or NaN
  const auto huge = hn::Gt(e, hn::Set(d, 1150));     // |x| ≥ 2^128, or Inf/NaN
  hn::Vec<D> r;
  if constexpr (kRne) {
    const auto s1 = hn::Sub(shift, one);
    const auto r0 = hn::Shr(sig, s1);
    const auto t = hn::ShiftRight<1>(r0);
    const auto guard = hn::And(r0, one);
    const auto rest = hn::VecFromMask(d, hn::Ne(hn::Shl(r0, s1), sig));  // a set bit below the guard
    const auto inc = hn::And(guard, hn::Or(rest, hn::And(t, one)));
    r = hn::Add(hn::Add(base, t), inc);
    // NaN → 0x7fc00000 (quiet), Inf → 0x7f800000; finite |x| ≥ 2^128 → +Inf (overflow)
    const auto nan_bit = hn::IfThenElseZero(hn::Ne(m, hn::Zero(d)), hn::Set(d, 0x00400000u));
    r = hn::IfThenElse(huge, hn::Or(hn::Set(d, 0x7F800000u), hn::IfThenElseZero(special, nan_bit)), r);
    const auto inexact = hn::AndNot(special, hn::Ne(hn::Or(guard, hn::And(rest, one)), hn::Zero(d)));
    const auto overflow = hn::AndNot(special, hn::Eq(r, hn::Set(d, 0x7F800000u)));
    // tiny after rounding: |x| < 2^−127 (u < −1), or |x| in [2^−127, 2^−126) whose top 24 mantissa
    // bits are not all ones (those round to 2^−126 at 24 bits)
    const auto tiny =
        hn::Or(hn::RebindMask(d, hn::Lt(u, hn::Set(di, -1))),
               hn::AndNot(hn::Eq(hn::ShiftRight<28>(m), hn::Set(d, 0xFFFFFFu)), hn::Eq(e, hn::Set(d, 896))));
    const auto fl = hn::Or(hn::Or(hn::IfThenElseZero(inexact, hn::Set(d, flag_inexact)),
                                  hn::IfThenElseZero(overflow, hn::Set(d, flag_overflow | flag_inexact))),
                           hn::IfThenElseZero(hn::And(tiny, inexact), hn::Set(d, flag_underflow)));
    flags = hn::Or(flags, fl);
  } else {
    const auto t = hn::Shr(sig, shift);
    const auto sticky = hn::IfThenElseZero(hn::Ne(hn::Shl(t, shift), sig), one);
    r = hn::Or(hn::Add(base, t), sticky);
    // Inf/NaN: exponent 255 and the truncated payload with the sticky (a NaN stays a NaN);
    // finite |x| ≥ 2^128: FLT_MAX (patched by the caller)
    r = hn::IfThenElse(huge,
                       hn::Or(hn::IfThenElse(special, hn::Set(d, 0x7F800000u), hn::Set(d, 0x7F7FFFFFu)),
                              hn::And(r, hn::Set(d, 0x007FFFFFu))),
                       r);
    big = hn::Or(big, hn::VecFromMask(d, hn::AndNot(special, huge)));
  }
  return hn::Or(r, sign);
}

/// NarrowF64Full, with a shortcut for vectors whose lanes all have binary32-normal results that
/// cannot overflow (biased f64 exponent 897..1150, rne: ..1149): the f64 exponent rebiased, the top
/// 23 mantissa bits, and the sticky (rto) or the rne increment (inexact its only flag). The same
/// values as NarrowF64Full on those lanes.
template <bool kRne, class D>
HWY_INLINE hn::Vec<D> NarrowF64(D d, hn::Vec<D> v, hn::Vec<D>& flags, hn::Vec<D>& big) {
  const hn::RebindToSigned<D> di;
  const auto a = hn::And(v, hn::Set(d, 0x7FFFFFFFFFFFFFFFull));
  const auto ai = hn::BitCast(di, a);
  constexpr std::int64_t kLo = std::int64_t{897} << 52, kHi = std::int64_t{kRne ? 1150 : 1151} << 52;
  const auto normal = hn::And(hn::Gt(ai, hn::Set(di, kLo - 1)), hn::Lt(ai, hn::Set(di, kHi)));
  if (!hn::AllTrue(di, normal)) return NarrowF64Full<kRne>(d, v, a, flags, big);
  const auto one = hn::Set(d, 1);
  const auto sign = hn::And(hn::ShiftRight<32>(v), hn::Set(d, 0x80000000u));
  const auto hi = hn::Sub(hn::ShiftRight<29>(a), hn::Set(d, std::uint64_t{896} << 23));
  if constexpr (kRne) {
    const auto guard = hn::And(hn::ShiftRight<28>(a), one);
    const auto rest = hn::Ne(hn::And(a, hn::Set(d, (std::uint64_t{1} << 28) - 1)), hn::Zero(d));
    const auto inc = hn::And(guard, hn::Or(hn::IfThenElseZero(rest, one), hn::And(hn::ShiftRight<29>(a), one)));
    flags = hn::Or(flags, hn::Or(guard, hn::IfThenElseZero(rest, one)));
    return hn::Or(hn::Add(hi, inc), sign);
  } else {
    const auto sticky =
        hn::IfThenElseZero(hn::Ne(hn::And(a, hn::Set(d, (std::uint64_t{1} << 29) - 1)), hn::Zero(d)), one);
    return hn::Or(hn::Or(hi, sticky), sign);
  }
}

/// Encode n binary64 values (bit patterns) through the f32 table: narrow a block into binary32
/// patterns (NarrowF64), then EncodeF32 on the block. `beyond` = the entries (code | flags << 8) of
/// +2^128 and −2^128, read under round_to_odd only. Returns the OR of the flags.
template <bool kRne>
HWY_INLINE unsigned EncodeF64Impl(const std::uint64_t* HWY_RESTRICT in, std::uint8_t* HWY_RESTRICT out, std::size_t n,
                                  const std::uint16_t* table, int drop, const std::uint16_t* beyond) {
  const hn::ScalableTag<std::uint64_t> d;
  const hn::Rebind<std::uint32_t, decltype(d)> d32;
  const std::size_t N = hn::Lanes(d);
  constexpr std::size_t kBlock = 1024;
  alignas(64) std::uint32_t buf[kBlock + hn::MaxLanes(d)];
  unsigned acc = 0;
  auto flags = hn::Zero(d);
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t len = n - start < kBlock ? n - start : kBlock;
    auto big = hn::Zero(d);
    std::size_t k = 0;
    for (; k + N <= len; k += N)
      hn::Store(hn::TruncateTo(d32, NarrowF64<kRne>(d, hn::LoadU(d, in + start + k), flags, big)), d32, buf + k);
    if (k < len) {
      alignas(64) std::uint64_t tail[hn::MaxLanes(d)] = {};
      for (std::size_t j = 0; k + j < len; ++j) tail[j] = in[start + k + j];
      hn::Store(hn::TruncateTo(d32, NarrowF64<kRne>(d, hn::Load(d, tail), flags, big)), d32, buf + k);
    }
    acc |= EncodeF32(buf, out + start, len, table, drop);
    if constexpr (!kRne) {
      if (!hn::AllTrue(d, hn::Eq(big, hn::Zero(d)))) {
        for (std::size_t j = 0; j < len; ++j) {
          const std::uint64_t x = in[start + j];
          const std::uint64_t e = (x >> 52) & 0x7FF;
          if (e > 1150 && e != 2047) {
            const unsigned entry = beyond[x >> 63];
            out[start + j] = static_cast<std::uint8_t>(entry);
            acc |= (entry >> 8) & 0xFF;
          }
        }
      }
    }
  }
  alignas(64) std::uint64_t lanes[hn::MaxLanes(d)];
  hn::Store(flags, d, lanes);
  for (std::size_t j = 0; j < N; ++j) acc |= static_cast<unsigned>(lanes[j]);
  return acc;
}

inline unsigned EncodeF64Rto(const std::uint64_t* in, std::uint8_t* out, std::size_t n, const std::uint16_t* table,
                             int drop, const std::uint16_t* beyond) {
  return EncodeF64Impl<false>(in, out, n, table, drop, beyond);
}
inline unsigned EncodeF64Rne(const std::uint64_t* in, std::uint8_t* out, std::size_t n, const std::uint16_t* table,
                             int drop, const std::uint16_t* beyond) {
  return EncodeF64Impl<true>(in, out, n, table, drop, beyond);
}

}  // namespace minifloat::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MINIFLOAT_SIMD_F64_INL_H_
