// SPDX-License-Identifier: Apache-2.0
// probe_files.cpp: probe folder readers (probe_files.hpp).
#include "minifloat/check/probe_files.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

#include "minifloat/registry.hpp"

namespace minifloat::check {
namespace {

using nlohmann::json;

const json& field(const json& j, const char* key, const std::string& what) {
  if (!j.is_object() || !j.contains(key)) throw ParseError(what + ": missing field \"" + key + "\"");
  return j.at(key);
}
std::string str(const json& j, const char* key, const std::string& what) {
  const json& v = field(j, key, what);
  if (!v.is_string()) throw ParseError(what + ": field \"" + key + "\" must be a string");
  return v.get<std::string>();
}
std::uint64_t uint(const json& j, const char* key, const std::string& what, std::uint64_t lo, std::uint64_t hi) {
  const json& v = field(j, key, what);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi)
    throw ParseError(what + ": field \"" + key + "\" must be an integer in " + std::to_string(lo) + ".." +
                     std::to_string(hi));
  return v.get<std::uint64_t>();
}
/// An optional boolean field (`probe gen --ftz`/`--daz`, written only when set): false when absent.
bool flag(const json& j, const char* key, const std::string& what) {
  if (!j.contains(key)) return false;
  const json& v = j.at(key);
  if (!v.is_boolean()) throw ParseError(what + ": field \"" + key + "\" must be true or false");
  return v.get<bool>();
}
template <class F>
auto named(const std::string& what, const char* key, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw ParseError(what + ": field \"" + key + "\": " + e.what());
  }
}

std::vector<std::uint64_t> words(const NpyArray& a) {
  const std::size_t n = a.element_count(), item = a.item_size();
  std::vector<std::uint64_t> v(n, 0);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(&v[i], a.data.data() + i * item, item > 8 ? 8 : item);
  return v;
}

/// " (fp4x2: …)" for a packed storage form, "" for Packing::none.
std::string packing_note(Packing p) {
  for (const auto& e : name_table(Packing{}).entries)
    if (e.value == p && p != Packing::none) return " (" + std::string(e.name) + ": " + std::string(e.summary) + ")";
  return "";
}

constexpr NameEntry<ProbeKind> kProbeKinds[] = {
    {ProbeKind::convert, "elementwise", "probe gen --format: one conversion per element (check.hpp)"},
    {ProbeKind::dot, "dot", "probe gen --model: one dot product per case (check_dot.hpp)"},
    {ProbeKind::block, "block", "probe gen --scheme: one quantized block per case (check_block.hpp)"},
    {ProbeKind::gemm, "gemm", "probe gen --model --shape: one GEMM, each output a dot case (check_dot.hpp)"},
};

}  // namespace

const NameTable<ProbeKind>& name_table(ProbeKind) {
  static constexpr NameTable<ProbeKind> t{"probe-kind", "probe kind", kProbeKinds};
  return t;
}

ProbeManifest parse_probe_manifest(std::string_view text, const std::string& what) {
  json m;
  try {
    m = json::parse(text);
  } catch (const json::exception&) {
    throw ParseError(what + ": not JSON (a probe manifest is the manifest.json `probe gen` writes)");
  }
  if (!m.is_object()) throw ParseError(what + ": not a JSON object (a probe manifest)");
  ProbeManifest p;
  if (m.contains("block_target")) {  // probe gen --scheme
    p.kind = ProbeManifest::Kind::block;
    const json& b = field(m, "block_target", what);
    if (!b.is_object()) throw ParseError(what + ": field \"block_target\" must be an object");
    BlockTarget& t = p.block;
    t.scheme = named(what, "scheme", [&] { return parse_scheme(str(b, "scheme", what)); });
    t.rounding.rounding = named(what, "round", [&] { return parse<Rounding>(str(b, "round", what)); });
    t.rounding.overflow = named(what, "overflow", [&] { return parse<Overflow>(str(b, "overflow", what)); });
    t.profile = named(what, "profile", [&] { return parse_profile(str(b, "profile", what)); });
    t.packing = named(what, "packing", [&] { return parse<Packing>(str(b, "packing", what)); });
    t.rounding.ftz = flag(b, "ftz", what);
    t.rounding.daz = flag(b, "daz", what);
    if (b.contains("mx_quirks"))
      t.mx_quirks = named(what, "mx_quirks", [&] { return parse<MxQuirks>(str(b, "mx_quirks", what)); });
    named(what, "block_target", [&] {
      validate(t);
      return 0;
    });
    if (b.contains("block") && uint(b, "block", what, 1, 1u << 20) != block_size(t))
      throw ParseError(what + ": field \"block\" is not the scheme's block size " + std::to_string(block_size(t)));
    return p;
  }
  const json& t = field(m, "target", what);
  if (!t.is_object()) throw ParseError(what + ": field \"target\" must be an object");
  if (t.contains("kind")) {
    // "kind" names the dot kinds; an elementwise target has none and a block target is a "block_target".
    const std::string kind = str(t, "kind", what);
    const auto* e = find_name(name_table(ProbeKind{}), kind);
    if (e == nullptr || (e->value != ProbeKind::dot && e->value != ProbeKind::gemm))
      throw ParseError(what + ": target kind '" + quote_input(kind) +
                       "'; accepted: " + std::string(name(ProbeKind::dot)) + ", " + std::string(name(ProbeKind::gemm)) +
                       " (or none: " + std::string(name(ProbeKind::convert)) + ")");
    p.kind = e->value;
    if (p.kind == ProbeManifest::Kind::gemm) {
      p.m = static_cast<std::size_t>(uint(t, "m", what, 1, 1024));
      p.n = static_cast<std::size_t>(uint(t, "n", what, 1, 1024));
    }
    p.dot.model = named(what, "model", [&] { return parse_dot_model(str(t, "model", what)); });
    p.dot.a = named(what, "a", [&] { return parse_format(str(t, "a", what)); });
    p.dot.b = named(what, "b", [&] { return parse_format(str(t, "b", what)); });
    p.dot.k = static_cast<std::size_t>(uint(t, "k", what, 1, 4096));
    named(what, "target", [&] {
      validate(p.dot);
      return 0;
    });
    return p;
  }
  Target& g = p.target;
  g.from = named(what, "from", [&] { return parse_format(str(t, "from", what)); });
  g.to = named(what, "to", [&] { return parse_format(str(t, "to", what)); });
  g.spec.rounding = named(what, "round", [&] { return parse<Rounding>(str(t, "round", what)); });
  g.spec.overflow = named(what, "overflow", [&] { return parse<Overflow>(str(t, "overflow", what)); });
  g.spec.sr_variant = named(what, "sr_variant", [&] { return parse<SrVariant>(str(t, "sr_variant", what)); });
  g.spec.sr_bits = static_cast<std::uint8_t>(uint(t, "sr_bits", what, kMinSrBits, kMaxSrBits));
  g.profile = named(what, "profile", [&] { return parse_profile(str(t, "profile", what)); });
  g.spec.ftz = flag(t, "ftz", what);
  g.spec.daz = flag(t, "daz", what);
  if (t.contains("packing"))
    g.packing = named(what, "packing", [&] { return parse<Packing>(str(t, "packing", what)); });
  if (m.contains("ulps")) p.ulps = static_cast<int>(uint(m, "ulps", what, 1, 64));
  named(what, "target", [&] {
    validate(g);
    return 0;
  });
  return p;
}

std::vector<std::uint64_t> got_codes(const NpyArray& got, Format to, std::size_t n, const std::string& what,
                                     Packing packing) {
  const std::string& d = got.dtype;
  if (packing != Packing::none) {  // packed bytes (fp4x2, fp6_dense): unpack to one code per case
    if (d != "|u1" && d != "<u1")
      throw Error(what + " has dtype " + d + "; accepted for --packing " + std::string(name(packing)) + ": |u1 bytes" +
                  packing_note(packing));
    const std::size_t g = packing_group(packing), need = (n + g - 1) / g * packing_group_bytes(packing);
    if (got.element_count() != need)
      throw Error(what + " has " + std::to_string(got.element_count()) + " bytes but the probe folder has " +
                  std::to_string(n) + " inputs; " + std::string(name(packing)) + " needs " + std::to_string(need) +
                  " bytes");
    const std::vector<std::uint8_t> c = unpack_codes(
        packing, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(got.data.data()), need), n);
    return {c.begin(), c.end()};
  }
  const bool code = d == "|u1" || d == "<u1" || d == "|V1" || d == "<V1" || d == "|i1" || d == "<i1" || d == "<u2" ||
                    d == "<V2" || d == "|V2" || d == "<f2" || d == "<u4" || d == "<u8";
  if (!code || got.item_size() * 8 < static_cast<std::size_t>(to.bits))
    throw Error(what + " has dtype " + d + "; accepted: " + (to.bits <= 8 ? "|u1, <V1 (ml_dtypes)" : "<u2, <V2, <f2") +
                " codes of " + format_name(to));
  if (got.element_count() != n)
    throw Error(what + " has " + std::to_string(got.element_count()) + " elements but the probe folder has " +
                std::to_string(n) + " inputs; both must match");
  return words(got);
}

std::vector<std::uint8_t> got_block_codes(const NpyArray& got, const BlockTarget& t, std::size_t n,
                                          const std::string& what) {
  const std::size_t cb = code_bytes_per_block(t);
  const std::string& d = got.dtype;
  if (d != "|u1" && d != "<u1" && d != "|V1" && d != "<V1")
    throw Error(what + " has dtype " + d + "; accepted: |u1 (or <V1) element codes, " + std::to_string(cb) +
                " bytes per block" + packing_note(t.packing));
  if (got.element_count() != n * cb)
    throw Error(what + " has " + std::to_string(got.element_count()) + " bytes but the probe folder has " +
                std::to_string(n) + " blocks of " + std::to_string(cb) + " code bytes; accepted: shape [" +
                std::to_string(n) + ", " + std::to_string(cb) + "] or [" + std::to_string(n * cb) + "]");
  const auto* b = reinterpret_cast<const std::uint8_t*>(got.data.data());
  return std::vector<std::uint8_t>(b, b + n * cb);
}

std::vector<std::uint64_t> got_block_scales(const NpyArray& got, const BlockTarget& t, std::size_t n,
                                            const std::string& what, ScaleLayout layout) {
  const bool fp32 = is_fp32_rule(t.scheme.rule);
  const std::string& d = got.dtype;
  if (layout != ScaleLayout::rowmajor) {
    const ScaleGrid grid{n, 1};
    if (auto p = scale_layout_problem(layout, grid, family(t.scheme.rule))) throw Error("--scale-layout " + *p);
    const bool words = layout == ScaleLayout::deepgemm_packed;
    const bool ok = words ? d == "<u4" : (d == "|u1" || d == "<u1" || d == "|V1" || d == "<V1");
    if (!ok)
      throw Error(what + " has dtype " + d + "; accepted in layout " + std::string(name(layout)) + ": " +
                  (words ? "<u4 words (DeepGEMM's int32 bytes)" : "|u1 (or <V1) bytes"));
    const std::size_t bytes = got.element_count() * (words ? 4 : 1);
    if (bytes != scale_layout_bytes(layout, grid))
      throw Error(what + " has " + std::to_string(bytes) + " bytes but layout " + std::string(name(layout)) + " of " +
                  std::to_string(n) + " block scales (grid " + std::to_string(n) + "x1) takes " +
                  std::to_string(scale_layout_bytes(layout, grid)));
    const auto* b = reinterpret_cast<const std::uint8_t*>(got.data.data());
    const std::vector<std::uint8_t> codes = read_laid_out_scales(layout, grid, std::span(b, bytes));
    return {codes.begin(), codes.end()};
  }
  const bool ok = fp32 ? (d == "<f4" || d == "<u4") : (d == "|u1" || d == "<u1" || d == "|V1" || d == "<V1");
  if (!ok)
    throw Error(what + " has dtype " + d + "; accepted: " +
                (fp32 ? std::string("<f4 FP32 decode scales (or <u4 bits)") : std::string("|u1 (or <V1) scale codes")));
  if (got.element_count() != n)
    throw Error(what + " has " + std::to_string(got.element_count()) + " elements but the probe folder has " +
                std::to_string(n) + " blocks; one scale per block");
  return words(got);
}

std::vector<std::uint8_t> got_block_choices(const NpyArray& got, const BlockTarget& t, std::size_t n,
                                            const std::string& what) {
  if (t.scheme.scale_select == ScaleSelect::none)
    throw Error(what + ": the probe's scheme " + scheme_name(t.scheme) +
                " has no scale-select; choices apply to scale-select 4over6:mse or 4over6:mae");
  const std::string& d = got.dtype;
  if (d != "|u1" && d != "<u1")  // (the .npy reader takes no |b1: save bools as uint8)
    throw Error(what + " has dtype " + d + "; accepted: |u1 choices, one per block (0 map-to-6, 1 map-to-4)");
  if (got.element_count() != n)
    throw Error(what + " has " + std::to_string(got.element_count()) + " elements but the probe folder has " +
                std::to_string(n) + " blocks; one choice per block");
  const auto* b = reinterpret_cast<const std::uint8_t*>(got.data.data());
  std::vector<std::uint8_t> v(b, b + n);
  for (std::size_t i = 0; i < n; ++i)
    if (v[i] > 1)
      throw Error(what + " element " + std::to_string(i) + " = " + std::to_string(v[i]) +
                  "; accepted: 0 (map-to-6), 1 (map-to-4)");
  return v;
}

std::vector<ScaleLayout> layouts_holding(const NpyArray& got, const BlockTarget& t,
                                         std::span<const std::uint64_t> expected, ScaleLayout declared) {
  std::vector<ScaleLayout> out;
  for (const auto& e : name_table(ScaleLayout{}).entries) {
    if (e.value == declared) continue;
    try {
      const std::vector<std::uint64_t> s = got_block_scales(got, t, expected.size(), "", e.value);
      if (std::equal(s.begin(), s.end(), expected.begin(), expected.end())) out.push_back(e.value);
    } catch (const Error&) {  // the file cannot be that layout: its dtype or size differs
    }
  }
  return out;
}

std::vector<std::uint64_t> got_results(const NpyArray& got, const DotTarget& t, std::size_t n,
                                       const std::string& what) {
  const bool f16 = result_format(t) == formats::f16;
  const std::string& d = got.dtype;
  if (!(f16 ? (d == "<f2" || d == "<u2") : (d == "<f4" || d == "<u4")))
    throw Error(what + " has dtype " + d + "; accepted: " + (f16 ? "<f2, <u2" : "<f4, <u4") + " (the " +
                format_name(result_format(t)) + " result of each dot product)");
  if (got.element_count() != n)
    throw Error(what + " has " + std::to_string(got.element_count()) + " elements but the probe folder has " +
                std::to_string(n) + " dot products; both must match");
  return words(got);
}

}  // namespace minifloat::check
