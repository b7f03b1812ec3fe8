// SPDX-License-Identifier: Apache-2.0
// nvidia_host_test.cpp: differential test of convert() under profiles::nvidia against the CUDA 13 host-side
// conversions of cuda_fp8.hpp / cuda_fp6.hpp / cuda_fp4.hpp (oracle: NVIDIA's header code, no shared code).
//
// Inputs: every f16 and every bf16 bit pattern through every API that accepts them (halfraw, bfloat16raw,
// and widened exactly to float and double), plus about 10^6 floats and 10^6 doubles from a fixed-seed
// generator biased to rounding midpoints ± a few ulps, overflow thresholds, subnormals, ±0, NaN, ±Inf.
//
// Explained differences (counted and printed, not failures), each a documented profile choice:
//   D3/§5.4  The nvidia profile models the CUDA *float* API, which canonicalises every NaN to 0x7FFFFFFF
//            before converting, so FP8 NaN outputs are 0x7f. The *double* API keeps the NaN's sign and,
//            for E5M2, the top two mantissa bits (−qNaN → 0xfe). For NaN inputs of the double API we
//            therefore compare NaN-ness only.
// Anything else is an unexplained mismatch and fails the test.
//
// Host use of the headers: compiled by g++ (__CUDACC__ undefined, no __CUDA_ARCH__) they are plain C++ and
// take their software paths; they need only the toolkit include dir (cudaRoundMode comes in through
// driver_types.h), no cuda_runtime_api.h and no library. They warn under -Wunused-parameter, so the
// include dir is SYSTEM. The device paths (PTX cvt) are not exercised here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/format.hpp"
#include "minifloat/core/profile.hpp"
#include "minifloat/core/rounding.hpp"

#if MINIFLOAT_HAVE_CUDA_FP_HEADERS
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#endif

namespace minifloat_test {
namespace {

using minifloat::Format;
using minifloat::Overflow;
using minifloat::Rounding;
using minifloat::RoundingSpec;
namespace formats = minifloat::formats;

#if MINIFLOAT_HAVE_CUDA_FP_HEADERS

template <class To, class From>
To bits_as(From f) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &f, sizeof t);
  return t;
}

std::string hex(std::uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

// ---- exact widening of f16 / bf16 bit patterns (test-local, independent of the engine) -------------
float f16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const int e = (h >> 10) & 0x1f;
  const std::uint32_t m = h & 0x3ffu;
  if (e == 0x1f) return bits_as<float>(sign | 0x7f800000u | (m << 13));  // Inf, NaN keeps its payload
  const float mag = e == 0 ? std::ldexp(static_cast<float>(m), -24) : std::ldexp(static_cast<float>(m | 0x400u), e - 25);
  return sign ? -mag : mag;
}
float bf16_to_float(std::uint16_t b) { return bits_as<float>(static_cast<std::uint32_t>(b) << 16); }

// ---- deterministic input sample ----------------------------------------------------------------------
/// splitmix64 (fixed algorithm, so the sample is identical on every platform).
struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

/// Positive finite values of a small binary format (E exponent bits, M mantissa bits, bias), up to max,
/// plus the virtual value max + ulp (so the midpoint above max, the overflow threshold, is an anchor).
void grid_values(int e_bits, int m_bits, int bias, double max, std::vector<double>& out) {
  std::vector<double> v;
  for (int e = 0; e < (1 << e_bits); ++e)
    for (int m = 0; m < (1 << m_bits); ++m) {
      const double x = e == 0 ? std::ldexp(m, 1 - bias - m_bits) : std::ldexp((1 << m_bits) + m, e - bias - m_bits);
      if (x <= max) v.push_back(x);
    }
  const double top = v.back();
  v.push_back(top + (top - v[v.size() - 2]));
  for (std::size_t i = 0; i < v.size(); ++i) {
    out.push_back(v[i]);
    if (i + 1 < v.size()) out.push_back((v[i] + v[i + 1]) / 2);
  }
}

/// The anchors: every value and midpoint of E4M3, E5M2, E2M3, E3M2, E2M1; every power of two
/// 2^-150..2^129 and 1.5·2^k (E8M0); thresholds and limits named in spec-digest §1.2/§4.2/§11.
std::vector<double> anchors() {
  std::vector<double> a;
  grid_values(4, 3, 7, 448, a);
  grid_values(5, 2, 15, 57344, a);
  grid_values(2, 3, 1, 7.5, a);
  grid_values(3, 2, 3, 28, a);
  grid_values(2, 1, 1, 6, a);
  for (int k = -150; k <= 129; ++k) {
    a.push_back(std::ldexp(1.0, k));
    a.push_back(std::ldexp(1.5, k));
  }
  for (double t : {464.0, 480.0, 61440.0, 65536.0, 28.0, 30.0, 32.0, 7.5, 7.75, 8.0, 6.0, 7.0, 1.0625,
                   static_cast<double>(std::numeric_limits<float>::max()),
                   static_cast<double>(std::numeric_limits<float>::min()),
                   static_cast<double>(std::numeric_limits<float>::denorm_min())})
    a.push_back(t);
  return a;
}

struct Sample {
  std::vector<float> f;
  std::vector<double> d;
};

/// ~10^6 floats and ~10^6 doubles. Seeds: 0x6e76666c6f617431 (floats), 0x6e76646f75626c65 (doubles).
const Sample& sample() {
  static const Sample s = [] {
    Sample r;
    const std::vector<double> anc = anchors();
    constexpr std::size_t kTarget = 1'000'000;
    // Specials.
    for (std::uint32_t b : {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
                            0xff800001u, 0x7fffffffu, 0xffffffffu, 0x7fa00000u, 0xffa00000u, 0x7fbfffffu, 0x00000001u,
                            0x80000001u, 0x007fffffu, 0x00400000u, 0x00400001u, 0x003fffffu, 0x7f7fffffu, 0xff7fffffu})
      r.f.push_back(bits_as<float>(b));
    for (std::uint64_t b :
         {0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
          0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull, 0xfff0000000000001ull,
          0x7fffffffffffffffull, 0xffffffffffffffffull, 0x7ff4000000000000ull, 0xfff4000000000000ull,
          0x7ffc000000000000ull, 0xfffc000000000000ull, 0x7ff7ffffffffffffull, 0x0000000000000001ull,
          0x8000000000000001ull, 0x000fffffffffffffull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
          0x0010000000000000ull})
      r.d.push_back(bits_as<double>(b));
    r.d.push_back(1.0625 + std::ldexp(1.0, -40));  // spec-digest T11
    r.d.push_back(std::ldexp(1.0, -10) + std::ldexp(1.0, -40));  // T6
    for (double x : {1e300, -1e300, 1e-300, -1e-300, 3.5e38, -3.5e38, 1e-50, -1e-50}) r.d.push_back(x);
    // Anchors ± k ulps (k = 0..4) of the source type, both signs.
    for (double a : anc) {
      const float af = static_cast<float>(a);
      if (static_cast<double>(af) == a && std::isfinite(af)) {
        const std::uint32_t b = bits_as<std::uint32_t>(af);
        for (int k = -4; k <= 4; ++k) {
          const std::int64_t bk = static_cast<std::int64_t>(b) + k;
          if (bk < 0 || bk > 0x7f800000) continue;
          const std::uint32_t u = static_cast<std::uint32_t>(bk);
          r.f.push_back(bits_as<float>(u));
          r.f.push_back(bits_as<float>(u | 0x80000000u));
        }
      }
      const std::uint64_t bd = bits_as<std::uint64_t>(a);
      for (int k = -4; k <= 4; ++k) {
        const std::uint64_t u = bd + static_cast<std::uint64_t>(static_cast<std::int64_t>(k));
        r.d.push_back(bits_as<double>(u));
        r.d.push_back(bits_as<double>(u | 0x8000000000000000ull));
      }
      // Relative offsets a·(1 ± 2^-j): from far away to below one double ulp (exercises the
      // float-vs-double gap where double rounding would bite).
      for (int j = 1; j <= 56; ++j) {
        const double d = std::ldexp(a, -j);
        for (double x : {a + d, a - d}) {
          r.d.push_back(x);
          r.d.push_back(-x);
        }
      }
    }
    // Random fill: near a random anchor (random offset within ±2^(e(a)−s), s = 0..40), log-uniform
    // over the whole range, or raw bit patterns.
    SplitMix64 gf{0x6e76666c6f617431ull}, gd{0x6e76646f75626c65ull};
    auto near_anchor = [&](SplitMix64& g) {
      const double a = anc[g.next() % anc.size()];
      const int sh = static_cast<int>(g.next() % 41);
      const double frac = static_cast<double>(g.next() >> 11) * 0x1p-53 * 2.0 - 1.0;
      const double x = a + std::ldexp(a, -sh) * frac;
      return (g.next() & 1) ? -x : x;
    };
    while (r.f.size() < kTarget) {
      const std::uint64_t pick = gf.next() % 4;
      if (pick <= 1) {
        r.f.push_back(static_cast<float>(near_anchor(gf)));
      } else if (pick == 2) {
        const int e = static_cast<int>(gf.next() % 300) - 160;  // 2^-160 .. 2^139 (float subnormals, Inf)
        const float m = 1.0f + static_cast<float>(gf.next() >> 40) * 0x1p-24f;
        const float x = std::ldexp(m, e);
        r.f.push_back((gf.next() & 1) ? -x : x);
      } else {
        r.f.push_back(bits_as<float>(static_cast<std::uint32_t>(gf.next())));
      }
    }
    while (r.d.size() < kTarget) {
      const std::uint64_t pick = gd.next() % 4;
      if (pick <= 1) {
        r.d.push_back(near_anchor(gd));
      } else if (pick == 2) {
        const int e = static_cast<int>(gd.next() % 340) - 170;
        const double m = 1.0 + static_cast<double>(gd.next() >> 12) * 0x1p-52;
        const double x = std::ldexp(m, e);
        r.d.push_back((gd.next() & 1) ? -x : x);
      } else {
        r.d.push_back(bits_as<double>(gd.next()));
      }
    }
    return r;
  }();
  return s;
}

// ---- comparison bookkeeping --------------------------------------------------------------------------
/// Counts one API × target × mode; keeps the first 8 and the last 4 unexplained mismatches.
struct Tally {
  explicit Tally(std::string w) : what(std::move(w)) {}
  std::string what;
  std::size_t checked = 0, explained = 0, bad = 0;
  std::vector<std::string> first, last;

  void mismatch(const std::string& input, std::uint64_t vendor, std::uint64_t ours, int digits) {
    ++bad;
    std::string line = input + ": cuda " + hex(vendor, digits) + ", ours " + hex(ours, digits);
    if (first.size() < 8) {
      first.push_back(std::move(line));
    } else {
      if (last.size() == 4) last.erase(last.begin());
      last.push_back(std::move(line));
    }
  }
  void report() const {
    std::printf("  %-56s %8zu checked, %5zu NaN-ness only (D3), %zu unexplained\n", what.c_str(), checked, explained,
                bad);
    for (const auto& e : first) std::printf("      MISMATCH %s\n", e.c_str());
    if (bad > first.size() + last.size()) std::printf("      ...\n");
    for (const auto& e : last) std::printf("      MISMATCH %s\n", e.c_str());
    EXPECT_EQ(bad, 0u) << what << ": " << bad << " unexplained mismatches (first: "
                       << (first.empty() ? "" : first.front()) << ")";
  }
};

bool is_nan_code(Format f, std::uint64_t c) { return minifloat::classify(f, c) == minifloat::Class::nan; }

/// One API of one target and mode: every f16/bf16 input of the narrow API, and (for the float / double
/// APIs) the widened f16/bf16 patterns plus the sample. `vendor_*` may be null when the API is absent.
struct Api {
  std::function<std::uint64_t(std::uint16_t)> half;   // __nv_cvt_halfraw_to_*
  std::function<std::uint64_t(std::uint16_t)> bf16;   // __nv_cvt_bfloat16raw_to_*
  std::function<std::uint64_t(float)> flt;            // __nv_cvt_float_to_*
  std::function<std::uint64_t(double)> dbl;           // __nv_cvt_double_to_*
};

void run_all(const std::string& name, Format to, RoundingSpec spec, const Api& api) {
  const auto& prof = minifloat::profiles::nvidia;
  const int digits = (to.bits + 3) / 4;
  auto ours = [&](Format from, std::uint64_t bits) { return minifloat::convert(from, bits, to, spec, prof).code; };

  if (api.half) {
    Tally t{name + " halfraw (all 2^16)"};
    for (std::uint32_t h = 0; h < 65536; ++h) {
      const auto v = api.half(static_cast<std::uint16_t>(h));
      const auto o = ours(formats::f16, h);
      ++t.checked;
      if (v != o) t.mismatch("f16 " + hex(h, 4), v, o, digits);
    }
    t.report();
  }
  if (api.bf16) {
    Tally t{name + " bfloat16raw (all 2^16)"};
    for (std::uint32_t b = 0; b < 65536; ++b) {
      const auto v = api.bf16(static_cast<std::uint16_t>(b));
      const auto o = ours(formats::bf16, b);
      ++t.checked;
      if (v != o) t.mismatch("bf16 " + hex(b, 4), v, o, digits);
    }
    t.report();
  }
  const auto& s = sample();
  if (api.flt) {
    Tally t{name + " float (f16+bf16 widened, sample)"};
    auto one = [&](float x) {
      const std::uint32_t b = bits_as<std::uint32_t>(x);
      const auto v = api.flt(x);
      const auto o = ours(formats::f32, b);
      ++t.checked;
      if (v != o) t.mismatch("f32 " + hex(b, 8), v, o, digits);
    };
    for (std::uint32_t h = 0; h < 65536; ++h) one(f16_to_float(static_cast<std::uint16_t>(h)));
    for (std::uint32_t h = 0; h < 65536; ++h) one(bf16_to_float(static_cast<std::uint16_t>(h)));
    for (float x : s.f) one(x);
    t.report();
  }
  if (api.dbl) {
    Tally t{name + " double (f16+bf16 widened, sample)"};
    auto one = [&](double x) {
      const std::uint64_t b = bits_as<std::uint64_t>(x);
      const auto v = api.dbl(x);
      const auto o = ours(formats::f64, b);
      ++t.checked;
      if (v == o) return;
      // D3 (§5.4): the double API keeps the NaN sign/payload; the nvidia profile models the float API.
      if (std::isnan(x) && minifloat::has_nan(to) && is_nan_code(to, v) && is_nan_code(to, o)) {
        ++t.explained;
        return;
      }
      t.mismatch("f64 " + hex(b, 16), v, o, digits);
    };
    for (std::uint32_t h = 0; h < 65536; ++h) one(static_cast<double>(f16_to_float(static_cast<std::uint16_t>(h))));
    for (std::uint32_t h = 0; h < 65536; ++h) one(static_cast<double>(bf16_to_float(static_cast<std::uint16_t>(h))));
    for (double x : s.d) one(x);
    t.report();
  }
}

const char* sat_name(__nv_saturation_t s) { return s == __NV_SATFINITE ? "satfinite" : "nonsat"; }
Overflow sat_policy(__nv_saturation_t s) { return s == __NV_SATFINITE ? Overflow::satfinite : Overflow::nonsat; }

void fp8_case(__nv_fp8_interpretation_t kind, Format to, const char* kname) {
  for (__nv_saturation_t sat : {__NV_SATFINITE, __NV_NOSAT}) {
    Api api;
    api.half = [=](std::uint16_t h) {
      __half_raw r;
      r.x = h;
      return std::uint64_t{__nv_cvt_halfraw_to_fp8(r, sat, kind)};
    };
    api.bf16 = [=](std::uint16_t b) {
      __nv_bfloat16_raw r;
      r.x = b;
      return std::uint64_t{__nv_cvt_bfloat16raw_to_fp8(r, sat, kind)};
    };
    api.flt = [=](float x) { return std::uint64_t{__nv_cvt_float_to_fp8(x, sat, kind)}; };
    api.dbl = [=](double x) { return std::uint64_t{__nv_cvt_double_to_fp8(x, sat, kind)}; };
    run_all(std::string(kname) + " rne " + sat_name(sat), to, RoundingSpec{Rounding::rne, sat_policy(sat)}, api);
  }
}

/// FP6/FP4 have no Inf/NaN, so CUDA always saturates; our nonsat and satfinite must both agree.
template <class Kind, class CvtH, class CvtB, class CvtF, class CvtD>
void fp6_fp4_case(Kind kind, Format to, const char* kname, CvtH cvt_h, CvtB cvt_b, CvtF cvt_f, CvtD cvt_d) {
  for (cudaRoundMode rm : {cudaRoundNearest, cudaRoundZero}) {
    for (Overflow ov : {Overflow::satfinite, Overflow::nonsat}) {
      Api api;
      api.half = [=](std::uint16_t h) {
        __half_raw r;
        r.x = h;
        return std::uint64_t{cvt_h(r, kind, rm)};
      };
      api.bf16 = [=](std::uint16_t b) {
        __nv_bfloat16_raw r;
        r.x = b;
        return std::uint64_t{cvt_b(r, kind, rm)};
      };
      api.flt = [=](float x) { return std::uint64_t{cvt_f(x, kind, rm)}; };
      api.dbl = [=](double x) { return std::uint64_t{cvt_d(x, kind, rm)}; };
      const Rounding r = rm == cudaRoundNearest ? Rounding::rne : Rounding::rtz;
      run_all(std::string(kname) + (r == Rounding::rne ? " rne " : " rtz ") +
                  (ov == Overflow::satfinite ? "satfinite" : "nonsat"),
              to, RoundingSpec{r, ov}, api);
    }
  }
}

TEST(NvidiaHostOracle, Fp8E4M3) { fp8_case(__NV_E4M3, formats::e4m3fn, "e4m3fn"); }
TEST(NvidiaHostOracle, Fp8E5M2) { fp8_case(__NV_E5M2, formats::e5m2, "e5m2"); }

TEST(NvidiaHostOracle, Fp6E2M3) {
  fp6_fp4_case(__NV_E2M3, formats::e2m3fn, "e2m3fn", __nv_cvt_halfraw_to_fp6, __nv_cvt_bfloat16raw_to_fp6,
               __nv_cvt_float_to_fp6, __nv_cvt_double_to_fp6);
}
TEST(NvidiaHostOracle, Fp6E3M2) {
  fp6_fp4_case(__NV_E3M2, formats::e3m2fn, "e3m2fn", __nv_cvt_halfraw_to_fp6, __nv_cvt_bfloat16raw_to_fp6,
               __nv_cvt_float_to_fp6, __nv_cvt_double_to_fp6);
}
TEST(NvidiaHostOracle, Fp4E2M1) {
  fp6_fp4_case(__NV_E2M1, formats::e2m1fn, "e2m1fn", __nv_cvt_halfraw_to_fp4, __nv_cvt_bfloat16raw_to_fp4,
               __nv_cvt_float_to_fp4, __nv_cvt_double_to_fp4);
}

/// E8M0: cudaRoundZero / cudaRoundPosInf only (the header asserts), × SATFINITE / NOSAT, float, double
/// and bfloat16raw sources (there is no halfraw → e8m0 API).
TEST(NvidiaHostOracle, E8M0) {
  for (cudaRoundMode rm : {cudaRoundZero, cudaRoundPosInf}) {
    for (__nv_saturation_t sat : {__NV_SATFINITE, __NV_NOSAT}) {
      Api api;
      api.bf16 = [=](std::uint16_t b) {
        __nv_bfloat16_raw r;
        r.x = b;
        return std::uint64_t{__nv_cvt_bfloat16raw_to_e8m0(r, sat, rm)};
      };
      api.flt = [=](float x) { return std::uint64_t{__nv_cvt_float_to_e8m0(x, sat, rm)}; };
      api.dbl = [=](double x) { return std::uint64_t{__nv_cvt_double_to_e8m0(x, sat, rm)}; };
      const Rounding r = rm == cudaRoundZero ? Rounding::rtz : Rounding::rtp;
      run_all(std::string("e8m0fnu ") + (r == Rounding::rtz ? "rtz " : "rtp ") + sat_name(sat), formats::e8m0fnu,
              RoundingSpec{r, sat_policy(sat)}, api);
    }
  }
}

/// Decode: every code → half (FP8/FP6/FP4) or bf16 (E8M0), compared bit for bit (NaN codes included:
/// the nvidia profile's canonical NaN is positive, all magnitude bits set, 0x7fff, as CUDA's).
TEST(NvidiaHostOracle, DecodeEveryCode) {
  struct D {
    const char* name;
    Format from;
    Format to;
    std::function<std::uint16_t(unsigned)> vendor;
  };
  const std::vector<D> cases{
      {"e4m3fn -> f16", formats::e4m3fn, formats::f16,
       [](unsigned c) { return __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(c), __NV_E4M3).x; }},
      {"e5m2 -> f16", formats::e5m2, formats::f16,
       [](unsigned c) { return __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(c), __NV_E5M2).x; }},
      {"e2m3fn -> f16", formats::e2m3fn, formats::f16,
       [](unsigned c) { return __nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(c), __NV_E2M3).x; }},
      {"e3m2fn -> f16", formats::e3m2fn, formats::f16,
       [](unsigned c) { return __nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(c), __NV_E3M2).x; }},
      {"e2m1fn -> f16", formats::e2m1fn, formats::f16,
       [](unsigned c) { return __nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(c), __NV_E2M1).x; }},
      {"e8m0fnu -> bf16", formats::e8m0fnu, formats::bf16,
       [](unsigned c) { return __nv_cvt_e8m0_to_bf16raw(static_cast<__nv_fp8_storage_t>(c)).x; }},
  };
  for (const auto& c : cases) {
    Tally t{std::string("decode ") + c.name};
    for (unsigned code = 0; code < (1u << c.from.bits); ++code) {
      const std::uint64_t v = c.vendor(code);
      const std::uint64_t o =
          minifloat::convert(c.from, code, c.to, RoundingSpec{}, minifloat::profiles::nvidia).code;
      ++t.checked;
      if (v != o) t.mismatch("code " + hex(code, 2), v, o, 4);
    }
    t.report();
  }
}

/// Spec-digest literals the oracle itself must reproduce (guards against a misconfigured header).
TEST(NvidiaHostOracle, OracleSanity) {
  EXPECT_EQ(__nv_cvt_float_to_fp8(464.0f, __NV_NOSAT, __NV_E4M3), 0x7e);                              // T1
  EXPECT_EQ(__nv_cvt_float_to_fp8(bits_as<float>(0x43e80001u), __NV_NOSAT, __NV_E4M3), 0x7f);         // T2
  EXPECT_EQ(__nv_cvt_float_to_fp8(61440.0f, __NV_NOSAT, __NV_E5M2), 0x7c);                            // T3
  EXPECT_EQ(__nv_cvt_float_to_fp8(bits_as<float>(0xffc00000u), __NV_NOSAT, __NV_E5M2), 0x7f);         // T5
  EXPECT_EQ(__nv_cvt_double_to_fp8(1.0625 + std::ldexp(1.0, -40), __NV_NOSAT, __NV_E4M3), 0x39);      // T11
  EXPECT_EQ(__nv_cvt_float_to_fp6(7.75f, __NV_E3M2, cudaRoundNearest), 0x18);                         // T26
  EXPECT_EQ(__nv_cvt_float_to_fp6(7.75f, __NV_E3M2, cudaRoundZero), 0x17);                            // T26
  EXPECT_EQ(__nv_cvt_float_to_e8m0(-4.0f, __NV_SATFINITE, cudaRoundZero), 0x81);                      // T10
  EXPECT_EQ(__nv_cvt_float_to_e8m0(bits_as<float>(0x7f7fffffu), __NV_NOSAT, cudaRoundPosInf), 0xff);  // T23
  EXPECT_EQ(__nv_cvt_float_to_e8m0(bits_as<float>(0x00400001u), __NV_NOSAT, cudaRoundPosInf), 0x01);  // T24
}

#else  // !MINIFLOAT_HAVE_CUDA_FP_HEADERS

TEST(NvidiaHostOracle, Skipped) { GTEST_SKIP() << MINIFLOAT_CUDA_SKIP_REASON; }

#endif

}  // namespace
}  // namespace minifloat_test
