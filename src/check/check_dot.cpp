// SPDX-License-Identifier: Apache-2.0
// check_dot.cpp: the dot-product / GEMM checker (check_dot.hpp).
#include "minifloat/check/check_dot.hpp"
#include "minifloat/check/run.hpp"
#include "check_rng.hpp"
#include "report.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/unpacked.hpp"

namespace minifloat::check {

namespace {

constexpr NameEntry<DotClass> kDotClassEntries[] = {
    {DotClass::zero_terms, "zero_terms", "all lanes zero but 0..3, zero products of nonzero operands, c 0 or small"},
    {DotClass::signed_zero, "signed_zero", "every product +-0 with c +-0, and exact cancellations to zero"},
    {DotClass::cancellation, "cancellation",
     "products that cancel exactly (x*y and -x*y, or c = -x*y) beside small survivors"},
    {DotClass::alignment, "alignment",
     "one large term and terms 2^-(F-3)..2^-(F+3) below it (F: the model's fraction bits)"},
    {DotClass::c_magnitude, "c_magnitude",
     "c far above the products, far below them, and at alignment shifts from them"},
    {DotClass::nan_inf, "nan_inf", "a NaN lane, NaN or +-Inf c, Inf*0, +Inf and -Inf products"},
    {DotClass::overflow, "overflow",
     "the sum at the result's overflow: c near +-max with same-sign products, max*max lanes"},
    {DotClass::random, "random", "uniform finite codes in every lane, c of the products' magnitude or 0"},
};

constexpr std::size_t kDotClasses = std::size(kDotClassEntries);

using Rng = SplitMix;

constexpr RoundingSpec kRneSat{.rounding = Rounding::rne, .overflow = Overflow::satfinite};
constexpr Format F32 = formats::f32;

std::uint64_t code_of(Format f, double v) { return from_double(v, f, kRneSat).code; }
std::uint64_t f32_of(double v) { return from_double(v, F32, {.rounding = Rounding::rne}).code; }
bool is_zero(Format f, std::uint64_t c) { return classify(f, c) == Class::zero; }
bool is_finite(Format f, std::uint64_t c) {
  const Class k = classify(f, c);
  return k != Class::nan && k != Class::inf;
}

/// Smallest and largest exponent of a nonzero finite value of f (subnormals included).
int lo_exp(Format f) { return emin(f) - f.mantissa_bits; }
int hi_exp(Format f) { return emax(f); }

/// A random finite nonzero code of f with exponent e (clamped to f's range) and a random significand.
std::uint64_t value_at(Format f, int e, Rng& r, bool negative, int mant_bits_max = 64) {
  e = std::clamp(e, lo_exp(f), hi_exp(f));
  const int m = std::min<int>(f.mantissa_bits, mant_bits_max);
  double sig = 1.0;
  if (m > 0) sig += static_cast<double>(r.below(std::uint64_t{1} << m)) / std::ldexp(1.0, m);
  const double v = std::ldexp(sig, e);
  const std::uint64_t c = code_of(f, negative && f.is_signed ? -v : v);
  return c;
}
std::uint64_t neg(Format f, std::uint64_t c) { return f.is_signed ? c ^ (std::uint64_t{1} << (f.bits - 1)) : c; }
std::uint64_t rand_finite(Format f, Rng& r) {
  for (;;) {
    const std::uint64_t c = r.below(std::uint64_t{1} << f.bits);
    if (is_finite(f, c)) return c;
  }
}

/// The model's fraction bits F for the alignment class (tensor-core kinds), else 24 (f32's p).
int frac_bits_of(const DotModel& m) {
  return (m.kind == AccumKind::tfdpa || m.kind == AccumKind::blocked) ? m.tensor_core.frac_bits : 24;
}

std::string hex(std::uint64_t c, int bits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", (bits + 3) / 4, static_cast<unsigned long long>(c));
  return buf;
}
std::string val(Format f, std::uint64_t c) {
  const Class k = classify(f, c);
  if (k == Class::nan) return "NaN";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", to_double(f, c));
  return buf;
}
bool codes_match(Format f, std::uint64_t got, std::uint64_t want, NanCompare nc) {
  if (got == want) return true;
  return nc == NanCompare::any_nan && classify(f, want) == Class::nan && (got & ~code_mask(f)) == 0 &&
         classify(f, got) == Class::nan;
}

struct DotAlt {
  std::string name, bug_class;
  DotModel model;
  enum class C : std::uint8_t { given, zero } c = C::given;
};

DotModel with_tc(const DotModel& base, const TfdpaModel& tc) {
  DotModel m = base;
  m.tensor_core = tc;
  return m;
}

/// The diagnosis panel: the target itself, C read as +0, every other whole-dot model and tensor-core
/// preset of the same result format, and parameter changes of the target's tensor core.
std::vector<DotAlt> panel(const DotTarget& t) {
  std::vector<DotAlt> v;
  const Format out = result_format(t);
  v.push_back({t.model.name, "the target", t.model});
  v.push_back({t.model.name + " with C = +0", "C ignored (read as +0)", t.model, DotAlt::C::zero});
  for (const auto& e : dot_model_table().entries) {
    if (t.model.kind != AccumKind::tfdpa && e.name == t.model.name) continue;
    DotModel m = parse_dot_model(e.name);
    DotTarget alt = t;
    alt.model = m;
    if (!(result_format(alt) == out) || m.name == t.model.name) continue;
    const std::string bc = m.kind == AccumKind::fp32    ? "f32 FMA chain instead of the target's accumulation"
                           : m.kind == AccumKind::exact ? "exact sum rounded once"
                           : m.kind == AccumKind::tfdpa ? "another tensor-core model (preset)"
                                                        : "f32 summation of rounded products";
    v.push_back({std::string(e.name), bc, m});
  }
  if (t.model.kind == AccumKind::tfdpa || t.model.kind == AccumKind::blocked) {
    const TfdpaModel& tc = t.model.tensor_core;
    auto add = [&](const std::string& what, const std::string& bc, TfdpaModel m) {
      v.push_back({t.model.name + " with " + what, bc, with_tc(t.model, m)});
    };
    for (const AlignRounding ar : {AlignRounding::rne, AlignRounding::rtn, AlignRounding::rtz}) {
      if (ar == tc.align) continue;
      TfdpaModel m = tc;
      m.align = ar;
      add(std::string("alignment ") + (ar == AlignRounding::rne   ? "rne"
                                       : ar == AlignRounding::rtn ? "rtn"
                                                                  : "rtz"),
          "alignment rounding of the terms", m);
    }
    for (const int d : {-2, -1, 1, 2}) {
      TfdpaModel m = tc;
      m.frac_bits = tc.frac_bits + d;
      if (m.frac_bits < 1 || m.frac_bits > 52) continue;
      add("F=" + std::to_string(m.frac_bits), "alignment width F (fraction bits kept)", m);
    }
    {
      TfdpaModel m = tc;
      m.out_rounding.rounding = tc.out_rounding.rounding == Rounding::rtz ? Rounding::rne : Rounding::rtz;
      add(std::string("output ") + std::string(name(m.out_rounding.rounding)), "output rounding of each group", m);
    }
    for (const int g : {tc.group / 2, tc.group * 2}) {
      if (g < 1 || g > 64) continue;
      TfdpaModel m = tc;
      m.group = g;
      add("group " + std::to_string(g), "normalisation group size (chained groups)", m);
    }
  }
  return v;
}

std::uint64_t eval_alt(const DotTarget& t, const DotAlt& a, const DotCase& c) {
  return dot(a.model, t.a, c.a, t.b, c.b, a.c == DotAlt::C::zero ? 0 : c.c).code;
}

Diagnosis diagnose(const DotTarget& t, std::span<const DotCase> cases, std::span<const std::uint64_t> got,
                   NanCompare nc) {
  const Format out = result_format(t);
  const std::vector<DotAlt> alts = panel(t);
  Diagnosis d;
  for (const DotAlt& a : alts) {
    Alternative r{a.name, a.bug_class, 0, cases.size()};
    for (std::size_t i = 0; i < cases.size(); ++i)
      r.agree += codes_match(out, got[i], eval_alt(t, a, cases[i]), nc) ? 1 : 0;
    d.ranked.push_back(r);
  }
  rank_diagnosis(d, "cases", t.model.name);
  return d;
}

std::uint64_t popcount_sig(Format f, std::uint64_t c) {
  return static_cast<std::uint64_t>(std::popcount(c & ((std::uint64_t{1} << f.mantissa_bits) - 1)));
}
std::uint64_t abs_exp(Format f, std::uint64_t c) {
  if (!is_finite(f, c) || is_zero(f, c)) return 0;
  const Unpacked u = unpack(f, c);
  const int e = u.exp + static_cast<int>(std::bit_width(u.sig)) - 1;
  return static_cast<std::uint64_t>(e < 0 ? -e : e);
}

/// Shrink candidates of a failing case: each nonzero lane zeroed, c → +0, each operand (and c)
/// replaced by its power of two (significand cleared) and by ±1.
std::vector<DotCase> candidates(const DotTarget& t, const DotCase& x) {
  std::vector<DotCase> v;
  // Delta debugging over the nonzero lanes: zero each half and each quarter of them at once.
  std::vector<std::size_t> nz;
  for (std::size_t i = 0; i < x.a.size(); ++i)
    if (x.a[i] != 0 || x.b[i] != 0) nz.push_back(i);
  for (const std::size_t parts : {std::size_t{2}, std::size_t{4}}) {
    if (nz.size() <= parts) continue;
    for (std::size_t p = 0; p < parts; ++p) {
      DotCase y = x;
      for (std::size_t j = nz.size() * p / parts; j < nz.size() * (p + 1) / parts; ++j) y.a[nz[j]] = y.b[nz[j]] = 0;
      v.push_back(std::move(y));
      DotCase z = x;  // keep only this part
      for (std::size_t j = 0; j < nz.size(); ++j)
        if (j < nz.size() * p / parts || j >= nz.size() * (p + 1) / parts) z.a[nz[j]] = z.b[nz[j]] = 0;
      v.push_back(std::move(z));
    }
  }
  auto simpler = [](Format f, std::uint64_t c) -> std::uint64_t {
    if (!is_finite(f, c) || is_zero(f, c)) return c;
    const Unpacked u = unpack(f, c);
    const int e = u.exp + static_cast<int>(std::bit_width(u.sig)) - 1;
    const double p = std::ldexp(1.0, e);
    return code_of(f, u.negative ? -p : p);
  };
  auto one = [](Format f, std::uint64_t c) -> std::uint64_t {
    if (!is_finite(f, c) || is_zero(f, c)) return c;
    return code_of(f, unpack(f, c).negative ? -1.0 : 1.0);
  };
  for (std::size_t i = 0; i < x.a.size(); ++i) {
    if (!is_zero(t.a, x.a[i]) || !is_zero(t.b, x.b[i])) {
      DotCase y = x;
      y.a[i] = 0;
      y.b[i] = 0;
      v.push_back(std::move(y));
    }
    for (int side = 0; side < 2; ++side) {
      const Format f = side == 0 ? t.a : t.b;
      const std::uint64_t cur = side == 0 ? x.a[i] : x.b[i];
      for (const std::uint64_t s : {simpler(f, cur), one(f, cur)}) {
        if (s == cur) continue;
        DotCase y = x;
        (side == 0 ? y.a[i] : y.b[i]) = s;
        v.push_back(std::move(y));
      }
    }
  }
  if (x.c != 0) {
    DotCase y = x;
    y.c = 0;
    v.push_back(y);
    const std::uint64_t s = simpler(F32, x.c);
    if (s != x.c) {
      y.c = s;
      v.push_back(std::move(y));
    }
  }
  return v;
}

void run_kernel(const DotKernel& k, std::span<const DotCase> in, std::span<std::uint64_t> out, std::size_t batch,
                std::uint64_t& calls) {
  for (std::size_t lo = 0; lo < in.size(); lo += batch) {
    const std::size_t n = std::min(batch, in.size() - lo);
    k(in.subspan(lo, n), out.subspan(lo, n));
    ++calls;
  }
}

std::string lanes_text(const DotTarget& t, const DotCase& c) {
  std::string s;
  std::size_t nz = 0;
  for (std::size_t i = 0; i < c.a.size(); ++i) {
    if (is_zero(t.a, c.a[i]) && is_zero(t.b, c.b[i]) && c.a[i] == 0 && c.b[i] == 0) continue;
    ++nz;
    if (!s.empty()) s += " + ";
    s += hex(c.a[i], t.a.bits) + " (" + val(t.a, c.a[i]) + ")*" + hex(c.b[i], t.b.bits) + " (" + val(t.b, c.b[i]) +
         ")@" + std::to_string(i);
  }
  const std::string cc = "c " + hex(c.c, 32) + " (" + val(F32, c.c) + ")";
  return std::to_string(nz) + " of " + std::to_string(c.a.size()) + " lanes nonzero: " + (s.empty() ? "" : s + " + ") +
         cc;
}

std::string why_text(const DotTarget& t, const DotCase& c) {
  const RoundResult ex = dot_exact(t.a, c.a, t.b, c.b, F32, c.c, formats::f64, {.rounding = Rounding::rne});
  const double v = std::bit_cast<double>(ex.code);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return std::string("exact sum ") + (classify(formats::f64, ex.code) == Class::nan ? "NaN" : buf) +
         ((ex.flags & flag_inexact) ? " (rounded to f64 for display)" : "");
}

std::string reproduce_text(const DotTarget& t, const DotCase& c) {
  std::string a, b;
  for (std::size_t i = 0; i < c.a.size(); ++i) {
    if (i) {
      a += ',';
      b += ',';
    }
    a += std::to_string(c.a[i]);
    b += std::to_string(c.b[i]);
  }
  const char* dt = t.a.bits <= 8 ? "uint8" : "uint16";
  char cbuf[64];
  std::snprintf(cbuf, sizeof cbuf, "%a", to_double(F32, c.c));
  std::string s = "python3 -c \"import numpy as np; np.save('a.npy', np.array([" + a + "], np." + dt +
                  ")); np.save('b.npy', np.array([" + b + "], np." + dt + "))\" && minifloat dot --model " +
                  t.model.name + " --format " + format_name(t.a) + " --a a.npy --b b.npy --c " + cbuf;
  if (!(t.a == t.b)) s += "   (b holds " + format_name(t.b) + " codes: `dot` takes one --format; use the library)";
  return s;
}

/// The dot checker as a run.hpp Domain: cases and results of the first pass, shrinking by rerunning the kernel
/// on every class's candidates in one call.
struct DotDomain {
  using Case = DotCase;
  using Got = std::uint64_t;
  using Key = std::uint64_t;
  const DotTarget& t;
  Format out;  ///< result_format(t)
  std::span<const DotCase> cases;
  std::span<const std::uint64_t> got;
  const DotOptions& o;
  const DotKernel& kernel;

  std::size_t size() const { return cases.size(); }
  std::size_t classes() const { return kDotClasses; }
  const DotCase& case_at(std::size_t i) const { return cases[i]; }
  std::size_t class_at(std::size_t i) const { return static_cast<std::size_t>(cases[i].cls); }
  Got got_at(std::size_t i) const { return got[i]; }
  bool passes(const DotCase& c, Got g) const { return codes_match(out, g, expected(t, c).code, o.nan_compare); }
  Key key(const DotCase& c) const { return simplicity(t, c); }
  bool admissible(std::size_t, const DotCase&, const Got&, const DotCase&, const Got&) const { return true; }
  std::vector<DotCase> candidates(const DotCase& c) const { return check::candidates(t, c); }
  std::vector<Got> rerun(std::span<const DotCase> cand) const {
    std::vector<std::uint64_t> g(cand.size());
    kernel(cand, g);
    return g;
  }
};
static_assert(Domain<DotDomain>);

DotReport evaluate_impl(const DotTarget& t, std::span<const DotCase> cases, std::span<const std::uint64_t> got,
                        const DotOptions& o, const DotKernel& rerun, std::uint64_t calls) {
  validate(t);
  if (cases.size() != got.size())
    throw Error("evaluate_dot: " + std::to_string(cases.size()) + " cases but " + std::to_string(got.size()) +
                " outputs");
  if (o.batch == 0) throw Error("check_dot: batch must be at least 1");
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (cases[i].a.size() != t.k || cases[i].b.size() != t.k)
      throw Error("evaluate_dot: case " + std::to_string(i) + " has " + std::to_string(cases[i].a.size()) + "/" +
                  std::to_string(cases[i].b.size()) + " lanes; the target has k = " + std::to_string(t.k));
  const DotDomain d{t, result_format(t), cases, got, o, rerun};
  const ShrinkPlan plan = shrink_plan(o, static_cast<bool>(rerun));
  const auto found = run_domain(d, plan);
  DotReport r;
  r.target = t;
  r.tested = cases.size();
  r.failed = found.failed;
  r.kernel_calls = calls + found.shrink_calls;
  for (const auto& x : found.minimal) {
    DotMismatch m;
    m.c = x.c;
    m.got = x.got;
    m.expected = expected(t, x.c).code;
    m.class_failures = x.failures;
    m.why = why_text(t, x.c);
    m.reproduce = reproduce_text(t, x.c);
    r.minimal.push_back(std::move(m));
  }
  if (o.diagnose == Options::Diagnose::yes && !cases.empty()) r.diagnosis = diagnose(t, cases, got, o.nan_compare);
  return r;
}

}  // namespace

const NameTable<DotClass>& name_table(DotClass) {
  static constexpr NameTable<DotClass> t{"dot-class", "dot class", kDotClassEntries};
  return t;
}

Format result_format(const DotTarget& t) { return t.model.kind == AccumKind::tfdpa ? t.model.tensor_core.dest : F32; }

std::string describe(const DotTarget& t) {
  return "dot k=" + std::to_string(t.k) + " " + format_name(t.a) + " x " + format_name(t.b) + " + f32 c -> " +
         format_name(result_format(t)) + " under " + t.model.name;
}

void validate(const DotTarget& t) {
  if (t.k < 1 || t.k > 4096) throw Error("dot target: k = " + std::to_string(t.k) + "; accepted: 1..4096");
  for (std::size_t i = 0; i < t.model.name.size(); ++i) {
    const auto ch = static_cast<unsigned char>(t.model.name[i]);
    if (ch < 0x20 || ch > 0x7e)
      throw Error("dot target: the model name has byte " + hex(ch, 8) + " at " + std::to_string(i) +
                  "; accepted: printable ASCII (0x20..0x7e), as the names parse_dot_model gives");
  }
  for (const Format f : {t.a, t.b}) {
    if (minifloat::validate(f) != FormatError::ok)
      throw Error("dot target: operand format " + format_name(f) + " is invalid");
    if (f.bits > 16)
      throw Error("dot target: operand format " + format_name(f) + " has " + std::to_string(f.bits) +
                  "-bit codes; accepted: formats of at most 16 bits");
  }
}

RoundResult expected(const DotTarget& t, const DotCase& c) { return dot(t.model, t.a, c.a, t.b, c.b, c.c); }

std::uint64_t simplicity(const DotTarget& t, const DotCase& c) {
  std::uint64_t terms = is_zero(F32, c.c) ? 0 : 1, pop = popcount_sig(F32, c.c), ex = abs_exp(F32, c.c);
  for (std::size_t i = 0; i < c.a.size(); ++i) {
    const bool za = c.a[i] == 0, zb = c.b[i] == 0;
    if (!(za && zb)) ++terms;
    pop += popcount_sig(t.a, c.a[i]) + popcount_sig(t.b, c.b[i]);
    ex += abs_exp(t.a, c.a[i]) + abs_exp(t.b, c.b[i]);
  }
  return (std::min<std::uint64_t>(terms, 0xffff) << 48) | (std::min<std::uint64_t>(pop, 0xffff) << 32) |
         std::min<std::uint64_t>(ex, 0xffffffffu);
}

namespace {

/// What generate() needs of a dot target, computed once, and one case builder per class.
struct DotGen {
  Format A, B, out;
  std::size_t K;
  int F;  ///< frac_bits_of(t.model)
  // Product exponent range: a nonzero product a*b has exponent in [lo_exp(A)+lo_exp(B), hi_exp(A)+hi_exp(B)].
  int plo, phi;
  std::uint64_t nanA, infA;
  bool a_has_nan, a_has_inf;
  std::uint64_t maxA, maxB;

  explicit DotGen(const DotTarget& t)
      : A(t.a),
        B(t.b),
        out(result_format(t)),
        K(t.k),
        F(frac_bits_of(t.model)),
        plo(lo_exp(A) + lo_exp(B)),
        phi(hi_exp(A) + hi_exp(B)),
        nanA(from_double(std::numeric_limits<double>::quiet_NaN(), A, {}).code),
        infA(from_double(std::numeric_limits<double>::infinity(), A, {.overflow = Overflow::nonsat}).code),
        a_has_nan(classify(A, nanA) == Class::nan),
        a_has_inf(classify(A, infA) == Class::inf),
        maxA(code_of(A, std::numeric_limits<double>::max())),
        maxB(code_of(B, std::numeric_limits<double>::max())) {}

  /// A product 2^e as (a, b): split e over the two operand ranges.
  void product_at(int e, Rng& r, bool negative, DotCase& c, std::size_t lane, int mbits) const {
    e = std::clamp(e, plo, phi);
    int ea = std::clamp(e / 2, lo_exp(A), hi_exp(A));
    int eb = std::clamp(e - ea, lo_exp(B), hi_exp(B));
    ea = std::clamp(e - eb, lo_exp(A), hi_exp(A));
    c.a[lane] = value_at(A, ea, r, negative, mbits);
    c.b[lane] = value_at(B, eb, r, false, mbits);
    if (negative && !A.is_signed && B.is_signed) c.b[lane] = neg(B, c.b[lane]);
  }
  void zero_terms(DotCase& c, Rng& r, std::size_t n) const {
    auto lane = [&] { return static_cast<std::size_t>(r.below(K)); };
    const int nz = static_cast<int>(n % 4);
    for (int j = 0; j < nz; ++j) product_at(r.range(plo / 2, phi / 2), r, r.coin(), c, lane(), 3);
    if (r.below(3) == 0) {  // zero product of a nonzero operand
      const std::size_t l = lane();
      c.a[l] = r.coin() ? maxA : 0;
      c.b[l] = c.a[l] == 0 ? maxB : 0;
    }
    if (r.coin()) c.c = f32_of((r.coin() ? -1.0 : 1.0) * std::ldexp(1.0, r.range(-10, 10)));
  }
  void signed_zero(DotCase& c, Rng& r, std::size_t n) const {
    auto lane = [&] { return static_cast<std::size_t>(r.below(K)); };
    const std::uint64_t sgnA = A.is_signed ? std::uint64_t{1} << (A.bits - 1) : 0;
    const std::uint64_t sgnB = B.is_signed ? std::uint64_t{1} << (B.bits - 1) : 0;
    for (std::size_t l = 0; l < K; ++l) {
      const int kind = r.range(0, 2);
      if (kind == 0) continue;
      c.a[l] = r.coin() ? sgnA : 0;  // ±0 times ±finite or ±0
      c.b[l] = kind == 1 ? (r.coin() ? sgnB : 0) : (r.coin() ? neg(B, rand_finite(B, r)) : rand_finite(B, r));
      if (classify(B, c.b[l]) == Class::nan || classify(B, c.b[l]) == Class::inf) c.b[l] = 0;
    }
    if (n % 2 == 1 && K >= 2) {  // an exact cancellation x*y - x*y
      const std::size_t l0 = lane(), l1 = (l0 + 1 + r.below(K - 1)) % K;
      product_at(r.range(plo / 2, phi / 2), r, false, c, l0, 64);
      c.a[l1] = neg(A, c.a[l0]);
      c.b[l1] = c.b[l0];
    }
    c.c = r.coin() ? 0x80000000u : 0;
  }
  void cancellation(DotCase& c, Rng& r) const {
    const int e = r.range(plo / 2, phi);
    const std::size_t pairs = std::max<std::size_t>(1, std::min<std::size_t>(K / 2, 1 + r.below(3)));
    std::vector<std::size_t> perm(K);
    for (std::size_t i = 0; i < K; ++i) perm[i] = i;
    for (std::size_t i = K; i > 1; --i) std::swap(perm[i - 1], perm[r.below(i)]);
    std::size_t used = 0;
    for (std::size_t p = 0; p < pairs && used + 1 < K; ++p) {
      product_at(e + r.range(-2, 2), r, r.coin(), c, perm[used], 64);
      c.a[perm[used + 1]] = neg(A, c.a[perm[used]]);
      c.b[perm[used + 1]] = c.b[perm[used]];
      used += 2;
    }
    if (K == 1 || r.coin()) {  // c = -x*y exactly (an f32 holds the product of two <= 16-bit codes when it fits)
      const std::size_t l = perm[0];
      const double p = to_double(A, c.a[l]) * to_double(B, c.b[l]);
      if (K > 1 && used >= 2) {
        c.a[perm[1]] = 0;
        c.b[perm[1]] = 0;
      }
      c.c = f32_of(-p);
    }
    for (std::size_t s = used; s < K && s < used + 2; ++s)  // small survivors
      product_at(e - r.range(F - 4, F + 4), r, r.coin(), c, perm[s], 3);
  }
  void alignment(DotCase& c, Rng& r) const {
    auto lane = [&] { return static_cast<std::size_t>(r.below(K)); };
    const int e = r.range(std::max(plo + F + 4, plo), phi);
    const std::size_t big = lane();
    product_at(e, r, r.coin(), c, big, 0);
    const std::size_t smalls = 1 + r.below(std::min<std::size_t>(K, 4));
    for (std::size_t s = 0; s < smalls; ++s) {
      const std::size_t l = (big + 1 + s) % K;
      if (l == big) break;
      product_at(e - r.range(F - 3, F + 3), r, r.coin(), c, l, 3);
    }
    if (r.below(4) == 0) c.c = f32_of((r.coin() ? -1.0 : 1.0) * std::ldexp(1.0, e - r.range(F - 3, F + 3)));
  }
  void c_magnitude(DotCase& c, Rng& r, std::size_t n) const {
    auto lane = [&] { return static_cast<std::size_t>(r.below(K)); };
    const int e = r.range(plo / 2, phi);
    for (std::size_t j = 0, nz = 1 + r.below(std::min<std::size_t>(K, 4)); j < nz; ++j)
      product_at(e + r.range(-2, 2), r, r.coin(), c, lane(), 3);
    const int mode = static_cast<int>(n % 3);
    const int shift = mode == 0   ? r.range(8, 40)
                      : mode == 1 ? -r.range(8, 40)
                                  : (r.coin() ? 1 : -1) * r.range(F - 3, F + 3);
    const double m = 1.0 + static_cast<double>(r.below(1u << 10)) / 1024.0;
    c.c = f32_of((r.coin() ? -1.0 : 1.0) * std::ldexp(m, std::clamp(e + shift, -140, 126)));
  }
  void nan_inf(DotCase& c, Rng& r, std::size_t n) const {
    auto lane = [&] { return static_cast<std::size_t>(r.below(K)); };
    for (std::size_t j = 0, nz = r.below(3); j < nz; ++j)
      product_at(r.range(plo / 2, phi / 2), r, r.coin(), c, lane(), 3);
    const int mode = static_cast<int>(n % 5);
    if (mode == 0 && a_has_nan) c.a[lane()] = r.coin() ? neg(A, nanA) : nanA;
    else if (mode == 1) c.c = r.coin() ? 0x7fc00000u : 0xffc00001u;
    else if (mode == 2) c.c = r.coin() ? 0x7f800000u : 0xff800000u;
    else if (mode == 3 && a_has_inf) {  // Inf * 0 or Inf * x
      const std::size_t l = lane();
      c.a[l] = r.coin() ? neg(A, infA) : infA;
      c.b[l] = r.coin() ? 0 : value_at(B, 0, r, false, 2);
    } else if (mode == 4 && a_has_inf && K >= 2) {  // +Inf and -Inf products
      const std::size_t l = lane(), l2 = (l + 1) % K;
      c.a[l] = infA;
      c.b[l] = value_at(B, 0, r, false, 0);
      c.a[l2] = neg(A, infA);
      c.b[l2] = c.b[l];
    } else {
      c.c = r.coin() ? 0x7f800000u : 0xff800000u;  // ±Inf c against finite products
      product_at(phi, r, c.c == 0x7f800000u, c, lane(), 0);
    }
  }
  void overflow(DotCase& c, Rng& r, std::size_t n) const {
    auto lane = [&] { return static_cast<std::size_t>(r.below(K)); };
    const bool negative = r.coin();
    const double omax = to_double(out, max_finite_magnitude(out));
    const int mode = static_cast<int>(n % 3);
    if (mode == 0) {  // max*max in every lane
      for (std::size_t l = 0; l < K; ++l) {
        c.a[l] = negative ? neg(A, maxA) : maxA;
        c.b[l] = maxB;
      }
    } else {
      const double cm = omax * (1.0 - std::ldexp(1.0, -r.range(1, 30)));
      c.c = f32_of(negative ? -cm : cm);
      for (std::size_t j = 0, nz = 1 + r.below(std::min<std::size_t>(K, 4)); j < nz; ++j)
        product_at(phi - r.range(0, 3), r, mode == 1 ? negative : !negative, c, lane(), 3);
    }
  }
  void random(DotCase& c, Rng& r) const {
    for (std::size_t l = 0; l < K; ++l) {
      c.a[l] = rand_finite(A, r);
      c.b[l] = rand_finite(B, r);
    }
    if (r.coin())
      c.c = f32_of((r.coin() ? -1.0 : 1.0) * std::ldexp(1.0 + static_cast<double>(r.below(1u << 20)) / 1048576.0,
                                                        std::clamp(r.range(plo, phi), -126, 127)));
  }
};

}  // namespace

std::vector<DotCase> generate(const DotTarget& t, const DotGenOptions& g) {
  validate(t);
  if (g.count == 0) throw Error("dot generator: count must be at least 1");
  const DotGen gen(t);
  const std::size_t per = std::max<std::size_t>(1, g.count / kDotClasses);
  std::vector<DotCase> v;
  v.reserve(per * kDotClasses);
  for (std::size_t ci = 0; ci < kDotClasses; ++ci) {
    const auto cls = static_cast<DotClass>(ci);
    Rng r{g.seed * 0x100000001b3ULL + ci};
    for (std::size_t n = 0; n < per; ++n) {
      DotCase c;
      c.a.assign(gen.K, 0);
      c.b.assign(gen.K, 0);
      c.cls = cls;
      switch (cls) {
        case DotClass::zero_terms: gen.zero_terms(c, r, n); break;
        case DotClass::signed_zero: gen.signed_zero(c, r, n); break;
        case DotClass::cancellation: gen.cancellation(c, r); break;
        case DotClass::alignment: gen.alignment(c, r); break;
        case DotClass::c_magnitude: gen.c_magnitude(c, r, n); break;
        case DotClass::nan_inf: gen.nan_inf(c, r, n); break;
        case DotClass::overflow: gen.overflow(c, r, n); break;
        case DotClass::random: gen.random(c, r); break;
      }
      v.push_back(std::move(c));
    }
  }
  return v;
}

DotReport evaluate_dot(const DotTarget& t, std::span<const DotCase> cases, std::span<const std::uint64_t> got,
                       const DotOptions& o, const DotKernel& rerun) {
  return evaluate_impl(t, cases, got, o, rerun, 0);
}

DotReport check_dot(const DotKernel& kernel, const DotTarget& t, const DotOptions& o) {
  validate(t);
  if (o.batch == 0) throw Error("check_dot: batch must be at least 1");
  const std::vector<DotCase> cases = generate(t, o.gen);
  std::vector<std::uint64_t> got(cases.size());
  std::uint64_t calls = 0;
  run_kernel(kernel, cases, got, o.batch, calls);
  return evaluate_impl(t, cases, got, o, kernel, calls);
}

DotKernel gemm_as_dot(GemmKernel gemm, std::size_t tile) {
  if (tile < 1 || tile > 1024) throw Error("gemm_as_dot: tile " + std::to_string(tile) + "; accepted: 1..1024");
  return [gemm = std::move(gemm), tile](std::span<const DotCase> in, std::span<std::uint64_t> out) {
    for (std::size_t lo = 0; lo < in.size(); lo += tile) {
      const std::size_t m = std::min(tile, in.size() - lo), k = in[lo].a.size();
      std::vector<std::uint64_t> A(m * k), B(k * m), C(m * m, 0), D(m * m, 0);
      for (std::size_t i = 0; i < m; ++i) {
        const DotCase& c = in[lo + i];
        if (c.a.size() != k || c.b.size() != k) throw Error("gemm_as_dot: cases of one batch differ in k");
        for (std::size_t p = 0; p < k; ++p) {
          A[i * k + p] = c.a[p];
          B[p * m + i] = c.b[p];
        }
        C[i * m + i] = c.c;
      }
      gemm(m, m, k, A, B, C, D);
      for (std::size_t i = 0; i < m; ++i) out[lo + i] = D[i * m + i];
    }
  };
}

std::string DotReport::text() const {
  const Format out = result_format(target);
  const std::string target_text = describe(target);
  report::Headline h{target_text, tested, failed, {}, "", report::ClassNoun::always_plural};
  report::Text t{{}, {}, "  ", {}};
  for (const DotMismatch& m : minimal) {
    h.classes.emplace_back(name(m.c.cls));
    t.classes.push_back("  [" + std::string(name(m.c.cls)) + "] " + lanes_text(target, m.c) + " => " +
                        hex(m.got, out.bits) + " (" + val(out, m.got) + ") expected " + hex(m.expected, out.bits) +
                        " (" + val(out, m.expected) + ")  " + m.why + "  [" + std::to_string(m.class_failures) +
                        " failing]\n");
    t.reproduce.push_back(m.reproduce);
  }
  t.headline = report::headline(h);
  return report::text(t, diagnosis);
}

std::string DotReport::json() const {
  nlohmann::ordered_json head;
  head["target"] = {{"kind", "dot"}, {"a", format_name(target.a)}, {"b", format_name(target.b)},
                    {"k", target.k}, {"model", target.model.name}, {"result", format_name(result_format(target))}};
  nlohmann::ordered_json mins = nlohmann::ordered_json::array();
  for (const DotMismatch& m : minimal)
    mins.push_back({{"class", std::string(name(m.c.cls))},
                    {"a", m.c.a},
                    {"b", m.c.b},
                    {"c", m.c.c},
                    {"got", m.got},
                    {"expected", m.expected},
                    {"class_failures", m.class_failures},
                    {"why", m.why},
                    {"reproduce", m.reproduce}});
  return report::json(std::move(head), {tested, failed, kernel_calls}, report::OkField::no, std::move(mins), diagnosis,
                      report::JsonLayout::compact);
}

}  // namespace minifloat::check
