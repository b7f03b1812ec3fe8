// SPDX-License-Identifier: Apache-2.0
// decimal.hpp: exact text forms of values, codes, classes and flags (compiled library: the
// header-only core never allocates). Every binary value has a finite decimal expansion, and
// these functions print it in full: no rounding, no locale, no doubles.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "core/format.hpp"
#include "core/rounding.hpp"
#include "core/unpacked.hpp"
#include "error.hpp"

namespace minifloat {

/// The exact decimal expansion of `v`, positional (never an exponent), shortest exact form:
/// `448`, `-0.5`, `0.001953125`, `0`, `-0`, `inf`, `-inf`, `nan`, `-nan` (a NaN with its sign bit set:
/// e4m3fn 0xff, and the FNUZ/P3109 NaN 0x80, which converts as a negative NaN).
/// 2^−127 prints all of its 127 fractional digits. Throws Error when `v.sticky` is set (the
/// value is then not known exactly).
std::string to_decimal(const Unpacked& v);

/// The exact value of `v` as a C99 hexadecimal float, normalised to a leading `1`, with trailing
/// zero hex digits removed: `0x1.cp+8` (448), `-0x1p-127`, `0x0p+0`, `-0x0p+0`; `inf`, `-inf`,
/// `nan`, `-nan`. Parses back with parse_value(). Throws Error when `v.sticky` is set.
std::string to_hex_float(const Unpacked& v);

/// A short exact form for listings: the decimal when it has at most `max_chars` characters,
/// else the hex float (`0x1p-16` for e5m2's min subnormal, `0x1.fffffffffffffp+1023` for f64's max).
std::string to_short_exact(const Unpacked& v, std::size_t max_chars = 12);

/// `code` as lowercase hex with ceil(bits/4) digits: code_hex(0x7e, 8) = "0x7e",
/// code_hex(0x7, 4) = "0x7", code_hex(0x400000, 32) = "0x00400000". A value wider than `bits` (a
/// kernel's out-of-range output) is printed whole, never cut: code_hex(0x1ff, 8) = "0x1ff".
std::string code_hex(std::uint64_t code, int bits);

/// The low `width` bits of `x`, most significant first: bit_string(0b110, 3) = "110"; "" when width is 0.
std::string bit_string(std::uint64_t x, int width);

/// "zero", "subnormal", "normal", "inf" or "nan".
std::string_view class_name(Class c);

/// The raised flags joined with `|` in the order inexact, underflow, overflow, invalid
/// ("inexact|overflow"), or "none".
std::string flags_string(Flags f);

}  // namespace minifloat
