// SPDX-License-Identifier: Apache-2.0
// bench_sr.cpp: f32 → e4m3fn stochastic rounding (exact variant, Philox4x32-10 bits per element,
// sr_convert_f32) against round-to-nearest-even (convert_f32) over the same array in one run;
// prints elements/s of both and the SR/RNE throughput ratio.
#include <benchmark/benchmark.h>

#include "bench_input.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "minifloat/convert_span.hpp"
#include "minifloat/stochastic.hpp"

namespace {

constexpr std::size_t kElems = std::size_t{1} << 22;  // 4 Mi floats (16 MiB)

const std::vector<float>& input() {
  static const std::vector<float> v = e4m3fn_bench_input(kElems);
  return v;
}

void run_rne(std::vector<std::uint8_t>& out) {
  const auto f = minifloat::convert_f32(input(), out, minifloat::formats::e4m3fn,
                                        {minifloat::Rounding::rne, minifloat::Overflow::satfinite}, minifloat::profiles::ocp, {},
                                        1);  // one thread: the SR/RNE target is per core
  benchmark::DoNotOptimize(f);
}
void run_sr(std::vector<std::uint8_t>& out, minifloat::SrVariant v, std::uint32_t step) {
  const auto f = minifloat::sr_convert_f32(input(), out, minifloat::formats::e4m3fn,
                                           {minifloat::Rounding::sr, minifloat::Overflow::satfinite, v, 8},
                                           minifloat::SrStream{1, 0, step, 0}, minifloat::profiles::ocp, 1);
  benchmark::DoNotOptimize(f);
}

void f32_to_e4m3fn_rne(benchmark::State& state) {
  std::vector<std::uint8_t> out(kElems);
  for (auto _ : state) {
    run_rne(out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElems));
}

void f32_to_e4m3fn_sr_exact_philox(benchmark::State& state) {
  std::vector<std::uint8_t> out(kElems);
  std::uint32_t step = 0;
  for (auto _ : state) {
    run_sr(out, minifloat::SrVariant::exact, step++);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElems));
}

void f32_to_e4m3fn_sr_a8_philox(benchmark::State& state) {
  std::vector<std::uint8_t> out(kElems);
  std::uint32_t step = 0;
  for (auto _ : state) {
    run_sr(out, minifloat::SrVariant::a, step++);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElems));
}

BENCHMARK(f32_to_e4m3fn_rne)->Unit(benchmark::kMillisecond);
BENCHMARK(f32_to_e4m3fn_sr_exact_philox)->Unit(benchmark::kMillisecond);
BENCHMARK(f32_to_e4m3fn_sr_a8_philox)->Unit(benchmark::kMillisecond);

/// Best-of-5 wall time of `fn` in seconds.
template <class Fn>
double best_seconds(Fn fn) {
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // The summary the issue asks for, measured once more back to back over the same array.
  std::vector<std::uint8_t> out(kElems);
  const double rne = best_seconds([&] { run_rne(out); });
  const double sr = best_seconds([&] { run_sr(out, minifloat::SrVariant::exact, 7); });
  const double n = static_cast<double>(kElems);
  std::printf("\nf32 -> e4m3fn, %zu elements, best of 5, 1 thread:\n", kElems);
  std::printf("  rne:                  %8.1f M elements/s\n", n / rne / 1e6);
  std::printf("  sr exact (Philox):    %8.1f M elements/s\n", n / sr / 1e6);
  std::printf("  SR/RNE throughput ratio: %.3f (SR takes %.2fx the time of RNE)\n", rne / sr, sr / rne);
  return 0;
}
