// SPDX-License-Identifier: Apache-2.0
// spec_formats.hpp: the oracle's own description of every format, written from the specs
// (spec-digest §1, §2.1, §3.1, §5), and an exact decoder built from the field layout alone.
// This header, and everything in the oracle library, must not include any minifloat header.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <mpfr.h>

namespace minifloat_test::oracle {

/// Which codes are NaN.
enum class NanRule : std::uint8_t {
  none,    ///< no NaN code at all (OCP MX FP6/FP4)
  ieee,    ///< exponent field all ones and mantissa field nonzero, either sign (IEEE 754 style)
  listed,  ///< exactly the codes in SpecFormat::nan_codes
};

/// A format as the specs describe it. Bit layout, most significant first: `[S] E…E M…M`.
/// Every special code is given explicitly (numbers copied from the specs, or from the
/// P3109 §3.1 table formulas), never derived from a shared "specials kind".
struct SpecFormat {
  std::string name;      ///< canonical name (also the minifloat registry name)
  int k = 0;             ///< code width in bits
  int ebits = 0;         ///< exponent field width
  int mbits = 0;         ///< trailing significand width (precision − 1)
  int bias = 0;          ///< exponent bias
  bool is_signed = true; ///< top bit is a sign bit (sign-magnitude)
  bool has_zero = true;  ///< false: no zero code; exponent field 0 is a normal binade (e8m0fnu)
  bool has_neg_zero = false;  ///< the code `sign bit | 0` means −0
  NanRule nan_rule = NanRule::none;
  std::vector<std::uint64_t> nan_codes;    ///< the NaN codes when nan_rule == listed
  std::optional<std::uint64_t> pos_inf;    ///< +Inf code, if any
  std::optional<std::uint64_t> neg_inf;    ///< −Inf code, if any
  std::uint64_t nan_out_pos = 0;  ///< NaN code the ocp profile outputs for +NaN (when a NaN exists)
  std::uint64_t nan_out_neg = 0;  ///< NaN code the ocp profile outputs for −NaN (same as pos for a single NaN)
  bool is_p3109 = false;          ///< member of the IEEE P3109 family
  int p3109_p = 0;                ///< P (precision) for P3109 formats

  [[nodiscard]] bool has_nan() const { return nan_rule != NanRule::none; }
  [[nodiscard]] bool has_inf() const { return pos_inf.has_value(); }
  [[nodiscard]] int precision() const { return mbits + 1; }
  /// Unbiased exponent of the smallest normal binade: 1 − bias (with zero) or −bias (e8m0fnu).
  [[nodiscard]] int emin() const { return (has_zero ? 1 : 0) - bias; }
  [[nodiscard]] std::uint64_t sign_bit() const { return is_signed ? (std::uint64_t{1} << (k - 1)) : 0; }
  [[nodiscard]] std::uint64_t code_count() const { return std::uint64_t{1} << k; }
  /// True when every value (min subnormal to max) is a normal or subnormal double.
  [[nodiscard]] bool fits_double() const;
};

/// The named formats of ≤ 16 bits (e4m3fn e5m2 … ue4m3 f16 bf16). The tests match them to the
/// library's table of named formats by name (engine_map.hpp named_format_specs; the order is free),
/// and Coverage.EveryNamedFormatHasAnOracleSpec fails when a row of ≤ 16 bits has no entry here.
const std::vector<SpecFormat>& named_specs();
/// The named formats of ≤ 8 bits.
std::vector<SpecFormat> named_specs_upto_8_bits();
/// Look up a named or P3109 spec by its canonical name; throws std::invalid_argument.
SpecFormat spec_by_name(const std::string& name);
/// IEEE P3109 v4.0 Binary{K}p{P}{s|u}{e|f} (§3.1 table): signed: K−P exponent bits, bias
/// 2^(K−P−1), NaN 2^(K−1), extended +Inf 2^(K−1)−1 and −Inf 2^K−1; unsigned: K−P+1 exponent
/// bits, bias 2^(K−P), NaN 2^K−1, extended +Inf 2^K−2. A single zero (no −0).
SpecFormat p3109_spec(int k, int p, bool is_signed, bool extended);
/// Every P3109 format with the given K (signed P = 1..K−1, unsigned P = 1..K, both domains).
std::vector<SpecFormat> p3109_specs(int k);

/// Class of a decoded code.
enum class Kind : std::uint8_t { finite, inf, nan };

/// An exactly decoded code: (−1)^negative · sig · 2^exp for finite values (sig = 0 for zero).
struct Exact {
  Kind kind = Kind::finite;
  bool negative = false;
  std::uint64_t sig = 0;
  int exp = 0;
};

/// Decode `code` (must be < 2^k) from the field layout: NaN/Inf by the explicit lists, then
/// value = (−1)^S · 2^(E−bias) · (1 + M/2^m) for E ≥ 1 (or any E without zero), and
/// (−1)^S · 2^(1−bias) · (M/2^m) for E = 0 with zero. Throws std::out_of_range for a wide code.
Exact decode(const SpecFormat& f, std::uint64_t code);
/// The value as a double (exact when f.fits_double(); NaN keeps the sign).
double to_double(const Exact& v);
/// The value into an initialised mpfr_t (exact: precision is raised to ≥ 64 bits).
void to_mpfr(mpfr_t out, const Exact& v);

}  // namespace minifloat_test::oracle
