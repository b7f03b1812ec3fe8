// SPDX-License-Identifier: Apache-2.0
// quant/delayed_scaling.cpp: Transformer Engine delayed scaling (delayed_scaling.hpp).
#include "minifloat/delayed_scaling.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace minifloat {

DelayedScaling::DelayedScaling(Config cfg) : cfg_(cfg), history_(std::max<std::size_t>(cfg.history_len, 1), 0.0f) {
  if (cfg_.element.bits > 8 || validate(cfg_.element) != FormatError::ok)
    throw Error("DelayedScaling: the element format must be a valid format of at most 8 bits");
}

QuantizedTensor DelayedScaling::quantize(std::span<const float> x, const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  if (n != x.size()) throw Error("DelayedScaling::quantize: values do not match the shape");
  QuantizedTensor q;
  q.scheme = "fp8_tensor_delayed";
  q.rule = ScaleRule::fp32_amax;
  q.element = ElementType{ElementKind::floating, cfg_.element};
  q.shape = shape;
  q.scale_shape = {1};
  q.rows = n ? 1 : 0;
  q.cols = n;
  q.block_rows = 1;
  q.block_cols = std::max<std::size_t>(n, 1);
  q.scale_rows = q.scale_cols = 1;
  q.scales = {scale_inv_};
  q.codes.resize(n);
  float amax = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    amax = std::fmax(amax, std::fabs(x[i]));
    const ElementResult er = quantize_element(q.element, x[i] * scale_, 0, cfg_.rounding, cfg_.profile);
    q.codes[i] = er.code;
    if (er.saturated) ++q.saturated;
    if (std::isfinite(x[i]) && x[i] != 0.0f && element_value(q.element, er.code) == 0.0) ++q.flushed;
  }
  history_[0] = std::fmax(history_[0], amax);
  return q;
}

void DelayedScaling::update() {
  const std::size_t len = history_.size();
  const float last = history_[0];
  float amax = 0.0f;
  std::vector<float> rolled(len);
  for (std::size_t i = 0; i < len; ++i) {
    const float a = i < len - 1 ? history_[i + 1] : last;
    amax = std::fmax(amax, a);
    rolled[i] = i > 0 ? a : 0.0f;
  }
  if (cfg_.algo == AmaxAlgo::most_recent) amax = last;
  const float scaled_max =
      static_cast<float>(element_max(ElementType{ElementKind::floating, cfg_.element})) * std::pow(2.0f, -cfg_.margin);
  if (std::isfinite(amax) && amax > 0.0f) scale_ = scaled_max / amax;
  scale_inv_ = 1.0f / scale_;
  history_ = std::move(rolled);
}

}  // namespace minifloat
