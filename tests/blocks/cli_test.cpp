// SPDX-License-Identifier: Apache-2.0
// cli_test.cpp: the quantize / report / compare commands end to end (exit codes, outputs), including
// the must-show: `compare` finds a single flipped bit in a 10^6-element code tensor and names its index.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "minifloat/core/convert.hpp"
#include "cli_run.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/pack.hpp"
#include "minifloat/safetensors.hpp"

namespace minifloat_test {
using namespace minifloat;
namespace fs = std::filesystem;

namespace {
fs::path dir() {
  const fs::path p = fs::temp_directory_path() / ("minifloat_blocks_cli_" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p;
}
using Run = CliRun;
Run run(const std::string& args) { return run_cli(args); }
}  // namespace

TEST(Cli, CompareFindsOneFlippedBitIn1e6Codes) {
  const fs::path d = dir();
  std::vector<std::uint8_t> codes(1000000);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 13);
  write_npy(d / "ref.npy", make_npy_u8({1000, 1000}, codes));
  write_npy(d / "same.npy", make_npy_u8({1000, 1000}, codes));
  const std::size_t where = 654321;
  codes[where] ^= 0x04;
  write_npy(d / "got.npy", make_npy_u8({1000, 1000}, codes));
  auto r = run("compare --ref " + (d / "ref.npy").string() + " --got " + (d / "got.npy").string() + " --format e4m3fn");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("1 of 1000000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("index 654321 (654, 321)"), std::string::npos) << r.out;
  r = run("compare --ref " + (d / "ref.npy").string() + " --got " + (d / "same.npy").string());
  EXPECT_EQ(r.status, 0) << r.out;
  write_npy(d / "short.npy", make_npy_u8({10}, std::vector<std::uint8_t>(10)));
  r = run("compare --ref " + (d / "ref.npy").string() + " --got " + (d / "short.npy").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("shape"), std::string::npos) << r.out;
  r = run("compare --ref " + (d / "ref.npy").string() + " --got " + (d / "missing.npy").string());
  EXPECT_EQ(r.status, 2) << r.out;
}

TEST(Cli, QuantizeMxfp4AndCompareWithItself) {
  const fs::path d = dir();
  std::vector<float> x(64, 0.25f);
  x[0] = 6.0f;
  x[32] = 7.5f;
  write_npy(d / "x.npy", make_npy_f32({2, 32}, x));
  auto r = run("quantize --scheme mxfp4 --in " + (d / "x.npy").string() + " --out-codes " + (d / "c.npy").string() +
               " --out-scales " + (d / "s.npy").string() + " --out-dequant " + (d / "q.npy").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto c = read_npy(d / "c.npy");
  const auto s = read_npy(d / "s.npy");
  const auto q = npy_as_f32(read_npy(d / "q.npy"));
  EXPECT_EQ(c.shape, (std::vector<std::size_t>{2, 32}));
  EXPECT_EQ(std::to_integer<int>(c.data[0]), 0x7);
  EXPECT_EQ(std::to_integer<int>(s.data[0]), 0x7f);
  EXPECT_EQ(q[32], 6.0f);  // T14 ocp_floor
  r = run("quantize --scheme mxfp4 --scale-rule rceil --in " + (d / "x.npy").string() + " --out-codes " +
          (d / "c2.npy").string() + " --out-dequant " + (d / "q2.npy").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(npy_as_f32(read_npy(d / "q2.npy"))[32], 8.0f);  // T14 rceil
  r = run("compare --ref " + (d / "c.npy").string() + " --got " + (d / "c2.npy").string() + " --format e2m1fn");
  EXPECT_EQ(r.status, 1) << r.out;
  r = run("quantize --scheme mxfp4 --packed --in " + (d / "x.npy").string() + " --out-codes " + (d / "p.npy").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto p = read_npy(d / "p.npy");
  ASSERT_EQ(p.data.size(), 32u);
  EXPECT_EQ(std::to_integer<int>(p.data[0]), 0x07);  // element 0 (6 → 0x7) low nibble; element 1: 0.25 ties to 0 (0x0)
  r = run("quantize --scheme mxfp3 --in " + (d / "x.npy").string() + " --out-codes " + (d / "z.npy").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("accepted"), std::string::npos) << r.out;
  r = run("quantize --scheme mxfp4 --zero-block sometimes --in " + (d / "x.npy").string() + " --out-codes " + (d / "z.npy").string());
  EXPECT_EQ(r.status, 2) << r.out;
}

TEST(Cli, ReportOnSafetensors) {
  const fs::path d = dir();
  std::vector<float> w(128 * 64);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 97) - 48) / 17.0f;
  write_safetensors(d / "m.safetensors", {{"a.weight", make_npy_f32({128, 64}, w)}, {"b.bias", make_npy_f32({64}, std::vector<float>(w.begin(), w.begin() + 64))}});
  auto r = run("report --quiet --in " + (d / "m.safetensors").string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* s : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "mxint8", "nvfp4", "fp8_tensor",
                        "fp8_128x128_ue8m0", "SQNR dB"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  r = run("report --quiet --csv --schemes mxfp4,nvfp4 --in " + (d / "m.safetensors").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("ALL,mxfp4,ocp_floor,8256,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a.weight,nvfp4,nvfp4,8192,"), std::string::npos) << r.out;
  std::ofstream(d / "junk.safetensors") << "garbage";
  r = run("report --in " + (d / "junk.safetensors").string());
  EXPECT_EQ(r.status, 2) << r.out;
  r = run("report --schemes mxfp9 --in " + (d / "m.safetensors").string());
  EXPECT_EQ(r.status, 2) << r.out;
}

}  // namespace minifloat_test

namespace minifloat_test {
// `quantize --out-codes X.safetensors` writes codes, scales and the metadata to decode them in one
// file (issue item 6: .safetensors write of codes, scales, metadata). The MXFP4 block of
// spec-digest T14 (amax 7.5) has scale 0x7f and element 0x7 under ocp_floor.
TEST(Cli, QuantizeWritesSafetensorsWithScalesAndMetadata) {
  using namespace minifloat;
  const std::filesystem::path d = std::filesystem::temp_directory_path() / ("minifloat_st_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  std::vector<float> x(32, 1.0f);
  x[0] = 7.5f;
  write_npy(d / "x.npy", make_npy_f32({1, 32}, x));
  const std::string cmd = std::string(BLOCKS_CLI) + " quantize --scheme mxfp4 --in " + (d / "x.npy").string() +
                          " --out-codes " + (d / "q.safetensors").string() + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const SafetensorsFile f = read_safetensors_header(d / "q.safetensors");
  EXPECT_EQ(f.metadata.at("scheme"), "mxfp4");
  EXPECT_EQ(f.metadata.at("scale_rule"), "ocp_floor");
  EXPECT_EQ(f.metadata.at("scale_encoding"), "e8m0fnu");
  const NpyArray codes = read_safetensor(f, "codes"), scales = read_safetensor(f, "scales");
  ASSERT_EQ(scales.data.size(), 1u);
  EXPECT_EQ(static_cast<unsigned>(scales.data[0]), 0x7fu);
  EXPECT_EQ(static_cast<unsigned>(codes.data[0]), 0x7u);  // 7.5 saturates to 6 (T14)
  EXPECT_EQ(static_cast<unsigned>(codes.data[1]), 0x2u);  // 1.0
  // NVFP4's block scales are UE4M3 (NVIDIA PTX ISA .ue4m3; the scheme spec says ue4m3:nvfp4), never
  // "e4m3fn": a reader must not treat bit 7 as a sign.
  const std::string nv = std::string(BLOCKS_CLI) + " quantize --scheme nvfp4 --in " + (d / "x.npy").string() +
                         " --out-codes " + (d / "n.safetensors").string() + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(nv.c_str()), 0);
  const SafetensorsFile n = read_safetensors_header(d / "n.safetensors");
  EXPECT_EQ(n.metadata.at("scale_encoding"), "ue4m3");
  EXPECT_EQ(n.metadata.at("scheme_spec").find("ue4m3:nvfp4") != std::string::npos, true) << n.metadata.at("scheme_spec");
  EXPECT_EQ(n.metadata.count("mx_quirks"), 0u);
  // Issue 25: UE5M3 block scales (auto-round nvfp4_v2_with_global_scale) say so, with their tensor scale; the
  // stacks' rules and orders are CLI names; a wrong name is refused with the accepted ones.
  const std::string ue = std::string(BLOCKS_CLI) + " quantize --scheme nvfp4_ue5m3 --in " + (d / "x.npy").string() +
                         " --out-codes " + (d / "u.safetensors").string() + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(ue.c_str()), 0);
  const SafetensorsFile u = read_safetensors_header(d / "u.safetensors");
  EXPECT_EQ(u.metadata.at("scale_encoding"), "ue5m3");
  EXPECT_EQ(u.metadata.at("scheme_spec"), "e2m1fn/1x16/ue5m3:nvfp4_v2_gs");
  EXPECT_EQ(u.metadata.count("tensor_decode_scale"), 1u);
  const std::string x_npy = (d / "x.npy").string(), out = " --out-codes " + (d / "r.npy").string();
  EXPECT_EQ(run_cli("quantize --scheme mxfp8_e4m3 --scale-rule rceil_fp32 --in " + x_npy + out).status, 0);
  EXPECT_EQ(run_cli("quantize --scheme nvfp4 --scale-rule nvfp4_ceil --in " + x_npy + out).status, 0);
  EXPECT_EQ(run_cli("quantize --scheme fp8_1x128 --fp32-order deepgemm --in " + x_npy + out).status, 0);
  const CliRun bad = run_cli("quantize --scheme mxfp8_e4m3 --scale-rule rceil_fp33 --in " + x_npy + out);
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("rceil_fp32"), std::string::npos) << bad.out;  // among the accepted names
  // torchao's NVFP4 (--mx-quirks; here torchao_0_18_no_tensor_scale, so one NaN block spoils no other) stores
  // float8_e4m3fn block scales: a NaN block's scale is the e4m3fn NaN 0x7f (with the NaN's sign), which UE4M3
  // cannot decode, so the file says e4m3fn and names the quirk.
  x[20] = std::numeric_limits<float>::quiet_NaN();
  write_npy(d / "x.npy", make_npy_f32({1, 32}, x));
  const std::string tq = std::string(BLOCKS_CLI) + " quantize --scheme nvfp4 --mx-quirks torchao_0_18_no_tensor_scale --in " +
                         (d / "x.npy").string() + " --out-codes " + (d / "t.safetensors").string() + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(tq.c_str()), 0);
  const SafetensorsFile tf = read_safetensors_header(d / "t.safetensors");
  EXPECT_EQ(tf.metadata.at("scale_encoding"), "e4m3fn");
  EXPECT_EQ(tf.metadata.at("mx_quirks"), "torchao_0_18_no_tensor_scale");
  const NpyArray ts = read_safetensor(tf, "scales");
  ASSERT_EQ(ts.data.size(), 2u);  // 1x16 tiles; the NaN is in the second
  EXPECT_TRUE(std::isnan(to_float(formats::e4m3fn, static_cast<std::uint64_t>(ts.data[1]))));
  EXPECT_FALSE(std::isnan(to_float(formats::e4m3fn, static_cast<std::uint64_t>(ts.data[0]))));
  // ...and with no tensor scale there is none to write: --out-scales alone is enough (it asked for
  // --out-tensor-scale, a file that could only hold 1).
  const std::string ns = std::string(BLOCKS_CLI) + " quantize --scheme nvfp4 --mx-quirks torchao_0_18_no_tensor_scale --in " +
                         (d / "x.npy").string() + " --out-codes " + (d / "c.npy").string() + " --out-scales " +
                         (d / "s.npy").string() + " > /dev/null 2>&1";
  EXPECT_EQ(std::system(ns.c_str()), 0);
  EXPECT_TRUE(std::filesystem::exists(d / "s.npy"));
  std::filesystem::remove_all(d);
}
}  // namespace minifloat_test

namespace minifloat_test {
// `report --scale-rule R` runs every scheme R fits with R (the rule column says so) and leaves
// nvfp4 on its two-level rule. On a block whose amax is 7.5, MXFP4 under rceil has no saturated
// element (T14), under the default ocp_floor it has one.
TEST(Cli, ReportScaleRuleOverride) {
  using namespace minifloat;
  const std::filesystem::path d = std::filesystem::temp_directory_path() / ("minifloat_rr_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  std::vector<float> x(32, 1.0f);
  x[0] = 7.5f;
  write_npy(d / "x.npy", make_npy_f32({1, 32}, x));
  auto report = [&](const std::string& extra) {
    const std::string cmd = std::string(BLOCKS_CLI) + " report --quiet --csv --schemes mxfp4,nvfp4 --in " +
                            (d / "x.npy").string() + " " + extra + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    while (std::size_t k = std::fread(buf, 1, sizeof buf, p)) out.append(buf, k);
    EXPECT_EQ(pclose(p), 0) << out;
    return out;
  };
  const std::string def = report(""), rc = report("--scale-rule rceil");
  EXPECT_NE(def.find("ALL,mxfp4,ocp_floor"), std::string::npos) << def;
  EXPECT_NE(rc.find("ALL,mxfp4,rceil"), std::string::npos) << rc;
  EXPECT_NE(rc.find("ALL,nvfp4,nvfp4"), std::string::npos) << rc;
  // pct_saturated column: 1 of 32 elements (3.125 %) under ocp_floor, none under rceil
  EXPECT_NE(def.find("ALL,mxfp4,ocp_floor,32,"), std::string::npos);
  EXPECT_NE(def.substr(def.find("ALL,mxfp4")).find(",3.125000,"), std::string::npos) << def;
  EXPECT_NE(rc.substr(rc.find("ALL,mxfp4")).find(",0.000000,"), std::string::npos) << rc;
  std::filesystem::remove_all(d);
}
}  // namespace minifloat_test

namespace minifloat_test {
namespace {
int sh(const std::string& args) {
  const int st = std::system((std::string(BLOCKS_CLI) + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
}  // namespace

// Found by a user test: --packed packed across rows and dropped the shape; nvfp4's tensor scale
// was written nowhere; compare accepted float files with --format and codes wider than it.
TEST(Cli, PackedRowsTensorScaleAndStrictCompare) {
  using namespace minifloat;
  const std::filesystem::path d = std::filesystem::temp_directory_path() / ("minifloat_pk_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  std::vector<float> x(15);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) / 4;
  write_npy(d / "x.npy", make_npy_f32({3, 5}, x));
  const std::string in = " --in " + (d / "x.npy").string();
  ASSERT_EQ(sh("quantize --scheme mxfp4" + in + " --out-codes " + (d / "c.npy").string()), 0);
  ASSERT_EQ(sh("quantize --scheme mxfp4" + in + " --out-codes " + (d / "p.npy").string() + " --packed"), 0);
  const NpyArray c = read_npy(d / "c.npy"), p = read_npy(d / "p.npy");
  ASSERT_EQ(p.shape, (std::vector<std::size_t>{3, 3}));  // 5 FP4 codes per row → 3 bytes per row
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t k = 0; k < 5; ++k) {
      const auto byte = static_cast<unsigned>(p.data[r * 3 + k / 2]);
      EXPECT_EQ((k % 2 ? byte >> 4 : byte) & 0xf, static_cast<unsigned>(c.data[r * 5 + k])) << r << "," << k;
    }
  EXPECT_EQ(sh("quantize --scheme mxfp4" + in + " --out-codes " + (d / "q.npy").string() + " --packed --axis first"), 2);
  // nvfp4: block scales need the tensor scale next to them
  EXPECT_EQ(sh("quantize --scheme nvfp4" + in + " --out-codes " + (d / "n.npy").string() + " --out-scales " +
               (d / "ns.npy").string()), 2);
  ASSERT_EQ(sh("quantize --scheme nvfp4" + in + " --out-codes " + (d / "n.npy").string() + " --out-scales " +
               (d / "ns.npy").string() + " --out-tensor-scale " + (d / "nt.npy").string()), 0);
  const std::vector<float> ts = npy_as_f32(read_npy(d / "nt.npy"));
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0], 1.0f / (448.0f * 6.0f / 3.5f));  // fl32(1/S_enc), S_enc = 448·6/amax (spec-digest §4.3)
  // compare: --format on float files, and codes wider than the format, are bad input (exit 2)
  EXPECT_EQ(sh("compare --ref " + (d / "x.npy").string() + " --got " + (d / "x.npy").string() + " --format e4m3fn"), 2);
  std::vector<std::uint8_t> wide(4, 0x10);
  write_npy(d / "w.npy", make_npy_u8({4}, wide));
  EXPECT_EQ(sh("compare --ref " + (d / "w.npy").string() + " --got " + (d / "w.npy").string() + " --format e2m1fn"), 2);
  EXPECT_EQ(sh("compare --ref " + (d / "w.npy").string() + " --got " + (d / "w.npy").string()), 0);
  std::filesystem::remove_all(d);
}
}  // namespace minifloat_test

namespace minifloat_test {
// Found by a user test: `dot` read 1-byte e4m3fn code files as 16-bit f16 codes.
TEST(Cli, DotRejectsCodeWidthMismatch) {
  using namespace minifloat;
  const std::filesystem::path d = std::filesystem::temp_directory_path() / ("minifloat_dot_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  write_npy(d / "a.npy", make_npy_u8({4}, {0x38, 0x40, 0x44, 0x48}));  // e4m3fn 1, 2, 3, 4
  const std::string ab = " --a " + (d / "a.npy").string() + " --b " + (d / "a.npy").string();
  EXPECT_EQ(std::system((std::string(BLOCKS_CLI) + " dot --model exact --format f16" + ab + " > /dev/null 2>&1").c_str()) >> 8, 2);
  const std::string cmd = std::string(BLOCKS_CLI) + " dot --model exact --format e4m3fn" + ab;
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[256];
  while (std::size_t k = std::fread(buf, 1, sizeof buf, p)) out.append(buf, k);
  EXPECT_EQ(pclose(p), 0);
  EXPECT_NE(out.find("30"), std::string::npos) << out;  // 1 + 4 + 9 + 16
  std::filesystem::remove_all(d);
}
}  // namespace minifloat_test
