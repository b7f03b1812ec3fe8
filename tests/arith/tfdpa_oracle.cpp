// SPDX-License-Identifier: Apache-2.0
// tfdpa_oracle.cpp: MPFR reference for the block-scaled T-FDPA kinds (see tfdpa_oracle.hpp).
#include "tfdpa_oracle.hpp"

#include <mpfr.h>

#include <bit>
#include <cmath>

namespace arith_oracle {
namespace {

constexpr mpfr_prec_t kPrec = 2048;  // every value here is exact far below this

struct Fields {
  int bits, ebits, mbits, bias;
  bool is_signed, has_zero, nan_all_ones, ieee;
};
Fields fields(BsFormat f) {
  switch (f) {
    case BsFormat::e4m3fn: return {8, 4, 3, 7, true, true, true, false};
    case BsFormat::e5m2: return {8, 5, 2, 15, true, true, false, true};
    case BsFormat::e2m3fn: return {6, 2, 3, 1, true, true, false, false};
    case BsFormat::e3m2fn: return {6, 3, 2, 3, true, true, false, false};
    case BsFormat::e2m1fn: return {4, 2, 1, 1, true, true, false, false};
    case BsFormat::e8m0fnu: return {8, 8, 0, 127, false, false, true, false};
    case BsFormat::ue4m3: return {7, 4, 3, 7, false, true, true, false};
  }
  return {};
}

/// Decode: false for NaN (or Inf, which these kinds never see from finite inputs); sets v exactly
/// and the nominal exponent e = max(floor(log2|v|), emin) (v = 0: e unused).
bool decode(BsFormat f, std::uint64_t code, mpfr_t v, int& e, bool& zero) {
  const Fields F = fields(f);
  code &= (std::uint64_t{1} << F.bits) - 1;  // an 8-bit ue4m3 code's sign bit is dropped
  const bool neg = F.is_signed && ((code >> (F.bits - 1)) & 1) != 0;
  const std::uint64_t mag = F.is_signed ? code & ((std::uint64_t{1} << (F.bits - 1)) - 1) : code;
  const std::uint64_t ef = mag >> F.mbits, mf = mag & ((std::uint64_t{1} << F.mbits) - 1);
  const std::uint64_t emax_field = (std::uint64_t{1} << F.ebits) - 1;
  if (F.nan_all_ones && mag == (std::uint64_t{1} << (F.bits - (F.is_signed ? 1 : 0))) - 1) return false;
  if (F.ieee && ef == emax_field) return false;  // e5m2 Inf/NaN
  const int emin = F.has_zero ? 1 - F.bias : -F.bias;
  if (F.has_zero && ef == 0) {
    mpfr_set_ui(v, static_cast<unsigned long>(mf), MPFR_RNDN);
    mpfr_mul_2si(v, v, emin - F.mbits, MPFR_RNDN);
  } else {
    mpfr_set_ui(v, static_cast<unsigned long>(mf | (std::uint64_t{1} << F.mbits)), MPFR_RNDN);
    mpfr_mul_2si(v, v, static_cast<long>(ef) - F.bias - F.mbits, MPFR_RNDN);
  }
  if (neg) mpfr_neg(v, v, MPFR_RNDN);
  zero = mpfr_zero_p(v) != 0;
  if (!zero) {
    const int lg = static_cast<int>(mpfr_get_exp(v)) - 1;  // v = m·2^exp with m in [0.5, 1)
    e = lg > emin ? lg : emin;
  }
  return true;
}

struct Mp {
  mpfr_t v;
  Mp() { mpfr_init2(v, kPrec); mpfr_set_zero(v, 1); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
};

std::uint32_t f32_code_of(const mpfr_t x) {
  const float f = mpfr_get_flt(x, MPFR_RNDZ);  // exact: x is an FP32 value here
  return std::bit_cast<std::uint32_t>(f);
}

/// One group. Returns false for a NaN result.
bool group(const BsModel& m, BsFormat fa, const std::vector<std::uint64_t>& a, BsFormat fb,
           const std::vector<std::uint64_t>& b, std::size_t lo, std::size_t n, const std::vector<std::uint64_t>& sa,
           const std::vector<std::uint64_t>& sb, std::uint32_t& c) {
  // C as an FP32 value
  const float cf = std::bit_cast<float>(c);
  if (std::isnan(cf)) return false;
  // scale decode for lane i
  auto scale = [&](const std::vector<std::uint64_t>& s, std::size_t i, mpfr_t v, int& e, bool& zero) {
    return decode(m.scale, s[i / static_cast<std::size_t>(m.scale_block)], v, e, zero);
  };
  struct Term {
    Mp value;
    int exp = 0;
  };
  std::vector<Term> terms(n + 1);
  std::size_t nt = 0;
  Mp x, y, s0, s1;
  int ex = 0, ey = 0, e0 = 0, e1 = 0;
  bool zx = false, zy = false, z0 = false, z1 = false;
  for (std::size_t i = lo; i < lo + n; ++i) {
    if (!scale(sa, i, s0.v, e0, z0) || !scale(sb, i, s1.v, e1, z1)) return false;
    if (!decode(fa, a[i], x.v, ex, zx) || !decode(fb, b[i], y.v, ey, zy)) return false;
  }
  if (std::isinf(cf)) return true;  // finite products (these element formats have no Inf): C stays
  if (m.rule == BsRule::per_product) {
    for (std::size_t i = lo; i < lo + n; ++i) {
      scale(sa, i, s0.v, e0, z0);
      scale(sb, i, s1.v, e1, z1);
      decode(fa, a[i], x.v, ex, zx);
      decode(fb, b[i], y.v, ey, zy);
      Term& t = terms[nt++];
      mpfr_mul(t.value.v, x.v, y.v, MPFR_RNDN);
      mpfr_mul_2si(t.value.v, t.value.v, e0 + e1, MPFR_RNDN);  // UE8M0 scales: exactly 2^e
      if (m.relative_zero && (zx || zy))
        t.exp = (zx ? m.zero_factor : ex) + (zy ? m.zero_factor : ey) + (z0 ? m.zero_factor : e0) +
                (z1 ? m.zero_factor : e1);
      else
        t.exp = zx || zy ? m.zero_exponent : ex + ey + e0 + e1;
    }
  } else {
    const auto sub = static_cast<std::size_t>(m.subblock);
    for (std::size_t j = lo; j < lo + n; j += sub) {
      Term& t = terms[nt++];
      mpfr_set_zero(t.value.v, 1);
      for (std::size_t i = j; i < j + sub && i < lo + n; ++i) {
        decode(fa, a[i], x.v, ex, zx);
        decode(fb, b[i], y.v, ey, zy);
        mpfr_mul(x.v, x.v, y.v, MPFR_RNDN);
        mpfr_add(t.value.v, t.value.v, x.v, MPFR_RNDN);
      }
      scale(sa, j, s0.v, e0, z0);
      scale(sb, j, s1.v, e1, z1);
      mpfr_mul(t.value.v, t.value.v, s0.v, MPFR_RNDN);
      mpfr_mul(t.value.v, t.value.v, s1.v, MPFR_RNDN);
      if (m.relative_zero) t.exp = (z0 ? m.zero_factor : e0) + (z1 ? m.zero_factor : e1);
      else t.exp = z0 || z1 ? m.zero_exponent : e0 + e1;
    }
  }
  // C
  Term& tc = terms[nt++];
  mpfr_set_flt(tc.value.v, cf, MPFR_RNDN);
  if (cf == 0.0f) {
    tc.exp = m.own_zero_c ? m.zero_c : m.zero_exponent;
  } else {
    const int lg = static_cast<int>(mpfr_get_exp(tc.value.v)) - 1;
    tc.exp = lg > -126 ? lg : -126;
  }
  int E = tc.exp;
  const int empty = !m.relative_zero ? m.zero_exponent : m.rule == BsRule::per_product ? 2 * m.zero_factor : 0;
  if (n < static_cast<std::size_t>(m.group) && empty > E) E = empty;
  for (std::size_t i = 0; i < nt; ++i) E = terms[i].exp > E ? terms[i].exp : E;
  // truncate every term to a multiple of 2^(E − F) and sum exactly
  Mp sum;
  for (std::size_t i = 0; i < nt; ++i) {
    mpfr_mul_2si(x.v, terms[i].value.v, m.frac_bits - E, MPFR_RNDN);
    mpfr_trunc(x.v, x.v);
    mpfr_add(sum.v, sum.v, x.v, MPFR_RNDN);
  }
  mpfr_mul_2si(sum.v, sum.v, E - m.frac_bits, MPFR_RNDN);
  // RZ to FP32: 24 significant bits, or the multiple of 2^−149 below 2^−126; ≥ 2^128 → Inf
  if (mpfr_zero_p(sum.v)) {
    c = 0;  // +0 (an all −0 sum needs every term −0: not drawn by the tests)
    return true;
  }
  const long lg = mpfr_get_exp(sum.v) - 1;
  const long keep = lg >= -126 ? lg - 23 : -149;
  mpfr_mul_2si(sum.v, sum.v, -keep, MPFR_RNDN);
  mpfr_trunc(sum.v, sum.v);
  mpfr_mul_2si(sum.v, sum.v, keep, MPFR_RNDN);
  if (mpfr_zero_p(sum.v)) {
    c = mpfr_signbit(sum.v) ? 0x80000000u : 0;
    return true;
  }
  if (mpfr_get_exp(sum.v) - 1 >= 128) {
    c = mpfr_sgn(sum.v) < 0 ? 0xff800000u : 0x7f800000u;
    return true;
  }
  c = f32_code_of(sum.v);
  return true;
}

}  // namespace

std::uint32_t block_scaled_dot(const BsModel& m, BsFormat fa, const std::vector<std::uint64_t>& a, BsFormat fb,
                               const std::vector<std::uint64_t>& b, const std::vector<std::uint64_t>& sa,
                               const std::vector<std::uint64_t>& sb, std::uint32_t c) {
  const auto L = static_cast<std::size_t>(m.group);
  for (std::size_t lo = 0; lo < a.size(); lo += L) {
    const std::size_t n = a.size() - lo < L ? a.size() - lo : L;
    if (!group(m, fa, a, fb, b, lo, n, sa, sb, c)) return 0x7fffffffu;
  }
  return c;
}

}  // namespace arith_oracle
