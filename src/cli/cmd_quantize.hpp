// SPDX-License-Identifier: Apache-2.0
// cmd_quantize.hpp: `minifloat quantize --scheme NAME|SPEC [--scale-rule R] [--round MODE] --in FILE
// [--tensor NAME] --out-codes FILE [--out-scales FILE] [--out-dequant FILE] [--packed]` and the
// special-block policy flags (one per disagreement D7, D8, D10, D17 …). Streams the tensor piece by
// piece; every output is one transaction (file_io.hpp OutputSet).
#pragma once
#include <CLI/CLI.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "minifloat/scheme.hpp"

namespace minifloat::cli {

/// Flags of `quantize` as the user gave them (std::nullopt: not given; defaults in scheme.hpp,
/// core/block_scale.hpp and quant.hpp). Every flag given must apply (else exit 2).
struct QuantizeOptions {
  std::string scheme;                     ///< --scheme: a name or spec (scheme.hpp)
  std::optional<std::string> scale_rule;  ///< --scale-rule: a rule of the scheme's scale family
  std::string round = "rne";              ///< --round rne|rna|rtz|rtp|rtn|rto|sr
  std::string overflow = "satfinite";     ///< --overflow for the elements
  std::optional<std::string> sr_variant;  ///< --sr-variant (with --round sr; default exact)
  std::optional<long long> sr_bits;       ///< --sr-bits (with --round sr and variant A/B/C/stochastic_odd; default 8)
  bool ftz = false;                       ///< --ftz: element results that round to a subnormal → ±0
  bool daz = false;                       ///< --daz: subnormal inputs read as ±0
  std::optional<std::uint64_t> seed;      ///< --seed (required with --round sr, refused otherwise)
  std::string profile = "ocp";            ///< --profile ocp|nvidia|ml_dtypes|p3109
  std::optional<std::string> element;     ///< --element FMT (fp8_* schemes and specs with a floating element)
  std::string axis = "last";              ///< --axis last|first: the axis blocks run along
  /// --zero-block, --nan-block, …: one per kPolicyFields entry (scheme.hpp), in its order
  std::array<std::optional<std::string>, kPolicyFieldCount> policy;
  std::optional<std::string> amax_epsilon;  ///< --amax-epsilon (decimal, rounded once to binary32)
  std::optional<std::string> scale_layout;  ///< --scale-layout (scale_layout.hpp; default rowmajor)
  std::optional<std::string> mx_quirks;     ///< --mx-quirks none|torchao_0_18|torchao_0_18_no_tensor_scale
  bool scale_ftz = false;                   ///< --scale-ftz: dequantize as an FTZ consumer (D17; needs --out-dequant)
  bool source_via_f32 = false;              ///< --source-via-f32: an f64 input rounds to f32 first (ml_dtypes/PyTorch)
  bool integers_as_values = false;          ///< --integers-as-values: an integer input holds numbers, not codes
  std::string in;                           ///< --in .npy or .safetensors (with --tensor)
  std::string tensor;                       ///< --tensor NAME
  std::string out_codes;  ///< --out-codes .npy (|u1, the input's shape; packed: [..., bytes per row]) or .safetensors
  std::string
      out_scales;  ///< --out-scales .npy (|u1 E8M0/E4M3 codes or <f4 FP32 decode scales; QuantizedTensor::scale_shape)
  std::string out_tensor_scale;  ///< --out-tensor-scale: nvfp4's FP32 per-tensor decode scale
  std::string out_dequant;       ///< --out-dequant .npy (<f4, the input's shape)
  bool packed = false;           ///< --packed: FP4 two per byte (element 2i low nibble), FP6 4-in-3 bytes
  std::string threads = "0";     ///< --threads 0..1024 (0: all cores); the bytes do not depend on it

  // issue 25 item 1: the random Hadamard transform (core/hadamard.hpp)
  std::optional<std::string> transform;        ///< --transform none|rht16:te|rht16:torchao|rht16:0xHHHH
  std::string dequant_domain = "transformed";  ///< --dequant-domain transformed|original (with --transform)
  std::optional<std::string> transform_gemm;   ///< --transform-gemm exact|PRESET (the transform's arithmetic)
  std::optional<std::string> tensor_scale;     ///< --tensor-scale VALUE|FILE: nvfp4's given S_enc (issue 25 item 3)
  std::optional<std::string> scale_select;     ///< --scale-select none|4over6:mse|4over6:mae (issue 25 item 2)
  std::string out_scale_select;  ///< --out-scale-select .npy |u1 (0 map-to-6, 1 map-to-4; scale_shape, rowmajor)
  std::optional<std::string> amax_scope;  ///< --amax-scope tensor|row: nvfp4's S_enc per tensor or per row (item 3)
  /// --dequant-dtype f32|f64|f16|bf16: --out-dequant's dtype (default: <f8 for an f64 source, else <f4)
  std::optional<std::string> dequant_dtype;
};

void add_quantize_command(CLI::App& app, QuantizeOptions& opts);
/// Returns 0; throws minifloat::Error (one line) for bad input, before any output is touched.
int run_quantize(const QuantizeOptions& opts);

}  // namespace minifloat::cli
