// SPDX-License-Identifier: Apache-2.0
// tensor_file.cpp: bounded reads of a located tensor (tensor_file.hpp).
#include "minifloat/tensor_file.hpp"

#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <unistd.h>

#include "minifloat/npy.hpp"
#include "minifloat/registry.hpp"

namespace minifloat {

std::size_t TensorLocation::element_count() const noexcept {
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

TensorReader::TensorReader(TensorLocation location) : loc_(std::move(location)) {
  fd_ = ::open(loc_.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw IoError("cannot open '" + loc_.path.string() + "' for reading: " + std::strerror(errno));
}

TensorReader::~TensorReader() {
  if (fd_ >= 0) ::close(fd_);
}

TensorReader::TensorReader(TensorReader&& o) noexcept : loc_(std::move(o.loc_)), fd_(o.fd_) { o.fd_ = -1; }

void TensorReader::read_bytes(std::size_t first, std::span<std::byte> out) const {
  const std::size_t item = loc_.item_size, n = loc_.element_count();
  if (item == 0 || out.size() % item != 0 || first > n || out.size() / item > n - first)
    throw Error("TensorReader: elements [" + std::to_string(first) + ", +" + std::to_string(item ? out.size() / item : 0) +
                ") lie outside tensor '" + loc_.name + "' of " + std::to_string(n) + " elements");
  std::uint64_t pos = loc_.offset + static_cast<std::uint64_t>(first) * item;
  std::size_t done = 0;
  while (done < out.size()) {
    const std::size_t want = std::min<std::size_t>(out.size() - done, std::size_t{1} << 30);
    const ssize_t k = ::pread(fd_, out.data() + done, want, static_cast<off_t>(pos));
    if (k < 0) {
      if (errno == EINTR) continue;
      throw IoError("cannot read tensor '" + loc_.name + "' from '" + loc_.path.string() + "': " + std::strerror(errno));
    }
    if (k == 0)
      throw IoError("'" + loc_.path.string() + "' ends inside tensor '" + loc_.name + "' (the file changed while it was read)");
    done += static_cast<std::size_t>(k);
    pos += static_cast<std::uint64_t>(k);
  }
}

namespace {
void refuse_codes(const TensorLocation& loc) {
  if (loc.code_format)
    throw ParseError("tensor '" + loc.name + "' of '" + loc.path.string() + "' holds " + format_name(*loc.code_format) +
                     " codes, not numbers; decode them with that format (minifloat::to_double)");
}
}  // namespace

void TensorReader::read(std::size_t first, std::span<float> out, std::vector<std::byte>& scratch) const {
  refuse_codes(loc_);
  if (loc_.dtype == "<f4" && std::endian::native == std::endian::little) {  // the file's bytes are the values
    read_bytes(first, std::as_writable_bytes(out));
    return;
  }
  scratch.resize(out.size() * loc_.item_size);
  read_bytes(first, scratch);
  npy_decode(loc_.dtype, scratch, out);
}
void TensorReader::read(std::size_t first, std::span<double> out, std::vector<std::byte>& scratch) const {
  refuse_codes(loc_);
  if (loc_.dtype == "<f8" && std::endian::native == std::endian::little) {  // the file's bytes are the values
    read_bytes(first, std::as_writable_bytes(out));
    return;
  }
  scratch.resize(out.size() * loc_.item_size);
  read_bytes(first, scratch);
  npy_decode(loc_.dtype, scratch, out);
}

}  // namespace minifloat
