// SPDX-License-Identifier: Apache-2.0
// train/tensor.cpp: reference GEMM (L0) of the training simulator.
#include "minifloat/train/tensor.hpp"

#include <stdexcept>
#include <string>

namespace minifloat::train {

Matrix transpose(const Matrix& a) {
  Matrix t(a.cols, a.rows);
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c) t(c, r) = a(r, c);
  return t;
}

Matrix matmul_nt(const Matrix& a, const Matrix& b) {
  if (a.cols != b.cols)
    throw std::invalid_argument("matmul_nt: contraction sizes differ (" + std::to_string(a.cols) + " vs " +
                                std::to_string(b.cols) + ")");
  Matrix c(a.rows, b.rows);
  const std::size_t k = static_cast<std::size_t>(a.cols);
  for (int i = 0; i < a.rows; ++i) {
    const float* ai = &a.v[static_cast<std::size_t>(i) * k];
    for (int j = 0; j < b.rows; ++j) {
      const float* bj = &b.v[static_cast<std::size_t>(j) * k];
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // fixed association: deterministic everywhere
      std::size_t t = 0;
      for (; t + 4 <= k; t += 4) {
        s0 += static_cast<double>(ai[t]) * bj[t];
        s1 += static_cast<double>(ai[t + 1]) * bj[t + 1];
        s2 += static_cast<double>(ai[t + 2]) * bj[t + 2];
        s3 += static_cast<double>(ai[t + 3]) * bj[t + 3];
      }
      for (; t < k; ++t) s0 += static_cast<double>(ai[t]) * bj[t];
      c(i, j) = static_cast<float>((s0 + s1) + (s2 + s3));
    }
  }
  return c;
}

}  // namespace minifloat::train
