// SPDX-License-Identifier: Apache-2.0
// bench_input.hpp: the benchmarks' shared input: normal, subnormal and out-of-range magnitudes of
// e4m3fn (|x| in [2^-12, 2^10)) with random signs, so every branch of the engine is taken; fixed seed.
#pragma once
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

inline std::vector<float> e4m3fn_bench_input(std::size_t n) {
  std::vector<float> x(n);
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> mant(1.f, 2.f);
  std::uniform_int_distribution<int> ex(-12, 9);
  for (auto& f : x) f = std::ldexp(mant(rng), ex(rng)) * ((rng() & 1) ? -1.f : 1.f);
  return x;
}
