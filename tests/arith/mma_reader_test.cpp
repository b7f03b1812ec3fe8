// SPDX-License-Identifier: Apache-2.0
// mma_reader_test.cpp: the MMA vector-file reader of the library (minifloat/mma_vectors.hpp) and
// `minifloat mma-check` on malformed folders: every bad row is named by file and line (issue 9
// item 10: "mma-check names the file and line of a short row"); print → parse round trip.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "minifloat/mma_vectors.hpp"

#ifndef MINIFLOAT_CLI
#define MINIFLOAT_CLI "minifloat"
#endif

namespace minifloat_test {
namespace {

using namespace minifloat;
namespace fs = std::filesystem;

// e4m3fn values as FP32 hex words: 1, -0.5, 448, 2^-9 and 2, 0.25, -1, 0
const std::string kRow1 = "3f800000 bf000000 43e00000 3b000000";
const std::string kRow2 = "40000000 3e800000 bf800000 00000000";
const std::string kZero = "00000000000000000000000000000000";
const std::string kOne = "00111111100000000000000000000000";

std::string error_of(const MmaVectorTexts& t) {
  try {
    (void)parse_mma_vectors(t, formats::e4m3fn);
  } catch (const ParseError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  ADD_FAILURE() << "accepted";
  return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(MmaReader, ReadsRowsAndCountsBlankLines) {
  const std::string a = kRow1 + "\r\n\r\n" + kRow2 + "\r\n", b = kRow2 + "\n" + kRow1 + "\n";
  const std::string c = kZero + "\n" + kOne + "\n", d = kOne + "\n" + kZero;
  const MmaVectors v = parse_mma_vectors({a, b, c, d, "a_x.txt", "b_x.txt", "c_x.txt", "d_x_fp32.txt"}, formats::e4m3fn);
  EXPECT_EQ(v.k, 4u);
  ASSERT_EQ(v.a.size(), 8u);
  // e4m3fn codes: 1.0 = 0x38, −0.5 = 0xb0, 448 = 0x7e, 2^−9 = 0x01 (OCP OFP8 Table 1)
  EXPECT_EQ(v.a[0], 0x38u);
  EXPECT_EQ(v.a[1], 0xb0u);
  EXPECT_EQ(v.a[2], 0x7eu);
  EXPECT_EQ(v.a[3], 0x01u);
  EXPECT_EQ(v.c, (std::vector<std::uint64_t>{0, 0x3f800000}));
  // printed back, the files parse to the same rows
  const MmaVectorFiles f = print_mma_vectors(v);
  EXPECT_EQ(f.a, kRow1 + "\n" + kRow2 + "\n");
  const MmaVectors w = parse_mma_vectors({f.a, f.b, f.c, f.d}, formats::e4m3fn);
  EXPECT_EQ(w.a, v.a);
  EXPECT_EQ(w.b, v.b);
  EXPECT_EQ(w.d, v.d);
}

TEST(MmaReader, AShortRowNamesItsFileAndLine) {
  const std::string shorter = kRow2.substr(0, kRow2.rfind(' '));
  // line 3 of b (line 2 is blank) holds 3 elements
  std::string m = error_of({kRow1 + "\n" + kRow2 + "\n", kRow2 + "\n\n" + shorter + "\n", kZero + "\n" + kZero + "\n",
                            kZero + "\n" + kZero + "\n", "a_x.txt", "b_x.txt", "c_x.txt", "d_x_fp32.txt"});
  EXPECT_TRUE(has(m, "b_x.txt line 3: 3 elements, expected 4 (as on line 1 of a_x.txt)")) << m;
  // a short first row: the next row is named, with the line k was taken from
  m = error_of({shorter + "\n" + kRow1 + "\n", kRow2 + "\n", kZero + "\n", kZero + "\n", "a_x.txt", "b", "c", "d"});
  EXPECT_TRUE(has(m, "a_x.txt line 2: 4 elements, expected 3 (as on line 1 of a_x.txt)")) << m;
  // a short c row (31 binary digits)
  m = error_of({kRow1 + "\n", kRow1 + "\n", kZero.substr(1) + "\n", kZero + "\n", "a", "b", "c_x.txt", "d"});
  EXPECT_TRUE(has(m, "c_x.txt line 1: expected one 32-character binary string")) << m;
}

TEST(MmaReader, MissingRowsNameTheShortFile) {
  const std::string m = error_of({kRow1 + "\n" + kRow2 + "\n", kRow2 + "\n" + kRow1 + "\n", kZero + "\n" + kZero + "\n",
                                  kZero + "\n", "a_x.txt", "b_x.txt", "c_x.txt", "d_x_fp32.txt"});
  EXPECT_TRUE(has(m, "d_x_fp32.txt has 1 row (the last on line 1) but a_x.txt has 2")) << m;
}

TEST(MmaReader, WordsMustBeExactElementValues) {
  std::string m = error_of({"3f800001\n", "3f800000\n", kZero + "\n", kZero + "\n", "a_x.txt", "b", "c", "d"});
  EXPECT_TRUE(has(m, "a_x.txt line 1: 3f800001 (1.0000001192092896) is not exactly a e4m3fn value")) << m;
  m = error_of({"3f80000\n", "3f800000\n", kZero + "\n", kZero + "\n", "a_x.txt", "b", "c", "d"});
  EXPECT_TRUE(has(m, "a_x.txt line 1: '3f80000' is not an FP32 hex word (8 hex digits)")) << m;
}

// Through the tool: exit status 2 and one line on stderr naming the file and the line.
TEST(MmaReader, MmaCheckNamesTheFileAndLineOfAShortRow) {
  const fs::path dir = fs::temp_directory_path() / ("minifloat_mma_reader_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string a, b, c, d;
  for (int r = 0; r < 3; ++r) {
    a += kRow1 + "\n";
    b += (r == 2 ? kRow2.substr(0, kRow2.rfind(' ')) : kRow2) + "\n";
    c += kZero + "\n";
    d += kZero + "\n";
  }
  for (const auto& [name, text] : {std::pair{"a_T_E4M3.txt", a}, {"b_T_E4M3.txt", b}, {"c_T_fp32.txt", c}, {"d_T_fp32.txt", d}})
    std::ofstream(dir / name) << text;
  const std::string cmd = std::string(MINIFLOAT_CLI) + " mma-check --model hopper-fp8 --dir " + dir.string() + " 2>&1 >/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string err;
  char buf[4096];
  while (std::size_t k = std::fread(buf, 1, sizeof buf, p)) err.append(buf, k);
  const int st = pclose(p);
  EXPECT_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 2) << err;
  EXPECT_TRUE(has(err, (dir / "b_T_E4M3.txt").string() + " line 3: 3 elements, expected 4")) << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << "one line: " << err;
  fs::remove_all(dir);
}

}  // namespace minifloat_test
