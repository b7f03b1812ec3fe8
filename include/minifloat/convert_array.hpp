// SPDX-License-Identifier: Apache-2.0
// convert_array.hpp: the one array door: any input array (f32, f64, f16 bits, bf16 bits, or codes of
// a format) → codes of a target format, in every rounding mode, with the dtype switch, the
// validation and the thread split in one place; part of the compiled library minifloat::minifloat.
// The named span functions (convert_span.hpp, stochastic.hpp), the CLI's convert/encode runner,
// the Python extension and the quantizer's array inputs all come through here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/format.hpp"
#include "core/profile.hpp"
#include "core/random.hpp"
#include "core/rounding.hpp"
#include "error.hpp"
#include "parallel_for.hpp"

namespace minifloat {

/// The element type of an input array.
enum class ArrayType : std::uint8_t {
  f32,    ///< binary32 values (float)
  f64,    ///< binary64 values (double)
  f16,    ///< IEEE binary16 raw bits (std::uint16_t: sign 15, exponent 14..10, mantissa 9..0)
  bf16,   ///< bfloat16 raw bits (std::uint16_t: the top 16 bits of a binary32)
  codes,  ///< codes of ArrayIn::code_format, right-aligned in 1-, 2-, 4- or 8-byte unsigned words
};

/// One input array: its element type, a pointer to `n` contiguous elements and, for
/// ArrayType::codes, their format and storage width. Build it with the named constructors.
struct ArrayIn {
  ArrayType type = ArrayType::f32;
  const void* data = nullptr;
  std::size_t n = 0;
  Format code_format{};         ///< ArrayType::codes only: the codes' format
  std::uint8_t code_bytes = 0;  ///< ArrayType::codes only: bytes per code word (1, 2, 4 or 8)

  static ArrayIn f32(std::span<const float> x) noexcept { return {ArrayType::f32, x.data(), x.size(), {}, 0}; }
  static ArrayIn f64(std::span<const double> x) noexcept { return {ArrayType::f64, x.data(), x.size(), {}, 0}; }
  static ArrayIn f16(std::span<const std::uint16_t> x) noexcept { return {ArrayType::f16, x.data(), x.size(), {}, 0}; }
  static ArrayIn bf16(std::span<const std::uint16_t> x) noexcept {
    return {ArrayType::bf16, x.data(), x.size(), {}, 0};
  }
  static ArrayIn codes(std::span<const std::uint8_t> c, Format from) noexcept {
    return {ArrayType::codes, c.data(), c.size(), from, 1};
  }
  static ArrayIn codes(std::span<const std::uint16_t> c, Format from) noexcept {
    return {ArrayType::codes, c.data(), c.size(), from, 2};
  }
  static ArrayIn codes(std::span<const std::uint32_t> c, Format from) noexcept {
    return {ArrayType::codes, c.data(), c.size(), from, 4};
  }
  static ArrayIn codes(std::span<const std::uint64_t> c, Format from) noexcept {
    return {ArrayType::codes, c.data(), c.size(), from, 8};
  }
};

/// The output codes: std::uint8_t words (formats of ≤ 8 bits) or std::uint16_t words (≤ 16 bits),
/// codes right-aligned (bits above `to.bits` zero), as the span functions of convert_span.hpp.
struct CodesOut {
  void* data = nullptr;
  std::size_t n = 0;
  std::uint8_t bytes = 1;  ///< 1 or 2

  CodesOut(std::span<std::uint8_t> c) noexcept : data(c.data()), n(c.size()), bytes(1) {}   // NOLINT: implicit
  CodesOut(std::span<std::uint16_t> c) noexcept : data(c.data()), n(c.size()), bytes(2) {}  // NOLINT: implicit
};

/// What to convert to and how.
struct ConvertRequest {
  Format to{};                             ///< the target format (validate() must accept it)
  RoundingSpec spec{};                     ///< mode, overflow, SR variant and sr_bits
  Profile profile = profiles::ocp;         ///< the vendor choices (profile.hpp)
  std::optional<SrStream> sr{};            ///< Rounding::sr: element i reads sr_bits(…, sr->index_base + i, variant)
  std::span<const std::uint64_t> rbits{};  ///< Rounding::sr without `sr`: element i reads rbits[i]
  unsigned threads = 0;                    ///< 0 = all cores (default_threads()), else at most this many threads
};

/// "" when `n` is an accepted SR random-bit count N (variants A/B/C), else "N is out of range;
/// accepted: 1..32". The one check of sr_bits: every front end and library function asks it.
std::string sr_bits_problem(long long n);

/// Convert `in` into `out`, codes of `req.to`, rounding every element once (the scalar `convert` of
/// core/convert.hpp, or a SIMD kernel proved equal to it: see encode_path and sr_path). Returns the
/// OR of every element's Flags.
///  - Shapes: `in.n == out.n`; `out.bytes` is 1 for formats of ≤ 8 bits, 2 for ≤ 16 bits (a wider
///    target, or 1-byte words for a 9..16-bit format, throws). Codes input: `code_format` valid and
///    at most 8·code_bytes bits, and every code without bits above code_format.bits (the error names
///    the first bad index); codes → codes is exactly decode → round once (no f32/f64 step).
///  - Rounding: `req.spec.rounding == Rounding::sr` needs exactly one of `req.sr` (the Philox stream
///    of core/random.hpp; element i uses index req.sr->index_base + i) and `req.rbits` (in.n words),
///    and spec.sr_bits 1..32; `req.sr` with another mode throws; a non-empty `rbits` with another
///    mode must still have in.n words and is not read.
///  - Threads: `req.threads` 0 = all cores. The array is cut into min(threads, n / 4096) contiguous
///    ranges (at least one), run by parallel_for; every element is converted on its own and its SR
///    bits depend only on its index, so the codes and flags are byte-identical for every count.
///  - Every error is a minifloat::Error whose text starts with `caller` (default "convert_array").
Flags convert_array(const ArrayIn& in, CodesOut out, const ConvertRequest& req, const char* caller = "convert_array");

}  // namespace minifloat
