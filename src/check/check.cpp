// SPDX-License-Identifier: Apache-2.0
// check.cpp: the kernel checker (check.hpp): generators from the format tables, bit-for-bit
// comparison with the one rounding engine, shrinking, diagnosis against a panel of alternatives.
#include "minifloat/check/check.hpp"
#include "minifloat/check/run.hpp"
#include "check_rng.hpp"
#include "report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <unordered_set>

#include "minifloat/convert_array.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/decimal.hpp"
#include "minifloat/tables.hpp"

namespace minifloat::check {

namespace {

constexpr NameEntry<CaseClass> kClassEntries[] = {
    {CaseClass::exact, "exact", "every representable target value, exactly, in the source type"},
    {CaseClass::midpoint, "midpoint", "the rounding midpoints between consecutive target values"},
    {CaseClass::near_midpoint, "near_midpoint", "1..ulps source ulps on either side of each midpoint"},
    {CaseClass::overflow_threshold, "overflow_threshold",
     "every overflow threshold (per mode and policy) and max finite, +-1..ulps source ulps"},
    {CaseClass::subnormal_edge, "subnormal_edge",
     "min subnormal / 2, min subnormal, min normal, +-1..ulps source ulps"},
    {CaseClass::zero, "zero", "+0 and -0"},
    {CaseClass::inf, "inf", "+Inf and -Inf"},
    {CaseClass::nan, "nan", "NaNs of both signs, quiet and signalling, payload patterns"},
    {CaseClass::out_of_range, "out_of_range", "far beyond max finite, far below half the min subnormal"},
    {CaseClass::exponent_pattern, "exponent_pattern", "TestFloat-3 exponents x significand patterns"},
    {CaseClass::sr_switch, "sr_switch", "SR: random words at and around each input's switch point, 0, all ones"},
    {CaseClass::exhaustive, "exhaustive", "every code of a 16-bit source (f16, bf16)"},
    {CaseClass::random, "random", "uniform source bits and uniform values inside the target range"},
};

std::string short_value(Format f, std::uint64_t code) {
  const Unpacked u = unpack(f, code);
  if (u.cls == Class::nan) return (u.negative && f.is_signed) ? "-NaN" : "NaN";
  char buf[64];
  std::snprintf(buf, sizeof buf, f.bits > 32 ? "%.17g" : "%.9g", to_double(f, code));
  return buf;
}
std::string short_exact(const Unpacked& u) {
  if (u.cls == Class::nan) return "NaN";
  return to_short_exact(u, 14);
}

/// Exact comparison of two finite non-negative exact values: −1, 0, 1.
int compare_mag(const Unpacked& a, const Unpacked& b) {
  const bool az = a.cls == Class::zero || a.sig == 0, bz = b.cls == Class::zero || b.sig == 0;
  if (az || bz) return az && bz ? 0 : (az ? -1 : 1);
  const int ea = a.exp + detail::bit_width(a.sig), eb = b.exp + detail::bit_width(b.sig);
  if (ea != eb) return ea < eb ? -1 : 1;
  // same top exponent: align the significands at bit 63
  const std::uint64_t sa = a.sig << (64 - detail::bit_width(a.sig)), sb = b.sig << (64 - detail::bit_width(b.sig));
  if (sa != sb) return sa < sb ? -1 : 1;
  if (a.sticky != b.sticky) return a.sticky ? 1 : -1;
  return 0;
}

/// The interval of source magnitude codes [lo, hi] around an exact value p (lo == hi when p is
/// representable in the source; else the codes just below and above).
struct SrcSpan {
  std::uint64_t lo, hi;
};

/// Everything one target needs, computed once.
struct Ctx {
  Target t;
  Format S, T;
  std::uint64_t s_max_mag;  ///< the largest finite magnitude code of S
  FormatLimits lim;
  std::vector<MidpointRow> mids;
  std::vector<std::int64_t> mid_of_lower;  ///< lower code → midpoint row index, or −1
  std::vector<SrcSpan> mid_src;
  struct Point {
    Unpacked v;
    SrcSpan s;
  };
  std::vector<Point> overflow_points;   ///< thresholds and max finite (positive)
  std::vector<Point> subnormal_points;  ///< min_sub/2, min_sub, min normal (or min/2, min)
  Unpacked top;                         ///< the largest overflow threshold

  explicit Ctx(const Target& tt) : t(tt), S(tt.from), T(tt.to) {
    validate(tt);
    s_max_mag = max_finite_magnitude(S);
    lim = format_limits(T);
    mids = midpoint_table(T);
    mid_of_lower.assign(std::size_t{1} << T.bits, -1);
    for (std::size_t i = 0; i < mids.size(); ++i) {
      mid_of_lower[mids[i].lower] = static_cast<std::int64_t>(i);
      mid_src.push_back(to_src(mids[i].midpoint));
    }
    top = lim.max_finite;
    auto add = [&](std::vector<Point>& v, const Unpacked& u) {
      for (const Point& p : v)
        if (compare_mag(p.v, u) == 0) return;
      v.push_back({u, to_src(u)});
    };
    add(overflow_points, lim.max_finite);
    for (const OverflowRow& r : overflow_table(T))
      if (!r.negative) {
        Unpacked th = r.threshold;
        th.negative = false;
        add(overflow_points, th);
        if (compare_mag(th, top) > 0) top = th;
      }
    if (lim.has_subnormals) {
      Unpacked half = lim.min_subnormal;
      half.exp -= 1;
      add(subnormal_points, half);
      add(subnormal_points, lim.min_subnormal);
    } else {
      Unpacked half = lim.min_normal;
      half.exp -= 1;
      add(subnormal_points, half);
    }
    add(subnormal_points, lim.min_normal);
  }

  /// The source magnitude code of |u| rounded by `r` (clamped to the finite range).
  std::uint64_t src_code(Unpacked u, Rounding r) const {
    u.negative = false;
    const RoundResult rr =
        round_pack(S, u, RoundingSpec{.rounding = r, .overflow = Overflow::satfinite}, profiles::ocp);
    std::uint64_t c = rr.code & magnitude_mask(S);
    if (classify(S, c) == Class::inf || classify(S, c) == Class::nan) c = s_max_mag;
    return c;
  }
  SrcSpan to_src(const Unpacked& u) const { return {src_code(u, Rounding::rtz), src_code(u, Rounding::rtp)}; }

  std::uint64_t mag(std::uint64_t x) const { return x & magnitude_mask(S); }
  std::uint64_t with_sign(std::uint64_t m, bool neg) const { return m | (neg && S.is_signed ? sign_mask(S) : 0); }

  /// Whether magnitude code m lies within `k` ulps of the span (k − 1 beyond an inexact span's ends).
  static bool near(std::uint64_t m, const SrcSpan& s, int k) {
    const std::uint64_t kk = static_cast<std::uint64_t>(s.lo == s.hi ? k : k - 1);
    const std::uint64_t lo = s.lo >= kk ? s.lo - kk : 0;
    return m >= lo && m <= s.hi + kk;
  }
  /// Magnitude codes k ulps around a span (clamped to [0, s_max_mag]).
  void around(const SrcSpan& s, int k, std::vector<std::uint64_t>& out, std::vector<std::uint64_t>* centre) const {
    if (s.lo == s.hi) {
      if (centre) centre->push_back(s.lo);
      for (int d = 1; d <= k; ++d) {
        if (s.lo >= static_cast<std::uint64_t>(d)) out.push_back(s.lo - static_cast<std::uint64_t>(d));
        if (s.lo + static_cast<std::uint64_t>(d) <= s_max_mag) out.push_back(s.lo + static_cast<std::uint64_t>(d));
      }
    } else {
      for (int d = 0; d < k; ++d) {
        if (s.lo >= static_cast<std::uint64_t>(d)) out.push_back(s.lo - static_cast<std::uint64_t>(d));
        if (s.hi + static_cast<std::uint64_t>(d) <= s_max_mag) out.push_back(s.hi + static_cast<std::uint64_t>(d));
      }
    }
  }

  /// The target code at or below |x| (rtz, saturating): the lower neighbour.
  std::uint64_t lower_code(const Unpacked& x) const {
    Unpacked m = x;
    m.negative = false;
    return round_pack(T, m, RoundingSpec{.rounding = Rounding::rtz, .overflow = Overflow::satfinite}, profiles::ocp)
               .code &
           magnitude_mask(T);
  }
};

int unbiased_exponent(Format f, std::uint64_t code) {
  const std::uint64_t e = (code & magnitude_mask(f)) >> f.mantissa_bits;
  if (e == 0 && f.has_zero) return emin(f);
  return static_cast<int>(e) - f.bias;
}

CaseClass classify_with(const Ctx& c, std::uint64_t x, int k) {
  const Unpacked u = unpack(c.S, x);
  if (u.cls == Class::nan) return CaseClass::nan;
  if (u.cls == Class::inf) return CaseClass::inf;
  if (u.cls == Class::zero) return CaseClass::zero;
  Unpacked a = u;
  a.negative = false;
  const std::uint64_t m = c.mag(x);
  const RoundResult r = round_pack(c.T, a, RoundingSpec{.rounding = Rounding::rtz, .overflow = Overflow::satfinite});
  if ((r.flags & (flag_inexact | flag_overflow)) == 0) return CaseClass::exact;
  const std::uint64_t lo = c.lower_code(a);
  const std::int64_t mi = lo < c.mid_of_lower.size() ? c.mid_of_lower[lo] : -1;
  if (mi >= 0 && compare_mag(a, c.mids[static_cast<std::size_t>(mi)].midpoint) == 0) return CaseClass::midpoint;
  for (const auto& p : c.overflow_points)
    if (Ctx::near(m, p.s, k)) return CaseClass::overflow_threshold;
  for (const auto& p : c.subnormal_points)
    if (Ctx::near(m, p.s, k)) return CaseClass::subnormal_edge;
  if (mi >= 0 && Ctx::near(m, c.mid_src[static_cast<std::size_t>(mi)], k)) return CaseClass::near_midpoint;
  if (lo > 0 && c.mid_of_lower.size() > lo - 1) {  // just above a code: the midpoint below may be close
    const std::int64_t mb = c.mid_of_lower[lo - 1];
    if (mb >= 0 && Ctx::near(m, c.mid_src[static_cast<std::size_t>(mb)], k)) return CaseClass::near_midpoint;
  }
  if (compare_mag(a, c.top) > 0) return CaseClass::out_of_range;
  if (compare_mag(a, c.subnormal_points.front().v) < 0) return CaseClass::out_of_range;
  return CaseClass::random;
}

/// The smallest random word at which the SR result differs from the result at 0 (binary search;
/// the up-decision is monotone in the word), or nullopt when no word changes it.
std::optional<std::uint64_t> sr_switch(const Target& t, std::uint64_t input) {
  std::uint64_t hi_max = ~std::uint64_t{0};
  if (t.spec.sr_variant == SrVariant::equal) hi_max = 1;
  else if (t.spec.sr_variant != SrVariant::exact)
    hi_max = (t.spec.sr_bits >= 64) ? ~std::uint64_t{0} : ((std::uint64_t{1} << t.spec.sr_bits) - 1);
  auto res = [&](std::uint64_t r) { return convert(t.from, input, t.to, t.spec, t.profile, r).code; };
  const std::uint64_t r0 = res(0);
  if (res(hi_max) == r0) return std::nullopt;
  std::uint64_t lo = 0, hi = hi_max;  // res(lo) == r0, res(hi) != r0
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (res(mid) == r0) lo = mid;
    else hi = mid;
  }
  return hi;
}

bool codes_match(const Target& t, std::uint64_t got, std::uint64_t want, NanCompare nc) {
  if (got == want) return true;
  if (nc == NanCompare::any_nan && (got & ~code_mask(t.to)) == 0 && classify(t.to, got) == Class::nan &&
      classify(t.to, want) == Class::nan)
    return true;
  return false;
}

/// One alternative semantics of the diagnosis panel.
struct Alt {
  std::string name, bug;
  Target t;                   ///< the conversion (from is the source or the via format)
  std::optional<Format> via;  ///< double rounding: source → via (rne, nonsat, t's profile) → target
  enum class Ftz : std::uint8_t { none, inputs, outputs } ftz = Ftz::none;
  bool swap_pairs =
      false;  ///< the packing's wrong bit order (PackOrder::swapped): fp4x2 nibbles exchanged (T16), fp6_dense MSB-first
  std::optional<std::uint64_t> nan_to =
      std::nullopt;  ///< a NaN input gives this code (a clamp or a select before the cast)
  std::uint64_t eval(const Target& base, const Case& c) const {
    std::uint64_t in = c.input;
    Format from = base.from;
    if (nan_to && classify(from, in) == Class::nan) return *nan_to;
    if (ftz == Ftz::inputs && classify(from, in) == Class::subnormal) in &= sign_mask(from);
    if (via) {
      in = convert(from, in, *via, RoundingSpec{}, t.profile).code;
      from = *via;
    }
    std::uint64_t code = convert(from, in, t.to, t.spec, t.profile, c.rbits).code;
    if (ftz == Ftz::outputs && classify(t.to, code) == Class::subnormal)
      code = has_negative_zero(t.to) ? (code & sign_mask(t.to)) : 0;
    return code;
  }
};

std::string rname(Rounding r) { return std::string(name(r)); }
std::string oname(Overflow o) { return std::string(name(o)); }

std::vector<Alt> panel(const Target& t) {
  std::vector<Alt> v;
  v.push_back({"the target", "", t, std::nullopt});
  const bool sr = t.spec.rounding == Rounding::sr;
  const bool e8m0 = t.to == formats::e8m0fnu;
  for (const auto& e : name_table(Rounding{}).entries) {
    if (e.value == t.spec.rounding || e.value == Rounding::sr) continue;
    Target a = t;
    a.spec.rounding = e.value;
    std::string bug;
    const Rounding want = t.spec.rounding;
    if (sr) bug = "deterministic rounding instead of stochastic";
    else if (e8m0 && want == Rounding::rtp && e.value == Rounding::rtz) bug = "E8M0 floor instead of RCEIL (T10, T14)";
    else if (e8m0 && want == Rounding::rtz && e.value == Rounding::rtp) bug = "E8M0 ceil instead of floor (T10)";
    else if (want == Rounding::rne && e.value == Rounding::rna) bug = "ties away instead of even (T1, T12)";
    else if (want == Rounding::rna && e.value == Rounding::rne) bug = "ties to even instead of away (T12)";
    else if (e.value == Rounding::rtz) bug = "truncation instead of " + rname(want);
    else bug = rname(e.value) + " instead of " + rname(want);
    v.push_back({std::string(e.name), bug, a, std::nullopt});
  }
  if (sr) {
    for (const auto& e : name_table(SrVariant{}).entries) {
      if (e.value == t.spec.sr_variant) continue;
      Target a = t;
      a.spec.sr_variant = e.value;
      v.push_back({"sr " + std::string(e.name), "another SR variant (T17)", a, std::nullopt});
    }
  }
  for (const auto& e : name_table(Overflow{}).entries) {
    if (e.value == t.spec.overflow) continue;
    Target a = t;
    a.spec.overflow = e.value;
    std::string bug;
    if (e.value == Overflow::nonsat) bug = "overflow to Inf/NaN instead of saturation (T2, T4)";
    else if (t.spec.overflow == Overflow::nonsat) bug = "saturation instead of overflow (T2, T4)";
    else bug = "Inf handled as " + oname(e.value) + " (T4)";
    v.push_back({std::string(e.name), bug, a, std::nullopt});
  }
  for (const auto& e : profile_table().entries) {
    if (e.value == t.profile) continue;
    Target a = t;
    a.profile = e.value;
    v.push_back({"profile " + std::string(e.name),
                 "the implementation choices of " + std::string(e.name) + " (spec-digest §9)", a, std::nullopt});
  }
  for (Format via : {formats::bf16, formats::f16, formats::f32}) {
    if (via == t.from || via == t.to || via.bits >= t.from.bits) continue;
    const std::string vn = format_name(via);
    v.push_back({rname(t.spec.rounding) + " via " + vn, "double rounding through " + vn + " (T11)", t, via});
  }
  {
    Alt a{"ftz inputs", "flush-to-zero of subnormal inputs (DAZ, T15)", t, std::nullopt};
    a.ftz = Alt::Ftz::inputs;
    v.push_back(a);
    Alt b{"ftz outputs", "flush-to-zero of subnormal results (FTZ, T15)", t, std::nullopt};
    b.ftz = Alt::Ftz::outputs;
    v.push_back(b);
  }
  if (t.packing == Packing::fp4x2) {
    Alt a{"nibbles swapped", "wrong FP4 nibble order: case 2j in the high nibble (T16)", t, std::nullopt};
    a.swap_pairs = true;
    v.push_back(a);
  }
  if (t.packing == Packing::fp6_dense) {
    Alt a{"fp6 msb-first", "wrong FP6 bit order: an MSB-first bit stream, case 4g in the top bits of byte 3g", t,
          std::nullopt};
    a.swap_pairs = true;
    v.push_back(a);
  }
  // NaN inputs sent to a finite code: fminf(fmaxf(x, -max), max) gives -max (fmaxf returns the number),
  // fmaxf(fminf(x, max), -max) gives +max, a select or a cast through an integer gives +0. Offered where
  // they differ from the target's NaN results.
  if (has_nan(t.from)) {
    const std::uint64_t max_code = max_finite_magnitude(t.to);
    const auto target_nan = [&](bool negative) {
      return convert(t.from,
                     from_double(negative ? -std::numeric_limits<double>::quiet_NaN()
                                          : std::numeric_limits<double>::quiet_NaN(),
                                 t.from, RoundingSpec{})
                         .code,
                     t.to, t.spec, t.profile)
          .code;
    };
    const std::uint64_t pos = target_nan(false), neg = target_nan(true);
    const auto offer = [&](std::string name, std::string bug, std::uint64_t code) {
      if (pos == code && neg == code) return;
      Alt a{std::move(name), std::move(bug), t, std::nullopt};
      a.nan_to = code;
      v.push_back(a);
    };
    offer("NaN to +max", "NaN clamped to +max before the cast: fmaxf(fminf(x, max), -max) (T5)", max_code);
    if (t.to.is_signed)
      offer("NaN to -max", "NaN clamped to -max before the cast: fminf(fmaxf(x, -max), max) (T5)",
            max_code | sign_mask(t.to));
    if (t.to.has_zero) offer("NaN to 0", "NaN sent to +0 (a select or an integer cast before the conversion) (T5)", 0);
  }
  if (has_nan(t.to)) {
    Target a = t;
    a.profile.nan_sign = a.profile.nan_sign == NanSign::preserve ? NanSign::positive : NanSign::preserve;
    v.push_back({a.profile.nan_sign == NanSign::positive ? "NaN sign dropped" : "NaN sign kept", "NaN sign (T5)", a,
                 std::nullopt});
    if (t.to.specials == Specials::ieee) {
      Target b = t;
      b.profile.nan_payload = b.profile.nan_payload == NanPayload::quiet ? NanPayload::all_ones : NanPayload::quiet;
      v.push_back({b.profile.nan_payload == NanPayload::all_ones ? "NaN all-ones payload" : "NaN quiet payload",
                   "NaN payload (T5)", b, std::nullopt});
    }
  }
  return v;
}

Diagnosis diagnose(const Target& t, std::span<const Case> cases, std::span<const std::uint64_t> got, NanCompare nc) {
  Diagnosis d;
  const std::vector<Alt> alts = panel(t);
  for (const Alt& a : alts) {
    Alternative r{a.name, a.bug, 0, cases.size()};
    if (a.swap_pairs && t.packing == Packing::fp6_dense) {  // each group of 4 written MSB-first, read as dense
      for (std::size_t g = 0; g < cases.size(); g += 4) {
        std::uint8_t c[4] = {0, 0, 0, 0};  // a missing partner packs as 0
        for (std::size_t l = 0; l < 4 && g + l < cases.size(); ++l)
          c[l] = static_cast<std::uint8_t>(a.eval(t, cases[g + l]) & 0x3f);
        const std::vector<std::uint8_t> seen =
            unpack_codes(Packing::fp6_dense, pack_codes(Packing::fp6_dense, c, PackOrder::swapped), 4);
        for (std::size_t l = 0; l < 4 && g + l < cases.size(); ++l)
          if (codes_match(t, got[g + l], seen[l], nc)) ++r.agree;
      }
      d.ranked.push_back(std::move(r));
      continue;
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::size_t j = a.swap_pairs ? (i ^ 1) : i;
      const std::uint64_t want = j < cases.size() ? a.eval(t, cases[j]) : 0;  // a missing partner packs as 0
      if (codes_match(t, got[i], want, nc)) ++r.agree;
    }
    d.ranked.push_back(std::move(r));
  }
  rank_diagnosis(d, "cases");
  return d;
}

/// Candidates simpler than `c` (same sign or positive, fewer significand bits, exponent nearer 0, neighbours).
std::vector<std::uint64_t> shrink_inputs(const Ctx& ctx, std::uint64_t x) {
  const Format S = ctx.S;
  std::vector<std::uint64_t> v;
  const bool neg = (x & sign_mask(S)) != 0 && S.is_signed;
  const std::uint64_t m = ctx.mag(x);
  if (neg) v.push_back(m);
  const std::uint64_t mant = m & mantissa_mask(S);
  const std::uint64_t efield = m >> S.mantissa_bits;
  for (int b = 0; b < S.mantissa_bits; ++b)
    if ((mant >> b) & 1) {
      v.push_back(ctx.with_sign(m & ~(std::uint64_t{1} << b), neg));
      v.push_back(ctx.with_sign(m & ~((std::uint64_t{2} << b) - 1), neg));  // clear bits b..0
    }
  const std::uint64_t ebias = static_cast<std::uint64_t>(S.bias > 0 ? S.bias : 0);
  if (efield != 0 && efield != ebias) {
    const std::uint64_t e2 = efield > ebias ? efield - 1 : efield + 1;
    const std::uint64_t m2 = (e2 << S.mantissa_bits) | mant;
    if (m2 <= ctx.s_max_mag) v.push_back(ctx.with_sign(m2, neg));
  }
  if (m > 0) v.push_back(ctx.with_sign(m - 1, neg));
  if (m < ctx.s_max_mag) v.push_back(ctx.with_sign(m + 1, neg));
  return v;
}

struct Key {
  std::uint64_t k, input, rbits;
  friend bool operator<(const Key& a, const Key& b) {
    return a.k != b.k ? a.k < b.k : (a.input != b.input ? a.input < b.input : a.rbits < b.rbits);
  }
};
Key key_of(const Target& t, const Case& c) { return {simplicity(t, c), c.input, c.rbits}; }

std::string pow2_text(double d) {
  int e = 0;
  const double fr = std::frexp(d, &e);
  char buf[48];
  if (fr == 0.5) std::snprintf(buf, sizeof buf, "2^%d", e - 1);
  else std::snprintf(buf, sizeof buf, "%.3g", d);
  return buf;
}

std::string why_text(const Ctx& ctx, const Case& c) {
  const Target& t = ctx.t;
  const Unpacked u = unpack(t.from, c.input);
  std::string why;
  if (u.cls == Class::nan) return "NaN input";
  if (u.cls == Class::inf) return std::string(u.negative ? "-" : "+") + "Inf under " + oname(t.spec.overflow);
  if (u.cls == Class::zero) return std::string(u.negative ? "-0" : "+0");
  if (!t.to.is_signed && u.negative) return "negative into unsigned " + format_name(t.to);
  Unpacked a = u;
  a.negative = false;
  const std::uint64_t lo = ctx.lower_code(a);
  Unpacked L = unpack(t.to, lo), U = L, M = L;
  if (L.cls == Class::zero) {  // the first step above zero
    const Unpacked first = ctx.lim.has_subnormals ? ctx.lim.min_subnormal : ctx.lim.min_normal;
    U = first;
    M = first;
    M.exp -= 1;
  } else {
    U.sig = L.sig + 1;
    M.sig = 2 * L.sig + 1;
    M.exp = L.exp - 1;
  }
  const bool beyond = compare_mag(a, ctx.lim.max_finite) > 0;
  if (compare_mag(a, L) == 0 && !beyond) return "exact value";
  const std::string lu = short_exact(L) + "|" + short_exact(U);
  const int cm = compare_mag(a, M);
  if (cm == 0) {
    why = "tie " + lu;
    if (t.spec.rounding == Rounding::rne) why += " -> even";
    else if (t.spec.rounding == Rounding::rna) why += " -> away";
  } else {
    const double d =
        std::fabs(to_double(t.from, c.input & magnitude_mask(t.from)) - std::ldexp(static_cast<double>(M.sig), M.exp));
    why = pow2_text(d) + (cm > 0 ? " above" : " below") + " midpoint " + short_exact(M) + " (" + lu + ")";
  }
  if (beyond) why += ", beyond max " + short_exact(ctx.lim.max_finite) + " under " + oname(t.spec.overflow);
  if (t.spec.rounding == Rounding::sr) {
    if (const auto sw = sr_switch(t, c.input)) {
      char buf[80];
      std::snprintf(buf, sizeof buf, "; rbits 0x%llx, switch at 0x%llx", static_cast<unsigned long long>(c.rbits),
                    static_cast<unsigned long long>(*sw));
      why += buf;
    }
  }
  return why;
}

std::string reproduce_text(const Target& t, const Case& c) {
  std::string s = "minifloat encode -f " + format_name(t.to) + " -r " + rname(t.spec.rounding) + " -o " +
                  oname(t.spec.overflow) + " -p " + std::string(profile_name(t.profile));
  if (t.spec.rounding == Rounding::sr) {
    s += " --sr-variant " + std::string(name(t.spec.sr_variant));
    if (t.spec.sr_variant != SrVariant::exact && t.spec.sr_variant != SrVariant::equal)
      s += " --sr-bits " + std::to_string(t.spec.sr_bits);
    char buf[40];
    std::snprintf(buf, sizeof buf, " --rbits 0x%llx", static_cast<unsigned long long>(c.rbits));
    s += buf;
  }
  return s + " --from " + format_name(t.from) + " " + code_hex(c.input, t.from.bits);
}

Mismatch make_mismatch(const Ctx& ctx, const Case& c, std::uint64_t got, std::uint64_t failures) {
  const RoundResult e = expected(ctx.t, c);
  return Mismatch{c, got, e.code, e.flags, failures, why_text(ctx, c), reproduce_text(ctx.t, c)};
}

/// Run `kernel` on `in`, one code per case in `out`, unpacking packed bytes (fp4x2, fp6_dense; the
/// count is padded with +0 cases to whole groups).
void run_kernel(const BatchKernel& kernel, const Target& t, std::span<const Case> in, std::span<std::uint64_t> out) {
  if (t.packing == Packing::none) {
    kernel(in, out);
    return;
  }
  const std::size_t g = packing_group(t.packing);
  std::vector<Case> padded(in.begin(), in.end());
  while (padded.size() % g) padded.push_back(Case{0, 0, CaseClass::zero});
  std::vector<std::uint64_t> words(padded.size(), 0);
  kernel(std::span<const Case>(padded), std::span<std::uint64_t>(words));
  std::vector<std::uint8_t> bytes(padded.size() / g * packing_group_bytes(t.packing));
  for (std::size_t j = 0; j < bytes.size(); ++j) bytes[j] = static_cast<std::uint8_t>(words[j]);
  const std::vector<std::uint8_t> codes = unpack_codes(t.packing, bytes, padded.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = codes[i];
}

/// The elementwise checker as a run.hpp Domain: cases and codes of the first pass, shrinking by rerunning
/// the kernel (each candidate packed with +0 partners, so its result does not depend on another candidate).
struct ElementwiseDomain {
  using Case = check::Case;
  using Got = std::uint64_t;
  using Key = check::Key;
  const Ctx& ctx;
  std::span<const Case> cases;
  std::span<const std::uint64_t> got;
  const Options& o;
  const BatchKernel& kernel;

  std::size_t size() const { return cases.size(); }
  std::size_t classes() const { return std::size(kClassEntries); }
  const Case& case_at(std::size_t i) const { return cases[i]; }
  std::size_t class_at(std::size_t i) const { return static_cast<std::size_t>(cases[i].cls); }
  Got got_at(std::size_t i) const { return got[i]; }
  bool passes(const Case& c, Got g) const { return codes_match(ctx.t, g, expected(ctx.t, c).code, o.nan_compare); }
  Key key(const Case& c) const { return key_of(ctx.t, c); }
  /// A failing case's class of input (classify_with) must not change while it shrinks.
  bool admissible(std::size_t, const Case& c, Got, const Case& y, Got) const {
    return classify_with(ctx, y.input, o.gen.ulps) == classify_with(ctx, c.input, o.gen.ulps);
  }
  std::vector<Case> candidates(const Case& c) const {
    const Target& t = ctx.t;
    std::vector<Case> cand;
    std::optional<std::int64_t> offset;  // an sr_switch case keeps its place relative to the switch
    if (c.cls == CaseClass::sr_switch)
      if (const auto sw = sr_switch(t, c.input)) offset = static_cast<std::int64_t>(c.rbits - *sw);
    for (std::uint64_t in : shrink_inputs(ctx, c.input)) {
      Case n{in, c.rbits, c.cls};
      if (offset) {
        const auto sw = sr_switch(t, in);
        if (!sw) continue;
        n.rbits = *sw + static_cast<std::uint64_t>(*offset);
      }
      cand.push_back(n);
    }
    if (t.spec.rounding == Rounding::sr && !offset && c.rbits != 0)
      cand.push_back({c.input, c.rbits & (c.rbits - 1), c.cls});  // fewer random bits set
    return cand;
  }
  std::vector<Got> rerun(std::span<const Case> cand) const {
    const Target& t = ctx.t;
    std::vector<std::uint64_t> out(cand.size(), 0);
    if (t.packing == Packing::none) {
      kernel(cand, std::span<std::uint64_t>(out));
      return out;
    }
    const std::size_t g = packing_group(t.packing);
    std::vector<Case> paired;
    for (const Case& c : cand) {
      paired.push_back(c);
      for (std::size_t l = 1; l < g; ++l) paired.push_back(Case{0, 0, CaseClass::zero});
    }
    std::vector<std::uint64_t> po(paired.size(), 0);
    run_kernel(kernel, t, paired, po);
    for (std::size_t i = 0; i < cand.size(); ++i) out[i] = po[g * i];
    return out;
  }
};
static_assert(Domain<ElementwiseDomain>);

Report evaluate_impl(const Ctx& ctx, std::span<const Case> cases, std::span<const std::uint64_t> got, const Options& o,
                     const BatchKernel& rerun, std::uint64_t calls) {
  const Target& t = ctx.t;
  if (cases.size() != got.size())
    throw Error("check: " + std::to_string(cases.size()) + " cases but " + std::to_string(got.size()) + " outputs");
  const ElementwiseDomain d{ctx, cases, got, o, rerun};
  const ShrinkPlan plan = shrink_plan(o, static_cast<bool>(rerun));
  const auto found = run_domain(d, plan);
  Report r;
  r.target = t;
  r.tested = cases.size();
  r.failed = found.failed;
  r.kernel_calls = calls + found.shrink_calls;
  for (const auto& m : found.minimal) r.minimal.push_back(make_mismatch(ctx, m.c, m.got, m.failures));
  if (o.diagnose == Options::Diagnose::yes) r.diagnosis = diagnose(t, cases, got, o.nan_compare);
  return r;
}

}  // namespace

std::size_t packing_group(Packing p) noexcept {
  switch (p) {
    case Packing::none: return 1;
    case Packing::fp4x2: return 2;
    case Packing::fp6_dense: return 4;
  }
  return 1;
}
std::size_t packing_group_bytes(Packing p) noexcept { return p == Packing::fp6_dense ? 3 : 1; }
int packing_code_bits(Packing p) noexcept { return p == Packing::fp4x2 ? 4 : p == Packing::fp6_dense ? 6 : 0; }

std::vector<std::uint8_t> pack_codes(Packing p, std::span<const std::uint8_t> codes, PackOrder order) {
  const std::size_t g = packing_group(p), gb = packing_group_bytes(p);
  const int bits = packing_code_bits(p);
  std::vector<std::uint8_t> out((codes.size() + g - 1) / g * gb, 0);
  if (p == Packing::none) {
    std::copy(codes.begin(), codes.end(), out.begin());
    return out;
  }
  for (std::size_t i = 0; i < codes.size(); ++i)
    if ((codes[i] >> bits) != 0)
      throw Error("pack_codes: code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                  " is wider than " + std::to_string(bits) + " bits (" + std::string(name(p)) + ")");
  for (std::size_t j = 0; j * g < codes.size(); ++j) {
    std::uint32_t c[4] = {0, 0, 0, 0};
    for (std::size_t l = 0; l < g && j * g + l < codes.size(); ++l) c[l] = codes[j * g + l];
    std::uint8_t* o = out.data() + j * gb;
    if (p == Packing::fp4x2) {
      o[0] = static_cast<std::uint8_t>(order == PackOrder::specified ? (c[0] | c[1] << 4) : (c[1] | c[0] << 4));
    } else {  // fp6_dense: 24 bits, LSB-first (case 0 in bits 0..5) or MSB-first (case 0 in bits 18..23, byte 0 on top)
      const std::uint32_t w = order == PackOrder::specified ? (c[0] | c[1] << 6 | c[2] << 12 | c[3] << 18)
                                                            : (c[3] | c[2] << 6 | c[1] << 12 | c[0] << 18);
      const int sh[3] = {order == PackOrder::specified ? 0 : 16, 8, order == PackOrder::specified ? 16 : 0};
      for (int b = 0; b < 3; ++b) o[b] = static_cast<std::uint8_t>(w >> sh[b]);
    }
  }
  return out;
}

std::vector<std::uint8_t> unpack_codes(Packing p, std::span<const std::uint8_t> bytes, std::size_t count) {
  const std::size_t g = packing_group(p), gb = packing_group_bytes(p);
  if (bytes.size() != (count + g - 1) / g * gb)
    throw Error("unpack_codes: " + std::to_string(bytes.size()) + " bytes do not hold " + std::to_string(count) + " " +
                std::string(name(p)) + " codes");
  std::vector<std::uint8_t> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* o = bytes.data() + i / g * gb;
    if (p == Packing::none) out[i] = o[0];
    else if (p == Packing::fp4x2) out[i] = static_cast<std::uint8_t>((o[0] >> (4 * (i % 2))) & 0xf);
    else out[i] = static_cast<std::uint8_t>(((o[0] | o[1] << 8 | o[2] << 16) >> (6 * (i % 4))) & 0x3f);
  }
  return out;
}

const NameTable<CaseClass>& name_table(CaseClass) {
  static constexpr NameTable<CaseClass> t{"probe-class", "probe class", kClassEntries};
  return t;
}

const NameTable<NanCompare>& name_table(NanCompare) {
  static constexpr NameEntry<NanCompare> kEntries[] = {
      {NanCompare::bits, "bits", "bit for bit: a NaN with another sign or payload is a mismatch (the default)"},
      {NanCompare::any_nan, "any", "any NaN code matches any NaN code (TestFloat without -checkNaNs)"},
  };
  static constexpr NameTable<NanCompare> t{"nan-compare", "NaN comparison", kEntries};
  return t;
}

std::string describe(const Target& t) {
  std::string s = format_name(t.from) + " -> " + format_name(t.to) + " " + rname(t.spec.rounding);
  if (t.spec.rounding == Rounding::sr) {
    s += " " + std::string(name(t.spec.sr_variant));
    if (t.spec.sr_variant != SrVariant::exact && t.spec.sr_variant != SrVariant::equal)
      s += "/" + std::to_string(t.spec.sr_bits);
  }
  s += " " + oname(t.spec.overflow) + " (" + std::string(profile_name(t.profile)) + ")";
  if (t.spec.ftz) s += " ftz";  // RoundingSpec::ftz/daz, shown only when set
  if (t.spec.daz) s += " daz";
  return s;
}

void validate(const Target& t) {
  if (validate(t.from) != FormatError::ok) throw Error("check: the source format is invalid");
  if (validate(t.to) != FormatError::ok) throw Error("check: the target format is invalid");
  if (t.to.bits > kMaxTableBits)
    throw Error("check: target " + format_name(t.to) + " has " + std::to_string(t.to.bits) +
                " bits; accepted: formats of at most 16 bits");
  if (t.packing != Packing::none && t.to.bits != packing_code_bits(t.packing))
    throw Error("check: Packing::" + std::string(name(t.packing)) + " needs a " +
                std::to_string(packing_code_bits(t.packing)) + "-bit target; " + format_name(t.to) + " has " +
                std::to_string(t.to.bits));
  if (t.spec.rounding == Rounding::sr && !sr_bits_problem(t.spec.sr_bits).empty())
    throw Error("check: sr_bits " + sr_bits_problem(t.spec.sr_bits));
}

RoundResult expected(const Target& t, const Case& c) {
  return convert(t.from, c.input, t.to, t.spec, t.profile, c.rbits);
}

std::uint64_t simplicity(const Target& t, const Case& c) {
  const Format S = t.from;
  const std::uint64_t mant = c.input & mantissa_mask(S);
  const int e = unbiased_exponent(S, c.input);
  const std::uint64_t ae = static_cast<std::uint64_t>(std::min(e < 0 ? -e : e, 0xffff));
  const bool neg = S.is_signed && (c.input & sign_mask(S)) != 0;
  return (ae << 40) | (static_cast<std::uint64_t>(std::popcount(mant)) << 24) |
         (static_cast<std::uint64_t>(neg) << 23) | static_cast<std::uint64_t>(std::popcount(c.rbits));
}

CaseClass classify_input(const Target& t, std::uint64_t input, int ulps) {
  const Ctx ctx(t);
  return classify_with(ctx, input & code_mask(t.from), ulps);
}

namespace {

/// The boundary inputs of every class (source codes, both signs), before the cap: exact target values,
/// midpoints and their neighbours, overflow thresholds, the subnormal edge, zero, Inf, NaN payloads, far out
/// of range, TestFloat-style exponent patterns.
std::vector<std::vector<std::uint64_t>> boundary_inputs(const Ctx& ctx, int ulps) {
  const Format S = ctx.S, T = ctx.T;
  constexpr std::size_t kClasses = std::size(kClassEntries);
  std::vector<std::vector<std::uint64_t>> byc(kClasses);  // source inputs (signed) per class
  auto put = [&](CaseClass c, std::uint64_t m) {
    byc[static_cast<std::size_t>(c)].push_back(m);
    if (S.is_signed) byc[static_cast<std::size_t>(c)].push_back(m | sign_mask(S));
  };
  // exact: every finite nonzero target magnitude representable in the source
  for (std::uint64_t code = 1; code <= magnitude_mask(T); ++code) {
    const Class k = classify(T, code);
    if (k != Class::normal && k != Class::subnormal) continue;
    const RoundResult r =
        round_pack(S, unpack(T, code), RoundingSpec{.rounding = Rounding::rne, .overflow = Overflow::satfinite});
    if (r.flags == flag_none) put(CaseClass::exact, r.code & magnitude_mask(S));
  }
  if (!T.has_zero) {  // the minimum code is a value too (e8m0fnu 0x00)
    const RoundResult r =
        round_pack(S, unpack(T, 0), RoundingSpec{.rounding = Rounding::rne, .overflow = Overflow::satfinite});
    if (r.flags == flag_none) put(CaseClass::exact, r.code & magnitude_mask(S));
  }
  {
    std::vector<std::uint64_t> near, centre;
    for (const SrcSpan& s : ctx.mid_src) ctx.around(s, ulps, near, &centre);
    for (auto m : centre) put(CaseClass::midpoint, m);
    for (auto m : near) put(CaseClass::near_midpoint, m);
  }
  {
    std::vector<std::uint64_t> v;
    for (const auto& p : ctx.overflow_points) ctx.around(p.s, ulps, v, &v);
    for (auto m : v) put(CaseClass::overflow_threshold, m);
  }
  {
    std::vector<std::uint64_t> v;
    for (const auto& p : ctx.subnormal_points) ctx.around(p.s, ulps, v, &v);
    for (auto m : v) put(CaseClass::subnormal_edge, m);
  }
  put(CaseClass::zero, 0);
  if (has_inf(S)) put(CaseClass::inf, inf_code(S) & magnitude_mask(S));
  if (S.specials == Specials::ieee) {
    const std::uint64_t e = magnitude_mask(S) - mantissa_mask(S), mm = mantissa_mask(S);
    const std::uint64_t q = std::uint64_t{1} << (S.mantissa_bits - 1);
    const std::uint64_t a5 = 0x5555555555555555ULL, aa = 0xAAAAAAAAAAAAAAAAULL;
    for (std::uint64_t p : std::initializer_list<std::uint64_t>{q, q | 1, mm, q | (a5 & mm), std::uint64_t{1}, mm >> 1,
                                                                (aa & mm) & ~q, q >> 1})
      if (p != 0) put(CaseClass::nan, e | p);
  } else if (has_nan(S)) {
    const std::uint64_t nan = convert(formats::f64, 0x7ff8000000000000ULL, S).code;
    byc[static_cast<std::size_t>(CaseClass::nan)].push_back(nan);
  }
  {  // far out of range: powers of two and all-ones significands beyond the top threshold / below half the min
    std::vector<std::uint64_t> v;
    const std::uint64_t top = ctx.src_code(ctx.top, Rounding::rtp),
                        bottom = ctx.src_code(ctx.subnormal_points.front().v, Rounding::rtz);
    const std::uint64_t step_e = std::uint64_t{1} << S.mantissa_bits;
    for (std::uint64_t m = top + step_e * 2; m <= ctx.s_max_mag && m > top; m += step_e * 3) {
      v.push_back(m & ~mantissa_mask(S));
      v.push_back(m | mantissa_mask(S));
    }
    v.push_back(ctx.s_max_mag);
    if (T.has_zero || true)
      for (std::uint64_t m = bottom >> 2; m > 0; m >>= 3) v.push_back(m);
    for (auto m : v)
      if (m <= ctx.s_max_mag && (m > top + ulps || m + ulps < bottom)) put(CaseClass::out_of_range, m);
  }
  {  // TestFloat-3 style: exponents across the target's range × significand patterns
    const int M = S.mantissa_bits;
    std::vector<std::uint64_t> pats{0, 1, mantissa_mask(S), mantissa_mask(S) - 1};
    for (int b = 0; b < M; ++b) {
      pats.push_back(std::uint64_t{1} << b);
      pats.push_back(mantissa_mask(S) ^ (std::uint64_t{1} << b));
    }
    std::sort(pats.begin(), pats.end());
    pats.erase(std::unique(pats.begin(), pats.end()), pats.end());
    const int e_lo = emin(T) - T.mantissa_bits - 2, e_hi = emax(T) + 2;
    for (int e = e_lo; e <= e_hi; ++e) {
      const long long ef = static_cast<long long>(e) + S.bias;
      if (ef < 1 || static_cast<std::uint64_t>(ef) > (ctx.s_max_mag >> M)) continue;
      for (auto p : pats) {
        const std::uint64_t m = (static_cast<std::uint64_t>(ef) << M) | p;
        if (m <= ctx.s_max_mag) put(CaseClass::exponent_pattern, m);
      }
    }
  }
  return byc;
}

}  // namespace

std::vector<Case> generate(const Target& t, const GenOptions& g) {
  if (g.ulps < 1 || g.ulps > 64)
    throw Error("check: ulps " + std::to_string(g.ulps) + " is out of range; accepted: 1..64");
  if (!(g.boundary_share >= 0.0 && g.boundary_share <= 1.0))
    throw Error("check: boundary_share is out of range; accepted: 0..1");
  const Ctx ctx(t);
  const Format S = t.from, T = t.to;
  const bool sr = t.spec.rounding == Rounding::sr;
  SplitMix rng{g.seed};
  constexpr std::size_t kClasses = std::size(kClassEntries);
  std::vector<std::vector<std::uint64_t>> byc = boundary_inputs(ctx, g.ulps);
  // cap the table-derived classes at boundary_share·count (even stride, before sorting)
  const std::size_t cap = static_cast<std::size_t>(g.boundary_share * static_cast<double>(g.count));
  std::size_t total = 0;
  for (std::size_t k = 0; k < kClasses; ++k) total += byc[k].size();
  if (sr) total *= 4;  // each SR input also gets 3 switch-point words
  if (total > cap) {
    const double keep = static_cast<double>(cap) / static_cast<double>(total);
    for (std::size_t k = 0; k < kClasses; ++k) {
      const auto cls = static_cast<CaseClass>(k);
      if (cls == CaseClass::zero || cls == CaseClass::inf || cls == CaseClass::nan) continue;
      auto& v = byc[k];
      const std::size_t want = std::max<std::size_t>(1, static_cast<std::size_t>(keep * static_cast<double>(v.size())));
      if (v.empty() || want >= v.size()) continue;
      std::vector<std::uint64_t> kept;
      for (std::size_t i = 0; i < want; ++i) kept.push_back(v[i * v.size() / want]);
      v.swap(kept);
    }
  }
  std::vector<Case> out;
  std::unordered_set<std::uint64_t> seen_inputs;  // non-SR: one case per input
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen_sr;
  auto emit = [&](std::vector<Case>& cls_cases, const Case& c) {
    if (!sr) {
      if (!seen_inputs.insert(c.input).second) return;
    } else if (!seen_sr.insert({c.input, c.rbits}).second) {
      return;
    }
    cls_cases.push_back(c);
  };
  auto rword = [&]() -> std::uint64_t {
    const std::uint64_t r = rng.next();
    if (sr_words(t.spec) == 2) return r;  // two 32-bit draws (random.hpp): exact, or N > 32
    return r & 0xffffffffULL;             // one 32-bit draw (random.hpp)
  };
  auto sorted = [&](std::vector<Case>& v) {
    std::sort(v.begin(), v.end(), [&](const Case& a, const Case& b) { return key_of(t, a) < key_of(t, b); });
    out.insert(out.end(), v.begin(), v.end());
  };
  std::vector<Case> switch_cases;
  for (std::size_t k = 0; k < kClasses; ++k) {
    const auto cls = static_cast<CaseClass>(k);
    if (cls == CaseClass::sr_switch || cls == CaseClass::exhaustive || cls == CaseClass::random) continue;
    std::vector<Case> v;
    for (std::uint64_t in : byc[k]) {
      emit(v, Case{in, sr ? rword() : 0, cls});
      if (sr && cls != CaseClass::zero && cls != CaseClass::inf && cls != CaseClass::nan && cls != CaseClass::exact)
        if (const auto sw = sr_switch(t, in)) {
          for (std::uint64_t r : {*sw - 1, *sw, *sw + 1}) emit(switch_cases, Case{in, r, CaseClass::sr_switch});
        }
    }
    sorted(v);
  }
  if (sr) {
    sorted(switch_cases);
  }
  if (S.bits == 16 && g.exhaustive_16bit_sources == GenOptions::Exhaustive16::yes) {
    std::vector<Case> v;
    for (std::uint64_t x = 0; x < 65536; ++x) emit(v, Case{x, sr ? rword() : 0, CaseClass::exhaustive});
    sorted(v);
  }
  {
    std::vector<Case> v;
    const std::size_t want = out.size() < g.count ? g.count - out.size() : 0;
    const int e_lo = emin(T) - T.mantissa_bits - 1, e_hi = emax(T) + 1;
    for (std::size_t i = 0, tries = 0; v.size() < want && tries < 4 * want + 64; ++tries, ++i) {
      std::uint64_t x;
      if (i % 2 == 0) {
        x = rng.next() & code_mask(S);
      } else {  // a value inside the target's range
        const long long e = e_lo + static_cast<long long>(rng.below(static_cast<std::uint64_t>(e_hi - e_lo + 1)));
        const long long ef =
            std::clamp<long long>(e + S.bias, 1, static_cast<long long>(ctx.s_max_mag >> S.mantissa_bits));
        x = (static_cast<std::uint64_t>(ef) << S.mantissa_bits) | (rng.next() & mantissa_mask(S));
        if (x > ctx.s_max_mag) x = ctx.s_max_mag;
        if (S.is_signed && (rng.next() & 1)) x |= sign_mask(S);
      }
      emit(v, Case{x, sr ? rword() : 0, CaseClass::random});
    }
    sorted(v);
  }
  return out;
}

Report evaluate(const Target& t, std::span<const Case> cases, std::span<const std::uint64_t> got, const Options& o,
                const BatchKernel& rerun) {
  const Ctx ctx(t);
  return evaluate_impl(ctx, cases, got, o, rerun, 0);
}

Report check_batch(const BatchKernel& kernel, const Target& t, const Options& o) {
  if (o.batch == 0) throw Error("check: batch must be at least 1");
  if (!kernel) throw Error("check: no kernel");
  const Ctx ctx(t);
  const std::vector<Case> cases = generate(t, o.gen);
  std::vector<std::uint64_t> got(cases.size(), 0);
  std::uint64_t calls = 0;
  const std::size_t grp = packing_group(t.packing);
  const std::size_t batch = (o.batch + grp - 1) / grp * grp;  // whole packed groups
  for (std::size_t i = 0; i < cases.size(); i += batch) {
    const std::size_t n = std::min(batch, cases.size() - i);
    run_kernel(kernel, t, std::span<const Case>(cases.data() + i, n), std::span<std::uint64_t>(got.data() + i, n));
    ++calls;
  }
  return evaluate_impl(ctx, cases, got, o, kernel, calls);
}

std::string Report::text() const {
  const Format S = target.from, T = target.to;
  const std::string target_text = describe(target);
  report::Headline h{target_text, tested, failed, {}, ", all bit-exact", report::ClassNoun::counted};
  report::Text t{{}, {}, "  ", {}};
  for (const auto& m : minimal) {
    h.classes.emplace_back(name(m.c.cls));
    std::string s = "  [" + std::string(name(m.c.cls)) + "] " + format_name(S) + " " + code_hex(m.c.input, S.bits) +
                    " (" + short_value(S, m.c.input) + ")";
    if (target.spec.rounding == Rounding::sr) s += " rbits " + code_hex(m.c.rbits, 64);
    s += " => " + code_hex(m.got, T.bits) + " (" +
         ((m.got & ~code_mask(T)) ? std::string("not a code") : short_value(T, m.got)) + ") expected " +
         code_hex(m.expected, T.bits) + " (" + short_value(T, m.expected) + ")  " + m.why + "  [" +
         std::to_string(m.class_failures) + " failing]\n";
    t.classes.push_back(std::move(s));
    t.reproduce.push_back(m.reproduce);
  }
  t.headline = report::headline(h);
  return report::text(t, diagnosis);
}

std::string Report::json() const {
  nlohmann::ordered_json head;
  head["target"] = {{"from", format_name(target.from)},
                    {"to", format_name(target.to)},
                    {"round", rname(target.spec.rounding)},
                    {"overflow", oname(target.spec.overflow)},
                    {"sr_variant", std::string(name(target.spec.sr_variant))},
                    {"sr_bits", target.spec.sr_bits},
                    {"profile", std::string(profile_name(target.profile))}};
  nlohmann::ordered_json mins = nlohmann::ordered_json::array();
  for (const auto& m : minimal)
    mins.push_back({{"class", std::string(name(m.c.cls))},
                    {"input", code_hex(m.c.input, target.from.bits)},
                    {"input_value", short_value(target.from, m.c.input)},
                    {"rbits", m.c.rbits},
                    {"got", code_hex(m.got, target.to.bits)},
                    {"expected", code_hex(m.expected, target.to.bits)},
                    {"expected_flags", flags_string(m.expected_flags)},
                    {"class_failures", m.class_failures},
                    {"why", m.why},
                    {"reproduce", m.reproduce}});
  return report::json(std::move(head), {tested, failed, kernel_calls}, report::OkField::yes, std::move(mins), diagnosis,
                      report::JsonLayout::indent2);
}

std::ostream& operator<<(std::ostream& os, const Report& r) { return os << r.text(); }

}  // namespace minifloat::check
