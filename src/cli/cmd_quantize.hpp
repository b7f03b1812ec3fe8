// SPDX-License-Identifier: Apache-2.0
// cmd_quantize.hpp: `minifloat quantize --scheme NAME [--scale-rule R] [--round MODE] --in FILE
// [--tensor NAME] --out-codes FILE [--out-scales FILE] [--out-dequant FILE] [--packed]` and the
// special-block policy flags (one per disagreement D7, D8, D10, D17 …).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace minifloat::cli {

/// Flags of `quantize` (names as on the command line; defaults documented in core/block_scale.hpp/quant.hpp).
struct QuantizeOptions {
  std::string scheme;              ///< --scheme (quant.hpp table)
  std::string scale_rule;          ///< --scale-rule (default: the scheme's)
  std::string round = "rne";       ///< --round rne|rna|rtz|rtp|rtn|rto|sr
  std::string overflow = "satfinite";  ///< --overflow for the elements
  std::string sr_variant = "exact";    ///< --sr-variant (with --round sr)
  int sr_bits = 8;                     ///< --sr-bits (A/B/C)
  std::optional<std::uint64_t> seed;   ///< --seed (required with --round sr, rejected otherwise)
  std::string profile = "ocp";         ///< --profile ocp|nvidia|ml_dtypes|p3109
  std::string element;                 ///< --element FMT (fp8_* schemes only)
  std::string axis = "last";           ///< --axis last|first: the axis blocks run along
  std::string zero_block = "standard";      ///< --zero-block standard|min_scale|unit_scale|nan (D7)
  std::string nan_block = "whole_block_nan";///< --nan-block whole_block_nan|element_only (D8)
  std::string inf_block = "nan_scale";      ///< --inf-block nan_scale|max_scale
  std::string subnormal_amax = "keep";      ///< --subnormal-amax keep|flush_block
  std::string mxint8_min = "twos_complement";  ///< --mxint8-min twos_complement|symmetric (D10)
  std::string fp32_order = "te_multiply";   ///< --fp32-order te_multiply|divide
  float amax_epsilon = 0.0f;                ///< --amax-epsilon
  bool scale_ftz = false;                   ///< --scale-ftz: dequantize as an FTZ consumer (D17)
  std::string in;                  ///< --in .npy or .safetensors (with --tensor)
  std::string tensor;              ///< --tensor NAME
  std::string out_codes;           ///< --out-codes .npy (|u1, the input's shape; packed: 1-D bytes)
  std::string out_scales;          ///< --out-scales .npy (|u1 E8M0/E4M3 codes or <f4 FP32 decode scales, [tile rows, tile cols])
  std::string out_tensor_scale;       ///< --out-tensor-scale: nvfp4's FP32 per-tensor decode scale
  std::string out_dequant;         ///< --out-dequant .npy (<f4, the input's shape)
  bool packed = false;             ///< --packed: FP4 two per byte (element 2i low nibble), FP6 4-in-3 bytes
};

void add_quantize_command(CLI::App& app, QuantizeOptions& opts);
/// Returns 0; throws minifloat::Error (one line) for bad input.
int run_quantize(const QuantizeOptions& opts);

}  // namespace minifloat::cli
