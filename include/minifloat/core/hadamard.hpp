// SPDX-License-Identifier: Apache-2.0
// core/hadamard.hpp: the 16-point random Hadamard transform (RHT) of NVFP4 training recipes (issue 25
// item 1), applied to groups of 16 consecutive elements along the block axis before quantization.
// Header-only, host and device; the block engine (src/quant/block_quantizer.cpp) calls it on every piece.
//
// Definition (derived from TransformerEngine transformer_engine/pytorch/tensor/nvfp4_tensor.py:49-104,
// get_wgrad_sign_vector / get_hadamard_matrix / get_rht_matrix, and torchao
// torchao/prototype/moe_training/nvfp4_training/hadamard_utils.py:19,84-140): the transform matrix is
// M = diag(s) · H16 / 4, with H16 the Sylvester Hadamard matrix, H[i][j] = (−1)^popcount(i & j), and s the
// sign vector (s_i = −1 where bit i of the sign mask is set: TE get_sign_from_vector, nvfp4_tensor.py:36-46).
// A group x (a row vector of 16) becomes y = x · M:  y_j = Σ_i s_i · H[i][j] · x_i / 4.
// TE's and torchao's sign vector (1,1,1,−1,1,−1,−1,−1,−1,−1,−1,1,−1,1,−1,−1) is the mask 0xd7e8.
// M is orthogonal (M · Mᵀ = I), so the inverse is x = y · Mᵀ: x_i = s_i · Σ_j H[i][j] · y_j / 4.
//
// Arithmetic (rht16_group): each y_j is the exact sum, rounded ONCE to binary32 (RNE, overflow to ±Inf);
// then the output rounding: binary32 (kept) or bfloat16 (RNE, torchao's reference_rht rounds the
// transform's output to bf16: test/prototype/moe_training/nvfp4_training/nvfp4_reference.py:218-228).
// Specials: a NaN in the group makes every y_j the default NaN 0x7fc00000 (every output reads every
// input); ±Inf terms: all of one sign give that Inf, both signs give the default NaN. An exact zero sum
// is +0 unless every term is −0 (IEEE addition's rule for signed zeros).
#pragma once
#include <cstddef>
#include <cstdint>

#include "bits.hpp"
#include "config.hpp"
#include "convert.hpp"
#include "format.hpp"
#include "named_formats.hpp"
#include "round_pack.hpp"
#include "unpacked.hpp"

namespace minifloat {

/// The output rounding of the transform (after the one rounding to binary32).
enum class TransformOutput : std::uint8_t {
  f32,   ///< binary32 (TE's reference_nvfp4.py _apply_rht in FP32)
  bf16,  ///< binary32 then bfloat16 RNE (torchao nvfp4_reference.py reference_rht)
};

/// The transform applied before quantization (Scheme::transform): none, or the 16-point RHT with a
/// sign mask (bit i set: s_i = −1) and an output rounding.
struct BlockTransform {
  bool rht16 = false;
  std::uint16_t signs = 0;
  TransformOutput output = TransformOutput::f32;
  friend constexpr bool operator==(const BlockTransform&, const BlockTransform&) = default;
};

/// TE's and torchao's sign mask: get_wgrad_sign_vector (TE nvfp4_tensor.py:49-59,
/// reference_nvfp4.py:335-340; torchao hadamard_utils.py:19 DEFAULT_SIGN_VECTOR) as bits.
inline constexpr std::uint16_t kRht16WgradSigns = 0xd7e8;

/// The number of elements one transform group holds.
inline constexpr std::size_t kRht16Size = 16;

namespace detail {
/// popcount(i & j) is odd: H[i][j] = −1.
MINIFLOAT_HOST_DEVICE constexpr bool hadamard_negative(unsigned i, unsigned j) noexcept {
  unsigned v = i & j, n = 0;
  while (v) {
    n += v & 1u;
    v >>= 1;
  }
  return (n & 1u) != 0;
}
/// The sign of M[i][j] = s_i·H[i][j]/4 (sign mask bit i set: s_i = −1): true when negative.
MINIFLOAT_HOST_DEVICE constexpr bool rht16_negative(std::uint16_t signs, unsigned i, unsigned j) noexcept {
  return (((signs >> i) & 1u) != 0) != hadamard_negative(i, j);
}
/// The exact Σ (neg_i ? −v_i : v_i) · 2^shift of 16 finite values, as an Unpacked (sig left-aligned when
/// inexact, sticky set). Fixed point in 32-bit limbs held in int64 (16 terms of < 2^32 per limb never
/// overflow), base weight = the smallest exponent of a nonzero term.
MINIFLOAT_HOST_DEVICE inline Unpacked exact_signed_sum16(const Unpacked* v, const bool* neg, int shift) noexcept {
  constexpr int kLimbs = 72;  // binary64: 2^−1074 … 2^1024 plus 53 bits and carries, in 32-bit limbs
  int base = 0, top = 0;
  bool any = false;
  for (int i = 0; i < 16; ++i) {
    if (v[i].cls == Class::zero || v[i].sig == 0) continue;
    const int hi = v[i].exp + bit_width(v[i].sig);
    if (!any || v[i].exp < base) base = v[i].exp;
    if (!any || hi > top) top = hi;
    any = true;
  }
  Unpacked out;
  out.cls = Class::zero;
  if (!any) return out;
  std::int64_t limb[kLimbs] = {};
  const int nl = (top - base) / 32 + 3;
  for (int i = 0; i < 16; ++i) {
    if (v[i].cls == Class::zero || v[i].sig == 0) continue;
    const int off = v[i].exp - base, k = off / 32, sh = off % 32;
    // sig (≤ 53 bits) << sh (< 32) spans at most three 32-bit limbs
    const std::uint64_t lo = v[i].sig << sh;                         // the low 64 bits
    const std::uint64_t hi = sh == 0 ? 0 : (v[i].sig >> (64 - sh));  // the bits above
    const std::int64_t parts[3] = {static_cast<std::int64_t>(lo & 0xffffffffu), static_cast<std::int64_t>(lo >> 32),
                                   static_cast<std::int64_t>(hi & 0xffffffffu)};
    for (int t = 0; t < 3; ++t) limb[k + t] += neg[i] ? -parts[t] : parts[t];
  }
  for (int k = 0; k + 1 < nl; ++k) {  // carries: two's complement in 32-bit digits
    limb[k + 1] += limb[k] >> 32;     // arithmetic shift (floor division by 2^32)
    limb[k] &= 0xffffffff;
  }
  const bool negative = limb[nl - 1] < 0;
  if (negative) {  // the magnitude −(value), digit by digit with a borrow
    std::int64_t borrow = 0;
    for (int k = 0; k < nl; ++k) {
      std::int64_t d = -limb[k] - borrow;
      borrow = 0;
      if (k + 1 < nl && d < 0) {
        d += std::int64_t{1} << 32;
        borrow = 1;
      }
      limb[k] = d;
    }
  }
  int hk = nl - 1;
  while (hk >= 0 && limb[hk] == 0) --hk;
  if (hk < 0) return out;  // an exact zero
  // the top 64 significant bits (left-aligned) and a sticky bit for the rest
  std::uint64_t sig = 0;
  bool sticky = false;
  int bits = 0;  // how many digit bits have been taken into sig from the top
  const int lead = bit_width(static_cast<std::uint64_t>(limb[hk]));  // bits of the top digit
  sig = static_cast<std::uint64_t>(limb[hk]);
  bits = lead;
  for (int k = hk - 1; k >= 0; --k) {
    const std::uint64_t d = static_cast<std::uint64_t>(limb[k]);
    if (bits + 32 <= 64) {
      sig = (sig << 32) | d;
      bits += 32;
    } else {
      const int take = 64 - bits;
      if (take > 0) sig = (sig << take) | (d >> (32 - take));
      if ((d & ((std::uint64_t{1} << (32 - take)) - 1)) != 0) sticky = true;
      bits = 64;
      for (int r = k - 1; r >= 0; --r)
        if (limb[r] != 0) sticky = true;
      break;
    }
  }
  // sig holds `bits` bits, its top bit of weight 2^msb_weight
  const int msb_weight = base + 32 * hk + lead - 1;  // weight of sig's top bit
  out.cls = Class::normal;
  out.negative = negative;
  out.sig = sig;
  out.exp = msb_weight - (bits - 1) + shift;
  out.sticky = sticky;  // (set only once 64 bits are taken: sig is then left-aligned)
  return out;
}
}  // namespace detail

/// The transform's output rounding of a binary32 result r: r itself (TransformOutput::f32) or r rounded RNE to
/// bfloat16 (TransformOutput::bf16), as a float.
MINIFLOAT_HOST_DEVICE inline float transform_output(float r, TransformOutput out) noexcept {
  if (out != TransformOutput::bf16) return r;
  return static_cast<float>(
      to_float(formats::bf16, from_float(r, formats::bf16, {Rounding::rne, Overflow::nonsat}).code));
}

/// The transform of one group of 16 source values `x[0], x[stride], …, x[15·stride]` into `y` (16 floats,
/// `ystride` apart): y_j = Σ_i s_i·H[i][j]·x_i / 4 rounded once to binary32, then `t.output`. With
/// `inverse`, the transpose: y_i = s_i·Σ_j H[i][j]·x_j / 4 (M⁻¹ = Mᵀ). T is float or double; Y float, or
/// double: the exact sum rounded once to binary64 and no output rounding (the inverse of dequantized values).
template <class T, class Y>
MINIFLOAT_HOST_DEVICE inline void rht16_group(const T* x, std::size_t stride, const BlockTransform& t, Y* y,
                                              std::size_t ystride, bool inverse = false) noexcept {
  Unpacked v[16];
  bool nan = false;
  for (unsigned i = 0; i < 16; ++i) {
    if constexpr (sizeof(T) == sizeof(double)) v[i] = detail::exact_f64(x[i * stride]);
    else v[i] = detail::exact_f32(x[i * stride]);
    if (v[i].cls == Class::nan) nan = true;
  }
  for (unsigned j = 0; j < 16; ++j) {
    bool neg[16];
    bool pinf = false, ninf = false, all_negzero = true;
    for (unsigned i = 0; i < 16; ++i) {
      // forward: coefficient s_i·H[i][j]; inverse: s_j·H[j][i] (= s_j·H[i][j], H symmetric)
      const unsigned si = inverse ? j : i;
      const bool cneg = detail::rht16_negative(t.signs, si, si == i ? j : i);  // H symmetric: H[i][j] = H[j][i]
      neg[i] = v[i].negative != cneg;
      if (v[i].cls == Class::inf) (neg[i] ? ninf : pinf) = true;
      if (!(v[i].cls == Class::zero && neg[i])) all_negzero = false;
    }
    constexpr bool wide = sizeof(Y) == sizeof(double);
    Y r;
    if (nan || (pinf && ninf)) {
      r = static_cast<Y>(detail::bit_cast<float>(0x7fc00000u));
    } else if (pinf || ninf) {
      r = static_cast<Y>(detail::bit_cast<float>(ninf ? 0xff800000u : 0x7f800000u));
    } else {
      Unpacked m[16];
      for (unsigned i = 0; i < 16; ++i) {
        m[i] = v[i];
        m[i].negative = false;
      }
      Unpacked s = detail::exact_signed_sum16(m, neg, -2);  // · 1/4
      if (s.cls == Class::zero) s.negative = all_negzero;
      const RoundingSpec rne{Rounding::rne, Overflow::nonsat};
      if constexpr (wide) {
        r = detail::bit_cast<double>(round_pack(formats::f64, s, rne, profiles::ocp).code);
      } else {
        r = detail::bit_cast<float>(static_cast<std::uint32_t>(round_pack(formats::f32, s, rne, profiles::ocp).code));
      }
    }
    if constexpr (!wide) r = transform_output(r, t.output);
    y[j * ystride] = static_cast<Y>(r);
  }
}

}  // namespace minifloat
