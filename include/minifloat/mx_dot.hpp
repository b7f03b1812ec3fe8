// SPDX-License-Identifier: Apache-2.0
// mx_dot.hpp: the OCP MX dot product and GEMM of two quantized tensors (stated order D14).
#pragma once
#include <cstddef>
#include <vector>

#include "quant.hpp"

namespace minifloat {

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
