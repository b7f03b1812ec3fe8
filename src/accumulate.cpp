// SPDX-License-Identifier: Apache-2.0
// accumulate.cpp: named accumulation models for dot products and GEMM (exact Kulisch-style sum,
// FP32 sequential/pairwise/Kahan, blocked promotion, tensor-core T-FDPA) and their name parsing.
#include "minifloat/accumulate.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "big_nat.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/error.hpp"
#include "minifloat/registry.hpp"

namespace minifloat {
namespace {

constexpr std::uint64_t kF32One = 0x3f800000u;

constexpr std::size_t kPresetCount = std::size(mma_models::all);

/// The "tensor-core" table: mma_models::all with each model's name, summary and operands.
constexpr std::array<NameEntry<TensorCorePreset>, kPresetCount> kPresets = [] {
  std::array<NameEntry<TensorCorePreset>, kPresetCount> t{};
  for (std::size_t i = 0; i < kPresetCount; ++i) {
    const TfdpaModel* m = mma_models::all[i];
    t[i] = {{m, {m->operands.formats, static_cast<std::size_t>(m->operands.count)}}, m->name, m->summary};
  }
  return t;
}();

/// The summary of a preset as an "accumulation" name: "the <name> tensor-core model alone over all k",
/// and for a block-scaled preset " (UE8M0 scales per 32)" or " (UE4M3 scales per 16)".
struct PresetDotSummary {
  char text[128]{};
  std::size_t size = 0;
  constexpr void append(std::string_view s) {
    for (const char ch : s) text[size++] = ch;
  }
};
constexpr std::array<PresetDotSummary, kPresetCount> kPresetDotSummaries = [] {
  std::array<PresetDotSummary, kPresetCount> t{};
  for (std::size_t i = 0; i < kPresetCount; ++i) {
    const TfdpaModel& m = *mma_models::all[i];
    t[i].append("the ");
    t[i].append(m.name);
    t[i].append(" tensor-core model alone over all k");
    if (m.scale.application != BlockScaleApplication::none) {
      t[i].append(m.scale.format == formats::e8m0fnu ? " (UE8M0 scales per " : " (UE4M3 scales per ");
      const int b = m.scale.block;  // two digits: presets_consistent()
      const char digits[2] = {static_cast<char>('0' + b / 10), static_cast<char>('0' + b % 10)};
      t[i].append(std::string_view(digits, 2));
      t[i].append(")");
    }
  }
  return t;
}();

constexpr NameEntry<AccumKind> kFixedDotModels[] = {
    {AccumKind::exact, "exact", "exact sum of the products and C, rounded once to f32"},
    {AccumKind::fp32, "fp32", "sequential FFMA chain in f32 (acc = fma(a_i, b_i, acc))"},
    {AccumKind::pairwise, "pairwise", "f32 products, pairwise (recursive halves) f32 sum, then + C"},
    {AccumKind::kahan, "kahan", "f32 products, Kahan compensated f32 sum starting from C"},
    {AccumKind::fp64_fma, "dmma-f64-unvalidated",
     "FP64 DMMA (Ampere/Hopper mma .f64): sequential IEEE f64 FMA chain from C, f64 result (published: MMA-Sim)"},
};
/// The "accumulation" table: the fixed models, then every preset alone over all k (AccumKind::tfdpa).
constexpr std::array<NameEntry<AccumKind>, std::size(kFixedDotModels) + kPresetCount> kDotModels = [] {
  std::array<NameEntry<AccumKind>, std::size(kFixedDotModels) + kPresetCount> t{};
  std::size_t n = 0;
  for (const auto& e : kFixedDotModels) t[n++] = e;
  for (std::size_t i = 0; i < kPresetCount; ++i)
    t[n++] = {AccumKind::tfdpa, mma_models::all[i]->name,
              std::string_view(kPresetDotSummaries[i].text, kPresetDotSummaries[i].size)};
  return t;
}();
constexpr bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}
/// Every preset has a summary and 1..5 operand formats, and a name says "unvalidated" exactly when the
/// preset is not validated on measured vectors (issue 14: unvalidated presets are marked by name).
constexpr bool presets_consistent() {
  for (const auto& p : kPresets) {
    const TfdpaModel& m = *p.value.model;
    if (std::string_view(m.summary).empty() || m.operands.count < 1 || m.operands.count > 5) return false;
    const bool validated = m.validation == TfdpaValidation::hardware_vectors;
    if (validated == ends_with(m.name, "-unvalidated")) return false;
    if (validated == std::string_view(m.validated_on).empty()) return false;
    // block scales: blocks tile the group, subblocks tile a block; product_exponent ignores the
    // scale significands, so its scale format must be a power of two (no mantissa bits);
    // subblock_sum terms reach 2^(F + 13) quanta and must stay below align_term's 2^62
    const TfdpaBlockScale& sc = m.scale;
    if (sc.application != BlockScaleApplication::none &&
        (sc.block <= 0 || m.group % sc.block != 0 || p.value.operands.empty()))
      return false;
    if (sc.application == BlockScaleApplication::product_exponent && sc.format.mantissa_bits != 0) return false;
    // the "accumulation" summary names the scale format and block (two digits): kPresetDotSummaries
    if (sc.application != BlockScaleApplication::none &&
        ((sc.format != formats::e8m0fnu && sc.format != formats::ue4m3) || sc.block < 10 || sc.block > 99))
      return false;
    if (sc.application == BlockScaleApplication::subblock_sum &&
        (sc.subblock <= 0 || sc.block % sc.subblock != 0 || m.frac_bits + 13 >= 62))
      return false;
    // late_c, late_c_pairs (issue 26 item 5): out is dest, no block scales; late_c_pairs splits L by lanes mod 4
    const bool late = m.structure == TfdpaStructure::late_c || m.structure == TfdpaStructure::late_c_pairs;
    if (late && (m.out != m.dest || sc.application != BlockScaleApplication::none ||
                 (m.structure == TfdpaStructure::late_c_pairs && m.group % 4 != 0)))
      return false;
    // AMD structures (issue 26 item 6): an f32 register and no block scales; only pairwise_f32 flushes
    if (m.structure != TfdpaStructure::fused && !late &&
        (m.dest != formats::f32 || m.out != formats::f32 || sc.application != BlockScaleApplication::none))
      return false;
    if (m.subnormals == TfdpaSubnormals::flush && m.structure != TfdpaStructure::pairwise_f32) return false;
  }
  return true;
}
static_assert(presets_consistent(), "tensor-core presets: name, validation, validated_on, operands or scales disagree");

constexpr NamePattern kDotPatterns[] = {
    {"blocked<N>", "hopper-fp8 inside, partial sums promoted to f32 every N lanes (DeepSeek-V3: blocked128)"},
    {"<preset>+blocked<N>", "a tensor-core preset inside, promoted to f32 every N lanes (hopper-fp8+blocked128)"},
};

struct Term {
  bool neg;
  std::uint64_t lo, hi;  // 128-bit significand
  int exp;
};

std::string fmt_scale_error(const TfdpaModel& tc, std::uint64_t s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(s));
  return std::string("dot: scale ") + buf + " is not " + with_article(format_name(tc.scale.format)) + " code (" +
         tc.name + " takes " + format_name(tc.scale.format) + " scales" +
         (tc.scale.format == formats::ue4m3 ? "; an 8-bit code's sign bit is ignored)" : ")");
}

std::uint64_t pairwise_sum(const std::vector<std::uint64_t>& p, std::size_t lo, std::size_t hi, RoundingSpec spec,
                           Flags& flags) {
  if (hi - lo == 1) return p[lo];
  const std::size_t mid = lo + (hi - lo) / 2;
  const std::uint64_t l = pairwise_sum(p, lo, mid, spec, flags), r = pairwise_sum(p, mid, hi, spec, flags);
  const RoundResult s = add(formats::f32, l, r, spec);
  flags |= s.flags;
  return s.code;
}

}  // namespace

const NameTable<TensorCorePreset>& tensor_core_table() {
  static constexpr NameTable<TensorCorePreset> t{"tensor-core", "tensor-core model", kPresets};
  return t;
}

const NameTable<AccumKind>& dot_model_table() {
  static constexpr NameTable<AccumKind> t{"accumulation", "accumulation model", kDotModels, kDotPatterns};
  return t;
}

const TfdpaModel& parse_mma_model(std::string_view name) { return *lookup_name(tensor_core_table(), name).value.model; }

Format result_format(const DotModel& m) {
  if (m.kind == AccumKind::tfdpa) return m.tensor_core.dest;
  return m.kind == AccumKind::fp64_fma ? formats::f64 : formats::f32;
}

std::span<const Format> operand_formats(const DotModel& m) {
  if (m.kind != AccumKind::tfdpa && m.kind != AccumKind::blocked) return {};
  for (const auto& p : kPresets)
    if (std::string_view(p.value.model->name) == m.tensor_core.name) return p.value.operands;
  return {};
}

OperandCodes operand_codes(const DotModel& m, std::span<const std::uint64_t> f32_codes) {
  for (const Format& f : operand_formats(m)) {
    OperandCodes out{f, std::vector<std::uint64_t>(f32_codes.size())};
    bool exact = true;
    for (std::size_t i = 0; i < f32_codes.size() && exact; ++i) {
      const RoundResult r = round_pack(f, unpack(formats::f32, f32_codes[i]), {Rounding::rne, Overflow::nonsat});
      // exact: the code converts back to the same FP32 code (−0 stays −0; NaN and Inf codes that the
      // operand format cannot hold, or holds differently, keep the FP32 codes)
      exact = r.flags == flag_none && round_pack(formats::f32, unpack(f, r.code)).code == f32_codes[i];
      out.codes[i] = r.code;
    }
    if (exact) return out;
  }
  return {formats::f32, std::vector<std::uint64_t>(f32_codes.begin(), f32_codes.end())};
}

namespace {
constexpr NameEntry<OperandRound> kOperandRounds[] = {
    {OperandRound::satfinite, "satfinite",
     "rne, overflow and Inf to +-max, NaN kept: any format (dot's default, as before this option)"},
    {OperandRound::cvt, "cvt",
     "the PTX cvt from f32: tf32 cvt.rna (ties away, Inf/NaN kept), f16/bf16 cvt.rn, FP8/FP6/FP4 "
     "cvt.rn.satfinite"},
    {OperandRound::truncate, "truncate",
     "tf32 only: the f32 register's low 13 bits ignored (tf32 mma fed f32 registers)"},
};

/// The formats cvt is defined for (the PTX cvt destinations from f32) and the rounding of each.
struct CvtRow {
  Format format;
  RoundingSpec spec;
};
constexpr CvtRow kCvtRows[] = {
    {formats::tf32, {Rounding::rna, Overflow::nonsat}},      {formats::f16, {Rounding::rne, Overflow::nonsat}},
    {formats::bf16, {Rounding::rne, Overflow::nonsat}},      {formats::e4m3fn, {Rounding::rne, Overflow::satfinite}},
    {formats::e5m2, {Rounding::rne, Overflow::satfinite}},   {formats::e2m3fn, {Rounding::rne, Overflow::satfinite}},
    {formats::e3m2fn, {Rounding::rne, Overflow::satfinite}}, {formats::e2m1fn, {Rounding::rne, Overflow::satfinite}},
};
const CvtRow* find_cvt(Format f) {
  for (const CvtRow& r : kCvtRows)
    if (r.format == f) return &r;
  return nullptr;
}
}  // namespace

const NameTable<OperandRound>& name_table(OperandRound) {
  static constexpr NameTable<OperandRound> t{"operand-round", "operand rounding", kOperandRounds};
  return t;
}

std::vector<std::uint64_t> round_operands(Format from, std::span<const std::uint64_t> codes, Format to,
                                          OperandRound how) {
  std::vector<std::uint64_t> out(codes.size());
  if (how == OperandRound::satfinite) {  // the rounding `dot` has always used
    for (std::size_t i = 0; i < codes.size(); ++i)
      out[i] = convert(from, codes[i], to, {Rounding::rne, Overflow::satfinite}).code;
    return out;
  }
  const std::string what = "operand rounding " + std::string(name(how));
  if (from != formats::f32 && from != formats::f16 && from != formats::bf16)
    throw Error(what + " models an f32 register: it takes f32, f16 or bf16 values, not " + format_name(from) +
                "; accepted for " + format_name(from) + " inputs: satfinite");
  const auto f32_code = [&](std::uint64_t c) { return from == formats::f32 ? c : convert(from, c, formats::f32).code; };
  if (how == OperandRound::truncate) {
    if (to != formats::tf32)
      throw Error(what +
                  " is defined for tf32 operands only (a tf32 mma ignores the low 13 bits of an f32 "
                  "register), not " +
                  format_name(to) + "; accepted for " + format_name(to) + ": satfinite" +
                  (find_cvt(to) ? ", cvt" : ""));
    for (std::size_t i = 0; i < codes.size(); ++i) out[i] = f32_code(codes[i]) >> 13;
    return out;
  }
  const CvtRow* row = find_cvt(to);
  if (row == nullptr) {
    std::string list;
    for (const CvtRow& r : kCvtRows) (list += list.empty() ? "" : " ") += format_name(r.format);
    throw Error(what + " is defined for the PTX cvt destinations " + list + ", not " + format_name(to) +
                "; accepted for " + format_name(to) + ": satfinite");
  }
  for (std::size_t i = 0; i < codes.size(); ++i) out[i] = convert(formats::f32, f32_code(codes[i]), to, row->spec).code;
  return out;
}

DotModel parse_dot_model(std::string_view name) {
  DotModel m;
  m.name = std::string(name);
  if (const auto* e = find_name(dot_model_table(), name)) {
    m.kind = e->value;
    if (m.kind == AccumKind::tfdpa) m.tensor_core = parse_mma_model(e->name);
    return m;
  }
  std::string_view inner = "hopper-fp8", blocked = name;
  if (const auto plus = name.find('+'); plus != std::string_view::npos) {
    inner = name.substr(0, plus);
    blocked = name.substr(plus + 1);
  }
  if (!iequals(blocked.substr(0, 7), "blocked") || find_name(tensor_core_table(), inner) == nullptr)
    throw_unknown_name(dot_model_table(), name);
  const std::string_view digits = blocked.substr(7);
  int n = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size() || n <= 0)
    throw NameError("bad block size in accumulation model '" + quote_input(name) +
                    "': expected blocked<N> with N a positive integer (at most 2147483647)");
  m.kind = AccumKind::blocked;
  m.block = n;
  m.tensor_core = parse_mma_model(inner);
  if (m.tensor_core.scale.application != BlockScaleApplication::none)
    throw NameError(
        "accumulation model '" + quote_input(name) + "': " + std::string(m.tensor_core.name) +
        " takes its own block scales (per " + std::to_string(m.tensor_core.scale.block) +
        " lanes) and is not combined with +blocked<N>; use it alone, or an unscaled preset inside blocked<N>");
  return m;
}

RoundResult dot_exact(Format fa, std::span<const std::uint64_t> a, Format fb, std::span<const std::uint64_t> b,
                      Format fc, std::uint64_t c, Format out, RoundingSpec spec) {
  if (a.size() != b.size())
    throw Error("dot: a has " + std::to_string(a.size()) + " elements but b has " + std::to_string(b.size()));
  std::vector<Term> terms;
  terms.reserve(a.size() + 1);
  bool any_nan = false, nan_neg = false, pinf = false, ninf = false, invalid = false, all_neg_zero = true;
  auto note_nan = [&](const Unpacked& u) {
    if (!any_nan) nan_neg = u.negative;
    any_nan = true;
  };
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Unpacked ua = unpack(fa, a[i]), ub = unpack(fb, b[i]);
    const bool neg = ua.negative != ub.negative;
    if (ua.cls == Class::nan) {
      note_nan(ua);
      continue;
    }
    if (ub.cls == Class::nan) {
      note_nan(ub);
      continue;
    }
    if (ua.cls == Class::inf || ub.cls == Class::inf) {
      if (detail::is_zero(ua) || detail::is_zero(ub)) invalid = true;
      else (neg ? ninf : pinf) = true;
      continue;
    }
    if (detail::is_zero(ua) || detail::is_zero(ub)) {
      if (!neg) all_neg_zero = false;
      continue;
    }
    all_neg_zero = false;
    const detail::Wide p = detail::mul64(ua.sig, ub.sig);
    terms.push_back({neg, p.w[0], p.w[1], ua.exp + ub.exp});
  }
  const Unpacked uc = unpack(fc, c);
  if (uc.cls == Class::nan) note_nan(uc);
  else if (uc.cls == Class::inf) (uc.negative ? ninf : pinf) = true;
  else if (detail::is_zero(uc)) {
    if (!uc.negative) all_neg_zero = false;
  } else {
    all_neg_zero = false;
    terms.push_back({uc.negative, uc.sig, 0, uc.exp});
  }

  Unpacked x;
  if (any_nan) return round_pack(out, detail::special(Class::nan, nan_neg), spec);
  if (invalid || (pinf && ninf)) {
    RoundResult r = round_pack(out, detail::special(Class::nan, false), spec);
    r.flags |= flag_invalid;
    return r;
  }
  if (pinf || ninf) return round_pack(out, detail::special(Class::inf, ninf), spec);
  if (terms.empty()) return round_pack(out, detail::special(Class::zero, all_neg_zero), spec);

  int lo = terms[0].exp, hi = terms[0].exp;
  for (const Term& t : terms) {
    lo = std::min(lo, t.exp);
    hi = std::max(hi, t.exp + 128);
  }
  detail::BigNat pos, neg;  // the positive and the negative terms, in units of 2^lo
  const std::size_t limbs = static_cast<std::size_t>(hi - lo) / 32 + 8;  // + carry room for 2^64 terms
  pos.w.reserve(limbs);
  neg.w.reserve(limbs);
  for (const Term& t : terms) (t.neg ? neg : pos).add_shifted(t.lo, t.hi, static_cast<std::size_t>(t.exp - lo));
  pos.trim();
  neg.trim();
  const int cmp = detail::BigNat::cmp(pos, neg);
  if (cmp == 0) return round_pack(out, detail::special(Class::zero, spec.rounding == Rounding::rtn), spec);
  detail::BigNat& big = cmp > 0 ? pos : neg;
  big.sub(cmp > 0 ? neg : pos);
  const auto n = static_cast<std::size_t>(big.bit_length());
  const std::size_t from = n > 64 ? n - 64 : 0;
  bool sticky = false;
  x.cls = Class::normal;
  x.negative = cmp < 0;
  x.sig = big.window(from, sticky);
  x.exp = lo + static_cast<int>(from);
  x.sticky = sticky;
  return round_pack(out, x, spec);
}

RoundResult dot(const DotModel& model, Format fa, std::span<const std::uint64_t> a, Format fb,
                std::span<const std::uint64_t> b, std::uint64_t c, std::span<const std::uint64_t> scales_a,
                std::span<const std::uint64_t> scales_b, Format fc) {
  if (a.size() != b.size())
    throw Error("dot: a has " + std::to_string(a.size()) + " elements but b has " + std::to_string(b.size()));
  const RoundingSpec spec = model.rounding;
  const Format F32 = formats::f32;
  if (fc != F32 && fc != result_format(model) && model.kind != AccumKind::exact)
    throw Error("dot: C is " + with_article(format_name(fc)) + " code, but model " + model.name + " takes C as f32" +
                (result_format(model) == F32 ? std::string() : " or " + format_name(result_format(model))) +
                " (its accumulator)");
  Flags flags = flag_none;
  switch (model.kind) {
    case AccumKind::exact: return dot_exact(fa, a, fb, b, fc, c, F32, spec);
    case AccumKind::fp32: {
      std::uint64_t acc = c;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const RoundResult r = fma(fa, a[i], fb, b[i], F32, acc, F32, spec);
        acc = r.code;
        flags |= r.flags;
      }
      return {acc, flags};
    }
    case AccumKind::fp64_fma: {
      const Format F64 = formats::f64;
      std::uint64_t acc = fc == F64 ? c : round_pack(F64, unpack(F32, c)).code;  // exact widening
      for (std::size_t i = 0; i < a.size(); ++i) {
        const RoundResult r = fma(fa, a[i], fb, b[i], F64, acc, F64, RoundingSpec{Rounding::rne});
        acc = r.code;
        flags |= r.flags;
      }
      return {acc, flags};
    }
    case AccumKind::pairwise:
    case AccumKind::kahan: {
      std::vector<std::uint64_t> p(a.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        const RoundResult r = mul(fa, a[i], fb, b[i], F32, spec);
        p[i] = r.code;
        flags |= r.flags;
      }
      if (model.kind == AccumKind::pairwise) {
        if (p.empty()) return {c, flags};
        const std::uint64_t s = pairwise_sum(p, 0, p.size(), spec, flags);
        RoundResult r = add(F32, c, s, spec);
        r.flags |= flags;
        return r;
      }
      std::uint64_t sum = c, comp = 0;
      for (const std::uint64_t pi : p) {
        const RoundResult y = sub(F32, pi, comp, spec);
        const RoundResult t = add(F32, sum, y.code, spec);
        const RoundResult d = sub(F32, t.code, sum, spec);
        comp = sub(F32, d.code, y.code, spec).code;
        sum = t.code;
        flags |= t.flags;
      }
      return {sum, flags};
    }
    case AccumKind::blocked: {
      const TfdpaModel& tc = model.tensor_core;
      const auto N = static_cast<std::size_t>(model.block);
      const std::size_t blocks = (a.size() + N - 1) / N;
      if ((!scales_a.empty() && scales_a.size() != blocks) || (!scales_b.empty() && scales_b.size() != blocks))
        throw Error("dot: blocked" + std::to_string(N) + " over " + std::to_string(a.size()) + " elements needs " +
                    std::to_string(blocks) + " scales per operand");
      std::uint64_t acc = c;
      for (std::size_t j = 0; j < blocks; ++j) {
        const std::size_t lo = j * N, len = std::min(N, a.size() - lo);
        const RoundResult part = tfdpa_dot(tc, fa, a.data() + lo, fb, b.data() + lo, len, 0);
        const std::uint64_t sa = scales_a.empty() ? kF32One : scales_a[j];
        const std::uint64_t sb = scales_b.empty() ? kF32One : scales_b[j];
        const RoundResult s = mul(F32, sa, sb, spec);
        const RoundResult r = fma(tc.dest, part.code, F32, s.code, F32, acc, F32, spec);
        acc = r.code;
        flags |= part.flags | s.flags | r.flags;
      }
      return {acc, flags};
    }
    case AccumKind::tfdpa: {
      const TfdpaModel& tc = model.tensor_core;
      const std::uint64_t c0 = fc == tc.dest ? c : round_pack(tc.dest, unpack(F32, c)).code;
      if (tc.scale.application == BlockScaleApplication::none) {
        if (!scales_a.empty() || !scales_b.empty())
          throw Error(std::string("dot: ") + tc.name + " is not block-scaled and takes no scales");
        return tfdpa_dot(tc, fa, a.data(), fb, b.data(), a.size(), c0);
      }
      const auto N = static_cast<std::size_t>(tc.scale.block);
      const std::size_t blocks = (a.size() + N - 1) / N;
      if ((!scales_a.empty() && scales_a.size() != blocks) || (!scales_b.empty() && scales_b.size() != blocks) ||
          scales_a.empty() != scales_b.empty())
        throw Error("dot: " + std::string(tc.name) + " over " + std::to_string(a.size()) + " elements needs " +
                    std::to_string(blocks) + " " + format_name(tc.scale.format) + " scales per operand (one per " +
                    std::to_string(N) + " lanes), or none for unit scales");
      for (const auto* sv : {&scales_a, &scales_b})
        for (const std::uint64_t s : *sv)
          if ((s & ~code_mask(tc.scale.format)) != 0 && !(tc.scale.format == formats::ue4m3 && s <= 0xff))
            throw Error(fmt_scale_error(tc, s));
      return tfdpa_dot(tc, fa, a.data(), fb, b.data(), a.size(), c0, scales_a.empty() ? nullptr : scales_a.data(),
                       scales_b.empty() ? nullptr : scales_b.data());
    }
  }
  return {};
}

std::vector<std::uint64_t> gemm(const DotModel& model, std::size_t m, std::size_t n, std::size_t k, Format fa,
                                std::span<const std::uint64_t> A, Format fb, std::span<const std::uint64_t> B,
                                std::span<const std::uint64_t> C, std::span<const std::uint64_t> scales_A,
                                std::span<const std::uint64_t> scales_B, Format fc) {
  const bool tc_scaled =
      model.kind == AccumKind::tfdpa && model.tensor_core.scale.application != BlockScaleApplication::none;
  const std::size_t N = tc_scaled                          ? static_cast<std::size_t>(model.tensor_core.scale.block)
                        : model.kind == AccumKind::blocked ? static_cast<std::size_t>(model.block)
                                                           : 0;
  const std::size_t nb = N == 0 ? 0 : (k + N - 1) / N;
  if ((!scales_A.empty() || !scales_B.empty()) && N == 0) throw Error("gemm: model " + model.name + " takes no scales");
  if ((!scales_A.empty() && scales_A.size() != m * nb) || (!scales_B.empty() && scales_B.size() != nb * n))
    throw Error("gemm: scales must be m x " + std::to_string(nb) + " (A: " + std::to_string(m * nb) + ") and " +
                std::to_string(nb) + " x n (B: " + std::to_string(nb * n) + ") for k = " + std::to_string(k) +
                " and one scale per " + std::to_string(N) + " lanes; got " + std::to_string(scales_A.size()) + " and " +
                std::to_string(scales_B.size()));
  if (A.size() != m * k || B.size() != k * n || (!C.empty() && C.size() != m * n))
    throw Error("gemm: shapes do not match m=" + std::to_string(m) + " n=" + std::to_string(n) +
                " k=" + std::to_string(k) + " (A " + std::to_string(A.size()) + ", B " + std::to_string(B.size()) +
                ", C " + std::to_string(C.size()) + " elements)");
  std::vector<std::uint64_t> D(m * n), col(k), col_scales(scales_B.empty() ? 0 : nb);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t p = 0; p < k; ++p) col[p] = B[p * n + j];
    for (std::size_t p = 0; p < col_scales.size(); ++p) col_scales[p] = scales_B[p * n + j];
    for (std::size_t i = 0; i < m; ++i)
      D[i * n + j] =
          dot(model, fa, A.subspan(i * k, k), fb, col, C.empty() ? 0 : C[i * n + j],
              scales_A.empty() ? std::span<const std::uint64_t>{} : scales_A.subspan(i * nb, nb), col_scales, fc)
              .code;
  }
  return D;
}

}  // namespace minifloat
