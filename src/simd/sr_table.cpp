// SPDX-License-Identifier: Apache-2.0
// simd/sr_table.cpp: the SR tables of simd/sr_table.hpp, filled by the engine, and the array loop
// that reads them (the up/down decision is the engine's own detail::rounds_up).
#include "simd/sr_table.hpp"

#include <array>
#include <memory>
#include <mutex>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/round_pack.hpp"

namespace minifloat::simd {
namespace {

constexpr std::array<Format, 12> kFormats = {formats::e4m3fn,  formats::e5m2,   formats::e4m3fnuz, formats::e5m2fnuz,
                                             formats::e4m3b11fnuz, formats::e4m3, formats::e3m4, formats::e3m2fn,
                                             formats::e2m3fn, formats::e2m1fn, formats::e8m0fnu, formats::ue4m3};
constexpr std::array<Overflow, 3> kPolicies = {Overflow::nonsat, Overflow::satfinite, Overflow::satpropagate};
constexpr std::array<Profile, 4> kProfiles = {profiles::ocp, profiles::nvidia, profiles::ml_dtypes, profiles::p3109};

template <class T, std::size_t K>
int index_of(const std::array<T, K>& a, const T& v) {
  for (std::size_t i = 0; i < K; ++i)
    if (a[i] == v) return static_cast<int>(i);
  return -1;
}

std::mutex g_mutex;
std::array<std::unique_ptr<SrTable>, kFormats.size() * kPolicies.size() * kProfiles.size()> g_tables;

std::unique_ptr<SrTable> build(Format to, Overflow overflow, const Profile& prof) {
  auto t = std::make_unique<SrTable>();
  const int M = to.mantissa_bits;
  t->shift = 23 - M;
  t->to = to;
  t->overflow = overflow;
  t->prof = prof;
  const RoundingSpec spec{.rounding = Rounding::sr, .overflow = overflow, .sr_variant = SrVariant::exact};
  const std::uint32_t keys = std::uint32_t{1} << (9 + M);
  const std::uint32_t top_ones = (std::uint32_t{1} << M) - 1;
  const int em = emin(to);
  t->entry.resize(keys);
  for (std::uint32_t k = 0; k < keys; ++k) {
    SrEntry& e = t->entry[k];
    const std::uint32_t prefix = k << t->shift;
    const std::uint32_t biased = (k >> M) & 0xFFu;
    const RoundResult ex_r = convert(formats::f32, prefix, to, spec, prof, 0);
    e.exact = static_cast<std::uint8_t>(ex_r.code);
    e.f_exact = static_cast<std::uint8_t>(ex_r.flags);
    int s = t->shift;
    bool engine = false;
    if (biased == 0) {  // ±0 (exact entry) or an f32 subnormal (engine)
      engine = true;
    } else if (biased != 0xFF) {
      const int ex = static_cast<int>(biased) - 127;
      if (ex < em) s += em - ex;
      if (s > 40) engine = true;
      if (ex == em - 1 && (k & top_ones) == top_ones) engine = true;
    }
    e.s = static_cast<std::uint8_t>(s);
    // The loop ORs in the implicit bit 2^23; an f32 zero/subnormal key masks it out again, so
    // R = 0 there means exactly ±0.
    e.mask = biased == 0 ? 0x7FFFFFu : (s >= 24 ? 0xFFFFFFu : (std::uint32_t{1} << s) - 1);
    e.engine = engine ? 1 : 0;
    // Representative of the inexact elements: the lowest bit set (R ≠ 0 since s ≥ 1). Bits 0 force
    // `exact` up (0 < frac), bits 2^64 − 1 force it down (frac < 2^64 − 1 when s ≤ 40).
    const RoundResult up = convert(formats::f32, prefix | 1u, to, spec, prof, 0);
    const RoundResult down = convert(formats::f32, prefix | 1u, to, spec, prof, ~std::uint64_t{0});
    e.up = static_cast<std::uint8_t>(up.code);
    e.f_up = static_cast<std::uint8_t>(up.flags);
    e.down = static_cast<std::uint8_t>(down.code);
    e.f_down = static_cast<std::uint8_t>(down.flags);
  }
  return t;
}

template <SrVariant V>
unsigned loop(const SrTable& t, RoundingSpec spec, const std::uint32_t* x, const std::uint64_t* rbits,
              std::uint8_t* out, std::size_t n) {
  spec.sr_variant = V;  // a constant after inlining: rounds_up's variant switch folds away
  const SrEntry* table = t.entry.data();
  const int shift = t.shift;
  unsigned flags = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t xi = x[i];
    const SrEntry& e = table[xi >> shift];
    const std::uint32_t R = (xi | 0x800000u) & e.mask;
    unsigned code, f;
    if (R == 0) {
      code = e.exact;
      f = e.f_exact;
    } else if (e.engine != 0) {
      const RoundResult r = convert(formats::f32, xi, t.to, spec, t.prof, rbits[i]);
      code = static_cast<unsigned>(r.code);
      f = r.flags;
    } else {
      const detail::Cut c{0, std::uint64_t{R} << (64 - e.s), false};
      const bool u = detail::rounds_up(c, false, false, spec, rbits[i]);
      code = u ? e.up : e.down;
      f = u ? e.f_up : e.f_down;
    }
    out[i] = static_cast<std::uint8_t>(code);
    flags |= f;
  }
  return flags;
}

}  // namespace

const SrTable* sr_table(Format to, const RoundingSpec& spec, const Profile& prof) {
  const int f = index_of(kFormats, to), o = index_of(kPolicies, spec.overflow), p = index_of(kProfiles, prof);
  if (spec.rounding != Rounding::sr || f < 0 || o < 0 || p < 0) return nullptr;
  const std::size_t slot = (static_cast<std::size_t>(f) * kPolicies.size() + o) * kProfiles.size() + p;
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_tables[slot]) g_tables[slot] = build(to, spec.overflow, prof);
  return g_tables[slot].get();
}

unsigned sr_encode_f32_bits(const SrTable& t, const RoundingSpec& spec, const std::uint32_t* x,
                            const std::uint64_t* rbits, std::uint8_t* out, std::size_t n) {
  switch (spec.sr_variant) {
    case SrVariant::exact: return loop<SrVariant::exact>(t, spec, x, rbits, out, n);
    case SrVariant::a: return loop<SrVariant::a>(t, spec, x, rbits, out, n);
    case SrVariant::b: return loop<SrVariant::b>(t, spec, x, rbits, out, n);
    case SrVariant::c: return loop<SrVariant::c>(t, spec, x, rbits, out, n);
    case SrVariant::equal: return loop<SrVariant::equal>(t, spec, x, rbits, out, n);
  }
  return 0;
}

}  // namespace minifloat::simd
