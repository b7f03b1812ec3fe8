// SPDX-License-Identifier: Apache-2.0
// train/quantizer.hpp: fake quantization of GEMM operands for the training simulator: an
// operand is quantized along its GEMM's contraction axis (the columns of the row-major matrix
// handed in), dequantized back to FP32, and its statistics recorded.
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "../delayed_scaling.hpp"
#include "../quant.hpp"
#include "recipe.hpp"
#include "tensor.hpp"

namespace minifloat::train {

/// Statistics of one quantized tensor.
struct QuantStats {
  double amax = 0;          ///< max |x| of the input
  double scale = 0;         ///< decode scale (tensor scale, or the mean block scale for blocked rules)
  std::uint64_t count = 0;  ///< elements
  std::uint64_t nonzero = 0;
  std::uint64_t flushed = 0;     ///< nonzero inputs that quantized to zero ("underflow")
  std::uint64_t saturated = 0;   ///< elements whose code is ± the element format's max finite
  double signal = 0, noise = 0;  ///< Σx², Σ(x − x̂)² (SQNR = 10·log10(signal/noise))
  void add(const QuantStats& o);
  double sqnr_db() const;  ///< 10·log10(signal/noise); +inf when there was no error (noise == 0)
};

/// Applies a Recipe's operand quantization. Deterministic: stochastic rounding draws its bits
/// from `sr_bits(seed, stream = tensor id, step, element index)`.
class Quantizer {
 public:
  Quantizer(const Recipe& recipe, std::uint64_t seed) : recipe_(recipe), seed_(seed) {}
  /// Quantize-dequantize `m`, blocks running along its columns (the contraction axis).
  /// `tensor_id` must be unique per (layer, operand, GEMM) so SR streams and delayed-scaling
  /// histories do not collide. Returns the FP32 matrix the GEMM consumes.
  Matrix apply(const Matrix& m, Operand op, Gemm gemm, std::uint32_t tensor_id, std::uint32_t step,
               QuantStats* stats = nullptr);
  const Recipe& recipe() const { return recipe_; }

 private:
  Recipe recipe_;
  std::uint64_t seed_;
  std::map<std::uint32_t, DelayedScaling> delayed_;  // Transformer Engine delayed scaling per tensor id
};

}  // namespace minifloat::train
