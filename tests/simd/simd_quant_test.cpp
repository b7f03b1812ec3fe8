// SPDX-License-Identifier: Apache-2.0
// simd_quant_test.cpp: the block quantizer's fast path (src/simd/quant_simd.cpp, BlockQuantizer with
// ArrayPath::simd) against THE scalar reference loops of src/quant/tile_loops.cpp (ArrayPath::engine), on every
// Highway target the CPU supports and the library compiled. Oracle: the scalar path of src/quant/tile_loops.cpp
// (the engine per element); the fast path is a second implementation and is never trusted.
// Compared byte for byte: element codes, E8M0/E4M3 scale codes, FP32 scales, NVFP4 tensor scales,
// saturated and flushed counts, the dequantized values (float and double) and the ErrorStats of
// `report` — for every named scheme × every rule of its family × every BlockPolicy value × the six
// deterministic modes × the overflow policies × the four profiles, adversarial blocks and random
// tensors from f32, f16 and bf16 values (and f64 sources, which take the engine), 1 and 3 threads
// and several piece sizes.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/four_over_six.hpp"
#include "minifloat/error_stats.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/scheme.hpp"
#include "per_target.hpp"
#include "simd/quant_simd.hpp"

namespace mf = minifloat;

namespace {

struct Outcome {
  mf::QuantizedTensor q;
  std::vector<std::uint8_t> codes;
  std::vector<float> deq32;
  std::vector<double> deq64;
  mf::ErrorStats stats;
  mf::ArrayPath path = mf::ArrayPath::engine;
};

template <class T>
Outcome run(const std::vector<std::size_t>& shape, const std::vector<T>& x, const mf::Scheme& scheme,
            const mf::QuantOptions& opt, mf::ArrayPath path, unsigned threads, std::size_t piece) {
  mf::BlockQuantizer bq(shape, scheme, opt, path);
  Outcome o;
  o.path = bq.element_path();
  const mf::QuantPlan plan = bq.plan(piece);
  o.codes.assign(x.size(), 0);
  o.deq32.assign(x.size(), 0.0f);
  o.deq64.assign(x.size(), 0.0);
  auto slice = [&](const mf::QuantPiece& p) { return std::span<const T>(x.data() + p.offset(plan.file_cols), p.size()); };
  if (plan.first_pass)
    for (std::size_t k = 0; k < plan.count(); ++k) bq.observe(plan.piece(k), slice(plan.piece(k)), threads);
  for (std::size_t k = 0; k < plan.count(); ++k) {
    const mf::QuantPiece p = plan.piece(k);
    const std::size_t off = p.offset(plan.file_cols);
    bq.quantize(p, slice(p), std::span<std::uint8_t>(o.codes.data() + off, p.size()), threads);
  }
  for (std::size_t k = 0; k < plan.count(); ++k) {
    const mf::QuantPiece p = plan.piece(k);
    const std::size_t off = p.offset(plan.file_cols);
    const std::span<const std::uint8_t> c(o.codes.data() + off, p.size());
    bq.dequantize(p, c, std::span<float>(o.deq32.data() + off, p.size()));
    bq.dequantize(p, c, std::span<double>(o.deq64.data() + off, p.size()));
  }
  std::vector<double> xd(x.begin(), x.end());
  mf::accumulate_errors(o.stats, xd, o.deq64);
  o.q = bq.result();
  mf::finish_error_stats(o.stats, o.q);
  return o;
}

template <class V>
bool same_bytes(const V& a, const V& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
}
std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

// Fast (ArrayPath::simd, `threads`) vs reference (ArrayPath::engine, 1 thread); gtest failures name `what`.
template <class T>
void expect_same(const std::vector<std::size_t>& shape, const std::vector<T>& x, const mf::Scheme& scheme,
                 const mf::QuantOptions& opt, unsigned threads, std::size_t piece, const std::string& what,
                 bool* took_fast = nullptr) {
  const Outcome ref = run(shape, x, scheme, opt, mf::ArrayPath::engine, 1, piece);
  const Outcome fast = run(shape, x, scheme, opt, mf::ArrayPath::simd, threads, piece);
  ASSERT_EQ(ref.path, mf::ArrayPath::engine) << what;
  if (took_fast) *took_fast = fast.path == mf::ArrayPath::simd;
  EXPECT_TRUE(same_bytes(ref.codes, fast.codes)) << what << ": codes";
  if (!same_bytes(ref.codes, fast.codes))
    for (std::size_t i = 0; i < x.size(); ++i)
      if (ref.codes[i] != fast.codes[i]) {
        ADD_FAILURE() << what << ": first code mismatch at " << i << " x=" << static_cast<double>(x[i]) << " ref=0x"
                      << std::hex << int(ref.codes[i]) << " fast=0x" << int(fast.codes[i]);
        break;
      }
  EXPECT_TRUE(same_bytes(ref.q.scale_codes, fast.q.scale_codes)) << what << ": scale codes";
  EXPECT_TRUE(same_bytes(ref.q.scales, fast.q.scales)) << what << ": fp32 scales";
  EXPECT_TRUE(same_bytes(ref.q.scale_select, fast.q.scale_select)) << what << ": 4over6 choices";
  EXPECT_TRUE(same_bytes(ref.q.row_encode_scales, fast.q.row_encode_scales)) << what << ": row encode scales";
  EXPECT_TRUE(same_bytes(ref.q.row_decode_scales, fast.q.row_decode_scales)) << what << ": row decode scales";
  EXPECT_EQ(std::bit_cast<std::uint32_t>(ref.q.tensor_encode_scale), std::bit_cast<std::uint32_t>(fast.q.tensor_encode_scale)) << what;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(ref.q.tensor_decode_scale), std::bit_cast<std::uint32_t>(fast.q.tensor_decode_scale)) << what;
  EXPECT_EQ(ref.q.saturated, fast.q.saturated) << what << ": saturated";
  EXPECT_EQ(ref.q.flushed, fast.q.flushed) << what << ": flushed";
  EXPECT_TRUE(same_bytes(ref.deq32, fast.deq32)) << what << ": dequantized f32";
  EXPECT_TRUE(same_bytes(ref.deq64, fast.deq64)) << what << ": dequantized f64";
  EXPECT_EQ(ref.stats.count, fast.stats.count) << what;
  EXPECT_EQ(bits(ref.stats.signal), bits(fast.stats.signal)) << what << ": signal";
  EXPECT_EQ(bits(ref.stats.noise), bits(fast.stats.noise)) << what << ": noise";
  EXPECT_EQ(bits(ref.stats.max_abs_err), bits(fast.stats.max_abs_err)) << what;
  EXPECT_EQ(ref.stats.nonfinite_out, fast.stats.nonfinite_out) << what;
  EXPECT_EQ(bits(ref.stats.scale_min), bits(fast.stats.scale_min)) << what;
  EXPECT_EQ(bits(ref.stats.scale_max), bits(fast.stats.scale_max)) << what;
}

float f32_of(std::uint32_t b) { return std::bit_cast<float>(b); }

// Adversarial blocks of 16 (so 1×16, 1×32 and 1×128 tiles all see them), `rows` × 128 values.
std::vector<float> adversarial(std::size_t rows, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> x;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t r = 0; r < rows; ++r)
    for (int blk = 0; blk < 8; ++blk) {
      const int kind = static_cast<int>((r * 8 + blk + seed) % 14);
      for (int i = 0; i < 16; ++i) {
        const float u = std::ldexp(1.0f + static_cast<float>(rng() % 1024) / 1024.0f, static_cast<int>(rng() % 9) - 4);
        const float sgn = (rng() & 1) ? -1.0f : 1.0f;
        float v = sgn * u;
        switch (kind) {
          case 0: v = 0.0f; break;                                              // zero block
          case 1: v = i == 3 ? -0.0f : 0.0f; break;                             // signed zeros
          case 2: if (i == 5) v = nan; break;                                   // NaN in block
          case 3: if (i == 7) v = sgn * inf; break;                             // Inf in block
          case 4: v = sgn * f32_of(static_cast<std::uint32_t>(1u + rng() % 0x7fffffu)); break;            // f32 subnormals (amax subnormal)
          case 5: if (i == 0) v = 3.0e38f; else if (i == 1) v = f32_of(1u); break;  // huge amax, min subnormal
          case 6: if (i == 0) v = 1900.0f; else v = sgn * f32_of(static_cast<std::uint32_t>(1u + rng() % 64)); break;  // x·2^-e below 2^-126
          case 7: v = sgn * std::ldexp(1.75f + 0.25f * static_cast<float>(i % 4) / 4, 8); break;  // saturating (ocp_floor)
          case 8: v = sgn * std::ldexp(1.0f + static_cast<float>(2 * (rng() % 16) + 1) / 32.0f, i % 5); break;  // ties
          case 9: v = sgn * std::ldexp(u, -130); break;                        // amax in the f32 subnormals
          case 10: v = sgn * std::ldexp(u, 120); break;                        // near the top
          case 11: v = (i == 2) ? -inf : (i == 9 ? nan : v); break;            // both
          case 12: v = sgn * std::ldexp(u, -100); break;                       // tiny normal amax: e clamps
          default: break;                                                      // plain random
        }
        x.push_back(v);
      }
    }
  return x;
}
std::vector<float> random_normal(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 0.02f);
  std::vector<float> x(n);
  for (auto& v : x) v = d(rng);
  return x;
}
std::vector<float> via_f16(std::vector<float> x) {  // f16 values (exact in f32): the CLI's f16 source
  for (auto& v : x) {
    const auto h = mf::convert(mf::formats::f32, std::bit_cast<std::uint32_t>(v), mf::formats::f16, {}, mf::profiles::ocp);
    v = std::bit_cast<float>(static_cast<std::uint32_t>(mf::convert(mf::formats::f16, h.code, mf::formats::f32, {}, mf::profiles::ocp).code));
  }
  return x;
}
std::vector<float> via_bf16(std::vector<float> x) {
  for (auto& v : x) v = std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) & 0xffff0000u);
  return x;
}

std::vector<mf::ScaleRule> family_rules(mf::ScaleRule r) {
  using R = mf::ScaleRule;
  if (mf::is_e8m0_rule(r)) return {R::ocp_floor, R::rceil, R::ceil, R::even, R::tosa, R::rceil_fp32};
  if (mf::is_fp32_rule(r)) return {R::fp32_amax, R::fp32_pow2};
  if (mf::is_ue5m3_rule(r)) return {R::nvfp4_v2, R::nvfp4_v2_gs};
  return {R::nvfp4};
}
std::vector<mf::BlockPolicy> policies() {
  std::vector<mf::BlockPolicy> v(1);
  for (auto z : {mf::ZeroBlock::min_scale, mf::ZeroBlock::unit_scale, mf::ZeroBlock::nan}) v.push_back({.zero = z});
  v.push_back({.nan = mf::NanInBlock::element_only});
  v.push_back({.inf = mf::InfInBlock::max_scale});
  v.push_back({.nan = mf::NanInBlock::element_only, .inf = mf::InfInBlock::max_scale});
  v.push_back({.subnormal = mf::SubnormalAmax::flush_block});
  v.push_back({.mxint8_min = mf::Mxint8Min::symmetric});
  v.push_back({.fp32_order = mf::Fp32ScaleOrder::divide});
  v.push_back({.fp32_order = mf::Fp32ScaleOrder::exact});
  v.push_back({.amax_epsilon = 1e-4f});
  return v;
}

class SimdQuant : public ::testing::Test {
 protected:
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

/// The tests run once per Highway target (per_target.hpp).
class SimdQuantOnTarget : public minifloat_test::PerTarget {};
MINIFLOAT_INSTANTIATE_PER_TARGET(SimdQuantOnTarget);

// Every named scheme × rule of its family × every policy value, rne satfinite ocp, adversarial and
// random rows, on this instance's Highway target.
TEST_P(SimdQuantOnTarget, EverySchemeRulePolicy) {
  const std::vector<std::size_t> shape{6, 128};
  std::vector<float> adv = adversarial(6, 1);
  std::vector<float> rnd = random_normal(6 * 128, 2);
  int fast_cases = 0, cases = 0;
  {
    const std::string tname = hwy::TargetName(GetParam());
    for (const auto& e : mf::scheme_table().entries)
      for (const mf::ScaleRule rule : family_rules(e.value.rule))
        for (const mf::BlockPolicy& pol : policies()) {
          mf::Scheme s = e.value;
          s.rule = rule;
          s.policy = pol;
          if (pol.fp32_order == mf::Fp32ScaleOrder::divide && rule != mf::ScaleRule::fp32_amax) continue;
          try {
            mf::validate_scheme(s);
          } catch (const mf::Error&) {
            continue;
          }
          mf::QuantOptions opt;
          const std::string what = tname + " " + mf::scheme_name(s) + " rule " + std::string(mf::scale_rule_name(rule));
          bool fast = false;
          expect_same(shape, adv, s, opt, 1, 1 << 20, what + " adversarial", &fast);
          expect_same(shape, rnd, s, opt, 3, 1 << 20, what + " random", nullptr);
          ++cases;
          fast_cases += fast;
          if (HasFailure()) return;
        }
  }
  EXPECT_GT(fast_cases, cases / 2) << "the fast path must be taken for the whitelisted combinations";
}

// Every deterministic mode × overflow × profile for the MX float elements, NVFP4 and an FP32 scheme,
// from f32, f16 and bf16 values (best target; the targets are covered above and by simd.Formats).
TEST_F(SimdQuant, EveryModeOverflowProfileAndSource) {
  const std::vector<std::size_t> shape{4, 128};
  const std::vector<float> adv = adversarial(4, 7), rnd = random_normal(4 * 128, 8);
  const std::vector<std::vector<float>> sources{adv, via_f16(adv), via_bf16(adv), rnd, via_bf16(rnd)};
  const char* names[] = {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "nvfp4", "fp8_1x128", "mxint8"};
  for (const char* n : names) {
    const mf::Scheme s = mf::parse_scheme(n);
    for (const mf::Rounding m : {mf::Rounding::rne, mf::Rounding::rna, mf::Rounding::rtz, mf::Rounding::rtp,
                                 mf::Rounding::rtn, mf::Rounding::rto})
      for (const mf::Overflow ov : {mf::Overflow::nonsat, mf::Overflow::satfinite, mf::Overflow::satpropagate})
        for (const mf::Profile& prof : {mf::profiles::ocp, mf::profiles::nvidia, mf::profiles::ml_dtypes, mf::profiles::p3109}) {
          mf::QuantOptions opt;
          opt.rounding = {.rounding = m, .overflow = ov};
          opt.profile = prof;
          for (std::size_t k = 0; k < sources.size(); ++k) {
            bool fast = false;
            expect_same(shape, sources[k], s, opt, 2, 1 << 20,
                        std::string(n) + " " + std::string(mf::name(m)) + " " + std::string(mf::name(ov)) + " source " +
                            std::to_string(k),
                        &fast);
            EXPECT_TRUE(fast) << n;
            if (HasFailure()) return;
          }
        }
  }
}

// One-element blocks (column tiles: fp8_channel, MX along axis first, ROWSx1 schemes) take the per-lane
// kernel and the column statistics: NaN, Inf, zero and ordinary columns, in the vector body and in the
// tail lanes, whole and in pieces, on this instance's target. (A NaN column tile — its lane both skip and a NaN
// product — once kept a saturated code in place of the NaN code: the property test found it.)
TEST_P(SimdQuantOnTarget, ColumnTilesOfEveryKind) {
  const std::size_t rows = 5, cols = 41;
  std::vector<float> x = random_normal(rows * cols, 21);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const std::size_t c : {std::size_t{3}, std::size_t{38}}) {  // a NaN column in the body and in the tail
    x[2 * cols + c] = nan;
    x[2 * cols + c + 1] = inf;  // an Inf beside it
  }
  for (std::size_t r = 0; r < rows; ++r) x[r * cols + 20] = 0.0f;  // a zero column
  x[4 * cols + 7] = 1e30f;                                          // a product that overflows (E8M0: 2^-e of a small column)
  x[1 * cols + 9] = 1e-40f;                                          // a subnormal beside normal values
  {
    for (const char* n : {"fp8_channel", "mxfp8_e4m3", "mxfp4", "e4m3fn/allx1/e8m0fnu:rceil", "e5m2/2x1/e8m0fnu:ocp_floor"})
      for (const mf::BlockPolicy& pol : policies()) {
        mf::Scheme s = mf::parse_scheme(n);
        s.policy = pol;
        try {
          mf::validate_scheme(s);
        } catch (const mf::Error&) {
          continue;
        }
        mf::QuantOptions opt;
        opt.axis = std::string_view(n).starts_with("mx") ? mf::BlockAxis::first : mf::BlockAxis::last;
        for (const std::size_t piece : {std::size_t{1} << 20, std::size_t{17}})
          expect_same({rows, cols}, x, s, opt, 2, piece, std::string(hwy::TargetName(GetParam())) + " " + mf::scheme_name(s) +
                                                             " piece " + std::to_string(piece));
        if (HasFailure()) return;
      }
  }
}

// The order in which the rne kernels try their lane rules per block (simd/quant-inl.h LeanGuess: the normal-only rule
// after 8 blocks in a row that needed no more, else the rule with subnormal results, else the full rule) must not show
// in the bytes: rows of 16-element segments whose class is chosen by a seeded walk — runs of 1..12 blocks normal in
// every target, a block with one target-subnormal nonzero |y| (2^−8…2^−40 of the amax), one with a ±0, one whose
// amax·s reaches the overflow bound — through the fused rows (MX, NVFP4) and the tile path (2-row and 16×16 tiles,
// FP32 1x128/128x128 scales), on this instance's target. Oracle: the engine's scalar loops (expect_same).
TEST_P(SimdQuantOnTarget, LeanRuleOrderDoesNotShowInTheBytes) {
  const std::size_t rows = 16, cols = 1024;
  std::mt19937 rng(77);
  std::vector<float> x;
  x.reserve(rows * cols);
  auto segment = [&](int kind) {
    const int e = static_cast<int>(rng() % 16) - 8;  // the segment's binade
    const std::size_t at = x.size();
    for (int i = 0; i < 16; ++i) {
      const float u = std::ldexp(1.0f + static_cast<float>(rng() % 1024) / 1024.0f, e - 1);  // [2^(e−1), 2^(e+1))
      x.push_back((rng() & 1) ? -u : u);
    }
    const std::size_t i = at + rng() % 16;
    if (kind == 1) x[i] = std::ldexp(x[i], -8 - static_cast<int>(rng() % 33));
    if (kind == 2) x[i] = (rng() & 1) ? -0.0f : 0.0f;
    if (kind == 3) x[at + (i + 1 - at) % 16] = std::ldexp((rng() & 1) ? -1.99f : 1.99f, e);
  };
  while (x.size() < rows * cols) {
    if (rng() % 2 == 0) {
      for (int run = 1 + static_cast<int>(rng() % 12); run > 0 && x.size() < rows * cols; --run) segment(0);
    } else {
      segment(1 + static_cast<int>(rng() % 3));
    }
  }
  const std::string tname = hwy::TargetName(GetParam());
  int fast = 0, cases = 0;
  for (const char* n : {"mxfp6_e3m2", "mxfp6_e2m3", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp4", "nvfp4", "nvfp4_16x16",
                        "fp8_1x128", "fp8_128x128", "e3m2fn/2x32/e8m0fnu:ocp_floor", "e2m1fn/2x32/e8m0fnu:rceil"}) {
    bool took = false;
    expect_same({rows, cols}, x, mf::parse_scheme(n), {}, 1, std::size_t{1} << 20, tname + " " + n, &took);
    fast += took;
    ++cases;
    if (HasFailure()) return;
  }
  EXPECT_EQ(fast, cases) << "every scheme here takes the fast path";
}

// Threads and chunking: 1..7 threads, pieces that cut tiles (first pass), axis first.
TEST_F(SimdQuant, AnyThreadCountAndPieceSizeGivesTheSameBytes) {
  const std::vector<std::size_t> shape{9, 256};
  const std::vector<float> x = adversarial(18, 3);  // 18 × 128 = 9 × 256
  for (const char* n : {"mxfp8_e4m3", "mxfp4", "nvfp4", "fp8_128x128", "fp8_channel", "fp8_tensor"})
    for (const mf::BlockAxis axis : {mf::BlockAxis::last, mf::BlockAxis::first})
      for (const unsigned t : {1u, 2u, 3u, 7u, 0u})
        for (const std::size_t piece : {std::size_t{1} << 20, std::size_t{512}, std::size_t{100}}) {
          mf::QuantOptions opt;
          opt.axis = axis;
          expect_same(shape, x, mf::parse_scheme(n), opt, t, piece,
                      std::string(n) + " threads " + std::to_string(t) + " piece " + std::to_string(piece));
          if (HasFailure()) return;
        }
  // and a large enough piece that the threads really split it (2^15 elements per thread)
  const std::vector<std::size_t> big{64, 2048};
  const std::vector<float> xb = random_normal(64 * 2048, 5);
  for (const unsigned t : {2u, 3u})
    for (const char* n : {"mxfp8_e4m3", "nvfp4"}) expect_same(big, xb, mf::parse_scheme(n), {}, t, 1 << 22, n);
  // NVFP4's first pass split over threads (every tile whole): the tensor amax in the last worker's rows,
  // and a NaN there (NaN blocks; the amax over the other values)
  std::vector<float> xm = xb;
  xm[60 * 2048 + 5] = 3.5f;
  for (const unsigned t : {2u, 3u}) expect_same(big, xm, mf::parse_scheme("nvfp4"), {}, t, 1 << 22, "nvfp4 amax in the last rows");
  xm[61 * 2048 + 17] = std::numeric_limits<float>::quiet_NaN();
  for (const unsigned t : {2u, 3u}) expect_same(big, xm, mf::parse_scheme("nvfp4"), {}, t, 1 << 22, "nvfp4 with a NaN");
  const std::vector<std::size_t> row{1, 131072};  // one row: split by columns
  expect_same(row, std::vector<float>(xb.begin(), xb.begin() + 131072), mf::parse_scheme("mxfp4"), {}, 3, 1 << 22, "one row");
}

// f64 sources take the engine (both ways), and the results agree.
TEST_F(SimdQuant, F64SourcesTakeTheEngine) {
  const std::vector<float> a = adversarial(2, 9);
  std::vector<double> x(a.begin(), a.end());
  x[3] = 1e300;
  x[4] = 1e-300;
  for (const char* n : {"mxfp8_e4m3", "nvfp4", "fp8_row"}) {
    mf::QuantOptions opt;
    expect_same(std::vector<std::size_t>{2, 128}, x, mf::parse_scheme(n), opt, 2, 1 << 20, n);
    opt.profile.source_via_f32 = true;
    expect_same(std::vector<std::size_t>{2, 128}, x, mf::parse_scheme(n), opt, 2, 1 << 20, std::string(n) + " via f32");
  }
}

// The whitelist of BlockQuantizer::element_path.
TEST_F(SimdQuant, ElementPathWhitelist) {
  const std::vector<std::size_t> shape{2, 64};
  auto path = [&](const char* scheme, mf::QuantOptions opt) {
    return mf::BlockQuantizer(shape, mf::parse_scheme(scheme), opt).element_path();
  };
  EXPECT_EQ(path("mxfp8_e4m3", {}), mf::ArrayPath::simd);
  EXPECT_EQ(path("nvfp4", {}), mf::ArrayPath::simd);
  EXPECT_EQ(path("fp8_128x128", {}), mf::ArrayPath::simd);
  EXPECT_EQ(path("mxint8", {}), mf::ArrayPath::simd);  // int8 elements: the KeyKind::mxint8 table
  EXPECT_EQ(path("mxint8/1x32/e8m0fnu:ocp_floor/mxint8-min=symmetric", {}), mf::ArrayPath::simd);
  mf::QuantOptions quirks;
  quirks.mx_quirks = mf::MxQuirks::torchao_0_18;  // a non-default option: the scalar reference
  EXPECT_EQ(path("mxfp8_e4m3", quirks), mf::ArrayPath::engine);
  mf::QuantOptions sr;
  sr.rounding.rounding = mf::Rounding::sr;
  EXPECT_EQ(path("mxfp4", sr), mf::ArrayPath::engine);
  mf::QuantOptions modified;
  modified.profile.decode_ftz = !modified.profile.decode_ftz;  // a profile that is none of the named four
  EXPECT_EQ(path("mxfp4", modified), mf::ArrayPath::engine);
  mf::QuantOptions stream;
  stream.sr_seed = 5;  // not read by deterministic modes: stays on the fast path
  EXPECT_EQ(path("mxfp4", stream), mf::ArrayPath::simd);
  EXPECT_EQ(mf::BlockQuantizer(shape, mf::parse_scheme("mxfp4"), {}, mf::ArrayPath::engine).element_path(), mf::ArrayPath::engine);
  EXPECT_EQ(path("e4m3fn/1x128/f32:fp32_amax/fp32-order=exact", {}), mf::ArrayPath::simd);  // per tile: exact-order tiles → engine
  EXPECT_EQ(path("custom:4,3,7,signed,fn/1x32/e8m0fnu:ocp_floor", {}), mf::ArrayPath::simd);  // a descriptor equal to e4m3 is e4m3
  // issue 25 item 9: 4over6 and amax-scope row (fused rows: simd::fused_rows_4over6, FusedScale::nvfp4_rcp_senc)
  EXPECT_EQ(path("e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mse", {}), mf::ArrayPath::simd);
  EXPECT_EQ(path("e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mae", {}), mf::ArrayPath::simd);
  EXPECT_EQ(path("e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row", {}), mf::ArrayPath::simd);
  EXPECT_EQ(path("e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=64", {}), mf::ArrayPath::simd);
}

// Which combinations take the arithmetic element kernel (simd::QuantRne, quant_simd.hpp): rne into e4m3fn,
// e5m2, e2m1fn, e2m3fn or e3m2fn where the element's encode table runs the rne kernel (EncodeTable::rne), under
// every policy and profile of the whitelist (60 combinations); every other one the table. A combination whose
// table failed QuantRne's checks would fall back silently to the table; this pins that none does.
TEST_F(SimdQuant, RneElementKernelTakesTheStatedCombinations) {
  int taken = 0;
  for (const mf::Format f : mf::simd::kFormats)
    for (const mf::Rounding m : mf::simd::kModes)
      for (const mf::Overflow ov : mf::simd::kPolicies)
        for (const mf::Profile& prof : mf::simd::kProfiles) {
          const mf::RoundingSpec spec{.rounding = m, .overflow = ov};
          const mf::ElementType el{mf::ElementKind::floating, f};
          const mf::simd::QuantKernel* k = mf::simd::quant_kernel(el, spec, prof, mf::Mxint8Min::twos_complement);
          ASSERT_NE(k, nullptr) << mf::format_name(f);
          const mf::simd::EncodeTable* t = mf::simd::encode_table(f, spec, prof);
          const bool stated = m == mf::Rounding::rne && t->rne.kind != mf::simd::RneKind::none &&
                              (f == mf::formats::e4m3fn || f == mf::formats::e5m2 || f == mf::formats::e2m1fn ||
                               f == mf::formats::e2m3fn || f == mf::formats::e3m2fn);
          EXPECT_EQ(k->rne.kind != mf::simd::RneKind::none, stated)
              << mf::format_name(f) << " " << mf::name(m) << " " << mf::name(ov) << " profile " << mf::simd::index_of(mf::simd::kProfiles, prof);
          taken += k->rne.kind != mf::simd::RneKind::none;
        }
  EXPECT_EQ(taken, 5 * 3 * 4);
}

// The fused MX rows' E8M0 exponent table (simd::E8m0ExpTable: a step per binade found by bisection of the
// engine's e8m0_exponent) against the engine itself (oracle: core/block_scale.hpp e8m0_exponent), for every
// E8M0 rule and element: at both ends of every binade, on both sides of every step, and at 64 random
// mantissas per binade. A threshold one ulp off fails at "step − 1" or "step".
TEST_F(SimdQuant, E8m0ExpTableEqualsTheEngine) {
  std::mt19937 rng(11);
  const mf::ElementType els[] = {mf::elements::e4m3fn, mf::elements::e5m2, mf::elements::e2m3fn, mf::elements::e3m2fn,
                                 mf::elements::e2m1fn, mf::elements::mxint8};
  int steps = 0;
  for (const mf::ScaleRule rule : {mf::ScaleRule::ocp_floor, mf::ScaleRule::rceil, mf::ScaleRule::ceil, mf::ScaleRule::even,
                                   mf::ScaleRule::tosa, mf::ScaleRule::rceil_fp32})
    for (const mf::ElementType& el : els) {
      const mf::simd::E8m0ExpTable* t = mf::simd::e8m0_exp_table(rule, el);
      ASSERT_NE(t, nullptr) << mf::scale_rule_name(rule);
      auto expect_at = [&](std::uint32_t bits, const char* where) {
        EXPECT_EQ(t->exponent(bits), mf::e8m0_exponent(rule, f32_of(bits), el))
            << mf::scale_rule_name(rule) << " amax bits 0x" << std::hex << bits << " (" << where << ")";
      };
      for (std::uint32_t E = 1; E <= 254; ++E) {
        const std::uint32_t b0 = E << 23;
        expect_at(b0, "binade start");
        expect_at(b0 | 0x7fffffu, "binade end");
        if (t->thr[E] != 0xffffffffu) {
          ++steps;
          expect_at(t->thr[E] - 1, "step - 1");
          expect_at(t->thr[E], "step");
        }
        for (int k = 0; k < 64; ++k) expect_at(b0 | (rng() & 0x7fffffu), "random");
        if (HasFailure()) return;
      }
    }
  EXPECT_GT(steps, 0) << "every rule but ocp_floor has steps inside binades";
}

// mxint8 (KeyKind::mxint8: representatives of |y| < 2^-8, |y| >= 4, NaN; 8 mantissa bits + sticky
// between): every bf16 bit pattern in shuffled blocks of 32, and every bf16 sign and mantissa over
// 24 binades ("windowed", so that every product is exact and each block's scale puts its smaller
// values in every key class), every mode x overflow x profile x Mxint8Min,
// against the scalar reference (and two FP32-scaled int8 specs).
TEST_F(SimdQuant, Mxint8EveryBf16PatternEveryMode) {
  std::vector<float> all(65536);
  for (std::uint32_t b = 0; b < 65536; ++b) all[b] = std::bit_cast<float>(b << 16);
  std::vector<float> shuffled = all;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(21));
  // Shuffled patterns mostly have an amax near 2^127 and products below 2^-126 (E8M0 fallback), so
  // the in-order array is "windowed": every bf16 sign and mantissa with its exponent folded into
  // [2^-23, 2^1), which keeps every product normal and puts y = x·2^-e in every key class.
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const std::uint32_t e = ((b >> 7) & 0xffu) % 24 + 104;
    all[b] = std::bit_cast<float>((b & 0x8000u) << 16 | e << 23 | (b & 0x7fu) << 16);
  }
  std::shuffle(all.begin(), all.end(), std::mt19937(22));
  const std::vector<std::size_t> shape{2048, 32};
  int combos = 0;
  for (const char* n : {"mxint8", "mxint8/1x32/e8m0fnu:ocp_floor/mxint8-min=symmetric"})
    for (const mf::Rounding m : {mf::Rounding::rne, mf::Rounding::rna, mf::Rounding::rtz, mf::Rounding::rtp,
                                 mf::Rounding::rtn, mf::Rounding::rto})
      for (const mf::Overflow ov : {mf::Overflow::nonsat, mf::Overflow::satfinite, mf::Overflow::satpropagate})
        for (const mf::Profile& prof : {mf::profiles::ocp, mf::profiles::nvidia, mf::profiles::ml_dtypes, mf::profiles::p3109}) {
          mf::QuantOptions opt;
          opt.rounding = {.rounding = m, .overflow = ov};
          opt.profile = prof;
          const bool full = ov == mf::Overflow::satfinite && (prof == mf::profiles::ocp || prof == mf::profiles::p3109);
          bool fast = false;
          const std::string what = std::string(n) + " " + std::string(mf::name(m)) + " " + std::string(mf::name(ov));
          if (full) expect_same(shape, shuffled, mf::parse_scheme(n), opt, 1, 1 << 20, what + " shuffled", &fast);
          else
            expect_same(std::vector<std::size_t>{256, 32}, std::vector<float>(shuffled.begin(), shuffled.begin() + 8192),
                        mf::parse_scheme(n), opt, 1, 1 << 20, what + " shuffled", &fast);
          EXPECT_TRUE(fast) << what;
          if (full) expect_same(shape, all, mf::parse_scheme(n), opt, 2, 1 << 20, what + " windowed");
          ++combos;
          if (HasFailure()) return;
        }
  EXPECT_EQ(combos, 144);
  for (const char* spec : {"mxint8/1x32/f32:fp32_amax", "mxint8/1x32/f32:fp32_pow2"}) {
    mf::Scheme s;
    try {
      s = mf::parse_scheme(spec);
    } catch (const mf::Error&) {
      continue;  // not a valid spec: nothing to compare
    }
    expect_same(shape, shuffled, s, {}, 1, 1 << 20, spec);
  }
}

namespace {

/// The shuffled bf16 patterns, a bf16 window of normal products and every f16 pattern (built once).
struct Patterns {
  std::vector<float> bf16, windowed, f16;
};
const Patterns& every_pattern() {
  static const Patterns p = [] {
    Patterns q{std::vector<float>(65536), std::vector<float>(65536), std::vector<float>(65536)};
    for (std::uint32_t b = 0; b < 65536; ++b) {
      q.bf16[b] = std::bit_cast<float>(b << 16);
      const std::uint32_t e = ((b >> 7) & 0xffu) % 24 + 104;
      q.windowed[b] = std::bit_cast<float>((b & 0x8000u) << 16 | e << 23 | (b & 0x7fu) << 16);
      q.f16[b] = static_cast<float>(mf::to_double(mf::formats::f16, b));
    }
    std::shuffle(q.bf16.begin(), q.bf16.end(), std::mt19937(31));
    std::shuffle(q.windowed.begin(), q.windowed.end(), std::mt19937(32));
    std::shuffle(q.f16.begin(), q.f16.end(), std::mt19937(33));
    return q;
  }();
  return p;
}

/// Every pattern through MXFP8 (e4m3fn, e5m2), MXFP4, NVFP4, an FP32-scaled 1x128 scheme, two column-tile
/// schemes (fp8_channel, MXFP8 along axis first) and MXFP6 (e2m3fn, e3m2fn), rne under overflow policy `ov`, on the current target
/// (`where` names it). Returns the combinations run.
int every_pattern_through_rne_kernel(mf::Overflow ov, const std::string& where) {
  const Patterns& p = every_pattern();
  // long_rows: rows of 2048 (64 MX blocks, 128 NVFP4 blocks) take the fused rows' path for groups of whole blocks
  const std::vector<std::size_t> shape{512, 128}, long_rows{32, 2048};
  int combos = 0;
  // (the last two: column tiles, one element per block: the per-lane kernel and the column statistics)
  const std::pair<const char*, mf::BlockAxis> schemes[] = {
      {"mxfp8_e4m3", mf::BlockAxis::last}, {"mxfp8_e5m2", mf::BlockAxis::last}, {"mxfp4", mf::BlockAxis::last},
      {"nvfp4", mf::BlockAxis::last},      {"fp8_1x128", mf::BlockAxis::last},  {"fp8_channel", mf::BlockAxis::last},
      {"mxfp8_e4m3", mf::BlockAxis::first}, {"mxfp6_e2m3", mf::BlockAxis::last}, {"mxfp6_e3m2", mf::BlockAxis::last}};
  for (const auto& [n, axis] : schemes) {
    mf::QuantOptions opt;
    opt.rounding = {.rounding = mf::Rounding::rne, .overflow = ov};
    opt.axis = axis;
    const mf::Scheme s = mf::parse_scheme(n);
    const mf::simd::QuantKernel* k =
        mf::simd::quant_kernel(s.element, opt.rounding, opt.profile, s.policy.mxint8_min);
    EXPECT_TRUE(k != nullptr && k->rne.kind != mf::simd::RneKind::none) << n << " takes the rne element kernel";
    if (::testing::Test::HasFailure()) return combos;
    const std::string what =
        std::string(n) + (axis == mf::BlockAxis::first ? " axis first " : " ") + std::string(mf::name(ov)) + " " + where;
    bool fast = false;
    expect_same(shape, p.bf16, s, opt, 1, 1 << 20, what + " bf16 shuffled", &fast);
    EXPECT_TRUE(fast) << what;
    expect_same(shape, p.windowed, s, opt, 2, 1 << 20, what + " bf16 windowed");
    expect_same(long_rows, p.windowed, s, opt, 1, 1 << 20, what + " bf16 windowed, long rows");
    expect_same(shape, p.f16, s, opt, 1, 1 << 20, what + " f16");
    ++combos;
    if (::testing::Test::HasFailure()) return combos;
  }
  return combos;
}

}  // namespace

// The arithmetic rne element kernel and the fused rows (simd::QuantRne, simd::fused_rows_rne) on every
// bf16 and every f16 bit pattern: bf16 shuffled (mostly NaN/Inf or inexact blocks: the fallbacks) and
// windowed as above (every sign and mantissa, products normal: the kernel itself; in rows of 128 and of
// 2048), f16 shuffled (every
// product normal), through MXFP8 (e4m3fn, e5m2), MXFP4, NVFP4, an FP32-scaled 1x128 scheme, two column-tile
// schemes (fp8_channel, MXFP8 along axis first) and MXFP6 (mxfp6_e2m3, mxfp6_e3m2), rne: satfinite on this instance's Highway
// target, the other overflow policies on the best target (the test after it). Oracle: the scalar path of src/quant/tile_loops.cpp.
TEST_P(SimdQuantOnTarget, EveryBf16AndF16PatternThroughTheRneElementKernelSatfinite) {
  EXPECT_EQ(every_pattern_through_rne_kernel(mf::Overflow::satfinite, hwy::TargetName(GetParam())), 9);
}
TEST_F(SimdQuant, EveryBf16AndF16PatternThroughTheRneElementKernelNonsatAndSatpropagate) {
  for (const mf::Overflow ov : {mf::Overflow::nonsat, mf::Overflow::satpropagate})
    EXPECT_EQ(every_pattern_through_rne_kernel(ov, "best"), 9);
}

// The arithmetic MXINT8 element kernel (simd::QuantInt8, Int8Lane of simd/quant-inl.h; fused rows and
// encode_blocks) on every bf16 and every f16 bit pattern, on this instance's Highway target: bf16 shuffled (mostly
// NaN/Inf or inexact blocks: the fallbacks), windowed as above (every sign and mantissa, products normal: the kernel
// itself, in rows of 128 and of 2048, the fused rows' groups of whole blocks), f16 shuffled, for both Mxint8Min
// (−128 kept, or saturating to −127), and through the FP32-scaled int8 schemes (BlockOp multiply and divide).
// Oracle: the scalar path of src/quant/tile_loops.cpp (core/block_scale.hpp quantize_element on mxint8_grid).
TEST_P(SimdQuantOnTarget, EveryBf16AndF16PatternThroughTheInt8ElementKernel) {
  const Patterns& p = every_pattern();
  const std::vector<std::size_t> shape{512, 128}, long_rows{32, 2048};
  const std::string where = hwy::TargetName(GetParam());
  int combos = 0;
  for (const char* n : {"mxint8", "mxint8/1x32/e8m0fnu:ocp_floor/mxint8-min=symmetric", "mxint8/1x32/e8m0fnu:rceil",
                        "mxint8/1x32/f32:fp32_amax", "mxint8/1x32/f32:fp32_amax/fp32-order=divide"}) {
    const mf::Scheme s = mf::parse_scheme(n);
    mf::QuantOptions opt;  // rne satfinite ocp
    const mf::simd::QuantKernel* k = mf::simd::quant_kernel(s.element, opt.rounding, opt.profile, s.policy.mxint8_min);
    ASSERT_TRUE(k != nullptr && k->int8.on && mf::simd::rne_elements_run(*k)) << n << " takes the int8 kernel";
    const std::string what = std::string(n) + " " + where;
    bool fast = false;
    expect_same(shape, p.bf16, s, opt, 1, 1 << 20, what + " bf16 shuffled", &fast);
    EXPECT_TRUE(fast) << what;
    expect_same(shape, p.windowed, s, opt, 2, 1 << 20, what + " bf16 windowed");
    expect_same(long_rows, p.windowed, s, opt, 1, 1 << 20, what + " bf16 windowed, long rows");
    expect_same(shape, p.f16, s, opt, 1, 1 << 20, what + " f16");
    ++combos;
    if (HasFailure()) return;
  }
  EXPECT_EQ(combos, 5);
}

// The scale rules issue 25 added, on the fast path (fast_path_whitelisted): rceil_fp32 (TE MXFP8's
// cvt.rp.satfinite.ue8m0 of fl32(amax · fl32(1/max)); the fused rows' E8m0ExpTable, checked above) through MXFP8,
// MXFP4 and MXINT8, and the UE5M3 rules of auto-round nvfp4_v2 (the fused rows' FusedScale::Kind::ue5m3, elements
// fl32(x / divisor): BlockOp::divide) with and without the tensor scale, on every bf16 and every f16 bit pattern (shuffled, windowed,
// long rows; rne satfinite ocp) on this instance's Highway target. Oracle: the scalar path of
// src/quant/tile_loops.cpp (core/block_scale.hpp e8m0_exponent, ue5m3_block_scale).
TEST_P(SimdQuantOnTarget, EveryBf16AndF16PatternThroughRceilFp32AndUe5m3) {
  const Patterns& p = every_pattern();
  const std::vector<std::size_t> shape{512, 128}, long_rows{32, 2048};
  const std::string where = hwy::TargetName(GetParam());
  int combos = 0;
  for (const char* n : {"e4m3fn/1x32/e8m0fnu:rceil_fp32", "e5m2/1x32/e8m0fnu:rceil_fp32", "e2m1fn/1x32/e8m0fnu:rceil_fp32",
                        "mxint8/1x32/e8m0fnu:rceil_fp32", "nvfp4_ue5m3", "e2m1fn/1x16/ue5m3:nvfp4_v2"}) {
    const mf::Scheme s = mf::parse_scheme(n);
    const mf::QuantOptions opt;
    const std::string what = std::string(n) + " " + where;
    bool fast = false;
    expect_same(shape, p.bf16, s, opt, 1, 1 << 20, what + " bf16 shuffled", &fast);
    EXPECT_TRUE(fast) << what;
    expect_same(shape, p.windowed, s, opt, 2, 1 << 20, what + " bf16 windowed");
    expect_same(long_rows, p.windowed, s, opt, 1, 1 << 20, what + " bf16 windowed, long rows");
    expect_same(shape, p.f16, s, opt, 1, 1 << 20, what + " f16");
    ++combos;
    if (HasFailure()) return;
  }
  EXPECT_EQ(combos, 6);
}

namespace {
// x with its non-finite values replaced by +0 (a finite tensor amax: 4over6's error and the row scales finite)
std::vector<float> finite_only(std::vector<float> x) {
  for (auto& v : x)
    if (!std::isfinite(v)) v = 0.0f;
  return x;
}
}  // namespace

// 4over6 (scale-select 4over6:mse|mae: simd::fused_rows_4over6, TE's error in binary32 summed in order i = 0..15,
// map-to-4 only if err4 < err6) and amax-scope row (the fused NVFP4 rows with each row's S_enc; along axis first the
// tile array with the row's rule) on every bf16 and every f16 bit pattern (shuffled, shuffled with the non-finite
// values as +0, windowed, long rows) on this instance's Highway target, rne satfinite ocp, and 4over6 / amax-scope
// row under rtz (the table path and fourover6_segment). Oracle: the scalar path of src/quant/tile_loops.cpp
// (fourover6_segment with core/four_over_six.hpp; the core's tile step with the row's rule).
TEST_P(SimdQuantOnTarget, EveryBf16AndF16PatternThrough4over6AndRowAmax) {
  const Patterns& p = every_pattern();
  const std::vector<std::size_t> shape{512, 128}, long_rows{32, 2048};
  const std::string where = hwy::TargetName(GetParam());
  const std::vector<float> bf16_finite = finite_only(p.bf16), f16_finite = finite_only(p.f16);
  int combos = 0;
  const std::pair<const char*, mf::BlockAxis> schemes[] = {
      {"e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mse", mf::BlockAxis::last},
      {"e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mae", mf::BlockAxis::last},
      {"e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row", mf::BlockAxis::last},
      {"e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row", mf::BlockAxis::first}};
  for (const auto& [n, axis] : schemes) {
    const mf::Scheme s = mf::parse_scheme(n);
    mf::QuantOptions opt;  // rne satfinite ocp
    opt.axis = axis;
    const std::string what = std::string(n) + (axis == mf::BlockAxis::first ? " axis first " : " ") + where;
    bool fast = false;
    expect_same(shape, p.bf16, s, opt, 1, 1 << 20, what + " bf16 shuffled", &fast);
    EXPECT_TRUE(fast) << what;
    expect_same(shape, bf16_finite, s, opt, 1, 1 << 20, what + " bf16 shuffled, finite");
    expect_same(shape, p.windowed, s, opt, 2, 1 << 20, what + " bf16 windowed");
    expect_same(long_rows, p.windowed, s, opt, 1, 1 << 20, what + " bf16 windowed, long rows");
    expect_same(shape, p.f16, s, opt, 1, 1 << 20, what + " f16");
    expect_same(shape, f16_finite, s, opt, 1, 1 << 20, what + " f16, finite");
    mf::QuantOptions rtz = opt;
    rtz.rounding.rounding = mf::Rounding::rtz;
    expect_same(shape, f16_finite, s, rtz, 1, 1 << 20, what + " f16, finite, rtz");
    ++combos;
    if (HasFailure()) return;
  }
  EXPECT_EQ(combos, 4);
}

namespace {
// The error of one 4over6 candidate as core/four_over_six.hpp states it (elements by the core's from_float), its 16
// terms summed in the order i = 0..15, or reversed (the selection of order-sensitive blocks below only).
float fourover6_error(const float* x, std::uint8_t code, float s_enc, float gamax, bool mse, bool reversed) {
  const float enc = mf::nvfp4_element_encode_scale(code, s_enc), sf = mf::to_float(mf::formats::e4m3fn, code);
  float e = 0.0f;
  for (int k = 0; k < 16; ++k) {
    const int i = reversed ? 15 - k : k;
    const auto r = mf::from_float(mf::fmul_rn(x[i], enc), mf::formats::e2m1fn,
                                  mf::RoundingSpec{mf::Rounding::rne, mf::Overflow::satfinite});
    e = mf::fourover6_error_step(e, mf::to_float(mf::formats::e2m1fn, r.code), sf, gamax, x[i], mse);
  }
  return e;
}
/// Blocks of 16 (after a first block whose amax 8 is the tensor amax) on which 4over6's choice depends on the
/// order of the error sum (in order and reversed pick differently) or whose errors tie (err4 == err6), for MSE
/// (mse) or MAE, found by a seeded search over values on a grid of 64 mantissas in three binades (about 1 block in
/// 30000 flips under MSE, 1 in 1000 under MAE: at most 300000 blocks); `flips` and `ties` count what was found.
struct OrderSensitive {
  std::vector<float> x;
  int flips = 0, ties = 0;
};
const OrderSensitive& order_sensitive_blocks(bool mse) {
  static const auto make = [](bool m) {
    OrderSensitive o;
    o.x.assign(16, 0.0f);
    o.x[0] = 8.0f;
    const float gamax = 8.0f, s_enc = mf::fourover6_global_encode_scale(gamax);
    std::mt19937 rng(m ? 41 : 42);
    for (int b = 0; b < 300000 && (o.flips < 24 || o.ties < 24); ++b) {
      float x[16];
      for (auto& v : x) {
        v = std::ldexp(1.0f + static_cast<float>(rng() % 64) / 64.0f, static_cast<int>(rng() % 3) - 2);
        if (rng() & 1) v = -v;
      }
      float amax = 0.0f;
      for (const float v : x) amax = std::max(amax, std::fabs(v));
      const mf::FourOverSixCodes c = mf::fourover6_block_codes(amax, s_enc);
      const float e6 = fourover6_error(x, c.map6, s_enc, gamax, m, false), e4 = fourover6_error(x, c.map4, s_enc, gamax, m, false);
      const float r6 = fourover6_error(x, c.map6, s_enc, gamax, m, true), r4 = fourover6_error(x, c.map4, s_enc, gamax, m, true);
      const bool flip = (e4 < e6) != (r4 < r6), tie = e4 == e6;
      if ((flip && o.flips < 24) || (tie && o.ties < 24)) {
        o.x.insert(o.x.end(), x, x + 16);
        o.flips += flip;
        o.ties += tie;
      }
    }
    return o;
  };
  static const OrderSensitive a = make(true), b = make(false);
  return mse ? a : b;
}
}  // namespace

// 4over6's error sum in the engine's order on the fast path: blocks whose choice flips when the 16 terms are summed in
// another order (reversed), and blocks whose two errors tie (map-to-6 kept), in rows of one block and in one long row,
// for MSE and MAE, on this instance's Highway target. Oracle: the scalar path of src/quant/tile_loops.cpp.
TEST_P(SimdQuantOnTarget, FourOverSixOrderSensitiveBlocks) {
  const std::string where = hwy::TargetName(GetParam());
  for (const bool mse : {true, false}) {
    const OrderSensitive& o = order_sensitive_blocks(mse);
    ASSERT_GE(o.flips, mse ? 8 : 24) << mse;  // (the search's yield: MSE flips are rarer)
    ASSERT_GE(o.ties, 24) << mse;
    const mf::Scheme s = mf::parse_scheme(mse ? "e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mse"
                                              : "e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mae");
    const std::string what = std::string(mse ? "mse " : "mae ") + where;
    bool fast = false;
    expect_same({o.x.size() / 16, 16}, o.x, s, {}, 1, 1 << 20, what + " rows of one block", &fast);
    EXPECT_TRUE(fast) << what;
    expect_same({1, o.x.size()}, o.x, s, {}, 1, 1 << 20, what + " one row");
  }
}

// The new fused rows are the path taken, not a silent fallback: simd::fused_rows_4over6 leaves no block of a row of
// plain blocks to the caller (status 0 each), and picks map-to-4 for some blocks and map-to-6 for others; a short
// block, a NaN block and a zero block are left (status 3). 4over6's candidates from the kernel's table step equal
// core fourover6_block_codes for every positive finite bf16 amax under several tensor scales.
TEST_F(SimdQuant, FourOverSixFusedRowsTakeThePlainBlocks) {
  const mf::simd::QuantKernel* k =
      mf::simd::quant_kernel(mf::elements::e2m1fn, mf::RoundingSpec{}, mf::profiles::ocp, mf::Mxint8Min{});
  ASSERT_TRUE(k != nullptr && k->rne.kind == mf::simd::RneKind::e2m1fn && mf::simd::rne_elements_run(*k));
  const std::vector<float> x = random_normal(16 * 100, 5);
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  std::array<float, 256> enc{};
  const float s_enc = mf::fourover6_global_encode_scale(amax);
  for (unsigned c = 0; c < 256; ++c) enc[c] = mf::nvfp4_element_encode_scale(static_cast<std::uint8_t>(c), s_enc);
  for (const bool mse : {true, false}) {
    std::vector<float> val(256 * 8 + 8, 0.0f);
    for (std::size_t c = 0; c < 256; ++c)
      for (std::size_t m = 0; m < 8; ++m)
        val[8 * c + m] = mf::fdiv_rn(mf::fmul_rn(mf::fmul_rn(mf::to_float(mf::formats::e2m1fn, m),
                                                             mf::to_float(mf::formats::e4m3fn, c)), amax), 1536.0f);
    const mf::simd::FourOverSixRows fs{.s_enc = s_enc, .mse = mse, .e4m3 = mf::simd::nvfp4_scale_table(),
                                       .enc = enc.data(), .val = val.data()};
    std::vector<std::uint8_t> sc(100), sel(100, 7), codes(x.size()), status(100, 9);
    mf::simd::fused_rows_4over6(*k, fs, x.data(), x.size(), x.size(), 16, 16, sc.data(), sel.data(), codes.data(),
                                status.data());
    EXPECT_EQ(std::count(status.begin(), status.end(), 0), 100) << mse;
    EXPECT_GT(std::count(sel.begin(), sel.end(), 1), 0) << mse;
    EXPECT_GT(std::count(sel.begin(), sel.end(), 0), 0) << mse;
    std::vector<float> y = x;  // block 1 a NaN, block 2 zeros, the last block short (7 elements)
    y[20] = std::numeric_limits<float>::quiet_NaN();
    std::fill(y.begin() + 32, y.begin() + 48, 0.0f);
    mf::simd::fused_rows_4over6(*k, fs, y.data(), 16 * 99 + 7, y.size(), 16, 16, sc.data(), sel.data(), codes.data(),
                                status.data());
    EXPECT_EQ(status[0], 0);
    EXPECT_EQ(status[1], 3);
    EXPECT_EQ(status[2], 3);
    EXPECT_EQ(status[99], 3);
  }
  std::size_t mismatches = 0;
  for (const float tensor_amax : {1.0f, 0.02f, 3.0e-5f, 1536.0f, 1.7e38f, 1.0e-40f}) {
    const float se = mf::fourover6_global_encode_scale(tensor_amax);
    for (std::uint32_t b = 0x80; b < 0x7f80; ++b) {  // normal amaxes (the kernel's plain blocks)
      const float a = std::bit_cast<float>(b << 16);
      const mf::FourOverSixCodes want = mf::fourover6_block_codes(a, se);
      const mf::simd::EncodeTable& t = *mf::simd::nvfp4_scale_table();
      const float base = mf::fmul_rn(mf::fdiv_rn(a, 6.0f), se);
      const auto c6 = static_cast<std::uint8_t>(t.entry[mf::simd::encode_key(std::bit_cast<std::uint32_t>(base), t.drop)]);
      const auto c4 =
          static_cast<std::uint8_t>(t.entry[mf::simd::encode_key(std::bit_cast<std::uint32_t>(mf::fmul_rn(base, 1.5f)), t.drop)]);
      if (c6 != want.map6 || c4 != want.map4) {
        if (++mismatches < 5) ADD_FAILURE() << "amax " << a << " s_enc " << se;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

// The UE5M3 fused rows (FusedScale::Kind::ue5m3, issue 25 item 9) are the path taken for plain blocks: status 0 for
// every block of rows of normal values; a zero block and a NaN block are left to the caller (status 3); the scale code
// written is core ue5m3_block_scale's. (The bytes against the engine: EveryBf16AndF16PatternThroughRceilFp32AndUe5m3.)
TEST_F(SimdQuant, Ue5m3FusedRowsTakeThePlainBlocks) {
  const mf::simd::QuantKernel* k =
      mf::simd::quant_kernel(mf::elements::e2m1fn, mf::RoundingSpec{}, mf::profiles::ocp, mf::Mxint8Min{});
  ASSERT_TRUE(k != nullptr && mf::simd::rne_elements_run(*k));
  std::array<float, 256> div{};
  for (const float g : {1.0f, 68812.8047f}) {
    for (unsigned c = 0; c < 256; ++c)
      div[c] = mf::fmul_rn(mf::to_float(mf::formats::ue5m3, c), mf::autoround_reciprocal(g));
    mf::simd::FusedScale fs;
    fs.kind = mf::simd::FusedScale::Kind::ue5m3;
    fs.ue5m3_g = g;
    fs.ue5m3_rcp_max = mf::frcp_rn(6.0f);
    fs.ue5m3_div = div.data();
    std::vector<float> x = random_normal(16 * 64, 9);
    x[16 * 5 + 3] = std::numeric_limits<float>::quiet_NaN();
    std::fill(x.begin() + 16 * 9, x.begin() + 16 * 10, 0.0f);
    std::vector<std::uint8_t> sc(64, 0), codes(x.size()), status(64, 9);
    mf::simd::fused_rows_rne(*k, fs, x.data(), x.size(), x.size(), 16, 16, sc.data(), 1, codes.data(), status.data());
    for (std::size_t j = 0; j < 64; ++j) {
      if (j == 5 || j == 9) {
        EXPECT_EQ(status[j], 3) << j;
        continue;
      }
      EXPECT_EQ(status[j], 0) << j;
      float amax = 0.0f;
      for (std::size_t i = 0; i < 16; ++i) amax = std::max(amax, std::fabs(x[16 * j + i]));
      EXPECT_EQ(sc[j], mf::ue5m3_block_scale(amax, g, 6.0f).code) << j;
    }
  }
}

// Which MXINT8 kernels take the arithmetic element rule (simd::QuantInt8): rne under every overflow policy and
// profile of the whitelist and both Mxint8Min (the rule ignores the policy: an int8 element always saturates);
// every other mode the table. A table that failed quant_int8_for's check would fall back silently; this pins
// that none does.
TEST_F(SimdQuant, Int8ElementKernelTakesTheStatedCombinations) {
  int taken = 0;
  for (const mf::Rounding m : mf::simd::kModes)
    for (const mf::Overflow ov : mf::simd::kPolicies)
      for (const mf::Profile& prof : mf::simd::kProfiles)
        for (const mf::Mxint8Min mn : {mf::Mxint8Min::twos_complement, mf::Mxint8Min::symmetric}) {
          const mf::simd::QuantKernel* k =
              mf::simd::quant_kernel(mf::elements::mxint8, {.rounding = m, .overflow = ov}, prof, mn);
          ASSERT_NE(k, nullptr);
          EXPECT_EQ(k->int8.on, m == mf::Rounding::rne) << mf::name(m) << " " << mf::name(ov);
          if (k->int8.on) {
            EXPECT_EQ(k->int8.neg_limit, mn == mf::Mxint8Min::symmetric ? 127u : 128u);
          }
          taken += k->int8.on;
        }
  EXPECT_EQ(taken, static_cast<int>(3 * mf::simd::kProfiles.size() * 2));
}

// The fast NVFP4 scale step (simd::nvfp4_block_scale_code_table: binary32 operations + the
// engine-built e4m3fn table) against core nvfp4_block_scale_code (round_pack), for every positive
// finite bf16 amax and 20000 random positive finite binary32 amaxes, under the tensor scales
// of several tensor amaxes. Oracle: core/block_scale.hpp (the engine).
TEST_F(SimdQuant, Nvfp4ScaleStepEqualsTheEngine) {
  std::vector<float> amaxes;
  for (std::uint32_t b = 1; b < 0x7f80; ++b) amaxes.push_back(std::bit_cast<float>(b << 16));
  std::mt19937 rng(31);
  for (int i = 0; i < 20000; ++i) amaxes.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(1u + rng() % 0x7f7fffffu)));
  std::size_t mismatches = 0, checked = 0;
  for (const float tensor_amax : {1.0f, 0.02f, 3.0e-5f, 448.0f * 6.0f, 1.7e38f, 1.0e-40f}) {
    const float s_enc = mf::nvfp4_global_encode_scale(mf::detail::exact_f32(tensor_amax), 6.0f);
    for (const float a : amaxes) {
      ++checked;
      if (mf::simd::nvfp4_block_scale_code_table(a, s_enc, 6.0f) != mf::nvfp4_block_scale_code(a, s_enc, 6.0f)) {
        if (++mismatches < 5) ADD_FAILURE() << "amax " << a << " s_enc " << s_enc;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << checked;
}

// accumulate_errors (chunks of 8 lanes in vectors) against ErrorStats' definition written out here
// (oracle: this loop, one element at a time: element g to lane g mod 8, then the stated combination).
mf::ErrorStats serial_definition(const std::vector<double>& x, const std::vector<double>& q) {
  mf::ErrorStats s;
  double sig[8] = {}, noi[8] = {};
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) continue;
    ++s.count;
    sig[i % 8] += x[i] * x[i];
    if (!std::isfinite(q[i])) {
      ++s.nonfinite_out;
      noi[i % 8] = std::numeric_limits<double>::infinity();
      s.max_abs_err = std::numeric_limits<double>::infinity();
      continue;
    }
    const double e = x[i] - q[i];
    noi[i % 8] += e * e;
    if (std::fabs(e) > s.max_abs_err) s.max_abs_err = std::fabs(e);
  }
  s.signal = ((sig[0] + sig[1]) + (sig[2] + sig[3])) + ((sig[4] + sig[5]) + (sig[6] + sig[7]));
  s.noise = ((noi[0] + noi[1]) + (noi[2] + noi[3])) + ((noi[4] + noi[5]) + (noi[6] + noi[7]));
  return s;
}
TEST_F(SimdQuant, ErrorStatsEqualTheSerialDefinition) {
  std::mt19937 rng(11);
  std::normal_distribution<double> d(0.0, 1.0);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{511}, std::size_t{512}, std::size_t{513}, std::size_t{519}, std::size_t{5000}})
    for (int kind = 0; kind < 5; ++kind) {
      std::vector<double> x(n), q(n);
      for (std::size_t i = 0; i < n; ++i) {
        // magnitudes over many binades so that the order of the sums shows in the last bits
        x[i] = std::ldexp(d(rng), static_cast<int>(rng() % 60) - 30);
        q[i] = x[i] * (1.0 + std::ldexp(d(rng), -4));
      }
      if (n > 700) {
        if (kind == 1) x[600] = nan;          // a skipped input in the second chunk
        if (kind == 2) q[700] = inf;          // a finite input lost to Inf
        if (kind == 3) { x[3] = -inf; q[4000] = nan; }
        if (kind == 4) { x[512] = 0x1p1000; q[512] = -0x1p1000; }  // (x − q)² overflows to +Inf (finite operands)
      }
      for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{1000}, n + 1}) {
        mf::ErrorStats s;
        for (std::size_t i = 0; i < n; i += piece) {  // pieces: the sums continue across calls
          const std::size_t m = std::min(piece, n - i);
          mf::accumulate_errors(s, std::span<const double>(x.data() + i, m), std::span<const double>(q.data() + i, m));
        }
        const mf::ErrorStats r = serial_definition(x, q);
        const std::string what = "n " + std::to_string(n) + " kind " + std::to_string(kind) + " piece " + std::to_string(piece);
        EXPECT_EQ(r.count, s.count) << what;
        EXPECT_EQ(r.nonfinite_out, s.nonfinite_out) << what;
        EXPECT_EQ(bits(r.signal), bits(s.signal)) << what << ": signal";
        EXPECT_EQ(bits(r.noise), bits(s.noise)) << what << ": noise";
        EXPECT_EQ(bits(r.max_abs_err), bits(s.max_abs_err)) << what << ": max_abs_err";
      }
    }
}

// The lane order and the combination of the lanes show in the last bits of random sums often enough
// (about 1 in 7 sums here differs under another bracketing of the 8 lanes): 128 sums.
TEST_F(SimdQuant, ErrorStatsLaneOrderShowsInTheBits) {
  std::normal_distribution<double> d(0.0, 1.0);
  for (std::uint32_t seed = 0; seed < 64; ++seed) {
    std::mt19937 rng(seed);
    const std::size_t n = 777;
    std::vector<double> x(n), q(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = std::ldexp(d(rng), static_cast<int>(rng() % 8));
      q[i] = x[i] * (1.0 + std::ldexp(d(rng), -6));
    }
    mf::ErrorStats s;
    for (std::size_t i = 0; i < n; i += 3)
      mf::accumulate_errors(s, std::span<const double>(x.data() + i, std::min<std::size_t>(3, n - i)),
                            std::span<const double>(q.data() + i, std::min<std::size_t>(3, n - i)));
    const mf::ErrorStats r = serial_definition(x, q);
    EXPECT_EQ(bits(r.signal), bits(s.signal)) << "seed " << seed;
    EXPECT_EQ(bits(r.noise), bits(s.noise)) << "seed " << seed;
  }
}

// RapidCheck: random shapes, schemes, modes and boundary-biased binary32 values.
RC_GTEST_PROP(SimdQuantProps, FastEqualsReference, ()) {
  // (the last three: column tiles, whose blocks are one element per row: the per-lane kernel)
  const char* names[] = {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "nvfp4",
                         "fp8_row", "fp8_1x128", "fp8_tensor", "fp8_1x128_ue8m0", "mxint8", "nvfp4_ue5m3",
                         "fp8_channel", "e4m3fn/allx1/e8m0fnu:rceil", "e2m1fn/3x1/e8m0fnu:ocp_floor",
                         "e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row", "e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=64"};
  mf::Scheme s = mf::parse_scheme(names[*rc::gen::inRange(0, 17)]);
  // the rule of the scheme's family, and sometimes an amax epsilon (the fused rows' "plain" bound)
  const std::vector<mf::ScaleRule> rules = family_rules(s.rule);
  s.rule = rules[*rc::gen::inRange<std::size_t>(0, rules.size())];
  const float epsilons[] = {0.0f, 0.0f, 1e-4f, 0x1p-100f};
  s.policy.amax_epsilon = epsilons[*rc::gen::inRange(0, 4)];
  const std::size_t rows = *rc::gen::inRange<std::size_t>(1, 5), cols = *rc::gen::inRange<std::size_t>(1, 100);
  const auto gen_value = rc::gen::oneOf(
      rc::gen::map(rc::gen::arbitrary<std::uint32_t>(), [](std::uint32_t b) { return std::bit_cast<float>(b); }),
      rc::gen::map(rc::gen::pair(rc::gen::inRange(-150, 130), rc::gen::inRange(0, 64)),
                   [](std::pair<int, int> p) { return std::ldexp(1.0f + static_cast<float>(p.second) / 64.0f, p.first); }),
      rc::gen::map(rc::gen::inRange<std::uint32_t>(0, 1u << 23), [](std::uint32_t b) { return std::bit_cast<float>(b); }),
      rc::gen::element(0.0f, -0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()));
  const std::vector<float> x = *rc::gen::container<std::vector<float>>(rows * cols, gen_value);
  const mf::Rounding modes[] = {mf::Rounding::rne, mf::Rounding::rna, mf::Rounding::rtz, mf::Rounding::rtp,
                                mf::Rounding::rtn, mf::Rounding::rto};
  mf::QuantOptions opt;
  const mf::Overflow policies[] = {mf::Overflow::nonsat, mf::Overflow::satfinite, mf::Overflow::satpropagate};
  opt.rounding = {.rounding = modes[*rc::gen::inRange(0, 6)], .overflow = policies[*rc::gen::inRange(0, 3)]};
  opt.axis = *rc::gen::element(mf::BlockAxis::last, mf::BlockAxis::first);
  // whole tensor, or pieces that may cut rows and tiles (first pass)
  const std::size_t piece = *rc::gen::element(std::size_t{1} << 20, std::size_t{1} + *rc::gen::inRange<std::size_t>(0, rows * cols));
  const Outcome ref = run({rows, cols}, x, s, opt, mf::ArrayPath::engine, 1, piece);
  const Outcome fast = run({rows, cols}, x, s, opt, mf::ArrayPath::simd, 2, piece);
  RC_ASSERT(fast.path == mf::ArrayPath::simd);
  RC_ASSERT(same_bytes(ref.codes, fast.codes));
  RC_ASSERT(same_bytes(ref.q.scale_codes, fast.q.scale_codes));
  RC_ASSERT(same_bytes(ref.q.scales, fast.q.scales));
  RC_ASSERT(ref.q.saturated == fast.q.saturated);
  RC_ASSERT(ref.q.flushed == fast.q.flushed);
  RC_ASSERT(same_bytes(ref.deq64, fast.deq64));
}

// RapidCheck: 4over6 (mse, mae) and amax-scope row on rows of whole and short blocks with values chosen for the
// edges: ties of err4 and err6 (constant blocks, blocks of powers of two, equal magnitudes), NaN, Inf and zero blocks,
// zero rows, rows of tiny values whose S_enc saturates at FLT_MAX, f32 subnormals; rne/rtz, 1 or 2 threads,
// whole tensor or row pieces. Oracle: ArrayPath::engine.
RC_GTEST_PROP(SimdQuantProps, FastEqualsReference4over6AndRowAmax, ()) {
  const char* names[] = {"e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mse",
                         "e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mae", "e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row"};
  const int which = *rc::gen::inRange(0, 3);
  const mf::Scheme s = mf::parse_scheme(names[which]);
  const std::size_t rows = *rc::gen::inRange<std::size_t>(1, 6), cols = 16 * *rc::gen::inRange<std::size_t>(1, 9) -
                                                                        *rc::gen::element<std::size_t>(0, 0, 0, 5);
  std::vector<float> x(rows * cols);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t r = 0; r < rows; ++r) {
    const int row_kind = *rc::gen::inRange(0, 8);  // 0: zero row; 1: tiny row (S_enc saturates); else mixed blocks
    for (std::size_t b0 = 0; b0 < cols; b0 += 16) {
      const int kind = *rc::gen::inRange(0, 8);
      const float c = std::ldexp(1.0f + static_cast<float>(*rc::gen::inRange(0, 8)) / 8.0f, *rc::gen::inRange(-20, 20));
      for (std::size_t i = b0; i < std::min(b0 + 16, cols); ++i) {
        float v;
        const float sgn = *rc::gen::arbitrary<bool>() ? -1.0f : 1.0f;
        switch (kind) {
          case 0: v = c; break;                                                        // constant: a tie
          case 1: v = sgn * std::ldexp(1.0f, *rc::gen::inRange(-6, 3)); break;         // powers of two
          case 2: v = sgn * c; break;                                                  // equal magnitudes
          case 3: v = std::bit_cast<float>(*rc::gen::arbitrary<std::uint32_t>()); break;  // any pattern
          case 4: v = *rc::gen::element(0.0f, -0.0f, inf, -inf, nan, 1.0f, std::bit_cast<float>(1u)); break;
          default:
            v = sgn * std::ldexp(1.0f + static_cast<float>(*rc::gen::inRange(0, 64)) / 64.0f, *rc::gen::inRange(-12, 12));
        }
        if (row_kind == 0) v = 0.0f;
        if (row_kind == 1) v = sgn * std::bit_cast<float>(*rc::gen::inRange<std::uint32_t>(0, 64));  // subnormal
        x[r * cols + i] = v;
      }
    }
  }
  mf::QuantOptions opt;
  opt.rounding.rounding = *rc::gen::element(mf::Rounding::rne, mf::Rounding::rne, mf::Rounding::rtz);
  if (which == 2) opt.axis = *rc::gen::element(mf::BlockAxis::last, mf::BlockAxis::first);
  const std::size_t piece = *rc::gen::element(std::size_t{1} << 20, cols, 2 * cols);
  const Outcome ref = run({rows, cols}, x, s, opt, mf::ArrayPath::engine, 1, piece);
  const Outcome fast = run({rows, cols}, x, s, opt, mf::ArrayPath::simd, *rc::gen::inRange(1u, 3u), piece);
  RC_ASSERT(fast.path == mf::ArrayPath::simd);
  RC_ASSERT(same_bytes(ref.codes, fast.codes));
  RC_ASSERT(same_bytes(ref.q.scale_codes, fast.q.scale_codes));
  RC_ASSERT(same_bytes(ref.q.scale_select, fast.q.scale_select));
  RC_ASSERT(same_bytes(ref.q.row_encode_scales, fast.q.row_encode_scales));
  RC_ASSERT(same_bytes(ref.q.row_decode_scales, fast.q.row_decode_scales));
  RC_ASSERT(ref.q.saturated == fast.q.saturated);
  RC_ASSERT(ref.q.flushed == fast.q.flushed);
  RC_ASSERT(same_bytes(ref.deq64, fast.deq64));
}

}  // namespace
