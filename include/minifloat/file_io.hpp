// SPDX-License-Identifier: Apache-2.0
// file_io.hpp: the one file writer. Every file minifloat writes (tables, .npy, .safetensors,
// training outputs) goes through an OutputSet: all outputs of one command are one transaction,
// written whole or not at all.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "error.hpp"

namespace minifloat {

/// One output of an OutputSet (valid only for the set that returned it).
enum class OutputId : std::size_t {};

/// The outputs of one command, written as one transaction.
///
///  - add_input() and add_output() check at once, before any work: an output that resolves (after
///    symlinks; `./x` and `x` alike) to the same file as an input or as another output (same
///    resolved path, or same st_dev/st_ino when the file exists: hard links) is refused; an
///    existing target that is not a regular file (a folder, /dev/full, a FIFO, a socket) is
///    refused and never opened or renamed over, as is an existing target without write permission;
///    the target's folder must exist and be writable.
///    Errors are IoError with one line naming the option (`what`) and the path.
///  - An existing symlink is written through: the chain is resolved (at most 40 links), the
///    temporary is created in the final target's folder and renamed over the target, so the link
///    stays a link and the target's content changes.
///  - Each output gets a temporary beside its target, created by add_output (so an unwritable
///    folder fails before any work): `.<name>.minifloat-tmp.<pid>.<n>`, mode 0666 & ~umask for a
///    new file or the existing target's permission bits. append() writes to it (a streaming writer
///    never holds the whole file); finish() closes it, every byte handed to the kernel.
///  - commit() renames every temporary over its target, only when all outputs are finished, with
///    SIGINT/SIGTERM/SIGHUP held off so the renames are not cut in half. The transaction protects
///    against errors and signals; there is no fsync (power loss is the filesystem's business: ext4
///    orders a replaced file's data before the rename, auto_da_alloc).
///  - On any error, and when the set is destroyed without commit(), every temporary is removed and
///    no target is touched. While temporaries exist, a process-wide handler for SIGINT, SIGTERM
///    and SIGHUP (installed only where the disposition is the default) removes them and the folders
///    add_folder created (unlink, then rmdir, from a fixed table of paths: async-signal-safe) and
///    re-raises the signal with the default action.
///
/// append()/finish() of different outputs may run on different threads; every other call, and
/// two calls on one output, must not run concurrently.
///
/// Test-only fault injection (never set it outside tests): the environment variable
/// MINIFLOAT_TEST_FAULT, read when an OutputSet is constructed, takes
///   `write_fail_after_bytes:N` — after N bytes written through this set, the next write fails as
///                                a full filesystem would (IoError "No space left on device");
///   `pause_after_bytes:N`      — after N bytes, print "minifloat: test fault: paused after N bytes"
///                                on stderr and wait for a signal (a test then sends SIGINT).
/// Any other value makes the constructor throw Error naming the accepted ones.
class OutputSet {
 public:
  OutputSet();
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  /// Register an input file (`what`: the option that named it, e.g. "--in"). Checked against every
  /// output added before or after. A path that does not exist is compared by its resolved path.
  void add_input(const std::filesystem::path& path, std::string_view what);
  /// Register an output and create its temporary; throws IoError (see the class comment).
  OutputId add_output(const std::filesystem::path& path, std::string_view what);
  /// Create the folder `dir` for outputs of this set when it does not exist (create_output_folder's
  /// rules: only its last component; IoError naming `what`). A folder created here is part of the
  /// transaction: an error, a destroyed set and SIGINT/SIGTERM/SIGHUP remove it again (when empty, the
  /// innermost first, at most 8 levels); commit() keeps it. An existing folder is left alone.
  void add_folder(const std::filesystem::path& dir, std::string_view what);
  /// A file (or a folder, empty once the files before it are gone) that commit() removes after every
  /// rename, with the signals still held off: what a previous run wrote that the new outputs do not
  /// replace (train --out). Give folders after the files inside them. A path that is gone by then is
  /// skipped; one that cannot be removed makes commit() throw IoError naming it (the outputs stay replaced).
  void remove_on_commit(const std::filesystem::path& path);

  /// Append bytes to the output's temporary. Throws IoError on a write failure (disk full, I/O
  /// error; the output can then be neither appended to nor finished) and Error after finish().
  void append(OutputId id, std::span<const std::byte> bytes);
  void append(OutputId id, std::string_view bytes);
  /// The output is complete: close its temporary. Throws IoError on failure.
  void finish(OutputId id);
  /// append(id, bytes) then finish(id).
  void write(OutputId id, std::string_view bytes);

  /// Rename every temporary over its target (see the class comment). Throws Error when an output
  /// is not finished (nothing is renamed), IoError when a rename fails (naming the outputs already
  /// replaced; only possible when the folder changes under the command).
  void commit();

  /// The number of outputs, the resolved target and the temporary of one.
  std::size_t size() const noexcept;
  const std::filesystem::path& target(OutputId id) const;
  const std::filesystem::path& temporary(OutputId id) const;
  /// Bytes appended to the output so far.
  std::uint64_t bytes_written(OutputId id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Create the output folder `dir` of a command that writes a tree of files (tables --out, train
/// --out) when it does not exist yet, like mkdir: only its last component is created, so a typo in
/// a parent ("rusn/2026/out") is an IoError naming the missing folder instead of a new tree. An
/// existing `dir` that is not a folder is an IoError too. `what` names the option ("--out").
void create_output_folder(const std::filesystem::path& dir, std::string_view what);

/// A one-output transaction: write `content` to `path` whole or not at all (OutputSet rules;
/// `what` names the output in errors).
void write_file(const std::filesystem::path& path, std::string_view content, std::string_view what = "output");

}  // namespace minifloat
