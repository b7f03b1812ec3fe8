// SPDX-License-Identifier: Apache-2.0
// ml_dtypes_test.cpp: differential test of convert() under profiles::ml_dtypes against ml_dtypes 0.6
// (PyPI, NumPy casts) golden files written by ml_dtypes_golden.py (oracle: ml_dtypes, no shared code).
//
// Nothing is tolerated. ml_dtypes 0.6.0 sends a float32 *subnormal* x with 2^-127 < x < 1.5·2^-127 to
// float8_e8m0fnu 0x01 (2^-126), although round-to-nearest gives 0x00 (2^-127) — e.g. bf16 0x0041
// (= 2^-127·(1 + 2^-6)); the ml_dtypes profile models it (Profile::e8m0_subnormal = up), and
// AllBf16Inputs counts those inputs and requires that some are exercised.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/format.hpp"
#include "minifloat/core/profile.hpp"
#include "minifloat/core/rounding.hpp"

#ifndef MINIFLOAT_ML_DTYPES_DIR
#error "MINIFLOAT_ML_DTYPES_DIR must name the folder ml_dtypes_golden.py writes"
#endif

namespace minifloat_test {
namespace {

using minifloat::Format;
namespace formats = minifloat::formats;

/// ml_dtypes type name -> our format.
const std::map<std::string, Format>& type_map() {
  static const std::map<std::string, Format> m{
      {"float8_e4m3fn", formats::e4m3fn},       {"float8_e5m2", formats::e5m2},
      {"float8_e4m3fnuz", formats::e4m3fnuz},   {"float8_e5m2fnuz", formats::e5m2fnuz},
      {"float8_e4m3b11fnuz", formats::e4m3b11fnuz}, {"float8_e4m3", formats::e4m3},
      {"float8_e3m4", formats::e3m4},           {"float6_e2m3fn", formats::e2m3fn},
      {"float6_e3m2fn", formats::e3m2fn},       {"float4_e2m1fn", formats::e2m1fn},
      {"float8_e8m0fnu", formats::e8m0fnu},
  };
  return m;
}

struct Golden {
  std::string header;                 ///< "ml_dtypes X numpy Y", or "unavailable: …"
  std::vector<std::string> names;     ///< types written
  std::map<std::string, int> bits;    ///< code width per type
  std::map<std::string, std::size_t> n_f64;
};

std::string dir() { return MINIFLOAT_ML_DTYPES_DIR; }

std::vector<unsigned char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Loads the manifest; GTEST_SKIPs (with the reason) when the golden data are unavailable.
#define LOAD_GOLDEN_OR_SKIP(g)                                                                       \
  Golden g;                                                                                          \
  do {                                                                                               \
    std::ifstream man(dir() + "/manifest.txt");                                                      \
    if (!man)                                                                                        \
      GTEST_SKIP() << "no ml_dtypes golden data: " << dir()                                          \
                   << "/manifest.txt is missing (the ml_dtypes_golden fixture did not run: "        \
                      "is MINIFLOAT_PYTHON set to a Python with numpy + ml_dtypes?)";               \
    std::getline(man, g.header);                                                                     \
    if (g.header.rfind("unavailable:", 0) == 0) GTEST_SKIP() << "ml_dtypes " << g.header;           \
    std::string line;                                                                                \
    while (std::getline(man, line)) {                                                                \
      std::istringstream ls(line);                                                                   \
      std::string name;                                                                              \
      int b = 0;                                                                                     \
      std::size_t n = 0;                                                                             \
      if (ls >> name >> b >> n) {                                                                    \
        g.names.push_back(name);                                                                     \
        g.bits[name] = b;                                                                            \
        g.n_f64[name] = n;                                                                           \
      }                                                                                              \
    }                                                                                                \
    if (g.names.empty()) GTEST_SKIP() << "ml_dtypes golden manifest lists no type";                 \
  } while (0)

std::string hex(std::uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

constexpr minifloat::RoundingSpec kSpec{minifloat::Rounding::rne, minifloat::Overflow::nonsat};

/// Whether `x` (the float32 value ml_dtypes converts) lies where Profile::e8m0_subnormal decides.
bool e8m0_subnormal_range(Format to, float x) {
  return to == formats::e8m0fnu && x > std::ldexp(1.0f, -127) && x < std::ldexp(1.5f, -127);
}

float f32_of_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

/// Every f16 (or bf16) bit pattern cast by ml_dtypes vs convert(src, bits, T, rne+nonsat, ml_dtypes).
void compare_casts(const Golden& g, Format src, const char* src_name) {
  for (const auto& name : g.names) {
    const auto it = type_map().find(name);
    ASSERT_NE(it, type_map().end()) << "unknown ml_dtypes type in manifest: " << name;
    const Format to = it->second;
    const auto want = read_all(dir() + "/" + name + ".from_" + src_name + ".u8");
    ASSERT_EQ(want.size(), 65536u) << name << ".from_" << src_name << ".u8";
    int bad = 0, quirk = 0;
    for (std::uint32_t x = 0; x < 65536; ++x) {
      const std::uint64_t ours = minifloat::convert(src, x, to, kSpec, minifloat::profiles::ml_dtypes).code;
      // Only bf16 reaches the e8m0_subnormal range (f16's smallest value is 2^-24).
      if (src == formats::bf16 && e8m0_subnormal_range(to, f32_of_bits(x << 16)) && want[x] == 0x01) ++quirk;
      if (ours == want[x]) continue;
      if (++bad <= 16)
        ADD_FAILURE() << name << " from " << src_name << " " << hex(x, 4) << ": ml_dtypes " << hex(want[x], 2)
                      << ", ours " << hex(ours, 2);
    }
    EXPECT_EQ(bad, 0) << name << " from " << src_name << ": " << bad << " of 65536 mismatches";
    std::printf("  %-20s from %-4s: %d mismatches / 65536%s\n", name.c_str(), src_name, bad,
                quirk ? (", " + std::to_string(quirk) + " inputs in the e8m0_subnormal range").c_str() : "");
    if (src == formats::bf16 && to == formats::e8m0fnu) {
      EXPECT_GT(quirk, 0) << "no input exercised e8m0_subnormal";
    }
  }
}

TEST(MlDtypesOracle, AllF16Inputs) {
  LOAD_GOLDEN_OR_SKIP(g);
  std::printf("oracle: %s\n", g.header.c_str());
  compare_casts(g, formats::f16, "f16");
}

TEST(MlDtypesOracle, AllBf16Inputs) {
  LOAD_GOLDEN_OR_SKIP(g);
  std::printf("oracle: %s\n", g.header.c_str());
  compare_casts(g, formats::bf16, "bf16");
}

/// Every code decoded to float32 (exact; NaN codes included, compared bit for bit).
TEST(MlDtypesOracle, DecodeEveryCodeToF32) {
  LOAD_GOLDEN_OR_SKIP(g);
  for (const auto& name : g.names) {
    const Format from = type_map().at(name);
    const auto raw = read_all(dir() + "/" + name + ".decode.u32");
    const std::size_t n = std::size_t{1} << g.bits[name];
    ASSERT_EQ(raw.size(), 4 * n) << name << ".decode.u32";
    int bad = 0;
    for (std::size_t c = 0; c < n; ++c) {
      const std::uint32_t want = static_cast<std::uint32_t>(raw[4 * c]) | static_cast<std::uint32_t>(raw[4 * c + 1]) << 8 |
                                 static_cast<std::uint32_t>(raw[4 * c + 2]) << 16 |
                                 static_cast<std::uint32_t>(raw[4 * c + 3]) << 24;
      const std::uint64_t ours =
          minifloat::convert(from, c, formats::f32, kSpec, minifloat::profiles::ml_dtypes).code;
      if (ours != want && ++bad <= 16)
        ADD_FAILURE() << name << " code " << hex(c, 2) << " -> f32: ml_dtypes " << hex(want, 8) << ", ours "
                      << hex(ours, 8);
    }
    EXPECT_EQ(bad, 0) << name;
    std::printf("  %-20s decode: %d mismatches / %zu\n", name.c_str(), bad, n);
  }
}

/// D11: NumPy float64 arrays cast through float32 (double rounding); ours models it with
/// Profile::source_via_f32. Also counts the inputs where single rounding would differ, so the
/// test proves it exercises D11.
TEST(MlDtypesOracle, Float64ArraysGoThroughF32_D11) {
  LOAD_GOLDEN_OR_SKIP(g);
  minifloat::Profile direct = minifloat::profiles::ml_dtypes;
  direct.source_via_f32 = false;
  ASSERT_TRUE(minifloat::profiles::ml_dtypes.source_via_f32) << "the ml_dtypes profile must model D11";
  std::size_t total_double_rounding = 0;
  for (const auto& name : g.names) {
    const Format to = type_map().at(name);
    const auto in = read_all(dir() + "/" + name + ".f64_in.f64");
    const auto want = read_all(dir() + "/" + name + ".from_f64.u8");
    const std::size_t n = g.n_f64[name];
    ASSERT_EQ(in.size(), 8 * n) << name;
    ASSERT_EQ(want.size(), n) << name;
    int bad = 0, quirk = 0;
    std::size_t differs_from_direct = 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t bits = 0;
      for (int b = 7; b >= 0; --b) bits = bits << 8 | in[8 * i + static_cast<std::size_t>(b)];
      const std::uint64_t ours = minifloat::convert(formats::f64, bits, to, kSpec, minifloat::profiles::ml_dtypes).code;
      const std::uint64_t once = minifloat::convert(formats::f64, bits, to, kSpec, direct).code;
      if (once != want[i]) ++differs_from_direct;
      double xd;
      std::memcpy(&xd, &bits, sizeof xd);
      if (e8m0_subnormal_range(to, static_cast<float>(xd)) && want[i] == 0x01) ++quirk;
      if (ours == want[i]) continue;
      if (++bad <= 16)
        ADD_FAILURE() << name << " from f64 " << hex(bits, 16) << ": ml_dtypes " << hex(want[i], 2) << ", ours "
                      << hex(ours, 2);
    }
    EXPECT_EQ(bad, 0) << name;
    total_double_rounding += differs_from_direct;
    std::printf("  %-20s from f64: %d mismatches / %zu (single rounding would differ on %zu)%s\n", name.c_str(), bad,
                n, differs_from_direct,
                quirk ? (", " + std::to_string(quirk) + " inputs in the e8m0_subnormal range").c_str() : "");
  }
  EXPECT_GT(total_double_rounding, 0u) << "no input exercised double rounding (D11)";
}

/// Spec-digest T11: double 1.0625 + 2^-40 → e4m3fn: 0x38 via float32 (ml_dtypes NumPy array),
/// 0x39 by single rounding; and the golden file's first input is exactly that value.
TEST(MlDtypesOracle, T11DoubleRoundingLiteral) {
  const double x = 1.0625 + std::ldexp(1.0, -40);
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  minifloat::Profile direct = minifloat::profiles::ml_dtypes;
  direct.source_via_f32 = false;
  EXPECT_EQ(minifloat::convert(formats::f64, bits, formats::e4m3fn, kSpec, minifloat::profiles::ml_dtypes).code, 0x38u);
  EXPECT_EQ(minifloat::convert(formats::f64, bits, formats::e4m3fn, kSpec, direct).code, 0x39u);
  EXPECT_EQ(minifloat::convert(formats::f64, bits, formats::e4m3fn, kSpec, minifloat::profiles::ocp).code, 0x39u);

  LOAD_GOLDEN_OR_SKIP(g);
  if (g.bits.count("float8_e4m3fn") == 0) GTEST_SKIP() << "float8_e4m3fn not in this ml_dtypes";
  const auto in = read_all(dir() + "/float8_e4m3fn.f64_in.f64");
  const auto want = read_all(dir() + "/float8_e4m3fn.from_f64.u8");
  ASSERT_GE(in.size(), 8u);
  ASSERT_GE(want.size(), 1u);
  std::uint64_t first = 0;
  for (int b = 7; b >= 0; --b) first = first << 8 | in[static_cast<std::size_t>(b)];
  ASSERT_EQ(first, bits);
  EXPECT_EQ(want[0], 0x38) << "ml_dtypes itself (spec-digest T11 says 0x38)";
}

}  // namespace
}  // namespace minifloat_test
