// SPDX-License-Identifier: Apache-2.0
// block_oracle_test.cpp: every block scheme and scale rule — the named ones and user spec strings
// (P3109 and custom: elements, 2-D tiles, the generalised NVFP4 rule) — cross-checked against an
// independent element-wise oracle, from binary32 AND binary64 inputs. The scale is recomputed here
// from each rule's definition (spec-digest §2.3, §4.3, §7.2: literal element maxima, exact
// power-of-two search, torchao's bit formulas, TE's FP32 operation order); every binary32 step
// whose operand is an f64 value is done in MPFR (the exact operation, rounded once to binary32);
// the elements are rounded by the MPFR oracle (tests/oracle, minifloat_oracle), INT8 by an exact
// nearbyint. Nothing here calls minifloat's scale or element code: only parse_scheme + quantize
// are judged. The f64 data carries double-rounding traps in every tile (values a hair beyond an
// element midpoint, or x·encode beyond one): the test also asserts that those traps change
// codes against the f32-first path (so it fails if the f64 path rounds through f32).
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

constexpr float kFltMax = 3.4028234663852886e38f;

struct Lit {  // element facts (spec-digest §2.1 table for the named ones; derived for the others)
  double max;
  int emax;
  int mbits;
  double tosa_limit;  // max + ½ulp
  bool tosa_inclusive;
};
const std::map<std::string, Lit>& lits() {
  static const std::map<std::string, Lit> m = {
      {"e4m3fn", {448, 8, 3, 464, true}},  {"e5m2", {57344, 15, 2, 61440, false}},
      {"e2m3fn", {7.5, 2, 3, 7.75, false}}, {"e3m2fn", {28, 4, 2, 30, false}},
      {"e2m1fn", {6, 2, 1, 7, false}},      {"int8", {127.0 / 64, 0, 6, 127.5 / 64, false}},
  };
  return m;
}

/// The oracle's own description of the elements the cases use (named specs, P3109, and a
/// user-defined one written out here from its fields).
orc::SpecFormat oracle_spec(const std::string& name) {
  if (name == "custom_e3m3") {  // custom:3,3,3,signed,fn — 7 bits, NaN = all ones (both signs), no Inf
    orc::SpecFormat f;
    f.name = name;
    f.k = 7;
    f.ebits = 3;
    f.mbits = 3;
    f.bias = 3;
    f.has_neg_zero = true;
    f.nan_rule = orc::NanRule::listed;
    f.nan_codes = {0x3f, 0x7f};
    f.nan_out_pos = 0x3f;
    f.nan_out_neg = 0x7f;
    return f;
  }
  return orc::spec_by_name(name);
}
/// Element facts from the oracle's decoder: max, floor(log2 max), the tosa limit max + ½ulp
/// (inclusive when max's last mantissa bit is even: RNE then keeps it).
Lit derive_lit(const orc::SpecFormat& f) {
  orc::Target t(f);
  const double max = t.max_finite();
  int k;
  std::frexp(max, &k);
  const int emax = k - 1;
  return {max, emax, f.mbits, max + std::ldexp(1.0, emax - f.mbits - 1), (t.max_code(false) & 1) == 0};
}

std::uint32_t fbits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// ---- binary32 arithmetic on exact operands, in MPFR ------------------------------------------
/// `v` (exact, any precision) rounded once to binary32: RNE at 24 bits, subnormals at 2^−149, ±Inf beyond.
float fl32_of(const mpfr_t v) {
  if (mpfr_nan_p(v)) return std::nanf("");
  if (mpfr_zero_p(v)) return mpfr_signbit(v) ? -0.0f : 0.0f;
  mpfr_t r;
  mpfr_init2(r, 200);
  mpfr_set(r, v, MPFR_RNDN);
  if (mpfr_get_exp(r) <= -126) {  // |r| < 2^−126 (MPFR: r = m·2^exp, ½ ≤ |m| < 1)  // subnormal range: round at the absolute quantum 2^−149
    mpfr_mul_2si(r, r, 149, MPFR_RNDN);
    mpfr_rint(r, r, MPFR_RNDN);
    mpfr_mul_2si(r, r, -149, MPFR_RNDN);
  } else {
    mpfr_prec_round(r, 24, MPFR_RNDN);
  }
  const double d = mpfr_get_d(r, MPFR_RNDN);  // exact: r has ≤ 24 bits
  mpfr_clear(r);
  if (std::fabs(d) > static_cast<double>(kFltMax)) return d > 0 ? INFINITY : -INFINITY;
  return static_cast<float>(d);
}
float fl32_mul(double a, double b) {
  mpfr_t x, y;
  mpfr_inits2(200, x, y, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(x, a, MPFR_RNDN);
  mpfr_set_d(y, b, MPFR_RNDN);
  mpfr_mul(x, x, y, MPFR_RNDN);  // exact: 53 + 53 bits < 200
  const float r = fl32_of(x);
  mpfr_clears(x, y, static_cast<mpfr_ptr>(nullptr));
  return r;
}
float fl32_div(double a, double b) {
  mpfr_t x, y;
  mpfr_inits2(400, x, y, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(x, a, MPFR_RNDN);
  mpfr_set_d(y, b, MPFR_RNDN);
  // 400 bits: a quotient of doubles that is not a binary32 midpoint differs from one by far more
  // than 2^−400 relative, so rounding this to 24 bits is the correctly rounded quotient.
  mpfr_div(x, x, y, MPFR_RNDN);
  const float r = fl32_of(x);
  mpfr_clears(x, y, static_cast<mpfr_ptr>(nullptr));
  return r;
}

/// Round v · 2^(−e) (v exact double, or an exact product a·b) RNE + satfinite into the element.
class Elem {
 public:
  Elem(const std::string& name, const Lit& L) : int8_(name == "int8") {
    if (!int8_) t_ = std::make_unique<orc::Target>(oracle_spec(name));
    (void)L;
    mpfr_init2(x_, 200);
  }
  ~Elem() { mpfr_clear(x_); }
  std::uint8_t round(double v, int e) {
    orc::set_from_double(x_, v);
    mpfr_mul_2si(x_, x_, -e, MPFR_RNDN);
    return finish();
  }
  std::uint8_t round_product(double a, double b) {  // a · b exactly (Fp32ScaleOrder::exact)
    mpfr_set_d(x_, a, MPFR_RNDN);
    mpfr_mul_d(x_, x_, b, MPFR_RNDN);
    return finish();
  }

 private:
  std::uint8_t finish() {
    if (int8_) {  // k = RNE(v · 64), clamped to [−128, 127]
      mpfr_mul_2si(x_, x_, 6, MPFR_RNDN);
      mpfr_rint(x_, x_, MPFR_RNDN);
      double k = mpfr_get_d(x_, MPFR_RNDN);
      k = std::min(127.0, std::max(-128.0, k));
      return static_cast<std::uint8_t>(static_cast<std::int8_t>(k));
    }
    return static_cast<std::uint8_t>(t_->round(x_, orc::Mode::rne, orc::Overflow::satfinite).code);
  }
  bool int8_;
  std::unique_ptr<orc::Target> t_;
  mpfr_t x_;
};

// ---- the E8M0 exponent by each rule's definition -----------------------------------------------
int clamp127(int e) { return e < -127 ? -127 : (e > 127 ? 127 : e); }
/// torchao's ceil/even on the binary32 encoding of a float amax.
int bits_exponent(const std::string& rule, float amax, const Lit& L) {
  const std::uint32_t b = fbits(amax);
  if (rule == "ceil") return clamp127(static_cast<int>((b >> 23) & 0xff) - 127 - L.emax + ((b & 0x7fffff) ? 1 : 0));
  const std::uint32_t r = (b + (1u << (22 - L.mbits))) & 0x7f800000u;  // even
  return clamp127(static_cast<int>(r >> 23) - 127 - L.emax);
}
/// The same formulas read for an exact amax (scheme.hpp / e8m0_exponent: the encoding with
/// unbounded precision), in double arithmetic.
int exact_bits_exponent(const std::string& rule, double amax, const Lit& L) {
  const double tiny = std::ldexp(1.0, -126);
  int k;
  const double f = std::frexp(amax, &k);  // amax = f·2^k, f ∈ [0.5, 1)
  const int E = k - 1;
  const double one_minus = 1.0 - std::ldexp(1.0, -(L.mbits + 1));
  if (rule == "ceil") {
    if (amax < tiny) return clamp127(-126 - L.emax);
    return clamp127(E - L.emax + (f != 0.5 ? 1 : 0));
  }
  if (amax < tiny) return clamp127((amax / tiny >= one_minus ? -126 : -127) - L.emax);
  return clamp127(E + (2 * f - 1 >= one_minus ? 1 : 0) - L.emax);
}
int ref_exponent(const std::string& rule, double amax, bool f64, const Lit& L) {
  int e = 0;
  if (rule == "ocp_floor") {
    int k;
    std::frexp(amax, &k);  // floor(log2 a) = k − 1
    e = k - 1 - L.emax;
  } else if (rule == "rceil") {
    e = -300;
    while (std::ldexp(L.max, e) < amax) ++e;
  } else if (rule == "tosa") {
    e = -300;
    while (L.tosa_inclusive ? amax > std::ldexp(L.tosa_limit, e) : amax >= std::ldexp(L.tosa_limit, e)) ++e;
  } else {
    return f64 ? exact_bits_exponent(rule, amax, L) : bits_exponent(rule, static_cast<float>(amax), L);
  }
  return clamp127(e);
}

// Test data: rows of different magnitudes, Gaussian values (full 53-bit doubles for f64 cases),
// an outlier per row, some zeros, an all-zero row and an FP32-subnormal row.
std::vector<double> make_data(std::size_t rows, std::size_t cols, unsigned seed, bool f64) {
  std::mt19937 g(seed);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::uniform_int_distribution<int> ex(-24, 24);
  std::vector<double> x(rows * cols);
  auto val = [&](double v) { return f64 ? v : static_cast<double>(static_cast<float>(v)); };
  for (std::size_t r = 0; r < rows; ++r) {
    const double s = std::ldexp(1.0, ex(g));
    for (std::size_t c = 0; c < cols; ++c) x[r * cols + c] = val(nd(g) * s);
    x[r * cols + (r * 7) % cols] = val(x[r * cols + (r * 7) % cols] * 37.0);
    x[r * cols + (r * 3 + 1) % cols] = 0.0;
  }
  if (rows > 2) {
    for (std::size_t c = 0; c < cols; ++c) x[1 * cols + c] = 0.0;
    for (std::size_t c = 0; c < cols; ++c) x[2 * cols + c] = val(nd(g) * 1e-40);
  }
  return x;
}

struct Case {
  std::string label;   // the test name
  std::string scheme;  // what parse_scheme reads: a name or a spec
  // the oracle's description of the same scheme
  std::string elem;    // element: a lits() name or an oracle_spec() name
  std::size_t br, bc;  // tile (0 = all)
  std::string rule;
  std::string order = "te_multiply";
  bool f64 = false;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.scheme << (c.f64 ? " f64" : " f32"); }
std::string case_name(const ::testing::TestParamInfo<Case>& i) { return i.param.label + (i.param.f64 ? "_f64" : "_f32"); }

class BlockVsMpfrOracle : public ::testing::TestWithParam<Case> {};

TEST_P(BlockVsMpfrOracle, EveryScaleAndCode) {
  using namespace minifloat;
  const Case& cs = GetParam();
  const Scheme sch = parse_scheme(cs.scheme);
  const Lit L = lits().count(cs.elem) ? lits().at(cs.elem) : derive_lit(oracle_spec(cs.elem));
  const std::string& rname = cs.rule;
  const bool nvfp4 = rname == "nvfp4", fp32 = rname == "fp32_amax" || rname == "fp32_pow2";
  const bool exact_order = cs.order == "exact", divide = cs.order == "divide";
  const std::size_t rows = cs.br >= 16 ? 130 : 9, cols = cs.bc >= 64 ? 260 : 100;
  std::vector<double> x = make_data(rows, cols, 1234u + static_cast<unsigned>(cs.label.size() * 7 + rname.size()), cs.f64);
  std::fesetround(FE_TONEAREST);
  Elem el(cs.elem, L);
  Elem e4m3("e4m3fn", lits().at("e4m3fn"));
  const orc::SpecFormat e4m3_spec = orc::spec_by_name("e4m3fn");
  orc::Target elem_target_for_traps(cs.elem == "int8" ? orc::spec_by_name("e4m3fn") : oracle_spec(cs.elem));
  const std::size_t br = cs.br ? cs.br : rows, bc = cs.bc ? cs.bc : cols;
  const std::size_t nr = (rows + br - 1) / br, nc = (cols + bc - 1) / bc;

  // The oracle's scales. NVFP4: S_enc = fl32(448·max / global_amax) (2688 for E2M1), FLT_MAX cap, 0 → 1.
  float s_enc = 1.0f;
  auto global_enc = [&] {
    double gmax = 0;
    for (double v : x) gmax = std::max(gmax, std::fabs(v));
    float s = fl32_div(448.0 * L.max, gmax);
    if (std::isinf(s)) s = kFltMax;
    if (gmax == 0.0 || s == 0.0f) s = 1.0f;
    return s;
  };
  if (nvfp4) s_enc = global_enc();
  struct TileRef {
    int e = 0;
    float enc = 1.0f, dec = 1.0f;
    std::uint8_t sc = 0;
  };
  auto tile_amax = [&](std::size_t ti, std::size_t tj) {
    double amax = 0;
    for (std::size_t r = ti * br; r < std::min(rows, (ti + 1) * br); ++r)
      for (std::size_t c = tj * bc; c < std::min(cols, (tj + 1) * bc); ++c) amax = std::max(amax, std::fabs(x[r * cols + c]));
    return amax;
  };
  auto tile_ref = [&](double amax) {
    TileRef t;
    if (nvfp4) {  // TE core_nvfp4.cuh: fl32(amax · fl32(S_enc · fl32(1/max))) → e4m3; enc = min(fl32(1/fl32(sb · fl32(1/S_enc))), FLT_MAX)
      const float k = s_enc * (1.0f / static_cast<float>(L.max));
      t.sc = e4m3.round(fl32_mul(amax, k), 0);
      const float sbv = static_cast<float>(orc::to_double(orc::decode(e4m3_spec, t.sc)));
      t.enc = std::min(1.0f / (sbv * (1.0f / s_enc)), kFltMax);
    } else if (fp32) {  // TE current scaling (§7.2) / DeepSeek act_quant (divide)
      if (amax == 0.0) {
        t.enc = 1.0f;
        t.dec = 1.0f;
      } else if (divide) {
        t.dec = fl32_div(amax, L.max);
      } else {
        t.enc = fl32_div(L.max, amax);
        if (std::isinf(t.enc)) t.enc = kFltMax;  // an Inf scale becomes the input type's max
        if (rname == "fp32_pow2") {
          std::uint32_t b = fbits(t.enc) & 0xff800000u;
          std::memcpy(&t.enc, &b, 4);
        }
        t.dec = 1.0f / t.enc;
      }
    } else {
      t.e = amax == 0.0 ? -127 : ref_exponent(rname, amax, cs.f64, L);
    }
    return t;
  };

  // f64: plant double-rounding traps in every tile (not on its amax element, and below it): a hair
  // above an element midpoint whose lower neighbour has an even code (E8M0: x = mid·2^e(1 + 2^−40));
  // FP32/NVFP4: x = mid / encode (1 + 2^−40), so x·encode lies a hair beyond the midpoint.
  if (cs.f64) {
    std::mt19937 g(99);
    for (std::size_t ti = 0; ti < nr; ++ti)
      for (std::size_t tj = 0; tj < nc; ++tj) {
        const double amax = tile_amax(ti, tj);
        if (amax == 0.0) continue;
        const TileRef t = tile_ref(amax);
        std::vector<double> mids;  // element midpoints m with a lower neighbour of even code
        if (cs.elem == "int8") {
          for (int k = 0; k < 126; k += 2) mids.push_back((k + 0.5) / 64.0);
        } else {
          const orc::SpecFormat& sf = elem_target_for_traps.spec();
          for (std::uint64_t c = 0; c + 1 < sf.code_count() / (sf.is_signed ? 2 : 1); c += 2) {
            const orc::Exact a = orc::decode(sf, c), b = orc::decode(sf, c + 1);
            if (a.kind != orc::Kind::finite || b.kind != orc::Kind::finite) continue;
            mids.push_back((orc::to_double(a) + orc::to_double(b)) / 2);
          }
        }
        for (std::size_t r = ti * br; r < std::min(rows, (ti + 1) * br); ++r)
          for (std::size_t c = tj * bc; c < std::min(cols, (tj + 1) * bc); c += 3) {
            double& v = x[r * cols + c];
            if (std::fabs(v) == amax || mids.empty()) continue;
            const double m = mids[g() % mids.size()];
            double trap = std::ldexp(m, t.e) * (1 + std::ldexp(1.0, -40));
            if (nvfp4 || fp32) {
              // alternately: x·encode a hair beyond the element midpoint m, or a hair beyond the
              // binary32 midpoint B = m + ½ulp32(m) above it (then fl32(x·encode) = m + ulp32 while
              // fl32(fl32(x)·encode) = m whenever fl32(x) < x: a tie that rounds to even)
              int k;
              std::frexp(m, &k);
              const double target = (c / 3) % 2 ? m : m + std::ldexp(1.0, k - 1 - 24);
              trap = (divide ? target * t.dec : target / t.enc) * (1 + std::ldexp(1.0, -45));
            }
            if (trap < amax && trap > 0 && std::isfinite(trap)) v = (g() & 1) ? trap : -trap;
          }
      }
    if (nvfp4) s_enc = global_enc();  // unchanged (traps stay below every amax), recomputed for clarity
  }

  QuantizedTensor q;
  if (cs.f64) {
    q = quantize(std::span<const double>(x), {rows, cols}, sch);
  } else {
    const std::vector<float> xf(x.begin(), x.end());
    q = quantize(std::span<const float>(xf), {rows, cols}, sch);
  }
  ASSERT_EQ(q.codes.size(), x.size());
  ASSERT_EQ(q.scale_rows, nr);
  ASSERT_EQ(q.scale_cols, nc);
  if (nvfp4) {
    ASSERT_EQ(q.tensor_encode_scale, s_enc);
  }
  std::size_t checked = 0;
  for (std::size_t ti = 0; ti < nr; ++ti)
    for (std::size_t tj = 0; tj < nc; ++tj) {
      const double amax = tile_amax(ti, tj);
      const std::size_t t = ti * nc + tj;
      const TileRef ref = tile_ref(amax);
      if (nvfp4) {
        ASSERT_EQ(q.scale_codes[t], ref.sc) << "tile " << t << " amax " << amax;
      } else if (fp32) {
        ASSERT_EQ(q.scales[t], ref.dec) << "tile " << t << " amax " << amax;
      } else {
        if (!cs.f64 && amax != 0.0 && (rname == "ceil" || rname == "even")) {  // the exact reading agrees with the bits
          ASSERT_EQ(exact_bits_exponent(rname, amax, L), ref.e) << rname << " amax " << amax;
        }
        ASSERT_EQ(q.scale_codes[t], ref.e + 127) << rname << " tile " << t << " amax " << amax;
      }
      for (std::size_t r = ti * br; r < std::min(rows, (ti + 1) * br); ++r)
        for (std::size_t c = tj * bc; c < std::min(cols, (tj + 1) * bc); ++c) {
          const double v = x[r * cols + c];
          std::uint8_t want;
          if (!nvfp4 && !fp32) {
            want = el.round(v, ref.e);
          } else if (exact_order) {
            want = el.round_product(v, ref.enc);
          } else if (divide) {
            want = el.round(fl32_div(v, ref.dec), 0);
          } else {
            want = el.round(fl32_mul(v, ref.enc), 0);
          }
          ASSERT_EQ(q.codes[r * cols + c], want) << rname << " at (" << r << ", " << c << ") x = " << v << " e = " << ref.e;
          ++checked;
        }
    }
  EXPECT_EQ(checked, x.size());
  // The traps bite: rounding the f64 values to f32 first changes codes. (Not with power-of-two FP32
  // scales in TE order: fl32(x·2^k) = fl32(x)·2^k, the formula itself rounds x to binary32 first.)
  if (cs.f64 && !(rname == "fp32_pow2" && cs.order == "te_multiply")) {
    QuantOptions via;
    via.profile.source_via_f32 = true;
    const QuantizedTensor qv = quantize(std::span<const double>(x), {rows, cols}, sch, via);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < x.size(); ++i) differ += qv.codes[i] != q.codes[i];
    EXPECT_GT(differ, 0u) << "no f64 trap changed a code: the test would not see an f32 detour";
  }
}

std::vector<Case> all_cases() {
  struct Named {
    const char* name;
    const char* elem;
    std::size_t br, bc;
    const char* rule;
  };
  const Named mx[] = {{"mxfp8_e4m3", "e4m3fn", 1, 32, ""}, {"mxfp8_e5m2", "e5m2", 1, 32, ""}, {"mxfp6_e2m3", "e2m3fn", 1, 32, ""},
                      {"mxfp6_e3m2", "e3m2fn", 1, 32, ""}, {"mxfp4", "e2m1fn", 1, 32, ""},   {"mxint8", "int8", 1, 32, ""}};
  const char* spec_elem[] = {"e4m3fn", "e5m2", "e2m3fn", "e3m2fn", "e2m1fn", "mxint8"};
  std::vector<Case> v;
  for (bool f64 : {false, true}) {
    for (int k = 0; k < 6; ++k)
      for (const char* r : {"ocp_floor", "rceil", "ceil", "even", "tosa"}) {
        if (std::string(r) == "ocp_floor")
          v.push_back({mx[k].name, mx[k].name, mx[k].elem, 1, 32, r, "te_multiply", f64});
        else  // the named scheme with another E8M0 rule, written as a spec
          v.push_back({std::string(mx[k].name) + "_" + r, std::string(spec_elem[k]) + "/1x32/e8m0fnu:" + r, mx[k].elem, 1, 32, r,
                       "te_multiply", f64});
      }
    v.push_back({"nvfp4", "nvfp4", "e2m1fn", 1, 16, "nvfp4", "te_multiply", f64});
    v.push_back({"nvfp4_16x16", "nvfp4_16x16", "e2m1fn", 16, 16, "nvfp4", "te_multiply", f64});
    v.push_back({"nvfp4_exact", "e2m1fn/1x16/ue4m3:nvfp4/fp32-order=exact", "e2m1fn", 1, 16, "nvfp4", "exact", f64});
    const Named fp8[] = {{"fp8_tensor", "e4m3fn", 0, 0, "fp32_amax"},   {"fp8_row", "e4m3fn", 1, 0, "fp32_amax"},
                         {"fp8_channel", "e4m3fn", 0, 1, "fp32_amax"},  {"fp8_1x128", "e4m3fn", 1, 128, "fp32_amax"},
                         {"fp8_128x128", "e4m3fn", 128, 128, "fp32_amax"}, {"fp8_1x128_ue8m0", "e4m3fn", 1, 128, "rceil"},
                         {"fp8_128x128_ue8m0", "e4m3fn", 128, 128, "rceil"}};
    for (const auto& n : fp8) v.push_back({n.name, n.name, n.elem, n.br, n.bc, n.rule, "te_multiply", f64});
    v.push_back({"fp8_1x128_ocp_floor", "e4m3fn/1x128/e8m0fnu:ocp_floor", "e4m3fn", 1, 128, "ocp_floor", "te_multiply", f64});
    v.push_back({"fp8_1x128_divide", "e4m3fn/1x128/f32:fp32_amax/fp32-order=divide", "e4m3fn", 1, 128, "fp32_amax", "divide", f64});
    v.push_back({"fp8_1x128_exact", "e4m3fn/1x128/f32:fp32_amax/fp32-order=exact", "e4m3fn", 1, 128, "fp32_amax", "exact", f64});
    // user spec strings: the MX-style FP6 scheme, P3109 and custom elements, 2-D and
    // column tiles, fp32_pow2, the NVFP4 rule on FP6 elements
    v.push_back({"spec_e2m3fn_1x16_rceil", "e2m3fn/1x16/e8m0fnu:rceil", "e2m3fn", 1, 16, "rceil", "te_multiply", f64});
    v.push_back({"spec_p3109_8p3_1x32_ocp_floor", "Binary8p3se/1x32/e8m0fnu:ocp_floor", "Binary8p3se", 1, 32, "ocp_floor", "te_multiply", f64});
    v.push_back({"spec_p3109_6p3_1x32_tosa", "Binary6p3sf/1x32/E8M0FNU:TOSA", "Binary6p3sf", 1, 32, "tosa", "te_multiply", f64});
    v.push_back({"spec_custom_e3m3_1x8_even", "custom:3,3,3,signed,fn/1x8/e8m0fnu:even", "custom_e3m3", 1, 8, "even", "te_multiply", f64});
    v.push_back({"spec_e5m2_4x8_ceil", "e5m2/4x8/e8m0fnu:ceil", "e5m2", 4, 8, "ceil", "te_multiply", f64});
    v.push_back({"spec_e4m3fn_4x8_fp32_amax", "e4m3fn/4x8/f32:fp32_amax", "e4m3fn", 4, 8, "fp32_amax", "te_multiply", f64});
    v.push_back({"spec_e3m2fn_allx4_fp32_pow2", "e3m2fn/allX4/f32:fp32_pow2", "e3m2fn", 0, 4, "fp32_pow2", "te_multiply", f64});
    v.push_back({"spec_mxint8_1x64_rceil", "mxint8/1x64/e8m0fnu:rceil", "int8", 1, 64, "rceil", "te_multiply", f64});
    v.push_back({"spec_e2m3fn_1x16_nvfp4", "e2m3fn/1x16/ue4m3:nvfp4", "e2m3fn", 1, 16, "nvfp4", "te_multiply", f64});
  }
  return v;
}
INSTANTIATE_TEST_SUITE_P(AllSchemes, BlockVsMpfrOracle, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace minifloat_test
