// SPDX-License-Identifier: Apache-2.0
// parse.hpp: text → exact values and codes, for the CLI and the table tools.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/format.hpp"
#include "core/unpacked.hpp"
#include "error.hpp"

namespace minifloat {

/// The most significant digits parse_value accepts (decimal or hex), counted from the first nonzero
/// digit through the last nonzero one: leading and trailing zeros are not counted (`1` followed by
/// 50000 zeros is 10^50000, one significant digit). 40000 decimal digits hold the exact expansion of every value of
/// every format up to f64 (its smallest subnormal needs 751); the limit keeps the exact big-integer
/// arithmetic bounded on hostile input.
inline constexpr std::size_t kMaxSignificantDigits = 40000;

/// Parse a number into its exact value, ready for round_pack (so it is rounded once, never
/// through a double). Accepted: decimals with optional sign, fraction and exponent
/// (`-1e-7`, `-.5`, `448`, `1.0625E+2`), C99 hex floats (`0x1.8p3`, `-0x.8p-2`, `0x1p0`; the binary
/// exponent p±N is required: `0x7e` alone is refused, as a code is read by parse_code),
/// `inf`/`infinity`/`nan` with optional sign, case-insensitive; at most kMaxSignificantDigits
/// significant digits. Magnitudes beyond 10^±100000 (decimal) or 2^±332192 (hex) are kept as
/// "huge" or "tiny" sticky values (they overflow or underflow every format accepted by
/// validate(), with the flags the exact value would raise). The result is exact, or, with
/// `sticky`, the exact value truncated to the bits of `sig`.
/// Throws ParseError naming what is wrong and the accepted forms; the message quotes at most
/// the first 40 bytes of the text (non-printable bytes as \xNN), then "…".
Unpacked parse_value(std::string_view text);

/// Parse a code `0x…` (hex digits, at most 16) and check that it fits in `f.bits`.
/// Throws ParseError ("code 0x100 is wider than the 8 bits of e4m3fn") otherwise.
std::uint64_t parse_code(std::string_view text, Format f);

}  // namespace minifloat
