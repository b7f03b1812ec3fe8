// SPDX-License-Identifier: Apache-2.0
// npy.hpp: read and write NumPy .npy files (format versions 1.0, 2.0, 3.0), the tensor-file
// interface shared by the CLI, the quantizers and the tests.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/format.hpp"
#include "error.hpp"
#include "file_io.hpp"
#include "registry.hpp"
#include "tensor_file.hpp"

namespace minifloat {

/// An n-dimensional array as a .npy file holds it: C order, little endian.
///
/// `dtype` is the NumPy `descr` string. Accepted (read and write):
///
/// | descr          | element                                 | written by                      |
/// |----------------|-----------------------------------------|---------------------------------|
/// | `<f4`          | IEEE binary32                           | numpy float32                   |
/// | `<f2`          | IEEE binary16                           | numpy float16                   |
/// | `<f8`          | IEEE binary64                           | numpy float64                   |
/// | `|u1`          | uint8 (one code per byte, or packed)    | numpy uint8 (`<u1` accepted)    |
/// | `|i1`          | int8                                    | numpy int8                      |
/// | `<u2`          | uint16 (16-bit codes)                   | numpy uint16                    |
/// | `<V2`          | bfloat16 raw bits (top half of binary32)| ml_dtypes 0.6 `bfloat16` arrays |
/// | `<V1`, `|V1`   | one raw byte (an 8-bit ml_dtypes code)  | ml_dtypes float8_* / float4_*   |
/// | `<u4`          | uint32 (f32 bit patterns, 32-bit codes) | numpy uint32                    |
/// | `<u8`          | uint64 (SR random words; never a value) | numpy uint64                    |
///
/// ml_dtypes writes its types as opaque `V` (void) descrs (checked with ml_dtypes 0.6.0:
/// `np.save(f, np.ones(2, ml_dtypes.bfloat16))` writes `'descr': '<V2'`). The only 2-byte
/// ml_dtypes type is bfloat16, so `<V2` is read as bfloat16; load it back in Python with
/// `np.load(f).view(ml_dtypes.bfloat16)`.
struct NpyArray {
  std::string dtype;               ///< numpy descr, see the table above
  std::vector<std::size_t> shape;  ///< empty for a 0-d array (one element)
  std::vector<std::byte> data;     ///< C order, little endian, element_count() · item_size() bytes
  /// Set when the elements are codes of a minifloat format rather than numbers: read_safetensor
  /// gives F8_E4M3 as `|u1` e4m3fn codes, F8_E5M2 as e5m2 and F8_E8M0 as e8m0fnu codes (one code
  /// per byte). npy_as_f32/npy_as_f64 refuse such arrays (decode them with the format instead);
  /// write_safetensors stores them back under their F8_* dtype. A .npy file does not record it
  /// (write_npy writes the bytes as `|u1`), and parse_npy never sets it.
  std::optional<Format> code_format{};

  /// Product of the shape (1 for a 0-d array).
  std::size_t element_count() const noexcept;
  /// Bytes per element of `dtype` (throws ParseError for an unsupported descr).
  std::size_t item_size() const;
};

/// Bytes per element of an accepted descr; throws ParseError listing the accepted ones otherwise.
std::size_t npy_item_size(const std::string& dtype);

/// Read a .npy file. Throws IoError when the file cannot be read, ParseError (one line naming the
/// file and the problem) when it is not a well-formed .npy file: bad magic, a version other than
/// 1.0/2.0/3.0, truncated header or data, bytes after the data, a header that is not one dict of
/// the keys descr, fortran_order and shape (each once, nothing but spaces after the `}`), an
/// unsupported descr, Fortran order, big-endian data, a shape whose size overflows. Never
/// crashes on malformed input (fuzzed: fuzz/fuzz_npy.cpp).
NpyArray read_npy(const std::filesystem::path& path);

/// Parse .npy bytes already in memory (same checks as read_npy; `what` names the source in errors).
NpyArray parse_npy(const std::byte* bytes, std::size_t size, const std::string& what = "<memory>");

/// A .npy file's header: dtype, shape and where the data lies.
struct NpyHeader {
  std::string dtype;
  std::vector<std::size_t> shape;
  std::uint64_t data_offset = 0;  ///< file offset of the data (a multiple of 64 for NumPy's files)
  std::uint64_t data_bytes = 0;   ///< shape product × item size
};
/// Every check of read_npy on the first `size` bytes of a file of `file_size` bytes (the header
/// must lie within them; the data size is checked against file_size: truncated data and trailing
/// bytes are refused). parse_npy and read_npy_header are built on it.
NpyHeader parse_npy_header(const std::byte* bytes, std::size_t size, std::uint64_t file_size,
                           const std::string& what = "<memory>");
/// Read and check only the header of a .npy file (the data is not read; its size is checked
/// against the file's). Throws as read_npy.
NpyHeader read_npy_header(const std::filesystem::path& path);
/// The data of a .npy file as a TensorLocation (read_npy_header's checks), named after the file's stem.
TensorLocation locate_npy(const std::filesystem::path& path);

/// Write a .npy file (version 1.0, or 2.0 when the header needs it) as a one-output transaction
/// (file_io.hpp OutputSet: a temporary beside the target, renamed when complete; symlinks written
/// through; special files refused). Throws ParseError for an unsupported descr or a data size
/// that does not match the shape, IoError on I/O failure.
void write_npy(const std::filesystem::path& path, const NpyArray& array);
/// Write `array` as the output `id` of `outputs` (appended, then finished; the caller commits).
void write_npy(OutputSet& outputs, OutputId id, const NpyArray& array);

/// Serialise to .npy bytes (what write_npy writes).
std::vector<std::byte> serialize_npy(const NpyArray& array);
/// The .npy preamble and header (magic, version, the header dict padded with spaces and '\n' so
/// the data starts at a multiple of 64 bytes) of a C-order array of `dtype` and `shape`: what
/// serialize_npy writes before the data. Throws ParseError for an unsupported descr.
std::vector<std::byte> npy_header(const std::string& dtype, const std::vector<std::size_t>& shape);

/// Streams one .npy output of an OutputSet, never holding the whole file: the constructor writes
/// the header of a known dtype and shape; append() takes the data (C order, little endian) in
/// pieces of any size; finish() checks that exactly shape-product × item-size bytes arrived and
/// finishes the output (the OutputSet's commit() then renames it into place).
///   OutputSet out;  out.add_input(in, "--in");
///   NpyWriter w(out, out.add_output(path, "--out-codes"), "|u1", shape);
///   for (each row) w.append(row_bytes);
///   w.finish();  out.commit();
class NpyWriter {
 public:
  /// Throws ParseError for an unsupported descr or a shape whose size overflows, IoError on I/O.
  NpyWriter(OutputSet& outputs, OutputId id, const std::string& dtype, const std::vector<std::size_t>& shape);
  /// Throws Error when more bytes arrive than the shape holds, IoError on a write failure.
  void append(std::span<const std::byte> data);
  /// The elements of `values`, as their bytes (the host is little endian).
  template <class T>
  void append_values(std::span<const T> values) {
    append(std::as_bytes(values));
  }
  /// Throws Error when bytes are missing (the output stays unfinished: commit() refuses it).
  void finish();
  /// Data bytes still expected.
  std::uint64_t remaining() const noexcept { return remaining_; }

 private:
  OutputSet* out_;
  OutputId id_;
  std::uint64_t remaining_;
};

/// The elements as binary32: `<f4` as is; `<f2`, `<V2` (bfloat16) exactly; `<f8` rounded to
/// nearest even; integer and raw-byte types by their integer value. Throws ParseError when
/// `code_format` is set (the bytes are codes, not numbers) and for `<u8` (64-bit words).
std::vector<float> npy_as_f32(const NpyArray& array);
/// The elements as binary64 (exact for every accepted descr); throws like npy_as_f32.
std::vector<double> npy_as_f64(const NpyArray& array);
/// Decode out.size() elements of `dtype` from their little-endian bytes (bytes.size() must be
/// out.size() × item size, else ParseError) — what npy_as_f32 / npy_as_f64 do to a whole array.
void npy_decode(std::string_view dtype, std::span<const std::byte> bytes, std::span<float> out);
void npy_decode(std::string_view dtype, std::span<const std::byte> bytes, std::span<double> out);

/// Build arrays from typed data (helpers for writers).
NpyArray make_npy_f32(std::vector<std::size_t> shape, const std::vector<float>& values);
NpyArray make_npy_f64(std::vector<std::size_t> shape, const std::vector<double>& values);
NpyArray make_npy_u8(std::vector<std::size_t> shape, const std::vector<std::uint8_t>& values);

/// How an array of codes is written (`convert --as`): `codes`, unsigned integers (|u1 for codes of at most
/// 8 bits, else <u2), or `ml_dtypes`, the descr ml_dtypes writes for the format (<V1; bf16 <V2, f16 <f2).
enum class CodeDtype : std::uint8_t { codes, ml_dtypes };
/// "code-dtype": codes ml_dtypes (defined in npy.cpp).
const NameTable<CodeDtype>& name_table(CodeDtype);
/// The ml_dtypes dtype whose bits are the codes of `f`: the ml_dtypes column of core/named_formats.hpp
/// ("float8_e4m3fn", "bfloat16"), "float16" for f16. Throws Error "format <name> has no ml_dtypes dtype;
/// accepted: e4m3fn (float8_e4m3fn), …" for a format ml_dtypes lacks (ue4m3, P3109, custom): the one
/// rule of `convert --as ml_dtypes` and Python's convert(as_="ml_dtypes") / ml_dtype().
std::string ml_dtypes_name(const Format& f);

}  // namespace minifloat
