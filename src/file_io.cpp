// SPDX-License-Identifier: Apache-2.0
// file_io.cpp: the one "temporary file + rename" writer.
#include "minifloat/file_io.hpp"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <system_error>

namespace minifloat {

void write_file_atomic(const std::filesystem::path& path, std::span<const std::string_view> parts) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder))
    throw IoError("cannot write '" + path.string() + "': folder '" + folder.string() + "' does not exist");
  const std::filesystem::path tmp =
      path.string() + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(++counter);
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    if (!os) throw IoError("cannot open '" + tmp.string() + "' for writing");
    for (std::string_view p : parts) os.write(p.data(), static_cast<std::streamsize>(p.size()));
    os.close();
    if (!os) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw IoError("cannot write '" + path.string() + "' (disk full or I/O error)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ec2;
    std::filesystem::remove(tmp, ec2);
    throw IoError("cannot rename '" + tmp.string() + "' to '" + path.string() + "': " + ec.message());
  }
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  const std::string_view parts[1] = {content};
  write_file_atomic(path, std::span<const std::string_view>(parts));
}

}  // namespace minifloat
