// SPDX-License-Identifier: Apache-2.0
// safetensors.hpp: read (F32, F16, BF16, F64, U8, I8, U16 as numbers, F8_* as codes, other dtypes
// listed) and write .safetensors files (Hugging Face format: 8-byte little-endian header length,
// a JSON header, then the raw data).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/format.hpp"
#include "file_io.hpp"
#include "npy.hpp"

namespace minifloat {

/// One tensor entry of a .safetensors header.
struct SafetensorInfo {
  std::string name;
  std::string dtype;  ///< safetensors dtype: "F32", "F16", "BF16", "F64", "U8", "I8", "I64", "F8_E4M3", …
  std::vector<std::size_t> shape;
  std::size_t begin = 0, end = 0;  ///< byte offsets into the data section, [begin, end)
};

/// The parsed header of a .safetensors file (data is read on demand).
struct SafetensorsFile {
  std::filesystem::path path;                   ///< the file (or the `what` of parse_safetensors)
  std::map<std::string, std::string> metadata;  ///< the optional "__metadata__" string map
  std::vector<SafetensorInfo> tensors;          ///< in data-offset order
  std::size_t data_start = 0;                   ///< file offset of the data section (8 + header length)
};

/// Parse the header of `path`. Throws IoError (cannot read) or ParseError, one line naming the
/// file, the tensor and the offsets where they matter:
///   - truncated file, header length past the end or over 100 MiB, invalid JSON, a header that is
///     not an object, a key that appears twice in any object of the header (JSON parsers keep the
///     last one silently; a duplicate tensor name is refused), `__metadata__` not a string map;
///   - an entry without a string dtype, an unsigned-integer shape array or `data_offsets`
///     [begin, end] of unsigned integers; begin after end; end past the data section; a size
///     other than shape × dtype size (for the dtypes whose size is known);
///   - a data section not tiled exactly by the tensors, in offset order (the Hugging Face
///     reader's rule): the first tensor must start at 0, each next one where the previous ends
///     (a gap or an overlap is refused), and the last must end where the file ends (trailing
///     bytes are refused). The JSON order of the entries is free.
/// Unknown dtypes are listed (the caller can skip them).
SafetensorsFile read_safetensors_header(const std::filesystem::path& path);

/// Parse a whole .safetensors file held in memory (same checks as read_safetensors_header;
/// `what` names it in errors and becomes `path`). Read tensors with safetensor_from_bytes.
SafetensorsFile parse_safetensors(const std::byte* bytes, std::size_t size, const std::string& what = "<memory>");

/// Whether minifloat can convert a safetensors dtype to numbers (F32, F16, BF16, F64, U8, I8, U16).
/// False for the F8_* dtypes: their bytes are codes (see safetensors_code_format).
bool safetensors_dtype_is_numeric(const std::string& dtype);
/// The format whose codes a safetensors dtype holds, one per byte: F8_E4M3 → e4m3fn
/// (torch.float8_e4m3fn), F8_E5M2 → e5m2, F8_E8M0 → e8m0fnu; none for every other dtype.
std::optional<Format> safetensors_code_format(const std::string& dtype);

/// Read one tensor as an NpyArray: F32 → "<f4", F16 → "<f2", BF16 → "<V2", F64 → "<f8",
/// U8 → "|u1", I8 → "|i1", U16 → "<u2"; F8_E4M3, F8_E5M2, F8_E8M0 → "|u1" with `code_format`
/// e4m3fn, e5m2, e8m0fnu (codes: npy_as_f32 refuses them). Other dtypes throw ParseError
/// naming the tensor and its dtype.
NpyArray read_safetensor(const SafetensorsFile& file, const SafetensorInfo& info);
/// Where one tensor's data lies (the dtype mapping of read_safetensor; the header was checked by
/// read_safetensors_header), for bounded reads with TensorReader. Throws ParseError for a dtype
/// read_safetensor does not read.
TensorLocation locate_safetensor(const SafetensorsFile& file, const SafetensorInfo& info);
/// Find a tensor's entry by name; throws NameError listing the available names when absent.
const SafetensorInfo& find_safetensor(const SafetensorsFile& file, const std::string& name);
/// Read a tensor by name; throws NameError listing the available names when absent.
NpyArray read_safetensor(const SafetensorsFile& file, const std::string& name);
/// The same from the bytes that parse_safetensors parsed into `file`.
NpyArray safetensor_from_bytes(const SafetensorsFile& file, const SafetensorInfo& info, const std::byte* bytes,
                               std::size_t size);

/// Write a .safetensors file from (name, array) pairs, in the given order, plus string metadata.
/// Array dtypes map back: "<f4" F32, "<f2" F16, "<V2" BF16, "<f8" F64, "|u1" U8, "|i1" I8,
/// "<u2" U16; a "|u1" array with `code_format` e4m3fn, e5m2 or e8m0fnu is stored as F8_E4M3,
/// F8_E5M2 or F8_E8M0. The JSON header is padded with spaces to a multiple of 8 bytes. A one-output
/// transaction (file_io.hpp OutputSet: whole or not at all). Throws ParseError for an unmappable
/// dtype, a name that is not UTF-8, `__metadata__` or a duplicate name, a data size that does not match the shape, IoError on I/O failure.
void write_safetensors(const std::filesystem::path& path, const std::vector<std::pair<std::string, NpyArray>>& tensors,
                       const std::map<std::string, std::string>& metadata = {});
/// The same into output `id` of `outputs` (appended, then finished; the caller commits).
void write_safetensors(OutputSet& outputs, OutputId id, const std::vector<std::pair<std::string, NpyArray>>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

/// One tensor of a SafetensorsWriter: its name, NumPy descr (the dtypes write_safetensors maps), shape
/// and, for F8 code tensors, the code format.
struct SafetensorSpec {
  std::string name;
  std::string dtype;
  std::vector<std::size_t> shape;
  std::optional<Format> code_format =
      {};  ///< "|u1" codes of e4m3fn / e5m2 / e8m0fnu: stored as F8_E4M3 / F8_E5M2 / F8_E8M0
};

/// Streams one .safetensors output of an OutputSet, never holding the whole file: the constructor
/// takes every tensor up front (names, dtypes, shapes, in file order) and the metadata, and writes
/// the 8-byte length and the JSON header (data_offsets consecutive from 0, in the given order);
/// append() then takes the tensors' bytes in that order, in pieces of any size (a piece may run
/// from one tensor into the next); finish() checks every byte arrived and finishes the output.
///   SafetensorsWriter w(out, out.add_output(path, "--out-codes"),
///                       {{"codes", "|u1", shape}, {"scales", "|u1", {rows, cols}}}, meta);
///   for (each row) w.append(code_bytes);   for (each row) w.append(scale_bytes);
///   w.finish();  out.commit();
class SafetensorsWriter {
 public:
  /// Throws ParseError for an unmappable dtype, a duplicate or reserved ("__metadata__") name or an
  /// overflowing shape; IoError on I/O failure.
  SafetensorsWriter(OutputSet& outputs, OutputId id, std::vector<SafetensorSpec> tensors,
                    const std::map<std::string, std::string>& metadata = {});
  /// Throws Error for bytes beyond the last tensor, IoError on a write failure.
  void append(std::span<const std::byte> data);
  /// The index of the tensor the next appended byte belongs to (== the number of tensors when complete).
  std::size_t current_tensor() const noexcept { return tensor_; }
  /// Throws Error when bytes are missing (the output stays unfinished: commit() refuses it).
  void finish();

 private:
  OutputSet* out_;
  OutputId id_;
  std::vector<SafetensorSpec> specs_;
  std::vector<std::uint64_t> sizes_;
  std::size_t tensor_ = 0;
  std::uint64_t done_ = 0;  ///< bytes of tensor_ written so far
};
/// The bytes write_safetensors writes.
std::vector<std::byte> serialize_safetensors(const std::vector<std::pair<std::string, NpyArray>>& tensors,
                                             const std::map<std::string, std::string>& metadata = {});

}  // namespace minifloat
