// SPDX-License-Identifier: Apache-2.0
// cmd_mma.hpp: `minifloat mma-check` (a tensor-core model against hardware-measured MMA vectors)
// and `minifloat dot` (dot products / GEMM of .npy operands under a named accumulation model).
#pragma once
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "minifloat/core/format.hpp"

namespace minifloat::cli {

struct MmaCheckOptions {
  std::string model;       ///< --model PRESET (hopper-fp8, ada-fp8, hopper-f16, hopper-bf16, …)
  std::string dir;         ///< --dir DIR holding a_*.txt, b_*.txt, c_*.txt, d_*_fp32.txt
  bool c_zero = false;     ///< --c-zero: use C = +0 instead of the c_ file
  std::string format;      ///< --format FMT of the a/b elements (default: from the a_ file name, E4M3/E5M2)
  std::string show = "5";  ///< --show N mismatches, 0..1000000
};
void add_mma_check_command(CLI::App& app, MmaCheckOptions& opts);
/// Prints `N/M match` and the first mismatches (line, inputs, expected and computed bits).
/// Returns 0 when all match, 1 otherwise; throws minifloat::Error (exit 2) for a missing or
/// ambiguous file, a malformed line, or an a/b value that is not exact in the element format.
int run_mma_check(const MmaCheckOptions& opts);

struct DotOptions {
  std::string model;              ///< --model NAME (exact, fp32, pairwise, kahan, blocked<N>, a preset, <preset>+blocked<N>)
  std::string a, b;               ///< --a FILE, --b FILE (.npy: vectors (k) or matrices (m,k) and (k,n))
  std::string format;             ///< --format FMT: element format of byte-code arrays (|u1, <V1); float arrays are quantized into it (rne)
  std::string c = "0";            ///< --c VALUE: the addend of every dot product, rounded once to f32 (rne)
  std::string out;                ///< --out FILE: write the results as .npy float32
};
void add_dot_command(CLI::App& app, DotOptions& opts);
/// Checks every option, the inputs and the --out file first (--out must not be --a or --b; see
/// file_io.hpp), computes, writes --out, then prints one line per result: `[i j] 0xBITS value`
/// (f32 results). Tensor-core models (and blocked<N>) take only their operand formats
/// (operand_formats(): hopper-fp8 e4m3fn/e5m2, …): float arrays need --format. Returns 0; throws
/// minifloat::Error (exit 2) for unreadable files, unsupported dtypes, operand formats or shapes.
int run_dot(const DotOptions& opts);

}  // namespace minifloat::cli
