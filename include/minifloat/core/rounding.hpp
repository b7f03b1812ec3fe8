// SPDX-License-Identifier: Apache-2.0
// core/rounding.hpp: rounding modes, overflow policies, flags and the RoundingSpec passed to every
// conversion. No global state: the spec goes in as an argument, the flags come back by value.
#pragma once
#include <cstdint>

#include "config.hpp"

namespace minifloat {

/// Rounding direction (IEEE 754-2019 §4.3 names; PTX spelling in brackets).
enum class Rounding : std::uint8_t {
  rne,  ///< roundTiesToEven [.rn]. Formats with no mantissa bits (e8m0fnu) send ties up:
        ///< 1.5·2^k → 2^(k+1), as MPFR at precision 1 and ml_dtypes (Profile::zero_mantissa_ties).
  rna,  ///< roundTiesToAway [.rna]
  rtz,  ///< roundTowardZero [.rz]
  rtp,  ///< roundTowardPositive [.rp]
  rtn,  ///< roundTowardNegative [.rm]
  rto,  ///< round to odd: rtz, then the sticky bit ORed into the last kept bit
  sr,   ///< stochastic rounding: a pure function of the value and the random bits (SrVariant)
  rnz,  ///< round to nearest, ties toward zero (CPFloat CPFLOAT_RND_NZ; DeepGEMM's FP4 reference cast)
  rnu,  ///< round to nearest, ties toward +Inf (AMD Quark's DPU_ROUND "round half upward": -2.5 -> -2, 2.5 -> 3)
};

/// Stochastic-rounding variant (only read when Rounding::sr). ν is the discarded fraction of
/// the magnitude in units of the kept LSB, 0 ≤ ν < 1; "up" means away from zero.
enum class SrVariant : std::uint8_t {
  exact,  ///< up iff R < ν·2^64 with R a uniform 64-bit integer (rbits): P(up) = ν to within 2^−64
  a,      ///< P3109 StochasticA<N>: up iff floor(ν·2^N) + R ≥ 2^N, R = low N bits of rbits (hardware style)
  b,      ///< P3109 StochasticB<N>: up iff floor(ν·2^(N+1)) + 2R + 1 ≥ 2^(N+1)
  c,      ///< P3109 StochasticC<N>: up iff RNE(ν·2^N) + R ≥ 2^N
  equal,  ///< CPFloat's equal-probability SR: up iff inexact and the low bit of rbits is 1
  stochastic_odd,  ///< gfloat StochasticOdd<N>: up iff RNO(ν·2^N) + R ≥ 2^N, RNO = nearest integer, ties to odd
                   ///< (gfloat src/gfloat/round.py:32-34 _rnito, :151-154 at b142762)
};

/// What happens to a value beyond the largest finite magnitude (and to ±Inf inputs).
enum class Overflow : std::uint8_t {
  nonsat,        ///< finite overflow → ±Inf where the format has it, else NaN, else ±max; directed modes
                 ///< follow IEEE 754 §7.4 (rtz never overflows; rtp sends −overflow to −max; rto → ±max)
  satfinite,     ///< finite overflow and ±Inf → ±max; NaN stays NaN (PTX .satfinite, OCP "SAT")
  satpropagate,  ///< finite overflow → ±max; ±Inf → ±Inf where the format has it, else NaN, else ±max
};

/// IEEE-style exception flags, returned by value (never kept in global state).
enum Flags : std::uint8_t {
  flag_none = 0,
  flag_inexact = 1,    ///< the result differs from the exact input
  flag_underflow = 2,  ///< inexact and tiny after rounding (as MPFR)
  flag_overflow = 4,   ///< the rounded magnitude, with unbounded exponent range, exceeds max finite
  flag_invalid = 8,    ///< a NaN input replaced by a number, or a NaN made from a non-NaN other than by finite
                       ///< overflow (±Inf into a format without Inf, a negative into an unsigned format, 0 into
                       ///< e8m0fnu under ml_dtypes). A finite overflow to NaN raises overflow|inexact only,
                       ///< as IEEE 754 §7.4 does for overflow to Inf.
};
MINIFLOAT_HOST_DEVICE constexpr Flags operator|(Flags a, Flags b) noexcept {
  return static_cast<Flags>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
MINIFLOAT_HOST_DEVICE constexpr Flags& operator|=(Flags& a, Flags b) noexcept { return a = a | b; }

/// The accepted random-bit counts N of SrVariant::a/b/c/stochastic_odd (RoundingSpec::sr_bits): 1..64;
/// N ≤ 32 reads one 32-bit draw per element, N > 32 two (random.hpp sr_words). The library's check with
/// its message is sr_bits_problem (convert_array.hpp).
inline constexpr int kMinSrBits = 1;
inline constexpr int kMaxSrBits = 64;

/// Every rounding choice of one conversion. Default: rne + nonsat.
struct RoundingSpec {
  Rounding rounding = Rounding::rne;
  Overflow overflow = Overflow::nonsat;
  SrVariant sr_variant = SrVariant::exact;  ///< used only with Rounding::sr
  std::uint8_t sr_bits = 8;                 ///< N for SrVariant::a/b/c/stochastic_odd, kMinSrBits..kMaxSrBits
  /// Flush to zero: a finite nonzero result that rounds (by `rounding`, into the target's subnormal
  /// range) to a subnormal becomes ±0 (sign kept where the target has −0); flags inexact|underflow.
  /// Rounding happens first; a value that rounds up to the smallest normal is kept.
  bool ftz = false;
  /// Denormals are zero: a subnormal INPUT (of the source format of convert(); the f32 input of a
  /// block quantizer) reads as ±0 before anything else; no flag.
  bool daz = false;

  friend constexpr bool operator==(const RoundingSpec&, const RoundingSpec&) = default;
};

}  // namespace minifloat
