// SPDX-License-Identifier: Apache-2.0
// dot_cli_test.cpp: `minifloat dot` with mixed operand formats (--format-b), one C per result
// (--c FILE.npy) and --operand-round, through the CLI binary: block-scaled and unscaled tcgen05
// presets against the MPFR oracle of tfdpa_oracle.cpp (it shares no code with core/tfdpa.hpp or
// the CLI), hand-derived small cases (the arithmetic in each comment), and the refusals.
// The .npy inputs are written by a header writer of this file (numpy format 1.0), not the library.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "minifloat/core/tfdpa.hpp"
#include "tfdpa_oracle.hpp"

#ifndef MINIFLOAT_CLI
#define MINIFLOAT_CLI "minifloat"
#endif

namespace minifloat_test {
namespace {

namespace fs = std::filesystem;
namespace ao = arith_oracle;
using namespace minifloat;

struct Cli {
  int rc;
  std::string out;  ///< stdout and stderr
};

Cli run(const std::string& args) {
  const std::string cmd = std::string(MINIFLOAT_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  const int status = p == nullptr ? -1 : pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// A .npy file (format 1.0) of `descr` and `shape` holding `count` little-endian items of `size` bytes.
void write_npy(const fs::path& path, const std::string& descr, const std::vector<std::size_t>& shape,
               const std::vector<std::uint64_t>& items, std::size_t size) {
  std::string sh;
  for (const std::size_t d : shape) sh += std::to_string(d) + ", ";
  if (shape.size() > 1) sh.resize(sh.size() - 2);
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + sh + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  f.write(len, 2);
  f << header;
  for (const std::uint64_t v : items)
    for (std::size_t j = 0; j < size; ++j) f.put(static_cast<char>((v >> (8 * j)) & 0xff));
}

/// The hex codes of `dot`'s result lines (`i j 0xBITS value`, or `0xBITS value` for two vectors).
std::vector<std::uint64_t> result_codes(const std::string& out) {
  std::vector<std::uint64_t> codes;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    const auto x = line.find("0x");
    if (x == std::string::npos) continue;
    codes.push_back(std::stoull(line.substr(x + 2, line.find(' ', x) - x - 2), nullptr, 16));
  }
  return codes;
}

class DotCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / ("mf_dot_cli_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                     "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

 public:
  std::string at(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

struct Elem {
  const char* name;
  int bits;
  ao::BsFormat o;
};
constexpr Elem kE4m3{"e4m3fn", 8, ao::BsFormat::e4m3fn}, kE5m2{"e5m2", 8, ao::BsFormat::e5m2},
    kE2m1{"e2m1fn", 4, ao::BsFormat::e2m1fn};

/// A random finite code (no e4m3fn NaN 0x7f/0xff, no e5m2 exponent field 31).
std::uint64_t elem_code(const Elem& e, std::mt19937_64& rng) {
  for (;;) {
    const std::uint64_t c = rng() & ((std::uint64_t{1} << e.bits) - 1);
    if (e.o == ao::BsFormat::e4m3fn && (c & 0x7f) == 0x7f) continue;
    if (e.o == ao::BsFormat::e5m2 && ((c >> 2) & 0x1f) == 0x1f) continue;
    return c;
  }
}

/// A random FP32 C: zero (1 in 8) or ±2^e·(1 + frac), e in [−12, 12].
std::uint64_t c_code(std::mt19937_64& rng) {
  if (rng() % 8 == 0) return 0;
  const auto e = static_cast<std::uint64_t>(static_cast<int>(rng() % 25) - 12 + 127);
  return ((rng() & 1) << 31) | (e << 23) | (rng() & 0x7fffff);
}

/// m×k A codes of `ea` (--format), k×n B codes of `eb` (--format-b), an m×n f32 C (.npy) and, for a
/// block-scaled preset, UE8M0 scales; every result against the oracle's chained group rule.
void check_mixed(const DotCli& t, const TfdpaModel& model, const Elem& ea, const Elem& eb, std::size_t m, std::size_t n,
                 std::size_t k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const bool scaled = model.scale.application != BlockScaleApplication::none;
  const std::size_t sblock = scaled ? static_cast<std::size_t>(model.scale.block) : 32, nb = (k + sblock - 1) / sblock;
  std::vector<std::uint64_t> A(m * k), B(k * n), C(m * n), SA(m * nb, 127), SB(nb * n, 127);
  for (auto& x : A) x = elem_code(ea, rng);
  for (auto& x : B) x = elem_code(eb, rng);
  for (auto& x : C) x = c_code(rng);
  if (scaled) {  // UE8M0 around 2^0: 2^-6 .. 2^6
    for (auto& x : SA) x = 121 + rng() % 13;
    for (auto& x : SB) x = 121 + rng() % 13;
  }
  write_npy(t.at("a.npy"), "|u1", {m, k}, A, 1);
  write_npy(t.at("b.npy"), "|u1", {k, n}, B, 1);
  write_npy(t.at("c.npy"), "<f4", {m, n}, C, 4);
  std::string args = std::string("dot --model ") + model.name + " --format " + ea.name + " --format-b " + eb.name +
                     " --a " + t.at("a.npy") + " --b " + t.at("b.npy") + " --c " + t.at("c.npy");
  if (scaled) {
    write_npy(t.at("sa.npy"), "|u1", {m, nb}, SA, 1);
    write_npy(t.at("sb.npy"), "|u1", {nb, n}, SB, 1);
    args += " --scale-a " + t.at("sa.npy") + " --scale-b " + t.at("sb.npy");
  }
  const Cli r = run(args);
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::vector<std::uint64_t> got = result_codes(r.out);
  ASSERT_EQ(got.size(), m * n) << r.out;
  // The oracle's rule for unscaled presets is the per-product rule with unit (2^0) scales.
  const ao::BsModel om{model.scale.application == BlockScaleApplication::subblock_sum ? ao::BsRule::per_subblock
                                                                                      : ao::BsRule::per_product,
                       model.group,
                       model.frac_bits,
                       model.zero_exponent,
                       static_cast<int>(sblock),
                       model.scale.subblock,
                       ao::BsFormat::e8m0fnu};
  int fails = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<std::uint64_t> a(A.begin() + static_cast<std::ptrdiff_t>(i * k),
                                   A.begin() + static_cast<std::ptrdiff_t>((i + 1) * k)),
          b(k),
          sa(SA.begin() + static_cast<std::ptrdiff_t>(i * nb), SA.begin() + static_cast<std::ptrdiff_t>((i + 1) * nb)),
          sb(nb);
      for (std::size_t p = 0; p < k; ++p) b[p] = B[p * n + j];
      for (std::size_t p = 0; p < nb; ++p) sb[p] = SB[p * n + j];
      const std::uint32_t want =
          ao::block_scaled_dot(om, ea.o, a, eb.o, b, sa, sb, static_cast<std::uint32_t>(C[i * n + j]));
      if (got[i * n + j] != want && ++fails <= 5)
        ADD_FAILURE() << model.name << " " << ea.name << " x " << eb.name << " [" << i << " " << j << "]: CLI 0x"
                      << std::hex << got[i * n + j] << ", oracle 0x" << want;
    }
  EXPECT_EQ(fails, 0);
}

TEST_F(DotCli, MixedFp8WithPerElementCMatchesMpfrOracle) {
  // e4m3fn x e5m2 (an FP8 backward pass) on the unscaled tcgen05 FP8 preset, one C per result.
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    check_mixed(*this, mma_models::blackwell_tcgen05_fp8_unvalidated, kE4m3, kE5m2, 4, 3, 64, seed);
  check_mixed(*this, mma_models::blackwell_tcgen05_fp8_unvalidated, kE5m2, kE4m3, 3, 5, 96, 4);
}

TEST_F(DotCli, Mxf8f6f4MixedFormatsScalesAndPerElementCMatchMpfrOracle) {
  const TfdpaModel& m = mma_models::blackwell_tcgen05_mxf8f6f4_unvalidated;
  check_mixed(*this, m, kE2m1, kE4m3, 3, 4, 64, 11);
  check_mixed(*this, m, kE4m3, kE5m2, 4, 2, 96, 12);
  check_mixed(*this, m, kE5m2, kE2m1, 2, 3, 32, 13);
}

// Hand-derived: exact model, A e4m3fn [[1.5, 2], [1, -1]] (codes 0x3c 0x40 0x38 0xb8: 1.5 = 1.1b·2^0 →
// exponent field 7, mantissa 100b), B e5m2 [[0.5], [3]] (0x38 = 2^-1, 0x42 = 1.1b·2^1), C f32 [[0.25], [1]]:
// d0 = 1.5·0.5 + 2·3 + 0.25 = 0.75 + 6 + 0.25 = 7 → 0x40e00000; d1 = 0.5 − 3 + 1 = −1.5 → 0xbfc00000.
TEST_F(DotCli, HandDerivedMixedFormatsAndPerElementC) {
  write_npy(at("a.npy"), "|u1", {2, 2}, {0x3c, 0x40, 0x38, 0xb8}, 1);
  write_npy(at("b.npy"), "|u1", {2, 1}, {0x38, 0x42}, 1);
  write_npy(at("c.npy"), "<f4", {2, 1}, {0x3e800000, 0x3f800000}, 4);
  const std::string ab = " --a " + at("a.npy") + " --b " + at("b.npy");
  Cli r = run("dot --model exact --format e4m3fn --format-b e5m2" + ab + " --c " + at("c.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(result_codes(r.out), (std::vector<std::uint64_t>{0x40e00000, 0xbfc00000})) << r.out;
  // Without --format-b, --b's codes are read as e4m3fn: 0x38 = 1, 0x42 = 2.5 (0 1000 010b: exponent
  // 8 − 7 = 1, significand 1.25): d0 = 1.5·1 + 2·2.5 + 0.25 = 6.75 = 1.1011b·2^2 → 0x40d80000;
  // d1 = 1·1 − 1·2.5 + 1 = −0.5 → 0xbf000000.
  r = run("dot --model exact --format e4m3fn" + ab + " --c " + at("c.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(result_codes(r.out), (std::vector<std::uint64_t>{0x40d80000, 0xbf000000})) << r.out;
  // hopper-fp8 (one group of L = 32 lanes, F = 13, e8m13 out): d0's terms 0.75, 6 and C = 0.25 align
  // to E = 2 with quantum 2^(2−13): all exact, so 7 again; d1 = −1.5 likewise.
  r = run("dot --model hopper-fp8 --format e4m3fn --format-b e5m2" + ab + " --c " + at("c.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(result_codes(r.out), (std::vector<std::uint64_t>{0x40e00000, 0xbfc00000})) << r.out;
}

// An FP16-destination preset takes C as f16 (<f2): A e4m3fn [1] (0x38), B e5m2 [2] (0x40: exponent
// 16 − 15 = 1), C f16 1.5 (0x3e00): d = 2 + 1.5 = 3.5 = 1.11b·2^1 → f16 0x4300. FP64 DMMA takes an f64 C
// whole: a = 2^-40, b = 1, C = 1 + 2^-40 (0x3ff0000000001000): d = 1 + 2^-39 = 0x3ff0000000002000, where
// the scalar --c (rounded once to f32: 1) gives 1 + 2^-40 = 0x3ff0000000001000.
TEST_F(DotCli, CInTheAccumulatorsFormat) {
  write_npy(at("a.npy"), "|u1", {1, 1}, {0x38}, 1);
  write_npy(at("b.npy"), "|u1", {1, 1}, {0x40}, 1);
  write_npy(at("c16.npy"), "<f2", {1, 1}, {0x3e00}, 2);
  Cli r = run("dot --model hopper-fp8-f16-unvalidated --format e4m3fn --format-b e5m2 --a " + at("a.npy") + " --b " +
              at("b.npy") + " --c " + at("c16.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(result_codes(r.out), (std::vector<std::uint64_t>{0x4300})) << r.out;
  write_npy(at("a64.npy"), "<f8", {1, 1}, {0x3d70000000000000}, 8);  // 2^-40: exponent field 1023 − 40 = 983
  write_npy(at("b64.npy"), "<f8", {1, 1}, {0x3ff0000000000000}, 8);
  write_npy(at("c64.npy"), "<f8", {1, 1}, {0x3ff0000000001000}, 8);
  const std::string ab = " --a " + at("a64.npy") + " --b " + at("b64.npy");
  r = run("dot --model dmma-f64-unvalidated" + ab + " --c " + at("c64.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(result_codes(r.out), (std::vector<std::uint64_t>{0x3ff0000000002000})) << r.out;
  r = run("dot --model dmma-f64-unvalidated" + ab + " --c 0x1.0000000001p0");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(result_codes(r.out), (std::vector<std::uint64_t>{0x3ff0000000001000})) << r.out;
}

// --operand-round on f32 inputs into tf32 (19-bit codes = the f32 code's top 19 bits), each times 1
// under the exact model (d = the operand's value, as an f32 code):
//   Inf 0x7f800000:    satfinite → max 0x7f7fe000; cvt (cvt.rna.tf32.f32 keeps Inf) → Inf; truncate → Inf
//   0x3f801fff:        low 13 bits 0x1fff > half 0x1000: satfinite, cvt → 0x3f802000; truncate → 0x3f800000
//   0x3f801000 (tie):  satfinite (rne, kept bit 0 even) → 0x3f800000; cvt (ties away) → 0x3f802000; truncate
//                      → 0x3f800000
//   0x7f7fffff (max f32): satfinite → 0x7f7fe000; cvt rounds up past max → Inf; truncate → 0x7f7fe000
//   NaN 0x7fc00000:    every choice → a NaN (0x7fc00000); NaN 0x7f800001 (payload in the low 13 bits
//                      only): truncate → 0x7f800000 = Inf, the bits a tf32 mma reads from that register
TEST_F(DotCli, OperandRoundHandDerivedBits) {
  write_npy(at("a.npy"), "<f4", {6, 1}, {0x7f800000, 0x3f801fff, 0x3f801000, 0x7f7fffff, 0x7fc00000, 0x7f800001}, 4);
  write_npy(at("one.npy"), "<f4", {1, 1}, {0x3f800000}, 4);
  const std::string base = "dot --model exact --format tf32 --a " + at("a.npy") + " --b " + at("one.npy");
  const auto codes = [&](const std::string& extra) {
    const Cli r = run(base + extra);
    EXPECT_EQ(r.rc, 0) << r.out;
    return result_codes(r.out);
  };
  using V = std::vector<std::uint64_t>;
  const V satfinite{0x7f7fe000, 0x3f802000, 0x3f800000, 0x7f7fe000, 0x7fc00000, 0x7fc00000};
  EXPECT_EQ(codes(""), satfinite);  // the default is today's rounding
  EXPECT_EQ(codes(" --operand-round satfinite"), satfinite);
  EXPECT_EQ(codes(" --operand-round cvt"), (V{0x7f800000, 0x3f802000, 0x3f802000, 0x7f800000, 0x7fc00000, 0x7fc00000}));
  EXPECT_EQ(codes(" --operand-round truncate"),
            (V{0x7f800000, 0x3f800000, 0x3f800000, 0x7f7fe000, 0x7fc00000, 0x7f800000}));
  // the same through a tf32 preset (one product times 1, C = +0: exact; NaN is the preset's 0x7fffffff)
  const Cli r =
      run("dot --model ampere-tf32 --format tf32 --operand-round cvt --a " + at("a.npy") + " --b " + at("one.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(result_codes(r.out), (V{0x7f800000, 0x3f802000, 0x3f802000, 0x7f800000, 0x7fffffff, 0x7fffffff}));
}

TEST_F(DotCli, RefusalsNameWhatWasGivenAndWhatIsAccepted) {
  write_npy(at("a.npy"), "|u1", {2, 2}, {0x3c, 0x40, 0x38, 0xb8}, 1);
  write_npy(at("b.npy"), "|u1", {2, 1}, {0x38, 0x42}, 1);
  write_npy(at("c64.npy"), "<f8", {2, 1}, {0, 0}, 8);
  write_npy(at("c13.npy"), "<f4", {1, 3}, {0, 0, 0}, 4);
  write_npy(at("f64.npy"), "<f8", {2, 1}, {0, 0}, 8);
  const std::string ab = " --a " + at("a.npy") + " --b " + at("b.npy");
  const auto refused = [&](const std::string& args, const std::string& what) {
    const Cli r = run("dot " + args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(what), std::string::npos) << args << "\n" << r.out;
  };
  refused("--model hopper-fp8 --format e4m3fn --format-b e5m2" + ab + " --c " + at("c64.npy"),
          "has dtype <f8 and shape (2, 1); accepted for --model hopper-fp8: dtype <f4");
  refused("--model hopper-fp8-f16-unvalidated --format e4m3fn" + ab + " --c " + at("c13.npy"),
          "has dtype <f4 and shape (1, 3); accepted for --model hopper-fp8-f16-unvalidated: dtype <f2 (f16, its "
          "accumulator) and shape (2, 1)");
  refused("--model hopper-fp8 --format e4m3fn --format-b fp7" + ab, "--format-b: unknown format 'fp7'");
  refused("--model hopper-fp8 --format e4m3fn --format-b f16" + ab,
          "holds 1-byte codes (|u1), but --format-b f16 has 16-bit codes");
  write_npy(at("bf.npy"), "<f4", {2, 1}, {0x3f800000, 0x40000000}, 4);
  refused("--model hopper-fp8 --format e4m3fn --format-b f16 --a " + at("a.npy") + " --b " + at("bf.npy"),
          "not the f16 of --format-b f16; pass --format-b e4m3fn");
  refused("--model hopper-fp8 --format e4m3fn --operand-round nearest" + ab,
          "--operand-round: unknown operand rounding 'nearest'; accepted: satfinite, cvt, truncate");
  refused("--model exact --format e4m3fn --operand-round truncate --a " + at("f64.npy") + " --b " + at("f64.npy"),
          "takes f32, f16 or bf16 values, not f64");
  write_npy(at("f32.npy"), "<f4", {2, 1}, {0, 0}, 4);
  refused("--model exact --format e4m3fn --operand-round truncate --a " + at("f32.npy") + " --b " + at("f32.npy"),
          "truncate is defined for tf32 operands only");
  refused("--model exact --format e4m3fnuz --operand-round cvt --a " + at("f32.npy") + " --b " + at("f32.npy"),
          "cvt is defined for the PTX cvt destinations tf32 f16 bf16 e4m3fn e5m2 e2m3fn e3m2fn e2m1fn, not e4m3fnuz");
}

// Issue 26 item 6 through the CLI: cdna3-fp8-unvalidated (L = 16, two_stage_odd_even, F = 24) on e4m3fnuz
// codes A [16, −2^-10] (0x60, 0x81), B [16, 2^-10] (0x60, 0x01): the even lane gives 256 at e = 8, the odd
// lane −2^-20 exactly; floored to 24 bits of 2^8 it is −2^-16 → 256 − 2^-16 = 0x437fffff (MMA-Sim
// arithmetic.py:261-273; presets_amd_test.cpp). The FNUZ preset refuses e4m3fn operands by name.
TEST_F(DotCli, AmdCdna3Fp8Preset) {
  write_npy(at("a.npy"), "|u1", {1, 2}, {0x60, 0x81}, 1);
  write_npy(at("b.npy"), "|u1", {2, 1}, {0x60, 0x01}, 1);
  const std::string ab = " --a " + at("a.npy") + " --b " + at("b.npy");
  Cli r = run("dot --model cdna3-fp8-unvalidated --format e4m3fnuz" + ab);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(result_codes(r.out), (std::vector<std::uint64_t>{0x437fffff})) << r.out;
  r = run("dot --model cdna3-fp8-unvalidated --format e4m3fn" + ab);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("multiplies e4m3fnuz or e5m2fnuz operands only, not the e4m3fn"), std::string::npos) << r.out;
}

// The library door under the CLI: dot()/gemm() take C as f32 or as the accumulator's format and refuse
// any other (an f16 C for an f32 accumulator would otherwise be read as f32 bits); the exact kind takes
// any C format (its one rounding is from the exact sum). round_operands' refusals as the CLI shows them.
TEST_F(DotCli, LibraryTakesCInF32OrTheAccumulatorsFormat) {
  const std::vector<std::uint64_t> a{0x3c00}, b{0x3c00};  // f16 1 · 1
  const DotModel fp32 = parse_dot_model("fp32"), exact = parse_dot_model("exact");
  EXPECT_THROW((void)dot(fp32, formats::f16, a, formats::f16, b, 0x3e00, {}, {}, formats::f16), Error);
  // exact: 1 + f16 1.5 (0x3e00) = 2.5 → 0x40200000
  EXPECT_EQ(dot(exact, formats::f16, a, formats::f16, b, 0x3e00, {}, {}, formats::f16).code, 0x40200000u);
  // the default fc is f32: 1 + 1.5 (0x3fc00000) = 2.5
  EXPECT_EQ(dot(fp32, formats::f16, a, formats::f16, b, 0x3fc00000).code, 0x40200000u);
  const std::vector<std::uint64_t> inf{0x7f800000};
  EXPECT_EQ(round_operands(formats::f32, inf, formats::tf32, OperandRound::cvt), std::vector<std::uint64_t>{0x3fc00});
  EXPECT_EQ(round_operands(formats::f32, inf, formats::tf32, OperandRound::satfinite),
            std::vector<std::uint64_t>{0x3fbff});  // 0x7f7fe000 >> 13
  EXPECT_THROW((void)round_operands(formats::f32, inf, formats::f16, OperandRound::truncate), Error);
}

}  // namespace
}  // namespace minifloat_test
