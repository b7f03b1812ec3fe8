// SPDX-License-Identifier: Apache-2.0
// check_block_test.cpp: the block-kernel checker (check_block.hpp). Oracle: an independent MX
// quantizer written here from OCP MX v1.0 §6.3 and the e4m3fn / e2m1fn tables of OCP OFP8 v1.0 /
// MX v1.0 §5.3 (values by their formula, RNE by nearest-with-even-code search over the grid; the
// E8M0 exponent by exact double comparisons) — it shares no code with src/quant/ or round_pack.
// The deliberately wrong block kernels (E8M0 floor instead of RCEIL; FP4 nibbles swapped) are the
// same quantizer with the one bug; their minimal blocks are derived by hand in the comments.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "minifloat/check/check_block.hpp"

namespace {

using namespace minifloat;
using check::BlockClass;

/// Positive magnitudes of a sign-magnitude minifloat with `e` exponent bits, `m` mantissa bits,
/// bias b, codes 0..max_code (OCP: e4m3fn max code 0x7e = 448, e2m1fn 0x7 = 6).
std::vector<double> grid(int e, int m, int b, unsigned max_code) {
  std::vector<double> v;
  for (unsigned c = 0; c <= max_code; ++c) {
    const unsigned E = c >> m, M = c & ((1u << m) - 1);
    v.push_back(E == 0 ? std::ldexp(M, 1 - b - m) : std::ldexp((1u << m) + M, static_cast<int>(E) - b - m));
  }
  (void)e;
  return v;
}

/// RNE onto the grid with saturation (satfinite): nearest magnitude, ties to the even code.
unsigned round_grid(const std::vector<double>& g, double x, unsigned sign_bit) {
  const double a = std::fabs(x);
  unsigned best = 0;
  for (unsigned c = 1; c < g.size(); ++c) {
    const double d = std::fabs(g[c] - a), db = std::fabs(g[best] - a);
    if (d < db || (d == db && (c & 1) == 0)) best = c;
  }
  if (a >= g.back()) best = static_cast<unsigned>(g.size() - 1);
  return std::signbit(x) ? (best | sign_bit) : best;
}

enum class ScaleBug { none, floor_instead_of_rceil, scale_plus_one };
enum class NibbleBug { none, swapped };

/// An MX block quantizer (f32 blocks of 32): NaN/Inf anywhere → scale 0xff and every element the
/// element NaN code (`nan_code`); all-zero → 0x00; else X = 2^e with rceil (smallest e with
/// max·2^e ≥ amax) or floor (floor(log2 amax) − emax_elem), e clamped to [−127, 127], elements x/X by RNE satfinite.
struct MxKernel {
  std::vector<double> g;
  int emax_elem;
  unsigned sign_bit, nan_code;
  bool rceil;
  ScaleBug bug = ScaleBug::none;
  NibbleBug nib = NibbleBug::none;
  bool packed = false;
  void operator()(std::span<const float> in, std::span<std::uint8_t> codes, std::span<std::uint64_t> scales) const {
    const std::size_t k = 32, n = in.size() / k;
    std::vector<unsigned> c(k);
    for (std::size_t b = 0; b < n; ++b) {
      double amax = 0;
      bool special = false;
      for (std::size_t i = 0; i < k; ++i) {
        const double x = in[b * k + i];
        if (!std::isfinite(x)) special = true;
        else amax = std::max(amax, std::fabs(x));
      }
      int e = -127;
      if (special) {
        scales[b] = 0xff;
        for (auto& x : c) x = nan_code;
      } else {
        if (amax > 0) {
          const double mx = g.back();
          if (rceil && bug != ScaleBug::floor_instead_of_rceil) {
            e = std::ilogb(amax / mx) - 1;  // the smallest e with mx·2^e ≥ amax (exact comparisons)
            while (std::ldexp(mx, e) < amax) ++e;
          } else {
            e = std::ilogb(amax) - emax_elem;
          }
          e = std::clamp(e, -127, 127);
        }
        scales[b] = static_cast<std::uint64_t>(e + 127 + (bug == ScaleBug::scale_plus_one ? 1 : 0));
        for (std::size_t i = 0; i < k; ++i) c[i] = round_grid(g, std::ldexp(static_cast<double>(in[b * k + i]), -e), sign_bit);
      }
      if (packed) {
        for (std::size_t j = 0; j < k / 2; ++j) {
          const unsigned lo = c[2 * j], hi = c[2 * j + 1];
          codes[b * k / 2 + j] = static_cast<std::uint8_t>(nib == NibbleBug::swapped ? (lo << 4 | hi) : (hi << 4 | lo));
        }
      } else {
        for (std::size_t i = 0; i < k; ++i) codes[b * k + i] = static_cast<std::uint8_t>(c[i]);
      }
    }
  }
};

MxKernel e4m3_rceil() { return {grid(4, 3, 7, 0x7e), 8, 0x80, 0x7f, true}; }
// e2m1fn has no NaN: the ocp profile's nan_to_finite gives +max (0x7) for the elements of a NaN block.
MxKernel e2m1_floor() { return {grid(2, 1, 1, 0x7), 2, 0x8, 0x7, false}; }

check::BlockTarget rceil_target() {
  check::BlockTarget t;
  t.scheme = find_scheme("mxfp8_e4m3");
  t.scheme.rule = ScaleRule::rceil;
  return t;
}

check::BlockOptions fast(std::size_t n = 1024) {
  check::BlockOptions o;
  o.gen.count = n;
  return o;
}

TEST(CheckBlock, GeneratorEmitsEveryClassInOrder) {
  const auto cases = check::generate_blocks(rceil_target(), {.seed = 3, .count = 2048});
  ASSERT_EQ(cases.size(), 2048u);
  ASSERT_EQ(cases.block, 32u);
  std::vector<int> seen(6, 0);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    ++seen[static_cast<int>(cases.classes[i])];
    if (i) {
      EXPECT_LE(cases.classes[i - 1], cases.classes[i]);
    }
  }
  for (int c = 0; c < 6; ++c) EXPECT_GT(seen[c], 0) << name(static_cast<BlockClass>(c));
  // 460 = 448·(1 + 3/112): rceil and ocp_floor differ there (spec-digest §2.3); the edge
  // generator emits 448·2^e for e = 0 exactly, so some scale_edge block has amax 448.
  bool has448 = false;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (cases.classes[i] != BlockClass::scale_edge) continue;
    float a = 0;
    for (float x : cases.at(i)) a = std::max(a, std::fabs(x));
    has448 |= a == 448.0f;
  }
  EXPECT_TRUE(has448);
  // Deterministic.
  EXPECT_EQ(check::generate_blocks(rceil_target(), {.seed = 3, .count = 2048}).values.size(), cases.values.size());
}

TEST(CheckBlock, IndependentRceilKernelPasses) {
  const auto r = check::check_blocks(e4m3_rceil(), rceil_target(), fast());
  EXPECT_TRUE(r.ok()) << r.text();
  EXPECT_EQ(r.diagnosis.ranked.front().name, "the target");
  EXPECT_EQ(r.text().rfind("check-blocks mxfp8_e4m3", 0), std::string::npos);  // rceil is a spec, not the table name
  // report.json keeps the block layout (indent 1, "scheme" after "target", no "ok"; src/check/report.hpp).
  EXPECT_EQ(r.json().rfind("{\n \"target\": \"", 0), 0u) << r.json();
  EXPECT_NE(r.json().find("\",\n \"scheme\": \"e4m3fn/1x32/e8m0fnu:rceil\",\n \"tested\": "), std::string::npos)
      << r.json();
  EXPECT_EQ(r.json().find("\"ok\""), std::string::npos) << r.json();
}

TEST(CheckBlock, IndependentMxfp4PackedKernelPasses) {
  check::BlockTarget t{.scheme = find_scheme("mxfp4"), .packing = check::Packing::fp4x2};
  MxKernel k = e2m1_floor();
  k.packed = true;
  const auto r = check::check_blocks(k, t, fast());
  EXPECT_TRUE(r.ok()) << r.text();
}

// The block bug-class table: kernel, failing class, hand-derived minimal block, diagnosis.
struct BlockBug {
  const char* name;
  BlockClass cls;
  std::uint32_t minimal_bits;  ///< the one nonzero element of the minimal block, at position 0
  const char* diagnosis;
};
// Floor instead of RCEIL: floor(log2 a) − 8 < rceil's e exactly when a > 448·2^(floor(log2 a) − 8),
// i.e. a's significand exceeds 1.75 (448 = 1.75·2^8). The simplest such f32 (fewest significand
// bits, exponent nearest 0) is 1.875 = 0x3ff00000 (1.11100…·2^0: three bits; 1.75 itself is equal, not above).
// Shrinking zeroes every other element and clears significand bits while the bug still shows.
//
// Swapped nibbles: the simplest block that shows it has one nonzero element x at position 0 whose
// code differs from 0's: the smallest-exponent, fewest-bit positive value is 1.0 (0x3f800000), whose
// e2m1 code under floor (e = 0 − 2 → x/X = 4 → 0x6) lands in the high nibble.
const BlockBug kBlockBugs[] = {
    {"e8m0_floor_instead_of_rceil", BlockClass::scale_edge, 0x3ff00000u, "E8M0 floor instead of RCEIL"},
    {"fp4_nibbles_swapped", BlockClass::scale_edge, 0x3f800000u, "wrong FP4 nibble order"},
};

class BlockBugClass : public ::testing::TestWithParam<int> {};
std::string block_bug_name(const ::testing::TestParamInfo<int>& i) { return kBlockBugs[i.param].name; }

TEST_P(BlockBugClass, FailsShrinksAndIsDiagnosed) {
  const BlockBug& b = kBlockBugs[GetParam()];
  check::BlockTarget t = rceil_target();
  MxKernel k = e4m3_rceil();
  if (GetParam() == 0) {
    k.bug = ScaleBug::floor_instead_of_rceil;
  } else {
    t = {.scheme = find_scheme("mxfp4"), .packing = check::Packing::fp4x2};
    k = e2m1_floor();
    k.packed = true;
    k.nib = NibbleBug::swapped;
  }
  const auto r = check::check_blocks(k, t, fast());
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.minimal.empty());
  const check::BlockMismatch* m = nullptr;
  for (const auto& x : r.minimal)
    if (x.cls == b.cls) m = &x;
  ASSERT_NE(m, nullptr) << r.text();
  std::size_t nonzero = 0;
  for (float x : m->block) nonzero += std::bit_cast<std::uint32_t>(x) != 0;
  EXPECT_EQ(nonzero, 1u) << r.text();
  EXPECT_EQ(std::bit_cast<std::uint32_t>(m->block[0]), b.minimal_bits) << r.text();
  EXPECT_NE(r.diagnosis.text.find(b.diagnosis), std::string::npos) << r.diagnosis.text;
  EXPECT_NE(r.diagnosis.text.find("100%"), std::string::npos) << r.diagnosis.text;
  EXPECT_NE(r.text().find("[" + std::string(name(b.cls)) + "]"), std::string::npos);
  std::cout << r.text();
}
INSTANTIATE_TEST_SUITE_P(BlockTable, BlockBugClass, ::testing::Range(0, 2), block_bug_name);

TEST(CheckBlock, FloorScaleMismatchExplainsTheRule) {
  // One block, amax 460 (spec-digest §2.3): rceil 0x80, floor 0x7f.
  check::BlockTarget t = rceil_target();
  check::BlockCases cases;
  cases.block = 32;
  cases.values.assign(32, 0.0f);
  cases.values[0] = 460.0f;
  cases.classes = {BlockClass::scale_edge};
  MxKernel k = e4m3_rceil();
  k.bug = ScaleBug::floor_instead_of_rceil;
  std::vector<std::uint8_t> codes(32);
  std::vector<std::uint64_t> scales(1);
  k(cases.values, codes, scales);
  EXPECT_EQ(scales[0], 0x7fu);
  const auto r = check::evaluate_blocks(t, cases, codes, scales);
  ASSERT_EQ(r.minimal.size(), 1u);
  EXPECT_EQ(r.minimal[0].expected.scale, 0x80u);
  EXPECT_EQ(r.minimal[0].expected.codes[0], 0x76u);  // 460/2 = 230 → 224 (0x76), T14
  EXPECT_EQ(r.minimal[0].got.codes[0], 0x7eu);       // 460 saturates to 448
  EXPECT_NE(r.minimal[0].why.find("got = ocp_floor"), std::string::npos) << r.minimal[0].why;
  EXPECT_NE(r.text().find("scale got 0x7f (2^0) expected 0x80 (2^1)"), std::string::npos) << r.text();
}

// A torchao-0.18-like NVFP4 kernel, written here from torchao's nvfp4_tensor.py `nvfp4_quantize` with
// per_tensor_scale = per_tensor_amax_to_scale(amax) (each block its own tensor, as the checker defines
// NVFP4 blocks): native binary32 operations in torchao's order, the grids above for e4m3fn / e2m1fn, and
// torchao's `_f32_to_floatx_unpacked` bit formula for a NaN (its NaNs are x86's: the dividend's or the
// multiplier's, 0/0 = Inf/Inf = 0xffc00000, e4m3 NaN decoded to 0x7ff00000 with the sign).
void torchao_nvfp4_kernel(std::span<const float> in, std::span<std::uint8_t> codes, std::span<std::uint64_t> scales) {
  static const std::vector<double> g4 = grid(4, 3, 7, 0x7e), g2 = grid(2, 1, 1, 0x7);
  const std::size_t k = 16;
  for (std::size_t b = 0; b * k < in.size(); ++b) {
    float amax = 0.0f;
    bool nan = false;
    for (std::size_t i = 0; i < k; ++i) {
      const float a = std::fabs(in[b * k + i]);
      if (std::isnan(a)) nan = true;
      else amax = std::max(amax, a);
    }
    const float G = nan ? std::bit_cast<float>(0xffffffffu) : amax;  // torch.max(torch.abs(x))
    const float A = nan ? std::bit_cast<float>(0x7fc00000u) : amax;  // torch.amax(abs, dim=-1)
    const volatile float pts = G / 2688.0f;
    volatile float s = (A / 6.0f) / pts;
    float sf;
    if (std::isnan(s)) {
      const std::uint32_t sign = std::bit_cast<std::uint32_t>(static_cast<float>(s)) & 0x80000000u;
      scales[b] = 0x7fu | (sign >> 24);
      sf = std::bit_cast<float>(0x7ff00000u | sign);
    } else {
      s = std::clamp(static_cast<float>(s), 0x1p-6f, 448.0f);
      const unsigned c = round_grid(g4, s, 0x80);
      scales[b] = c;
      sf = static_cast<float>(g4[c]);
    }
    const volatile float inv = 1.0f / pts;
    const volatile float r = inv / sf;
    for (std::size_t i = 0; i < k; ++i) {
      const float x = in[b * k + i];
      float y = std::isnan(r) ? std::bit_cast<float>(std::bit_cast<std::uint32_t>(static_cast<float>(r)) | 0x400000u)
                              : static_cast<float>(r) * x;
      if (std::isnan(y) && !std::isnan(r)) y = std::isnan(x) ? std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) | 0x400000u)
                                                             : std::bit_cast<float>(0xffc00000u);  // 0 * Inf
      unsigned c;
      if (std::isnan(y)) {
        const std::uint32_t yb = std::bit_cast<std::uint32_t>(y), m = yb & 0x7fffffffu;
        const std::int64_t v = static_cast<std::int64_t>(m) - (std::int64_t{126} << 23) + ((1 << 21) - 1) + ((m >> 22) & 1);
        c = (static_cast<std::uint32_t>(v >> 22) & 0x7u) | ((yb >> 31) << 3);
      } else {
        c = round_grid(g2, std::clamp(y, -6.0f, 6.0f), 0x8);
      }
      codes[b * k + i] = static_cast<std::uint8_t>(c);
    }
  }
}

TEST(CheckBlock, TorchaoNvfp4KernelFailsTheDefaultAndIsDiagnosedAsTheOption) {
  const check::BlockTarget t{.scheme = find_scheme("nvfp4")};
  const auto r = check::check_blocks(torchao_nvfp4_kernel, t, fast(512));
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.minimal.empty());
  for (const auto& m : r.minimal) {
    std::size_t nonzero = 0;
    for (float x : m.block) nonzero += std::bit_cast<std::uint32_t>(x) != 0;
    EXPECT_LE(nonzero, 2u) << r.text();  // shrunk
    EXPECT_NE(m.got, m.expected);
  }
  EXPECT_EQ(r.diagnosis.ranked.front().name, "mx-quirks torchao_0_18") << r.diagnosis.text;
  EXPECT_EQ(r.diagnosis.ranked.front().agree, r.tested) << r.diagnosis.text;
  std::cout << r.text();
  // The same kernel passes under the option.
  check::BlockTarget q = t;
  q.mx_quirks = MxQuirks::torchao_0_18;
  const auto ok = check::check_blocks(torchao_nvfp4_kernel, q, fast(512));
  EXPECT_TRUE(ok.ok()) << ok.text();
}

TEST(CheckBlock, TorchaoNvfp4ScalesAreClampedUpTo2PowMinus6) {
  // Two blocks: [6, 0, ...] and [3*2^-16, 0, ...]; tensor amax 6. Derived by hand from each definition:
  //  TE (default): S_enc = 2688/6 = 448; block 2: s = 3*2^-16 * fl32(448*fl32(1/6)) = 1.75*2^-9 (1 + 1e-8)
  //    -> e4m3 subnormal 2*2^-9 (0x02); encode = 1/(2^-8 * fl32(1/448)) ~ 114688; y = 5.25 -> e2m1 6 (0x7).
  //  torchao: pts = fl32(6/2688); s = (3*2^-16/6)/pts ~ 448*2^-17 < 2^-6 -> clamped to 2^-6 (0x08);
  //    r = (1/pts)/2^-6 ~ 28672; y ~ 1.3125 -> e2m1 1.5 (0x3).
  std::vector<float> x(32, 0.0f);
  x[0] = 6.0f;
  x[16] = 3 * 0x1p-16f;
  const Scheme s = find_scheme("nvfp4");
  const QuantizedTensor te = quantize(x, {32}, s);
  QuantOptions o;
  o.mx_quirks = MxQuirks::torchao_0_18;
  const QuantizedTensor tao = quantize(x, {32}, s, o);
  EXPECT_EQ(te.scale_codes, (std::vector<std::uint8_t>{0x7e, 0x02}));
  EXPECT_EQ(tao.scale_codes, (std::vector<std::uint8_t>{0x7e, 0x08}));
  EXPECT_EQ(te.codes[16], 0x7);
  EXPECT_EQ(tao.codes[16], 0x3);
  EXPECT_EQ(te.codes[0], 0x7);
  EXPECT_EQ(tao.codes[0], 0x7);
  EXPECT_EQ(tao.tensor_decode_scale, 6.0f / 2688.0f);
  // Single level (per_tensor_scale None): an all-zero block gets 2^-6 (0x08), not TE's 0 scale.
  o.mx_quirks = MxQuirks::torchao_0_18_no_tensor_scale;
  const QuantizedTensor one = quantize(std::vector<float>(16, 0.0f), {16}, s, o);
  EXPECT_EQ(one.scale_codes, std::vector<std::uint8_t>{0x08});
  EXPECT_EQ(quantize(std::vector<float>(16, 0.0f), {16}, s).scale_codes, std::vector<std::uint8_t>{0x00});
  // Where the option does not apply.
  EXPECT_THROW(quantize(x, {32}, find_scheme("mxfp4"), o), Error);
  o.mx_quirks = MxQuirks::torchao_0_18;
  EXPECT_THROW(quantize(x, {32}, find_scheme("nvfp4_16x16"), o), Error);
}

TEST(CheckBlock, BadInputsAreRefused) {
  check::BlockTarget t;
  t.scheme = find_scheme("fp8_128x128");
  EXPECT_THROW(check::validate(t), Error);
  t.scheme = find_scheme("mxfp8_e4m3");
  t.packing = check::Packing::fp4x2;
  EXPECT_THROW(check::validate(t), Error);
  t.packing = check::Packing::none;
  const auto cases = check::generate_blocks(t, {.count = 16});
  std::vector<std::uint8_t> codes(16 * 32 - 1);
  std::vector<std::uint64_t> scales(16);
  EXPECT_THROW(check::evaluate_blocks(t, cases, codes, scales), Error);
}

// Every block-policy field of kPolicyFields (scheme.hpp) is an alternative of the panel; here the MXINT8
// minimum (D10): a kernel that clamps -128 to -127 (the library's own quantizer under
// mxint8-min=symmetric, standing in for a kernel author's clamp) fails the default and is named.
TEST(CheckBlock, SymmetricMxint8KernelIsDiagnosedAsThePolicyValue) {
  const check::BlockTarget t{.scheme = find_scheme("mxint8")};
  Scheme sym = t.scheme;
  sym.policy.mxint8_min = Mxint8Min::symmetric;
  const check::BlockKernel kernel = [&](std::span<const float> in, std::span<std::uint8_t> codes,
                                        std::span<std::uint64_t> scales) {
    const QuantizedTensor q = quantize(in, {in.size() / 32, 32}, sym);
    std::copy(q.codes.begin(), q.codes.end(), codes.begin());
    for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = q.scale_codes[i];
  };
  const auto r = check::check_blocks(kernel, t, fast());
  ASSERT_FALSE(r.ok()) << r.text();
  EXPECT_EQ(r.diagnosis.ranked.front().name, "mxint8-min=symmetric") << r.diagnosis.text;
  EXPECT_EQ(r.diagnosis.ranked.front().agree, r.tested) << r.diagnosis.text;
  EXPECT_NE(r.diagnosis.text.find("(D10)"), std::string::npos) << r.diagnosis.text;
}

// Issue 28 item 6/7: a kernel that writes every finite block's E8M0 scale one too high, elements unchanged.
// Shrinking (with the kernel rerun) keeps each class's own case and failure mode: no class but `zero`
// shrinks to the all-zero block, and every example still shows the scale one high. The panel names it.
TEST(CheckBlock, ScaleOneHighShrinksWithinEachClassAndIsNamed) {
  MxKernel k = e4m3_rceil();
  k.bug = ScaleBug::scale_plus_one;
  const auto r = check::check_blocks(k, rceil_target(), fast());
  ASSERT_FALSE(r.ok());
  ASSERT_GT(r.minimal.size(), 1u) << r.text();
  for (const auto& m : r.minimal) {
    bool all_zero = true;
    for (float x : m.block) all_zero &= (std::bit_cast<std::uint32_t>(x) & 0x7fffffffu) == 0;
    if (m.cls != BlockClass::zero) {
      EXPECT_FALSE(all_zero) << name(m.cls) << " shrank to the all-zero block\n" << r.text();
    }
    EXPECT_EQ(m.got.scale, m.expected.scale + 1) << name(m.cls) << "\n" << r.text();
  }
  EXPECT_EQ(r.diagnosis.ranked.front().name, "scale +1, elements kept") << r.diagnosis.text;
  EXPECT_EQ(r.diagnosis.ranked.front().agree, r.tested) << r.diagnosis.text;
  EXPECT_EQ(r.diagnosis.text.rfind("agrees with \"scale +1, elements kept\" on 100%", 0), 0u) << r.diagnosis.text;
}

// A failing kernel is never offered the target as its best match: a scale wrong by +2 (no alternative
// explains it) ranks the target last and says that no alternative explains the failures.
TEST(CheckBlock, UnexplainedFailureNeverOffersTheTarget) {
  MxKernel k = e4m3_rceil();
  k.bug = ScaleBug::scale_plus_one;
  const check::BlockKernel twice = [&](std::span<const float> in, std::span<std::uint8_t> codes,
                                       std::span<std::uint64_t> scales) {
    k(in, codes, scales);
    for (auto& s : scales)
      if (s != 0xff) s = (s + 1) & 0xff;
  };
  const auto r = check::check_blocks(twice, rceil_target(), fast());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.diagnosis.ranked.front().name, "the target") << r.diagnosis.text;
  EXPECT_EQ(r.diagnosis.ranked.back().name, "the target") << r.diagnosis.text;
  EXPECT_EQ(r.diagnosis.text.rfind("no alternative explains the failures", 0), 0u) << r.diagnosis.text;
}

// issue 25 item 2 (probe check --got-choices): the checker's candidate errors (expected_choice, from the core
// steps) decide as the engine's tile loop chose, on every generated 4over6 block (map-to-4 only if err4 < err6
// strictly, TE reference_nvfp4.py:637 at d0067d0), both choices occur, and a target without scale-select is
// refused with one clear error.
TEST(CheckBlock, FourOverSixChoiceDetailDecidesAsTheEngine) {
  for (const ScaleSelect sel : {ScaleSelect::four_over_six_mse, ScaleSelect::four_over_six_mae}) {
    check::BlockTarget t{.scheme = find_scheme("nvfp4")};
    t.scheme.scale_select = sel;
    const check::BlockCases c = check::generate_blocks(t, {.seed = 5, .count = 2000});
    std::size_t map4 = 0;
    std::vector<std::uint8_t> want;
    for (std::size_t i = 0; i < c.size(); ++i) {
      const check::ChoiceDetail d = check::expected_choice(t, c.at(i));
      EXPECT_EQ(d.choice, d.err4 < d.err6 ? 1 : 0) << "block " << i;
      map4 += d.choice;
      want.push_back(d.choice);
    }
    EXPECT_GT(map4, 0u);
    EXPECT_LT(map4, c.size());
    const check::ChoiceFinding same = check::evaluate_choices(t, c, want, want);
    EXPECT_EQ(same.failed, 0u);
    std::vector<std::uint8_t> got = want;
    got[7] ^= 1;
    const check::ChoiceFinding f = check::evaluate_choices(t, c, got, want);
    EXPECT_EQ(f.failed, 1u);
    EXPECT_EQ(f.first, 7u);
    EXPECT_EQ(f.expected.choice, want[7]);
  }
  const check::BlockTarget plain{.scheme = find_scheme("nvfp4")};
  const std::vector<float> b(16, 1.0f);
  try {
    (void)check::expected_choice(plain, b);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no scale-select (accepted: 4over6:mse, 4over6:mae)"), std::string::npos)
        << e.what();
  }
}

// A 4over6 block whose scale is neither candidate: the "why" line states 4over6's two candidates and TE's
// S_enc = 1536 / amax (core/four_over_six.hpp), not plain NVFP4's amax · fl32(S_enc · fl32(1/6)) it quoted before
// (a fresh user's finding of stop 34).
TEST(CheckBlock, FourOverSixScaleMismatchQuotesItsOwnRule) {
  check::BlockTarget t{.scheme = find_scheme("nvfp4")};
  t.scheme.scale_select = ScaleSelect::four_over_six_mse;
  check::BlockCases cases;
  cases.block = 16;
  cases.values.assign(16, 0.5f);
  cases.values[0] = 6.0f;
  cases.classes = {BlockClass::random};
  const check::BlockResult want = check::expected_block(t, cases.at(0));
  std::vector<std::uint8_t> codes = want.codes;
  std::vector<std::uint64_t> scales{want.scale + 2};  // neither map-to-6 nor map-to-4 (those are 1 or 4 codes apart)
  const auto r = check::evaluate_blocks(t, cases, codes, scales);
  ASSERT_EQ(r.minimal.size(), 1u) << r.text();
  const std::string& why = r.minimal[0].why;
  EXPECT_NE(why.find("nvfp4 4over6:mse: map-to-6 e4m3(base), map-to-4 e4m3(fl32(base * 1.5))"), std::string::npos)
      << why;
  EXPECT_NE(why.find("S_enc = fl32(1536/tensor amax)"), std::string::npos) << why;
  EXPECT_EQ(why.find("fl32(S_enc * fl32(1/6))"), std::string::npos) << why;
}

}  // namespace
