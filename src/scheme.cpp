// SPDX-License-Identifier: Apache-2.0
// scheme.cpp: the named block schemes (one table of designated initialisers), the spec-string
// grammar of scheme.hpp (parse and canonical print) and the scheme checks.
#include "minifloat/scheme.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "minifloat/core/round_pack.hpp"
#include "minifloat/parse.hpp"

namespace minifloat {
namespace {

/// The format a rule's scales are stored in, as the spec string names it (SCALE of SCALE:RULE).
constexpr const char* scale_format_of(ScaleRule r) {
  return is_e8m0_rule(r) ? "e8m0fnu" : is_fp32_rule(r) ? "f32" : is_ue5m3_rule(r) ? "ue5m3" : "ue4m3";
}

using SE = NameEntry<Scheme>;
constexpr Scheme mx(ElementType e) {
  return {.element = e, .block_rows = 1, .block_cols = 32, .rule = ScaleRule::ocp_floor};
}
constexpr Scheme fp8(std::size_t rows, std::size_t cols, ScaleRule rule) {
  return {.element = elements::e4m3fn, .block_rows = rows, .block_cols = cols, .rule = rule};
}
constexpr SE kSchemes[] = {
    {.value = mx(elements::e4m3fn),
     .name = "mxfp8_e4m3",
     .summary = "OCP MX v1.0 MXFP8: e4m3fn elements, E8M0 scale per 1x32, ocp_floor"},
    {.value = mx(elements::e5m2),
     .name = "mxfp8_e5m2",
     .summary = "OCP MX v1.0 MXFP8: e5m2 elements, E8M0 scale per 1x32, ocp_floor"},
    {.value = mx(elements::e2m3fn),
     .name = "mxfp6_e2m3",
     .summary = "OCP MX v1.0 MXFP6: e2m3fn elements, E8M0 scale per 1x32, ocp_floor"},
    {.value = mx(elements::e3m2fn),
     .name = "mxfp6_e3m2",
     .summary = "OCP MX v1.0 MXFP6: e3m2fn elements, E8M0 scale per 1x32, ocp_floor"},
    {.value = mx(elements::e2m1fn),
     .name = "mxfp4",
     .summary = "OCP MX v1.0 MXFP4: e2m1fn elements, E8M0 scale per 1x32, ocp_floor"},
    {.value = mx(elements::mxint8),
     .name = "mxint8",
     .summary = "OCP MX v1.0 MXINT8: int8*2^-6 elements, E8M0 scale per 1x32, ocp_floor"},
    {.value = {.element = elements::e2m1fn, .block_rows = 1, .block_cols = 16, .rule = ScaleRule::nvfp4},
     .name = "nvfp4",
     .summary = "NVIDIA NVFP4: e2m1fn elements, E4M3 scale per 1x16, FP32 per tensor (TE operation order)"},
    {.value = {.element = elements::e2m1fn, .block_rows = 16, .block_cols = 16, .rule = ScaleRule::nvfp4},
     .name = "nvfp4_16x16",
     .summary = "NVIDIA NVFP4 weights: e2m1fn elements, E4M3 scale per 16x16 tile, FP32 per tensor (TE "
                "NVFP4BlockScaling 2-D weight quantization)"},
    {.value = fp8(0, 0, ScaleRule::fp32_amax),
     .name = "fp8_tensor",
     .summary = "e4m3fn, one FP32 scale per tensor (TE current scaling)"},
    {.value = fp8(1, 0, ScaleRule::fp32_amax),
     .name = "fp8_row",
     .summary = "e4m3fn, one FP32 scale per row (per token / output channel)"},
    {.value = fp8(0, 1, ScaleRule::fp32_amax),
     .name = "fp8_channel",
     .summary = "e4m3fn, one FP32 scale per column (per channel)"},
    {.value = fp8(1, 128, ScaleRule::fp32_amax),
     .name = "fp8_1x128",
     .summary = "e4m3fn, FP32 scale per 1x128 tile (DeepSeek-V3 activations)"},
    {.value = fp8(128, 128, ScaleRule::fp32_amax),
     .name = "fp8_128x128",
     .summary = "e4m3fn, FP32 scale per 128x128 block (DeepSeek-V3 weights)"},
    {.value = fp8(1, 128, ScaleRule::rceil),
     .name = "fp8_1x128_ue8m0",
     .summary = "e4m3fn, UE8M0 round-up scale per 1x128 tile (DeepSeek-V3.1, InfiR2)"},
    {.value = fp8(128, 128, ScaleRule::rceil),
     .name = "fp8_128x128_ue8m0",
     .summary = "e4m3fn, UE8M0 round-up scale per 128x128 block (DeepSeek-V3.1, InfiR2)"},
    {.value = {.element = elements::e2m1fn, .block_rows = 1, .block_cols = 16, .rule = ScaleRule::nvfp4_v2_gs},
     .name = "nvfp4_ue5m3",
     .summary = "auto-round nvfp4_v2_with_global_scale: e2m1fn elements, UE5M3 scale per 1x16, FP32 per tensor "
                "(114688*6/amax)"},
};
constexpr NamePattern kSchemePatterns[] = {
    {"ELEMENT/ROWSxCOLS/SCALE:RULE[/KEY=VALUE...]",
     "a scheme spec: element format or mxint8 / tile (numbers or all) / e8m0fnu:RULE, f32:RULE, ue4m3:nvfp4 or "
     "ue5m3:nvfp4_v2[_gs] / "
     "special-block policies, e.g. e2m3fn/1x16/e8m0fnu:rceil (scheme.hpp)"},
};

constexpr std::string_view kGrammar = "ELEMENT/ROWSxCOLS/SCALE:RULE[/KEY=VALUE...] (e.g. e2m3fn/1x16/e8m0fnu:rceil)";
constexpr std::string_view kEpsilonKey = "amax-epsilon";
constexpr std::string_view kTransformKey = "transform";
constexpr std::string_view kTensorScaleKey = "tensor-scale";
constexpr std::string_view kScaleSelectKey = "scale-select";
constexpr std::string_view kTransformGemmKey = "transform-gemm";
constexpr std::string_view kAmaxScopeKey = "amax-scope";
// issue 25 item 3 (TE reference_nvfp4.py:875-889 row_scaled_nvfp4; recipe/__init__.py:533-536)
constexpr NameEntry<AmaxScope> kAmaxScope[] = {
    {AmaxScope::tensor, "tensor", "one FP32 encode scale from the tensor amax (the default)"},
    {AmaxScope::row, "row",
     "nvfp4: one FP32 encode scale per row from the row's amax (TE row_scaled_nvfp4, FlashInfer per-token)"},
};
// issue 25 item 2 (core/four_over_six.hpp; TE reference_nvfp4.py:524-648, nvfp4_4over6_err_mode)
constexpr NameEntry<ScaleSelect> kScaleSelect[] = {
    {ScaleSelect::none, "none", "the scale rule's one block scale (the default)"},
    {ScaleSelect::four_over_six_mse, "4over6:mse",
     "nvfp4: TE 4over6, each block's amax mapped to 6 and to 4, the smaller summed squared error kept (ties: 6)"},
    {ScaleSelect::four_over_six_mae, "4over6:mae",
     "nvfp4: TE 4over6, each block's amax mapped to 6 and to 4, the smaller summed absolute error kept (ties: 6)"},
};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t p = 0;
  for (;;) {
    const std::size_t q = s.find(sep, p);
    out.push_back(s.substr(p, q == std::string_view::npos ? std::string_view::npos : q - p));
    if (q == std::string_view::npos) return out;
    p = q + 1;
  }
}

std::string dim_text(std::size_t d) { return d == 0 ? std::string("all") : std::to_string(d); }

std::string float_text(float f) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, f);  // shortest text that reads back to f
  return std::string(buf, r.ptr);
}

/// One policy key of the grammar: its registry table, and the field it sets.
template <class E>
bool set_policy(std::string_view key, std::string_view value, E& field, std::string& err) {
  const auto& t = name_table(E{});
  if (!iequals(key, t.id)) return false;
  if (const auto* e = find_name(t, value)) field = e->value;
  else
    err = std::string(t.id) + ": unknown " + std::string(t.kind) + " '" + quote_input(value) +
          "'; accepted: " + accepted_names(t);
  return true;
}

template <class E>
void put_policy(std::string& s, E v, E dflt) {
  if (v == dflt) return;
  s += '/';
  s.append(name_table(E{}).id);
  s += '=';
  s.append(name(v));
}

}  // namespace

const NameTable<Scheme>& scheme_table() {
  static constexpr NameTable<Scheme> t{"scheme", "block scheme", kSchemes, kSchemePatterns};
  return t;
}

const Scheme& find_scheme(std::string_view name) { return lookup_name(scheme_table(), name).value; }

Scheme parse_scheme(std::string_view text) {
  if (const auto* e = find_name(scheme_table(), text)) return e->value;
  if (text.find('/') == std::string_view::npos) throw_unknown_name(scheme_table(), text);
  auto fail = [&](const std::string& why) -> Scheme {
    throw NameError("invalid block scheme '" + quote_input(text) + "': " + why + "; expected " + std::string(kGrammar));
  };
  const std::vector<std::string_view> parts = split(text, '/');
  if (parts.size() < 3) return fail("it needs an element, a tile shape and a scale");
  Scheme s;
  // element
  if (iequals(parts[0], "mxint8")) {
    s.element = elements::mxint8;
  } else {
    try {
      s.element = ElementType{ElementKind::floating, parse_format(parts[0])};
    } catch (const NameError& e) {
      return fail(std::string("element: ") + e.what());
    }
  }
  // tile
  const std::string_view blk = parts[1];
  const std::size_t x = blk.find_first_of("xX");
  if (x == std::string_view::npos) return fail("tile '" + quote_input(blk) + "' is not ROWSxCOLS");
  std::size_t dims[2] = {0, 0};
  const std::string_view dim_texts[2] = {blk.substr(0, x), blk.substr(x + 1)};
  for (int k = 0; k < 2; ++k) {
    const std::string_view d = dim_texts[k];
    if (iequals(d, "all")) continue;
    std::size_t v = 0;
    const auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
    if (d.empty() || ec != std::errc{} || p != d.data() + d.size() || v == 0 || v > (std::size_t{1} << 48))
      return fail("tile dimension '" + quote_input(d) + "' is not a positive integer (at most 2^48) or all");
    dims[k] = v;
  }
  s.block_rows = dims[0];
  s.block_cols = dims[1];
  // scale
  const std::size_t colon = parts[2].find(':');
  if (colon == std::string_view::npos) return fail("scale '" + quote_input(parts[2]) + "' is not FORMAT:RULE");
  const std::string_view sfmt = parts[2].substr(0, colon), srule = parts[2].substr(colon + 1);
  const auto* re = find_name(name_table(ScaleRule{}), srule);
  if (!re)
    return fail("unknown scale rule '" + quote_input(srule) +
                "'; accepted: " + accepted_names(name_table(ScaleRule{})));
  s.rule = re->value;
  const char* want = scale_format_of(s.rule);
  Format sf{};
  try {
    sf = parse_format(sfmt);
  } catch (const NameError&) {
    return fail("scale format '" + quote_input(sfmt) + "' is not a format");
  }
  if (!(sf == parse_format(want)))
    return fail("scale rule " + std::string(name(s.rule)) + " stores " + want + " scales, not " + quote_input(sfmt));
  // policies
  std::vector<std::string> seen;
  for (std::size_t k = 3; k < parts.size(); ++k) {
    const std::string_view pol = parts[k];
    const std::size_t eq = pol.find('=');
    if (eq == std::string_view::npos) return fail("policy '" + quote_input(pol) + "' is not KEY=VALUE");
    const std::string_view key = pol.substr(0, eq), value = pol.substr(eq + 1);
    std::string lk(key);
    for (char& c : lk) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& sk : seen)
      if (sk == lk) return fail("policy " + quote_input(key) + " is given twice");
    seen.push_back(lk);
    std::string err;
    BlockPolicy& p = s.policy;
    bool matched = false;
    for_each_policy_field(
        [&](const auto& f, std::size_t) { matched = matched || set_policy(key, value, p.*f.member, err); });
    if (matched) {
      if (!err.empty()) return fail(err);
      continue;
    }
    // the keys outside BlockPolicy's enum fields: a decimal rounded once to binary32, or a name
    const auto f32_value = [&](float& out) {  // true when negative; ParseError caught below
      const Unpacked u = parse_value(value);
      out = detail::bit_cast<float>(
          static_cast<std::uint32_t>(round_pack(formats::f32, u, {Rounding::rne, Overflow::nonsat}).code));
      return u.negative;
    };
    std::string bad;  // (fail() throws: it is called after the try)
    try {
      if (iequals(key, kEpsilonKey)) {
        if (f32_value(p.amax_epsilon) || !std::isfinite(p.amax_epsilon))
          bad = "amax-epsilon must be a finite number >= 0";
        else continue;
      } else if (iequals(key, kTensorScaleKey)) {
        if (f32_value(s.tensor_scale) || !(s.tensor_scale > 0.0f) || std::isinf(s.tensor_scale))
          bad = "tensor-scale must be a positive finite number (the FP32 tensor encode scale)";
        else continue;
      }
      if (iequals(key, kAmaxScopeKey)) {
        s.amax_scope = parse<AmaxScope>(value);
        continue;
      }
      if (iequals(key, kScaleSelectKey)) {
        s.scale_select = parse<ScaleSelect>(value);
        continue;
      }
      if (iequals(key, kTransformKey)) {
        s.transform = parse_transform(value);
        continue;
      }
      if (iequals(key, kTransformGemmKey)) {
        s.transform_gemm = parse_transform_gemm(value);
        continue;
      }
    } catch (const ParseError&) {
      return fail(std::string(iequals(key, kEpsilonKey) ? kEpsilonKey : kTensorScaleKey) + " '" + quote_input(value) +
                  "' is not a number");
    } catch (const Error& e) {
      return fail(e.what());
    }
    if (!bad.empty()) return fail(bad);
    std::string keys;
    for_each_policy_field([&](const auto& f, std::size_t) { keys.append(policy_key(f)) += ", "; });
    return fail("unknown policy key '" + quote_input(key) + "'; accepted: " + keys + std::string(kEpsilonKey) + ", " +
                std::string(kTransformKey) + ", " + std::string(kTensorScaleKey) + ", " + std::string(kScaleSelectKey) +
                ", " + std::string(kTransformGemmKey) + ", " + std::string(kAmaxScopeKey));
  }
  validate_scheme(s);
  return s;
}

std::vector<ScaleRule> rules_in(ScaleFamily f) {
  std::vector<ScaleRule> out;
  for (const auto& e : name_table(ScaleRule{}).entries)
    if (family(e.value) == f) out.push_back(e.value);
  return out;
}

std::string_view family_label(ScaleFamily f) {
  switch (f) {
    case ScaleFamily::e8m0: return "E8M0";
    case ScaleFamily::fp32: return "FP32";
    case ScaleFamily::nvfp4: return "NVFP4";
    case ScaleFamily::ue5m3: return "UE5M3";
  }
  return "NVFP4";
}

Scheme with_scale_rule(const Scheme& s, ScaleRule r, std::string_view shown_as) {
  if (family(r) != family(s.rule)) {
    std::string rules;
    for (const ScaleRule x : rules_in(family(s.rule))) (rules += rules.empty() ? "" : ", ") += name(x);
    throw Error(
        std::string(name(r)) + " is an " + std::string(family_label(family(r))) + " rule but " + std::string(shown_as) +
        " has " + std::string(family_label(family(s.rule))) + " scales (rules of its family: " + rules +
        "); another scale format is another scheme: give a spec such as " +
        scheme_spec(Scheme{.element = s.element, .block_rows = s.block_rows, .block_cols = s.block_cols, .rule = r}));
  }
  Scheme out = s;
  out.rule = r;
  return out;
}

std::string scheme_spec(const Scheme& s) {
  std::string out = s.element.kind == ElementKind::int8 ? std::string("mxint8") : format_name(s.element.format);
  out += '/';
  out.append(dim_text(s.block_rows));
  out += 'x';
  out.append(dim_text(s.block_cols));
  out += '/';
  out.append(scale_format_of(s.rule)).append(":");
  out.append(name(s.rule));
  const BlockPolicy d{};
  for_each_policy_field([&](const auto& f, std::size_t) { put_policy(out, s.policy.*f.member, d.*f.member); });
  const auto put = [&out](std::string_view key, const std::string& text) {
    out += '/';
    out.append(key);
    out += '=';
    out.append(text);
  };
  if (detail::bit_cast<std::uint32_t>(s.policy.amax_epsilon) != detail::bit_cast<std::uint32_t>(d.amax_epsilon))
    put(kEpsilonKey, float_text(s.policy.amax_epsilon));
  if (!(s.transform == BlockTransform{})) put(kTransformKey, transform_name(s.transform));
  if (s.tensor_scale != 0.0f) put(kTensorScaleKey, float_text(s.tensor_scale));
  if (s.scale_select != ScaleSelect::none) put(kScaleSelectKey, std::string(name(s.scale_select)));
  if (s.transform_gemm != nullptr) put(kTransformGemmKey, transform_gemm_name(s.transform_gemm));
  if (s.amax_scope != AmaxScope::tensor) put(kAmaxScopeKey, std::string(name(s.amax_scope)));
  return out;
}

BlockTransform parse_transform(std::string_view text) {
  std::string t(text);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string accepted = "; accepted: none, rht16:te, rht16:torchao, rht16:0xHHHH (a 16-bit sign mask)";
  if (t == "none") return {};
  if (t == "rht16:te") return {.rht16 = true, .signs = kRht16WgradSigns, .output = TransformOutput::f32};
  if (t == "rht16:torchao") return {.rht16 = true, .signs = kRht16WgradSigns, .output = TransformOutput::bf16};
  std::string_view v = t;
  TransformOutput out = TransformOutput::f32;
  if (v.size() > 5 && v.substr(v.size() - 5) == ":bf16") {
    out = TransformOutput::bf16;
    v.remove_suffix(5);
  }
  if (v.substr(0, 8) == "rht16:0x" && v.size() > 8 && v.size() <= 12) {
    unsigned mask = 0;
    const auto [ptr, ec] = std::from_chars(v.data() + 8, v.data() + v.size(), mask, 16);
    if (ec == std::errc{} && ptr == v.data() + v.size())
      return {.rht16 = true, .signs = static_cast<std::uint16_t>(mask), .output = out};
  }
  throw NameError("transform '" + quote_input(text) + "' is not a transform" + accepted);
}

const TfdpaModel* parse_transform_gemm(std::string_view text) {
  if (iequals(text, "exact")) return nullptr;
  try {
    return &parse_mma_model(text);
  } catch (const NameError&) {
    std::string names = "exact";
    for (const auto& e : tensor_core_table().entries) (names += ", ").append(e.name);
    throw NameError("transform-gemm '" + quote_input(text) + "' is not a tensor-core preset; accepted: " + names);
  }
}

std::string transform_gemm_name(const TfdpaModel* m) { return m == nullptr ? "exact" : std::string(m->name); }

std::string transform_name(const BlockTransform& t) {
  if (!t.rht16) return "none";
  if (t.signs == kRht16WgradSigns) return t.output == TransformOutput::f32 ? "rht16:te" : "rht16:torchao";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "rht16:0x";
  for (int k = 12; k >= 0; k -= 4) out += kHex[(t.signs >> k) & 0xf];
  if (t.output == TransformOutput::bf16) out += ":bf16";
  return out;
}

std::string scheme_name(const Scheme& s) {
  for (const auto& e : scheme_table().entries)
    if (e.value == s) return std::string(e.name);
  return scheme_spec(s);
}

void validate_scheme(const Scheme& s) {
  const std::string what = "block scheme " + scheme_spec(s) + ": ";
  if (s.element.kind == ElementKind::floating) {
    if (validate(s.element.format) != FormatError::ok) throw Error(what + "the element format is not a valid format");
    if (s.element.format.bits > 8)
      throw Error(what + "the element format has " + std::to_string(s.element.format.bits) +
                  " bits; elements are stored one code per byte (at most 8 bits)");
  }
  const BlockPolicy d{};
  if (is_nvfp4_rule(s.rule)) {
    if (s.element.kind != ElementKind::floating)
      throw Error(what + "the " + std::string(name(s.rule)) + " rule needs a floating-point element");
    if (s.policy.zero != d.zero)
      throw Error(
          what + "zero-block " + std::string(name(s.policy.zero)) +
          " does not apply to nvfp4 (a zero block gets scale 0 and zero codes by its formula); accepted: standard");
  }
  if (is_ue5m3_rule(s.rule)) {
    if (s.element.kind != ElementKind::floating)
      throw Error(what + "the " + std::string(name(s.rule)) + " rule needs a floating-point element");
    if (s.policy.zero != d.zero)
      throw Error(what + "zero-block " + std::string(name(s.policy.zero)) + " does not apply to " +
                  std::string(name(s.rule)) +
                  " (a zero block gets scale 0 and zero codes by its formula); accepted: "
                  "standard");
    if (s.policy.fp32_order != d.fp32_order)
      throw Error(what + "fp32-order " + std::string(name(s.policy.fp32_order)) + " does not apply to " +
                  std::string(name(s.rule)) + " (auto-round's order: y = fl32(x / divisor)); accepted: te_multiply");
  }
  if (s.policy.fp32_order == Fp32ScaleOrder::deepgemm && s.rule != ScaleRule::fp32_amax)
    throw Error(what + "fp32-order deepgemm applies to the fp32_amax rule only (" + std::string(name(s.rule)) +
                " has no decode scale amax/max)");
  if (s.policy.fp32_order == Fp32ScaleOrder::divide && s.rule != ScaleRule::fp32_amax)
    throw Error(what + "fp32-order divide applies to the fp32_amax rule only (" + std::string(name(s.rule)) +
                " has no decode-scale division)");
  if (is_e8m0_rule(s.rule) && s.policy.fp32_order != d.fp32_order)
    throw Error(what + "fp32-order applies to the FP32 rules and nvfp4; the E8M0 rule " + std::string(name(s.rule)) +
                " scales by a power of two exactly");
  if (s.policy.mxint8_min != d.mxint8_min && s.element.kind != ElementKind::int8)
    throw Error(what + "mxint8-min applies to mxint8 elements only");
  if (!(s.policy.amax_epsilon >= 0.0f) || std::isinf(s.policy.amax_epsilon))
    throw Error(what + "amax-epsilon must be a finite number >= 0");
  if (s.tensor_scale != 0.0f && !is_nvfp4_rule(s.rule))
    throw Error(what +
                "tensor-scale applies to the nvfp4 rules nvfp4 and nvfp4_ceil (their FP32 tensor encode scale); " +
                std::string(name(s.rule)) + " has none");
  if (s.tensor_scale != 0.0f && (!(s.tensor_scale > 0.0f) || std::isinf(s.tensor_scale)))
    throw Error(what + "tensor-scale must be a positive finite number (the FP32 tensor encode scale)");
  if (s.tensor_scale != 0.0f && std::isinf(1.0f / s.tensor_scale))  // S_dec = fl32(1/S_enc), as every nvfp4 rule
    throw Error(what + "tensor-scale " + float_text(s.tensor_scale) +
                " is too small: its decode scale fl32(1/S_enc) overflows to Inf (accepted: >= 2.938737e-39, "
                "binary32 0x00200001)");
  if (s.scale_select != ScaleSelect::none) {
    const std::string sel = "scale-select " + std::string(name(s.scale_select));
    if (s.rule != ScaleRule::nvfp4 || s.element != elements::e2m1fn || s.block_rows != 1 || s.block_cols != 16)
      throw Error(what + sel + " applies to nvfp4 (e2m1fn/1x16/ue4m3:nvfp4); not " + scheme_name(s));
    if (s.tensor_scale != 0.0f)
      throw Error(what + sel + " computes its own tensor scale (1536/amax); not with tensor-scale");
    BlockPolicy dflt{};
    if (!(s.policy == dflt)) throw Error(what + sel + " takes the default block policies only (TE's 4over6 has none)");
  }
  if (s.transform_gemm != nullptr && !s.transform.rht16)
    throw Error(what + "transform-gemm " + transform_gemm_name(s.transform_gemm) +
                " is the arithmetic of a transform; give one (transform=rht16:te|rht16:torchao|rht16:0xHHHH)");
  if (const TfdpaModel* m = s.transform_gemm) {
    const Format fa = m->operands.formats[0];
    const bool quarter = to_float(fa, from_float(0.25f, fa, RoundingSpec{}).code) == 0.25;
    if (m->scale.application != BlockScaleApplication::none || !quarter)
      throw Error(what + "transform-gemm " + std::string(m->name) +
                  ": the transform's GEMM needs an unscaled preset whose operand format holds ±0.25 (the entries of "
                  "H16/4); accepted: the FP8, FP16, BF16 and TF32 presets");
  }
  if (s.amax_scope == AmaxScope::row) {
    if (!is_nvfp4_rule(s.rule) || s.block_rows != 1)
      throw Error(what + "amax-scope row applies to the nvfp4 rules nvfp4 and nvfp4_ceil with 1xk tiles (TE " +
                  "row_scaled_nvfp4: 1x16); not " + scheme_name(s) + " (accepted there: amax-scope tensor)");
    if (s.tensor_scale != 0.0f)
      throw Error(what +
                  "amax-scope row takes each row's amax; not with a given tensor-scale (accepted: one or "
                  "the other)");
    if (s.scale_select != ScaleSelect::none)
      throw Error(what + "amax-scope row with scale-select " + std::string(name(s.scale_select)) +
                  " is not in the engine yet (accepted: amax-scope tensor with scale-select)");
  }
}

const NameTable<ScaleSelect>& name_table(ScaleSelect) {
  static constexpr NameTable<ScaleSelect> t{"scale-select", "scale select", kScaleSelect};
  return t;
}

const NameTable<AmaxScope>& name_table(AmaxScope) {
  static constexpr NameTable<AmaxScope> t{"amax-scope", "amax scope", kAmaxScope};
  return t;
}

}  // namespace minifloat
