// SPDX-License-Identifier: Apache-2.0
// The SIMD 16-point random Hadamard transform (simd/hadamard-inl.h, simd/hadamard_simd.hpp) against the engine's
// rht16_group (core/hadamard.hpp: the exact sum rounded once to binary32, then the output rounding), which is
// the oracle, on every Highway target this CPU supports and the library compiled:
//  - SimdHadamardExhaustive: every bf16 and every f16 pattern (as binary32) in each of the 16 positions of a
//    group whose 15 other values are a fixed fill (zeros, −0s, random normals, an exponent spread of exactly
//    25 and 26, a NaN, an Inf, near-overflow values, tiny values), both output roundings, both layouts;
//  - SimdHadamardOnTarget: which groups take the vector path (fast path taken; the fallback for a NaN, a wide
//    or all-zero group), a hand-built spread-26 group whose binary64 butterflies are inexact (the guard is
//    needed), and a RapidCheck property on random groups (wide spreads, subnormals, sums that overflow
//    binary32, sums on binary32 and bfloat16 rounding ties), both layouts.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <rapidcheck.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/hadamard.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/scheme.hpp"
#include "per_target.hpp"
#include "simd/convert_simd.hpp"
#include "simd/hadamard_simd.hpp"

namespace mf = minifloat;

namespace {

constexpr mf::BlockTransform kTe{.rht16 = true, .signs = mf::kRht16WgradSigns, .output = mf::TransformOutput::f32};
constexpr mf::BlockTransform kTorchao{
    .rht16 = true, .signs = mf::kRht16WgradSigns, .output = mf::TransformOutput::bf16};

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

/// The oracle: rht16_group on every group of 16 consecutive values.
std::vector<float> engine(const std::vector<float>& x, const mf::BlockTransform& t) {
  std::vector<float> y(x.size());
  for (std::size_t g = 0; g < x.size(); g += 16) mf::rht16_group(x.data() + g, 1, t, y.data() + g, 1);
  return y;
}

/// The groups of x (16 consecutive values each) in the strided layout: element i of group g at i·n + g.
std::vector<float> to_strided(const std::vector<float>& x) {
  const std::size_t n = x.size() / 16;
  std::vector<float> s(x.size());
  for (std::size_t g = 0; g < n; ++g)
    for (std::size_t i = 0; i < 16; ++i) s[i * n + g] = x[16 * g + i];
  return s;
}

/// Both SIMD layouts of x under t against `want` (the engine's outputs of x): the number of mismatching groups
/// (the first few reported); `fallback` gets the contiguous call's count of scalar groups.
std::size_t mismatches(const std::vector<float>& x, const mf::BlockTransform& t, const std::vector<float>& want,
                       const std::string& what, std::size_t* fallback = nullptr) {
  const std::size_t n = x.size() / 16;
  std::vector<float> y(x.size()), ys(x.size());
  const std::size_t fb = mf::simd::rht16_contiguous(x.data(), n, t, y.data());
  if (fallback != nullptr) *fallback = fb;
  const std::vector<float> xs = to_strided(x);
  mf::simd::rht16_strided(xs.data(), n, n, t, ys.data());
  std::size_t bad = 0;
  for (std::size_t g = 0; g < n; ++g) {
    bool ok = true;
    for (std::size_t j = 0; j < 16; ++j)
      ok = ok && bits(y[16 * g + j]) == bits(want[16 * g + j]) && bits(ys[j * n + g]) == bits(want[16 * g + j]);
    if (ok) continue;
    if (++bad <= 3) {
      std::ostringstream m;
      m << what << " on " << mf::simd::target_name() << ": group" << std::hex;
      for (std::size_t i = 0; i < 16; ++i) m << " " << bits(x[16 * g + i]);
      m << "; engine/contiguous/strided";
      for (std::size_t j = 0; j < 16; ++j)
        m << " " << bits(want[16 * g + j]) << "/" << bits(y[16 * g + j]) << "/" << bits(ys[j * n + g]);
      ADD_FAILURE() << m.str();
    }
  }
  return bad;
}

std::uint32_t u32(std::mt19937& rng) { return static_cast<std::uint32_t>(rng()); }

/// A value with biased binary32 exponent e (1..254) and a random sign and mantissa.
float with_exponent(int e, std::mt19937& rng) {
  return std::bit_cast<float>((u32(rng) & 0x80000000u) | (static_cast<std::uint32_t>(e) << 23) |
                              (u32(rng) & 0x7fffffu));
}

/// The 15 fixed values of fill k (position p is then replaced by the pattern under test).
std::vector<float> fill(int k, std::mt19937& rng) {
  std::vector<float> f(16);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const float inf = std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < 16; ++i) {
    switch (k) {
      case 0: f[i] = 0.0f; break;
      case 1: f[i] = -0.0f; break;
      case 2: f[i] = nd(rng); break;
      // exponents in [102, 127]: spread 25 with the ends present; [101, 127]: spread 26
      case 3: f[i] = with_exponent(i == 0 ? 127 : i == 1 ? 102 : 102 + static_cast<int>(rng() % 26), rng); break;
      case 4: f[i] = with_exponent(i == 0 ? 127 : i == 1 ? 101 : 101 + static_cast<int>(rng() % 27), rng); break;
      case 5: f[i] = i == 5 ? std::numeric_limits<float>::quiet_NaN() : nd(rng); break;
      case 6: f[i] = i == 9 ? inf : nd(rng); break;
      case 7: f[i] = with_exponent(250 + static_cast<int>(rng() % 5), rng); break;  // sums overflow binary32
      default: f[i] = std::bit_cast<float>((u32(rng) & 0x80000000u) | (u32(rng) % (30u << 23))); break;  // tiny
    }
  }
  return f;
}
constexpr int kFills = 9;
const char* const kFillNames[kFills] = {"zeros", "-0s", "normals",       "spread25", "spread26",
                                        "nan",   "inf", "near-overflow", "tiny"};

/// Every bf16 pattern (as binary32) and every f16 pattern (widened exactly to binary32).
std::vector<float> patterns() {
  std::vector<float> v;
  v.reserve(1u << 17);
  for (std::uint32_t c = 0; c < (1u << 16); ++c) v.push_back(std::bit_cast<float>(c << 16));
  for (std::uint32_t c = 0; c < (1u << 16); ++c) v.push_back(mf::to_float(mf::formats::f16, c));
  return v;
}

// Every bf16 and f16 pattern in each position of a group, over the fills (the default run: one fill per
// position, rotating so that each fill meets one or two positions, ~1 min of engine work;
// MINIFLOAT_SIMD_RHT_ALL=1: every fill in every position, label long). The engine's outputs are computed once
// and checked on every target, both layouts, both output roundings (bf16: transform_output of the engine's
// binary32 output, as rht16_group does).
TEST(SimdHadamardExhaustive, EveryBf16AndF16PatternInEveryPosition) {
  const bool all = std::getenv("MINIFLOAT_SIMD_RHT_ALL") != nullptr;
  const std::vector<float> pats = patterns();
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (int pos = 0; pos < 16; ++pos)
    for (int k = 0; k < kFills; ++k) {
      if (!all && k != pos % kFills) continue;
      std::mt19937 rng(static_cast<std::uint32_t>(1000 * pos + k));
      const std::vector<float> f = fill(k, rng);
      std::vector<float> x(16 * pats.size());
      for (std::size_t g = 0; g < pats.size(); ++g)
        for (std::size_t i = 0; i < 16; ++i) x[16 * g + i] = static_cast<int>(i) == pos ? pats[g] : f[i];
      const std::vector<float> want = engine(x, kTe);
      std::vector<float> want_bf16(want.size());
      for (std::size_t i = 0; i < want.size(); ++i) want_bf16[i] = mf::transform_output(want[i], kTorchao.output);
      for (const std::int64_t target : targets) {
        hwy::SetSupportedTargetsForTest(target);
        ASSERT_STREQ(mf::simd::target_name(), hwy::TargetName(target));
        const std::string what = std::string("fill ") + kFillNames[k] + " position " + std::to_string(pos);
        EXPECT_EQ(mismatches(x, kTe, want, what + " f32"), 0u);
        EXPECT_EQ(mismatches(x, kTorchao, want_bf16, what + " bf16"), 0u);
      }
      hwy::SetSupportedTargetsForTest(0);
    }
}

class SimdHadamardOnTarget : public minifloat_test::PerTarget {};

// The vector path is taken for ordinary groups and left for the groups its guard excludes (each still equal
// to the engine).
TEST_P(SimdHadamardOnTarget, FastPathTakenAndFallbackForExcludedGroups) {
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> x(16 * 64);
  for (float& v : x) v = nd(rng);
  std::size_t fb = 99;
  EXPECT_EQ(mismatches(x, kTe, engine(x, kTe), "normals", &fb), 0u);
  EXPECT_EQ(fb, 0u) << "64 groups of normals: every one on the vector path";
  // group 3: a NaN; group 10: exponents 127 and 101 (spread 26); group 20: all zero; group 30: a subnormal;
  // group 40: exponents 127 and 102 (spread 25: stays on the vector path)
  x[16 * 3 + 4] = std::numeric_limits<float>::quiet_NaN();
  x[16 * 10] = 1.5f;
  x[16 * 10 + 1] = 0x1.8p-26f;
  for (std::size_t i = 0; i < 16; ++i) x[16 * 20 + i] = i % 2 == 0 ? 0.0f : -0.0f;
  x[16 * 30 + 7] = 0x1p-140f;
  x[16 * 40] = 1.5f;
  x[16 * 40 + 1] = 0x1.8p-25f;
  for (std::size_t i = 2; i < 16; ++i) {
    x[16 * 10 + i] = 1.0f;
    x[16 * 40 + i] = 1.0f;
  }
  EXPECT_EQ(mismatches(x, kTe, engine(x, kTe), "excluded groups", &fb), 0u);
  EXPECT_EQ(fb, 4u) << "the NaN, spread-26, all-zero and subnormal groups";
}

// Why the spread guard is 25: this group has biased exponents 127 and 101 (spread 26) and binary64 butterflies
// are NOT exact on it. With sign mask 0 (y_0 = Σ x_i / 4): x_0..7 = 1, x_8..12 = 1.25, x_13 = 1.75 + 2^-20,
// x_14 = −2^-26, x_15 = 2^-26 + 2^-49 (its ulp 2^-49 at exponent 101). Exact Σ = 16 + 2^-20 + 2^-49, y_0 = 4 +
// 2^-22 + 2^-51, binary32 RNE: 4 + 2^-21 (above the midpoint 4 + 2^-22). Binary64 butterflies: the halves 8 and
// 8 + 2^-20 + 2^-49 are exact (< 16), their sum is a binary64 tie (ulp 2^-48 in [16, 32)) that goes to the even
// 16 + 2^-20, and binary32 RNE of (16 + 2^-20)/4 = the midpoint 4 + 2^-22 gives the even 4. The test computes
// the naive binary64 result itself, checks it differs from the engine, and the SIMD path equals the engine.
TEST_P(SimdHadamardOnTarget, SpreadOf26IsNotExactInBinary64) {
  std::vector<float> x(16 * 8);
  for (std::size_t g = 0; g < 8; ++g) {
    float* v = x.data() + 16 * g;
    for (std::size_t i = 0; i < 8; ++i) v[i] = 1.0f;
    for (std::size_t i = 8; i < 13; ++i) v[i] = 1.25f;
    v[13] = 1.75f + 0x1p-20f;
    v[14] = -0x1p-26f;
    v[15] = 0x1p-26f + 0x1p-49f;
  }
  ASSERT_EQ(bits(x[15]), (101u << 23) | 1u);
  const mf::BlockTransform t0{.rht16 = true, .signs = 0, .output = mf::TransformOutput::f32};
  const std::vector<float> want = engine(x, t0);
  EXPECT_EQ(want[0], 4.0f + 0x1p-21f);
  double h[16];  // the naive binary64 butterflies of group 0
  for (std::size_t i = 0; i < 16; ++i) h[i] = x[i];
  for (unsigned s = 1; s < 16; s <<= 1)
    for (unsigned i = 0; i < 16; ++i)
      if ((i & s) == 0) {
        const double a = h[i], b = h[i + s];
        h[i] = a + b;
        h[i + s] = a - b;
      }
  EXPECT_EQ(static_cast<float>(h[0] * 0.25), 4.0f) << "binary64 butterflies on a spread of 26: inexact";
  std::size_t fb = 0;
  EXPECT_EQ(mismatches(x, t0, want, "spread 26", &fb), 0u);
  EXPECT_EQ(fb, 8u);
}

// Ties at both roundings and the sign of a cancelled zero, by hand (sign mask 0: y_j = Σ_i (−1)^popcount(i&j)
// x_i / 4). Group 0: x_0 = 1, x_1 = 2^-24: y_0 = (1 + 2^-24)/4, a binary32 midpoint → the even 0.25; y_1 =
// (1 − 2^-24)/4 exact. Group 1: x_0 = 1, x_1 = 2^-8: y_0 = (1 + 2^-8)/4 exact in binary32, a bfloat16 midpoint
// (ulp 2^-9 at 0.25) → the even 0.25 under bf16; group 2: x_1 = 3·2^-8: y_0 = (1 + 3·2^-8)/4 → 0.25 + 2^-8 (even)
// under bf16. Group 3: x_8 = 1, x_9 = −1, the rest −0: y_8 = (−0 terms) − (1 − 1)/4 is an exact zero with
// nonzero terms, so +0 (core/hadamard.hpp), where IEEE butterflies give −0 − (+0) = −0.
TEST_P(SimdHadamardOnTarget, TiesAndCancelledZeroByHand) {
  const mf::BlockTransform f32{.rht16 = true, .signs = 0, .output = mf::TransformOutput::f32};
  const mf::BlockTransform bf16{.rht16 = true, .signs = 0, .output = mf::TransformOutput::bf16};
  std::vector<float> x(16 * 8, 0.0f);
  x[0] = 1.0f;
  x[1] = 0x1p-24f;
  x[16] = 1.0f;
  x[17] = 0x1p-8f;
  x[32] = 1.0f;
  x[33] = 0x1.8p-7f;
  for (std::size_t i = 48; i < 64; ++i) x[i] = -0.0f;
  x[48 + 8] = 1.0f;
  x[48 + 9] = -1.0f;
  std::vector<float> y(x.size()), yb(x.size());
  EXPECT_EQ(mf::simd::rht16_contiguous(x.data(), 8, f32, y.data()), 4u) << "groups 0..3 on the vector path";
  EXPECT_EQ(mf::simd::rht16_contiguous(x.data(), 8, bf16, yb.data()), 4u) << "groups 4..7 are all zero";
  EXPECT_EQ(y[0], 0.25f);
  EXPECT_EQ(y[1], 0.25f - 0x1p-26f);
  EXPECT_EQ(y[16], 0.25f + 0x1p-10f);
  EXPECT_EQ(yb[16], 0.25f);
  EXPECT_EQ(yb[32], 0.25f + 0x1p-8f);
  EXPECT_EQ(bits(y[48 + 8]), 0u) << "+0";
  EXPECT_EQ(mismatches(x, f32, engine(x, f32), "ties f32"), 0u);
  EXPECT_EQ(mismatches(x, bf16, engine(x, bf16), "ties bf16"), 0u);
}

// RapidCheck: random groups (random bit patterns; few-bit mantissas around a random binade with exponent
// offsets up to a random span ≤ 40, so spreads around 25, sums on binary32 and bfloat16 rounding ties, and
// cancellations to zero; subnormals; near-overflow values; signed zeros, NaN, Inf), random sign masks, both
// outputs.
TEST_P(SimdHadamardOnTarget, RandomGroupsEqualTheEngine) {
  const auto gen_value = [](int base, int span) {
    return rc::gen::weightedOneOf<float>(
        {{1,
          rc::gen::map(rc::gen::arbitrary<std::uint32_t>(), [](std::uint32_t b) { return std::bit_cast<float>(b); })},
         {80, rc::gen::map(
                  rc::gen::tuple(rc::gen::inRange(0, span + 1), rc::gen::inRange(1, 16), rc::gen::arbitrary<bool>()),
                  [base](std::tuple<int, int, bool> p) {
                    const float v = std::ldexp(static_cast<float>(std::get<1>(p)), base - std::get<0>(p));
                    return std::get<2>(p) ? -v : v;
                  })},
         {1, rc::gen::map(rc::gen::inRange<std::uint32_t>(0, 1u << 24),
                          [](std::uint32_t b) { return std::bit_cast<float>(b); })},
         {1, rc::gen::map(rc::gen::inRange<std::uint32_t>(0, 1u << 24),
                          [](std::uint32_t b) { return std::bit_cast<float>(0x7e800000u + b); })},  // [2^126, FLT_MAX]
         {1, rc::gen::element(0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN())}});
  };
  EXPECT_TRUE(rc::check("SIMD RHT == rht16_group", [&] {
    const int base = *rc::gen::inRange(-120, 120), span = *rc::gen::inRange(0, 41);
    const std::size_t groups = *rc::gen::inRange<std::size_t>(1, 24);
    std::vector<float> x = *rc::gen::container<std::vector<float>>(16 * groups, gen_value(base, span));
    const mf::BlockTransform t{
        .rht16 = true,
        .signs = *rc::gen::element(mf::kRht16WgradSigns, std::uint16_t{0}, *rc::gen::arbitrary<std::uint16_t>()),
        .output = *rc::gen::element(mf::TransformOutput::f32, mf::TransformOutput::bf16)};
    const std::vector<float> want = engine(x, t);
    const std::vector<float> f32 = engine(x, {.rht16 = true, .signs = t.signs, .output = mf::TransformOutput::f32});
    bool bf16_tie = false, inf = false;
    for (const float w : f32) {
      bf16_tie = bf16_tie || (bits(w) & 0xffff) == 0x8000;
      inf = inf || std::isinf(w);
    }
    RC_CLASSIFY(bf16_tie, "a bf16 tie in a binary32 output");
    RC_CLASSIFY(inf, "an infinite output");
    std::vector<float> y(x.size());
    RC_CLASSIFY(mf::simd::rht16_contiguous(x.data(), groups, t, y.data()) < groups, "a group on the vector path");
    RC_ASSERT(mismatches(x, t, want, "random") == 0u);
  }));
}

// The chunk guard of the in-register path (Rht16Contiguous: 64 groups per chunk) at its edges, over 4 chunks and a
// tail of 8 groups: a chunk whose groups each have spread 0 but spread 26 between them (the transpose path, each
// group still exact); chunks at e_min = 26 and at e_max = 251 exactly (the in-register path), one at spread 25
// between groups, one holding a single ±0 (the transpose path) — every group equal to the engine, both outputs.
TEST_P(SimdHadamardOnTarget, ChunkGuardEdgesAcrossChunks) {
  std::mt19937 rng(31);
  const std::size_t groups = 4 * 64 + 8;
  std::vector<float> x(16 * groups);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t chunk = g / 64;
    for (std::size_t i = 0; i < 16; ++i) {
      int e = 127;
      if (chunk == 0) e = g % 2 == 0 ? 127 : 101;  // spread 26 between groups, 0 within
      if (chunk == 1) e = g % 2 == 0 ? 26 : 51;    // e_min 26, spread 25 between groups
      if (chunk == 2) e = g % 2 == 0 ? 251 : 226;  // e_max 251, spread 25 between groups
      x[16 * g + i] = with_exponent(e, rng);
    }
  }
  x[16 * (3 * 64 + 5) + 9] = -0.0f;  // chunk 3: one zero
  for (const mf::BlockTransform& t : {kTe, kTorchao}) {
    std::size_t fb = 99;
    EXPECT_EQ(mismatches(x, t, engine(x, t), "chunk guard edges", &fb), 0u);
    EXPECT_EQ(fb, 0u) << "every group passes the per-group guard";
  }
}

MINIFLOAT_INSTANTIATE_PER_TARGET(SimdHadamardOnTarget);

struct Quantized {
  std::vector<std::uint8_t> codes;
  mf::QuantizedTensor q;
};
Quantized quantize(const std::vector<std::size_t>& shape, const std::vector<float>& x, const mf::Scheme& s,
                   const mf::QuantOptions& opt, mf::ArrayPath path, std::size_t piece, unsigned threads) {
  mf::BlockQuantizer bq(shape, s, opt, path);
  const mf::QuantPlan plan = bq.plan(piece);
  Quantized o;
  o.codes.assign(x.size(), 0);
  auto slice = [&](const mf::QuantPiece& p) {
    return std::span<const float>(x.data() + p.offset(plan.file_cols), p.size());
  };
  if (plan.first_pass)
    for (std::size_t k = 0; k < plan.count(); ++k) bq.observe(plan.piece(k), slice(plan.piece(k)), threads);
  for (std::size_t k = 0; k < plan.count(); ++k) {
    const mf::QuantPiece p = plan.piece(k);
    bq.quantize(p, slice(p), std::span<std::uint8_t>(o.codes.data() + p.offset(plan.file_cols), p.size()), threads);
  }
  o.q = bq.result();
  return o;
}

// End to end: quantize with transform rht16:te / rht16:torchao, axis last and first, on the SIMD path (the SIMD
// transform, chunk by chunk with one thread) and on the engine path (rht16_group on the whole piece): the same
// codes, scale codes and scales. Normals with NaN, Inf, zero groups, a subnormal and wide-spread groups mixed in;
// whole-tensor pieces and pieces of 48 file rows (first pass), one and two threads; shapes whose chunks cut many rows.
TEST(SimdHadamardQuant, TransformedQuantizeSimdEqualsEngine) {
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.0f, 0.02f);
  const std::vector<std::vector<std::size_t>> shapes = {{2048, 16}, {48, 1024}, {1040, 32}};
  for (const auto& shape : shapes) {
    std::vector<float> x(shape[0] * shape[1]);
    for (float& v : x) v = nd(rng);
    for (std::size_t i = 0; i < x.size(); i += 997) {  // specials (one per a few groups)
      const std::uint32_t k = u32(rng) % 5;
      x[i] = k == 0   ? std::numeric_limits<float>::quiet_NaN()
             : k == 1 ? std::numeric_limits<float>::infinity()
             : k == 2 ? 0x1p-140f
             : k == 3 ? 0x1p-40f
                      : 3e38f;
    }
    for (std::size_t i = 0; i < 64 && 160 + i < x.size(); ++i) x[160 + i] = 0.0f;
    for (const char* scheme : {"nvfp4", "mxfp4", "e2m1fn/16x16/ue4m3:nvfp4"})
      for (const char* transform : {"rht16:te", "rht16:torchao"})
        for (const mf::BlockAxis axis : {mf::BlockAxis::last, mf::BlockAxis::first})
          for (const std::size_t piece_rows : {std::size_t{1} << 24, std::size_t{48}}) {  // (whole; 48 file rows)
            const std::size_t piece = piece_rows * shape[1];  // (the file view is the array, both axes)
            mf::Scheme s = mf::parse_scheme(scheme);
            s.transform = mf::parse_transform(transform);
            mf::QuantOptions opt;
            opt.axis = axis;
            const Quantized ref = quantize(shape, x, s, opt, mf::ArrayPath::engine, piece, 1);
            for (const unsigned threads : {1u, 2u}) {
              const std::string what = std::string(scheme) + " " + transform + " axis " +
                                       (axis == mf::BlockAxis::first ? "first" : "last") + " shape " +
                                       std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + " piece " +
                                       std::to_string(piece) + " threads " + std::to_string(threads);
              SCOPED_TRACE(what);
              const Quantized fast = quantize(shape, x, s, opt, mf::ArrayPath::simd, piece, threads);
              EXPECT_TRUE(ref.codes == fast.codes) << what;
              EXPECT_TRUE(ref.q.scale_codes == fast.q.scale_codes) << what;
              EXPECT_EQ(ref.q.scales.size(), fast.q.scales.size()) << what;
              bool same_scales = ref.q.scales.size() == fast.q.scales.size();
              for (std::size_t i = 0; same_scales && i < ref.q.scales.size(); ++i)
                same_scales = bits(ref.q.scales[i]) == bits(fast.q.scales[i]);
              EXPECT_TRUE(same_scales) << what;
              EXPECT_EQ(ref.q.saturated, fast.q.saturated) << what;
              EXPECT_EQ(bits(ref.q.tensor_decode_scale), bits(fast.q.tensor_decode_scale)) << what;
            }
          }
  }
}

// Pieces big enough that 2 and 3 workers each take a share of every transform chunk (transform_chunk_rows: 1 Mi
// elements per worker, so several chunks and a short last one, chunk-row bands split unevenly among the workers):
// the same bytes as one thread (which the test above proves equal to the engine on every shape and piece).
TEST(SimdHadamardQuant, TransformChunksOverThreadsGiveTheSameBytes) {
  std::mt19937 rng(12);
  std::normal_distribution<float> nd(0.0f, 0.02f);
  const std::vector<std::size_t> shape{2096, 2048};  // 4.2 Mi elements: chunks of 1024 rows (2 workers), 1536 (3)
  std::vector<float> x(shape[0] * shape[1]);
  for (float& v : x) v = nd(rng);
  for (std::size_t i = 0; i < x.size(); i += 99991) x[i] = std::numeric_limits<float>::quiet_NaN();
  for (const char* scheme : {"nvfp4", "e2m1fn/16x16/ue4m3:nvfp4"})
    for (const mf::BlockAxis axis : {mf::BlockAxis::last, mf::BlockAxis::first}) {
      mf::Scheme s = mf::parse_scheme(scheme);
      s.transform = mf::parse_transform("rht16:te");
      mf::QuantOptions opt;
      opt.axis = axis;
      const Quantized one = quantize(shape, x, s, opt, mf::ArrayPath::simd, x.size(), 1);
      for (const unsigned threads : {2u, 3u, 5u})
        for (const std::size_t piece_rows : {shape[0], std::size_t{1000}}) {  // 1000: pieces from mid-file rows
          if (piece_rows != shape[0] && axis == mf::BlockAxis::first) continue;   // (axis first: whole-tensor pieces)
          const std::string what = std::string(scheme) + (axis == mf::BlockAxis::first ? " axis first" : " axis last") +
                                   " threads " + std::to_string(threads) + " piece rows " + std::to_string(piece_rows);
          const Quantized many = quantize(shape, x, s, opt, mf::ArrayPath::simd, piece_rows * shape[1], threads);
          EXPECT_TRUE(one.codes == many.codes) << what;
          EXPECT_TRUE(one.q.scale_codes == many.q.scale_codes) << what;
          EXPECT_EQ(one.q.saturated, many.q.saturated) << what;
          EXPECT_EQ(one.q.flushed, many.q.flushed) << what;
          EXPECT_EQ(bits(one.q.tensor_decode_scale), bits(many.q.tensor_decode_scale)) << what;
        }
    }
}

}  // namespace
