// SPDX-License-Identifier: Apache-2.0
// scale_layout_test.cpp: the scale layouts of scale_layout.hpp (issue 25 item 7). Offsets derived by hand
// from each stack's code (cited per test); every layout a bijection of the grid into its bytes; read back
// the inverse of lay out; a QuantizedTensor's laid-out scales equal its row-major scale_codes read at the
// layout's offsets, for both block axes; and `quantize --scale-layout` writes those bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli_run.hpp"
#include "minifloat/error.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/scale_layout.hpp"
#include "minifloat/scheme.hpp"

namespace minifloat_test {
using namespace minifloat;
namespace fs = std::filesystem;

namespace {
constexpr ScaleLayout kAll[] = {ScaleLayout::rowmajor, ScaleLayout::cutlass128x4, ScaleLayout::flashinfer8x4,
                                ScaleLayout::vllm4x4, ScaleLayout::deepgemm_packed};
std::vector<std::uint8_t> ramp(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(1 + i % 250);  // never the pad 0
  return v;
}
}  // namespace

// FlashInfer quantization_utils.cuh:1026-1047 (fb28d72): SF layout [numMTiles, numKTiles, 8, 4], innerKStride 1,
// mStride 4, kTileStride 8*4 = 32, mTileStride numKTiles*32, numKTiles = ceil(numCols/4).
TEST(ScaleLayout, Flashinfer8x4OffsetsByHand) {
  const ScaleGrid g{9, 5};  // numKTiles = 2, mTileStride = 64
  EXPECT_EQ(scale_layout_offset(ScaleLayout::flashinfer8x4, g, 0, 0), 0u);
  EXPECT_EQ(scale_layout_offset(ScaleLayout::flashinfer8x4, g, 1, 2), 6u);   // 1*4 + 2
  EXPECT_EQ(scale_layout_offset(ScaleLayout::flashinfer8x4, g, 7, 3), 31u);  // 7*4 + 3
  EXPECT_EQ(scale_layout_offset(ScaleLayout::flashinfer8x4, g, 0, 4), 32u);  // kTile 1
  EXPECT_EQ(scale_layout_offset(ScaleLayout::flashinfer8x4, g, 8, 4), 96u);  // mTile 1 (64) + kTile 1 (32)
  EXPECT_EQ(scale_layout_bytes(ScaleLayout::flashinfer8x4, g), 16u * 8u);    // 16 rows x 8 cols padded
}

// vLLM nvfp4_kv_cache_kernels.cu swizzle_scale_offset: s_group = S/4, t' = (t/4)*4 + s/s_group,
// s' = (s % s_group)*4 + t%4, offset t'*S + s'. t=5, s=7, S=16: s_group 4, t' = 4 + 1 = 5, s' = 3*4 + 1 = 13.
TEST(ScaleLayout, Vllm4x4OffsetsByHand) {
  const ScaleGrid g{8, 16};
  EXPECT_EQ(scale_layout_offset(ScaleLayout::vllm4x4, g, 5, 7), 5u * 16u + 13u);
  EXPECT_EQ(scale_layout_offset(ScaleLayout::vllm4x4, g, 0, 1), 4u);   // t' 0, s' 4
  EXPECT_EQ(scale_layout_offset(ScaleLayout::vllm4x4, g, 3, 0), 3u);   // t' 0, s' 3
  EXPECT_EQ(scale_layout_offset(ScaleLayout::vllm4x4, g, 0, 4), 16u);  // t' 1, s' 0
  EXPECT_EQ(scale_layout_bytes(ScaleLayout::vllm4x4, g), 8u * 16u);
  EXPECT_TRUE(scale_layout_problem(ScaleLayout::vllm4x4, ScaleGrid{8, 6}, ScaleFamily::nvfp4).has_value());
  EXPECT_TRUE(scale_layout_problem(ScaleLayout::vllm4x4, ScaleGrid{6, 8}, ScaleFamily::nvfp4).has_value());
}

// DeepGEMM smxx_layout.hpp:155-178 (54e2261): codes padded to [align(mn, 4), align(k, 4)] with zeros, viewed as
// int32 [aligned_mn, k/4] (byte j of a word = code 4q + j, little-endian), stored MN-major: word (mn, q) at
// q*aligned_mn + mn. rows 5 → aligned 8, cols 6 → 2 words per row.
TEST(ScaleLayout, DeepgemmPackedOffsetsByHand) {
  const ScaleGrid g{5, 6};
  EXPECT_EQ(scale_layout_offset(ScaleLayout::deepgemm_packed, g, 2, 5), (1u * 8u + 2u) * 4u + 1u);  // 41
  EXPECT_EQ(scale_layout_offset(ScaleLayout::deepgemm_packed, g, 4, 0), 16u);
  EXPECT_EQ(scale_layout_bytes(ScaleLayout::deepgemm_packed, g), 64u);
  const ScaleFile f = scale_layout_file(ScaleLayout::deepgemm_packed, g);
  EXPECT_EQ(f.descr, "<u4");
  EXPECT_EQ(f.shape, (std::vector<std::size_t>{2, 8}));
  // the int32 word of row 2, word 1 holds codes (2,4) and (2,5) in its two low bytes, the padding 0
  std::vector<std::uint8_t> codes = ramp(30);
  const std::vector<std::uint8_t> b = lay_out_scales(ScaleLayout::deepgemm_packed, g, codes);
  const std::uint32_t w = b[40] | (b[41] << 8) | (b[42] << 16) | (static_cast<std::uint32_t>(b[43]) << 24);
  EXPECT_EQ(w, static_cast<std::uint32_t>(codes[2 * 6 + 4] | (codes[2 * 6 + 5] << 8)));
  EXPECT_TRUE(scale_layout_problem(ScaleLayout::deepgemm_packed, g, ScaleFamily::nvfp4).has_value());
}

// pack.hpp's 128x4 examples (cuBLAS "1D block scaling factors layout"), through the layout table.
TEST(ScaleLayout, Cutlass128x4IsPackHppsSwizzle) {
  const ScaleGrid g{1, 2};
  const std::vector<std::uint8_t> codes{0x7f, 0x80};
  const std::vector<std::uint8_t> b = lay_out_scales(ScaleLayout::cutlass128x4, g, codes);
  ASSERT_EQ(b.size(), 512u);
  EXPECT_EQ(b[0], 0x7f);
  EXPECT_EQ(b[1], 0x80);
  for (std::size_t i = 2; i < b.size(); ++i) ASSERT_EQ(b[i], 0) << i;
  EXPECT_EQ(scale_layout_offset(ScaleLayout::cutlass128x4, ScaleGrid{200, 8}, 128, 0), 1024u);
  EXPECT_EQ(scale_layout_file(ScaleLayout::cutlass128x4, ScaleGrid{200, 9}).shape, (std::vector<std::size_t>{256, 12}));
}

TEST(ScaleLayout, EveryLayoutIsABijectionAndReadsBackItsGrid) {
  for (const ScaleLayout l : kAll)
    for (const ScaleGrid g :
         {ScaleGrid{1, 4}, ScaleGrid{8, 4}, ScaleGrid{12, 8}, ScaleGrid{130, 12}, ScaleGrid{9, 5}}) {
      if (scale_layout_problem(l, g, ScaleFamily::e8m0)) continue;
      std::set<std::size_t> seen;
      for (std::size_t r = 0; r < g.rows; ++r)
        for (std::size_t c = 0; c < g.cols; ++c) {
          const std::size_t o = scale_layout_offset(l, g, r, c);
          ASSERT_LT(o, scale_layout_bytes(l, g)) << name(l) << " " << r << "," << c;
          ASSERT_TRUE(seen.insert(o).second) << name(l) << " twice at " << o;
        }
      const std::vector<std::uint8_t> codes = ramp(g.rows * g.cols);
      const std::vector<std::uint8_t> b = lay_out_scales(l, g, codes);
      std::size_t zeros = 0;
      for (const auto v : b) zeros += v == 0;
      EXPECT_EQ(zeros, b.size() - codes.size()) << name(l);  // the padding, and only it, is 0
      EXPECT_EQ(read_laid_out_scales(l, g, b), codes) << name(l);
    }
}

TEST(ScaleLayout, RefusalsNameTheLayoutAndWhatItTakes) {
  const std::vector<std::uint8_t> five(5);
  try {
    (void)read_laid_out_scales(ScaleLayout::cutlass128x4, ScaleGrid{1, 1}, five);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cutlass128x4: 5 bytes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("it takes 512"), std::string::npos) << e.what();
  }
  // 2-D tiles and FP32 scales stay row-major
  std::vector<float> x(32 * 32, 1.0f);
  const QuantizedTensor sq = quantize(std::span<const float>(x), {32, 32}, parse_scheme("e2m1fn/16x16/ue4m3:nvfp4"));
  EXPECT_THROW((void)lay_out_scales(sq, ScaleLayout::cutlass128x4), Error);
  const QuantizedTensor f32 = quantize(std::span<const float>(x), {32, 32}, parse_scheme("fp8_1x128"));
  EXPECT_THROW((void)lay_out_scales(f32, ScaleLayout::flashinfer8x4), Error);
  EXPECT_EQ(lay_out_scales(f32, ScaleLayout::rowmajor).file.descr, "<f4");
}

// A tensor's layout grid is [rows, K blocks] for either block axis: (40, 64) in 1x32 blocks and its transpose
// (64, 40) with --axis first have the same grid (40, 2), and the laid-out bytes of both are the grid's.
TEST(ScaleLayout, QuantizedTensorGridIsRowsByKBlocksForEitherAxis) {
  std::vector<float> x(40 * 64), xt(64 * 40);
  for (std::size_t i = 0; i < 40; ++i)
    for (std::size_t k = 0; k < 64; ++k) {
      const float v = static_cast<float>((i + 1) * (k < 32 ? 1 : 1000));  // the two K blocks of a row differ
      x[i * 64 + k] = v;
      xt[k * 40 + i] = v;
    }
  const Scheme s = parse_scheme("mxfp8_e4m3");
  const QuantizedTensor q = quantize(std::span<const float>(x), {40, 64}, s);
  QuantOptions first;
  first.axis = BlockAxis::first;
  const QuantizedTensor qt = quantize(std::span<const float>(xt), {64, 40}, s, first);
  ASSERT_EQ(q.scale_shape, (std::vector<std::size_t>{40, 2}));
  ASSERT_EQ(qt.scale_shape, (std::vector<std::size_t>{2, 40}));
  for (const ScaleLayout l : kAll) {
    if (l == ScaleLayout::vllm4x4) continue;  // 2 K blocks: not a multiple of 4
    const LaidOutScales a = lay_out_scales(q, l), b = lay_out_scales(qt, l);
    if (l == ScaleLayout::rowmajor) continue;  // each in its input's axis order
    EXPECT_EQ(a.bytes, b.bytes) << name(l);
    EXPECT_EQ(a.file.shape, b.file.shape) << name(l);
    for (std::size_t r = 0; r < 40; ++r)
      for (std::size_t c = 0; c < 2; ++c)
        ASSERT_EQ(a.bytes[scale_layout_offset(l, ScaleGrid{40, 2}, r, c)], q.scale_codes[r * 2 + c]) << name(l);
  }
}

TEST(ScaleLayout, CliWritesTheLayoutAndRefusesWhatItCannotHold) {
  const fs::path d = fs::temp_directory_path() / ("minifloat_scale_layout_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::vector<float> x(40 * 64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 97) - 40.0f;
  write_npy(d / "x.npy", make_npy_f32({40, 64}, x));
  const std::string base = "quantize --scheme mxfp8_e4m3 --in " + (d / "x.npy").string() + " --out-codes " +
                           (d / "c.npy").string() + " --out-scales " + (d / "s.npy").string();
  CliRun r = run_cli(base);
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray rowmajor = read_npy(d / "s.npy");
  r = run_cli(base + " --scale-layout deepgemm_packed");
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray packed = read_npy(d / "s.npy");
  EXPECT_EQ(packed.dtype, "<u4");
  EXPECT_EQ(packed.shape, (std::vector<std::size_t>{1, 40}));
  const auto* rb = reinterpret_cast<const std::uint8_t*>(rowmajor.data.data());
  const auto* pb = reinterpret_cast<const std::uint8_t*>(packed.data.data());
  for (std::size_t row = 0; row < 40; ++row) {
    EXPECT_EQ(pb[row * 4 + 0], rb[row * 2 + 0]) << row;
    EXPECT_EQ(pb[row * 4 + 1], rb[row * 2 + 1]) << row;
    EXPECT_EQ(pb[row * 4 + 2], 0) << row;
  }
  r = run_cli(base + " --scale-layout vllm4x4");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("vllm4x4 needs a scale grid whose rows and columns are multiples of 4; this one is 40x2"),
            std::string::npos)
      << r.out;
  r = run_cli(base + " --scale-layout zigzag");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("cutlass128x4"), std::string::npos) << r.out;  // the accepted names
  fs::remove_all(d);
}

}  // namespace minifloat_test
