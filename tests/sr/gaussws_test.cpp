// SPDX-License-Identifier: Apache-2.0
// gaussws_test.cpp: GaussWS noise (papers.md §3, spec-digest §7.4) and fake quantization:
// the exact transform's thresholds recomputed with MPFR (erfc), its boundaries, the bitwise
// generator's dyadic distribution by exhaustive enumeration of a lane's 16 bits, chi-square tests
// of both variants on 10^6 Philox samples against their documented distributions, the stream layout,
// and the fake-quantization op (block max, bit-width effect, exact sum, cast).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "minifloat/core/arith.hpp"
#include "minifloat/gaussws.hpp"
#include "minifloat/minifloat.hpp"

namespace {
using namespace minifloat;

// ---- exact transform ----------------------------------------------------------------------------

// Oracle: MPFR. tail_k = round-to-nearest(2^63 · erfc((2k−1)/√2)) at 256-bit precision.
std::uint64_t mpfr_tail(int k) {
  mpfr_t x, y;
  mpfr_inits2(256, x, y, static_cast<mpfr_ptr>(nullptr));
  mpfr_sqrt_ui(y, 2, MPFR_RNDN);
  mpfr_set_si(x, 2 * k - 1, MPFR_RNDN);
  mpfr_div(x, x, y, MPFR_RNDN);
  mpfr_erfc(y, x, MPFR_RNDN);
  mpfr_mul_2si(y, y, 63, MPFR_RNDN);
  mpfr_rint(y, y, MPFR_RNDN);
  // y < 2^63: split into two halves for mpfr_get_ui (unsigned long is 64-bit on the test hosts)
  const unsigned long v = mpfr_get_ui(y, MPFR_RNDN);
  mpfr_clears(x, y, static_cast<mpfr_ptr>(nullptr));
  return v;
}

TEST(GaussExact, ThresholdsAreRoundedErfcTimes2To63_MPFR) {
  static_assert(sizeof(unsigned long) == 8);
  for (int k = 1; k <= 5; ++k) EXPECT_EQ(gauss_exact_tail(k), mpfr_tail(k)) << "k=" << k;
  EXPECT_EQ(mpfr_tail(6), 0u);  // support ends at |R| = 5
  EXPECT_EQ(gauss_exact_tail(6), 0u);
}

TEST(GaussExact, BoundariesOfTheTransform) {
  // m = U >> 1 is compared with the tails; the low bit is the sign.
  for (int k = 1; k <= 5; ++k) {
    const std::uint64_t t = gauss_exact_tail(k);
    const std::uint64_t next = gauss_exact_tail(k + 1);
    // m = t − 1 → |R| ≥ k (and exactly k when t − 1 ≥ next), m = t → |R| < k
    if (t - 1 >= next) {
      EXPECT_EQ(gauss_exact_from_bits((t - 1) << 1), k);
    }
    EXPECT_EQ(gauss_exact_from_bits(((t - 1) << 1) | 1), t - 1 >= next ? -k : -(k + 1));
    EXPECT_EQ(gauss_exact_from_bits(t << 1), k - 1);
  }
  EXPECT_EQ(gauss_exact_from_bits(0), 5);
  EXPECT_EQ(gauss_exact_from_bits(1), -5);
  EXPECT_EQ(gauss_exact_from_bits(~0ULL), 0);
  EXPECT_EQ(gauss_exact_from_bits(~0ULL - 1), 0);
}

// ---- bitwise generator: exhaustive ---------------------------------------------------------------

TEST(GaussBitwise, ExhaustiveLaneDistributionIsTheDocumentedDyadicFractions) {
  // All 2^16 values of lane 3's bits (a, b, c, d nibbles); other lanes hold fixed junk.
  // Documented (gaussws.hpp): P(0) = 23/32, P(±1) = 1143/8192 each, P(±2) = 9/8192 each.
  std::map<int, int> count;
  for (std::uint32_t v = 0; v < 65536; ++v) {
    const std::uint32_t junk = 0x5A3C96E1u & ~(0xFu << 12);
    const std::uint32_t a = junk | ((v & 0xF) << 12), b = junk | (((v >> 4) & 0xF) << 12),
                        c = junk | (((v >> 8) & 0xF) << 12), d = junk | (((v >> 12) & 0xF) << 12);
    const std::uint32_t w = gauss_bitwise_word(a, b, c, d);
    ++count[gauss_bitwise_lane(w, 3)];
  }
  EXPECT_EQ(count[0], 65536 * 23 / 32);
  EXPECT_EQ(count[1], 65536 / 8192 * 1143);
  EXPECT_EQ(count[-1], 65536 / 8192 * 1143);
  EXPECT_EQ(count[2], 65536 / 8192 * 9);
  EXPECT_EQ(count[-2], 65536 / 8192 * 9);
  EXPECT_EQ(count.size(), 5u);
}

TEST(GaussBitwise, LanesAreIndependentOfEachOther) {
  // Changing lane j's input bits never changes another lane's output.
  std::mt19937 gen(5);
  auto rng = [&] { return static_cast<std::uint32_t>(gen()); };
  for (int t = 0; t < 2000; ++t) {
    const std::uint32_t a = rng(), b = rng(), c = rng(), d = rng();
    const unsigned j = rng() % 8;
    const std::uint32_t m = 0xFu << (4 * j);
    const std::uint32_t w1 = gauss_bitwise_word(a, b, c, d);
    const std::uint32_t w2 = gauss_bitwise_word(a ^ (rng() & m), b ^ (rng() & m), c ^ (rng() & m), d ^ (rng() & m));
    EXPECT_EQ(w1 & ~m, w2 & ~m);
  }
}

// ---- chi-square against the documented distributions (10^6 Philox samples, fixed seed) ------------
//
// Bins with expected count < 5 are merged into their neighbour toward 0 (so the exact variant's
// bins are ≤ −2, −1, 0, 1, ≥ 2: 4 degrees of freedom). Critical value: chi2(4 dof) at p = 10^−4 is
// 23.51 (the seed is fixed, so the outcome is deterministic; a wrong distribution of the size of the
// exact-vs-bitwise difference gives chi2 in the tens of thousands).

constexpr double kChi2Crit4 = 23.51;

double chi2(const std::array<double, 5>& observed, const std::array<double, 5>& p, double n) {
  double s = 0;
  for (int i = 0; i < 5; ++i) {
    const double e = n * p[i];
    s += (observed[i] - e) * (observed[i] - e) / e;
  }
  return s;
}

std::array<double, 5> histogram(GaussNoise v, std::size_t n, std::uint64_t seed) {
  std::vector<std::int8_t> r(n);
  gauss_noise_fill(v, SrStream{seed, 77, 5, 0}, r);
  std::array<double, 5> h{};
  for (auto x : r) h[static_cast<std::size_t>(std::clamp<int>(x, -2, 2) + 2)] += 1;
  return h;
}

TEST(GaussChiSquare, ExactVariantMatchesRoundedNormal) {
  // P(R ≤ −2) = P(R ≥ 2) = erfc(3/√2)/2, P(±1) = (erfc(1/√2) − erfc(3/√2))/2, P(0) = erf(1/√2).
  const double t1 = std::erfc(1 / std::sqrt(2.0)), t2 = std::erfc(3 / std::sqrt(2.0));
  const std::array<double, 5> p{t2 / 2, (t1 - t2) / 2, 1 - t1, (t1 - t2) / 2, t2 / 2};
  const std::size_t n = 1000000;
  const auto h = histogram(GaussNoise::exact, n, 314159);
  const double c = chi2(h, p, static_cast<double>(n));
  std::printf("[ chi2 exact ] counts %g %g %g %g %g  chi2 = %.3f (4 dof, crit %.2f)\n", h[0], h[1], h[2], h[3], h[4], c,
              kChi2Crit4);
  EXPECT_LT(c, kChi2Crit4);
  // and the bitwise distribution is rejected by the same test (the test can fail)
  const std::array<double, 5> pb{9.0 / 8192, 1143.0 / 8192, 23.0 / 32, 1143.0 / 8192, 9.0 / 8192};
  EXPECT_GT(chi2(h, pb, static_cast<double>(n)), 1000.0);
}

TEST(GaussChiSquare, BitwiseVariantMatchesItsDocumentation) {
  const std::array<double, 5> p{9.0 / 8192, 1143.0 / 8192, 23.0 / 32, 1143.0 / 8192, 9.0 / 8192};
  const std::size_t n = 1000000;
  const auto h = histogram(GaussNoise::bitwise, n, 271828);
  const double c = chi2(h, p, static_cast<double>(n));
  std::printf("[ chi2 bitwise ] counts %g %g %g %g %g  chi2 = %.3f (4 dof, crit %.2f)\n", h[0], h[1], h[2], h[3], h[4],
              c, kChi2Crit4);
  EXPECT_LT(c, kChi2Crit4);
}

TEST(GaussStream, FillMatchesScalarAndLayout) {
  for (GaussNoise v : {GaussNoise::exact, GaussNoise::bitwise})
    for (std::uint64_t base : {0ULL, 3ULL, 8ULL, 1001ULL}) {
      std::vector<std::int8_t> r(50);
      gauss_noise_fill(v, SrStream{9, 1, 2, base}, r);
      for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i], gauss_noise(v, 9, 1, 2, base + i));
    }
  // exact reads the exact-SR bits; bitwise reads cuRAND offsets 4⌊i/8⌋…+3 of subsequence step·2^32 + stream
  for (std::uint64_t i : {0ULL, 5ULL, 17ULL}) {
    EXPECT_EQ(gauss_noise(GaussNoise::exact, 9, 1, 2, i), gauss_exact_from_bits(sr_bits(9, 1, 2, i, SrVariant::exact)));
    const std::uint64_t sub = (2ULL << 32) | 1, o = 4 * (i / 8);
    const std::uint32_t w = gauss_bitwise_word(curand_word(9, sub, o), curand_word(9, sub, o + 1),
                                               curand_word(9, sub, o + 2), curand_word(9, sub, o + 3));
    EXPECT_EQ(gauss_noise(GaussNoise::bitwise, 9, 1, 2, i), gauss_bitwise_lane(w, static_cast<unsigned>(i % 8)));
  }
}

// ---- fake quantization ---------------------------------------------------------------------------

TEST(GaussWsFakeQuant, BlockMaxWithRaggedEdges) {
  const std::size_t rows = 40, cols = 70;  // 2 x 3 blocks of 32x32; edge blocks 8 rows / 6 cols
  std::vector<float> w(rows * cols, 0.5f);
  w[0 * cols + 0] = -3.0f;     // block (0,0)
  w[31 * cols + 63] = 7.0f;    // block (0,1)
  w[20 * cols + 69] = -9.0f;   // block (0,2), ragged columns 64..69
  w[39 * cols + 0] = 2.0f;     // block (1,0), ragged rows 32..39
  w[32 * cols + 64] = NAN;     // block (1,2)
  const auto m = gaussws_block_max(w, rows, cols);
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(gaussws_block_count(rows, cols), 6u);
  EXPECT_EQ(m[0], 3.0f);
  EXPECT_EQ(m[1], 7.0f);
  EXPECT_EQ(m[2], 9.0f);
  EXPECT_EQ(m[3], 2.0f);
  EXPECT_EQ(m[4], 0.5f);
  EXPECT_TRUE(std::isnan(m[5]));
  EXPECT_THROW(gaussws_block_max(w, rows, cols + 1), Error);
}

TEST(GaussWsFakeQuant, ValueIsWPlusRTimesMaxTimes2To1MinusB) {
  // f32 → f32 with rne: ŵ = w + R·m·2^(1−b) (exact in f32 for these values).
  const RoundingSpec rne{};
  auto q = [&](float w, int r, float m, int b) {
    return to_double(formats::f32, gaussws_fake_quantize_value(w, r, m, b, formats::f32, rne).code);
  };
  EXPECT_EQ(q(0.25f, 1, 2.0f, 4), 0.25 + 2.0 * 0.125);   // 2^(1−4) = 1/8
  EXPECT_EQ(q(0.25f, -2, 2.0f, 4), 0.25 - 2 * 2.0 * 0.125);
  EXPECT_EQ(q(0.25f, 1, 2.0f, 8), 0.25 + 2.0 / 128);     // larger b: smaller noise
  EXPECT_EQ(q(0.25f, 0, 2.0f, 1), 0.25);                 // R = 0: w unchanged
  EXPECT_EQ(q(0.25f, 0, NAN, 3), 0.25);                  // ... even with a NaN block max
  EXPECT_TRUE(std::isnan(q(0.25f, 1, NAN, 3)));
}

TEST(GaussWsFakeQuant, SumIsRoundedOnceIntoTheTarget) {
  // w = 1.0625 + 2^−20 (f32), R·m·2^(1−b) = −2^−20 exactly → ŵ = 1.0625: a tie in e4m3fn → rne 0x38.
  // (Rounding w first would give 0x39, then subtracting would not be a cast at all.)
  const float w = 1.0625f + 0x1p-20f;
  EXPECT_EQ(gaussws_fake_quantize_value(w, -1, 1.0f, 21, formats::e4m3fn, {}).code, 0x38u);
  // A sum that needs more than 53 bits: w = 1, noise = 2^−70 → just above 1 in f64 terms (sticky):
  // rtp into bf16 goes up to 1 + 2^−7, rtz stays at 1.
  EXPECT_EQ(gaussws_fake_quantize_value(1.0f, 1, 0x1p-10f, 61, formats::bf16, {Rounding::rtp}).code, 0x3F81u);
  EXPECT_EQ(gaussws_fake_quantize_value(1.0f, 1, 0x1p-10f, 61, formats::bf16, {Rounding::rtz}).code, 0x3F80u);
  EXPECT_EQ(gaussws_fake_quantize_value(1.0f, -1, 0x1p-10f, 61, formats::bf16, {Rounding::rtz}).code, 0x3F7Fu);
  EXPECT_EQ(gaussws_fake_quantize_value(1.0f, -1, 0x1p-10f, 61, formats::bf16, {Rounding::rtp}).code, 0x3F80u);
  // Huge exponent gap: w = 2^100, noise = −2^−60 → just below 2^100 → rtz to f32 gives the predecessor.
  EXPECT_EQ(gaussws_fake_quantize_value(0x1p100f, -1, 1.0f, 61, formats::f32, {Rounding::rtz}).code, 0x717FFFFFu);
  EXPECT_EQ(gaussws_fake_quantize_value(0x1p100f, -1, 1.0f, 61, formats::f32, {}).code, 0x71800000u);
}

// The sum w + noise is rounded once (the core's exact mixed-format add, which gaussws uses):
// ties and sticky tails of two doubles land where the exact sum says.
TEST(GaussWsFakeQuant, ExactSumTieCases) {
  auto sum = [](double a, double b, RoundingSpec spec) {
    return add(formats::f64, detail::bit_cast<std::uint64_t>(a), formats::f64, detail::bit_cast<std::uint64_t>(b),
               formats::f64, spec)
        .code;
  };
  // a + b exactly halfway between two doubles: 1 + 2^−53.
  // rtp into f64 → 1 + 2^−52, rne → 1 (tie to even)
  EXPECT_EQ(sum(1.0, 0x1p-53, {Rounding::rtp}), 0x3FF0000000000001ULL);
  EXPECT_EQ(sum(1.0, 0x1p-53, {}), 0x3FF0000000000000ULL);
  // below the half ulp: magnitude just above 1
  EXPECT_EQ(sum(-1.0, -0x1p-54, {Rounding::rtn}), 0xBFF0000000000001ULL);
  EXPECT_EQ(sum(-1.0, -0x1p-54, {Rounding::rtz}), 0xBFF0000000000000ULL);
  // just below 1
  EXPECT_EQ(sum(1.0, -0x1p-60, {Rounding::rtz}), 0x3FEFFFFFFFFFFFFFULL);
  EXPECT_EQ(sum(1.0, -0x1p-60, {Rounding::rtp}), 0x3FF0000000000000ULL);
}

TEST(GaussWsFakeQuant, MatrixOpUsesStreamBlocksAndBitWidths) {
  const std::size_t rows = 33, cols = 35;  // 2 x 2 blocks, ragged
  std::mt19937 rng(3);
  std::vector<float> w(rows * cols);
  for (auto& x : w) x = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 256.0f;
  const std::vector<int> bits{3, 4, 5, 6};
  GaussWsOptions opt;
  opt.noise = GaussNoise::bitwise;
  opt.noise_stream = SrStream{42, 9, 1, 0};
  std::vector<std::uint16_t> out(rows * cols);
  gaussws_fake_quantize(w, rows, cols, bits, formats::bf16, {}, out, opt);
  const auto m = gaussws_block_max(w, rows, cols);
  int nonzero = 0;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t i = r * cols + c, blk = (r / 32) * 2 + c / 32;
      const int R = gauss_noise(GaussNoise::bitwise, 42, 9, 1, i);
      nonzero += R != 0;
      const double want = static_cast<double>(w[i]) + R * static_cast<double>(m[blk]) * std::ldexp(1.0, 1 - bits[blk]);
      // the cast: bf16 rne of ŵ (exact in binary64 for these inputs), rounded once from the double
      EXPECT_EQ(out[i], from_double(want, formats::bf16).code) << r << "," << c;
    }
  EXPECT_GT(nonzero, 200);
  // the cast to e4m3fn with SR reads cast_stream; reruns are identical and another step differs
  std::vector<std::uint8_t> o1(rows * cols), o2(rows * cols), o3(rows * cols);
  const RoundingSpec sr{Rounding::sr, Overflow::satfinite};
  gaussws_fake_quantize(w, rows, cols, bits, formats::e4m3fn, sr, o1, opt);
  gaussws_fake_quantize(w, rows, cols, bits, formats::e4m3fn, sr, o2, opt);
  EXPECT_EQ(o1, o2);
  opt.noise_stream.step = 2;
  gaussws_fake_quantize(w, rows, cols, bits, formats::e4m3fn, sr, o3, opt);
  EXPECT_NE(o1, o3);
  // bad inputs: one clear error each
  EXPECT_THROW(gaussws_fake_quantize(w, rows, cols, std::vector<int>{3, 4, 5}, formats::bf16, {}, out, opt), Error);
  EXPECT_THROW(gaussws_fake_quantize(w, rows, cols, std::vector<int>{0, 4, 5, 6}, formats::bf16, {}, out, opt), Error);
  EXPECT_THROW(gaussws_fake_quantize(w, rows, cols, bits, formats::f32, {}, out, opt), Error);
  std::vector<std::uint8_t> o8(rows * cols);
  EXPECT_THROW(gaussws_fake_quantize(w, rows, cols, bits, formats::bf16, {}, o8, opt), Error);
}

TEST(GaussWsFakeQuant, BitWidthScalesTheNoise) {
  // Mean |ŵ − w| over a 64x64 matrix of ones shrinks by 2 per extra bit (same noise draws).
  const std::size_t n = 64;
  std::vector<float> w(n * n, 1.0f);
  auto mean_abs = [&](int b) {
    std::vector<std::uint16_t> out(n * n);
    gaussws_fake_quantize(w, n, n, std::vector<int>(4, b), formats::bf16, {}, out);
    double s = 0;
    for (auto c : out) s += std::fabs(to_double(formats::bf16, c) - 1.0);
    return s / static_cast<double>(n * n);
  };
  const double m4 = mean_abs(4), m5 = mean_abs(5);
  EXPECT_GT(m4, 0.0);
  EXPECT_DOUBLE_EQ(m4, 2 * m5);  // noise 2^(1−b) is exactly representable in bf16 here
}

}  // namespace
