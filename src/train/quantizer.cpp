// SPDX-License-Identifier: Apache-2.0
// train/quantizer.cpp: operand fake quantization for the training simulator. Scaled operands go
// through the library's block quantizers (quant.hpp: the one implementation of every scale
// rule); plain casts through the span API; every element through the one rounding engine.
#include "minifloat/train/quantizer.hpp"

#include <algorithm>
#include <cmath>

#include "minifloat/convert_span.hpp"
#include "minifloat/core/random.hpp"

namespace minifloat::train {

void QuantStats::add(const QuantStats& o) {
  amax = std::max(amax, o.amax);
  scale = count + o.count ? (scale * static_cast<double>(count) + o.scale * static_cast<double>(o.count)) /
                                static_cast<double>(count + o.count)
                          : 0;
  count += o.count;
  nonzero += o.nonzero;
  flushed += o.flushed;
  saturated += o.saturated;
  signal += o.signal;
  noise += o.noise;
}

double QuantStats::sqnr_db() const {
  if (noise == 0) return INFINITY;  // exact (the FP32 recipe): the CSV leaves the cell empty
  return 10.0 * std::log10(signal / noise);
}

Matrix Quantizer::apply(const Matrix& m, Operand op, Gemm gemm, std::uint32_t tensor_id, std::uint32_t step,
                        QuantStats* stats) {
  const OperandQuant& oq = op == Operand::x ? recipe_.x : op == Operand::w ? recipe_.w : recipe_.g;
  Matrix out(m.rows, m.cols);
  const std::vector<std::size_t> shape{static_cast<std::size_t>(m.rows), static_cast<std::size_t>(m.cols)};
  double scale = 1;
  std::uint64_t saturated = 0;
  std::vector<float> original;  // a transformed operand's dequantized values mapped back, for the statistics
  switch (oq.kind) {
    case OperandQuant::Kind::none: out = m; break;
    case OperandQuant::Kind::cast: {
      const Format f = *oq.element;
      std::vector<std::uint64_t> rbits;
      if (oq.rounding.rounding == Rounding::sr) {
        rbits.resize(m.size());
        for (std::size_t i = 0; i < m.size(); ++i) rbits[i] = sr_bits(seed_, tensor_id, step, i, oq.rounding);
      }
      std::vector<std::uint16_t> codes(m.size());
      convert_f32(m.v, codes, f, oq.rounding, profiles::ocp, rbits);
      decode_to_f32(codes, out.v, f);
      const std::uint64_t max_mag = max_finite_magnitude(f), mag = magnitude_mask(f);
      for (std::uint16_t c : codes) saturated += (c & mag) == max_mag;
      break;
    }
    case OperandQuant::Kind::scheme:
    case OperandQuant::Kind::delayed: {
      QuantizedTensor q;
      if (oq.kind == OperandQuant::Kind::delayed) {
        auto it = delayed_.find(tensor_id);
        if (it == delayed_.end()) {
          DelayedScaling::Config c;
          c.element = *oq.element;
          c.history_len = oq.history;
          c.rounding = oq.rounding;
          it = delayed_.emplace(tensor_id, DelayedScaling(c)).first;
        }
        q = it->second.quantize(m.v, shape);
        scale = it->second.scale_inv();
        it->second.update();
      } else {
        Scheme sch = oq.scheme;
        if (oq.rule) sch.rule = *oq.rule;
        if (oq.element) sch.element.format = *oq.element;
        if (gemm == Gemm::wgrad && oq.wgrad_transform.rht16) sch.transform = oq.wgrad_transform;
        QuantOptions o;
        o.rounding = oq.rounding;
        o.sr_seed = seed_;
        o.sr_stream = tensor_id;
        o.sr_step = step;
        q = quantize(m.v, shape, sch, o);
        double sum = 0;
        const std::size_t tiles = q.scale_rows * q.scale_cols;
        for (std::size_t t = 0; t < tiles; ++t) sum += block_scale_value(q, t);
        scale = tiles ? sum / static_cast<double>(tiles) : 1;
      }
      const std::vector<double> deq = dequantize(q);
      for (std::size_t i = 0; i < deq.size(); ++i) out.v[i] = static_cast<float>(deq[i]);
      if (stats && q.transform.rht16) {
        original.resize(deq.size());
        untransform(q, deq, std::span<float>(original));
      }
      saturated = q.saturated;
      break;
    }
  }
  if (stats) {
    QuantStats s;
    s.count = m.size();
    s.scale = scale;
    s.saturated = saturated;
    for (std::size_t i = 0; i < m.size(); ++i) {
      const float x = m.v[i], xq = original.empty() ? out.v[i] : original[i];
      s.amax = std::max(s.amax, static_cast<double>(std::fabs(x)));
      s.nonzero += x != 0;
      s.flushed += (x != 0 && xq == 0);
      if (std::isfinite(x)) {
        s.signal += static_cast<double>(x) * x;
        s.noise += (static_cast<double>(x) - xq) * (static_cast<double>(x) - xq);
      }
    }
    stats->add(s);
  }
  return out;
}

}  // namespace minifloat::train
