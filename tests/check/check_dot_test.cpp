// SPDX-License-Identifier: Apache-2.0
// check_dot_test.cpp: the dot-product checker (check_dot.hpp). Oracles: an f32 FMA chain written with
// the host's std::fma on floats and an e4m3fn decoder written here from the OCP OFP8 table (code
// nobody in the library shares) must pass the library's `fp32` model; the same chain checked against
// the tensor-core model hopper-fp8 must fail, shrink and be diagnosed as the f32 chain. The
// deliberately wrong tensor-core kernels change one parameter of the preset; their failing case is
// derived by hand in the comments.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "minifloat/check/check_dot.hpp"

namespace {

using namespace minifloat;
using check::DotCase;
using check::DotClass;

/// e4m3fn code → float (OCP OFP8 v1.0 Table 1: bias 7, subnormals m·2^-9, S.1111.111 NaN, no Inf).
float e4m3fn_decode(std::uint64_t c) {
  const int s = static_cast<int>((c >> 7) & 1), e = static_cast<int>((c >> 3) & 15), m = static_cast<int>(c & 7);
  if (e == 15 && m == 7) return std::numeric_limits<float>::quiet_NaN();
  const float mag = e == 0 ? std::ldexp(static_cast<float>(m), -9) : std::ldexp(1.0f + static_cast<float>(m) / 8.0f, e - 7);
  return s ? -mag : mag;
}

/// The CUDA-core loop acc = fmaf(a_i, b_i, acc), acc0 = c, on the host FPU (IEEE binary32, RNE).
void fma_chain_kernel(std::span<const DotCase> in, std::span<std::uint64_t> out) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    float acc = std::bit_cast<float>(static_cast<std::uint32_t>(in[i].c));
    for (std::size_t l = 0; l < in[i].a.size(); ++l) acc = std::fma(e4m3fn_decode(in[i].a[l]), e4m3fn_decode(in[i].b[l]), acc);
    out[i] = std::bit_cast<std::uint32_t>(acc);
  }
}

check::DotTarget target(const char* model, std::size_t k = 32) {
  return {.a = formats::e4m3fn, .b = formats::e4m3fn, .k = k, .model = parse_dot_model(model)};
}

check::DotOptions opts(std::size_t count = 1200) {
  check::DotOptions o;
  o.gen.count = count;
  o.nan_compare = check::NanCompare::any_nan;  // the host FPU's NaN payloads are not the model's canonical NaN
  return o;
}

std::size_t nonzero_terms(const DotCase& c) {
  std::size_t n = c.c != 0 ? 1 : 0;
  for (std::size_t i = 0; i < c.a.size(); ++i) n += (c.a[i] != 0 || c.b[i] != 0) ? 1 : 0;
  return n;
}

TEST(CheckDot, GeneratorCoversEveryClassDeterministically) {
  const auto t = target("hopper-fp8");
  const auto v = check::generate(t, {.seed = 7, .count = 800});
  ASSERT_EQ(v.size(), 800u);
  std::size_t per[8] = {};
  for (const auto& c : v) {
    ASSERT_EQ(c.a.size(), 32u);
    ++per[static_cast<int>(c.cls)];
  }
  for (const std::size_t n : per) EXPECT_EQ(n, 100u);
  EXPECT_EQ(v, check::generate(t, {.seed = 7, .count = 800}));
  EXPECT_NE(v, check::generate(t, {.seed = 8, .count = 800}));
  // The NaN/Inf class holds NaN results; the overflow class reaches f32's top binade [2^127, max] (fp8
  // products, at most 2^17, cannot carry an f32 C over max: they are below its ulp 2^104).
  std::size_t nan = 0, inf = 0;
  for (const auto& c : v) {
    const auto d = static_cast<std::uint32_t>(check::expected(t, c).code);
    if (c.cls == DotClass::nan_inf && (d & 0x7fffffffu) > 0x7f800000u) ++nan;
    if (c.cls == DotClass::overflow && (d & 0x7f800000u) == 0x7f000000u) ++inf;
  }
  EXPECT_GT(nan, 10u);
  EXPECT_GT(inf, 5u);
}

TEST(CheckDot, HostFmaChainPassesTheFp32Model) {
  const check::DotReport r = check::check_dot(fma_chain_kernel, target("fp32"), opts());
  EXPECT_TRUE(r.ok()) << r.text();
  EXPECT_EQ(r.diagnosis.ranked.front().agree, r.tested);
  EXPECT_EQ(r.text().rfind("pass check dot k=32 e4m3fn x e4m3fn + f32 c -> f32 under fp32", 0), 0u) << r.text();
}

TEST(CheckDot, FmaChainAgainstHopperFp8FailsShrinksAndIsDiagnosed) {
  const check::DotReport r = check::check_dot(fma_chain_kernel, target("hopper-fp8"), opts());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.text().rfind("FAIL [", 0), 0u);
  // hopper-fp8 keeps F = 13 bits below the largest term and truncates: 1*1 + 2^-9 * 2^-5 is 1 on the
  // tensor core and 1 + 2^-14 in an f32 chain, so the alignment class must fail.
  bool alignment = false;
  for (const auto& m : r.minimal) {
    EXPECT_LE(nonzero_terms(m.c), 2u) << r.text();  // shrunk: one or two terms suffice for every class here
    std::uint64_t got = 0;
    fma_chain_kernel(std::span<const DotCase>(&m.c, 1), std::span<std::uint64_t>(&got, 1));
    EXPECT_EQ(got, m.got);
    EXPECT_NE(got, m.expected);
    alignment |= m.c.cls == DotClass::alignment;
  }
  EXPECT_TRUE(alignment) << r.text();
  ASSERT_FALSE(r.diagnosis.ranked.empty());
  EXPECT_EQ(r.diagnosis.ranked.front().name, "fp32") << r.diagnosis.text;
  EXPECT_EQ(r.diagnosis.ranked.front().agree, r.tested) << r.diagnosis.text;
  EXPECT_NE(r.text().find("diagnosis: agrees with \"fp32\" on 100%"), std::string::npos) << r.text();
  EXPECT_NE(r.text().find("reproduce: python3 -c"), std::string::npos);
  EXPECT_NE(r.json().find("\"kind\":\"dot\""), std::string::npos);
  // The hand-derived case itself.
  DotCase c;
  c.a.assign(32, 0);
  c.b.assign(32, 0);
  c.a[0] = 0x38;  // 1.0
  c.b[0] = 0x38;
  c.a[1] = 0x01;  // 2^-9
  c.b[1] = 0x10;  // 2^-5
  EXPECT_EQ(check::expected(target("hopper-fp8"), c).code, 0x3f800000u);
  EXPECT_EQ(check::expected(target("fp32"), c).code, 0x3f800000u + (1u << 9));  // 1 + 2^-14
}

/// hopper-fp8 with one parameter changed: a deliberately wrong tensor-core kernel.
check::DotKernel wrong_hopper(void (*edit)(TfdpaModel&), bool ignore_c = false) {
  DotModel m = parse_dot_model("hopper-fp8");
  edit(m.tensor_core);
  return [m, ignore_c](std::span<const DotCase> in, std::span<std::uint64_t> out) {
    for (std::size_t i = 0; i < in.size(); ++i)
      out[i] = dot(m, formats::e4m3fn, in[i].a, formats::e4m3fn, in[i].b, ignore_c ? 0 : in[i].c).code;
  };
}

TEST(CheckDot, RneAlignmentInsteadOfRzIsDiagnosed) {
  // F = 13: with the largest term 1, the quantum is 2^-13; a term of 0.75 quantum, 1.5*2^-14 =
  // 0x14 (1.5*2^-5) * 0x01 (2^-9), is cut to 0 by RZ and rounded up to 2^-13 by RNE. The alignment
  // class places such terms 2^-(F-3)..2^-(F+3) below the largest.
  const check::DotKernel wrong = wrong_hopper([](TfdpaModel& m) { m.align = AlignRounding::rne; });
  DotCase c;
  c.a.assign(32, 0);
  c.b.assign(32, 0);
  c.a[0] = c.b[0] = 0x38;
  c.a[1] = 0x14;
  c.b[1] = 0x01;
  std::uint64_t got = 0;
  wrong(std::span<const DotCase>(&c, 1), std::span<std::uint64_t>(&got, 1));
  EXPECT_EQ(check::expected(target("hopper-fp8"), c).code, 0x3f800000u);
  EXPECT_EQ(got, 0x3f800000u + (1u << 10));  // 1 + 2^-13
  const check::DotReport r = check::check_dot(wrong, target("hopper-fp8"), opts());
  ASSERT_FALSE(r.ok());
  bool alignment = false;
  for (const auto& m : r.minimal) alignment |= m.c.cls == DotClass::alignment;
  EXPECT_TRUE(alignment) << r.text();
  EXPECT_EQ(r.diagnosis.ranked.front().name, "hopper-fp8 with alignment rne") << r.diagnosis.text;
  EXPECT_EQ(r.diagnosis.ranked.front().agree, r.tested);
}

TEST(CheckDot, WiderAlignmentIsDiagnosed) {
  const check::DotReport r =
      check::check_dot(wrong_hopper([](TfdpaModel& m) { m.frac_bits = 14; }), target("hopper-fp8"), opts());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnosis.ranked.front().name, "hopper-fp8 with F=14") << r.diagnosis.text;
}

TEST(CheckDot, IgnoredCIsDiagnosedAsTheCRule) {
  const check::DotReport r = check::check_dot(wrong_hopper([](TfdpaModel&) {}, true), target("hopper-fp8"), opts());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnosis.ranked.front().name, "hopper-fp8 with C = +0") << r.diagnosis.text;
  // Shrinking keeps c (it is the bug) and drops every product: the minimal case is c alone or c + 1 term.
  for (const auto& m : r.minimal) {
    EXPECT_NE(m.c.c, 0u);
    EXPECT_LE(nonzero_terms(m.c), 2u) << r.text();
  }
}

TEST(CheckDot, EvaluateWithoutRerunAndBadInput) {
  const auto t = target("fp32", 4);
  auto cases = check::generate(t, {.seed = 1, .count = 80});
  std::vector<std::uint64_t> got(cases.size());
  fma_chain_kernel(cases, got);
  got[3] ^= 1;  // one wrong bit
  const auto r = check::evaluate_dot(t, cases, got, opts());
  EXPECT_EQ(r.failed, 1u);
  ASSERT_EQ(r.minimal.size(), 1u);
  EXPECT_EQ(r.minimal[0].c, cases[3]);
  EXPECT_THROW(check::evaluate_dot(t, cases, std::span<const std::uint64_t>(got).first(3)), Error);
  cases[0].a.pop_back();
  EXPECT_THROW(check::evaluate_dot(t, cases, got), Error);
  EXPECT_THROW(check::generate(target("fp32", 0)), Error);
  EXPECT_THROW(check::generate(target("fp32", 4097)), Error);
}

// The report step (src/check/report.cpp) keeps the dot report's own bytes: compact JSON, "1 classes".
// A model name with quotes and a backslash is escaped as JSON ("\"", "\\"); one with a byte outside printable
// ASCII is refused, so no report string holds a control character (the hand-derived bytes below).
TEST(CheckDot, ReportKeepsItsLayoutAndEscapesTheModelName) {
  auto t = target("fp32", 4);
  t.model.name = "my \"fp32\" \\ chain";
  const auto cases = check::generate(t, {.seed = 1, .count = 80});
  std::vector<std::uint64_t> got(cases.size());
  fma_chain_kernel(cases, got);
  got[3] ^= 1;
  const auto r = check::evaluate_dot(t, cases, got, opts());
  ASSERT_EQ(r.minimal.size(), 1u);
  const std::string head =
      R"({"target":{"kind":"dot","a":"e4m3fn","b":"e4m3fn","k":4,"model":"my \"fp32\" \\ chain","result":"f32"},)"
      R"("tested":)";
  EXPECT_EQ(r.json().rfind(head, 0), 0u) << r.json();
  EXPECT_NE(r.json().find(R"(,"kernel_calls":0,"minimal":[{"class":")"), std::string::npos) << r.json();
  EXPECT_NE(r.text().find(" cases differ in 1 classes\n"), std::string::npos) << r.text();
  for (const char* bad : {"fp32\n", "fp32\t", "fp32\x7f", "fp\xc3\xa9" "32"}) {
    t.model.name = bad;
    EXPECT_THROW(check::validate(t), Error) << bad;
    EXPECT_THROW(check::evaluate_dot(t, cases, got, opts()), Error) << bad;
  }
}

/// A host GEMM (triple loop, std::fma on floats, the e4m3fn decoder above); `transposed_b` reads B[j][p]
/// for B[p][j] — an indexing bug.
check::GemmKernel host_gemm(bool transposed_b) {
  return [transposed_b](std::size_t m, std::size_t n, std::size_t k, std::span<const std::uint64_t> A,
                        std::span<const std::uint64_t> B, std::span<const std::uint64_t> C, std::span<std::uint64_t> D) {
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        float acc = std::bit_cast<float>(static_cast<std::uint32_t>(C[i * n + j]));
        for (std::size_t p = 0; p < k; ++p) {
          const std::size_t bi = transposed_b ? (j * k + p) % (k * n) : p * n + j;
          acc = std::fma(e4m3fn_decode(A[i * k + p]), e4m3fn_decode(B[bi]), acc);
        }
        D[i * n + j] = std::bit_cast<std::uint32_t>(acc);
      }
  };
}

TEST(CheckDot, SmallGemmKernelsThroughTheDotForm) {
  const auto t = target("fp32", 8);
  const check::DotReport good = check::check_dot(check::gemm_as_dot(host_gemm(false), 16), t, opts(800));
  EXPECT_TRUE(good.ok()) << good.text();
  const check::DotReport bad = check::check_dot(check::gemm_as_dot(host_gemm(true), 16), t, opts(800));
  EXPECT_FALSE(bad.ok());
  const check::DotReport hopper = check::check_dot(check::gemm_as_dot(host_gemm(false), 16), target("hopper-fp8", 8), opts(800));
  EXPECT_FALSE(hopper.ok());
  EXPECT_EQ(hopper.diagnosis.ranked.front().name, "fp32") << hopper.diagnosis.text;
  EXPECT_THROW(check::gemm_as_dot(host_gemm(false), 0), Error);
}

TEST(CheckDot, Fp16DestinationPresetResultFormat) {
  const auto t = target("ada-fp8-f16");
  EXPECT_EQ(check::result_format(t), formats::f16);
  // The overflow class reaches the f16 destination's range: 32 lanes of 448*448 = 6.4e6 > 65504.
  std::size_t inf = 0;
  for (const auto& c : check::generate(t, {.seed = 2, .count = 400}))
    if (c.cls == DotClass::overflow && (check::expected(t, c).code & 0x7fffu) == 0x7c00u) ++inf;
  EXPECT_GT(inf, 5u);
}

}  // namespace
