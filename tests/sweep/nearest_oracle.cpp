// SPDX-License-Identifier: Apache-2.0
// nearest_oracle.cpp: the independent scalar oracle of the f32 sweep (value list + binary search);
// written from the specs' field layouts and the ocp rules, with no minifloat code.
#include "nearest_oracle.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace minifloat_test::sweep {

const std::vector<FormatSpec>& sweep_formats() {
  // Field layouts: OFP8 Table 1 (spec-digest §1.1), OCP MX §5 (§2.1), ml_dtypes float8.h (§5.1,
  // §5.2), NVFP4 block scale .ue4m3 (§4.3: 7-bit unsigned E4M3, bias 7, NaN 0x7f, max 448).
  static const std::vector<FormatSpec> list = {
      {"e4m3fn", 8, 4, 3, 7, true, SpecialKind::fn, true},
      {"e5m2", 8, 5, 2, 15, true, SpecialKind::ieee, true},
      {"e4m3fnuz", 8, 4, 3, 8, true, SpecialKind::fnuz, true},
      {"e5m2fnuz", 8, 5, 2, 16, true, SpecialKind::fnuz, true},
      {"e4m3b11fnuz", 8, 4, 3, 11, true, SpecialKind::fnuz, true},
      {"e4m3", 8, 4, 3, 7, true, SpecialKind::ieee, true},
      {"e3m4", 8, 3, 4, 3, true, SpecialKind::ieee, true},
      {"e3m2fn", 6, 3, 2, 3, true, SpecialKind::none, true},
      {"e2m3fn", 6, 2, 3, 1, true, SpecialKind::none, true},
      {"e2m1fn", 4, 2, 1, 1, true, SpecialKind::none, true},
      {"e8m0fnu", 8, 8, 0, 127, false, SpecialKind::fn, false},
      {"ue4m3", 7, 4, 3, 7, false, SpecialKind::fn, true},
      // UE5M3 (CUDA 13.4 __nv_fp8_ue5m3: no sign, 5 exponent, 3 mantissa bits, no Inf, NaN 0xff), bias 15.
      {"ue5m3", 8, 5, 3, 15, false, SpecialKind::fn, true},
  };
  return list;
}

const FormatSpec* find_format(std::string_view name) {
  for (const FormatSpec& f : sweep_formats())
    if (f.name == name) return &f;
  return nullptr;
}

namespace {
constexpr std::string_view kModeNames[] = {"rne", "rna", "rtz", "rtp", "rtn", "rto", "rnz", "rnu"};
constexpr std::string_view kPolicyNames[] = {"nonsat", "satfinite", "satpropagate"};
}  // namespace

std::string_view mode_name(Mode m) { return kModeNames[static_cast<int>(m)]; }
std::string_view policy_name(Policy p) { return kPolicyNames[static_cast<int>(p)]; }

bool parse_mode(std::string_view name, Mode& out) {
  for (int i = 0; i < 8; ++i)
    if (kModeNames[i] == name) {
      out = static_cast<Mode>(i);
      return true;
    }
  return false;
}

bool parse_policy(std::string_view name, Policy& out) {
  for (int i = 0; i < 3; ++i)
    if (kPolicyNames[i] == name) {
      out = static_cast<Policy>(i);
      return true;
    }
  return false;
}

NearestOracle::NearestOracle(const FormatSpec& spec) : spec_(spec) {
  const int M = spec.mantissa_bits;
  const std::uint32_t mag_bits = static_cast<std::uint32_t>(spec.bits - (spec.is_signed ? 1 : 0));
  const std::uint32_t mag_count = 1u << mag_bits;
  const std::uint32_t exp_all_ones = (1u << spec.exponent_bits) - 1;
  sign_bit_ = spec.is_signed ? (1u << (spec.bits - 1)) : 0;
  for (std::uint32_t c = 0; c < mag_count; ++c) {
    const std::uint32_t e = c >> M;
    const std::uint32_t m = c & ((1u << M) - 1);
    if (spec.specials == SpecialKind::ieee && e == exp_all_ones) continue;  // Inf / NaN
    if (spec.specials == SpecialKind::fn && c == mag_count - 1) continue;    // the NaN
    double v;
    if (e == 0 && spec.has_zero)
      v = std::ldexp(static_cast<double>(m), 1 - spec.bias - M);
    else
      v = std::ldexp(static_cast<double>((1u << M) + m), static_cast<int>(e) - spec.bias - M);
    if (!values_.empty() && !(v > values_.back())) {
      std::fprintf(stderr, "nearest_oracle: values of %s are not increasing at code 0x%x\n",
                   std::string(spec.name).c_str(), c);
      std::abort();
    }
    values_.push_back(v);
    codes_.push_back(c);
  }
  // The virtual next value above max, as if the exponent range were unbounded.
  const std::uint32_t max_c = codes_.back();
  const int max_e = static_cast<int>(max_c >> M);
  values_.push_back(values_.back() + std::ldexp(1.0, max_e - spec.bias - M));
  codes_.push_back(max_c + 1);
}

std::vector<double> NearestOracle::finite_values() const {
  return std::vector<double>(values_.begin(), values_.end() - 1);
}

std::uint32_t NearestOracle::nan_code(bool negative) const {
  const std::uint32_t s = negative ? sign_bit_ : 0;
  const int M = spec_.mantissa_bits;
  switch (spec_.specials) {
    case SpecialKind::ieee:  // quiet NaN: exponent all ones, top mantissa bit set
      return s | (((1u << spec_.exponent_bits) - 1) << M) | (1u << (M - 1));
    case SpecialKind::fn: return s | ((1u << (spec_.bits - (spec_.is_signed ? 1 : 0))) - 1);
    case SpecialKind::fnuz: return sign_bit_;
    case SpecialKind::none: break;
  }
  return 0;
}

OracleResult NearestOracle::overflow_result(bool negative, Mode mode, Policy policy) const {
  const std::uint32_t s = negative ? sign_bit_ : 0;
  OracleResult r{max_code() | s, true, true};
  if (policy != Policy::nonsat) return r;
  const bool toward_max = mode == Mode::rtz || mode == Mode::rto || (mode == Mode::rtp && negative) ||
                          (mode == Mode::rtn && !negative);
  if (toward_max) return r;
  if (has_inf())
    r.code = s | (((1u << spec_.exponent_bits) - 1) << spec_.mantissa_bits);
  else if (has_nan())
    r.code = nan_code(negative);
  return r;
}

OracleResult NearestOracle::round(double v, Mode mode, Policy policy) const {
  const bool neg = std::signbit(v);
  if (std::isnan(v)) {
    if (has_nan()) return {nan_code(neg && spec_.is_signed), false, false};
    return {max_code(), false, false};  // +max (flag invalid)
  }
  if (!spec_.is_signed && neg && v != 0) return {nan_code(false), false, false};
  const std::uint32_t s = neg ? sign_bit_ : 0;
  if (std::isinf(v)) {
    if (policy == Policy::satfinite) return {max_code() | s, true, false};
    if (has_inf()) return {s | (((1u << spec_.exponent_bits) - 1) << spec_.mantissa_bits), false, false};
    if (has_nan()) return {nan_code(neg), false, false};
    return {max_code() | s, true, false};
  }
  if (v == 0) {
    if (!spec_.has_zero) return {0, true, false};  // e8m0fnu: 0 → 2^−127
    return {has_negative_zero() ? s : 0, false, false};
  }
  const double a = std::fabs(v);
  if (a < values_.front()) return {0, true, false};  // only without zero: below 2^−127 → 0x00
  const std::size_t top = values_.size() - 1;      // index of the virtual value
  const std::size_t hi = static_cast<std::size_t>(std::upper_bound(values_.begin(), values_.end(), a) - values_.begin());
  if (hi > top) return overflow_result(neg, mode, policy);  // a ≥ max + ulp(max)
  const std::size_t lo = hi - 1;
  auto finish = [&](std::size_t i, bool inexact) -> OracleResult {
    const std::uint32_t c = codes_[i];
    if (c == 0) return {has_negative_zero() ? s : 0, inexact, false};
    return {c | s, inexact, false};
  };
  if (values_[lo] == a) return finish(lo, false);
  const bool no_mantissa = spec_.mantissa_bits == 0;
  const double mid = (values_[lo] + values_[hi]) / 2;  // exact: few significant bits
  bool up = false;
  switch (mode) {
    case Mode::rne:
      up = a > mid || (a == mid && (no_mantissa || (codes_[hi] & 1) == 0));
      break;
    case Mode::rna: up = a >= mid; break;
    case Mode::rtz: up = false; break;
    case Mode::rtp: up = !neg; break;
    case Mode::rtn: up = neg; break;
    case Mode::rto: up = !no_mantissa && (codes_[hi] & 1) != 0; break;
    // nearest, ties toward zero (CPFloat's RNZ; issue 25 item 5): up only strictly above the exact midpoint of
    // the two neighbours, so a tie keeps the smaller magnitude (and max + ulp/2 stays max, no overflow)
    case Mode::rnz: up = a > mid; break;
    // nearest, ties toward +Inf (AMD Quark's DPU_ROUND): a tie goes up in magnitude only for a positive value
    case Mode::rnu: up = a > mid || (a == mid && !neg); break;
  }
  if (up && hi == top) return overflow_result(neg, mode, policy);
  return finish(up ? hi : lo, true);
}

OracleResult NearestOracle::round_f32(std::uint32_t bits, Mode mode, Policy policy) const {
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0)  // NaN: keep the sign bit
    return round(std::copysign(std::numeric_limits<double>::quiet_NaN(), (bits >> 31) ? -1.0 : 1.0), mode, policy);
  return round(static_cast<double>(std::bit_cast<float>(bits)), mode, policy);
}

}  // namespace minifloat_test::sweep
