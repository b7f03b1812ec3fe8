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

#include <algorithm>
#include <chrono>
#include <cmath>
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
  std::string fault;          ///< MINIFLOAT_TEST_FAULT for the child
  int signal_on_pause = 0;    ///< send this when stderr shows the fault hook's pause line
  bool unprivileged = false;  ///< run as nobody when we are root (read-only folders)
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
  return {"train",   "--model", "mlp-digits",    "--recipes", "fp32,fp8-current",   "--seeds", "2",
          "--steps", "3",       "--no-progress", "--out",     (d / "runs").string()};
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
  expect_bad(run({"quantize", "--seed", "7:11"}),
             "'7:11' is not an unsigned 64-bit integer (accepted: 0..18446744073709551615)");
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
  expect_bad(
      run({"dot", "--model", "exact", "--a", (d / "z.npy").string(), "--b", (d / "z.npy").string(), "--c", "abc"}),
      "--c: cannot parse value 'abc'");
}

TEST(Outputs, IntegerOptionsNameTheirRange) {
  expect_bad(
      run({"encode", "--format", "e4m3fn", "--round", "sr", "--seed", "1", "--count", "99999999999999999999", "1"}),
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

namespace {
// ---- issue 28 items 3, 17, 18: what `train --out` holds after a run ----------------------------

std::vector<std::string> train_into(const fs::path& out, const std::string& recipes, int seeds, int steps = 3) {
  return {"train",
          "--model",
          "mlp-digits",
          "--recipes",
          recipes,
          "--seeds",
          std::to_string(seeds),
          "--steps",
          std::to_string(steps),
          "--no-progress",
          "--out",
          out.string()};
}

std::vector<std::string> names_of(const std::map<std::string, std::string>& snap) {
  std::vector<std::string> v;
  for (const auto& [k, _] : snap) v.push_back(k);
  return v;
}

/// Every entry under `dir`, folders included (an empty folder left behind shows here).
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::recursive_directory_iterator(dir)) v.push_back(fs::relative(e.path(), dir).string());
  std::sort(v.begin(), v.end());
  return v;
}

// Item 3: three seeds of two recipes, then one seed of one recipe into the same folder: the folder
// holds exactly what the second run writes into a new folder (seed1.csv, seed2.csv and the other
// recipe's folder go).
TEST(TrainOutputs, ASecondRunReplacesThePreviousRunWhole) {
  if (!have_digits()) GTEST_SKIP() << "digits data missing (Debian python3-sklearn; run scripts/setup)";
  TempDir d;
  ASSERT_EQ(run(train_into(d / "runs", "fp32,fp8-current", 3)).status, 0);
  ASSERT_EQ(run(train_into(d / "fresh", "fp32", 1)).status, 0);
  const Result r = run(train_into(d / "runs", "fp32", 1));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(entries(d / "runs"), entries(d / "fresh"));
  EXPECT_EQ(slurp(d / "runs" / "mlp-digits" / "fp32" / "seed0.csv"),
            slurp(d / "fresh" / "mlp-digits" / "fp32" / "seed0.csv"));
}

// Item 3: a folder holding anything a train run does not write is refused before any work, naming it.
TEST(TrainOutputs, AFolderWithOtherFilesIsRefusedAndKept) {
  if (!have_digits()) GTEST_SKIP() << "digits data missing (Debian python3-sklearn; run scripts/setup)";
  TempDir d;
  ASSERT_EQ(run(train_into(d / "runs", "fp32", 1)).status, 0);
  { std::ofstream(d / "runs" / "notes.txt") << "mine\n"; }
  const auto before = snapshot(d.path);
  const Result r = run(train_into(d / "runs", "fp32", 1));
  expect_bad(r, "notes.txt");
  EXPECT_NE(r.err.find("not written by `minifloat train`"), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(d.path), before);
  EXPECT_EQ(names_of(snapshot(d.path)), names_of(before));
}

// Item 3: SIGINT during a run into a new folder leaves nothing behind, not even empty folders.
TEST(TrainOutputs, SigintIntoANewFolderLeavesNothing) {
  if (!have_digits()) GTEST_SKIP() << "digits data missing (Debian python3-sklearn; run scripts/setup)";
  TempDir d;
  RunOptions pause;
  pause.fault = "pause_after_bytes:500";  // inside a worker thread's per-run CSV
  pause.signal_on_pause = SIGINT;
  const Result r = run(train_into(d / "runs", "fp32,fp8-current", 2), pause);
  EXPECT_EQ(r.status, 128 + SIGINT) << r.err;
  EXPECT_EQ(entries(d.path), std::vector<std::string>{});
}

std::vector<std::vector<std::string>> read_csv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) row.push_back(cell);
    if (!line.empty() && line.back() == ',') row.push_back("");
    rows.push_back(row);
  }
  return rows;
}

// Item 18: the FP32 recipe has no quantization error, so its SQNR cells are empty (not a sentinel 300);
// the held-out loss is `val_loss` in the per-seed CSV and `val_loss_mean` in summary.csv.
TEST(TrainOutputs, Fp32SqnrIsEmptyAndTheHeldOutLossHasOneName) {
  if (!have_digits()) GTEST_SKIP() << "digits data missing (Debian python3-sklearn; run scripts/setup)";
  TempDir d;
  ASSERT_EQ(run(train_into(d / "runs", "fp32,fp8-current", 3)).status, 0);
  const auto seed = read_csv(d / "runs" / "mlp-digits" / "fp32" / "seed0.csv");
  ASSERT_GE(seed.size(), 2u);
  int sqnr_cols = 0;
  for (std::size_t c = 0; c < seed[0].size(); ++c) {
    if (seed[0][c].find("_sqnr_db") == std::string::npos) continue;
    ++sqnr_cols;
    for (std::size_t r = 1; r < seed.size(); ++r) EXPECT_EQ(seed[r].at(c), "") << seed[0][c] << " row " << r;
  }
  EXPECT_EQ(sqnr_cols, 3);
  const auto q = read_csv(d / "runs" / "mlp-digits" / "fp8-current" / "seed0.csv");  // quantized: a number
  for (std::size_t c = 0; c < q[0].size(); ++c)
    if (q[0][c] == "x_sqnr_db") {
      EXPECT_NE(q[1].at(c), "");
      EXPECT_LT(std::stod(q[1].at(c)), 200.0);
    }
  EXPECT_NE(std::find(seed[0].begin(), seed[0].end(), "val_loss"), seed[0].end());
  const auto sum = read_csv(d / "runs" / "summary.csv");
  for (const auto& h : sum[0]) EXPECT_EQ(h.find("test_"), std::string::npos) << h;
  EXPECT_NE(std::find(sum[0].begin(), sum[0].end(), "val_loss_mean"), sum[0].end());
  EXPECT_NE(std::find(sum[0].begin(), sum[0].end(), "val_loss_std"), sum[0].end());
}

// Item 18: one seed has no spread ("n/a", not "± 0"; summary.csv's sd empty) and a ranking from
// fewer than 3 seeds carries a warning, on stderr and in summary.md; 3 seeds carry neither.
TEST(TrainOutputs, FewSeedsSayNoSpreadAndWarn) {
  if (!have_digits()) GTEST_SKIP() << "digits data missing (Debian python3-sklearn; run scripts/setup)";
  TempDir d;
  const Result one = run(train_into(d / "one", "fp32,fp8-current", 1));
  ASSERT_EQ(one.status, 0) << one.err;
  const std::string md = slurp(d / "one" / "summary.md");
  EXPECT_EQ(md.find("± 0 "), std::string::npos) << md;
  EXPECT_NE(md.find("± n/a"), std::string::npos) << md;
  EXPECT_NE(md.find("warning: 1 seed"), std::string::npos) << md;
  EXPECT_NE(one.err.find("warning: 1 seed"), std::string::npos) << one.err;
  const auto sum = read_csv(d / "one" / "summary.csv");
  const auto sd = std::find(sum[0].begin(), sum[0].end(), "val_loss_std") - sum[0].begin();
  ASSERT_LT(static_cast<std::size_t>(sd), sum[0].size());
  EXPECT_EQ(sum[1].at(static_cast<std::size_t>(sd)), "");
  const Result three = run(train_into(d / "three", "fp32,fp8-current", 3));
  ASSERT_EQ(three.status, 0) << three.err;
  EXPECT_EQ(three.err.find("warning"), std::string::npos) << three.err;
  EXPECT_EQ(slurp(d / "three" / "summary.md").find("warning"), std::string::npos);
}
}  // namespace

namespace {
// ---- issue 28 item 17: loss.svg is a two-panel figure --------------------------------------------

/// The elements of `svg` whose start tag contains `needle` (one per line: the writer puts each on its own).
std::vector<std::string> svg_elements(const std::string& svg, const std::string& needle) {
  std::vector<std::string> v;
  std::istringstream in(svg);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) v.push_back(line);
  return v;
}

/// The text content of every `<text class="CLS" ...>VALUE</text>` in `lines`.
std::vector<double> tick_values(const std::vector<std::string>& lines) {
  std::vector<double> v;
  for (const std::string& l : lines) {
    const std::size_t a = l.find('>'), b = l.find("</text>");
    if (a != std::string::npos && b != std::string::npos && b > a) v.push_back(std::stod(l.substr(a + 1, b - a - 1)));
  }
  return v;
}

/// True when the ticks start at 0 and are evenly spaced by 1, 2 or 5 times a power of ten.
bool round_ticks(const std::vector<double>& t) {
  if (t.size() < 3 || t[0] != 0) return false;
  const double step = t[1] - t[0];
  const double e = std::pow(10.0, std::floor(std::log10(step)));
  const double m = step / e;
  if (std::abs(m - 1) > 1e-9 && std::abs(m - 2) > 1e-9 && std::abs(m - 5) > 1e-9) return false;
  for (std::size_t i = 1; i < t.size(); ++i)
    if (std::abs(t[i] - t[i - 1] - step) > 1e-9 * step) return false;
  return true;
}

TEST(TrainOutputs, LossPlotHasTwoPanelsSeedBandsAndRoundTicks) {
  if (!have_digits()) GTEST_SKIP() << "digits data missing (Debian python3-sklearn; run scripts/setup)";
  TempDir d;
  const std::vector<std::string> recipes{"fp32", "fp8-current", "nvfp4"};
  ASSERT_EQ(run(train_into(d / "three", "fp32,fp8-current,nvfp4", 2, 165)).status, 0);
  const std::string svg = slurp(d / "three" / "loss.svg");
  // Two panels: the losses, and the gap to FP32 in percent.
  EXPECT_EQ(svg_elements(svg, "<g class=\"panel\"").size(), 2u) << svg.substr(0, 2000);
  EXPECT_EQ(svg_elements(svg, "data-panel=\"loss\"").size(), 1u);
  EXPECT_EQ(svg_elements(svg, "data-panel=\"gap\"").size(), 1u);
  for (const auto& r : recipes) {
    // Train and validation curves per recipe, a min–max band per recipe (2 seeds), a gap curve per
    // quantized recipe.
    EXPECT_EQ(svg_elements(svg, "class=\"curve\" data-recipe=\"" + r + "\" data-series=\"train\"").size(), 1u) << r;
    EXPECT_EQ(svg_elements(svg, "class=\"curve\" data-recipe=\"" + r + "\" data-series=\"val\"").size(), 1u) << r;
    EXPECT_EQ(svg_elements(svg, "class=\"band\" data-recipe=\"" + r + "\"").size(), 1u) << r;
    EXPECT_EQ(svg_elements(svg, "class=\"curve\" data-recipe=\"" + r + "\" data-series=\"gap\"").size(),
              r == "fp32" ? 0u : 1u)
        << r;
  }
  // FP32 drawn distinctly: black, thicker than the others, and after them (on top).
  const auto curves = svg_elements(svg, "class=\"curve\" data-recipe=");
  ASSERT_FALSE(curves.empty());
  std::size_t last_fp32 = 0, last_other = 0;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const bool fp32 = curves[i].find("data-recipe=\"fp32\"") != std::string::npos;
    if (fp32) {
      EXPECT_NE(curves[i].find("stroke=\"#000000\""), std::string::npos) << curves[i];
      EXPECT_NE(curves[i].find("stroke-width=\"2.5\""), std::string::npos) << curves[i];
      last_fp32 = i;
    } else if (curves[i].find("data-series=\"gap\"") == std::string::npos) {
      EXPECT_EQ(curves[i].find("stroke=\"#000000\""), std::string::npos) << curves[i];
      last_other = i;
    }
  }
  EXPECT_GT(last_fp32, last_other) << "fp32 must be drawn after the other loss curves";
  // Round step ticks on both panels (165 steps: 0, 20, 40, ... or 0, 50, 100, 150).
  const auto xt = tick_values(svg_elements(svg, "class=\"xtick\""));
  ASSERT_FALSE(xt.empty());
  std::vector<double> first(xt.begin(), xt.begin() + static_cast<std::ptrdiff_t>(xt.size() / 2));
  EXPECT_EQ(xt.size() % 2, 0u);
  EXPECT_TRUE(round_ticks(first)) << ::testing::PrintToString(xt);
  EXPECT_TRUE(round_ticks(std::vector<double>(xt.begin() + static_cast<std::ptrdiff_t>(xt.size() / 2), xt.end())));
  // One seed: no band.
  ASSERT_EQ(run(train_into(d / "one", "fp32,fp8-current", 1)).status, 0);
  EXPECT_TRUE(svg_elements(slurp(d / "one" / "loss.svg"), "class=\"band\"").empty());
}
}  // namespace
