// SPDX-License-Identifier: Apache-2.0
// tensor_file.hpp: one tensor of a .npy or .safetensors file, located from the file's header
// (npy.hpp locate_npy, safetensors.hpp locate_safetensor) and read in bounded pieces — the
// streaming input of quantize/report/compare: memory stays O(piece), never the whole tensor; and
// locate_tensors, which finds the tensors of such a file that the CLI's commands read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/format.hpp"
#include "error.hpp"

namespace minifloat {

/// Where a tensor's data lies in its file: element i (C order, little endian) occupies bytes
/// [offset + i·item_size, offset + (i + 1)·item_size). The header it came from was checked by the
/// library's reader (the same checks as read_npy / read_safetensors_header).
struct TensorLocation {
  std::filesystem::path path;
  std::string name;                ///< the .safetensors tensor name, or the .npy file's stem
  std::string dtype;               ///< NumPy descr (npy.hpp table): "<f4", "<f8", "|u1", …
  std::vector<std::size_t> shape;  ///< empty for a 0-d array (one element)
  std::uint64_t offset = 0;        ///< file offset of element 0
  std::size_t item_size = 0;       ///< bytes per element
  /// Set when the elements are codes of a format, not numbers (NpyArray::code_format: the F8_*
  /// safetensors dtypes); read() as values refuses them, read_bytes() gives the codes.
  std::optional<Format> code_format{};
  /// Product of the shape (1 for a 0-d array).
  std::size_t element_count() const noexcept;
};

/// Reads element ranges of a located tensor (pread on one open descriptor; nothing is cached).
class TensorReader {
 public:
  /// Opens the file; throws IoError naming it.
  explicit TensorReader(TensorLocation location);
  ~TensorReader();
  TensorReader(const TensorReader&) = delete;
  TensorReader& operator=(const TensorReader&) = delete;
  TensorReader(TensorReader&& o) noexcept;
  TensorReader& operator=(TensorReader&&) = delete;

  const TensorLocation& location() const noexcept { return loc_; }
  /// The raw bytes of elements [first, first + out.size() / item_size): out.size() must be a
  /// multiple of the item size and the range inside the tensor (else Error). Throws IoError when
  /// the file is shorter than its header said (it changed since) or a read fails.
  void read_bytes(std::size_t first, std::span<std::byte> out) const;
  /// Elements [first, first + out.size()) as values (npy_decode: exact, but <f8 → float rounds to
  /// nearest even). `scratch` is a reusable buffer for the raw bytes (unused when the file holds the
  /// values as they are: <f4 into float, <f8 into double, on a little-endian host). Throws ParseError when
  /// code_format is set (the bytes are codes, not numbers; as npy_as_f32).
  void read(std::size_t first, std::span<float> out, std::vector<std::byte>& scratch) const;
  void read(std::size_t first, std::span<double> out, std::vector<std::byte>& scratch) const;

 private:
  TensorLocation loc_;
  int fd_ = -1;
};

/// Whether a NumPy descr holds integers (|u1 <u1 |i1 <i1 <u2 <u4 <u8): codes, unless the user says
/// otherwise (`integers_as_values`), and then only those of integer_value_dtypes().
bool is_integer_dtype(const std::string& dtype);
/// Whether every value of an integer dtype is exact in binary32 (|u1 <u1 |i1 <i1 <u2): the ones
/// `integers_as_values` reads as numbers; <u4 (e.g. FP32 bit patterns) and <u8 are refused either way.
bool integer_dtype_exact_in_f32(const std::string& dtype);
/// Those dtypes, space-separated ("|u1 <u1 |i1 <i1 <u2"), for help texts and messages.
std::string integer_value_dtypes();

/// The tensors `command` reads from `path` (option `--in` of the CLI's quantize, report and compare),
/// located but not loaded: a .npy file gives one tensor named after the file; a .safetensors file
/// every numeric tensor in data order (or only `tensor` when not empty). Integer tensors are codes,
/// not values: a .npy file or a named tensor of integers is an error unless `integers_as_values` (and
/// even then unless integer_dtype_exact_in_f32: <u4 and <u8 always are, naming the dtype and the flag); in
/// a whole .safetensors file they are skipped with a note (as non-numeric tensors are) unless
/// `integers_as_values`. Raw one-byte arrays (<V1: ml_dtypes float8/float4 codes) are always refused.
/// Notes ("COMMAND: skipping NAME (…)") go to stderr unless `quiet`. Throws minifloat::Error naming
/// the file (and the option) for anything else. `file_index`, when given, receives each returned
/// tensor's position among all the file's tensors (data order, skipped ones counted; 0 for .npy).
std::vector<TensorLocation> locate_tensors(const std::string& command, const std::string& path,
                                           const std::string& tensor, bool integers_as_values, bool quiet,
                                           std::vector<std::size_t>* file_index = nullptr);

}  // namespace minifloat
