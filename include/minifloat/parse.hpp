// SPDX-License-Identifier: Apache-2.0
// parse.hpp: text → exact values and codes, for the CLI and the table tools.
#pragma once
#include <cstdint>
#include <string_view>

#include "core/format.hpp"
#include "core/unpacked.hpp"
#include "error.hpp"

namespace minifloat {

/// Parse a number into its exact value, ready for round_pack (so it is rounded once, never
/// through a double). Accepted: decimals with optional sign, fraction and exponent
/// (`-1e-7`, `-.5`, `448`, `1.0625E+2`), C99 hex floats (`0x1.8p3`, `-0x.8p-2`, `0x1p0`),
/// `inf`/`infinity`/`nan` with optional sign, case-insensitive. Decimal magnitudes beyond
/// 10^±100000 are kept as "huge" or "tiny" sticky values (they overflow or underflow every
/// format). Throws ParseError naming the text and the accepted forms.
Unpacked parse_value(std::string_view text);

/// Parse a code `0x…` (hex digits, at most 16) and check that it fits in `f.bits`.
/// Throws ParseError ("code 0x100 is wider than the 8 bits of e4m3fn") otherwise.
std::uint64_t parse_code(std::string_view text, Format f);

}  // namespace minifloat
