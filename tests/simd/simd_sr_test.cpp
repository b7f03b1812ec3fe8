// SPDX-License-Identifier: Apache-2.0
// simd_sr_test.cpp: the table path of stochastic rounding (src/simd/sr_table.*, sr_path in
// stochastic.hpp) against THE engine, element by element. Oracle: the scalar `convert` of
// core/convert.hpp with Rounding::sr and the random bits of random.hpp's scalar `sr_bits`
// (Random123 Philox4x32-10, one block per call), which share no code with the table loop or the
// vectorised fill_sr_bits. Every f16 and bf16 input (and 7 low halves under every bf16 prefix as
// f32) × every whitelisted (format, overflow, profile) × SR variants and sr_bits × two streams, the
// f16/bf16 calls on every Highway target, one gtest instance each (per_target.hpp; the f16 widening
// and the Philox are per-target kernels);
// codes per element and the flags of the call. RapidCheck over f32 and f64 with boundary inputs.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/stochastic.hpp"
#include "per_target.hpp"
#include "simd/convert_simd.hpp"
#include "simd/sr_table.hpp"

namespace mf = minifloat;

namespace {

// The whitelist itself (simd/convert_simd.hpp; its formats are the kArrayPath rows of core/named_formats.hpp).
using mf::simd::kFormats;
using mf::simd::kPolicies;
using mf::simd::kProfiles;
/// The registry's name of kProfiles[p] ("ocp", …), for messages.
std::string profile_label(std::size_t p) { return std::string(mf::profile_name(kProfiles[p])); }
/// Variant × sr_bits pairs run per combination (N = 1, 3, 8, 23, 32 cover the shifts' ends).
struct Sr {
  mf::SrVariant v;
  std::uint8_t n;
};
const std::array<Sr, 6> kSr = {Sr{mf::SrVariant::exact, 8},  Sr{mf::SrVariant::a, 8}, Sr{mf::SrVariant::b, 3},
                               Sr{mf::SrVariant::c, 32},     Sr{mf::SrVariant::equal, 8},
                               Sr{mf::SrVariant::a, 1}};
const std::array<mf::SrStream, 2> kStreams = {mf::SrStream{.seed = 1, .stream = 0, .step = 0, .index_base = 0},
                                              mf::SrStream{.seed = 0x9e3779b97f4a7c15ull, .stream = 7, .step = 3,
                                                           .index_base = 12345}};


/// The oracle's random bits: scalar sr_bits, element i of a stream.
const std::vector<std::uint64_t>& oracle_bits(std::size_t stream, mf::SrVariant v, std::size_t n) {
  static std::array<std::array<std::vector<std::uint64_t>, 2>, 2> cache;  // [stream][2 words?]
  std::vector<std::uint64_t>& b = cache[stream][mf::sr_words(v) == 2 ? 1 : 0];
  if (b.size() < n) {
    const mf::SrStream& s = kStreams[stream];
    const mf::SrVariant rep = mf::sr_words(v) == 2 ? mf::SrVariant::exact : mf::SrVariant::a;
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = mf::sr_bits(s.seed, s.stream, s.step, s.index_base + i, rep);
  }
  return b;
}

struct Ref {
  std::vector<std::uint8_t> code;
  std::vector<std::uint8_t> each;  // flags per element
  unsigned flags = 0;
};
Ref engine(mf::Format src, const std::uint32_t* bits, std::size_t n, mf::Format to, const mf::RoundingSpec& spec,
           const mf::Profile& prof, const std::vector<std::uint64_t>& rb) {
  Ref r;
  r.code.resize(n);
  r.each.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const mf::RoundResult e = mf::convert(src, bits[i], to, spec, prof, rb[i]);
    r.code[i] = static_cast<std::uint8_t>(e.code);
    r.each[i] = e.flags;
    r.flags |= e.flags;
  }
  return r;
}

/// Flags element by element (the API returns only their OR, which a whole array saturates): the
/// table loop called on one element at a time.
template <class Table, class Bits, class Call>
std::size_t count_bad_flags(const char* what, const Table& t, const Bits* x, const std::vector<std::uint64_t>& rb,
                            std::size_t n, const Ref& ref, Call call) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t code = 0;
    const unsigned f = call(t, &x[i], &rb[i], &code);
    if ((f != ref.each[i] || code != ref.code[i]) && ++bad <= 3)
      ADD_FAILURE() << what << ": element " << i << " (bits 0x" << std::hex << x[i] << ") flags " << f
                    << " code 0x" << unsigned{code} << ", engine flags " << unsigned{ref.each[i]} << " code 0x"
                    << unsigned{ref.code[i]};
  }
  return bad;
}

std::size_t count_bad(const char* what, const std::vector<std::uint8_t>& got, unsigned got_flags, const Ref& ref) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != ref.code[i] && ++bad <= 3)
      ADD_FAILURE() << what << ": element " << i << " gives 0x" << std::hex << unsigned{got[i]} << ", engine 0x"
                    << unsigned{ref.code[i]};
  if (got_flags != ref.flags) {
    ++bad;
    ADD_FAILURE() << what << ": flags " << got_flags << ", engine " << ref.flags;
  }
  return bad;
}

class SimdSrExhaustive : public minifloat_test::PerFormatTarget {};
MINIFLOAT_INSTANTIATE_PER_FORMAT_TARGET(SimdSrExhaustive);

TEST_P(SimdSrExhaustive, EveryF16Bf16InputEverySrCombination) {
  const mf::Format to = kFormats[format_index()];
  std::vector<std::uint16_t> h16(65536);
  std::vector<std::uint32_t> h32(65536), b32(65536), f32;
  for (std::uint32_t i = 0; i < 65536; ++i) {
    h16[i] = static_cast<std::uint16_t>(i);
    b32[i] = i << 16;
  }
  for (std::uint32_t i = 0; i < 65536; ++i) h32[i] = static_cast<std::uint32_t>(mf::convert(mf::formats::f16, i, mf::formats::f32).code);
  for (std::uint32_t i = 0; i < 65536; ++i)
    for (std::uint32_t l : {0x0000u, 0x0001u, 0x4000u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) f32.push_back((i << 16) | l);
  std::vector<float> f32v(f32.size());
  std::memcpy(f32v.data(), f32.data(), f32.size() * 4);
  std::size_t runs = 0, mismatches = 0;
  for (std::size_t p = 0; p < kProfiles.size(); ++p)
    for (std::size_t o = 0; o < kPolicies.size(); ++o)
      for (std::size_t k = 0; k < kSr.size(); ++k) {
        const mf::RoundingSpec spec{.rounding = mf::Rounding::sr, .overflow = kPolicies[o], .sr_variant = kSr[k].v,
                                    .sr_bits = kSr[k].n};
        const mf::Profile prof = kProfiles[p];
        const std::size_t si = (p + o + k) % kStreams.size();
        const mf::SrStream& s = kStreams[si];
        SCOPED_TRACE(std::string(mf::overflow_name(kPolicies[o])) + " " + profile_label(p) + " " +
                     std::string(mf::sr_variant_name(kSr[k].v)) + "/" + std::to_string(kSr[k].n) + " stream " +
                     std::to_string(si));
        ASSERT_EQ(mf::sr_path(to, spec, prof), mf::ArrayPath::simd);
        const auto& rb = oracle_bits(si, kSr[k].v, f32.size());
        // The f16 oracle rounds the binary16 input itself (its f32 widening is exact, but the oracle
        // does not rely on that).
        Ref rh;
        rh.code.resize(65536);
        rh.each.resize(65536);
        for (std::uint32_t i = 0; i < 65536; ++i) {
          const mf::RoundResult e = mf::convert(mf::formats::f16, i, to, spec, prof, rb[i]);
          rh.code[i] = static_cast<std::uint8_t>(e.code);
          rh.each[i] = e.flags;
          rh.flags |= e.flags;
        }
        const Ref rbf = engine(mf::formats::f32, b32.data(), b32.size(), to, spec, prof, rb);
        const mf::simd::SrTable* table = mf::simd::sr_table(to, spec, prof);
        ASSERT_NE(table, nullptr);
        const auto one = [&](const mf::simd::SrTable& t, const std::uint32_t* x, const std::uint64_t* rbits1,
                             std::uint8_t* code1) { return mf::simd::sr_encode_f32_bits(t, spec, x, rbits1, code1, 1); };
        mismatches += count_bad_flags("f16 per element", *table, h32.data(), rb, 65536, rh, one);
        mismatches += count_bad_flags("bf16 per element", *table, b32.data(), rb, 65536, rbf, one);
        std::vector<std::uint16_t> b16(65536);
        for (std::uint32_t i = 0; i < 65536; ++i) b16[i] = static_cast<std::uint16_t>(i);
        {
          std::vector<std::uint8_t> out(65536, 0xAA);
          unsigned f = mf::sr_convert_f16_bits(h16, out, to, spec, s, prof);
          mismatches += count_bad("f16", out, f, rh);
          std::fill(out.begin(), out.end(), 0xAA);
          f = mf::sr_convert_bf16_bits(b16, out, to, spec, s, prof);
          mismatches += count_bad("bf16", out, f, rbf);
          ++runs;
        }
        if (o == 1 && k == p % kSr.size()) {  // f32 with the tie/sticky low halves: one variant per profile
          const Ref rf = engine(mf::formats::f32, f32.data(), f32.size(), to, spec, prof, rb);
          std::vector<std::uint8_t> out(f32.size(), 0xAA);
          const unsigned f = mf::sr_convert_f32(f32v, out, to, spec, s, prof);
          mismatches += count_bad("f32", out, f, rf);
          mismatches += count_bad_flags("f32 per element", *table, f32.data(), rb, f32.size(), rf, one);
        }
      }
  EXPECT_EQ(mismatches, 0u);
  std::printf("[simd sr] %s on %s: %zu combinations x 131072 f16+bf16 inputs (+ %zu f32 x 4), %zu mismatches\n",
              std::string(mf::format_name(to)).c_str(), mf::simd::target_name(), runs, f32.size(), mismatches);
}


TEST(SimdSrWhitelist, OnlyTheStatedCombinationsTakeTheTablePath) {
  const mf::RoundingSpec sr{.rounding = mf::Rounding::sr};
  EXPECT_EQ(mf::sr_path(mf::formats::e4m3fn, sr, mf::profiles::ocp), mf::ArrayPath::simd);
  EXPECT_EQ(mf::sr_path(mf::formats::e4m3fn, {.rounding = mf::Rounding::rne}, mf::profiles::ocp), mf::ArrayPath::engine);
  EXPECT_EQ(mf::sr_path(mf::formats::f16, sr, mf::profiles::ocp), mf::ArrayPath::engine);
  mf::Profile changed = mf::profiles::ocp;
  changed.nan_sign = changed.nan_sign == mf::NanSign::preserve ? mf::NanSign::positive : mf::NanSign::preserve;
  EXPECT_EQ(mf::sr_path(mf::formats::e4m3fn, sr, changed), mf::ArrayPath::engine);
  EXPECT_EQ(mf::sr_path(mf::formats::e4m3fn, sr, mf::profiles::torch), mf::ArrayPath::engine);
}

/// f32 near the target's neighbours, midpoints, 2^emin and max, moved by a few ulps, either sign; or any bits.
rc::Gen<std::uint32_t> boundary_bits(mf::Format to) {
  return rc::gen::apply(
      [to](int kind, std::uint32_t code, int ulps, bool neg, std::uint32_t any) {
        if (kind == 0) return any;
        const std::uint32_t n = 1u << to.bits;
        const double a = mf::to_double(to, code % n), b = mf::to_double(to, (code + 1) % n);
        double v = kind == 1 ? a : (kind == 2 ? (a + b) / 2 : a * 0.75);
        if (!(v == v) || v > 3.4e38 || v < -3.4e38) v = a;
        const float f = static_cast<float>(v);
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        bits = static_cast<std::uint32_t>(static_cast<std::int64_t>(bits) + ulps);
        return neg ? bits ^ 0x80000000u : bits;
      },
      rc::gen::inRange(0, 4), rc::gen::arbitrary<std::uint32_t>(), rc::gen::inRange(-300, 301),
      rc::gen::arbitrary<bool>(), rc::gen::arbitrary<std::uint32_t>());
}

RC_GTEST_PROP(SimdSrProps, F32ArraysEqualTheEngine, ()) {
  const mf::Format to = kFormats[*rc::gen::inRange<std::size_t>(0, kFormats.size())];
  const auto pi = *rc::gen::inRange<std::size_t>(0, kProfiles.size());
  const mf::RoundingSpec spec{.rounding = mf::Rounding::sr,
                              .overflow = kPolicies[*rc::gen::inRange<std::size_t>(0, kPolicies.size())],
                              .sr_variant = static_cast<mf::SrVariant>(*rc::gen::inRange(0, 5)),
                              .sr_bits = static_cast<std::uint8_t>(*rc::gen::inRange(1, 33))};
  const mf::SrStream s{.seed = *rc::gen::arbitrary<std::uint64_t>(), .stream = *rc::gen::arbitrary<std::uint32_t>(),
                       .step = *rc::gen::arbitrary<std::uint32_t>(),
                       .index_base = *rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 40)};
  const auto bits = *rc::gen::container<std::vector<std::uint32_t>>(boundary_bits(to));
  std::vector<float> in(bits.size());
  if (!bits.empty()) std::memcpy(in.data(), bits.data(), bits.size() * 4);
  std::vector<std::uint8_t> out(in.size());
  const unsigned flags = mf::sr_convert_f32(in, out, to, spec, s, kProfiles[pi]);
  unsigned want = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint64_t rb = mf::sr_bits(s.seed, s.stream, s.step, s.index_base + i, spec.sr_variant);
    const mf::RoundResult r = mf::convert(mf::formats::f32, bits[i], to, spec, kProfiles[pi], rb);
    RC_ASSERT(unsigned{out[i]} == r.code);
    want |= r.flags;
  }
  RC_ASSERT(flags == want);
}

RC_GTEST_PROP(SimdSrProps, F64ArraysEqualTheEngine, ()) {
  // f64 keys (sr_table64); profiles::ml_dtypes (source_via_f32) takes the engine, also compared.
  const mf::Format to = kFormats[*rc::gen::inRange<std::size_t>(0, kFormats.size())];
  const auto pi = *rc::gen::inRange<std::size_t>(0, kProfiles.size());
  const mf::RoundingSpec spec{.rounding = mf::Rounding::sr,
                              .overflow = kPolicies[*rc::gen::inRange<std::size_t>(0, kPolicies.size())],
                              .sr_variant = static_cast<mf::SrVariant>(*rc::gen::inRange(0, 5)),
                              .sr_bits = static_cast<std::uint8_t>(*rc::gen::inRange(1, 33))};
  const mf::SrStream s{.seed = *rc::gen::arbitrary<std::uint64_t>(), .stream = *rc::gen::arbitrary<std::uint32_t>(),
                       .step = *rc::gen::arbitrary<std::uint32_t>(),
                       .index_base = *rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 40)};
  const auto f = *rc::gen::container<std::vector<std::uint32_t>>(boundary_bits(to));
  const auto nudge = *rc::gen::container<std::vector<std::int64_t>>(f.size(), rc::gen::inRange<std::int64_t>(-(1 << 20), 1 << 20));
  const auto any = *rc::gen::container<std::vector<std::uint64_t>>(f.size(), rc::gen::arbitrary<std::uint64_t>());
  std::vector<double> in(f.size());
  std::vector<std::uint64_t> bits(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    float v;
    std::memcpy(&v, &f[i], 4);
    const double d = v;
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    b = (i % 8 == 7) ? any[i] : b + static_cast<std::uint64_t>(nudge[i]);  // mod 2^64
    bits[i] = b;
    std::memcpy(&in[i], &b, 8);
  }
  std::vector<std::uint8_t> out(in.size());
  const unsigned flags = mf::sr_convert_f64(in, out, to, spec, s, kProfiles[pi]);
  unsigned want = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint64_t rb = mf::sr_bits(s.seed, s.stream, s.step, s.index_base + i, spec.sr_variant);
    const mf::RoundResult r = mf::convert(mf::formats::f64, bits[i], to, spec, kProfiles[pi], rb);
    RC_ASSERT(unsigned{out[i]} == r.code);
    want |= r.flags;
  }
  RC_ASSERT(flags == want);
}

TEST(SimdSrF64, EveryF16ValueAsF64EqualsTheEngine) {
  // Every binary16 value (exact in f64) and its f64 neighbours 1 and 2^28 ulps away, exact variant.
  std::vector<double> in;
  std::vector<std::uint64_t> bits;
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const std::uint64_t b0 = mf::convert(mf::formats::f16, h, mf::formats::f64).code;
    for (std::uint64_t d : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1} << 28, ~std::uint64_t{0}}) {
      const std::uint64_t b = b0 + d;
      double v;
      std::memcpy(&v, &b, 8);
      in.push_back(v);
      bits.push_back(b);
    }
  }
  const auto& rb = oracle_bits(1, mf::SrVariant::exact, in.size());
  std::size_t bad = 0;
  for (mf::Format to : {mf::formats::e4m3fn, mf::formats::e5m2, mf::formats::e2m1fn, mf::formats::e8m0fnu}) {
    const mf::RoundingSpec spec{.rounding = mf::Rounding::sr, .overflow = mf::Overflow::nonsat};
    ASSERT_NE(mf::simd::sr_table64(to, spec, mf::profiles::ocp), nullptr);
    std::vector<std::uint8_t> out(in.size());
    const unsigned f = mf::sr_convert_f64(in, out, to, spec, kStreams[1], mf::profiles::ocp, 2);
    unsigned want = 0;
    const mf::simd::SrTable64* t64 = mf::simd::sr_table64(to, spec, mf::profiles::ocp);
    for (std::size_t i = 0; i < in.size(); ++i) {
      const mf::RoundResult r = mf::convert(mf::formats::f64, bits[i], to, spec, mf::profiles::ocp, rb[i]);
      want |= r.flags;
      if (out[i] != r.code && ++bad <= 3) ADD_FAILURE() << mf::format_name(to) << " element " << i;
      std::uint8_t c1 = 0;
      const unsigned f1 = mf::simd::sr_encode_f64_bits(*t64, spec, &bits[i], &rb[i], &c1, 1);
      if ((f1 != r.flags || c1 != r.code) && ++bad <= 3)
        ADD_FAILURE() << mf::format_name(to) << " element " << i << " alone: flags " << f1 << ", engine " << unsigned{r.flags};
    }
    EXPECT_EQ(f, want) << mf::format_name(to);
  }
  EXPECT_EQ(bad, 0u);
}

class SimdSrFused : public minifloat_test::PerTarget {};
MINIFLOAT_INSTANTIATE_PER_TARGET(SimdSrFused);

TEST_P(SimdSrFused, EveryWordEqualsTheEngineAcrossStreamEdges) {
  // The fused kernel (simd/sr-inl.h: Philox in registers, the decision in lanes) element by element:
  // the code AND the flags of every element it took (its word4 index, idx_out), against the engine
  // with the scalar sr_bits. Inputs: every bf16 prefix with a low half from {0, 1, 0x8000, 0xffff}
  // (ties, sticky, exact) and every binary16 value widened to binary32. Streams: an odd index_base
  // (the alignment head), and index bases just below the wrap of Philox counter word c0 for the
  // exact (block = index/2) and the one-word (block = index/4) layouts, so the vectors stop at the
  // wrap and resume after it. Every format, one (policy, profile) per format, 6 variant/sr_bits pairs.
  std::vector<std::uint32_t> x;
  for (std::uint32_t i = 0; i < 65536; ++i) x.push_back((i << 16) | std::array<std::uint32_t, 4>{0, 1, 0x8000, 0xffff}[i % 4]);
  for (std::uint32_t i = 0; i < 65536; ++i)
    x.push_back(static_cast<std::uint32_t>(mf::convert(mf::formats::f16, i, mf::formats::f32).code));
  const std::size_t n = x.size();
  const std::array<std::uint64_t, 3> bases = {12345, (std::uint64_t{1} << 33) - 70001, (std::uint64_t{1} << 34) - 50003};
  std::size_t mismatches = 0, taken = 0, checked = 0, runs = 0;
  for (std::size_t f = 0; f < kFormats.size(); ++f)
    for (std::size_t k = 0; k < kSr.size(); ++k) {
      const mf::Format to = kFormats[f];
      const mf::Profile prof = kProfiles[(f + k) % kProfiles.size()];
      const mf::RoundingSpec spec{.rounding = mf::Rounding::sr, .overflow = kPolicies[(f + 2 * k) % kPolicies.size()],
                                  .sr_variant = kSr[k].v, .sr_bits = kSr[k].n};
      const mf::SrStream s{.seed = 0xfeedface12345678ull + f, .stream = 5, .step = 9,
                           .index_base = bases[(f + k) % bases.size()]};
      SCOPED_TRACE(std::string(mf::format_name(to)) + " " + std::string(mf::sr_variant_name(kSr[k].v)) + "/" +
                   std::to_string(kSr[k].n) + " index_base " + std::to_string(s.index_base));
      const mf::simd::SrTable* t = mf::simd::sr_table(to, spec, prof);
      ASSERT_NE(t, nullptr);
      std::vector<std::uint16_t> want(n);
      unsigned want_flags = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t rb = mf::sr_bits(s.seed, s.stream, s.step, s.index_base + i, spec.sr_variant);
        const mf::RoundResult r = mf::convert(mf::formats::f32, x[i], to, spec, prof, rb);
        want[i] = static_cast<std::uint16_t>(r.code | (unsigned{r.flags} << 8));
        want_flags |= r.flags;
      }
      {
        std::vector<std::uint8_t> out(n, 0xAA);
        std::vector<std::uint32_t> idx(n, 0);
        const unsigned got_flags = mf::simd::sr_fused_f32_bits(*t, spec, x.data(), n, s, out.data(), idx.data());
        std::size_t took = 0;
        for (std::size_t i = 0; i < n; ++i) {
          if (out[i] != (want[i] & 0xFF) && ++mismatches <= 5)
            ADD_FAILURE() << "element " << i << " (bits 0x" << std::hex << x[i] << ") code 0x" << unsigned{out[i]}
                          << ", engine 0x" << (want[i] & 0xFF);
          if (idx[i] == UINT32_MAX) continue;
          ++took;
          const std::uint16_t w = t->word4[idx[i]];
          if ((w & mf::simd::kEngineMark) != 0) continue;  // finished by the engine itself
          ++checked;
          if (w != want[i] && ++mismatches <= 5)
            ADD_FAILURE() << "element " << i << " (bits 0x" << std::hex << x[i] << ") word 0x" << w << ", engine 0x"
                          << want[i];
        }
        if (got_flags != want_flags && ++mismatches <= 5)
          ADD_FAILURE() << "flags " << got_flags << ", engine " << want_flags;
        // The vectors must take nearly everything (else this test would only prove the fallback).
        if (std::string(mf::simd::target_name()) != "SCALAR") {
          EXPECT_GT(took, n - 2048) << mf::simd::target_name();
        }
        taken += took;
        ++runs;
      }
    }
  EXPECT_EQ(mismatches, 0u);
  std::printf("[simd sr fused] %s: %zu combinations x %zu inputs: %zu taken by the vectors, %zu words "
              "checked element by element, %zu mismatches\n",
              mf::simd::target_name(), runs, n, taken, checked, mismatches);
}

TEST(SimdThreads, DefaultIsAllCoresAndEveryCountAndChunkingIsByteIdentical) {
  EXPECT_EQ(mf::default_threads(), std::max(1u, std::thread::hardware_concurrency()));
  std::mt19937 rng(11);
  std::vector<float> in(50000);
  for (float& v : in) v = std::ldexp(static_cast<float>(rng() % 2000) - 1000.f, static_cast<int>(rng() % 20) - 14);
  const mf::RoundingSpec sr{.rounding = mf::Rounding::sr, .overflow = mf::Overflow::satfinite};
  const mf::SrStream s{.seed = 3, .stream = 1, .step = 2, .index_base = 100};
  std::vector<std::uint8_t> one(in.size()), other(in.size());
  const unsigned f1 = mf::sr_convert_f32(in, one, mf::formats::e4m3fn, sr, s, mf::profiles::ocp, 1);
  const std::vector<unsigned> counts = {0u /* the default */, 2u, 3u, 7u, 16u};
  for (unsigned t : counts) {
    std::fill(other.begin(), other.end(), 0);
    const unsigned f = t == 0 ? mf::sr_convert_f32(in, other, mf::formats::e4m3fn, sr, s)
                              : mf::sr_convert_f32(in, other, mf::formats::e4m3fn, sr, s, mf::profiles::ocp, t);
    EXPECT_EQ(f, f1) << t << " threads";
    EXPECT_EQ(other, one) << t << " threads";
  }
  // Chunks at random cut points, each with index_base = its offset.
  std::fill(other.begin(), other.end(), 0);
  unsigned fc = 0;
  for (std::size_t lo = 0; lo < in.size();) {
    const std::size_t len = std::min<std::size_t>(1 + rng() % 9000, in.size() - lo);
    mf::SrStream c = s;
    c.index_base = s.index_base + lo;
    fc |= mf::sr_convert_f32(std::span<const float>(in.data() + lo, len), std::span<std::uint8_t>(other.data() + lo, len),
                             mf::formats::e4m3fn, sr, c);
    lo += len;
  }
  EXPECT_EQ(fc, f1);
  EXPECT_EQ(other, one);
  // The deterministic span functions: the default equals one thread.
  std::vector<std::uint8_t> a(in.size()), b(in.size());
  EXPECT_EQ(mf::convert_f32(in, a, mf::formats::e5m2, {}, mf::profiles::ocp, {}, 1),
            mf::convert_f32(in, b, mf::formats::e5m2));
  EXPECT_EQ(a, b);
  std::vector<float> da(in.size()), db(in.size());
  EXPECT_EQ(mf::decode_to_f32(a, da, mf::formats::e5m2, mf::profiles::ocp, 1), mf::decode_to_f32(a, db, mf::formats::e5m2));
  EXPECT_EQ(0, std::memcmp(da.data(), db.data(), da.size() * 4));
}

}  // namespace
