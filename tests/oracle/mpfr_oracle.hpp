// SPDX-License-Identifier: Apache-2.0
// mpfr_oracle.hpp: an independent reference for rounding an exact value into a SpecFormat:
// MPFR rounds at the target's precision, exponent range and subnormals; the rounded value is
// mapped to a code through a value→code table built by the oracle's own decoder; the
// overflow/NaN/Inf/zero/unsigned rules are written from the specs and the issue text.
// No minifloat header is included here.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>

#include <mpfr.h>

#include "spec_formats.hpp"

namespace minifloat_test::oracle {

/// Rounding direction: roundTiesToEven, roundTiesToAway, toward zero, toward +∞, toward −∞,
/// round to odd (toward zero, then set the last kept bit when inexact); rnz: round to nearest,
/// ties toward zero (CPFloat CPFLOAT_RND_NZ), decided here from the two MPFR grid neighbours and
/// their exact midpoint (MPFR has no such mode); rnu: round to nearest, ties toward +∞ (AMD Quark's
/// DPU_ROUND), decided the same way with the sign of x.
enum class Mode : std::uint8_t { rne, rna, rtz, rtp, rtn, rto, rnz, rnu };
/// Overflow policy. nonsat: ±Inf where the format has it, else NaN, else ±max, with IEEE 754 §7.4
/// for the directed modes (rtz/rto → ±max; rtp: −overflow → −max; rtn: +overflow → +max).
/// satfinite: finite overflow and ±Inf → ±max. satpropagate: finite overflow → ±max; ±Inf stays
/// ±Inf where the format has it, else NaN, else ±max.
enum class Overflow : std::uint8_t { nonsat, satfinite, satpropagate };

/// Which implementation-defined rule set applies.
struct Options {
  /// false: the ocp profile (default). true: the p3109 profile, i.e. P3109 v4.0 §4.7.3–§4.7.5
  /// Project = RoundToPrecision → Saturate → Encode, written from the report:
  ///  - P = 1 ties (NearestTiesToEven) and ToOdd use the code's parity, IsEven(Q + B);
  ///  - a negative value into an unsigned format is rounded first: R = 0 gives 0; otherwise
  ///    SatNone → NaN (invalid), SatFinite/SatPropagate → M_lo = 0 (inexact); −Inf likewise;
  ///  - SatNone (nonsat) into a finite-domain format saturates ±Inf and finite overflow to M_hi/M_lo;
  ///  - SatNone ToOdd overflow gives ±Inf in a signed extended format (unsigned: M_hi).
  bool p3109 = false;
  /// A NaN produced by finite overflow (nonsat into a format with NaN but no Inf) also raises
  /// `invalid`. Default false: IEEE 754 §7.4 signals only overflow|inexact on overflow, and the
  /// NaN there plays Inf's role. (minifloat's Flags doc literally says invalid = "NaN produced
  /// from a non-NaN"; set true to hold the engine to that wording.)
  bool overflow_nan_invalid = false;
};

/// Flag bits of the oracle (the test maps minifloat's Flags onto these by name).
enum : unsigned { kInexact = 1, kUnderflow = 2, kOverflow = 4, kInvalid = 8 };
/// "inexact|underflow" style text for messages.
std::string flags_text(unsigned flags);
const char* mode_name(Mode m);
const char* overflow_name(Overflow o);

/// A code and the flags the conversion must raise.
struct Result {
  std::uint64_t code = 0;
  unsigned flags = 0;
  friend bool operator==(const Result&, const Result&) = default;
};

/// A rounding target: the spec, its value→code table and MPFR scratch variables (reused, so
/// a Target is not thread-safe; make one per thread). Requires spec.fits_double().
class Target {
 public:
  explicit Target(SpecFormat spec);
  ~Target();
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;

  [[nodiscard]] const SpecFormat& spec() const { return spec_; }
  /// Largest finite value (from the decoder) and its codes.
  [[nodiscard]] double max_finite() const { return max_finite_; }
  [[nodiscard]] std::uint64_t max_code(bool negative) const { return negative ? max_code_neg_ : max_code_pos_; }
  /// Code of a representable finite value (±0 by the sign of `v`); throws if `v` is not one.
  [[nodiscard]] std::uint64_t code_of(double v) const;

  /// Round the exact value `x` (any precision; NaN sign read with mpfr_signbit).
  Result round(const mpfr_t x, Mode mode, Overflow overflow, const Options& opt = {});

 private:
  int grid(mpfr_t out, const mpfr_t x, mpfr_rnd_t rnd, bool bounded);
  int round_to_grid(mpfr_t out, const mpfr_t x, Mode mode, bool bounded, const Options& opt);
  bool last_bit_odd(const mpfr_t z, bool code_parity, bool bounded);
  std::uint64_t nan_code(bool negative) const { return negative ? spec_.nan_out_neg : spec_.nan_out_pos; }

  SpecFormat spec_;
  std::unordered_map<double, std::uint64_t> code_of_value_;
  std::uint64_t zero_pos_ = 0, zero_neg_ = 0;
  std::uint64_t max_code_pos_ = 0, max_code_neg_ = 0;
  double max_finite_ = 0;
  mpfr_t unb_, bnd_, z_, a_, mid_, tmp_, min_normal_, maxv_;
};

/// Convenience: set `out` to the exact value of a code of a source format (f16, bf16, …).
void set_from_code(mpfr_t out, const SpecFormat& source, std::uint64_t code);
/// Set `out` to the exact value of a double / float (NaN keeps its sign bit).
void set_from_double(mpfr_t out, double v);

}  // namespace minifloat_test::oracle
