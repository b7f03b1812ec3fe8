// SPDX-License-Identifier: Apache-2.0
// train/layers.hpp (internal): parameters, the quantized Linear layer, optimizers and the
// counter-based initialisation RNG shared by the simulator's models.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/train/quantizer.hpp"
#include "minifloat/train/recipe.hpp"
#include "minifloat/train/tensor.hpp"

namespace minifloat::train::detail {

/// Deterministic uniform/normal numbers from Philox (seed, stream, index): no hidden state.
struct Rng {
  std::uint64_t seed;
  std::uint32_t stream;
  std::uint64_t index = 0;
  double uniform() {  // (0, 1)
    const std::uint32_t w = curand_word(seed, stream, index++);
    return (static_cast<double>(w) + 0.5) * 0x1p-32;
  }
  double normal() {  // Box-Muller
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(uniform() * n); }
};

/// Per-step context: the recipe's quantizer, the step and the statistics per operand class.
struct QCtx {
  Quantizer* q = nullptr;
  std::uint32_t step = 0;
  std::uint64_t seed = 0;
  QuantStats stats[3];  // x, w, g
  bool collect = false;
  const DotModel* gemm = nullptr;  ///< accumulation model of the quantized GEMMs; null: L0 (FP64 accumulation)
};

/// C = A·Bᵀ of the (dequantized) operands under ctx.gemm: L0 when null, else every dot product
/// through the named accumulation model of accumulate.hpp (exact, fp32, pairwise, kahan,
/// blocked<N>, a tensor-core preset, …) on the FP32 operand values.
Matrix gemm_nt(const Matrix& a, const Matrix& b, const QCtx& ctx);

/// A trainable tensor with its gradient and optimizer moments.
struct Param {
  Matrix w, g, m1, m2;
  std::uint32_t id = 0;
  bool decay = true;  // AdamW weight decay applies
  void init(int r, int c, std::uint32_t pid) {
    w = Matrix(r, c);
    g = Matrix(r, c);
    m1 = Matrix(r, c);
    m2 = Matrix(r, c);
    id = pid;
  }
};

/// Y = X·Wᵀ + b with the three GEMMs quantized by the recipe (operand classes X, W, G).
struct Linear {
  Param w, b;  // w: out × in, b: 1 × out
  Matrix x;    // saved input
  std::uint32_t id = 0;
  void init(int in, int out, std::uint32_t layer_id, Rng& rng, double std_dev);
  Matrix forward(const Matrix& input, QCtx& ctx);
  /// Accumulates dW, db; returns dX when need_dx.
  Matrix backward(const Matrix& dy, QCtx& ctx, bool need_dx);
};

/// SGD with momentum: v = μ·v + g; w −= lr·v.
void sgd_momentum(Param& p, double lr, double mu);
/// AdamW (Loshchilov & Hutter): β1 0.9, β2 0.95, ε 1e-8, decoupled weight decay.
void adamw(Param& p, double lr, int t, double weight_decay);
/// Store master weights per the recipe (FP32, or BF16 with RNE / stochastic rounding).
void store_weights(Param& p, WeightStorage s, std::uint64_t seed, std::uint32_t step);
/// GaussWS fprop weights: bf16(w + R·max_block|w|·2^(1−b)) over 32×32 blocks, fresh R every step.
Matrix gaussws_weights(const Matrix& w, int bits, std::uint64_t seed, std::uint32_t stream, std::uint32_t step);

}  // namespace minifloat::train::detail
