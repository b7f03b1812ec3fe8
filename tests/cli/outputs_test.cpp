// SPDX-License-Identifier: Apache-2.0
// outputs_test.cpp: the file-writing commands (dot --out, tables, train) end to end — an output that
// is an input, a symlink, /dev/full, a FIFO, a missing or read-only folder, an injected write
// failure and a real SIGINT mid-write (the test-only MINIFLOAT_TEST_FAULT hook of file_io.hpp
// pauses the child) — and the options that used to be ignored or silently wrong (train --gates with
// no criterion, dot on float arrays under an FP8 model, dot --c rounded twice, --count's range).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/npy.hpp"
#include "minifloat/train/recipe.hpp"
#include "minifloat/train/study.hpp"

namespace {
using namespace minifloat;
namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() / ("minifloat_cli_outputs_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path);
    fs::create_directories(path);
    fs::permissions(path, fs::perms(0755));
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path operator/(const std::string& s) const { return path / s; }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every regular file and symlink under `dir` with its content (symlinks: "-> target").
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    if (e.is_symlink()) m[rel] = "-> " + fs::read_symlink(e.path()).string();
    else if (e.is_regular_file()) m[rel] = slurp(e.path());
    else if (!e.is_directory()) m[rel] = "(special)";
  }
  return m;
}

struct Result {
  int status = -1;  ///< exit status, or 128 + signal
  std::string out, err;
};

struct RunOptions {
  std::string fault;                    ///< MINIFLOAT_TEST_FAULT for the child
  int signal_on_pause = 0;              ///< send this when stderr shows the fault hook's pause line
  bool unprivileged = false;            ///< run as nobody when we are root (read-only folders)
};

/// Runs the minifloat binary with `args` (no shell), capturing stdout and stderr; kills it after 60 s.
Result run(const std::vector<std::string>& args, const RunOptions& opt = {}) {
  int out_pipe[2], err_pipe[2];
  EXPECT_EQ(::pipe(out_pipe), 0);
  EXPECT_EQ(::pipe(err_pipe), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (opt.fault.empty()) ::unsetenv("MINIFLOAT_TEST_FAULT");
    else ::setenv("MINIFLOAT_TEST_FAULT", opt.fault.c_str(), 1);
    if (opt.unprivileged && ::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(120);
    std::vector<char*> argv{const_cast<char*>(MINIFLOAT_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(MINIFLOAT_CLI, argv.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  Result r;
  bool signalled = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ADD_FAILURE() << "timed out";
      break;
    }
    if (::poll(fds, 2, 1000) <= 0) continue;
    for (auto& f : fds) {
      if (f.fd < 0 || (f.revents & (POLLIN | POLLHUP)) == 0) continue;
      char buf[4096];
      const ssize_t k = ::read(f.fd, buf, sizeof buf);
      if (k <= 0) {
        ::close(f.fd);
        f.fd = -1;
        --open_fds;
        continue;
      }
      (f.fd == out_pipe[0] ? r.out : r.err).append(buf, static_cast<std::size_t>(k));
    }
    if (opt.signal_on_pause != 0 && !signalled && r.err.find("test fault: paused") != std::string::npos) {
      ::kill(pid, opt.signal_on_pause);
      signalled = true;
    }
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

/// Exit status 2 and exactly one line "minifloat: error: …" containing `needle`, nothing on stdout.
void expect_bad(const Result& r, const std::string& needle) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("minifloat: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

/// Two f32 vectors for `dot`.
void operands(const TempDir& d) {
  write_npy(d / "a.npy", make_npy_f32({4}, {1, 2, 3, 4}));
  write_npy(d / "b.npy", make_npy_f32({4}, {0.5f, 0.25f, 2, 1}));
}
std::vector<std::string> dot_args(const TempDir& d, const std::string& out) {
  return {"dot", "--model", "exact", "--a", (d / "a.npy").string(), "--b", (d / "b.npy").string(), "--out", out};
}

TEST(Outputs, DotRefusesAnOutputThatIsAnInput) {
  TempDir d;
  operands(d);
  fs::create_symlink("a.npy", d / "link.npy");
  fs::create_hard_link(d / "b.npy", d / "hard.npy");
  const auto before = snapshot(d.path);
  for (const std::string& out : {(d / "a.npy").string(), (d.path / "." / "b.npy").string(), (d / "link.npy").string(),
                                (d / "hard.npy").string()}) {
    expect_bad(run(dot_args(d, out)), "--out '" + out + "'");
    EXPECT_EQ(snapshot(d.path), before) << out;
  }
}

TEST(Outputs, DotWritesThroughASymlinkAndTheLinkStays) {
  TempDir d;
  operands(d);
  fs::create_directories(d / "real");
  write_npy(d / "real" / "old.npy", make_npy_f32({1}, {-1}));
  fs::create_symlink("real/old.npy", d / "result.npy");
  const Result r = run(dot_args(d, (d / "result.npy").string()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0x41300000 11\n");  // 1·0.5 + 2·0.25 + 3·2 + 4·1 = 11, exact
  EXPECT_TRUE(fs::is_symlink(d / "result.npy"));
  const NpyArray got = read_npy(d / "real" / "old.npy");
  EXPECT_EQ(npy_as_f32(got), std::vector<float>{11.0f});
  EXPECT_EQ(fs::directory_iterator(d / "real")->path().filename(), "old.npy");
}

TEST(Outputs, DotRefusesDevFullAFifoAMissingAndAReadOnlyFolderBeforeAnyWork) {
  TempDir d;
  operands(d);
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  expect_bad(run(dot_args(d, "/dev/full")), "'/dev/full' is a character device; outputs must be regular files");
  expect_bad(run(dot_args(d, (d / "fifo").string())), "is a FIFO; outputs must be regular files");  // never opened
  expect_bad(run(dot_args(d, (d / "missing" / "r.npy").string())), "does not exist");
  fs::create_directories(d / "ro");
  fs::permissions(d / "ro", fs::perms(0555));
  RunOptions nobody;
  nobody.unprivileged = true;
  fs::permissions(d / "a.npy", fs::perms(0644));
  fs::permissions(d / "b.npy", fs::perms(0644));
  expect_bad(run(dot_args(d, (d / "ro" / "r.npy").string()), nobody), "is not writable");
  fs::permissions(d / "ro", fs::perms(0755));
  EXPECT_TRUE(fs::is_empty(d / "ro"));
}

TEST(Outputs, TablesInjectedWriteFailureLeavesEveryOldFileAndNoTemporary) {
  TempDir d;
  ASSERT_EQ(run({"tables", "--out", d.path.string()}).status, 0);
  const auto before = snapshot(d.path);
  ASSERT_GT(before.size(), 200u);
  RunOptions fault;
  fault.fault = "write_fail_after_bytes:300000";  // fails part-way through the 211 files
  expect_bad(run({"tables", "--out", d.path.string()}, fault), "No space left on device");
  EXPECT_EQ(snapshot(d.path), before);
}

TEST(Outputs, TablesOutCreatesOnlyItsLastFolder) {
  TempDir d;
  // A missing parent is refused with the folder named, and nothing is created.
  expect_bad(run({"tables", "--out", (d / "typo" / "tables").string()}),
             "folder '" + (d / "typo").string() + "' does not exist");
  EXPECT_FALSE(fs::exists(d / "typo"));
  // An existing file is not a folder.
  { std::ofstream(d / "file") << "x"; }
  expect_bad(run({"tables", "--out", (d / "file").string()}), "exists and is not a folder");
  // The last folder itself is created (with a trailing slash too).
  ASSERT_EQ(run({"tables", "--out", (d / "new").string() + "/"}).status, 0);
  EXPECT_TRUE(fs::exists(d / "new" / "formats.csv"));
  EXPECT_TRUE(fs::exists(d / "new" / "csv" / "e4m3fn.codes.csv"));
}

TEST(Outputs, TablesSigintMidWriteLeavesEveryOldFileAndNoTemporary) {
  TempDir d;
  ASSERT_EQ(run({"tables", "--out", d.path.string()}).status, 0);
  const auto before = snapshot(d.path);
  RunOptions pause;
  pause.fault = "pause_after_bytes:300000";
  pause.signal_on_pause = SIGINT;
  const Result r = run({"tables", "--out", d.path.string()}, pause);
  EXPECT_EQ(r.status, 128 + SIGINT) << r.err;
  EXPECT_EQ(r.err, "minifloat: test fault: paused after 300000 bytes\n");
  EXPECT_EQ(snapshot(d.path), before);
}

bool have_digits() { return fs::exists("/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"); }
std::vector<std::string> train_args(const TempDir& d) {
  return {"train", "--model", "mlp-digits", "--recipes", "fp32,fp8-current", "--seeds", "2", "--steps", "3",
          "--no-progress", "--out", (d / "runs").string()};
}

TEST(Outputs, TrainFailureOrSigintLeavesEveryOldOutputAndNoTemporary) {
  if (!have_digits()) GTEST_SKIP() << "digits data missing (Debian python3-sklearn; run scripts/setup)";
  TempDir d;
  ASSERT_EQ(run(train_args(d)).status, 0);
  const auto before = snapshot(d.path);
  ASSERT_EQ(before.count("runs/summary.csv"), 1u);
  ASSERT_EQ(before.count("runs/mlp-digits/fp8-current/seed1.csv"), 1u);
  RunOptions fault;
  fault.fault = "write_fail_after_bytes:500";
  expect_bad(run(train_args(d), fault), "No space left on device");
  EXPECT_EQ(snapshot(d.path), before);
  RunOptions pause;
  pause.fault = "pause_after_bytes:500";  // inside a worker thread's per-run CSV
  pause.signal_on_pause = SIGINT;
  const Result r = run(train_args(d), pause);
  EXPECT_EQ(r.status, 128 + SIGINT) << r.err;
  EXPECT_EQ(snapshot(d.path), before);
}

TEST(Outputs, TrainGatesWithoutACriterionIsAnErrorBeforeAnyWork) {
  TempDir d;
  for (const auto& [model, recipes] : std::vector<std::pair<std::string, std::string>>{
           {"char-lm", "fp32"}, {"mlp-digits", "fp8-current"}, {"mlp-fashion", "all"}}) {
    expect_bad(run({"train", "--model", model, "--recipes", recipes, "--gates", "--out", (d / "runs").string()}),
               "--gates: no acceptance criterion");
    EXPECT_FALSE(fs::exists(d / "runs"));
  }
  expect_bad(run({"train", "--recipes", "fp32,fp32", "--out", (d / "runs").string()}), "listed twice");
  expect_bad(run({"train", "--seeds", "99999999999999999999", "--out", (d / "runs").string()}),
             "--seeds '99999999999999999999' is out of range; accepted: 1..1000");
  EXPECT_FALSE(fs::exists(d / "runs"));
  // A criterion that applies is accepted (the gate list is computed from the model and recipes).
  train::StudyConfig c;
  c.model = train::TrainModel::char_lm;
  c.recipes = train::parse_recipes("fp32,fp8-current");
  EXPECT_EQ(train::applicable_gates(c), std::vector<std::string>{"4.7.9 fp8-current"});
}

TEST(Outputs, TrainHelpListsEveryModelAndRecipe) {
  const Result r = run({"train", "--help"});
  ASSERT_EQ(r.status, 0);
  for (const auto& e : name_table(train::TrainModel{}).entries)
    EXPECT_NE(r.out.find("  " + std::string(e.name) + "  "), std::string::npos) << e.name;
  for (const auto& e : train::recipe_table().entries)
    EXPECT_NE(r.out.find("  " + std::string(e.name) + "  "), std::string::npos) << e.name;
}

// Every --seed reads as the one integer it takes: CLI11 printed a validator's description after the
// type ("--seed UINT:UINT64"), which a user read as a colon form and tried ("--seed 7:11" is refused).
TEST(Outputs, SeedHelpShowsOneUnsigned64BitInteger) {
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"encode", "--help"}, {"quantize", "--help"}, {"report", "--help"}, {"probe", "gen", "--help"}}) {
    const Result r = run(cmd);
    ASSERT_EQ(r.status, 0) << cmd[0];
    const auto at = r.out.find("--seed ");
    ASSERT_NE(at, std::string::npos) << cmd[0];
    EXPECT_EQ(r.out.substr(at, 14), "--seed UINT64 ") << cmd[0];
  }
  expect_bad(run({"quantize", "--seed", "7:11"}), "'7:11' is not an unsigned 64-bit integer (accepted: 0..18446744073709551615)");
}

TEST(Outputs, MmaCheckHelpSaysWhenCZeroApplies) {
  const Result r = run({"mma-check", "--help"});
  ASSERT_EQ(r.status, 0);
  const auto at = r.out.find("--c-zero");
  ASSERT_NE(at, std::string::npos);
  const std::string line = r.out.substr(at, r.out.find("\n  -", at) - at);
  EXPECT_NE(line.find("H100"), std::string::npos) << line;
  EXPECT_NE(line.find("Ada"), std::string::npos) << line;
}

TEST(Outputs, DotUnderATensorCoreModelNeedsItsOperandFormat) {
  TempDir d;
  operands(d);
  for (const char* model : {"hopper-fp8", "ada-fp8", "blocked128", "hopper-fp8+blocked32", "ampere-bf16"})
    expect_bad(run({"dot", "--model", model, "--a", (d / "a.npy").string(), "--b", (d / "b.npy").string()}),
               "pass --format");
  expect_bad(run({"dot", "--model", "hopper-fp8", "--format", "e2m1fn", "--a", (d / "a.npy").string(), "--b",
                  (d / "b.npy").string()}),
             "multiplies e4m3fn or e5m2 operands only, not the e2m1fn");
  // With --format the f32 values are rounded into e4m3fn once (all four are exact): 11 = 0x41300000.
  const Result r = run({"dot", "--model", "hopper-fp8", "--format", "e4m3fn", "--a", (d / "a.npy").string(), "--b",
                        (d / "b.npy").string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0x41300000 11\n");
  // f16 arrays are ampere-f16's own operands.
  write_npy(d / "h.npy", NpyArray{"<f2", {2}, {std::byte{0x00}, std::byte{0x3c}, std::byte{0x00}, std::byte{0x40}}});
  const Result h = run({"dot", "--model", "ampere-f16", "--a", (d / "h.npy").string(), "--b", (d / "h.npy").string()});
  EXPECT_EQ(h.status, 0) << h.err;
  EXPECT_EQ(h.out, "0x40a00000 5\n");  // 1·1 + 2·2
}

TEST(Outputs, DotAddendIsRoundedOnceFromItsDecimal) {
  TempDir d;
  write_npy(d / "z.npy", make_npy_f32({1}, {0}));
  // 1 + 2^-24 + 2^-60: above the f32 midpoint 1 + 2^-24, so RNE gives 1 + 2^-23 (0x3f800001); through a
  // double first it would be the midpoint itself and tie to 1.0 (0x3f800000).
  const Result r = run({"dot", "--model", "exact", "--a", (d / "z.npy").string(), "--b", (d / "z.npy").string(), "--c",
                        "1.000000059604644776257986737988403547205962240695953369140625"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 11), "0x3f800001 ");
  expect_bad(run({"dot", "--model", "exact", "--a", (d / "z.npy").string(), "--b", (d / "z.npy").string(), "--c", "abc"}),
             "--c: cannot parse value 'abc'");
}

TEST(Outputs, IntegerOptionsNameTheirRange) {
  expect_bad(run({"encode", "--format", "e4m3fn", "--round", "sr", "--seed", "1", "--count", "99999999999999999999", "1"}),
             "--count '99999999999999999999' is out of range; accepted: 1..100000000");
  expect_bad(run({"encode", "--format", "e4m3fn", "--round", "sr", "--seed", "1", "--count", "0", "1"}),
             "--count '0' is out of range; accepted: 1..100000000");
  expect_bad(run({"encode", "--format", "e4m3fn", "--round", "sr", "--seed", "1", "--count", "ten", "1"}),
             "--count 'ten' is not an integer; accepted: 1..100000000");
  expect_bad(run({"encode", "--format", "e4m3fn", "--round", "sr", "--seed", "1", "--stream", "4294967296", "1"}),
             "--stream '4294967296' is out of range; accepted: 0..4294967295");
  expect_bad(run({"formats", "--bits", "99999999999"}), "--bits '99999999999' is out of range; accepted: 3..64");
  expect_bad(run({"mma-check", "--model", "hopper-fp8", "--dir", ".", "--show", "-1"}),
             "--show '-1' is out of range; accepted: 0..1000000");
  expect_bad(run({"train", "--steps", "-1", "--out", "x"}), "--steps '-1' is out of range; accepted: 0..1000000");
}

TEST(Outputs, MmaCheckCRuleIsANamedKind) {
  // --c takes the names of the "c-rule" table (mma_vectors.hpp MmaCRule), in any case.
  expect_bad(run({"mma-check", "--model", "hopper-fp8", "--dir", ".", "--c", "rounded"}),
             "--c: unknown C rule 'rounded'; accepted: file, zero, auto");
  expect_bad(run({"mma-check", "--model", "hopper-fp8", "--dir", ".", "--c", "FILE", "--c-zero"}),
             "--c-zero contradicts --c FILE; pass one of them");
  expect_bad(run({"mma-check", "--model", "hopper-fp8", "--dir", ".", "--c", "Auto"}), "--c auto is for --all");
}

}  // namespace

namespace {
// CLI11's own texts for a missing command and a repeated option named nothing accepted.
TEST(Errors, MissingCommandAndRepeatedOptionSayWhatIsAccepted) {
  expect_bad(run({}), "a command is required; accepted: ");
  EXPECT_NE(run({}).err.find("encode"), std::string::npos);
  expect_bad(run({"probe"}), "'probe' needs a command; accepted: gen, check");
  expect_bad(run({"encode", "--format", "e4m3fn", "--format", "e5m2", "1"}),
             "--format was given 2 times; it takes one value: give it once");
  expect_bad(run({"encode", "--format", "Binary2p1se", "1"}), "K = 2 is out of range");
}
}  // namespace
