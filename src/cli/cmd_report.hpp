// SPDX-License-Identifier: Apache-2.0
// cmd_report.hpp: `minifloat report --in FILE [--schemes all|LIST] [--tensor NAME] [--per-tensor] [--csv]`
// — quantization error of every scheme on real tensors (.safetensors or .npy), per tensor and overall,
// streamed piece by piece (the tensor input it shares with quantize and compare: common.hpp).
#pragma once
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "options.hpp"

namespace minifloat::cli {

/// Flags of `report`.
struct ReportOptions {
  std::string in;               ///< --in: a .safetensors (every F32/F16/BF16/F64 tensor) or .npy file
  std::string schemes = "all";  ///< --schemes: all, or a comma-separated list of scheme names or specs
  std::string tensor;           ///< --tensor: only this tensor of a .safetensors file
  std::string round = "rne";    ///< --round: element rounding mode
  std::optional<std::uint64_t>
      seed;                         ///< --seed: required with --round sr (tensor k, element i: sr_bits(seed, k, 0, i))
  std::string scale_rule;           ///< --scale-rule: override the rule of every scheme of the same scale family
  bool source_via_f32 = false;      ///< --source-via-f32: round F64 values to f32 first (ml_dtypes/PyTorch)
  bool integers_as_values = false;  ///< --integers-as-values: U8/I8/U16 tensors are numbers
  bool per_tensor = false;          ///< --per-tensor: one row per (tensor, scheme) besides the overall rows
  bool csv = false;                 ///< --csv: machine-readable rows (always per tensor and overall)
  bool quiet = false;               ///< --quiet: no progress lines on stderr
  bool ftz = false;                 ///< --ftz: element results that round to a subnormal → ±0
  bool daz = false;                 ///< --daz: subnormal inputs read as ±0
  std::string threads = "0";        ///< --threads 0..1024 (0: all cores); the figures do not depend on it
};

/// Declare `report` and its flags on `app`.
void add_report_command(CLI::App& app, ReportOptions& opts);
/// Run it: prints the table (or CSV) on stdout, progress on stderr (also within a tensor of more
/// than kPieceElements elements, every 10 % of its work). Returns 0; throws minifloat::Error (one
/// line) for bad input: unreadable or malformed file, unknown scheme, no tensor, an option that
/// does not apply.
int run_report(const ReportOptions& opts);

}  // namespace minifloat::cli
