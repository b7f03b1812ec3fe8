// SPDX-License-Identifier: Apache-2.0
// convert_props_test.cpp: RapidCheck properties of minifloat's f64/f32 → format conversion.
// Inputs are biased to the places rounding goes wrong: grid midpoints ± k source ulps, the
// overflow threshold, subnormal boundaries, ±0, NaN and ±Inf. Differential properties use the
// MPFR oracle (tests/oracle, no shared code) as the expected value; structural properties
// (RD ≤ x ≤ RU, nearest modes pick the nearer of RD/RU, monotonicity, sign symmetry) read the
// engine's codes back through the oracle's independent decoder.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine_map.hpp"
#include "minifloat/core/convert.hpp"
#include "mpfr_oracle.hpp"
#include "spec_formats.hpp"

namespace minifloat_test {
namespace {

using oracle::Mode;
using oracle::Overflow;

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> v = [] {  // the named formats of <= 16 bits, then P3109 samples
    std::vector<std::string> out;
    for (const auto& r : minifloat::kNamedFormats)
      if (r.format.bits <= 16) out.emplace_back(r.name);
    for (const char* p : {"Binary8p3se", "Binary8p4sf", "Binary8p1uf", "Binary8p1se", "Binary8p5ue", "Binary12p6se"})
      out.emplace_back(p);
    return out;
  }();
  return v;
}

/// A target: oracle spec, its sorted finite positive values, the engine format, an oracle Target.
struct TargetInfo {
  oracle::SpecFormat spec;
  std::vector<double> pos;  // finite positive values, ascending
  minifloat::Format fmt;
  std::unique_ptr<oracle::Target> oracle;
};

TargetInfo& target(std::size_t i) {
  static std::vector<std::unique_ptr<TargetInfo>> cache(target_names().size());
  if (!cache[i]) {
    auto t = std::make_unique<TargetInfo>();
    t->spec = oracle::spec_by_name(target_names()[i]);
    for (std::uint64_t c = 0; c < t->spec.code_count(); ++c) {
      const oracle::Exact e = oracle::decode(t->spec, c);
      if (e.kind == oracle::Kind::finite && !e.negative && e.sig != 0) t->pos.push_back(oracle::to_double(e));
    }
    std::sort(t->pos.begin(), t->pos.end());
    t->fmt = engine_format(t->spec);
    t->oracle = std::make_unique<oracle::Target>(t->spec);
    cache[i] = std::move(t);
  }
  return *cache[i];
}

/// Source format of the generated input: f64 (double) or f32 (float).
enum class Source { f64, f32 };

double step(double v, int k, Source s) {
  if (s == Source::f32) {
    float f = static_cast<float>(v);
    for (; k > 0; --k) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    for (; k < 0; ++k) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return f;
  }
  for (; k > 0; --k) v = std::nextafter(v, HUGE_VAL);
  for (; k < 0; ++k) v = std::nextafter(v, -HUGE_VAL);
  return v;
}

/// Values where rounding into `t` is delicate, as the source type would hold them.
rc::Gen<double> interesting(const TargetInfo& t, Source src) {
  const auto& pos = t.pos;
  const double max = pos.back();
  const double ulp_max = std::ldexp(1.0, std::ilogb(max) - t.spec.mbits);
  const double min_normal = std::ldexp(1.0, t.spec.emin());
  const double min_pos = pos.front();
  const int n = static_cast<int>(pos.size());
  return rc::gen::apply(
      [=](int kind, int idx, int k, bool negative, std::uint64_t raw) {
        double v = 0;
        switch (kind) {
          case 0:
          case 1:
          case 2: {  // midpoint between two neighbours (or 0 and the smallest) ± k ulps
            const int i = idx % n;
            const double lo = i == 0 ? 0.0 : pos[static_cast<std::size_t>(i - 1)];
            v = step((lo + pos[static_cast<std::size_t>(i)]) / 2, k, src);
            break;
          }
          case 3: v = step(pos[static_cast<std::size_t>(idx % n)], k, src); break;   // a grid value ± k
          case 4: v = step(max + ulp_max / 2, k, src); break;                         // overflow threshold
          case 5: v = step(max + ulp_max * (1 + idx % 4), k, src); break;              // beyond max
          case 6: v = step(min_normal, k, src); break;                                // subnormal/normal boundary
          case 7: v = step(min_pos / 2, k, src); break;                                // half the smallest
          case 8: v = step(min_pos, k, src); break;
          case 9: {
            static const double specials[] = {0.0, HUGE_VAL, std::numeric_limits<double>::quiet_NaN()};
            v = specials[idx % 3];
            break;
          }
          default:  // any bit pattern of the source type
            v = src == Source::f64 ? std::bit_cast<double>(raw)
                                   : static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(raw)));
            break;
        }
        if (src == Source::f32) v = static_cast<float>(v);
        return negative ? -v : v;
      },
      rc::gen::inRange(0, 11), rc::gen::inRange(0, 1 << 16), rc::gen::inRange(-3, 4), rc::gen::arbitrary<bool>(),
      rc::gen::arbitrary<std::uint64_t>());
}

rc::Gen<std::size_t> any_target() { return rc::gen::inRange<std::size_t>(0, target_names().size()); }

minifloat::RoundResult engine(const TargetInfo& t, double x, Source src, Mode m, Overflow o) {
  if (src == Source::f32) return minifloat::from_float(static_cast<float>(x), t.fmt, engine_spec(m, o));
  return minifloat::from_double(x, t.fmt, engine_spec(m, o));
}

double value_of(const TargetInfo& t, std::uint64_t code) { return oracle::to_double(oracle::decode(t.spec, code)); }

void check_against_mpfr(Source src) {
  const std::size_t ti = *any_target();
  TargetInfo& t = target(ti);
  const double x = *interesting(t, src);
  mpfr_t mx;
  mpfr_init2(mx, 64);
  oracle::set_from_double(mx, x);
  for (Mode m : kAllModes) {
    for (Overflow o : {Overflow::nonsat, Overflow::satfinite, Overflow::satpropagate}) {
      const oracle::Result want = t.oracle->round(mx, m, o);
      const minifloat::RoundResult got = engine(t, x, src, m, o);
      if (got.code != want.code || from_engine(got.flags) != want.flags) {
        std::ostringstream msg;
        msg << std::hexfloat << x << " -> " << t.spec.name << " " << oracle::mode_name(m) << " "
            << oracle::overflow_name(o) << ": MPFR " << hex(want.code) << " {" << oracle::flags_text(want.flags)
            << "}, minifloat " << hex(got.code) << " {" << oracle::flags_text(from_engine(got.flags)) << "}";
        mpfr_clear(mx);
        RC_FAIL(msg.str());
      }
    }
  }
  mpfr_clear(mx);
}

RC_GTEST_PROP(ConvertVsMpfr, FromF64MatchesOracle, ()) { check_against_mpfr(Source::f64); }
RC_GTEST_PROP(ConvertVsMpfr, FromF32MatchesOracle, ()) { check_against_mpfr(Source::f32); }

// RD(x) ≤ x ≤ RU(x) (rtn/rtp), and rne/rna give one of them, the nearer one.
void check_bracketing(Source src) {
  TargetInfo& t = target(*any_target());
  const double x = *interesting(t, src);
  RC_PRE(std::isfinite(x));
  RC_PRE(t.spec.is_signed || !std::signbit(x));
  RC_PRE(t.spec.has_zero || std::fabs(x) >= t.pos.front());
  RC_PRE(std::fabs(x) <= t.pos.back());  // beyond max, a format without Inf/NaN saturates
  const double rd = value_of(t, engine(t, x, src, Mode::rtn, Overflow::nonsat).code);
  const double ru = value_of(t, engine(t, x, src, Mode::rtp, Overflow::nonsat).code);
  RC_PRE(!std::isnan(rd) && !std::isnan(ru));  // nonsat overflow into a NaN-only format
  RC_ASSERT(rd <= x);
  RC_ASSERT(x <= ru);
  RC_PRE(std::isfinite(rd) && std::isfinite(ru));
  for (Mode m : {Mode::rne, Mode::rna, Mode::rnz, Mode::rnu}) {
    const double rn = value_of(t, engine(t, x, src, m, Overflow::nonsat).code);
    RC_ASSERT(rn == rd || rn == ru);
    const double other = rn == rd ? ru : rd;
    RC_ASSERT(std::fabs(x - rn) <= std::fabs(x - other));
  }
}

RC_GTEST_PROP(ConvertStructure, RoundDownUpBracketAndNearestIsNearer64, ()) { check_bracketing(Source::f64); }
RC_GTEST_PROP(ConvertStructure, RoundDownUpBracketAndNearestIsNearer32, ()) { check_bracketing(Source::f32); }

// x ≤ y ⇒ round(x) ≤ round(y), every mode and policy (NaN results skipped).
RC_GTEST_PROP(ConvertStructure, Monotonic, ()) {
  TargetInfo& t = target(*any_target());
  double x = *interesting(t, Source::f64);
  double y = *interesting(t, Source::f64);
  RC_PRE(!std::isnan(x) && !std::isnan(y));
  if (y < x) std::swap(x, y);
  for (Mode m : kAllModes) {
    for (Overflow o : {Overflow::nonsat, Overflow::satfinite, Overflow::satpropagate}) {
      const double rx = value_of(t, engine(t, x, Source::f64, m, o).code);
      const double ry = value_of(t, engine(t, y, Source::f64, m, o).code);
      if (std::isnan(rx) || std::isnan(ry)) continue;
      RC_ASSERT(rx <= ry);
    }
  }
}

// Signed formats: round(−x) = −round(x) for the symmetric modes rne rna rtz rto (codes and flags).
RC_GTEST_PROP(ConvertStructure, SignSymmetric, ()) {
  TargetInfo& t = target(*any_target());
  RC_PRE(t.spec.is_signed);
  const double x = *interesting(t, Source::f64);
  RC_PRE(!std::isnan(x));
  for (Mode m : {Mode::rne, Mode::rna, Mode::rtz, Mode::rto, Mode::rnz}) {  // not rnu: its ties go toward +Inf
    for (Overflow o : {Overflow::nonsat, Overflow::satfinite, Overflow::satpropagate}) {
      const minifloat::RoundResult p = engine(t, x, Source::f64, m, o);
      const minifloat::RoundResult q = engine(t, -x, Source::f64, m, o);
      const double vp = value_of(t, p.code), vq = value_of(t, q.code);
      RC_ASSERT(p.flags == q.flags);
      if (std::isnan(vp)) {
        RC_ASSERT(std::isnan(vq));
      } else {
        RC_ASSERT(vq == -vp);
      }
    }
  }
}

}  // namespace
}  // namespace minifloat_test
