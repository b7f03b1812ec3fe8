// SPDX-License-Identifier: Apache-2.0
// bench_sr.cpp: stochastic rounding (sr_convert_f32 / sr_convert_f64, Philox4x32-10 bits per
// element) into e4m3fn, exact and A/B/C (sr_bits 8), against round-to-nearest-even (convert_f32 /
// convert_f64) and a memcpy of the same source array, all in one run, 1 and 2 threads (the
// benchmark argument). Ratios: `scripts/bench_ratios.py` is not needed — run with
//   build/bench/bench_sr --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
// and divide the medians (cpu_time for 1 thread; real_time for both; the 2-thread CPU time counts
// the calling thread only). The summary at the end prints the SR/RNE and ×memcpy ratios of the
// 1-thread medians of this run. The "philox alone" rows time the vector Philox generator (simd::philox_blocks)
// for the documented stream's blocks of the same elements (one per 2 elements for exact, per 4 for A/B/C)
// into an L1-resident buffer: the least any SR path under that layout pays.
#include <benchmark/benchmark.h>

#include "bench_input.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "minifloat/convert_span.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/stochastic.hpp"
#include "simd/convert_simd.hpp"  // philox_blocks: the vector generator alone (the "philox alone" rows)

namespace {

namespace mf = minifloat;
constexpr std::size_t kElems = std::size_t{1} << 22;  // 4 Mi elements (16 MiB f32, 32 MiB f64)

const std::vector<float>& input() {
  static const std::vector<float> v = e4m3fn_bench_input(kElems);
  return v;
}
const std::vector<double>& input64() {
  static const std::vector<double> v = [] {
    std::vector<double> d(input().begin(), input().end());
    std::mt19937_64 rng(99);  // fill the low mantissa bits so the f64 rounding reads them
    for (double& x : d) x = std::nextafter(x, x + (rng() & 1 ? 1.0 : -1.0)) * (1.0 + std::ldexp(rng() >> 40, -60));
    return d;
  }();
  return v;
}

template <class Fn>
void loop(benchmark::State& state, Fn fn) {
  for (auto _ : state) {
    fn(static_cast<unsigned>(state.range(0)));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElems));
}

void memcpy_f32(benchmark::State& state) {
  std::vector<float> out(kElems);
  loop(state, [&](unsigned) {
    std::memcpy(out.data(), input().data(), kElems * 4);
    benchmark::DoNotOptimize(out.data());
  });
}
void memcpy_f64(benchmark::State& state) {
  std::vector<double> out(kElems);
  loop(state, [&](unsigned) {
    std::memcpy(out.data(), input64().data(), kElems * 8);
    benchmark::DoNotOptimize(out.data());
  });
}
void f32_rne(benchmark::State& state) {
  std::vector<std::uint8_t> out(kElems);
  loop(state, [&](unsigned t) {
    benchmark::DoNotOptimize(mf::convert_f32(input(), out, mf::formats::e4m3fn,
                                             {mf::Rounding::rne, mf::Overflow::satfinite}, mf::profiles::ocp, {}, t));
  });
}
void f64_rne(benchmark::State& state) {
  std::vector<std::uint8_t> out(kElems);
  loop(state, [&](unsigned t) {
    benchmark::DoNotOptimize(mf::convert_f64(input64(), out, mf::formats::e4m3fn,
                                             {mf::Rounding::rne, mf::Overflow::satfinite}, mf::profiles::ocp, {}, t));
  });
}
template <mf::SrVariant V>
void f32_sr(benchmark::State& state) {
  std::vector<std::uint8_t> out(kElems);
  std::uint32_t step = 0;
  loop(state, [&](unsigned t) {
    benchmark::DoNotOptimize(mf::sr_convert_f32(input(), out, mf::formats::e4m3fn,
                                                {mf::Rounding::sr, mf::Overflow::satfinite, V, 8},
                                                mf::SrStream{1, 0, step++, 0}, mf::profiles::ocp, t));
  });
}
/// The random bits alone: the documented stream's Philox4x32-10 blocks for the same elements (one block per
/// 2 elements for exact, per 4 for A/B/C: random.hpp sr_bits), by the vector generator the fused kernel
/// runs (simd::philox_blocks, PhiloxLanes2), into a 256-block buffer that stays in L1: no rounding and no
/// array traffic, the least an SR path under that stream layout pays on this machine.
template <mf::SrVariant V>
void philox_only(benchmark::State& state) {
  constexpr std::size_t kBuf = 256;
  std::vector<std::uint32_t> words(4 * kBuf);
  const std::size_t blocks = kElems * mf::sr_words(V) / 4;
  loop(state, [&](unsigned) {
    for (std::size_t b = 0; b < blocks; b += kBuf) {
      mf::simd::philox_blocks(static_cast<std::uint32_t>(b), 0, 0, 7, 1, 0, kBuf, words.data());
      benchmark::DoNotOptimize(words.data());
    }
  });
}
template <mf::SrVariant V>
void f64_sr(benchmark::State& state) {
  std::vector<std::uint8_t> out(kElems);
  std::uint32_t step = 0;
  loop(state, [&](unsigned t) {
    benchmark::DoNotOptimize(mf::sr_convert_f64(input64(), out, mf::formats::e4m3fn,
                                                {mf::Rounding::sr, mf::Overflow::satfinite, V, 8},
                                                mf::SrStream{1, 0, step++, 0}, mf::profiles::ocp, t));
  });
}

#define MF_BENCH(fn) BENCHMARK(fn)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()
MF_BENCH(memcpy_f32);
MF_BENCH(f32_rne);
MF_BENCH(f32_sr<mf::SrVariant::exact>);
MF_BENCH(f32_sr<mf::SrVariant::a>);
MF_BENCH(f32_sr<mf::SrVariant::b>);
MF_BENCH(f32_sr<mf::SrVariant::c>);
BENCHMARK(philox_only<mf::SrVariant::exact>)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(philox_only<mf::SrVariant::a>)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
MF_BENCH(memcpy_f64);
MF_BENCH(f64_rne);
MF_BENCH(f64_sr<mf::SrVariant::exact>);

/// Collects the median (or only) real and CPU time per benchmark name for the summary.
class Collect : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, std::pair<double, double>> t;  // name → (real, cpu)
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      std::string name = r.benchmark_name();
      const auto cut = name.find("_median");
      if (cut != std::string::npos) name.erase(cut);
      t[name] = {r.GetAdjustedRealTime(), r.GetAdjustedCPUTime()};
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  (void)input64();  // build the inputs (and fault their pages in) before any timing
  Collect rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  auto show = [&](const char* op, const std::string& base, const char* mem, const char* rne) {
    for (const char* th : {"1", "2"}) {
      const std::string key = base + "/" + th + "/real_time";
      const auto it = rep.t.find(key);
      const auto m = rep.t.find(std::string(mem) + "/" + th + "/real_time");
      const auto r = rep.t.find(std::string(rne) + "/" + th + "/real_time");
      if (it == rep.t.end() || m == rep.t.end() || r == rep.t.end()) continue;
      std::printf("%-22s %s thr  %7.1f M elem/s  x memcpy: wall %6.2f cpu %6.2f   x rne: wall %5.2f cpu %5.2f\n", op,
                  th, 1e3 * kElems / it->second.first / 1e6, it->second.first / m->second.first,
                  it->second.second / m->second.second, it->second.first / r->second.first,
                  it->second.second / r->second.second);
    }
  };
  std::printf("\ne4m3fn satfinite ocp, %zu elements, medians of this run (ratios of times):\n", kElems);
  show("f32 rne", "f32_rne", "memcpy_f32", "f32_rne");
  show("f32 sr exact", "f32_sr<mf::SrVariant::exact>", "memcpy_f32", "f32_rne");
  show("f32 sr a/8", "f32_sr<mf::SrVariant::a>", "memcpy_f32", "f32_rne");
  show("f32 sr b/8", "f32_sr<mf::SrVariant::b>", "memcpy_f32", "f32_rne");
  show("f32 sr c/8", "f32_sr<mf::SrVariant::c>", "memcpy_f32", "f32_rne");
  show("philox alone, exact", "philox_only<mf::SrVariant::exact>", "memcpy_f32", "f32_rne");
  show("philox alone, a/b/c", "philox_only<mf::SrVariant::a>", "memcpy_f32", "f32_rne");
  show("f64 rne", "f64_rne", "memcpy_f64", "f64_rne");
  show("f64 sr exact", "f64_sr<mf::SrVariant::exact>", "memcpy_f64", "f64_rne");
  return 0;
}
