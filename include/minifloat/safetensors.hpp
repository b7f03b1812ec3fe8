// SPDX-License-Identifier: Apache-2.0
// safetensors.hpp: read (F32, F16, BF16, F64, U8, I8, I64 listed) and write .safetensors files
// (Hugging Face format: 8-byte little-endian header length, a JSON header, then the raw data).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "npy.hpp"

namespace minifloat {

/// One tensor entry of a .safetensors header.
struct SafetensorInfo {
  std::string name;
  std::string dtype;               ///< safetensors dtype: "F32", "F16", "BF16", "F64", "U8", "I8", "I64", …
  std::vector<std::size_t> shape;
  std::size_t begin = 0, end = 0;  ///< byte offsets into the data section
};

/// The parsed header of a .safetensors file (data is read on demand).
struct SafetensorsFile {
  std::filesystem::path path;
  std::map<std::string, std::string> metadata;  ///< the optional "__metadata__" string map
  std::vector<SafetensorInfo> tensors;          ///< in data-offset order
  std::size_t data_start = 0;                   ///< file offset of the data section (8 + header length)
};

/// Parse the header of `path`. Throws IoError (cannot read) or ParseError naming the problem:
/// truncated file, header length past the end, invalid JSON, a missing or ill-typed
/// dtype/shape/data_offsets, offsets outside the data section or inconsistent with the shape,
/// overlapping tensors. Unknown dtypes are listed (they can still be skipped by the caller).
SafetensorsFile read_safetensors_header(const std::filesystem::path& path);

/// Whether minifloat can convert a safetensors dtype to numbers (F32, F16, BF16, F64, U8, I8).
bool safetensors_dtype_is_numeric(const std::string& dtype);

/// Read one tensor as an NpyArray (F32 → "<f4", F16 → "<f2", BF16 → "<V2", F64 → "<f8",
/// U8 → "|u1", I8 → "|i1"); other dtypes throw ParseError naming the tensor and its dtype.
NpyArray read_safetensor(const SafetensorsFile& file, const SafetensorInfo& info);
/// Read a tensor by name; throws NameError listing the available names when absent.
NpyArray read_safetensor(const SafetensorsFile& file, const std::string& name);

/// Write a .safetensors file from (name, array) pairs, in the given order, plus string metadata.
/// Array dtypes map back: "<f4" F32, "<f2" F16, "<V2" BF16, "<f8" F64, "|u1" U8, "|i1" I8,
/// "<u2" U16. The JSON header is padded with spaces to a multiple of 8 bytes. Written whole or
/// not at all (temporary file, then rename). Throws ParseError for an unmappable dtype or a
/// duplicate name, IoError on I/O failure.
void write_safetensors(const std::filesystem::path& path, const std::vector<std::pair<std::string, NpyArray>>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace minifloat
