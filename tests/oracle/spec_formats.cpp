// SPDX-License-Identifier: Apache-2.0
// spec_formats.cpp: the oracle's format table (numbers from spec-digest §1.1, §2.1, §3.1,
// §5.1, §5.2 and IEEE 754) and the field-layout decoder. Shares no code with minifloat.
#include "spec_formats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace minifloat_test::oracle {
namespace {

SpecFormat make(std::string name, int k, int e, int m, int bias, bool is_signed) {
  SpecFormat f;
  f.name = std::move(name);
  f.k = k;
  f.ebits = e;
  f.mbits = m;
  f.bias = bias;
  f.is_signed = is_signed;
  return f;
}

// IEEE-style: Inf = exponent all ones, mantissa 0; NaN = exponent all ones, mantissa ≠ 0;
// the ocp profile's output NaN is the quiet NaN (top mantissa bit) with the input's sign.
SpecFormat ieee_like(std::string name, int k, int e, int m, int bias, std::uint64_t pinf, std::uint64_t ninf,
                     std::uint64_t qnan_pos, std::uint64_t qnan_neg) {
  SpecFormat f = make(std::move(name), k, e, m, bias, true);
  f.has_neg_zero = true;
  f.nan_rule = NanRule::ieee;
  f.pos_inf = pinf;
  f.neg_inf = ninf;
  f.nan_out_pos = qnan_pos;
  f.nan_out_neg = qnan_neg;
  return f;
}

SpecFormat fnuz(std::string name, int e, int m, int bias) {
  SpecFormat f = make(std::move(name), 8, e, m, bias, true);
  f.has_neg_zero = false;  // 0x80 is the single NaN
  f.nan_rule = NanRule::listed;
  f.nan_codes = {0x80};
  f.nan_out_pos = f.nan_out_neg = 0x80;
  return f;
}

SpecFormat mx_no_specials(std::string name, int k, int e, int m, int bias) {
  SpecFormat f = make(std::move(name), k, e, m, bias, true);
  f.has_neg_zero = true;  // TOSA: "Signed zero must be supported"; CUDA −0 → 0x20 / 0x8
  f.nan_rule = NanRule::none;
  return f;
}

std::vector<SpecFormat> build_named() {
  std::vector<SpecFormat> v;
  // OCP OFP8 E4M3: bias 7, no Inf, NaN only S.1111.111 (0x7f, 0xff), ±0.
  {
    SpecFormat f = make("e4m3fn", 8, 4, 3, 7, true);
    f.has_neg_zero = true;
    f.nan_rule = NanRule::listed;
    f.nan_codes = {0x7f, 0xff};
    f.nan_out_pos = 0x7f;
    f.nan_out_neg = 0xff;
    v.push_back(f);
  }
  // OCP OFP8 E5M2: bias 15, IEEE Inf 0x7c/0xfc, NaN 0x7d..0x7f / 0xfd..0xff, quiet 0x7e/0xfe.
  v.push_back(ieee_like("e5m2", 8, 5, 2, 15, 0x7c, 0xfc, 0x7e, 0xfe));
  // FNUZ (AMD/Graphcore, ml_dtypes): NaN 0x80 only, no Inf, no −0.
  v.push_back(fnuz("e4m3fnuz", 4, 3, 8));
  v.push_back(fnuz("e5m2fnuz", 5, 2, 16));
  v.push_back(fnuz("e4m3b11fnuz", 4, 3, 11));
  // ml_dtypes IEEE-like: float8_e4m3 (bias 7, Inf 0x78) and float8_e3m4 (bias 3, Inf 0x70).
  v.push_back(ieee_like("e4m3", 8, 4, 3, 7, 0x78, 0xf8, 0x7c, 0xfc));
  v.push_back(ieee_like("e3m4", 8, 3, 4, 3, 0x70, 0xf0, 0x78, 0xf8));
  // OCP MX FP6 / FP4: no Inf, no NaN, ±0.
  v.push_back(mx_no_specials("e3m2fn", 6, 3, 2, 3));
  v.push_back(mx_no_specials("e2m3fn", 6, 2, 3, 1));
  v.push_back(mx_no_specials("e2m1fn", 4, 2, 1, 1));
  // OCP MX E8M0 scale: unsigned, bias 127, no zero (0x00 = 2^-127), no Inf, NaN 0xff.
  {
    SpecFormat f = make("e8m0fnu", 8, 8, 0, 127, false);
    f.has_zero = false;
    f.nan_rule = NanRule::listed;
    f.nan_codes = {0xff};
    f.nan_out_pos = f.nan_out_neg = 0xff;
    v.push_back(f);
  }
  // NVFP4 block scale UE4M3: 7 bits, unsigned, bias 7, NaN 0x7f, max 0x7e = 448, zero 0x00.
  {
    SpecFormat f = make("ue4m3", 7, 4, 3, 7, false);
    f.nan_rule = NanRule::listed;
    f.nan_codes = {0x7f};
    f.nan_out_pos = f.nan_out_neg = 0x7f;
    v.push_back(f);
  }
  // UE5M3 block scale (CUDA 13.4 __nv_fp8_ue5m3 docs: "no sign, 5 exponent, 1 implicit and 3 explicit
  // mantissa bits ... doesn't support Infinity. NaNs are limited to 0xFF"): bias 15, zero 0x00.
  {
    SpecFormat f = make("ue5m3", 8, 5, 3, 15, false);
    f.nan_rule = NanRule::listed;
    f.nan_codes = {0xff};
    f.nan_out_pos = f.nan_out_neg = 0xff;
    v.push_back(f);
  }
  // IEEE 754 binary16 and bfloat16.
  v.push_back(ieee_like("f16", 16, 5, 10, 15, 0x7c00, 0xfc00, 0x7e00, 0xfe00));
  v.push_back(ieee_like("bf16", 16, 8, 7, 127, 0x7f80, 0xff80, 0x7fc0, 0xffc0));
  return v;
}

}  // namespace

bool SpecFormat::fits_double() const {
  // Smallest magnitude: 2^(emin − mbits) (or 2^emin without zero); largest below 2^(emax + 1).
  const long lo = has_zero ? static_cast<long>(emin()) - mbits : emin();
  const long top_field = (1L << ebits) - 1;
  const long hi = top_field - bias + 1;
  return lo >= -1074 && hi <= 1024;
}

const std::vector<SpecFormat>& named_specs() {
  static const std::vector<SpecFormat> v = build_named();
  return v;
}

std::vector<SpecFormat> named_specs_upto_8_bits() {
  std::vector<SpecFormat> v;
  for (const auto& f : named_specs())
    if (f.k <= 8) v.push_back(f);
  return v;
}

SpecFormat p3109_spec(int k, int p, bool is_signed, bool extended) {
  if (k < 2 || k > 16 || p < 1 || p > (is_signed ? k - 1 : k))
    throw std::invalid_argument("p3109_spec: need 2 <= K <= 16 and 1 <= P < K (signed) or <= K (unsigned)");
  const std::string name = "Binary" + std::to_string(k) + "p" + std::to_string(p) + (is_signed ? "s" : "u") +
                           (extended ? "e" : "f");
  const int ebits = is_signed ? k - p : k - p + 1;
  const int bias = is_signed ? (1 << (k - p - 1)) : (1 << (k - p));
  SpecFormat f = make(name, k, ebits, p - 1, bias, is_signed);
  f.is_p3109 = true;
  f.p3109_p = p;
  f.has_neg_zero = false;
  f.nan_rule = NanRule::listed;
  const std::uint64_t two_k = std::uint64_t{1} << k;
  const std::uint64_t half = std::uint64_t{1} << (k - 1);
  const std::uint64_t nan = is_signed ? half : two_k - 1;
  f.nan_codes = {nan};
  f.nan_out_pos = f.nan_out_neg = nan;
  if (extended) {
    f.pos_inf = is_signed ? half - 1 : two_k - 2;
    if (is_signed) f.neg_inf = two_k - 1;
  }
  return f;
}

std::vector<SpecFormat> p3109_specs(int k) {
  std::vector<SpecFormat> v;
  for (int s = 1; s >= 0; --s)
    for (int p = 1; p <= (s ? k - 1 : k); ++p)
      for (int e = 1; e >= 0; --e) v.push_back(p3109_spec(k, p, s == 1, e == 1));
  return v;
}

SpecFormat spec_by_name(const std::string& name) {
  for (const auto& f : named_specs())
    if (f.name == name) return f;
  for (int k = 3; k <= 16; ++k)
    for (auto& f : p3109_specs(k))
      if (f.name == name) return f;
  throw std::invalid_argument("oracle: unknown format '" + name + "'");
}

Exact decode(const SpecFormat& f, std::uint64_t code) {
  if (code >= f.code_count()) throw std::out_of_range("oracle::decode: code wider than " + f.name);
  Exact v;
  const std::uint64_t sign = f.sign_bit();
  v.negative = (code & sign) != 0;
  const std::uint64_t mag = code & ~sign;
  const std::uint64_t e_field = mag >> f.mbits;
  const std::uint64_t m_field = mag & ((std::uint64_t{1} << f.mbits) - 1);
  // Specials first, from the explicit rules.
  switch (f.nan_rule) {
    case NanRule::none: break;
    case NanRule::ieee:
      if (e_field == (std::uint64_t{1} << f.ebits) - 1 && m_field != 0) {
        v.kind = Kind::nan;
        return v;
      }
      break;
    case NanRule::listed:
      if (std::find(f.nan_codes.begin(), f.nan_codes.end(), code) != f.nan_codes.end()) {
        v.kind = Kind::nan;
        return v;
      }
      break;
  }
  if ((f.pos_inf && code == *f.pos_inf) || (f.neg_inf && code == *f.neg_inf)) {
    v.kind = Kind::inf;
    return v;
  }
  if (f.has_zero && e_field == 0) {
    v.sig = m_field;
    v.exp = 1 - f.bias - f.mbits;
  } else {
    v.sig = m_field | (std::uint64_t{1} << f.mbits);
    v.exp = static_cast<int>(e_field) - f.bias - f.mbits;
  }
  if (v.sig == 0 && !f.has_neg_zero) v.negative = false;
  return v;
}

double to_double(const Exact& v) {
  switch (v.kind) {
    case Kind::nan: return v.negative ? -std::nan("") : std::nan("");
    case Kind::inf: return v.negative ? -HUGE_VAL : HUGE_VAL;
    case Kind::finite: break;
  }
  const double m = std::ldexp(static_cast<double>(v.sig), v.exp);
  return v.negative ? -m : m;
}

void to_mpfr(mpfr_t out, const Exact& v) {
  if (mpfr_get_prec(out) < 64) mpfr_set_prec(out, 64);
  switch (v.kind) {
    case Kind::nan:
      mpfr_set_nan(out);
      mpfr_setsign(out, out, v.negative, MPFR_RNDN);
      return;
    case Kind::inf: mpfr_set_inf(out, v.negative ? -1 : 1); return;
    case Kind::finite: break;
  }
  mpfr_set_ui_2exp(out, static_cast<unsigned long>(v.sig), v.exp, MPFR_RNDN);  // exact: sig < 2^64
  if (v.negative) mpfr_neg(out, out, MPFR_RNDN);                                // also gives −0
}

}  // namespace minifloat_test::oracle
