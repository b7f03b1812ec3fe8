// SPDX-License-Identifier: Apache-2.0
// cuda_host_test.cpp (label cuda-host): the CUDA kernels' bodies, run by the CPU launcher over the
// kernels' grid (cuda/api.hpp cpu::), give exactly the compiled library's results:
//   - every f16 and bf16 input × every ≤ 8-bit named format × every mode × every policy
//     (oracle: convert_span.hpp's convert_f16_bits / convert_bf16_bits);
//   - 2^24 structured f32 inputs (every top-16-bit prefix × 256 low halves: the six tie/neighbour
//     patterns of the sweep and 250 fixed pseudo-random ones) through every ≤ 8-bit format in rne and
//     rtz (oracle: convert_f32);
//   - SR streams for three seeds (oracle: stochastic.hpp sr_convert_f32, same (seed, stream, step, index));
//   - decoding every code (oracle: decode_to_f32 and the scalar engine);
//   - the hardware path's model against NVIDIA's own host conversions (cuda_fp8/fp6/fp4.hpp, whose
//     software paths are what the instructions are documented to do), and its refusals;
//   - the sweep chunk digest against its written definition (FNV-1a 64 computed here from the constants).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/cuda/api.hpp"
#include "minifloat/error.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/stochastic.hpp"

#if MINIFLOAT_HAVE_CUDA_FP_HEADERS
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#endif

namespace {

namespace mf = minifloat;
namespace mc = minifloat::cuda;
namespace formats = minifloat::formats;

constexpr unsigned kThreads = 2;

const std::vector<std::pair<const char*, mf::Format>>& small_formats() {
  static const std::vector<std::pair<const char*, mf::Format>> v = [] {  // the kArrayPath rows
    std::vector<std::pair<const char*, mf::Format>> out;
    for (const auto& r : mf::kNamedFormats)
      if (r.paths & mf::kArrayPath) out.emplace_back(r.name, r.format);
    return out;
  }();
  return v;
}
constexpr mf::Rounding kModes[] = {mf::Rounding::rne, mf::Rounding::rna, mf::Rounding::rtz,
                                   mf::Rounding::rtp, mf::Rounding::rtn, mf::Rounding::rto};
constexpr mf::Overflow kPolicies[] = {mf::Overflow::nonsat, mf::Overflow::satfinite, mf::Overflow::satpropagate};

std::size_t count_diff(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b, std::size_t& first) {
  std::size_t n = 0;
  first = a.size();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) {
      if (n == 0) first = i;
      ++n;
    }
  return n;
}

TEST(CudaHost, EveryF16AndBf16InputEveryFormatModePolicy) {
  std::vector<std::uint16_t> in(1u << 16);
  for (std::uint32_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint16_t>(i);
  std::vector<std::uint8_t> got(in.size()), want(in.size());
  std::size_t combos = 0;
  for (const mf::Format src : {formats::f16, formats::bf16})
    for (const auto& [name, fmt] : small_formats())
      for (const mf::Rounding m : kModes)
        for (const mf::Overflow p : kPolicies) {
          mc::ConvertRequest r;
          r.from = src;
          r.to = fmt;
          r.spec = {m, p};
          mc::cpu::convert(in.data(), got.data(), nullptr, in.size(), r, kThreads);
          if (src == formats::f16)
            mf::convert_f16_bits(in, want, fmt, r.spec);
          else
            mf::convert_bf16_bits(in, want, fmt, r.spec);
          std::size_t first = 0;
          ASSERT_EQ(count_diff(got, want, first), 0u)
              << mf::format_name(src) << " -> " << name << " " << mf::rounding_name(m) << " " << mf::overflow_name(p)
              << ": first input 0x" << std::hex << first << " kernel 0x" << int{got[first]} << " library 0x"
              << int{want[first]};
          ++combos;
        }
  EXPECT_EQ(combos, 2u * 13 * 6 * 3);  // 13 array-path formats (ue5m3 the 13th, issue 25)
}

TEST(CudaHost, StructuredF32TwoToThe24InRneAndRtz) {
  std::vector<std::uint32_t> low = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
  std::uint32_t s = 0x2545f491u;
  while (low.size() < 256) {
    s = s * 1664525u + 1013904223u;
    low.push_back(s >> 16);
  }
  std::vector<float> in(std::size_t{1} << 24);
  for (std::uint32_t hi = 0; hi < (1u << 16); ++hi)
    for (std::uint32_t k = 0; k < 256; ++k) {
      const std::uint32_t bits = (hi << 16) | low[k];
      std::memcpy(&in[(std::size_t{hi} << 8) | k], &bits, 4);
    }
  std::vector<std::uint8_t> got(in.size()), want(in.size());
  for (const auto& [name, fmt] : small_formats())
    for (const mf::Rounding m : {mf::Rounding::rne, mf::Rounding::rtz}) {
      mc::ConvertRequest r;
      r.from = formats::f32;
      r.to = fmt;
      r.spec = {m, mf::Overflow::nonsat};
      mc::cpu::convert(in.data(), got.data(), nullptr, in.size(), r, kThreads);
      {  // the library on the same number of threads, over contiguous halves (its own API, independent of the launcher)
        const std::size_t half = in.size() / 2;
        const mf::RoundingSpec spec = r.spec;
        const mf::Format f = fmt;
        std::thread t([&] { mf::convert_f32(std::span(in).subspan(half), std::span(want).subspan(half), f, spec); });
        mf::convert_f32(std::span(in).first(half), std::span(want).first(half), f, spec);
        t.join();
      }
      std::size_t first = 0;
      ASSERT_EQ(count_diff(got, want, first), 0u) << "f32 -> " << name << " " << mf::rounding_name(m) << ": first index " << first;
    }
}

TEST(CudaHost, SrStreamsForThreeSeedsEqualStochasticHpp) {
  const std::size_t n = std::size_t{1} << 18;
  std::vector<float> in(n);
  std::uint32_t s = 12345;
  for (auto& v : in) {
    s = s * 1664525u + 1013904223u;
    const std::uint32_t bits = (s & 0x807fffffu) | ((118u + (s >> 23) % 22u) << 23);  // |x| in [2^-9, 2^12)
    std::memcpy(&v, &bits, 4);
  }
  std::size_t cases = 0;
  for (const std::uint64_t seed : {0ull, 42ull, 0x0123456789abcdefull})
    for (const mf::Format to : {formats::e4m3fn, formats::e5m2, formats::e2m1fn})
      for (const mf::SrVariant var : {mf::SrVariant::exact, mf::SrVariant::a, mf::SrVariant::c}) {
        mc::ConvertRequest r;
        r.from = formats::f32;
        r.to = to;
        r.spec = {mf::Rounding::sr, mf::Overflow::satfinite};
        r.spec.sr_variant = var;
        r.spec.sr_bits = 13;
        r.sr = {seed, 7, 3, 1u << 20};
        std::vector<std::uint8_t> got(n), want(n);
        mc::cpu::convert(in.data(), got.data(), nullptr, n, r, kThreads);
        const mf::SrStream st{seed, 7, 3, 1u << 20};
        mf::sr_convert_f32(in, want, to, r.spec, st, mf::profiles::ocp, 1);
        std::size_t first = 0;
        ASSERT_EQ(count_diff(got, want, first), 0u) << "seed " << seed << " " << mf::format_name(to) << " variant "
                                                    << mf::sr_variant_name(var) << ": first index " << first;
        ++cases;
      }
  // 16-bit target: bf16
  std::vector<std::uint16_t> g16(n), w16(n);
  mc::ConvertRequest r;
  r.from = formats::f32;
  r.to = formats::bf16;
  r.spec = {mf::Rounding::sr, mf::Overflow::nonsat};
  r.sr = {99, 1, 2, 0};
  mc::cpu::convert(in.data(), g16.data(), nullptr, n, r, kThreads);
  mf::sr_convert_f32(in, w16, formats::bf16, r.spec, mf::SrStream{99, 1, 2, 0}, mf::profiles::ocp, 1);
  EXPECT_EQ(g16, w16);
  EXPECT_EQ(cases, 27u);
}

TEST(CudaHost, DecodeEveryCodeToF32F16Bf16) {
  for (const auto& [name, fmt] : small_formats()) {
    const std::size_t n = std::size_t{1} << fmt.bits;
    std::vector<std::uint8_t> codes(n);
    for (std::size_t i = 0; i < n; ++i) codes[i] = static_cast<std::uint8_t>(i);
    std::vector<float> got(n), want(n);
    mc::ConvertRequest r;
    r.from = fmt;
    r.to = formats::f32;
    r.spec = {mf::Rounding::rne, mf::Overflow::nonsat};
    mc::cpu::convert(codes.data(), got.data(), nullptr, n, r, kThreads);
    mf::decode_to_f32(codes, want, fmt);
    ASSERT_EQ(std::memcmp(got.data(), want.data(), n * 4), 0) << name << " -> f32";
    for (const mf::Format t : {formats::f16, formats::bf16}) {
      std::vector<std::uint16_t> g16(n);
      r.to = t;
      mc::cpu::convert(codes.data(), g16.data(), nullptr, n, r, kThreads);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(g16[i], mf::convert(fmt, i, t, r.spec).code) << name << " code " << i << " -> " << mf::format_name(t);
    }
  }
}

TEST(CudaHost, LauncherGivesTheSameCodesForAnyThreadCountAndFlags) {
  const std::size_t n = 100003;  // not a multiple of the block size
  std::vector<float> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i) * 0.0137f - 600.0f;
  mc::ConvertRequest r;
  r.to = formats::e4m3fn;
  r.spec = {mf::Rounding::rne, mf::Overflow::nonsat};
  std::vector<std::uint8_t> a(n), b(n), fa(n), fb(n);
  mc::cpu::convert(in.data(), a.data(), fa.data(), n, r, 1);
  mc::cpu::convert(in.data(), b.data(), fb.data(), n, r, 3);
  EXPECT_EQ(a, b);
  EXPECT_EQ(fa, fb);
  for (std::size_t i = 0; i < n; i += 997) {
    const mf::RoundResult e = mf::from_float(in[i], formats::e4m3fn, r.spec);
    ASSERT_EQ(a[i], e.code);
    ASSERT_EQ(fa[i], static_cast<std::uint8_t>(e.flags));
  }
}

// ---- the hardware path ------------------------------------------------------------------------

std::vector<float> structured_f32() {
  std::vector<float> v;
  for (std::uint64_t i = 0; i < mf::sweep_input_count(mf::SweepSampling::structured, 1); ++i) {
    const std::uint32_t b = mf::sweep_input(mf::SweepSampling::structured, 1, i);
    float f;
    std::memcpy(&f, &b, 4);
    v.push_back(f);
  }
  return v;
}

std::vector<std::uint8_t> hardware(const std::vector<float>& in, mf::Format to, mf::RoundingSpec spec, mc::Relu relu) {
  mc::ConvertRequest r;
  r.from = formats::f32;
  r.to = to;
  r.spec = spec;
  r.profile = mf::profiles::nvidia;
  r.path = mc::Path::hardware;
  r.relu = relu;
  std::vector<std::uint8_t> out(in.size());
  mc::cpu::convert(in.data(), out.data(), nullptr, in.size(), r, kThreads);
  return out;
}

TEST(CudaHost, HardwareModelEqualsNvidiaHostConversions) {
#if !MINIFLOAT_HAVE_CUDA_FP_HEADERS
  GTEST_SKIP() << "CUDA fp8/fp6/fp4 headers not found: " << MINIFLOAT_CUDA_SKIP_REASON;
#else
  const std::vector<float> x = structured_f32();
  const mf::RoundingSpec rn_sat{mf::Rounding::rne, mf::Overflow::satfinite};
  struct Case {
    mf::Format to;
    mf::RoundingSpec spec;
    std::uint8_t (*nv)(float);
    const char* what;
  };
  const Case cases[] = {
      {formats::e4m3fn, rn_sat, [](float f) { return std::uint8_t{__nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3)}; }, "e4m3x2"},
      {formats::e5m2, rn_sat, [](float f) { return std::uint8_t{__nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2)}; }, "e5m2x2"},
      {formats::e2m1fn, rn_sat, [](float f) { return std::uint8_t{__nv_cvt_float_to_fp4(f, __NV_E2M1, cudaRoundNearest)}; }, "e2m1x2"},
      {formats::e2m3fn, rn_sat, [](float f) { return std::uint8_t{__nv_cvt_float_to_fp6(f, __NV_E2M3, cudaRoundNearest)}; }, "e2m3x2"},
      {formats::e3m2fn, rn_sat, [](float f) { return std::uint8_t{__nv_cvt_float_to_fp6(f, __NV_E3M2, cudaRoundNearest)}; }, "e3m2x2"},
      {formats::e8m0fnu, {mf::Rounding::rtz, mf::Overflow::satfinite},
       [](float f) { return std::uint8_t{__nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundZero)}; }, "ue8m0x2 rz satfinite"},
      {formats::e8m0fnu, {mf::Rounding::rtz, mf::Overflow::nonsat},
       [](float f) { return std::uint8_t{__nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundZero)}; }, "ue8m0x2 rz"},
      {formats::e8m0fnu, {mf::Rounding::rtp, mf::Overflow::satfinite},
       [](float f) { return std::uint8_t{__nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf)}; }, "ue8m0x2 rp satfinite"},
      {formats::e8m0fnu, {mf::Rounding::rtp, mf::Overflow::nonsat},
       [](float f) { return std::uint8_t{__nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundPosInf)}; }, "ue8m0x2 rp"},
  };
  for (const Case& c : cases) {
    const std::vector<std::uint8_t> got = hardware(x, c.to, c.spec, mc::Relu::off);
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (got[i] != c.nv(x[i]) && bad++ == 0) first = i;
    std::uint32_t fb;
    std::memcpy(&fb, &x[first], 4);
    EXPECT_EQ(bad, 0u) << c.what << ": first input 0x" << std::hex << fb << " model 0x" << int{got[first]}
                       << " NVIDIA host 0x" << int{c.nv(x[first])};
  }
  // f16x2 forms: every f16 input.
  std::vector<std::uint16_t> h(1u << 16);
  for (std::uint32_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint16_t>(i);
  for (const auto& [to, kind] : {std::pair{formats::e4m3fn, __NV_E4M3}, std::pair{formats::e5m2, __NV_E5M2}}) {
    mc::ConvertRequest r;
    r.from = formats::f16;
    r.to = to;
    r.spec = rn_sat;
    r.profile = mf::profiles::nvidia;
    r.path = mc::Path::hardware;
    EXPECT_EQ(mc::hardware_cvt(r), to == formats::e4m3fn ? mc::HwCvt::e4m3x2_f16x2_rn_satfinite : mc::HwCvt::e5m2x2_f16x2_rn_satfinite);
    std::vector<std::uint8_t> got(h.size());
    mc::cpu::convert(h.data(), got.data(), nullptr, h.size(), r, kThreads);
    for (std::uint32_t i = 0; i < h.size(); ++i) {
      __half_raw hr;
      hr.x = h[i];
      ASSERT_EQ(got[i], std::uint8_t{__nv_cvt_halfraw_to_fp8(hr, __NV_SATFINITE, kind)}) << "f16 0x" << std::hex << i;
    }
  }
#endif
}

TEST(CudaHost, HardwareReluModelZeroesNegativeResultsOnly) {
  const std::vector<float> x = structured_f32();
  for (const mf::Format to : {formats::e4m3fn, formats::e5m2, formats::e2m1fn}) {
    const mf::RoundingSpec spec{mf::Rounding::rne, mf::Overflow::satfinite};
    const std::vector<std::uint8_t> plain = hardware(x, to, spec, mc::Relu::off);
    const std::vector<std::uint8_t> relu = hardware(x, to, spec, mc::Relu::on);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const bool nan = x[i] != x[i];
      const bool neg_result = (plain[i] & mf::sign_mask(to)) != 0 && mf::classify(to, plain[i]) != mf::Class::nan;
      ASSERT_EQ(relu[i], neg_result && !nan ? 0 : plain[i]) << mf::format_name(to) << " input " << x[i];
    }
  }
}

TEST(CudaHost, HardwarePathRefusesWhatTheInstructionLacks) {
  auto req = [](mf::Format from, mf::Format to, mf::RoundingSpec spec, mf::Profile prof, mc::Relu relu = mc::Relu::off) {
    mc::ConvertRequest r;
    r.from = from;
    r.to = to;
    r.spec = spec;
    r.profile = prof;
    r.path = mc::Path::hardware;
    r.relu = relu;
    return r;
  };
  const mf::RoundingSpec rn_sat{mf::Rounding::rne, mf::Overflow::satfinite};
  const auto refused = [](const mc::ConvertRequest& r, const std::string& needle) {
    try {
      mc::validate(r);
    } catch (const mf::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      return true;
    }
    return false;
  };
  EXPECT_TRUE(refused(req(formats::f32, formats::e4m3fn, {mf::Rounding::rtz, mf::Overflow::satfinite}, mf::profiles::nvidia), "accepted: rne"));
  EXPECT_TRUE(refused(req(formats::f32, formats::e4m3fn, {mf::Rounding::rne, mf::Overflow::nonsat}, mf::profiles::nvidia), ".satfinite only"));
  EXPECT_TRUE(refused(req(formats::f32, formats::e4m3fn, rn_sat, mf::profiles::ocp), "profile nvidia"));
  EXPECT_TRUE(refused(req(formats::f32, formats::e4m3fnuz, rn_sat, mf::profiles::nvidia), "no PTX cvt"));
  EXPECT_TRUE(refused(req(formats::f64, formats::e4m3fn, rn_sat, mf::profiles::nvidia), "no PTX cvt"));
  EXPECT_TRUE(refused(req(formats::f32, formats::e4m3fn, {mf::Rounding::sr, mf::Overflow::satfinite}, mf::profiles::nvidia), "cvt.rs"));
  EXPECT_TRUE(refused(req(formats::f32, formats::e8m0fnu, rn_sat, mf::profiles::nvidia), "accepted: rtz rtp"));
  EXPECT_TRUE(refused(req(formats::f32, formats::e8m0fnu, {mf::Rounding::rtp, mf::Overflow::satfinite}, mf::profiles::nvidia, mc::Relu::on), "no .relu"));
  EXPECT_TRUE(refused(req(formats::bf16, formats::e8m0fnu, {mf::Rounding::rtz, mf::Overflow::satfinite}, mf::profiles::nvidia), "rtp satfinite"));
  mc::ConvertRequest engine_relu;
  engine_relu.relu = mc::Relu::on;
  EXPECT_TRUE(refused(engine_relu, "hardware path's .relu"));
  mc::ConvertRequest wide;
  wide.from = formats::f32;
  wide.to = formats::f64;
  EXPECT_TRUE(refused(wide, "engine path"));
  EXPECT_FALSE(refused(req(formats::f32, formats::e2m1fn, rn_sat, mf::profiles::nvidia), ""));
  EXPECT_EQ(mc::ptx_name(mc::hardware_cvt(req(formats::f32, formats::e2m1fn, rn_sat, mf::profiles::nvidia))),
            "cvt.rn.satfinite.e2m1x2.f32");
}

// ---- the sweep digest ---------------------------------------------------------------------------

TEST(CudaHost, SweepChunkDigestsFollowTheWrittenDefinition) {
  struct Case {
    mf::Format to;
    mf::RoundingSpec spec;
    mf::SweepSampling sampling;
    std::uint64_t stride;
  };
  for (const Case& c : {Case{formats::e4m3fn, {mf::Rounding::rne, mf::Overflow::nonsat}, mf::SweepSampling::structured, 1},
                        Case{formats::e2m1fn, {mf::Rounding::rtz, mf::Overflow::satfinite}, mf::SweepSampling::strided, 4099}}) {
    const std::uint64_t chunks = mc::sweep_chunks(c.sampling, c.stride);
    std::vector<std::uint64_t> d(chunks);
    mc::cpu::sweep_chunk_digests(c.to, c.spec, mf::profiles::ocp, c.sampling, c.stride, d.data(), kThreads);
    // The definition, spelled out: FNV-1a 64 over the code bytes of each 65536-input chunk, then over
    // the chunk digests' little-endian bytes.
    const std::uint64_t count = c.sampling == mf::SweepSampling::structured ? 393216 : (4294967296ull + c.stride - 1) / c.stride;
    static constexpr std::uint32_t kLow[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
    std::uint64_t total = 0xcbf29ce484222325ull;
    for (std::uint64_t k = 0; k * 65536 < count; ++k) {
      std::uint64_t h = 0xcbf29ce484222325ull;
      for (std::uint64_t i = k * 65536; i < count && i < (k + 1) * 65536; ++i) {
        const std::uint32_t bits = c.sampling == mf::SweepSampling::structured
                                       ? static_cast<std::uint32_t>(((i / 6) << 16) | kLow[i % 6])
                                       : static_cast<std::uint32_t>(i * c.stride);
        h = (h ^ (mf::convert(formats::f32, bits, c.to, c.spec).code & 0xff)) * 0x100000001b3ull;
      }
      ASSERT_EQ(d[k], h) << "chunk " << k;
      for (int b = 0; b < 8; ++b) total = (total ^ ((h >> (8 * b)) & 0xff)) * 0x100000001b3ull;
    }
    EXPECT_EQ(mc::combine_chunk_digests(d.data(), chunks), total);
  }
}

TEST(CudaHost, GoldenDigestFileIsWellFormed) {
  std::ifstream in(MINIFLOAT_GOLDEN_DIGESTS);
  ASSERT_TRUE(in) << "cannot read " << MINIFLOAT_GOLDEN_DIGESTS;
  std::set<std::string> seen;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string f, m, p, d;
    ASSERT_TRUE(ls >> f >> m >> p >> d) << line;
    EXPECT_NO_THROW((void)mf::parse_format(f)) << line;
    EXPECT_NO_THROW((void)mf::parse<mf::Rounding>(m)) << line;
    EXPECT_NO_THROW((void)mf::parse<mf::Overflow>(p)) << line;
    EXPECT_EQ(d.size(), 16u) << line;
    EXPECT_EQ(d.find_first_not_of("0123456789abcdef"), std::string::npos) << line;
    EXPECT_TRUE(seen.insert(f + " " + m + " " + p).second) << "duplicate: " << line;
  }
  EXPECT_GE(seen.size(), 1u);
}

}  // namespace
