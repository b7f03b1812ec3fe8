// SPDX-License-Identifier: Apache-2.0
// mpfr_oracle.hpp: an MPFR reference for correctly rounded arithmetic into small binary formats,
// sharing no code with the engine (it includes no minifloat header).
#pragma once
#include <cstdint>
#include <string>

namespace arith_oracle {

/// How a format uses its special codes (restated from OCP OFP8 v1.0 / OCP MX v1.0 / IEEE 754).
enum class Kind { ieee, fn, fnuz, none };

/// A format as the specs describe it. max_finite is a spec literal (checked against the field
/// rules by the oracle's self test).
struct OFormat {
  const char* name;
  int bits, ebits, mbits, bias;
  bool is_signed;
  Kind kind;
  bool has_zero;
  double max_finite;
};

enum class Mode { rne, rna, rtz, rtp, rtn, rto };
enum class Op { add, sub, mul, div, sqrt, fma };

/// Expected result: the code and the IEEE flags (inexact, underflow = tiny after rounding,
/// overflow, invalid).
struct Result {
  std::uint64_t code = 0;
  bool inexact = false, underflow = false, overflow = false, invalid = false;
};

/// The OCP / IEEE conventions the reference applies (they are the documented behaviour of the
/// library under its default `ocp` profile and nonsat overflow):
///  - a NaN operand gives a NaN with the sign of the first NaN operand (no flag); an invalid
///    operation (as MPFR reports it: Inf−Inf, 0·Inf, 0/0, Inf/Inf, sqrt(<0)) a positive NaN +
///    invalid. NaN encodings: ieee quiet (exponent ones, top mantissa bit), fn all-ones
///    magnitude with sign, fnuz 0x80; no-NaN formats get +max with invalid;
///  - Inf into a format without Inf: NaN + invalid (fn/fnuz) or ±max + inexact (none);
///  - overflow (rounded magnitude with unbounded exponent > max): rne/rna → Inf, else NaN, else
///    max; rtz/rto → max; rtp/rtn → Inf-rule toward the mode's infinity, max the other way;
///  - zero sign as IEEE 754 §6.3 (computed by MPFR); no −0 code → +0; unsigned target and a
///    negative nonzero result → NaN + invalid; a format without zero sends |x| below its
///    minimum (and exact 0) to the minimum code with underflow + inexact.
Result compute(Op op, const OFormat& fa, std::uint64_t a, const OFormat& fb, std::uint64_t b, const OFormat& fc,
               std::uint64_t c, const OFormat& out, Mode mode);

/// The exact value of a finite code as a decimal string "(-)M*2^E" (diagnostics).
std::string describe(const OFormat& f, std::uint64_t code);

namespace formats {
inline constexpr OFormat e4m3fn{"e4m3fn", 8, 4, 3, 7, true, Kind::fn, true, 448.0};
inline constexpr OFormat e5m2{"e5m2", 8, 5, 2, 15, true, Kind::ieee, true, 57344.0};
inline constexpr OFormat e4m3fnuz{"e4m3fnuz", 8, 4, 3, 8, true, Kind::fnuz, true, 240.0};
inline constexpr OFormat e5m2fnuz{"e5m2fnuz", 8, 5, 2, 16, true, Kind::fnuz, true, 57344.0};
inline constexpr OFormat e8m0fnu{"e8m0fnu", 8, 8, 0, 127, false, Kind::fn, false, 1.7014118346046923e38};  // 2^127
inline constexpr OFormat e2m1fn{"e2m1fn", 4, 2, 1, 1, true, Kind::none, true, 6.0};
inline constexpr OFormat e2m3fn{"e2m3fn", 6, 2, 3, 1, true, Kind::none, true, 7.5};
inline constexpr OFormat e3m2fn{"e3m2fn", 6, 3, 2, 3, true, Kind::none, true, 28.0};
inline constexpr OFormat e4m3{"e4m3", 8, 4, 3, 7, true, Kind::ieee, true, 240.0};                  // ml_dtypes float8_e4m3
inline constexpr OFormat e3m4{"e3m4", 8, 3, 4, 3, true, Kind::ieee, true, 15.5};                   // ml_dtypes float8_e3m4
inline constexpr OFormat e4m3b11fnuz{"e4m3b11fnuz", 8, 4, 3, 11, true, Kind::fnuz, true, 30.0};   // ml_dtypes
inline constexpr OFormat ue4m3{"ue4m3", 7, 4, 3, 7, false, Kind::fn, true, 448.0};                 // NVFP4 block scale
inline constexpr OFormat f16{"f16", 16, 5, 10, 15, true, Kind::ieee, true, 65504.0};
inline constexpr OFormat bf16{"bf16", 16, 8, 7, 127, true, Kind::ieee, true, 3.3895313892515355e38};
inline constexpr OFormat f32{"f32", 32, 8, 23, 127, true, Kind::ieee, true, 3.4028234663852886e38};
inline constexpr OFormat f64{"f64", 64, 11, 52, 1023, true, Kind::ieee, true, 1.7976931348623157e308};
/// The formats of at most 8 bits above, typed from the specs: arith_exhaustive_test.cpp derives its formats
/// from the conversion oracle's specs (tests/oracle/spec_formats.cpp) and pins these literals to that
/// derivation (ArithCoverage.DerivedFormatsEqualTheOracleLiterals); a new format needs no row here.
inline constexpr const OFormat* kUpTo8Bits[] = {&e4m3fn, &e5m2,   &e4m3fnuz, &e5m2fnuz, &e8m0fnu,     &e2m1fn,
                                                &e2m3fn, &e3m2fn, &e4m3,     &e3m4,     &e4m3b11fnuz, &ue4m3};
}  // namespace formats

}  // namespace arith_oracle
