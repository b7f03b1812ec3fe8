// SPDX-License-Identifier: Apache-2.0
// block_oracle_test.cpp: every block scheme and scale rule cross-checked against an independent
// element-wise oracle. The scale is recomputed here from each rule's definition (spec-digest §2.3,
// §4.3, §7.2: literal element maxima, exact power-of-two search, torchao's bit formulas, TE's FP32
// operation order); the elements are rounded by the MPFR oracle (tests/oracle, minifloat_oracle),
// INT8 by nearbyint. Nothing here calls minifloat's scale or element code: only `quantize` is judged.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "minifloat/quant.hpp"
#include "mpfr_oracle.hpp"
#include "spec_formats.hpp"

namespace minifloat_test {
namespace {
namespace orc = minifloat_test::oracle;

struct Lit {  // literal element facts (spec-digest §2.1 table)
  const char* oracle_name;  // nullptr for int8
  double max;
  int emax;
  int mbits;
  double tosa_limit;  // max + ½ulp
  bool tosa_inclusive;
};
const std::map<std::string, Lit>& lits() {
  static const std::map<std::string, Lit> m = {
      {"e4m3fn", {"e4m3fn", 448, 8, 3, 464, true}},  {"e5m2", {"e5m2", 57344, 15, 2, 61440, false}},
      {"e2m3fn", {"e2m3fn", 7.5, 2, 3, 7.75, false}}, {"e3m2fn", {"e3m2fn", 28, 4, 2, 30, false}},
      {"e2m1fn", {"e2m1fn", 6, 2, 1, 7, false}},      {"int8", {nullptr, 127.0 / 64, 0, 6, 127.5 / 64, false}},
  };
  return m;
}
std::string elem_name(const std::string& scheme) {
  if (scheme == "mxfp8_e5m2") return "e5m2";
  if (scheme == "mxfp6_e2m3") return "e2m3fn";
  if (scheme == "mxfp6_e3m2") return "e3m2fn";
  if (scheme == "mxfp4" || scheme == "nvfp4") return "e2m1fn";
  if (scheme == "mxint8") return "int8";
  return "e4m3fn";
}
std::uint32_t fbits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// The E8M0 exponent by each rule's definition.
int ref_exponent(const std::string& rule, float amax, const Lit& L) {
  int e = 0;
  const double a = amax;
  const std::uint32_t b = fbits(amax);
  if (rule == "ocp_floor") {
    int k;
    std::frexp(a, &k);  // a = f·2^k, f ∈ [0.5, 1) → floor(log2 a) = k − 1
    e = k - 1 - L.emax;
  } else if (rule == "rceil") {
    e = -200;
    while (std::ldexp(L.max, e) < a) ++e;
  } else if (rule == "tosa") {
    e = -200;
    while (L.tosa_inclusive ? a > std::ldexp(L.tosa_limit, e) : a >= std::ldexp(L.tosa_limit, e)) ++e;
  } else if (rule == "ceil") {
    e = static_cast<int>((b >> 23) & 0xff) - 127 - L.emax + ((b & 0x7fffff) ? 1 : 0);
  } else if (rule == "even") {
    const std::uint32_t r = (b + (1u << (22 - L.mbits))) & 0x7f800000u;
    e = static_cast<int>(r >> 23) - 127 - L.emax;
  }
  return e < -127 ? -127 : (e > 127 ? 127 : e);
}

class Elem {
 public:
  explicit Elem(const Lit& L) {
    if (L.oracle_name) t_ = std::make_unique<orc::Target>(orc::spec_by_name(L.oracle_name));
    mpfr_init2(x_, 80);
  }
  ~Elem() { mpfr_clear(x_); }
  // RNE + satfinite of v · 2^(−e) (v a double holding a float).
  std::uint8_t round(double v, int e) {
    if (!t_) {
      double k = std::nearbyint(std::ldexp(v, 6 - e));  // FE_TONEAREST: ties to even
      k = std::min(127.0, std::max(-128.0, k));
      return static_cast<std::uint8_t>(static_cast<std::int8_t>(k));
    }
    orc::set_from_double(x_, v);
    mpfr_mul_2si(x_, x_, -e, MPFR_RNDN);
    return static_cast<std::uint8_t>(t_->round(x_, orc::Mode::rne, orc::Overflow::satfinite).code);
  }

 private:
  std::unique_ptr<orc::Target> t_;
  mpfr_t x_;
};

// Test data: rows of different magnitudes, Gaussian values, an outlier per row, some zeros,
// an all-zero row and a subnormal row.
std::vector<float> make_data(std::size_t rows, std::size_t cols, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-24, 24);
  std::vector<float> x(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const float s = std::ldexp(1.0f, ex(g));
    for (std::size_t c = 0; c < cols; ++c) x[r * cols + c] = nd(g) * s;
    x[r * cols + (r * 7) % cols] *= 37.0f;
    x[r * cols + (r * 3 + 1) % cols] = 0.0f;
  }
  if (rows > 2) {
    for (std::size_t c = 0; c < cols; ++c) x[1 * cols + c] = 0.0f;
    for (std::size_t c = 0; c < cols; ++c) x[2 * cols + c] = nd(g) * 1e-40f;
  }
  return x;
}

struct Case {
  std::string scheme;
  std::string rule;  // "" = the scheme's default
};
std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  return i.param.scheme + "_" + (i.param.rule.empty() ? std::string("default") : i.param.rule);
}

class BlockVsMpfrOracle : public ::testing::TestWithParam<Case> {};

TEST_P(BlockVsMpfrOracle, EveryScaleAndCode) {
  using namespace minifloat;
  const Case& cs = GetParam();
  Scheme sch = find_scheme(cs.scheme);
  if (!cs.rule.empty()) sch.rule = parse_scale_rule(cs.rule);
  const ScaleRule rule = sch.rule;
  const std::string rname(scale_rule_name(rule));
  const Lit& L = lits().at(elem_name(cs.scheme));
  const std::size_t rows = sch.block_rows == 128 ? 130 : 9, cols = sch.block_cols == 128 ? 260 : 100;
  const std::vector<float> x = make_data(rows, cols, 1234u + static_cast<unsigned>(cs.scheme.size() * 7 + rname.size()));
  const QuantizedTensor q = quantize(x, {rows, cols}, sch);
  ASSERT_EQ(q.codes.size(), x.size());
  std::fesetround(FE_TONEAREST);
  Elem el(L);
  Elem e4m3(lits().at("e4m3fn"));
  const orc::SpecFormat e4m3_spec = orc::spec_by_name("e4m3fn");

  const std::size_t br = sch.block_rows ? sch.block_rows : rows, bc = sch.block_cols ? sch.block_cols : cols;
  const std::size_t nr = (rows + br - 1) / br, nc = (cols + bc - 1) / bc;
  ASSERT_EQ(q.scale_rows, nr);
  ASSERT_EQ(q.scale_cols, nc);
  float s_enc = 1.0f;
  if (rule == ScaleRule::nvfp4) {  // TE: S_enc = fl32(448·6 / global_amax), FLT_MAX cap, 0 → 1
    float g = 0;
    for (float v : x) g = std::max(g, std::fabs(v));
    s_enc = 2688.0f / g;
    if (std::isinf(s_enc)) s_enc = 3.4028234663852886e38f;
    if (g == 0.0f || s_enc == 0.0f) s_enc = 1.0f;
    ASSERT_EQ(q.tensor_encode_scale, s_enc);
  }
  std::size_t checked = 0;
  for (std::size_t ti = 0; ti < nr; ++ti)
    for (std::size_t tj = 0; tj < nc; ++tj) {
      float amax = 0;
      for (std::size_t r = ti * br; r < std::min(rows, (ti + 1) * br); ++r)
        for (std::size_t c = tj * bc; c < std::min(cols, (tj + 1) * bc); ++c) amax = std::max(amax, std::fabs(x[r * cols + c]));
      const std::size_t t = ti * nc + tj;
      int e = 0;
      float enc = 1.0f, dec = 1.0f;
      if (rule == ScaleRule::nvfp4) {
        const float sdec = amax * (s_enc * (1.0f / 6.0f));
        const std::uint8_t sc = e4m3.round(sdec, 0);
        ASSERT_EQ(q.scale_codes[t], sc) << "tile " << t << " amax " << amax;
        const float sbv = static_cast<float>(orc::to_double(orc::decode(e4m3_spec, sc)));
        enc = std::min(1.0f / (sbv * (1.0f / s_enc)), 3.4028234663852886e38f);
      } else if (rule == ScaleRule::fp32_amax) {  // TE current scaling order
        if (amax == 0.0f) {
          enc = 1.0f;
        } else {
          enc = static_cast<float>(L.max) / amax;
          if (std::isinf(enc)) enc = 3.4028234663852886e38f;  // §7.2: an Inf scale becomes the input type's max
        }
        dec = 1.0f / enc;
        ASSERT_EQ(q.scales[t], dec) << "tile " << t;
      } else {
        e = amax == 0.0f ? -127 : ref_exponent(rname, amax, L);
        ASSERT_EQ(q.scale_codes[t], e + 127) << rname << " tile " << t << " amax " << amax;
      }
      for (std::size_t r = ti * br; r < std::min(rows, (ti + 1) * br); ++r)
        for (std::size_t c = tj * bc; c < std::min(cols, (tj + 1) * bc); ++c) {
          const float v = x[r * cols + c];
          const std::uint8_t want = (rule == ScaleRule::nvfp4 || rule == ScaleRule::fp32_amax) ? el.round(v * enc, 0) : el.round(v, e);
          ASSERT_EQ(q.codes[r * cols + c], want) << rname << " at (" << r << ", " << c << ") x = " << v << " e = " << e;
          ++checked;
        }
    }
  EXPECT_EQ(checked, x.size());
}

std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (const char* s : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "mxint8"})
    for (const char* r : {"ocp_floor", "rceil", "ceil", "even", "tosa"}) v.push_back({s, r});
  v.push_back({"nvfp4", ""});
  for (const char* s : {"fp8_tensor", "fp8_row", "fp8_channel", "fp8_1x128", "fp8_128x128"}) v.push_back({s, ""});
  v.push_back({"fp8_1x128_ue8m0", ""});
  v.push_back({"fp8_128x128_ue8m0", ""});
  v.push_back({"fp8_1x128", "ocp_floor"});
  return v;
}
INSTANTIATE_TEST_SUITE_P(AllSchemes, BlockVsMpfrOracle, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace minifloat_test
