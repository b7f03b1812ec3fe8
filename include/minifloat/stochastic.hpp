// SPDX-License-Identifier: Apache-2.0
// stochastic.hpp: whole-array stochastic rounding (Rounding::sr) whose random bits come from the
// counter-based Philox stream of random.hpp, so the codes depend only on (seed, stream, step,
// element index) — never on threads or chunking — and a GPU kernel can reproduce them bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "convert_span.hpp"
#include "core/format.hpp"
#include "core/profile.hpp"
#include "core/random.hpp"
#include "core/rounding.hpp"
#include "error.hpp"

namespace minifloat {

// SrStream (where the random bits of one array come from) is core/random.hpp's.

/// Fill `out[i]` with `sr_bits(s.seed, s.stream, s.step, s.index_base + i, variant)` (random.hpp),
/// computing each Philox block once, in vectors (the same words as core/random.hpp's scalar
/// `fill_sr_bits(s, variant, out, n)`). These are the `rbits` the functions below hand to the engine:
/// for SrVariant::exact all 64 bits (two consecutive 32-bit cuRAND draws, low word first), for
/// A/B/C/equal one 32-bit draw (the engine reads its low `sr_bits` bits; `equal` its bit 0).
void fill_sr_bits(const SrStream& s, SrVariant variant, std::span<std::uint64_t> out) noexcept;
/// The same with sr_words(spec) words per element (random.hpp): what a conversion under `spec` reads
/// (two words, low first, for A/B/C/stochastic_odd with sr_bits > 32).
void fill_sr_bits(const SrStream& s, const RoundingSpec& spec, std::span<std::uint64_t> out) noexcept;

// ---- stochastic rounding of whole arrays --------------------------------------------------------
//
// Contract of every sr_convert_* function (the compiled-library boundary, so they throw):
//  - `spec.rounding` must be Rounding::sr and `spec.sr_bits` 1..64 (read by A/B/C/stochastic_odd only), else
//    minifloat::Error. The SrVariant is `spec.sr_variant` (default exact).
//  - `in` and `out` have the same length; codes are right-aligned in their storage word; 8-bit
//    storage holds formats of ≤ 8 bits, 16-bit storage ≤ 16 bits (as convert_span.hpp).
//  - out[i] is exactly the scalar `convert(source, in[i], to, spec, prof, rbits_i)` with
//    rbits_i = sr_bits(s.seed, s.stream, s.step, s.index_base + i, spec): one rounding
//    of the exact input (an f64 input is not rounded to f32 first unless `prof.source_via_f32`).
//  - `threads`: 0 = all cores (default_threads(), parallel_for.hpp), also the default; N = at most N.
//    These functions are one-line wrappers over the array door (convert_array.hpp) with the stream
//    `s`. The array is cut into min(threads, n / 4096) contiguous ranges (at least one), run by
//    parallel_for (the first on the calling thread). The result is
//    bit-identical for every thread count and chunking, because element i's bits depend on
//    (seed, stream, step, index_base + i) only. Returns the OR of every element's Flags.
//
// What SR does at the edges of the range (the engine, round_pack.hpp, IEEE P3109 v4.0 §4.7.4–5):
//  - SR picks between the two neighbours of |x| at the target's precision with the exponent range
//    unbounded above: RD = the magnitude rounded toward zero, RU = the next one up. Subnormals are
//    on the same fixed grid (quantum 2^(emin − mantissa_bits)), so P(up) = ν holds there too.
//  - Overflow::satfinite: a rounded magnitude above max becomes ±max. So x in (max, RU) becomes max
//    whatever the bits, and ±Inf → ±max. This is what PTX `cvt.rs` (always `.satfinite`) does.
//  - Overflow::satpropagate: like satfinite for finite x; ±Inf stays ±Inf where the format has it.
//  - Overflow::nonsat (P3109 SatNone): a rounded magnitude above max overflows to ±Inf (else NaN,
//    else ±max; Profile::fnuz_overflow applies). Hence a value whose upper neighbour RU lies beyond
//    max overflows with exactly the probability of rounding up (x in (448, 480) into e4m3fn: NaN with
//    P = (x − 448)/32, else 448), and a value whose lower neighbour RD is already beyond max
//    (x ≥ 480 into e4m3fn) overflows with probability 1. SR never uses the "directed modes stay
//    finite" exception of nonsat that rtz/rtp/rtn have.
//  - Signs: the magnitude is rounded, so SR(−x) = −SR(x) for the same bits (a zero result takes
//    the format's zero: +0 in FNUZ/P3109 formats). NaN, ±0 and representable x never read the bits.

/// The loop an sr_convert_* call into std::uint8_t codes runs. ArrayPath::simd (a table the engine
/// fills, simd/sr_table.hpp) when all hold. For f32/f16/bf16 sources the fused kernel
/// (simd/sr-inl.h) generates the Philox words in registers and makes the up/down decision in vector
/// lanes; the elements it leaves (up to 3 at the start, for the stream's block alignment; a tile
/// that reaches a wrap of Philox counter word c0; the tail shorter than two vectors of blocks; all
/// of them on the HWY_SCALAR target) take fill_sr_bits and the scalar table loop, as f64 sources do:
///  - any source (f32, f16, bf16, f64), except that an f64 source with `prof.source_via_f32`
///    (profiles::ml_dtypes, D11: an rne step to f32 comes first) takes the engine;
///  - `to` is a row of kNamedFormats (core/named_formats.hpp) flagged kArrayPath (compared field by field);
///  - `spec.rounding` is sr, any SrVariant (exact, a, b, c, equal) and sr_bits, any Overflow;
///  - `prof` equals profiles::ocp, ::nvidia, ::ml_dtypes or ::p3109.
/// Everything else, and inside the table path the inputs whose rounding reads more than one up/down
/// decision (subnormal sources, |x| more than 40 (f64: 63) bits below the target's quantum, the top
/// of the binade below 2^emin), runs the engine per element. f16/bf16 inputs are widened exactly to
/// binary32 bits first; the table path is keyed on binary32 (f64: binary64) bits. Either way the codes and flags are the engine's
/// (proved by tests/simd/: every f16 and bf16 input, RapidCheck over f32).
ArrayPath sr_path(Format to, RoundingSpec spec, Profile prof);

/// Stochastically round binary32 values to codes of `to` (≤ 8 bits).
/// **Example**: {1.0625f} → e4m3fn, exact variant: 0x38 (1.0) or 0x39 (1.125), each with P = ½.
Flags sr_convert_f32(std::span<const float> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Stochastically round binary32 values to codes of `to` (≤ 16 bits), e.g. f32 → bf16.
Flags sr_convert_f32(std::span<const float> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Stochastically round binary64 values to codes of `to` (≤ 8 bits), rounding the exact double once.
Flags sr_convert_f64(std::span<const double> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Stochastically round binary64 values to codes of `to` (≤ 16 bits).
Flags sr_convert_f64(std::span<const double> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Stochastically round IEEE binary16 values given as raw bits (sign 15, exponent 14..10,
/// mantissa 9..0) to codes of `to` (≤ 8 bits).
Flags sr_convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                          const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Stochastically round binary16 raw bits to codes of `to` (≤ 16 bits).
Flags sr_convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                          const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Stochastically round bfloat16 values given as raw bits (the top half of a binary32) to codes
/// of `to` (≤ 8 bits).
Flags sr_convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                           const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Stochastically round bfloat16 raw bits to codes of `to` (≤ 16 bits).
Flags sr_convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                           RoundingSpec spec, const SrStream& s, Profile prof = profiles::ocp,
                           unsigned threads = default_threads());

/// Same as sr_convert_f32 (overload spelled `sr_convert`).
inline Flags sr_convert(std::span<const float> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                        const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads()) {
  return sr_convert_f32(in, out, to, spec, s, prof, threads);
}
/// Same as sr_convert_f32 (16-bit codes).
inline Flags sr_convert(std::span<const float> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                        const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads()) {
  return sr_convert_f32(in, out, to, spec, s, prof, threads);
}
/// Same as sr_convert_f64 (overload spelled `sr_convert`).
inline Flags sr_convert(std::span<const double> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                        const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads()) {
  return sr_convert_f64(in, out, to, spec, s, prof, threads);
}
/// Same as sr_convert_f64 (16-bit codes).
inline Flags sr_convert(std::span<const double> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                        const SrStream& s, Profile prof = profiles::ocp, unsigned threads = default_threads()) {
  return sr_convert_f64(in, out, to, spec, s, prof, threads);
}

}  // namespace minifloat
