// SPDX-License-Identifier: Apache-2.0
// quant.hpp: tensor quantizers — the named block schemes (MX, NVFP4, scaled FP8 per tensor / row /
// channel / 1×128 / 128×128), delayed scaling with an amax history (Transformer Engine), the
// dequantization, error statistics, and the OCP MX dot product and GEMM.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/block_scale.hpp"
#include "core/format.hpp"
#include "core/profile.hpp"
#include "core/rounding.hpp"
#include "error.hpp"
#include "registry.hpp"

namespace minifloat {

/// A named block scheme. A tensor is viewed as a matrix [rows, cols] with cols = its last
/// dimension (rows = the product of the others); a block is a tile of block_rows × block_cols
/// elements (0 = the whole dimension), tiles start at (0, 0) and the last ones may be partial
/// (the amax is taken over the elements present, as if zero-padded: DeepSeek-V3 README_WEIGHTS).
///
/// | name              | element | tile      | scale                 | default rule | source |
/// |-------------------|---------|-----------|-----------------------|--------------|--------|
/// | mxfp8_e4m3        | e4m3fn  | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxfp8_e5m2        | e5m2    | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxfp6_e2m3        | e2m3fn  | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxfp6_e3m2        | e3m2fn  | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxfp4             | e2m1fn  | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxint8            | int8    | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | nvfp4             | e2m1fn  | 1×16      | E4M3 + FP32 per tensor| nvfp4        | NVIDIA / TE NVFP4BlockScaling |
/// | fp8_tensor        | e4m3fn  | all×all   | FP32                  | fp32_amax    | TE Float8CurrentScaling |
/// | fp8_row           | e4m3fn  | 1×all     | FP32                  | fp32_amax    | per token (activations) / per output channel (weights [out, in]) |
/// | fp8_channel       | e4m3fn  | all×1     | FP32                  | fp32_amax    | per column (per channel of a [tokens, channels] activation) |
/// | fp8_1x128         | e4m3fn  | 1×128     | FP32                  | fp32_amax    | DeepSeek-V3 activations, TE Float8BlockScaling 1-D |
/// | fp8_128x128       | e4m3fn  | 128×128   | FP32                  | fp32_amax    | DeepSeek-V3 weights, TE Float8BlockScaling 2-D |
/// | fp8_1x128_ue8m0   | e4m3fn  | 1×128     | E8M0                  | rceil        | DeepSeek-V3.1 `scale_fmt="ue8m0"`, InfiR2 |
/// | fp8_128x128_ue8m0 | e4m3fn  | 128×128   | E8M0                  | rceil        | DeepSeek-V3.1, InfiR2 `bf16_cast_fp8.py` |
///
/// Any E8M0 or FP32 rule can be used with any tile (QuantOptions::rule); nvfp4 only with nvfp4.
struct Scheme {
  std::string name;
  ElementType element;
  std::size_t block_rows;  ///< 0 = all rows
  std::size_t block_cols;  ///< 0 = all columns
  ScaleRule default_rule;
  std::string summary;
};

/// Every scheme, in the table's order.
const std::vector<Scheme>& schemes();
/// Find a scheme by name (case-insensitive); throws NameError listing the names.
const Scheme& find_scheme(std::string_view name);
// The names of the scale rules and special-block policies are in registry.hpp (parse<ScaleRule>,
// name(ScaleRule), parse_scale_rule, scale_rule_name).

/// The axis the blocks of a quantization run along (CLI `--axis`; QuantOptions::along_first_axis).
enum class BlockAxis : std::uint8_t {
  last,   ///< blocks along the last axis (the default)
  first,  ///< blocks along axis 0: the tensor is viewed as [shape[0], rest] and transposed
};
/// "block-axis": last first (src/registry.cpp).
const NameTable<BlockAxis>& name_table(BlockAxis);

/// Choices of one quantization (defaults: the scheme's rule, RNE + satfinite, the ocp profile,
/// the BlockPolicy defaults, blocks along the last axis).
struct QuantOptions {
  std::optional<ScaleRule> rule;                                  ///< default: Scheme::default_rule
  RoundingSpec rounding{Rounding::rne, Overflow::satfinite};     ///< element rounding (SR allowed)
  Profile profile = profiles::ocp;
  BlockPolicy policy{};
  std::optional<Format> element;  ///< replace a floating scheme's element (e.g. e5m2 for fp8_* recipes)
  bool along_first_axis = false;  ///< blocks run along axis 0 instead of the last axis (the tensor is
                                  ///< viewed as [shape[0], rest] and transposed before tiling)
  /// Stochastic rounding bits: element i (flat C-order index of the input) reads
  /// sr_bits(sr_seed, sr_stream, sr_step, i, variant) (random.hpp).
  std::uint64_t sr_seed = 0;
  std::uint32_t sr_stream = 0;
  std::uint32_t sr_step = 0;
};

/// A quantized tensor. Codes are one per element, right-aligned in a byte, in the input's
/// C order (use pack.hpp for packed layouts). Scales are row-major over the tile grid
/// [scale_rows, scale_cols] of the (possibly transposed) [rows, cols] view.
struct QuantizedTensor {
  std::string scheme;
  ScaleRule rule = ScaleRule::ocp_floor;
  ElementType element;
  std::vector<std::size_t> shape;
  bool transposed = false;  ///< QuantOptions::along_first_axis was set
  std::size_t rows = 0, cols = 0, block_rows = 0, block_cols = 0, scale_rows = 0, scale_cols = 0;
  std::vector<std::uint8_t> codes;
  std::vector<std::uint8_t> scale_codes;  ///< E8M0 codes (E8M0 rules) or E4M3 codes (nvfp4)
  std::vector<float> scales;              ///< FP32 decode scales (FP32 rules)
  float tensor_encode_scale = 1.0f;       ///< nvfp4: S_enc
  float tensor_decode_scale = 1.0f;       ///< nvfp4: fl32(1/S_enc)
  std::uint64_t saturated = 0;            ///< elements whose rounded magnitude exceeded the element max
  std::uint64_t flushed = 0;              ///< nonzero finite inputs that became ±0
  std::uint64_t nan_elements = 0;         ///< elements that dequantize to NaN
};

/// Quantize `x` (C order, `shape`) with `scheme`. Throws Error when x.size() does not match the
/// shape, a rule does not fit the scheme (nvfp4 vs others), or an element override is not ≤ 8 bits.
QuantizedTensor quantize(std::span<const float> x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                         const QuantOptions& opt = {});

/// Dequantize (exact products in double: element × scale [× tensor scale]). ScaleFtz::yes (D17)
/// reads FP32-subnormal scales as 0. NaN scales give NaN elements.
std::vector<double> dequantize(const QuantizedTensor& q, ScaleFtz scale_ftz = ScaleFtz::no);

/// The decode value of tile (i, j)'s scale (E8M0: 2^(code−127); nvfp4: e4m3 value × tensor decode; FP32).
double block_scale_value(const QuantizedTensor& q, std::size_t tile_index, ScaleFtz scale_ftz = ScaleFtz::no);

/// Error statistics of a dequantized tensor against its input (finite inputs only).
struct ErrorStats {
  std::uint64_t count = 0;         ///< finite elements compared
  double signal = 0;               ///< Σ x²
  double noise = 0;                ///< Σ (x − q)²
  double max_abs_err = 0;
  std::uint64_t saturated = 0;
  std::uint64_t flushed = 0;
  std::uint64_t nonfinite_out = 0; ///< finite inputs that dequantized to NaN/Inf (they make noise and
                                   ///< max_abs_err +inf, so SQNR is −inf: a NaN block is never "perfect")
  double scale_min = 0, scale_max = 0;  ///< range of the block decode scales (> 0 only)
  /// SQNR in dB: 10·log10(signal / noise); +inf when noise is 0.
  double sqnr_db() const;
  /// ‖x − q‖ / ‖x‖.
  double rel_frobenius() const;
  void merge(const ErrorStats& o);
};
ErrorStats error_stats(std::span<const float> x, const QuantizedTensor& q, const std::vector<double>& deq);

/// Transformer Engine DelayedScaling for one tensor (recipe/delayed_scaling.cu, spec-digest §7.2):
/// quantize with the scale from previous steps and record this step's amax in history slot 0;
/// `update()` (end of step) computes amax = max over the history ("max") or slot 0
/// ("most_recent"), scale = fl32(fl32(max · 2^−margin) / amax) if amax is finite and > 0 (else the
/// previous scale), scale_inv = fl32(1/scale), then rolls the history by −1 and zeroes slot 0.
class DelayedScaling {
 public:
  enum class AmaxAlgo : std::uint8_t { max, most_recent };
  struct Config {
    Format element = formats::e4m3fn;
    std::size_t history_len = 1024;
    AmaxAlgo algo = AmaxAlgo::max;
    float margin = 0.0f;
    RoundingSpec rounding{Rounding::rne, Overflow::satfinite};
    Profile profile = profiles::ocp;
  };
  explicit DelayedScaling(Config cfg);
  /// Quantize with the current scale (elements fl32(x · scale) → element); records amax into slot 0.
  QuantizedTensor quantize(std::span<const float> x, const std::vector<std::size_t>& shape);
  /// End-of-step update (see the class comment).
  void update();
  float scale() const noexcept { return scale_; }
  float scale_inv() const noexcept { return scale_inv_; }
  const std::vector<float>& history() const noexcept { return history_; }

 private:
  Config cfg_;
  std::vector<float> history_;
  float scale_ = 1.0f, scale_inv_ = 1.0f;
};

/// OCP MX dot product of row `ra` of `a` and row `rb` of `b` (both quantized with E8M0 rules along
/// the last axis, same element block size and column count):
/// Dot = Σ_j X_A,j · X_B,j · Σ_i P_A,i · P_B,i. **Stated order (D14)**: each block's sum of element
/// products is computed exactly, multiplied by its two scales exactly and rounded once to FP32
/// (RNE); the block results are added in FP32 (RNE) from block 0 upwards, starting from +0.
/// A NaN scale or element gives NaN. Throws Error for mismatched or non-MX operands.
float mx_dot(const QuantizedTensor& a, std::size_t ra, const QuantizedTensor& b, std::size_t rb);
/// C = A · Bᵀ with A [M, K] and B [N, K] (both quantized along K): C[m][n] = mx_dot(a, m, b, n).
std::vector<float> mx_gemm(const QuantizedTensor& a, const QuantizedTensor& b);

}  // namespace minifloat
