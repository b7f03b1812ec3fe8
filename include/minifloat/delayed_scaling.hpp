// SPDX-License-Identifier: Apache-2.0
// delayed_scaling.hpp: Transformer Engine delayed scaling (a per-tensor FP32 scale from an amax
// history) for one tensor.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "quant.hpp"

namespace minifloat {

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

}  // namespace minifloat
