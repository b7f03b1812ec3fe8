// SPDX-License-Identifier: Apache-2.0
// quant/error_stats.cpp: error statistics of a quantized tensor (error_stats.hpp), in the stated 8-lane order.
#include "minifloat/error_stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "quant/internal.hpp"

namespace minifloat {

using namespace quant_detail;

double ErrorStats::sqnr_db() const {
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}
double ErrorStats::rel_frobenius() const {
  return signal > 0 ? std::sqrt(noise / signal) : (noise > 0 ? INFINITY : 0.0);
}
void ErrorStats::merge(const ErrorStats& o) {
  const bool had = scale_max > 0, ohad = o.scale_max > 0;
  count += o.count;
  signal += o.signal;
  noise += o.noise;
  max_abs_err = std::max(max_abs_err, o.max_abs_err);
  saturated += o.saturated;
  flushed += o.flushed;
  nonfinite_out += o.nonfinite_out;
  if (ohad) {
    scale_min = had ? std::min(scale_min, o.scale_min) : o.scale_min;
    scale_max = had ? std::max(scale_max, o.scale_max) : o.scale_max;
  }
}

namespace {
// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)): ErrorStats' combination of the lanes
double combine_lanes(const std::array<double, 8>& l) {
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

template <class X>
void accumulate_errors_impl(ErrorStats& s, std::span<const X> x, std::span<const double> deq) {
  if (deq.size() != x.size()) throw Error("error_stats: sizes differ");
  const std::size_t n = x.size();
  const X* xs = x.data();
  const double* ds = deq.data();
  std::array<double, 8> sl = s.signal_lanes, nl = s.noise_lanes;
  double mx = s.max_abs_err;
  // element i of this call is element s.stream + i of the stream: lane (s.stream + i) mod 8
  auto one = [&](std::size_t i) {
    const std::size_t l = (s.stream + i) & 7;
    const double xv = static_cast<double>(xs[i]);
    if (!std::isfinite(xv)) return;
    ++s.count;
    sl[l] += xv * xv;
    if (!std::isfinite(ds[i])) {  // a finite input lost to NaN/Inf: its error is unbounded
      ++s.nonfinite_out;
      nl[l] = std::numeric_limits<double>::infinity();
      mx = std::numeric_limits<double>::infinity();
      return;
    }
    const double e = xv - ds[i];
    nl[l] += e * e;
    mx = std::max(mx, std::fabs(e));
  };
  std::size_t i = 0;
  for (; i < n && ((s.stream + i) & 7) != 0; ++i) one(i);
  // whole groups of 8 lanes, a chunk at a time: a chunk of finite x and q in vectors (simd::error_sums8:
  // each lane's adds in order, the same bits as `one`), else element by element
  constexpr std::size_t kChunk = 512;
  while (n - i >= 8) {
    const std::size_t m = std::min(kChunk, (n - i) & ~std::size_t{7});
    if (simd::error_sums8(xs + i, ds + i, m, sl.data(), nl.data(), mx)) s.count += m;
    else
      for (std::size_t k = 0; k < m; ++k) one(i + k);
    i += m;
  }
  for (; i < n; ++i) one(i);
  s.stream += n;
  s.signal_lanes = sl;
  s.noise_lanes = nl;
  s.signal = combine_lanes(sl);
  s.noise = combine_lanes(nl);
  s.max_abs_err = mx;
}
}  // namespace

void accumulate_errors(ErrorStats& s, std::span<const double> x, std::span<const double> deq) {
  accumulate_errors_impl(s, x, deq);
}
void accumulate_errors(ErrorStats& s, std::span<const float> x, std::span<const double> deq) {
  accumulate_errors_impl(s, x, deq);
}

void finish_error_stats(ErrorStats& s, const QuantizedTensor& q) {
  s.saturated = q.saturated;
  s.flushed = q.flushed;
  const std::size_t nt = q.scale_rows * q.scale_cols;
  auto take = [&](double v) {
    if (!(v > 0) || !std::isfinite(v)) return;
    if (s.scale_max == 0) s.scale_min = s.scale_max = v;
    s.scale_min = std::min(s.scale_min, v);
    s.scale_max = std::max(s.scale_max, v);
  };
  if (coded_scale(q) && q.row_decode_scales.empty()) {  // a scale is a function of its code: each code met, once
    std::array<bool, 256> met{};
    for (std::size_t t = 0; t < nt; ++t) met[q.scale_codes.at(t)] = true;
    for (unsigned c = 0; c < 256; ++c)
      if (met[c]) take(coded_scale_value(q, static_cast<std::uint8_t>(c), ScaleFtz::no));
    return;
  }
  for (std::size_t t = 0; t < nt; ++t) take(block_scale_value(q, t));
}

ErrorStats error_stats(std::span<const double> x, const QuantizedTensor& q, const std::vector<double>& deq) {
  ErrorStats s;
  accumulate_errors(s, x, deq);
  finish_error_stats(s, q);
  return s;
}
ErrorStats error_stats(std::span<const float> x, const QuantizedTensor& q, const std::vector<double>& deq) {
  ErrorStats s;
  accumulate_errors(s, x, deq);
  finish_error_stats(s, q);
  return s;
}

}  // namespace minifloat
