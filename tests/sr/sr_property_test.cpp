// SPDX-License-Identifier: Apache-2.0
// sr_property_test.cpp: stochastic rounding over many inputs: structure (every result is RD(x) or
// RU(x) — by the engine's rtn/rtp AND by the independent grid oracle grid_oracle.hpp —, representable
// values never move, SR(−x) = −SR(x)), statistics with binomial bounds (E[SR(x)] = x for the exact
// variant; T17 bias of A/B/C), and reproducibility over thread counts and chunkings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "grid_oracle.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/minifloat.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/stochastic.hpp"

namespace {
using namespace minifloat;
using minifloat_test::grid_formats;
using minifloat_test::grid_fraction;
using minifloat_test::grid_neighbours;
using minifloat_test::grid_values;
using minifloat_test::GridFormat;

// ---- structure ---------------------------------------------------------------------------------

enum class Src { f64, f32, f16, bf16, e5m2 };
const char* src_name(Src s) {
  switch (s) {
    case Src::f64: return "f64";
    case Src::f32: return "f32";
    case Src::f16: return "f16";
    case Src::bf16: return "bf16";
    case Src::e5m2: return "e5m2";
  }
  return "?";
}
Format src_format(Src s) {
  switch (s) {
    case Src::f64: return formats::f64;
    case Src::f32: return formats::f32;
    case Src::f16: return formats::f16;
    case Src::bf16: return formats::bf16;
    case Src::e5m2: return formats::e5m2;
  }
  return formats::f64;
}

/// A random source code whose value lies around the target's range (and its value as a double,
/// computed without minifloat: C++ casts and the IEEE field formula).
struct Input {
  std::uint64_t code;
  double value;
};
Input random_input(Src s, const GridFormat& g, std::mt19937_64& rng) {
  const int emin = 1 - g.bias - g.mbits - 3;
  const int emax = static_cast<int>(std::floor(std::log2(g.max))) + 3;
  std::uniform_int_distribution<int> ed(emin, emax);
  const std::uint64_t r = rng();
  const bool neg = r & 1;
  switch (s) {
    case Src::f64: {
      const double v = std::ldexp(1.0 + static_cast<double>(r >> 12) * 0x1p-52, ed(rng));
      const double x = neg ? -v : v;
      std::uint64_t c;
      std::memcpy(&c, &x, 8);
      return {c, x};
    }
    case Src::f32: {
      const float v = std::ldexp(1.0f + static_cast<float>((r >> 41) & 0x7FFFFF) * 0x1p-23f, ed(rng));
      const float x = neg ? -v : v;
      std::uint32_t c;
      std::memcpy(&c, &x, 4);
      return {c, static_cast<double>(x)};
    }
    case Src::f16: {
      const auto c = static_cast<std::uint16_t>(r >> 48);  // every binary16 (NaN/Inf filtered below)
      return {c, minifloat_test::f16_bits_value(c)};
    }
    case Src::bf16: {
      // bf16 with an exponent near the target's range
      const int e = std::clamp(ed(rng) + 127, 1, 254);
      const auto c = static_cast<std::uint16_t>((neg ? 0x8000 : 0) | (e << 7) | ((r >> 20) & 0x7F));
      return {c, minifloat_test::bf16_bits_value(c)};
    }
    case Src::e5m2: {
      const auto c = static_cast<std::uint16_t>((r >> 56) & 0xFF);
      const int e = (c >> 2) & 0x1F, m = c & 3;
      double v = e == 0 ? std::ldexp(m, -16) : (e == 31 ? NAN : std::ldexp(4 + m, e - 17));
      return {c, (c & 0x80) ? -v : v};
    }
  }
  return {0, 0};
}

const RoundingSpec kVariants[] = {
    {Rounding::sr, Overflow::nonsat, SrVariant::exact, 8}, {Rounding::sr, Overflow::nonsat, SrVariant::a, 3},
    {Rounding::sr, Overflow::nonsat, SrVariant::a, 13},    {Rounding::sr, Overflow::nonsat, SrVariant::b, 8},
    {Rounding::sr, Overflow::nonsat, SrVariant::c, 4},     {Rounding::sr, Overflow::nonsat, SrVariant::equal, 8},
};

std::uint64_t negate_code(const GridFormat& g, std::uint64_t c) {
  const std::uint64_t s = std::uint64_t{1} << (g.bits - 1);
  if (!g.has_neg_zero && (c & ~s) == 0) return c;  // FNUZ: +0 stays +0, NaN 0x80 stays NaN
  return c ^ s;
}

TEST(SrStructure, ResultIsRdOrRu_EngineAndGridOracle) {
  std::mt19937_64 rng(20240601);
  long checked = 0;
  for (const GridFormat& g : grid_formats()) {
    const Format to = parse_format(g.name);
    const auto vals = grid_values(g);
    for (Src s : {Src::f64, Src::f32, Src::f16, Src::bf16, Src::e5m2}) {
      if (g.bits == 16 && (s == Src::f16 || s == Src::bf16) && src_format(s) == to) continue;
      for (int i = 0; i < 1500; ++i) {
        const Input in = random_input(s, g, rng);
        if (!std::isfinite(in.value)) continue;
        for (Overflow ov : {Overflow::nonsat, Overflow::satfinite}) {
          const RoundingSpec rtn{Rounding::rtn, ov}, rtp{Rounding::rtp, ov};
          const std::uint64_t lo = convert(src_format(s), in.code, to, rtn).code;
          const std::uint64_t hi = convert(src_format(s), in.code, to, rtp).code;
          const auto nb = grid_neighbours(g, vals, in.value, ov == Overflow::satfinite);
          for (RoundingSpec spec : kVariants) {
            spec.overflow = ov;
            const std::uint64_t rb = rng();
            const std::uint64_t got = convert(src_format(s), in.code, to, spec, profiles::ocp, rb).code;
            ASSERT_TRUE(got == lo || got == hi)
                << g.name << " from " << src_name(s) << " x=" << in.value << " got " << got << " rtn " << lo << " rtp "
                << hi;
            ASSERT_TRUE(got == nb.down || got == nb.up)
                << "grid oracle: " << g.name << " from " << src_name(s) << " x=" << in.value << " got " << got
                << " RD " << nb.down << " RU " << nb.up;
            // SR(−x) = −SR(x) for the same random bits (sign-magnitude; spec-digest §6.1).
            const std::uint64_t sbit = std::uint64_t{1} << (src_format(s).bits - 1);
            const std::uint64_t gotn = convert(src_format(s), in.code ^ sbit, to, spec, profiles::ocp, rb).code;
            ASSERT_EQ(gotn, negate_code(g, got)) << g.name << " from " << src_name(s) << " x=" << in.value;
            ++checked;
          }
        }
      }
    }
  }
  std::printf("[ structure ] %ld SR results checked\n", checked);
}

TEST(SrStructure, RepresentableValuesNeverMove) {
  std::mt19937_64 rng(7);
  for (const GridFormat& g : grid_formats()) {
    const Format to = parse_format(g.name);
    const auto vals = grid_values(g);
    for (std::size_t k = 0; k < vals.size(); k += (vals.size() > 300 ? 37 : 1)) {
      for (double x : {vals[k], -vals[k]}) {
        const auto nb = grid_neighbours(g, vals, x, false);
        ASSERT_EQ(nb.down, nb.up);
        for (RoundingSpec spec : kVariants)
          for (Overflow ov : {Overflow::nonsat, Overflow::satfinite}) {
            spec.overflow = ov;
            const std::uint64_t rb = rng();
            EXPECT_EQ(from_double(x, to, spec, profiles::ocp, rb).code, nb.down) << g.name << " x=" << x;
            if (static_cast<double>(static_cast<float>(x)) == x) {
              EXPECT_EQ(from_float(static_cast<float>(x), to, spec, profiles::ocp, rb).code, nb.down) << g.name;
            }
          }
      }
    }
  }
}

// P3109 formats: the engine's rtn/rtp bracket every SR result (the grid oracle does not cover them).
TEST(SrStructure, P3109FormatsBracketedByDirectedModes) {
  std::mt19937_64 rng(11);
  for (Format to : {p3109(8, 3, Signedness::signed_, P3109Domain::extended), p3109(8, 4, Signedness::signed_, P3109Domain::finite), p3109(6, 2, Signedness::unsigned_, P3109Domain::extended), p3109(4, 1, Signedness::signed_, P3109Domain::extended)})
    for (int i = 0; i < 4000; ++i) {
      const double x = std::ldexp(static_cast<double>(rng() >> 11) * 0x1p-53, static_cast<int>(rng() % 60) - 30) *
                       ((rng() & 1) ? -1 : 1);
      for (RoundingSpec spec : kVariants)
        for (Overflow ov : {Overflow::nonsat, Overflow::satfinite}) {
          spec.overflow = ov;
          const std::uint64_t got = from_double(x, to, spec, profiles::p3109, rng()).code;
          const std::uint64_t lo = from_double(x, to, {Rounding::rtn, ov}, profiles::p3109).code;
          const std::uint64_t hi = from_double(x, to, {Rounding::rtp, ov}, profiles::p3109).code;
          ASSERT_TRUE(got == lo || got == hi) << format_name(to) << " x=" << x;
        }
    }
}

// ---- statistics ----------------------------------------------------------------------------------
//
// With n = 10^6 draws and P(up) = p, the number of round-ups K ~ Binomial(n, p); the tests require
// |K − n·p| ≤ 5σ + 1, σ = sqrt(n·p·(1−p)) (two-sided 5σ: a false failure has probability < 6e−7 for
// a fixed seed; and the seed is fixed, so the outcome is deterministic).

constexpr std::size_t kDraws = 1000000;

struct StatPoint {
  const char* what;
  const char* fmt;
  double x;
  bool f64;  // else f32
};

std::size_t count_up(const StatPoint& p, const RoundingSpec& spec, std::uint64_t seed, std::uint64_t up_code) {
  const Format to = parse_format(p.fmt);
  std::vector<std::uint8_t> out8;
  std::vector<std::uint16_t> out16;
  const SrStream s{seed, 3, 1, 0};
  auto run = [&](auto& out) {
    out.resize(kDraws);
    if (p.f64) {
      std::vector<double> in(kDraws, p.x);
      sr_convert_f64(in, out, to, spec, s, profiles::ocp, 2);
    } else {
      std::vector<float> in(kDraws, static_cast<float>(p.x));
      sr_convert_f32(in, out, to, spec, s, profiles::ocp, 2);
    }
    std::size_t k = 0;
    for (auto c : out) k += c == up_code;
    return k;
  };
  return to.bits <= 8 ? run(out8) : run(out16);
}

const GridFormat& grid(const char* name) {
  for (const auto& g : grid_formats())
    if (g.name == name) return g;
  throw std::runtime_error("no grid format");
}

TEST(SrStatistics, ExactVariantIsUnbiased_5Sigma) {
  const StatPoint points[] = {
      {"e4m3fn 1+0.1/8 (f64)", "e4m3fn", 1 + 0.1 / 8, true},
      {"e4m3fn 1.0625 (f32)", "e4m3fn", 1.0625, false},
      {"e4m3fn subnormal 0.37*2^-9 (f64)", "e4m3fn", 0.37 * 0x1p-9, true},
      {"e4m3fn 1/3 (f64)", "e4m3fn", 1.0 / 3, true},
      {"e4m3fn 460 (nonsat overflow)", "e4m3fn", 460.0, false},
      {"e5m2 -1000.3 (f64)", "e5m2", -1000.3, true},
      {"e2m1fn 5.1 (f64)", "e2m1fn", 5.1, true},
      {"bf16 1+2^-9+2^-20 (f32)", "bf16", 1 + 0x1p-9 + 0x1p-20, false},
      {"f16 tiny subnormal 0.001*2^-24 (f64)", "f16", 0.001 * 0x1p-24, true},
  };
  const RoundingSpec spec{Rounding::sr, Overflow::nonsat, SrVariant::exact, 8};
  for (const auto& p : points) {
    const GridFormat& g = grid(p.fmt);
    const auto vals = grid_values(g);
    const double x = p.f64 ? p.x : static_cast<double>(static_cast<float>(p.x));
    const double nu = grid_fraction(g, vals, x);
    const auto nb = grid_neighbours(g, vals, x, false);
    ASSERT_NE(nb.down, nb.up) << p.what;
    const std::size_t k = count_up(p, spec, 12345, nb.up);
    const double mean = static_cast<double>(kDraws) * nu;
    const double sigma = std::sqrt(static_cast<double>(kDraws) * nu * (1 - nu));
    std::printf("[ E[SR(x)] ] %-40s nu=%.9f  measured P(up)=%.6f  (%.2f sigma)\n", p.what, nu,
                static_cast<double>(k) / kDraws, (static_cast<double>(k) - mean) / sigma);
    EXPECT_LE(std::fabs(static_cast<double>(k) - mean), 5 * sigma + 1) << p.what;
  }
}

// T17 (spec-digest §11) measured with Philox bits: e4m3fn, x = 1 + 2^−12, N = 8:
// P(up) A = 0, B = 1/256, C = 0, exact = 1/512. Also prints the P(up) table of the final report.
TEST(SrStatistics, T17AndVariantTable_5Sigma) {
  struct Row {
    const char* what;
    double x;
    double want[5];  // exact, A<8>, B<8>, C<8>, equal (by the formulas of spec-digest §3.2/§6.1)
  };
  // ν for each point (e4m3fn, ulp 1/8 on [1, 2)): 1+2^-12 → 2^-9; 1.0625 → 1/2; 1+3·2^-13 → 3/1024;
  // 1 + 0.3/8 → 0.3 (f32-rounded; the exact ν is computed below and used for "exact").
  const Row rows[] = {
      {"T17 1+2^-12", 1 + 0x1p-12, {1.0 / 512, 0.0, 1.0 / 256, 0.0, 0.5}},
      {"1.0625 (midpoint)", 1.0625, {0.5, 0.5, 0.5, 0.5, 0.5}},
      {"1+3*2^-13 (nu=3/1024)", 1 + 3 * 0x1p-13, {3.0 / 1024, 0.0, 1.0 / 256, 1.0 / 256, 0.5}},
      {"1+2^-4-2^-13 (nu=1/2-1/1024)", 1 + 0x1p-4 - 0x1p-13, {0.5 - 1.0 / 1024, 127.0 / 256, 128.0 / 256, 128.0 / 256, 0.5}},
  };
  const SrVariant vs[] = {SrVariant::exact, SrVariant::a, SrVariant::b, SrVariant::c, SrVariant::equal};
  std::printf("[ P(up) table ] e4m3fn, f32 input, N = 8, 10^6 Philox draws (seed 2024)\n");
  std::printf("| point | nu | exact | A<8> | B<8> | C<8> | equal |\n|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %.6g |", r.what, r.want[0]);
    for (int v = 0; v < 5; ++v) {
      const RoundingSpec spec{Rounding::sr, Overflow::satfinite, vs[v], 8};
      const std::size_t k = count_up({r.what, "e4m3fn", r.x, false}, spec, 2024, 0x39);
      const double p = r.want[v];
      const double mean = static_cast<double>(kDraws) * p;
      const double sigma = std::sqrt(static_cast<double>(kDraws) * p * (1 - p));
      std::printf(" %.6f (exp %.6f) |", static_cast<double>(k) / kDraws, p);
      EXPECT_LE(std::fabs(static_cast<double>(k) - mean), 5 * sigma + 1)
          << r.what << " variant " << sr_variant_name(vs[v]);
      if (p == 0) {
        EXPECT_EQ(k, 0u) << r.what << " variant " << sr_variant_name(vs[v]);
      }
    }
    std::printf("\n");
  }
}

// ---- reproducibility -----------------------------------------------------------------------------

TEST(SrReproducibility, SameBitsForAnyThreadCountAndChunking) {
  std::mt19937_64 rng(99);
  std::vector<float> in(200003);
  for (auto& v : in) v = std::ldexp(static_cast<float>(rng() >> 40) * 0x1p-24f, static_cast<int>(rng() % 24) - 14);
  std::vector<double> in64(in.begin(), in.end());
  for (SrVariant var : {SrVariant::exact, SrVariant::a, SrVariant::c}) {
    const RoundingSpec spec{Rounding::sr, Overflow::satfinite, var, 8};
    const SrStream s{0xabcdef, 17, 3, 0};
    std::vector<std::uint8_t> ref(in.size());
    sr_convert_f32(in, ref, formats::e4m3fn, spec, s, profiles::ocp, 1);
    for (unsigned t : {2u, 8u, 3u}) {
      std::vector<std::uint8_t> out(in.size());
      sr_convert_f32(in, out, formats::e4m3fn, spec, s, profiles::ocp, t);
      EXPECT_EQ(out, ref) << t << " threads";
    }
    // chunkings: calls over [a, b) with index_base = a, in any order
    for (std::vector<std::size_t> cuts : {std::vector<std::size_t>{0, 1, 1000, 1024, 33333, in.size()},
                                          std::vector<std::size_t>{0, 7, 4099, 100000, 100001, in.size()}}) {
      std::vector<std::uint8_t> out(in.size());
      for (std::size_t k = cuts.size() - 1; k-- > 0;) {
        SrStream c = s;
        c.index_base = cuts[k];
        sr_convert_f32(std::span<const float>(in).subspan(cuts[k], cuts[k + 1] - cuts[k]),
                       std::span<std::uint8_t>(out).subspan(cuts[k], cuts[k + 1] - cuts[k]), formats::e4m3fn, spec, c,
                       profiles::ocp, 2);
      }
      EXPECT_EQ(out, ref) << "chunked";
    }
    // f32 values given as f64 round identically (same exact values, same bits)
    std::vector<std::uint8_t> o64(in.size());
    sr_convert_f64(in64, o64, formats::e4m3fn, spec, s, profiles::ocp, 8);
    EXPECT_EQ(o64, ref);
    // a different seed / stream / step changes the bits
    std::vector<std::uint8_t> other(in.size());
    sr_convert_f32(in, other, formats::e4m3fn, spec, SrStream{0xabcdef, 17, 4, 0}, profiles::ocp, 2);
    EXPECT_NE(other, ref);
  }
}

}  // namespace
