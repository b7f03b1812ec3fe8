// SPDX-License-Identifier: Apache-2.0
// train/mlp.cpp: ReLU MLPs with He init (training-sim.md §4.2), SGD momentum 0.9, batch 128:
// M1 `mlp-digits` 64→128→10 on the scikit-learn digits, lr 0.1, 60 epochs = 660 steps;
// M2 `mlp-fashion` 784→256→256→10 on Fashion-MNIST, lr 0.05, 3 epochs = 1404 steps (opt-in).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "data.hpp"
#include "models.hpp"

namespace minifloat::train::detail {

double softmax_xent(const Matrix& logits, const std::vector<int>& labels, Matrix* dlogits, int* correct) {
  double loss = 0;
  int ok = 0;
  if (dlogits) *dlogits = Matrix(logits.rows, logits.cols);
  for (int i = 0; i < logits.rows; ++i) {
    double mx = -INFINITY;
    int arg = 0;
    for (int j = 0; j < logits.cols; ++j) {
      if (!std::isfinite(logits(i, j))) return NAN;
      if (logits(i, j) > mx) {
        mx = logits(i, j);
        arg = j;
      }
    }
    double z = 0;
    for (int j = 0; j < logits.cols; ++j) z += std::exp(logits(i, j) - mx);
    const int y = labels[static_cast<std::size_t>(i)];
    loss += -(logits(i, y) - mx - std::log(z));
    ok += arg == y;
    if (dlogits)
      for (int j = 0; j < logits.cols; ++j)
        (*dlogits)(i, j) = static_cast<float>((std::exp(logits(i, j) - mx) / z - (j == y ? 1.0 : 0.0)) / logits.rows);
  }
  if (correct) *correct = ok;
  return loss / logits.rows;
}

namespace {

class Mlp final : public Model {
 public:
  Mlp(std::uint64_t seed, const std::filesystem::path& data, bool fashion) : seed_(seed), in_(fashion ? 784 : 64) {
    if (fashion) {
      Images d = load_fashion_mnist(data.empty() ? std::filesystem::path(kFashionDir) : data);
      train_x_ = std::move(d.train_x);
      train_y_ = std::move(d.train_y);
      test_x_ = std::move(d.test_x);
      test_y_ = std::move(d.test_y);
      steps_ = 3 * (static_cast<int>(train_y_.size()) / kBatch);
      lr_ = 0.05;
    } else {
      const Digits d = load_digits(data.empty() ? std::filesystem::path(kDigitsPath) : data);
      // Fixed shuffle (independent of the run seed): 1437 train / 360 test.
      std::vector<int> perm(static_cast<std::size_t>(d.n));
      std::iota(perm.begin(), perm.end(), 0);
      Rng split{0x5eed, 1};
      for (int i = d.n - 1; i > 0; --i)
        std::swap(perm[static_cast<std::size_t>(i)], perm[split.below(static_cast<std::uint32_t>(i + 1))]);
      const int n_test = 360;
      for (int k = 0; k < d.n; ++k) {
        const int i = perm[static_cast<std::size_t>(k)];
        auto& xs = k < d.n - n_test ? train_x_ : test_x_;
        auto& ys = k < d.n - n_test ? train_y_ : test_y_;
        xs.insert(xs.end(), d.x.begin() + i * 64, d.x.begin() + (i + 1) * 64);
        ys.push_back(d.y[static_cast<std::size_t>(i)]);
      }
    }
    Rng init{seed, 2};
    const std::vector<int> widths = fashion ? std::vector<int>{784, 256, 256, 10} : std::vector<int>{64, 128, 10};
    layers_.resize(widths.size() - 1);
    for (std::size_t l = 0; l + 1 < widths.size(); ++l)
      layers_[l].init(widths[l], widths[l + 1], static_cast<std::uint32_t>(l + 1), init, std::sqrt(2.0 / widths[l]));
    order_.resize(train_y_.size());
  }
  int default_steps() const override { return steps_; }
  double default_lr() const override { return lr_; }

  double forward_backward(int step, QCtx& ctx) override {
    const int n = static_cast<int>(train_y_.size()), per_epoch = n / kBatch;
    const int epoch = step / per_epoch, b = step % per_epoch;
    if (b == 0 || epoch != epoch_) {  // reshuffle per epoch from the run seed
      std::iota(order_.begin(), order_.end(), 0);
      Rng r{seed_, 3, static_cast<std::uint64_t>(epoch) << 32};
      for (int i = n - 1; i > 0; --i)
        std::swap(order_[static_cast<std::size_t>(i)], order_[r.below(static_cast<std::uint32_t>(i + 1))]);
      epoch_ = epoch;
    }
    Matrix x(kBatch, in_);
    std::vector<int> y(kBatch);
    for (int i = 0; i < kBatch; ++i) {
      const int s = order_[static_cast<std::size_t>(b * kBatch + i)];
      std::copy_n(train_x_.begin() + static_cast<std::ptrdiff_t>(s) * in_, in_, x.v.begin() + i * in_);
      y[static_cast<std::size_t>(i)] = train_y_[static_cast<std::size_t>(s)];
    }
    Matrix dlogits;
    return forward_backward(x, y, ctx, &dlogits);
  }
  void update(int, int, double lr) override {
    for (Param* p : params()) sgd_momentum(*p, lr, 0.9);
  }

  EvalResult evaluate(QCtx& ctx) override {
    Matrix x(static_cast<int>(test_y_.size()), in_);
    x.v = test_x_;
    const Matrix logits = forward(x, ctx);
    int correct = 0;
    EvalResult r;
    r.loss = softmax_xent(logits, test_y_, nullptr, &correct);
    r.accuracy = static_cast<double>(correct) / static_cast<double>(test_y_.size());
    return r;
  }
  std::vector<Param*> params() override {
    std::vector<Param*> p;
    for (Linear& l : layers_) p.insert(p.end(), {&l.w, &l.b});
    return p;
  }

 private:
  static constexpr int kBatch = 128;
  Matrix forward(const Matrix& x, QCtx& ctx) {
    relu_out_.clear();
    Matrix h = x;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      h = layers_[l].forward(h, ctx);
      if (l + 1 < layers_.size()) {
        for (auto& v : h.v) v = std::max(v, 0.0f);
        relu_out_.push_back(h);
      }
    }
    return h;
  }
  double forward_backward(const Matrix& x, const std::vector<int>& y, QCtx& ctx, Matrix* dlogits) {
    const Matrix logits = forward(x, ctx);
    const double loss = softmax_xent(logits, y, dlogits, nullptr);
    if (!std::isfinite(loss)) return loss;
    Matrix d = *dlogits;
    for (std::size_t l = layers_.size(); l-- > 0;) {
      d = layers_[l].backward(d, ctx, l > 0);
      if (l > 0) {
        const Matrix& h = relu_out_[l - 1];
        for (std::size_t i = 0; i < d.v.size(); ++i)
          if (h.v[i] <= 0) d.v[i] = 0;
      }
    }
    return loss;
  }
  std::uint64_t seed_;
  std::vector<float> train_x_, test_x_;
  std::vector<int> train_y_, test_y_;
  std::vector<int> order_;
  int epoch_ = -1;
  int in_;
  int steps_ = 660;
  double lr_ = 0.1;
  std::vector<Linear> layers_;
  std::vector<Matrix> relu_out_;
};

}  // namespace

std::unique_ptr<Model> make_mlp_digits(std::uint64_t seed, const std::filesystem::path& data) {
  return std::make_unique<Mlp>(seed, data, false);
}
std::unique_ptr<Model> make_mlp_fashion(std::uint64_t seed, const std::filesystem::path& data) {
  return std::make_unique<Mlp>(seed, data, true);
}

}  // namespace minifloat::train::detail
