// SPDX-License-Identifier: Apache-2.0
// registry.cpp: the one name registry — the NameTable machinery and the tables of the core's kinds
// (registry.hpp) and the format list. Each module above defines its own tables; names.cpp lists them.
#include "minifloat/registry.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <iterator>
#include <string>

#include "excerpt.hpp"
#include "minifloat/core/named_profiles.hpp"

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

std::vector<NamedFormat> build_formats() {
  std::vector<NamedFormat> v;
  for (const auto& r : kNamedFormats) v.push_back({r.name, r.format, r.family, r.summary});
  for (int k = 3; k <= 16; ++k) {
    for (int s = 1; s >= 0; --s) {
      const bool is_signed = s == 1;
      for (int p = 1; p <= (is_signed ? k - 1 : k); ++p) {
        for (int e = 1; e >= 0; --e) {
          const bool extended = e == 1;
          std::string name =
              "Binary" + std::to_string(k) + "p" + std::to_string(p) + (is_signed ? "s" : "u") + (extended ? "e" : "f");
          v.push_back({name,
                       p3109(k, p, is_signed ? Signedness::signed_ : Signedness::unsigned_,
                             extended ? P3109Domain::extended : P3109Domain::finite),
                       FormatFamily::p3109,
                       std::string("IEEE P3109 v4.0, K=") + std::to_string(k) + ", P=" + std::to_string(p) +
                           (is_signed ? ", signed" : ", unsigned") + (extended ? ", extended" : ", finite")});
        }
      }
    }
  }
  return v;
}

/// The format row `l` (lowercase) is an alias of: a row's ml_dtypes name or one of its `aliases`; else nullptr.
const NamedFormatRow* find_alias(std::string_view l) {
  for (const auto& r : kNamedFormats) {
    if (l == r.ml_dtypes) return &r;
    std::string_view rest = r.aliases;
    while (!rest.empty()) {
      const std::size_t sp = rest.find(' ');
      if (rest.substr(0, sp) == l) return &r;
      rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
    }
  }
  return nullptr;
}

/// The spellings of Specials (custom:… descriptors, format_name, tables' and format_info's "specials").
constexpr NameEntry<Specials> kSpecials[] = {
    {Specials::ieee, "ieee", "IEEE 754: Inf and NaNs in the all-ones exponent"},
    {Specials::fn, "fn", "no Inf; NaN is the all-ones magnitude"},
    {Specials::fnuz, "fnuz", "no Inf, no -0; NaN is the -0 code"},
    {Specials::p3109_extended, "p3109_extended", "IEEE P3109 extended: Inf and one NaN"},
    {Specials::none, "none", "no Inf, no NaN"},
};

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
    throw NameError("invalid user-defined format '" + quote_input(full) + "': " + why +
                    "; expected custom:E,M,BIAS,signed|unsigned,ieee|fn|fnuz|p3109_extended|none[,nozero]");
  };
  if (parts.size() != 5 && parts.size() != 6) return fail("wrong number of fields");
  auto num = [&](const std::string& s, const char* what) {
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size()) fail(std::string("bad ") + what + " '" + quote_input(s) + "'");
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
  const auto sp_entry = std::find_if(std::begin(kSpecials), std::end(kSpecials),
                                     [&](const NameEntry<Specials>& x) { return x.name == parts[4]; });  // exact case
  if (sp_entry == std::end(kSpecials)) return fail("unknown special-value encoding '" + quote_input(parts[4]) + "'");
  const Specials sp = sp_entry->value;
  bool has_zero = true;
  if (parts.size() == 6) {
    if (parts[5] != "nozero") return fail("the optional 6th field must be nozero");
    has_zero = false;
  }
  Format f{.bits = static_cast<std::uint8_t>(e + m + (is_signed ? 1 : 0)),
           .exponent_bits = static_cast<std::uint8_t>(e),
           .mantissa_bits = static_cast<std::uint8_t>(m),
           .bias = bias,
           .is_signed = is_signed,
           .specials = sp,
           .has_zero = has_zero};
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

constexpr NamePattern kFormatPatterns[] = {
    {"Binary{K}p{P}{s|u}{e|f}", "IEEE P3109 v4.0: K bits (3..16), precision P, signed/unsigned, extended/finite"},
    {"custom:E,M,BIAS,signed|unsigned,ieee|fn|fnuz|p3109_extended|none[,nozero]",
     "a user-defined format: exponent and mantissa bits, bias, sign, special-value encoding"},
};

// ---- the enum tables (registry.hpp) --------------------------------------------------------

constexpr NameEntry<Rounding> kRounding[] = {
    {Rounding::rne, "rne", "round to nearest, ties to even (IEEE 754 roundTiesToEven; PTX .rn); the default"},
    {Rounding::rna, "rna", "round to nearest, ties away from zero (roundTiesToAway)"},
    {Rounding::rtz, "rtz", "round toward zero (roundTowardZero; PTX .rz)"},
    {Rounding::rtp, "rtp", "round toward +inf (roundTowardPositive; PTX .rp)"},
    {Rounding::rtn, "rtn", "round toward -inf (roundTowardNegative; PTX .rm)"},
    {Rounding::rto, "rto", "round to odd: truncate, then OR the sticky bit into the last kept bit"},
    {Rounding::sr, "sr", "stochastic rounding: a pure function of the value and caller-supplied random bits"},
    {Rounding::rnz, "rnz",
     "round to nearest, ties toward zero (CPFloat CPFLOAT_RND_NZ; DeepGEMM's FP4 reference, utils/math.py:73)"},
    {Rounding::rnu, "rnu",
     "round to nearest, ties toward +Inf (AMD Quark DPU_ROUND, \"round half upward\": bfp_kernel.cc:34 dpu_round)"},
};
constexpr NameEntry<Overflow> kOverflow[] = {
    {Overflow::nonsat, "nonsat",
     "finite overflow -> +-Inf where the format has it, else NaN, else +-max (IEEE 754 7.4)"},
    {Overflow::satfinite, "satfinite", "finite overflow and +-Inf -> +-max; NaN stays NaN (PTX .satfinite, OCP SAT)"},
    {Overflow::satpropagate, "satpropagate", "finite overflow -> +-max; +-Inf stays Inf where the format has it"},
};
constexpr NameEntry<SrVariant> kSr[] = {
    {SrVariant::exact, "exact", "up iff R < nu*2^64, R 64 random bits: P(up) = nu to within 2^-64"},
    {SrVariant::a, "A", "P3109 StochasticA<N>: up iff floor(nu*2^N) + R >= 2^N (N random bits)"},
    {SrVariant::b, "B", "P3109 StochasticB<N>: up iff floor(nu*2^(N+1)) + 2R + 1 >= 2^(N+1)"},
    {SrVariant::c, "C", "P3109 StochasticC<N>: up iff RNE(nu*2^N) + R >= 2^N"},
    {SrVariant::equal, "equal", "CPFloat equal-probability SR: up iff inexact and one random bit is 1"},
    {SrVariant::stochastic_odd, "stochastic_odd",
     "gfloat StochasticOdd<N>: up iff RNO(nu*2^N) + R >= 2^N, RNO = nearest integer, ties to odd (round.py:151)"},
};
constexpr NameEntry<ScaleRule> kScaleRule[] = {
    {ScaleRule::ocp_floor, "ocp_floor", "E8M0: floor(log2 amax) - emax_elem (OCP MX v1.0 6.3, torchao FLOOR)"},
    {ScaleRule::rceil, "rceil",
     "E8M0: smallest e with max*2^e >= amax (NVIDIA cvt.rp ue8m0, torchao RCEIL, DeepSeek-V3.1)"},
    {ScaleRule::ceil, "ceil", "E8M0: FP32 exponent of amax - emax_elem, +1 if its mantissa is nonzero (torchao CEIL)"},
    {ScaleRule::even, "even", "E8M0: amax rounded at the element's mantissa width, then as ocp_floor (torchao EVEN)"},
    {ScaleRule::tosa, "tosa", "E8M0: smallest e with RNE(amax/2^e) <= max_elem (TOSA calc_block_scale)"},
    {ScaleRule::fp32_amax, "fp32_amax", "FP32: encode = max/amax (Transformer Engine compute_scale_from_amax)"},
    {ScaleRule::fp32_pow2, "fp32_pow2", "FP32: max/amax with its mantissa cleared (TE force_pow_2_scales)"},
    {ScaleRule::nvfp4, "nvfp4", "NVFP4 two-level: FP32 tensor scale and E4M3 block scale (TE operation order)"},
    {ScaleRule::nvfp4_v2, "nvfp4_v2",
     "UE5M3: auto-round nvfp4_v2 cast of fl32(amax*fl32(1/6)) (no carry, no 0), y = fl32(x/scale); no tensor scale"},
    {ScaleRule::nvfp4_v2_gs, "nvfp4_v2_gs",
     "UE5M3: as nvfp4_v2 under the FP32 tensor scale fl32(688128*fl32(1/amax)) (auto-round "
     "nvfp4_v2_with_global_scale)"},
    {ScaleRule::rceil_fp32, "rceil_fp32",
     "E8M0: cvt.rp.satfinite.ue8m0 of fl32(amax*fl32(1/max)) (TE MXFP8 float_to_e8m0; not always rceil)"},
    {ScaleRule::nvfp4_ceil, "nvfp4_ceil",
     "NVFP4 with the E4M3 block scale rounded up, not to nearest (cuDNN, Triton "
     "ROUND_UP)"},
};
constexpr NameEntry<ZeroBlock> kZeroBlock[] = {
    {ZeroBlock::standard, "standard", "E8M0 rules: min_scale; FP32 rules: unit_scale (OCP, TE); the default"},
    {ZeroBlock::min_scale, "min_scale", "scale 0x00 = 2^-127 (FP32 rules: as unit_scale)"},
    {ZeroBlock::unit_scale, "unit_scale", "scale 1.0 (E8M0 0x7f)"},
    {ZeroBlock::nan, "nan", "NaN scale, elements 0/0 = NaN (old DeepSeek act_quant, trap T20)"},
};
constexpr NameEntry<NanInBlock> kNanInBlock[] = {
    {NanInBlock::whole_block_nan, "whole_block_nan",
     "scale NaN, every element NaN (OCP MX, mx-emu, torchao, TOSA); the default"},
    {NanInBlock::element_only, "element_only",
     "amax ignores NaN: finite scale, only the NaN element is NaN (TE CUDA, T18)"},
};
constexpr NameEntry<InfInBlock> kInfInBlock[] = {
    {InfInBlock::nan_scale, "nan_scale", "scale NaN, whole block NaN (mx-emu, TOSA); the default"},
    {InfInBlock::max_scale, "max_scale",
     "scale clamps to the largest (E8M0 0xfe; TE satfinite); Inf elements saturate"},
};
constexpr NameEntry<SubnormalAmax> kSubnormalAmax[] = {
    {SubnormalAmax::keep, "keep", "an FP32-subnormal amax follows the rule as usual; the default"},
    {SubnormalAmax::flush_block, "flush_block", "the whole block becomes zeros, scale as for a zero block (mx-emu)"},
};
constexpr NameEntry<Mxint8Min> kMxint8Min[] = {
    {Mxint8Min::twos_complement, "twos_complement",
     "-2 (code 0x80) is representable (OCP MX, TOSA, gfloat); the default"},
    {Mxint8Min::symmetric, "symmetric", "clamp to +-127/64 (mx-emu)"},
};
constexpr NameEntry<Fp32ScaleOrder> kFp32Order[] = {
    {Fp32ScaleOrder::te_multiply, "te_multiply",
     "encode = max/amax, y = fl32(x*encode), decode = 1/encode (TE; an encode above FLT_MAX clamps to it, as "
     "TE's fminf); the default"},
    {Fp32ScaleOrder::divide, "divide", "fp32_amax: decode = amax/max, y = fl32(x/decode) (DeepSeek-V3 act_quant)"},
    {Fp32ScaleOrder::exact, "exact",
     "scales as te_multiply; x*encode rounded once into the element (no binary32 step; nvfp4 where TE clamps "
     "encode: x/decode rounded once)"},
    {Fp32ScaleOrder::deepgemm, "deepgemm",
     "fp32_amax: decode = amax/max, y = fl32(x*fl32(1/decode)) (DeepGEMM per_token_cast_to_fp8; its clamp: "
     "amax-epsilon=0.0001)"},
};
/// The profile names, derived from core/named_profiles.hpp's kNamedProfiles.
constexpr auto kProfiles = [] {
  std::array<NameEntry<Profile>, std::size(kNamedProfiles)> a{};
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = {kNamedProfiles[i].profile, kNamedProfiles[i].name, kNamedProfiles[i].summary};
  return a;
}();
constexpr NameEntry<Format> kDecodeTargets[] = {
    {formats::f32, "f32", "IEEE 754 binary32 bits"},
    {formats::f64, "f64", "IEEE 754 binary64 bits"},
    {formats::f16, "f16", "IEEE 754 binary16 bits"},
    {formats::bf16, "bf16", "bfloat16 bits"},
};

}  // namespace

std::string quote_input(std::string_view text) { return detail::excerpt(text); }

bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string with_article(std::string_view noun) {
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  const auto vowel = [&](char c) { return std::string_view("aeio").find(lower(c)) != std::string_view::npos; };
  bool an = !noun.empty() && vowel(noun[0]);
  if (!noun.empty() && std::string_view("fhlmnrsx").find(noun[0]) != std::string_view::npos) {
    // a lowercase abbreviation read letter by letter ("ef-thirty-two", "em-ex-ef-pee four"): no vowel in
    // its leading letters
    bool any_vowel = false;
    for (std::size_t i = 1; i < noun.size() && std::isalpha(static_cast<unsigned char>(noun[i])); ++i)
      any_vowel = any_vowel || vowel(noun[i]);
    an = !any_vowel;
  }
  return (an ? "an " : "a ") + std::string(noun);
}

std::vector<std::string> split_list(std::string_view list, std::string_view noun) {
  std::vector<std::string> out;
  std::string cur;
  bool in_custom = false;  // inside a format custom:E,M,… (its commas belong to it, up to the next '/')
  auto push = [&] {
    if (cur.empty())
      throw NameError("empty " + std::string(noun) + " in the list '" + quote_input(list) +
                      "' (a leading, trailing or doubled comma); accepted: NAME,NAME,... (each " + std::string(noun) +
                      " once)");
    out.push_back(cur);
    cur.clear();
  };
  for (const char c : list) {
    if (c == ',' && !in_custom) {
      push();
      continue;
    }
    if (c == '/') in_custom = false;
    cur += c;
    if (cur.size() >= 7 && iequals(std::string_view(cur).substr(cur.size() - 7), "custom:")) in_custom = true;
  }
  push();
  return out;
}

void throw_listed_twice(std::string_view noun, std::string_view first, std::string_view second) {
  std::string s = std::string(noun) + " '" + quote_input(first) + "' is listed twice";
  if (first != second) s += " (as '" + quote_input(first) + "' and '" + quote_input(second) + "')";
  throw NameError(s + "; name each " + std::string(noun) + " once");
}

#define MINIFLOAT_NAME_TABLE(E, ID, KIND, ENTRIES)      \
  const NameTable<E>& name_table(E) {                   \
    static constexpr NameTable<E> t{ID, KIND, ENTRIES}; \
    return t;                                           \
  }
MINIFLOAT_NAME_TABLE(Rounding, "rounding", "rounding mode", kRounding)
MINIFLOAT_NAME_TABLE(Overflow, "overflow", "overflow policy", kOverflow)
MINIFLOAT_NAME_TABLE(SrVariant, "sr-variant", "stochastic-rounding variant", kSr)
MINIFLOAT_NAME_TABLE(ScaleRule, "scale-rule", "scale rule", kScaleRule)
MINIFLOAT_NAME_TABLE(ZeroBlock, "zero-block", "zero-block policy", kZeroBlock)
MINIFLOAT_NAME_TABLE(NanInBlock, "nan-block", "NaN-in-block policy", kNanInBlock)
MINIFLOAT_NAME_TABLE(InfInBlock, "inf-block", "Inf-in-block policy", kInfInBlock)
MINIFLOAT_NAME_TABLE(SubnormalAmax, "subnormal-amax", "subnormal-amax policy", kSubnormalAmax)
MINIFLOAT_NAME_TABLE(Mxint8Min, "mxint8-min", "MXINT8 minimum", kMxint8Min)
MINIFLOAT_NAME_TABLE(Fp32ScaleOrder, "fp32-order", "FP32 scale order", kFp32Order)
#undef MINIFLOAT_NAME_TABLE

const NameTable<Profile>& profile_table() {
  static constexpr NameTable<Profile> t{"profile", "profile", kProfiles};
  return t;
}
Profile parse_profile(std::string_view text) { return lookup_name(profile_table(), text).value; }
std::string_view profile_name(const Profile& p) noexcept {
  for (const auto& e : profile_table().entries)
    if (e.value == p) return e.name;
  return "custom";
}

const NameTable<Format>& decode_target_table() {
  static constexpr NameTable<Format> t{"decode-target", "--to target", kDecodeTargets};
  return t;
}

const std::vector<NamedFormat>& named_formats() {
  static const std::vector<NamedFormat> v = build_formats();
  return v;
}

std::span<const NamePattern> format_patterns() { return kFormatPatterns; }

Format parse_format(std::string_view name) {
  if (name.substr(0, 7) == "custom:") return parse_custom(name.substr(7), name);
  const std::string l = lower(name);
  for (const auto& nf : named_formats())
    if (equals_lower(nf.name, l)) return nf.format;
  if (!l.empty())
    if (const NamedFormatRow* r = find_alias(l)) return r->format;
  // A name of the P3109 pattern's shape whose K or P is out of range: say which, and the ranges.
  if (l.size() >= 10 && l.substr(0, 6) == "binary") {
    std::size_t i = 6;
    auto number = [&](long long& out) {
      const std::size_t start = i;
      out = 0;
      while (i < l.size() && l[i] >= '0' && l[i] <= '9' && i - start < 9) out = out * 10 + (l[i++] - '0');
      return i > start && !(i < l.size() && l[i] >= '0' && l[i] <= '9');
    };
    long long k = 0, p = 0;
    if (number(k) && i < l.size() && l[i++] == 'p' && number(p) && i + 2 == l.size() && (l[i] == 's' || l[i] == 'u') &&
        (l[i + 1] == 'e' || l[i + 1] == 'f')) {
      const bool is_signed = l[i] == 's';
      const std::string why = k < 3 || k > 16
                                  ? "K = " + std::to_string(k) + " is out of range"
                                  : "P = " + std::to_string(p) + " is out of range for K = " + std::to_string(k) +
                                        (is_signed ? " signed" : " unsigned");
      throw NameError("unknown format '" + quote_input(name) + "': " + why +
                      "; accepted: Binary{K}p{P}{s|u}{e|f} with K 3..16 and P 1..K-1 (signed) or 1..K (unsigned)");
    }
  }
  std::string accepted;
  for (const auto& nf : named_formats())
    if (nf.family != FormatFamily::p3109) (accepted += accepted.empty() ? "" : ", ") += nf.name;
  for (const auto& p : kFormatPatterns) (accepted += ", ") += p.pattern;
  throw NameError("unknown format '" + quote_input(name) + "'; accepted: " + accepted);
}

std::string format_name(Format f) {
  for (const auto& nf : named_formats())
    if (nf.format == f) return nf.name;
  return "custom:" + std::to_string(f.exponent_bits) + "," + std::to_string(f.mantissa_bits) + "," +
         std::to_string(f.bias) + "," + (f.is_signed ? "signed" : "unsigned") + "," +
         std::string(specials_spelling(f.specials)) + (f.has_zero ? "" : ",nozero");
}

std::string_view specials_spelling(Specials s) noexcept {
  for (const auto& e : kSpecials)
    if (e.value == s) return e.name;
  return "?";
}

}  // namespace minifloat
