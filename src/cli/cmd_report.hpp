// SPDX-License-Identifier: Apache-2.0
// cmd_report.hpp: `minifloat report --in FILE [--schemes all|LIST] [--tensor NAME] [--per-tensor] [--csv]`
// — quantization error of every scheme on real tensors (.safetensors or .npy), per tensor and overall.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

#include "minifloat/npy.hpp"

namespace minifloat::cli {

/// Flags of `report`.
struct ReportOptions {
  std::string in;               ///< --in: a .safetensors (every F32/F16/BF16/F64 tensor) or .npy file
  std::string schemes = "all";  ///< --schemes: all, or a comma-separated list of scheme names
  std::string tensor;           ///< --tensor: only this tensor of a .safetensors file
  std::string round = "rne";    ///< --round: element rounding mode (sr uses seed 0)
  std::string scale_rule;       ///< --scale-rule: override the default rule of every scheme it fits
  bool per_tensor = false;      ///< --per-tensor: one row per (tensor, scheme) besides the overall rows
  bool csv = false;             ///< --csv: machine-readable rows (always per tensor and overall)
  bool quiet = false;           ///< --quiet: no progress lines on stderr
};

/// Declare `report` and its flags on `app`.
void add_report_command(CLI::App& app, ReportOptions& opts);
/// Run it: prints the table (or CSV) on stdout, progress on stderr. Returns 0; throws
/// minifloat::Error (one line) for bad input: unreadable or malformed file, unknown scheme, no tensor.
int run_report(const ReportOptions& opts);

/// Load the numeric tensors of `path` as (name, array): a .npy file gives one tensor named after
/// the file; a .safetensors file gives every numeric tensor in data order (or only `tensor` when
/// not empty). Non-numeric tensors (e.g. I64) are skipped with a note on stderr unless `quiet`.
/// Throws minifloat::Error naming the file for anything else.
std::vector<std::pair<std::string, NpyArray>> load_tensors(const std::string& path, const std::string& tensor,
                                                           bool quiet);

}  // namespace minifloat::cli
