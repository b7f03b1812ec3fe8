// SPDX-License-Identifier: Apache-2.0
// simd/sr_table.hpp (internal to the compiled library): the table path of stochastic rounding
// (stochastic.cpp) for f32/f16/bf16 (keyed on binary32 bits) and f64 sources into the named formats
// of at most 8 bits.
//
// Idea: for a binary32 (binary64) input x and a target with M mantissa bits, the bits of x above the
// target's quantum 2^q all lie in its top 9 + M (12 + M) bits: sign, exponent, top M mantissa bits.
// That prefix is the table key. Given the key, the engine's SR result depends on the bits below the
// quantum only through
//   - whether they are all zero (then x is exact: the `exact` entry, no random bits read), and
//   - the one up/down decision `rounds_up` (round_pack.hpp) makes from the cut ν = R / 2^s, where
//     R is the significand below the quantum and s the key's number of bits below it.
// So each key holds the engine's result for rounding down, for rounding up (built by calling the
// engine with the SR `exact` variant and bits 2^64 − 1 resp. 0, which force each decision), and the
// exact result; the array loop computes R and calls the engine's own `rounds_up` with
// Cut{frac = R·2^(64−s)} and the element's random bits, so every variant (exact, a, b, c, equal) and
// sr_bits keep their one definition. Keys where more than that decision is read take the engine
// itself, element by element (`engine` = 1): zero-exponent (subnormal) sources, s > kMaxS (bits
// beyond the 64-bit cut), and the binade just below 2^emin with the top M mantissa bits all ones,
// where the underflow flag depends on a second decision at a finer quantum (tininess after rounding).
// This is an argument, not a proof: tests/simd/ compares every f16 and bf16 input with the engine,
// and RapidCheck f32/f64 arrays.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "minifloat/core/format.hpp"
#include "minifloat/core/profile.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/core/rounding.hpp"

namespace minifloat::simd {

template <class Bits>
struct SrEntryT {
  Bits mask;                      ///< the significand bits below the quantum (with the implicit bit where s covers it)
  std::uint16_t down, up, exact;  ///< code | flags << 8 of rounding down, up, and of the exact input
  std::uint8_t s;                 ///< bits below the quantum (≤ kMaxS when engine == 0)
  std::uint8_t engine;            ///< 1: inexact elements of this key go to the engine
};

/// The SR table of one (source, format, overflow, profile): key = source bits >> shift.
template <class Bits>
struct SrTableT {
  std::vector<SrEntryT<Bits>> entry;
  int shift = 0;  ///< source mantissa bits − target mantissa bits
  Format to;
  Overflow overflow = Overflow::satfinite;
  Profile prof;
  /// The fused kernel's words (simd/sr-inl.h, binary32 tables only): word4[4·key + j] = down (j = 0),
  /// up (1), exact (2), up with the finer decision of the tininess corner down (3; = up elsewhere);
  /// down and up carry kEngineMark when the key's inexact elements go to the engine (engine = 1),
  /// except for the tininess corner, which the kernel decides itself. One more entry (0) ends it: the
  /// kernel gathers an entry as the low half of the 4 bytes at its address.
  std::vector<std::uint16_t> word4;
  int emin_biased = 0;  ///< the target's emin + source bias
};
/// Marks a word4 entry whose element the engine must round (bit 7 of the flags byte, never a flag).
inline constexpr std::uint16_t kEngineMark = 0x8000;
using SrTable = SrTableT<std::uint32_t>;    ///< binary32 keys (f32, and f16/bf16 widened exactly)
using SrTable64 = SrTableT<std::uint64_t>;  ///< binary64 keys

/// The cached table, or nullptr when (to, spec.overflow, prof) is not on the whitelist of
/// sr_path (stochastic.hpp, the library above): the 12 named ≤ 8-bit formats × 3 policies × 4 named profiles
/// (for sr_table64 only the profiles without source_via_f32).
const SrTable* sr_table(Format to, const RoundingSpec& spec, const Profile& prof);
const SrTable64* sr_table64(Format to, const RoundingSpec& spec, const Profile& prof);

/// out[i] = the engine's sr result for the bit pattern x[i] with random bits rbits[i] and `spec`
/// (rounding sr; its variant and sr_bits); returns the OR of the flags.
unsigned sr_encode_f32_bits(const SrTable& t, const RoundingSpec& spec, const std::uint32_t* x,
                            const std::uint64_t* rbits, std::uint8_t* out, std::size_t n);
/// The per-call constants of the fused kernel (filled by simd/sr_simd.cpp from the SrTable).
struct SrLaneParams {
  std::uint32_t c0, c1, c2, c3, k0, k1;  ///< Philox counter of the first block, and key
  int shift;                             ///< 23 − target mantissa bits
  int emin_biased;                       ///< target emin + 127
  int variant;                           ///< 0 exact, 1 a, 2 b, 3 c, 4 equal
  int sr_bits;                           ///< n, 1..32 (A/B/C)
  int mantissa_bits;                     ///< target mantissa bits M (the tininess corner's top bits)
};

/// The fused path (simd/sr-inl.h + simd/sr_simd.cpp): out[i] = the engine's sr result for the
/// binary32 pattern x[i] with the random bits of element `s.index_base + i` of stream `s`
/// (random.hpp sr_bits), generated in registers; elements the vector kernel does not take (the
/// stream's alignment, a wrap of counter word c0, the tail, the HWY_SCALAR target) go through
/// core/random.hpp's fill_sr_bits and sr_encode_f32_bits, keys marked kEngineMark through the engine. Returns the
/// OR of the flags. `idx_out`, when not null, receives the word4 index of every element the vector
/// kernel took (else UINT32_MAX) — for tests.
unsigned sr_fused_f32_bits(const SrTable& t, const RoundingSpec& spec, const std::uint32_t* x, std::size_t n,
                           const SrStream& s, std::uint8_t* out, std::uint32_t* idx_out = nullptr);
unsigned sr_encode_f64_bits(const SrTable64& t, const RoundingSpec& spec, const std::uint64_t* x,
                            const std::uint64_t* rbits, std::uint8_t* out, std::size_t n);

}  // namespace minifloat::simd
