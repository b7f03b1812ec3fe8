// SPDX-License-Identifier: Apache-2.0
// fuzz_parse_value.cpp: libFuzzer target for the value parser (minifloat::parse_value: decimals,
// C99 hex floats, inf/infinity/nan). Input: the text. Oracles that share no code with parse.cpp:
//   - acceptance: a grammar recogniser written here from the documented grammar (parse.hpp)
//     decides accept / reject (and counts significant digits against kMaxSignificantDigits);
//     parse_value must agree, rejecting with one minifloat::ParseError line that quotes at most
//     40 bytes of the text;
//   - value: MPFR's mpfr_strtofr. For a finite nonzero result with a w-bit `sig`, the text read
//     by MPFR at precision w rounding toward zero must be exactly sig·2^exp, inexact iff `sticky`
//     (the result is the exact value or its correct sticky truncation). The huge/tiny stand-ins
//     (exp = ±400000) must stand for values beyond 2^±332192. Zero, inf, nan and every sign
//     must match too. Exponents of 10^12 or more are judged without MPFR (see below).
// Speed: exact decimal conversion costs O(|e10|²) (10^e10 as a big integer), 0.1 s at |e10| = 10^5.
// The libFuzzer build (MINIFLOAT_LIBFUZZER) therefore does not run decimals with 3000 < |e10|
// below the huge/tiny bound, counting them (printed at exit); the corpus replay runs every input,
// and the seeds hold such values (1e±100000, 9.9e99999, 1e-99999, 40000 digits). Run it with
// -max_len=1024 (digits cost quadratically too).
#include <mpfr.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "minifloat/parse.hpp"

namespace {

using minifloat_fuzz::fail;
using minifloat_fuzz::require;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
char low(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (low(a[i]) != low(b[i])) return false;
  return true;
}

enum class Kind { invalid, too_many_digits, special, number };

struct Grammar {
  Kind kind = Kind::invalid;
  bool hex = false;
  long long e10 = 0;            ///< decimal: exponent minus fraction digits (saturated at ±10^12)
  int saturated = 0;            ///< ±1: the exponent's magnitude is 10^12 or more (its sign)
  std::size_t significant = 0;  ///< digits from the first nonzero one
};

/// The documented grammar: [+-] ( inf | infinity | nan | DEC | HEX ), case-insensitive, where
///   DEC = (D+ [. D*] | . D+) [ (e|E) [+-] D+ ]
///   HEX = 0x (H+ [. H*] | . H+) [ (p|P) [+-] D+ ]   — the exponent is required after a '.'
Grammar classify(std::string_view t) {
  Grammar g;
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  const std::string_view body = t.substr(i);
  if (iequal(body, "inf") || iequal(body, "infinity") || iequal(body, "nan")) {
    g.kind = Kind::special;
    return g;
  }
  const bool hex = body.size() >= 2 && body[0] == '0' && low(body[1]) == 'x';
  g.hex = hex;
  if (hex) i += 2;
  auto digit = [&](char c) { return hex ? is_hex(c) : is_digit(c); };
  std::size_t digits = 0, fraction = 0;
  bool dot = false;
  for (; i < t.size(); ++i) {
    if (digit(t[i])) {
      ++digits;
      if (dot) ++fraction;
      if (g.significant > 0 || t[i] != '0') ++g.significant;
    } else if (t[i] == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (digits == 0) return g;
  bool exponent = false;
  long long e = 0;
  bool eneg = false;
  if (i < t.size()) {
    if (low(t[i]) != (hex ? 'p' : 'e')) return g;
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) eneg = t[i++] == '-';
    if (i == t.size()) return g;
    for (; i < t.size(); ++i) {
      if (!is_digit(t[i])) return g;
      if (e < 1000000000000) e = e * 10 + (t[i] - '0');
    }
    exponent = true;
  }
  if (hex && !exponent) return g;  // C99: a hex float needs p±N, with or without a point (issue 28 item 14)
  if (e >= 1000000000000) g.saturated = eneg ? -1 : 1;
  g.e10 = (eneg ? -e : e) - static_cast<long long>(fraction);
  g.kind = g.significant > minifloat::kMaxSignificantDigits ? Kind::too_many_digits : Kind::number;
  return g;
}

#ifdef MINIFLOAT_LIBFUZZER
/// The exact decimal path's cost is quadratic in |e10|; beyond 10^±100000 the value is a stand-in.
bool slow_decimal(const Grammar& g) {
  if (g.kind != Kind::number || g.hex || g.significant == 0) return false;
  const long long magnitude = g.e10 + static_cast<long long>(g.significant);
  return (g.e10 > 3000 || g.e10 < -3000) && magnitude < 100010 && magnitude > -100010;
}

struct SkipCount {
  unsigned long long skipped = 0, all = 0;
  ~SkipCount() {
    if (all) std::fprintf(stderr, "fuzz_parse_value: %llu of %llu inputs were slow decimals, not run here (the replay runs them)\n", skipped, all);
  }
};
#endif

int bit_width(std::uint64_t v) {
  int w = 0;
  for (; v != 0; v >>= 1) ++w;
  return w;
}

constexpr long kStandIn = 400000, kBeyond = 332192;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const Grammar grammar = classify(text);
  const Kind kind = grammar.kind;
#ifdef MINIFLOAT_LIBFUZZER
  static SkipCount count;
  ++count.all;
  if (slow_decimal(grammar)) {
    ++count.skipped;
    return 0;
  }
#endif
  minifloat::Unpacked u;
  try {
    u = minifloat::parse_value(text);
  } catch (const minifloat::ParseError& e) {
    minifloat_fuzz::check_message(e.what(), "", 420);
    const std::string msg = e.what();
    const std::string head = text.substr(0, 8);
    bool plain = true;  // printable ASCII other than '\' is quoted as is
    for (const char c : head) plain = plain && c >= 0x20 && c < 0x7f && c != '\\';
    require(!plain || msg.find(std::string("'") + head) != std::string::npos, "the error does not quote the text: " + msg);
    require(kind == Kind::invalid || kind == Kind::too_many_digits, "rejected a valid number: " + msg);
    return 0;
  }
  require(kind == Kind::special || kind == Kind::number, "accepted text outside the grammar");
  const bool negative = !text.empty() && text[0] == '-';
  require(u.negative == negative, "sign differs");

  static bool init = false;
  if (!init) {
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_set_emin(mpfr_get_emin_min());
    init = true;
  }
  if (grammar.saturated != 0 && u.cls != minifloat::Class::zero) {
    // An exponent of 10^12 or more puts any text that fits in memory beyond the stand-in bounds.
    // Judged without MPFR: mpfr_strtofr (4.2.0) wraps around when such an exponent meets fraction
    // digits ("0.<996 zeros>1e-1900…01111…" read as 5.9e+1388255822130839282; see the seed
    // regression_mpfr_exponent_wrap).
    require(u.cls == minifloat::Class::normal && u.sticky && u.sig == std::uint64_t{1} << 63 &&
                u.exp == (grammar.saturated > 0 ? kStandIn : -kStandIn),
            "an exponent beyond 10^12 did not give the huge/tiny stand-in");
    return 0;
  }
  const int w = u.cls == minifloat::Class::normal || u.cls == minifloat::Class::subnormal ? bit_width(u.sig) : 64;
  mpfr_t x;
  mpfr_init2(x, w < 1 ? 1 : w);
  char* end = nullptr;
  const int ternary = mpfr_strtofr(x, text.c_str(), &end, 0, MPFR_RNDZ);
  require(end == text.c_str() + text.size(), "MPFR did not read the whole text");
  const auto done = [&](bool ok, const std::string& what) {
    if (!ok) {
      mpfr_clear(x);
      fail(what);
    }
  };
  switch (u.cls) {
    case minifloat::Class::nan: done(mpfr_nan_p(x) != 0, "parse_value gave nan, MPFR did not"); break;
    case minifloat::Class::inf: done(mpfr_inf_p(x) != 0, "parse_value gave inf, MPFR did not"); break;
    case minifloat::Class::zero: done(mpfr_zero_p(x) != 0 && ternary == 0, "parse_value gave zero, MPFR a nonzero value"); break;
    default: {
      done(u.sig != 0, "finite nonzero result with sig = 0");
      done(mpfr_nan_p(x) == 0 && (mpfr_signbit(x) != 0) == negative, "sign or class differs from MPFR");
      if (u.exp == kStandIn) {  // huge stand-in: the exact value must be beyond 2^332192
        done(u.sticky && u.sig == std::uint64_t{1} << 63, "malformed huge stand-in");
        done(mpfr_inf_p(x) != 0 || mpfr_get_exp(x) - 1 >= kBeyond, "huge stand-in for a value below 2^332192");
      } else if (u.exp == -kStandIn) {  // tiny stand-in: below 2^-332192
        done(u.sticky && u.sig == std::uint64_t{1} << 63, "malformed tiny stand-in");
        done(mpfr_zero_p(x) != 0 || mpfr_get_exp(x) <= -kBeyond, "tiny stand-in for a value above 2^-332192");
      } else {
        done(mpfr_regular_p(x) != 0, "parse_value gave a finite value, MPFR zero or inf");
        mpfr_t want;
        mpfr_init2(want, 64);
        mpfr_set_ui_2exp(want, static_cast<unsigned long>(u.sig), u.exp, MPFR_RNDN);  // exact: sig has ≤ 64 bits
        if (negative) mpfr_neg(want, want, MPFR_RNDN);
        const bool same = mpfr_equal_p(x, want) != 0;
        mpfr_clear(want);
        done(same, "value differs from MPFR's truncation to the width of sig");
        done((ternary != 0) == u.sticky, u.sticky ? "sticky set for an exact value" : "sticky clear for an inexact value");
      }
    }
  }
  mpfr_clear(x);
  return 0;
}
