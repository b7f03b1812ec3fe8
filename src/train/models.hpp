// SPDX-License-Identifier: Apache-2.0
// train/models.hpp (internal): the simulator's models behind one small interface.
#include <filesystem>
#include <memory>
#include <vector>

#include "layers.hpp"

#pragma once

namespace minifloat::train::detail {

struct EvalResult {
  double loss = 0;
  double accuracy = -1;  // −1: not a classifier
};

class Model {
 public:
  virtual ~Model() = default;
  virtual int default_steps() const = 0;
  virtual double default_lr() const = 0;
  /// Forward and backward on the batch of `step` (deterministic from the seed): returns the
  /// batch's mean loss and accumulates the gradients into every Param::g.
  virtual double forward_backward(int step, QCtx& ctx) = 0;
  /// The model's optimizer step at base learning rate `lr` (schedule included); zeroes the gradients.
  virtual void update(int step, int total_steps, double lr) = 0;
  virtual EvalResult evaluate(QCtx& ctx) = 0;
  virtual std::vector<Param*> params() = 0;
};

std::unique_ptr<Model> make_mlp_digits(std::uint64_t seed, const std::filesystem::path& data);
std::unique_ptr<Model> make_mlp_fashion(std::uint64_t seed, const std::filesystem::path& data);
std::unique_ptr<Model> make_char_lm(std::uint64_t seed, const std::filesystem::path& data);
std::unique_ptr<Model> make_char_lm_large(std::uint64_t seed, const std::filesystem::path& data);
/// The same character transformer at a gradient-check size (d = 16, 2 heads, 2 layers, batch 2, context 64):
/// every layer and code path of char-lm, at about 1/30 of the cost of a forward_backward of M3a.
std::unique_ptr<Model> make_char_lm_for_grad_check(std::uint64_t seed, const std::filesystem::path& data);

/// Mean softmax cross-entropy of logits (rows) against labels; writes d(loss)/d(logits) into
/// dlogits when non-null. Returns NaN when a logit is not finite.
double softmax_xent(const Matrix& logits, const std::vector<int>& labels, Matrix* dlogits, int* correct);

}  // namespace minifloat::train::detail
