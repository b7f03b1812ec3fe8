// SPDX-License-Identifier: Apache-2.0
// train/layers.cpp: the quantized Linear layer and the optimizers of the training simulator.
#include "layers.hpp"

#include "minifloat/convert_span.hpp"
#include "minifloat/error.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/gaussws.hpp"

namespace minifloat::train::detail {

void Linear::init(int in, int out, std::uint32_t layer_id, Rng& rng, double std_dev) {
  id = layer_id;
  w.init(out, in, layer_id * 2);
  b.init(1, out, layer_id * 2 + 1);
  b.decay = false;
  for (auto& v : w.w.v) v = static_cast<float>(rng.normal() * std_dev);
}

namespace {
std::uint32_t tid(std::uint32_t layer, Operand op, Gemm g) { return sr_stream(layer, op, g); }  // recipe.hpp
QuantStats* st(QCtx& c, Operand op) { return c.collect ? &c.stats[static_cast<int>(op)] : nullptr; }
}  // namespace

Matrix gemm_nt(const Matrix& a, const Matrix& b, const QCtx& ctx) {
  if (!ctx.gemm) return matmul_nt(a, b);
  const auto m = static_cast<std::size_t>(a.rows), n = static_cast<std::size_t>(b.rows),
             k = static_cast<std::size_t>(a.cols);
  std::vector<std::uint64_t> A(m * k), B(k * n);
  for (std::size_t i = 0; i < m * k; ++i) A[i] = minifloat::detail::bit_cast<std::uint32_t>(a.v[i]);
  for (std::size_t j = 0; j < n; ++j)  // B is k×n row-major: column j is row j of b
    for (std::size_t t = 0; t < k; ++t) B[t * n + j] = minifloat::detail::bit_cast<std::uint32_t>(b.v[j * k + t]);
  // the tensor core's element format must reach the model (its exponent rules: an e4m3fn
  // subnormal counts emin −6, not its FP32 exponent): operand_codes re-expresses the values
  const OperandCodes qa = operand_codes(*ctx.gemm, A), qb = operand_codes(*ctx.gemm, B);
  if (ctx.gemm->kind == AccumKind::tfdpa && ctx.gemm->tensor_core.scale.application != BlockScaleApplication::none &&
      (qa.format == formats::f32 || qb.format == formats::f32))
    throw Error(
        "--gemm " + ctx.gemm->name + ": this GEMM's operands are not all " +
        format_name(operand_formats(*ctx.gemm)[0]) +
        " values (the recipe's dequantized values); a block-scaled preset needs the element codes and their "
        "scales, which the simulator's GEMM does not carry: use it through `minifloat dot --scale-a/--scale-b`");
  const std::vector<std::uint64_t> d = gemm(*ctx.gemm, m, n, k, qa.format, qa.codes, qb.format, qb.codes);
  const Format dest = result_format(*ctx.gemm);
  Matrix c(a.rows, b.rows);
  for (std::size_t i = 0; i < d.size(); ++i) c.v[i] = to_float(dest, d[i]);
  return c;
}

Matrix Linear::forward(const Matrix& input, QCtx& ctx) {
  x = input;
  Matrix wf = w.w;
  const Recipe& r = ctx.q->recipe();
  if (r.gaussws) wf = gaussws_weights(w.w, r.gaussws_bits, ctx.seed, tid(id, Operand::w, Gemm::fprop), ctx.step);
  const Matrix xq =
      ctx.q->apply(input, Operand::x, Gemm::fprop, tid(id, Operand::x, Gemm::fprop), ctx.step, st(ctx, Operand::x));
  const Matrix wq =
      ctx.q->apply(wf, Operand::w, Gemm::fprop, tid(id, Operand::w, Gemm::fprop), ctx.step, st(ctx, Operand::w));
  Matrix y = gemm_nt(xq, wq, ctx);
  for (int i = 0; i < y.rows; ++i)
    for (int j = 0; j < y.cols; ++j) y(i, j) += b.w.v[static_cast<std::size_t>(j)];
  return y;
}

Matrix Linear::backward(const Matrix& dy, QCtx& ctx, bool need_dx) {
  // wgrad: dW = Gᵀ·X, contraction over the batch: quantize Gᵀ and Xᵀ along their rows.
  const Matrix gt = ctx.q->apply(transpose(dy), Operand::g, Gemm::wgrad, tid(id, Operand::g, Gemm::wgrad), ctx.step,
                                 st(ctx, Operand::g));
  const Matrix xt =
      ctx.q->apply(transpose(x), Operand::x, Gemm::wgrad, tid(id, Operand::x, Gemm::wgrad), ctx.step, nullptr);
  const Matrix dw = gemm_nt(gt, xt, ctx);
  for (std::size_t i = 0; i < dw.v.size(); ++i) w.g.v[i] += dw.v[i];
  for (int i = 0; i < dy.rows; ++i)
    for (int j = 0; j < dy.cols; ++j) b.g.v[static_cast<std::size_t>(j)] += dy(i, j);
  if (!need_dx) return {};
  // dgrad: dX = G·W, contraction over the output features: G along rows, Wᵀ along rows.
  const Matrix gq = ctx.q->apply(dy, Operand::g, Gemm::dgrad, tid(id, Operand::g, Gemm::dgrad), ctx.step, nullptr);
  const Matrix wt =
      ctx.q->apply(transpose(w.w), Operand::w, Gemm::dgrad, tid(id, Operand::w, Gemm::dgrad), ctx.step, nullptr);
  return gemm_nt(gq, wt, ctx);
}

void sgd_momentum(Param& p, double lr, double mu) {
  for (std::size_t i = 0; i < p.w.v.size(); ++i) {
    p.m1.v[i] = static_cast<float>(mu * p.m1.v[i] + p.g.v[i]);
    p.w.v[i] = static_cast<float>(p.w.v[i] - lr * p.m1.v[i]);
    p.g.v[i] = 0;
  }
}

void adamw(Param& p, double lr, int t, double weight_decay) {
  const double b1 = 0.9, b2 = 0.95, eps = 1e-8;
  const double c1 = 1 - std::pow(b1, t), c2 = 1 - std::pow(b2, t);
  for (std::size_t i = 0; i < p.w.v.size(); ++i) {
    const double g = p.g.v[i];
    p.m1.v[i] = static_cast<float>(b1 * p.m1.v[i] + (1 - b1) * g);
    p.m2.v[i] = static_cast<float>(b2 * p.m2.v[i] + (1 - b2) * g * g);
    const double upd = (p.m1.v[i] / c1) / (std::sqrt(p.m2.v[i] / c2) + eps);
    double w = p.w.v[i];
    if (p.decay) w -= lr * weight_decay * w;
    p.w.v[i] = static_cast<float>(w - lr * upd);
    p.g.v[i] = 0;
  }
}

void store_weights(Param& p, WeightStorage s, std::uint64_t seed, std::uint32_t step) {
  if (s == WeightStorage::fp32) return;
  const RoundingSpec spec = s == WeightStorage::bf16_rne ? RoundingSpec{Rounding::rne, Overflow::satfinite}
                                                         : RoundingSpec{Rounding::sr, Overflow::satfinite};
  for (std::size_t i = 0; i < p.w.v.size(); ++i) {
    const std::uint64_t rb =
        s == WeightStorage::bf16_sr ? sr_bits(seed, 0x80000000u | p.id, step, i, SrVariant::exact) : 0;
    p.w.v[i] = to_float(formats::bf16, from_float(p.w.v[i], formats::bf16, spec, profiles::ocp, rb).code);
  }
}

Matrix gaussws_weights(const Matrix& w, int bits, std::uint64_t seed, std::uint32_t stream, std::uint32_t step) {
  // GaussWS (papers.md §3) through the library's op: exact R = round(N(0,1)/2) from the
  // counter-based stream, ŵ = w + R·max_block|w|·2^(1−b) over 32×32 blocks, one rounding to BF16.
  GaussWsOptions opt;
  opt.noise = GaussNoise::exact;
  opt.noise_stream = SrStream{seed, stream, step, 0};
  const auto rows = static_cast<std::size_t>(w.rows), cols = static_cast<std::size_t>(w.cols);
  const std::vector<int> b(gaussws_block_count(rows, cols, opt), bits);
  std::vector<std::uint16_t> codes(w.size());
  gaussws_fake_quantize(w.v, rows, cols, b, formats::bf16, RoundingSpec{Rounding::rne, Overflow::satfinite}, codes,
                        opt);
  Matrix out(w.rows, w.cols);
  decode_to_f32(codes, out.v, formats::bf16);
  return out;
}

}  // namespace minifloat::train::detail
