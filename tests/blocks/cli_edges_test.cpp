// SPDX-License-Identifier: Apache-2.0
// cli_edges_test.cpp: the edges of quantize / report / compare a new user hit (issue 9 items 1, 2, 5,
// 9, 10): outputs that are inputs or each other, failing and interrupted runs leave every output as
// it was, f64 inputs round once (the must-show 0x39), every ignored option is an error, scheme
// specs, shapes of 1-D / empty / 0-d inputs, integer inputs, compare --nan-equal / --packed / NaN
// spelling / --show range, and progress within a tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "cli_run.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/safetensors.hpp"

namespace minifloat_test {
using namespace minifloat;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag)
      : path(fs::temp_directory_path() / ("minifloat_edges_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};
CliRun run(const std::string& args, const std::string& env = "") { return run_cli(args, env); }
std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void put(const std::string& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }
std::set<std::string> entries(const fs::path& d) {
  std::set<std::string> s;
  for (const auto& e : fs::directory_iterator(d)) s.insert(e.path().filename().string());
  return s;
}
std::vector<float> ramp(std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(static_cast<int>(i % 97) - 48) / 7.0f;
  return x;
}
}  // namespace

// ---- item 2: one rounding from every source ---------------------------------------------------

// Must show: an f64 .npy holding 256 and 1.0625 + 2^−40 in one MXFP8 block: scale 2^0, element 0x39
// (above the 1/1.125 midpoint); --source-via-f32 (ml_dtypes / PyTorch) gives the tie's 0x38.
TEST(CliEdges, F64NpyRoundsOnceMustShow) {
  TempDir d("f64");
  write_npy(d / "x.npy", make_npy_f64({2}, {256.0, 1.0625 + std::ldexp(1.0, -40)}));
  auto r = run("quantize --scheme mxfp8_e4m3 --in " + (d / "x.npy") + " --out-codes " + (d / "c.npy") + " --out-scales " + (d / "s.npy"));
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray c = read_npy(d / "c.npy"), s = read_npy(d / "s.npy");
  EXPECT_EQ(std::to_integer<int>(s.data.at(0)), 0x7f);
  EXPECT_EQ(std::to_integer<int>(c.data.at(1)), 0x39);
  r = run("quantize --scheme mxfp8_e4m3 --source-via-f32 --in " + (d / "x.npy") + " --out-codes " + (d / "v.npy"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(std::to_integer<int>(read_npy(d / "v.npy").data.at(1)), 0x38);
  // the same from an F64 safetensors tensor, and report's error statistics see the exact values
  write_safetensors(d / "m.safetensors", {{"T", make_npy_f64({2}, {256.0, 1.0625 + std::ldexp(1.0, -40)})}});
  r = run("quantize --scheme mxfp8_e4m3 --in " + (d / "m.safetensors") + " --tensor T --out-codes " + (d / "t.npy"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(std::to_integer<int>(read_npy(d / "t.npy").data.at(1)), 0x39);
  r = run("report --quiet --csv --schemes mxfp8_e4m3 --in " + (d / "m.safetensors"));
  ASSERT_EQ(r.status, 0) << r.out;
  // error of the element: 1.125 − (1.0625 + 2^−40); max abs err 0.0625 − 2^−40 = 0.0624999999999991 (9 digits: 0.0625)
  EXPECT_NE(r.out.find("T,mxfp8_e4m3,ocp_floor,2,"), std::string::npos) << r.out;
  // --fp32-order exact rounds x·encode once for any source
  r = run("quantize --scheme fp8_tensor --fp32-order exact --in " + (d / "x.npy") + " --out-codes " + (d / "e.npy"));
  EXPECT_EQ(r.status, 0) << r.out;
}

// A new user's f64 input near 1e40 dequantized to float32 inf with exit 0: an f64 source's
// --out-dequant is <f8 and holds the exact element × scale (448 · 2^124 here, beyond FLT_MAX).
TEST(CliEdges, F64DequantKeepsValuesBeyondFloat32) {
  TempDir d("f64deq");
  const double big = 448.0 * std::ldexp(1.0, 124);
  std::vector<double> v(32, big / 2);
  v[0] = big;
  write_npy(d / "x.npy", make_npy_f64({32}, v));
  const auto r = run("quantize --scheme mxfp8_e4m3 --in " + (d / "x.npy") + " --out-codes " + (d / "c.npy") + " --out-scales " +
                     (d / "s.npy") + " --out-dequant " + (d / "q.npy"));
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray q = read_npy(d / "q.npy");
  ASSERT_EQ(q.dtype, "<f8");
  double q0 = 0;
  std::memcpy(&q0, q.data.data(), 8);
  EXPECT_EQ(q0, big);
}

// ---- item 1: outputs are a transaction ---------------------------------------------------------

TEST(CliEdges, AnOutputThatIsAnInputOrAnotherOutputIsRefused) {
  TempDir d("same");
  write_safetensors(d / "m.safetensors", {{"T", make_npy_f32({4, 32}, ramp(128))}, {"U", make_npy_f32({8}, ramp(8))}});
  const std::string before = slurp(d / "m.safetensors");
  auto r = run("quantize --scheme nvfp4 --in " + (d / "m.safetensors") + " --tensor T --out-codes " + (d / "m.safetensors"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--out-codes"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(d / "m.safetensors"), before);  // unchanged, byte for byte
  r = run("quantize --scheme nvfp4 --in " + (d / "m.safetensors") + " --tensor T --out-codes ./" +
          (d.path.lexically_relative(fs::current_path()) / "m.safetensors").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(slurp(d / "m.safetensors"), before);
  write_npy(d / "x.npy", make_npy_f32({4, 32}, ramp(128)));
  put(d / "d.npy", "old d");
  r = run("quantize --scheme mxfp4 --in " + (d / "x.npy") + " --out-codes " + (d / "d.npy") + " --out-scales " + (d / "d.npy"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(slurp(d / "d.npy"), "old d");
  EXPECT_EQ(entries(d.path), (std::set<std::string>{"d.npy", "m.safetensors", "x.npy"}));  // no temporary left
}

TEST(CliEdges, AFailingRunLeavesEveryOutputAsItWas) {
  TempDir d("fail");
  write_npy(d / "x.npy", make_npy_f32({64, 64}, ramp(64 * 64)));
  for (const char* f : {"c.npy", "s.npy", "t.npy", "q.npy"}) put(d / f, std::string("old ") + f);
  const std::string outs = " --out-codes " + (d / "c.npy") + " --out-scales " + (d / "s.npy") + " --out-tensor-scale " +
                           (d / "t.npy") + " --out-dequant " + (d / "q.npy");
  // a full filesystem, simulated by the writer's test hook, part-way through the outputs
  for (const char* after : {"10", "3000", "9000"}) {
    const auto r = run("quantize --scheme nvfp4 --in " + (d / "x.npy") + outs, std::string("MINIFLOAT_TEST_FAULT=write_fail_after_bytes:") + after);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("No space left on device"), std::string::npos) << r.out;
    for (const char* f : {"c.npy", "s.npy", "t.npy", "q.npy"}) EXPECT_EQ(slurp(d / f), std::string("old ") + f) << after << " " << f;
    EXPECT_EQ(entries(d.path).size(), 5u) << "a temporary was left after " << after;
  }
  // the old bug: nvfp4 with --out-scales but no --out-tensor-scale wrote the codes, then failed
  const auto r = run("quantize --scheme nvfp4 --in " + (d / "x.npy") + " --out-codes " + (d / "c.npy") + " --out-scales " + (d / "s.npy"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(slurp(d / "c.npy"), "old c.npy");
  EXPECT_EQ(slurp(d / "s.npy"), "old s.npy");
  // and the run that succeeds replaces all four
  ASSERT_EQ(run("quantize --scheme nvfp4 --in " + (d / "x.npy") + outs).status, 0);
  for (const char* f : {"c.npy", "s.npy", "t.npy", "q.npy"}) EXPECT_NE(slurp(d / f), std::string("old ") + f);
}

// Must show: a run killed with SIGINT while it writes leaves every output as it was before the run.
TEST(CliEdges, SigintDuringTheWriteLeavesEveryOutput) {
  TempDir d("sigint");
  write_npy(d / "x.npy", make_npy_f32({512, 512}, ramp(512 * 512)));
  for (const char* f : {"c.npy", "s.npy", "q.npy"}) put(d / f, std::string("old ") + f);
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipefd[1], 2);
    ::dup2(pipefd[1], 1);
    ::close(pipefd[0]);
    ::setenv("MINIFLOAT_TEST_FAULT", "pause_after_bytes:100000", 1);
    const std::string in = d / "x.npy", c = d / "c.npy", s = d / "s.npy", q = d / "q.npy";
    ::execl(BLOCKS_CLI, BLOCKS_CLI, "quantize", "--scheme", "mxfp8_e4m3", "--in", in.c_str(), "--out-codes", c.c_str(),
            "--out-scales", s.c_str(), "--out-dequant", q.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(pipefd[1]);
  std::string err;
  char buf[256];
  while (err.find('\n') == std::string::npos) {
    const ssize_t k = ::read(pipefd[0], buf, sizeof buf);
    if (k <= 0) break;
    err.append(buf, static_cast<std::size_t>(k));
  }
  EXPECT_EQ(err, "minifloat: test fault: paused after 100000 bytes\n");
  EXPECT_GT(entries(d.path).size(), 4u);  // the temporaries exist mid-write
  ::kill(pid, SIGINT);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ::close(pipefd[0]);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT) << "status " << st;
  for (const char* f : {"c.npy", "s.npy", "q.npy"}) EXPECT_EQ(slurp(d / f), std::string("old ") + f);
  EXPECT_EQ(entries(d.path), (std::set<std::string>{"c.npy", "q.npy", "s.npy", "x.npy"}));
}

// Every output path is checked before any work: a missing folder for the last output fails at once
// and the first output is untouched.
TEST(CliEdges, OutputsAreCheckedBeforeAnyWork) {
  TempDir d("before");
  write_npy(d / "x.npy", make_npy_f32({8, 32}, ramp(256)));
  put(d / "c.npy", "old c");
  const auto r = run("quantize --scheme mxfp4 --in " + (d / "x.npy") + " --out-codes " + (d / "c.npy") + " --out-dequant " +
                     (d / "missing/q.npy"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--out-dequant"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(d / "c.npy"), "old c");
  EXPECT_EQ(r.out.find("elements,"), std::string::npos) << r.out;  // no summary: no work was done
}

// ---- item 5: every ignored option is an error ----------------------------------------------------

TEST(CliEdges, EveryIgnoredOptionIsAnError) {
  TempDir d("ignored");
  write_npy(d / "x.npy", make_npy_f32({4, 32}, ramp(128)));
  write_npy(d / "u.npy", make_npy_u8({4, 32}, std::vector<std::uint8_t>(128, 7)));
  put(d / "c.npy", "old c");
  const std::string io = " --in " + (d / "x.npy") + " --out-codes " + (d / "c.npy");
  struct Bad {
    std::string args, says;
  };
  const std::vector<Bad> bad = {
      {"quantize --scheme mxfp4 --round sr --seed 1 --sr-bits 8" + io, "--sr-bits applies to --sr-variant A, B, C or stochastic_odd"},
      {"quantize --scheme mxfp4 --round sr --seed 1 --sr-variant equal --sr-bits 4" + io, "--sr-bits"},
      {"quantize --scheme mxfp4 --round sr" + io, "--seed"},
      {"quantize --scheme mxfp4 --seed 3" + io, "only applies to stochastic rounding"},
      {"quantize --scheme mxfp4 --sr-variant A" + io, "only applies to stochastic rounding"},
      {"quantize --scheme mxfp4 --scale-rule fp32_amax" + io, "E8M0"},
      {"quantize --scheme fp8_tensor --scale-rule rceil" + io, "FP32"},
      {"quantize --scheme mxfp4 --scale-rule nvfp4" + io, "scales"},
      {"quantize --scheme nvfp4 --zero-block nan" + io, "does not apply to nvfp4"},
      {"quantize --scheme nvfp4 --zero-block unit_scale" + io, "does not apply to nvfp4"},
      {"quantize --scheme mxfp4 --fp32-order divide" + io, "fp32-order"},
      {"quantize --scheme fp8_tensor --scale-rule fp32_pow2 --fp32-order divide" + io, "fp32_amax rule only"},
      {"quantize --scheme mxfp4 --mxint8-min symmetric" + io, "mxint8 elements only"},
      {"quantize --scheme mxfp4 --out-tensor-scale " + (d / "t.npy") + io, "nvfp4 only"},
      {"quantize --scheme mxfp4 --element e5m2" + io, "fixed element format"},
      {"quantize --scheme mxint8 --element e5m2" + io, "fixed element format"},
      {"quantize --scheme mxfp4 --scale-ftz" + io, "--out-dequant"},
      {"quantize --scheme mxfp4 --source-via-f32" + io, "f64"},
      {"quantize --scheme mxfp4 --integers-as-values" + io, "integer inputs"},
      {"quantize --scheme mxfp4 --amax-epsilon -1" + io, "--amax-epsilon"},
      {"quantize --scheme mxfp4 --amax-epsilon 1e99" + io, "--amax-epsilon"},
      {"quantize --scheme mxfp4 --amax-epsilon one" + io, "--amax-epsilon"},
      {"quantize --scheme mxfp8_e4m3 --packed" + io, "4- and 6-bit"},
      {"quantize --scheme mxfp4 --packed --axis first" + io, "--axis first"},
      {"quantize --scheme mxfp4 --tensor T" + io, "--tensor"},
      {"quantize --scheme mxfp4 --in " + (d / "u.npy") + " --out-codes " + (d / "c.npy"), "--integers-as-values"},
      {"quantize --scheme e4m3fn/1x32/e8m0fnu:ocp_floor/fp32-order=exact" + io, "fp32-order"},
      {"quantize --scheme e2m1fn/1x33" + io, "ELEMENT/ROWSxCOLS/SCALE:RULE"},
      {"report --round sr --in " + (d / "x.npy"), "--seed"},
      {"report --seed 4 --in " + (d / "x.npy"), "only applies to stochastic rounding"},
      {"report --schemes mxfp4 --scale-rule nvfp4 --in " + (d / "x.npy"), "fits none"},
      {"report --source-via-f32 --in " + (d / "x.npy"), "F64"},
      {"report --integers-as-values --in " + (d / "x.npy"), "integer tensors"},
      {"report --in " + (d / "u.npy"), "--integers-as-values"},
      {"compare --show -1 --ref " + (d / "u.npy") + " --got " + (d / "u.npy"), "--show"},
      {"compare --show 99999999999 --ref " + (d / "u.npy") + " --got " + (d / "u.npy"), "0..1000000"},
      {"compare --nan-equal --ref " + (d / "u.npy") + " --got " + (d / "u.npy"), "needs --format"},
      {"compare --nan-equal --format e2m1fn --ref " + (d / "u.npy") + " --got " + (d / "u.npy"), "no NaN"},
      {"compare --packed --format e4m3fn --ref " + (d / "u.npy") + " --got " + (d / "u.npy"), "4- and 6-bit"},
  };
  for (const Bad& b : bad) {
    const CliRun r = run(b.args);
    EXPECT_EQ(r.status, 2) << b.args << "\n" << r.out;
    EXPECT_NE(r.out.find(b.says), std::string::npos) << b.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one line: " << r.out;
    EXPECT_EQ(slurp(d / "c.npy"), "old c") << b.args;
  }
  // and what does apply is accepted
  EXPECT_EQ(run("quantize --scheme mxfp4 --round sr --seed 1 --sr-variant A --sr-bits 8" + io).status, 0);
  EXPECT_EQ(run("quantize --scheme mxfp4 --scale-rule rceil" + io).status, 0);
  EXPECT_EQ(run("quantize --scheme mxint8 --mxint8-min symmetric" + io).status, 0);
  EXPECT_EQ(run("quantize --scheme fp8_1x128 --fp32-order divide --amax-epsilon 0.0001 --zero-block nan" + io).status, 0);
  EXPECT_EQ(run("quantize --scheme fp8_row --element e5m2" + io).status, 0);
  EXPECT_EQ(run("quantize --scheme mxfp4 --integers-as-values --in " + (d / "u.npy") + " --out-codes " + (d / "c.npy")).status, 0);
  EXPECT_EQ(run("report --quiet --round sr --seed 4 --schemes mxfp4 --in " + (d / "x.npy")).status, 0);
}

// report --round sr: a tensor's SR stream is its position in the file (data order, skipped tensors
// counted), so its row is the same with and without --tensor (it used to be the position among the
// tensors read: 0 under --tensor, found by a new-user test), and behind a skipped integer tensor too.
TEST(CliEdges, ReportSrRowOfATensorIsTheSameWithAndWithoutTensor) {
  TempDir d("srk");
  std::vector<float> v(3 * 64);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i)) * 3.0f;
  const std::vector<float> w(v.begin(), v.begin() + 64);
  write_safetensors(d / "m.safetensors", {{"a", make_npy_f32({64}, w)},
                                          {"ids", make_npy_u8({64}, std::vector<std::uint8_t>(64, 3))},
                                          {"b", make_npy_f32({3, 64}, v)},
                                          {"c", make_npy_f32({3, 64}, v)}});
  const std::string base = "report --quiet --csv --per-tensor --round sr --seed 9 --schemes mxfp4 --in " + (d / "m.safetensors");
  const CliRun all = run(base);
  ASSERT_EQ(all.status, 0) << all.out;
  auto row = [](const std::string& out, const std::string& tensor) {
    const auto at = out.find("\n" + tensor + ",");
    return at == std::string::npos ? std::string() : out.substr(at + 1, out.find('\n', at + 1) - at - 1);
  };
  for (const char* t : {"a", "b", "c"}) {
    const CliRun one = run(base + " --tensor " + t);
    ASSERT_EQ(one.status, 0) << one.out;
    EXPECT_FALSE(row(all.out, t).empty()) << all.out;
    EXPECT_EQ(row(all.out, t), row(one.out, t)) << t;
  }
  // b and c hold the same values at different positions: different streams, different errors
  const std::string rb = row(all.out, "b"), rc = row(all.out, "c");
  EXPECT_NE(rb.substr(rb.find(',')), rc.substr(rc.find(','))) << rb << "\n" << rc;
}

// ---- item 4: schemes as data on the command line -------------------------------------------------

TEST(CliEdges, QuantizeAndReportTakeSchemeSpecs) {
  TempDir d("spec");
  write_npy(d / "x.npy", make_npy_f32({4, 32}, ramp(128)));
  auto r = run("quantize --scheme e2m3fn/1x16/e8m0fnu:rceil --in " + (d / "x.npy") + " --out-codes " + (d / "c.safetensors") +
               " --out-scales " + (d / "s.npy"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("e2m3fn/1x16/e8m0fnu:rceil rule rceil: 128 elements, 8 scales (4x2 tiles of 1x16)"), std::string::npos) << r.out;
  const SafetensorsFile f = read_safetensors_header(d / "c.safetensors");
  EXPECT_EQ(f.metadata.at("scheme"), "e2m3fn/1x16/e8m0fnu:rceil");
  EXPECT_EQ(f.metadata.at("scheme_spec"), "e2m3fn/1x16/e8m0fnu:rceil");
  EXPECT_EQ(read_npy(d / "s.npy").shape, (std::vector<std::size_t>{4, 2}));
  r = run("quantize --scheme mxfp4 --in " + (d / "x.npy") + " --out-codes " + (d / "m.safetensors"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_safetensors_header(d / "m.safetensors").metadata.at("scheme_spec"), "e2m1fn/1x32/e8m0fnu:ocp_floor");
  // issue 28 item 16: a scheme listed twice (here as its spec) is refused; three distinct schemes report
  r = run("report --quiet --csv --schemes mxfp4,e2m1fn/1x32/e8m0fnu:ocp_floor --in " + (d / "x.npy"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("listed twice"), std::string::npos) << r.out;
  r = run("report --quiet --csv --schemes mxfp4,custom:3,3,3,signed,fn/1x8/e8m0fnu:even,e2m1fn/1x16/e8m0fnu:ocp_floor --in " + (d / "x.npy"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("ALL,custom:3,3,3,signed,fn/1x8/e8m0fnu:even,even,128,"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1 + 3 + 3) << r.out;  // header, 3 per-tensor, 3 overall rows
}

// ---- item 10: shapes, integer inputs, compare ------------------------------------------------------

TEST(CliEdges, ShapesOf1dEmptyAnd0dInputs) {
  TempDir d("shapes");
  using V = std::vector<std::size_t>;
  auto q = [&](const NpyArray& a, const std::string& scheme) {
    write_npy(d / "x.npy", a);
    const auto r = run("quantize --scheme " + scheme + " --in " + (d / "x.npy") + " --out-codes " + (d / "c.npy") +
                       " --out-scales " + (d / "s.npy") + " --out-dequant " + (d / "q.npy"));
    EXPECT_EQ(r.status, 0) << r.out;
    return std::vector<V>{read_npy(d / "c.npy").shape, read_npy(d / "s.npy").shape, read_npy(d / "q.npy").shape};
  };
  EXPECT_EQ(q(make_npy_f32({33}, ramp(33)), "mxfp8_e4m3"), (std::vector<V>{{33}, {2}, {33}}));  // not (1, 2)
  EXPECT_EQ(q(make_npy_f32({33}, ramp(33)), "fp8_tensor"), (std::vector<V>{{33}, {1}, {33}}));
  // issue 28 item 16: 0-d and empty arrays are refused, as Python's quantize() refuses them
  for (const NpyArray& a : {make_npy_f32({2, 0}, {}), make_npy_f32({0, 5}, {}), make_npy_f32({}, {1.5f})}) {
    write_npy(d / "x.npy", a);
    const auto r = run("quantize --scheme mxfp4 --in " + (d / "x.npy") + " --out-codes " + (d / "refused.npy"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find(a.shape.empty() ? "holds a 0-d array; accepted: arrays of 1 or more dimensions"
                                         : "holds an empty array"),
              std::string::npos)
        << r.out;
  }
  EXPECT_EQ(q(make_npy_f32({3, 4, 64}, ramp(768)), "mxfp4"), (std::vector<V>{{3, 4, 64}, {3, 4, 2}, {3, 4, 64}}));
  const auto r = run("report --quiet --csv --schemes mxfp4 --in " + (d / "x.npy"));  // reports the last one
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST(CliEdges, IntegerInputsAreCodesUnlessTold) {
  TempDir d("ints");
  write_safetensors(d / "m.safetensors", {{"w", make_npy_f32({64}, ramp(64))}, {"ids", make_npy_u8({64}, std::vector<std::uint8_t>(64, 3))}});
  auto r = run("report --csv --schemes mxfp4 --in " + (d / "m.safetensors"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("skipping ids (U8: integers; --integers-as-values"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ALL,mxfp4,ocp_floor,64,"), std::string::npos) << r.out;
  r = run("report --quiet --csv --integers-as-values --schemes mxfp4 --in " + (d / "m.safetensors"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("ALL,mxfp4,ocp_floor,128,"), std::string::npos) << r.out;
  r = run("quantize --scheme mxfp4 --in " + (d / "m.safetensors") + " --tensor ids --out-codes " + (d / "c.npy"));
  EXPECT_EQ(r.status, 2) << r.out;
  write_npy(d / "v.npy", NpyArray{"|V1", {4}, std::vector<std::byte>(4, std::byte{0x38})});
  r = run("quantize --scheme mxfp4 --integers-as-values --in " + (d / "v.npy") + " --out-codes " + (d / "c.npy"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("raw one-byte codes"), std::string::npos) << r.out;
}

// F8_E4M3 / F8_E5M2 / F8_E8M0 tensors hold codes (safetensors.hpp code_format): report skips them
// naming the format, quantize refuses them, and --integers-as-values does not make them numbers.
TEST(CliEdges, F8SafetensorsTensorsAreCodes) {
  TempDir d("f8");
  NpyArray f8 = make_npy_u8({64}, std::vector<std::uint8_t>(64, 0x38));
  f8.code_format = formats::e4m3fn;
  write_safetensors(d / "m.safetensors", {{"w", make_npy_f32({64}, ramp(64))}, {"w8", f8}});
  auto r = run("report --csv --schemes mxfp4 --integers-as-values --in " + (d / "m.safetensors"));
  ASSERT_EQ(r.status, 2) << r.out;  // no integer tensor: the flag does not apply
  r = run("report --csv --schemes mxfp4 --in " + (d / "m.safetensors"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("skipping w8 (F8_E4M3: e4m3fn codes, not numbers)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ALL,mxfp4,ocp_floor,64,"), std::string::npos) << r.out;
  for (const char* flag : {"", " --integers-as-values"}) {
    r = run(std::string("quantize --scheme mxfp4") + flag + " --in " + (d / "m.safetensors") + " --tensor w8 --out-codes " +
            (d / "c.npy"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("holds e4m3fn codes, not numbers"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(d / "c.npy"));
  }
}

TEST(CliEdges, CompareNanEqualPackedNanSpellingAndShow) {
  TempDir d("cmp");
  write_npy(d / "a.npy", make_npy_u8({4}, {0x38, 0x7f, 0x00, 0x40}));
  write_npy(d / "b.npy", make_npy_u8({4}, {0x38, 0xff, 0x00, 0x40}));
  auto r = run("compare --format e4m3fn --ref " + (d / "a.npy") + " --got " + (d / "b.npy"));
  EXPECT_EQ(r.status, 1) << r.out;
  // issue 28 item 15: the NaN's sign is printed (encode -x and decode print it too)
  EXPECT_NE(r.out.find("index 1: ref 0x7f (nan) got 0xff (-nan)"), std::string::npos) << r.out;
  r = run("compare --format e4m3fn --nan-equal --ref " + (d / "a.npy") + " --got " + (d / "b.npy"));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("identical"), std::string::npos) << r.out;
  r = run("compare --show 0 --ref " + (d / "a.npy") + " --got " + (d / "b.npy"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("1 of 4"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("index"), std::string::npos) << r.out;
  // packed FP4 rows from quantize --packed; one code changed in row 1, code 3 (byte 1, high nibble)
  write_npy(d / "x.npy", make_npy_f32({2, 5}, {1, 2, 3, 4, 6, 0.5f, 1, 1.5f, 2, 3}));
  ASSERT_EQ(run("quantize --scheme mxfp4 --packed --in " + (d / "x.npy") + " --out-codes " + (d / "p.npy")).status, 0);
  NpyArray p = read_npy(d / "p.npy");
  ASSERT_EQ(p.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(run("compare --format e2m1fn --packed --ref " + (d / "p.npy") + " --got " + (d / "p.npy")).status, 0);
  p.data[3 + 1] ^= std::byte{0x10};
  write_npy(d / "p2.npy", p);
  r = run("compare --format e2m1fn --packed --ref " + (d / "p.npy") + " --got " + (d / "p2.npy"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("1 of 12 codes differ"), std::string::npos) << r.out;  // 2 rows × 6 code slots
  EXPECT_NE(r.out.find("index 9 (1, 3): ref 0x"), std::string::npos) << r.out;
}

// ---- item 9: progress within a tensor ----------------------------------------------------------------

TEST(CliEdges, ReportShowsProgressWithinATensor) {
  TempDir d("progress");
  write_npy(d / "big.npy", make_npy_f32({4096, 1024}, ramp(4096 * 1024)));  // 4 Mi elements: two pieces
  const auto r = run("report --schemes mxfp4,fp8_tensor --in " + (d / "big.npy"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("[  1/1]   0.0%  big (4194304 elements)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("25% of the tensor (mxfp4, piece 1/2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("75% of the tensor (fp8_tensor, piece 1/2)"), std::string::npos) << r.out;
}


// ---- issue 11: --threads on quantize and report ------------------------------------------------

// Oracle: the same command with --threads 1 (one thread, one piece at a time); every count gives
// the same bytes, and a count outside 0..1024 is refused with exit 2.
TEST(CliEdges, QuantizeAndReportThreadsGiveTheSameBytes) {
  TempDir d("threads");
  std::vector<float> v(64 * 2048);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::ldexp(static_cast<float>(i % 1000) - 500.0f, -static_cast<int>(i % 23));
  v[77] = std::numeric_limits<float>::quiet_NaN();
  write_npy(d / "x.npy", make_npy_f32({64, 2048}, v));
  for (const char* scheme : {"mxfp8_e4m3", "nvfp4", "fp8_128x128"}) {
    std::string first;
    for (const char* t : {"1", "2", "3", "0"}) {
      const std::string out = std::string("c") + t + ".npy";
      const auto r = run(std::string("quantize --scheme ") + scheme + " --threads " + t + " --in " + (d / "x.npy") +
                         " --out-codes " + (d / out) + " --out-dequant " + (d / ("q" + out)));
      ASSERT_EQ(r.status, 0) << r.out;
      const std::string bytes = slurp(d / out) + slurp(d / ("q" + out));
      if (first.empty()) first = bytes;
      EXPECT_EQ(bytes, first) << scheme << " --threads " << t;
    }
  }
  const auto r1 = run("report --csv --quiet --schemes mxfp8_e4m3,mxfp4,nvfp4,fp8_tensor --threads 1 --in " + (d / "x.npy"));
  const auto r3 = run("report --csv --quiet --schemes mxfp8_e4m3,mxfp4,nvfp4,fp8_tensor --threads 3 --in " + (d / "x.npy"));
  ASSERT_EQ(r1.status, 0) << r1.out;
  EXPECT_EQ(r1.out, r3.out);
  for (const char* bad : {"1025", "-1", "two"}) {
    const auto r = run(std::string("quantize --scheme mxfp4 --threads ") + bad + " --in " + (d / "x.npy") + " --out-codes " + (d / "b.npy"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--threads"), std::string::npos) << r.out;
  }
}

}  // namespace minifloat_test
