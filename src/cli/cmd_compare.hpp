// SPDX-License-Identifier: Apache-2.0
// cmd_compare.hpp: `minifloat compare --ref FILE --got FILE [--format FMT] [--show N]` — bit-for-bit
// diff of two code tensors (e.g. a GPU kernel's dump against the reference quantizer's).
#pragma once
#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

namespace minifloat::cli {

struct CompareOptions {
  std::string ref;         ///< --ref .npy (the reference codes)
  std::string got;         ///< --got .npy (the codes to check)
  std::string format;      ///< --format FMT: decode the codes in this format (optional)
  std::size_t show = 10;   ///< --show N: how many mismatches to list
};

void add_compare_command(CLI::App& app, CompareOptions& opts);
/// Prints the mismatch count and the first mismatches (flat and multi-dimensional index, both
/// codes in hex, decoded values with --format). Returns 0 when identical, 1 on a mismatch; throws
/// minifloat::Error (→ exit 2) for unreadable files or different dtypes/shapes.
int run_compare(const CompareOptions& opts);

}  // namespace minifloat::cli
