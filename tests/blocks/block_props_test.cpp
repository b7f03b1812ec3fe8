// SPDX-License-Identifier: Apache-2.0
// block_props_test.cpp: RapidCheck properties of the block quantizers — the dequantization error
// bound of each scheme, no element overflow under the round-up rules (rceil, tosa), and zero / NaN
// blocks per the documented policy.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
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

}  // namespace minifloat_test
