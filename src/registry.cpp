// SPDX-License-Identifier: Apache-2.0
// registry.cpp: the one table of names (formats, modes, policies, profiles).
#include "minifloat/registry.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <string>

#include "excerpt.hpp"

namespace minifloat {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// `name` equals the lowercase `l`, ignoring case (no allocation: parse_format scans ~520 names).
bool equals_lower(std::string_view name, std::string_view l) {
  if (name.size() != l.size()) return false;
  for (std::size_t i = 0; i < l.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != static_cast<unsigned char>(l[i])) return false;
  return true;
}

std::string join(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

std::vector<NamedFormat> build_formats() {
  std::vector<NamedFormat> v = {
      {"e4m3fn", formats::e4m3fn, "ocp", "OCP OFP8 E4M3: bias 7, no Inf, NaN 0x7f/0xff, max 448"},
      {"e5m2", formats::e5m2, "ocp", "OCP OFP8 E5M2: bias 15, IEEE Inf/NaN, max 57344"},
      {"e4m3fnuz", formats::e4m3fnuz, "fnuz", "FNUZ E4M3 (AMD/Graphcore): bias 8, NaN 0x80, no -0, max 240"},
      {"e5m2fnuz", formats::e5m2fnuz, "fnuz", "FNUZ E5M2 (AMD/Graphcore): bias 16, NaN 0x80, no -0, max 57344"},
      {"e4m3b11fnuz", formats::e4m3b11fnuz, "fnuz", "E4M3 bias 11 (TPU): NaN 0x80, no -0, max 30"},
      {"e4m3", formats::e4m3, "ieee-like", "IEEE-like E4M3 (ml_dtypes float8_e4m3): bias 7, Inf 0x78, max 240"},
      {"e3m4", formats::e3m4, "ieee-like", "IEEE-like E3M4 (ml_dtypes float8_e3m4): bias 3, Inf 0x70, max 15.5"},
      {"e3m2fn", formats::e3m2fn, "mx", "OCP MX FP6 E3M2: bias 3, no Inf/NaN, max 28"},
      {"e2m3fn", formats::e2m3fn, "mx", "OCP MX FP6 E2M3: bias 1, no Inf/NaN, max 7.5"},
      {"e2m1fn", formats::e2m1fn, "mx", "OCP MX FP4 E2M1: bias 1, no Inf/NaN, max 6"},
      {"e8m0fnu", formats::e8m0fnu, "scale", "OCP MX scale UE8M0: unsigned, bias 127, no zero, NaN 0xff"},
      {"ue4m3", formats::ue4m3, "scale", "NVFP4 block scale UE4M3: 7 bits, unsigned, bias 7, NaN 0x7f, max 448"},
      {"bf16", formats::bf16, "ieee754", "bfloat16"},
      {"f16", formats::f16, "ieee754", "IEEE 754 binary16"},
      {"f32", formats::f32, "ieee754", "IEEE 754 binary32"},
      {"f64", formats::f64, "ieee754", "IEEE 754 binary64"},
  };
  for (int k = 3; k <= 16; ++k) {
    for (int s = 1; s >= 0; --s) {
      const bool is_signed = s == 1;
      for (int p = 1; p <= (is_signed ? k - 1 : k); ++p) {
        for (int e = 1; e >= 0; --e) {
          const bool extended = e == 1;
          std::string name = "Binary" + std::to_string(k) + "p" + std::to_string(p) + (is_signed ? "s" : "u") +
                             (extended ? "e" : "f");
          v.push_back({name, p3109(k, p, is_signed, extended), "p3109",
                       std::string("IEEE P3109 v4.0, K=") + std::to_string(k) + ", P=" + std::to_string(p) +
                           (is_signed ? ", signed" : ", unsigned") + (extended ? ", extended" : ", finite")});
        }
      }
    }
  }
  return v;
}

struct Alias {
  std::string_view alias;
  std::string_view name;
};
constexpr std::array<Alias, 20> kAliases{{
    {"float8_e4m3fn", "e4m3fn"},     {"float8_e5m2", "e5m2"},         {"float8_e4m3fnuz", "e4m3fnuz"},
    {"float8_e5m2fnuz", "e5m2fnuz"}, {"float8_e4m3b11fnuz", "e4m3b11fnuz"}, {"float8_e4m3", "e4m3"},
    {"float8_e3m4", "e3m4"},         {"float6_e3m2fn", "e3m2fn"},     {"float6_e2m3fn", "e2m3fn"},
    {"float4_e2m1fn", "e2m1fn"},     {"float8_e8m0fnu", "e8m0fnu"},   {"bfloat16", "bf16"},
    {"binary16", "f16"},             {"binary32", "f32"},             {"binary64", "f64"},
    {"ue8m0", "e8m0fnu"},            {"half", "f16"},               {"float16", "f16"},
    {"float32", "f32"},              {"float64", "f64"},
}};

Format parse_custom(std::string_view spec, std::string_view full) {
  // custom:E,M,BIAS,signed|unsigned,SPECIALS[,nozero]
  std::vector<std::string> parts;
  std::string cur;
  for (char c : spec) {
    if (c == ',') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  auto fail = [&](const std::string& why) -> Format {
    throw NameError("invalid user-defined format '" + detail::excerpt(full) + "': " + why +
                    "; expected custom:E,M,BIAS,signed|unsigned,ieee|fn|fnuz|p3109_extended|none[,nozero]");
  };
  if (parts.size() != 5 && parts.size() != 6) return fail("wrong number of fields");
  auto num = [&](const std::string& s, const char* what) {
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size()) fail(std::string("bad ") + what + " '" + detail::excerpt(s) + "'");
    return v;
  };
  const int e = num(parts[0], "exponent bits");
  const int m = num(parts[1], "mantissa bits");
  const int bias = num(parts[2], "bias");
  if (e < 1 || e > 16) return fail("exponent bits must be 1..16");
  if (m < 0 || m > 52) return fail("mantissa bits must be 0..52");
  bool is_signed = false;
  if (parts[3] == "signed") is_signed = true;
  else if (parts[3] != "unsigned") return fail("sign field must be signed or unsigned");
  Specials sp{};
  if (parts[4] == "ieee") sp = Specials::ieee;
  else if (parts[4] == "fn") sp = Specials::fn;
  else if (parts[4] == "fnuz") sp = Specials::fnuz;
  else if (parts[4] == "p3109_extended") sp = Specials::p3109_extended;
  else if (parts[4] == "none") sp = Specials::none;
  else return fail("unknown special-value encoding '" + detail::excerpt(parts[4]) + "'");
  bool has_zero = true;
  if (parts.size() == 6) {
    if (parts[5] != "nozero") return fail("the optional 6th field must be nozero");
    has_zero = false;
  }
  Format f{static_cast<std::uint8_t>(e + m + (is_signed ? 1 : 0)), static_cast<std::uint8_t>(e),
           static_cast<std::uint8_t>(m), bias, is_signed, sp, has_zero};
  switch (validate(f)) {
    case FormatError::ok: return f;
    case FormatError::bits_out_of_range: return fail("total width must be 2..64 bits");
    case FormatError::ieee_needs_mantissa: return fail("ieee specials need at least 1 mantissa bit");
    case FormatError::unsigned_fnuz: return fail("fnuz specials need a sign bit");
    case FormatError::no_zero_needs_fn: return fail("nozero needs fn or none specials");
    case FormatError::no_finite_values: return fail("no finite values remain");
    case FormatError::bias_out_of_range: return fail("the bias must be within ±" + std::to_string(kMaxAbsBias));
    default: return fail("inconsistent fields");
  }
}

template <class E, std::size_t N>
struct NameTable {
  std::array<std::pair<std::string_view, E>, N> entries;
};

constexpr NameTable<Rounding, 7> kRounding{{{{"rne", Rounding::rne},
                                              {"rna", Rounding::rna},
                                              {"rtz", Rounding::rtz},
                                              {"rtp", Rounding::rtp},
                                              {"rtn", Rounding::rtn},
                                              {"rto", Rounding::rto},
                                              {"sr", Rounding::sr}}}};
constexpr NameTable<Overflow, 3> kOverflow{
    {{{"nonsat", Overflow::nonsat}, {"satfinite", Overflow::satfinite}, {"satpropagate", Overflow::satpropagate}}}};
constexpr NameTable<SrVariant, 5> kSr{{{{"exact", SrVariant::exact},
                                        {"A", SrVariant::a},
                                        {"B", SrVariant::b},
                                        {"C", SrVariant::c},
                                        {"equal", SrVariant::equal}}}};

template <class E, std::size_t N>
E lookup(const NameTable<E, N>& t, std::string_view name, const char* what) {
  const std::string l = lower(name);
  for (auto& [n, v] : t.entries)
    if (lower(n) == l) return v;
  std::string accepted;
  for (auto& [n, v] : t.entries) accepted += (accepted.empty() ? "" : ", ") + std::string(n);
  throw NameError("unknown " + std::string(what) + " '" + std::string(name) + "'; accepted: " + accepted);
}
template <class E, std::size_t N>
std::string_view name_of(const NameTable<E, N>& t, E v) {
  for (auto& [n, x] : t.entries)
    if (x == v) return n;
  return "?";
}
template <class E, std::size_t N>
std::vector<std::string_view> names_of(const NameTable<E, N>& t) {
  std::vector<std::string_view> out;
  for (auto& [n, v] : t.entries) out.push_back(n);
  return out;
}

}  // namespace

const std::vector<NamedFormat>& named_formats() {
  static const std::vector<NamedFormat> v = build_formats();
  return v;
}

Format parse_format(std::string_view name) {
  if (name.substr(0, 7) == "custom:") return parse_custom(name.substr(7), name);
  const std::string l = lower(name);
  for (const auto& nf : named_formats())
    if (equals_lower(nf.name, l)) return nf.format;
  for (const auto& a : kAliases)
    if (a.alias == l) return parse_format(a.name);
  std::string accepted;
  for (const auto& nf : named_formats()) {
    if (nf.family == "p3109") break;
    accepted += (accepted.empty() ? "" : " ") + nf.name;
  }
  throw NameError("unknown format '" + detail::excerpt(name) + "'; accepted: " + accepted +
                  ", Binary{K}p{P}{s|u}{e|f} (IEEE P3109, 3<=K<=16), or custom:E,M,BIAS,signed|unsigned,SPECIALS[,nozero]");
}

std::string format_name(Format f) {
  for (const auto& nf : named_formats())
    if (nf.format == f) return nf.name;
  static constexpr std::array<std::string_view, 5> sp{"ieee", "fn", "fnuz", "p3109_extended", "none"};
  return "custom:" + std::to_string(f.exponent_bits) + "," + std::to_string(f.mantissa_bits) + "," +
         std::to_string(f.bias) + "," + (f.is_signed ? "signed" : "unsigned") + "," +
         std::string(sp[static_cast<int>(f.specials)]) + (f.has_zero ? "" : ",nozero");
}

Rounding parse_rounding(std::string_view name) { return lookup(kRounding, name, "rounding mode"); }
Overflow parse_overflow(std::string_view name) { return lookup(kOverflow, name, "overflow policy"); }
SrVariant parse_sr_variant(std::string_view name) { return lookup(kSr, name, "stochastic-rounding variant"); }
Profile parse_profile(std::string_view name) {
  const std::string l = lower(name);
  if (l == "ocp") return profiles::ocp;
  if (l == "nvidia") return profiles::nvidia;
  if (l == "ml_dtypes") return profiles::ml_dtypes;
  if (l == "p3109") return profiles::p3109;
  throw NameError("unknown profile '" + std::string(name) + "'; accepted: " + join(profile_names()));
}
std::string_view rounding_name(Rounding r) { return name_of(kRounding, r); }
std::string_view overflow_name(Overflow o) { return name_of(kOverflow, o); }
std::string_view sr_variant_name(SrVariant v) { return name_of(kSr, v); }
const std::vector<std::string_view>& rounding_names() {
  static const auto v = names_of(kRounding);
  return v;
}
const std::vector<std::string_view>& overflow_names() {
  static const auto v = names_of(kOverflow);
  return v;
}
const std::vector<std::string_view>& profile_names() {
  static const std::vector<std::string_view> v{"ocp", "nvidia", "ml_dtypes", "p3109"};
  return v;
}

}  // namespace minifloat
