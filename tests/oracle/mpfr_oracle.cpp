// SPDX-License-Identifier: Apache-2.0
// mpfr_oracle.cpp: MPFR-based rounding oracle (see mpfr_oracle.hpp). Shares no code with
// minifloat: the format facts come from spec_formats.cpp, the rounding from MPFR's C API.
#include "mpfr_oracle.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace minifloat_test::oracle {

std::string flags_text(unsigned flags) {
  if (flags == 0) return "none";
  std::string s;
  auto add = [&](unsigned bit, const char* name) {
    if ((flags & bit) == 0) return;
    if (!s.empty()) s += '|';
    s += name;
  };
  add(kInexact, "inexact");
  add(kUnderflow, "underflow");
  add(kOverflow, "overflow");
  add(kInvalid, "invalid");
  return s;
}

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::rne: return "rne";
    case Mode::rna: return "rna";
    case Mode::rtz: return "rtz";
    case Mode::rtp: return "rtp";
    case Mode::rtn: return "rtn";
    case Mode::rto: return "rto";
    case Mode::rnz: return "rnz";
    case Mode::rnu: return "rnu";
  }
  return "?";
}

const char* overflow_name(Overflow o) {
  switch (o) {
    case Overflow::nonsat: return "nonsat";
    case Overflow::satfinite: return "satfinite";
    case Overflow::satpropagate: return "satpropagate";
  }
  return "?";
}

Target::Target(SpecFormat spec) : spec_(std::move(spec)) {
  if (!spec_.fits_double()) throw std::invalid_argument("oracle::Target: " + spec_.name + " does not fit a double");
  const mpfr_prec_t p = spec_.precision();
  mpfr_init2(unb_, p);
  mpfr_init2(bnd_, p);
  mpfr_init2(z_, p);
  mpfr_init2(a_, p);
  mpfr_init2(mid_, 128);
  mpfr_init2(tmp_, 128);
  mpfr_init2(min_normal_, 64);
  mpfr_init2(maxv_, 64);
  mpfr_set_ui_2exp(min_normal_, 1, spec_.emin(), MPFR_RNDN);

  bool have_max = false;
  code_of_value_.reserve(static_cast<std::size_t>(spec_.code_count()) * 2);
  for (std::uint64_t c = 0; c < spec_.code_count(); ++c) {
    const Exact v = decode(spec_, c);
    if (v.kind != Kind::finite) continue;
    if (v.sig == 0) {
      (v.negative ? zero_neg_ : zero_pos_) = c;
      continue;
    }
    const double d = to_double(v);
    code_of_value_.emplace(d, c);
    if (d > 0 && (!have_max || d > max_finite_)) {
      max_finite_ = d;
      max_code_pos_ = c;
      have_max = true;
    }
  }
  if (!spec_.has_neg_zero) zero_neg_ = zero_pos_;
  max_code_neg_ = spec_.is_signed ? code_of(-max_finite_) : max_code_pos_;
  mpfr_set_d(maxv_, max_finite_, MPFR_RNDN);
}

Target::~Target() {
  mpfr_clears(unb_, bnd_, z_, a_, mid_, tmp_, min_normal_, maxv_, static_cast<mpfr_ptr>(nullptr));
}

std::uint64_t Target::code_of(double v) const {
  if (v == 0) return std::signbit(v) ? zero_neg_ : zero_pos_;
  const auto it = code_of_value_.find(v);
  if (it == code_of_value_.end())
    throw std::logic_error("oracle: value " + std::to_string(v) + " is not representable in " + spec_.name);
  return it->second;
}

// Round x to `precision()` bits; `bounded` additionally emulates the format's subnormals
// (MPFR's documented recipe: round in the extended range, then mpfr_check_range and
// mpfr_subnormalize with emin = exponent of the smallest subnormal, in MPFR's [1/2, 1) convention).
int Target::grid(mpfr_t out, const mpfr_t x, mpfr_rnd_t rnd, bool bounded) {
  int t = mpfr_set(out, x, rnd);
  if (bounded && spec_.has_zero) {
    const mpfr_exp_t old = mpfr_get_emin();
    mpfr_set_emin(static_cast<mpfr_exp_t>(spec_.emin()) - spec_.mbits + 1);
    t = mpfr_check_range(out, t, rnd);
    t = mpfr_subnormalize(out, t, rnd);
    mpfr_set_emin(old);
  }
  return t;
}

// Parity of the last kept bit of z (a grid value). code_parity: for P = 1 use the parity of
// the code, Q + B (P3109 v4.0 §4.7.4 "CodeIsEven"); otherwise of the integer significand at
// the quantum 2^Q, Q = max(floor(log2|z|), emin) − mbits (bounded) or floor(log2|z|) − mbits
// (unbounded exponent range). Zero is even.
bool Target::last_bit_odd(const mpfr_t z, bool code_parity, bool bounded) {
  if (mpfr_zero_p(z)) return false;
  const long ex = static_cast<long>(mpfr_get_exp(z)) - 1;  // floor(log2 |z|)
  const long q = (bounded && spec_.has_zero ? std::max<long>(ex, spec_.emin()) : ex) - spec_.mbits;
  if (spec_.mbits == 0 && code_parity) return ((q + spec_.bias) & 1) != 0;
  mpfr_abs(tmp_, z, MPFR_RNDN);
  mpfr_mul_2si(tmp_, tmp_, -q, MPFR_RNDN);
  return (mpfr_get_ui(tmp_, MPFR_RNDZ) & 1) != 0;
}

int Target::round_to_grid(mpfr_t out, const mpfr_t x, Mode mode, bool bounded, const Options& opt) {
  switch (mode) {
    case Mode::rtz: return grid(out, x, MPFR_RNDZ, bounded);
    case Mode::rtp: return grid(out, x, MPFR_RNDU, bounded);
    case Mode::rtn: return grid(out, x, MPFR_RNDD, bounded);
    case Mode::rne:
      if (!(opt.p3109 && spec_.mbits == 0)) return grid(out, x, MPFR_RNDN, bounded);
      break;  // P3109 P = 1: ties by code parity, below
    case Mode::rna:
    case Mode::rto:
    case Mode::rnz:
    case Mode::rnu: break;
  }
  // The two grid neighbours: z toward zero (RNDZ, its ternary is the inexact flag) and a away.
  if (grid(z_, x, MPFR_RNDZ, bounded) == 0) {
    mpfr_set(out, z_, MPFR_RNDN);
    return 0;
  }
  grid(a_, x, MPFR_RNDA, bounded);
  bool pick_a = false;
  if (mode == Mode::rto) {
    pick_a = !last_bit_odd(z_, opt.p3109, bounded);
  } else {
    mpfr_add(mid_, z_, a_, MPFR_RNDN);  // exact at 128 bits
    mpfr_div_2ui(mid_, mid_, 1, MPFR_RNDN);
    const int c = mpfr_cmpabs(x, mid_);
    if (c != 0)
      pick_a = c > 0;
    else
      pick_a = mode == Mode::rna   ? true
               : mode == Mode::rnz ? false
               : mode == Mode::rnu ? mpfr_signbit(x) == 0  // a tie goes toward +Inf: away from zero iff x > 0
                                   : last_bit_odd(z_, true, bounded);
  }
  mpfr_set(out, pick_a ? a_ : z_, MPFR_RNDN);
  return mpfr_cmp(out, x);
}

Result Target::round(const mpfr_t x, Mode mode, Overflow overflow, const Options& opt) {
  const SpecFormat& f = spec_;
  // NaN: the format's NaN with the sign kept; formats without NaN: +max, invalid.
  if (mpfr_nan_p(x)) {
    if (f.has_nan()) return {nan_code(mpfr_signbit(x) != 0), 0};
    return {max_code_pos_, kInvalid};
  }
  const bool neg = mpfr_signbit(x) != 0;
  const bool is_zero = mpfr_zero_p(x) != 0;
  const bool unsigned_negative = !f.is_signed && neg && !is_zero;
  if (unsigned_negative && !opt.p3109) {  // ocp: negative nonzero (or −Inf) into unsigned → NaN
    if (!f.has_nan()) throw std::logic_error("oracle: unsigned format without NaN");
    return {nan_code(false), kInvalid};
  }
  if (unsigned_negative && mpfr_inf_p(x))
    // p3109: SatNone → NaN; SatFinite/SatPropagate → M_lo = 0.
    return overflow == Overflow::nonsat ? Result{nan_code(false), kInvalid} : Result{zero_pos_, kInexact};
  if (mpfr_inf_p(x)) {
    if (overflow == Overflow::satfinite) return {max_code(neg), kInexact};
    if (opt.p3109 && !f.has_inf()) return {max_code(neg), kInexact};  // SatNone, finite domain: M_hi/M_lo
    if (f.has_inf()) return {neg ? *f.neg_inf : *f.pos_inf, 0};
    if (f.has_nan()) return {nan_code(neg), kInvalid};
    return {max_code(neg), kInexact};
  }
  if (is_zero) {
    if (!f.has_zero) return {code_of(std::ldexp(1.0, f.emin())), kUnderflow | kInexact};
    return {neg ? zero_neg_ : zero_pos_, 0};
  }
  // Finite nonzero.
  if (!f.has_zero && mpfr_cmpabs(x, min_normal_) < 0)  // e8m0fnu: below 2^-127 → the smallest code
    return {code_of(std::ldexp(1.0, f.emin())), kUnderflow | kInexact};

  round_to_grid(unb_, x, mode, /*bounded=*/false, opt);  // unbounded exponent range
  const bool tiny = mpfr_cmpabs(unb_, min_normal_) < 0;   // tininess after rounding (as MPFR)

  if (!unsigned_negative && mpfr_cmpabs(unb_, maxv_) > 0) {
    const unsigned flags = kOverflow | kInexact;
    if (overflow != Overflow::nonsat) return {max_code(neg), flags};
    const bool toward_max = mode == Mode::rtz || mode == Mode::rto || (mode == Mode::rtp && neg) ||
                            (mode == Mode::rtn && !neg);
    const bool p3109_odd_to_inf = opt.p3109 && mode == Mode::rto && f.has_inf() && f.is_signed;
    if (toward_max && !p3109_odd_to_inf) return {max_code(neg), flags};
    if (opt.p3109 && !f.has_inf()) return {max_code(neg), flags};  // SatNone, finite domain: M_hi/M_lo
    if (f.has_inf()) return {neg ? *f.neg_inf : *f.pos_inf, flags};
    if (f.has_nan()) return {nan_code(neg), flags | (opt.overflow_nan_invalid ? kInvalid : 0u)};
    return {max_code(neg), flags};
  }

  if (f.has_zero && mpfr_cmpabs(x, min_normal_) < 0)
    round_to_grid(bnd_, x, mode, /*bounded=*/true, opt);  // subnormal range
  else
    mpfr_set(bnd_, unb_, MPFR_RNDN);
  const bool inexact = !mpfr_equal_p(bnd_, x);
  unsigned flags = inexact ? kInexact : 0u;
  if (inexact && tiny) flags |= kUnderflow;

  if (unsigned_negative) {  // p3109, rounding first: Saturate sees the rounded R
    if (mpfr_zero_p(bnd_)) return {zero_pos_, flags};
    return overflow == Overflow::nonsat ? Result{nan_code(false), kInvalid} : Result{zero_pos_, kInexact};
  }
  if (mpfr_zero_p(bnd_)) return {neg ? zero_neg_ : zero_pos_, flags};
  return {code_of(mpfr_get_d(bnd_, MPFR_RNDN)), flags};
}

void set_from_code(mpfr_t out, const SpecFormat& source, std::uint64_t code) { to_mpfr(out, decode(source, code)); }

void set_from_double(mpfr_t out, double v) {
  if (mpfr_get_prec(out) < 64) mpfr_set_prec(out, 64);
  if (std::isnan(v)) {
    mpfr_set_nan(out);
    mpfr_setsign(out, out, std::signbit(v), MPFR_RNDN);
    return;
  }
  mpfr_set_d(out, v, MPFR_RNDN);  // exact at ≥ 53 bits, keeps −0 and ±Inf
}

}  // namespace minifloat_test::oracle
