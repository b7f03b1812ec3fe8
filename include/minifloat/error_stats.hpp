// SPDX-License-Identifier: Apache-2.0
// error_stats.hpp: error statistics of a quantized tensor against its input (SQNR, relative
// Frobenius error, counts, scale range), in a stated summation order.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "quant.hpp"

namespace minifloat {

/// Error statistics of a dequantized tensor against its input (finite inputs only).
///
/// The order of the sums (accumulate_errors): element g of the stream of elements given to
/// accumulate_errors (g counts every element, finite or not, from 0 across calls) adds its terms to
/// lane g mod 8, each lane in stream order in binary64 (the term x·x or e·e rounded, then the add);
/// signal and noise are then ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) of the lanes. So the
/// result depends on the stream alone, never on how it is cut into calls, pieces or threads, and each
/// lane's rounding error grows with n/8 terms, not n.
struct ErrorStats {
  std::uint64_t count = 0;  ///< finite elements compared
  double signal = 0;        ///< Σ x² (the order above)
  double noise = 0;         ///< Σ (x − q)² (the order above); +inf once a finite x dequantized to NaN/Inf
  double max_abs_err = 0;
  std::uint64_t saturated = 0;
  std::uint64_t flushed = 0;
  std::uint64_t nonfinite_out = 0;      ///< finite inputs that dequantized to NaN/Inf (they make noise and
                                        ///< max_abs_err +inf, so SQNR is −inf: a NaN block is never "perfect")
  double scale_min = 0, scale_max = 0;  ///< range of the block decode scales (> 0 only)
  /// SQNR in dB: 10·log10(signal / noise); +inf when noise is 0.
  double sqnr_db() const;
  /// ‖x − q‖ / ‖x‖.
  double rel_frobenius() const;
  /// Adds o's counts and finished sums (signal += o.signal, …; the statistics of several tensors).
  /// The lanes are not merged: accumulate_errors goes on with this object's own stream.
  void merge(const ErrorStats& o);
  /// accumulate_errors' state: the elements given so far and the 8 lanes of each sum.
  std::uint64_t stream = 0;
  std::array<double, 8> signal_lanes{}, noise_lanes{};
};
/// error_stats of a whole tensor: accumulate_errors over its values in C order, then finish_error_stats.
ErrorStats error_stats(std::span<const float> x, const QuantizedTensor& q, const std::vector<double>& deq);
ErrorStats error_stats(std::span<const double> x, const QuantizedTensor& q, const std::vector<double>& deq);
/// Add the errors of the next elements of s's stream (input x, dequantized deq; same size) to `s`, the
/// sums in ErrorStats' 8-lane order (the same bits however the stream is cut into calls); signal and
/// noise are up to date after each call. Throws Error when the sizes differ.
void accumulate_errors(ErrorStats& s, std::span<const double> x, std::span<const double> deq);
/// The same with binary32 inputs (each x widened exactly to binary64: the same sums as from those doubles).
void accumulate_errors(ErrorStats& s, std::span<const float> x, std::span<const double> deq);
/// Fill the counts and scale range of `s` from the quantized tensor (its codes are not read).
void finish_error_stats(ErrorStats& s, const QuantizedTensor& q);

}  // namespace minifloat
