// SPDX-License-Identifier: Apache-2.0
// check_block.cpp: the block-kernel checker (check_block.hpp): block generators in named classes,
// bit-for-bit comparison of element codes and scales with quant.hpp, shrinking, diagnosis.
#include "minifloat/check/check_block.hpp"
#include "minifloat/check/run.hpp"
#include "check_rng.hpp"
#include "report.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <type_traits>

#include "minifloat/minifloat.hpp"

namespace minifloat::check {

namespace {

constexpr NameEntry<BlockClass> kBlockClassEntries[] = {
    {BlockClass::scale_edge, "scale_edge",
     "amax at and +-1 ulp around where the scale rules differ (max*2^e, 2^E, even carry, tosa max+ulp/2)"},
    {BlockClass::special, "special", "one NaN (quiet/signalling, both signs), +Inf or -Inf element in a finite block"},
    {BlockClass::zero, "zero", "all-zero blocks (+0, -0, mixed)"},
    {BlockClass::subnormal_amax, "subnormal_amax", "amax an FP32 subnormal, 2^-126 and its neighbours"},
    {BlockClass::scaled_midpoint, "scaled_midpoint",
     "elements on and +-1 ulp around element midpoints times the block scale"},
    {BlockClass::random, "random", "random tensors: scaled normal-like values and uniform finite f32 bits"},
};

float f32_of_bits(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }
float next_up(float f) { return std::nextafter(f, std::numeric_limits<float>::infinity()); }
float next_down(float f) { return std::nextafter(f, -std::numeric_limits<float>::infinity()); }
bool is_finite_f32(double d) {
  return std::isfinite(d) && std::fabs(d) <= static_cast<double>(std::numeric_limits<float>::max());
}

std::string hex(std::uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}
std::string num(double d) {
  if (std::isnan(d)) return "NaN";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", d);
  return buf;
}
std::string f32_text(float f) { return hex(bits_of(f), 8) + " (" + num(f) + ")"; }

enum class ScaleKind : std::uint8_t { e8m0, ue4m3, fp32, ue5m3 };
ScaleKind scale_kind(const Scheme& s) {
  if (is_e8m0_rule(s.rule)) return ScaleKind::e8m0;
  if (is_ue5m3_rule(s.rule)) return ScaleKind::ue5m3;
  if (is_nvfp4_rule(s.rule)) return ScaleKind::ue4m3;
  return ScaleKind::fp32;
}
std::string scale_text(const Scheme& s, std::uint64_t w) {
  switch (scale_kind(s)) {
    case ScaleKind::e8m0: {
      if (w == 0xff) return hex(w, 2) + " (NaN)";
      if (w > 0xff) return hex(w, 2) + " (not an e8m0fnu code)";
      return hex(w, 2) + " (2^" + std::to_string(static_cast<int>(w) - 127) + ")";
    }
    case ScaleKind::ue4m3:
      if (w > 0xff) return hex(w, 2) + " (not a ue4m3 code)";
      return hex(w, 2) + " (" + num(to_double(formats::e4m3fn, w)) + ")";
    case ScaleKind::fp32:
      if (w > 0xffffffffULL) return hex(w, 8) + " (not binary32 bits)";
      return f32_text(f32_of_bits(static_cast<std::uint32_t>(w)));
    case ScaleKind::ue5m3:
      if (w == 0xff) return hex(w, 2) + " (NaN)";
      if (w > 0xff) return hex(w, 2) + " (not a ue5m3 code)";
      return hex(w, 2) + " (" + num(to_double(formats::ue5m3, w)) + ")";
  }
  return hex(w, 2);
}
std::string element_text(const Scheme& s, std::uint8_t c) {
  if (s.element.kind == ElementKind::int8) return hex(c, 2) + " (" + num(static_cast<std::int8_t>(c) / 64.0) + ")";
  const Unpacked u = unpack(s.element.format, c);
  if (u.cls == Class::nan) return hex(c, 2) + " (NaN)";
  return hex(c, 2) + " (" + num(to_double(s.element.format, c)) + ")";
}

/// Element codes of one block in the kernel's storage form (`swap`: the packing's wrong bit order,
/// PackOrder::swapped: fp4x2 nibbles exchanged, fp6_dense MSB-first).
void store_codes(const BlockTarget& t, std::span<const std::uint8_t> codes, std::span<std::uint8_t> out, bool swap) {
  const int bits = packing_code_bits(t.packing);
  std::vector<std::uint8_t> c(codes.begin(), codes.end());
  if (bits)
    for (auto& x : c) x = static_cast<std::uint8_t>(x & ((1u << bits) - 1));
  const std::vector<std::uint8_t> b = pack_codes(t.packing, c, swap ? PackOrder::swapped : PackOrder::specified);
  std::copy(b.begin(), b.end(), out.begin());
}
std::vector<std::uint8_t> load_codes(const BlockTarget& t, std::span<const std::uint8_t> stored, std::size_t k) {
  return unpack_codes(t.packing, stored.first(code_bytes_per_block(t)), k);
}

/// One alternative semantics: another target, optionally with swapped nibbles.
struct Alt {
  std::string name, bug;
  BlockTarget t;
  bool swap = false;
  int scale_step = 0;  ///< the scale code one step off (±1), the elements those of the right scale
};

/// The scale code NaN is written with (E8M0 0xff, ue4m3 0x7f); FP32 scales have none here.
std::optional<std::uint64_t> nan_scale_code(const Scheme& s) {
  switch (scale_kind(s)) {
    case ScaleKind::e8m0: return 0xff;
    case ScaleKind::ue4m3: return 0x7f;
    case ScaleKind::fp32: return std::nullopt;
    case ScaleKind::ue5m3: return 0xff;
  }
  return std::nullopt;
}

/// `e` as alternative `a` writes it: its scale code moved by a.scale_step, except a NaN scale.
BlockResult with_scale_step(const BlockTarget& t, const Alt& a, BlockResult e) {
  if (a.scale_step != 0 && e.scale != nan_scale_code(t.scheme))
    e.scale = static_cast<std::uint64_t>(static_cast<std::int64_t>(e.scale) + a.scale_step);
  return e;
}

std::vector<Alt> panel(const BlockTarget& t) {
  std::vector<Alt> v;
  v.push_back({"the target", "", t, false});
  auto add = [&](std::string name, std::string bug, BlockTarget a, bool swap = false) {
    try {
      validate(a);
    } catch (const Error&) {
      return;
    }
    if (a == t && !swap) return;
    v.push_back({std::move(name), std::move(bug), a, swap});
  };
  const Scheme& s = t.scheme;
  // Other scale rules of the same family.
  for (const auto& e : name_table(ScaleRule{}).entries) {
    if (e.value == s.rule) continue;
    const bool same_family = (is_e8m0_rule(e.value) && is_e8m0_rule(s.rule)) ||
                             (is_fp32_rule(e.value) && is_fp32_rule(s.rule)) ||
                             (is_ue5m3_rule(e.value) && is_ue5m3_rule(s.rule));
    if (!same_family) continue;
    BlockTarget a = t;
    a.scheme.rule = e.value;
    std::string bug = "scale rule " + std::string(e.name) + " instead of " + std::string(name(s.rule));
    if (s.rule == ScaleRule::rceil && e.value == ScaleRule::ocp_floor) bug = "E8M0 floor instead of RCEIL (T10, T14)";
    if (s.rule == ScaleRule::ocp_floor && e.value == ScaleRule::rceil) bug = "E8M0 RCEIL instead of OCP floor (T14)";
    add("scale rule " + std::string(e.name), bug, a);
  }
  // The other values of every block-policy field (kPolicyFields, scheme.hpp).
  for_each_policy_field([&](const auto& f, std::size_t) {
    using E = std::remove_cvref_t<decltype(t.scheme.policy.*f.member)>;
    for (const auto& e : name_table(E{}).entries) {
      BlockTarget a = t;
      a.scheme.policy.*f.member = e.value;
      add(std::string(policy_key(f)) + "=" + std::string(e.name), std::string(f.diagnosis), a);
    }
  });
  // Element rounding and overflow.
  for (const auto& e : name_table(Rounding{}).entries) {
    if (e.value == Rounding::sr || e.value == t.rounding.rounding) continue;
    BlockTarget a = t;
    a.rounding.rounding = e.value;
    std::string bug = "elements " + std::string(e.name) + " instead of " + std::string(name(t.rounding.rounding));
    if (t.rounding.rounding == Rounding::rne && e.value == Rounding::rna) bug = "ties away instead of even (T1, T12)";
    add("elements " + std::string(e.name), bug, a);
  }
  for (const auto& e : name_table(Overflow{}).entries) {
    BlockTarget a = t;
    a.rounding.overflow = e.value;
    add("elements " + std::string(e.name), "element overflow " + std::string(e.name) + " (T2, T4)", a);
  }
  for (const auto& e : profile_table().entries) {
    if (e.value == t.profile) continue;
    BlockTarget a = t;
    a.profile = e.value;
    add("profile " + std::string(e.name), "the " + std::string(e.name) + " profile's element conversions", a);
  }
  for (const auto& e : name_table(MxQuirks{}).entries) {
    if (e.value == MxQuirks::te_2) continue;  // not a diagnosis candidate (yet): the ranked lists stay as they were
    BlockTarget a = t;
    a.mx_quirks = e.value;
    const bool nv = is_nvfp4_rule(s.rule);
    if (e.value == MxQuirks::none)
      add(nv ? "NVIDIA/TE NVFP4 (no quirks)" : "OCP MX (no quirks)", "the OCP definition instead of the peer's", a);
    else
      add("mx-quirks " + std::string(e.name),
          "the " + std::string(e.name) + " quantizer's scales and order" +
              (!nv ? std::string()
               : e.value == MxQuirks::torchao_0_18
                   ? std::string(" (block scales (amax/6)/pts clamped up to 2^-6, x*((1/pts)/s))")
                   : std::string(" (no tensor scale: amax/6 clamped up to 2^-6, x*(1/s))")),
          a);
  }
  // The scale code one step off with the elements kept (an off-by-one exponent in the scale store only).
  if (scale_kind(s) != ScaleKind::fp32)
    for (const int step : {+1, -1}) {
      Alt a{step > 0 ? "scale +1, elements kept" : "scale -1, elements kept",
            "the scale code written one step " + std::string(step > 0 ? "high" : "low") +
                " while the elements use the right scale",
            t};
      a.scale_step = step;
      v.push_back(std::move(a));
    }
  if (t.packing == Packing::fp4x2) add("nibbles swapped", "wrong FP4 nibble order (T16)", t, true);
  if (t.packing == Packing::fp6_dense)
    add("fp6 msb-first", "wrong FP6 bit order: an MSB-first bit stream (case 4g in the top bits of byte 3g)", t, true);
  return v;
}

/// The exact-value reason for a scale (E8M0 rules) in words.
std::string scale_why(const BlockTarget& t, std::span<const float> b, const BlockResult& got) {
  double amax = 0;
  bool nan = false, inf = false;
  for (float x : b) {
    if (std::isnan(x)) nan = true;
    else if (std::isinf(x)) inf = true;
    else amax = std::max(amax, std::fabs(static_cast<double>(x)));
  }
  const Scheme& s = t.scheme;
  std::string w = "scale: ";
  if (nan) w += "a NaN element, nan-block=" + std::string(name(s.policy.nan));
  else if (inf) w += "an Inf element, inf-block=" + std::string(name(s.policy.inf));
  else if (amax == 0) w += "all-zero block, zero-block=" + std::string(name(s.policy.zero));
  else {
    const double mx = element_max(s.element);
    const int e = std::ilogb(amax / mx);
    w += "amax " + num(amax) + " = " + num(amax / std::ldexp(mx, e)) + "*" + num(mx) + "*2^" + std::to_string(e);
    switch (s.rule) {
      case ScaleRule::ocp_floor: w += "; ocp_floor: floor(log2 amax) - emax_elem"; break;
      case ScaleRule::rceil: w += "; rceil: the smallest e with " + num(mx) + "*2^e >= amax"; break;
      case ScaleRule::ceil: w += "; ceil: FP32 exponent of amax - emax_elem, +1 if its mantissa is nonzero"; break;
      case ScaleRule::even: w += "; even: amax's FP32 bits + 2^(22-m), mantissa cleared, then floor"; break;
      case ScaleRule::tosa: w += "; tosa: the smallest e with RNE(amax/2^e) <= max"; break;
      case ScaleRule::fp32_amax: w += "; fp32_amax: decode = fl32(1/fl32(max/amax))"; break;
      case ScaleRule::fp32_pow2: w += "; fp32_pow2: encode = fl32(max/amax), mantissa cleared"; break;
      case ScaleRule::nvfp4:
        if (s.scale_select != ScaleSelect::none)  // core/four_over_six.hpp fourover6_block_codes
          w += "; nvfp4 " + std::string(name(s.scale_select)) +
               ": map-to-6 e4m3(base), map-to-4 e4m3(fl32(base * 1.5)), base = fl32(fl32(amax/6) * S_enc), "
               "S_enc = fl32(1536/tensor amax) (the block's own amax here)";
        else if (t.mx_quirks == MxQuirks::none) w += "; nvfp4: e4m3(fl32(amax * fl32(S_enc * fl32(1/6))))";
        else w += "; torchao nvfp4: e4m3(clamp(fl32(amax/6) [/ pts], 2^-6, 448))";
        break;
      case ScaleRule::rceil_fp32:
        w += "; rceil_fp32: cvt.rp.satfinite.ue8m0 of fl32(amax * fl32(1/" + num(mx) + "))";
        break;
      case ScaleRule::nvfp4_ceil: w += "; nvfp4_ceil: e4m3 rounded up (fl32(amax * fl32(S_enc * fl32(1/6))))"; break;
      case ScaleRule::nvfp4_v2:
      case ScaleRule::nvfp4_v2_gs:
        w += "; " + std::string(name(s.rule)) + ": auto-round ue5m3 cast of fl32(g * fl32(amax * fl32(1/6)))";
        break;
    }
    if (amax < 0x1p-126) w += " (FP32-subnormal amax, subnormal-amax=" + std::string(name(s.policy.subnormal)) + ")";
  }
  // Which other rule gives the kernel's scale.
  std::string others;
  for (const auto& e : name_table(ScaleRule{}).entries) {
    if (e.value == s.rule || scale_kind(s) == ScaleKind::ue4m3 || scale_kind(s) == ScaleKind::ue5m3) continue;
    if (is_e8m0_rule(e.value) != is_e8m0_rule(s.rule)) continue;
    BlockTarget a = t;
    a.scheme.rule = e.value;
    try {
      validate(a);
    } catch (const Error&) {
      continue;
    }
    if (expected_block(a, b).scale == got.scale) others += (others.empty() ? "" : ", ") + std::string(e.name);
  }
  if (!others.empty()) w += "; got = " + others + "'s";
  return w;
}

/// Scheme::scale_select 4over6 (issue 25 item 2): when the kernel's scale is the block's other candidate code
/// (core/four_over_six.hpp, the probe block its own tensor: S_enc from its amax), the wrong choice in words; else "".
std::string fourover6_why(const BlockTarget& t, std::span<const float> b, const BlockResult& got,
                          const BlockResult& want) {
  if (t.scheme.scale_select == ScaleSelect::none) return "";
  float amax = 0.0f;
  for (const float x : b)
    if (std::fabs(x) > amax) amax = std::fabs(x);  // NaN ignored
  const FourOverSixCodes c = fourover6_block_codes(amax, fourover6_global_encode_scale(amax));
  if (c.map6 == c.map4 || (want.scale != c.map6 && want.scale != c.map4)) return "";
  const bool want4 = want.scale == c.map4;
  if (got.scale != (want4 ? c.map6 : c.map4)) return "";
  return std::string("4over6 choice: the block chose map-to-") + (want4 ? "6" : "4") + " (scale " + hex(got.scale, 2) +
         "), reference map-to-" + (want4 ? "4" : "6") + " (" + hex(want.scale, 2) + ") under " +
         std::string(name(t.scheme.scale_select));
}

std::string why_text(const BlockTarget& t, std::span<const float> b, const BlockResult& got, const BlockResult& want) {
  if (const std::string w = fourover6_why(t, b, got, want); !w.empty()) return w;
  if (got.scale != want.scale) return scale_why(t, b, got);
  // Same scale, some element differs: the first one, with its scaled value.
  for (std::size_t i = 0; i < want.codes.size(); ++i) {
    if (got.codes[i] == want.codes[i]) continue;
    std::string w = "element " + std::to_string(i) + ": x = " + num(b[i]);
    if (scale_kind(t.scheme) == ScaleKind::e8m0 && want.scale < 0xff)
      w += ", x/2^" + std::to_string(static_cast<int>(want.scale) - 127) + " = " +
           num(std::ldexp(static_cast<double>(b[i]), 127 - static_cast<int>(want.scale)));
    w += ", elements " + std::string(name(t.rounding.rounding)) + " " + std::string(name(t.rounding.overflow));
    if (t.packing == Packing::fp4x2 && (i ^ 1) < want.codes.size() && got.codes[i] == want.codes[i ^ 1] &&
        got.codes[i ^ 1] == want.codes[i])
      w += "; got holds elements " + std::to_string(i & ~std::size_t{1}) + " and " + std::to_string(i | 1) + " swapped";
    return w;
  }
  return "";
}

struct Runner {
  const BlockTarget& t;
  std::size_t k, cb;
  /// Run `kernel` on blocks `vals` (n·k), results unpacked, plus the raw storage.
  void run(const BlockKernel& kernel, std::span<const float> vals, std::vector<std::uint8_t>& codes,
           std::vector<std::uint64_t>& scales) const {
    const std::size_t n = vals.size() / k;
    codes.assign(n * cb, 0);
    scales.assign(n, 0);
    kernel(vals, codes, scales);
  }
};

BlockResult got_of(const BlockTarget& t, std::size_t k, std::size_t cb, std::span<const std::uint8_t> codes,
                   std::span<const std::uint64_t> scales, std::size_t i) {
  return {load_codes(t, codes.subspan(i * cb, cb), k), scales[i]};
}

/// Candidate blocks simpler than `b`: half of it or all but one element zeroed; or one change: an
/// element zeroed, made ±1 or positive, moved to position 0, its exponent moved to 0 or one step
/// toward it, or its significand rounded down or up to fewer bits.
std::vector<std::vector<float>> shrink_candidates(std::span<const float> b) {
  std::vector<std::vector<float>> out;
  const std::uint64_t s0 = block_simplicity(b);
  std::vector<float> c(b.begin(), b.end());
  auto try_value = [&](std::size_t i, std::uint32_t v) {
    const float old = c[i];
    c[i] = f32_of_bits(v);
    if (block_simplicity(c) < s0) out.push_back(c);
    c[i] = old;
  };
  // Delta-debugging steps first: either half zeroed, every element but one zeroed.
  for (std::size_t h = 0; h < 2 && b.size() > 1; ++h) {
    std::vector<float> d(b.begin(), b.end());
    std::fill(d.begin() + static_cast<std::ptrdiff_t>(h * (b.size() / 2)),
              d.begin() + static_cast<std::ptrdiff_t>(h ? b.size() : b.size() / 2), 0.0f);
    if (block_simplicity(d) < s0) out.push_back(std::move(d));
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::vector<float> d(b.size(), 0.0f);
    d[i] = b[i];
    if (bits_of(b[i]) != 0 && block_simplicity(d) < s0) out.push_back(std::move(d));
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    const std::uint32_t x = bits_of(b[i]);
    if (x == 0) continue;
    try_value(i, 0);
    if ((x & 0x7fffffffu) != 0 && (x & 0x7f800000u) != 0x7f800000u) {  // finite nonzero: +-1.0
      try_value(i, 0x3f800000u);
      try_value(i, (x & 0x80000000u) | 0x3f800000u);
    }
    if (x & 0x80000000u) try_value(i, x & 0x7fffffffu);
    if (i != 0) {
      std::swap(c[0], c[i]);
      if (block_simplicity(c) < s0) out.push_back(c);
      std::swap(c[0], c[i]);
    }
    const std::uint32_t ef = (x >> 23) & 0xffu;
    if (ef == 0xffu || ef == 0) continue;  // NaN/Inf/subnormal: zeroing only
    const std::uint32_t sign = x & 0x80000000u, mant = x & 0x007fffffu;
    try_value(i, sign | (127u << 23) | mant);
    try_value(i, sign | ((ef > 127 ? ef - 1 : ef + 1) << 23) | mant);
    for (int j = 0; j < 23; ++j) {  // keep the top j mantissa bits
      const std::uint32_t low = (1u << (23 - j)) - 1;
      if ((mant & low) == 0) break;
      try_value(i, x & ~low);
      try_value(i, (x & ~low) + (low + 1));
    }
  }
  return out;
}

Diagnosis diagnose(const BlockTarget& t, const BlockCases& cases, std::span<const std::uint8_t> got_codes,
                   std::span<const std::uint64_t> got_scales) {
  Diagnosis d;
  const std::size_t cb = code_bytes_per_block(t);
  std::vector<std::uint8_t> store(cb);
  for (const Alt& a : panel(t)) {
    Alternative r{a.name, a.bug, 0, cases.size()};
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const BlockResult e = with_scale_step(t, a, expected_block(a.t, cases.at(i)));
      if (e.scale != got_scales[i]) continue;
      store_codes(t, e.codes, store, a.swap);
      if (std::equal(store.begin(), store.end(), got_codes.begin() + static_cast<std::ptrdiff_t>(i * cb))) ++r.agree;
    }
    d.ranked.push_back(std::move(r));
  }
  rank_diagnosis(d, "blocks");
  return d;
}

/// The structural facts that put a block in the zero, special or subnormal_amax class.
struct BlockShape {
  bool zero = true;             ///< every element ±0
  bool special = false;         ///< a NaN or ±Inf element
  bool subnormal_amax = false;  ///< the largest finite magnitude is a nonzero FP32 subnormal
};
BlockShape block_shape(std::span<const float> b) {
  BlockShape s;
  std::uint32_t amax = 0;
  for (const float x : b) {
    const std::uint32_t m = bits_of(x) & 0x7fffffffu;
    if (m >= 0x7f800000u) s.special = true;
    else amax = std::max(amax, m);
    if (m != 0) s.zero = false;
  }
  s.subnormal_amax = amax != 0 && amax < 0x00800000u;
  return s;
}

/// The block checker as a run.hpp Domain: a case is one block of binary32 values, the kernel's output its
/// (unpacked) codes and scale; shrinking reruns the kernel on every class's candidate blocks in one call.
struct BlockDomain {
  using Case = std::vector<float>;
  using Got = BlockResult;
  using Key = std::uint64_t;
  const BlockTarget& t;
  std::size_t k, cb;  ///< block_size(t), code_bytes_per_block(t)
  const BlockCases& cases;
  std::span<const std::uint8_t> got_codes;
  std::span<const std::uint64_t> got_scales;
  const BlockKernel& kernel;

  std::size_t size() const { return cases.size(); }
  std::size_t classes() const { return std::size(kBlockClassEntries); }
  Case case_at(std::size_t i) const {
    const auto b = cases.at(i);
    return Case(b.begin(), b.end());
  }
  std::size_t class_at(std::size_t i) const { return static_cast<std::size_t>(cases.classes[i]); }
  Got got_at(std::size_t i) const { return got_of(t, k, cb, got_codes, got_scales, i); }
  bool passes(const Case& c, const Got& g) const { return g == expected_block(t, c); }
  Key key(const Case& c) const { return block_simplicity(c); }
  /// A candidate stays out of the other classes' shapes (an all-zero block is the zero class's case, a block
  /// with NaN/Inf the special class's, a block whose amax is an FP32 subnormal the subnormal_amax class's),
  /// keeps its own class's shape, and fails the same way (the scale wrong, or only elements wrong).
  bool admissible(std::size_t cls, const Case& c, const Got& got_c, const Case& y, const Got& got_y) const {
    const BlockShape s = block_shape(y);
    const auto own = [&](BlockClass c2) { return cls == static_cast<std::size_t>(c2); };
    if (s.zero != own(BlockClass::zero) || s.special != own(BlockClass::special)) return false;
    if (s.subnormal_amax && !own(BlockClass::subnormal_amax)) return false;
    return (got_c.scale == expected_block(t, c).scale) == (got_y.scale == expected_block(t, y).scale);
  }
  std::vector<Case> candidates(const Case& c) const { return shrink_candidates(c); }
  std::vector<Got> rerun(std::span<const Case> cand) const {
    std::vector<float> vals;
    for (const Case& c : cand) vals.insert(vals.end(), c.begin(), c.end());
    std::vector<std::uint8_t> codes;
    std::vector<std::uint64_t> scales;
    Runner{t, k, cb}.run(kernel, vals, codes, scales);
    std::vector<Got> out;
    for (std::size_t j = 0; j < cand.size(); ++j) out.push_back(got_of(t, k, cb, codes, scales, j));
    return out;
  }
};
static_assert(Domain<BlockDomain>);

BlockReport evaluate_impl(const BlockTarget& t, const BlockCases& cases, std::span<const std::uint8_t> got_codes,
                          std::span<const std::uint64_t> got_scales, const BlockOptions& o, const BlockKernel& rerun,
                          std::uint64_t calls) {
  const BlockDomain d{t, block_size(t), code_bytes_per_block(t), cases, got_codes, got_scales, rerun};
  const ShrinkPlan plan = shrink_plan(o, static_cast<bool>(rerun));
  auto found = run_domain(d, plan);
  BlockReport r;
  r.target = t;
  r.tested = cases.size();
  r.failed = found.failed;
  r.kernel_calls = calls + found.shrink_calls;
  for (auto& x : found.minimal) {
    BlockMismatch m;
    m.cls = static_cast<BlockClass>(x.cls);
    m.block = std::move(x.c);
    m.got = std::move(x.got);
    m.class_failures = x.failures;
    m.expected = expected_block(t, m.block);
    m.why = why_text(t, m.block, m.got, m.expected);
    r.minimal.push_back(std::move(m));
  }
  if (o.diagnose == Options::Diagnose::yes && cases.size() > 0) r.diagnosis = diagnose(t, cases, got_codes, got_scales);
  return r;
}

/// Append one block; values beyond binary32 are skipped by the callers.
struct Builder {
  BlockCases& out;
  void add(std::span<const float> b, BlockClass c) {
    out.values.insert(out.values.end(), b.begin(), b.end());
    out.classes.push_back(c);
  }
};

/// A random f32 block with |x| ≤ amax (amax at position p, sign from the generator).
std::vector<float> block_with_amax(SplitMix& g, std::size_t k, float amax, std::size_t p) {
  std::vector<float> b(k);
  for (std::size_t i = 0; i < k; ++i) {
    const double u = g.unit();
    float v = static_cast<float>(static_cast<double>(amax) * u);
    if (std::fabs(v) > std::fabs(amax)) v = amax;
    b[i] = (g.next() & 1) ? -v : v;
  }
  b[p % k] = (g.next() & 1) ? -amax : amax;
  return b;
}

/// "map-to-6 (0)" / "map-to-4 (1)".
std::string choice_name(std::uint8_t c) {
  return c == 0 ? "map-to-6 (0)" : c == 1 ? "map-to-4 (1)" : "not a choice (" + std::to_string(c) + ")";
}

/// BlockReport::text's line of a --got-choices finding; "" without one.
std::string choices_text(const BlockTarget& t, const std::optional<ChoiceFinding>& c) {
  if (!c) return "";
  std::string s = "4over6 choices: " + std::to_string(c->tested) + " blocks";
  if (c->failed == 0) return s + ", pass\n";
  const ChoiceDetail& e = c->expected;
  s += ", " + std::to_string(c->failed) + " failing; first block " + std::to_string(c->first) + ": got " +
       choice_name(c->got) + " expected " + choice_name(e.choice) + "; candidates map-to-6 " +
       scale_text(t.scheme, e.map6) + " err " + f32_text(e.err6) + ", map-to-4 " + scale_text(t.scheme, e.map4) +
       " err " + f32_text(e.err4) + " (" + std::string(name(t.scheme.scale_select)) + ")\n";
  return s;
}

nlohmann::ordered_json choices_json(const ChoiceFinding& c) {
  nlohmann::ordered_json j;
  j["tested"] = c.tested;
  j["failed"] = c.failed;
  if (c.failed == 0) return j;
  nlohmann::ordered_json f;
  f["block"] = c.first;
  f["got"] = c.got;
  f["expected"] = c.expected.choice;
  f["map6_code"] = c.expected.map6;
  f["map4_code"] = c.expected.map4;
  f["map6_err"] = hex(bits_of(c.expected.err6), 8);
  f["map4_err"] = hex(bits_of(c.expected.err4), 8);
  auto arr = nlohmann::ordered_json::array();
  for (float x : c.block) arr.push_back(hex(bits_of(x), 8));
  f["block_f32_bits"] = arr;
  j["first"] = std::move(f);
  return j;
}

}  // namespace

const NameTable<Packing>& name_table(Packing) {
  static constexpr NameEntry<Packing> kEntries[] = {
      {Packing::none, "none", "one code per output word"},
      {Packing::fp4x2, "fp4x2",
       "two 4-bit codes per byte, element 2j in the low nibble (OCP MX v1.0, CUDA fp4x2, torch float4_e2m1fn_x2)"},
      {Packing::fp6_dense, "fp6_dense",
       "four 6-bit codes per 3 bytes, a little-endian bit stream: element i in bits [6i, 6i+6) (pack.hpp "
       "Fp6Packing::dense)"},
  };
  static constexpr NameTable<Packing> t{"probe-packing", "code packing", kEntries};
  return t;
}

const NameTable<BlockClass>& name_table(BlockClass) {
  static constexpr NameTable<BlockClass> t{"block-class", "block probe class", kBlockClassEntries};
  return t;
}

std::string describe(const BlockTarget& t) {
  std::string s = scheme_name(t.scheme) + " (f32 blocks of " + std::to_string(t.scheme.block_cols) + ", " +
                  std::string(name(t.rounding.rounding)) + " " + std::string(name(t.rounding.overflow)) + ", " +
                  std::string(profile_name(t.profile)) + ")";
  if (t.packing != Packing::none) s += " " + std::string(name(t.packing));
  if (t.mx_quirks != MxQuirks::none) s += " mx-quirks " + std::string(name(t.mx_quirks));
  if (t.rounding.ftz) s += " ftz";  // RoundingSpec::ftz/daz, shown only when set
  if (t.rounding.daz) s += " daz";
  return s;
}

void validate(const BlockTarget& t) {
  validate_scheme(t.scheme);
  if (t.scheme.block_rows != 1 || t.scheme.block_cols == 0)
    throw Error("block target: only 1xk tiles (block rows 1, k >= 1 columns) can be checked, not " +
                scheme_name(t.scheme));
  if (t.scheme.transform.rht16 && t.scheme.block_cols % kRht16Size != 0)
    throw Error("block target: transform " + transform_name(t.scheme.transform) +
                " needs blocks of a multiple of 16 elements, not " + std::to_string(t.scheme.block_cols));
  if (t.mx_quirks != MxQuirks::none) {
    QuantOptions qo;
    qo.mx_quirks = t.mx_quirks;
    BlockQuantizer probe({t.scheme.block_cols}, t.scheme, qo);  // throws where the quirks do not apply
  }
  if (t.rounding.rounding == Rounding::sr)
    throw Error("block target: element rounding must be deterministic (rne rna rtz rtp rtn rto), not sr");
  if (t.packing == Packing::fp4x2 && (t.scheme.element.kind != ElementKind::floating ||
                                      t.scheme.element.format.bits != 4 || t.scheme.block_cols % 2 != 0))
    throw Error("block target: fp4x2 packing needs a 4-bit element and an even block size");
  if (t.packing == Packing::fp6_dense && (t.scheme.element.kind != ElementKind::floating ||
                                          t.scheme.element.format.bits != 6 || t.scheme.block_cols % 4 != 0))
    throw Error(
        "block target: fp6_dense packing needs a 6-bit element (e2m3fn, e3m2fn) and a block size that is a multiple of "
        "4");
}

std::size_t block_size(const BlockTarget& t) { return t.scheme.block_cols; }
std::size_t code_bytes_per_block(const BlockTarget& t) {
  return t.scheme.block_cols / packing_group(t.packing) * packing_group_bytes(t.packing);
}

BlockResult expected_block(const BlockTarget& t, std::span<const float> block) {
  QuantOptions qo;
  qo.rounding = t.rounding;
  qo.profile = t.profile;
  qo.mx_quirks = t.mx_quirks;
  const QuantizedTensor q = quantize(block, {block.size()}, t.scheme, qo);
  BlockResult r;
  r.codes = q.codes;
  switch (scale_kind(t.scheme)) {
    case ScaleKind::e8m0:
    case ScaleKind::ue4m3:
    case ScaleKind::ue5m3: r.scale = q.scale_codes.empty() ? 0 : q.scale_codes[0]; break;
    case ScaleKind::fp32: r.scale = q.scales.empty() ? 0 : bits_of(q.scales[0]); break;
  }
  return r;
}

ChoiceDetail expected_choice(const BlockTarget& t, std::span<const float> block) {
  const Scheme& s = t.scheme;
  if (s.scale_select == ScaleSelect::none)
    throw Error("4over6 choices: the target " + describe(t) +
                " has no scale-select (accepted: 4over6:mse, 4over6:mae)");
  QuantOptions qo;
  qo.rounding = t.rounding;
  qo.profile = t.profile;
  qo.mx_quirks = t.mx_quirks;
  const QuantizedTensor q = quantize(block, {block.size()}, s, qo);
  ChoiceDetail d;
  d.choice = q.scale_select.empty() ? 0 : q.scale_select[0];
  // The candidates and errors from the core steps the engine's tile loop runs (quant/tile_loops.cpp
  // fourover6_segment): the block its own tensor, S_enc and the global amax from its amax (NaN ignored).
  float amax = 0.0f;
  for (const float x : block)
    if (std::fabs(x) > amax) amax = std::fabs(x);
  const float s_enc = fourover6_global_encode_scale(amax);
  const FourOverSixCodes c = fourover6_block_codes(amax, s_enc);
  d.map6 = c.map6;
  d.map4 = c.map4;
  const TileRule rule = make_tile_rule(s.rule, s.element, s.policy, s_enc);
  const bool mse = s.scale_select == ScaleSelect::four_over_six_mse;
  for (int k = 0; k < 2; ++k) {
    TileScale sc{};
    sc.kind = TileScale::Kind::nvfp4;
    sc.code = k == 0 ? c.map6 : c.map4;
    sc.enc = nvfp4_element_encode_scale(sc.code, s_enc);
    const float sf = to_float(formats::e4m3fn, sc.code);
    float err = 0.0f;
    for (const float x : block) {
      const TileElement te = encode_in_tile(x, sc, rule, t.rounding, t.profile, 0);
      err = fourover6_error_step(err, static_cast<float>(element_value(s.element, te.r.code)), sf, amax, x, mse);
    }
    (k == 0 ? d.err6 : d.err4) = err;
  }
  return d;
}

ChoiceFinding evaluate_choices(const BlockTarget& t, const BlockCases& cases, std::span<const std::uint8_t> got,
                               std::span<const std::uint8_t> expected) {
  if (t.scheme.scale_select == ScaleSelect::none)
    throw Error("4over6 choices: the target " + describe(t) +
                " has no scale-select (accepted: 4over6:mse, 4over6:mae)");
  if (got.size() != cases.size() || expected.size() != cases.size())
    throw Error("4over6 choices: " + std::to_string(got.size()) + " got and " + std::to_string(expected.size()) +
                " expected choices for " + std::to_string(cases.size()) + " blocks; one per block");
  ChoiceFinding f;
  f.tested = cases.size();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (got[i] == expected[i]) continue;
    if (f.failed++ == 0) {
      f.first = i;
      f.got = got[i];
      f.expected = expected_choice(t, cases.at(i));
      f.expected.choice = expected[i];
      f.block.assign(cases.at(i).begin(), cases.at(i).end());
    }
  }
  return f;
}

std::uint64_t block_simplicity(std::span<const float> block) {
  std::uint64_t nz = 0, len = 0, ex = 0, pos = 0, neg = 0;
  for (std::size_t i = 0; i < block.size(); ++i) {
    const std::uint32_t b = bits_of(block[i]);
    if (b == 0) continue;
    ++nz;
    neg += b >> 31;
    pos += i;
    const std::uint32_t m = b & 0x007fffffu;
    len += m == 0 ? 0 : static_cast<std::uint64_t>(23 - std::countr_zero(m));
    const int e = static_cast<int>((b >> 23) & 0xff);
    ex += static_cast<std::uint64_t>(e == 0 ? 126 : std::abs(e - 127));
  }
  auto cap = [](std::uint64_t v, int bits) { return std::min<std::uint64_t>(v, (std::uint64_t{1} << bits) - 1); };
  return (cap(nz, 12) << 52) | (cap(ex, 14) << 38) | (cap(len, 14) << 24) | (cap(pos, 16) << 8) | cap(neg, 8);
}

BlockCases generate_blocks(const BlockTarget& t, const BlockGenOptions& g) {
  validate(t);
  const std::size_t k = block_size(t);
  SplitMix rng{g.seed};
  const ElementType el = t.scheme.element;
  const double mx = element_max(el);
  const int m = element_mantissa_bits(el);
  std::vector<std::pair<BlockClass, std::vector<float>>> blocks;
  auto add = [&](BlockClass c, std::vector<float> b) { blocks.emplace_back(c, std::move(b)); };
  // scale_edge: the rule boundaries for exponents across the E8M0 range, each ±1 ulp.
  {
    double half_ulp_max = 0;
    if (el.kind == ElementKind::int8) half_ulp_max = 0.5 / 64;
    else half_ulp_max = std::ldexp(1.0, emax(el.format) - el.format.mantissa_bits - 1);
    std::vector<int> exps;
    for (int e = -8; e <= 8; ++e) exps.push_back(e);
    for (int e : {-140, -135, -130, -127, -126, -125, -120, -64, -30, 30, 64, 100, 118, 119, 120, 126, 127})
      exps.push_back(e);
    std::size_t pos = 0;
    for (int e : exps) {
      const double bases[] = {mx * std::ldexp(1.0, e), std::ldexp(1.0, e + element_emax(el)),
                              (2.0 - std::ldexp(1.0, -(m + 1))) * std::ldexp(1.0, e + element_emax(el) - 1),
                              (mx + half_ulp_max) * std::ldexp(1.0, e)};
      for (double b : bases) {
        if (!is_finite_f32(b) || b == 0) continue;
        const float f = static_cast<float>(b);
        if (static_cast<double>(f) != b) continue;
        for (float a : {next_down(f), f, next_up(f)}) {
          if (!std::isfinite(a) || a == 0) continue;
          add(BlockClass::scale_edge, block_with_amax(rng, k, a, pos++));
        }
      }
    }
  }
  // special: one NaN / Inf element in a block of amax ~ 1.
  {
    const std::uint32_t specials[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u, 0x7f800000u, 0xff800000u};
    std::size_t pos = 0;
    for (std::uint32_t s : specials)
      for (int rep = 0; rep < 4; ++rep) {
        std::vector<float> b = block_with_amax(rng, k, 1.0f, pos);
        b[(pos + 3 + static_cast<std::size_t>(rep) * 5) % k] = f32_of_bits(s);
        ++pos;
        add(BlockClass::special, std::move(b));
      }
  }
  // zero blocks.
  add(BlockClass::zero, std::vector<float>(k, 0.0f));
  add(BlockClass::zero, std::vector<float>(k, -0.0f));
  {
    std::vector<float> b(k, 0.0f);
    for (std::size_t i = 1; i < k; i += 2) b[i] = -0.0f;
    add(BlockClass::zero, std::move(b));
  }
  // subnormal amax.
  {
    std::vector<std::uint32_t> amaxes = {0x00000001u, 0x00000002u, 0x00000003u, 0x00400000u, 0x00400001u, 0x003fffffu,
                                         0x007fffffu, 0x00800000u, 0x00800001u, 0x00c00000u, 0x00200000u, 0x00100000u};
    for (int i = 0; i < 12; ++i) amaxes.push_back(static_cast<std::uint32_t>(1 + rng.below(0x007fffffu)));
    std::size_t pos = 0;
    for (std::uint32_t a : amaxes) add(BlockClass::subnormal_amax, block_with_amax(rng, k, f32_of_bits(a), pos++));
  }
  // scaled midpoints: a random block's decode scale times the element grid's midpoints.
  {
    std::vector<double> grid;  // positive finite element magnitudes, ascending
    if (el.kind == ElementKind::int8) {
      for (int i = 0; i <= 127; ++i) grid.push_back(i / 64.0);
    } else {
      for (std::uint64_t c = 0; c <= code_mask(el.format); ++c) {
        const Unpacked u = unpack(el.format, c);
        if (u.negative || u.cls == Class::nan || u.cls == Class::inf) continue;
        grid.push_back(to_double(el.format, c));
      }
      std::sort(grid.begin(), grid.end());
      grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    }
    const std::size_t want = std::max<std::size_t>(8, g.count / 8);
    for (std::size_t n = 0; n < want && grid.size() > 1; ++n) {
      const int e = static_cast<int>(rng.below(41)) - 20;
      const float amax = static_cast<float>(mx * std::ldexp(1.0 + rng.unit(), e - 1));
      std::vector<float> b = block_with_amax(rng, k, amax, n);
      QuantOptions qo;
      qo.rounding = t.rounding;
      qo.profile = t.profile;
      const QuantizedTensor q = quantize(std::span<const float>(b), {k}, t.scheme, qo);
      const double d = block_scale_value(q, 0);
      if (!(d > 0) || !std::isfinite(d)) continue;
      for (std::size_t i = 0; i < k; ++i) {
        if (std::fabs(b[i]) == amax) continue;
        const std::size_t j = rng.below(grid.size() - 1);
        const double mid = (grid[j] + grid[j + 1]) / 2 * d;
        float v = static_cast<float>(mid);
        const int nudge = static_cast<int>(rng.below(3));
        if (nudge == 1) v = next_down(v);
        if (nudge == 2) v = next_up(v);
        if (!(std::fabs(v) <= amax)) continue;
        b[i] = (rng.next() & 1) ? -v : v;
      }
      add(BlockClass::scaled_midpoint, std::move(b));
    }
  }
  // Sub-sample the boundary classes to 3/4 of count.
  const std::size_t cap = g.count - g.count / 4;
  if (blocks.size() > cap && cap > 0) {
    std::vector<std::pair<BlockClass, std::vector<float>>> kept;
    for (std::size_t i = 0; i < cap; ++i) kept.push_back(std::move(blocks[i * blocks.size() / cap]));
    blocks = std::move(kept);
  }
  // random: normal-like values (sum of uniforms) times 2^e, and uniform finite f32 bits.
  while (blocks.size() < g.count) {
    std::vector<float> b(k);
    if (rng.next() % 4 == 0) {
      for (auto& x : b) {
        std::uint32_t v;
        do v = static_cast<std::uint32_t>(rng.next());
        while ((v & 0x7f800000u) == 0x7f800000u);
        x = f32_of_bits(v);
      }
    } else {
      const int e = static_cast<int>(rng.below(61)) - 30;
      for (auto& x : b) {
        const double n = rng.unit() + rng.unit() + rng.unit() + rng.unit() - 2.0;
        x = static_cast<float>(std::ldexp(n, e));
      }
    }
    add(BlockClass::random, std::move(b));
  }
  // Class order, each class by simplicity.
  std::stable_sort(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return block_simplicity(a.second) < block_simplicity(b.second);
  });
  BlockCases out;
  out.block = k;
  Builder bld{out};
  for (const auto& [c, b] : blocks) bld.add(b, c);
  return out;
}

BlockReport evaluate_blocks(const BlockTarget& t, const BlockCases& cases, std::span<const std::uint8_t> got_codes,
                            std::span<const std::uint64_t> got_scales, const BlockOptions& o,
                            const BlockKernel& rerun) {
  validate(t);
  if (cases.block != block_size(t) || cases.values.size() != cases.size() * cases.block)
    throw Error("evaluate_blocks: the cases are not blocks of " + std::to_string(block_size(t)) + " values");
  if (got_codes.size() != cases.size() * code_bytes_per_block(t))
    throw Error("evaluate_blocks: got " + std::to_string(got_codes.size()) + " code bytes, expected " +
                std::to_string(cases.size() * code_bytes_per_block(t)) + " (" + std::to_string(cases.size()) +
                " blocks of " + std::to_string(code_bytes_per_block(t)) + ")");
  if (got_scales.size() != cases.size())
    throw Error("evaluate_blocks: got " + std::to_string(got_scales.size()) + " scales, expected one per block (" +
                std::to_string(cases.size()) + ")");
  return evaluate_impl(t, cases, got_codes, got_scales, o, rerun, 0);
}

BlockReport check_blocks(const BlockKernel& kernel, const BlockTarget& t, const BlockOptions& o) {
  validate(t);
  if (o.batch == 0) throw Error("check_blocks: batch must be >= 1");
  const BlockCases cases = generate_blocks(t, o.gen);
  const std::size_t k = block_size(t), cb = code_bytes_per_block(t);
  std::vector<std::uint8_t> codes(cases.size() * cb);
  std::vector<std::uint64_t> scales(cases.size());
  std::uint64_t calls = 0;
  for (std::size_t i = 0; i < cases.size(); i += o.batch) {
    const std::size_t n = std::min(o.batch, cases.size() - i);
    kernel(std::span<const float>(cases.values).subspan(i * k, n * k),
           std::span<std::uint8_t>(codes).subspan(i * cb, n * cb), std::span<std::uint64_t>(scales).subspan(i, n));
    ++calls;
  }
  return evaluate_impl(t, cases, codes, scales, o, kernel, calls);
}

std::string BlockReport::text() const {
  std::string head = "check-blocks " + describe(target) + ": " + std::to_string(tested) + " blocks";
  head += failed == 0 ? ", pass\n"
                      : ", " + std::to_string(failed) + " failing in " + std::to_string(minimal.size()) + " classes\n";
  report::Text t{std::move(head), {}, "", {}};
  for (const auto& m : minimal) {
    std::string s = "[" + std::string(name(m.cls)) + "] " + std::to_string(m.class_failures) + " failing; block:";
    std::size_t zeros = 0;
    for (std::size_t i = 0; i < m.block.size(); ++i) {
      if (bits_of(m.block[i]) == 0) {
        ++zeros;
        continue;
      }
      s += ' ';
      s += std::to_string(i);
      s += ':';
      s += f32_text(m.block[i]);
    }
    if (zeros) s += zeros == m.block.size() ? " all +0" : ", rest +0";
    s += "\n  scale got " + scale_text(target.scheme, m.got.scale) + " expected " +
         scale_text(target.scheme, m.expected.scale);
    int shown = 0;
    for (std::size_t i = 0; i < m.expected.codes.size() && i < m.got.codes.size(); ++i) {
      if (m.got.codes[i] == m.expected.codes[i]) continue;
      if (++shown > 4) {
        s += "; ...";
        break;
      }
      s += "; element " + std::to_string(i) + " got " + element_text(target.scheme, m.got.codes[i]) + " expected " +
           element_text(target.scheme, m.expected.codes[i]);
    }
    s += "\n  why: " + m.why + "\n";
    t.classes.push_back(std::move(s));
  }
  return report::text(t, diagnosis) + choices_text(target, choices);
}

std::string BlockReport::json() const {
  nlohmann::ordered_json head;
  head["target"] = describe(target);
  head["scheme"] = scheme_name(target.scheme);
  nlohmann::ordered_json mins = nlohmann::ordered_json::array();
  for (const auto& m : minimal) {
    nlohmann::ordered_json x;
    x["class"] = std::string(name(m.cls));
    x["class_failures"] = m.class_failures;
    auto arr = nlohmann::ordered_json::array();
    for (float f : m.block) arr.push_back(hex(bits_of(f), 8));
    x["block_f32_bits"] = arr;
    x["got_scale"] = m.got.scale;
    x["expected_scale"] = m.expected.scale;
    x["got_codes"] = m.got.codes;
    x["expected_codes"] = m.expected.codes;
    x["why"] = m.why;
    mins.push_back(std::move(x));
  }
  const std::string j = report::json(std::move(head), {tested, failed, kernel_calls}, report::OkField::no,
                                     std::move(mins), diagnosis, report::JsonLayout::indent1);
  if (!choices) return j;
  nlohmann::ordered_json all = nlohmann::ordered_json::parse(j);
  all["choices"] = choices_json(*choices);
  return all.dump(static_cast<int>(report::JsonLayout::indent1));
}

}  // namespace minifloat::check
