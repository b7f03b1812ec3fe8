// SPDX-License-Identifier: Apache-2.0
// train/tensor.hpp: the row-major FP32 matrix of the training simulator and its plain GEMMs.
// Deliberately simple and single-threaded (a run is deterministic; runs go in parallel).
#pragma once
#include <cstddef>
#include <vector>

namespace minifloat::train {

/// Row-major rows × cols FP32 matrix.
struct Matrix {
  int rows = 0, cols = 0;
  std::vector<float> v;
  Matrix() = default;
  Matrix(int r, int c, float fill = 0.0f)
      : rows(r), cols(c), v(static_cast<std::size_t>(r) * static_cast<std::size_t>(c), fill) {}
  float& operator()(int r, int c) {
    return v[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
  }
  float operator()(int r, int c) const {
    return v[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
  }
  std::size_t size() const { return v.size(); }
};

Matrix transpose(const Matrix& a);

/// C = A · Bᵀ (A: m×k, B: n×k → m×n): contraction over the last axis of both operands.
/// FP32 products accumulated in FP64 in index order, rounded once to FP32 (GEMM emulation L0).
Matrix matmul_nt(const Matrix& a, const Matrix& b);

}  // namespace minifloat::train
