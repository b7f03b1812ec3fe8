// SPDX-License-Identifier: Apache-2.0
// simd/sr_table.hpp (internal to the compiled library): the table path of stochastic rounding
// (stochastic.cpp) for f32/f16/bf16 sources into the named formats of at most 8 bits.
//
// Idea: for a binary32 input x and a target with M mantissa bits, the bits of x above the target's
// quantum 2^q all lie in its top 9 + M bits (sign, exponent, top M mantissa bits): that prefix is the
// table key. Given the key, the engine's SR result depends on the bits below the quantum only through
//   - whether they are all zero (then x is exact: the `exact` entry, no random bits read), and
//   - the one up/down decision `rounds_up` (round_pack.hpp) makes from the cut ν = R / 2^s, where
//     R is the significand below the quantum and s the key's number of bits below it.
// So each key holds the engine's result for rounding down, for rounding up (built by calling the
// engine with the SR `exact` variant and bits 2^64 − 1 resp. 0, which force each decision), and the
// exact result; the array loop computes R and calls the engine's own `rounds_up` with
// Cut{frac = R·2^(64−s)} and the element's random bits, so every variant (exact, a, b, c, equal) and
// sr_bits keep their one definition. Keys where more than that decision is read take the engine
// itself, element by element (`engine` = 1): f32 subnormals, s > 40 (bits beyond the 64-bit cut),
// and the binade just below 2^emin with the top M mantissa bits all ones, where the underflow flag
// depends on a second decision at a finer quantum (tininess after rounding).
// This is an argument, not a proof: tests/simd/ compares every f16 and bf16 input with the engine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "minifloat/core/format.hpp"
#include "minifloat/core/profile.hpp"
#include "minifloat/core/rounding.hpp"

namespace minifloat::simd {

struct SrEntry {
  std::uint32_t mask;  ///< 2^min(s, 24) − 1: the significand bits below the quantum
  std::uint8_t down, up, exact;        ///< codes
  std::uint8_t f_down, f_up, f_exact;  ///< flags
  std::uint8_t s;                      ///< bits below the quantum (≤ 40 when engine == 0)
  std::uint8_t engine;                 ///< 1: inexact elements of this key go to the engine
};

/// The SR table of one (format, overflow, profile): 2^(9 + M) entries, key = f32 bits >> (23 − M).
struct SrTable {
  std::vector<SrEntry> entry;
  int shift = 0;  ///< 23 − mantissa_bits
  Format to;
  Overflow overflow = Overflow::satfinite;
  Profile prof;
};

/// The cached table, or nullptr when (to, spec.overflow, prof) is not on the whitelist of
/// sr_path (stochastic.hpp): the 12 named ≤ 8-bit formats × 3 policies × 4 named profiles.
const SrTable* sr_table(Format to, const RoundingSpec& spec, const Profile& prof);

/// out[i] = the engine's sr result for the f32 bit pattern x[i] with random bits rbits[i] and
/// `spec` (rounding sr; its variant and sr_bits); returns the OR of the flags.
unsigned sr_encode_f32_bits(const SrTable& t, const RoundingSpec& spec, const std::uint32_t* x,
                            const std::uint64_t* rbits, std::uint8_t* out, std::size_t n);

}  // namespace minifloat::simd
