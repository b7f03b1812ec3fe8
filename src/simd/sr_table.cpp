// SPDX-License-Identifier: Apache-2.0
// simd/sr_table.cpp: the SR tables of simd/sr_table.hpp, filled by the engine, and the array loop
// that reads them (the up/down decision is the engine's own detail::rounds_up).
#include "simd/sr_table.hpp"

#include <array>
#include <memory>
#include <mutex>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/round_pack.hpp"
#include "simd/convert_simd.hpp"

namespace minifloat::simd {
namespace {

/// binary32 / binary64 source facts.
template <class Bits>
struct Src;
template <>
struct Src<std::uint32_t> {
  static constexpr Format format = formats::f32;
  static constexpr int mant = 23, exp_bits = 8, bias = 127;
  static constexpr int kMaxS = 40;  // R < 2^24: frac = R·2^(64−s) < 2^64 − 1 and exact below that
};
template <>
struct Src<std::uint64_t> {
  static constexpr Format format = formats::f64;
  static constexpr int mant = 52, exp_bits = 11, bias = 1023;
  static constexpr int kMaxS = 63;  // frac = R·2^(64−s) keeps its low bit 0, so 2^64 − 1 forces down
};

std::uint16_t word(const RoundResult& r) {
  return static_cast<std::uint16_t>(r.code | (static_cast<unsigned>(r.flags) << 8));
}

template <class Bits>
std::unique_ptr<SrTableT<Bits>> build(Format to, Overflow overflow, const Profile& prof) {
  using S = Src<Bits>;
  auto t = std::make_unique<SrTableT<Bits>>();
  const int M = to.mantissa_bits;
  t->shift = S::mant - M;
  t->to = to;
  t->overflow = overflow;
  t->prof = prof;
  const RoundingSpec spec{.rounding = Rounding::sr, .overflow = overflow, .sr_variant = SrVariant::exact};
  const std::size_t keys = std::size_t{1} << (1 + S::exp_bits + M);
  const std::size_t top_ones = (std::size_t{1} << M) - 1;
  const std::size_t exp_max = (std::size_t{1} << S::exp_bits) - 1;
  const Bits sig_all = (Bits{1} << (S::mant + 1)) - 1;  // implicit bit and mantissa
  const int em = emin(to);
  t->entry.resize(keys);
  for (std::size_t k = 0; k < keys; ++k) {
    SrEntryT<Bits>& e = t->entry[k];
    const Bits prefix = static_cast<Bits>(k) << t->shift;
    const std::size_t biased = (k >> M) & exp_max;
    e.exact = word(convert(S::format, prefix, to, spec, prof, 0));
    int s = t->shift;
    bool engine = false;
    if (biased == 0) {  // ±0 (exact entry) or a subnormal source (engine)
      engine = true;
    } else if (biased != exp_max) {
      const int ex = static_cast<int>(biased) - S::bias;
      if (ex < em) s += em - ex;
      if (s > S::kMaxS) engine = true;
      if (ex == em - 1 && (k & top_ones) == top_ones) engine = true;
    }
    e.s = static_cast<std::uint8_t>(s > 255 ? 255 : s);
    // The loop ORs in the implicit bit; a zero-exponent key masks it out again, so R = 0 there
    // means exactly ±0.
    e.mask = biased == 0 ? (sig_all >> 1) : (s > S::mant ? sig_all : (Bits{1} << s) - 1);
    e.engine = engine ? 1 : 0;
    // Representative of the inexact elements: the lowest bit set (R ≠ 0 since s ≥ 1). Bits 0 force
    // `exact` up (0 < frac), bits 2^64 − 1 force it down (frac < 2^64 − 1 when s ≤ kMaxS).
    e.up = word(convert(S::format, prefix | 1u, to, spec, prof, 0));
    e.down = word(convert(S::format, prefix | 1u, to, spec, prof, ~std::uint64_t{0}));
  }
  t->emin_biased = em + S::bias;
  if constexpr (sizeof(Bits) == 4) {
    t->word4.resize(4 * keys + 1);  // + 1: the kernel reads each entry as the low half of 4 bytes (sr-inl.h)
    for (std::size_t k = 0; k < keys; ++k) {
      const SrEntryT<Bits>& e = t->entry[k];
      const std::size_t biased = (k >> M) & exp_max;
      // The tininess corner (binade 2^(emin−1), top M mantissa bits all ones): rounding up gives
      // 2^emin, and the underflow flag is the second decision J (round_pack) at the quantum one bit
      // finer, which the kernel makes in its lanes. Every SR variant's decision is monotone in the
      // cut and the finer cut is 2·(cut − 1/2) < cut, so "down" implies "J not up" (tiny): the
      // words are down, up with J up (bits 0) and up with J down (bits 2^(65−s) for the
      // representative R = 2^(s−1) + 1: its finer cut is 2^(65−s), its cut 2^63 + 2^(64−s)).
      const bool corner = biased != 0 && biased != exp_max && static_cast<int>(biased) - S::bias == em - 1 &&
                          (k & top_ones) == top_ones && e.s <= S::kMaxS;
      const std::uint16_t mark = e.engine != 0 && !corner ? kEngineMark : 0;
      t->word4[4 * k] = static_cast<std::uint16_t>(e.down | mark);
      t->word4[4 * k + 1] = static_cast<std::uint16_t>(e.up | mark);
      t->word4[4 * k + 2] = e.exact;
      t->word4[4 * k + 3] = static_cast<std::uint16_t>(e.up | mark);
      if (corner) {
        const Bits prefix = static_cast<Bits>(k) << t->shift;
        t->word4[4 * k + 3] = word(convert(S::format, prefix | 1u, to, spec, prof, std::uint64_t{1} << (65 - e.s)));
      }
    }
  }
  return t;
}

template <SrVariant V, class Bits>
unsigned loop(const SrTableT<Bits>& t, const RoundingSpec& spec, const Bits* x, const std::uint64_t* rbits,
              std::uint8_t* out, std::size_t n) {
  using S = Src<Bits>;
  // A local spec whose rounding and variant are constants: rounds_up's switches fold away.
  const RoundingSpec sv{.rounding = Rounding::sr, .overflow = spec.overflow, .sr_variant = V, .sr_bits = spec.sr_bits};
  const SrEntryT<Bits>* table = t.entry.data();
  const int shift = t.shift;
  constexpr Bits implicit = Bits{1} << S::mant;
  unsigned acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Bits xi = x[i];
    const SrEntryT<Bits>& e = table[xi >> shift];
    const Bits R = (xi | implicit) & e.mask;
    unsigned w;
    if (R == 0) {
      w = e.exact;
    } else if (e.engine != 0) {
      const RoundResult r = convert(S::format, xi, t.to, sv, t.prof, rbits[i]);
      w = static_cast<unsigned>(r.code) | (static_cast<unsigned>(r.flags) << 8);
    } else {
      const detail::Cut c{0, std::uint64_t{R} << (64 - e.s), false};
      // The decision is a coin flip: select without a branch (a mispredicted one per element
      // cost more than the rest of the loop, perf annotate of bench_sr).
      const unsigned up = detail::rounds_up(c, false, false, sv, rbits[i]) ? ~0u : 0u;
      w = (e.up & up) | (e.down & ~up);
    }
    out[i] = static_cast<std::uint8_t>(w);
    acc |= w;
  }
  return (acc >> 8) & 0xFFu;
}

template <class Bits>
unsigned dispatch(const SrTableT<Bits>& t, const RoundingSpec& spec, const Bits* x, const std::uint64_t* rbits,
                  std::uint8_t* out, std::size_t n) {
  switch (spec.sr_variant) {
    case SrVariant::exact: return loop<SrVariant::exact>(t, spec, x, rbits, out, n);
    case SrVariant::a: return loop<SrVariant::a>(t, spec, x, rbits, out, n);
    case SrVariant::b: return loop<SrVariant::b>(t, spec, x, rbits, out, n);
    case SrVariant::c: return loop<SrVariant::c>(t, spec, x, rbits, out, n);
    case SrVariant::equal: return loop<SrVariant::equal>(t, spec, x, rbits, out, n);
    case SrVariant::stochastic_odd: return loop<SrVariant::stochastic_odd>(t, spec, x, rbits, out, n);
  }
  return 0;
}

constexpr std::size_t kSlots = kFormats.size() * kPolicies.size() * kProfiles.size();
std::mutex g_mutex;
std::array<std::unique_ptr<SrTable>, kSlots> g_tables;
std::array<std::unique_ptr<SrTable64>, kSlots> g_tables64;

template <class Bits>
const SrTableT<Bits>* cached(std::array<std::unique_ptr<SrTableT<Bits>>, kSlots>& cache, Format to,
                             const RoundingSpec& spec, const Profile& prof) {
  const int f = index_of(kFormats, to), o = index_of(kPolicies, spec.overflow), p = index_of(kProfiles, prof);
  if (spec.rounding != Rounding::sr || f < 0 || o < 0 || p < 0) return nullptr;
  // Built and proved for ≤ 32 random bits, the first five variants, no ftz/daz: the others run the engine.
  if (spec.ftz || spec.daz || spec.sr_bits > 32 || spec.sr_variant == SrVariant::stochastic_odd) return nullptr;
  const std::size_t slot = (static_cast<std::size_t>(f) * kPolicies.size() + o) * kProfiles.size() + p;
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!cache[slot]) cache[slot] = build<Bits>(to, spec.overflow, prof);
  return cache[slot].get();
}

}  // namespace

const SrTable* sr_table(Format to, const RoundingSpec& spec, const Profile& prof) {
  return cached(g_tables, to, spec, prof);
}
const SrTable64* sr_table64(Format to, const RoundingSpec& spec, const Profile& prof) {
  if (prof.source_via_f32) return nullptr;  // D11: the f32 step is a second rounding before SR
  return cached(g_tables64, to, spec, prof);
}

unsigned sr_encode_f32_bits(const SrTable& t, const RoundingSpec& spec, const std::uint32_t* x,
                            const std::uint64_t* rbits, std::uint8_t* out, std::size_t n) {
  return dispatch(t, spec, x, rbits, out, n);
}
unsigned sr_encode_f64_bits(const SrTable64& t, const RoundingSpec& spec, const std::uint64_t* x,
                            const std::uint64_t* rbits, std::uint8_t* out, std::size_t n) {
  return dispatch(t, spec, x, rbits, out, n);
}

}  // namespace minifloat::simd
