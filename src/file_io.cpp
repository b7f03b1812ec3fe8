// SPDX-License-Identifier: Apache-2.0
// file_io.cpp: the one file writer — OutputSet transactions (temporaries beside their targets,
// renamed together), the SIGINT/SIGTERM/SIGHUP cleanup of temporaries, the test-only fault hook.
#include "minifloat/file_io.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

namespace minifloat {
namespace fs = std::filesystem;
namespace {

// ---- temporaries the signal handler removes -------------------------------------------------
// A fixed table of chunks of slots (chunks are allocated once and never freed); each slot holds a
// heap copy of a temporary's path (or of a folder add_folder created) or nullptr. The handler only
// loads lock-free atomics and calls unlink(), rmdir() and raise(), which are async-signal-safe.

constexpr std::size_t kChunk = 1024, kChunks = 256;  // up to 262144 temporaries at a time
std::array<std::atomic<std::atomic<char*>*>, kChunks> g_chunks{};
std::atomic<int> g_in_handler{0};  // > 0 once a handler has started reading the slots
std::atomic<int> g_committing{0};  // a commit() is renaming: handlers on other threads defer
std::atomic<int> g_pending{0};     // the signal a deferring handler saw
constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
constexpr int kFolderDepth = 8;  // nested folders of one set the handler removes (OutputSet::add_folder)

std::mutex g_mu;  // guards the fields below and slot allocation (never taken in the handler)
std::size_t g_live = 0;
std::array<bool, kSignals.size()> g_installed{};

extern "C" void remove_temporaries_and_reraise(int sig) {
  g_in_handler.fetch_add(1);
  if (g_committing.load() > 0) {  // another thread is renaming: let it finish, it re-raises
    g_pending.store(sig);
    return;
  }
  // Files first (unlink), then the folders a set created (rmdir only removes an emptied one; a pass
  // per level of nesting, so a folder goes after the folders inside it). unlink of a folder and
  // rmdir of a file fail harmlessly.
  for (int pass = 0; pass <= kFolderDepth; ++pass)
    for (auto& c : g_chunks) {
      std::atomic<char*>* chunk = c.load();
      if (chunk == nullptr) continue;
      for (std::size_t i = 0; i < kChunk; ++i)
        if (char* p = chunk[i].load()) pass == 0 ? ::unlink(p) : ::rmdir(p);
    }
  ::raise(sig);  // SA_RESETHAND restored the default action and SA_NODEFER leaves it unblocked
}

void install_handlers_locked() {
  for (std::size_t k = 0; k < kSignals.size(); ++k) {
    struct sigaction old {};
    if (::sigaction(kSignals[k], nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;  // ignored or the program's own
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    g_installed[k] = ::sigaction(kSignals[k], &sa, nullptr) == 0;
  }
}

void uninstall_handlers_locked() {
  for (std::size_t k = 0; k < kSignals.size(); ++k) {
    if (!g_installed[k]) continue;
    struct sigaction cur {};
    // Restore the default only if our handler is still there (SA_RESETHAND may have reset it).
    if (::sigaction(kSignals[k], nullptr, &cur) == 0 && cur.sa_handler == remove_temporaries_and_reraise) {
      struct sigaction sa {};
      sa.sa_handler = SIG_DFL;
      sigemptyset(&sa.sa_mask);
      ::sigaction(kSignals[k], &sa, nullptr);
    }
    g_installed[k] = false;
  }
}

/// Registers `path` for removal by the signal handler; returns its slot.
std::size_t register_temporary(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (std::size_t c = 0; c < kChunks; ++c) {
    std::atomic<char*>* chunk = g_chunks[c].load();
    if (chunk == nullptr) {
      chunk = new std::atomic<char*>[kChunk]();  // never freed: a handler may read it at any time
      g_chunks[c].store(chunk);
    }
    for (std::size_t i = 0; i < kChunk; ++i) {
      if (chunk[i].load() != nullptr) continue;
      char* copy = static_cast<char*>(std::malloc(path.size() + 1));
      if (copy == nullptr) throw IoError("out of memory registering a temporary file");
      std::memcpy(copy, path.c_str(), path.size() + 1);
      chunk[i].store(copy);
      if (g_live++ == 0) install_handlers_locked();
      return c * kChunk + i;
    }
  }
  throw IoError("more than " + std::to_string(kChunk * kChunks) + " temporary files at once");
}

void unregister_temporary(std::size_t slot) noexcept {
  std::lock_guard<std::mutex> lock(g_mu);
  char* p = g_chunks[slot / kChunk].load()[slot % kChunk].exchange(nullptr);
  // A handler that already started may still read the string: the process is about to die then.
  if (g_in_handler.load() == 0) std::free(p);
  if (--g_live == 0) uninstall_handlers_locked();
}

// ---- paths -----------------------------------------------------------------------------------

std::string describe_file_type(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

std::string label(std::string_view what) { return what.empty() ? std::string("output") : std::string(what); }

/// `path` with every symlink of the chain at its last component followed and its folder made
/// canonical (the final component need not exist).
fs::path resolve(const fs::path& path, std::string_view what) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) throw IoError(label(what) + " '" + path.string() + "': " + ec.message());
  for (int hops = 0;; ++hops) {
    const fs::path folder = fs::weakly_canonical(p.parent_path(), ec);
    if (ec) throw IoError(label(what) + " '" + path.string() + "': " + ec.message());
    p = folder / p.filename();
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    if (hops == 40) throw IoError(label(what) + " '" + path.string() + "': more than 40 levels of symbolic links");
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) throw IoError(label(what) + " '" + path.string() + "': " + ec.message());
    p = link.is_absolute() ? link : folder / link;
  }
}

struct FileIdentity {
  fs::path resolved;
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
};

std::string shown(const fs::path& given, const fs::path& resolved) {
  std::error_code ec;
  const fs::path abs = fs::absolute(given, ec);
  std::string s = "'" + given.string() + "'";
  if (ec || abs.lexically_normal() != resolved) s += " (resolves to '" + resolved.string() + "')";
  return s;
}

// ---- the test-only fault hook ---------------------------------------------------------------

enum class FaultKind : std::uint8_t { none, write_fail, pause };
struct Fault {
  FaultKind kind = FaultKind::none;
  std::uint64_t after = 0;
};

Fault read_fault() {
  const char* env = std::getenv("MINIFLOAT_TEST_FAULT");
  if (env == nullptr || *env == '\0') return {};
  const std::string_view v(env);
  const auto bad = [&]() -> Fault {
    throw Error("MINIFLOAT_TEST_FAULT='" + std::string(v.substr(0, 40)) +
                "' is not understood (test-only); accepted: write_fail_after_bytes:N, pause_after_bytes:N");
  };
  const auto colon = v.find(':');
  if (colon == std::string_view::npos) return bad();
  const std::string_view key = v.substr(0, colon), num = v.substr(colon + 1);
  Fault f;
  const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), f.after);
  if (num.empty() || ec != std::errc{} || p != num.data() + num.size()) return bad();
  if (key == "write_fail_after_bytes") f.kind = FaultKind::write_fail;
  else if (key == "pause_after_bytes") f.kind = FaultKind::pause;
  else return bad();
  return f;
}

void write_all(int fd, const char* data, std::size_t n, const std::string& what_target) {
  while (n > 0) {
    const ssize_t k = ::write(fd, data, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      throw IoError("cannot write " + what_target + ": " + std::strerror(errno));
    }
    data += k;
    n -= static_cast<std::size_t>(k);
  }
}

}  // namespace

// ---- OutputSet --------------------------------------------------------------------------------

struct OutputSet::Impl {
  struct Output {
    std::string what;
    fs::path given, target, temporary;
    FileIdentity id;
    std::size_t slot = 0;
    int fd = -1;
    bool finished = false;
    bool failed = false;  ///< a write failed: the temporary is incomplete and may never be committed
    std::uint64_t bytes = 0;
    std::string describe() const {
      std::string s(1, '\'');
      s.append(target.string()).append("' (").append(what).append(")");
      return s;
    }
  };
  struct Input {
    std::string what;
    fs::path given;
    FileIdentity id;
  };
  Fault fault;
  std::atomic<std::uint64_t> total{0};
  std::vector<Input> inputs;
  std::vector<Output> outputs;
  struct Folder {
    fs::path path;
    std::size_t slot;
  };
  std::vector<Folder> folders;  // created by add_folder: removed on rollback, kept by commit
  std::vector<fs::path> stale;  // remove_on_commit, in the order given
  bool committed = false;

  Output& at(OutputId id) {
    const auto k = static_cast<std::size_t>(id);
    if (k >= outputs.size()) throw Error("OutputSet: unknown output id " + std::to_string(k));
    return outputs[k];
  }
  const Output& at(OutputId id) const { return const_cast<Impl*>(this)->at(id); }
  // Every file already named, by resolved path and by (st_dev, st_ino): index into `named`.
  struct Named {
    bool output;
    std::size_t index;
  };
  std::map<std::string, Named> by_path;
  std::map<std::pair<dev_t, ino_t>, Named> by_inode;

  const Named* find(const FileIdentity& id) const {
    if (auto it = by_path.find(id.resolved.string()); it != by_path.end()) return &it->second;
    if (id.exists)
      if (auto it = by_inode.find({id.dev, id.ino}); it != by_inode.end()) return &it->second;
    return nullptr;
  }
  void remember(const FileIdentity& id, Named n) {
    by_path.emplace(id.resolved.string(), n);
    if (id.exists) by_inode.emplace(std::pair{id.dev, id.ino}, n);
  }
  void check_conflicts(const FileIdentity& id, const fs::path& given, std::string_view what, bool is_output) const {
    const Named* n = find(id);
    if (n == nullptr) return;
    if (!n->output && !is_output) return;  // one file read twice is fine
    const std::string& other_what = n->output ? outputs[n->index].what : inputs[n->index].what;
    const fs::path& other_given = n->output ? outputs[n->index].given : inputs[n->index].given;
    if (is_output && !n->output)
      throw IoError(label(what) + " " + shown(given, id.resolved) + " is the same file as " + other_what + " '" +
                    other_given.string() + "'; writing it would destroy the input: choose another output");
    if (is_output)
      throw IoError(label(what) + " " + shown(given, id.resolved) + " is the same file as " + other_what + " '" +
                    other_given.string() + "'; every output needs its own file");
    throw IoError(other_what + " '" + other_given.string() + "' is the same file as " + label(what) + " '" +
                  given.string() + "'; writing it would destroy the input: choose another output");
  }
  void remove_temporaries() noexcept {
    for (auto& o : outputs) {
      if (o.temporary.empty()) continue;
      if (o.fd >= 0) ::close(o.fd);
      o.fd = -1;
      ::unlink(o.temporary.c_str());
      unregister_temporary(o.slot);
      o.temporary.clear();
    }
    for (auto f = folders.rbegin(); f != folders.rend(); ++f) {  // the innermost first
      ::rmdir(f->path.c_str());
      unregister_temporary(f->slot);
    }
    folders.clear();
  }
};

OutputSet::OutputSet() : impl_(std::make_unique<Impl>()) { impl_->fault = read_fault(); }

OutputSet::~OutputSet() { impl_->remove_temporaries(); }

void OutputSet::add_input(const fs::path& path, std::string_view what) {
  FileIdentity id;
  id.resolved = resolve(path, what);
  struct stat st {};
  if (::stat(id.resolved.c_str(), &st) == 0) id = {id.resolved, true, st.st_dev, st.st_ino};
  impl_->check_conflicts(id, path, what, false);
  impl_->remember(id, {false, impl_->inputs.size()});
  impl_->inputs.push_back({label(what), path, id});
}

OutputId OutputSet::add_output(const fs::path& path, std::string_view what) {
  if (impl_->committed) throw Error("OutputSet: add_output after commit");
  const std::string w = label(what);
  if (path.empty()) throw IoError(w + ": empty file name");
  FileIdentity id;
  id.resolved = resolve(path, what);
  const std::string name = id.resolved.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw IoError(w + " '" + path.string() + "' names a folder; give a file name");
  struct stat st {};
  const bool exists = ::stat(id.resolved.c_str(), &st) == 0;
  if (exists) {
    if (!S_ISREG(st.st_mode))
      throw IoError(w + " " + shown(path, id.resolved) + " is " + describe_file_type(st.st_mode) +
                    "; outputs must be regular files");
    if (::access(id.resolved.c_str(), W_OK) != 0)
      throw IoError(w + " " + shown(path, id.resolved) + " is read-only (" + std::strerror(errno) +
                    "); it is not replaced");
    id.exists = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
  }
  const fs::path folder = id.resolved.parent_path();
  struct stat fst {};
  if (::stat(folder.c_str(), &fst) != 0 || !S_ISDIR(fst.st_mode))
    throw IoError(w + " '" + path.string() + "': folder '" + folder.string() + "' does not exist");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw IoError(w + " '" + path.string() + "': folder '" + folder.string() + "' is not writable (" +
                  std::strerror(errno) + ")");
  impl_->check_conflicts(id, path, what, true);

  static std::atomic<unsigned> counter{0};
  Impl::Output o;
  o.what = w;
  o.given = path;
  o.target = id.resolved;
  o.id = id;
  const std::string stem = name.substr(0, 200);  // the temporary's name stays within NAME_MAX
  for (int attempt = 0;; ++attempt) {
    std::string tmp_name(1, '.');
    tmp_name.append(stem).append(".minifloat-tmp.").append(std::to_string(::getpid()));
    tmp_name.append(1, '.').append(std::to_string(counter.fetch_add(1)));
    o.temporary = folder / tmp_name;
    o.slot = register_temporary(o.temporary.string());
    const int fd = ::open(o.temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      // The permission bits of an existing target; a new file gets 0666 & ~umask from open().
      if (exists && ::fchmod(fd, st.st_mode & 07777) != 0) {
        const int err = errno;
        ::close(fd);
        ::unlink(o.temporary.c_str());
        unregister_temporary(o.slot);
        throw IoError(w + " '" + path.string() + "': cannot set the mode of a temporary file in '" + folder.string() +
                      "' (" + std::strerror(err) + ")");
      }
      ::close(fd);
      break;
    }
    const int err = errno;
    unregister_temporary(o.slot);
    if (err == EEXIST && attempt < 100) continue;
    throw IoError(w + " '" + path.string() + "': cannot create a temporary file in folder '" + folder.string() + "' (" +
                  std::strerror(err) + ")");
  }
  impl_->remember(id, {true, impl_->outputs.size()});
  impl_->outputs.push_back(std::move(o));
  return static_cast<OutputId>(impl_->outputs.size() - 1);
}

void OutputSet::append(OutputId id, std::span<const std::byte> bytes) {
  Impl::Output& o = impl_->at(id);
  if (o.finished || impl_->committed) throw Error("OutputSet: append to " + o.describe() + " after finish");
  if (o.failed) throw Error("OutputSet: append to " + o.describe() + " after a failed write");
  o.failed = true;  // until this append completes
  if (o.fd < 0) {
    o.fd = ::open(o.temporary.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (o.fd < 0) throw IoError("cannot write " + o.describe() + ": " + std::strerror(errno));
  }
  const char* data = reinterpret_cast<const char*>(bytes.data());
  std::size_t n = bytes.size();
  const Fault& f = impl_->fault;
  if (f.kind != FaultKind::none) {
    const std::uint64_t before = impl_->total.fetch_add(n);
    if (before + n > f.after) {
      const std::size_t ok = before >= f.after ? 0 : static_cast<std::size_t>(f.after - before);
      write_all(o.fd, data, ok, o.describe());
      o.bytes += ok;
      if (f.kind == FaultKind::write_fail)
        throw IoError("cannot write " + o.describe() + ": " + std::strerror(ENOSPC) +
                      " (injected by MINIFLOAT_TEST_FAULT=write_fail_after_bytes:" + std::to_string(f.after) + ")");
      const std::string msg = "minifloat: test fault: paused after " + std::to_string(f.after) + " bytes\n";
      [[maybe_unused]] const ssize_t k = ::write(2, msg.data(), msg.size());
      for (;;) ::pause();
    }
  }
  write_all(o.fd, data, n, o.describe());
  o.bytes += n;
  o.failed = false;
}

void OutputSet::append(OutputId id, std::string_view bytes) {
  append(id, std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
}

void OutputSet::finish(OutputId id) {
  Impl::Output& o = impl_->at(id);
  if (o.finished) return;
  if (o.failed) throw Error("OutputSet: " + o.describe() + " cannot be finished after a failed write");
  if (o.fd >= 0) {
    const int fd = o.fd;
    o.fd = -1;
    if (::close(fd) != 0 && errno != EINTR) throw IoError("cannot write " + o.describe() + ": " + std::strerror(errno));
  }
  o.finished = true;
}

void OutputSet::write(OutputId id, std::string_view bytes) {
  append(id, bytes);
  finish(id);
}

void OutputSet::commit() {
  Impl& m = *impl_;
  if (m.committed) return;
  for (const auto& o : m.outputs)
    if (!o.finished) throw Error("OutputSet: " + o.describe() + " was not finished; nothing was written");
  for (const auto& o : m.outputs) {  // the targets may have changed since add_output
    struct stat st {};
    if (::lstat(o.target.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      throw IoError(o.what + " '" + o.target.string() + "' is now " + describe_file_type(st.st_mode) +
                    "; outputs must be regular files");
  }
  sigset_t block, old;
  sigemptyset(&block);
  for (int s : kSignals) sigaddset(&block, s);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  g_committing.fetch_add(1);
  std::string failure, replaced;
  for (auto& o : m.outputs) {
    if (::rename(o.temporary.c_str(), o.target.c_str()) != 0) {
      failure = "cannot rename '" + o.temporary.string() + "' to " + o.describe() + ": " + std::strerror(errno);
      break;
    }
    unregister_temporary(o.slot);
    o.temporary.clear();
    (replaced += replaced.empty() ? "" : ", ") += o.target.string();
  }
  std::string stale_failure;
  if (failure.empty()) {
    for (const auto& f : m.folders) unregister_temporary(f.slot);  // they hold the outputs now
    m.folders.clear();
    for (const auto& p : m.stale) {
      struct stat st {};
      if (::lstat(p.c_str(), &st) != 0) continue;  // gone already
      if ((S_ISDIR(st.st_mode) ? ::rmdir(p.c_str()) : ::unlink(p.c_str())) != 0 && stale_failure.empty())
        stale_failure = "every output was replaced, but '" + p.string() +
                        "' of the previous outputs could not be removed: " + std::strerror(errno);
    }
  }
  g_committing.fetch_sub(1);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (const int sig = g_pending.exchange(0)) {
    m.remove_temporaries();
    ::raise(sig);
  }
  if (!failure.empty()) {
    m.remove_temporaries();
    throw IoError(failure + (replaced.empty() ? "; no output was replaced" : "; already replaced: " + replaced));
  }
  m.committed = true;
  if (!stale_failure.empty()) throw IoError(stale_failure);
}

void OutputSet::add_folder(const fs::path& dir, std::string_view what) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  create_output_folder(dir, what);
  const fs::path abs = fs::absolute(dir, ec);
  impl_->folders.push_back({abs, register_temporary(abs.string())});
}

void OutputSet::remove_on_commit(const fs::path& path) { impl_->stale.push_back(fs::absolute(path)); }

std::size_t OutputSet::size() const noexcept { return impl_->outputs.size(); }
const fs::path& OutputSet::target(OutputId id) const { return impl_->at(id).target; }
const fs::path& OutputSet::temporary(OutputId id) const { return impl_->at(id).temporary; }
std::uint64_t OutputSet::bytes_written(OutputId id) const { return impl_->at(id).bytes; }

void create_output_folder(const fs::path& dir, std::string_view what) {
  const std::string w(what);
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) throw IoError(w + " '" + dir.string() + "' exists and is not a folder");
    return;
  }
  fs::path last = dir.has_filename() ? dir : dir.parent_path();  // "out/" names the folder "out"
  const fs::path parent = last.parent_path().empty() ? fs::path(".") : last.parent_path();
  if (!fs::is_directory(parent, ec))
    throw IoError(w + " '" + dir.string() + "': folder '" + parent.string() +
                  "' does not exist (only the last folder of " + w + " is created)");
  if (!fs::create_directory(last, ec) && ec)
    throw IoError(w + " '" + dir.string() + "': cannot create it: " + ec.message());
}

void write_file(const fs::path& path, std::string_view content, std::string_view what) {
  OutputSet out;
  out.write(out.add_output(path, what), content);
  out.commit();
}

}  // namespace minifloat
