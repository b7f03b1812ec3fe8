// SPDX-License-Identifier: Apache-2.0
// block_props_test.cpp: RapidCheck properties of the block quantizers — the dequantization error
// bound of each scheme, no element overflow under the round-up rules (rceil, tosa), zero / NaN
// blocks per the documented policy, and streaming: any plan of pieces (BlockQuantizer, with its
// first pass) gives exactly the whole-array result, for f32 and f64 sources.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "minifloat/quant.hpp"

namespace minifloat_test {
using namespace minifloat;

namespace {
// A block of 32 floats: magnitudes spread over 2^±40 around a random centre, some zeros.
rc::Gen<std::vector<float>> gen_block() {
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange(-60, 60), rc::gen::container<std::vector<std::int32_t>>(32, rc::gen::inRange(-1 << 20, 1 << 20))),
                      [](const std::tuple<int, std::vector<std::int32_t>>& t) {
                        std::vector<float> v;
                        for (std::int32_t k : std::get<1>(t)) v.push_back(std::ldexp(static_cast<float>(k), std::get<0>(t) - 20));
                        return v;
                      });
}
const char* kMx[] = {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "mxint8"};
}  // namespace

// |x − q| ≤ X · max(½ quantum at the top binade, 2^(emax+1) − max) for every E8M0 rule (the second
// term covers the elements ocp_floor/ceil/even let saturate); 0 saturations under rceil and tosa.
RC_GTEST_PROP(BlockProps, DequantErrorBoundAndNoOverflowUnderRoundUp, ()) {
  const auto x = *gen_block();
  const std::string scheme = kMx[*rc::gen::inRange(0, 6)];
  const ScaleRule rule = *rc::gen::element(ScaleRule::ocp_floor, ScaleRule::rceil, ScaleRule::ceil, ScaleRule::even, ScaleRule::tosa);
  Scheme sc = find_scheme(scheme);
  sc.rule = rule;
  const auto q = quantize(x, {32}, sc);
  const auto d = dequantize(q);
  const ElementType el = q.element;
  const int emax_e = element_emax(el), m = element_mantissa_bits(el);
  const double X = e8m0_value(q.scale_codes[0]);
  const double half_q = std::ldexp(1.0, emax_e - m - 1);
  const double sat = std::ldexp(1.0, emax_e + 1) - element_max(el);
  const double bound = X * std::max(half_q, sat);
  for (std::size_t i = 0; i < 32; ++i) RC_ASSERT(std::fabs(static_cast<double>(x[i]) - d[i]) <= bound);
  if (rule == ScaleRule::rceil || rule == ScaleRule::tosa) RC_ASSERT(q.saturated == 0u);
}

// FP32-scaled FP8 tiles never saturate (amax maps to ≤ 448) and keep E4M3's relative precision.
RC_GTEST_PROP(BlockProps, Fp32ScaledTilesNoOverflow, ()) {
  const auto x = *gen_block();
  const auto q = quantize(x, {1, 32}, find_scheme("fp8_1x128"));
  RC_ASSERT(q.saturated == 0u);
  const auto d = dequantize(q);
  double amax = 0;
  for (float v : x) amax = std::max(amax, static_cast<double>(std::fabs(v)));
  for (std::size_t i = 0; i < 32; ++i)
    RC_ASSERT(std::fabs(x[i] - d[i]) <= std::max(std::fabs(static_cast<double>(x[i])) / 16.0 * 1.0001, amax * std::ldexp(1.0, -18)));
}

// Zero blocks: scale 0x00 and +0 codes; a NaN anywhere: scale 0xff and every element NaN (defaults).
RC_GTEST_PROP(BlockProps, ZeroAndNanBlocksPerPolicy, ()) {
  const std::string scheme = kMx[*rc::gen::inRange(0, 6)];
  auto x = std::vector<float>(32, 0.0f);
  auto q = quantize(x, {32}, find_scheme(scheme));
  RC_ASSERT(q.scale_codes[0] == 0x00);
  for (auto c : q.codes) RC_ASSERT(c == 0);
  x = *gen_block();
  x[*rc::gen::inRange(0, 32)] = std::nanf("");
  q = quantize(x, {32}, find_scheme(scheme));
  RC_ASSERT(q.scale_codes[0] == 0xff);
  for (double v : dequantize(q)) RC_ASSERT(std::isnan(v));
}

namespace {
/// The whole-array quantization of x, rebuilt piece by piece through a plan of at most `max` elements.
template <class T>
QuantizedTensor streamed(const std::vector<T>& x, const std::vector<std::size_t>& shape, const Scheme& s, const QuantOptions& o,
                         std::size_t max, std::vector<double>* deq) {
  BlockQuantizer bq(shape, s, o);
  const QuantPlan plan = bq.plan(max);
  std::size_t covered = 0;
  for (std::size_t k = 0; k < plan.count(); ++k) covered += plan.piece(k).size();
  RC_ASSERT(covered == x.size());  // the pieces tile the tensor
  auto piece_values = [&](const QuantPiece& p) {
    const std::size_t first = p.offset(plan.file_cols);
    return std::span<const T>(x.data() + first, p.size());
  };
  if (plan.first_pass)
    for (std::size_t k = plan.count(); k-- > 0;) bq.observe(plan.piece(k), piece_values(plan.piece(k)));  // any order
  std::vector<std::uint8_t> codes(x.size());
  deq->assign(x.size(), 0.0);
  for (std::size_t k = 0; k < plan.count(); ++k) {
    const QuantPiece p = plan.piece(k);
    const std::size_t first = p.offset(plan.file_cols);
    RC_ASSERT(p.size() <= std::max<std::size_t>(max, 8) || plan.first_pass);
    bq.quantize(p, piece_values(p), std::span<std::uint8_t>(codes.data() + first, p.size()));
    bq.dequantize(p, std::span<const std::uint8_t>(codes.data() + first, p.size()), std::span<double>(deq->data() + first, p.size()));
  }
  QuantizedTensor q = bq.result();
  q.codes = std::move(codes);
  return q;
}
std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
}  // namespace

RC_GTEST_PROP(BlockProps, StreamedPiecesEqualTheWholeArray, ()) {
  // a shape of 1 to 3 dimensions (extents 1..40, sometimes 0), any named scheme or a random tile
  const std::size_t nd = *rc::gen::inRange<std::size_t>(1, 4);
  std::vector<std::size_t> shape;
  for (std::size_t k = 0; k < nd; ++k) shape.push_back(*rc::gen::inRange<std::size_t>(*rc::gen::inRange(0, 20) == 0 ? 0 : 1, 41));
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  const auto& table = scheme_table().entries;
  Scheme s = table[*rc::gen::inRange<std::size_t>(0, table.size())].value;
  if (*rc::gen::arbitrary<bool>()) {
    s.block_rows = *rc::gen::element<std::size_t>(0, 1, 2, 3, 7, 16);
    s.block_cols = *rc::gen::element<std::size_t>(0, 1, 3, 5, 16, 32);
  }
  if (*rc::gen::arbitrary<bool>()) s.policy.nan = NanInBlock::element_only;
  QuantOptions o;
  if (*rc::gen::arbitrary<bool>()) o.axis = BlockAxis::first;
  const bool f64 = *rc::gen::arbitrary<bool>();
  std::vector<double> x(n);
  for (auto& v : x) {
    const int kind = *rc::gen::inRange(0, 40);
    if (kind == 0) v = std::numeric_limits<double>::quiet_NaN();
    else if (kind == 1) v = -std::numeric_limits<double>::infinity();
    else if (kind < 5) v = 0.0;
    else v = std::ldexp(static_cast<double>(*rc::gen::inRange(-(1 << 30), 1 << 30)), *rc::gen::inRange(-60, 0));
  }
  const std::size_t max = *rc::gen::inRange<std::size_t>(1, n + 2);
  std::vector<double> d1, d2;
  QuantizedTensor whole, parts;
  if (f64) {
    whole = quantize(std::span<const double>(x), shape, s, o);
    parts = streamed(x, shape, s, o, max, &d2);
  } else {
    const std::vector<float> xf(x.begin(), x.end());
    whole = quantize(std::span<const float>(xf), shape, s, o);
    parts = streamed(xf, shape, s, o, max, &d2);
  }
  d1 = dequantize(whole);
  RC_ASSERT(parts.codes == whole.codes);
  RC_ASSERT(parts.scale_codes == whole.scale_codes);
  RC_ASSERT(parts.scales.size() == whole.scales.size());
  for (std::size_t t = 0; t < whole.scales.size(); ++t) RC_ASSERT(bits(parts.scales[t]) == bits(whole.scales[t]));
  RC_ASSERT(bits(parts.tensor_encode_scale) == bits(whole.tensor_encode_scale));
  RC_ASSERT(parts.saturated == whole.saturated);
  RC_ASSERT(parts.flushed == whole.flushed);
  RC_ASSERT(parts.scale_shape == whole.scale_shape);
  RC_ASSERT(d1.size() == d2.size());
  for (std::size_t i = 0; i < d1.size(); ++i) RC_ASSERT((std::isnan(d1[i]) && std::isnan(d2[i])) || d1[i] == d2[i]);
}

}  // namespace minifloat_test
