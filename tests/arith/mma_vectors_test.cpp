// SPDX-License-Identifier: Apache-2.0
// mma_vectors_test.cpp: the tensor-core presets against hardware-measured MMA outputs (oracle:
// the GPUs; data ${MINIFLOAT_SHARED_DIR}/mma-vectors, used in place), plus the probe designs of
// training-sim.md §1.6 whose expected values follow from the T-FDPA definition, and the
// accumulation models on sums whose exact value is known.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "minifloat/core/convert.hpp"

#ifndef MINIFLOAT_SHARED_DIR
#define MINIFLOAT_SHARED_DIR ""
#endif

namespace minifloat_test {
namespace {

using namespace minifloat;
namespace fs = std::filesystem;

struct Vectors {
  std::vector<std::uint64_t> a, b, c, d;  // a/b: e4m3fn codes, 32 per row; c/d: f32 codes
};

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string s; std::getline(in, s);)
    if (!s.empty()) out.push_back(s);
  return out;
}

/// Test-local reader (deliberately not the CLI's): a/b FP32 hex words, c/d binary strings.
bool load(const fs::path& dir, const std::string& tag, Vectors& v) {
  const fs::path a = dir / ("a_" + tag + "_E4M3.txt"), b = dir / ("b_" + tag + "_E4M3.txt"),
                 c = dir / ("c_" + tag + "_fp32.txt"), d = dir / ("d_" + tag + "_fp32.txt");
  if (!fs::exists(a) || !fs::exists(b) || !fs::exists(c) || !fs::exists(d)) return false;
  for (const auto& [path, out] : {std::pair{a, &v.a}, std::pair{b, &v.b}})
    for (const std::string& line : lines_of(path)) {
      std::istringstream ss(line);
      std::string w;
      while (ss >> w) {
        const RoundResult r = convert(formats::f32, std::stoul(w, nullptr, 16), formats::e4m3fn);
        EXPECT_EQ(r.flags, flag_none) << "not an exact e4m3fn value: " << w;
        out->push_back(r.code);
      }
    }
  for (const auto& [path, out] : {std::pair{c, &v.c}, std::pair{d, &v.d}})
    for (const std::string& line : lines_of(path)) out->push_back(std::stoull(line, nullptr, 2));
  return v.a.size() == 32 * v.d.size() && v.b.size() == v.a.size() && v.c.size() == v.d.size();
}

std::size_t matches(const TfdpaModel& m, const Vectors& v, bool c_zero) {
  std::size_t ok = 0;
  for (std::size_t r = 0; r < v.d.size(); ++r) {
    const RoundResult got = tfdpa_dot(m, formats::e4m3fn, v.a.data() + 32 * r, formats::e4m3fn, v.b.data() + 32 * r, 32,
                                      c_zero ? 0 : v.c[r]);
    ok += got.code == v.d[r];
  }
  return ok;
}

const fs::path kVectors = fs::path(MINIFLOAT_SHARED_DIR) / "mma-vectors";

// Oracle: NVIDIA H100 hardware (MATLAB-tensor-core model_validation/H100/E4M3), C taken as +0.
TEST(MmaVectors, HopperFp8ReproducesH100) {
  Vectors v;
  if (!load(kVectors / "H100-E4M3", "H100", v))
    GTEST_SKIP() << "hardware vectors not found in " << (kVectors / "H100-E4M3")
                 << " (set the CMake cache variable MINIFLOAT_SHARED_DIR)";
  ASSERT_EQ(v.d.size(), 5000u);
  EXPECT_EQ(matches(mma_models::hopper_fp8, v, true), 5000u);
  // the model is discriminating: Ada's 16+16 split does not reproduce Hopper (training-sim §1.4: 4186)
  EXPECT_LT(matches(mma_models::ada_fp8, v, true), 5000u);
}

// Oracle: NVIDIA L40S (Ada) hardware, with the file's C.
TEST(MmaVectors, AdaFp8ReproducesL40S) {
  Vectors v;
  if (!load(kVectors / "Ada-E4M3", "Ada", v))
    GTEST_SKIP() << "hardware vectors not found in " << (kVectors / "Ada-E4M3")
                 << " (set the CMake cache variable MINIFLOAT_SHARED_DIR)";
  ASSERT_EQ(v.d.size(), 5000u);
  EXPECT_EQ(matches(mma_models::ada_fp8, v, false), 5000u);
  EXPECT_LT(matches(mma_models::hopper_fp8, v, false), 5000u);  // one 32-group does not (3940)
}

// ---- the probe designs of training-sim.md §1.6, expected values from the T-FDPA definition ----

constexpr std::uint64_t kU = 0x70;    // e4m3fn 2^7 (U); U·U = 2^14, one quantum at F = 13 is 2
constexpr std::uint64_t kNegU = 0xf0;

std::uint64_t f32(float x) { return from_float(x, formats::f32).code; }
float val(std::uint64_t code) { return to_float(formats::f32, code); }

TEST(TfdpaProbes, P1ExactProducts) {
  const std::uint64_t a[1] = {0x39};  // 1.125
  EXPECT_EQ(val(tfdpa_dot(mma_models::hopper_fp8, formats::e4m3fn, a, formats::e4m3fn, a, 1, 0).code), 1.265625f);
}

TEST(TfdpaProbes, P2FractionBitsKept) {
  // U·U − U·U + c with c = 2^(14 − j): survives (exactly) for j ≤ 13, truncated away for j ≥ 14
  const std::uint64_t a[2] = {kU, kU}, b[2] = {kU, kNegU};
  for (int j = 1; j <= 20; ++j) {
    const std::uint64_t c = f32(std::ldexp(1.0f, 14 - j));
    const float d = val(tfdpa_dot(mma_models::hopper_fp8, formats::e4m3fn, a, formats::e4m3fn, b, 2, c).code);
    EXPECT_EQ(d, j <= 13 ? std::ldexp(1.0f, 14 - j) : 0.0f) << "j = " << j;
  }
}

TEST(TfdpaProbes, P3AlignedTermsTruncateTowardZero) {
  const std::uint64_t a[2] = {kU, kU}, b[2] = {kU, kNegU};
  const float q = 2.0f;
  const float cs[] = {0.75f * q, -0.75f * q, 1.5f * q, -1.5f * q}, want[] = {0.0f, 0.0f, 2.0f, -2.0f};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(val(tfdpa_dot(mma_models::hopper_fp8, formats::e4m3fn, a, formats::e4m3fn, b, 2, f32(cs[i])).code),
              want[i]);
}

TEST(TfdpaProbes, P4CJoinsTheAlignment) {
  std::uint64_t ones[32];
  for (auto& x : ones) x = 0x38;  // 1.0
  // c = 2^20: every product (2^0) lies 20 binades below, beyond F = 13 → d = 2^20 exactly
  EXPECT_EQ(val(tfdpa_dot(mma_models::hopper_fp8, formats::e4m3fn, ones, formats::e4m3fn, ones, 32, f32(1048576.0f)).code),
            1048576.0f);
}

TEST(TfdpaProbes, P6OutputIsE8m13TruncatedTowardZero) {
  // 1·1 + 2^−6·2^−6 + 2^−9·1 with c = 2^−20: E = 0, quantum 2^−13, so c truncates away and the
  // products (multiples of 2^−12) stay: d = 1 + 2^−9 + 2^−12, an e8m13 value (low 10 bits zero)
  const std::uint64_t a[3] = {0x38, 0x08, 0x01}, b[3] = {0x38, 0x08, 0x38};
  const RoundResult r = tfdpa_dot(mma_models::hopper_fp8, formats::e4m3fn, a, formats::e4m3fn, b, 3,
                                  f32(std::ldexp(1.0f, -20)));
  EXPECT_EQ(val(r.code), 1.0f + std::ldexp(1.0f, -9) + std::ldexp(1.0f, -12));
  EXPECT_EQ(r.code & 0x3ffu, 0u);
  // a subnormal operand keeps its format's emin as nominal exponent: 1.875·1.875 + 1.875·2^−9
  // (E = 0, quantum 2^−13 keeps 15·2^−12) = 14415·2^−12, exact in e8m13 (quantum 2^−12 in [2, 4))
  const std::uint64_t x[2] = {0x3f /*1.875*/, 0x3f}, y[2] = {0x3f, 0x01 /*2^-9*/};
  EXPECT_EQ(val(tfdpa_dot(mma_models::hopper_fp8, formats::e4m3fn, x, formats::e4m3fn, y, 2, 0).code), 3.519287109375f);
}

TEST(TfdpaProbes, SpecialsFollowMmaSim) {
  const std::uint64_t nan[1] = {0x7f}, one[1] = {0x38};
  EXPECT_EQ(tfdpa_dot(mma_models::hopper_fp8, formats::e4m3fn, nan, formats::e4m3fn, one, 1, 0).code, 0x7fffffffu);
  EXPECT_EQ(tfdpa_dot(mma_models::hopper_fp8, formats::e4m3fn, one, formats::e4m3fn, one, 1, 0xff800000u).code,
            0xff800000u);  // C = −Inf
}

// ---- accumulation models on inputs whose exact sums are known ----

TEST(AccumModels, ExactVersusFp32Swamping) {
  // 2^24 + 1 + 1 + … (16 ones): f32 sequential keeps 2^24 (each +1 is a tie to even); exact is 2^24 + 16
  std::vector<std::uint64_t> a(17, 0x3c00), b(17, 0x3c00);  // f16 ones
  a[0] = 0x7800;                                            // f16 32768 = 2^15
  b[0] = 0x6000;                                            // f16 512 = 2^9 → product 2^24
  const RoundResult exact = dot(parse_dot_model("exact"), formats::f16, a, formats::f16, b);
  const RoundResult seq = dot(parse_dot_model("fp32"), formats::f16, a, formats::f16, b);
  const RoundResult pw = dot(parse_dot_model("pairwise"), formats::f16, a, formats::f16, b);
  const RoundResult kh = dot(parse_dot_model("kahan"), formats::f16, a, formats::f16, b);
  EXPECT_EQ(val(exact.code), 16777232.0f);
  EXPECT_EQ(val(seq.code), 16777216.0f);
  EXPECT_EQ(val(kh.code), 16777232.0f);  // Kahan recovers the lost ones
  EXPECT_EQ(val(pw.code), 16777232.0f);  // the 16 ones sum exactly in their own subtree
}

TEST(AccumModels, BlockedPromotionAndNames) {
  // 256 lanes of U·U = 2^14 under hopper-fp8 chaining are exact; blocked128 agrees with exact
  std::vector<std::uint64_t> a(256, kU);
  const RoundResult blk = dot(parse_dot_model("blocked128"), formats::e4m3fn, a, formats::e4m3fn, a);
  EXPECT_EQ(val(blk.code), 256.0f * 16384.0f);
  // per-block scales multiply each promoted partial: 2 blocks, scales 0.5 and 2 on A, 1 on B
  const std::uint64_t sa[2] = {f32(0.5f), f32(2.0f)}, sb[2] = {f32(1.0f), f32(1.0f)};
  const RoundResult scaled = dot(parse_dot_model("blocked128"), formats::e4m3fn, a, formats::e4m3fn, a, 0, sa, sb);
  EXPECT_EQ(val(scaled.code), 128.0f * 16384.0f * 2.5f);
  EXPECT_THROW(parse_dot_model("blocked0"), NameError);
  EXPECT_THROW(parse_dot_model("nope"), NameError);
  EXPECT_EQ(parse_dot_model("ada-fp8+blocked64").block, 64);
}

}  // namespace
}  // namespace minifloat_test
