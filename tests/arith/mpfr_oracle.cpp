// SPDX-License-Identifier: Apache-2.0
// mpfr_oracle.cpp: MPFR reference for arithmetic: the operation is evaluated by MPFR (correctly
// rounded at the target precision, then mpfr_check_range + mpfr_subnormalize for the target's
// exponent range), and the value is encoded from the format's field rules. No minifloat code.
#include "mpfr_oracle.hpp"

#include <mpfr.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace arith_oracle {
namespace {

// Working precision for the zero-sign/NaN/Inf classification and the rna midpoint test. A true
// midpoint of a p-bit grid has p + 1 bits, so it is exact (ternary 0) at any precision ≥ 54.
constexpr mpfr_prec_t kWide = 400;

struct Num {
  mpfr_t v;
  explicit Num(mpfr_prec_t p = kWide) { mpfr_init2(v, p); }
  ~Num() { mpfr_clear(v); }
  Num(const Num&) = delete;
  Num& operator=(const Num&) = delete;
};

bool has_nan(const OFormat& f) { return f.kind != Kind::none; }
bool has_inf(const OFormat& f) { return f.kind == Kind::ieee; }
bool has_neg_zero(const OFormat& f) { return f.is_signed && f.has_zero && f.kind != Kind::fnuz; }
int fmt_emin(const OFormat& f) { return f.has_zero ? 1 - f.bias : -f.bias; }  // exponent of the min normal
std::uint64_t sign_bit(const OFormat& f) { return f.is_signed ? (std::uint64_t{1} << (f.bits - 1)) : 0; }
std::uint64_t mag_mask(const OFormat& f) {
  const int n = f.bits - (f.is_signed ? 1 : 0);
  return n >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1);
}

enum class Cls { nan, inf, zero, fin };

/// Decode by the field rules: sets v (±0, ±Inf or the exact finite value); returns the class.
Cls decode(const OFormat& f, std::uint64_t code, mpfr_t v, bool& neg) {
  const std::uint64_t mag = code & mag_mask(f);
  neg = (code & sign_bit(f)) != 0;
  const std::uint64_t E = mag >> f.mbits, M = mag & ((std::uint64_t{1} << f.mbits) - 1);
  const std::uint64_t Emax = (std::uint64_t{1} << f.ebits) - 1;
  switch (f.kind) {
    case Kind::ieee:
      if (E == Emax) {
        if (M != 0) return Cls::nan;
        mpfr_set_inf(v, neg ? -1 : 1);
        return Cls::inf;
      }
      break;
    case Kind::fn:
      if (mag == mag_mask(f)) return Cls::nan;
      break;
    case Kind::fnuz:
      if (neg && mag == 0) return Cls::nan;
      break;
    case Kind::none: break;
  }
  if (f.has_zero && E == 0) {
    if (M == 0) {
      if (!has_neg_zero(f)) neg = false;
      mpfr_set_zero(v, neg ? -1 : 1);
      return Cls::zero;
    }
    mpfr_set_ui_2exp(v, static_cast<unsigned long>(M), fmt_emin(f) - f.mbits, MPFR_RNDN);
  } else {
    mpfr_set_ui_2exp(v, 1, f.mbits, MPFR_RNDN);
    mpfr_add_ui(v, v, static_cast<unsigned long>(M), MPFR_RNDN);
    mpfr_mul_2si(v, v, static_cast<long>(E) - f.bias - f.mbits, MPFR_RNDN);
  }
  if (neg) mpfr_neg(v, v, MPFR_RNDN);
  return Cls::fin;
}

/// Encode a finite nonzero value that is exactly representable in f.
std::uint64_t encode_finite(const OFormat& f, const mpfr_t v) {
  Num a(200);
  mpfr_abs(a.v, v, MPFR_RNDN);
  const long e = mpfr_get_exp(a.v) - 1;  // floor(log2 |v|)
  std::uint64_t E = 0, M = 0;
  Num t(200);
  if (f.has_zero && e < fmt_emin(f)) {
    mpfr_mul_2si(t.v, a.v, f.mbits - fmt_emin(f), MPFR_RNDN);
    E = 0;
  } else {
    mpfr_mul_2si(t.v, a.v, f.mbits - e, MPFR_RNDN);
    mpfr_sub_ui(t.v, t.v, 1ul << f.mbits, MPFR_RNDN);
    E = static_cast<std::uint64_t>(e + f.bias);
  }
  if (!mpfr_integer_p(t.v)) throw std::logic_error("oracle: value not representable");
  M = mpfr_get_uj(t.v, MPFR_RNDN);
  return (mpfr_sgn(v) < 0 ? sign_bit(f) : 0) | (E << f.mbits) | M;
}

std::uint64_t max_code(const OFormat& f, bool neg) {
  std::uint64_t mag = mag_mask(f);
  if (f.kind == Kind::ieee) mag -= (std::uint64_t{1} << f.mbits);  // top binade is Inf/NaN
  else if (f.kind == Kind::fn) mag -= 1;
  return mag | (neg ? sign_bit(f) : 0);
}

Result nan_result(const OFormat& f, bool neg, bool invalid) {
  Result r;
  r.invalid = invalid;
  switch (f.kind) {
    case Kind::ieee:
      r.code = (neg ? sign_bit(f) : 0) | (mag_mask(f) - ((std::uint64_t{1} << f.mbits) - 1)) |
               (std::uint64_t{1} << (f.mbits - 1));
      break;
    case Kind::fn: r.code = (neg && f.is_signed ? sign_bit(f) : 0) | mag_mask(f); break;
    case Kind::fnuz: r.code = sign_bit(f); break;
    case Kind::none:
      r.code = max_code(f, false);
      r.invalid = true;
      break;
  }
  return r;
}

Result inf_result(const OFormat& f, bool neg) {
  if (!f.is_signed && neg) return nan_result(f, false, true);
  if (has_inf(f)) {
    Result r;
    r.code = (neg ? sign_bit(f) : 0) | (mag_mask(f) - ((std::uint64_t{1} << f.mbits) - 1));
    return r;
  }
  if (has_nan(f)) return nan_result(f, neg, true);
  Result r;
  r.code = max_code(f, neg);
  r.inexact = true;
  return r;
}

struct Operands {
  Op op;
  mpfr_srcptr a, b, c;
};

int apply(const Operands& o, mpfr_t r, mpfr_rnd_t rnd) {
  switch (o.op) {
    case Op::add: return mpfr_add(r, o.a, o.b, rnd);
    case Op::sub: return mpfr_sub(r, o.a, o.b, rnd);
    case Op::mul: return mpfr_mul(r, o.a, o.b, rnd);
    case Op::div: return mpfr_div(r, o.a, o.b, rnd);
    case Op::sqrt: return mpfr_sqrt(r, o.a, rnd);
    case Op::fma: return mpfr_fma(r, o.a, o.b, o.c, rnd);
  }
  return 0;
}

/// Round the operation into precision p; with `grid`, also into the format's exponent range
/// (MPFR manual's emulation idiom: check_range then subnormalize). Returns the ternary value.
int target(const Operands& o, const OFormat* grid, int p, mpfr_rnd_t rnd, mpfr_t r) {
  mpfr_set_prec(r, p);
  int t = apply(o, r, rnd);
  if (grid == nullptr || mpfr_zero_p(r)) return t;
  const mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
  // MPFR exponent E: x = 0.1… × 2^E. Smallest positive value of the grid: 2^(emin − mbits)
  // with subnormals, 2^emin without zero (e8m0fnu: every code normal).
  const long min_exp = grid->has_zero ? fmt_emin(*grid) - grid->mbits : fmt_emin(*grid);
  mpfr_set_emin(min_exp + 1);
  mpfr_set_emax(1 << 20);
  t = mpfr_check_range(r, t, rnd);
  if (grid->has_zero) t = mpfr_subnormalize(r, t, rnd);
  mpfr_set_emin(old_min);
  mpfr_set_emax(old_max);
  return t;
}

/// Whether |r| (a grid value) has an odd integer significand at its quantum.
bool odd_significand(const OFormat* grid, int p, const mpfr_t r) {
  if (mpfr_zero_p(r)) return false;
  long q = mpfr_get_exp(r) - 1;
  if (grid != nullptr && grid->has_zero && q < fmt_emin(*grid)) q = fmt_emin(*grid);
  q -= p - 1;
  Num t(200);
  mpfr_mul_2si(t.v, r, -q, MPFR_RNDN);
  mpfr_abs(t.v, t.v, MPFR_RNDN);
  return (mpfr_get_uj(t.v, MPFR_RNDN) & 1) != 0;
}

/// Round in `mode`; returns whether the rounding was inexact.
bool round_mode(const Operands& o, const OFormat* grid, int p, Mode mode, mpfr_t r) {
  Num z(p);
  const bool inexact = target(o, grid, p, MPFR_RNDZ, z.v) != 0;
  switch (mode) {
    case Mode::rne: target(o, grid, p, MPFR_RNDN, r); break;
    case Mode::rtz: target(o, grid, p, MPFR_RNDZ, r); break;
    case Mode::rtp: target(o, grid, p, MPFR_RNDU, r); break;
    case Mode::rtn: target(o, grid, p, MPFR_RNDD, r); break;
    case Mode::rna: {
      target(o, grid, p, MPFR_RNDN, r);
      if (!inexact) break;
      Num x(kWide), aw(p), mid(kWide);
      const bool exact = apply(o, x.v, MPFR_RNDZ) == 0;
      target(o, grid, p, MPFR_RNDA, aw.v);
      mpfr_add(mid.v, z.v, aw.v, MPFR_RNDN);  // exact at kWide bits
      mpfr_div_2ui(mid.v, mid.v, 1, MPFR_RNDN);
      if (exact && mpfr_equal_p(mid.v, x.v)) mpfr_set(r, aw.v, MPFR_RNDN);
      break;
    }
    case Mode::rto:
      mpfr_set_prec(r, p);
      if (!inexact || odd_significand(grid, p, z.v)) mpfr_set(r, z.v, MPFR_RNDN);
      else target(o, grid, p, MPFR_RNDA, r);
      break;
  }
  return inexact;
}

}  // namespace

Result compute(Op op, const OFormat& fa, std::uint64_t a, const OFormat& fb, std::uint64_t b, const OFormat& fc,
               std::uint64_t c, const OFormat& out, Mode mode) {
  Num va(64), vb(64), vc(64);
  bool na = false, nb = false, nc = false;
  const Cls ca = decode(fa, a, va.v, na);
  const bool binary = op != Op::sqrt;
  const Cls cb = binary ? decode(fb, b, vb.v, nb) : Cls::zero;
  const Cls cc = op == Op::fma ? decode(fc, c, vc.v, nc) : Cls::zero;
  // NaN operands propagate (first NaN's sign).
  if (ca == Cls::nan) return nan_result(out, na, false);
  if (binary && cb == Cls::nan) return nan_result(out, nb, false);
  if (op == Op::fma && cc == Cls::nan) return nan_result(out, nc, false);

  const Operands o{op, va.v, vb.v, vc.v};
  Num x(kWide);
  const mpfr_rnd_t zero_rnd = mode == Mode::rtn ? MPFR_RNDD : MPFR_RNDN;  // IEEE zero-sign rule
  mpfr_clear_flags();
  apply(o, x.v, zero_rnd);
  if (mpfr_nan_p(x.v)) return nan_result(out, false, true);
  if (mpfr_inf_p(x.v)) return inf_result(out, mpfr_sgn(x.v) < 0);
  if (mpfr_zero_p(x.v)) {
    Result r;
    if (!out.has_zero) {
      r.code = 0;
      r.underflow = r.inexact = true;
      return r;
    }
    r.code = (mpfr_signbit(x.v) && has_neg_zero(out)) ? sign_bit(out) : 0;
    return r;
  }
  const bool neg = mpfr_sgn(x.v) < 0;
  if (!out.is_signed && neg) return nan_result(out, false, true);

  const int p = out.mbits + 1;
  Num r(p);
  Result res;
  res.inexact = round_mode(o, &out, p, mode, r.v);
  // tininess after rounding: rounded to p bits with unbounded exponent, below 2^emin
  if (res.inexact) {
    Num u(p);
    round_mode(o, nullptr, p, mode, u.v);
    Num lim(8);
    mpfr_set_ui_2exp(lim.v, 1, fmt_emin(out), MPFR_RNDN);
    if (mpfr_cmpabs(u.v, lim.v) < 0) res.underflow = true;
  }
  if (mpfr_zero_p(r.v)) {
    if (!out.has_zero) {
      res.code = 0;
      res.underflow = res.inexact = true;
      return res;
    }
    res.code = (neg && has_neg_zero(out)) ? sign_bit(out) : 0;
    return res;
  }
  Num maxv(64);
  mpfr_set_d(maxv.v, out.max_finite, MPFR_RNDN);
  if (mpfr_cmpabs(r.v, maxv.v) > 0) {  // overflow
    const bool to_max = mode == Mode::rtz || mode == Mode::rto || (mode == Mode::rtp && neg) ||
                        (mode == Mode::rtn && !neg);
    Result ov;
    if (to_max) ov.code = max_code(out, neg);
    else ov = inf_result(out, neg);
    ov.overflow = ov.inexact = true;
    ov.underflow = false;
    // Finite overflow into a NaN-but-no-Inf format raises overflow|inexact only (round_pack's
    // current convention; an Inf *operand* into such a format raises invalid). Reported to the lead.
    ov.invalid = false;
    return ov;
  }
  res.code = encode_finite(out, r.v);
  return res;
}

std::string describe(const OFormat& f, std::uint64_t code) {
  Num v(64);
  bool neg = false;
  switch (decode(f, code, v.v, neg)) {
    case Cls::nan: return neg ? "-NaN" : "NaN";
    case Cls::inf: return neg ? "-Inf" : "Inf";
    case Cls::zero: return neg ? "-0" : "0";
    case Cls::fin: break;
  }
  std::ostringstream s;
  s << mpfr_get_d(v.v, MPFR_RNDN);
  return s.str();
}

}  // namespace arith_oracle
