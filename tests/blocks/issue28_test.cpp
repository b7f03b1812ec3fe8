// SPDX-License-Identifier: Apache-2.0
// issue28_test.cpp: issue 28 items 1, 2, 4, 5 and 16 (0-d/empty inputs) of block quantization, each
// through the library and the `minifloat quantize` command. Oracles: the scales of a tile are those of
// the same elements quantized as their own 1-D array (item 1); the dequantized values recomputed here
// as element value x 2^(code - 127) read from the scales in the input's axis order; NVFP4's elements
// recomputed in double from the block's decode scale (item 5: every quotient here is far from an
// e2m1 midpoint, so the one double rounding before the element rounding cannot change a code).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "minifloat/core/convert.hpp"
#include "cli_run.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/quant.hpp"

namespace minifloat_test {
using namespace minifloat;
namespace fs = std::filesystem;

namespace {
fs::path dir() {
  const fs::path p = fs::temp_directory_path() / ("minifloat_issue28_" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p;
}
using Run = CliRun;
Run run(const std::string& args) { return run_cli(args); }
/// Values with a different magnitude per column, so a transposed reading of the scales is wrong.
std::vector<float> columns_apart(std::size_t rows, std::size_t cols) {
  std::vector<float> x(rows * cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      x[i * cols + j] = std::ldexp(1.0f + static_cast<float>((i * 7 + j * 3) % 16) / 16.0f, static_cast<int>(j * 5)) *
                        ((i / 32) % 2 ? 1e-3f : 1.0f) * ((i + j) % 3 ? 1.0f : -1.0f);
  return x;
}
double e8m0_value(std::uint8_t c) { return std::ldexp(1.0, static_cast<int>(c) - 127); }
std::uint8_t u8(const NpyArray& a, std::size_t i) { return std::to_integer<std::uint8_t>(a.data.at(i)); }
}  // namespace

// ---- item 1: --axis first keeps the input's axis order in the scales --------------------------

TEST(Issue28, AxisFirstScalesKeepTheInputsAxisOrder) {
  const std::vector<float> x = columns_apart(40, 5);
  QuantOptions first;
  first.axis = BlockAxis::first;
  const QuantizedTensor a = quantize(x, {40, 5}, find_scheme("mxfp8_e4m3"), first);
  const QuantizedTensor b = quantize(x, {40, 5}, parse_scheme("e4m3fn/32x1/e8m0fnu:ocp_floor"));
  EXPECT_EQ(a.scale_shape, (std::vector<std::size_t>{2, 5}));
  EXPECT_EQ(a.scale_shape, b.scale_shape);
  EXPECT_EQ(a.scale_codes, b.scale_codes);
  EXPECT_EQ(a.codes, b.codes);
  EXPECT_EQ(dequantize(a), dequantize(b));
}

TEST(Issue28, AxisFirst3dScalesAreEachColumnsOwn) {
  const std::size_t n = 40, d1 = 3, d2 = 4;
  const std::vector<float> x = columns_apart(n, d1 * d2);
  QuantOptions first;
  first.axis = BlockAxis::first;
  for (const char* s : {"mxfp8_e4m3", "fp8_1x128"}) {
    const Scheme scheme = find_scheme(s);
    const QuantizedTensor q = quantize(x, {n, d1, d2}, scheme, first);
    const std::size_t nb = (n + scheme.block_cols - 1) / scheme.block_cols;
    ASSERT_EQ(q.scale_shape, (std::vector<std::size_t>{nb, d1, d2})) << s;
    for (std::size_t j = 0; j < d1 * d2; ++j) {  // column (j / d2, j % d2) quantized on its own
      std::vector<float> col(n);
      for (std::size_t i = 0; i < n; ++i) col[i] = x[i * d1 * d2 + j];
      const QuantizedTensor c = quantize(col, {n}, scheme);
      for (std::size_t t = 0; t < nb; ++t) {
        if (!c.scale_codes.empty()) {
          EXPECT_EQ(q.scale_codes[t * d1 * d2 + j], c.scale_codes[t]) << s << " column " << j << " tile " << t;
        } else {
          EXPECT_EQ(q.scales[t * d1 * d2 + j], c.scales[t]) << s << " column " << j << " tile " << t;
        }
      }
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(q.codes[i * d1 * d2 + j], c.codes[i]) << s << " " << i << "," << j;
    }
  }
}

TEST(Issue28, AxisFirstSquareTileGridDequantizesTheNaturalWay) {
  const std::vector<float> x = columns_apart(64, 2);
  QuantOptions first;
  first.axis = BlockAxis::first;
  const QuantizedTensor q = quantize(x, {64, 2}, find_scheme("mxfp8_e4m3"), first);
  ASSERT_EQ(q.scale_shape, (std::vector<std::size_t>{2, 2}));
  const std::vector<double> deq = dequantize(q);
  for (std::size_t i = 0; i < 64; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      const double natural =
          to_double(formats::e4m3fn, q.codes[i * 2 + j]) * e8m0_value(q.scale_codes[(i / 32) * 2 + j]);
      EXPECT_EQ(natural, deq[i * 2 + j]) << i << "," << j;
    }
}

TEST(Issue28, CliAxisFirstWritesTheSpecsLayout) {
  const fs::path d = dir();
  const std::string in = (d / "x.npy").string();
  write_npy(d / "x.npy", make_npy_f32({40, 5}, columns_apart(40, 5)));
  auto r = run("quantize --scheme mxfp8_e4m3 --axis first --in " + in + " --out-codes " + (d / "c1.npy").string() +
               " --out-scales " + (d / "s1.npy").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string axis_first_summary = r.out;
  r = run("quantize --scheme e4m3fn/32x1/e8m0fnu:ocp_floor --in " + in + " --out-codes " + (d / "c2.npy").string() +
          " --out-scales " + (d / "s2.npy").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray s1 = read_npy(d / "s1.npy"), s2 = read_npy(d / "s2.npy");
  EXPECT_EQ(s1.shape, (std::vector<std::size_t>{2, 5}));
  EXPECT_EQ(s1.shape, s2.shape);
  EXPECT_EQ(s1.data, s2.data);
  EXPECT_EQ(read_npy(d / "c1.npy").data, read_npy(d / "c2.npy").data);
  EXPECT_NE(axis_first_summary.find("(2x5 tiles of 32x1)"), std::string::npos) << axis_first_summary;

  // 3-D: (40, 3, 4) along axis 0 → scales (2, 3, 4)
  write_npy(d / "x3.npy", make_npy_f32({40, 3, 4}, columns_apart(40, 12)));
  r = run("quantize --scheme mxfp8_e4m3 --axis first --in " + (d / "x3.npy").string() + " --out-codes " +
          (d / "c3.npy").string() + " --out-scales " + (d / "s3.npy").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_npy(d / "s3.npy").shape, (std::vector<std::size_t>{2, 3, 4}));
}

TEST(Issue28, CliAxisFirstSquareGridMatchesOutDequant) {
  const fs::path d = dir();
  write_npy(d / "sq.npy", make_npy_f32({64, 2}, columns_apart(64, 2)));
  const auto r = run("quantize --scheme mxfp8_e4m3 --axis first --in " + (d / "sq.npy").string() + " --out-codes " +
                     (d / "c.npy").string() + " --out-scales " + (d / "s.npy").string() + " --out-dequant " +
                     (d / "q.npy").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray c = read_npy(d / "c.npy"), s = read_npy(d / "s.npy");
  const std::vector<float> q = npy_as_f32(read_npy(d / "q.npy"));
  ASSERT_EQ(s.shape, (std::vector<std::size_t>{2, 2}));
  double worst = 0;
  for (std::size_t i = 0; i < 64; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      const double natural = to_double(formats::e4m3fn, u8(c, i * 2 + j)) * e8m0_value(u8(s, (i / 32) * 2 + j));
      const double want = q[i * 2 + j];
      worst = std::max(worst, std::fabs(natural - want) / std::fabs(want));
    }
  EXPECT_EQ(worst, 0.0) << "largest relative error of the naturally read scales";
}

// ---- item 2: one rule for every integer dtype --------------------------------------------------

TEST(Issue28, CliRefusesEveryIntegerDtypeWithoutTheFlag) {
  const fs::path d = dir();
  std::vector<std::byte> u4(64 * 4);
  for (std::size_t i = 0; i < 64; ++i) u4[i * 4 + 1] = static_cast<std::byte>(i);  // 256·i
  write_npy(d / "u4.npy", NpyArray{"<u4", {2, 32}, u4});
  const std::string io = " --in " + (d / "u4.npy").string() + " --out-codes " + (d / "c.npy").string();
  for (const std::string& flag : {std::string(), std::string(" --integers-as-values")}) {
    const auto r = run("quantize --scheme mxfp8_e4m3" + io + flag);
    EXPECT_EQ(r.status, 2) << flag << ": " << r.out;
    EXPECT_NE(r.out.find("<u4"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--integers-as-values"), std::string::npos) << r.out;
  }
  const auto rep = run("report --schemes mxfp8_e4m3 --in " + (d / "u4.npy").string());
  EXPECT_EQ(rep.status, 2) << rep.out;
  EXPECT_NE(rep.out.find("<u4"), std::string::npos) << rep.out;
  // the flag reads the integers that are exact in binary32 as numbers, <u2 included
  std::vector<std::byte> u2(64 * 2);
  for (std::size_t i = 0; i < 64; ++i) u2[i * 2 + 1] = static_cast<std::byte>(i);
  write_npy(d / "u2.npy", NpyArray{"<u2", {2, 32}, u2});
  const std::string io2 = " --in " + (d / "u2.npy").string() + " --out-codes " + (d / "c2.npy").string();
  auto r = run("quantize --scheme mxfp8_e4m3" + io2);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("<u2"), std::string::npos) << r.out;
  r = run("quantize --scheme mxfp8_e4m3" + io2 + " --integers-as-values");
  EXPECT_EQ(r.status, 0) << r.out;
  r = run("quantize --help");
  EXPECT_NE(r.out.find("<u4"), std::string::npos) << "the help names the integer dtypes the flag does not take";
}

// ---- item 4: negatives into an element format without a sign are counted -----------------------

TEST(Issue28, NegativesIntoUnsignedElementsAreCounted) {
  std::vector<float> x(64);
  for (std::size_t i = 0; i < 64; ++i) x[i] = -2.0f + 4.0f * static_cast<float>(i) / 63.0f;  // 32 negatives
  for (const char* s : {"ue4m3/1x32/e8m0fnu:ocp_floor", "e8m0fnu/1x32/e8m0fnu:ocp_floor"}) {
    const Scheme scheme = parse_scheme(s);
    const QuantizedTensor q = quantize(x, {2, 32}, scheme);
    EXPECT_EQ(negatives_made_nan(scheme.element, x, q.codes), 32u) << s;
    const QuantizedTensor signed_q = quantize(x, {2, 32}, find_scheme("mxfp8_e4m3"));
    EXPECT_EQ(negatives_made_nan(elements::e4m3fn, x, signed_q.codes), 0u);
  }
  const fs::path d = dir();
  write_npy(d / "neg.npy", make_npy_f32({2, 32}, x));
  for (const char* s : {"ue4m3/1x32/e8m0fnu:ocp_floor", "e8m0fnu/1x32/e8m0fnu:ocp_floor"}) {
    const auto r = run(std::string("quantize --scheme ") + s + " --in " + (d / "neg.npy").string() + " --out-codes " +
                       (d / "c.npy").string());
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("negative to NaN 32"), std::string::npos) << r.out;
  }
}

// ---- item 5: NVFP4 with a block amax below ~1.8e-38 --------------------------------------------

namespace {
/// The e2m1fn value nearest to y (|y| ≤ 6 here; no test value lies near a midpoint).
double nearest_e2m1(double y) {
  const double grid[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  double best = 0;
  for (double g : grid)
    if (std::fabs(std::fabs(y) - g) < std::fabs(std::fabs(y) - best)) best = g;
  return std::copysign(best, y);
}
}  // namespace

TEST(Issue28, Nvfp4ExactRoundsTheUnclampedQuotient) {
  const Scheme exact = parse_scheme("e2m1fn/1x16/ue4m3:nvfp4/fp32-order=exact");
  for (const float v : {1.2e-38f, 3e-40f, 1e-39f, 2.0f}) {
    std::vector<float> x(16, v);
    x[1] = v * 0.5f;
    x[2] = -v * 0.25f;
    const QuantizedTensor q = quantize(x, {1, 16}, exact);
    // the block's decode scale, as dequantize reads it: e4m3 scale × the tensor decode scale
    const double dec = to_double(formats::e4m3fn, q.scale_codes[0]) * static_cast<double>(q.tensor_decode_scale);
    ASSERT_GT(dec, 0.0) << v;
    for (std::size_t i = 0; i < 16; ++i)
      EXPECT_EQ(to_double(formats::e2m1fn, q.codes[i]), nearest_e2m1(static_cast<double>(x[i]) / dec))
          << "x = " << x[i] << " (block of " << v << ")";
  }
  // te_multiply keeps TE's clamp (and says so); exact does not need it
  std::vector<float> x(16, 1.2e-38f);
  const QuantizedTensor te = quantize(x, {1, 16}, find_scheme("nvfp4"));
  EXPECT_EQ(to_double(formats::e2m1fn, te.codes[0]), 4.0);  // fl32(x · FLT_MAX), TE's result
  EXPECT_EQ(nvfp4_clamped_blocks(te, Fp32ScaleOrder::te_multiply), 1u);
  EXPECT_EQ(nvfp4_clamped_blocks(te, Fp32ScaleOrder::exact), 0u);
  const QuantizedTensor normal = quantize(std::vector<float>(16, 1.0f), {1, 16}, find_scheme("nvfp4"));
  EXPECT_EQ(nvfp4_clamped_blocks(normal, Fp32ScaleOrder::te_multiply), 0u);
}

TEST(Issue28, CliNvfp4SummarySaysWhenTheClampFired) {
  const fs::path d = dir();
  write_npy(d / "tiny.npy", make_npy_f32({1, 16}, std::vector<float>(16, 1.2e-38f)));
  const std::string io = " --in " + (d / "tiny.npy").string() + " --out-codes " + (d / "c.npy").string();
  auto r = run("quantize --scheme nvfp4" + io);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("clamped to FLT_MAX in 1 block"), std::string::npos) << r.out;
  EXPECT_EQ(u8(read_npy(d / "c.npy"), 0), 0x6) << "te_multiply: TE's clamped multiplier gives 4.0";
  r = run("quantize --scheme nvfp4 --fp32-order exact" + io);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("clamped"), std::string::npos) << r.out;
  EXPECT_EQ(u8(read_npy(d / "c.npy"), 0), 0x7) << "exact: 1.2e-38 / decode scale = 5.93 → 6.0";
}

// ---- item 16 (part): 0-d and empty inputs ------------------------------------------------------

TEST(Issue28, CliRefusesZeroDimensionalAndEmptyInputsAsPythonDoes) {
  const fs::path d = dir();
  write_npy(d / "zero_d.npy", make_npy_f32({}, {3.0f}));
  write_npy(d / "empty.npy", make_npy_f32({2, 0}, {}));
  for (const char* f : {"zero_d.npy", "empty.npy"}) {
    const auto r = run(std::string("quantize --scheme mxfp4 --in ") + (d / f).string() + " --out-codes " +
                       (d / "none.npy").string());
    EXPECT_EQ(r.status, 2) << f << ": " << r.out;
    EXPECT_NE(r.out.find("accepted"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(d / "none.npy")) << f;
  }
}

}  // namespace minifloat_test
