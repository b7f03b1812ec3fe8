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
  std::string model;       ///< --model PRESET (tensor_core_table(): hopper-fp8, ampere-f16, …)
  std::string dir;         ///< --dir DIR holding a_*.txt, b_*.txt, c_*.txt, d_*_fp32.txt (d_*_fp16.txt: FP16 presets)
  std::string all;         ///< --all DIR: every preset against every set in DIR's sub-folders (the match matrix)
  bool c_zero = false;     ///< --c-zero: use C = +0 instead of the c_ file (= --c zero)
  std::string c_rule;      ///< --c file|zero|auto (default: file for --model, auto for --all)
  std::string format;      ///< --format FMT of the a/b elements (default: from the a_ file name)
  std::string show = "5";  ///< --show N mismatches, 0..1000000
};
void add_mma_check_command(CLI::App& app, MmaCheckOptions& opts);
/// --model M --dir D: prints `N/M match` and the first mismatches (line, inputs, expected and
/// computed bits), with a warning on stderr when M is unvalidated. Returns 0 when all match, 1
/// otherwise. --all DIR: for every sub-folder of DIR and each destination file in it (d_*_fp32,
/// d_*_fp16), runs every preset that multiplies the set's element format into that destination,
/// decides the set's C rule from the data (the file's C or +0, whichever a preset matches more
/// rows with; --c overrides), prints the matrix (presets × sets, `*` = validated on that set),
/// then per set the presets that match every row, whether one is validated on it, the presets it
/// cannot tell apart, and for an unmatched set the probes tried. Returns 0 when every set is matched
/// by a preset validated on it, 1 otherwise. Throws minifloat::Error (exit 2) for a missing or
/// ambiguous file, a malformed line, or an a/b value that is not exact in the element format.
int run_mma_check(const MmaCheckOptions& opts);

struct DotOptions {
  std::string model;  ///< --model NAME (exact, fp32, pairwise, kahan, blocked<N>, a preset, <preset>+blocked<N>)
  std::string a, b;   ///< --a FILE, --b FILE (.npy: vectors (k) or matrices (m,k) and (k,n))
  std::string
      format;  ///< --format FMT: element format of byte-code arrays (|u1, <V1); float arrays are quantized into it (rne)
  std::string format_b;  ///< --format-b FMT: element format of --b when it differs from --a's (default: --format)
  std::string operand_round = "satfinite";  ///< --operand-round satfinite|cvt|truncate (OperandRound, accumulate.hpp)
  std::string c = "0";  ///< --c VALUE (rounded once to f32, rne) or FILE.npy (one C per result, result_format dtype)
  std::string out;      ///< --out FILE: write the results as .npy float32
  std::string scale_a, scale_b;  ///< --scale-a/--scale-b FILE: block scales (.npy |u1 codes) of a block-scaled preset
};
void add_dot_command(CLI::App& app, DotOptions& opts);
/// Checks every option, the inputs and the --out file first (--out must not be --a or --b; see
/// file_io.hpp), computes, writes --out, then prints one line per result: `[i j] 0xBITS value`
/// (f32 results). Tensor-core models (and blocked<N>) take only their operand formats
/// (operand_formats(): hopper-fp8 e4m3fn/e5m2, …): float arrays need --format. Returns 0; throws
/// minifloat::Error (exit 2) for unreadable files, unsupported dtypes, operand formats or shapes.
/// --format-b gives --b its own format (default --format); float arrays become their format by
/// --operand-round (round_operands(), default satfinite: rne + satfinite, as before the option). --c
/// FILE.npy (a name ending in .npy) gives one C per result: dtype of result_format() (<f4; <f2 for an
/// FP16-destination preset; <f8 for fp64_fma), the result's shape; refused otherwise, naming both.
/// Block-scaled presets (blackwell-tcgen05-mxf8f6f4/mxf4/nvf4-unvalidated) need --scale-a (m, nb)
/// or (nb) and --scale-b (nb, n) or (nb), nb = ceil(k / block), as |u1 codes of their scale format
/// (e8m0fnu, ue4m3); other models refuse them.
int run_dot(const DotOptions& opts);

}  // namespace minifloat::cli
