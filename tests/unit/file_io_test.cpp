// SPDX-License-Identifier: Apache-2.0
// file_io_test.cpp: the one file writer (file_io.hpp OutputSet) and the streaming .npy /
// .safetensors writers: an output equal to an input or to another output (same path, ./x vs x,
// symlink, hard link) is refused; symlinks are written through; special files and unwritable or
// missing folders are refused before anything is written; an injected write failure and a real
// SIGINT/SIGTERM mid-write leave every old output byte-identical and no temporary behind.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/file_io.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/safetensors.hpp"

namespace {
using namespace minifloat;
namespace fs = std::filesystem;

/// A fresh empty folder per test.
struct TempDir {
  fs::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() /
           ("minifloat_file_io_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
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
void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

/// Every entry of `dir` (dot files included), sorted.
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

/// The message of the IoError `fn` throws (fails the test when it throws nothing or another type).
std::string io_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const IoError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an IoError: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no error";
  return {};
}

struct FaultEnv {
  explicit FaultEnv(const char* v) { ::setenv("MINIFLOAT_TEST_FAULT", v, 1); }
  ~FaultEnv() { ::unsetenv("MINIFLOAT_TEST_FAULT"); }
};

TEST(OutputSet, RefusesAnOutputThatIsAnInput) {
  TempDir d;
  put(d / "m.safetensors", "model bytes");
  fs::create_symlink("m.safetensors", d / "link");
  fs::create_hard_link(d / "m.safetensors", d / "hard");
  const fs::path cwd = fs::current_path();
  fs::current_path(d.path);
  for (const fs::path& out : {fs::path("m.safetensors"), fs::path("./m.safetensors"), fs::path("sub/../m.safetensors"),
                             d / "m.safetensors", fs::path("link"), fs::path("hard")}) {
    fs::create_directories(d / "sub");
    OutputSet s;
    s.add_input("m.safetensors", "--in");
    const std::string m = io_error([&] { s.add_output(out, "--out-codes"); });
    EXPECT_NE(m.find("--out-codes"), std::string::npos) << m;
    EXPECT_NE(m.find("same file as --in 'm.safetensors'"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  {  // the input registered after the output is caught too
    OutputSet s;
    s.add_output("link", "--out");
    const std::string m = io_error([&] { s.add_input("./m.safetensors", "--a"); });
    EXPECT_NE(m.find("--out 'link' is the same file as --a"), std::string::npos) << m;
  }
  fs::current_path(cwd);
  EXPECT_EQ(slurp(d / "m.safetensors"), "model bytes");
  EXPECT_EQ(entries(d.path), (std::vector<std::string>{"hard", "link", "m.safetensors", "sub"}));
}

TEST(OutputSet, RefusesTwoOutputsOfOneFile) {
  TempDir d;
  put(d / "d.npy", "old");
  fs::create_symlink(d / "d.npy", d / "abs_link");
  fs::create_hard_link(d / "d.npy", d / "hard.npy");
  fs::create_symlink(d / "new.npy", d / "dangling");
  const fs::path cwd = fs::current_path();
  fs::current_path(d.path);
  const std::vector<std::pair<fs::path, fs::path>> pairs = {
      {"d.npy", "d.npy"}, {"./d.npy", "d.npy"}, {"d.npy", "abs_link"}, {"hard.npy", "d.npy"},
      {"new.npy", "./new.npy"}, {"dangling", "new.npy"}};
  for (const auto& [a, b] : pairs) {
    OutputSet s;
    s.add_output(a, "--out-codes");
    const std::string m = io_error([&] { s.add_output(b, "--out-scales"); });
    EXPECT_NE(m.find("--out-scales '" + b.string() + "'"), std::string::npos) << m;
    EXPECT_NE(m.find("same file as --out-codes '" + a.string() + "'"), std::string::npos) << m;
  }
  fs::current_path(cwd);
  EXPECT_EQ(slurp(d / "d.npy"), "old");
  EXPECT_EQ(entries(d.path), (std::vector<std::string>{"abs_link", "d.npy", "dangling", "hard.npy"}));
}

TEST(OutputSet, WritesThroughASymlinkChain) {
  TempDir d;
  fs::create_directories(d / "real");
  put(d / "real" / "t.npy", "old");
  fs::permissions(d / "real" / "t.npy", fs::perms(0640));
  fs::create_symlink("real/t.npy", d / "l1");  // relative
  fs::create_symlink(d / "l1", d / "l2");      // absolute, to a link
  OutputSet s;
  const OutputId id = s.add_output(d / "l2", "--out");
  EXPECT_EQ(s.target(id), d / "real" / "t.npy");
  EXPECT_EQ(s.temporary(id).parent_path(), d / "real");  // beside the final target
  s.write(id, "new");
  s.commit();
  EXPECT_TRUE(fs::is_symlink(d / "l1"));
  EXPECT_TRUE(fs::is_symlink(d / "l2"));
  EXPECT_EQ(fs::read_symlink(d / "l1"), "real/t.npy");
  EXPECT_EQ(slurp(d / "real" / "t.npy"), "new");
  EXPECT_EQ(fs::status(d / "real" / "t.npy").permissions(), fs::perms(0640));
  EXPECT_EQ(entries(d / "real"), std::vector<std::string>{"t.npy"});
  // A dangling link creates its target; the link stays.
  fs::create_symlink("fresh.npy", d / "dl");
  write_file(d / "dl", "x");
  EXPECT_TRUE(fs::is_symlink(d / "dl"));
  EXPECT_EQ(slurp(d / "fresh.npy"), "x");
  // A link loop is refused.
  fs::create_symlink("loop_b", d / "loop_a");
  fs::create_symlink("loop_a", d / "loop_b");
  EXPECT_NE(io_error([&] { write_file(d / "loop_a", "x", "--out"); }).find("symbolic links"), std::string::npos);
}

TEST(OutputSet, NewFilesGetTheUmaskModeAndExistingFilesKeepTheirs) {
  TempDir d;
  const mode_t mask = ::umask(022);
  write_file(d / "new", "a");
  EXPECT_EQ(fs::status(d / "new").permissions(), fs::perms(0644));
  put(d / "old", "b");
  fs::permissions(d / "old", fs::perms(0600));
  write_file(d / "old", "c");
  EXPECT_EQ(fs::status(d / "old").permissions(), fs::perms(0600));
  ::umask(mask);
}

TEST(OutputSet, RefusesSpecialFilesWithoutOpeningThem) {
  TempDir d;
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  fs::create_directories(d / "folder");
  fs::create_symlink("/dev/full", d / "to_full");
  struct Case {
    fs::path path;
    const char* what;
  };
  for (const Case& c : {Case{"/dev/full", "a character device"}, Case{d / "to_full", "a character device"},
                        Case{d / "fifo", "a FIFO"}, Case{d / "folder", "a folder"}}) {
    OutputSet s;
    const std::string m = io_error([&] { s.add_output(c.path, "--out"); });  // a FIFO would block on open()
    EXPECT_NE(m.find(c.what), std::string::npos) << m;
    EXPECT_NE(m.find("outputs must be regular files"), std::string::npos) << m;
  }
  EXPECT_NE(io_error([&] { write_file(d.path / "", "x", "--out"); }).find("names a folder"), std::string::npos);
  struct stat st{};
  ASSERT_EQ(::stat((d / "fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(d.path), (std::vector<std::string>{"fifo", "folder", "to_full"}));
}

TEST(OutputSet, RefusesAMissingFolder) {
  TempDir d;
  const std::string m = io_error([&] { write_file(d / "missing" / "x.npy", "x", "--out"); });
  // (the path is shown as given)
  EXPECT_NE(m.find("--out '" + (d / "missing" / "x.npy").string() + "': folder"), std::string::npos) << m;
  EXPECT_NE(m.find("does not exist"), std::string::npos) << m;
  EXPECT_TRUE(entries(d.path).empty());
}

/// Runs `fn` in a child process as the unprivileged user `nobody` when we are root (root may write
/// into a read-only folder), else in this process; returns what fn returned (as the exit status).
int as_unprivileged(const std::function<int()>& fn) {
  if (::geteuid() != 0) return fn();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(100);
    ::_exit(fn());
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 101;
}

TEST(OutputSet, RefusesAReadOnlyFolder) {
  TempDir d;
  fs::permissions(d.path, fs::perms(0755));
  fs::create_directories(d / "ro");
  put(d / "ro" / "old.npy", "old");
  fs::permissions(d / "ro" / "old.npy", fs::perms(0666));
  put(d / "locked.npy", "locked");
  fs::permissions(d / "locked.npy", fs::perms(0444));
  fs::permissions(d / "ro", fs::perms(0555));
  const int locked = as_unprivileged([&] {  // a read-only file in a writable folder is not replaced either
    try {
      OutputSet s;
      s.add_output(d / "locked.npy", "--out");
      return 1;
    } catch (const IoError& e) {
      return std::string(e.what()).find("is read-only") != std::string::npos ? 0 : 2;
    }
  });
  EXPECT_EQ(locked, 0);
  EXPECT_EQ(slurp(d / "locked.npy"), "locked");
  const int rc = as_unprivileged([&] {
    try {
      OutputSet s;
      s.add_output(d / "ro" / "old.npy", "--out");
      return 1;  // no error
    } catch (const IoError& e) {
      const std::string m = e.what();
      return m.find("is not writable") != std::string::npos && m.find("--out") != std::string::npos ? 0 : 2;
    } catch (...) {
      return 3;
    }
  });
  EXPECT_EQ(rc, 0) << "0: refused naming --out and 'not writable'; 1: accepted; 100: could not drop privileges";
  fs::permissions(d / "ro", fs::perms(0755));
  EXPECT_EQ(slurp(d / "ro" / "old.npy"), "old");
  EXPECT_EQ(entries(d / "ro"), std::vector<std::string>{"old.npy"});
}

TEST(OutputSet, InjectedWriteFailureLeavesEveryOldOutputAndNoTemporary) {
  TempDir d;
  put(d / "codes.npy", "old codes");
  put(d / "scales.npy", "old scales");
  for (int fail_at : {0, 4, 12}) {
    FaultEnv env(("write_fail_after_bytes:" + std::to_string(fail_at)).c_str());
    const std::string m = io_error([&] {
      OutputSet s;
      const OutputId a = s.add_output(d / "codes.npy", "--out-codes");
      const OutputId b = s.add_output(d / "scales.npy", "--out-scales");
      s.write(a, "new codes!");  // 10 bytes
      s.write(b, "new scales");
      s.commit();
    });
    EXPECT_NE(m.find("No space left on device"), std::string::npos) << m;
    EXPECT_NE(m.find(fail_at < 10 ? "--out-codes" : "--out-scales"), std::string::npos) << m;
    EXPECT_EQ(slurp(d / "codes.npy"), "old codes");
    EXPECT_EQ(slurp(d / "scales.npy"), "old scales");
    EXPECT_EQ(entries(d.path), (std::vector<std::string>{"codes.npy", "scales.npy"}));
  }
  {  // an output whose write failed can be neither finished nor committed
    FaultEnv env("write_fail_after_bytes:3");
    OutputSet s;
    const OutputId a = s.add_output(d / "codes.npy", "--out-codes");
    EXPECT_THROW(s.append(a, "0123456789"), IoError);
    EXPECT_THROW(s.finish(a), Error);
    EXPECT_THROW(s.commit(), Error);
  }
  EXPECT_EQ(slurp(d / "codes.npy"), "old codes");
  {
    FaultEnv env("write_fail_after_bytes:20");  // exactly enough
    OutputSet s;
    s.write(s.add_output(d / "codes.npy", "--out-codes"), "new codes!");
    s.write(s.add_output(d / "scales.npy", "--out-scales"), "new scales");
    s.commit();
  }
  EXPECT_EQ(slurp(d / "codes.npy"), "new codes!");
  EXPECT_EQ(slurp(d / "scales.npy"), "new scales");
  FaultEnv bad("write_fail_after:3");
  try {
    OutputSet s;
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("write_fail_after_bytes:N, pause_after_bytes:N"), std::string::npos);
  }
}

TEST(OutputSet, NothingIsReplacedUntilCommitAndUnfinishedOutputsBlockIt) {
  TempDir d;
  put(d / "a", "old a");
  put(d / "b", "old b");
  {
    OutputSet s;
    s.write(s.add_output(d / "a", "--a"), "new a");
    EXPECT_EQ(slurp(d / "a"), "old a");  // written to the temporary only
    EXPECT_EQ(entries(d.path).size(), 3u);
  }  // destroyed without commit
  EXPECT_EQ(slurp(d / "a"), "old a");
  EXPECT_EQ(entries(d.path), (std::vector<std::string>{"a", "b"}));
  {
    OutputSet s;
    s.write(s.add_output(d / "a", "--a"), "new a");
    const OutputId b = s.add_output(d / "b", "--b");
    s.append(b, "half");
    EXPECT_THROW(s.commit(), Error);
    s.finish(b);
    EXPECT_THROW(s.append(b, "more"), Error);
  }
  EXPECT_EQ(slurp(d / "a"), "old a");
  EXPECT_EQ(slurp(d / "b"), "old b");
  EXPECT_EQ(entries(d.path), (std::vector<std::string>{"a", "b"}));
}

TEST(OutputSet, ThousandsOfOutputsAndTheHandlerIsRemovedAfterwards) {
  TempDir d;
  {
    OutputSet s;
    std::vector<OutputId> ids;
    for (int i = 0; i < 3000; ++i) ids.push_back(s.add_output(d.path / "f" += std::to_string(i), "--out"));
    struct sigaction sa{};
    ::sigaction(SIGINT, nullptr, &sa);
    EXPECT_NE(sa.sa_handler, SIG_DFL);  // installed while temporaries exist
    for (int i = 0; i < 3000; ++i) s.write(ids[static_cast<std::size_t>(i)], std::to_string(i));
    s.commit();
  }
  EXPECT_EQ(entries(d.path).size(), 3000u);
  EXPECT_EQ(slurp(d / "f2999"), "2999");
  struct sigaction sa{};
  ::sigaction(SIGINT, nullptr, &sa);
  EXPECT_EQ(sa.sa_handler, SIG_DFL);
}

/// A child writes two outputs through an OutputSet paused mid-write by the fault hook; the parent
/// sends `sig` once the child reports the pause.
void signal_mid_write(int sig) {
  TempDir d;
  put(d / "a.npy", "old a");
  put(d / "b.npy", "old b");
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipefd[1], 2);
    ::close(pipefd[0]);
    ::signal(sig, SIG_DFL);
    ::setenv("MINIFLOAT_TEST_FAULT", "pause_after_bytes:7", 1);
    OutputSet s;
    const OutputId a = s.add_output(d / "a.npy", "--a");
    const OutputId b = s.add_output(d / "b.npy", "--b");
    s.write(a, "new a");
    s.write(b, "new b");  // pauses after 2 of these bytes
    s.commit();
    ::_exit(0);
  }
  ::close(pipefd[1]);
  std::string err;
  char buf[256];
  while (err.find('\n') == std::string::npos) {
    const ssize_t k = ::read(pipefd[0], buf, sizeof buf);
    if (k <= 0) break;
    err.append(buf, static_cast<std::size_t>(k));
  }
  EXPECT_EQ(err, "minifloat: test fault: paused after 7 bytes\n");
  EXPECT_EQ(entries(d.path).size(), 4u);  // both temporaries exist now
  ::kill(pid, sig);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ::close(pipefd[0]);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == sig) << "status " << st;
  EXPECT_EQ(slurp(d / "a.npy"), "old a");
  EXPECT_EQ(slurp(d / "b.npy"), "old b");
  EXPECT_EQ(entries(d.path), (std::vector<std::string>{"a.npy", "b.npy"}));
}
TEST(OutputSet, SigintMidWriteLeavesEveryOutputAndNoTemporary) { signal_mid_write(SIGINT); }
TEST(OutputSet, SigtermMidWriteLeavesEveryOutputAndNoTemporary) { signal_mid_write(SIGTERM); }

TEST(StreamingWriters, NpyInPiecesEqualsTheWholeArray) {
  TempDir d;
  std::vector<float> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.25f;
  const NpyArray whole = make_npy_f32({10, 100}, v);
  write_npy(d / "whole.npy", whole);
  OutputSet s;
  NpyWriter w(s, s.add_output(d / "pieces.npy", "--out"), "<f4", {10, 100});
  for (std::size_t r = 0; r < 10; ++r) w.append_values(std::span<const float>(v.data() + r * 100, 100));
  EXPECT_EQ(w.remaining(), 0u);
  EXPECT_THROW(w.append(std::as_bytes(std::span<const float>(v.data(), 1))), Error);
  w.finish();
  s.commit();
  EXPECT_EQ(slurp(d / "pieces.npy"), slurp(d / "whole.npy"));
  const NpyArray back = read_npy(d / "pieces.npy");
  EXPECT_EQ(back.shape, whole.shape);
  EXPECT_EQ(back.data, whole.data);
  {  // short data: finish throws, commit refuses, the old file stays
    OutputSet t;
    NpyWriter w2(t, t.add_output(d / "pieces.npy", "--out"), "|u1", {4});
    const std::byte three[3]{};
    w2.append(three);
    EXPECT_THROW(w2.finish(), Error);
    EXPECT_THROW(t.commit(), Error);
  }
  EXPECT_EQ(slurp(d / "pieces.npy"), slurp(d / "whole.npy"));
  OutputSet u;
  EXPECT_THROW(NpyWriter(u, u.add_output(d / "x.npy", "--out"), "<q8", {1}), ParseError);
}

TEST(StreamingWriters, SafetensorsInPiecesAcrossTensors) {
  TempDir d;
  const NpyArray a = make_npy_u8({2, 3}, {1, 2, 3, 4, 5, 6});
  const NpyArray e = make_npy_u8({0}, {});
  const NpyArray b = make_npy_f32({2}, {1.5f, -2.0f});
  const std::map<std::string, std::string> meta{{"scheme", "mxfp8_e4m3"}};
  write_safetensors(d / "whole.safetensors", {{"a", a}, {"empty", e}, {"b", b}}, meta);
  OutputSet s;
  SafetensorsWriter w(s, s.add_output(d / "pieces.safetensors", "--out"),
                      {{"a", "|u1", {2, 3}}, {"empty", "|u1", {0}}, {"b", "<f4", {2}}}, meta);
  std::vector<std::byte> all(a.data);
  all.insert(all.end(), b.data.begin(), b.data.end());
  w.append(std::span<const std::byte>(all).first(4));
  EXPECT_EQ(w.current_tensor(), 0u);
  w.append(std::span<const std::byte>(all).subspan(4, 5));  // ends a, skips empty, starts b
  EXPECT_EQ(w.current_tensor(), 2u);
  w.append(std::span<const std::byte>(all).subspan(9));
  EXPECT_EQ(w.current_tensor(), 3u);
  EXPECT_THROW(w.append(std::span<const std::byte>(all).first(1)), Error);
  w.finish();
  s.commit();
  EXPECT_EQ(slurp(d / "pieces.safetensors"), slurp(d / "whole.safetensors"));
  const SafetensorsFile f = read_safetensors_header(d / "pieces.safetensors");
  EXPECT_EQ(f.metadata.at("scheme"), "mxfp8_e4m3");
  EXPECT_EQ(read_safetensor(f, "b").data, b.data);
  OutputSet t;
  const OutputId id = t.add_output(d / "bad.safetensors", "--out");
  EXPECT_THROW(SafetensorsWriter(t, id, {{"x", "|u1", {1}}, {"x", "|u1", {1}}}), ParseError);
}

}  // namespace
