// SPDX-License-Identifier: Apache-2.0
// nearest_oracle.hpp: an independent scalar rounding oracle (sorted value list + binary search)
// for the named formats of at most 8 bits; it shares no code with the minifloat engine.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace minifloat_test::sweep {

/// Rounding direction, named as in the issue ("rne rna rtz rtp rtn rto"; rnz and rnu from issue 25 item 5).
enum class Mode : std::uint8_t { rne, rna, rtz, rtp, rtn, rto, rnz, rnu };  ///< rnz/rnu: ties toward zero/+Inf
/// Overflow policy ("nonsat satfinite satpropagate"), see NearestOracle::round.
enum class Policy : std::uint8_t { nonsat, satfinite, satpropagate };

/// Which codes of a format are Inf/NaN, written from the specs (not from the engine):
///  - `ieee`: exponent field all ones is Inf (mantissa 0) or NaN (OFP8 E5M2, ml_dtypes e4m3/e3m4);
///  - `fn`: only the all-ones magnitude is NaN, no Inf (OFP8 E4M3, UE8M0, NVFP4 UE4M3);
///  - `fnuz`: the negative-zero code 0x80 is the single NaN, no Inf, no −0 (AMD/Graphcore FNUZ);
///  - `none`: every code is finite (OCP MX FP6/FP4).
enum class SpecialKind : std::uint8_t { ieee, fn, fnuz, none };

/// A format's field layout as the specs give it (spec-digest §1.1, §2.1, §5.1, §5.2).
/// Code layout `[S] E…E M…M`; value (−1)^S·2^(E−bias)·1.M for E ≥ 1 (and for E = 0 when
/// `has_zero` is false), (−1)^S·2^(1−bias)·0.M for E = 0.
struct FormatSpec {
  std::string_view name;  ///< canonical minifloat name, e.g. "e4m3fn"
  int bits;               ///< code width
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool is_signed;
  SpecialKind specials;
  bool has_zero;  ///< false only for e8m0fnu
};

/// The 12 named formats of at most 8 bits, in the order: e4m3fn e5m2 e4m3fnuz e5m2fnuz
/// e4m3b11fnuz e4m3 e3m4 e3m2fn e2m3fn e2m1fn e8m0fnu ue4m3.
const std::vector<FormatSpec>& sweep_formats();
/// The spec of `name`, or nullptr when it is not one of sweep_formats().
const FormatSpec* find_format(std::string_view name);

std::string_view mode_name(Mode m);
std::string_view policy_name(Policy p);
/// Parse "rne"…"rto" / "nonsat"… ; return false when the name is unknown.
bool parse_mode(std::string_view name, Mode& out);
bool parse_policy(std::string_view name, Policy& out);

/// The oracle's answer: the code and the inexact/overflow flags.
/// `inexact`: the result's value differs from the input (never set for NaN results or NaN
/// inputs, which raise IEEE "invalid" instead); `overflow`: the input rounded with an unbounded
/// exponent range exceeds the largest finite value (never set for ±Inf inputs).
struct OracleResult {
  std::uint32_t code = 0;
  bool inexact = false;
  bool overflow = false;
  friend bool operator==(const OracleResult&, const OracleResult&) = default;
};

/// Round-to-format by enumeration: every finite non-negative value of the format, sorted, as
/// exact doubles, plus the virtual value max + ulp(max) (the next value up with an unbounded
/// exponent). A finite input is placed between its two neighbours by binary search and the mode
/// picks one of them; picking the virtual value means overflow. Rules of the `ocp` profile
/// (issue 2, "Defaults to implement exactly"):
///  - NaN → NaN with the input's sign (e4m3fn 0x7f/0xff; IEEE-style formats the quiet NaN, e.g.
///    e5m2 0x7e/0xfe; FNUZ 0x80; unsigned formats their single NaN); formats without NaN → +max.
///  - negative nonzero (or −Inf) into an unsigned format → its NaN.
///  - ±Inf: satfinite → ±max; nonsat/satpropagate → ±Inf, else NaN, else ±max.
///  - ±0 → ±0 where −0 exists, else 0x00; e8m0fnu (no zero): 0 and |x| < 2^−127 → 0x00.
///  - rne ties go to the even code; without mantissa bits (e8m0fnu) ties go up (1.5·2^k → 2^(k+1))
///    and rto equals rtz (a one-bit significand is always odd).
///  - overflow: satfinite/satpropagate → ±max; nonsat: rtz and rto → ±max, rtp → +Inf/NaN/+max
///    for positive and −max for negative, rtn symmetrically, rne/rna → ±Inf, else NaN, else ±max.
class NearestOracle {
 public:
  explicit NearestOracle(const FormatSpec& spec);

  /// Round the exact value of the binary32 pattern `bits`.
  OracleResult round_f32(std::uint32_t bits, Mode mode, Policy policy) const;
  /// Round an exact double (any double, NaN and ±Inf included).
  OracleResult round(double v, Mode mode, Policy policy) const;

  const FormatSpec& spec() const { return spec_; }
  /// The finite non-negative values in increasing order (without the virtual value).
  std::vector<double> finite_values() const;
  double max_value() const { return values_[values_.size() - 2]; }
  std::uint32_t max_code() const { return codes_[codes_.size() - 2]; }
  /// The NaN code for an input of the given sign (only when the format has NaN).
  std::uint32_t nan_code(bool negative) const;
  bool has_nan() const { return spec_.specials != SpecialKind::none; }
  bool has_inf() const { return spec_.specials == SpecialKind::ieee; }
  bool has_negative_zero() const { return spec_.is_signed && spec_.has_zero && spec_.specials != SpecialKind::fnuz; }

 private:
  OracleResult overflow_result(bool negative, Mode mode, Policy policy) const;
  FormatSpec spec_;
  std::uint32_t sign_bit_ = 0;
  std::vector<double> values_;        // sorted finite magnitudes, then the virtual max + ulp(max)
  std::vector<std::uint32_t> codes_;  // the magnitude code of each value (virtual: max code + 1)
};

}  // namespace minifloat_test::sweep
