// SPDX-License-Identifier: Apache-2.0
// cmd_compare.hpp: `minifloat compare --ref FILE --got FILE [--format FMT [--packed] [--nan-equal]]
// [--show N] [--in INPUTS]` — bit-for-bit diff of two code tensors (e.g. a GPU kernel's dump against the reference
// quantizer's), streamed piece by piece.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

namespace minifloat::cli {

struct CompareOptions {
  std::string ref;          ///< --ref .npy (the reference codes)
  std::string got;          ///< --got .npy (the codes to check)
  std::string format;       ///< --format FMT: the codes' format (decoded values shown; needed by --packed, --nan-equal)
  bool packed = false;      ///< --packed: |u1 files of FP4 (two per byte, element 2i low) or FP6 (4 in 3 bytes) rows
  bool nan_equal = false;   ///< --nan-equal: any NaN code of --format equals any NaN code
  std::string show = "10";  ///< --show N (0..1000000): how many mismatches to list
  std::string in;           ///< --in .npy: the inputs that produced the codes (one per code), shown per mismatch
};

void add_compare_command(CLI::App& app, CompareOptions& opts);
/// Prints the mismatch count and the first mismatches (flat and multi-dimensional index, both
/// codes in hex, decoded values with --format, NaN spelled `nan` as `encode -x` does). Packed
/// files are compared code by code: row r of the last axis holds floor(8·bytes/bits) codes
/// (trailing padding codes included). Returns 0 when identical, 1 on a mismatch; throws
/// minifloat::Error (→ exit 2) for unreadable files, different dtypes/shapes, codes wider than
/// --format, or an option that does not apply (--packed/--nan-equal without --format, --nan-equal
/// for a format without NaN, --packed for a format that is not 4 or 6 bits wide).
int run_compare(const CompareOptions& opts);

}  // namespace minifloat::cli
