// SPDX-License-Identifier: Apache-2.0
// mma_vectors.hpp: the reader (and printer) of hardware-measured MMA test vectors in the text
// layout of MATLAB-tensor-core's `model_validation/` folders (../shared/mma-vectors/README.md),
// as `minifloat mma-check` reads them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "core/format.hpp"
#include "registry.hpp"

namespace minifloat {

/// The vectors of one folder: `rows` dot products d = a·b + c of k elements each.
///
/// File layout (one row per non-blank line; lines are numbered from 1 counting blank ones):
///   - `a_*.txt`, `b_*.txt`: k FP32 hex words a line (exactly 8 hex digits each, separated by
///     spaces or tabs), each the exact value of an element of `element` (not NaN);
///   - `c_*.txt`, `d_*_fp32.txt`: one FP32 value a line as a 32-character binary string (spaces
///     or tabs inside the line are ignored).
/// Every a and b line holds the k elements of the first a line, and the four files hold the same
/// number of rows.
struct MmaVectors {
  Format element{};                 ///< format of the a/b elements
  std::size_t k = 0;                ///< elements per line
  std::vector<std::uint64_t> a, b;  ///< rows × k codes of `element`, row-major
  std::vector<std::uint64_t> c, d;  ///< f32 codes, one per row
  std::filesystem::path a_file, b_file, c_file, d_file;
};

/// The text of the four files of one vector set, and the names errors give them.
struct MmaVectorTexts {
  std::string_view a, b, c, d;
  std::string a_name = "a", b_name = "b", c_name = "c", d_name = "d";
};

/// Parse the four files (layout above). Throws ParseError, one line naming the file and line:
/// a word that is not 8 hex digits, a value that is not exactly an `element` value (or is NaN),
/// a row with another number of elements than the first a row (a short or long row), a c/d line
/// that is not 32 binary digits, no rows, or files with different row counts (naming the file
/// that ends early and its last line).
MmaVectors parse_mma_vectors(const MmaVectorTexts& texts, Format element);

/// Where the accumulator C of a vector set comes from when a model is checked against it
/// (`minifloat mma-check --c`).
enum class MmaCRule : std::uint8_t {
  file,       ///< the c_ file's value
  zero,       ///< +0: vectors measured with a zero accumulator (the H100 FP8 folder of the shared mma-vectors)
  automatic,  ///< decided per set from the data: whichever of file and zero reproduces more rows
};
/// "c-rule" (registry.hpp NameTable): file, zero, auto.
const NameTable<MmaCRule>& name_table(MmaCRule);

/// Which measured destination file a set's d comes from.
enum class MmaDestination : std::uint8_t {
  fp32,  ///< d_*_fp32.txt: FP32 destination registers
  fp16,  ///< d_*_fp16.txt: FP16 destination registers, stored widened to FP32 bits
};

/// The a/b element format a vector file's name says (case-insensitive): E4M3 → e4m3fn, E5M2 →
/// e5m2, BF16 → bf16, FP16/F16 → f16, TF32 → tf32. Throws NameError when it says none of them.
Format mma_element_format_from_name(const std::string& file_name);

/// Load a folder holding exactly one each of a_*.txt, b_*.txt, c_*.txt and d_*_fp32.txt (or
/// d_*_fp16.txt for MmaDestination::fp16). `element_format` names the a/b element format; empty:
/// from the a_ file name (mma_element_format_from_name). Throws IoError for a missing folder or
/// file or more than one candidate, NameError for an unknown or untellable format, ParseError as
/// parse_mma_vectors.
MmaVectors load_mma_vectors(const std::filesystem::path& dir, const std::string& element_format = "",
                            MmaDestination destination = MmaDestination::fp32);

/// The text of the four files of one vector set.
struct MmaVectorFiles {
  std::string a, b, c, d;
};
/// The files that parse_mma_vectors reads back to `v` (a/b: lowercase 8-digit FP32 hex words
/// separated by one space; c/d: 32 binary digits; one row a line). Throws ParseError when a code
/// is not an `element` value exactly representable in FP32, or when the sizes are inconsistent
/// (a and b must hold c.size() × k codes, d as many as c, k ≥ 1).
MmaVectorFiles print_mma_vectors(const MmaVectors& v);

}  // namespace minifloat
