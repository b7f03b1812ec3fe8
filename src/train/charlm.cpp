// SPDX-License-Identifier: Apache-2.0
// train/charlm.cpp: decoder-only character transformers (training-sim.md §4.2): M3a `char-lm`
// (2 layers, 4 heads, d = 64, batch 16, 300 steps) and M3b `char-lm-large` (4 layers, 4 heads,
// d = 128, batch 12, 2000 steps); context 64, pre-LayerNorm, GELU MLP (4d), learned positions,
// untied LM head; Debian `fortunes` text with a 90/10 split; AdamW (lr 1e-3, cosine to 10 %,
// 10 warm-up steps). The four Linear layers of each block run quantized GEMMs;
// embeddings, LayerNorm, attention (QKᵀ, PV), softmax and the LM head stay FP32.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "data.hpp"
#include "models.hpp"

namespace minifloat::train::detail {
namespace {

constexpr int kCtx = 64;

/// Size of a character transformer: M3a (the default) and M3b (training-sim.md §4.2).
struct LmSize {
  int d, heads, layers, batch, steps;
};

struct LayerNorm {
  Param g, b;
  Matrix xhat;
  std::vector<float> rstd;
  void init(int d, std::uint32_t id) {
    g.init(1, d, id);
    b.init(1, d, id + 1);
    g.decay = b.decay = false;
    std::fill(g.w.v.begin(), g.w.v.end(), 1.0f);
  }
  Matrix forward(const Matrix& x) {
    Matrix y(x.rows, x.cols);
    xhat = Matrix(x.rows, x.cols);
    rstd.assign(static_cast<std::size_t>(x.rows), 0);
    for (int i = 0; i < x.rows; ++i) {
      double mu = 0, var = 0;
      for (int j = 0; j < x.cols; ++j) mu += x(i, j);
      mu /= x.cols;
      for (int j = 0; j < x.cols; ++j) var += (x(i, j) - mu) * (x(i, j) - mu);
      var /= x.cols;
      const double rs = 1.0 / std::sqrt(var + 1e-5);
      rstd[static_cast<std::size_t>(i)] = static_cast<float>(rs);
      for (int j = 0; j < x.cols; ++j) {
        xhat(i, j) = static_cast<float>((x(i, j) - mu) * rs);
        y(i, j) = xhat(i, j) * g.w.v[static_cast<std::size_t>(j)] + b.w.v[static_cast<std::size_t>(j)];
      }
    }
    return y;
  }
  Matrix backward(const Matrix& dy) {
    Matrix dx(dy.rows, dy.cols);
    for (int i = 0; i < dy.rows; ++i) {
      double s1 = 0, s2 = 0;
      for (int j = 0; j < dy.cols; ++j) {
        const double dxh = static_cast<double>(dy(i, j)) * g.w.v[static_cast<std::size_t>(j)];
        g.g.v[static_cast<std::size_t>(j)] += dy(i, j) * xhat(i, j);
        b.g.v[static_cast<std::size_t>(j)] += dy(i, j);
        s1 += dxh;
        s2 += dxh * xhat(i, j);
      }
      for (int j = 0; j < dy.cols; ++j) {
        const double dxh = static_cast<double>(dy(i, j)) * g.w.v[static_cast<std::size_t>(j)];
        dx(i, j) =
            static_cast<float>(rstd[static_cast<std::size_t>(i)] * (dxh - s1 / dy.cols - xhat(i, j) * s2 / dy.cols));
      }
    }
    return dx;
  }
};

double gelu(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
double gelu_grad(double x) {
  const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  const double t = std::tanh(u);
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.7978845608028654 * (1 + 3 * 0.044715 * x * x);
}

struct Block {
  LayerNorm ln1, ln2;
  Linear qkv, proj, fc1, fc2;
  // caches
  Matrix qkv_out, att;  // att: probabilities, (B·heads·T) × T
  Matrix attn_o, fc1_out, h_mid;
};

class CharLm final : public Model {
 public:
  CharLm(std::uint64_t seed, const std::filesystem::path& data, LmSize size)
      : seed_(seed),
        kD(size.d),
        kHeads(size.heads),
        kHd(size.d / size.heads),
        kLayers(size.layers),
        kBatch(size.batch),
        kHidden(4 * size.d),
        steps_(size.steps),
        blocks_(static_cast<std::size_t>(size.layers)) {
    const std::string text = load_fortunes(data.empty() ? std::filesystem::path(kFortunesDir) : data);
    std::array<int, 256> seen{};
    for (unsigned char c : text) seen[c] = 1;
    std::array<int, 256> map{};
    for (int c = 0; c < 256; ++c)
      if (seen[static_cast<std::size_t>(c)]) map[static_cast<std::size_t>(c)] = vocab_++;
    tokens_.reserve(text.size());
    for (unsigned char c : text) tokens_.push_back(map[c]);
    split_ = tokens_.size() * 9 / 10;
    Rng init{seed, 2};
    auto normal = [&](Param& p, double sd) {
      for (auto& v : p.w.v) v = static_cast<float>(init.normal() * sd);
    };
    tok_.init(vocab_, kD, 1000);
    pos_.init(kCtx, kD, 1001);
    head_.init(vocab_, kD, 1002);
    normal(tok_, 0.02);
    normal(pos_, 0.02);
    normal(head_, 0.02);
    for (int l = 0; l < kLayers; ++l) {
      Block& b = blocks_[static_cast<std::size_t>(l)];
      const std::uint32_t base = static_cast<std::uint32_t>(10 + l * 10);
      b.ln1.init(kD, 2000 + base);
      b.ln2.init(kD, 2002 + base);
      b.qkv.init(kD, 3 * kD, base + 1, init, 0.02);
      b.proj.init(kD, kD, base + 2, init, 0.02 / std::sqrt(2.0 * kLayers));
      b.fc1.init(kD, kHidden, base + 3, init, 0.02);
      b.fc2.init(kHidden, kD, base + 4, init, 0.02 / std::sqrt(2.0 * kLayers));
    }
    lnf_.init(kD, 3000);
  }
  int default_steps() const override { return steps_; }
  double default_lr() const override { return 1e-3; }

  double forward_backward(int step, QCtx& ctx) override {
    std::vector<int> x, y;
    Rng r{seed_, 3, static_cast<std::uint64_t>(step) << 32};
    sample(r, 0, split_, x, y);
    return forward(x, y, ctx, true);
  }
  void update(int step, int total, double lr) override {
    // 10 warm-up steps, then cosine decay to 10 % of lr
    const double warm = 10;
    const double f = step < warm ? (step + 1) / warm
                                 : 0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * (step - warm) / std::max(1.0, total - warm)));
    for (Param* p : params()) adamw(*p, lr * f, step + 1, 0.01);
  }

  EvalResult evaluate(QCtx& ctx) override {
    double total = 0;
    const int batches = 4;
    for (int k = 0; k < batches; ++k) {
      std::vector<int> x, y;
      Rng r{0x7a11d, 9, static_cast<std::uint64_t>(k) << 32};  // fixed validation batches
      sample(r, split_, tokens_.size(), x, y);
      total += forward(x, y, ctx, false);
    }
    return EvalResult{total / batches, -1};
  }

  std::vector<Param*> params() override {
    std::vector<Param*> p{&tok_, &pos_, &head_, &lnf_.g, &lnf_.b};
    for (Block& b : blocks_)
      for (Param* q : {&b.ln1.g, &b.ln1.b, &b.ln2.g, &b.ln2.b, &b.qkv.w, &b.qkv.b, &b.proj.w, &b.proj.b, &b.fc1.w,
                       &b.fc1.b, &b.fc2.w, &b.fc2.b})
        p.push_back(q);
    return p;
  }

 private:
  void sample(Rng& r, std::size_t lo, std::size_t hi, std::vector<int>& x, std::vector<int>& y) const {
    x.resize(kBatch * kCtx);
    y.resize(kBatch * kCtx);
    for (int b = 0; b < kBatch; ++b) {
      const std::size_t start = lo + static_cast<std::size_t>(r.uniform() * static_cast<double>(hi - lo - kCtx - 1));
      for (int t = 0; t < kCtx; ++t) {
        x[static_cast<std::size_t>(b * kCtx + t)] = tokens_[start + static_cast<std::size_t>(t)];
        y[static_cast<std::size_t>(b * kCtx + t)] = tokens_[start + static_cast<std::size_t>(t) + 1];
      }
    }
  }

  // Attention forward for one block: qkv (N × 3d) → o (N × d); caches probabilities.
  Matrix attention(Block& blk) {
    const Matrix& qkv = blk.qkv_out;
    Matrix o(kBatch * kCtx, kD);
    blk.att = Matrix(kBatch * kHeads * kCtx, kCtx);
    const double sc = 1.0 / std::sqrt(static_cast<double>(kHd));
    for (int b = 0; b < kBatch; ++b)
      for (int h = 0; h < kHeads; ++h)
        for (int i = 0; i < kCtx; ++i) {
          const int ri = b * kCtx + i, arow = (b * kHeads + h) * kCtx + i;
          double mx = -INFINITY;
          std::array<double, kCtx> s{};
          for (int j = 0; j <= i; ++j) {
            double d = 0;
            for (int e = 0; e < kHd; ++e)
              d += static_cast<double>(qkv(ri, h * kHd + e)) * qkv(b * kCtx + j, kD + h * kHd + e);
            s[static_cast<std::size_t>(j)] = d * sc;
            mx = std::max(mx, s[static_cast<std::size_t>(j)]);
          }
          double z = 0;
          for (int j = 0; j <= i; ++j)
            z += (s[static_cast<std::size_t>(j)] = std::exp(s[static_cast<std::size_t>(j)] - mx));
          for (int j = 0; j <= i; ++j) blk.att(arow, j) = static_cast<float>(s[static_cast<std::size_t>(j)] / z);
          for (int e = 0; e < kHd; ++e) {
            double acc = 0;
            for (int j = 0; j <= i; ++j)
              acc += static_cast<double>(blk.att(arow, j)) * qkv(b * kCtx + j, 2 * kD + h * kHd + e);
            o(ri, h * kHd + e) = static_cast<float>(acc);
          }
        }
    return o;
  }

  Matrix attention_backward(Block& blk, const Matrix& d_o) {
    const Matrix& qkv = blk.qkv_out;
    Matrix dqkv(kBatch * kCtx, 3 * kD);
    const double sc = 1.0 / std::sqrt(static_cast<double>(kHd));
    for (int b = 0; b < kBatch; ++b)
      for (int h = 0; h < kHeads; ++h)
        for (int i = 0; i < kCtx; ++i) {
          const int ri = b * kCtx + i, arow = (b * kHeads + h) * kCtx + i;
          std::array<double, kCtx> dp{};
          double dot = 0;
          for (int j = 0; j <= i; ++j) {
            double d = 0;
            for (int e = 0; e < kHd; ++e)
              d += static_cast<double>(d_o(ri, h * kHd + e)) * qkv(b * kCtx + j, 2 * kD + h * kHd + e);
            dp[static_cast<std::size_t>(j)] = d;
            dot += d * blk.att(arow, j);
            for (int e = 0; e < kHd; ++e)  // dV
              dqkv(b * kCtx + j, 2 * kD + h * kHd + e) += blk.att(arow, j) * d_o(ri, h * kHd + e);
          }
          for (int j = 0; j <= i; ++j) {
            const double ds = blk.att(arow, j) * (dp[static_cast<std::size_t>(j)] - dot) * sc;
            for (int e = 0; e < kHd; ++e) {
              dqkv(ri, h * kHd + e) += static_cast<float>(ds * qkv(b * kCtx + j, kD + h * kHd + e));
              dqkv(b * kCtx + j, kD + h * kHd + e) += static_cast<float>(ds * qkv(ri, h * kHd + e));
            }
          }
        }
    return dqkv;
  }

  double forward(const std::vector<int>& x, const std::vector<int>& y, QCtx& ctx, bool train) {
    const int n = kBatch * kCtx;
    Matrix h(n, kD);
    for (int i = 0; i < n; ++i)
      for (int e = 0; e < kD; ++e) h(i, e) = tok_.w(x[static_cast<std::size_t>(i)], e) + pos_.w(i % kCtx, e);
    for (Block& blk : blocks_) {
      const Matrix a = blk.ln1.forward(h);
      blk.qkv_out = blk.qkv.forward(a, ctx);
      blk.attn_o = attention(blk);
      const Matrix p = blk.proj.forward(blk.attn_o, ctx);
      for (std::size_t i = 0; i < h.v.size(); ++i) h.v[i] += p.v[i];
      const Matrix m = blk.ln2.forward(h);
      blk.fc1_out = blk.fc1.forward(m, ctx);
      Matrix g(n, kHidden);
      for (std::size_t i = 0; i < g.v.size(); ++i) g.v[i] = static_cast<float>(gelu(blk.fc1_out.v[i]));
      const Matrix f = blk.fc2.forward(g, ctx);
      for (std::size_t i = 0; i < h.v.size(); ++i) h.v[i] += f.v[i];
    }
    const Matrix fin = lnf_.forward(h);
    const Matrix logits = matmul_nt(fin, head_.w);
    Matrix dlogits;
    const double loss = softmax_xent(logits, y, train ? &dlogits : nullptr, nullptr);
    if (!train || !std::isfinite(loss)) return loss;
    // backward
    const Matrix dfin = [&] {  // dlogits · head  (n × d), and dhead = dlogitsᵀ · fin
      const Matrix dh = matmul_nt(transpose(dlogits), transpose(fin));
      for (std::size_t i = 0; i < dh.v.size(); ++i) head_.g.v[i] += dh.v[i];
      return matmul_nt(dlogits, transpose(head_.w));
    }();
    Matrix dh = lnf_.backward(dfin);
    for (int l = kLayers - 1; l >= 0; --l) {
      Block& blk = blocks_[static_cast<std::size_t>(l)];
      Matrix dg = blk.fc2.backward(dh, ctx, true);
      for (std::size_t i = 0; i < dg.v.size(); ++i) dg.v[i] = static_cast<float>(dg.v[i] * gelu_grad(blk.fc1_out.v[i]));
      const Matrix dm = blk.fc1.backward(dg, ctx, true);
      const Matrix dln2 = blk.ln2.backward(dm);
      for (std::size_t i = 0; i < dh.v.size(); ++i) dh.v[i] += dln2.v[i];
      const Matrix d_o = blk.proj.backward(dh, ctx, true);
      const Matrix dqkv = attention_backward(blk, d_o);
      const Matrix da = blk.qkv.backward(dqkv, ctx, true);
      const Matrix dln1 = blk.ln1.backward(da);
      for (std::size_t i = 0; i < dh.v.size(); ++i) dh.v[i] += dln1.v[i];
    }
    for (int i = 0; i < n; ++i)
      for (int e = 0; e < kD; ++e) {
        tok_.g(x[static_cast<std::size_t>(i)], e) += dh(i, e);
        pos_.g(i % kCtx, e) += dh(i, e);
      }
    return loss;
  }

  std::uint64_t seed_;
  int kD, kHeads, kHd, kLayers, kBatch, kHidden, steps_;
  std::vector<int> tokens_;
  std::size_t split_ = 0;
  int vocab_ = 0;
  Param tok_, pos_, head_;
  std::vector<Block> blocks_;
  LayerNorm lnf_;
};

}  // namespace

std::unique_ptr<Model> make_char_lm(std::uint64_t seed, const std::filesystem::path& data) {
  return std::make_unique<CharLm>(seed, data, LmSize{64, 4, 2, 16, 300});
}
std::unique_ptr<Model> make_char_lm_large(std::uint64_t seed, const std::filesystem::path& data) {
  return std::make_unique<CharLm>(seed, data, LmSize{128, 4, 4, 12, 2000});
}
std::unique_ptr<Model> make_char_lm_for_grad_check(std::uint64_t seed, const std::filesystem::path& data) {
  return std::make_unique<CharLm>(seed, data, LmSize{16, 2, 2, 2, 1});
}

}  // namespace minifloat::train::detail
