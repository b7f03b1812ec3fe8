// SPDX-License-Identifier: Apache-2.0
// convert_span.hpp: the named whole-array conversions (f32/f64/f16/bf16 arrays → codes, codes →
// f32/f64) through the one rounding engine; part of the compiled library minifloat::minifloat. The
// encoders are one-line wrappers over the array door convert_array (convert_array.hpp).
#pragma once
#include <cstdint>
#include <span>

#include "core/format.hpp"
#include "core/profile.hpp"
#include "core/rounding.hpp"
#include "error.hpp"
#include "parallel_for.hpp"

namespace minifloat {

// Common contract of every function below (they are the compiled-library boundary, so they throw):
//  - `in` and `out` must have the same number of elements, else minifloat::Error.
//  - Element i of `out` is exactly what the scalar `convert` (convert.hpp) gives for element i of
//    `in`, with the same RoundingSpec and Profile: every element is unpacked exactly and rounded
//    once by `round_pack`. The Flags returned are the OR of every element's flags.
//  - Codes are right-aligned in their storage word (bits above `to.bits` are zero): an e2m1fn code
//    occupies the low 4 bits of its std::uint8_t, an e3m2fn code the low 6.
//  - std::uint8_t code arrays hold formats of at most 8 bits; std::uint16_t arrays at most 16
//    (f16, bf16, P3109 K ≤ 16, custom). A wider format throws minifloat::Error.
//  - A format that fails `validate()` throws minifloat::Error.
//  - Rounding::sr needs one 64-bit word of random bits per element: `rbits` must then have
//    `in.size()` elements (element i rounds with rbits[i], see SrVariant), and `spec.sr_bits` must
//    be 1..32; otherwise minifloat::Error. For the other modes `rbits` must be empty or
//    `in.size()` long, and is not read.
//  - The named formats flagged kArrayPath in core/named_formats.hpp's kNamedFormats (the FP8, FP6, FP4
//    formats and the block scales), and f16 bf16, run a loop compiled for that format (the descriptor is a constant);
//    every other format runs the same loop with the descriptor as a run-time value.
//  - `threads`: 0 = all cores (default_threads(), parallel_for.hpp), which is also the default;
//    N = at most N threads. The array is cut into min(threads, n / 4096) contiguous ranges (at least
//    one), run by parallel_for (the first on the calling thread). Every element is converted on its
//    own, so codes and flags are byte-identical for every thread count and chunking.
//  - Some combinations run a SIMD kernel (Google Highway, dispatched at run time to the best of
//    AVX2/SSE4/SSSE3/EMU128 the CPU has) instead of the engine loop; see `encode_path` below for the
//    exact whitelist. The kernels read tables built by the engine and are proved equal to it by
//    tests/simd/ (every f16 and bf16 input, on every target), so the results are the same either way.

/// Which loop an array conversion runs.
enum class ArrayPath : std::uint8_t {
  engine,  ///< the scalar loop: unpack → round_pack per element
  simd,    ///< a Highway kernel looking codes and flags up in a table filled by the engine
};

/// The path of convert_f32 / convert_f16_bits / convert_bf16_bits / convert_f64 into std::uint8_t
/// codes (std::uint16_t code arrays always take ArrayPath::engine). The whitelist, everything
/// else goes to the engine:
///  - `to` is a row of kNamedFormats (core/named_formats.hpp) flagged kArrayPath (compared field by
///    field; a custom descriptor equal to one of them is that format);
///  - `spec.rounding` is rne, rna, rtz, rtp, rtn or rto (never sr), with any Overflow;
///  - `prof` equals profiles::ocp, ::nvidia, ::ml_dtypes or ::p3109 (every field; a modified
///    profile goes to the engine).
/// Key of the table (simd/convert-inl.h): sign, exponent and the top mantissa_bits + 2 mantissa bits
/// of the binary32 input plus one sticky bit; its 2^(mantissa_bits + 12) entries are built by the
/// engine once per combination and process (≤ 64 Ki entries, about 1 ms). An f64 source is first
/// narrowed to the binary32 whose key is that of the exact double (simd/f64-inl.h: round-to-odd in
/// 64-bit lanes; with prof.source_via_f32 the engine's rne f32 step and its flags), and a finite
/// |x| ≥ 2^128 takes the engine's result for ±2^128.
ArrayPath encode_path(Format to, RoundingSpec spec, Profile prof);
/// The path of decode_to_f32 from std::uint8_t codes: ArrayPath::simd for the 12 formats and 4
/// profiles of encode_path (an arithmetic decode in vector lanes whose constants come from the format
/// and from the engine's decodes of all its codes, and which is checked against them), else
/// ArrayPath::engine.
/// decode_to_f64 and std::uint16_t codes always take ArrayPath::engine.
ArrayPath decode_path(Format from, Profile prof);

/// Convert binary32 values to codes of `to` (≤ 8 bits).
/// **Example**: {464.f, -1.f} → e4m3fn {0x7e, 0xb8}, flags inexact (OCP OFP8 v1.0; T1).
Flags convert_f32(std::span<const float> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec = {},
                  Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                  unsigned threads = default_threads());
/// Convert binary32 values to codes of `to` (≤ 16 bits), e.g. f32 → f16 or bf16.
Flags convert_f32(std::span<const float> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec = {},
                  Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                  unsigned threads = default_threads());

/// Convert binary64 values to codes of `to` (≤ 8 bits), rounding once from the exact double
/// (unless `prof.source_via_f32`, D11: then an rne step through f32 comes first, as ml_dtypes).
Flags convert_f64(std::span<const double> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec = {},
                  Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                  unsigned threads = default_threads());
/// Convert binary64 values to codes of `to` (≤ 16 bits).
Flags convert_f64(std::span<const double> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec = {},
                  Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                  unsigned threads = default_threads());

/// Convert IEEE binary16 values, given as their raw bits (sign bit 15, exponent bits 14..10,
/// mantissa bits 9..0), to codes of `to` (≤ 8 bits).
Flags convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to,
                       RoundingSpec spec = {}, Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                       unsigned threads = default_threads());
/// Convert binary16 raw bits to codes of `to` (≤ 16 bits).
Flags convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                       RoundingSpec spec = {}, Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                       unsigned threads = default_threads());

/// Convert bfloat16 values, given as their raw bits (the top 16 bits of a binary32), to codes
/// of `to` (≤ 8 bits).
Flags convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to,
                        RoundingSpec spec = {}, Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                        unsigned threads = default_threads());
/// Convert bfloat16 raw bits to codes of `to` (≤ 16 bits).
Flags convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                        RoundingSpec spec = {}, Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                        unsigned threads = default_threads());

/// Same as convert_f32 (overload spelled `convert` for float arrays).
inline Flags convert(std::span<const float> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec = {},
                     Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                     unsigned threads = default_threads()) {
  return convert_f32(in, out, to, spec, prof, rbits, threads);
}
/// Same as convert_f32 (16-bit codes).
inline Flags convert(std::span<const float> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec = {},
                     Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                     unsigned threads = default_threads()) {
  return convert_f32(in, out, to, spec, prof, rbits, threads);
}
/// Same as convert_f64 (overload spelled `convert` for double arrays).
inline Flags convert(std::span<const double> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec = {},
                     Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                     unsigned threads = default_threads()) {
  return convert_f64(in, out, to, spec, prof, rbits, threads);
}
/// Same as convert_f64 (16-bit codes).
inline Flags convert(std::span<const double> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec = {},
                     Profile prof = profiles::ocp, std::span<const std::uint64_t> rbits = {},
                     unsigned threads = default_threads()) {
  return convert_f64(in, out, to, spec, prof, rbits, threads);
}

/// Decode codes of `from` (≤ 8 bits) to binary32, rounding to nearest even (exact for every
/// format of ≤ 16 bits; `prof.decode_ftz` (D17) flushes subnormal results to ±0). A code with
/// bits set above `from.bits` throws minifloat::Error naming its index.
/// **Example**: e4m3fn {0x7e, 0x7f} → {448.f, NaN}; e8m0fnu {0x00} → {2^−127}.
Flags decode_to_f32(std::span<const std::uint8_t> codes, std::span<float> out, Format from,
                    Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Decode codes of `from` (≤ 16 bits) to binary32.
Flags decode_to_f32(std::span<const std::uint16_t> codes, std::span<float> out, Format from,
                    Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Decode codes of `from` (≤ 8 bits) to binary64 (always exact).
Flags decode_to_f64(std::span<const std::uint8_t> codes, std::span<double> out, Format from,
                    Profile prof = profiles::ocp, unsigned threads = default_threads());
/// Decode codes of `from` (≤ 16 bits) to binary64 (always exact).
Flags decode_to_f64(std::span<const std::uint16_t> codes, std::span<double> out, Format from,
                    Profile prof = profiles::ocp, unsigned threads = default_threads());

}  // namespace minifloat
