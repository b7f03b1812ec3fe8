// SPDX-License-Identifier: Apache-2.0
// tensor_file.cpp: bounded reads of a located tensor, and the tensors of an --in file (tensor_file.hpp).
#include "minifloat/tensor_file.hpp"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include "minifloat/npy.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/safetensors.hpp"

namespace minifloat {
namespace {

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

/// A note of locate_tensors on stderr.
void note(const std::string& line) { std::fputs(line.c_str(), stderr); }

/// The integer dtypes (NumPy descr; safetensors U8 I8 U16 locate as |u1 |i1 <u2): every one is codes
/// unless --integers-as-values, which reads as numbers those whose every value is exact in binary32.
struct IntegerDtype {
  std::string_view descr;
  bool exact_in_f32;
};
constexpr IntegerDtype kIntegerDtypes[] = {{"|u1", true}, {"<u1", true},  {"|i1", true}, {"<i1", true},
                                           {"<u2", true}, {"<u4", false}, {"<u8", false}};
const IntegerDtype* find_integer_dtype(const std::string& d) {
  for (const IntegerDtype& e : kIntegerDtypes)
    if (e.descr == d) return &e;
  return nullptr;
}

void refuse_codes(const std::string& command, const TensorLocation& t, bool integers_as_values) {
  const std::string where = "--in '" + t.path.string() + "'" + (t.name.empty() ? "" : " tensor '" + t.name + "'");
  if (t.code_format)  // F8_E4M3 / F8_E5M2 / F8_E8M0 tensors (safetensors.hpp): codes whatever --integers-as-values says
    throw Error(where + " holds " + format_name(*t.code_format) + " codes, not numbers; " + command +
                " reads values: decode them with that format first");
  if (t.dtype == "<V1" || t.dtype == "|V1")
    throw Error(where + " holds raw one-byte codes (" + t.dtype + ", an ml_dtypes float8/float4 array); " + command +
                " reads values: decode them with their format first");
  if (is_integer_dtype(t.dtype) && !integer_dtype_exact_in_f32(t.dtype))
    throw Error(where + " holds integers (" + t.dtype + "), e.g. FP32 bit patterns or codes; " + command +
                " reads values, and --integers-as-values takes only integers exact in binary32 (" +
                integer_value_dtypes() +
                "): convert the array to a float dtype (FP32 bit patterns: view them as float32)");
  if (is_integer_dtype(t.dtype) && !integers_as_values)
    throw Error(where + " holds integers (" + t.dtype + "), e.g. codes; " + command +
                " reads values: give --integers-as-values to take the integers as numbers");
}

}  // namespace

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
    throw Error("TensorReader: elements [" + std::to_string(first) + ", +" +
                std::to_string(item ? out.size() / item : 0) + ") lie outside tensor '" + loc_.name + "' of " +
                std::to_string(n) + " elements");
  std::uint64_t pos = loc_.offset + static_cast<std::uint64_t>(first) * item;
  std::size_t done = 0;
  while (done < out.size()) {
    const std::size_t want = std::min<std::size_t>(out.size() - done, std::size_t{1} << 30);
    const ssize_t k = ::pread(fd_, out.data() + done, want, static_cast<off_t>(pos));
    if (k < 0) {
      if (errno == EINTR) continue;
      throw IoError("cannot read tensor '" + loc_.name + "' from '" + loc_.path.string() +
                    "': " + std::strerror(errno));
    }
    if (k == 0)
      throw IoError("'" + loc_.path.string() + "' ends inside tensor '" + loc_.name +
                    "' (the file changed while it was read)");
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

// ---- locating the tensors of an --in file ------------------------------------------------------

bool is_integer_dtype(const std::string& d) { return find_integer_dtype(d) != nullptr; }

bool integer_dtype_exact_in_f32(const std::string& d) {
  const IntegerDtype* e = find_integer_dtype(d);
  return e != nullptr && e->exact_in_f32;
}

std::string integer_value_dtypes() {
  std::string s;
  for (const IntegerDtype& e : kIntegerDtypes)
    if (e.exact_in_f32) (s += s.empty() ? "" : " ") += e.descr;
  return s;
}

std::vector<TensorLocation> locate_tensors(const std::string& command, const std::string& path,
                                           const std::string& tensor, bool integers_as_values, bool quiet,
                                           std::vector<std::size_t>* file_index) {
  std::vector<TensorLocation> out;
  if (file_index != nullptr) file_index->clear();
  auto take = [&](TensorLocation loc, std::size_t index) {
    out.push_back(std::move(loc));
    if (file_index != nullptr) file_index->push_back(index);
  };
  if (ends_with(path, ".npy")) {
    if (!tensor.empty())
      throw Error("--tensor '" + tensor + "' applies to .safetensors files; '" + path +
                  "' is a .npy file with one tensor");
    take(locate_npy(path), 0);
    refuse_codes(command, out.back(), integers_as_values);
    return out;
  }
  if (!ends_with(path, ".safetensors"))
    throw Error("--in '" + path + "': unknown file type; accepted: .npy, .safetensors");
  const SafetensorsFile f = read_safetensors_header(path);
  if (!tensor.empty()) {
    const SafetensorInfo& t = find_safetensor(f, tensor);
    take(locate_safetensor(f, t), static_cast<std::size_t>(&t - f.tensors.data()));
    refuse_codes(command, out.back(), integers_as_values);
    return out;
  }
  for (const auto& t : f.tensors) {
    if (const auto codes = safetensors_code_format(t.dtype)) {
      if (!quiet)
        note(command + ": skipping " + t.name + " (" + t.dtype + ": " + format_name(*codes) + " codes, not numbers)\n");
      continue;
    }
    if (!safetensors_dtype_is_numeric(t.dtype)) {
      if (!quiet) note(command + ": skipping " + t.name + " (" + t.dtype + ": not a floating-point tensor)\n");
      continue;
    }
    TensorLocation loc = locate_safetensor(f, t);
    if (is_integer_dtype(loc.dtype) && !(integers_as_values && integer_dtype_exact_in_f32(loc.dtype))) {
      if (!quiet)
        note(command + ": skipping " + t.name + " (" + t.dtype +
             ": integers; --integers-as-values reads them as numbers)\n");
      continue;
    }
    take(std::move(loc), static_cast<std::size_t>(&t - f.tensors.data()));
  }
  if (out.empty()) throw Error("'" + path + "' holds no F32/F16/BF16/F64 tensor");
  return out;
}

}  // namespace minifloat
