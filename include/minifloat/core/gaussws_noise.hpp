// SPDX-License-Identifier: Apache-2.0
// core/gaussws_noise.hpp: the noise of Gaussian weight sampling (GaussWS, Ahn & Yoo,
// arXiv:2505.11170), R = round(N(0,1)/2), drawn reproducibly from the counter-based Philox stream
// (random.hpp): an exact transform and a bitwise approximation. Header-only, host and device; the
// array API and the fake-quantization op are compiled: gaussws.hpp.
#pragma once
#include <cstdint>

#include "config.hpp"
#include "random.hpp"
#include "rounding.hpp"

namespace minifloat {

/// Which generator produces the GaussWS noise R.
enum class GaussNoise : std::uint8_t {
  /// R = round(Z/2), Z ~ N(0,1), by an exact inverse-CDF transform of a 64-bit uniform U
  /// (see gauss_exact_from_bits): every probability within 2^−64 of the true one; support −5…5.
  exact,
  /// A bitwise approximation (minifloat's own design; the paper's generator is not public):
  /// AND/OR of Philox bits, eight 4-bit samples per 32-bit word (see gauss_bitwise_word).
  /// P(0) = 23/32, P(±1) = 1143/8192 each, P(±2) = 9/8192 each; support −2…2.
  bitwise,
};

// ---- the exact transform ------------------------------------------------------------------------

/// Tail thresholds of the exact transform: P(|R| ≥ k) = gauss_exact_tail(k) / 2^63 (k = 1…5;
/// 0 for every other k).
///
/// |R| ≥ k ⇔ |Z| ≥ 2k − 1 (round(Z/2) = k ⇔ Z ∈ [2k−1, 2k+1); the boundaries have probability 0),
/// so P(|R| ≥ k) = erfc((2k−1)/√2). Each value is round-to-nearest(2^63 · erfc((2k−1)/√2)),
/// computed with MPFR (mpfr_erfc at 256 bits); tests/sr/gaussws_test.cpp recomputes them with MPFR.
///   k = 1: erfc(1/√2) = 0.317310507862914…  (P(R = 0) = 0.682689492137086)
///   k = 2: erfc(3/√2) = 2.69979606326019e−3
///   k = 3: erfc(5/√2) = 5.73303143758388e−7
///   k = 4: erfc(7/√2) = 2.55962508777167e−12
///   k = 5: erfc(9/√2) = 2.25717681190768e−19  (2^63 · that = 2.08 → 2)
///   k = 6: erfc(11/√2) = 3.8e−28 (2^63 · that < ½ → 0): |R| ≤ 5, the support is −5…5.
/// (A switch rather than a namespace-scope array, so device code can call it.)
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t gauss_exact_tail(int k) noexcept {
  switch (k) {
    case 1: return 0x289da176f964165bULL;  // 2926672865222989403
    case 2: return 0x00587787e616d75bULL;  // 24901223515084635
    case 3: return 0x000004cf28bc84ceULL;  // 5287788184782
    case 4: return 0x0000000001683c36ULL;  // 23608374
    case 5: return 0x0000000000000002ULL;  // 2
    default: return 0;
  }
}

/// The exact transform of one 64-bit uniform U: m = U >> 1 (a 63-bit uniform) gives the magnitude
/// |R| = #{k ≥ 1 : m < gauss_exact_tail(k)}, the lowest bit of U the sign (1 = negative; R = 0 has
/// no sign). Hence P(|R| ≥ k) = tail_k / 2^63 and P(R = ±k) = (tail_k − tail_(k+1)) / 2^64 each,
/// within 2^−64 of the erfc differences of the standard normal.
MINIFLOAT_HOST_DEVICE constexpr int gauss_exact_from_bits(std::uint64_t u) noexcept {
  const std::uint64_t m = u >> 1;
  int k = 0;
  while (k < 5 && m < gauss_exact_tail(k + 1)) ++k;
  return (u & 1) ? -k : k;
}

// ---- the bitwise approximation ------------------------------------------------------------------

/// Eight bitwise GaussWS samples from four 32-bit random words, SWAR (no branches, no multiplies).
///
/// Lane j (0…7) owns bits 4j…4j+3 of every word; write a_0…a_3 for the lane's four bits of `a`
/// (a_0 least significant), likewise b, c, d. Per lane:
///   nonzero = (a_0 ∧ a_1) ∨ (¬a_0 ∧ a_2 ∧ a_3 ∧ b_0 ∧ b_1)      P = 1/4 + 1/32 = 9/32
///   two     = c_0 ∧ c_1 ∧ c_2 ∧ c_3 ∧ d_0 ∧ d_1 ∧ d_2            P = 1/128 (independent)
///   sign    = b_2                                                P = 1/2   (independent)
///   |R| = nonzero ? (two ? 2 : 1) : 0;   R = sign ? −|R| : |R|
/// Distribution (exact dyadic fractions): P(R = 0) = 23/32 = 0.71875 (the paper's approximation is
/// reported at ≈ 0.717; the true rounded normal has 0.6827), P(R = +1) = P(R = −1) = 1143/8192,
/// P(R = +2) = P(R = −2) = 9/8192. Var(R) = 2358/8192 ≈ 0.2878 (exact rounded normal: ≈ 0.3254).
/// Bits b_3 and d_3 are unused.
///
/// Result: lane j's sample in bits 4j…4j+3 as sign-magnitude (bit 3 = sign, bits 0–2 = |R|;
/// R = 0 is always 0b0000). Decode a lane with gauss_bitwise_lane.
MINIFLOAT_HOST_DEVICE constexpr std::uint32_t gauss_bitwise_word(std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                                                 std::uint32_t d) noexcept {
  constexpr std::uint32_t L = 0x11111111u;  // bit 0 of every lane
  const std::uint32_t nz = ((a & (a >> 1)) | (~a & (a >> 2) & (a >> 3) & b & (b >> 1))) & L;
  const std::uint32_t two = (c & (c >> 1) & (c >> 2) & (c >> 3) & d & (d >> 1) & (d >> 2)) & L;
  const std::uint32_t neg = (b >> 2) & nz & L;
  return (nz & ~two) | ((nz & two) << 1) | (neg << 3);
}

/// Sample `lane` (0…7) of a gauss_bitwise_word result as an integer in −2…2.
MINIFLOAT_HOST_DEVICE constexpr int gauss_bitwise_lane(std::uint32_t word, unsigned lane) noexcept {
  const std::uint32_t n = (word >> (4 * lane)) & 0xFu;
  const int mag = static_cast<int>(n & 7u);
  return (n & 8u) ? -mag : mag;
}

// ---- the stream layout --------------------------------------------------------------------------

/// The noise R of element `index` of tensor `stream` at step `step` under `seed`.
///  - exact: U = sr_bits(seed, stream, step, index, SrVariant::exact) — the same two 32-bit cuRAND
///    draws (subsequence step·2^32 + stream, offsets 2·index and 2·index + 1) that exact SR reads —
///    then gauss_exact_from_bits(U).
///  - bitwise: Philox block ⌊index/8⌋ of the same subsequence (counter (⌊index/8⌋ as 64 bits, stream,
///    step), key seed) gives words (a, b, c, d) = cuRAND offsets 4⌊index/8⌋ … +3; R is lane index mod 8
///    of gauss_bitwise_word(a, b, c, d).
/// Use a stream id for the noise different from the one any SR cast of the same tensor uses,
/// otherwise the noise and the rounding read the same bits.
MINIFLOAT_HOST_DEVICE inline int gauss_noise(GaussNoise variant, std::uint64_t seed, std::uint32_t stream,
                                             std::uint32_t step, std::uint64_t index) noexcept {
  if (variant == GaussNoise::exact) return gauss_exact_from_bits(sr_bits(seed, stream, step, index, SrVariant::exact));
  const std::uint64_t block = index >> 3;
  const PhiloxBlock b =
      philox4x32_10(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), stream, step,
                    static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  return gauss_bitwise_lane(gauss_bitwise_word(b.w[0], b.w[1], b.w[2], b.w[3]), static_cast<unsigned>(index & 7));
}

}  // namespace minifloat
