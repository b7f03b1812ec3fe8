// SPDX-License-Identifier: Apache-2.0
// arith_error_growth.cpp: error growth of FP8 dot products under the Hopper tensor-core model with
// and without FP32 promotion every 128 lanes (training-sim.md §1.4; DeepSeek-V3 §3.3.2).
//
// Inputs: a_i, b_i ~ N(0, 1) rounded to e4m3fn (rne), fixed seed. For each K and model, over T
// vectors: relative error |d − x|/|x| and normwise error |d − x| / ||a∘b||₂, x the exact dot
// product (minifloat::dot_exact rounded to f64, whose relative error ≤ 2^−53 is far below the
// effects measured). Run: build/examples/arith_error_growth [trials]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <span>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "minifloat/core/convert.hpp"

namespace {

using namespace minifloat;

/// splitmix64: a fixed, portable generator (std::normal_distribution differs between libraries).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53; }
  double normal() {  // Box–Muller
    const double u = uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
};

struct Stats {
  std::vector<double> rel, norm;
  void add(double r, double n) {
    rel.push_back(r);
    norm.push_back(n);
  }
  static double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
  }
  static double max(const std::vector<double>& v) {
    double m = 0;
    for (double x : v) m = std::fmax(m, x);
    return m;
  }
  static double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 64;
  const std::size_t Ks[] = {256, 1024, 4096};
  const DotModel models[] = {parse_dot_model("hopper-fp8"), parse_dot_model("blocked128"), parse_dot_model("fp32")};
  const char* labels[] = {"hopper-fp8 (no promotion)", "hopper-fp8 + f32 every 128", "fp32 FFMA chain"};
  std::printf("FP8 (e4m3fn, N(0,1) rounded rne) dot products vs the exact value; %d vectors per K, seed 2024\n",
              trials);
  std::printf("%-6s %-28s %11s %11s %11s | %11s %11s %11s\n", "K", "model", "rel mean", "rel median", "rel max",
              "norm mean", "norm median", "norm max");
  for (const std::size_t K : Ks) {
    Rng rng{2024 + K};
    Stats st[3];
    for (int t = 0; t < trials; ++t) {
      std::vector<std::uint64_t> a(K), b(K);
      for (auto& x : a) x = from_double(rng.normal(), formats::e4m3fn).code;
      for (auto& x : b) x = from_double(rng.normal(), formats::e4m3fn).code;
      double norm2 = 0;
      for (std::size_t i = 0; i < K; ++i) {
        const double p = to_double(formats::e4m3fn, a[i]) * to_double(formats::e4m3fn, b[i]);  // exact in f64
        norm2 += p * p;
      }
      const double exact = to_double(
          formats::f64, dot_exact(formats::e4m3fn, a, formats::e4m3fn, b, formats::f32, 0, formats::f64).code);
      for (int m = 0; m < 3; ++m) {
        const double d = to_double(formats::f32, dot(models[m], formats::e4m3fn, a, formats::e4m3fn, b).code);
        st[m].add(std::fabs(d - exact) / std::fabs(exact), std::fabs(d - exact) / std::sqrt(norm2));
      }
    }
    for (int m = 0; m < 3; ++m)
      std::printf("%-6zu %-28s %11.3e %11.3e %11.3e | %11.3e %11.3e %11.3e\n", K, labels[m], Stats::mean(st[m].rel),
                  Stats::median(st[m].rel), Stats::max(st[m].rel), Stats::mean(st[m].norm),
                  Stats::median(st[m].norm), Stats::max(st[m].norm));
  }
  return 0;
}
