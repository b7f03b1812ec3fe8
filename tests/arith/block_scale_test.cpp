// SPDX-License-Identifier: Apache-2.0
// block_scale_test.cpp: the block-scaled tcgen05 presets (mxf8f6f4, mxf4, nvf4) against the MPFR
// oracle of tfdpa_oracle.cpp (exact products and sums, then the documented roundings; it shares
// no code with core/tfdpa.hpp), hand-computed values of the scale rules, and their dot()/gemm()
// argument checks; and FP64 DMMA (dmma-f64-unvalidated) against a chain of MPFR binary64 FMAs.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "mpfr_oracle.hpp"
#include "tfdpa_oracle.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;
namespace ao = arith_oracle;

ao::BsModel oracle_model(const TfdpaModel& m) {
  const bool sub = m.scale.application == BlockScaleApplication::subblock_sum;
  return {sub ? ao::BsRule::per_subblock : ao::BsRule::per_product,
          m.group,
          m.frac_bits,
          m.zero_exponent,
          m.scale.block,
          m.scale.subblock,
          m.scale.format == formats::ue4m3 ? ao::BsFormat::ue4m3 : ao::BsFormat::e8m0fnu,
          m.zero.product == ZeroProductExponent::relative,
          m.zero.factor_exponent,
          m.zero.c == ZeroCExponent::own,
          m.zero.c_exponent};
}

struct Elem {
  Format f;
  ao::BsFormat o;
};
constexpr Elem kE4m3{formats::e4m3fn, ao::BsFormat::e4m3fn}, kE5m2{formats::e5m2, ao::BsFormat::e5m2},
    kE2m3{formats::e2m3fn, ao::BsFormat::e2m3fn}, kE3m2{formats::e3m2fn, ao::BsFormat::e3m2fn},
    kE2m1{formats::e2m1fn, ao::BsFormat::e2m1fn};

/// A random finite element code (no NaN/Inf codes: e4m3fn 0x7f/0xff, e5m2 exponent field 31).
std::uint64_t elem_code(const Elem& e, std::mt19937_64& rng) {
  for (;;) {
    const std::uint64_t c = rng() & ((std::uint64_t{1} << e.f.bits) - 1);
    if (e.f == formats::e4m3fn && (c & 0x7f) == 0x7f) continue;
    if (e.f == formats::e5m2 && ((c >> 2) & 0x1f) == 0x1f) continue;
    return c;
  }
}

/// Random scales: UE8M0 codes around 2^0 (span ±spread, NaN 0xff with 1/200), UE4M3 codes
/// 0x00..0x7e (zero, subnormals; sometimes with the ignored sign bit set).
std::uint64_t scale_code(const TfdpaModel& m, std::mt19937_64& rng, int spread) {
  if (m.scale.format == formats::e8m0fnu) {
    if (rng() % 200 == 0) return 0xff;
    return static_cast<std::uint64_t>(127 - spread + static_cast<int>(rng() % (2 * spread + 1)));
  }
  if (rng() % 200 == 0) return 0x7f;
  const std::uint64_t c = rng() % 0x7f;
  return rng() % 8 == 0 ? c | 0x80 : c;
}

/// A random FP32 C: zero, or ±2^e·(1 + frac) with e in [lo, hi].
std::uint64_t c_code(std::mt19937_64& rng, int lo, int hi) {
  if (rng() % 8 == 0) return 0;
  const auto e = static_cast<std::uint64_t>(lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1)) + 127);
  return ((rng() & 1) << 31) | (e << 23) | (rng() & 0x7fffff);
}

void check_against_oracle(const TfdpaModel& m, const Elem& ea, const Elem& eb, std::size_t k, int cases, int spread,
                          int c_lo, int c_hi, std::uint64_t seed, bool zero_a_sometimes = false) {
  std::mt19937_64 rng(seed);
  const ao::BsModel om = oracle_model(m);
  const std::size_t nb = (k + static_cast<std::size_t>(m.scale.block) - 1) / static_cast<std::size_t>(m.scale.block);
  int fails = 0;
  for (int t = 0; t < cases; ++t) {
    std::vector<std::uint64_t> a(k), b(k), sa(nb), sb(nb);
    for (auto& x : a) x = elem_code(ea, rng);
    for (auto& x : b) x = elem_code(eb, rng);
    if (zero_a_sometimes && rng() % 3 == 0)  // every A element ±0: only the zero rules decide E
      for (auto& x : a) x = rng() % 2 == 0 ? 0 : std::uint64_t{1} << (ea.f.bits - 1);
    for (auto& x : sa) x = scale_code(m, rng, spread);
    for (auto& x : sb) x = scale_code(m, rng, spread);
    const std::uint64_t c = c_code(rng, c_lo, c_hi);
    const std::uint64_t got = tfdpa_dot(m, ea.f, a.data(), eb.f, b.data(), k, c, sa.data(), sb.data()).code;
    const std::uint32_t want = ao::block_scaled_dot(om, ea.o, a, eb.o, b, sa, sb, static_cast<std::uint32_t>(c));
    if (got != want && ++fails <= 5)
      ADD_FAILURE() << m.name << " case " << t << " k=" << k << ": model 0x" << std::hex << got << ", oracle 0x" << want;
  }
  EXPECT_EQ(fails, 0) << m.name;
}

TEST(BlockScale, Mxf8f6f4MatchesMpfrOracle) {
  const TfdpaModel& m = mma_models::blackwell_tcgen05_mxf8f6f4_unvalidated;
  check_against_oracle(m, kE4m3, kE4m3, 32, 400, 12, -20, 20, 1);
  check_against_oracle(m, kE5m2, kE4m3, 64, 200, 12, -30, 30, 2);
  check_against_oracle(m, kE2m3, kE3m2, 32, 200, 6, -8, 8, 3);
  check_against_oracle(m, kE2m1, kE4m3, 96, 150, 6, -8, 8, 4);
}

TEST(BlockScale, Mxf4MatchesMpfrOracle) {
  check_against_oracle(mma_models::blackwell_tcgen05_mxf4_unvalidated, kE2m1, kE2m1, 64, 400, 10, -12, 12, 5);
  check_against_oracle(mma_models::blackwell_tcgen05_mxf4_unvalidated, kE2m1, kE2m1, 128, 150, 30, -40, 40, 6);
}

TEST(BlockScale, Nvf4MatchesMpfrOracle) {
  check_against_oracle(mma_models::blackwell_tcgen05_nvf4_unvalidated, kE2m1, kE2m1, 64, 400, 0, -12, 12, 7);
  check_against_oracle(mma_models::blackwell_tcgen05_nvf4_unvalidated, kE2m1, kE2m1, 128, 150, 0, -20, 6, 8);
}

// Issue 26 item 4: the MPFR oracle restates the zero rules on its own; under MMA-Sim's rules (relative zero
// products, a zero C at -126) the model agrees with it, on cases where a third of the A rows are all zeros
// and the scales span ±120 binades, so that a zero product's relative exponent decides E.
TEST(BlockScale, MatchesMpfrOracleUnderMmaSimZeroRules) {
  for (const TfdpaModel* p : {&mma_models::blackwell_tcgen05_mxf8f6f4_unvalidated,
                              &mma_models::blackwell_tcgen05_mxf4_unvalidated,
                              &mma_models::blackwell_tcgen05_nvf4_unvalidated}) {
    TfdpaModel m = *p;
    m.zero = mma_sim_zero_rules;
    const bool fp8 = m.scale.application == BlockScaleApplication::product_exponent;
    check_against_oracle(m, fp8 ? kE4m3 : kE2m1, fp8 ? kE5m2 : kE2m1, 64, 300, fp8 ? 120 : 0, -126, 20, 21, true);
    check_against_oracle(m, fp8 ? kE2m1 : kE2m1, fp8 ? kE4m3 : kE2m1, 40, 200, fp8 ? 60 : 0, -60, 60, 22, true);
  }
}

float val(std::uint64_t f32code) { return std::bit_cast<float>(static_cast<std::uint32_t>(f32code)); }

// Hand-computed values of the documented rules (each expected value derived in the comment).
TEST(BlockScale, Mxf8f6f4ScaleEntersTheProductExponentBeforeAlignment) {
  const TfdpaModel& m = mma_models::blackwell_tcgen05_mxf8f6f4_unvalidated;
  // lanes 0, 1: +1·1 and −1·1 with scales 2^s·2^s: they cancel exactly, but their exponent 2s
  // (0 + 0 + s + s) sets E. C = 1 (exponent 0). s = 10: E = 20, quantum 2^(20−25) = 2^−5, C survives:
  // d = 1. s = 20: E = 40, quantum 2^15, C is truncated away: d = +0 (an exact sum gives 1).
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  a[0] = b[0] = b[1] = 0x38;  // e4m3fn 1.0
  a[1] = 0xb8;                // −1.0
  const std::uint64_t s10 = 127 + 10, s20 = 127 + 20;
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0x3f800000u, &s10, &s10).code,
            0x3f800000u);
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0x3f800000u, &s20, &s20).code, 0u);
  // the same with unit scales (E = 0): d = 1
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0x3f800000u).code, 0x3f800000u);
  // a NaN scale (UE8M0 0xff) gives the canonical NaN
  const std::uint64_t nan = 0xff;
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0, &nan, &s10).code, 0x7fffffffu);
}

TEST(BlockScale, Nvf4SubblockSumIsExactThenAlignedAtTheScaleExponent) {
  const TfdpaModel& m = mma_models::blackwell_tcgen05_nvf4_unvalidated;
  // subblock 0: 6·6 + (−6·6) + 0.5·0.5 = 0.25 exactly (the 36s cancel inside the exact sum);
  // scales 1 (UE4M3 0x38): the term is 0.25 at exponent 0; other subblocks zero with scale 1.
  std::vector<std::uint64_t> a(64, 0), b(64, 0);
  a[0] = 0x7; b[0] = 0x7;   // 6·6
  a[1] = 0xf; b[1] = 0x7;   // −6·6
  a[2] = 0x1; b[2] = 0x1;   // 0.5·0.5
  std::vector<std::uint64_t> s(4, 0x38);
  EXPECT_EQ(val(tfdpa_dot(m, formats::e2m1fn, a.data(), formats::e2m1fn, b.data(), 64, 0, s.data(), s.data()).code),
            0.25f);
  // a zero-sum subblock still enters the max with its scale exponent: scale of subblock 1 = 448
  // (0x7e: 1.75·2^8) on A and B gives E = 16, quantum 2^(16−35) = 2^−19; C = 2^−20 is truncated
  // to 0, so d = 0.25 (without that term E = 0 and C would survive: 0.25 + 2^−20).
  std::vector<std::uint64_t> s2 = s;
  s2[1] = 0x7e;
  EXPECT_EQ(val(tfdpa_dot(m, formats::e2m1fn, a.data(), formats::e2m1fn, b.data(), 64, 0x35800000u, s2.data(), s2.data()).code),
            0.25f);
  EXPECT_EQ(val(tfdpa_dot(m, formats::e2m1fn, a.data(), formats::e2m1fn, b.data(), 64, 0x35800000u, s.data(), s.data()).code),
            0.25f + 0x1p-20f);
}

TEST(BlockScale, DotAndGemmTakeTheScalesAndRefuseBadOnes) {
  const DotModel m = parse_dot_model("blackwell-tcgen05-mxf4-unvalidated");
  std::vector<std::uint64_t> a(64, 0x2), b(64, 0x2);  // 1·1 over 64 lanes = 64
  const std::vector<std::uint64_t> s1{127, 127}, s2{128, 128};
  EXPECT_EQ(val(dot(m, formats::e2m1fn, a, formats::e2m1fn, b, 0, s1, s1).code), 64.0f);
  EXPECT_EQ(val(dot(m, formats::e2m1fn, a, formats::e2m1fn, b, 0, s2, s1).code), 128.0f);
  EXPECT_EQ(val(dot(m, formats::e2m1fn, a, formats::e2m1fn, b, 0).code), 64.0f);  // no scales: unit
  EXPECT_THROW(dot(m, formats::e2m1fn, a, formats::e2m1fn, b, 0, std::vector<std::uint64_t>{127}, s1), Error);
  EXPECT_THROW(dot(m, formats::e2m1fn, a, formats::e2m1fn, b, 0, s1, {}), Error);
  EXPECT_THROW(dot(m, formats::e2m1fn, a, formats::e2m1fn, b, 0, std::vector<std::uint64_t>{127, 0x100}, s1), Error);
  EXPECT_THROW(dot(parse_dot_model("hopper-fp8"), formats::e4m3fn, a, formats::e4m3fn, b, 0, s1, s1), Error);
  EXPECT_THROW(parse_dot_model("blackwell-tcgen05-nvf4-unvalidated+blocked128"), NameError);
  // gemm: A 2×64 (row 1 all 2.0 = 0x4), B 64×1; scales A 2×2, B 2×1
  std::vector<std::uint64_t> A(128, 0x2), B(64, 0x2);
  for (std::size_t p = 64; p < 128; ++p) A[p] = 0x4;
  const std::vector<std::uint64_t> SA{127, 127, 126, 126}, SB{127, 127};
  const auto D = gemm(m, 2, 1, 64, formats::e2m1fn, A, formats::e2m1fn, B, {}, SA, SB);
  ASSERT_EQ(D.size(), 2u);
  EXPECT_EQ(val(D[0]), 64.0f);
  EXPECT_EQ(val(D[1]), 64.0f);  // 2·1·64 with scales 2^−1
  EXPECT_THROW(gemm(m, 2, 1, 64, formats::e2m1fn, A, formats::e2m1fn, B, {}, SB, SB), Error);
}

// FP64 DMMA: sequential IEEE binary64 FMAs in k order from C (MMA-Sim's f64 mma). Oracle: the
// MPFR fma of mpfr_oracle.cpp, chained here; values drawn with wide exponents and cancellation.
TEST(Dmma, F64ChainMatchesMpfrFmaChain) {
  const DotModel m = parse_dot_model("dmma-f64-unvalidated");
  EXPECT_EQ(result_format(m), formats::f64);
  std::mt19937_64 rng(11);
  auto draw = [&] {
    const auto e = static_cast<std::uint64_t>(1023 - 60 + static_cast<int>(rng() % 121));
    return ((rng() & 1) << 63) | (e << 52) | (rng() & ((std::uint64_t{1} << 52) - 1));
  };
  int fails = 0;
  for (int t = 0; t < 300; ++t) {
    const std::size_t k = 1 + rng() % 16;
    std::vector<std::uint64_t> a(k), b(k);
    for (std::size_t i = 0; i < k; ++i) {
      a[i] = draw();
      b[i] = draw();
    }
    if (k > 1) {  // a cancelling pair
      a[1] = a[0] ^ (std::uint64_t{1} << 63);
      b[1] = b[0];
    }
    const float cf = static_cast<float>(static_cast<std::int64_t>(rng() % 2001) - 1000) / 64.0f;
    const std::uint64_t c32 = std::bit_cast<std::uint32_t>(cf);
    std::uint64_t want = std::bit_cast<std::uint64_t>(static_cast<double>(cf));
    for (std::size_t i = 0; i < k; ++i)
      want = ao::compute(ao::Op::fma, ao::formats::f64, a[i], ao::formats::f64, b[i], ao::formats::f64, want,
                         ao::formats::f64, ao::Mode::rne)
                 .code;
    const std::uint64_t got = dot(m, formats::f64, a, formats::f64, b, c32).code;
    if (got != want && ++fails <= 5) ADD_FAILURE() << "case " << t << ": 0x" << std::hex << got << " vs 0x" << want;
  }
  EXPECT_EQ(fails, 0);
  // the chain is not an exact sum: (2^60 + 1) − 2^60 in two FMAs loses the 1 (an exact dot keeps it)
  const std::vector<std::uint64_t> a{std::bit_cast<std::uint64_t>(0x1p60), std::bit_cast<std::uint64_t>(1.0),
                                     std::bit_cast<std::uint64_t>(-0x1p60)},
      b(3, std::bit_cast<std::uint64_t>(1.0));
  EXPECT_EQ(std::bit_cast<double>(dot(m, formats::f64, a, formats::f64, b).code), 0.0);
}

}  // namespace
}  // namespace minifloat_test
