// SPDX-License-Identifier: Apache-2.0
// cmd_report.hpp: `minifloat report --in FILE [--schemes all|LIST] [--tensor NAME] [--per-tensor] [--csv]`
// — quantization error of every scheme on real tensors (.safetensors or .npy), per tensor and overall,
// streamed piece by piece; and the tensor inputs quantize and report share.
#pragma once
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "minifloat/tensor_file.hpp"
#include "options.hpp"

namespace minifloat::cli {

/// Elements per piece that quantize, report and compare hold at once (2 Mi: 8 MiB of f32 values,
/// 16 MiB as doubles); each command's peak memory is a few such buffers plus the scales.
inline constexpr std::size_t kPieceElements = std::size_t{1} << 21;
/// --threads of quantize and report: 0..1024, 0 = all cores (std::thread::hardware_concurrency), as train.
inline constexpr IntRange kQuantThreads{0, 1024};

/// Flags of `report`.
struct ReportOptions {
  std::string in;               ///< --in: a .safetensors (every F32/F16/BF16/F64 tensor) or .npy file
  std::string schemes = "all";  ///< --schemes: all, or a comma-separated list of scheme names or specs
  std::string tensor;           ///< --tensor: only this tensor of a .safetensors file
  std::string round = "rne";    ///< --round: element rounding mode
  std::optional<std::uint64_t> seed;  ///< --seed: required with --round sr (tensor k, element i: sr_bits(seed, k, 0, i))
  std::string scale_rule;       ///< --scale-rule: override the rule of every scheme of the same scale family
  bool source_via_f32 = false;  ///< --source-via-f32: round F64 values to f32 first (ml_dtypes/PyTorch)
  bool integers_as_values = false;  ///< --integers-as-values: U8/I8/U16 tensors are numbers
  bool per_tensor = false;      ///< --per-tensor: one row per (tensor, scheme) besides the overall rows
  bool csv = false;             ///< --csv: machine-readable rows (always per tensor and overall)
  bool quiet = false;           ///< --quiet: no progress lines on stderr
  std::string threads = "0";    ///< --threads 0..1024 (0: all cores); the figures do not depend on it
};

/// Declare `report` and its flags on `app`.
void add_report_command(CLI::App& app, ReportOptions& opts);
/// Run it: prints the table (or CSV) on stdout, progress on stderr (also within a tensor of more
/// than kPieceElements elements, every 10 % of its work). Returns 0; throws minifloat::Error (one
/// line) for bad input: unreadable or malformed file, unknown scheme, no tensor, an option that
/// does not apply.
int run_report(const ReportOptions& opts);

/// Whether a NumPy descr holds integers (|u1 <u1 |i1 <i1 <u2): codes, unless the user says otherwise.
bool is_integer_dtype(const std::string& dtype);

/// The tensors `command` reads from `path` (option `--in`), located but not loaded: a .npy file
/// gives one tensor named after the file; a .safetensors file every numeric tensor in data order
/// (or only `tensor` when not empty). Integer tensors are codes, not values: a .npy file or a named
/// tensor of integers is an error unless `integers_as_values`; in a whole .safetensors file they
/// are skipped with a note (as non-numeric tensors are) unless `integers_as_values`. Raw one-byte
/// arrays (<V1: ml_dtypes float8/float4 codes) are always refused. Notes go to stderr unless `quiet`.
/// Throws minifloat::Error naming the file for anything else. `file_index`, when given, receives each
/// returned tensor's position among all the file's tensors (data order, skipped ones counted; 0 for .npy).
std::vector<TensorLocation> locate_tensors(const std::string& command, const std::string& path,
                                           const std::string& tensor, bool integers_as_values, bool quiet,
                                           std::vector<std::size_t>* file_index = nullptr);

/// Split a --schemes list at commas, keeping the commas of a `custom:E,M,…` element inside its spec.
std::vector<std::string> split_scheme_list(const std::string& list);

}  // namespace minifloat::cli
